/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The UCX transport: the memory of a process in another PID namespace or on another
 * machine, over UCX (TCP between namespaces or machines; docs/host-dpu.md).
 *
 * One service thread per process owns the UCX worker (thread mode SINGLE: no other thread
 * calls UCX). It sleeps on the worker's wake-up fd and an eventfd of ours when idle, so an
 * exporter serves its importers without the application calling anything (over TCP,
 * nothing moves unless the exporter progresses its worker). Other threads hand it work
 * through a locked queue and the eventfd.
 *
 * No one-sided RMA: over TCP UCX emulates it in software without checking remote ranges,
 * so an importer sends requests (active messages, ucx_wire.h) and the exporter checks each
 * against its region records (range, permission, revocation) before a byte moves. A GET or
 * PUT larger than ODMA_UCX_CHUNK_MAX is cut into chunks, one request each.
 *
 * Failures: every request has a deadline (ODMA_TRANSPORT_TIMEOUT_MS); the outstanding list
 * is in issue order, so the service thread looks only at its head. A peer whose endpoint
 * fails (it died, the connection broke) fails all its outstanding requests at once. A late
 * reply finds no request (its slot was freed or reused with another id) and is dropped, so
 * a failed io never changes afterwards.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <ucp/api/ucp.h>

#include "core/config/config.h"
#include "core/log/log.h"
#include "core/transport/tp_int.h"
#include "core/transport/ucx_wire.h"

ODMA_LOG_REGISTER(ODMA_UCX)

#define UCX_SLOTS 65536u   /* outstanding requests at most (ids map to slots) */
#define UCX_OP_DETACH 0xff /* a queued command, not a request: drop an attachment's peer */
#define UCX_OP_CALL 0xfe   /* a queued command: run fn(fnarg) on the service thread */

struct ucx_peer {
	struct ucx_peer *next; /* the live peers, by address */
	ucp_ep_h ep;
	bool dead;
	bool timed_out_logged;
	unsigned int refs;        /* attachments + requests (lock) */
	struct odma_tp_ep *owner; /* the endpoint it is (listen/connect), NULL for imports */
	uint16_t alen;
	uint8_t addr[ODMA_TP_ADDR_MAX];
};

struct ucx_io;

/* What an ATTACH request waits on (the attaching thread sleeps on cond). */
struct ucx_waiter {
	pthread_cond_t cond;
	bool done;
	doca_error_t status;
	struct ucx_peer *peer;
	uint8_t *issued;
	size_t issued_len;
};

struct ucx_chunk {
	struct ucx_chunk *next, *prev; /* queue, then the outstanding list */
	uint64_t id;
	uint8_t op;
	uint8_t refs; /* the outstanding entry and the send in flight */
	bool outstanding;
	struct ucx_io *io;                 /* GET/PUT */
	struct ucx_waiter *wait;           /* ATTACH */
	struct ucx_peer *peer;             /* PUT/GET: the io's; ATTACH: resolved by the thread */
	const struct odma_tp_reach *reach; /* ATTACH */
	void (*fn)(void *arg);             /* UCX_OP_CALL */
	void *fnarg;
	uint8_t *local;
	uint64_t raddr, len;
	uint64_t deadline_ns;
	uint8_t hdr[ODMA_UCX_REQ_LEN];
};

struct ucx_io {
	struct odma_tp_io *io;
	unsigned int live; /* chunks still referenced (service thread) */
	atomic_uint left;
	atomic_bool failed;
	unsigned int n;
	struct ucx_chunk chunk[];
};

static struct {
	pthread_mutex_t lock;
	pthread_once_t once;
	bool up;
	bool stopping;   /* the process exits: the service thread leaves (lock) */
	const char *why; /* why the transport is not up */
	ucp_context_h ctx;
	ucp_worker_h worker;
	int wfd, evfd;
	pthread_t thread;
	struct ucx_chunk *q_head, *q_tail; /* to post (lock) */
	struct ucx_peer *peers;            /* live peers (service thread) */
	/* service thread only */
	struct ucx_chunk *slot[UCX_SLOTS];
	struct ucx_chunk *out_head, *out_tail;
	uint64_t next_id;
	uint16_t self_len;
	uint8_t self_addr[ODMA_TP_ADDR_MAX];
} ux = { .lock = PTHREAD_MUTEX_INITIALIZER, .once = PTHREAD_ONCE_INIT, .wfd = -1, .evfd = -1 };

