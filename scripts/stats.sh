# shellcheck shell=sh disable=SC2120
# Sourced by the benchmark scripts (bench-ab.sh, link-ab.sh, perf-goals.sh): a number out of
# odma-bench's JSON, and the spread of a column of numbers.

# num KEY: the first number of "KEY" in the JSON on stdin.
num() { sed -n "s/.*\"$1\": \([0-9.e+]*\).*/\1/p" | head -n 1; }

# stats [FORMAT]: the numbers on stdin as "median min max", each printed with FORMAT (default
# %.3f); "- - -" when there are none.
stats() {
	sort -g | awk -v f="${1:-%.3f}" '{ v[NR] = $1 } END {
		if (NR == 0) { print "- - -"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf f " " f " " f "\n", m, v[1], v[NR] }'
}

# spread: the numbers on stdin as "median (min-max)", or "-" when there are none.
spread() {
	stats | { read -r m lo hi; if [ "$m" = - ]; then echo -; else echo "$m ($lo-$hi)"; fi; }
}
