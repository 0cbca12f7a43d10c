#!/bin/sh
# doca_dma_copy against hostile and careless use (issue #11, items 2, 4, 6, 7), over DOCA
# Comch. Each case names what it holds; docs/reliability.md ("Hostile input") lists them.
#   dma_copy_hostile.sh APP DC_PEER
# DC_PEER (tests/xproc/dc_peer.c) plays a misbehaving host or DPU and measures peak RSS.
# ODMA_TEST_SANITIZED=1 skips the memory bound (sanitizers change what RSS means).
set -u
app=$1
peer=$2
dir=$(mktemp -d /tmp/odma_hostile.XXXXXX)
pids=
cleanup() {
	for p in $pids; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$dir"
}
trap cleanup EXIT
# A private Comch runtime directory: the servers of this run meet nobody else's.
export ODMA_RUNDIR=$dir/run
name="dma copy server"
n=0
fail() { echo "FAIL: $*"; for f in "$dir"/*.log; do [ -f "$f" ] && { echo "--- $f"; cat "$f"; }; done; exit 1; }
ok() { n=$((n + 1)); echo "ok $n - $*"; }

# wait_for TEST...: up to 10 s for a test(1) expression to hold.
wait_for() {
	i=0
	while ! test "$@"; do
		i=$((i + 1))
		[ $i -gt 1000 ] && return 1
		sleep 0.01
	done
}
# wait_grep FILE TEXT: up to 10 s for TEXT to appear in FILE.
wait_grep() {
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 1000 ] && return 1
		sleep 0.01
	done
}
# reap PID: waits for PID (a child of this shell); its exit status goes to $st.
reap() { wait "$1"; st=$?; }
dpu() { ODMA_SIDE=dpu timeout 60 "$app" -l 50 "$@"; }
host() { ODMA_SIDE=host timeout 60 "$app" "$@"; }
# start_dpu LOG ARGS...: a DPU side in the background, once its Comch server listens.
start_dpu() {
	log=$1
	shift
	# Started directly (no wrapper process), so that $! is the application itself.
	: >"$log" # truncated here: the child's own redirection may come after wait_grep looks
	ODMA_SIDE=dpu "$app" -l 50 "$@" >>"$log" 2>&1 &
	dpid=$!
	pids="$pids $dpid"
	wait_grep "$log" "waiting for the host side" || fail "the DPU side never listened"
}
no_temp() { ! ls "$1".?????? >/dev/null 2>&1; }

head -c 3000000 /dev/urandom >"$dir/src" || fail "no /dev/urandom"
cp "$dir/src" "$dir/src.orig"

# Item 2: a runtime directory (ODMA_RUNDIR) that is a regular file (even the file being sent)
# is refused, and the file stays intact.
ODMA_RUNDIR="$dir/src" dpu -f "$dir/out" >"$dir/a.log" 2>&1 && fail "a regular file was accepted as ODMA_RUNDIR"
cmp -s "$dir/src" "$dir/src.orig" || fail "ODMA_RUNDIR deleted or changed the file being sent"
grep -q 'ODMA_RUNDIR=".*" is not a directory path this user may create and own (comch .*no usable runtime directory' "$dir/a.log" || fail "no clear error for a regular file as ODMA_RUNDIR"
ok "ODMA_RUNDIR naming a regular file is refused; nothing is removed"

# Item 7: --server-name "" (or one too long for Comch) is refused on both sides.
dpu -f "$dir/out" --server-name "" >"$dir/a.log" 2>&1 && fail "the DPU side accepted --server-name \"\""
grep -q "must not be empty" "$dir/a.log" || fail "no clear error for --server-name \"\" (DPU)"
host -f "$dir/src" --server-name "" >"$dir/a.log" 2>&1 && fail "the host side accepted --server-name \"\""
grep -q "must not be empty" "$dir/a.log" || fail "no clear error for --server-name \"\" (host)"
long=$(printf '%0200d' 0)
host -f "$dir/src" --server-name "$long" >"$dir/a.log" 2>&1 && fail "the host side accepted a 200-byte server name"
grep -q "longer than" "$dir/a.log" || fail "no clear error for a too long --server-name"
ok "--server-name \"\" or too long is refused on both sides"

# Item 6: empty files copy both ways.
: >"$dir/empty"
start_dpu "$dir/d.log" -f "$dir/empty_dpu"
host -f "$dir/empty" >"$dir/h.log" 2>&1 || fail "host -> DPU of an empty file failed"
reap $dpid; [ "$st" = 0 ] || fail "the DPU side failed on an empty file"
[ -f "$dir/empty_dpu" ] && [ ! -s "$dir/empty_dpu" ] || fail "no empty file on the DPU side"
start_dpu "$dir/d.log" -f "$dir/empty"
host -f "$dir/empty_back" >"$dir/h.log" 2>&1 || fail "DPU -> host of an empty file failed"
reap $dpid; [ "$st" = 0 ] || fail "the DPU side failed sending an empty file"
[ -f "$dir/empty_back" ] && [ ! -s "$dir/empty_back" ] || fail "no empty file on the host side"
ok "empty files copy both ways"

# Item 7: DPU -> host with an unwritable destination fails on both sides, before any copy.
start_dpu "$dir/d.log" -f "$dir/src"
host -f "$dir/missing/out" >"$dir/h.log" 2>&1 && fail "the host side succeeded writing into a missing directory"
reap $dpid; [ "$st" = 1 ] || fail "the DPU side did not fail when the host could not write"
grep -q "cannot write the destination" "$dir/h.log" || fail "no clear host error for an unwritable destination"
grep -q "the host side failed: cannot write the destination" "$dir/d.log" || fail "the DPU side does not say why"
cmp -s "$dir/src" "$dir/src.orig" || fail "the source changed"
# ... and host -> DPU with an unwritable DPU destination.
start_dpu "$dir/d.log" -f "$dir/missing/out"
host -f "$dir/src" >"$dir/h.log" 2>&1 && fail "the host side succeeded though the DPU could not write"
reap $dpid; [ "$st" = 1 ] || fail "the DPU side did not fail on an unwritable destination"
grep -q "the DPU side failed: cannot write the destination" "$dir/h.log" || fail "the host side does not say why"
ok "an unwritable destination fails both sides before the transfer, either direction"

# Item 4: a peer that vanishes does not kill the survivor with SIGPIPE (exit 141).
start_dpu "$dir/d.log" -f "$dir/out4"
"$peer" client "$name" hangup 3000000 >/dev/null 2>&1
reap $dpid
[ "$st" = 1 ] || fail "the DPU side exited $st when its host vanished (141 is SIGPIPE)"
grep -q "closed the control channel" "$dir/d.log" || fail "the DPU side did not report the lost host"
no_temp "$dir/out4" && [ ! -e "$dir/out4" ] || fail "the DPU side left a file behind"
: >"$dir/p.log"
"$peer" server "$name" hangup >>"$dir/p.log" 2>&1 &
ppid=$!
wait_grep "$dir/p.log" listening || fail "dc_peer server did not listen"
host -f "$dir/src" >"$dir/h.log" 2>&1
st=$?
wait $ppid
[ "$st" = 1 ] || fail "the host side exited $st when its DPU vanished (141 is SIGPIPE)"
grep -q "closed the control channel" "$dir/h.log" || fail "the host side did not report the lost DPU"
ok "a vanished peer is reported and the survivor exits 1, not 141"

# Issue 19 item 14: a receiver writes an unnamed file (O_TMPFILE), linked under its name only
# once complete: SIGKILL in the middle of a transfer leaves nothing, on either side.
start_dpu "$dir/d.log" -f "$dir/out14"
: >"$dir/p.log"
"$peer" client "$name" stall 3000000 >>"$dir/p.log" 2>&1 &
ppid=$!
wait_grep "$dir/p.log" "got message" || fail "the DPU side never answered"
ls "$dir"/out14* >/dev/null 2>&1 && fail "a receiving DPU side shows a file before it is complete"
kill -9 $dpid
reap $dpid
wait $ppid
[ "$st" = 137 ] || fail "the DPU side was not killed by SIGKILL ($st)"
ls "$dir"/out14* >/dev/null 2>&1 && fail "SIGKILL of a receiving DPU side left $(ls "$dir"/out14*)"
: >"$dir/p.log"
"$peer" server "$name" stall 3000000 >>"$dir/p.log" 2>&1 &
ppid=$!
wait_grep "$dir/p.log" listening || fail "dc_peer server did not listen"
: >"$dir/h.log"
ODMA_SIDE=host "$app" -f "$dir/out14h" >>"$dir/h.log" 2>&1 &
hpid=$!
pids="$pids $hpid"
wait_grep "$dir/p.log" "got message type 1329856513" || fail "the host side never exported" # X_EXPORT
ls "$dir"/out14h* >/dev/null 2>&1 && fail "a receiving host side shows a file before it is complete"
kill -9 $hpid
reap $hpid
wait $ppid
[ "$st" = 137 ] || fail "the host side was not killed by SIGKILL ($st)"
ls "$dir"/out14h* >/dev/null 2>&1 && fail "SIGKILL of a receiving host side left $(ls "$dir"/out14h*)"
# ... and in the middle of a real copy (48 MiB through 2 MiB windows): killed once its unnamed
# file (/proc/PID/fd: "DIR/#INODE (deleted)") holds bytes; then no file, or the whole file.
head -c $((48 * 1048576)) /dev/urandom >"$dir/big14"
start_dpu "$dir/d.log" -f "$dir/big14" --window-tasks 1
: >"$dir/h.log"
ODMA_SIDE=host "$app" -f "$dir/out14r" >>"$dir/h.log" 2>&1 &
hpid=$!
pids="$pids $hpid"
mid=0
i=0
while [ $mid = 0 ] && [ $i -lt 1000 ] && kill -0 $hpid 2>/dev/null; do
	for l in /proc/$hpid/fd/*; do
		case $(readlink "$l" 2>/dev/null) in
		"$dir/#"*" (deleted)") [ "$(stat -L -c %s "$l" 2>/dev/null || echo 0)" -gt 0 ] && mid=1 ;;
		esac
	done
	i=$((i + 1))
	sleep 0.01
done
kill -9 $hpid 2>/dev/null
reap $hpid
reap $dpid
for f in "$dir"/out14r*; do
	[ -e "$f" ] || continue
	[ "$f" = "$dir/out14r" ] && cmp -s "$f" "$dir/big14" || fail "SIGKILL mid-copy left $f"
done
echo "# killed mid-copy: $mid"
rm -f "$dir/big14" "$dir/out14r"
ok "SIGKILL of a receiver, either side, mid-transfer leaves no partial file"

# Item 7: SIGINT/SIGTERM clean up the temporary files of receivers (a DPU killed while waiting
# leaves only its Comch socket in the private runtime directory; the next server replaces it).
# Named temporary files exist only where the file system has no O_TMPFILE (issue 19 item 14):
# ODMA_DMA_COPY_NO_TMPFILE=1 takes that path.
export ODMA_DMA_COPY_NO_TMPFILE=1
start_dpu "$dir/d.log" -f "$dir/out7"
: >"$dir/p.log"
"$peer" client "$name" stall 3000000 >>"$dir/p.log" 2>&1 &
ppid=$!
wait_grep "$dir/p.log" "got message" || fail "the DPU side never answered"
ls "$dir"/out7.?????? >/dev/null 2>&1 || fail "the receiving DPU side has no temporary file"
kill -INT $dpid
reap $dpid
wait $ppid
[ "$st" != 0 ] || fail "the DPU side exited 0 after SIGINT"
no_temp "$dir/out7" && [ ! -e "$dir/out7" ] || fail "SIGINT left the DPU's temporary file"
: >"$dir/p.log"
"$peer" server "$name" stall 3000000 >>"$dir/p.log" 2>&1 &
ppid=$!
wait_grep "$dir/p.log" listening || fail "dc_peer server did not listen"
: >"$dir/h.log"
ODMA_SIDE=host "$app" -f "$dir/out7h" >>"$dir/h.log" 2>&1 &
hpid=$!
pids="$pids $hpid"
wait_grep "$dir/p.log" "got message type 1329856513" || fail "the host side never exported" # X_EXPORT
ls "$dir"/out7h.?????? >/dev/null 2>&1 || fail "the receiving host side has no temporary file"
kill -INT $hpid
reap $hpid
wait $ppid
[ "$st" != 0 ] || fail "the host side exited 0 after SIGINT"
no_temp "$dir/out7h" && [ ! -e "$dir/out7h" ] || fail "SIGINT left the host's temporary file"
grep -q "has no unnamed files (O_TMPFILE): writing $dir/out7h.XXXXXX instead" "$dir/h.log" || fail "no log line for the named fallback"
unset ODMA_DMA_COPY_NO_TMPFILE
start_dpu "$dir/d.log" -f "$dir/out7t"
kill -TERM $dpid
reap $dpid
[ "$st" != 0 ] || fail "a waiting DPU side exited 0 after SIGTERM"
ok "SIGINT/SIGTERM remove temporary files; exit status non-zero"

# Item 7: a second server with the same name is refused and does not disturb the first; a Comch
# socket left by a dead server is replaced.
start_dpu "$dir/d.log" -f "$dir/out8"
dpu -f "$dir/out8b" >"$dir/d2.log" 2>&1 && fail "a second DPU side took over a live socket"
grep -q "already serving" "$dir/d2.log" || fail "no clear error for a second server"
host -f "$dir/src" >"$dir/h.log" 2>&1 || fail "the first server no longer works"
reap $dpid; [ "$st" = 0 ] && cmp -s "$dir/src" "$dir/out8" || fail "copy through the first server failed"
start_dpu "$dir/d.log" -f "$dir/out8c"
kill -9 $dpid
wait $dpid 2>/dev/null
ls "$ODMA_RUNDIR"/comch-*.sock >/dev/null 2>&1 || fail "no stale Comch socket to test with"
start_dpu "$dir/d.log" -f "$dir/out8c"
host -f "$dir/src" >"$dir/h.log" 2>&1 || fail "copy after replacing a stale socket failed"
reap $dpid; [ "$st" = 0 ] || fail "the DPU side failed after replacing a stale socket"
ok "a second server is refused without harm; a stale socket is replaced"

# Item 7: a second client is told the DPU side is busy.
start_dpu "$dir/d.log" -f "$dir/out9"
: >"$dir/p.log"
"$peer" client "$name" stall 3000000 >>"$dir/p.log" 2>&1 &
ppid=$!
wait_grep "$dir/p.log" "got message" || fail "the DPU side never answered the first client"
host -f "$dir/src" >"$dir/h.log" 2>&1 && fail "a second host succeeded"
grep -q "already serving another host" "$dir/h.log" || fail "the second host got no clear message: $(cat "$dir/h.log")"
kill $ppid
wait $ppid
reap $dpid; [ "$st" = 1 ] || fail "the DPU side did not fail when its host vanished"
ok "a second client is told the DPU side is busy"

# Item 7: idle clients time out (--timeout): one that never speaks is dropped and the server
# goes on; one that stalls mid-copy ends the copy with an error; an idle DPU ends the host.
start_dpu "$dir/d.log" -f "$dir/out10" --timeout 1
"$peer" client "$name" silent >"$dir/p.log" 2>&1 || fail "dc_peer client failed"
grep -q "peer hung up" "$dir/p.log" || fail "the silent client was not dropped"
grep -q "sent nothing for 1 s; dropped it" "$dir/d.log" || fail "no warning for the dropped client"
head -c 4096 "$dir/src" >"$dir/small" # small: the copy itself runs under --timeout 1 too
host -f "$dir/small" >"$dir/h.log" 2>&1 || fail "no copy after dropping an idle client"
reap $dpid; [ "$st" = 0 ] && cmp -s "$dir/small" "$dir/out10" || fail "copy after an idle client failed"
start_dpu "$dir/d.log" -f "$dir/out10b" --timeout 1
: >"$dir/p.log"
"$peer" client "$name" stall 3000000 >>"$dir/p.log" 2>&1 &
ppid=$!
reap $dpid; [ "$st" = 1 ] || fail "a stalled client did not end the DPU side with an error"
wait $ppid
grep -q "sent nothing for 1 s" "$dir/d.log" || fail "no timeout message on the DPU side"
no_temp "$dir/out10b" && [ ! -e "$dir/out10b" ] || fail "a timed-out DPU side left files"
: >"$dir/p.log"
"$peer" server "$name" stall 3000000 >>"$dir/p.log" 2>&1 &
ppid=$!
wait_grep "$dir/p.log" listening || fail "dc_peer server did not listen"
host -f "$dir/out10c" --timeout 1 >"$dir/h.log" 2>&1 && fail "the host side waited out a silent DPU with success"
wait $ppid
grep -q "sent nothing for 1 s" "$dir/h.log" || fail "no timeout message on the host side"
no_temp "$dir/out10c" && [ ! -e "$dir/out10c" ] || fail "a timed-out host side left files"
ok "idle peers time out (--timeout); the server outlives a silent client"

# A host whose export lies: it names the whole window over a buffer of half of it, or it
# exports read-only the window the DPU writes into. The DPU side refuses the first before its
# first DMA, fails the second on its first write, exits 1 with a line, and writes nothing.
start_dpu "$dir/d.log" -f "$dir/out15"
"$peer" client "$name" small-export 3000000 >"$dir/p.log" 2>&1 || fail "dc_peer small-export failed"
reap $dpid; [ "$st" = 1 ] || fail "the DPU side exited $st facing a host exporting half its window"
grep -q "do not fit in them" "$dir/d.log" || fail "no line for an export smaller than the window"
grep -q "peer hung up" "$dir/p.log" || fail "the DPU side did not close the lying host"
no_temp "$dir/out15" && [ ! -e "$dir/out15" ] || fail "the refusing DPU side left files"
start_dpu "$dir/d.log" -f "$dir/src"
"$peer" client "$name" ro-export >"$dir/p.log" 2>&1 || fail "dc_peer ro-export failed"
reap $dpid; [ "$st" = 1 ] || fail "the DPU side exited $st writing into a read-only export"
grep -q "do not let a device write into it" "$dir/d.log" || fail "no line for a read-only export"
grep -q "window untouched" "$dir/p.log" || fail "a read-only host window was written"
cmp -s "$dir/src" "$dir/src.orig" || fail "the DPU side's file changed"
ok "a host's export smaller than its window, or read-only, is refused; nothing is written"

# Issue 19 item 12: facing NVIDIA's DPU side, a host holds the whole file in one buffer of the
# size the DPU announces; above DMA_COPY_MAX_NV_FILE (1 GiB) it refuses before allocating.
: >"$dir/p.log"
"$peer" server "$name" nv-announce $((1073741824 + 1)) >>"$dir/p.log" 2>&1 &
ppid=$!
wait_grep "$dir/p.log" listening || fail "dc_peer server did not listen"
ODMA_SIDE=host "$peer" rss "$dir/rss.n" "$app" -f "$dir/out12" >"$dir/h.log" 2>&1
st=$?
wait $ppid
[ "$st" = 1 ] || fail "the host side exited $st facing an NVIDIA DPU announcing 1 GiB + 1"
grep -q "at most 1073741824 bytes: refused before allocating" "$dir/h.log" || fail "no clear refusal of the announced size"
grep -q "got message type 2 " "$dir/p.log" && fail "the host exported a buffer for the announced size"
grep -q "got message type 3 " "$dir/p.log" || fail "the host did not tell the DPU it failed (STATUS 0)"
no_temp "$dir/out12" && [ ! -e "$dir/out12" ] || fail "the refusing host left files"
if [ "${ODMA_TEST_SANITIZED:-0}" != 1 ]; then
	[ "$(cat "$dir/rss.n")" -lt 262144 ] || fail "the refusing host grew to $(cat "$dir/rss.n") KiB"
fi
ok "a host facing NVIDIA's DPU side refuses an announced file over 1 GiB before allocating it"

# A destination that exists without being a file to send (a symbolic link to nothing: its
# target missing, or a loop) is never replaced or written through: refused before any byte
# moves, either direction, and the peer is told why.
ln -s "$dir/nowhere" "$dir/dangling"
start_dpu "$dir/d.log" -f "$dir/dangling"
host -f "$dir/src" >"$dir/h.log" 2>&1 && fail "the host side succeeded though the DPU's destination is a dangling link"
reap $dpid; [ "$st" = 1 ] || fail "the DPU side exited $st with a dangling link as its destination"
grep -q "the DPU side failed: cannot write the destination $dir/dangling: it is a symbolic link" "$dir/h.log" || fail "the DPU side did not refuse its dangling link before the transfer"
start_dpu "$dir/d.log" -f "$dir/src"
host -f "$dir/dangling" >"$dir/h.log" 2>&1 && fail "the host side succeeded writing to a dangling link"
reap $dpid; [ "$st" = 1 ] || fail "the DPU side exited $st though the host's destination is a dangling link"
grep -q "the host side failed: cannot write the destination $dir/dangling: it is a symbolic link" "$dir/d.log" || fail "the host side did not refuse its dangling link before the transfer"
[ -L "$dir/dangling" ] && [ ! -e "$dir/nowhere" ] || fail "the dangling link was replaced or written through"
no_temp "$dir/dangling" || fail "a temporary file was left next to the dangling link"
rm -f "$dir/dangling"
ok "a destination that is a dangling symbolic link is refused before the transfer, either direction"

# A host that sends X_BUSY (what only a DPU side sends to an extra host) is refused as an
# unexpected message; the DPU side does not report itself busy.
start_dpu "$dir/d.log" -f "$dir/out16"
"$peer" client "$name" busy >"$dir/p.log" 2>&1 || fail "dc_peer busy failed"
reap $dpid; [ "$st" = 1 ] || fail "the DPU side exited $st facing a host sending X_BUSY"
grep -q "unexpected control message from the host side (type 0x4f440004" "$dir/d.log" || fail "the DPU side did not name the unexpected X_BUSY"
grep -q "already serving another host" "$dir/d.log" && fail "the DPU side took the host's X_BUSY for its own busy state"
no_temp "$dir/out16" && [ ! -e "$dir/out16" ] || fail "the DPU side left files"
ok "a host sending X_BUSY is refused as an unexpected message"

# A peer's reason for failing goes into this side's log as one line: control characters in
# it (a newline starting a forged log line, a terminal escape) do not reach the log as such.
start_dpu "$dir/d.log" -f "$dir/out17"
"$peer" client "$name" fail-why >"$dir/p.log" 2>&1 || fail "dc_peer fail-why failed"
reap $dpid; [ "$st" = 1 ] || fail "the DPU side exited $st facing a failing host"
grep -q "the host side failed: disk full" "$dir/d.log" || fail "the DPU side did not report the host's reason"
grep -q "^FORGED" "$dir/d.log" && fail "the host's reason started a forged line in the DPU's log"
grep -q "$(printf '\033')" "$dir/d.log" && fail "the host's reason put a terminal escape in the DPU's log"
ok "a peer's reason cannot forge log lines or send terminal escapes"

# The connection lost just after the receiver put the verified file in place (ODMA_FAULTS cuts
# it after the receiver's sixth control message of a one-window copy: the sender's X_STATUS):
# the receiver has the whole file and says so (exit 0, a warning); the sender, never
# confirmed, exits 1. Either direction.
head -c 4096 "$dir/src" >"$dir/small18"
export ODMA_FAULTS=comch_drop_after=6
start_dpu "$dir/d.log" -f "$dir/out18"
unset ODMA_FAULTS
host -f "$dir/small18" >"$dir/h.log" 2>&1 && fail "the host side exited 0 without the DPU's confirmation"
reap $dpid; [ "$st" = 0 ] || fail "the DPU side exited $st though it put the whole verified file in place"
cmp -s "$dir/small18" "$dir/out18" || fail "the DPU side's file differs"
grep -q "is complete and verified, but the host side did not get the confirmation" "$dir/d.log" || fail "no warning on the DPU side for the lost confirmation"
start_dpu "$dir/d.log" -f "$dir/small18"
ODMA_FAULTS=comch_drop_after=6 host -f "$dir/out18h" >"$dir/h.log" 2>&1 || fail "the host side exited $? though it put the whole verified file in place"
reap $dpid; [ "$st" = 1 ] || fail "the DPU side exited $st without the host's confirmation"
cmp -s "$dir/small18" "$dir/out18h" || fail "the host side's file differs"
grep -q "is complete and verified, but the DPU side did not get the confirmation" "$dir/h.log" || fail "no warning on the host side for the lost confirmation"
ok "a receiver that put the verified file in place exits 0 when only its confirmation is lost"

# Item 7: files stream through a bounded window: peak RSS does not grow with the file.
if [ "${ODMA_TEST_SANITIZED:-0}" = 1 ]; then
	ok "# SKIP memory bound under sanitizers"
else
	head -c $((48 * 1048576)) /dev/urandom >"$dir/big"
	rss_copy() { # rss_copy DPU_FILE HOST_FILE: prints "dpu_kib host_kib"
		: >"$dir/d.log"
		ODMA_SIDE=dpu "$peer" rss "$dir/rss.d" "$app" -l 50 -f "$1" --window-tasks 1 >>"$dir/d.log" 2>&1 &
		rp=$!
		wait_grep "$dir/d.log" "waiting for the host side" || fail "the DPU side never listened"
		ODMA_SIDE=host "$peer" rss "$dir/rss.h" "$app" -f "$2" >"$dir/h.log" 2>&1 || fail "copy for the memory bound failed"
		wait $rp || fail "the DPU side failed the copy for the memory bound"
		echo "$(cat "$dir/rss.d") $(cat "$dir/rss.h")"
	}
	set -- $(rss_copy "$dir/small_d" "$dir/empty")
	d0=$1 h0=$2
	set -- $(rss_copy "$dir/big_d" "$dir/big")
	d1=$1 h1=$2
	cmp -s "$dir/big" "$dir/big_d" || fail "48 MiB host -> DPU differ"
	set -- $(rss_copy "$dir/big_d" "$dir/big_back")
	d2=$1 h2=$2
	cmp -s "$dir/big" "$dir/big_back" || fail "48 MiB DPU -> host differ"
	# A window of one 2 MiB task: each side grows by a few MiB, far below the 48 MiB file.
	for g in $((d1 - d0)) $((h1 - h0)) $((d2 - d0)) $((h2 - h0)); do
		[ "$g" -lt 16384 ] || fail "peak RSS grew by $g KiB for a 48 MiB file (baseline $d0/$h0 KiB)"
	done
	ok "a 48 MiB file streams in bounded memory (RSS growth $((d1 - d0))/$((h1 - h0)) and $((d2 - d0))/$((h2 - h0)) KiB)"
fi
echo "ok: $n hostile-input cases"
