/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* doca_buf_pool through the public API: every documented code, the slot layout, the return
 * path through doca_buf_dec_refcount, and a DMA into pool bufs. */
#include <string.h>

#include <doca_buf.h>
#include <doca_buf_pool.h>
#include <doca_mmap.h>

#include "fixture.h"
#include "test_util.h"

static _Alignas(4096) uint8_t mem[8192];

static struct doca_mmap *started_mmap(void *addr, size_t len)
{
	struct doca_mmap *m;

	assert_ok(doca_mmap_create(&m));
	assert_ok(doca_mmap_set_memrange(m, addr, len));
	assert_ok(doca_mmap_start(m));
	return m;
}

static void create_rules(void **state)
{
	struct doca_buf_pool *p = NULL;
	struct doca_mmap *m, *norange;

	(void)state;
	m = started_mmap(mem, sizeof(mem));
	assert_ok(doca_mmap_create(&norange));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_pool_create(4, 64, NULL, &p));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_pool_create(4, 64, m, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_pool_create(0, 64, m, &p));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_pool_create(4, 0, m, &p));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_buf_pool_create((size_t)UINT32_MAX + 1, 1, m, &p));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_pool_create(4, 64, norange, &p));
	assert_null(p);
	/* a range set but the mmap not started yet: creation is fine, start is not */
	assert_ok(doca_mmap_set_memrange(norange, mem, sizeof(mem)));
	assert_ok(doca_buf_pool_create(4, 64, norange, &p));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_buf_pool_start(p));
	assert_ok(doca_mmap_start(norange));
	assert_ok(doca_buf_pool_start(p));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_buf_pool_start(p));
	assert_ok(doca_buf_pool_destroy(p)); /* destroy implies stop */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_pool_destroy(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_pool_start(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_pool_stop(NULL));
	assert_ok(doca_mmap_destroy(norange));
	assert_ok(doca_mmap_destroy(m));
}

static void properties(void **state)
{
	struct doca_buf_pool *p;
	struct doca_mmap *m = started_mmap(mem, sizeof(mem));
	union doca_data ud = { .u64 = 0 }, set = { .u64 = 42 };
	uint32_t n;
	size_t a;

	(void)state;
	assert_ok(doca_buf_pool_create(8, 100, m, &p));
	/* defaults: user data 0, alignment 1, all free */
	assert_ok(doca_buf_pool_get_user_data(p, &ud));
	assert_int_equal(ud.u64, 0);
	assert_ok(doca_buf_pool_get_element_alignment(p, &a));
	assert_int_equal(a, 1);
	assert_ok(doca_buf_pool_get_num_elements(p, &n));
	assert_int_equal(n, 8);
	assert_ok(doca_buf_pool_get_num_free_elements(p, &n));
	assert_int_equal(n, 8);
	assert_ok(doca_buf_pool_set_user_data(p, set));
	assert_ok(doca_buf_pool_get_user_data(p, &ud));
	assert_int_equal(ud.u64, 42);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_pool_set_element_alignment(p, 0));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_pool_set_element_alignment(p, 48));
	assert_ok(doca_buf_pool_set_element_alignment(p, 64));
	assert_ok(doca_buf_pool_get_element_alignment(p, &a));
	assert_int_equal(a, 64);
	/* every getter and setter refuses NULL */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_pool_set_user_data(NULL, set));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_pool_set_element_alignment(NULL, 8));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_pool_get_user_data(p, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_pool_get_user_data(NULL, &ud));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_pool_get_element_alignment(p, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_pool_get_element_alignment(NULL, &a));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_pool_get_num_elements(p, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_pool_get_num_elements(NULL, &n));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_pool_get_num_free_elements(p, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_pool_get_num_free_elements(NULL, &n));
	/* started: the setters refuse, the getters work */
	assert_ok(doca_buf_pool_start(p));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_buf_pool_set_user_data(p, ud));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_buf_pool_set_element_alignment(p, 8));
	assert_ok(doca_buf_pool_get_user_data(p, &ud));
	/* stopped: they work again */
	assert_ok(doca_buf_pool_stop(p));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_buf_pool_stop(p));
	assert_ok(doca_buf_pool_set_element_alignment(p, 8));
	assert_ok(doca_buf_pool_destroy(p));
	assert_ok(doca_mmap_destroy(m));
}

