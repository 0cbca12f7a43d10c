/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * pe_reactive: the program reacts only inside callbacks. Each completion submits the copy
 * of the next buffer pair; the callback of the last one stops the context itself, and the
 * main loop merely progresses until the state-changed callback reports IDLE.
 */

#include <doca_log.h>

#include "sample_common.h"

DOCA_LOG_REGISTER(PE_REACTIVE);

#define NB_PAIRS 16
#define BUF_SIZE 4096

struct reactive_state {
	struct copy_bench *b;
	struct doca_dma *dma;
	uint32_t ok;
	uint32_t done;
	bool idle; /* set by the state-changed callback */
	doca_error_t err;
};

static doca_error_t submit_pair(struct reactive_state *st, uint32_t pair)
{
	struct doca_dma_task_memcpy *task;
	union doca_data user = { .u64 = pair };
	doca_error_t err = doca_dma_task_memcpy_alloc_init(st->dma, st->b->src[pair],
	                                                   st->b->dst[pair], user, &task);

	if (err != DOCA_SUCCESS)
		return err;
	err = doca_task_submit(doca_dma_task_memcpy_as_task(task));
	if (err != DOCA_SUCCESS)
		doca_task_free(doca_dma_task_memcpy_as_task(task));
	return err;
}

static void task_cb(struct doca_dma_task_memcpy *task, union doca_data task_user,
                    union doca_data ctx_user)
{
	struct reactive_state *st = ctx_user.ptr;
	struct doca_ctx *ctx = doca_task_get_ctx(doca_dma_task_memcpy_as_task(task));
	doca_error_t err;

	(void)task_user;
	if (doca_task_get_status(doca_dma_task_memcpy_as_task(task)) == DOCA_SUCCESS)
		st->ok++;
	st->done++;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
	if (st->done < NB_PAIRS && st->err == DOCA_SUCCESS) {
		st->err = submit_pair(st, st->done);
		if (st->err == DOCA_SUCCESS)
			return;
	}
	/* Last one (or a failure): stop from inside the callback. */
	err = doca_ctx_stop(ctx);
	if (err != DOCA_SUCCESS && err != DOCA_ERROR_IN_PROGRESS)
		st->err = err;
}

static void state_cb(const union doca_data user, struct doca_ctx *ctx, enum doca_ctx_states prev,
                     enum doca_ctx_states next)
{
	struct reactive_state *st = user.ptr;

	(void)ctx;
	(void)prev;
	if (next == DOCA_CTX_STATE_IDLE)
		st->idle = true;
}

static doca_error_t run(struct copy_bench *b)
{
	struct reactive_state st = { .b = b, .err = DOCA_SUCCESS };
	uint32_t i, spins = 0;
	doca_error_t err = bench_dma_start(b, 1, task_cb, task_cb, state_cb, &st, &st.dma);

	if (err != DOCA_SUCCESS)
		return err;
	err = submit_pair(&st, 0);
	while (err == DOCA_SUCCESS && !st.idle)
		if (!bench_progress_once(b->pe, &spins))
			err = DOCA_ERROR_TIME_OUT;
	if (err == DOCA_SUCCESS)
		err = st.err;
	for (i = 0; err == DOCA_SUCCESS && i < NB_PAIRS; i++)
		if (!bench_pair_ok(b, i))
			err = DOCA_ERROR_UNEXPECTED;
	if (st.idle)
		doca_dma_destroy(st.dma);
	else
		bench_dma_destroy(b, st.dma);
	DOCA_LOG_INFO("%u copies chained from callbacks (one task at a time); the last callback "
	              "stopped the context; destinations %s",
	              st.ok, err == DOCA_SUCCESS ? "verified" : "NOT verified");
	return st.ok == NB_PAIRS ? err : DOCA_ERROR_IO_FAILED;
}

int main(int argc, char **argv)
{
	return sample_bench_main("pe_reactive", argc, argv, NB_PAIRS, BUF_SIZE, run);
}
