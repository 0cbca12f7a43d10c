/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The mover contract (inside core/copy only). A mover moves the bytes of a byte range of
 * a validated copy. Each kind of memory (enum odma_mem_kind, fixed per mmap when it is
 * started or imported) has one mover. The rule is pairwise: each piece of a copy (a run
 * inside one source and one destination element) has at most one side out of this
 * process, and the mover of the copy's highest kind moves it, local pieces included; the
 * one exception is the process mover, which bounces a piece between two processes of
 * this kernel through its stack. A piece between two remote mmaps of which one is a
 * network one is refused at submit (odma_copy_pairwise). Adding a mover (GPU): a new kind
 * in core/memory/memory.h, set where such an mmap is made; a const struct odma_mover in a
 * new file here; its entry in copy_movers[] (copy.c).
 *
 * Threading: move() runs on any thread, possibly on two threads at once for disjoint
 * ranges of one copy (a split copy), and never blocks for long, allocates or faults: memory
 * the process cannot reach makes it return DOCA_ERROR_IO_FAILED.
 */
#ifndef ODMA_CORE_COPY_MOVER_H_
#define ODMA_CORE_COPY_MOVER_H_

#include <setjmp.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/copy/copy.h"

struct odma_mover {
	const char *name;
	enum odma_mem_kind kind; /* the memory it serves (and every lower kind) */
	/* Moves bytes [off, off + len) of @c. DOCA_SUCCESS or DOCA_ERROR_IO_FAILED. */
	doca_error_t (*move)(const struct odma_copy *c, uint64_t off, uint64_t len);
	/*
	 * Optional: moves the whole copies @c[0..n) (all of this mover) in their order, with
	 * as few system calls as it can, and stores each copy's result in @st[i]
	 * (DOCA_ERROR_IO_FAILED, or left as the caller set it, DOCA_SUCCESS). A failure fails
	 * only the copies whose bytes it could not move, as moving them one by one would;
	 * n <= ODMA_COPY_BATCH_MAX. NULL: the core calls move() for each copy.
	 */
	void (*move_batch)(const struct odma_copy *const *c, unsigned int n, doca_error_t *st);
};

extern const struct odma_mover odma_mover_local;   /* mover_local.c: memmove */
extern const struct odma_mover odma_mover_process; /* mover_process.c: process_vm_readv/writev */
extern const struct odma_mover odma_mover_net;     /* mover_net.c: asynchronous, a transport */

/*
 * Streaming copies (stream.c): a range of a copy of at least odma_copy_stream_min bytes
 * (ODMA_STREAM_MIN; UINT64_MAX: none) whose destination is out of the cache is written with
 * streaming stores. The choice is made where the bytes move, per range (a chunk of a split
 * copy on whichever thread claims it), so the submit path pays nothing for it.
 */
extern uint64_t odma_copy_stream_min;

/*
 * Moves @n bytes from @src to @dst (a range of a copy of at least odma_copy_stream_min bytes):
 * with streaming stores unless the ranges overlap or the destination was used recently
 * enough to be in the cache (memmove then). Records both ends as used. Any thread.
 */
void odma_copy_big(void *dst, const void *src, size_t n);

/*
 * The rule of odma_copy_big: whether a run of @len bytes from @src to @dst streams (false for
 * overlapping ranges and a destination in the cache); records both ends as used.
 */
bool odma_copy_stream_decide(const void *src, const void *dst, uint64_t len);

/* Bytes moved with streaming stores so far (tests, debug). */
extern _Atomic uint64_t odma_copy_streamed;

/* Reads ODMA_STREAM_MIN and ODMA_STREAM_CACHE once (odma_copy_init). */
doca_error_t odma_copy_stream_init(void);

/* One local run of bytes of a copy of @total bytes: memmove, or odma_copy_big for a big copy. */
static inline void odma_local_run(void *dst, const void *src, size_t n, uint64_t total)
{
	if (doca_unlikely(total >= odma_copy_stream_min))
		odma_copy_big(dst, src, n);
	else
		memmove(dst, src, n);
}

