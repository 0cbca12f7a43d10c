/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* The cross-process mover: tasks that touch a from-export mmap. */
#ifndef ODMA_XPROC_PRIV_H_
#define ODMA_XPROC_PRIV_H_

#include <stdint.h>

#include <doca_error.h>

struct doca_buf;

/*
 * Copies @total bytes from the source list into the destination list's free tails
 * when at least one element lives in another process (a from-export mmap). Any
 * thread. Returns DOCA_SUCCESS, or DOCA_ERROR_IO_FAILED when the remote memory is
 * gone (revoked export, dead exporter) or the kernel refuses the access.
 */
doca_error_t odma_xproc_copy(const struct doca_buf *src, struct doca_buf *dst, uint64_t total);

#endif