static void alloc_and_return(void **state)
{
	struct doca_buf_pool *p;
	struct doca_mmap *m = started_mmap(mem, sizeof(mem));
	struct doca_buf *b[4], *extra = NULL;
	void *head, *data;
	size_t len, dlen;
	uint32_t n;

	(void)state;
	assert_ok(doca_buf_pool_create(4, 100, m, &p));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_buf_pool_buf_alloc(p, &b[0])); /* not started */
	assert_ok(doca_buf_pool_start(p));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_pool_buf_alloc(NULL, &b[0]));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_pool_buf_alloc(p, NULL));
	for (int i = 0; i < 4; i++) {
		uint16_t rc;

		assert_ok(doca_buf_pool_buf_alloc(p, &b[i]));
		/* an empty buffer over its own slot: stride 100 with alignment 1 */
		assert_ok(doca_buf_get_head(b[i], &head));
		assert_ok(doca_buf_get_data(b[i], &data));
		assert_ok(doca_buf_get_len(b[i], &len));
		assert_ok(doca_buf_get_data_len(b[i], &dlen));
		assert_ptr_equal(head, mem + 100 * i);
		assert_ptr_equal(data, head);
		assert_int_equal(len, 100);
		assert_int_equal(dlen, 0);
		assert_ok(doca_buf_get_refcount(b[i], &rc));
		assert_int_equal(rc, 1);
	}
	assert_ok(doca_mmap_get_num_bufs(m, &n));
	assert_int_equal(n, 4);
	assert_ok(doca_buf_pool_get_num_free_elements(p, &n));
	assert_int_equal(n, 0);
	assert_doca(DOCA_ERROR_EMPTY, doca_buf_pool_buf_alloc(p, &extra));
	assert_null(extra);
	/* bufs out: stop, destroy and the mmap's stop refuse */
	assert_doca(DOCA_ERROR_IN_USE, doca_buf_pool_stop(p));
	assert_doca(DOCA_ERROR_IN_USE, doca_buf_pool_destroy(p));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_mmap_stop(m));
	/* a buf goes back when its count reaches 0, and the slot comes out again */
	assert_ok(doca_buf_set_data_len(b[2], 100));
	assert_ok(doca_buf_dec_refcount(b[2], NULL));
	assert_ok(doca_buf_pool_get_num_free_elements(p, &n));
	assert_int_equal(n, 1);
	assert_ok(doca_buf_pool_buf_alloc(p, &extra));
	assert_ok(doca_buf_get_head(extra, &head));
	assert_ptr_equal(head, mem + 200);
	assert_ok(doca_buf_get_data_len(extra, &dlen));
	assert_int_equal(dlen, 0); /* empty again */
	assert_ok(doca_buf_dec_refcount(extra, NULL));
	for (int i = 0; i < 4; i++)
		if (i != 2)
			assert_ok(doca_buf_dec_refcount(b[i], NULL));
	assert_ok(doca_buf_pool_get_num_free_elements(p, &n));
	assert_int_equal(n, 4);
	/* the mmap stopped under a started pool: alloc says BAD_STATE */
	assert_ok(doca_mmap_stop(m));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_buf_pool_buf_alloc(p, &extra));
	assert_ok(doca_mmap_start(m));
	assert_ok(doca_buf_pool_stop(p));
	assert_ok(doca_buf_pool_destroy(p));
	assert_ok(doca_mmap_destroy(m));
}

static void layout_and_initialization(void **state)
{
	struct doca_buf_pool *p;
	struct doca_mmap *m = started_mmap(mem + 8, 1000); /* a range that is not 64-aligned */
	struct doca_buf *b[2];
	void *head;

	(void)state;
	/* 10 x 100 fits exactly with alignment 1 */
	assert_ok(doca_buf_pool_create(10, 100, m, &p));
	assert_ok(doca_buf_pool_start(p));
	assert_ok(doca_buf_pool_stop(p));
	/* alignment 64: first slot at the next 64 boundary (offset 56), stride 128: too big */
	assert_ok(doca_buf_pool_set_element_alignment(p, 64));
	assert_doca(DOCA_ERROR_INITIALIZATION, doca_buf_pool_start(p));
	assert_ok(doca_buf_pool_destroy(p));
	/* 7 x 128 + 56 = 952 fits */
	assert_ok(doca_buf_pool_create(7, 100, m, &p));
	assert_ok(doca_buf_pool_set_element_alignment(p, 64));
	assert_ok(doca_buf_pool_start(p));
	assert_ok(doca_buf_pool_buf_alloc(p, &b[0]));
	assert_ok(doca_buf_pool_buf_alloc(p, &b[1]));
	assert_ok(doca_buf_get_head(b[0], &head));
	assert_ptr_equal(head, mem + 64);
	assert_ok(doca_buf_get_head(b[1], &head));
	assert_ptr_equal(head, mem + 64 + 128);
	assert_ok(doca_buf_dec_refcount(b[0], NULL));
	assert_ok(doca_buf_dec_refcount(b[1], NULL));
	assert_ok(doca_buf_pool_destroy(p));
	/* too many elements for the range, and an alignment beyond the range */
	assert_ok(doca_buf_pool_create(11, 100, m, &p));
	assert_doca(DOCA_ERROR_INITIALIZATION, doca_buf_pool_start(p));
	assert_ok(doca_buf_pool_destroy(p));
	assert_ok(doca_buf_pool_create(1, 1, m, &p));
	assert_ok(doca_buf_pool_set_element_alignment(p, (size_t)1 << 40));
	assert_doca(DOCA_ERROR_INITIALIZATION, doca_buf_pool_start(p));
	assert_ok(doca_buf_pool_destroy(p));
	assert_ok(doca_mmap_destroy(m));
}

