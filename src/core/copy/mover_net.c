/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The network mover: copies that reach memory of a process in another kernel or PID
 * namespace (an mmap of kind ODMA_MEM_NET, attached over a network transport such as
 * UCX). A network transfer cannot be a synchronous move(): the copy is started here, one
 * transport io per piece, and its completion is a callback on a transport thread
 * (odma_copy_start). Pieces local on both ends are moved at once with a guarded memmove.
 *
 * The pairwise rule (docs/design.md): each piece has at most one side out of this
 * process; a piece between two remote mmaps is refused at submit (odma_copy_pairwise),
 * since no transport moves bytes between two peers without a bounce through us.
 */
#include <stdlib.h>

#include "core/copy/mover.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(ODMA_NET)

struct odma_copy_async {
	odma_copy_done_fn *done;
	odma_copy_piece_fn *piece; /* NULL unless the task is traced */
	void *arg;
	atomic_uint left;   /* ios outstanding, +1 while starting */
	atomic_bool failed; /* an io failed */
	unsigned int n;
	struct odma_tp_io io[];
};

static bool net_is_remote(const struct doca_mmap *m)
{
	return m->kind != ODMA_MEM_LOCAL;
}

doca_error_t odma_copy_pairwise(const struct odma_copy *c, const void *who)
{
	struct odma_copy_cursor cur;
	struct odma_piece p;

	odma_copy_cursor_init(&cur, c, 0, c->total);
	while (odma_copy_cursor_next(&cur, &p))
		if (net_is_remote(p.src_mmap) && net_is_remote(p.dst_mmap)) {
			ODMA_ERR("task %p copies between two mmaps of other processes, one of "
			         "them over the network; a copy may have only one remote side: "
			         "copy through a local buffer in two tasks",
			         who);
			return DOCA_ERROR_NOT_SUPPORTED;
		}
	return DOCA_SUCCESS;
}

static void net_finish(struct odma_copy_async *a)
{
	odma_copy_done_fn *done = a->done;
	void *arg = a->arg;
	bool failed = atomic_load(&a->failed);

	free(a);
	done(arg, failed ? DOCA_ERROR_IO_FAILED : DOCA_SUCCESS);
}

static void net_io_done(struct odma_tp_io *io, doca_error_t st)
{
	struct odma_copy_async *a = io->arg;

	if (st != DOCA_SUCCESS)
		atomic_store(&a->failed, true);
	else if (a->piece != NULL)
		a->piece(a->arg, io->len);
	if (atomic_fetch_sub(&a->left, 1) == 1)
		net_finish(a);
}

/* Fills io @i for piece @p; false when the piece was moved locally. */
static bool net_io_fill(struct odma_copy_async *a, const struct odma_piece *p,
                        struct odma_tp_io *io, uint64_t owner)
{
	bool s_rem = net_is_remote(p->src_mmap);
	const struct doca_mmap *rm = s_rem ? p->src_mmap : p->dst_mmap;

	if (!s_rem && !net_is_remote(p->dst_mmap)) {
		if (odma_guarded_memmove(p->dst, p->src, p->len) != DOCA_SUCCESS)
			atomic_store(&a->failed, true);
		return false;
	}
	io->remote = rm->remote;
	io->write = !s_rem;
	io->local = s_rem ? p->dst : (void *)(uintptr_t)p->src;
	io->remote_addr = (uint64_t)(uintptr_t)(s_rem ? p->src : p->dst);
	io->len = p->len;
	io->done = net_io_done;
	io->arg = a;
	io->owner = owner;
	return true;
}

doca_error_t odma_copy_start(const struct odma_copy *c, odma_copy_done_fn *done,
                             odma_copy_piece_fn *piece, void *arg, uint64_t owner)
{
	struct odma_copy_cursor cur;
	struct odma_piece p;
	struct odma_copy_async *a;
	unsigned int n = 0;

	odma_copy_cursor_init(&cur, c, 0, c->total);
	while (odma_copy_cursor_next(&cur, &p))
		n++;
	a = calloc(1, sizeof(*a) + n * sizeof(a->io[0]));
	if (a == NULL)
		return DOCA_ERROR_NO_MEMORY;
	a->done = done;
	a->piece = piece;
	a->arg = arg;
	atomic_init(&a->left, 1);
	atomic_init(&a->failed, false);
	odma_copy_cursor_init(&cur, c, 0, c->total);
	/* at most the n counted: bufs changed between the walks (B5) cut it, never overrun io[] */
	while (a->n < n && odma_copy_cursor_next(&cur, &p)) {
		struct odma_tp_io *io = &a->io[a->n];

		if (!net_io_fill(a, &p, io, owner))
			continue;
		a->n++;
		atomic_fetch_add(&a->left, 1);
		if (odma_tp_io_start(io) != DOCA_SUCCESS) {
			atomic_store(&a->failed, true);
			atomic_fetch_sub(&a->left, 1);
		}
	}
	if (atomic_fetch_sub(&a->left, 1) == 1)
		net_finish(a);
	return DOCA_SUCCESS;
}

void odma_copy_cancel(uint64_t owner)
{
	odma_tp_io_cancel(owner);
}

void odma_copy_net_poll(void)
{
	odma_tp_poll();
}

void odma_copy_net_poll_end(void)
{
	odma_tp_poll_end();
}

doca_error_t doca_priv_remote_xfer(const struct doca_mmap *mmap, void *local, void *remote,
                                   size_t len, bool write)
{
	if (mmap == NULL || mmap->kind != ODMA_MEM_NET || mmap->rdma_import ||
	    mmap->remote == NULL || mmap->remote->ops == NULL)
		return doca_priv_process_xfer(mmap, local, remote, len, write);
	if (len == 0)
		return DOCA_SUCCESS;
	if (atomic_load(&mmap->remote->gone))
		return DOCA_ERROR_IO_FAILED; /* logged when the exporter refused */
	return odma_tp_xfer(mmap->remote, write, local, (uint64_t)(uintptr_t)remote, len);
}

/* Never called: a network copy never reaches an engine (core/exec starts it). */
static doca_error_t net_move(const struct odma_copy *c, uint64_t off, uint64_t len)
{
	(void)c;
	(void)off;
	(void)len;
	return DOCA_ERROR_IO_FAILED;
}

const struct odma_mover odma_mover_net = {
	.name = "net",
	.kind = ODMA_MEM_NET,
	.move = net_move,
};
