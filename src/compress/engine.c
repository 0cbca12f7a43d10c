/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The software engine of DOCA Compress: raw deflate both ways with zlib, LZ4 blocks with
 * liblz4, the LZ4 frame's block sequence and its xxHash-32 (written here from the published
 * algorithm), and the checksums each task type reports. Runs on the submitting thread, on
 * memory of this process (compress.c bounces another process' bytes through it), under the
 * fault guard of local copies: memory unmapped under a started mmap fails the task with
 * IO_FAILED instead of crashing the program.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <zlib.h>

#include "compress/compress_int.h"
#include "core/copy/copy.h"
#include "core/device/device.h"

/* LZ4 blocks refer back at most this far. */
#define CP_LZ4_WINDOW (64u * 1024u)

/* ---------------------------------------------------------------- xxHash-32 */

#define XXH_P1 2654435761u
#define XXH_P2 2246822519u
#define XXH_P3 3266489917u
#define XXH_P4 668265263u
#define XXH_P5 374761393u

static uint32_t cp_rotl(uint32_t x, unsigned r)
{
	return (x << r) | (x >> (32 - r));
}

static uint32_t cp_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t cp_xxh_round(uint32_t acc, uint32_t lane)
{
	acc += lane * XXH_P2;
	return cp_rotl(acc, 13) * XXH_P1;
}

/* xxHash-32 (the LZ4 frame format's checksum) of @len bytes at @p, seed 0. */
static uint32_t cp_xxh32(const uint8_t *p, size_t len)
{
	const uint8_t *end = p + len;
	uint32_t h;

	if (len >= 16) {
		uint32_t v1 = XXH_P1 + XXH_P2, v2 = XXH_P2, v3 = 0, v4 = 0u - XXH_P1;

		for (; end - p >= 16; p += 16) {
			v1 = cp_xxh_round(v1, cp_le32(p));
			v2 = cp_xxh_round(v2, cp_le32(p + 4));
			v3 = cp_xxh_round(v3, cp_le32(p + 8));
			v4 = cp_xxh_round(v4, cp_le32(p + 12));
		}
		h = cp_rotl(v1, 1) + cp_rotl(v2, 7) + cp_rotl(v3, 12) + cp_rotl(v4, 18);
	} else {
		h = XXH_P5;
	}
	h += (uint32_t)len;
	for (; end - p >= 4; p += 4)
		h = cp_rotl(h + cp_le32(p) * XXH_P3, 17) * XXH_P4;
	for (; p < end; p++)
		h = cp_rotl(h + *p * XXH_P5, 11) * XXH_P1;
	h ^= h >> 15;
	h *= XXH_P2;
	h ^= h >> 13;
	h *= XXH_P3;
	h ^= h >> 16;
	return h;
}

static uint32_t cp_bswap32(uint32_t x)
{
	return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24);
}

static unsigned cp_chunk(size_t n)
{
	return n > UINT_MAX ? UINT_MAX : (unsigned)n;
}

/*
 * zlib's allocator for one run. Outside the guard it is malloc; inside (odma_cp_run) it may
 * only hand out the window inflate asks for on its first output, reserved before the guard:
 * code under the guard must not allocate (a fault jumps out of it).
 */
static voidpf cp_zalloc(voidpf opaque, uInt items, uInt size)
{
	struct cp_run *run = opaque;
	size_t n = (size_t)items * size;

	if (!run->in_guard)
		return malloc(n);
	if (run->reserve == NULL || run->reserve_given || n > CP_ZLIB_RESERVE)
		return Z_NULL;
	run->reserve_given = true;
	return run->reserve;
}

static void cp_zfree(voidpf opaque, voidpf p)
{
	struct cp_run *run = opaque;

	if (p != run->reserve)
		free(p);
}

/*
 * What zlib's @rc means for the run, with @in_left and @out_left bytes left after the call:
 * DOCA_SUCCESS to go on; deflating, any error but a full buffer is UNEXPECTED; inflating, a
 * damaged stream is IO_FAILED (so is one that ends before its last block), no memory
 * NO_MEMORY; either way, no room left is TOO_BIG.
 */
static doca_error_t cp_zstatus(bool deflating, int rc, size_t in_left, size_t out_left)
{
	if (deflating && rc != Z_OK && rc != Z_BUF_ERROR)
		return DOCA_ERROR_UNEXPECTED;
	if (!deflating && (rc == Z_DATA_ERROR || rc == Z_NEED_DICT))
		return DOCA_ERROR_IO_FAILED;
	if (!deflating && rc == Z_MEM_ERROR)
		return DOCA_ERROR_NO_MEMORY;
	if (out_left == 0)
		return DOCA_ERROR_TOO_BIG;
	if (!deflating && in_left == 0)
		return DOCA_ERROR_IO_FAILED;
	return DOCA_SUCCESS;
}

