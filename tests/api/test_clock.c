/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * DOCA Clock, black box: capabilities per profile, argument rules, every clock type, the
 * emulated NIC clocks (real time = the host's, free-running = per-device, same across
 * processes), and cross timestamps with their error margin.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <doca_clock.h>
#include <doca_dev.h>

#include "test_util.h"

#define NS 1000000000ll

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * NS + ts->tv_nsec;
}

static int64_t sys_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts_ns(&ts);
}

static void test_caps(void **state)
{
	struct doca_devinfo **list;
	uint32_t n;

	(void)state;
	/* bf3 (the default profile): free-running, real time and DPA timer everywhere */
	assert_ok(doca_devinfo_create_list(&list, &n));
	assert_true(n > 0);
	for (uint32_t i = 0; i < n; i++) {
		assert_ok(doca_clock_cap_nic_free_running_is_supported(list[i]));
		assert_ok(doca_clock_cap_nic_real_time_is_supported(list[i]));
		assert_ok(doca_clock_cap_nic_dpa_timer_is_supported(list[i]));
	}
	assert_ok(doca_devinfo_destroy_list(list));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_clock_cap_nic_free_running_is_supported(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_clock_cap_nic_real_time_is_supported(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_clock_cap_nic_dpa_timer_is_supported(NULL));
}

static void test_rules(void **state)
{
	struct doca_dev *dev = tu_open_dev("b1:00.0");
	struct doca_clock *clk;
	union doca_clock_timespec_t a, b;
	uint64_t m;
	int dummy;

	(void)state;
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_clock_create(NULL, &clk));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_clock_create(dev, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_clock_create((struct doca_dev *)&dummy, &clk));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_clock_destroy(NULL));
	assert_ok(doca_clock_create(dev, &clk));
	assert_doca(DOCA_ERROR_IN_USE, doca_dev_close(dev)); /* the reader holds its device */
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_clock_get_timestamp(NULL, DOCA_CLOCK_HOST_REAL_TIME, &a));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_clock_get_timestamp(clk, DOCA_CLOCK_HOST_REAL_TIME, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_clock_get_timestamp(clk, 0, &a));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_clock_get_timestamp(clk, 1u << 3, &a));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_clock_get_timestamp(
	                    clk, DOCA_CLOCK_HOST_REAL_TIME | DOCA_CLOCK_NIC_REAL_TIME, &a));
	/* the second clock of a cross timestamp must be a NIC clock */
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_clock_get_crosstimestamp(clk, DOCA_CLOCK_NIC_REAL_TIME,
	                                          DOCA_CLOCK_HOST_REAL_TIME, &a, &b, &m));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_clock_get_crosstimestamp(clk, DOCA_CLOCK_HOST_REAL_TIME, 0, &a, &b, &m));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_clock_get_crosstimestamp(clk, DOCA_CLOCK_HOST_REAL_TIME,
	                                          DOCA_CLOCK_NIC_REAL_TIME, NULL, &b, &m));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_clock_get_crosstimestamp(clk, DOCA_CLOCK_HOST_REAL_TIME,
	                                          DOCA_CLOCK_NIC_REAL_TIME, &a, NULL, &m));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_clock_get_crosstimestamp(clk, DOCA_CLOCK_HOST_REAL_TIME,
	                                          DOCA_CLOCK_NIC_REAL_TIME, &a, &b, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_clock_get_crosstimestamp(clk, 3, DOCA_CLOCK_NIC_REAL_TIME, &a, &b, &m));
	assert_ok(doca_clock_destroy(clk));
	assert_ok(doca_dev_close(dev));
}

