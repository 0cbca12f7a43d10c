/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Black-box tests of doca_dev.h on the default system (bf3, both sides visible). */
#include <pthread.h>
#include <string.h>

#include <doca_dev.h>
#include <doca_log.h>

#include "test_util.h"

static struct doca_devinfo **g_list;
static uint32_t g_n;

static struct doca_devinfo *find(const char *pci)
{
	uint8_t eq = 0;

	for (uint32_t i = 0; i < g_n; i++) {
		assert_ok(doca_devinfo_is_equal_pci_addr(g_list[i], pci, &eq));
		if (eq)
			return g_list[i];
	}
	fail_msg("no device %s", pci);
	return NULL;
}

static void list_bf3(void **state)
{
	static const char *const pcis[] = { "0000:b1:00.0", "0000:b1:00.1", "0000:03:00.0",
		                            "0000:03:00.1" };
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];

	(void)state;
	assert_int_equal(g_n, 4);
	assert_null(g_list[4]);
	for (uint32_t i = 0; i < 4; i++) {
		assert_ok(doca_devinfo_get_pci_addr_str(g_list[i], pci));
		assert_string_equal(pci, pcis[i]);
	}
}

static void pci_compare(void **state)
{
	struct doca_devinfo *d = find("03:00.0");
	uint8_t eq = 7;

	(void)state;
	assert_ok(doca_devinfo_is_equal_pci_addr(d, "0000:03:00.0", &eq));
	assert_int_equal(eq, 1);
	assert_ok(doca_devinfo_is_equal_pci_addr(d, "03:00.0", &eq));
	assert_int_equal(eq, 1);
	assert_ok(doca_devinfo_is_equal_pci_addr(d, "0000:03:00.1", &eq));
	assert_int_equal(eq, 0);
	assert_ok(doca_devinfo_is_equal_pci_addr(d, "0001:03:00.0", &eq));
	assert_int_equal(eq, 0);
	assert_ok(doca_devinfo_is_equal_pci_addr(find("b1:00.0"), "B1:00.0", &eq));
	assert_int_equal(eq, 1);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_is_equal_pci_addr(d, "3:0.0", &eq));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_devinfo_is_equal_pci_addr(d, "0000:03:00.0 ", &eq));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_is_equal_pci_addr(d, "zz:00.0", &eq));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_is_equal_pci_addr(d, NULL, &eq));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_is_equal_pci_addr(d, "03:00.0", NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_is_equal_pci_addr(NULL, "03:00.0", &eq));
}

static void names_and_addrs(void **state)
{
	char ib[DOCA_DEVINFO_IBDEV_NAME_SIZE], ifc[DOCA_DEVINFO_IFACE_NAME_SIZE];
	uint8_t mac[DOCA_DEVINFO_MAC_ADDR_SIZE], v4[DOCA_DEVINFO_IPV4_ADDR_SIZE],
	        v6[DOCA_DEVINFO_IPV6_ADDR_SIZE];
	struct doca_devinfo *d = find("03:00.0"), *h = find("b1:00.1");
	enum doca_pci_func_type ft = DOCA_PCI_FUNC_TYPE_SF;
	uint16_t lid = 9, vhca = 0;
	uint64_t rate = 0;
	uint32_t sf;

	(void)state;
	assert_ok(doca_devinfo_get_ibdev_name(d, ib, sizeof(ib)));
	assert_string_equal(ib, "mlx5_0");
	assert_ok(doca_devinfo_get_iface_name(d, ifc, sizeof(ifc)));
	assert_string_equal(ifc, "p0");
	assert_ok(doca_devinfo_get_iface_name(h, ifc, sizeof(ifc)));
	assert_string_equal(ifc, "ens1f1np1");
	assert_ok(doca_devinfo_get_mac_addr(d, mac, sizeof(mac)));
	assert_int_equal(mac[0], 0xb8);
	assert_ok(doca_devinfo_get_ipv4_addr(d, v4, sizeof(v4)));
	assert_memory_equal(v4, "\xc0\xa8\x64\x02", 4);
	assert_ok(doca_devinfo_get_ipv6_addr(d, v6, sizeof(v6)));
	assert_int_equal(v6[0], 0xfe);
	assert_ok(doca_devinfo_get_lid(d, &lid));
	assert_int_equal(lid, 0);
	assert_ok(doca_devinfo_get_pci_func_type(d, &ft));
	assert_int_equal(ft, DOCA_PCI_FUNC_TYPE_PF);
	assert_doca(DOCA_ERROR_NOT_SUPPORTED, doca_devinfo_get_sf_index(d, &sf));
	assert_ok(doca_devinfo_get_active_rate(d, &rate));
	assert_true(rate == 200000000000ull);
	assert_ok(doca_devinfo_get_vhca_id(d, &vhca));
	assert_int_equal(vhca, 2);
}

