/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Tasks: allocation from the context pool, submission (validation, then the engine, or the
 * context type's own submit op), free, accessors. Running a task's copy is run.c.
 */
#include <stdlib.h>

#include "core/device/device.h"
#include "core/error/error.h"
#include "core/exec/exec_int.h"
#include "core/exec/faults.h"
#include "core/exec/trace.h"
#include "core/log/log.h"
#include "engines/engine.h"

ODMA_LOG_REGISTER(ODMA_TASK)

#define ODMA_SUBMIT_FLAGS_ALL (DOCA_TASK_SUBMIT_FLAG_FLUSH | DOCA_TASK_SUBMIT_FLAG_OPTIMIZE_REPORTS)

doca_error_t doca_priv_task_alloc(struct doca_ctx *ctx, struct doca_task **task)
{
	struct doca_task *t;

	if (doca_unlikely(ctx->state != DOCA_CTX_STATE_RUNNING)) {
		ODMA_ERR("%s context %p is %s; tasks can only be allocated while it is RUNNING",
		         ctx->ops->name, (void *)ctx, odma_ctx_state_name(ctx->state));
		return DOCA_ERROR_BAD_STATE;
	}
	t = ctx->free_tasks;
	if (doca_unlikely(t == NULL)) {
		/* a busy program may meet it at every alloc: rate-limited */
		ODMA_RATELIMITED_ERR_AT(__func__,
		                        "%s context %p: all %u tasks of the pool are allocated; %s",
		                        ctx->ops->name, (void *)ctx, ctx->num_tasks,
		                        odma_cause_fix(ODMA_CAUSE_POOL_EXHAUSTED));
		return DOCA_ERROR_NO_MEMORY;
	}
	ctx->free_tasks = t->next;
	ctx->allocated++;
	t->next = NULL;
	t->state = ODMA_TASK_ALLOCATED;
	t->status = DOCA_SUCCESS;
	t->preset = DOCA_SUCCESS;
	t->submit_flags = 0;
	t->free_pending = false;
	t->hook = NULL;
	*task = t;
	return DOCA_SUCCESS;
}

/* What the engine learns about a copy task (engines/engine.h). */
static void task_job(const struct doca_ctx *ctx, const struct doca_task *t, struct odma_job *job)
{
	bool fails = t->preset != DOCA_SUCCESS;

	job->bytes = t->copy.total;
	job->split_at = fails ? 0 : t->copy.split_at;
	job->order_key = ctx->ordered ? (uintptr_t)ctx : 0;
	job->in_order = ctx->ordered || fails;
	job->batch = !fails && t->copy.batch;
	/* the destination's slot, counted in the copy's size rounded down to a power of two */
	job->home = job->batch && job->bytes
	                    ? (uintptr_t)t->copy.dst->data >> (63 - __builtin_clzll(job->bytes))
	                    : 0;
}

/* Gives the task to the engine; on AGAIN from the engine the caller undoes the accounting. */
static doca_error_t task_launch(struct doca_ctx *ctx, struct doca_task *t, bool doorbell)
{
	struct odma_job job;

	if (doca_unlikely(t->copy.async)) {
		odma_task_launch_async(ctx, t);
		return DOCA_SUCCESS;
	}
	task_job(ctx, t, &job);
	t->state = ODMA_TASK_SUBMITTED;
	return ctx->fp.submit(ctx->fp.engine_pe, t, &job, doorbell);
}

bool odma_ctx_launch_held(struct doca_ctx *ctx)
{
	struct doca_task *t = ctx->held.head;

	while (t != NULL) {
		struct doca_task *next = t->next;

		/*
		 * An engine without room keeps the rest held (progress retries them); what it
		 * took so far must still reach it, so ring the doorbell.
		 */
		if (task_launch(ctx, t, next == NULL) != DOCA_SUCCESS) {
			t->state = ODMA_TASK_HELD;
			ctx->held.head = t;
			ctx->fp.doorbell(ctx->fp.engine_pe);
			return false;
		}
		t = next;
	}
	ctx->held.head = ctx->held.tail = NULL;
	return true;
}

static doca_error_t task_check_submittable(const struct doca_task *t)
{
	const struct doca_ctx *ctx = t->ctx;

	if (doca_unlikely(t->state != ODMA_TASK_ALLOCATED)) {
		ODMA_ERR("task %p is %s; "
		         "only an allocated task that is not in flight can be submitted",
		         (void *)t, t->state == ODMA_TASK_FREE ? "freed" : "already submitted");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (doca_unlikely(ctx->state != DOCA_CTX_STATE_RUNNING)) {
		ODMA_ERR("task %p: %s context %p is %s; submit only while it is RUNNING", (void *)t,
		         ctx->ops->name, (void *)ctx, odma_ctx_state_name(ctx->state));
		return DOCA_ERROR_BAD_STATE;
	}
	if (doca_unlikely(ctx->inflight >= ctx->queue_depth)) {
		ODMA_RATELIMITED_WARN("task %p: queue full: %zu tasks in flight on the %s context, "
		                      "the task queue depth of device %s is %u (doca_caps shows "
		                      "it; the profile key queue_depth sets it); %s",
		                      (void *)t, ctx->inflight, ctx->ops->name,
		                      ctx->dev != NULL ? ctx->dev->info->pci_addr : "(none)",
		                      ctx->queue_depth, odma_cause_fix(ODMA_CAUSE_QUEUE_FULL));
		return DOCA_ERROR_AGAIN;
	}
	return DOCA_SUCCESS;
}

/* A task of a type that runs its own tasks (Comch, Sync Event, ...): no engine. */
static doca_error_t task_submit_typed(struct doca_ctx *ctx, struct doca_task *t, uint32_t flags)
{
	doca_error_t r;

	t->submit_flags = (uint8_t)flags;
	t->status = DOCA_SUCCESS;
	t->state = ODMA_TASK_SUBMITTED;
	ctx->inflight++;
	r = ctx->ops->submit(t);
	if (doca_unlikely(r != DOCA_SUCCESS)) {
		t->state = ODMA_TASK_ALLOCATED;
		ctx->inflight--;
	}
	return r;
}

void odma_task_complete(struct doca_task *task, doca_error_t status)
{
	task->status = status;
	odma_pe_complete_local(task->ctx->pe, task);
}

void doca_priv_task_complete(struct doca_task *task, doca_error_t status)
{
	odma_task_complete(task, status);
}

/* Validates a copy task and draws the injected faults; fills copy, preset and status. */
static doca_error_t task_prepare_copy(struct doca_ctx *ctx, struct doca_task *t, bool strict)
{
	doca_error_t r;

	r = odma_copy_validate(&t->copy, ctx->caps, ctx->dev, strict, &t->preset, t);
	if (doca_unlikely(r != DOCA_SUCCESS))
		return r;
	if (doca_unlikely(t->copy.async) && (r = odma_copy_pairwise(&t->copy, t)) != DOCA_SUCCESS)
		return r;
	if (doca_unlikely(odma_faults_enabled)) {
		r = odma_faults_on_submit(&t->preset, odma_copy_is_remote(&t->copy));
		if (r != DOCA_SUCCESS)
			return r;
	}
	t->status = DOCA_SUCCESS;
	return DOCA_SUCCESS;
}

/* The engine's queue refused @t: it is the program's again (one rate-limited line). */
static void __attribute__((noinline)) task_refused_full(struct doca_ctx *ctx, struct doca_task *t)
{
	t->state = ODMA_TASK_ALLOCATED;
	ctx->next_seq--;
	ctx->inflight--;
	if (doca_unlikely(odma_faults_enabled)) /* not taken: it used up no injected fault */
		odma_faults_on_refused(odma_copy_is_remote(&t->copy));
	ODMA_RATELIMITED_WARN("task %p: the engine's queue is full; "
	                      "progress the PE and submit again",
	                      (void *)t);
}

/* Holds the task (no FLUSH, or older tasks still held) or launches it. */
static doca_error_t task_enqueue(struct doca_ctx *ctx, struct doca_task *t, uint32_t flags)
{
	doca_error_t r;

	t->submit_flags = (uint8_t)flags;
	t->seq = ctx->next_seq++;
	ctx->inflight++;
	/* from here on, reports are tracked (pe.c: a later reported task releases this one; every
	 * task reported after it has a higher seq, so tracking from now misses none) */
	if (doca_unlikely(flags & DOCA_TASK_SUBMIT_FLAG_OPTIMIZE_REPORTS))
		ctx->track_reports = true;
	if (!(flags & DOCA_TASK_SUBMIT_FLAG_FLUSH) ||
	    (doca_unlikely(ctx->held.head != NULL) && !odma_ctx_launch_held(ctx))) {
		t->state = ODMA_TASK_HELD;
		odma_task_list_push(&ctx->held, t);
		ctx->pe->maybe_held = true;
		return DOCA_SUCCESS;
	}
	r = task_launch(ctx, t, true);
	if (doca_unlikely(r != DOCA_SUCCESS))
		task_refused_full(ctx, t);
	return r;
}

/* Everything but the common case (see task_submit), with a log line for each refusal. */
static doca_error_t __attribute__((noinline))
task_submit_slow(struct doca_task *t, uint32_t flags, bool strict)
{
	struct doca_ctx *ctx;
	doca_error_t r;
	uint64_t t0;

	ODMA_CHECK_ARG(t != NULL, "task must not be NULL");
	ctx = t->ctx;
	r = task_check_submittable(t);
	if (doca_unlikely(r != DOCA_SUCCESS))
		return r;
	/*
	 * A traced task gets its hook once accepted: its callback runs only in a later
	 * doca_pe_progress of this thread, so nothing can complete it before.
	 */
	t0 = 0;
	if (doca_unlikely(odma_trace_enabled)) {
		t0 = doca_priv_now_ns();
		odma_trace_begin(t);
	}
	if (ctx->ops->submit != NULL) {
		r = task_submit_typed(ctx, t, flags);
		if (doca_unlikely(odma_trace_enabled))
			odma_trace_submit(t, t0, r);
		return r;
	}
	r = task_prepare_copy(ctx, t, strict);
	if (doca_likely(r == DOCA_SUCCESS))
		r = task_enqueue(ctx, t, flags);
	if (doca_unlikely(odma_trace_enabled))
		odma_trace_submit(t, t0, r);
	if (doca_unlikely(r != DOCA_SUCCESS))
		return r;
	/* Accepted. A task that will fail flushes whatever is submitted after it. */
	if (doca_unlikely(t->preset != DOCA_SUCCESS))
		odma_task_mark_failed(ctx, t->seq);
	return DOCA_SUCCESS;
}

/*
 * A copy accepted to fail (doca_task_submit of a copy that cannot run), or one over a
 * network transport (async.c), which never reaches the engine.
 */
static doca_error_t __attribute__((noinline))
task_submit_async_or_failing(struct doca_ctx *ctx, struct doca_task *t, uint32_t flags)
{
	doca_error_t r;

	if (t->copy.async && (r = odma_copy_pairwise(&t->copy, t)) != DOCA_SUCCESS)
		return r;
	t->status = DOCA_SUCCESS;
	r = task_enqueue(ctx, t, flags);
	if (r == DOCA_SUCCESS && t->preset != DOCA_SUCCESS)
		odma_task_mark_failed(ctx, t->seq);
	return r;
}

/*
 * Every copy or typed task that is not the hold case of doca_task_submit: an allocated copy
 * task of a RUNNING context with room, submitted with FLUSH and nothing held, no fault
 * injection, a copy that passes validation is numbered and handed to the engine (or its hold
 * stage) through the context's fast-path object. Anything else, including every refusal,
 * goes through task_submit_slow, which logs it.
 */
static doca_error_t __attribute__((noinline))
task_submit(struct doca_task *t, uint32_t flags, bool strict)
{
	struct doca_ctx *ctx;
	struct odma_job job;
	doca_error_t r;

	if (doca_unlikely(t == NULL || flags != DOCA_TASK_SUBMIT_FLAG_FLUSH || odma_exec_slow))
		return task_submit_slow(t, flags, strict);
	ctx = t->ctx;
	if (doca_unlikely(t->state != ODMA_TASK_ALLOCATED || ctx->state != DOCA_CTX_STATE_RUNNING ||
	                  ctx->inflight >= ctx->queue_depth || ctx->ops->submit != NULL ||
	                  ctx->held.head != NULL))
		return task_submit_slow(t, flags, strict);
	if (doca_likely(!strict &&
	                odma_copy_validate_fast(&t->copy, ctx->caps->max_buf_size, ctx->dev))) {
		t->preset = DOCA_SUCCESS;
	} else {
		r = odma_copy_validate(&t->copy, ctx->caps, ctx->dev, strict, &t->preset, t);
		if (doca_unlikely(r != DOCA_SUCCESS))
			return r;
		if (doca_unlikely(t->preset != DOCA_SUCCESS || t->copy.async))
			return task_submit_async_or_failing(ctx, t, flags);
	}
	t->status = DOCA_SUCCESS;
	t->submit_flags = (uint8_t)flags;
	t->seq = ctx->next_seq++;
	t->state = ODMA_TASK_SUBMITTED;
	ctx->inflight++;
	/* a small unordered local copy goes straight into the engine's hold stage (engine.h) */
	if (doca_likely(t->copy.total <= ctx->fp.hold_max && !ctx->ordered && !t->copy.batch)) {
		odma_task_stage_add(ctx->fp.hold, ctx->pe, t);
		return DOCA_SUCCESS;
	}
	task_job(ctx, t, &job);
	r = ctx->fp.submit(ctx->fp.engine_pe, t, &job, true);
	if (doca_unlikely(r != DOCA_SUCCESS))
		task_refused_full(ctx, t);
	return r;
}

/*
 * The per-task path of nearly every program, one pass with nothing to save: a small local
 * copy of a context whose hold stage is open (fp.hold_now: RUNNING, copy tasks, unordered,
 * no fault injection; decided at start), the task allocated, room in the queue, nothing
 * held, one element a side. Numbered, counted and appended to the engine's hold stage;
 * anything else is task_submit's.
 */
/* odma_task_stage_add for the two edges of doca_task_submit's stage (empty, about full). */
static __attribute__((noinline)) doca_error_t
task_stage_edge(struct odma_task_stage *hold, struct doca_pe *pe, struct doca_task *t)
{
	odma_task_stage_add(hold, pe, t);
	return DOCA_SUCCESS;
}

doca_error_t doca_task_submit(struct doca_task *t)
{
	struct doca_ctx *ctx;
	struct odma_task_stage *hold;
	unsigned int n;

	if (doca_unlikely(t == NULL))
		return task_submit(t, DOCA_TASK_SUBMIT_FLAG_FLUSH, false);
	ctx = t->ctx;
	hold = ctx->fp.hold_now;
	if (doca_unlikely(
	            hold == NULL || t->state != ODMA_TASK_ALLOCATED ||
	            ctx->inflight >= ctx->queue_depth || ctx->held.head != NULL ||
	            !odma_copy_validate_local(&t->copy, ctx->fp.hold_bytes, ctx->fp.fast_want)))
		return task_submit(t, DOCA_TASK_SUBMIT_FLAG_FLUSH, false);
	t->status = DOCA_SUCCESS;
	t->preset = DOCA_SUCCESS;
	t->submit_flags = DOCA_TASK_SUBMIT_FLAG_FLUSH;
	t->state = ODMA_TASK_SUBMITTED;
	t->seq = ctx->next_seq++;
	ctx->inflight++;
	n = hold->n;
	/* the first task of an empty stage (it may wake an armed PE) and the last that fills it
	 * take a tail call, so this function stays a leaf (no registers saved) */
	if (doca_unlikely(n == 0 || n + 1 == ODMA_TASK_STAGE_MAX))
		return task_stage_edge(hold, ctx->pe, t);
	hold->task[n] = t;
	hold->n = n + 1;
	return DOCA_SUCCESS;
}

doca_error_t doca_task_try_submit(struct doca_task *task)
{
	return task_submit(task, DOCA_TASK_SUBMIT_FLAG_FLUSH, true);
}

doca_error_t doca_task_submit_ex(struct doca_task *task, uint32_t flags)
{
	if (doca_unlikely(flags & ~(uint32_t)ODMA_SUBMIT_FLAGS_ALL)) {
		ODMA_ERR("doca_task_submit_ex: unknown flags 0x%x; use DOCA_TASK_SUBMIT_FLAG_FLUSH "
		         "/ _OPTIMIZE_REPORTS",
		         flags & ~(uint32_t)ODMA_SUBMIT_FLAGS_ALL);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return task_submit(task, flags, false);
}

/* Puts a task back into its context's pool (the program freed it). */
void odma_task_release(struct doca_task *task)
{
	struct doca_ctx *ctx = task->ctx;

	if (ctx->ops->task_free != NULL)
		ctx->ops->task_free(task);
	if (task->tconf != NULL) {
		task->tconf->allocated--;
		task->tconf = NULL;
	}
	task->state = ODMA_TASK_FREE;
	task->free_pending = false;
	task->next = ctx->free_tasks;
	ctx->free_tasks = task;
	ctx->allocated--;
	if (ctx->state == DOCA_CTX_STATE_STOPPING && odma_ctx_ready_for_idle(ctx))
		odma_pe_signal(ctx->pe);
}

void doca_task_free(struct doca_task *task)
{
	if (task == NULL) {
		ODMA_ERR("doca_task_free: task is NULL");
		return;
	}
	if (task->state == ODMA_TASK_FREE || task->free_pending) {
		ODMA_ERR("doca_task_free: task %p is already free; free a task once", (void *)task);
		return;
	}
	/* (the timeline's own hook, ODMA_TRACE, does not make it a graph's) */
	if (task->state != ODMA_TASK_ALLOCATED && odma_trace_owner_hook(task) != NULL) {
		/* its completion is the graph's: freed now, the instance would never complete */
		ODMA_ERR("doca_task_free: task %p is a node of a graph instance in flight; free it "
		         "after the instance completed (the task is left as it is)",
		         (void *)task);
		return;
	}
	if (task->state != ODMA_TASK_ALLOCATED) {
		/* hardware accepts it (NVIDIA's secure_channel does it before a stop): defer */
		if (!task->ctx->warned_free)
			ODMA_WARN("doca_task_free: %s task %p is in flight; it is freed when its "
			          "completion or flush is reported, and its callback will not run "
			          "(DOCA frees a task after its callback; further such frees of "
			          "context %p until its next start are logged at DEBUG)",
			          task->ctx->ops->name, (void *)task, (void *)task->ctx);
		else
			ODMA_DBG("doca_task_free: %s task %p is in flight; freed at its completion",
			         task->ctx->ops->name, (void *)task);
		task->ctx->warned_free = true;
		task->free_pending = true;
		return;
	}
	odma_task_release(task);
}

doca_error_t doca_task_get_status(const struct doca_task *task)
{
	if (task == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return task->status;
}

void doca_task_set_user_data(struct doca_task *task, union doca_data user_data)
{
	if (task != NULL)
		task->user_data = user_data;
}

union doca_data doca_task_get_user_data(const struct doca_task *task)
{
	union doca_data none = { .u64 = 0 };

	return task != NULL ? task->user_data : none;
}

struct doca_ctx *doca_task_get_ctx(const struct doca_task *task)
{
	return task != NULL ? task->ctx : NULL;
}

bool doca_priv_task_settable(const void *task, const char *fn)
{
	const struct doca_task *t = task;

	if (t == NULL) {
		ODMA_ERR_AT(fn, "task is NULL");
		return false;
	}
	if (t->state == ODMA_TASK_SUBMITTED || t->state == ODMA_TASK_HELD) {
		ODMA_ERR_AT(fn,
		            "task %p is in flight; change it in its callback or after it completes",
		            task);
		return false;
	}
	return true;
}

doca_error_t doca_priv_task_check_limits(const struct doca_ctx *ctx, const struct doca_buf *src,
                                         const struct doca_buf *dst)
{
	return odma_copy_check_limits(ctx->caps, src, dst);
}
