/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The DOCA RDMA context: create/destroy, properties, device capabilities, and the context
 * type (start, progress, stop) the core runs it through. Connections are in conn.c, tasks in
 * tasks.c, the reader threads in serve.c, the sockets in wire.c.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "core/device/device.h"
#include "core/log/log.h"
#include "rdma/rdma.h"
#include "util/queue.h"

ODMA_LOG_REGISTER(ODMA_RDMA)

#define RD_MAX_CONNS 1024u

const char *const odma_rd_type_names[RD_T_COUNT] = {
	"receive",
	"send",
	"send_imm",
	"read",
	"write",
	"write_imm",
	"atomic_cmp_swp",
	"atomic_fetch_add",
	"remote_net_sync_event_get",
	"remote_net_sync_event_notify_set",
	"remote_net_sync_event_notify_add",
};

uint32_t odma_rd_rnr_ms(const struct doca_rdma *rd)
{
	return 1000u * ((uint32_t)rd->rnr_retry + 1u);
}

/* ---------------------------------------------------------------- queues to the PE */

void odma_rd_done_locked(struct doca_rdma *rd, struct rd_task *t, doca_error_t status)
{
	t->res_status = status;
	rd_queue_push(&rd->done_head, &rd->done_tail, t);
	rd_wake_pe(rd);
}

void odma_rd_event_locked(struct doca_rdma *rd, struct doca_rdma_connection *c,
                          enum rd_event_type type)
{
	struct rd_event *e = malloc(sizeof(*e));

	if (e == NULL) {
		ODMA_ERR("out of memory queueing a connection event of context %p", (void *)rd);
		return;
	}
	e->type = type;
	e->conn = c;
	ODMA_QUEUE_PUSH(rd->ev_head, rd->ev_tail, e, next);
	rd_wake_pe(rd);
}

static void rd_raise(struct doca_rdma *rd, const struct rd_event *e)
{
	union doca_data cud = rd->ctx.user_data, ud = e->conn->user_data;

	if (e->type == RD_E_FAILURE) {
		/*
		 * A failed one goes back to the pool before its callback, so that the callback may
		 * connect again within max_num_connections (the slot is freed after the raising)
		 */
		pthread_mutex_lock(&rd->lock);
		odma_rd_release_locked(rd, e->conn);
		pthread_mutex_unlock(&rd->lock);
	}
	/*
	 * The program disconnected it before this progress (both sides ended it at once, or the
	 * program let it go while its handshake ended): ours came first, no callback for it
	 */
	if (e->conn->app_closed)
		return;
	switch (e->type) {
	case RD_E_REQUEST:
		if (rd->cb_request != NULL)
			rd->cb_request(e->conn, cud);
		break;
	case RD_E_ESTABLISHED:
		if (rd->cb_established != NULL)
			rd->cb_established(e->conn, ud, cud);
		break;
	case RD_E_FAILURE:
		if (rd->cb_failure != NULL)
			rd->cb_failure(e->conn, ud, cud);
		break;
	default:
		if (rd->cb_disconnect != NULL)
			rd->cb_disconnect(e->conn, ud, cud);
		break;
	}
}

/* Delivers every finished task at the head of @c's order list (PE thread). */
static void odma_rd_drain(struct doca_rdma_connection *c)
{
	struct rd_task *t;

	while ((t = c->ord_head) != NULL && t->finished) {
		doca_error_t st = c->aborted ? DOCA_ERROR_CONNECTION_ABORTED : t->res_status;

		ODMA_QUEUE_POP(c->ord_head, c->ord_tail, t, onext);
		/* the connection was cut: what was behind that task is flushed with it */
		c->aborted = st == DOCA_ERROR_CONNECTION_ABORTED;
		doca_priv_pe_net_ios(t->base.ctx->pe, -1);
		doca_priv_task_complete(&t->base, st);
	}
}

void odma_rd_finished(struct rd_task *t, doca_error_t status)
{
	if (t->type == RD_T_RECEIVE) {
		doca_priv_pe_net_ios(t->base.ctx->pe, -1);
		doca_priv_task_complete(&t->base, status);
		return;
	}
	t->res_status = status;
	t->finished = true;
	odma_rd_drain(t->conn);
}

/*
 * Delivers what the readers and the transport queued: task completions first (each
 * connection's in its order), then connection events. The count is taken first: a
 * completion queued after it counts again, for the next call.
 */
