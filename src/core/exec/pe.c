/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The progress engine: runs completion callbacks and state transitions, and signals
 * an eventfd for event-driven programs. Callbacks run only here, on the PE's thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "core/exec/exec_int.h"
#include "core/exec/faults.h"
#include "core/exec/trace.h"
#include "core/log/log.h"
#include "engines/engine.h"

ODMA_LOG_REGISTER(ODMA_PE)

doca_error_t doca_pe_create(struct doca_pe **pe)
{
	const struct odma_engine_ops *engine;
	struct doca_pe *p;
	doca_error_t r;

	ODMA_CHECK_ARG(pe != NULL, "pe must not be NULL");
	if (odma_faults_init() != DOCA_SUCCESS || odma_trace_init() != DOCA_SUCCESS)
		return DOCA_ERROR_INVALID_VALUE;
	engine = odma_engine_select();
	if (engine == NULL)
		return DOCA_ERROR_INITIALIZATION;
	if (odma_copy_init() != DOCA_SUCCESS)
		return DOCA_ERROR_INVALID_VALUE;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return DOCA_ERROR_NO_MEMORY;
	p->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (p->efd < 0) {
		ODMA_ERR("doca_pe_create: eventfd failed: %s", strerror(errno));
		free(p);
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	r = odma_pe_wake_init(p);
	if (r != DOCA_SUCCESS) {
		close(p->efd);
		free(p);
		return r;
	}
	p->engine = engine;
	p->event_mode = DOCA_PE_EVENT_MODE_PROGRESS_ALL;
	atomic_init(&p->armed, 0);
	atomic_init(&p->signalled, false);
	r = engine->pe_init(p, &p->engine_pe);
	if (r != DOCA_SUCCESS) {
		odma_pe_wake_fini(p);
		close(p->efd);
		free(p);
		return r;
	}
	ODMA_DBG("progress engine %p created (engine %s)", (void *)p, engine->name);
	if (odma_trace_enabled)
		odma_trace_pe_born();
	*pe = p;
	return DOCA_SUCCESS;
}

doca_error_t doca_pe_destroy(struct doca_pe *pe)
{
	ODMA_CHECK_ARG(pe != NULL, "pe must not be NULL");
	if (pe->in_progress) {
		/* doca_pe_progress goes on with the PE once the callback returns */
		ODMA_ERR("doca_pe_destroy: progress engine %p is running doca_pe_progress; it was "
		         "called from inside one of its callbacks: destroy it after "
		         "doca_pe_progress returns",
		         (void *)pe);
		return DOCA_ERROR_IN_USE;
	}
	if (pe->num_ctxs != 0) {
		ODMA_ERR("progress engine %p still has %u connected contexts; "
		         "destroy the contexts first",
		         (void *)pe, pe->num_ctxs);
		return DOCA_ERROR_IN_USE;
	}
	if (pe->num_pollers != 0) {
		ODMA_ERR("progress engine %p is still used by %u objects (first: a %s); "
		         "destroy them first",
		         (void *)pe, pe->num_pollers, pe->pollers->name);
		return DOCA_ERROR_IN_USE;
	}
	pe->engine->pe_fini(pe->engine_pe);
	odma_pe_async_quiesce(pe);
	odma_pe_wake_fini(pe);
	close(pe->efd);
	free(pe);
	if (odma_trace_enabled)
		odma_trace_pe_gone();
	return DOCA_SUCCESS;
}

doca_error_t doca_pe_connect_ctx(struct doca_pe *pe, struct doca_ctx *ctx)
{
	ODMA_CHECK_ARG(pe != NULL && ctx != NULL, "pe and ctx must not be NULL");
	if (ctx->state != DOCA_CTX_STATE_IDLE) {
		ODMA_ERR("context %p is %s; connect it to a progress engine while it is IDLE",
		         (void *)ctx, odma_ctx_state_name(ctx->state));
		return DOCA_ERROR_BAD_STATE;
	}
	if (ctx->pe != NULL) {
		ODMA_ERR("context %p is already connected to progress engine %p; "
		         "a context connects once",
		         (void *)ctx, (void *)ctx->pe);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	ctx->pe = pe;
	ctx->fp.submit = pe->engine->submit;
	ctx->fp.doorbell = pe->engine->doorbell;
	ctx->fp.engine_pe = pe->engine_pe;
	ctx->fp.hold = NULL;
	ctx->fp.hold_max = 0;
	if (pe->engine->hold != NULL)
		ctx->fp.hold = pe->engine->hold(pe->engine_pe, &ctx->fp.hold_max);
	if (ctx->fp.hold == NULL)
		ctx->fp.hold_max = 0;
	ctx->pe_next = pe->ctxs;
	pe->ctxs = ctx;
	pe->num_ctxs++;
	pe->ctx_gen++;
	if (ctx->ops->progress != NULL)
		pe->num_hooked++;
	return DOCA_SUCCESS;
}

void odma_pe_disconnect(struct doca_pe *pe, struct doca_ctx *ctx)
{
	for (struct doca_ctx **pp = &pe->ctxs; *pp != NULL; pp = &(*pp)->pe_next) {
		if (*pp == ctx) {
			*pp = ctx->pe_next;
			pe->num_ctxs--;
			pe->ctx_gen++;
			if (ctx->ops->progress != NULL)
				pe->num_hooked--;
			break;
		}
	}
	ctx->pe = NULL;
	memset(&ctx->fp, 0, sizeof(ctx->fp));
}

void odma_pe_poller_add(struct doca_pe *pe, struct odma_pe_poller *p)
{
	p->woken = false;
	p->next = pe->pollers;
	pe->pollers = p;
	pe->num_pollers++;
	pe->poller_gen++;
}

void odma_pe_poller_remove(struct doca_pe *pe, struct odma_pe_poller *p)
{
	for (struct odma_pe_poller **pp = &pe->pollers; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			pe->num_pollers--;
			pe->poller_gen++;
			if (p->woken)
				pe->num_woken--;
			p->woken = false;
			return;
		}
	}
}

void odma_pe_poller_wake(struct doca_pe *pe, struct odma_pe_poller *p)
{
	if (p->woken)
		return;
	p->woken = true;
	pe->num_woken++;
	odma_pe_signal(pe);
}

/*
 * Runs the woken pollers. A poll may run program callbacks that add or remove pollers
 * (destroy a graph); the walk then ends and the next progress goes on.
 */
static bool pe_run_pollers(struct doca_pe *pe)
{
	uint32_t gen = pe->poller_gen;
	bool any = false;

	for (struct odma_pe_poller *p = pe->pollers; p != NULL && pe->num_woken != 0; p = p->next) {
		if (!p->woken)
			continue;
		p->woken = false;
		pe->num_woken--;
		any |= p->poll(p);
		if (pe->poller_gen != gen)
			break;
	}
	return any;
}

static void pe_write_efd(struct doca_pe *pe)
{
	uint64_t one = 1;

	/* EAGAIN means the counter is already non-zero: readable anyway. */
	if (write(pe->efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		ODMA_ERR("progress engine %p: eventfd write failed: %s", (void *)pe,
		         strerror(errno));
	/* after the write: a consumer that sees the flag finds the counter set */
	atomic_store_explicit(&pe->signalled, true, memory_order_release);
}

void odma_pe_signal(struct doca_pe *pe)
{
	/*
	 * Pairs with the seq_cst store of 'armed' in request_notification: either the
	 * arming thread sees our completion, or we see 'armed' set. No lost wake-up.
	 */
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&pe->armed, memory_order_relaxed) == 0)
		return;
	if (atomic_exchange(&pe->armed, 0) != 0)
		pe_write_efd(pe);
}

void odma_pe_held(struct doca_pe *pe)
{
	/* Same thread as request_notification: no fence needed. */
	if (doca_unlikely(atomic_load_explicit(&pe->armed, memory_order_relaxed) != 0))
		odma_pe_signal(pe);
}

void odma_pe_complete_local(struct doca_pe *pe, struct doca_task *task)
{
	odma_task_list_push(&pe->done, task);
	odma_pe_held(pe);
}

/* Runs the program's callback for one finished task. */
static inline __attribute__((always_inline)) void pe_finish(struct doca_pe *pe, struct doca_task *t)
{
	struct doca_ctx *ctx = t->ctx;
	bool ok = t->status == DOCA_SUCCESS;

	(void)pe;
	ctx->inflight--;
	t->state = ODMA_TASK_ALLOCATED;
	if (doca_unlikely(t->free_pending)) {
		/* freed while in flight: no callback; a failure still stops a copy context */
		if (!ok && ctx->ops->submit == NULL && ctx->state == DOCA_CTX_STATE_RUNNING)
			odma_ctx_begin_stop(ctx, false);
		odma_task_release(t);
		return;
	}
	if (ctx->ops->submit == NULL) { /* a copy task */
		if (ok)
			odma_copy_grow_dst(&t->copy);
		else if (ctx->state == DOCA_CTX_STATE_RUNNING) /* as hardware: a failure stops it */
			odma_ctx_begin_stop(ctx, false);
	}
	if (doca_unlikely(t->hook != NULL))
		t->hook(t, ok);
	else
		ctx->ops->complete(t, ok);
}

/*
 * Runs the progress ops of context types that have one. A callback run by one may connect
 * or destroy contexts; the walk then ends, and the next progress call goes on.
 */
static bool pe_run_hooks(struct doca_pe *pe)
{
	uint32_t gen = pe->ctx_gen;
	bool any = false;

	for (struct doca_ctx *ctx = pe->ctxs; ctx != NULL; ctx = ctx->pe_next) {
		if (ctx->ops->progress == NULL || ctx->state == DOCA_CTX_STATE_IDLE)
			continue;
		any |= ctx->ops->progress(ctx);
		if (pe->ctx_gen != gen)
			break;
	}
	return any;
}

static void pe_flush_deferred(struct doca_pe *pe, struct doca_ctx *ctx)
{
	struct doca_task *t = ctx->deferred.head;

	ctx->deferred.head = ctx->deferred.tail = NULL;
	while (t != NULL) {
		struct doca_task *next = t->next;

		pe_finish(pe, t);
		t = next;
	}
}

/*
 * OPTIMIZE_REPORTS tasks wait for the next reported task of their context: one submitted
 * after them. Completions of unordered tasks may come out of submission order, so a task
 * that completes after a later reported task was delivered is reported at once (else it
 * would wait for a report that may never come).
 */
static void __attribute__((noinline)) pe_deliver_slow(struct doca_pe *pe, struct doca_task *t)
{
	struct doca_ctx *ctx = t->ctx;

	if (doca_unlikely(t->submit_flags & DOCA_TASK_SUBMIT_FLAG_OPTIMIZE_REPORTS)) {
		if (t->status == DOCA_SUCCESS && ctx->state == DOCA_CTX_STATE_RUNNING &&
		    t->seq >= ctx->reported_upto) {
			odma_task_list_push(&ctx->deferred, t);
			return;
		}
	} else if (t->seq >= ctx->reported_upto) {
		ctx->reported_upto = t->seq + 1;
	}
	if (doca_unlikely(ctx->deferred.head != NULL))
		pe_flush_deferred(pe, ctx);
	pe_finish(pe, t);
}

/*
 * One finished task. The common case inline: a copy task that succeeded, reported at once
 * (no OPTIMIZE_REPORTS task since the start, so nothing deferred), not freed in flight, no hook:
 * the destination grows and the context type's callback runs. Everything else: pe_deliver_slow.
 */
static inline __attribute__((always_inline)) void pe_deliver(struct doca_pe *pe,
                                                             struct doca_task *t)
{
	struct doca_ctx *ctx = t->ctx;
	void (*complete)(struct doca_task *, bool) = ctx->copy_complete;

	/* a context that never had an OPTIMIZE_REPORTS task needs no report bookkeeping */
	if (doca_likely(complete != NULL && t->status == DOCA_SUCCESS && !ctx->track_reports &&
	                !t->free_pending && t->hook == NULL)) {
		ctx->inflight--;
		t->state = ODMA_TASK_ALLOCATED;
		odma_copy_grow_dst(&t->copy);
		complete(t, true);
		return;
	}
	pe_deliver_slow(pe, t);
}

/*
 * Finishes the stop of one context; returns whether a callback ran (after which the
 * caller must not trust its list position: a callback may destroy contexts).
 */
static bool pe_service_stopping(struct doca_pe *pe, struct doca_ctx *ctx)
{
	bool ran = false;

	if (ctx->deferred.head != NULL) {
		pe_flush_deferred(pe, ctx);
		ran = true;
	}
	if (ctx->state == DOCA_CTX_STATE_STOPPING && odma_ctx_ready_for_idle(ctx)) {
		odma_ctx_set_state(ctx, DOCA_CTX_STATE_IDLE);
		ran = true;
	}
	return ran;
}

/* Launches held tasks and finishes stops; returns whether anything changed. */
static bool pe_service_contexts(struct doca_pe *pe)
{
	bool any = false, held = false;
	struct doca_ctx *ctx;

restart:
	for (ctx = pe->ctxs; ctx != NULL; ctx = ctx->pe_next) {
		if (ctx->held.head != NULL)
			held |= !odma_ctx_launch_held(ctx);
		if (ctx->state == DOCA_CTX_STATE_STOPPING && pe_service_stopping(pe, ctx)) {
			any = true;
			held = false;
			goto restart; /* each pass ends a stop, so this terminates */
		}
	}
	pe->maybe_held = held;
	return any;
}

static void pe_consume_signal(struct doca_pe *pe)
{
	uint64_t v;

	/*
	 * One read resets an eventfd counter (it is not in semaphore mode). The exchange is an
	 * acquire: it pairs with the release in pe_write_efd, so the read below comes after the
	 * write whose flag it took; relaxed, a weakly ordered CPU (aarch64) could read first,
	 * find nothing and leave the count for one spurious wake-up.
	 */
	if (atomic_load_explicit(&pe->signalled, memory_order_relaxed) &&
	    atomic_exchange_explicit(&pe->signalled, false, memory_order_acquire) &&
	    read(pe->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		ODMA_ERR("progress engine %p: eventfd read failed: %s", (void *)pe,
		         strerror(errno));
}

#define PE_POLL_BATCH ODMA_TASK_STAGE_MAX

/*
 * Takes the engine's finished tasks: up to PE_POLL_BATCH into @batch (delivered from there,
 * after the PE's list), and, when there are more, everything onto the PE's list. Returns how
 * many are in @batch.
 */
static unsigned int pe_poll_engine(struct doca_pe *pe, struct doca_task **batch)
{
	unsigned int n = pe->engine->poll(pe->engine_pe, batch, PE_POLL_BATCH);

	if (doca_likely(n < PE_POLL_BATCH))
		return n;
	do {
		for (unsigned int i = 0; i < n; i++)
			odma_task_list_push(&pe->done, batch[i]);
		n = pe->engine->poll(pe->engine_pe, batch, PE_POLL_BATCH);
	} while (n == PE_POLL_BATCH);
	for (unsigned int i = 0; i < n; i++)
		odma_task_list_push(&pe->done, batch[i]);
	return 0;
}

uint8_t doca_pe_progress(struct doca_pe *pe)
{
	struct doca_task *t, *next, *batch[PE_POLL_BATCH];
	unsigned int n;
	bool any = false;

	if (doca_unlikely(pe == NULL || pe->in_progress)) {
		if (pe != NULL)
			ODMA_ERR("doca_pe_progress called from inside a callback of PE %p; return "
			         "from the callback instead",
			         (void *)pe);
		return 0;
	}
	pe->in_progress = true;
	if (pe->event_mode == DOCA_PE_EVENT_MODE_PROGRESS_ALL)
		pe_consume_signal(pe);
	if (doca_unlikely(pe->timer_ns != 0))
		odma_pe_wake_progress(pe);
	if (doca_unlikely(pe->maybe_held))
		any = pe_service_contexts(pe); /* it may end a stop: a state callback ran */
	/*
	 * One load when no network copy or RDMA io is in flight (a pushed task is still
	 * counted). The transport's work first: the answers it takes complete their tasks in
	 * this call (the contexts' progress ops run next), not in the program's next one.
	 */
	if (doca_unlikely(atomic_load_explicit(&pe->async_inflight, memory_order_relaxed) != 0)) {
		odma_pe_poll_async(pe);
		if (atomic_load_explicit(&pe->async_done, memory_order_relaxed) != NULL)
			odma_pe_take_async(pe);
	}
	if (doca_unlikely(pe->num_hooked != 0))
		any |= pe_run_hooks(pe);
	n = pe_poll_engine(pe, batch);
	/* Take the batch first: callbacks may submit, and those complete next time. */
	t = pe->done.head;
	pe->done.head = pe->done.tail = NULL;
	for (; t != NULL; t = next) {
		next = t->next;
		pe_deliver(pe, t);
		any = true;
	}
	for (unsigned int i = 0; i < n; i++) /* then the engine's, in the order it gave them */
		pe_deliver(pe, batch[i]);
	any |= n != 0;
	if (doca_unlikely(pe->num_woken != 0))
		any |= pe_run_pollers(pe);
	if (doca_unlikely(pe->num_stopping != 0 || pe->maybe_held))
		any |= pe_service_contexts(pe);
	pe->in_progress = false;
	return any;
}

ODMA_GETTER(doca_pe_get_notification_handle, const struct doca_pe, pe, doca_notification_handle_t,
            handle, pe->nfd)

doca_error_t doca_pe_set_notification_handle(struct doca_pe *pe, doca_notification_handle_t handle,
                                             union doca_data completion_key)
{
	(void)handle;
	(void)completion_key;
	ODMA_CHECK_ARG(pe != NULL, "pe must not be NULL");
	ODMA_ERR("doca_pe_set_notification_handle is for Windows; on Linux use "
	         "doca_pe_get_notification_handle");
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_pe_clear_notification(struct doca_pe *pe, doca_notification_handle_t handle)
{
	ODMA_CHECK_ARG(pe != NULL, "pe must not be NULL");
	/* On Linux the handle argument is not used (DOCA's own samples pass 0). */
	if (handle != pe->nfd)
		ODMA_DBG("doca_pe_clear_notification: "
		         "handle %d is not PE %p's (%d); ignored on Linux",
		         handle, (void *)pe, pe->nfd);
	atomic_store_explicit(&pe->signalled, true, memory_order_relaxed);
	pe_consume_signal(pe);
	return DOCA_SUCCESS;
}

/* Whether doca_pe_progress would do something now. */
static bool pe_has_work(struct doca_pe *pe)
{
	if (pe->done.head != NULL || pe->maybe_held || pe->num_woken != 0 ||
	    atomic_load(&pe->async_done) != NULL)
		return true;
	if (pe->engine->pending(pe->engine_pe))
		return true;
	for (struct doca_ctx *c = pe->ctxs; pe->num_stopping && c != NULL; c = c->pe_next)
		if (c->state == DOCA_CTX_STATE_STOPPING &&
		    (odma_ctx_ready_for_idle(c) || c->deferred.head))
			return true;
	/* contexts with their own sources: doorbells armed, descriptors watched, timer set */
	return doca_unlikely(pe->num_hooked != 0) && odma_pe_wake_arm(pe) == 0;
}

doca_error_t doca_pe_request_notification(struct doca_pe *pe)
{
	ODMA_CHECK_ARG(pe != NULL, "pe must not be NULL");
	pe->engine->arm(pe->engine_pe); /* bounded: keeps the engine ready for the next submit */
	if (doca_unlikely(atomic_load_explicit(&pe->async_inflight, memory_order_relaxed) != 0))
		odma_copy_net_poll_end(); /* this thread stops polling: the transport's wakes */
	atomic_store(&pe->armed, 1);
	atomic_thread_fence(memory_order_seq_cst); /* pairs with the fence in odma_pe_signal */
	if (pe_has_work(pe) && atomic_exchange(&pe->armed, 0) != 0)
		pe_write_efd(pe);
	return DOCA_SUCCESS;
}

doca_error_t doca_pe_get_num_inflight_tasks(const struct doca_pe *pe, size_t *num_inflight_tasks)
{
	ODMA_CHECK_ARG(pe != NULL && num_inflight_tasks != NULL,
	               "pe and num_inflight_tasks must not be NULL");
	*num_inflight_tasks = 0;
	/* every task in flight is counted by its context (and a context by one PE) */
	for (const struct doca_ctx *c = pe->ctxs; c != NULL; c = c->pe_next)
		*num_inflight_tasks += c->inflight;
	return DOCA_SUCCESS;
}

doca_error_t doca_pe_set_event_mode(struct doca_pe *pe, enum doca_pe_event_mode mode)
{
	ODMA_CHECK_ARG(pe != NULL, "pe must not be NULL");
	ODMA_CHECK_ARG(mode == DOCA_PE_EVENT_MODE_PROGRESS_SELECTIVE ||
	                       mode == DOCA_PE_EVENT_MODE_PROGRESS_ALL,
	               "unknown event mode %d", (int)mode);
	pe->event_mode = mode;
	return DOCA_SUCCESS;
}
