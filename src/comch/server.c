/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Comch servers: listening with each carrier, the HELLO handshake (from the server's
 * progress), the server's context ops and its public API.
 */
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "comch/comch.h"
#include "core/error/error.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(DOCA_COMCH)

/* ---- server ---------------------------------------------------------------------------- */

static doca_error_t server_start(struct doca_ctx *ctx)
{
	struct comch_ep *ep = comch_ep_of(ctx);
	doca_error_t r = comch_ep_start_common(ep);

	if (r != DOCA_SUCCESS)
		return r;
	/* one a consumer or producer still holds stays listed: it holds the destroy back */
	comch_ep_reap(ep, false);
	for (const struct comch_carrier *const *c = comch_carriers; *c != NULL; c++) {
		if ((*c)->wanted != NULL && !(*c)->wanted())
			continue;
		r = (*c)->listen(ep); /* released by comch_ep_release_io */
		if (r != DOCA_SUCCESS) {
			/*
			 * no listener left behind for clients to hang on, nor for a retried start
			 */
			comch_ep_release_io(ep);
			return r;
		}
	}
	ep->num_live = 0;
	ODMA_DBG("comch server \"%s\" listens on representor %s of system %s (%s)", ep->name,
	         ep->rep->info->pci_addr, ep->system_name, ep->path);
	return DOCA_SUCCESS;
}

static void server_reject(struct comch_ep *ep, struct comch_chan *ch, doca_error_t code,
                          const char *why)
{
	ODMA_RATELIMITED_WARN("comch server \"%s\": refused a client%s: %s", ep->name,
	                      ch->car->where, why);
	comch_chan_reject(ch, code, why);
}

/*
 * Checks a HELLO already copied into *hello (plen: its payload length) against this server;
 * on a mismatch the client is told why and false is returned.
 */
static bool server_hello_ok(struct comch_ep *ep, struct comch_chan *ch,
                            const struct comch_hello *hello, size_t plen)
{
	const struct comch_wire_hdr *hdr = (const void *)ep->rx;

	if (hello->magic != COMCH_WIRE_MAGIC || hello->version != COMCH_WIRE_VERSION) {
		server_reject(ep, ch, DOCA_ERROR_UNSUPPORTED_VERSION,
		              "protocol version mismatch (odma versions differ?)");
		return false;
	}
	if (hello->name_len != plen - sizeof(*hello) || hello->name_len != strlen(ep->name) ||
	    memcmp(ep->rx + sizeof(*hdr) + sizeof(*hello), ep->name, hello->name_len) != 0 ||
	    hello->system_id != ep->system_id) {
		server_reject(ep, ch, DOCA_ERROR_NOT_FOUND,
		              "server name or emulated system differs");
		return false;
	}
	if (hello->max_msg == 0 || hello->recv_queue == 0) {
		server_reject(ep, ch, DOCA_ERROR_INVALID_VALUE, "bad HELLO parameters");
		return false;
	}
	if (ep->num_live >= ep->ctx.caps->comch_max_clients) {
		server_reject(ep, ch, DOCA_ERROR_FULL,
		              "the server already serves its maximum number of clients "
		              "(doca_comch_cap_get_max_clients)");
		return false;
	}
	return true;
}

/*
 * Handles the first packet of a channel (@n: its length or an error, @link_fd: a descriptor
 * that came with it): the HELLO's checks, the carrier's admission, then WELCOME. Returns the
 * new connection (which owns @ch now) or NULL (@ch is the caller's to free).
 */
