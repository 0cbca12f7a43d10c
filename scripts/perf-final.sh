#!/bin/sh
# Issue 22's measurements in one command, for an otherwise idle machine:
#   scripts/perf-final.sh [BUILD_DIR] [OUT_DIR]          (defaults: build docs/perf)
#   BASE=b896232   the "before" revision for the A/B table and the instruction counts
# 1. builds BASE's odma-bench (and this tree's odma-task-cost against BASE's libraries) in a
#    temporary directory (git archive; nothing of this worktree changes);
# 2. the goal table, 5 same-run runs per case (scripts/perf-goals.sh -> OUT/goals.md);
# 3. the A/B table before/after (scripts/bench-ab.sh, 5 alternating rounds per case);
# 4. instructions per 64 B task before/after (scripts/task-cost.sh, callgrind);
# 5. the 64 B-64 MiB sweep, table and plot (scripts/perf-sweep.sh -> OUT/sweep.*);
# and writes OUT/issue22.md with all of it. About 30 minutes on a 2-vCPU guest
# (SKIP_SWEEP=1: about 20). Needs git, meson, ninja, valgrind; gnuplot is installed if missing.
set -eu
BUILD=${1:-build}
OUT=${2:-docs/perf}
BASE=${BASE:-b896232}
RUNS=${RUNS:-5}
SECS=${SECS:-1}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mkdir -p "$OUT"
ninja -C "$BUILD" tools/bench/odma-bench tools/bench/odma-task-cost >/dev/null

echo "perf-final: building $BASE in $W/base (odma-bench only)" >&2
mkdir -p "$W/base"
git archive "$BASE" | tar -x -C "$W/base"
meson setup "$W/base/build" -Dwerror=false >/dev/null
ninja -C "$W/base/build" tools/bench/odma-bench >/dev/null
A="$W/base/build/tools/bench/odma-bench"
B="$BUILD/tools/bench/odma-bench"
# the task-cost program uses the public API only: build it against BASE's libraries
mkdir -p "$W/base/build/tools/bench"
cc -O2 -std=c11 -D_GNU_SOURCE -DDOCA_ALLOW_EXPERIMENTAL_API -I"$W/base/include" \
	tools/bench/task_cost.c -o "$W/base/build/tools/bench/odma-task-cost" \
	-L"$W/base/build/src" -ldoca_dma -ldoca_common -Wl,--disable-new-dtags \
	-Wl,-rpath,"$W/base/build/src"
# RPATH (not RUNPATH) also governs the libraries' own dependencies; insist on it
ldd "$W/base/build/tools/bench/odma-task-cost" | grep -q "$W/base/build/src/libdoca_common" ||
	{ echo "perf-final: the before program does not load BASE's libraries:" >&2
	  ldd "$W/base/build/tools/bench/odma-task-cost" >&2; exit 1; }

echo "perf-final: goals (RUNS=$RUNS)" >&2
RUNS=$RUNS SECS=$SECS sh scripts/perf-goals.sh "$BUILD" "$OUT" || echo "perf-goals refused (see above)" >&2

echo "perf-final: A/B before/after" >&2
AB=$W/ab.md
{
	echo "A = $BASE, B = $(git describe --always --dirty); B/A tasks/s, median (min-max) of $RUNS alternating rounds."
	echo
	RUNS=$RUNS SECS=$SECS DEPTH=128 SIZES="64 4K 2M" sh scripts/bench-ab.sh "$A" "$B"
	RUNS=$RUNS SECS=$SECS DEPTH=4 SIZES="16M" sh scripts/bench-ab.sh "$A" "$B" --cold | tail -n +3
	RUNS=$RUNS SECS=$SECS DEPTH=8 SIZES="2M" ENGINES=thread sh scripts/bench-ab.sh "$A" "$B" --cold | tail -n +3
	RUNS=$RUNS SECS=$SECS DEPTH=1 SIZES="64" sh scripts/bench-ab.sh "$A" "$B" --mode latency | tail -n +3
	RUNS=$RUNS SECS=$SECS DEPTH=32 SIZES="1K" ENGINES=thread sh scripts/bench-ab.sh "$A" "$B" --xproc | tail -n +3
	RUNS=$RUNS SECS=$SECS DEPTH=4 SIZES="2M" ENGINES=thread sh scripts/bench-ab.sh "$A" "$B" --xproc | tail -n +3
	echo
	echo "(--cold rows: 16M depth 4 and 2M depth 8; latency row: depth-1 tasks/s, the inverse of the"
	echo "round trip; xproc rows: 1K depth 32 and 2M depth 4.)"
} >"$AB"
cp "$AB" "$OUT/ab-issue22.md"

echo "perf-final: instructions per task (callgrind)" >&2
IC=$W/ic.txt
{
	echo "before ($BASE):"
	sh scripts/task-cost.sh "$W/base/build"
	echo "after ($(git describe --always --dirty)):"
	sh scripts/task-cost.sh "$BUILD"
} >"$IC" 2>&1
cp "$IC" "$OUT/task-cost.txt"

if [ "${SKIP_SWEEP:-0}" != 1 ]; then
	echo "perf-final: sweep" >&2
	RUNS=$RUNS sh scripts/perf-sweep.sh "$BUILD" "$OUT"
fi

{
	echo "# Issue 22: measured $(date -u +%Y-%m-%dT%H:%MZ)"
	echo
	echo "## Goals"
	echo
	cat "$OUT/goals.md" 2>/dev/null || echo "(perf-goals refused: machine not idle)"
	echo
	echo "## Before/after (scripts/bench-ab.sh)"
	echo
	cat "$AB"
	echo
	echo "## Instructions per 64 B task, depth 128 (scripts/task-cost.sh)"
	echo
	echo '```'
	cat "$IC"
	echo '```'
	if [ -f "$OUT/sweep.md" ]; then
		echo
		echo "## Sweep (scripts/perf-sweep.sh; plot: sweep.png)"
		echo
		cat "$OUT/sweep.md"
	fi
} >"$OUT/issue22.md"
cat "$OUT/issue22.md"