static uint64_t ucx_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void ucx_kick(void)
{
	uint64_t one = 1;

	if (write(ux.evfd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		ODMA_RATELIMITED_WARN("UCX transport: eventfd write failed: %s", strerror(errno));
}

/* ---- choosing UCX's transports from real reachability ---- */

/* The local interface whose IPv4 network holds @ip (or that has it); false if none. */
static bool ucx_iface_for(const char *ip, char *name, size_t cap)
{
	struct ifaddrs *ifs, *i;
	struct in_addr a;
	bool found = false;

	if (inet_pton(AF_INET, ip, &a) != 1 || getifaddrs(&ifs) != 0)
		return false;
	for (i = ifs; i != NULL && !found; i = i->ifa_next) {
		uint32_t mine, mask;

		if (i->ifa_addr == NULL || i->ifa_netmask == NULL ||
		    i->ifa_addr->sa_family != AF_INET)
			continue;
		mine = ((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr.s_addr;
		mask = ((struct sockaddr_in *)(void *)i->ifa_netmask)->sin_addr.s_addr;
		if ((mine & mask) == (a.s_addr & mask)) {
			snprintf(name, cap, "%s", i->ifa_name);
			found = true;
		}
	}
	freeifaddrs(ifs);
	return found;
}

/*
 * UCX's defaults pick shared memory between two network namespaces of one host and then
 * hang (its wake-up socket is unreachable): take TCP, on the interface that reaches the
 * other side (ODMA_FABRIC's network; loopback when only ODMA_TRANSPORT=ucx is set). A
 * UCX_TLS or UCX_NET_DEVICES of the user's own wins.
 */
static void ucx_pick_devices(ucp_config_t *cfg)
{
	const char *fabric = odma_config_string("ODMA_FABRIC");
	char ip[64] = "", dev[IF_NAMESIZE + 8] = "lo";
	const char *colon;

	if (getenv("UCX_TLS") == NULL)
		(void)ucp_config_modify(cfg, "TLS", "tcp");
	if (getenv("UCX_NET_DEVICES") != NULL)
		return;
	if (fabric != NULL) {
		colon = strrchr(fabric, ':');
		snprintf(ip, sizeof(ip), "%.*s",
		         (int)(colon ? colon - fabric : (long)strlen(fabric)), fabric);
		if (!ucx_iface_for(ip, dev, sizeof(dev))) {
			ODMA_ERR("ODMA_FABRIC=%s: no local interface is on the network of %s, so "
			         "the "
			         "other side cannot be reached; give this side an address on that "
			         "network (ip addr add ...), or fix ODMA_FABRIC",
			         fabric, ip);
			return; /* every device: UCX may still find a route */
		}
	}
	(void)ucp_config_modify(cfg, "NET_DEVICES", dev);
	ODMA_DBG("UCX transport: TLS=tcp on %s", dev);
}

/* ---- the service thread's bookkeeping of requests ---- */

static void chunk_put(struct ucx_chunk *c);

static void io_chunk_done(struct ucx_chunk *c, doca_error_t st)
{
	struct ucx_io *u = c->io;

	if (st != DOCA_SUCCESS)
		atomic_store(&u->failed, true);
	if (atomic_fetch_sub(&u->left, 1) == 1) {
		struct odma_tp_io *io = u->io;
		bool failed = atomic_load(&u->failed);

		/* the chunks are freed with u once their sends completed (chunk_put) */
		io->done(io, failed ? DOCA_ERROR_IO_FAILED : DOCA_SUCCESS);
	}
}

static void waiter_done(struct ucx_waiter *w, doca_error_t st)
{
	pthread_mutex_lock(&ux.lock);
	w->status = st;
	w->done = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&ux.lock);
}

static void peer_unref(struct ucx_peer *p);
static void ucx_ep_gone(struct odma_tp_ep *ep, doca_error_t why);

/* A request is over (reply, failure, timeout): remove it and tell its owner, once. */
static void chunk_finish(struct ucx_chunk *c, doca_error_t st)
{
	if (!c->outstanding)
		return;
	c->outstanding = false;
	ux.slot[c->id % UCX_SLOTS] = NULL;
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		ux.out_head = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	else
		ux.out_tail = c->prev;
	if (c->op == ODMA_UCX_OP_ATTACH) {
		if (st != DOCA_SUCCESS && c->peer != NULL) {
			peer_unref(c->peer);
			c->wait->peer = NULL;
		}
		waiter_done(c->wait, st);
	} else {
		io_chunk_done(c, st);
	}
	chunk_put(c);
}

/* Chunks of an io live in its allocation: it is freed when the last one is released. */
static void chunk_put(struct ucx_chunk *c)
{
	if (--c->refs != 0)
		return;
	if (c->op == ODMA_UCX_OP_ATTACH) {
		free(c);
		return;
	}
	if (c->peer != NULL)
		peer_unref(c->peer);
	c->peer = NULL;
	if (--c->io->live == 0)
		free(c->io);
}

static void peer_fail(struct ucx_peer *p, ucs_status_t why)
{
	struct ucx_chunk *c = ux.out_head, *next;
	bool busy = false;

	for (struct ucx_chunk *k = ux.out_head; k != NULL && !busy; k = k->next)
		busy = k->peer == p;
	if (!p->dead && !busy) /* an idle peer that went away (it exited): nothing lost */
		ODMA_DBG("UCX transport: the connection to an idle peer closed (%s)",
		         ucs_status_string(why));
	else if (!p->dead)
		ODMA_ERR("UCX transport: the connection to a peer failed (%s); its requests "
		         "complete with DOCA_ERROR_IO_FAILED (the peer died or the link is down)",
		         ucs_status_string(why));
	p->dead = true;
	for (; c != NULL; c = next) {
		next = c->next;
		if (c->peer == p)
			chunk_finish(c, DOCA_ERROR_IO_FAILED);
	}
	if (p->owner != NULL)
		ucx_ep_gone(p->owner, DOCA_ERROR_IO_FAILED);
}

static void peer_err_cb(void *arg, ucp_ep_h ep, ucs_status_t status)
{
	(void)ep;
	peer_fail(arg, status);
}

static void peer_unref(struct ucx_peer *p)
{
	bool last;

	pthread_mutex_lock(&ux.lock);
	last = --p->refs == 0;
	pthread_mutex_unlock(&ux.lock);
	if (!last)
		return;
	/* only the service thread drops the last reference of a peer with an endpoint */
	if (p->ep != NULL) {
		ucp_request_param_t prm = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
			                    .flags = UCP_EP_CLOSE_FLAG_FORCE };
		void *r = ucp_ep_close_nbx(p->ep, &prm);

		if (UCS_PTR_IS_PTR(r))
			ucp_request_free(r);
	}
	free(p);
}

/* The live peer at @addr, or a new endpoint to it (service thread). */
static struct ucx_peer *peer_get(const uint8_t *addr, uint16_t alen)
{
	struct ucx_peer **pp = &ux.peers, *p;
	ucp_ep_params_t ep = { 0 };
	ucs_status_t st;

	while ((p = *pp) != NULL) {
		if (p->dead) { /* unlinked: new attachments get a fresh endpoint */
			*pp = p->next;
			peer_unref(p);
			continue;
		}
		if (p->alen == alen && memcmp(p->addr, addr, alen) == 0)
			goto found;
		pp = &p->next;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return NULL;
	p->alen = alen;
	memcpy(p->addr, addr, alen);
	ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
	                UCP_EP_PARAM_FIELD_ERR_HANDLER;
	ep.address = (const ucp_address_t *)p->addr;
	ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
	ep.err_handler.cb = peer_err_cb;
	ep.err_handler.arg = p;
	st = ucp_ep_create(ux.worker, &ep, &p->ep);
	if (st != UCS_OK) {
		ODMA_ERR("UCX transport: cannot create an endpoint to the exporter: %s; check that "
		         "both sides run with the same ODMA_FABRIC network and that it is up",
		         ucs_status_string(st));
		free(p);
		return NULL;
	}
	p->refs = 1; /* the list's */
	p->next = ux.peers;
	ux.peers = p;
found:
	pthread_mutex_lock(&ux.lock);
	p->refs++;
	pthread_mutex_unlock(&ux.lock);
	return p;
}

static void send_cb(void *request, ucs_status_t status, void *user_data)
{
	struct ucx_chunk *c = user_data;

	if (status != UCS_OK)
		chunk_finish(c, DOCA_ERROR_IO_FAILED);
	chunk_put(c);
	ucp_request_free(request);
}

/* Posts one request (service thread). */
static void chunk_post(struct ucx_chunk *c)
{
	struct odma_ucx_req q = { 0 };
	ucp_request_param_t prm = { 0 };
	const struct odma_tp_remote *rm = c->io ? c->io->io->remote : NULL;
	void *r;

	if (c->op == ODMA_UCX_OP_ATTACH && c->peer == NULL) /* else: over a given endpoint */
		c->peer = peer_get(c->reach->net_addr, c->reach->net_len);
	if (c->op == ODMA_UCX_OP_ATTACH)
		c->wait->peer = c->peer;
	c->id = ++ux.next_id;
	while (ux.slot[c->id % UCX_SLOTS] != NULL)
		c->id = ++ux.next_id;
	ux.slot[c->id % UCX_SLOTS] = c;
	c->outstanding = true;
	c->refs = 1;
	c->next = NULL;
	c->prev = ux.out_tail;
	if (ux.out_tail != NULL)
		ux.out_tail->next = c;
	else
		ux.out_head = c;
	ux.out_tail = c;
	c->deadline_ns = ucx_now_ns() + (uint64_t)odma_tp_timeout_ms() * 1000000ull;
	if (c->peer == NULL || c->peer->dead) {
		chunk_finish(c, DOCA_ERROR_IO_FAILED);
		return;
	}
	q.op = c->op;
	q.id = c->id;
	q.addr = c->raddr;
	q.len = c->op == ODMA_UCX_OP_ATTACH ? 0 : c->len;
	if (rm != NULL) {
		q.region_id = rm->region_id;
		q.generation = rm->generation;
		memcpy(q.key, rm->key, 16);
	} else {
		q.region_id = c->reach->region_id;
		q.generation = c->reach->generation;
		memcpy(q.key, c->reach->key, 16);
	}
	odma_ucx_req_encode(&q, c->hdr);
	prm.op_attr_mask =
	        UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
	prm.cb.send = send_cb;
	prm.user_data = c;
	prm.flags = UCP_AM_SEND_FLAG_REPLY | UCP_AM_SEND_FLAG_EAGER;
	c->refs++; /* the send's */
	r = ucp_am_send_nbx(c->peer->ep, ODMA_UCX_AM_REQ, c->hdr, sizeof(c->hdr),
	                    c->op == ODMA_UCX_OP_PUT ? c->local : NULL,
	                    c->op == ODMA_UCX_OP_PUT ? c->len : 0, &prm);
	if (UCS_PTR_IS_PTR(r))
		return;
	if (UCS_PTR_IS_ERR(r))
		chunk_finish(c, DOCA_ERROR_IO_FAILED);
	chunk_put(c);
}

/* Requests past their deadline fail (the list is in issue order: only its head). */
static void ucx_expire(void)
{
	uint64_t now = ucx_now_ns();

	while (ux.out_head != NULL && ux.out_head->deadline_ns <= now) {
		struct ucx_chunk *c = ux.out_head;

		if (c->peer != NULL && !c->peer->timed_out_logged) {
			c->peer->timed_out_logged = true;
			ODMA_ERR("UCX transport: a peer did not answer within %u ms "
			         "(ODMA_TRANSPORT_TIMEOUT_MS); its requests complete with "
			         "DOCA_ERROR_IO_FAILED (the peer hangs, or the link is down)",
			         odma_tp_timeout_ms());
		}
		chunk_finish(c, DOCA_ERROR_IO_FAILED);
	}
}

/* ---- the exporter's side: requests from importers ---- */

struct ucx_reply {
	uint8_t hdr[ODMA_UCX_REPLY_LEN];
	size_t len;
	uint8_t data[];
};

static void reply_cb(void *request, ucs_status_t status, void *user_data)
{
	(void)status;
	free(user_data);
	ucp_request_free(request);
}

static void ucx_reply(ucp_ep_h ep, struct ucx_reply *rp)
{
	ucp_request_param_t prm = { 0 };
	void *r;

	prm.op_attr_mask =
	        UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
	prm.cb.send = reply_cb;
	prm.user_data = rp;
	prm.flags = UCP_AM_SEND_FLAG_EAGER;
	r = ucp_am_send_nbx(ep, ODMA_UCX_AM_REPLY, rp->hdr, sizeof(rp->hdr),
	                    rp->len ? rp->data : NULL, rp->len, &prm);
	if (!UCS_PTR_IS_PTR(r))
		free(rp);
}

static ucs_status_t req_cb(void *arg, const void *header, size_t header_length, void *data,
                           size_t length, const ucp_am_recv_param_t *param)
{
	struct odma_ucx_req q;
	struct odma_ucx_reply rh = { 0 };
	struct ucx_reply *rp;
	const char *why = NULL;
	size_t room;

	(void)arg;
	if (!(param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP))
		return UCS_OK; /* no one to answer: a hostile or broken peer */
	if ((param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) ||
	    odma_ucx_req_decode(header, header_length, length, &q, &why) != DOCA_SUCCESS) {
		ODMA_RATELIMITED_WARN("UCX transport: refused a malformed request from a peer: %s",
		                      why ? why : "rendezvous payload");
		if (header_length < 16)
			return UCS_OK;
		memset(&q, 0, sizeof(q));
		memcpy(&q.id, (const uint8_t *)header + 8, 8);
		q.op = 0;
		rh.status = DOCA_ERROR_INVALID_VALUE;
		room = 0;
	} else {
		room = q.op == ODMA_UCX_OP_GET      ? q.len
		       : q.op == ODMA_UCX_OP_ATTACH ? ODMA_TP_ISSUED_MAX
		                                    : 0;
	}
	rp = malloc(sizeof(*rp) + room);
	if (rp == NULL)
		return UCS_OK; /* the importer times out */
	rp->len = 0;
	if (q.op != 0)
		rh.status = odma_ucx_req_serve(&q, data, rp->data, &rp->len);
	if (rh.status != DOCA_SUCCESS)
		rp->len = 0;
	rh.op = q.op;
	rh.id = q.id;
	rh.len = (uint32_t)rp->len;
	odma_ucx_reply_encode(&rh, rp->hdr);
	ucx_reply(param->reply_ep, rp);
	return UCS_OK;
}

/* ---- the importer's side: replies ---- */

static void reply_got(struct ucx_chunk *c, const struct odma_ucx_reply *r, const void *data)
{
	doca_error_t st = r->status == DOCA_SUCCESS ? DOCA_SUCCESS : DOCA_ERROR_IO_FAILED;

	if (c->op == ODMA_UCX_OP_ATTACH) {
		if (r->status == DOCA_SUCCESS && r->len <= ODMA_TP_ISSUED_MAX) {
			memcpy(c->wait->issued, data, r->len);
			c->wait->issued_len = r->len;
		}
		chunk_finish(c, r->status == DOCA_SUCCESS ? DOCA_SUCCESS : (doca_error_t)r->status);
		return;
	}
	if (r->status != DOCA_SUCCESS && !atomic_exchange(&c->io->io->remote->failed, true))
		ODMA_ERR("UCX transport: the exporter refused a %s of %llu bytes at 0x%llx: %s "
		         "(revoked export, or outside its range or permissions)",
		         c->op == ODMA_UCX_OP_GET ? "read" : "write", (unsigned long long)c->len,
		         (unsigned long long)c->raddr,
		         doca_error_get_name((doca_error_t)r->status));
	if (st == DOCA_SUCCESS && c->op == ODMA_UCX_OP_GET &&
	    (r->len != c->len || odma_ucx_safe_copy(c->local, data, c->len) != 0))
		st = DOCA_ERROR_IO_FAILED;
	chunk_finish(c, st);
}

static ucs_status_t reply_cb_am(void *arg, const void *header, size_t header_length, void *data,
                                size_t length, const ucp_am_recv_param_t *param)
{
	struct odma_ucx_reply r;
	struct ucx_chunk *c;

	(void)arg;
	if ((param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) ||
	    odma_ucx_reply_decode(header, header_length, length, &r) != DOCA_SUCCESS)
		return UCS_OK;
	c = ux.slot[r.id % UCX_SLOTS];
	if (c == NULL || c->id != r.id || c->op != r.op || !c->outstanding)
		return UCS_OK; /* late (timed out) or forged: dropped */
	reply_got(c, &r, data);
	return UCS_OK;
}

/* ---- the service thread ---- */

static void ucx_take_queue(void)
{
	struct ucx_chunk *c;

	pthread_mutex_lock(&ux.lock);
	c = ux.q_head;
	ux.q_head = ux.q_tail = NULL;
	pthread_mutex_unlock(&ux.lock);
	while (c != NULL) {
		struct ucx_chunk *next = c->next;

		if (c->op == UCX_OP_DETACH) {
			peer_unref(c->peer);
			free(c);
		} else if (c->op == UCX_OP_CALL) {
			c->fn(c->fnarg);
			free(c);
		} else {
			chunk_post(c);
		}
		c = next;
	}
}

static void *ucx_thread(void *arg)
{
	struct pollfd fds[2] = { { .fd = ux.wfd, .events = POLLIN },
		                 { .fd = ux.evfd, .events = POLLIN } };
	uint64_t v;
	bool busy;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&ux.lock);
		busy = ux.stopping;
		pthread_mutex_unlock(&ux.lock);
		if (busy)
			break;
		ucx_take_queue();
		while (ucp_worker_progress(ux.worker) != 0)
			;
		ucx_expire();
		pthread_mutex_lock(&ux.lock);
		busy = ux.q_head != NULL;
		pthread_mutex_unlock(&ux.lock);
		if (busy)
			continue;
		if (ucp_worker_arm(ux.worker) == UCS_ERR_BUSY)
			continue;
		/* with requests outstanding, wake up to check their deadlines */
		if (poll(fds, 2, ux.out_head != NULL ? 20 : -1) > 0 && (fds[1].revents & POLLIN))
			(void)!read(ux.evfd, &v, sizeof(v));
	}
	return NULL;
}

static ucs_status_t msg_cb(void *arg, const void *header, size_t header_length, void *data,
                           size_t length, const ucp_am_recv_param_t *param);

static bool ucx_set_handler(unsigned int id, ucp_am_recv_callback_t cb)
{
	ucp_am_handler_param_t h = { 0 };

	h.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
	               UCP_AM_HANDLER_PARAM_FIELD_FLAGS;
	h.id = id;
	h.cb = cb;
	h.flags = UCP_AM_FLAG_WHOLE_MSG;
	return ucp_worker_set_am_recv_handler(ux.worker, &h) == UCS_OK;
}

static const char *ucx_open(void)
{
	ucp_params_t p = { 0 };
	ucp_worker_params_t wp = { 0 };
	ucp_config_t *cfg;
	ucp_address_t *addr;
	size_t alen;

	if (ucp_config_read(NULL, NULL, &cfg) != UCS_OK)
		return "ucp_config_read failed";
	ucx_pick_devices(cfg);
	p.field_mask = UCP_PARAM_FIELD_FEATURES;
	p.features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
	if (ucp_init(&p, cfg, &ux.ctx) != UCS_OK) {
		ucp_config_release(cfg);
		return "ucp_init failed (no usable UCX transport: check UCX_TLS/UCX_NET_DEVICES)";
	}
	ucp_config_release(cfg);
	wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
	wp.thread_mode = UCS_THREAD_MODE_SINGLE;
	if (ucp_worker_create(ux.ctx, &wp, &ux.worker) != UCS_OK)
		return "ucp_worker_create failed";
	if (ucp_worker_get_efd(ux.worker, &ux.wfd) != UCS_OK)
		return "the UCX worker has no wake-up fd";
	if (!ucx_set_handler(ODMA_UCX_AM_REQ, req_cb) ||
	    !ucx_set_handler(ODMA_UCX_AM_REPLY, reply_cb_am) ||
	    !ucx_set_handler(ODMA_UCX_AM_MSG, msg_cb))
		return "cannot set the UCX active message handlers";
	if (ucp_worker_get_address(ux.worker, &addr, &alen) != UCS_OK)
		return "cannot get the UCX worker address";
	if (alen > ODMA_TP_ADDR_MAX) {
		ucp_worker_release_address(ux.worker, addr);
		return "the UCX worker address is larger than a descriptor carries (limit UCX_TLS "
		       "to tcp)";
	}
	memcpy(ux.self_addr, addr, alen);
	ux.self_len = (uint16_t)alen;
	ucp_worker_release_address(ux.worker, addr);
	ux.evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ux.evfd < 0)
		return "eventfd failed";
	if (pthread_create(&ux.thread, NULL, ucx_thread, NULL) != 0)
		return "cannot start the UCX service thread";
	return NULL;
}

