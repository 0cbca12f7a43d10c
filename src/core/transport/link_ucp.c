/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The UCP link (link.h): UCX's active messages on one worker (thread mode SERIALIZED: only the
 * holder of odma_ux.wlock calls UCX). What runs on a machine with an RDMA NIC (UCX_TLS=rc, ud,
 * dc ...), and wherever the user names UCX's transports (UCX_TLS).
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <signal.h>
#include <ucp/api/ucp.h>
#include <ucs/debug/debug.h>

#include "core/log/log.h"
#include "core/transport/ucx_int.h"

ODMA_LOG_REGISTER(ODMA_UCX_UCP)

_Static_assert(sizeof(struct iovec) == sizeof(ucp_dt_iov_t) &&
                       offsetof(struct iovec, iov_base) == offsetof(ucp_dt_iov_t, buffer) &&
                       offsetof(struct iovec, iov_len) == offsetof(ucp_dt_iov_t, length),
               "an odma_ucx_out's pieces are handed to UCX as its IOV entries");

static struct {
	ucp_context_h ctx;
	ucp_worker_h worker;
	ucp_datatype_t dt_out; /* odma_ucx_out packed by copy */
	bool copy_out;         /* payloads go by dt_out, not zero-copy (UCX's TCP transport) */
	struct odma_lk_handler h[ODMA_UCX_AM_LAST + 1];
	odma_lk_err_fn *err;
} lu;

/* What a send handed to UCX keeps in UCX's request (the context's request_size). */
struct lu_req {
	odma_lk_sent_fn *done;
	void *arg;
};

static int lu_st(ucs_status_t st)
{
	return st == UCS_OK ? ODMA_LK_OK : (int)st;
}

static const char *lu_strerror(int status)
{
	return ucs_status_string((ucs_status_t)status);
}

/* ---- choosing UCX's transports from real reachability ---- */

/*
 * A setting of UCX's transport layer, for this process' UCX context only: ucp_config_modify
 * keeps a name no UCP table knows and applies it to every transport, connection manager and
 * memory domain table that has the field (TX_SEG_SIZE, RX_SEG_SIZE: TCP's only; CM_REUSEADDR:
 * every connection manager's). Never setenv: the environment is the program's, and another
 * thread may read it. The user's own @env wins.
 */
static void lu_tl_default(ucp_config_t *cfg, const char *env, const char *name, const char *value)
{
	if (getenv(env) == NULL && ucp_config_modify(cfg, name, value) != UCS_OK)
		ODMA_DBG("UCX transport: UCX did not take %s=%s; its default stays", name, value);
}

/*
 * UCX's defaults pick shared memory between two network namespaces of one host and then
 * hang (its wake-up socket is unreachable): take TCP, on the interface that reaches the
 * other side (ODMA_FABRIC's network; loopback when only ODMA_TRANSPORT=ucx is set). A
 * UCX_TLS or UCX_NET_DEVICES of the user's own wins.
 */
static void lu_pick_devices(ucp_config_t *cfg)
{
	char ip[64] = "", dev[IF_NAMESIZE + 8] = "lo";

	if (getenv("UCX_TLS") == NULL)
		(void)ucp_config_modify(cfg, "TLS", "tcp");
	/*
	 * a listener (Comch at ODMA_FABRIC, RDMA CM) restarted on a port a closed one used
	 * moments ago (TIME_WAIT) binds: the connection managers' setting
	 */
	lu_tl_default(cfg, "UCX_TCP_CM_REUSEADDR", "CM_REUSEADDR", "y");
	if (getenv("UCX_NET_DEVICES") != NULL)
		return;
	if (!odma_ucx_fabric_dev(ip, sizeof(ip), dev, sizeof(dev)))
		return; /* logged; every device: UCX may still find a route */
	(void)ucp_config_modify(cfg, "NET_DEVICES", dev);
	ODMA_DBG("UCX transport: TLS=tcp on %s", dev);
}

/*
 * UCX installs its own handlers for SIGILL, SIGSEGV, SIGBUS and SIGFPE when its library loads
 * (a backtrace, then the signal again). A program that loads this module (its first network
 * export or import, an endpoint) would then print UCX's backtrace for its own crash. Its
 * handlers go as soon as the module loads (after UCX's constructor: a dependency's runs
 * first); the program's own, and the default, stay. UCX needs none of them to work. A program
 * that stays in its kernel never loads UCX at all (ucx_row.c).
 */
__attribute__((constructor)) static void lu_no_error_handlers(void)
{
	static const int sigs[] = { SIGILL, SIGSEGV, SIGBUS, SIGFPE };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		ucs_debug_disable_signal(sigs[i]);
}

