/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Connections of an RDMA context: the out-of-band flow (doca_rdma_export / _connect), the
 * RDMA CM flow (listen, connect_to_addr, accept, reject, disconnect), addresses, and the
 * streams and listener threads under them. See rdma.h for the model.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "core/config/config.h"
#include "core/log/log.h"
#include "rdma/rdma.h"

ODMA_LOG_REGISTER(ODMA_RDMA_CONN)

/* ---------------------------------------------------------------- streams and listeners */

/* Frees stream @s, whose reader (if any) has ended: its channel is closed first. */
static void rd_stream_free(struct rd_stream *s)
{
	rw_close(s->ch); /* what it answered goes out first; no callback of it after this */
	pthread_mutex_destroy(&s->wlock);
	free(s);
}

/* Whether a thread serves a frame of stream @s (a stop or a reap lets it answer first). */
static bool rd_stream_serving(const struct rd_stream *s)
{
	return s->serving || atomic_load(&s->fast_serving);
}

struct rd_stream *odma_rd_stream_new(struct doca_rdma *rd, struct rw_chan *ch, bool out,
                                     struct doca_rdma_connection *c, bool reader)
{
	struct rd_stream *s = calloc(1, sizeof(*s));

	if (s == NULL) {
		rw_close(ch);
		return NULL;
	}
	s->ch = ch;
	s->rd = rd;
	s->out = out;
	s->conn = c;
	pthread_mutex_init(&s->wlock, NULL);
	pthread_mutex_lock(&rd->lock);
	if (rd->stopping) {
		pthread_mutex_unlock(&rd->lock);
		rd_stream_free(s);
		return NULL;
	}
	s->next = rd->streams;
	rd->streams = s;
	if (c != NULL) {
		if (out)
			c->out = s;
		else
			c->in = s;
	}
	rw_set_fast(ch, odma_rd_fast, s); /* the stream is complete: frames may arrive */
	if (reader)
		odma_rd_stream_start_locked(s);
	pthread_mutex_unlock(&rd->lock);
	return s;
}

void odma_rd_stream_start_locked(struct rd_stream *s)
{
	if (s->thr_started || s->dead)
		return;
	s->thr_started = doca_priv_thread_start(&s->thr, "odma-rdma-read", odma_rd_reader, s) == 0;
	if (!s->thr_started)
		s->dead = true;
}

void odma_rd_stream_discard(struct rd_stream *s)
{
	struct doca_rdma *rd = s->rd;
	struct rd_stream **pp;

	pthread_mutex_lock(&rd->lock);
	if (s->thr_started) { /* bound after all: its reader ends it, and the stop frees it */
		pthread_mutex_unlock(&rd->lock);
		rw_shutdown(s->ch);
		return;
	}
	for (pp = &rd->streams; *pp != NULL && *pp != s; pp = &(*pp)->next)
		;
	if (*pp == s)
		*pp = s->next;
	if (s->conn != NULL && s->conn->in == s)
		s->conn->in = NULL;
	if (s->conn != NULL && s->conn->out == s) /* a CM client's second stream, never started */
		s->conn->out = NULL;
	pthread_mutex_unlock(&rd->lock);
	rd_stream_free(s);
}

/*
 * The listener's thread: it hands each peer whose first frame came to odma_rd_admit, which
 * answers on this thread; a reader thread starts only for an admitted stream.
 */
static void *rd_listener_main(void *arg)
{
	struct rd_listener *l = arg;

	for (;;) {
		struct rw_chan *ch = rw_accept(l->lsn);

		if (ch == NULL)
			break;
		odma_rd_admit(l->rd, ch, l->cm);
	}
	return NULL;
}

static struct rd_listener *rd_listener_new(struct doca_rdma *rd, uint16_t port, bool cm,
                                           doca_error_t *err)
{
	struct rd_listener *l = calloc(1, sizeof(*l));
	char addr[INET_ADDRSTRLEN];

	*err = DOCA_ERROR_NO_MEMORY;
	if (l == NULL)
		return NULL;
	/*
	 * the out-of-band listener binds this side's address on the emulated device's network
	 * only (doca_priv_tp_bind_addr); an RDMA CM listener, the port its program named, on
	 * every address, as a CM server listening on a port is reached
	 */
	if (!cm && !doca_priv_tp_bind_addr(addr, sizeof(addr))) {
		free(l);
		*err = DOCA_ERROR_INITIALIZATION;
		return NULL;
	}
	*err = rw_listen(cm ? NULL : addr, port, &l->lsn, &l->port);
	l->rd = rd;
	l->cm = cm;
	if (*err != DOCA_SUCCESS) {
		free(l);
		return NULL;
	}
	l->thr_started = doca_priv_thread_start(&l->thr, "odma-rdma-lsn", rd_listener_main, l) == 0;
	if (!l->thr_started) {
		rw_listen_free(l->lsn);
		free(l);
		*err = DOCA_ERROR_NO_MEMORY;
		return NULL;
	}
	return l;
}

static void rd_listener_free(struct rd_listener *l)
{
	rw_listen_shutdown(l->lsn);
	pthread_join(l->thr, NULL);
	rw_listen_free(l->lsn);
	free(l);
}

static void odma_rd_streams_free(struct doca_rdma *rd);

/*
 * The slots of a new run, all free: the last run's array cleared when it has as many, else a
 * new one (the old one retired: handles into it stay readable). False when out of memory.
 */
static bool rd_conns_array(struct doca_rdma *rd)
{
	uint32_t nslots = 2u * rd->max_conns;
	void *p;

	if (rd->conns != NULL && rd->nslots == nslots) {
		memset(rd->conns, 0, nslots * sizeof(*rd->conns));
		return true;
	}
	if (rd->conns != NULL) {
		p = realloc(rd->retired, (rd->nretired + 1) * sizeof(*rd->retired));
		if (p == NULL)
			return false;
		rd->retired = p;
		rd->retired[rd->nretired++] = rd->conns;
		rd->conns = NULL;
	}
	rd->conns = calloc(nslots, sizeof(*rd->conns));
	rd->nslots = rd->conns != NULL ? nslots : 0;
	return rd->conns != NULL;
}

