/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */

/**
 * @file doca_dma.h
 * @brief DOCA DMA: a context whose memcpy tasks copy between two doca_buf (lists).
 *
 * @code
 *   doca_dma_cap_task_memcpy_is_supported(devinfo)   // pick a device
 *   doca_dma_create(dev, &dma); ctx = doca_dma_as_ctx(dma);
 *   doca_dma_task_memcpy_set_conf(dma, ok_cb, err_cb, num_tasks);
 *   doca_pe_connect_ctx(pe, ctx); doca_ctx_start(ctx);
 *   doca_dma_task_memcpy_alloc_init(dma, src, dst, user_data, &task);
 *   doca_task_submit(doca_dma_task_memcpy_as_task(task));
 *   ... doca_pe_progress(pe) runs ok_cb or err_cb; the callback frees or resubmits ...
 *   doca_ctx_stop(ctx); doca_dma_destroy(dma);
 * @endcode
 *
 * Copy rule: the source's data segment(s) (data, data_len; every element of a list, in
 * order) are written at data + data_len of the destination (element by element for a
 * destination list), and the destination's data_len grows by the bytes written. The
 * destination's free space must hold the whole source.
 */
#ifndef DOCA_DMA_H_
#define DOCA_DMA_H_

#include <inttypes.h>
#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_ctx;
struct doca_dev;
struct doca_devinfo;
struct doca_dma;
struct doca_dma_task_memcpy;
struct doca_task;

/** Completion callback of a memcpy task (used for both success and error). */
typedef void (*doca_dma_task_memcpy_completion_cb_t)(struct doca_dma_task_memcpy *task,
						     union doca_data task_user_data,
						     union doca_data ctx_user_data);

/**
 * @brief Creates a DMA context on a device.
 * @param [in] dev  an open device.
 * @param [out] dma  the new context (untouched on failure).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL);
 *         DOCA_ERROR_NOT_SUPPORTED (the device has no DMA memcpy capability);
 *         DOCA_ERROR_NO_MEMORY.
 */
DOCA_STABLE
doca_error_t doca_dma_create(struct doca_dev *dev, struct doca_dma **dma);

/**
 * @brief Destroys an IDLE DMA context (and disconnects it from its PE).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL);
 *         DOCA_ERROR_BAD_STATE (RUNNING: stop it first);
 *         DOCA_ERROR_IN_USE (STOPPING: progress until IDLE first; or a context node of a
 *         graph: destroy the graph first).
 */
DOCA_STABLE
doca_error_t doca_dma_destroy(struct doca_dma *dma);

/** @brief The generic context of a DMA context (NULL for NULL). */
DOCA_STABLE
struct doca_ctx *doca_dma_as_ctx(struct doca_dma *dma);

/**
 * @brief Whether the device can run memcpy tasks.
 * @return DOCA_SUCCESS (supported); DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE
doca_error_t doca_dma_cap_task_memcpy_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief The largest task pool a DMA context accepts in doca_dma_task_memcpy_set_conf().
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE
doca_error_t doca_dma_cap_get_max_num_tasks(struct doca_dma *dma, uint32_t *max_num_tasks);

/**
 * @brief The longest buffer list (source or destination) of one memcpy task; 1 = no lists.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL);
 *         DOCA_ERROR_NOT_SUPPORTED (the device has no memcpy).
 */
DOCA_STABLE
doca_error_t doca_dma_cap_task_memcpy_get_max_buf_list_len(const struct doca_devinfo *devinfo,
							    uint32_t *max_buf_list_len);

/**
 * @brief The most bytes one memcpy task may copy.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL);
 *         DOCA_ERROR_NOT_SUPPORTED (the device has no memcpy).
 */
DOCA_STABLE
doca_error_t doca_dma_cap_task_memcpy_get_max_buf_size(const struct doca_devinfo *devinfo, uint64_t *buf_size);

/**
 * @brief Enables memcpy tasks: callbacks and the size of the task pool. Required before start.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL dma or callback, zero tasks, or more
 *         than doca_dma_cap_get_max_num_tasks()); DOCA_ERROR_BAD_STATE (context not IDLE);
 *         DOCA_ERROR_NOT_SUPPORTED (the device has no memcpy).
 */
DOCA_STABLE
doca_error_t doca_dma_task_memcpy_set_conf(struct doca_dma *dma,
					   doca_dma_task_memcpy_completion_cb_t task_completion_cb,
					   doca_dma_task_memcpy_completion_cb_t task_error_cb,
					   uint32_t num_memcpy_tasks);

/**
 * @brief Takes a task from the pool and sets its buffers and user data.
 * @param [in] src  source buffer or list head (may be NULL: set it before submitting).
 * @param [in] dst  destination buffer or list head (may be NULL likewise).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL dma/task, or given buffers above the
 *         device limits); DOCA_ERROR_BAD_STATE (context not RUNNING);
 *         DOCA_ERROR_NO_MEMORY (all num_memcpy_tasks tasks are allocated);
 *         DOCA_ERROR_NOT_SUPPORTED (a given buffer lies in an mmap created from an RDMA
 *         export: DOCA RDMA tasks reach it, DMA does not).
 */
DOCA_STABLE
doca_error_t doca_dma_task_memcpy_alloc_init(struct doca_dma *dma, const struct doca_buf *src,
					     struct doca_buf *dst, union doca_data user_data,
					     struct doca_dma_task_memcpy **task);

/** @brief The generic task of a memcpy task (NULL for NULL). */
DOCA_STABLE
struct doca_task *doca_dma_task_memcpy_as_task(struct doca_dma_task_memcpy *task);

/** @brief Replaces the source of a task that is not in flight. */
DOCA_STABLE
void doca_dma_task_memcpy_set_src(struct doca_dma_task_memcpy *task, const struct doca_buf *src);

/** @brief The task's source (NULL for NULL). */
DOCA_STABLE
const struct doca_buf *doca_dma_task_memcpy_get_src(const struct doca_dma_task_memcpy *task);

/** @brief Replaces the destination of a task that is not in flight. */
DOCA_STABLE
void doca_dma_task_memcpy_set_dst(struct doca_dma_task_memcpy *task, struct doca_buf *dst);

/** @brief The task's destination (NULL for NULL). */
DOCA_STABLE
struct doca_buf *doca_dma_task_memcpy_get_dst(const struct doca_dma_task_memcpy *task);

/**
 * @brief Delivers the context's completions in submission order (off by default).
 * @param [in] enable  non-zero to enable.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_BAD_STATE (not IDLE).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dma_set_ordered_completions(struct doca_dma *dma, uint8_t enable);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DMA_H_ */
