/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Helpers shared by ctx.c, pe.c and task.c only. */
#ifndef ODMA_CTX_INT_H_
#define ODMA_CTX_INT_H_

#include "core/exec/exec.h"

const char *odma_ctx_state_name(enum doca_ctx_states s);
bool odma_ctx_ready_for_idle(const struct doca_ctx *ctx);
void odma_ctx_begin_stop(struct doca_ctx *ctx, bool flush);

/* Hands tasks held back (submitted without FLUSH) to the engine; false if some stay held. */
bool odma_ctx_launch_held(struct doca_ctx *ctx);

void odma_pe_disconnect(struct doca_pe *pe, struct doca_ctx *ctx);

/* Checks a task's buffers; fills total/preset/remote. @full: the try_submit checks too. */
doca_error_t odma_copy_validate(const struct doca_ctx *ctx, struct doca_task *task, bool full);

/* Copies a task's bytes (its unsplit part); DOCA_SUCCESS or IO_FAILED (remote memory gone). */
doca_error_t odma_xfer_task(const struct doca_task *task);

/* After a successful copy: grows the destination data_len(s) by the bytes written. */
void odma_dst_grow(struct doca_task *task);

#endif
