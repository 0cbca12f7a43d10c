/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * DOCA Erasure Coding, black box. The coding matrices are checked against the constructions
 * DOCA documents, computed here with this file's own GF(2^8) arithmetic (polynomial 0x11d);
 * every set of up to m lost blocks is recovered for small codes of both matrix types; the
 * update and Galois multiplication tasks; the capabilities of each built-in profile; and
 * every error path of the API.
 *
 * ODMA_TEST_EC_MODE selects what runs: unset, the full suite on bf3; "none", the profile in
 * ODMA_SYSTEM has no erasure coding anywhere; "small", the limits of
 * tests/data/profiles/ec_small.profile (64-byte blocks, lists of 2).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_erasure_coding.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "test_exec.h"
#include "test_util.h"

/* ------------------------------------------------------------ reference GF(2^8), 0x11d */

/* @get(@t) is @a; @set(@t, @b) makes it @b; @set(@t, @a) makes it @a again. */
#define RESET(get, set, t, a, b)                                                                   \
	do {                                                                                       \
		assert_ptr_equal(get(t), a);                                                       \
		set(t, b);                                                                         \
		assert_ptr_equal(get(t), b);                                                       \
		set(t, a);                                                                         \
		assert_ptr_equal(get(t), a);                                                       \
	} while (0)
static uint8_t rmul(uint8_t a, uint8_t b)
{
	uint8_t r = 0;

	while (b) {
		if (b & 1)
			r ^= a;
		a = (uint8_t)((a << 1) ^ ((a & 0x80) ? 0x1d : 0));
		b >>= 1;
	}
	return r;
}

static uint8_t rinv(uint8_t a)
{
	for (unsigned int x = 1; x < 256; x++)
		if (rmul(a, (uint8_t)x) == 1)
			return (uint8_t)x;
	return 0;
}

static uint8_t rpow(uint8_t a, unsigned int e)
{
	uint8_t r = 1;

	while (e--)
		r = rmul(r, a);
	return r;
}

/* DOCA's documented coefficient of data block i in redundancy block j. */
static uint8_t rcoef(enum doca_ec_matrix_type type, unsigned int k, unsigned int i, unsigned int j)
{
	return type == DOCA_EC_MATRIX_TYPE_CAUCHY ? rinv((uint8_t)(i ^ (k + j)))
	                                          : rpow((uint8_t)(i + 1), j);
}

/* Whether the n x n matrix @a (clobbered) is invertible. */
static bool rinvertible(uint8_t *a, unsigned int n)
{
	for (unsigned int c = 0; c < n; c++) {
		unsigned int p = c;

		while (p < n && a[p * n + c] == 0)
			p++;
		if (p == n)
			return false;
		for (unsigned int x = 0; x < n; x++) {
			uint8_t t = a[c * n + x];

			a[c * n + x] = a[p * n + x];
			a[p * n + x] = t;
		}
		for (unsigned int r = c + 1; r < n; r++) {
			uint8_t f = rmul(a[r * n + c], rinv(a[c * n + c]));

			for (unsigned int x = 0; x < n; x++)
				a[r * n + x] ^= rmul(f, a[c * n + x]);
		}
	}
	return true;
}

/* ------------------------------------------------------------------------ fixture */

#define MEM_LEN (1u << 20)

struct ecx {
	struct doca_dev *dev;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	struct doca_pe *pe;
	struct doca_ec *ec;
	uint8_t *mem;
	unsigned int ok, err;
	doca_error_t last;
};

static void cb_ok(void *task, union doca_data tud, union doca_data cud)
{
	struct ecx *x = cud.ptr;

	(void)task;
	(void)tud;
	x->ok++;
}

static void cb_err(struct doca_task *t, union doca_data cud)
{
	struct ecx *x = cud.ptr;

	x->err++;
	x->last = doca_task_get_status(t);
}

static void create_ok(struct doca_ec_task_create *t, union doca_data tud, union doca_data cud)
{
	cb_ok(t, tud, cud);
}
static void create_err(struct doca_ec_task_create *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	cb_err(doca_ec_task_create_as_task(t), cud);
}
static void recover_ok(struct doca_ec_task_recover *t, union doca_data tud, union doca_data cud)
{
	cb_ok(t, tud, cud);
}
static void recover_err(struct doca_ec_task_recover *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	cb_err(doca_ec_task_recover_as_task(t), cud);
}
static void update_ok(struct doca_ec_task_update *t, union doca_data tud, union doca_data cud)
{
	cb_ok(t, tud, cud);
}
static void update_err(struct doca_ec_task_update *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	cb_err(doca_ec_task_update_as_task(t), cud);
}
static void gm_ok(struct doca_ec_task_galois_mul *t, union doca_data tud, union doca_data cud)
{
	cb_ok(t, tud, cud);
}
static void gm_err(struct doca_ec_task_galois_mul *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	cb_err(doca_ec_task_galois_mul_as_task(t), cud);
}

