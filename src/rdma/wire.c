/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The wire layer of DOCA RDMA: channels (frame streams) on the endpoints of core/transport
 * (odma_tp_listen / odma_tp_connect / odma_tp_ep_send: UCX, TCP between namespaces or
 * machines), and the connection blob. A channel is one endpoint: each message of the peer is
 * one frame (struct rw_hdr, then its payload), queued by the transport thread as it arrives
 * and taken, in order, by the channel's reader thread (serve.c), which may block (receiver
 * not ready) without stopping the transport. Nothing here opens a socket.
 *
 * Blob (RW_BLOB_LEN = 104 bytes, little-endian; offsets in enum below): magic "ODMARDMA",
 * u16 version 1, u16 length, u8 transport, u8 address count, u16 listener port, u32
 * connection id, key[16], u64 context nonce, u64 network namespace inode, boot id[16],
 * 8 IPv4 addresses, CRC32C. Nothing in it is an address in this process: valid anywhere.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>

#include "core/log/log.h"
#include "core/transport/transport.h"
#include "rdma/rdma.h"
#include "util/codec.h"
#include "util/queue.h"

ODMA_LOG_REGISTER(ODMA_RDMA_WIRE)

/* Layout offsets of the blob. */
enum {
	BO_MAGIC = 0,
	BO_VERSION = 8,
	BO_LEN = 10,
	BO_TRANSPORT = 12,
	BO_NADDRS = 13,
	BO_PORT = 14,
	BO_CONN = 16,
	BO_KEY = 20,
	BO_NONCE = 36,
	BO_NETNS = 44,
	BO_BOOT = 52,
	BO_ADDRS = 68,
	BO_CRC = 68 + 4 * RW_BLOB_MAX_ADDRS,
};
#define BLOB_LEN (BO_CRC + 4)
_Static_assert(BLOB_LEN == RW_BLOB_LEN, "blob layout");

/* ---------------------------------------------------------------- channels */

/* One message of the peer, kept until the reader has taken it (the frame: header, payload). */
struct rw_msg {
	struct rw_msg *next;
	size_t len;
	uint8_t data[];
};

/*
 * What one channel queues for its reader is bounded by the carrier's credit (transport.h,
 * ODMA_TP_EP_WINDOW): a queued frame's credit goes back when the reader is done with it
 * (rw_next), one served on the transport thread's at once. A peer that sends past it has its
 * endpoint closed by the transport; an honest one waits (the reader may wait too: a send for a
 * posted receive, up to the RNR time).
 */

/*
 * A peer that connected to a listener costs no thread and almost no memory until the program
 * admits it (rw_open): it may send exactly one frame of at most RW_GATE_FRAME_MAX bytes (the
 * HELLO, CM request or second-stream frame that names what it wants) within
 * RW_FIRST_FRAME_MS, and at most RW_PENDING_MAX peers per listener wait for their first
 * frame. A second frame before the admission, a longer first frame, silence past the
 * deadline or a full waiting room closes the peer's endpoint.
 */
#define RW_GATE_FRAME_MAX 256u
#define RW_FIRST_FRAME_MS 5000u
#define RW_PENDING_MAX 64u
/*
 * A peer beyond RW_PENDING_MAX is refused: closed RW_REFUSE_MS after it connected by the
 * listener's rw_accept, not at once. Closing (or rejecting) a burst of connections while
 * UCX 1.13's TCP connection manager is still setting them up aborts the process inside UCX
 * (tcp_sockcm_ep.c: an assertion on the endpoint's state; 4 of 6 runs with 136 refused in a
 * burst); a connection closed once set up is safe. At most RW_REFUSED_MAX wait to be closed;
 * past them the transport rejects the connection request itself.
 */
#define RW_REFUSE_MS 200u
#define RW_REFUSED_MAX 512u

