/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The odma side of the benchmark, written as a DOCA program would be: a memcpy-capable
 * device, two mmaps over the shared regions, an inventory, a PE and a DMA context with a
 * pool of `depth` tasks allocated once. Each completion callback points its task at the
 * next slot (slots never shared between tasks in flight) and resubmits it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "bench.h"

#define LAT_CAP (1u << 22)

struct bench_odma {
	struct doca_dev *dev;
	struct doca_mmap *src_mmap, *dst_mmap;
	uint64_t max_buf_size;
	uint32_t max_list_len;
	uint64_t *lat; /* latency samples, LAT_CAP entries */
};

struct run_task {
	struct doca_dma_task_memcpy *task;
	struct doca_buf *src, *dst;
	size_t slot;       /* the slot of the next submission: i, i+depth, ... (mod n_slots) */
	uint64_t t_submit; /* latency modes */
};

struct odma_run {
	const struct bench_cfg *c;
	const struct bench_mem *m;
	struct doca_buf_inventory *inv;
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_ctx *ctx;
	struct run_task *t;
	uint64_t *lat;
	uint64_t done, nlat, inflight;
	doca_error_t fail;
	bool stop, timed, resubmit;
	char *err;
	size_t errlen;
};

#define RUN_ERR(r, ...) (snprintf((r)->err, (r)->errlen, __VA_ARGS__), -1)

/* ------------------------------------------------------------------ set-up */

static struct doca_mmap *odma_map(struct doca_dev *dev, void *addr, size_t len)
{
	struct doca_mmap *m = NULL;

	if (doca_mmap_create(&m) != DOCA_SUCCESS)
		return NULL;
	if (doca_mmap_add_dev(m, dev) != DOCA_SUCCESS ||
	    doca_mmap_set_memrange(m, addr, len) != DOCA_SUCCESS ||
	    doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE) != DOCA_SUCCESS ||
	    doca_mmap_start(m) != DOCA_SUCCESS) {
		doca_mmap_destroy(m);
		return NULL;
	}
	return m;
}

static struct doca_dev *odma_open_memcpy_dev(void)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;

	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
		return NULL;
	for (uint32_t i = 0; i < n && dev == NULL; i++)
		if (doca_dma_cap_task_memcpy_is_supported(list[i]) == DOCA_SUCCESS &&
		    doca_dev_open(list[i], &dev) != DOCA_SUCCESS)
			dev = NULL;
	doca_devinfo_destroy_list(list);
	return dev;
}

int bench_odma_open(struct bench_odma **out, const struct bench_mem *m, char *err, size_t errlen)
{
	struct bench_odma *ob = calloc(1, sizeof(*ob));

	if (ob == NULL || (ob->lat = malloc(LAT_CAP * sizeof(uint64_t))) == NULL) {
		free(ob);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	ob->dev = odma_open_memcpy_dev();
	if (ob->dev == NULL) {
		snprintf(err, errlen,
		         "no device supports DMA memcpy (check ODMA_SYSTEM / ODMA_SIDE)");
		bench_odma_close(ob);
		return -1;
	}
	doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(ob->dev), &ob->max_buf_size);
	doca_dma_cap_task_memcpy_get_max_buf_list_len(doca_dev_as_devinfo(ob->dev),
	                                              &ob->max_list_len);
	ob->src_mmap = odma_map(ob->dev, m->src, m->len);
	ob->dst_mmap = odma_map(ob->dev, m->dst, m->len);
	if (ob->src_mmap == NULL || ob->dst_mmap == NULL) {
		snprintf(err, errlen, "cannot map the %zu-byte regions for the device", m->len);
		bench_odma_close(ob);
		return -1;
	}
	*out = ob;
	return 0;
}

uint64_t bench_odma_max_buf_size(const struct bench_odma *ob)
{
	return ob->max_buf_size;
}

uint32_t bench_odma_max_list_len(const struct bench_odma *ob)
{
	return ob->max_list_len;
}

void bench_odma_close(struct bench_odma *ob)
{
	if (ob == NULL)
		return;
	if (ob->src_mmap != NULL)
		doca_mmap_destroy(ob->src_mmap);
	if (ob->dst_mmap != NULL)
		doca_mmap_destroy(ob->dst_mmap);
	if (ob->dev != NULL)
		doca_dev_close(ob->dev);
	free(ob->lat);
	free(ob);
}

