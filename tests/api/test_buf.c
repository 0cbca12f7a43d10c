/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* doca_buf through the public API: refcounts, data segment, lists. */
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_dev.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <string.h>

#include "test_util.h"

#define NBUFS 256

static struct doca_dev *dev;
static struct doca_mmap *mm, *mm2;
static struct doca_buf_inventory *inv, *inv2;
static uint8_t mem[NBUFS * 16];
static uint8_t mem2[1024];

static struct doca_mmap *mmap_over(uint8_t *base, size_t len)
{
	struct doca_mmap *m;

	if (doca_mmap_create(&m) != DOCA_SUCCESS || doca_mmap_add_dev(m, dev) != DOCA_SUCCESS ||
	    doca_mmap_set_memrange(m, base, len) != DOCA_SUCCESS ||
	    doca_mmap_start(m) != DOCA_SUCCESS)
		return NULL;
	return m;
}

static int setup(void **state)
{
	struct doca_devinfo **list;
	uint32_t n;

	(void)state;
	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS || n == 0 ||
	    doca_dev_open(list[0], &dev) != DOCA_SUCCESS)
		return -1;
	doca_devinfo_destroy_list(list);
	mm = mmap_over(mem, sizeof(mem));
	mm2 = mmap_over(mem2, sizeof(mem2));
	if (mm == NULL || mm2 == NULL || doca_buf_inventory_create(NBUFS, &inv) != DOCA_SUCCESS ||
	    doca_buf_inventory_start(inv) != DOCA_SUCCESS ||
	    doca_buf_inventory_create(8, &inv2) != DOCA_SUCCESS ||
	    doca_buf_inventory_start(inv2) != DOCA_SUCCESS)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	doca_buf_inventory_destroy(inv);
	doca_buf_inventory_destroy(inv2);
	doca_mmap_destroy(mm);
	doca_mmap_destroy(mm2);
	doca_dev_close(dev);
	return 0;
}

/* Every test must give back every buf it took. */
static int check_all_free(void **state)
{
	uint32_t n1, n2, b1, b2;

	(void)state;
	doca_buf_inventory_get_num_free_elements(inv, &n1);
	doca_buf_inventory_get_num_free_elements(inv2, &n2);
	doca_mmap_get_num_bufs(mm, &b1);
	doca_mmap_get_num_bufs(mm2, &b2);
	return n1 == NBUFS && n2 == 8 && b1 == 0 && b2 == 0 ? 0 : -1;
}

static struct doca_buf *get_buf(int i)
{
	struct doca_buf *b;

	assert_ok(doca_buf_inventory_buf_get_by_addr(inv, mm, mem + i * 16, 16, &b));
	return b;
}

static uint16_t refcount(const struct doca_buf *b)
{
	uint16_t rc;

	assert_ok(doca_buf_get_refcount(b, &rc));
	return rc;
}

static void test_refcount(void **state)
{
	struct doca_buf *b = get_buf(0);
	uint16_t rc = 0xdead;
	uint32_t nfree;

	(void)state;
	assert_int_equal(refcount(b), 1);
	assert_ok(doca_buf_inc_refcount(b, &rc));
	assert_int_equal(rc, 1); /* the count before */
	assert_int_equal(refcount(b), 2);
	assert_ok(doca_buf_inc_refcount(b, NULL));
	assert_ok(doca_buf_dec_refcount(b, &rc));
	assert_int_equal(rc, 2); /* the count after */
	assert_ok(doca_buf_dec_refcount(b, &rc));
	assert_int_equal(rc, 1);
	assert_ok(doca_buf_inventory_get_num_free_elements(inv, &nfree));
	assert_int_equal(nfree, NBUFS - 1);
	assert_ok(doca_buf_dec_refcount(b, &rc));
	assert_int_equal(rc, 0);
	assert_ok(doca_buf_inventory_get_num_free_elements(inv, &nfree));
	assert_int_equal(nfree, NBUFS);
	/* Released: further changes are refused. */
	assert_int_equal(refcount(b), 0);
	assert_doca(DOCA_ERROR_BAD_STATE, doca_buf_dec_refcount(b, &rc));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_buf_inc_refcount(b, &rc));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inc_refcount(NULL, &rc));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_dec_refcount(NULL, &rc));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_get_refcount(NULL, &rc));
}

