/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* doca_buf_inventory through the public API: lifecycle, buf_get rules, dup, expand, accounting. */
#include <string.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_dev.h>
#include <doca_mmap.h>

#include "test_util.h"

static struct doca_dev *dev;
static uint8_t mem[8192];

static int open_device(void **state)
{
	struct doca_devinfo **list;
	uint32_t n;

	(void)state;
	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS || n == 0)
		return -1;
	if (doca_dev_open(list[0], &dev) != DOCA_SUCCESS)
		return -1;
	doca_devinfo_destroy_list(list);
	return 0;
}

static int close_device(void **state)
{
	(void)state;
	doca_dev_close(dev);
	return 0;
}

/* A started mmap over [base, base + len) with the test device. */
static struct doca_mmap *mmap_over(uint8_t *base, size_t len)
{
	struct doca_mmap *m;

	assert_ok(doca_mmap_create(&m));
	assert_ok(doca_mmap_add_dev(m, dev));
	assert_ok(doca_mmap_set_memrange(m, base, len));
	assert_ok(doca_mmap_start(m));
	return m;
}

static struct doca_buf_inventory *started_inv(size_t n)
{
	struct doca_buf_inventory *inv;

	assert_ok(doca_buf_inventory_create(n, &inv));
	assert_ok(doca_buf_inventory_start(inv));
	return inv;
}

static uint32_t num_free(const struct doca_buf_inventory *inv)
{
	uint32_t n;

	assert_ok(doca_buf_inventory_get_num_free_elements(inv, &n));
	return n;
}

static uint32_t mmap_bufs(const struct doca_mmap *m)
{
	uint32_t n;

	assert_ok(doca_mmap_get_num_bufs(m, &n));
	return n;
}

static void test_create(void **state)
{
	struct doca_buf_inventory *inv = (struct doca_buf_inventory *)0x1;
	uint32_t n;

	(void)state;
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_create(0, &inv));
	assert_ptr_equal(inv, (void *)0x1); /* untouched on failure */
	if (SIZE_MAX > UINT32_MAX)
		assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_create((size_t)UINT32_MAX + 1, &inv));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_create(4, NULL));
	assert_ok(doca_buf_inventory_create(16, &inv));
	assert_ok(doca_buf_inventory_get_num_elements(inv, &n));
	assert_int_equal(n, 16);
	assert_int_equal(num_free(inv), 16);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_get_num_elements(inv, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_get_num_free_elements(NULL, &n));
	assert_ok(doca_buf_inventory_destroy(inv));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_destroy(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_start(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_stop(NULL));
}

static void test_lifecycle(void **state)
{
	struct doca_buf_inventory *inv;
	union doca_data ud = { .u64 = 42 }, out;

	(void)state;
	assert_ok(doca_buf_inventory_create(2, &inv));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_buf_inventory_stop(inv));
	assert_ok(doca_buf_inventory_set_user_data(inv, ud));
	assert_ok(doca_buf_inventory_get_user_data(inv, &out));
	assert_int_equal(out.u64, 42);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_get_user_data(inv, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_set_user_data(NULL, ud));
	assert_ok(doca_buf_inventory_start(inv));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_buf_inventory_start(inv));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_buf_inventory_set_user_data(inv, ud));
	assert_ok(doca_buf_inventory_stop(inv));
	assert_ok(doca_buf_inventory_start(inv));
	assert_ok(doca_buf_inventory_destroy(inv)); /* stops implicitly */
}

static void test_get_needs_started(void **state)
{
	struct doca_buf_inventory *inv;
	struct doca_mmap *m, *idle;
	struct doca_buf *b = (struct doca_buf *)0x1;

	(void)state;
	m = mmap_over(mem, sizeof(mem));
	assert_ok(doca_buf_inventory_create(2, &inv));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_buf_inventory_buf_get_by_addr(inv, m, mem, 16, &b));
	assert_ok(doca_buf_inventory_start(inv));
	assert_ok(doca_mmap_create(&idle));
	assert_ok(doca_mmap_set_memrange(idle, mem, sizeof(mem)));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_buf_inventory_buf_get_by_addr(inv, idle, mem, 16, &b));
	assert_ptr_equal(b, (void *)0x1);
	assert_int_equal(num_free(inv), 2);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_get_by_args(NULL, m, mem, 16, mem, 0, &b));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_get_by_args(inv, NULL, mem, 16, mem, 0, &b));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_get_by_args(inv, m, mem, 16, mem, 0, NULL));
	assert_ok(doca_mmap_destroy(idle));
	assert_ok(doca_buf_inventory_destroy(inv));
	assert_ok(doca_mmap_destroy(m));
}

