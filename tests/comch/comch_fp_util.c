/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Fast-path helpers of the Comch tests (consumers and producers with their own PE), shared by
 * test_comch_fastpath (one kernel) and comch_net_peer (across network namespaces).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comch_fp_util.h"

static void fp_state(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
                     enum doca_ctx_states next)
{
	struct fp *f = ud.ptr;

	(void)ctx;
	(void)prev;
	if (next == DOCA_CTX_STATE_RUNNING)
		f->passed_running = true;
}

static void recv_done(struct doca_comch_consumer_task_post_recv *t, union doca_data tud,
                      union doca_data cud)
{
	struct fp *f = cud.ptr;
	struct doca_buf *b = doca_comch_consumer_task_post_recv_get_buf(t);
	unsigned int i = f->ok < 8 ? f->ok : 7;
	const uint8_t *imm;

	(void)tud;
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_buf_get_data_len(b, &f->got_len[i]));
	f->got_producer[i] = doca_comch_consumer_task_post_recv_get_producer_id(t);
	f->got_imm_len[i] = doca_comch_consumer_task_post_recv_get_imm_data_len(t);
	imm = doca_comch_consumer_task_post_recv_get_imm_data(t);
	CU_CHECK((imm != NULL) == (f->got_imm_len[i] > 0));
	if (imm != NULL)
		memcpy(f->got_imm[i], imm, f->got_imm_len[i]);
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
	(void)doca_buf_dec_refcount(b, NULL);
	f->ok++;
}

void recv_err(struct doca_comch_consumer_task_post_recv *t, union doca_data tud,
              union doca_data cud)
{
	struct fp *f = cud.ptr;
	struct doca_buf *b = doca_comch_consumer_task_post_recv_get_buf(t);

	(void)tud;
	f->err++;
	f->last_status = doca_task_get_status(doca_comch_consumer_task_post_recv_as_task(t));
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
	(void)doca_buf_dec_refcount(b, NULL);
}

static void send_done(struct doca_comch_producer_task_send *t, union doca_data tud,
                      union doca_data cud)
{
	struct fp *f = cud.ptr;

	(void)tud;
	f->ok++;
	(void)doca_buf_dec_refcount((struct doca_buf *)doca_comch_producer_task_send_get_buf(t),
	                            NULL);
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

static void send_err(struct doca_comch_producer_task_send *t, union doca_data tud,
                     union doca_data cud)
{
	struct fp *f = cud.ptr;

	(void)tud;
	f->err++;
	f->last_status = doca_task_get_status(doca_comch_producer_task_send_as_task(t));
	(void)doca_buf_dec_refcount((struct doca_buf *)doca_comch_producer_task_send_get_buf(t),
	                            NULL);
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

void fp_ctx_common(struct fp *f)
{
	union doca_data ud = { .ptr = f };

	CU_CHECK_DOCA(DOCA_SUCCESS, doca_pe_connect_ctx(f->pe, f->ctx));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_ctx_set_user_data(f->ctx, ud));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_ctx_set_state_changed_cb(f->ctx, fp_state));
}

/* A consumer over @len bytes of fresh memory; started (STARTING). */
void fp_consumer(struct fp *f, struct cu_ep *e, size_t len, uint32_t tasks, uint32_t imm)
{
	fp_consumer_over(f, e, NULL, len, tasks, imm);
}

void fp_consumer_over(struct fp *f, struct cu_ep *e, uint8_t *base, size_t len, uint32_t tasks,
                      uint32_t imm)
{
	memset(f, 0, sizeof(*f));
	if (base != NULL)
		cu_mem_init_over(&f->mem, e->dev, base, len, 16);
	else
		cu_mem_init(&f->mem, e->dev, len, 16);
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_pe_create(&f->pe));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_consumer_create(e->conn, f->mem.mmap, &f->cons));
	f->ctx = doca_comch_consumer_as_ctx(f->cons);
	fp_ctx_common(f);
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_consumer_task_post_recv_set_conf(f->cons, recv_done,
	                                                                        recv_err, tasks));
	if (imm)
		CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_consumer_set_imm_data_len(f->cons, imm));
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, doca_ctx_start(f->ctx));
}

/* A producer sending from @len bytes of fresh memory; started (RUNNING). */
void fp_producer(struct fp *f, struct cu_ep *e, size_t len, uint32_t tasks)
{
	memset(f, 0, sizeof(*f));
	cu_mem_init(&f->mem, e->dev, len, 16);
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_pe_create(&f->pe));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_producer_create(e->conn, &f->prod));
	f->ctx = doca_comch_producer_as_ctx(f->prod);
	fp_ctx_common(f);
	CU_CHECK_DOCA(DOCA_SUCCESS,
	              doca_comch_producer_task_send_set_conf(f->prod, send_done, send_err, tasks));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_ctx_start(f->ctx));
}

enum doca_ctx_states fp_state_of(struct fp *f)
{
	enum doca_ctx_states s;

	CU_CHECK_DOCA(DOCA_SUCCESS, doca_ctx_get_state(f->ctx, &s));
	return s;
}

/* Progresses the control PE and the fast-path PE until @f reaches @want (or @ms pass). */
bool fp_until_state(struct cu_ep *e, struct fp *f, enum doca_ctx_states want, unsigned int ms)
{
	uint64_t end = cu_now_ms() + ms;

	while (fp_state_of(f) != want) {
		if (cu_now_ms() > end)
			return false;
		if (doca_pe_progress(e->pe) + doca_pe_progress(f->pe) == 0)
			usleep(20);
	}
	return true;
}

