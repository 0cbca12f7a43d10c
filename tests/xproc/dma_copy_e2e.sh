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

# Progress: on a terminal only (script(1) makes one for the DPU side), for 16 MiB or more,
# silenced by --quiet; the host side writes to a file here, so it shows none.
if command -v script >/dev/null 2>&1; then
	head -c $((24 * 1048576)) /dev/urandom >"$dir/big"
	run_tty() {
		rm -f "$dir/big_copy" "$dir/dpu.log"
		ODMA_SIDE=dpu timeout 60 script -qfec "'$app' -f '$dir/big_copy' -l 50 $1" /dev/null >"$dir/dpu.log" 2>&1 &
		dpu=$!
		i=0
		while ! grep -q "waiting for the host side" "$dir/dpu.log" 2>/dev/null && [ $i -lt 1000 ]; do
			sleep 0.01
			i=$((i + 1))
		done
		ODMA_SIDE=host timeout 60 "$app" -f "$dir/big" 2>"$dir/host.err" || { kill $dpu; return 1; }
		wait $dpu
	}
	run_tty "" || fail "24 MiB host -> DPU copy on a terminal failed: $(cat "$dir/dpu.log")"
	cmp "$dir/big" "$dir/big_copy" || fail "24 MiB copy differs"
	grep -q "received 24.0 MiB of 24.0 MiB (100%), .*/s" "$dir/dpu.log" || fail "no progress on a terminal: $(cat "$dir/dpu.log")"
	if grep -q "of 24.0 MiB" "$dir/host.err"; then fail "progress without a terminal: $(cat "$dir/host.err")"; fi
	run_tty "--quiet" || fail "24 MiB copy with --quiet failed: $(cat "$dir/dpu.log")"
	if grep -q "of 24.0 MiB" "$dir/dpu.log"; then fail "progress despite --quiet: $(cat "$dir/dpu.log")"; fi
	progress=", progress on a terminal only"
fi

# A bad ODMA_DMA_COPY_NO_TMPFILE: the receiving side says so in core/config's words, exits 1
# and writes nothing.
ODMA_SIDE=dpu timeout 60 "$app" -f "$dir/src" -l 50 >"$dir/dpu.log" 2>&1 &
dpu=$!
i=0
while ! grep -q "waiting for the host side" "$dir/dpu.log" 2>/dev/null && [ $i -lt 1000 ]; do
	sleep 0.01
	i=$((i + 1))
done
if ODMA_SIDE=host ODMA_DMA_COPY_NO_TMPFILE=yes timeout 60 "$app" -f "$dir/nt" 2>"$dir/nt.err"; then
	fail "a bad ODMA_DMA_COPY_NO_TMPFILE was accepted"
fi
wait $dpu
grep -q 'ODMA_DMA_COPY_NO_TMPFILE="yes" is not 1, or unset; doca_dma_copy stops with exit status 1' "$dir/nt.err" ||
	fail "no line for a bad ODMA_DMA_COPY_NO_TMPFILE: $(cat "$dir/nt.err")"
[ ! -e "$dir/nt" ] || fail "a file was written despite the bad variable"

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
echo "ok: 5 MiB + 123 bytes both ways, missing and dead peers${progress:-}"
