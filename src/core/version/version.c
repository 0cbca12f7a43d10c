/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
#include <doca_version.h>

const char *doca_version_runtime(void)
{
	return DOCA_VERSION_STRING;
}