/* Device, a 1 MiB read-write mmap, inventory, PE and an EC context with all task types. */
static void ecx_init(struct ecx *x, bool start)
{
	union doca_data ud = { .ptr = x };

	memset(x, 0, sizeof(*x));
	x->dev = tu_open_dev(NULL);
	x->mem = aligned_alloc(64, MEM_LEN);
	assert_non_null(x->mem);
	assert_ok(doca_mmap_create(&x->mmap));
	assert_ok(doca_mmap_add_dev(x->mmap, x->dev));
	assert_ok(doca_mmap_set_memrange(x->mmap, x->mem, MEM_LEN));
	assert_ok(doca_mmap_set_permissions(x->mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	assert_ok(doca_mmap_start(x->mmap));
	assert_ok(doca_buf_inventory_create(512, &x->inv));
	assert_ok(doca_buf_inventory_start(x->inv));
	assert_ok(doca_pe_create(&x->pe));
	assert_ok(doca_ec_create(x->dev, &x->ec));
	assert_ok(doca_ctx_set_user_data(doca_ec_as_ctx(x->ec), ud));
	assert_ok(doca_ec_task_create_set_conf(x->ec, create_ok, create_err, 4));
	assert_ok(doca_ec_task_recover_set_conf(x->ec, recover_ok, recover_err, 4));
	assert_ok(doca_ec_task_update_set_conf(x->ec, update_ok, update_err, 4));
	assert_ok(doca_ec_task_galois_mul_set_conf(x->ec, gm_ok, gm_err, 4));
	assert_ok(doca_pe_connect_ctx(x->pe, doca_ec_as_ctx(x->ec)));
	if (start)
		assert_ok(doca_ctx_start(doca_ec_as_ctx(x->ec)));
}

static void ecx_fini(struct ecx *x)
{
	enum doca_ctx_states st;

	assert_ok(doca_ctx_get_state(doca_ec_as_ctx(x->ec), &st));
	if (st != DOCA_CTX_STATE_IDLE)
		assert_ok(doca_ctx_stop(doca_ec_as_ctx(x->ec)));
	assert_ok(doca_ec_destroy(x->ec));
	assert_ok(doca_pe_destroy(x->pe));
	assert_ok(doca_buf_inventory_destroy(x->inv));
	assert_ok(doca_mmap_destroy(x->mmap));
	assert_ok(doca_dev_close(x->dev));
	free(x->mem);
}

/* A buf over [p, p+len) of the fixture's memory: all data when @full, else all free space. */
static struct doca_buf *ecx_buf(struct ecx *x, uint8_t *p, size_t len, bool full)
{
	struct doca_buf *b;

	if (full)
		assert_ok(doca_buf_inventory_buf_get_by_data(x->inv, x->mmap, p, len, &b));
	else
		assert_ok(doca_buf_inventory_buf_get_by_addr(x->inv, x->mmap, p, len, &b));
	return b;
}

/* The same as a list of @n elements cut at uneven places (blocks straddle elements). */
static struct doca_buf *ecx_list(struct ecx *x, uint8_t *p, size_t len, bool full, unsigned int n)
{
	struct doca_buf *head = NULL;
	size_t off = 0;

	for (unsigned int i = 0; i < n; i++) {
		size_t part = i + 1 == n ? len - off : len / n + 7 * (i + 1);
		struct doca_buf *b = ecx_buf(x, p + off, part, full);

		if (head == NULL)
			head = b;
		else
			assert_ok(doca_buf_chain_list(head, b));
		off += part;
	}
	return head;
}

/* Submits @t and progresses until its callback ran; returns the status it completed with. */
static doca_error_t ecx_run(struct ecx *x, struct doca_task *t)
{
	unsigned int before = x->ok + x->err;

	assert_ok(doca_task_submit(t));
	for (int i = 0; i < 1000 && x->ok + x->err == before; i++)
		(void)doca_pe_progress(x->pe);
	assert_int_equal(x->ok + x->err, before + 1);
	return doca_task_get_status(t);
}

static void fill(uint8_t *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 131u + seed * 29u + (i >> 8));
}

/* ------------------------------------------------------------------------ data path */

#define BS 128u /* block size of the data-path tests */
#define DATA_OFF 0u
#define RDNC_OFF (64u << 10)
#define AVAIL_OFF (128u << 10)
#define OUT_OFF (192u << 10)

/* Encodes k blocks at DATA_OFF into m blocks at RDNC_OFF with a create task (lists of 3 and
 * 2 elements); checks them against the documented construction. */
static void encode_check(struct ecx *x, struct doca_ec_matrix *mx, enum doca_ec_matrix_type type,
                         unsigned int k, unsigned int m)
{
	uint8_t *data = x->mem + DATA_OFF, *rdnc = x->mem + RDNC_OFF;
	struct doca_buf *src = ecx_list(x, data, (size_t)k * BS, true, k > 1 ? 3 : 1);
	struct doca_buf *dst = ecx_list(x, rdnc, (size_t)m * BS, false, m > 1 ? 2 : 1);
	struct doca_ec_task_create *t;
	size_t len = 0;

	memset(rdnc, 0xee, (size_t)m * BS);
	assert_ok(
	        doca_ec_task_create_allocate_init(x->ec, mx, src, dst, (union doca_data){ 0 }, &t));
	assert_ok(ecx_run(x, doca_ec_task_create_as_task(t)));
	for (struct doca_buf *e = dst; e != NULL;) {
		size_t l;

		assert_ok(doca_buf_get_data_len(e, &l));
		len += l;
		if (doca_buf_get_next_in_list(e, &e) != DOCA_SUCCESS)
			break;
	}
	assert_int_equal(len, (size_t)m * BS);
	for (unsigned int j = 0; j < m; j++)
		for (unsigned int b = 0; b < BS; b++) {
			uint8_t want = 0;

			for (unsigned int i = 0; i < k; i++)
				want ^= rmul(rcoef(type, k, i, j), data[i * BS + b]);
			if (rdnc[j * BS + b] != want)
				fail_msg("type %d k %u m %u: redundancy block %u byte %u is %u, "
				         "want %u",
				         (int)type, k, m, j, b, rdnc[j * BS + b], want);
		}
	doca_task_free(doca_ec_task_create_as_task(t));
	assert_ok(doca_buf_dec_refcount(src, NULL));
	assert_ok(doca_buf_dec_refcount(dst, NULL));
}

/* Block x of the code (data at DATA_OFF, redundancy at RDNC_OFF). */
static uint8_t *block(struct ecx *x, unsigned int k, unsigned int idx)
{
	return idx < k ? x->mem + DATA_OFF + idx * BS : x->mem + RDNC_OFF + (idx - k) * BS;
}

static bool is_missing(const uint32_t *missing, unsigned int n, unsigned int idx)
{
	for (unsigned int i = 0; i < n; i++)
		if (missing[i] == idx)
			return true;
	return false;
}

/* Whether losing @missing leaves a solvable system (reference arithmetic). */
static bool solvable(enum doca_ec_matrix_type type, unsigned int k, unsigned int m,
                     const uint32_t *missing, unsigned int n)
{
	static uint8_t a[128 * 128];
	unsigned int row = 0;

	for (unsigned int idx = 0; idx < k + m && row < k; idx++) {
		if (is_missing(missing, n, idx))
			continue;
		for (unsigned int i = 0; i < k; i++)
			a[row * k + i] = idx < k ? (uint8_t)(i == idx) : rcoef(type, k, i, idx - k);
		row++;
	}
	return rinvertible(a, k);
}

/* Loses the blocks @missing (ascending), recovers them with a recover task, compares. */
static void recover_list(struct ecx *x, struct doca_ec_matrix *coding,
                         enum doca_ec_matrix_type type, unsigned int k, unsigned int m,
                         uint32_t *missing, unsigned int n)
{
	unsigned int got = 0;
	uint8_t *avail = x->mem + AVAIL_OFF, *out = x->mem + OUT_OFF;
	struct doca_ec_matrix *rm;
	struct doca_ec_task_recover *t;
	struct doca_buf *src, *dst;
	doca_error_t r;

	for (unsigned int idx = 0; idx < k + m && got < k; idx++)
		if (!is_missing(missing, n, idx))
			memcpy(avail + (got++) * BS, block(x, k, idx), BS);
	r = doca_ec_matrix_create_recover(x->ec, coding, missing, n, &rm);
	if (!solvable(type, k, m, missing, n)) {
		assert_int_equal(type, DOCA_EC_MATRIX_TYPE_VANDERMONDE);
		assert_doca(DOCA_ERROR_INVALID_VALUE, r);
		return;
	}
	assert_ok(r);
	src = ecx_list(x, avail, (size_t)k * BS, true, k > 2 ? 2 : 1);
	dst = ecx_list(x, out, (size_t)n * BS, false, n > 1 ? 2 : 1);
	memset(out, 0, (size_t)n * BS);
	assert_ok(doca_ec_task_recover_allocate_init(x->ec, rm, src, dst, (union doca_data){ 0 },
	                                             &t));
	assert_ok(ecx_run(x, doca_ec_task_recover_as_task(t)));
	for (unsigned int i = 0; i < n; i++)
		if (memcmp(out + i * BS, block(x, k, missing[i]), BS) != 0)
			fail_msg("type %d k %u m %u: lost block %u (of %u lost) not recovered",
			         (int)type, k, m, missing[i], n);
	RESET(doca_ec_task_recover_get_recover_matrix, doca_ec_task_recover_set_recover_matrix, t,
	      rm, (struct doca_ec_matrix *)NULL);
	RESET(doca_ec_task_recover_get_available_blocks, doca_ec_task_recover_set_available_blocks,
	      t, src, dst);
	RESET(doca_ec_task_recover_get_recovered_data,
	      doca_ec_task_recover_set_recovered_data_blocks, t, dst, src);
	doca_task_free(doca_ec_task_recover_as_task(t));
	assert_ok(doca_buf_dec_refcount(src, NULL));
	assert_ok(doca_buf_dec_refcount(dst, NULL));
	assert_ok(doca_ec_matrix_destroy(rm));
}

static void recover_one(struct ecx *x, struct doca_ec_matrix *coding, enum doca_ec_matrix_type type,
                        unsigned int k, unsigned int m, unsigned int lost)
{
	uint32_t missing[32];
	unsigned int n = 0;

	for (unsigned int idx = 0; idx < k + m; idx++)
		if (lost & (1u << idx))
			missing[n++] = idx;
	recover_list(x, coding, type, k, m, missing, n);
}

static void test_encode_recover_all(void **state)
{
	static const unsigned int codes[][2] = { { 1, 1 }, { 2, 1 }, { 3, 2 },
		                                 { 4, 3 }, { 4, 4 }, { 6, 2 } };
	static const enum doca_ec_matrix_type types[] = { DOCA_EC_MATRIX_TYPE_CAUCHY,
		                                          DOCA_EC_MATRIX_TYPE_VANDERMONDE };
	struct ecx x;

	(void)state;
	ecx_init(&x, true);
	for (size_t ti = 0; ti < 2; ti++)
		for (size_t c = 0; c < sizeof(codes) / sizeof(codes[0]); c++) {
			unsigned int k = codes[c][0], m = codes[c][1], tried = 0;
			struct doca_ec_matrix *mx;

			fill(x.mem + DATA_OFF, (size_t)k * BS, (unsigned int)(c + 7 * ti));
			assert_ok(doca_ec_matrix_create(x.ec, types[ti], k, m, &mx));
			encode_check(&x, mx, types[ti], k, m);
			for (unsigned int lost = 1; lost < (1u << (k + m)); lost++)
				if ((unsigned int)__builtin_popcount(lost) <= m) {
					recover_one(&x, mx, types[ti], k, m, lost);
					tried++;
				}
			assert_true(tried > 0);
			assert_ok(doca_ec_matrix_destroy(mx));
		}
	assert_int_equal(x.err, 0);
	ecx_fini(&x);
}

/* A 10+4 Cauchy code (the guide's example size) and the largest code, 128+32. */
static void test_encode_large_codes(void **state)
{
	struct ecx x;
	struct doca_ec_matrix *mx;

	(void)state;
	ecx_init(&x, true);
	fill(x.mem + DATA_OFF, 10 * BS, 3);
	assert_ok(doca_ec_matrix_create(x.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 10, 4, &mx));
	encode_check(&x, mx, DOCA_EC_MATRIX_TYPE_CAUCHY, 10, 4);
	assert_ok(doca_ec_matrix_destroy(mx));
	fill(x.mem + DATA_OFF, 128 * BS, 5);
	assert_ok(doca_ec_matrix_create(x.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 128, 32, &mx));
	encode_check(&x, mx, DOCA_EC_MATRIX_TYPE_CAUCHY, 128, 32);
	/* 32 data blocks lost: recovered from the others and the redundancy */
	{
		uint32_t missing[32];

		for (unsigned int i = 0; i < 32; i++)
			missing[i] = 3 * i + 1;
		recover_list(&x, mx, DOCA_EC_MATRIX_TYPE_CAUCHY, 128, 32, missing, 32);
	}
	assert_ok(doca_ec_matrix_destroy(mx));
	ecx_fini(&x);
}

/* Redundancy of data blocks @d (k blocks) for block j byte b, by the reference. */
static uint8_t ref_rdnc(enum doca_ec_matrix_type type, const uint8_t *d, unsigned int k,
                        unsigned int j, unsigned int b)
{
	uint8_t v = 0;

	for (unsigned int i = 0; i < k; i++)
		v ^= rmul(rcoef(type, k, i, j), d[i * BS + b]);
	return v;
}

/* Blocks 1 and 4 of a 5+3 code change: the update task refreshes the redundancy. */
static void test_update(void **state)
{
	const unsigned int k = 5, m = 3;
	uint32_t idx[] = { 1, 4 };
	static uint8_t newd[5 * BS];
	uint8_t *data = NULL, *src, *out;
	struct doca_ec_matrix *mx, *um;
	struct doca_ec_task_update *t;
	struct doca_buf *sb, *db;
	struct ecx x;

	(void)state;
	ecx_init(&x, true);
	data = x.mem + DATA_OFF;
	src = x.mem + AVAIL_OFF;
	out = x.mem + OUT_OFF;
	fill(data, k * BS, 11);
	assert_ok(doca_ec_matrix_create(x.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, k, m, &mx));
	encode_check(&x, mx, DOCA_EC_MATRIX_TYPE_CAUCHY, k, m);
	memcpy(newd, data, sizeof(newd));
	fill(newd + 1 * BS, BS, 90);
	fill(newd + 4 * BS, BS, 91);
	/* old_1, new_1, old_4, new_4, rdnc_0..2 */
	memcpy(src + 0 * BS, data + 1 * BS, BS);
	memcpy(src + 1 * BS, newd + 1 * BS, BS);
	memcpy(src + 2 * BS, data + 4 * BS, BS);
	memcpy(src + 3 * BS, newd + 4 * BS, BS);
	memcpy(src + 4 * BS, x.mem + RDNC_OFF, m * BS);
	assert_ok(doca_ec_matrix_create_update(x.ec, mx, idx, 2, &um));
	sb = ecx_list(&x, src, 7 * BS, true, 3);
	db = ecx_buf(&x, out, m * BS, false);
	assert_ok(doca_ec_task_update_allocate_init(x.ec, um, sb, db, (union doca_data){ 0 }, &t));
	RESET(doca_ec_task_update_get_update_matrix, doca_ec_task_update_set_update_matrix, t, um,
	      mx);
	RESET(doca_ec_task_update_get_original_updated_and_rdnc_blocks,
	      doca_ec_task_update_set_original_updated_and_rdnc_blocks, t, sb, db);
	RESET(doca_ec_task_update_get_updated_rdnc_blocks,
	      doca_ec_task_update_set_updated_rdnc_blocks, t, db, sb);
	assert_ok(ecx_run(&x, doca_ec_task_update_as_task(t)));
	for (unsigned int j = 0; j < m; j++)
		for (unsigned int b = 0; b < BS; b++)
			assert_int_equal(out[j * BS + b],
			                 ref_rdnc(DOCA_EC_MATRIX_TYPE_CAUCHY, newd, k, j, b));
	doca_task_free(doca_ec_task_update_as_task(t));
	assert_ok(doca_buf_dec_refcount(sb, NULL));
	assert_ok(doca_buf_dec_refcount(db, NULL));
	assert_ok(doca_ec_matrix_destroy(um));
	assert_ok(doca_ec_matrix_destroy(mx));
	ecx_fini(&x);
}

/* A raw matrix through a Galois multiplication task; a recover task given the coding matrix
 * of a 2+1 Vandermonde code (XOR parity), as NVIDIA's storage application does. */
static void test_galois_mul_and_raw(void **state)
{
	uint8_t raw[3 * 2] = { 0x01, 0x53, 0x8e, 0x02, 0xff, 0x10 };
	uint8_t *src, *out;
	struct doca_ec_matrix *mx;
	struct doca_ec_task_galois_mul *gt;
	struct doca_ec_task_recover *rt;
	struct doca_buf *sb, *db;
	struct ecx x;

	(void)state;
	ecx_init(&x, true);
	src = x.mem + AVAIL_OFF;
	out = x.mem + OUT_OFF;
	fill(src, 3 * BS, 21);
	assert_ok(doca_ec_matrix_create_from_raw(x.ec, raw, 3, 2, &mx));
	sb = ecx_buf(&x, src, 3 * BS, true);
	db = ecx_buf(&x, out, 2 * BS, false);
	assert_ok(doca_ec_task_galois_mul_allocate_init(x.ec, mx, sb, db, (union doca_data){ 0 },
	                                                &gt));
	RESET(doca_ec_task_galois_mul_get_coding_matrix, doca_ec_task_galois_mul_set_coding_matrix,
	      gt, mx, (struct doca_ec_matrix *)NULL);
	RESET(doca_ec_task_galois_mul_get_src_buf, doca_ec_task_galois_mul_set_src_buf, gt, sb, db);
	RESET(doca_ec_task_galois_mul_get_dst_buf, doca_ec_task_galois_mul_set_dst_buf, gt, db, sb);
	assert_ok(ecx_run(&x, doca_ec_task_galois_mul_as_task(gt)));
	for (unsigned int j = 0; j < 2; j++)
		for (unsigned int b = 0; b < BS; b++) {
			uint8_t want = 0;

			for (unsigned int i = 0; i < 3; i++)
				want ^= rmul(raw[i * 2 + j], src[i * BS + b]);
			assert_int_equal(out[j * BS + b], want);
		}
	doca_task_free(doca_ec_task_galois_mul_as_task(gt));
	assert_ok(doca_buf_dec_refcount(sb, NULL));
	assert_ok(doca_buf_dec_refcount(db, NULL));
	assert_ok(doca_ec_matrix_destroy(mx));

	/* d1 from (parity, d2) with the 2+1 Vandermonde coding matrix (all ones) */
	fill(src + BS, BS, 31);               /* d2 */
	for (unsigned int b = 0; b < BS; b++) /* parity = d1 ^ d2, d1 = i * 3 */
		src[b] = (uint8_t)(b * 3) ^ src[BS + b];
	assert_ok(doca_ec_matrix_create(x.ec, DOCA_EC_MATRIX_TYPE_VANDERMONDE, 2, 1, &mx));
	sb = ecx_buf(&x, src, 2 * BS, true);
	db = ecx_buf(&x, out, BS, false);
	assert_ok(
	        doca_ec_task_recover_allocate_init(x.ec, mx, sb, db, (union doca_data){ 0 }, &rt));
	assert_ok(ecx_run(&x, doca_ec_task_recover_as_task(rt)));
	for (unsigned int b = 0; b < BS; b++)
		assert_int_equal(out[b], (uint8_t)(b * 3));
	assert_ptr_equal(doca_ec_task_recover_get_available_blocks(rt), sb);
	assert_ptr_equal(doca_ec_task_recover_get_recovered_data(rt), db);
	doca_task_free(doca_ec_task_recover_as_task(rt));
	assert_ok(doca_buf_dec_refcount(sb, NULL));
	assert_ok(doca_buf_dec_refcount(db, NULL));
	assert_ok(doca_ec_matrix_destroy(mx));
	ecx_fini(&x);
}

/* ------------------------------------------------------------------------ capabilities */

static void test_caps_bf3(void **state)
{
	struct doca_devinfo **list;
	uint64_t bs;
	uint32_t n, ll;

	(void)state;
	assert_ok(doca_devinfo_create_list(&list, &n));
	assert_true(n >= 2);
	for (uint32_t i = 0; i < n; i++) { /* host PFs and Arm side alike */
		assert_ok(doca_ec_cap_task_create_is_supported(list[i]));
		assert_ok(doca_ec_cap_task_recover_is_supported(list[i]));
		assert_ok(doca_ec_cap_task_update_is_supported(list[i]));
		assert_ok(doca_ec_cap_task_galois_mul_is_supported(list[i]));
		assert_ok(doca_ec_cap_get_max_block_size(list[i], &bs));
		assert_int_equal(bs, 128u << 20);
		assert_ok(doca_ec_cap_get_max_buf_list_len(list[i], &ll));
		assert_int_equal(ll, 128);
	}
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ec_cap_get_max_block_size(list[0], NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ec_cap_get_max_buf_list_len(list[0], NULL));
	assert_ok(doca_devinfo_destroy_list(list));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ec_cap_task_create_is_supported(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ec_cap_task_recover_is_supported(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ec_cap_task_update_is_supported(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ec_cap_task_galois_mul_is_supported(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ec_cap_get_max_block_size(NULL, &bs));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ec_cap_get_max_buf_list_len(NULL, &ll));
}

/* ODMA_SYSTEM names a profile without erasure coding (bf2, cx7, cx6dx). */
static void test_caps_none(void **state)
{
	struct doca_devinfo **list;
	struct doca_ec *ec = NULL;
	uint64_t bs;
	uint32_t n, ll;

	(void)state;
	assert_ok(doca_devinfo_create_list(&list, &n));
	assert_true(n >= 1);
	for (uint32_t i = 0; i < n; i++) {
		struct doca_dev *dev;

		assert_doca(DOCA_ERROR_NOT_SUPPORTED,
		            doca_ec_cap_task_create_is_supported(list[i]));
		assert_doca(DOCA_ERROR_NOT_SUPPORTED,
		            doca_ec_cap_task_recover_is_supported(list[i]));
		assert_doca(DOCA_ERROR_NOT_SUPPORTED,
		            doca_ec_cap_task_update_is_supported(list[i]));
		assert_doca(DOCA_ERROR_NOT_SUPPORTED,
		            doca_ec_cap_task_galois_mul_is_supported(list[i]));
		assert_doca(DOCA_ERROR_NOT_SUPPORTED, doca_ec_cap_get_max_block_size(list[i], &bs));
		assert_doca(DOCA_ERROR_NOT_SUPPORTED,
		            doca_ec_cap_get_max_buf_list_len(list[i], &ll));
		assert_ok(doca_dev_open(list[i], &dev));
		assert_doca(DOCA_ERROR_NOT_SUPPORTED, doca_ec_create(dev, &ec));
		assert_null(ec);
		assert_ok(doca_dev_close(dev));
	}
	assert_ok(doca_devinfo_destroy_list(list));
}

/* tests/data/profiles/ec_small.profile: 64-byte blocks at most, lists of 2. */
static void test_small_limits(void **state)
{
	struct ecx x;
	struct doca_ec_matrix *mx;
	struct doca_ec_task_create *t;
	struct doca_buf *sb, *db;
	uint64_t bs;
	uint32_t ll;

	(void)state;
	ecx_init(&x, true);
	assert_ok(doca_ec_cap_get_max_block_size(doca_dev_as_devinfo(x.dev), &bs));
	assert_int_equal(bs, 64);
	assert_ok(doca_ec_cap_get_max_buf_list_len(doca_dev_as_devinfo(x.dev), &ll));
	assert_int_equal(ll, 2);
	assert_ok(doca_ec_matrix_create(x.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 1, &mx));
	/* 128-byte blocks: above the device's maximum, the task fails through its callback */
	sb = ecx_buf(&x, x.mem, 256, true);
	db = ecx_buf(&x, x.mem + 4096, 128, false);
	assert_ok(doca_ec_task_create_allocate_init(x.ec, mx, sb, db, (union doca_data){ 0 }, &t));
	assert_doca(DOCA_ERROR_INVALID_VALUE, ecx_run(&x, doca_ec_task_create_as_task(t)));
	assert_int_equal(x.err, 1);
	/* 64-byte blocks pass */
	assert_ok(doca_buf_set_data(sb, x.mem, 128));
	assert_ok(ecx_run(&x, doca_ec_task_create_as_task(t)));
	/* a source list of 3 is longer than the device takes: refused at submit */
	assert_ok(doca_buf_chain_list(sb, ecx_buf(&x, x.mem + 1024, 64, true)));
	assert_ok(doca_buf_chain_list(sb, ecx_buf(&x, x.mem + 2048, 64, true)));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_submit(doca_ec_task_create_as_task(t)));
	doca_task_free(doca_ec_task_create_as_task(t));
	assert_ok(doca_buf_dec_refcount(sb, NULL));
	assert_ok(doca_buf_dec_refcount(db, NULL));
	assert_ok(doca_ec_matrix_destroy(mx));
	ecx_fini(&x);
}

/* ------------------------------------------------------------------------ error paths */

static void test_context_errors(void **state)
{
	struct doca_dev *dev = tu_open_dev(NULL);
	struct doca_ec *ec, *untouched = (struct doca_ec *)&dev;
	struct doca_ec_matrix *mx;
	struct doca_ec_task_create *t;
	struct ecx x;

	(void)state;
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ec_create(NULL, &ec));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ec_create(dev, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ec_destroy(NULL));
	assert_null(doca_ec_as_ctx(NULL));
	assert_ok(doca_ec_create(dev, &ec));
	/* set_conf: arguments, the task pool, the state */
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_ec_task_create_set_conf(NULL, create_ok, create_err, 1));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_ec_task_create_set_conf(ec, NULL, create_err, 1));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_ec_task_recover_set_conf(ec, recover_ok, NULL, 1));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_ec_task_update_set_conf(ec, update_ok, update_err, 0));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_ec_task_galois_mul_set_conf(ec, gm_ok, gm_err, 65537));
	assert_ok(doca_ec_task_create_set_conf(ec, create_ok, create_err, 40000));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_ec_task_recover_set_conf(ec, recover_ok, recover_err, 30000));
	assert_ok(doca_ec_task_create_set_conf(ec, create_ok, create_err, 1)); /* reconfigured */
	assert_ok(doca_ec_task_recover_set_conf(ec, recover_ok, recover_err, 30000));
	/* a matrix may be made while IDLE; tasks only while RUNNING */
	assert_ok(doca_ec_matrix_create(ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 1, &mx));
	t = (struct doca_ec_task_create *)untouched;
	assert_doca(DOCA_ERROR_BAD_STATE, doca_ec_task_create_allocate_init(
	                                          ec, mx, NULL, NULL, (union doca_data){ 0 }, &t));
	assert_ptr_equal(t, untouched);
	/* a live matrix keeps the context */
	assert_doca(DOCA_ERROR_IN_USE, doca_ec_destroy(ec));
	assert_ok(doca_ec_matrix_destroy(mx));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ec_matrix_destroy(NULL));
	assert_ok(doca_ec_destroy(ec));
	assert_ok(doca_dev_close(dev));

	/* RUNNING: no set_conf, no destroy */
	ecx_init(&x, true);
	assert_doca(DOCA_ERROR_BAD_STATE,
	            doca_ec_task_create_set_conf(x.ec, create_ok, create_err, 2));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_ec_destroy(x.ec));
	ecx_fini(&x);
}

