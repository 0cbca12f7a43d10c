/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * DOCA Compress: the context type, its four task types (compress deflate, decompress deflate,
 * decompress LZ4 stream, decompress LZ4 block), their configuration and accessors, and the
 * buffer checks. A task is checked and run (engine.c) in the submit op, the work of an inline
 * engine, and completes through the PE: its callback runs from the next doca_pe_progress,
 * never inside doca_task_submit. Which task types a device runs comes from its profile
 * (compress_deflate, decompress_deflate, decompress_lz4).
 */
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <doca_compress.h>

#include "core/device/device.h"
#include "core/error/error.h"
#include "core/exec/exec.h"
#include "core/log/log.h"
#include "core/copy/copy.h"
#include "core/memory/memory.h"
#include "compress/compress_int.h"

ODMA_LOG_REGISTER(DOCA_COMPRESS)

struct doca_compress {
	struct doca_ctx ctx; /* first: doca_compress_as_ctx is a cast */
	struct odma_task_conf conf[CP_TYPES];
	uint32_t max_tasks;
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

/* ---------------------------------------------------------------- capabilities */

static bool cp_dev_has(const struct doca_devinfo *info, enum cp_type type)
{
	return *(const bool *)((const char *)&info->caps + odma_cp_types[type].cap);
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

/*
 * Memory the engine can reach: this process', or another process' through a PCI export, in
 * this kernel or over the network (as a DPU's engine reaches host memory); not an RDMA import.
 */
static bool cp_reachable(const struct doca_mmap *m)
{
	return !m->rdma_import;
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

/*
 * The output may fill the destination's free space (@room bytes), so none of it may be a
 * source byte: the engine would overwrite data it has not read yet. The rule of erasure
 * coding, with its code.
 */
static doca_error_t cp_check_overlap(const struct cp_task *t, size_t room)
{
	if (!doca_priv_buf_writes_overlap(t->src, t->dst, room))
		return DOCA_SUCCESS;
	ODMA_ERR("%s task %p: the destination's free space (%zu bytes, where the output goes) "
	         "overlaps the source's data; "
	         "fix: give the task a destination apart from its source",
	         odma_cp_types[t->type].name, (const void *)t, room);
	return DOCA_ERROR_INVALID_VALUE;
}

static doca_error_t cp_check(const struct cp_task *t, struct cp_io *io)
{
	uint64_t max = t->base.ctx->dev->info->caps.compress_max_buf_size;
	const char *name = odma_cp_types[t->type].name;
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
	if (bad == NULL && !odma_mmap_has_dev(t->src->mmap, t->base.ctx->dev))
		bad = t->src;
	else if (bad == NULL && !odma_mmap_has_dev(t->dst->mmap, t->base.ctx->dev))
		bad = t->dst;
	if (bad != NULL && cp_reachable(bad->mmap)) {
		/* DOCA's rule: a device reaches an mmap only when it was added before the start */
		ODMA_ERR("%s task %p: its %s is in mmap %p, which device %s was never added to; "
		         "fix: doca_mmap_add_dev(mmap, dev) before doca_mmap_start",
		         name, (const void *)t, bad == t->src ? "source" : "destination",
		         (const void *)bad->mmap, t->base.ctx->dev->info->pci_addr);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (bad != NULL) {
		ODMA_ERR("%s task %p: its %s is in an mmap from an RDMA export; odma's compress "
		         "engine reaches this process' memory and, through a PCI export, another "
		         "process': move the data with DOCA RDMA first",
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
	io->remote_in = t->src->mmap->kind != ODMA_MEM_LOCAL;
	io->remote_out = t->dst->mmap->kind != ODMA_MEM_LOCAL;
	return cp_check_overlap(t, io->room);
}

static const char *cp_status_text(doca_error_t r)
{
	switch (r) {
	case DOCA_ERROR_TOO_BIG:
		return "the output does not fit in the destination's free space "
		       "(or is above the max buf size)";
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
		            : doca_priv_remote_xfer(t->src->mmap, in_b, (void *)(uintptr_t)io->in,
		                                    io->in_len, false);
		io->in = in_b;
	}
	if (r == DOCA_SUCCESS && io->remote_out) {
		out_b = malloc(io->room ? io->room : 1);
		r = out_b == NULL ? DOCA_ERROR_NO_MEMORY : DOCA_SUCCESS;
		io->out = out_b;
	}
	if (r == DOCA_SUCCESS)
		r = odma_cp_run(t, io, &produced);
	if (r == DOCA_SUCCESS && io->remote_out)
		r = doca_priv_remote_xfer(t->dst->mmap, out_b, remote_out, produced, true);
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

	if (r == DOCA_SUCCESS)
		r = odma_buf_registered("COMPRESS", odma_cp_types[t->type].name, t, t->src);
	if (r == DOCA_SUCCESS)
		r = odma_buf_registered("COMPRESS", odma_cp_types[t->type].name, t, t->dst);
	if (r != DOCA_SUCCESS)
		return r;
	r = cp_execute(t, &io);
	if (r != DOCA_SUCCESS)
		ODMA_ERR("%s task %p failed: %s (%s)", odma_cp_types[t->type].name, (void *)t,
		         cp_status_text(r), doca_error_get_name(r));
	doca_priv_task_complete(task, r);
	return DOCA_SUCCESS;
}

static const struct odma_ctx_ops cp_ctx_ops = {
	.name = "COMPRESS",
	.task_size = sizeof(struct cp_task),
	.complete = doca_priv_task_conf_complete,
	.submit = cp_submit,
};

/* ---------------------------------------------------------------- the context */

doca_error_t doca_compress_create(struct doca_dev *dev, struct doca_compress **compress)
{
	const struct doca_devinfo *info;
	struct doca_compress *c;
	struct doca_ctx *ctx;
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
	r = doca_priv_ctx_new(sizeof(struct doca_compress), &cp_ctx_ops, dev, &ctx);
	if (r != DOCA_SUCCESS)
		return r;
	c = (struct doca_compress *)ctx; /* its first member */
	c->max_tasks = doca_priv_task_conf_max(ctx);
	c->ctx.queue_depth = UINT32_MAX; /* the pools bound what is in flight */
	*compress = c;
	return DOCA_SUCCESS;
}

ODMA_CTX_DESTROY_AS_CTX(compress)

ODMA_GETTER(doca_compress_cap_get_max_num_tasks, struct doca_compress, compress, uint32_t,
            max_num_tasks, compress->max_tasks)

static doca_error_t cp_set_conf(struct doca_compress *c, enum cp_type type, void (*ok)(void),
                                void (*err)(void), uint32_t num, const char *fn)
{
	if (c == NULL || ok == NULL || err == NULL || num == 0) {
		ODMA_ERR_AT(fn, "compress, both callbacks and a non-zero num_tasks are required");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!doca_priv_task_conf_idle(&c->ctx, fn))
		return DOCA_ERROR_BAD_STATE;
	if (!cp_dev_has(c->ctx.dev->info, type)) {
		ODMA_ERR_AT(fn,
		            "device %s does not run %s tasks (BlueField-2: deflate compress and "
		            "decompress; BlueField-3: deflate and LZ4 decompress)",
		            c->ctx.dev->info->pci_addr, odma_cp_types[type].name);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	return doca_priv_task_conf_set(&c->ctx, c->conf, CP_TYPES, type, odma_cp_types[type].name,
	                               ok, err, num, c->max_tasks,
	                               "doca_compress_cap_get_max_num_tasks", fn);
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
	*r = doca_priv_task_conf_alloc(&c->ctx, &c->conf[type], odma_cp_types[type].name, &base,
	                               fn);
	if (*r != DOCA_SUCCESS)
		return NULL;
	t = (struct cp_task *)base;
	memset((char *)t + sizeof(t->base), 0, sizeof(*t) - sizeof(t->base));
	t->type = (uint8_t)type;
	t->src = src;
	t->dst = dst;
	base->user_data = ud;
	return t;
}

/* What every task type has; @cs names its format's checksum (adler, xxh) besides the CRC. */
#define CP_COMMON(tname, TYPE, cs)                                                                 \
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
		return cp_set_conf(compress, TYPE, (void (*)(void))task_completion_cb,             \
		                   (void (*)(void))task_error_cb, num_tasks, __func__);            \
	}                                                                                          \
	struct doca_task *doca_compress_task_##tname##_as_task(                                    \
	        struct doca_compress_task_##tname *task)                                           \
	{                                                                                          \
		return task != NULL ? &task->t.base : NULL;                                        \
	}                                                                                          \
	void doca_compress_task_##tname##_set_src(struct doca_compress_task_##tname *task,         \
	                                          const struct doca_buf *src_buff)                 \
	{                                                                                          \
		if (doca_priv_task_settable(task, __func__))                                       \
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
		if (doca_priv_task_settable(task, __func__))                                       \
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
	}                                                                                          \
	uint32_t doca_compress_task_##tname##_get_##cs##_cs(                                       \
	        const struct doca_compress_task_##tname *task)                                     \
	{                                                                                          \
		return task != NULL ? task->t.cs : 0;                                              \
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

CP_COMMON(compress_deflate, CP_COMPRESS_DEFLATE, adler)
CP_ALLOC(compress_deflate, CP_COMPRESS_DEFLATE)
CP_COMMON(decompress_deflate, CP_DECOMPRESS_DEFLATE, adler)
CP_ALLOC(decompress_deflate, CP_DECOMPRESS_DEFLATE)
CP_COMMON(decompress_lz4_stream, CP_DECOMPRESS_LZ4_STREAM, xxh)
CP_COMMON(decompress_lz4_block, CP_DECOMPRESS_LZ4_BLOCK, xxh)
CP_ALLOC(decompress_lz4_block, CP_DECOMPRESS_LZ4_BLOCK)

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
	if (doca_priv_task_settable(task, __func__))
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
	if (doca_priv_task_settable(task, __func__))
		task->t.are_blocks_independent = are_blocks_independent != 0;
}

uint8_t doca_compress_task_decompress_lz4_stream_get_are_blocks_independent(
        const struct doca_compress_task_decompress_lz4_stream *task)
{
	return task != NULL ? task->t.are_blocks_independent : 0;
}
