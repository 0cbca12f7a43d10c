/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * DOCA Clock. Host clocks are the kernel's (clock_gettime) and the CPU's cycle counter.
 * NIC clocks are emulated per device: real time = CLOCK_REALTIME (a NIC perfectly
 * disciplined by PTP); free-running clock and DPA timer = CLOCK_MONOTONIC_RAW plus an offset
 * derived from the system profile and the device's PCI address, so every process of the
 * machine reads the same NIC clock for the same device and two devices differ.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock/clock.h"
#include "core/device/device.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(DOCA_CLOCK)

#define NS_PER_S 1000000000ull
#define FR_SPAN_NS (86400ull * NS_PER_S) /* the free-running origin lies up to a day back */
#define CROSS_TRIES 5

#define NIC_CLOCKS                                                                                 \
	(DOCA_CLOCK_NIC_FREE_RUNNING | DOCA_CLOCK_NIC_REAL_TIME | DOCA_CLOCK_NIC_DPA_TIMER)
#define ALL_CLOCKS                                                                                 \
	(NIC_CLOCKS | DOCA_CLOCK_HOST_COUNTER_CYCLES | DOCA_CLOCK_HOST_REAL_TIME |                 \
	 DOCA_CLOCK_HOST_MONOTONIC | DOCA_CLOCK_HOST_MONOTONIC_RAW)

static bool clock_type_known(uint64_t t)
{
	return t != 0 && (t & (t - 1)) == 0 && (t & ALL_CLOCKS) == t;
}

static bool cycles_supported(void)
{
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
	return true;
#else
	return false;
#endif
}

static uint64_t read_cycles(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v)::"memory");
	return v;
#else
	return 0;
#endif
}

static bool read_sys(clockid_t id, uint64_t *ns)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) != 0)
		return false;
	*ns = (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
	return true;
}

/* Whether the device has the NIC clock @t (a NIC_* value). */
static bool nic_has(const struct doca_devinfo *info, uint64_t t)
{
	switch (t) {
	case DOCA_CLOCK_NIC_FREE_RUNNING:
		return info->caps.clock_free_running;
	case DOCA_CLOCK_NIC_REAL_TIME:
		return info->caps.clock_real_time;
	default:
		return info->caps.clock_dpa_timer;
	}
}

/*
 * Reads @type of @clock into *@out (ns since the clock's origin, or ticks). Returns
 * DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (not one DOCA_CLOCK_* value), DOCA_ERROR_NOT_SUPPORTED
 * or DOCA_ERROR_OPERATING_SYSTEM, logging nothing.
 */
static doca_error_t odma_clock_read(const struct doca_clock *clock, uint64_t type, uint64_t *out)
{
	uint64_t ns;

	if (!clock_type_known(type))
		return DOCA_ERROR_INVALID_VALUE;
	if ((type & NIC_CLOCKS) && !nic_has(clock->info, type))
		return DOCA_ERROR_NOT_SUPPORTED;
	switch (type) {
	case DOCA_CLOCK_HOST_COUNTER_CYCLES:
		if (!cycles_supported())
			return DOCA_ERROR_NOT_SUPPORTED;
		*out = read_cycles();
		return DOCA_SUCCESS;
	case DOCA_CLOCK_HOST_REAL_TIME:
	case DOCA_CLOCK_NIC_REAL_TIME:
		return read_sys(CLOCK_REALTIME, out) ? DOCA_SUCCESS : DOCA_ERROR_OPERATING_SYSTEM;
	case DOCA_CLOCK_HOST_MONOTONIC:
		return read_sys(CLOCK_MONOTONIC, out) ? DOCA_SUCCESS : DOCA_ERROR_OPERATING_SYSTEM;
	case DOCA_CLOCK_HOST_MONOTONIC_RAW:
		return read_sys(CLOCK_MONOTONIC_RAW, out) ? DOCA_SUCCESS
		                                          : DOCA_ERROR_OPERATING_SYSTEM;
	default: /* NIC free-running clock and DPA timer: one counter of the device */
		if (!read_sys(CLOCK_MONOTONIC_RAW, &ns))
			return DOCA_ERROR_OPERATING_SYSTEM;
		*out = ns + (uint64_t)clock->fr_offset_ns;
		return DOCA_SUCCESS;
	}
}

static void to_union(uint64_t type, uint64_t v, union doca_clock_timespec_t *u)
{
	memset(u, 0, sizeof(*u));
	if (type == DOCA_CLOCK_HOST_COUNTER_CYCLES) {
		u->counter = v;
		return;
	}
	u->ts.tv_sec = (time_t)(v / NS_PER_S);
	u->ts.tv_nsec = (long)(v % NS_PER_S);
}

static const char *clock_name(uint64_t t)
{
	switch (t) {
	case DOCA_CLOCK_NIC_FREE_RUNNING:
		return "NIC free-running clock";
	case DOCA_CLOCK_NIC_REAL_TIME:
		return "NIC real-time clock";
	case DOCA_CLOCK_NIC_DPA_TIMER:
		return "DPA timer";
	default:
		return "host cycle counter";
	}
}

