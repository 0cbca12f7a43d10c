/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The local row of a sync event (se_local_ops): the value lives in this kernel, in the
 * event's shared page (se_shared.c) or in program memory. Every event the program created
 * runs on it, and so does an import of an exporter in our kernel and PID namespace. Updates
 * are atomics on the value followed by a wake-up; a blocking wait spins a little, then
 * sleeps on the page's futex; a context's waiting tasks ask to be woken through a slot of
 * the page, and an importer's context also watches the exporter's pidfd.
 */
#include <errno.h>
#include <sched.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "core/log/log.h"
#include "core/sync_event/se_int.h"

ODMA_LOG_REGISTER(DOCA_SYNC_EVENT)

#define SPIN_ITERS 2000                /* wait_*: busy checks before sleeping */
#define YIELD_ITERS 32                 /* wait_*_yield: sched_yield rounds before sleeping */
#define SLEEP_USER_NS (1000 * 1000ull) /* value in program memory: re-check every 1 ms */
/* a page another process maps: re-check every 100 ms (exporter liveness, suppressed wakes) */
#define SLEEP_SHARED_NS (100 * 1000 * 1000ull)
/* a context's waits on such a page: re-checked every second (an armed bit can be cleared) */
#define RECHECK_SHARED_NS (1000 * 1000 * 1000ull)

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

/* A set is a swap, as over the network; an add wraps modulo 2^64. */
static doca_error_t local_access(struct doca_sync_event *se, enum odma_tp_atomic_op op,
                                 uint64_t operand, uint64_t *old)
{
	if (op == ODMA_TP_AT_READ) {
		*old = se_load(se);
		return DOCA_SUCCESS;
	}
	*old = op == ODMA_TP_AT_SWAP ? __atomic_exchange_n(se->value, operand, __ATOMIC_SEQ_CST)
	                             : __atomic_fetch_add(se->value, operand, __ATOMIC_SEQ_CST);
	se_notify(se);
	return DOCA_SUCCESS;
}

/*
 * Whether another process may map the page: then it can also zero the words that decide
 * whether an update wakes anyone (the sleeper count, the armed bitmap), and a waiter of ours
 * must not count on being woken.
 */
static bool local_shared(const struct doca_sync_event *se)
{
	return se->from_export || __atomic_load_n(&se->exports, __ATOMIC_SEQ_CST) != NULL;
}

/* How long a blocked wait sleeps before it looks again (0: until woken). */
static uint64_t local_sleep_ns(const struct doca_sync_event *se)
{
	return se->user_addr != NULL ? SLEEP_USER_NS : local_shared(se) ? SLEEP_SHARED_NS : 0;
}

/*
 * Spins (or yields) a little, then sleeps on the page's futex until an update bumps it. On a
 * page another process maps, it wakes every 100 ms: an importer to notice an exporter that
 * died, either side to see an update whose wake-up the other zeroed; an event in program
 * memory every 1 ms to notice direct writes. Whether the page is shared is asked before each
 * sleep: an export while a thread waits wakes it (se_notify) to sleep shorter.
 */
static doca_error_t local_wait(struct doca_sync_event *se, enum se_task_type type, uint64_t val,
                               uint64_t mask, bool yield)
{
	struct se_page *pg = se->page;

	for (unsigned int i = 0;; i++) {
		uint32_t seq;

		if (se_cond(type, se_load(se), val, mask))
			return DOCA_SUCCESS;
		if (i < (yield ? YIELD_ITERS : SPIN_ITERS)) {
			if (yield)
				sched_yield();
			else
				cpu_relax();
			continue;
		}
		if (se_peer_gone(se, true))
			return DOCA_ERROR_CONNECTION_ABORTED;
		seq = __atomic_load_n(&pg->seq, __ATOMIC_SEQ_CST);
		__atomic_add_fetch(&pg->sleepers, 1, __ATOMIC_SEQ_CST);
		/* revoked is the exporter's to set: on the exporter, a peer forged it */
		if (!se_cond(type, se_load(se), val, mask) &&
		    !(se->from_export && __atomic_load_n(&pg->revoked, __ATOMIC_SEQ_CST)))
			se_futex_wait(&pg->seq, seq, local_sleep_ns(se));
		__atomic_sub_fetch(&pg->sleepers, 1, __ATOMIC_SEQ_CST);
	}
}

