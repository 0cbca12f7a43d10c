/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * doca_caps / odma-caps: every option, text and JSON (parsed), on the built-in profiles.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tool_run.h"

static struct tool_out out;

static const char *caps(void)
{
	return tool_path("ODMA_TEST_CAPS");
}

static json_object *run_json(const char *env, const char *args)
{
	char full[512];
	json_object *root;

	snprintf(full, sizeof(full), "--json %s", args);
	tool_run(&out, env, caps(), full, 0);
	assert_int_equal(out.status, 0);
	root = json_tokener_parse(out.text);
	assert_non_null(root);
	return root;
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	assert_true(json_object_object_get_ex(o, key, &v));
	return v;
}

static json_object *devices(json_object *root)
{
	json_object *d = get(root, "devices");

	assert_true(json_object_is_type(d, json_type_array));
	return d;
}

static void test_full_report_bf3(void **state)
{
	json_object *root = run_json("ODMA_SYSTEM=bf3", ""), *devs = devices(root), *d, *dma, *mm;
	size_t i;

	(void)state;
	/* the transports to the other side, and whether each is built (UCX: said, never silent) */
	{
		json_object *tp = get(root, "transports"), *t;

		assert_int_equal(json_object_array_length(tp), 2);
		t = json_object_array_get_idx(tp, 0);
		assert_string_equal(json_object_get_string(get(t, "name")), "process");
		assert_true(json_object_get_boolean(get(t, "built")));
		t = json_object_array_get_idx(tp, 1);
		assert_string_equal(json_object_get_string(get(t, "name")), "ucx");
		/* absent: not built, or its module (libodma_ucx.so) not installed */
		assert_true(
		        json_object_get_boolean(get(t, "built")) ==
		        (strstr(json_object_get_string(get(t, "status")), "not built") == NULL &&
		         strstr(json_object_get_string(get(t, "status")), "not installed") ==
		                 NULL));
	}
	assert_int_equal(json_object_array_length(devs), 4);
	for (i = 0; i < 4; i++) {
		d = json_object_array_get_idx(devs, i);
		dma = get(get(d, "capabilities"), "doca_dma");
		mm = get(get(d, "capabilities"), "doca_mmap");
		assert_true(json_object_get_boolean(get(dma, "task_memcpy_supported")));
		assert_int_equal(json_object_get_int64(get(dma, "max_buf_size")), 2 * 1024 * 1024);
		assert_int_equal(json_object_get_int64(get(dma, "max_buf_list_len")), 64);
		assert_int_equal(json_object_get_int64(get(dma, "max_num_tasks")), 65536);
		assert_true(json_object_get_boolean(get(mm, "export_pci_supported")));
		assert_true(json_object_get_boolean(get(mm, "create_from_export_pci_supported")));
		assert_string_equal(json_object_get_string(get(d, "pci_func_type")), "pf");
	}
	d = json_object_array_get_idx(devs, 0);
	assert_string_equal(json_object_get_string(get(d, "pci_addr")), "0000:b1:00.0");
	assert_string_equal(json_object_get_string(get(d, "ibdev_name")), "mlx5_0");
	assert_string_equal(json_object_get_string(get(d, "iface_name")), "ens1f0np0");
	assert_string_equal(json_object_get_string(get(d, "side")), "host");
	/* Comch: clients on the host side, servers on the DPU side, BlueField-like limits */
	mm = get(get(d, "capabilities"), "doca_comch");
	assert_true(json_object_get_boolean(get(mm, "client_supported")));
	assert_false(json_object_get_boolean(get(mm, "server_supported")));
	assert_int_equal(json_object_get_int64(get(mm, "max_msg_size")), 4080);
	assert_false(json_object_object_get_ex(mm, "max_clients", NULL));
	d = json_object_array_get_idx(devs, 2);
	assert_string_equal(json_object_get_string(get(d, "pci_addr")), "0000:03:00.0");
	assert_string_equal(json_object_get_string(get(d, "side")), "dpu");
	mm = get(get(d, "capabilities"), "doca_comch");
	assert_true(json_object_get_boolean(get(mm, "server_supported")));
	assert_int_equal(json_object_get_int64(get(mm, "max_clients")), 512);
	assert_int_equal(json_object_get_int64(get(mm, "producer_max_buf_size")), 1 << 30);
	/* RDMA on both sides: RC and DC, every task, ConnectX-like limits */
	mm = get(get(d, "capabilities"), "doca_rdma");
	assert_true(json_object_get_boolean(get(mm, "transport_rc_supported")));
	assert_true(json_object_get_boolean(get(mm, "transport_dc_supported")));
	assert_true(json_object_get_boolean(get(mm, "task_read_supported")));
	assert_int_equal(json_object_get_int64(get(mm, "max_message_size")), 1 << 30);
	/* DOCA Compress on BlueField-3: deflate and LZ4 decompress, no compress */
	mm = get(get(d, "capabilities"), "doca_compress");
	assert_false(json_object_get_boolean(get(mm, "task_compress_deflate_supported")));
	assert_false(json_object_object_get_ex(mm, "compress_deflate_max_buf_size", NULL));
	assert_true(json_object_get_boolean(get(mm, "task_decompress_deflate_supported")));
	assert_true(json_object_get_boolean(get(mm, "task_decompress_lz4_stream_supported")));
	assert_true(json_object_get_boolean(get(mm, "task_decompress_lz4_block_supported")));
	assert_int_equal(json_object_get_int64(get(mm, "decompress_lz4_block_max_buf_size")),
	                 128 << 20);
	assert_int_equal(json_object_get_int64(get(mm, "decompress_deflate_max_buf_list_len")), 1);
	json_object_put(root);
}

