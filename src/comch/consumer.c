/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Comch fast-path consumers: a consumer posts receive buffers into a ring shared with the peer
 * process and harvests the slots producers filled; its context ops and public API.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "comch/comch.h"
#include "core/error/error.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(DOCA_COMCH_FASTPATH)

#define COMCH_EXPIRE_WAIT_MS 1000u /* a claimed slot of a lost connection: wait this long */
#define COMCH_STOP_WAIT_MS 1000u   /* a claimed slot of a live peer at our stop: as long */

static struct doca_comch_consumer *consumer_of(const struct doca_ctx *ctx)
{
	return odma_container_of(ctx, struct doca_comch_consumer, fp.ctx);
}

/* ---- consumer ------------------------------------------------------------------------------ */

static void consumer_drop_ring(struct doca_comch_consumer *c)
{
	uint64_t v;

	if (c->ring != NULL) {
		/*
		 * The transport thread writes into it under the lock (across machines), once the
		 * registration is acknowledged: no longer, so that a restart may make its next ring
		 * and geometry without the lock (a stale FP_DATA of the last run is dropped, not
		 * checked against a ring being made).
		 */
		pthread_mutex_lock(&c->fp.conn->lock);
		munmap(c->ring, (size_t)c->geom.ring_size);
		c->ring = NULL;
		atomic_store(&c->reg, COMCH_REG_NONE);
		pthread_mutex_unlock(&c->fp.conn->lock);
		/* no ring, no doorbell: unwatched until the next start (which drains it) */
		(void)doca_priv_pe_watch(c->fp.ctx.pe, c->fp.bell_fd, 0);
		if (read(c->fp.bell_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			ODMA_DBG("comch consumer %u: doorbell read failed: %s", c->fp.id,
			         strerror(errno));
	}
	c->ring = NULL;
	free(c->slot_task);
	c->slot_task = NULL;
	free(c->slot_room);
	c->slot_room = NULL;
}

/* Completes the slots a producer finished, in posting order. */
static bool consumer_harvest(struct doca_comch_consumer *c)
{
	bool any = false;
	struct comch_harvest h;

	while (c->done < c->posted) {
		uint32_t idx = (uint32_t)(c->done & (c->geom.nslots - 1));
		struct doca_comch_consumer_task_post_recv *t;

		if (!comch_ring_harvest(c->ring, &c->geom, c->done, c->slot_room[idx], &h))
			break;
		t = c->slot_task[idx];
		c->slot_task[idx] = NULL;
		if (h.bad != NULL)
			COMCH_PEER_LOG(WARNING, c->fp.conn,
			               "comch consumer %u: the peer (%s) reported %s (%llu; the "
			               "buffer has room for %llu bytes, %u immediate bytes); the "
			               "buffer fails with DOCA_ERROR_IO_FAILED",
			               c->fp.id, comch_conn_who(c->fp.conn).s, h.bad,
			               (unsigned long long)h.bad_value,
			               (unsigned long long)c->slot_room[idx], c->geom.imm_len);
		/* a task freed while posted: its buf may be back in its inventory already */
		if (h.status == DOCA_SUCCESS && !t->base.free_pending) {
			t->buf->data_len += h.written;
			t->producer_id = h.producer_id;
			t->imm_len = h.imm_len;
			if (h.imm_len > 0)
				memcpy(t->imm, h.imm, h.imm_len);
		}
		c->done++;
		doca_priv_task_complete(&t->base, h.status);
		any = true;
	}
	return any;
}

/* Fails the posted slots from c->done on (none of them is being written). */
static void consumer_fail_rest(struct doca_comch_consumer *c, doca_error_t status)
{
	while (c->done < c->posted) {
		uint32_t idx = (uint32_t)(c->done & (c->geom.nslots - 1));
		struct doca_comch_consumer_task_post_recv *t = c->slot_task[idx];

		c->slot_task[idx] = NULL;
		comch_ring_release(c->ring, &c->geom, c->done);
		c->done++;
		doca_priv_task_complete(&t->base, status);
	}
}

/*
 * Closes the ring to producers; slots claimed before stay (their writes finish) until
 * @wait_ms pass: a peer that claimed slots and never completes them cannot hold the stop.
 * Where this process writes the bytes itself (the network carrier: the transport's thread
 * claims, copies and fills a slot under the connection's lock), the ring closes under that
 * lock: no copy is then under way, whatever its size, and no claimed slot is left unfilled
 * (a 1 GiB copy slower than @wait_ms went on writing into a buffer already failed back).
 */
static void consumer_close_ring(struct doca_comch_consumer *c, uint32_t wait_ms)
{
	bool self = c->fp.conn->ch->car->self_bell;

	if (c->closed || c->ring == NULL)
		return;
	c->closed = true;
	if (self)
		pthread_mutex_lock(&c->fp.conn->lock);
	c->claim_limit = comch_ring_close(c->ring, c->done, c->posted);
	if (self)
		pthread_mutex_unlock(&c->fp.conn->lock);
	c->drain_deadline_ns = doca_priv_now_ns() + (uint64_t)wait_ms * 1000000ull;
}

/* After the ring closed: the claimed slots are harvested, the unclaimed ones fail. */
static bool consumer_drain_closed(struct doca_comch_consumer *c, doca_error_t status)
{
	bool any = consumer_harvest(c);

	if (c->done < c->claim_limit) {
		if (doca_priv_now_ns() < c->drain_deadline_ns)
			return any;
		ODMA_WARN("comch consumer %u: %llu buffers claimed by the %s peer (%s) were "
		          "never completed within %u ms; failing them (a late write of that peer "
		          "may still land in them)",
		          c->fp.id, (unsigned long long)(c->claim_limit - c->done),
		          c->fp.expired ? "lost" : "live", comch_conn_who(c->fp.conn).s,
		          c->fp.expired ? COMCH_EXPIRE_WAIT_MS : COMCH_STOP_WAIT_MS);
		c->claim_limit = c->done;
	}
	if (c->done < c->posted) {
		consumer_fail_rest(c, status);
		any = true;
	}
	return any;
}

/*
 * A fresh ring of @nslots slots for @c in place of its last one: its geometry, its slot
 * tables, its shared memory (*fd, for the peer) and its doorbell, which @c's PE then watches.
 * False when memory ran out (errno says why; what was made stays for consumer_drop_ring).
 */
static bool consumer_ring_make(struct doca_comch_consumer *c, uint32_t nslots, int *fd)
{
	consumer_drop_ring(c);
	comch_ring_geom_make(&c->geom, nslots, c->imm_len, c->fp.id);
	c->slot_task = calloc(nslots, sizeof(*c->slot_task));
	c->slot_room = calloc(nslots, sizeof(*c->slot_room));
	c->ring = c->slot_task != NULL && c->slot_room != NULL
	                  ? comch_shm_create((size_t)c->geom.ring_size, fd, "odma-comch-ring")
	                  : NULL;
	if (c->ring == NULL)
		return false;
	comch_ring_init(c->ring, &c->geom);
	c->ring->bell_fd = c->fp.bell_fd;
	atomic_init(&c->ring->bell, ODMA_BELL_IDLE);
	/* bytes landing from this process' own thread (across machines) ring it there */
	atomic_init(&c->ring->bell_peer, c->fp.conn->ch->car->self_bell ? 1u : 0u);
	(void)doca_priv_pe_watch(c->fp.ctx.pe, c->fp.bell_fd, EPOLLIN);
	return true;
}

static doca_error_t consumer_start(struct doca_ctx *ctx)
{
	struct doca_comch_consumer *c = consumer_of(ctx);
	struct comch_cons_new m = { 0 };
	uint32_t nslots = 1;
	int fd = -1;

	if (atomic_load(&c->fp.conn->dead)) {
		ODMA_ERR("comch consumer %u: its connection is closed; "
		         "create consumers on a live connection",
		         c->fp.id);
		return DOCA_ERROR_NOT_CONNECTED;
	}
	while (nslots < ctx->num_tasks)
		nslots <<= 1;
	if (!consumer_ring_make(c, nslots, &fd)) {
		ODMA_ERR("comch consumer %u: cannot create its ring of %u slots: %s", c->fp.id,
		         nslots, strerror(errno));
		consumer_drop_ring(c);
		return DOCA_ERROR_NO_MEMORY;
	}
	m.nslots = c->geom.nslots;
	m.slot_size = c->geom.slot_size;
	m.imm_len = c->geom.imm_len;
	m.ring_size = c->geom.ring_size;
	c->posted = c->done = c->claim_limit = 0;
	c->closed = c->fp.expired = false;
	/* the peer's producers write into this process (process_vm_writev needs ptrace rights) */
	(void)prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	atomic_store(&c->reg, COMCH_REG_SENT);
	if (!comch_conn_send_ctl(c->fp.conn, COMCH_W_CONS_NEW, c->fp.id, &m, sizeof(m), fd)) {
		close(fd);
		consumer_drop_ring(c);
		ODMA_ERR("comch consumer %u: its connection closed; the consumer cannot register",
		         c->fp.id);
		return DOCA_ERROR_NOT_CONNECTED;
	}
	close(fd);
	comch_fp_poll(&c->fp, true);
	return DOCA_ERROR_IN_PROGRESS;
}

static bool consumer_progress(struct doca_ctx *ctx)
{
	struct doca_comch_consumer *c = consumer_of(ctx);
	struct doca_comch_connection *conn = c->fp.conn;
	bool dead = atomic_load_explicit(&conn->dead, memory_order_acquire);
	int reg;

	if (c->ring != NULL)
		doca_priv_bell_drain(&c->ring->bell, c->fp.bell_fd);
	comch_conn_flush_ctl(conn);
	if (ctx->state == DOCA_CTX_STATE_STARTING) {
		reg = atomic_load(&c->reg);
		if (reg == COMCH_REG_ACKED && !dead) {
			doca_priv_ctx_set_state(ctx, DOCA_CTX_STATE_RUNNING);
			return true;
		}
		if (reg == COMCH_REG_REFUSED || dead) {
			ODMA_ERR("comch consumer %u: the peer %s; the consumer did not start",
			         c->fp.id, dead ? "went away" : "refused it");
			comch_fp_poll(&c->fp, false);
			consumer_drop_ring(c);
			doca_priv_ctx_set_state(ctx, DOCA_CTX_STATE_IDLE);
			return true;
		}
		return false;
	}
	if (dead && !c->fp.expired) {
		c->fp.expired = true;
		comch_fp_poll(&c->fp, false);
		consumer_close_ring(c, COMCH_EXPIRE_WAIT_MS);
		ODMA_WARN("comch consumer %u: its connection closed; the consumer expires (posted "
		          "buffers fail with DOCA_ERROR_CONNECTION_RESET)",
		          c->fp.id);
		if (ctx->state == DOCA_CTX_STATE_RUNNING)
			doca_priv_ctx_set_state(ctx, DOCA_CTX_STATE_STOPPING);
	}
	if (c->closed)
		return consumer_drain_closed(c, c->fp.expired ? DOCA_ERROR_CONNECTION_RESET
		                                              : DOCA_ERROR_IO_FAILED);
	return consumer_harvest(c);
}

/* Whether the slot to harvest next is done (a producer wrote it). */
static bool consumer_slot_ready(const struct doca_comch_consumer *c)
{
	return c->done < c->posted &&
	       atomic_load_explicit(&comch_ring_slot(c->ring, &c->geom, c->done)->state,
	                            memory_order_acquire) == COMCH_SLOT_DONE;
}

/*
 * The arm op: the doorbell (a producer's write, the peer's ACK, the connection's end) is
 * armed first, then what progress would do now is checked (see consumer_progress).
 */
static uint64_t consumer_arm(struct doca_ctx *ctx)
{
	struct doca_comch_consumer *c = consumer_of(ctx);
	bool dead;

	if (c->ring == NULL)
		return ODMA_WAKE_NEVER; /* its doorbell is not watched (consumer_drop_ring) */
	/* rung after the last progress (an IDLE consumer's is never drained by progress) */
	doca_priv_bell_drain(&c->ring->bell, c->fp.bell_fd);
	/* armed while IDLE too: a ring landing after this drain is read by the next one */
	doca_priv_bell_arm(&c->ring->bell);
	if (ctx->state == DOCA_CTX_STATE_IDLE)
		return ODMA_WAKE_NEVER;
	dead = atomic_load_explicit(&c->fp.conn->dead, memory_order_acquire);
	if (ctx->state == DOCA_CTX_STATE_STARTING)
		return atomic_load(&c->reg) != COMCH_REG_SENT || dead ? 0 : ODMA_WAKE_NEVER;
	if ((dead && !c->fp.expired) || consumer_slot_ready(c))
		return 0;
	if (c->closed && c->done < c->posted) {
		if (c->done >= c->claim_limit)
			return 0;            /* the unclaimed rest fails now */
		return c->drain_deadline_ns; /* claimed slots a peer holds fail then */
	}
	if (atomic_load_explicit(&c->fp.conn->outbox_n, memory_order_relaxed) != 0 ||
	    (c->done < c->posted && atomic_load(&c->ring->bell_peer) == 0))
		return doca_priv_now_ns() + 1000000ull; /* no doorbell for it: a short timer */
	return ODMA_WAKE_NEVER;
}

static void consumer_stop(struct doca_ctx *ctx)
{
	struct doca_comch_consumer *c = consumer_of(ctx);

	comch_fp_poll(&c->fp, false);
	if (c->ring == NULL)
		return;
	consumer_close_ring(c, COMCH_STOP_WAIT_MS);
	if (!atomic_load(&c->fp.conn->dead))
		(void)comch_conn_send_ctl(c->fp.conn, COMCH_W_CONS_GONE, c->fp.id, NULL, 0, -1);
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
	size_t room;
	doca_error_t r;

	if (buf == NULL || buf->mmap != c->mmap || !odma_buf_is_head(buf) || buf->next != NULL) {
		ODMA_ERR("doca_task_submit: post-recv task %p needs a single doca_buf of the "
		         "consumer's mmap %p (got %p)",
		         (void *)t, (void *)c->mmap, (void *)buf);
		return DOCA_ERROR_INVALID_VALUE;
	}
	r = comch_fp_buf_registered(&c->fp, "consumer post-recv", t, buf);
	if (r != DOCA_SUCCESS)
		return r; /* nothing is posted for the peer to write into */
	room = odma_buf_room(buf);
	if (room == 0 || room > task->ctx->caps->comch_fp_max_buf_size) {
		ODMA_ERR("doca_task_submit: post-recv buffer %p has %zu free bytes; it must have "
		         "1..%u (doca_comch_consumer_cap_get_max_buf_size)",
		         (void *)buf, room, task->ctx->caps->comch_fp_max_buf_size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	idx = (uint32_t)(c->posted & (c->geom.nslots - 1));
	t->producer_id = 0;
	t->imm_len = 0;
	c->slot_task[idx] = t;
	c->slot_room[idx] = room;
	comch_ring_post(c->ring, &c->geom, c->posted,
	                (uint64_t)(uintptr_t)(buf->data + buf->data_len), room);
	if (c->fp.conn->ch->car->post != NULL)
		c->fp.conn->ch->car->post(c, c->posted, room);
	c->posted++;
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
	.arm = consumer_arm,
};

/*
 * Whether @mmap can hold a consumer's buffers on @conn: a started mmap of this process's
 * memory, given the Comch context's device. DOCA_SUCCESS, or the (logged) error.
 */
static doca_error_t consumer_mmap_usable(const struct doca_comch_connection *conn,
                                         const struct doca_mmap *mmap)
{
	static const char fn[] = "doca_comch_consumer_create";

	if (!mmap->started || mmap->from_export) {
		ODMA_ERR_AT(fn,
		            "doca_comch_consumer_create: "
		            "mmap %p must be a started mmap of this process's memory",
		            (void *)mmap);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!odma_mmap_has_dev(mmap, conn->ep->ctx.dev)) {
		ODMA_ERR_AT(fn,
		            "doca_comch_consumer_create: mmap %p was never given device %s, the "
		            "Comch context's (on hardware the consumer has no memory key there); "
		            "fix: doca_mmap_add_dev(mmap, dev) before doca_mmap_start",
		            (void *)mmap, conn->ep->ctx.dev->info->pci_addr);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer_create(struct doca_comch_connection *comch_connection,
                                        struct doca_mmap *buf_mmap,
                                        struct doca_comch_consumer **consumer)
{
	struct doca_comch_connection *conn = comch_connection;
	struct doca_comch_consumer *c;
	doca_error_t r;

	ODMA_CHECK_ARG(conn != NULL && buf_mmap != NULL && consumer != NULL,
	               "doca_comch_consumer_create: NULL argument");
	r = comch_fp_conn_usable(conn, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	r = consumer_mmap_usable(conn, buf_mmap);
	if (r != DOCA_SUCCESS)
		return r;
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return DOCA_ERROR_NO_MEMORY;
	c->mmap = buf_mmap;
	atomic_init(&c->reg, COMCH_REG_NONE);
	r = comch_fp_ctx_init(&c->fp, conn, &conn->lcons, &consumer_ops, "consumer", __func__);
	if (r != DOCA_SUCCESS) {
		free(c);
		return r;
	}
	*consumer = c;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer_destroy(struct doca_comch_consumer *consumer)
{
	doca_error_t r;

	ODMA_CHECK_ARG(consumer != NULL, "doca_comch_consumer_destroy: consumer must not be NULL");
	r = comch_fp_ctx_destroy(&consumer->fp);
	if (r != DOCA_SUCCESS)
		return r;
	consumer_drop_ring(consumer);
	comch_fp_ctx_leave(&consumer->fp);
	free(consumer);
	return DOCA_SUCCESS;
}

ODMA_CAP_SUPPORTED(doca_comch_consumer_cap_is_supported, comch)

ODMA_GETTER(doca_comch_consumer_get_id, const struct doca_comch_consumer, consumer, uint32_t, id,
            consumer->fp.id)

COMCH_CAP_GETTER(doca_comch_consumer_cap_get_max_num_tasks, devinfo->caps.comch_fp_max_tasks)
COMCH_CAP_GETTER(doca_comch_consumer_cap_get_max_buf_size, devinfo->caps.comch_fp_max_buf_size)
COMCH_CAP_GETTER(doca_comch_consumer_cap_get_max_buf_list_len, 1)
COMCH_CAP_GETTER(doca_comch_consumer_cap_get_max_consumers, devinfo->caps.comch_fp_max_endpoints)
COMCH_CAP_GETTER(doca_comch_consumer_cap_get_max_imm_data_len, devinfo->caps.comch_max_imm_data)

ODMA_GETTER(doca_comch_consumer_get_imm_data_len, const struct doca_comch_consumer, consumer,
            uint32_t, imm_data_len, consumer->imm_len)

doca_error_t doca_comch_consumer_set_imm_data_len(struct doca_comch_consumer *consumer,
                                                  uint32_t imm_data_len)
{
	ODMA_CHECK_ARG(consumer != NULL,
	               "doca_comch_consumer_set_imm_data_len: consumer must not be NULL");
	if (consumer->fp.ctx.state != DOCA_CTX_STATE_IDLE) {
		ODMA_ERR("doca_comch_consumer_set_imm_data_len: consumer %u is not IDLE",
		         consumer->fp.id);
		return DOCA_ERROR_BAD_STATE;
	}
	ODMA_CHECK_ARG(imm_data_len <= consumer->fp.ctx.caps->comch_max_imm_data,
	               "doca_comch_consumer_set_imm_data_len: %u bytes is above the device's %u "
	               "(doca_comch_consumer_cap_get_max_imm_data_len)",
	               imm_data_len, consumer->fp.ctx.caps->comch_max_imm_data);
	consumer->imm_len = imm_data_len;
	return DOCA_SUCCESS;
}

ODMA_CTX_AS_CTX(comch_consumer, fp.ctx)

doca_error_t doca_comch_consumer_task_post_recv_set_conf(
        struct doca_comch_consumer *consumer,
        doca_comch_consumer_task_post_recv_completion_cb_t task_completion_cb,
        doca_comch_consumer_task_post_recv_completion_cb_t task_error_cb,
        uint32_t num_post_recv_tasks)
{
	doca_error_t r;

	ODMA_CHECK_ARG(consumer != NULL && task_completion_cb != NULL && task_error_cb != NULL,
	               "doca_comch_consumer_task_post_recv_set_conf: the consumer and both "
	               "callbacks are required");
	r = comch_fp_set_conf(&consumer->fp.ctx, "consumer", consumer->fp.id, num_post_recv_tasks,
	                      __func__);
	if (r == DOCA_SUCCESS) {
		consumer->ok_cb = task_completion_cb;
		consumer->err_cb = task_error_cb;
	}
	return r;
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
	r = doca_priv_task_alloc(&consumer->fp.ctx, &base);
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
