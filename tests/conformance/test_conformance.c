/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The data-path conformance suite, run once per engine (ODMA_ENGINE is set by meson).
 * Every test checks real outcomes: bytes copied, data_len, callbacks counted, states.
 */
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "fixture.h"
#include "test_util.h"

#define LOOPS 100000000UL

static void copy_one(struct fx *fx, size_t n, size_t src_off, size_t dst_off)
{
	struct doca_buf *s = fx_src_buf(fx, src_off, n);
	struct doca_buf *d = fx_dst_buf(fx, dst_off, n);
	unsigned int before = fx->ok;
	size_t dl;

	memset(fx->dst + dst_off, 0, n);
	assert_ok(doca_task_submit(fx_task(fx, s, d, n)));
	assert_true(fx_progress_until(fx, before + 1 + fx->err, LOOPS));
	assert_int_equal(fx->ok, before + 1);
	assert_memory_equal(fx->dst + dst_off, fx->src + src_off, n);
	assert_ok(doca_buf_get_data_len(d, &dl));
	assert_int_equal(dl, n);
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
}

/* 1 byte up to max_buf_size, powers of two and odd sizes, unaligned offsets. */
static void sizes(void **state)
{
	struct fx fx;
	size_t n;

	(void)state;
	fx_init(&fx, 4 << 20, 16, true);
	for (n = 1; n <= fx.max_buf_size; n *= 2) {
		copy_one(&fx, n, 0, 0);
		if (n + 7 <= fx.max_buf_size)
			copy_one(&fx, n + 7, 3, 5);
	}
	copy_one(&fx, fx.max_buf_size, 1, 0);
	assert_int_equal(fx.err, 0);
	fx_fini(&fx);
}

/* Builds a list of @k elements over [base, base+total) with uneven lengths. */
static struct doca_buf *make_list(struct fx *fx, bool src, size_t off, size_t total, uint32_t k,
                                  struct doca_buf **elems)
{
	struct doca_buf *head = NULL;
	size_t pos = 0;

	for (uint32_t i = 0; i < k; i++) {
		size_t left = total - pos, rest = k - i - 1;
		size_t n = rest ? (left - rest) / (rest + 1) + (i % 3) : left;

		n = n ? n : 1;
		if (n > left - rest)
			n = left - rest;
		elems[i] = src ? fx_src_buf(fx, off + pos, n) : fx_dst_buf(fx, off + pos, n);
		pos += n;
		if (head == NULL)
			head = elems[i];
		else
			assert_ok(doca_buf_chain_list(head, elems[i]));
	}
	return head;
}

static void lists(void **state)
{
	static const uint32_t counts[] = { 1, 2, 3, 7, 16, 63, 64 };
	struct doca_buf *se[64], *de[64];
	struct fx fx;

	(void)state;
	fx_init(&fx, 1 << 20, 4, true);
	for (size_t a = 0; a < sizeof(counts) / sizeof(counts[0]); a++) {
		for (size_t b = 0; b < sizeof(counts) / sizeof(counts[0]); b++) {
			uint32_t k = counts[a], m = counts[b];
			size_t total = 4096 + 13 * (a + b), got = 0, dl;
			struct doca_buf *s, *d;

			if (k > fx.max_list_len || m > fx.max_list_len)
				continue;
			memset(fx.dst, 0, total);
			s = make_list(&fx, true, 100, total, k, se);
			d = make_list(&fx, false, 0, total, m, de);
			assert_ok(doca_task_submit(fx_task(&fx, s, d, k * 100 + m)));
			assert_true(fx_progress_until(&fx, fx.ok + 1, LOOPS));
			assert_memory_equal(fx.dst, fx.src + 100, total);
			for (uint32_t i = 0; i < m; i++) {
				assert_ok(doca_buf_get_data_len(de[i], &dl));
				got += dl;
			}
			assert_int_equal(got, total);
			assert_ok(doca_buf_dec_refcount(s, NULL));
			assert_ok(doca_buf_dec_refcount(d, NULL));
		}
	}
	assert_int_equal(fx.err, 0);
	fx_fini(&fx);
}

