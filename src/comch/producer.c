/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Comch fast-path producers: a producer claims a slot the peer's consumer posted (CAS on
 * claim_seq), has the connection's carrier move the bytes into that consumer's buffer and
 * marks the slot done; its context ops and public API.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "comch/comch.h"
#include "core/error/error.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(DOCA_COMCH_FASTPATH)

static struct doca_comch_producer *producer_of(const struct doca_ctx *ctx)
{
	return odma_container_of(ctx, struct doca_comch_producer, fp.ctx);
}

/* ---- producer ------------------------------------------------------------------------------ */

static doca_error_t producer_start(struct doca_ctx *ctx)
{
	struct doca_comch_producer *p = producer_of(ctx);

	if (atomic_load(&p->fp.conn->dead)) {
		ODMA_ERR("comch producer %u: its connection is closed; "
		         "create producers on a live connection",
		         p->fp.id);
		return DOCA_ERROR_NOT_CONNECTED;
	}
	p->fp.expired = false;
	(void)doca_priv_pe_watch(ctx->pe, p->fp.bell_fd, EPOLLIN);
	comch_fp_poll(&p->fp, true);
	return DOCA_SUCCESS;
}

static void producer_stop(struct doca_ctx *ctx)
{
	comch_fp_poll(&producer_of(ctx)->fp, false);
}

/* The arm op: the doorbell rings when the connection dies (its sends complete at submit). */
static uint64_t producer_arm(struct doca_ctx *ctx)
{
	struct doca_comch_producer *p = producer_of(ctx);

	doca_priv_bell_drain(&p->bell, p->fp.bell_fd); /* rung after the last progress */
	/* armed while IDLE too: a ring landing after this drain is read by the next one */
	doca_priv_bell_arm(&p->bell);
	if (ctx->state == DOCA_CTX_STATE_IDLE)
		return ODMA_WAKE_NEVER;
	if (!p->fp.expired && atomic_load_explicit(&p->fp.conn->dead, memory_order_acquire))
		return 0;
	if (atomic_load_explicit(&p->fp.conn->outbox_n, memory_order_relaxed) != 0)
		return doca_priv_now_ns() + 1000000ull; /* control packets wait for room */
	return ODMA_WAKE_NEVER;
}

static bool producer_progress(struct doca_ctx *ctx)
{
	struct doca_comch_producer *p = producer_of(ctx);

	doca_priv_bell_drain(&p->bell, p->fp.bell_fd);
	comch_conn_flush_ctl(p->fp.conn);
	if (p->fp.expired || !atomic_load_explicit(&p->fp.conn->dead, memory_order_acquire))
		return false;
	p->fp.expired = true;
	comch_fp_poll(&p->fp, false);
	ODMA_WARN("comch producer %u: its connection closed; the producer expires", p->fp.id);
	if (ctx->state == DOCA_CTX_STATE_RUNNING)
		doca_priv_ctx_set_state(ctx, DOCA_CTX_STATE_STOPPING);
	return true;
}

static void producer_send_complete(struct doca_task *task, bool success)
{
	struct doca_comch_producer *p = producer_of(task->ctx);
	doca_comch_producer_task_send_completion_cb_t cb = success ? p->ok_cb : p->err_cb;

	cb((struct doca_comch_producer_task_send *)task, task->user_data, task->ctx->user_data);
}

/* The source's data segments as iovecs; false (logged) when it is not usable. */
static bool producer_gather(const struct doca_comch_producer_task_send *t,
                            const struct doca_ctx *ctx, struct iovec *iov, unsigned int *niov,
                            uint64_t *total)
{
	unsigned int n = 0;
	uint64_t sum = 0;

	for (const struct doca_buf *b = t->buf; b != NULL; b = b->next) {
		if (n == COMCH_MAX_IOV) {
			ODMA_ERR("doca_task_submit: "
			         "producer send source list is longer than %u elements",
			         COMCH_MAX_IOV);
			return false;
		}
		if (b->mmap == NULL || b->mmap->from_export) {
			ODMA_ERR("doca_task_submit: "
			         "producer send source buf %p must be in a local mmap",
			         (void *)b);
			return false;
		}
		if (b->data_len == 0)
			continue;
		iov[n].iov_base = b->data;
		iov[n].iov_len = b->data_len;
		sum += b->data_len;
		n++;
	}
	if (sum > ctx->caps->comch_fp_max_buf_size) {
		ODMA_ERR("doca_task_submit: producer send of %llu bytes is above %u "
		         "(doca_comch_producer_cap_get_max_buf_size)",
		         (unsigned long long)sum, ctx->caps->comch_fp_max_buf_size);
		return false;
	}
	*niov = n;
	*total = sum;
	return true;
}

