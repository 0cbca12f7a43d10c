/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* The cross-process mover. From-export mmaps arrive with the host/DPU work; until then none exist. */
#include "log_priv.h"
#include "xproc_priv.h"

ODMA_LOG_REGISTER(ODMA_XPROC)

doca_error_t odma_xproc_copy(const struct doca_buf *src, struct doca_buf *dst, uint64_t total)
{
	(void)src;
	(void)dst;
	(void)total;
	ODMA_ERR("a task touches a from-export mmap, which this build cannot reach");
	return DOCA_ERROR_IO_FAILED;
}
