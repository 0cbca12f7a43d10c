/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Copy semantics (BEHAVIOR.md §3): the source data segments, in list order, are
 * written into the free tails of the destination elements, in order; each
 * destination's data_len grows by what it received. Validation at submit, the byte
 * moving (any thread), and the data_len update at completion (PE thread) live here.
 */
#include <string.h>

#include "core/memory/memory.h"
#include "core/exec/exec_int.h"
#include "core/device/device.h"
#include "core/log/log.h"
#include "core/copy/copy.h"

ODMA_LOG_REGISTER(ODMA_XFER)

struct xfer_shape {
	uint32_t n_src, n_dst;
	uint64_t total, room;
	bool remote;
};

static doca_error_t shape_src(const struct doca_buf *src, struct xfer_shape *s)
{
	for (const struct doca_buf *b = src; b != NULL; b = b->next) {
		if (doca_unlikely(!b->in_use)) {
			ODMA_ERR("source buf %p was released to its inventory; use a buf you still hold", (void *)b);
			return DOCA_ERROR_INVALID_VALUE;
		}
		s->n_src++;
		s->total += b->data_len;
		s->remote |= b->mmap->from_export;
	}
	return DOCA_SUCCESS;
}

static doca_error_t shape_dst(struct doca_buf *dst, struct xfer_shape *s, bool check_perms)
{
	for (const struct doca_buf *b = dst; b != NULL; b = b->next) {
		if (doca_unlikely(!b->in_use)) {
			ODMA_ERR("destination buf %p was released to its inventory; use a buf you still hold", (void *)b);
			return DOCA_ERROR_INVALID_VALUE;
		}
		if (doca_unlikely(check_perms && !odma_mmap_writable(b->mmap))) {
			ODMA_ERR("destination buf %p: its mmap %p is %s; DMA writes need %s", (void *)b, (void *)b->mmap,
				 b->mmap->from_export ? "exported PCI_READ_ONLY" : "LOCAL_READ_ONLY",
				 b->mmap->from_export ? "an export with DOCA_ACCESS_FLAG_PCI_READ_WRITE"
						      : "DOCA_ACCESS_FLAG_LOCAL_READ_WRITE");
			return DOCA_ERROR_NOT_PERMITTED;
		}
		s->n_dst++;
		s->room += odma_buf_room(b);
		s->remote |= b->mmap->from_export;
	}
	return DOCA_SUCCESS;
}

