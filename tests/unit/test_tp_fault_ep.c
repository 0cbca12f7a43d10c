/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Endpoints through the fault-injecting test row (tp_fault.c as a network row, put first in
 * the table around the UCX row): a listener and a client in this process over loopback, made
 * with odma_tp_listen / odma_tp_connect as DOCA RDMA and Comch make theirs. Passed messages
 * arrive at once; delayed ones arrive later, every one, in order; dropped sends never arrive;
 * a killed link closes each endpoint once with DOCA_ERROR_IO_FAILED and fails later sends; a
 * skew holds only what the dialer receives; and no callback runs after an endpoint is closed.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"
#include "ep_side.h"
#include "tp_fault.h"

#define NMSG 20

static struct side srv = { .lock = PTHREAD_MUTEX_INITIALIZER },
                   cli = { .lock = PTHREAD_MUTEX_INITIALIZER };
static const struct odma_tp_ops *row;

static const struct odma_tp_ep_cbs srv_cbs = SIDE_CBS(srv), cli_cbs = SIDE_CBS(cli);

static void on_accept(struct odma_tp_ep *ep, void *arg)
{
	(void)arg;
	odma_tp_ep_set_cbs(ep, &srv_cbs);
	pthread_mutex_lock(&srv.lock);
	srv.ep = ep;
	pthread_mutex_unlock(&srv.lock);
}

struct sends {
	pthread_mutex_t lock;
	unsigned int ok, failed;
} sends = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void send_done(void *arg, doca_error_t st)
{
	(void)arg;
	pthread_mutex_lock(&sends.lock);
	if (st == DOCA_SUCCESS)
		sends.ok++;
	else
		sends.failed++;
	pthread_mutex_unlock(&sends.lock);
}

static void *listener;

/* A connected pair: cli.ep dialed the listener, srv.ep accepted it; the counters cleared. */
static void pair_open(void)
{
	uint16_t port = 0;

	pthread_mutex_lock(&srv.lock);
	srv.ep = NULL;
	srv.msgs = srv.closes = 0;
	pthread_mutex_unlock(&srv.lock);
	pthread_mutex_lock(&cli.lock);
	cli.msgs = cli.closes = 0;
	pthread_mutex_unlock(&cli.lock);
	assert_ok(odma_tp_listen("127.0.0.1", &port, on_accept, NULL, NULL, &listener));
	assert_ok(odma_tp_connect("127.0.0.1", port, &cli_cbs, &cli.ep));
	assert_ok(odma_tp_ep_send(cli.ep, "hi", 2, 0, NULL, NULL)); /* the server's accept */
	assert_true(side_wait(&srv, &srv.msgs, 1));
	assert_non_null(srv.ep);
}

static void pair_close(void)
{
	odma_tp_ep_close(cli.ep);
	odma_tp_ep_close(srv.ep);
	odma_tp_listen_close(listener);
}

/* Passed on: both ways at once, counted as passed. */
static void passed_messages_arrive(void **state)
{
	unsigned int held = 0, dropped = 0, failed = 0;

	(void)state;
	tp_fault_set(TPF_PASS, 0);
	pair_open();
	assert_ok(odma_tp_ep_send(srv.ep, "back", 4, 7, NULL, NULL));
	assert_true(side_wait(&cli, &cli.msgs, 1));
	assert_int_equal(cli.imms[0], 7);
	assert_true(tp_fault_msgs(&held, &dropped, &failed) >= 2);
	pair_close();
}

/* Delayed: every message arrives, in order, each one held first by the row's thread. */
static void delayed_messages_arrive_in_order(void **state)
{
	unsigned int held0 = 0, held = 0, dropped = 0, failed = 0;

	(void)state;
	tp_fault_set(TPF_PASS, 0);
	pair_open();
	(void)tp_fault_msgs(&held0, &dropped, &failed);
	tp_fault_set(TPF_DELAY, 30);
	for (uint32_t i = 0; i < NMSG; i++)
		assert_ok(odma_tp_ep_send(cli.ep, "m", 1, 100 + i, NULL, NULL));
	assert_true(side_wait(&srv, &srv.msgs, 1 + NMSG));
	for (uint32_t i = 0; i < NMSG; i++)
		assert_int_equal(srv.imms[1 + i], 100 + i);
	(void)tp_fault_msgs(&held, &dropped, &failed);
	assert_int_equal(held - held0, NMSG);
	/* back to passing: what arrives now still comes after what was held */
	tp_fault_set(TPF_PASS, 0);
	assert_ok(odma_tp_ep_send(cli.ep, "m", 1, 999, NULL, NULL));
	assert_true(side_wait(&srv, &srv.msgs, 2 + NMSG));
	assert_int_equal(srv.imms[1 + NMSG], 999);
	pair_close();
}