static void test_nic_has_no_memcpy(void **state)
{
	json_object *root = run_json("ODMA_SYSTEM=nic", ""), *devs = devices(root), *dma, *mm;

	(void)state;
	assert_int_equal(json_object_array_length(devs), 2);
	dma = get(get(json_object_array_get_idx(devs, 0), "capabilities"), "doca_dma");
	mm = get(get(json_object_array_get_idx(devs, 0), "capabilities"), "doca_mmap");
	assert_false(json_object_get_boolean(get(dma, "task_memcpy_supported")));
	assert_false(json_object_object_get_ex(dma, "max_buf_size", NULL));
	assert_false(json_object_get_boolean(get(mm, "export_pci_supported")));
	mm = get(get(json_object_array_get_idx(devs, 0), "capabilities"), "doca_comch");
	assert_false(json_object_get_boolean(get(mm, "client_supported")));
	assert_false(json_object_object_get_ex(mm, "max_msg_size", NULL));
	/* a ConnectX-like NIC does RDMA */
	mm = get(get(json_object_array_get_idx(devs, 0), "capabilities"), "doca_rdma");
	assert_true(json_object_get_boolean(get(mm, "task_send_supported")));
	assert_int_equal(json_object_get_int64(get(mm, "gid_table_size")), 256);
	/* and no DOCA Compress */
	mm = get(get(json_object_array_get_idx(devs, 0), "capabilities"), "doca_compress");
	assert_false(json_object_get_boolean(get(mm, "task_compress_deflate_supported")));
	assert_false(json_object_get_boolean(get(mm, "task_decompress_deflate_supported")));
	assert_false(json_object_get_boolean(get(mm, "task_decompress_lz4_stream_supported")));
	json_object_put(root);
}

/* One built-in profile as doca_caps shows it (docs/profiles.md, "Built-in profiles"). */
struct profile_expect {
	const char *name, *first_line, *pci0;
	size_t ndevs;
	bool memcpy, comch, dpa_timer;
};

static const struct profile_expect profiles[] = {
	{ "bf3", "profile bf3: BlueField-3 DPU (host PFs and the Arm side), emulated by odma\n",
	  "0000:b1:00.0", 4, true, true, true },
	{ "bf2", "profile bf2: BlueField-2 DPU (host PFs and the Arm side), emulated by odma\n",
	  "0000:3b:00.0", 4, true, true, false },
	{ "cx7", "profile cx7: ConnectX-7 adapter (host PFs only), emulated by odma\n",
	  "0000:41:00.0", 2, false, false, false },
	{ "cx6dx", "profile cx6dx: ConnectX-6 Dx adapter (host PFs only), emulated by odma\n",
	  "0000:08:00.0", 2, false, false, false },
	{ "nic", "profile nic (= cx6dx): ConnectX-6 Dx adapter (host PFs only), emulated by odma\n",
	  "0000:08:00.0", 2, false, false, false },
};

