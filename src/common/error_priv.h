/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
#ifndef ODMA_ERROR_PRIV_H_
#define ODMA_ERROR_PRIV_H_

#include <doca_error.h>

struct odma_error_info {
	const char *name;
	const char *descr;
};

/* Entry for a known code, NULL otherwise. */
const struct odma_error_info *odma_error_info(doca_error_t error);
/* Number of known codes (they are numbered 0..count-1). */
unsigned int odma_error_count(void);

#endif
