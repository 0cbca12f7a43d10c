#!/bin/sh
# doca_dma_copy speaks NVIDIA's DMA Copy protocol over DOCA Comch: each side of ours works with
# the other side of NVIDIA's application, played here by dc_peer's nv-host / nv-dpu roles (our
# own implementation of that message flow). Byte-exact copies both ways of a 64 KiB file and of
# a file of max_buf_size - 7 bytes; a file above max_buf_size is refused (NVIDIA's application
# moves a file in one DMA task), every process ending on its own.
#   dma_copy_interop.sh APP DC_PEER
set -u
if [ "${ODMA_UNDER_QEMU:-}" = 1 ]; then
	echo "skipping under qemu-user: the DPU side's DMA reads the host process' memory with process_vm_readv, which qemu-user does not implement"
	exit 77
fi
app=$1
peer=$2
dir=$(mktemp -d /tmp/odma_interop.XXXXXX)
pids=
cleanup() {
	for p in $pids; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$dir"
}
trap cleanup EXIT
export ODMA_RUNDIR=$dir/run
export ODMA_COMCH_CONNECT_TIMEOUT_MS=20000
n=0
fail() { echo "FAIL: $*"; for f in "$dir"/*.log; do [ -f "$f" ] && { echo "--- $f"; cat "$f"; }; done; exit 1; }
ok() { n=$((n + 1)); echo "ok $n - $*"; }
max=2097152 # max_buf_size of the bf3 profile

head -c 65536 /dev/urandom >"$dir/f64k" || fail "no /dev/urandom"
head -c $((max - 7)) /dev/urandom >"$dir/fmax"
head -c $((max + 1)) /dev/urandom >"$dir/fbig"

# pair DPU_CMD... -- HOST_CMD...: the DPU side in the background, then the host side; sets
# $dst and $hst to their exit statuses.
pair() {
	dcmd=
	while [ "$1" != -- ]; do dcmd="$dcmd '$1'"; shift; done
	shift
	: >"$dir/d.log"
	eval "ODMA_SIDE=dpu timeout 60 $dcmd" >>"$dir/d.log" 2>&1 &
	dpid=$!
	pids="$pids $dpid"
	sleep 0.2
	ODMA_SIDE=host timeout 60 "$@" >"$dir/h.log" 2>&1
	hst=$?
	wait $dpid
	dst=$?
}

for f in f64k fmax; do
	rm -f "$dir/out"
	pair "$app" -f "$dir/out" -- "$peer" nv-host "dma copy server" "$dir/$f"
	[ $hst = 0 ] && [ $dst = 0 ] && cmp -s "$dir/$f" "$dir/out" || fail "NVIDIA-flow host -> our DPU ($f): host $hst, DPU $dst"
	grep -q "NVIDIA's DMA Copy application: its protocol" "$dir/d.log" || fail "our DPU did not recognise NVIDIA's flow"
	rm -f "$dir/back"
	pair "$app" -f "$dir/out" -- "$peer" nv-host "dma copy server" "$dir/back"
	[ $hst = 0 ] && [ $dst = 0 ] && cmp -s "$dir/$f" "$dir/back" || fail "our DPU -> NVIDIA-flow host ($f): host $hst, DPU $dst"
	rm -f "$dir/out"
	pair "$peer" nv-dpu "dma copy server" "$dir/out" -- "$app" -f "$dir/$f"
	[ $hst = 0 ] && [ $dst = 0 ] && cmp -s "$dir/$f" "$dir/out" || fail "our host -> NVIDIA-flow DPU ($f): host $hst, DPU $dst"
	grep -q "NVIDIA's DMA Copy application: its protocol" "$dir/h.log" || fail "our host did not recognise NVIDIA's flow"
	rm -f "$dir/back"
	pair "$peer" nv-dpu "dma copy server" "$dir/$f" -- "$app" -f "$dir/back"
	[ $hst = 0 ] && [ $dst = 0 ] && cmp -s "$dir/$f" "$dir/back" || fail "NVIDIA-flow DPU -> our host ($f): host $hst, DPU $dst"
	ok "$f ($(wc -c <"$dir/$f") bytes): both directions with either side NVIDIA's flow, byte-exact"
done

# The host disconnects just after its EXPORT_DESCRIPTOR (DC_PEER_HANGUP_MS; it keeps its buffer
# exported a while): our DPU copies and puts the file in place, and its STATUS then finds the
# connection gone (or, rarely, leaves just before). Either way the DPU has the whole file and
# exits 0 (with a warning when STATUS was lost); the host, which left, exits 1.
rm -f "$dir/out"
pair "$app" -f "$dir/out" -- env DC_PEER_HANGUP_MS=1000 "$peer" nv-host "dma copy server" "$dir/f64k"
[ $hst = 1 ] || fail "the NVIDIA-flow host that hung up exited $hst"
[ $dst = 0 ] || fail "our DPU exited $dst though it put the whole file in place"
cmp -s "$dir/f64k" "$dir/out" || fail "our DPU's file differs"
ok "our DPU that put the file in place exits 0 when the NVIDIA-flow host leaves before its STATUS"

# Above max_buf_size: NVIDIA's flow moves a file in one task; both refusals are clean.
rm -f "$dir/out"
pair "$app" -f "$dir/out" -- "$peer" nv-host "dma copy server" "$dir/fbig"
[ $hst = 1 ] && [ $dst = 1 ] || fail "a too big file with an NVIDIA-flow host: host $hst, DPU $dst"
grep -q "moves a file in one DMA task" "$dir/d.log" || fail "our DPU gave no reason for refusing"
[ ! -e "$dir/out" ] && ! ls "$dir"/out.?????? >/dev/null 2>&1 || fail "a refused copy left a file"
pair "$peer" nv-dpu "dma copy server" "$dir/out" -- "$app" -f "$dir/fbig"
[ $hst = 1 ] && [ $dst = 1 ] || fail "a too big file with an NVIDIA-flow DPU: host $hst, DPU $dst"
grep -q "NVIDIA's DMA Copy application sends no reason" "$dir/h.log" || fail "our host did not report the DPU's refusal"
ok "a file above max_buf_size is refused with NVIDIA's flow on either side"

# Two odma sides use the extended protocol: any size, checksummed.
head -c $((3 * max + 11)) /dev/urandom >"$dir/f3"
rm -f "$dir/out"
pair "$app" -f "$dir/out" -- "$app" -f "$dir/f3"
[ $hst = 0 ] && [ $dst = 0 ] && cmp -s "$dir/f3" "$dir/out" || fail "odma host -> odma DPU above max_buf_size"
grep -q "NVIDIA's DMA Copy application" "$dir/d.log" "$dir/h.log" && fail "two odma sides fell back to NVIDIA's flow"
ok "two odma sides stream a file above max_buf_size (extended protocol)"
echo "ok: $n interoperability cases"