/* The copy lands at data + data_len of the destination, which grows. */
static void dst_append(void **state)
{
	struct doca_buf *s, *d;
	struct fx fx;
	void *data;
	size_t dl;

	(void)state;
	fx_init(&fx, 1 << 16, 4, true);
	s = fx_src_buf(&fx, 0, 100);
	assert_ok(doca_buf_inventory_buf_get_by_args(fx.inv, fx.dst_mmap, fx.dst, 1000, fx.dst + 10,
	                                             20, &d));
	memset(fx.dst, 0xee, 1000);
	assert_ok(doca_task_submit(fx_task(&fx, s, d, 1)));
	assert_true(fx_progress_until(&fx, 1, LOOPS));
	assert_memory_equal(fx.dst + 30, fx.src, 100);
	assert_int_equal(fx.dst[29], 0xee);
	assert_int_equal(fx.dst[130], 0xee);
	assert_ok(doca_buf_get_data_len(d, &dl));
	assert_int_equal(dl, 120);
	assert_ok(doca_buf_get_data(d, &data));
	assert_ptr_equal(data, fx.dst + 10);
	/* second copy appends after the first */
	assert_ok(doca_task_submit(fx_task(&fx, s, d, 2)));
	assert_true(fx_progress_until(&fx, 2, LOOPS));
	assert_memory_equal(fx.dst + 130, fx.src, 100);
	assert_ok(doca_buf_get_data_len(d, &dl));
	assert_int_equal(dl, 220);
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	fx_fini(&fx);
}

static uint64_t order_seen[512];
static unsigned int order_n;

static void order_cb(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	order_seen[order_n++] = tud.u64;
	fx_ok_cb(task, tud, cud);
}

/* With ordered completions, callbacks come in submission order, also with mixed sizes. */
static void ordered(void **state)
{
	struct doca_buf *s[256], *d[256];
	struct fx fx;

	(void)state;
	memset(&fx, 0, sizeof(fx));
	fx_init(&fx, 16 << 20, 256, false);
	assert_ok(doca_dma_set_ordered_completions(fx.dma, 1));
	assert_ok(doca_dma_task_memcpy_set_conf(fx.dma, order_cb, fx_err_cb, 256));
	assert_ok(doca_ctx_start(fx.ctx));
	order_n = 0;
	for (unsigned int i = 0; i < 256; i++) {
		size_t n = (i % 5 == 0) ? 65536 : 8 + i;

		s[i] = fx_src_buf(&fx, (size_t)i * 16384, n);
		d[i] = fx_dst_buf(&fx, (size_t)i * 32768, 65536);
		assert_ok(doca_task_submit(fx_task(&fx, s[i], d[i], i)));
	}
	assert_true(fx_progress_until(&fx, 256, LOOPS));
	for (unsigned int i = 0; i < 256; i++)
		assert_int_equal(order_seen[i], i);
	for (unsigned int i = 0; i < 256; i++) {
		assert_ok(doca_buf_dec_refcount(s[i], NULL));
		assert_ok(doca_buf_dec_refcount(d[i], NULL));
	}
	fx_fini(&fx);
}

/* Stop with work in flight: STOPPING + IN_PROGRESS, every task exactly one callback, then IDLE. */
static void stop_in_flight(void **state)
{
	struct doca_buf *s[64], *d[64];
	enum doca_ctx_states st;
	struct fx fx;
	doca_error_t r;

	(void)state;
	fx_init(&fx, 4 << 20, 64, true);
	for (unsigned int i = 0; i < 64; i++) {
		s[i] = fx_src_buf(&fx, (size_t)i * 65536, 65536);
		d[i] = fx_dst_buf(&fx, (size_t)i * 65536, 65536);
		assert_ok(doca_task_submit(fx_task(&fx, s[i], d[i], i)));
	}
	r = doca_ctx_stop(fx.ctx);
	assert_int_equal(r, DOCA_ERROR_IN_PROGRESS);
	assert_ok(doca_ctx_get_state(fx.ctx, &st));
	assert_int_equal(st, DOCA_CTX_STATE_STOPPING);
	assert_true(fx_progress_until_idle(&fx, LOOPS));
	assert_int_equal(fx.ok + fx.err, 64);
	assert_int_equal(fx.last_state, DOCA_CTX_STATE_IDLE);
	/* a second stop on IDLE is a success (NVIDIA's samples do it) */
	assert_ok(doca_ctx_stop(fx.ctx));
	for (unsigned int i = 0; i < 64; i++) {
		assert_ok(doca_buf_dec_refcount(s[i], NULL));
		assert_ok(doca_buf_dec_refcount(d[i], NULL));
	}
	fx_fini(&fx);
}

