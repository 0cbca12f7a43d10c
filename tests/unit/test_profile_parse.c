/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* White-box tests of the profile parser, PCI parsing, the built-ins and device holds. */
#include <string.h>

#include "core/device/device.h"
#include "test_util.h"

static doca_error_t parse(const char *text, struct odma_system *sys, char *err)
{
	return odma_profile_parse(text, strlen(text), sys, err, 256);
}

/* Asserts that @text is rejected with an error starting "line N:" and containing @what. */
static void expect_bad(const char *text, unsigned int line, const char *what)
{
	struct odma_system sys;
	char err[256], prefix[32];

	assert_doca(DOCA_ERROR_INVALID_VALUE, parse(text, &sys, err));
	snprintf(prefix, sizeof(prefix), "line %u: ", line);
	if (strncmp(err, prefix, strlen(prefix)) != 0 || strstr(err, what) == NULL)
		fail_msg("error '%s', expected '%s...%s'", err, prefix, what);
	assert_null(sys.devs);
	assert_int_equal(sys.num_devs, 0);
}

#define DEV "device side=dpu pci=0000:03:00.0 ibdev=mlx5_0 iface=p0"

static void good_text(void **state)
{
	struct odma_system sys;
	char err[256];

	(void)state;
	assert_ok(parse(
	        "system t\r\n" DEV " memcpy=yes max_buf_size=2M max_buf_list_len=64 "
	        "max_num_tasks=65536 queue_depth=1024 mac=AA:bb:cc:dd:ee:ff ipv6=::1\n"
	        "rep parent=03:00.0 pci=b1:00.0 vuid=V0 emulated=yes net=no hotplug=yes func=vf\n",
	        &sys, err));
	assert_string_equal(sys.label, "t");
	assert_int_equal(sys.num_devs, 1);
	assert_string_equal(sys.devs[0].pci_addr, "0000:03:00.0");
	assert_int_equal(sys.devs[0].caps.max_buf_size, 2 * 1024 * 1024);
	assert_int_equal(sys.devs[0].caps.queue_depth, 1024);
	assert_int_equal(sys.devs[0].mac[0], 0xaa);
	assert_int_equal(sys.devs[0].ipv6[15], 1);
	assert_int_equal(sys.devs[0].num_reps, 1);
	assert_int_equal(sys.devs[0].reps[0].filter_bits, DOCA_DEVINFO_REP_FILTER_EMULATED);
	assert_int_equal(sys.devs[0].reps[0].func_type, DOCA_PCI_FUNC_TYPE_VF);
	assert_true(sys.devs[0].reps[0].hotplug);
	assert_ptr_equal(sys.devs[0].reps[0].parent, &sys.devs[0]);
	assert_ptr_equal(sys.devs[0].reps[0].rep_store->info, &sys.devs[0].reps[0]);
	assert_ptr_equal(sys.devs[0].dev_store->info, &sys.devs[0]);
	assert_true(sys.id == odma_fnv1a64("system t\r\n", 10) || sys.id != 0);
	/* the Core capabilities default to no */
	assert_false(sys.devs[0].caps.cache_invalidate);
	assert_false(sys.devs[0].caps.clock_free_running);
	assert_false(sys.devs[0].caps.clock_real_time);
	assert_false(sys.devs[0].caps.clock_dpa_timer);
	odma_system_free(&sys);
	odma_system_free(&sys); /* second free is a no-op */
	/* every device key at once */
	assert_ok(parse(
	        "system t\n" DEV " memcpy=yes max_buf_size=2M max_buf_list_len=64 "
	        "max_num_tasks=8 queue_depth=8 mac=AA:bb:cc:dd:ee:ff ipv4=1.2.3.4 ipv6=::1 "
	        "lid=1 func=pf sf_index=0 active_rate=1G vhca_id=1 export_pci=yes "
	        "from_export_pci=yes export_rdma=yes from_export_rdma=yes cache_invalidate=yes "
	        "clock_free_running=yes clock_real_time=yes clock_dpa_timer=yes\n",
	        &sys, err));
	assert_true(sys.devs[0].caps.cache_invalidate);
	assert_true(sys.devs[0].caps.clock_free_running);
	assert_true(sys.devs[0].caps.clock_real_time);
	assert_true(sys.devs[0].caps.clock_dpa_timer);
	odma_system_free(&sys);
	expect_bad("system t\n" DEV " clock_dpa_timer=yes clock_dpa_timer=no\n", 2, "given twice");
	expect_bad("system t\n" DEV " cache_invalidate=maybe\n", 2, "yes or no");
}

