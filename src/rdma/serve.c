/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The reader thread of a stream. On a stream the peer dialed it serves the peer: binds the
 * stream to a connection (HELLO, CM request, CM second stream), checks and applies one-sided
 * operations against this process' exports (core/memory, core/sync_event), and matches
 * sends with the posted receives (holding a send for the receiver-not-ready time when none
 * is posted). On a stream we dialed it reads the responses and finishes our tasks. It never
 * waits for the program: the program may be blocked anywhere.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log/log.h"
#include "core/memory/memory.h"
#include "core/sync_event/sync_event.h"
#include "rdma/rdma.h"
#include "util/codec.h"

ODMA_LOG_REGISTER(ODMA_RDMA_SERVE)

bool odma_rd_frame_out(struct rd_stream *s, const struct rw_hdr *h, const void *p, size_t n)
{
	bool ok;

	pthread_mutex_lock(&s->wlock);
	ok = rw_write(s->ch, h, p, n, NULL, 0);
	pthread_mutex_unlock(&s->wlock);
	return ok;
}

/* Sends one control frame on a stream (outside rd->lock). */
bool odma_rd_ctl(struct rd_stream *s, uint16_t type, uint64_t arg0, const uint8_t *key)
{
	struct rw_hdr h = { .magic = RW_MAGIC, .type = type, .arg0 = arg0 };

	if (key != NULL)
		memcpy(h.key, key, 16);
	return odma_rd_frame_out(s, &h, NULL, 0);
}

static bool rd_reply(struct rd_stream *s, uint64_t tag, doca_error_t st, uint64_t arg0,
                     const void *p, size_t n)
{
	struct rw_hdr h = {
		.magic = RW_MAGIC, .type = RW_RESP, .tag = tag, .status = (uint32_t)st, .arg0 = arg0
	};

	return odma_rd_frame_out(s, &h, p, n);
}

/* Appends @n bytes from @src to a destination list. */
static bool rd_append(struct doca_buf *d, const uint8_t *src, size_t n)
{
	for (; d != NULL && n > 0; d = d->next) {
		size_t k = odma_buf_room(d);

		if (k > n)
			k = n;
		memcpy(d->data + d->data_len, src, k);
		src += k;
		d->data_len += k;
		n -= k;
	}
	return n == 0;
}

/*
 * Copies @n bytes from @src into a destination list's free space, @off bytes into it, leaving
 * its data length as it is (a read's or a send's pieces become data only when the whole has
 * come: rd_grow).
 */
static void rd_place(struct doca_buf *d, size_t off, const uint8_t *src, size_t n)
{
	for (; d != NULL && n > 0; d = d->next) {
		size_t room = odma_buf_room(d), k;

		if (off >= room) {
			off -= room;
			continue;
		}
		k = room - off < n ? room - off : n;
		memcpy(d->data + d->data_len + off, src, k);
		src += k;
		n -= k;
		off = 0;
	}
}

/* Grows a destination list's data by the @n bytes placed in its free space (rd_place). */
static void rd_grow(struct doca_buf *d, size_t n)
{
	for (; d != NULL && n > 0; d = d->next) {
		size_t k = odma_buf_room(d) < n ? odma_buf_room(d) : n;

		d->data_len += k;
		n -= k;
	}
}

/* ---------------------------------------------------------------- binding a stream */

/* The connection whose id and key the frame @h presents, or NULL (rd->lock held). */
static struct doca_rdma_connection *rd_conn_named_locked(struct doca_rdma *rd,
                                                         const struct rw_hdr *h)
{
	struct doca_rdma_connection *c;

	if (rd->conns == NULL || h->arg0 < 1 || h->arg0 > rd->nslots)
		return NULL;
	c = &rd->conns[h->arg0 - 1];
	return odma_key_eq(c->key, h->key, 16) ? c : NULL;
}

/*
 * Whether connection @c takes the stream a peer opened with frame @h (rd->lock held): a HELLO
 * as the in stream of a connection exported or connected, a CM client's second stream
 * (RW_CM_REV) as the out stream of one we accepted.
 */
static bool rd_bindable_locked(const struct doca_rdma_connection *c, const struct rw_hdr *h)
{
	if (h->type == RW_CM_REV)
		return c->state == RD_C_ACCEPTED && c->out == NULL;
	return (c->state == RD_C_EXPORTED || c->state == RD_C_CONNECTED) && c->in == NULL;
}

/*
 * Binds the stream @s a peer opened with a HELLO or a CM second stream @h to the connection
 * that frame names (id and key), which the second stream establishes; answered either way.
 */
static bool rd_bind(struct rd_stream *s, const struct rw_hdr *h)
{
	struct doca_rdma *rd = s->rd;
	struct doca_rdma_connection *c;
	doca_error_t st = DOCA_ERROR_NOT_FOUND;

	pthread_mutex_lock(&rd->lock);
	c = rd_conn_named_locked(rd, h);
	if (c != NULL && rd_bindable_locked(c, h)) {
		s->conn = c;
		s->out = h->type == RW_CM_REV;
		if (s->out)
			c->out = s;
		else
			c->in = s;
		rw_open(s->ch); /* before the answer: the peer sends as soon as it has it */
		odma_rd_stream_start_locked(s);
		if (s->out) {
			c->state = RD_C_ESTABLISHED;
			odma_rd_event_locked(rd, c, RD_E_ESTABLISHED);
		}
		st = DOCA_SUCCESS;
	}
	pthread_mutex_unlock(&rd->lock);
	if (st != DOCA_SUCCESS && h->type == RW_HELLO)
		ODMA_WARN("RDMA context %p: refused a peer presenting connection %llu (unknown, "
		          "taken or wrong key)",
		          (void *)rd, (unsigned long long)h->arg0);
	return rd_reply(s, h->tag, st, 0, NULL, 0) && st == DOCA_SUCCESS;
}

