/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */

/**
 * @file doca_ctx.h
 * @brief The generic context: the state machine every DOCA context type shares.
 *
 * A context (for example the DMA context, reached with doca_dma_as_ctx()) runs tasks
 * on a device. Its life:
 *
 * @code
 *   create (doca_dma_create) -> configure (doca_dma_task_memcpy_set_conf, ...)
 *   -> doca_pe_connect_ctx -> doca_ctx_start            IDLE -> RUNNING
 *   -> allocate / submit tasks, doca_pe_progress
 *   -> doca_ctx_stop                                     RUNNING -> STOPPING -> IDLE
 *   -> destroy (doca_dma_destroy)
 * @endcode
 *
 * States: IDLE (configurable, no tasks), STARTING (asynchronous start in progress;
 * the DMA context starts synchronously and never stays there), RUNNING (tasks may be
 * allocated and submitted), STOPPING (no new tasks; tasks still in flight are
 * completed or flushed during doca_pe_progress()). A stopping context becomes IDLE
 * during a later doca_pe_progress() once no task is in flight and every task has
 * been freed with doca_task_free().
 */
#ifndef DOCA_CTX_H_
#define DOCA_CTX_H_

#include <stddef.h>
#include <stdint.h>
#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_ctx;
struct doca_devinfo;

/** States of a context. */
enum doca_ctx_states {
	DOCA_CTX_STATE_IDLE = 0,     /**< created or fully stopped; may be configured */
	DOCA_CTX_STATE_STARTING = 1, /**< an asynchronous start is completing */
	DOCA_CTX_STATE_RUNNING = 2,  /**< tasks may be allocated and submitted */
	DOCA_CTX_STATE_STOPPING = 3, /**< stopping: in-flight tasks complete or are flushed */
};

/**
 * Called after every state change of a context, with the context's user data.
 * When it runs, @p next_state is already the current state.
 */
typedef void (*doca_ctx_state_changed_callback_t)(const union doca_data user_data,
						  struct doca_ctx *ctx,
						  enum doca_ctx_states prev_state,
						  enum doca_ctx_states next_state);

/**
 * @brief Starts a context: IDLE -> RUNNING (the DMA context starts synchronously).
 *
 * @param [in] ctx  the context.
 * @return
 * - DOCA_SUCCESS: the context is RUNNING.
 * - DOCA_ERROR_INVALID_VALUE: @p ctx is NULL.
 * - DOCA_ERROR_NOT_CONNECTED: the context is not connected to a progress engine.
 * - DOCA_ERROR_BAD_CONFIG: no task type was configured (e.g. no memcpy set_conf).
 * - DOCA_ERROR_BAD_STATE: the context is not IDLE.
 * - DOCA_ERROR_NOT_SUPPORTED: the device cannot run this context type.
 * - DOCA_ERROR_NO_MEMORY: the task pool could not be allocated.
 */
DOCA_STABLE
doca_error_t doca_ctx_start(struct doca_ctx *ctx);

/**
 * @brief Stops a context.
 *
 * With nothing in flight and every task freed, the context becomes IDLE at once.
 * Otherwise it moves to STOPPING: tasks not yet executed complete with
 * DOCA_ERROR_IO_FAILED (flushed), and the context becomes IDLE during a later
 * doca_pe_progress() once all tasks have completed and been freed. May be called
 * from inside a completion callback.
 *
 * @param [in] ctx  the context.
 * @return
 * - DOCA_SUCCESS: the context is IDLE (also when it already was).
 * - DOCA_ERROR_IN_PROGRESS: the context is STOPPING; keep calling doca_pe_progress().
 * - DOCA_ERROR_INVALID_VALUE: @p ctx is NULL.
 */
DOCA_STABLE
doca_error_t doca_ctx_stop(struct doca_ctx *ctx);

/**
 * @brief Number of tasks submitted to the context whose callback has not run yet.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL.
 */
DOCA_STABLE
doca_error_t doca_ctx_get_num_inflight_tasks(const struct doca_ctx *ctx, size_t *num_inflight_tasks);

/**
 * @brief Sets the user data handed to the state callback and to every task callback.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if @p ctx is NULL;
 *         DOCA_ERROR_BAD_STATE if the context is not IDLE.
 */
DOCA_STABLE
doca_error_t doca_ctx_set_user_data(struct doca_ctx *ctx, union doca_data user_data);

/**
 * @brief Reads the context's user data.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL.
 */
DOCA_STABLE
doca_error_t doca_ctx_get_user_data(const struct doca_ctx *ctx, union doca_data *user_data);

/**
 * @brief Sets the callback run after each state change (NULL removes it).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if @p ctx is NULL;
 *         DOCA_ERROR_BAD_STATE if the context is not IDLE.
 */
DOCA_STABLE
doca_error_t doca_ctx_set_state_changed_cb(struct doca_ctx *ctx, doca_ctx_state_changed_callback_t cb);

/**
 * @brief Reads the current state.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL.
 */
DOCA_STABLE
doca_error_t doca_ctx_get_state(const struct doca_ctx *ctx, enum doca_ctx_states *state);

/**
 * @brief Completes tasks submitted without DOCA_TASK_SUBMIT_FLAG_FLUSH: hands every
 * held-back task to the engine. The context must not be IDLE (else nothing happens
 * and one line is logged).
 */
DOCA_EXPERIMENTAL
void doca_ctx_flush_tasks(struct doca_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_CTX_H_ */