static void test_refcount_max(void **state)
{
	struct doca_buf *b = get_buf(0);
	uint16_t rc;

	(void)state;
	for (uint32_t i = 1; i < UINT16_MAX; i++)
		assert_ok(doca_buf_inc_refcount(b, NULL));
	assert_int_equal(refcount(b), UINT16_MAX);
	assert_doca(DOCA_ERROR_TOO_BIG, doca_buf_inc_refcount(b, &rc));
	assert_int_equal(refcount(b), UINT16_MAX);
	for (uint32_t i = 0; i < UINT16_MAX; i++)
		assert_ok(doca_buf_dec_refcount(b, NULL));
	assert_int_equal(refcount(b), 0);
}

static void test_getters_null(void **state)
{
	struct doca_buf *b = get_buf(0), *out;
	void *p = NULL;
	size_t len;
	uint8_t f;
	uint32_t n;

	(void)state;
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_get_len(NULL, &len));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_get_len(b, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_get_head(b, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_get_data(NULL, &p));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_get_data_len(b, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_set_data(NULL, p, 0));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_set_data_len(NULL, 0));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_reset_data_len(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_get_next_in_list(b, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_get_last_in_list(NULL, &out));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_is_last_in_list(b, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_is_first_in_list(NULL, &f));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_is_in_list(b, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_get_list_len(b, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_chain_list(b, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_chain_list_tail(b, NULL, b));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_unchain_list(NULL, b));
	(void)n;
	assert_ok(doca_buf_dec_refcount(b, NULL));
}

static void assert_data(const struct doca_buf *b, const void *data, size_t data_len)
{
	void *p;
	size_t len;

	assert_ok(doca_buf_get_data(b, &p));
	assert_ptr_equal(p, data);
	assert_ok(doca_buf_get_data_len(b, &len));
	assert_int_equal(len, data_len);
}

static void test_data_segment(void **state)
{
	struct doca_buf *b;
	uint8_t *h = mem + 64;

	(void)state;
	assert_ok(doca_buf_inventory_buf_get_by_args(inv, mm, h, 32, h + 4, 8, &b));
	assert_data(b, h + 4, 8);
	assert_ok(doca_buf_set_data(b, h, 32));
	assert_data(b, h, 32);
	assert_ok(doca_buf_set_data(b, h + 31, 1));
	assert_ok(doca_buf_set_data(b, h + 32, 0));
	assert_ok(doca_buf_set_data(b, h + 10, 5));
	/* Outside the window: refused, buf unchanged (stricter than hardware). */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_set_data(b, h - 1, 4));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_set_data(b, h + 30, 3));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_set_data(b, h, 33));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_set_data(b, h + 33, 0));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_set_data(b, h, SIZE_MAX));
	assert_data(b, h + 10, 5);
	/* set_data_len keeps data and may reach exactly the window's end. */
	assert_ok(doca_buf_set_data_len(b, 22));
	assert_data(b, h + 10, 22);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_set_data_len(b, 23));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_set_data_len(b, SIZE_MAX));
	assert_data(b, h + 10, 22);
	assert_ok(doca_buf_reset_data_len(b));
	assert_data(b, h + 10, 0);
	assert_ok(doca_buf_dec_refcount(b, NULL));
}

/* Checks every list accessor on a list built from bufs[0..n). */
static void assert_list(struct doca_buf **bufs, uint32_t n)
{
	struct doca_buf *cur, *last;
	uint32_t len;
	uint8_t f;

	assert_ok(doca_buf_get_list_len(bufs[0], &len));
	assert_int_equal(len, n);
	assert_int_equal(refcount(bufs[0]), 1);
	for (uint32_t i = 0; i < n; i++) {
		assert_ok(doca_buf_get_next_in_list(bufs[i], &cur));
		assert_ptr_equal(cur, i + 1 < n ? bufs[i + 1] : NULL);
		assert_ok(doca_buf_get_last_in_list(bufs[i], &last));
		assert_ptr_equal(last, bufs[n - 1]);
		assert_ok(doca_buf_is_first_in_list(bufs[i], &f));
		assert_int_equal(f, i == 0);
		assert_ok(doca_buf_is_last_in_list(bufs[i], &f));
		assert_int_equal(f, i == n - 1);
		assert_ok(doca_buf_is_in_list(bufs[i], &f));
		assert_int_equal(f, n > 1);
		if (i > 0) {
			assert_int_equal(refcount(bufs[i]), 1);
			assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_buf_get_list_len(bufs[i], &len));
			assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_buf_inc_refcount(bufs[i], NULL));
			assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_buf_dec_refcount(bufs[i], NULL));
		}
	}
}

