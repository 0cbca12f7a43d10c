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
#include "core/exec/trace.h"
#include "engines/engine.h"

void odma_task_mark_failed(struct doca_ctx *ctx, uint64_t seq)
{
	uint_fast64_t cur = atomic_load_explicit(&ctx->flush_from, memory_order_relaxed);

	/*
	 * Only lowered (a stop's 0 stays). Release: a thread that sees the new limit also sees
	 * what the failing thread wrote before (the failed task's status).
	 */
	while (seq + 1 < cur &&
	       !atomic_compare_exchange_weak_explicit(&ctx->flush_from, &cur, seq + 1,
	                                              memory_order_release, memory_order_relaxed))
		;
}

/*
 * Whether the task is flushed: a stop was requested, or a task submitted before it failed
 * (one load: both lower flush_from). Acquire pairs with the release of the stores and of
 * odma_task_mark_failed; on x86 and in the per-task cost it is a plain load.
 */
static inline bool task_flushed(const struct doca_task *task)
{
	return task->seq >= atomic_load_explicit(&task->ctx->flush_from, memory_order_acquire);
}

/* The checks every part of a task passes before its bytes move. */
static inline doca_error_t task_precheck(struct doca_task *task)
{
	if (doca_unlikely(task->preset != DOCA_SUCCESS)) {
		odma_task_mark_failed(task->ctx, task->seq);
		return task->preset;
	}
	if (doca_unlikely(task_flushed(task)))
		return DOCA_ERROR_IO_FAILED;
	return DOCA_SUCCESS;
}

static inline void run_range(struct doca_task *task, uint64_t off, uint64_t len);

/*
 * One part with fault injection or the timeline on (odma_exec_slow): the injected delay, then
 * the part as usual, timed for ODMA_TRACE.
 */
static void __attribute__((noinline))
run_range_slow(struct doca_task *task, uint64_t off, uint64_t len)
{
	uint64_t t0;

	if (odma_faults_enabled)
		odma_faults_delay(task->seq);
	t0 = odma_trace_enabled ? doca_priv_now_ns() : 0;
	run_range(task, off, len);
	if (odma_trace_enabled)
		odma_trace_run(task, t0, len);
}

void odma_task_run_range(struct doca_task *task, uint64_t off, uint64_t len)
{
	if (doca_unlikely(odma_exec_slow)) {
		run_range_slow(task, off, len);
		return;
	}
	run_range(task, off, len);
}

static inline __attribute__((always_inline)) void run_range(struct doca_task *task, uint64_t off,
                                                            uint64_t len)
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

/* The task whose copy this is (a copy task embeds its copy). */
static inline struct doca_task *copy_task(const struct odma_copy *c)
{
	return (struct doca_task *)(uintptr_t)((const char *)c - offsetof(struct doca_task, copy));
}

/* A failed move, in order: the later tasks of its context are flushed although they moved. */
static void __attribute__((noinline))
run_batch_failed(const struct odma_copy *const *copy, const doca_error_t *st, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (doca_unlikely(st[i] != DOCA_SUCCESS)) {
			struct doca_task *t = copy_task(copy[i]);

			odma_task_mark_failed(t->ctx, t->seq);
		}
	/*
	 * As if run one by one: a task after a failed one of its context is flushed, although
	 * its bytes moved in the same call (its destination bytes are then undefined).
	 */
	for (unsigned int i = 0; i < n; i++) {
		struct doca_task *t = copy_task(copy[i]);

		if (doca_unlikely(st[i] != DOCA_SUCCESS) || doca_unlikely(task_flushed(t)))
			__atomic_store_n(&t->status, DOCA_ERROR_IO_FAILED, __ATOMIC_RELAXED);
	}
}

/* Up to ODMA_COPY_BATCH_MAX tasks: the checks, then one odma_copy_move_batch. */
static void run_batch_one(struct doca_task *const *tasks, unsigned int n)
{
	const struct odma_copy *copy[ODMA_COPY_BATCH_MAX];
	doca_error_t st[ODMA_COPY_BATCH_MAX];
	unsigned int m = 0;

	if (doca_unlikely(odma_exec_slow)) {
		/* as if run one by one, each with its delay and its timeline slice */
		for (unsigned int i = 0; i < n; i++)
			run_range_slow(tasks[i], 0, tasks[i]->copy.total);
		return;
	}
	for (unsigned int i = 0; i < n; i++) {
		struct doca_task *t = tasks[i];

		/* a failure decided at submit, or a flush: the task fails without moving */
		if (doca_unlikely(t->preset != DOCA_SUCCESS)) {
			odma_task_mark_failed(t->ctx, t->seq);
			__atomic_store_n(&t->status, t->preset, __ATOMIC_RELAXED);
			continue;
		}
		if (doca_unlikely(task_flushed(t))) {
			__atomic_store_n(&t->status, DOCA_ERROR_IO_FAILED, __ATOMIC_RELAXED);
			continue;
		}
		copy[m++] = &t->copy;
	}
	if (doca_unlikely(odma_copy_move_batch(copy, m, st)))
		run_batch_failed(copy, st, m);
	/* else every task passed its checks before its bytes moved, as run alone */
}

void odma_task_run_batch(struct doca_task *const *tasks, unsigned int n)
{
	for (unsigned int i = 0; i < n; i += ODMA_COPY_BATCH_MAX)
		run_batch_one(tasks + i, n - i < ODMA_COPY_BATCH_MAX ? n - i : ODMA_COPY_BATCH_MAX);
}

void odma_task_stage_full(struct odma_task_stage *s, struct doca_pe *pe)
{
	odma_task_stage_run(s, pe);
}

uint64_t odma_task_bytes(const struct doca_task *task)
{
	return task->copy.total;
}