static void test_matrix_errors(void **state)
{
	struct ecx x;
	struct doca_ec_matrix *mx, *rm, *um, *keep = (struct doca_ec_matrix *)&x;
	uint8_t raw[4] = { 1, 2, 3, 4 };
	uint32_t bad_order[] = { 2, 1 }, dup[] = { 1, 1 }, far[] = { 7 }, ok1[] = { 0 };
	uint32_t five[] = { 0, 1, 2, 3, 4 };

	(void)state;
	ecx_init(&x, true);
	mx = keep;
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_ec_matrix_create(NULL, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 1, &mx));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_ec_matrix_create(x.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 1, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ec_matrix_create(x.ec, 0, 2, 1, &mx));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ec_matrix_create(x.ec, 3, 2, 1, &mx));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_ec_matrix_create(x.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 0, 1, &mx));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_ec_matrix_create(x.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 129, 1, &mx));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_ec_matrix_create(x.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 0, &mx));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_ec_matrix_create(x.ec, DOCA_EC_MATRIX_TYPE_VANDERMONDE, 2, 33, &mx));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_ec_matrix_create_from_raw(x.ec, NULL, 2, 2, &mx));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ec_matrix_create_from_raw(x.ec, raw, 2, 0, &mx));
	assert_ptr_equal(mx, keep); /* untouched by every failure */

	assert_ok(doca_ec_matrix_create(x.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 4, 2, &mx));
	/* recover: count, range, order, the base matrix */
	rm = keep;
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ec_matrix_create_recover(x.ec, mx, ok1, 0, &rm));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_ec_matrix_create_recover(x.ec, mx, NULL, 1, &rm));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_ec_matrix_create_recover(x.ec, mx, five, 3, &rm));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ec_matrix_create_recover(x.ec, mx, far, 1, &rm));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_ec_matrix_create_recover(x.ec, mx, bad_order, 2, &rm));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ec_matrix_create_recover(x.ec, mx, dup, 2, &rm));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_ec_matrix_create_recover(x.ec, NULL, ok1, 1, &rm));
	assert_ptr_equal(rm, keep);
	assert_ok(doca_ec_matrix_create_recover(x.ec, mx, ok1, 1, &rm));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ec_matrix_create_recover(x.ec, rm, ok1, 1, &um));
	/* update: indices are data blocks only */
	um = keep;
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ec_matrix_create_update(x.ec, mx, five, 5, &um));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ec_matrix_create_update(x.ec, mx, far, 1, &um));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_ec_matrix_create_update(x.ec, mx, bad_order, 2, &um));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ec_matrix_create_update(x.ec, rm, ok1, 1, &um));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ec_matrix_create_update(x.ec, mx, ok1, 0, &um));
	assert_ptr_equal(um, keep);
	assert_ok(doca_ec_matrix_create_update(x.ec, mx, five, 4, &um));
	assert_ok(doca_ec_matrix_destroy(um));
	assert_ok(doca_ec_matrix_destroy(rm));
	assert_ok(doca_ec_matrix_destroy(mx));
	/* destroyed twice, or never a matrix: refused without reading it */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ec_matrix_destroy(mx));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ec_matrix_destroy(keep));
	ecx_fini(&x);
}

