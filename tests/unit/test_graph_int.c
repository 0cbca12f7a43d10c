/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * White-box checks of DOCA Graph with a context type that is not DMA (a fake type with its
 * own submit and progress ops, as Comch or Sync Event have): context nodes of any type, a
 * full context (AGAIN) making a node wait instead of failing, a typed task failing, the
 * start-time cycle check, and a graph destroyed by a callback run from its own poller.
 */
#include <stdlib.h>
#include <string.h>

#include <doca_graph.h>

#include "core/device/device.h"
#include "core/exec/exec.h"
#include "core/graph/graph.h"
#include "test_util.h"

#define REFUSE 99 /* a task with this user data is refused by the fake type's submit */
#define FAIL 98   /* ... completes with IO_FAILED */

struct fake {
	struct doca_ctx ctx;
	struct doca_task *held[8]; /* tasks completed by the next progress */
	unsigned int nheld;
	unsigned int own_completions; /* the type's own complete op ran */
	unsigned int submits;
	bool hold; /* progress completes nothing */
};

static struct fake *fake_of(const struct doca_ctx *ctx)
{
	return (struct fake *)(uintptr_t)ctx;
}

static void fake_complete(struct doca_task *task, bool ok)
{
	(void)ok;
	fake_of(task->ctx)->own_completions++;
}

static doca_error_t fake_submit(struct doca_task *task)
{
	struct fake *f = fake_of(task->ctx);

	if (task->user_data.u64 == REFUSE)
		return DOCA_ERROR_INVALID_VALUE;
	assert_true(f->nheld < 8);
	f->held[f->nheld++] = task;
	f->submits++;
	return DOCA_SUCCESS;
}

static bool fake_progress(struct doca_ctx *ctx)
{
	struct fake *f = fake_of(ctx);
	unsigned int n = f->hold ? 0 : f->nheld;

	if (n == 0)
		return false;
	f->nheld = 0;
	for (unsigned int i = 0; i < n; i++)
		odma_task_complete(f->held[i], f->held[i]->user_data.u64 == FAIL
		                                       ? DOCA_ERROR_IO_FAILED
		                                       : DOCA_SUCCESS);
	return n != 0;
}

static const struct odma_ctx_ops fake_ops = {
	.name = "FAKE",
	.task_size = sizeof(struct doca_task),
	.complete = fake_complete,
	.submit = fake_submit,
	.progress = fake_progress,
	.no_task_conf = true,
};

struct env {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct fake f;
	struct doca_graph *graph;
	unsigned int ok, err;
	unsigned int user_runs;
	bool destroy_in_cb;
};

static doca_error_t user_cb(void *cookie)
{
	((struct env *)cookie)->user_runs++;
	return DOCA_SUCCESS;
}

static void done(struct env *e, struct doca_graph_instance *inst)
{
	if (!e->destroy_in_cb)
		return;
	assert_ok(doca_graph_instance_destroy(inst));
	assert_ok(doca_graph_stop(e->graph));
	assert_ok(doca_graph_destroy(e->graph));
	e->graph = NULL;
}

static void ok_cb(struct doca_graph_instance *inst, union doca_data iud, union doca_data gud)
{
	struct env *e = gud.ptr;

	(void)iud;
	e->ok++;
	done(e, inst);
}

static void err_cb(struct doca_graph_instance *inst, union doca_data iud, union doca_data gud)
{
	struct env *e = gud.ptr;

	(void)iud;
	e->err++;
	done(e, inst);
}

static void env_init(struct env *e, uint32_t queue_depth)
{
	struct doca_devinfo **list;
	union doca_data ud = { .ptr = e };
	uint32_t n;

	memset(e, 0, sizeof(*e));
	assert_ok(doca_devinfo_create_list(&list, &n));
	assert_true(n > 0);
	assert_ok(doca_dev_open(list[0], &e->dev));
	assert_ok(doca_devinfo_destroy_list(list));
	assert_ok(doca_pe_create(&e->pe));
	assert_ok(doca_priv_ctx_init(&e->f.ctx, &fake_ops, e->dev));
	e->f.ctx.num_tasks = 8;
	assert_ok(doca_pe_connect_ctx(e->pe, &e->f.ctx));
	assert_ok(doca_ctx_start(&e->f.ctx));
	e->f.ctx.queue_depth = queue_depth;
	assert_ok(doca_graph_create(e->pe, &e->graph));
	assert_ok(doca_graph_set_conf(e->graph, ok_cb, err_cb, 4));
	assert_ok(doca_graph_set_user_data(e->graph, ud));
}