/* Each profile is selectable, doca_caps names it on its first line, its values show. */
static void test_profiles_named(void **state)
{
	char env[64];

	(void)state;
	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
		const struct profile_expect *e = &profiles[i];
		json_object *root, *devs, *d, *p, *cp;

		snprintf(env, sizeof(env), "ODMA_SYSTEM=%s", e->name);
		tool_run(&out, env, caps(), "", 0);
		assert_int_equal(out.status, 0);
		if (strncmp(out.text, e->first_line, strlen(e->first_line)) != 0)
			fail_msg("%s: first line is not '%s':\n%.300s", e->name, e->first_line,
			         out.text);
		root = run_json(env, "");
		p = get(root, "profile");
		assert_string_equal(json_object_get_string(get(p, "name")), e->name);
		assert_string_equal(json_object_get_string(get(p, "emulated_by")), "odma");
		devs = devices(root);
		assert_int_equal(json_object_array_length(devs), e->ndevs);
		d = json_object_array_get_idx(devs, 0);
		assert_string_equal(json_object_get_string(get(d, "pci_addr")), e->pci0);
		cp = get(d, "capabilities");
		assert_int_equal(
		        json_object_get_boolean(get(get(cp, "doca_dma"), "task_memcpy_supported")),
		        e->memcpy);
		assert_int_equal(
		        json_object_get_boolean(get(get(cp, "doca_comch"), "client_supported")),
		        e->comch);
		assert_int_equal(json_object_get_boolean(
		                         get(get(cp, "doca_clock"), "nic_dpa_timer_supported")),
		                 e->dpa_timer);
		/* every one of them does RDMA */
		assert_true(
		        json_object_get_boolean(get(get(cp, "doca_rdma"), "task_send_supported")));
		json_object_put(root);
	}
}

/* An unknown profile: one error line that lists the valid names, no crash, exit 1. */
static void test_unknown_profile(void **state)
{
	(void)state;
	tool_run(&out, "ODMA_SYSTEM=bf4", caps(), "", 1);
	assert_int_equal(out.status, 1);
	assert_non_null(strstr(out.text, "ODMA_SYSTEM=\"bf4\" is not a built-in profile name or a "
	                                 "readable profile file (built-in: bf3, bf2, cx7, cx6dx, "
	                                 "nic = cx6dx;"));
	assert_non_null(strchr(out.text, '\n'));
	assert_string_equal(strchr(out.text, '\n') + 1, "");
	/* a directory opens but cannot be read: the line says why ("read error" alone did not) */
	tool_run(&out, "ODMA_SYSTEM=/", caps(), "", 1);
	assert_int_equal(out.status, 1);
	assert_non_null(strstr(out.text, "profile file /: cannot read it: Is a directory\n"));
}

static void test_side_filter(void **state)
{
	json_object *root = run_json("ODMA_SYSTEM=bf3 ODMA_SIDE=dpu", "--list-devs"),
	            *devs = devices(root);
	size_t i;

	(void)state;
	assert_int_equal(json_object_array_length(devs), 2);
	for (i = 0; i < 2; i++) {
		json_object *d = json_object_array_get_idx(devs, i);

		assert_string_equal(json_object_get_string(get(d, "side")), "dpu");
		/* --list-devs: identity only */
		assert_false(json_object_object_get_ex(d, "capabilities", NULL));
	}
	json_object_put(root);
}

