/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The UCX transport's endpoints (transport.h): a listener on an address and port, a client
 * that connects there, messages with an immediate value both ways (active messages), and
 * requests against the peer's regions over the same endpoint. Everything that touches UCX
 * runs on the service thread: the calls here hand it jobs (ucx_call waits for one).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "core/config/config.h"
#include "core/log/log.h"
#include "core/transport/ucx_int.h"
#include "util/codec.h"
#include "util/queue.h"

atomic_uint_fast64_t odma_ucx_bundles, odma_ucx_msg_reuses, odma_ucx_msgs_posted;

ODMA_LOG_REGISTER(ODMA_UCX)

/* A queued ucx_call: run the function, then wake the caller. */
struct ucx_box {
	void (*fn)(void *);
	void *arg;
	struct ucx_waiter *w;
};

static void ucx_call_box(void *arg)
{
	struct ucx_box *b = arg;

	b->fn(b->arg);
	odma_ucx_waiter_done(b->w, DOCA_SUCCESS); /* @b, the caller's, may be gone after */
}

/* ---- endpoints: listen/connect, messages with an immediate, attach over an endpoint ---- */

struct ucx_listener {
	struct odma_lk_listener *l;
	odma_tp_accept_fn *on_accept;
	odma_tp_admit_fn *admit;
	void *arg;
	struct ucx_listener *prev, *next; /* odma_ucx_listeners (service thread) */
};

/* Every open listener (service thread): what the exit's shutdown still has to destroy. */
static struct ucx_listener *odma_ucx_listeners;

/*
 * Runs @fn(@arg) on the service thread and waits for it (a caller on it runs it at once). The
 * job lives in the caller's memory: it needs no allocation, so it always runs (a job that
 * could not be allocated was dropped, and a close silently never happened).
 */
static void ucx_call(void (*fn)(void *), void *arg)
{
	struct ucx_waiter w = { 0 };
	struct ucx_box box = { fn, arg, &w };
	struct ucx_chunk job = { .op = UCX_OP_WAIT, .fn = ucx_call_box, .fnarg = &box };

	/* the service thread, or a thread polling inline: no held doorbell outlives what fn ends */
	if (odma_ucx_in_worker) {
		odma_tp_wake_flush();
		fn(arg);
		return;
	}
	pthread_cond_init(&w.cond, NULL);
	odma_ucx_enqueue(&job, &job);
	odma_ucx_waiter_wait(&w);
}

static struct odma_tp_ep *ep_wrap(struct ucx_peer *p)
{
	struct odma_tp_ep *ep = calloc(1, sizeof(*ep));

	if (ep == NULL || !odma_ucx_index_add(p->ep, p)) {
		free(ep);
		return NULL;
	}
	ep->head.ops = &odma_ucx_ops;
	ep->peer = p;
	p->owner = ep;
	ep->next = odma_ucx_eps;
	odma_ucx_eps = ep;
	return ep;
}

static void ep_unlink(struct odma_tp_ep *ep)
{
	odma_ucx_index_del(ep->peer);
	for (struct odma_tp_ep **pp = &odma_ucx_eps; *pp != NULL; pp = &(*pp)->next)
		if (*pp == ep) {
			*pp = ep->next;
			return;
		}
}

struct ucx_msg {
	odma_tp_send_done_fn *done; /* NULL once reported (the endpoint went first) */
	void *arg;
	struct odma_tp_ep *ep;
	struct ucx_msg *prev, *next; /* in ep->msgs while UCX holds it */
	bool linked;
	uint32_t imm;
	/* alone: its endpoint header; in a bundle sent in place: imm u32 LE, length u32 LE */
	uint8_t hdr[ODMA_UCX_EP_HDR];
	struct ucx_msg *bnext;   /* the bundle this message leads: its next message */
	struct ucx_msg *pnext;   /* ep->pend_head's list: waiting for credit */
	void *bundle;            /* the lead's: its bundle (until msg_sent) */
	struct ucx_chunk job;    /* UCX_OP_SEND: queued for the worker's thread */
	struct odma_ucx_out out; /* alone: its payload, while UCX holds it */
	size_t len;
	size_t cap;    /* the bytes data has room for */
	uint64_t cost; /* of ep->held (a bounded endpoint's), given back when reported */
	uint8_t data[];
};

/*
 * Large message buffers are kept for the next send instead of freed. A stream of 64 KiB sends
 * freed and allocated them around glibc's trim threshold (128 KiB free at the heap's top), so
 * each window gave the pages back to the kernel and faulted them in again: 64 KiB RDMA sends
 * at 8 in flight ran at 4 k messages/s, and at 27-30 k with the heap never trimmed. At most
 * MSG_CACHE_MAX buffers of at least MSG_CACHE_MIN bytes are kept (a few MiB: RDMA frames are
 * at most 256 KiB); a message takes the smallest that fits it.
 */
#define MSG_CACHE_MIN (16u * 1024)
#define MSG_CACHE_MAX 32u
static struct {
	pthread_mutex_t lock;
	unsigned int n;
	struct ucx_msg *m[MSG_CACHE_MAX];
} msg_cache = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* A message buffer with room for @len bytes (any thread); NULL when out of memory. */
static struct ucx_msg *msg_alloc(size_t len)
{
	struct ucx_msg *m = NULL;
	unsigned int best = MSG_CACHE_MAX;

