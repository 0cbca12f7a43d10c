/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * One-sided tasks on the shortest path: a read, write or atomic whose remote operand is a
 * region the exporter registered with the transport is one transport io (odma_tp_io_start) on
 * an attachment of that region, made once per (connection, region) over the connection's own
 * endpoint (rw_attach) and kept. The exporter checks every io against its record (range, the
 * grant's RDMA_READ / RDMA_WRITE / RDMA_ATOMIC, revocation) as it checks any transport
 * request; no reader thread on either side sees it. The io's completion runs on a transport thread,
 * which pushes the task onto the context's list and rings its doorbell; doca_pe_progress takes the
 * list and delivers each task in its connection's order (rdma.c), as the PE takes its network
 * copies (core/exec/async.c).
 *
 * The request path stays the authority on what a failure means: a read or write that fails is
 * sent again as a request on the stream, whose answer gives the documented code (IO_FAILED
 * when the exporter refuses, CONNECTION_ABORTED when the connection is gone). An atomic is
 * never applied twice: one the exporter refused (the transport says so: io.refused) fails with
 * IO_FAILED, the request path's code for a refusal; one whose answer was lost (the peer died,
 * the link is down) may have been applied, so it fails with CONNECTION_ABORTED and cuts the
 * connection, as a queue pair whose retries ran out goes to error. Regions with no record (a
 * re-export, which its exporter serves by forwarding), lists on the local side and empty
 * transfers take the request path from the start.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "core/log/log.h"
#include "rdma/rdma.h"
#include "util/codec.h"

ODMA_LOG_REGISTER(ODMA_RDMA_DIRECT)

static bool rd_att_is(const struct rd_att *a, const struct odma_tp_remote *id)
{
	return a->used && a->region_id == id->region_id && a->generation == id->generation &&
	       odma_key_eq(a->key, id->key, 16);
}

/* Drops attachment @a (no io of it in flight). */
static void rd_att_drop(struct rd_att *a)
{
	if (a->used && a->direct)
		doca_priv_rdma_mem_detach(&a->rm);
	memset(a, 0, sizeof(*a));
}

/*
 * The attachment of @c to the region of the RDMA import @m, made now when there is none
 * (blocks for one round trip, once); NULL when every slot has ios in flight.
 */
static struct rd_att *rd_att_get(struct doca_rdma_connection *c, const struct doca_mmap *m)
{
	const struct odma_tp_remote *id = m->remote;
	struct rd_att *a = NULL;
	doca_error_t r;

	if (c->att == NULL && (c->att = calloc(RD_ATT_MAX, sizeof(*c->att))) == NULL)
		return NULL;
	for (uint32_t i = 0; i < RD_ATT_MAX; i++)
		if (rd_att_is(&c->att[i], id))
			return &c->att[i];
	for (uint32_t i = 0; i < RD_ATT_MAX && a == NULL; i++) {
		struct rd_att *k = &c->att[(c->att_next + i) % RD_ATT_MAX];

		if (k->inflight == 0) {
			a = k;
			c->att_next = (c->att_next + i + 1) % RD_ATT_MAX;
		}
	}
	if (a == NULL)
		return NULL;
	rd_att_drop(a);
	a->used = true;
	a->region_id = id->region_id;
	a->generation = id->generation;
	memcpy(a->key, id->key, 16);
	r = rw_attach(c->out->ch, m, &a->rm);
	a->direct = r == DOCA_SUCCESS;
	if (!a->direct && r != DOCA_ERROR_NOT_SUPPORTED)
		ODMA_DBG("RDMA connection %u: region %u not attached (%s); "
		         "its reads and writes go as requests",
		         c->id, id->region_id, doca_error_get_name(r));
	return a;
}

/* Transport thread: the io of @t finished; hand @t to its PE. */
static void rd_io_done(struct odma_tp_io *io, doca_error_t status)
{
	struct rd_task *t = io->arg;
	struct doca_rdma *rd = rd_of(t->base.ctx);
	struct rd_task *head;

	/* once pushed, the task may be delivered and the context destroyed: destroy waits */
	atomic_fetch_add_explicit(&rd->io_busy, 1, memory_order_acquire);
	t->res_status = status;
	if (status == DOCA_SUCCESS)
		odma_rd_trace_wire(t);
	head = atomic_load_explicit(&rd->io_done, memory_order_relaxed);
	do
		t->qnext = head;
	while (!atomic_compare_exchange_weak_explicit(&rd->io_done, &head, t, memory_order_release,
	                                              memory_order_relaxed));
	rd_wake_pe(rd);
	atomic_fetch_sub_explicit(&rd->io_busy, 1, memory_order_release);
}

static bool rd_is_atomic(const struct rd_task *t)
{
	return t->type == RD_T_CMP_SWP || t->type == RD_T_FETCH_ADD;
}

/*
 * Fills @io for @t (its request header @h filled): a read or write of one local buf, or an
 * atomic whose old value lands in t->io_old. False when @t cannot be one io.
 */