/*
 * A buf of a task in flight was released or changed before the copy reached it
 * (docs/preconditions.md B5): one WARNING (rate-limited); the copy moves nothing more, its
 * bytes are undefined. Returns false.
 */
bool odma_copy_lost(const struct doca_buf *src, const struct doca_buf *dst);

/*
 * Whether the one-element copy @c still fits its bufs as it did at submit: both held, the
 * source's data and the destination's free tail still as long as the copy (B5: a buf released
 * and taken again for a smaller window, or a destination several tasks fill, must not be
 * written past its window).
 */
static inline bool odma_copy_one_holds(const struct odma_copy *c)
{
	const struct doca_buf *s = c->src, *d = c->dst;

	return doca_likely(s->mmap != NULL && d->mmap != NULL && c->total <= s->data_len &&
	                   c->total <= odma_buf_room(d)) ||
	       odma_copy_lost(s, d);
}

/* A plain copy (one local element a side, odma_copy.plain): one memmove, no guard of its own. */
static inline void odma_local_copy_plain(const struct odma_copy *c)
{
	const struct doca_buf *s = c->src, *d = c->dst;

	if (odma_copy_one_holds(c))
		odma_local_run(d->data + d->data_len, s->data, c->total, c->total);
}

/* The local mover's move_batch, writing every st[i]; returns whether a copy failed. */
bool odma_local_move_batch(const struct odma_copy *const *c, unsigned int n, doca_error_t *st);

/* One run of bytes inside one source element and one destination element. */
struct odma_piece {
	const struct doca_mmap *src_mmap;
	const uint8_t *src;
	const struct doca_mmap *dst_mmap;
	uint8_t *dst;
	size_t len;
};

/* Walks a byte range of a copy piece by piece (source segments against destination tails). */
struct odma_copy_cursor {
	const struct doca_buf *s;
	struct doca_buf *d;
	size_t s_off, d_off;
	uint64_t left;
};

/* Positions @cur at byte @off of @c, for @len bytes. */
void odma_copy_cursor_init(struct odma_copy_cursor *cur, const struct odma_copy *c, uint64_t off,
                           uint64_t len);

/* The next piece; false once the range is done. */
bool odma_copy_cursor_next(struct odma_copy_cursor *cur, struct odma_piece *p);

/*
 * The fault guard (guard.c). A local copy runs between odma_guard_enter and
 * odma_guard_leave, after a sigsetjmp on the guard's env that returns non-zero when a
 * SIGSEGV or SIGBUS hit the thread inside the guarded region:
 *
 *	struct odma_guard g;
 *
 *	if (sigsetjmp(g.env, 0) != 0)
 *		return odma_guard_fault(&g);
 *	odma_guard_enter(&g);
 *	memmove(...);
 *	odma_guard_leave();
 *
 * Nothing between enter and leave may take a lock or allocate (the handler jumps out).
 */
struct odma_guard {
	sigjmp_buf env;
	int sig;    /* the signal that hit */
	void *addr; /* the faulting address */
	/* a batch under one guard: the copy being moved, and whether one failed (both survive
	 * the jump back) */
	volatile unsigned int at;
	volatile bool failed;
};

extern __thread struct odma_guard *odma_guard_cur __attribute__((tls_model("initial-exec")));

/* Whether the guard's handler is installed (ODMA_COPY_GUARD, default 1); fixed before any copy. */
extern bool odma_guard_on;

static inline void odma_guard_enter(struct odma_guard *g)
{
	odma_guard_cur = g;
	atomic_signal_fence(memory_order_seq_cst);
}

static inline void odma_guard_leave(void)
{
	atomic_signal_fence(memory_order_seq_cst);
	odma_guard_cur = NULL;
}

/* After the jump: logs the fault (rate-limited) and returns DOCA_ERROR_IO_FAILED. */
doca_error_t odma_guard_fault(const struct odma_guard *g);

/* memmove under a guard: DOCA_SUCCESS, or DOCA_ERROR_IO_FAILED when it faulted. */
doca_error_t odma_guarded_memmove(void *dst, const void *src, size_t n);

#endif /* ODMA_CORE_COPY_MOVER_H_ */