	if (len >= MSG_CACHE_MIN) {
		pthread_mutex_lock(&msg_cache.lock);
		for (unsigned int i = 0; i < msg_cache.n; i++)
			if (msg_cache.m[i]->cap >= len &&
			    (best == MSG_CACHE_MAX || msg_cache.m[i]->cap < msg_cache.m[best]->cap))
				best = i;
		if (best != MSG_CACHE_MAX) {
			m = msg_cache.m[best];
			msg_cache.m[best] = msg_cache.m[--msg_cache.n];
			atomic_fetch_add_explicit(&odma_ucx_msg_reuses, 1, memory_order_relaxed);
		}
		pthread_mutex_unlock(&msg_cache.lock);
	}
	if (m == NULL && (m = malloc(sizeof(*m) + len)) != NULL)
		m->cap = len;
	return m;
}

/* Gives message buffer @m back: kept for a later send when large and there is room, else freed. */
static void msg_free(struct ucx_msg *m)
{
	if (m->cap >= MSG_CACHE_MIN) {
		pthread_mutex_lock(&msg_cache.lock);
		if (msg_cache.n < MSG_CACHE_MAX) {
			msg_cache.m[msg_cache.n++] = m;
			m = NULL;
		}
		pthread_mutex_unlock(&msg_cache.lock);
	}
	free(m);
}

void odma_ucx_msg_cache_drop(void)
{
	pthread_mutex_lock(&msg_cache.lock);
	while (msg_cache.n > 0)
		free(msg_cache.m[--msg_cache.n]);
	pthread_mutex_unlock(&msg_cache.lock);
}

_Static_assert(ODMA_UCX_BUNDLE_SUB <= ODMA_UCX_EP_HDR, "a bundle entry's header fits hdr");

static void msg_unlink(struct ucx_msg *m)
{
	if (!m->linked)
		return;
	ODMA_LIST_UNLINK(m->ep->msgs, m, prev, next);
	m->linked = false;
}

/*
 * The connection is gone (service thread): the sends UCX still holds complete with IO_FAILED
 * now (UCX reports their cancellation later, after the owner may have freed what their
 * callbacks use: msg_sent then only frees them), then on_close, once.
 */
void odma_ucx_ep_gone(struct odma_tp_ep *ep, doca_error_t why)
{
	if (ep->gone)
		return;
	ep->gone = true;
	while (ep->pend_head != NULL) { /* never handed to UCX: they fail here, in order */
		struct ucx_msg *m = ep->pend_head;

		ep->pend_head = m->pnext;
		if (m->cost != 0)
			atomic_fetch_sub(&ep->held, m->cost);
		if (m->done != NULL)
			m->done(m->arg, DOCA_ERROR_IO_FAILED);
		msg_free(m);
	}
	ep->pend_tail = NULL;
	while (ep->msgs != NULL) {
		struct ucx_msg *lead = ep->msgs;

		msg_unlink(lead);
		for (struct ucx_msg *m = lead; m != NULL; m = m->bnext) {
			odma_tp_send_done_fn *done = m->done;

			m->done = NULL;
			m->ep = NULL; /* the endpoint may be freed before UCX lets go of it */
			if (m->cost != 0)
				atomic_fetch_sub(&ep->held, m->cost);
			if (done != NULL)
				done(m->arg, DOCA_ERROR_IO_FAILED);
		}
	}
	if (ep->cbs.on_close != NULL)
		ep->cbs.on_close(ep, why, ep->cbs.arg);
}

/*
 * A peer of an endpoint, connected by the link's @connect (to a listener, or accepting @c):
 * not keyed by address, one reference (the endpoint's).
 */
static struct ucx_peer *ep_peer_new(const struct sockaddr_in *to, struct odma_lk_conn *c)
{
	struct ucx_peer *p = calloc(1, sizeof(*p));
	int st;

	if (p == NULL)
		return NULL;
	st = to != NULL ? odma_ux.lk->ep_to_sock(to, p, &p->ep)
	                : odma_ux.lk->ep_accept(c, p, &p->ep);
	if (st != ODMA_LK_OK) {
		free(p);
		return NULL;
	}
	p->refs = 1;
	return p;
}

static void listener_conn_cb(struct odma_lk_conn *req, void *arg)
{
	struct ucx_listener *L = arg;
	struct ucx_peer *p;
	struct odma_tp_ep *ep;

	if (L->admit != NULL && !L->admit(L->arg)) {
		odma_ux.lk->reject(L->l, req); /* no endpoint: nothing to close */
		return;
	}
	p = ep_peer_new(NULL, req);
	ep = p != NULL ? ep_wrap(p) : NULL;
	if (ep == NULL) {
		if (p != NULL)
			odma_ucx_peer_unref(p);
		else
			odma_ux.lk->reject(L->l, req);
		ODMA_RATELIMITED_WARN("UCX transport: refused a connection (out of memory)");
		return;
	}
	L->on_accept(ep, L->arg);
}

static bool ucx_sockaddr(const char *addr, uint16_t port, struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons(port);
	return addr == NULL || inet_pton(AF_INET, addr, &sa->sin_addr) == 1;
}

struct ucx_listen_job {
	struct sockaddr_in sa; /* the caller's, checked */
	uint16_t port;
	struct ucx_listener *L;
	int st;
};

