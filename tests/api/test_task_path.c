/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The per-task path keeps some decisions apart from the task: a buf's fast byte (one
 * element, local, in use, writable; decided when the buf changes), the context's hold stage
 * (decided at start), a stage of ODMA_TASK_STAGE_MAX tasks, the PE's in-flight count summed
 * over its contexts. Each test here changes what such a decision rests on and checks the
 * bytes and callbacks that follow, on each engine (ODMA_ENGINE, set by meson).
 */
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "test_util.h"

#define LOOPS 100000000UL

/* Runs @t once from an empty destination; returns the destination's data_len. */
static size_t run_once(struct fx *fx, struct doca_task *t, struct doca_buf *dst)
{
	size_t len = 0;
	unsigned int before = fx->ok + fx->err;

	assert_ok(doca_buf_reset_data_len(dst));
	assert_ok(doca_task_submit(t));
	assert_true(fx_progress_until(fx, before + 1, LOOPS));
	assert_int_equal(fx->err, 0);
	assert_ok(doca_buf_get_data_len(dst, &len));
	return len;
}

/*
 * A source copied as one plain element, then chained to a second element, copies both (the
 * buf's fast byte follows the chain), and one element again once unchained.
 */
static void test_chain_after_plain_submit(void **state)
{
	struct fx fx;
	struct doca_buf *a, *b, *dst;
	struct doca_task *t;

	(void)state;
	fx_init(&fx, 4096, 4, true);
	fx.free_in_cb = false; /* the tests reuse and free their tasks */
	fx_pattern(fx.src, fx.len, 7);
	a = fx_src_buf(&fx, 0, 16);
	b = fx_src_buf(&fx, 1024, 16);
	dst = fx_dst_buf(&fx, 0, 256);
	t = fx_task(&fx, a, dst, 1);

	assert_int_equal(run_once(&fx, t, dst), 16);
	assert_memory_equal(fx.dst, fx.src, 16);

	memset(fx.dst, 0, 64);
	assert_ok(doca_buf_chain_list(a, b));
	assert_int_equal(run_once(&fx, t, dst), 32);
	assert_memory_equal(fx.dst, fx.src, 16);
	assert_memory_equal(fx.dst + 16, fx.src + 1024, 16);

	memset(fx.dst, 0, 64);
	assert_ok(doca_buf_unchain_list(a, b));
	assert_int_equal(run_once(&fx, t, dst), 16);
	assert_memory_equal(fx.dst, fx.src, 16);
	assert_int_equal(fx.dst[16], 0);

	doca_task_free(t);
	assert_ok(doca_buf_dec_refcount(a, NULL));
	assert_ok(doca_buf_dec_refcount(b, NULL));
	assert_ok(doca_buf_dec_refcount(dst, NULL));
	fx_fini(&fx);
}

/* A buf released and taken again for a read-only mmap is not a writable destination. */
static void test_released_buf_forgets_writable(void **state)
{
	struct fx fx;
	struct doca_mmap *ro;
	struct doca_buf *src, *dst;
	struct doca_task *t;
	uint8_t *mem = aligned_alloc(4096, 4096);

	(void)state;
	assert_non_null(mem);
	fx_init(&fx, 4096, 4, true);
	fx.free_in_cb = false; /* the tests reuse and free their tasks */
	assert_ok(doca_mmap_create(&ro));
	assert_ok(doca_mmap_add_dev(ro, fx.dev));
	assert_ok(doca_mmap_set_memrange(ro, mem, 4096));
	assert_ok(doca_mmap_set_permissions(ro, DOCA_ACCESS_FLAG_LOCAL_READ_ONLY));
	assert_ok(doca_mmap_start(ro));
	src = fx_src_buf(&fx, 0, 64);
	dst = fx_dst_buf(&fx, 0, 64);
	assert_ok(doca_buf_dec_refcount(dst, NULL)); /* the inventory hands the same buf out */
	assert_ok(doca_buf_inventory_buf_get_by_addr(fx.inv, ro, mem, 4096, &dst));
	t = fx_task(&fx, src, dst, 1);
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_task_submit(t));
	assert_int_equal(fx.ok + fx.err, 0);
	doca_task_free(t);
	assert_ok(doca_buf_dec_refcount(src, NULL));
	assert_ok(doca_buf_dec_refcount(dst, NULL));
	assert_ok(doca_mmap_destroy(ro));
	fx_fini(&fx);
	free(mem);
}

