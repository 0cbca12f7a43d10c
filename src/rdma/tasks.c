/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The RDMA task types: configuration, allocation, accessors, and submission. A submitted
 * task's bytes leave at submit (the request is written on the connection's out stream at
 * once), so a program may reuse a source as soon as doca_task_submit returns; its
 * completion arrives from the reader thread through the context's queue (serve.c).
 */
#include <stdlib.h>
#include <string.h>

#include "core/error/error.h"
#include "core/log/log.h"
#include "core/memory/memory.h"
#include "core/sync_event/sync_event.h"
#include "rdma/rdma.h"
#include "util/queue.h"

ODMA_LOG_REGISTER(ODMA_RDMA_TASK)

doca_error_t odma_rd_cap_task(const struct doca_devinfo *devinfo, const char *fn);
doca_error_t odma_rd_submit(struct rd_task *t);

/* ---------------------------------------------------------------- conf and alloc */

static doca_error_t rd_set_conf(struct doca_rdma *rd, enum rd_task_type type, void (*ok)(void),
                                void (*err)(void), uint32_t num, const char *fn)
{
	uint32_t max;

	ODMA_CHECK_ARG(rd != NULL && ok != NULL && err != NULL && num > 0,
	               "%s: rdma, both callbacks and a non-zero num_tasks are required", fn);
	if (!odma_rd_idle(rd, fn, "configure tasks"))
		return DOCA_ERROR_BAD_STATE;
	/* the context's one pool holds every type's share, at most the device's task limit */
	max = doca_priv_task_conf_max(&rd->ctx);
	return doca_priv_task_conf_set(&rd->ctx, rd->conf, RD_T_COUNT, type,
	                               odma_rd_type_names[type], ok, err, num, max,
	                               "the device's task limit", fn);
}

/*
 * The common part of every allocate_init: checks the out-parameter @out and the context,
 * takes a task of @type from its pool and returns it cleared, or NULL with the reason in *@r.
 */
static struct rd_task *rd_alloc(struct doca_rdma *rd, enum rd_task_type type,
                                struct doca_rdma_connection *c, union doca_data ud, const void *out,
                                doca_error_t *r, const char *fn)
{
	struct doca_task *t;
	struct rd_task *rt;

	*r = DOCA_ERROR_INVALID_VALUE;
	if (out == NULL) {
		ODMA_ERR_AT(fn, "%s: task must not be NULL", fn);
		return NULL;
	}
	if (rd == NULL) {
		ODMA_ERR_AT(fn, "rdma and task must not be NULL");
		return NULL;
	}
	if (type != RD_T_RECEIVE && !rd_conn_of(rd, c)) {
		ODMA_ERR_AT(fn, "rdma_connection %p is not a connection of RDMA context %p",
		            (void *)c, (void *)rd);
		return NULL;
	}
	*r = doca_priv_task_conf_alloc(&rd->ctx, &rd->conf[type], odma_rd_type_names[type], &t, fn);
	if (*r != DOCA_SUCCESS)
		return NULL;
	rt = (struct rd_task *)t;
	memset((char *)rt + sizeof(rt->base), 0, sizeof(*rt) - sizeof(rt->base));
	rt->type = (uint8_t)type;
	rt->conn = c;
	t->user_data = ud;
	return rt;
}

#define RD_T(task) ((struct rd_task *)(void *)(uintptr_t)(task))

#define RD_COMMON(tname, TYPE)                                                                     \
	doca_error_t doca_rdma_cap_task_##tname##_is_supported(const struct doca_devinfo *devinfo) \
	{                                                                                          \
		return odma_rd_cap_task(devinfo, __func__);                                        \
	}                                                                                          \
	doca_error_t doca_rdma_task_##tname##_set_conf(                                            \
	        struct doca_rdma *rdma, doca_rdma_task_##tname##_completion_cb_t ok_cb,            \
	        doca_rdma_task_##tname##_completion_cb_t err_cb, uint32_t num_tasks)               \
	{                                                                                          \
		return rd_set_conf(rdma, TYPE, (void (*)(void))ok_cb, (void (*)(void))err_cb,      \
		                   num_tasks, __func__);                                           \
	}                                                                                          \
	struct doca_task *doca_rdma_task_##tname##_as_task(struct doca_rdma_task_##tname *task)    \
	{                                                                                          \
		return task != NULL ? &RD_T(task)->base : NULL;                                    \
	}