static void listen_job(void *arg)
{
	struct ucx_listen_job *j = arg;

	/* the port bound comes back (the kernel's pick when 0 was asked) */
	j->st = odma_ux.lk->listen(&j->sa, listener_conn_cb, j->L, &j->L->l, &j->port);
	if (j->st == ODMA_LK_OK) {
		odma_ux.listeners++; /* no inline polls from now on (ucx.c) */
		j->L->next = odma_ucx_listeners;
		if (odma_ucx_listeners != NULL)
			odma_ucx_listeners->prev = j->L;
		odma_ucx_listeners = j->L;
	}
}

doca_error_t odma_ucx_listen(const char *addr, uint16_t *port, odma_tp_accept_fn *on_accept,
                             odma_tp_admit_fn *admit, void *arg, void **listener)
{
	struct ucx_listen_job j = { .port = *port, .st = -1 };
	const char *why = NULL;

	if (!odma_ucx_available(&why))
		return DOCA_ERROR_NOT_SUPPORTED;
	if (!ucx_sockaddr(addr, *port, &j.sa)) {
		ODMA_ERR("UCX transport: cannot listen on '%s': not an IPv4 address", addr);
		return DOCA_ERROR_INVALID_VALUE;
	}
	j.L = calloc(1, sizeof(*j.L));
	if (j.L == NULL)
		return DOCA_ERROR_NO_MEMORY;
	j.L->on_accept = on_accept;
	j.L->admit = admit;
	j.L->arg = arg;
	ucx_call(listen_job, &j);
	if (j.st != ODMA_LK_OK) {
		ODMA_ERR("UCX transport: cannot listen on %s:%u: %s; the address must be one of "
		         "this side's (ODMA_FABRIC names the DPU side) and the port free",
		         addr ? addr : "*", *port,
		         odma_ux.lk != NULL ? odma_ux.lk->strerror(j.st) : "out of memory");
		free(j.L);
		return DOCA_ERROR_IO_FAILED;
	}
	*port = j.port;
	*listener = j.L;
	return DOCA_SUCCESS;
}

static void listen_close_job(void *arg)
{
	struct ucx_listener *L = arg;

	odma_ux.lk->listen_close(L->l);
	odma_ux.listeners--;
	ODMA_LIST_UNLINK(odma_ucx_listeners, L, prev, next);
	free(L);
}

void odma_ucx_listeners_destroy(void)
{
	for (struct ucx_listener *L = odma_ucx_listeners, *next; L != NULL; L = next) {
		next = L->next;
		odma_ux.lk->listen_close(L->l);
		free(L); /* a close after the exit's shutdown returns at once
		            (odma_ucx_listen_close) */
	}
	odma_ucx_listeners = NULL;
}

void odma_ucx_listen_close(void *listener)
{
	if (!odma_ux.up)
		return; /* after the exit's shutdown: the listener went with the worker */
	ucx_call(listen_close_job, listener);
}

struct ucx_connect_job {
	struct sockaddr_in sa; /* the caller's, checked */
	const struct odma_tp_ep_cbs *cbs;
	struct odma_tp_ep *ep;
};

/* The owner's callbacks (service thread, before any send of the owner's). */
static void ep_cbs_set(struct odma_tp_ep *ep, const struct odma_tp_ep_cbs *cbs)
{
	ep->cbs = *cbs;
	atomic_store(&ep->bounded, cbs->on_room != NULL);
}

static void connect_job(void *arg)
{
	struct ucx_connect_job *j = arg;
	struct ucx_peer *p = ep_peer_new(&j->sa, NULL);

	j->ep = p != NULL ? ep_wrap(p) : NULL;
	if (j->ep == NULL && p != NULL)
		odma_ucx_peer_unref(p);
	if (j->ep != NULL && j->cbs != NULL)
		ep_cbs_set(j->ep, j->cbs);
}

doca_error_t odma_ucx_connect(const char *addr, uint16_t port, const struct odma_tp_ep_cbs *cbs,
                              struct odma_tp_ep **ep)
{
	struct ucx_connect_job j = { .cbs = cbs };
	const char *why = NULL;

	if (!odma_ucx_available(&why))
		return DOCA_ERROR_NOT_SUPPORTED;
	if (addr == NULL || !ucx_sockaddr(addr, port, &j.sa)) {
		ODMA_ERR("UCX transport: cannot connect to '%s': not an IPv4 address (ODMA_FABRIC "
		         "is ADDRESS:PORT of the DPU side)",
		         addr ? addr : "(null)");
		return DOCA_ERROR_INVALID_VALUE;
	}
	ucx_call(connect_job, &j);
	if (j.ep == NULL) {
		ODMA_ERR("UCX transport: cannot connect to %s:%u (UCX refused the endpoint); check "
		         "that this side has a route to it and that the other side listens there",
		         addr, port);
		return DOCA_ERROR_IO_FAILED;
	}
	*ep = j.ep;
	return DOCA_SUCCESS;
}

struct ucx_setcbs_job {
	struct odma_tp_ep *ep;
	const struct odma_tp_ep_cbs *cbs;
};

static void setcbs_job(void *arg)
{
	struct ucx_setcbs_job *j = arg;

	ep_cbs_set(j->ep, j->cbs);
}

void odma_ucx_ep_set_cbs(struct odma_tp_ep *ep, const struct odma_tp_ep_cbs *cbs)
{
	struct ucx_setcbs_job j = { ep, cbs };

	ucx_call(setcbs_job, &j);
}

static void ep_pend_drain(struct odma_tp_ep *ep);

