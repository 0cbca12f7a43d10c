/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The exporter's own check of a remote access (white box: doca_priv_rdma_mem_access, what
 * every RDMA reader thread calls): whatever a peer sends, nothing outside a live export
 * with the right permission is touched. Forged records, keys, ranges, misaligned atomics,
 * a missing permission and a revoked export are each refused with their code. A page the
 * program made read-only after the export fails a peer's write and atomics, not the process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/copy/copy.h"
#include "core/memory/memory.h"
#include "core/transport/transport.h"
#include "test_util.h"

static uint8_t mem[4096] __attribute__((aligned(64)));

static struct doca_mmap *exported(struct doca_dev *dev, uint32_t perms, struct odma_export_desc *d)
{
	struct doca_mmap *m;
	const void *blob;
	size_t n;
	const char *why;

	assert_ok(doca_mmap_create(&m));
	assert_ok(doca_mmap_set_memrange(m, mem, sizeof(mem)));
	assert_ok(doca_mmap_set_permissions(m, perms));
	assert_ok(doca_mmap_add_dev(m, dev));
	assert_ok(doca_mmap_start(m));
	assert_ok(doca_mmap_export_rdma(m, dev, &blob, &n));
	assert_ok(odma_export_desc_parse(blob, n, d, &why));
	return m;
}

static void test_target_checks(void **state)
{
	struct doca_dev *dev = tu_open_dev("b1:00.0");
	struct odma_export_desc d;
	struct doca_mmap *m;
	uint64_t base = (uint64_t)(uintptr_t)mem, v[2];
	uint8_t buf[64], key[16];

	(void)state;
	m = exported(dev, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE, &d);
	memset(buf, 7, sizeof(buf));
	assert_ok(doca_priv_rdma_mem_access(d.record_addr, d.key, base + 100, 64,
	                                    ODMA_RDMA_OP_WRITE, buf));
	assert_int_equal(mem[100], 7);
	assert_int_equal(mem[163], 7);
	/* no RDMA_READ / RDMA_ATOMIC on this export */
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_priv_rdma_mem_access(d.record_addr, d.key, base,
	                                                                8, ODMA_RDMA_OP_READ, buf));
	assert_doca(DOCA_ERROR_NOT_PERMITTED,
	            doca_priv_rdma_mem_access(d.record_addr, d.key, base, 8, ODMA_RDMA_OP_FETCH_ADD,
	                                      v));
	/* outside the range, wrapping around, a forged key, a forged record */
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_priv_rdma_mem_access(d.record_addr, d.key, base + 4090, 8,
	                                      ODMA_RDMA_OP_WRITE, buf));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_priv_rdma_mem_access(d.record_addr, d.key, base - 1, 8, ODMA_RDMA_OP_WRITE,
	                                      buf));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_priv_rdma_mem_access(d.record_addr, d.key, base + 8, UINT64_MAX,
	                                      ODMA_RDMA_OP_WRITE, buf));
	memcpy(key, d.key, 16);
	key[0] ^= 1;
	assert_doca(DOCA_ERROR_NOT_FOUND, doca_priv_rdma_mem_access(d.record_addr, key, base, 8,
	                                                            ODMA_RDMA_OP_WRITE, buf));
	assert_doca(DOCA_ERROR_NOT_FOUND, doca_priv_rdma_mem_access(d.record_addr + 64, d.key, base,
	                                                            8, ODMA_RDMA_OP_WRITE, buf));
	/* revoked by stop: nothing is touched after it */
	assert_ok(doca_mmap_stop(m));
	mem[0] = 1;
	assert_doca(DOCA_ERROR_NOT_FOUND, doca_priv_rdma_mem_access(d.record_addr, d.key, base, 8,
	                                                            ODMA_RDMA_OP_WRITE, buf));
	assert_int_equal(mem[0], 1);
	assert_ok(doca_mmap_destroy(m));
	/* atomics: aligned 8 bytes only, old value returned */
	m = exported(dev, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC, &d);
	memset(mem, 0, 16);
	v[0] = 0;
	v[1] = 9;
	assert_ok(doca_priv_rdma_mem_access(d.record_addr, d.key, base + 8, 8, ODMA_RDMA_OP_CMP_SWP,
	                                    v));
	assert_int_equal(v[0], 0);
	v[0] = 1;
	assert_ok(doca_priv_rdma_mem_access(d.record_addr, d.key, base + 8, 8,
	                                    ODMA_RDMA_OP_FETCH_ADD, v));
	assert_int_equal(v[0], 9);
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_priv_rdma_mem_access(d.record_addr, d.key, base + 4, 8,
	                                      ODMA_RDMA_OP_FETCH_ADD, v));
	assert_ok(doca_mmap_destroy(m));
	assert_ok(doca_dev_close(dev));
}

