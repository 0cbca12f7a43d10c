/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * doca_task_free on a task in flight (issue #18, item 3): the free is deferred until the
 * task's completion or flush is reported, its callback never runs, one WARNING names the
 * task, and the context still reaches IDLE after a stop. Run once per engine. (Comch tasks:
 * tests/comch/test_comch_event.c.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_log.h>
#include <doca_mmap_advise.h>
#include <doca_sync_event.h>

#include "fixture.h"
#include "test_util.h"

#define LOOPS 2000000ul

static FILE *tf_log;

static void tf_log_capture(void)
{
	struct doca_log_backend *be;

	if (tf_log != NULL)
		return;
	tf_log = tmpfile();
	assert_non_null(tf_log);
	assert_ok(doca_log_backend_create_with_file_sdk(tf_log, &be));
	assert_ok(doca_log_backend_set_sdk_level(be, DOCA_LOG_LEVEL_WARNING));
}

/* How many captured lines contain @needle (and, if not NULL, @also). */
static unsigned int tf_log_count(const char *needle, const char *also)
{
	char line[4096];
	unsigned int n = 0;

	fflush(tf_log);
	rewind(tf_log);
	while (fgets(line, sizeof(line), tf_log) != NULL)
		n += strstr(line, needle) != NULL && (also == NULL || strstr(line, also) != NULL);
	fseek(tf_log, 0, SEEK_END);
	return n;
}

static unsigned int tf_warnings_for(const void *task)
{
	char id[64];

	snprintf(id, sizeof(id), "task %p is in flight", task);
	return tf_log_count(id, "callback will not run");
}

static void progress_idle(struct doca_pe *pe, struct doca_ctx *ctx)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_RUNNING;

	for (unsigned long i = 0; i < LOOPS && st != DOCA_CTX_STATE_IDLE; i++) {
		(void)doca_pe_progress(pe);
		assert_ok(doca_ctx_get_state(ctx, &st));
	}
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
}

/* DMA: two of four in-flight copies freed; the other two get their callbacks. */
static void dma_free_in_flight(void **state)
{
	struct doca_task *t[4];
	struct doca_buf *s[4], *d[4];
	size_t inflight;
	struct fx fx;

	(void)state;
	tf_log_capture();
	fx_init(&fx, 1 << 20, 8, true);
	fx.free_in_cb = true;
	for (int i = 0; i < 4; i++) {
		s[i] = fx_src_buf(&fx, (size_t)i << 18, 1 << 18);
		d[i] = fx_dst_buf(&fx, (size_t)i << 18, 1 << 18);
		t[i] = fx_task(&fx, s[i], d[i], (uint64_t)i);
		assert_ok(doca_task_submit(t[i]));
	}
	/* callbacks run only inside doca_pe_progress: all four are in flight on both engines */
	doca_task_free(t[1]);
	doca_task_free(t[3]);
	/* one WARNING per context and start: it names the first task; the next is DEBUG */
	assert_int_equal(tf_warnings_for(t[1]), 1);
	assert_int_equal(tf_warnings_for(t[3]), 0);
	doca_task_free(t[3]); /* a second free is refused (logged as an error) */
	assert_true(fx_progress_until(&fx, 2, LOOPS));
	assert_ok(doca_ctx_get_num_inflight_tasks(fx.ctx, &inflight));
	for (unsigned long i = 0; i < LOOPS && inflight != 0; i++) {
		(void)doca_pe_progress(fx.pe);
		assert_ok(doca_ctx_get_num_inflight_tasks(fx.ctx, &inflight));
	}
	assert_int_equal(inflight, 0);
	assert_int_equal(fx.ok, 2);
	assert_int_equal(fx.err, 0);
	/* the freed copies still moved their bytes (they were accepted) */
	assert_memory_equal(fx.dst, fx.src, 1 << 20);
	assert_int_equal(doca_ctx_stop(fx.ctx), DOCA_SUCCESS); /* nothing outstanding: IDLE */
	for (int i = 0; i < 4; i++) {
		assert_ok(doca_buf_dec_refcount(s[i], NULL));
		assert_ok(doca_buf_dec_refcount(d[i], NULL));
	}
	assert_int_equal(fx.ok + fx.err, 2);
	fx_fini(&fx);
}

/* DMA: freed before the stop flushes them; the context reaches IDLE, no callback. */
static void dma_free_then_stop(void **state)
{
	struct doca_task *t[3], *all[4];
	struct doca_buf *s, *d[3];
	struct fx fx;

	(void)state;
	tf_log_capture();
	fx_init(&fx, 1 << 16, 4, true);
	s = fx_src_buf(&fx, 0, 4096);
	for (int i = 0; i < 3; i++) {
		d[i] = fx_dst_buf(&fx, (size_t)i * 4096, 4096);
		t[i] = fx_task(&fx, s, d[i], (uint64_t)i);
		/* without FLUSH the core holds them: in flight, not yet at the engine */
		assert_ok(doca_task_submit_ex(t[i], i == 0 ? DOCA_TASK_SUBMIT_FLAG_FLUSH : 0));
		doca_task_free(t[i]);
	}
	assert_int_equal(doca_ctx_stop(fx.ctx), DOCA_ERROR_IN_PROGRESS);
	progress_idle(fx.pe, fx.ctx);
	assert_int_equal(fx.ok + fx.err, 0);
	/* restart: the pool has all its tasks back */
	assert_ok(doca_ctx_start(fx.ctx));
	for (int i = 0; i < 4; i++)
		all[i] = fx_task(&fx, s, d[0], 9);
	for (int i = 0; i < 4; i++)
		doca_task_free(all[i]);
	assert_ok(doca_buf_dec_refcount(s, NULL));
	for (int i = 0; i < 3; i++)
		assert_ok(doca_buf_dec_refcount(d[i], NULL));
	fx_fini(&fx);
}

struct se_counts {
	unsigned int ok, err;
};

static void se_wait_ok(struct doca_sync_event_task_wait_eq *t, union doca_data tud,
                       union doca_data cud)
{
	(void)t;
	(void)tud;
	((struct se_counts *)cud.ptr)->ok++;
}

static void se_wait_err(struct doca_sync_event_task_wait_eq *t, union doca_data tud,
                        union doca_data cud)
{
	(void)t;
	(void)tud;
	((struct se_counts *)cud.ptr)->err++;
}

/* Sync event: a wait that never holds, freed, then the stop flushes it; IDLE, no callback. */
static void sync_event_free_pending_wait(void **state)
{
	struct doca_sync_event_task_wait_eq *w[2];
	struct se_counts c = { 0 };
	struct doca_sync_event *se;
	struct doca_ctx *ctx;
	struct doca_pe *pe;

	(void)state;
	tf_log_capture();
	assert_ok(doca_pe_create(&pe));
	assert_ok(doca_sync_event_create(&se));
	ctx = doca_sync_event_as_ctx(se);
	assert_ok(doca_pe_connect_ctx(pe, ctx));
	assert_ok(doca_ctx_set_user_data(ctx, (union doca_data){ .ptr = &c }));
	assert_ok(doca_sync_event_task_wait_eq_set_conf(se, se_wait_ok, se_wait_err, 2));
	assert_ok(doca_ctx_start(ctx));
	for (int i = 0; i < 2; i++) {
		assert_ok(doca_sync_event_task_wait_eq_alloc_init(se, 7 + (uint64_t)i, UINT64_MAX,
		                                                  (union doca_data){ 0 }, &w[i]));
		assert_ok(doca_task_submit(doca_sync_event_task_wait_eq_as_doca_task(w[i])));
	}
	(void)doca_pe_progress(pe);
	doca_task_free(doca_sync_event_task_wait_eq_as_doca_task(w[0]));
	assert_int_equal(tf_warnings_for(w[0]), 1);
	/* the other one completes normally; the freed one's condition holding changes nothing */
	assert_ok(doca_sync_event_update_set(se, 8));
	for (int i = 0; i < 100 && c.ok == 0; i++)
		(void)doca_pe_progress(pe);
	assert_int_equal(c.ok, 1);
	doca_task_free(doca_sync_event_task_wait_eq_as_doca_task(w[1]));
	assert_ok(doca_sync_event_update_set(se, 7)); /* the freed wait's condition */
	for (int i = 0; i < 100; i++)
		(void)doca_pe_progress(pe);
	assert_int_equal(c.ok, 1);
	/* freed, still pending: the stop flushes it silently */
	assert_ok(doca_sync_event_update_set(se, 0));
	assert_ok(doca_sync_event_task_wait_eq_alloc_init(se, 99, UINT64_MAX,
	                                                  (union doca_data){ 0 }, &w[0]));
	assert_ok(doca_task_submit(doca_sync_event_task_wait_eq_as_doca_task(w[0])));
	doca_task_free(doca_sync_event_task_wait_eq_as_doca_task(w[0]));
	(void)doca_ctx_stop(ctx);
	progress_idle(pe, ctx);
	assert_int_equal(c.ok, 1);
	assert_int_equal(c.err, 0);
	assert_ok(doca_sync_event_destroy(se));
	assert_ok(doca_pe_destroy(pe));
}

static void ma_ok(struct doca_mmap_advise_task_invalidate_cache *t, union doca_data tud,
                  union doca_data cud)
{
	(void)t;
	(void)tud;
	((struct se_counts *)cud.ptr)->ok++;
}

static void ma_err(struct doca_mmap_advise_task_invalidate_cache *t, union doca_data tud,
                   union doca_data cud)
{
	(void)t;
	(void)tud;
	((struct se_counts *)cud.ptr)->err++;
}

/* mmap advise: a task completed at submit but not yet reported, freed: no callback. */
static void mmap_advise_free_in_flight(void **state)
{
	static uint8_t mem[8192];
	struct doca_mmap_advise_task_invalidate_cache *t;
	struct se_counts c = { 0 };
	struct doca_buf_inventory *inv;
	struct doca_mmap_advise *ma;
	struct doca_mmap *mmap;
	struct doca_buf *buf;
	struct doca_ctx *ctx;
	struct doca_dev *dev;
	struct doca_pe *pe;

	(void)state;
	tf_log_capture();
	dev = tu_open_dev("03:00.0");
	assert_ok(doca_mmap_create(&mmap));
	assert_ok(doca_mmap_set_memrange(mmap, mem, sizeof(mem)));
	assert_ok(doca_mmap_add_dev(mmap, dev));
	assert_ok(doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	assert_ok(doca_mmap_start(mmap));
	assert_ok(doca_buf_inventory_create(4, &inv));
	assert_ok(doca_buf_inventory_start(inv));
	assert_ok(doca_buf_inventory_buf_get_by_data(inv, mmap, mem, 4096, &buf));
	assert_ok(doca_pe_create(&pe));
	assert_ok(doca_mmap_advise_create(dev, &ma));
	ctx = doca_mmap_advise_as_ctx(ma);
	assert_ok(doca_pe_connect_ctx(pe, ctx));
	assert_ok(doca_ctx_set_user_data(ctx, (union doca_data){ .ptr = &c }));
	assert_ok(doca_mmap_advise_task_invalidate_cache_set_conf(ma, ma_ok, ma_err, 2));
	assert_ok(doca_ctx_start(ctx));
	assert_ok(doca_mmap_advise_task_invalidate_cache_alloc_init(ma, buf, (union doca_data){ 0 },
	                                                            &t));
	assert_ok(doca_task_submit(doca_mmap_advise_task_invalidate_cache_as_doca_task(t)));
	doca_task_free(doca_mmap_advise_task_invalidate_cache_as_doca_task(t));
	assert_int_equal(tf_warnings_for(t), 1);
	(void)doca_ctx_stop(ctx);
	progress_idle(pe, ctx);
	assert_int_equal(c.ok + c.err, 0);
	assert_ok(doca_mmap_advise_destroy(ma));
	assert_ok(doca_pe_destroy(pe));
	assert_ok(doca_buf_dec_refcount(buf, NULL));
	assert_ok(doca_buf_inventory_destroy(inv));
	assert_ok(doca_mmap_destroy(mmap));
	assert_ok(doca_dev_close(dev));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dma_free_in_flight),
		cmocka_unit_test(dma_free_then_stop),
		cmocka_unit_test(sync_event_free_pending_wait),
		cmocka_unit_test(mmap_advise_free_in_flight),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
