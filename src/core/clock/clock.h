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

/*
 * Reads @type of @clock into *@out (ns since the clock's origin, or ticks). Returns
 * DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (not one DOCA_CLOCK_* value), DOCA_ERROR_NOT_SUPPORTED
 * or DOCA_ERROR_OPERATING_SYSTEM, logging nothing.
 */
doca_error_t odma_clock_read(const struct doca_clock *clock, uint64_t type, uint64_t *out);

#endif /* ODMA_CORE_CLOCK_H_ */
