/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The mmap advise module's face: the context and its one task type, for tools and tests
 * that look inside (nothing else in the library needs them).
 */
#ifndef ODMA_CORE_MMAP_ADVISE_H_
#define ODMA_CORE_MMAP_ADVISE_H_

#include <doca_mmap_advise.h>

#include "core/exec/exec.h"

struct doca_mmap_advise {
	struct doca_ctx ctx; /* first: doca_mmap_advise_as_ctx */
	doca_mmap_advise_task_invalidate_cache_completion_cb_t ok_cb;
	doca_mmap_advise_task_invalidate_cache_completion_cb_t err_cb;
};

struct doca_mmap_advise_task_invalidate_cache {
	struct doca_task base; /* first; base.src/dst stay NULL (not a copy) */
	struct doca_buf *buf;
};

#endif /* ODMA_CORE_MMAP_ADVISE_H_ */
