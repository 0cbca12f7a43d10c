/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * doca_dma_copy's control channel over DOCA Comch (contract in dma_copy_chan.h): a server
 * on the DPU side, a client on the host side, one progress engine each. Received messages
 * are copied into a small queue by the receive callback; every wait progresses the engine
 * against a deadline.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_log.h>
#include <doca_pe.h>

#include "dma_copy.h"

DOCA_LOG_REGISTER(DMA_COPY_CHAN);

#define DC_QUEUE 16 /* messages received and not read yet (the protocol needs two) */
#define DC_SEND_TASKS 32
#define DC_SEND_WAIT_MS 10000 /* how long a send waits for room in the peer's queue */
#define DC_AWAY 8 /* turned-away clients whose disconnection waits for room for its BYE */

struct dc_msg {
	uint32_t len;
	uint8_t bytes[DC_MAX_MSG];
};

struct dc_chan {
	bool server;
	bool nvidia;
	struct doca_pe *pe;
	struct doca_dev_rep *rep;
	struct doca_comch_server *srv;
	struct doca_comch_client *cli;
	struct doca_ctx *ctx;
	enum doca_ctx_states state;
	struct doca_comch_connection *conn;    /* the connection served (server) or used (client) */
	struct doca_comch_connection *pending; /* server: connected, nothing said yet */
	int64_t pending_since;
	/* server: clients turned away whose disconnect returned AGAIN, called again each pass */
	struct doca_comch_connection *away[DC_AWAY];
	uint32_t naway;
	bool lost;     /* the connection went away */
	bool overflow; /* more messages than the queue holds (a peer that ignores the protocol) */
	uint32_t sending; /* sends submitted and not completed */
	uint32_t max_msg;
	uint32_t qhead, qlen;
	struct dc_msg q[DC_QUEUE];
	char name[128];
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Disconnects a client this server does not serve. When its BYE cannot be queued yet
 * (DOCA_ERROR_AGAIN: a client that does not read) it is kept in c->away and chan_progress
 * calls again; past DC_AWAY such clients, one stays connected until it leaves or the server
 * closes.
 */
static void turn_away(struct dc_chan *c, struct doca_comch_connection *conn)
{
	if (doca_comch_server_disconnect(c->srv, conn) != DOCA_ERROR_AGAIN)
		return;
	if (c->naway < DC_AWAY) {
		c->away[c->naway++] = conn;
		return;
	}
	DOCA_LOG_WARN("cannot disconnect a client of \"%s\" that reads nothing yet (%d others "
	              "already wait for that); it stays connected until it leaves",
	              c->name, DC_AWAY);
}

/* Forgets @conn in c->away (it left; its handle is no longer valid). */
static void away_forget(struct dc_chan *c, const struct doca_comch_connection *conn)
{
	for (uint32_t i = 0; i < c->naway; i++)
		if (c->away[i] == conn) {
			c->away[i] = c->away[--c->naway];
			return;
		}
}

/* One progress call; a short sleep when nothing happened. Then the turned-away clients. */
static void chan_progress(struct dc_chan *c)
{
	struct doca_comch_connection *away[DC_AWAY];
	uint32_t n;

	if (doca_pe_progress(c->pe) == 0)
		nanosleep(&(struct timespec){ 0, 20000 }, NULL);
	n = c->naway;
	memcpy(away, c->away, n * sizeof(away[0]));
	c->naway = 0;
	for (uint32_t i = 0; i < n; i++)
		turn_away(c, away[i]);
}

static struct dc_chan *chan_of_conn(struct doca_comch_connection *conn)
{
	struct doca_comch_server *s = doca_comch_server_get_server_ctx(conn);
	union doca_data ud = { .ptr = NULL };

	doca_ctx_get_user_data(s ? doca_comch_server_as_ctx(s)
	                         : doca_comch_client_as_ctx(doca_comch_client_get_client_ctx(conn)),
	                       &ud);
	return ud.ptr;
}

static void on_state(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
                     enum doca_ctx_states next)
{
	struct dc_chan *c = ud.ptr;