static bool rd_cm_req(struct rd_stream *s, const struct rw_hdr *h)
{
	struct doca_rdma *rd = s->rd;
	struct doca_rdma_connection *c;

	(void)h;
	pthread_mutex_lock(&rd->lock);
	c = rd->cb_request != NULL ? odma_rd_conn_alloc_locked(rd) : NULL;
	if (c != NULL) {
		/* the transport does not name the client's address: get_addr says NOT_FOUND */
		c->cm = true;
		c->state = RD_C_REQUESTED;
		c->in = s;
		s->conn = c;
		odma_rd_event_locked(rd, c, RD_E_REQUEST);
	}
	pthread_mutex_unlock(&rd->lock);
	if (c == NULL) {
		ODMA_WARN("RDMA context %p: rejected a connection request (%s)", (void *)rd,
		          rd->cb_request == NULL ? "no request callback set"
		                                 : "all connections in use");
		(void)odma_rd_ctl(s, RW_CM_REJECT, 0, NULL);
		return false;
	}
	return true;
}

/* How often the wait for the server's answer to our second stream looks for a stop. */
#define RD_REV_POLL_MS 50u

/*
 * CM client: waits up to the connection timeout for the server's answer on our second stream
 * @ch, in slices, so that a stop or the program's disconnect (which know nothing of @ch) ends
 * the wait at once: true with *@resp, or false.
 */
static bool rd_cm_rev_answer(struct rd_stream *s, struct rw_chan *ch, struct rw_hdr *resp)
{
	struct doca_rdma *rd = s->rd;
	uint64_t end = rw_now_ms() + rd->conn_timeout_ms;

	for (;;) {
		int got = rw_next(ch, resp, RD_REV_POLL_MS);
		bool gone;

		if (got != 0)
			return got == 1;
		pthread_mutex_lock(&rd->lock);
		gone = rd->stopping || s->conn->state != RD_C_CONNECTING;
		pthread_mutex_unlock(&rd->lock);
		if (gone || rw_now_ms() >= end)
			return false;
	}
}

/* CM client: the server accepted; open the server's stream (its requests to us). */
static bool rd_cm_accepted(struct rd_stream *s, const struct rw_hdr *h)
{
	struct doca_rdma *rd = s->rd;
	struct doca_rdma_connection *c = s->conn;
	struct rw_hdr rev = { .magic = RW_MAGIC, .type = RW_CM_REV, .arg0 = h->arg0 };
	struct rw_hdr resp;
	struct rw_chan *ch = NULL;
	char v4[INET_ADDRSTRLEN];
	const char *ip;

	if (c == NULL || c->state != RD_C_CONNECTING)
		return false;
	memcpy(rev.key, h->key, 16);
	ip = odma_rd_cm_ipv4(&c->peer, v4); /* its first stream went there */
	if (ip != NULL)
		ch = rw_dial(ip, c->peer.port);
	if (ch == NULL || !rw_write(ch, &rev, NULL, 0, NULL, 0) ||
	    !rd_cm_rev_answer(s, ch, &resp) || resp.type != RW_RESP ||
	    resp.status != DOCA_SUCCESS) {
		rw_close(ch);
		return false; /* the stream dies: the failure callback follows */
	}
	if (odma_rd_stream_new(rd, ch, false, c, true) == NULL)
		return false;
	pthread_mutex_lock(&rd->lock);
	if (c->state == RD_C_CONNECTING) {
		c->state = RD_C_ESTABLISHED;
		odma_rd_event_locked(rd, c, RD_E_ESTABLISHED);
	}
	pthread_mutex_unlock(&rd->lock);
	return true;
}

static bool rd_cm_rejected(struct rd_stream *s)
{
	struct doca_rdma *rd = s->rd;
	struct doca_rdma_connection *c = s->conn;

	pthread_mutex_lock(&rd->lock);
	/* only the server's answer to our request; else the stream's end raises what is due */
	if (c != NULL && c->cm && s == c->out && c->state == RD_C_CONNECTING) {
		odma_rd_event_locked(rd, c, RD_E_FAILURE);
		odma_rd_conn_close_locked(c, false);
	}
	pthread_mutex_unlock(&rd->lock);
	return false;
}

void odma_rd_admit(struct doca_rdma *rd, struct rw_chan *ch, bool cm)
{
	struct rd_stream *s;
	struct rw_hdr h;
	bool ok;
	int got = rw_next(ch, &h, 1); /* it came (or the peer closed): rw_accept said so */

	/* a CM request only on a port the program listens on (doca_rdma_start_listen_to_port) */
	if (got == 1 && (h.len != 0 || (h.type != RW_HELLO && h.type != RW_CM_REV &&
	                                (h.type != RW_CM_REQ || !cm))))
		got = -2;
	if (got == -2)
		ODMA_WARN("RDMA context %p: a peer opened with a frame of type %u and %llu payload "
		          "bytes; a connection opens with its HELLO, a CM request (on an RDMA CM "
		          "port) or its second stream (no payload): closed",
		          (void *)rd, (unsigned)h.type, (unsigned long long)h.len);
	if (got != 1) {
		rw_close(ch);
		return;
	}
	s = odma_rd_stream_new(rd, ch, false, NULL, false);
	if (s == NULL)
		return;
	ok = h.type == RW_CM_REQ ? rd_cm_req(s, &h) : rd_bind(s, &h);
	if (!ok)
		odma_rd_stream_discard(s);
}

/* ---------------------------------------------------------------- serving the peer */

/*
 * Takes the oldest posted receive for a message of @len bytes (rd->lock held, a receive
 * posted): DOCA_SUCCESS and *@out, or the status for the sender when the message does not fit
 * (the receive then fails).
 */