/*
 * A child of fork() has no service thread, and UCX's own state (its async thread, memory
 * hooks) does not survive a fork: a UCX context made in the child hangs. So a child of a
 * process that used the transport has none (a clear error at its first network export or
 * import); the parent's objects are abandoned in the child, never freed. Fork before the
 * first network export or import, or exec.
 */
static void ucx_atfork_child(void)
{
	pthread_mutex_init(&ux.lock, NULL);
	ux.up = false;
	ux.why = "this process is a fork() child of one that used UCX, and UCX does not survive "
	         "a fork; fork before the first export or import over the network, or exec";
	ux.ctx = NULL;
	ux.worker = NULL;
	ux.wfd = ux.evfd = -1;
	ux.q_head = ux.q_tail = NULL;
	ux.peers = NULL;
	memset(ux.slot, 0, sizeof(ux.slot));
	ux.out_head = ux.out_tail = NULL;
	ux.self_len = 0;
}

static void ucx_shutdown(void);

static void ucx_start_once(void)
{
	static bool atfork;

	if (!atfork) {
		atfork = true;
		pthread_atfork(NULL, NULL, ucx_atfork_child);
	}
	ux.why = ucx_open();
	ux.up = ux.why == NULL;
	if (ux.up)
		atexit(ucx_shutdown);
	if (ux.up)
		ODMA_DBG("UCX transport up: %u-byte worker address", ux.self_len);
	else
		ODMA_ERR("UCX transport unavailable: %s; host and DPU sides in different "
		         "namespaces or machines cannot reach each other",
		         ux.why);
}