static void env_fini(struct env *e)
{
	if (e->graph != NULL) {
		assert_ok(doca_graph_stop(e->graph));
		assert_ok(doca_graph_destroy(e->graph));
	}
	assert_ok(doca_ctx_stop(&e->f.ctx));
	assert_ok(doca_priv_ctx_destroy(&e->f.ctx));
	assert_ok(doca_pe_destroy(e->pe));
	assert_ok(doca_dev_close(e->dev));
}

static struct doca_task *task(struct env *e, uint64_t ud)
{
	struct doca_task *t;

	assert_ok(doca_priv_task_alloc(&e->f.ctx, &t));
	t->user_data.u64 = ud;
	return t;
}

/*
 * Two context nodes of a typed context with room for one task, then a user node: the second
 * waits (AGAIN is not a failure), runs once there is room, and the instance completes. The
 * type's own completion op never runs for graph tasks, and does again afterwards.
 */
static void test_typed_ctx_and_again(void **state)
{
	struct doca_graph_node *a, *b, *u;
	struct doca_graph_instance *inst;
	struct doca_task *ta, *tb;
	struct env e;

	(void)state;
	env_init(&e, 1);
	assert_ok(doca_graph_node_create_from_ctx(e.graph, &e.f.ctx, &a));
	assert_ok(doca_graph_node_create_from_ctx(e.graph, &e.f.ctx, &b));
	assert_ok(doca_graph_node_create_from_user(e.graph, user_cb, &u));
	assert_ok(doca_graph_add_dependency(e.graph, a, u));
	assert_ok(doca_graph_add_dependency(e.graph, b, u));
	assert_ok(doca_graph_start(e.graph));
	ta = task(&e, 1);
	tb = task(&e, 2);
	assert_ok(doca_graph_instance_create(e.graph, &inst));
	assert_ok(doca_graph_instance_set_ctx_node_data(inst, a, ta));
	assert_ok(doca_graph_instance_set_ctx_node_data(inst, b, tb));
	assert_ok(doca_graph_instance_set_user_node_data(inst, u, &e));
	assert_ok(doca_graph_instance_submit(inst)); /* a runs, b waits for room */
	assert_int_equal(e.f.submits, 1);
	assert_int_equal(inst->waiting.head, &inst->slots[b->index]);
	assert_null(tb->hook); /* a refused task keeps no hook */
	for (int i = 0; i < 10 && e.ok + e.err == 0; i++)
		doca_pe_progress(e.pe);
	assert_int_equal(e.ok, 1);
	assert_int_equal(e.err, 0);
	assert_int_equal(e.f.submits, 2);
	assert_int_equal(e.user_runs, 1);
	assert_int_equal(e.f.own_completions, 0);
	assert_null(ta->hook);
	assert_null(tb->hook);
	/* outside the graph the type's own completion applies */
	assert_ok(doca_task_submit(ta));
	doca_pe_progress(e.pe);
	assert_int_equal(e.f.own_completions, 1);

	/* a typed task failing fails the instance; the typed context keeps running */
	tb->user_data.u64 = FAIL;
	e.f.ctx.queue_depth = 8;
	assert_ok(doca_graph_instance_submit(inst));
	for (int i = 0; i < 10 && e.ok + e.err == 1; i++)
		doca_pe_progress(e.pe);
	assert_int_equal(e.err, 1);
	assert_int_equal(e.user_runs, 1);
	assert_int_equal(doca_task_get_status(tb), DOCA_ERROR_IO_FAILED);
	assert_int_equal(e.f.ctx.state, DOCA_CTX_STATE_RUNNING);

	assert_ok(doca_graph_instance_destroy(inst));
	doca_task_free(ta);
	doca_task_free(tb);
	env_fini(&e);
}

/*
 * The waiting node is refused when retried from the graph's poller: the instance finishes
 * inside the poll, and its error callback destroys the instance and the graph there.
 */
