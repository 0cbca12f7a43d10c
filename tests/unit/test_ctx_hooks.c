/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * White-box checks of the context-type hooks that libraries with non-copy tasks use
 * (Comch, Sync Event, mmap advise): own submit, progress, asynchronous start, stop and
 * idle_ready, and the per-task completion hook a graph uses.
 */
#include <stdlib.h>

#include "core/device/device.h"
#include "core/exec/exec.h"
#include "test_util.h"

struct fake {
	struct doca_ctx ctx;
	unsigned int progressed, stopped, completed, failed, hooked;
	bool connected;          /* the asynchronous start finishes once this is set */
	bool closed;             /* idle_ready */
	struct doca_task *owned; /* a task the type holds until progress completes it */
};

static struct fake *fake_of(const struct doca_ctx *ctx)
{
	return (struct fake *)(uintptr_t)ctx;
}

static doca_error_t fake_start(struct doca_ctx *ctx)
{
	(void)ctx;
	return DOCA_ERROR_IN_PROGRESS;
}

static void fake_complete(struct doca_task *task, bool ok)
{
	struct fake *f = fake_of(task->ctx);

	if (ok)
		f->completed++;
	else
		f->failed++;
	doca_task_free(task);
}

static doca_error_t fake_submit(struct doca_task *task)
{
	struct fake *f = fake_of(task->ctx);

	if (task->user_data.u64 == 99)
		return DOCA_ERROR_INVALID_VALUE; /* refused: stays with the program */
	if (f->owned == NULL) {
		f->owned = task; /* completed later, from progress */
		return DOCA_SUCCESS;
	}
	odma_task_complete(task, DOCA_SUCCESS);
	return DOCA_SUCCESS;
}

static bool fake_progress(struct doca_ctx *ctx)
{
	struct fake *f = fake_of(ctx);

	f->progressed++;
	if (ctx->state == DOCA_CTX_STATE_STARTING && f->connected) {
		odma_ctx_set_state(ctx, DOCA_CTX_STATE_RUNNING);
		return true;
	}
	if (f->owned != NULL && ctx->state != DOCA_CTX_STATE_STARTING) {
		odma_task_complete(f->owned, ctx->state == DOCA_CTX_STATE_STOPPING
		                                     ? DOCA_ERROR_IO_FAILED
		                                     : DOCA_SUCCESS);
		f->owned = NULL;
		return true;
	}
	return false;
}

static void fake_stop(struct doca_ctx *ctx)
{
	fake_of(ctx)->stopped++;
}

static bool fake_idle_ready(const struct doca_ctx *ctx)
{
	return fake_of(ctx)->closed;
}

static const struct odma_ctx_ops fake_ops = {
	.name = "FAKE",
	.task_size = sizeof(struct doca_task),
	.start = fake_start,
	.complete = fake_complete,
	.submit = fake_submit,
	.progress = fake_progress,
	.stop = fake_stop,
	.idle_ready = fake_idle_ready,
	.no_task_conf = true,
};

static void hook_cb(struct doca_task *task, bool ok)
{
	struct fake *f = task->hook_arg;

	assert_true(ok);
	f->hooked++;
	doca_task_free(task);
}