static struct doca_comch_connection *server_hello(struct comch_ep *ep, struct comch_chan *ch,
                                                  ssize_t n, int link_fd)
{
	const struct comch_wire_hdr *hdr = (const void *)ep->rx;
	struct comch_hello hello;
	struct comch_welcome w = { .magic = COMCH_WIRE_MAGIC, .version = COMCH_WIRE_VERSION };
	struct doca_comch_connection *conn;
	const char *why = "";

	if (n < (ssize_t)(sizeof(*hdr) + sizeof(hello)) || hdr->type != COMCH_W_HELLO) {
		ODMA_RATELIMITED_WARN("comch server \"%s\": a connection%s did not start with a "
		                      "valid HELLO (packet type %u, %zd bytes); closed",
		                      ep->name, ch->car->where, hdr->type, n);
		return NULL;
	}
	memcpy(&hello, ep->rx + sizeof(*hdr), sizeof(hello));
	if (!server_hello_ok(ep, ch, &hello, (size_t)n - sizeof(*hdr)))
		return NULL;
	if (!ch->car->admit(ch, ep, link_fd, &why)) {
		ODMA_RATELIMITED_WARN("comch server \"%s\": "
		                      "the link page of a client is unusable: %s",
		                      ep->name, why);
		comch_chan_reject(ch, DOCA_ERROR_INVALID_VALUE,
		                  "the client's link page is unusable");
		return NULL;
	}
	w.max_msg = ep->max_msg;
	w.recv_queue = ep->recv_queue;
	/* bound before the WELCOME: what the client sends once it has it finds its connection */
	conn = comch_conn_new(ep, ch, COMCH_SIDE_SERVER,
	                      ep->max_msg < hello.max_msg ? ep->max_msg : hello.max_msg,
	                      hello.recv_queue);
	if (conn == NULL)
		return NULL;
	if (ch->car->send(ch, COMCH_W_WELCOME, 0, &w, sizeof(w), -1) != 0) {
		comch_conn_discard(conn);
		return NULL;
	}
	hello.pci[sizeof(hello.pci) - 1] = '\0';
	ODMA_DBG("comch server \"%s\": a client (%s, device %s) connected; max message %u bytes",
	         ep->name, comch_conn_who(conn).s, hello.pci, conn->max_msg);
	return conn;
}

/* A client accepted: listed, counted, announced. */
static void server_add_conn(struct comch_ep *ep, struct doca_comch_connection *conn)
{
	conn->next = ep->conns;
	ep->conns = conn;
	ep->num_live++;
	conn->announced = true;
	if (ep->connect_cb != NULL)
		ep->connect_cb(&ep->ev_conn, conn, 1);
}

/* The first packets that arrived at the server's listeners: a HELLO makes a connection. */
static bool server_handshakes(struct comch_ep *ep)
{
	bool any = false;

	for (const struct comch_carrier *const *c = comch_carriers; *c != NULL; c++) {
		struct comch_chan *ch;
		ssize_t n;
		int pfd = -1;

		while (ep->ctx.state == DOCA_CTX_STATE_RUNNING &&
		       (ch = (*c)->take(ep, &n, &pfd, &any)) != NULL) {
			struct doca_comch_connection *conn = server_hello(ep, ch, n, pfd);

			if (pfd >= 0)
				close(pfd);
			pfd = -1;
			if (conn == NULL) {
				comch_ep_free_chan(ep, ch);
				continue;
			}
			conn->watch = ch->watched ? EPOLLIN : 0; /* the watch goes with the fd */
			server_add_conn(ep, conn);
		}
	}
	return any;
}

/* ---- the server's context ops ------------------------------------------------------------ */

static bool server_progress(struct doca_ctx *ctx)
{
	struct comch_ep *ep = comch_ep_of(ctx);
	bool any = false;

	ep->dispatch++;
	if (ctx->state == DOCA_CTX_STATE_RUNNING)
		any |= server_handshakes(ep);
	/*
	 * A connection announced in this call delivers nothing else before the next one: what its
	 * client sent at once arrives after the connect event has returned to the program (DOCA's
	 * own comch_utils wait for the event in a progress loop and set up afterwards).
	 */
	for (struct doca_comch_connection *c = ep->conns; c != NULL; c = c->next) {
		if (c->announced) {
			c->announced = false;
			any = true;
			continue;
		}
		any |= comch_ep_conn_step(ep, c);
	}
	ep->dispatch--;
	comch_ep_reap(ep, false);
	return any;
}