doca_error_t odma_rd_conns_start(struct doca_rdma *rd)
{
	struct rd_listener *l;
	doca_error_t r;

	odma_rd_streams_free(rd);
	odma_rd_direct_free(rd);
	atomic_store(&rd->nreleased, 0);
	if (!rd_conns_array(rd)) {
		ODMA_ERR("RDMA context %p: out of memory for %u connections", (void *)rd,
		         rd->max_conns);
		return DOCA_ERROR_NO_MEMORY;
	}
	for (uint32_t i = 0; i < rd->nslots; i++) {
		rd->conns[i].rd = rd;
		rd->conns[i].id = i + 1;
	}
	l = rd_listener_new(rd, 0, false, &r);
	if (l == NULL && r == DOCA_ERROR_NOT_SUPPORTED) {
		ODMA_ERR("RDMA context %p cannot start: "
		         "DOCA RDMA runs on odma's UCX transport, which is %s",
		         (void *)rd, rw_absent() != NULL ? rw_absent() : "not usable here");
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (l == NULL) {
		ODMA_ERR("RDMA context %p: cannot listen for out-of-band connections (%s); see the "
		         "UCX transport's line above",
		         (void *)rd, doca_error_get_descr(r));
		return DOCA_ERROR_INITIALIZATION;
	}
	rd->listeners = l;
	return DOCA_SUCCESS;
}

/*
 * A request being served finishes and is answered first (up to 1 s; called and returning with
 * @rd's lock held, dropped while it sleeps): the peer's last operation (the sync event set that
 * woke this program, say) has already taken effect here, so its initiator must hear SUCCESS,
 * not a cut connection.
 */
static void rd_served_wait(struct doca_rdma *rd)
{
	for (int i = 0; i < 1000; i++) {
		bool busy = false;

		for (struct rd_stream *s = rd->streams; s != NULL && !busy; s = s->next)
			busy = rd_stream_serving(s) && !s->dead;
		if (!busy)
			return;
		pthread_mutex_unlock(&rd->lock);
		usleep(1000);
		pthread_mutex_lock(&rd->lock);
	}
}

/* Joins every reader before any stream is freed: a reader may still shut down another's socket. */
static void rd_readers_join(struct doca_rdma *rd)
{
	struct rd_stream *j;

	do {
		j = NULL;
		pthread_mutex_lock(&rd->lock);
		for (struct rd_stream *s = rd->streams; s != NULL && j == NULL; s = s->next)
			if (s->thr_started)
				j = s;
		if (j != NULL)
			j->thr_started = false;
		pthread_mutex_unlock(&rd->lock);
		if (j != NULL)
			pthread_join(j->thr, NULL);
	} while (j != NULL);
}

void odma_rd_conns_stop(struct doca_rdma *rd)
{
	struct timespec end;
	struct rd_listener *l;

	pthread_mutex_lock(&rd->lock);
	rd->stopping = true;
	pthread_cond_broadcast(&rd->recv_cond);
	rd_served_wait(rd);
	rw_deadline(&end, RW_SHUTDOWN_MS); /* one wait for every stream of the context */
	for (struct rd_stream *s = rd->streams; s != NULL; s = s->next)
		rw_shutdown_by(s->ch, &end);
	l = rd->listeners;
	rd->listeners = NULL;
	pthread_mutex_unlock(&rd->lock);
	while (l != NULL) {
		struct rd_listener *n = l->next;

		rd_listener_free(l);
		l = n;
	}
	rd_readers_join(rd);
	odma_rd_streams_free(rd);
	/* the program may still hold (and disconnect) its connections until destroy */
	for (uint32_t i = 0; rd->conns != NULL && i < rd->nslots; i++) {
		rd->conns[i].in = NULL;
		rd->conns[i].out = NULL;
		if (rd->conns[i].state != RD_C_FREE)
			rd->conns[i].state = RD_C_CLOSED;
	}
}

static void odma_rd_streams_free(struct doca_rdma *rd)
{
	while (rd->streams != NULL) {
		struct rd_stream *s = rd->streams;

		rd->streams = s->next;
		rd_stream_free(s);
	}
}

void odma_rd_conns_free(struct doca_rdma *rd)
{
	odma_rd_streams_free(rd);
	odma_rd_direct_free(rd);
	free(rd->conns);
	rd->conns = NULL;
	for (uint32_t i = 0; i < rd->nretired; i++)
		free(rd->retired[i]);
	free(rd->retired);
	rd->retired = NULL;
	rd->nretired = 0;
}

/* How many connections the program holds (rd->lock held): not free, and not let go. */
static uint32_t rd_conns_held_locked(const struct doca_rdma *rd)
{
	uint32_t n = 0;

	for (uint32_t i = 0; rd->conns != NULL && i < rd->nslots; i++)
		n += rd->conns[i].state != RD_C_FREE && !rd->conns[i].released;
	return n;
}

struct doca_rdma_connection *odma_rd_conn_alloc_locked(struct doca_rdma *rd)
{
	if (rd_conns_held_locked(rd) >= rd->max_conns)
		return NULL;
	for (uint32_t i = 0; rd->conns != NULL && i < rd->nslots; i++) {
		struct doca_rdma_connection *c = &rd->conns[i];

		if (c->state != RD_C_FREE)
			continue;
		memset(c, 0, sizeof(*c));
		c->rd = rd;
		c->id = i + 1;
		if (getrandom(c->key, sizeof(c->key), 0) != sizeof(c->key))
			return NULL;
		return c;
	}
	return NULL;
}

/*
 * The refusal of a new connection under the public call @fn: DOCA_ERROR_FULL, with one line
 * saying whether the program holds max_num_connections, or the connections it let go have
 * not ended yet (their tasks undelivered: progress delivers them).
 */
static doca_error_t rd_full(struct doca_rdma *rd, const char *fn)
{
	uint32_t held;

	pthread_mutex_lock(&rd->lock);
	held = rd_conns_held_locked(rd);
	pthread_mutex_unlock(&rd->lock);
	if (held >= rd->max_conns)
		ODMA_ERR_AT(fn,
		            "%s: all %u connections of RDMA context %p are in use; disconnect "
		            "one or raise doca_rdma_set_max_num_connections",
		            fn, rd->max_conns, (void *)rd);
	else
		ODMA_ERR_AT(fn,
		            "%s: RDMA context %p holds %u of %u connections, but %u it let go "
		            "have not ended yet; call doca_pe_progress (it delivers their tasks) "
		            "and retry",
		            fn, (void *)rd, held, rd->max_conns, rd->nslots - rd->max_conns);
	return DOCA_ERROR_FULL;
}

/*
 * Whether connection @c still owes the program something (rd->lock held, PE thread): a queued
 * event, an undelivered task, an io in flight; only a progress ends those.
 */
static bool rd_conn_owed_locked(struct doca_rdma *rd, const struct doca_rdma_connection *c)
{
	for (const struct rd_event *e = rd->ev_head; e != NULL; e = e->next)
		if (e->conn == c)
			return true;
	return c->ord_head != NULL || odma_rd_direct_busy(c);
}

/* Whether something of released connection @c is left (rd->lock held, PE thread). */
static bool rd_conn_left_locked(struct doca_rdma *rd, const struct doca_rdma_connection *c)
{
	/* a stream that never had a reader (a request the program did not accept) is inert */
	for (const struct rd_stream *s = rd->streams; s != NULL; s = s->next)
		if (s->conn == c && ((s->thr_started && !s->dead) || rd_stream_serving(s)))
			return true;
	return rd_conn_owed_locked(rd, c);
}

/*
 * Whether a connection slot frees itself soon (rd->lock held, PE thread): the program holds
 * fewer than max_num_connections, and one it let go owes it nothing more, so only its
 * streams are left, which were asked to end (they do within RW_SHUTDOWN_MS); odma_rd_reap
 * can free it from here (not while progress raises events, nor in a stop).
 */
static bool rd_conns_ending_locked(struct doca_rdma *rd)
{
	if (rd->raising || rd->stopping || rd_conns_held_locked(rd) >= rd->max_conns)
		return false;
	for (uint32_t i = 0; rd->conns != NULL && i < rd->nslots; i++) {
		const struct doca_rdma_connection *c = &rd->conns[i];

		if (c->state == RD_C_CLOSED && c->released && !rd_conn_owed_locked(rd, c))
			return true;
	}
	return false;
}

/*
 * A connection slot for a new connection (PE thread; returns with rd->lock held), as
 * odma_rd_conn_alloc_locked: when the spares are all taken by connections the program let go
 * whose streams are still ending (a program that disconnects and connects again in a tight
 * loop), it waits for them, at most RW_SHUTDOWN_MS and a margin.
 */
static struct doca_rdma_connection *rd_conn_take(struct doca_rdma *rd)
{
	uint64_t end = rw_now_ms() + RW_SHUTDOWN_MS + 500u;
	struct doca_rdma_connection *c;

	odma_rd_reap(rd);
	pthread_mutex_lock(&rd->lock);
	while ((c = odma_rd_conn_alloc_locked(rd)) == NULL && rd_conns_ending_locked(rd) &&
	       rw_now_ms() < end) {
		pthread_mutex_unlock(&rd->lock);
		usleep(1000);
		odma_rd_reap(rd);
		pthread_mutex_lock(&rd->lock);
	}
	return c;
}

void odma_rd_release_locked(struct doca_rdma *rd, struct doca_rdma_connection *c)
{
	if (!c->released)
		atomic_fetch_add_explicit(&rd->nreleased, 1, memory_order_relaxed);
	c->released = true;
}

void odma_rd_reap(struct doca_rdma *rd)
{
	struct rd_stream *gone = NULL, **pp;

	if (rd->raising || atomic_load_explicit(&rd->nreleased, memory_order_relaxed) == 0)
		return; /* progress reaps once every event it took is raised; nothing to free */
	pthread_mutex_lock(&rd->lock);
	for (uint32_t i = 0; rd->conns != NULL && !rd->stopping && i < rd->nslots; i++) {
		struct doca_rdma_connection *c = &rd->conns[i];

		if (c->state != RD_C_CLOSED || !c->released || rd_conn_left_locked(rd, c))
			continue;
		for (struct rd_stream *s = rd->streams; s != NULL; s = s->next) {
			if (s->conn != c)
				continue;
			s->conn = NULL;
			s->dead = s->dead || !s->thr_started; /* freed below */
		}
		odma_rd_direct_conn_free(c);
		c->in = NULL;
		c->out = NULL;
		c->state = RD_C_FREE;
		atomic_fetch_sub_explicit(&rd->nreleased, 1, memory_order_relaxed);
	}
	for (pp = &rd->streams; !rd->stopping && *pp != NULL;) {
		struct rd_stream *s = *pp;

		if (s->dead && s->conn == NULL && !rd_stream_serving(s)) {
			*pp = s->next;
			s->next = gone;
			gone = s;
		} else {
			pp = &s->next;
		}
	}
	pthread_mutex_unlock(&rd->lock);
	while (gone != NULL) {
		struct rd_stream *n = gone->next;

		if (gone->thr_started) /* it has ended: dead is its last act under the lock */
			pthread_join(gone->thr, NULL);
		rd_stream_free(gone);
		gone = n;
	}
}

void odma_rd_conn_close_locked(struct doca_rdma_connection *c, bool tell_peer)
{
	(void)tell_peer;
	c->state = RD_C_CLOSED;
	/*
	 * Not rw_shutdown here: it waits up to RW_SHUTDOWN_MS for a peer that stopped taking our
	 * frames, which under rd->lock stalls every connection and the PE (a reader thread ends a
	 * connection here). Each stream's reader shuts its channel down as it ends; a stream
	 * without one is shut down by whoever frees it (odma_rd_stream_discard, odma_rd_reap, the
	 * stop).
	 */
	if (c->out != NULL)
		rw_end(c->out->ch);
	if (c->in != NULL)
		rw_end(c->in->ch);
	pthread_cond_broadcast(&c->rd->recv_cond); /* a reader waiting for a receive stops */
}

void odma_rd_conn_lost_event_locked(struct doca_rdma_connection *c)
{
	struct doca_rdma *rd = c->rd;

	if (rd->stopping || !c->cm)
		return;
	if (c->state == RD_C_CONNECTING || c->state == RD_C_ACCEPTED)
		odma_rd_event_locked(rd, c, RD_E_FAILURE);
	else if (c->state == RD_C_ESTABLISHED)
		odma_rd_event_locked(rd, c, RD_E_DISCONNECT);
}

void odma_rd_stream_dead_locked(struct rd_stream *s)
{
	struct doca_rdma *rd = s->rd;
	struct doca_rdma_connection *c = s->conn;
	doca_error_t why = rd->stopping ? DOCA_ERROR_IO_FAILED : DOCA_ERROR_CONNECTION_ABORTED;

	s->dead = true;
	if (s->cut.recv != NULL) { /* a send cut into frames ended amid them: its receive fails */
		odma_rd_done_locked(rd, s->cut.recv, why);
		s->cut.recv = NULL;
	}
	while (s->pend_head != NULL)
		odma_rd_done_locked(rd, rd_queue_pop(&s->pend_head, &s->pend_tail), why);
	if (c != NULL && c->released)
		rd_wake_pe(rd); /* its last stream may be this one: progress reaps it */
	if (c == NULL || c->state == RD_C_CLOSED || c->state == RD_C_FREE)
		return;
	odma_rd_conn_lost_event_locked(c);
	/*
	 * The peer's requests ended (it disconnected, or its end of the stream closed) while ours
	 * still wait for answers: those come on our own stream, ahead of the peer's disconnect or
	 * its close, and nothing orders the two streams. The connection is closed (no new task),
	 * and our stream ends by itself once answered (odma_rd_reader), at the peer's end, or when
	 * it is overdue.
	 */
	if (s == c->in && c->out != NULL && !c->out->dead && c->out->pend_head != NULL &&
	    !rd->stopping) {
		c->state = RD_C_CLOSED;
		return;
	}
	odma_rd_conn_close_locked(c, false);
}

/* ---------------------------------------------------------------- checks */

static doca_error_t rd_check_started(const struct doca_rdma *rd, bool running_only, const char *fn)
{
	if (rd->ctx.state == DOCA_CTX_STATE_RUNNING ||
	    (!running_only && rd->ctx.state == DOCA_CTX_STATE_STARTING))
		return DOCA_SUCCESS;
	ODMA_ERR_AT(fn, "RDMA context %p is not RUNNING; call doca_ctx_start first", (void *)rd);
	return DOCA_ERROR_BAD_STATE;
}

/* Whether @c is a connection of some RDMA context. */
static bool rd_conn_valid(const struct doca_rdma_connection *c)
{
	return c != NULL && c->rd != NULL && rd_conn_of(c->rd, c);
}

/* ---------------------------------------------------------------- out of band */

doca_error_t doca_rdma_export(struct doca_rdma *rdma, const void **local_rdma_conn_details,
                              size_t *local_rdma_conn_details_size,
                              struct doca_rdma_connection **rdma_connection)
{
	struct doca_rdma_connection *c;
	struct rw_blob b = { 0 };
	doca_error_t r;

	ODMA_CHECK_ARG(rdma != NULL && local_rdma_conn_details != NULL &&
	                       local_rdma_conn_details_size != NULL && rdma_connection != NULL,
	               "%s: arguments must not be NULL", __func__);
	r = rd_check_started(rdma, false, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	rw_blob_self(&b);
	c = rd_conn_take(rdma);
	if (c != NULL) {
		c->state = RD_C_EXPORTED;
		b.conn_id = c->id;
		memcpy(b.key, c->key, 16);
		b.nonce = rdma->nonce;
		b.transport = (uint8_t)rdma->transport;
		b.port = rdma->listeners->port;
		rw_blob_encode(&b, c->blob);
	}
	pthread_mutex_unlock(&rdma->lock);
	if (c == NULL)
		return rd_full(rdma, __func__);
	*local_rdma_conn_details = c->blob;
	*local_rdma_conn_details_size = RW_BLOB_LEN;
	*rdma_connection = c;
	ODMA_DBG("RDMA context %p: connection %u exported (port %u)", (void *)rdma, c->id, b.port);
	return DOCA_SUCCESS;
}

/*
 * The synchronous half of a handshake: one frame out, the peer's status back within
 * @timeout_ms. CONNECTION_ABORTED when the channel failed or nothing came back.
 */
static doca_error_t rd_handshake(struct rw_chan *ch, struct rw_hdr *h, uint32_t timeout_ms)
{
	struct rw_hdr resp;

	if (!rw_write(ch, h, NULL, 0, NULL, 0) || !rw_read_hdr(ch, &resp, timeout_ms) ||
	    resp.type != RW_RESP)
		return DOCA_ERROR_CONNECTION_ABORTED;
	return (doca_error_t)resp.status == DOCA_SUCCESS ? DOCA_SUCCESS : DOCA_ERROR_NOT_FOUND;
}

/*
 * Dials the exporter of blob @b for connection @c (loopback on one machine and namespace, else
 * each of its addresses in turn, all within one connection timeout: a peer's blob that lists
 * eight silent addresses holds the PE thread once, not eight times) and binds the stream with a
 * HELLO: DOCA_SUCCESS with *@out the channel, or CONNECTION_ABORTED (unreachable, or it
 * refused a stale blob: logged under the public call @fn).
 */
static doca_error_t rd_dial_peer(struct doca_rdma *rdma, const struct doca_rdma_connection *c,
                                 const struct rw_blob *b, struct rw_chan **out, const char *fn)
{
	struct rw_hdr h = { .magic = RW_MAGIC, .type = RW_HELLO };
	doca_error_t r = DOCA_ERROR_CONNECTION_ABORTED;
	uint64_t now, end = rw_now_ms() + rdma->conn_timeout_ms; /* one for all addresses */
	struct rw_chan *ch = NULL;

	h.arg0 = b->conn_id;
	memcpy(h.key, b->key, 16);
	h.arg1 = rdma->nonce;
	h.rec = c->id;
	for (unsigned int i = 0; r == DOCA_ERROR_CONNECTION_ABORTED && rw_now_ms() < end; i++) {
		char text[64];

		rw_blob_target(b, i, text, sizeof(text));
		if (text[0] == '\0')
			break;
		ch = rw_dial(text, b->port);
		if (ch == NULL)
			continue;
		now = rw_now_ms();
		r = rd_handshake(ch, &h, (uint32_t)(end > now ? end - now : 1));
		if (r != DOCA_SUCCESS) {
			rw_close(ch);
			ch = NULL;
		}
	}
	if (r == DOCA_ERROR_CONNECTION_ABORTED) {
		ODMA_ERR_AT(
		        fn,
		        "%s: cannot reach the peer of connection %u (port %u, %u address(es)) "
		        "within %u ms over the UCX transport; is the peer running and started? "
		        "Across namespaces or machines, give both sides ODMA_FABRIC=ADDRESS:PORT "
		        "on the network that joins them (UCX then uses that interface)",
		        fn, c->id, b->port, b->naddrs, (unsigned)rdma->conn_timeout_ms);
		return DOCA_ERROR_CONNECTION_ABORTED;
	}
	if (r != DOCA_SUCCESS) {
		ODMA_ERR_AT(fn,
		            "%s: the peer refused connection %u: its blob is stale (the peer "
		            "restarted or closed that connection); exchange blobs again",
		            fn, b->conn_id);
		return DOCA_ERROR_CONNECTION_ABORTED;
	}
	*out = ch;
	return DOCA_SUCCESS;
}

/* "RC" or "DC" (a blob's or a context's enum doca_rdma_transport_type). */
static const char *rd_transport_name(unsigned int transport)
{
	return transport == DOCA_RDMA_TRANSPORT_TYPE_DC ? "DC" : "RC";
}

/* Sets @c's state under @rd's lock (the listener's and readers' threads read it). */
static void rd_state_set(struct doca_rdma *rd, struct doca_rdma_connection *c,
                         enum rd_conn_state state)
{
	pthread_mutex_lock(&rd->lock);
	c->state = state;
	pthread_mutex_unlock(&rd->lock);
}

/*
 * Moves @c from state @from to @to under @rd's lock (the listener's thread reads it: a peer's
 * hello names the connection); the state @c was in, unchanged unless it was @from.
 */
static enum rd_conn_state rd_state_move(struct doca_rdma *rd, struct doca_rdma_connection *c,
                                        enum rd_conn_state from, enum rd_conn_state to)
{
	enum rd_conn_state was;

	pthread_mutex_lock(&rd->lock);
	was = c->state;
	if (was == from)
		c->state = to;
	pthread_mutex_unlock(&rd->lock);
	return was;
}

doca_error_t doca_rdma_connect(struct doca_rdma *rdma, const void *remote_rdma_conn_details,
                               size_t remote_rdma_conn_details_size,
                               struct doca_rdma_connection *rdma_connection)
{
	struct doca_rdma_connection *c = rdma_connection;
	struct rw_blob b;
	const char *why;
	doca_error_t r;
	struct rw_chan *ch = NULL;

	ODMA_CHECK_ARG(rdma != NULL && remote_rdma_conn_details != NULL && rd_conn_of(rdma, c),
	               "%s: rdma, the blob and a connection of this context "
	               "from doca_rdma_export are required",
	               __func__);
	r = rd_check_started(rdma, false, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	if (rd_state_move(rdma, c, RD_C_EXPORTED, RD_C_EXPORTED) != RD_C_EXPORTED) {
		ODMA_ERR("%s: connection %u is already connected (or closed); export a new one",
		         __func__, c->id);
		return DOCA_ERROR_BAD_STATE;
	}
	why = rw_blob_parse(remote_rdma_conn_details, remote_rdma_conn_details_size, &b);
	if (why != NULL) {
		ODMA_ERR("%s: rejected %zu-byte peer blob: %s; pass the bytes the peer's "
		         "doca_rdma_export returned",
		         __func__, remote_rdma_conn_details_size, why);
		return DOCA_ERROR_CONNECTION_ABORTED;
	}
	if (b.transport != (uint8_t)rdma->transport) {
		ODMA_ERR("%s: the peer's blob is for transport %s, RDMA context %p uses %s: both "
		         "sides of a connection use one transport (doca_rdma_set_transport_type)",
		         __func__, rd_transport_name(b.transport), (void *)rdma,
		         rd_transport_name(rdma->transport));
		return DOCA_ERROR_CONNECTION_ABORTED;
	}
	r = rd_dial_peer(rdma, c, &b, &ch, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	/* the peer's stream may have bound and ended meanwhile, closing the connection */
	if (rd_state_move(rdma, c, RD_C_EXPORTED, RD_C_CONNECTED) != RD_C_EXPORTED) {
		rw_close(ch);
		ODMA_ERR("%s: connection %u closed while connecting (the peer's stream to it "
		         "ended); export a new one",
		         __func__, c->id);
		return DOCA_ERROR_CONNECTION_ABORTED;
	}
	if (odma_rd_stream_new(rdma, ch, true, c, true) == NULL) {
		rd_state_set(rdma, c, RD_C_CLOSED);
		return DOCA_ERROR_CONNECTION_ABORTED;
	}
	ODMA_DBG("RDMA context %p: connection %u connected to peer connection %u", (void *)rdma,
	         c->id, b.conn_id);
	return DOCA_SUCCESS;
}

/* ---------------------------------------------------------------- addresses */

doca_error_t doca_rdma_addr_create(enum doca_rdma_addr_type addr_type, const char *address,
                                   uint16_t port, struct doca_rdma_addr **addr)
{
	struct doca_rdma_addr *a;
	struct sockaddr_in *s4;
	struct sockaddr_in6 *s6;
	int ok;

	ODMA_CHECK_ARG(address != NULL && addr != NULL && strlen(address) < sizeof(a->text),
	               "%s: address (under 128 characters) and addr are required", __func__);
	ODMA_CHECK_ARG(addr_type <= DOCA_RDMA_ADDR_TYPE_GID, "%s: unknown address type %d",
	               __func__, (int)addr_type);
	a = calloc(1, sizeof(*a));
	if (a == NULL) {
		ODMA_ERR("%s: out of memory", __func__);
		return DOCA_ERROR_NO_MEMORY;
	}
	s4 = (struct sockaddr_in *)&a->sa.ss;
	s6 = (struct sockaddr_in6 *)&a->sa.ss;
	if (addr_type == DOCA_RDMA_ADDR_TYPE_IPv4) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		ok = inet_pton(AF_INET, address, &s4->sin_addr);
		a->sa.len = sizeof(*s4);
	} else {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		ok = inet_pton(AF_INET6, address, &s6->sin6_addr);
		a->sa.len = sizeof(*s6);
	}
	if (ok != 1) {
		free(a);
		ODMA_ERR("%s: '%s' is not an %s address%s", __func__, address,
		         addr_type == DOCA_RDMA_ADDR_TYPE_IPv4 ? "IPv4" : "IPv6",
		         addr_type == DOCA_RDMA_ADDR_TYPE_GID
		                 ? " (odma writes a GID as an IPv6 address)"
		                 : "");
		return DOCA_ERROR_INVALID_VALUE;
	}
	a->type = addr_type;
	a->port = port;
	strcpy(a->text, address);
	*addr = a;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_addr_destroy(struct doca_rdma_addr *addr)
{
	ODMA_CHECK_ARG(addr != NULL, "%s: addr must not be NULL", __func__);
	free(addr); /* a connection attempt keeps its own copy (doca_rdma_connect_to_addr) */
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_addr_get_params(struct doca_rdma_addr *addr,
                                       enum doca_rdma_addr_type *addr_type, const char **address,
                                       uint16_t *port)
{
	ODMA_CHECK_ARG(addr != NULL && addr_type != NULL && address != NULL && port != NULL,
	               "%s: arguments must not be NULL", __func__);
	*addr_type = addr->type;
	*address = addr->text;
	*port = addr->port;
	return DOCA_SUCCESS;
}

/* ---------------------------------------------------------------- RDMA CM */

static doca_error_t rd_check_cm(const struct doca_rdma *rd, const char *fn)
{
	doca_error_t r = rd_check_started(rd, true, fn);

	if (r == DOCA_SUCCESS && rd->transport == DOCA_RDMA_TRANSPORT_TYPE_DC) {
		ODMA_ERR_AT(fn, "RDMA CM needs the RC transport; use the out-of-band flow for DC");
		r = DOCA_ERROR_NOT_SUPPORTED;
	}
	return r;
}

doca_error_t doca_rdma_start_listen_to_port(struct doca_rdma *rdma, uint16_t port)
{
	struct rd_listener *l;
	doca_error_t r;

	ODMA_CHECK_ARG(rdma != NULL, "%s: rdma must not be NULL", __func__);
	r = rd_check_cm(rdma, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	pthread_mutex_lock(&rdma->lock);
	for (l = rdma->listeners; l != NULL; l = l->next)
		if (l->cm && l->port == port)
			break;
	pthread_mutex_unlock(&rdma->lock);
	if (l != NULL) {
		ODMA_ERR("%s: RDMA context %p already listens on port %u", __func__, (void *)rdma,
		         port);
		return DOCA_ERROR_BAD_STATE;
	}
	l = port != 0 ? rd_listener_new(rdma, port, true, &r) : NULL;
	if (l == NULL) {
		ODMA_ERR("%s: cannot listen on port %u (%s); pick a free port other than 0",
		         __func__, port, port != 0 ? doca_error_get_descr(r) : "port 0");
		return r == DOCA_ERROR_NOT_SUPPORTED ? r : DOCA_ERROR_CONNECTION_ABORTED;
	}
	pthread_mutex_lock(&rdma->lock);
	l->next = rdma->listeners->next;
	rdma->listeners->next = l;
	pthread_mutex_unlock(&rdma->lock);
	ODMA_DBG("RDMA context %p listens on port %u", (void *)rdma, port);
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_stop_listen_to_port(struct doca_rdma *rdma, uint16_t port)
{
	struct rd_listener **pp, *l = NULL;

	ODMA_CHECK_ARG(rdma != NULL, "%s: rdma must not be NULL", __func__);
	if (rdma->transport == DOCA_RDMA_TRANSPORT_TYPE_DC) {
		ODMA_ERR("%s: RDMA CM needs the RC transport", __func__);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	pthread_mutex_lock(&rdma->lock);
	for (pp = &rdma->listeners; *pp != NULL; pp = &(*pp)->next)
		if ((*pp)->cm && (*pp)->port == port) {
			l = *pp;
			*pp = l->next;
			break;
		}
	pthread_mutex_unlock(&rdma->lock);
	if (l == NULL) {
		ODMA_ERR("%s: RDMA context %p does not listen on port %u", __func__, (void *)rdma,
		         port);
		return DOCA_ERROR_CONNECTION_ABORTED;
	}
	rd_listener_free(l);
	return DOCA_SUCCESS;
}

/* The private data an RDMA CM accept can carry: the InfiniBand CM REP's field. */
#define RD_CM_ACCEPT_PRIV_MAX 196u

/* A connection argument of the calls below: one of a started context's, else INVALID_VALUE. */
#define RD_CHECK_CONN(c)                                                                           \
	ODMA_CHECK_ARG(rd_conn_valid(c),                                                           \
	               "%s: rdma_connection is not a connection of a started RDMA context",        \
	               __func__)

doca_error_t doca_rdma_connection_accept(struct doca_rdma_connection *rdma_connection,
                                         void *private_data, uint8_t private_data_len)
{
	struct doca_rdma_connection *c = rdma_connection;
	struct rd_stream *s = NULL;
	struct doca_rdma *rd;

	RD_CHECK_CONN(c);
	ODMA_CHECK_ARG((private_data == NULL) == (private_data_len == 0),
	               "%s: private data and its length go together", __func__);
	ODMA_CHECK_ARG(private_data_len <= RD_CM_ACCEPT_PRIV_MAX,
	               "%s: %u bytes of private data; a CM reply (InfiniBand CM REP, also on "
	               "RoCE) carries at most %u",
	               __func__, private_data_len, RD_CM_ACCEPT_PRIV_MAX);
	rd = c->rd;
	pthread_mutex_lock(&rd->lock);
	if (c->state == RD_C_REQUESTED && c->in != NULL && !c->in->dead) {
		s = c->in;
		c->state = RD_C_ACCEPTED;
		/* the client opens its second stream by then */
		c->cm_due_ms = rw_now_ms() + rd->conn_timeout_ms;
		/* admitted: the client's frames flow (kept until the reader below takes them) */
		rw_open(s->ch);
	}
	pthread_mutex_unlock(&rd->lock);
	if (s == NULL) {
		ODMA_ERR("%s: connection %u is not a pending request "
		         "(answered, or its client is gone)",
		         __func__, c->id);
		return DOCA_ERROR_CONNECTION_ABORTED;
	}
	if (!odma_rd_ctl(s, RW_CM_ACCEPT, c->id, c->key)) {
		ODMA_ERR("%s: the client of connection %u is gone", __func__, c->id);
		pthread_mutex_lock(&rd->lock);
		odma_rd_release_locked(rd, c); /* the call failed: no failure callback follows */
		odma_rd_conn_close_locked(c, false);
		pthread_mutex_unlock(&rd->lock);
		odma_rd_stream_discard(s); /* no reader was started: nothing else would end it */
		return DOCA_ERROR_CONNECTION_ABORTED;
	}
	/*
	 * Only now a reader: started before the ACCEPT went out, it could see the client gone and
	 * raise the failure callback of an accept that then fails.
	 */
	pthread_mutex_lock(&rd->lock);
	odma_rd_stream_start_locked(s);
	if (!s->thr_started) /* no thread for it: the connection fails, as its reader would say */
		odma_rd_stream_dead_locked(s);
	pthread_mutex_unlock(&rd->lock);
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_connection_reject(struct doca_rdma_connection *rdma_connection)
{
	struct doca_rdma_connection *c = rdma_connection;
	struct rd_stream *s = NULL;
	struct doca_rdma *rd;

	RD_CHECK_CONN(c);
	rd = c->rd;
	pthread_mutex_lock(&rd->lock);
	if (c->state == RD_C_REQUESTED && c->in != NULL)
		s = c->in;
	pthread_mutex_unlock(&rd->lock);
	if (s == NULL) {
		ODMA_ERR("%s: connection %u is not a pending request", __func__, c->id);
		return DOCA_ERROR_CONNECTION_ABORTED;
	}
	(void)odma_rd_ctl(s, RW_CM_REJECT, 0, NULL);
	pthread_mutex_lock(&rd->lock);
	odma_rd_release_locked(rd, c);
	odma_rd_conn_close_locked(c, false);
	pthread_mutex_unlock(&rd->lock);
	odma_rd_stream_discard(s); /* it never had a reader: nothing else would end it */
	odma_rd_reap(rd);
	return DOCA_SUCCESS;
}

const char *odma_rd_cm_ipv4(const struct doca_rdma_addr *a, char v4[INET_ADDRSTRLEN])
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)(const void *)&a->sa.ss;

	if (a->sa.ss.ss_family == AF_INET)
		return a->text;
	if (!IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr) ||
	    inet_ntop(AF_INET, &s6->sin6_addr.s6_addr[12], v4, INET_ADDRSTRLEN) == NULL)
		return NULL;
	return v4;
}

/*
 * Dials the CM server at @addr for connection @c and sends its request; a server out of reach
 * fails @c at once (its failure callback follows).
 */
static void rd_cm_dial(struct doca_rdma *rdma, struct doca_rdma_connection *c,
                       const struct doca_rdma_addr *addr)
{
	struct rw_hdr h = { .magic = RW_MAGIC, .type = RW_CM_REQ };
	char v4[INET_ADDRSTRLEN];
	const char *ip = odma_rd_cm_ipv4(addr, v4);
	struct rw_chan *ch = NULL;
	const char *why = NULL; /* why the server is out of reach (errno goes stale) */

	/* the transport connects in the background: a server that never answers closes it */
	if (ip != NULL && (ch = rw_dial(ip, addr->port)) == NULL)
		why = strerror(errno);
	h.arg1 = rdma->nonce;
	h.rec = c->id;
	if (ch != NULL && !rw_write(ch, &h, NULL, 0, NULL, 0)) {
		rw_close(ch);
		ch = NULL;
		why = "the transport closed the connection at once";
	}
	if (ip == NULL) {
		ODMA_WARN("doca_rdma_connect_to_addr: %s is an IPv6 address; odma's transport "
		          "reaches IPv4 peers (an IPv4 address, or an IPv4-mapped IPv6 address or "
		          "GID: ::ffff:a.b.c.d): the failure callback follows",
		          addr->text);
	} else if (ch == NULL || odma_rd_stream_new(rdma, ch, true, c, true) == NULL) {
		/* odma_rd_stream_new closes ch when it fails (out of memory) */
		ODMA_WARN("doca_rdma_connect_to_addr: cannot reach an RDMA CM server at %s port %u "
		          "(%s): the failure callback follows; start the server first",
		          addr->text, addr->port, why != NULL ? why : strerror(ENOMEM));
	} else {
		return;
	}
	pthread_mutex_lock(&rdma->lock);
	c->state = RD_C_CLOSED;
	odma_rd_event_locked(rdma, c, RD_E_FAILURE);
	pthread_mutex_unlock(&rdma->lock);
}

doca_error_t doca_rdma_connect_to_addr(struct doca_rdma *rdma, struct doca_rdma_addr *addr,
                                       union doca_data connection_user_data)
{
	struct doca_rdma_connection *c;
	doca_error_t r;

	ODMA_CHECK_ARG(rdma != NULL && addr != NULL, "%s: rdma and addr must not be NULL",
	               __func__);
	r = rd_check_cm(rdma, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	c = rd_conn_take(rdma);
	if (c != NULL) {
		c->cm = true;
		c->user_data = connection_user_data;
		c->peer = *addr;
		c->has_peer = true;
		c->state = RD_C_CONNECTING;
		c->cm_due_ms = rw_now_ms() + rdma->conn_timeout_ms; /* for the server's answer */
	}
	pthread_mutex_unlock(&rdma->lock);
	if (c == NULL)
		return rd_full(rdma, __func__);
	rd_cm_dial(rdma, c, addr);
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_connection_disconnect(struct doca_rdma_connection *rdma_connection)
{
	struct doca_rdma_connection *c = rdma_connection;
	struct timespec end;
	struct rd_stream *s;
	struct doca_rdma *rd;

	RD_CHECK_CONN(c);
	rd = c->rd;
	pthread_mutex_lock(&rd->lock);
	if (c->state == RD_C_FREE || c->app_closed) {
		pthread_mutex_unlock(&rd->lock);
		ODMA_ERR("%s: connection %u is already disconnected", __func__, c->id);
		return DOCA_ERROR_CONNECTION_ABORTED;
	}
	/* a connection the peer ended (or a stop closed) is released: the samples do so */
	c->app_closed = true;
	odma_rd_release_locked(rd, c);
	c->state = RD_C_CLOSED; /* no disconnection callback for our own disconnect */
	/*
	 * The disconnect follows our answers on the stream they take (the peer's requests come on
	 * c->in), once each owed for an effect the program saw is queued: the peer learns how each
	 * of its requests ended before it learns of the end, as on one queue pair (a receive
	 * completed here, and the program disconnected at once: the peer's send succeeds).
	 */
	s = c->in != NULL && !c->in->dead ? c->in : c->out;
	pthread_mutex_unlock(&rd->lock);
	if (s != NULL) {
		rw_deadline(&end, RW_SHUTDOWN_MS);
		rw_answers_out(s->ch, &end);
		(void)odma_rd_ctl(s, RW_DISCONNECT, 0, NULL);
	}
	pthread_mutex_lock(&rd->lock);
	odma_rd_conn_close_locked(c, false);
	pthread_mutex_unlock(&rd->lock);
	odma_rd_reap(rd); /* its streams may have ended already */
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_connection_set_user_data(struct doca_rdma_connection *rdma_connection,
                                                union doca_data connection_user_data)
{
	ODMA_CHECK_ARG(rd_conn_valid(rdma_connection), "%s: not a connection", __func__);
	rdma_connection->user_data = connection_user_data;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_connection_get_user_data(const struct doca_rdma_connection *rdma_connection,
                                                union doca_data *connection_user_data)
{
	ODMA_CHECK_ARG(rd_conn_valid(rdma_connection) && connection_user_data != NULL,
	               "%s: a connection and an output are required", __func__);
	*connection_user_data = rdma_connection->user_data;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_connection_get_id(const struct doca_rdma_connection *rdma_connection,
                                         uint32_t *connection_id)
{
	ODMA_CHECK_ARG(rd_conn_valid(rdma_connection) && connection_id != NULL,
	               "%s: a connection and an output are required", __func__);
	*connection_id = rdma_connection->id;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_connection_get_addr(const struct doca_rdma_connection *rdma_connection,
                                           struct doca_rdma_addr **addr)
{
	ODMA_CHECK_ARG(rd_conn_valid(rdma_connection) && addr != NULL,
	               "%s: a connection and an output are required", __func__);
	if (!rdma_connection->has_peer) {
		ODMA_ERR("%s: connection %u was made out of band and has no address", __func__,
		         rdma_connection->id);
		return DOCA_ERROR_NOT_FOUND;
	}
	*addr = (struct doca_rdma_addr *)(uintptr_t)&rdma_connection->peer;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_set_connection_state_callbacks(
        struct doca_rdma *rdma, doca_rdma_connection_request_cb_t doca_rdma_connect_request_cb,
        doca_rdma_connection_established_cb_t doca_rdma_connect_established_cb,
        doca_rdma_connection_failure_cb_t doca_rdma_connect_failure_cb,
        doca_rdma_connection_disconnection_cb_t doca_rdma_disconnect_cb)
{
	ODMA_CHECK_ARG(rdma != NULL && doca_rdma_connect_established_cb != NULL &&
	                       doca_rdma_connect_failure_cb != NULL &&
	                       doca_rdma_disconnect_cb != NULL,
	               "%s: rdma and the established/failure/disconnection callbacks are required",
	               __func__);
	if (!odma_rd_idle(rdma, __func__, "set the callbacks"))
		return DOCA_ERROR_BAD_STATE;
	rdma->cb_request = doca_rdma_connect_request_cb;
	rdma->cb_established = doca_rdma_connect_established_cb;
	rdma->cb_failure = doca_rdma_connect_failure_cb;
	rdma->cb_disconnect = doca_rdma_disconnect_cb;
	return DOCA_SUCCESS;
}

/* ---------------------------------------------------------------- bridge (not emulated) */

static doca_error_t rd_no_bridge(const void *a, const void *b, const char *fn)
{
	ODMA_CHECK_ARG(a != NULL && b != NULL, "%s: arguments must not be NULL", fn);
	ODMA_ERR("%s: odma has no librdmacm bridge; use doca_rdma_start_listen_to_port / "
	         "doca_rdma_connect_to_addr",
	         fn);
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_bridge_prepare_connection(struct doca_rdma *rdma, struct rdma_cm_id *cm_id,
                                                 struct doca_rdma_connection **rdma_connection)
{
	(void)rdma_connection;
	return rd_no_bridge(rdma, cm_id, __func__);
}

doca_error_t doca_rdma_bridge_accept(struct doca_rdma *rdma, void *private_data,
                                     uint8_t private_data_len,
                                     struct doca_rdma_connection *rdma_connection)
{
	(void)private_data;
	(void)private_data_len;
	return rd_no_bridge(rdma, rdma_connection, __func__);
}

doca_error_t doca_rdma_bridge_established(struct doca_rdma *rdma,
                                          struct doca_rdma_connection *rdma_connection)
{
	return rd_no_bridge(rdma, rdma_connection, __func__);
}