/* Tasks held back (submitted without FLUSH) when the stop comes are flushed with IO_FAILED. */
static void stop_flushes_held(void **state)
{
	struct doca_buf *s = NULL, *d = NULL;
	struct fx fx;

	(void)state;
	fx_init(&fx, 1 << 16, 8, true);
	s = fx_src_buf(&fx, 0, 64);
	d = fx_dst_buf(&fx, 0, 8 * 64);
	for (unsigned int i = 0; i < 8; i++)
		assert_ok(doca_task_submit_ex(fx_task(&fx, s, d, i), DOCA_TASK_SUBMIT_FLAG_NONE));
	assert_int_equal(doca_ctx_stop(fx.ctx), DOCA_ERROR_IN_PROGRESS);
	assert_true(fx_progress_until_idle(&fx, LOOPS));
	assert_int_equal(fx.err, 8);
	assert_int_equal(fx.ok, 0);
	assert_int_equal(fx.last_status, DOCA_ERROR_IO_FAILED);
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	fx_fini(&fx);
}

/* A zero-length source under plain submit: error completion, the context stops by itself. */
static void fatal_error(void **state)
{
	struct doca_buf *s[16], *d[16];
	struct fx fx;
	size_t inflight;

	(void)state;
	fx_init(&fx, 1 << 20, 16, true);
	for (unsigned int i = 0; i < 16; i++) {
		s[i] = fx_src_buf(&fx, (size_t)i * 4096, 4096);
		d[i] = fx_dst_buf(&fx, (size_t)i * 4096, 4096);
	}
	assert_ok(doca_buf_reset_data_len(s[2]));
	for (unsigned int i = 0; i < 16; i++)
		assert_ok(doca_task_submit(fx_task(&fx, s[i], d[i], i)));
	assert_true(fx_progress_until_idle(&fx, LOOPS));
	/* as a hardware queue: the tasks before the failed one complete, the rest are flushed */
	assert_int_equal(fx.ok, 2);
	assert_int_equal(fx.err, 14);
	assert_ok(doca_ctx_get_num_inflight_tasks(fx.ctx, &inflight));
	assert_int_equal(inflight, 0);
	/* the copies that did succeed are exact */
	for (unsigned int i = 0; i < 16; i++) {
		size_t dl;

		assert_ok(doca_buf_get_data_len(d[i], &dl));
		assert_int_equal(dl, i < 2 ? 4096 : 0);
		if (dl)
			assert_memory_equal(fx.dst + i * 4096, fx.src + i * 4096, 4096);
		assert_ok(doca_buf_dec_refcount(s[i], NULL));
		assert_ok(doca_buf_dec_refcount(d[i], NULL));
	}
	/* the context can be started again */
	assert_ok(doca_ctx_start(fx.ctx));
	fx_fini(&fx);
}

/* Event mode: progress to 0, arm, epoll_wait wakes for the completion. */
static void event_mode(void **state)
{
	struct epoll_event ev = { .events = EPOLLIN }, out;
	doca_notification_handle_t h;
	struct doca_buf *s, *d;
	struct fx fx;
	int ep;

	(void)state;
	fx_init(&fx, 1 << 20, 4, true);
	assert_ok(doca_pe_get_notification_handle(fx.pe, &h));
	ep = epoll_create1(0);
	assert_true(ep >= 0);
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, h, &ev), 0);
	s = fx_src_buf(&fx, 0, 1 << 19);
	d = fx_dst_buf(&fx, 0, 1 << 20);
	for (unsigned int round = 0; round < 50; round++) {
		unsigned int want = fx.ok + 1;

		assert_ok(doca_task_submit(fx_task(&fx, s, d, round)));
		while (fx.ok < want) {
			while (doca_pe_progress(fx.pe))
				;
			if (fx.ok >= want)
				break;
			assert_ok(doca_pe_request_notification(fx.pe));
			/* bounded: a lost wake-up fails the test instead of hanging it */
			assert_int_equal(epoll_wait(ep, &out, 1, 10000), 1);
			assert_ok(doca_pe_clear_notification(fx.pe, h));
		}
		assert_ok(doca_buf_reset_data_len(d));
	}
	assert_int_equal(fx.ok, 50);
	/*
	 * Nothing waiting: an armed handle stays quiet. A worker's signal for work that
	 * progress already took may still land once (a spurious wake-up, allowed); after
	 * consuming it, a second arm must stay quiet.
	 */
	assert_ok(doca_pe_request_notification(fx.pe));
	if (epoll_wait(ep, &out, 1, 50) == 1) {
		assert_ok(doca_pe_clear_notification(fx.pe, h));
		assert_int_equal(doca_pe_progress(fx.pe), 0);
		assert_ok(doca_pe_request_notification(fx.pe));
		assert_int_equal(epoll_wait(ep, &out, 1, 50), 0);
	}
	/* the handle argument is not used on Linux (NVIDIA's samples pass 0) */
	assert_ok(doca_pe_clear_notification(fx.pe, 0));
	assert_ok(doca_pe_clear_notification(fx.pe, h + 1000));
	close(ep);
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	fx_fini(&fx);
}

