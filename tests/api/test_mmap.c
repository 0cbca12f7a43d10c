/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* doca_mmap through the public API: configuration rules, lifecycle, devices, accounting. */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_dev.h>
#include <doca_mmap.h>

#include "test_util.h"

static struct doca_dev *devs[2];
static struct doca_devinfo *infos[2];
static uint32_t num_devs;
static uint8_t mem[4096];

static int open_devices(void **state)
{
	struct doca_devinfo **list;
	uint32_t n;

	(void)state;
	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS || n == 0)
		return -1;
	num_devs = n < 2 ? n : 2;
	for (uint32_t i = 0; i < num_devs; i++) {
		infos[i] = list[i];
		if (doca_dev_open(list[i], &devs[i]) != DOCA_SUCCESS)
			return -1;
	}
	doca_devinfo_destroy_list(list);
	return 0;
}

static int close_devices(void **state)
{
	(void)state;
	for (uint32_t i = 0; i < num_devs; i++)
		doca_dev_close(devs[i]);
	return 0;
}

/* A started mmap over mem with devs[0]. */
static struct doca_mmap *started_mmap(void)
{
	struct doca_mmap *m;

	assert_ok(doca_mmap_create(&m));
	assert_ok(doca_mmap_add_dev(m, devs[0]));
	assert_ok(doca_mmap_set_memrange(m, mem, sizeof(mem)));
	assert_ok(doca_mmap_start(m));
	return m;
}

static void test_create_defaults(void **state)
{
	struct doca_mmap *m;
	union doca_data ud;
	uint32_t v;
	uint8_t flag;
	void *addr;
	size_t len;

	(void)state;
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_create(NULL));
	assert_ok(doca_mmap_create(&m));
	assert_ok(doca_mmap_get_max_num_devices(m, &v));
	assert_int_equal(v, 64);
	assert_ok(doca_mmap_get_num_bufs(m, &v));
	assert_int_equal(v, 0);
	assert_ok(doca_mmap_get_exported(m, &flag));
	assert_int_equal(flag, 0);
	assert_ok(doca_mmap_get_from_export(m, &flag));
	assert_int_equal(flag, 0);
	assert_ok(doca_mmap_get_user_data(m, &ud));
	assert_int_equal(ud.u64, 0);
	assert_doca(DOCA_ERROR_BAD_STATE, doca_mmap_get_memrange(m, &addr, &len));
	assert_ok(doca_mmap_destroy(m));
}

static void test_null_args(void **state)
{
	struct doca_mmap *m;
	union doca_data ud = { .u64 = 0 };
	uint32_t v;
	uint8_t flag;
	void *addr;
	size_t len;

	(void)state;
	assert_ok(doca_mmap_create(&m));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_destroy(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_start(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_stop(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_add_dev(NULL, devs[0]));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_add_dev(m, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_rm_dev(m, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_memrange(NULL, mem, 1));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_get_memrange(m, NULL, &len));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_get_memrange(m, &addr, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_user_data(NULL, ud));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_get_user_data(m, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_max_num_devices(NULL, 4));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_get_max_num_devices(m, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_get_num_bufs(m, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_get_exported(NULL, &flag));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_get_from_export(m, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_permissions(NULL, 0));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_free_cb(m, NULL, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_cap_is_export_pci_supported(NULL, &flag));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_mmap_cap_is_export_pci_supported(infos[0], NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_mmap_cap_is_create_from_export_pci_supported(NULL, &flag));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_dmabuf_memrange(NULL, 0, mem, 0, 1));
	(void)v;
	assert_ok(doca_mmap_destroy(m));
}

static void test_memrange_rules(void **state)
{
	struct doca_mmap *m;
	void *addr;
	size_t len;

	(void)state;
	assert_ok(doca_mmap_create(&m));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_memrange(m, NULL, 16));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_memrange(m, mem, 0));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_mmap_set_memrange(m, (void *)(UINTPTR_MAX - 10), 100));
	assert_ok(doca_mmap_set_memrange(m, mem, sizeof(mem)));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_mmap_set_memrange(m, mem, 16));
	assert_ok(doca_mmap_get_memrange(m, &addr, &len));
	assert_ptr_equal(addr, mem);
	assert_int_equal(len, sizeof(mem));
	assert_ok(doca_mmap_destroy(m));
}

