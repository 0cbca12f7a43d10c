/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * DOCA Core calls real programs make beyond NVIDIA's samples: buf reuse, mmap thread safety
 * (its rules; the threads are in test_mmap_threads.c), representor netdev names and VHCA ids.
 */
#include <stdlib.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_dev.h>
#include <doca_mmap.h>

#include "fixture.h"
#include "test_util.h"

static uint8_t mem[4096], other[4096];

static struct doca_mmap *started_mmap(void *addr, size_t len)
{
	struct doca_mmap *m;

	assert_ok(doca_mmap_create(&m));
	assert_ok(doca_mmap_set_memrange(m, addr, len));
	assert_ok(doca_mmap_start(m));
	return m;
}

static void reuse_rules(void **state)
{
	struct doca_buf_inventory *inv;
	struct doca_mmap *m = started_mmap(mem, sizeof(mem));
	struct doca_buf *b, *b2, *next;
	void *p;
	size_t n;
	uint16_t rc;
	uint32_t nb;

	(void)state;
	assert_ok(doca_buf_inventory_create(4, &inv));
	assert_ok(doca_buf_inventory_start(inv));
	assert_ok(doca_buf_inventory_buf_get_by_data(inv, m, mem, 16, &b));
	assert_ok(doca_buf_inc_refcount(b, NULL));
	/* by_addr: an empty window; refcount, inventory and mmap count unchanged */
	assert_ok(doca_buf_inventory_buf_reuse_by_addr(b, mem + 1024, 512));
	assert_ok(doca_buf_get_head(b, &p));
	assert_ptr_equal(p, mem + 1024);
	assert_ok(doca_buf_get_data(b, &p));
	assert_ptr_equal(p, mem + 1024);
	assert_ok(doca_buf_get_len(b, &n));
	assert_int_equal(n, 512);
	assert_ok(doca_buf_get_data_len(b, &n));
	assert_int_equal(n, 0);
	assert_ok(doca_buf_get_refcount(b, &rc));
	assert_int_equal(rc, 2);
	assert_ok(doca_mmap_get_num_bufs(m, &nb));
	assert_int_equal(nb, 1);
	/* by_data: a full window */
	assert_ok(doca_buf_inventory_buf_reuse_by_data(b, mem + 100, 200));
	assert_ok(doca_buf_get_head(b, &p));
	assert_ptr_equal(p, mem + 100);
	assert_ok(doca_buf_get_data_len(b, &n));
	assert_int_equal(n, 200);
	/* by_args: a data segment inside the window */
	assert_ok(doca_buf_inventory_buf_reuse_by_args(b, mem, 4096, mem + 10, 20));
	assert_ok(doca_buf_get_data(b, &p));
	assert_ptr_equal(p, mem + 10);
	/* the whole range is fine, one byte past it is not */
	assert_ok(doca_buf_inventory_buf_reuse_by_addr(b, mem, sizeof(mem)));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_buf_inventory_buf_reuse_by_addr(b, mem, sizeof(mem) + 1));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_reuse_by_addr(b, other, 16));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_reuse_by_addr(b, mem, 0));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_buf_inventory_buf_reuse_by_args(b, mem, 16, mem + 8, 16));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_buf_inventory_buf_reuse_by_args(b, mem + 16, 16, mem, 4));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_reuse_by_addr(NULL, mem, 16));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_buf_inventory_buf_reuse_by_addr(b, NULL, 16));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_buf_inventory_buf_reuse_by_args(b, mem, 16, NULL, 0));
	/* a failed reuse changed nothing */
	assert_ok(doca_buf_get_len(b, &n));
	assert_int_equal(n, sizeof(mem));
	/* a list's head and its element are re-pointed in place: the list stays whole */
	assert_ok(doca_buf_inventory_buf_get_by_data(inv, m, mem + 2048, 16, &b2));
	assert_ok(doca_buf_dec_refcount(b, NULL)); /* back to 1: chainable */
	assert_ok(doca_buf_chain_list(b, b2));
	assert_ok(doca_buf_inventory_buf_reuse_by_data(b, mem, 16));
	assert_ok(doca_buf_inventory_buf_reuse_by_data(b2, mem + 64, 32));
	assert_ok(doca_buf_get_list_len(b, &nb));
	assert_int_equal(nb, 2);
	assert_ok(doca_buf_get_data_len(b2, &n));
	assert_int_equal(n, 32);
	assert_ok(doca_buf_get_next_in_list(b, &next));
	assert_ptr_equal(next, b2);
	assert_ok(doca_buf_unchain_list(b, b2));
	assert_ok(doca_buf_inventory_buf_reuse_by_addr(b2, mem, 16));
	assert_ok(doca_buf_dec_refcount(b2, NULL));
	/* a released buf is refused */
	assert_ok(doca_buf_dec_refcount(b, NULL));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_buf_inventory_buf_reuse_by_addr(b, mem, 16));
	assert_ok(doca_buf_inventory_destroy(inv));
	assert_ok(doca_mmap_destroy(m));
}