/* A getter: member M of the task as GTYPE (0 for a NULL task). */
#define RD_GET(tname, field, GTYPE, M)                                                             \
	GTYPE doca_rdma_task_##tname##_get_##field(const struct doca_rdma_task_##tname *task)      \
	{                                                                                          \
		return task != NULL ? (GTYPE)RD_T(task)->M : (GTYPE)0;                             \
	}

/* An accessor pair: set takes STYPE, get returns GTYPE, stored in member M (cast CAST). */
#define RD_ACC(tname, field, STYPE, GTYPE, M, CAST)                                                \
	void doca_rdma_task_##tname##_set_##field(struct doca_rdma_task_##tname *task,             \
	                                          STYPE field)                                     \
	{                                                                                          \
		if (doca_priv_task_settable(task, __func__))                                       \
			RD_T(task)->M = (CAST)field;                                               \
	}                                                                                          \
	RD_GET(tname, field, GTYPE, M)

typedef const struct doca_buf *rd_cbuf;
typedef struct doca_buf *rd_buf;
typedef const struct doca_sync_event_remote_net *rd_cse;
typedef struct doca_sync_event_remote_net *rd_se;
typedef struct doca_rdma_connection *rd_conn;
typedef const struct doca_rdma_connection *rd_cconn;

/* A task's connection: an accessor pair of its own name. */
#define RD_CONN(tname) RD_ACC(tname, rdma_connection, rd_conn, rd_cconn, conn, rd_conn)

RD_COMMON(receive, RD_T_RECEIVE)
RD_COMMON(send, RD_T_SEND)
RD_COMMON(send_imm, RD_T_SEND_IMM)
RD_COMMON(read, RD_T_READ)
RD_COMMON(write, RD_T_WRITE)
RD_COMMON(write_imm, RD_T_WRITE_IMM)
RD_COMMON(atomic_cmp_swp, RD_T_CMP_SWP)
RD_COMMON(atomic_fetch_add, RD_T_FETCH_ADD)
RD_COMMON(remote_net_sync_event_get, RD_T_SE_GET)
RD_COMMON(remote_net_sync_event_notify_set, RD_T_SE_SET)
RD_COMMON(remote_net_sync_event_notify_add, RD_T_SE_ADD)
RD_CONN(send)
RD_CONN(send_imm)
RD_CONN(read)
RD_CONN(write)
RD_CONN(write_imm)
RD_CONN(atomic_cmp_swp)
RD_CONN(atomic_fetch_add)
RD_CONN(remote_net_sync_event_get)
RD_CONN(remote_net_sync_event_notify_set)
RD_CONN(remote_net_sync_event_notify_add)

