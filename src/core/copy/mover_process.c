/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The process mover: copies that reach memory of another process of this kernel (an mmap
 * of kind ODMA_MEM_PROCESS, made by doca_mmap_create_from_export), moved by the row of the
 * transport table the import was attached through (its iov_move op: the process transport's
 * is process_vm_readv / process_vm_writev; its io_fail explains a failure); this file only
 * batches pieces into calls.
 *
 * The copy's pieces (mover.h) that read from (or write to) the same remote mmap are
 * batched into one system call with iovec arrays on the stack, so the hot path never
 * allocates and any engine thread may run it. Before moving bytes the exporter's export
 * record is read and checked (a read batch carries it as its first iovec): a revoked
 * export, a reused pid or a dead exporter fails the copy with IO_FAILED, and so does a
 * local range the kernel cannot reach (EFAULT). The export is held (the row's iov_enter)
 * from before that check until the batch's call returned, so the exporter's revocation
 * waits for it, as a device's DMA in flight is waited for. Pieces local on both ends are
 * moved with a guarded memmove.
 */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "core/copy/mover.h"

#define XPROC_BATCH 64               /* iovecs per system call (IOV_MAX is 1024) */
#define XPROC_BOUNCE 16384           /* remote-to-remote copies go through this much stack */
#define XPROC_BOUNCE_HOLD (1u << 20) /* and hold their exports this many bytes at a time */

enum xkind { XK_READ, XK_WRITE };

struct xbatch {
	enum xkind kind;
	const struct doca_mmap *rm; /* the remote mmap of a READ/WRITE batch */
	int n;                      /* iovecs used, slot 0 is the record on READ */
	struct odma_tp_region_hdr rec;
	struct iovec loc[XPROC_BATCH], rem[XPROC_BATCH];
};

/* Steps an iovec array (from index *@i) past @k bytes, in place. */
static void xm_skip(struct iovec *v, int *i, int n, size_t k)
{
	while (*i < n && k >= v[*i].iov_len) {
		k -= v[*i].iov_len;
		(*i)++;
	}
	if (*i < n && k > 0) {
		v[*i].iov_base = (uint8_t *)v[*i].iov_base + k;
		v[*i].iov_len -= k;
	}
}

/*
 * Moves every byte the iovec arrays describe through @r's row, resuming after a short call
 * (the arrays are changed in place). 0, or the errno that stopped it (EFAULT: a short move).
 */
static int move_all(const struct odma_tp_remote *r, bool write, struct iovec *l, int nl,
                    struct iovec *rv, int nr)
{
	int il = 0, ir = 0;

	xm_skip(l, &il, nl, 0);
	xm_skip(rv, &ir, nr, 0);
	while (il < nl && ir < nr) {
		ssize_t k = r->ops->iov_move(r, write, l + il, (unsigned long)(nl - il), rv + ir,
		                             (unsigned long)(nr - ir));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? errno : EFAULT;
		xm_skip(l, &il, nl, (size_t)k);
		xm_skip(rv, &ir, nr, (size_t)k);
	}
	return 0;
}

static void record_iov(const struct odma_tp_remote *r, struct odma_tp_region_hdr *rec,
                       struct iovec *l, struct iovec *rv)
{
	memset(rec, 0, sizeof(*rec));
	l->iov_base = rec;
	l->iov_len = sizeof(*rec);
	rv->iov_base = (void *)(uintptr_t)r->record_addr;
	rv->iov_len = sizeof(*rec);
}

/*
 * Holds @r's export from before its record is checked until the moves that check allowed
 * have returned: the exporter's revocation waits for them (a device's DMA in flight too).
 */
static void hold(const struct odma_tp_remote *r)
{
	if (r->ops->iov_enter != NULL)
		r->ops->iov_enter(r);
}

static void release(const struct odma_tp_remote *r)
{
	if (r->ops->iov_leave != NULL)
		r->ops->iov_leave(r);
}

/* Reads and checks the export record of @r alone (before a write or a bounce; held). */
static doca_error_t record_check(const struct odma_tp_remote *r)
{
	struct odma_tp_region_hdr rec;
	struct iovec l, rv;
	int err;

	record_iov(r, &rec, &l, &rv);
	err = move_all(r, false, &l, 1, &rv, 1);
	if (err != 0 || !odma_tp_record_ok(r, &rec))
		return r->ops->io_fail(r, err);
	return DOCA_SUCCESS;
}

/* Checks the record of @r, then moves the batch's @n pieces (held: see hold). */
static doca_error_t batch_move(struct xbatch *b, const struct odma_tp_remote *r, int n)
{
	int err;

	if (b->kind == XK_READ) {
		/* Slot 0 carries the record: one system call checks and moves. */
		err = move_all(r, false, b->loc, n, b->rem, n);
		return err != 0 || !odma_tp_record_ok(r, &b->rec) ? r->ops->io_fail(r, err)
		                                                  : DOCA_SUCCESS;
	}
	if (record_check(r) != DOCA_SUCCESS)
		return DOCA_ERROR_IO_FAILED;
	err = move_all(r, true, b->loc, n, b->rem, n);
	return err != 0 ? r->ops->io_fail(r, err) : DOCA_SUCCESS;
}

static doca_error_t batch_flush(struct xbatch *b)
{
	const struct odma_tp_remote *r;
	doca_error_t ret;
	int n = b->n;

	if (n == 0)
		return DOCA_SUCCESS;
	r = b->rm->remote;
	b->n = 0;
	hold(r);
	ret = batch_move(b, r, n);
	release(r);
	return ret;
}

/* Adds one piece to the batch, flushing first when it belongs to another batch. */
static doca_error_t batch_add(struct xbatch *b, enum xkind kind, const struct doca_mmap *rm,
                              void *local, void *remote, size_t n)
{
	doca_error_t ret;

	if (b->n > 0 && (b->kind != kind || b->rm != rm || b->n == XPROC_BATCH)) {
		ret = batch_flush(b);
		if (ret != DOCA_SUCCESS)
			return ret;
	}
	if (b->n == 0) {
		b->kind = kind;
		b->rm = rm;
		if (kind == XK_READ)
			record_iov(rm->remote, &b->rec, &b->loc[b->n++], &b->rem[0]);
	}
	b->loc[b->n].iov_base = local;
	b->loc[b->n].iov_len = n;
	b->rem[b->n].iov_base = remote;
	b->rem[b->n].iov_len = n;
	b->n++;
	return DOCA_SUCCESS;
}

/* Both ends remote (possibly two exporters): through a stack bounce buffer (both held). */
static doca_error_t bounce_held(const struct doca_mmap *sm, uint8_t *s, const struct doca_mmap *dm,
                                uint8_t *d, size_t n)
{
	uint8_t bounce[XPROC_BOUNCE];
	struct iovec l, r;
	int err;

	if (record_check(sm->remote) != DOCA_SUCCESS || record_check(dm->remote) != DOCA_SUCCESS)
		return DOCA_ERROR_IO_FAILED;
	while (n) {
		size_t k = n < sizeof(bounce) ? n : sizeof(bounce);

		l = (struct iovec){ bounce, k };
		r = (struct iovec){ s, k };
		if ((err = move_all(sm->remote, false, &l, 1, &r, 1)) != 0)
			return sm->remote->ops->io_fail(sm->remote, err);
		l = (struct iovec){ bounce, k };
		r = (struct iovec){ d, k };
		if ((err = move_all(dm->remote, true, &l, 1, &r, 1)) != 0)
			return dm->remote->ops->io_fail(dm->remote, err);
		s += k;
		d += k;
		n -= k;
	}
	return DOCA_SUCCESS;
}

/*
 * A bounce copy, held XPROC_BOUNCE_HOLD bytes at a time: the records are checked again after
 * each hold, so a revocation waits for one part, not for the whole copy.
 */
static doca_error_t xproc_bounce(const struct doca_mmap *sm, uint8_t *s, const struct doca_mmap *dm,
                                 uint8_t *d, size_t n)
{
	doca_error_t ret = DOCA_SUCCESS;

	while (n > 0 && ret == DOCA_SUCCESS) {
		size_t k = n < XPROC_BOUNCE_HOLD ? n : XPROC_BOUNCE_HOLD;

		hold(sm->remote);
		hold(dm->remote);
		ret = bounce_held(sm, s, dm, d, k);
		release(dm->remote);
		release(sm->remote);
		s += k;
		d += k;
		n -= k;
	}
	return ret;
}

static bool is_remote(const struct doca_mmap *m)
{
	return m->kind == ODMA_MEM_PROCESS;
}

/* Routes one piece (a run inside one source and one destination element). */
static doca_error_t process_piece(struct xbatch *b, const struct odma_piece *p)
{
	bool s_rem = is_remote(p->src_mmap), d_rem = is_remote(p->dst_mmap);
	uint8_t *src = (uint8_t *)(uintptr_t)p->src;
	doca_error_t ret;

	if (s_rem && !d_rem)
		return batch_add(b, XK_READ, p->src_mmap, p->dst, src, p->len);
	if (!s_rem && d_rem)
		return batch_add(b, XK_WRITE, p->dst_mmap, src, p->dst, p->len);
	ret = batch_flush(b); /* keep the order of writes as the lists give it */
	if (ret != DOCA_SUCCESS)
		return ret;
	if (!s_rem)
		return odma_guarded_memmove(p->dst, p->src, p->len);
	return xproc_bounce(p->src_mmap, src, p->dst_mmap, p->dst, p->len);
}

doca_error_t doca_priv_process_xfer(const struct doca_mmap *mmap, void *local, void *remote,
                                    size_t len, bool write)
{
	struct xbatch b;
	doca_error_t ret;

	if (mmap == NULL || !is_remote(mmap) || mmap->remote == NULL ||
	    mmap->remote->ops == NULL) /* an RDMA import: reached through DOCA RDMA only */
		return DOCA_ERROR_NOT_SUPPORTED;
	if (len == 0)
		return DOCA_SUCCESS;
	b.n = 0;
	ret = batch_add(&b, write ? XK_WRITE : XK_READ, mmap, local, remote, len);
	return ret != DOCA_SUCCESS ? ret : batch_flush(&b);
}

static doca_error_t process_move(const struct odma_copy *c, uint64_t off, uint64_t len)
{
	struct odma_copy_cursor cur;
	struct odma_piece p;
	struct xbatch b;
	doca_error_t ret;

	b.n = 0;
	odma_copy_cursor_init(&cur, c, off, len);
	while (odma_copy_cursor_next(&cur, &p)) {
		ret = process_piece(&b, &p);
		if (ret != DOCA_SUCCESS)
			return ret;
	}
	return batch_flush(&b);
}

/*
 * Batches of whole copies (move_batch). The pieces of many copies that read from (or write
 * to) one remote mmap share one system call of up to XPROC_MULTI_IOV iovecs a side; a piece
 * that continues the previous one on both sides (adjacent slots, as a ring of buffers has)
 * extends its iovecs, so the kernel pins and walks each run of pages once. Byte ranges of
 * the call are tagged with their copy (runs). A transfer that stops short at a range the
 * kernel cannot reach (EFAULT: a local or remote range no longer mapped) fails the copy
 * owning that byte alone; the call resumes after that copy's bytes, so the other copies move
 * as if moved one by one. Whatever concerns the whole export (revoked, exporter gone, no
 * ptrace right) fails every copy of the call.
 */
#define XPROC_MULTI_IOV 256 /* iovecs per side of a system call (IOV_MAX is 1024) */
#define XM_RECORD 0xffu     /* owner of the export record's bytes */

struct xrun {
	size_t end; /* byte offset in the call where the run ends */
	uint8_t owner;
};

struct xmulti {
	enum xkind kind;
	const struct doca_mmap *rm;
	int nl, nr, nrun;
	size_t bytes;
	struct odma_tp_region_hdr rec;
	struct iovec loc[XPROC_MULTI_IOV], rem[XPROC_MULTI_IOV];
	struct xrun run[XPROC_MULTI_IOV]; /* copies of the call (n <= ODMA_COPY_BATCH_MAX) */
};

/* Fails the copies owning runs [k, nrun). */
static void xm_fail_from(const struct xmulti *b, int k, doca_error_t *st)
{
	for (; k < b->nrun; k++)
		if (b->run[k].owner != XM_RECORD)
			st[b->run[k].owner] = DOCA_ERROR_IO_FAILED;
}

static ssize_t xm_call(const struct xmulti *b, const struct odma_tp_remote *r, int il, int ir)
{
	unsigned long cl = (unsigned long)(b->nl - il), cr = (unsigned long)(b->nr - ir);

	return r->ops->iov_move(r, b->kind == XK_WRITE, b->loc + il, cl, b->rem + ir, cr);
}

/* Moves the call's bytes from @off on; a copy whose bytes cannot move fails alone. */
static void xm_transfer(struct xmulti *b, const struct odma_tp_remote *r, doca_error_t *st)
{
	size_t off = 0;
	int il = 0, ir = 0, k = 0;

	while (off < b->bytes) {
		ssize_t got = xm_call(b, r, il, ir);
		size_t skip;
		int err;

		if (got > 0) {
			skip = (size_t)got;
		} else if (got < 0 && errno == EINTR) {
			continue;
		} else {
			err = got < 0 ? errno : EFAULT;
			r->ops->io_fail(r, err);
			while (b->run[k].end <= off)
				k++;
			if (err != EFAULT || b->run[k].owner == XM_RECORD) {
				xm_fail_from(b, 0,
				             st); /* the export itself: every copy of the call */
				return;
			}
			/*
			 * one copy's range cannot be reached: it fails, the call resumes after it
			 */
			st[b->run[k].owner] = DOCA_ERROR_IO_FAILED;
			skip = b->run[k].end - off;
		}
		off += skip;
		xm_skip(b->loc, &il, b->nl, skip);
		xm_skip(b->rem, &ir, b->nr, skip);
	}
}

static void xm_flush(struct xmulti *b, doca_error_t *st)
{
	const struct odma_tp_remote *r;

	if (b->nrun == 0)
		return;
	r = b->rm->remote;
	hold(r);
	if (b->kind == XK_WRITE && record_check(r) != DOCA_SUCCESS)
		xm_fail_from(b, 0, st);
	else
		xm_transfer(b, r, st);
	release(r);
	if (b->kind == XK_READ && !odma_tp_record_ok(r, &b->rec)) {
		r->ops->io_fail(r, 0);
		xm_fail_from(b, 0, st);
	}
	b->nl = b->nr = b->nrun = 0;
	b->bytes = 0;
}

/* Appends [p, p + len) to an iovec array, extending its last element when adjacent. */
static void xm_iov(struct iovec *v, int *n, void *p, size_t len)
{
	if (*n > 0 && (uint8_t *)v[*n - 1].iov_base + v[*n - 1].iov_len == (uint8_t *)p) {
		v[*n - 1].iov_len += len;
		return;
	}
	v[(*n)++] = (struct iovec){ p, len };
}

static void xm_bytes(struct xmulti *b, void *local, void *remote, size_t len, uint8_t owner)
{
	xm_iov(b->loc, &b->nl, local, len);
	xm_iov(b->rem, &b->nr, remote, len);
	b->bytes += len;
	if (b->nrun > 0 && b->run[b->nrun - 1].owner == owner)
		b->run[b->nrun - 1].end = b->bytes;
	else
		b->run[b->nrun++] = (struct xrun){ b->bytes, owner };
}

static void xm_add(struct xmulti *b, enum xkind kind, const struct doca_mmap *rm, void *local,
                   void *remote, size_t len, unsigned int owner, doca_error_t *st)
{
	/* room for one more iovec a side and one more run, whatever merges */
	if (b->nrun > 0 && (b->kind != kind || b->rm != rm || b->nl == XPROC_MULTI_IOV ||
	                    b->nr == XPROC_MULTI_IOV || b->nrun == XPROC_MULTI_IOV))
		xm_flush(b, st);
	if (b->nrun == 0) {
		b->kind = kind;
		b->rm = rm;
		if (kind == XK_READ) { /* the record first: one call checks and moves */
			struct iovec l, rv;

			record_iov(rm->remote, &b->rec, &l, &rv);
			xm_bytes(b, l.iov_base, rv.iov_base, l.iov_len, XM_RECORD);
		}
	}
	xm_bytes(b, local, remote, len, (uint8_t)owner);
}

/* Routes one piece of copy @owner (see process_piece). */
static void xm_piece(struct xmulti *b, const struct odma_piece *p, unsigned int owner,
                     doca_error_t *st)
{
	bool s_rem = is_remote(p->src_mmap), d_rem = is_remote(p->dst_mmap);
	uint8_t *src = (uint8_t *)(uintptr_t)p->src;
	doca_error_t ret;

	if (s_rem != d_rem) {
		if (s_rem)
			xm_add(b, XK_READ, p->src_mmap, p->dst, src, p->len, owner, st);
		else
			xm_add(b, XK_WRITE, p->dst_mmap, src, p->dst, p->len, owner, st);
		return;
	}
	xm_flush(b, st); /* keep the order of writes as the lists give it */
	ret = !s_rem ? odma_guarded_memmove(p->dst, p->src, p->len)
	             : xproc_bounce(p->src_mmap, src, p->dst_mmap, p->dst, p->len);
	if (ret != DOCA_SUCCESS)
		st[owner] = DOCA_ERROR_IO_FAILED;
}

static void process_move_batch(const struct odma_copy *const *c, unsigned int n, doca_error_t *st)
{
	struct odma_copy_cursor cur;
	struct odma_piece p;
	struct xmulti b;

	b.nl = b.nr = b.nrun = 0;
	b.bytes = 0;
	for (unsigned int i = 0; i < n; i++) {
		odma_copy_cursor_init(&cur, c[i], 0, c[i]->total);
		while (odma_copy_cursor_next(&cur, &p))
			xm_piece(&b, &p, i, st);
	}
	xm_flush(&b, st);
}

const struct odma_mover odma_mover_process = {
	.name = "process",
	.kind = ODMA_MEM_PROCESS,
	.move = process_move,
	.move_batch = process_move_batch,
};