/* Whether the peer closed the connection (a producer that never progresses learns it here). */
static bool peer_hung_up(struct doca_comch_connection *conn)
{
	struct pollfd pfd = { .fd = conn->fd, .events = POLLIN };

	if (atomic_load(&conn->dead))
		return true;
	return poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLHUP | POLLERR)) != 0;
}

doca_error_t comch_fp_claim(struct doca_comch_producer *p, struct comch_rcons *r, uint64_t need,
                            uint32_t imm, struct comch_claimed *out)
{
	switch (comch_ring_claim(r->ring, &r->geom, need, imm, out)) {
	case COMCH_CLAIM_OK:
		return DOCA_SUCCESS;
	/* what the ring says is the peer's to write: those lines are rate-limited per peer */
	case COMCH_CLAIM_CLOSED:
		COMCH_PEER_LOG(ERROR, p->fp.conn,
		               "doca_task_submit: consumer %u of the peer has stopped; "
		               "it takes no more buffers",
		               r->id);
		return DOCA_ERROR_NOT_FOUND;
	case COMCH_CLAIM_EMPTY:
		if (peer_hung_up(p->fp.conn)) {
			COMCH_PEER_LOG(ERROR, p->fp.conn,
			               "doca_task_submit: the peer closed the connection; consumer "
			               "%u will post no more buffers",
			               r->id);
			return DOCA_ERROR_NOT_CONNECTED;
		}
		return DOCA_ERROR_AGAIN;
	case COMCH_CLAIM_ROOM:
		COMCH_PEER_LOG(ERROR, p->fp.conn,
		               "doca_task_submit: producer %u sends %llu bytes but consumer %u "
		               "posted a buffer of %llu free bytes; the buffer stays posted",
		               p->fp.id, (unsigned long long)need, r->id,
		               (unsigned long long)out->room);
		return DOCA_ERROR_TOO_BIG;
	case COMCH_CLAIM_IMM:
		COMCH_PEER_LOG(
		        ERROR, p->fp.conn,
		        "doca_task_submit: producer %u sends %u immediate bytes but consumer "
		        "%u accepts %u (doca_comch_consumer_set_imm_data_len)",
		        p->fp.id, imm, r->id, r->geom.imm_len);
		return DOCA_ERROR_TOO_BIG;
	default:
		return DOCA_ERROR_AGAIN; /* busy: the consumer is publishing the slot */
	}
}

/* Finds the peer's consumer id and holds it (users++) for a send; NULL when it has none. */
static struct comch_rcons *producer_hold_consumer(const struct doca_comch_producer *p,
                                                  struct doca_comch_connection *conn,
                                                  uint32_t consumer_id)
{
	struct comch_rcons *r;
	bool found, held = false;

	/* decided under the lock: once it is let go, the peer's CONS_GONE may expire @r */
	pthread_mutex_lock(&conn->lock);
	r = comch_fp_rcons_find(conn, consumer_id);
	found = r != NULL;
	if (found && !r->expired) {
		r->users++;
		held = true;
	}
	pthread_mutex_unlock(&conn->lock);
	if (!held) {
		ODMA_ERR("doca_task_submit: producer %u: the peer has no consumer with id %u%s",
		         p->fp.id, consumer_id,
		         found ? " any more (it expired)"
		               : " (use an id reported by the new-consumer callback)");
		return NULL;
	}
	return r;
}

