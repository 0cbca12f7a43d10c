/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Comch fast path: consumers post buffers into a ring shared with the peer process;
 * producers claim a posted slot (CAS on claim_seq), write the bytes straight into the
 * consumer's buffer with process_vm_writev and mark the slot done. No progress call of
 * either process is needed for a post to become visible to the producer.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "comch/comch.h"
#include "core/error/error.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(DOCA_COMCH_FASTPATH)

#define COMCH_MAX_SLOTS 65536u
#define COMCH_EXPIRE_WAIT_MS 1000u /* a claimed slot of a lost connection: wait this long */
#define COMCH_MAX_IOV 64u

static struct doca_comch_consumer *consumer_of(const struct doca_ctx *ctx)
{
	return (struct doca_comch_consumer *)(uintptr_t)ctx;
}

static struct doca_comch_producer *producer_of(const struct doca_ctx *ctx)
{
	return (struct doca_comch_producer *)(uintptr_t)ctx;
}

/* Whether a connection can carry a new consumer or producer. */
static doca_error_t conn_usable(struct doca_comch_connection *conn, const char *func)
{
	struct comch_ep *ep = conn->ep;

	if (!comch_ep_owns(ep, conn)) {
		ODMA_ERR("%s: connection %p is not a live connection of its %s", func, (void *)conn,
		         comch_ep_kind(ep));
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (atomic_load(&conn->dead) || ep->ctx.state != DOCA_CTX_STATE_RUNNING) {
		ODMA_ERR("%s: connection %p is not established (its %s is not RUNNING or the peer "
		         "went away)",
		         func, (void *)conn, comch_ep_kind(ep));
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

/* An id for a new endpoint of this side (under conn->lock): odd on the client, even on the server.
 */
static uint32_t conn_next_id(struct doca_comch_connection *conn)
{
	uint32_t id = conn->next_id;

	conn->next_id += 2;
	if (conn->next_id < 3) /* wrapped: skip 0 */
		conn->next_id = conn->side == COMCH_SIDE_CLIENT ? 1 : 2;
	return id;
}

/* ---- remote consumers (the peer's), reached by producers ---------------------------------- */

/* Under conn->lock. */
static struct comch_rcons *rcons_find(struct doca_comch_connection *conn, uint32_t id)
{
	for (struct comch_rcons *r = conn->rcons; r != NULL; r = r->next)
		if (r->id == id)
			return r;
	return NULL;
}

static void rcons_free(struct comch_rcons *r)
{
	munmap(r->ring, r->ring_size);
	free(r);
}

/* Under conn->lock: takes @r out of the table; frees it unless a producer is using it. */
static void rcons_unlink(struct doca_comch_connection *conn, struct comch_rcons *r)
{
	for (struct comch_rcons **pp = &conn->rcons; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	}
	r->expired = true;
	if (r->users == 0)
		rcons_free(r);
	else
		r->orphan = true;
}

static bool cons_new_valid(const struct comch_cons_new *m, uint32_t id)
{
	return id != 0 && m->nslots >= 1 && m->nslots <= COMCH_MAX_SLOTS &&
	       (m->nslots & (m->nslots - 1)) == 0 && m->slot_size >= sizeof(struct comch_slot) &&
	       m->slot_size <= 4096 && m->imm_len <= ODMA_COMCH_IMM_DATA_LIMIT &&
	       m->ring_size >= comch_ring_bytes(m->nslots, m->slot_size) &&
	       m->ring_size <= (64ull << 20);
}

void comch_fp_on_cons_new(struct doca_comch_connection *conn, uint32_t id, const void *payload,
                          size_t len, int fd)
{
	struct comch_ep *ep = conn->ep;
	struct comch_cons_new m;
	struct comch_ring *ring = NULL;
	struct comch_rcons *r, *old;
	const char *why = "malformed registration";
	uint32_t ok = 0;

	if (fd >= 0 && len >= sizeof(m)) {
		memcpy(&m, payload, sizeof(m));
		if (cons_new_valid(&m, id))
			ring = comch_shm_map(fd, m.ring_size, &why);
	}
	if (fd >= 0)
		close(fd);
	if (ring != NULL && (ring->magic != COMCH_RING_MAGIC || ring->nslots != m.nslots ||
	                     ring->slot_size != m.slot_size || ring->consumer_id != id)) {
		munmap(ring, m.ring_size);
		ring = NULL;
		why = "the ring does not match its announcement";
	}
	r = ring != NULL ? calloc(1, sizeof(*r)) : NULL;
	if (r == NULL) {
		if (ring != NULL)
			munmap(ring, m.ring_size);
		ODMA_WARN("comch %s \"%s\": refused consumer %u of the peer: %s", comch_ep_kind(ep),
		          ep->name, id, why);
		(void)comch_conn_send_ctl(conn, COMCH_W_CONS_ACK, id, &ok, sizeof(ok), -1);
		return;
	}
	r->id = id;
	r->ring = ring;
	r->ring_size = m.ring_size;
	pthread_mutex_lock(&conn->lock);
	old = rcons_find(conn, id);
	if (old != NULL)
		rcons_unlink(conn, old); /* the same consumer restarted */
	r->next = conn->rcons;
	conn->rcons = r;
	pthread_mutex_unlock(&conn->lock);
	ok = 1;
	(void)comch_conn_send_ctl(conn, COMCH_W_CONS_ACK, id, &ok, sizeof(ok), -1);
	ODMA_DBG("comch %s \"%s\": the peer created consumer %u (%u slots)", comch_ep_kind(ep),
	         ep->name, id, m.nslots);
	if (ep->cons_new_cb != NULL)
		ep->cons_new_cb(&ep->ev_cons, conn, id);
}

void comch_fp_on_cons_ack(struct doca_comch_connection *conn, uint32_t id, bool ok)
{
	pthread_mutex_lock(&conn->lock);
	for (struct doca_comch_consumer *c = conn->lcons; c != NULL; c = c->next_on_conn) {
		if (c->id == id) {
			int expect = COMCH_REG_SENT;

			atomic_compare_exchange_strong(&c->reg, &expect,
			                               ok ? COMCH_REG_ACKED : COMCH_REG_REFUSED);
			break;
		}
	}
	pthread_mutex_unlock(&conn->lock);
}

void comch_fp_on_cons_gone(struct doca_comch_connection *conn, uint32_t id)
{
	struct comch_ep *ep = conn->ep;
	struct comch_rcons *r;
	bool live = false;

	pthread_mutex_lock(&conn->lock);
	r = rcons_find(conn, id);
	if (r != NULL) {
		live = !r->expired;
		rcons_unlink(conn, r);
	}
	pthread_mutex_unlock(&conn->lock);
	if (live && ep->cons_gone_cb != NULL)
		ep->cons_gone_cb(&ep->ev_cons, conn, id);
}

bool comch_fp_expire_remote_one(struct doca_comch_connection *conn, uint32_t *id)
{
	bool found = false;

	pthread_mutex_lock(&conn->lock);
	for (struct comch_rcons *r = conn->rcons; r != NULL; r = r->next) {
		if (!r->expired) {
			r->expired = true;
			*id = r->id;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&conn->lock);
	return found;
}

void comch_fp_free_remote(struct doca_comch_connection *conn)
{
	while (conn->rcons != NULL) {
		struct comch_rcons *r = conn->rcons;

		conn->rcons = r->next;
		rcons_free(r);
	}
}

/* ---- consumer ------------------------------------------------------------------------------ */

static void consumer_drop_ring(struct doca_comch_consumer *c)
{
	if (c->ring != NULL)
		munmap(c->ring, c->ring_size);
	c->ring = NULL;
	free(c->slot_task);
	c->slot_task = NULL;
}

/* Completes the slots a producer finished, in posting order. */
static bool consumer_harvest(struct doca_comch_consumer *c)
{
	bool any = false;

	while (c->done < c->posted) {
		struct comch_slot *s = comch_ring_slot(c->ring, c->done);
		uint32_t idx = (uint32_t)(c->done & (c->ring->nslots - 1));
		struct doca_comch_consumer_task_post_recv *t;
		doca_error_t status;

		if (atomic_load_explicit(&s->state, memory_order_acquire) != COMCH_SLOT_DONE)
			break;
		t = c->slot_task[idx];
		c->slot_task[idx] = NULL;
		status = (doca_error_t)s->status;
		if (status == DOCA_SUCCESS) {
			t->buf->data_len += s->written;
			t->producer_id = s->producer_id;
			t->imm_len = s->imm_len <= c->imm_len ? s->imm_len : c->imm_len;
			if (t->imm_len > 0)
				memcpy(t->imm, s->imm, t->imm_len);
		}
		atomic_store_explicit(&s->state, COMCH_SLOT_FREE, memory_order_relaxed);
		c->done++;
		doca_priv_task_complete(&t->base, status);
		any = true;
	}
	return any;
}

/* Fails the posted slots from c->done on (none of them is being written). */
static void consumer_fail_rest(struct doca_comch_consumer *c, doca_error_t status)
{
	while (c->done < c->posted) {
		uint32_t idx = (uint32_t)(c->done & (c->ring->nslots - 1));
		struct doca_comch_consumer_task_post_recv *t = c->slot_task[idx];

		c->slot_task[idx] = NULL;
		atomic_store_explicit(&comch_ring_slot(c->ring, c->done)->state, COMCH_SLOT_FREE,
		                      memory_order_relaxed);
		c->done++;
		doca_priv_task_complete(&t->base, status);
	}
}

/* Closes the ring to producers; slots claimed before stay (their writes finish). */
static void consumer_close_ring(struct doca_comch_consumer *c)
{
	uint64_t old;

	if (c->closed || c->ring == NULL)
		return;
	c->closed = true;
	old = atomic_fetch_or_explicit(&c->ring->claim_seq, COMCH_RING_CLOSED,
	                               memory_order_acq_rel);
	c->claim_limit = old & ~COMCH_RING_CLOSED;
}

/* After the ring closed: the claimed slots are harvested, the unclaimed ones fail. */
static bool consumer_drain_closed(struct doca_comch_consumer *c, doca_error_t status)
{
	bool any = consumer_harvest(c);

	if (c->done < c->claim_limit) {
		if (!c->expired || comch_now_ns() < c->expire_deadline_ns)
			return any;
		ODMA_WARN("comch consumer %u: %llu buffers claimed by the lost peer were never "
		          "completed; failing them",
		          c->id, (unsigned long long)(c->claim_limit - c->done));
	}
	if (c->done < c->posted) {
		consumer_fail_rest(c, status);
		any = true;
	}
	return any;
}

static doca_error_t consumer_start(struct doca_ctx *ctx)
{
	struct doca_comch_consumer *c = consumer_of(ctx);
	struct comch_cons_new m = { 0 };
	uint32_t nslots = 1;
	int fd = -1;

	if (atomic_load(&c->conn->dead)) {
		ODMA_ERR("comch consumer %u: its connection is closed; create consumers on a live "
		         "connection",
		         c->id);
		return DOCA_ERROR_NOT_CONNECTED;
	}
	while (nslots < ctx->num_tasks)
		nslots <<= 1;
	consumer_drop_ring(c);
	m.nslots = nslots;
	m.slot_size = (uint32_t)((sizeof(struct comch_slot) + c->imm_len + 63) & ~(size_t)63);
	m.imm_len = c->imm_len;
	m.ring_size = (comch_ring_bytes(nslots, m.slot_size) + 4095) & ~(size_t)4095;
	c->slot_task = calloc(nslots, sizeof(*c->slot_task));
	c->ring =
	        c->slot_task != NULL ? comch_shm_create(m.ring_size, &fd, "odma-comch-ring") : NULL;
	if (c->ring == NULL) {
		ODMA_ERR("comch consumer %u: cannot create its ring of %u slots: %s", c->id, nslots,
		         strerror(errno));
		consumer_drop_ring(c);
		return DOCA_ERROR_NO_MEMORY;
	}
	c->ring_size = m.ring_size;
	c->ring->magic = COMCH_RING_MAGIC;
	c->ring->nslots = nslots;
	c->ring->slot_size = m.slot_size;
	c->ring->imm_len = c->imm_len;
	c->ring->consumer_id = c->id;
	c->posted = c->done = c->claim_limit = 0;
	c->closed = c->expired = false;
	/* the peer's producers write into this process (process_vm_writev needs ptrace rights) */
	(void)prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	atomic_store(&c->reg, COMCH_REG_SENT);
	if (!comch_conn_send_ctl(c->conn, COMCH_W_CONS_NEW, c->id, &m, sizeof(m), fd)) {
		close(fd);
		consumer_drop_ring(c);
		ODMA_ERR("comch consumer %u: its connection closed; the consumer cannot register",
		         c->id);
		return DOCA_ERROR_NOT_CONNECTED;
	}
	close(fd);
	return DOCA_ERROR_IN_PROGRESS;
}

static bool consumer_progress(struct doca_ctx *ctx)
{
	struct doca_comch_consumer *c = consumer_of(ctx);
	struct doca_comch_connection *conn = c->conn;
	bool dead = atomic_load_explicit(&conn->dead, memory_order_acquire);
	int reg;

	comch_conn_flush_ctl(conn);
	if (ctx->state == DOCA_CTX_STATE_STARTING) {
		reg = atomic_load(&c->reg);
		if (reg == COMCH_REG_ACKED && !dead) {
			doca_priv_ctx_set_state(ctx, DOCA_CTX_STATE_RUNNING);
			return true;
		}
		if (reg == COMCH_REG_REFUSED || dead) {
			ODMA_ERR("comch consumer %u: the peer %s; the consumer did not start",
			         c->id, dead ? "went away" : "refused it");
			consumer_drop_ring(c);
			doca_priv_ctx_set_state(ctx, DOCA_CTX_STATE_IDLE);
			return true;
		}
		return false;
	}
	if (dead && !c->expired) {
		c->expired = true;
		c->expire_deadline_ns =
		        comch_now_ns() + (uint64_t)COMCH_EXPIRE_WAIT_MS * 1000000ull;
		consumer_close_ring(c);
		ODMA_WARN("comch consumer %u: its connection closed; the consumer expires (posted "
		          "buffers fail with DOCA_ERROR_CONNECTION_RESET)",
		          c->id);
		if (ctx->state == DOCA_CTX_STATE_RUNNING)
			doca_priv_ctx_set_state(ctx, DOCA_CTX_STATE_STOPPING);
	}
	if (c->closed)
		return consumer_drain_closed(c, c->expired ? DOCA_ERROR_CONNECTION_RESET
		                                           : DOCA_ERROR_IO_FAILED);
	return consumer_harvest(c);
}

static void consumer_stop(struct doca_ctx *ctx)
{
	struct doca_comch_consumer *c = consumer_of(ctx);

	if (c->ring == NULL)
		return;
	consumer_close_ring(c);
	if (!atomic_load(&c->conn->dead))
		(void)comch_conn_send_ctl(c->conn, COMCH_W_CONS_GONE, c->id, NULL, 0, -1);
	if (ctx->state == DOCA_CTX_STATE_STARTING)
		return;
	(void)consumer_drain_closed(c, DOCA_ERROR_IO_FAILED);
}

static bool consumer_idle_ready(const struct doca_ctx *ctx)
{
	const struct doca_comch_consumer *c = consumer_of(ctx);

	return c->ring == NULL || c->done == c->posted;
}

static void post_recv_complete(struct doca_task *task, bool success)
{
	struct doca_comch_consumer *c = consumer_of(task->ctx);
	doca_comch_consumer_task_post_recv_completion_cb_t cb = success ? c->ok_cb : c->err_cb;

	cb((struct doca_comch_consumer_task_post_recv *)task, task->user_data,
	   task->ctx->user_data);
}

static doca_error_t post_recv_submit(struct doca_task *task)
{
	struct doca_comch_consumer_task_post_recv *t =
	        (struct doca_comch_consumer_task_post_recv *)task;
	struct doca_comch_consumer *c = consumer_of(task->ctx);
	struct doca_buf *buf = t->buf;
	uint32_t idx;
	struct comch_slot *s;
	size_t room;

	if (buf == NULL || buf->mmap != c->mmap || !odma_buf_is_head(buf) || buf->next != NULL) {
		ODMA_ERR("doca_task_submit: post-recv task %p needs a single doca_buf of the "
		         "consumer's mmap %p (got %p)",
		         (void *)t, (void *)c->mmap, (void *)buf);
		return DOCA_ERROR_INVALID_VALUE;
	}
	room = odma_buf_room(buf);
	if (room == 0 || room > task->ctx->caps->comch_fp_max_buf_size) {
		ODMA_ERR("doca_task_submit: post-recv buffer %p has %zu free bytes; it must have "
		         "1..%u (doca_comch_consumer_cap_get_max_buf_size)",
		         (void *)buf, room, task->ctx->caps->comch_fp_max_buf_size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	idx = (uint32_t)(c->posted & (c->ring->nslots - 1));
	s = comch_ring_slot(c->ring, c->posted);
	s->seq = c->posted;
	s->addr = (uint64_t)(uintptr_t)(buf->data + buf->data_len);
	s->room = room;
	s->written = 0;
	s->status = DOCA_SUCCESS;
	s->imm_len = 0;
	s->producer_id = 0;
	t->producer_id = 0;
	t->imm_len = 0;
	c->slot_task[idx] = t;
	atomic_store_explicit(&s->state, COMCH_SLOT_POSTED, memory_order_relaxed);
	c->posted++;
	atomic_store_explicit(&c->ring->post_seq, c->posted, memory_order_release);
	return DOCA_SUCCESS;
}

static const struct odma_ctx_ops consumer_ops = {
	.name = "COMCH_CONSUMER",
	.task_size = sizeof(struct doca_comch_consumer_task_post_recv),
	.start = consumer_start,
	.complete = post_recv_complete,
	.submit = post_recv_submit,
	.progress = consumer_progress,
	.stop = consumer_stop,
	.idle_ready = consumer_idle_ready,
};

doca_error_t doca_comch_consumer_create(struct doca_comch_connection *comch_connection,
                                        struct doca_mmap *buf_mmap,
                                        struct doca_comch_consumer **consumer)
{
	struct doca_comch_connection *conn = comch_connection;
	struct doca_comch_consumer *c;
	uint32_t cap;
	doca_error_t r;

	ODMA_CHECK_ARG(conn != NULL && buf_mmap != NULL && consumer != NULL,
	               "doca_comch_consumer_create: NULL argument");
	r = conn_usable(conn, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	if (!buf_mmap->started || buf_mmap->from_export) {
		ODMA_ERR("doca_comch_consumer_create: mmap %p must be a started mmap of this "
		         "process's memory",
		         (void *)buf_mmap);
		return DOCA_ERROR_INVALID_VALUE;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return DOCA_ERROR_NO_MEMORY;
	r = doca_priv_ctx_init(&c->ctx, &consumer_ops, conn->ep->ctx.dev);
	if (r != DOCA_SUCCESS) {
		free(c);
		return r;
	}
	c->ctx.queue_depth = UINT32_MAX;
	cap = c->ctx.caps->comch_fp_max_endpoints;
	pthread_mutex_lock(&conn->lock);
	if (conn->num_cons >= cap) {
		pthread_mutex_unlock(&conn->lock);
		doca_priv_ctx_destroy(&c->ctx);
		free(c);
		ODMA_ERR("doca_comch_consumer_create: connection %p already has %u consumers on "
		         "this side (doca_comch_consumer_cap_get_max_consumers)",
		         (void *)conn, cap);
		return DOCA_ERROR_NO_MEMORY;
	}
	c->id = conn_next_id(conn);
	conn->num_cons++;
	c->next_on_conn = conn->lcons;
	conn->lcons = c;
	pthread_mutex_unlock(&conn->lock);
	comch_conn_get(conn);
	c->conn = conn;
	c->mmap = buf_mmap;
	c->ring_fd = -1;
	atomic_init(&c->reg, COMCH_REG_NONE);
	*consumer = c;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer_destroy(struct doca_comch_consumer *consumer)
{
	struct doca_comch_connection *conn;
	doca_error_t r;

	ODMA_CHECK_ARG(consumer != NULL, "doca_comch_consumer_destroy: consumer must not be NULL");
	r = doca_priv_ctx_destroy(&consumer->ctx);
	if (r != DOCA_SUCCESS)
		return r;
	conn = consumer->conn;
	pthread_mutex_lock(&conn->lock);
	for (struct doca_comch_consumer **pp = &conn->lcons; *pp != NULL;
	     pp = &(*pp)->next_on_conn) {
		if (*pp == consumer) {
			*pp = consumer->next_on_conn;
			break;
		}
	}
	conn->num_cons--;
	pthread_mutex_unlock(&conn->lock);
	consumer_drop_ring(consumer);
	comch_conn_put(conn);
	free(consumer);
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer_cap_is_supported(const struct doca_devinfo *devinfo)
{
	ODMA_CHECK_ARG(devinfo != NULL,
	               "doca_comch_consumer_cap_is_supported: devinfo must not be NULL");
	return devinfo->caps.comch ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_comch_consumer_get_id(const struct doca_comch_consumer *consumer, uint32_t *id)
{
	ODMA_CHECK_ARG(consumer != NULL && id != NULL, "doca_comch_consumer_get_id: NULL argument");
	*id = consumer->id;
	return DOCA_SUCCESS;
}

static doca_error_t fp_cap(const struct doca_devinfo *devinfo, uint32_t *out, uint32_t value,
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

doca_error_t doca_comch_consumer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo,
                                                       uint32_t *max_num_tasks)
{
	return fp_cap(devinfo, max_num_tasks, devinfo ? devinfo->caps.comch_fp_max_tasks : 0,
	              __func__);
}

doca_error_t doca_comch_consumer_cap_get_max_buf_size(const struct doca_devinfo *devinfo,
                                                      uint32_t *max_buf_size)
{
	return fp_cap(devinfo, max_buf_size, devinfo ? devinfo->caps.comch_fp_max_buf_size : 0,
	              __func__);
}

doca_error_t doca_comch_consumer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
                                                          uint32_t *max_buf_list_len)
{
	return fp_cap(devinfo, max_buf_list_len, 1, __func__);
}

doca_error_t doca_comch_consumer_cap_get_max_consumers(const struct doca_devinfo *devinfo,
                                                       uint32_t *max_consumers)
{
	return fp_cap(devinfo, max_consumers, devinfo ? devinfo->caps.comch_fp_max_endpoints : 0,
	              __func__);
}

doca_error_t doca_comch_consumer_cap_get_max_imm_data_len(const struct doca_devinfo *devinfo,
                                                          uint32_t *max_imm_data_len)
{
	return fp_cap(devinfo, max_imm_data_len, devinfo ? devinfo->caps.comch_max_imm_data : 0,
	              __func__);
}

doca_error_t doca_comch_consumer_get_imm_data_len(const struct doca_comch_consumer *consumer,
                                                  uint32_t *imm_data_len)
{
	ODMA_CHECK_ARG(consumer != NULL && imm_data_len != NULL,
	               "doca_comch_consumer_get_imm_data_len: NULL argument");
	*imm_data_len = consumer->imm_len;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer_set_imm_data_len(struct doca_comch_consumer *consumer,
                                                  uint32_t imm_data_len)
{
	ODMA_CHECK_ARG(consumer != NULL,
	               "doca_comch_consumer_set_imm_data_len: consumer must not be NULL");
	if (consumer->ctx.state != DOCA_CTX_STATE_IDLE) {
		ODMA_ERR("doca_comch_consumer_set_imm_data_len: consumer %u is not IDLE",
		         consumer->id);
		return DOCA_ERROR_BAD_STATE;
	}
	ODMA_CHECK_ARG(imm_data_len <= consumer->ctx.caps->comch_max_imm_data,
	               "doca_comch_consumer_set_imm_data_len: %u bytes is above the device's %u "
	               "(doca_comch_consumer_cap_get_max_imm_data_len)",
	               imm_data_len, consumer->ctx.caps->comch_max_imm_data);
	consumer->imm_len = imm_data_len;
	return DOCA_SUCCESS;
}

struct doca_ctx *doca_comch_consumer_as_ctx(struct doca_comch_consumer *consumer)
{
	return consumer != NULL ? &consumer->ctx : NULL;
}

doca_error_t doca_comch_consumer_task_post_recv_set_conf(
        struct doca_comch_consumer *consumer,
        doca_comch_consumer_task_post_recv_completion_cb_t task_completion_cb,
        doca_comch_consumer_task_post_recv_completion_cb_t task_error_cb,
        uint32_t num_post_recv_tasks)
{
	uint32_t cap;

	ODMA_CHECK_ARG(consumer != NULL && task_completion_cb != NULL && task_error_cb != NULL,
	               "doca_comch_consumer_task_post_recv_set_conf: the consumer and both "
	               "callbacks are required");
	if (consumer->ctx.state != DOCA_CTX_STATE_IDLE) {
		ODMA_ERR("doca_comch_consumer_task_post_recv_set_conf: consumer %u is not IDLE",
		         consumer->id);
		return DOCA_ERROR_BAD_STATE;
	}
	cap = consumer->ctx.caps->comch_fp_max_tasks;
	ODMA_CHECK_ARG(num_post_recv_tasks >= 1 && num_post_recv_tasks <= cap,
	               "doca_comch_consumer_task_post_recv_set_conf: %u tasks is outside 1..%u "
	               "(doca_comch_consumer_cap_get_max_num_tasks)",
	               num_post_recv_tasks, cap);
	consumer->ok_cb = task_completion_cb;
	consumer->err_cb = task_error_cb;
	consumer->ctx.num_tasks = num_post_recv_tasks;
	consumer->ctx.configured = true;
	return DOCA_SUCCESS;
}

doca_error_t
doca_comch_consumer_task_post_recv_alloc_init(struct doca_comch_consumer *consumer,
                                              struct doca_buf *buf,
                                              struct doca_comch_consumer_task_post_recv **task)
{
	struct doca_comch_consumer_task_post_recv *t;
	struct doca_task *base;
	doca_error_t r;

	ODMA_CHECK_ARG(consumer != NULL && task != NULL,
	               "doca_comch_consumer_task_post_recv_alloc_init: NULL argument");
	if (buf != NULL && buf->mmap != consumer->mmap) {
		ODMA_ERR("doca_comch_consumer_task_post_recv_alloc_init: buf %p is not in the "
		         "consumer's mmap %p",
		         (void *)buf, (void *)consumer->mmap);
		return DOCA_ERROR_INVALID_VALUE;
	}
	r = doca_priv_task_alloc(&consumer->ctx, &base);
	if (r != DOCA_SUCCESS)
		return r;
	t = (struct doca_comch_consumer_task_post_recv *)base;
	t->buf = buf;
	t->producer_id = 0;
	t->imm_len = 0;
	*task = t;
	return DOCA_SUCCESS;
}

struct doca_buf *
doca_comch_consumer_task_post_recv_get_buf(const struct doca_comch_consumer_task_post_recv *task)
{
	return task != NULL ? task->buf : NULL;
}

void doca_comch_consumer_task_post_recv_set_buf(struct doca_comch_consumer_task_post_recv *task,
                                                struct doca_buf *buf)
{
	if (task != NULL)
		task->buf = buf;
}

uint32_t doca_comch_consumer_task_post_recv_get_producer_id(
        const struct doca_comch_consumer_task_post_recv *task)
{
	return task != NULL ? task->producer_id : 0;
}

const uint8_t *doca_comch_consumer_task_post_recv_get_imm_data(
        const struct doca_comch_consumer_task_post_recv *task)
{
	return task != NULL && task->imm_len > 0 ? task->imm : NULL;
}

uint32_t doca_comch_consumer_task_post_recv_get_imm_data_len(
        const struct doca_comch_consumer_task_post_recv *task)
{
	return task != NULL ? task->imm_len : 0;
}

struct doca_task *
doca_comch_consumer_task_post_recv_as_task(struct doca_comch_consumer_task_post_recv *task)
{
	return task != NULL ? &task->base : NULL;
}

/* ---- producer ------------------------------------------------------------------------------ */

static doca_error_t producer_start(struct doca_ctx *ctx)
{
	struct doca_comch_producer *p = producer_of(ctx);

	if (atomic_load(&p->conn->dead)) {
		ODMA_ERR("comch producer %u: its connection is closed; create producers on a live "
		         "connection",
		         p->id);
		return DOCA_ERROR_NOT_CONNECTED;
	}
	p->expired = false;
	return DOCA_SUCCESS;
}

static bool producer_progress(struct doca_ctx *ctx)
{
	struct doca_comch_producer *p = producer_of(ctx);

	comch_conn_flush_ctl(p->conn);
	if (p->expired || !atomic_load_explicit(&p->conn->dead, memory_order_acquire))
		return false;
	p->expired = true;
	ODMA_WARN("comch producer %u: its connection closed; the producer expires", p->id);
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
			ODMA_ERR("doca_task_submit: producer send source list is longer than %u "
			         "elements",
			         COMCH_MAX_IOV);
			return false;
		}
		if (b->mmap == NULL || b->mmap->from_export) {
			ODMA_ERR("doca_task_submit: producer send source buf %p must be in a local "
			         "mmap",
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

/* Claims the next posted slot of @ring for @need bytes and @imm immediate bytes. */
static doca_error_t ring_claim(struct doca_comch_producer *p, struct comch_ring *ring, uint32_t cid,
                               uint64_t need, uint32_t imm, struct comch_slot **out)
{
	for (;;) {
		uint64_t c = atomic_load_explicit(&ring->claim_seq, memory_order_acquire);
		uint64_t posted;
		struct comch_slot *s;

		if (c & COMCH_RING_CLOSED) {
			ODMA_ERR("doca_task_submit: consumer %u of the peer has stopped; it takes "
			         "no more buffers",
			         cid);
			return DOCA_ERROR_NOT_FOUND;
		}
		posted = atomic_load_explicit(&ring->post_seq, memory_order_acquire);
		if (c >= posted) {
			if (peer_hung_up(p->conn)) {
				ODMA_ERR("doca_task_submit: the peer closed the connection; "
				         "consumer %u will post no more buffers",
				         cid);
				return DOCA_ERROR_NOT_CONNECTED;
			}
			return DOCA_ERROR_AGAIN;
		}
		s = comch_ring_slot(ring, c);
		if (s->seq != c)
			return DOCA_ERROR_AGAIN; /* the consumer is publishing it right now */
		if (need > s->room) {
			ODMA_ERR("doca_task_submit: producer %u sends %llu bytes but consumer %u "
			         "posted a buffer of %llu free bytes; the buffer stays posted",
			         p->id, (unsigned long long)need, cid, (unsigned long long)s->room);
			return DOCA_ERROR_TOO_BIG;
		}
		if (imm > ring->imm_len) {
			ODMA_ERR("doca_task_submit: producer %u sends %u immediate bytes but "
			         "consumer %u accepts %u (doca_comch_consumer_set_imm_data_len)",
			         p->id, imm, cid, ring->imm_len);
			return DOCA_ERROR_TOO_BIG;
		}
		if (atomic_compare_exchange_weak_explicit(&ring->claim_seq, &c, c + 1,
		                                          memory_order_acq_rel,
		                                          memory_order_relaxed)) {
			*out = s;
			return DOCA_SUCCESS;
		}
	}
}

/* Writes @total bytes of @iov into the consumer's buffer at @addr in the peer process. */
static doca_error_t write_remote(struct doca_comch_producer *p, const struct iovec *iov,
                                 unsigned int niov, uint64_t addr, uint64_t total)
{
	struct iovec local[COMCH_MAX_IOV];
	unsigned int first = 0;
	uint64_t done = 0;

	memcpy(local, iov, niov * sizeof(*iov));
	while (done < total) {
		struct iovec remote = { .iov_base = (void *)(uintptr_t)(addr + done),
			                .iov_len = total - done };
		ssize_t k = process_vm_writev(p->conn->peer_pid, local + first, niov - first,
		                              &remote, 1, 0);

		if (k <= 0) {
			if (k < 0 && errno == EINTR)
				continue;
			ODMA_ERR("comch producer %u: writing %llu bytes into the peer (pid %d) "
			         "failed: %s%s",
			         p->id, (unsigned long long)total, (int)p->conn->peer_pid,
			         k < 0 ? strerror(errno) : "no progress",
			         k < 0 && errno == EPERM
			                 ? " (process_vm_writev needs ptrace rights: same user, "
			                   "and Yama ptrace_scope 0 or 1)"
			                 : "");
			return DOCA_ERROR_IO_FAILED;
		}
		done += (uint64_t)k;
		while (k > 0 && first < niov) {
			if ((size_t)k >= local[first].iov_len) {
				k -= (ssize_t)local[first].iov_len;
				first++;
			} else {
				local[first].iov_base = (char *)local[first].iov_base + k;
				local[first].iov_len -= (size_t)k;
				k = 0;
			}
		}
	}
	return DOCA_SUCCESS;
}

/* Finds the peer's consumer id and holds it (users++) for a send; NULL when it has none. */
static struct comch_rcons *producer_hold_consumer(const struct doca_comch_producer *p,
                                                  struct doca_comch_connection *conn,
                                                  uint32_t consumer_id)
{
	struct comch_rcons *r;

	pthread_mutex_lock(&conn->lock);
	r = rcons_find(conn, consumer_id);
	if (r != NULL && !r->expired)
		r->users++;
	pthread_mutex_unlock(&conn->lock);
	if (r == NULL || r->expired) {
		ODMA_ERR("doca_task_submit: producer %u: the peer has no consumer with id %u%s",
		         p->id, consumer_id,
		         r != NULL ? " any more (it expired)"
		                   : " (use an id reported by the new-consumer callback)");
		return NULL;
	}
	return r;
}

static doca_error_t producer_submit(struct doca_task *task)
{
	struct doca_comch_producer_task_send *t = (struct doca_comch_producer_task_send *)task;
	struct doca_comch_producer *p = producer_of(task->ctx);
	struct doca_comch_connection *conn = p->conn;
	struct iovec iov[COMCH_MAX_IOV];
	unsigned int niov = 0;
	uint64_t total = 0;
	struct comch_rcons *r;
	struct comch_slot *s = NULL;
	doca_error_t res, status;

	if (atomic_load_explicit(&conn->dead, memory_order_acquire)) {
		ODMA_ERR("doca_task_submit: producer %u: its connection is closed", p->id);
		return DOCA_ERROR_NOT_CONNECTED;
	}
	if (t->buf != NULL && !producer_gather(t, task->ctx, iov, &niov, &total))
		return DOCA_ERROR_INVALID_VALUE;
	if (total == 0 && t->imm_len == 0) {
		ODMA_ERR("doca_task_submit: producer %u: the task has neither data nor immediate "
		         "data",
		         p->id);
		return DOCA_ERROR_INVALID_VALUE;
	}
	r = producer_hold_consumer(p, conn, t->consumer_id);
	if (r == NULL)
		return DOCA_ERROR_NOT_FOUND;
	res = ring_claim(p, r->ring, t->consumer_id, total, t->imm_len, &s);
	if (res == DOCA_SUCCESS) {
		status = total ? write_remote(p, iov, niov, s->addr, total) : DOCA_SUCCESS;
		s->written = status == DOCA_SUCCESS ? total : 0;
		s->producer_id = p->id;
		s->imm_len = status == DOCA_SUCCESS ? t->imm_len : 0;
		if (s->imm_len)
			memcpy(s->imm, t->imm, s->imm_len);
		s->status = status;
		atomic_store_explicit(&s->state, COMCH_SLOT_DONE, memory_order_release);
		doca_priv_task_complete(task, status);
	}
	pthread_mutex_lock(&conn->lock);
	if (--r->users == 0 && r->orphan)
		rcons_free(r);
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
};

doca_error_t doca_comch_producer_create(struct doca_comch_connection *comch_connection,
                                        struct doca_comch_producer **producer)
{
	struct doca_comch_connection *conn = comch_connection;
	struct doca_comch_producer *p;
	uint32_t cap;
	doca_error_t r;

	ODMA_CHECK_ARG(conn != NULL && producer != NULL,
	               "doca_comch_producer_create: NULL argument");
	r = conn_usable(conn, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return DOCA_ERROR_NO_MEMORY;
	r = doca_priv_ctx_init(&p->ctx, &producer_ops, conn->ep->ctx.dev);
	if (r != DOCA_SUCCESS) {
		free(p);
		return r;
	}
	p->ctx.queue_depth = UINT32_MAX;
	cap = p->ctx.caps->comch_fp_max_endpoints;
	pthread_mutex_lock(&conn->lock);
	if (conn->num_prod >= cap) {
		pthread_mutex_unlock(&conn->lock);
		doca_priv_ctx_destroy(&p->ctx);
		free(p);
		ODMA_ERR("doca_comch_producer_create: connection %p already has %u producers on "
		         "this side (doca_comch_producer_cap_get_max_producers)",
		         (void *)conn, cap);
		return DOCA_ERROR_NO_MEMORY;
	}
	p->id = conn_next_id(conn);
	conn->num_prod++;
	pthread_mutex_unlock(&conn->lock);
	comch_conn_get(conn);
	p->conn = conn;
	*producer = p;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_producer_destroy(struct doca_comch_producer *producer)
{
	struct doca_comch_connection *conn;
	doca_error_t r;

	ODMA_CHECK_ARG(producer != NULL, "doca_comch_producer_destroy: producer must not be NULL");
	r = doca_priv_ctx_destroy(&producer->ctx);
	if (r != DOCA_SUCCESS)
		return r;
	conn = producer->conn;
	pthread_mutex_lock(&conn->lock);
	conn->num_prod--;
	pthread_mutex_unlock(&conn->lock);
	comch_conn_put(conn);
	free(producer);
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_producer_cap_is_supported(const struct doca_devinfo *devinfo)
{
	ODMA_CHECK_ARG(devinfo != NULL,
	               "doca_comch_producer_cap_is_supported: devinfo must not be NULL");
	return devinfo->caps.comch ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_comch_producer_get_id(const struct doca_comch_producer *producer, uint32_t *id)
{
	ODMA_CHECK_ARG(producer != NULL && id != NULL, "doca_comch_producer_get_id: NULL argument");
	*id = producer->id;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_producer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo,
                                                       uint32_t *max_num_tasks)
{
	return fp_cap(devinfo, max_num_tasks, devinfo ? devinfo->caps.comch_fp_max_tasks : 0,
	              __func__);
}

doca_error_t doca_comch_producer_cap_get_max_buf_size(const struct doca_devinfo *devinfo,
                                                      uint32_t *max_buf_size)
{
	return fp_cap(devinfo, max_buf_size, devinfo ? devinfo->caps.comch_fp_max_buf_size : 0,
	              __func__);
}

doca_error_t doca_comch_producer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
                                                          uint32_t *max_buf_list_len)
{
	return fp_cap(devinfo, max_buf_list_len, COMCH_MAX_IOV, __func__);
}

doca_error_t doca_comch_producer_cap_get_max_producers(const struct doca_devinfo *devinfo,
                                                       uint32_t *max_producers)
{
	return fp_cap(devinfo, max_producers, devinfo ? devinfo->caps.comch_fp_max_endpoints : 0,
	              __func__);
}

struct doca_ctx *doca_comch_producer_as_ctx(struct doca_comch_producer *producer)
{
	return producer != NULL ? &producer->ctx : NULL;
}

doca_error_t doca_comch_producer_task_send_set_conf(
        struct doca_comch_producer *producer,
        doca_comch_producer_task_send_completion_cb_t task_completion_cb,
        doca_comch_producer_task_send_completion_cb_t task_error_cb, uint32_t num_send_tasks)
{
	uint32_t cap;

	ODMA_CHECK_ARG(producer != NULL && task_completion_cb != NULL && task_error_cb != NULL,
	               "doca_comch_producer_task_send_set_conf: the producer and both callbacks "
	               "are required");
	if (producer->ctx.state != DOCA_CTX_STATE_IDLE) {
		ODMA_ERR("doca_comch_producer_task_send_set_conf: producer %u is not IDLE",
		         producer->id);
		return DOCA_ERROR_BAD_STATE;
	}
	cap = producer->ctx.caps->comch_fp_max_tasks;
	ODMA_CHECK_ARG(num_send_tasks >= 1 && num_send_tasks <= cap,
	               "doca_comch_producer_task_send_set_conf: %u tasks is outside 1..%u "
	               "(doca_comch_producer_cap_get_max_num_tasks)",
	               num_send_tasks, cap);
	producer->ok_cb = task_completion_cb;
	producer->err_cb = task_error_cb;
	producer->ctx.num_tasks = num_send_tasks;
	producer->ctx.configured = true;
	return DOCA_SUCCESS;
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
	if (!imm_ok(&producer->ctx, imm_data_len, __func__))
		return DOCA_ERROR_INVALID_VALUE;
	r = doca_priv_task_alloc(&producer->ctx, &base);
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
