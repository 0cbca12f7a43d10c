/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * What an export grants a peer, seen from the wire (issue 28, items 1 and 9). A peer that has
 * an export's descriptor attaches through the UCX transport as an attacker would, claiming
 * every right, and tries a GET and a PUT: the exporter serves exactly what the one grant
 * says (PCI export: read, write under PCI_READ_WRITE; RDMA export: read under RDMA_READ,
 * write under RDMA_WRITE, never READ by default), and a refused PUT changes no byte. Then the
 * RDMA target's own access path on pages the program protected after the export: the access
 * fails, the process lives. This process is the exporter and the importer (loopback).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <doca_mmap.h>

#include "core/memory/memory.h"
#include "core/transport/transport.h"
#include "test_util.h"

struct iowait {
	atomic_bool done;
	doca_error_t st;
};

static void io_done(struct odma_tp_io *io, doca_error_t st)
{
	struct iowait *w = io->arg;

	w->st = st;
	atomic_store(&w->done, true);
}

/* One io of 64 bytes at @addr through @rm; its status. */
static doca_error_t io64(struct odma_tp_remote *rm, bool write, uint64_t addr, uint8_t *local)
{
	struct iowait w = { .st = DOCA_ERROR_UNKNOWN };
	struct odma_tp_io io = { .remote = rm,
		                 .write = write,
		                 .local = local,
		                 .remote_addr = addr,
		                 .len = 64,
		                 .done = io_done,
		                 .arg = &w };
	doca_error_t r = odma_tp_io_start(&io);

	if (r != DOCA_SUCCESS)
		return r;
	for (int i = 0; i < 5000 && !atomic_load(&w.done); i++)
		usleep(1000);
	assert_true(atomic_load(&w.done));
	return w.st;
}

struct export_case {
	const char *what;
	bool pci;
	uint32_t perms;
	bool can_read, can_write;
};

static const struct export_case cases[] = {
	{ "PCI_READ_ONLY", true, DOCA_ACCESS_FLAG_PCI_READ_ONLY, true, false },
	{ "PCI_READ_WRITE", true, DOCA_ACCESS_FLAG_PCI_READ_WRITE, true, true },
	{ "RDMA_WRITE alone", false, DOCA_ACCESS_FLAG_RDMA_WRITE, false, true },
	{ "RDMA_READ alone", false, DOCA_ACCESS_FLAG_RDMA_READ, true, false },
	{ "RDMA_READ|RDMA_WRITE", false, DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE,
	  true, true },
	{ "RDMA_ATOMIC alone", false, DOCA_ACCESS_FLAG_RDMA_ATOMIC, false, false },
};

/* An exporter's mmap of @mem with @perms, exported as the case says; its parsed descriptor. */
static struct doca_mmap *export_one(struct doca_dev *dev, uint8_t *mem, size_t len, bool pci,
                                    uint32_t perms, struct odma_export_desc *d)
{
	struct doca_mmap *m;
	const void *desc;
	size_t n;
	const char *why = NULL;

	assert_ok(doca_mmap_create(&m));
	assert_ok(doca_mmap_set_memrange(m, mem, len));
	assert_ok(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | perms));
	assert_ok(doca_mmap_add_dev(m, dev));
	assert_ok(doca_mmap_start(m));
	if (pci)
		assert_ok(doca_mmap_export_pci(m, dev, &desc, &n));
	else
		assert_ok(doca_mmap_export_rdma(m, dev, &desc, &n));
	assert_ok(odma_export_desc_parse(desc, n, d, &why));
	return m;
}