static void test_get_ranges(void **state)
{
	struct doca_buf_inventory *inv = started_inv(4);
	struct doca_mmap *m = mmap_over(mem + 1024, 1024);
	uint8_t *base = mem + 1024;
	struct doca_buf *b;
	void *p;
	size_t len;

	(void)state;
	/* Window outside the mmap. */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_get_by_addr(inv, m, base - 1, 16, &b));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_get_by_addr(inv, m, base + 1000, 25, &b));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_get_by_addr(inv, m, base, 1025, &b));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_get_by_addr(inv, m, base, SIZE_MAX, &b));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_get_by_addr(inv, m, base, 0, &b));
	/* Data segment outside the window (odma is stricter than hardware here). */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_get_by_args(inv, m, base + 8, 16, base, 4, &b));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_get_by_args(inv, m, base, 16, base + 8, 9, &b));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_get_by_args(inv, m, base, 16, base, 17, &b));
	assert_int_equal(num_free(inv), 4);
	assert_int_equal(mmap_bufs(m), 0);

	/* The whole mmap, and a data segment that ends exactly at the window's end. */
	assert_ok(doca_buf_inventory_buf_get_by_args(inv, m, base, 1024, base + 1000, 24, &b));
	assert_ok(doca_buf_get_head(b, &p));
	assert_ptr_equal(p, base);
	assert_ok(doca_buf_get_len(b, &len));
	assert_int_equal(len, 1024);
	assert_ok(doca_buf_get_data(b, &p));
	assert_ptr_equal(p, base + 1000);
	assert_ok(doca_buf_get_data_len(b, &len));
	assert_int_equal(len, 24);
	assert_ok(doca_buf_dec_refcount(b, NULL));

	/* get_by_addr: empty; get_by_data: full. */
	assert_ok(doca_buf_inventory_buf_get_by_addr(inv, m, base + 16, 32, &b));
	assert_ok(doca_buf_get_data(b, &p));
	assert_ptr_equal(p, base + 16);
	assert_ok(doca_buf_get_data_len(b, &len));
	assert_int_equal(len, 0);
	assert_ok(doca_buf_dec_refcount(b, NULL));
	assert_ok(doca_buf_inventory_buf_get_by_data(inv, m, base + 16, 32, &b));
	assert_ok(doca_buf_get_data_len(b, &len));
	assert_int_equal(len, 32);
	assert_ok(doca_buf_get_len(b, &len));
	assert_int_equal(len, 32);
	assert_ok(doca_buf_dec_refcount(b, NULL));

	assert_ok(doca_buf_inventory_destroy(inv));
	assert_ok(doca_mmap_destroy(m));
}

static void test_exhaustion_and_in_use(void **state)
{
	struct doca_buf_inventory *inv = started_inv(3);
	struct doca_mmap *m = mmap_over(mem, sizeof(mem));
	struct doca_buf *b[3], *extra = NULL;

	(void)state;
	for (int i = 0; i < 3; i++) {
		assert_ok(doca_buf_inventory_buf_get_by_addr(inv, m, mem + i * 64, 64, &b[i]));
		assert_int_equal(num_free(inv), 2 - i);
		assert_int_equal(mmap_bufs(m), i + 1);
	}
	assert_doca(DOCA_ERROR_NO_MEMORY, doca_buf_inventory_buf_get_by_addr(inv, m, mem, 64, &extra));
	assert_null(extra);
	assert_doca(DOCA_ERROR_IN_USE, doca_buf_inventory_stop(inv));
	assert_doca(DOCA_ERROR_IN_USE, doca_buf_inventory_destroy(inv));
	assert_ok(doca_buf_dec_refcount(b[1], NULL));
	assert_int_equal(num_free(inv), 1);
	assert_ok(doca_buf_inventory_buf_get_by_addr(inv, m, mem, 64, &extra));
	assert_ok(doca_buf_dec_refcount(extra, NULL));
	assert_ok(doca_buf_dec_refcount(b[0], NULL));
	assert_doca(DOCA_ERROR_IN_USE, doca_buf_inventory_destroy(inv));
	assert_ok(doca_buf_dec_refcount(b[2], NULL));
	assert_int_equal(num_free(inv), 3);
	assert_int_equal(mmap_bufs(m), 0);
	assert_ok(doca_buf_inventory_stop(inv));
	assert_ok(doca_buf_inventory_destroy(inv));
	assert_ok(doca_mmap_destroy(m));
}

static void test_expand(void **state)
{
	struct doca_buf_inventory *inv;
	struct doca_mmap *m = mmap_over(mem, sizeof(mem));
	struct doca_buf *b[5];
	uint32_t n;

	(void)state;
	assert_ok(doca_buf_inventory_create(2, &inv));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_buf_inventory_expand(inv, 3));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_expand(NULL, 3));
	assert_ok(doca_buf_inventory_start(inv));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_expand(inv, 0));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_expand(inv, UINT32_MAX));
	for (int i = 0; i < 2; i++)
		assert_ok(doca_buf_inventory_buf_get_by_addr(inv, m, mem, 16, &b[i]));
	assert_doca(DOCA_ERROR_NO_MEMORY, doca_buf_inventory_buf_get_by_addr(inv, m, mem, 16, &b[2]));
	assert_ok(doca_buf_inventory_expand(inv, 3));
	assert_ok(doca_buf_inventory_get_num_elements(inv, &n));
	assert_int_equal(n, 5);
	assert_int_equal(num_free(inv), 3);
	for (int i = 2; i < 5; i++)
		assert_ok(doca_buf_inventory_buf_get_by_addr(inv, m, mem, 16, &b[i]));
	assert_int_equal(num_free(inv), 0);
	for (int i = 0; i < 5; i++)
		assert_ok(doca_buf_dec_refcount(b[i], NULL));
	assert_int_equal(num_free(inv), 5);
	assert_ok(doca_buf_inventory_destroy(inv));
	assert_ok(doca_mmap_destroy(m));
}

