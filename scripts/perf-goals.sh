#!/bin/sh
# The performance goals as same-run ratios: each case runs RUNS times (default 5), each run
# one odma-bench process that measures odma and its baseline (DPDK's dma_skeleton, memcpy or
# the eventfd ping-pong) side by side; the table gives the median ratio with its min-max and
# the median same-run ping-pong, the noise indicator.
#   scripts/perf-goals.sh [BUILD_DIR] [OUT_DIR]      (writes OUT_DIR/goals.md and goal-*.json)
# A run whose ping-pong is above twice the idle value (ODMA_PINGPONG_IDLE_NS, default 100 ns,
# the figure of an idle 2-vCPU guest of the reference kind) was measured under contention: it
# is discarded and measured again; when a case cannot get RUNS clean runs in RETRIES (10) extra
# tries, the script refuses (exit 3, nothing written to OUT_DIR/goals.md).
set -eu
BUILD=${1:-build}
OUT=${2:-docs/perf}
RUNS=${RUNS:-5}
SECS=${SECS:-1}
IDLE=${ODMA_PINGPONG_IDLE_NS:-100}
BENCH="$BUILD/tools/bench/odma-bench"
[ -x "$BENCH" ] || { echo "perf-goals: build first ($BENCH missing)" >&2; exit 1; }
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
PEER="--peer dpdk${PEER_EAL:+ -- $PEER_EAL}"
"$BENCH" --size 64 --seconds 0.05 --reps 1 $PEER --json >/dev/null 2>&1 || {
	echo "perf-goals: no DPDK peer in this build (install libdpdk-dev, reconfigure); peer goals skipped" >&2
	PEER=""
}

# jget FILE KEY [peer]: a number from a one-line JSON (the peer object's with "peer").
jget() {
	if [ "${3:-}" = peer ]; then sed 's/.*"peer": {//' "$1"; else sed 's/"peer": {.*//' "$1"; fi |
		sed -n "s/.*\"$2\": \([0-9.e+]*\).*/\1/p" | head -n 1
}

# stats: reads numbers on stdin, prints "median min max".
stats() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "- - -"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.3g %.3g %.3g\n", m, v[1], v[NR] }'
}

# goal NAME ENGINE KEY BASEKEY BASE_IN_PEER(peer|self) TARGET ARGS...: RUNS runs, one row.
ROWS=$TMP/rows
: >"$ROWS"
BAD=0
DISCARDED=0
goal() {
	name=$1 engine=$2 key=$3 bkey=$4 where=$5 target=$6
	shift 6
	: >"$TMP/ratios"
	: >"$TMP/pp"
	: >"$TMP/odma"
	# RUNS clean runs: a run whose ping-pong is above twice the idle value was measured under
	# contention (a neighbour on the host, say) and is discarded and measured again, at most
	# RETRIES times over the case; the case is refused when RUNS clean runs cannot be had.
	i=1
	tries=0
	while [ "$i" -le "$RUNS" ]; do
		f=$OUT/goal-$name-$engine-$i.json
		env ${GOAL_ENV:-ODMA_GOAL=1} "$BENCH" --engine "$engine" --json --seconds "$SECS" "$@" >"$f"
		pp=$(jget "$f" pingpong_ns)
		if awk -v p="$pp" -v i="$IDLE" 'BEGIN { exit !(p > 2 * i) }'; then
			tries=$((tries + 1))
			echo "perf-goals: $name $engine run $i: ping-pong $pp ns > 2 x idle $IDLE ns: contended, measured again" >&2
			if [ "$tries" -gt "${RETRIES:-10}" ]; then
				echo "perf-goals: $name $engine: no $RUNS clean runs in $((RUNS + tries - 1)) tries" >&2
				BAD=1
				break
			fi
			continue
		fi
		a=$(jget "$f" "$key")
		if [ "$where" = peer ]; then b=$(jget "$f" "$bkey" peer); else b=$(jget "$f" "$bkey"); fi
		echo "$a" >>"$TMP/odma"
		awk -v a="$a" -v b="$b" 'BEGIN { if (a != "" && b > 0) printf "%.4f\n", a / b }' >>"$TMP/ratios"
		echo "$pp" >>"$TMP/pp"
		i=$((i + 1))
	done
	DISCARDED=$((DISCARDED + tries))
	set -- $(stats <"$TMP/ratios")
	r="$1 ($2-$3)"
	set -- $(stats <"$TMP/odma")
	o=$1
	set -- $(stats <"$TMP/pp")
	echo "| $name | $engine | $o | $r | $target | $1 ($2-$3) |" >>"$ROWS"
}

for e in inline thread; do
	[ -n "$PEER" ] && goal 64b-d128 $e tasks_per_sec tasks_per_sec peer ">= 2.0" --size 64 --depth 128 $PEER
	[ -n "$PEER" ] && goal 4k-hot-d128 $e bytes_per_sec bytes_per_sec peer ">= 1.5" --size 4K --depth 128 $PEER
	goal 16m-cold-d4 $e bytes_per_sec memcpy_bytes_per_sec self ">= 0.9" --size 16M --depth 4 --cold
	[ -n "$PEER" ] && goal 64b-latency $e p50 p50 peer "<= 0.5" --size 64 --mode latency $PEER
	goal 64b-event $e p50 eventfd_pingpong_ns self "<= 1.2" --size 64 --mode event
done
# the thread engine with every copy handed to a worker (issue 15: the forced hand-off)
GOAL_ENV=ODMA_INLINE_MAX=0 goal 64b-event-handoff thread p50 eventfd_pingpong_ns self "<= 1.2" --size 64 --mode event
if [ "$BAD" != 0 ]; then
	echo "perf-goals: refusing to write $OUT/goals.md: the machine was not idle (see above)" >&2
	exit 3
fi
{
	echo "Each row: $RUNS runs of one odma-bench process each; median (min-max) of the per-run"
	echo "ratio odma / same-run baseline, and the same-run ping-pong (ns) as the noise indicator."
	echo "Runs whose ping-pong was above 2 x $IDLE ns were discarded and measured again ($DISCARDED in all)."
	echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') x $(nproc);"
	echo "odma $(git describe --always --dirty 2>/dev/null || echo unknown); $(date -u +%Y-%m-%dT%H:%MZ)."
	echo
	echo "| case | engine | odma (median) | ratio, median (min-max) | target | ping-pong ns, median (min-max) |"
	echo "|---|---|---|---|---|---|"
	cat "$ROWS"
} >"$OUT/goals.md"
cat "$OUT/goals.md"