/* ------------------------------------------------------------------ the task loop */

/* Points task @i at its next slot: i, i+depth, i+2*depth, ... so that no two tasks in
 * flight share a destination (n_slots is a multiple of depth: no division needed). Lists
 * (cache-hot only) keep their one slot. */
static void task_position(struct odma_run *r, uint32_t i)
{
	const struct bench_mem *m = r->m;
	struct run_task *t = &r->t[i];
	struct doca_buf *b;

	if (r->c->list_len <= 1) {
		doca_buf_set_data(t->src, m->src + t->slot * m->stride, m->task_size);
		doca_buf_set_data(t->dst, m->dst + t->slot * m->stride, 0);
		t->slot += r->c->depth;
		if (t->slot >= m->n_slots)
			t->slot -= m->n_slots;
	} else {
		for (b = t->dst; b != NULL;)
			if (doca_buf_reset_data_len(b) != DOCA_SUCCESS ||
			    doca_buf_get_next_in_list(b, &b) != DOCA_SUCCESS)
				break;
	}
}

static int task_submit(struct odma_run *r, uint32_t i)
{
	doca_error_t rc;

	task_position(r, i);
	r->t[i].t_submit = r->timed ? bench_now_ns() : 0;
	rc = doca_task_submit(doca_dma_task_memcpy_as_task(r->t[i].task));
	if (rc != DOCA_SUCCESS) {
		r->fail = rc;
		r->stop = true;
		return -1;
	}
	r->inflight++;
	return 0;
}

static void on_done(struct doca_dma_task_memcpy *task, union doca_data task_ud,
                    union doca_data ctx_ud)
{
	struct odma_run *r = ctx_ud.ptr;
	struct run_task *t = &r->t[task_ud.u64];

	(void)task;
	r->inflight--;
	r->done++;
	if (r->timed && r->nlat < LAT_CAP)
		r->lat[r->nlat++] = bench_now_ns() - t->t_submit;
	if (!r->stop && r->resubmit)
		task_submit(r, (uint32_t)task_ud.u64);
}

static void on_error(struct doca_dma_task_memcpy *task, union doca_data task_ud,
                     union doca_data ctx_ud)
{
	struct odma_run *r = ctx_ud.ptr;

	(void)task_ud;
	r->inflight--;
	r->fail = doca_task_get_status(doca_dma_task_memcpy_as_task(task));
	r->stop = true;
}

/* ------------------------------------------------------------------ per-repetition objects */

static int buf_list(struct odma_run *r, struct doca_mmap *mm, uint8_t *base, bool is_src,
                    struct doca_buf **head)
{
	uint32_t n = r->c->list_len > 1 ? r->c->list_len : 1;
	size_t el = n > 1 ? r->m->task_size / n : r->m->len;
	struct doca_buf *b;
	doca_error_t rc;

	*head = NULL;
	for (uint32_t e = 0; e < n; e++) {
		rc = is_src ? doca_buf_inventory_buf_get_by_data(r->inv, mm, base + e * el, el, &b)
		            : doca_buf_inventory_buf_get_by_addr(r->inv, mm, base + e * el, el, &b);
		if (rc != DOCA_SUCCESS)
			return RUN_ERR(r, "buf_get: %s", doca_error_get_descr(rc));
		if (*head == NULL)
			*head = b;
		else if ((rc = doca_buf_chain_list(*head, b)) != DOCA_SUCCESS)
			return RUN_ERR(r, "doca_buf_chain_list: %s", doca_error_get_descr(rc));
	}
	return 0;
}