static void test_hooks(void **state)
{
	struct doca_dev *dev = tu_open_dev(NULL);
	struct doca_pe *pe;
	struct fake f = { 0 };
	struct doca_task *t1, *t2, *t3;
	enum doca_ctx_states st;

	(void)state;
	assert_ok(doca_pe_create(&pe));
	assert_ok(doca_priv_ctx_init(&f.ctx, &fake_ops, dev));
	f.ctx.num_tasks = 4;
	assert_ok(doca_pe_connect_ctx(pe, &f.ctx));
	/* asynchronous start: STARTING until the type says RUNNING from progress */
	assert_int_equal(doca_ctx_start(&f.ctx), DOCA_ERROR_IN_PROGRESS);
	assert_ok(doca_ctx_get_state(&f.ctx, &st));
	assert_int_equal(st, DOCA_CTX_STATE_STARTING);
	doca_pe_progress(pe);
	assert_true(f.progressed >= 1);
	assert_int_equal(f.ctx.state, DOCA_CTX_STATE_STARTING);
	f.connected = true;
	assert_true(doca_pe_progress(pe));
	assert_int_equal(f.ctx.state, DOCA_CTX_STATE_RUNNING);

	/* own submit: the first is held by the type, the second completes at once */
	assert_ok(doca_priv_task_alloc(&f.ctx, &t1));
	assert_ok(doca_priv_task_alloc(&f.ctx, &t2));
	assert_ok(doca_task_submit(t1));
	assert_ok(doca_task_submit(t2));
	assert_int_equal(f.ctx.inflight, 2);
	assert_int_equal(f.completed, 0); /* callbacks only from progress */
	doca_pe_progress(pe); /* the progress op hands t1 back first, then both callbacks run */
	assert_int_equal(f.completed, 2);
	assert_int_equal(f.ctx.inflight, 0);

	/* a refusal leaves the task with the program, nothing in flight */
	assert_ok(doca_priv_task_alloc(&f.ctx, &t3));
	t3->user_data.u64 = 99;
	assert_int_equal(doca_task_submit(t3), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(f.ctx.inflight, 0);
	/* the per-task hook replaces the type's completion */
	t3->user_data.u64 = 1;
	t3->hook = hook_cb;
	t3->hook_arg = &f;
	f.owned = (struct doca_task *)1; /* make the type complete at once */
	assert_ok(doca_task_submit(t3));
	f.owned = NULL;
	doca_pe_progress(pe);
	assert_int_equal(f.hooked, 1);
	assert_int_equal(f.completed, 2);

	/* stop: the type's stop op runs; IDLE only once idle_ready says so */
	assert_int_equal(doca_ctx_stop(&f.ctx), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(f.stopped, 1);
	doca_pe_progress(pe);
	assert_int_equal(f.ctx.state, DOCA_CTX_STATE_STOPPING);
	f.closed = true;
	doca_pe_progress(pe);
	assert_int_equal(f.ctx.state, DOCA_CTX_STATE_IDLE);
	assert_ok(doca_priv_ctx_destroy(&f.ctx));
	assert_ok(doca_pe_destroy(pe));
	assert_ok(doca_dev_close(dev));
}

static unsigned int freed;

static void count_free(struct doca_task *task)
{
	(void)task;
	freed++;
}

static void done_cb(struct doca_task *task, bool ok)
{
	(void)task;
	(void)ok;
}

static doca_error_t now_submit(struct doca_task *task)
{
	odma_task_complete(task, DOCA_SUCCESS);
	return DOCA_SUCCESS;
}

static const struct odma_ctx_ops nodev_ops = {
	.name = "NODEV",
	.task_size = sizeof(struct doca_task),
	.complete = done_cb,
	.submit = now_submit,
	.no_task_conf = true,
	.task_free = count_free,
};

/* A context without a device (Sync Event) and the task_free op. */
static void test_no_dev_task_free(void **state)
{
	struct doca_ctx ctx;
	struct doca_pe *pe;
	struct doca_task *t;

	(void)state;
	freed = 0;
	assert_ok(doca_pe_create(&pe));
	assert_ok(doca_priv_ctx_init(&ctx, &nodev_ops, NULL));
	assert_null(ctx.dev);
	assert_int_equal(ctx.queue_depth, 1);
	ctx.num_tasks = 2;
	ctx.queue_depth = 2;
	assert_ok(doca_pe_connect_ctx(pe, &ctx));
	assert_ok(doca_ctx_start(&ctx));
	assert_ok(doca_priv_task_alloc(&ctx, &t));
	assert_ok(doca_task_submit(t));
	doca_pe_progress(pe);
	assert_int_equal(freed, 0);
	doca_task_free(t);
	assert_int_equal(freed, 1);
	doca_task_free(t); /* a second free is refused before the op runs */
	assert_int_equal(freed, 1);
	assert_ok(doca_ctx_stop(&ctx));
	assert_ok(doca_priv_ctx_destroy(&ctx));
	assert_ok(doca_pe_destroy(pe));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hooks),
		cmocka_unit_test(test_no_dev_task_free),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