/*
 * A pool that cannot fit its mmap allocates nothing: 50 million slots of a byte over a 4 KiB
 * range are refused at start (INITIALIZATION, one line) before the bufs, ~96 bytes a slot
 * (gigabytes), are allocated; create made only the pool object.
 */
static void misfit_allocates_nothing(void **state)
{
	struct doca_mmap *m = started_mmap(mem, 4096);
	struct doca_buf_pool *p;
	long before = tu_status_field(getpid(), "VmSize"); /* KiB */
	unsigned int hit;
	uint32_t n;

	(void)state;
	assert_true(before > 0);
	assert_ok(doca_buf_pool_create(50000000, 1, m, &p));
	assert_ok(doca_buf_pool_get_num_free_elements(p, &n));
	assert_int_equal(n, 50000000);
	(void)tu_log_lines("", &hit);
	assert_doca(DOCA_ERROR_INITIALIZATION, doca_buf_pool_start(p));
	assert_int_equal(tu_log_lines("do not fit", &hit), 1);
	assert_int_equal(hit, 1);
	assert_true(tu_status_field(getpid(), "VmSize") - before < 256 * 1024);
	assert_ok(doca_buf_pool_destroy(p));
	assert_ok(doca_mmap_destroy(m));
}

/* The pattern of NVIDIA's virtiofs and nvme_emulation: pool bufs as DMA destinations. */
static void dma_into_pool_bufs(void **state)
{
	struct doca_buf_pool *p;
	struct doca_buf *d, *s;
	struct fx fx;

	(void)state;
	fx_init(&fx, 4096, 4, true);
	assert_ok(doca_buf_pool_create(4, 1024, fx.dst_mmap, &p));
	assert_ok(doca_buf_pool_start(p));
	for (unsigned int i = 0; i < 8; i++) {
		s = fx_src_buf(&fx, 0, 512);
		fx_pattern(fx.src, 512, i + 7);
		assert_ok(doca_buf_pool_buf_alloc(p, &d));
		assert_ok(doca_task_submit(fx_task(&fx, s, d, i)));
		assert_true(fx_progress_until(&fx, i + 1, 1000000));
		assert_int_equal(fx.last_status, DOCA_SUCCESS);
		assert_memory_equal(fx.dst, fx.src, 512); /* the first slot, every time */
		assert_ok(doca_buf_dec_refcount(d, NULL));
		assert_ok(doca_buf_dec_refcount(s, NULL));
	}
	assert_ok(doca_buf_pool_destroy(p));
	fx_fini(&fx);
}

/* The pool keeps no copy of its mmap: destroying the mmap under a pool is refused (IN_USE). */
static void mmap_destroy_under_pool(void **state)
{
	struct doca_buf_pool *p;
	struct doca_mmap *m;
	struct doca_buf *b;

	(void)state;
	m = started_mmap(mem, sizeof(mem));
	assert_ok(doca_buf_pool_create(4, 64, m, &p));
	assert_doca(DOCA_ERROR_IN_USE, doca_mmap_destroy(m)); /* not even started yet */
	assert_ok(doca_buf_pool_start(p));
	assert_doca(DOCA_ERROR_IN_USE, doca_mmap_destroy(m)); /* no buf out: still refused */
	assert_ok(doca_buf_pool_buf_alloc(p, &b));            /* and the pool still works */
	assert_ok(doca_buf_dec_refcount(b, NULL));
	/* stopping the mmap is allowed: the pool then refuses to hand out bufs */
	assert_ok(doca_mmap_stop(m));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_buf_pool_buf_alloc(p, &b));
	assert_ok(doca_buf_pool_destroy(p));
	assert_ok(doca_mmap_destroy(m));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(create_rules),
		cmocka_unit_test(properties),
		cmocka_unit_test(alloc_and_return),
		cmocka_unit_test(layout_and_initialization),
		cmocka_unit_test(misfit_allocates_nothing),
		cmocka_unit_test(dma_into_pool_bufs),
		cmocka_unit_test(mmap_destroy_under_pool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
