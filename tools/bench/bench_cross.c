/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The crossover: the smallest copy size from which a one-shot DMA task (depth 1,
 * submit to callback, the default engine, cache-hot) costs no more than BENCH_CROSS_SLACK
 * times a plain memcpy of the same bytes, for that size and every larger size tried.
 * Used by `odma bench --crossover` and `odma advise --measure`.
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"

static const size_t cross_sizes[] = { 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 2097152 };

static size_t cross_pick(const struct bench_cross *x)
{
	size_t found = 0;

	for (int i = x->n - 1; i >= 0; i--) {
		if (x->dma_p50_ns[i] > BENCH_CROSS_SLACK * x->memcpy_p50_ns[i])
			break;
		found = x->size[i];
	}
	return found;
}

int bench_crossover(double seconds_per_size, struct bench_cross *x, char *err, size_t errlen)
{
	struct bench_cfg c = { .depth = 1, .reps = 1, .list_len = 1, .mode = BENCH_LATENCY };
	size_t n = sizeof(cross_sizes) / sizeof(cross_sizes[0]),
	       maxbuf = bench_odma_probe_max_buf_size();
	struct bench_odma *ob = NULL;
	struct bench_mem m;
	struct bench_rep r;
	int rc = 0;

	memset(x, 0, sizeof(*x));
	if (maxbuf == 0 || bench_mem_prepare(&m, &c, cross_sizes[n - 1]) != 0) {
		snprintf(err, errlen,
		         maxbuf == 0 ? "no device supports DMA memcpy" : "out of memory");
		return -1;
	}
	if (bench_odma_open(&ob, &m, err, errlen) != 0) {
		bench_mem_free(&m);
		return -1;
	}
	for (size_t i = 0; i < n && cross_sizes[i] <= maxbuf && rc == 0; i++) {
		c.size = cross_sizes[i];
		bench_mem_layout(&m, &c, c.size, maxbuf);
		rc = bench_odma_rep(ob, &c, &m, seconds_per_size, &r, err, errlen);
		x->size[x->n] = c.size;
		x->dma_p50_ns[x->n] = r.p50_ns;
		x->memcpy_p50_ns[x->n++] = bench_memcpy_oneshot_ns(&m, c.size);
	}
	x->crossover = rc == 0 ? cross_pick(x) : 0;
	bench_odma_close(ob);
	bench_mem_free(&m);
	return rc;
}