static doca_error_t shape_limits(const struct odma_dev_caps *caps, const struct xfer_shape *s)
{
	if (doca_unlikely(s->n_src > caps->max_buf_list_len || s->n_dst > caps->max_buf_list_len)) {
		ODMA_ERR("buffer list of %u elements is longer than max_buf_list_len %u; split the task or shorten the list",
			 s->n_src > s->n_dst ? s->n_src : s->n_dst, caps->max_buf_list_len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (doca_unlikely(s->total > caps->max_buf_size)) {
		ODMA_ERR("source of %llu bytes is above max_buf_size %llu; split the copy into tasks of at most max_buf_size",
			 (unsigned long long)s->total, (unsigned long long)caps->max_buf_size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_priv_task_check_limits(const struct doca_ctx *ctx, const struct doca_buf *src,
					 const struct doca_buf *dst)
{
	struct xfer_shape s = { 0 };
	doca_error_t r = DOCA_SUCCESS;

	if (src != NULL)
		r = shape_src(src, &s);
	if (r == DOCA_SUCCESS && dst != NULL)
		r = shape_dst((struct doca_buf *)dst, &s, false);
	return r != DOCA_SUCCESS ? r : shape_limits(ctx->caps, &s);
}

static bool ranges_overlap(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

/* Whether any byte written to the destination is also a source byte (local memory only). */
static bool xfer_overlaps(const struct doca_buf *src, const struct doca_buf *dst, uint64_t total)
{
	for (const struct doca_buf *d = dst; d != NULL && total; d = d->next) {
		size_t w = odma_buf_room(d) < total ? odma_buf_room(d) : total;

		for (const struct doca_buf *s = src; s != NULL; s = s->next)
			if (!s->mmap->from_export && !d->mmap->from_export &&
			    ranges_overlap(s->data, s->data_len, d->data + d->data_len, w))
				return true;
		total -= w;
	}
	return false;
}

/* An uncopyable task: rejected by try_submit, a failed completion (stopping the context) under submit. */
static doca_error_t xfer_reject(struct doca_task *t, bool full, const char *why)
{
	if (full) {
		ODMA_ERR("task %p: %s", (void *)t, why);
		return DOCA_ERROR_INVALID_VALUE;
	}
	ODMA_WARN("task %p: %s; it will complete with DOCA_ERROR_IO_FAILED and stop the context", (void *)t, why);
	t->preset = DOCA_ERROR_IO_FAILED;
	return DOCA_SUCCESS;
}

doca_error_t odma_copy_validate(const struct doca_ctx *ctx, struct doca_task *t, bool full)
{
	struct xfer_shape s = { 0 };
	doca_error_t r;

	if (doca_unlikely(t->src == NULL || t->dst == NULL)) {
		ODMA_ERR("task %p has no %s buffer; set it with doca_dma_task_memcpy_set_%s", (void *)t,
			 t->src == NULL ? "source" : "destination", t->src == NULL ? "src" : "dst");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((r = shape_src(t->src, &s)) != DOCA_SUCCESS || (r = shape_dst(t->dst, &s, true)) != DOCA_SUCCESS ||
	    (r = shape_limits(ctx->caps, &s)) != DOCA_SUCCESS)
		return r;
	t->total = s.total;
	t->preset = DOCA_SUCCESS;
	t->remote = s.remote;
	t->split = 0;
	if (doca_unlikely(s.total == 0))
		return xfer_reject(t, full, "source has no data (data_len 0); give the source data with doca_buf_set_data or get_by_data");
	if (doca_unlikely(s.room < s.total))
		return xfer_reject(t, full, "destination free space is smaller than the source; use a larger destination or doca_buf_reset_data_len");
	if (full && xfer_overlaps(t->src, t->dst, s.total)) {
		ODMA_ERR("task %p: source and destination overlap; copy between disjoint ranges", (void *)t);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

void odma_dst_grow(struct doca_task *t)
{
	uint64_t left = t->total;

	for (struct doca_buf *d = t->dst; d != NULL && left; d = d->next) {
		size_t w = odma_buf_room(d) < left ? odma_buf_room(d) : left;

		d->data_len += w;
		left -= w;
	}
}

static bool xfer_any_remote(const struct doca_buf *src, const struct doca_buf *dst)
{
	for (; src != NULL; src = src->next)
		if (src->mmap->from_export)
			return true;
	for (; dst != NULL; dst = dst->next)
		if (dst->mmap->from_export)
			return true;
	return false;
}

/* Local lists: walk both with a cursor; memmove keeps even an overlapping submit memory-safe. */
static void xfer_local_lists(const struct doca_buf *s, struct doca_buf *d, uint64_t total)
{
	size_t s_off = 0, d_off = 0;

	while (total) {
		size_t s_left = s->data_len - s_off, d_left = odma_buf_room(d) - d_off;
		size_t n = s_left < d_left ? s_left : d_left;

		n = n < total ? n : total;
		memmove(d->data + d->data_len + d_off, s->data + s_off, n);
		total -= n;
		odma_buf_walk(&s, &s_off, &d, &d_off, n);
	}
}

doca_error_t odma_xfer_copy(const struct doca_buf *src, struct doca_buf *dst, uint64_t total)
{
	if (doca_likely(src->next == NULL && dst->next == NULL && !src->mmap->from_export &&
			!dst->mmap->from_export)) {
		memmove(dst->data + dst->data_len, src->data, total);
		return DOCA_SUCCESS;
	}
	if (xfer_any_remote(src, dst))
		return odma_xproc_copy(src, dst, total);
	xfer_local_lists(src, dst, total);
	return DOCA_SUCCESS;
}

bool odma_task_splittable(const struct doca_task *task)
{
	const struct doca_buf *s = task->src, *d = task->dst;

	return task->preset == DOCA_SUCCESS && s->next == NULL && d->next == NULL && !s->mmap->from_export &&
	       !d->mmap->from_export;
}

void odma_task_copy_head(const struct doca_task *task)
{
	memmove(task->dst->data + task->dst->data_len, task->src->data, task->split);
}

/* The part of a split task that the engine's thread copies. */
static void xfer_copy_tail(const struct doca_task *task)
{
	uint64_t off = task->split;

	memmove(task->dst->data + task->dst->data_len + off, task->src->data + off, task->total - off);
}

doca_error_t odma_xfer_task(const struct doca_task *task)
{
	if (doca_unlikely(task->split != 0)) {
		xfer_copy_tail(task);
		return DOCA_SUCCESS;
	}
	return odma_xfer_copy(task->src, task->dst, task->total);
}