/* The pattern of NVIDIA's storage apps: one task, its bufs re-pointed before each resubmit. */
static void reuse_between_submits(void **state)
{
	struct doca_buf *s, *d;
	struct doca_task *t;
	struct fx fx;

	(void)state;
	fx_init(&fx, 4096, 2, true);
	fx.free_in_cb = false;
	s = fx_src_buf(&fx, 0, 64);
	d = fx_dst_buf(&fx, 0, 64);
	t = fx_task(&fx, s, d, 0);
	for (unsigned int i = 0; i < 8; i++) {
		size_t off = 256 * i;

		fx_pattern(fx.src + off, 128, i + 3);
		assert_ok(doca_buf_inventory_buf_reuse_by_data(s, fx.src + off, 128));
		assert_ok(doca_buf_inventory_buf_reuse_by_addr(d, fx.dst + off, 128));
		assert_ok(doca_task_submit(t));
		assert_true(fx_progress_until(&fx, i + 1, 1000000));
		assert_int_equal(fx.last_status, DOCA_SUCCESS);
		assert_memory_equal(fx.dst + off, fx.src + off, 128);
	}
	doca_task_free(t);
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	fx_fini(&fx);
}

/*
 * NVIDIA's 3.3 storage applications (a recover task's source): a two-element list whose
 * elements are re-pointed, in place, before each submit of one task; every copy moves the
 * bytes the elements point at now.
 */
static void reuse_list_elements(void **state)
{
	struct doca_buf *s, *s2, *d;
	struct doca_task *t;
	struct fx fx;

	(void)state;
	fx_init(&fx, 8192, 2, true);
	if (fx.max_list_len < 2) {
		fx_fini(&fx);
		skip(); /* the device copies no lists */
	}
	fx.free_in_cb = false;
	s = fx_src_buf(&fx, 0, 1);
	s2 = fx_src_buf(&fx, 1, 1);
	assert_ok(doca_buf_chain_list(s, s2));
	d = fx_dst_buf(&fx, 0, 256);
	t = fx_task(&fx, s, d, 0);
	for (unsigned int i = 0; i < 4; i++) {
		size_t off = 1024 * i;

		fx_pattern(fx.src + off, 256, i + 7);
		assert_ok(doca_buf_inventory_buf_reuse_by_data(s, fx.src + off, 64));
		assert_ok(doca_buf_inventory_buf_reuse_by_data(s2, fx.src + off + 64, 192));
		assert_ok(doca_buf_inventory_buf_reuse_by_addr(d, fx.dst + off, 256));
		assert_ok(doca_task_submit(t));
		assert_true(fx_progress_until(&fx, i + 1, 1000000));
		assert_int_equal(fx.last_status, DOCA_SUCCESS);
		assert_memory_equal(fx.dst + off, fx.src + off, 256);
	}
	doca_task_free(t);
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	fx_fini(&fx);
}

