#!/bin/sh
# Comch across machines on one host, without root: both sides on loopback
# (ODMA_FABRIC=127.0.0.1:PORT), each with its own runtime directory, so they meet only at the
# port. Control path, fast path both ways, hostile clients, a malformed ODMA_FABRIC, a fabric
# secret too short and a port already in use. (comch_netns.sh runs the same across network +
# PID namespaces, as root.)
# Usage: comch_net_local.sh PEER
# As root it runs in a network namespace of its own (netns_private_loopback): the port the
# kernel picks for the server cannot be taken by another process before the server binds it.
# Without root, a server that finds its port taken is started again on a new pick (serve).
PEER=$1
. "$(dirname "$0")/../netns.sh"
netns_private_loopback "$0" "$@"
# A cross build runs its programs through the emulator meson names (qemu-user); empty natively.
# shellcheck disable=SC2086
W=${MESON_EXE_WRAPPER:-}
T=$(mktemp -d /tmp/odma-comchnet-local.XXXXXX)
trap 'for p in $(jobs -p); do kill -9 $p 2>/dev/null; done; rm -rf "$T"' EXIT
mkdir -p "$T/rh" "$T/rd"
chmod 700 "$T/rh" "$T/rd"
PORT=$($W "$PEER" free-port) || { echo "FAIL: no free port"; exit 1; } # the kernel's pick
export ODMA_SYSTEM=bf3 ODMA_TRANSPORT_TIMEOUT_MS=1500 ODMA_FABRIC="127.0.0.1:$PORT"
# the two sides' runtime directories differ, so they share no cookie: one secret for both
export ODMA_FABRIC_SECRET="local-test-secret-$$-$PORT"
unset ODMA_TRANSPORT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
await() {
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt $(($3 * 10)) ] && return 1
		sleep 0.1
	done
}
# Starts a server ($2...) logging to $1, its pid in $srv. Without root the port is only the
# kernel's pick, released: when another process took it meanwhile, the server says so and a
# new pick is tried (up to 8), every later command then using the new ODMA_FABRIC.
serve() {
	out=$1
	shift
	n=0
	while :; do
		ODMA_RUNDIR="$T/rd" $W "$PEER" "$@" >"$out" 2>&1 &
		srv=$!
		await "$out" "listening\|cannot listen at" 20 || return 1
		grep -q listening "$out" && return 0
		wait $srv
		n=$((n + 1))
		[ $n -lt 8 ] || return 1
		PORT=$($W "$PEER" free-port) || return 1
		export ODMA_FABRIC="127.0.0.1:$PORT"
	done
}
serve "$T/s1" server ctl 10 || bad "the server did not start: $(cat "$T/s1")"
s1=$srv
# a second server process cannot take the port (one line names address, error and fix)
ODMA_RUNDIR="$T/rd" $W "$PEER" server-port-busy other >"$T/busy" 2>&1 || bad "busy port: $(cat "$T/busy")"
grep -q "cannot listen at ODMA_FABRIC=127.0.0.1:$PORT" "$T/busy" || bad "no line for the busy port: $(cat "$T/busy")"
# and the refused server left no socket of its own behind in the runtime directory
[ "$(find "$T/rd" -type s | wc -l)" = 1 ] || bad "a refused server left its socket: $(find "$T/rd" -type s)"
# and a started server leaves no lock file: it removes it as it lets go
[ ! -e "$T/rd/.comch.lock" ] || bad "a started server left $T/rd/.comch.lock"
ODMA_RUNDIR="$T/rh" $W "$PEER" hostile || bad "hostile client"
# a client with another secret learns the server cannot prove it, and fails its start
ODMA_FABRIC_SECRET=another-secret-of-16 ODMA_RUNDIR="$T/rh" $W "$PEER" client-refused ctl >"$T/ws" 2>&1 ||
	bad "wrong secret: $(cat "$T/ws")"
grep -q "could not prove the fabric secret" "$T/ws" || bad "no line for a wrong secret: $(cat "$T/ws")"
# a relay with no secret passes a client's connection on to the server: the client dialled the
# relay's port, not this server's, and must not end up at it (the proofs bind what it dialled)
$W "$PEER" relay "$PORT" >"$T/relay" 2>&1 &
await "$T/relay" "relaying at" 10 || bad "the relay did not start: $(cat "$T/relay")"
RPORT=$(sed -n 's/^relaying at //p' "$T/relay")
ODMA_FABRIC="127.0.0.1:$RPORT" ODMA_RUNDIR="$T/rh" $W "$PEER" client-refused ctl >"$T/rl" 2>&1 ||
	bad "a client through a relay reached the server: $(cat "$T/rl")"
# without ODMA_FABRIC_SECRET, each side's cookie is its own runtime directory's: they differ
env -u ODMA_FABRIC_SECRET ODMA_RUNDIR="$T/rh" $W "$PEER" client-refused ctl >"$T/wc" 2>&1 ||
	bad "other cookie: $(cat "$T/wc")"
