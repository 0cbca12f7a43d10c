/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * A purely local program never loads UCX: after local DMA copies and a copy through an export
 * imported in this kernel (the process transport), neither libucp nor odma's UCX module is
 * mapped (/proc/self/maps), so none of UCX's constructors, threads or signal handlers run in
 * it. Then doca_caps' question about the transports loads the module (when it is built), and
 * libucp appears: the check sees what it looks for.
 */
#include <stdio.h>
#include <string.h>

#include "../fixture.h"
#include "test_util.h"

/* Whether a mapping of this process names @what. */
static bool mapped(const char *what)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	bool found = false;

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f) != NULL)
		found = strstr(line, what) != NULL;
	fclose(f);
	return found;
}

static void local_dma_loads_no_ucx(void **state)
{
	struct fx fx;
	struct doca_buf *s, *d;

	(void)state;
	fx_init(&fx, 1 << 16, 4, true);
	s = fx_src_buf(&fx, 0, 4096);
	d = fx_dst_buf(&fx, 0, 4096);
	assert_ok(doca_task_submit(fx_task(&fx, s, d, 1)));
	assert_true(fx_progress_until(&fx, 1, 10000000));
	assert_int_equal(fx.ok, 1);
	assert_memory_equal(fx.dst, fx.src, 4096);
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	fx_fini(&fx);
	assert_false(mapped("libucp"));
	assert_false(mapped("libodma_ucx"));
}

static void process_import_loads_no_ucx(void **state)
{
	static uint8_t mem[8192] __attribute__((aligned(4096)));
	struct doca_dev *host = tu_open_dev("b1:00.0"), *dpu = tu_open_dev("03:00.0");
	struct doca_mmap *m, *imp;
	const void *desc;
	size_t len;

	(void)state;
	assert_ok(doca_mmap_create(&m));
	assert_ok(doca_mmap_add_dev(m, host));
	assert_ok(doca_mmap_set_memrange(m, mem, sizeof(mem)));
	assert_ok(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_WRITE));
	assert_ok(doca_mmap_start(m));
	assert_ok(doca_mmap_export_pci(m, host, &desc, &len));
	assert_ok(doca_mmap_create_from_export(NULL, desc, len, dpu, &imp));
	assert_ok(doca_mmap_destroy(imp));
	assert_ok(doca_mmap_destroy(m));
	assert_ok(doca_dev_close(dpu));
	assert_ok(doca_dev_close(host));
	assert_false(mapped("libucp"));
	assert_false(mapped("libodma_ucx"));
}

/* The transports' status lines (libdoca_common, for doca_caps). */
const char *doca_priv_transport_info(unsigned int i, const char **status);

static void asking_for_ucx_loads_it(void **state)
{
	const char *name, *status = NULL;
	bool ucx = false;

	(void)state;
	for (unsigned int i = 0; (name = doca_priv_transport_info(i, &status)) != NULL; i++)
		if (strcmp(name, "ucx") == 0)
			ucx = strncmp(status, "built in", 8) == 0;
#ifdef ODMA_HAVE_UCX
	assert_true(ucx);
	assert_true(mapped("libodma_ucx"));
	assert_true(mapped("libucp"));
#else
	assert_false(ucx);
#endif
}

/* The UCX row's status line under ODMA_LINK and UCX_TLS (both unset: NULL). */
static const char *link_line(const char *link, const char *tls)
{
	const char *name, *status = NULL;

	if (link != NULL)
		setenv("ODMA_LINK", link, 1);
	else
		unsetenv("ODMA_LINK");
	if (tls != NULL)
		setenv("UCX_TLS", tls, 1);
	else
		unsetenv("UCX_TLS");
	for (unsigned int i = 0; (name = doca_priv_transport_info(i, &status)) != NULL; i++)
		if (strcmp(name, "ucx") == 0)
			return status;
	return "";
}

/*
 * Which link the network transport would run on: odma's TCP link by default and wherever
 * UCX_TLS lets UCX use TCP (names tcp, is "all" or a list of exclusions); UCX's when
 * ODMA_LINK=ucp, or when UCX_TLS leaves TCP out (an RDMA NIC); ODMA_LINK=tcp wins over UCX_TLS.
 */
static void the_link_follows_odma_link_and_ucx_tls(void **state)
{
	static const struct {
		const char *link, *tls;
		bool tcp;
	} cases[] = {
		{ NULL, NULL, true },          { "auto", NULL, true },  { NULL, "tcp", true },
		{ NULL, "tcp,self,sm", true }, { NULL, "rc", false },   { NULL, "rc_x,ud", false },
		{ NULL, "rc,tcp", true },      { NULL, "^shm", true },  { NULL, "all", true },
		{ "ucp", NULL, false },        { "ucp", "tcp", false }, { "tcp", "rc", true },
	};

	(void)state;
#ifndef ODMA_HAVE_UCX
	skip();
#endif
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *line = link_line(cases[i].link, cases[i].tls);

		if (cases[i].tcp != (strstr(line, "odma's TCP link") != NULL))
			fail_msg("ODMA_LINK=%s UCX_TLS=%s: %s", cases[i].link ? cases[i].link : "-",
			         cases[i].tls ? cases[i].tls : "-", line);
		if (!cases[i].tcp)
			assert_non_null(strstr(line, "UCX"));
	}
	assert_non_null(strstr(link_line("bogus", NULL), "ODMA_LINK is not auto, tcp or ucp"));
	unsetenv("ODMA_LINK");
	unsetenv("UCX_TLS");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(local_dma_loads_no_ucx),
		cmocka_unit_test(process_import_loads_no_ucx),
		cmocka_unit_test(asking_for_ucx_loads_it),
		cmocka_unit_test(the_link_follows_odma_link_and_ucx_tls),
	};

	unsetenv("ODMA_TRANSPORT");
	unsetenv("ODMA_FABRIC");
	unsetenv("ODMA_SIDE");
	unsetenv("ODMA_SYSTEM");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