static void bad_texts(void **state)
{
	(void)state;
	expect_bad("", 1, "no 'system NAME'");
	expect_bad("system a\n", 2, "no device");
	expect_bad("# c\n" DEV "\n", 2, "before the 'system");
	expect_bad("system a\nsystem b\n", 2, "second 'system'");
	expect_bad("system a b\n", 1, "one word");
	expect_bad("system a/b\n", 1, "letters");
	expect_bad("system a\n" DEV " colour=blue\n", 2, "unknown device key 'colour'");
	expect_bad("system a\n" DEV " lid=1 lid=2\n", 2, "given twice");
	expect_bad("system a\n" DEV " lid=\n", 2, "empty value");
	expect_bad("system a\n" DEV " lid\n", 2, "not key=value");
	expect_bad("system a\n" DEV " lid=65536\n", 2, "bad value");
	expect_bad("system a\n" DEV " lid=-1\n", 2, "bad value");
	expect_bad("system a\n" DEV " max_buf_size=99999999999999999999\n", 2, "bad value");
	expect_bad("system a\n" DEV " max_buf_size=16777216T\n", 2, "bad value");
	expect_bad("system a\n" DEV " max_buf_size=17179869184G\n", 2, "bad value");
	expect_bad("system a\n" DEV " memcpy=maybe\n", 2, "yes or no");
	expect_bad("system a\n" DEV " memcpy=yes\n", 2, "non-zero");
	expect_bad("system a\n" DEV " mac=aa:bb:cc:dd:ee\n", 2, "MAC");
	expect_bad("system a\n" DEV " ipv4=300.1.1.1\n", 2, "IPv4");
	expect_bad("system a\n" DEV " func=xf\n", 2, "pf, vf or sf");
	expect_bad("system a\ndevice side=dpu pci=0000:03:20.0 ibdev=x iface=y\n", 2, "PCI");
	expect_bad("system a\ndevice side=dpu pci=0000:03:00.8 ibdev=x iface=y\n", 2, "PCI");
	expect_bad("system a\ndevice side=sideways pci=03:00.0 ibdev=x iface=y\n", 2,
	           "host or dpu");
	expect_bad("system a\ndevice pci=03:00.0 ibdev=x iface=y\n", 2, "required key side");
	expect_bad("system a\n\n" DEV "\ndevice side=host pci=03:00.0 ibdev=x iface=y\n", 4,
	           "first declared on line 3");
	expect_bad("system a\nwidget\n", 2, "unknown directive");
	expect_bad("system a\n" DEV "\nrep parent=03:00.1 pci=b1:00.0 vuid=V\n", 3,
	           "not a dpu device");
	expect_bad("system a\ndevice side=host pci=03:00.0 ibdev=x iface=y\nrep parent=03:00.0 "
	           "pci=b1:00.0 vuid=V\n",
	           3, "not a dpu device");
	expect_bad("system a\n" DEV "\nrep parent=03:00.0 pci=b1:00.0\n", 3, "required key vuid");
	expect_bad("system a\n" DEV "\nrep parent=03:00.0 pci=b1:00.0 vuid=V\nrep parent=03:00.0 "
	           "pci=b1:00.1 vuid=V\n",
	           4, "duplicate rep vuid");
	expect_bad("system a\n" DEV "\nrep parent=03:00.0 pci=b1:00.0 vuid=V\nrep parent=03:00.0 "
	           "pci=b1:00.0 vuid=W\n",
	           4, "duplicate rep pci");
	expect_bad("system a\n" DEV " ibdev2=x\n", 2, "unknown");
	expect_bad("system a\n" DEV " comch=yes comch_max_msg_size=2000000\n", 2, "above 64K");
	expect_bad("system a\n" DEV " comch=yes comch_max_msg_size=65537\n", 2, "above 64K");
	expect_bad("system a\n" DEV " comch=yes comch_imm_data=257\n", 2,
	           "comch_imm_data above 256");
	expect_bad("system a\n" DEV " comch_fp_buf_size=1G\n", 2, "bad value");
	expect_bad("system a\n" DEV " comch=yes comch_fp_tasks=65537\n", 2,
	           "comch_fp_tasks above 65536");
}

