#!/bin/sh
# The create/destroy soak (issue #11 item 1): `make soak-cycles` or
# `sh scripts/soak-cycles.sh [BUILD]`. Runs the loop of tests/stress/cycles.c (create PE + DMA
# context + two mmaps + inventory, one checked task, destroy everything) in a fresh process
# ODMA_SOAK_RUNS times (default 100), ODMA_SOAK_CYCLES cycles each (default 100000), on the
# thread engine unless ODMA_ENGINE says otherwise. Odd runs cycle alone (the worker pool
# starts and stops every cycle); even runs cycle beside another PE that copies without pause
# (the workers stay up and spin over their channels while the sets change).
# Stops at the first failed run and exits non-zero; a crash shows as its signal.
set -eu
build=${1:-build}
cd "$(dirname "$0")/.."
exe=$build/tests/stress/cycles_soak
runs=${ODMA_SOAK_RUNS:-100}
cycles=${ODMA_SOAK_CYCLES:-100000}
if [ ! -x "$exe" ]; then
	echo "soak-cycles: $exe not built (run make first)" >&2
	exit 1
fi
export ODMA_ENGINE=${ODMA_ENGINE:-thread}
i=1
start=$(date +%s)
while [ "$i" -le "$runs" ]; do
	mode=alone
	[ $((i % 2)) -eq 0 ] && mode=beside
	rc=0
	"$exe" "$cycles" "$mode" >/dev/null || rc=$?
	if [ "$rc" -ne 0 ]; then
		[ "$rc" -gt 128 ] && rc="$rc (signal $((rc - 128)))"
		echo "soak-cycles: run $i/$runs ($mode, $cycles cycles) FAILED: exit $rc" >&2
		exit 1
	fi
	echo "soak-cycles: run $i/$runs ($mode): $cycles cycles ok ($(($(date +%s) - start))s)"
	i=$((i + 1))
done
echo "soak-cycles: $runs runs of $cycles cycles on the $ODMA_ENGINE engine: no failure"