static void test_destroy_from_poll(void **state)
{
	struct doca_graph_instance *inst;
	struct doca_graph_node *a, *b;
	struct doca_task *ta, *tb;
	struct env e;

	(void)state;
	env_init(&e, 1);
	e.destroy_in_cb = true;
	assert_ok(doca_graph_node_create_from_ctx(e.graph, &e.f.ctx, &a));
	assert_ok(doca_graph_node_create_from_ctx(e.graph, &e.f.ctx, &b));
	assert_ok(doca_graph_start(e.graph));
	ta = task(&e, 1);
	tb = task(&e, 2);
	assert_ok(doca_graph_instance_create(e.graph, &inst));
	assert_ok(doca_graph_instance_set_ctx_node_data(inst, a, ta));
	assert_ok(doca_graph_instance_set_ctx_node_data(inst, b, tb));
	assert_ok(doca_graph_instance_submit(inst));
	assert_non_null(inst->waiting.head);
	tb->user_data.u64 = REFUSE; /* refused at its retry */
	for (int i = 0; i < 10 && e.ok + e.err == 0; i++)
		doca_pe_progress(e.pe);
	assert_int_equal(e.err, 1);
	assert_null(e.graph);
	assert_int_equal(e.pe->num_pollers, 0);
	doca_pe_progress(e.pe);
	doca_task_free(ta);
	doca_task_free(tb);
	env_fini(&e);
}

/*
 * A node waiting for room is retried at every progress, but a retry that is refused again
 * is not progress: doca_pe_progress returns 0 (a program draining with
 * "while (doca_pe_progress(pe))" does not spin). Once the context has room it runs.
 */
static void test_waiting_is_not_progress(void **state)
{
	struct doca_graph_instance *inst;
	struct doca_task *tx, *ta;
	struct doca_graph_node *a;
	struct env e;

	(void)state;
	env_init(&e, 1);
	assert_ok(doca_graph_node_create_from_ctx(e.graph, &e.f.ctx, &a));
	assert_ok(doca_graph_start(e.graph));
	tx = task(&e, 1);
	ta = task(&e, 2);
	assert_ok(doca_graph_instance_create(e.graph, &inst));
	assert_ok(doca_graph_instance_set_ctx_node_data(inst, a, ta));
	e.f.hold = true;
	assert_ok(doca_task_submit(tx)); /* fills the context */
	assert_ok(doca_graph_instance_submit(inst));
	assert_non_null(inst->waiting.head);
	assert_int_equal(doca_pe_progress(e.pe), 0);
	assert_int_equal(doca_pe_progress(e.pe), 0);
	assert_non_null(inst->waiting.head);
	assert_int_equal(e.f.submits, 1);
	e.f.hold = false;
	for (int i = 0; i < 10 && e.ok == 0; i++)
		doca_pe_progress(e.pe);
	assert_int_equal(e.ok, 1);
	assert_int_equal(e.f.own_completions, 1); /* tx, outside the graph */
	assert_ok(doca_graph_instance_destroy(inst));
	doca_task_free(tx);
	doca_task_free(ta);
	env_fini(&e);
}

/* A cycle that bypassed doca_graph_add_dependency is still refused by start, with a log line. */
static void test_start_refuses_cycle(void **state)
{
	struct doca_graph_node *a, *b, *c;
	struct env e;

	(void)state;
	env_init(&e, 8);
	assert_ok(doca_graph_node_create_from_ctx(e.graph, &e.f.ctx, &a));
	assert_ok(doca_graph_node_create_from_user(e.graph, user_cb, &b));
	assert_ok(doca_graph_node_create_from_user(e.graph, user_cb, &c));
	assert_ok(doca_graph_add_dependency(e.graph, a, b));
	assert_ok(doca_graph_add_dependency(e.graph, b, c));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_graph_add_dependency(e.graph, c, b));
	/* forge c -> b behind the API's back */
	c->succ = malloc(sizeof(*c->succ));
	assert_non_null(c->succ);
	c->succ[0] = b->index;
	c->num_succ = c->cap_succ = 1;
	b->num_deps++;
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_graph_start(e.graph));
	assert_false(e.graph->started);
	env_fini(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_typed_ctx_and_again),
		cmocka_unit_test(test_destroy_from_poll),
		cmocka_unit_test(test_waiting_is_not_progress),
		cmocka_unit_test(test_start_refuses_cycle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
