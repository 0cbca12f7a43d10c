/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Black-box tests of every BEHAVIOR.md §4–§5 row about contexts, PEs, tasks and DMA. */
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"
#include "test_util.h"

#define LOOPS 100000000UL

static void null_arguments(void **state)
{
	struct fx fx;
	struct doca_pe *pe = NULL;
	struct doca_dma *dma = NULL;
	enum doca_ctx_states st;
	union doca_data ud = { 0 };
	size_t n;

	(void)state;
	fx_init(&fx, 4096, 4, false);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_pe_create(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_pe_destroy(NULL));
	assert_int_equal(doca_pe_progress(NULL), 0);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_pe_get_notification_handle(NULL, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_pe_request_notification(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_pe_clear_notification(NULL, 0));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_pe_get_num_inflight_tasks(fx.pe, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_pe_connect_ctx(NULL, fx.ctx));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_pe_connect_ctx(fx.pe, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_pe_set_event_mode(NULL, DOCA_PE_EVENT_MODE_PROGRESS_ALL));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_pe_set_event_mode(fx.pe, (enum doca_pe_event_mode)7));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ctx_start(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ctx_stop(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ctx_get_state(NULL, &st));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ctx_get_state(fx.ctx, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ctx_get_num_inflight_tasks(NULL, &n));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ctx_set_user_data(NULL, ud));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ctx_get_user_data(fx.ctx, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_ctx_set_state_changed_cb(NULL, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_dma_create(NULL, &dma));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_dma_create(fx.dev, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_dma_destroy(NULL));
	assert_null(doca_dma_as_ctx(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_dma_cap_task_memcpy_is_supported(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_dma_cap_get_max_num_tasks(NULL, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_dma_cap_task_memcpy_get_max_buf_size(NULL, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_dma_cap_task_memcpy_get_max_buf_list_len(NULL, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_dma_task_memcpy_set_conf(NULL, fx_ok_cb, fx_err_cb, 1));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_dma_task_memcpy_set_conf(fx.dma, NULL, fx_err_cb, 1));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_dma_task_memcpy_set_conf(fx.dma, fx_ok_cb, NULL, 1));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_dma_task_memcpy_alloc_init(NULL, NULL, NULL, ud, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_dma_set_ordered_completions(NULL, 1));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_submit(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_try_submit(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_task_submit_ex(NULL, DOCA_TASK_SUBMIT_FLAG_FLUSH));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_get_status(NULL));
	doca_task_free(NULL);
	doca_task_set_user_data(NULL, ud);
	assert_int_equal(doca_task_get_user_data(NULL).u64, 0);
	assert_null(doca_task_get_ctx(NULL));
	assert_null(doca_dma_task_memcpy_as_task(NULL));
	doca_dma_task_memcpy_set_src(NULL, NULL);
	doca_dma_task_memcpy_set_dst(NULL, NULL);
	assert_null(doca_dma_task_memcpy_get_src(NULL));
	assert_null(doca_dma_task_memcpy_get_dst(NULL));
	assert_null(pe);
	assert_null(dma);
	fx_fini(&fx);
}

static void connect_rules(void **state)
{
	struct fx fx;
	struct doca_pe *pe2;

	(void)state;
	fx_init(&fx, 4096, 4, false);
	assert_ok(doca_pe_create(&pe2));
	/* connected and IDLE: a second connect is NOT_PERMITTED */
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_pe_connect_ctx(pe2, fx.ctx));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_pe_connect_ctx(fx.pe, fx.ctx));
	/* RUNNING: BAD_STATE */
	assert_ok(doca_ctx_start(fx.ctx));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_pe_connect_ctx(pe2, fx.ctx));
	/* a PE with a context cannot be destroyed */
	assert_doca(DOCA_ERROR_IN_USE, doca_pe_destroy(fx.pe));
	assert_ok(doca_pe_destroy(pe2));
	fx_fini(&fx);
}

static void start_rules(void **state)
{
	struct fx fx;
	struct doca_dma *dma;
	enum doca_ctx_states st;

	(void)state;
	fx_init(&fx, 4096, 4, false);
	assert_ok(doca_dma_create(fx.dev, &dma));
	/* no PE */
	assert_ok(doca_dma_task_memcpy_set_conf(dma, fx_ok_cb, fx_err_cb, 4));
	assert_doca(DOCA_ERROR_NOT_CONNECTED, doca_ctx_start(doca_dma_as_ctx(dma)));
	assert_ok(doca_dma_destroy(dma));
	/* no set_conf */
	assert_ok(doca_dma_create(fx.dev, &dma));
	assert_ok(doca_pe_connect_ctx(fx.pe, doca_dma_as_ctx(dma)));
	assert_doca(DOCA_ERROR_BAD_CONFIG, doca_ctx_start(doca_dma_as_ctx(dma)));
	assert_ok(doca_dma_destroy(dma));
	/* start: synchronous, RUNNING, callback IDLE -> RUNNING */
	assert_ok(doca_ctx_start(fx.ctx));
	assert_ok(doca_ctx_get_state(fx.ctx, &st));
	assert_int_equal(st, DOCA_CTX_STATE_RUNNING);
	assert_int_equal(fx.states, 1);
	assert_int_equal(fx.last_state, DOCA_CTX_STATE_RUNNING);
	assert_doca(DOCA_ERROR_BAD_STATE, doca_ctx_start(fx.ctx));
	/* configuration only while IDLE */
	assert_doca(DOCA_ERROR_BAD_STATE,
	            doca_dma_task_memcpy_set_conf(fx.dma, fx_ok_cb, fx_err_cb, 4));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_dma_set_ordered_completions(fx.dma, 1));
	assert_doca(DOCA_ERROR_BAD_STATE,
	            doca_ctx_set_user_data(fx.ctx, (union doca_data){ .u64 = 1 }));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_ctx_set_state_changed_cb(fx.ctx, NULL));
	/* destroy while RUNNING */
	assert_doca(DOCA_ERROR_BAD_STATE, doca_dma_destroy(fx.dma));
	/* stop with nothing outstanding: IDLE at once; stop again: SUCCESS */
	assert_ok(doca_ctx_stop(fx.ctx));
	assert_ok(doca_ctx_get_state(fx.ctx, &st));
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	assert_ok(doca_ctx_stop(fx.ctx));
	fx_fini(&fx);
}

