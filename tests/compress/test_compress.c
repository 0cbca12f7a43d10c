/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * DOCA Compress, black box. One binary, run once per system (meson rows set ODMA_SYSTEM and
 * ODMA_TEST_COMPRESS_SYSTEM): the capabilities of each built-in profile, the configuration
 * rules, round trips checked against zlib and liblz4 (output bytes and CRC-32, Adler-32,
 * xxHash-32), completion only from doca_pe_progress, and every error the header documents.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lz4.h>
#include <lz4frame.h>
#include <zlib.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_compress.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "test_exec.h"
#include "test_util.h"

#define MEM_SIZE (4u << 20)
#define PLAIN_LEN (200u * 1024u)

static const char *sys_name; /* bf2, bf3, cx7 or small */
static uint8_t *mem;         /* the test's mmap: [0, 1M) sources, [1M, 4M) destinations */
static uint8_t plain[PLAIN_LEN];

static bool has_compress(void)
{
	return strcmp(sys_name, "bf2") == 0 || strcmp(sys_name, "small") == 0;
}
static bool has_deflate(void)
{
	return strcmp(sys_name, "cx7") != 0;
}
static bool has_lz4(void)
{
	return strcmp(sys_name, "bf3") == 0;
}

struct counts {
	unsigned ok, err;
	doca_error_t last;
	bool in_submit; /* a callback while doca_task_submit runs would set fired_in_submit */
	bool fired_in_submit;
};