[ "$(stat -c %a "$T/rh/fabric-secret")" = 600 ] || bad "the cookie is not mode 0600"
ODMA_RUNDIR="$T/rh" $W "$PEER" hostile-connected ctl || bad "hostile client after the handshake"
ODMA_RUNDIR="$T/rh" $W "$PEER" client ctl 200 || bad "client round trip"
# 20 MiB each way: past the transport's credit window, so each side must give credit back
ODMA_RUNDIR="$T/rh" $W "$PEER" client-big ctl 5000 || bad "client round trip past the credit window"
wait $s1 || bad "server: $(cat "$T/s1")"
# (a WELCOME sent to a server is refused by its progress, an unknown type already on arrival:
# whichever comes first closes that connection)
for w in "a CREDIT that goes back" "a CREDIT for more messages than this side sent" \
	"lengths do not add up" "could not prove the fabric secret" \
	"unknown packet type\|a packet of an unknown type" "a message longer than this connection.s limit" \
	"a ring geometry no consumer makes" "an FP_DATA longer than any buffer this side.s consumers posted"; do
	grep -q "$w" "$T/s1" || bad "the server did not refuse: $w"
done
# a network peer has no pid: the lines name where it is (a hostile client vanished without BYE)
grep -q "the peer (at ODMA_FABRIC) closed connection" "$T/s1" || bad "no line names a vanished network peer"
if grep -q "pid 0" "$T/s1"; then bad "a line names a network peer pid 0: $(grep "pid 0" "$T/s1")"; fi
serve "$T/s2" server-fp fp || bad "the fast-path server did not start: $(cat "$T/s2")"
s2=$srv
ODMA_RUNDIR="$T/rh" $W "$PEER" client-fp fp || bad "fast-path client"
wait $s2 || bad "fast-path server: $(cat "$T/s2")"
# a server's stop does not wait for clients that stopped (SIGSTOP): 2 s each before 2026-12-06
serve "$T/s6" server-stop frozen 3 "$T/go6" || bad "the stopping server did not start: $(cat "$T/s6")"
s6=$srv
mkfifo "$T/hold"
exec 9<>"$T/hold" # the clients' stdin: never a line, never an end
frozen=
for i in 1 2 3; do
	ODMA_RUNDIR="$T/rh" $W "$PEER" client-hold frozen <"$T/hold" >"$T/h$i" 2>&1 &
	frozen="$frozen $!"
done
await "$T/s6" ready 30 || bad "the clients did not reach the server: $(cat "$T/s6")"
kill -STOP $frozen
touch "$T/go6"
wait $s6 || bad "a stop waited for stopped clients: $(cat "$T/s6")"
kill -KILL $frozen
wait $frozen 2>/dev/null
exec 9>&-
# a server that does not progress while 400 peers that proved the secret come and go holds
# what 128 handshakes hold, not one descriptor each (before: every one until its progress).
# Not on UCX's link: under such churn UCX 1.13's TCP connection manager aborts the server now
# and then (an assertion in tcp_sockcm_ep.c, once in 12 runs; docs/host-dpu.md).
if [ "${ODMA_LINK:-}" != ucp ]; then
	serve "$T/s7" server-idle idle "$T/go7" || bad "the idle server did not start: $(cat "$T/s7")"
	s7=$srv
	ODMA_RUNDIR="$T/rh" $W "$PEER" hs-churn 400 >"$T/c7" 2>&1 || bad "hs-churn: $(cat "$T/c7")"
	touch "$T/go7"
	wait $s7 || bad "idle server: $(grep -v WARNING "$T/s7")"
fi
# A server disconnects 3 frozen clients with 15 MiB in flight to each, more than their sockets
# take, and goes on: every message reported sent reaches its client once it runs again, and
# each client sees the server disconnect it (before: the PE thread waited 200 ms per
# connection, then the transport dropped what was still queued, the disconnect with it).
ODMA_SYSTEM="$(cd "$(dirname "$0")/../data/profiles" && pwd)/comch-flood.profile"
# Then the same with a stop and more than the transport holds for each client: the sends it
# did not take fail, the disconnect message waits for room (before: lost, the clients saw the
# server vanish) and everything reported sent arrives.
for how in disconnect stop; do
	serve "$T/s8" server-flood flood 3 "$T/go8" $how || bad "the flooding server did not start: $(cat "$T/s8")"
	s8=$srv
	flooded=
	for i in 1 2 3; do
		ODMA_RUNDIR="$T/rh" $W "$PEER" client-count flood >"$T/f$i" 2>&1 &
		flooded="$flooded $!"
	done
	await "$T/s8" ready 30 || bad "$how: the clients did not reach the flooding server: $(cat "$T/s8")"
	kill -STOP $flooded
	touch "$T/go8"
	await "$T/s8" closed 30 || bad "$how: the flooding server did not close: $(cat "$T/s8")"
	kill -CONT $flooded
	got=0
	for p in $flooded; do wait "$p" || bad "$how: a flooded client failed: $(cat "$T"/f*)"; done
	for i in 1 2 3; do got=$((got + $(sed -n 's/^received //p' "$T/f$i"))); done
	sent=$(sed -n 's/^closed: \([0-9]*\) sent.*/\1/p' "$T/s8")
	[ "$got" = "$sent" ] || bad "$how: the server reported $sent messages sent, its clients received $got"
	if grep -q "without disconnecting" "$T"/f*; then bad "$how: a client saw its server vanish: $(cat "$T"/f*)"; fi
	wait $s8 || bad "$how: flooding server: $(cat "$T/s8")"
	rm -f "$T/go8"
