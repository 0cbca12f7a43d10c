/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The sync event as a context: five task types sharing one pool (each with its own limit),
 * run by the type itself (no engine). Get, notify-set and notify-add act at submit and
 * complete at a later progress; a wait stays pending until its condition holds. This file
 * checks the tasks and keeps the pending list; how a task reaches the value and how the PE
 * is woken is the event's row (se_local.c: a slot of the shared page whose every update
 * writes the PE's eventfd; se_net.c: asynchronous requests and polls, the PE woken by their
 * completions and by its timer).
 */
#include <string.h>

#include "core/log/log.h"
#include "core/sync_event/se_int.h"
#include "util/container_of.h"
#include "util/queue.h"

ODMA_LOG_REGISTER(DOCA_SYNC_EVENT_TASK)

static const char *const se_type_names[SE_T_COUNT] = {
	"none", "get", "notify_set", "notify_add", "wait_eq", "wait_neq",
};

static struct doca_sync_event *se_of(const struct doca_ctx *ctx)
{
	return odma_container_of(ctx, struct doca_sync_event, ctx);
}

/* 0, or 1, 2, 4 or 8 consecutive 0xff bytes starting at a multiple of their count. */
static bool se_task_mask_ok(uint64_t mask)
{
	if (mask == 0 || mask == UINT64_MAX)
		return true;
	for (unsigned int n = 1; n <= 4; n *= 2) {
		uint64_t field = (1ull << (8 * n)) - 1;

		for (unsigned int pos = 0; pos < 8; pos += n)
			if (mask == field << (8 * pos))
				return true;
	}
	return false;
}

