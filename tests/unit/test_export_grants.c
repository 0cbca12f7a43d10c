/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * What an export grants a peer, seen from the wire (issue 28, items 1 and 9). A peer that has
 * an export's descriptor attaches through the UCX transport as an attacker would, claiming
 * every right, and tries a GET and a PUT: the exporter serves exactly what the one grant
 * says (PCI export: read, write under PCI_READ_WRITE; RDMA export: read under RDMA_READ,
 * write under RDMA_WRITE, atomics under RDMA_ATOMIC, never READ by default), and a refused PUT
 * or atomic changes no byte. Then both RDMA access paths (the target's own, and a transport
 * atomic) on pages the program protected after the export: the access fails, the process
 * lives. This process is the exporter and the importer (loopback).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <doca_mmap.h>
#include <doca_sync_event.h>

#include "core/memory/memory.h"
#include "core/sync_event/sync_event.h"
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

/* Runs @io (its done and arg are set here) and waits for it: its status. */
static doca_error_t io_run(struct odma_tp_io *io)
{
	struct iowait w = { .st = DOCA_ERROR_UNKNOWN };
	doca_error_t r;

	io->done = io_done;
	io->arg = &w;
	r = odma_tp_io_start(io);
	if (r != DOCA_SUCCESS)
		return r;
	for (int i = 0; i < 5000 && !atomic_load(&w.done); i++)
		usleep(1000);
	assert_true(atomic_load(&w.done));
	return w.st;
}

/* One io of 64 bytes at @addr through @rm; its status. */
static doca_error_t io64(struct odma_tp_remote *rm, bool write, uint64_t addr, uint8_t *local)
{
	struct odma_tp_io io = {
		.remote = rm, .write = write, .local = local, .remote_addr = addr, .len = 64
	};

	return io_run(&io);
}

/*
 * One atomic io (@op: enum odma_tp_atomic_op) on the u64 at @addr through @rm: its status;
 * *@old the value before, *@refused whether the exporter answered a failure.
 */
static doca_error_t io_atomic(struct odma_tp_remote *rm, uint8_t op, uint64_t addr,
                              uint64_t operand, uint64_t compare, uint64_t *old, bool *refused)
{
	struct odma_tp_io io = { .remote = rm,
		                 .local = old,
		                 .remote_addr = addr,
		                 .len = 8,
		                 .atomic = op,
		                 .operand = operand,
		                 .compare = compare };
	doca_error_t r = io_run(&io);

	*refused = io.refused;
	return r;
}

struct export_case {
	const char *what;
	bool pci;
	uint32_t perms;
	bool can_read, can_write, can_atomic;
};

static const struct export_case cases[] = {
	{ "PCI_READ_ONLY", true, DOCA_ACCESS_FLAG_PCI_READ_ONLY, true, false, false },
	{ "PCI_READ_WRITE", true, DOCA_ACCESS_FLAG_PCI_READ_WRITE, true, true, false },
	{ "RDMA_WRITE alone", false, DOCA_ACCESS_FLAG_RDMA_WRITE, false, true, false },
	{ "RDMA_READ alone", false, DOCA_ACCESS_FLAG_RDMA_READ, true, false, false },
	{ "RDMA_READ|RDMA_WRITE", false, DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE,
	  true, true, false },
	{ "RDMA_ATOMIC alone", false, DOCA_ACCESS_FLAG_RDMA_ATOMIC, false, false, true },
};

/*
 * The atomics of case @k at word 64 of @mem (which holds 0x5a bytes) through @rm: a fetch-add
 * of 2, then a compare-and-swap to 9 that expects the sum and one that expects something else.
 * Served (each old value right) exactly when the grant has RDMA_ATOMIC; else each is refused
 * (answered: not applied) and the word is untouched.
 */
