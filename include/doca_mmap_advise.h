/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */

/**
 * @file doca_mmap_advise.h
 * @brief DOCA mmap advise: a context whose task invalidates the CPU cache lines of a buffer.
 *
 * On a BlueField in DPU mode, memory that a DMA engine wrote may still be shadowed by stale
 * lines in the Arm cores' caches; the invalidate-cache task drops them (without write-back)
 * so the CPU reads what the DMA wrote. It changes performance, never program meaning.
 *
 * @code
 *   doca_mmap_advise_cap_task_cache_invalidate_is_supported(devinfo);
 *   doca_mmap_advise_create(dev, &ma); ctx = doca_mmap_advise_as_ctx(ma);
 *   doca_mmap_advise_task_invalidate_cache_set_conf(ma, ok_cb, err_cb, num_tasks);
 *   doca_pe_connect_ctx(pe, ctx); doca_ctx_start(ctx);
 *   doca_mmap_advise_task_invalidate_cache_alloc_init(ma, buf, user_data, &task);
 *   doca_task_submit(doca_mmap_advise_task_invalidate_cache_as_doca_task(task));
 *   ... doca_pe_progress(pe) runs ok_cb or err_cb ...
 * @endcode
 *
 * In odma every copy is done by CPUs whose caches are coherent, so the task has nothing to
 * drop: it checks its buffer exactly as the hardware would, issues a full memory fence, and
 * completes through the progress engine. The emulated devices that support it are the
 * DPU-side devices of the BlueField profiles (docs/profiles.md).
 */
#ifndef DOCA_MMAP_ADVISE_H_
#define DOCA_MMAP_ADVISE_H_

#include <stddef.h>
#include <stdint.h>

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
struct doca_task;

/** An mmap-advise context. */
struct doca_mmap_advise;
/** The invalidate-cache task. */
struct doca_mmap_advise_task_invalidate_cache;

/** Completion (and error) callback of an invalidate-cache task. */
typedef void (*doca_mmap_advise_task_invalidate_cache_completion_cb_t)(
        struct doca_mmap_advise_task_invalidate_cache *task, union doca_data task_user_data,
        union doca_data ctx_user_data);

/**
 * @brief Creates an mmap-advise context on a device.
 * @param [in] dev  an open device that supports the cache-invalidate task.
 * @param [out] mmap_advise  the new context (untouched on failure).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, unknown device);
 *         DOCA_ERROR_NOT_SUPPORTED (the device cannot invalidate caches);
 *         DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_mmap_advise_create(struct doca_dev *dev, struct doca_mmap_advise **mmap_advise);

/**
 * @brief Destroys an mmap-advise context (it must be IDLE).
 * @param [in] mmap_advise  the context.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_BAD_STATE (not IDLE);
 *         DOCA_ERROR_IN_USE (STOPPING, or a context node of a graph: destroy the graph first).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_mmap_advise_destroy(struct doca_mmap_advise *mmap_advise);

/**
 * @brief The context of an mmap-advise object.
 * @param [in] mmap_advise  the object.
 * @return the context; NULL if @p mmap_advise is NULL.
 */
DOCA_EXPERIMENTAL
struct doca_ctx *doca_mmap_advise_as_ctx(struct doca_mmap_advise *mmap_advise);

/**
 * @brief Whether a device supports the cache-invalidate task.
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS (supported); DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_mmap_advise_cap_task_cache_invalidate_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief The largest buffer (data length) one invalidate-cache task accepts.
 * @param [in] devinfo  the device.
 * @param [out] buf_size  the limit in bytes (the device's max_buf_size in odma).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_NOT_SUPPORTED (the
 *         device has no cache-invalidate task).
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_mmap_advise_task_cache_invalidate_get_max_buf_size(const struct doca_devinfo *devinfo,
                                                        uint64_t *buf_size);

/**
 * @brief Configures the invalidate-cache task (while the context is IDLE).
 * @param [in] mmap_advise  the context.
 * @param [in] completion_cb  success callback.
 * @param [in] error_cb  failure callback.
 * @param [in] num_tasks  pool size, 1..the device's max_num_tasks.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, size out of range);
 *         DOCA_ERROR_NOT_PERMITTED (context not IDLE).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_mmap_advise_task_invalidate_cache_set_conf(
        struct doca_mmap_advise *mmap_advise,
        doca_mmap_advise_task_invalidate_cache_completion_cb_t completion_cb,
        doca_mmap_advise_task_invalidate_cache_completion_cb_t error_cb, uint32_t num_tasks);

/**
 * @brief Allocates an invalidate-cache task.
 *
 * The task covers the data segment of @p buf. At submit the buf must be held (not released
 * to its inventory), a single buf (no list), with data (data length 1..max buf size), in a
 * local mmap (not from an export); otherwise doca_task_submit() answers
 * DOCA_ERROR_INVALID_VALUE. A non-NULL @p buf is checked here too. At submit its mmap must
 * also be started (else DOCA_ERROR_BAD_STATE: a thread-safe mmap may be stopped under its
 * bufs) and hold the context's device (doca_mmap_add_dev; else DOCA_ERROR_NOT_PERMITTED).
 * @param [in] mmap_advise  the context (RUNNING).
 * @param [in] buf  the buffer, or NULL to set it later.
 * @param [in] user_data  the task's user data.
 * @param [out] task  the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL context or task, a bad buf);
 *         DOCA_ERROR_BAD_STATE (context not RUNNING); DOCA_ERROR_NO_MEMORY (pool used up).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_mmap_advise_task_invalidate_cache_alloc_init(
        struct doca_mmap_advise *mmap_advise, struct doca_buf *buf, union doca_data user_data,
        struct doca_mmap_advise_task_invalidate_cache **task);

/**
 * @brief The task as a generic task.
 * @param [in] task  the task.
 * @return the generic task; NULL if @p task is NULL.
 */
DOCA_EXPERIMENTAL
struct doca_task *doca_mmap_advise_task_invalidate_cache_as_doca_task(
        struct doca_mmap_advise_task_invalidate_cache *task);

/**
 * @brief Changes the task's buffer (ignored while the task is in flight).
 * @param [in] task  the task.
 * @param [in] buf  the buffer.
 */
DOCA_EXPERIMENTAL
void doca_mmap_advise_task_invalidate_cache_set_buf(
        struct doca_mmap_advise_task_invalidate_cache *task, struct doca_buf *buf);

/**
 * @brief The task's buffer.
 * @param [in] task  the task.
 * @return the buffer; NULL if none or @p task is NULL.
 */
DOCA_EXPERIMENTAL
struct doca_buf *doca_mmap_advise_task_invalidate_cache_get_buf(
        const struct doca_mmap_advise_task_invalidate_cache *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_MMAP_ADVISE_H_ */