static void set_conf_limits(void **state)
{
	struct fx fx;
	uint32_t max;

	(void)state;
	fx_init(&fx, 4096, 4, false);
	assert_ok(doca_dma_cap_get_max_num_tasks(fx.dma, &max));
	assert_true(max >= 1);
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_dma_task_memcpy_set_conf(fx.dma, fx_ok_cb, fx_err_cb, 0));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_dma_task_memcpy_set_conf(fx.dma, fx_ok_cb, fx_err_cb, max + 1));
	assert_ok(doca_dma_task_memcpy_set_conf(fx.dma, fx_ok_cb, fx_err_cb, max));
	fx_fini(&fx);
}

static void pool_and_alloc(void **state)
{
	struct doca_dma_task_memcpy *t[4], *extra = NULL;
	union doca_data ud = { .u64 = 7 };
	struct fx fx;

	(void)state;
	fx_init(&fx, 4096, 3, false);
	/* allocation needs RUNNING */
	assert_doca(DOCA_ERROR_BAD_STATE,
	            doca_dma_task_memcpy_alloc_init(fx.dma, NULL, NULL, ud, &t[0]));
	assert_ok(doca_ctx_start(fx.ctx));
	for (int i = 0; i < 3; i++)
		assert_ok(doca_dma_task_memcpy_alloc_init(fx.dma, NULL, NULL, ud, &t[i]));
	assert_doca(DOCA_ERROR_NO_MEMORY,
	            doca_dma_task_memcpy_alloc_init(fx.dma, NULL, NULL, ud, &extra));
	assert_null(extra);
	assert_int_equal(doca_task_get_user_data(doca_dma_task_memcpy_as_task(t[0])).u64, 7);
	assert_ptr_equal(doca_task_get_ctx(doca_dma_task_memcpy_as_task(t[0])), fx.ctx);
	/* a task without buffers cannot be submitted */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_submit(doca_dma_task_memcpy_as_task(t[0])));
	doca_task_free(doca_dma_task_memcpy_as_task(t[0]));
	doca_task_free(doca_dma_task_memcpy_as_task(t[0])); /* double free: logged, ignored */
	assert_ok(doca_dma_task_memcpy_alloc_init(fx.dma, NULL, NULL, ud, &t[3]));
	doca_task_free(doca_dma_task_memcpy_as_task(t[1]));
	doca_task_free(doca_dma_task_memcpy_as_task(t[2]));
	doca_task_free(doca_dma_task_memcpy_as_task(t[3]));
	fx_fini(&fx);
}