static doca_error_t rd_recv_take_locked(struct rd_stream *s, uint8_t opcode, size_t len,
                                        struct rd_task **out)
{
	struct doca_rdma *rd = s->rd;
	struct rd_task *t = rd_queue_pop(&rd->recv_head, &rd->recv_tail);

	if (opcode != DOCA_RDMA_OPCODE_RECV_WRITE_WITH_IMM && len > odma_buf_list_room(t->dst)) {
		ODMA_ERR("RDMA context %p: a %zu-byte message does not fit receive task %p "
		         "(%zu bytes free); post larger receive buffers",
		         (void *)rd, len, (void *)t, odma_buf_list_room(t->dst));
		odma_rd_done_locked(rd, t, DOCA_ERROR_INVALID_VALUE);
		return DOCA_ERROR_IO_FAILED;
	}
	*out = t;
	return DOCA_SUCCESS;
}

/*
 * Applies a request whose effect the program can see and answers it, in one answer window
 * (rw_answer_begin): a disconnect that follows the effect still lets the answer out, and the
 * program's own disconnect goes out after it (doca_rdma_connection_disconnect). The effect is
 * a write, an atomic or a sync event's change, or a receive completed by a send or a write
 * with immediate. A channel already ending applies nothing and answers nothing (the
 * initiator's task fails as for a connection that ended before it arrived).
 */
static bool rd_answer_begin(struct rd_stream *s)
{
	return rw_answer_begin(s->ch);
}

static bool rd_answered(struct rd_stream *s, bool ok)
{
	rw_answer_end(s->ch);
	return ok;
}

/* Completes receive @t, which took a whole message of @len bytes (rd->lock held). */
static void rd_recv_done_locked(struct rd_stream *s, struct rd_task *t, uint8_t opcode,
                                uint32_t imm, size_t len)
{
	t->res_len = (uint32_t)len;
	t->res_opcode = opcode;
	t->res_imm = imm;
	t->res_conn = s->conn;
	odma_rd_done_locked(s->rd, t, DOCA_SUCCESS);
}

/*
 * Gives a message to the oldest posted receive (rd->lock held, a receive posted, the answer
 * window open: rd_answer_begin): the status for the sender.
 */
static doca_error_t rd_deliver_locked(struct rd_stream *s, uint8_t opcode, uint32_t imm,
                                      const uint8_t *msg, size_t len)
{
	struct rd_task *t;
	doca_error_t st = rd_recv_take_locked(s, opcode, len, &t);

	if (st != DOCA_SUCCESS)
		return st;
	if (opcode != DOCA_RDMA_OPCODE_RECV_WRITE_WITH_IMM)
		(void)rd_append(t->dst, msg, len);
	rd_recv_done_locked(s, t, opcode, imm, len);
	return DOCA_SUCCESS;
}

/*
 * Waits (rd->lock held) up to the sender's receiver-not-ready time for a posted receive:
 * DOCA_SUCCESS, or the status for the sender.
 */
static doca_error_t rd_recv_wait_locked(struct rd_stream *s, uint64_t rnr_ms)
{
	struct doca_rdma *rd = s->rd;
	struct timespec end;

	/*
	 * The sender's receiver-not-ready budget (its rnr_retry_count), at most 8 s; a disconnect
	 * ends the wait (odma_rd_conn_close_locked wakes it), or it would hold the connection's
	 * slot that long.
	 */
	rw_deadline(&end, rnr_ms < 8000 ? (uint32_t)rnr_ms : 8000u);
	while (rd->recv_head == NULL && !rd->stopping && !s->dead && !rw_ending(s->ch) &&
	       pthread_cond_timedwait(&rd->recv_cond, &rd->lock, &end) != ETIMEDOUT)
		;
	if (rd->recv_head != NULL)
		return DOCA_SUCCESS;
	return rd->stopping || rw_ending(s->ch) ? DOCA_ERROR_IO_FAILED : DOCA_ERROR_TIME_OUT;
}

/*
 * Gives a message to the oldest posted receive, waiting up to the receiver-not-ready time
 * for one, in an answer window (rd_answer_begin): the caller answers with the status returned,
 * then closes it (rd_answered). False in *@open: our side is ending the stream, nothing was
 * delivered and nothing is answered.
 */
static doca_error_t rd_deliver(struct rd_stream *s, uint8_t opcode, uint32_t imm,
                               const uint8_t *msg, size_t len, uint64_t rnr_ms, bool *open)
{
	struct doca_rdma *rd = s->rd;
	doca_error_t st;

	pthread_mutex_lock(&rd->lock);
	st = rd_recv_wait_locked(s, rnr_ms);
	*open = rd_answer_begin(s);
	if (st == DOCA_SUCCESS && *open)
		st = rd_deliver_locked(s, opcode, imm, msg, len);
	pthread_mutex_unlock(&rd->lock);
	return st;
}

/* Whether a request's payload is within the limit the peer was told (else: cut the stream). */
static bool rd_len_ok(const struct rd_stream *s, const struct rw_hdr *h)
{
	return h->len <= s->rd->ctx.caps->rdma_max_msg_size;
}

static uint8_t rd_send_opcode(const struct rw_hdr *h)
{
	return (h->flags & RW_F_IMM) ? DOCA_RDMA_OPCODE_RECV_SEND_WITH_IMM
	                             : DOCA_RDMA_OPCODE_RECV_SEND;
}

/*
 * Where the peer's frame @h stands in a request cut into frames (RW_F_MORE, rdma.h): 1 serve
 * it, 0 drop it (an earlier frame of its request failed and was answered), -1 it breaks the
 * order (the stream ends). Its first frame starts the request (s->cut); serving its last ends
 * it (rd_cut_served).
 */
