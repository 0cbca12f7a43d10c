/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * odma-advise: which data path fits a copy. The rule is fixed; the only number in it,
 * the size from which a one-shot DMA task costs no more than a memcpy, was measured by
 * `odma bench --crossover` on the reference machine (docs/performance.md) and can be
 * re-measured here with --measure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_argp.h>
#include <doca_log.h>

#include "bench.h"

/* Measured with the thread engine (the default), docs/performance.md "Crossover". */
#define ADVISE_CROSSOVER_DEFAULT (1024u * 1024u)

static const char advise_help[] =
        "NAME\n"
        "    odma-advise - choose the data path for a copy: DMA, RDMA, Comch or memcpy\n"
        "\n"
        "SYNOPSIS\n"
        "    odma advise --size BYTES [--count N] [--cross-network] [--messages] [--measure]\n"
        "                [--compare-fastpath] [--json]\n"
        "\n"
        "DESCRIPTION\n"
        "    Prints the recommended path and a one-paragraph reason. The rule, in order:\n"
        "      1. the data crosses the network (--cross-network): RDMA;\n"
        "      2. producer/consumer messages (--messages): Comch (DOCA Comch channels);\n"
        "      3. a copy smaller than the crossover: a plain CPU memcpy;\n"
        "      4. otherwise: DMA, for bulk copies between registered regions on one host or\n"
        "         across host and DPU.\n"
        "    The crossover is the smallest size from which a one-shot DMA task (depth 1,\n"
        "    submit to completion callback, default engine, cache-hot) takes no more than\n"
        "    1.1 x the time of a memcpy of the same bytes, for that size and every larger one\n"
        "    measured. The compiled-in value (%zu bytes) was measured by\n"
        "    `odma bench --crossover` on the machine described in docs/performance.md.\n"
        "\n"
        "OPTIONS\n"
        "    -s, --size BYTES      bytes per copy (K, M, G suffixes). Required.\n"
        "    -c, --count N         how many such copies (default 1); reported in the reason.\n"
        "        --cross-network   the destination is on another machine.\n"
        "        --messages        the copies are messages between a producer and a consumer.\n"
        "        --measure         re-measure the crossover on this machine now (about 2 s);\n"
        "                          with --cross-network also DOCA RDMA write/read between two\n"
        "                          processes beside raw TCP (emulated; about 1 s more).\n"
        "        --compare-fastpath  also measure, between two processes of this machine, a\n"
        "                          host-DPU transfer of BYTES both ways odma offers: DMA tasks\n"
        "                          into a buffer the other process exported, and DOCA Comch\n"
        "                          fast-path sends (producer to posted consumer buffers); prints\n"
        "                          both rates, labelled as emulated (about 1 s).\n"
        "        --json            print one JSON object: path, size, count, crossover_bytes,\n"
        "                          crossover_source (compiled-in|measured), reason, and with\n"
        "                          --compare-fastpath a \"host_dpu\" object (emulated: true,\n"
        "                          dma_bytes_per_sec, comch_fastpath_bytes_per_sec, faster).\n"
        "    -h, --help            this text.   -v, --version   the odma version.\n"
        "\n"
        "EXAMPLES\n"
        "    odma advise --size 64\n"
        "    odma advise --size 16M --count 100\n"
        "    odma advise --size 4K --messages --json\n"
        "    odma advise --size 256K --measure\n"
        "    odma advise --size 1M --compare-fastpath\n"
        "\n"
        "EXIT STATUS\n"
        "    0 on success; 1 when --measure failed; 2 on bad flags.\n";

static struct {
	size_t size;
	int count;
	bool network, messages, measure, compare, json;
} adv = { .count = 1 };