static int run_tasks(struct odma_run *r, struct bench_odma *ob)
{
	union doca_data ud;
	doca_error_t rc;
	uint8_t *s, *d;

	for (uint32_t i = 0; i < r->c->depth; i++) {
		s = r->c->list_len > 1 ? r->m->src + i * r->m->stride : r->m->src;
		d = r->c->list_len > 1 ? r->m->dst + i * r->m->stride : r->m->dst;
		if (buf_list(r, ob->src_mmap, s, true, &r->t[i].src) ||
		    buf_list(r, ob->dst_mmap, d, false, &r->t[i].dst))
			return -1;
		/* alloc_init checks the sizes: give the whole-region bufs their first slot now */
		if (r->c->list_len <= 1 &&
		    (doca_buf_set_data(r->t[i].src, s + i * r->m->stride, r->m->task_size) ||
		     doca_buf_set_data(r->t[i].dst, d + i * r->m->stride, 0)))
			return RUN_ERR(r, "doca_buf_set_data failed");
		ud.u64 = i;
		r->t[i].slot = i;
		rc = doca_dma_task_memcpy_alloc_init(r->dma, r->t[i].src, r->t[i].dst, ud,
		                                     &r->t[i].task);
		if (rc != DOCA_SUCCESS)
			return RUN_ERR(r, "doca_dma_task_memcpy_alloc_init: %s",
			               doca_error_get_descr(rc));
	}
	return 0;
}

static int run_setup(struct odma_run *r, struct bench_odma *ob)
{
	union doca_data ud = { .ptr = r };
	uint32_t nbufs = 2 * r->c->depth * (r->c->list_len > 1 ? r->c->list_len : 1);
	doca_error_t rc;

	if ((rc = doca_buf_inventory_create(nbufs, &r->inv)) != DOCA_SUCCESS ||
	    (rc = doca_buf_inventory_start(r->inv)) != DOCA_SUCCESS)
		return RUN_ERR(r, "buf inventory: %s", doca_error_get_descr(rc));
	if ((rc = doca_pe_create(&r->pe)) != DOCA_SUCCESS)
		return RUN_ERR(r, "doca_pe_create: %s", doca_error_get_descr(rc));
	if ((rc = doca_dma_create(ob->dev, &r->dma)) != DOCA_SUCCESS)
		return RUN_ERR(r, "doca_dma_create: %s", doca_error_get_descr(rc));
	r->ctx = doca_dma_as_ctx(r->dma);
	if ((rc = doca_ctx_set_user_data(r->ctx, ud)) != DOCA_SUCCESS ||
	    (rc = doca_dma_task_memcpy_set_conf(r->dma, on_done, on_error, r->c->depth)) !=
	            DOCA_SUCCESS ||
	    (rc = doca_pe_connect_ctx(r->pe, r->ctx)) != DOCA_SUCCESS ||
	    (rc = doca_ctx_start(r->ctx)) != DOCA_SUCCESS)
		return RUN_ERR(r, "DMA context set-up: %s", doca_error_get_descr(rc));
	return run_tasks(r, ob);
}

static void run_teardown(struct odma_run *r)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

	for (uint32_t i = 0; r->t != NULL && i < r->c->depth; i++) {
		if (r->t[i].task != NULL)
			doca_task_free(doca_dma_task_memcpy_as_task(r->t[i].task));
		if (r->t[i].src != NULL)
			doca_buf_dec_refcount(r->t[i].src, NULL);
		if (r->t[i].dst != NULL)
			doca_buf_dec_refcount(r->t[i].dst, NULL);
	}
	if (r->ctx != NULL && doca_ctx_stop(r->ctx) != DOCA_ERROR_BAD_STATE)
		for (int k = 0; k < 10000000 && doca_ctx_get_state(r->ctx, &st) == DOCA_SUCCESS &&
		                st != DOCA_CTX_STATE_IDLE;
		     k++)
			doca_pe_progress(r->pe);
	if (r->dma != NULL)
		doca_dma_destroy(r->dma);
	if (r->pe != NULL)
		doca_pe_destroy(r->pe);
	if (r->inv != NULL) {
		doca_buf_inventory_stop(r->inv);
		doca_buf_inventory_destroy(r->inv);
	}
	free(r->t);
}

/* ------------------------------------------------------------------ the modes */

static void loop_polling(struct odma_run *r, uint64_t end)
{
	uint64_t now;

	for (;;) {
		for (int k = 0; k < 32; k++)
			doca_pe_progress(r->pe);
		now = bench_now_ns();
		if (now >= end || r->stop)
			break;
		bench_progress_tick(r->done);
	}
}

