/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * odma-advise: which data path fits a copy. The rule is fixed (advise_rule.c); the only
 * number in it, the size from which a one-shot DMA task costs no more than a memcpy, is the
 * compiled-in default BENCH_CROSS_DEFAULT (measured by `odma bench --crossover` on the
 * reference machine, docs/performance.md) unless --measure measures it here. Every figure
 * measured here is odma's software emulation, and every output says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_argp.h>
#include <doca_log.h>

#include "advise.h"
#include "argp/argp_priv.h"
#include "bench.h"

#define ADVISE_RUNS 3     /* repetitions of every measurement: the spread is their min-max */
#define ADVISE_NOISE 1.10 /* medians closer than this are no clear winner either */

/* Where every measured figure comes from: said beside each of them. */
static const char emulated_label[] = "odma's software emulation, not on hardware";

static const char advise_help[] =
        "NAME\n"
        "    odma-advise - choose the data path for a copy: DMA, RDMA, Comch or memcpy\n"
        "\n"
        "SYNOPSIS\n"
        "    odma advise --size BYTES [--between same-process|host-dpu|network] [--count N]\n"
        "                [--messages] [--measure] [--compare-fastpath] [--json]\n"
        "\n"
        "DESCRIPTION\n"
        "    Prints the recommended path on the first line, then why. The rule, in order:\n"
        "      1. across the network (--between network): RDMA (DOCA RDMA);\n"
        "      2. messages between a host and its DPU (--messages): Comch (DOCA Comch);\n"
        "      3. a host process and a DPU process (--between host-dpu): DMA, whatever the\n"
        "         size: two processes cannot memcpy each other's memory;\n"
        "      4. inside one process (--between same-process, the default), below the\n"
        "         crossover: a plain CPU memcpy;\n"
        "      5. inside one process, at or above the crossover: DMA.\n"
        "    The crossover is the smallest size from which a one-shot DMA task (depth 1,\n"
        "    submit to completion callback, default engine, cache-hot) takes no more than\n"
        "    1.1 x the time of a memcpy of the same bytes, for that size and every larger one\n"
        "    measured. Without --measure it is the compiled-in default, %zu bytes, measured\n"
        "    by `odma bench --crossover` on the machine of docs/performance.md, and every\n"
        "    output says so.\n"
        "\n"
        "OPTIONS\n"
        "    -s, --size BYTES      bytes per copy (K, M, G suffixes). Required.\n"
        "        --between WHERE   where the two ends are: same-process (default), host-dpu\n"
        "                          (a host process and a process on its DPU; two processes\n"
        "                          of one host get the same answer) or network.\n"
        "    -c, --count N         how many such copies (default 1); reported in the reason.\n"
        "        --messages        producer/consumer messages (implies --between host-dpu\n"
        "                          unless --between network is given; refused with\n"
        "                          same-process).\n"
        "        --cross-network   the same as --between network.\n"
        "        --measure         measure the crossover on this machine now, 3 runs (about\n"
        "                          2 s); with --between network also DOCA RDMA write/read\n"
        "                          between two processes beside raw TCP (about 1 s more).\n"
        "        --compare-fastpath  also measure, 3 times, a host-DPU transfer of BYTES both\n"
        "                          ways odma offers between two processes of this machine: DMA\n"
        "                          tasks into a buffer the other process exported, and DOCA\n"
        "                          Comch fast-path sends into posted consumer buffers (implies\n"
        "                          --between host-dpu; BYTES at most 256M; about 1 s).\n"
        "        --json            print one JSON object (keys below).\n"
        "    -h, --help            this text.   -v, --version   the odma version.\n"
        "\n"
        "MEASUREMENTS\n"
        "    Every measured figure is odma's software emulation (the CPU and the kernel move\n"
        "    the bytes, not a DMA engine, a PCIe link or an RDMA NIC), and is labelled so. Each\n"
        "    is measured 3 times and reported as median and spread (min-max). When the two\n"
        "    candidates' ranges overlap, or their medians are within 10 %%, the output says\n"
        "    \"no clear winner\". The path always comes from the rule: --measure only moves\n"
        "    the crossover it uses for copies inside one process, and --compare-fastpath\n"
        "    never changes it (the output says why when its faster candidate differs).\n"
        "\n"
        "JSON\n"
        "    path, between, size, count, messages, reason, crossover_bytes, crossover_source\n"
        "    (\"compiled-in default\" | \"measured\"), crossover_min_bytes, crossover_max_bytes,\n"
        "    crossover_runs, crossover_used (the path depends on it), verdict (\"clear\" | \"no\n"
        "    clear winner\": a same-process size inside the measured crossover's spread, or\n"
        "    where DMA and memcpy are within noise). With --measure or --compare-fastpath\n"
        "    also emulated (true) and measured_on. With --measure, for a same-process\n"
        "    question, an \"at_size\" object: size, runs, dma_p50_ns and memcpy_p50_ns with\n"
        "    their _min and _max, overlap, within_noise (the ranges overlap, or the medians\n"
        "    are within 10 %%). With --compare-fastpath a \"host_dpu\" object: emulated, size,\n"
        "    runs, dma_bytes_per_sec and comch_fastpath_bytes_per_sec (medians) with their\n"
        "    _min and _max, faster (on the emulation: \"dma\" | \"comch\" | \"no clear winner\"),\n"
        "    agrees_with_path (faster is the path, or no clear winner) and note (how the\n"
        "    figures bear on the path). With --between network --measure an \"rdma\" object.\n"
        "\n"
        "EXAMPLES\n"
        "    odma advise --size 64\n"
        "    odma advise --size 1M --between host-dpu\n"
        "    odma advise --size 1G --between network --json\n"
        "    odma advise --size 4K --messages\n"
        "    odma advise --size 256K --measure\n"
        "    odma advise --size 1M --compare-fastpath\n"
        "\n"
        "EXIT STATUS\n"
        "    0 on success; 1 when a measurement failed; 2 on bad flags.\n";

