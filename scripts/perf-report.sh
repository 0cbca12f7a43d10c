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
# The machine must be idle: refuse when the same-run ping-pong is above twice its idle value.
IDLE=${ODMA_PINGPONG_IDLE_NS:-100}
# (the bench's own check, with a stricter threshold than its default: reference figures)
js=$("$BENCH" --size 64 --seconds 0.05 --reps 1 --busy-threshold $((2 * IDLE)) --json 2>/dev/null)
pp=$(echo "$js" | sed -n 's/.*"pingpong_ns": \([0-9.]*\).*/\1/p')
if echo "$js" | grep -q '"busy": true'; then
	echo "perf-report: ping-pong $pp ns is above 2 x the idle $IDLE ns: the machine is busy; not writing $OUT" >&2
	exit 3
fi
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

# 2. The goals: RUNS same-run ratios each, median and min-max (scripts/perf-goals.sh).
sh scripts/perf-goals.sh "$BUILD" "$OUT"
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