static void test_every_clock(void **state)
{
	static const uint64_t types[] = {
		DOCA_CLOCK_NIC_FREE_RUNNING,   DOCA_CLOCK_NIC_REAL_TIME,
		DOCA_CLOCK_NIC_DPA_TIMER,      DOCA_CLOCK_HOST_COUNTER_CYCLES,
		DOCA_CLOCK_HOST_REAL_TIME,     DOCA_CLOCK_HOST_MONOTONIC,
		DOCA_CLOCK_HOST_MONOTONIC_RAW,
	};
	struct doca_dev *dev = tu_open_dev("03:00.0");
	struct doca_clock *clk;
	union doca_clock_timespec_t a, b;

	(void)state;
	assert_ok(doca_clock_create(dev, &clk));
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		assert_ok(doca_clock_get_timestamp(clk, types[i], &a));
		usleep(1000);
		assert_ok(doca_clock_get_timestamp(clk, types[i], &b));
		if (types[i] == DOCA_CLOCK_HOST_COUNTER_CYCLES) {
			assert_true(b.counter > a.counter);
			continue;
		}
		assert_true(a.ts.tv_nsec >= 0 && a.ts.tv_nsec < NS);
		assert_true(ts_ns(&b.ts) - ts_ns(&a.ts) >= 900 * 1000); /* it advances */
	}
	/* host clocks are the kernel's */
	{
		int64_t before = sys_ns(CLOCK_MONOTONIC), v;

		assert_ok(doca_clock_get_timestamp(clk, DOCA_CLOCK_HOST_MONOTONIC, &a));
		v = ts_ns(&a.ts);
		assert_true(v >= before && v <= sys_ns(CLOCK_MONOTONIC));
		before = sys_ns(CLOCK_REALTIME);
		assert_ok(doca_clock_get_timestamp(clk, DOCA_CLOCK_HOST_REAL_TIME, &a));
		assert_true(ts_ns(&a.ts) >= before && ts_ns(&a.ts) <= sys_ns(CLOCK_REALTIME));
		/* the NIC real-time clock is synchronised to the host's */
		assert_ok(doca_clock_get_timestamp(clk, DOCA_CLOCK_NIC_REAL_TIME, &b));
		assert_true(llabs(ts_ns(&b.ts) - ts_ns(&a.ts)) < NS / 10);
		/* the free-running clock has its own origin: not the raw monotonic one */
		assert_ok(doca_clock_get_timestamp(clk, DOCA_CLOCK_NIC_FREE_RUNNING, &b));
		assert_true(llabs(ts_ns(&b.ts) - sys_ns(CLOCK_MONOTONIC_RAW)) >= NS / 2);
	}
	assert_ok(doca_clock_destroy(clk));
	assert_ok(doca_dev_close(dev));
}

/*
 * The same device's free-running clock reads the same in another process; another device differs.
 */
