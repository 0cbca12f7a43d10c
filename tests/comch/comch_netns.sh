#!/bin/sh
# Comch across two machines, emulated: the DPU side (servers) in its own network + PID +
# mount namespaces, the host side (clients) in another such set, joined only by a veth pair
# (tests/netns.sh, the tests' one namespace launcher); each side has its own runtime directory
# (ODMA_RUNDIR), so only the network joins them. Needs root; exits 77 saying why when it cannot
# build the namespaces.
# Usage: comch_netns.sh PEER [DMA_COPY [EVENT]]   (PEER: comch_net_peer; DMA_COPY: doca_dma_copy,
# whose copies both ways across the namespaces are cmp-verified; EVENT: test_comch_event, whose
# event-driven pairs (epoll_wait(-1) on the PE's handle, no polling) run across them)
. "$(dirname "$0")/../netns.sh"
netns_require mkfifo
PEER=$1
APP=${2:-}
EVT=${3:-}
T=$(mktemp -d /tmp/odma-comchnet.XXXXXX)
netns_at_exit 'rm -rf "$T"'
trap '' PIPE
netns_make cc 202 h d
H=$NS_h
D=$NS_d
mkdir -p "$T/rh" "$T/rd"
chmod 700 "$T/rh" "$T/rd"
PORT=18516
export ODMA_SYSTEM=bf3
export ODMA_TRANSPORT_TIMEOUT_MS=1500
# each side has its own runtime directory (no shared cookie): one secret for both
export ODMA_FABRIC_SECRET="netns-test-secret-$$"
unset ODMA_TRANSPORT
# side NS RUNDIR ARGS...: one program in its own PID + mount namespace of network namespace NS
# every scenario on the same port: a server restarted there must not wait out TIME_WAIT
dpu() { ODMA_FABRIC="$ADDR_d:$PORT" ODMA_RUNDIR="$T/rd" netns_run d "$PEER" "$@"; }
host() { ODMA_FABRIC="$ADDR_d:$PORT" ODMA_RUNDIR="$T/rh" netns_run h "$PEER" "$@"; }
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# await FILE WORD SECONDS
await() {
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt $(($3 * 10)) ] && return 1
		sleep 0.1
	done
}

echo "== control path, hostile client"
dpu server ctl 10 >"$T/s1" 2>&1 &
s1=$!
await "$T/s1" listening 20 || bad "the server did not start: $(cat "$T/s1")"
host hostile || bad "hostile client"
host hostile-connected ctl || bad "hostile client after the handshake"
# a client that takes nothing back while it makes the server answer: the answers fill the
# transport's window (about 233,000 of them), then the server holds at most 16 MiB and an
# outbox of them and closes the connection (it grew without bound before 2026-12-07); on a
# busy machine the server's progress can fall behind the client's blind registrations first,
# and the receive-queue credits refuse it then. The client's own transport waits long (a send
# the loaded server takes late must not end the connection from this side first)
ODMA_TRANSPORT_TIMEOUT_MS=60000 host hostile-unread ctl 400000 ||
	bad "a client that takes nothing back"
host client ctl 300 || bad "client round trip"
wait $s1 || bad "server: $(cat "$T/s1")"
grep -q "256 KiB of control packets queued\|more packets than its receive-queue credits allow" "$T/s1" ||
	bad "no line for a client that takes nothing back"
grep -q "an FP_DATA longer than any buffer this side's consumers posted" "$T/s1" ||
	bad "no line for fast-path data with nothing posted"
grep -v "refused consumer 0 of the peer" "$T/s1"

echo "== fast path both ways"
dpu server-fp fp >"$T/s2" 2>&1 &
s2=$!
await "$T/s2" listening 20 || bad "the fast-path server did not start: $(cat "$T/s2")"
host client-fp fp || bad "fast-path client"
wait $s2 || bad "fast-path server: $(cat "$T/s2")"
grep -v listening "$T/s2"

echo "== one runtime directory for both sides, PID namespaces apart"
mkdir -p "$T/rs" && chmod 700 "$T/rs"
ODMA_FABRIC="$ADDR_d:$PORT" ODMA_RUNDIR="$T/rs" netns_run d "$PEER" server-fp shared >"$T/s3" 2>&1 &
s3=$!
await "$T/s3" listening 20 || bad "the shared-directory server did not start: $(cat "$T/s3")"
ODMA_FABRIC="$ADDR_d:$PORT" ODMA_RUNDIR="$T/rs" netns_run h "$PEER" client-fp shared ||
	bad "shared-directory fast-path client"
