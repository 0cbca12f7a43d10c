#!/bin/sh
# Runs every libFuzzer target (fuzz/*.c, built with clang into BUILD_FUZZ) from its seed
# corpus in fuzz/corpus/<target>/, one per CPU at a time (ODMA_FUZZ_JOBS), and prints the
# executions per target.
#   sh scripts/fuzz.sh short   # CI: ODMA_FUZZ_SECONDS (default 8) per target
#   sh scripts/fuzz.sh long    # `make fuzz`: ODMA_FUZZ_SECONDS (default 300) per target
# New inputs go to BUILD_FUZZ/corpus/<target>/ (the seeds in the tree are not modified);
# crashes to BUILD_FUZZ/artifacts/<target>-crash-*; logs to BUILD_FUZZ/logs/<target>.log.
# Reproduce a crash: BUILD_FUZZ/fuzz/<target> BUILD_FUZZ/artifacts/<file>
# Exit status: non-zero if any target found a crash, a leak or a broken invariant.
set -eu

mode=${1:-short}
case $mode in
short) secs=${ODMA_FUZZ_SECONDS:-8} ;;
long) secs=${ODMA_FUZZ_SECONDS:-300} ;;
*) echo "usage: $0 short|long" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
bf=${BUILD_FUZZ:-build-fuzz}

if [ ! -f "$bf/build.ninja" ]; then
	CC=clang meson setup "$bf" -Dfuzzing=true -Db_lundef=false -Dtests=false -Dwerror=true >/dev/null
fi
ninja -C "$bf" fuzz >/dev/null
mkdir -p "$bf/corpus" "$bf/artifacts" "$bf/logs"

# fuzz_one EXE: one target's run; its line of the summary into $bf/logs/<target>.line.
fuzz_one() {
	t=$(basename "$1")
	seeds=fuzz/corpus/$t
	[ -d "$seeds" ] || seeds=fuzz/corpus/${t#fuzz_}
	[ -d "$seeds" ] || seeds=
	mkdir -p "$bf/corpus/$t"
	log=$bf/logs/$t.log
	rc=0
	# -max_total_time bounds the run; -timeout flags a hang in one input; leaks are detected
	# by LeakSanitizer after every input (libFuzzer's default with ASan).
	ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:intercept_tls_get_addr=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		"$1" -max_total_time="$secs" -timeout=20 -print_final_stats=1 \
		-artifact_prefix="$bf/artifacts/$t-" "$bf/corpus/$t" $seeds >"$log" 2>&1 || rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	cov=$(grep -a -o 'cov: [0-9]*' "$log" | tail -n 1 | sed 's/cov: //')
	if [ "$rc" -ne 0 ]; then
		echo "FAIL $t: exit $rc after ${runs:-?} executions; see $log"
		grep -a -E '^(==[0-9]+==ERROR|SUMMARY|fuzz: )' "$log" | head -n 5 || true
	else
		echo "ok   $t: ${runs:-0} executions in ${secs}s, coverage ${cov:-?} edges, corpus $(ls "$bf/corpus/$t" | wc -l) inputs"
	fi >"$bf/logs/$t.line"
	echo "${runs:-0}" >"$bf/logs/$t.runs"
}

# ODMA_FUZZ_JOBS targets at a time (default: one per CPU; each is one busy process)
jobs=${ODMA_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
names=
n=0
for exe in "$bf"/fuzz/fuzz_*; do
	[ -x "$exe" ] && [ -f "$exe" ] || continue
	names="$names $(basename "$exe")"
	fuzz_one "$exe" &
	n=$((n + 1))
	if [ "$n" -ge "$jobs" ]; then
		wait
		n=0
	fi
done
wait
failed=0
total=0
for t in $names; do
	cat "$bf/logs/$t.line"
	grep -q '^FAIL ' "$bf/logs/$t.line" && failed=$((failed + 1))
	total=$((total + $(cat "$bf/logs/$t.runs")))
done
echo "fuzz: $total executions in all, $failed target(s) failed"
[ "$failed" -eq 0 ]