static void test_grant_is_the_exports_own(void **state)
{
	struct doca_dev *dev = tu_open_dev(NULL);
	static uint8_t mem[8192] __attribute__((aligned(4096)));

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct export_case *k = &cases[c];
		struct odma_export_desc d;
		struct doca_mmap *m = export_one(dev, mem, sizeof(mem), k->pci, k->perms, &d);
		struct odma_tp_reach r = { 0 };
		uint8_t issued[ODMA_TP_ISSUED_MAX], got[64], put[64];
		size_t issued_len = 0;
		struct odma_tp_remote rm;
		doca_error_t st;

		memset(mem, 0x5a, sizeof(mem));
		memset(put, 0xc3, sizeof(put));
		/* the attacker's reach: the descriptor's fields, every right claimed */
		assert_int_not_equal(d.net_len, 0);
		r.pidns = d.pidns;
		memcpy(r.boot_id, d.boot_id, 16);
		r.pid = d.pid;
		r.start_time = d.start_time;
		r.addr = d.addr;
		r.len = d.len;
		r.perms = ODMA_TP_READ | ODMA_TP_WRITE;
		r.record_addr = d.record_addr;
		r.region_id = d.region_id;
		memcpy(r.key, d.key, 16);
		r.generation = d.generation;
		r.net_len = d.net_len;
		memcpy(r.net_addr, d.net_addr, d.net_len);
		assert_ok(odma_tp_attach(odma_tp_get(ODMA_TP_UCX), &r, &rm, issued, &issued_len));

		memset(got, 0, sizeof(got));
		st = io64(&rm, false, d.addr + 128, got);
		if (k->can_read) {
			if (st != DOCA_SUCCESS)
				fail_msg("%s: GET refused (%s)", k->what, doca_error_get_name(st));
			assert_memory_equal(got, mem + 128, sizeof(got));
		} else {
			if (st == DOCA_SUCCESS)
				fail_msg("%s: a GET was served", k->what);
			for (size_t i = 0; i < sizeof(got); i++)
				assert_int_equal(got[i],
				                 0); /* not one byte of the window came back */
		}
		st = io64(&rm, true, d.addr + 256, put);
		if (k->can_write) {
			if (st != DOCA_SUCCESS)
				fail_msg("%s: PUT refused (%s)", k->what, doca_error_get_name(st));
			assert_memory_equal(mem + 256, put, sizeof(put));
		} else {
			if (st == DOCA_SUCCESS)
				fail_msg("%s: a PUT was served", k->what);
			for (size_t i = 0; i < sizeof(put); i++)
				assert_int_equal(mem[256 + i], 0x5a); /* nothing written */
		}
		odma_tp_detach(&rm);
		assert_ok(doca_mmap_stop(m));
		assert_ok(doca_mmap_destroy(m));
	}
	assert_ok(doca_dev_close(dev));
}

/*
 * The RDMA target's access path (doca_priv_rdma_mem_access) on a page the program protected
 * after the export: each kind of access fails with IO_FAILED, the page beside it still
 * serves, and the process lives.
 */
static void test_rdma_access_to_a_dead_page_fails_it(void **state)
{
	struct doca_dev *dev = tu_open_dev(NULL);
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *mem = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE,
	                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t buf[8] = { 0 };
	struct odma_export_desc d;
	struct doca_mmap *m;

	(void)state;
	assert_true(mem != MAP_FAILED);
	memset(mem, 0x11, 2 * (size_t)pg);
	m = export_one(dev, mem, 2 * (size_t)pg, false,
	               DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE |
	                       DOCA_ACCESS_FLAG_RDMA_ATOMIC,
	               &d);
	assert_int_equal(mprotect(mem + pg, (size_t)pg, PROT_NONE), 0);
	assert_doca(DOCA_ERROR_IO_FAILED,
	            doca_priv_rdma_mem_access(d.record_addr, d.key, d.addr + (uint64_t)pg, 64,
	                                      ODMA_RDMA_OP_READ, buf));
	assert_doca(DOCA_ERROR_IO_FAILED,
	            doca_priv_rdma_mem_access(d.record_addr, d.key, d.addr + (uint64_t)pg, 64,
	                                      ODMA_RDMA_OP_WRITE, buf));
	assert_doca(DOCA_ERROR_IO_FAILED,
	            doca_priv_rdma_mem_access(d.record_addr, d.key, d.addr + (uint64_t)pg, 8,
	                                      ODMA_RDMA_OP_FETCH_ADD, buf));
	/* the first page still serves: the read brings its bytes, the add its old value */
	assert_ok(doca_priv_rdma_mem_access(d.record_addr, d.key, d.addr, 64, ODMA_RDMA_OP_READ,
	                                    buf));
	assert_int_equal(buf[0], 0x1111111111111111ull);
	buf[0] = 1;
	assert_ok(doca_priv_rdma_mem_access(d.record_addr, d.key, d.addr, 8, ODMA_RDMA_OP_FETCH_ADD,
	                                    buf));
	assert_int_equal(buf[0], 0x1111111111111111ull);
	assert_int_equal(*(uint64_t *)(void *)mem, 0x1111111111111112ull);
	assert_ok(doca_mmap_stop(m));
	assert_ok(doca_mmap_destroy(m));
	munmap(mem, 2 * (size_t)pg);
	assert_ok(doca_dev_close(dev));
}

