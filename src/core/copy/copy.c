/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Copy semantics: validation of a copy's shape at submit, the choice of its mover, where it
 * may be cut, the walk over its byte ranges, and the destination growth at completion.
 */
#include <string.h>

#include "core/copy/mover.h"
#include "core/device/device.h"
#include "core/error/error.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(ODMA_COPY)

/* The mover of each kind of memory; a copy takes the one of its highest kind. */
const struct odma_mover *const odma_copy_movers[ODMA_MEM_KINDS] = {
	[ODMA_MEM_LOCAL] = &odma_mover_local,
	[ODMA_MEM_PROCESS] = &odma_mover_process,
	[ODMA_MEM_NET] = &odma_mover_net,
};

/* Whether a copy of each kind costs a system call per move, so that engines hold such copies
 * and move them together (odma_copy_move_batch); a constant table saves the fast path a
 * dependent load. (The local mover has a move_batch too, one fault guard for a batch, but a
 * local copy costs no system call.) */
const bool odma_copy_batches[ODMA_MEM_KINDS] = {
	[ODMA_MEM_LOCAL] = false,
	[ODMA_MEM_PROCESS] = true,
	[ODMA_MEM_NET] = false,
};

/* A copy split between two threads is cut at a page boundary near its middle. */
#define COPY_SPLIT_ALIGN 4096u

struct copy_shape {
	uint32_t n_src, n_dst;
	uint64_t total, room;
	enum odma_mem_kind kind; /* highest kind of memory among the elements */
};

/* An mmap created from an RDMA export is reached with DOCA RDMA tasks, never by DMA. */
static doca_error_t shape_dma_reachable(const struct doca_buf *b)
{
	if (doca_likely(!b->mmap->rdma_import))
		return DOCA_SUCCESS;
	ODMA_ERR("buf %p is in mmap %p, created from an RDMA export: DMA does not reach it; %s",
	         (const void *)b, (const void *)b->mmap, odma_cause_fix(ODMA_CAUSE_RDMA_IMPORT));
	return DOCA_ERROR_NOT_SUPPORTED;
}

/*
 * DOCA's rules for the memory a context's device reaches: the mmap is started (registered)
 * and the device was added to it before its start. @dev NULL (task allocation): not checked.
 */
static doca_error_t shape_dev(const struct doca_buf *b, const struct doca_dev *dev, const void *who)
{
	doca_error_t r;

	if (dev == NULL)
		return DOCA_SUCCESS;
	if (doca_unlikely((r = odma_buf_registered("DMA", "memcpy", who, b)) != DOCA_SUCCESS))
		return r;
	if (doca_likely(odma_mmap_has_dev(b->mmap, dev)))
		return DOCA_SUCCESS;
	ODMA_ERR("buf %p is in mmap %p, which device %s was never added to: a context of that "
	         "device has no access to it (on hardware it has no memory key there); fix: "
	         "doca_mmap_add_dev(mmap, dev) before doca_mmap_start",
	         (const void *)b, (const void *)b->mmap, dev->info->pci_addr);
	return DOCA_ERROR_NOT_PERMITTED;
}

/*
 * The checks every element of a source or destination list passes (@role names the side in
 * the log line): the buf is still held, DMA reaches its memory and @dev may access it.
 */
