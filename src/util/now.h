/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The monotonic clock in nanoseconds, the time base of deadlines, pacing and rate limits.
 * Header-only: the UCX module links none of odma's libraries, and the thread engine reads it
 * on its hot path.
 */
#ifndef ODMA_UTIL_NOW_H_
#define ODMA_UTIL_NOW_H_

#include <stdint.h>
#include <time.h>

static inline uint64_t odma_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif /* ODMA_UTIL_NOW_H_ */