static bool ucx_available(const char **why)
{
	pthread_once(&ux.once, ucx_start_once);
	if (!ux.up && why != NULL)
		*why = ux.why;
	return ux.up;
}

/* ---- the transport's ops ---- */

static doca_error_t ucx_reach_self(struct odma_tp_reach *r)
{
	if (!ucx_available(NULL))
		return DOCA_SUCCESS; /* logged: exports offer no network reach */
	memcpy(r->net_addr, ux.self_addr, ux.self_len);
	r->net_len = ux.self_len;
	return DOCA_SUCCESS;
}

static void ucx_enqueue(struct ucx_chunk *first, struct ucx_chunk *last)
{
	pthread_mutex_lock(&ux.lock);
	if (ux.q_tail != NULL)
		ux.q_tail->next = first;
	else
		ux.q_head = first;
	ux.q_tail = last;
	pthread_mutex_unlock(&ux.lock);
	ucx_kick();
}

static doca_error_t ucx_attach(const struct odma_tp_reach *r, struct odma_tp_remote *rm,
                               uint8_t *issued, size_t *issued_len)
{
	struct ucx_chunk *c = calloc(1, sizeof(*c));
	struct ucx_waiter w = { .status = DOCA_ERROR_IO_FAILED, .issued = issued };
	const char *why = NULL;

	if (c == NULL)
		return DOCA_ERROR_NO_MEMORY;
	if (!ucx_available(&why)) {
		free(c);
		ODMA_ERR("doca_mmap_create_from_export: the exporter runs in another namespace or "
		         "machine and the UCX transport is unavailable: %s",
		         why);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	pthread_cond_init(&w.cond, NULL);
	c->op = ODMA_UCX_OP_ATTACH;
	c->wait = &w;
	c->reach = r;
	ucx_enqueue(c, c);
	pthread_mutex_lock(&ux.lock);
	while (!w.done) /* bounded: the request times out in the service thread */
		pthread_cond_wait(&w.cond, &ux.lock);
	pthread_mutex_unlock(&ux.lock);
	pthread_cond_destroy(&w.cond);
	if (w.status != DOCA_SUCCESS) {
		const char *fabric = odma_config_string("ODMA_FABRIC");

		ODMA_ERR("doca_mmap_create_from_export: the exporter (pid %u in its namespace) %s "
		         "over UCX%s%s: %s",
		         r->pid,
		         w.status == DOCA_ERROR_IO_FAILED ? "cannot be reached"
		                                          : "refused the import",
		         fabric ? " (ODMA_FABRIC=" : "", fabric ? fabric : "",
		         w.status == DOCA_ERROR_IO_FAILED
		                 ? "check the link and that the exporter runs with the same "
		                   "ODMA_FABRIC, or raise ODMA_TRANSPORT_TIMEOUT_MS"
		                 : "the export was revoked, or the descriptor is forged; export "
		                   "again");
		return w.status == DOCA_ERROR_IO_FAILED ? DOCA_ERROR_IO_FAILED
		                                        : DOCA_ERROR_INVALID_VALUE;
	}
	*issued_len = w.issued_len;
	rm->priv = w.peer;
	return DOCA_SUCCESS;
}

static void ucx_detach(struct odma_tp_remote *rm)
{
	struct ucx_peer *p = rm->priv;
	struct ucx_chunk *c;

	if (p == NULL)
		return;
	rm->priv = NULL;
	/* the service thread drops the reference: closing an endpoint is its business */
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return; /* the peer stays referenced: a leak, never a use after free */
	c->op = UCX_OP_DETACH;
	c->peer = p;
	ucx_enqueue(c, c);
}

static doca_error_t ucx_io_start(struct odma_tp_io *io)
{
	unsigned int n = (unsigned int)((io->len + ODMA_UCX_CHUNK_MAX - 1) / ODMA_UCX_CHUNK_MAX);
	struct ucx_io *u = calloc(1, sizeof(*u) + n * sizeof(u->chunk[0]));
	struct ucx_peer *p = io->remote->priv;

	if (u == NULL || p == NULL || n == 0) {
		free(u);
		return DOCA_ERROR_IO_FAILED;
	}
	u->io = io;
	u->n = n;
	u->live = n;
	atomic_init(&u->left, n);
	atomic_init(&u->failed, false);
	pthread_mutex_lock(&ux.lock);
	p->refs += n;
	pthread_mutex_unlock(&ux.lock);
	for (unsigned int i = 0; i < n; i++) {
		struct ucx_chunk *c = &u->chunk[i];
		uint64_t off = (uint64_t)i * ODMA_UCX_CHUNK_MAX;

		c->op = io->write ? ODMA_UCX_OP_PUT : ODMA_UCX_OP_GET;
		c->io = u;
		c->peer = p;
		c->local = (uint8_t *)io->local + off;
		c->raddr = io->remote_addr + off;
		c->len = io->len - off < ODMA_UCX_CHUNK_MAX ? io->len - off : ODMA_UCX_CHUNK_MAX;
		c->next = i + 1 < n ? &u->chunk[i + 1] : NULL;
	}
	ucx_enqueue(&u->chunk[0], &u->chunk[n - 1]);
	return DOCA_SUCCESS;
}

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
	waiter_done(b->w, DOCA_SUCCESS);
	free(b);
}