	(void)ctx;
	(void)prev;
	c->state = next;
	if (!c->server && next != DOCA_CTX_STATE_RUNNING && c->conn != NULL)
		c->lost = true; /* a client stops by itself when its server goes away */
}

static void on_sent(struct doca_comch_task_send *t, union doca_data tud, union doca_data cud)
{
	struct dc_chan *c = cud.ptr;

	(void)tud;
	c->sending--;
	doca_task_free(doca_comch_task_send_as_task(t));
}

static void on_send_error(struct doca_comch_task_send *t, union doca_data tud, union doca_data cud)
{
	struct dc_chan *c = cud.ptr;

	(void)tud;
	c->sending--;
	c->lost = true;
	doca_task_free(doca_comch_task_send_as_task(t));
}

static void on_recv(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len,
                    struct doca_comch_connection *conn)
{
	struct dc_chan *c = chan_of_conn(conn);
	struct dc_msg *m;

	(void)ev;
	if (c->server && conn == c->pending) { /* its first word: this client is served */
		c->conn = conn;
		c->pending = NULL;
	}
	if (conn != c->conn)
		return; /* a client being turned away */
	if (c->qlen == DC_QUEUE || len > DC_MAX_MSG) {
		c->overflow = true;
		return;
	}
	m = &c->q[(c->qhead + c->qlen++) % DC_QUEUE];
	m->len = len;
	memcpy(m->bytes, buf, len);
}

/*
 * Sends on @conn through the endpoint, waiting for a task or for room at most @wait_ms; with
 * @wait_ms <= 0 (from a callback, which may not progress its PE) one try only.
 */
static doca_error_t send_on(struct dc_chan *c, struct doca_comch_connection *conn, const void *msg,
                            uint32_t len, int wait_ms)
{
	int64_t deadline = now_ms() + wait_ms;
	struct doca_comch_task_send *t;
	doca_error_t r;

	for (;;) {
		r = c->server ? doca_comch_server_task_send_alloc_init(c->srv, conn, msg, len, &t)
		              : doca_comch_client_task_send_alloc_init(c->cli, conn, msg, len, &t);
		if (r == DOCA_SUCCESS) {
			r = doca_task_submit(doca_comch_task_send_as_task(t));
			if (r == DOCA_SUCCESS)
				c->sending++;
			else
				doca_task_free(doca_comch_task_send_as_task(t));
		}
		if ((r != DOCA_ERROR_NO_MEMORY && r != DOCA_ERROR_AGAIN) || wait_ms <= 0 ||
		    now_ms() > deadline)
			return r;
		chan_progress(c); /* a free task, or room in the peer's receive queue */
	}
}

static void on_connect(struct doca_comch_event_connection_status_changed *ev,
                       struct doca_comch_connection *conn, uint8_t ok)
{
	struct dc_chan *c = chan_of_conn(conn);
	uint32_t busy = DC_MSG_X_BUSY;

	(void)ev;
	if (!ok)
		return;
	if (c->conn == NULL && c->pending == NULL) {
		c->pending = conn;
		c->pending_since = now_ms();
		return;
	}
	DOCA_LOG_WARN("another host connected to \"%s\" while this DPU side serves one; "
	              "told it to retry later",
	              c->name);
	(void)send_on(c, conn, &busy, sizeof(busy), 0);
	turn_away(c, conn);
}

static void on_disconnect(struct doca_comch_event_connection_status_changed *ev,
                          struct doca_comch_connection *conn, uint8_t ok)
{
	struct dc_chan *c = chan_of_conn(conn);