static void size_limits(void **state)
{
	struct doca_buf *big, *d, *list, *e;
	struct doca_dma_task_memcpy *t = NULL;
	union doca_data ud = { 0 };
	struct fx fx;

	(void)state;
	fx_init(&fx, 8 << 20, 8, true);
	big = fx_src_buf(&fx, 0, fx.max_buf_size + 1);
	d = fx_dst_buf(&fx, 0, 8 << 20);
	/* above max_buf_size: alloc_init with bufs, submit, try_submit */
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_dma_task_memcpy_alloc_init(fx.dma, big, d, ud, &t));
	assert_null(t);
	assert_ok(doca_dma_task_memcpy_alloc_init(fx.dma, NULL, d, ud, &t));
	doca_dma_task_memcpy_set_src(t, big);
	assert_ptr_equal(doca_dma_task_memcpy_get_src(t), big);
	assert_ptr_equal(doca_dma_task_memcpy_get_dst(t), d);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_submit(doca_dma_task_memcpy_as_task(t)));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_task_try_submit(doca_dma_task_memcpy_as_task(t)));
	/* a list longer than max_buf_list_len */
	list = fx_src_buf(&fx, 0, 1);
	for (uint32_t i = 1; i <= fx.max_list_len; i++) {
		e = fx_src_buf(&fx, i, 1);
		assert_ok(doca_buf_chain_list(list, e));
	}
	doca_dma_task_memcpy_set_src(t, list);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_submit(doca_dma_task_memcpy_as_task(t)));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_task_try_submit(doca_dma_task_memcpy_as_task(t)));
	doca_task_free(doca_dma_task_memcpy_as_task(t));
	t = NULL;
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_dma_task_memcpy_alloc_init(fx.dma, list, d, ud, &t));
	assert_null(t);
	assert_int_equal(fx.ok + fx.err, 0);
	/* the state is checked first: a stopped context says BAD_STATE whatever the buffers */
	assert_ok(doca_ctx_stop(fx.ctx));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_dma_task_memcpy_alloc_init(fx.dma, big, d, ud, &t));
	assert_null(t);
	assert_ok(doca_buf_dec_refcount(list, NULL));
	assert_ok(doca_buf_dec_refcount(big, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	fx_fini(&fx);
}

static void read_only_destination(void **state)
{
	struct doca_mmap *ro;
	struct doca_buf *s, *d;
	struct doca_task *t;
	struct fx fx;
	uint8_t *mem = calloc(1, 4096);

	(void)state;
	fx_init(&fx, 4096, 4, true);
	assert_ok(doca_mmap_create(&ro));
	assert_ok(doca_mmap_add_dev(ro, fx.dev));
	assert_ok(doca_mmap_set_memrange(ro, mem, 4096));
	assert_ok(doca_mmap_set_permissions(ro, DOCA_ACCESS_FLAG_LOCAL_READ_ONLY));
	assert_ok(doca_mmap_start(ro));
	s = fx_src_buf(&fx, 0, 64);
	assert_ok(doca_buf_inventory_buf_get_by_addr(fx.inv, ro, mem, 4096, &d));
	t = fx_task(&fx, s, d, 0);
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_task_submit(t));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_task_try_submit(t));
	for (int i = 0; i < 1000; i++)
		doca_pe_progress(fx.pe);
	assert_int_equal(fx.ok + fx.err, 0); /* rejected tasks get no callback */
	assert_int_equal(mem[0], 0);
	doca_task_free(t);
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	assert_ok(doca_mmap_destroy(ro));
	free(mem);
	fx_fini(&fx);
}