/* ---- sends: the payload packed by copy ---- */

/*
 * UCX 1.13's TCP transport completes a zero-copy send twice when the socket fails while the
 * send is part-way out (uct_tcp_ep_sendv handles the error, which purges the endpoint and
 * completes the send, then completes it again: src/uct/tcp/tcp_ep.c), and the second
 * completion fails an assertion inside UCX's progress (uct_iface.h:884 comp->count > 0),
 * which ends the process: a peer that died while a large reply, a write's bytes or a message
 * left for it took the sender with it. UCX sends zero-copy only a contiguous or IOV payload,
 * so odma hands it every payload as a generic datatype that UCX packs, fragment by fragment,
 * into its own send buffer (its bcopy protocol). The pack is the copy UCX makes of a payload
 * below its zero-copy threshold anyway, and the kernel then sends from that buffer.
 */
static void *out_start_pack(void *context, const void *buffer, size_t count)
{
	(void)context;
	(void)count;
	return (void *)buffer; /* the odma_ucx_out, which lives until the send completes */
}

static void *out_start_unpack(void *context, void *buffer, size_t count)
{
	(void)context;
	(void)buffer;
	(void)count;
	return NULL; /* never received into: odma receives into contiguous memory */
}

static size_t out_packed_size(void *state)
{
	return ((const struct odma_ucx_out *)state)->len;
}

static size_t out_pack(void *state, size_t offset, void *dest, size_t max_length)
{
	return odma_ucx_out_read(state, offset, dest, max_length);
}

static ucs_status_t out_unpack(void *state, size_t offset, const void *src, size_t length)
{
	(void)state;
	(void)offset;
	(void)src;
	(void)length;
	return UCS_ERR_UNSUPPORTED;
}

static void out_finish(void *state)
{
	(void)state;
}

static const ucp_generic_dt_ops_t out_ops = {
	.start_pack = out_start_pack,
	.start_unpack = out_start_unpack,
	.packed_size = out_packed_size,
	.pack = out_pack,
	.unpack = out_unpack,
	.finish = out_finish,
};

static void lu_sent(void *request, ucs_status_t status, void *user_data)
{
	struct lu_req q = *(struct lu_req *)request;

	(void)user_data;
	ucp_request_free(request);
	q.done(q.arg, lu_st(status));
}

/*
 * What UCX returned (@r) for an operation in flight or done: the @size bytes at @keep (its
 * callback's lu_req or lu_recv) go into UCX's request when it is in flight.
 */
static int lu_handed(void *r, const void *keep, size_t size)
{
	if (UCS_PTR_IS_ERR(r))
		return lu_st(UCS_PTR_STATUS(r));
	if (r == NULL)
		return ODMA_LK_OK;
	memcpy(r, keep, size);
	return ODMA_LK_INFLIGHT;
}

static int lu_send(struct odma_lk_ep *ep, unsigned int am, const void *hdr, size_t hlen,
                   const struct odma_ucx_out *o, unsigned int flags, odma_lk_sent_fn *done,
                   void *arg)
{
	ucp_ep_h e = (ucp_ep_h)ep;
	const struct lu_req keep = { done, arg };
	ucp_request_param_t prm = { 0 };
	void *r;

	prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_FLAGS;
	prm.cb.send = lu_sent;
	/*
	 * Eager, also for a long message (by rendezvous a 1 MiB read ran at 0.2x). The importer
	 * still takes a rendezvous reply (odma_ucx_reply_am), should a peer send one.
	 */
	prm.flags =
	        UCP_AM_SEND_FLAG_EAGER | (flags & ODMA_LK_SEND_REPLY ? UCP_AM_SEND_FLAG_REPLY : 0);
	if (o == NULL || o->len == 0) {
		r = ucp_am_send_nbx(e, am, hdr, hlen, NULL, 0, &prm);
	} else if (lu.copy_out) {
		prm.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
		prm.datatype = lu.dt_out;
		r = ucp_am_send_nbx(e, am, hdr, hlen, o, 1, &prm);
	} else if (o->n == 1) {
		prm.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
		prm.datatype = ucp_dt_make_contig(1);
		r = ucp_am_send_nbx(e, am, hdr, hlen, o->iov[0].iov_base, o->len, &prm);
	} else {
		prm.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
		prm.datatype = ucp_dt_make_iov();
		r = ucp_am_send_nbx(e, am, hdr, hlen, o->iov, o->n, &prm);
	}
	return lu_handed(r, &keep, sizeof(keep));
}

/* ---- receives ---- */

