/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The copy module (core/copy) white-box: a copy between buf lists moved as byte ranges in
 * any cut (the mover contract lets engines move any range, on any thread), the split
 * decision, the mover chosen from the mmaps' kinds, and the destination growth.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/copy/copy.h"
#include "core/device/device.h"
#include "test_util.h"

#define MEM 8192

static uint8_t src_mem[MEM], dst_mem[MEM];
static struct doca_mmap *ms, *md;
static struct doca_buf_inventory *inv;
static struct odma_dev_caps caps = { .max_buf_list_len = 64, .max_buf_size = 1 << 20 };

static int setup(void **state)
{
	(void)state;
	for (size_t i = 0; i < MEM; i++)
		src_mem[i] = (uint8_t)(i * 13 + 5);
	assert_ok(doca_mmap_create(&ms));
	assert_ok(doca_mmap_set_memrange(ms, src_mem, MEM));
	assert_ok(doca_mmap_start(ms));
	assert_ok(doca_mmap_create(&md));
	assert_ok(doca_mmap_set_memrange(md, dst_mem, MEM));
	assert_ok(doca_mmap_start(md));
	assert_ok(doca_buf_inventory_create(64, &inv));
	assert_ok(doca_buf_inventory_start(inv));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	assert_ok(doca_buf_inventory_stop(inv));
	assert_ok(doca_buf_inventory_destroy(inv));
	assert_ok(doca_mmap_destroy(ms));
	assert_ok(doca_mmap_destroy(md));
	return 0;
}

static size_t span(size_t len)
{
	return len != 0 ? len : 16;
}

/* A list of @n elements over [base, base + total) of @m: data segments (@data) or empty. */
static struct doca_buf *list(struct doca_mmap *m, uint8_t *base, const size_t *lens, int n,
                             bool data)
{
	struct doca_buf *head = NULL, *b;
	size_t off = 0;

	for (int i = 0; i < n; i++) {
		/* an empty element: a window of 16 bytes without data (or without room) */
		if (data == (lens[i] != 0))
			assert_ok(doca_buf_inventory_buf_get_by_data(inv, m, base + off,
			                                             span(lens[i]), &b));
		else
			assert_ok(doca_buf_inventory_buf_get_by_addr(inv, m, base + off,
			                                             span(lens[i]), &b));
		if (head == NULL)
			head = b;
		else
			assert_ok(doca_buf_chain_list(head, b));
		off += span(lens[i]) + 7; /* gaps between elements */
	}
	return head;
}

/* The bytes a correct copy writes: the source segments in order into the destination tails. */
static void expected(const size_t *sl, int ns, const size_t *dl, int nd, uint8_t *out)
{
	uint8_t flat[MEM];
	size_t n = 0, off = 0, k = 0;

	for (int i = 0; i < ns; i++) {
		memcpy(flat + n, src_mem + off, sl[i]);
		n += sl[i];
		off += span(sl[i]) + 7;
	}
	memset(out, 0, MEM);
	off = 0;
	for (int i = 0; i < nd && k < n; i++) {
		size_t w = dl[i] < n - k ? dl[i] : n - k;

		memcpy(out + off, flat + k, w);
		k += w;
		off += span(dl[i]) + 7;
	}
}

static void ranges_over_lists(void **state)
{
	static const size_t sl[] = { 100, 1, 0, 333, 64, 1000 };
	static const size_t dl[] = { 7, 500, 0, 250, 2000 };
	static const uint64_t cuts[][4] = {
		{ 1498, 0, 0, 0 },    { 1, 1497, 0, 0 },  { 100, 1, 333, 1064 },
		{ 7, 500, 250, 741 }, { 749, 749, 0, 0 }, { 3, 5, 1000, 490 },
	};
	uint8_t want[MEM];
	doca_error_t deferred;

	(void)state;
	expected(sl, 6, dl, 5, want);
	for (size_t c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
		struct odma_copy cp = { 0 };
		uint64_t off = 0;

		memset(dst_mem, 0, MEM);
		cp.src = list(ms, src_mem, sl, 6, true);
		cp.dst = list(md, dst_mem, dl, 5, false);
		assert_ok(odma_copy_validate(&cp, &caps, NULL, true, &deferred, NULL));
		assert_int_equal(deferred, DOCA_SUCCESS);
		assert_int_equal(cp.total, 1498);
		assert_int_equal(cp.split_at, 0); /* lists are never split */
		assert_false(odma_copy_is_remote(&cp));
		/* the ranges in reverse order: each stands alone */
		for (int k = 3; k >= 0; k--) {
			uint64_t at = 0;

			for (int j = 0; j < k; j++)
				at += cuts[c][j];
			if (cuts[c][k] != 0)
				assert_ok(odma_copy_move(&cp, at, cuts[c][k]));
			off += cuts[c][k];
		}
		assert_int_equal(off, 1498);
		assert_memory_equal(dst_mem, want, MEM);
		odma_copy_grow_dst(&cp);
		for (const struct doca_buf *d = cp.dst; d != NULL; d = d->next) {
			size_t len;

			assert_ok(doca_buf_get_data_len(d, &len));
			assert_true(len <= 2000);
		}
		assert_ok(doca_buf_dec_refcount((struct doca_buf *)cp.src, NULL));
		assert_ok(doca_buf_dec_refcount(cp.dst, NULL));
	}
}