/* Four DMA contexts on one PE, each with its own tasks. */
static void several_contexts(void **state)
{
	struct doca_dma *dma[4];
	struct doca_buf *s, *d[4][8];
	struct fx fx;
	union doca_data ud = { .ptr = &fx };

	(void)state;
	fx_init(&fx, 1 << 20, 8, true);
	for (int c = 0; c < 4; c++) {
		assert_ok(doca_dma_create(fx.dev, &dma[c]));
		assert_ok(doca_dma_task_memcpy_set_conf(dma[c], fx_ok_cb, fx_err_cb, 8));
		assert_ok(doca_ctx_set_user_data(doca_dma_as_ctx(dma[c]), ud));
		assert_ok(doca_pe_connect_ctx(fx.pe, doca_dma_as_ctx(dma[c])));
		assert_ok(doca_ctx_start(doca_dma_as_ctx(dma[c])));
	}
	s = fx_src_buf(&fx, 0, 1000);
	for (int c = 0; c < 4; c++)
		for (int i = 0; i < 8; i++) {
			struct doca_dma_task_memcpy *t;
			union doca_data tud = { .u64 = 0 };

			d[c][i] = fx_dst_buf(&fx, (size_t)(c * 8 + i) * 1000, 1000);
			assert_ok(doca_dma_task_memcpy_alloc_init(dma[c], s, d[c][i], tud, &t));
			assert_ok(doca_task_submit(doca_dma_task_memcpy_as_task(t)));
		}
	assert_true(fx_progress_until(&fx, 32, LOOPS));
	assert_int_equal(fx.ok, 32);
	for (int c = 0; c < 4; c++) {
		for (int i = 0; i < 8; i++) {
			assert_memory_equal(fx.dst + (c * 8 + i) * 1000, fx.src, 1000);
			assert_ok(doca_buf_dec_refcount(d[c][i], NULL));
		}
		assert_ok(doca_ctx_stop(doca_dma_as_ctx(dma[c])));
		assert_ok(doca_dma_destroy(dma[c]));
	}
	assert_ok(doca_buf_dec_refcount(s, NULL));
	fx_fini(&fx);
}

static unsigned int reactive_stop_after;

static void reactive_cb(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	struct fx *fx = cud.ptr;

	fx_ok_cb(task, tud, cud);
	if (fx->ok == reactive_stop_after) {
		doca_error_t r = doca_ctx_stop(fx->ctx);

		assert_true(r == DOCA_SUCCESS || r == DOCA_ERROR_IN_PROGRESS);
	}
}

/* Stop from inside a completion callback. */
static void stop_from_callback(void **state)
{
	struct doca_buf *s, *d[16];
	struct fx fx;

	(void)state;
	fx_init(&fx, 1 << 20, 16, false);
	assert_ok(doca_dma_task_memcpy_set_conf(fx.dma, reactive_cb, fx_err_cb, 16));
	assert_ok(doca_ctx_start(fx.ctx));
	reactive_stop_after = 4;
	s = fx_src_buf(&fx, 0, 512);
	for (int i = 0; i < 16; i++) {
		d[i] = fx_dst_buf(&fx, (size_t)i * 512, 512);
		assert_ok(doca_task_submit(fx_task(&fx, s, d[i], i)));
	}
	assert_true(fx_progress_until_idle(&fx, LOOPS));
	assert_int_equal(fx.ok + fx.err, 16);
	assert_true(fx.ok >= 4);
	for (int i = 0; i < 16; i++)
		assert_ok(doca_buf_dec_refcount(d[i], NULL));
	assert_ok(doca_buf_dec_refcount(s, NULL));
	fx_fini(&fx);
}

