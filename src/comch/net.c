/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Comch across machines (ODMA_FABRIC=ADDRESS:PORT, the DPU side's address): the packets of
 * comch/wire.h travel as messages of a transport endpoint (core/transport, UCX) instead of a
 * Unix socket of the runtime directory: the network carrier (comch.h).
 *
 *  - A process with servers listens once at ODMA_FABRIC (one listener shared by all of its
 *    servers). The first message of an accepted endpoint is a HELLO naming the server
 *    (system, representor PCI address, name); it is handed to that server, whose progress
 *    answers WELCOME or REJECT as on a Unix socket.
 *  - A client whose server socket does not answer in the runtime directory connects there.
 *  - Before its HELLO is looked at, each side proves the fabric secret
 *    (core/transport/fabric_auth.c): the client sends a nonce (AUTH 1), the server its nonce
 *    and its proof (AUTH 2), the client its proof (AUTH 3) and then the HELLO. Any other
 *    packet before that ends the handshake. The proofs bind ODMA_FABRIC (auth_bind): a relay
 *    that passes a client on to a listener at another address breaks them.
 *  - Messages arrive on the transport's thread: each one is checked (length, type) and queued
 *    in a bounded inbox of its connection, and an eventfd (the connection's descriptor: the
 *    PE watches it like a socket) is rung. The endpoint's progress reads the inbox as it
 *    reads a socket.
 *  - Credits: the receiver reports how many messages it delivered (CREDIT), into the
 *    connection's private link page, so a sender learns about room without progressing.
 *  - Liveness: an idle side sends PING every quarter of ODMA_TRANSPORT_TIMEOUT_MS; the
 *    peer's transport thread answers PONG (no progress call needed there); a connection
 *    that heard nothing for ODMA_TRANSPORT_TIMEOUT_MS is closed as if the peer had died.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "comch/comch.h"
#include "core/log/log.h"
#include "util/codec.h"
#include "util/container_of.h"
#include "util/queue.h"

ODMA_LOG_REGISTER(DOCA_COMCH_NET)

/* "comch ADDRESS:PORT" of ODMA_FABRIC (64 characters of address at most): what proofs bind. */
#define COMCH_BIND_MAX 80

/* One packet that arrived over the network, waiting for the endpoint's progress. */
struct comch_npkt {
	struct comch_npkt *next;
	uint32_t len;    /* header + payload */
	uint32_t tp_len; /* the transport message's length: its credit (odma_tp_ep_release) */
	uint8_t bytes[];
};

enum {
	COMCH_AUTH_DONE = 0, /* proved (or a Unix socket: no challenge) */
	COMCH_AUTH_WAIT_1,   /* server: waits for the client's nonce */
	COMCH_AUTH_WAIT_2,   /* client: waits for the server's nonce and proof */
	COMCH_AUTH_WAIT_3,   /* server: waits for the client's proof */
};

/*
 * A channel of the network carrier, a transport endpoint to a peer across machines: what a
 * Unix socket and its link page are to a connection of the runtime directory. Aligned to 64
 * (the link page in it).
 */
struct comch_net {
	struct comch_chan ch;   /* ch.fd: an eventfd rung on every arrival; ch.link: link */
	struct comch_link link; /* private: delivered[peer side] comes from the peer's CREDIT */
	struct odma_tp_ep *tp;  /* NULL once hung up */
	/*
	 * Hung up with what it sent last still on its way (net_lingers_locked): the endpoint stays
	 * open until that is done or linger_until passed (net_settle closes it then).
	 */
	struct odma_tp_ep *linger;
	uint64_t linger_until;
	atomic_bool hung; /* hung up: sent_cb rings the descriptor as the last send completes */
	bool said_bye;    /* this side sent its BYE: it lingers until the peer is done */
	atomic_bool peer_done; /* the endpoint closed, or the peer's BYE came after the hang-up */
	pthread_mutex_t lock;  /* the inbox, tp, closed, refused */
	struct comch_npkt *head, *tail;
	uint32_t n, max_n;   /* packets queued, and the most that may be */
	size_t bytes;        /* bytes queued (<= COMCH_NET_INBOX_BYTES beyond one packet) */
	size_t cap;          /* longest packet accepted (header + payload) */
	bool closed;         /* the endpoint closed, or the peer was refused: nothing is queued */
	const char *refused; /* why the peer was refused (a limit broken); NULL otherwise */
	int side;            /* COMCH_SIDE_* of this process */
	struct doca_comch_connection *conn; /* once the handshake made one (fast path) */
	struct doca_pe *polled;             /* its endpoint's PE, polling for it (net_bind) */
	_Atomic uint64_t posted_max;        /* the largest buffer a consumer of this side posted */
	atomic_uint inflight;               /* sends not yet completed by the transport */
	_Atomic uint64_t last_rx_ns;        /* when the peer was last heard */
	uint64_t last_ping_ns;              /* PE thread */
	uint64_t silence_ns;                /* ODMA_TRANSPORT_TIMEOUT_MS, read once */
	uint64_t last_pong_ns;              /* transport thread: PONGs at most one per period */
	uint64_t credit_sent;               /* delivered count last reported */
	/* handshakes of the listener (server side) */
	void (*on_hello)(struct comch_net *n); /* transport thread: the first packet arrived */
	struct comch_net *next;
	uint64_t deadline_ns;
	bool refused_hs; /* under the listener's lock: the sweep closes it */
	bool swept;
	/*
	 * The fabric secret's challenge (transport thread): until it is done, nothing but its
	 * packets (and a REJECT for the client) is taken from the peer.
	 */
	int auth; /* COMCH_AUTH_* */
	uint8_t auth_key[ODMA_FABRIC_KEY_LEN];
	char auth_bind[COMCH_BIND_MAX]; /* auth_bind: the address the client dialled */
	uint8_t nonce_own[ODMA_FABRIC_NONCE_LEN], nonce_peer[ODMA_FABRIC_NONCE_LEN];
	uint8_t *hello; /* client: its HELLO, sent once the server has proved itself */
	size_t hello_len;
	size_t msg_cap; /* longest packet of the kinds queued for the progress (header + payload) */
};

/* Longest wait of a channel freed unsettled for its sends (a REJECT among them). */
#define COMCH_NET_FLUSH_MS 200u

/* What the process shares between its servers: the listener and the handshakes. */
static struct {
	pthread_mutex_t listen_lock; /* serializes starting and closing the listener */
	pthread_mutex_t lock;
	struct comch_ep *servers;  /* started servers (ep->net_next) */
	void *listener;            /* while servers != NULL */
	struct comch_net *pending; /* accepted, not handed to a server (or refused) */
	uint32_t num_pending;
	struct comch_net *spare; /* made by net_admit_peer for the on_accept that follows it */
	uint8_t key[ODMA_FABRIC_KEY_LEN]; /* the fabric secret's, while listening */
	char bind[COMCH_BIND_MAX];        /* auth_bind of the address it listens at */
} g_net = { .listen_lock = PTHREAD_MUTEX_INITIALIZER, .lock = PTHREAD_MUTEX_INITIALIZER };

bool comch_net_wanted(void)
{
	return doca_priv_config_string("ODMA_FABRIC") != NULL;
}

/* ODMA_FABRIC's address and port (core/config's parser); false after its one line. */
static bool fabric(char *addr, size_t n, uint16_t *port)
{
	return doca_priv_config_fabric(addr, n, port) == DOCA_SUCCESS && *port != 0;
}

/*
 * What the proofs of the fabric secret's challenge bind besides the nonces (into @out): this
 * protocol, and the ODMA_FABRIC the client dialled, which is where the server listens (the same
 * value on both sides). A relay that passes a client on to a listener at another address, or a
 * proof of the TCP link's handshake, proves nothing here.
 */
static void auth_bind(char out[COMCH_BIND_MAX], const char *addr, uint16_t port)
{
	snprintf(out, COMCH_BIND_MAX, "comch %s:%u", addr, port);
}

bool comch_net_fabric_ok(void)
{
	char addr[64];
	uint16_t port;

	return doca_priv_config_fabric(addr, sizeof(addr), &port) == DOCA_SUCCESS;
}

/* ---- one endpoint's inbox --------------------------------------------------------------- */

static void ring(struct comch_net *n)
{
	uint64_t one = 1;

	(void)!write(n->ch.fd, &one, sizeof(one));
}

/* NET_WAKE: rings the endpoint's progress and tells a waiting handshake (transport thread). */
static void net_wake(struct comch_net *n)
{
	ring(n);
	if (n->on_hello != NULL)
		n->on_hello(n);
}

static struct comch_net *comch_net_new(size_t cap, uint32_t max_n, int side)
{
	size_t sz = (sizeof(struct comch_net) + 63) & ~(size_t)63;
	struct comch_net *n = aligned_alloc(64, sz);

	if (n == NULL)
		return NULL;
	memset(n, 0, sz);
	n->ch.car = &comch_net_carrier;
	n->ch.link = &n->link;
	n->ch.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (n->ch.fd < 0 || pthread_mutex_init(&n->lock, NULL) != 0) {
		if (n->ch.fd >= 0)
			close(n->ch.fd);
		free(n);
		return NULL;
	}
	n->cap = cap;
	n->msg_cap = cap;
	n->max_n = max_n;
	n->side = side;
	n->link.magic = COMCH_LINK_MAGIC;
	atomic_init(&n->last_rx_ns, doca_priv_now_ns());
	n->last_ping_ns = doca_priv_now_ns();
	n->silence_ns = (uint64_t)doca_priv_tp_timeout_ms() * 1000000ull;
	return n;
}

static struct comch_net *net_of(const struct comch_chan *ch)
{
	return odma_container_of(ch, struct comch_net, ch);
}

/*
 * Under @n's lock: whether a hung-up endpoint stays open for what it sent last. After this
 * side's BYE, until the peer read up to it and closed (or sent its own BYE): a socket closed
 * before that resets what the peer has not read yet. Else while sends are in flight (a REJECT).
 */
static bool net_lingers_locked(struct comch_net *n)
{
	return n->said_bye ? !atomic_load(&n->peer_done) : atomic_load(&n->inflight) != 0;
}

/*
 * Closes the endpoint for sending and reading (not on the transport thread) without waiting:
 * what was sent last (a BYE, a REJECT, the messages before them) keeps it open until it went
 * out (net_settle, the endpoint's progress, closes it then).
 */
static void net_hangup(struct comch_chan *ch)
{
	struct comch_net *n = net_of(ch);
	struct odma_tp_ep *tp;

	pthread_mutex_lock(&n->lock);
	comch_poll_by(&n->polled, NULL);
	tp = n->tp;
	n->tp = NULL;
	n->closed = true;
	atomic_store(&n->hung, true); /* before inflight is read: sent_cb rings, or it is 0 */
	if (tp != NULL && net_lingers_locked(n)) {
		n->linger = tp;
		n->linger_until = doca_priv_now_ns() + n->silence_ns;
		tp = NULL;
	}
	pthread_mutex_unlock(&n->lock);
	if (tp != NULL)
		doca_priv_tp_ep_close(tp);
}

/*
 * Takes the lingering endpoint of @n once it lingers no more or its time ran out, or (@force)
 * at once; *@left: the sends still in flight.
 */
static struct odma_tp_ep *net_linger_take(struct comch_net *n, bool force, unsigned int *left)
{
	struct odma_tp_ep *tp = NULL;

	pthread_mutex_lock(&n->lock);
	*left = atomic_load(&n->inflight);
	if (n->linger != NULL &&
	    (force || !net_lingers_locked(n) || doca_priv_now_ns() >= n->linger_until)) {
		tp = n->linger;
		n->linger = NULL;
	}
	pthread_mutex_unlock(&n->lock);
	return tp;
}

/*
 * A hung-up channel's close (the endpoint's PE thread): 0 once its endpoint is closed, else
 * when to look again (the descriptor rings sooner: the last send completed, the peer closed or
 * said BYE). A peer that took nothing until the silence limit has the rest dropped, with a line.
 */
static uint64_t net_settle(struct comch_chan *ch)
{
	struct comch_net *n = net_of(ch);
	unsigned int left;
	struct odma_tp_ep *tp = net_linger_take(n, false, &left);
	uint64_t v;

	(void)!read(n->ch.fd, &v, sizeof(v)); /* nothing is read from a hung-up channel */
	if (tp == NULL)
		return n->linger != NULL ? n->linger_until : 0;
	if (!atomic_load(&n->peer_done) && (n->said_bye || left != 0))
		ODMA_RATELIMITED_WARN("comch: the peer of a connection at ODMA_FABRIC did not take "
		                      "what was sent before its close within %llu ms "
		                      "(ODMA_TRANSPORT_TIMEOUT_MS); the connection closes, and %u "
		                      "packets still in flight are dropped",
		                      (unsigned long long)(n->silence_ns / 1000000ull), left);
	doca_priv_tp_ep_close(tp);
	return 0;
}

/*
 * The last step of a hang-up that did not settle (a handshake refused, an endpoint destroyed):
 * its sends get COMCH_NET_FLUSH_MS to go out before the endpoint closes.
 */
static void net_linger_end(struct comch_net *n)
{
	uint64_t until = doca_priv_now_ns() + (uint64_t)COMCH_NET_FLUSH_MS * 1000000ull;
	unsigned int left;
	struct odma_tp_ep *tp;

	if (n->linger == NULL)
		return;
	while (atomic_load(&n->inflight) != 0 && doca_priv_now_ns() < until) {
		struct timespec nap = { 0, 200000 };

		nanosleep(&nap, NULL);
	}
	tp = net_linger_take(n, true, &left);
	if (tp != NULL)
		doca_priv_tp_ep_close(tp);
}

static void net_free(struct comch_chan *ch)
{
	struct comch_net *n = net_of(ch);

	net_hangup(ch);
	net_linger_end(n);
	while (n->head != NULL) {
		struct comch_npkt *p = n->head;

		n->head = p->next;
		free(p);
	}
	close(n->ch.fd);
	pthread_mutex_destroy(&n->lock);
	free(n->hello);
	memset(n->auth_key, 0, sizeof(n->auth_key));
	free(n);
}

static void sent_cb(void *arg, doca_error_t status)
{
	struct comch_net *n = arg;

	(void)status;
	/* the last send of a hung-up channel: its endpoint's progress closes it (net_settle) */
	if (atomic_fetch_sub(&n->inflight, 1) == 1 && atomic_load(&n->hung))
		ring(n);
}

/*
 * A send was refused for room (the transport bounds what this side's sends hold: the peer
 * may never give its credit back) and one completed since: what waits for room (the outbox,
 * pending sends, a producer's AGAIN) goes at the next progress.
 */
static void net_on_room(struct odma_tp_ep *ep, void *arg)
{
	(void)ep;
	ring(arg);
}

/*
 * Under @n's lock: a packet of @arg, then the @np pieces at @parts where they lie (empty ones
 * left out; at most ODMA_TP_SENDV_MAX - 1 that are not, else the transport refuses the send
 * with a line), which the transport copies once.
 */
static int net_sendv_locked(struct comch_net *n, uint32_t type, uint32_t arg,
                            const struct iovec *parts, unsigned int np)
{
	struct iovec b[ODMA_TP_SENDV_MAX + 1] = { { &arg, 4 } };
	doca_error_t r = DOCA_ERROR_IO_FAILED;
	unsigned int nb = 1;

	for (unsigned int i = 0; i < np && nb <= ODMA_TP_SENDV_MAX; i++)
		if (parts[i].iov_len != 0)
			b[nb++] = parts[i];
	if (n->tp != NULL && !n->closed) {
		atomic_fetch_add(&n->inflight, 1);
		r = doca_priv_tp_ep_sendv(n->tp, b, nb, type, sent_cb, n);
		if (r != DOCA_SUCCESS)
			atomic_fetch_sub(&n->inflight, 1);
		else if (type == COMCH_W_BYE)
			n->said_bye = true;
	}
	return r == DOCA_SUCCESS           ? 0
	       : r == DOCA_ERROR_AGAIN     ? EAGAIN
	       : r == DOCA_ERROR_NO_MEMORY ? ENOMEM
	                                   : EPIPE;
}

/* Under @n's lock: a send of one payload (comch_net_send). */
static int net_send_locked(struct comch_net *n, uint32_t type, uint32_t arg, const void *payload,
                           size_t len)
{
	const struct iovec p = { (void *)payload, len };

	return net_sendv_locked(n, type, arg, &p, 1);
}

/*
 * Any thread, the transport's too. 0, EAGAIN (the transport holds ODMA_TP_EP_SEND_MAX of this
 * side's sends), EPIPE or ENOMEM.
 */
static int comch_net_send(struct comch_net *n, uint32_t type, uint32_t arg, const void *payload,
                          size_t len)
{
	int r;

	pthread_mutex_lock(&n->lock);
	r = net_send_locked(n, type, arg, payload, len);
	pthread_mutex_unlock(&n->lock);
	return r;
}

/* One arrived packet, as comch_wire_recv returns it (no fd ever travels). */
static ssize_t net_recv(struct comch_chan *ch, void *buf, size_t cap, int *pfd)
{
	struct comch_net *n = net_of(ch);
	struct comch_npkt *p;
	uint64_t v;
	ssize_t r;

	*pfd = -1;
	pthread_mutex_lock(&n->lock);
	p = n->head;
	if (p == NULL) {
		(void)!read(n->ch.fd, &v, sizeof(v)); /* rung again by whatever arrives next */
		p = n->head;
	}
	if (p == NULL) {
		const char *refused = n->closed ? n->refused : NULL;
		struct doca_comch_connection *conn = n->conn;

		r = n->closed ? 0 : -EAGAIN;
		pthread_mutex_unlock(&n->lock);
		/* the end of a refused peer is the refusal, not the peer's close (logged once) */
		if (refused != NULL && conn != NULL)
			comch_conn_refuse(conn, refused);
		return r;
	}
	ODMA_QUEUE_POP(n->head, n->tail, p, next);
	n->n--;
	n->bytes -= p->len;
	if (n->tp != NULL && p->tp_len != 0) /* taken: the peer may send more (not yet closed) */
		doca_priv_tp_ep_release(n->tp, p->tp_len);
	pthread_mutex_unlock(&n->lock);
	if (p->len > cap) {
		r = -EMSGSIZE;
	} else {
		memcpy(buf, p->bytes, p->len);
		r = (ssize_t)p->len;
	}
	free(p);
	return r;
}

/* Under n->lock: the peer went past a limit; nothing more is queued. */
static void refuse_locked(struct comch_net *n, const char *why)
{
	if (n->closed)
		return;
	n->closed = true;
	n->refused = why;
}

/* Whether the packet was queued (its transport message kept: net_recv gives its credit back). */
static bool queue_locked(struct comch_net *n, uint32_t type, uint32_t arg, const uint8_t *payload,
                         size_t len)
{
	struct comch_wire_hdr hdr = { .type = type, .arg = arg };
	struct comch_npkt *p;

	if (n->closed)
		return false;
	if (n->n >= n->max_n) {
		refuse_locked(n, "the peer sent more packets than its receive-queue credits allow");
		return false;
	}
	if (n->bytes + sizeof(hdr) + len > COMCH_NET_INBOX_BYTES) {
		refuse_locked(
		        n,
		        "the peer sent more bytes than this side's progress took (16 MiB queued)");
		return false;
	}
	p = malloc(sizeof(*p) + sizeof(hdr) + len);
	if (p == NULL) {
		refuse_locked(n, "out of memory for an arriving packet");
		return false;
	}
	p->len = (uint32_t)(sizeof(hdr) + len);
	p->tp_len = (uint32_t)(len + 4); /* the argument, then the payload */
	memcpy(p->bytes, &hdr, sizeof(hdr));
	if (len)
		memcpy(p->bytes + sizeof(hdr), payload, len);
	ODMA_QUEUE_PUSH(n->head, n->tail, p, next);
	n->n++;
	n->bytes += p->len;
	return true;
}

/* Under @n's lock: refuses the peer for @why, read by a client's progress as a REJECT. */
static void refuse_as_server_locked(struct comch_net *n, const char *why)
{
	if (queue_locked(n, COMCH_W_REJECT, (uint32_t)DOCA_ERROR_NOT_PERMITTED,
	                 (const uint8_t *)why, strlen(why)))
		n->tail->tp_len = 0; /* made here: no credit to give back */
	refuse_locked(n, why);
}

/* A handshake the server refused (any thread): the sweep closes it. */
static void hs_refuse(struct comch_net *n)
{
	pthread_mutex_lock(&g_net.lock);
	n->refused_hs = true;
	pthread_mutex_unlock(&g_net.lock);
}

enum { NONCE = ODMA_FABRIC_NONCE_LEN, PROOF = ODMA_FABRIC_PROOF_LEN };

/* What the line of a peer that could not prove the fabric secret says to do. */
#define SECRET_FIX "give both sides the same ODMA_FABRIC_SECRET, or the same fabric-secret cookie"

/* @n's proof as @role over the nonces @first, @second (fabric_auth.c), into @out. */
static void auth_proof(const struct comch_net *n, uint8_t role, const uint8_t *first,
                       const uint8_t *second, uint8_t *out)
{
	doca_priv_fabric_proof(n->auth_key, role, n->auth_bind, strlen(n->auth_bind), first, second,
	                       out);
}

/* Server, transport thread: a packet of a peer that has not proved the fabric secret. */
static void auth_server(struct comch_net *n, uint32_t type, uint32_t step, const uint8_t *p,
                        size_t len)
{
	uint8_t proof[PROOF], out[NONCE + PROOF];
	const char *why = "the peer did not answer the fabric secret's challenge";

	if (type == COMCH_W_AUTH && step == 1 && n->auth == COMCH_AUTH_WAIT_1 && len == NONCE &&
	    getrandom(n->nonce_own, NONCE, 0) == (ssize_t)NONCE) {
		memcpy(n->nonce_peer, p, NONCE);
		memcpy(out, n->nonce_own, NONCE);
		auth_proof(n, 'S', n->nonce_peer, n->nonce_own, out + NONCE);
		n->auth = COMCH_AUTH_WAIT_3;
		(void)comch_net_send(n, COMCH_W_AUTH, 2, out, sizeof(out));
		return;
	}
	if (type == COMCH_W_AUTH && step == 3 && n->auth == COMCH_AUTH_WAIT_3 && len == PROOF) {
		auth_proof(n, 'C', n->nonce_own, n->nonce_peer, proof);
		if (odma_key_eq(proof, p, PROOF)) {
			n->auth = COMCH_AUTH_DONE; /* its HELLO may come */
			return;
		}
		why = "the client could not prove the fabric secret; " SECRET_FIX;
	}
	comch_chan_reject(&n->ch, DOCA_ERROR_NOT_PERMITTED, why);
	ODMA_RATELIMITED_WARN("comch: refused a connection at ODMA_FABRIC: %s", why);
	hs_refuse(n);
}

/* Client, transport thread: the server's answer to our nonce; then our proof and the HELLO. */
static void auth_client(struct comch_net *n, uint32_t type, uint32_t step, const uint8_t *p,
                        size_t len)
{
	uint8_t proof[PROOF];
	const char *why = "the server broke the fabric secret's challenge";

	if (type == COMCH_W_AUTH && step == 2 && n->auth == COMCH_AUTH_WAIT_2 &&
	    len == NONCE + PROOF) {
		memcpy(n->nonce_peer, p, NONCE);
		auth_proof(n, 'S', n->nonce_own, n->nonce_peer, proof);
		if (odma_key_eq(proof, p + NONCE, PROOF)) {
			auth_proof(n, 'C', n->nonce_peer, n->nonce_own, proof);
			n->auth = COMCH_AUTH_DONE;
			if (comch_net_send(n, COMCH_W_AUTH, 3, proof, PROOF) == 0)
				(void)comch_net_send(n, COMCH_W_HELLO, 0, n->hello, n->hello_len);
			return;
		}
		why = "the server at ODMA_FABRIC could not prove the fabric secret; " SECRET_FIX;
	}
	pthread_mutex_lock(&n->lock);
	refuse_as_server_locked(n, why);
	pthread_mutex_unlock(&n->lock);
	ring(n);
}

/*
 * The fast path (transport thread): the peer's consumer posted a buffer (into our shadow ring
 * of it), or a producer of the peer sent bytes for one of our consumers. NULL, or why the peer
 * is refused.
 */

static const char *net_fp_post(struct doca_comch_connection *conn, uint32_t id, const void *p,
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

static const char *net_fp_data(struct doca_comch_connection *conn, uint32_t id, const void *p,
                               size_t len)
{
	const uint8_t *b = p;
	struct comch_fp_data m;
	struct comch_fp_ctx *f;
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
	for (f = conn->lcons.head; f != NULL && f->id != id; f = f->next_on_conn)
		;
	c = f != NULL ? odma_container_of(f, struct doca_comch_consumer, fp) : NULL;
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
		/* the consumer's PE may sleep */
		doca_priv_bell_ring(&c->ring->bell, c->fp.bell_fd);
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

/*
 * Whether a PING (under @n's lock) gets a PONG: at most one per eighth of the timeout (the
 * peer PINGs every quarter), so a peer flooding PINGs while it reads nothing must not grow
 * our send queue. True when the PONG is due (its time is taken).
 */
static bool net_ping_due_locked(struct comch_net *n)
{
	uint64_t now = doca_priv_now_ns(), period = n->silence_ns / 8;
	bool answer = now - n->last_pong_ns >= period;

	if (answer)
		n->last_pong_ns = now;
	return answer;
}

/*
 * A CREDIT's payload (under @n's lock): how many of this side's messages the peer delivered,
 * never going back nor past what this side sent. NULL when taken, or why the peer is refused.
 */
static const char *net_credit_locked(struct comch_net *n, const uint8_t *p, size_t len)
{
	uint64_t v, sent, was = atomic_load(&n->link.delivered[1 - n->side]);

	if (len != sizeof(v))
		return "a malformed CREDIT";
	memcpy(&v, p, sizeof(v));
	if (v < was)
		return "a CREDIT that goes back";
	/* no connection bound yet: this side has sent nothing, so no credit is due */
	sent = n->conn != NULL ? __atomic_load_n(&n->conn->accepted, __ATOMIC_RELAXED) : 0;
	if (v > sent)
		return "a CREDIT for more messages than this side sent";
	atomic_store_explicit(&n->link.delivered[1 - n->side], v, memory_order_release);
	return NULL;
}

/*
 * Under @n's lock: why an FP_DATA of @len bytes (after its argument) is refused for its length
 * alone, or NULL: it may be as long as the largest buffer a consumer of this side posted on the
 * connection, with its header and immediate data. (On the TCP link net_admit_long asks this
 * before the bytes are kept; on UCX's link they are assembled first.)
 */
static const char *net_fp_unposted_locked(const struct comch_net *n, size_t len)
{
	return len > sizeof(struct comch_fp_data) + COMCH_RING_MAX_IMM + atomic_load(&n->posted_max)
	               ? "an FP_DATA longer than any buffer this side's consumers posted"
	               : NULL;
}

/*
 * An FP_POST or FP_DATA (@type) for consumer @id, entered and left under @n's lock, which it
 * drops while the packet lands under the connection's. NULL when it landed, or why the peer
 * is refused.
 */
static const char *net_fp_locked(struct comch_net *n, uint32_t type, uint32_t id, const uint8_t *p,
                                 size_t len)
{
	struct doca_comch_connection *conn = n->conn;
	const char *why;

	if (conn == NULL)
		return "a fast-path packet before the handshake";
	if (n->closed)
		return NULL; /* refused or hung up: nothing more lands */
	if (type == COMCH_W_FP_DATA && (why = net_fp_unposted_locked(n, len)) != NULL)
		return why;
	pthread_mutex_unlock(&n->lock);
	why = type == COMCH_W_FP_POST ? net_fp_post(conn, id, p, len)
	                              : net_fp_data(conn, id, p, len);
	pthread_mutex_lock(&n->lock);
	return why;
}

/* What net_on_recv does once a message is taken, after it drops @n's lock. */
enum net_after {
	NET_WAKE,  /* ring the endpoint's progress and tell on_hello */
	NET_QUIET, /* nothing for the endpoint's progress (a doorbell rang, or a PING to ignore) */
	NET_PONG,  /* answer a PING */
};

/*
 * One message (@type, its argument @a, its payload @p) once the peer is authenticated, or the
 * server's REJECT of this client, under @n's lock: taken, queued for the endpoint's progress,
 * or the peer refused. What net_on_recv does next.
 */
static enum net_after net_take_locked(struct comch_net *n, uint32_t type, uint32_t a,
                                      const uint8_t *p, size_t len, bool *kept)
{
	const char *why = NULL;

	switch (type) {
	case COMCH_W_PING:
		return net_ping_due_locked(n) ? NET_PONG : NET_QUIET;
	case COMCH_W_PONG:
		break;
	case COMCH_W_CREDIT:
		why = net_credit_locked(n, p, len);
		break;
	case COMCH_W_FP_POST:
	case COMCH_W_FP_DATA:
		why = net_fp_locked(n, type, a, p, len);
		if (why == NULL)
			return NET_QUIET;
		break;
	case COMCH_W_HELLO:
	case COMCH_W_WELCOME:
	case COMCH_W_REJECT:
	case COMCH_W_MSG:
	case COMCH_W_BYE:
	case COMCH_W_CONS_NEW:
	case COMCH_W_CONS_ACK:
	case COMCH_W_CONS_GONE:
		if (len + sizeof(struct comch_wire_hdr) > n->msg_cap)
			why = "a message longer than this connection's limit";
		else
			*kept = queue_locked(n, type, a, p, len);
		break;
	default:
		why = "a packet of an unknown type";
		break;
	}
	if (why != NULL)
		refuse_locked(n, why);
	return NET_WAKE;
}

/*
 * Transport thread: one message of a connection (or of a handshake). Kept when queued for the
 * endpoint's progress (net_recv gives its credit back).
 */
static bool net_on_recv(struct odma_tp_ep *tp, const void *bytes, size_t len, uint32_t imm,
                        void *arg)
{
	struct comch_net *n = arg;
	const uint8_t *b = bytes;
	enum net_after after;
	bool kept = false;
	uint32_t a;

	(void)tp;
	atomic_store(&n->last_rx_ns, doca_priv_now_ns());
	pthread_mutex_lock(&n->lock);
	if (len < 4 || len - 4 + sizeof(struct comch_wire_hdr) > n->cap) {
		refuse_locked(n, len < 4 ? "a runt message (shorter than its argument)"
		                         : "a message longer than any valid packet");
		goto out;
	}
	memcpy(&a, b, 4);
	if (imm == COMCH_W_BYE && atomic_load(&n->hung))
		atomic_store(&n->peer_done, true); /* BYEs crossed: neither reads the other's */
	if (n->auth != COMCH_AUTH_DONE &&
	    !(imm == COMCH_W_REJECT && n->side == COMCH_SIDE_CLIENT)) {
		pthread_mutex_unlock(&n->lock);
		if (n->side == COMCH_SIDE_SERVER)
			auth_server(n, imm, a, b + 4, len - 4);
		else
			auth_client(n, imm, a, b + 4, len - 4);
		return false;
	}
	after = net_take_locked(n, imm, a, b + 4, len - 4, &kept);
	if (after != NET_WAKE) {
		pthread_mutex_unlock(&n->lock);
		if (after == NET_PONG)
			(void)comch_net_send(n, COMCH_W_PONG, 0, NULL, 0);
		return false;
	}
out:
	pthread_mutex_unlock(&n->lock);
	net_wake(n);
	return kept;
}

static void net_on_close(struct odma_tp_ep *tp, doca_error_t why, void *arg)
{
	struct comch_net *n = arg;
	/* the transport's link refused the peer before any packet (its fabric secret differs) */
	const char *text = "the peer at ODMA_FABRIC could not prove the fabric secret; " SECRET_FIX;

	(void)tp;
	pthread_mutex_lock(&n->lock);
	if (why == DOCA_ERROR_NOT_PERMITTED)
		refuse_as_server_locked(n, text);
	n->closed = true;
	atomic_store(&n->peer_done, true);
	pthread_mutex_unlock(&n->lock);
	net_wake(n);
}

/*
 * Transport thread: whether a message longer than the transport's receive buffer may come in,
 * asked before its bytes are kept. From an authenticated peer, a message within this
 * connection's limit, or an FP_DATA no longer than the largest buffer a consumer of this side
 * posted on the connection: a peer makes this side hold no more than what it was given room
 * for (the link otherwise takes up to 1 GiB for it).
 */
static bool net_admit_long(struct odma_tp_ep *tp, uint32_t imm, const void *head, size_t plen,
                           size_t len, void *arg)
{
	struct comch_net *n = arg;
	const char *why = NULL;

	(void)tp;
	(void)head;
	(void)plen;
	pthread_mutex_lock(&n->lock);
	if (n->auth != COMCH_AUTH_DONE || len < 4)
		why = "a long message before its handshake";
	else if (imm != COMCH_W_FP_DATA && len - 4 + sizeof(struct comch_wire_hdr) > n->msg_cap)
		why = "a message longer than this connection's limit";
	else if (imm == COMCH_W_FP_DATA)
		why = net_fp_unposted_locked(n, len - 4);
	if (why != NULL)
		refuse_locked(n, why);
	pthread_mutex_unlock(&n->lock);
	if (why != NULL)
		net_wake(n);
	return why == NULL;
}

static const struct odma_tp_ep_cbs *net_cbs(struct comch_net *n, struct odma_tp_ep_cbs *cbs)
{
	*cbs = (struct odma_tp_ep_cbs){ .on_recv = net_on_recv,
		                        .on_close = net_on_close,
		                        .arg = n,
		                        .on_room = net_on_room,
		                        .admit = net_admit_long };
	return cbs;
}

/*
 * A connection's own limits on what its peer sends (under no lock of @n): the longest packet
 * (a message, or an FP_DATA, which lands in a posted buffer, not a queue), the longest one
 * queued for the progress, and how many may be queued.
 */
static void comch_net_set_limits(struct comch_net *n, const struct comch_ep *ep)
{
	size_t fp = sizeof(struct comch_wire_hdr) + sizeof(struct comch_fp_data) +
	            COMCH_RING_MAX_IMM + ep->ctx.caps->comch_fp_max_buf_size;

	pthread_mutex_lock(&n->lock);
	n->cap = ep->rx_cap > fp ? ep->rx_cap : fp;
	n->msg_cap = ep->rx_cap;
	n->max_n = ep->recv_queue + COMCH_NET_CTL_SLACK;
	pthread_mutex_unlock(&n->lock);
}

/* ---- the network carrier (a connection's ops) ----------------------------------------- */

/* No descriptor crosses machines: @pass_fd stays here (the ring of a CONS_NEW is shadowed). */
static int net_send(struct comch_chan *ch, uint32_t type, uint32_t arg, const void *payload,
                    size_t len, int pass_fd)
{
	(void)pass_fd;
	return comch_net_send(net_of(ch), type, arg, payload, len);
}

/* From here on the connection's own limits apply to what the client sends. */
static bool net_admit(struct comch_chan *ch, const struct comch_ep *ep, int link_fd,
                      const char **why)
{
	(void)link_fd;
	(void)why;
	comch_net_set_limits(net_of(ch), ep);
	return true;
}

/*
 * While a connection lives, the PE of its endpoint does the transport's work in
 * doca_pe_progress, as for a DOCA RDMA io in flight: a message then leaves in the sending
 * thread's next progress call, and its answer is taken on the thread that waits for it, with no
 * hand-off to the transport's thread and back (two thread wake-ups each way on a busy or small
 * machine). A PE armed for its notification handle hands that work back at once.
 */
static void net_bind(struct comch_chan *ch, struct doca_comch_connection *conn)
{
	struct comch_net *n = net_of(ch);

	pthread_mutex_lock(&n->lock);
	n->conn = conn;
	if (!n->closed)
		comch_poll_by(&n->polled, conn != NULL ? conn->ep->ctx.pe : NULL);
	pthread_mutex_unlock(&n->lock);
}

/* A connection's liveness (PING, silence), and a refused peer; true when it ended. */
static bool net_tick(struct doca_comch_connection *conn)
{
	struct comch_net *n = net_of(conn->ch);
	uint64_t now = doca_priv_now_ns(), quiet = n->silence_ns;
	uint64_t last = atomic_load(&n->last_rx_ns);
	const char *refused;

	pthread_mutex_lock(&n->lock);
	refused = n->refused;
	pthread_mutex_unlock(&n->lock);
	if (refused != NULL) {
		comch_conn_refuse(conn, refused);
		return true;
	}
	if (now > last && now - last >= quiet) {
		COMCH_PEER_LOG(
		        WARNING, conn,
		        "comch %s \"%s\": the peer of connection %p sent nothing for %llu ms "
		        "(ODMA_TRANSPORT_TIMEOUT_MS): it died, or the network to it is "
		        "down; the connection is closed",
		        comch_ep_kind(conn->ep), conn->ep->name, (void *)conn,
		        (unsigned long long)(quiet / 1000000ull));
		comch_conn_kill(conn, COMCH_END_PEER, "the peer went silent");
		return true;
	}
	if (now - n->last_ping_ns >= quiet / 4 && now - last >= quiet / 4) {
		n->last_ping_ns = now;
		(void)comch_net_send(n, COMCH_W_PING, 0, NULL, 0);
	}
	return false;
}

/* Reports the messages delivered so far to the peer (CREDIT) when that changed. */
static void net_credit(struct doca_comch_connection *conn)
{
	struct comch_net *n = net_of(conn->ch);
	uint64_t v = conn->delivered;

	if (v == n->credit_sent)
		return;
	if (comch_net_send(n, COMCH_W_CREDIT, 0, &v, sizeof(v)) == 0)
		n->credit_sent = v; /* else a later progress sends it */
}

/*
 * No socket to wait on for room (a send past the transport's bound rings the progress once the
 * transport completes one: net_on_room); the next PING or silence deadline.
 */
static uint64_t net_due(const struct doca_comch_connection *conn, uint32_t *want)
{
	struct comch_net *n = net_of(conn->ch);
	uint64_t quiet = n->silence_ns; /* PINGs every quarter */
	uint64_t last = atomic_load(&n->last_rx_ns);
	uint64_t ping = n->last_ping_ns + quiet / 4;

	*want &= ~(uint32_t)EPOLLOUT;
	return comch_min_ns(ping > last + quiet / 4 ? ping : last + quiet / 4, last + quiet);
}

/* Across machines: a private shadow of the peer's ring, fed by its FP_POSTs. */
static struct comch_ring *net_rcons_map(struct doca_comch_connection *conn, int fd,
                                        const struct comch_ring_geom *g, int *bell_fd,
                                        const char **why)
{
	struct comch_ring_geom honest;
	struct comch_ring *ring;
	uint32_t max_slots = 1;

	(void)fd; /* none crosses machines */
	*bell_fd = -1;
	/*
	 * The shadow is this process' own memory, touched by the peer's FP_POSTs: only the
	 * geometry an odma consumer makes (comch_ring_geom_make), of at most as many slots as a
	 * consumer may have tasks here (a peer asked for 64 MiB a consumer, 64 consumers a
	 * connection).
	 */
	while (max_slots < conn->ep->ctx.caps->comch_fp_max_tasks)
		max_slots <<= 1;
	comch_ring_geom_make(&honest, g->nslots, g->imm_len, g->consumer_id);
	if (g->nslots > max_slots || g->slot_size != honest.slot_size ||
	    g->ring_size != honest.ring_size) {
		*why = "a ring geometry no consumer makes (slot size, ring size, or more slots "
		       "than doca_comch_consumer_cap_get_max_num_tasks)";
		return NULL;
	}
	ring = mmap(NULL, (size_t)g->ring_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
	            -1, 0);
	if (ring == MAP_FAILED) {
		*why = "no memory for the shadow ring";
		return NULL;
	}
	comch_ring_init(ring, g);
	return ring;
}

/* The producer's side learns of the buffer (never its address). */
static void net_post(struct doca_comch_consumer *c, uint64_t seq, uint64_t room)
{
	struct comch_fp_post m = { .seq = seq, .room = room };
	struct comch_net *n = net_of(c->fp.conn->ch);
	uint64_t max = atomic_load(&n->posted_max);

	/* no lock per post: a buffer larger than any before (rare) raises the maximum */
	while (room > max && !atomic_compare_exchange_weak(&n->posted_max, &max, room))
		;
	/* in order with the control packets: queued (bounded) while the transport is full */
	(void)comch_conn_send_ctl(c->fp.conn, COMCH_W_FP_POST, c->fp.id, &m, sizeof(m), -1);
}

/*
 * The pieces of an FP_DATA after its header @m (@parts[0]): @t's immediate and the data where
 * they lie, or, when they are more than one message takes, gathered into *@gathered (freed by
 * the caller). How many pieces; 0 when memory ran out.
 */
static unsigned int fp_parts(const struct comch_fp_data *m,
                             const struct doca_comch_producer_task_send *t, const struct iovec *iov,
                             unsigned int niov, struct iovec *parts, uint8_t **gathered)
{
	unsigned int np = 1, data = 0;
	size_t off;

	parts[0] = (struct iovec){ (void *)m, sizeof(*m) };
	for (unsigned int i = 0; i < niov; i++)
		data += iov[i].iov_len != 0;
	if (1 + (t->imm_len != 0) + data <= ODMA_TP_SENDV_MAX - 1) {
		if (t->imm_len != 0)
			parts[np++] = (struct iovec){ (void *)t->imm, t->imm_len };
		for (unsigned int i = 0; i < niov; i++)
			if (iov[i].iov_len != 0)
				parts[np++] = iov[i];
		return np;
	}
	*gathered = malloc(t->imm_len + m->len);
	if (*gathered == NULL)
		return 0;
	memcpy(*gathered, t->imm, t->imm_len);
	off = t->imm_len;
	for (unsigned int i = 0; i < niov; i++) {
		memcpy(*gathered + off, iov[i].iov_base, iov[i].iov_len);
		off += iov[i].iov_len;
	}
	parts[1] = (struct iovec){ *gathered, off };
	return 2;
}

/*
 * Claims the next slot of the shadow ring of consumer @r and sends the bytes for it, both
 * under the connection's lock so the FP_DATAs leave in the order of their claims (the
 * consumer's side fills its slots in that order). The task completes once the bytes are
 * copied out.
 */
static doca_error_t net_produce(struct doca_comch_producer *p, struct comch_rcons *r,
                                struct doca_comch_producer_task_send *t, const struct iovec *iov,
                                unsigned int niov, uint64_t total)
{
	struct doca_comch_connection *conn = p->fp.conn;
	struct comch_net *n = net_of(conn->ch);
	struct comch_fp_data m = { .len = total, .producer_id = p->fp.id, .imm_len = t->imm_len };
	size_t len = sizeof(m) + t->imm_len + total;
	struct iovec parts[ODMA_TP_SENDV_MAX - 1];
	uint8_t *b = NULL;
	unsigned int np = fp_parts(&m, t, iov, niov, parts, &b);
	struct comch_claimed cl;
	doca_error_t res;

	if (np == 0)
		return DOCA_ERROR_NO_MEMORY;
	pthread_mutex_lock(&conn->lock);
	/*
	 * No slot is spent on bytes the transport cannot take now (the peer gives nothing back):
	 * the room is looked at and taken under @n's lock, so no other send of the connection (a
	 * PONG from the transport's thread) takes it in between.
	 */
	pthread_mutex_lock(&n->lock);
	res = n->tp == NULL || n->closed || doca_priv_tp_ep_room(n->tp, 4 + len)
	              ? comch_fp_claim(p, r, total, t->imm_len, &cl)
	              : DOCA_ERROR_AGAIN;
	if (res == DOCA_SUCCESS) {
		m.seq = cl.slot->seq; /* parts[0] is @m: the header leaves with its sequence */
		if (net_sendv_locked(n, COMCH_W_FP_DATA, r->id, parts, np) != 0) {
			COMCH_PEER_LOG(ERROR, conn,
			               "comch producer %u: the connection to consumer %u is gone; "
			               "%llu bytes not sent",
			               p->fp.id, r->id, (unsigned long long)total);
			res = DOCA_ERROR_NOT_CONNECTED;
		}
		/* the shadow slot is spent either way (the consumer's side fills the real one) */
		comch_ring_fill(cl.slot, &r->geom, p->fp.id, total, NULL, 0, DOCA_SUCCESS);
	}
	pthread_mutex_unlock(&n->lock);
	pthread_mutex_unlock(&conn->lock);
	free(b);
	if (res == DOCA_SUCCESS)
		doca_priv_task_complete(&t->base, DOCA_SUCCESS);
	return res;
}

/* ---- servers: the shared listener and the handshakes -------------------------------------- */

/* Under g_net.lock. */
static void pending_unlink_locked(struct comch_net *n)
{
	for (struct comch_net **pp = &g_net.pending; *pp != NULL; pp = &(*pp)->next)
		if (*pp == n) {
			*pp = n->next;
			g_net.num_pending--;
			return;
		}
}

static bool hello_names(const struct comch_ep *ep, const struct comch_hello *h, const char *name)
{
	return h->system_id == ep->system_id && h->name_len == strlen(ep->name) &&
	       memcmp(name, ep->name, h->name_len) == 0 &&
	       strncmp(h->pci, ep->side->rep_pci(ep), sizeof(h->pci)) == 0;
}

/*
 * Transport thread: a handshake got its first packet (or closed). A HELLO naming a started
 * server goes to that server; anything else is answered (REJECT) and left to the sweep.
 */
static void hs_on_packet(struct comch_net *n)
{
	struct comch_hello h;
	const char *name;
	struct comch_npkt *p;
	struct comch_ep *to = NULL;
	const char *why = "the first packet was not a HELLO";

	pthread_mutex_lock(&n->lock);
	p = n->head;
	n->on_hello = NULL; /* one look only */
	pthread_mutex_unlock(&n->lock);
	if (p == NULL || p->len < sizeof(struct comch_wire_hdr) + sizeof(h))
		goto refuse;
	memcpy(&h, p->bytes + sizeof(struct comch_wire_hdr), sizeof(h));
	name = (const char *)p->bytes + sizeof(struct comch_wire_hdr) + sizeof(h);
	if (((const struct comch_wire_hdr *)(const void *)p->bytes)->type != COMCH_W_HELLO)
		goto refuse;
	why = "malformed HELLO";
	if (h.name_len != p->len - sizeof(struct comch_wire_hdr) - sizeof(h) ||
	    h.name_len >= COMCH_NAME_MAX)
		goto refuse;
	h.pci[sizeof(h.pci) - 1] = '\0';
	pthread_mutex_lock(&g_net.lock);
	if (!n->swept) {
		for (struct comch_ep *ep = g_net.servers; ep != NULL; ep = ep->net_next)
			if (hello_names(ep, &h, name)) {
				to = ep;
				break;
			}
		if (to != NULL) {
			pending_unlink_locked(n);
			n->next = to->net_hs;
			to->net_hs = n;
			ring(to->net_bell);
		}
	}
	pthread_mutex_unlock(&g_net.lock);
	if (to != NULL)
		return;
	why = "no server of that name listens on this representor of this emulated system";
	comch_chan_reject(&n->ch, DOCA_ERROR_NOT_FOUND, why);
	ODMA_RATELIMITED_WARN("comch: refused a connection at ODMA_FABRIC "
	                      "for server \"%.*s\" (device %s): %s",
	                      (int)h.name_len, name, h.pci, why);
	goto mark;
refuse:
	ODMA_RATELIMITED_WARN("comch: refused a connection at ODMA_FABRIC: %s", why);
mark:
	hs_refuse(n);
}

/* A connection's state before its HELLO, whose buffer holds a HELLO and its name. */
static struct comch_net *hs_net_new(void)
{
	return comch_net_new(sizeof(struct comch_wire_hdr) + sizeof(struct comch_hello) +
	                             COMCH_NAME_MAX,
	                     4, COMCH_SIDE_SERVER);
}

/*
 * Transport thread, before an endpoint exists: a peer is let in only while fewer than
 * COMCH_HS_MAX handshakes are listed. Refused handshakes stay listed (each with its
 * descriptor) until a server's progress sweeps them, so without this a server that does not
 * progress listed one more for every peer that came and went, without bound. The state of the
 * connection is made here too: out of memory, the peer is refused before it has an endpoint
 * (on_accept, which follows on this thread, cannot refuse the endpoint it is given).
 */
static bool net_admit_peer(void *arg)
{
	struct comch_net *spare = NULL;
	bool ok;

	(void)arg;
	pthread_mutex_lock(&g_net.lock);
	ok = g_net.num_pending < COMCH_HS_MAX;
	if (ok && g_net.spare == NULL)
		spare = g_net.spare = hs_net_new();
	else
		spare = g_net.spare;
	pthread_mutex_unlock(&g_net.lock);
	if (!ok)
		ODMA_RATELIMITED_WARN("comch: %u connections at ODMA_FABRIC wait for their HELLO "
		                      "or for a server's progress to close them; "
		                      "a new one is rejected",
		                      COMCH_HS_MAX);
	else if (spare == NULL)
		ODMA_RATELIMITED_WARN("comch: out of memory; "
		                      "a connection at ODMA_FABRIC is rejected");
	return ok && spare != NULL;
}

static void on_accept(struct odma_tp_ep *tp, void *arg)
{
	struct comch_net *n;
	struct odma_tp_ep_cbs cbs;

	(void)arg;
	pthread_mutex_lock(&g_net.lock);
	n = g_net.spare; /* net_admit_peer made it, just before, on this thread */
	g_net.spare = NULL;
	pthread_mutex_unlock(&g_net.lock);
	if (n == NULL && (n = hs_net_new()) == NULL) {
		/* (never: the listener asks net_admit_peer first) the peer's deadline ends it */
		ODMA_RATELIMITED_WARN("comch: out of memory for a connection at ODMA_FABRIC");
		return;
	}
	n->tp = tp;
	n->on_hello = hs_on_packet;
	n->auth = COMCH_AUTH_WAIT_1;
	n->deadline_ns = doca_priv_now_ns() + (uint64_t)COMCH_HANDSHAKE_TIMEOUT_MS * 1000000ull;
	pthread_mutex_lock(&g_net.lock);
	memcpy(n->auth_key, g_net.key, sizeof(n->auth_key));
	memcpy(n->auth_bind, g_net.bind, sizeof(n->auth_bind));
	if (g_net.num_pending >= COMCH_HS_MAX)
		n->refused_hs = true; /* the sweep closes it */
	n->next = g_net.pending;
	g_net.pending = n;
	g_net.num_pending++;
	pthread_mutex_unlock(&g_net.lock);
	doca_priv_tp_ep_set_cbs(tp, net_cbs(n, &cbs));
}

static void free_list(struct comch_net *n)
{
	while (n != NULL) {
		struct comch_net *next = n->next;

		net_free(&n->ch);
		n = next;
	}
}

/* Closes refused handshakes and those past their deadline (a server's PE thread). */
static void sweep(void)
{
	uint64_t now = doca_priv_now_ns();
	struct comch_net *dead = NULL;

	pthread_mutex_lock(&g_net.lock);
	for (struct comch_net **pp = &g_net.pending; *pp != NULL;) {
		struct comch_net *n = *pp;
		bool gone;

		pthread_mutex_lock(&n->lock); /* (the listener's lock, then an endpoint's) */
		gone = n->closed && n->head == NULL;
		pthread_mutex_unlock(&n->lock);
		if (n->refused_hs || now >= n->deadline_ns || gone) {
			*pp = n->next;
			g_net.num_pending--;
			n->swept = true;
			n->next = dead;
			dead = n;
			continue;
		}
		pp = &n->next;
	}
	pthread_mutex_unlock(&g_net.lock);
	free_list(dead);
}

/* A server listens at ODMA_FABRIC too (one listener per process, shared by its servers). */
static doca_error_t net_listen(struct comch_ep *ep)
{
	char addr[64];
	uint16_t port;
	doca_error_t r = DOCA_SUCCESS;
	void *listener = NULL;
	bool listening;

	uint8_t key[ODMA_FABRIC_KEY_LEN];
	char why[512];

	if (!fabric(addr, sizeof(addr), &port))
		return DOCA_ERROR_INVALID_VALUE;
	if (!doca_priv_fabric_key(key, why, sizeof(why))) {
		ODMA_ERR("comch server \"%s\": cannot listen at ODMA_FABRIC: %s", ep->name, why);
		return DOCA_ERROR_INVALID_VALUE;
	}
	ep->net_bell = comch_net_new(0, 0, COMCH_SIDE_SERVER); /* its eventfd only */
	if (ep->net_bell == NULL)
		return DOCA_ERROR_NO_MEMORY;
	pthread_mutex_lock(&g_net.listen_lock);
	pthread_mutex_lock(&g_net.lock);
	listening = g_net.listener != NULL;
	pthread_mutex_unlock(&g_net.lock);
	/* not under g_net.lock: the transport thread takes it in its callbacks */
	if (!listening) {
		r = doca_priv_tp_listen(addr, &port, on_accept, net_admit_peer, NULL, &listener);
		if (r != DOCA_SUCCESS)
			ODMA_ERR("comch server \"%s\": cannot listen at ODMA_FABRIC=%s:%u "
			         "(%s); free the port or pick another one, with the same "
			         "ODMA_FABRIC on both sides",
			         ep->name, addr, port, doca_error_get_name(r));
	}
	if (r == DOCA_SUCCESS) {
		pthread_mutex_lock(&g_net.lock);
		memcpy(g_net.key, key, sizeof(key));
		auth_bind(g_net.bind, addr, port);
		if (!listening)
			g_net.listener = listener;
		ep->net_next = g_net.servers;
		g_net.servers = ep;
		pthread_mutex_unlock(&g_net.lock);
	}
	pthread_mutex_unlock(&g_net.listen_lock);
	if (r != DOCA_SUCCESS) {
		net_free(&ep->net_bell->ch);
		ep->net_bell = NULL;
		return r;
	}
	ODMA_DBG("comch server \"%s\" also listens at ODMA_FABRIC %s:%u", ep->name, addr, port);
	return DOCA_SUCCESS;
}

static void net_unlisten(struct comch_ep *ep)
{
	struct comch_net *left, *spare = NULL;
	void *listener = NULL;

	if (ep->net_bell == NULL)
		return;
	pthread_mutex_lock(&g_net.listen_lock);
	pthread_mutex_lock(&g_net.lock);
	for (struct comch_ep **pp = &g_net.servers; *pp != NULL; pp = &(*pp)->net_next)
		if (*pp == ep) {
			*pp = ep->net_next;
			break;
		}
	if (g_net.servers == NULL) {
		listener = g_net.listener;
		g_net.listener = NULL;
	}
	left = ep->net_hs;
	ep->net_hs = NULL;
	pthread_mutex_unlock(&g_net.lock);
	if (listener != NULL) {
		doca_priv_tp_listen_close(listener); /* no admit after it */
		pthread_mutex_lock(&g_net.lock);
		spare = g_net.spare;
		g_net.spare = NULL;
		pthread_mutex_unlock(&g_net.lock);
	}
	pthread_mutex_unlock(&g_net.listen_lock);
	free_list(left);
	free_list(spare);
	comch_ep_unwatch(ep, ep->net_bell->ch.fd, &ep->net_bell_watched);
	net_free(&ep->net_bell->ch);
	ep->net_bell = NULL;
	sweep();
}

/* A handshake handed to this server, its HELLO read into ep->rx (net.c checked its framing). */
static struct comch_chan *net_take(struct comch_ep *ep, ssize_t *len, int *pfd, bool *any)
{
	struct comch_net *n;
	uint64_t v;

	if (ep->net_bell == NULL)
		return NULL; /* not listening at ODMA_FABRIC */
	sweep();
	pthread_mutex_lock(&g_net.lock);
	n = ep->net_hs;
	if (n != NULL)
		ep->net_hs = n->next;
	else
		(void)!read(ep->net_bell->ch.fd, &v, sizeof(v));
	pthread_mutex_unlock(&g_net.lock);
	if (n == NULL)
		return NULL;
	n->next = NULL;
	*any = true;
	*len = net_recv(&n->ch, ep->rx, ep->rx_cap, pfd);
	return &n->ch;
}

/* The eventfd rung when a HELLO is handed over; the process' next handshake deadline. */
static uint64_t net_listen_arm(struct comch_ep *ep)
{
	uint64_t at = ODMA_WAKE_NEVER;

	if (ep->net_bell == NULL)
		return ODMA_WAKE_NEVER;
	comch_ep_watch(ep, ep->net_bell->ch.fd, &ep->net_bell_watched);
	pthread_mutex_lock(&g_net.lock);
	for (struct comch_net *n = g_net.pending; n != NULL; n = n->next)
		at = comch_min_ns(at, n->refused_hs ? 0 : n->deadline_ns);
	pthread_mutex_unlock(&g_net.lock);
	return at;
}

/* ---- clients ------------------------------------------------------------------------------ */

static atomic_bool secret_logged;

/*
 * Connects to ODMA_FABRIC: the HELLO is sent once the server proved the fabric secret (at most
 * one attempt every 100 ms).
 */
static struct comch_chan *net_connect(struct comch_ep *ep, const void *hello, size_t len, int *err)
{
	char why[512];
	char addr[64];
	uint16_t port;
	struct odma_tp_ep_cbs cbs;
	struct comch_net *n;
	doca_error_t r;

	*err = EHOSTUNREACH; /* what a failed attempt reports (read only then) */
	if (!fabric(addr, sizeof(addr), &port))
		return NULL;
	/* the server may send right after its WELCOME: the client's own limits from the start */
	n = comch_net_new(0, 0, COMCH_SIDE_CLIENT);
	if (n == NULL)
		return NULL;
	comch_net_set_limits(n, ep);
	auth_bind(n->auth_bind, addr, port);
	if (!doca_priv_fabric_key(n->auth_key, why, sizeof(why))) {
		if (!atomic_exchange(&secret_logged, true)) /* asked every 100 ms */
			ODMA_ERR("comch client \"%s\": cannot connect at ODMA_FABRIC: %s", ep->name,
			         why);
		net_free(&n->ch);
		return NULL;
	}
	n->hello = malloc(len);
	if (n->hello == NULL || getrandom(n->nonce_own, NONCE, 0) != (ssize_t)NONCE) {
		net_free(&n->ch);
		return NULL;
	}
	memcpy(n->hello, hello, len);
	n->hello_len = len;
	n->auth = COMCH_AUTH_WAIT_2; /* before the endpoint exists: the answer may come at once */
	r = doca_priv_tp_connect(addr, port, net_cbs(n, &cbs), &n->tp);
	if (r != DOCA_SUCCESS) {
		n->tp = NULL;
		net_free(&n->ch);
		return NULL;
	}
	if (comch_net_send(n, COMCH_W_AUTH, 1, n->nonce_own, NONCE) != 0) {
		net_free(&n->ch);
		return NULL;
	}
	return &n->ch;
}

/* A refused peer (no shut op): its connection's progress sees the end and hangs up. */
const struct comch_carrier comch_net_carrier = {
	.where = " at ODMA_FABRIC",
	.lost_errno = ECONNREFUSED, /* nobody listened at ODMA_FABRIC, or it went away */
	.self_bell = true,
	.pe_polls = true,
	.retry_ms = 100,
	.wanted = comch_net_wanted,
	.listen = net_listen,
	.unlisten = net_unlisten,
	.take = net_take,
	.listen_arm = net_listen_arm,
	.connect = net_connect,
	.send = net_send,
	.recv = net_recv,
	.hangup = net_hangup,
	.settle = net_settle,
	.free = net_free,
	.admit = net_admit,
	.bind = net_bind,
	.tick = net_tick,
	.credit = net_credit,
	.due = net_due,
	.rcons_map = net_rcons_map,
	.post = net_post,
	.produce = net_produce,
};
