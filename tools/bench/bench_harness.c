/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The "harness only" row: the odma loop's own bookkeeping with the DMA task replaced by
 * nothing. Per task it does what bench_odma.c does around a DOCA call: a completion
 * reached through a function pointer, the slot advance, the buffer pointers for the next
 * slot, the counters; the clock is read once per 32 rounds, as in the real loop. What it
 * reaches is the ceiling the loop itself puts on any engine measured with it.
 */
#include <stdlib.h>

#include "bench.h"

struct harness_task {
	size_t slot;
	const uint8_t *src;
	uint8_t *dst;
	size_t len;
};

struct harness_run {
	const struct bench_mem *m;
	struct harness_task *t;
	uint32_t depth;
	uint64_t done, inflight;
};

static void harness_position(struct harness_run *r, uint32_t i)
{
	struct harness_task *t = &r->t[i];

	t->src = r->m->src + t->slot * r->m->stride;
	t->dst = r->m->dst + t->slot * r->m->stride;
	t->len = r->m->task_size;
	t->slot += r->depth;
	if (t->slot >= r->m->n_slots)
		t->slot -= r->m->n_slots;
	r->inflight++;
}

static void harness_done(struct harness_run *r, uint32_t i)
{
	r->inflight--;
	r->done++;
	harness_position(r, i);
}

/* Called through a volatile pointer so that the compiler keeps the call, as a callback. */
static void (*volatile harness_cb)(struct harness_run *r, uint32_t i) = harness_done;

void bench_harness_rep(const struct bench_cfg *c, const struct bench_mem *m, double seconds,
                       struct bench_rep *rep)
{
	struct harness_run r = { .m = m, .depth = c->depth };
	uint64_t t0 = bench_now_ns(), end = t0 + (uint64_t)(seconds * 1e9), t1;

	rep->tasks = 0;
	rep->seconds = 0;
	rep->verified = true;
	r.t = calloc(c->depth, sizeof(*r.t));
	if (r.t == NULL)
		return;
	for (uint32_t i = 0; i < c->depth; i++) {
		r.t[i].slot = i;
		harness_position(&r, i);
	}
	do {
		for (int k = 0; k < 32; k++)
			for (uint32_t i = 0; i < c->depth; i++)
				harness_cb(&r, i);
	} while (bench_now_ns() < end);
	t1 = bench_now_ns();
	rep->tasks = r.done;
	rep->seconds = (double)(t1 - t0) / 1e9;
	free(r.t);
}
