/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * pe_task_error: what a failed task does to its context. Of 16 tasks, task #2 has a
 * zero-length source. Submitted with plain doca_task_submit it is accepted, then fails
 * (its error callback reads the status); the failure is fatal for the context, which moves
 * to STOPPING by itself, flushes the other tasks in flight and reaches IDLE once all of
 * them have been freed. Tasks that could no longer be submitted are freed by the program.
 */

#include <doca_log.h>

#include "sample_common.h"

DOCA_LOG_REGISTER(PE_TASK_ERROR);

#define NB_TASKS 16
#define BAD_TASK 2
#define BUF_SIZE 4096

struct error_state {
	uint32_t ok;
	uint32_t failed;
	bool bad_task_failed;
	doca_error_t bad_task_status;
};

static void task_ok(struct doca_dma_task_memcpy *task, union doca_data task_user,
                    union doca_data ctx_user)
{
	struct error_state *st = ctx_user.ptr;

	(void)task_user;
	st->ok++;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

static void task_failed(struct doca_dma_task_memcpy *task, union doca_data task_user,
                        union doca_data ctx_user)
{
	struct error_state *st = ctx_user.ptr;
	doca_error_t status = doca_task_get_status(doca_dma_task_memcpy_as_task(task));

	st->failed++;
	if (task_user.u64 == BAD_TASK) {
		st->bad_task_failed = true;
		st->bad_task_status = status;
	}
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

/* Submits all tasks; returns how many were accepted. */
static uint32_t submit_all(struct copy_bench *b, struct doca_dma *dma)
{
	struct doca_dma_task_memcpy *task;
	uint32_t i, accepted = 0;

	for (i = 0; i < NB_TASKS; i++) {
		union doca_data user = { .u64 = i };
		doca_error_t err;

		err = doca_dma_task_memcpy_alloc_init(dma, b->src[i], b->dst[i], user, &task);
		if (err == DOCA_SUCCESS) {
			err = doca_task_submit(doca_dma_task_memcpy_as_task(task));
			if (err != DOCA_SUCCESS)
				doca_task_free(doca_dma_task_memcpy_as_task(task));
		}
		if (err == DOCA_SUCCESS)
			accepted++;
		else
			DOCA_LOG_INFO("Task %u not submitted: %s (the context is stopping)", i,
			              doca_error_get_name(err));
	}
	return accepted;
}

static doca_error_t run(struct copy_bench *b)
{
	struct error_state st = { 0 };
	enum doca_ctx_states state;
	struct doca_dma *dma;
	uint32_t accepted;
	doca_error_t err = doca_buf_set_data(b->src[BAD_TASK], bench_src_bytes(b, BAD_TASK), 0);

	if (err == DOCA_SUCCESS)
		err = bench_dma_start(b, NB_TASKS, task_ok, task_failed, NULL, &st, &dma);
	if (err != DOCA_SUCCESS)
		return err;
	accepted = submit_all(b, dma);
	/* No doca_ctx_stop here: the failed task stops the context. */
	err = bench_wait_idle(b, doca_dma_as_ctx(dma));
	doca_ctx_get_state(doca_dma_as_ctx(dma), &state);
	DOCA_LOG_INFO("Submitted %u of %d tasks: %u completed, %u failed or flushed; task #%d "
	              "status %s; context %s",
	              accepted, NB_TASKS, st.ok, st.failed, BAD_TASK,
	              doca_error_get_name(st.bad_task_status),
	              state == DOCA_CTX_STATE_IDLE ? "stopped by itself (IDLE)" : "NOT idle");
	if (err == DOCA_SUCCESS && (!st.bad_task_failed || st.ok + st.failed != accepted))
		err = DOCA_ERROR_UNEXPECTED;
	if (err == DOCA_SUCCESS)
		doca_dma_destroy(dma);
	else
		bench_dma_destroy(b, dma);
	return err;
}

int main(int argc, char **argv)
{
	return sample_bench_main("pe_task_error", argc, argv, NB_TASKS, BUF_SIZE, run);
}