/* A send (one message, or the bundle @user_data leads) completed or failed: each is reported. */
static void msg_sent(void *arg, int status)
{
	struct ucx_msg *m = arg;
	struct odma_tp_ep *ep = m->ep;
	/* the connection carried its first message: the ones after it may follow (ep_ready) */
	bool first = ep != NULL && !ep->warm && status == ODMA_LK_OK && !ep->gone;

	msg_unlink(m);
	free(m->bundle);
	while (m != NULL) {
		struct ucx_msg *next = m->bnext;

		if (ep != NULL && m->cost != 0)
			atomic_fetch_sub(&ep->held, m->cost);
		if (m->done != NULL)
			m->done(m->arg, status == ODMA_LK_OK ? DOCA_SUCCESS : DOCA_ERROR_IO_FAILED);
		msg_free(m);
		m = next;
	}
	/* a load first: an unbounded endpoint's completions make no atomic write for it */
	if (ep != NULL && !ep->gone && atomic_load(&ep->room_wanted) &&
	    atomic_exchange(&ep->room_wanted, false))
		ep->cbs.on_room(ep, ep->cbs.arg);
	if (first) { /* after this one's report: the reports keep the order of the sends */
		ep->warm = true;
		ep_pend_drain(ep);
	}
}

/*
 * A bundle's header and its payload: each message's immediate and length, then its bytes. A
 * small one (at most ODMA_UCX_BUNDLE_PACK bytes: the answers to a window of RDMA sends, say) is
 * packed into @data and sent as one buffer: as an IOV datatype of two entries per message UCX
 * took much longer (4 KiB RDMA sends at 8 in flight: 101 k -> 140 k messages/s packed). A
 * larger one is sent from the messages in place (@iov): packed too, 4 KiB sends at 32 in
 * flight ran at half the rate.
 */
struct ucx_bundle {
	uint8_t hdr[ODMA_UCX_EP_HDR];
	struct odma_ucx_out out;
	struct iovec iov[2 * ODMA_UCX_BUNDLE_MAX];
	uint8_t data[];
};

/* What a message costs of the credit (transport.h). */
static uint64_t msg_cost(const struct ucx_msg *m)
{
	return ODMA_TP_MSG_COST + (uint64_t)m->len;
}

/*
 * What a report to the peer says (service thread): everything given back so far, which from
 * now on is what the peer may count on.
 */
static uint64_t ep_credit_out(struct odma_tp_ep *ep)
{
	uint64_t v = atomic_load(&ep->rx_freed);

	if (v > atomic_load(&ep->rx_told)) {
		atomic_store(&ep->rx_told, v);
		atomic_store(&ep->peer_wants, false);
	}
	return v;
}

/*
 * The bundle of @lead and the messages on its bnext list, @credit in its header: packed when
 * small (*@len its payload's bytes), else its iov over the messages (*@len 0). NULL: no memory.
 */
static struct ucx_bundle *bundle_new(struct ucx_msg *lead, uint64_t credit, size_t *len)
{
	struct ucx_bundle *b;
	size_t total = 0;
	unsigned int n = 0, i = 0;
	uint8_t *p;

	for (struct ucx_msg *m = lead; m != NULL; m = m->bnext, n++)
		total += ODMA_UCX_BUNDLE_SUB + m->len;
	*len = total <= ODMA_UCX_BUNDLE_PACK ? total : 0;
	if ((b = malloc(sizeof(*b) + *len)) == NULL)
		return NULL;
	odma_ucx_ep_hdr_put(b->hdr, n, credit);
	p = b->data;
	for (struct ucx_msg *m = lead; m != NULL; m = m->bnext, i += 2) {
		uint8_t *sub = *len ? p : m->hdr;

		odma_put_le(sub, m->imm, 4);
		odma_put_le(sub + 4, m->len, 4);
		if (*len) {
			memcpy(p + ODMA_UCX_BUNDLE_SUB, m->data, m->len);
			p += ODMA_UCX_BUNDLE_SUB + m->len;
			continue;
		}
		b->iov[i] = (struct iovec){ m->hdr, ODMA_UCX_BUNDLE_SUB };
		b->iov[i + 1] = (struct iovec){ m->data, m->len };
	}
	return b;
}

/* @lead is in flight: reported by msg_sent, or by odma_ucx_ep_gone if the endpoint goes first. */
static void msgs_link(struct odma_tp_ep *ep, struct ucx_msg *lead)
{
	lead->prev = NULL;
	lead->next = ep->msgs;
	if (lead->next != NULL)
		lead->next->prev = lead;
	ep->msgs = lead;
	lead->linked = true;
}