/* Depth 1, sleeping: progress until nothing is left, arm, epoll_wait, clear, progress. */
static int loop_event(struct odma_run *r, uint64_t end)
{
	doca_notification_handle_t h;
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(EPOLL_CLOEXEC);
	uint64_t before;

	if (ep < 0 || doca_pe_get_notification_handle(r->pe, &h) != DOCA_SUCCESS ||
	    doca_pe_set_event_mode(r->pe, DOCA_PE_EVENT_MODE_PROGRESS_SELECTIVE) != DOCA_SUCCESS ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, (int)h, &ev) != 0) {
		if (ep >= 0)
			close(ep);
		return RUN_ERR(r, "cannot set up the PE notification handle with epoll");
	}
	while (!r->stop && bench_now_ns() < end) {
		before = r->done;
		if (task_submit(r, 0) != 0)
			break;
		while (r->done == before && !r->stop) {
			while (doca_pe_progress(r->pe))
				;
			if (r->done != before)
				break;
			doca_pe_request_notification(r->pe);
			epoll_wait(ep, &ev, 1, 100);
			doca_pe_clear_notification(r->pe, h);
		}
		bench_progress_tick(r->done);
	}
	close(ep);
	return 0;
}

static void run_drain(struct odma_run *r)
{
	r->stop = true;
	for (uint64_t k = 0; r->inflight > 0 && k < 1000000000ULL; k++)
		doca_pe_progress(r->pe);
}

static int run_measure(struct odma_run *r, double seconds, struct bench_rep *rep)
{
	uint64_t t0, t1, done;

	t0 = bench_now_ns();
	if (r->c->mode == BENCH_EVENT) {
		if (loop_event(r, t0 + (uint64_t)(seconds * 1e9)) != 0)
			return -1;
	} else {
		for (uint32_t i = 0; i < r->c->depth; i++)
			if (task_submit(r, i) != 0)
				break;
		loop_polling(r, t0 + (uint64_t)(seconds * 1e9));
	}
	t1 = bench_now_ns();
	done = r->done;
	run_drain(r);
	if (r->fail != DOCA_SUCCESS)
		return RUN_ERR(r, "a task failed: %s", doca_error_get_descr(r->fail));
	rep->tasks = done;
	rep->seconds = (double)(t1 - t0) / 1e9;
	rep->p50_ns = bench_percentile_u64(r->lat, r->nlat, 50);
	rep->p99_ns = bench_percentile_u64(r->lat, r->nlat, 99);
	return 0;
}

int bench_odma_rep(struct bench_odma *ob, const struct bench_cfg *c, const struct bench_mem *m,
                   double seconds, struct bench_rep *rep, char *err, size_t errlen)
{
	struct odma_run r = { .c = c, .m = m, .lat = ob->lat, .err = err, .errlen = errlen };
	int rc;

	r.timed = c->mode != BENCH_THROUGHPUT;
	r.resubmit = c->mode != BENCH_EVENT;
	r.t = calloc(c->depth, sizeof(*r.t));
	if (r.t == NULL)
		return RUN_ERR(&r, "out of memory");
	bench_slot_clear(m);
	rc = run_setup(&r, ob);
	if (rc == 0)
		rc = run_measure(&r, seconds, rep);
	rep->verified = rc == 0 && bench_slot_check(m);
	run_teardown(&r);
	return rc;
}

/* max_buf_size of the first memcpy-capable device (0 when there is none) and, when
 * @max_list_len is not NULL, its max_buf_list_len (0 when there is none). */
uint64_t bench_odma_probe(uint32_t *max_list_len)
{
	struct doca_dev *dev = odma_open_memcpy_dev();
	uint64_t v = 0;
	uint32_t len = 0;

	if (dev != NULL) {
		doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(dev), &v);
		doca_dma_cap_task_memcpy_get_max_buf_list_len(doca_dev_as_devinfo(dev), &len);
		doca_dev_close(dev);
	}
	if (max_list_len != NULL)
		*max_list_len = len;
	return v;
}

uint64_t bench_odma_probe_max_buf_size(void)
{
	return bench_odma_probe(NULL);
}
