/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* The generic context: state machine, task pool, stop. Context types embed it. */
#include <stdlib.h>
#include <string.h>

#include "core/exec/exec_int.h"
#include "core/exec/faults.h"
#include "core/exec/trace.h"
#include "core/device/device.h"
#include "core/error/error.h"
#include "core/log/log.h"
#include "engines/engine.h"

ODMA_LOG_REGISTER(ODMA_CTX)

/* Starts so far, in the process: each start's number names its network ios (ctx->run). */
static atomic_uint_fast64_t ctx_runs;

static const char *const ctx_state_names[] = { "IDLE", "STARTING", "RUNNING", "STOPPING" };

const char *odma_ctx_state_name(enum doca_ctx_states s)
{
	return (unsigned int)s < 4 ? ctx_state_names[s] : "?";
}

void odma_ctx_set_state(struct doca_ctx *ctx, enum doca_ctx_states next)
{
	enum doca_ctx_states prev = ctx->state;

	if (prev == next)
		return;
	if (next == DOCA_CTX_STATE_STOPPING)
		ctx->pe->num_stopping++;
	if (prev == DOCA_CTX_STATE_STOPPING)
		ctx->pe->num_stopping--;
	ctx->state = next;
	/* the fast path of doca_task_submit, decided once per start (exec.h, hold_now) */
	ctx->fp.hold_now = NULL;
	ctx->fp.hold_bytes = 0;
	ctx->fp.fast_want = odma_buf_fast_want(ctx->dev);
	if (next == DOCA_CTX_STATE_RUNNING && ctx->fp.hold != NULL && ctx->copy_complete != NULL &&
	    !ctx->ordered && !odma_exec_slow && ctx->caps->max_buf_size != 0) {
		ctx->fp.hold_now = ctx->fp.hold;
		ctx->fp.hold_bytes = ctx->fp.hold_max < ctx->caps->max_buf_size
		                             ? ctx->fp.hold_max
		                             : ctx->caps->max_buf_size;
	}
	ODMA_DBG("%s context %p: %s -> %s", ctx->ops->name, (void *)ctx, odma_ctx_state_name(prev),
	         odma_ctx_state_name(next));
	if (ctx->state_cb != NULL)
		ctx->state_cb(ctx->user_data, ctx, prev, next);
}

doca_error_t doca_priv_ctx_init(struct doca_ctx *ctx, const struct odma_ctx_ops *ops,
                                struct doca_dev *dev)
{
	static const struct odma_dev_caps no_caps;

	ODMA_CHECK_ARG(dev == NULL || odma_dev_lookup_open(dev) != NULL,
	               "%s context: dev %p is not an open device (closed by its last "
	               "doca_dev_close, or not from doca_dev_open); fix: create the context while "
	               "the device is open",
	               ops->name, (void *)dev);
	memset(ctx, 0, sizeof(*ctx));
	ctx->ops = ops;
	ctx->copy_complete = ops->submit == NULL ? ops->complete : NULL;
	ctx->dev = dev;
	ctx->caps = dev != NULL ? &dev->info->caps : &no_caps;
	ctx->queue_depth = ctx->caps->queue_depth ? ctx->caps->queue_depth : 1;
	ctx->state = DOCA_CTX_STATE_IDLE;
	atomic_init(&ctx->flush_from, UINT64_MAX);
	if (dev != NULL)
		odma_dev_hold(dev);
	return DOCA_SUCCESS;
}

doca_error_t doca_priv_ctx_destroy(struct doca_ctx *ctx)
{
	uint32_t nodes = __atomic_load_n(&ctx->graph_nodes, __ATOMIC_ACQUIRE);

	if (nodes != 0) {
		/* the graph's nodes and instances point at the context and its tasks */
		ODMA_ERR("%s context %p is a context node of %u graph node(s); destroy the graph "
		         "first (doca_graph_instance_destroy, doca_graph_stop, doca_graph_destroy)",
		         ctx->ops->name, (void *)ctx, nodes);
		return DOCA_ERROR_IN_USE;
	}
	if (ctx->state == DOCA_CTX_STATE_STOPPING) {
		ODMA_ERR("%s context %p is STOPPING; keep calling doca_pe_progress until it is "
		         "IDLE, then destroy",
		         ctx->ops->name, (void *)ctx);
		return DOCA_ERROR_IN_USE;
	}
	if (ctx->state != DOCA_CTX_STATE_IDLE) {
		ODMA_ERR("%s context %p is %s; "
		         "call doca_ctx_stop and progress until IDLE before destroying it",
		         ctx->ops->name, (void *)ctx, odma_ctx_state_name(ctx->state));
		return DOCA_ERROR_BAD_STATE;
	}
	if (ctx->pe != NULL)
		odma_pe_disconnect(ctx->pe, ctx);
	if (ctx->dev != NULL)
		odma_dev_release(ctx->dev);
	free(ctx->pool);
	ctx->pool = NULL;
	return DOCA_SUCCESS;
}