static void test_free_running_per_device(void **state)
{
	struct doca_dev *d0 = tu_open_dev("03:00.0"), *d1 = tu_open_dev("03:00.1");
	struct doca_clock *c0, *c1;
	union doca_clock_timespec_t a, b, raw;
	int64_t off0, off1, child_off;
	int pfd[2], status;
	pid_t pid;

	(void)state;
	assert_ok(doca_clock_create(d0, &c0));
	assert_ok(doca_clock_create(d1, &c1));
	assert_ok(doca_clock_get_crosstimestamp(c0, DOCA_CLOCK_HOST_MONOTONIC_RAW,
	                                        DOCA_CLOCK_NIC_FREE_RUNNING, &raw, &a,
	                                        (uint64_t[]){ 0 }));
	off0 = ts_ns(&a.ts) - ts_ns(&raw.ts);
	assert_ok(doca_clock_get_crosstimestamp(c1, DOCA_CLOCK_HOST_MONOTONIC_RAW,
	                                        DOCA_CLOCK_NIC_FREE_RUNNING, &raw, &b,
	                                        (uint64_t[]){ 0 }));
	off1 = ts_ns(&b.ts) - ts_ns(&raw.ts);
	assert_true(llabs(off0 - off1) > NS / 1000);
	/* the DPA timer ticks with the free-running counter of its device */
	assert_ok(doca_clock_get_crosstimestamp(c0, DOCA_CLOCK_NIC_FREE_RUNNING,
	                                        DOCA_CLOCK_NIC_DPA_TIMER, &a, &b,
	                                        (uint64_t[]){ 0 }));
	assert_true(llabs(ts_ns(&a.ts) - ts_ns(&b.ts)) < NS / 1000);
	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	if (pid == 0) {
		/* no cmocka in the child: plain calls, the exit code says what failed */
		struct doca_devinfo **list;
		struct doca_dev *d = NULL;
		struct doca_clock *c;
		uint32_t nd;
		uint8_t is;
		union doca_clock_timespec_t r, f;
		uint64_t m;
		int64_t off;

		if (doca_devinfo_create_list(&list, &nd) != DOCA_SUCCESS)
			_exit(3);
		for (uint32_t i = 0; i < nd && d == NULL; i++)
			if (doca_devinfo_is_equal_pci_addr(list[i], "03:00.0", &is) ==
			            DOCA_SUCCESS &&
			    is)
				(void)doca_dev_open(list[i], &d);
		if (d == NULL || doca_clock_create(d, &c) != DOCA_SUCCESS ||
		    doca_clock_get_crosstimestamp(c, DOCA_CLOCK_HOST_MONOTONIC_RAW,
		                                  DOCA_CLOCK_NIC_FREE_RUNNING, &r, &f,
		                                  &m) != DOCA_SUCCESS)
			_exit(1);
		off = ts_ns(&f.ts) - ts_ns(&r.ts);
		_exit(write(pfd[1], &off, sizeof(off)) == sizeof(off) ? 0 : 2);
	}
	assert_true(pid > 0);
	close(pfd[1]); /* a child that fails before it writes ends the read */
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(read(pfd[0], &child_off, sizeof(child_off)), sizeof(child_off));
	assert_true(llabs(child_off - off0) < NS / 100);
	close(pfd[0]);
	assert_ok(doca_clock_destroy(c0));
	assert_ok(doca_clock_destroy(c1));
	assert_ok(doca_dev_close(d0));
	assert_ok(doca_dev_close(d1));
}

static void test_cross_timestamp(void **state)
{
	static const uint64_t prim[] = {
		DOCA_CLOCK_HOST_REAL_TIME,     DOCA_CLOCK_HOST_MONOTONIC,
		DOCA_CLOCK_HOST_MONOTONIC_RAW, DOCA_CLOCK_HOST_COUNTER_CYCLES,
		DOCA_CLOCK_NIC_FREE_RUNNING,   DOCA_CLOCK_NIC_REAL_TIME,
		DOCA_CLOCK_NIC_DPA_TIMER,
	};
	static const uint64_t nic[] = { DOCA_CLOCK_NIC_FREE_RUNNING, DOCA_CLOCK_NIC_REAL_TIME,
		                        DOCA_CLOCK_NIC_DPA_TIMER };
	struct doca_dev *dev = tu_open_dev("b1:00.0");
	struct doca_clock *clk;
	union doca_clock_timespec_t p, n;
	uint64_t margin;

	(void)state;
	assert_ok(doca_clock_create(dev, &clk));
	for (size_t i = 0; i < sizeof(prim) / sizeof(prim[0]); i++)
		for (size_t j = 0; j < 3; j++) {
			assert_ok(doca_clock_get_crosstimestamp(clk, prim[i], nic[j], &p, &n,
			                                        &margin));
			/* a few clock reads apart at most (generous for a loaded CI machine) */
			if (prim[i] != DOCA_CLOCK_HOST_COUNTER_CYCLES)
				assert_true(margin < 50 * 1000 * 1000ull);
		}
	/* real time against the NIC real-time clock: equal within the margin */
	assert_ok(doca_clock_get_crosstimestamp(clk, DOCA_CLOCK_HOST_REAL_TIME,
	                                        DOCA_CLOCK_NIC_REAL_TIME, &p, &n, &margin));
	assert_true(llabs(ts_ns(&p.ts) - ts_ns(&n.ts)) <= (int64_t)margin + 1);
	assert_ok(doca_clock_destroy(clk));
	assert_ok(doca_dev_close(dev));
}