static void buffer_checks(void **state)
{
	char ib[DOCA_DEVINFO_IFACE_NAME_SIZE];
	uint8_t a[16];
	struct doca_devinfo *d = g_list[0];
	struct doca_devinfo *bogus = (struct doca_devinfo *)(void *)a;

	(void)state;
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_devinfo_get_ibdev_name(d, ib, DOCA_DEVINFO_IBDEV_NAME_SIZE - 1));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_devinfo_get_iface_name(d, ib, DOCA_DEVINFO_IFACE_NAME_SIZE - 1));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_mac_addr(d, a, 5));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_ipv4_addr(d, a, 3));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_ipv6_addr(d, a, 15));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_ibdev_name(d, NULL, 64));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_iface_name(NULL, ib, sizeof(ib)));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_mac_addr(d, NULL, 6));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_ipv4_addr(NULL, a, 4));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_ipv6_addr(d, NULL, 16));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_pci_addr_str(d, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_pci_addr_str(bogus, ib));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_lid(d, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_lid(bogus, (uint16_t *)a));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_pci_func_type(d, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_sf_index(d, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_active_rate(d, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_get_vhca_id(NULL, (uint16_t *)a));
}

static void list_errors(void **state)
{
	struct doca_devinfo **l = (struct doca_devinfo **)0x1234, **l2;
	uint32_t n = 77;

	(void)state;
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_create_list(NULL, &n));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_create_list(&l, NULL));
	assert_ptr_equal(l, (void *)0x1234);
	assert_int_equal(n, 77);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_destroy_list(NULL));
	assert_ok(doca_devinfo_create_list(&l2, &n));
	assert_ok(doca_devinfo_destroy_list(l2));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_destroy_list(l2)); /* twice */
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_devinfo_destroy_list((struct doca_devinfo **)&n));
}

static void open_close_refcount(void **state)
{
	struct doca_devinfo **l;
	struct doca_dev *a, *b, *untouched = (struct doca_dev *)0x1;
	struct doca_devinfo *info;
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];
	uint32_t n;

	(void)state;
	assert_ok(doca_devinfo_create_list(&l, &n));
	assert_ok(doca_dev_open(l[2], &a));
	assert_ok(doca_dev_open(l[2], &b));
	assert_ptr_equal(a, b);
	assert_ok(doca_devinfo_destroy_list(l));
	info = doca_dev_as_devinfo(a); /* valid after destroy_list */
	assert_non_null(info);
	assert_ok(doca_devinfo_get_pci_addr_str(info, pci));
	assert_string_equal(pci, "0000:03:00.0");
	assert_ok(doca_dev_accelerate_resource_reclaim(a));
	assert_ok(doca_dev_close(b));
	assert_non_null(doca_dev_as_devinfo(a));
	assert_ok(doca_dev_close(a));
	assert_null(doca_dev_as_devinfo(a));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_dev_close(a)); /* closed too often */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_dev_accelerate_resource_reclaim(a));
	assert_ok(doca_dev_close(NULL)); /* NULL: a no-op (test_teardown.c) */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_dev_close((struct doca_dev *)pci));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_dev_open(NULL, &a));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_dev_open(info, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_dev_open((struct doca_devinfo *)pci, &untouched));
	assert_ptr_equal(untouched, (void *)0x1);
	assert_null(doca_dev_as_devinfo(NULL));
	/* reopen after the last close works and gives the same handle */
	assert_ok(doca_dev_open(info, &b));
	assert_ptr_equal(a, b);
	assert_ok(doca_dev_close(b));
}

