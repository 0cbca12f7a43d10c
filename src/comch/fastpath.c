/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Comch fast path: consumers post buffers into a ring shared with the peer process;
 * producers claim a posted slot (CAS on claim_seq), write the bytes straight into the
 * consumer's buffer with process_vm_writev and mark the slot done. No progress call of
 * either process is needed for a post to become visible to the producer.
 *
 * This file holds what both sides share: the peer's consumers as producers see them (CONS_NEW,
 * ACK, GONE, expiry), connection checks and capabilities. Consumers are in consumer.c,
 * producers in producer.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "comch/comch.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(DOCA_COMCH_FASTPATH)

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
		ODMA_ERR("%s: connection %p is not established (its %s is not RUNNING or the peer "
		         "went away)",
		         func, (void *)conn, comch_ep_kind(ep));
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

/* An id for a new endpoint of this side (under conn->lock): odd on the client, even on the server.
 */
uint32_t comch_fp_next_id(struct doca_comch_connection *conn)
{
	uint32_t id = conn->next_id;

	conn->next_id += 2;
	if (conn->next_id < 3) /* wrapped: skip 0 */
		conn->next_id = conn->side == COMCH_SIDE_CLIENT ? 1 : 2;
	return id;
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
 * The geometry a CONS_NEW announces, checked and copied; NULL (with *why) when it is unusable.
 * The ring is mapped only from a sealed memfd of exactly the announced size (comch_shm_map),
 * and its header must repeat the announcement; from here on only @g is read.
 */
static struct comch_ring *cons_new_map(const void *payload, size_t len, int fd, bool net,
                                       uint32_t id, struct comch_ring_geom *g, const char **why)
{
	struct comch_cons_new m;
	struct comch_ring *ring;

	if ((fd < 0 && !net) || (fd >= 0 && net) || len < sizeof(m) || id == 0) {
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
	if (net) {
		/* across machines: a private shadow of the peer's ring, fed by its FP_POSTs */
		ring = mmap(NULL, (size_t)g->ring_size, PROT_READ | PROT_WRITE,
		            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (ring == MAP_FAILED) {
			*why = "no memory for the shadow ring";
			return NULL;
		}
		comch_ring_init(ring, g);
		return ring;
	}
	ring = comch_shm_map(fd, (size_t)g->ring_size, why);
	if (ring != NULL && !comch_ring_header_matches(ring, g)) {
		munmap(ring, (size_t)g->ring_size);
		*why = "the ring does not match its announcement";
		return NULL;
	}
	return ring;
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

	COMCH_PEER_LOG(WARNING, conn,
	               "comch %s \"%s\": refused consumer %u of the peer (pid %d): %s",
	               comch_ep_kind(ep), ep->name, id, (int)conn->peer_pid, why);
	(void)comch_conn_send_ctl(conn, COMCH_W_CONS_ACK, id, &ok, sizeof(ok), -1);
}

/*
 * A copy of the peer consumer's doorbell eventfd (pidfd_getfd: the rights process_vm_writev
 * needs too); -1 when the kernel or the peer does not allow it (its PE then wakes on a timer).
 */
static int rcons_take_bell(struct doca_comch_connection *conn, const struct comch_ring *ring)
{
	/* the peer may rewrite its ring at any time: the number is read once */
	int peer_fd = *(const volatile int32_t *)&ring->bell_fd;
	int pfd, fd = -1;

	if (conn->peer_pid <= 0 || peer_fd < 0)
		return -1;
	pfd = (int)syscall(SYS_pidfd_open, conn->peer_pid, 0);
	if (pfd >= 0) {
		fd = (int)syscall(SYS_pidfd_getfd, pfd, peer_fd, 0);
		close(pfd);
	}
	if (fd < 0) {
		ODMA_RATELIMITED_WARN("comch: cannot take the doorbell of the peer's consumer "
		                      "(pidfd_getfd: %s); its notification handle wakes on a "
		                      "1 ms timer instead",
		                      strerror(errno));
		return -1;
	}
	if (!doca_priv_fd_is_eventfd(0, fd)) {
		close(fd); /* never write into anything but an eventfd */
		return -1;
	}
	return fd; /* pidfd_getfd sets close-on-exec */
}

void comch_fp_on_cons_new(struct doca_comch_connection *conn, uint32_t id, const void *payload,
                          size_t len, int fd)
{
	struct comch_ep *ep = conn->ep;
	struct comch_ring_geom g;
	struct comch_ring *ring;
	struct comch_rcons *r, *old;
	const char *why = "no memory";
	uint32_t ok = 1;
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
	ring = cons_new_map(payload, len, fd, conn->net != NULL, id, &g, &why);
	if (fd >= 0)
		close(fd);
	r = ring != NULL ? calloc(1, sizeof(*r)) : NULL;
	if (r == NULL) {
		if (ring != NULL)
			munmap(ring, (size_t)g.ring_size);
		cons_new_refuse(conn, id, why);
		return;
	}
	r->id = id;
	r->ring = ring;
	r->geom = g;
	r->bell_fd = conn->net != NULL ? -1 : rcons_take_bell(conn, ring);
	atomic_store(&ring->bell_peer, r->bell_fd >= 0 ? 1u : 0u);
	pthread_mutex_lock(&conn->lock);
	old = comch_fp_rcons_find(conn, id);
	if (old != NULL)
		rcons_unlink(conn, old); /* the same consumer restarted */
	r->next = conn->rcons;
	conn->rcons = r;
	conn->num_rcons++;
	pthread_mutex_unlock(&conn->lock);
	(void)comch_conn_send_ctl(conn, COMCH_W_CONS_ACK, id, &ok, sizeof(ok), -1);
	ODMA_DBG("comch %s \"%s\": the peer created consumer %u (%u slots)", comch_ep_kind(ep),
	         ep->name, id, g.nslots);
	if (ep->cons_new_cb != NULL)
		ep->cons_new_cb(&ep->ev_cons, conn, id);
}

/* ---- across machines (the transport thread) -------------------------------------------- */

const char *comch_fp_net_post(struct doca_comch_connection *conn, uint32_t id, const void *p,
                              size_t len)
{
	struct comch_fp_post m;
	struct comch_rcons *r;
	const char *why = NULL;

	if (len != sizeof(m))
		return "a malformed FP_POST";
	memcpy(&m, p, sizeof(m));
	pthread_mutex_lock(&conn->lock);
	r = comch_fp_rcons_find(conn, id);
	if (r != NULL && !r->expired) {
		uint64_t posted = atomic_load(&r->ring->post_seq);
		uint64_t claimed = atomic_load(&r->ring->claim_seq) & ~COMCH_RING_CLOSED;

		/* in order, never more outstanding than the ring has slots */
		if (m.seq != posted || m.seq + 1 - claimed > r->geom.nslots || m.room == 0)
			why = "an FP_POST out of sequence, past the ring, or of no room";
		else
			comch_ring_post(r->ring, &r->geom, m.seq, 0, m.room);
	}
	/* a consumer that just went away (GONE crossed it): nothing to post into */
	pthread_mutex_unlock(&conn->lock);
	return why;
}

const char *comch_fp_net_data(struct doca_comch_connection *conn, uint32_t id, const void *p,
                              size_t len)
{
	const uint8_t *b = p;
	struct comch_fp_data m;
	struct doca_comch_consumer *c;
	struct comch_claimed cl;
	const char *why = NULL;

	if (len < sizeof(m))
		return "a malformed FP_DATA";
	memcpy(&m, b, sizeof(m));
	if (m.imm_len > COMCH_RING_MAX_IMM || m.len != len - sizeof(m) - m.imm_len ||
	    len < sizeof(m) + m.imm_len)
		return "an FP_DATA whose lengths do not add up";
	pthread_mutex_lock(&conn->lock);
	for (c = conn->lcons; c != NULL && c->id != id; c = c->next_on_conn)
		;
	if (c == NULL || c->ring == NULL || atomic_load(&c->reg) != COMCH_REG_ACKED)
		goto out; /* it went away meanwhile: the bytes have nowhere to go */
	switch (comch_ring_claim(c->ring, &c->geom, m.len, m.imm_len, &cl)) {
	case COMCH_CLAIM_OK:
		if (cl.slot->seq != m.seq) {
			why = "an FP_DATA for a buffer other than the next one posted";
			comch_ring_fill(cl.slot, &c->geom, m.producer_id, 0, NULL, 0,
			                DOCA_ERROR_IO_FAILED);
			break;
		}
		if (m.len)
			memcpy((void *)(uintptr_t)cl.addr, b + sizeof(m) + m.imm_len, m.len);
		comch_ring_fill(cl.slot, &c->geom, m.producer_id, m.len, b + sizeof(m), m.imm_len,
		                DOCA_SUCCESS);
		doca_priv_bell_ring(&c->ring->bell, c->bell_fd); /* the consumer's PE may sleep */
		break;
	case COMCH_CLAIM_CLOSED:
		break; /* the consumer stopped: as on one kernel, nothing lands any more */
	default:
		why = "an FP_DATA for a buffer the consumer did not post, or too small for it";
		break;
	}
out:
	pthread_mutex_unlock(&conn->lock);
	return why;
}

void comch_fp_on_cons_ack(struct doca_comch_connection *conn, uint32_t id, bool ok)
{
	pthread_mutex_lock(&conn->lock);
	for (struct doca_comch_consumer *c = conn->lcons; c != NULL; c = c->next_on_conn) {
		if (c->id == id) {
			int expect = COMCH_REG_SENT;

			atomic_compare_exchange_strong(&c->reg, &expect,
			                               ok ? COMCH_REG_ACKED : COMCH_REG_REFUSED);
			/*
			 * the consumer's PE may sleep: it starts now. The word is in the ring
			 * the peer writes too, so it is not trusted to skip the write.
			 */
			if (c->ring != NULL)
				doca_priv_bell_force(c->bell_fd);
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
	for (struct doca_comch_consumer *c = conn->lcons; c != NULL; c = c->next_on_conn)
		if (c->ring != NULL)
			doca_priv_bell_force(c->bell_fd);
	for (struct doca_comch_producer *p = conn->lprod; p != NULL; p = p->next_on_conn)
		doca_priv_bell_ring(&p->bell, p->bell_fd);
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

doca_error_t comch_fp_cap(const struct doca_devinfo *devinfo, uint32_t *out, uint32_t value,
                          const char *func)
{
	if (devinfo == NULL || out == NULL) {
		ODMA_ERR("%s: devinfo and the output pointer must not be NULL", func);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!devinfo->caps.comch) {
		ODMA_ERR("%s: device %s has no Comch (comch=no in its system profile)", func,
		         devinfo->pci_addr);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	*out = value;
	return DOCA_SUCCESS;
}
