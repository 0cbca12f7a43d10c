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
 * blob byte for byte. Every get is a remote atomic read, every set a swap, every add a
 * fetch-add: the synchronous calls block their caller for one round trip (bounded by
 * ODMA_TRANSPORT_TIMEOUT_MS); a context's tasks start asynchronous requests whose
 * completions are queued here and taken back by its progress (se_tasks.c). Waits poll the
 * value with a backoff (50 us doubling to 5 ms): a blocking wait sleeps between polls;
 * pending wait tasks arm their PE's timer at the next poll. A failed access (exporter gone,
 * link down, revoked) fails the handle for good: CONNECTION_ABORTED, as the shared-page
 * path reports an exporter that went away.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/log/log.h"
#include "core/sync_event/se_int.h"

ODMA_LOG_REGISTER(DOCA_SYNC_EVENT)

#define NET_POLL_MIN_NS (50 * 1000ull)
#define NET_POLL_MAX_NS (5 * 1000 * 1000ull)
#define NET_PERMS (ODMA_TP_READ | ODMA_TP_WRITE | ODMA_TP_ATOMIC)

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
	return DOCA_SUCCESS;
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

doca_error_t se_net_import(struct doca_sync_event *se, const struct odma_se_blob *b,
                           const uint8_t *data, size_t sz, bool *use_net, const char **why)
{
	static const char forged[] = "the exporter did not confirm this export byte for byte "
	                             "(a stale or forged export); export again";
	const struct odma_tp_ops *ops;
	struct odma_tp_reach r;
	struct odma_tp_remote *rm;
	uint8_t *issued;
	size_t ilen = 0;
	const char *cwhy = NULL;
	doca_error_t err;

	*use_net = false;
	if (b->version != ODMA_SE_BLOB_VERSION_NET)
		return DOCA_SUCCESS; /* a one-kernel export: the shared page */
	if (odma_tp_config_check() != DOCA_SUCCESS)
		return DOCA_ERROR_INVALID_VALUE; /* logged, naming the variable */
	memset(&r, 0, sizeof(r));
	r.pidns = b->pidns;
	memcpy(r.boot_id, b->boot_id, sizeof(r.boot_id));
	r.pid = b->pid;
	r.start_time = b->start_time;
	r.addr = b->value_addr;
	r.len = sizeof(uint64_t);
	r.perms = NET_PERMS;
	r.region_id = b->region_id;
	memcpy(r.key, b->rkey, sizeof(r.key));
	r.generation = b->generation;
	r.net_len = b->net_len;
	memcpy(r.net_addr, b->net_addr, b->net_len);
	ops = odma_tp_choose(&r, &cwhy);
	if (ops == NULL) {
		*why = cwhy;
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (ops->kind == ODMA_TP_PROCESS)
		return DOCA_SUCCESS; /* same kernel and PID namespace: the shared page */
	rm = calloc(1, sizeof(*rm));
	issued = malloc(ODMA_TP_ISSUED_MAX);
	if (rm == NULL || issued == NULL) {
		free(rm);
		free(issued);
		return DOCA_ERROR_NO_MEMORY;
	}
	err = odma_tp_attach(ops, &r, rm, issued, &ilen); /* logs a failure, with the fix */
	if (err == DOCA_SUCCESS && (ilen != sz || memcmp(issued, data, sz) != 0)) {
		odma_tp_detach(rm);
		*why = forged;
		err = DOCA_ERROR_INVALID_VALUE;
	}
	free(issued);
	if (err != DOCA_SUCCESS) {
		free(rm);
		return err;
	}
	pthread_mutex_init(&se->net_lock, NULL);
	se->net = rm;
	se->net_addr = b->value_addr;
	se->peer_pid = (pid_t)b->pid;
	se->peer_start = b->start_time;
	*use_net = true;
	return DOCA_SUCCESS;
}

void se_net_detach(struct doca_sync_event *se)
{
	if (se->net == NULL)
		return;
	odma_tp_detach(se->net); /* the context is IDLE: nothing of it is in flight */
	free(se->net);
	se->net = NULL;
	while (se->net_done != NULL) {
		struct se_net_req *q = se->net_done;

		se->net_done = q->next;
		free(q);
	}
	pthread_mutex_destroy(&se->net_lock);
}

struct net_wait {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
	doca_error_t status;
	uint64_t val;
};

static void se_net_sync_done(struct odma_tp_io *io, doca_error_t status)
{
	struct net_wait *w = io->arg;

	pthread_mutex_lock(&w->lock);
	w->status = status;
	w->done = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

/* The handle is dead for good: said once. */
void se_net_gone(struct doca_sync_event *se)
{
	if (__atomic_exchange_n(&se->peer_gone, true, __ATOMIC_SEQ_CST))
		return;
	ODMA_WARN("sync event %p: the exporter (pid %d in its namespace) refused or did not "
	          "answer an access over the network transport (it stopped or destroyed the "
	          "event, exited, or the link is down); updates and waits on this handle now fail "
	          "with CONNECTION_ABORTED",
	          (void *)se, (int)se->peer_pid);
}

doca_error_t se_net_op(struct doca_sync_event *se, int op, uint64_t operand, uint64_t *old)
{
	struct net_wait w = { .status = DOCA_ERROR_IO_FAILED };
	struct odma_tp_io io;
	doca_error_t err;

	if (__atomic_load_n(&se->peer_gone, __ATOMIC_SEQ_CST))
		return DOCA_ERROR_CONNECTION_ABORTED;
	memset(&io, 0, sizeof(io));
	io.remote = se->net;
	io.local = &w.val;
	io.remote_addr = se->net_addr;
	io.len = sizeof(uint64_t);
	io.atomic = (uint8_t)op;
	io.operand = operand;
	io.done = se_net_sync_done;
	io.arg = &w;
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
		se_net_gone(se);
		return DOCA_ERROR_CONNECTION_ABORTED;
	}
	*old = w.val;
	return DOCA_SUCCESS;
}

doca_error_t se_read(struct doca_sync_event *se, uint64_t *v)
{
	if (se->net != NULL)
		return se_net_op(se, ODMA_TP_AT_READ, 0, v);
	*v = se_load(se);
	return DOCA_SUCCESS;
}

bool se_net_poll_due(struct doca_sync_event *se, bool reset)
{
	uint64_t now = doca_priv_now_ns();

	if (reset) {
		se->net_step_ns = NET_POLL_MIN_NS;
		se->net_poll_ns = now + NET_POLL_MIN_NS;
		return false;
	}
	if (now < se->net_poll_ns)
		return false;
	se->net_step_ns =
	        se->net_step_ns * 2 < NET_POLL_MAX_NS ? se->net_step_ns * 2 : NET_POLL_MAX_NS;
	se->net_poll_ns = now + se->net_step_ns;
	return true;
}

/* ---- asynchronous requests of the context ---- */

/* Transport thread: queue the completion, then wake the PE (pairs with its arm op). */
static void se_net_async_done(struct odma_tp_io *io, doca_error_t status)
{
	struct se_net_req *q = io->arg;
	struct doca_sync_event *se = q->se;

	q->status = status;
	q->next = NULL;
	pthread_mutex_lock(&se->net_lock);
	if (se->net_done_tail != NULL)
		se->net_done_tail->next = q;
	else
		se->net_done = q;
	se->net_done_tail = q;
	__atomic_add_fetch(&se->net_ndone, 1, __ATOMIC_SEQ_CST);
	/*
	 * Under the lock: once the PE thread took this back (se_net_take locks), the context
	 * may go IDLE and be destroyed, and its PE too; nothing of theirs is touched after.
	 */
	odma_pe_signal(se->ctx.pe);
	pthread_mutex_unlock(&se->net_lock);
}

doca_error_t se_net_start(struct doca_sync_event *se, struct se_task *task, int op,
                          uint64_t operand)
{
	struct se_net_req *q;

	if (__atomic_load_n(&se->peer_gone, __ATOMIC_SEQ_CST))
		return DOCA_ERROR_CONNECTION_ABORTED;
	q = calloc(1, sizeof(*q));
	if (q == NULL)
		return DOCA_ERROR_NO_MEMORY;
	q->se = se;
	q->task = task;
	q->io.remote = se->net;
	q->io.local = &q->val;
	q->io.remote_addr = se->net_addr;
	q->io.len = sizeof(uint64_t);
	q->io.atomic = (uint8_t)op;
	q->io.operand = operand;
	q->io.done = se_net_async_done;
	q->io.arg = q;
	se->net_inflight++;
	if (odma_tp_io_start(&q->io) != DOCA_SUCCESS) {
		se->net_inflight--;
		free(q);
		se_net_gone(se);
		return DOCA_ERROR_CONNECTION_ABORTED;
	}
	return DOCA_SUCCESS;
}

struct se_net_req *se_net_take(struct doca_sync_event *se)
{
	struct se_net_req *q;

	if (__atomic_load_n(&se->net_ndone, __ATOMIC_SEQ_CST) == 0)
		return NULL;
	pthread_mutex_lock(&se->net_lock);
	q = se->net_done;
	se->net_done = se->net_done_tail = NULL;
	__atomic_store_n(&se->net_ndone, 0, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&se->net_lock);
	return q;
}