static void test_lists_1_to_64(void **state)
{
	struct doca_buf *bufs[64];
	uint32_t nfree, nb;

	(void)state;
	for (uint32_t n = 1; n <= 64; n++) {
		for (uint32_t i = 0; i < n; i++) {
			bufs[i] = get_buf((int)i);
			if (i > 0)
				assert_ok(doca_buf_chain_list(bufs[0], bufs[i]));
		}
		assert_list(bufs, n);
		assert_ok(doca_mmap_get_num_bufs(mm, &nb));
		assert_int_equal(nb, n);
		/* The head's reference keeps the whole list; the last drop frees it all. */
		assert_ok(doca_buf_inc_refcount(bufs[0], NULL));
		assert_ok(doca_buf_dec_refcount(bufs[0], NULL));
		assert_ok(doca_buf_inventory_get_num_free_elements(inv, &nfree));
		assert_int_equal(nfree, NBUFS - n);
		assert_ok(doca_buf_dec_refcount(bufs[0], NULL));
		assert_ok(doca_buf_inventory_get_num_free_elements(inv, &nfree));
		assert_int_equal(nfree, NBUFS);
		assert_ok(doca_mmap_get_num_bufs(mm, &nb));
		assert_int_equal(nb, 0);
	}
}

static void test_chain_rules(void **state)
{
	struct doca_buf *a = get_buf(0), *b = get_buf(1), *c = get_buf(2), *d = get_buf(3);

	(void)state;
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_chain_list(a, a));
	assert_ok(doca_buf_chain_list(a, b));                             /* a -> b */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_chain_list(a, b)); /* same list */
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_buf_chain_list(b, c)); /* list1 not a head */
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_buf_chain_list(c, b)); /* list2 not a head */
	assert_ok(doca_buf_inc_refcount(c, NULL));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_buf_chain_list(a, c)); /* list2 refcount 2 */
	assert_ok(doca_buf_dec_refcount(c, NULL));
	/* chain_list_tail: the tail must be list1's last element. */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_chain_list_tail(a, a, c));
	assert_ok(doca_buf_chain_list_tail(a, b, c)); /* a -> b -> c */
	/* A list with refcount 2 may still take more elements. */
	assert_ok(doca_buf_inc_refcount(a, NULL));
	assert_ok(doca_buf_chain_list(a, d));
	{
		struct doca_buf *expect[] = { a, b, c, d };

		assert_int_equal(refcount(a), 2);
		assert_ok(doca_buf_dec_refcount(a, NULL));
		assert_list(expect, 4);
	}
	assert_ok(doca_buf_dec_refcount(a, NULL));
}

static void test_unchain(void **state)
{
	struct doca_buf *bufs[10], *other = get_buf(20);

	(void)state;
	for (int i = 0; i < 10; i++) {
		bufs[i] = get_buf(i);
		if (i > 0)
			assert_ok(doca_buf_chain_list(bufs[0], bufs[i]));
	}
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_unchain_list(bufs[0], bufs[0]));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_unchain_list(bufs[0], other));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_buf_unchain_list(bufs[2], bufs[5]));
	/* Split in the middle: 0..3 and 4..9. */
	assert_ok(doca_buf_unchain_list(bufs[0], bufs[4]));
	assert_list(bufs, 4);
	assert_list(bufs + 4, 6);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_unchain_list(bufs[0], bufs[6]));
	/* Split off the last element, then put everything back. */
	assert_ok(doca_buf_unchain_list(bufs[4], bufs[9]));
	assert_list(bufs + 4, 5);
	assert_list(bufs + 9, 1);
	assert_ok(doca_buf_chain_list(bufs[4], bufs[9]));
	assert_ok(doca_buf_chain_list(bufs[0], bufs[4]));
	assert_list(bufs, 10);
	/* Unchain right after the head. */
	assert_ok(doca_buf_unchain_list(bufs[0], bufs[1]));
	assert_list(bufs, 1);
	assert_list(bufs + 1, 9);
	assert_ok(doca_buf_dec_refcount(bufs[0], NULL));
	assert_ok(doca_buf_dec_refcount(bufs[1], NULL));
	assert_ok(doca_buf_dec_refcount(other, NULL));
}

static void test_mixed_list_release(void **state)
{
	struct doca_buf *a = get_buf(0), *b, *c;
	uint32_t n;

	(void)state;
	assert_ok(doca_buf_inventory_buf_get_by_data(inv2, mm2, mem2, 100, &b));
	assert_ok(doca_buf_inventory_buf_get_by_data(inv2, mm2, mem2 + 100, 100, &c));
	assert_ok(doca_buf_chain_list(b, c));
	assert_ok(doca_buf_chain_list(a, b));
	assert_ok(doca_mmap_get_num_bufs(mm2, &n));
	assert_int_equal(n, 2);
	/* Releasing the head returns every element to its own inventory and mmap. */
	assert_ok(doca_buf_dec_refcount(a, NULL));
	assert_ok(doca_buf_inventory_get_num_free_elements(inv2, &n));
	assert_int_equal(n, 8);
	assert_ok(doca_mmap_get_num_bufs(mm2, &n));
	assert_int_equal(n, 0);
}