static uint64_t server_arm(struct doca_ctx *ctx)
{
	struct comch_ep *ep = comch_ep_of(ctx);
	uint64_t at = ODMA_WAKE_NEVER;

	if (ctx->state == DOCA_CTX_STATE_IDLE)
		return ODMA_WAKE_NEVER; /* nothing is watched: released at the stop */
	for (const struct comch_carrier *const *c = comch_carriers; *c != NULL; c++)
		at = comch_min_ns(at, (*c)->listen_arm(ep));
	for (struct doca_comch_connection *c = ep->conns; c != NULL; c = c->next)
		at = comch_min_ns(at, comch_ep_arm_conn(ep, c));
	return at;
}

/* No new clients; every connection still open is closed (disconnect events follow). */
static void server_stop(struct doca_ctx *ctx)
{
	struct comch_ep *ep = comch_ep_of(ctx);

	comch_ep_release_io(ep);
	for (struct doca_comch_connection *c = ep->conns; c != NULL; c = c->next)
		comch_conn_close(c, DOCA_ERROR_IO_FAILED);
}

static bool server_idle_ready(const struct doca_ctx *ctx)
{
	const struct comch_ep *ep = comch_ep_of(ctx);

	if (ep->dispatch > 0)
		return false; /* a callback of ours is running: IDLE comes from the next progress */
	for (const struct doca_comch_connection *c = ep->conns; c != NULL; c = c->next)
		if (!c->settled)
			return false; /* what it sent before its end is still going out */
	return true;
}

static const struct odma_ctx_ops server_ops = {
	.name = "COMCH_SERVER",
	.task_size = sizeof(struct doca_comch_task_send),
	.start = server_start,
	.complete = comch_send_complete,
	.task_free = comch_send_free,
	.submit = comch_send_submit,
	.progress = server_progress,
	.stop = server_stop,
	.idle_ready = server_idle_ready,
	.no_task_conf = true,
	.arm = server_arm,
};

/* ---- what shared code asks of a server --------------------------------------------------- */

static bool server_owns(const struct comch_ep *ep, const struct doca_comch_connection *conn)
{
	for (const struct doca_comch_connection *c = ep->conns; c != NULL; c = c->next)
		if (c == conn)
			return !c->dropped;
	return false;
}

static void server_conn_ended(struct comch_ep *ep, struct doca_comch_connection *conn, int end)
{
	(void)end;
	if (ep->num_live > 0)
		ep->num_live--;
	if (!conn->dropped && ep->disconnect_cb != NULL)
		ep->disconnect_cb(&ep->ev_conn, conn, 1);
}

static bool server_fastpath_busy(const struct comch_ep *ep)
{
	for (const struct doca_comch_connection *c = ep->conns; c != NULL; c = c->next)
		if (atomic_load(&c->refs) > 1)
			return true;
	return false;
}

static const char *server_rep_pci(const struct comch_ep *ep)
{
	return ep->rep->info->pci_addr;
}

const struct comch_side comch_server_side = {
	.kind = "server",
	.owns = server_owns,
	.conn_ended = server_conn_ended,
	.fastpath_busy = server_fastpath_busy,
	.rep_pci = server_rep_pci,
};

/* ---- server API ------------------------------------------------------------------------ */