	(void)ev;
	(void)ok;
	away_forget(c, conn);
	if (conn == c->conn)
		c->lost = true;
	if (conn == c->pending) {
		DOCA_LOG_DBG("a client of \"%s\" left without a message", c->name);
		c->pending = NULL;
	}
}

static struct dc_chan *chan_new(bool server, const char *name)
{
	struct dc_chan *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->server = server;
	snprintf(c->name, sizeof(c->name), "%s", name);
	if (doca_pe_create(&c->pe) != DOCA_SUCCESS) {
		free(c);
		return NULL;
	}
	return c;
}

/* Message size and receive queue: ours, within the device's caps. */
static doca_error_t chan_limits(struct dc_chan *c, struct doca_dev *dev)
{
	uint32_t cap = 0, q = 0;
	doca_error_t r = doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(dev), &cap);

	if (r == DOCA_SUCCESS)
		r = doca_comch_cap_get_max_recv_queue_size(doca_dev_as_devinfo(dev), &q);
	if (r != DOCA_SUCCESS)
		return r;
	c->max_msg = cap < DC_MAX_MSG ? cap : DC_MAX_MSG;
	if (c->server)
		return (r = doca_comch_server_set_max_msg_size(c->srv, c->max_msg))
		               ? r
		               : doca_comch_server_set_recv_queue_size(c->srv,
		                                                       q < DC_QUEUE ? q : DC_QUEUE);
	return (r = doca_comch_client_set_max_msg_size(c->cli, c->max_msg))
	               ? r
	               : doca_comch_client_set_recv_queue_size(c->cli, q < DC_QUEUE ? q : DC_QUEUE);
}

static doca_error_t open_rep(struct doca_dev *dev, const char *rep_pci, struct doca_dev_rep **rep)
{
	struct doca_devinfo_rep **list = NULL;
	uint32_t n = 0;
	doca_error_t r = doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &list, &n);

	*rep = NULL;
	for (uint32_t i = 0; r == DOCA_SUCCESS && i < n && *rep == NULL; i++) {
		uint8_t is = 0;

		if (rep_pci == NULL || rep_pci[0] == '\0' ||
		    (doca_devinfo_rep_is_equal_pci_addr(list[i], rep_pci, &is) == DOCA_SUCCESS &&
		     is))
			r = doca_dev_rep_open(list[i], rep);
	}
	if (list != NULL)
		doca_devinfo_rep_destroy_list(list);
	if (r == DOCA_SUCCESS && *rep == NULL)
		r = DOCA_ERROR_NOT_FOUND;
	if (r != DOCA_SUCCESS)
		DC_ERR("no network representor %s on the DPU device (check --rep-pci; doca_caps "
		       "--list-rep-devs lists them): %s",
		       rep_pci != NULL && rep_pci[0] ? rep_pci : "at all", doca_error_get_descr(r));
	return r;
}

doca_error_t dc_chan_listen(struct doca_dev *dev, const char *rep_pci, const char *name,
                            struct dc_chan **srv)
{
	struct dc_chan *c = chan_new(true, name);
	union doca_data ud;
	doca_error_t r;

	if (c == NULL)
		return DOCA_ERROR_NO_MEMORY;
	ud.ptr = c;
	if ((r = open_rep(dev, rep_pci, &c->rep)))
		goto fail;
	if ((r = doca_comch_server_create(dev, c->rep, name, &c->srv))) {
		DC_ERR("cannot create the Comch server \"%s\": %s", name, doca_error_get_descr(r));
		goto fail;
	}
	c->ctx = doca_comch_server_as_ctx(c->srv);
	if ((r = chan_limits(c, dev)) || (r = doca_ctx_set_user_data(c->ctx, ud)) ||
	    (r = doca_ctx_set_state_changed_cb(c->ctx, on_state)) ||
	    (r = doca_comch_server_task_send_set_conf(c->srv, on_sent, on_send_error,
	                                              DC_SEND_TASKS)) ||
	    (r = doca_comch_server_event_msg_recv_register(c->srv, on_recv)) ||
	    (r = doca_comch_server_event_connection_status_changed_register(c->srv, on_connect,
	                                                                    on_disconnect)) ||
	    (r = doca_pe_connect_ctx(c->pe, c->ctx))) {
		DC_ERR("cannot configure the Comch server: %s", doca_error_get_descr(r));
		goto fail;
	}
	r = doca_ctx_start(c->ctx);
	if (r == DOCA_ERROR_ALREADY_EXIST) {
		DC_ERR("another DPU side is already serving \"%s\" on this representor; "
		       "refusing to take it over (stop it, or choose another --server-name)",
		       name);
		goto fail;
	}
	if (r != DOCA_SUCCESS) {
		DC_ERR("cannot start the Comch server \"%s\": %s", name, doca_error_get_descr(r));
		goto fail;
	}
	*srv = c;
	return DOCA_SUCCESS;
fail:
	dc_chan_close(c, 0);
	return r;
}