static void representors(void **state)
{
	struct doca_dev *dpu, *host;
	struct doca_devinfo_rep **reps, **net, **emu, **both;
	struct doca_dev_rep *r1, *r2;
	char vuid[DOCA_DEVINFO_REP_VUID_SIZE], pci[DOCA_DEVINFO_REP_PCI_ADDR_SIZE];
	enum doca_pci_func_type ft;
	uint32_t n, nn, ne, nb;
	uint8_t v = 9;

	(void)state;
	assert_ok(doca_dev_open(find("03:00.0"), &dpu));
	assert_ok(doca_dev_open(find("b1:00.0"), &host));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED,
	            doca_devinfo_rep_create_list(host, DOCA_DEVINFO_REP_FILTER_ALL, &reps, &n));
	assert_ok(doca_devinfo_rep_cap_is_filter_all_supported(find("b1:00.0"), &v));
	assert_int_equal(v, 0);
	assert_ok(doca_devinfo_rep_cap_is_filter_net_supported(find("03:00.0"), &v));
	assert_int_equal(v, 1);
	assert_ok(doca_devinfo_rep_cap_is_filter_emulated_supported(find("03:00.0"), &v));
	assert_int_equal(v, 1);
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_devinfo_rep_cap_is_filter_all_supported(NULL, &v));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_devinfo_rep_cap_is_filter_net_supported(find("03:00.0"), NULL));

	assert_ok(doca_devinfo_rep_create_list(dpu, DOCA_DEVINFO_REP_FILTER_ALL, &reps, &n));
	assert_ok(doca_devinfo_rep_create_list(dpu, DOCA_DEVINFO_REP_FILTER_NET, &net, &nn));
	assert_ok(doca_devinfo_rep_create_list(dpu, DOCA_DEVINFO_REP_FILTER_EMULATED, &emu, &ne));
	assert_ok(doca_devinfo_rep_create_list(
	        dpu, DOCA_DEVINFO_REP_FILTER_NET | DOCA_DEVINFO_REP_FILTER_EMULATED, &both, &nb));
	assert_int_equal(n, 5);
	assert_int_equal(nn, 4);
	assert_int_equal(ne, 1);
	assert_int_equal(nb, 5);
	assert_null(reps[n]);
	assert_ok(doca_devinfo_rep_get_is_hotplug(emu[0], &v));
	assert_int_equal(v, 1);
	assert_ok(doca_devinfo_rep_get_is_hotplug(reps[0], &v));
	assert_int_equal(v, 0);
	assert_ok(doca_devinfo_rep_get_pci_addr_str(reps[0], pci));
	assert_string_equal(pci, "0000:b1:00.0");
	assert_ok(doca_devinfo_rep_is_equal_pci_addr(reps[0], "b1:00.0", &v));
	assert_int_equal(v, 1);
	assert_ok(doca_devinfo_rep_is_equal_pci_addr(reps[1], "0000:b1:00.0", &v));
	assert_int_equal(v, 0);
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_devinfo_rep_is_equal_pci_addr(reps[0], "b1:00", &v));
	assert_ok(doca_devinfo_rep_get_vuid(reps[0], vuid, sizeof(vuid)));
	assert_string_equal(vuid, "MT2306XZ00BF3ODMAHOSTPF0");
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_devinfo_rep_get_vuid(reps[0], vuid, sizeof(vuid) - 1));
	assert_ok(doca_devinfo_rep_get_pci_func_type(reps[1], &ft));
	assert_int_equal(ft, DOCA_PCI_FUNC_TYPE_VF);
	assert_ok(doca_devinfo_rep_get_pci_func_type(reps[3], &ft));
	assert_int_equal(ft, DOCA_PCI_FUNC_TYPE_SF);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_create_list(dpu, 1, &net, &nn));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_create_list(dpu, 0, NULL, &nn));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_create_list(NULL, 0, &net, &nn));

	/* open/close: refcounted, same handle, valid after the list is gone */
	assert_ok(doca_dev_rep_open(reps[0], &r1));
	assert_ok(doca_dev_rep_open(reps[0], &r2));
	assert_ptr_equal(r1, r2);
	assert_ok(doca_devinfo_rep_destroy_list(reps));
	assert_ok(doca_devinfo_rep_destroy_list(net));
	assert_ok(doca_devinfo_rep_destroy_list(emu));
	assert_ok(doca_devinfo_rep_destroy_list(both));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_destroy_list(both));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_destroy_list(NULL));
	assert_ok(doca_devinfo_rep_get_vuid(doca_dev_rep_as_devinfo(r1), vuid, sizeof(vuid)));
	assert_string_equal(vuid, "MT2306XZ00BF3ODMAHOSTPF0");
	assert_ok(doca_dev_rep_close(r1));
	assert_ok(doca_dev_rep_close(r2));
	assert_null(doca_dev_rep_as_devinfo(r1));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_dev_rep_close(r1));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_dev_rep_close(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_dev_rep_open(NULL, &r1));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_dev_rep_open((struct doca_devinfo_rep *)vuid, &r1));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_get_vuid(NULL, vuid, sizeof(vuid)));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_get_pci_addr_str(NULL, pci));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_get_pci_func_type(NULL, &ft));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_get_is_hotplug(NULL, &v));
	/* representor lists need an open device */
	assert_ok(doca_dev_close(dpu));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_create_list(dpu, 0, &net, &nn));
	assert_ok(doca_dev_close(host));
}

