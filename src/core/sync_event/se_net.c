/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Sync events across kernels and PID namespaces: over core/transport's network transport
 * (UCX) instead of the shared page.
 *
 * Exporter: when exports offer a network reach (ODMA_FABRIC set, or ODMA_TRANSPORT=ucx),
 * each export registers a transport region for the event's 8-byte value (read, write and
 * atomic rights) and hands out a version-2 blob carrying the UCX worker address and the
 * region's id, key and generation. The UCX service thread then serves reads, fetch-adds
 * and swaps of the value (odma_tp_region_atomic: checked, and applied atomically at the
 * exporter, so adds of both sides and set-vs-add races are exact), and wakes the event's
 * local waiters after each change (the region's on_update). Stopping or destroying the
 * event revokes its regions before its page is unmapped: later requests are refused.
 *
 * Importer: a version-2 blob whose exporter shares neither our kernel nor our PID
 * namespace (or ODMA_TRANSPORT=ucx) is attached over UCX and the exporter must confirm the
 * blob byte for byte; the handle then runs on se_net_ops. Every get is a remote atomic
 * read, every set a swap, every add a fetch-add: the synchronous calls block their caller
 * for one round trip (bounded by ODMA_TRANSPORT_TIMEOUT_MS); a context's tasks start
 * asynchronous requests whose completions are queued here and taken back by its progress.
 * A wait reads the value once, then watches it (ODMA_TP_AT_WATCH): the exporter holds the
 * request until the value differs from the one the wait saw, answering at once on a change it
 * makes or applies (se_notify kicks the transport), else after ODMA_SE_WATCH_MS (5 ms: a
 * change a third process makes on the exporter's shared page is seen within it); a blocking
 * wait sleeps in its watch, pending wait tasks keep one watch in flight, whose completion
 * wakes their PE. A failed access (exporter gone, link down, revoked) fails the handle for
 * good: CONNECTION_ABORTED, as the shared-page row reports an exporter that went away.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/config/config.h"
#include "core/log/log.h"
#include "core/sync_event/se_int.h"
#include "util/queue.h"

ODMA_LOG_REGISTER(DOCA_SYNC_EVENT)

#define NET_PERMS (ODMA_TP_READ | ODMA_TP_WRITE | ODMA_TP_ATOMIC)

/*
 * An asynchronous remote operation of a context: a task's get / notify-set / notify-add, or
 * (@task NULL) a read or a watch of the value for the pending waits. Its completion, on the
 * transport thread, queues it on done and signals the PE.
 */
struct se_net_req {
	struct odma_tp_io io;
	struct se_net_req *next;
	struct doca_sync_event *se;
	struct se_task *task;
	doca_error_t status; /* DOCA_SUCCESS, or the transport's failure */
	uint64_t val;        /* the value read, or the value before a swap or add */
};

/* An importer's attachment (se->net): no page, the value is remote. */
struct se_net {
	struct odma_tp_remote rm;
	uint64_t addr;           /* the value's address in the exporter */
	uint64_t watch_ms;       /* ODMA_SE_WATCH_MS at the import */
	pthread_mutex_t lock;    /* done (the transport thread appends) */
	struct se_net_req *done; /* completed requests, oldest first (lock) */
	struct se_net_req *done_tail;
	uint32_t ndone; /* entries of done (atomic: the arm op peeks) */
	/* pending waits (PE thread): a read of the value, a watch of it, in flight */
	bool reading, watching;
	uint64_t seen; /* the value the last read or watch gave */
	/* the value the last synchronous access left (atomic: any thread), when last_ok */
	uint64_t last;
	bool last_ok;
};

/* Requests that watched a value (this process; white box: doca_priv_se_net_watches). */
static atomic_uint_fast64_t net_watches, net_watch_changes;

void doca_priv_se_net_watches(uint64_t *sent, uint64_t *changed)
{
	*sent = atomic_load(&net_watches);
	*changed = atomic_load(&net_watch_changes);
}

/* ---- exporter ---- */

/* A remote atomic changed the value (UCX service thread, registry lock held). */
static void se_net_updated(void *arg)
{
	struct doca_sync_event *se = arg;

	se_notify(se); /* the page stays mapped: it is unmapped after the region's revocation */
}

doca_error_t se_net_export(struct doca_sync_event *se, struct odma_se_blob *b, struct se_export *e)
{
	struct odma_tp_reach r;
	struct odma_tp_region *reg;
	doca_error_t err;

	if (!odma_tp_net_wanted()) {
		e->len = odma_se_blob_encode(b, e->blob);
		return DOCA_SUCCESS;
	}
	if (odma_tp_config_check() != DOCA_SUCCESS)
		return DOCA_ERROR_INVALID_VALUE; /* logged, naming the variable */
	memset(&r, 0, sizeof(r));
	err = odma_tp_reach_self(&r);
	if (err != DOCA_SUCCESS) {
		ODMA_ERR("doca_sync_event_export_to_remote_pci: the network transport cannot start "
		         "(%s); unset ODMA_FABRIC/ODMA_TRANSPORT for a one-kernel export",
		         doca_error_get_name(err));
		return err;
	}
	if (r.net_len == 0 || r.net_len > ODMA_SE_ADDR_MAX) { /* no UCX here: logged */
		e->len = odma_se_blob_encode(b, e->blob);
		return DOCA_SUCCESS;
	}
	reg = odma_tp_region_add((uint64_t)(uintptr_t)se->value, sizeof(uint64_t), NET_PERMS);
	if (reg == NULL)
		return DOCA_ERROR_NO_MEMORY;
	reg->on_update = se_net_updated;
	reg->update_arg = se;
	b->version = ODMA_SE_BLOB_VERSION_NET;
	b->pidns = r.pidns;
	memcpy(b->boot_id, r.boot_id, sizeof(b->boot_id));
	b->region_id = reg->id;
	b->generation = reg->hdr.generation;
	memcpy(b->rkey, reg->hdr.key, sizeof(b->rkey));
	b->value_addr = (uint64_t)(uintptr_t)se->value;
	b->net_len = r.net_len;
	memcpy(b->net_addr, r.net_addr, r.net_len);
	e->len = odma_se_blob_encode(b, e->blob);
	/* the exporter confirms exactly these bytes to an importer that attaches */
	odma_tp_region_publish(reg, e->blob, e->len);
	e->region = reg;
	__atomic_store_n(&se->net_exported, true, __ATOMIC_SEQ_CST); /* se_notify kicks watches */
	return DOCA_SUCCESS;
}

void se_net_changed(struct doca_sync_event *se)
{
	if (__atomic_load_n(&se->net_exported, __ATOMIC_SEQ_CST))
		odma_tp_watch_kick();
}

void se_net_revoke(struct doca_sync_event *se)
{
	for (struct se_export *e = se->exports; e != NULL; e = e->next) {
		if (e->region == NULL)
			continue;
		/* waits for a remote atomic being applied (registry lock): then none touches it */
		odma_tp_region_revoke(e->region);
		e->region = NULL;
	}
}

/* ---- importer ---- */

/* Fills the transport's view of the exporter named by a version-2 blob. */
static void net_reach_of(const struct odma_se_blob *b, struct odma_tp_reach *r)
{
	memset(r, 0, sizeof(*r));
	r->pidns = b->pidns;
	memcpy(r->boot_id, b->boot_id, sizeof(r->boot_id));
	r->pid = b->pid;
	r->start_time = b->start_time;
	r->addr = b->value_addr;
	r->len = sizeof(uint64_t);
	r->perms = NET_PERMS;
	r->region_id = b->region_id;
	memcpy(r->key, b->rkey, sizeof(r->key));
	r->generation = b->generation;
	r->net_len = b->net_len;
	memcpy(r->net_addr, b->net_addr, b->net_len);
}

/* Attaches; the exporter must confirm the blob (@data, @sz) byte for byte. */
static doca_error_t net_attach(const struct odma_tp_ops *ops, struct odma_tp_reach *r,
                               struct se_net *n, const uint8_t *data, size_t sz, const char **why)
{
	uint8_t *issued = malloc(ODMA_TP_ISSUED_MAX);
	size_t ilen = 0;
	doca_error_t err;

	if (issued == NULL)
		return DOCA_ERROR_NO_MEMORY;
	err = odma_tp_attach(ops, r, &n->rm, issued, &ilen); /* logs a failure, with the fix */
	if (err == DOCA_SUCCESS && (ilen != sz || memcmp(issued, data, sz) != 0)) {
		odma_tp_detach(&n->rm);
		*why = "the exporter did not confirm this export byte for byte (a stale or forged "
		       "export); export again";
		err = DOCA_ERROR_INVALID_VALUE;
	}
	free(issued);
	return err;
}

/* Takes a version-2 blob whose exporter shares neither our kernel nor our PID namespace. */
static doca_error_t net_import(struct doca_sync_event *se, const struct odma_se_blob *b,
                               const uint8_t *data, size_t sz, bool *taken, const char **why)
{
	const struct odma_tp_ops *ops;
	struct odma_tp_reach r;
	const char *cwhy = NULL;
	struct se_net *n;
	uint64_t watch_ms;
	doca_error_t err;

	if (b->version != ODMA_SE_BLOB_VERSION_NET)
		return DOCA_SUCCESS; /* a one-kernel export: the shared page */
	if (odma_tp_config_check() != DOCA_SUCCESS)
		return DOCA_ERROR_INVALID_VALUE; /* logged, naming the variable */
	net_reach_of(b, &r);
	ops = odma_tp_choose(&r, &cwhy);
	if (ops == NULL) {
		*why = cwhy;
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (ops->same_kernel)
		return DOCA_SUCCESS; /* same kernel and PID namespace: the shared page */
	if (odma_config_size("ODMA_SE_WATCH_MS", 5, &watch_ms) != DOCA_SUCCESS)
		return DOCA_ERROR_INVALID_VALUE; /* logged, naming the variable */
	n = calloc(1, sizeof(*n));
	if (n == NULL)
		return DOCA_ERROR_NO_MEMORY;
	n->watch_ms = watch_ms;
	err = net_attach(ops, &r, n, data, sz, why);
	if (err != DOCA_SUCCESS) {
		free(n);
		return err;
	}
	pthread_mutex_init(&n->lock, NULL);
	n->addr = b->value_addr;
	se->net = n;
	se->peer_pid = (pid_t)b->pid;
	se->peer_start = b->start_time;
	*taken = true;
	return DOCA_SUCCESS;
}

static void net_release(struct doca_sync_event *se)
{
	struct se_net *n = se->net;

	if (n == NULL)
		return;
	odma_tp_detach(&n->rm); /* the context is IDLE: nothing of it is in flight */
	while (n->done != NULL) {
		struct se_net_req *q = n->done;

		n->done = q->next;
		free(q);
	}
	pthread_mutex_destroy(&n->lock);
	free(n);
	se->net = NULL;
}

/* A failed access: the exporter refused it or did not answer. */
static void net_gone(struct doca_sync_event *se)
{
	se_mark_gone(se, "refused or did not answer an access over the network transport "
	                 "(it stopped or destroyed the event, exited, or the link is down; "
	                 "its pid is that of its own namespace)");
}

/* Only a failed access tells (it marks the handle gone). */
static bool net_peer_gone(struct doca_sync_event *se, bool now)
{
	(void)now;
	return __atomic_load_n(&se->peer_gone, __ATOMIC_SEQ_CST);
}

/* A request for the value: @op (ODMA_TP_AT_*) with @operand, done(io, status) later. */
static void net_io_init(struct odma_tp_io *io, struct doca_sync_event *se,
                        enum odma_tp_atomic_op op, uint64_t operand, uint64_t *out,
                        void (*done)(struct odma_tp_io *io, doca_error_t status), void *arg)
{
	memset(io, 0, sizeof(*io));
	io->remote = &se->net->rm;
	io->local = out;
	io->remote_addr = se->net->addr;
	io->len = sizeof(uint64_t);
	io->atomic = (uint8_t)op;
	io->operand = operand;
	io->compare = op == ODMA_TP_AT_WATCH ? se->net->watch_ms : 0;
	if (op == ODMA_TP_AT_WATCH)
		atomic_fetch_add(&net_watches, 1);
	io->done = done;
	io->arg = arg;
}

struct net_wait {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
	doca_error_t status;
	uint64_t val;
};

static void net_sync_done(struct odma_tp_io *io, doca_error_t status)
{
	struct net_wait *w = io->arg;

	pthread_mutex_lock(&w->lock);
	w->status = status;
	w->done = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

/*
 * One blocking remote atomic (bounded by ODMA_TRANSPORT_TIMEOUT_MS): a set is a swap at the
 * exporter, atomic against every add. CONNECTION_ABORTED.
 */
static doca_error_t net_access(struct doca_sync_event *se, enum odma_tp_atomic_op op,
                               uint64_t operand, uint64_t *old)
{
	struct net_wait w = { .status = DOCA_ERROR_IO_FAILED };
	struct odma_tp_io io;
	doca_error_t err;

	if (net_peer_gone(se, false))
		return DOCA_ERROR_CONNECTION_ABORTED;
	net_io_init(&io, se, op, operand, &w.val, net_sync_done, &w);
	pthread_mutex_init(&w.lock, NULL);
	pthread_cond_init(&w.cond, NULL);
	err = odma_tp_io_start(&io);
	if (err == DOCA_SUCCESS) {
		pthread_mutex_lock(&w.lock);
		while (!w.done) /* bounded: the transport fails it within its timeout */
			pthread_cond_wait(&w.cond, &w.lock);
		pthread_mutex_unlock(&w.lock);
		err = w.status;
	}
	pthread_cond_destroy(&w.cond);
	pthread_mutex_destroy(&w.lock);
	if (err != DOCA_SUCCESS) {
		net_gone(se);
		return DOCA_ERROR_CONNECTION_ABORTED;
	}
	*old = w.val;
	/* the value the access left (a hint for the next wait: a watch checks it at the exporter)
	 */
	__atomic_store_n(&se->net->last,
	                 op == ODMA_TP_AT_SWAP   ? operand
	                 : op == ODMA_TP_AT_FADD ? w.val + operand
	                                         : w.val,
	                 __ATOMIC_RELAXED);
	__atomic_store_n(&se->net->last_ok, op != ODMA_TP_AT_CAS, __ATOMIC_RELAXED);
	return DOCA_SUCCESS;
}

/* A watch answered with @v after the importer saw @seen: counted when the value changed. */
static void net_watched(uint64_t seen, uint64_t v)
{
	if (v != seen)
		atomic_fetch_add(&net_watch_changes, 1);
}

/*
 * A blocking wait: reads the value, then watches it (the exporter answers on a change, or
 * after ODMA_SE_WATCH_MS) until the condition holds. Fails once the exporter is gone.
 */
static doca_error_t net_wait(struct doca_sync_event *se, enum se_task_type type, uint64_t val,
                             uint64_t mask, bool yield)
{
	uint64_t v = __atomic_load_n(&se->net->last, __ATOMIC_RELAXED), seen;

	(void)yield; /* the thread sleeps in its watch */
	/*
	 * The value this handle's last access left, when it does not meet the condition, is
	 * watched at once (the exporter answers at once if it is not the value now: a round trip
	 * saved after an update of ours, as in a ping-pong); else the value is read first.
	 */
	if ((!__atomic_load_n(&se->net->last_ok, __ATOMIC_RELAXED) ||
	     se_cond(type, v, val, mask)) &&
	    net_access(se, ODMA_TP_AT_READ, 0, &v) != DOCA_SUCCESS)
		return DOCA_ERROR_CONNECTION_ABORTED;
	while (!se_cond(type, v, val, mask)) {
		seen = v;
		if (net_access(se, ODMA_TP_AT_WATCH, seen, &v) != DOCA_SUCCESS)
			return DOCA_ERROR_CONNECTION_ABORTED;
		net_watched(seen, v);
	}
	return DOCA_SUCCESS;
}

/* ---- the context: every access an asynchronous request ---- */

/* Transport thread: queue the completion, then wake the PE (pairs with its arm op). */
static void net_async_done(struct odma_tp_io *io, doca_error_t status)
{
	struct se_net_req *q = io->arg;
	struct doca_sync_event *se = q->se;
	struct se_net *n = se->net;

	q->status = status;
	pthread_mutex_lock(&n->lock);
	ODMA_QUEUE_PUSH(n->done, n->done_tail, q, next);
	__atomic_add_fetch(&n->ndone, 1, __ATOMIC_SEQ_CST);
	/*
	 * Under the lock: once the PE thread took this back (net_take locks), the context may
	 * go IDLE and be destroyed, and its PE too; nothing of theirs is touched after.
	 */
	odma_pe_signal(se->ctx.pe);
	pthread_mutex_unlock(&n->lock);
}

/* Starts one (PE thread); CONNECTION_ABORTED when it cannot (the handle is then failed). */
static doca_error_t net_start(struct doca_sync_event *se, struct se_task *task,
                              enum odma_tp_atomic_op op, uint64_t operand)
{
	struct se_net_req *q;

	if (net_peer_gone(se, false))
		return DOCA_ERROR_CONNECTION_ABORTED;
	q = calloc(1, sizeof(*q));
	if (q == NULL)
		return DOCA_ERROR_NO_MEMORY;
	q->se = se;
	q->task = task;
	net_io_init(&q->io, se, op, operand, &q->val, net_async_done, q);
	q->io.owner = se->ctx.run; /* a stop ends it (net_stop) */
	se->inflight++;
	if (odma_tp_io_start(&q->io) != DOCA_SUCCESS) {
		se->inflight--;
		free(q);
		net_gone(se);
		return DOCA_ERROR_CONNECTION_ABORTED;
	}
	return DOCA_SUCCESS;
}

/* The completed requests, oldest first (PE thread); the caller frees them. */
static struct se_net_req *net_take(struct se_net *n)
{
	struct se_net_req *q;

	if (__atomic_load_n(&n->ndone, __ATOMIC_SEQ_CST) == 0)
		return NULL;
	pthread_mutex_lock(&n->lock);
	q = n->done;
	n->done = n->done_tail = NULL;
	__atomic_store_n(&n->ndone, 0, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&n->lock);
	return q;
}

/*
 * For the pending waits: a read of the value (@watch false: a new wait is checked against
 * the value now), or a watch of the value last seen, unless one of the kind is in flight.
 * Whether the pending waits failed (the exporter is gone).
 */
static bool net_look(struct doca_sync_event *se, bool watch)
{
	struct se_net *n = se->net;
	bool *busy = watch ? &n->watching : &n->reading;
	doca_error_t r;

	if (*busy)
		return false;
	r = net_start(se, NULL, watch ? ODMA_TP_AT_WATCH : ODMA_TP_AT_READ, watch ? n->seen : 0);
	if (r == DOCA_SUCCESS)
		*busy = true;
	else if (r == DOCA_ERROR_CONNECTION_ABORTED)
		return se_pending_scan(se, r, 0) != 0;
	/* NO_MEMORY: the next progress tries again (net_arm keeps it coming) */
	return false;
}

static doca_error_t net_submit(struct doca_sync_event *se, struct se_task *t)
{
	doca_error_t r;

	if (t->type < SE_T_WAIT_EQ) {
		/* completes at a progress after its reply */
		r = net_start(se, t, se_task_op(t), t->val);
		if (r == DOCA_ERROR_CONNECTION_ABORTED)
			odma_task_complete(&t->base, r);
		return r == DOCA_ERROR_CONNECTION_ABORTED ? DOCA_SUCCESS : r;
	}
	if (se_peer_gone(se, false)) {
		odma_task_complete(&t->base, DOCA_ERROR_CONNECTION_ABORTED);
		return DOCA_SUCCESS;
	}
	se_pending_push(se, t);
	(void)net_look(se, false);
	return DOCA_SUCCESS;
}

/* Takes back the completed requests; polls again when due. */
static bool net_progress(struct doca_sync_event *se)
{
	struct se_net_req *q = net_take(se->net), *next;
	bool any = false;

	for (; q != NULL; q = next) {
		struct se_task *t = q->task;
		/* ended by a stop: flushed (IO_FAILED), and the exporter may well be alive */
		doca_error_t st = q->status == DOCA_SUCCESS ? DOCA_SUCCESS
		                  : q->io.cancelled         ? DOCA_ERROR_IO_FAILED
		                                            : DOCA_ERROR_CONNECTION_ABORTED;

		next = q->next;
		se->inflight--;
		if (st == DOCA_ERROR_CONNECTION_ABORTED)
			net_gone(se);
		if (t != NULL) {
			se_task_done(t, st, q->val);
		} else {
			if (q->io.atomic == ODMA_TP_AT_WATCH) {
				se->net->watching = false;
				net_watched(q->io.operand, q->val);
			} else {
				se->net->reading = false;
			}
			if (st == DOCA_SUCCESS)
				se->net->seen = q->val;
			(void)se_pending_scan(se, st, q->val);
		}
		free(q);
		any = true;
	}
	/* waits left: one watch of the value in flight (a read in flight answers first) */
	if (se->pending != NULL && !se->net->reading) {
		if (se_peer_gone(se, false))
			any |= se_pending_scan(se, DOCA_ERROR_CONNECTION_ABORTED, 0) != 0;
		else
			any |= net_look(se, true);
	}
	return any;
}

/* The PE is woken by the completions (of the reads and watches of pending waits too). */
static uint64_t net_arm(struct doca_sync_event *se)
{
	struct se_net *n = se->net;

	if (se->ctx.state == DOCA_CTX_STATE_IDLE)
		return ODMA_WAKE_NEVER;
	/* a reply's completion signals the PE (after queuing: this check pairs with it) */
	if (__atomic_load_n(&n->ndone, __ATOMIC_SEQ_CST) != 0)
		return 0;
	if (se->pending == NULL || n->reading || n->watching)
		return ODMA_WAKE_NEVER;
	return 0; /* a wait with nothing in flight for it (out of memory): progress starts one */
}

/* Requests in flight end now, not at a frozen exporter's deadline (idle_ready waits for them). */
static void net_stop(struct doca_sync_event *se)
{
	if (se->inflight != 0)
		odma_tp_io_cancel(se->ctx.run);
}

const struct se_ops se_net_ops = {
	.name = "over the network transport",
	.import = net_import,
	.release = net_release,
	.gone = net_peer_gone,
	.access = net_access,
	.wait = net_wait,
	.submit = net_submit,
	.progress = net_progress,
	.arm = net_arm,
	.stop = net_stop,
};
