/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The copy module's face: what a copy is, how it is checked, how its bytes move.
 *
 * A copy writes the data segments of a source buf list, in list order, into the free
 * tails of a destination buf list, in order; each destination's data_len grows by what it
 * received (the copy rule of include/doca_dma.h). The module owns the rules of that shape
 * (validation), the byte moving (through a mover, chosen per copy from the kinds of memory its
 * mmaps describe; see mover.h), the destination growth, and where a copy may be cut in two. It
 * knows nothing of tasks, contexts or engines: core/exec embeds a struct odma_copy in every task
 * and calls these functions.
 */
#ifndef ODMA_CORE_COPY_H_
#define ODMA_CORE_COPY_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_error.h>

#include "core/memory/memory.h"

struct odma_dev_caps;
struct odma_mover;

struct odma_copy {
	const struct doca_buf *src;
	struct doca_buf *dst;
	/*
	 * Set by odma_copy_validate. total and split_at are not neighbours on purpose: the
	 * submit path reads them right after validation wrote them, and a 16-byte load over two
	 * 8-byte stores (which a compiler makes of two neighbours) cannot be forwarded from the
	 * store buffer, a stall of about a dozen cycles per task.
	 */
	uint64_t total;                 /* bytes to move */
	const struct odma_mover *mover; /* moves the bytes */
	uint64_t split_at;              /* 0, or an offset where the copy may be cut in two parts */
	/* the copy is cheaper moved in a batch with its neighbours (odma_copy_move_batch) */
	bool batch;
	/* the copy crosses a network transport: started with odma_copy_start, never moved */
	bool async;
	/* one element a side, both in this process' memory: one memmove (the batch fast path) */
	bool plain;
};

/*
 * Checks the copy's shape against the device limits and fills total, split_at and mover.
 * Any thread that owns the bufs; logs one line per rejection, naming @who (the task).
 *
 * Returns DOCA_ERROR_INVALID_VALUE (no buffer, a released buf, a list or size over the
 * limits), DOCA_ERROR_NOT_PERMITTED (a read-only destination, or a buf whose mmap @dev, the
 * context's device, was never added to: DOCA's add_dev rule), DOCA_ERROR_BAD_STATE (a buf of
 * a stopped mmap: only a thread-safe one can be stopped under its bufs), or DOCA_SUCCESS. An
 * empty source, a destination with too little room and (when @strict) overlapping ranges are
 * rejected with INVALID_VALUE when @strict (doca_task_try_submit); otherwise they are
 * accepted with *@deferred set to DOCA_ERROR_IO_FAILED, the status the task must complete
 * with (doca_task_submit: a hardware queue takes the task and fails it).
 */
doca_error_t odma_copy_validate(struct odma_copy *c, const struct odma_dev_caps *caps,
                                const struct doca_dev *dev, bool strict, doca_error_t *deferred,
                                const void *who);

/* The mover of each kind of memory and whether it batches (copy.c; for the inline check). */
extern const struct odma_mover *const odma_copy_movers[ODMA_MEM_KINDS];
extern const bool odma_copy_batches[ODMA_MEM_KINDS];

/*
 * The common shape checked inline (the submit path of doca_task_submit, not try_submit):
 * one element a side, bufs held, a non-empty source within @max_buf_size (the device's),
 * room in a writable destination, both mmaps started (or imported) and added to @dev. Fills the
 * copy and returns true; false leaves it to odma_copy_validate (which logs any broken rule).
 */
static inline bool odma_copy_validate_fast(struct odma_copy *c, uint64_t max_buf_size,
                                           const struct doca_dev *dev)
{
	const struct doca_buf *s = c->src;
	const struct doca_buf *d = c->dst;
	const struct doca_mmap *sm, *dm;
	enum odma_mem_kind kind;
	uint64_t total;

	if (doca_unlikely(s == NULL || d == NULL || s->next != NULL || d->next != NULL ||
	                  !s->in_use || !d->in_use))
		return false;
	sm = s->mmap;
	dm = d->mmap;
	total = s->data_len;
	/* total - 1 wraps for an empty source, which the full pass rejects */
	if (doca_unlikely(
	            total - 1 >= max_buf_size || total > odma_buf_room(d) ||
	            !odma_mmap_writable_quiet(dm) || !odma_mmap_live(sm) || !odma_mmap_live(dm) ||
	            (dev != NULL && (!odma_mmap_has_dev(sm, dev) || !odma_mmap_has_dev(dm, dev)))))
		return false;
	kind = sm->kind > dm->kind ? sm->kind : dm->kind;
	if (doca_unlikely(kind == ODMA_MEM_NET || sm->rdma_import || dm->rdma_import))
		return false; /* a network copy (copy.async), or one DMA cannot do: the full pass */
	c->async = false;
	c->total = total;
	c->mover = odma_copy_movers[kind];
	c->batch = odma_copy_batches[kind];
	c->plain = kind == ODMA_MEM_LOCAL;
	c->split_at = kind == ODMA_MEM_LOCAL ? (total / 2) & ~(uint64_t)4095 : 0;
	/* overlapping ranges are one memmove, never cut (engines/engine.h, split_at) */
	if (doca_unlikely(c->split_at != 0 && s->data < d->data + d->data_len + total &&
	                  d->data + d->data_len < s->data + total))
		c->split_at = 0;
	return true;
}