static ucs_status_t lu_am(void *arg, const void *header, size_t header_length, void *data,
                          size_t length, const ucp_am_recv_param_t *param)
{
	const struct odma_lk_handler *h = arg;
	struct odma_lk_rx rx = { NULL, (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0 };

	if (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP)
		rx.reply_ep = (struct odma_lk_ep *)param->reply_ep;
	h->fn(header, header_length, data, length, &rx);
	return UCS_OK;
}

struct lu_recv {
	odma_lk_recv_fn *done;
	void *arg;
};

static void lu_recv_done(void *request, ucs_status_t status, size_t length, void *user_data)
{
	struct lu_recv *q = request;
	odma_lk_recv_fn *done = q->done;
	void *arg = q->arg;

	(void)user_data;
	ucp_request_free(request);
	done(arg, lu_st(status), length);
}

static int lu_recv_data(void *data, void *dest, size_t len, odma_lk_recv_fn *done, void *arg)
{
	const struct lu_recv keep = { done, arg };
	ucp_request_param_t prm = { 0 };

	prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK;
	prm.cb.recv_am = lu_recv_done;
	return lu_handed(ucp_am_recv_data_nbx(lu.worker, data, dest, len, &prm), &keep,
	                 sizeof(keep));
}

/* ---- connections ---- */

static void lu_err(void *arg, ucp_ep_h ep, ucs_status_t status)
{
	(void)ep;
	lu.err(arg, lu_st(status));
}

static int lu_ep_create(ucp_ep_params_t *prm, void *arg, struct odma_lk_ep **ep)
{
	ucp_ep_h e;
	ucs_status_t st;

	prm->field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
	prm->err_mode = UCP_ERR_HANDLING_MODE_PEER;
	prm->err_handler.cb = lu_err;
	prm->err_handler.arg = arg;
	st = ucp_ep_create(lu.worker, prm, &e);
	if (st == UCS_OK)
		*ep = (struct odma_lk_ep *)e;
	return lu_st(st);
}

static int lu_ep_to_addr(const uint8_t *addr, size_t alen, void *arg, struct odma_lk_ep **ep)
{
	ucp_ep_params_t prm = { .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
		                .address = (const ucp_address_t *)addr };

	(void)alen;
	return lu_ep_create(&prm, arg, ep);
}

static int lu_ep_to_sock(const struct sockaddr_in *sa, void *arg, struct odma_lk_ep **ep)
{
	ucp_ep_params_t prm = { 0 };

	prm.field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR;
	prm.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER;
	prm.sockaddr.addr = (const struct sockaddr *)sa;
	prm.sockaddr.addrlen = sizeof(*sa);
	return lu_ep_create(&prm, arg, ep);
}

static int lu_ep_accept(struct odma_lk_conn *c, void *arg, struct odma_lk_ep **ep)
{
	ucp_ep_params_t prm = { .field_mask = UCP_EP_PARAM_FIELD_CONN_REQUEST,
		                .conn_request = (ucp_conn_request_h)c };

	return lu_ep_create(&prm, arg, ep);
}

/* A listener: UCX's, and the callback it was made with. */
struct odma_lk_listener {
	ucp_listener_h l;
	odma_lk_conn_fn *cb;
	void *arg;
};

static void lu_conn(ucp_conn_request_h req, void *arg)
{
	struct odma_lk_listener *L = arg;

	L->cb((struct odma_lk_conn *)req, L->arg);
}

static void lu_reject(struct odma_lk_listener *l, struct odma_lk_conn *c)
{
	(void)ucp_listener_reject(l->l, (ucp_conn_request_h)c);
}

static int lu_listen(const struct sockaddr_in *sa, odma_lk_conn_fn *cb, void *arg,
                     struct odma_lk_listener **l, uint16_t *port)
{
	ucp_listener_params_t lp = { 0 };
	ucp_listener_attr_t at = { .field_mask = UCP_LISTENER_ATTR_FIELD_SOCKADDR };
	struct odma_lk_listener *L = calloc(1, sizeof(*L));
	ucs_status_t st;

	if (L == NULL)
		return lu_st(UCS_ERR_NO_MEMORY);
	L->cb = cb;
	L->arg = arg;
	lp.field_mask = UCP_LISTENER_PARAM_FIELD_SOCK_ADDR | UCP_LISTENER_PARAM_FIELD_CONN_HANDLER;
	lp.sockaddr.addr = (const struct sockaddr *)sa;
	lp.sockaddr.addrlen = sizeof(*sa);
	lp.conn_handler.cb = lu_conn;
	lp.conn_handler.arg = L;
	st = ucp_listener_create(lu.worker, &lp, &L->l);
	if (st != UCS_OK) {
		free(L);
		return lu_st(st);
	}
	/* the port bound (the kernel's pick when 0 was asked) */
	*port = ntohs(sa->sin_port);
	if (ucp_listener_query(L->l, &at) == UCS_OK && at.sockaddr.ss_family == AF_INET)
		*port = ntohs(((const struct sockaddr_in *)&at.sockaddr)->sin_port);
	*l = L;
	return ODMA_LK_OK;
}

static void lu_listen_close(struct odma_lk_listener *l)
{
	ucp_listener_destroy(l->l);
	free(l);
}

static void lu_ep_close(struct odma_lk_ep *ep, bool wait)
{
	ucp_request_param_t prm = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
		                    .flags = UCP_EP_CLOSE_FLAG_FORCE };
	void *r = ucp_ep_close_nbx((ucp_ep_h)ep, &prm);

	if (!UCS_PTR_IS_PTR(r))
		return;
	while (wait && ucp_request_check_status(r) == UCS_INPROGRESS)
		odma_ucx_progress();
	ucp_request_free(r);
}