/*
 * Run with ODMA_SYSTEM=tests/data/profiles/clocks.profile (ODMA_TEST_CLOCK_PROFILE=1): a
 * device without NIC clocks and one with only the real-time clock refuse the others; host
 * clocks work on both.
 */
static void test_profile_without_clocks(void **state)
{
	struct doca_devinfo **list;
	struct doca_dev *dev;
	struct doca_clock *clk;
	union doca_clock_timespec_t a, b;
	uint64_t m;
	uint32_t n;

	(void)state;
	assert_ok(doca_devinfo_create_list(&list, &n));
	assert_int_equal(n, 2);
	assert_doca(DOCA_ERROR_NOT_SUPPORTED,
	            doca_clock_cap_nic_free_running_is_supported(list[0]));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED, doca_clock_cap_nic_real_time_is_supported(list[0]));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED, doca_clock_cap_nic_dpa_timer_is_supported(list[0]));
	assert_ok(doca_clock_cap_nic_real_time_is_supported(list[1]));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED,
	            doca_clock_cap_nic_free_running_is_supported(list[1]));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED, doca_clock_cap_nic_dpa_timer_is_supported(list[1]));
	assert_ok(doca_dev_open(list[0], &dev));
	assert_ok(doca_clock_create(dev, &clk)); /* any device: host clocks need nothing */
	assert_doca(DOCA_ERROR_NOT_SUPPORTED,
	            doca_clock_get_timestamp(clk, DOCA_CLOCK_NIC_REAL_TIME, &a));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED,
	            doca_clock_get_timestamp(clk, DOCA_CLOCK_NIC_FREE_RUNNING, &a));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED,
	            doca_clock_get_timestamp(clk, DOCA_CLOCK_NIC_DPA_TIMER, &a));
	assert_ok(doca_clock_get_timestamp(clk, DOCA_CLOCK_HOST_MONOTONIC, &a));
	assert_ok(doca_clock_get_timestamp(clk, DOCA_CLOCK_HOST_COUNTER_CYCLES, &a));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED,
	            doca_clock_get_crosstimestamp(clk, DOCA_CLOCK_HOST_REAL_TIME,
	                                          DOCA_CLOCK_NIC_REAL_TIME, &a, &b, &m));
	assert_ok(doca_clock_destroy(clk));
	assert_ok(doca_dev_close(dev));
	assert_ok(doca_dev_open(list[1], &dev));
	assert_ok(doca_clock_create(dev, &clk));
	assert_ok(doca_clock_get_crosstimestamp(clk, DOCA_CLOCK_HOST_REAL_TIME,
	                                        DOCA_CLOCK_NIC_REAL_TIME, &a, &b, &m));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED,
	            doca_clock_get_crosstimestamp(clk, DOCA_CLOCK_NIC_REAL_TIME,
	                                          DOCA_CLOCK_NIC_FREE_RUNNING, &a, &b, &m));
	assert_ok(doca_clock_destroy(clk));
	assert_ok(doca_dev_close(dev));
	assert_ok(doca_devinfo_destroy_list(list));
}

int main(void)
{
	const struct CMUnitTest profile_tests[] = {
		cmocka_unit_test(test_profile_without_clocks),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_every_clock),
		cmocka_unit_test(test_free_running_per_device),
		cmocka_unit_test(test_cross_timestamp),
	};
	const char *mode = getenv("ODMA_TEST_CLOCK_PROFILE");

	if (mode != NULL && strcmp(mode, "1") == 0)
		return cmocka_run_group_tests(profile_tests, NULL, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