#define RESUBMIT_PAIRS 64
static struct doca_buf *rs_src[RESUBMIT_PAIRS], *rs_dst[RESUBMIT_PAIRS];
static unsigned int rs_next;

static void resubmit_cb(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	struct fx *fx = cud.ptr;

	(void)tud;
	fx->ok++;
	if (rs_next < RESUBMIT_PAIRS) {
		doca_dma_task_memcpy_set_src(task, rs_src[rs_next]);
		doca_dma_task_memcpy_set_dst(task, rs_dst[rs_next]);
		rs_next++;
		assert_ok(doca_task_submit(doca_dma_task_memcpy_as_task(task)));
		return;
	}
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

/* Four tasks reused over 64 buffer pairs, resubmitted from their own callbacks. */
static void resubmit_from_callback(void **state)
{
	struct fx fx;

	(void)state;
	fx_init(&fx, 1 << 20, 4, false);
	assert_ok(doca_dma_task_memcpy_set_conf(fx.dma, resubmit_cb, fx_err_cb, 4));
	assert_ok(doca_ctx_start(fx.ctx));
	for (int i = 0; i < RESUBMIT_PAIRS; i++) {
		rs_src[i] = fx_src_buf(&fx, (size_t)i * 1024, 1024);
		rs_dst[i] = fx_dst_buf(&fx, (size_t)i * 1024, 1024);
	}
	rs_next = 4;
	for (int i = 0; i < 4; i++)
		assert_ok(doca_task_submit(fx_task(&fx, rs_src[i], rs_dst[i], i)));
	assert_true(fx_progress_until(&fx, RESUBMIT_PAIRS, LOOPS));
	assert_int_equal(fx.ok, RESUBMIT_PAIRS);
	assert_memory_equal(fx.dst, fx.src, RESUBMIT_PAIRS * 1024);
	for (int i = 0; i < RESUBMIT_PAIRS; i++) {
		assert_ok(doca_buf_dec_refcount(rs_src[i], NULL));
		assert_ok(doca_buf_dec_refcount(rs_dst[i], NULL));
	}
	fx_fini(&fx);
}

/* OPTIMIZE_REPORTS tasks report with the next reported task, in order. */
static void optimize_reports(void **state)
{
	struct doca_buf *s, *d[6];
	struct fx fx;

	(void)state;
	fx_init(&fx, 1 << 16, 8, false);
	assert_ok(doca_dma_task_memcpy_set_conf(fx.dma, order_cb, fx_err_cb, 8));
	assert_ok(doca_ctx_start(fx.ctx));
	order_n = 0;
	/* in-flight tasks never share a destination: its data_len only grows at completion */
	s = fx_src_buf(&fx, 0, 16);
	for (unsigned int i = 0; i < 6; i++)
		d[i] = fx_dst_buf(&fx, i * 16, 16);
	for (unsigned int i = 0; i < 5; i++)
		assert_ok(doca_task_submit_ex(fx_task(&fx, s, d[i], i),
		                              DOCA_TASK_SUBMIT_FLAG_OPTIMIZE_REPORTS |
		                                      DOCA_TASK_SUBMIT_FLAG_FLUSH));
	for (int i = 0; i < 100000; i++)
		doca_pe_progress(fx.pe);
	assert_int_equal(fx.ok, 0);
	assert_ok(doca_task_submit_ex(fx_task(&fx, s, d[5], 5), DOCA_TASK_SUBMIT_FLAG_FLUSH));
	assert_true(fx_progress_until(&fx, 6, LOOPS));
	for (unsigned int i = 0; i < 6; i++)
		assert_int_equal(order_seen[i], i);
	for (unsigned int i = 0; i < 6; i++)
		assert_memory_equal(fx.dst + i * 16, fx.src, 16);
	assert_ok(doca_buf_dec_refcount(s, NULL));
	for (unsigned int i = 0; i < 6; i++)
		assert_ok(doca_buf_dec_refcount(d[i], NULL));
	fx_fini(&fx);
}

/* Past the device queue depth submit says AGAIN; the caller keeps the task and retries. */
static void queue_full_again(void **state)
{
	struct doca_buf *s, *d;
	struct doca_task *extra;
	struct fx fx;
	unsigned int accepted = 0;
	doca_error_t r = DOCA_SUCCESS;

	(void)state;
	fx_init(&fx, 1 << 20, 4096, true);
	s = fx_src_buf(&fx, 0, 1);
	d = fx_dst_buf(&fx, 0, 4096);
	while (r == DOCA_SUCCESS && accepted < 4096) {
		extra = fx_task(&fx, s, d, accepted);
		r = doca_task_submit(extra);
		accepted += (r == DOCA_SUCCESS);
	}
	assert_int_equal(r, DOCA_ERROR_AGAIN);
	assert_true(accepted >= 1 && accepted < 4096);
	assert_true(fx_progress_until(&fx, accepted, LOOPS));
	assert_ok(doca_task_submit(extra));
	assert_true(fx_progress_until(&fx, accepted + 1, LOOPS));
	assert_int_equal(fx.ok, accepted + 1);
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	fx_fini(&fx);
}

/*
 * A task flushed because an earlier one failed writes none of its bytes, whatever its size:
 * with the thread engine a big single-segment copy is split, and the part the submitting
 * thread copies must pass the same flush check as the worker's part (issue #10). Sizes
 * around the split threshold and the largest the fixture allows.
 */
static void flushed_big_task_writes_nothing(void **state)
{
	static const size_t sizes[] = { 64 << 10, (64 << 10) + 4096, 256 << 10, 1 << 20 };
	struct fx fx;

	(void)state;
	fx_init(&fx, 2 << 20, 4, true);
	for (unsigned int k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct doca_buf *bad_s = fx_src_buf(&fx, 0, 64), *bad_d = fx_dst_buf(&fx, 0, 64);
		struct doca_buf *s = fx_src_buf(&fx, 1 << 20, sizes[k]);
		struct doca_buf *d = fx_dst_buf(&fx, 1 << 20, sizes[k]);
		size_t dl;

		memset(fx.dst, 0, fx.len);
		fx.ok = fx.err = 0;
		assert_ok(doca_buf_reset_data_len(bad_s)); /* empty source: accepted, then fails */
		assert_ok(doca_task_submit(fx_task(&fx, bad_s, bad_d, 1)));
		assert_ok(doca_task_submit(fx_task(&fx, s, d, 2)));
		assert_true(fx_progress_until_idle(&fx, LOOPS));
		assert_int_equal(fx.ok, 0);
		assert_int_equal(fx.err, 2);
		assert_ok(doca_buf_get_data_len(d, &dl));
		assert_int_equal(dl, 0);
		for (size_t i = 0; i < sizes[k]; i++)
			if (fx.dst[(1 << 20) + i] != 0)
				fail_msg("size %zu: byte %zu of a flushed task was written",
				         sizes[k], i);
		assert_ok(doca_buf_dec_refcount(bad_s, NULL));
		assert_ok(doca_buf_dec_refcount(bad_d, NULL));
		assert_ok(doca_buf_dec_refcount(s, NULL));
		assert_ok(doca_buf_dec_refcount(d, NULL));
		assert_ok(doca_ctx_start(fx.ctx));
	}
	fx_fini(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sizes),
		cmocka_unit_test(lists),
		cmocka_unit_test(dst_append),
		cmocka_unit_test(ordered),
		cmocka_unit_test(stop_in_flight),
		cmocka_unit_test(stop_flushes_held),
		cmocka_unit_test(fatal_error),
		cmocka_unit_test(flushed_big_task_writes_nothing),
		cmocka_unit_test(event_mode),
		cmocka_unit_test(several_contexts),
		cmocka_unit_test(stop_from_callback),
		cmocka_unit_test(resubmit_from_callback),
		cmocka_unit_test(optimize_reports),
		cmocka_unit_test(queue_full_again),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
