/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * DOCA mmap advise: the context and its invalidate-cache task. odma's movers are CPU copies
 * between coherent caches, so the task has no cache line to drop: it checks its buffer as
 * the hardware would, fences, and completes through the PE (never inside submit).
 */
#include <stdatomic.h>

#include "core/device/device.h"
#include "core/log/log.h"
#include "core/memory/memory.h"
#include "core/mmap_advise/mmap_advise.h"
#include "util/container_of.h"

ODMA_LOG_REGISTER(DOCA_MMAP_ADVISE)

static struct doca_mmap_advise *ma_of(const struct doca_ctx *ctx)
{
	return odma_container_of(ctx, struct doca_mmap_advise, ctx);
}

/* The rules of a buffer to invalidate; NULL when it is fine, else why not. */
static const char *ma_buf_problem(const struct doca_mmap_advise *ma, const struct doca_buf *buf)
{
	if (buf == NULL)
		return "has no buffer; set one with doca_mmap_advise_task_invalidate_cache_set_buf";
	if (!buf->in_use)
		return "names a buf that was released to its inventory";
	if (buf->next != NULL || buf->list_head != buf)
		return "names a buf list; invalidate one buf per task";
	if (buf->data_len == 0)
		return "names a buf without data (data_len 0): nothing to invalidate";
	if (buf->data_len > ma->ctx.caps->max_buf_size)
		return "names a buf whose data is above the device's max buf size "
		       "(doca_mmap_advise_task_cache_invalidate_get_max_buf_size)";
	if (buf->mmap->from_export)
		return "names memory of the other side (an mmap from an export); only local memory "
		       "has cache lines here";
	return NULL;
}

static void ma_complete(struct doca_task *task, bool ok)
{
	struct doca_mmap_advise *ma = ma_of(task->ctx);

	(ok ? ma->ok_cb : ma->err_cb)((struct doca_mmap_advise_task_invalidate_cache *)task,
	                              task->user_data, task->ctx->user_data);
}

/*
 * The memory rules of every task's buffer (docs/preconditions.md M16, M15): the mmap is started
 * (a thread-safe one may be stopped under its bufs) and the context's device was added to it.
 */
static doca_error_t ma_buf_reached(const struct doca_task *task, const struct doca_buf *buf)
{
	const struct doca_dev *dev = task->ctx->dev;
	doca_error_t r = odma_buf_registered("MMAP_ADVISE", "invalidate-cache", task, buf);

	if (r != DOCA_SUCCESS || odma_mmap_has_dev(buf->mmap, dev))
		return r;
	ODMA_ERR_AT("doca_task_submit",
	            "invalidate-cache task %p: buf %p is in mmap %p, which device %s was never "
	            "added to (on hardware the task has no memory key there); fix: "
	            "doca_mmap_add_dev(mmap, dev) before doca_mmap_start",
	            (const void *)task, (const void *)buf, (const void *)buf->mmap,
	            dev->info->pci_addr);
	return DOCA_ERROR_NOT_PERMITTED;
}

static doca_error_t ma_submit(struct doca_task *task)
{
	struct doca_mmap_advise_task_invalidate_cache *t =
	        (struct doca_mmap_advise_task_invalidate_cache *)task;
	const char *why = ma_buf_problem(ma_of(task->ctx), t->buf);
	doca_error_t r;

	if (why != NULL) {
		ODMA_ERR("invalidate-cache task %p %s", (void *)t, why);
		return DOCA_ERROR_INVALID_VALUE;
	}
	r = ma_buf_reached(task, t->buf);
	if (r != DOCA_SUCCESS)
		return r;
	/* Coherent CPU caches: ordering is all a reader after the callback needs. */
	atomic_thread_fence(memory_order_seq_cst);
	odma_task_complete(task, DOCA_SUCCESS);
	return DOCA_SUCCESS;
}

static const struct odma_ctx_ops ma_ctx_ops = {
	.name = "MMAP_ADVISE",
	.task_size = sizeof(struct doca_mmap_advise_task_invalidate_cache),
	.complete = ma_complete,
	.submit = ma_submit,
};