/* ---- endpoints: listen/connect, messages with an immediate, attach over an endpoint ---- */

struct odma_tp_ep {
	struct odma_tp_ep *next; /* every open endpoint (service thread) */
	struct ucx_peer *peer;
	struct odma_tp_ep_cbs cbs;
	bool gone; /* on_close ran (or close was asked): no callback after it */
};

struct ucx_listener {
	ucp_listener_h l;
	odma_tp_accept_fn *on_accept;
	void *arg;
};

static struct odma_tp_ep *ucx_eps; /* service thread */

/* Runs @fn(@arg) on the service thread and waits for it (a caller on it runs it at once). */
static void ucx_call(void (*fn)(void *), void *arg)
{
	struct ucx_waiter w = { 0 };
	struct ucx_chunk *c;

	if (pthread_equal(pthread_self(), ux.thread)) {
		fn(arg);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) /* cannot hand it over: the callers check their own result */
		return;
	pthread_cond_init(&w.cond, NULL);
	c->op = UCX_OP_CALL;
	{
		struct ucx_box *box = malloc(sizeof(*box));

		if (box == NULL) {
			free(c);
			pthread_cond_destroy(&w.cond);
			return;
		}
		box->fn = fn;
		box->arg = arg;
		box->w = &w;
		c->fn = ucx_call_box;
		c->fnarg = box;
	}
	ucx_enqueue(c, c);
	pthread_mutex_lock(&ux.lock);
	while (!w.done)
		pthread_cond_wait(&w.cond, &ux.lock);
	pthread_mutex_unlock(&ux.lock);
	pthread_cond_destroy(&w.cond);
}