struct rw_chan {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct odma_tp_ep *ep;
	bool closed;    /* on_close ran, a send failed, or rw_shutdown: no frame after the queue */
	bool ep_closed; /* odma_tp_ep_close was called (once) */
	bool quit;      /* rw_end: no frame taken after the queue; its owner's shutdown closes it */
	struct rw_msg *head, *tail;
	struct rw_msg *cur; /* the frame being read, and how far */
	size_t off;
	unsigned int sending;   /* sends not completed yet (rw_sent) */
	_Atomic uint64_t sent;  /* sends completed (rw_sent): whether the peer takes our frames */
	unsigned int draining;  /* threads in rw_drain_locked: rw_sent wakes them, not the reader */
	unsigned int pacing;    /* threads in rw_pace: rw_sent wakes them at half the pace */
	unsigned int attaching; /* rw_attach calls using the endpoint: its close waits */
	unsigned int answering; /* open answer windows (rw_answer_begin): a shutdown waits */
	bool ending;            /* a shutdown began: no new answer window */
	rw_fast_fn *fast;       /* serves a frame on the transport thread (rw_set_fast) */
	void *fast_arg;
	bool gated;        /* accepted, not yet admitted (rw_open): one small frame at most */
	uint32_t gate_got; /* frames received while gated */
	/*
	 * The listener while the peer waits for its first frame: touched only on the transport
	 * thread (accept, receive and close callbacks of this endpoint run there in turn).
	 */
	struct rw_lsn *lsn;
	bool waiting;         /* on lsn's waiting list (under lsn->lock) */
	bool refused;         /* beyond the cap: closed at its deadline, never handed out */
	uint64_t due_ms;      /* when it is closed unless its first frame came */
	struct rw_chan *next; /* a listener's waiting list or accept queue */
};

struct rw_lsn {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	void *tp;
	bool shut;
	struct rw_chan *head, *tail; /* peers whose first frame came (or that closed): rw_accept */
	struct rw_chan *waiting;     /* peers whose first frame has not come yet */
	uint32_t nwaiting;           /* waiting peers, the refused ones not counted */
	uint32_t nrefused;           /* refused peers on the waiting list */
	uint64_t refused;            /* peers closed at the gate: counts the log lines' rate */
	struct rw_chan *spare;       /* made by rw_admit for the rw_on_accept that follows it */
};

/*
 * Counts a refused peer: its number when it gets a log line (the first, then every power of
 * two: a flood is not a log), else 0.
 */
static uint64_t rw_refusal_logged(struct rw_lsn *l)
{
	uint64_t n = __atomic_add_fetch(&l->refused, 1, __ATOMIC_RELAXED);

	return (n & (n - 1)) == 0 ? n : 0;
}

/*
 * The peer of a waiting channel sent its first frame or closed (transport thread): it moves
 * to the accept queue.
 */
static void rw_ready(struct rw_chan *c)
{
	struct rw_lsn *l = c->lsn;

	if (l == NULL || c->refused)
		return; /* a refused peer waits for rw_accept to close it, whatever it sends */
	c->lsn = NULL;
	pthread_mutex_lock(&l->lock);
	if (c->waiting) { /* else rw_accept or rw_listen_free already took it off, to close it */
		struct rw_chan **pp = &l->waiting;

		while (*pp != c)
			pp = &(*pp)->next;
		*pp = c->next;
		c->waiting = false;
		l->nwaiting--;
		ODMA_QUEUE_PUSH(l->head, l->tail, c, next);
		pthread_cond_broadcast(&l->cond);
	}
	pthread_mutex_unlock(&l->lock);
}

/*
 * Whether a frame of @len bytes arriving on @c is refused (c->lock held): the channel has
 * ended, or the frame ends it now (one line: too long, or a second frame before the
 * admission).
 */
static bool rw_refused_locked(struct rw_chan *c, size_t len)
{
	if (c->closed || c->quit)
		return true;
	if (c->gated && (++c->gate_got > 1 || len > RW_GATE_FRAME_MAX))
		ODMA_WARN("RDMA: a peer sent %s before the program admitted it; its connection is "
		          "closed (a client sends one request, then waits for the answer)",
		          c->gate_got > 1 ? "a second frame" : "an oversized first frame");
	else if (len > RW_FRAME_MAX)
		ODMA_WARN("RDMA: a peer sent a frame of %zu bytes (at most %zu: a longer send, "
		          "write or answer goes in pieces); its connection is closed",
		          len, (size_t)RW_FRAME_MAX);
	else
		return false;
	c->closed = true; /* nothing of the frame is kept */
	pthread_cond_broadcast(&c->cond);
	return true;
}

/*
 * A copy of the frame @bytes for the reader: true when it is kept (its credit goes back when
 * the reader is done with it, rw_next); a frame that cannot be kept ends the stream.
 */
static bool rw_queue(struct rw_chan *c, const void *bytes, size_t len)
{
	struct rw_msg *m = malloc(sizeof(*m) + len);
	bool kept = false;

	pthread_mutex_lock(&c->lock);
	if (m == NULL) {
		c->closed = true; /* a lost frame breaks the stream: end it */
	} else if (!c->closed && !c->quit) {
		kept = true;
		m->len = len;
		memcpy(m->data, bytes, len);
		ODMA_QUEUE_PUSH(c->head, c->tail, m, next);
		m = NULL;
	}
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	free(m);
	rw_ready(c);
	return kept;
}

