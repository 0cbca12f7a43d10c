#!/bin/sh
# Same-run A/B of the network transport's two links (docs/performance.md, "odma's TCP link"):
# RUNS rounds (default 5), each running every case on UCX's link (ODMA_LINK=ucp) and then on
# odma's TCP link (ODMA_LINK=tcp), one odma-bench process each, over loopback. Prints per row
# the median (min-max) on each link, the ratio of the medians TCP / UCX, and the median (min-max)
# same-run ping-pong, the noise indicator.
#   scripts/link-ab.sh [BUILD_DIR]        (RUNS=5 SECS=1)
# shellcheck disable=SC2046,SC2086 # the cases and the three fields of stats split on purpose
set -eu
BUILD=${1:-build}
RUNS=${RUNS:-5}
SECS=${SECS:-1}
BENCH="$BUILD/tools/bench/odma-bench"
[ -x "$BENCH" ] || { echo "link-ab: build first ($BENCH missing)" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

. "$(dirname "$0")/stats.sh"
# row NAME LINK VALUE: one measurement, in units of the row
row() { echo "$3" >>"$TMP/$(echo "$1" | tr " /" "_%").$2"; }

r=0
while [ "$r" -lt "$RUNS" ]; do
	r=$((r + 1))
	for link in ucp tcp; do
		for c in "4K 32" "1M 4"; do
			set -- $c
			ODMA_LINK=$link "$BENCH" --xproc --transport ucx --size "$1" --depth "$2" \
				--seconds "$SECS" --reps 1 --json >"$TMP/j" 2>/dev/null || continue
			# one line per op: read first, then write
			tr -d '\n' <"$TMP/j" | sed 's/}, *{/}\n{/g' >"$TMP/ops"
			for op in read write; do
				v=$(grep "\"op\": \"$op\"" "$TMP/ops" | num bytes_per_sec)
				row "DMA $op $1 depth $2 (GB/s)" $link "$(echo "$v" | awk '{ print $1 / 1e9 }')"
				grep "\"op\": \"$op\"" "$TMP/ops" | num pingpong_ns >>"$TMP/pingpong"
			done
		done
		for c in "4K 8" "1M 8"; do
			set -- $c
			ODMA_LINK=$link "$BENCH" --rdma --size "$1" --depth "$2" --seconds "$SECS" \
				--reps 1 --json >"$TMP/j" 2>/dev/null || continue
			for f in read write; do
				v=$(num "${f}_bytes_per_sec" <"$TMP/j")
				row "RDMA $f $1 depth $2 (GB/s)" $link "$(echo "$v" | awk '{ print $1 / 1e9 }')"
			done
			v=$(num send_msgs_per_sec <"$TMP/j")
			msg=$1
			[ "$1" = 1M ] && msg=64K # sends are min(size, 64 KiB)
			row "RDMA send $msg depth $2 (k/s)" $link "$(echo "$v" | awk '{ print $1 / 1e3 }')"
		done
	done
done
echo "| row | UCX's link | odma's TCP link | TCP / UCX |"
echo "|---|---|---|---|"
for f in "$TMP"/*.ucp; do
	name=$(basename "$f" .ucp)
	[ -f "$TMP/$name.tcp" ] || continue
	set -- $(stats <"$f") $(stats <"$TMP/$name.tcp")
	printf '| %s | %s (%s-%s) | %s (%s-%s) | %s |\n' "$(echo "$name" | tr "_%" " /")" \
		"$1" "$2" "$3" "$4" "$5" "$6" "$(awk -v a="$1" -v b="$4" 'BEGIN { printf "%.2f", b / a }')"
done
set -- $(stats <"$TMP/pingpong")
echo "same-run ping-pong: median $1 ns ($2-$3)"