static doca_error_t producer_submit(struct doca_task *task)
{
	struct doca_comch_producer_task_send *t = (struct doca_comch_producer_task_send *)task;
	struct doca_comch_producer *p = producer_of(task->ctx);
	struct doca_comch_connection *conn = p->fp.conn;
	struct iovec iov[COMCH_MAX_IOV];
	unsigned int niov = 0;
	uint64_t total = 0;
	struct comch_rcons *r;
	doca_error_t res;

	if (atomic_load_explicit(&conn->dead, memory_order_acquire)) {
		ODMA_ERR("doca_task_submit: producer %u: its connection is closed", p->fp.id);
		return DOCA_ERROR_NOT_CONNECTED;
	}
	for (const struct doca_buf *b = t->buf; b != NULL; b = b->next)
		if (b->mmap != NULL && !b->mmap->from_export &&
		    (res = comch_fp_buf_registered(&p->fp, "producer send", task, b)) !=
		            DOCA_SUCCESS)
			return res;
	if (t->buf != NULL && !producer_gather(t, task->ctx, iov, &niov, &total))
		return DOCA_ERROR_INVALID_VALUE;
	if (total == 0 && t->imm_len == 0) {
		ODMA_ERR("doca_task_submit: producer %u: "
		         "the task has neither data nor immediate data",
		         p->fp.id);
		return DOCA_ERROR_INVALID_VALUE;
	}
	r = producer_hold_consumer(p, conn, t->consumer_id);
	if (r == NULL)
		return DOCA_ERROR_NOT_FOUND;
	res = conn->ch->car->produce(p, r, t, iov, niov, total);
	pthread_mutex_lock(&conn->lock);
	if (--r->users == 0 && r->orphan)
		comch_fp_rcons_free(r);
	pthread_mutex_unlock(&conn->lock);
	return res;
}

static const struct odma_ctx_ops producer_ops = {
	.name = "COMCH_PRODUCER",
	.task_size = sizeof(struct doca_comch_producer_task_send),
	.start = producer_start,
	.complete = producer_send_complete,
	.submit = producer_submit,
	.progress = producer_progress,
	.arm = producer_arm,
	.stop = producer_stop,
};

doca_error_t doca_comch_producer_create(struct doca_comch_connection *comch_connection,
                                        struct doca_comch_producer **producer)
{
	struct doca_comch_connection *conn = comch_connection;
	struct doca_comch_producer *p;
	doca_error_t r;

