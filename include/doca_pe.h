/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */

/**
 * @file doca_pe.h
 * @brief The progress engine (PE) and tasks.
 *
 * A progress engine drives one or more contexts. Completed tasks are reported only
 * from doca_pe_progress(), on the thread that calls it: never from inside a submit.
 * A PE is used by one thread at a time.
 *
 * @code
 *   doca_pe_create -> doca_pe_connect_ctx (each context, while IDLE)
 *   -> loop: submit tasks; doca_pe_progress() until the work is done
 *   -> contexts stopped and destroyed -> doca_pe_destroy
 * @endcode
 *
 * Event mode (instead of busy polling):
 * @code
 *   doca_pe_get_notification_handle(pe, &fd);          // an eventfd: add it to epoll
 *   for (;;) {
 *       while (doca_pe_progress(pe)) ;                 // drain
 *       doca_pe_request_notification(pe);             // arm
 *       epoll_wait(...);                               // sleep until something is ready
 *       doca_pe_clear_notification(pe, fd);            // consume the signal
 *   }
 * @endcode
 * No wake-up is lost: a completion that is already waiting when the PE is armed
 * makes the handle readable at once.
 *
 * Task ownership: after a successful submit the task belongs to the library until its
 * callback runs; in the callback it is the program's again (free it, keep it, or
 * resubmit it). A task whose submit failed stays the program's and gets no callback.
 */
#ifndef DOCA_PE_H_
#define DOCA_PE_H_

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_pe;
struct doca_ctx;
struct doca_task;

/** Flags of doca_task_submit_ex(). */
enum doca_task_submit_flag {
	DOCA_TASK_SUBMIT_FLAG_NONE = 0U,                  /**< hold the task back until a flush */
	DOCA_TASK_SUBMIT_FLAG_FLUSH = 1U << 0,            /**< hand this and every held task to the engine */
	DOCA_TASK_SUBMIT_FLAG_OPTIMIZE_REPORTS = 1U << 1, /**< defer this task's report to the next reported task */
};

/** How notifications are consumed. */
enum doca_pe_event_mode {
	DOCA_PE_EVENT_MODE_PROGRESS_SELECTIVE, /**< the program calls doca_pe_clear_notification() */
	DOCA_PE_EVENT_MODE_PROGRESS_ALL,       /**< doca_pe_progress() consumes the signal itself (default) */
};

/** Completion callback of a task (success and error callbacks share the type). */
typedef void (*doca_task_completion_cb_t)(struct doca_task *task, union doca_data task_user_data,
					  union doca_data ctx_user_data);

/**
 * @brief Creates a progress engine.
 * @param [out] pe  the new PE (untouched on failure).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_NO_MEMORY;
 *         DOCA_ERROR_OPERATING_SYSTEM (the eventfd could not be created);
 *         DOCA_ERROR_INITIALIZATION (the engine named by ODMA_ENGINE is unknown).
 */
DOCA_STABLE
doca_error_t doca_pe_create(struct doca_pe **pe);

/**
 * @brief Destroys a progress engine.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL);
 *         DOCA_ERROR_IN_USE (contexts are still connected, or graphs were created on it:
 *         destroy them first; or it was called from inside a callback of this PE, while
 *         doca_pe_progress still runs).
 */
DOCA_STABLE
doca_error_t doca_pe_destroy(struct doca_pe *pe);

/**
 * @brief Runs completion callbacks and state transitions that are ready. Never sleeps.
 * Must not be called from inside a callback of the same PE.
 * @return 1 if anything happened (a callback ran or a context changed state), else 0.
 */
DOCA_STABLE
uint8_t doca_pe_progress(struct doca_pe *pe);

/**
 * @brief The handle (an epoll descriptor, pollable and usable in another epoll set) that
 * becomes readable after doca_pe_request_notification() once anything of any context on the
 * PE waits for doca_pe_progress() (a completion, a message, a connection, a state change, a
 * timeout).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL.
 */
DOCA_STABLE
doca_error_t doca_pe_get_notification_handle(const struct doca_pe *pe, doca_notification_handle_t *handle);

/**
 * @brief Windows only in DOCA. On Linux odma supplies its own handle.
 * @return DOCA_ERROR_NOT_SUPPORTED (use doca_pe_get_notification_handle());
 *         DOCA_ERROR_INVALID_VALUE if @p pe is NULL.
 */
DOCA_STABLE
doca_error_t doca_pe_set_notification_handle(struct doca_pe *pe, doca_notification_handle_t handle,
					     union doca_data completion_key);

/**
 * @brief Consumes a signal of the notification handle. On Linux @p handle is not used (0 is
 * fine).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL PE).
 */
