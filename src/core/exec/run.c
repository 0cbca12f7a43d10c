/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Running a task's copy, on whichever thread its engine chooses. Every part of every task
 * passes the same checks here before its bytes move: an injected delay, a failure decided
 * at submit, and the flush of its context.
 *
 * A failed task puts its context in error, as a hardware queue does: every task
 * submitted after it is flushed with IO_FAILED, whichever thread runs it, while the
 * ones before it complete. The state change (STOPPING) comes when progress delivers
 * the failure.
 */
#include "core/exec/exec_int.h"
#include "core/exec/faults.h"
#include "engines/engine.h"

void odma_task_mark_failed(struct doca_ctx *ctx, uint64_t seq)
{
	uint_fast64_t cur = atomic_load_explicit(&ctx->fail_seq, memory_order_relaxed);

	while (seq < cur &&
	       !atomic_compare_exchange_weak_explicit(&ctx->fail_seq, &cur, seq,
	                                              memory_order_release, memory_order_relaxed))
		;
}

static inline bool task_flushed(const struct doca_task *task)
{
	const struct doca_ctx *ctx = task->ctx;

	return atomic_load_explicit(&ctx->flushing, memory_order_acquire) ||
	       task->seq > atomic_load_explicit(&ctx->fail_seq, memory_order_acquire);
}

/* The checks every part of a task passes before its bytes move. */
static inline doca_error_t task_precheck(struct doca_task *task)
{
	if (doca_unlikely(odma_faults_enabled))
		odma_faults_delay(task->seq);
	if (doca_unlikely(task->preset != DOCA_SUCCESS)) {
		odma_task_mark_failed(task->ctx, task->seq);
		return task->preset;
	}
	if (doca_unlikely(task_flushed(task)))
		return DOCA_ERROR_IO_FAILED;
	return DOCA_SUCCESS;
}

void odma_task_run_range(struct doca_task *task, uint64_t off, uint64_t len)
{
	doca_error_t r = task_precheck(task);

	if (doca_likely(r == DOCA_SUCCESS) &&
	    doca_unlikely(odma_copy_move(&task->copy, off, len) != DOCA_SUCCESS)) {
		odma_task_mark_failed(task->ctx, task->seq); /* unreachable memory */
		r = DOCA_ERROR_IO_FAILED;
	}
	/* the ranges of a split task may fail at once on several threads: an atomic store each */
	if (doca_unlikely(r != DOCA_SUCCESS))
		__atomic_store_n(&task->status, r, __ATOMIC_RELAXED);
}

void odma_task_run(struct doca_task *task, enum odma_part part)
{
	const struct odma_copy *c = &task->copy;
	uint64_t off = part == ODMA_PART_TAIL ? c->split_at : 0;
	uint64_t len = part == ODMA_PART_HEAD ? c->split_at : c->total - off;

	odma_task_run_range(task, off, len);
}

_Static_assert(ODMA_TASK_BATCH_MAX <= ODMA_COPY_BATCH_MAX, "a task batch is one copy batch");

/* One batch: the tasks that passed their checks, and their copies. */
struct run_batch {
	unsigned int n;
	struct doca_task *task[ODMA_TASK_BATCH_MAX];
	const struct odma_copy *copy[ODMA_TASK_BATCH_MAX];
	doca_error_t st[ODMA_TASK_BATCH_MAX];
};

void odma_task_run_batch(struct doca_task *const *tasks, unsigned int n)
{
	struct run_batch b;
	bool failed;

	b.n = 0;
	for (unsigned int i = 0; i < n; i++) {
		doca_error_t r = task_precheck(tasks[i]);

		if (doca_likely(r == DOCA_SUCCESS)) {
			b.task[b.n] = tasks[i];
			b.copy[b.n++] = &tasks[i]->copy;
			continue;
		}

		__atomic_store_n(&tasks[i]->status, r, __ATOMIC_RELAXED);
	}
	failed = odma_copy_move_batch(b.copy, b.n, b.st);
	if (doca_likely(!failed))
		return; /* every task passed its checks before its bytes moved, as run alone */
	for (unsigned int i = 0; i < b.n; i++)
		if (doca_unlikely(b.st[i] != DOCA_SUCCESS))
			odma_task_mark_failed(b.task[i]->ctx, b.task[i]->seq);
	/*
	 * As if run one by one: a task after a failed one of its context is flushed, although
	 * its bytes moved in the same call (its destination bytes are then undefined).
	 */
	for (unsigned int i = 0; i < b.n; i++) {
		struct doca_task *t = b.task[i];

		if (doca_unlikely(b.st[i] != DOCA_SUCCESS))
			__atomic_store_n(&t->status, DOCA_ERROR_IO_FAILED, __ATOMIC_RELAXED);
		else if (doca_unlikely(t->seq > atomic_load_explicit(&t->ctx->fail_seq,
		                                                     memory_order_acquire)))
			__atomic_store_n(&t->status, DOCA_ERROR_IO_FAILED, __ATOMIC_RELAXED);
	}
}
