/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Comch fast path: consumers post buffers into a ring; producers claim a posted slot (CAS on
 * claim_seq), have the carrier move the bytes into the consumer's buffer and mark the slot
 * done. On one kernel the ring is shared with the peer process and the bytes are written with
 * process_vm_writev (no progress call of either process is needed for a post to become
 * visible to the producer); across machines a shadow of the ring is fed by packets (net.c).
 *
 * This file holds what both sides share: the peer's consumers as producers see them (CONS_NEW,
 * ACK, GONE, expiry), connection checks and capabilities, and what a consumer and a producer of
 * this side share (struct comch_fp_ctx: their life on a connection). Consumers are in
 * consumer.c, producers in producer.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "comch/comch.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(DOCA_COMCH_FASTPATH)

void comch_poll_by(struct doca_pe **polling, struct doca_pe *pe)
{
	if (*polling == pe)
		return;
	doca_priv_pe_net_ios(*polling, -1); /* (NULL: nothing) */
	doca_priv_pe_net_ios(pe, 1);
	*polling = pe;
}

void comch_fp_poll(struct comch_fp_ctx *f, bool on)
{
	comch_poll_by(&f->polling, on && f->conn->ch->car->pe_polls ? f->ctx.pe : NULL);
}

/* Whether a connection can carry a new consumer or producer. */
doca_error_t comch_fp_conn_usable(struct doca_comch_connection *conn, const char *func)
{
	struct comch_ep *ep = conn->ep;

	if (!comch_ep_owns(ep, conn)) {
		ODMA_ERR("%s: connection %p is not a live connection of its %s", func, (void *)conn,
		         comch_ep_kind(ep));
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (atomic_load(&conn->dead) || ep->ctx.state != DOCA_CTX_STATE_RUNNING) {
		ODMA_ERR("%s: connection %p is not established "
		         "(its %s is not RUNNING or the peer went away)",
		         func, (void *)conn, comch_ep_kind(ep));
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

/*
 * An id for a new endpoint of this side (under conn->lock): odd on the client, even on the server.
 */
uint32_t comch_fp_next_id(struct doca_comch_connection *conn)
{
	uint32_t id = conn->next_id;

	conn->next_id += 2;
	if (conn->next_id < 3) /* wrapped: skip 0 */
		conn->next_id = conn->side == COMCH_SIDE_CLIENT ? 1 : 2;
	return id;
}

/* ---- consumers and producers of this side: their life on a connection --------------------- */

/*
 * Puts @f on @list of @conn with a doorbell and an id, under @conn's lock, unless the list holds
 * @cap already: DOCA_ERROR_NO_MEMORY then, or DOCA_ERROR_OPERATING_SYSTEM without a doorbell.
 */
static doca_error_t fp_ctx_link(struct comch_fp_ctx *f, struct doca_comch_connection *conn,
                                struct comch_fp_list *list, uint32_t cap)
{
	doca_error_t r = DOCA_SUCCESS;

	pthread_mutex_lock(&conn->lock);
	if (list->n >= cap)
		r = DOCA_ERROR_NO_MEMORY;
	else if ((f->bell_fd = doca_priv_bell_open()) < 0)
		r = DOCA_ERROR_OPERATING_SYSTEM;
	if (r == DOCA_SUCCESS) {
		f->id = comch_fp_next_id(conn);
		f->list = list;
		f->next_on_conn = list->head;
		list->head = f;
		list->n++;
	}
	pthread_mutex_unlock(&conn->lock);
	return r;
}

doca_error_t comch_fp_ctx_init(struct comch_fp_ctx *f, struct doca_comch_connection *conn,
                               struct comch_fp_list *list, const struct odma_ctx_ops *ops,
                               const char *kind, const char *func)
{
	doca_error_t r = doca_priv_ctx_init(&f->ctx, ops, conn->ep->ctx.dev);
	uint32_t cap;

	if (r != DOCA_SUCCESS)
		return r;
	f->ctx.queue_depth = UINT32_MAX;
	f->kind = kind;
	cap = f->ctx.caps->comch_fp_max_endpoints;
	r = fp_ctx_link(f, conn, list, cap);
	if (r != DOCA_SUCCESS) {
		doca_priv_ctx_destroy(&f->ctx);
		if (r == DOCA_ERROR_NO_MEMORY)
			ODMA_ERR_AT(func,
			            "%s: connection %p already has %u %ss on this side "
			            "(doca_comch_%s_cap_get_max_%ss)",
			            func, (void *)conn, cap, kind, kind, kind);
		return r;
	}
	comch_conn_get(conn);
	f->conn = conn;
	return DOCA_SUCCESS;
}

doca_error_t comch_fp_ctx_destroy(struct comch_fp_ctx *f)
{
	if (f->ctx.state == DOCA_CTX_STATE_IDLE)
		(void)doca_priv_pe_watch(f->ctx.pe, f->bell_fd, 0);
	return doca_priv_ctx_destroy(&f->ctx);
}

void comch_fp_ctx_leave(struct comch_fp_ctx *f)
{
	struct doca_comch_connection *conn = f->conn;

	comch_fp_poll(f, false);
	pthread_mutex_lock(&conn->lock);
	for (struct comch_fp_ctx **pp = &f->list->head; *pp != NULL; pp = &(*pp)->next_on_conn) {
		if (*pp == f) {
			*pp = f->next_on_conn;
			break;
		}
	}
	f->list->n--;
	pthread_mutex_unlock(&conn->lock);
	close(f->bell_fd); /* after the unlink: nothing rings it any more */
	comch_conn_put(conn);
}

/* ---- remote consumers (the peer's), reached by producers ---------------------------------- */

/* Under conn->lock. */
struct comch_rcons *comch_fp_rcons_find(struct doca_comch_connection *conn, uint32_t id)
{
	for (struct comch_rcons *r = conn->rcons; r != NULL; r = r->next)
		if (r->id == id)
			return r;
	return NULL;
}

void comch_fp_rcons_free(struct comch_rcons *r)
{
	if (r->bell_fd >= 0)
		close(r->bell_fd);
	munmap(r->ring, (size_t)r->geom.ring_size);
	free(r);
}

/* Under conn->lock: takes @r out of the table; frees it unless a producer is using it. */
static void rcons_unlink(struct doca_comch_connection *conn, struct comch_rcons *r)
{
	for (struct comch_rcons **pp = &conn->rcons; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	}
	r->expired = true;
	conn->num_rcons--;
	if (r->users == 0)
		comch_fp_rcons_free(r);
	else
		r->orphan = true;
}

/*
 * The geometry a CONS_NEW announces, checked and copied, and the ring the carrier maps for it;
 * NULL (with *why) when it is unusable. From here on only @g is read, never the ring's own
 * header.
 */
static struct comch_ring *cons_new_map(struct doca_comch_connection *conn, const void *payload,
                                       size_t len, int fd, uint32_t id, struct comch_ring_geom *g,
                                       int *bell_fd, const char **why)
{
	struct comch_cons_new m;

	if (len < sizeof(m) || id == 0) {
		*why = "malformed registration (no ring descriptor, a short payload or id 0)";
		return NULL;
	}
	memcpy(&m, payload, sizeof(m));
	*g = (struct comch_ring_geom){ .nslots = m.nslots,
		                       .slot_size = m.slot_size,
		                       .imm_len = m.imm_len,
		                       .consumer_id = id,
		                       .ring_size = m.ring_size };
	if (!comch_ring_geom_valid(g, why))
		return NULL;
	return conn->ch->car->rcons_map(conn, fd, g, bell_fd, why);
}

/* Under conn->lock: whether the peer may register one more consumer (or replace @id). */
static bool cons_new_room(struct doca_comch_connection *conn, uint32_t id)
{
	return comch_fp_rcons_find(conn, id) != NULL ||
	       conn->num_rcons < conn->ep->ctx.caps->comch_fp_max_endpoints;
}

static void cons_new_refuse(struct doca_comch_connection *conn, uint32_t id, const char *why)
{
	struct comch_ep *ep = conn->ep;
	uint32_t ok = 0;

	COMCH_PEER_LOG(WARNING, conn, "comch %s \"%s\": refused consumer %u of the peer (%s): %s",
	               comch_ep_kind(ep), ep->name, id, comch_conn_who(conn).s, why);
	(void)comch_conn_send_ctl(conn, COMCH_W_CONS_ACK, id, &ok, sizeof(ok), -1);
}

/*
 * The record of the peer's consumer @id: the ring its CONS_NEW announces, mapped from @fd
 * (closed here), and its doorbell. NULL when the registration is unusable (*why says so) or
 * memory ran out (*why is left as it was).
 */
static struct comch_rcons *cons_new_make(struct doca_comch_connection *conn, uint32_t id,
                                         const void *payload, size_t len, int fd, const char **why)
{
	struct comch_ring_geom g;
	struct comch_ring *ring;
	struct comch_rcons *r;
	int bell_fd = -1;

	ring = cons_new_map(conn, payload, len, fd, id, &g, &bell_fd, why);
	if (fd >= 0)
		close(fd);
	r = ring != NULL ? calloc(1, sizeof(*r)) : NULL;
	if (r == NULL) {
		if (ring != NULL)
			munmap(ring, (size_t)g.ring_size);
		if (bell_fd >= 0)
			close(bell_fd);
		return NULL;
	}
	r->id = id;
	r->ring = ring;
	r->geom = g;
	r->bell_fd = bell_fd;
	atomic_store(&ring->bell_peer, r->bell_fd >= 0 ? 1u : 0u);
	return r;
}

/* Puts @r on @conn's list (under its lock), in place of a restarted consumer of its id. */
static void rcons_add(struct doca_comch_connection *conn, struct comch_rcons *r)
{
	struct comch_rcons *old;

	pthread_mutex_lock(&conn->lock);
	old = comch_fp_rcons_find(conn, r->id);
	if (old != NULL)
		rcons_unlink(conn, old); /* the same consumer restarted */
	r->next = conn->rcons;
	conn->rcons = r;
	conn->num_rcons++;
	pthread_mutex_unlock(&conn->lock);
}

void comch_fp_on_cons_new(struct doca_comch_connection *conn, uint32_t id, const void *payload,
                          size_t len, int fd)
{
	struct comch_ep *ep = conn->ep;
	struct comch_rcons *r;
	const char *why = "no memory";
	uint32_t ok = 1, nslots;
	bool room;

	if (atomic_load_explicit(&conn->dead, memory_order_acquire)) {
		if (fd >= 0)
			close(fd); /* nothing more is sent to it: no consumer of it is registered */
		return;
	}
	pthread_mutex_lock(&conn->lock);
	room = cons_new_room(conn, id);
	pthread_mutex_unlock(&conn->lock);
	if (!room) {
		if (fd >= 0)
			close(fd);
		cons_new_refuse(conn, id,
		                "it already has the most consumers a connection takes "
		                "(doca_comch_consumer_cap_get_max_consumers)");
		return;
	}
	r = cons_new_make(conn, id, payload, len, fd, &why);
	if (r == NULL) {
		cons_new_refuse(conn, id, why);
		return;
	}
	nslots = r->geom.nslots; /* @r is the connection's once linked */
	rcons_add(conn, r);
	(void)comch_conn_send_ctl(conn, COMCH_W_CONS_ACK, id, &ok, sizeof(ok), -1);
	ODMA_DBG("comch %s \"%s\": the peer created consumer %u (%u slots)", comch_ep_kind(ep),
	         ep->name, id, nslots);
	if (ep->cons_new_cb != NULL)
		ep->cons_new_cb(&ep->ev_cons, conn, id);
}

void comch_fp_on_cons_ack(struct doca_comch_connection *conn, uint32_t id, bool ok)
{
	pthread_mutex_lock(&conn->lock);
	for (struct comch_fp_ctx *f = conn->lcons.head; f != NULL; f = f->next_on_conn) {
		struct doca_comch_consumer *c =
		        odma_container_of(f, struct doca_comch_consumer, fp);

		if (f->id == id) {
			int expect = COMCH_REG_SENT;

			atomic_compare_exchange_strong(&c->reg, &expect,
			                               ok ? COMCH_REG_ACKED : COMCH_REG_REFUSED);
			/*
			 * the consumer's PE may sleep: it starts now. The word is in the ring
			 * the peer writes too, so it is not trusted to skip the write.
			 */
			if (c->ring != NULL)
				doca_priv_bell_force(f->bell_fd);
			break;
		}
	}
	pthread_mutex_unlock(&conn->lock);
}

void comch_fp_on_cons_gone(struct doca_comch_connection *conn, uint32_t id)
{
	struct comch_ep *ep = conn->ep;
	struct comch_rcons *r;
	bool live = false;

	pthread_mutex_lock(&conn->lock);
	r = comch_fp_rcons_find(conn, id);
	if (r != NULL) {
		live = !r->expired;
		rcons_unlink(conn, r);
	}
	pthread_mutex_unlock(&conn->lock);
	if (live && ep->cons_gone_cb != NULL)
		ep->cons_gone_cb(&ep->ev_cons, conn, id);
}

bool comch_fp_expire_remote_one(struct doca_comch_connection *conn, uint32_t *id)
{
	bool found = false;

	pthread_mutex_lock(&conn->lock);
	for (struct comch_rcons *r = conn->rcons; r != NULL; r = r->next) {
		if (!r->expired) {
			r->expired = true;
			*id = r->id;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&conn->lock);
	return found;
}

void comch_fp_ring_local(struct doca_comch_connection *conn)
{
	pthread_mutex_lock(&conn->lock);
	/* a consumer's word is in its ring, which the peer may write: forced (a rare event) */
	for (struct comch_fp_ctx *f = conn->lcons.head; f != NULL; f = f->next_on_conn)
		if (odma_container_of(f, struct doca_comch_consumer, fp)->ring != NULL)
			doca_priv_bell_force(f->bell_fd);
	for (struct comch_fp_ctx *f = conn->lprod.head; f != NULL; f = f->next_on_conn)
		doca_priv_bell_ring(&odma_container_of(f, struct doca_comch_producer, fp)->bell,
		                    f->bell_fd);
	pthread_mutex_unlock(&conn->lock);
}

void comch_fp_free_remote(struct doca_comch_connection *conn)
{
	while (conn->rcons != NULL) {
		struct comch_rcons *r = conn->rcons;

		conn->rcons = r->next;
		comch_fp_rcons_free(r);
	}
	conn->num_rcons = 0;
}

/*
 * DOCA's rules for a buf of this process' memory in a task of @f (@what: "producer send"):
 * its mmap is started (a thread-safe one may be stopped under its bufs) and the Comch
 * context's device was added to it (a thread-safe one may restart without it).
 */
doca_error_t comch_fp_buf_registered(const struct comch_fp_ctx *f, const char *what,
                                     const void *task, const struct doca_buf *b)
{
	const struct doca_dev *dev = f->ctx.dev;
	doca_error_t r = odma_buf_registered("Comch", what, task, b);

	if (r != DOCA_SUCCESS)
		return r;
	if (odma_mmap_has_dev(b->mmap, dev))
		return DOCA_SUCCESS;
	ODMA_ERR("doca_task_submit: %s %u: buf %p is in mmap %p, which device %s was never "
	         "added to (on hardware the task has no memory key there); fix: "
	         "doca_mmap_add_dev(mmap, dev) before doca_mmap_start",
	         f->kind, f->id, (const void *)b, (const void *)b->mmap, dev->info->pci_addr);
	return DOCA_ERROR_NOT_PERMITTED;
}

doca_error_t comch_fp_set_conf(struct doca_ctx *ctx, const char *kind, uint32_t id, uint32_t num,
                               const char *func)
{
	uint32_t cap = ctx->caps->comch_fp_max_tasks;

	if (ctx->state != DOCA_CTX_STATE_IDLE) {
		ODMA_ERR_AT(func, "%s: %s %u is not IDLE", func, kind, id);
		return DOCA_ERROR_BAD_STATE;
	}
	if (num < 1 || num > cap) {
		ODMA_ERR_AT(func,
		            "%s: %u tasks is outside 1..%u (doca_comch_%s_cap_get_max_num_tasks)",
		            func, num, cap, kind);
		return DOCA_ERROR_INVALID_VALUE;
	}
	ctx->num_tasks = num;
	ctx->configured = true;
	return DOCA_SUCCESS;
}