static int rd_cut_frame(struct rd_stream *s, const struct rw_hdr *h)
{
	bool more = (h->flags & RW_F_MORE) != 0;

	if (more && h->type != RW_SEND && h->type != RW_WRITE) {
		ODMA_ERR("RDMA context %p: a peer cut a frame of type %u into pieces (only "
		         "sends and writes go in pieces); the stream is cut",
		         (void *)s->rd, (unsigned)h->type);
		return -1;
	}
	if (!s->cut.active) {
		s->cut.active = more; /* else a request in one frame */
		s->cut.skip = false;
		s->cut.type = h->type;
		s->cut.tag = h->tag;
		s->cut.off = 0;
		s->cut.total = h->arg0;
		return 1;
	}
	if (h->tag != s->cut.tag || h->type != s->cut.type) {
		ODMA_ERR("RDMA context %p: a peer sent another request amid the frames of one cut "
		         "into pieces; the stream is cut",
		         (void *)s->rd);
		return -1;
	}
	if (!s->cut.skip)
		return 1;
	s->cut.active = more;
	return 0;
}

/* Frame @h of the current request was served: @ok false (answered with a failure) drops the rest.
 */
static void rd_cut_served(struct rd_stream *s, const struct rw_hdr *h, bool ok)
{
	bool more = (h->flags & RW_F_MORE) != 0;

	s->cut.active = more;
	s->cut.skip = more && !ok;
}

/*
 * A frame of a send cut into frames: the first takes the oldest receive (waiting for one, as
 * a whole send does) for the message's length, each fills it in turn, the last completes it
 * and is answered. A failure is answered at once and the rest dropped.
 */
static bool rd_serve_send_cut(struct rd_stream *s, const struct rw_hdr *h, const uint8_t *msg)
{
	struct doca_rdma *rd = s->rd;
	bool last = !(h->flags & RW_F_MORE);
	doca_error_t st = DOCA_SUCCESS;

	if (h->addr != s->cut.off || h->arg0 != s->cut.total ||
	    h->len > s->cut.total - s->cut.off || (last && s->cut.off + h->len != s->cut.total) ||
	    s->cut.total > rd->ctx.caps->rdma_max_msg_size) {
		ODMA_ERR("RDMA context %p: the pieces of a peer's send do not add up (%llu "
		         "bytes at %llu of %llu); the stream is cut",
		         (void *)rd, (unsigned long long)h->len, (unsigned long long)h->addr,
		         (unsigned long long)h->arg0);
		return false;
	}
	if (s->cut.recv == NULL) {
		atomic_fetch_add(&rd->n_send_held, 1);
		pthread_mutex_lock(&rd->lock);
		st = rd_recv_wait_locked(s, h->arg1);
		if (st == DOCA_SUCCESS)
			st = rd_recv_take_locked(s, rd_send_opcode(h), (size_t)s->cut.total,
			                         &s->cut.recv);
		pthread_mutex_unlock(&rd->lock);
	}
	if (st != DOCA_SUCCESS) {
		rd_cut_served(s, h, false);
		return rd_reply(s, h->tag, st, 0, NULL, 0);
	}
	/* fits: checked for the whole; its data length grows when the last piece completes it */
	rd_place(s->cut.recv->dst, (size_t)s->cut.off, msg, (size_t)h->len);
	s->cut.off += h->len;
	rd_cut_served(s, h, true);
	if (!last)
		return true;
	pthread_mutex_lock(&rd->lock);
	if (!rd_answer_begin(s)) { /* we are ending the stream: its end fails the receive */
		pthread_mutex_unlock(&rd->lock);
		return false;
	}
	rd_grow(s->cut.recv->dst, (size_t)s->cut.total);
	rd_recv_done_locked(s, s->cut.recv, rd_send_opcode(h), h->imm, (size_t)s->cut.total);
	s->cut.recv = NULL;
	pthread_mutex_unlock(&rd->lock);
	return rd_answered(s, rd_reply(s, h->tag, DOCA_SUCCESS, 0, NULL, 0));
}

static bool rd_serve_send(struct rd_stream *s, const struct rw_hdr *h, const uint8_t *msg)
{
	doca_error_t st;
	bool open;

	if (s->cut.active)
		return rd_serve_send_cut(s, h, msg);
	if (!rd_len_ok(s, h))
		return false;
	atomic_fetch_add(&s->rd->n_send_held, 1);
	st = rd_deliver(s, rd_send_opcode(h), h->imm, msg, (size_t)h->len, h->arg1, &open);
	return open && rd_answered(s, rd_reply(s, h->tag, st, 0, NULL, 0));
}

/*
 * A write (or one frame of a write cut into frames, each a write of its own range: only the
 * last is answered, and only the last delivers an immediate).
 */
static bool rd_serve_write(struct rd_stream *s, const struct rw_hdr *h, const uint8_t *msg)
{
	doca_error_t st;
	bool more = (h->flags & RW_F_MORE) != 0, imm = !more && (h->flags & RW_F_IMM) != 0;

	if (!rd_len_ok(s, h))
		return false;
	/* with an immediate, the program learns of it by the receive: delivered under the lock */
	if (!imm && !rd_answer_begin(s))
		return false;
	/* the frame stays ours until we return: the bytes are copied from it, never written */
	st = doca_priv_rdma_mem_access(h->rec, h->key, h->addr, h->len, ODMA_RDMA_OP_WRITE,
	                               (void *)(uintptr_t)msg);
	rd_cut_served(s, h, st == DOCA_SUCCESS);
	if (more && st == DOCA_SUCCESS) {
		/* the last frame answers, and its immediate's receive reports the whole write */
		s->cut.off += h->len;
		return rd_answered(s, true);
	}
	if (imm && st != DOCA_SUCCESS)
		return rd_reply(s, h->tag, st, 0, NULL, 0); /* nothing the program sees */
	if (imm) {
		bool open;

		st = rd_deliver(s, DOCA_RDMA_OPCODE_RECV_WRITE_WITH_IMM, h->imm, NULL,
		                (size_t)(s->cut.off + h->len), h->arg1, &open);
		if (!open)
			return false;
	}
	return rd_answered(s, rd_reply(s, h->tag, st, 0, NULL, 0));
}

