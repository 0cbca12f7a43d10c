/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The Comch rows of docs/preconditions.md that no Comch test names: a consumer is created on
 * an established connection (K3) over a started mmap of this process' memory (K4, first
 * half). A server (DPU side) and a client (host side) in one process, with the Comch tests'
 * helpers (tests/comch/comch_util.c) and a private runtime directory.
 */
#include <string.h>

#include "../comch/comch_util.h"
#include "test_util.h"

static bool client_running(struct cu_ep *c)
{
	return c->passed_running;
}

/* Progresses both sides until @done(@c) or 5 s. */
static bool progress_both(struct cu_ep *s, struct cu_ep *c, bool (*done)(struct cu_ep *))
{
	for (int i = 0; i < 5000 && !done(c); i++) {
		doca_pe_progress(s->pe);
		doca_pe_progress(c->pe);
		usleep(1000);
	}
	return done(c);
}

static void consumer_preconditions(void **state)
{
	static uint8_t mem[4096];
	struct cu_ep s, c;
	struct doca_comch_connection *conn;
	struct doca_comch_consumer *cons = NULL;
	struct doca_mmap *unstarted, *otherdev;
	struct cu_mem m;

	(void)state;
	cu_open(&s, true);
	cu_open(&c, false);
	cu_log_capture();
	assert_ok(cu_server_start(&s, cu_name, 0, 8));
	assert_int_equal(cu_client_start(&c, cu_name, 0, 8), DOCA_ERROR_IN_PROGRESS);
	assert_true(progress_both(&s, &c, client_running));
	assert_ok(doca_comch_client_get_connection(c.cli, &conn));
	cu_mem_init(&m, c.dev, 4096, 2);
	/* K4: the consumer's mmap is started and local */
	assert_ok(doca_mmap_create(&unstarted));
	assert_ok(doca_mmap_add_dev(unstarted, c.dev));
	assert_ok(doca_mmap_set_memrange(unstarted, mem, sizeof(mem)));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_comch_consumer_create(conn, unstarted, &cons));
	assert_true(cu_log_has("must be a started mmap"));
	assert_null(cons);
	/* K4, second half: the Comch context's device was added to it (here only the server's) */
	assert_ok(doca_mmap_create(&otherdev));
	assert_ok(doca_mmap_add_dev(otherdev, s.dev));
	assert_ok(doca_mmap_set_memrange(otherdev, mem, sizeof(mem)));
	assert_ok(doca_mmap_start(otherdev));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_comch_consumer_create(conn, otherdev, &cons));
	assert_true(cu_log_has("was never given device"));
	assert_null(cons);
	/* K3: on an established connection: not once the client is stopping */
	assert_doca(DOCA_ERROR_IN_PROGRESS, doca_ctx_stop(c.ctx));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_comch_consumer_create(conn, m.mmap, &cons));
	assert_true(cu_log_has("is not established"));
	assert_null(cons);
	assert_true(progress_both(&s, &c, cu_is_idle));
	assert_ok(doca_mmap_destroy(unstarted));
	assert_ok(doca_mmap_destroy(otherdev));
	cu_mem_fini(&m);
	assert_true(cu_close(&c));
	assert_true(cu_close(&s));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(consumer_preconditions, cu_next_name),
	};

	cu_private_rundir();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
