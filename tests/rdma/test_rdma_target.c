/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The exporter's own check of a remote access (white box: doca_priv_rdma_mem_access, what
 * every RDMA reader thread calls): whatever a peer sends, nothing outside a live export
 * with the right permission is touched. Forged records, keys, ranges, misaligned atomics,
 * a missing permission and a revoked export are each refused with their code.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/memory/memory.h"
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_target_checks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