#define CBS(tname)                                                                                 \
	static void tname##_ok(struct doca_compress_task_##tname *t, union doca_data tud,          \
	                       union doca_data cud)                                                \
	{                                                                                          \
		struct counts *c = cud.ptr;                                                        \
		(void)t;                                                                           \
		(void)tud;                                                                         \
		c->ok++;                                                                           \
		c->last = DOCA_SUCCESS;                                                            \
		c->fired_in_submit |= c->in_submit;                                                \
	}                                                                                          \
	static void tname##_err(struct doca_compress_task_##tname *t, union doca_data tud,         \
	                        union doca_data cud)                                               \
	{                                                                                          \
		struct counts *c = cud.ptr;                                                        \
		(void)tud;                                                                         \
		c->err++;                                                                          \
		c->last = doca_task_get_status(doca_compress_task_##tname##_as_task(t));           \
		c->fired_in_submit |= c->in_submit;                                                \
	}
CBS(compress_deflate)
CBS(decompress_deflate)
CBS(decompress_lz4_stream)
CBS(decompress_lz4_block)

struct setup {
	struct doca_dev *dev;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	struct doca_pe *pe;
	struct doca_compress *cp;
	struct doca_ctx *ctx;
	struct counts c;
};

static void setup_up(struct setup *s)
{
	memset(s, 0, sizeof(*s));
	s->dev = tu_open_dev(strcmp(sys_name, "small") == 0 ? "0a:00.0" : "03:00.0");
	assert_ok(doca_mmap_create(&s->mmap));
	assert_ok(doca_mmap_set_memrange(s->mmap, mem, MEM_SIZE));
	assert_ok(doca_mmap_add_dev(s->mmap, s->dev));
	assert_ok(doca_mmap_set_permissions(s->mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	assert_ok(doca_mmap_start(s->mmap));
	assert_ok(doca_buf_inventory_create(32, &s->inv));
	assert_ok(doca_buf_inventory_start(s->inv));
	assert_ok(doca_pe_create(&s->pe));
	assert_ok(doca_compress_create(s->dev, &s->cp));
	s->ctx = doca_compress_as_ctx(s->cp);
	assert_non_null(s->ctx);
	assert_ok(doca_pe_connect_ctx(s->pe, s->ctx));
	assert_ok(doca_ctx_set_user_data(s->ctx, (union doca_data){ .ptr = &s->c }));
	if (has_compress())
		assert_ok(doca_compress_task_compress_deflate_set_conf(s->cp, compress_deflate_ok,
		                                                       compress_deflate_err, 4));
	assert_ok(doca_compress_task_decompress_deflate_set_conf(s->cp, decompress_deflate_ok,
	                                                         decompress_deflate_err, 4));
	if (has_lz4()) {
		assert_ok(doca_compress_task_decompress_lz4_stream_set_conf(
		        s->cp, decompress_lz4_stream_ok, decompress_lz4_stream_err, 4));
		assert_ok(doca_compress_task_decompress_lz4_block_set_conf(
		        s->cp, decompress_lz4_block_ok, decompress_lz4_block_err, 4));
	}
	assert_ok(doca_ctx_start(s->ctx));
}

static void setup_down(struct setup *s)
{
	assert_ok(doca_ctx_stop(s->ctx));
	assert_ok(doca_compress_destroy(s->cp));
	assert_ok(doca_pe_destroy(s->pe));
	assert_ok(doca_buf_inventory_destroy(s->inv));
	assert_ok(doca_mmap_destroy(s->mmap));
	assert_ok(doca_dev_close(s->dev));
}

static struct doca_buf *src_buf(struct setup *s, size_t off, const void *bytes, size_t n)
{
	struct doca_buf *b;

	memcpy(mem + off, bytes, n);
	assert_ok(doca_buf_inventory_buf_get_by_data(s->inv, s->mmap, mem + off, n, &b));
	return b;
}

static struct doca_buf *dst_buf(struct setup *s, size_t off, size_t n)
{
	struct doca_buf *b;

	memset(mem + off, 0xee, n);
	assert_ok(doca_buf_inventory_buf_get_by_addr(s->inv, s->mmap, mem + off, n, &b));
	return b;
}

/* Submits, checks no callback ran inside submit, progresses until one callback ran. */
static doca_error_t run(struct setup *s, struct doca_task *t)
{
	unsigned before = s->c.ok + s->c.err;

	s->c.in_submit = true;
	assert_ok(doca_task_submit(t));
	s->c.in_submit = false;
	assert_false(s->c.fired_in_submit);
	assert_int_equal(s->c.ok + s->c.err, before);
	for (int i = 0; i < 1000 && s->c.ok + s->c.err == before; i++)
		(void)doca_pe_progress(s->pe);
	assert_int_equal(s->c.ok + s->c.err, before + 1);
	return s->c.last;
}

static size_t raw_deflate(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	z_stream z;

	memset(&z, 0, sizeof(z));
	assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	deflateEnd(&z);
	return cap - z.avail_out;
}

static size_t raw_inflate(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	z_stream z;

	memset(&z, 0, sizeof(z));
	assert_int_equal(inflateInit2(&z, -15), Z_OK);
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	inflateEnd(&z);
	return cap - z.avail_out;
}

static void fill_plain(void)
{
	static const char *const words[] = { "offload ",   "deflate ", "block ", "stream ",
		                             "BlueField ", "engine ",  "0123 ",  "\n" };
	uint32_t x = 12345;
	size_t i = 0;

	while (i < PLAIN_LEN) {
		const char *w;
		size_t n;

		x = x * 1103515245u + 12345u;
		w = words[(x >> 16) % 8];
		n = strlen(w);
		if (n > PLAIN_LEN - i)
			n = PLAIN_LEN - i;
		memcpy(plain + i, w, n);
		i += n;
	}
}

/* ------------------------------------------------------------------- capabilities */

static void test_caps(void **state)
{
	struct doca_devinfo **list;
	struct doca_compress *cp;
	uint64_t sz;
	uint32_t n, len;
	bool small = strcmp(sys_name, "small") == 0;

	(void)state;
	assert_ok(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n; i++) {
		struct {
			doca_error_t (*sup)(const struct doca_devinfo *);
			doca_error_t (*max)(const struct doca_devinfo *, uint64_t *);
			doca_error_t (*list)(const struct doca_devinfo *, uint32_t *);
			bool has;
		} k[] = {
			{ doca_compress_cap_task_compress_deflate_is_supported,
			  doca_compress_cap_task_compress_deflate_get_max_buf_size,
			  doca_compress_cap_task_compress_deflate_get_max_buf_list_len,
			  has_compress() },
			{ doca_compress_cap_task_decompress_deflate_is_supported,
			  doca_compress_cap_task_decompress_deflate_get_max_buf_size,
			  doca_compress_cap_task_decompress_deflate_get_max_buf_list_len,
			  has_deflate() },
			{ doca_compress_cap_task_decompress_lz4_stream_is_supported,
			  doca_compress_cap_task_decompress_lz4_stream_get_max_buf_size,
			  doca_compress_cap_task_decompress_lz4_stream_get_max_buf_list_len,
			  has_lz4() },
			{ doca_compress_cap_task_decompress_lz4_block_is_supported,
			  doca_compress_cap_task_decompress_lz4_block_get_max_buf_size,
			  doca_compress_cap_task_decompress_lz4_block_get_max_buf_list_len,
			  has_lz4() },
		};
		bool this_has = !small || i == 0; /* the small profile's second port has none */

		for (size_t j = 0; j < sizeof(k) / sizeof(k[0]); j++) {
			doca_error_t want =
			        k[j].has && this_has ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;

			assert_doca(want, k[j].sup(list[i]));
			assert_doca(want, k[j].max(list[i], &sz));
			assert_doca(want, k[j].list(list[i], &len));
			if (want == DOCA_SUCCESS) {
				assert_int_equal(sz, small ? 4096 : 128u << 20);
				assert_int_equal(len, 1);
			}
			assert_doca(DOCA_ERROR_INVALID_VALUE, k[j].sup(NULL));
			assert_doca(DOCA_ERROR_INVALID_VALUE, k[j].max(list[i], NULL));
			assert_doca(DOCA_ERROR_INVALID_VALUE, k[j].list(NULL, &len));
		}
	}
	assert_ok(doca_devinfo_destroy_list(list));
	if (strcmp(sys_name, "cx7") == 0) {
		struct doca_dev *dev = tu_open_dev("41:00.0");

		assert_doca(DOCA_ERROR_NOT_SUPPORTED, doca_compress_create(dev, &cp));
		assert_ok(doca_dev_close(dev));
	}
	if (small) {
		struct doca_dev *dev = tu_open_dev("0a:00.1");

		assert_doca(DOCA_ERROR_NOT_SUPPORTED, doca_compress_create(dev, &cp));
		assert_ok(doca_dev_close(dev));
	}
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_compress_create(NULL, &cp));
}

/* ------------------------------------------------------------------- configuration */

static void test_conf_rules(void **state)
{
	struct doca_dev *dev;
	struct doca_compress *cp;
	struct doca_pe *pe;
	struct counts c = { 0 };
	uint32_t max;
	union doca_data ud = { .u64 = 0 };
	struct doca_compress_task_decompress_deflate *t[5];

	(void)state;
	if (strcmp(sys_name, "cx7") == 0)
		skip();
	dev = tu_open_dev(strcmp(sys_name, "small") == 0 ? "0a:00.0" : "03:00.0");
	assert_ok(doca_compress_create(dev, &cp));
	assert_ok(doca_pe_create(&pe));
	assert_ok(doca_pe_connect_ctx(pe, doca_compress_as_ctx(cp)));
	assert_ok(doca_ctx_set_user_data(doca_compress_as_ctx(cp), (union doca_data){ .ptr = &c }));
	assert_null(doca_compress_as_ctx(NULL));
	assert_ok(doca_compress_cap_get_max_num_tasks(cp, &max));
	assert_int_equal(max, 65536);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_compress_cap_get_max_num_tasks(NULL, &max));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_compress_cap_get_max_num_tasks(cp, NULL));
	/* the task type the device lacks: NOT_SUPPORTED at set_conf */
	if (!has_compress())
		assert_doca(DOCA_ERROR_NOT_SUPPORTED,
		            doca_compress_task_compress_deflate_set_conf(cp, compress_deflate_ok,
		                                                         compress_deflate_err, 1));
	if (!has_lz4()) {
		assert_doca(DOCA_ERROR_NOT_SUPPORTED,
		            doca_compress_task_decompress_lz4_stream_set_conf(
		                    cp, decompress_lz4_stream_ok, decompress_lz4_stream_err, 1));
		assert_doca(DOCA_ERROR_NOT_SUPPORTED,
		            doca_compress_task_decompress_lz4_block_set_conf(
		                    cp, decompress_lz4_block_ok, decompress_lz4_block_err, 1));
	}
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_compress_task_decompress_deflate_set_conf(NULL, decompress_deflate_ok,
	                                                           decompress_deflate_err, 1));
	/* the pools of all types together stay within the context's maximum */
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_compress_task_decompress_deflate_set_conf(
	                    cp, decompress_deflate_ok, decompress_deflate_err, max + 1));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_compress_task_decompress_deflate_set_conf(
	                                              cp, NULL, decompress_deflate_err, 1));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_compress_task_decompress_deflate_set_conf(
	                                              cp, decompress_deflate_ok, NULL, 1));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_compress_task_decompress_deflate_set_conf(cp, decompress_deflate_ok,
	                                                           decompress_deflate_err, 0));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_compress_task_decompress_deflate_set_conf(
	                    cp, decompress_deflate_ok, decompress_deflate_err, max + 1));
	/* nothing configured: the start is refused */
	assert_doca(DOCA_ERROR_BAD_CONFIG, doca_ctx_start(doca_compress_as_ctx(cp)));
	assert_doca(DOCA_ERROR_BAD_STATE,
	            doca_compress_task_decompress_deflate_alloc_init(cp, NULL, NULL, ud, &t[0]));
	assert_ok(doca_compress_task_decompress_deflate_set_conf(cp, decompress_deflate_ok,
	                                                         decompress_deflate_err, 4));
	assert_ok(doca_ctx_start(doca_compress_as_ctx(cp)));
	assert_doca(DOCA_ERROR_BAD_STATE,
	            doca_compress_task_decompress_deflate_set_conf(cp, decompress_deflate_ok,
	                                                           decompress_deflate_err, 4));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_compress_destroy(cp));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_compress_task_decompress_deflate_alloc_init(NULL, NULL, NULL, ud, &t[0]));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_compress_task_decompress_deflate_alloc_init(cp, NULL, NULL, ud, NULL));
	for (int i = 0; i < 4; i++)
		assert_ok(doca_compress_task_decompress_deflate_alloc_init(cp, NULL, NULL, ud,
		                                                           &t[i]));
	assert_doca(DOCA_ERROR_NO_MEMORY,
	            doca_compress_task_decompress_deflate_alloc_init(cp, NULL, NULL, ud, &t[4]));
	/* a freed task makes room for one more */
	doca_task_free(doca_compress_task_decompress_deflate_as_task(t[3]));
	assert_ok(doca_compress_task_decompress_deflate_alloc_init(cp, NULL, NULL, ud, &t[3]));
	/* a type that was not configured has no tasks to give */
	if (has_lz4()) {
		struct doca_compress_task_decompress_lz4_block *b;

		assert_doca(
		        DOCA_ERROR_NO_MEMORY,
		        doca_compress_task_decompress_lz4_block_alloc_init(cp, NULL, NULL, ud, &b));
	}
	/* a task without buffers is refused by submit and stays the program's */
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_task_submit(doca_compress_task_decompress_deflate_as_task(t[0])));
	for (int i = 0; i < 4; i++)
		doca_task_free(doca_compress_task_decompress_deflate_as_task(t[i]));
	assert_ok(doca_ctx_stop(doca_compress_as_ctx(cp)));
	assert_ok(doca_compress_destroy(cp));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_compress_destroy(NULL));
	assert_ok(doca_pe_destroy(pe));
	assert_ok(doca_dev_close(dev));
}

/* ------------------------------------------------------------------- round trips */

