/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */

/**
 * @file doca_clock.h
 * @brief DOCA Clock: read host and NIC clocks, alone or together (a cross timestamp).
 *
 * A clock object is made from an open device and reads any of the clocks below. A cross
 * timestamp reads a primary clock (host or NIC) and a NIC clock as close together as
 * possible and reports how far apart the two readings may be.
 *
 * @code
 *   doca_clock_cap_nic_real_time_is_supported(devinfo);
 *   doca_clock_create(dev, &clock);
 *   doca_clock_get_timestamp(clock, DOCA_CLOCK_NIC_REAL_TIME, &ts);
 *   doca_clock_get_crosstimestamp(clock, DOCA_CLOCK_HOST_REAL_TIME, DOCA_CLOCK_NIC_REAL_TIME,
 *                                 &host_ts, &nic_ts, &margin);
 *   doca_clock_destroy(clock);
 * @endcode
 *
 * odma has no NIC: its NIC clocks are emulated per device from the host's clocks (the
 * real-time clock is the host's CLOCK_REALTIME, as a NIC perfectly synchronised by PTP;
 * the free-running clock and the DPA timer are CLOCK_MONOTONIC_RAW shifted by an offset that
 * is fixed per device and system profile, the same in every process). Which device has
 * which clock comes from the system profile (docs/profiles.md).
 */
#ifndef DOCA_CLOCK_H_
#define DOCA_CLOCK_H_

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_dev;
struct doca_devinfo;

/** A clock reader bound to a device. */
struct doca_clock;

/** The NIC's free-running clock (seconds and nanoseconds since an arbitrary origin). */
#define DOCA_CLOCK_NIC_FREE_RUNNING 0x1
/** The NIC's real-time clock (seconds and nanoseconds, wall-clock time). */
#define DOCA_CLOCK_NIC_REAL_TIME (0x1 << 1)
/** The timer of the NIC's DPA (seconds and nanoseconds). */
#define DOCA_CLOCK_NIC_DPA_TIMER (0x1 << 8)
/** The CPU's cycle counter (x86-64 time-stamp counter, Arm virtual counter), in ticks. */
#define DOCA_CLOCK_HOST_COUNTER_CYCLES (0x1 << 16)
/** The host's real-time clock (CLOCK_REALTIME). */
#define DOCA_CLOCK_HOST_REAL_TIME (0x1 << 17)
/** The host's monotonic clock (CLOCK_MONOTONIC). */
#define DOCA_CLOCK_HOST_MONOTONIC (0x1 << 18)
/** The host's raw monotonic clock (CLOCK_MONOTONIC_RAW). */
#define DOCA_CLOCK_HOST_MONOTONIC_RAW (0x1 << 19)

/** One reading: @c counter for DOCA_CLOCK_HOST_COUNTER_CYCLES, @c ts for every other clock. */
union doca_clock_timespec_t {
	struct timespec ts; /**< seconds and nanoseconds */
	uint64_t counter;   /**< counter ticks */
};

/**
 * @brief Whether a device has a NIC free-running clock.
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS; DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_clock_cap_nic_free_running_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Whether a device has a NIC real-time clock.
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS; DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_clock_cap_nic_real_time_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Whether a device has a DPA timer.
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS; DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_clock_cap_nic_dpa_timer_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Creates a clock reader on a device (held until the reader is destroyed).
 *
 * Any open device will do; the host clocks need no capability, and a NIC clock the device
 * lacks is refused when read.
 * @param [in] dev  an open device.
 * @param [out] clock  the reader.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, unknown device); DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_clock_create(const struct doca_dev *dev, struct doca_clock **clock);

/**
 * @brief Destroys a clock reader.
 * @param [in] clock  the reader.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_clock_destroy(struct doca_clock *clock);

/**
 * @brief Reads one clock.
 * @param [in] clock  the reader.
 * @param [in] clock_type  exactly one DOCA_CLOCK_* value.
 * @param [out] clock_ts  the reading (@c counter or @c ts, see union doca_clock_timespec_t).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, not exactly one DOCA_CLOCK_* value);
 *         DOCA_ERROR_NOT_SUPPORTED (a NIC clock the device lacks, or a cycle counter this CPU
 *         architecture does not expose); DOCA_ERROR_OPERATING_SYSTEM (the system clock read
 *         failed).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_clock_get_timestamp(const struct doca_clock *clock, uint64_t clock_type,
                                      union doca_clock_timespec_t *clock_ts);

/**
 * @brief Reads a primary clock and a NIC clock together.
 *
 * odma reads primary, NIC, primary (several times, keeping the tightest bracket), reports
 * the midpoint of the two primary readings and, in @p error_margin_nsecs, half their
 * distance: the NIC reading was taken within that margin of the reported primary reading.
 * The margin is in the primary clock's unit: nanoseconds, or ticks when the primary clock
 * is DOCA_CLOCK_HOST_COUNTER_CYCLES.
 * @param [in] clock  the reader.
 * @param [in] primary_clock_type  any one DOCA_CLOCK_* value.
 * @param [in] nic_clock_type  DOCA_CLOCK_NIC_FREE_RUNNING, _NIC_REAL_TIME or _NIC_DPA_TIMER.
 * @param [out] primary_clock_ts  the primary reading.
 * @param [out] nic_clock_ts  the NIC reading.
 * @param [out] error_margin_nsecs  the uncertainty (see above).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, not exactly one DOCA_CLOCK_* value,
 *         a second clock that is not a NIC clock); DOCA_ERROR_NOT_SUPPORTED (a NIC clock the
 *         device lacks, a cycle counter the architecture does not expose);
 *         DOCA_ERROR_OPERATING_SYSTEM (a system clock read failed).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_clock_get_crosstimestamp(const struct doca_clock *clock,
                                           uint64_t primary_clock_type, uint64_t nic_clock_type,
                                           union doca_clock_timespec_t *primary_clock_ts,
                                           union doca_clock_timespec_t *nic_clock_ts,
                                           uint64_t *error_margin_nsecs);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_CLOCK_H_ */