static doca_error_t ma_check_cap(const struct doca_devinfo *info, const char *fn)
{
	if (info->caps.cache_invalidate)
		return DOCA_SUCCESS;
	ODMA_ERR("%s: device %s does not support the cache-invalidate task (only the Arm side of a "
	         "BlueField does: use a DPU-side device, see "
	         "doca_mmap_advise_cap_task_cache_invalidate_is_supported)",
	         fn, info->pci_addr);
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_mmap_advise_create(struct doca_dev *dev, struct doca_mmap_advise **mmap_advise)
{
	const struct doca_devinfo *info;
	struct doca_ctx *ctx;
	doca_error_t r;

	ODMA_CHECK_ARG(dev != NULL && mmap_advise != NULL, "dev and mmap_advise must not be NULL");
	info = odma_dev_lookup(dev);
	ODMA_CHECK_ARG(info != NULL, "dev %p is not a device handle from doca_dev_open",
	               (void *)dev);
	r = ma_check_cap(info, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	r = doca_priv_ctx_new(sizeof(struct doca_mmap_advise), &ma_ctx_ops, dev, &ctx);
	if (r != DOCA_SUCCESS)
		return r;
	/* the pool bounds what is in flight */
	ctx->queue_depth = UINT32_MAX;
	*mmap_advise = ma_of(ctx);
	return DOCA_SUCCESS;
}

ODMA_CTX_DESTROY_AS_CTX(mmap_advise)

ODMA_CAP_SUPPORTED(doca_mmap_advise_cap_task_cache_invalidate_is_supported, cache_invalidate)

ODMA_CAP_GETTER(doca_mmap_advise_task_cache_invalidate_get_max_buf_size, uint64_t, buf_size,
                cache_invalidate, devinfo->caps.max_buf_size)

doca_error_t doca_mmap_advise_task_invalidate_cache_set_conf(
        struct doca_mmap_advise *mmap_advise,
        doca_mmap_advise_task_invalidate_cache_completion_cb_t completion_cb,
        doca_mmap_advise_task_invalidate_cache_completion_cb_t error_cb, uint32_t num_tasks)
{
	uint32_t max;

	ODMA_CHECK_ARG(mmap_advise != NULL, "mmap_advise must not be NULL");
	ODMA_CHECK_ARG(completion_cb != NULL && error_cb != NULL,
	               "both the completion and the error callback are required");
	if (!doca_priv_task_conf_idle(&mmap_advise->ctx, __func__))
		return DOCA_ERROR_NOT_PERMITTED;
	max = doca_priv_task_conf_max(&mmap_advise->ctx);
	ODMA_CHECK_ARG(num_tasks >= 1 && num_tasks <= max, "num_tasks %u is outside 1..%u",
	               num_tasks, max);
	mmap_advise->ok_cb = completion_cb;
	mmap_advise->err_cb = error_cb;
	mmap_advise->ctx.num_tasks = num_tasks;
	mmap_advise->ctx.configured = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_advise_task_invalidate_cache_alloc_init(
        struct doca_mmap_advise *mmap_advise, struct doca_buf *buf, union doca_data user_data,
        struct doca_mmap_advise_task_invalidate_cache **task)
{
	struct doca_mmap_advise_task_invalidate_cache *t;
	struct doca_task *base;
	const char *why;
	doca_error_t r;

	ODMA_CHECK_ARG(mmap_advise != NULL && task != NULL,
	               "mmap_advise and task must not be NULL");
	r = doca_priv_task_alloc(&mmap_advise->ctx, &base); /* state first: BAD_STATE */
	if (r != DOCA_SUCCESS)
		return r;
	if (buf != NULL && (why = ma_buf_problem(mmap_advise, buf)) != NULL) {
		doca_task_free(base);
		ODMA_ERR("doca_mmap_advise_task_invalidate_cache_alloc_init: buf %p: the task %s",
		         (void *)buf, why);
		return DOCA_ERROR_INVALID_VALUE;
	}
	t = (struct doca_mmap_advise_task_invalidate_cache *)base;
	t->buf = buf;
	base->user_data = user_data;
	*task = t;
	return DOCA_SUCCESS;
}

struct doca_task *doca_mmap_advise_task_invalidate_cache_as_doca_task(
        struct doca_mmap_advise_task_invalidate_cache *task)
{
	return task != NULL ? &task->base : NULL;
}

void doca_mmap_advise_task_invalidate_cache_set_buf(
        struct doca_mmap_advise_task_invalidate_cache *task, struct doca_buf *buf)
{
	if (doca_priv_task_settable(task, __func__))
		task->buf = buf;
}

struct doca_buf *doca_mmap_advise_task_invalidate_cache_get_buf(
        const struct doca_mmap_advise_task_invalidate_cache *task)
{
	return task != NULL ? task->buf : NULL;
}
