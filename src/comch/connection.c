/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Comch connections: the packets of one client-server connection, send tasks, receive
 * events, credits (the peer's receive queue), the end of a connection and the ODMA_FAULTS
 * Comch points (comch_drop_after, comch_delay_us).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comch/comch.h"
#include "core/error/error.h"
#include "core/log/log.h"
#include "util/container_of.h"
#include "util/queue.h"

ODMA_LOG_REGISTER(DOCA_COMCH_CONN)

struct doca_comch_connection *comch_conn_new(struct comch_ep *ep, struct comch_chan *ch, int side,
                                             uint32_t max_msg, uint32_t peer_queue)
{
	struct doca_comch_connection *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	if (pthread_mutex_init(&c->lock, NULL) != 0) {
		free(c);
		return NULL;
	}
	c->ep = ep;
	c->ch = ch;
	c->fd = ch->fd;
	c->side = side;
	c->link = ch->link;
	c->max_msg = max_msg;
	c->peer_queue = peer_queue;
	c->next_id = side == COMCH_SIDE_CLIENT ? 1 : 2;
	atomic_init(&c->refs, 1);
	atomic_init(&c->dead, false);
	atomic_init(&c->end, COMCH_END_NONE);
	ch->car->bind(ch, c);
	return c;
}

void comch_conn_discard(struct doca_comch_connection *conn)
{
	/* a carrier thread may hold @conn (net.c: a fast-path packet, a CREDIT): it ends first */
	conn->ch->car->hangup(conn->ch);
	conn->ch->car->bind(conn->ch, NULL);
	pthread_mutex_destroy(&conn->lock);
	free(conn);
}

void comch_conn_get(struct doca_comch_connection *conn)
{
	atomic_fetch_add(&conn->refs, 1);
}

void comch_conn_put(struct doca_comch_connection *conn)
{
	if (atomic_fetch_sub(&conn->refs, 1) != 1)
		return;
	/* the channel goes first: no carrier callback touches conn after it (conn->fd with it) */
	conn->ch->car->hangup(conn->ch);
	conn->ch->car->free(conn->ch);
	while (conn->outbox != NULL) {
		struct comch_outbox *o = conn->outbox;

		conn->outbox = o->next;
		if (o->fd >= 0)
			close(o->fd);
		free(o);
	}
	comch_fp_free_remote(conn);
	free(conn->held);
	pthread_mutex_destroy(&conn->lock);
	free(conn);
}

static const char *end_name(int end)
{
	switch (end) {
	case COMCH_END_PEER:
		return "the peer closed it";
	case COMCH_END_LOCAL:
		return "closed by this side";
	case COMCH_END_FAULT:
		return "cut by fault injection";
	case COMCH_END_PROTOCOL:
		return "protocol error";
	default:
		return "open";
	}
}

static void conn_set_end(struct doca_comch_connection *conn, enum comch_end end)
{
	int none = COMCH_END_NONE;

	(void)atomic_compare_exchange_strong(&conn->end, &none, (int)end);
}

void comch_conn_kill(struct doca_comch_connection *conn, enum comch_end end, const char *why)
{
	bool was_dead = atomic_exchange_explicit(&conn->dead, true, memory_order_acq_rel);

	if (conn->rx_done)
		return;
	conn->rx_done = true;
	conn_set_end(conn, end);
	/* nothing more is read: the endpoint's PE stops watching (the socket stays at EOF) */
	if (conn->watch != 0)
		(void)doca_priv_pe_watch(conn->ep->ctx.pe, conn->fd, 0);
	conn->watch = 0;
	/* the fd stays open until the last reference goes: other threads may still poll it */
	conn->ch->car->hangup(conn->ch);
	/* consumers and producers on other PEs learn it from their doorbells */
	comch_fp_ring_local(conn);
	ODMA_DBG("comch %s \"%s\": connection %p closed (%s%s): %s", comch_ep_kind(conn->ep),
	         conn->ep->name, (void *)conn, end_name(atomic_load(&conn->end)),
	         was_dead ? ", sending had failed" : "", why);
}

/*
 * A send found the peer gone (any thread): nothing more is sent, but what the peer sent
 * before it left is still read and delivered, up to the end of the stream. @err: the errno.
 */
static void comch_conn_broken(struct doca_comch_connection *conn, int err)
{
	conn_set_end(conn, COMCH_END_PEER);
	if (!atomic_exchange_explicit(&conn->dead, true, memory_order_acq_rel))
		ODMA_DBG("comch %s \"%s\": connection %p: sending failed (%s); reading what the "
		         "peer sent before it left",
		         comch_ep_kind(conn->ep), conn->ep->name, (void *)conn, strerror(err));
}

static int conn_send(struct doca_comch_connection *conn, uint32_t type, uint32_t arg,
                     const void *payload, size_t len, int pass_fd)
{
	return conn->ch->car->send(conn->ch, type, arg, payload, len, pass_fd);
}

static ssize_t conn_recv(struct doca_comch_connection *conn, int *pfd)
{
	return conn->ch->car->recv(conn->ch, conn->ep->rx, conn->ep->rx_cap, pfd);
}

/* ---- control packets (any thread) ------------------------------------------------------ */

void comch_chan_reject(struct comch_chan *ch, doca_error_t code, const char *why)
{
	(void)ch->car->send(ch, COMCH_W_REJECT, (uint32_t)code, why, strlen(why), -1);
}

bool comch_chan_drain(struct comch_chan *ch, int max)
{
	/*
	 * Not ep->rx: a receive callback that stops or disconnects still holds its message
	 * there. A header is all a BYE is; a longer packet is dropped whole (-EMSGSIZE).
	 */
	uint64_t buf[4];
	const struct comch_wire_hdr *h = (const void *)buf;
	bool bye = false;

	for (int i = 0; i < max; i++) {
		int pfd = -1;
		ssize_t n = ch->car->recv(ch, buf, sizeof(buf), &pfd);

		if (pfd >= 0)
			close(pfd);
		if (n <= 0 && n != -EMSGSIZE && n != -EPROTO)
			break;
		if (n > 0 && h->type == COMCH_W_BYE)
			bye = true;
	}
	return bye;
}

void comch_conn_refuse(struct doca_comch_connection *conn, const char *why)
{
	conn_set_end(conn, COMCH_END_PROTOCOL);
	if (atomic_exchange_explicit(&conn->dead, true, memory_order_acq_rel))
		return;
	if (conn->ch->car->shut != NULL)
		conn->ch->car->shut(conn->ch); /* its progress reads no more of it */
	ODMA_ERR("comch %s \"%s\": connection %p to the peer (%s) is closed: %s",
	         comch_ep_kind(conn->ep), conn->ep->name, (void *)conn, comch_conn_who(conn).s,
	         why);
}

/* Under conn->lock. Queues a packet; a peer that lets COMCH_OUTBOX_MAX bytes pile up is cut. */
static bool outbox_push(struct doca_comch_connection *conn, uint32_t type, uint32_t arg,
                        const void *payload, size_t len, int pass_fd)
{
	size_t bytes = sizeof(struct comch_outbox) + sizeof(struct comch_wire_hdr) + len;
	struct comch_outbox *o;
	struct comch_wire_hdr hdr = { .type = type, .arg = arg };

	if (conn->outbox_bytes + bytes > COMCH_OUTBOX_MAX) {
		comch_conn_refuse(conn, "the peer does not read its socket while it keeps making "
		                        "this side answer (256 KiB of control packets queued)");
		return false;
	}
	o = malloc(bytes);
	if (o == NULL)
		return false;
	conn->outbox_bytes += bytes;
	o->fd = pass_fd >= 0 ? dup(pass_fd) : -1;
	o->len = (uint32_t)(sizeof(hdr) + len);
	memcpy(o->bytes, &hdr, sizeof(hdr));
	if (len)
		memcpy(o->bytes + sizeof(hdr), payload, len);
	ODMA_QUEUE_PUSH(conn->outbox, conn->outbox_tail, o, next);
	atomic_fetch_add(&conn->outbox_n, 1);
	return true;
}

/* Under conn->lock. */
static void outbox_flush_locked(struct doca_comch_connection *conn)
{
	while (conn->outbox != NULL && !atomic_load(&conn->dead)) {
		struct comch_outbox *o = conn->outbox;
		const struct comch_wire_hdr *h = (const void *)o->bytes;
		int e = conn_send(conn, h->type, h->arg, o->bytes + sizeof(*h), o->len - sizeof(*h),
		                  o->fd);

		if (e == EAGAIN)
			return;
		ODMA_QUEUE_POP(conn->outbox, conn->outbox_tail, o, next);
		atomic_fetch_sub(&conn->outbox_n, 1);
		conn->outbox_bytes -= sizeof(*o) + o->len;
		if (o->fd >= 0)
			close(o->fd);
		free(o);
		if (e != 0)
			comch_conn_broken(conn, e);
	}
}

bool comch_conn_send_ctl(struct doca_comch_connection *conn, uint32_t type, uint32_t arg,
                         const void *payload, size_t len, int pass_fd)
{
	bool ok = true;
	int e;

	pthread_mutex_lock(&conn->lock);
	if (atomic_load(&conn->dead)) {
		ok = false;
	} else if (conn->outbox != NULL) {
		ok = outbox_push(conn, type, arg, payload, len, pass_fd);
	} else {
		e = conn_send(conn, type, arg, payload, len, pass_fd);
		if (e == EAGAIN)
			ok = outbox_push(conn, type, arg, payload, len, pass_fd);
		else if (e != 0) {
			comch_conn_broken(conn, e);
			ok = false;
		}
	}
	pthread_mutex_unlock(&conn->lock);
	return ok;
}

void comch_conn_flush_ctl(struct doca_comch_connection *conn)
{
	if (atomic_load_explicit(&conn->outbox_n, memory_order_relaxed) == 0)
		return;
	pthread_mutex_lock(&conn->lock);
	outbox_flush_locked(conn);
	pthread_mutex_unlock(&conn->lock);
}

/* ---- send tasks (the endpoint's PE thread) ---------------------------------------------- */

static struct comch_ep *task_ep(const struct doca_task *task)
{
	return odma_container_of(task->ctx, struct comch_ep, ctx);
}

/* ODMA_FAULTS comch_drop_after: count one message; cut the connection at the limit. */
static void fault_count(struct doca_comch_connection *conn)
{
	uint64_t limit = conn->ep->faults.drop_after;

	if (limit == 0 || ++conn->cut_count < limit)
		return;
	ODMA_WARN("comch %s \"%s\": fault injection cuts connection %p after %llu messages "
	          "(ODMA_FAULTS comch_drop_after)",
	          comch_ep_kind(conn->ep), conn->ep->name, (void *)conn, (unsigned long long)limit);
	comch_conn_kill(conn, COMCH_END_FAULT, "ODMA_FAULTS comch_drop_after");
}

static void sent_one(struct doca_comch_connection *conn, struct doca_comch_task_send *t)
{
	conn->counters[DOCA_COMCH_COUNTER_SENT_MESSAGES]++;
	conn->counters[DOCA_COMCH_COUNTER_SENT_BYTES] += t->len;
	doca_priv_task_complete(&t->base, DOCA_SUCCESS);
	fault_count(conn);
}

/* Completes @t after its message's send returned @e (not EAGAIN): sent, or the peer is gone. */
static void msg_written(struct doca_comch_connection *conn, struct doca_comch_task_send *t, int e)
{
	if (e == 0) {
		sent_one(conn, t);
		return;
	}
	comch_conn_broken(conn, e);
	doca_priv_task_complete(&t->base, DOCA_ERROR_CONNECTION_RESET);
}

/* Writes the queued sends in order; stops at a full socket. */
static bool flush_pending(struct doca_comch_connection *conn)
{
	struct comch_ep *ep = conn->ep;
	bool any = false;
	struct doca_task *t;

	while ((t = conn->pending.head) != NULL && !atomic_load(&conn->dead)) {
		struct doca_comch_task_send *st = (struct doca_comch_task_send *)t;
		int e = conn_send(conn, COMCH_W_MSG, 0, comch_task_msg(ep, st), st->len, -1);

		if (e == EAGAIN)
			break;
		ODMA_QUEUE_POP(conn->pending.head, conn->pending.tail, t, next);
		any = true;
		msg_written(conn, st, e);
	}
	return any;
}

static void fail_pending(struct doca_comch_connection *conn, doca_error_t status)
{
	struct doca_task *t = conn->pending.head;

	conn->pending.head = conn->pending.tail = NULL;
	while (t != NULL) {
		struct doca_task *next = t->next;

		doca_priv_task_complete(t, status);
		t = next;
	}
}

doca_error_t comch_send_submit(struct doca_task *task)
{
	struct doca_comch_task_send *t = (struct doca_comch_task_send *)task;
	struct doca_comch_connection *conn = t->conn;
	struct comch_ep *ep = task_ep(task);
	uint64_t peer_done;
	int e;

	if (atomic_load_explicit(&conn->dead, memory_order_acquire)) {
		ODMA_ERR("doca_task_submit: comch connection %p of %s \"%s\" is closed (%s); the "
		         "message is not sent",
		         (void *)conn, comch_ep_kind(ep), ep->name,
		         end_name(atomic_load(&conn->end)));
		return DOCA_ERROR_NOT_CONNECTED;
	}
	peer_done =
	        atomic_load_explicit(&conn->link->delivered[1 - conn->side], memory_order_acquire);
	if (conn->accepted - peer_done >= conn->peer_queue) {
		ODMA_RATELIMITED_WARN(
		        "doca_task_submit: the peer's receive queue (%u messages) is full on comch "
		        "connection %p; progress (the peer must progress too) and submit again",
		        conn->peer_queue, (void *)conn);
		return DOCA_ERROR_AGAIN;
	}
	/* read by the transport thread (a peer's CREDIT may not exceed it): one writer, relaxed */
	__atomic_store_n(&conn->accepted, conn->accepted + 1, __ATOMIC_RELAXED);
	if (conn->pending.head == NULL) {
		e = conn_send(conn, COMCH_W_MSG, 0, comch_task_msg(ep, t), t->len, -1);
		if (e != EAGAIN) {
			msg_written(conn, t, e);
			return DOCA_SUCCESS;
		}
	}
	odma_task_list_push(&conn->pending, task);
	return DOCA_SUCCESS;
}

void comch_send_free(struct doca_task *task)
{
	comch_conn_put(((struct doca_comch_task_send *)task)->conn);
}

void comch_send_complete(struct doca_task *task, bool success)
{
	struct comch_ep *ep = task_ep(task);
	doca_comch_task_send_completion_cb_t cb = success ? ep->send_ok : ep->send_err;

	cb((struct doca_comch_task_send *)task, task->user_data, task->ctx->user_data);
}

/* ---- receiving --------------------------------------------------------------------------- */

static void deliver(struct doca_comch_connection *conn, uint8_t *msg, uint32_t len)
{
	struct comch_ep *ep = conn->ep;

	conn->counters[DOCA_COMCH_COUNTER_RECV_MESSAGES]++;
	conn->counters[DOCA_COMCH_COUNTER_RECV_BYTES] += len;
	if (ep->recv_cb != NULL)
		ep->recv_cb(&ep->ev_msg, msg, len, conn);
	else
		ODMA_RATELIMITED_WARN("comch %s \"%s\": a message of %u bytes arrived but no "
		                      "receive callback is registered; dropped",
		                      comch_ep_kind(ep), ep->name, len);
	conn->delivered++;
	atomic_store_explicit(&conn->link->delivered[conn->side], conn->delivered,
	                      memory_order_release);
	fault_count(conn);
}

/* ODMA_FAULTS comch_delay_us: keeps one message until its due time (order is kept). */
static bool hold(struct doca_comch_connection *conn, const uint8_t *msg, uint32_t len)
{
	struct comch_ep *ep = conn->ep;
	uint32_t us = comch_rand_range(&ep->rng, ep->faults.delay_min_us, ep->faults.delay_max_us);

	conn->held = malloc(len ? len : 1);
	if (conn->held == NULL)
		return false;
	memcpy(conn->held, msg, len);
	conn->held_len = len;
	conn->held_due_ns = doca_priv_now_ns() + (uint64_t)us * 1000ull;
	return true;
}

static bool deliver_held(struct doca_comch_connection *conn)
{
	uint8_t *m = conn->held;

	if (doca_priv_now_ns() < conn->held_due_ns)
		return false;
	conn->held = NULL;
	deliver(conn, m, conn->held_len);
	free(m);
	return true;
}

/* One packet; false when the connection ended. */
static bool dispatch(struct doca_comch_connection *conn, size_t n, int *pfd)
{
	struct comch_ep *ep = conn->ep;
	const struct comch_wire_hdr *hdr = (const void *)ep->rx;
	uint8_t *payload = ep->rx + sizeof(*hdr);
	size_t plen = n - sizeof(*hdr);

	switch (hdr->type) {
	case COMCH_W_MSG:
		if (plen == 0 || plen > conn->max_msg) {
			ODMA_ERR("comch %s \"%s\": the peer sent a message of %zu bytes on "
			         "connection %p (limit %u); closing it",
			         comch_ep_kind(ep), ep->name, plen, (void *)conn, conn->max_msg);
			comch_conn_kill(conn, COMCH_END_PROTOCOL, "oversized message");
			return false;
		}
		if (ep->faults.delay_max_us != 0 && hold(conn, payload, (uint32_t)plen))
			return true;
		deliver(conn, payload, (uint32_t)plen);
		return true;
	case COMCH_W_BYE:
		conn->orderly = true;
		comch_conn_kill(conn, COMCH_END_PEER, "the peer disconnected");
		return false;
	case COMCH_W_CONS_NEW:
		comch_fp_on_cons_new(conn, hdr->arg, payload, plen, *pfd);
		*pfd = -1;
		return true;
	case COMCH_W_CONS_ACK: {
		uint32_t ok = 0;

		if (plen >= sizeof(ok))
			memcpy(&ok, payload, sizeof(ok));
		comch_fp_on_cons_ack(conn, hdr->arg, ok != 0);
		return true;
	}
	case COMCH_W_CONS_GONE:
		comch_fp_on_cons_gone(conn, hdr->arg);
		return true;
	default:
		ODMA_ERR("comch %s \"%s\": unknown packet type %u on connection %p; closing it",
		         comch_ep_kind(ep), ep->name, hdr->type, (void *)conn);
		comch_conn_kill(conn, COMCH_END_PROTOCOL, "unknown packet");
		return false;
	}
}

/*
 * Whether comch_conn_pump reads no more: the connection ended, or comch_conn_refuse (any
 * thread) marked it, and it ends here, on the progress thread.
 */
static bool conn_reading_stops(struct doca_comch_connection *conn)
{
	if (conn->rx_done)
		return true;
	if (atomic_load_explicit(&conn->end, memory_order_relaxed) != COMCH_END_PROTOCOL)
		return false;
	comch_conn_kill(conn, COMCH_END_PROTOCOL, "refused (comch_conn_refuse)");
	return true;
}

bool comch_conn_pump(struct doca_comch_connection *conn)
{
	struct comch_ep *ep = conn->ep;
	bool any = false;

	comch_conn_flush_ctl(conn);
	any |= flush_pending(conn);
	if (conn->ch->car->tick != NULL && conn->ch->car->tick(conn) && conn->rx_done)
		return true;
	for (uint32_t budget = COMCH_RECV_BUDGET; budget > 0; budget--) {
		int pfd = -1;
		ssize_t n;

		if (conn_reading_stops(conn))
			break;
		if (conn->held != NULL) {
			if (!deliver_held(conn))
				break;
			any = true;
			continue;
		}
		n = conn_recv(conn, &pfd);
		if (n == -EAGAIN)
			break;
		any = true;
		if (n == 0) {
			comch_conn_kill(conn, COMCH_END_PEER, "end of stream");
			break;
		}
		if (n < 0) {
			if (n == -EMSGSIZE || n == -EPROTO) {
				ODMA_ERR("comch %s \"%s\": "
				         "a malformed packet on connection %p (%s); closing it",
				         comch_ep_kind(ep), ep->name, (void *)conn,
				         strerror((int)-n));
				comch_conn_kill(conn, COMCH_END_PROTOCOL, "malformed packet");
			} else {
				comch_conn_kill(conn, COMCH_END_PEER, strerror((int)-n));
			}
			break;
		}
		(void)dispatch(conn, (size_t)n, &pfd);
		if (pfd >= 0)
			close(pfd);
	}
	if (!conn->rx_done && conn->ch->car->credit != NULL)
		conn->ch->car->credit(conn);
	return any;
}

/*
 * Tells the peer this side leaves (a BYE) once all that waits to leave left. EAGAIN when the
 * socket (or the transport's bound) takes no more now: nothing is lost, and a later call tries
 * again. 0 when sent, or when the connection is broken (no one to tell).
 */
static int conn_bye(struct doca_comch_connection *conn)
{
	if (atomic_load(&conn->dead))
		return 0;
	(void)flush_pending(conn);
	comch_conn_flush_ctl(conn);
	if (atomic_load(&conn->dead))
		return 0;
	if (conn->pending.head != NULL || atomic_load(&conn->outbox_n) != 0)
		return EAGAIN;
	return conn_send(conn, COMCH_W_BYE, 0, NULL, 0, -1) == EAGAIN ? EAGAIN : 0;
}

/* Ends @conn from this side: its sends still waiting fail with @status. */
static void conn_end(struct doca_comch_connection *conn, doca_error_t status)
{
	fail_pending(conn, status);
	/* what the peer sent is dropped; a BYE among it tells that the peer left in order */
	if (comch_chan_drain(conn->ch, 4096))
		conn->orderly = true;
	comch_conn_kill(conn, COMCH_END_LOCAL, "closed by this side");
}

void comch_conn_close(struct doca_comch_connection *conn, doca_error_t status)
{
	if (conn->rx_done || conn->closing_until != 0)
		return;
	(void)flush_pending(conn);
	fail_pending(conn, status); /* the stop flushes what the socket did not take */
	/* the BYE leaves after the control packets queued before it, or waits with them */
	if (comch_conn_send_ctl(conn, COMCH_W_BYE, 0, NULL, 0, -1) &&
	    atomic_load(&conn->outbox_n) != 0) {
		conn->closing_until =
		        doca_priv_now_ns() + (uint64_t)doca_priv_tp_timeout_ms() * 1000000ull;
		return;
	}
	conn_end(conn, status);
}

bool comch_conn_closing(struct doca_comch_connection *conn)
{
	bool left;

	/* what the peer sends meanwhile is dropped (its BYE: it left in order, no wait) */
	if (comch_chan_drain(conn->ch, COMCH_RECV_BUDGET))
		conn->orderly = true;
	comch_conn_flush_ctl(conn);
	left = atomic_load(&conn->outbox_n) == 0 || atomic_load(&conn->dead) || conn->orderly;
	if (!left && doca_priv_now_ns() < conn->closing_until)
		return false;
	if (!left)
		COMCH_PEER_LOG(WARNING, conn,
		               "comch %s \"%s\": the peer (%s) of connection %p read nothing for "
		               "%u ms (ODMA_TRANSPORT_TIMEOUT_MS): it is closed without its "
		               "disconnect message",
		               comch_ep_kind(conn->ep), conn->ep->name, comch_conn_who(conn).s,
		               (void *)conn, doca_priv_tp_timeout_ms());
	conn->closing_until = 0;
	conn_end(conn, DOCA_ERROR_IO_FAILED);
	return true;
}

doca_error_t comch_conn_disconnect(struct doca_comch_connection *conn)
{
	if (conn_bye(conn) == EAGAIN)
		return DOCA_ERROR_AGAIN;
	conn->dropped = true;
	conn_end(conn, DOCA_ERROR_IO_FAILED);
	return DOCA_SUCCESS;
}

struct comch_who comch_conn_who(const struct doca_comch_connection *conn)
{
	struct comch_who w;

	if (conn->peer_pid > 0)
		snprintf(w.s, sizeof(w.s), "pid %d, uid %u", (int)conn->peer_pid,
		         (unsigned int)conn->peer_uid);
	else /* the network carrier learns no pid */
		snprintf(w.s, sizeof(w.s), "at ODMA_FABRIC");
	return w;
}

bool comch_conn_finish(struct doca_comch_connection *conn)
{
	struct comch_ep *ep = conn->ep;
	int end;

	if (conn->notified)
		return false;
	conn->notified = true;
	end = atomic_load(&conn->end);
	fail_pending(conn,
	             end == COMCH_END_LOCAL ? DOCA_ERROR_IO_FAILED : DOCA_ERROR_CONNECTION_RESET);
	free(conn->held);
	conn->held = NULL;
	if (end == COMCH_END_PEER && !conn->orderly)
		ODMA_WARN("comch %s \"%s\": the peer (%s) closed connection %p "
		          "without disconnecting (its process ended or crashed); "
		          "in-flight sends fail, its consumers expire",
		          comch_ep_kind(ep), ep->name, comch_conn_who(conn).s, (void *)conn);
	if (!conn->dropped) {
		/* every consumer of the peer is gone with the connection */
		uint32_t id;

		while (comch_fp_expire_remote_one(conn, &id))
			if (ep->cons_gone_cb != NULL)
				ep->cons_gone_cb(&ep->ev_cons, conn, id);
	}
	ep->side->conn_ended(ep, conn, end);
	return true;
}

/* ---- connection API ------------------------------------------------------------------------ */

doca_error_t doca_comch_connection_set_user_data(struct doca_comch_connection *connection,
                                                 union doca_data user_data)
{
	ODMA_CHECK_ARG(connection != NULL,
	               "doca_comch_connection_set_user_data: connection must not be NULL");
	connection->user_data = user_data;
	return DOCA_SUCCESS;
}

union doca_data doca_comch_connection_get_user_data(const struct doca_comch_connection *connection)
{
	union doca_data none = { .u64 = 0 };

	return connection != NULL ? connection->user_data : none;
}

struct doca_comch_server *
doca_comch_server_get_server_ctx(const struct doca_comch_connection *connection)
{
	if (connection == NULL || connection->ep->side != &comch_server_side)
		return NULL;
	return odma_container_of(connection->ep, struct doca_comch_server, ep);
}

struct doca_comch_client *
doca_comch_client_get_client_ctx(const struct doca_comch_connection *connection)
{
	if (connection == NULL || connection->ep->side != &comch_client_side)
		return NULL;
	return odma_container_of(connection->ep, struct doca_comch_client, ep);
}

doca_error_t doca_comch_connection_update_info(struct doca_comch_connection *comch_connection)
{
	ODMA_CHECK_ARG(comch_connection != NULL,
	               "doca_comch_connection_update_info: connection must not be NULL");
	memcpy(comch_connection->snapshot, comch_connection->counters,
	       sizeof(comch_connection->snapshot));
	return atomic_load(&comch_connection->dead) ? DOCA_ERROR_CONNECTION_ABORTED : DOCA_SUCCESS;
}

doca_error_t doca_comch_connection_get_counter(const struct doca_comch_connection *comch_connection,
                                               enum doca_comch_counter counter_type,
                                               uint64_t *counter_value)
{
	ODMA_CHECK_ARG(comch_connection != NULL && counter_value != NULL,
	               "doca_comch_connection_get_counter: NULL argument");
	ODMA_CHECK_ARG(counter_type >= DOCA_COMCH_COUNTER_SENT_MESSAGES &&
	                       counter_type <= DOCA_COMCH_COUNTER_RECV_BYTES,
	               "doca_comch_connection_get_counter: unknown counter %d", (int)counter_type);
	*counter_value = comch_connection->snapshot[counter_type];
	return DOCA_SUCCESS;
}