DOCA_STABLE
doca_error_t doca_pe_clear_notification(struct doca_pe *pe, doca_notification_handle_t handle);

/**
 * @brief Arms the notification handle: it becomes readable as soon as a completion or a state
 * change waits for doca_pe_progress() (at once if one already waits).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_OPERATING_SYSTEM.
 */
DOCA_STABLE
doca_error_t doca_pe_request_notification(struct doca_pe *pe);

/**
 * @brief Tasks submitted to all contexts of the PE whose callback has not run yet.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL.
 */
DOCA_STABLE
doca_error_t doca_pe_get_num_inflight_tasks(const struct doca_pe *pe, size_t *num_inflight_tasks);

/**
 * @brief Connects an IDLE context to the PE (for good: only destroying the context undoes it).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL);
 *         DOCA_ERROR_BAD_STATE (the context is not IDLE);
 *         DOCA_ERROR_NOT_PERMITTED (the context is already connected).
 */
DOCA_STABLE
doca_error_t doca_pe_connect_ctx(struct doca_pe *pe, struct doca_ctx *ctx);

/**
 * @brief Chooses how notification signals are consumed (see ::doca_pe_event_mode).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL PE or unknown mode).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_pe_set_event_mode(struct doca_pe *pe, enum doca_pe_event_mode mode);

/**
 * @brief Submits a task. Checks state, queue room, size limits and permissions; a task
 * whose data cannot be copied (empty source, destination too small) is accepted and fails
 * in its callback with DOCA_ERROR_IO_FAILED. As on hardware, a failed task puts the
 * context in error: the tasks submitted after it are flushed with DOCA_ERROR_IO_FAILED and
 * the context moves to STOPPING by itself when the failure is reported.
 * @return
 * - DOCA_SUCCESS: the task is in flight; its callback will run exactly once.
 * - DOCA_ERROR_INVALID_VALUE: NULL task, task already submitted, missing buffers, a source
 *   or list above the device limits (max_buf_size, max_buf_list_len).
 * - DOCA_ERROR_BAD_STATE: the context is not RUNNING, or a source or destination buf lies in
 *   a stopped mmap (a thread-safe mmap can be stopped while bufs point into it).
 * - DOCA_ERROR_AGAIN: more tasks in flight than the device queue depth: progress, then retry
 *   (the task stays the caller's).
 * - DOCA_ERROR_NOT_PERMITTED: the destination memory is not writable (mmap permissions), or
 *   a source or destination mmap was never added to the context's device
 *   (doca_mmap_add_dev).
 * - DOCA_ERROR_NOT_SUPPORTED: a source or destination buf lies in memory the task type's
 *   engine does not reach: for DMA and compress an mmap created from an RDMA export (DOCA
 *   RDMA tasks reach it), for compress memory reached over the network too, for erasure
 *   coding any mmap created from an export.
 */
DOCA_STABLE
doca_error_t doca_task_submit(struct doca_task *task);

/**
 * @brief Like doca_task_submit() but validates everything first: an empty source, a
 * destination too small, or overlapping source and destination give
 * DOCA_ERROR_INVALID_VALUE here instead of a failed completion.
 * @return as doca_task_submit().
 */
DOCA_STABLE
doca_error_t doca_task_try_submit(struct doca_task *task);

/**
 * @brief Submits with flags (::doca_task_submit_flag). Without FLUSH the task is held back
 * until a later FLUSH submit, doca_ctx_flush_tasks() or doca_pe_progress(); with
 * OPTIMIZE_REPORTS its callback is deferred until a later task without that flag completes
 * (or the context stops).
 * @return as doca_task_submit(); DOCA_ERROR_INVALID_VALUE for unknown flags.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_task_submit_ex(struct doca_task *task, uint32_t flags);

/**
 * @brief Returns a task to its context's pool. A task in flight is freed when its completion
 * or flush is reported, and its callback is then not called (one WARNING line).
 */
DOCA_STABLE
void doca_task_free(struct doca_task *task);

/**
 * @brief Status of a completed task: DOCA_SUCCESS, or why it failed
 * (DOCA_ERROR_IO_FAILED for a flushed or failed copy). DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_STABLE
doca_error_t doca_task_get_status(const struct doca_task *task);

/** @brief Sets the task's user data (no-op for NULL). */
DOCA_STABLE
void doca_task_set_user_data(struct doca_task *task, union doca_data user_data);

/** @brief The task's user data (zero for NULL). */
DOCA_STABLE
union doca_data doca_task_get_user_data(const struct doca_task *task);

/** @brief The context the task belongs to (NULL for NULL). */
DOCA_STABLE
struct doca_ctx *doca_task_get_ctx(const struct doca_task *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_PE_H_ */
