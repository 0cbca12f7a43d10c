/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * A producer's send looks up the peer's consumer and holds it (users++) under the connection's
 * lock. The peer's CONS_GONE, read by the endpoint's progress on another thread, may land just
 * after that lock is let go. This test makes it land there on demand: it interposes
 * pthread_mutex_unlock (libdoca_comch's calls resolve to this executable's definition) and runs
 * the server's progress inside the unlock of the connection's lock that the send makes.
 *
 * The send must then go on with the consumer it holds and let go of it after; the record of the
 * consumer, whose last user the send is, is freed then (its ring unmapped). A lookup that
 * re-read the record's state after the lock returned "not found" with the hold still taken:
 * the record and its ring mapping stayed for the life of the process.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "comch/comch.h"
#include "comch_util.h"

static int (*real_unlock)(pthread_mutex_t *m);
static pthread_mutex_t *hook_mutex; /* armed: the unlock of this mutex runs the hook once */
static struct doca_pe *hook_pe;     /* the server's PE, progressed inside the hook */
static unsigned int hook_runs;

int pthread_mutex_unlock(pthread_mutex_t *m)
{
	int r;

	if (real_unlock == NULL)
		real_unlock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_unlock");
	r = real_unlock(m);
	if (hook_mutex != NULL && m == hook_mutex) {
		hook_mutex = NULL;
		hook_runs++;
		/* the peer's CONS_GONE waits in the server's socket: read now */
		for (int i = 0; i < 100; i++)
			(void)doca_pe_progress(hook_pe);
	}
	return r;
}

/* Mappings of a Comch ring in this process (/proc/self/maps). */
static int ring_mappings(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL)
		n += strstr(line, "odma-comch-ring") != NULL;
	fclose(f);
	return n;
}

static void post_cb(struct doca_comch_consumer_task_post_recv *t, union doca_data a,
                    union doca_data b)
{
	(void)t;
	(void)a;
	(void)b;
}

static void send_cb(struct doca_comch_producer_task_send *t, union doca_data a, union doca_data b)
{
	(void)a;
	(void)b;
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

static enum doca_ctx_states state_of(struct doca_ctx *ctx)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

	(void)doca_ctx_get_state(ctx, &st);
	return st;
}

/* Connects @s and @c (one process) and starts a consumer of the client's; its id. */
static uint32_t setup(struct cu_ep *s, struct cu_ep *c, struct cu_mem *m,
                      struct doca_comch_consumer **cons)
{
	struct doca_comch_connection *cconn = NULL;
	uint32_t id = 0;
	uint64_t end;

	cu_open(s, true);
	cu_open(c, false);
	assert_int_equal(cu_server_start(s, cu_name, 0, 8), DOCA_SUCCESS);
	assert_int_equal(cu_client_start(c, cu_name, 0, 8), DOCA_ERROR_IN_PROGRESS);
	for (end = cu_now_ms() + 5000;
	     (s->conn == NULL || !c->passed_running) && cu_now_ms() < end;) {
		doca_pe_progress(s->pe);
		doca_pe_progress(c->pe);
	}
	assert_non_null(s->conn);
	assert_int_equal(doca_comch_client_get_connection(c->cli, &cconn), DOCA_SUCCESS);
	cu_mem_init(m, c->dev, 4096, 2);
	assert_int_equal(doca_comch_consumer_create(cconn, m->mmap, cons), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_task_post_recv_set_conf(*cons, post_cb, post_cb, 4),
	                 DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(c->pe, doca_comch_consumer_as_ctx(*cons)),
	                 DOCA_SUCCESS);
	(void)doca_ctx_start(doca_comch_consumer_as_ctx(*cons));
	for (end = cu_now_ms() + 5000;
	     state_of(doca_comch_consumer_as_ctx(*cons)) != DOCA_CTX_STATE_RUNNING &&
	     cu_now_ms() < end;) {
		doca_pe_progress(s->pe);
		doca_pe_progress(c->pe);
	}
	assert_int_equal(state_of(doca_comch_consumer_as_ctx(*cons)), DOCA_CTX_STATE_RUNNING);
	assert_int_equal(doca_comch_consumer_get_id(*cons, &id), DOCA_SUCCESS);
	return id;
}

static void test_gone_after_lookup(void **state)
{
	struct doca_comch_consumer *cons = NULL;
	struct doca_comch_producer *prod = NULL;
	struct doca_comch_producer_task_send *t = NULL;
	uint8_t imm = 0x5a;
	struct cu_ep s, c;
	struct cu_mem m;
	struct doca_pe *ppe = NULL;
	uint32_t id;

	(void)state;
	id = setup(&s, &c, &m, &cons);
	/* the server's producer, on a PE of its own */
	assert_int_equal(doca_pe_create(&ppe), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_create(s.conn, &prod), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_task_send_set_conf(prod, send_cb, send_cb, 4),
	                 DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(ppe, doca_comch_producer_as_ctx(prod)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_producer_as_ctx(prod)), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_task_send_alloc_init(prod, NULL, &imm, 1, id, &t),
	                 DOCA_SUCCESS);
	/* the client's consumer goes: its CONS_GONE waits, unread, in the server's socket */
	assert_int_equal(doca_ctx_stop(doca_comch_consumer_as_ctx(cons)), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_destroy(cons), DOCA_SUCCESS);
	assert_int_equal(ring_mappings(), 1); /* the server's mapping of the client's ring */
	/* the send's lookup holds the consumer; the GONE is read as the lock is let go */
	hook_pe = s.pe;
	hook_mutex = &((struct doca_comch_connection *)s.conn)->lock;
	assert_int_equal(doca_task_submit(doca_comch_producer_task_send_as_task(t)),
	                 DOCA_ERROR_NOT_FOUND);
	assert_null(hook_mutex);
	assert_int_equal(hook_runs, 1);
	assert_int_equal(s.gone_cons, 1);
	/* the send was the last user: the record went with it, and its ring mapping */
	assert_int_equal(ring_mappings(), 0);
	doca_task_free(doca_comch_producer_task_send_as_task(t));
	assert_int_equal(doca_ctx_stop(doca_comch_producer_as_ctx(prod)), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_destroy(prod), DOCA_SUCCESS);
	assert_int_equal(doca_pe_destroy(ppe), DOCA_SUCCESS);
	cu_mem_fini(&m);
	assert_true(cu_close(&c));
	assert_true(cu_close(&s));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_gone_after_lookup, cu_next_name),
	};

	cu_private_rundir();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