doca_error_t doca_priv_ctx_new(size_t size, const struct odma_ctx_ops *ops, struct doca_dev *dev,
                               struct doca_ctx **ctx)
{
	struct doca_ctx *c = calloc(1, size);
	doca_error_t r;

	if (c == NULL) {
		ODMA_ERR("%s context: no memory for its %zu bytes", ops->name, size);
		return DOCA_ERROR_NO_MEMORY;
	}
	r = doca_priv_ctx_init(c, ops, dev);
	if (r != DOCA_SUCCESS) {
		free(c);
		return r;
	}
	*ctx = c;
	return DOCA_SUCCESS;
}

doca_error_t doca_priv_ctx_free(struct doca_ctx *ctx)
{
	doca_error_t r = doca_priv_ctx_destroy(ctx);

	if (r == DOCA_SUCCESS)
		free(ctx);
	return r;
}

/* Builds the task pool at start; kept across restarts while its size is unchanged. */
static doca_error_t ctx_pool_prepare(struct doca_ctx *ctx)
{
	size_t sz = ctx->ops->task_size;
	char *pool;

	if (ctx->pool != NULL && ctx->pool_size == ctx->num_tasks)
		return DOCA_SUCCESS;
	pool = calloc(ctx->num_tasks, sz);
	if (pool == NULL) {
		ODMA_ERR("%s context %p: no memory for a pool of %u tasks", ctx->ops->name,
		         (void *)ctx, ctx->num_tasks);
		return DOCA_ERROR_NO_MEMORY;
	}
	free(ctx->pool);
	ctx->pool = pool;
	ctx->pool_size = ctx->num_tasks;
	ctx->free_tasks = NULL;
	for (uint32_t i = ctx->num_tasks; i-- > 0;) {
		struct doca_task *t = (struct doca_task *)(pool + i * sz);

		t->ctx = ctx;
		t->next = ctx->free_tasks;
		ctx->free_tasks = t;
	}
	return DOCA_SUCCESS;
}

bool odma_ctx_task_live(const struct doca_ctx *ctx, const struct doca_task *t)
{
	uintptr_t base = (uintptr_t)ctx->pool, at = (uintptr_t)t;
	size_t sz = ctx->ops->task_size;

	if (ctx->pool == NULL || at < base || at - base >= (uintptr_t)ctx->pool_size * sz ||
	    (at - base) % sz != 0)
		return false;
	return t->state != ODMA_TASK_FREE && !t->free_pending;
}

doca_error_t doca_ctx_start(struct doca_ctx *ctx)
{
	doca_error_t r;

	ODMA_CHECK_ARG(ctx != NULL, "ctx must not be NULL");
	if (ctx->state != DOCA_CTX_STATE_IDLE) {
		ODMA_ERR("%s context %p is %s; only an IDLE context can be started", ctx->ops->name,
		         (void *)ctx, odma_ctx_state_name(ctx->state));
		return DOCA_ERROR_BAD_STATE;
	}
	if (ctx->pe == NULL) {
		ODMA_ERR("%s context %p is not connected to a progress engine; %s", ctx->ops->name,
		         (void *)ctx, odma_cause_fix(ODMA_CAUSE_NO_PE));
		return DOCA_ERROR_NOT_CONNECTED;
	}
	if (!ctx->configured && !ctx->ops->no_task_conf) {
		ODMA_ERR("%s context %p has no task type configured; %s", ctx->ops->name,
		         (void *)ctx, odma_cause_fix(ODMA_CAUSE_NO_CONF));
		return DOCA_ERROR_BAD_CONFIG;
	}
	r = ctx_pool_prepare(ctx);
	if (r != DOCA_SUCCESS)
		return r;
	atomic_store_explicit(&ctx->flush_from, UINT64_MAX, memory_order_relaxed);
	ctx->run = atomic_fetch_add_explicit(&ctx_runs, 1, memory_order_relaxed) + 1;
	ctx->next_seq = ctx->reported_upto = 0;
	ctx->track_reports = false;
	ctx->warned_free = false;
	if (ctx->ops->start != NULL && (r = ctx->ops->start(ctx)) != DOCA_SUCCESS) {
		if (r != DOCA_ERROR_IN_PROGRESS)
			return r;
		/* asynchronous start: the type moves the context on from its progress op */
		odma_ctx_set_state(ctx, DOCA_CTX_STATE_STARTING);
		return DOCA_ERROR_IN_PROGRESS;
	}
	odma_ctx_set_state(ctx, DOCA_CTX_STATE_RUNNING);
	return DOCA_SUCCESS;
}