/* The server's endpoint on @dev for its representor @repr (held by the caller). */
static doca_error_t server_create_ep(struct doca_dev *dev, struct doca_dev_rep *repr,
                                     const char *name, struct comch_ep **ep)
{
	if (repr->info->parent != dev->info) {
		ODMA_ERR("doca_comch_server_create: the representor is not one of device %s (open "
		         "it from that device's representor list)",
		         dev->info->pci_addr);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return comch_ep_create(dev, name, &comch_server_side, &server_ops, ep);
}

doca_error_t doca_comch_server_create(struct doca_dev *dev, struct doca_dev_rep *repr,
                                      const char *name, struct doca_comch_server **comch_server)
{
	struct comch_ep *ep;
	doca_error_t r;

	ODMA_CHECK_ARG(
	        dev != NULL && repr != NULL && name != NULL && comch_server != NULL,
	        "doca_comch_server_create: dev, repr, name and comch_server must not be NULL");
	r = comch_check_name(name, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	if (doca_comch_cap_server_is_supported(dev->info) != DOCA_SUCCESS) {
		ODMA_ERR("doca_comch_server_create: device %s cannot host a Comch server (a server "
		         "runs on a DPU-side device with Comch; clients run on the host)",
		         dev->info->pci_addr);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	/*
	 * found by address, never read: a closed handle is freed on hardware; held until the
	 * destroy, so that its last doca_dev_rep_close is refused (IN_USE) meanwhile
	 */
	if (!doca_priv_dev_rep_hold(repr)) {
		ODMA_ERR("doca_comch_server_create: representor %p is not open (its last "
		         "doca_dev_rep_close ran, or it is no handle of doca_dev_rep_open)",
		         (void *)repr);
		return DOCA_ERROR_INVALID_VALUE;
	}
	r = server_create_ep(dev, repr, name, &ep);
	if (r != DOCA_SUCCESS) {
		doca_priv_dev_rep_release(repr);
		return r;
	}
	ep->rep = repr;
	*comch_server = odma_container_of(ep, struct doca_comch_server, ep);
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_server_destroy(struct doca_comch_server *comch_server)
{
	struct doca_dev_rep *rep;
	doca_error_t r;

	ODMA_CHECK_ARG(comch_server != NULL,
	               "doca_comch_server_destroy: comch_server must not be NULL");
	rep = comch_server->ep.rep;
	r = comch_ep_destroy(&comch_server->ep, __func__);
	if (r == DOCA_SUCCESS)
		doca_priv_dev_rep_release(rep); /* held since the create */
	return r;
}

COMCH_EP_API(server)

ODMA_GETTER(doca_comch_server_get_device_rep, const struct doca_comch_server, comch_server,
            struct doca_dev_rep *, rep, comch_server->ep.rep)

doca_error_t doca_comch_server_disconnect(struct doca_comch_server *comch_server,
                                          struct doca_comch_connection *connection)
{
	struct comch_ep *ep;
	bool busy;

	ODMA_CHECK_ARG(comch_server != NULL && connection != NULL,
	               "doca_comch_server_disconnect: NULL argument");
	ep = &comch_server->ep;
	if (!comch_ep_owns(ep, connection)) {
		ODMA_ERR("doca_comch_server_disconnect: connection %p is not a live connection of "
		         "server \"%s\"",
		         (void *)connection, ep->name);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ep->ctx.state != DOCA_CTX_STATE_RUNNING) {
		ODMA_ERR("doca_comch_server_disconnect: server \"%s\" is not RUNNING", ep->name);
		return DOCA_ERROR_BAD_STATE;
	}
	pthread_mutex_lock(&connection->lock);
	busy = connection->lcons.n != 0 || connection->lprod.n != 0;
	pthread_mutex_unlock(&connection->lock);
	if (busy) {
		ODMA_ERR("doca_comch_server_disconnect: producers or consumers still exist on "
		         "connection %p; stop and destroy them first",
		         (void *)connection);
		return DOCA_ERROR_IN_USE;
	}
	if (comch_conn_disconnect(connection) == DOCA_ERROR_AGAIN) {
		ODMA_DBG("doca_comch_server_disconnect: connection %p: its socket is full (the "
		         "peer reads slowly); the disconnect message waits, call again later",
		         (void *)connection);
		return DOCA_ERROR_AGAIN;
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_server_event_connection_status_changed_register(
        struct doca_comch_server *comch_server,
        doca_comch_event_connection_status_changed_cb_t connect_event_cb,
        doca_comch_event_connection_status_changed_cb_t disconnect_event_cb)
{
	ODMA_CHECK_ARG(comch_server != NULL && connect_event_cb != NULL &&
	                       disconnect_event_cb != NULL,
	               "doca_comch_server_event_connection_status_changed_register: "
	               "both callbacks are required");
	if (comch_ep_check_idle(&comch_server->ep, "the connection callbacks") != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	comch_server->ep.connect_cb = connect_event_cb;
	comch_server->ep.disconnect_cb = disconnect_event_cb;
	return DOCA_SUCCESS;
}
