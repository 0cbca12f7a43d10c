/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Create/destroy cycles of a whole DMA set-up (cycles.c). */
#ifndef ODMA_TEST_CYCLES_H_
#define ODMA_TEST_CYCLES_H_

#include <stdbool.h>

/*
 * Runs @cycles cycles of: create PE + DMA context + two mmaps + inventory, one checked task,
 * destroy everything. @beside: meanwhile a second thread keeps another PE busy. Returns 0, or
 * -1 after printing what failed.
 */
int cycles_run(unsigned long cycles, bool beside);

#endif