/*
 * Whether deflate, given all input with Z_FINISH and having filled the output exactly, has
 * nothing left to write: zlib says Z_OK until a call with room answers Z_STREAM_END, so one
 * byte of ours is offered (Z_STREAM_END only when it stays unwritten).
 */
static int cp_deflate_probe(z_stream *z)
{
	uint8_t probe;

	z->next_out = &probe;
	z->avail_out = 1;
	return deflate(z, Z_FINISH) == Z_STREAM_END && z->avail_out == 1 ? Z_STREAM_END : Z_OK;
}

/*
 * Raw deflate (@deflating) of io->in into io->out, or inflate of a raw deflate stream (run->z
 * set up by odma_cp_run): one zlib call per chunk of what is left of each side.
 */
static doca_error_t cp_zrun(struct cp_run *run, bool deflating)
{
	z_stream *z = &run->z;
	const struct cp_io *io = run->io;
	size_t in_left = io->in_len, out_left = io->room;
	doca_error_t r = DOCA_SUCCESS;

	z->next_in = (Bytef *)(uintptr_t)io->in;
	z->next_out = io->out;
	while (r == DOCA_SUCCESS) {
		unsigned ci = cp_chunk(in_left), co = cp_chunk(out_left);
		int rc;

		z->avail_in = ci;
		z->avail_out = co;
		rc = deflating ? deflate(z, ci == in_left ? Z_FINISH : Z_NO_FLUSH)
		               : inflate(z, Z_NO_FLUSH);
		in_left -= ci - z->avail_in;
		out_left -= co - z->avail_out;
		if (deflating && rc == Z_OK && in_left == 0 && out_left == 0)
			rc = cp_deflate_probe(z);
		if (rc == Z_STREAM_END)
			break;
		r = cp_zstatus(deflating, rc, in_left, out_left);
	}
	run->produced = io->room - out_left;
	return r;
}

static doca_error_t cp_deflate(struct cp_run *run)
{
	return cp_zrun(run, true);
}

static doca_error_t cp_inflate(struct cp_run *run)
{
	return cp_zrun(run, false);
}

/*
 * Decompresses one LZ4 block of @n bytes into @room bytes at @out, @dict_len bytes of output
 * before @out being its dictionary. A failure is TOO_BIG when the block's first @room bytes
 * decode (it holds more than fits), else IO_FAILED. (A block damaged only past @room bytes
 * therefore reads as TOO_BIG: telling the two apart would mean decoding into up to 255 times
 * the block's size.)
 */
static doca_error_t cp_lz4_block(const uint8_t *in, size_t n, uint8_t *out, size_t room,
                                 size_t dict_len, size_t *produced)
{
	int cap = room > INT_MAX ? INT_MAX : (int)room;
	char probe;
	int got;

	if (n > INT_MAX)
		return DOCA_ERROR_IO_FAILED;
	got = LZ4_decompress_safe_usingDict((const char *)in, (char *)out, (int)n, cap,
	                                    (const char *)out - dict_len, (int)dict_len);
	if (got >= 0) {
		*produced = (size_t)got;
		return DOCA_SUCCESS;
	}
	if (cap == 0) /* the probe byte is ours: the destination has no room for one */
		return LZ4_decompress_safe_partial_usingDict((const char *)in, &probe, (int)n, 1, 1,
		                                             (const char *)out - dict_len,
		                                             (int)dict_len) < 0
		               ? DOCA_ERROR_IO_FAILED
		               : DOCA_ERROR_TOO_BIG;
	got = LZ4_decompress_safe_partial_usingDict((const char *)in, (char *)out, (int)n, cap, cap,
	                                            (const char *)out - dict_len, (int)dict_len);
	return got == cap ? DOCA_ERROR_TOO_BIG : DOCA_ERROR_IO_FAILED;
}

