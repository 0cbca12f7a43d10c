/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * ODMA_FAULTS Comch points across two processes (meson sets ODMA_FAULTS per run):
 *   test_comch_faults drop    ODMA_FAULTS=comch_drop_after=5: the connection is cut after five
 *                             messages; the server gets its disconnect event, the client stops
 *                             by itself, sends in flight fail, one log line says why.
 *   test_comch_faults delay   ODMA_FAULTS=comch_delay_us=20000: each message is delivered 20 ms
 *                             late, in order.
 */
#include <string.h>
#include <unistd.h>

#include "comch_util.h"
#include "test_util.h"

#define NAME cu_name

static bool has_disconnect(struct cu_ep *e)
{
	return e->disconnects > 0;
}

static uint32_t g_want;
static bool want_msgs(struct cu_ep *e)
{
	return e->nrx >= g_want;
}

static int client_drop(void *arg)
{
	struct cu_ep e;
	char m[16];

	(void)arg;
	cu_open(&e, false);
	cu_log_capture();
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&e, NAME, 0, 16));
	CU_CHECK(cu_progress_until(&e, cu_is_running, 5000));
	/* one at a time, each answered: the fifth message counted by either side cuts it */
	for (int i = 0; i < 10 && cu_is_running(&e); i++) {
		snprintf(m, sizeof(m), "m%d", i);
		if (cu_send(&e, m, (uint32_t)strlen(m)) != DOCA_SUCCESS)
			break;
		g_want = e.nrx + 1;
		(void)cu_progress_until(&e, want_msgs, 1000);
	}
	CU_CHECK(cu_progress_until(&e, cu_is_idle, 5000)); /* the client stopped by itself */
	CU_CHECK(e.passed_running);
	CU_CHECK(e.nrx <= 3);
	CU_CHECK(cu_close(&e));
	return 0;
}

static void test_drop_after(void **state)
{
	struct cu_ep s;
	pid_t child;

	(void)state;
	child = cu_fork(client_drop, NULL, 30);
	cu_open(&s, true);
	cu_log_capture();
	s.echo = true;
	assert_ok(cu_server_start(&s, NAME, 0, 16));
	assert_true(cu_progress_until(&s, has_disconnect, 10000));
	assert_true(s.nrx <= 3);
	assert_true(cu_log_has("comch_drop_after") || cu_log_has("without disconnecting"));
	assert_int_equal(cu_join(child, 10), 0);
	assert_true(cu_close(&s));
}

static int client_burst(void *arg)
{
	struct cu_ep e;
	char m[16];

	(void)arg;
	cu_open(&e, false);
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&e, NAME, 0, 16));
	CU_CHECK(cu_progress_until(&e, cu_is_running, 5000));
	for (int i = 0; i < 5; i++) {
		snprintf(m, sizeof(m), "burst %d", i);
		CU_CHECK_DOCA(DOCA_SUCCESS, cu_send(&e, m, (uint32_t)strlen(m)));
	}
	cu_progress_for(&e, 300);
	CU_CHECK(cu_close(&e));
	return 0;
}

static void test_delay(void **state)
{
	struct cu_ep s;
	uint64_t t_first, t_last;
	pid_t child;
	char m[16];

	(void)state;
	child = cu_fork(client_burst, NULL, 30);
	cu_open(&s, true);
	assert_ok(cu_server_start(&s, NAME, 0, 16));
	g_want = 1;
	assert_true(cu_progress_until(&s, want_msgs, 10000));
	t_first = cu_now_ms();
	g_want = 5;
	assert_true(cu_progress_until(&s, want_msgs, 10000));
	t_last = cu_now_ms();
	/* each held 20 ms after the one before it was delivered */
	assert_true(t_last - t_first >= 75);
	for (int i = 0; i < 5; i++) {
		snprintf(m, sizeof(m), "burst %d", i);
		assert_int_equal(s.rx_len[i], strlen(m));
		assert_memory_equal(s.rx[i], m, strlen(m));
	}
	assert_true(cu_progress_until(&s, has_disconnect, 10000));
	assert_int_equal(cu_join(child, 10), 0);
	assert_true(cu_close(&s));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest drop[] = { cmocka_unit_test_setup(test_drop_after, cu_next_name) };
	const struct CMUnitTest delay[] = { cmocka_unit_test_setup(test_delay, cu_next_name) };

	cu_private_rundir();
	if (argc == 2 && strcmp(argv[1], "drop") == 0)
		return cmocka_run_group_tests(drop, NULL, NULL);
	if (argc == 2 && strcmp(argv[1], "delay") == 0)
		return cmocka_run_group_tests(delay, NULL, NULL);
	fprintf(stderr, "usage: %s drop|delay (with ODMA_FAULTS set accordingly)\n", argv[0]);
	return 2;
}
