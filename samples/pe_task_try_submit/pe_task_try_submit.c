/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * pe_task_try_submit: validate before submitting. doca_task_try_submit checks everything
 * plain submit would only discover when the copy runs; here task #2 has a zero-length
 * source, try_submit rejects it with DOCA_ERROR_INVALID_VALUE while the task stays ours, the
 * program repairs the source's data segment and tries again, and all 16 copies succeed with
 * the context still RUNNING.
 */

#include <doca_log.h>

#include "sample_common.h"

DOCA_LOG_REGISTER(PE_TASK_TRY_SUBMIT);

#define NB_TASKS 16
#define BAD_TASK 2
#define BUF_SIZE 4096

struct try_state {
	uint32_t ok;
	uint32_t done;
};

static void task_cb(struct doca_dma_task_memcpy *task, union doca_data task_user,
                    union doca_data ctx_user)
{
	struct try_state *st = ctx_user.ptr;

	(void)task_user;
	if (doca_task_get_status(doca_dma_task_memcpy_as_task(task)) == DOCA_SUCCESS)
		st->ok++;
	st->done++;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

/* try_submit one task; on a rejection of the known-bad task, repair it and retry once. */
static doca_error_t try_one(struct copy_bench *b, struct doca_dma_task_memcpy *task, uint32_t i,
                            uint32_t *rejected)
{
	struct doca_task *t = doca_dma_task_memcpy_as_task(task);
	doca_error_t err = doca_task_try_submit(t);

	if (err == DOCA_ERROR_INVALID_VALUE && i == BAD_TASK) {
		(*rejected)++;
		DOCA_LOG_INFO("Task #%u rejected by try_submit: %s; repairing its source", i,
		              doca_error_get_name(err));
		err = doca_buf_set_data(b->src[i], bench_src_bytes(b, i), b->buf_size);
		if (err == DOCA_SUCCESS)
			err = doca_task_try_submit(t);
	}
	if (err != DOCA_SUCCESS)
		doca_task_free(t);
	return err;
}

static doca_error_t run(struct copy_bench *b)
{
	struct try_state st = { 0 };
	struct doca_dma_task_memcpy *task;
	enum doca_ctx_states state = DOCA_CTX_STATE_IDLE;
	uint32_t i, rejected = 0;
	struct doca_dma *dma;
	doca_error_t err = doca_buf_set_data(b->src[BAD_TASK], bench_src_bytes(b, BAD_TASK), 0);

	if (err == DOCA_SUCCESS)
		err = bench_dma_start(b, NB_TASKS, task_cb, task_cb, NULL, &st, &dma);
	if (err != DOCA_SUCCESS)
		return err;
	for (i = 0; i < NB_TASKS && err == DOCA_SUCCESS; i++) {
		union doca_data user = { .u64 = i };

		err = doca_dma_task_memcpy_alloc_init(dma, b->src[i], b->dst[i], user, &task);
		if (err == DOCA_SUCCESS)
			err = try_one(b, task, i, &rejected);
	}
	if (err == DOCA_SUCCESS)
		err = bench_wait_count(b, &st.done, NB_TASKS);
	doca_ctx_get_state(doca_dma_as_ctx(dma), &state);
	for (i = 0; err == DOCA_SUCCESS && i < NB_TASKS; i++)
		if (!bench_pair_ok(b, i))
			err = DOCA_ERROR_UNEXPECTED;
	if (err == DOCA_SUCCESS && (rejected != 1 || state != DOCA_CTX_STATE_RUNNING))
		err = DOCA_ERROR_UNEXPECTED;
	bench_dma_destroy(b, dma);
	DOCA_LOG_INFO("%u rejected by try_submit and repaired; %u of %d tasks completed; context "
	              "stayed RUNNING; destinations %s",
	              rejected, st.ok, NB_TASKS, err == DOCA_SUCCESS ? "verified" : "NOT verified");
	return err;
}

int main(int argc, char **argv)
{
	return sample_bench_main("pe_task_try_submit", argc, argv, NB_TASKS, BUF_SIZE, run);
}