static void test_task_errors(void **state)
{
	struct ecx x, y;
	struct doca_ec_matrix *mx, *other;
	struct doca_ec_task_create *t[5];
	struct doca_ec_task_recover *rt;
	struct doca_ec_task_create *c;
	struct doca_buf *sb, *db, *gone, *next;
	struct doca_mmap *ro;
	struct doca_dev *dev2;
	struct doca_mmap *foreign;
	uint8_t *out;
	size_t len;
	unsigned int hit;

	(void)state;
	ecx_init(&x, true);
	ecx_init(&y, true);
	out = x.mem + OUT_OFF;
	assert_ok(doca_ec_matrix_create(x.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 1, &mx));
	assert_ok(doca_ec_matrix_create(y.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 1, &other));
	/* allocate_init: arguments, matrices of another context, the pool share */
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_ec_task_create_allocate_init(NULL, mx, NULL, NULL, (union doca_data){ 0 },
	                                              &t[0]));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_ec_task_create_allocate_init(x.ec, NULL, NULL, NULL,
	                                              (union doca_data){ 0 }, &t[0]));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_ec_task_create_allocate_init(x.ec, other, NULL, NULL,
	                                              (union doca_data){ 0 }, &t[0]));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_ec_task_create_allocate_init(x.ec, mx, NULL, NULL, (union doca_data){ 0 },
	                                              NULL));
	for (int i = 0; i < 4; i++)
		assert_ok(doca_ec_task_create_allocate_init(x.ec, mx, NULL, NULL,
		                                            (union doca_data){ 0 }, &t[i]));
	assert_doca(DOCA_ERROR_NO_MEMORY,
	            doca_ec_task_create_allocate_init(x.ec, mx, NULL, NULL, (union doca_data){ 0 },
	                                              &t[4]));
	/* the other types keep their own shares */
	assert_ok(doca_ec_task_recover_allocate_init(x.ec, mx, NULL, NULL, (union doca_data){ 0 },
	                                             &rt));
	doca_task_free(doca_ec_task_recover_as_task(rt));
	doca_task_free(doca_ec_task_create_as_task(t[3]));
	assert_ok(doca_ec_task_create_allocate_init(x.ec, mx, NULL, NULL, (union doca_data){ 0 },
	                                            &t[3]));
	for (int i = 1; i < 4; i++)
		doca_task_free(doca_ec_task_create_as_task(t[i]));
	c = t[0];

	/* submit: no buffers */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_submit(doca_ec_task_create_as_task(c)));
	sb = ecx_buf(&x, x.mem, 256, true);
	assert_ok(doca_buf_set_data(sb, x.mem, 128));
	db = ecx_buf(&x, out, 64, false);
	doca_ec_task_create_set_original_data_blocks(c, sb);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_submit(doca_ec_task_create_as_task(c)));
	doca_ec_task_create_set_rdnc_blocks(c, db);
	assert_ptr_equal(doca_ec_task_create_get_original_data_blocks(c), sb);
	assert_ptr_equal(doca_ec_task_create_get_rdnc_blocks(c), db);
	/* a matrix of another context set later, then a destroyed one */
	doca_ec_task_create_set_coding_matrix(c, other);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_submit(doca_ec_task_create_as_task(c)));
	assert_ok(doca_ec_matrix_destroy(other));
	doca_ec_task_create_set_coding_matrix(c, mx);
	assert_ptr_equal(doca_ec_task_create_get_coding_matrix(c), mx);
	/* a buf released to its inventory; a list element that is not the head */
	gone = ecx_buf(&x, x.mem, 128, true);
	assert_ok(doca_buf_dec_refcount(gone, NULL));
	doca_ec_task_create_set_original_data_blocks(c, gone);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_submit(doca_ec_task_create_as_task(c)));
	gone = ecx_list(&x, x.mem, 256, true, 2);
	assert_ok(doca_buf_get_next_in_list(gone, &next));
	doca_ec_task_create_set_original_data_blocks(c, next);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_submit(doca_ec_task_create_as_task(c)));
	assert_ok(doca_buf_dec_refcount(gone, NULL));
	doca_ec_task_create_set_original_data_blocks(c, sb);

	/* a read-only destination */
	assert_ok(doca_mmap_create(&ro));
	assert_ok(doca_mmap_add_dev(ro, x.dev));
	assert_ok(doca_mmap_set_memrange(ro, x.mem + (512u << 10), 4096));
	assert_ok(doca_mmap_set_permissions(ro, DOCA_ACCESS_FLAG_LOCAL_READ_ONLY));
	assert_ok(doca_mmap_start(ro));
	assert_ok(doca_buf_inventory_buf_get_by_addr(x.inv, ro, x.mem + (512u << 10), 64, &gone));
	doca_ec_task_create_set_rdnc_blocks(c, gone);
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_task_submit(doca_ec_task_create_as_task(c)));
	assert_ok(doca_buf_dec_refcount(gone, NULL));
	assert_ok(doca_mmap_destroy(ro));
	/* memory of an mmap the context's device was not added to */
	dev2 = tu_open_dev("b1:00.1");
	assert_ok(doca_mmap_create(&foreign));
	assert_ok(doca_mmap_add_dev(foreign, dev2));
	assert_ok(doca_mmap_set_memrange(foreign, x.mem + (600u << 10), 4096));
	assert_ok(doca_mmap_set_permissions(foreign, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	assert_ok(doca_mmap_start(foreign));
	assert_ok(doca_buf_inventory_buf_get_by_data(x.inv, foreign, x.mem + (600u << 10), 128,
	                                             &gone));
	doca_ec_task_create_set_original_data_blocks(c, gone);
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_task_submit(doca_ec_task_create_as_task(c)));
	assert_ok(doca_buf_dec_refcount(gone, NULL));
	assert_ok(doca_mmap_destroy(foreign));
	assert_ok(doca_dev_close(dev2));
	/* memory of a thread-safe mmap stopped under its buf: registered with no device */
	assert_ok(doca_mmap_create(&foreign));
	assert_ok(doca_mmap_add_dev(foreign, x.dev));
	assert_ok(doca_mmap_set_memrange(foreign, x.mem + (600u << 10), 4096));
	assert_ok(doca_mmap_enable_thread_safety(foreign));
	assert_ok(doca_mmap_start(foreign));
	assert_ok(doca_buf_inventory_buf_get_by_data(x.inv, foreign, x.mem + (600u << 10), 128,
	                                             &gone));
	assert_ok(doca_mmap_stop(foreign));
	doca_ec_task_create_set_original_data_blocks(c, gone);
	(void)tu_log_lines("", &hit);
	assert_doca(DOCA_ERROR_BAD_STATE, doca_task_submit(doca_ec_task_create_as_task(c)));
	assert_int_equal(tu_log_lines(M16_LINE, &hit), 1); /* M16's words, as every library's */
	assert_int_equal(hit, 1);
	assert_ok(doca_buf_dec_refcount(gone, NULL));
	assert_ok(doca_mmap_destroy(foreign));
	doca_ec_task_create_set_original_data_blocks(c, sb);
	doca_ec_task_create_set_rdnc_blocks(c, db);

	/* sizes that do not fit the matrix: accepted, failed through the error callback,
	 * nothing written */
	memset(out, 0x5a, 256);
	assert_ok(doca_buf_set_data(sb, x.mem, 100)); /* not 2 whole blocks */
	assert_doca(DOCA_ERROR_INVALID_VALUE, ecx_run(&x, doca_ec_task_create_as_task(c)));
	assert_ok(doca_buf_set_data(sb, x.mem, 64)); /* 32-byte blocks */
	assert_doca(DOCA_ERROR_INVALID_VALUE, ecx_run(&x, doca_ec_task_create_as_task(c)));
	assert_ok(doca_buf_set_data(sb, x.mem, 192)); /* 96-byte blocks */
	assert_doca(DOCA_ERROR_INVALID_VALUE, ecx_run(&x, doca_ec_task_create_as_task(c)));
	assert_ok(doca_buf_set_data(sb, x.mem, 256)); /* 128-byte blocks, 64 bytes of room */
	assert_doca(DOCA_ERROR_INVALID_VALUE, ecx_run(&x, doca_ec_task_create_as_task(c)));
	assert_ok(doca_buf_set_data(sb, x.mem, 0)); /* empty source */
	assert_doca(DOCA_ERROR_INVALID_VALUE, ecx_run(&x, doca_ec_task_create_as_task(c)));
	/* a destination whose free space is the source's second block */
	gone = ecx_buf(&x, x.mem + 64, 128, false);
	assert_ok(doca_buf_set_data(sb, x.mem, 128));
	doca_ec_task_create_set_rdnc_blocks(c, gone);
	assert_doca(DOCA_ERROR_INVALID_VALUE, ecx_run(&x, doca_ec_task_create_as_task(c)));
	assert_ok(doca_buf_dec_refcount(gone, NULL));
	doca_ec_task_create_set_rdnc_blocks(c, db);
	assert_int_equal(x.err, 6);
	assert_int_equal(x.last, DOCA_ERROR_INVALID_VALUE);
	assert_ok(doca_buf_get_data_len(db, &len));
	assert_int_equal(len, 0);
	for (int i = 0; i < 256; i++)
		assert_int_equal(out[i], 0x5a);
	/* the right size succeeds; a task in flight keeps its buffers until its callback */
	assert_ok(doca_buf_set_data(sb, x.mem, 128));
	assert_ok(doca_task_submit(doca_ec_task_create_as_task(c)));
	doca_ec_task_create_set_original_data_blocks(c, NULL);
	doca_ec_task_create_set_rdnc_blocks(c, NULL);
	doca_ec_task_create_set_coding_matrix(c, NULL);
	assert_ptr_equal(doca_ec_task_create_get_original_data_blocks(c), sb);
	assert_ptr_equal(doca_ec_task_create_get_rdnc_blocks(c), db);
	assert_ptr_equal(doca_ec_task_create_get_coding_matrix(c), mx);
	assert_int_equal(x.ok, 0); /* the callback runs from progress, not from submit */
	for (int i = 0; i < 100 && x.ok == 0; i++)
		(void)doca_pe_progress(x.pe);
	assert_int_equal(x.ok, 1);
	assert_ok(doca_buf_get_data_len(db, &len));
	assert_int_equal(len, 64);
	assert_null(doca_ec_task_create_as_task(NULL));
	assert_null(doca_ec_task_create_get_rdnc_blocks(NULL));
	doca_ec_task_create_set_rdnc_blocks(NULL, db); /* logged, ignored */
	doca_task_free(doca_ec_task_create_as_task(c));
	assert_ok(doca_buf_dec_refcount(sb, NULL));
	assert_ok(doca_buf_dec_refcount(db, NULL));
	assert_ok(doca_ec_matrix_destroy(mx));
	ecx_fini(&y);
	ecx_fini(&x);
}