RD_ACC(receive, dst_buf, rd_buf, rd_buf, dst, rd_buf)
RD_ACC(send, src_buf, rd_cbuf, rd_cbuf, src, rd_cbuf)
RD_ACC(send_imm, src_buf, rd_cbuf, rd_cbuf, src, rd_cbuf)
RD_ACC(send_imm, immediate_data, doca_be32_t, doca_be32_t, arg0, uint64_t)
RD_ACC(read, src_buf, rd_cbuf, rd_cbuf, src, rd_cbuf)
RD_ACC(read, dst_buf, rd_buf, rd_buf, dst, rd_buf)
RD_ACC(write, src_buf, rd_cbuf, rd_cbuf, src, rd_cbuf)
RD_ACC(write, dst_buf, rd_buf, rd_buf, dst, rd_buf)
RD_ACC(write_imm, src_buf, rd_cbuf, rd_cbuf, src, rd_cbuf)
RD_ACC(write_imm, dst_buf, rd_buf, rd_buf, dst, rd_buf)
RD_ACC(write_imm, immediate_data, doca_be32_t, doca_be32_t, arg0, uint64_t)
RD_ACC(atomic_cmp_swp, dst_buf, rd_buf, rd_buf, dst, rd_buf)
RD_ACC(atomic_cmp_swp, result_buf, rd_buf, rd_buf, result, rd_buf)
RD_ACC(atomic_cmp_swp, cmp_data, uint64_t, uint64_t, arg0, uint64_t)
RD_ACC(atomic_cmp_swp, swap_data, uint64_t, uint64_t, arg1, uint64_t)
RD_ACC(atomic_fetch_add, dst_buf, rd_buf, rd_buf, dst, rd_buf)
RD_ACC(atomic_fetch_add, result_buf, rd_buf, rd_buf, result, rd_buf)
RD_ACC(atomic_fetch_add, add_data, uint64_t, uint64_t, arg0, uint64_t)
RD_ACC(remote_net_sync_event_get, sync_event, rd_cse, rd_cse, se, rd_cse)
RD_ACC(remote_net_sync_event_get, dst_buf, rd_buf, rd_buf, dst, rd_buf)
RD_ACC(remote_net_sync_event_notify_set, sync_event, rd_se, rd_se, se, rd_cse)
RD_ACC(remote_net_sync_event_notify_set, src_buf, rd_cbuf, rd_cbuf, src, rd_cbuf)
RD_ACC(remote_net_sync_event_notify_add, sync_event, rd_se, rd_se, se, rd_cse)
RD_ACC(remote_net_sync_event_notify_add, result_buf, rd_buf, rd_buf, result, rd_buf)
RD_ACC(remote_net_sync_event_notify_add, add_data, uint64_t, uint64_t, arg0, uint64_t)

RD_GET(receive, result_len, uint32_t, res_len)
RD_GET(receive, result_immediate_data, doca_be32_t, res_imm)
RD_GET(receive, result_rdma_connection, rd_cconn, res_conn)
RD_GET(read, result_len, uint32_t, res_len)
RD_GET(remote_net_sync_event_get, result_len, uint32_t, res_len)

/* ---------------------------------------------------------------- receive */