static void check_atomics(const struct export_case *k, struct odma_tp_remote *rm, uint64_t addr,
                          const uint8_t *mem)
{
	const uint64_t before = 0x5a5a5a5a5a5a5a5aull;
	uint64_t old = 0, word;
	bool refused = false;
	doca_error_t st[3];

	st[0] = io_atomic(rm, ODMA_TP_AT_FADD, addr + 512, 2, 0, &old, &refused);
	if (k->can_atomic) {
		assert_ok(st[0]);
		assert_true(old == before);
	}
	st[1] = io_atomic(rm, ODMA_TP_AT_CAS, addr + 512, 9, before + 2, &old, &refused);
	if (k->can_atomic)
		assert_true(old == before + 2);
	st[2] = io_atomic(rm, ODMA_TP_AT_CAS, addr + 512, 1, 77, &old, &refused);
	memcpy(&word, mem + 512, 8);
	for (int i = 0; i < 3; i++) {
		if ((st[i] == DOCA_SUCCESS) != k->can_atomic)
			fail_msg("%s: atomic %d %s", k->what, i,
			         k->can_atomic ? "refused" : "was served");
	}
	if (k->can_atomic) {
		assert_true(old == 9); /* the last CAS expected 77: nothing changed */
		assert_true(word == 9);
	} else {
		assert_true(refused); /* the exporter answered: not applied */
		assert_true(word == before);
	}
}

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
		assert_ok(odma_tp_attach(odma_tp_find("ucx"), &r, &rm, issued, &issued_len));

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
		check_atomics(k, &rm, d.addr, mem);
		odma_tp_detach(&rm);
		assert_ok(doca_mmap_stop(m));
		assert_ok(doca_mmap_destroy(m));
	}
	assert_ok(doca_dev_close(dev));
}

/*
 * The RDMA target's access path (doca_priv_rdma_mem_access) and the transport's atomics on an
 * RDMA grant (odma_tp_region_atomic) on a page the program protected after the export: each
 * kind of access fails with IO_FAILED, the page beside it still serves, and the process lives.
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
	for (uint8_t op = ODMA_TP_AT_READ; op <= ODMA_TP_AT_CAS; op++)
		assert_doca(DOCA_ERROR_IO_FAILED,
		            odma_tp_region_atomic(d.region_id, d.key, d.generation,
		                                  d.addr + (uint64_t)pg, op, 1, 0, &buf[1]));
	assert_ok(odma_tp_region_atomic(d.region_id, d.key, d.generation, d.addr + 8,
	                                ODMA_TP_AT_CAS, 5, 0x1111111111111111ull, &buf[1]));
	assert_int_equal(buf[1], 0x1111111111111111ull);
	assert_int_equal(*(uint64_t *)(void *)(mem + 8), 5);
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
 * One registry, one grant per record: a server reaches only the grants it serves. An RDMA
 * export's PCI flags give the transport nothing (its RDMA_ATOMIC gives atomics); a PCI export
 * is no RDMA grant; a sync event exported to the network is reached by its own operations
 * only, and not after it stopped.
 */