/* Dropped: the sends leave (done: SUCCESS) and never arrive. */
static void dropped_sends_never_arrive(void **state)
{
	unsigned int held = 0, dropped = 0, failed = 0;

	(void)state;
	tp_fault_set(TPF_PASS, 0);
	pair_open();
	tp_fault_set(TPF_DROP, 0);
	pthread_mutex_lock(&sends.lock);
	sends.ok = sends.failed = 0;
	pthread_mutex_unlock(&sends.lock);
	for (uint32_t i = 0; i < 5; i++)
		assert_ok(odma_tp_ep_send(cli.ep, "x", 1, i, send_done, NULL));
	pthread_mutex_lock(&sends.lock);
	assert_int_equal(sends.ok, 5); /* reported at once: they left */
	pthread_mutex_unlock(&sends.lock);
	tp_fault_set(TPF_PASS, 0);
	assert_ok(odma_tp_ep_send(cli.ep, "y", 1, 55, NULL, NULL)); /* a marker behind them */
	assert_true(side_wait(&srv, &srv.msgs, 2));
	assert_int_equal(side_count(&srv, &srv.msgs), 2); /* the greeting and the marker only */
	assert_int_equal(srv.imms[1], 55);
	(void)tp_fault_msgs(&held, &dropped, &failed);
	pair_close();
}

/* Killed: each endpoint closes once with IO_FAILED; later sends fail; nothing arrives after. */
static void killed_link_closes_each_endpoint_once(void **state)
{
	unsigned int held = 0, dropped = 0, failed0 = 0, failed = 0;

	(void)state;
	tp_fault_set(TPF_PASS, 0);
	pair_open();
	(void)tp_fault_msgs(&held, &dropped, &failed0);
	tp_fault_set(TPF_KILL, 0);
	assert_int_equal(side_count(&cli, &cli.closes), 1);
	assert_int_equal(side_count(&srv, &srv.closes), 1);
	assert_int_equal(cli.why, DOCA_ERROR_IO_FAILED);
	pthread_mutex_lock(&sends.lock);
	sends.ok = sends.failed = 0;
	pthread_mutex_unlock(&sends.lock);
	assert_ok(odma_tp_ep_send(cli.ep, "z", 1, 1, send_done, NULL));
	pthread_mutex_lock(&sends.lock);
	assert_int_equal(sends.failed, 1);
	pthread_mutex_unlock(&sends.lock);
	(void)tp_fault_msgs(&held, &dropped, &failed);
	assert_int_equal(failed - failed0, 1);
	tp_fault_set(TPF_PASS, 0); /* the link is back, the endpoints stay closed */
	(void)odma_tp_ep_send(srv.ep, "w", 1, 2, NULL, NULL);
	usleep(100000);
	assert_int_equal(side_count(&cli, &cli.msgs), 0);
	pair_close();
	usleep(100000);
	assert_int_equal(side_count(&cli, &cli.closes), 1); /* once, also after the real close */
	assert_int_equal(side_count(&srv, &srv.closes), 1);
}

/*
 * Skewed: what arrives on the dialed endpoint waits until the mode changes, what arrives on
 * the accepted one passes at once; released, the held messages arrive in order, and the close
 * behind them.
 */
static void skew_holds_the_dialer_only(void **state)
{
	(void)state;
	tp_fault_set(TPF_PASS, 0);
	pair_open();
	tp_fault_set(TPF_SKEW, 0);
	for (uint32_t i = 0; i < 3; i++) /* to the dialer: held */
		assert_ok(odma_tp_ep_send(srv.ep, "s", 1, 200 + i, NULL, NULL));
	assert_ok(odma_tp_ep_send(cli.ep, "c", 1, 300, NULL, NULL)); /* to the listener's side */
	assert_true(side_wait(&srv, &srv.msgs, 2));
	assert_int_equal(srv.imms[1], 300);
	odma_tp_ep_close(srv.ep);
	usleep(100000);
	assert_int_equal(side_count(&cli, &cli.msgs), 0);
	assert_int_equal(side_count(&cli, &cli.closes), 0);
	tp_fault_set(TPF_PASS, 0);
	assert_true(side_wait(&cli, &cli.msgs, 3));
	for (uint32_t i = 0; i < 3; i++)
		assert_int_equal(cli.imms[i], 200 + i);
	assert_true(side_wait(&cli, &cli.closes, 1));
	odma_tp_ep_close(cli.ep);
	odma_tp_listen_close(listener);
}

static int setup(void **state)
{
	const char *why = NULL;

	(void)state;
	setenv("ODMA_TRANSPORT", "ucx", 1);
	if (odma_tp_net_absent() != NULL)
		return 0; /* skipped below */
	row = tp_fault_net_row(odma_tp_find("ucx"));
	(void)why;
	odma_tp_row_insert(row);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (row != NULL)
		odma_tp_row_remove(row);
	tp_fault_stop();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(passed_messages_arrive),
		cmocka_unit_test(delayed_messages_arrive_in_order),
		cmocka_unit_test(dropped_sends_never_arrive),
		cmocka_unit_test(killed_link_closes_each_endpoint_once),
		cmocka_unit_test(skew_holds_the_dialer_only),
	};

	if (odma_tp_net_absent() != NULL) {
		printf("skip: %s\n", odma_tp_net_absent());
		return 77;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