static void test_deflate_round_trip(void **state)
{
	struct setup s;
	struct doca_compress_task_compress_deflate *ct;
	struct doca_compress_task_decompress_deflate *dt;
	struct doca_buf *src, *dst, *back;
	union doca_data ud = { .u64 = 7 };
	size_t clen, blen;
	void *data;
	static uint8_t check[PLAIN_LEN];

	(void)state;
	if (!has_compress() || strcmp(sys_name, "small") == 0)
		skip();
	setup_up(&s);
	src = src_buf(&s, 0, plain, PLAIN_LEN);
	dst = dst_buf(&s, 1u << 20, PLAIN_LEN);
	assert_ok(doca_compress_task_compress_deflate_alloc_init(s.cp, src, dst, ud, &ct));
	assert_ptr_equal(doca_compress_task_compress_deflate_get_src(ct), src);
	assert_ptr_equal(doca_compress_task_compress_deflate_get_dst(ct), dst);
	doca_compress_task_compress_deflate_set_dst(ct, src);
	assert_ptr_equal(doca_compress_task_compress_deflate_get_dst(ct), src);
	doca_compress_task_compress_deflate_set_dst(ct, dst);
	assert_ptr_equal(doca_compress_task_compress_deflate_get_dst(ct), dst);
	assert_int_equal(doca_compress_task_compress_deflate_get_crc_cs(ct), 0);
	assert_ok(run(&s, doca_compress_task_compress_deflate_as_task(ct)));
	assert_ok(doca_buf_get_data_len(dst, &clen));
	assert_true(clen > 0 && clen < PLAIN_LEN / 2);
	/* zlib reads it back as raw deflate */
	assert_ok(doca_buf_get_data(dst, &data));
	assert_int_equal(raw_inflate(data, clen, check, sizeof(check)), PLAIN_LEN);
	assert_memory_equal(check, plain, PLAIN_LEN);
	assert_int_equal(doca_compress_task_compress_deflate_get_crc_cs(ct),
	                 (uint32_t)crc32(0, plain, PLAIN_LEN));
	assert_int_equal(doca_compress_task_compress_deflate_get_adler_cs(ct),
	                 (uint32_t)adler32(1, plain, PLAIN_LEN));
	/* and the decompress task brings the bytes back, after data already in the buffer */
	back = dst_buf(&s, 2u << 20, PLAIN_LEN + 3);
	memcpy(mem + (2u << 20), "HDR", 3);
	assert_ok(doca_buf_set_data(back, mem + (2u << 20), 3));
	assert_ok(doca_compress_task_decompress_deflate_alloc_init(s.cp, dst, back, ud, &dt));
	assert_ok(run(&s, doca_compress_task_decompress_deflate_as_task(dt)));
	assert_ok(doca_buf_get_data_len(back, &blen));
	assert_int_equal(blen, PLAIN_LEN + 3);
	assert_memory_equal(mem + (2u << 20), "HDR", 3);
	assert_memory_equal(mem + (2u << 20) + 3, plain, PLAIN_LEN);
	assert_int_equal(doca_compress_task_decompress_deflate_get_crc_cs(dt),
	                 (uint32_t)crc32(0, plain, PLAIN_LEN));
	assert_int_equal(doca_compress_task_decompress_deflate_get_adler_cs(dt),
	                 (uint32_t)adler32(1, plain, PLAIN_LEN));
	assert_int_equal(s.c.ok, 2);
	doca_task_free(doca_compress_task_compress_deflate_as_task(ct));
	doca_task_free(doca_compress_task_decompress_deflate_as_task(dt));
	assert_ok(doca_buf_dec_refcount(src, NULL));
	assert_ok(doca_buf_dec_refcount(dst, NULL));
	assert_ok(doca_buf_dec_refcount(back, NULL));
	setup_down(&s);
}

static void test_decompress_deflate_from_zlib(void **state)
{
	struct setup s;
	struct doca_compress_task_decompress_deflate *dt;
	struct doca_buf *src, *dst;
	union doca_data ud = { .u64 = 0 };
	static uint8_t comp[PLAIN_LEN];
	size_t clen, n;

	(void)state;
	if (!has_deflate() || strcmp(sys_name, "small") == 0)
		skip();
	clen = raw_deflate(plain, PLAIN_LEN, comp, sizeof(comp));
	setup_up(&s);
	src = src_buf(&s, 0, comp, clen);
	dst = dst_buf(&s, 1u << 20, PLAIN_LEN);
	assert_ok(doca_compress_task_decompress_deflate_alloc_init(s.cp, src, dst, ud, &dt));
	assert_ok(run(&s, doca_compress_task_decompress_deflate_as_task(dt)));
	assert_ok(doca_buf_get_data_len(dst, &n));
	assert_int_equal(n, PLAIN_LEN);
	assert_memory_equal(mem + (1u << 20), plain, PLAIN_LEN);

	/* dst one byte short: TOO_BIG through the error callback, data_len unchanged */
	assert_ok(doca_buf_dec_refcount(dst, NULL));
	dst = dst_buf(&s, 1u << 20, PLAIN_LEN - 1);
	doca_compress_task_decompress_deflate_set_dst(dt, dst);
	assert_doca(DOCA_ERROR_TOO_BIG, run(&s, doca_compress_task_decompress_deflate_as_task(dt)));
	assert_ok(doca_buf_get_data_len(dst, &n));
	assert_int_equal(n, 0);

	/* a truncated stream and garbage: IO_FAILED */
	assert_ok(doca_buf_dec_refcount(dst, NULL));
	dst = dst_buf(&s, 1u << 20, PLAIN_LEN);
	doca_compress_task_decompress_deflate_set_dst(dt, dst);
	assert_ok(doca_buf_set_data(src, mem, clen / 2));
	assert_doca(DOCA_ERROR_IO_FAILED,
	            run(&s, doca_compress_task_decompress_deflate_as_task(dt)));
	memset(mem, 0xff, 64);
	assert_ok(doca_buf_set_data(src, mem, 64));
	assert_doca(DOCA_ERROR_IO_FAILED,
	            run(&s, doca_compress_task_decompress_deflate_as_task(dt)));
	assert_int_equal(s.c.err, 3);
	/* the context keeps running after failed tasks */
	memcpy(mem, comp, clen);
	assert_ok(doca_buf_set_data(src, mem, clen));
	assert_ok(run(&s, doca_compress_task_decompress_deflate_as_task(dt)));
	doca_task_free(doca_compress_task_decompress_deflate_as_task(dt));
	assert_ok(doca_buf_dec_refcount(src, NULL));
	assert_ok(doca_buf_dec_refcount(dst, NULL));
	setup_down(&s);
}

static void test_compress_dst_too_small(void **state)
{
	struct setup s;
	struct doca_compress_task_compress_deflate *ct;
	struct doca_buf *src, *dst;
	union doca_data ud = { .u64 = 0 };
	static uint8_t out[PLAIN_LEN];
	size_t n, clen;

	(void)state;
	if (!has_compress() || strcmp(sys_name, "small") == 0)
		skip();
	setup_up(&s);
	src = src_buf(&s, 0, plain, PLAIN_LEN);
	dst = dst_buf(&s, 1u << 20, 100);
	assert_ok(doca_compress_task_compress_deflate_alloc_init(s.cp, src, dst, ud, &ct));
	assert_doca(DOCA_ERROR_TOO_BIG, run(&s, doca_compress_task_compress_deflate_as_task(ct)));
	assert_ok(doca_buf_get_data_len(dst, &n));
	assert_int_equal(n, 0);
	/* a destination of exactly the output's size takes it; one byte less does not */
	assert_ok(doca_buf_dec_refcount(dst, NULL));
	dst = dst_buf(&s, 1u << 20, PLAIN_LEN);
	doca_compress_task_compress_deflate_set_dst(ct, dst);
	assert_ok(run(&s, doca_compress_task_compress_deflate_as_task(ct)));
	assert_ok(doca_buf_get_data_len(dst, &clen));
	memcpy(out, mem + (1u << 20), clen);
	for (size_t room = clen; room + 2 > clen; room--) {
		assert_ok(doca_buf_dec_refcount(dst, NULL));
		dst = dst_buf(&s, 1u << 20, room);
		doca_compress_task_compress_deflate_set_dst(ct, dst);
		assert_doca(room == clen ? DOCA_SUCCESS : DOCA_ERROR_TOO_BIG,
		            run(&s, doca_compress_task_compress_deflate_as_task(ct)));
		assert_ok(doca_buf_get_data_len(dst, &n));
		assert_int_equal(n, room == clen ? clen : 0);
		if (room == clen)
			assert_memory_equal(mem + (1u << 20), out, clen);
	}
	doca_task_free(doca_compress_task_compress_deflate_as_task(ct));
	assert_ok(doca_buf_dec_refcount(src, NULL));
	assert_ok(doca_buf_dec_refcount(dst, NULL));
	setup_down(&s);
}

