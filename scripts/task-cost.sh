#!/bin/sh
# Instructions per task, under callgrind (deterministic: a shared machine does not disturb it).
# Runs build/tools/bench/odma-task-cost for 0 and N tasks of SIZE bytes at DEPTH on each
# engine; (Ir(N) - Ir(0)) / N is the fixed cost of one task: submit, copy, completion,
# callback and the two doca_buf_set_data of the loop (docs/performance.md, "Per-task cost").
#   scripts/task-cost.sh [BUILD_DIR]      N=200000 SIZE=64 DEPTH=128 ENGINES="inline thread"
# ANNOTATE=1 also prints callgrind_annotate's top functions of the N-task run.
set -eu
BUILD=${1:-build}
N=${N:-200000}
SIZE=${SIZE:-64}
DEPTH=${DEPTH:-128}
ENGINES=${ENGINES:-inline thread}
PROG="$BUILD/tools/bench/odma-task-cost"
[ -x "$PROG" ] || { echo "task-cost: build first ($PROG missing)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "task-cost: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ir() { # ENGINE COUNT -> total instructions of the run
	ODMA_ENGINE=$1 valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.$1.$2" \
		"$PROG" "$2" "$SIZE" "$DEPTH" >/dev/null 2>"$TMP/log.$1.$2" ||
		{ cat "$TMP/log.$1.$2" >&2; exit 1; }
	sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$TMP/cg.$1.$2"
}
for e in $ENGINES; do
	a=$(ir "$e" 0)
	b=$(ir "$e" "$N")
	awk -v a="$a" -v b="$b" -v n="$N" -v e="$e" -v s="$SIZE" -v d="$DEPTH" \
		'BEGIN { printf "%s: %.1f instructions per %s-byte task (depth %s, N=%d)\n", e, (b - a) / n, s, d, n }'
	if [ "${ANNOTATE:-0}" = 1 ]; then
		callgrind_annotate --inclusive=no "$TMP/cg.$e.$N" 2>/dev/null | sed -n '1,/^$/d; 1,40p' | head -n 40
	fi
done