/*
 * More small tasks submitted between two progress calls than one stage holds: the full
 * stage runs at submit and its tasks come back through the PE's list, the rest from the
 * stage at the poll; every task gets exactly one callback and its bytes.
 */
#define MANY 400

static void test_more_tasks_than_a_stage(void **state)
{
	static struct doca_task *t[MANY];
	static struct doca_buf *s[MANY], *d[MANY];
	struct fx fx;
	size_t n = 0;

	(void)state;
	fx_init(&fx, MANY * 64, MANY, true);
	fx.free_in_cb = false; /* the tests reuse and free their tasks */
	fx_pattern(fx.src, fx.len, 3);
	for (int i = 0; i < MANY; i++) {
		s[i] = fx_src_buf(&fx, (size_t)i * 64, 64);
		d[i] = fx_dst_buf(&fx, (size_t)i * 64, 64);
		t[i] = fx_task(&fx, s[i], d[i], (uint64_t)i);
	}
	for (int i = 0; i < MANY; i++)
		assert_ok(doca_task_submit(t[i]));
	assert_ok(doca_pe_get_num_inflight_tasks(fx.pe, &n));
	assert_int_equal(n, MANY);
	assert_true(fx_progress_until(&fx, MANY, LOOPS));
	assert_int_equal(fx.ok, MANY);
	assert_int_equal(fx.err, 0);
	for (int i = 0; i < 10; i++)
		(void)doca_pe_progress(fx.pe);
	assert_int_equal(fx.ok, MANY); /* exactly one callback each */
	assert_memory_equal(fx.dst, fx.src, fx.len);
	assert_ok(doca_pe_get_num_inflight_tasks(fx.pe, &n));
	assert_int_equal(n, 0);
	for (int i = 0; i < MANY; i++) {
		doca_task_free(t[i]);
		assert_ok(doca_buf_dec_refcount(s[i], NULL));
		assert_ok(doca_buf_dec_refcount(d[i], NULL));
	}
	fx_fini(&fx);
}

static unsigned int second_ok;

static void second_cb(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	(void)task;
	(void)tud;
	(void)cud;
	second_ok++;
}

/*
 * Two contexts on one PE: the PE's in-flight count is theirs together; a context restarted
 * with ordered completions (decided at start) delivers in submission order.
 */
static void test_two_contexts_and_restart_ordered(void **state)
{
	struct fx fx;
	struct doca_dma *dma2;
	struct doca_buf *s1, *d1, *s2[3], *d2[3];
	struct doca_task *t1, *t2[3];
	enum doca_ctx_states st;
	size_t n = 0;

	(void)state;
	fx_init(&fx, 4096, 4, true);
	fx.free_in_cb = false; /* the tests reuse and free their tasks */
	fx_pattern(fx.src, fx.len, 5);
	assert_ok(doca_dma_create(fx.dev, &dma2));
	assert_ok(doca_dma_task_memcpy_set_conf(dma2, second_cb, second_cb, 4));
	assert_ok(doca_pe_connect_ctx(fx.pe, doca_dma_as_ctx(dma2)));
	assert_ok(doca_ctx_start(doca_dma_as_ctx(dma2)));
	s1 = fx_src_buf(&fx, 0, 64);
	d1 = fx_dst_buf(&fx, 0, 64);
	t1 = fx_task(&fx, s1, d1, 0);
	for (int i = 0; i < 3; i++) {
		union doca_data ud = { .u64 = (uint64_t)i };
		struct doca_dma_task_memcpy *m;

		s2[i] = fx_src_buf(&fx, 1024 + (size_t)i * 64, 64);
		d2[i] = fx_dst_buf(&fx, 1024 + (size_t)i * 64, 64);
		assert_ok(doca_dma_task_memcpy_alloc_init(dma2, s2[i], d2[i], ud, &m));
		t2[i] = doca_dma_task_memcpy_as_task(m);
	}
	assert_ok(doca_task_submit(t1));
	for (int i = 0; i < 3; i++)
		assert_ok(doca_task_submit(t2[i]));
	assert_ok(doca_pe_get_num_inflight_tasks(fx.pe, &n));
	assert_int_equal(n, 4);
	assert_true(fx_progress_until(&fx, 1, LOOPS));
	for (unsigned long k = 0; second_ok < 3 && k < LOOPS; k++)
		(void)doca_pe_progress(fx.pe);
	assert_int_equal(second_ok, 3);
	assert_ok(doca_pe_get_num_inflight_tasks(fx.pe, &n));
	assert_int_equal(n, 0);
	assert_memory_equal(fx.dst, fx.src, 64);
	assert_memory_equal(fx.dst + 1024, fx.src + 1024, 3 * 64);
	for (int i = 0; i < 3; i++) {
		doca_task_free(t2[i]);
		assert_ok(doca_buf_dec_refcount(s2[i], NULL));
		assert_ok(doca_buf_dec_refcount(d2[i], NULL));
	}
	assert_ok(doca_ctx_stop(doca_dma_as_ctx(dma2)));
	assert_ok(doca_ctx_get_state(doca_dma_as_ctx(dma2), &st));
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	assert_ok(doca_dma_destroy(dma2));
	doca_task_free(t1);
	assert_ok(doca_buf_dec_refcount(s1, NULL));
	assert_ok(doca_buf_dec_refcount(d1, NULL));
	fx_fini(&fx);
}

