/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * pe_async_stop: stop a context while tasks are still in flight. The first 8 of 16 tasks
 * are submitted and completed; then the other 8 are submitted and doca_ctx_stop() is called
 * at once. It returns DOCA_ERROR_IN_PROGRESS: the context is STOPPING, and the tasks still in
 * flight are flushed (each still gets exactly one callback; a flushed one carries an error
 * status) during the following progress calls, after which the context reaches IDLE.
 */

#include <doca_log.h>

#include "sample_common.h"

DOCA_LOG_REGISTER(PE_ASYNC_STOP);

#define NB_TASKS 16
#define STOP_AFTER 8
#define BUF_SIZE 4096

struct stop_state {
	uint32_t ok;
	uint32_t flushed;
	uint32_t done;
	uint8_t seen[NB_TASKS]; /* callbacks per task: must end up all 1 */
	struct doca_dma *dma;
};

static void task_cb(struct doca_dma_task_memcpy *task, union doca_data task_user,
                    union doca_data ctx_user)
{
	struct stop_state *st = ctx_user.ptr;

	if (doca_task_get_status(doca_dma_task_memcpy_as_task(task)) == DOCA_SUCCESS)
		st->ok++;
	else
		st->flushed++;
	st->seen[task_user.u64 % NB_TASKS]++;
	st->done++;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

static doca_error_t submit_range(struct copy_bench *b, struct doca_dma *dma, uint32_t first,
                                 uint32_t end)
{
	struct doca_dma_task_memcpy *task;
	doca_error_t err = DOCA_SUCCESS;
	uint32_t i;

	for (i = first; i < end && err == DOCA_SUCCESS; i++) {
		union doca_data user = { .u64 = i };

		err = doca_dma_task_memcpy_alloc_init(dma, b->src[i], b->dst[i], user, &task);
		if (err == DOCA_SUCCESS) {
			err = doca_task_submit(doca_dma_task_memcpy_as_task(task));
			if (err != DOCA_SUCCESS)
				doca_task_free(doca_dma_task_memcpy_as_task(task));
		}
	}
	return err;
}

static bool each_once(const struct stop_state *st)
{
	uint32_t i;

	for (i = 0; i < NB_TASKS; i++)
		if (st->seen[i] != 1)
			return false;
	return true;
}

static doca_error_t stop_midway(struct copy_bench *b, struct doca_ctx *ctx, struct stop_state *st)
{
	struct doca_dma *dma = st->dma;
	doca_error_t err = submit_range(b, dma, 0, STOP_AFTER);

	if (err == DOCA_SUCCESS)
		err = bench_wait_count(b, &st->done, STOP_AFTER);
	if (err == DOCA_SUCCESS)
		err = submit_range(b, dma, STOP_AFTER, NB_TASKS);
	if (err != DOCA_SUCCESS)
		return err;
	err = doca_ctx_stop(ctx);
	DOCA_LOG_INFO("doca_ctx_stop after %u of %d completions returned %s", st->done, NB_TASKS,
	              doca_error_get_name(err));
	if (err != DOCA_ERROR_IN_PROGRESS)
		return err == DOCA_SUCCESS ? DOCA_ERROR_UNEXPECTED : err;
	return bench_wait_idle(b, ctx);
}

static doca_error_t run(struct copy_bench *b)
{
	struct stop_state st = { 0 };
	struct doca_dma *dma;
	uint32_t i;
	doca_error_t err = bench_dma_start(b, NB_TASKS, task_cb, task_cb, NULL, &st, &dma);

	if (err != DOCA_SUCCESS)
		return err;
	st.dma = dma;
	err = stop_midway(b, doca_dma_as_ctx(dma), &st);
	if (err == DOCA_SUCCESS && !each_once(&st))
		err = DOCA_ERROR_UNEXPECTED;
	/* A task that completed successfully copied its pair in full. */
	for (i = 0; err == DOCA_SUCCESS && i < NB_TASKS; i++) {
		size_t len = 0;

		doca_buf_get_data_len(b->dst[i], &len);
		if (len != 0 && !bench_pair_ok(b, i))
			err = DOCA_ERROR_UNEXPECTED;
	}
	doca_dma_destroy(dma);
	DOCA_LOG_INFO("Context IDLE: %u tasks completed, %u flushed, each exactly one callback: %s",
	              st.ok, st.flushed, err == DOCA_SUCCESS ? "yes" : "NO");
	return err;
}

int main(int argc, char **argv)
{
	return sample_bench_main("pe_async_stop", argc, argv, NB_TASKS, BUF_SIZE, run);
}