/*
 * How often a reader looks at its deadlines: the age of the oldest answer its requests wait
 * for, a CM client's second stream.
 */
#define RD_WATCH_MS 250u

/*
 * Whether the RDMA CM connection of stream @s is still not established past its deadline
 * (doca_rdma_set_connection_request_timeout after the request or the accept), as a CM
 * handshake whose peer stays silent times out on hardware. One log line.
 */
static bool rd_cm_overdue(struct rd_stream *s)
{
	struct doca_rdma *rd = s->rd;
	struct doca_rdma_connection *c;
	bool late;

	pthread_mutex_lock(&rd->lock);
	c = s->conn;
	late = c != NULL && c->cm_due_ms != 0 && rw_now_ms() > c->cm_due_ms &&
	       (c->state == RD_C_CONNECTING || c->state == RD_C_ACCEPTED);
	pthread_mutex_unlock(&rd->lock);
	if (late)
		ODMA_ERR("RDMA context %p: connection %u is not established %u ms after its %s; "
		         "the peer did not finish the handshake; the failure callback follows "
		         "(a slow peer needs a longer doca_rdma_set_connection_request_timeout)",
		         (void *)rd, c->id, (unsigned)rd->conn_timeout_ms,
		         c->state == RD_C_CONNECTING ? "request" : "accept");
	return late;
}

/*
 * Whether @s is the stream of a CM client we accepted whose second stream has not come yet.
 * No lock per frame: s->conn does not change while the reader runs, and the state is atomic.
 */
static bool rd_cm_waiting(const struct rd_stream *s)
{
	return s->conn != NULL && s->conn->state == RD_C_ACCEPTED;
}

/*
 * How long a peer may leave a request of ours unanswered, or our answers untaken: the
 * receiver-not-ready time it allows (at most 8 s) plus the connection timeout
 * (doca_rdma_set_connection_request_timeout, default 5 s).
 */
static uint64_t rd_patience_ms(const struct doca_rdma *rd)
{
	uint64_t rnr = odma_rd_rnr_ms(rd);

	return (rnr < 8000 ? rnr : 8000) + rd->conn_timeout_ms;
}

/*
 * Waits for room to answer the peer (rw_pace): 1, or -1 when the stream ended. 0, with one
 * line, when the peer took none of our frames for rd_patience_ms (it stopped reading: a queue
 * pair's retries run out), or when this is the stream of a CM client we accepted that is not
 * established by its deadline meanwhile (one that takes no answers is held to it as a silent
 * one is: rd_cm_overdue).
 */
static int rd_pace(struct rd_stream *s)
{
	uint64_t sent = rw_sent_count(s->ch), idle = 0;

	for (;;) {
		int r = rw_pace_for(s->ch, RD_WATCH_MS);
		uint64_t now_sent;

		if (r != 0)
			return r;
		now_sent = rw_sent_count(s->ch);
		if (rd_cm_waiting(s) && rd_cm_overdue(s))
			return 0;
		idle = now_sent == sent ? idle + RD_WATCH_MS : 0;
		sent = now_sent;
		if (idle > rd_patience_ms(s->rd)) {
			ODMA_ERR("RDMA context %p: the peer has taken none of our answers for %llu "
			         "ms (it stopped reading); the connection is cut",
			         (void *)s->rd, (unsigned long long)idle);
			return 0;
		}
	}
}

/*
 * Answers a read: its bytes in frames of at most RW_PIECE_MAX (RW_F_MORE on all but the
 * last), each read (and checked against the export) as it goes, at the pace the peer takes
 * them (rd_pace; never on the transport thread: odma_rd_fast serves only short reads); a piece
 * that fails answers its status and ends the answer.
 */
static bool rd_serve_read(struct rd_stream *s, const struct rw_hdr *h)
{
	uint64_t n = h->arg0, off = 0;
	size_t cap = n < RW_PIECE_MAX ? (size_t)n : RW_PIECE_MAX;
	uint8_t *buf = NULL;
	doca_error_t st = DOCA_ERROR_INVALID_VALUE;
	struct rw_hdr a = { .magic = RW_MAGIC, .type = RW_RESP, .tag = h->tag };
	bool ok;
	int room = 1;

	if (n <= s->rd->ctx.caps->rdma_max_msg_size)
		st = (buf = malloc(cap ? cap : 1)) == NULL ? DOCA_ERROR_NO_MEMORY : DOCA_SUCCESS;
	do {
		size_t k = n - off < cap ? (size_t)(n - off) : cap;

		if (st == DOCA_SUCCESS)
			st = doca_priv_rdma_mem_access(h->rec, h->key, h->addr + off, k,
			                               ODMA_RDMA_OP_READ, buf);
		off += k;
		a.status = (uint32_t)st;
		a.flags = st == DOCA_SUCCESS && off < n ? RW_F_MORE : 0;
		ok = odma_rd_frame_out(s, &a, buf, st == DOCA_SUCCESS ? k : 0);
	} while (ok && a.flags != 0 && (room = rd_pace(s)) > 0);
	free(buf);
	return ok && room != 0; /* a deadline passed: the stream ends */
}

