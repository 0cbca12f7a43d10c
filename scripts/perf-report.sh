#!/bin/sh
# Regenerates docs/perf/: the sweep data (CSV), the goal runs (JSON), the markdown tables
# and the plot (sweep.png, gnuplot). Usage: scripts/perf-report.sh [BUILD_DIR] [SECONDS]
# SECONDS is the measuring time per size (default 0.6; medians of 3 repetitions).
# With a build without libdpdk the peer columns stay empty (the runs say why).
# PLOT_ONLY=1 only rebuilds the tables and the plot from the data already in docs/perf.
# The machine must be otherwise idle: a busy 2-vCPU guest turns spinning threads into
# scheduler-tick stalls (check the pingpong_ns figures: ~60 ns idle, µs when contended).
set -eu
BUILD=${1:-build}
SECS=${2:-0.6}
OUT=docs/perf
BENCH="$BUILD/tools/bench/odma-bench"
[ -x "$BENCH" ] || { echo "perf-report: build first ($BENCH missing)" >&2; exit 1; }
mkdir -p "$OUT"
# PEER_EAL: the full EAL argument list for the peer, e.g. to add "-d DIR" where the
# dma_skeleton driver is not in DPDK's default plugin directory.
PEER="--peer dpdk${PEER_EAL:+ -- $PEER_EAL}"
"$BENCH" --size 64 --seconds 0.05 --reps 1 $PEER --json >/dev/null 2>&1 || PEER=""

machine() {
	echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') x $(nproc)"
	echo "llc (reported): $(getconf LEVEL3_CACHE_SIZE 2>/dev/null || echo unknown) bytes"
	echo "memory: $(awk '/MemTotal/ {print $2 " kB"}' /proc/meminfo)"
	echo "kernel: $(uname -r)"
	echo "odma: $(git describe --always --dirty 2>/dev/null || echo unknown)"
	echo "dpdk peer: ${PEER:-not built}"
}
if [ "${PLOT_ONLY:-0}" != 1 ]; then
machine > "$OUT/machine.txt"

# 1. The sweeps: each engine, cache-hot and cold, depth 32, with the peer.
for engine in inline thread; do
	for cache in hot cold; do
		flag=""; [ "$cache" = cold ] && flag="--cold"
		echo "perf-report: sweep $engine $cache" >&2
		"$BENCH" --engine "$engine" --sweep --depth 32 --seconds "$SECS" --csv $flag $PEER \
			> "$OUT/sweep-$engine-$cache.csv"
	done
done

# 2. The goal cases of issue 4, each engine.
goal() { # name args...
	name=$1; shift
	for engine in inline thread; do
		echo "perf-report: goal $name $engine" >&2
		"$BENCH" --engine "$engine" --json --seconds 3 "$@" > "$OUT/goal-$name-$engine.json"
	done
}
goal 64b-d128 --size 64 --depth 128 $PEER
goal 4k-hot-d128 --size 4K --depth 128 $PEER
goal 16m-cold-d4 --size 16M --depth 4 --cold
goal 64b-latency --size 64 --mode latency $PEER
goal 64b-event --size 64 --mode event
goal 4k-event --size 4K --mode event
goal 4k-latency --size 4K --mode latency $PEER
"$BENCH" --crossover --seconds 9 > "$OUT/crossover.txt"

# 3. Steady state (4 KiB, depth 32: the thread engine hands these to a worker): allocations (valgrind) and syscalls (strace) for a short and a 5x longer
# run; when the counts do not grow with the task count, the per-task path has none.
steady() { # engine
	for t in 0.2 1.0; do
		n=$("$BENCH" --engine "$1" --size 4K --depth 32 --seconds $t --reps 1 --json | sed 's/.*"tasks": \([0-9]*\).*/\1/')
		h=$(valgrind "$BENCH" --engine "$1" --size 4K --depth 32 --seconds $t --reps 1 --no-pingpong --json 2>&1 >/dev/null |
			sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' | tr -d ,)
		s=$(strace -f -c -o /dev/stdout "$BENCH" --engine "$1" --size 4K --depth 32 --seconds $t --reps 1 \
			--no-pingpong --json 2>/dev/null | awk '/ total$/ {print $4}' | tail -1)
		echo "$1 seconds=$t tasks(no tracer)=$n heap_allocs(valgrind)=$h syscalls(strace -f)=$s"
	done
}
if command -v valgrind >/dev/null && command -v strace >/dev/null; then
	{ steady inline; steady thread; } > "$OUT/steady-state.txt"
fi
fi

# 4. The table.
{
	echo "| engine | cache | size | odma GB/s | odma Mtasks/s | memcpy GB/s | odma/memcpy | dpdk GB/s | odma/dpdk |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for f in "$OUT"/sweep-*.csv; do
		awk -F, 'NR > 1 {
			mc = $12 > 0 ? $9 / $12 : 0; pr = $14 > 0 ? sprintf("%.2f", $9 / $14) : "-";
			pg = $14 > 0 ? sprintf("%.2f", $14 / 1e9) : "-";
			printf "| %s | %s | %d | %.2f | %.3f | %.2f | %.2f | %s | %s |\n", $1, $3, $4, $9 / 1e9, $8 / 1e6, $12 / 1e9, mc, pg, pr
		}' "$f"
	done
} > "$OUT/sweep.md"