static struct odma_tp_ep *ep_wrap(struct ucx_peer *p)
{
	struct odma_tp_ep *ep = calloc(1, sizeof(*ep));

	if (ep == NULL)
		return NULL;
	ep->peer = p;
	p->owner = ep;
	ep->next = ucx_eps;
	ucx_eps = ep;
	return ep;
}

static void ep_unlink(struct odma_tp_ep *ep)
{
	for (struct odma_tp_ep **pp = &ucx_eps; *pp != NULL; pp = &(*pp)->next)
		if (*pp == ep) {
			*pp = ep->next;
			return;
		}
}

/* The connection is gone (service thread): on_close once. */
static void ucx_ep_gone(struct odma_tp_ep *ep, doca_error_t why)
{
	if (ep->gone)
		return;
	ep->gone = true;
	if (ep->cbs.on_close != NULL)
		ep->cbs.on_close(ep, why, ep->cbs.arg);
}

/* A peer of an endpoint: not keyed by address, one reference (the endpoint's). */
static struct ucx_peer *ep_peer_new(ucp_ep_params_t *prm)
{
	struct ucx_peer *p = calloc(1, sizeof(*p));

	if (p == NULL)
		return NULL;
	prm->field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
	prm->err_mode = UCP_ERR_HANDLING_MODE_PEER;
	prm->err_handler.cb = peer_err_cb;
	prm->err_handler.arg = p;
	if (ucp_ep_create(ux.worker, prm, &p->ep) != UCS_OK) {
		free(p);
		return NULL;
	}
	p->refs = 1;
	return p;
}

