/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Task type configuration: the IDLE rule of every set_conf, and the task types of a context
 * type with several (Compress, Erasure Coding, Sync Event), each with its callbacks and its
 * share of the context's one pool (exec.h, struct odma_task_conf). doca_task_free gives a
 * task's share back (task.c, odma_task_release).
 */
#include "core/exec/exec.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(ODMA_TASK_CONF)

bool doca_priv_task_conf_idle(const struct doca_ctx *ctx, const char *fn)
{
	if (ctx->state == DOCA_CTX_STATE_IDLE)
		return true;
	ODMA_ERR_AT(fn,
	            "%s context %p is not IDLE; "
	            "configure tasks before doca_ctx_start (or after a full stop)",
	            ctx->ops->name, (const void *)ctx);
	return false;
}

uint32_t doca_priv_task_conf_max(const struct doca_ctx *ctx)
{
	return ctx->caps->max_num_tasks ? ctx->caps->max_num_tasks : ODMA_DEFAULT_MAX_TASKS;
}

doca_error_t doca_priv_task_conf_set(struct doca_ctx *ctx, struct odma_task_conf *conf, size_t n,
                                     size_t type, const char *name, void (*ok)(void),
                                     void (*err)(void), uint32_t num, uint32_t max,
                                     const char *max_fn, const char *fn)
{
	uint64_t total = 0;

	for (size_t i = 0; i < n; i++)
		total += i == type ? num : conf[i].num;
	if (total > max) {
		ODMA_ERR_AT(fn,
		            "%u %s tasks bring the %s context to %llu tasks in all, above %u (%s)",
		            num, name, ctx->ops->name, (unsigned long long)total, max, max_fn);
		return DOCA_ERROR_INVALID_VALUE;
	}
	conf[type].ok = ok;
	conf[type].err = err;
	conf[type].num = num;
	ctx->num_tasks = (uint32_t)total;
	ctx->configured = true;
	return DOCA_SUCCESS;
}

/*
 * Why the task type of @conf has no task to give: one line under @fn (rate-limited when all
 * are out, as the pool's own line: a busy program may meet it at every alloc).
 */
static void task_conf_refuse(const struct doca_ctx *ctx, const struct odma_task_conf *conf,
                             const char *name, const char *fn)
{
	if (conf->num == 0)
		ODMA_ERR_AT(fn, "the %s %s task type was not configured (set_conf) before start",
		            ctx->ops->name, name);
	else
		ODMA_RATELIMITED_ERR_AT(fn,
		                        "all %u %s %s tasks are allocated; "
		                        "free one (doca_task_free) or configure a larger num_tasks",
		                        conf->num, ctx->ops->name, name);
}

doca_error_t doca_priv_task_conf_alloc(struct doca_ctx *ctx, struct odma_task_conf *conf,
                                       const char *name, struct doca_task **task, const char *fn)
{
	doca_error_t r;

	/* a context that is not RUNNING: BAD_STATE from the pool, whatever the type's share */
	if (ctx->state == DOCA_CTX_STATE_RUNNING && conf->allocated >= conf->num) {
		task_conf_refuse(ctx, conf, name, fn);
		return DOCA_ERROR_NO_MEMORY;
	}
	r = doca_priv_task_alloc(ctx, task);
	if (r != DOCA_SUCCESS)
		return r;
	conf->allocated++;
	(*task)->tconf = conf;
	return DOCA_SUCCESS;
}

/* A type's callbacks as they are called (DOCA's are this, with the type's task struct). */
typedef void (*task_conf_cb_t)(struct doca_task *task, union doca_data task_user_data,
                               union doca_data ctx_user_data);

void doca_priv_task_conf_complete(struct doca_task *task, bool success)
{
	const struct odma_task_conf *c = task->tconf;
	task_conf_cb_t cb = (task_conf_cb_t)(success ? c->ok : c->err);

	cb(task, task->user_data, task->ctx->user_data);
}