# 4b. The goals of issue 4: ratios from the goal runs (same-run baselines).
jget() { # FILE KEY [peer]: a number from the one-line JSON (the peer object's with "peer")
	if [ "${3:-}" = peer ]; then sed 's/.*"peer": {//' "$1"; else sed 's/"peer": {.*//' "$1"; fi |
		sed -n "s/.*\"$2\": \([0-9.e+]*\).*/\1/p"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a != "") printf "%.2f", a / b; else printf "-" }'; }
{
	echo "| goal | engine | odma | baseline (same run) | ratio | target | pingpong_ns |"
	echo "|---|---|---|---|---|---|---|"
	for e in inline thread; do
		f=$OUT/goal-64b-d128-$e.json; a=$(jget $f tasks_per_sec); b=$(jget $f tasks_per_sec peer)
		echo "| 64 B, depth 128, tasks/s vs skeleton | $e | $a | $b | $(ratio "$a" "$b") | >= 2.0 | $(jget $f pingpong_ns) |"
		f=$OUT/goal-4k-hot-d128-$e.json; a=$(jget $f bytes_per_sec); b=$(jget $f bytes_per_sec peer)
		echo "| 4 KiB hot, depth 128, bytes/s vs skeleton | $e | $a | $b | $(ratio "$a" "$b") | >= 1.5 | $(jget $f pingpong_ns) |"
		f=$OUT/goal-16m-cold-d4-$e.json; a=$(jget $f bytes_per_sec); b=$(jget $f memcpy_bytes_per_sec)
		echo "| 16 MiB cold, depth 4, bytes/s vs memcpy | $e | $a | $b | $(ratio "$a" "$b") | >= 0.9 | $(jget $f pingpong_ns) |"
		for s in 64b 4k; do
			f=$OUT/goal-$s-latency-$e.json; a=$(jget $f p50); b=$(jget $f p50 peer)
			echo "| $s depth 1 polling, p50 ns vs skeleton p50 | $e | $a | $b | $(ratio "$a" "$b") | <= 0.5 | $(jget $f pingpong_ns) |"
			f=$OUT/goal-$s-event-$e.json; a=$(jget $f p50); b=$(jget $f eventfd_pingpong_ns)
			echo "| $s event mode, p50 ns vs eventfd ping-pong | $e | $a | $b | $(ratio "$a" "$b") | <= 1.2 | $(jget $f pingpong_ns) |"
		done
	done
} > "$OUT/goals.md"

# 5. The plot: GB/s against size, cache-hot and cold panels.
gnuplot <<GP
set terminal pngcairo size 1400,560 font ",10"
set output "$OUT/sweep.png"
set datafile separator ","
set logscale xy 2
set xlabel "copy size (bytes; tasks above 2 MiB are 2 MiB)"
set ylabel "GB/s"
set key bottom right
set xrange [48:24000000]
set grid
set xtics ("64" 64, "256" 256, "1K" 1024, "4K" 4096, "16K" 16384, "64K" 65536, "256K" 262144, "1M" 1048576, "4M" 4194304, "16M" 16777216)
set multiplot layout 1,2
set title "cache-hot (depth 32, slots reused)"
plot "$OUT/sweep-inline-hot.csv" every ::1 using 4:(\$9/1e9) with linespoints title "odma inline", \
     "$OUT/sweep-thread-hot.csv" every ::1 using 4:(\$9/1e9) with linespoints title "odma thread", \
     "$OUT/sweep-thread-hot.csv" every ::1 using 4:(\$12/1e9) with linespoints title "memcpy (1 thread)", \
     "$OUT/sweep-thread-hot.csv" every ::1 using 4:(\$14 > 0 ? \$14/1e9 : 1/0) with linespoints title "DPDK dma\\\\_skeleton"
set title "cold (footprint 4x LLC, depth 32)"
plot "$OUT/sweep-inline-cold.csv" every ::1 using 4:(\$9/1e9) with linespoints title "odma inline", \
     "$OUT/sweep-thread-cold.csv" every ::1 using 4:(\$9/1e9) with linespoints title "odma thread", \
     "$OUT/sweep-thread-cold.csv" every ::1 using 4:(\$12/1e9) with linespoints title "memcpy (1 thread)", \
     "$OUT/sweep-thread-cold.csv" every ::1 using 4:(\$14 > 0 ? \$14/1e9 : 1/0) with linespoints title "DPDK dma\\\\_skeleton"
unset multiplot
GP
echo "perf-report: wrote $OUT/ (sweep-*.csv, goal-*.json, crossover.txt, sweep.md, sweep.png)" >&2