static doca_error_t shape_elem(const struct doca_buf *b, const char *role,
                               const struct doca_dev *dev, const void *who)
{
	if (doca_unlikely(!b->in_use)) {
		ODMA_ERR("%s buf %p was released to its inventory; use a buf you still hold", role,
		         (const void *)b);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (doca_unlikely(b->mmap->kind != ODMA_MEM_LOCAL) && shape_dma_reachable(b))
		return DOCA_ERROR_NOT_SUPPORTED;
	return shape_dev(b, dev, who);
}

static doca_error_t shape_src(const struct doca_buf *src, struct copy_shape *s,
                              const struct doca_dev *dev, const void *who)
{
	doca_error_t r;

	for (const struct doca_buf *b = src; b != NULL; b = b->next) {
		if ((r = shape_elem(b, "source", dev, who)) != DOCA_SUCCESS)
			return r;
		s->n_src++;
		s->total += b->data_len;
		if (b->mmap->kind > s->kind)
			s->kind = b->mmap->kind;
	}
	return DOCA_SUCCESS;
}

static doca_error_t shape_dst(const struct doca_buf *dst, struct copy_shape *s, bool check_perms,
                              const struct doca_dev *dev, const void *who)
{
	doca_error_t r;

	for (const struct doca_buf *b = dst; b != NULL; b = b->next) {
		if ((r = shape_elem(b, "destination", dev, who)) != DOCA_SUCCESS)
			return r;
		if (doca_unlikely(check_perms && !odma_mmap_writable_quiet(b->mmap)) &&
		    (r = odma_mmap_check_dst(b->mmap, b)) != DOCA_SUCCESS)
			return r;
		s->n_dst++;
		s->room += odma_buf_room(b);
		if (b->mmap->kind > s->kind)
			s->kind = b->mmap->kind;
	}
	return DOCA_SUCCESS;
}

static doca_error_t shape_limits(const struct odma_dev_caps *caps, const struct copy_shape *s)
{
	if (doca_unlikely(s->n_src > caps->max_buf_list_len || s->n_dst > caps->max_buf_list_len)) {
		ODMA_ERR("buffer list of %u elements is longer than max_buf_list_len %u; split the "
		         "task or shorten the list",
		         s->n_src > s->n_dst ? s->n_src : s->n_dst, caps->max_buf_list_len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (doca_unlikely(s->total > caps->max_buf_size)) {
		ODMA_ERR("source of %llu bytes is above max_buf_size %llu; split the copy into "
		         "tasks of at most max_buf_size",
		         (unsigned long long)s->total, (unsigned long long)caps->max_buf_size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

doca_error_t odma_copy_check_limits(const struct odma_dev_caps *caps, const struct doca_buf *src,
                                    const struct doca_buf *dst)
{
	struct copy_shape s = { 0 };
	doca_error_t r = DOCA_SUCCESS;

	if (src != NULL)
		r = shape_src(src, &s, NULL, NULL); /* the add_dev rule is checked at submit */
	if (r == DOCA_SUCCESS && dst != NULL)
		r = shape_dst(dst, &s, false, NULL, NULL);
	return r != DOCA_SUCCESS ? r : shape_limits(caps, &s);
}

/* A copy that cannot run: rejected when @strict, else accepted to fail (*@deferred). */
static doca_error_t copy_reject(bool strict, doca_error_t *deferred, const void *who,
                                const char *why)
{
	if (strict) {
		ODMA_ERR("task %p: %s", who, why);
		return DOCA_ERROR_INVALID_VALUE;
	}
	ODMA_WARN("task %p: %s; it will complete with DOCA_ERROR_IO_FAILED and stop the context",
	          who, why);
	*deferred = DOCA_ERROR_IO_FAILED;
	return DOCA_SUCCESS;
}

/* The split decision: one local element on each side, cut near the middle on a page. */
static uint64_t copy_split_at(const struct odma_copy *c, enum odma_mem_kind kind)
{
	if (kind != ODMA_MEM_LOCAL || c->src->next != NULL || c->dst->next != NULL ||
	    doca_priv_buf_writes_overlap(c->src, c->dst, c->total))
		return 0;
	return (c->total / 2) & ~(uint64_t)(COPY_SPLIT_ALIGN - 1);
}

/* Every rule, with a log line for the broken one; the slow path of odma_copy_validate. */
static doca_error_t __attribute__((noinline))
copy_validate_full(struct odma_copy *c, const struct odma_dev_caps *caps,
                   const struct doca_dev *dev, bool strict, doca_error_t *deferred, const void *who)
{
	struct copy_shape s = { 0 };
	doca_error_t r;

	*deferred = DOCA_SUCCESS;
	if (doca_unlikely(c->src == NULL || c->dst == NULL)) {
		ODMA_ERR("task %p has no %s buffer; set it with doca_dma_task_memcpy_set_%s", who,
		         c->src == NULL ? "source" : "destination", c->src == NULL ? "src" : "dst");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((r = shape_src(c->src, &s, dev, who)) != DOCA_SUCCESS ||
	    (r = shape_dst(c->dst, &s, true, dev, who)) != DOCA_SUCCESS ||
	    (r = shape_limits(caps, &s)) != DOCA_SUCCESS)
		return r;
	c->total = s.total;
	c->mover = odma_copy_movers[s.kind];
	c->batch = odma_copy_batches[s.kind];
	c->async = s.kind == ODMA_MEM_NET;
	c->split_at = copy_split_at(c, s.kind);
	c->plain = s.kind == ODMA_MEM_LOCAL && c->src->next == NULL && c->dst->next == NULL;
	if (doca_unlikely(s.total == 0))
		return copy_reject(strict, deferred, who,
		                   "source has no data (data_len 0); give the source data with "
		                   "doca_buf_set_data or get_by_data");
	if (doca_unlikely(s.room < s.total))
		return copy_reject(
		        strict, deferred, who,
		        "destination free space is smaller than the source; use a larger "
		        "destination or doca_buf_reset_data_len");
	if (strict && doca_priv_buf_writes_overlap(c->src, c->dst, s.total)) {
		ODMA_ERR("task %p: source and destination overlap; copy between disjoint ranges",
		         who);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

/*
 * The shape of nearly every task, one element on each side, is checked in one pass over
 * the two bufs: each buf and mmap already proved the rest when it was made (a window
 * inside its mmap, the mmap's kind and permissions), so what is left per task is the list
 * shape, the bufs still held, the writable destination, the size against max_buf_size
 * and the room. Anything else (lists, an empty source, too little room, try_submit's
 * overlap check) takes the full pass, which logs the rule a copy breaks.
 */
doca_error_t odma_copy_validate(struct odma_copy *c, const struct odma_dev_caps *caps,
                                const struct doca_dev *dev, bool strict, doca_error_t *deferred,
                                const void *who)
{
	/* the common shape (copy.h): one element a side, nothing to log */
	if (doca_likely(!strict && odma_copy_validate_fast(c, caps->max_buf_size, dev))) {
		*deferred = DOCA_SUCCESS;
		return DOCA_SUCCESS;
	}
	return copy_validate_full(c, caps, dev, strict, deferred, who);
}

doca_error_t odma_copy_move(const struct odma_copy *c, uint64_t off, uint64_t len)
{
	/* the common case without the indirect call */
	if (doca_likely(c->mover == &odma_mover_local))
		return odma_mover_local.move(c, off, len);
	return c->mover->move(c, off, len);
}

/* A run of copies from @i that are not plain: each mover's own way; returns where it ends. */
static unsigned int __attribute__((noinline))
copy_move_other(const struct odma_copy *const *c, unsigned int i, unsigned int n, doca_error_t *st,
                bool *failed)
{
	const struct odma_mover *m = c[i]->mover;
	unsigned int k = i + 1;

	while (k < n && !c[k]->plain && c[k]->mover == m)
		k++;
	for (unsigned int j = i; j < k; j++)
		st[j] = DOCA_SUCCESS;
	if (m == &odma_mover_local)
		*failed |= odma_local_move_batch(c + i, k - i, st + i);
	else if (m->move_batch != NULL)
		m->move_batch(c + i, k - i, st + i);
	else
		for (unsigned int j = i; j < k; j++)
			st[j] = m->move(c[j], 0, c[j]->total);
	for (unsigned int j = i; j < k; j++)
		*failed |= st[j] != DOCA_SUCCESS;
	return k;
}

/*
 * The plain copies from @i on, under the caller's guard @g; returns the index of the first
 * copy that is not plain (or @n). Apart from the function that holds the sigsetjmp, so that
 * the loop keeps its variables in registers.
 */
static unsigned int __attribute__((noinline))
copy_run_plain(const struct odma_copy *const *c, unsigned int i, unsigned int n, doca_error_t *st,
               struct odma_guard *g)
{
	for (; i < n && doca_likely(c[i]->plain); i++) {
		g->at = i;
		odma_local_copy_plain(c[i]);
		st[i] = DOCA_SUCCESS;
	}
	return i;
}

/*
 * One loop for the common batch, plain local copies (one memmove each) under one fault guard
 * (one sigsetjmp for the batch); a run of other copies leaves the guard and goes to its mover
 * (copy_move_other: local lists under their own guard, another process' memory with shared
 * system calls). A fault fails the copy it hit and the walk resumes after it, so a fault
 * still fails only its own copy. The index of the copy under way is kept in the guard
 * (volatile: the jump back reads it from there, not from a register).
 */
bool odma_copy_move_batch(const struct odma_copy *const *c, unsigned int n, doca_error_t *st)
{
	struct odma_guard g;
	unsigned int i = 0;

	if (doca_unlikely(!odma_guard_on)) {
		bool failed = false;

		while (i < n) {
			if (doca_likely(c[i]->plain)) {
				odma_local_copy_plain(c[i]);
				st[i++] = DOCA_SUCCESS;
			} else {
				i = copy_move_other(c, i, n, st, &failed);
			}
		}
		return failed;
	}
	g.failed = false;
	if (sigsetjmp(g.env, 0) != 0) {
		i = g.at; /* the copy that faulted: it fails, the batch goes on after it */
		st[i++] = odma_guard_fault(&g);
		g.failed = true;
	}
	odma_guard_enter(&g);
	while ((i = copy_run_plain(c, i, n, st, &g)) < n) {
		bool f = false; /* (g.failed survives a jump back; a local might not) */

		odma_guard_leave();
		i = copy_move_other(c, i, n, st, &f);
		if (f)
			g.failed = true;
		odma_guard_enter(&g);
	}
	odma_guard_leave();
	return g.failed;
}

void odma_copy_grow_dst_list(const struct odma_copy *c)
{
	uint64_t left = c->total;

	for (struct doca_buf *d = c->dst; d != NULL && left; d = d->next) {
		size_t w = odma_buf_room(d) < left ? odma_buf_room(d) : left;

		d->data_len += w;
		left -= w;
	}
}

bool odma_copy_is_remote(const struct odma_copy *c)
{
	return c->mover->kind != ODMA_MEM_LOCAL;
}

/* Skips @off bytes of a list: of the data segments (@src) or of the free tails. */
static void cursor_skip(const struct doca_buf **b, size_t *b_off, uint64_t off, bool src)
{
	while (*b != NULL) {
		size_t n = src ? (*b)->data_len : odma_buf_room(*b);

		if (off < n) {
			*b_off = (size_t)off;
			return;
		}
		off -= n;
		*b = (*b)->next;
	}
	*b_off = 0;
}

void odma_copy_cursor_init(struct odma_copy_cursor *cur, const struct odma_copy *c, uint64_t off,
                           uint64_t len)
{
	const struct doca_buf *d = c->dst;

	cur->s = c->src;
	cursor_skip(&cur->s, &cur->s_off, off, true);
	cursor_skip(&d, &cur->d_off, off, false);
	cur->d = (struct doca_buf *)(uintptr_t)d;
	cur->left = len;
}

bool __attribute__((noinline, cold))
odma_copy_lost(const struct doca_buf *src, const struct doca_buf *dst)
{
	ODMA_RATELIMITED_WARN("a buf of a task in flight (source %p, destination %p) was released "
	                      "or changed before the copy reached it; the copy stops there and "
	                      "its bytes are undefined; fix: keep a task's bufs until its callback",
	                      (const void *)src, (const void *)dst);
	return false;
}

bool odma_copy_cursor_next(struct odma_copy_cursor *cur, struct odma_piece *p)
{
	size_t s_left, d_left, n = 0;

	while (n == 0) { /* elements without data (or room) give no piece */
		if (cur->left == 0 || cur->s == NULL || cur->d == NULL)
			return false;
		/*
		 * a buf released (its mmap forgotten) or shrunk while its task is in flight
		 * (docs/preconditions.md B5) ends the walk: never through a released buf nor past
		 * a window
		 */
		if (doca_unlikely(cur->s->mmap == NULL || cur->d->mmap == NULL ||
		                  cur->s_off > cur->s->data_len ||
		                  cur->d_off > odma_buf_room(cur->d)))
			return odma_copy_lost(cur->s, cur->d);
		s_left = cur->s->data_len - cur->s_off;
		d_left = odma_buf_room(cur->d) - cur->d_off;
		n = s_left < d_left ? s_left : d_left;
		n = n < cur->left ? n : (size_t)cur->left;
		p->src_mmap = cur->s->mmap;
		p->src = cur->s->data + cur->s_off;
		p->dst_mmap = cur->d->mmap;
		p->dst = cur->d->data + cur->d->data_len + cur->d_off;
		p->len = n;
		cur->left -= n;
		odma_buf_walk(&cur->s, &cur->s_off, &cur->d, &cur->d_off, n);
	}
	return true;
}