/*
 * Whether the @len bytes at @bytes are one frame: a header whose magic is ours and whose
 * length is the payload's that follows it. Its header into *@h.
 */
static bool rw_frame_hdr(const void *bytes, size_t len, struct rw_hdr *h)
{
	if (len < sizeof(*h))
		return false;
	memcpy(h, bytes, sizeof(*h));
	return h->magic == RW_MAGIC && h->len == len - sizeof(*h);
}

/* Marks @c closed: its reader takes what is queued, then sees the end. */
static void rw_mark_closed(struct rw_chan *c)
{
	pthread_mutex_lock(&c->lock);
	c->closed = true;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

static bool rw_on_recv(struct odma_tp_ep *ep, const void *bytes, size_t len, uint32_t imm,
                       void *arg)
{
	struct rw_chan *c = arg;
	rw_fast_fn *fast = NULL;
	struct rw_hdr h;
	bool ended;

	(void)ep;
	(void)imm;
	pthread_mutex_lock(&c->lock);
	ended = rw_refused_locked(c, len);
	/*
	 * Nothing queued and the reader inside no frame: the handler may serve this one here, in
	 * order (the transport thread hands us the peer's frames one at a time).
	 */
	if (!ended && c->fast != NULL && c->head == NULL && c->cur == NULL &&
	    rw_frame_hdr(bytes, len, &h))
		fast = c->fast;
	pthread_mutex_unlock(&c->lock);
	if (ended) { /* nothing of a frame after the end is kept, nor copied */
		rw_ready(c);
		return false;
	}
	if (fast != NULL) {
		int r = fast(c->fast_arg, &h, (const uint8_t *)bytes + sizeof(h));

		if (r < 0)
			rw_mark_closed(c); /* the reader ends the stream */
		if (r != 0)
			return false;
	}
	return rw_queue(c, bytes, len);
}

static void rw_on_close(struct odma_tp_ep *ep, doca_error_t why, void *arg)
{
	struct rw_chan *c = arg;

	(void)ep;
	(void)why;
	rw_mark_closed(c);
	rw_ready(c); /* rw_accept hands it out ended: its reader closes it */
}

static struct rw_chan *rw_chan_new(void)
{
	struct rw_chan *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	pthread_mutex_init(&c->lock, NULL);
	rw_cond_init(&c->cond);
	return c;
}

/*
 * Transport thread: whether a frame longer than the transport's receive buffer may come in,
 * asked before its bytes are kept: within what rw_refused_locked lets through (the transport
 * otherwise took up to 1 GiB for it before the frame was refused).
 */
static bool rw_admit_long(struct odma_tp_ep *ep, uint32_t imm, const void *head, size_t plen,
                          size_t len, void *arg)
{
	struct rw_chan *c = arg;
	bool ok;

	(void)ep;
	(void)imm;
	(void)head;
	(void)plen;
	pthread_mutex_lock(&c->lock);
	ok = !c->closed && !c->quit && len <= (c->gated ? RW_GATE_FRAME_MAX : RW_FRAME_MAX);
	pthread_mutex_unlock(&c->lock);
	return ok;
}

static void rw_cbs(struct rw_chan *c, struct odma_tp_ep_cbs *cbs)
{
	*cbs = (struct odma_tp_ep_cbs){
		.on_recv = rw_on_recv, .on_close = rw_on_close, .arg = c, .admit = rw_admit_long
	};
}

/*
 * Whether a listener takes one more connection at all (transport thread, before the transport
 * makes an endpoint for it): not once RW_REFUSED_MAX refused peers wait to be closed (the
 * transport then rejects the connection request), nor after the listener shut, nor without
 * memory for its channel, which is made here for rw_on_accept (that follows on this thread,
 * and must not close the endpoint it is given: UCX may still be setting it up).
 */
static bool rw_admit(void *arg)
{
	struct rw_lsn *l = arg;
	bool ok, oom = false;
	uint64_t n;

	pthread_mutex_lock(&l->lock);
	ok = !l->shut && l->nrefused < RW_REFUSED_MAX;
	if (ok && l->spare == NULL)
		oom = (l->spare = rw_chan_new()) == NULL;
	pthread_mutex_unlock(&l->lock);
	if (oom)
		ODMA_RATELIMITED_WARN("RDMA: out of memory for a connection; it is rejected");
	else if (!ok && (n = rw_refusal_logged(l)) != 0)
		ODMA_WARN("RDMA: %u peers already wait for their first frame on this listener and "
		          "%u more to be closed; a new one is rejected (%llu refused so far)",
		          RW_PENDING_MAX, RW_REFUSED_MAX, (unsigned long long)n);
	return ok && !oom;
}

/* A peer connected to a listener (transport thread): queue it for rw_accept. */
static void rw_on_accept(struct odma_tp_ep *ep, void *arg)
{
	struct rw_lsn *l = arg;
	struct rw_chan *c;
	struct odma_tp_ep_cbs cbs;

	pthread_mutex_lock(&l->lock);
	c = l->spare; /* rw_admit made it, just before */
	l->spare = NULL;
	pthread_mutex_unlock(&l->lock);
	if (c == NULL && (c = rw_chan_new()) == NULL) {
		/* (never: the transport asks rw_admit first) the peer's deadline ends it */
		ODMA_RATELIMITED_WARN("RDMA: out of memory for a connection");
		return;
	}
	c->ep = ep;
	c->gated = true;
	c->due_ms = rw_now_ms() + RW_FIRST_FRAME_MS;
	rw_cbs(c, &cbs);
	doca_priv_tp_ep_set_cbs(ep, &cbs); /* on this thread: nothing arrives before it */
	pthread_mutex_lock(&l->lock);
	if (l->shut) { /* rw_admit let it in: shut meanwhile (the close does not flush) */
		pthread_mutex_unlock(&l->lock);
		rw_close(c);
		return;
	}
	if (l->nwaiting >= RW_PENDING_MAX) { /* refused: closed soon, by rw_accept */
		uint64_t n;

		c->refused = true;
		c->due_ms = c->due_ms - RW_FIRST_FRAME_MS + RW_REFUSE_MS;
		l->nrefused++;
		if ((n = rw_refusal_logged(l)) != 0)
			ODMA_WARN("RDMA: %u peers already wait for their first frame on this "
			          "listener; a new one is closed (%llu refused so far)",
			          RW_PENDING_MAX, (unsigned long long)n);
	} else {
		l->nwaiting++;
	}
	c->lsn = l;
	c->waiting = true;
	c->next = l->waiting;
	l->waiting = c;
	pthread_cond_broadcast(&l->cond); /* rw_accept's deadline may now be sooner */
	pthread_mutex_unlock(&l->lock);
}

const char *rw_absent(void)
{
	return doca_priv_tp_net_absent();
}

doca_error_t rw_listen(const char *addr, uint16_t port, struct rw_lsn **out, uint16_t *bound)
{
	struct rw_lsn *l = calloc(1, sizeof(*l));
	doca_error_t r;

	if (l == NULL)
		return DOCA_ERROR_NO_MEMORY;
	pthread_mutex_init(&l->lock, NULL);
	rw_cond_init(&l->cond);
	*bound = port; /* 0: the kernel picks one, and *bound says which */
	r = doca_priv_tp_listen(addr, bound, rw_on_accept, rw_admit, l, &l->tp);
	if (r != DOCA_SUCCESS) {
		pthread_mutex_destroy(&l->lock);
		pthread_cond_destroy(&l->cond);
		free(l);
		return r;
	}
	*out = l;
	return DOCA_SUCCESS;
}

/*
 * Takes the waiting peers past their first frame's deadline off the list (l->lock held) and
 * returns them; *@next_ms is the soonest deadline left (0: none).
 */
static struct rw_chan *rw_overdue_locked(struct rw_lsn *l, uint64_t now, uint64_t *next_ms)
{
	struct rw_chan *late = NULL, **pp = &l->waiting;

	*next_ms = 0;
	while (*pp != NULL) {
		struct rw_chan *c = *pp;
		uint64_t due = c->due_ms;

		if (due > now) {
			if (*next_ms == 0 || due < *next_ms)
				*next_ms = due;
			pp = &c->next;
			continue;
		}
		*pp = c->next;
		c->waiting = false;
		if (c->refused)
			l->nrefused--;
		else
			l->nwaiting--;
		c->next = late;
		late = c;
	}
	return late;
}

struct rw_chan *rw_accept(struct rw_lsn *l)
{
	struct rw_chan *c = NULL;

	pthread_mutex_lock(&l->lock);
	while (!l->shut) {
		uint64_t now = rw_now_ms(), next_ms;
		struct rw_chan *late = rw_overdue_locked(l, now, &next_ms);

		if (late != NULL) {
			pthread_mutex_unlock(&l->lock);
			while (late != NULL) {
				struct rw_chan *n = late->next;
				uint64_t k = late->refused ? 0 : rw_refusal_logged(l);

				if (k != 0)
					ODMA_WARN("RDMA: a peer sent nothing within %u ms "
					          "of connecting; its connection is closed "
					          "(%llu refused so far)",
					          RW_FIRST_FRAME_MS, (unsigned long long)k);
				rw_close(late); /* no callback of it after this */
				late = n;
			}
			pthread_mutex_lock(&l->lock);
			continue;
		}
		if (l->head != NULL) {
			ODMA_QUEUE_POP(l->head, l->tail, c, next);
			c->next = NULL;
			break;
		}
		if (next_ms == 0) {
			pthread_cond_wait(&l->cond, &l->lock);
		} else {
			struct timespec end;

			rw_deadline(&end, (uint32_t)(next_ms - now));
			(void)pthread_cond_timedwait(&l->cond, &l->lock, &end);
		}
	}
	pthread_mutex_unlock(&l->lock);
	return c;
}

void rw_open(struct rw_chan *c)
{
	pthread_mutex_lock(&c->lock);
	c->gated = false;
	pthread_mutex_unlock(&c->lock);
}

void rw_listen_shutdown(struct rw_lsn *l)
{
	void *tp;

	pthread_mutex_lock(&l->lock);
	l->shut = true;
	tp = l->tp;
	l->tp = NULL;
	pthread_cond_broadcast(&l->cond);
	pthread_mutex_unlock(&l->lock);
	if (tp != NULL)
		doca_priv_tp_listen_close(tp); /* no accept after it */
}

void rw_listen_free(struct rw_lsn *l)
{
	struct rw_chan *c;

	rw_listen_shutdown(l);
	pthread_mutex_lock(&l->lock);
	c = l->waiting; /* off the list first: a first frame arriving now moves nothing */
	for (struct rw_chan *w = c; w != NULL; w = w->next)
		w->waiting = false;
	l->waiting = NULL;
	l->nwaiting = 0;
	l->nrefused = 0;
	pthread_mutex_unlock(&l->lock);
	while (c != NULL) {
		struct rw_chan *n = c->next;

		rw_close(c); /* no callback of it after this: l may go */
		c = n;
	}
	while (l->head != NULL) {
		c = l->head;
		l->head = c->next;
		rw_close(c);
	}
	rw_close(l->spare); /* no endpoint: nothing to wait for */
	pthread_mutex_destroy(&l->lock);
	pthread_cond_destroy(&l->cond);
	free(l);
}

struct rw_chan *rw_dial(const char *addr, uint16_t port)
{
	struct rw_chan *c = rw_chan_new();
	struct odma_tp_ep_cbs cbs;
	doca_error_t r;

	if (c == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	rw_cbs(c, &cbs);
	r = doca_priv_tp_connect(addr, port, &cbs, &c->ep);
	if (r != DOCA_SUCCESS) {
		pthread_mutex_destroy(&c->lock);
		pthread_cond_destroy(&c->cond);
		free(c);
		errno = r == DOCA_ERROR_NOT_SUPPORTED   ? EPROTONOSUPPORT
		        : r == DOCA_ERROR_INVALID_VALUE ? EAFNOSUPPORT
		                                        : EHOSTUNREACH;
		return NULL;
	}
	return c;
}

void rw_deadline(struct timespec *ts, uint32_t ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

void rw_cond_init(pthread_cond_t *cond)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(cond, &ca);
	pthread_condattr_destroy(&ca);
}

uint64_t rw_now_ms(void)
{
	return doca_priv_now_ns() / 1000000u; /* the PE's clock: CLOCK_MONOTONIC */
}

bool rw_read_hdr(struct rw_chan *c, struct rw_hdr *h, uint32_t timeout_ms)
{
	return rw_next(c, h, timeout_ms) == 1;
}

/* Readers woken with no frame and no end to read (this process): doca_priv_rdma_reader_wakes. */
static atomic_uint_fast64_t rw_idle_wakes;

uint64_t doca_priv_rdma_reader_wakes(void)
{
	return atomic_load(&rw_idle_wakes);
}

int rw_next(struct rw_chan *c, struct rw_hdr *h, uint32_t timeout_ms)
{
	struct timespec end;
	struct rw_msg *m;
	bool ended;

	if (timeout_ms != 0)
		rw_deadline(&end, timeout_ms);
	pthread_mutex_lock(&c->lock);
	if (c->cur != NULL) { /* what the handler left of the previous frame: its credit back */
		if (!c->ep_closed && c->ep != NULL)
			doca_priv_tp_ep_release(c->ep, c->cur->len);
		free(c->cur);
		c->cur = NULL;
	}
	while (c->head == NULL && !c->closed && !c->quit) {
		if (timeout_ms == 0)
			pthread_cond_wait(&c->cond, &c->lock);
		else if (pthread_cond_timedwait(&c->cond, &c->lock, &end) == ETIMEDOUT)
			break;
		if (c->head == NULL && !c->closed && !c->quit)
			atomic_fetch_add(&rw_idle_wakes, 1);
	}
	m = NULL;
	if (c->head != NULL)
		ODMA_QUEUE_POP(c->head, c->tail, m, next);
	c->cur = m; /* under the lock: rw_on_recv serves nothing here while a frame is read */
	c->off = sizeof(*h);
	ended = c->closed || c->quit;
	pthread_mutex_unlock(&c->lock);
	if (m == NULL)
		return ended ? -1 : 0;
	return rw_frame_hdr(m->data, m->len, h) ? 1 : -1;
}

bool rw_read_all(struct rw_chan *c, void *buf, size_t n)
{
	if (c->cur == NULL || c->cur->len - c->off < n)
		return false;
	memcpy(buf, c->cur->data + c->off, n);
	c->off += n;
	return true;
}

const uint8_t *rw_payload(const struct rw_chan *c)
{
	return c->cur != NULL ? c->cur->data + c->off : NULL;
}

void rw_set_fast(struct rw_chan *c, rw_fast_fn *fn, void *arg)
{
	pthread_mutex_lock(&c->lock);
	c->fast = fn;
	c->fast_arg = arg;
	pthread_mutex_unlock(&c->lock);
}

bool rw_skip(struct rw_chan *c, uint64_t n)
{
	if (c->cur == NULL || c->cur->len - c->off < n)
		return false;
	c->off += (size_t)n;
	return true;
}

/* A send completed (transport thread): a failed one ends the channel, as on a socket. */
static void rw_sent(void *arg, doca_error_t status)
{
	struct rw_chan *c = arg;

	pthread_mutex_lock(&c->lock);
	c->sending--;
	c->sent++;
	if (status != DOCA_SUCCESS)
		c->closed = true;
	/*
	 * Only a failure (the reader must see the end) or the last send a drain waits for wakes
	 * anyone: a wake per send took the reader off its wait and back (two context switches per
	 * message, a third of the RDMA send row's time on 2 vCPUs).
	 */
	if (status != DOCA_SUCCESS || (c->sending == 0 && c->draining != 0) ||
	    (c->sending == RW_PACE_FRAMES / 2 && c->pacing != 0))
		pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

int rw_pace_for(struct rw_chan *c, uint32_t timeout_ms)
{
	struct timespec end;
	int r;

	rw_deadline(&end, timeout_ms);
	pthread_mutex_lock(&c->lock);
	c->pacing++;
	while (c->sending >= RW_PACE_FRAMES && !c->closed && !c->ep_closed && !c->quit)
		if (timeout_ms == 0)
			pthread_cond_wait(&c->cond, &c->lock);
		else if (pthread_cond_timedwait(&c->cond, &c->lock, &end) == ETIMEDOUT)
			break;
	c->pacing--;
	r = c->closed || c->ep_closed || c->quit ? -1 : c->sending < RW_PACE_FRAMES ? 1 : 0;
	pthread_mutex_unlock(&c->lock);
	return r;
}

bool rw_pace(struct rw_chan *c)
{
	return rw_pace_for(c, 0) == 1;
}

uint64_t rw_sent_count(struct rw_chan *c)
{
	return atomic_load_explicit(&c->sent,
	                            memory_order_relaxed); /* a count, nothing behind it */
}

bool rw_backlog(struct rw_chan *c)
{
	bool full;

	pthread_mutex_lock(&c->lock);
	full = c->sending >= RW_PACE_FRAMES;
	pthread_mutex_unlock(&c->lock);
	return full;
}

/* Waits until @end for every send to complete (c->lock held); true when none is left. */
static bool rw_drain_until(struct rw_chan *c, const struct timespec *end)
{
	c->draining++;
	while (c->sending != 0)
		if (pthread_cond_timedwait(&c->cond, &c->lock, end) == ETIMEDOUT)
			break;
	c->draining--;
	return c->sending == 0;
}

/* The same, for up to @ms from now. */
static bool rw_drain_locked(struct rw_chan *c, uint32_t ms)
{
	struct timespec end;

	rw_deadline(&end, ms);
	return rw_drain_until(c, &end);
}

bool rw_write(struct rw_chan *c, const struct rw_hdr *h, const void *p1, size_t n1, const void *p2,
              size_t n2)
{
	struct rw_hdr hh = *h;
	/* one frame: the header, then the payload's parts where they lie (the transport copies) */
	const struct iovec f[3] = { { &hh, sizeof(hh) }, { (void *)p1, n1 }, { (void *)p2, n2 } };
	unsigned int nf = n2 != 0 ? 3 : n1 != 0 ? 2 : 1;
	bool ok;

	hh.len = n1 + n2;
	/*
	 * Under the lock: rw_shutdown marks the channel before it closes the endpoint, so a send
	 * is queued before the close or not at all; it counts until rw_sent.
	 */
	pthread_mutex_lock(&c->lock);
	ok = !c->closed && !c->ep_closed;
	if (ok) {
		c->sending++;
		if (doca_priv_tp_ep_sendv(c->ep, f, nf, 0, rw_sent, c) != DOCA_SUCCESS) {
			c->sending--;
			ok = false;
		}
	}
	pthread_mutex_unlock(&c->lock);
	return ok;
}

doca_error_t rw_attach(struct rw_chan *c, const struct doca_mmap *m, struct odma_tp_remote *rm)
{
	doca_error_t r = DOCA_ERROR_CONNECTION_ABORTED;
	bool open;

	pthread_mutex_lock(&c->lock);
	open = !c->closed && !c->ep_closed && !c->quit && c->ep != NULL;
	c->attaching += open;
	pthread_mutex_unlock(&c->lock);
	if (!open)
		return r;
	/* not under the lock: the transport thread takes it for this endpoint's callbacks */
	r = doca_priv_rdma_mem_attach(m, c->ep, rm);
	pthread_mutex_lock(&c->lock);
	c->attaching--;
	if (c->attaching == 0 && c->ep_closed) /* rw_shutdown waits for it (ep_closed first) */
		pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	return r;
}

bool rw_answer_begin(struct rw_chan *c)
{
	bool open;

	/*
	 * Only our own shutdown closes the window: a frame queued before the peer left is still
	 * applied, as before (its answer then fails to leave, which the peer no longer waits for).
	 */
	pthread_mutex_lock(&c->lock);
	open = !c->ending;
	c->answering += open;
	pthread_mutex_unlock(&c->lock);
	return open;
}

void rw_answer_end(struct rw_chan *c)
{
	pthread_mutex_lock(&c->lock);
	if (--c->answering == 0 && c->ending)
		pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

void rw_end(struct rw_chan *c)
{
	if (c == NULL)
		return;
	pthread_mutex_lock(&c->lock);
	c->quit = true;
	c->ending = true; /* no new answer window; the open ones finish before the close */
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

bool rw_ending(struct rw_chan *c)
{
	bool ending;

	pthread_mutex_lock(&c->lock);
	ending = c->ending;
	pthread_mutex_unlock(&c->lock);
	return ending;
}

void rw_shutdown(struct rw_chan *c)
{
	struct timespec end;

	rw_deadline(&end, RW_SHUTDOWN_MS);
	rw_shutdown_by(c, &end);
}

/* Closes the answer window and waits until @end for the open ones (c->lock held). */
static void rw_answers_out_locked(struct rw_chan *c, const struct timespec *end)
{
	/* an effect already applied gets its answer out first (bounded: none blocks) */
	c->ending = true;
	while (c->answering != 0)
		if (pthread_cond_timedwait(&c->cond, &c->lock, end) == ETIMEDOUT)
			break;
}

void rw_answers_out(struct rw_chan *c, const struct timespec *end)
{
	if (c == NULL)
		return;
	pthread_mutex_lock(&c->lock);
	rw_answers_out_locked(c, end);
	pthread_mutex_unlock(&c->lock);
}

void rw_shutdown_by(struct rw_chan *c, const struct timespec *end)
{
	bool close_ep;

	if (c == NULL)
		return;
	pthread_mutex_lock(&c->lock);
	rw_answers_out_locked(c, end);
	close_ep = !c->ep_closed && c->ep != NULL;
	c->ep_closed = true;      /* no send after this one */
	while (c->attaching != 0) /* bounded: an attach fails past the transport's timeout */
		pthread_cond_wait(&c->cond, &c->lock);
	/*
	 * What we sent goes out first (an answer, a reject, a disconnect: the peer may wait for
	 * it): the transport's close drops sends still queued. Bounded: a peer that stopped
	 * reading does not hold the close.
	 */
	if (close_ep && !c->closed)
		(void)rw_drain_until(c, end);
	c->closed = true;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	/* its sends in flight fail, on_close runs; no callback after the return */
	if (close_ep)
		doca_priv_tp_ep_close(c->ep);
}

void rw_close(struct rw_chan *c)
{
	bool drained;

	if (c == NULL)
		return;
	rw_shutdown(c);
	pthread_mutex_lock(&c->lock);
	drained = rw_drain_locked(c, RW_SHUTDOWN_MS); /* the close completed them: none is left */
	pthread_mutex_unlock(&c->lock);
	if (!drained)
		return; /* a completion may still come: keep the channel (never seen) */
	while (c->head != NULL) {
		struct rw_msg *m = c->head;

		c->head = m->next;
		free(m);
	}
	free(c->cur);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->cond);
	free(c);
}

/* ---------------------------------------------------------------- blob */

static void rw_self_ident(uint64_t *netns, uint8_t boot_id[16])
{
	struct odma_tp_ident me;
	struct stat st;

	*netns = stat("/proc/self/ns/net", &st) == 0 ? (uint64_t)st.st_ino : 0;
	doca_priv_tp_identity(&me); /* its boot id */
	memcpy(boot_id, me.boot_id, 16);
}

void rw_blob_self(struct rw_blob *b)
{
	char ip[INET_ADDRSTRLEN];
	struct in_addr a;

	rw_self_ident(&b->netns, b->boot_id);
	b->naddrs = 0;
	/* the one address the out-of-band listener binds (none listed: it binds 127.0.0.1) */
	if (doca_priv_tp_bind_addr(ip, sizeof(ip)) && inet_pton(AF_INET, ip, &a) == 1 &&
	    (ntohl(a.s_addr) >> 24) != 127)
		memcpy(b->addrs[b->naddrs++], &a, 4);
}

void rw_blob_encode(const struct rw_blob *b, uint8_t out[RW_BLOB_LEN])
{
	odma_rec_open(out, "ODMARDMA", 1, BLOB_LEN);
	out[BO_TRANSPORT] = b->transport;
	out[BO_NADDRS] = b->naddrs;
	odma_put_le(out + BO_PORT, b->port, 2);
	odma_put_le(out + BO_CONN, b->conn_id, 4);
	memcpy(out + BO_KEY, b->key, 16);
	odma_put_le(out + BO_NONCE, b->nonce, 8);
	odma_put_le(out + BO_NETNS, b->netns, 8);
	memcpy(out + BO_BOOT, b->boot_id, 16);
	for (unsigned int i = 0; i < b->naddrs && i < RW_BLOB_MAX_ADDRS; i++)
		memcpy(out + BO_ADDRS + 4 * i, b->addrs[i], 4);
	odma_rec_seal(out, BLOB_LEN);
}

const char *rw_blob_parse(const void *bytes, size_t len, struct rw_blob *b)
{
	const uint8_t *p = bytes;

	if (p == NULL || len != BLOB_LEN || memcmp(p + BO_MAGIC, "ODMARDMA", 8) != 0)
		return "not an odma RDMA connection blob (wrong magic or length)";
	if (odma_get_le(p + BO_VERSION, 2) != 1 || odma_get_le(p + BO_LEN, 2) != BLOB_LEN)
		return "unknown connection blob version";
	if (!odma_rec_sealed(p, BLOB_LEN))
		return "connection blob checksum mismatch (corrupted in transit)";
	if (p[BO_TRANSPORT] > DOCA_RDMA_TRANSPORT_TYPE_DC || p[BO_NADDRS] > RW_BLOB_MAX_ADDRS ||
	    odma_get_le(p + BO_PORT, 2) == 0 || odma_get_le(p + BO_CONN, 4) == 0)
		return "connection blob has an impossible transport, address count, port or id";
	memset(b, 0, sizeof(*b));
	b->transport = p[BO_TRANSPORT];
	b->naddrs = p[BO_NADDRS];
	b->port = (uint16_t)odma_get_le(p + BO_PORT, 2);
	b->conn_id = (uint32_t)odma_get_le(p + BO_CONN, 4);
	memcpy(b->key, p + BO_KEY, 16);
	b->nonce = odma_get_le(p + BO_NONCE, 8);
	b->netns = odma_get_le(p + BO_NETNS, 8);
	memcpy(b->boot_id, p + BO_BOOT, 16);
	for (unsigned int i = 0; i < b->naddrs; i++)
		memcpy(b->addrs[i], p + BO_ADDRS + 4 * i, 4);
	return NULL;
}

void rw_blob_target(const struct rw_blob *b, unsigned int i, char *text, size_t size)
{
	uint64_t netns;
	uint8_t boot[16];

	rw_self_ident(&netns, boot);
	/*
	 * A peer of this namespace listens on 127.0.0.1 when it lists no address; else only on
	 * the address it lists (on ODMA_FABRIC's network), which is reached from here too.
	 */
	if (netns == b->netns && memcmp(boot, b->boot_id, 16) == 0 && b->naddrs == 0) {
		snprintf(text, size, "%s", i == 0 ? "127.0.0.1" : "");
		return;
	}
	if (i >= b->naddrs) {
		text[0] = '\0';
		return;
	}
	if (inet_ntop(AF_INET, b->addrs[i], text, (socklen_t)size) == NULL)
		text[0] = '\0';
}
