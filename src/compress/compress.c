/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * DOCA Compress: a context type with four task types (compress deflate, decompress deflate,
 * decompress LZ4 stream, decompress LZ4 block) run in software: zlib for raw deflate, liblz4
 * for the LZ4 blocks, odma's own xxHash-32 for LZ4 checksums. A task is checked and run in
 * the submit op (the work of an inline engine) and completes through the PE: its callback
 * runs from the next doca_pe_progress, never inside doca_task_submit. Which task types a
 * device runs comes from its profile (compress_deflate, decompress_deflate, decompress_lz4).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <zlib.h>

#include <doca_compress.h>

#include "core/device/device.h"
#include "core/exec/exec.h"
#include "core/log/log.h"
#include "core/copy/copy.h"
#include "core/memory/memory.h"
#include "util/container_of.h"

ODMA_LOG_REGISTER(DOCA_COMPRESS)

/* The task pool bound of a device whose profile sets no max_num_tasks. */
#define CP_DEFAULT_MAX_TASKS 65536u
/* LZ4 blocks refer back at most this far. */
#define CP_LZ4_WINDOW (64u * 1024u)

enum cp_type {
	CP_COMPRESS_DEFLATE = 0,
	CP_DECOMPRESS_DEFLATE,
	CP_DECOMPRESS_LZ4_STREAM,
	CP_DECOMPRESS_LZ4_BLOCK,
	CP_TYPES,
	CP_NONE = CP_TYPES, /* a task back in the pool */
};

static const char *const cp_type_names[CP_TYPES] = { "compress deflate", "decompress deflate",
	                                             "decompress LZ4 stream",
	                                             "decompress LZ4 block" };

typedef void (*cp_cb_t)(void *task, union doca_data task_user_data, union doca_data ctx_user_data);

struct cp_conf {
	cp_cb_t ok;
	cp_cb_t err;
	uint32_t num;       /* pool share of the type (0: not configured) */
	uint32_t allocated; /* tasks of the type out of the pool */
};

struct doca_compress {
	struct doca_ctx ctx; /* first: doca_compress_as_ctx is a cast */
	struct cp_conf conf[CP_TYPES];
	uint32_t max_tasks;
};

/* Every task type of the API is this struct. */
struct cp_task {
	struct doca_task base;
	uint8_t type; /* enum cp_type */
	uint8_t has_block_checksum;
	uint8_t are_blocks_independent;
	const struct doca_buf *src;
	struct doca_buf *dst;
	uint32_t crc;
	uint32_t adler; /* deflate tasks */
	uint32_t xxh;   /* LZ4 tasks (byte-swapped, see doca_compress.h) */
};

struct doca_compress_task_compress_deflate {
	struct cp_task t;
};
struct doca_compress_task_decompress_deflate {
	struct cp_task t;
};
struct doca_compress_task_decompress_lz4_stream {
	struct cp_task t;
};
struct doca_compress_task_decompress_lz4_block {
	struct cp_task t;
};

static struct doca_compress *cp_of(const struct doca_ctx *ctx)
{
	return odma_container_of(ctx, struct doca_compress, ctx);
}

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

/* ---------------------------------------------------------------- capabilities */

static bool cp_dev_has(const struct doca_devinfo *info, enum cp_type type)
{
	switch (type) {
	case CP_COMPRESS_DEFLATE:
		return info->caps.compress_deflate;
	case CP_DECOMPRESS_DEFLATE:
		return info->caps.decompress_deflate;
	case CP_DECOMPRESS_LZ4_STREAM:
	case CP_DECOMPRESS_LZ4_BLOCK:
		return info->caps.decompress_lz4;
	default:
		return false;
	}
}

