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

#include "core/config/config.h"
#include "core/log/log.h"
#include "core/transport/ucx_int.h"
#include "util/codec.h"

atomic_uint_fast64_t odma_ucx_bundles;

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
	odma_ucx_waiter_done(b->w, DOCA_SUCCESS);
	free(b);
}

/* ---- endpoints: listen/connect, messages with an immediate, attach over an endpoint ---- */

struct ucx_listener {
	ucp_listener_h l;
	odma_tp_accept_fn *on_accept;
	void *arg;
	struct ucx_listener *prev, *next; /* odma_ucx_listeners (service thread) */
};

/* Every open listener (service thread): what the exit's shutdown still has to destroy. */
static struct ucx_listener *odma_ucx_listeners;

/* Runs @fn(@arg) on the service thread and waits for it (a caller on it runs it at once). */
static void ucx_call(void (*fn)(void *), void *arg)
{
	struct ucx_waiter w = { 0 };
	struct ucx_chunk *c;

	/* the service thread, or a thread polling inline: no held doorbell outlives what fn ends */
	if (odma_ucx_in_worker) {
		odma_tp_wake_flush();
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
	odma_ucx_enqueue(c, c);
	pthread_mutex_lock(&odma_ux.lock);
	while (!w.done)
		pthread_cond_wait(&w.cond, &odma_ux.lock);
	pthread_mutex_unlock(&odma_ux.lock);
	pthread_cond_destroy(&w.cond);
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
	uint8_t hdr[8];        /* imm u32, zero u32; in a bundle: imm u32 LE, length u32 LE */
	struct ucx_msg *bnext; /* the bundle this message leads: its next message */
	void *bundle;          /* the lead's: the bundle's header and iov (until msg_sent) */
	struct ucx_chunk job;  /* UCX_OP_SEND: queued for the worker's thread */
	size_t len;
	uint8_t data[];
};

static void msg_unlink(struct ucx_msg *m)
{
	if (!m->linked)
		return;
	if (m->prev != NULL)
		m->prev->next = m->next;
	else
		m->ep->msgs = m->next;
	if (m->next != NULL)
		m->next->prev = m->prev;
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
	while (ep->msgs != NULL) {
		struct ucx_msg *lead = ep->msgs;

		msg_unlink(lead);
		for (struct ucx_msg *m = lead; m != NULL; m = m->bnext) {
			odma_tp_send_done_fn *done = m->done;

			m->done = NULL;
			m->ep = NULL; /* the endpoint may be freed before UCX lets go of it */
			if (done != NULL)
				done(m->arg, DOCA_ERROR_IO_FAILED);
		}
	}
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
	prm->err_handler.cb = odma_ucx_peer_err_cb;
	prm->err_handler.arg = p;
	if (ucp_ep_create(odma_ux.worker, prm, &p->ep) != UCS_OK) {
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
			odma_ucx_peer_unref(p);
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
	j->st = ucp_listener_create(odma_ux.worker, &lp, &j->L->l);
	if (j->st == UCS_OK) {
		ucp_listener_attr_t at = { .field_mask = UCP_LISTENER_ATTR_FIELD_SOCKADDR };

		/* the port bound (the kernel's pick when 0 was asked) */
		if (ucp_listener_query(j->L->l, &at) == UCS_OK && at.sockaddr.ss_family == AF_INET)
			j->port = ntohs(((const struct sockaddr_in *)&at.sockaddr)->sin_port);
		odma_ux.listeners++; /* no inline polls from now on (ucx.c) */
		j->L->next = odma_ucx_listeners;
		if (odma_ucx_listeners != NULL)
			odma_ucx_listeners->prev = j->L;
		odma_ucx_listeners = j->L;
	}
}

doca_error_t odma_ucx_listen(const char *addr, uint16_t *port, odma_tp_accept_fn *on_accept,
                             void *arg, void **listener)
{
	struct ucx_listen_job j = { .addr = addr, .port = *port, .st = UCS_ERR_NO_MEMORY };
	struct sockaddr_in sa;
	const char *why = NULL;

	if (!odma_ucx_available(&why))
		return DOCA_ERROR_NOT_SUPPORTED;
	if (!ucx_sockaddr(addr, *port, &sa)) {
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
		         addr ? addr : "*", *port, ucs_status_string(j.st));
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

	ucp_listener_destroy(L->l);
	odma_ux.listeners--;
	if (L->prev != NULL)
		L->prev->next = L->next;
	else
		odma_ucx_listeners = L->next;
	if (L->next != NULL)
		L->next->prev = L->prev;
	free(L);
}

void odma_ucx_listeners_destroy(void)
{
	for (struct ucx_listener *L = odma_ucx_listeners, *next; L != NULL; L = next) {
		next = L->next;
		ucp_listener_destroy(L->l);
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
		odma_ucx_peer_unref(p);
	if (j->ep != NULL && j->cbs != NULL)
		j->ep->cbs = *j->cbs;
}

doca_error_t odma_ucx_connect(const char *addr, uint16_t port, const struct odma_tp_ep_cbs *cbs,
                              struct odma_tp_ep **ep)
{
	struct ucx_connect_job j = { .addr = addr, .port = port, .cbs = cbs };
	struct sockaddr_in sa;
	const char *why = NULL;

	if (!odma_ucx_available(&why))
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

void odma_ucx_ep_set_cbs(struct odma_tp_ep *ep, const struct odma_tp_ep_cbs *cbs)
{
	struct ucx_setcbs_job j = { ep, cbs };

	ucx_call(setcbs_job, &j);
}

/* A send (one message, or the bundle @user_data leads) completed or failed: each is reported. */
static void msg_sent(void *request, ucs_status_t status, void *user_data)
{
	struct ucx_msg *m = user_data;

	msg_unlink(m);
	free(m->bundle);
	while (m != NULL) {
		struct ucx_msg *next = m->bnext;

		if (m->done != NULL)
			m->done(m->arg, status == UCS_OK ? DOCA_SUCCESS : DOCA_ERROR_IO_FAILED);
		free(m);
		m = next;
	}
	if (request != NULL)
		ucp_request_free(request);
}

/* A bundle's header and its iov: two entries per message (its immediate and length, its bytes). */
struct ucx_bundle {
	uint8_t hdr[8];
	ucp_dt_iov_t iov[2 * ODMA_UCX_BUNDLE_MAX];
};

/* Hands @lead (and the @n - 1 messages after it on its bnext list) to UCX as one send. */
static void msgs_send(struct ucx_msg *lead, unsigned int n)
{
	ucp_request_param_t prm = { 0 };
	struct ucx_bundle *b = NULL;
	void *r;

	if (lead->ep->gone || lead->ep->peer->dead) {
		msg_sent(NULL, UCS_ERR_CONNECTION_RESET, lead);
		return;
	}
	prm.op_attr_mask =
	        UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
	prm.cb.send = msg_sent;
	prm.user_data = lead;
	prm.flags = UCP_AM_SEND_FLAG_REPLY | UCP_AM_SEND_FLAG_EAGER;
	if (n > 1 && (b = malloc(sizeof(*b))) != NULL) {
		unsigned int i = 0;

		odma_put_le(b->hdr, n, 4);
		odma_put_le(b->hdr + 4, 0, 4);
		for (struct ucx_msg *m = lead; m != NULL; m = m->bnext, i += 2) {
			odma_put_le(m->hdr + 4, m->len, 4); /* the immediate is in m->hdr already */
			b->iov[i] = (ucp_dt_iov_t){ m->hdr, sizeof(m->hdr) };
			b->iov[i + 1] = (ucp_dt_iov_t){ m->data, m->len };
		}
		lead->bundle = b;
		prm.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
		prm.datatype = ucp_dt_make_iov();
		r = ucp_am_send_nbx(lead->ep->peer->ep, ODMA_UCX_AM_MSGS, b->hdr, sizeof(b->hdr),
		                    b->iov, 2 * n, &prm);
	} else if (n > 1) {
		msg_sent(NULL, UCS_ERR_NO_MEMORY, lead);
		return;
	} else {
		r = ucp_am_send_nbx(lead->ep->peer->ep, ODMA_UCX_AM_MSG, lead->hdr,
		                    sizeof(lead->hdr), lead->len ? lead->data : NULL, lead->len,
		                    &prm);
	}
	if (!UCS_PTR_IS_PTR(r)) {
		msg_sent(NULL, UCS_PTR_STATUS(r), lead);
		return;
	}
	/* in flight: reported by msg_sent, or by odma_ucx_ep_gone if the endpoint goes first */
	lead->prev = NULL;
	lead->next = lead->ep->msgs;
	if (lead->next != NULL)
		lead->next->prev = lead;
	lead->ep->msgs = lead;
	lead->linked = true;
}

/* Whether @m may travel in a bundle of @ep that holds @n messages, @bytes of payload so far. */
static bool msg_joins(const struct ucx_msg *m, const struct odma_tp_ep *ep, unsigned int n,
                      size_t bytes)
{
	return m->ep == ep && n < ODMA_UCX_BUNDLE_MAX && m->len <= ODMA_UCX_BUNDLE_MSG_MAX &&
	       bytes + ODMA_UCX_BUNDLE_SUB + m->len <= ODMA_UCX_BUNDLE_BYTES;
}

struct ucx_chunk *odma_ucx_send_run(struct ucx_chunk *c)
{
	struct ucx_msg *lead = c->fnarg, *last = lead;
	struct ucx_chunk *next = c->next;
	unsigned int n = 1;
	size_t bytes = ODMA_UCX_BUNDLE_SUB + lead->len;

	lead->bnext = NULL;
	lead->bundle = NULL;
	if (lead->len <= ODMA_UCX_BUNDLE_MSG_MAX)
		while (next != NULL && next->op == UCX_OP_SEND &&
		       msg_joins(next->fnarg, lead->ep, n, bytes)) {
			struct ucx_msg *m = next->fnarg;

			next = next->next;
			m->bnext = NULL;
			last->bnext = m;
			last = m;
			bytes += ODMA_UCX_BUNDLE_SUB + m->len;
			n++;
		}
	if (n > 1)
		atomic_fetch_add(&odma_ucx_bundles, 1);
	msgs_send(lead, n);
	return next;
}

doca_error_t odma_ucx_ep_send(struct odma_tp_ep *ep, const void *bytes, size_t len, uint32_t imm,
                              odma_tp_send_done_fn *done, void *arg)
{
	struct ucx_msg *m = malloc(sizeof(*m) + len);
	struct ucx_chunk *c;

	if (m == NULL)
		return DOCA_ERROR_NO_MEMORY;
	c = &m->job;
	memset(c, 0, sizeof(*c));
	m->done = done;
	m->arg = arg;
	m->ep = ep;
	m->prev = m->next = NULL;
	m->linked = false;
	memset(m->hdr, 0, sizeof(m->hdr));
	memcpy(m->hdr, &imm, 4);
	m->len = len;
	memcpy(m->data, bytes, len);
	c->op = UCX_OP_SEND;
	c->fnarg = m; /* odma_ucx_send_run sends it, with the sends of @ep queued after it */
	odma_ucx_enqueue(c, c);
	return DOCA_SUCCESS;
}

ucs_status_t odma_ucx_msg_am(void *arg, const void *header, size_t header_length, void *data,
                             size_t length, const ucp_am_recv_param_t *param)
{
	struct ucx_peer *p;
	struct odma_tp_ep *ep;
	uint32_t imm;

	(void)arg;
	if (header_length != 8 || !(param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) ||
	    (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV))
		return UCS_OK;
	memcpy(&imm, header, 4);
	p = odma_ucx_index_get(param->reply_ep);
	ep = p != NULL ? p->owner : NULL;
	if (ep != NULL && !ep->gone && ep->cbs.on_recv != NULL)
		ep->cbs.on_recv(ep, data, length, imm, ep->cbs.arg);
	return UCS_OK;
}

ucs_status_t odma_ucx_msgs_am(void *arg, const void *header, size_t header_length, void *data,
                              size_t length, const ucp_am_recv_param_t *param)
{
	const char *why = NULL;
	struct ucx_peer *p;
	struct odma_tp_ep *ep;
	unsigned int n;
	size_t off = 0;

	(void)arg;
	if (!(param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) ||
	    (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV))
		return UCS_OK;
	p = odma_ucx_index_get(param->reply_ep);
	ep = p != NULL ? p->owner : NULL;
	if (ep == NULL || ep->gone || ep->cbs.on_recv == NULL)
		return UCS_OK;
	n = odma_ucx_bundle_check(header, header_length, data, length, &why);
	if (n == 0 && !ep->bad_bundle_logged) {
		ep->bad_bundle_logged = true; /* once per endpoint: a flood is not a log */
		ODMA_WARN("UCX transport: a peer sent a malformed bundle of messages (%s); it is "
		          "dropped whole (later ones of this connection too, without a log line)",
		          why);
	}
	/*
	 * One at a time, as they were sent. A handler never closes the endpoint (the contract:
	 * callbacks call no waiting function), and no other thread frees it while this one runs.
	 */
	for (unsigned int i = 0; i < n && !ep->gone; i++) {
		size_t len;
		uint32_t imm;
		const uint8_t *msg = odma_ucx_bundle_next(data, &off, &len, &imm);

		ep->cbs.on_recv(ep, msg, len, imm, ep->cbs.arg);
	}
	return UCS_OK;
}

doca_error_t odma_ucx_ep_attach(struct odma_tp_ep *ep, const struct odma_tp_reach *r,
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
	pthread_mutex_lock(&odma_ux.lock);
	ep->peer->refs++; /* the attachment's */
	pthread_mutex_unlock(&odma_ux.lock);
	pthread_cond_init(&w.cond, NULL);
	c->op = ODMA_UCX_OP_ATTACH;
	c->wait = &w;
	c->reach = r;
	c->peer = ep->peer;
	odma_ucx_enqueue(c, c);
	pthread_mutex_lock(&odma_ux.lock);
	while (!w.done)
		pthread_cond_wait(&w.cond, &odma_ux.lock);
	pthread_mutex_unlock(&odma_ux.lock);
	pthread_cond_destroy(&w.cond);
	if (w.status != DOCA_SUCCESS)
		return w.status == DOCA_ERROR_IO_FAILED ? DOCA_ERROR_IO_FAILED
		                                        : DOCA_ERROR_INVALID_VALUE;
	rm->priv = ep->peer;
	return DOCA_SUCCESS;
}

/*
 * Lets the messages already handed to UCX reach the peer before the endpoint goes (service
 * thread): the close that follows is forced and would drop them. Bounded (2 s at most): a
 * peer that stopped reading does not hold it.
 */
static void ep_flush(struct ucx_peer *p)
{
	ucp_request_param_t prm = { 0 };
	uint64_t end = odma_ucx_now_ns() + 2000000000ull;
	void *r;

	if (p->dead || p->ep == NULL)
		return;
	r = ucp_ep_flush_nbx(p->ep, &prm);
	if (!UCS_PTR_IS_PTR(r))
		return;
	while (ucp_request_check_status(r) == UCS_INPROGRESS && !p->dead && odma_ucx_now_ns() < end)
		ucp_worker_progress(odma_ux.worker);
	ucp_request_free(r);
}

static void close_job(void *arg)
{
	struct odma_tp_ep *ep = arg;
	struct ucx_peer *p = ep->peer;
	struct ucx_chunk *c;
	struct ucx_chunk *next;

	ep_flush(p);
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
	odma_ucx_peer_unref(
	        p); /* the endpoint's; attachments keep the peer (dead) until detached */
}

void odma_ucx_ep_close(struct odma_tp_ep *ep)
{
	ucx_call(close_job, ep);
}