static void split_decision(void **state)
{
	static const struct {
		size_t len;
		uint64_t split_at;
	} cases[] = { { 64, 0 }, { 8191, 0 }, { 8192, 4096 }, { 8000, 0 } };
	doca_error_t deferred;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct odma_copy cp = { 0 };
		size_t len = cases[i].len > MEM ? MEM : cases[i].len;

		assert_ok(doca_buf_inventory_buf_get_by_data(inv, ms, src_mem, len,
		                                             (struct doca_buf **)&cp.src));
		assert_ok(doca_buf_inventory_buf_get_by_addr(inv, md, dst_mem, MEM, &cp.dst));
		assert_ok(odma_copy_validate(&cp, &caps, NULL, false, &deferred, NULL));
		assert_int_equal(cp.split_at, cases[i].split_at);
		/* head then tail give the whole copy */
		memset(dst_mem, 0, MEM);
		assert_ok(odma_copy_move(&cp, 0, cp.split_at));
		assert_ok(odma_copy_move(&cp, cp.split_at, cp.total - cp.split_at));
		assert_memory_equal(dst_mem, src_mem, len);
		assert_ok(doca_buf_dec_refcount((struct doca_buf *)cp.src, NULL));
		assert_ok(doca_buf_dec_refcount(cp.dst, NULL));
	}
}

/* Under plain submit an unrunnable copy is accepted to fail; under try_submit it is refused. */
static void deferred_failures(void **state)
{
	struct odma_copy cp = { 0 };
	doca_error_t deferred;

	(void)state;
	assert_ok(doca_buf_inventory_buf_get_by_data(inv, ms, src_mem, 100,
	                                             (struct doca_buf **)&cp.src));
	assert_ok(doca_buf_inventory_buf_get_by_addr(inv, md, dst_mem, 50, &cp.dst));
	assert_ok(odma_copy_validate(&cp, &caps, NULL, false, &deferred, NULL));
	assert_int_equal(deferred, DOCA_ERROR_IO_FAILED);
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            odma_copy_validate(&cp, &caps, NULL, true, &deferred, NULL));
	assert_ok(doca_buf_dec_refcount((struct doca_buf *)cp.src, NULL));
	assert_ok(doca_buf_dec_refcount(cp.dst, NULL));
}

/*
 * A batch of local copies runs under one fault guard; a copy whose memory was unmapped after
 * its mmap started fails alone and the batch resumes after it (the two faulting copies are
 * not neighbours, and the last copy comes after a fault).
 */
static void batch_fault_fails_its_copy_only(void **state)
{
	enum { N = 5, LEN = 256 };
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *gone =
	        mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct doca_mmap *mg;
	struct odma_copy cp[N];
	const struct odma_copy *pc[N];
	doca_error_t st[N], deferred;

	(void)state;
	assert_true(gone != MAP_FAILED);
	assert_ok(odma_copy_init());
	assert_ok(doca_mmap_create(&mg));
	assert_ok(doca_mmap_set_memrange(mg, gone, (size_t)pg));
	assert_ok(doca_mmap_start(mg));
	memset(dst_mem, 0, MEM);
	for (int i = 0; i < N; i++) {
		bool bad = i == 1 || i == 3;

		memset(&cp[i], 0, sizeof(cp[i]));
		assert_ok(doca_buf_inventory_buf_get_by_data(inv, bad ? mg : ms,
		                                             bad ? gone : src_mem + i * LEN, LEN,
		                                             (struct doca_buf **)&cp[i].src));
		assert_ok(doca_buf_inventory_buf_get_by_addr(inv, md, dst_mem + i * LEN, LEN,
		                                             &cp[i].dst));
		assert_ok(odma_copy_validate(&cp[i], &caps, NULL, false, &deferred, NULL));
		pc[i] = &cp[i];
	}
	assert_int_equal(munmap(gone, (size_t)pg), 0);
	odma_copy_move_batch(pc, N, st);
	for (int i = 0; i < N; i++) {
		bool bad = i == 1 || i == 3;

		assert_int_equal(st[i], bad ? DOCA_ERROR_IO_FAILED : DOCA_SUCCESS);
		if (!bad)
			assert_memory_equal(dst_mem + i * LEN, src_mem + i * LEN, LEN);
		assert_ok(doca_buf_dec_refcount((struct doca_buf *)cp[i].src, NULL));
		assert_ok(doca_buf_dec_refcount(cp[i].dst, NULL));
	}
	assert_ok(doca_mmap_stop(mg));
	assert_ok(doca_mmap_destroy(mg));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ranges_over_lists),
		cmocka_unit_test(split_decision),
		cmocka_unit_test(deferred_failures),
		cmocka_unit_test(batch_fault_fails_its_copy_only),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