static void try_submit_validates(void **state)
{
	struct doca_buf *s, *empty, *small, *d, *ov_src, *ov_dst;
	struct doca_task *t;
	struct fx fx;

	(void)state;
	fx_init(&fx, 1 << 16, 4, true);
	s = fx_src_buf(&fx, 0, 1000);
	empty = fx_src_buf(&fx, 0, 1000);
	assert_ok(doca_buf_reset_data_len(empty));
	small = fx_dst_buf(&fx, 0, 999);
	d = fx_dst_buf(&fx, 0, 1000);
	t = fx_task(&fx, empty, d, 0);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_try_submit(t));
	doca_dma_task_memcpy_set_src((struct doca_dma_task_memcpy *)t, s);
	doca_dma_task_memcpy_set_dst((struct doca_dma_task_memcpy *)t, small);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_try_submit(t));
	/* overlap inside one mmap */
	ov_src = fx_src_buf(&fx, 0, 1000);
	assert_ok(doca_buf_inventory_buf_get_by_addr(fx.inv, fx.src_mmap, fx.src + 500, 1000,
	                                             &ov_dst));
	doca_dma_task_memcpy_set_src((struct doca_dma_task_memcpy *)t, ov_src);
	doca_dma_task_memcpy_set_dst((struct doca_dma_task_memcpy *)t, ov_dst);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_try_submit(t));
	/* the same task with good buffers is accepted and completes */
	doca_dma_task_memcpy_set_src((struct doca_dma_task_memcpy *)t, s);
	doca_dma_task_memcpy_set_dst((struct doca_dma_task_memcpy *)t, d);
	assert_ok(doca_task_try_submit(t));
	/* submitting a task in flight again is refused, and so is changing its buffers */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_submit(t));
	doca_dma_task_memcpy_set_src((struct doca_dma_task_memcpy *)t, empty);
	doca_dma_task_memcpy_set_dst((struct doca_dma_task_memcpy *)t, small);
	assert_ptr_equal(doca_dma_task_memcpy_get_src((struct doca_dma_task_memcpy *)t), s);
	assert_ptr_equal(doca_dma_task_memcpy_get_dst((struct doca_dma_task_memcpy *)t), d);
	assert_true(fx_progress_until(&fx, 1, LOOPS));
	assert_int_equal(fx.ok, 1);
	assert_memory_equal(fx.dst, fx.src, 1000);
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(empty, NULL));
	assert_ok(doca_buf_dec_refcount(small, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	assert_ok(doca_buf_dec_refcount(ov_src, NULL));
	assert_ok(doca_buf_dec_refcount(ov_dst, NULL));
	fx_fini(&fx);
}

/* Plain submit of an uncopyable task: accepted, fails with IO_FAILED, the context stops itself. */
static void async_fatal_rows(void **state)
{
	struct doca_buf *s, *small;
	enum doca_ctx_states st;
	struct fx fx;

	(void)state;
	fx_init(&fx, 1 << 16, 4, true);
	fx.free_in_cb = false;
	s = fx_src_buf(&fx, 0, 1000);
	small = fx_dst_buf(&fx, 0, 10);
	struct doca_task *t = fx_task(&fx, s, small, 0);

	assert_ok(doca_task_submit(t));
	assert_true(fx_progress_until(&fx, 1, LOOPS));
	assert_int_equal(fx.err, 1);
	assert_int_equal(doca_task_get_status(t), DOCA_ERROR_IO_FAILED);
	assert_int_equal(fx.dst[0], 0); /* nothing written */
	assert_ok(doca_ctx_get_state(fx.ctx, &st));
	assert_int_equal(st, DOCA_CTX_STATE_STOPPING);
	/* STOPPING: no new submits; destroy is IN_USE until IDLE */
	assert_doca(DOCA_ERROR_BAD_STATE, doca_task_submit(t));
	assert_doca(DOCA_ERROR_IN_USE, doca_dma_destroy(fx.dma));
	assert_doca(DOCA_ERROR_IN_PROGRESS, doca_ctx_stop(fx.ctx));
	/* IDLE only once the task is freed */
	for (int i = 0; i < 1000; i++)
		doca_pe_progress(fx.pe);
	assert_ok(doca_ctx_get_state(fx.ctx, &st));
	assert_int_equal(st, DOCA_CTX_STATE_STOPPING);
	doca_task_free(t);
	assert_true(fx_progress_until_idle(&fx, LOOPS));
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(small, NULL));
	fx_fini(&fx);
}

static void inflight_counts_and_flags(void **state)
{
	struct doca_buf *s, *d;
	struct doca_task *t;
	struct fx fx;
	size_t n;

	(void)state;
	fx_init(&fx, 1 << 16, 4, true);
	s = fx_src_buf(&fx, 0, 100);
	d = fx_dst_buf(&fx, 0, 100);
	t = fx_task(&fx, s, d, 0);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_submit_ex(t, 1u << 7));
	assert_ok(doca_task_submit(t));
	assert_ok(doca_ctx_get_num_inflight_tasks(fx.ctx, &n));
	assert_int_equal(n, 1);
	assert_ok(doca_pe_get_num_inflight_tasks(fx.pe, &n));
	assert_int_equal(n, 1);
	assert_true(fx_progress_until(&fx, 1, LOOPS));
	assert_ok(doca_ctx_get_num_inflight_tasks(fx.ctx, &n));
	assert_int_equal(n, 0);
	assert_ok(doca_pe_get_num_inflight_tasks(fx.pe, &n));
	assert_int_equal(n, 0);
	assert_int_equal(fx.last_status, DOCA_SUCCESS);
	assert_doca(DOCA_ERROR_NOT_SUPPORTED,
	            doca_pe_set_notification_handle(fx.pe, 0, (union doca_data){ 0 }));
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	fx_fini(&fx);
}