static bool rd_serve_atomic(struct rd_stream *s, const struct rw_hdr *h)
{
	uint64_t v[2] = { h->arg0, h->arg1 };
	int op = h->type == RW_ATOMIC_CAS ? ODMA_RDMA_OP_CMP_SWP : ODMA_RDMA_OP_FETCH_ADD;
	doca_error_t st;

	if (!rd_answer_begin(s))
		return false;
	st = doca_priv_rdma_mem_access(h->rec, h->key, h->addr, 8, op, v);
	return rd_answered(s, rd_reply(s, h->tag, st, v[0], NULL, 0));
}

static bool rd_serve_se(struct rd_stream *s, const struct rw_hdr *h)
{
	uint64_t v = h->arg0;
	int op = h->type == RW_SE_GET   ? ODMA_SE_NET_GET
	         : h->type == RW_SE_SET ? ODMA_SE_NET_SET
	                                : ODMA_SE_NET_ADD;
	doca_error_t st;

	if (!rd_answer_begin(s))
		return false;
	st = h->rec > UINT32_MAX ? DOCA_ERROR_NOT_FOUND
	                         : doca_priv_se_remote_access((uint32_t)h->rec, h->key, op, &v);
	return rd_answered(s, rd_reply(s, h->tag, st, v, NULL, 0));
}

/* ---------------------------------------------------------------- our requests' responses */

/* What a target's refusal means for the initiator's task. */
static doca_error_t rd_remote_status(uint32_t st)
{
	switch ((doca_error_t)st) {
	case DOCA_SUCCESS:
	case DOCA_ERROR_TIME_OUT:
	case DOCA_ERROR_IO_FAILED:
		return (doca_error_t)st;
	default:
		return DOCA_ERROR_IO_FAILED; /* remote access error */
	}
}

/* What a successful answer gives task @t besides a read's bytes (@old: the value it carries). */
static void rd_result(struct rd_task *t, uint64_t old)
{
	switch (t->type) {
	case RD_T_READ:
		rd_grow(t->dst, t->res_len);
		break;
	case RD_T_WRITE:
	case RD_T_WRITE_IMM:
		if (t->dst != NULL)
			t->dst->data_len += (size_t)t->arg1;
		break;
	case RD_T_SE_GET:
		(void)rd_append(t->dst, (const uint8_t *)&old, 8);
		t->res_len = 8;
		break;
	case RD_T_CMP_SWP:
	case RD_T_FETCH_ADD:
	case RD_T_SE_ADD:
		(void)rd_append(t->result, (const uint8_t *)&old, 8);
		break;
	default:
		break;
	}
}

/*
 * Whether the answer @h (status @st) to our request @t carries what it may: bytes (in pieces:
 * RW_F_MORE) only with a successful read's answer, within its room, and its pieces together
 * exactly the length the read asked for (a peer's count is never trusted beyond it).
 */
static bool rd_answer_fits(const struct rd_task *t, const struct rw_hdr *h, doca_error_t st)
{
	bool more = (h->flags & RW_F_MORE) != 0;
	uint64_t got = t->res_len + h->len;

	if (t->type != RD_T_READ || st != DOCA_SUCCESS)
		return h->len == 0 && !more;
	return h->len <= odma_buf_list_room(t->dst) && got <= t->arg1 && (more || got == t->arg1);
}

/* Finishes the oldest request of our stream @s with its response @h (rd->lock held). */
static bool rd_response_locked(struct rd_stream *s, const struct rw_hdr *h, const uint8_t *p)
{
	struct doca_rdma *rd = s->rd;
	struct rd_task *t = s->pend_head;
	doca_error_t st = rd_remote_status(h->status);
	bool more = (h->flags & RW_F_MORE) != 0, bad;

	if (t == NULL || t->tag != h->tag) {
		ODMA_ERR("RDMA context %p: a response matches no request; the stream is cut",
		         (void *)rd);
		return false;
	}
	bad = !rd_answer_fits(t, h, st);
	if (bad || !more)
		(void)rd_queue_pop(&s->pend_head, &s->pend_tail);
	if (bad) {
		odma_rd_done_locked(rd, t, DOCA_ERROR_IO_FAILED);
		return false;
	}
	if (t->type == RD_T_READ) { /* its data length grows when it succeeds (rd_result) */
		rd_place(t->dst, t->res_len, p, (size_t)h->len);
		t->res_len += (uint32_t)h->len;
	}
	if (more) {
		t->sent_ms = rw_now_ms(); /* the peer answers: rd_overdue measures its silence */
		return true;
	}
	if (st == DOCA_SUCCESS) {
		rd_result(t, h->arg0);
		odma_rd_trace_wire(t);
	}
	odma_rd_done_locked(rd, t, st);
	return true;
}

static bool rd_response(struct rd_stream *s, const struct rw_hdr *h, const uint8_t *p)
{
	bool ok;

	pthread_mutex_lock(&s->rd->lock);
	ok = rd_response_locked(s, h, p);
	pthread_mutex_unlock(&s->rd->lock);
	return ok;
}

/* ---------------------------------------------------------------- the loop */

/*
 * Whether a frame of type @type may come on stream @s: on the stream of our requests (s->out)
 * only the peer's answers, its CM answer and its disconnect; its own requests come on its
 * stream (a CM server's before its accept would reach a connection the program was never
 * told of). One log line when not.
 */
static bool rd_frame_allowed(const struct rd_stream *s, uint16_t type)
{
	if (!s->out || type == RW_RESP || type == RW_CM_ACCEPT || type == RW_CM_REJECT ||
	    type == RW_DISCONNECT)
		return true;
	ODMA_ERR("RDMA context %p: a peer sent a frame of type %u on the stream of our requests "
	         "(its requests come on its own stream); the stream is cut",
	         (void *)s->rd, (unsigned)type);
	return false;
}