/* A context with only create tasks configured has no recover share. */
static void test_unconfigured_type(void **state)
{
	struct doca_dev *dev = tu_open_dev(NULL);
	struct doca_pe *pe;
	struct doca_ec *ec;
	struct doca_ec_matrix *mx;
	struct doca_ec_task_recover *rt;
	struct doca_ec_task_update *ut;
	struct doca_ec_task_galois_mul *gt;
	struct doca_ec_task_create *ct[3];

	(void)state;
	assert_ok(doca_pe_create(&pe));
	assert_ok(doca_ec_create(dev, &ec));
	assert_ok(doca_pe_connect_ctx(pe, doca_ec_as_ctx(ec)));
	assert_doca(DOCA_ERROR_BAD_CONFIG, doca_ctx_start(doca_ec_as_ctx(ec))); /* no task type */
	assert_ok(doca_ec_task_create_set_conf(ec, create_ok, create_err, 2));
	assert_ok(doca_ctx_start(doca_ec_as_ctx(ec)));
	assert_ok(doca_ec_matrix_create(ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 1, &mx));
	assert_doca(DOCA_ERROR_NO_MEMORY, doca_ec_task_recover_allocate_init(
	                                          ec, mx, NULL, NULL, (union doca_data){ 0 }, &rt));
	assert_doca(DOCA_ERROR_NO_MEMORY, doca_ec_task_update_allocate_init(
	                                          ec, mx, NULL, NULL, (union doca_data){ 0 }, &ut));
	assert_doca(DOCA_ERROR_NO_MEMORY, doca_ec_task_galois_mul_allocate_init(
	                                          ec, mx, NULL, NULL, (union doca_data){ 0 }, &gt));
	/* those refusals took nothing from the create share: its 2 tasks, not a third */
	for (int i = 0; i < 2; i++)
		assert_ok(doca_ec_task_create_allocate_init(ec, mx, NULL, NULL,
		                                            (union doca_data){ 0 }, &ct[i]));
	assert_doca(DOCA_ERROR_NO_MEMORY,
	            doca_ec_task_create_allocate_init(ec, mx, NULL, NULL, (union doca_data){ 0 },
	                                              &ct[2]));
	for (int i = 0; i < 2; i++)
		doca_task_free(doca_ec_task_create_as_task(ct[i]));
	assert_ok(doca_ec_matrix_destroy(mx));
	assert_ok(doca_ctx_stop(doca_ec_as_ctx(ec)));
	assert_ok(doca_ec_destroy(ec));
	assert_ok(doca_pe_destroy(pe));
	assert_ok(doca_dev_close(dev));
}

