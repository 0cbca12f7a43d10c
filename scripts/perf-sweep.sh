#!/bin/sh
# The size sweep of docs/performance.md: 64 B to 64 MiB, cache-hot and cold, both engines,
# each (engine, cache) swept RUNS times (default 5), each run one odma-bench process with its
# same-run baselines: single-thread memcpy, memcpy on the engine's N threads (memcpy_threads),
# DPDK's dma_skeleton when built in, and the cross-core ping-pong. Writes OUT_DIR:
#   sweep-ENGINE-CACHE-N.csv   the raw runs
#   sweep.csv                  per engine, cache and size: median (min, max) of the runs
#   sweep.md                   the table;  sweep.png  the plot (gnuplot, installed if missing)
#   scripts/perf-sweep.sh [BUILD_DIR] [OUT_DIR]      RUNS=5 SECS=0.6 DEPTH=32
# PLOT_ONLY=1 rebuilds sweep.csv, sweep.md and sweep.png from the raw runs already there.
set -eu
BUILD=${1:-build}
OUT=${2:-docs/perf}
RUNS=${RUNS:-5}
SECS=${SECS:-0.6}
DEPTH=${DEPTH:-32}
BENCH="$BUILD/tools/bench/odma-bench"
mkdir -p "$OUT"

# gnuplot from Debian (gnuplot-nox: no X needed); installed when missing and we are root.
if ! command -v gnuplot >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "perf-sweep: installing gnuplot-nox for the plot" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gnuplot-nox >/dev/null ||
			{ apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gnuplot-nox >/dev/null; }
	else
		echo "perf-sweep: no gnuplot: sudo apt-get install gnuplot-nox (the plot is skipped)" >&2
	fi
fi

if [ "${PLOT_ONLY:-0}" != 1 ]; then
	[ -x "$BENCH" ] || { echo "perf-sweep: build first ($BENCH missing)" >&2; exit 1; }
	PEER="--peer dpdk${PEER_EAL:+ -- $PEER_EAL}"
	"$BENCH" --size 64 --seconds 0.05 --reps 1 $PEER --json >/dev/null 2>&1 || PEER=""
	for run in $(seq 1 "$RUNS"); do
		for engine in inline thread; do
			for cache in hot cold; do
				flag=""
				[ "$cache" = cold ] && flag="--cold"
				echo "perf-sweep: run $run/$RUNS: $engine $cache" >&2
				"$BENCH" --engine "$engine" --sweep --depth "$DEPTH" --seconds "$SECS" --reps 1 \
					--csv $flag $PEER >"$OUT/sweep-$engine-$cache-$run.csv"
			done
		done
	done
fi

# Columns of a raw CSV (odma-bench --csv): 1 engine 3 cache 4 size 9 bytes_per_sec
# 12 memcpy_bytes_per_sec 14 peer_bytes_per_sec 17 pingpong_ns 19 memcpy_threads
# 20 memcpy_mt_bytes_per_sec 21 stream_mt_bytes_per_sec (0 under 64 KiB).
awk -F, '
	FNR == 1 { next }
	{
		k = $1 "," $3 "," $4; keys[k] = 1; n[k]++
		odma[k, n[k]] = $9 / 1e9; mc[k, n[k]] = $12 / 1e9; peer[k, n[k]] = $14 / 1e9
		pp[k, n[k]] = $17; thr[k] = $19; mt[k, n[k]] = $20 / 1e9; st[k, n[k]] = $21 / 1e9
	}
	function med(a, k, m,   i, j, t, v) {
		for (i = 1; i <= m; i++) v[i] = a[k, i]
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		lo = v[1]; hi = v[m]
		return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
	}
	END {
		print "engine,cache,size,odma_gbs,odma_min,odma_max,memcpy_gbs,memcpy_min,memcpy_max,memcpy_threads,memcpy_mt_gbs,memcpy_mt_min,memcpy_mt_max,peer_gbs,peer_min,peer_max,pingpong_ns,stream_mt_gbs,stream_mt_min,stream_mt_max,runs"
		for (k in keys) {
			m = n[k]
			o = med(odma, k, m); olo = lo; ohi = hi
			c = med(mc, k, m); clo = lo; chi = hi
			t = med(mt, k, m); tlo = lo; thi = hi
			p = med(peer, k, m); plo = lo; phi = hi
			q = med(pp, k, m)
			s = med(st, k, m); slo = lo; shi = hi
			printf "%s,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.0f,%.3f,%.3f,%.3f,%d\n", k, o, olo, ohi, c, clo, chi, thr[k], t, tlo, thi, p, plo, phi, q, s, slo, shi, m
		}
	}' "$OUT"/sweep-*-*-*.csv | { IFS= read -r h; echo "$h"; sort -t, -k1,1 -k2,2r -k3,3n; } >"$OUT/sweep.csv"