static void test_pci_addr_and_lib(void **state)
{
	json_object *root = run_json("ODMA_SYSTEM=bf2", "--pci-addr 3b:00.1 --lib dma");
	json_object *devs = devices(root), *c;

	(void)state;
	assert_int_equal(json_object_array_length(devs), 1);
	assert_string_equal(
	        json_object_get_string(get(json_object_array_get_idx(devs, 0), "pci_addr")),
	        "0000:3b:00.1");
	c = get(json_object_array_get_idx(devs, 0), "capabilities");
	assert_true(json_object_object_get_ex(c, "doca_dma", NULL));
	assert_false(json_object_object_get_ex(c, "doca_mmap", NULL));
	json_object_put(root);

	root = run_json("ODMA_SYSTEM=bf3", "-p 03:00.0 --lib doca_common");
	c = get(json_object_array_get_idx(devices(root), 0), "capabilities");
	assert_true(json_object_object_get_ex(c, "doca_mmap", NULL));
	assert_false(json_object_object_get_ex(c, "doca_dma", NULL));
	/* the rest of DOCA Core: a BlueField-3 DPU device has all of it */
	assert_true(json_object_get_boolean(
	        get(get(c, "doca_sync_event"), "export_to_remote_pci_supported")));
	assert_true(json_object_get_boolean(
	        get(get(c, "doca_mmap_advise"), "task_cache_invalidate_supported")));
	assert_int_equal(json_object_get_int64(get(get(c, "doca_mmap_advise"), "max_buf_size")),
	                 2 * 1024 * 1024);
	assert_true(json_object_get_boolean(get(get(c, "doca_clock"), "nic_dpa_timer_supported")));
	json_object_put(root);

	/* erasure coding: BlueField-3 only */
	root = run_json("ODMA_SYSTEM=bf3", "-p b1:00.0 --lib doca_erasure_coding");
	c = get(json_object_array_get_idx(devices(root), 0), "capabilities");
	assert_true(json_object_get_boolean(
	        get(get(c, "doca_erasure_coding"), "task_recover_supported")));
	assert_int_equal(
	        json_object_get_int64(get(get(c, "doca_erasure_coding"), "max_block_size")),
	        128 * 1024 * 1024);
	json_object_put(root);
	/* its pkg-config name (doca-erasure-coding) names it too, as doca-dma names DMA */
	root = run_json("ODMA_SYSTEM=bf3", "-p b1:00.0 --lib doca-erasure-coding");
	c = get(json_object_array_get_idx(devices(root), 0), "capabilities");
	assert_true(json_object_object_get_ex(c, "doca_erasure_coding", NULL));
	json_object_put(root);
	root = run_json("ODMA_SYSTEM=bf2", "-p 03:00.0 --lib doca_erasure_coding");
	c = get(json_object_array_get_idx(devices(root), 0), "capabilities");
	assert_false(json_object_get_boolean(
	        get(get(c, "doca_erasure_coding"), "task_create_supported")));
	assert_false(
	        json_object_object_get_ex(get(c, "doca_erasure_coding"), "max_block_size", NULL));
	json_object_put(root);

	/* a ConnectX-like NIC: no export, no cache invalidation, no DPA timer */
	root = run_json("ODMA_SYSTEM=nic", "-p 08:00.0");
	c = get(json_object_array_get_idx(devices(root), 0), "capabilities");
	assert_false(json_object_get_boolean(
	        get(get(c, "doca_sync_event"), "export_to_remote_pci_supported")));
	assert_false(json_object_get_boolean(
	        get(get(c, "doca_mmap_advise"), "task_cache_invalidate_supported")));
	assert_true(json_object_get_boolean(get(get(c, "doca_clock"), "nic_real_time_supported")));
	assert_false(json_object_get_boolean(get(get(c, "doca_clock"), "nic_dpa_timer_supported")));
	json_object_put(root);
}

static void test_list_rep_devs(void **state)
{
	json_object *root = run_json("ODMA_SYSTEM=bf3", "--list-rep-devs"), *devs = devices(root);

	(void)state;
	/* host devices list none; 03:00.0 lists 5, 03:00.1 lists 2 */
	assert_int_equal(
	        json_object_array_length(get(json_object_array_get_idx(devs, 0), "representors")),
	        0);
	assert_int_equal(
	        json_object_array_length(get(json_object_array_get_idx(devs, 2), "representors")),
	        5);
	assert_int_equal(
	        json_object_array_length(get(json_object_array_get_idx(devs, 3), "representors")),
	        2);
	assert_string_equal(
	        json_object_get_string(
	                get(json_object_array_get_idx(
	                            get(json_object_array_get_idx(devs, 3), "representors"), 0),
	                    "pci_addr")),
	        "0000:b1:00.1");
	json_object_put(root);
}