static bool rd_io_fill(struct rd_task *t, const struct rw_hdr *h, struct odma_tp_io *io)
{
	bool read = t->type == RD_T_READ;
	const struct doca_buf *local = read ? t->dst : rd_is_atomic(t) ? t->result : t->src;

	if ((!read && t->type != RD_T_WRITE && !rd_is_atomic(t)) || local == NULL ||
	    local->next != NULL)
		return false;
	memset(io, 0, sizeof(*io));
	io->remote_addr = h->addr;
	if (rd_is_atomic(t)) {
		io->atomic = t->type == RD_T_CMP_SWP ? ODMA_TP_AT_CAS : ODMA_TP_AT_FADD;
		io->local = &t->io_old;
		io->len = 8;
		io->operand = t->type == RD_T_CMP_SWP ? t->arg1 : t->arg0; /* swap, or add */
		io->compare = t->arg0;
	} else {
		io->write = !read;
		io->local = read ? t->dst->data + t->dst->data_len : t->src->data;
		io->len = read ? h->arg0 : h->len;
	}
	return io->len != 0;
}

bool odma_rd_direct_start(struct rd_task *t, const struct rw_hdr *h)
{
	struct doca_rdma *rd = rd_of(t->base.ctx);
	struct doca_rdma_connection *c = t->conn;
	const struct doca_buf *remote = t->type == RD_T_READ ? t->src : t->dst;
	struct odma_tp_io *io = &t->io;
	struct rd_att *a;

	if (!rd_io_fill(t, h, io) || c->state == RD_C_CLOSED || c->out == NULL)
		return false;
	a = rd_att_get(c, remote->mmap);
	if (a == NULL || !a->direct)
		return false;
	io->remote = &a->rm;
	io->done = rd_io_done;
	io->arg = t;
	t->att = a;
	a->inflight++;
	if (doca_unlikely(t->base.trace_id != 0))
		t->wire_t0 = doca_priv_now_ns();
	if (odma_tp_io_start(io) != DOCA_SUCCESS) {
		a->inflight--;
		t->att = NULL;
		return false;
	}
	rd->n_direct++;
	return true;
}

/*
 * PE thread: a direct atomic of @t failed. Refused by the exporter: IO_FAILED. No answer (it
 * may have been applied): the connection is cut and the task fails with it.
 */
static void rd_atomic_failed(struct doca_rdma *rd, struct rd_task *t)
{
	struct doca_rdma_connection *c = t->conn;

	if (t->io.refused) {
		odma_rd_finished(t, DOCA_ERROR_IO_FAILED);
		return;
	}
	ODMA_ERR("RDMA connection %u: a remote atomic got no answer (the peer died or the link "
	         "is down) and may have been applied, so it is not sent again; the connection "
	         "is cut, as a queue pair whose retries ran out",
	         c->id);
	pthread_mutex_lock(&rd->lock);
	if (c->state != RD_C_CLOSED) {
		odma_rd_conn_lost_event_locked(c); /* the program hears of the end */
		odma_rd_conn_close_locked(c, true);
	}
	pthread_mutex_unlock(&rd->lock);
	odma_rd_finished(t, DOCA_ERROR_CONNECTION_ABORTED);
}

/* PE thread: the io of @t is over; its result, or its retry as a request. */
static void rd_direct_done(struct doca_rdma *rd, struct rd_task *t)
{
	t->att->inflight--;
	t->att = NULL;
	if (t->res_status != DOCA_SUCCESS) {
		if (rd->stopping)
			odma_rd_finished(t, DOCA_ERROR_IO_FAILED); /* flushed by the stop */
		else if (rd_is_atomic(t))
			rd_atomic_failed(rd, t);
		else
			odma_rd_resubmit(t); /* the exporter's answer, or the cut, decides */
		return;
	}
	if (rd_is_atomic(t)) {
		memcpy(t->result->data + t->result->data_len, &t->io_old, 8);
		t->result->data_len += 8;
	} else if (t->type == RD_T_READ) {
		t->dst->data_len += t->io.len;
		t->res_len = (uint32_t)t->io.len;
	} else if (t->dst != NULL) {
		t->dst->data_len += t->io.len;
	}
	odma_rd_finished(t, DOCA_SUCCESS);
}

bool odma_rd_direct_take(struct doca_rdma *rd)
{
	struct rd_task *t = atomic_exchange_explicit(&rd->io_done, NULL, memory_order_acquire);
	struct rd_task *rev = NULL;

	while (t != NULL) { /* back into completion order */
		struct rd_task *next = t->qnext;

		t->qnext = rev;
		rev = t;
		t = next;
	}
	if (rev == NULL)
		return false;
	while (rev != NULL) {
		struct rd_task *next = rev->qnext;

		rd_direct_done(rd, rev);
		rev = next;
	}
	return true;
}

void odma_rd_direct_quiesce(struct doca_rdma *rd)
{
	while (atomic_load_explicit(&rd->io_busy, memory_order_acquire) != 0)
		sched_yield();
}

bool odma_rd_direct_busy(const struct doca_rdma_connection *c)
{
	for (uint32_t k = 0; c->att != NULL && k < RD_ATT_MAX; k++)
		if (c->att[k].inflight != 0)
			return true;
	return false;
}

void odma_rd_direct_conn_free(struct doca_rdma_connection *c)
{
	for (uint32_t k = 0; c->att != NULL && k < RD_ATT_MAX; k++)
		rd_att_drop(&c->att[k]);
	free(c->att);
	c->att = NULL;
}

void odma_rd_direct_free(struct doca_rdma *rd)
{
	for (uint32_t i = 0; rd->conns != NULL && i < rd->nslots; i++)
		odma_rd_direct_conn_free(&rd->conns[i]);
}