doca_error_t dc_chan_accept(struct dc_chan *c, int timeout_ms)
{
	while (c->conn == NULL) {
		if (c->state != DOCA_CTX_STATE_RUNNING) {
			DC_ERR("the Comch server \"%s\" stopped", c->name);
			return DOCA_ERROR_IO_FAILED;
		}
		if (c->pending != NULL && timeout_ms > 0 &&
		    now_ms() - c->pending_since > timeout_ms) {
			DOCA_LOG_WARN(
			        "a client connected to \"%s\" but sent nothing for %d s; dropped "
			        "it and waiting for the next",
			        c->name, timeout_ms / 1000);
			turn_away(c, c->pending);
			c->pending = NULL;
		}
		chan_progress(c);
	}
	return DOCA_SUCCESS;
}

doca_error_t dc_chan_connect(struct doca_dev *dev, const char *name, int timeout_ms,
                             struct dc_chan **cli)
{
	struct dc_chan *c = chan_new(false, name);
	int64_t deadline = timeout_ms > 0 ? now_ms() + timeout_ms : 0;
	union doca_data ud;
	doca_error_t r;

	if (c == NULL)
		return DOCA_ERROR_NO_MEMORY;
	ud.ptr = c;
	if ((r = doca_comch_client_create(dev, name, &c->cli))) {
		DC_ERR("cannot create a Comch client for \"%s\": %s", name,
		       doca_error_get_descr(r));
		goto fail;
	}
	c->ctx = doca_comch_client_as_ctx(c->cli);
	if ((r = chan_limits(c, dev)) || (r = doca_ctx_set_user_data(c->ctx, ud)) ||
	    (r = doca_ctx_set_state_changed_cb(c->ctx, on_state)) ||
	    (r = doca_comch_client_task_send_set_conf(c->cli, on_sent, on_send_error,
	                                              DC_SEND_TASKS)) ||
	    (r = doca_comch_client_event_msg_recv_register(c->cli, on_recv)) ||
	    (r = doca_pe_connect_ctx(c->pe, c->ctx))) {
		DC_ERR("cannot configure the Comch client: %s", doca_error_get_descr(r));
		goto fail;
	}
	r = doca_ctx_start(c->ctx);
	if (r != DOCA_ERROR_IN_PROGRESS && r != DOCA_SUCCESS) {
		DC_ERR("cannot start the Comch client: %s", doca_error_get_descr(r));
		goto fail;
	}
	while (c->state != DOCA_CTX_STATE_RUNNING && c->state != DOCA_CTX_STATE_IDLE &&
	       (deadline == 0 || now_ms() < deadline))
		chan_progress(c);
	if (c->state != DOCA_CTX_STATE_RUNNING ||
	    doca_comch_client_get_connection(c->cli, &c->conn) != DOCA_SUCCESS) {
		DC_ERR("cannot reach the DPU side (Comch server \"%s\"); start `ODMA_SIDE=dpu "
		       "doca_dma_copy` first (the DPU is the server), with the same "
		       "ODMA_SYSTEM and ODMA_RUNDIR",
		       name);
		r = DOCA_ERROR_NOT_CONNECTED;
		goto fail;
	}
	*cli = c;
	return DOCA_SUCCESS;
fail:
	dc_chan_close(c, 0);
	return r;
}