{
	echo "Median (min-max) of $(sed -n 2p "$OUT/sweep.csv" | awk -F, '{print $NF}') runs per row, GB/s; each run one odma-bench process"
	echo "(depth $DEPTH) with its baselines measured in the same process. memcpy xN: memcpy on as many"
	echo "threads as the engine moves bytes on (1 for the inline engine); stream xN: a copy with"
	echo "streaming stores on as many threads (tasks of 64 KiB or more), the limit for copies that miss"
	echo "the cache. A size above 2 MiB is a walk of 2 MiB tasks (max_buf_size)."
	echo
	echo "| engine | cache | size | odma GB/s | memcpy GB/s | odma / memcpy | memcpy xN GB/s (N) | odma / memcpy xN | stream xN GB/s | odma / stream xN | dma_skeleton GB/s | odma / skeleton | ping-pong ns |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	awk -F, 'NR > 1 {
		r1 = $7 > 0 ? sprintf("%.2f", $4 / $7) : "-"; r2 = $11 > 0 ? sprintf("%.2f", $4 / $11) : "-"
		pk = $14 > 0 ? sprintf("%.2f (%.2f-%.2f)", $14, $15, $16) : "-"; r3 = $14 > 0 ? sprintf("%.2f", $4 / $14) : "-"
		sk = $18 > 0 ? sprintf("%.2f (%.2f-%.2f)", $18, $19, $20) : "-"; r4 = $18 > 0 ? sprintf("%.2f", $4 / $18) : "-"
		printf "| %s | %s | %d | %.2f (%.2f-%.2f) | %.2f (%.2f-%.2f) | %s | %.2f (%d) | %s | %s | %s | %s | %s | %d |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, r1, $11, $10, r2, sk, r4, pk, r3, $17
	}' "$OUT/sweep.csv"
} >"$OUT/sweep.md"

if command -v gnuplot >/dev/null 2>&1; then
	for e in inline thread; do
		for c in hot cold; do
			awk -F, -v e=$e -v c=$c 'NR > 1 && $1 == e && $2 == c' "$OUT/sweep.csv" >"$OUT/.plot-$e-$c.csv"
		done
	done
	gnuplot <<GP
set terminal pngcairo size 1400,600 font ",10"
set output "$OUT/sweep.png"
set datafile separator ","
set logscale xy 2
set xlabel "copy size (bytes; above 2 MiB a walk of 2 MiB tasks)"
set ylabel "GB/s (median of runs, bars: min-max)"
set key bottom right
set xrange [48:90000000]
set grid
set xtics ("64" 64, "256" 256, "1K" 1024, "4K" 4096, "16K" 16384, "64K" 65536, "256K" 262144, "1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864)
set multiplot layout 1,2
do for [c in "hot cold"] {
	set title (c eq "hot" ? "cache-hot (depth $DEPTH, slots reused)" : "cold (footprint 4x LLC, depth $DEPTH)")
	plot "$OUT/.plot-thread-".c.".csv" using 3:4:5:6 with yerrorlines title "odma thread", \
	     "$OUT/.plot-inline-".c.".csv" using 3:4:5:6 with yerrorlines title "odma inline", \
	     "$OUT/.plot-thread-".c.".csv" using 3:7 with linespoints title "memcpy, 1 thread", \
	     "$OUT/.plot-thread-".c.".csv" using 3:11 with linespoints title "memcpy, N threads (the thread engine's)", \
	     "$OUT/.plot-thread-".c.".csv" using 3:(\$18 > 0 ? \$18 : 1/0) with linespoints title "streaming copy, N threads", \
	     "$OUT/.plot-thread-".c.".csv" using 3:(\$14 > 0 ? \$14 : 1/0) with linespoints title "DPDK dma\\\\_skeleton"
}
unset multiplot
GP
	rm -f "$OUT"/.plot-*.csv
fi
echo "perf-sweep: wrote $OUT/sweep.csv, sweep.md${PLOT_ONLY:+}$(command -v gnuplot >/dev/null 2>&1 && echo ', sweep.png')" >&2