static struct {
	struct advise_question q;
	bool between_given, network, measure, compare, json;
} adv = { .q = { .count = 1 } };

/*
 * --measure, at the question's size: the one-shot p50 of a DMA task and of a memcpy over the
 * runs, at the largest measured size not above it (a bigger copy is cut into tasks of at
 * most max_buf_size, so its per-task cost is the biggest size's).
 */
struct advise_at {
	bool valid;
	size_t size;
	double dma[ADVISE_RUNS], mc[ADVISE_RUNS];
	double dma_med, dma_min, dma_max, mc_med, mc_min, mc_max;
	bool overlap;      /* the two ranges overlap */
	bool within_noise; /* overlap, or medians within ADVISE_NOISE: no clear winner here */
};
static struct advise_at at;

/* Medians and spreads of --compare-fastpath. */
struct advise_compare {
	double dma[ADVISE_RUNS], fp[ADVISE_RUNS];
	double dma_med, dma_min, dma_max, fp_med, fp_min, fp_max;
	const char *faster; /* "dma", "comch" or "no clear winner" */
};

static doca_error_t cb_size(void *p, void *c)
{
	(void)c;
	if (bench_parse_size(p, &adv.q.size) != 0) {
		fprintf(stderr,
		        "odma-advise: --size \"%s\" is not a size (examples: 64, 4K, 16M, 1G)\n",
		        (char *)p);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t cb_count(void *p, void *c)
{
	(void)c;
	adv.q.count = *(int *)p;
	if (adv.q.count < 1) {
		fprintf(stderr, "odma-advise: --count must be at least 1\n");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t cb_between(void *p, void *c)
{
	(void)c;
	if (advise_between_parse(p, &adv.q.between) != 0) {
		fprintf(stderr,
		        "odma-advise: --between \"%s\": use same-process, host-dpu or network\n",
		        (char *)p);
		return DOCA_ERROR_INVALID_VALUE;
	}
	adv.between_given = true;
	return DOCA_SUCCESS;
}

BENCH_BOOL_CB(cb_network, adv.network)
BENCH_BOOL_CB(cb_messages, adv.q.messages)
BENCH_BOOL_CB(cb_measure, adv.measure)
BENCH_BOOL_CB(cb_compare, adv.compare)

static void print_help(void)
{
	printf(advise_help, (size_t)BENCH_CROSS_DEFAULT);
}

static int parse_flags(int argc, char **argv)
{
	const enum doca_argp_type S = DOCA_ARGP_TYPE_STRING, B = DOCA_ARGP_TYPE_BOOLEAN;
	struct doca_log_backend *be;

	argc = bench_prefilter(argc, argv, print_help, &adv.json);
	doca_log_backend_create_standard();
	doca_log_backend_create_with_file_sdk(stderr, &be);
	if (doca_argp_init("odma advise", &adv) != DOCA_SUCCESS ||
	    bench_add_param("s", "size", "<bytes>", "bytes per copy (K/M/G suffixes)", S, cb_size,
	                    true) ||
	    bench_add_param(NULL, "between", "<where>",
	                    "same-process (default), host-dpu or network", S, cb_between, false) ||
	    bench_add_param("c", "count", "<n>", "number of copies", DOCA_ARGP_TYPE_INT, cb_count,
	                    false) ||
	    bench_add_param(NULL, "cross-network", NULL, "the same as --between network", B,
	                    cb_network, false) ||
	    bench_add_param(NULL, "messages", NULL, "producer/consumer messages", B, cb_messages,
	                    false) ||
	    bench_add_param(NULL, "measure", NULL, "measure the crossover now (3 runs)", B,
	                    cb_measure, false) ||
	    bench_add_param(NULL, "compare-fastpath", NULL,
	                    "measure DMA and the Comch fast path host<->DPU (3 runs)", B,
	                    cb_compare, false))
		return -1;
	doca_priv_argp_callbacks_explain(); /* each cb_* prints its own one-line refusal */
	return doca_argp_start(argc, argv) == DOCA_SUCCESS ? 0 : -1;
}

/* The flags that imply a shape, and the combinations that make no question. 0 or -1. */
static int settle_question(void)
{
	enum advise_between want = ADVISE_NETWORK;
	const char *why = NULL;

	if (adv.network)
		why = "--cross-network";
	else if (adv.compare)
		want = ADVISE_HOST_DPU, why = "--compare-fastpath";
	else if (adv.q.messages && !(adv.between_given && adv.q.between == ADVISE_NETWORK))
		want = ADVISE_HOST_DPU, why = "--messages";
	if (why != NULL && adv.between_given && adv.q.between != want) {
		fprintf(stderr,
		        "odma-advise: %s is a %s question, not --between %s (drop one of them)\n",
		        why, advise_between_name(want), advise_between_name(adv.q.between));
		return -1;
	}
	if (why != NULL)
		adv.q.between = want;
	if (adv.compare && (adv.q.size == 0 || adv.q.size > (256u << 20))) {
		fprintf(stderr,
		        "odma-advise: --compare-fastpath measures sizes of 1 to 256M bytes, "
		        "not %zu\n",
		        adv.q.size);
		return -1;
	}
	return 0;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

static void spread(double *v, double *med, double *lo, double *hi);

/* Run @run's p50s at the question's size into `at`. */
static void keep_at_size(const struct bench_cross *c, int run)
{
	int k = 0;

	for (int i = 0; i < c->n; i++)
		if (c->size[i] <= adv.q.size)
			k = i;
	at.valid = c->n > 0;
	at.size = c->size[k];
	at.dma[run] = c->dma_p50_ns[k];
	at.mc[run] = c->memcpy_p50_ns[k];
}

/* ADVISE_RUNS crossover measurements: the median, and the spread. 0 or -1. */
static int measure_crossover(struct advise_crossover *x)
{
	size_t v[ADVISE_RUNS];
	struct bench_cross c;
	char err[200];

	for (int i = 0; i < ADVISE_RUNS; i++) {
		if (bench_crossover(0.07, &c, err, sizeof(err)) != 0) {
			fprintf(stderr, "odma-advise: --measure: %s\n", err);
			return -1;
		}
		/* 0: DMA never caught up with memcpy within the sizes tried */
		v[i] = c.crossover ? c.crossover : c.size[c.n - 1] * 2;
		keep_at_size(&c, i);
	}
	spread(at.dma, &at.dma_med, &at.dma_min, &at.dma_max);
	spread(at.mc, &at.mc_med, &at.mc_min, &at.mc_max);
	at.overlap = !(at.dma_min > at.mc_max || at.mc_min > at.dma_max);
	at.within_noise = at.overlap || (at.dma_med < ADVISE_NOISE * at.mc_med &&
	                                 at.mc_med < ADVISE_NOISE * at.dma_med);
	qsort(v, ADVISE_RUNS, sizeof(v[0]), cmp_size);
	x->runs = ADVISE_RUNS;
	x->min = v[0];
	x->max = v[ADVISE_RUNS - 1];
	x->bytes = v[ADVISE_RUNS / 2];
	return 0;
}

static void spread(double *v, double *med, double *lo, double *hi)
{
	*lo = *hi = v[0];
	for (int i = 1; i < ADVISE_RUNS; i++) {
		*lo = v[i] < *lo ? v[i] : *lo;
		*hi = v[i] > *hi ? v[i] : *hi;
	}
	*med = bench_median(v, ADVISE_RUNS);
}

/* A winner only when its range lies wholly above the other's and its median is 10 % up. */
static const char *winner(const struct advise_compare *m)
{
	if (m->dma_min > m->fp_max && m->dma_med >= ADVISE_NOISE * m->fp_med)
		return "dma";
	if (m->fp_min > m->dma_max && m->fp_med >= ADVISE_NOISE * m->dma_med)
		return "comch";
	return "no clear winner";
}

/* DMA against the Comch fast path for one host-DPU transfer, ADVISE_RUNS times. 0 or -1. */
static int compare_fastpath(struct advise_compare *m)
{
	struct bench_comch c;
	char err[200];

	doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_ERROR);
	for (int i = 0; i < ADVISE_RUNS; i++) {
		if (bench_comch_run(adv.q.size, 0.35, false, &c, err, sizeof(err)) != 0) {
			fprintf(stderr, "odma-advise: --compare-fastpath: %s\n", err);
			return -1;
		}
		m->dma[i] = c.dma_bytes_per_sec;
		m->fp[i] = c.fp_bytes_per_sec;
	}
	spread(m->dma, &m->dma_med, &m->dma_min, &m->dma_max);
	spread(m->fp, &m->fp_med, &m->fp_min, &m->fp_max);
	m->faster = m->dma_max <= 0 ? "no clear winner" : winner(m);
	return 0;
}

/* The measurement does not point away from the path: the same winner, or none. */
static bool agrees(const struct advise_compare *m, const char *path)
{
	return strcmp(m->faster, path) == 0 || strcmp(m->faster, "no clear winner") == 0;
}

/* Why a measured winner that is not the path leaves the path as it is. */
static const char *compare_note(const struct advise_compare *m, const char *path)
{
	if (m->dma_max <= 0)
		return "DMA was not measured: a single task cannot move this size (above "
		       "max_buf_size); split it into tasks of at most max_buf_size.";
	if (strcmp(m->faster, "no clear winner") == 0)
		return "The two are within noise here, so the measurement does not favour either "
		       "and the rule's answer stands.";
	if (strcmp(m->faster, path) == 0)
		return "The measurement agrees with the rule's answer.";
	if (strcmp(path, "dma") == 0)
		return "This does not change the answer: the emulation moves both with the CPU "
		       "(process_vm_writev), so its ranking says nothing about a BlueField, "
		       "where DMA tasks run on the DMA engine without either CPU "
		       "and need nothing from the other side per transfer, "
		       "while the fast path needs a posted buffer per message.";
	return "This does not change the answer: messages need ordering and a notification per "
	       "message, which DMA tasks do not give.";
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

/* memcpy against DMA for a same-process question: measured too close to call? */
static bool no_clear_winner(const struct advise_answer *a)
{
	return a->uses_crossover && (a->near_crossover || (at.valid && at.within_noise));
}

static const char *verdict(const struct advise_answer *a)
{
	return no_clear_winner(a) ? "no clear winner" : "clear";
}

static void print_json(const struct advise_answer *a, const struct advise_crossover *x,
                       const struct advise_compare *m, const struct bench_rdma *rd)
{
	printf("{\"path\": \"%s\", \"between\": \"%s\", \"size\": %zu, \"count\": %d, "
	       "\"messages\": %s, \"crossover_bytes\": %zu, \"crossover_source\": \"%s\", "
	       "\"crossover_min_bytes\": %zu, \"crossover_max_bytes\": %zu, "
	       "\"crossover_runs\": %d, \"crossover_used\": %s, \"verdict\": \"%s\"",
	       a->path, advise_between_name(adv.q.between), adv.q.size, adv.q.count,
	       adv.q.messages ? "true" : "false", x->bytes,
	       x->runs ? "measured" : "compiled-in default", x->min, x->max, x->runs,
	       a->uses_crossover ? "true" : "false", verdict(a));
	if (adv.measure || adv.compare)
		printf(", \"emulated\": true, \"measured_on\": \"%s\"", emulated_label);
	if (at.valid && a->uses_crossover)
		printf(", \"at_size\": {\"size\": %zu, \"runs\": %d, \"dma_p50_ns\": %.1f, "
		       "\"dma_p50_ns_min\": %.1f, \"dma_p50_ns_max\": %.1f, \"memcpy_p50_ns\": "
		       "%.1f, \"memcpy_p50_ns_min\": %.1f, \"memcpy_p50_ns_max\": %.1f, "
		       "\"overlap\": %s, \"within_noise\": %s}",
		       at.size, ADVISE_RUNS, at.dma_med, at.dma_min, at.dma_max, at.mc_med,
		       at.mc_min, at.mc_max, at.overlap ? "true" : "false",
		       at.within_noise ? "true" : "false");
	printf(", \"reason\": ");
	json_str(a->why);
	if (m != NULL) {
		printf(", \"host_dpu\": {\"emulated\": true, \"size\": %zu, \"runs\": %d, "
		       "\"dma_bytes_per_sec\": %.1f, \"dma_bytes_per_sec_min\": %.1f, "
		       "\"dma_bytes_per_sec_max\": %.1f, \"comch_fastpath_bytes_per_sec\": %.1f, "
		       "\"comch_fastpath_bytes_per_sec_min\": %.1f, "
		       "\"comch_fastpath_bytes_per_sec_max\": %.1f, \"faster\": \"%s\", "
		       "\"agrees_with_path\": %s, \"note\": ",
		       adv.q.size, ADVISE_RUNS, m->dma_med, m->dma_min, m->dma_max, m->fp_med,
		       m->fp_min, m->fp_max, m->faster, agrees(m, a->path) ? "true" : "false");
		json_str(compare_note(m, a->path));
		printf("}");
	}
	if (rd != NULL)
		printf(", \"rdma\": {\"emulated\": true, \"transport\": \"ucx-tcp\", \"link\": "
		       "\"%s\", \"size\": %zu, \"read_bytes_per_sec\": %.1f, "
		       "\"write_bytes_per_sec\": %.1f, \"raw_tcp_bytes_per_sec\": %.1f}",
		       bench_link(), rd->size, rd->read_bytes_per_sec, rd->write_bytes_per_sec,
		       rd->raw_tcp_bytes_per_sec);
	printf("}\n");
}

static void print_crossover(const struct advise_answer *a, const struct advise_crossover *x)
{
	char b[32], lo[32], hi[32];

	bench_fmt_size(x->bytes, b, sizeof(b));
	if (x->runs == 0)
		printf("\nCrossover: %s, the compiled-in default (measured by `odma bench "
		       "--crossover` on the reference machine of docs/performance.md, not here; "
		       "--measure measures it on this machine).\n",
		       b);
	else {
		bench_fmt_size(x->min, lo, sizeof(lo));
		bench_fmt_size(x->max, hi, sizeof(hi));
		printf("\nCrossover: %s, measured just now on %s: median of %d runs, spread "
		       "%s-%s.%s\n",
		       b, emulated_label, x->runs, lo, hi,
		       a->uses_crossover ? "" : " (Not used for this question.)");
	}
	if (at.valid && a->uses_crossover)
		printf("One-shot copy of %zu bytes%s, p50 median (min-max) of %d runs: DMA task "
		       "%.0f ns (%.0f-%.0f), memcpy %.0f ns (%.0f-%.0f)%s.\n",
		       at.size, at.size == adv.q.size ? "" : " (the nearest size measured)",
		       ADVISE_RUNS, at.dma_med, at.dma_min, at.dma_max, at.mc_med, at.mc_min,
		       at.mc_max,
		       at.overlap        ? ": the ranges overlap"
		       : at.within_noise ? ": the medians are within 10 %"
		                         : "");
	if (no_clear_winner(a))
		printf("No clear winner between memcpy and DMA at %zu bytes: %s, so the two cost "
		       "about the same here; the rule answers %s from the median crossover.\n",
		       adv.q.size,
		       a->near_crossover ? "the size lies inside the measured crossover's spread"
		                         : "their measured times are within noise",
		       a->path);
}

static void print_compare(const struct advise_answer *a, const struct advise_compare *m)
{
	printf("\nHost<->DPU transfer of %zu bytes between two processes of this machine, measured "
	       "on %s (the CPU and the kernel move the bytes, not PCIe; a BlueField's figures "
	       "differ); median (min-max) of %d runs:\n",
	       adv.q.size, emulated_label, ADVISE_RUNS);
	if (m->dma_max > 0)
		printf("  DMA tasks into an exported buffer:       %7.2f GB/s (%.2f-%.2f)\n",
		       m->dma_med / 1e9, m->dma_min / 1e9, m->dma_max / 1e9);
	else
		printf("  DMA tasks into an exported buffer:       n/a (above max_buf_size: split "
		       "it)\n");
	printf("  Comch fast path (producer -> consumer):  %7.2f GB/s (%.2f-%.2f)\n",
	       m->fp_med / 1e9, m->fp_min / 1e9, m->fp_max / 1e9);
	if (strcmp(m->faster, "no clear winner") == 0)
		printf("Faster on this emulation: no clear winner (the ranges overlap or the "
		       "medians are within 10 %%). %s\n",
		       compare_note(m, a->path));
	else
		printf("Faster on this emulation: %s. %s\n",
		       strcmp(m->faster, "dma") == 0 ? "DMA" : "the Comch fast path",
		       compare_note(m, a->path));
}

static void print_text(const struct advise_answer *a, const struct advise_crossover *x,
                       const struct advise_compare *m, const struct bench_rdma *rd)
{
	printf("%s\n\n%s\n", a->path, a->why);
	if (a->uses_crossover || adv.measure)
		print_crossover(a, x);
	if (rd != NULL)
		printf("\nDOCA RDMA between two processes of this machine, %zu bytes, measured on "
		       "%s (UCX over TCP, not an RDMA NIC): write %.2f GB/s, read %.2f GB/s; raw "
		       "TCP of the same run %.2f GB/s.\n",
		       rd->size, emulated_label, rd->write_bytes_per_sec / 1e9,
		       rd->read_bytes_per_sec / 1e9, rd->raw_tcp_bytes_per_sec / 1e9);
	if (m != NULL)
		print_compare(a, m);
}

int main(int argc, char **argv)
{
	struct advise_crossover x = { BENCH_CROSS_DEFAULT, BENCH_CROSS_DEFAULT, BENCH_CROSS_DEFAULT,
		                      0 };
	struct advise_compare cmp;
	struct bench_rdma rd = { 0 };
	struct advise_answer a;
	bool rd_ok = false;
	char err[200];

	if (parse_flags(argc, argv) != 0)
		return 2;
	doca_argp_destroy();
	if (settle_question() != 0)
		return 2;
	advise_rule(&adv.q, &x, &a);
	if (a.path == NULL) {
		fprintf(stderr,
		        "odma-advise: --messages are between a host and its DPU (Comch) or across "
		        "the network (RDMA); inside one process pass them through memory\n");
		return 2;
	}
	if (adv.measure && measure_crossover(&x) != 0)
		return 1;
	if (adv.compare && compare_fastpath(&cmp) != 0)
		return 1;
	if (adv.q.between == ADVISE_NETWORK && adv.measure) {
		size_t sz = adv.q.size > (64u << 20) ? (64u << 20) : adv.q.size;

		rd_ok = bench_rdma_run(sz ? sz : 1, 8, 1.0, 3, false, &rd, err, sizeof(err)) == 0;
		if (!rd_ok)
			fprintf(stderr, "odma-advise: RDMA measurement: %s\n", err);
	}
	advise_rule(&adv.q, &x, &a); /* again, with the crossover measured */
	if (adv.json)
		print_json(&a, &x, adv.compare ? &cmp : NULL, rd_ok ? &rd : NULL);
	else
		print_text(&a, &x, adv.compare ? &cmp : NULL, rd_ok ? &rd : NULL);
	return 0;
}
