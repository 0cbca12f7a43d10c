/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* White-box checks of the memory objects: writability, device holds, from-export mmaps. */
#include <stdlib.h>

#include "core/memory/memory.h"
#include "core/device/device.h"
#include "test_util.h"

static uint8_t mem[1024];

static void test_writable(void **state)
{
	struct doca_mmap *m;
	struct odma_tp_remote *r;

	(void)state;
	assert_ok(doca_mmap_create(&m));
	assert_true(odma_mmap_writable_quiet(m)); /* default LOCAL_READ_WRITE */
	/* PCI_READ_WRITE alone: a tolerated local write, quiet only once its WARNING is out */
	assert_ok(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_ONLY |
	                                               DOCA_ACCESS_FLAG_PCI_READ_WRITE));
	assert_int_equal(odma_perm_local_write(m->perms), ODMA_PERM_TOLERATED);
	assert_false(odma_mmap_writable_quiet(m));
	assert_ok(odma_mmap_check_dst(m, NULL));
	assert_true(odma_mmap_writable_quiet(m));
	assert_ok(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_ONLY));
	assert_int_equal(odma_perm_local_write(m->perms), ODMA_PERM_NO);
	assert_doca(DOCA_ERROR_NOT_PERMITTED, odma_mmap_check_dst(m, NULL));
	/* A from-export mmap follows the exporter's permissions (kept in its perms). */
	r = calloc(1, sizeof(*r));
	assert_non_null(r);
	m->from_export = true;
	m->remote = r;
	m->perms = DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_LOCAL_READ_WRITE;
	assert_false(odma_mmap_writable_quiet(m));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, odma_mmap_check_dst(m, NULL));
	m->perms = DOCA_ACCESS_FLAG_PCI_READ_WRITE;
	assert_true(odma_mmap_writable_quiet(m));
	assert_ok(odma_mmap_check_dst(m, NULL));
	/* a PCI import takes its writes under PCI_READ_WRITE only, an RDMA one under RDMA_WRITE */
	m->perms = DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_RDMA_WRITE;
	assert_false(odma_mmap_writable_quiet(m));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, odma_mmap_check_dst(m, NULL));
	m->rdma_import = true;
	assert_true(odma_mmap_writable_quiet(m));
	m->perms = DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_PCI_READ_WRITE;
	assert_false(odma_mmap_writable_quiet(m));
	assert_ok(doca_mmap_destroy(m)); /* frees the remote description */
}

static void test_perm_names(void **state)
{
	char b[ODMA_PERM_NAMES_LEN];

	(void)state;
	assert_string_equal(odma_perm_names(0, b, sizeof(b)), "LOCAL_READ_ONLY");
	assert_string_equal(odma_perm_names(DOCA_ACCESS_FLAG_PCI_READ_ONLY, b, sizeof(b)),
	                    "LOCAL_READ_ONLY|PCI_READ_ONLY");
	assert_string_equal(
	        odma_perm_names(DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE, b,
	                        sizeof(b)),
	        "LOCAL_READ_WRITE|RDMA_WRITE");
	assert_string_equal(odma_perm_names(0x7f, b, sizeof(b)),
	                    "LOCAL_READ_WRITE|RDMA_READ|RDMA_WRITE|RDMA_ATOMIC|PCI_READ_ONLY|"
	                    "PCI_READ_WRITE|PCI_RELAXED_ORDERING");
	assert_string_equal(odma_perm_names(0x100, b, sizeof(b)), "LOCAL_READ_ONLY|0x100");
	/* a short buffer is cut, never overrun */
	assert_string_equal(odma_perm_names(DOCA_ACCESS_FLAG_PCI_READ_ONLY, b, 6), "LOCAL");
}