void doca_priv_ctx_set_state(struct doca_ctx *ctx, enum doca_ctx_states next)
{
	odma_ctx_set_state(ctx, next);
}

bool odma_ctx_ready_for_idle(const struct doca_ctx *ctx)
{
	return ctx->inflight == 0 && ctx->allocated == 0 &&
	       (ctx->ops->idle_ready == NULL || ctx->ops->idle_ready(ctx));
}

/*
 * Enters STOPPING (or IDLE when nothing is outstanding). @flush: a stop request, so
 * every task not executed yet is flushed; after a failed task only those submitted
 * after it are (flush_from), and the ones before it still complete. Returns whether the
 * context went IDLE, after which the caller must not touch it: the state-changed callback
 * may have destroyed it.
 */
bool odma_ctx_begin_stop(struct doca_ctx *ctx, bool flush)
{
	if (flush) {
		atomic_store_explicit(&ctx->flush_from, 0, memory_order_release);
		odma_ctx_cancel_async(ctx);
	}
	if (flush && ctx->ops->stop != NULL)
		ctx->ops->stop(ctx);
	odma_ctx_launch_held(ctx);
	if (odma_ctx_ready_for_idle(ctx)) {
		odma_ctx_set_state(ctx, DOCA_CTX_STATE_IDLE);
		return true;
	}
	odma_ctx_set_state(ctx, DOCA_CTX_STATE_STOPPING);
	/* deferred reports are now due (pe.c flushes them): wake a PE armed before the stop */
	if (ctx->deferred.head != NULL)
		odma_pe_held(ctx->pe);
	return false;
}

doca_error_t doca_ctx_stop(struct doca_ctx *ctx)
{
	ODMA_CHECK_ARG(ctx != NULL, "ctx must not be NULL");
	switch (ctx->state) {
	case DOCA_CTX_STATE_IDLE:
		return DOCA_SUCCESS;
	case DOCA_CTX_STATE_STOPPING:
		/* stopping after a failed task: now flush everything */
		atomic_store_explicit(&ctx->flush_from, 0, memory_order_release);
		odma_ctx_cancel_async(ctx);
		return DOCA_ERROR_IN_PROGRESS;
	default:
		break;
	}
	return odma_ctx_begin_stop(ctx, true) ? DOCA_SUCCESS : DOCA_ERROR_IN_PROGRESS;
}

ODMA_GETTER(doca_ctx_get_num_inflight_tasks, const struct doca_ctx, ctx, size_t, num_inflight_tasks,
            ctx->inflight)

static doca_error_t ctx_check_idle(const struct doca_ctx *ctx, const char *what)
{
	if (ctx->state == DOCA_CTX_STATE_IDLE)
		return DOCA_SUCCESS;
	ODMA_ERR("%s context %p is %s; %s can only be set while the context is IDLE",
	         ctx->ops->name, (void *)ctx, odma_ctx_state_name(ctx->state), what);
	return DOCA_ERROR_BAD_STATE;
}

doca_error_t doca_ctx_set_user_data(struct doca_ctx *ctx, union doca_data user_data)
{
	ODMA_CHECK_ARG(ctx != NULL, "ctx must not be NULL");
	if (ctx_check_idle(ctx, "user data") != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	ctx->user_data = user_data;
	return DOCA_SUCCESS;
}

ODMA_GETTER(doca_ctx_get_user_data, const struct doca_ctx, ctx, union doca_data, user_data,
            ctx->user_data)

doca_error_t doca_ctx_set_state_changed_cb(struct doca_ctx *ctx,
                                           doca_ctx_state_changed_callback_t cb)
{
	ODMA_CHECK_ARG(ctx != NULL, "ctx must not be NULL");
	if (ctx_check_idle(ctx, "the state-changed callback") != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	ctx->state_cb = cb;
	return DOCA_SUCCESS;
}

ODMA_GETTER(doca_ctx_get_state, const struct doca_ctx, ctx, enum doca_ctx_states, state, ctx->state)

void doca_ctx_flush_tasks(struct doca_ctx *ctx)
{
	if (ctx == NULL || ctx->state == DOCA_CTX_STATE_IDLE) {
		ODMA_ERR("doca_ctx_flush_tasks needs a context that is not IDLE (got %p)",
		         (void *)ctx);
		return;
	}
	odma_ctx_launch_held(ctx);
}