static void test_dup_of_chained_then_split(void **state)
{
	struct doca_buf *bufs[6], *copy, *mid;
	uint32_t len;

	(void)state;
	for (int i = 0; i < 6; i++) {
		bufs[i] = get_buf(i);
		if (i > 0)
			assert_ok(doca_buf_chain_list(bufs[0], bufs[i]));
	}
	assert_ok(doca_buf_inventory_buf_dup(inv, bufs[0], &copy));
	assert_ok(doca_buf_get_next_in_list(copy, &mid));
	assert_ok(doca_buf_get_next_in_list(mid, &mid));
	assert_ok(doca_buf_unchain_list(copy, mid));
	assert_ok(doca_buf_get_list_len(copy, &len));
	assert_int_equal(len, 2);
	assert_ok(doca_buf_get_list_len(mid, &len));
	assert_int_equal(len, 4);
	assert_ok(doca_buf_get_list_len(bufs[0], &len));
	assert_int_equal(len, 6);
	assert_ok(doca_buf_dec_refcount(copy, NULL));
	assert_ok(doca_buf_dec_refcount(mid, NULL));
	assert_ok(doca_buf_dec_refcount(bufs[0], NULL));
}

/* SDK lines captured by test_released_buf. */
static char sdk_line[512];
static int sdk_lines;

static void sdk_flush(char *line)
{
	snprintf(sdk_line, sizeof(sdk_line), "%s", line);
	sdk_lines++;
}

/* Expects @call to fail with BAD_STATE and log one line naming @fn. */
#define assert_released(fn, call)                                                                  \
	do {                                                                                       \
		sdk_lines = 0;                                                                     \
		sdk_line[0] = '\0';                                                                \
		assert_doca(DOCA_ERROR_BAD_STATE, call);                                           \
		assert_int_equal(sdk_lines, 1);                                                    \
		assert_non_null(strstr(sdk_line, fn));                                             \
		assert_non_null(strstr(sdk_line, "released"));                                     \
	} while (0)

/* A released buf is no buf: its window and data segment can be neither read nor changed. */
static void test_released_buf(void **state)
{
	static char logbuf[512];
	struct doca_log_backend *be;
	struct doca_buf *b = get_buf(3);
	void *p = (void *)0x1;
	size_t n = 77;
	uint16_t rc;

	(void)state;
	assert_ok(doca_buf_set_data(b, mem + 3 * 16, 8));
	assert_ok(doca_buf_dec_refcount(b, NULL));
	assert_ok(doca_log_backend_create_with_buf_sdk(logbuf, sizeof(logbuf), sdk_flush, &be));
	assert_ok(doca_log_backend_set_sdk_level(be, DOCA_LOG_LEVEL_ERROR));
	assert_released("doca_buf_get_data", doca_buf_get_data(b, &p));
	assert_released("doca_buf_set_data", doca_buf_set_data(b, mem + 3 * 16, 4));
	assert_released("doca_buf_get_data_len", doca_buf_get_data_len(b, &n));
	assert_released("doca_buf_set_data_len", doca_buf_set_data_len(b, 2));
	assert_released("doca_buf_reset_data_len", doca_buf_reset_data_len(b));
	assert_released("doca_buf_get_head", doca_buf_get_head(b, &p));
	assert_released("doca_buf_get_len", doca_buf_get_len(b, &n));
	assert_ptr_equal(p, (void *)0x1); /* out-parameters untouched */
	assert_int_equal(n, 77);
	/* The count stays readable: 0 says the buf was released. */
	assert_ok(doca_buf_get_refcount(b, &rc));
	assert_int_equal(rc, 0);
	assert_ok(doca_log_backend_set_sdk_level(be, DOCA_LOG_LEVEL_DISABLE));
}

#define T(fn) cmocka_unit_test_teardown(fn, check_all_free)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_refcount),     T(test_refcount_max),       T(test_getters_null),
		T(test_data_segment), T(test_lists_1_to_64),      T(test_chain_rules),
		T(test_unchain),      T(test_mixed_list_release), T(test_dup_of_chained_then_split),
		T(test_released_buf),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