static void test_list_libs(void **state)
{
	json_object *root = run_json(NULL, "--list-libs"), *libs = get(root, "libraries");

	(void)state;
	assert_int_equal(json_object_array_length(libs), 7);
	assert_string_equal(json_object_get_string(get(json_object_array_get_idx(libs, 4), "name")),
	                    "doca_rdma");
	assert_string_equal(json_object_get_string(get(json_object_array_get_idx(libs, 5), "name")),
	                    "doca_compress");
	assert_string_equal(json_object_get_string(get(json_object_array_get_idx(libs, 6), "name")),
	                    "doca_erasure_coding");
	assert_string_equal(json_object_get_string(get(json_object_array_get_idx(libs, 1), "name")),
	                    "doca_dma");
	assert_string_equal(
	        json_object_get_string(get(json_object_array_get_idx(libs, 1), "version")),
	        "3.3.0");
	assert_false(json_object_object_get_ex(root, "devices", NULL));
	json_object_put(root);
}

static void test_text_output(void **state)
{
	(void)state;
	tool_run(&out, "ODMA_SYSTEM=bf3", caps(), "", 0);
	assert_int_equal(out.status, 0);
	assert_non_null(
	        strstr(out.text, "Device 0000:03:00.0  ibdev mlx5_0  iface p0  side dpu  func pf"));
	assert_non_null(strstr(out.text, "max_buf_size"));
	assert_non_null(strstr(out.text, "2097152"));
	tool_run(&out, NULL, caps(), "--list-libs", 0);
	assert_non_null(strstr(out.text, "doca_dma"));
	tool_run(&out, "ODMA_SYSTEM=bf3", caps(), "--list-rep-devs -p 03:00.1", 0);
	assert_non_null(strstr(out.text, "representor 0000:b1:00.4 vf"));
}

/*
 * The text report prints every capability section the JSON report has: the text is what a
 * developer reads (--lib rdma printed the devices and no RDMA limit).
 */
static void test_text_has_every_section(void **state)
{
	json_object *root = run_json("ODMA_SYSTEM=bf3", "-p 03:00.0");
	json_object *sections = get(json_object_array_get_idx(devices(root), 0), "capabilities");
	char line[64];

	(void)state;
	tool_run(&out, "ODMA_SYSTEM=bf3", caps(), "-p 03:00.0", 0);
	assert_int_equal(out.status, 0);
	json_object_object_foreach(sections, section, val)
	{
		(void)val;
		snprintf(line, sizeof(line), "\n    %s:\n", section);
		if (strstr(out.text, line) == NULL)
			fail_msg("the text report has no %s section:\n%s", section, out.text);
	}
	json_object_put(root);
	tool_run(&out, "ODMA_SYSTEM=bf3", caps(), "-p 03:00.0 --lib rdma", 0);
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.text, "\n    doca_rdma:\n"));
	assert_non_null(strstr(out.text, "max_message_size"));
}

/* How many lines @t holds. */
static int text_lines(const char *t)
{
	int n = 0;

	for (; *t != '\0'; t++)
		n += *t == '\n';
	return n;
}

