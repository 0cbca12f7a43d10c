#!/bin/sh
# Same-run A/B of two odma builds (e.g. before and after a change), or of two engines of one
# build: for each case, RUNS rounds, each round runs A then B (alternating which goes first),
# one odma-bench process each; prints per case the median (min-max) of the per-round ratio
# B/A of tasks/s and the median ping-pong of the round (the noise indicator).
#   scripts/bench-ab.sh BENCH_A BENCH_B [odma-bench args...]
#   ENGINES="inline thread" SIZES="64 4K 2M" DEPTH=128 RUNS=5 SECS=1 scripts/bench-ab.sh \
#       /work/base/build/tools/bench/odma-bench build/tools/bench/odma-bench
# A and B may be the same program with different environments: A_ENV / B_ENV (e.g.
# A_ENV=ODMA_ENGINE=inline B_ENV=ODMA_ENGINE=thread); ENGINES then applies to neither.
set -eu
A=$1
B=$2
shift 2
EXTRA="${EXTRA:+$EXTRA }$*" # (an EXTRA from the environment is kept, before the arguments)
RUNS=${RUNS:-5}
SECS=${SECS:-1}
DEPTH=${DEPTH:-128}
SIZES=${SIZES:-64 4K 2M}
ENGINES=${ENGINES:-inline thread}
[ -n "${A_ENV:-}${B_ENV:-}" ] && ENGINES=env

. "$(dirname "$0")/stats.sh"
one() { # PROGRAM ENV ENGINE SIZE -> "tasks_per_sec pingpong_ns"
	if [ "$3" = env ]; then e=""; else e="--engine $3"; fi
	out=$(env ${2:-ODMA_AB=1} "$1" $e --size "$4" --depth "$DEPTH" --seconds "$SECS" --reps 1 --json $EXTRA 2>/dev/null) || true
	echo "$(echo "$out" | num tasks_per_sec) $(echo "$out" | num pingpong_ns)"
}
echo "| engine | size | depth | B/A tasks/s, median (min-max) of $RUNS rounds | ping-pong ns, median (min-max) |"
echo "|---|---|---|---|---|"
for e in $ENGINES; do
	for s in $SIZES; do
		r=$(mktemp)
		p=$(mktemp)
		i=1
		while [ "$i" -le "$RUNS" ]; do
			if [ $((i % 2)) = 1 ]; then
				set -- $(one "$A" "${A_ENV:-}" "$e" "$s") x x
				a=$1 pa=$2
				set -- $(one "$B" "${B_ENV:-}" "$e" "$s") x x
				b=$1 pb=$2
			else
				set -- $(one "$B" "${B_ENV:-}" "$e" "$s") x x
				b=$1 pb=$2
				set -- $(one "$A" "${A_ENV:-}" "$e" "$s") x x
				a=$1 pa=$2
			fi
			awk -v a="$a" -v b="$b" 'BEGIN { if (a > 0) printf "%.4f\n", b / a }' >>"$r"
			echo "$pa" >>"$p"
			echo "$pb" >>"$p"
			i=$((i + 1))
		done
		echo "| $e | $s | $DEPTH | $(spread <"$r") | $(spread <"$p") |"
		rm -f "$r" "$p"
	done
done
