/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * odma-bench: measures odma's DMA task path against a plain memcpy on the same buffers
 * and, when built with libdpdk, against DPDK's software dma_skeleton in the same run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doca_argp.h>
#include <doca_log.h>

#include "argp/argp_priv.h"
#include "bench.h"

static const char bench_help[] =
        "NAME\n"
        "    odma-bench - measure odma's DMA task path beside memcpy and DPDK's software DMA\n"
        "\n"
        "SYNOPSIS\n"
        "    odma bench [OPTIONS] [-- EAL-ARGS...]\n"
        "\n"
        "DESCRIPTION\n"
        "    Runs the DOCA DMA task API end to end as a DOCA program does: opens the first\n"
        "    memcpy-capable device, maps a source and a destination region (LOCAL_READ_WRITE),\n"
        "    creates an inventory, a progress engine and a DMA context with a pool of DEPTH\n"
        "    tasks, allocates the tasks once and resubmits each from its completion callback,\n"
        "    each time pointing it at its next slot (two tasks in flight never share a\n"
        "    destination). Every run also measures, on the same buffers, slots and size:\n"
        "      - a single-thread memcpy (memcpy_bytes_per_sec),\n"
        "      - memcpy on as many threads as the engine moves bytes on (memcpy_threads: 1 for\n"
        "        the inline engine, the workers plus the submitting thread for the thread\n"
        "        engine; memcpy_mt_bytes_per_sec), thread j copying slots j, j+N, ..., and\n"
        "      - for tasks of 64 KiB or more (throughput mode), a copy with streaming stores on\n"
        "        as many threads (stream_mt_bytes_per_sec): what the engine uses for big\n"
        "        copies into memory out of the cache, the machine's limit for such copies,\n"
        "      - pingpong_ns, the round trip of two threads spinning on one atomic (pinned to\n"
        "        CPUs 0 and 1 when allowed): the price of a cross-core hand-off right now.\n"
        "    Each figure is the median of REPS repetitions, run interleaved (odma, memcpy, peer)\n"
        "    so that all of them see the same machine. The first slot written in every\n"
        "    repetition is compared with its source (\"verified\").\n"
        "\n"
        "    A task moves min(SIZE, max_buf_size) bytes (2 MiB on the default device): a larger\n"
        "    SIZE is a walk of consecutive max_buf_size tasks (task_size in the output).\n"
        "\n"
        "OPTIONS\n"
        "    -s, --size SIZE      bytes per copy; K, M, G suffixes (binary). Default 4K.\n"
        "    -d, --depth N        tasks in flight. Default 32. Latency and event modes use 1.\n"
        "    -t, --seconds SEC    measuring time per size (split over the repetitions),\n"
        "                         fractions allowed. Default 1.\n"
        "        --reps N         repetitions; medians are reported. Default 3.\n"
        "    -e, --engine NAME    odma engine (sets ODMA_ENGINE before the PE exists):\n"
        "                         inline or thread. Default: the library's default.\n"
        "    -w, --workers N      engine worker threads (sets ODMA_WORKERS).\n"
        "        --list-len N     source and destination as lists of N elements of SIZE/N\n"
        "                         bytes (cache-hot only; at most the device's\n"
        "                         max_buf_list_len, 64 unless a profile says). Default 1.\n"
        "    -m, --mode MODE      throughput (default): DEPTH tasks kept in flight, polling;\n"
        "                         latency: depth 1, submit-to-callback time per task, polling;\n"
        "                         event: depth 1, sleeping on the PE's notification handle\n"
        "                         with epoll (progress until idle, request_notification,\n"
        "                         epoll_wait, clear_notification, progress); also measures a\n"
        "                         raw eventfd ping-pong between two threads "
        "(eventfd_pingpong_ns).\n"
        "        --cold           walk a footprint larger than the last-level cache (4 x the\n"
        "                         LLC, 256 MiB when unknown, at most a quarter of RAM) so that\n"
        "                         every task touches memory not in cache. Default: cache-hot\n"
        "                         (DEPTH slots, reused).\n"
        "        --footprint SIZE the bytes a cold walk covers, source and destination together\n"
        "                         (implies --cold), e.g. 1G for 2 MiB tasks over 1 GiB.\n"
        "        --sweep          sizes 64, 256, 1K, 4K, 16K, 64K, 256K, 1M, 2M, 4M, 16M, 64M.\n"
        "        --crossover      measure the one-shot crossover: for 64 B..2 MiB, the p50 of a\n"
        "                         depth-1 task (submit to callback) beside the p50 of one memcpy;\n"
        "                         prints the smallest size from which DMA is within 10 % of\n"
        "                         memcpy (what odma advise uses).\n"
        "        --rdma           DOCA RDMA read, write and send between two processes, beside\n"
        "                         raw UCX (get, put, active messages) and a raw TCP stream\n"
        "                         (from one hot buffer, and from the same slots) from the\n"
        "                         same run, with their ratios: medians of --reps interleaved\n"
        "                         repetitions; 8 in flight unless --depth; with --sweep: 4K,\n"
        "                         64K and 1M at depths 1, 8 and 32, one row each (an array of\n"
        "                         rows with --json)\n"
        "        --sync-event     a DOCA sync event between two processes over the network\n"
        "                         transport (UCX over TCP; one kernel with ODMA_TRANSPORT=ucx):\n"
        "                         a forked responder (DPU side) exports the event and answers\n"
        "                         each value with the next in a blocking wait; this process\n"
        "                         (host side) sets a value and waits for the answer. Prints the\n"
        "                         round trip (two hand-offs), how long after an update made 20\n"
        "                         ms into a wait that wait returns, and a raw UCX get of 8\n"
        "                         bytes to the same process, one in flight, from the same run.\n"
        "        --comch          DOCA Comch between two processes (this one the DPU side,\n"
        "                         a forked one the host side): control-path messages/s (64-byte\n"
        "                         ping-pong and one-way stream) beside a raw SOCK_SEQPACKET\n"
        "                         socketpair, and fast-path bytes/s (producer sends of SIZE into\n"
        "                         posted consumer buffers, timed until the consumer has them)\n"
        "                         beside raw process_vm_writev and DMA tasks into a buffer the\n"
        "                         other process exported, all in the same run. With --netns the\n"
        "                         host side is as on a second machine (Comch over ODMA_FABRIC,\n"
        "                         DMA over UCX) and the baselines are raw TCP over the same veth.\n"
        "                         Emulated figures: odma moves these bytes with the CPU and the\n"
        "                         kernel, not PCIe.\n"
        "        --peer dpdk      also run DPDK dmadev with the dma_skeleton driver (same size,\n"
        "                         depth and buffers; throughput and latency modes). EAL gets\n"
        "                         --no-huge -m 1024 --no-pci --vdev=dma_skeleton,lcore=0 -l 0,1\n"
        "                         --main-lcore 1 --log-level=error --no-shconf --no-telemetry,\n"
        "                         or the EAL arguments given after \"--\" instead.\n"
        "        --xproc          cross-process copies as two processes: a forked exporter\n"
        "                         (host side, b1:00.0) exports a region, this process imports\n"
        "                         it (DPU side, 03:00.0) and reads SIZE-byte slots with DEPTH\n"
        "                         DMA tasks in flight; in the same run, one raw process_vm_readv\n"
        "                         per copy on the same slots, and the same call on as many\n"
        "                         threads as the engine uses (raw xN). Sizes 1K, 64K and 2M\n"
        "                         unless --size is given (each copy is one task: at most the\n"
        "                         device's max_buf_size). Prints tasks/s and GB/s of both and\n"
        "                         the ratio.\n"
        "        --transport ucx  with --xproc: the import goes over the UCX transport\n"
        "                         (ODMA_TRANSPORT=ucx, TCP; ODMA_FABRIC and UCX_NET_DEVICES as\n"
        "                         set), beside raw UCX ucp_get_nbx from the same slots over the\n"
        "                         same device (ODMA_BENCH_UCX_DEV, default lo); then writes\n"
        "                         (DMA into the export) beside ucp_put_nbx, whose rate includes\n"
        "                         the flush that waits for the last puts; and each beside a raw\n"
        "                         TCP stream over the same link (tcp, x tcp). Sizes 4K and 1M.\n"
        "        --netns          with --transport ucx, --rdma, --sync-event or --comch (root):\n"
        "                         the exporter (the responder) in a network and a PID namespace\n"
        "                         of its own, this process in a network namespace of its own,\n"
        "                         joined only by a veth pair made for the run (anonymous\n"
        "                         namespaces: they and the pair go with the run); odma, raw\n"
        "                         UCX and raw TCP all run over the veth. Not root: an error.\n"
        "        --no-pingpong    skip the ping-pong measurements (pingpong_ns is then 0): for\n"
        "                         runs under valgrind or strace, where spinning threads crawl.\n"
        "        --busy-threshold NS  warn (one line on stderr; \"busy\": true in JSON) when the\n"
        "                         same-run ping-pong is above NS nanoseconds: the machine is\n"
        "                         busy and the figures are low and noisy. Default 1000 (an\n"
        "                         idle machine's is about 100 ns, a busy one's several us).\n"
        "        --plot FILE.svg  draw the sweep (implies --sweep) as an SVG chart: copy size on\n"
        "                         a log x axis, GB/s on y, one line per series (odma, memcpy,\n"
        "                         memcpy on N threads, streaming copy on N threads, DPDK with\n"
        "                         --peer dpdk), axis labels and a legend. Plain text, no library.\n"
        "                         With --rdma: RDMA read and write beside raw UCX get and put\n"
        "                         and the raw TCP stream, 4 KiB to 1 MiB at one depth.\n"
        "        --trace FILE     write the run's task timeline to FILE (ODMA_TRACE: trace-event\n"
        "                         JSON for Perfetto; summarise it with odma trace FILE). The\n"
        "                         traced run takes the per-task path: its figures are lower.\n"
        "        --json           print one JSON object (an array of them with --sweep); the\n"
        "                         rows that cross the network name their link (\"link\":\n"
        "                         \"tcp\", odma's TCP link, or \"ucp\", UCX's: ODMA_LINK).\n"
        "        --csv            print CSV rows with a header (the DMA task path only).\n"
        "    -l, --log-level N    (doca_argp) program log level; --sdk-log-level N the SDK's.\n"
        "    -h, --help           this text.   -v, --version   the odma version.\n"
        "\n"
        "OUTPUT\n"
        "    Text: a legend of the columns (the ratio columns are odma divided by the baseline\n"
        "    before them: above 1, odma moved more bytes per second), then one line per size;\n"
        "    the p50/p99 column only in latency and event modes, the N-thread memcpy\n"
        "    columns only in throughput mode. JSON keys: engine, mode, size, task_size,\n"
        "    list_len, depth, cache (hot|cold), footprint_bytes, tasks, seconds, tasks_per_sec,\n"
        "    bytes_per_sec, memcpy_bytes_per_sec, memcpy_tasks_per_sec, verified, pingpong_ns,\n"
        "    busy, busy_threshold_ns,\n"
        "    memcpy_threads, memcpy_mt_bytes_per_sec, ratio_memcpy, ratio_memcpy_mt (throughput\n"
        "    mode; with tasks of 64 KiB or more also stream_mt_bytes_per_sec and\n"
        "    ratio_stream_mt, on memcpy_threads threads; --xproc: raw_threads,\n"
        "    raw_mt_syscall_per_sec, ratio_raw_mt beside ratio),\n"
        "    latency_ns {p50, p99} (latency and event modes), eventfd_pingpong_ns (event mode),\n"
        "    harness_tasks_per_sec (throughput mode: the measuring loop's own bookkeeping with\n"
        "    the copy replaced by nothing, i.e. the ceiling the loop puts on any engine),\n"
        "    and with --peer dpdk a \"peer\" object with the same figures for the skeleton.\n"
        "    A live progress line goes to stderr on a terminal when a run lasts over 2 s.\n"
        "\n"
        "EXAMPLES\n"
        "    odma bench --size 64 --depth 128 --peer dpdk\n"
        "    odma bench --size 16M --depth 4 --cold\n"
        "    odma bench --mode latency --size 64 --peer dpdk --json\n"
        "    ODMA_ENGINE=thread odma bench --sweep --csv\n"
        "    odma bench --plot sweep.svg --seconds 0.5\n"
        "\n"
        "EXIT STATUS\n"
        "    0 on success; 1 when a measurement failed (the reason is printed); 2 on bad flags.\n";