static void thread_safety_rules(void **state)
{
	struct doca_buf_inventory *inv;
	struct doca_mmap *m;
	struct doca_buf *b;
	uint32_t nb;

	(void)state;
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_enable_thread_safety(NULL));
	assert_ok(doca_buf_inventory_create(4, &inv));
	assert_ok(doca_buf_inventory_start(inv));
	/* started: refused; bufs pointing into it: refused */
	m = started_mmap(mem, sizeof(mem));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_mmap_enable_thread_safety(m));
	assert_ok(doca_mmap_stop(m));
	/* stopped, no bufs: accepted, twice */
	assert_ok(doca_mmap_enable_thread_safety(m));
	assert_ok(doca_mmap_enable_thread_safety(m));
	assert_ok(doca_mmap_start(m));
	/* the price: bufs are not counted, stop and destroy do not wait for them */
	assert_ok(doca_buf_inventory_buf_get_by_data(inv, m, mem, 16, &b));
	assert_ok(doca_mmap_get_num_bufs(m, &nb));
	assert_int_equal(nb, 0);
	assert_ok(doca_mmap_stop(m));
	assert_ok(doca_mmap_destroy(m));
	/* the buf outlives its mmap; returning it must not touch the mmap (ASan would see it) */
	assert_ok(doca_buf_dec_refcount(b, NULL));
	assert_ok(doca_buf_inventory_destroy(inv));
}

/* NVIDIA's storage apps enable it on an mmap created from an export, never started. */
static void thread_safety_from_export(void **state)
{
	struct doca_dev *dev = tu_open_dev("b1:00.0"), *dpu = tu_open_dev("03:00.0");
	struct doca_mmap *m, *imp;
	const void *desc;
	size_t len;

	(void)state;
	assert_ok(doca_mmap_create(&m));
	assert_ok(doca_mmap_add_dev(m, dev));
	assert_ok(doca_mmap_set_memrange(m, mem, sizeof(mem)));
	assert_ok(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_WRITE));
	assert_ok(doca_mmap_start(m));
	if (doca_mmap_export_pci(m, dev, &desc, &len) != DOCA_SUCCESS) {
		print_message("this device cannot export over PCI; import not tested\n");
	} else {
		struct doca_buf_inventory *inv;
		struct doca_buf *b;

		assert_ok(doca_mmap_create_from_export(NULL, desc, len, dpu, &imp));
		assert_ok(doca_buf_inventory_create(2, &inv));
		assert_ok(doca_buf_inventory_start(inv));
		/* a buf points into it: refused */
		assert_ok(doca_buf_inventory_buf_get_by_addr(inv, imp, mem, 64, &b));
		assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_mmap_enable_thread_safety(imp));
		assert_ok(doca_buf_dec_refcount(b, NULL));
		assert_ok(doca_mmap_enable_thread_safety(imp));
		assert_ok(doca_buf_inventory_buf_get_by_addr(inv, imp, mem, 64, &b));
		assert_ok(doca_buf_dec_refcount(b, NULL));
		assert_ok(doca_mmap_destroy(imp));
		assert_ok(doca_buf_inventory_destroy(inv));
	}
	assert_ok(doca_mmap_destroy(m));
	assert_ok(doca_dev_close(dev));
	assert_ok(doca_dev_close(dpu));
}

static struct doca_devinfo *find_dev(struct doca_devinfo **list, uint32_t n, const char *pci)
{
	uint8_t is;

	for (uint32_t i = 0; i < n; i++)
		if (doca_devinfo_is_equal_pci_addr(list[i], pci, &is) == DOCA_SUCCESS && is)
			return list[i];
	return NULL;
}