doca_error_t dc_chan_send(struct dc_chan *c, const void *msg, uint32_t len)
{
	doca_error_t r;

	if (c->conn == NULL || c->lost)
		return DOCA_ERROR_CONNECTION_RESET;
	r = send_on(c, c->conn, msg, len, DC_SEND_WAIT_MS);
	if (r == DOCA_SUCCESS)
		return r;
	if (r != DOCA_ERROR_NOT_CONNECTED && r != DOCA_ERROR_BAD_STATE)
		DOCA_LOG_ERR("cannot send a control message: %s", doca_error_get_descr(r));
	c->lost = true;
	return DOCA_ERROR_CONNECTION_RESET;
}

doca_error_t dc_chan_recv(struct dc_chan *c, void *msg, uint32_t max, uint32_t *len, int timeout_ms)
{
	int64_t deadline = timeout_ms > 0 ? now_ms() + timeout_ms : 0;

	for (;;) {
		if (c->overflow) {
			DOCA_LOG_ERR(
			        "the peer sent more control messages than the protocol allows");
			return DOCA_ERROR_INVALID_VALUE;
		}
		if (c->qlen > 0) {
			struct dc_msg *m = &c->q[c->qhead];

			c->qhead = (c->qhead + 1) % DC_QUEUE;
			c->qlen--;
			if (m->len < sizeof(uint32_t) || m->len > max) {
				DOCA_LOG_ERR("malformed control message from \"%s\" (%u bytes)",
				             c->name, m->len);
				return DOCA_ERROR_INVALID_VALUE;
			}
			/* Only a server says busy; from a client it is just an unexpected type. */
			if (!c->server && dc_msg_type(m->bytes) == DC_MSG_X_BUSY)
				return DOCA_ERROR_IN_USE;
			memcpy(msg, m->bytes, m->len);
			*len = m->len;
			return DOCA_SUCCESS;
		}
		if (c->conn == NULL || c->lost)
			return DOCA_ERROR_CONNECTION_RESET;
		if (deadline > 0 && now_ms() >= deadline)
			return DOCA_ERROR_TIME_OUT;
		chan_progress(c);
	}
}

void dc_chan_set_nvidia(struct dc_chan *c, bool nvidia)
{
	if (c != NULL)
		c->nvidia = nvidia;
}

bool dc_chan_nvidia(const struct dc_chan *c)
{
	return c != NULL && c->nvidia;
}

void dc_chan_close(struct dc_chan *c, int linger_ms)
{
	int64_t end;

	if (c == NULL)
		return;
	/*
	 * The last message (the receiver's final X_STATUS) leaves before the context stops: a
	 * stop flushes the sends still queued, and the peer would see only the disconnect.
	 */
	end = now_ms() + DC_SEND_WAIT_MS;
	while (c->sending > 0 && !c->lost && now_ms() < end && c->state == DOCA_CTX_STATE_RUNNING)
		chan_progress(c);
	if (c->server && c->conn != NULL && linger_ms > 0) {
		end = now_ms() + linger_ms;
		while (!c->lost && now_ms() < end && c->state == DOCA_CTX_STATE_RUNNING)
			chan_progress(c);
	}
	if (c->ctx != NULL) {
		doca_error_t r = doca_ctx_stop(c->ctx);

		end = now_ms() + 5000;
		while ((r == DOCA_ERROR_IN_PROGRESS || c->state != DOCA_CTX_STATE_IDLE) &&
		       now_ms() < end) {
			chan_progress(c);
			r = DOCA_SUCCESS;
		}
	}
	if (c->srv != NULL)
		doca_comch_server_destroy(c->srv);
	if (c->cli != NULL)
		doca_comch_client_destroy(c->cli);
	if (c->rep != NULL)
		doca_dev_rep_close(c->rep);
	doca_pe_destroy(c->pe);
	free(c);
}
