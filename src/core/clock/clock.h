/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The clock module's face: one reading of any DOCA_CLOCK_* clock of a device, in
 * nanoseconds (ticks for the cycle counter), for tools and tests that compare clocks.
 */
#ifndef ODMA_CORE_CLOCK_H_
#define ODMA_CORE_CLOCK_H_

#include <stdint.h>

#include <doca_clock.h>

struct doca_devinfo;

struct doca_clock {
	const struct doca_devinfo *info;
	struct doca_dev *dev;
	int64_t fr_offset_ns; /* NIC free-running clock = CLOCK_MONOTONIC_RAW + this */
};

#endif /* ODMA_CORE_CLOCK_H_ */
