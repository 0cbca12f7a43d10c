/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Streaming copies (core/copy/stream.c) white-box: which runs stream (a run of a big local
 * copy whose destination is out of the cache, from the table of recent runs), that a
 * streamed run writes exactly the bytes memmove would at every alignment, that both the
 * mover and the batch path stream (odma_copy_streamed counts the bytes), and that a fault
 * in a streamed copy fails that copy alone.
 *
 * ODMA_STREAM_MIN=64K and ODMA_STREAM_CACHE=1M are set here before odma_copy_init.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/copy/copy.h"
#include "core/copy/mover.h"
#include "core/device/device.h"
#include "test_util.h"
#include "util/stream_copy.h"

#define KIB 1024u
#define MIB (1024u * 1024u)
#define MEM (8 * MIB)

static uint8_t *src_mem, *dst_mem;
static struct doca_mmap *ms, *md;
static struct doca_buf_inventory *inv;
static struct odma_dev_caps caps = { .max_buf_list_len = 16, .max_buf_size = 4 * MIB };

static int setup(void **state)
{
	(void)state;
	src_mem = aligned_alloc(4096, MEM);
	dst_mem = aligned_alloc(4096, MEM);
	assert_non_null(src_mem);
	assert_non_null(dst_mem);
	for (size_t i = 0; i < MEM; i++)
		src_mem[i] = (uint8_t)(i * 131 + (i >> 9) + 7);
	memset(dst_mem, 0, MEM);
	/* the settings alone: the fault guard is installed inside its test, after cmocka's
	 * own handler (which cmocka puts back after each test) */
	assert_ok(odma_copy_stream_init());
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
	free(src_mem);
	free(dst_mem);
	return 0;
}

/* The settings of this file (main): 64 KiB and up may stream, the "cache" is 1 MiB. */
static void settings_read(void **state)
{
	(void)state;
#if defined(__x86_64__)
	assert_int_equal(odma_copy_stream_min, 64 * KIB);
#else
	assert_int_equal(odma_copy_stream_min, UINT64_MAX); /* never streams */
#endif
}

/*
 * The reuse-distance rule: a destination never seen streams; one used again while what was
 * touched since (and its own bytes) fits in the cache does not; one used again after more
 * than the cache went through streams again. A destination that was a recent source counts
 * as used. Overlapping ranges never stream; neither does a copy under the minimum.
 */
static void decide_by_reuse_distance(void **state)
{
	uint8_t *a = src_mem, *b = dst_mem, *c = dst_mem + 2 * MIB;

	(void)state;
	assert_true(odma_copy_stream_decide(a, b, 128 * KIB));  /* b never seen */
	assert_false(odma_copy_stream_decide(a, b, 128 * KIB)); /* 512 KiB since: in cache */
	/* b -> c: c never seen; then c -> b: b was the source just now */
	assert_true(odma_copy_stream_decide(b, c, 128 * KIB));
	assert_false(odma_copy_stream_decide(c, b, 128 * KIB));
	/* 1 MiB of other copies (2 x 256 KiB, each source + destination) then b again */
	for (int i = 0; i < 2; i++)
		assert_true(odma_copy_stream_decide(src_mem + (3 + i) * MIB,
		                                    dst_mem + (4 + i) * MIB, 256 * KIB));
	assert_true(odma_copy_stream_decide(a, b, 128 * KIB));
	/* exactly the cache: the destination's own 2 x 512 KiB fill it and it was just used */
	assert_false(odma_copy_stream_decide(a, b, 512 * KIB));
	/* overlapping ranges: one memmove */
	assert_false(odma_copy_stream_decide(src_mem, src_mem + 64 * KIB, 128 * KIB));
	assert_false(odma_copy_stream_decide(src_mem + 64 * KIB, src_mem, 128 * KIB));
}

/* A streamed copy writes what memmove writes, no byte before or after, at every alignment. */
static void stream_copy_bytes(void **state)
{
	static const size_t lens[] = { 0, 1, 63, 64, 65, 127, 128, 200, 4096 + 17, MIB + 5 };
	static const size_t offs[] = { 0, 1, 15, 16, 31, 63 };

	(void)state;
	for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
		for (size_t so = 0; so < sizeof(offs) / sizeof(offs[0]); so++)
			for (size_t dof = 0; dof < sizeof(offs) / sizeof(offs[0]); dof++) {
				uint8_t *d = dst_mem + 64 + offs[dof];
				const uint8_t *s = src_mem + 128 + offs[so];

				memset(dst_mem, 0xA5, lens[l] + 256);
				odma_stream_copy_bytes(d, s, lens[l]);
				assert_memory_equal(d, s, lens[l]);
				for (uint8_t *p = dst_mem; p < d; p++)
					assert_int_equal(*p, 0xA5);
				for (uint8_t *p = d + lens[l]; p < d + lens[l] + 64; p++)
					assert_int_equal(*p, 0xA5);
			}
}