static void test_version_help_and_errors(void **state)
{
	(void)state;
	tool_run(&out, NULL, caps(), "--version", 0);
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.text, "3.3.0"));
	tool_run(&out, NULL, caps(), "--help", 1);
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.text, "--list-rep-devs"));
	tool_run(&out, "ODMA_SYSTEM=bf3", caps(), "--pci-addr 99:00.0", 1);
	assert_int_equal(out.status, 1);
	assert_non_null(strstr(out.text, "no device at PCI address 99:00.0"));
	/* the line lists what the process does see, and says when ODMA_SIDE hides a side */
	assert_non_null(strstr(out.text, "this process sees 0000:b1:00.0, 0000:b1:00.1"));
	tool_run(&out, "ODMA_SYSTEM=bf3 ODMA_SIDE=host", caps(), "--pci-addr 03:00.0", 1);
	assert_int_equal(out.status, 1);
	assert_non_null(strstr(out.text, "ODMA_SIDE=host shows only that side's devices"));
	/* a bad value is a usage error of one line, the tool's own (argp adds none) */
	tool_run(&out, NULL, caps(), "--lib nosuchlib", 1);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.text, "--lib 'nosuchlib' is not a library"));
	assert_int_equal(text_lines(out.text), 1);
	tool_run(&out, NULL, caps(), "--pci-addr zz:00.0", 1);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.text, "--pci-addr 'zz:00.0' is not a PCI address"));
	assert_int_equal(text_lines(out.text), 1);
	/* the right shape, but PCI has no device 0x20 and no function 8: the same refusal (it
	 * was a library ERROR line, then "no device at PCI address", exit 1) */
	tool_run(&out, NULL, caps(), "--pci-addr 03:00.9", 1);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.text, "--pci-addr '03:00.9' is not a PCI address"));
	assert_int_equal(text_lines(out.text), 1);
	tool_run(&out, NULL, caps(), "--pci-addr 0000:03:20.0", 1);
	assert_int_equal(out.status, 2);
	assert_int_equal(text_lines(out.text), 1);
	/* the shapes it takes, the domain form too (the line said "(BB:DD.F)" alone, so a
	 * refused DDDD:BB:DD.F read as if the domain were the fault) */
	assert_non_null(strstr(out.text, "(BB:DD.F or DDDD:BB:DD.F, hexadecimal"));
	tool_run(&out, NULL, caps(), "--no-such-flag", 1);
	assert_int_not_equal(out.status, 0);
	tool_run(&out, "ODMA_SYSTEM=/nonexistent/profile", caps(), "", 1);
	assert_int_equal(out.status, 1);
}

/*
 * The task queue depth (AGAIN beyond it) per DMA-capable device, in JSON and text, from the
 * profile: 1024 on the built-in bf3, 128 and 256 on tests/data/profiles/good.profile.
 */
static void test_queue_depth(void **state)
{
	static const int64_t want[] = { 128, 256 };
	char env[1024];
	json_object *root = run_json("ODMA_SYSTEM=bf3", "--lib dma"), *devs = devices(root), *dma;

	(void)state;
	for (size_t i = 0; i < json_object_array_length(devs); i++) {
		dma = get(get(json_object_array_get_idx(devs, i), "capabilities"), "doca_dma");
		assert_int_equal(json_object_get_int64(get(dma, "queue_depth")), 1024);
	}
	json_object_put(root);
	snprintf(env, sizeof(env), "ODMA_SYSTEM='%s/good.profile'",
	         tool_path("ODMA_TEST_PROFILES"));
	root = run_json(env, "");
	devs = devices(root);
	assert_int_equal(json_object_array_length(devs), 3);
	for (size_t i = 0; i < 3; i++) {
		dma = get(get(json_object_array_get_idx(devs, i), "capabilities"), "doca_dma");
		if (i < 2)
			assert_int_equal(json_object_get_int64(get(dma, "queue_depth")), want[i]);
		else /* no DMA memcpy: no queue depth either */
			assert_false(json_object_object_get_ex(dma, "queue_depth", NULL));
	}
	json_object_put(root);
	tool_run(&out, env, caps(), "-p 5e:00.0", 0);
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.text, "queue_depth"));
	assert_non_null(strstr(out.text, " 128\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_report_bf3),
		cmocka_unit_test(test_nic_has_no_memcpy),
		cmocka_unit_test(test_profiles_named),
		cmocka_unit_test(test_unknown_profile),
		cmocka_unit_test(test_side_filter),
		cmocka_unit_test(test_pci_addr_and_lib),
		cmocka_unit_test(test_list_rep_devs),
		cmocka_unit_test(test_list_libs),
		cmocka_unit_test(test_text_output),
		cmocka_unit_test(test_text_has_every_section),
		cmocka_unit_test(test_version_help_and_errors),
		cmocka_unit_test(test_queue_depth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