static void test_dmabuf_memrange(void **state)
{
	struct doca_mmap *m;
	void *addr;
	size_t len;
	int fd, closed_fd;

	(void)state;
	fd = open("/dev/null", O_RDONLY);
	assert_true(fd >= 0);
	closed_fd = dup(fd);
	close(closed_fd);
	assert_ok(doca_mmap_create(&m));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_dmabuf_memrange(m, -1, mem, 0, 16));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_mmap_set_dmabuf_memrange(m, closed_fd, mem, 0, 16));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_dmabuf_memrange(m, fd, NULL, 0, 16));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_dmabuf_memrange(m, fd, mem, 0, 0));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_mmap_set_dmabuf_memrange(m, fd, mem, SIZE_MAX, 16));
	assert_ok(doca_mmap_set_dmabuf_memrange(m, fd, mem, 128, 256));
	assert_ok(doca_mmap_get_memrange(m, &addr, &len));
	assert_ptr_equal(addr, mem + 128);
	assert_int_equal(len, 256);
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_mmap_set_dmabuf_memrange(m, fd, mem, 0, 16));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_mmap_set_memrange(m, mem, 16));
	assert_ok(doca_mmap_start(m));
	assert_ok(doca_mmap_destroy(m));
	close(fd);
}

static void test_permissions(void **state)
{
	struct doca_mmap *m;

	(void)state;
	assert_ok(doca_mmap_create(&m));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_permissions(m, 1u << 7));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_permissions(m, 0x80000000u));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_ONLY |
	                                                 DOCA_ACCESS_FLAG_PCI_READ_WRITE));
	assert_ok(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_ONLY));
	assert_ok(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE |
	                                               DOCA_ACCESS_FLAG_PCI_READ_WRITE |
	                                               DOCA_ACCESS_FLAG_PCI_RELAXED_ORDERING));
	assert_ok(doca_mmap_set_permissions(
	        m, DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE |
	                   DOCA_ACCESS_FLAG_RDMA_ATOMIC | DOCA_ACCESS_FLAG_PCI_READ_ONLY));
	assert_ok(doca_mmap_destroy(m));
}

static void test_start_stop(void **state)
{
	struct doca_mmap *m;

	(void)state;
	assert_ok(doca_mmap_create(&m));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_mmap_start(m)); /* no range yet */
	assert_doca(DOCA_ERROR_BAD_STATE, doca_mmap_stop(m));  /* not started */
	assert_ok(doca_mmap_set_memrange(m, mem, sizeof(mem)));
	assert_ok(doca_mmap_start(m));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_mmap_start(m));
	assert_ok(doca_mmap_stop(m));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_mmap_stop(m));
	assert_ok(doca_mmap_start(m));   /* restart keeps the range */
	assert_ok(doca_mmap_destroy(m)); /* stops implicitly */
}

static void test_setters_on_started(void **state)
{
	struct doca_mmap *m = started_mmap();
	union doca_data ud = { .u64 = 7 };
	int fd = open("/dev/null", O_RDONLY);

	(void)state;
	assert_true(fd >= 0);
	assert_doca(DOCA_ERROR_BAD_STATE, doca_mmap_set_memrange(m, mem, 16));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_mmap_set_dmabuf_memrange(m, fd, mem, 0, 16));
	close(fd);
	assert_doca(DOCA_ERROR_BAD_STATE, doca_mmap_set_permissions(m, 0));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_mmap_set_user_data(m, ud));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_mmap_set_max_num_devices(m, 8));
	assert_doca(DOCA_ERROR_BAD_STATE,
	            doca_mmap_set_free_cb(m, (doca_mmap_memrange_free_cb_t *)0x1, NULL));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_mmap_add_dev(m, devs[num_devs - 1]));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_mmap_rm_dev(m, devs[0]));
	assert_ok(doca_mmap_stop(m));
	/* Once started, the device limit is fixed for good. */
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_mmap_set_max_num_devices(m, 8));
	assert_ok(doca_mmap_set_user_data(m, ud));
	assert_ok(doca_mmap_destroy(m));
}

