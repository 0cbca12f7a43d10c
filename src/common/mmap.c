/* Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause */
#include "mmap_priv.h"

bool odma_mmap_writable(const struct doca_mmap *mmap)
{
	return (mmap->perms & DOCA_ACCESS_FLAG_LOCAL_READ_WRITE) != 0;
}