static void copy_get(struct odma_copy *cp, size_t soff, size_t doff, size_t len)
{
	memset(cp, 0, sizeof(*cp));
	assert_ok(doca_buf_inventory_buf_get_by_data(inv, ms, src_mem + soff, len,
	                                             (struct doca_buf **)&cp->src));
	assert_ok(doca_buf_inventory_buf_get_by_addr(inv, md, dst_mem + doff, len, &cp->dst));
}

static void copy_put(struct odma_copy *cp)
{
	assert_ok(doca_buf_dec_refcount((struct doca_buf *)cp->src, NULL));
	assert_ok(doca_buf_dec_refcount(cp->dst, NULL));
}

/*
 * Streaming (non-temporal) stores are x86-64's only (core/copy/stream.c): elsewhere, aarch64
 * included, nothing streams and every copy below is a plain one; the bytes are checked the same.
 */
#if defined(__x86_64__)
#define STREAMED(n) (n)
#else
#define STREAMED(n) 0
#endif

static uint64_t streamed(void)
{
	return atomic_load(&odma_copy_streamed);
}

/*
 * A big copy to a fresh destination streams, moved in two cuts like a split copy; the same
 * destination again through a batch (the plain path) is cache-hot: memmove. A fresh
 * destination in a batch streams. A copy under the minimum never streams. Every byte checked.
 */
static void move_and_batch(void **state)
{
	struct odma_copy cp;
	const struct odma_copy *pc[1] = { &cp };
	doca_error_t deferred, st[1];
	uint64_t before;

	(void)state;
	memset(dst_mem, 0, MEM);
	copy_get(&cp, 0, 6 * MIB, 384 * KIB + 3); /* two runs of about 192 KiB */
	assert_ok(odma_copy_validate(&cp, &caps, NULL, false, &deferred, NULL));
	assert_true(cp.split_at != 0);
	before = streamed();
	assert_ok(odma_copy_move(&cp, 0, cp.split_at));
	assert_ok(odma_copy_move(&cp, cp.split_at, cp.total - cp.split_at));
	assert_int_equal(streamed() - before, STREAMED(cp.total));
	assert_memory_equal(dst_mem + 6 * MIB, src_mem, cp.total);
	copy_put(&cp);

	/* the same destination again, through a batch: hot */
	memset(dst_mem + 6 * MIB, 0, 2 * MIB);
	copy_get(&cp, 0, 6 * MIB, 256 * KIB);
	assert_ok(odma_copy_validate(&cp, &caps, NULL, false, &deferred, NULL));
	assert_true(cp.plain);
	before = streamed();
	assert_false(odma_copy_move_batch(pc, 1, st));
	assert_ok(st[0]);
	assert_int_equal(streamed(), before);
	assert_memory_equal(dst_mem + 6 * MIB, src_mem, 256 * KIB);
	copy_put(&cp);

	/* a fresh destination in a batch: streamed */
	copy_get(&cp, MIB, 5 * MIB + 4096, 512 * KIB);
	assert_ok(odma_copy_validate(&cp, &caps, NULL, false, &deferred, NULL));
	assert_false(odma_copy_move_batch(pc, 1, st));
	assert_ok(st[0]);
	assert_int_equal(streamed() - before, STREAMED(512 * KIB));
	assert_memory_equal(dst_mem + 5 * MIB + 4096, src_mem + MIB, 512 * KIB);
	copy_put(&cp);

	/* under the minimum: never */
	copy_get(&cp, 0, 4 * MIB + 64, 64 * KIB - 1);
	assert_ok(odma_copy_validate(&cp, &caps, NULL, false, &deferred, NULL));
	before = streamed();
	assert_ok(odma_copy_move(&cp, 0, cp.total));
	assert_int_equal(streamed(), before);
	assert_memory_equal(dst_mem + 4 * MIB + 64, src_mem, 64 * KIB - 1);
	copy_put(&cp);
}