/*
 * BEHAVIOR.md §1.6: a stop after doca_pe_request_notification that leaves work for progress
 * (an OPTIMIZE_REPORTS completion waiting for a report, flushed by the stop) wakes the handle.
 */
static void stop_after_arm_wakes(void **state)
{
	struct pollfd p = { .events = POLLIN };
	struct doca_buf *s, *d;
	struct fx fx;
	size_t n = 0;

	(void)state;
	fx_init(&fx, 1 << 16, 4, true);
	assert_ok(doca_pe_get_notification_handle(fx.pe, &p.fd));
	s = fx_src_buf(&fx, 0, 100);
	d = fx_dst_buf(&fx, 0, 100);
	assert_ok(doca_task_submit_ex(fx_task(&fx, s, d, 0),
	                              DOCA_TASK_SUBMIT_FLAG_FLUSH |
	                                      DOCA_TASK_SUBMIT_FLAG_OPTIMIZE_REPORTS));
	/* done, but its report waits for a later reported task: still counted in flight */
	for (int i = 0; i < 100000 && doca_pe_progress(fx.pe) == 0; i++)
		;
	while (doca_pe_progress(fx.pe))
		;
	assert_int_equal(fx.ok + fx.err, 0);
	assert_ok(doca_ctx_get_num_inflight_tasks(fx.ctx, &n));
	assert_int_equal(n, 1);
	assert_ok(doca_pe_request_notification(fx.pe));
	assert_int_equal(poll(&p, 1, 0), 0);
	assert_doca(DOCA_ERROR_IN_PROGRESS, doca_ctx_stop(fx.ctx));
	assert_int_equal(poll(&p, 1, 2000), 1);
	assert_ok(doca_pe_clear_notification(fx.pe, p.fd));
	assert_true(fx_progress_until_idle(&fx, LOOPS));
	assert_int_equal(fx.ok, 1);
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	fx_fini(&fx);
}

static struct doca_pe *recursive_pe;
static uint8_t recursive_result = 9;

static void recursive_cb(struct doca_dma_task_memcpy *task, union doca_data tud,
                         union doca_data cud)
{
	recursive_result = doca_pe_progress(recursive_pe);
	fx_ok_cb(task, tud, cud);
}

static void no_recursive_progress(void **state)
{
	struct doca_buf *s, *d;
	struct fx fx;

	(void)state;
	fx_init(&fx, 1 << 16, 4, false);
	assert_ok(doca_dma_task_memcpy_set_conf(fx.dma, recursive_cb, fx_err_cb, 4));
	assert_ok(doca_ctx_start(fx.ctx));
	recursive_pe = fx.pe;
	s = fx_src_buf(&fx, 0, 100);
	d = fx_dst_buf(&fx, 0, 100);
	assert_ok(doca_task_submit(fx_task(&fx, s, d, 0)));
	assert_true(fx_progress_until(&fx, 1, LOOPS));
	assert_int_equal(recursive_result, 0);
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	fx_fini(&fx);
}