static bool rd_handle(struct rd_stream *s, const struct rw_hdr *h)
{
	const uint8_t *p = rw_payload(s->ch);
	int go;

	if (s->conn == NULL)
		return false; /* only an admitted stream has a reader */
	if (!rd_frame_allowed(s, h->type))
		return false;
	if (h->type != RW_RESP && (go = rd_cut_frame(s, h)) <= 0)
		return go == 0;
	switch (h->type) {
	case RW_CM_ACCEPT:
		return rd_cm_accepted(s, h);
	case RW_CM_REJECT:
		return rd_cm_rejected(s);
	case RW_DISCONNECT:
		return false;
	case RW_RESP:
		return rd_response(s, h, p);
	case RW_SEND:
		return rd_serve_send(s, h, p);
	case RW_WRITE:
		return rd_serve_write(s, h, p);
	case RW_READ:
		return rd_serve_read(s, h);
	case RW_ATOMIC_CAS:
	case RW_ATOMIC_FADD:
		return rd_serve_atomic(s, h);
	case RW_SE_GET:
	case RW_SE_SET:
	case RW_SE_ADD:
		return rd_serve_se(s, h);
	default:
		return false;
	}
}

/*
 * The largest read served on the transport thread: a larger one is copied three times (into
 * a buffer, a frame, the transport's message), which the reader thread does beside the
 * transport thread's sending (1 MiB reads: 0.72-0.75x raw UCX get on the transport thread,
 * 0.89-1.01x through the reader, on the shared 2-vCPU machine).
 */
#define RD_FAST_READ_MAX (64u * 1024u)

/*
 * Whether frame @h (not in pieces) is of a kind the transport thread serves: a response to
 * our request; and on the stream of the peer's requests, a send within the message limit
 * (given to the oldest posted receive and answered at once; with none posted the reader
 * serves it, waiting for one), a read up to RD_FAST_READ_MAX or a write without immediate,
 * not of a re-export (which waits for its original exporter: the reader serves it).
 */
static bool rd_fast_kind(const struct rd_stream *s, const struct rw_hdr *h)
{
	if (s->out && h->type != RW_RESP)
		return false; /* the reader refuses a request on the stream of ours */
	switch (h->type) {
	case RW_RESP:
		return true;
	case RW_SEND:
		return rd_len_ok(s, h);
	case RW_READ:
		return h->arg0 <= RD_FAST_READ_MAX && !doca_priv_rdma_mem_forwarded(h->rec);
	case RW_WRITE:
		return !(h->flags & RW_F_IMM) && !doca_priv_rdma_mem_forwarded(h->rec);
	default:
		return false;
	}
}

/*
 * The transport thread's part (rw_fast_fn): one-sided reads (up to RD_FAST_READ_MAX) and
 * writes of the peer (not a write with immediate: its receive may not be posted yet), sends
 * that find a posted receive, and the responses to our requests never wait, so they are
 * served as they arrive, without the hop to the reader thread and with the same checks.
 * rd->lock only by trylock: a thread holding it may be closing an endpoint, which waits for
 * this thread; a busy lock sends the frame to the reader.
 */
int odma_rd_fast(void *arg, const struct rw_hdr *h, const uint8_t *p)
{
	struct rd_stream *s = arg;
	struct doca_rdma *rd = s->rd;
	doca_error_t st = DOCA_SUCCESS;
	bool ok;

	/*
	 * The reader serves a request in pieces (a send waits for a receive), and any request
	 * while the peer does not take our answers (it waits for them in rw_pace).
	 */
	if (h->type != RW_RESP && (s->cut.active || (h->flags & RW_F_MORE) || rw_backlog(s->ch)))
		return 0;
	if (!rd_fast_kind(s, h) || pthread_mutex_trylock(&rd->lock) != 0)
		return 0;
	if (s->conn == NULL || s->dead || rd->stopping ||
	    (h->type == RW_SEND && rd->recv_head == NULL)) {
		pthread_mutex_unlock(&rd->lock);
		return 0;
	}
	if (h->type == RW_RESP) {
		ok = rd_response_locked(s, h, p);
		pthread_mutex_unlock(&rd->lock);
		return ok ? 1 : -1;
	}
	if (h->type == RW_SEND) {
		if (!rd_answer_begin(s)) { /* we are ending the stream: nothing more is delivered */
			pthread_mutex_unlock(&rd->lock);
			return -1;
		}
		st = rd_deliver_locked(s, rd_send_opcode(h), h->imm, p, (size_t)h->len);
		atomic_fetch_add(&rd->n_send_fast, 1);
	}
	atomic_store(&s->fast_serving, true); /* a stop lets it answer first */
	pthread_mutex_unlock(&rd->lock);
	ok = h->type == RW_READ    ? rd_serve_read(s, h)
	     : h->type == RW_WRITE ? rd_serve_write(s, h, p)
	                           : rd_answered(s, rd_reply(s, h->tag, st, 0, NULL, 0));
	atomic_store(&s->fast_serving, false);
	return ok ? 1 : -1;
}

/*
 * Whether the oldest request on our stream @s has waited for its answer past the bound
 * (rd_patience_ms). A peer that died answers nothing and its connection closes; a link that
 * went down (or a peer that hangs) closes nothing: this bounds it. One log line. Also true,
 * silently, once our stream is answered in full after the connection closed (the peer's
 * stream ended first: odma_rd_stream_dead_locked).
 */
static bool rd_overdue(struct rd_stream *s)
{
	struct doca_rdma *rd = s->rd;
	uint64_t now = rw_now_ms(), age = 0;
	bool late;

	pthread_mutex_lock(&rd->lock);
	if (s->pend_head == NULL && s->out && s->conn != NULL && s->conn->state == RD_C_CLOSED) {
		pthread_mutex_unlock(&rd->lock); /* answered after the peer's end: done (quietly) */
		return true;
	}
	if (s->pend_head != NULL && now > s->pend_head->sent_ms)
		age = now - s->pend_head->sent_ms;
	late = s->pend_head != NULL && age > rd_patience_ms(rd);
	pthread_mutex_unlock(&rd->lock);
	if (late)
		ODMA_ERR("RDMA context %p: the peer has not answered a request for %llu ms (link "
		         "down, or the peer hangs); the connection is cut and its tasks fail with "
		         "DOCA_ERROR_CONNECTION_ABORTED",
		         (void *)rd, (unsigned long long)age);
	return late;
}