/* ---- the context ---- */

/* Completes the pending waits the value meets now (all with @fail), then disarms if none. */
static unsigned int local_scan(struct doca_sync_event *se, doca_error_t fail)
{
	unsigned int n =
	        se_pending_scan(se, fail, fail == DOCA_SUCCESS && se->value ? se_load(se) : 0);

	if (se->pending == NULL)
		se_slot_disarm(se);
	return n;
}

/* Stops watching the exporter's pidfd (a no-op when not watched). */
static void local_unwatch_peer(struct doca_sync_event *se)
{
	if (!se->pidfd_watched)
		return;
	(void)doca_priv_pe_watch(se->ctx.pe, se->peer_pidfd, 0);
	se->pidfd_watched = false;
}

/* A wait that does not hold yet: pending, with the PE's wake-up armed before the re-check. */
static void local_wait_park(struct doca_sync_event *se, struct se_task *t)
{
	se_pending_push(se, t);
	if (se->slot < 0)
		(void)se_slot_claim(se, se->ctx.pe->efd);
	se_slot_arm(se);
	(void)local_scan(se, DOCA_SUCCESS);
}

/* Gets and updates complete at once (their callbacks at the next progress). */
static doca_error_t local_submit(struct doca_sync_event *se, struct se_task *t)
{
	uint64_t v = 0;
	doca_error_t r;

	if (t->type < SE_T_WAIT_EQ) {
		r = se_do(se, se_task_op(t), t->val, &v);
		se_task_done(t, r, v);
	} else if (se_cond(t->type, se_load(se), t->val, t->mask))
		odma_task_complete(&t->base, DOCA_SUCCESS);
	else if (se_peer_gone(se, false))
		odma_task_complete(&t->base, DOCA_ERROR_CONNECTION_ABORTED);
	else
		local_wait_park(se, t);
	return DOCA_SUCCESS;
}

static bool local_progress(struct doca_sync_event *se)
{
	unsigned int n;

	if (se->pending == NULL)
		return false;
	if (se_slot_fired(se)) {
		uint64_t v;

		/* our wake-up was written into the PE's eventfd: take it back out */
		if (read(se->ctx.pe->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			ODMA_DBG("eventfd read failed: %d", errno);
	}
	se_slot_arm(se);
	n = local_scan(se, DOCA_SUCCESS);
	if (se->pending != NULL && se_peer_gone(se, false))
		n += local_scan(se, DOCA_ERROR_CONNECTION_ABORTED);
	if (se->pending == NULL || se->peer_gone)
		local_unwatch_peer(se); /* a dead exporter's pidfd stays readable */
	return n != 0;
}

/*
 * A waiter is woken by the PE's eventfd (whoever changes the value writes it) or, on an
 * imported event, by the exporter's exit: its pidfd is watched while waits are pending
 * (without a pidfd, the next liveness check is the deadline). On a page another process maps,
 * which can clear our armed bit, the waits are re-checked every second as well.
 */
static uint64_t local_arm(struct doca_sync_event *se)
{
	uint64_t recheck;

	if (se->pending == NULL || se->ctx.state == DOCA_CTX_STATE_IDLE) {
		local_unwatch_peer(se);
		return ODMA_WAKE_NEVER;
	}
	recheck = local_shared(se) ? doca_priv_now_ns() + RECHECK_SHARED_NS : ODMA_WAKE_NEVER;
	if (!se->from_export)
		return recheck;
	if (se_peer_gone(se, true))
		return 0; /* the next progress fails the waits */
	if (se->peer_pidfd < 0)
		return se->next_live_check_ns;
	if (!se->pidfd_watched)
		se->pidfd_watched =
		        doca_priv_pe_watch(se->ctx.pe, se->peer_pidfd, EPOLLIN) == DOCA_SUCCESS;
	return se->pidfd_watched ? recheck : se->next_live_check_ns;
}

static void local_stop(struct doca_sync_event *se)
{
	local_unwatch_peer(se);
	se_slot_release(se);
}

const struct se_ops se_local_ops = {
	.name = "shared page",
	.import = se_page_import,
	.release = se_page_unmap,
	.gone = se_page_gone,
	.access = local_access,
	.wait = local_wait,
	.submit = local_submit,
	.progress = local_progress,
	.arm = local_arm,
	.stop = local_stop,
};