bool fp_until_count(struct cu_ep *e, struct fp *f, unsigned int n, unsigned int ms)
{
	uint64_t end = cu_now_ms() + ms;

	while (f->ok + f->err < n) {
		if (cu_now_ms() > end)
			return false;
		if (doca_pe_progress(e->pe) + doca_pe_progress(f->pe) == 0)
			usleep(20);
	}
	return true;
}

/* Posts @len bytes at @off of the consumer's memory. */
void fp_post(struct fp *f, size_t off, size_t len)
{
	struct doca_comch_consumer_task_post_recv *t;
	struct doca_buf *b;

	CU_CHECK_DOCA(DOCA_SUCCESS, doca_buf_inventory_buf_get_by_addr(f->mem.inv, f->mem.mmap,
	                                                               f->mem.base + off, len, &b));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_consumer_task_post_recv_alloc_init(f->cons, b, &t));
	CU_CHECK_DOCA(DOCA_SUCCESS,
	              doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)));
}

/* One producer send of @len bytes at @off (pattern @seed) to @cid; returns the submit result. */
doca_error_t fp_send(struct fp *f, size_t off, size_t len, uint32_t cid, const char *imm,
                     bool again_loop, unsigned int *agains)
{
	struct doca_comch_producer_task_send *t;
	struct doca_buf *b = NULL;
	doca_error_t r;

	if (len)
		CU_CHECK_DOCA(DOCA_SUCCESS,
		              doca_buf_inventory_buf_get_by_data(f->mem.inv, f->mem.mmap,
		                                                 f->mem.base + off, len, &b));
	r = doca_comch_producer_task_send_alloc_init(f->prod, b, (uint8_t *)(uintptr_t)imm,
	                                             imm ? (uint32_t)strlen(imm) : 0, cid, &t);
	if (r != DOCA_SUCCESS) {
		if (b)
			doca_buf_dec_refcount(b, NULL);
		return r;
	}
	while ((r = doca_task_submit(doca_comch_producer_task_send_as_task(t))) ==
	               DOCA_ERROR_AGAIN &&
	       again_loop) {
		if (agains)
			(*agains)++;
		usleep(10);
	}
	if (r != DOCA_SUCCESS) {
		if (b)
			doca_buf_dec_refcount(b, NULL);
		doca_task_free(doca_comch_producer_task_send_as_task(t));
	}
	return r;
}

doca_error_t fp_send_list(struct fp *f, size_t off, size_t seg, unsigned int nseg, uint32_t cid,
                          const char *imm)
{
	struct doca_comch_producer_task_send *t;
	struct doca_buf *head = NULL, *b;
	doca_error_t r;

	for (unsigned int i = 0; i < nseg; i++) {
		CU_CHECK_DOCA(DOCA_SUCCESS, doca_buf_inventory_buf_get_by_data(
		                                    f->mem.inv, f->mem.mmap,
		                                    f->mem.base + off + i * seg, seg, &b));
		if (head == NULL)
			head = b;
		else
			CU_CHECK_DOCA(DOCA_SUCCESS, doca_buf_chain_list(head, b));
	}
	r = doca_comch_producer_task_send_alloc_init(f->prod, head, (uint8_t *)(uintptr_t)imm,
	                                             imm ? (uint32_t)strlen(imm) : 0, cid, &t);
	if (r != DOCA_SUCCESS) {
		doca_buf_dec_refcount(head, NULL);
		return r;
	}
	while ((r = doca_task_submit(doca_comch_producer_task_send_as_task(t))) == DOCA_ERROR_AGAIN)
		usleep(10);
	if (r != DOCA_SUCCESS) {
		doca_buf_dec_refcount(head, NULL);
		doca_task_free(doca_comch_producer_task_send_as_task(t));
	}
	return r;
}

void fp_fill(struct fp *f, uint8_t seed)
{
	for (size_t i = 0; i < f->mem.len; i++)
		f->mem.base[i] = (uint8_t)(i * 13u + seed);
}

bool fp_close(struct cu_ep *e, struct fp *f)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_RUNNING;
	doca_error_t r = DOCA_SUCCESS;
	bool ok;

	(void)doca_ctx_get_state(f->ctx, &st);
	if (st != DOCA_CTX_STATE_IDLE) /* (the caller may have stopped it) */
		r = doca_ctx_stop(f->ctx);
	ok = r == DOCA_SUCCESS || r == DOCA_ERROR_IN_PROGRESS;
	ok &= fp_until_state(e, f, DOCA_CTX_STATE_IDLE, 5000);
	r = f->cons ? doca_comch_consumer_destroy(f->cons) : doca_comch_producer_destroy(f->prod);
	if (r != DOCA_SUCCESS)
		fprintf(stderr, "fp destroy: %s\n", doca_error_get_name(r));
	ok &= r == DOCA_SUCCESS;
	ok &= doca_pe_destroy(f->pe) == DOCA_SUCCESS;
	cu_mem_fini(&f->mem);
	return ok;
}

bool got_new_cons(struct cu_ep *e)
{
	return e->new_cons > 0;
}

bool got_gone_cons(struct cu_ep *e)
{
	return e->gone_cons > 0;
}

bool has_disconnect(struct cu_ep *e)
{
	return e->disconnects > 0;
}