/*
 * How long the reader of @s waits for a frame before it looks at its deadlines (0: forever):
 * the age of our oldest request, or a CM connection accepted and not yet established.
 */
static uint32_t rd_watch_ms(const struct rd_stream *s)
{
	return s->out || rd_cm_waiting(s) ? RD_WATCH_MS : 0;
}

/*
 * The stream @s ended (its reader saw the end): when it carries the request of a CM client
 * still waiting for the answer, one line says so (the failure callback follows).
 */
static void rd_cm_hung_up(struct rd_stream *s)
{
	struct doca_rdma *rd = s->rd;
	struct doca_rdma_connection *c;
	bool waiting;

	pthread_mutex_lock(&rd->lock);
	c = s->conn;
	waiting = s->out && c != NULL && c->cm && c->state == RD_C_CONNECTING && !rd->stopping;
	pthread_mutex_unlock(&rd->lock);
	if (waiting)
		ODMA_WARN("RDMA context %p: the RDMA CM server at %s port %u ended connection %u "
		          "before answering its request (nothing listens there, or not as an RDMA "
		          "CM server): the failure callback follows",
		          (void *)rd, c->peer.text, c->peer.port, c->id);
}

void *odma_rd_reader(void *arg)
{
	struct rd_stream *s = arg;
	struct doca_rdma *rd = s->rd;
	struct rw_hdr h;

	for (;;) {
		bool go;
		int got = rw_next(s->ch, &h, rd_watch_ms(s));

		if (got == 0 && (rd_overdue(s) || rd_cm_overdue(s)))
			break; /* the peer stopped answering: its tasks fail as for a cut link */
		if (got == 0)
			continue;
		if (got < 0) {
			rd_cm_hung_up(s);
			break;
		}
		/* a client that keeps this stream busy instead of opening its second one */
		if (rd_cm_waiting(s) && rd_cm_overdue(s))
			break;
		/*
		 * A peer's request is served once fewer than RW_PACE_FRAMES of our frames wait to
		 * go out: one that sends requests and never takes the answers then finds its
		 * frames held here, within our credit, instead of our answers piling up in the
		 * transport without bound (and cut once it took none for rd_patience_ms). Not on
		 * our own stream: our requests' answers never wait.
		 */
		if (!s->out && h.type != RW_RESP && rd_pace(s) == 0)
			break; /* a deadline passed (an ended stream is still served) */
		pthread_mutex_lock(&rd->lock);
		s->serving = true; /* a stop lets it answer first (odma_rd_conns_stop) */
		pthread_mutex_unlock(&rd->lock);
		go = rd_handle(s, &h);
		pthread_mutex_lock(&rd->lock);
		s->serving = false;
		pthread_mutex_unlock(&rd->lock);
		if (!go)
			break;
	}
	rw_shutdown(s->ch);
	pthread_mutex_lock(&rd->lock);
	odma_rd_stream_dead_locked(s);
	pthread_cond_broadcast(&rd->recv_cond);
	pthread_mutex_unlock(&rd->lock);
	return NULL;
}

/*
 * Writes request @h with its @n payload bytes (the stream's write lock held): one frame, or
 * frames of at most RW_PIECE_MAX bytes of one tag (RW_F_MORE on all but the last; a send's
 * carry their offset in addr and the message's length in arg0, a write's their own range).
 */
static bool rd_write_cut(struct rw_chan *ch, const struct rw_hdr *h, const uint8_t *p, size_t n)
{
	struct rw_hdr f = *h;
	size_t off = 0;

	if (h->type == RW_SEND)
		f.arg0 = n;
	for (;;) {
		size_t k = n - off < RW_PIECE_MAX ? n - off : RW_PIECE_MAX;

		f.flags = (uint16_t)(h->flags | (off + k < n ? RW_F_MORE : 0));
		f.addr = h->addr + off; /* a send's h->addr is 0 */
		if (!rw_write(ch, &f, p != NULL ? p + off : NULL, k, NULL, 0))
			return false;
		off += k;
		if (off == n)
			return true;
	}
}

doca_error_t odma_rd_request(struct rd_task *t, struct rw_hdr *h, const void *p, size_t n)
{
	struct doca_rdma *rd = rd_of(t->base.ctx);
	struct doca_rdma_connection *c = t->conn;
	struct rd_stream *s;
	bool ok;

	pthread_mutex_lock(&rd->lock);
	s = c->out;
	if (c->state == RD_C_CLOSED || s == NULL || s->dead) {
		pthread_mutex_unlock(&rd->lock);
		return DOCA_ERROR_CONNECTION_ABORTED;
	}
	h->magic = RW_MAGIC;
	t->tag = ++rd->next_tag;
	t->sent_ms = rw_now_ms();
	if (doca_unlikely(t->base.trace_id != 0))
		t->wire_t0 = doca_priv_now_ns();
	h->tag = t->tag;
	t->res_len = 0; /* a read's answer adds its pieces */
	rd_queue_push(&s->pend_head, &s->pend_tail, t);
	pthread_mutex_unlock(&rd->lock);
	pthread_mutex_lock(&s->wlock);
	ok = rd_write_cut(s->ch, h, p, n);
	pthread_mutex_unlock(&s->wlock);
	if (!ok)
		rw_shutdown(s->ch); /* the reader fails the task with the others */
	return DOCA_SUCCESS;
}