static uint64_t order_seen[8];
static unsigned int order_n;

static void order_cb(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	(void)task;
	(void)cud;
	order_seen[order_n++ % 8] = tud.u64;
}

#define BIG (256u << 10)

/* Ordered completions chosen after a first start (the hold stage is decided per start). */
static void test_ordered_after_restart(void **state)
{
	struct fx fx;
	struct doca_dma *dma;
	struct doca_buf *s[8], *d[8];
	struct doca_task *t[8];
	enum doca_ctx_states st;

	(void)state;
	fx_init(&fx, 8 * BIG, 4, true);
	fx.free_in_cb = false; /* the tests reuse and free their tasks */
	assert_ok(doca_dma_create(fx.dev, &dma));
	assert_ok(doca_dma_task_memcpy_set_conf(dma, order_cb, order_cb, 8));
	assert_ok(doca_pe_connect_ctx(fx.pe, doca_dma_as_ctx(dma)));
	assert_ok(doca_ctx_start(doca_dma_as_ctx(dma)));
	assert_ok(doca_ctx_stop(doca_dma_as_ctx(dma)));
	assert_ok(doca_dma_set_ordered_completions(dma, 1));
	assert_ok(doca_ctx_start(doca_dma_as_ctx(dma)));
	/*
	 * Sizes the thread engine sends different ways when unordered (small ones held for the
	 * next poll, big ones to its workers): ordered, none may overtake another.
	 */
	for (int i = 0; i < 8; i++) {
		union doca_data ud = { .u64 = (uint64_t)i };
		struct doca_dma_task_memcpy *m;
		size_t sz = i % 2 ? 64 : BIG;

		s[i] = fx_src_buf(&fx, (size_t)i * BIG, sz);
		d[i] = fx_dst_buf(&fx, (size_t)i * BIG, BIG);
		assert_ok(doca_dma_task_memcpy_alloc_init(dma, s[i], d[i], ud, &m));
		t[i] = doca_dma_task_memcpy_as_task(m);
	}
	for (int i = 0; i < 8; i++)
		assert_ok(doca_task_submit(t[i]));
	for (unsigned long k = 0; order_n < 8 && k < LOOPS; k++)
		(void)doca_pe_progress(fx.pe);
	assert_int_equal(order_n, 8);
	for (int i = 0; i < 8; i++)
		assert_int_equal(order_seen[i], (uint64_t)i);
	for (int i = 0; i < 8; i++) {
		doca_task_free(t[i]);
		assert_ok(doca_buf_dec_refcount(s[i], NULL));
		assert_ok(doca_buf_dec_refcount(d[i], NULL));
	}
	assert_ok(doca_ctx_stop(doca_dma_as_ctx(dma)));
	assert_ok(doca_ctx_get_state(doca_dma_as_ctx(dma), &st));
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	assert_ok(doca_dma_destroy(dma));
	fx_fini(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain_after_plain_submit),
		cmocka_unit_test(test_released_buf_forgets_writable),
		cmocka_unit_test(test_more_tasks_than_a_stage),
		cmocka_unit_test(test_two_contexts_and_restart_ordered),
		cmocka_unit_test(test_ordered_after_restart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
