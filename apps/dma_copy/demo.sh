#!/bin/sh
# DMA Copy demo: a 64 MiB file copied host -> DPU and DPU -> host by two processes talking
# over DOCA Comch, verified with cmp, throughput printed. Usage: demo.sh BUILD_DIR [SIZE_MIB]
set -eu
build=${1:-build}
mib=${2:-64}
app=$build/apps/dma_copy/doca_dma_copy
[ -x "$app" ] || { echo "demo: $app is not built" >&2; exit 1; }
export LD_LIBRARY_PATH="$build/src${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
dir=$(mktemp -d /tmp/odma_dma_copy.XXXXXX)
trap 'rm -rf "$dir"' EXIT
export ODMA_RUNDIR=$dir/run # a private DOCA Comch runtime directory
head -c $((mib * 1048576)) /dev/urandom >"$dir/host_file"

# copy SRC_SIDE: one transfer; the DPU side (server) starts first.
run() {
	dpu_file=$1 host_file=$2
	ODMA_SIDE=dpu "$app" -f "$dpu_file" -l 50 >"$dir/dpu.log" 2>&1 &
	dpu=$!
	i=0
	while ! grep -q "waiting for the host side" "$dir/dpu.log" 2>/dev/null && [ $i -lt 500 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	start=$(date +%s.%N)
	ODMA_SIDE=host "$app" -f "$host_file" || { kill $dpu 2>/dev/null; return 1; }
	wait $dpu || { cat "$dir/dpu.log"; return 1; }
	end=$(date +%s.%N)
	grep -o "DMA moved.*" "$dir/dpu.log" | sed 's/^/  /' 
	awk -v s="$start" -v e="$end" -v m="$mib" 'BEGIN { printf "  end to end (files read, checksummed, written and fsynced): %d MiB in %.3f s\n", m, e - s }'
}

echo "host -> DPU ($mib MiB)"
run "$dir/dpu_file" "$dir/host_file"
cmp "$dir/host_file" "$dir/dpu_file"
echo "  verified (cmp)"
echo "DPU -> host"
run "$dir/dpu_file" "$dir/host_back"
cmp "$dir/host_file" "$dir/host_back"
echo "  verified (cmp)"