doca_error_t doca_rdma_task_receive_set_dst_buf_list_len(struct doca_rdma *rdma,
                                                         uint32_t buf_list_len)
{
	ODMA_CHECK_ARG(rdma != NULL, "%s: rdma must not be NULL", __func__);
	if (!odma_rd_idle(rdma, __func__, "set the receive list length"))
		return DOCA_ERROR_BAD_STATE;
	if (buf_list_len == 0 || buf_list_len > rdma->ctx.caps->rdma_max_buf_list) {
		ODMA_ERR("%s: buf_list_len must be 1..%u", __func__,
		         rdma->ctx.caps->rdma_max_buf_list);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	rdma->recv_buf_list_len = buf_list_len;
	return DOCA_SUCCESS;
}

ODMA_GETTER(doca_rdma_task_receive_get_dst_buf_list_len, const struct doca_rdma, rdma, uint32_t,
            buf_list_len, rdma->recv_buf_list_len)

doca_error_t doca_rdma_task_receive_allocate_init(struct doca_rdma *rdma, struct doca_buf *dst_buf,
                                                  union doca_data user_data,
                                                  struct doca_rdma_task_receive **task)
{
	doca_error_t r;
	struct rd_task *t = rd_alloc(rdma, RD_T_RECEIVE, NULL, user_data, task, &r, __func__);

	if (t == NULL)
		return r;
	t->dst = dst_buf;
	*task = (struct doca_rdma_task_receive *)(void *)t;
	return DOCA_SUCCESS;
}

enum doca_rdma_opcode
doca_rdma_task_receive_get_result_opcode(const struct doca_rdma_task_receive *task)
{
	return task != NULL ? (enum doca_rdma_opcode)RD_T(task)->res_opcode
	                    : DOCA_RDMA_OPCODE_RECV_SEND;
}

/* ---------------------------------------------------------------- allocate_init */

#define RD_OUT(task, t) (*(task) = (void *)(t), DOCA_SUCCESS)

#define RD_ALLOC_BEGIN(TYPE)                                                                       \
	doca_error_t r;                                                                            \
	struct rd_task *t = rd_alloc(rdma, TYPE, rdma_connection, user_data, task, &r, __func__);  \
	if (t == NULL)                                                                             \
		return r;

doca_error_t doca_rdma_task_send_allocate_init(struct doca_rdma *rdma,
                                               struct doca_rdma_connection *rdma_connection,
                                               const struct doca_buf *src_buf,
                                               union doca_data user_data,
                                               struct doca_rdma_task_send **task)
{
	RD_ALLOC_BEGIN(RD_T_SEND)
	t->src = src_buf;
	return RD_OUT(task, t);
}

doca_error_t doca_rdma_task_send_imm_allocate_init(struct doca_rdma *rdma,
                                                   struct doca_rdma_connection *rdma_connection,
                                                   const struct doca_buf *src_buf,
                                                   doca_be32_t immediate_data,
                                                   union doca_data user_data,
                                                   struct doca_rdma_task_send_imm **task)
{
	RD_ALLOC_BEGIN(RD_T_SEND_IMM)
	t->src = src_buf;
	t->arg0 = immediate_data;
	return RD_OUT(task, t);
}

doca_error_t doca_rdma_task_read_allocate_init(struct doca_rdma *rdma,
                                               struct doca_rdma_connection *rdma_connection,
                                               const struct doca_buf *src_buf,
                                               struct doca_buf *dst_buf, union doca_data user_data,
                                               struct doca_rdma_task_read **task)
{
	RD_ALLOC_BEGIN(RD_T_READ)
	t->src = src_buf;
	t->dst = dst_buf;
	return RD_OUT(task, t);
}

doca_error_t doca_rdma_task_write_allocate_init(struct doca_rdma *rdma,
                                                struct doca_rdma_connection *rdma_connection,
                                                const struct doca_buf *src_buf,
                                                struct doca_buf *dst_buf, union doca_data user_data,
                                                struct doca_rdma_task_write **task)
{
	RD_ALLOC_BEGIN(RD_T_WRITE)
	t->src = src_buf;
	t->dst = dst_buf;
	return RD_OUT(task, t);
}

doca_error_t doca_rdma_task_write_imm_allocate_init(
        struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
        const struct doca_buf *src_buf, struct doca_buf *dst_buf, doca_be32_t immediate_data,
        union doca_data user_data, struct doca_rdma_task_write_imm **task)
{
	RD_ALLOC_BEGIN(RD_T_WRITE_IMM)
	t->src = src_buf;
	t->dst = dst_buf;
	t->arg0 = immediate_data;
	return RD_OUT(task, t);
}

doca_error_t doca_rdma_task_atomic_cmp_swp_allocate_init(
        struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
        struct doca_buf *dst_buf, struct doca_buf *result_buf, uint64_t cmp_data,
        uint64_t swap_data, union doca_data user_data, struct doca_rdma_task_atomic_cmp_swp **task)
{
	RD_ALLOC_BEGIN(RD_T_CMP_SWP)
	t->dst = dst_buf;
	t->result = result_buf;
	t->arg0 = cmp_data;
	t->arg1 = swap_data;
	return RD_OUT(task, t);
}

doca_error_t doca_rdma_task_atomic_fetch_add_allocate_init(
        struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
        struct doca_buf *dst_buf, struct doca_buf *result_buf, uint64_t add_data,
        union doca_data user_data, struct doca_rdma_task_atomic_fetch_add **task)
{
	RD_ALLOC_BEGIN(RD_T_FETCH_ADD)
	t->dst = dst_buf;
	t->result = result_buf;
	t->arg0 = add_data;
	return RD_OUT(task, t);
}

doca_error_t doca_rdma_task_remote_net_sync_event_get_allocate_init(
        struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
        const struct doca_sync_event_remote_net *event, struct doca_buf *dst_buf,
        union doca_data user_data, struct doca_rdma_task_remote_net_sync_event_get **task)
{
	RD_ALLOC_BEGIN(RD_T_SE_GET)
	t->se = event;
	t->dst = dst_buf;
	return RD_OUT(task, t);
}

doca_error_t doca_rdma_task_remote_net_sync_event_notify_set_allocate_init(
        struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
        struct doca_sync_event_remote_net *event, const struct doca_buf *src_buf,
        union doca_data user_data, struct doca_rdma_task_remote_net_sync_event_notify_set **task)
{
	RD_ALLOC_BEGIN(RD_T_SE_SET)
	t->se = event;
	t->src = src_buf;
	return RD_OUT(task, t);
}

doca_error_t doca_rdma_task_remote_net_sync_event_notify_add_allocate_init(
        struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
        struct doca_sync_event_remote_net *event, struct doca_buf *result_buf, uint64_t add_data,
        union doca_data user_data, struct doca_rdma_task_remote_net_sync_event_notify_add **task)
{
	RD_ALLOC_BEGIN(RD_T_SE_ADD)
	t->se = event;
	t->result = result_buf;
	t->arg0 = add_data;
	return RD_OUT(task, t);
}

/* ---------------------------------------------------------------- submission */

static bool rd_is_local(const struct doca_buf *b)
{
	for (; b != NULL; b = b->next)
		if (b->mmap == NULL || b->mmap->from_export)
			return false;
	return true;
}

/*
 * DOCA's rules for the local operands (every buf of an mmap of this process): the mmap is
 * started (a thread-safe one may be stopped under its bufs), the context's device was added to
 * it (add_dev; else on hardware the task has no memory key for it), and a destination (what a
 * read, a receive or an atomic writes) may be written locally. Remote operands (an RDMA
 * import) are the peer's to check. One buf (@written: the task writes into it); refusals logged.
 */
static doca_error_t rd_local_buf(const struct rd_task *t, const struct doca_buf *b, bool written)
{
	const struct doca_dev *dev = t->base.ctx->dev;
	doca_error_t r = odma_buf_registered("RDMA", odma_rd_type_names[t->type], t, b);

	if (r != DOCA_SUCCESS)
		return r;
	if (written && odma_perm_local_write(b->mmap->perms) == ODMA_PERM_NO) {
		ODMA_ERR("doca_task_submit: %s task %p: destination buf %p is in mmap %p, "
		         "whose permissions do not allow a local write; "
		         "fix: DOCA_ACCESS_FLAG_LOCAL_READ_WRITE "
		         "in doca_mmap_set_permissions before start",
		         odma_rd_type_names[t->type], (const void *)t, (const void *)b,
		         (const void *)b->mmap);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (!odma_mmap_has_dev(b->mmap, dev)) {
		ODMA_ERR("doca_task_submit: %s task %p: buf %p is in mmap %p, which device %s was "
		         "never added to (on hardware the task has no memory key there); fix: "
		         "doca_mmap_add_dev(mmap, dev) before doca_mmap_start",
		         odma_rd_type_names[t->type], (const void *)t, (const void *)b,
		         (const void *)b->mmap, dev->info->pci_addr);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	return DOCA_SUCCESS;
}

/* Every local operand of @t (rd_local_buf). */
static doca_error_t rd_local_devs(const struct rd_task *t)
{
	const struct doca_buf *ops[3] = { t->src, t->dst, t->result };
	/* which of them this task writes locally */
	bool written[3] = { false,
		            t->type == RD_T_READ || t->type == RD_T_RECEIVE ||
		                    t->type == RD_T_SE_GET,
		            t->result != NULL };
	doca_error_t r = DOCA_SUCCESS;

	for (int i = 0; i < 3 && r == DOCA_SUCCESS; i++)
		for (const struct doca_buf *b = ops[i]; b != NULL && r == DOCA_SUCCESS; b = b->next)
			if (b->mmap != NULL && !b->mmap->from_export)
				r = rd_local_buf(t, b, written[i]);
	return r;
}

static size_t rd_total(const struct doca_buf *b, uint32_t *n)
{
	size_t len = 0;

	*n = 0;
	for (; b != NULL; b = b->next, (*n)++)
		len += b->data_len;
	return len;
}

uint64_t odma_rd_task_bytes(const struct doca_task *task)
{
	const struct rd_task *t = (const struct rd_task *)(const void *)task;
	uint32_t n;

	switch (t->type) {
	case RD_T_RECEIVE:
		return t->res_len;
	case RD_T_SEND:
	case RD_T_SEND_IMM:
	case RD_T_READ:
	case RD_T_WRITE:
	case RD_T_WRITE_IMM:
		return rd_total(t->src, &n);
	default:
		return 8; /* an atomic or a sync event operation: one word */
	}
}

void odma_rd_trace_wire(const struct rd_task *t)
{
	if (doca_unlikely(t->base.trace_id != 0))
		doca_priv_trace_wire(&t->base, t->wire_t0, odma_rd_task_bytes(&t->base));
}

/* A refusal at submit: one log line, the task stays the program's. */
static doca_error_t rd_refuse(const struct rd_task *t, doca_error_t r, const char *why)
{
	ODMA_ERR("doca_task_submit: %s task %p: %s", odma_rd_type_names[t->type], (const void *)t,
	         why);
	return r;
}

/* The remote operand: a buf of an mmap made from a doca_mmap_export_rdma descriptor. */
static doca_error_t rd_remote(const struct rd_task *t, const struct doca_buf *b, struct rw_hdr *h)
{
	uint32_t perms;

	if (b == NULL || !doca_priv_rdma_mem_remote(b->mmap, &h->rec, h->key, &perms))
		return rd_refuse(t, DOCA_ERROR_INVALID_VALUE,
		                 "the remote buf must come from an mmap created from the peer's "
		                 "doca_mmap_export_rdma descriptor");
	return DOCA_SUCCESS;
}

/* Source bytes gathered into one piece (a list is copied: the copy is freed by the caller). */
static doca_error_t rd_gather(const struct rd_task *t, const struct doca_buf *src, const void **p,
                              size_t *n, void **owned)
{
	const struct doca_rdma *rd = rd_of(t->base.ctx);
	uint32_t elems;
	uint8_t *cp;

	*owned = NULL;
	*n = rd_total(src, &elems);
	*p = src != NULL ? src->data : NULL;
	if (!rd_is_local(src))
		return rd_refuse(t, DOCA_ERROR_INVALID_VALUE, "the source must be local memory");
	if (*n > rd->ctx.caps->rdma_max_msg_size || elems > rd->max_send_buf_list_len)
		return rd_refuse(t, DOCA_ERROR_INVALID_VALUE,
		                 "the source is larger than doca_rdma_cap_get_max_message_size or "
		                 "its list longer than max_send_buf_list_len");
	if (elems <= 1)
		return DOCA_SUCCESS;
	cp = malloc(*n ? *n : 1);
	if (cp == NULL)
		return rd_refuse(t, DOCA_ERROR_NO_MEMORY, "out of memory gathering the source");
	*owned = cp;
	*p = cp;
	for (const struct doca_buf *b = src; b != NULL; b = b->next) {
		memcpy(cp, b->data, b->data_len);
		cp += b->data_len;
	}
	return DOCA_SUCCESS;
}

static doca_error_t rd_submit_receive(struct rd_task *t)
{
	struct doca_rdma *rd = rd_of(t->base.ctx);
	uint32_t elems;

	(void)rd_total(t->dst, &elems);
	if (!rd_is_local(t->dst) || elems > rd->recv_buf_list_len)
		return rd_refuse(t, DOCA_ERROR_INVALID_VALUE,
		                 "the destination must be local memory, a list no longer than "
		                 "doca_rdma_task_receive_set_dst_buf_list_len");
	doca_priv_pe_net_ios(t->base.ctx->pe, 1); /* counted before a sender can take it */
	pthread_mutex_lock(&rd->lock);
	rd_queue_push(&rd->recv_head, &rd->recv_tail, t);
	pthread_cond_broadcast(&rd->recv_cond);
	pthread_mutex_unlock(&rd->lock);
	return DOCA_SUCCESS;
}

/*
 * Fills the request header of a sync event task (get, set or add) from its event's identity;
 * a set reads its 8-byte value from the source now. DOCA_SUCCESS, or rd_refuse's code.
 */
static doca_error_t rd_prepare_se(struct rd_task *t, struct rw_hdr *h)
{
	uint32_t id;

	h->type = t->type == RD_T_SE_GET   ? RW_SE_GET
	          : t->type == RD_T_SE_SET ? RW_SE_SET
	                                   : RW_SE_ADD;
	if (!doca_priv_se_remote_net_ident(t->se, &id, h->key))
		return rd_refuse(t, DOCA_ERROR_INVALID_VALUE,
		                 "the sync event must come from "
		                 "doca_sync_event_remote_net_create_from_export");
	h->rec = id;
	h->arg0 = t->arg0;
	if (t->type != RD_T_SE_SET)
		return DOCA_SUCCESS;
	if (t->src == NULL || !rd_is_local(t->src) || t->src->data_len < 8)
		return rd_refuse(t, DOCA_ERROR_INVALID_VALUE,
		                 "the source must be local and hold 8 bytes");
	memcpy(&h->arg0, t->src->data, 8); /* read at submit */
	return DOCA_SUCCESS;
}

/* A read's request: the remote source and a local destination with room for it. */
static doca_error_t rd_prepare_read(struct rd_task *t, struct rw_hdr *h)
{
	doca_error_t r;

	h->type = RW_READ;
	if ((r = rd_remote(t, t->src, h)) != DOCA_SUCCESS)
		return r;
	if (!rd_is_local(t->dst) || odma_buf_list_room(t->dst) < t->src->data_len)
		return rd_refuse(t, DOCA_ERROR_INVALID_VALUE,
		                 "the destination must be local with room for the source");
	h->addr = (uint64_t)(uintptr_t)t->src->data;
	h->arg0 = t->src->data_len;
	t->arg1 = h->arg0; /* the answer's pieces must add up to it (serve.c) */
	return DOCA_SUCCESS;
}

/* A write's request: the gathered local source, which the remote destination's room takes. */
static doca_error_t rd_prepare_write(struct rd_task *t, struct rw_hdr *h, const void **p, size_t *n,
                                     void **owned)
{
	doca_error_t r;

	h->type = RW_WRITE;
	h->flags = t->type == RD_T_WRITE_IMM ? RW_F_IMM : 0;
	h->imm = (uint32_t)t->arg0;
	if ((r = rd_remote(t, t->dst, h)) != DOCA_SUCCESS ||
	    (r = rd_gather(t, t->src, p, n, owned)) != DOCA_SUCCESS)
		return r;
	if (*n > odma_buf_room(t->dst))
		return rd_refuse(t, DOCA_ERROR_INVALID_VALUE,
		                 "the source does not fit the remote destination's free room");
	h->addr = (uint64_t)(uintptr_t)(t->dst->data + t->dst->data_len);
	h->arg1 = odma_rd_rnr_ms(rd_of(t->base.ctx));
	h->len = *n;
	t->arg1 = *n;
	return DOCA_SUCCESS;
}

/* Checks the operands of a one-sided task and fills its request header. */
static doca_error_t rd_prepare(struct rd_task *t, struct rw_hdr *h, const void **p, size_t *n,
                               void **owned)
{
	const struct doca_buf *loc8 = t->type == RD_T_SE_GET ? t->dst : t->result;
	doca_error_t r = DOCA_SUCCESS;

	switch (t->type) {
	case RD_T_SEND:
	case RD_T_SEND_IMM:
		h->type = RW_SEND;
		h->flags = t->type == RD_T_SEND_IMM ? RW_F_IMM : 0;
		h->imm = (uint32_t)t->arg0;
		h->arg1 = odma_rd_rnr_ms(rd_of(t->base.ctx));
		r = rd_gather(t, t->src, p, n, owned);
		h->len = *n;
		return r;
	case RD_T_READ:
		return rd_prepare_read(t, h);
	case RD_T_WRITE:
	case RD_T_WRITE_IMM:
		return rd_prepare_write(t, h, p, n, owned);
	case RD_T_CMP_SWP:
	case RD_T_FETCH_ADD:
		h->type = t->type == RD_T_CMP_SWP ? RW_ATOMIC_CAS : RW_ATOMIC_FADD;
		if ((r = rd_remote(t, t->dst, h)) != DOCA_SUCCESS)
			return r;
		h->addr = (uint64_t)(uintptr_t)t->dst->data;
		h->arg0 = t->arg0;
		h->arg1 = t->arg1;
		break;
	default: /* sync events */
		if ((r = rd_prepare_se(t, h)) != DOCA_SUCCESS || t->type == RD_T_SE_SET)
			return r;
		break;
	}
	/* a sync event get's destination may be a list, which the result fills in turn */
	if (loc8 == NULL || !rd_is_local(loc8) ||
	    (t->type == RD_T_SE_GET ? odma_buf_list_room(loc8) : odma_buf_room(loc8)) < 8)
		return rd_refuse(t, DOCA_ERROR_INVALID_VALUE,
		                 "the result buf must be local with 8 bytes of room");
	return DOCA_SUCCESS;
}

/* Puts @t at the tail of its connection's order list (PE thread): it is delivered in turn. */
static void rd_order_push(struct rd_task *t)
{
	struct doca_rdma_connection *c = t->conn;

	t->finished = false;
	t->att = NULL;
	ODMA_QUEUE_PUSH(c->ord_head, c->ord_tail, t, onext);
	doca_priv_pe_net_ios(t->base.ctx->pe, 1); /* progress does the transport's work now */
}

/* Sends @t as a request on its connection's out stream; a gone connection finishes it. */
static void rd_request(struct rd_task *t, struct rw_hdr *h, const void *p, size_t n)
{
	struct doca_rdma *rd = rd_of(t->base.ctx);
	doca_error_t r;

	if (t->type == RD_T_READ || t->type == RD_T_WRITE || t->type == RD_T_WRITE_IMM)
		rd->n_requested++;
	r = odma_rd_request(t, h, p, n);
	if (r != DOCA_SUCCESS)
		odma_rd_finished(t, r); /* the connection is gone */
}

void odma_rd_resubmit(struct rd_task *t)
{
	struct rw_hdr h = { 0 };
	const void *p = NULL;
	size_t n = 0;
	void *owned = NULL;

	if (rd_prepare(t, &h, &p, &n, &owned) != DOCA_SUCCESS) {
		odma_rd_finished(t, DOCA_ERROR_IO_FAILED); /* its bufs changed in flight */
		return;
	}
	rd_request(t, &h, p, n);
	free(owned);
}

doca_error_t odma_rd_submit(struct rd_task *t)
{
	struct rw_hdr h = { 0 };
	const void *p = NULL;
	size_t n = 0;
	void *owned = NULL;
	doca_error_t r;

	t->res_len = 0;
	t->res_opcode = 0;
	t->res_imm = 0;
	t->res_conn = NULL;
	r = rd_local_devs(t);
	if (r != DOCA_SUCCESS)
		return r;
	if (t->type == RD_T_RECEIVE)
		return rd_submit_receive(t);
	if (!rd_conn_of(rd_of(t->base.ctx), t->conn))
		return rd_refuse(t, DOCA_ERROR_INVALID_VALUE,
		                 "its connection is not of its context");
	if (t->conn->state != RD_C_CLOSED && t->conn->out == NULL)
		return rd_refuse(t, DOCA_ERROR_BAD_STATE,
		                 "its connection is not connected yet (doca_rdma_connect, or wait "
		                 "for the established callback)");
	if (t->type == RD_T_READ && t->src == NULL) {
		rd_order_push(t);
		odma_rd_finished(t, DOCA_SUCCESS); /* read nothing */
		return DOCA_SUCCESS;
	}
	r = rd_prepare(t, &h, &p, &n, &owned);
	if (r != DOCA_SUCCESS) {
		free(owned);
		return r;
	}
	rd_order_push(t);
	if (owned == NULL && odma_rd_direct_start(t, &h))
		return DOCA_SUCCESS;
	rd_request(t, &h, p, n);
	free(owned);
	return DOCA_SUCCESS;
}

void odma_rd_fail_receives(struct doca_rdma *rd, doca_error_t status)
{
	pthread_mutex_lock(&rd->lock);
	while (rd->recv_head != NULL)
		odma_rd_done_locked(rd, rd_queue_pop(&rd->recv_head, &rd->recv_tail), status);
	pthread_mutex_unlock(&rd->lock);
}