static doca_error_t cb_size(void *p, void *c)
{
	(void)c;
	if (bench_parse_size(p, &adv.size) != 0) {
		fprintf(stderr,
		        "odma-advise: --size \"%s\" is not a size (examples: 64, 4K, 16M)\n",
		        (char *)p);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t cb_count(void *p, void *c)
{
	(void)c;
	adv.count = *(int *)p;
	if (adv.count < 1) {
		fprintf(stderr, "odma-advise: --count must be at least 1\n");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

BENCH_BOOL_CB(cb_network, adv.network)
BENCH_BOOL_CB(cb_messages, adv.messages)
BENCH_BOOL_CB(cb_measure, adv.measure)
BENCH_BOOL_CB(cb_compare, adv.compare)

/* -h prints the manual; a --json not followed by an existing file selects JSON output. */
static void print_help(void)
{
	printf(advise_help, (size_t)ADVISE_CROSSOVER_DEFAULT);
}

static int parse_flags(int argc, char **argv)
{
	const enum doca_argp_type S = DOCA_ARGP_TYPE_STRING, B = DOCA_ARGP_TYPE_BOOLEAN;
	struct doca_log_backend *be;

	argc = bench_prefilter(argc, argv, print_help, &adv.json);
	doca_log_backend_create_standard();
	doca_log_backend_create_with_file_sdk(stderr, &be);
	if (doca_argp_init("odma-advise", &adv) != DOCA_SUCCESS ||
	    bench_add_param("s", "size", "<bytes>", "bytes per copy (K/M/G suffixes)", S, cb_size,
	                    true) ||
	    bench_add_param("c", "count", "<n>", "number of copies", DOCA_ARGP_TYPE_INT, cb_count,
	                    false) ||
	    bench_add_param(NULL, "cross-network", NULL, "the data crosses the network", B,
	                    cb_network, false) ||
	    bench_add_param(NULL, "messages", NULL, "producer/consumer messages", B, cb_messages,
	                    false) ||
	    bench_add_param(NULL, "measure", NULL, "re-measure the crossover now", B, cb_measure,
	                    false) ||
	    bench_add_param(NULL, "compare-fastpath", NULL,
	                    "measure DMA and the Comch fast path host<->DPU", B, cb_compare, false))
		return -1;
	return doca_argp_start(argc, argv) == DOCA_SUCCESS ? 0 : -1;
}

static const char *advise_path(size_t crossover, char *why, size_t len)
{
	if (adv.network) {
		snprintf(why, len,
		         "The data crosses the network, which DMA cannot do: DMA moves bytes "
		         "between memory "
		         "regions of one host or between a host and its DPU over PCIe. RDMA (DOCA "
		         "RDMA) writes "
		         "or reads remote registered memory without the remote CPU, with the same "
		         "register-once, submit-tasks model.");
		return "rdma";
	}
	if (adv.messages) {
		snprintf(why, len,
		         "These are messages between a producer and a consumer: ordering, flow "
		         "control and a "
		         "notification per message matter more than bulk bandwidth. DOCA Comch "
		         "gives host/DPU "
		         "message channels (and producer/consumer queues) with events; use DMA "
		         "only for large "
		         "payloads the messages point to.");
		return "comch";
	}
	if (adv.size < crossover) {
		snprintf(why, len,
		         "A %zu-byte copy is below the crossover of %zu bytes measured on this "
		         "kind of machine: "
		         "a one-shot DMA task (submit, hand-off, completion callback) costs more "
		         "than a CPU "
		         "memcpy of the same bytes, so copy them with memcpy%s.",
		         adv.size, crossover,
		         adv.count > 1 ? "; many such copies kept in flight raise DMA throughput, "
		                         "but each still "
		                         "pays the task overhead, so memcpy stays the cheaper "
		                         "choice unless the CPU "
		                         "must be freed for other work"
		                       : "");
		return "memcpy";
	}
	snprintf(why, len,
	         "A bulk copy of %zu bytes%s between registered regions on one host or across host "
	         "and DPU: "
	         "at or above the crossover (%zu bytes) a DMA task costs no more than memcpy, and "
	         "it frees the "
	         "CPU while the copy runs. Register the regions once (doca_mmap), keep several "
	         "tasks in flight, "
	         "and split copies above max_buf_size into tasks of at most that size.",
	         adv.size, adv.count > 1 ? " (repeated)" : "", crossover);
	return "dma";
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++)
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else
			putchar(*s);
	putchar('"');
}

/* DMA vs the Comch fast path for one host-DPU transfer of adv.size bytes, measured now. */
static int compare_fastpath(struct bench_comch *c)
{
	char err[200];

	doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_ERROR);
	if (bench_comch_run(adv.size, 1.0, c, err, sizeof(err)) != 0) {
		fprintf(stderr, "odma-advise: --compare-fastpath: %s\n", err);
		return -1;
	}
	return 0;
}

static const char *faster(const struct bench_comch *c)
{
	if (c->dma_bytes_per_sec <= 0)
		return "comch";
	return c->dma_bytes_per_sec >= c->fp_bytes_per_sec ? "dma" : "comch";
}

int main(int argc, char **argv)
{
	size_t crossover = ADVISE_CROSSOVER_DEFAULT;
	char why[1024], err[200];
	struct bench_cross x;
	struct bench_comch cmp;
	struct bench_rdma rd = { 0 };
	bool rd_ok = false;
	const char *path;

	if (parse_flags(argc, argv) != 0)
		return 2;
	doca_argp_destroy();
	if (adv.measure) {
		if (bench_crossover(0.2, &x, err, sizeof(err)) != 0) {
			fprintf(stderr, "odma-advise: --measure: %s\n", err);
			return 1;
		}
		/* 0: DMA never caught up with memcpy within the sizes tried. */
		crossover = x.crossover ? x.crossover : x.size[x.n - 1] * 2;
	}
	if (adv.compare && compare_fastpath(&cmp) != 0)
		return 1;
	/* --cross-network --measure: the RDMA path measured here beside its transport */
	if (adv.network && adv.measure) {
		size_t sz = adv.size > (64u << 20) ? (64u << 20) : adv.size;

		rd_ok = bench_rdma_run(sz ? sz : 1, 1.0, &rd, err, sizeof(err)) == 0;
		if (!rd_ok)
			fprintf(stderr, "odma-advise: RDMA measurement: %s\n", err);
	}
	path = advise_path(crossover, why, sizeof(why));
	if (adv.json) {
		printf("{\"path\": \"%s\", \"size\": %zu, \"count\": %d, \"crossover_bytes\": %zu, "
		       "\"crossover_source\": \"%s\", \"reason\": ",
		       path, adv.size, adv.count, crossover,
		       adv.measure ? "measured" : "compiled-in");
		json_str(why);
		if (adv.compare)
			printf(", \"host_dpu\": {\"emulated\": true, \"size\": %zu, "
			       "\"dma_bytes_per_sec\": %.1f, "
			       "\"comch_fastpath_bytes_per_sec\": %.1f, \"faster\": \"%s\"}",
			       adv.size, cmp.dma_bytes_per_sec, cmp.fp_bytes_per_sec, faster(&cmp));
		if (rd_ok)
			printf(", \"rdma\": {\"emulated\": true, \"transport\": \"ucx-tcp\", "
			       "\"size\": "
			       "%zu, "
			       "\"read_bytes_per_sec\": %.1f, \"write_bytes_per_sec\": %.1f, "
			       "\"raw_tcp_bytes_per_sec\": %.1f}",
			       rd.size, rd.read_bytes_per_sec, rd.write_bytes_per_sec,
			       rd.raw_tcp_bytes_per_sec);
		printf("}\n");
	} else {
		printf("%s\n\n%s\n", path, why);
		if (rd_ok)
			printf("\nDOCA RDMA between two processes of this machine, %zu bytes, "
			       "measured "
			       "just now (EMULATED over TCP, not an RDMA NIC): write %.2f GB/s, "
			       "read "
			       "%.2f GB/s; raw TCP of the same run %.2f GB/s.\n",
			       rd.size, rd.write_bytes_per_sec / 1e9, rd.read_bytes_per_sec / 1e9,
			       rd.raw_tcp_bytes_per_sec / 1e9);
		if (adv.compare) {
			printf("\nHost<->DPU transfer of %zu bytes, measured just now between two "
			       "processes of this "
			       "machine (EMULATED: odma moves these bytes with the CPU and the "
			       "kernel, not over PCIe; "
			       "a BlueField's figures differ):\n",
			       adv.size);
			if (cmp.dma_bytes_per_sec > 0)
				printf("  DMA tasks into an exported buffer:       %7.2f GB/s\n",
				       cmp.dma_bytes_per_sec / 1e9);
			else
				printf("  DMA tasks into an exported buffer:       n/a (above "
				       "max_buf_size: split it)\n");
			printf("  Comch fast path (producer -> consumer):  %7.2f GB/s\n",
			       cmp.fp_bytes_per_sec / 1e9);
			printf("Faster here: %s. DMA needs the buffer registered and exported once "
			       "and nothing from "
			       "the other side per transfer; the fast path needs the consumer to "
			       "post a buffer for "
			       "each message and carries a producer id and immediate data with "
			       "it.\n",
			       strcmp(faster(&cmp), "dma") == 0 ? "DMA" : "the Comch fast path");
		}
	}
	return 0;
}