static bool rd_progress(struct doca_ctx *ctx)
{
	struct doca_rdma *rd = rd_of(ctx);
	struct rd_task *t;
	struct rd_event *e;

	if (rd->bell_fd >= 0)
		doca_priv_bell_drain(&rd->bell, rd->bell_fd);
	if (atomic_load_explicit(&rd->queued, memory_order_acquire) == 0 ||
	    atomic_exchange(&rd->queued, 0) == 0)
		return false;
	pthread_mutex_lock(&rd->lock);
	t = rd->done_head;
	e = rd->ev_head;
	rd->done_head = rd->done_tail = NULL;
	rd->ev_head = rd->ev_tail = NULL;
	pthread_mutex_unlock(&rd->lock);
	while (t != NULL) {
		struct rd_task *n = t->qnext;

		odma_rd_finished(t, t->res_status);
		t = n;
	}
	(void)odma_rd_direct_take(rd);
	rd->raising = true; /* what is still in @e is invisible to odma_rd_reap */
	while (e != NULL) {
		struct rd_event *n = e->next;

		rd_raise(rd, e);
		free(e);
		e = n;
	}
	rd->raising = false;
	odma_rd_reap(rd);
	return true;
}

/* ---------------------------------------------------------------- the context type */

static doca_error_t rd_start(struct doca_ctx *ctx)
{
	struct doca_rdma *rd = rd_of(ctx);
	doca_error_t r;

	ctx->queue_depth = UINT32_MAX; /* the pools bound what is in flight */
	if (getrandom(&rd->nonce, sizeof(rd->nonce), 0) != sizeof(rd->nonce)) {
		ODMA_ERR("RDMA context %p: getrandom failed", (void *)rd);
		return DOCA_ERROR_INITIALIZATION;
	}
	rd->stopping = false;
	if (rd->bell_fd >= 0)
		(void)doca_priv_pe_watch(ctx->pe, rd->bell_fd, EPOLLIN);
	r = odma_rd_conns_start(rd);
	if (r != DOCA_SUCCESS)
		return r;
	ODMA_DBG("RDMA context %p started (%s, %u connections)", (void *)rd,
	         rd->transport == DOCA_RDMA_TRANSPORT_TYPE_DC ? "DC" : "RC", rd->max_conns);
	return DOCA_SUCCESS;
}

static void rd_stop(struct doca_ctx *ctx)
{
	struct doca_rdma *rd = rd_of(ctx);

	/*
	 * A stop from inside a callback (a task's, a connection's) finishes at the end of that
	 * doca_pe_progress, and doca_ctx_stop says IN_PROGRESS, as DOCA does there; a stop
	 * from anywhere else with nothing in flight reaches IDLE at once.
	 */
	rd->defer_idle = ctx->pe != NULL && ctx->pe->in_progress;
	odma_rd_conns_stop(rd); /* joins every thread: their tasks are queued as failed */
	odma_rd_fail_receives(rd, DOCA_ERROR_IO_FAILED);
	odma_rd_direct_quiesce(rd); /* the endpoints' close failed every io in flight */
	(void)rd_progress(ctx);
	odma_rd_direct_free(rd);
}

/*
 * The wake-up contract (docs/design.md, "Waking a sleeping PE"): the readers ring the
 * doorbell after queueing a completion or an event; a PE asleep on its notification handle
 * wakes, and progress delivers.
 */
static uint64_t rd_arm(struct doca_ctx *ctx)
{
	struct doca_rdma *rd = rd_of(ctx);

	if (rd->bell_fd < 0)
		return 0; /* no doorbell: have progress poll */
	doca_priv_bell_drain(&rd->bell, rd->bell_fd);
	if (ctx->state == DOCA_CTX_STATE_IDLE)
		return ODMA_WAKE_NEVER;
	doca_priv_bell_arm(&rd->bell);
	return atomic_load(&rd->queued) != 0 ? 0 : ODMA_WAKE_NEVER;
}

static bool rd_idle_ready(const struct doca_ctx *ctx)
{
	struct doca_rdma *rd = rd_of(ctx);

	if (rd->defer_idle) {
		rd->defer_idle = false; /* the check right after the stop op: STOPPING */
		return false;
	}
	return atomic_load(&rd->queued) == 0;
}