	ODMA_CHECK_ARG(conn != NULL && producer != NULL,
	               "doca_comch_producer_create: NULL argument");
	r = comch_fp_conn_usable(conn, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return DOCA_ERROR_NO_MEMORY;
	atomic_init(&p->bell, ODMA_BELL_IDLE);
	r = comch_fp_ctx_init(&p->fp, conn, &conn->lprod, &producer_ops, "producer", __func__);
	if (r != DOCA_SUCCESS) {
		free(p);
		return r;
	}
	*producer = p;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_producer_destroy(struct doca_comch_producer *producer)
{
	doca_error_t r;

	ODMA_CHECK_ARG(producer != NULL, "doca_comch_producer_destroy: producer must not be NULL");
	r = comch_fp_ctx_destroy(&producer->fp);
	if (r != DOCA_SUCCESS)
		return r;
	comch_fp_ctx_leave(&producer->fp);
	free(producer);
	return DOCA_SUCCESS;
}

ODMA_CAP_SUPPORTED(doca_comch_producer_cap_is_supported, comch)

ODMA_GETTER(doca_comch_producer_get_id, const struct doca_comch_producer, producer, uint32_t, id,
            producer->fp.id)

COMCH_CAP_GETTER(doca_comch_producer_cap_get_max_num_tasks, devinfo->caps.comch_fp_max_tasks)
COMCH_CAP_GETTER(doca_comch_producer_cap_get_max_buf_size, devinfo->caps.comch_fp_max_buf_size)
COMCH_CAP_GETTER(doca_comch_producer_cap_get_max_buf_list_len, COMCH_MAX_IOV)
COMCH_CAP_GETTER(doca_comch_producer_cap_get_max_producers, devinfo->caps.comch_fp_max_endpoints)

ODMA_CTX_AS_CTX(comch_producer, fp.ctx)

doca_error_t doca_comch_producer_task_send_set_conf(
        struct doca_comch_producer *producer,
        doca_comch_producer_task_send_completion_cb_t task_completion_cb,
        doca_comch_producer_task_send_completion_cb_t task_error_cb, uint32_t num_send_tasks)
{
	doca_error_t r;

	ODMA_CHECK_ARG(producer != NULL && task_completion_cb != NULL && task_error_cb != NULL,
	               "doca_comch_producer_task_send_set_conf: "
	               "the producer and both callbacks are required");
	r = comch_fp_set_conf(&producer->fp.ctx, "producer", producer->fp.id, num_send_tasks,
	                      __func__);
	if (r == DOCA_SUCCESS) {
		producer->ok_cb = task_completion_cb;
		producer->err_cb = task_error_cb;
	}
	return r;
}

static bool imm_ok(const struct doca_ctx *ctx, uint32_t len, const char *func)
{
	if (len <= ctx->caps->comch_max_imm_data)
		return true;
	ODMA_ERR("%s: %u immediate bytes is above the device's %u "
	         "(doca_comch_consumer_cap_get_max_imm_data_len)",
	         func, len, ctx->caps->comch_max_imm_data);
	return false;
}

doca_error_t doca_comch_producer_task_send_alloc_init(struct doca_comch_producer *producer,
                                                      const struct doca_buf *buf, uint8_t *imm_data,
                                                      uint32_t imm_data_len, uint32_t consumer_id,
                                                      struct doca_comch_producer_task_send **task)
{
	struct doca_comch_producer_task_send *t;
	struct doca_task *base;
	doca_error_t r;

	ODMA_CHECK_ARG(producer != NULL && task != NULL,
	               "doca_comch_producer_task_send_alloc_init: NULL argument");
	ODMA_CHECK_ARG(
	        imm_data != NULL || imm_data_len == 0,
	        "doca_comch_producer_task_send_alloc_init: imm_data is NULL but imm_data_len is %u",
	        imm_data_len);
	if (!imm_ok(&producer->fp.ctx, imm_data_len, __func__))
		return DOCA_ERROR_INVALID_VALUE;
	r = doca_priv_task_alloc(&producer->fp.ctx, &base);
	if (r != DOCA_SUCCESS)
		return r;
	t = (struct doca_comch_producer_task_send *)base;
	t->buf = buf;
	t->consumer_id = consumer_id;
	t->imm_len = imm_data_len;
	if (imm_data_len)
		memcpy(t->imm, imm_data, imm_data_len);
	*task = t;
	return DOCA_SUCCESS;
}

const struct doca_buf *
doca_comch_producer_task_send_get_buf(const struct doca_comch_producer_task_send *task)
{
	return task != NULL ? task->buf : NULL;
}

void doca_comch_producer_task_send_set_buf(struct doca_comch_producer_task_send *task,
                                           const struct doca_buf *buf)
{
	if (task != NULL)
		task->buf = buf;
}

uint32_t
doca_comch_producer_task_send_get_consumer_id(const struct doca_comch_producer_task_send *task)
{
	return task != NULL ? task->consumer_id : 0;
}

void doca_comch_producer_task_send_set_consumer_id(struct doca_comch_producer_task_send *task,
                                                   const uint32_t consumer_id)
{
	if (task != NULL)
		task->consumer_id = consumer_id;
}

uint8_t *
doca_comch_producer_task_send_get_imm_data(const struct doca_comch_producer_task_send *task)
{
	return task != NULL && task->imm_len > 0 ? (uint8_t *)(uintptr_t)task->imm : NULL;
}

uint32_t
doca_comch_producer_task_send_get_imm_data_len(const struct doca_comch_producer_task_send *task)
{
	return task != NULL ? task->imm_len : 0;
}

void doca_comch_producer_task_send_set_imm_data(struct doca_comch_producer_task_send *task,
                                                uint8_t *imm_data, uint32_t imm_data_len)
{
	if (task == NULL)
		return;
	if ((imm_data == NULL && imm_data_len != 0) ||
	    !imm_ok(task->base.ctx, imm_data_len, __func__))
		return;
	task->imm_len = imm_data_len;
	if (imm_data_len)
		memcpy(task->imm, imm_data, imm_data_len);
}

struct doca_task *doca_comch_producer_task_send_as_task(struct doca_comch_producer_task_send *task)
{
	return task != NULL ? &task->base : NULL;
}