struct bench_out {
	struct bench_result odma, mc, mcmt, stmt, peer, harness;
	int threads; /* threads the engine moves bytes on: the N of the N-thread memcpy */
	size_t size;
	double footprint;
};

static struct bench_cfg cfg = { .size = 4096,
	                        .depth = 32,
	                        .seconds = 1.0,
	                        .reps = 3,
	                        .list_len = 1,
	                        .busy_ns = BENCH_BUSY_NS };
static FILE *plot_file; /* --plot, opened before the run so that a bad path fails at once */
static char plot_path[4096];
static double pingpong_ns, efd_pingpong_ns;
static bool busy; /* the ping-pong was above --busy-threshold */

/* ------------------------------------------------------------------ flags */

static doca_error_t cb_size(void *p, void *c)
{
	(void)c;
	cfg.size_given = true;
	if (bench_parse_size(p, &cfg.size) != 0) {
		fprintf(stderr, "odma-bench: --size \"%s\" is not a size (examples: 64, 4K, 16M)\n",
		        (char *)p);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t cb_footprint(void *p, void *c)
{
	(void)c;
	if (bench_parse_size(p, &cfg.footprint) != 0 || cfg.footprint < 8192) {
		fprintf(stderr, "odma-bench: --footprint \"%s\" is not a size of 8K or more\n",
		        (char *)p);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg.cold = true;
	return DOCA_SUCCESS;
}

static doca_error_t cb_positive(const char *flag, int v, int max, int *out)
{
	if (v < 1 || v > max) {
		fprintf(stderr, "odma-bench: %s %d is out of range 1..%d\n", flag, v, max);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*out = v;
	return DOCA_SUCCESS;
}

static bool depth_given; /* --rdma keeps its own default (8) unless --depth names one */

static doca_error_t cb_depth(void *p, void *c)
{
	int v = 0;
	doca_error_t rc = cb_positive("--depth", *(int *)p, 65536, &v);

	(void)c;
	cfg.depth = (uint32_t)v;
	depth_given = true;
	return rc;
}

static doca_error_t cb_reps(void *p, void *c)
{
	(void)c;
	return cb_positive("--reps", *(int *)p, 99, &cfg.reps);
}

static doca_error_t cb_workers(void *p, void *c)
{
	(void)c;
	return cb_positive("--workers", *(int *)p, 256, &cfg.workers);
}

/* 1..1024 here (the bufs of a run: 2 x depth x list_len), and run_bench checks the device's */
static doca_error_t cb_list_len(void *p, void *c)
{
	int v = *(int *)p;

	(void)c;
	if (v < 1 || v > 1024) {
		fprintf(stderr,
		        "odma-bench: --list-len %d is out of range 1..1024 (and at most "
		        "the device's max_buf_list_len, 64 on the built-in profiles)\n",
		        v);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg.list_len = (uint32_t)v;
	return DOCA_SUCCESS;
}

static doca_error_t cb_seconds(void *p, void *c)
{
	char *end;

	(void)c;
	cfg.seconds = strtod(p, &end);
	if (*end != '\0' || !(cfg.seconds > 0 && cfg.seconds <= 3600)) {
		fprintf(stderr, "odma-bench: --seconds \"%s\" must be a number in (0, 3600]\n",
		        (char *)p);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t cb_engine(void *p, void *c)
{
	(void)c;
	if (strcmp(p, "inline") != 0 && strcmp(p, "thread") != 0) {
		fprintf(stderr, "odma-bench: --engine \"%s\": use inline or thread\n", (char *)p);
		return DOCA_ERROR_INVALID_VALUE;
	}
	snprintf(cfg.engine, sizeof(cfg.engine), "%s", (char *)p);
	return DOCA_SUCCESS;
}

static bool transport_given; /* --transport: only with --xproc */

static doca_error_t cb_transport(void *p, void *c)
{
	(void)c;
	if (strcmp(p, "ucx") != 0 && strcmp(p, "process") != 0) {
		fprintf(stderr, "odma-bench: --transport \"%s\": use process or ucx\n", (char *)p);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg.ucx = strcmp(p, "ucx") == 0;
	transport_given = true;
	return DOCA_SUCCESS;
}

static doca_error_t cb_mode(void *p, void *c)
{
	static const char *names[] = { "throughput", "latency", "event" };

	(void)c;
	for (int i = 0; i < 3; i++)
		if (strcmp(p, names[i]) == 0) {
			cfg.mode = (enum bench_mode)i;
			return DOCA_SUCCESS;
		}
	fprintf(stderr, "odma-bench: --mode \"%s\": use throughput, latency or event\n", (char *)p);
	return DOCA_ERROR_INVALID_VALUE;
}

static doca_error_t cb_peer(void *p, void *c)
{
	(void)c;
	if (strcmp(p, "dpdk") != 0) {
		fprintf(stderr, "odma-bench: --peer \"%s\": the only peer is dpdk\n", (char *)p);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg.peer_dpdk = true;
	return DOCA_SUCCESS;
}

static doca_error_t cb_busy(void *p, void *c)
{
	char *end;
	double v = strtod(p, &end);

	(void)c;
	if (*end != '\0' || !(v > 0 && v <= 1e9)) {
		fprintf(stderr,
		        "odma-bench: --busy-threshold \"%s\" must be nanoseconds in (0, 1e9]\n",
		        (char *)p);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg.busy_ns = v;
	return DOCA_SUCCESS;
}

static bool trace_given; /* --trace FILE, in ODMA_TRACE (doca_argp frees its string) */

/* --trace: ODMA_TRACE for the run's PEs (read at the first doca_pe_create, after parsing) */
static doca_error_t cb_trace(void *p, void *c)
{
	(void)c;
	if (strlen(p) == 0) {
		fprintf(stderr, "odma-bench: --trace needs a file name\n");
		return DOCA_ERROR_INVALID_VALUE;
	}
	trace_given = true;
	if (setenv("ODMA_TRACE", p, 1) != 0) {
		fprintf(stderr, "odma-bench: --trace: cannot set ODMA_TRACE: %s\n",
		        strerror(errno));
		return DOCA_ERROR_NO_MEMORY;
	}
	return DOCA_SUCCESS;
}

static doca_error_t cb_plot(void *p, void *c)
{
	(void)c;
	if (strlen(p) == 0 || strlen(p) >= sizeof(plot_path)) {
		fprintf(stderr, "odma-bench: --plot needs a file name (FILE.svg)\n");
		return DOCA_ERROR_INVALID_VALUE;
	}
	snprintf(plot_path, sizeof(plot_path), "%s", (char *)p);
	cfg.plot = plot_path;
	return DOCA_SUCCESS;
}

BENCH_BOOL_CB(cb_cold, cfg.cold)
BENCH_BOOL_CB(cb_sweep, cfg.sweep)
BENCH_BOOL_CB(cb_crossover, cfg.crossover)
BENCH_BOOL_CB(cb_comch, cfg.comch)
BENCH_BOOL_CB(cb_rdma, cfg.rdma)
BENCH_BOOL_CB(cb_sync_event, cfg.sync_event)
BENCH_BOOL_CB(cb_csv, cfg.csv)
BENCH_BOOL_CB(cb_no_pingpong, cfg.no_pingpong)
BENCH_BOOL_CB(cb_xproc, cfg.xproc)
BENCH_BOOL_CB(cb_netns, cfg.netns)

static doca_error_t cb_eal(int argc, char **argv)
{
	bench_dpdk_set_eal_args(argc, argv);
	return DOCA_SUCCESS;
}

static void print_help(void)
{
	fputs(bench_help, stdout);
}

static int register_params(void)
{
	const enum doca_argp_type S = DOCA_ARGP_TYPE_STRING, I = DOCA_ARGP_TYPE_INT,
	                          B = DOCA_ARGP_TYPE_BOOLEAN;

	return bench_add_param("s", "size", "<size>", "bytes per copy (K/M/G suffixes)", S, cb_size,
	                       false) ||
	       bench_add_param("d", "depth", "<n>", "tasks in flight", I, cb_depth, false) ||
	       bench_add_param("t", "seconds", "<sec>", "measuring time per size", S, cb_seconds,
	                       false) ||
	       bench_add_param(NULL, "reps", "<n>", "repetitions (medians are reported)", I,
	                       cb_reps, false) ||
	       bench_add_param("e", "engine", "<name>", "odma engine: inline or thread", S,
	                       cb_engine, false) ||
	       bench_add_param("w", "workers", "<n>", "engine worker threads", I, cb_workers,
	                       false) ||
	       bench_add_param(NULL, "list-len", "<n>", "source/destination list elements", I,
	                       cb_list_len, false) ||
	       bench_add_param("m", "mode", "<mode>", "throughput, latency or event", S, cb_mode,
	                       false) ||
	       bench_add_param(NULL, "cold", NULL, "walk a footprint larger than the LLC", B,
	                       cb_cold, false) ||
	       bench_add_param(NULL, "footprint", "<size>", "bytes a cold walk covers (src+dst)", S,
	                       cb_footprint, false) ||
	       bench_add_param(NULL, "sweep", NULL, "sizes 64 B to 64 MiB", B, cb_sweep, false) ||
	       bench_add_param(NULL, "crossover", NULL, "measure the DMA/memcpy one-shot crossover",
	                       B, cb_crossover, false) ||
	       bench_add_param(NULL, "comch", NULL, "measure DOCA Comch between two processes", B,
	                       cb_comch, false) ||
	       bench_add_param(NULL, "rdma", NULL,
	                       "measure DOCA RDMA read/write/send "
	                       "between two processes beside raw TCP",
	                       B, cb_rdma, false) ||
	       bench_add_param(NULL, "sync-event", NULL,
	                       "measure a DOCA sync event's round trip between two processes", B,
	                       cb_sync_event, false) ||
	       bench_add_param(NULL, "csv", NULL, "CSV output", B, cb_csv, false) ||
	       bench_add_param(NULL, "no-pingpong", NULL, "skip the ping-pong measurements", B,
	                       cb_no_pingpong, false) ||
	       bench_add_param(NULL, "peer", "<dpdk>", "also run DPDK's dma_skeleton", S, cb_peer,
	                       false) ||
	       bench_add_param(NULL, "xproc", NULL,
	                       "cross-process reads (two processes) beside raw process_vm_readv", B,
	                       cb_xproc, false) ||
	       bench_add_param(
	               NULL, "transport", "<process|ucx>",
	               "with --xproc: the transport (ucx: beside raw ucp_get_nbx/ucp_put_nbx)", S,
	               cb_transport, false) ||
	       bench_add_param(NULL, "busy-threshold", "<ns>",
	                       "warn when the same-run ping-pong is above this", S, cb_busy,
	                       false) ||
	       bench_add_param(NULL, "plot", "<file.svg>", "draw the sweep as an SVG chart", S,
	                       cb_plot, false) ||
	       bench_add_param(NULL, "trace", "<file>",
	                       "write the run's task timeline (ODMA_TRACE)", S, cb_trace, false) ||
	       bench_add_param(NULL, "netns", NULL,
	                       "with --transport ucx: the two sides in two network namespaces "
	                       "joined by a veth pair (root)",
	                       B, cb_netns, false);
}

/*
 * odma bench's command line is its flags, then "--" and the DPDK peer's EAL flags; doca_argp
 * reads a DPDK program's line the DOCA way round (EAL flags, "--", then the program's flags),
 * so the two parts change places: argv[0], the EAL flags, "--", the flags. NULL on no memory.
 */
static char **eal_first(int *argc, char **argv)
{
	static char dashdash[] = "--";
	char **out = calloc((size_t)*argc + 2, sizeof(*out));
	int flags_end = 1, n = 0;

	if (out == NULL)
		return NULL;
	while (flags_end < *argc && strcmp(argv[flags_end], "--") != 0)
		flags_end++;
	out[n++] = argv[0];
	for (int i = flags_end + 1; i < *argc; i++)
		out[n++] = argv[i];
	out[n++] = dashdash;
	for (int i = 1; i < flags_end; i++)
		out[n++] = argv[i];
	*argc = n;
	return out;
}

/* bench_prefilter takes -h (our own manual), --man and --json (the output format) before
 * doca_argp parses the rest. */
static int parse_flags(int argc, char **argv)
{
	struct doca_log_backend *be;
	doca_error_t rc;
	char **args;

	argc = bench_prefilter(argc, argv, print_help, &cfg.json);
	doca_log_backend_create_standard();
	doca_log_backend_create_with_file_sdk(stderr, &be);
	if (doca_argp_init("odma bench", &cfg) != DOCA_SUCCESS)
		return -1;
	doca_priv_argp_callbacks_explain(); /* each cb_* prints its own one-line refusal */
	if (register_params() != 0)
		return -1;
	doca_argp_set_dpdk_program(cb_eal);
	args = eal_first(&argc, argv);
	if (args == NULL)
		return -1;
	rc = doca_argp_start(argc, args); /* cb_eal keeps copies of the EAL flags */
	free(args);
	return rc == DOCA_SUCCESS ? 0 : -1;
}

/* ------------------------------------------------------------------ measuring */

static const char *mode_name(void)
{
	return cfg.mode == BENCH_LATENCY ? "latency"
	       : cfg.mode == BENCH_EVENT ? "event"
	                                 : "throughput";
}

static const char *engine_name(void)
{
	const char *e = getenv("ODMA_ENGINE");

	return e != NULL && *e != '\0' ? e : "default";
}

/* Medians of the repetitions into one result. */
static void summarise(struct bench_result *res, struct bench_rep *reps, int n, size_t task_size)
{
	double tps[99], p50[99], p99[99];

	res->valid = true;
	res->verified = true;
	res->tasks = 0;
	res->seconds = 0;
	for (int i = 0; i < n; i++) {
		tps[i] = reps[i].seconds > 0 ? (double)reps[i].tasks / reps[i].seconds : 0;
		p50[i] = reps[i].p50_ns;
		p99[i] = reps[i].p99_ns;
		res->tasks += reps[i].tasks;
		res->seconds += reps[i].seconds;
		res->verified &= reps[i].verified;
	}
	res->tasks_per_sec = bench_median(tps, n);
	res->bytes_per_sec = res->tasks_per_sec * (double)task_size;
	res->p50_ns = bench_median(p50, n);
	res->p99_ns = bench_median(p99, n);
}

static int measure(struct bench_odma *ob, const struct bench_mem *m, struct bench_out *o)
{
	struct bench_rep ro[99] = { 0 }, rm[99] = { 0 }, rp[99] = { 0 }, rh[99] = { 0 },
	                 rt[99] = { 0 }, rs[99] = { 0 };
	bool streams = cfg.mode == BENCH_THROUGHPUT && m->task_size >= BENCH_STREAM_MIN;
	double rep_s = cfg.seconds / cfg.reps;
	bool peer_ok = cfg.peer_dpdk;

	for (int i = 0; i < cfg.reps; i++) {
		bench_progress_start("odma", rep_s, cfg.seconds);
		if (bench_odma_rep(ob, &cfg, m, rep_s, &ro[i], o->odma.error,
		                   sizeof(o->odma.error)) != 0) {
			bench_progress_end();
			return -1;
		}
		bench_progress_end();
		bench_memcpy_rep(m, rep_s, &rm[i]);
		if (o->threads > 1 && cfg.mode == BENCH_THROUGHPUT)
			bench_memcpy_mt_rep(m, rep_s, o->threads, &rt[i]);
		if (streams)
			bench_stream_mt_rep(m, rep_s, o->threads, &rs[i]);
		if (cfg.mode == BENCH_THROUGHPUT && cfg.list_len <= 1)
			bench_harness_rep(&cfg, m, rep_s / 4, &rh[i]);
		bench_progress_start("dpdk", rep_s, cfg.seconds);
		if (peer_ok && bench_dpdk_rep(&cfg, m, rep_s, &rp[i], o->peer.error,
		                              sizeof(o->peer.error)) != 0)
			peer_ok = false;
		bench_progress_end();
	}
	summarise(&o->odma, ro, cfg.reps, m->task_size);
	summarise(&o->mc, rm, cfg.reps, m->task_size);
	if (o->threads > 1 && cfg.mode == BENCH_THROUGHPUT)
		summarise(&o->mcmt, rt, cfg.reps, m->task_size);
	else
		o->mcmt = o->mc; /* one thread: the single-thread memcpy is the limit */
	if (streams)
		summarise(&o->stmt, rs, cfg.reps, m->task_size);
	if (cfg.mode == BENCH_THROUGHPUT && cfg.list_len <= 1)
		summarise(&o->harness, rh, cfg.reps, m->task_size);
	if (peer_ok)
		summarise(&o->peer, rp, cfg.reps, m->task_size);
	return 0;
}

/* ------------------------------------------------------------------ output */

static void json_engine(const struct bench_result *r, bool lat)
{
	printf("\"tasks\": %llu, \"seconds\": %.4f, \"tasks_per_sec\": %.1f, \"bytes_per_sec\": "
	       "%.1f, \"verified\": %s",
	       (unsigned long long)r->tasks, r->seconds, r->tasks_per_sec, r->bytes_per_sec,
	       r->verified ? "true" : "false");
	if (lat)
		printf(", \"latency_ns\": {\"p50\": %.1f, \"p99\": %.1f}", r->p50_ns, r->p99_ns);
}

static void print_json(const struct bench_out *o, const struct bench_mem *m)
{
	bool lat = cfg.mode != BENCH_THROUGHPUT;

	printf("{\"engine\": \"%s\", \"mode\": \"%s\", \"size\": %zu, \"task_size\": %zu, "
	       "\"list_len\": %u, \"depth\": %u, \"cache\": \"%s\", \"footprint_bytes\": %zu, ",
	       engine_name(), mode_name(), o->size, m->task_size, cfg.list_len, cfg.depth,
	       cfg.cold ? "cold" : "hot", 2 * m->n_slots * m->stride);
	json_engine(&o->odma, lat);
	printf(", \"memcpy_bytes_per_sec\": %.1f, \"memcpy_tasks_per_sec\": %.1f, "
	       "\"memcpy_verified\": %s, \"pingpong_ns\": %.1f",
	       o->mc.bytes_per_sec, o->mc.tasks_per_sec, o->mc.verified ? "true" : "false",
	       pingpong_ns);
	printf(", \"busy\": %s, \"busy_threshold_ns\": %.0f", busy ? "true" : "false", cfg.busy_ns);
	printf(", \"memcpy_threads\": %d, \"memcpy_mt_bytes_per_sec\": %.1f, \"ratio_memcpy\": "
	       "%.3f, \"ratio_memcpy_mt\": %.3f",
	       o->threads, o->mcmt.bytes_per_sec,
	       o->mc.bytes_per_sec > 0 ? o->odma.bytes_per_sec / o->mc.bytes_per_sec : 0,
	       o->mcmt.bytes_per_sec > 0 ? o->odma.bytes_per_sec / o->mcmt.bytes_per_sec : 0);
	if (o->stmt.valid)
		printf(", \"stream_mt_bytes_per_sec\": %.1f, \"ratio_stream_mt\": %.3f",
		       o->stmt.bytes_per_sec,
		       o->stmt.bytes_per_sec > 0 ? o->odma.bytes_per_sec / o->stmt.bytes_per_sec
		                                 : 0);
	if (cfg.mode == BENCH_EVENT)
		printf(", \"eventfd_pingpong_ns\": %.1f", efd_pingpong_ns);
	if (o->harness.valid)
		printf(", \"harness_tasks_per_sec\": %.1f", o->harness.tasks_per_sec);
	if (cfg.peer_dpdk && o->peer.valid) {
		printf(", \"peer\": {\"name\": \"dpdk dma_skeleton\", "
		       "\"size\": %zu, \"depth\": %u, ",
		       o->size, cfg.depth);
		json_engine(&o->peer, lat);
		printf(", \"memcpy_bytes_per_sec\": %.1f, \"pingpong_ns\": %.1f}",
		       o->mc.bytes_per_sec, pingpong_ns);
	} else if (cfg.peer_dpdk) {
		printf(", \"peer\": {\"error\": \"%s\"}", o->peer.error);
	}
	printf("}");
}

static void print_csv(const struct bench_out *o, const struct bench_mem *m, bool header)
{
	if (header)
		printf("engine,mode,cache,size,task_size,depth,list_len,tasks_per_sec,bytes_per_"
		       "sec,p50_ns,p99_ns,"
		       "memcpy_bytes_per_sec,peer_tasks_per_sec,peer_bytes_per_sec,peer_p50_ns,"
		       "peer_p99_ns,pingpong_ns,"
		       "harness_tasks_per_sec,memcpy_threads,memcpy_mt_bytes_per_sec,"
		       "stream_mt_bytes_per_sec\n");
	printf("%s,%s,%s,%zu,%zu,%u,%u,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%d,%."
	       "1f,%.1f\n",
	       engine_name(), mode_name(), cfg.cold ? "cold" : "hot", o->size, m->task_size,
	       cfg.depth, cfg.list_len, o->odma.tasks_per_sec, o->odma.bytes_per_sec,
	       o->odma.p50_ns, o->odma.p99_ns, o->mc.bytes_per_sec, o->peer.tasks_per_sec,
	       o->peer.bytes_per_sec, o->peer.p50_ns, o->peer.p99_ns, pingpong_ns,
	       o->harness.tasks_per_sec, o->threads, o->mcmt.bytes_per_sec,
	       o->stmt.valid ? o->stmt.bytes_per_sec : 0.0);
}

/* What each column means, printed once above them: the ratios are odma / the baseline. */
static void print_legend(const struct bench_out *o)
{
	bool tp = cfg.mode == BENCH_THROUGHPUT;

	printf("# legend: size = bytes per copy; Mtasks/s, GB/s = odma, DOCA DMA tasks end to "
	       "end;\n"
	       "#   memcpy = GB/s of one thread's memcpy on the same buffers in the same run;\n"
	       "#   x mc = odma GB/s / memcpy GB/s (above 1: odma moved more bytes per second, "
	       "below 1: fewer)\n");
	if (tp)
		printf("#   mc x%d = GB/s of memcpy on %d threads (as many as the engine copies "
		       "on); x mcN = odma GB/s / mc x%d\n",
		       o->threads, o->threads, o->threads);
	else
		printf("#   p50/p99 = submit-to-callback time of one task, ns (depth 1)\n");
	if (tp && (cfg.sweep || o->stmt.valid))
		printf("#   stream xN = a streaming-store copy on N threads (tasks of 64 KiB and "
		       "more), (x R) = odma GB/s / it\n");
	if (o->harness.valid)
		printf("#   harness = tasks/s of the measuring loop with the copy replaced by "
		       "nothing (the loop's own ceiling)\n");
	if (cfg.peer_dpdk)
		printf("#   dpdk-* = DPDK dma_skeleton on the same buffers; x dpdk = odma tasks/s "
		       "/ DPDK tasks/s\n");
	if (cfg.mode == BENCH_EVENT)
		printf("#   eventfd ping-pong = p50 round trip of a raw eventfd between two "
		       "threads\n");
}

static void print_header(const struct bench_out *o)
{
	bool tp = cfg.mode == BENCH_THROUGHPUT;
	char mt_head[16];

	snprintf(mt_head, sizeof(mt_head), "mc x%d", o->threads);
	printf("# engine=%s mode=%s depth=%u list_len=%u cache=%s reps=%d pingpong=%.0f ns%s\n",
	       engine_name(), mode_name(), cfg.depth, cfg.list_len, cfg.cold ? "cold" : "hot",
	       cfg.reps, pingpong_ns, busy ? " (BUSY: see the warning)" : "");
	print_legend(o);
	printf("%8s %10s %9s %8s", "size", "Mtasks/s", "GB/s", "memcpy");
	if (!tp)
		printf(" %9s", "p50/p99");
	printf(" %6s", "x mc");
	if (tp)
		printf(" %8s %6s", mt_head, "x mcN");
	printf("%s\n", cfg.peer_dpdk ? "   dpdk-Mt/s  dpdk-GB/s  dpdk-p50/p99  x dpdk" : "");
}

static void print_text(const struct bench_out *o, bool header)
{
	bool tp = cfg.mode == BENCH_THROUGHPUT;
	char sz[32];

	if (header)
		print_header(o);
	bench_fmt_size(o->size, sz, sizeof(sz));
	printf("%8s %10.3f %9.2f %8.2f", sz, o->odma.tasks_per_sec / 1e6,
	       o->odma.bytes_per_sec / 1e9, o->mc.bytes_per_sec / 1e9);
	if (!tp)
		printf(" %4.0f/%-4.0f", o->odma.p50_ns, o->odma.p99_ns);
	printf(" %6.2f", o->mc.bytes_per_sec > 0 ? o->odma.bytes_per_sec / o->mc.bytes_per_sec : 0);
	if (tp)
		printf(" %8.2f %6.2f", o->mcmt.bytes_per_sec / 1e9,
		       o->mcmt.bytes_per_sec > 0 ? o->odma.bytes_per_sec / o->mcmt.bytes_per_sec
		                                 : 0);
	if (cfg.peer_dpdk && o->peer.valid)
		printf("   %9.3f  %9.2f  %5.0f/%-6.0f %6.2f", o->peer.tasks_per_sec / 1e6,
		       o->peer.bytes_per_sec / 1e9, o->peer.p50_ns, o->peer.p99_ns,
		       o->odma.tasks_per_sec / o->peer.tasks_per_sec);
	else if (cfg.peer_dpdk)
		printf("   dpdk: %s", o->peer.error);
	if (o->stmt.valid && o->stmt.bytes_per_sec > 0)
		printf("   stream x%d %.2f GB/s (x %.2f)", o->threads, o->stmt.bytes_per_sec / 1e9,
		       o->odma.bytes_per_sec / o->stmt.bytes_per_sec);
	if (cfg.mode == BENCH_EVENT)
		printf("   eventfd ping-pong p50 %.0f ns", efd_pingpong_ns);
	if (o->harness.valid)
		printf("   harness %.1f Mt/s", o->harness.tasks_per_sec / 1e6);
	printf("%s\n", o->odma.verified && o->mc.verified && (!o->stmt.valid || o->stmt.verified)
	                       ? ""
	                       : "   NOT VERIFIED");
}

static void print_one(const struct bench_out *o, const struct bench_mem *m, int idx, int n)
{
	if (cfg.json) {
		printf("%s", n > 1 ? (idx == 0 ? "[" : ",\n ") : "");
		print_json(o, m);
		printf("%s", n > 1 && idx == n - 1 ? "]\n" : n > 1 ? "" : "\n");
	} else if (cfg.csv) {
		print_csv(o, m, idx == 0);
	} else {
		print_text(o, idx == 0);
	}
	fflush(stdout);
}

/* ------------------------------------------------------------------ main */

static const size_t sweep_sizes[] = { 64,     256,     1024,    4096,    16384,    65536,
	                              262144, 1048576, 2097152, 4194304, 16777216, 67108864 };

static int run_crossover(void)
{
	struct bench_cross x;
	char err[160];
	int rc = bench_crossover(cfg.seconds / 9, &x, err, sizeof(err));

	if (rc != 0) {
		fprintf(stderr, "odma-bench: crossover: %s\n", err);
		return 1;
	}
	if (cfg.json)
		printf("{\"engine\": \"%s\", \"crossover_bytes\": %zu, \"slack\": %.2f, "
		       "\"advise_default_bytes\": %u, \"emulated\": true, \"points\": [",
		       engine_name(), x.crossover, BENCH_CROSS_SLACK, BENCH_CROSS_DEFAULT);
	else
		printf("# one-shot copy, depth 1, cache-hot, engine=%s: p50 ns\n%8s %10s %10s "
		       "%7s\n",
		       engine_name(), "size", "dma", "memcpy", "ratio");
	for (int i = 0; i < x.n; i++)
		if (cfg.json)
			printf("%s{\"size\": %zu, \"dma_p50_ns\": %.1f, \"memcpy_p50_ns\": %.1f}",
			       i ? ", " : "", x.size[i], x.dma_p50_ns[i], x.memcpy_p50_ns[i]);
		else
			printf("%8zu %10.0f %10.0f %7.2f\n", x.size[i], x.dma_p50_ns[i],
			       x.memcpy_p50_ns[i],
			       x.dma_p50_ns[i] / (x.memcpy_p50_ns[i] > 0 ? x.memcpy_p50_ns[i] : 1));
	if (cfg.json)
		printf("]}\n");
	else
		printf("crossover: %zu bytes (DMA within %.0f %% of memcpy from here up), measured "
		       "on odma's software emulation, not on hardware\n"
		       "odma advise without --measure uses its compiled-in default, %u bytes "
		       "(docs/performance.md); odma advise --measure measures it as this run did\n",
		       x.crossover, (BENCH_CROSS_SLACK - 1) * 100, BENCH_CROSS_DEFAULT);
	return 0;
}

/* odma / baseline, or 0 when the baseline is missing. */
static double ratio(double a, double b)
{
	return b > 0 ? a / b : 0;
}

static void rdma_json_row(const struct bench_rdma *r)
{
	printf("{\"emulated\": true, \"transport\": \"ucx-tcp\", \"link\": \"%s\", \"netns\": %s, "
	       "\"size\": %zu, \"depth\": %u, \"read_bytes_per_sec\": %.1f, "
	       "\"write_bytes_per_sec\": %.1f, "
	       "\"send_msg_size\": %zu, \"send_msgs_per_sec\": %.1f, \"raw_tcp_bytes_per_sec\": "
	       "%.1f, \"read_vs_tcp\": %.3f, \"write_vs_tcp\": %.3f, "
	       "\"raw_tcp_slots_bytes_per_sec\": %.1f, \"read_vs_tcp_slots\": %.3f, "
	       "\"write_vs_tcp_slots\": %.3f, \"reps\": %d",
	       bench_link(), r->netns ? "true" : "false", r->size, r->depth, r->read_bytes_per_sec,
	       r->write_bytes_per_sec, r->send_msg_size, r->send_msgs_per_sec,
	       r->raw_tcp_bytes_per_sec, ratio(r->read_bytes_per_sec, r->raw_tcp_bytes_per_sec),
	       ratio(r->write_bytes_per_sec, r->raw_tcp_bytes_per_sec),
	       r->raw_tcp_slots_bytes_per_sec,
	       ratio(r->read_bytes_per_sec, r->raw_tcp_slots_bytes_per_sec),
	       ratio(r->write_bytes_per_sec, r->raw_tcp_slots_bytes_per_sec), r->reps);
	if (r->raw_ucx)
		printf(", \"raw_ucx\": {\"tls\": \"tcp\", \"get_bytes_per_sec\": %.1f, "
		       "\"put_bytes_per_sec\": %.1f, \"am_msgs_per_sec\": %.1f}, "
		       "\"read_vs_get\": %.3f, \"write_vs_put\": %.3f, \"send_vs_am\": %.3f",
		       r->ucx_get_bytes_per_sec, r->ucx_put_bytes_per_sec, r->ucx_am_msgs_per_sec,
		       ratio(r->read_bytes_per_sec, r->ucx_get_bytes_per_sec),
		       ratio(r->write_bytes_per_sec, r->ucx_put_bytes_per_sec),
		       ratio(r->send_msgs_per_sec, r->ucx_am_msgs_per_sec));
	else
		printf(", \"raw_ucx\": null");
	printf("}");
}

static void rdma_text_row(const struct bench_rdma *r)
{
	char sz[32];

	bench_fmt_size(r->size, sz, sizeof(sz));
	printf("%-8s %5u %7.2f %7.2f %5.2fx %7.2f %7.2f %5.2fx %9.0f %9.0f %5.2fx %7.2f %5.2fx "
	       "%5.2fx %7.2f %5.2fx %5.2fx\n",
	       sz, r->depth, r->read_bytes_per_sec / 1e9, r->ucx_get_bytes_per_sec / 1e9,
	       ratio(r->read_bytes_per_sec, r->ucx_get_bytes_per_sec), r->write_bytes_per_sec / 1e9,
	       r->ucx_put_bytes_per_sec / 1e9,
	       ratio(r->write_bytes_per_sec, r->ucx_put_bytes_per_sec), r->send_msgs_per_sec,
	       r->ucx_am_msgs_per_sec, ratio(r->send_msgs_per_sec, r->ucx_am_msgs_per_sec),
	       r->raw_tcp_bytes_per_sec / 1e9,
	       ratio(r->read_bytes_per_sec, r->raw_tcp_bytes_per_sec),
	       ratio(r->write_bytes_per_sec, r->raw_tcp_bytes_per_sec),
	       r->raw_tcp_slots_bytes_per_sec / 1e9,
	       ratio(r->read_bytes_per_sec, r->raw_tcp_slots_bytes_per_sec),
	       ratio(r->write_bytes_per_sec, r->raw_tcp_slots_bytes_per_sec));
}

/*
 * One row measured in a process of its own: UCX does not survive a fork, and each row forks its
 * responder, so no process that measured a row forks another. @run fills @row (@size bytes)
 * there; the row, @run's result and its error come back on a pipe.
 */
static int row_apart(int (*run)(void *row, char *err, size_t errlen, const void *arg),
                     const void *arg, void *row, size_t size, char *err, size_t errlen)
{
	struct {
		_Alignas(max_align_t) uint8_t row[256]; /* a struct's bytes: aligned as one */
		int rc;
		char err[200];
	} res = { .rc = -1 };
	int fd[2], st = 0;
	ssize_t got = 0;
	pid_t pid;

	if (size > sizeof(res.row) || pipe(fd) != 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(fd[0]);
		res.rc = run(res.row, res.err, sizeof(res.err), arg);
		/* exit, not _exit: this process set up UCX itself, and --trace writes at exit */
		exit(write(fd[1], &res, sizeof(res)) == (ssize_t)sizeof(res) ? 0 : 1);
	}
	close(fd[1]);
	if (pid > 0)
		got = read(fd[0], &res, sizeof(res));
	close(fd[0]);
	if (pid > 0)
		(void)waitpid(pid, &st, 0);
	if (pid < 0 || got != (ssize_t)sizeof(res)) {
		snprintf(err, errlen, "the measuring process failed (status 0x%x)", st);
		return -1;
	}
	memcpy(row, res.row, size);
	snprintf(err, errlen, "%s", res.err);
	return res.rc;
}

struct rdma_arg {
	size_t size;
	unsigned int depth;
};

static int rdma_run_row(void *row, char *err, size_t errlen, const void *arg)
{
	const struct rdma_arg *a = arg;

	return bench_rdma_run(a->size, a->depth, cfg.seconds, cfg.reps, cfg.netns, row, err,
	                      errlen);
}

/* One --rdma row (row_apart). */
static int rdma_row(size_t size, unsigned int depth, struct bench_rdma *r, char *err, size_t errlen)
{
	struct rdma_arg a = { size, depth };

	return row_apart(rdma_run_row, &a, r, sizeof(*r), err, errlen);
}

/*
 * --rdma --plot: DOCA RDMA read and write beside raw UCX get and put and the raw TCP stream,
 * GB/s by size at one depth (the network's picture beside the DMA sweep's).
 */
static int rdma_plot_write(const size_t *sizes, const struct bench_rdma *rows, int n,
                           unsigned int depth)
{
	struct bench_plot_series s[6];
	char title[200], caption[400];
	int rc;

	memset(s, 0, sizeof(s));
	snprintf(s[0].name, sizeof(s[0].name), "odma RDMA read");
	snprintf(s[1].name, sizeof(s[1].name), "odma RDMA write");
	snprintf(s[2].name, sizeof(s[2].name), "raw UCX get");
	snprintf(s[3].name, sizeof(s[3].name), "raw UCX put");
	snprintf(s[4].name, sizeof(s[4].name), "raw TCP stream, one buffer");
	snprintf(s[5].name, sizeof(s[5].name), "raw TCP stream, same slots");
	for (int k = 2; k < 6; k++)
		s[k].dashed = true;
	for (int i = 0; i < n; i++) {
		const double v[6] = {
			rows[i].read_bytes_per_sec,    rows[i].write_bytes_per_sec,
			rows[i].ucx_get_bytes_per_sec, rows[i].ucx_put_bytes_per_sec,
			rows[i].raw_tcp_bytes_per_sec, rows[i].raw_tcp_slots_bytes_per_sec
		};

		for (int k = 0; k < 6; k++) {
			s[k].has[i] = v[k] > 0 && (k < 2 || k >= 4 || rows[i].raw_ucx);
			s[k].gbps[i] = v[k] / 1e9;
		}
	}
	snprintf(title, sizeof(title),
	         "odma bench --rdma: GB/s by transfer size (two processes, %u in flight)", depth);
	snprintf(caption, sizeof(caption),
	         "%ld CPUs; %.2f s per size; every series from the same run, over loopback TCP "
	         "(UCX_TLS=tcp).\nEmulated: odma carries DOCA RDMA over TCP, not an RDMA NIC.",
	         sysconf(_SC_NPROCESSORS_ONLN), cfg.seconds);
	rc = bench_plot_write(plot_file, title, "transfer size", caption, sizes, n, s, 6);
	if (fclose(plot_file) != 0)
		rc = -1;
	plot_file = NULL;
	if (rc != 0)
		fprintf(stderr, "odma-bench: --plot: cannot write %s\n", cfg.plot);
	else if (!cfg.json)
		printf("# plot: %s (6 series)\n", cfg.plot);
	return rc == 0 ? 0 : 1;
}

/*
 * --rdma: one size and depth (8 unless --depth), or with --sweep 4 KiB, 64 KiB and 1 MiB at
 * depths 1, 8 and 32 (or --depth's), each with its raw UCX and raw TCP rows from the same run.
 */
static int run_rdma(void)
{
	static const size_t sweep_sizes[] = { 4096, 65536, 1u << 20 };
	static const size_t plot_sizes[] = { 4096, 16384, 65536, 262144, 1u << 20 };
	static const unsigned int sweep_depths[] = { 1, 8, 32 };
	struct bench_rdma rows[5];
	size_t sizes[5] = { cfg.size };
	unsigned int depths[3] = { depth_given ? cfg.depth : 8 };
	size_t ns = 1, nd = 1;
	char err[200];

	if (cfg.plot != NULL) {
		memcpy(sizes, plot_sizes, sizeof(plot_sizes));
		ns = 5;
	} else if (cfg.sweep) {
		memcpy(sizes, sweep_sizes, sizeof(sweep_sizes));
		ns = 3;
		if (!depth_given) {
			memcpy(depths, sweep_depths, sizeof(depths));
			nd = 3;
		}
	}
	if (cfg.json)
		printf(ns * nd > 1 ? "{\"rdma_sweep\": [" : "{\"rdma\": ");
	else
		printf("# DOCA RDMA between two processes (emulated: odma's UCX transport over\n"
		       "# TCP, not an RDMA NIC). GB/s and msg/s of odma's tasks beside raw UCX\n"
		       "# (UCX_TLS=tcp: get, put, active messages) and a raw TCP stream over the\n"
		       "# same link (%s), all from this run; a ratio is odma / the baseline "
		       "before\n"
		       "# it (x/get, x/put, x/am; then read and write over raw TCP: tcp from one\n"
		       "# hot buffer, slots from the depth's slots into one sink buffer, as the "
		       "raw\n"
		       "# UCX rows). Sends are min(size, 64 KiB) bytes. Medians of %d interleaved\n"
		       "# repetitions.\n"
		       "%-8s %5s %7s %7s %6s %7s %7s %6s %9s %9s %6s %7s %6s %6s %7s %6s %6s\n",
		       cfg.netns ? "a veth pair between two network namespaces" : "loopback",
		       cfg.reps, "size", "depth", "read", "get", "x/get", "write", "put", "x/put",
		       "send/s", "am/s", "x/am", "tcp", "rd/tcp", "wr/tcp", "slots", "rd/sl",
		       "wr/sl");
	for (size_t i = 0; i < ns; i++)
		for (size_t j = 0; j < nd; j++) {
			struct bench_rdma r;

			if (rdma_row(sizes[i], depths[j], &r, err, sizeof(err)) != 0) {
				if (cfg.json)
					printf("%s\n", ns * nd > 1 ? "]}" : "null}");
				fprintf(stderr, "odma-bench: --rdma: %s\n", err);
				return 1;
			}
			if (cfg.json) {
				printf(i + j == 0 ? "" : ", ");
				rdma_json_row(&r);
			} else {
				rdma_text_row(&r);
			}
			fflush(stdout);
			rows[i] = r; /* one depth when plotting */
		}
	if (cfg.json)
		printf(ns * nd > 1 ? "]}\n" : "}\n");
	return cfg.plot != NULL ? rdma_plot_write(sizes, rows, (int)ns, depths[0]) : 0;
}

static int se_run_row(void *row, char *err, size_t errlen, const void *arg)
{
	(void)arg;
	return bench_se_run(cfg.seconds, cfg.netns, row, err, errlen);
}

/* --sync-event: one row, its raw UCX round trip and the ping-pong from the same run. */
static int run_sync_event(void)
{
	struct bench_se r;
	char err[200];

	if (row_apart(se_run_row, NULL, &r, sizeof(r), err, sizeof(err)) != 0) {
		fprintf(stderr, "odma-bench: --sync-event: %s\n", err);
		return 1;
	}
	if (cfg.json) {
		printf("{\"sync_event\": {\"emulated\": true, \"transport\": \"ucx-tcp\", "
		       "\"link\": \"%s\", \"netns\": %s, \"roundtrip_ns\": %.1f, \"rounds\": %llu, "
		       "\"late_wake_ns\": %.1f, \"ucx_get_rtt_ns\": %.1f, "
		       "\"roundtrip_vs_rtt\": %.3f, \"pingpong_ns\": %.1f}}\n",
		       bench_link(), r.netns ? "true" : "false", r.roundtrip_ns,
		       (unsigned long long)r.rounds, r.late_wake_ns, r.ucx_rtt_ns,
		       ratio(r.roundtrip_ns, r.ucx_rtt_ns), r.pingpong_ns);
		return 0;
	}
	printf("# A DOCA sync event between two processes over odma's UCX transport, TCP over\n"
	       "# %s. A round is a set here, the responder's blocking wait\n"
	       "# waking, its set, and this side's blocking wait waking; a late update is one\n"
	       "# the responder makes 20 ms into this side's wait. Beside them: a raw UCX get\n"
	       "# of 8 bytes (one in flight) to the same process, and two threads' ping-pong,\n"
	       "# from this run.\n"
	       "round trip      %9.1f us  (%llu rounds)\n"
	       "late update     %9.1f us  (from the responder's update 20 ms in to the wait's "
	       "return)\n"
	       "raw UCX get     %9.1f us  (round trip / get: %.2fx)\n"
	       "ping-pong       %9.1f ns\n",
	       r.netns ? "a veth pair between two network namespaces" : "loopback",
	       r.roundtrip_ns / 1e3, (unsigned long long)r.rounds, r.late_wake_ns / 1e3,
	       r.ucx_rtt_ns / 1e3, ratio(r.roundtrip_ns, r.ucx_rtt_ns), r.pingpong_ns);
	return 0;
}

static void comch_json(const struct bench_comch *r)
{
	printf("{\"comch\": {\"emulated\": true, \"netns\": %s, \"size\": %zu, \"msg_size\": 64, "
	       "\"msg_pingpong_ns\": %.1f, \"msg_pingpong_per_sec\": %.1f, "
	       "\"msg_stream_per_sec\": %.1f, \"fastpath_bytes_per_sec\": %.1f, "
	       "\"dma_export_bytes_per_sec\": %.1f, ",
	       r->netns ? "true" : "false", r->size, r->msg_rtt_ns,
	       r->msg_rtt_ns > 0 ? 1e9 / r->msg_rtt_ns : 0, r->msg_per_sec, r->fp_bytes_per_sec,
	       r->dma_bytes_per_sec);
	if (r->netns)
		printf("\"link\": \"%s\", \"raw_tcp_pingpong_ns\": %.1f, "
		       "\"raw_tcp_stream_msgs_per_sec\": %.1f, \"raw_tcp_bytes_per_sec\": %.1f, "
		       "\"fastpath_vs_tcp\": %.3f}}\n",
		       bench_link(), r->raw_rtt_ns, r->raw_msg_per_sec, r->raw_tcp_bytes_per_sec,
		       ratio(r->fp_bytes_per_sec, r->raw_tcp_bytes_per_sec));
	else
		printf("\"raw_seqpacket_pingpong_ns\": %.1f, \"raw_seqpacket_stream_per_sec\": "
		       "%.1f, \"raw_vm_writev_bytes_per_sec\": %.1f}}\n",
		       r->raw_rtt_ns, r->raw_msg_per_sec, r->vm_writev_bytes_per_sec);
}

static const char comch_local_head[] =
        "# DOCA Comch between two processes (emulated: Unix sockets, shared memory and\n"
        "# process_vm_writev on this machine, not a PCIe link); baselines from the same run\n";
static const char comch_net_head[] =
        "# DOCA Comch across a veth pair between two network namespaces (emulated:\n"
        "# odma's %s link, not a PCIe link); baselines from the same run\n";

static void comch_text(const struct bench_comch *r)
{
	const char *raw = r->netns ? "raw TCP, 64 B, each acked" : "raw SOCK_SEQPACKET, 64 B";
	char sz[32];

	bench_fmt_size(r->size, sz, sizeof(sz));
	if (r->netns)
		printf(comch_net_head, bench_link());
	else
		fputs(comch_local_head, stdout);
	printf("control path, 64 B messages    ping-pong %9.0f round trips/s (%.1f us)   stream "
	       "%9.0f msg/s\n",
	       r->msg_rtt_ns > 0 ? 1e9 / r->msg_rtt_ns : 0, r->msg_rtt_ns / 1e3, r->msg_per_sec);
	printf("%-30s ping-pong %9.0f round trips/s (%.1f us)   stream %9.0f msg/s\n", raw,
	       r->raw_rtt_ns > 0 ? 1e9 / r->raw_rtt_ns : 0, r->raw_rtt_ns / 1e3,
	       r->raw_msg_per_sec);
	printf("fast path, %-8s per send    %7.2f GB/s (delivered)\n", sz,
	       r->fp_bytes_per_sec / 1e9);
	if (r->netns)
		printf("raw TCP stream, %-8s        %7.2f GB/s   fast path %.2f x tcp\n", sz,
		       r->raw_tcp_bytes_per_sec / 1e9,
		       ratio(r->fp_bytes_per_sec, r->raw_tcp_bytes_per_sec));
	else
		printf("raw process_vm_writev, %-8s %7.2f GB/s\n", sz,
		       r->vm_writev_bytes_per_sec / 1e9);
	if (r->dma_bytes_per_sec > 0)
		printf("DMA into an export, %-8s    %7.2f GB/s\n", sz, r->dma_bytes_per_sec / 1e9);
	else
		printf("DMA into an export, %-8s    n/a (above max_buf_size)\n", sz);
}

static int run_comch(void)
{
	struct bench_comch r;
	char err[200];

	/* the stream meets full receive queues on purpose: no warning per refused send */
	doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_ERROR);
	if (bench_comch_run(cfg.size, cfg.seconds, cfg.netns, &r, err, sizeof(err)) != 0) {
		fprintf(stderr, "odma-bench: --comch: %s\n", err);
		return 1;
	}
	if (cfg.json)
		comch_json(&r);
	else
		comch_text(&r);
	return 0;
}

/*
 * The two-process rows' own bounds on --size and --depth: a flag value out of range, refused
 * before anything runs (exit 2), as every other one is.
 */
static int check_pair_bounds(void)
{
	if (cfg.comch && cfg.size > BENCH_COMCH_SIZE_MAX) {
		fprintf(stderr, "odma-bench: --comch takes --size 1 to 256M\n");
		return -1;
	}
	if (cfg.rdma &&
	    (cfg.size > BENCH_RDMA_SIZE_MAX || (depth_given && cfg.depth > BENCH_RDMA_DEPTH_MAX))) {
		fprintf(stderr, "odma-bench: --rdma takes --size 1 to 64M, --depth 1 to %u\n",
		        BENCH_RDMA_DEPTH_MAX);
		return -1;
	}
	return 0;
}

/*
 * --trace FILE can be created and is a regular file: checked before anything runs. The
 * library refuses it only at the first doca_pe_create, after the ping-pong (or in a child).
 */
static int check_trace(void)
{
	const char *trace_path = getenv("ODMA_TRACE");
	struct stat st;
	int fd, err;

	if (!trace_given || trace_path == NULL)
		return 0;
	fd = open(trace_path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0644);
	err = errno;
	if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISREG(st.st_mode))
		err = EINVAL;
	if (fd >= 0)
		close(fd);
	if (fd < 0 || err == EINVAL) {
		fprintf(stderr, "odma-bench: --trace: cannot create %s: %s\n", trace_path,
		        err == EINVAL ? "not a regular file" : strerror(err));
		return -1;
	}
	return 0;
}

/*
 * The flags of one mode given to another, which would ignore them silently: -1 after one
 * line. --list-len, --cold, --footprint, --csv and --peer are the DMA task path's (the other
 * modes lay out their own buffers and print text or JSON); --transport is --xproc's.
 */
static int check_mode_flags(void)
{
	bool other = cfg.xproc || cfg.comch || cfg.rdma || cfg.sync_event || cfg.crossover;

	if (other && cfg.csv) {
		fprintf(stderr,
		        "odma-bench: --csv prints the DMA task path's rows; --xproc, --comch, "
		        "--rdma, --sync-event and --crossover print text or JSON: give --json "
		        "or neither\n");
		return -1;
	}
	if (other && (cfg.list_len > 1 || cfg.cold)) {
		fprintf(stderr, "odma-bench: --list-len, --cold and --footprint shape the DMA task "
		                "path's buffers; --xproc, --comch, --rdma, --sync-event and "
		                "--crossover lay out their own: drop them\n");
		return -1;
	}
	if (other && cfg.peer_dpdk) {
		fprintf(stderr, "odma-bench: --peer dpdk compares the DMA task path with DPDK's "
		                "dma_skeleton; drop --xproc, --comch, --rdma, --sync-event and "
		                "--crossover, or --peer\n");
		return -1;
	}
	if (transport_given && !cfg.xproc) {
		fprintf(stderr,
		        "odma-bench: --transport is for --xproc (how the two processes reach "
		        "each other's memory); add --xproc, or drop it\n");
		return -1;
	}
	return 0;
}

static int check_cfg(void)
{
	if (check_pair_bounds() != 0 || check_trace() != 0 || check_mode_flags() != 0)
		return -1;
	if (cfg.mode != BENCH_THROUGHPUT)
		cfg.depth = 1;
	if (cfg.json && cfg.csv) {
		fprintf(stderr, "odma-bench: --json and --csv are two output formats; give one\n");
		return -1;
	}
	if (cfg.list_len > 1 && cfg.cold) {
		fprintf(stderr, "odma-bench: --list-len with --cold: list elements are fixed "
		                "windows, so a cold walk would need new bufs per task; measure "
		                "lists cache-hot\n");
		return -1;
	}
	if (cfg.netns && !cfg.rdma && !cfg.sync_event && !cfg.comch && (!cfg.xproc || !cfg.ucx)) {
		fprintf(stderr, "odma-bench: --netns is for --xproc --transport ucx, --rdma, "
		                "--sync-event and --comch (CMA reaches only processes of one PID "
		                "namespace)\n");
		return -1;
	}
	if (cfg.plot != NULL && (cfg.xproc || cfg.comch || cfg.crossover)) {
		fprintf(stderr, "odma-bench: --plot draws the size sweep of the DMA task path, or "
		                "with --rdma the network's; it does not combine with --xproc, "
		                "--comch or --crossover\n");
		return -1;
	}
	if (cfg.plot != NULL) {
		cfg.sweep = !cfg.rdma; /* --rdma --plot: its own sizes at one depth */
		plot_file = fopen(cfg.plot, "w");
		if (plot_file == NULL) {
			fprintf(stderr, "odma-bench: --plot: cannot write %s: %s\n", cfg.plot,
			        strerror(errno));
			return -1;
		}
	}
	if (cfg.engine[0] != '\0')
		setenv("ODMA_ENGINE", cfg.engine, 1);
	if (cfg.workers > 0) {
		char w[16];

		snprintf(w, sizeof(w), "%d", cfg.workers);
		setenv("ODMA_WORKERS", w, 1);
	}
	return 0;
}

/* ------------------------------------------------------------------ --plot */

static struct bench_out plot_outs[BENCH_PLOT_MAX];

static void plot_series(struct bench_plot_series *s, const char *name, bool dashed, int n,
                        size_t offset)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->dashed = dashed;
	for (int i = 0; i < n; i++) {
		const struct bench_result *r =
		        (const struct bench_result *)((const char *)&plot_outs[i] + offset);

		s->has[i] = r->valid && r->bytes_per_sec > 0;
		s->gbps[i] = r->bytes_per_sec / 1e9;
	}
}

/* The caption: what was measured, where, and that the figures are odma's emulation. */
static void plot_caption(char *out, size_t len)
{
	char model[128] = "unknown CPU", line[256];
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "model name", 10) == 0 && strchr(line, ':') != NULL) {
			snprintf(model, sizeof(model), "%s", strchr(line, ':') + 2);
			model[strcspn(model, "\n")] = '\0';
			break;
		}
	if (f != NULL)
		fclose(f);
	snprintf(out, len,
	         "Measured on: %s, %ld CPUs; %.2f s per size, median of %d; "
	         "same-run ping-pong %.0f ns%s.\n"
	         "odma's software DMA (the CPU moves the bytes), not a hardware DMA engine.",
	         model, sysconf(_SC_NPROCESSORS_ONLN), cfg.seconds, cfg.reps, pingpong_ns,
	         busy ? " (busy)" : "");
}

static int plot_write(const size_t *sizes, int n)
{
	struct bench_plot_series s[5];
	char title[200], caption[400], mt[48], st[48];
	int ns = 0, threads = plot_outs[0].threads, rc;

	snprintf(mt, sizeof(mt), "memcpy, %d threads", threads);
	snprintf(st, sizeof(st), "streaming copy, %d threads", threads);
	plot_series(&s[ns++], "odma (DOCA DMA tasks)", false, n, offsetof(struct bench_out, odma));
	plot_series(&s[ns++], "memcpy, 1 thread", true, n, offsetof(struct bench_out, mc));
	if (cfg.mode == BENCH_THROUGHPUT && threads > 1)
		plot_series(&s[ns++], mt, true, n, offsetof(struct bench_out, mcmt));
	if (cfg.mode == BENCH_THROUGHPUT)
		plot_series(&s[ns++], st, true, n, offsetof(struct bench_out, stmt));
	if (cfg.peer_dpdk)
		plot_series(&s[ns++], "DPDK dma_skeleton", true, n,
		            offsetof(struct bench_out, peer));
	snprintf(title, sizeof(title),
	         "odma bench: GB/s by copy size (engine=%s, %s, depth %u, %s)", engine_name(),
	         mode_name(), cfg.depth, cfg.cold ? "cold" : "cache-hot");
	plot_caption(caption, sizeof(caption));
	rc = bench_plot_write(plot_file, title, "copy size", caption, sizes, n, s, ns);
	if (fclose(plot_file) != 0)
		rc = -1;
	plot_file = NULL;
	if (rc != 0)
		fprintf(stderr, "odma-bench: --plot: cannot write %s\n", cfg.plot);
	else if (!cfg.json && !cfg.csv)
		printf("# plot: %s (%d series)\n", cfg.plot, ns);
	return rc == 0 ? 0 : 1;
}

static int run_sizes(struct bench_odma *ob, struct bench_mem *m, const size_t *sizes, int n,
                     uint64_t maxbuf)
{
	struct bench_out o;

	for (int i = 0; i < n; i++) {
		memset(&o, 0, sizeof(o));
		o.size = sizes[i];
		o.threads = bench_engine_threads();
		bench_mem_layout(m, &cfg, sizes[i], maxbuf);
		if (measure(ob, m, &o) != 0) {
			fprintf(stderr, "odma-bench: size %zu: %s\n", sizes[i], o.odma.error);
			return 1;
		}
		print_one(&o, m, i, n);
		if (cfg.plot != NULL && i < BENCH_PLOT_MAX)
			plot_outs[i] = o;
	}
	return cfg.plot != NULL ? plot_write(sizes, n) : 0;
}

/* Every size laid out in @m before anything is measured: 0, or 2 after one line saying why. */
static int check_layouts(struct bench_mem *m, const size_t *sizes, int n, uint64_t maxbuf)
{
	for (int i = 0; i < n; i++) {
		size_t fit;

		bench_mem_layout(m, &cfg, sizes[i], maxbuf);
		if (m->task_size == 0) {
			fprintf(stderr,
			        "odma-bench: %zu-byte copies cannot be cut into %u list elements "
			        "(--list-len): copy at least %u bytes, or use a shorter list\n",
			        sizes[i], cfg.list_len, cfg.list_len);
			return 2;
		}
		if (m->n_slots >= cfg.depth)
			continue;
		fit = m->len / m->stride;
		fprintf(stderr,
		        "odma-bench: --cold: each side's %zu bytes hold %zu task%s of %zu bytes, "
		        "fewer than --depth %u; give --footprint %zu or more\n",
		        m->len, fit, fit == 1 ? "" : "s", m->task_size, cfg.depth,
		        2 * (size_t)cfg.depth * m->stride);
		return 2;
	}
	return 0;
}

static int run_bench(void)
{
	const size_t *sizes = cfg.sweep ? sweep_sizes : &cfg.size;
	int n = cfg.sweep ? (int)(sizeof(sweep_sizes) / sizeof(sweep_sizes[0])) : 1, rc;
	uint32_t max_list = 0;
	uint64_t maxbuf = bench_odma_probe(&max_list);
	struct bench_odma *ob = NULL;
	struct bench_mem m;
	size_t biggest = sizes[n - 1];
	char err[200];

	if (maxbuf == 0) {
		fprintf(stderr, "odma-bench: no device supports DMA memcpy (check ODMA_SYSTEM / "
		                "ODMA_SIDE)\n");
		return 1;
	}
	if (cfg.list_len > max_list) {
		fprintf(stderr,
		        "odma-bench: --list-len %u is longer than the device's max_buf_list_len "
		        "%u; give %u or fewer\n",
		        cfg.list_len, max_list, max_list);
		return 2;
	}
	if (cfg.peer_dpdk && bench_dpdk_init(err, sizeof(err)) != 0) {
		fprintf(stderr, "odma-bench: --peer dpdk: %s\n", err);
		return 1;
	}
	if (bench_mem_prepare(&m, &cfg, biggest < maxbuf ? biggest : maxbuf) != 0) {
		fprintf(stderr, "odma-bench: cannot allocate the buffers\n");
		return 1;
	}
	rc = check_layouts(&m, sizes, n, maxbuf);
	if (rc != 0) {
		bench_mem_free(&m);
		return rc;
	}
	pingpong_ns = cfg.no_pingpong ? 0 : bench_pingpong_ns();
	busy = bench_busy_check(pingpong_ns, cfg.busy_ns);
	if (cfg.mode == BENCH_EVENT && !cfg.no_pingpong)
		efd_pingpong_ns = bench_eventfd_pingpong_ns();
	rc = bench_odma_open(&ob, &m, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "odma-bench: %s\n", err);
	else
		rc = run_sizes(ob, &m, sizes, n, maxbuf);
	bench_odma_close(ob);
	bench_mem_free(&m);
	return rc;
}

int main(int argc, char **argv)
{
	int rc;

	if (parse_flags(argc, argv) != 0)
		return 2;
	if (check_cfg() != 0) {
		doca_argp_destroy();
		return 2;
	}
	rc = cfg.xproc        ? bench_xproc_run(&cfg, cfg.size_given)
	     : cfg.crossover  ? run_crossover()
	     : cfg.comch      ? run_comch()
	     : cfg.rdma       ? run_rdma()
	     : cfg.sync_event ? run_sync_event()
	                      : run_bench();
	if (cfg.peer_dpdk)
		bench_dpdk_fini();
	doca_argp_destroy();
	return rc;
}