static void *lu_flush(struct odma_lk_ep *ep)
{
	ucp_request_param_t prm = { 0 };
	void *r = ucp_ep_flush_nbx((ucp_ep_h)ep, &prm);

	return UCS_PTR_IS_PTR(r) ? r : NULL; /* else flushed already, or the endpoint failed */
}

static bool lu_flush_busy(void *f)
{
	return ucp_request_check_status(f) == UCS_INPROGRESS;
}

static void lu_flush_free(void *f)
{
	ucp_request_free(f);
}

/* ---- the worker ---- */

/* UCX's context, with odma's settings where the user set none. */
static const char *lu_open_context(void)
{
	ucp_params_t p = { 0 };
	ucp_config_t *cfg;

	/* with an RDMA NIC (UCX_TLS=rc, ud, dc ...) payloads go zero-copy, as UCX chooses */
	lu.copy_out = odma_ucx_may_use_tcp();
	if (ucp_config_read(NULL, NULL, &cfg) != UCS_OK)
		return "ucp_config_read failed";
	lu_pick_devices(cfg);
	/*
	 * UCX packs a payload in fragments of its TCP send buffer (8 KiB by default), each sent
	 * with a system call, and assembles a message of several fragments in a buffer of its own
	 * before the handler sees it (a copy more on the receiving side). At 64 KiB, the receive
	 * buffer's default size, a request or answer of LU_CUT_PACKED (lu_open) is one
	 * fragment. Not more: a fragment larger than its peer's receive buffer makes the peer's
	 * UCX fail an assertion (tcp_ep.c), and a peer need not have odma's settings (a user's
	 * UCX_TCP_RX_SEG_SIZE, an older odma). The receive buffer is what one recv(2) fills: at
	 * 256 KiB one call takes about four fragments instead of one (1 MiB over loopback, depth
	 * 8, 27 runs: reads 0.62 -> 0.76, writes 0.58 -> 0.70 x the TCP stream, performance.md),
	 * and a peer's fragment of up to 256 KiB is taken instead of ending this process. It costs
	 * 512 KiB (two buffers' worth, UCX's) per connection only while a message is part-way in.
	 * A receive buffer of the user's own leaves the send buffer to the user too: UCX refuses
	 * a send buffer larger than the receive buffer (a user's 32k would stop the transport).
	 */
	if (lu.copy_out && getenv("UCX_TCP_RX_SEG_SIZE") == NULL) {
		lu_tl_default(cfg, "UCX_TCP_TX_SEG_SIZE", "TX_SEG_SIZE", "64k");
		lu_tl_default(cfg, "UCX_TCP_RX_SEG_SIZE", "RX_SEG_SIZE", "256k");
	}
	p.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_REQUEST_SIZE;
	p.features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
	p.request_size = sizeof(struct lu_req) > sizeof(struct lu_recv) ? sizeof(struct lu_req)
	                                                                : sizeof(struct lu_recv);
	if (ucp_init(&p, cfg, &lu.ctx) != UCS_OK) {
		ucp_config_release(cfg);
		return "ucp_init failed (no usable UCX transport: check UCX_TLS/UCX_NET_DEVICES)";
	}
	ucp_config_release(cfg);
	if (lu.copy_out && ucp_dt_create_generic(&out_ops, NULL, &lu.dt_out) != UCS_OK)
		return "cannot create a UCX datatype";
	if (lu.copy_out)
		ODMA_WARN("the network transport runs on UCX's link, which may use UCX's TCP "
		          "transport (UCX_TLS): any process that reaches its ports can write this "
		          "process's memory (docs/reliability.md); ODMA_LINK=tcp closes that");
	return NULL;
}