/* A list copy (two elements a side, the full validation) streams and lands in order. */
static void list_copy_streams(void **state)
{
	struct odma_copy cp = { 0 };
	struct doca_buf *s2, *d2;
	doca_error_t deferred;

	(void)state;
	memset(dst_mem, 0, MEM);
	assert_ok(doca_buf_inventory_buf_get_by_data(inv, ms, src_mem + 2 * MIB, 300 * KIB,
	                                             (struct doca_buf **)&cp.src));
	assert_ok(
	        doca_buf_inventory_buf_get_by_data(inv, ms, src_mem + 3 * MIB + 5, 100 * KIB, &s2));
	assert_ok(doca_buf_chain_list((struct doca_buf *)cp.src, s2));
	assert_ok(
	        doca_buf_inventory_buf_get_by_addr(inv, md, dst_mem + 7 * MIB, 200 * KIB, &cp.dst));
	assert_ok(doca_buf_inventory_buf_get_by_addr(inv, md, dst_mem + 7 * MIB + 300 * KIB + 9,
	                                             200 * KIB, &d2));
	assert_ok(doca_buf_chain_list(cp.dst, d2));
	uint64_t before = streamed();

	assert_ok(odma_copy_validate(&cp, &caps, NULL, false, &deferred, NULL));
	assert_ok(deferred);
	assert_ok(odma_copy_move(&cp, 0, cp.total));
	assert_int_equal(streamed() - before,
	                 STREAMED(cp.total)); /* every piece: 100 KiB or more */
	assert_memory_equal(dst_mem + 7 * MIB, src_mem + 2 * MIB, 200 * KIB);
	assert_memory_equal(dst_mem + 7 * MIB + 300 * KIB + 9, src_mem + 2 * MIB + 200 * KIB,
	                    100 * KIB);
	assert_memory_equal(dst_mem + 7 * MIB + 400 * KIB + 9, src_mem + 3 * MIB + 5, 100 * KIB);
	assert_ok(doca_buf_dec_refcount((struct doca_buf *)cp.src, NULL));
	assert_ok(doca_buf_dec_refcount(cp.dst, NULL));
}

/* A streamed copy whose source was unmapped after its mmap started fails, and only it. */
static void stream_fault_fails_its_copy(void **state)
{
	size_t len = 512 * KIB;
	uint8_t *gone = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct doca_mmap *mg;
	struct odma_copy cp[2];
	const struct odma_copy *pc[2];
	doca_error_t deferred, st[2];
	uint64_t before;

	(void)state;
	assert_ok(odma_copy_init());
	assert_true(gone != MAP_FAILED);
	memset(gone, 1, len);
	assert_ok(doca_mmap_create(&mg));
	assert_ok(doca_mmap_set_memrange(mg, gone, len));
	assert_ok(doca_mmap_start(mg));
	memset(&cp[0], 0, sizeof(cp[0]));
	assert_ok(doca_buf_inventory_buf_get_by_data(inv, mg, gone, len,
	                                             (struct doca_buf **)&cp[0].src));
	assert_ok(doca_buf_inventory_buf_get_by_addr(inv, md, dst_mem + 3 * MIB, len, &cp[0].dst));
	copy_get(&cp[1], 4 * MIB, 2 * MIB, len);
	for (int i = 0; i < 2; i++) {
		assert_ok(odma_copy_validate(&cp[i], &caps, NULL, false, &deferred, NULL));
		pc[i] = &cp[i];
	}
	/* the second half of the source goes away: the copy faults part-way through */
	assert_int_equal(munmap(gone + len / 2, len / 2), 0);
	before = streamed();
	assert_int_equal(odma_copy_move(&cp[0], 0, len), DOCA_ERROR_IO_FAILED);
	assert_int_equal(streamed(), before); /* it jumped out of the streaming copy */
	assert_true(odma_copy_move_batch(pc, 2, st));
	assert_int_equal(st[0], DOCA_ERROR_IO_FAILED);
	assert_ok(st[1]);
	assert_int_equal(streamed() - before, STREAMED(len)); /* the second copy streamed */
	assert_memory_equal(dst_mem + 2 * MIB, src_mem + 4 * MIB, len);
	assert_ok(doca_buf_dec_refcount((struct doca_buf *)cp[0].src, NULL));
	assert_ok(doca_buf_dec_refcount(cp[0].dst, NULL));
	copy_put(&cp[1]);
	assert_ok(doca_mmap_stop(mg));
	assert_ok(doca_mmap_destroy(mg));
	assert_int_equal(munmap(gone, len / 2), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(settings_read),     cmocka_unit_test(decide_by_reuse_distance),
		cmocka_unit_test(stream_copy_bytes), cmocka_unit_test(move_and_batch),
		cmocka_unit_test(list_copy_streams), cmocka_unit_test(stream_fault_fails_its_copy),
	};

	setenv("ODMA_STREAM_MIN", "64K", 1);
	setenv("ODMA_STREAM_CACHE", "1M", 1);
	return cmocka_run_group_tests(tests, setup, teardown);
}