/* An LZ4 frame of plain; returns its length and the offsets of its block sequence. */
static size_t lz4_frame(uint8_t *out, size_t cap, bool linked, bool block_cs, size_t *blocks_at,
                        size_t *blocks_len)
{
	LZ4F_preferences_t p;
	size_t n;

	memset(&p, 0, sizeof(p));
	p.frameInfo.blockSizeID = LZ4F_max64KB;
	p.frameInfo.blockMode = linked ? LZ4F_blockLinked : LZ4F_blockIndependent;
	p.frameInfo.blockChecksumFlag = block_cs ? LZ4F_blockChecksumEnabled : LZ4F_noBlockChecksum;
	p.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
	n = LZ4F_compressFrame(out, cap, plain, PLAIN_LEN, &p);
	assert_false(LZ4F_isError(n));
	*blocks_at = 7; /* magic 4, FLG, BD, HC: no content size, no dictionary id */
	*blocks_len = n - *blocks_at - 4 - 4; /* end mark, content checksum */
	return n;
}

static void test_lz4_stream(void **state)
{
	struct setup s;
	union doca_data ud = { .u64 = 0 };
	static uint8_t frame[PLAIN_LEN * 2];

	(void)state;
	if (!has_lz4())
		skip();
	setup_up(&s);
	for (int mode = 0; mode < 4; mode++) {
		bool linked = mode & 1, block_cs = mode & 2;
		struct doca_compress_task_decompress_lz4_stream *t;
		struct doca_buf *src, *dst;
		size_t at, len, n;
		uint32_t content_cs;

		n = lz4_frame(frame, sizeof(frame), linked, block_cs, &at, &len);
		content_cs = (uint32_t)frame[n - 4] | (uint32_t)frame[n - 3] << 8 |
		             (uint32_t)frame[n - 2] << 16 | (uint32_t)frame[n - 1] << 24;
		src = src_buf(&s, 0, frame + at, len);
		dst = dst_buf(&s, 1u << 20, PLAIN_LEN);
		assert_ok(doca_compress_task_decompress_lz4_stream_alloc_init(
		        s.cp, block_cs, !linked, src, dst, ud, &t));
		assert_int_equal(doca_compress_task_decompress_lz4_stream_get_has_block_checksum(t),
		                 block_cs);
		assert_int_equal(
		        doca_compress_task_decompress_lz4_stream_get_are_blocks_independent(t),
		        !linked);
		/* the source and destination read back, and a setter replaces each */
		assert_ptr_equal(doca_compress_task_decompress_lz4_stream_get_src(t), src);
		assert_ptr_equal(doca_compress_task_decompress_lz4_stream_get_dst(t), dst);
		doca_compress_task_decompress_lz4_stream_set_src(t, dst);
		assert_ptr_equal(doca_compress_task_decompress_lz4_stream_get_src(t), dst);
		doca_compress_task_decompress_lz4_stream_set_src(t, src);
		assert_ptr_equal(doca_compress_task_decompress_lz4_stream_get_src(t), src);
		assert_ok(run(&s, doca_compress_task_decompress_lz4_stream_as_task(t)));
		assert_ok(doca_buf_get_data_len(dst, &n));
		assert_int_equal(n, PLAIN_LEN);
		assert_memory_equal(mem + (1u << 20), plain, PLAIN_LEN);
		assert_int_equal(doca_compress_task_decompress_lz4_stream_get_crc_cs(t),
		                 (uint32_t)crc32(0, plain, PLAIN_LEN));
		/* the frame's content checksum, read big-endian */
		assert_int_equal(doca_compress_task_decompress_lz4_stream_get_xxh_cs(t),
		                 __builtin_bswap32(content_cs));
		if (block_cs) {
			/* a flipped byte in the first block: its checksum no longer matches */
			mem[10] ^= 0x55;
			assert_ok(doca_buf_set_data_len(dst, 0));
			assert_doca(DOCA_ERROR_IO_FAILED,
			            run(&s, doca_compress_task_decompress_lz4_stream_as_task(t)));
			mem[10] ^= 0x55;
		}
		/* the destination one byte short */
		assert_ok(doca_buf_dec_refcount(dst, NULL));
		dst = dst_buf(&s, 1u << 20, PLAIN_LEN - 1);
		doca_compress_task_decompress_lz4_stream_set_dst(t, dst);
		assert_doca(DOCA_ERROR_TOO_BIG,
		            run(&s, doca_compress_task_decompress_lz4_stream_as_task(t)));
		/* a cut stream */
		assert_ok(doca_buf_dec_refcount(dst, NULL));
		dst = dst_buf(&s, 1u << 20, PLAIN_LEN);
		doca_compress_task_decompress_lz4_stream_set_dst(t, dst);
		assert_ok(doca_buf_set_data_len(src, len - 3));
		assert_doca(DOCA_ERROR_IO_FAILED,
		            run(&s, doca_compress_task_decompress_lz4_stream_as_task(t)));
		/* flags changed back and forth by the setters */
		doca_compress_task_decompress_lz4_stream_set_has_block_checksum(t, !block_cs);
		assert_int_equal(doca_compress_task_decompress_lz4_stream_get_has_block_checksum(t),
		                 !block_cs);
		doca_compress_task_decompress_lz4_stream_set_are_blocks_independent(t, linked);
		assert_int_equal(
		        doca_compress_task_decompress_lz4_stream_get_are_blocks_independent(t),
		        linked);
		doca_task_free(doca_compress_task_decompress_lz4_stream_as_task(t));
		assert_ok(doca_buf_dec_refcount(src, NULL));
		assert_ok(doca_buf_dec_refcount(dst, NULL));
	}
	setup_down(&s);
}