static void test_grants_do_not_cross(void **state)
{
	struct doca_dev *dev = tu_open_dev(NULL);
	static uint64_t mem[1024] __attribute__((aligned(4096)));
	struct odma_export_desc d;
	struct doca_mmap *m;
	struct doca_sync_event *se;
	struct odma_tp_region *g;
	const uint8_t *blob;
	uint64_t v[2] = { 5, 0 }, old = 0;
	uint8_t key[16];
	uint32_t id;
	size_t sz;
	void *local;

	(void)state;
	m = export_one(dev, (uint8_t *)mem, sizeof(mem), false,
	               DOCA_ACCESS_FLAG_PCI_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ |
	                       DOCA_ACCESS_FLAG_RDMA_ATOMIC,
	               &d);
	mem[1] = 40;
	assert_doca(DOCA_ERROR_NOT_PERMITTED,
	            odma_tp_region_check(d.region_id, d.key, d.generation, d.addr, 8, ODMA_TP_WRITE,
	                                 &local));
	/* RDMA_ATOMIC: the transport's atomic and the RDMA service's both apply, on one word */
	assert_ok(odma_tp_region_atomic(d.region_id, d.key, d.generation, d.addr + 8,
	                                ODMA_TP_AT_FADD, 1, 0, &old));
	assert_int_equal(old, 40);
	assert_int_equal(mem[1], 41);
	assert_ok(doca_priv_rdma_mem_access(d.record_addr, d.key, d.addr + 8, 8,
	                                    ODMA_RDMA_OP_FETCH_ADD, v));
	assert_int_equal(v[0], 41);
	assert_int_equal(mem[1], 46);
	assert_ok(doca_mmap_stop(m));
	assert_ok(doca_mmap_destroy(m));

	m = export_one(dev, (uint8_t *)mem, sizeof(mem), true,
	               DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_RDMA_READ |
	                       DOCA_ACCESS_FLAG_RDMA_WRITE,
	               &d);
	assert_doca(DOCA_ERROR_NOT_FOUND, doca_priv_rdma_mem_access(d.record_addr, d.key, d.addr, 8,
	                                                            ODMA_RDMA_OP_WRITE, v));
	assert_ok(doca_mmap_stop(m));
	assert_ok(doca_mmap_destroy(m));

	assert_ok(doca_sync_event_create(&se));
	assert_ok(doca_sync_event_start(se));
	assert_ok(doca_sync_event_export_to_remote_net(se, &blob, &sz));
	assert_int_equal(sz, 40);
	memcpy(key, blob + 16, 16);
	memcpy(&id, blob + 32, 4);
	g = odma_tp_region_find(se, ODMA_TP_GRANT_SE_NET);
	assert_non_null(g);
	assert_int_equal(g->id, id);
	v[0] = 3;
	assert_ok(doca_priv_se_remote_access(id, key, ODMA_SE_NET_ADD, v));
	assert_doca(
	        DOCA_ERROR_NOT_PERMITTED,
	        odma_tp_region_check(id, key, g->hdr.generation, g->addr, 8, ODMA_TP_READ, &local));
	assert_doca(DOCA_ERROR_NOT_PERMITTED,
	            odma_tp_region_atomic(id, key, g->hdr.generation, g->addr, ODMA_TP_AT_FADD, 1,
	                                  0, &old));
	assert_doca(DOCA_ERROR_NOT_FOUND,
	            doca_priv_rdma_mem_access((uint64_t)(uintptr_t)g, key, g->addr, 8,
	                                      ODMA_RDMA_OP_FETCH_ADD, v));
	assert_ok(doca_priv_se_remote_access(id, key, ODMA_SE_NET_GET, v));
	assert_int_equal(v[0], 3);
	assert_ok(doca_sync_event_stop(se));
	assert_doca(DOCA_ERROR_NOT_FOUND, doca_priv_se_remote_access(id, key, ODMA_SE_NET_GET, v));
	assert_null(odma_tp_region_find(se, ODMA_TP_GRANT_SE_NET));
	assert_ok(doca_sync_event_destroy(se));
	assert_ok(doca_dev_close(dev));
}

/*
 * A re-export (the DPU exports over RDMA what it imported from its host's PCI export) is a
 * record of the same registry: it grants at most what the import does (a PCI_READ_ONLY
 * import: no write, whatever RDMA flags the host's mmap has; never atomics), its requests
 * are forwarded to the host, the transports do not serve it (its addresses are the host's),
 * a host that revoked its export fails it and ends it, and stopping the import revokes it.
 */