/* Hands @lead (and the @n - 1 messages after it on its bnext list) to UCX as one send. */
static void msgs_send(struct ucx_msg *lead, unsigned int n)
{
	struct ucx_bundle *b = NULL;
	struct odma_tp_ep *ep = lead->ep;
	size_t len;
	int r;

	if (ep->gone || ep->peer->dead) {
		msg_sent(lead, -1);
		return;
	}
	for (struct ucx_msg *m = lead; m != NULL; m = m->bnext)
		ep->tx_sent += msg_cost(m);
	if (n > 1 && (b = bundle_new(lead, ep_credit_out(ep), &len)) != NULL) {
		lead->bundle = b;
		if (len != 0) {
			odma_ucx_out_bytes(&b->out, b->data, len);
		} else { /* in place */
			odma_ucx_out_iov(&b->out, b->iov, 2 * n);
		}
		r = odma_ux.lk->send(ep->peer->ep, ODMA_UCX_AM_MSGS, b->hdr, sizeof(b->hdr),
		                     &b->out, ODMA_LK_SEND_REPLY, msg_sent, lead);
	} else if (n > 1) {
		msg_sent(lead, -1);
		return;
	} else {
		odma_ucx_ep_hdr_put(lead->hdr, lead->imm, ep_credit_out(ep));
		odma_ucx_out_bytes(&lead->out, lead->data, lead->len);
		r = odma_ux.lk->send(ep->peer->ep, ODMA_UCX_AM_MSG, lead->hdr, sizeof(lead->hdr),
		                     &lead->out, ODMA_LK_SEND_REPLY, msg_sent, lead);
	}
	if (r >= 0)
		atomic_fetch_add_explicit(&odma_ucx_msgs_posted, n, memory_order_relaxed);
	if (r != ODMA_LK_INFLIGHT) {
		msg_sent(lead, r);
		return;
	}
	msgs_link(ep, lead);
}

static void credit_sent(void *arg, int status)
{
	(void)status;
	free(arg);
}

/* Sends the peer a CREDIT (service thread): what was given back, and @flags. */
static void ep_credit_send(struct odma_tp_ep *ep, uint32_t flags)
{
	uint8_t *h;

	/* out of memory: the next release, or the peer's next request, tries again */
	if (ep->gone || ep->peer->dead || (h = malloc(ODMA_UCX_EP_HDR)) == NULL)
		return;
	odma_ucx_ep_hdr_put(h, flags, ep_credit_out(ep));
	if (odma_ux.lk->send(ep->peer->ep, ODMA_UCX_AM_CREDIT, h, ODMA_UCX_EP_HDR, NULL,
	                     ODMA_LK_SEND_REPLY, credit_sent, h) != ODMA_LK_INFLIGHT)
		free(h);
}

/* Whether @cost more of ours fits in the peer's credit (one message always does when idle). */
static bool ep_fits(const struct odma_tp_ep *ep, uint64_t cost)
{
	return ep->tx_sent == ep->tx_granted ||
	       ep->tx_sent + cost <= ep->tx_granted + ODMA_TP_EP_WINDOW;
}

/*
 * Whether a message may go to UCX now: a new connection carries one message until UCX
 * reports it sent (messages handed to UCX while it still wires the connection up were seen to
 * overtake the first one, under load), then any number, within the credit.
 */
static bool ep_ready(const struct odma_tp_ep *ep, uint64_t cost)
{
	return !ep->gone && (ep->warm || ep->tx_sent == 0) && ep_fits(ep, cost);
}

/*
 * @m waits behind the others (service thread): for the first message's report, or for credit
 * (the peer hears we wait, once).
 */
static void ep_pend(struct odma_tp_ep *ep, struct ucx_msg *m)
{
	ODMA_QUEUE_PUSH(ep->pend_head, ep->pend_tail, m, pnext);
	if (!ep->asked && ep->warm) { /* it waits for credit, not for the first report */
		ep->asked = true;
		ep_credit_send(ep, ODMA_UCX_CREDIT_WANT);
	}
}

/* Whether @m may travel in a bundle of @ep that holds @n messages, @bytes of payload so far. */
static bool msg_joins(const struct ucx_msg *m, const struct odma_tp_ep *ep, unsigned int n,
                      size_t bytes)
{
	return m->ep == ep && n < ODMA_UCX_BUNDLE_MAX && m->len <= ODMA_UCX_BUNDLE_MSG_MAX &&
	       bytes + ODMA_UCX_BUNDLE_SUB + m->len <= ODMA_UCX_BUNDLE_BYTES;
}

/*
 * Where the messages after a bundle's lead come from: the queued jobs after it (@chunk; an
 * endpoint's sends queued together) or the endpoint's waiting list (@pend).
 */
struct msg_src {
	struct ucx_chunk *chunk;
	struct odma_tp_ep *pend;
};

static struct ucx_msg *src_peek(const struct msg_src *s)
{
	if (s->pend != NULL)
		return s->pend->pend_head;
	return s->chunk != NULL && s->chunk->op == UCX_OP_SEND ? s->chunk->fnarg : NULL;
}

static struct ucx_msg *src_take(struct msg_src *s)
{
	struct ucx_msg *m = src_peek(s);

	if (s->pend != NULL)
		ODMA_QUEUE_POP(s->pend->pend_head, s->pend->pend_tail, m, pnext);
	else
		s->chunk = s->chunk->next;
	m->bnext = NULL;
	m->bundle = NULL;
	return m;
}

/*
 * Sends @lead (it may go: ep_ready) with the messages of @src that join it in one bundle
 * within the credit (service thread).
 */
static void ep_send_from(struct odma_tp_ep *ep, struct ucx_msg *lead, struct msg_src *src)
{
	struct ucx_msg *last = lead, *m;
	unsigned int n = 1;
	size_t bytes = ODMA_UCX_BUNDLE_SUB + lead->len;
	uint64_t cost = msg_cost(lead);

	if (lead->len <= ODMA_UCX_BUNDLE_MSG_MAX && ep->warm)
		while ((m = src_peek(src)) != NULL && msg_joins(m, ep, n, bytes) &&
		       ep->tx_sent + cost + msg_cost(m) <= ep->tx_granted + ODMA_TP_EP_WINDOW) {
			last->bnext = src_take(src);
			last = m;
			bytes += ODMA_UCX_BUNDLE_SUB + m->len;
			cost += msg_cost(m);
			n++;
		}
	if (n > 1)
		atomic_fetch_add(&odma_ucx_bundles, 1);
	msgs_send(lead, n);
}