/* A stop right after a submit: the task's callback still runs once, then the context is IDLE. */
static void test_stop_with_task_done(void **state)
{
	struct ecx x;
	struct doca_ec_matrix *mx;
	struct doca_ec_task_create *t;
	struct doca_buf *sb, *db;
	enum doca_ctx_states st = DOCA_CTX_STATE_RUNNING;

	(void)state;
	ecx_init(&x, true);
	assert_ok(doca_ec_matrix_create(x.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 2, &mx));
	sb = ecx_buf(&x, x.mem, 256, true);
	db = ecx_buf(&x, x.mem + 4096, 256, false);
	assert_ok(doca_ec_task_create_allocate_init(x.ec, mx, sb, db, (union doca_data){ 0 }, &t));
	assert_ok(doca_task_submit(doca_ec_task_create_as_task(t)));
	(void)doca_ctx_stop(doca_ec_as_ctx(x.ec));
	for (int i = 0; i < 1000 && (x.ok + x.err == 0 || st != DOCA_CTX_STATE_IDLE); i++) {
		(void)doca_pe_progress(x.pe);
		if (x.ok + x.err == 1 && t != NULL) {
			doca_task_free(doca_ec_task_create_as_task(t));
			t = NULL;
		}
		assert_ok(doca_ctx_get_state(doca_ec_as_ctx(x.ec), &st));
	}
	assert_int_equal(x.ok + x.err, 1);
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	assert_ok(doca_buf_dec_refcount(sb, NULL));
	assert_ok(doca_buf_dec_refcount(db, NULL));
	assert_ok(doca_ec_matrix_destroy(mx));
	ecx_fini(&x);
}

