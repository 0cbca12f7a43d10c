/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* The thread engine's white-box view, for unit tests only (no other module includes it). */
#ifndef ODMA_ENGINES_THREAD_H_
#define ODMA_ENGINES_THREAD_H_

#include <stdint.h>

/* Channels in worker @i's current set; -1 when the pool has no worker @i. Takes the pool lock. */
int odma_te_test_channels(uint32_t i);

/* Whether worker @i sleeps on its futex now (-1 when there is no worker @i). */
int odma_te_test_sleeping(uint32_t i);

#endif