static void test_devices(void **state)
{
	struct doca_mmap *m;
	uint32_t v;

	(void)state;
	assert_ok(doca_mmap_create(&m));
	assert_doca(DOCA_ERROR_NOT_FOUND, doca_mmap_rm_dev(m, devs[0]));
	assert_ok(doca_mmap_add_dev(m, devs[0]));
	assert_doca(DOCA_ERROR_ALREADY_EXIST, doca_mmap_add_dev(m, devs[0]));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_set_max_num_devices(m, 0));
	assert_ok(doca_mmap_set_max_num_devices(m, 1));
	assert_ok(doca_mmap_get_max_num_devices(m, &v));
	assert_int_equal(v, 1);
	if (num_devs > 1) {
		assert_doca(DOCA_ERROR_NO_MEMORY, doca_mmap_add_dev(m, devs[1]));
		assert_ok(doca_mmap_set_max_num_devices(m, 2));
		assert_ok(doca_mmap_add_dev(m, devs[1]));
		assert_doca(DOCA_ERROR_INVALID_VALUE,
		            doca_mmap_set_max_num_devices(m, 1)); /* below 2 added */
		assert_ok(doca_mmap_rm_dev(m, devs[1]));
		assert_doca(DOCA_ERROR_NOT_FOUND, doca_mmap_rm_dev(m, devs[1]));
	}
	assert_ok(doca_mmap_rm_dev(m, devs[0]));
	assert_ok(doca_mmap_add_dev(m, devs[0])); /* re-add after removal */
	assert_ok(doca_mmap_destroy(m));
}

static int free_cb_calls;
static void *free_cb_addr;
static size_t free_cb_len;
static void *free_cb_cookie;

static void count_free(void *addr, size_t len, void *cookie)
{
	free_cb_calls++;
	free_cb_addr = addr;
	free_cb_len = len;
	free_cb_cookie = cookie;
}

static void other_free(void *addr, size_t len, void *cookie)
{
	(void)addr;
	(void)len;
	(void)cookie;
	free_cb_calls += 100;
}

static void test_free_cb(void **state)
{
	struct doca_mmap *m;
	int cookie;

	(void)state;
	/* Set once, started: runs on destroy with the range and cookie. */
	free_cb_calls = 0;
	assert_ok(doca_mmap_create(&m));
	assert_ok(doca_mmap_set_memrange(m, mem, 100));
	assert_ok(doca_mmap_set_free_cb(m, count_free, &cookie));
	assert_ok(doca_mmap_start(m));
	assert_ok(doca_mmap_stop(m));
	assert_int_equal(free_cb_calls, 0);
	assert_ok(doca_mmap_destroy(m));
	assert_int_equal(free_cb_calls, 1);
	assert_ptr_equal(free_cb_addr, mem);
	assert_int_equal(free_cb_len, 100);
	assert_ptr_equal(free_cb_cookie, &cookie);

	/* Never started: not run. */
	free_cb_calls = 0;
	assert_ok(doca_mmap_create(&m));
	assert_ok(doca_mmap_set_memrange(m, mem, 100));
	assert_ok(doca_mmap_set_free_cb(m, count_free, NULL));
	assert_ok(doca_mmap_destroy(m));
	assert_int_equal(free_cb_calls, 0);

	/* Changed: not run at all. */
	assert_ok(doca_mmap_create(&m));
	assert_ok(doca_mmap_set_memrange(m, mem, 100));
	assert_ok(doca_mmap_set_free_cb(m, count_free, NULL));
	assert_ok(doca_mmap_set_free_cb(m, other_free, NULL));
	assert_ok(doca_mmap_start(m));
	assert_ok(doca_mmap_destroy(m));
	assert_int_equal(free_cb_calls, 0);
}

static void test_user_data(void **state)
{
	struct doca_mmap *m;
	union doca_data in = { .u64 = 0x1234567890abcdefull }, out;

	(void)state;
	assert_ok(doca_mmap_create(&m));
	assert_ok(doca_mmap_set_user_data(m, in));
	assert_ok(doca_mmap_get_user_data(m, &out));
	assert_int_equal(out.u64, in.u64);
	assert_ok(doca_mmap_destroy(m));
}