/* ODMA_ENGINE naming no engine: doca_pe_create fails cleanly (checked in a child process). */
static void unknown_engine(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct doca_pe *pe = NULL;

		setenv("ODMA_ENGINE", "warp-drive", 1);
		_exit(doca_pe_create(&pe) == DOCA_ERROR_INITIALIZATION && pe == NULL ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/*
 * A bad value of a thread-engine knob fails doca_pe_create with INVALID_VALUE and one log
 * line naming the variable; good values (suffixes, hex) are taken. Each in a child process
 * (the knobs are read when the worker pool starts).
 */
static int knob_child(const char *var, const char *val)
{
	char path[] = "/tmp/odma-knob-XXXXXX", log[4096] = "";
	struct doca_pe *pe = NULL;
	doca_error_t r;
	int fd = mkstemp(path);
	ssize_t n;

	if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
		return 2;
	unlink(path);
	setenv("ODMA_ENGINE", "thread", 1);
	setenv(var, val, 1);
	r = doca_pe_create(&pe);
	if (r == DOCA_SUCCESS)
		return doca_pe_destroy(pe) == DOCA_SUCCESS ? 0 : 3;
	n = pread(fd, log, sizeof(log) - 1, 0);
	if (r != DOCA_ERROR_INVALID_VALUE || pe != NULL || n <= 0 || strstr(log, var) == NULL)
		return 4;
	return 1;
}

static int knob(const char *var, const char *val)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(knob_child(var, val));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void engine_knobs(void **state)
{
	static const char *const bad[][2] = {
		{ "ODMA_WORKERS", "abc" },
		{ "ODMA_WORKERS", "0" },
		{ "ODMA_WORKERS", "65" },
		{ "ODMA_WORKERS", "-1" },
		{ "ODMA_WORKERS", " 2" },
		{ "ODMA_INLINE_MAX", "1x" },
		{ "ODMA_INLINE_MAX", "2G" },
		{ "ODMA_SPLIT_MIN", "-1" },
		{ "ODMA_SPLIT_MIN", "99999999999999999999" },
		{ "ODMA_HELP_BACKLOG", "4097" },
	};
	static const char *const good[][2] = {
		{ "ODMA_WORKERS", "2" },    { "ODMA_WORKERS", "0x3" },
		{ "ODMA_INLINE_MAX", "0" }, { "ODMA_INLINE_MAX", "64k" },
		{ "ODMA_SPLIT_MIN", "1M" }, { "ODMA_HELP_BACKLOG", "4096" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (knob(bad[i][0], bad[i][1]) != 1)
			fail_msg("%s=\"%s\" was not refused with a log line naming it", bad[i][0],
			         bad[i][1]);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (knob(good[i][0], good[i][1]) != 0)
			fail_msg("%s=\"%s\" was refused", good[i][0], good[i][1]);
}

/* An mmap created from an RDMA export is for DOCA RDMA tasks: a DMA memcpy from it is refused. */
static void dma_refuses_rdma_import(void **state)
{
	struct doca_mmap *exp, *imp;
	struct doca_buf *s, *d, *local;
	struct doca_dma_task_memcpy *mt;
	struct doca_task *t;
	const void *desc;
	size_t desc_len;
	struct fx fx;

	(void)state;
	fx_init(&fx, 1 << 16, 4, true);
	assert_int_equal(doca_mmap_create(&exp), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(exp, fx.src, 4096), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(exp, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE |
	                                                        DOCA_ACCESS_FLAG_RDMA_READ),
	                 DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(exp, fx.dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(exp), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_export_rdma(exp, fx.dev, &desc, &desc_len), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_create_from_export(NULL, desc, desc_len, fx.dev, &imp),
	                 DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_data(fx.inv, imp, fx.src, 64, &s),
	                 DOCA_SUCCESS);
	d = fx_dst_buf(&fx, 0, 64);
	/* refused at allocation, and at submit when the task is pointed at it afterwards */
	assert_int_equal(doca_dma_task_memcpy_alloc_init(fx.dma, s, d, (union doca_data){ 0 }, &mt),
	                 DOCA_ERROR_NOT_SUPPORTED);
	local = fx_src_buf(&fx, 4096, 64);
	assert_int_equal(
	        doca_dma_task_memcpy_alloc_init(fx.dma, local, d, (union doca_data){ 0 }, &mt),
	        DOCA_SUCCESS);
	doca_dma_task_memcpy_set_src(mt, s);
	t = doca_dma_task_memcpy_as_task(mt);
	assert_int_equal(doca_task_submit(t), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_task_try_submit(t), DOCA_ERROR_NOT_SUPPORTED);
	doca_task_free(t);
	assert_int_equal(doca_buf_dec_refcount(local, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_dec_refcount(s, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_dec_refcount(d, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(imp), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_stop(exp), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(exp), DOCA_SUCCESS);
	assert_int_equal(fx.ok + fx.err, 0);
	fx_fini(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(null_arguments),
		cmocka_unit_test(engine_knobs),
		cmocka_unit_test(connect_rules),
		cmocka_unit_test(start_rules),
		cmocka_unit_test(set_conf_limits),
		cmocka_unit_test(pool_and_alloc),
		cmocka_unit_test(size_limits),
		cmocka_unit_test(read_only_destination),
		cmocka_unit_test(try_submit_validates),
		cmocka_unit_test(async_fatal_rows),
		cmocka_unit_test(inflight_counts_and_flags),
		cmocka_unit_test(stop_after_arm_wakes),
		cmocka_unit_test(no_recursive_progress),
		cmocka_unit_test(unknown_engine),
		cmocka_unit_test(dma_refuses_rdma_import),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