static void test_lz4_block(void **state)
{
	struct setup s;
	struct doca_compress_task_decompress_lz4_block *t;
	struct doca_buf *src, *dst;
	union doca_data ud = { .u64 = 0 };
	static uint8_t comp[PLAIN_LEN * 2];
	int clen;
	size_t n;

	(void)state;
	if (!has_lz4())
		skip();
	clen = LZ4_compress_default((const char *)plain, (char *)comp, PLAIN_LEN, sizeof(comp));
	assert_true(clen > 0);
	setup_up(&s);
	src = src_buf(&s, 0, comp, (size_t)clen);
	dst = dst_buf(&s, 1u << 20, PLAIN_LEN);
	assert_ok(doca_compress_task_decompress_lz4_block_alloc_init(s.cp, src, dst, ud, &t));
	assert_ptr_equal(doca_compress_task_decompress_lz4_block_get_src(t), src);
	assert_ptr_equal(doca_compress_task_decompress_lz4_block_get_dst(t), dst);
	doca_compress_task_decompress_lz4_block_set_src(t, dst);
	assert_ptr_equal(doca_compress_task_decompress_lz4_block_get_src(t), dst);
	doca_compress_task_decompress_lz4_block_set_src(t, src);
	assert_ok(run(&s, doca_compress_task_decompress_lz4_block_as_task(t)));
	assert_ok(doca_buf_get_data_len(dst, &n));
	assert_int_equal(n, PLAIN_LEN);
	assert_memory_equal(mem + (1u << 20), plain, PLAIN_LEN);
	assert_int_equal(doca_compress_task_decompress_lz4_block_get_crc_cs(t),
	                 (uint32_t)crc32(0, plain, PLAIN_LEN));
	/* xxHash-32 of "abc"-like known vectors is checked in test_xxh; here: not zero */
	assert_int_not_equal(doca_compress_task_decompress_lz4_block_get_xxh_cs(t), 0);
	/* too small a destination, then a corrupt block */
	assert_ok(doca_buf_dec_refcount(dst, NULL));
	dst = dst_buf(&s, 1u << 20, 1000);
	doca_compress_task_decompress_lz4_block_set_dst(t, dst);
	assert_doca(DOCA_ERROR_TOO_BIG,
	            run(&s, doca_compress_task_decompress_lz4_block_as_task(t)));
	assert_ok(doca_buf_dec_refcount(dst, NULL));
	dst = dst_buf(&s, 1u << 20, PLAIN_LEN);
	doca_compress_task_decompress_lz4_block_set_dst(t, dst);
	memset(mem, 0xf0, 16); /* literal lengths that run past the block */
	assert_doca(DOCA_ERROR_IO_FAILED,
	            run(&s, doca_compress_task_decompress_lz4_block_as_task(t)));
	doca_task_free(doca_compress_task_decompress_lz4_block_as_task(t));
	assert_ok(doca_buf_dec_refcount(src, NULL));
	assert_ok(doca_buf_dec_refcount(dst, NULL));
	setup_down(&s);
}

/*
 * A destination with no free space left (or none left after a stream's first block): an LZ4
 * block that would write there fails with TOO_BIG and not one byte past the destination's
 * end changes.
 */
static void test_lz4_no_room(void **state)
{
	struct setup s;
	struct doca_compress_task_decompress_lz4_block *bt;
	struct doca_compress_task_decompress_lz4_stream *st;
	struct doca_buf *src, *dst;
	union doca_data ud = { .u64 = 0 };
	static uint8_t comp[PLAIN_LEN * 2];
	uint8_t *end = mem + (1u << 20) + 64;
	int clen;
	size_t n;

	(void)state;
	if (!has_lz4())
		skip();
	clen = LZ4_compress_default((const char *)plain, (char *)comp + 4 + 4 + 64, 4096,
	                            (int)sizeof(comp) - 72);
	assert_true(clen > 0);
	setup_up(&s);
	/* one block into a destination whose 64 bytes are all data */
	src = src_buf(&s, 0, comp + 72, (size_t)clen);
	memset(end, 0x5a, 16);
	assert_ok(doca_buf_inventory_buf_get_by_data(s.inv, s.mmap, end - 64, 64, &dst));
	assert_ok(doca_compress_task_decompress_lz4_block_alloc_init(s.cp, src, dst, ud, &bt));
	assert_doca(DOCA_ERROR_TOO_BIG,
	            run(&s, doca_compress_task_decompress_lz4_block_as_task(bt)));
	assert_int_equal(end[0], 0x5a);
	assert_ok(doca_buf_get_data_len(dst, &n));
	assert_int_equal(n, 64);
	doca_task_free(doca_compress_task_decompress_lz4_block_as_task(bt));
	assert_ok(doca_buf_dec_refcount(src, NULL));
	assert_ok(doca_buf_dec_refcount(dst, NULL));
	/* linked stream blocks: a stored one fills the 64 free bytes, a compressed one follows */
	comp[0] = 64;
	comp[1] = comp[2] = 0;
	comp[3] = 0x80;
	memcpy(comp + 4, plain, 64);
	comp[68] = (uint8_t)clen;
	comp[69] = (uint8_t)(clen >> 8);
	comp[70] = comp[71] = 0;
	src = src_buf(&s, 0, comp, 72 + (size_t)clen);
	memset(end, 0x5a, 16);
	assert_ok(doca_buf_inventory_buf_get_by_addr(s.inv, s.mmap, end - 64, 64, &dst));
	assert_ok(
	        doca_compress_task_decompress_lz4_stream_alloc_init(s.cp, 0, 0, src, dst, ud, &st));
	assert_doca(DOCA_ERROR_TOO_BIG,
	            run(&s, doca_compress_task_decompress_lz4_stream_as_task(st)));
	assert_int_equal(end[0], 0x5a);
	assert_ok(doca_buf_get_data_len(dst, &n));
	assert_int_equal(n, 0);
	doca_task_free(doca_compress_task_decompress_lz4_stream_as_task(st));
	assert_ok(doca_buf_dec_refcount(src, NULL));
	assert_ok(doca_buf_dec_refcount(dst, NULL));
	setup_down(&s);
}

/* xxHash-32 known values, through a stored (uncompressed) LZ4 stream block. */
static void test_xxh(void **state)
{
	struct setup s;
	struct doca_compress_task_decompress_lz4_stream *t;
	struct doca_buf *src, *dst;
	union doca_data ud = { .u64 = 0 };
	static const struct {
		const char *text;
		uint32_t xxh;
	} v[] = { { "a", 0x550D7456u },
		  { "abc", 0x32D153FFu },
		  { "Nobody inspects the spammish repetition", 0xE2293B2Fu } };

	(void)state;
	if (!has_lz4())
		skip();
	setup_up(&s);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		uint8_t blk[64];
		uint32_t len = (uint32_t)strlen(v[i].text);

		blk[0] = (uint8_t)len;
		blk[1] = blk[2] = 0;
		blk[3] = 0x80; /* stored */
		memcpy(blk + 4, v[i].text, len);
		src = src_buf(&s, 0, blk, 4 + len);
		dst = dst_buf(&s, 1u << 20, 64);
		assert_ok(doca_compress_task_decompress_lz4_stream_alloc_init(s.cp, 0, 1, src, dst,
		                                                              ud, &t));
		assert_ok(run(&s, doca_compress_task_decompress_lz4_stream_as_task(t)));
		assert_int_equal(doca_compress_task_decompress_lz4_stream_get_xxh_cs(t),
		                 __builtin_bswap32(v[i].xxh));
		doca_task_free(doca_compress_task_decompress_lz4_stream_as_task(t));
		assert_ok(doca_buf_dec_refcount(src, NULL));
		assert_ok(doca_buf_dec_refcount(dst, NULL));
	}
	setup_down(&s);
}

/* ------------------------------------------------------------------- submit refusals */

/*
 * @mem (@len bytes) exported by @host with PCI read and write access, and imported for @dev
 * into *@imp; the exporter's mmap.
 */
static struct doca_mmap *export_import(struct doca_dev *host, void *mem, size_t len,
                                       struct doca_dev *dev, struct doca_mmap **imp)
{
	struct doca_mmap *exp;
	const void *desc;
	size_t n;

	assert_ok(doca_mmap_create(&exp));
	assert_ok(doca_mmap_add_dev(exp, host));
	assert_ok(doca_mmap_set_memrange(exp, mem, len));
	assert_ok(doca_mmap_set_permissions(exp, DOCA_ACCESS_FLAG_PCI_READ_WRITE));
	assert_ok(doca_mmap_start(exp));
	assert_ok(doca_mmap_export_pci(exp, host, &desc, &n));
	assert_ok(doca_mmap_create_from_export(NULL, desc, n, dev, imp));
	return exp;
}

