/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * pe_multi_context: four DMA contexts on one progress engine. Each context copies its own
 * four buffer pairs; one progress loop serves them all, and each context's user data tells
 * its callbacks which context they belong to.
 */

#include <doca_log.h>

#include "sample_common.h"

DOCA_LOG_REGISTER(PE_MULTI_CONTEXT);

#define NB_CTX 4
#define TASKS_PER_CTX 4
#define NB_PAIRS (NB_CTX * TASKS_PER_CTX)
#define BUF_SIZE 4096

struct ctx_state {
	uint32_t id;
	uint32_t ok;
	uint32_t *total_done; /* shared by every context */
	struct doca_dma *dma;
};

static void task_cb(struct doca_dma_task_memcpy *task, union doca_data task_user,
                    union doca_data ctx_user)
{
	struct ctx_state *st = ctx_user.ptr;

	(void)task_user;
	if (doca_task_get_status(doca_dma_task_memcpy_as_task(task)) == DOCA_SUCCESS)
		st->ok++;
	(*st->total_done)++;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

static doca_error_t submit_ctx(struct copy_bench *b, struct ctx_state *st)
{
	struct doca_dma_task_memcpy *task;
	doca_error_t err = DOCA_SUCCESS;
	uint32_t i, pair;

	for (i = 0; i < TASKS_PER_CTX && err == DOCA_SUCCESS; i++) {
		union doca_data user = { .u64 = i };

		pair = st->id * TASKS_PER_CTX + i;
		err = doca_dma_task_memcpy_alloc_init(st->dma, b->src[pair], b->dst[pair], user,
		                                      &task);
		if (err == DOCA_SUCCESS) {
			err = doca_task_submit(doca_dma_task_memcpy_as_task(task));
			if (err != DOCA_SUCCESS)
				doca_task_free(doca_dma_task_memcpy_as_task(task));
		}
	}
	return err;
}

static doca_error_t run(struct copy_bench *b)
{
	struct ctx_state st[NB_CTX] = { 0 };
	uint32_t total = 0, c, i, started = 0;
	doca_error_t err = DOCA_SUCCESS;

	for (c = 0; c < NB_CTX && err == DOCA_SUCCESS; c++, started++) {
		st[c].id = c;
		st[c].total_done = &total;
		err = bench_dma_start(b, TASKS_PER_CTX, task_cb, task_cb, NULL, &st[c], &st[c].dma);
	}
	if (err != DOCA_SUCCESS)
		started--;
	for (c = 0; c < started && err == DOCA_SUCCESS; c++)
		err = submit_ctx(b, &st[c]);
	if (err == DOCA_SUCCESS)
		err = bench_wait_count(b, &total, NB_PAIRS);
	for (i = 0; err == DOCA_SUCCESS && i < NB_PAIRS; i++)
		if (!bench_pair_ok(b, i))
			err = DOCA_ERROR_UNEXPECTED;
	for (c = 0; c < started; c++) {
		DOCA_LOG_INFO("Context %u: %u of %d tasks completed", c, st[c].ok, TASKS_PER_CTX);
		if (st[c].ok != TASKS_PER_CTX && err == DOCA_SUCCESS)
			err = DOCA_ERROR_IO_FAILED;
		bench_dma_destroy(b, st[c].dma);
	}
	DOCA_LOG_INFO("%d contexts on one PE copied %u buffer pairs; destinations %s", NB_CTX,
	              total, err == DOCA_SUCCESS ? "verified" : "NOT verified");
	return err;
}

int main(int argc, char **argv)
{
	return sample_bench_main("pe_multi_context", argc, argv, NB_PAIRS, BUF_SIZE, run);
}