/* comch=yes: the Comch values a line leaves out take their defaults; given ones are kept. */
static void comch_defaults(void **state)
{
	struct odma_system sys;
	char err[256];

	(void)state;
	assert_ok(parse("system t\n" DEV " comch=yes comch_max_msg_size=512 comch_imm_data=0\n"
	                "device side=host pci=b1:00.0 ibdev=x iface=y\n",
	                &sys, err));
	assert_true(sys.devs[0].caps.comch);
	assert_int_equal(sys.devs[0].caps.comch_max_msg_size, 512);
	assert_int_equal(sys.devs[0].caps.comch_max_recv_queue, ODMA_COMCH_DEFAULT_MAX_RECV_QUEUE);
	assert_int_equal(sys.devs[0].caps.comch_max_imm_data, ODMA_COMCH_DEFAULT_MAX_IMM_DATA);
	assert_int_equal(sys.devs[0].caps.comch_fp_max_buf_size,
	                 ODMA_COMCH_DEFAULT_FP_MAX_BUF_SIZE);
	assert_false(sys.devs[1].caps.comch);
	assert_int_equal(sys.devs[1].caps.comch_max_msg_size, 0);
	odma_system_free(&sys);
}

/* DOCA Compress: the task types default to no; any of them brings the default max buf size. */
static void compress_defaults(void **state)
{
	struct odma_system sys;
	char err[256];

	(void)state;
	assert_ok(parse("system t\n" DEV " decompress_lz4=yes\n"
	                "device side=host pci=b1:00.0 ibdev=x iface=y compress_deflate=yes "
	                "decompress_deflate=yes compress_max_buf_size=64K\n"
	                "device side=host pci=b1:00.1 ibdev=x iface=z\n",
	                &sys, err));
	assert_true(sys.devs[0].caps.decompress_lz4);
	assert_false(sys.devs[0].caps.compress_deflate);
	assert_false(sys.devs[0].caps.decompress_deflate);
	assert_int_equal(sys.devs[0].caps.compress_max_buf_size,
	                 ODMA_COMPRESS_DEFAULT_MAX_BUF_SIZE);
	assert_true(sys.devs[1].caps.compress_deflate);
	assert_true(sys.devs[1].caps.decompress_deflate);
	assert_int_equal(sys.devs[1].caps.compress_max_buf_size, 64 * 1024);
	assert_false(sys.devs[2].caps.compress_deflate || sys.devs[2].caps.decompress_deflate ||
	             sys.devs[2].caps.decompress_lz4);
	assert_int_equal(sys.devs[2].caps.compress_max_buf_size, 0);
	odma_system_free(&sys);
	expect_bad("system t\n" DEV " compress_deflate=maybe\n", 2, "yes or no");
	expect_bad("system t\n" DEV " decompress_lz4=1\n", 2, "yes or no");
}