/* A peer's accesses to a page the program made read-only after the export. */
static void read_only_page(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *p =
	        mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct doca_dev *dev;
	struct odma_export_desc d;
	struct doca_mmap *m;
	uint64_t base = (uint64_t)(uintptr_t)p, v[2], old = 0;
	const void *blob;
	const char *why;
	size_t n;

	dev = tu_open_pci_or_null("b1:00.0");
	TU_CHECK(p != MAP_FAILED && dev != NULL);
	memset(p, 0x22, (size_t)pg);
	TU_CHECK(doca_mmap_create(&m) == DOCA_SUCCESS);
	TU_CHECK(doca_mmap_set_memrange(m, p, (size_t)pg) == DOCA_SUCCESS);
	TU_CHECK(doca_mmap_set_permissions(
	                 m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ |
	                            DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC) ==
	         DOCA_SUCCESS);
	TU_CHECK(doca_mmap_add_dev(m, dev) == DOCA_SUCCESS && doca_mmap_start(m) == DOCA_SUCCESS);
	TU_CHECK(doca_mmap_export_rdma(m, dev, &blob, &n) == DOCA_SUCCESS);
	TU_CHECK(odma_export_desc_parse(blob, n, &d, &why) == DOCA_SUCCESS);
	TU_CHECK(mprotect(p, (size_t)pg, PROT_READ) == 0);
	/* a read serves; a write, a fetch-add, a compare-and-swap fail (the atomics crashed) */
	TU_CHECK(doca_priv_rdma_mem_access(d.record_addr, d.key, base, 8, ODMA_RDMA_OP_READ, v) ==
	         DOCA_SUCCESS);
	TU_CHECK(v[0] == 0x2222222222222222ull);
	TU_CHECK(doca_priv_rdma_mem_access(d.record_addr, d.key, base, 8, ODMA_RDMA_OP_WRITE, v) ==
	         DOCA_ERROR_IO_FAILED);
	v[0] = 1;
	TU_CHECK(doca_priv_rdma_mem_access(d.record_addr, d.key, base, 8, ODMA_RDMA_OP_FETCH_ADD,
	                                   v) == DOCA_ERROR_IO_FAILED);
	v[0] = 0x2222222222222222ull;
	v[1] = 5;
	TU_CHECK(doca_priv_rdma_mem_access(d.record_addr, d.key, base, 8, ODMA_RDMA_OP_CMP_SWP,
	                                   v) == DOCA_ERROR_IO_FAILED);
	/* the same grant through the transport's atomics (a peer over the network) */
	for (int op = ODMA_TP_AT_FADD; op <= ODMA_TP_AT_CAS; op++)
		TU_CHECK(odma_tp_region_atomic(d.region_id, d.key, d.generation, base + 8, op, 1,
		                               0x2222222222222222ull,
		                               &old) == DOCA_ERROR_IO_FAILED);
	TU_CHECK(odma_tp_region_atomic(d.region_id, d.key, d.generation, base + 8, ODMA_TP_AT_READ,
	                               0, 0, &old) == DOCA_SUCCESS &&
	         old == 0x2222222222222222ull);
	TU_CHECK(mprotect(p, (size_t)pg, PROT_READ | PROT_WRITE) == 0);
	v[0] = 1;
	TU_CHECK(doca_priv_rdma_mem_access(d.record_addr, d.key, base, 8, ODMA_RDMA_OP_FETCH_ADD,
	                                   v) == DOCA_SUCCESS);
	TU_CHECK(v[0] == 0x2222222222222222ull && p[0] == 0x23);
	TU_CHECK(doca_mmap_destroy(m) == DOCA_SUCCESS && doca_dev_close(dev) == DOCA_SUCCESS);
}

/*
 * This program run again (--read-only-page: a fresh process, whose fault guard is installed
 * over SIGSEGV and SIGBUS at their default action, not over cmocka's handler): a fault the
 * guard did not catch kills it with the signal.
 */
static const char *self; /* this program (argv[0]) */

static void test_read_only_page(void **state)
{
	int st;

	(void)state;
	st = tu_run_self(self, "--read-only-page");
	if (WIFSIGNALED(st))
		fail_msg("a peer's access to a read-only page killed the process with signal %d",
		         WTERMSIG(st));
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* The same with the fault guard off (ODMA_COPY_GUARD=0): the fallback must not crash either. */
static void test_read_only_page_no_guard(void **state)
{
	setenv("ODMA_COPY_GUARD", "0", 1);
	test_read_only_page(state);
	unsetenv("ODMA_COPY_GUARD");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_target_checks),
		cmocka_unit_test(test_read_only_page),
		cmocka_unit_test(test_read_only_page_no_guard),
	};

	self = argv[0];
	if (argc == 2 && strcmp(argv[1], "--read-only-page") == 0) {
		TU_CHECK(odma_copy_init() ==
		         DOCA_SUCCESS); /* the guard, as any odma process has it */
		read_only_page();
		return 0;
	}

	return cmocka_run_group_tests(tests, NULL, NULL);
}
