#!/bin/sh
# doca_dma_copy end to end: a file above max_buf_size (2 MiB) copied host -> DPU and
# DPU -> host as two processes over DOCA Comch, cmp-verified; a missing peer fails cleanly,
# leaving no file.
set -u
if [ "${ODMA_UNDER_QEMU:-}" = 1 ]; then
	echo "skipping under qemu-user: the DPU side's DMA reads the host process' memory with process_vm_readv, which qemu-user does not implement"
	exit 77
fi
app=$1
dir=$(mktemp -d /tmp/odma_e2e.XXXXXX)
trap 'rm -rf "$dir"' EXIT
# A private Comch runtime directory: parallel runs never meet.
export ODMA_RUNDIR=$dir/run
fail() { echo "FAIL: $*"; exit 1; }

head -c $((5 * 1048576 + 123)) /dev/urandom >"$dir/src" || fail "no /dev/urandom"

run() {
	ODMA_SIDE=dpu timeout 60 "$app" -f "$1" -l 50 >"$dir/dpu.log" 2>&1 &
	dpu=$!
	i=0
	while ! grep -q "waiting for the host side" "$dir/dpu.log" 2>/dev/null && [ $i -lt 1000 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	ODMA_SIDE=host timeout 60 "$app" -f "$2" || { kill $dpu; return 1; }
	wait $dpu
}

run "$dir/dpu_copy" "$dir/src" || fail "host -> DPU copy failed"
cmp "$dir/src" "$dir/dpu_copy" || fail "host -> DPU data differ"
run "$dir/dpu_copy" "$dir/back" || fail "DPU -> host copy failed"
cmp "$dir/src" "$dir/back" || fail "DPU -> host data differ"

# No DPU side: the host reports it and exits non-zero; nothing is created.
if ODMA_SIDE=host ODMA_COMCH_CONNECT_TIMEOUT_MS=300 timeout 30 "$app" -f "$dir/nothing" 2>"$dir/err"; then
	fail "host side succeeded without a DPU side"
fi
grep -q "start .*first" "$dir/err" || fail "no clear error for a missing peer: $(cat "$dir/err")"
[ ! -e "$dir/nothing" ] || fail "a file was left behind"
# The peer dies: a DPU that exits before answering makes the host fail, not hang.
ODMA_SIDE=dpu timeout 30 "$app" -f "$dir/src" -p 99:00.0 2>/dev/null &
sleep 0.2
ODMA_SIDE=host ODMA_COMCH_CONNECT_TIMEOUT_MS=300 timeout 30 "$app" -f "$dir/none2" 2>/dev/null && fail "no error with a dead peer"
[ ! -e "$dir/none2" ] || fail "a partial file was left behind"
wait
echo "ok: 5 MiB + 123 bytes both ways, missing and dead peers"