/* The wait arguments a task may carry (checked at alloc_init and at submit). */
static doca_error_t se_task_check_wait(enum se_task_type type, uint64_t val, uint64_t mask,
                                       const char *fn)
{
	if (!se_task_mask_ok(mask)) {
		ODMA_ERR("%s: mask 0x%016llx is not 0 or 1, 2, 4 or 8 consecutive 0xff bytes "
		         "aligned to their size",
		         fn, (unsigned long long)mask);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((val & ~mask) != 0) {
		ODMA_ERR("%s: value 0x%016llx has bits outside mask 0x%016llx", fn,
		         (unsigned long long)val, (unsigned long long)mask);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (type == SE_T_WAIT_NEQ && mask == 0) {
		ODMA_ERR("%s: a wait-neq task with mask 0 could never complete", fn);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

/* ------------------------------------------------------------------------------------ */
/* The context type                                                                        */
/* ------------------------------------------------------------------------------------ */

static doca_error_t se_start(struct doca_ctx *ctx)
{
	struct doca_sync_event *se = se_of(ctx);
	doca_error_t r = se_ctx_activate(se);

	if (r != DOCA_SUCCESS)
		return r;
	/* the pools bound what is in flight: no queue depth of its own */
	ctx->queue_depth = UINT32_MAX;
	se->pending = se->pending_tail = NULL;
	return DOCA_SUCCESS;
}

static void se_complete(struct doca_task *task, bool ok)
{
	struct se_task *t = (struct se_task *)task;
	const struct odma_task_conf *c = &se_of(task->ctx)->conf[t->type];
	void (*cb)(void) = ok ? c->ok : c->err;
	union doca_data tud = task->user_data, cud = task->ctx->user_data;

	switch (t->type) {
	case SE_T_GET:
		((doca_sync_event_task_get_completion_cb_t)cb)((struct doca_sync_event_task_get *)t,
		                                               tud, cud);
		break;
	case SE_T_NOTIFY_SET:
		((doca_sync_event_task_notify_set_completion_cb_t)cb)(
		        (struct doca_sync_event_task_notify_set *)t, tud, cud);
		break;
	case SE_T_NOTIFY_ADD:
		((doca_sync_event_task_notify_add_completion_cb_t)cb)(
		        (struct doca_sync_event_task_notify_add *)t, tud, cud);
		break;
	case SE_T_WAIT_EQ:
		((doca_sync_event_task_wait_eq_completion_cb_t)cb)(
		        (struct doca_sync_event_task_wait_eq *)t, tud, cud);
		break;
	default:
		((doca_sync_event_task_wait_neq_completion_cb_t)cb)(
		        (struct doca_sync_event_task_wait_neq *)t, tud, cud);
		break;
	}
}

void se_pending_push(struct doca_sync_event *se, struct se_task *t)
{
	ODMA_QUEUE_PUSH(se->pending, se->pending_tail, t, pend_next);
}

unsigned int se_pending_scan(struct doca_sync_event *se, doca_error_t fail, uint64_t v)
{
	struct se_task **pp = &se->pending, *last = NULL;
	unsigned int n = 0;

	while (*pp != NULL) {
		struct se_task *t = *pp;

		if (fail == DOCA_SUCCESS && !se_cond(t->type, v, t->val, t->mask)) {
			last = t;
			pp = &t->pend_next;
			continue;
		}
		*pp = t->pend_next;
		odma_task_complete(&t->base, fail);
		n++;
	}
	se->pending_tail = last;
	return n;
}

void se_task_done(struct se_task *t, doca_error_t status, uint64_t v)
{
	if (status == DOCA_SUCCESS && t->type != SE_T_NOTIFY_SET)
		*t->ptr = v; /* get: the value; notify-add: the one before */
	odma_task_complete(&t->base, status);
}

static doca_error_t se_submit(struct doca_task *task)
{
	struct se_task *t = (struct se_task *)task;
	struct doca_sync_event *se = se_of(task->ctx);
	const char *fn = se_type_names[t->type];
	doca_error_t r;

	if (t->type >= SE_T_WAIT_EQ) {
		r = se_task_check_wait((enum se_task_type)t->type, t->val, t->mask, fn);
		if (r != DOCA_SUCCESS)
			return r;
	}
	if ((t->type == SE_T_GET || t->type == SE_T_NOTIFY_ADD) && t->ptr == NULL) {
		ODMA_ERR("%s task %p has no %s; set one with doca_sync_event_task_%s", fn,
		         (void *)t, t->type == SE_T_GET ? "ret_val_ptr" : "fetched_val_ptr",
		         t->type == SE_T_GET ? "get_set_ret_val_ptr"
		                             : "notify_add_set_fetched_val_ptr");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return se->ops->submit(se, t);
}

static bool se_progress(struct doca_ctx *ctx)
{
	struct doca_sync_event *se = se_of(ctx);

	return se->ops->progress(se);
}

static uint64_t se_arm(struct doca_ctx *ctx)
{
	struct doca_sync_event *se = se_of(ctx);

	return se->ops->arm(se);
}

static void se_stop(struct doca_ctx *ctx)
{
	struct doca_sync_event *se = se_of(ctx);

	if (se->pending != NULL)
		ODMA_DBG("sync event %p: stop flushes its pending waits (IO_FAILED)", (void *)se);
	(void)se_pending_scan(se, DOCA_ERROR_IO_FAILED, 0);
	se->ops->stop(se);
	se_ctx_deactivate(se);
}

static bool se_idle_ready(const struct doca_ctx *ctx)
{
	const struct doca_sync_event *se = se_of(ctx);

	/* every request started came back (over the network: each within the timeout) */
	return se->pending == NULL && se->inflight == 0;
}

const struct odma_ctx_ops se_ctx_ops = {
	.name = "SYNC_EVENT",
	.task_size = sizeof(struct se_task),
	.start = se_start,
	.complete = se_complete,
	.submit = se_submit,
	.progress = se_progress,
	.stop = se_stop,
	.idle_ready = se_idle_ready,
	.arm = se_arm,
};

/* ------------------------------------------------------------------------------------ */
/* Configuration and allocation                                                            */
/* ------------------------------------------------------------------------------------ */

static doca_error_t se_set_conf(struct doca_sync_event *se, enum se_task_type type,
                                void (*ok)(void), void (*err)(void), uint32_t num, const char *fn)
{
	ODMA_CHECK_ARG(se != NULL, "%s: event must not be NULL", fn);
	ODMA_CHECK_ARG(ok != NULL && err != NULL,
	               "%s: both the completion and the error callback are required", fn);
	if (!doca_priv_task_conf_idle(&se->ctx, fn))
		return DOCA_ERROR_NOT_PERMITTED;
	if (se->started) {
		ODMA_ERR("%s: sync event %p was started with doca_sync_event_start; tasks need the "
		         "context form (doca_sync_event_as_ctx)",
		         fn, (void *)se);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	ODMA_CHECK_ARG(num >= 1 && num <= SE_MAX_TASKS, "%s: num_tasks %u is outside 1..%u", fn,
	               num, SE_MAX_TASKS);
	/* at most SE_MAX_TASKS a type: never more than a pool holds in all */
	return doca_priv_task_conf_set(&se->ctx, se->conf, SE_T_COUNT, type, se_type_names[type],
	                               ok, err, num, UINT32_MAX, "the largest pool", fn);
}

/* A task of @type holding @val, @mask and @ptr, into *@out (untouched on failure). */
static doca_error_t se_alloc(struct doca_sync_event *se, enum se_task_type type, uint64_t val,
                             uint64_t mask, uint64_t *ptr, union doca_data ud, void *out,
                             const char *fn)
{
	struct se_task *st;
	struct doca_task *t;
	doca_error_t r;

	ODMA_CHECK_ARG(se != NULL && out != NULL, "%s: event and task must not be NULL", fn);
	r = doca_priv_task_conf_alloc(&se->ctx, &se->conf[type], se_type_names[type], &t, fn);
	if (r != DOCA_SUCCESS)
		return r;
	st = (struct se_task *)t;
	st->type = (uint8_t)type;
	st->val = val;
	st->mask = mask;
	st->ptr = ptr;
	st->pend_next = NULL;
	t->user_data = ud;
	memcpy(out, &st, sizeof(st));
	return DOCA_SUCCESS;
}

static doca_error_t se_cap_yes(const struct doca_devinfo *devinfo)
{
	ODMA_CHECK_ARG(devinfo != NULL, "devinfo must not be NULL");
	return DOCA_SUCCESS;
}

#define SE_TASK_AS(tname)                                                                          \
	struct doca_task *doca_sync_event_task_##tname##_as_doca_task(                             \
	        struct doca_sync_event_task_##tname *task)                                         \
	{                                                                                          \
		return task != NULL ? &((struct se_task *)(void *)task)->base : NULL;              \
	}

#define SE_TASK_CONF(tname, TYPE)                                                                  \
	doca_error_t doca_sync_event_cap_task_##tname##_is_supported(                              \
	        const struct doca_devinfo *devinfo)                                                \
	{                                                                                          \
		return se_cap_yes(devinfo);                                                        \
	}                                                                                          \
	doca_error_t doca_sync_event_task_##tname##_set_conf(                                      \
	        struct doca_sync_event *event,                                                     \
	        doca_sync_event_task_##tname##_completion_cb_t completion_cb,                      \
	        doca_sync_event_task_##tname##_completion_cb_t error_cb, uint32_t num_tasks)       \
	{                                                                                          \
		return se_set_conf(event, TYPE, (void (*)(void))completion_cb,                     \
		                   (void (*)(void))error_cb, num_tasks, __func__);                 \
	}                                                                                          \
	SE_TASK_AS(tname)

SE_TASK_CONF(get, SE_T_GET)
SE_TASK_CONF(notify_set, SE_T_NOTIFY_SET)
SE_TASK_CONF(notify_add, SE_T_NOTIFY_ADD)
SE_TASK_CONF(wait_eq, SE_T_WAIT_EQ)
SE_TASK_CONF(wait_neq, SE_T_WAIT_NEQ)

/* A task field's setter (ignored while the task is in flight) and getter (0 for NULL). */
#define SE_TASK_FIELD(tname, fname, type, member)                                                  \
	void doca_sync_event_task_##tname##_set_##fname(struct doca_sync_event_task_##tname *task, \
	                                                type fname)                                \
	{                                                                                          \
		if (doca_priv_task_settable(task, __func__))                                       \
			((struct se_task *)(void *)task)->member = fname;                          \
	}                                                                                          \
	type doca_sync_event_task_##tname##_get_##fname(                                           \
	        const struct doca_sync_event_task_##tname *task)                                   \
	{                                                                                          \
		return task != NULL ? ((const struct se_task *)(const void *)task)->member : 0;    \
	}

doca_error_t doca_sync_event_task_get_alloc_init(struct doca_sync_event *event,
                                                 uint64_t *ret_val_ptr, union doca_data user_data,
                                                 struct doca_sync_event_task_get **task)
{
	return se_alloc(event, SE_T_GET, 0, 0, ret_val_ptr, user_data, task, __func__);
}

doca_error_t
doca_sync_event_task_notify_set_alloc_init(struct doca_sync_event *event, uint64_t set_val,
                                           union doca_data user_data,
                                           struct doca_sync_event_task_notify_set **task)
{
	return se_alloc(event, SE_T_NOTIFY_SET, set_val, 0, NULL, user_data, task, __func__);
}

doca_error_t
doca_sync_event_task_notify_add_alloc_init(struct doca_sync_event *event, uint64_t inc_val,
                                           uint64_t *fetched_val_ptr, union doca_data user_data,
                                           struct doca_sync_event_task_notify_add **task)
{
	return se_alloc(event, SE_T_NOTIFY_ADD, inc_val, 0, fetched_val_ptr, user_data, task,
	                __func__);
}

static doca_error_t se_wait_alloc(struct doca_sync_event *event, enum se_task_type type,
                                  uint64_t val, uint64_t mask, union doca_data ud, void *out,
                                  const char *fn)
{
	doca_error_t r;

	ODMA_CHECK_ARG(event != NULL && out != NULL, "%s: event and task must not be NULL", fn);
	r = se_task_check_wait(type, val, mask, fn);
	if (r != DOCA_SUCCESS)
		return r;
	return se_alloc(event, type, val, mask, NULL, ud, out, fn);
}

doca_error_t doca_sync_event_task_wait_eq_alloc_init(struct doca_sync_event *event,
                                                     uint64_t wait_val, uint64_t mask,
                                                     union doca_data user_data,
                                                     struct doca_sync_event_task_wait_eq **task)
{
	return se_wait_alloc(event, SE_T_WAIT_EQ, wait_val, mask, user_data, task, __func__);
}

doca_error_t doca_sync_event_task_wait_neq_alloc_init(struct doca_sync_event *event,
                                                      uint64_t wait_val, uint64_t mask,
                                                      union doca_data user_data,
                                                      struct doca_sync_event_task_wait_neq **task)
{
	return se_wait_alloc(event, SE_T_WAIT_NEQ, wait_val, mask, user_data, task, __func__);
}

SE_TASK_FIELD(get, ret_val_ptr, uint64_t *, ptr)
SE_TASK_FIELD(notify_set, set_val, uint64_t, val)
SE_TASK_FIELD(notify_add, inc_val, uint64_t, val)
SE_TASK_FIELD(notify_add, fetched_val_ptr, uint64_t *, ptr)
SE_TASK_FIELD(wait_eq, wait_val, uint64_t, val)
SE_TASK_FIELD(wait_eq, mask, uint64_t, mask)
SE_TASK_FIELD(wait_neq, wait_val, uint64_t, val)
SE_TASK_FIELD(wait_neq, mask, uint64_t, mask)
