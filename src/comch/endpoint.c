/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * What Comch servers and clients share: capabilities, configuration, the send-task arena,
 * starting, teardown and the context ops (progress, stop, idle_ready). The server side is in
 * server.c, the client side in client.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "comch/comch.h"
#include "core/error/error.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(DOCA_COMCH)

/* ---- capabilities --------------------------------------------------------------------- */

doca_error_t comch_cap(const struct doca_devinfo *devinfo, uint32_t *out, uint32_t value,
                       const char *func)
{
	if (devinfo == NULL || out == NULL) {
		ODMA_ERR("%s: devinfo and the output pointer must not be NULL", func);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!devinfo->caps.comch) {
		ODMA_ERR("%s: device %s has no Comch (comch=no in its system profile)", func,
		         devinfo->pci_addr);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	*out = value;
	return DOCA_SUCCESS;
}

COMCH_CAP_GETTER(doca_comch_cap_get_max_name_len, COMCH_NAME_MAX)
COMCH_CAP_GETTER(doca_comch_cap_get_max_msg_size, devinfo->caps.comch_max_msg_size)
COMCH_CAP_GETTER(doca_comch_cap_get_max_recv_queue_size, devinfo->caps.comch_max_recv_queue)
COMCH_CAP_GETTER(doca_comch_cap_get_max_clients, devinfo->caps.comch_max_clients)
COMCH_CAP_GETTER(doca_comch_cap_get_max_send_tasks, devinfo->caps.comch_max_send_tasks)

static doca_error_t cap_side(const struct doca_devinfo *devinfo, enum odma_side side,
                             const char *func)
{
	if (devinfo == NULL) {
		ODMA_ERR("%s: devinfo must not be NULL", func);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return devinfo->caps.comch && devinfo->side == side ? DOCA_SUCCESS
	                                                    : DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_comch_cap_server_is_supported(const struct doca_devinfo *devinfo)
{
	return cap_side(devinfo, ODMA_SIDE_DPU, __func__);
}

doca_error_t doca_comch_cap_client_is_supported(const struct doca_devinfo *devinfo)
{
	return cap_side(devinfo, ODMA_SIDE_HOST, __func__);
}

/* ---- send-task message copies ---------------------------------------------------------- */

uint8_t *comch_task_msg(struct comch_ep *ep, const struct doca_comch_task_send *task)
{
	size_t idx =
	        (size_t)((const char *)task - (const char *)ep->ctx.pool) / ep->ctx.ops->task_size;

	return ep->arena + idx * ep->arena_slot;
}

/* One message slot per task of the pool (calloc: pages are touched only when used). */
static doca_error_t ep_arena_prepare(struct comch_ep *ep)
{
	uint32_t n = ep->ctx.num_tasks;

	if (ep->arena != NULL && ep->arena_n == n && ep->arena_slot == ep->max_msg)
		return DOCA_SUCCESS;
	free(ep->arena);
	ep->arena = NULL;
	ep->arena_n = 0;
	if (n == 0)
		return DOCA_SUCCESS;
	ep->arena = calloc(n, ep->max_msg);
	if (ep->arena == NULL) {
		ODMA_ERR("comch %s %p: no memory for %u messages of %u bytes", comch_ep_kind(ep),
		         (void *)ep, n, ep->max_msg);
		return DOCA_ERROR_NO_MEMORY;
	}
	ep->arena_n = n;
	ep->arena_slot = ep->max_msg;
	return DOCA_SUCCESS;
}

static doca_error_t ep_rx_prepare(struct comch_ep *ep)
{
	size_t need = sizeof(struct comch_wire_hdr) +
	              (ep->max_msg > sizeof(struct comch_hello) + COMCH_NAME_MAX
	                       ? ep->max_msg
	                       : sizeof(struct comch_hello) + COMCH_NAME_MAX) +
	              64;

	if (ep->rx != NULL && ep->rx_cap >= need)
		return DOCA_SUCCESS;
	free(ep->rx);
	ep->rx = malloc(need);
	if (ep->rx == NULL)
		return DOCA_ERROR_NO_MEMORY;
	ep->rx_cap = need;
	return DOCA_SUCCESS;
}

/* ---- common ------------------------------------------------------------------------------ */

/* Fills in a zeroed endpoint for @dev under @name; DOCA_SUCCESS, or the (logged) error. */
static doca_error_t comch_ep_init(struct comch_ep *ep, struct doca_dev *dev, const char *name,
                                  const struct comch_side *side, const struct odma_ctx_ops *ops)
{
	const struct odma_system *sys = doca_priv_system();
	doca_error_t r;

	if (sys == NULL) {
		ODMA_ERR("comch %s: no emulated system is loaded (check ODMA_SYSTEM / ODMA_SIDE)",
		         side->kind);
		return DOCA_ERROR_INITIALIZATION;
	}
	r = doca_priv_ctx_init(&ep->ctx, ops, dev);
	if (r != DOCA_SUCCESS)
		return r;
	/* send tasks queue behind the peer's receive queue, not the device's DMA queue */
	ep->ctx.queue_depth = UINT32_MAX;
	ep->side = side;
	snprintf(ep->name, sizeof(ep->name), "%s", name);
	ep->max_msg = dev->info->caps.comch_max_msg_size;
	ep->recv_queue = COMCH_DEFAULT_RECV_QUEUE < dev->info->caps.comch_max_recv_queue
	                         ? COMCH_DEFAULT_RECV_QUEUE
	                         : dev->info->caps.comch_max_recv_queue;
	ep->system_id = sys->id;
	ep->system_name = sys->name;
	ep->lfd = -1;
	ep->link_fd = -1;
	return DOCA_SUCCESS;
}

doca_error_t comch_ep_create(struct doca_dev *dev, const char *name, const struct comch_side *side,
                             const struct odma_ctx_ops *ops, struct comch_ep **out)
{
	struct comch_ep *ep = calloc(1, sizeof(*ep));
	doca_error_t r;

	if (ep == NULL)
		return DOCA_ERROR_NO_MEMORY;
	r = comch_ep_init(ep, dev, name, side, ops);
	if (r != DOCA_SUCCESS) {
		free(ep);
		return r;
	}
	*out = ep;
	return DOCA_SUCCESS;
}

doca_error_t comch_check_name(const char *name, const char *func)
{
	size_t len = strnlen(name, COMCH_NAME_MAX);

	if (len == 0 || len >= COMCH_NAME_MAX) {
		ODMA_ERR("%s: the server name must be 1..%u bytes "
		         "(doca_comch_cap_get_max_name_len counts the NUL)",
		         func, COMCH_NAME_MAX - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

doca_error_t comch_ep_check_idle(const struct comch_ep *ep, const char *what)
{
	if (ep->ctx.state == DOCA_CTX_STATE_IDLE)
		return DOCA_SUCCESS;
	ODMA_ERR("comch %s %p is not IDLE; %s can only be set before doca_ctx_start "
	         "(or after a full stop)",
	         comch_ep_kind(ep), (const void *)ep, what);
	return DOCA_ERROR_BAD_STATE;
}

/*
 * Sets *@field, the endpoint's @what, to @size: DOCA_ERROR_BAD_STATE unless the endpoint is
 * idle, DOCA_ERROR_INVALID_VALUE unless @size is 1..@cap (the answer of the getter @cap_fn);
 * each logged.
 */
static doca_error_t ep_set_size(struct comch_ep *ep, uint32_t *field, uint32_t size, uint32_t cap,
                                const char *what, const char *cap_fn)
{
	if (comch_ep_check_idle(ep, what) != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	ODMA_CHECK_ARG(size >= 1 && size <= cap, "comch %s: %s %u is outside 1..%u (%s)",
	               comch_ep_kind(ep), what, size, cap, cap_fn);
	*field = size;
	return DOCA_SUCCESS;
}

doca_error_t comch_ep_set_max_msg(struct comch_ep *ep, uint32_t size)
{
	return ep_set_size(ep, &ep->max_msg, size, ep->ctx.caps->comch_max_msg_size,
	                   "the max message size", "doca_comch_cap_get_max_msg_size");
}

doca_error_t comch_ep_set_recv_queue(struct comch_ep *ep, uint32_t size)
{
	return ep_set_size(ep, &ep->recv_queue, size, ep->ctx.caps->comch_max_recv_queue,
	                   "the receive queue size", "doca_comch_cap_get_max_recv_queue_size");
}

doca_error_t comch_ep_set_send_conf(struct comch_ep *ep, doca_comch_task_send_completion_cb_t ok,
                                    doca_comch_task_send_completion_cb_t err, uint32_t num)
{
	uint32_t cap = ep->ctx.caps->comch_max_send_tasks;

	ODMA_CHECK_ARG(ok != NULL && err != NULL, "comch %s: both send callbacks are required",
	               comch_ep_kind(ep));
	if (comch_ep_check_idle(ep, "the send task configuration") != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	ODMA_CHECK_ARG(
	        num >= 1 && num <= cap,
	        "comch %s: %u send tasks is outside 1..%u (doca_comch_cap_get_max_send_tasks)",
	        comch_ep_kind(ep), num, cap);
	ep->send_ok = ok;
	ep->send_err = err;
	ep->ctx.num_tasks = num;
	ep->ctx.configured = true;
	return DOCA_SUCCESS;
}

doca_error_t comch_ep_send_alloc(struct comch_ep *ep, struct doca_comch_connection *peer,
                                 const void *msg, uint32_t len, struct doca_comch_task_send **task,
                                 const char *func)
{
	struct doca_task *t;
	struct doca_comch_task_send *st;
	doca_error_t r;

	if (ep->ctx.state != DOCA_CTX_STATE_RUNNING) {
		ODMA_ERR("%s: comch %s %p is not RUNNING; send only on a running context", func,
		         comch_ep_kind(ep), (void *)ep);
		return DOCA_ERROR_BAD_STATE;
	}
	if (!comch_ep_owns(ep, peer)) {
		ODMA_ERR("%s: connection %p is not a connection of %s %p (or it was dropped)", func,
		         (void *)peer, comch_ep_kind(ep), (void *)ep);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (atomic_load_explicit(&peer->dead, memory_order_acquire)) {
		ODMA_ERR("%s: connection %p is closed; the peer went away", func, (void *)peer);
		return DOCA_ERROR_NOT_CONNECTED;
	}
	if (len == 0 || len > peer->max_msg) {
		ODMA_ERR("%s: message of %u bytes; a connection carries 1..%u bytes per message "
		         "(the smaller of both sides' max message size)",
		         func, len, peer->max_msg);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ep->send_ok == NULL) {
		ODMA_ERR("%s: send tasks are not configured; "
		         "call the task_send_set_conf function before start",
		         func);
		return DOCA_ERROR_BAD_STATE;
	}
	r = doca_priv_task_alloc(&ep->ctx, &t);
	if (r != DOCA_SUCCESS)
		return r;
	st = (struct doca_comch_task_send *)t;
	/* held until the task is freed: a connection reaped under it could be made again */
	comch_conn_get(peer);
	st->conn = peer;
	st->len = len;
	memcpy(comch_task_msg(ep, st), msg, len);
	*task = st;
	return DOCA_SUCCESS;
}

/* Frees what a started endpoint owns once it is IDLE (not its connections: see destroy). */
void comch_ep_release_io(struct comch_ep *ep)
{
	for (const struct comch_carrier *const *c = comch_carriers; *c != NULL; c++)
		(*c)->unlisten(ep);
	if (ep->cch != NULL) {
		comch_ep_free_chan(ep, ep->cch);
		ep->cch = NULL;
	}
	if (ep->link_fd >= 0) {
		close(ep->link_fd);
		ep->link_fd = -1;
	}
	if (ep->link != NULL)
		munmap(ep->link, COMCH_LINK_BYTES); /* not handed to a connection yet */
	ep->link = NULL;
}

/* Connections whose end was handled and that nothing else holds. */
void comch_ep_reap(struct comch_ep *ep, bool all)
{
	struct doca_comch_connection **pp = &ep->conns;

	while (*pp != NULL) {
		struct doca_comch_connection *c = *pp;

		if (all || (c->settled && atomic_load(&c->refs) == 1)) {
			*pp = c->next;
			comch_conn_put(c);
			continue;
		}
		pp = &c->next;
	}
}

doca_error_t comch_ep_destroy(struct comch_ep *ep, const char *func)
{
	doca_error_t r;

	if (ep->ctx.state == DOCA_CTX_STATE_IDLE && ep->side->fastpath_busy(ep)) {
		ODMA_ERR("%s: producers or consumers still exist on a connection of %s %p; "
		         "destroy them first",
		         func, comch_ep_kind(ep), (void *)ep);
		return DOCA_ERROR_IN_USE;
	}
	r = doca_priv_ctx_destroy(&ep->ctx);
	if (r != DOCA_SUCCESS)
		return r;
	comch_ep_release_io(ep);
	comch_ep_reap(ep, true);
	if (ep->conn != NULL)
		comch_conn_put(ep->conn);
	free(ep->arena);
	free(ep->rx);
	free(ep);
	return DOCA_SUCCESS;
}

bool comch_ep_owns(const struct comch_ep *ep, const struct doca_comch_connection *conn)
{
	return conn != NULL && ep->side->owns(ep, conn);
}

doca_error_t comch_ep_start_common(struct comch_ep *ep)
{
	const char *rep_pci = ep->side->rep_pci(ep);
	const char *why = "";
	doca_error_t r;

	if (doca_priv_faults_comch(&ep->faults) != DOCA_SUCCESS)
		return DOCA_ERROR_INVALID_VALUE;
	if (comch_peer_policy_load(&ep->peers) != DOCA_SUCCESS || !comch_net_fabric_ok())
		return DOCA_ERROR_INVALID_VALUE;
	ep->rng = ep->faults.seed ^ (uint64_t)(uintptr_t)ep;
	r = ep_arena_prepare(ep);
	if (r == DOCA_SUCCESS)
		r = ep_rx_prepare(ep);
	if (r != DOCA_SUCCESS)
		return r;
	if (!comch_server_path(ep->path, sizeof(ep->path), ep->system_id, rep_pci, ep->name,
	                       &why)) {
		const char *env = doca_priv_config_string("ODMA_RUNDIR");
		char detail[320];

		snprintf(detail, sizeof(detail), "comch %s \"%s\": no usable runtime directory: %s",
		         comch_ep_kind(ep), ep->name, why);
		if (env != NULL) /* the table's line for a bad value */
			doca_priv_config_refuse("ODMA_RUNDIR", env, detail);
		else
			ODMA_ERR("%s ($XDG_RUNTIME_DIR/odma, else /tmp/odma-UID)", detail);
		return DOCA_ERROR_INITIALIZATION;
	}
	return DOCA_SUCCESS;
}

/* The carriers in the order a client tries them: one kernel first, then ODMA_FABRIC. */
const struct comch_carrier *const comch_carriers[] = { &comch_local_carrier, &comch_net_carrier,
	                                               NULL };

/* ---- what the server's and the client's context ops share ------------------------------ */

/*
 * An ended connection's channel closes once what it sent before its end went out; the PE
 * watches its descriptor meanwhile (rung as that completes). Whether it settled now.
 */
static bool conn_settle(struct comch_ep *ep, struct doca_comch_connection *c)
{
	c->settle_at = c->ch->car->settle != NULL ? c->ch->car->settle(c->ch) : 0;
	if (c->settle_at != 0)
		return false;
	c->settled = true;
	if (c->watch != 0)
		(void)doca_priv_pe_watch(ep->ctx.pe, c->fd, 0);
	c->watch = 0;
	return true;
}

bool comch_ep_conn_step(struct comch_ep *ep, struct doca_comch_connection *c)
{
	bool any = false;

	(void)ep;
	if (!c->rx_done && c->closing_until != 0)
		any |= comch_conn_closing(c);
	else if (!c->rx_done)
		any |= comch_conn_pump(c);
	if (c->rx_done && !c->notified)
		any |= comch_conn_finish(c);
	if (c->notified && !c->settled)
		any |= conn_settle(ep, c);
	return any;
}

/* ---- waking a sleeping PE (exec.h, the arm op) ------------------------------------------ */

void comch_ep_unwatch(struct comch_ep *ep, int fd, bool *watched)
{
	if (*watched)
		(void)doca_priv_pe_watch(ep->ctx.pe, fd, 0);
	*watched = false;
}

void comch_ep_free_chan(struct comch_ep *ep, struct comch_chan *ch)
{
	comch_ep_unwatch(ep, ch->fd, &ch->watched);
	ch->car->free(ch);
}

void comch_ep_watch(struct comch_ep *ep, int fd, bool *watched)
{
	if (!*watched && fd >= 0 && doca_priv_pe_watch(ep->ctx.pe, fd, EPOLLIN) == DOCA_SUCCESS)
		*watched = true;
}

/*
 * A connection's sources: its socket (readable; writable while sends or control packets
 * wait for room), a held message's due time (ODMA_FAULTS comch_delay_us: the socket is not
 * read meanwhile, so it is not watched), an end not handled yet (progress now), and after
 * its end, its channel until it settled.
 */
uint64_t comch_ep_arm_conn(struct comch_ep *ep, struct doca_comch_connection *c)
{
	uint32_t want = EPOLLIN;
	uint64_t at = ODMA_WAKE_NEVER;

	if (c->rx_done && !c->notified)
		return 0;
	if (c->rx_done) {
		/* ended: its descriptor rings as its last sends complete (carrier's settle) */
		want = c->settled ? 0 : EPOLLIN;
		at = c->settled ? ODMA_WAKE_NEVER : c->settle_at;
	} else if (c->held != NULL && c->closing_until == 0) {
		want = 0;
		at = c->held_due_ns;
	} else if (c->pending.head != NULL ||
	           atomic_load_explicit(&c->outbox_n, memory_order_relaxed) != 0) {
		want |= EPOLLOUT;
	}
	if (!c->rx_done && c->ch->car->due != NULL)
		at = comch_min_ns(at, c->ch->car->due(c, &want));
	if (!c->rx_done && c->closing_until != 0) /* its BYE waits for room until then */
		at = comch_min_ns(at, c->closing_until);
	if (want != c->watch && doca_priv_pe_watch(ep->ctx.pe, c->fd, want) == DOCA_SUCCESS)
		c->watch = want;
	return at;
}

doca_error_t comch_ep_recv_register(struct comch_ep *ep, doca_comch_event_msg_recv_cb_t recv_cb)
{
	if (comch_ep_check_idle(ep, "the receive callback") != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	ep->recv_cb = recv_cb;
	return DOCA_SUCCESS;
}

doca_error_t comch_ep_consumer_register(struct comch_ep *ep, doca_comch_event_consumer_cb_t new_cb,
                                        doca_comch_event_consumer_cb_t gone_cb)
{
	if (comch_ep_check_idle(ep, "the consumer callbacks") != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	ep->cons_new_cb = new_cb;
	ep->cons_gone_cb = gone_cb;
	return DOCA_SUCCESS;
}

struct doca_task *doca_comch_task_send_as_task(struct doca_comch_task_send *task)
{
	return task != NULL ? &task->base : NULL;
}