/*
 * The bytes a GET or PUT request moves at most when UCX packs payloads: with its headers (and
 * a trailer) one fragment of UCX's 64 KiB TCP send buffer (lu_open_context), so the receiver
 * takes it from UCX's receive buffer, with no assembly first. 1 MiB over loopback, depth 8:
 * reads 0.66 -> 0.73, writes 0.57 -> 0.67 x the TCP stream (docs/performance.md). Else
 * ODMA_UCX_CHUNK_MAX, the wire's limit.
 */
#define LU_CUT_PACKED (60u * 1024)

static const char *lu_open(const struct odma_lk_handler *h, unsigned int n, odma_lk_err_fn *err,
                           odma_lk_gone_fn *gone, uint8_t *self, uint16_t *self_len, int *wake_fd,
                           bool *packs, size_t *cut)
{
	ucp_worker_params_t wp = { 0 };
	ucp_address_t *addr;
	size_t alen;
	const char *why = lu_open_context();

	(void)gone; /* UCX keeps the endpoints it made for peers until the worker goes */
	lu.err = err;
	if (why != NULL)
		return why;
	wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
	wp.thread_mode = UCS_THREAD_MODE_SERIALIZED; /* one thread at a time: odma_ux.wlock */
	if (ucp_worker_create(lu.ctx, &wp, &lu.worker) != UCS_OK)
		return "ucp_worker_create failed";
	if (ucp_worker_get_efd(lu.worker, wake_fd) != UCS_OK)
		return "the UCX worker has no wake-up fd";
	for (unsigned int i = 0; i < n; i++) {
		ucp_am_handler_param_t hp = { 0 };

		lu.h[h[i].id] = h[i];
		hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
		                UCP_AM_HANDLER_PARAM_FIELD_FLAGS | UCP_AM_HANDLER_PARAM_FIELD_ARG;
		hp.id = h[i].id;
		hp.cb = lu_am;
		hp.arg = &lu.h[h[i].id];
		hp.flags = UCP_AM_FLAG_WHOLE_MSG;
		if (ucp_worker_set_am_recv_handler(lu.worker, &hp) != UCS_OK)
			return "cannot set the UCX active message handlers";
	}
	if (ucp_worker_get_address(lu.worker, &addr, &alen) != UCS_OK)
		return "cannot get the UCX worker address";
	if (alen > ODMA_TP_ADDR_MAX) {
		ucp_worker_release_address(lu.worker, addr);
		return "the UCX worker address is larger than a descriptor carries "
		       "(limit UCX_TLS to tcp)";
	}
	memcpy(self, addr, alen);
	*self_len = (uint16_t)alen;
	ucp_worker_release_address(lu.worker, addr);
	*packs = lu.copy_out;
	*cut = lu.copy_out ? LU_CUT_PACKED : ODMA_UCX_CHUNK_MAX;
	return NULL;
}

static void lu_close(void)
{
	ucp_worker_destroy(lu.worker);
	if (lu.copy_out)
		ucp_dt_destroy(lu.dt_out);
	ucp_cleanup(lu.ctx);
	memset(&lu, 0, sizeof(lu));
}

static unsigned int lu_progress(void)
{
	return ucp_worker_progress(lu.worker);
}

static bool lu_arm(void)
{
	return ucp_worker_arm(lu.worker) != UCS_ERR_BUSY;
}

static const char *lu_describe(void)
{
	static char line[256];
	const char *tls = getenv("UCX_TLS");

	snprintf(line, sizeof(line),
	         "built in (UCX %s's link, UCX_TLS=%.40s, between namespaces or machines; chosen "
	         "when the exporter is in another kernel or PID namespace, or with "
	         "ODMA_TRANSPORT=ucx)",
	         ucp_get_version_string(), tls != NULL ? tls : "tcp");
	return line;
}

const struct odma_lk_ops odma_lk_ucp = {
	.name = "ucp",
	.open = lu_open,
	.close = lu_close,
	.progress = lu_progress,
	.arm = lu_arm,
	.ep_to_addr = lu_ep_to_addr,
	.ep_to_sock = lu_ep_to_sock,
	.ep_accept = lu_ep_accept,
	.reject = lu_reject,
	.listen = lu_listen,
	.listen_close = lu_listen_close,
	.send = lu_send,
	.ep_close = lu_ep_close,
	.flush = lu_flush,
	.flush_busy = lu_flush_busy,
	.flush_free = lu_flush_free,
	.recv_data = lu_recv_data,
	.strerror = lu_strerror,
	.describe = lu_describe,
};