static void test_buffer_rules(void **state)
{
	struct setup s;
	struct doca_compress_task_decompress_deflate *t;
	struct doca_task *task;
	struct doca_buf *src, *dst, *tail;
	union doca_data ud = { .u64 = 0 };
	static uint8_t comp[PLAIN_LEN];
	size_t clen;
	uint8_t ro[256];
	struct doca_mmap *ro_mmap;
	unsigned int hit;

	(void)state;
	if (!has_deflate() || strcmp(sys_name, "small") == 0)
		skip();
	clen = raw_deflate(plain, 1000, comp, sizeof(comp));
	setup_up(&s);
	src = src_buf(&s, 0, comp, clen);
	dst = dst_buf(&s, 1u << 20, 4096);
	assert_ok(doca_compress_task_decompress_deflate_alloc_init(s.cp, NULL, dst, ud, &t));
	task = doca_compress_task_decompress_deflate_as_task(t);
	/* no source, then no destination */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_submit(task));
	doca_compress_task_decompress_deflate_set_src(t, src);
	doca_compress_task_decompress_deflate_set_dst(t, NULL);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_submit(task));
	doca_compress_task_decompress_deflate_set_dst(t, dst);
	/* an empty source */
	assert_ok(doca_buf_set_data_len(src, 0));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_submit(task));
	assert_ok(doca_buf_set_data_len(src, clen));
	/* a source list */
	assert_ok(doca_buf_inventory_buf_get_by_data(s.inv, s.mmap, mem + 8192, 16, &tail));
	assert_ok(doca_buf_chain_list(src, tail));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_submit(task));
	assert_ok(doca_buf_unchain_list(src, tail));
	assert_ok(doca_buf_dec_refcount(tail, NULL));
	/* a destination in an mmap the context's device was never added to */
	{
		struct doca_dev *other =
		        tu_open_dev(strcmp(sys_name, "bf2") == 0 ? "3b:00.1" : "b1:00.1");
		struct doca_mmap *om;
		struct doca_buf *odst;
		static uint8_t obytes[4096];

		assert_ok(doca_mmap_create(&om));
		assert_ok(doca_mmap_set_memrange(om, obytes, sizeof(obytes)));
		assert_ok(doca_mmap_add_dev(om, other));
		assert_ok(doca_mmap_set_permissions(om, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
		assert_ok(doca_mmap_start(om));
		assert_ok(doca_buf_inventory_buf_get_by_addr(s.inv, om, obytes, sizeof(obytes),
		                                             &odst));
		doca_compress_task_decompress_deflate_set_dst(t, odst);
		assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_task_submit(task));
		doca_compress_task_decompress_deflate_set_dst(t, dst);
		assert_ok(doca_buf_dec_refcount(odst, NULL));
		assert_ok(doca_mmap_destroy(om));
		assert_ok(doca_dev_close(other));
	}
	/* a destination in a thread-safe mmap stopped under its buf: registered with no device */
	{
		struct doca_mmap *tm;
		struct doca_buf *tdst;
		static uint8_t tbytes[4096];

		assert_ok(doca_mmap_create(&tm));
		assert_ok(doca_mmap_set_memrange(tm, tbytes, sizeof(tbytes)));
		assert_ok(doca_mmap_add_dev(tm, s.dev));
		assert_ok(doca_mmap_enable_thread_safety(tm));
		assert_ok(doca_mmap_start(tm));
		assert_ok(doca_buf_inventory_buf_get_by_addr(s.inv, tm, tbytes, sizeof(tbytes),
		                                             &tdst));
		assert_ok(doca_mmap_stop(tm));
		doca_compress_task_decompress_deflate_set_dst(t, tdst);
		(void)tu_log_lines("", &hit);
		assert_doca(DOCA_ERROR_BAD_STATE, doca_task_submit(task));
		assert_int_equal(tu_log_lines(M16_LINE, &hit), 1);
		assert_int_equal(hit, 1);
		doca_compress_task_decompress_deflate_set_dst(t, dst);
		assert_ok(doca_buf_dec_refcount(tdst, NULL));
		assert_ok(doca_mmap_destroy(tm));
	}
	/* a destination in a read-only mmap */
	{
		struct doca_buf *rodst;

		assert_ok(doca_mmap_create(&ro_mmap));
		assert_ok(doca_mmap_set_memrange(ro_mmap, ro, sizeof(ro)));
		assert_ok(doca_mmap_add_dev(ro_mmap, s.dev));
		assert_ok(doca_mmap_set_permissions(ro_mmap, DOCA_ACCESS_FLAG_PCI_READ_ONLY));
		assert_ok(doca_mmap_start(ro_mmap));
		assert_ok(
		        doca_buf_inventory_buf_get_by_addr(s.inv, ro_mmap, ro, sizeof(ro), &rodst));
		doca_compress_task_decompress_deflate_set_dst(t, rodst);
		assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_submit(task));
		doca_compress_task_decompress_deflate_set_dst(t, dst);
		assert_ok(doca_buf_dec_refcount(rodst, NULL));
		assert_ok(doca_mmap_destroy(ro_mmap));
	}
	/*
	 * Memory of another process (an mmap from a PCI export; here this process' own, reached
	 * the same way): the output goes there, and a source there is read; a read-only export
	 * is no destination; an RDMA import is refused with NOT_SUPPORTED.
	 */
	{
		struct doca_dev *host =
		        tu_open_dev(strcmp(sys_name, "bf2") == 0 ? "3b:00.0" : "b1:00.0");
		struct doca_mmap *exp, *imp, *rexp, *rimp;
		struct doca_buf *rdst, *rsrc, *ldst;
		const void *desc;
		size_t len, n;
		static uint8_t far[8192];

		memset(far, 0, sizeof(far));
		exp = export_import(host, far, sizeof(far), s.dev, &imp);
		assert_ok(doca_buf_inventory_buf_get_by_addr(s.inv, imp, far, 4096, &rdst));
		doca_compress_task_decompress_deflate_set_dst(t, rdst);
		assert_ok(run(&s, task));
		assert_ok(doca_buf_get_data_len(rdst, &n));
		assert_int_equal(n, 1000);
		assert_memory_equal(far, plain, 1000);
		/* the compressed bytes in that memory as the source */
		memcpy(far + 4096, comp, clen);
		assert_ok(doca_buf_inventory_buf_get_by_data(s.inv, imp, far + 4096, clen, &rsrc));
		ldst = dst_buf(&s, 3u << 20, 4096);
		doca_compress_task_decompress_deflate_set_src(t, rsrc);
		doca_compress_task_decompress_deflate_set_dst(t, ldst);
		assert_ok(run(&s, task));
		assert_memory_equal(mem + (3u << 20), plain, 1000);
		assert_int_equal(doca_compress_task_decompress_deflate_get_crc_cs(t),
		                 (uint32_t)crc32(0, plain, 1000));
		doca_compress_task_decompress_deflate_set_src(t, src);
		doca_compress_task_decompress_deflate_set_dst(t, dst);
		assert_ok(doca_buf_dec_refcount(rsrc, NULL));
		assert_ok(doca_buf_dec_refcount(ldst, NULL));
		assert_ok(doca_buf_dec_refcount(rdst, NULL));
		assert_ok(doca_mmap_destroy(imp));
		/* exported read-only: no destination */
		assert_ok(doca_mmap_stop(exp));
		assert_ok(doca_mmap_set_permissions(exp, DOCA_ACCESS_FLAG_PCI_READ_ONLY));
		assert_ok(doca_mmap_start(exp));
		assert_ok(doca_mmap_export_pci(exp, host, &desc, &len));
		assert_ok(doca_mmap_create_from_export(NULL, desc, len, s.dev, &imp));
		assert_ok(doca_buf_inventory_buf_get_by_addr(s.inv, imp, far, 4096, &rdst));
		doca_compress_task_decompress_deflate_set_dst(t, rdst);
		assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_submit(task));
		assert_ok(doca_buf_dec_refcount(rdst, NULL));
		assert_ok(doca_mmap_destroy(imp));
		assert_ok(doca_mmap_destroy(exp));
		/* an RDMA import */
		assert_ok(doca_mmap_create(&rexp));
		assert_ok(doca_mmap_add_dev(rexp, s.dev));
		assert_ok(doca_mmap_set_memrange(rexp, far, sizeof(far)));
		assert_ok(doca_mmap_set_permissions(rexp, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE |
		                                                  DOCA_ACCESS_FLAG_RDMA_WRITE));
		assert_ok(doca_mmap_start(rexp));
		assert_ok(doca_mmap_export_rdma(rexp, s.dev, &desc, &len));
		assert_ok(doca_mmap_create_from_export(NULL, desc, len, s.dev, &rimp));
		assert_ok(doca_buf_inventory_buf_get_by_addr(s.inv, rimp, far, 4096, &rdst));
		doca_compress_task_decompress_deflate_set_dst(t, rdst);
		assert_doca(DOCA_ERROR_NOT_SUPPORTED, doca_task_submit(task));
		doca_compress_task_decompress_deflate_set_dst(t, dst);
		assert_ok(doca_buf_dec_refcount(rdst, NULL));
		assert_ok(doca_mmap_destroy(rimp));
		assert_ok(doca_mmap_destroy(rexp));
		assert_ok(doca_dev_close(host));
		s.c.ok = 0;
	}
	/* setters are ignored while the task is in flight */
	assert_ok(doca_task_submit(task));
	doca_compress_task_decompress_deflate_set_src(t, NULL);
	doca_compress_task_decompress_deflate_set_dst(t, NULL);
	assert_ptr_equal(doca_compress_task_decompress_deflate_get_src(t), src);
	assert_ptr_equal(doca_compress_task_decompress_deflate_get_dst(t), dst);
	while (s.c.ok == 0)
		(void)doca_pe_progress(s.pe);
	assert_int_equal(s.c.err, 0);
	assert_memory_equal(mem + (1u << 20), plain, 1000);
	/* NULL getters */
	assert_null(doca_compress_task_decompress_deflate_get_src(NULL));
	assert_null(doca_compress_task_decompress_deflate_get_dst(NULL));
	assert_null(doca_compress_task_decompress_deflate_as_task(NULL));
	assert_int_equal(doca_compress_task_decompress_deflate_get_crc_cs(NULL), 0);
	assert_int_equal(doca_compress_task_decompress_deflate_get_adler_cs(NULL), 0);
	doca_task_free(task);
	assert_ok(doca_buf_dec_refcount(src, NULL));
	assert_ok(doca_buf_dec_refcount(dst, NULL));
	setup_down(&s);
}