static void test_reexport_is_clipped_and_revoked_with_its_import(void **state)
{
	const struct odma_tp_region *g;
	struct doca_dev *host = tu_open_dev("b1:00.0"), *dpu = tu_open_dev("03:00.0");
	static uint8_t mem[8192] __attribute__((aligned(4096)));
	struct odma_export_desc d, r;
	struct doca_mmap *m, *im;
	const void *desc, *rdesc;
	size_t n, rn;
	uint8_t buf[64];
	const char *why = NULL;
	void *local;

	(void)state;
	m = export_one(host, mem, sizeof(mem), true,
	               DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_RDMA_READ |
	                       DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC,
	               &d);
	for (size_t i = 0; i < sizeof(mem); i++)
		mem[i] = (uint8_t)i;
	desc = m->exports->desc;
	n = m->exports->desc_len;
	assert_ok(doca_mmap_create_from_export(NULL, desc, n, dpu, &im));
	assert_ok(doca_mmap_export_rdma(im, dpu, &rdesc, &rn));
	assert_ok(odma_export_desc_parse(rdesc, rn, &r, &why));
	assert_true(doca_priv_rdma_mem_forwarded(r.record_addr));
	assert_ok(doca_priv_rdma_mem_access(r.record_addr, r.key, r.addr + 64, sizeof(buf),
	                                    ODMA_RDMA_OP_READ, buf));
	assert_memory_equal(buf, mem + 64, sizeof(buf));
	memset(buf, 0xee, sizeof(buf));
	assert_doca(DOCA_ERROR_NOT_PERMITTED,
	            doca_priv_rdma_mem_access(r.record_addr, r.key, r.addr + 64, sizeof(buf),
	                                      ODMA_RDMA_OP_WRITE, buf));
	assert_int_equal(mem[64], 64);
	assert_doca(DOCA_ERROR_NOT_PERMITTED,
	            doca_priv_rdma_mem_access(r.record_addr, r.key, r.addr, 8,
	                                      ODMA_RDMA_OP_FETCH_ADD, buf));
	/* the transports do not serve it: its descriptor names no region, and its record (found
	 * by address, as this white-box test may) is refused to them */
	assert_int_equal(r.region_id, 0);
	g = (const struct odma_tp_region *)(uintptr_t)r.record_addr;
	assert_doca(DOCA_ERROR_NOT_PERMITTED,
	            odma_tp_region_check(g->id, r.key, g->hdr.generation, r.addr, 8, ODMA_TP_READ,
	                                 &local));
	/* the host revokes its export: the access fails and revokes the re-export with it */
	assert_ok(doca_mmap_stop(m));
	assert_doca(DOCA_ERROR_IO_FAILED,
	            doca_priv_rdma_mem_access(r.record_addr, r.key, r.addr + 64, sizeof(buf),
	                                      ODMA_RDMA_OP_READ, buf));
	assert_false(doca_priv_rdma_mem_forwarded(r.record_addr));
	assert_doca(DOCA_ERROR_NOT_FOUND,
	            doca_priv_rdma_mem_access(r.record_addr, r.key, r.addr + 64, sizeof(buf),
	                                      ODMA_RDMA_OP_READ, buf));
	assert_ok(doca_mmap_stop(im)); /* still revokes it, once */
	assert_false(doca_priv_rdma_mem_forwarded(r.record_addr));
	assert_doca(DOCA_ERROR_NOT_FOUND,
	            doca_priv_rdma_mem_access(r.record_addr, r.key, r.addr + 64, sizeof(buf),
	                                      ODMA_RDMA_OP_READ, buf));
	assert_ok(doca_mmap_destroy(im));
	assert_ok(doca_mmap_destroy(m));
	assert_ok(doca_dev_close(dpu));
	assert_ok(doca_dev_close(host));
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

/*
 * PCI addresses in either case (DOCA takes "0000:3B:00.0" as well as "0000:3b:00.0"): a
 * sync event export blob and a memory descriptor naming one in uppercase both parse, and
 * a non-hex character is refused by both.
 */
static void test_pci_addresses_of_either_case_parse(void **state)
{
	struct odma_se_blob b = { .version = ODMA_SE_BLOB_VERSION, .pid = 1, .key = { 1 } };
	struct odma_export_desc d;
	uint8_t bytes[ODMA_EXPORT_DESC_MAX > ODMA_SE_BLOB_MAX ? ODMA_EXPORT_DESC_MAX
	                                                      : ODMA_SE_BLOB_MAX];
	static uint8_t mem[4096] __attribute__((aligned(4096)));
	struct doca_dev *dev = tu_open_dev(NULL);
	struct doca_mmap *m;
	const char *why = NULL;
	size_t n;

	(void)state;
	strcpy(b.pci, "0000:3B:00.0");
	n = odma_se_blob_encode(&b, bytes);
	assert_ok(odma_se_blob_parse(bytes, n, &b, &why));
	strcpy(b.pci, "0000:3g:00.0");
	n = odma_se_blob_encode(&b, bytes);
	assert_doca(DOCA_ERROR_INVALID_VALUE, odma_se_blob_parse(bytes, n, &b, &why));
	m = export_one(dev, mem, sizeof(mem), true, DOCA_ACCESS_FLAG_PCI_READ_WRITE, &d);
	strcpy(d.pci, "0000:3B:00.0");
	n = odma_export_desc_encode(&d, bytes);
	assert_ok(odma_export_desc_parse(bytes, n, &d, &why));
	strcpy(d.pci, "0000:3g:00.0");
	n = odma_export_desc_encode(&d, bytes);
	assert_doca(DOCA_ERROR_INVALID_VALUE, odma_export_desc_parse(bytes, n, &d, &why));
	assert_ok(doca_mmap_stop(m));
	assert_ok(doca_mmap_destroy(m));
	assert_ok(doca_dev_close(dev));
}

struct stopper {
	struct doca_mmap *m;
	atomic_bool done;
};

static void *stop_thread(void *arg)
{
	struct stopper *s = arg;

	assert_ok(doca_mmap_stop(s->m));
	atomic_store(&s->done, true);
	return NULL;
}

/* A revocation waits for the access it let in: nothing touches the region after it. */
static void test_revocation_waits_for_holders(void **state)
{
	struct doca_dev *dev = tu_open_dev(NULL);
	static uint8_t mem[4096] __attribute__((aligned(4096)));
	struct odma_export_desc d;
	struct odma_tp_region *g;
	struct stopper s = { 0 };
	pthread_t t;

	(void)state;
	s.m = export_one(dev, mem, sizeof(mem), false, DOCA_ACCESS_FLAG_RDMA_READ, &d);
	assert_doca(DOCA_ERROR_NOT_PERMITTED,
	            odma_tp_region_enter(d.record_addr, true, ODMA_TP_GRANT_RDMA, d.key,
	                                 ODMA_TP_WRITE, &g));
	assert_ok(odma_tp_region_enter(d.record_addr, true, ODMA_TP_GRANT_RDMA, d.key, ODMA_TP_READ,
	                               &g));
	assert_int_equal(pthread_create(&t, NULL, stop_thread, &s), 0);
	usleep(100 * 1000);
	assert_false(atomic_load(&s.done)); /* the stop waits for the holder */
	odma_tp_region_leave(g);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_true(atomic_load(&s.done));
	assert_doca(DOCA_ERROR_NOT_FOUND,
	            odma_tp_region_enter(d.record_addr, true, ODMA_TP_GRANT_RDMA, d.key,
	                                 ODMA_TP_READ, &g));
	assert_ok(doca_mmap_destroy(s.m));
	assert_ok(doca_dev_close(dev));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grant_is_the_exports_own),
		cmocka_unit_test(test_rdma_access_to_a_dead_page_fails_it),
		cmocka_unit_test(test_grants_do_not_cross),
		cmocka_unit_test(test_reexport_is_clipped_and_revoked_with_its_import),
		cmocka_unit_test(test_revocation_waits_for_holders),
		cmocka_unit_test(test_rdma_descriptors_name_their_region),
		cmocka_unit_test(test_pci_addresses_of_either_case_parse),
	};

	/*
	 * Remote accesses copy with process_vm_readv, not with core/copy's fault guard (linked in
	 * with the sync events): cmocka installs its own SIGSEGV handler around each test, over
	 * the guard's.
	 */
	setenv("ODMA_COPY_GUARD", "0", 1);
	setenv("ODMA_TRANSPORT", "ucx", 1);
	setenv("ODMA_SYSTEM", "bf3", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