static void hostile_bytes(void **state)
{
	char big[ODMA_PROFILE_MAX_LINE + 64];
	char buf[512];
	struct odma_system sys;
	char err[256];
	uint32_t seed = 12345;

	(void)state;
	expect_bad("system a\n" DEV " iface=\x01\n", 2, "control byte");
	expect_bad("system a\n" DEV " iface=\xc3\xa9\n", 2, "non-ASCII");
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            odma_profile_parse("system a\0\n", 10, &sys, err, sizeof(err)));
	assert_non_null(strstr(err, "control byte 0x00"));
	/* overlong strings: a name one byte past its buffer, and a line past the limit */
	memset(big, 'x', sizeof(big));
	snprintf(buf, sizeof(buf), "system a\ndevice side=dpu pci=03:00.0 iface=p ibdev=%.*s\n",
	         DOCA_DEVINFO_IBDEV_NAME_SIZE, big);
	expect_bad(buf, 2, "the limit is 63");
	memcpy(big, "system a\n", 9);
	big[sizeof(big) - 1] = '\0';
	expect_bad(big, 2, "line longer");
	/* comments may hold anything printable, including non-ASCII */
	assert_ok(parse("system a # \xc3\xa9t\xc3\xa9\n" DEV "\n", &sys, err));
	odma_system_free(&sys);
	/* random bytes never crash and never leave anything allocated on failure */
	for (int round = 0; round < 2000; round++) {
		size_t n = (seed = seed * 1103515245u + 12345u) % sizeof(buf);

		for (size_t i = 0; i < n; i++)
			buf[i] = (char)((seed = seed * 1103515245u + 12345u) >> 16);
		if (odma_profile_parse(buf, n, &sys, err, sizeof(err)) == DOCA_SUCCESS)
			odma_system_free(&sys);
		assert_true(strlen(err) < sizeof(err));
	}
	/* a tiny error buffer truncates, and NULL error buffers are allowed */
	assert_doca(DOCA_ERROR_INVALID_VALUE, odma_profile_parse("x", 1, &sys, err, 4));
	assert_string_equal(err, "lin");
	assert_doca(DOCA_ERROR_INVALID_VALUE, odma_profile_parse("x", 1, &sys, NULL, 0));
	assert_doca(DOCA_ERROR_INVALID_VALUE, odma_profile_parse("x", 1, NULL, err, sizeof(err)));
}

static void builtins_parse(void **state)
{
	/* named after the devices they emulate; nic stays, as another name of cx6dx */
	static const char *const names[] = { "bf3", "bf2", "cx7", "cx6dx", "nic" };
	static const char *const labels[] = { "bf3", "bf2", "cx7", "cx6dx", "cx6dx" };
	struct odma_system sys;
	char err[256], list[128];

	(void)state;
	assert_null(odma_profile_builtin("bf4"));
	assert_null(odma_profile_builtin(NULL));
	assert_null(odma_profile_info("bf4"));
	assert_null(odma_profile_info_at(5));
	assert_string_equal(odma_profile_info("nic")->alias_of, "cx6dx");
	assert_ptr_equal(odma_profile_builtin("nic"), odma_profile_builtin("cx6dx"));
	assert_null(odma_profile_info("cx7")->alias_of);
	assert_non_null(strstr(odma_profile_info("cx7")->device, "ConnectX-7"));
	assert_non_null(strstr(odma_profile_info("bf2")->device, "BlueField-2"));
	odma_profile_names(list, sizeof(list));
	assert_string_equal(list, "bf3, bf2, cx7, cx6dx, nic = cx6dx");
	for (int i = 0; i < 5; i++) {
		const char *t = odma_profile_builtin(names[i]);

		assert_string_equal(odma_profile_info_at((unsigned int)i)->name, names[i]);
		assert_non_null(t);
		if (parse(t, &sys, err) != DOCA_SUCCESS)
			fail_msg("built-in %s: %s", names[i], err);
		assert_string_equal(sys.label, labels[i]);
		for (uint32_t d = 0; d < sys.num_devs; d++) {
			bool bf = i < 2;

			assert_int_equal(sys.devs[d].caps.dma_memcpy, bf);
			assert_int_equal(sys.devs[d].caps.export_pci, bf);
			assert_int_equal(sys.devs[d].caps.from_export_pci, bf);
			assert_int_equal(sys.devs[d].caps.max_buf_size, bf ? 2u << 20 : 0);
			assert_int_equal(sys.devs[d].caps.max_buf_list_len, bf ? 64 : 0);
			assert_int_equal(sys.devs[d].caps.max_num_tasks, bf ? 65536 : 0);
			assert_int_equal(sys.devs[d].caps.queue_depth, bf ? 1024 : 0);
			/* every built-in port does RDMA (BlueField and ConnectX-like alike) */
			assert_true(sys.devs[d].caps.export_rdma);
			assert_true(sys.devs[d].caps.rdma);
			assert_true(sys.devs[d].caps.rdma_dc);
			assert_int_equal(sys.devs[d].caps.rdma_max_msg_size, 1u << 30);
			assert_int_equal(sys.devs[d].caps.comch, bf);
			assert_int_equal(sys.devs[d].caps.comch_max_msg_size, bf ? 4080 : 0);
			assert_int_equal(sys.devs[d].caps.comch_max_clients, bf ? 512 : 0);
			/* NIC clocks everywhere; the DPA timer on bf3; cache invalidation on the
			 * BlueField Arm side only */
			assert_true(sys.devs[d].caps.clock_free_running);
			assert_true(sys.devs[d].caps.clock_real_time);
			assert_int_equal(sys.devs[d].caps.clock_dpa_timer, i == 0);
			assert_int_equal(sys.devs[d].caps.cache_invalidate,
			                 bf && sys.devs[d].side == ODMA_SIDE_DPU);
			/* link rates of the cards emulated: BF-3 and CX-7 2x200G, the others
			 * 2x100G; a ConnectX has only host-side functions */
			assert_int_equal(sys.devs[d].active_rate,
			                 i == 0 || i == 2 ? 200000000000ull : 100000000000ull);
			assert_true(bf || sys.devs[d].side == ODMA_SIDE_HOST);
		}
		assert_int_equal(sys.num_devs, i < 2 ? 4 : 2);
		odma_system_free(&sys);
	}
}