/* Builds a list of n bufs of 16 bytes each, data = "element index" byte. */
static struct doca_buf *make_list(struct doca_buf_inventory *inv, struct doca_mmap *m, int n)
{
	struct doca_buf *head = NULL, *b;

	for (int i = 0; i < n; i++) {
		assert_ok(doca_buf_inventory_buf_get_by_args(inv, m, mem + i * 16, 16, mem + i * 16 + 1, i % 15, &b));
		if (head == NULL)
			head = b;
		else
			assert_ok(doca_buf_chain_list(head, b));
	}
	return head;
}

static void test_dup(void **state)
{
	struct doca_buf_inventory *inv = started_inv(16), *inv2;
	struct doca_mmap *m = mmap_over(mem, sizeof(mem));
	struct doca_buf *src, *copy, *second, *s, *c;
	uint16_t rc;
	uint32_t len;

	(void)state;
	src = make_list(inv, m, 5);
	assert_ok(doca_buf_get_next_in_list(src, &second));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_buf_inventory_buf_dup(inv, second, &copy));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_dup(inv, NULL, &copy));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_dup(inv, src, NULL));

	assert_ok(doca_buf_inventory_create(8, &inv2));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_buf_inventory_buf_dup(inv2, src, &copy));
	assert_ok(doca_buf_inventory_start(inv2));
	assert_ok(doca_buf_inventory_buf_dup(inv2, src, &copy));
	assert_int_equal(num_free(inv2), 3);
	assert_int_equal(mmap_bufs(m), 10);
	assert_ok(doca_buf_get_list_len(copy, &len));
	assert_int_equal(len, 5);
	assert_ok(doca_buf_get_refcount(copy, &rc));
	assert_int_equal(rc, 1);
	for (s = src, c = copy; s != NULL; ) {
		void *ps, *pc;
		size_t ls, lc;

		assert_ptr_not_equal(s, c);
		assert_ok(doca_buf_get_head(s, &ps));
		assert_ok(doca_buf_get_head(c, &pc));
		assert_ptr_equal(ps, pc);
		assert_ok(doca_buf_get_data(s, &ps));
		assert_ok(doca_buf_get_data(c, &pc));
		assert_ptr_equal(ps, pc);
		assert_ok(doca_buf_get_data_len(s, &ls));
		assert_ok(doca_buf_get_data_len(c, &lc));
		assert_int_equal(ls, lc);
		assert_ok(doca_buf_get_next_in_list(s, &s));
		assert_ok(doca_buf_get_next_in_list(c, &c));
		assert_true((s == NULL) == (c == NULL));
	}
	/* Not enough room for another copy: nothing is taken. */
	assert_doca(DOCA_ERROR_NO_MEMORY, doca_buf_inventory_buf_dup(inv2, src, &s));
	assert_int_equal(num_free(inv2), 3);

	/* The copy is independent of the source. */
	assert_ok(doca_buf_dec_refcount(src, NULL));
	assert_int_equal(num_free(inv), 16);
	assert_int_equal(mmap_bufs(m), 5);
	assert_ok(doca_buf_dec_refcount(copy, NULL));
	assert_int_equal(num_free(inv2), 8);
	assert_int_equal(mmap_bufs(m), 0);

	/* A released buf cannot be duplicated. */
	assert_doca(DOCA_ERROR_BAD_STATE, doca_buf_inventory_buf_dup(inv2, src, &copy));

	/* A lone buf duplicates to a lone buf. */
	assert_ok(doca_buf_inventory_buf_get_by_data(inv, m, mem, 8, &src));
	assert_ok(doca_buf_inventory_buf_dup(inv, src, &copy));
	assert_ok(doca_buf_get_list_len(copy, &len));
	assert_int_equal(len, 1);
	assert_ok(doca_buf_dec_refcount(copy, NULL));
	assert_ok(doca_buf_dec_refcount(src, NULL));

	assert_ok(doca_buf_inventory_destroy(inv2));
	assert_ok(doca_buf_inventory_destroy(inv));
	assert_ok(doca_mmap_destroy(m));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create),
		cmocka_unit_test(test_lifecycle),
		cmocka_unit_test(test_get_needs_started),
		cmocka_unit_test(test_get_ranges),
		cmocka_unit_test(test_exhaustion_and_in_use),
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_dup),
	};

	return cmocka_run_group_tests(tests, open_device, close_device);
}