/*
 * The shape of odma_copy_validate_fast, both sides in this process' memory and at most
 * @max_bytes (at most the device's max_buf_size): a plain local copy (the hold stage of
 * doca_task_submit). @want is odma_buf_fast_want of the context's device. Fills the copy and
 * returns true; false leaves it to the other paths.
 */
static inline bool odma_copy_validate_local(struct odma_copy *c, uint64_t max_bytes, uint16_t want)
{
	const struct doca_buf *s = c->src;
	const struct doca_buf *d = c->dst;
	uint64_t total;

	/*
	 * in use, one element, local memory of an mmap on this context's device alone, a
	 * writable destination: one word a side
	 */
	if (doca_unlikely(s == NULL || d == NULL || (s->fast | ODMA_BUF_FAST_DST) != want ||
	                  d->fast != want))
		return false;
	total = s->data_len;
	/* total - 1 wraps for an empty source, which the full pass rejects */
	if (doca_unlikely(total - 1 >= max_bytes || total > odma_buf_room(d)))
		return false;
	c->total = total;
	c->mover = odma_copy_movers[ODMA_MEM_LOCAL];
	c->batch = false;
	c->plain = true;
	c->async = false;
	c->split_at = (total / 2) & ~(uint64_t)4095;
	return true;
}

/*
 * The limit checks alone (list lengths, source size), for a task being allocated with
 * buffers; either list may be NULL. DOCA_SUCCESS or DOCA_ERROR_INVALID_VALUE.
 */
doca_error_t odma_copy_check_limits(const struct odma_dev_caps *caps, const struct doca_buf *src,
                                    const struct doca_buf *dst);

/*
 * Moves bytes [@off, @off + @len) of a validated copy (any thread; two threads may move
 * disjoint ranges of one copy at once). Never faults: a range the process cannot read or
 * write, or remote memory that is gone, returns DOCA_ERROR_IO_FAILED (logged once per
 * cause) and the destination holds some undefined bytes of the range.
 */
doca_error_t odma_copy_move(const struct odma_copy *c, uint64_t off, uint64_t len);

/* The most copies one odma_copy_move_batch call takes. */
#define ODMA_COPY_BATCH_MAX 64

/*
 * Moves the whole copies @c[0..n) (validated, n <= ODMA_COPY_BATCH_MAX), in order, any
 * thread; st[i] gets DOCA_SUCCESS or DOCA_ERROR_IO_FAILED for each. Copies whose mover
 * batches (another process' memory: one process_vm_readv/writev for many copies) share
 * system calls; local copies share one fault guard; a failure fails only the copies whose
 * bytes could not be moved. Returns whether any failed.
 */
bool odma_copy_move_batch(const struct odma_copy *const *c, unsigned int n, doca_error_t *st);

/* Completion of an asynchronous copy: any thread, exactly once. */
typedef void odma_copy_done_fn(void *arg, doca_error_t status);
/* One transport io of an asynchronous copy carried @len bytes (the task timeline). */
typedef void odma_copy_piece_fn(void *arg, uint64_t len);

/*
 * Starts a validated copy with c->async set (over a network transport); never blocks.
 * @piece (NULL: none) runs for each transport io that succeeded, before @done, on the thread
 * that took its answer. DOCA_SUCCESS: @done runs exactly once later, on a transport thread (or
 * before the return), with DOCA_SUCCESS or DOCA_ERROR_IO_FAILED (an unreachable, dead or refusing
 * peer, within ODMA_TRANSPORT_TIMEOUT_MS; or cancelled). @owner (0: none) names who may cancel
 * it. DOCA_ERROR_NO_MEMORY: nothing started, done will not run.
 */
doca_error_t odma_copy_start(const struct odma_copy *c, odma_copy_done_fn *done,
                             odma_copy_piece_fn *piece, void *arg, uint64_t owner);