/* The block sequence of an LZ4 frame (doca_compress.h, Formats). */
static doca_error_t cp_lz4_stream(struct cp_run *run)
{
	const struct cp_task *t = run->t;
	const struct cp_io *io = run->io;
	const uint8_t *p = io->in, *end = io->in + io->in_len;
	size_t out = 0;

	while (p < end) {
		uint32_t word, size;
		const uint8_t *blk;
		size_t got = 0;
		doca_error_t r;

		if (end - p < 4)
			return DOCA_ERROR_IO_FAILED; /* a cut block size word */
		word = cp_le32(p);
		p += 4;
		if (word == 0)
			break; /* the end mark */
		size = word & 0x7fffffffu;
		if ((size_t)(end - p) < size + (t->has_block_checksum ? 4u : 0u))
			return DOCA_ERROR_IO_FAILED; /* a block runs past the source */
		blk = p;
		p += size;
		if (t->has_block_checksum) {
			if (cp_xxh32(blk, size) != cp_le32(p))
				return DOCA_ERROR_IO_FAILED;
			p += 4;
		}
		if (word & 0x80000000u) { /* stored */
			if (size > io->room - out)
				return DOCA_ERROR_TOO_BIG;
			memcpy(io->out + out, blk, size);
			got = size;
		} else {
			size_t dict = 0;

			if (!t->are_blocks_independent)
				dict = out < CP_LZ4_WINDOW ? out : CP_LZ4_WINDOW;
			r = cp_lz4_block(blk, size, io->out + out, io->room - out, dict, &got);
			if (r != DOCA_SUCCESS)
				return r;
		}
		out += got;
		run->produced = out;
	}
	run->produced = out;
	return DOCA_SUCCESS;
}

static doca_error_t cp_lz4_single(struct cp_run *run)
{
	return cp_lz4_block(run->io->in, run->io->in_len, run->io->out, run->io->room, 0,
	                    &run->produced);
}

const struct cp_type_row odma_cp_types[CP_TYPES] = {
	[CP_COMPRESS_DEFLATE] = { "compress deflate",
	                          offsetof(struct odma_dev_caps, compress_deflate), cp_deflate,
	                          true, true },
	[CP_DECOMPRESS_DEFLATE] = { "decompress deflate",
	                            offsetof(struct odma_dev_caps, decompress_deflate), cp_inflate,
	                            false, true },
	[CP_DECOMPRESS_LZ4_STREAM] = { "decompress LZ4 stream",
	                               offsetof(struct odma_dev_caps, decompress_lz4),
	                               cp_lz4_stream, false, false },
	[CP_DECOMPRESS_LZ4_BLOCK] = { "decompress LZ4 block",
	                              offsetof(struct odma_dev_caps, decompress_lz4), cp_lz4_single,
	                              false, false },
};

/* The engine and the checksums, under the fault guard: no lock, no allocation. */
static void cp_run_guarded(void *arg)
{
	struct cp_run *run = arg;
	const struct cp_type_row *row = &odma_cp_types[run->t->type];
	const uint8_t *plain;
	size_t plain_len;

	run->r = row->run(run);
	if (run->r != DOCA_SUCCESS)
		return;
	plain = row->of_source ? run->io->in : run->io->out;
	plain_len = row->of_source ? run->io->in_len : run->produced;
	run->t->crc = (uint32_t)crc32_z(0L, plain, plain_len);
	if (row->adler)
		run->t->adler = (uint32_t)adler32_z(1L, plain, plain_len);
	else
		run->t->xxh = cp_bswap32(cp_xxh32(plain, plain_len));
}

doca_error_t odma_cp_run(struct cp_task *t, const struct cp_io *io, size_t *out_len)
{
	struct cp_run run = { .t = t, .io = io, .r = DOCA_SUCCESS };
	bool zlib = t->type == CP_COMPRESS_DEFLATE || t->type == CP_DECOMPRESS_DEFLATE;
	doca_error_t r;

	if (zlib) {
		run.z.zalloc = cp_zalloc;
		run.z.zfree = cp_zfree;
		run.z.opaque = &run;
		if (t->type == CP_COMPRESS_DEFLATE
		            ? deflateInit2(&run.z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8,
		                           Z_DEFAULT_STRATEGY) != Z_OK
		            : (run.reserve = malloc(CP_ZLIB_RESERVE)) == NULL ||
		                      inflateInit2(&run.z, -15) != Z_OK) {
			free(run.reserve);
			return DOCA_ERROR_NO_MEMORY;
		}
	}
	run.in_guard = true;
	r = doca_priv_copy_guarded(cp_run_guarded, &run);
	run.in_guard = false;
	if (zlib)
		(void)(t->type == CP_COMPRESS_DEFLATE ? deflateEnd(&run.z) : inflateEnd(&run.z));
	free(run.reserve);
	if (r == DOCA_SUCCESS)
		r = run.r;
	if (r == DOCA_SUCCESS)
		*out_len = run.produced;
	return r;
}