static void *open_close_loop(void *arg)
{
	struct doca_dev *dev;

	for (int i = 0; i < 2000; i++) {
		if (doca_dev_open(arg, &dev) != DOCA_SUCCESS || doca_dev_close(dev) != DOCA_SUCCESS)
			return (void *)1;
	}
	return NULL;
}

/* Concurrent opens and closes of one device keep the count exact (run under TSan in CI). */
static void concurrent_open_close(void **state)
{
	pthread_t t[8];
	void *rc;

	(void)state;
	for (int i = 0; i < 8; i++)
		assert_int_equal(pthread_create(&t[i], NULL, open_close_loop, g_list[3]), 0);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(pthread_join(t[i], &rc), 0);
		assert_null(rc);
	}
}

static int setup(void **state)
{
	(void)state;
	return doca_devinfo_create_list(&g_list, &g_n) == DOCA_SUCCESS ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return doca_devinfo_destroy_list(g_list) == DOCA_SUCCESS ? 0 : -1;
}

/* Lines of @f that contain @text. */
static unsigned int lines_with(FILE *f, const char *text)
{
	char line[1024];
	unsigned int n = 0;

	fflush(f);
	rewind(f);
	while (fgets(line, sizeof(line), f) != NULL)
		n += strstr(line, text) != NULL;
	return n;
}

/*
 * A malformed address compared with every device of the list (as NVIDIA's samples look a
 * device up) is one ERROR line, not one a device; another malformed address gets its own.
 */
static void malformed_pci_said_once(void **state)
{
	struct doca_log_backend *be;
	FILE *f = tmpfile();
	uint8_t eq;

	(void)state;
	assert_non_null(f);
	assert_ok(doca_log_backend_create_with_file_sdk(f, &be));
	assert_ok(doca_log_backend_set_sdk_level(be, DOCA_LOG_LEVEL_WARNING));
	for (uint32_t i = 0; i < g_n; i++)
		assert_doca(DOCA_ERROR_INVALID_VALUE,
		            doca_devinfo_is_equal_pci_addr(g_list[i], "bogus:0", &eq));
	assert_true(g_n > 1);
	assert_int_equal(lines_with(f, "'bogus:0' is not a PCI address"), 1);
	for (uint32_t i = 0; i < g_n; i++)
		assert_doca(DOCA_ERROR_INVALID_VALUE,
		            doca_devinfo_is_equal_pci_addr(g_list[i], "other", &eq));
	assert_int_equal(lines_with(f, "'other' is not a PCI address"), 1);
	assert_ok(doca_log_backend_set_sdk_level(be, DOCA_LOG_LEVEL_DISABLE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(list_bf3),
		cmocka_unit_test(pci_compare),
		cmocka_unit_test(names_and_addrs),
		cmocka_unit_test(buffer_checks),
		cmocka_unit_test(list_errors),
		cmocka_unit_test(open_close_refcount),
		cmocka_unit_test(representors),
		cmocka_unit_test(concurrent_open_close),
		cmocka_unit_test(malformed_pci_said_once),
	};

	/* the system loads on first use, so this pins the default bf3 with both sides */
	unsetenv("ODMA_SYSTEM");
	unsetenv("ODMA_SIDE");
	return cmocka_run_group_tests(tests, setup, teardown);
}