static doca_error_t rd_submit(struct doca_task *task);

static const struct odma_ctx_ops odma_rd_ops = {
	.name = "RDMA",
	.task_size = sizeof(struct rd_task),
	.start = rd_start,
	.complete = doca_priv_task_conf_complete,
	.submit = rd_submit,
	.progress = rd_progress,
	.stop = rd_stop,
	.idle_ready = rd_idle_ready,
	.arm = rd_arm,
	.trace_bytes = odma_rd_task_bytes,
	.no_task_conf = true, /* a context may only serve its peers */
};

doca_error_t odma_rd_submit(struct rd_task *t);

static doca_error_t rd_submit(struct doca_task *task)
{
	return odma_rd_submit((struct rd_task *)task);
}

/* ---------------------------------------------------------------- create / destroy */

static doca_error_t rd_check_dev(struct doca_dev *dev, const char *fn)
{
	struct doca_devinfo *info = doca_priv_dev_lookup(dev);

	if (info == NULL) {
		ODMA_ERR_AT(fn, "dev %p is not a device handle from doca_dev_open", (void *)dev);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!info->caps.rdma) {
		ODMA_ERR_AT(fn,
		            "device %s has no RDMA (rdma=no in the system profile); pick a device "
		            "for which doca_rdma_cap_task_send_is_supported succeeds",
		            info->pci_addr);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	return DOCA_SUCCESS;
}

static void rd_defaults(struct doca_rdma *rd)
{
	rd->permissions = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE;
	rd->transport = DOCA_RDMA_TRANSPORT_TYPE_RC;
	rd->max_conns = 16;
	rd->send_queue_size = 256;
	rd->max_send_buf_list_len = 1;
	rd->recv_buf_list_len = 1;
	rd->mtu = DOCA_MTU_SIZE_1K_BYTES;
	rd->grh = 1;
	rd->conn_timeout_ms = 5000;
	rd->rnr_retry = 7;
}

doca_error_t doca_rdma_create(struct doca_dev *dev, struct doca_rdma **rdma)
{
	struct doca_rdma *rd;
	struct doca_ctx *ctx;
	doca_error_t r;

	ODMA_CHECK_ARG(dev != NULL && rdma != NULL, "dev and rdma must not be NULL");
	r = rd_check_dev(dev, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	r = doca_priv_ctx_new(sizeof(*rd), &odma_rd_ops, dev, &ctx);
	if (r != DOCA_SUCCESS)
		return r;
	rd = (struct doca_rdma *)ctx; /* its first member */
	pthread_mutex_init(&rd->lock, NULL);
	rw_cond_init(&rd->recv_cond); /* the receiver-not-ready deadline is monotonic */
	atomic_init(&rd->queued, 0);
	atomic_init(&rd->io_done, NULL);
	atomic_init(&rd->io_busy, 0);
	atomic_init(&rd->bell, ODMA_BELL_IDLE);
	rd->bell_fd = doca_priv_bell_open(); /* -1: completions are still delivered by polling */
	rd_defaults(rd);
	rd->max_send_buf_list_len = rd->ctx.caps->rdma_max_buf_list;
	rd->recv_buf_list_len = rd->ctx.caps->rdma_max_buf_list;
	*rdma = rd;
	ODMA_DBG("RDMA context %p created", (void *)rd);
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_destroy(struct doca_rdma *rdma)
{
	doca_error_t r;

	ODMA_CHECK_ARG(rdma != NULL, "rdma must not be NULL");
	if (rdma->ctx.state == DOCA_CTX_STATE_IDLE && rdma->bell_fd >= 0)
		(void)doca_priv_pe_watch(rdma->ctx.pe, rdma->bell_fd, 0); /* NULL PE: no-op */
	r = doca_priv_ctx_destroy(&rdma->ctx);
	if (r == DOCA_ERROR_IN_USE)
		r = DOCA_ERROR_BAD_STATE;
	if (r != DOCA_SUCCESS)
		return r;
	odma_rd_direct_quiesce(rdma);
	odma_rd_conns_free(rdma);
	if (rdma->bell_fd >= 0)
		close(rdma->bell_fd);
	pthread_mutex_destroy(&rdma->lock);
	pthread_cond_destroy(&rdma->recv_cond);
	ODMA_DBG("RDMA context %p destroyed", (void *)rdma);
	free(rdma);
	return DOCA_SUCCESS;
}

void doca_priv_rdma_paths(const struct doca_rdma *rdma, uint64_t *direct, uint64_t *requested)
{
	*direct = rdma != NULL ? rdma->n_direct : 0;
	*requested = rdma != NULL ? rdma->n_requested : 0;
}

void doca_priv_rdma_sends(const struct doca_rdma *rdma, uint64_t *fast, uint64_t *held)
{
	*fast = rdma != NULL ? atomic_load(&rdma->n_send_fast) : 0;
	*held = rdma != NULL ? atomic_load(&rdma->n_send_held) : 0;
}

ODMA_CTX_AS_CTX(rdma, ctx)

/* ---------------------------------------------------------------- capabilities */

static doca_error_t rd_cap(const struct doca_devinfo *d, const char *fn)
{
	if (d == NULL) {
		ODMA_ERR_AT(fn, "devinfo must not be NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return d->caps.rdma ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

#define RD_CAP_U32(name, expr)                                                                     \
	doca_error_t doca_rdma_cap_get_##name(const struct doca_devinfo *devinfo, uint32_t *name)  \
	{                                                                                          \
		doca_error_t r = rd_cap(devinfo, __func__);                                        \
                                                                                                   \
		if (r == DOCA_SUCCESS && name == NULL) {                                           \
			ODMA_ERR("%s: the output must not be NULL", __func__);                     \
			r = DOCA_ERROR_INVALID_VALUE;                                              \
		}                                                                                  \
		if (r == DOCA_SUCCESS)                                                             \
			*name = (expr);                                                            \
		return r;                                                                          \
	}

RD_CAP_U32(max_recv_queue_size, devinfo->caps.rdma_max_queue)
RD_CAP_U32(max_send_queue_size, devinfo->caps.rdma_max_queue)
RD_CAP_U32(max_send_buf_list_len, devinfo->caps.rdma_max_buf_list)
RD_CAP_U32(max_message_size, devinfo->caps.rdma_max_msg_size)
RD_CAP_U32(gid_table_size, devinfo->caps.rdma_gid_table)

doca_error_t doca_rdma_cap_get_gid(const struct doca_devinfo *devinfo, uint32_t start_index,
                                   uint32_t num_entries, struct doca_rdma_gid *gid_array)
{
	doca_error_t r = rd_cap(devinfo, __func__);

	if (r != DOCA_SUCCESS)
		return r;
	ODMA_CHECK_ARG(gid_array != NULL && num_entries > 0 &&
	                       start_index < devinfo->caps.rdma_gid_table &&
	                       num_entries <= devinfo->caps.rdma_gid_table - start_index,
	               "%s: entries [%u, +%u) are not inside the %u-entry GID table", __func__,
	               start_index, num_entries, devinfo->caps.rdma_gid_table);
	for (uint32_t i = 0; i < num_entries; i++) {
		/* entry 0: the IPv4-mapped address of the port (RoCE v2); the rest are empty */
		memset(gid_array[i].raw, 0, sizeof(gid_array[i].raw));
		if (start_index + i == 0) {
			gid_array[i].raw[10] = 0xff;
			gid_array[i].raw[11] = 0xff;
			memcpy(&gid_array[i].raw[12], devinfo->ipv4, 4);
		}
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_cap_transport_type_is_supported(const struct doca_devinfo *devinfo,
                                                       enum doca_rdma_transport_type transport_type)
{
	doca_error_t r = rd_cap(devinfo, __func__);

	if (r != DOCA_SUCCESS)
		return r;
	ODMA_CHECK_ARG(transport_type == DOCA_RDMA_TRANSPORT_TYPE_RC ||
	                       transport_type == DOCA_RDMA_TRANSPORT_TYPE_DC,
	               "%s: unknown transport type %d", __func__, (int)transport_type);
	if (transport_type == DOCA_RDMA_TRANSPORT_TYPE_DC && !devinfo->caps.rdma_dc)
		return DOCA_ERROR_NOT_SUPPORTED;
	return DOCA_SUCCESS;
}

doca_error_t
doca_rdma_cap_task_receive_get_max_dst_buf_list_len(const struct doca_devinfo *devinfo,
                                                    enum doca_rdma_transport_type transport_type,
                                                    uint32_t *max_buf_list_len)
{
	doca_error_t r = doca_rdma_cap_transport_type_is_supported(devinfo, transport_type);

	if (r != DOCA_SUCCESS)
		return r;
	ODMA_CHECK_ARG(max_buf_list_len != NULL, "%s: max_buf_list_len must not be NULL", __func__);
	*max_buf_list_len = devinfo->caps.rdma_max_buf_list;
	return DOCA_SUCCESS;
}

/* Every task capability: any RDMA device runs every task type. */
doca_error_t odma_rd_cap_task(const struct doca_devinfo *devinfo, const char *fn)
{
	return rd_cap(devinfo, fn);
}

/* ---------------------------------------------------------------- properties */

bool odma_rd_idle(const struct doca_rdma *rd, const char *fn, const char *what)
{
	if (rd->ctx.state == DOCA_CTX_STATE_IDLE)
		return true;
	ODMA_ERR_AT(fn, "%s: RDMA context %p is not IDLE; %s before doca_ctx_start", fn,
	            (const void *)rd, what);
	return false;
}

static doca_error_t rd_settable(struct doca_rdma *rd, const char *fn)
{
	if (rd == NULL) {
		ODMA_ERR_AT(fn, "rdma must not be NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return odma_rd_idle(rd, fn, "set its properties") ? DOCA_SUCCESS : DOCA_ERROR_BAD_STATE;
}

#define RD_SET(name, type, cond, code, why, store)                                                 \
	doca_error_t doca_rdma_set_##name(struct doca_rdma *rdma, type name)                       \
	{                                                                                          \
		doca_error_t r = rd_settable(rdma, __func__);                                      \
                                                                                                   \
		if (r != DOCA_SUCCESS)                                                             \
			return r;                                                                  \
		if (!(cond)) {                                                                     \
			ODMA_ERR("%s: %s", __func__, why);                                         \
			return code;                                                               \
		}                                                                                  \
		store;                                                                             \
		return DOCA_SUCCESS;                                                               \
	}

#define RD_GET(name, type, cst, field)                                                             \
	doca_error_t doca_rdma_get_##name(cst struct doca_rdma *rdma, type *name)                  \
	{                                                                                          \
		ODMA_CHECK_ARG(rdma != NULL && name != NULL, "%s: arguments must not be NULL",     \
		               __func__);                                                          \
		*name = rdma->field;                                                               \
		return DOCA_SUCCESS;                                                               \
	}

#define RD_PERMS_OK                                                                                \
	(DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ |                          \
	 DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC)

static uint32_t rd_pow2(uint32_t v)
{
	uint32_t p = 1;

	while (p < v && p < (1u << 31))
		p <<= 1;
	return p;
}

static uint32_t rd_caps_u32(const struct doca_rdma *rd, int which)
{
	const struct odma_dev_caps *c = rd->ctx.caps;

	return which == 0 ? c->rdma_max_queue : c->rdma_max_buf_list;
}

RD_SET(send_queue_size, uint32_t, send_queue_size > 0 && send_queue_size <= rd_caps_u32(rdma, 0),
       DOCA_ERROR_NOT_SUPPORTED, "send_queue_size must be 1..doca_rdma_cap_get_max_send_queue_size",
       rdma->send_queue_size = rd_pow2(send_queue_size))
RD_SET(recv_queue_size, uint32_t, false, DOCA_ERROR_NOT_SUPPORTED,
       "the receive queue size applies to the GPU and DPA datapaths only, which odma does not "
       "emulate; leave it unset",
       (void)recv_queue_size)
RD_SET(max_send_buf_list_len, uint32_t,
       max_send_buf_list_len > 0 && max_send_buf_list_len <= rd_caps_u32(rdma, 1),
       DOCA_ERROR_NOT_SUPPORTED,
       "max_send_buf_list_len must be 1..doca_rdma_cap_get_max_send_buf_list_len",
       rdma->max_send_buf_list_len = max_send_buf_list_len)
RD_SET(transport_type, enum doca_rdma_transport_type,
       (transport_type == DOCA_RDMA_TRANSPORT_TYPE_RC ||
        (transport_type == DOCA_RDMA_TRANSPORT_TYPE_DC && rdma->ctx.caps->rdma_dc)),
       DOCA_ERROR_NOT_SUPPORTED,
       "transport type is not RC, or DC on a device without DC "
       "(doca_rdma_cap_transport_type_is_supported)",
       rdma->transport = transport_type)
RD_SET(mtu, enum doca_mtu_size, (unsigned int)mtu <= DOCA_MTU_SIZE_RAW_ETHERNET,
       DOCA_ERROR_NOT_SUPPORTED, "mtu is not one of DOCA_MTU_SIZE_*", rdma->mtu = mtu)
RD_SET(permissions, uint32_t, (permissions & ~(uint32_t)RD_PERMS_OK) == 0, DOCA_ERROR_INVALID_VALUE,
       "permissions may hold only LOCAL_READ_WRITE, RDMA_READ, RDMA_WRITE and RDMA_ATOMIC",
       rdma->permissions = permissions)
RD_SET(grh_enabled, uint8_t, true, DOCA_ERROR_INVALID_VALUE, "", rdma->grh = grh_enabled)
RD_SET(gid_index, uint32_t, gid_index < rdma->ctx.caps->rdma_gid_table, DOCA_ERROR_INVALID_VALUE,
       "gid_index is past the GID table (doca_rdma_cap_get_gid_table_size)",
       rdma->gid_index = gid_index)
RD_SET(sl, uint32_t, sl <= 15, DOCA_ERROR_INVALID_VALUE, "the service level is 0..15",
       rdma->sl = sl)
RD_SET(connection_request_timeout, uint16_t, connection_request_timeout > 0,
       DOCA_ERROR_INVALID_VALUE, "the connection request timeout must be at least 1 ms",
       rdma->conn_timeout_ms = connection_request_timeout)
RD_SET(max_num_connections, uint16_t,
       max_num_connections > 0 && max_num_connections <= RD_MAX_CONNS, DOCA_ERROR_NOT_SUPPORTED,
       "max_num_connections must be 1..1024", rdma->max_conns = max_num_connections)
RD_SET(rnr_retry_count, uint8_t, rnr_retry_count <= 7, DOCA_ERROR_INVALID_VALUE,
       "the rnr retry count is 0..7", rdma->rnr_retry = rnr_retry_count)

RD_GET(send_queue_size, uint32_t, const, send_queue_size)
RD_GET(max_send_buf_list_len, uint32_t, const, max_send_buf_list_len)
RD_GET(transport_type, enum doca_rdma_transport_type, const, transport)
RD_GET(mtu, enum doca_mtu_size, const, mtu)
RD_GET(permissions, uint32_t, , permissions)
RD_GET(grh_enabled, uint8_t, const, grh)
RD_GET(gid_index, uint32_t, const, gid_index)
RD_GET(sl, uint32_t, const, sl)
RD_GET(connection_request_timeout, uint16_t, const, conn_timeout_ms)
RD_GET(max_num_connections, uint16_t, , max_conns)
RD_GET(rnr_retry_count, uint8_t, const, rnr_retry)

doca_error_t doca_rdma_get_recv_queue_size(const struct doca_rdma *rdma, uint32_t *recv_queue_size)
{
	ODMA_CHECK_ARG(rdma != NULL && recv_queue_size != NULL, "%s: arguments must not be NULL",
	               __func__);
	ODMA_ERR("%s: the receive queue size exists on the GPU and DPA datapaths only", __func__);
	return DOCA_ERROR_NOT_SUPPORTED;
}

static doca_error_t rd_no_datapath(const void *a, const void *b, const char *fn)
{
	ODMA_CHECK_ARG(a != NULL && b != NULL, "%s: arguments must not be NULL", fn);
	ODMA_ERR("%s: odma has no DPA or GPU datapath; use the CPU datapath (tasks on a PE)", fn);
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_get_dpa_handle(struct doca_rdma *rdma, doca_dpa_dev_rdma_t *dpa_rdma)
{
	return rd_no_datapath(rdma, dpa_rdma, __func__);
}

doca_error_t doca_rdma_get_gpu_handle(struct doca_rdma *rdma, struct doca_gpu_dev_rdma **gpu_rdma)
{
	return rd_no_datapath(rdma, gpu_rdma, __func__);
}

doca_error_t doca_rdma_dpa_completion_attach(struct doca_rdma *rdma,
                                             struct doca_dpa_completion *dpa_comp)
{
	return rd_no_datapath(rdma, dpa_comp, __func__);
}
