/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * pe_task_resubmit: reuse tasks instead of allocating new ones. A pool of 4 tasks copies 16
 * buffer pairs: each completion callback points its task at the next pair waiting
 * (doca_dma_task_memcpy_set_src / _set_dst) and submits the same task again; a task is
 * freed only when no pair is left.
 */

#include <doca_log.h>

#include "sample_common.h"

DOCA_LOG_REGISTER(PE_TASK_RESUBMIT);

#define NB_TASKS 4
#define NB_PAIRS 16
#define BUF_SIZE 4096

struct resubmit_state {
	struct copy_bench *b;
	uint32_t next_pair; /* the first pair no task has taken yet */
	uint32_t ok;
	uint32_t done;
	uint32_t resubmits;
	doca_error_t err;
};

static void task_cb(struct doca_dma_task_memcpy *task, union doca_data task_user,
                    union doca_data ctx_user)
{
	struct resubmit_state *st = ctx_user.ptr;
	struct doca_task *t = doca_dma_task_memcpy_as_task(task);
	union doca_data pair;

	(void)task_user;
	if (doca_task_get_status(t) == DOCA_SUCCESS)
		st->ok++;
	st->done++;
	if (st->next_pair < NB_PAIRS && st->err == DOCA_SUCCESS) {
		pair.u64 = st->next_pair++;
		doca_dma_task_memcpy_set_src(task, st->b->src[pair.u64]);
		doca_dma_task_memcpy_set_dst(task, st->b->dst[pair.u64]);
		doca_task_set_user_data(t, pair);
		st->err = doca_task_submit(t);
		if (st->err == DOCA_SUCCESS) {
			st->resubmits++;
			return;
		}
	}
	doca_task_free(t);
}

static doca_error_t run(struct copy_bench *b)
{
	struct resubmit_state st = { .b = b, .next_pair = NB_TASKS, .err = DOCA_SUCCESS };
	struct doca_dma_task_memcpy *task;
	struct doca_dma *dma;
	uint32_t i;
	doca_error_t err = bench_dma_start(b, NB_TASKS, task_cb, task_cb, NULL, &st, &dma);

	if (err != DOCA_SUCCESS)
		return err;
	for (i = 0; i < NB_TASKS && err == DOCA_SUCCESS; i++) {
		union doca_data user = { .u64 = i };

		err = doca_dma_task_memcpy_alloc_init(dma, b->src[i], b->dst[i], user, &task);
		if (err == DOCA_SUCCESS) {
			err = doca_task_submit(doca_dma_task_memcpy_as_task(task));
			if (err != DOCA_SUCCESS)
				doca_task_free(doca_dma_task_memcpy_as_task(task));
		}
	}
	if (err == DOCA_SUCCESS)
		err = bench_wait_count(b, &st.done, NB_PAIRS);
	if (err == DOCA_SUCCESS)
		err = st.err;
	for (i = 0; err == DOCA_SUCCESS && i < NB_PAIRS; i++)
		if (!bench_pair_ok(b, i))
			err = DOCA_ERROR_UNEXPECTED;
	bench_dma_destroy(b, dma);
	DOCA_LOG_INFO("%d tasks copied %u of %d buffer pairs "
	              "(%u resubmissions from callbacks); destinations %s",
	              NB_TASKS, st.ok, NB_PAIRS, st.resubmits,
	              err == DOCA_SUCCESS ? "verified" : "NOT verified");
	return st.ok == NB_PAIRS ? err : DOCA_ERROR_IO_FAILED;
}

int main(int argc, char **argv)
{
	return sample_bench_main("pe_task_resubmit", argc, argv, NB_PAIRS, BUF_SIZE, run);
}