static void rep_iface_and_vhca(void **state)
{
	static const char *const names[] = { "pf0hpf", "pf0vf0", "pf0vf1", "en3f0pf0sf0" };
	struct doca_devinfo **list, *info;
	struct doca_devinfo_rep **reps, **reps1;
	struct doca_dev *dpu, *dpu1;
	char name[DOCA_DEVINFO_IFACE_NAME_SIZE];
	uint32_t n, nr, nr1;
	uint16_t id, parent, parent1;

	(void)state;
	unsetenv("ODMA_SYSTEM");
	unsetenv("ODMA_SIDE");
	assert_ok(doca_devinfo_create_list(&list, &n));
	info = find_dev(list, n, "03:00.0");
	assert_non_null(info);
	assert_ok(doca_dev_open(info, &dpu));
	assert_ok(doca_dev_open(find_dev(list, n, "03:00.1"), &dpu1));
	assert_ok(doca_devinfo_get_vhca_id(info, &parent));
	assert_ok(doca_devinfo_get_vhca_id(find_dev(list, n, "03:00.1"), &parent1));
	assert_ok(doca_devinfo_rep_create_list(dpu, DOCA_DEVINFO_REP_FILTER_ALL, &reps, &nr));
	assert_ok(doca_devinfo_rep_create_list(dpu1, DOCA_DEVINFO_REP_FILTER_ALL, &reps1, &nr1));
	assert_true(nr >= 5);
	for (uint32_t i = 0; i < 4; i++) {
		memset(name, 'x', sizeof(name));
		assert_ok(doca_devinfo_rep_get_iface_name(reps[i], name, sizeof(name)));
		assert_string_equal(name, names[i]);
		assert_ok(doca_devinfo_rep_get_vhca_id(reps[i], &id));
		assert_int_equal(id, 0x100 * (parent + 1) + i);
	}
	/* the emulated PF has no netdev */
	assert_doca(DOCA_ERROR_OPERATING_SYSTEM,
	            doca_devinfo_rep_get_iface_name(reps[4], name, sizeof(name)));
	assert_ok(doca_devinfo_rep_get_vhca_id(reps[4], &id));
	assert_int_equal(id, 0x100 * (parent + 1) + 4);
	/* port 1's representors */
	assert_ok(doca_devinfo_rep_get_iface_name(reps1[0], name, sizeof(name)));
	assert_string_equal(name, "pf1hpf");
	assert_ok(doca_devinfo_rep_get_iface_name(reps1[1], name, sizeof(name)));
	assert_string_equal(name, "pf1vf0");
	assert_ok(doca_devinfo_rep_get_vhca_id(reps1[0], &id));
	assert_int_equal(id, 0x100 * (parent1 + 1));
	assert_true(parent1 != parent);
	/* argument rows */
	assert_doca(
	        DOCA_ERROR_INVALID_VALUE,
	        doca_devinfo_rep_get_iface_name(reps[0], name, DOCA_DEVINFO_IFACE_NAME_SIZE - 1));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_devinfo_rep_get_iface_name(reps[0], NULL, sizeof(name)));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_devinfo_rep_get_iface_name(NULL, name, sizeof(name)));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_devinfo_rep_get_iface_name((struct doca_devinfo_rep *)(void *)info, name,
	                                            sizeof(name)));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_get_vhca_id(reps[0], NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_get_vhca_id(NULL, &id));
	assert_ok(doca_devinfo_rep_destroy_list(reps));
	assert_ok(doca_devinfo_rep_destroy_list(reps1));
	assert_ok(doca_dev_close(dpu));
	assert_ok(doca_dev_close(dpu1));
	assert_ok(doca_devinfo_destroy_list(list));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reuse_rules),
		cmocka_unit_test(reuse_between_submits),
		cmocka_unit_test(reuse_list_elements),
		cmocka_unit_test(thread_safety_rules),
		cmocka_unit_test(thread_safety_from_export),
		cmocka_unit_test(rep_iface_and_vhca),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