/*
 * What an RDMA importer attaches: an RDMA export names its transport region (DOCA RDMA
 * attaches it over its connection), a re-export of an imported PCI export names none
 * (region id 0, valid for RDMA descriptors only: its requests are forwarded), and the
 * attach of such an import is refused before any endpoint is used.
 */
static void test_rdma_descriptors_name_their_region(void **state)
{
	static uint8_t mem[8192] __attribute__((aligned(4096)));
	struct doca_dev *host = tu_open_dev("b1:00.0"), *dpu = tu_open_dev("03:00.0");
	struct odma_export_desc d, pd;
	struct doca_mmap *m, *im, *rm;
	const void *desc;
	size_t n;
	const char *why = NULL;
	uint8_t bytes[ODMA_EXPORT_DESC_MAX];
	struct odma_tp_remote att;

	(void)state;
	m = export_one(host, mem, sizeof(mem), false,
	               DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_PCI_READ_WRITE, &d);
	assert_int_equal(d.version, ODMA_EXPORT_DESC_VERSION_NET);
	assert_int_not_equal(d.region_id, 0);
	/* the DPU imports the host's PCI export and re-exports it over RDMA */
	assert_ok(doca_mmap_export_pci(m, host, &desc, &n));
	assert_ok(odma_export_desc_parse(desc, n, &pd, &why));
	assert_ok(doca_mmap_create_from_export(NULL, desc, n, dpu, &im));
	assert_ok(doca_mmap_export_rdma(im, dpu, &desc, &n));
	assert_ok(odma_export_desc_parse(desc, n, &d, &why));
	assert_int_equal(d.kind, ODMA_EXPORT_RDMA);
	assert_int_equal(d.region_id, 0);
	assert_ok(doca_mmap_create_from_export(NULL, desc, n, host, &rm));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED, doca_priv_rdma_mem_attach(rm, NULL, &att));
	/* region id 0 in a PCI descriptor is refused */
	pd.region_id = 0;
	n = odma_export_desc_encode(&pd, bytes);
	assert_doca(DOCA_ERROR_INVALID_VALUE, odma_export_desc_parse(bytes, n, &pd, &why));
	assert_ok(doca_mmap_destroy(rm));
	assert_ok(doca_mmap_destroy(im));
	assert_ok(doca_mmap_stop(m));
	assert_ok(doca_mmap_destroy(m));
	assert_ok(doca_dev_close(dpu));
	assert_ok(doca_dev_close(host));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grant_is_the_exports_own),
		cmocka_unit_test(test_rdma_access_to_a_dead_page_fails_it),
		cmocka_unit_test(test_rdma_descriptors_name_their_region),
	};

	setenv("ODMA_TRANSPORT", "ucx", 1);
	setenv("ODMA_SYSTEM", "bf3", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