/*
 * Memory reached over the network (an mmap from a PCI export whose exporter is in another
 * kernel or namespace; ODMA_TRANSPORT=ucx sends this one-kernel import over UCX): the source
 * is read from it and the output written to it, as a DPU's engine reaches host memory (the
 * storage gga_offload flow decompresses into host memory). The output, 2.3 MiB, crosses in
 * several windows of transport ios. A revoked export fails the task with IO_FAILED.
 */
#define NET_REPEAT 12u
#define NET_LEN (NET_REPEAT * PLAIN_LEN)
static void test_network_memory(void **state)
{
	struct doca_compress_task_decompress_deflate *t;
	union doca_data ud = { .u64 = 0 };
	static uint8_t big[NET_LEN], comp[NET_LEN / 4], far[4u << 20];
	struct doca_buf *rsrc, *rdst;
	struct doca_mmap *exp, *imp;
	struct doca_dev *host;
	struct setup s;
	size_t clen, n;
	unsigned int hit;

	(void)state;
	if (!has_deflate() || strcmp(sys_name, "small") == 0)
		skip();
	for (size_t i = 0; i < NET_REPEAT; i++)
		memcpy(big + i * PLAIN_LEN, plain, PLAIN_LEN);
	clen = raw_deflate(big, NET_LEN, comp, sizeof(comp));
	setenv("ODMA_TRANSPORT", "ucx", 1);
	setup_up(&s);
	host = tu_open_dev(strcmp(sys_name, "bf2") == 0 ? "3b:00.0" : "b1:00.0");
	memset(far, 0xee, sizeof(far));
	memcpy(far, comp, clen);
	exp = export_import(host, far, sizeof(far), s.dev, &imp);
	assert_ok(doca_buf_inventory_buf_get_by_data(s.inv, imp, far, clen, &rsrc));
	assert_ok(
	        doca_buf_inventory_buf_get_by_addr(s.inv, imp, far + (1u << 20), 3u << 20, &rdst));
	assert_ok(doca_compress_task_decompress_deflate_alloc_init(s.cp, rsrc, rdst, ud, &t));
	assert_ok(run(&s, doca_compress_task_decompress_deflate_as_task(t)));
	assert_ok(doca_buf_get_data_len(rdst, &n));
	assert_int_equal(n, NET_LEN);
	assert_memory_equal(far + (1u << 20), big, NET_LEN);
	assert_int_equal(far[(1u << 20) + NET_LEN], 0xee);
	assert_int_equal(doca_compress_task_decompress_deflate_get_crc_cs(t),
	                 (uint32_t)crc32(0, big, NET_LEN));
	/* the exporter revokes its export: the next task fails, its destination unchanged */
	assert_ok(doca_buf_reset_data_len(rdst));
	assert_ok(doca_mmap_stop(exp));
	(void)tu_log_lines("", &hit);
	assert_doca(DOCA_ERROR_IO_FAILED,
	            run(&s, doca_compress_task_decompress_deflate_as_task(t)));
	/* the transport's line naming the refusal, and the task's */
	assert_int_equal(tu_log_lines("refused", &hit), 2);
	assert_int_equal(hit, 1);
	assert_ok(doca_buf_get_data_len(rdst, &n));
	assert_int_equal(n, 0);
	doca_task_free(doca_compress_task_decompress_deflate_as_task(t));
	assert_ok(doca_buf_dec_refcount(rsrc, NULL));
	assert_ok(doca_buf_dec_refcount(rdst, NULL));
	assert_ok(doca_mmap_destroy(imp));
	assert_ok(doca_mmap_destroy(exp));
	assert_ok(doca_dev_close(host));
	setup_down(&s);
	unsetenv("ODMA_TRANSPORT");
}

/* A stop with a task whose callback has not run yet: it still runs once, then IDLE. */
static void test_stop_in_flight(void **state)
{
	struct setup s;
	struct doca_compress_task_decompress_deflate *t;
	struct doca_buf *src, *dst;
	union doca_data ud = { .u64 = 0 };
	static uint8_t comp[4096];
	enum doca_ctx_states st;
	size_t clen;
	doca_error_t r;

	(void)state;
	if (!has_deflate() || strcmp(sys_name, "small") == 0)
		skip();
	clen = raw_deflate(plain, 2000, comp, sizeof(comp));
	setup_up(&s);
	src = src_buf(&s, 0, comp, clen);
	dst = dst_buf(&s, 1u << 20, 4096);
	assert_ok(doca_compress_task_decompress_deflate_alloc_init(s.cp, src, dst, ud, &t));
	assert_ok(doca_task_submit(doca_compress_task_decompress_deflate_as_task(t)));
	r = doca_ctx_stop(s.ctx);
	assert_true(r == DOCA_SUCCESS || r == DOCA_ERROR_IN_PROGRESS);
	for (int i = 0; i < 1000 && s.c.ok + s.c.err == 0; i++)
		(void)doca_pe_progress(s.pe);
	assert_int_equal(s.c.ok + s.c.err, 1);
	doca_task_free(doca_compress_task_decompress_deflate_as_task(t));
	for (int i = 0; i < 1000; i++) {
		assert_ok(doca_ctx_get_state(s.ctx, &st));
		if (st == DOCA_CTX_STATE_IDLE)
			break;
		(void)doca_pe_progress(s.pe);
	}
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	assert_ok(doca_buf_dec_refcount(src, NULL));
	assert_ok(doca_buf_dec_refcount(dst, NULL));
	assert_ok(doca_compress_destroy(s.cp));
	assert_ok(doca_pe_destroy(s.pe));
	assert_ok(doca_buf_inventory_destroy(s.inv));
	assert_ok(doca_mmap_destroy(s.mmap));
	assert_ok(doca_dev_close(s.dev));
}

