/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Copy tasks that cross a network transport (copy.async): they never reach an engine. The
 * PE thread starts the copy (odma_copy_start) after the checks every task passes; the
 * transport completes it later on its own thread, which pushes the task onto the PE's
 * async list (lock-free, LIFO) and signals an armed PE; doca_pe_progress takes the list and
 * delivers the tasks like any other. While network copies of a PE are in flight
 * (async_inflight), doca_pe_progress also does the transport's work itself (odma_tp_poll:
 * the replies are taken on the thread that waits for them, not handed over by a thread that
 * had to wake up). The local data path is untouched: one relaxed load per progress call
 * (pe.c) and one predicted branch per submit (task.c).
 */
#include <sched.h>

#include "core/exec/exec_int.h"
#include "core/exec/faults.h"
#include "engines/engine.h"

/* Transport thread: the copy is done (or failed): hand the task to its PE. */
static void async_done(void *arg, doca_error_t st)
{
	struct doca_task *t = arg;
	struct doca_ctx *ctx = t->ctx;
	struct doca_pe *pe = ctx->pe;
	struct doca_task *head;

	/*
	 * Once the task is pushed, the PE thread may deliver it and the program destroy the PE
	 * before odma_pe_signal returns: doca_pe_destroy waits for async_busy to drop.
	 */
	atomic_fetch_add_explicit(&pe->async_busy, 1, memory_order_acquire);
	if (st != DOCA_SUCCESS) {
		odma_task_mark_failed(ctx, t->seq);
		t->status = DOCA_ERROR_IO_FAILED;
	} else {
		/* flushed behind an earlier failure (flush_from = its seq + 1); a stop (0) lets a
		 * transfer that already finished keep its result */
		uint_fast64_t from = atomic_load_explicit(&ctx->flush_from, memory_order_acquire);

		if (from != 0 && t->seq >= from)
			t->status = DOCA_ERROR_IO_FAILED;
	}
	head = atomic_load_explicit(&pe->async_done, memory_order_relaxed);
	do
		t->next = head;
	while (!atomic_compare_exchange_weak_explicit(&pe->async_done, &head, t,
	                                              memory_order_release, memory_order_relaxed));
	odma_pe_signal(pe);
	atomic_fetch_sub_explicit(&pe->async_busy, 1, memory_order_release);
}

/* Transport thread: one io of a traced task's copy answered (the task timeline's wire). */
static void async_piece(void *arg, uint64_t len)
{
	const struct doca_task *t = arg;

	doca_priv_trace_wire(t, t->trace_t0, len);
}

/*
 * PE thread, in doca_pe_progress while network copies are in flight: do the transport's
 * work here (odma_tp_poll) rather than wait for its thread to wake up.
 */
void odma_pe_poll_async(struct doca_pe *pe)
{
	(void)pe;
	odma_copy_net_poll();
}

void doca_priv_pe_net_ios(struct doca_pe *pe, int delta)
{
	if (pe == NULL)
		return;
	if (delta >= 0)
		atomic_fetch_add_explicit(&pe->async_inflight, (unsigned int)delta,
		                          memory_order_relaxed);
	else
		atomic_fetch_sub_explicit(&pe->async_inflight, (unsigned int)-delta,
		                          memory_order_relaxed);
}

void odma_pe_async_quiesce(struct doca_pe *pe)
{
	while (atomic_load_explicit(&pe->async_busy, memory_order_acquire) != 0)
		sched_yield();
}

void odma_task_launch_async(struct doca_ctx *ctx, struct doca_task *t)
{
	doca_error_t r = t->preset;

	t->state = ODMA_TASK_SUBMITTED;
	/* a stop (flush_from 0) or an earlier failure flushes it */
	if (r == DOCA_SUCCESS &&
	    t->seq >= atomic_load_explicit(&ctx->flush_from, memory_order_acquire))
		r = DOCA_ERROR_IO_FAILED;
	/* counted first: the completion may be pushed before odma_copy_start returns */
	atomic_fetch_add_explicit(&ctx->pe->async_inflight, 1, memory_order_relaxed);
	if (doca_unlikely(t->trace_id != 0))
		t->trace_t0 = doca_priv_now_ns();
	if (r == DOCA_SUCCESS &&
	    odma_copy_start(&t->copy, async_done, t->trace_id != 0 ? async_piece : NULL, t,
	                    ctx->run) == DOCA_SUCCESS)
		return;
	atomic_fetch_sub_explicit(&ctx->pe->async_inflight, 1, memory_order_relaxed);
	odma_task_mark_failed(ctx, t->seq);
	t->status = r != DOCA_SUCCESS ? r : DOCA_ERROR_IO_FAILED;
	odma_pe_complete_local(ctx->pe, t);
}

void odma_ctx_cancel_async(struct doca_ctx *ctx)
{
	/* nothing to end unless the PE has network copies in flight (theirs or another's) */
	if (ctx->pe != NULL && atomic_load_explicit(&ctx->pe->async_inflight, memory_order_relaxed))
		odma_copy_cancel(ctx->run);
}

void odma_pe_take_async(struct doca_pe *pe)
{
	struct doca_task *t = atomic_exchange_explicit(&pe->async_done, NULL, memory_order_acquire);
	struct doca_task *rev = NULL;
	unsigned int n = 0;

	while (t != NULL) { /* back into completion order */
		struct doca_task *next = t->next;

		t->next = rev;
		rev = t;
		t = next;
		n++;
	}
	atomic_fetch_sub_explicit(&pe->async_inflight, n, memory_order_relaxed);
	while (rev != NULL) {
		struct doca_task *next = rev->next;

		odma_task_list_push(&pe->done, rev);
		rev = next;
	}
}
