/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
#ifndef ODMA_UTIL_CONTAINER_OF_H_
#define ODMA_UTIL_CONTAINER_OF_H_

#include <stddef.h>

/* The structure that embeds @ptr as its @member. */
#define odma_container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

#endif