/*
 * Ends the asynchronous copies of @owner in flight soon, each with DOCA_ERROR_IO_FAILED, without
 * waiting for a peer that stopped answering (odma_tp_io_cancel). Any thread; never blocks.
 */
void odma_copy_cancel(uint64_t owner);

/*
 * The pairwise rule of an async copy: no piece between two remote mmaps.
 * DOCA_SUCCESS or DOCA_ERROR_NOT_SUPPORTED (logged, naming @who).
 */
doca_error_t odma_copy_pairwise(const struct odma_copy *c, const void *who);

/* The list case of odma_copy_grow_dst. */
void odma_copy_grow_dst_list(const struct odma_copy *c);

/*
 * After the whole copy succeeded: grows the destination data_len(s) by the bytes written,
 * never past a window (a destination several tasks shared). Inline for one element: the
 * PE runs it for every completed task.
 */
static inline void odma_copy_grow_dst(const struct odma_copy *c)
{
	struct doca_buf *d = c->dst;

	if (doca_likely(d->next == NULL)) {
		size_t room = odma_buf_room(d);

		d->data_len += room < c->total ? room : (size_t)c->total;
		return;
	}
	odma_copy_grow_dst_list(c);
}

/*
 * Inline progress of network copies (odma_tp_poll): a PE with network copies in flight
 * calls odma_copy_net_poll from doca_pe_progress (never blocks), and odma_copy_net_poll_end
 * when it goes to sleep (doca_pe_request_notification).
 */
void odma_copy_net_poll(void);
void odma_copy_net_poll_end(void);

/*
 * For a library that runs its own engine on the bytes of buffers (DOCA Compress): moves @len
 * bytes between @local (this process) and @remote, an address inside @mmap, an mmap of
 * another process of this kernel (kind ODMA_MEM_PROCESS: doca_mmap_create_from_export of a PCI
 * export); @write: from @local to @remote. The export record is checked first (a revoked
 * export or a gone exporter fails). Returns DOCA_SUCCESS, DOCA_ERROR_NOT_SUPPORTED (@mmap is
 * not of that kind) or DOCA_ERROR_IO_FAILED (logged once per import, as copies are).
 */
DOCA_STABLE doca_error_t doca_priv_process_xfer(const struct doca_mmap *mmap, void *local,
                                                void *remote, size_t len, bool write);

/*
 * doca_priv_process_xfer for any memory of another process a library's engine reaches: an mmap
 * of kind ODMA_MEM_PROCESS goes to it; one of kind ODMA_MEM_NET (an import over a network
 * transport) moves its bytes with transport ios, in pieces, and waits for them: each window
 * of pieces for ODMA_TRANSPORT_TIMEOUT_MS at most, after which its ios are cancelled and
 * waited for (none touches @local once this returns). Blocks the calling thread (not a
 * transport thread). Returns DOCA_SUCCESS, DOCA_ERROR_NOT_SUPPORTED (neither kind; an RDMA
 * import) or DOCA_ERROR_IO_FAILED (a revoked export, a gone exporter, no answer in time:
 * logged once by the transport, or one rate-limited line for a timeout).
 */
DOCA_STABLE doca_error_t doca_priv_remote_xfer(const struct doca_mmap *mmap, void *local,
                                               void *remote, size_t len, bool write);

/*
 * Runs @fn(@arg) under the fault guard of local copies (guard.c), for libraries that compute
 * on program memory (DOCA Compress, DOCA Erasure Coding). DOCA_SUCCESS, or
 * DOCA_ERROR_IO_FAILED (one rate-limited warning naming the fix) when SIGSEGV or SIGBUS hit
 * inside it: memory of a started mmap was unmapped or protected. @fn must not take a lock or
 * allocate (a fault jumps out of it); whatever it writes through @arg survives the jump.
 */
DOCA_STABLE doca_error_t doca_priv_copy_guarded(void (*fn)(void *arg), void *arg);

/* Whether the copy reaches memory of another process (fault injection counts these). */
bool odma_copy_is_remote(const struct odma_copy *c);

/*
 * Installs the handler that turns a fault inside a local copy into a failed move (see
 * guard.c and docs/design.md), unless ODMA_COPY_GUARD=0. Called before the first copy (by
 * doca_pe_create); the work is done once per process. DOCA_SUCCESS, or
 * DOCA_ERROR_INVALID_VALUE when ODMA_COPY_GUARD is neither 0 nor 1 (logged).
 */
doca_error_t odma_copy_init(void);

#endif /* ODMA_CORE_COPY_H_ */