wait $s3 || bad "shared-directory server: $(cat "$T/s3")"

# lose MODE: a server and a client hold a connection; MODE kills the client, the server, or
# takes the link down; the survivors must see the end within the bound.
lose() {
	mkfifo "$T/gs_$1" "$T/gc_$1"
	dpu server-lose "lose$1" <"$T/gs_$1" >"$T/ls_$1" 2>&1 &
	sp=$!
	exec 7>"$T/gs_$1"
	await "$T/ls_$1" listening 20 || bad "$1: server did not start: $(cat "$T/ls_$1")"
	host client-hold "lose$1" <"$T/gc_$1" >"$T/lc_$1" 2>&1 &
	cp=$!
	exec 8>"$T/gc_$1"
	await "$T/lc_$1" ready 20 || bad "$1: client not ready: $(cat "$T/lc_$1")"
	await "$T/ls_$1" ready 20 || bad "$1: server not ready: $(cat "$T/ls_$1")"
	case $1 in
	client) netns_kill h; wait $cp; echo go >&7; wait $sp || bad "client killed: server: $(cat "$T/ls_$1")" ;;
	server) netns_kill d; wait $sp; echo go >&8; wait $cp || bad "server killed: client: $(cat "$T/lc_$1")" ;;
	link)
		ip -n "$NS_h" link set "$IF_h" down
		echo go >&7
		echo go >&8
		wait $sp || bad "link down: server: $(cat "$T/ls_$1")"
		wait $cp || bad "link down: client: $(cat "$T/lc_$1")"
		netns_link_up h
		;;
	esac
	exec 7>&- 8>&-
	cat "$T/ls_$1" "$T/lc_$1" | grep -v "^ready\|^listening" || true
}
echo "== peer killed"
lose client
lose server
echo "== link down"
lose link

# the event-driven pairs: each side sleeps in epoll_wait(-1) on its PE's notification handle
if [ -n "$EVT" ]; then
	for pair in "ctrl-server ctrl-client" "fp-server fp-client" "dma-dpu dma-host"; do
		set -- $pair
		echo "== event-driven: $1 + $2"
		ODMA_FABRIC="$ADDR_d:$PORT" ODMA_RUNDIR="$T/rd" netns_run d \
			timeout 60 "$EVT" --side "$1" "ev$1" >"$T/ev_s" 2>&1 &
		es=$!
		sleep 0.3
		ODMA_FABRIC="$ADDR_d:$PORT" ODMA_RUNDIR="$T/rh" netns_run h \
			timeout 60 "$EVT" --side "$2" "ev$1" >"$T/ev_c" 2>&1 ||
			bad "event-driven $2: $(cat "$T/ev_c")"
		wait $es || bad "event-driven $1: $(cat "$T/ev_s")"
		grep -h "sleeps\|ok" "$T/ev_s" "$T/ev_c" || true
	done
fi

# the DMA Copy application both ways: Comch control messages and DMA across the namespaces
if [ -n "$APP" ]; then
	echo "== DMA Copy application"
	head -c $((3 * 1048576 + 77)) /dev/urandom >"$T/src"
	app_run() {
		ODMA_SIDE=dpu ODMA_FABRIC="$ADDR_d:$PORT" ODMA_RUNDIR="$T/rd" netns_run d \
			timeout 60 "$APP" -f "$1" -l 50 >"$T/app_dpu" 2>&1 &
		ap=$!
		await "$T/app_dpu" "waiting for the host side" 20 || bad "dma_copy DPU side: $(cat "$T/app_dpu")"
		ODMA_SIDE=host ODMA_FABRIC="$ADDR_d:$PORT" ODMA_RUNDIR="$T/rh" netns_run h \
			timeout 60 "$APP" -f "$2" >"$T/app_host" 2>&1 ||
			bad "dma_copy host side: $(cat "$T/app_host")"
		wait $ap || bad "dma_copy DPU side: $(cat "$T/app_dpu")"
	}
	app_run "$T/dpu_copy" "$T/src"
	cmp "$T/src" "$T/dpu_copy" || bad "dma_copy host -> DPU: the files differ"
	app_run "$T/dpu_copy" "$T/back"
	cmp "$T/src" "$T/back" || bad "dma_copy DPU -> host: the files differ"
	[ $fail = 0 ] && echo "dma_copy: 3 MiB + 77 bytes host -> DPU and DPU -> host, cmp equal"
fi
exit $fail