/*
 * Blocks in memory of a started mmap that the program protected (a program bug): the task
 * fails with IO_FAILED, the process goes on, and the task succeeds once the memory is back.
 * Runs in a fresh exec of this program (--unmapped): cmocka installs its own SIGSEGV handler
 * for each test, over odma's fault guard.
 */
static void unmapped_blocks(void)
{
	const size_t pg = 4096;
	struct ecx x;
	struct doca_ec_matrix *mx;
	struct doca_ec_task_create *t;
	struct doca_buf *sb, *db;
	uint8_t *p;
	size_t n;

	ecx_init(&x, true);
	/* page-aligned inside the fixture's (own-mapping) allocation: 2 source, 2 output pages */
	p = (uint8_t *)(((uintptr_t)x.mem + 2 * pg) & ~(uintptr_t)(pg - 1));
	fill(p, 2 * pg, 7);
	assert_ok(doca_ec_matrix_create(x.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 2, &mx));
	sb = ecx_buf(&x, p, 2 * pg, true);
	db = ecx_buf(&x, p + 2 * pg, 2 * pg, false);
	assert_ok(doca_ec_task_create_allocate_init(x.ec, mx, sb, db, (union doca_data){ 0 }, &t));
	assert_int_equal(mprotect(p + pg, pg, PROT_NONE), 0);
	assert_int_equal(ecx_run(&x, doca_ec_task_create_as_task(t)), DOCA_ERROR_IO_FAILED);
	assert_int_equal(mprotect(p + pg, pg, PROT_READ | PROT_WRITE), 0);
	assert_int_equal(mprotect(p + 2 * pg, 2 * pg, PROT_READ), 0);
	assert_int_equal(ecx_run(&x, doca_ec_task_create_as_task(t)), DOCA_ERROR_IO_FAILED);
	assert_ok(doca_buf_get_data_len(db, &n));
	assert_int_equal(n, 0);
	assert_int_equal(mprotect(p + 2 * pg, 2 * pg, PROT_READ | PROT_WRITE), 0);
	assert_ok(ecx_run(&x, doca_ec_task_create_as_task(t)));
	assert_ok(doca_buf_get_data_len(db, &n));
	assert_int_equal(n, 2 * pg);
	doca_task_free(doca_ec_task_create_as_task(t));
	assert_ok(doca_buf_dec_refcount(sb, NULL));
	assert_ok(doca_buf_dec_refcount(db, NULL));
	assert_ok(doca_ec_matrix_destroy(mx));
	ecx_fini(&x);
}