/* Sends what waited and may go now, in order, in bundles where they join (service thread). */
static void ep_pend_drain(struct odma_tp_ep *ep)
{
	struct msg_src src = { .pend = ep };

	while (ep->pend_head != NULL && ep_ready(ep, msg_cost(ep->pend_head)))
		ep_send_from(ep, src_take(&src), &src);
	if (ep->pend_head != NULL && !ep->gone && ep->warm && !ep->asked) {
		ep->asked = true; /* what is left waits for credit: the peer hears it */
		ep_credit_send(ep, ODMA_UCX_CREDIT_WANT);
	}
}

/*
 * The peer broke the carrier's rules (service thread): its endpoint is closed with one line,
 * nothing more of it is delivered.
 */
static void ep_refuse(struct odma_tp_ep *ep, const char *why)
{
	ODMA_WARN("UCX transport: a peer sent %s; its connection is closed (a peer of this "
	          "build keeps within the credit the receiver reports)",
	          why);
	ep->peer->dead = true;
	odma_ucx_ep_gone(ep, DOCA_ERROR_NOT_PERMITTED);
}

/*
 * A report of the peer (any endpoint header): what of ours it gave back. False: refused. One
 * older than the last (reports may pass each other) grants nothing.
 */
static bool ep_credit_in(struct odma_tp_ep *ep, uint64_t v)
{
	if (v > ep->tx_sent) {
		ep_refuse(ep, "a credit report past what this side sent");
		return false;
	}
	if (v > ep->tx_granted) {
		ep->tx_granted = v;
		ep->asked = false;
		ep_pend_drain(ep);
	}
	return true;
}

/* A message of @len bytes arrives: within the credit we reported? False: refused. */
static bool ep_admit(struct odma_tp_ep *ep, size_t len)
{
	uint64_t cost = ODMA_TP_MSG_COST + (uint64_t)len, told = atomic_load(&ep->rx_told);

	if (ep->rx_got != told && ep->rx_got + cost > told + ODMA_TP_EP_WINDOW) {
		ep_refuse(ep, "past the credit this side reported");
		return false;
	}
	ep->rx_got += cost;
	return true;
}

static void credit_job(void *arg)
{
	struct odma_tp_ep *ep = arg;

	/* one closed since is no longer listed (a new one at its address: harmless) */
	for (struct odma_tp_ep *e = odma_ucx_eps; e != NULL; e = e->next)
		if (e == ep) {
			atomic_store(&ep->credit_queued, false);
			if (atomic_load(&ep->rx_freed) != atomic_load(&ep->rx_told))
				ep_credit_send(ep, 0);
			return;
		}
}

/*
 * @cost of the peer's messages given back (any thread): a report goes when a quarter of the
 * window came back since the last, or at once when the peer waits for one.
 */
static void ep_give_back(struct odma_tp_ep *ep, uint64_t cost)
{
	uint64_t v = atomic_fetch_add(&ep->rx_freed, cost) + cost;

	if (v - atomic_load(&ep->rx_told) < ODMA_TP_EP_WINDOW / 4 && !atomic_load(&ep->peer_wants))
		return;
	if (atomic_exchange(&ep->credit_queued, true))
		return;
	if (!odma_ucx_post(credit_job, ep))
		atomic_store(&ep->credit_queued, false); /* the next release tries again */
}

void odma_ucx_ep_release(struct odma_tp_ep *ep, size_t len)
{
	ep_give_back(ep, ODMA_TP_MSG_COST + (uint64_t)len);
}

/*
 * One arrived message of the peer, admitted: to the owner (dropped without a receiver), its
 * credit back unless kept.
 */
static void ep_deliver(struct odma_tp_ep *ep, const void *bytes, size_t len, uint32_t imm)
{
	if (ep->cbs.on_recv == NULL || !ep->cbs.on_recv(ep, bytes, len, imm, ep->cbs.arg))
		ep_give_back(ep, ODMA_TP_MSG_COST + (uint64_t)len);
}

/*
 * A peer's message that is not well formed (@why) is dropped, with one line per endpoint (a
 * flood is not a log).
 */
static void ep_malformed(struct odma_tp_ep *ep, const char *why)
{
	if (ep->bad_logged)
		return;
	ep->bad_logged = true;
	ODMA_WARN("UCX transport: a peer sent a malformed message or bundle (%s); it is dropped "
	          "(later ones of this connection too, without a log line)",
	          why);
}

/*
 * The open endpoint of ours an active message came on (an eager one, with its reply
 * endpoint: the one UCX made for the peer), or NULL.
 */
static struct odma_tp_ep *ep_of(const struct odma_lk_rx *rx)
{
	struct ucx_peer *p;
	struct odma_tp_ep *ep;

	if (rx->reply_ep == NULL || rx->rndv)
		return NULL;
	p = odma_ucx_index_get(rx->reply_ep);
	ep = p != NULL ? p->owner : NULL;
	return ep != NULL && !ep->gone ? ep : NULL;
}