done
ODMA_SYSTEM=bf3
# 40 clients come and go (every other one killed): the server stays bounded across the network
serve "$T/s5" lifetime life 40 "$T/rh" || bad "the lifetime server did not start: $(cat "$T/s5")"
s5=$srv
wait $s5 || bad "lifetime server: $(tail -n 20 "$T/s5")"
# A server and a client in two PID namespaces that share the runtime directory (root only): the client
# meets its socket, sees that the server's memory is out of reach, says BYE and connects
# across ODMA_FABRIC. A clean run: the server logs no premature close.
if [ "$(id -u)" = 0 ] && unshare --pid --fork true 2>/dev/null; then
	ODMA_RUNDIR="$T/rd" unshare --pid --fork $W "$PEER" server ctl 1 >"$T/s3" 2>&1 &
	s3=$!
	await "$T/s3" listening 20 || bad "the PID-namespace server did not start: $(cat "$T/s3")"
	ODMA_RUNDIR="$T/rd" unshare --pid --fork $W "$PEER" client ctl 20 >"$T/c3" 2>&1 || bad "client across PID namespaces: $(cat "$T/c3")"
	wait $s3 || bad "PID-namespace server: $(cat "$T/s3")"
	if grep -q "before its HELLO\|pid 0" "$T/s3"; then bad "a clean run logged a premature close: $(cat "$T/s3")"; fi
	pidns=", server and client in two PID namespaces"
fi
ODMA_FABRIC=nonsense ODMA_RUNDIR="$T/rd" $W "$PEER" server-bad-fabric x >"$T/bf" 2>&1 || bad "bad fabric: $(cat "$T/bf")"
grep -q 'ODMA_FABRIC="nonsense" is not ADDRESS:PORT' "$T/bf" || bad "no line for a bad ODMA_FABRIC: $(cat "$T/bf")"
# a port out of range is refused by the same parser as the DMA export path's
ODMA_FABRIC=127.0.0.1:99999 ODMA_RUNDIR="$T/rd" $W "$PEER" server-bad-fabric x >"$T/bf2" 2>&1 || bad "bad fabric port: $(cat "$T/bf2")"
grep -q 'ODMA_FABRIC="127.0.0.1:99999" is not ADDRESS:PORT' "$T/bf2" || bad "no line for ODMA_FABRIC=127.0.0.1:99999: $(cat "$T/bf2")"
# an address on no network of this side (this namespace has only lo): the start is refused,
# and the lines say that no interface reaches it and that it cannot be listened on
ODMA_FABRIC=198.51.100.1:$PORT ODMA_RUNDIR="$T/rd" $W "$PEER" server-port-busy x >"$T/bn" 2>&1 || bad "fabric on no network: $(cat "$T/bn")"
grep -q "no local interface is on the network of 198.51.100.1" "$T/bn" || bad "no line for a fabric on no network: $(cat "$T/bn")"
grep -q "cannot listen on 198.51.100.1:$PORT" "$T/bn" || bad "no listen line for a fabric on no network: $(cat "$T/bn")"
# a fabric secret too short: neither side starts, each says which rule
ODMA_FABRIC_SECRET=short ODMA_RUNDIR="$T/rd" $W "$PEER" server-bad-fabric x >"$T/bs" 2>&1 || bad "short secret, server: $(cat "$T/bs")"
grep -q "cannot listen at ODMA_FABRIC: ODMA_FABRIC_SECRET is 5 characters long" "$T/bs" || bad "no line for a short secret (server): $(cat "$T/bs")"
ODMA_FABRIC_SECRET=short ODMA_COMCH_CONNECT_TIMEOUT_MS=500 ODMA_RUNDIR="$T/rh" $W "$PEER" client-refused x >"$T/cs" 2>&1 || bad "short secret, client: $(cat "$T/cs")"
grep -q "cannot connect at ODMA_FABRIC: ODMA_FABRIC_SECRET is 5 characters long" "$T/cs" || bad "no line for a short secret (client): $(cat "$T/cs")"
[ $fail = 0 ] && echo "ok: control path, fast path, 40 clients come and go, hostile clients, busy port, bad ODMA_FABRIC, a fabric on no network, short secret$pidns over loopback"
exit $fail
