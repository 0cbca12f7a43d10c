/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The DMA context: a generic context (first member) whose one task type copies a
 * source buffer (list) into a destination buffer (list). The core (libdoca_common)
 * owns the state machine, validation and the engines; this file is the DOCA DMA
 * surface: creation, capabilities, configuration and the memcpy task accessors.
 */

#include <doca_dma.h>

#include "core/exec/exec.h"
#include "core/device/device.h"
#include "core/error/error.h"
#include "core/log/log.h"
#include "util/container_of.h"

ODMA_LOG_REGISTER(DOCA_DMA)

struct doca_dma {
	struct doca_ctx ctx; /* first: doca_dma_as_ctx is a cast */
	doca_dma_task_memcpy_completion_cb_t ok_cb;
	doca_dma_task_memcpy_completion_cb_t err_cb;
};

struct doca_dma_task_memcpy {
	struct doca_task base;
};

static void dma_complete(struct doca_task *task, bool success)
{
	struct doca_dma *dma = odma_container_of(task->ctx, struct doca_dma, ctx);
	doca_dma_task_memcpy_completion_cb_t cb = success ? dma->ok_cb : dma->err_cb;

	cb((struct doca_dma_task_memcpy *)task, task->user_data, task->ctx->user_data);
}

static const struct odma_ctx_ops dma_ctx_ops = {
	.name = "DMA",
	.task_size = sizeof(struct doca_dma_task_memcpy),
	.complete = dma_complete,
};

static doca_error_t dma_check_memcpy(const struct doca_devinfo *devinfo, const char *func)
{
	if (devinfo->caps.dma_memcpy)
		return DOCA_SUCCESS;
	ODMA_ERR("%s: device %s does not support the DMA memcpy task; %s", func, devinfo->pci_addr,
	         odma_cause_fix(ODMA_CAUSE_NO_MEMCPY));
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_dma_create(struct doca_dev *dev, struct doca_dma **dma)
{
	struct doca_ctx *ctx;
	doca_error_t r;

	ODMA_CHECK_ARG(dev != NULL && dma != NULL, "dev and dma must not be NULL");
	r = dma_check_memcpy(dev->info, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	r = doca_priv_ctx_new(sizeof(struct doca_dma), &dma_ctx_ops, dev, &ctx);
	if (r != DOCA_SUCCESS)
		return r;
	*dma = odma_container_of(ctx, struct doca_dma, ctx);
	return DOCA_SUCCESS;
}

ODMA_CTX_DESTROY_AS_CTX(dma)

ODMA_CAP_SUPPORTED(doca_dma_cap_task_memcpy_is_supported, dma_memcpy)

ODMA_GETTER(doca_dma_cap_get_max_num_tasks, struct doca_dma, dma, uint32_t, max_num_tasks,
            dma->ctx.caps->max_num_tasks)

ODMA_CAP_GETTER(doca_dma_cap_task_memcpy_get_max_buf_list_len, uint32_t, max_buf_list_len,
                dma_memcpy, devinfo->caps.max_buf_list_len)

ODMA_CAP_GETTER(doca_dma_cap_task_memcpy_get_max_buf_size, uint64_t, buf_size, dma_memcpy,
                devinfo->caps.max_buf_size)

doca_error_t doca_dma_task_memcpy_set_conf(struct doca_dma *dma,
                                           doca_dma_task_memcpy_completion_cb_t task_completion_cb,
                                           doca_dma_task_memcpy_completion_cb_t task_error_cb,
                                           uint32_t num_memcpy_tasks)
{
	ODMA_CHECK_ARG(dma != NULL, "dma must not be NULL");
	ODMA_CHECK_ARG(task_completion_cb != NULL && task_error_cb != NULL,
	               "both the completion and the error callback are required");
	if (!doca_priv_task_conf_idle(&dma->ctx, __func__))
		return DOCA_ERROR_BAD_STATE;
	if (dma_check_memcpy(dma->ctx.dev->info, __func__) != DOCA_SUCCESS)
		return DOCA_ERROR_NOT_SUPPORTED;
	ODMA_CHECK_ARG(num_memcpy_tasks >= 1 && num_memcpy_tasks <= dma->ctx.caps->max_num_tasks,
	               "num_memcpy_tasks %u is outside 1..%u (doca_dma_cap_get_max_num_tasks)",
	               num_memcpy_tasks, dma->ctx.caps->max_num_tasks);
	dma->ok_cb = task_completion_cb;
	dma->err_cb = task_error_cb;
	dma->ctx.num_tasks = num_memcpy_tasks;
	dma->ctx.configured = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_dma_task_memcpy_alloc_init(struct doca_dma *dma, const struct doca_buf *src,
                                             struct doca_buf *dst, union doca_data user_data,
                                             struct doca_dma_task_memcpy **task)
{
	struct doca_task *t;
	doca_error_t r;

	ODMA_CHECK_ARG(dma != NULL && task != NULL, "dma and task must not be NULL");
	r = doca_priv_task_alloc(&dma->ctx, &t); /* state first: BAD_STATE before size checks */
	if (r != DOCA_SUCCESS)
		return r;
	if (src != NULL || dst != NULL) {
		r = doca_priv_task_check_limits(&dma->ctx, src, dst);
		if (r != DOCA_SUCCESS) {
			doca_task_free(t);
			return r;
		}
	}
	t->copy.src = src;
	t->copy.dst = dst;
	t->user_data = user_data;
	*task = (struct doca_dma_task_memcpy *)t;
	return DOCA_SUCCESS;
}

struct doca_task *doca_dma_task_memcpy_as_task(struct doca_dma_task_memcpy *task)
{
	return task != NULL ? &task->base : NULL;
}

void doca_dma_task_memcpy_set_src(struct doca_dma_task_memcpy *task, const struct doca_buf *src)
{
	if (doca_priv_task_settable(task, __func__))
		task->base.copy.src = src;
}

const struct doca_buf *doca_dma_task_memcpy_get_src(const struct doca_dma_task_memcpy *task)
{
	return task != NULL ? task->base.copy.src : NULL;
}

void doca_dma_task_memcpy_set_dst(struct doca_dma_task_memcpy *task, struct doca_buf *dst)
{
	if (doca_priv_task_settable(task, __func__))
		task->base.copy.dst = dst;
}

struct doca_buf *doca_dma_task_memcpy_get_dst(const struct doca_dma_task_memcpy *task)
{
	return task != NULL ? task->base.copy.dst : NULL;
}

doca_error_t doca_dma_set_ordered_completions(struct doca_dma *dma, uint8_t enable)
{
	ODMA_CHECK_ARG(dma != NULL, "dma must not be NULL");
	if (dma->ctx.state != DOCA_CTX_STATE_IDLE) {
		ODMA_ERR("DMA context %p is not IDLE; "
		         "choose ordered completions before doca_ctx_start",
		         (void *)dma);
		return DOCA_ERROR_BAD_STATE;
	}
	dma->ctx.ordered = enable != 0;
	return DOCA_SUCCESS;
}