static void test_bufs_block_stop_destroy(void **state)
{
	struct doca_mmap *m = started_mmap();
	struct doca_buf_inventory *inv;
	struct doca_buf *b1, *b2;
	uint32_t n;

	(void)state;
	assert_ok(doca_buf_inventory_create(4, &inv));
	assert_ok(doca_buf_inventory_start(inv));
	assert_ok(doca_buf_inventory_buf_get_by_addr(inv, m, mem, 64, &b1));
	assert_ok(doca_buf_inventory_buf_get_by_data(inv, m, mem + 64, 64, &b2));
	assert_ok(doca_mmap_get_num_bufs(m, &n));
	assert_int_equal(n, 2);
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_mmap_stop(m));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_mmap_destroy(m));
	assert_ok(doca_buf_dec_refcount(b1, NULL));
	assert_ok(doca_mmap_get_num_bufs(m, &n));
	assert_int_equal(n, 1);
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_mmap_destroy(m));
	assert_ok(doca_buf_dec_refcount(b2, NULL));
	assert_ok(doca_mmap_get_num_bufs(m, &n));
	assert_int_equal(n, 0);
	assert_ok(doca_mmap_stop(m));
	assert_ok(doca_mmap_destroy(m));
	assert_ok(doca_buf_inventory_destroy(inv));
}

static void test_caps(void **state)
{
	uint8_t v = 0xff;

	(void)state;
	for (uint32_t i = 0; i < num_devs; i++) {
		v = 0xff;
		assert_ok(doca_mmap_cap_is_export_pci_supported(infos[i], &v));
		assert_true(v == 0 || v == 1);
		v = 0xff;
		assert_ok(doca_mmap_cap_is_create_from_export_pci_supported(
		        doca_dev_as_devinfo(devs[i]), &v));
		assert_true(v == 0 || v == 1);
	}
}

/* Starts an mmap over [base, +len) while no descriptor can be opened (EMFILE). */
static doca_error_t start_without_fds(void *base, size_t len, struct doca_mmap **out)
{
	struct rlimit old, low;
	int fds[64], n = 0;
	doca_error_t r;

	assert_ok(doca_mmap_create(out));
	assert_ok(doca_mmap_set_memrange(*out, base, len));
	assert_ok(doca_mmap_add_dev(*out, devs[0]));
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = (rlim_t)dup(0); /* the lowest free descriptor: none is free after it */
	close((int)low.rlim_cur);
	low.rlim_cur += 8;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	while (n < 64 && (fds[n] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
		n++;
	assert_true(n < 64); /* EMFILE reached */
	r = doca_mmap_start(*out);
	while (n > 0)
		close(fds[--n]);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	return r;
}

/*
 * Issue #19 item 15: with no descriptor left, /proc/self/maps cannot be opened; the range check
 * falls back to mincore and still refuses a range with a hole (it used to accept anything).
 */
static void test_range_check_without_fds(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint8_t *p =
	        mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct doca_mmap *m;

	(void)state;
	assert_true(p != MAP_FAILED);
	assert_doca(DOCA_SUCCESS, start_without_fds(p, 3 * page, &m));
	assert_ok(doca_mmap_stop(m));
	assert_ok(doca_mmap_destroy(m));
	assert_int_equal(munmap(p + page, page), 0);
	assert_doca(DOCA_ERROR_INVALID_VALUE, start_without_fds(p, 3 * page, &m));
	assert_ok(doca_mmap_destroy(m));
	munmap(p, page);
	munmap(p + 2 * page, page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_defaults),
		cmocka_unit_test(test_null_args),
		cmocka_unit_test(test_memrange_rules),
		cmocka_unit_test(test_dmabuf_memrange),
		cmocka_unit_test(test_permissions),
		cmocka_unit_test(test_start_stop),
		cmocka_unit_test(test_setters_on_started),
		cmocka_unit_test(test_devices),
		cmocka_unit_test(test_free_cb),
		cmocka_unit_test(test_user_data),
		cmocka_unit_test(test_bufs_block_stop_destroy),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_range_check_without_fds),
	};

	return cmocka_run_group_tests(tests, open_devices, close_devices);
}