void odma_ucx_credit_am(const void *header, size_t header_length, void *data, size_t length,
                        const struct odma_lk_rx *rx)
{
	struct odma_tp_ep *ep;
	uint32_t flags;
	uint64_t v;

	(void)data;
	if (length != 0 || !odma_ucx_ep_hdr_get(header, header_length, &flags, &v) ||
	    (ep = ep_of(rx)) == NULL || !ep_credit_in(ep, v))
		return;
	if (flags & ODMA_UCX_CREDIT_WANT) {
		atomic_store(&ep->peer_wants, true);
		if (atomic_load(&ep->rx_freed) != atomic_load(&ep->rx_told))
			ep_credit_send(ep, 0);
	}
}

struct ucx_chunk *odma_ucx_send_run(struct ucx_chunk *c)
{
	struct ucx_msg *lead = c->fnarg;
	struct odma_tp_ep *ep = lead->ep;
	struct msg_src src = { .chunk = c->next };

	lead->bnext = NULL;
	lead->bundle = NULL;
	if (!ep->gone && (ep->pend_head != NULL || !ep_ready(ep, msg_cost(lead))))
		ep_pend(ep, lead); /* behind what waits already: in order */
	else
		ep_send_from(ep, lead, &src);
	return src.chunk;
}

static uint64_t send_cost(size_t len)
{
	return ODMA_TP_SEND_COST + (uint64_t)len;
}

/* Whether @cost more fits what a bounded endpoint's sends may hold (the first always does). */
static bool ep_holds_room(const struct odma_tp_ep *ep, uint64_t cost)
{
	uint64_t held = atomic_load(&ep->held);

	return held == 0 || held + cost <= ODMA_TP_EP_SEND_MAX;
}

/*
 * The same, asking for on_room when not: the flag is set before the second look, so a report
 * in between either sees it or made the room that look finds.
 */
static bool ep_room_or_ask(struct odma_tp_ep *ep, uint64_t cost)
{
	if (!atomic_load(&ep->bounded) || ep_holds_room(ep, cost))
		return true;
	atomic_store(&ep->room_wanted, true);
	return ep_holds_room(ep, cost);
}

bool odma_ucx_ep_room(struct odma_tp_ep *ep, size_t len)
{
	return ep_room_or_ask(ep, send_cost(len));
}

doca_error_t odma_ucx_ep_send(struct odma_tp_ep *ep, const struct iovec *iov, unsigned int niov,
                              uint32_t imm, odma_tp_send_done_fn *done, void *arg)
{
	struct ucx_msg *m;
	struct ucx_chunk *c;
	size_t len = 0;

	for (unsigned int i = 0; i < niov; i++)
		len += iov[i].iov_len;
	if (!ep_room_or_ask(ep, send_cost(len)))
		return DOCA_ERROR_AGAIN;
	if ((m = msg_alloc(len)) == NULL)
		return DOCA_ERROR_NO_MEMORY;
	m->cost = atomic_load(&ep->bounded) ? send_cost(len) : 0;
	if (m->cost != 0)
		atomic_fetch_add(&ep->held, m->cost);
	c = &m->job;
	memset(c, 0, sizeof(*c));
	m->done = done;
	m->arg = arg;
	m->ep = ep;
	m->prev = m->next = NULL;
	m->linked = false;
	m->imm = imm;
	m->len = len;
	for (size_t i = 0, at = 0; i < niov; at += iov[i++].iov_len)
		if (iov[i].iov_len != 0)
			memcpy(m->data + at, iov[i].iov_base, iov[i].iov_len);
	c->op = UCX_OP_SEND;
	c->fnarg = m; /* odma_ucx_send_run sends it, with the sends of @ep queued after it */
	odma_ucx_enqueue(c, c);
	return DOCA_SUCCESS;
}

bool odma_ucx_msg_admit(const void *header, size_t header_length, const void *head, size_t plen,
                        size_t length, const struct odma_lk_rx *rx)
{
	uint64_t cost = ODMA_TP_MSG_COST + (uint64_t)length, told, credit;
	struct odma_tp_ep *ep = ep_of(rx);
	uint32_t imm;

	if (ep == NULL || !odma_ucx_ep_hdr_get(header, header_length, &imm, &credit))
		return false; /* nobody would take it */
	told = atomic_load(&ep->rx_told);
	if (ep->rx_got != told && ep->rx_got + cost > told + ODMA_TP_EP_WINDOW) {
		ep_refuse(ep, "past the credit this side reported"); /* as ep_admit, unread */
		return false;
	}
	return ep->cbs.admit == NULL || ep->cbs.admit(ep, imm, head, plen, length, ep->cbs.arg);
}

void odma_ucx_msg_am(const void *header, size_t header_length, void *data, size_t length,
                     const struct odma_lk_rx *rx)
{
	struct odma_tp_ep *ep;
	uint64_t credit;
	uint32_t imm;

	if ((ep = ep_of(rx)) == NULL)
		return;
	if (!odma_ucx_ep_hdr_get(header, header_length, &imm, &credit))
		ep_malformed(ep, "a message whose header is not this build's (16 bytes: immediate, "
		                 "zero, credit; a peer of another odma version?)");
	else if (ep_credit_in(ep, credit) && ep_admit(ep, length))
		ep_deliver(ep, data, length, imm);
}

