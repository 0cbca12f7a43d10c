/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Helpers shared by the files of core/exec only. */
#ifndef ODMA_CORE_EXEC_INT_H_
#define ODMA_CORE_EXEC_INT_H_

#include "core/exec/exec.h"

const char *odma_ctx_state_name(enum doca_ctx_states s);
bool odma_ctx_ready_for_idle(const struct doca_ctx *ctx);
bool odma_ctx_begin_stop(struct doca_ctx *ctx, bool flush);

/* Hands tasks held back (submitted without FLUSH) to the engine; false if some stay held. */
bool odma_ctx_launch_held(struct doca_ctx *ctx);

void odma_pe_disconnect(struct doca_pe *pe, struct doca_ctx *ctx);

/* Records that the task numbered @seq failed: tasks submitted after it are flushed. */
void odma_task_mark_failed(struct doca_ctx *ctx, uint64_t seq);

/* Puts a task the program freed back into its context's pool. */
void odma_task_release(struct doca_task *task);

/* wake.c: the notification handle, its timer and the arm ops of contexts. */
doca_error_t odma_pe_wake_init(struct doca_pe *pe);
void odma_pe_wake_fini(struct doca_pe *pe);
uint64_t odma_pe_wake_arm(struct doca_pe *pe);
void odma_pe_wake_progress(struct doca_pe *pe);

/*
 * async.c: starts a copy task with copy.async (a network transport) on the PE thread,
 * instead of handing it to the engine; it completes through the PE's async list.
 */
void odma_task_launch_async(struct doca_ctx *ctx, struct doca_task *t);
/* A flushing stop: the context's network copies in flight end now (odma_copy_cancel). */
void odma_ctx_cancel_async(struct doca_ctx *ctx);

/* Waits until no transport thread still touches @pe after handing it a task (destroy). */
void odma_pe_async_quiesce(struct doca_pe *pe);

/* doca_pe_progress with network copies in flight: polls their transport inline. */
void odma_pe_poll_async(struct doca_pe *pe);

/* Moves the tasks the transports finished onto the PE's done list (PE thread). */
void odma_pe_take_async(struct doca_pe *pe);

#endif /* ODMA_CORE_EXEC_INT_H_ */
