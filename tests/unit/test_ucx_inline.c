/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Inline progress of the UCX transport (odma_tp_poll, transport.h): a thread waiting for its
 * ios that polls does the transport's work itself, so their completions run on it (what
 * spares the service thread a wake-up per request); odma_tp_poll_end hands the work back.
 * While a listener or an endpoint is open, polling does nothing: endpoint callbacks stay on
 * the service thread. This process is the exporter and the importer (loopback, UCX forced).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/transport/transport.h"
#include "core/transport/ucx_int.h"
#include "test_util.h"

static uint8_t region[65536], mine[4096];
static struct odma_tp_region *reg;
static struct odma_tp_remote rm;

struct iowait {
	atomic_bool done;
	doca_error_t st;
	pthread_t on; /* the thread its completion ran on */
};

static void io_done(struct odma_tp_io *io, doca_error_t st)
{
	struct iowait *w = io->arg;

	w->st = st;
	w->on = pthread_self();
	atomic_store(&w->done, true);
}

/* One 4 KiB read, polled for by this thread; whether its completion ran here. */
static bool read_polled(uint64_t off)
{
	struct iowait w = { .st = DOCA_ERROR_UNKNOWN };
	struct odma_tp_io io = { .remote = &rm,
		                 .local = mine,
		                 .remote_addr = (uint64_t)(uintptr_t)region + off,
		                 .len = sizeof(mine),
		                 .done = io_done,
		                 .arg = &w };
	uint64_t end = odma_ucx_now_ns() + 5000000000ull;

	assert_int_equal(odma_tp_io_start(&io), DOCA_SUCCESS);
	while (!atomic_load(&w.done) && odma_ucx_now_ns() < end)
		odma_tp_poll();
	assert_true(atomic_load(&w.done));
	assert_int_equal(w.st, DOCA_SUCCESS);
	assert_memory_equal(mine, region + off, sizeof(mine));
	return pthread_equal(w.on, pthread_self());
}

static int setup(void **state)
{
	struct odma_tp_reach r = { 0 };
	uint8_t issued[ODMA_TP_ISSUED_MAX];
	size_t issued_len = 0;

	(void)state;
	setenv("ODMA_TRANSPORT", "ucx", 1);
	for (size_t i = 0; i < sizeof(region); i++)
		region[i] = (uint8_t)(i * 29 + 3);
	reg = odma_tp_region_add((uint64_t)(uintptr_t)region, sizeof(region), ODMA_TP_READ);
	assert_non_null(reg);
	odma_tp_region_publish(reg, "issued", 6);
	assert_int_equal(odma_tp_reach_self(&r), DOCA_SUCCESS);
	assert_true(r.net_len > 0);
	r.addr = reg->addr;
	r.len = reg->len;
	r.perms = reg->perms;
	r.region_id = reg->id;
	r.generation = reg->hdr.generation;
	memcpy(r.key, reg->hdr.key, 16);
	assert_int_equal(odma_tp_attach(odma_tp_get(ODMA_TP_UCX), &r, &rm, issued, &issued_len),
	                 DOCA_SUCCESS);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	odma_tp_detach(&rm);
	odma_tp_region_revoke(reg);
	return 0;
}

/*
 * A polling thread takes its completions itself. (The parked service thread still does a
 * round every millisecond, so on a loaded machine it may take some: most, not all.)
 */
static void test_polled_here(void **state)
{
	unsigned int here = 0;

	(void)state;
	for (int i = 0; i < 200; i++)
		here += read_polled((uint64_t)(i % 16) * sizeof(mine));
	assert_true(here >= 100);
	assert_true(atomic_load(&odma_ux.inline_ns) != 0);
	odma_tp_poll_end(); /* this thread sleeps now: the service thread takes over */
	assert_true(atomic_load(&odma_ux.inline_ns) == 0);
}

/* With a listener open, polling does nothing: every completion runs on the service thread. */
static void test_not_with_endpoints(void **state)
{
	uint16_t port = (uint16_t)(30000 + getpid() % 20000);
	unsigned int here = 0;
	void *listener;

	(void)state;
	assert_int_equal(odma_tp_listen("127.0.0.1", port, NULL, NULL, &listener), DOCA_SUCCESS);
	for (int i = 0; i < 50; i++)
		here += read_polled((uint64_t)(i % 16) * sizeof(mine));
	assert_int_equal(here, 0);
	assert_true(atomic_load(&odma_ux.inline_ns) == 0);
	odma_tp_listen_close(listener);
	assert_true(read_polled(0) || true); /* polling works again (where it wins the race) */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_polled_here),
		cmocka_unit_test(test_not_with_endpoints),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