static void pci_and_hash(void **state)
{
	char out[DOCA_DEVINFO_PCI_ADDR_SIZE];

	(void)state;
	assert_true(odma_pci_addr_parse("03:00.0", out));
	assert_string_equal(out, "0000:03:00.0");
	assert_true(odma_pci_addr_parse("ABCD:B1:1F.7", out));
	assert_string_equal(out, "abcd:b1:1f.7");
	assert_false(odma_pci_addr_parse("0000:03:00.0x", out));
	assert_false(odma_pci_addr_parse("000:03:00.0", out));
	assert_false(odma_pci_addr_parse("03-00.0", out));
	assert_false(odma_pci_addr_parse("03:00:0", out));
	assert_false(odma_pci_addr_parse("", out));
	assert_false(odma_pci_addr_parse(NULL, out));
	/* FNV-1a 64 reference values */
	assert_true(odma_fnv1a64("", 0) == 0xcbf29ce484222325ull);
	assert_true(odma_fnv1a64("a", 1) == 0xaf63dc4c8601ec8cull);
}

/* A holder (mmap/context) makes the last close fail with IN_USE; earlier closes succeed. */
static void close_in_use(void **state)
{
	struct doca_devinfo **list;
	struct doca_dev *dev, *dev2;
	uint32_t n;

	(void)state;
	assert_ok(doca_devinfo_create_list(&list, &n));
	assert_ok(doca_dev_open(list[0], &dev));
	assert_ok(doca_dev_open(list[0], &dev2));
	odma_dev_hold(dev);
	assert_ok(doca_dev_close(dev2));
	assert_doca(DOCA_ERROR_IN_USE, doca_dev_close(dev));
	assert_int_equal(dev->refcount, 1);
	odma_dev_release(dev);
	assert_ok(doca_dev_close(dev));
	assert_null(list[0]->dev);
	assert_ok(doca_devinfo_destroy_list(list));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(good_text),      cmocka_unit_test(bad_texts),
		cmocka_unit_test(hostile_bytes),  cmocka_unit_test(builtins_parse),
		cmocka_unit_test(pci_and_hash),   cmocka_unit_test(close_in_use),
		cmocka_unit_test(comch_defaults), cmocka_unit_test(compress_defaults),
	};

	unsetenv("ODMA_SYSTEM");
	unsetenv("ODMA_SIDE");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