static void test_dev_holds(void **state)
{
	struct doca_dev *dev = tu_open_dev(NULL);
	struct doca_mmap *a, *b;
	uint32_t base = dev->users;

	(void)state;
	assert_ok(doca_mmap_create(&a));
	assert_ok(doca_mmap_create(&b));
	assert_ok(doca_mmap_add_dev(a, dev));
	assert_ok(doca_mmap_add_dev(b, dev));
	assert_int_equal(dev->users, base + 2);
	assert_ok(doca_mmap_rm_dev(a, dev));
	assert_int_equal(dev->users, base + 1);
	assert_ok(doca_mmap_destroy(b)); /* releases what it still holds */
	assert_int_equal(dev->users, base);
	assert_ok(doca_mmap_destroy(a));
	assert_int_equal(dev->users, base);
	assert_ok(doca_dev_close(dev));
}

/* A from-export mmap is usable for bufs without doca_mmap_start, and refuses configuration. */
static void test_from_export_rules(void **state)
{
	struct doca_buf_inventory *inv;
	struct doca_mmap *m;
	struct doca_buf *b;
	uint8_t flag;

	(void)state;
	assert_ok(doca_mmap_create(&m));
	m->from_export = true;
	m->addr = mem;
	m->len = sizeof(mem);
	m->range_set = true;
	assert_ok(doca_mmap_get_from_export(m, &flag));
	assert_int_equal(flag, 1);
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_mmap_set_permissions(m, 0));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_mmap_set_memrange(m, mem, 8));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_mmap_set_max_num_devices(m, 2));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_mmap_start(m));
	/* a stop of an import revokes what it re-exported (nothing here) */
	assert_ok(doca_mmap_stop(m));
	assert_ok(doca_buf_inventory_create(2, &inv));
	assert_ok(doca_buf_inventory_start(inv));
	assert_ok(doca_buf_inventory_buf_get_by_addr(inv, m, mem, 64, &b));
	assert_ok(doca_buf_dec_refcount(b, NULL));
	assert_ok(doca_buf_inventory_destroy(inv));
	assert_ok(doca_mmap_destroy(m));
}

/*
 * buf_dup refuses a source whose mmap is not started (reachable only white-box for a local mmap).
 */
static void test_dup_src_mmap_stopped(void **state)
{
	struct doca_buf_inventory *inv;
	struct doca_mmap *m;
	struct doca_buf *b, *copy = NULL;

	(void)state;
	assert_ok(doca_mmap_create(&m));
	assert_ok(doca_mmap_set_memrange(m, mem, sizeof(mem)));
	assert_ok(doca_mmap_start(m));
	assert_ok(doca_buf_inventory_create(2, &inv));
	assert_ok(doca_buf_inventory_start(inv));
	assert_ok(doca_buf_inventory_buf_get_by_data(inv, m, mem, 64, &b));
	m->started = false;
	assert_doca(DOCA_ERROR_BAD_STATE, doca_buf_inventory_buf_dup(inv, b, &copy));
	assert_null(copy);
	m->started = true;
	/* Non-head elements keep the documented layout. */
	assert_ok(doca_buf_inventory_buf_dup(inv, b, &copy));
	assert_ptr_equal(copy->list_head, copy);
	assert_ptr_equal(copy->last, copy);
	assert_int_equal(copy->list_len, 1);
	assert_ok(doca_buf_chain_list(b, copy));
	assert_ptr_equal(copy->list_head, b);
	assert_null(copy->last);
	assert_int_equal(copy->list_len, 0);
	assert_ptr_equal(b->last, copy);
	assert_int_equal(b->list_len, 2);
	assert_ok(doca_buf_dec_refcount(b, NULL));
	assert_int_equal(atomic_load(&m->num_bufs), 0);
	assert_ok(doca_buf_inventory_destroy(inv));
	assert_ok(doca_mmap_destroy(m));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writable),
		cmocka_unit_test(test_perm_names),
		cmocka_unit_test(test_dev_holds),
		cmocka_unit_test(test_from_export_rules),
		cmocka_unit_test(test_dup_src_mmap_stopped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
