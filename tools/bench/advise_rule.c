/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The rule of odma advise, one row per shape of question, tried in order; the first row
 * that matches answers. DMA on one host or between a host and its DPU, RDMA across the
 * network, Comch for messages between a host and its DPU, and a plain memcpy only for a
 * copy below the crossover inside one process: two processes cannot memcpy each other's
 * memory, so memcpy is never the answer for host-DPU or network.
 */
#include <stdio.h>
#include <string.h>

#include "advise.h"

enum advise_kind { ANY_KIND, MESSAGES, BULK };
enum advise_size { ANY_SIZE, BELOW_CROSSOVER, AT_OR_ABOVE_CROSSOVER };

struct advise_row {
	enum advise_between between;
	enum advise_kind kind;
	enum advise_size size;
	const char *path;
	void (*why)(const struct advise_question *q, const struct advise_crossover *x, char *out,
	            size_t len);
};

static const char *const between_names[] = {
	[ADVISE_SAME_PROCESS] = "same-process",
	[ADVISE_HOST_DPU] = "host-dpu",
	[ADVISE_NETWORK] = "network",
};

const char *advise_between_name(enum advise_between b)
{
	return between_names[b];
}

int advise_between_parse(const char *s, enum advise_between *out)
{
	for (size_t i = 0; i < sizeof(between_names) / sizeof(between_names[0]); i++)
		if (strcmp(s, between_names[i]) == 0) {
			*out = (enum advise_between)i;
			return 0;
		}
	return -1;
}

static void why_rdma(const struct advise_question *q, const struct advise_crossover *x, char *out,
                     size_t len)
{
	(void)x;
	snprintf(out, len,
	         "The data crosses the network, which DMA cannot do: DMA moves bytes "
	         "between memory of one host or between a host and its DPU over PCIe, "
	         "and memcpy only within one process. "
	         "DOCA RDMA writes or reads the remote side's registered memory without its CPU, "
	         "with the same register-once, submit-tasks model as DMA%s.",
	         q->messages ? "; its send and receive tasks carry messages" : "");
}

static void why_comch(const struct advise_question *q, const struct advise_crossover *x, char *out,
                      size_t len)
{
	(void)q;
	(void)x;
	snprintf(out, len,
	         "These are messages between a host process and a DPU process: ordering, flow "
	         "control and a notification per message matter more than bulk bandwidth. DOCA "
	         "Comch gives host-DPU message channels (and producer/consumer queues for its fast "
	         "path) with events; use DMA for large payloads the messages point to.");
}

static void why_dma_host_dpu(const struct advise_question *q, const struct advise_crossover *x,
                             char *out, size_t len)
{
	(void)x;
	snprintf(out, len,
	         "A copy of %zu bytes%s between a host process and a process on its DPU: the two "
	         "processes cannot memcpy each other's memory, whatever the size. DMA moves it "
	         "over PCIe without either CPU: the other side exports its region once "
	         "(doca_mmap_export_pci), this side maps it (doca_mmap_create_from_export) and "
	         "submits DMA tasks of at most max_buf_size bytes each.",
	         q->size, q->count > 1 ? " (repeated)" : "");
}

static void why_memcpy(const struct advise_question *q, const struct advise_crossover *x, char *out,
                       size_t len)
{
	snprintf(out, len,
	         "A %zu-byte copy inside one process, below the DMA/memcpy crossover of %zu "
	         "bytes: a one-shot DMA task (submit, hand-off, completion callback) costs more "
	         "than a CPU memcpy of the same bytes, so copy them with memcpy%s.",
	         q->size, x->bytes,
	         q->count > 1 ? "; many such copies kept in flight raise DMA throughput, but each "
	                        "still pays the task overhead, so memcpy stays the cheaper "
	                        "choice unless the CPU must be freed for other work"
	                      : "");
}

static void why_dma_local(const struct advise_question *q, const struct advise_crossover *x,
                          char *out, size_t len)
{
	snprintf(out, len,
	         "A bulk copy of %zu bytes%s inside one process: "
	         "at or above the DMA/memcpy crossover (%zu bytes) "
	         "a DMA task costs no more than memcpy, and it frees the CPU while the copy runs. "
	         "Register the regions once (doca_mmap), keep several tasks in flight, "
	         "and split copies above max_buf_size into tasks of at most that size.",
	         q->size, q->count > 1 ? " (repeated)" : "", x->bytes);
}

/* In order: the first row that matches answers. */
static const struct advise_row rule[] = {
	{ ADVISE_NETWORK, ANY_KIND, ANY_SIZE, "rdma", why_rdma },
	{ ADVISE_HOST_DPU, MESSAGES, ANY_SIZE, "comch", why_comch },
	{ ADVISE_HOST_DPU, BULK, ANY_SIZE, "dma", why_dma_host_dpu },
	{ ADVISE_SAME_PROCESS, BULK, BELOW_CROSSOVER, "memcpy", why_memcpy },
	{ ADVISE_SAME_PROCESS, BULK, AT_OR_ABOVE_CROSSOVER, "dma", why_dma_local },
};

static bool row_matches(const struct advise_row *r, const struct advise_question *q,
                        const struct advise_crossover *x)
{
	if (r->between != q->between)
		return false;
	if ((r->kind == MESSAGES && !q->messages) || (r->kind == BULK && q->messages))
		return false;
	if (r->size == BELOW_CROSSOVER)
		return q->size < x->bytes;
	if (r->size == AT_OR_ABOVE_CROSSOVER)
		return q->size >= x->bytes;
	return true;
}

void advise_rule(const struct advise_question *q, const struct advise_crossover *x,
                 struct advise_answer *a)
{
	memset(a, 0, sizeof(*a));
	for (size_t i = 0; i < sizeof(rule) / sizeof(rule[0]); i++)
		if (row_matches(&rule[i], q, x)) {
			a->path = rule[i].path;
			a->uses_crossover = rule[i].size != ANY_SIZE;
			a->near_crossover = a->uses_crossover && x->runs > 0 && q->size >= x->min &&
			                    q->size < x->max;
			rule[i].why(q, x, a->why, sizeof(a->why));
			return;
		}
	/* no row: same-process messages, which advise.c refuses when it reads the flags */
	snprintf(a->why, sizeof(a->why), "no row of the rule answers %s messages",
	         advise_between_name(q->between));
}