static doca_error_t cp_cap_supported(const struct doca_devinfo *devinfo, enum cp_type type,
                                     const char *fn)
{
	if (devinfo == NULL) {
		ODMA_ERR_AT(fn, "devinfo must not be NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return cp_dev_has(devinfo, type) ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

static doca_error_t cp_cap_max_buf_size(const struct doca_devinfo *devinfo, enum cp_type type,
                                        uint64_t *out, const char *fn)
{
	if (devinfo == NULL || out == NULL) {
		ODMA_ERR_AT(fn, "devinfo and max_buffer_size must not be NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!cp_dev_has(devinfo, type))
		return DOCA_ERROR_NOT_SUPPORTED;
	*out = devinfo->caps.compress_max_buf_size;
	return DOCA_SUCCESS;
}

static doca_error_t cp_cap_max_list_len(const struct doca_devinfo *devinfo, enum cp_type type,
                                        uint32_t *out, const char *fn)
{
	if (devinfo == NULL || out == NULL) {
		ODMA_ERR_AT(fn, "devinfo and max_buf_list_len must not be NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!cp_dev_has(devinfo, type))
		return DOCA_ERROR_NOT_SUPPORTED;
	*out = 1;
	return DOCA_SUCCESS;
}

/* ---------------------------------------------------------------- running a task */

/* What the task's buffers allow; filled by cp_check. */
struct cp_io {
	const uint8_t *in;
	size_t in_len;
	uint8_t *out;
	size_t room;     /* free bytes after the destination's data, at most the max buf size */
	bool remote_in;  /* the source is memory of another process (a bounce buffer is read) */
	bool remote_out; /* the destination is, likewise */
};

/* Memory the engine can reach: this process', or another process' through a PCI export. */
static bool cp_reachable(const struct doca_mmap *m)
{
	return !m->rdma_import && (m->kind == ODMA_MEM_LOCAL || m->kind == ODMA_MEM_PROCESS);
}

/* Why a buffer cannot be used; NULL when it can. */
static const char *cp_buf_problem(const struct doca_buf *b, bool is_src, uint64_t max)
{
	if (b == NULL)
		return is_src ? "has no source buffer (set one with the task's set_src)"
		              : "has no destination buffer (set one with the task's set_dst)";
	if (!b->in_use)
		return "names a buf that was released to its inventory";
	if (b->next != NULL || b->list_head != b)
		return "names a buf list; compress tasks take single buffers (max_buf_list_len 1)";
	if (!cp_reachable(b->mmap))
		return NULL; /* refused as NOT_SUPPORTED by cp_check */
	if (is_src && b->data_len == 0)
		return "names a source without data (data_len 0): nothing to process";
	if (is_src && b->data_len > max)
		return "names a source whose data is above the device's max buf size of the task "
		       "type (doca_compress_cap_task_*_get_max_buf_size)";
	if (!is_src && b->mmap->from_export && !odma_mmap_writable_quiet(b->mmap))
		return "names a destination in an mmap from an export without write access for the "
		       "device (the exporter's DOCA_ACCESS_FLAG_PCI_READ_WRITE)";
	if (!is_src && !b->mmap->from_export &&
	    odma_perm_local_write(b->mmap->perms) == ODMA_PERM_NO)
		return "names a destination in an mmap without local write access "
		       "(DOCA_ACCESS_FLAG_LOCAL_READ_WRITE)";
	return NULL;
}

static doca_error_t cp_check(const struct cp_task *t, struct cp_io *io)
{
	uint64_t max = t->base.ctx->dev->info->caps.compress_max_buf_size;
	const char *name = cp_type_names[t->type];
	const char *why = cp_buf_problem(t->src, true, max);
	const struct doca_buf *bad = NULL;
	size_t used;

	if (why == NULL)
		why = cp_buf_problem(t->dst, false, max);
	if (why != NULL) {
		ODMA_ERR("%s task %p %s", name, (const void *)t, why);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!cp_reachable(t->src->mmap))
		bad = t->src;
	else if (!cp_reachable(t->dst->mmap))
		bad = t->dst;
	if (bad != NULL) {
		ODMA_ERR("%s task %p: its %s is in an mmap from an RDMA export or reached over the "
		         "network (ODMA_FABRIC); odma's compress engine reaches this process' "
		         "memory and, through a PCI export, another process' of this machine: "
		         "move the data with DOCA RDMA or DMA first",
		         name, (const void *)t, bad == t->src ? "source" : "destination");
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	io->in = t->src->data;
	io->in_len = t->src->data_len;
	used = (size_t)(t->dst->data - t->dst->head) + t->dst->data_len;
	io->out = t->dst->data + t->dst->data_len;
	io->room = used < t->dst->len ? t->dst->len - used : 0;
	if (io->room > max)
		io->room = (size_t)max;
	io->remote_in = t->src->mmap->kind == ODMA_MEM_PROCESS;
	io->remote_out = t->dst->mmap->kind == ODMA_MEM_PROCESS;
	return DOCA_SUCCESS;
}

static unsigned cp_chunk(size_t n)
{
	return n > UINT_MAX ? UINT_MAX : (unsigned)n;
}

/* Raw deflate of io->in into io->out; *produced: output bytes. */
static doca_error_t cp_deflate(const struct cp_io *io, size_t *produced)
{
	z_stream z;
	size_t in_left = io->in_len, out_left = io->room;
	doca_error_t r = DOCA_SUCCESS;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return DOCA_ERROR_NO_MEMORY;
	z.next_in = (Bytef *)(uintptr_t)io->in;
	z.next_out = io->out;
	for (;;) {
		unsigned ci = cp_chunk(in_left), co = cp_chunk(out_left);
		int rc;

		z.avail_in = ci;
		z.avail_out = co;
		rc = deflate(&z, ci == in_left ? Z_FINISH : Z_NO_FLUSH);
		in_left -= ci - z.avail_in;
		out_left -= co - z.avail_out;
		if (rc == Z_STREAM_END)
			break;
		if (rc != Z_OK && rc != Z_BUF_ERROR) {
			r = DOCA_ERROR_UNEXPECTED;
			break;
		}
		if (out_left == 0) {
			r = DOCA_ERROR_TOO_BIG;
			break;
		}
	}
	deflateEnd(&z);
	*produced = io->room - out_left;
	return r;
}

/* Inflates the raw deflate stream of io->in into io->out. */
static doca_error_t cp_inflate(const struct cp_io *io, size_t *produced)
{
	z_stream z;
	size_t in_left = io->in_len, out_left = io->room;
	doca_error_t r = DOCA_SUCCESS;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, -15) != Z_OK)
		return DOCA_ERROR_NO_MEMORY;
	z.next_in = (Bytef *)(uintptr_t)io->in;
	z.next_out = io->out;
	for (;;) {
		unsigned ci = cp_chunk(in_left), co = cp_chunk(out_left);
		int rc;

		z.avail_in = ci;
		z.avail_out = co;
		rc = inflate(&z, Z_NO_FLUSH);
		in_left -= ci - z.avail_in;
		out_left -= co - z.avail_out;
		if (rc == Z_STREAM_END)
			break;
		if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT) {
			r = DOCA_ERROR_IO_FAILED;
			break;
		}
		if (rc == Z_MEM_ERROR) {
			r = DOCA_ERROR_NO_MEMORY;
			break;
		}
		if (out_left == 0) {
			r = DOCA_ERROR_TOO_BIG;
			break;
		}
		if (in_left == 0) { /* the stream ended before its last block */
			r = DOCA_ERROR_IO_FAILED;
			break;
		}
	}
	inflateEnd(&z);
	*produced = io->room - out_left;
	return r;
}

/*
 * Decompresses one LZ4 block of @n bytes into @room bytes at @out, @dict_len bytes of output
 * before @out being its dictionary. A failure is TOO_BIG when the block decodes into a larger
 * scratch buffer (an LZ4 block expands at most 255 times), else IO_FAILED.
 */
static doca_error_t cp_lz4_block(const uint8_t *in, size_t n, uint8_t *out, size_t room,
                                 size_t dict_len, size_t *produced)
{
	int cap = room > INT_MAX ? INT_MAX : (int)room;
	size_t big;
	uint8_t *scratch;
	int got;

	if (n > INT_MAX)
		return DOCA_ERROR_IO_FAILED;
	got = LZ4_decompress_safe_usingDict((const char *)in, (char *)out, (int)n, cap,
	                                    (const char *)out - dict_len, (int)dict_len);
	if (got >= 0) {
		*produced = (size_t)got;
		return DOCA_SUCCESS;
	}
	big = n * 255u + 16u;
	if (big > INT_MAX)
		big = INT_MAX;
	if (big <= room)
		return DOCA_ERROR_IO_FAILED;
	scratch = malloc(big);
	if (scratch == NULL)
		return DOCA_ERROR_NO_MEMORY;
	got = LZ4_decompress_safe_usingDict((const char *)in, (char *)scratch, (int)n, (int)big,
	                                    (const char *)out - dict_len, (int)dict_len);
	free(scratch);
	return got >= 0 ? DOCA_ERROR_TOO_BIG : DOCA_ERROR_IO_FAILED;
}

/* The block sequence of an LZ4 frame (doca_compress.h, Formats). */
static doca_error_t cp_lz4_stream(const struct cp_task *t, const struct cp_io *io, size_t *produced)
{
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
		*produced = out;
	}
	*produced = out;
	return DOCA_SUCCESS;
}

/* Runs the task's algorithm on io; *produced: the output bytes at io->out. */
static doca_error_t cp_run(struct cp_task *t, const struct cp_io *io, size_t *out_len)
{
	size_t produced = 0;
	doca_error_t r;
	const uint8_t *plain;
	size_t plain_len;

	switch (t->type) {
	case CP_COMPRESS_DEFLATE:
		r = cp_deflate(io, &produced);
		break;
	case CP_DECOMPRESS_DEFLATE:
		r = cp_inflate(io, &produced);
		break;
	case CP_DECOMPRESS_LZ4_STREAM:
		r = cp_lz4_stream(t, io, &produced);
		break;
	default:
		r = cp_lz4_block(io->in, io->in_len, io->out, io->room, 0, &produced);
		break;
	}
	if (r != DOCA_SUCCESS)
		return r;
	plain = t->type == CP_COMPRESS_DEFLATE ? io->in : io->out;
	plain_len = t->type == CP_COMPRESS_DEFLATE ? io->in_len : produced;
	t->crc = (uint32_t)crc32_z(0L, plain, plain_len);
	if (t->type == CP_COMPRESS_DEFLATE || t->type == CP_DECOMPRESS_DEFLATE)
		t->adler = (uint32_t)adler32_z(1L, plain, plain_len);
	else
		t->xxh = cp_bswap32(cp_xxh32(plain, plain_len));
	*out_len = produced;
	return DOCA_SUCCESS;
}

static const char *cp_status_text(doca_error_t r)
{
	switch (r) {
	case DOCA_ERROR_TOO_BIG:
		return "the output does not fit in the destination's free space (or is above the "
		       "max buf size)";
	case DOCA_ERROR_IO_FAILED:
		return "the source is not valid compressed data (corrupt, truncated or a block "
		       "checksum mismatch), or another process' memory could not be reached";
	case DOCA_ERROR_NO_MEMORY:
		return "no memory for the engine's state or a bounce buffer";
	default:
		return "the engine failed";
	}
}

/* ---------------------------------------------------------------- context ops */

/*
 * Runs a checked task. Another process' memory goes through bounce buffers of this process:
 * the source is read in first, the output written out after the algorithm succeeded.
 */
static doca_error_t cp_execute(struct cp_task *t, struct cp_io *io)
{
	uint8_t *in_b = NULL, *out_b = NULL, *remote_out = io->out;
	size_t produced = 0;
	doca_error_t r = DOCA_SUCCESS;

	if (io->remote_in) {
		in_b = malloc(io->in_len);
		r = in_b == NULL
		            ? DOCA_ERROR_NO_MEMORY
		            : doca_priv_process_xfer(t->src->mmap, in_b, (void *)(uintptr_t)io->in,
		                                     io->in_len, false);
		io->in = in_b;
	}
	if (r == DOCA_SUCCESS && io->remote_out) {
		out_b = malloc(io->room ? io->room : 1);
		r = out_b == NULL ? DOCA_ERROR_NO_MEMORY : DOCA_SUCCESS;
		io->out = out_b;
	}
	if (r == DOCA_SUCCESS)
		r = cp_run(t, io, &produced);
	if (r == DOCA_SUCCESS && io->remote_out)
		r = doca_priv_process_xfer(t->dst->mmap, out_b, remote_out, produced, true);
	if (r == DOCA_SUCCESS)
		t->dst->data_len += produced;
	free(in_b);
	free(out_b);
	return r;
}

static doca_error_t cp_submit(struct doca_task *task)
{
	struct cp_task *t = (struct cp_task *)task;
	struct cp_io io;
	doca_error_t r = cp_check(t, &io);

	if (r != DOCA_SUCCESS)
		return r;
	r = cp_execute(t, &io);
	if (r != DOCA_SUCCESS)
		ODMA_ERR("%s task %p failed: %s (%s)", cp_type_names[t->type], (void *)t,
		         cp_status_text(r), doca_error_get_name(r));
	doca_priv_task_complete(task, r);
	return DOCA_SUCCESS;
}

static void cp_complete(struct doca_task *task, bool ok)
{
	struct cp_task *t = (struct cp_task *)task;
	struct cp_conf *c = &cp_of(task->ctx)->conf[t->type];

	(ok ? c->ok : c->err)(t, task->user_data, task->ctx->user_data);
}

static void cp_task_free(struct doca_task *task)
{
	struct cp_task *t = (struct cp_task *)task;

	if (t->type < CP_TYPES)
		cp_of(task->ctx)->conf[t->type].allocated--;
	t->type = CP_NONE;
}

static const struct odma_ctx_ops cp_ctx_ops = {
	.name = "COMPRESS",
	.task_size = sizeof(struct cp_task),
	.complete = cp_complete,
	.submit = cp_submit,
	.task_free = cp_task_free,
};

/* ---------------------------------------------------------------- the context */

doca_error_t doca_compress_create(struct doca_dev *dev, struct doca_compress **compress)
{
	const struct doca_devinfo *info;
	struct doca_compress *c;
	doca_error_t r;

	ODMA_CHECK_ARG(dev != NULL && compress != NULL, "dev and compress must not be NULL");
	info = doca_priv_dev_lookup(dev);
	ODMA_CHECK_ARG(info != NULL, "dev %p is not a device handle from doca_dev_open",
	               (void *)dev);
	if (!info->caps.compress_deflate && !info->caps.decompress_deflate &&
	    !info->caps.decompress_lz4) {
		ODMA_ERR("device %s runs no DOCA Compress task (BlueField-2 compresses and "
		         "decompresses deflate, BlueField-3 decompresses deflate and LZ4: "
		         "ODMA_SYSTEM=bf2 or bf3; see doca_compress_cap_task_*_is_supported)",
		         info->pci_addr);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return DOCA_ERROR_NO_MEMORY;
	r = doca_priv_ctx_init(&c->ctx, &cp_ctx_ops, dev);
	if (r != DOCA_SUCCESS) {
		free(c);
		return r;
	}
	c->max_tasks = info->caps.max_num_tasks ? info->caps.max_num_tasks : CP_DEFAULT_MAX_TASKS;
	c->ctx.queue_depth = UINT32_MAX; /* the pools bound what is in flight */
	*compress = c;
	return DOCA_SUCCESS;
}

doca_error_t doca_compress_destroy(struct doca_compress *compress)
{
	doca_error_t r;

	ODMA_CHECK_ARG(compress != NULL, "compress must not be NULL");
	r = doca_priv_ctx_destroy(&compress->ctx);
	if (r == DOCA_SUCCESS)
		free(compress);
	return r;
}

struct doca_ctx *doca_compress_as_ctx(struct doca_compress *compress)
{
	return compress != NULL ? &compress->ctx : NULL;
}

doca_error_t doca_compress_cap_get_max_num_tasks(struct doca_compress *compress,
                                                 uint32_t *max_num_tasks)
{
	ODMA_CHECK_ARG(compress != NULL && max_num_tasks != NULL,
	               "compress and max_num_tasks must not be NULL");
	*max_num_tasks = compress->max_tasks;
	return DOCA_SUCCESS;
}

static doca_error_t cp_set_conf(struct doca_compress *c, enum cp_type type, cp_cb_t ok, cp_cb_t err,
                                uint32_t num, const char *fn)
{
	uint64_t total = 0;

	if (c == NULL || ok == NULL || err == NULL || num == 0) {
		ODMA_ERR_AT(fn, "compress, both callbacks and a non-zero num_tasks are required");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (c->ctx.state != DOCA_CTX_STATE_IDLE) {
		ODMA_ERR_AT(fn,
		            "compress context %p is not IDLE; configure tasks before "
		            "doca_ctx_start (or after a full stop)",
		            (void *)c);
		return DOCA_ERROR_BAD_STATE;
	}
	if (!cp_dev_has(c->ctx.dev->info, type)) {
		ODMA_ERR_AT(fn,
		            "device %s does not run %s tasks (BlueField-2: deflate compress and "
		            "decompress; BlueField-3: deflate and LZ4 decompress)",
		            c->ctx.dev->info->pci_addr, cp_type_names[type]);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	for (int i = 0; i < CP_TYPES; i++)
		total += i == (int)type ? num : c->conf[i].num;
	if (total > c->max_tasks) {
		ODMA_ERR_AT(fn,
		            "%u %s tasks bring the context's pools to %llu, above %u "
		            "(doca_compress_cap_get_max_num_tasks)",
		            num, cp_type_names[type], (unsigned long long)total, c->max_tasks);
		return DOCA_ERROR_INVALID_VALUE;
	}
	c->conf[type].ok = ok;
	c->conf[type].err = err;
	c->conf[type].num = num;
	c->ctx.num_tasks = (uint32_t)total;
	c->ctx.configured = true;
	return DOCA_SUCCESS;
}

static struct cp_task *cp_alloc(struct doca_compress *c, enum cp_type type,
                                const struct doca_buf *src, struct doca_buf *dst,
                                union doca_data ud, bool has_task, doca_error_t *r, const char *fn)
{
	struct doca_task *base;
	struct cp_task *t;

	if (c == NULL || !has_task) {
		ODMA_ERR_AT(fn, "compress and task must not be NULL");
		*r = DOCA_ERROR_INVALID_VALUE;
		return NULL;
	}
	*r = doca_priv_task_alloc(&c->ctx, &base);
	if (*r != DOCA_SUCCESS)
		return NULL;
	t = (struct cp_task *)base;
	t->type = CP_NONE;
	if (c->conf[type].allocated >= c->conf[type].num) {
		doca_task_free(base); /* type CP_NONE: no count changes */
		ODMA_ERR_AT(fn, "all %u %s tasks are allocated (%s)", c->conf[type].num,
		            cp_type_names[type],
		            c->conf[type].num
		                    ? "free one or configure more"
		                    : "the task type was not configured with its set_conf");
		*r = DOCA_ERROR_NO_MEMORY;
		return NULL;
	}
	c->conf[type].allocated++;
	memset((char *)t + sizeof(t->base), 0, sizeof(*t) - sizeof(t->base));
	t->type = (uint8_t)type;
	t->src = src;
	t->dst = dst;
	base->user_data = ud;
	return t;
}

/* Setters change only a task that is not in flight. */
static bool cp_settable(const struct cp_task *t, const char *fn)
{
	if (t == NULL) {
		ODMA_ERR_AT(fn, "task is NULL");
		return false;
	}
	if (t->base.state == ODMA_TASK_SUBMITTED || t->base.state == ODMA_TASK_HELD) {
		ODMA_ERR_AT(fn,
		            "task %p is in flight; change it in its callback or after it completes",
		            (const void *)t);
		return false;
	}
	return true;
}

#define CP_T(task) ((struct cp_task *)(void *)(uintptr_t)(task))

/* What every task type has. */
#define CP_COMMON(tname, TYPE)                                                                     \
	doca_error_t doca_compress_cap_task_##tname##_is_supported(                                \
	        const struct doca_devinfo *devinfo)                                                \
	{                                                                                          \
		return cp_cap_supported(devinfo, TYPE, __func__);                                  \
	}                                                                                          \
	doca_error_t doca_compress_cap_task_##tname##_get_max_buf_size(                            \
	        const struct doca_devinfo *devinfo, uint64_t *max_buffer_size)                     \
	{                                                                                          \
		return cp_cap_max_buf_size(devinfo, TYPE, max_buffer_size, __func__);              \
	}                                                                                          \
	doca_error_t doca_compress_cap_task_##tname##_get_max_buf_list_len(                        \
	        const struct doca_devinfo *devinfo, uint32_t *max_buf_list_len)                    \
	{                                                                                          \
		return cp_cap_max_list_len(devinfo, TYPE, max_buf_list_len, __func__);             \
	}                                                                                          \
	doca_error_t doca_compress_task_##tname##_set_conf(                                        \
	        struct doca_compress *compress,                                                    \
	        doca_compress_task_##tname##_completion_cb_t task_completion_cb,                   \
	        doca_compress_task_##tname##_completion_cb_t task_error_cb, uint32_t num_tasks)    \
	{                                                                                          \
		return cp_set_conf(compress, TYPE, (cp_cb_t)task_completion_cb,                    \
		                   (cp_cb_t)task_error_cb, num_tasks, __func__);                   \
	}                                                                                          \
	struct doca_task *doca_compress_task_##tname##_as_task(                                    \
	        struct doca_compress_task_##tname *task)                                           \
	{                                                                                          \
		return task != NULL ? &task->t.base : NULL;                                        \
	}                                                                                          \
	void doca_compress_task_##tname##_set_src(struct doca_compress_task_##tname *task,         \
	                                          const struct doca_buf *src_buff)                 \
	{                                                                                          \
		if (cp_settable(CP_T(task), __func__))                                             \
			task->t.src = src_buff;                                                    \
	}                                                                                          \
	const struct doca_buf *doca_compress_task_##tname##_get_src(                               \
	        const struct doca_compress_task_##tname *task)                                     \
	{                                                                                          \
		return task != NULL ? task->t.src : NULL;                                          \
	}                                                                                          \
	void doca_compress_task_##tname##_set_dst(struct doca_compress_task_##tname *task,         \
	                                          struct doca_buf *dst_buff)                       \
	{                                                                                          \
		if (cp_settable(CP_T(task), __func__))                                             \
			task->t.dst = dst_buff;                                                    \
	}                                                                                          \
	struct doca_buf *doca_compress_task_##tname##_get_dst(                                     \
	        const struct doca_compress_task_##tname *task)                                     \
	{                                                                                          \
		return task != NULL ? task->t.dst : NULL;                                          \
	}                                                                                          \
	uint32_t doca_compress_task_##tname##_get_crc_cs(                                          \
	        const struct doca_compress_task_##tname *task)                                     \
	{                                                                                          \
		return task != NULL ? task->t.crc : 0;                                             \
	}

/* The simple alloc_init of a task type with no extra fields. */
#define CP_ALLOC(tname, TYPE)                                                                      \
	doca_error_t doca_compress_task_##tname##_alloc_init(                                      \
	        struct doca_compress *compress, const struct doca_buf *src_buff,                   \
	        struct doca_buf *dst_buff, union doca_data user_data,                              \
	        struct doca_compress_task_##tname **task)                                          \
	{                                                                                          \
		doca_error_t r;                                                                    \
		struct cp_task *t = cp_alloc(compress, TYPE, src_buff, dst_buff, user_data,        \
		                             task != NULL, &r, __func__);                          \
                                                                                                   \
		if (t != NULL)                                                                     \
			*task = (struct doca_compress_task_##tname *)(void *)t;                    \
		return r;                                                                          \
	}

CP_COMMON(compress_deflate, CP_COMPRESS_DEFLATE)
CP_ALLOC(compress_deflate, CP_COMPRESS_DEFLATE)
CP_COMMON(decompress_deflate, CP_DECOMPRESS_DEFLATE)
CP_ALLOC(decompress_deflate, CP_DECOMPRESS_DEFLATE)
CP_COMMON(decompress_lz4_stream, CP_DECOMPRESS_LZ4_STREAM)
CP_COMMON(decompress_lz4_block, CP_DECOMPRESS_LZ4_BLOCK)
CP_ALLOC(decompress_lz4_block, CP_DECOMPRESS_LZ4_BLOCK)

uint32_t doca_compress_task_compress_deflate_get_adler_cs(
        const struct doca_compress_task_compress_deflate *task)
{
	return task != NULL ? task->t.adler : 0;
}

uint32_t doca_compress_task_decompress_deflate_get_adler_cs(
        const struct doca_compress_task_decompress_deflate *task)
{
	return task != NULL ? task->t.adler : 0;
}

uint32_t doca_compress_task_decompress_lz4_stream_get_xxh_cs(
        const struct doca_compress_task_decompress_lz4_stream *task)
{
	return task != NULL ? task->t.xxh : 0;
}

uint32_t doca_compress_task_decompress_lz4_block_get_xxh_cs(
        const struct doca_compress_task_decompress_lz4_block *task)
{
	return task != NULL ? task->t.xxh : 0;
}

doca_error_t doca_compress_task_decompress_lz4_stream_alloc_init(
        struct doca_compress *compress, uint8_t has_block_checksum, uint8_t are_blocks_independent,
        const struct doca_buf *src_buff, struct doca_buf *dst_buff, union doca_data user_data,
        struct doca_compress_task_decompress_lz4_stream **task)
{
	doca_error_t r;
	struct cp_task *t = cp_alloc(compress, CP_DECOMPRESS_LZ4_STREAM, src_buff, dst_buff,
	                             user_data, task != NULL, &r, __func__);

	if (t == NULL)
		return r;
	t->has_block_checksum = has_block_checksum != 0;
	t->are_blocks_independent = are_blocks_independent != 0;
	*task = (struct doca_compress_task_decompress_lz4_stream *)(void *)t;
	return DOCA_SUCCESS;
}

void doca_compress_task_decompress_lz4_stream_set_has_block_checksum(
        struct doca_compress_task_decompress_lz4_stream *task, uint8_t has_block_checksum)
{
	if (cp_settable(CP_T(task), __func__))
		task->t.has_block_checksum = has_block_checksum != 0;
}

uint8_t doca_compress_task_decompress_lz4_stream_get_has_block_checksum(
        const struct doca_compress_task_decompress_lz4_stream *task)
{
	return task != NULL ? task->t.has_block_checksum : 0;
}

void doca_compress_task_decompress_lz4_stream_set_are_blocks_independent(
        struct doca_compress_task_decompress_lz4_stream *task, uint8_t are_blocks_independent)
{
	if (cp_settable(CP_T(task), __func__))
		task->t.are_blocks_independent = are_blocks_independent != 0;
}

uint8_t doca_compress_task_decompress_lz4_stream_get_are_blocks_independent(
        const struct doca_compress_task_decompress_lz4_stream *task)
{
	return task != NULL ? task->t.are_blocks_independent : 0;
}