/* The small profile: 4 KiB max buf size. */
/*
 * Source and destination do not overlap (the rule of erasure coding): the output may fill
 * the destination's free space, so a source inside it is refused at submit with
 * INVALID_VALUE and one line, and nothing is written. A source inside the destination's data
 * is apart from the output and runs.
 */
static void test_overlap(void **state)
{
	struct setup s;
	struct doca_compress_task_decompress_deflate *t;
	struct doca_task *task;
	struct doca_buf *src, *dst;
	union doca_data ud = { .u64 = 0 };
	static uint8_t comp[PLAIN_LEN];
	uint8_t *at = mem + (1u << 20);
	size_t clen, n;
	unsigned int hit;

	(void)state;
	if (!has_deflate())
		skip();
	clen = raw_deflate(plain, 1000, comp, sizeof(comp));
	setup_up(&s);
	dst = dst_buf(&s, 1u << 20, 8192);                /* empty: 8 KiB of free space */
	src = src_buf(&s, (1u << 20) + 2048, comp, clen); /* inside that free space */
	assert_ok(doca_compress_task_decompress_deflate_alloc_init(s.cp, src, dst, ud, &t));
	task = doca_compress_task_decompress_deflate_as_task(t);
	(void)tu_log_lines("", &hit);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_submit(task));
	assert_int_equal(tu_log_lines("overlaps the source", &hit), 1);
	assert_int_equal(hit, 1);
	assert_memory_equal(at + 2048, comp, clen);
	assert_ok(doca_buf_get_data_len(dst, &n));
	assert_int_equal(n, 0);
	/* the destination's data covers the source: the output goes after both */
	assert_ok(doca_buf_set_data(dst, at, 2048 + clen));
	assert_ok(run(&s, task));
	assert_memory_equal(at + 2048 + clen, plain, 1000);
	doca_task_free(task);
	assert_ok(doca_buf_dec_refcount(src, NULL));
	assert_ok(doca_buf_dec_refcount(dst, NULL));
	setup_down(&s);
}

static void test_max_buf_size(void **state)
{
	struct setup s;
	struct doca_compress_task_compress_deflate *t;
	struct doca_buf *src, *dst;
	union doca_data ud = { .u64 = 0 };
	static uint8_t noise[8192];
	uint32_t x = 99;

	(void)state;
	if (strcmp(sys_name, "small") != 0)
		skip();
	for (size_t i = 0; i < sizeof(noise); i++) {
		x = x * 1103515245u + 12345u;
		noise[i] = (uint8_t)(x >> 16);
	}
	setup_up(&s);
	/* a source above the max: refused by submit */
	src = src_buf(&s, 0, plain, 4097);
	dst = dst_buf(&s, 1u << 20, 65536);
	assert_ok(doca_compress_task_compress_deflate_alloc_init(s.cp, src, dst, ud, &t));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_task_submit(doca_compress_task_compress_deflate_as_task(t)));
	/* 4096 bytes of noise deflate to more than 4096: the big destination is cut to the max */
	assert_ok(doca_buf_dec_refcount(src, NULL));
	src = src_buf(&s, 0, noise, 4096);
	doca_compress_task_compress_deflate_set_src(t, src);
	assert_doca(DOCA_ERROR_TOO_BIG, run(&s, doca_compress_task_compress_deflate_as_task(t)));
	doca_task_free(doca_compress_task_compress_deflate_as_task(t));
	assert_ok(doca_buf_dec_refcount(src, NULL));
	assert_ok(doca_buf_dec_refcount(dst, NULL));
	setup_down(&s);
}

/*
 * Memory of a started mmap made inaccessible (a program bug): the task fails with
 * IO_FAILED, the process goes on, and the same task succeeds once the memory is back.
 * Source pages taken away, then a read-only destination. Runs in a fresh exec of this
 * program (--unmapped; test_unmapped_memory): cmocka installs its own SIGSEGV handler for
 * each test, over odma's fault guard.
 */
static void unmapped_memory(void)
{
	const size_t pg = 4096, len = 2 * pg; /* the source page, the destination page */
	struct doca_compress_task_decompress_deflate *t;
	struct doca_buf *src, *dst;
	union doca_data ud = { .u64 = 0 };
	struct setup s;
	uint8_t *m;
	size_t clen, n;

	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(m != MAP_FAILED);
	clen = raw_deflate(plain, pg, m, pg);
	assert_true(clen < pg);
	setup_up(&s);
	assert_ok(doca_mmap_destroy(s.mmap));
	assert_ok(doca_mmap_create(&s.mmap));
	assert_ok(doca_mmap_set_memrange(s.mmap, m, len));
	assert_ok(doca_mmap_add_dev(s.mmap, s.dev));
	assert_ok(doca_mmap_set_permissions(s.mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	assert_ok(doca_mmap_start(s.mmap));
	assert_ok(doca_buf_inventory_buf_get_by_data(s.inv, s.mmap, m, clen, &src));
	assert_ok(doca_buf_inventory_buf_get_by_addr(s.inv, s.mmap, m + pg, pg, &dst));
	assert_ok(doca_compress_task_decompress_deflate_alloc_init(s.cp, src, dst, ud, &t));

	assert_int_equal(mprotect(m, pg, PROT_NONE), 0);
	assert_doca(DOCA_ERROR_IO_FAILED,
	            run(&s, doca_compress_task_decompress_deflate_as_task(t)));
	assert_int_equal(mprotect(m, pg, PROT_READ | PROT_WRITE), 0);
	assert_int_equal(mprotect(m + pg, pg, PROT_READ), 0);
	assert_doca(DOCA_ERROR_IO_FAILED,
	            run(&s, doca_compress_task_decompress_deflate_as_task(t)));
	assert_ok(doca_buf_get_data_len(dst, &n));
	assert_int_equal(n, 0);
	assert_int_equal(mprotect(m + pg, pg, PROT_READ | PROT_WRITE), 0);
	assert_ok(run(&s, doca_compress_task_decompress_deflate_as_task(t)));
	assert_ok(doca_buf_get_data_len(dst, &n));
	assert_int_equal(n, pg);
	assert_memory_equal(m + pg, plain, pg);

	doca_task_free(doca_compress_task_decompress_deflate_as_task(t));
	assert_ok(doca_buf_dec_refcount(src, NULL));
	assert_ok(doca_buf_dec_refcount(dst, NULL));
	setup_down(&s);
	assert_int_equal(munmap(m, len), 0);
}

static const char *self_exe;

static void test_unmapped_memory(void **state)
{
	int st;

	(void)state;
	if (!has_deflate())
		skip();
	st = tu_run_self(self_exe, "--unmapped");
	if (WIFSIGNALED(st))
		fail_msg("the program died of signal %d: the fault guard did not catch the fault",
		         WTERMSIG(st));
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_conf_rules),
		cmocka_unit_test(test_deflate_round_trip),
		cmocka_unit_test(test_decompress_deflate_from_zlib),
		cmocka_unit_test(test_compress_dst_too_small),
		cmocka_unit_test(test_lz4_stream),
		cmocka_unit_test(test_lz4_block),
		cmocka_unit_test(test_lz4_no_room),
		cmocka_unit_test(test_xxh),
		cmocka_unit_test(test_buffer_rules),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_max_buf_size),
		cmocka_unit_test(test_stop_in_flight),
		cmocka_unit_test(test_network_memory),
		cmocka_unit_test(test_unmapped_memory),
	};
	int rc;

	sys_name = getenv("ODMA_TEST_COMPRESS_SYSTEM");
	if (sys_name == NULL) {
		fprintf(stderr, "set ODMA_TEST_COMPRESS_SYSTEM (bf2, bf3, cx7 or small)\n");
		return 1;
	}
	mem = aligned_alloc(4096, MEM_SIZE);
	if (mem == NULL)
		return 1;
	fill_plain();
	self_exe = argv[0];
	if (argc == 2 && strcmp(argv[1], "--unmapped") == 0) {
		unmapped_memory(); /* a failed check exits non-zero */
		free(mem);
		return 0;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	free(mem);
	return rc;
}