/* Logs why odma_clock_read refused @type. */
static doca_error_t clock_refused(const struct doca_clock *clock, uint64_t type, doca_error_t r,
                                  const char *fn)
{
	if (r == DOCA_ERROR_INVALID_VALUE)
		ODMA_ERR("%s: clock type 0x%llx is not exactly one DOCA_CLOCK_* value", fn,
		         (unsigned long long)type);
	else if (r == DOCA_ERROR_NOT_SUPPORTED)
		ODMA_ERR("%s: device %s has no %s (see doca_clock_cap_*; the system profile sets "
		         "the clock_* keys)",
		         fn, clock->info->pci_addr, clock_name(type));
	else
		ODMA_ERR("%s: clock_gettime failed", fn);
	return r;
}

ODMA_CAP_SUPPORTED(doca_clock_cap_nic_free_running_is_supported, clock_free_running)

ODMA_CAP_SUPPORTED(doca_clock_cap_nic_real_time_is_supported, clock_real_time)

ODMA_CAP_SUPPORTED(doca_clock_cap_nic_dpa_timer_is_supported, clock_dpa_timer)

doca_error_t doca_clock_create(const struct doca_dev *dev, struct doca_clock **clock)
{
	const struct odma_system *sys = odma_system_get();
	struct doca_devinfo *info;
	struct doca_clock *c;
	uint64_t h;

	ODMA_CHECK_ARG(dev != NULL && clock != NULL, "dev and clock must not be NULL");
	info = odma_dev_lookup_open(dev);
	ODMA_CHECK_ARG(info != NULL,
	               "dev %p is not an open device handle from doca_dev_open "
	               "(a closed one included)",
	               (const void *)dev);
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return DOCA_ERROR_NO_MEMORY;
	/* the same device of the same system gets the same origin in every process */
	h = odma_fnv1a64(info->pci_addr, strlen(info->pci_addr)) ^ (sys != NULL ? sys->id : 0);
	c->fr_offset_ns = (int64_t)(h % FR_SPAN_NS + NS_PER_S);
	c->info = info;
	c->dev = info->dev;
	odma_dev_hold(c->dev);
	*clock = c;
	return DOCA_SUCCESS;
}

doca_error_t doca_clock_destroy(struct doca_clock *clock)
{
	ODMA_CHECK_ARG(clock != NULL, "clock must not be NULL");
	odma_dev_release(clock->dev);
	free(clock);
	return DOCA_SUCCESS;
}

doca_error_t doca_clock_get_timestamp(const struct doca_clock *clock, uint64_t clock_type,
                                      union doca_clock_timespec_t *clock_ts)
{
	doca_error_t r;
	uint64_t v;

	ODMA_CHECK_ARG(clock != NULL && clock_ts != NULL, "clock and clock_ts must not be NULL");
	r = odma_clock_read(clock, clock_type, &v);
	if (r != DOCA_SUCCESS)
		return clock_refused(clock, clock_type, r, __func__);
	to_union(clock_type, v, clock_ts);
	return DOCA_SUCCESS;
}

doca_error_t doca_clock_get_crosstimestamp(const struct doca_clock *clock,
                                           uint64_t primary_clock_type, uint64_t nic_clock_type,
                                           union doca_clock_timespec_t *primary_clock_ts,
                                           union doca_clock_timespec_t *nic_clock_ts,
                                           uint64_t *error_margin_nsecs)
{
	uint64_t best = UINT64_MAX, best_p = 0, best_n = 0, p1, p2, n;
	doca_error_t r;

	ODMA_CHECK_ARG(
	        clock != NULL && primary_clock_ts != NULL && nic_clock_ts != NULL &&
	                error_margin_nsecs != NULL,
	        "clock, primary_clock_ts, nic_clock_ts and error_margin_nsecs must not be NULL");
	ODMA_CHECK_ARG(clock_type_known(nic_clock_type) && (nic_clock_type & NIC_CLOCKS),
	               "%s: the second clock (0x%llx) must be DOCA_CLOCK_NIC_FREE_RUNNING, "
	               "_NIC_REAL_TIME or _NIC_DPA_TIMER",
	               __func__, (unsigned long long)nic_clock_type);
	/* both readable at all (and the log names the one that is not) */
	if ((r = odma_clock_read(clock, primary_clock_type, &p1)) != DOCA_SUCCESS)
		return clock_refused(clock, primary_clock_type, r, __func__);
	if ((r = odma_clock_read(clock, nic_clock_type, &n)) != DOCA_SUCCESS)
		return clock_refused(clock, nic_clock_type, r, __func__);
	/* the tightest of a few primary/NIC/primary brackets */
	for (int i = 0; i < CROSS_TRIES || best == UINT64_MAX; i++) {
		if (odma_clock_read(clock, primary_clock_type, &p1) != DOCA_SUCCESS ||
		    odma_clock_read(clock, nic_clock_type, &n) != DOCA_SUCCESS ||
		    odma_clock_read(clock, primary_clock_type, &p2) != DOCA_SUCCESS)
			return clock_refused(clock, primary_clock_type, DOCA_ERROR_OPERATING_SYSTEM,
			                     __func__);
		if (p2 < p1) { /* the primary clock was stepped back: that bracket proves nothing */
			if (i > 100)
				return clock_refused(clock, primary_clock_type,
				                     DOCA_ERROR_OPERATING_SYSTEM, __func__);
			continue;
		}
		if (p2 - p1 < best) {
			best = p2 - p1;
			best_p = p1 + best / 2;
			best_n = n;
		}
	}
	to_union(primary_clock_type, best_p, primary_clock_ts);
	to_union(nic_clock_type, best_n, nic_clock_ts);
	*error_margin_nsecs = (best + 1) / 2;
	return DOCA_SUCCESS;
}
