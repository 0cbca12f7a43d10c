#!/bin/sh
# Runs `make check`'s suite RUNS times (default 5; TEST_JOBS at once, as make check runs them)
# beside a CPU hog of one busy loop per core, as a shared CI machine would load it: a test that
# depends on timing fails here.
#   scripts/check-load.sh [BUILD_DIR]    (the body of `make check-load`; RUNS=N)
set -u
build=${1:-build}
runs=${RUNS:-5}
cores=$(nproc 2>/dev/null || echo 2)
hogs=
cleanup() { for p in $hogs; do kill "$p" 2>/dev/null; done; }
trap cleanup EXIT INT TERM
i=0
while [ "$i" -lt "$cores" ]; do
	sh -c 'while :; do :; done' &
	hogs="$hogs $!"
	i=$((i + 1))
done
fail=0
n=1
while [ "$n" -le "$runs" ]; do
	start=$(date +%s)
	if meson test -C "$build" --print-errorlogs --num-processes "${TEST_JOBS:-6}" --no-suite slow \
		>"$build/check-load.$n.log" 2>&1; then
		echo "check-load: run $n of $runs passed ($(($(date +%s) - start)) s, $cores busy loops beside it)"
	else
		echo "check-load: run $n of $runs FAILED; see $build/check-load.$n.log and"
		echo "  $build/meson-logs/testlog.txt"
		grep -E '^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT)' "$build/check-load.$n.log"
		fail=1
	fi
	n=$((n + 1))
done
exit "$fail"