static void listener_conn_cb(ucp_conn_request_h req, void *arg)
{
	struct ucx_listener *L = arg;
	ucp_ep_params_t prm = { .field_mask = UCP_EP_PARAM_FIELD_CONN_REQUEST,
		                .conn_request = req };
	struct ucx_peer *p = ep_peer_new(&prm);
	struct odma_tp_ep *ep = p != NULL ? ep_wrap(p) : NULL;

	if (ep == NULL) {
		if (p != NULL)
			peer_unref(p);
		else
			(void)ucp_listener_reject(L->l, req);
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
	const char *addr;
	uint16_t port;
	struct ucx_listener *L;
	ucs_status_t st;
};

static void listen_job(void *arg)
{
	struct ucx_listen_job *j = arg;
	struct sockaddr_in sa;
	ucp_listener_params_t lp = { 0 };

	ucx_sockaddr(j->addr, j->port, &sa);
	lp.field_mask = UCP_LISTENER_PARAM_FIELD_SOCK_ADDR | UCP_LISTENER_PARAM_FIELD_CONN_HANDLER;
	lp.sockaddr.addr = (const struct sockaddr *)&sa;
	lp.sockaddr.addrlen = sizeof(sa);
	lp.conn_handler.cb = listener_conn_cb;
	lp.conn_handler.arg = j->L;
	j->st = ucp_listener_create(ux.worker, &lp, &j->L->l);
}

static doca_error_t ucx_listen(const char *addr, uint16_t port, odma_tp_accept_fn *on_accept,
                               void *arg, void **listener)
{
	struct ucx_listen_job j = { .addr = addr, .port = port, .st = UCS_ERR_NO_MEMORY };
	struct sockaddr_in sa;
	const char *why = NULL;

	if (!ucx_available(&why))
		return DOCA_ERROR_NOT_SUPPORTED;
	if (!ucx_sockaddr(addr, port, &sa)) {
		ODMA_ERR("UCX transport: cannot listen on '%s': not an IPv4 address", addr);
		return DOCA_ERROR_INVALID_VALUE;
	}
	j.L = calloc(1, sizeof(*j.L));
	if (j.L == NULL)
		return DOCA_ERROR_NO_MEMORY;
	j.L->on_accept = on_accept;
	j.L->arg = arg;
	ucx_call(listen_job, &j);
	if (j.st != UCS_OK) {
		ODMA_ERR("UCX transport: cannot listen on %s:%u: %s; the address must be one of "
		         "this side's (ODMA_FABRIC names the DPU side) and the port free",
		         addr ? addr : "*", port, ucs_status_string(j.st));
		free(j.L);
		return DOCA_ERROR_IO_FAILED;
	}
	*listener = j.L;
	return DOCA_SUCCESS;
}

static void listen_close_job(void *arg)
{
	struct ucx_listener *L = arg;

	ucp_listener_destroy(L->l);
	free(L);
}

static void ucx_listen_close(void *listener)
{
	ucx_call(listen_close_job, listener);
}

struct ucx_connect_job {
	const char *addr;
	uint16_t port;
	const struct odma_tp_ep_cbs *cbs;
	struct odma_tp_ep *ep;
};

static void connect_job(void *arg)
{
	struct ucx_connect_job *j = arg;
	struct sockaddr_in sa;
	ucp_ep_params_t prm = { 0 };
	struct ucx_peer *p;

	ucx_sockaddr(j->addr, j->port, &sa);
	prm.field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR;
	prm.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER;
	prm.sockaddr.addr = (const struct sockaddr *)&sa;
	prm.sockaddr.addrlen = sizeof(sa);
	p = ep_peer_new(&prm);
	j->ep = p != NULL ? ep_wrap(p) : NULL;
	if (j->ep == NULL && p != NULL)
		peer_unref(p);
	if (j->ep != NULL && j->cbs != NULL)
		j->ep->cbs = *j->cbs;
}

static doca_error_t ucx_connect(const char *addr, uint16_t port, const struct odma_tp_ep_cbs *cbs,
                                struct odma_tp_ep **ep)
{
	struct ucx_connect_job j = { .addr = addr, .port = port, .cbs = cbs };
	struct sockaddr_in sa;
	const char *why = NULL;

	if (!ucx_available(&why))
		return DOCA_ERROR_NOT_SUPPORTED;
	if (addr == NULL || !ucx_sockaddr(addr, port, &sa)) {
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

	j->ep->cbs = *j->cbs;
}

static void ucx_ep_set_cbs(struct odma_tp_ep *ep, const struct odma_tp_ep_cbs *cbs)
{
	struct ucx_setcbs_job j = { ep, cbs };

	ucx_call(setcbs_job, &j);
}

struct ucx_msg {
	odma_tp_send_done_fn *done;
	void *arg;
	struct odma_tp_ep *ep;
	uint8_t hdr[8]; /* imm u32, zero u32 */
	size_t len;
	uint8_t data[];
};

static void msg_sent(void *request, ucs_status_t status, void *user_data)
{
	struct ucx_msg *m = user_data;

	if (m->done != NULL)
		m->done(m->arg, status == UCS_OK ? DOCA_SUCCESS : DOCA_ERROR_IO_FAILED);
	free(m);
	if (request != NULL)
		ucp_request_free(request);
}

static void send_job(void *arg)
{
	struct ucx_msg *m = arg;
	ucp_request_param_t prm = { 0 };
	void *r;

	if (m->ep->gone || m->ep->peer->dead) {
		msg_sent(NULL, UCS_ERR_CONNECTION_RESET, m);
		return;
	}
	prm.op_attr_mask =
	        UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
	prm.cb.send = msg_sent;
	prm.user_data = m;
	prm.flags = UCP_AM_SEND_FLAG_REPLY | UCP_AM_SEND_FLAG_EAGER;
	r = ucp_am_send_nbx(m->ep->peer->ep, ODMA_UCX_AM_MSG, m->hdr, sizeof(m->hdr),
	                    m->len ? m->data : NULL, m->len, &prm);
	if (!UCS_PTR_IS_PTR(r))
		msg_sent(NULL, UCS_PTR_STATUS(r), m);
}

static doca_error_t ucx_ep_send(struct odma_tp_ep *ep, const void *bytes, size_t len, uint32_t imm,
                                odma_tp_send_done_fn *done, void *arg)
{
	struct ucx_msg *m = malloc(sizeof(*m) + len);
	struct ucx_chunk *c = calloc(1, sizeof(*c));

	if (m == NULL || c == NULL) {
		free(m);
		free(c);
		return DOCA_ERROR_NO_MEMORY;
	}
	m->done = done;
	m->arg = arg;
	m->ep = ep;
	memset(m->hdr, 0, sizeof(m->hdr));
	memcpy(m->hdr, &imm, 4);
	m->len = len;
	memcpy(m->data, bytes, len);
	c->op = UCX_OP_CALL;
	c->fn = send_job;
	c->fnarg = m;
	ucx_enqueue(c, c);
	return DOCA_SUCCESS;
}

static ucs_status_t msg_cb(void *arg, const void *header, size_t header_length, void *data,
                           size_t length, const ucp_am_recv_param_t *param)
{
	uint32_t imm;

	(void)arg;
	if (header_length != 8 || !(param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) ||
	    (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV))
		return UCS_OK;
	memcpy(&imm, header, 4);
	for (struct odma_tp_ep *ep = ucx_eps; ep != NULL; ep = ep->next)
		if (ep->peer->ep == param->reply_ep) {
			if (!ep->gone && ep->cbs.on_recv != NULL)
				ep->cbs.on_recv(ep, data, length, imm, ep->cbs.arg);
			break;
		}
	return UCS_OK;
}

static doca_error_t ucx_ep_attach(struct odma_tp_ep *ep, const struct odma_tp_reach *r,
                                  struct odma_tp_remote *rm)
{
	static __thread uint8_t issued[ODMA_TP_ISSUED_MAX];
	struct ucx_chunk *c = calloc(1, sizeof(*c));
	struct ucx_waiter w = { .status = DOCA_ERROR_IO_FAILED, .issued = issued };

	if (c == NULL)
		return DOCA_ERROR_NO_MEMORY;
	rm->perms = r->perms;
	rm->addr = r->addr;
	rm->len = r->len;
	rm->region_id = r->region_id;
	rm->generation = r->generation;
	memcpy(rm->key, r->key, 16);
	pthread_mutex_lock(&ux.lock);
	ep->peer->refs++; /* the attachment's */
	pthread_mutex_unlock(&ux.lock);
	pthread_cond_init(&w.cond, NULL);
	c->op = ODMA_UCX_OP_ATTACH;
	c->wait = &w;
	c->reach = r;
	c->peer = ep->peer;
	ucx_enqueue(c, c);
	pthread_mutex_lock(&ux.lock);
	while (!w.done)
		pthread_cond_wait(&w.cond, &ux.lock);
	pthread_mutex_unlock(&ux.lock);
	pthread_cond_destroy(&w.cond);
	if (w.status != DOCA_SUCCESS)
		return w.status == DOCA_ERROR_IO_FAILED ? DOCA_ERROR_IO_FAILED
		                                        : DOCA_ERROR_INVALID_VALUE;
	rm->priv = ep->peer;
	return DOCA_SUCCESS;
}

static void close_job(void *arg)
{
	struct odma_tp_ep *ep = arg;
	struct ucx_peer *p = ep->peer;
	struct ucx_chunk *c = ux.out_head, *next;

	for (; c != NULL; c = next) { /* its requests in flight fail first */
		next = c->next;
		if (c->peer == p)
			chunk_finish(c, DOCA_ERROR_IO_FAILED);
	}
	p->dead = true;
	p->owner = NULL;
	ucx_ep_gone(ep, DOCA_SUCCESS);
	ep_unlink(ep);
	free(ep);
	peer_unref(p); /* the endpoint's; attachments keep the peer (dead) until detached */
}

static void ucx_ep_close(struct odma_tp_ep *ep)
{
	ucx_call(close_job, ep);
}

/* Closes one UCX endpoint and waits for it (this thread owns the worker). */
static void ucx_close_ep(ucp_ep_h ep)
{
	ucp_request_param_t prm = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
		                    .flags = UCP_EP_CLOSE_FLAG_FORCE };
	void *r = ucp_ep_close_nbx(ep, &prm);

	if (!UCS_PTR_IS_PTR(r))
		return;
	while (ucp_request_check_status(r) == UCS_INPROGRESS)
		ucp_worker_progress(ux.worker);
	ucp_request_free(r);
}

/*
 * At exit: the service thread leaves, then this thread closes every endpoint and frees the
 * worker and the context, so nothing of UCX is left behind (LeakSanitizer checks it). Requests
 * still outstanding are dropped with the process.
 */
static void ucx_shutdown(void)
{
	if (!ux.up)
		return;
	pthread_mutex_lock(&ux.lock);
	ux.stopping = true;
	pthread_mutex_unlock(&ux.lock);
	ucx_kick();
	if (pthread_join(ux.thread, NULL) != 0)
		return;
	ux.up = false;
	for (struct odma_tp_ep *ep = ucx_eps, *next; ep != NULL; ep = next) {
		next = ep->next;
		if (ep->peer->ep != NULL)
			ucx_close_ep(ep->peer->ep);
		ep->peer->ep = NULL;
	}
	for (struct ucx_peer *p = ux.peers; p != NULL; p = p->next)
		if (p->ep != NULL) {
			ucx_close_ep(p->ep);
			p->ep = NULL;
		}
	ucp_worker_destroy(ux.worker);
	ucp_cleanup(ux.ctx);
	close(ux.evfd);
}

const char *odma_tp_ucx_version(void)
{
	static char line[160];

	snprintf(line, sizeof(line),
	         "built in (UCX %s: TCP between namespaces or machines, chosen when the exporter "
	         "is in another kernel or PID namespace, or with ODMA_TRANSPORT=ucx)",
	         ucp_get_version_string());
	return line;
}

const char *odma_tp_net_absent(void)
{
	const char *why = NULL;

	return ucx_available(&why) ? NULL : why;
}

const struct odma_tp_ops odma_tp_ucx = {
	.name = "ucx",
	.kind = ODMA_TP_UCX,
	.available = ucx_available,
	.reach_self = ucx_reach_self,
	.attach = ucx_attach,
	.detach = ucx_detach,
	.io_start = ucx_io_start,
	.listen = ucx_listen,
	.listen_close = ucx_listen_close,
	.connect = ucx_connect,
	.ep_set_cbs = ucx_ep_set_cbs,
	.ep_send = ucx_ep_send,
	.ep_attach = ucx_ep_attach,
	.ep_close = ucx_ep_close,
};