void odma_ucx_msgs_am(const void *header, size_t header_length, void *data, size_t length,
                      const struct odma_lk_rx *rx)
{
	struct odma_tp_ep *ep = ep_of(rx);
	const char *why = NULL;
	uint64_t credit = 0;
	unsigned int n;
	size_t off = 0;

	if (ep == NULL)
		return;
	n = odma_ucx_bundle_check(header, header_length, data, length, &credit, &why);
	if (n == 0)
		ep_malformed(ep, why);
	/*
	 * One at a time, as they were sent. A handler never closes the endpoint (the contract:
	 * callbacks call no waiting function), and no other thread frees it while this one runs.
	 */
	if (n != 0 && !ep_credit_in(ep, credit))
		return;
	for (unsigned int i = 0; i < n && !ep->gone; i++) {
		size_t len;
		uint32_t imm;
		const uint8_t *msg = odma_ucx_bundle_next(data, &off, &len, &imm);

		if (ep_admit(ep, len))
			ep_deliver(ep, msg, len, imm);
	}
}

doca_error_t odma_ucx_ep_attach(struct odma_tp_ep *ep, const struct odma_tp_reach *r,
                                struct odma_tp_remote *rm)
{
	static __thread uint8_t issued[ODMA_TP_ISSUED_MAX];
	struct ucx_waiter w = { .status = DOCA_ERROR_IO_FAILED, .issued = issued };
	doca_error_t st = odma_ucx_attach_wait(r, ep->peer, &w);

	if (st == DOCA_SUCCESS)
		rm->priv = ep->peer;
	return st;
}

/*
 * A closed endpoint whose last messages may still be leaving: what was handed to UCX (an
 * answer, a reject, a BYE: the peer may wait for it) goes before the forced close, which would
 * drop it. The caller does not wait, and neither does the service thread: the flush runs
 * beside everything else and the endpoint is closed when it completes or at its deadline
 * (ODMA_UCX_LINGER_MS), so a peer that stopped reading costs neither a closer nor the other
 * peers any time. At exit the flushes still running get what is left of their deadline.
 */
struct ucx_linger {
	struct ucx_peer *p; /* holds the endpoint's reference until the close */
	void *req;          /* the flush */
	uint64_t end_ns;
	struct ucx_linger *next;
};

#define ODMA_UCX_LINGER_MS 2000u
/*
 * At most this many at once: peers that stop reading cannot make a process hold a socket for
 * each endpoint it closed (beyond it, a close drops what did not leave yet, as before a flush).
 */
#define ODMA_UCX_LINGER_MAX 64u

static struct ucx_linger *ucx_lingering; /* service thread */
static unsigned int ucx_nlingering;

/* Starts @p's flush and keeps it until done (service thread); false: nothing to wait for. */
static bool linger_start(struct ucx_peer *p)
{
	struct ucx_linger *l;
	void *r;

	/*
	 * Closed from inside one of the worker's callbacks (a listener refusing the peer it just
	 * accepted): the close cannot wait for the worker, so nothing is flushed.
	 */
	if (odma_ucx_progressing != 0 || p->ep == NULL)
		return false;
	if (ucx_nlingering >= ODMA_UCX_LINGER_MAX) {
		ODMA_RATELIMITED_WARN(
		        "UCX transport: %u closed endpoints still wait for their peers "
		        "to take their last messages; one more is closed at once, and "
		        "what it had not sent yet is lost",
		        ucx_nlingering);
		return false;
	}
	r = odma_ux.lk->flush(p->ep);
	if (r == NULL)
		return false; /* flushed already, or the endpoint failed */
	l = malloc(sizeof(*l));
	if (l == NULL) {
		odma_ux.lk->flush_free(r);
		return false;
	}
	l->p = p;
	l->req = r;
	l->end_ns = odma_now_ns() + ODMA_UCX_LINGER_MS * 1000000ull;
	l->next = ucx_lingering;
	ucx_lingering = l;
	ucx_nlingering++;
	return true;
}

bool odma_ucx_lingering(void)
{
	return ucx_lingering != NULL;
}

bool odma_ucx_linger_run(void)
{
	uint64_t now = odma_now_ns();
	bool closed = false;

	for (struct ucx_linger **pp = &ucx_lingering, *l; (l = *pp) != NULL;) {
		if (odma_ux.lk->flush_busy(l->req) && now < l->end_ns) {
			pp = &l->next;
			continue;
		}
		*pp = l->next;
		odma_ux.lk->flush_free(l->req);
		odma_ucx_peer_unref(l->p); /* the endpoint's reference: the last one closes it */
		free(l);
		ucx_nlingering--;
		closed = true;
	}
	return closed;
}

void odma_ucx_linger_drain(void)
{
	while (ucx_lingering != NULL) {
		odma_ucx_progress();
		(void)odma_ucx_linger_run();
	}
}

static void close_job(void *arg)
{
	struct odma_tp_ep *ep = arg;
	struct ucx_peer *p = ep->peer;
	struct ucx_chunk *c;
	struct ucx_chunk *next;

	c = odma_ux.out_head;

	for (; c != NULL; c = next) { /* its requests in flight fail first */
		next = c->next;
		if (c->peer == p)
			odma_ucx_chunk_finish(c, DOCA_ERROR_IO_FAILED);
	}
	p->dead = true;
	p->owner = NULL;
	odma_ucx_ep_gone(ep, DOCA_SUCCESS);
	ep_unlink(ep);
	free(ep);
	/* the endpoint's reference; attachments keep the peer (dead) until detached */
	if (!linger_start(p))
		odma_ucx_peer_unref(p);
}

void odma_ucx_ep_close(struct odma_tp_ep *ep)
{
	ucx_call(close_job, ep);
}