static const char *self_exe;

static void test_unmapped_blocks(void **state)
{
	int st;

	(void)state;
	st = tu_run_self(self_exe, "--unmapped");
	if (WIFSIGNALED(st))
		fail_msg("the program died of signal %d: the fault guard did not catch the fault",
		         WTERMSIG(st));
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(int argc, char **argv)
{
	const char *mode = getenv("ODMA_TEST_EC_MODE");
	const struct CMUnitTest full[] = {
		cmocka_unit_test(test_caps_bf3),
		cmocka_unit_test(test_encode_recover_all),
		cmocka_unit_test(test_encode_large_codes),
		cmocka_unit_test(test_update),
		cmocka_unit_test(test_galois_mul_and_raw),
		cmocka_unit_test(test_context_errors),
		cmocka_unit_test(test_matrix_errors),
		cmocka_unit_test(test_task_errors),
		cmocka_unit_test(test_unconfigured_type),
		cmocka_unit_test(test_stop_with_task_done),
		cmocka_unit_test(test_unmapped_blocks),
	};
	const struct CMUnitTest none[] = { cmocka_unit_test(test_caps_none) };
	const struct CMUnitTest small[] = { cmocka_unit_test(test_small_limits) };

	self_exe = argv[0];
	if (argc == 2 && strcmp(argv[1], "--unmapped") == 0) {
		unmapped_blocks(); /* a failed check exits non-zero */
		return 0;
	}
	if (mode != NULL && strcmp(mode, "none") == 0)
		return cmocka_run_group_tests(none, NULL, NULL);
	if (mode != NULL && strcmp(mode, "small") == 0)
		return cmocka_run_group_tests(small, NULL, NULL);
	return cmocka_run_group_tests(full, NULL, NULL);
}
