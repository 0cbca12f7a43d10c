/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Comch clients: connecting from the client's progress (retrying until
 * ODMA_COMCH_CONNECT_TIMEOUT_MS), the server's answer (RUNNING on WELCOME), the client's
 * context ops and its public API.
 */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>

#include "comch/comch.h"
#include "core/error/error.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(DOCA_COMCH)

/* ---- client ---------------------------------------------------------------------------- */

static doca_error_t client_start(struct doca_ctx *ctx)
{
	struct comch_ep *ep = comch_ep_of(ctx);
	uint32_t timeout_ms;
	doca_error_t r;

	if (comch_connect_timeout_ms(&timeout_ms) != DOCA_SUCCESS)
		return DOCA_ERROR_INVALID_VALUE; /* logged by the config module */
	if (ep->conn != NULL) {
		if (atomic_load(&ep->conn->refs) > 1) {
			ODMA_ERR("comch client %p: producers or consumers of the previous "
			         "connection still exist; destroy them before restarting",
			         (void *)ep);
			return DOCA_ERROR_IN_USE;
		}
		comch_conn_put(ep->conn);
		ep->conn = NULL;
	}
	r = comch_ep_start_common(ep);
	if (r != DOCA_SUCCESS)
		return r;
	ep->link = comch_shm_create(COMCH_LINK_BYTES, &ep->link_fd, "odma-comch-link");
	if (ep->link == NULL) {
		ODMA_ERR("comch client \"%s\": cannot create the shared link page: %s", ep->name,
		         strerror(errno));
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	ep->link->magic = COMCH_LINK_MAGIC;
	ep->timeout_ms = timeout_ms;
	ep->deadline_ns = doca_priv_now_ns() + (uint64_t)ep->timeout_ms * 1000000ull;
	ep->next_try_ns = 0;
	ep->last_errno = 0;
	ODMA_DBG("comch client \"%s\": connecting through %s (device %s, system %s)", ep->name,
	         ep->path, ctx->dev->info->pci_addr, ep->system_name);
	return DOCA_ERROR_IN_PROGRESS;
}

static void client_fail_start(struct comch_ep *ep)
{
	comch_ep_release_io(ep);
	doca_priv_ctx_set_state(&ep->ctx, DOCA_CTX_STATE_IDLE);
}

/* The HELLO of this client into @buf; its length. */
static size_t client_hello(struct comch_ep *ep, uint8_t *buf)
{
	struct comch_hello *h = (struct comch_hello *)buf;
	size_t nlen = strlen(ep->name);

	memset(h, 0, sizeof(*h));
	h->magic = COMCH_WIRE_MAGIC;
	h->version = COMCH_WIRE_VERSION;
	h->max_msg = ep->max_msg;
	h->recv_queue = ep->recv_queue;
	h->name_len = (uint32_t)nlen;
	h->system_id = ep->system_id;
	snprintf(h->pci, sizeof(h->pci), "%s", ep->ctx.dev->info->pci_addr);
	memcpy(buf + sizeof(*h), ep->name, nlen);
	return sizeof(*h) + nlen;
}

/*
 * One attempt to reach the server, with each carrier the configuration asks for in turn (the
 * runtime directory's socket, then ODMA_FABRIC); false when none took the HELLO.
 */
static bool client_try_connect(struct comch_ep *ep, uint64_t now)
{
	uint8_t buf[sizeof(struct comch_hello) + COMCH_NAME_MAX];
	size_t len = client_hello(ep, buf);

	for (const struct comch_carrier *const *c = comch_carriers; *c != NULL; c++) {
		int err = 0;

		if ((*c)->wanted != NULL && !(*c)->wanted())
			continue;
		ep->next_try_ns = now + (uint64_t)(*c)->retry_ms * 1000000ull;
		ep->cch = (*c)->connect(ep, buf, len, &err);
		if (ep->cch != NULL)
			return true;
		if (err == COMCH_UNTRUSTED) {
			client_fail_start(ep);
			return false;
		}
		if (err != 0)
			ep->last_errno = err;
	}
	return false;
}

/*
 * The server went away during the handshake: what the receive returned (@n) was no WELCOME.
 * The channel is dropped, to try again until the deadline.
 */
static void client_lost(struct comch_ep *ep, ssize_t n)
{
	struct comch_chan *ch = ep->cch;

	ep->last_errno = n == 0 ? ch->car->lost_errno : EPROTO;
	comch_ep_free_chan(ep, ch);
	ep->cch = NULL;
}

/*
 * The connection a valid WELCOME @w makes of the client's channel, which it takes with its
 * watch and its credit page; NULL when it could not be made.
 */
static struct doca_comch_connection *client_conn_new(struct comch_ep *ep,
                                                     const struct comch_welcome *w)
{
	struct comch_chan *ch = ep->cch;
	struct doca_comch_connection *conn;

	if (ch->link == NULL) { /* the page this client made went along with its HELLO */
		ch->link = ep->link;
		ep->link = NULL;
	}
	conn = comch_conn_new(ep, ch, COMCH_SIDE_CLIENT,
	                      ep->max_msg < w->max_msg ? ep->max_msg : w->max_msg, w->recv_queue);
	if (conn == NULL)
		return NULL;
	conn->watch = ch->watched ? EPOLLIN : 0; /* the watch goes with the descriptor */
	ep->cch = NULL;                          /* owned by the connection */
	if (ep->link != NULL) /* a page of its own serves the credits (across machines) */
		munmap(ep->link, COMCH_LINK_BYTES);
	ep->link = NULL;
	close(ep->link_fd);
	ep->link_fd = -1;
	return conn;
}

/* The server's answer: RUNNING on WELCOME, IDLE on REJECT. */
static bool client_answer(struct comch_ep *ep)
{
	struct comch_chan *ch = ep->cch;
	const struct comch_wire_hdr *hdr = (const void *)ep->rx;
	int pfd = -1;
	ssize_t n = ch->car->recv(ch, ep->rx, ep->rx_cap, &pfd);
	struct comch_welcome w;
	struct doca_comch_connection *conn;

	if (pfd >= 0)
		close(pfd);
	if (n == -EAGAIN)
		return false;
	if (n >= (ssize_t)sizeof(*hdr) && hdr->type == COMCH_W_REJECT) {
		char why[256];

		comch_peer_text(ep->rx + sizeof(*hdr), (size_t)(n - (ssize_t)sizeof(*hdr)), why,
		                sizeof(why));
		ODMA_ERR("comch client \"%s\": server on system %s refused the connection: %s (%s)",
		         ep->name, ep->system_name, why,
		         doca_error_get_name((doca_error_t)hdr->arg));
		client_fail_start(ep);
		return true;
	}
	if (n < (ssize_t)(sizeof(*hdr) + sizeof(w)) || hdr->type != COMCH_W_WELCOME) {
		client_lost(ep, n);
		return true;
	}
	memcpy(&w, ep->rx + sizeof(*hdr), sizeof(w));
	if (w.magic != COMCH_WIRE_MAGIC || w.max_msg == 0 || w.recv_queue == 0) {
		ODMA_ERR("comch client \"%s\": the server's WELCOME is malformed", ep->name);
		client_fail_start(ep);
		return true;
	}
	conn = client_conn_new(ep, &w);
	if (conn == NULL) {
		client_fail_start(ep);
		return true;
	}
	ep->conn = conn;
	ODMA_DBG("comch client \"%s\": connected to the server (%s); max message %u bytes",
	         ep->name, comch_conn_who(conn).s, conn->max_msg);
	doca_priv_ctx_set_state(&ep->ctx, DOCA_CTX_STATE_RUNNING);
	return true;
}

/* A STARTING client's progress: connect, send HELLO, await the server's answer. */
static bool client_connecting(struct comch_ep *ep)
{
	uint64_t now = doca_priv_now_ns();

	if (ep->cch == NULL && now >= ep->next_try_ns && !client_try_connect(ep, now) &&
	    ep->ctx.state != DOCA_CTX_STATE_STARTING)
		return true; /* refused the server */
	if (ep->cch != NULL && client_answer(ep))
		return true;
	if (ep->ctx.state == DOCA_CTX_STATE_STARTING && now >= ep->deadline_ns) {
		const char *fab = doca_priv_config_string("ODMA_FABRIC");

		ODMA_ERR("comch client: no server named \"%s\" answered within %u ms on emulated "
		         "system %s for host device %s (socket %s%s%s: %s). Start the DPU side "
		         "first (a doca_comch_server on the representor of %s, ODMA_SIDE=dpu) with "
		         "the same ODMA_SYSTEM and ODMA_RUNDIR%s, or raise "
		         "ODMA_COMCH_CONNECT_TIMEOUT_MS",
		         ep->name, ep->timeout_ms, ep->system_name, ep->ctx.dev->info->pci_addr,
		         ep->path, fab ? ", then ODMA_FABRIC " : "", fab ? fab : "",
		         ep->last_errno ? strerror(ep->last_errno) : "no answer",
		         ep->ctx.dev->info->pci_addr,
		         fab ? " (or the same ODMA_FABRIC, with a route to it)" : "");
		client_fail_start(ep);
		return true;
	}
	return false;
}

/* ---- the client's context ops ------------------------------------------------------------ */

static bool client_progress(struct doca_ctx *ctx)
{
	struct comch_ep *ep = comch_ep_of(ctx);
	bool any = false;

	ep->dispatch++;
	if (ctx->state == DOCA_CTX_STATE_STARTING)
		any = client_connecting(ep);
	else if (ep->conn != NULL)
		any = comch_ep_conn_step(ep, ep->conn);
	ep->dispatch--;
	return any;
}

static uint64_t client_arm(struct doca_ctx *ctx)
{
	struct comch_ep *ep = comch_ep_of(ctx);

	if (ctx->state == DOCA_CTX_STATE_IDLE)
		return ODMA_WAKE_NEVER; /* nothing is watched: released at the stop */
	if (ctx->state == DOCA_CTX_STATE_STARTING) {
		/*
		 * the answer arrives on the channel; before there is one, the next attempt is due
		 */
		if (ep->cch == NULL)
			return comch_min_ns(ep->next_try_ns, ep->deadline_ns);
		comch_ep_watch(ep, ep->cch->fd, &ep->cch->watched);
		return ep->deadline_ns;
	}
	return ep->conn != NULL ? comch_ep_arm_conn(ep, ep->conn) : ODMA_WAKE_NEVER;
}

static void client_stop(struct doca_ctx *ctx)
{
	struct comch_ep *ep = comch_ep_of(ctx);

	if (ctx->state == DOCA_CTX_STATE_STARTING) {
		comch_ep_release_io(ep);
		return;
	}
	if (ep->conn != NULL)
		comch_conn_close(ep->conn, DOCA_ERROR_IO_FAILED);
}

static bool client_idle_ready(const struct doca_ctx *ctx)
{
	const struct comch_ep *ep = comch_ep_of(ctx);

	if (ep->dispatch > 0)
		return false; /* a callback of ours is running: IDLE comes from the next progress */
	return ep->conn == NULL || ep->conn->settled; /* its end handled, its last sends out */
}

static const struct odma_ctx_ops client_ops = {
	.name = "COMCH_CLIENT",
	.task_size = sizeof(struct doca_comch_task_send),
	.start = client_start,
	.complete = comch_send_complete,
	.task_free = comch_send_free,
	.submit = comch_send_submit,
	.progress = client_progress,
	.stop = client_stop,
	.idle_ready = client_idle_ready,
	.no_task_conf = true,
	.arm = client_arm,
};

/* ---- what shared code asks of a client --------------------------------------------------- */

static bool client_owns(const struct comch_ep *ep, const struct doca_comch_connection *conn)
{
	return conn == ep->conn;
}

static void client_conn_ended(struct comch_ep *ep, struct doca_comch_connection *conn, int end)
{
	if (ep->ctx.state != DOCA_CTX_STATE_RUNNING)
		return;
	if (end == COMCH_END_PEER && conn->orderly)
		ODMA_INFO("comch client \"%s\": the server disconnected this client; "
		          "the client context stops",
		          ep->name);
	/* no client-side disconnect event exists: the client context stops by itself */
	doca_priv_ctx_set_state(&ep->ctx, DOCA_CTX_STATE_STOPPING);
}

static bool client_fastpath_busy(const struct comch_ep *ep)
{
	return ep->conn != NULL && atomic_load(&ep->conn->refs) > 1;
}

static const char *client_rep_pci(const struct comch_ep *ep)
{
	return ep->ctx.dev->info->pci_addr;
}

const struct comch_side comch_client_side = {
	.kind = "client",
	.owns = client_owns,
	.conn_ended = client_conn_ended,
	.fastpath_busy = client_fastpath_busy,
	.rep_pci = client_rep_pci,
};

/* ---- client API ------------------------------------------------------------------------ */

doca_error_t doca_comch_client_create(struct doca_dev *dev, const char *name,
                                      struct doca_comch_client **comch_client)
{
	struct comch_ep *ep;
	doca_error_t r;

	ODMA_CHECK_ARG(dev != NULL && name != NULL && comch_client != NULL,
	               "doca_comch_client_create: dev, name and comch_client must not be NULL");
	r = comch_check_name(name, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	if (doca_comch_cap_client_is_supported(dev->info) != DOCA_SUCCESS) {
		ODMA_ERR("doca_comch_client_create: device %s cannot host a Comch client (a client "
		         "runs on a host-side device with Comch; servers run on the DPU)",
		         dev->info->pci_addr);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	r = comch_ep_create(dev, name, &comch_client_side, &client_ops, &ep);
	if (r != DOCA_SUCCESS)
		return r;
	*comch_client = odma_container_of(ep, struct doca_comch_client, ep);
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_client_destroy(struct doca_comch_client *comch_client)
{
	ODMA_CHECK_ARG(comch_client != NULL,
	               "doca_comch_client_destroy: comch_client must not be NULL");
	return comch_ep_destroy(&comch_client->ep, __func__);
}

COMCH_EP_API(client)

doca_error_t doca_comch_client_get_connection(const struct doca_comch_client *comch_client,
                                              struct doca_comch_connection **connection)
{
	ODMA_CHECK_ARG(comch_client != NULL && connection != NULL,
	               "doca_comch_client_get_connection: NULL argument");
	if (comch_client->ep.ctx.state != DOCA_CTX_STATE_RUNNING || comch_client->ep.conn == NULL) {
		ODMA_ERR("doca_comch_client_get_connection: client \"%s\" is not connected (not "
		         "RUNNING); progress its PE until the state callback reports RUNNING",
		         comch_client->ep.name);
		return DOCA_ERROR_BAD_STATE;
	}
	*connection = comch_client->ep.conn;
	return DOCA_SUCCESS;
}
