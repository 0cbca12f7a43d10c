/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * pe_polling: submit 16 DMA memcpy tasks on one context, then poll the progress engine
 * (doca_pe_progress in a loop) until every completion callback has run.
 */

#include <doca_log.h>

#include "sample_common.h"

DOCA_LOG_REGISTER(PE_POLLING);

#define NB_TASKS 16
#define BUF_SIZE 4096

struct polling_state {
	uint32_t ok;
	uint32_t failed;
	uint32_t done;
};

static void task_done(struct doca_dma_task_memcpy *task, union doca_data task_user,
                      union doca_data ctx_user)
{
	struct polling_state *st = ctx_user.ptr;

	(void)task_user;
	if (doca_task_get_status(doca_dma_task_memcpy_as_task(task)) == DOCA_SUCCESS)
		st->ok++;
	else
		st->failed++;
	st->done++;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

static doca_error_t submit_all(struct copy_bench *b, struct doca_dma *dma)
{
	struct doca_dma_task_memcpy *task;
	doca_error_t err = DOCA_SUCCESS;
	uint32_t i;

	for (i = 0; i < NB_TASKS && err == DOCA_SUCCESS; i++) {
		union doca_data user = { .u64 = i };

		err = doca_dma_task_memcpy_alloc_init(dma, b->src[i], b->dst[i], user, &task);
		if (err != DOCA_SUCCESS)
			break;
		err = doca_task_submit(doca_dma_task_memcpy_as_task(task));
		if (err != DOCA_SUCCESS)
			doca_task_free(doca_dma_task_memcpy_as_task(task));
	}
	if (err != DOCA_SUCCESS)
		DOCA_LOG_ERR("Task %u: %s", i, doca_error_get_descr(err));
	return err;
}

static doca_error_t run(struct copy_bench *b)
{
	struct polling_state st = { 0 };
	uint32_t polls = 0, i;
	struct doca_dma *dma;
	doca_error_t err = bench_dma_start(b, NB_TASKS, task_done, task_done, NULL, &st, &dma);

	if (err != DOCA_SUCCESS)
		return err;
	err = submit_all(b, dma);
	DOCA_LOG_INFO("Submitted %d tasks; polling the progress engine", NB_TASKS);
	/* The polling loop itself: progress runs the callbacks; nothing else does. */
	while (err == DOCA_SUCCESS && st.done < NB_TASKS) {
		if (doca_pe_progress(b->pe) == 0 && ++polls > 10000000u)
			err = DOCA_ERROR_TIME_OUT;
	}
	for (i = 0; err == DOCA_SUCCESS && i < NB_TASKS; i++)
		if (!bench_pair_ok(b, i))
			err = DOCA_ERROR_UNEXPECTED;
	bench_dma_destroy(b, dma);
	DOCA_LOG_INFO("%u tasks completed, %u failed; destinations %s", st.ok, st.failed,
	              err == DOCA_SUCCESS ? "verified" : "NOT verified");
	return st.failed == 0 ? err : DOCA_ERROR_IO_FAILED;
}

int main(int argc, char **argv)
{
	return sample_bench_main("pe_polling", argc, argv, NB_TASKS, BUF_SIZE, run);
}
