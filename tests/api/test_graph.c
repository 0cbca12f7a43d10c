/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Black-box tests of DOCA Graph (doca_graph.h) with DMA context nodes: each function's rules
 * and error codes, ordering (chains, diamonds, parallel branches), the failure rule, reuse of
 * instances, many instances in flight, sub-graphs, event mode, and teardown from inside the
 * callbacks. Run once per engine (ODMA_ENGINE=inline / thread).
 */
#include <poll.h>
#include <string.h>

#include <doca_graph.h>
#include <doca_mmap_advise.h>
#include <doca_sync_event.h>

#include "fixture.h"
#include "test_util.h"

#define LOOPS 50000000UL
#define MAX_ORDER 256

struct gx {
	struct fx fx;          /* device, mmaps, inventory, PE, DMA context 1 */
	struct doca_dma *dma2; /* DMA context 2 (parallel branches) */
	struct doca_ctx *ctx2;
	struct doca_graph *graph;
	unsigned int ok, err; /* graph completion / error callbacks */
	struct doca_graph_instance *last;
	int order[MAX_ORDER]; /* ids of user nodes, in the order they ran */
	unsigned int norder;
	/* what the completion callbacks do */
	bool destroy_in_cb;        /* destroy the instance, stop and destroy the graph */
	unsigned int resubmit;     /* submit the instance again this many times */
	struct doca_buf *reset[4]; /* destination buffers to empty before a resubmit */
};

/* The argument of a user node. */
struct unode {
	struct gx *g;
	int id;
	doca_error_t ret;
	unsigned int runs;
	/* optional check: dst has the n bytes of src */
	const uint8_t *src, *dst;
	size_t n;
};

static doca_error_t unode_cb(void *cookie)
{
	struct unode *u = cookie;

	u->runs++;
	if (u->g->norder < MAX_ORDER)
		u->g->order[u->g->norder++] = u->id;
	if (u->n != 0 && memcmp(u->src, u->dst, u->n) != 0)
		return DOCA_ERROR_BAD_STATE;
	return u->ret;
}

static void reset_bufs(struct gx *g)
{
	for (unsigned int i = 0; i < 4; i++)
		if (g->reset[i] != NULL)
			assert_ok(doca_buf_reset_data_len(g->reset[i]));
}

static void graph_done(struct gx *g, struct doca_graph_instance *inst)
{
	g->last = inst;
	if (g->resubmit > 0) {
		g->resubmit--;
		reset_bufs(g);
		assert_ok(doca_graph_instance_submit(inst));
		return;
	}
	if (g->destroy_in_cb) {
		assert_ok(doca_graph_instance_destroy(inst));
		assert_ok(doca_graph_stop(g->graph));
		assert_ok(doca_graph_destroy(g->graph));
		g->graph = NULL;
	}
}

static void graph_ok_cb(struct doca_graph_instance *inst, union doca_data inst_ud,
                        union doca_data graph_ud)
{
	struct gx *g = graph_ud.ptr;

	(void)inst_ud;
	g->ok++;
	graph_done(g, inst);
}

static void graph_err_cb(struct doca_graph_instance *inst, union doca_data inst_ud,
                         union doca_data graph_ud)
{
	struct gx *g = graph_ud.ptr;

	(void)inst_ud;
	g->err++;
	graph_done(g, inst);
}

static void gx_init(struct gx *g, size_t len, uint32_t num_tasks)
{
	union doca_data ud = { .ptr = &g->fx };

	memset(g, 0, sizeof(*g));
	fx_init(&g->fx, len, num_tasks, true);
	g->fx.free_in_cb = false;
	assert_ok(doca_dma_create(g->fx.dev, &g->dma2));
	g->ctx2 = doca_dma_as_ctx(g->dma2);
	assert_ok(doca_ctx_set_user_data(g->ctx2, ud));
	assert_ok(doca_dma_task_memcpy_set_conf(g->dma2, fx_ok_cb, fx_err_cb, num_tasks));
	assert_ok(doca_pe_connect_ctx(g->fx.pe, g->ctx2));
	assert_ok(doca_ctx_start(g->ctx2));
}

/* A graph on the fixture's PE with both callbacks and user data set. */
static struct doca_graph *gx_graph(struct gx *g, uint32_t num_instances)
{
	union doca_data ud = { .ptr = g };

	assert_ok(doca_graph_create(g->fx.pe, &g->graph));
	assert_ok(doca_graph_set_conf(g->graph, graph_ok_cb, graph_err_cb, num_instances));
	assert_ok(doca_graph_set_user_data(g->graph, ud));
	return g->graph;
}

static void gx_fini(struct gx *g)
{
	doca_error_t r;

	if (g->graph != NULL) {
		assert_ok(doca_graph_stop(g->graph));
		assert_ok(doca_graph_destroy(g->graph));
	}
	r = doca_ctx_stop(g->ctx2);
	assert_true(r == DOCA_SUCCESS || r == DOCA_ERROR_IN_PROGRESS || r == DOCA_ERROR_BAD_STATE);
	for (unsigned long i = 0; i < LOOPS; i++) {
		enum doca_ctx_states st;

		assert_ok(doca_ctx_get_state(g->ctx2, &st));
		if (st == DOCA_CTX_STATE_IDLE)
			break;
		doca_pe_progress(g->fx.pe);
	}
	assert_ok(doca_dma_destroy(g->dma2));
	fx_fini(&g->fx);
}

static bool gx_progress_until(struct gx *g, unsigned int n)
{
	for (unsigned long i = 0; i < LOOPS && g->ok + g->err < n; i++)
		doca_pe_progress(g->fx.pe);
	return g->ok + g->err >= n;
}

static struct doca_task *dma_task(struct gx *g, struct doca_dma *dma, struct doca_buf *src,
                                  struct doca_buf *dst)
{
	struct doca_dma_task_memcpy *t;
	union doca_data d = { .u64 = 0 };

	assert_ok(doca_dma_task_memcpy_alloc_init(dma, src, dst, d, &t));
	(void)g;
	return doca_dma_task_memcpy_as_task(t);
}

static void free_task(struct doca_task *t)
{
	doca_task_free(t);
}

static void put_buf(struct doca_buf *b)
{
	assert_ok(doca_buf_dec_refcount(b, NULL));
}

static size_t data_len(const struct doca_buf *b)
{
	size_t n;

	assert_ok(doca_buf_get_data_len(b, &n));
	return n;
}

/* ---- rules and error codes ---------------------------------------------------------------- */

static void test_create_destroy(void **state)
{
	struct doca_graph *graph;
	struct doca_pe *pe;
	struct gx g;

	(void)state;
	gx_init(&g, 4096, 8);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_create(NULL, &graph));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_create(g.fx.pe, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_destroy(NULL));
	/* a PE (without contexts) is in use while a graph exists on it */
	assert_ok(doca_pe_create(&pe));
	assert_ok(doca_graph_create(pe, &graph));
	assert_doca(DOCA_ERROR_IN_USE, doca_pe_destroy(pe));
	/* a stopped, empty graph stops again and is destroyed */
	assert_ok(doca_graph_stop(graph));
	assert_ok(doca_graph_destroy(graph));
	assert_ok(doca_pe_destroy(pe));
	gx_fini(&g);
}

static void test_conf_and_start_rules(void **state)
{
	struct doca_graph_node *n, *u;
	struct doca_graph *graph;
	union doca_data ud = { .u64 = 42 }, out;
	struct gx g;

	(void)state;
	gx_init(&g, 4096, 8);
	assert_ok(doca_graph_create(g.fx.pe, &graph));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_graph_set_conf(NULL, graph_ok_cb, graph_err_cb, 1));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_set_conf(graph, NULL, graph_err_cb, 1));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_set_conf(graph, graph_ok_cb, NULL, 1));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_graph_set_conf(graph, graph_ok_cb, graph_err_cb, 0));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_set_user_data(NULL, ud));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_get_user_data(graph, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_get_user_data(NULL, &out));
	assert_ok(doca_graph_get_user_data(graph, &out));
	assert_int_equal(out.u64, 0);
	assert_ok(doca_graph_set_user_data(graph, ud));
	assert_ok(doca_graph_get_user_data(graph, &out));
	assert_int_equal(out.u64, 42);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_start(NULL));
	/* no conf */
	assert_ok(doca_graph_node_create_from_ctx(graph, g.fx.ctx, &n));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_graph_start(graph));
	assert_ok(doca_graph_set_conf(graph, graph_ok_cb, graph_err_cb, 2));
	/* the context of a context node must be RUNNING */
	assert_ok(doca_ctx_stop(g.fx.ctx));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_graph_start(graph));
	assert_ok(doca_ctx_start(g.fx.ctx));
	assert_ok(doca_graph_start(graph));
	/* started: no change, no second start */
	assert_doca(DOCA_ERROR_BAD_STATE, doca_graph_start(graph));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_graph_set_conf(graph, graph_ok_cb, graph_err_cb, 1));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_graph_set_user_data(graph, ud));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_graph_node_create_from_ctx(graph, g.ctx2, &u));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_graph_node_create_from_user(graph, unode_cb, &u));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_graph_destroy(graph));
	assert_ok(doca_graph_get_user_data(graph, &out)); /* reading is fine */
	assert_ok(doca_graph_stop(graph));
	assert_ok(doca_graph_stop(graph)); /* stopping a stopped graph succeeds */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_stop(NULL));
	/* stopped again: it can change and restart */
	assert_ok(doca_graph_node_create_from_user(graph, unode_cb, &u));
	assert_ok(doca_graph_add_dependency(graph, n, u));
	assert_ok(doca_graph_start(graph));
	assert_ok(doca_graph_stop(graph));
	assert_ok(doca_graph_destroy(graph));

	/* a graph of user nodes only cannot start */
	assert_ok(doca_graph_create(g.fx.pe, &graph));
	assert_ok(doca_graph_set_conf(graph, graph_ok_cb, graph_err_cb, 2));
	assert_ok(doca_graph_node_create_from_user(graph, unode_cb, &u));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_graph_start(graph));
	assert_ok(doca_graph_destroy(graph));
	/* nor an empty one */
	assert_ok(doca_graph_create(g.fx.pe, &graph));
	assert_ok(doca_graph_set_conf(graph, graph_ok_cb, graph_err_cb, 2));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_graph_start(graph));
	assert_ok(doca_graph_destroy(graph));
	gx_fini(&g);
}

static void test_node_rules(void **state)
{
	struct doca_graph *graph, *other;
	struct doca_graph_node *a, *b, *c, *x;
	struct doca_pe *pe2;
	struct doca_dma *dma3;
	struct gx g;

	(void)state;
	gx_init(&g, 4096, 8);
	assert_ok(doca_graph_create(g.fx.pe, &graph));
	assert_ok(doca_graph_create(g.fx.pe, &other));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_node_create_from_ctx(NULL, g.fx.ctx, &a));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_node_create_from_ctx(graph, NULL, &a));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_graph_node_create_from_ctx(graph, g.fx.ctx, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_node_create_from_user(NULL, unode_cb, &a));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_node_create_from_user(graph, NULL, &a));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_graph_node_create_from_user(graph, unode_cb, NULL));
	assert_ok(doca_graph_node_create_from_ctx(graph, g.fx.ctx, &a));
	assert_ok(doca_graph_node_create_from_user(graph, unode_cb, &b));
	assert_ok(doca_graph_node_create_from_ctx(graph, g.ctx2, &c));
	assert_ok(doca_graph_node_create_from_user(other, unode_cb, &x));

	/* a context connected to another PE */
	assert_ok(doca_pe_create(&pe2));
	assert_ok(doca_dma_create(g.fx.dev, &dma3));
	assert_ok(doca_pe_connect_ctx(pe2, doca_dma_as_ctx(dma3)));
	assert_doca(DOCA_ERROR_NOT_PERMITTED,
	            doca_graph_node_create_from_ctx(graph, doca_dma_as_ctx(dma3), &x));
	assert_ok(doca_dma_destroy(dma3));
	assert_ok(doca_pe_destroy(pe2));

	/* dependencies */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_add_dependency(NULL, a, b));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_add_dependency(graph, NULL, b));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_add_dependency(graph, a, NULL));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_graph_add_dependency(graph, a, a));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_graph_add_dependency(graph, a, x));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_graph_add_dependency(graph, x, a));
	assert_ok(doca_graph_add_dependency(graph, a, b));
	assert_ok(doca_graph_add_dependency(graph, a, b)); /* again: no change */
	assert_ok(doca_graph_add_dependency(graph, b, c));
	/* cycles, direct and through a chain */
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_graph_add_dependency(graph, b, a));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_graph_add_dependency(graph, c, a));
	assert_ok(doca_graph_add_dependency(graph, a, c)); /* a shortcut is no cycle */
	assert_ok(doca_graph_destroy(other));
	assert_ok(doca_graph_destroy(graph));
	gx_fini(&g);
}

/* A context node whose context is on another PE by start time. */
static void test_start_ctx_other_pe(void **state)
{
	struct doca_graph_node *a, *b;
	struct doca_graph *graph;
	struct doca_dma *dma3;
	struct doca_pe *pe2;
	struct gx g;

	(void)state;
	gx_init(&g, 4096, 8);
	assert_ok(doca_dma_create(g.fx.dev, &dma3));
	assert_ok(doca_dma_task_memcpy_set_conf(dma3, fx_ok_cb, fx_err_cb, 4));
	assert_ok(doca_graph_create(g.fx.pe, &graph));
	assert_ok(doca_graph_set_conf(graph, graph_ok_cb, graph_err_cb, 1));
	assert_ok(doca_graph_node_create_from_ctx(graph, g.fx.ctx, &a));
	/* not connected yet: the node is accepted, start checks again */
	assert_ok(doca_graph_node_create_from_ctx(graph, doca_dma_as_ctx(dma3), &b));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_graph_start(graph));
	assert_ok(doca_pe_create(&pe2));
	assert_ok(doca_pe_connect_ctx(pe2, doca_dma_as_ctx(dma3)));
	assert_ok(doca_ctx_start(doca_dma_as_ctx(dma3)));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_graph_start(graph));
	assert_ok(doca_graph_destroy(graph));
	assert_ok(doca_ctx_stop(doca_dma_as_ctx(dma3)));
	assert_ok(doca_dma_destroy(dma3));
	assert_ok(doca_pe_destroy(pe2));
	gx_fini(&g);
}

static void test_instance_rules(void **state)
{
	struct doca_graph_instance *inst, *inst2, *extra;
	struct doca_graph_node *d, *u, *ux;
	struct doca_graph *graph, *other;
	struct doca_task *t, *t2, *t_other;
	struct doca_buf *src, *dst, *dst2, *dst3;
	union doca_data ud = { .u64 = 7 }, out;
	struct unode un = { 0 };
	struct gx g;

	(void)state;
	gx_init(&g, 4096, 8);
	un.g = &g;
	graph = gx_graph(&g, 2);
	assert_ok(doca_graph_node_create_from_ctx(graph, g.fx.ctx, &d));
	assert_ok(doca_graph_node_create_from_user(graph, unode_cb, &u));
	assert_ok(doca_graph_add_dependency(graph, d, u));
	assert_ok(doca_graph_create(g.fx.pe, &other));
	assert_ok(doca_graph_node_create_from_user(other, unode_cb, &ux));

	/* before start */
	assert_doca(DOCA_ERROR_BAD_STATE, doca_graph_instance_create(graph, &inst));
	assert_ok(doca_graph_start(graph));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_instance_create(NULL, &inst));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_instance_create(graph, NULL));
	assert_ok(doca_graph_instance_create(graph, &inst));
	assert_ok(doca_graph_instance_create(graph, &inst2));
	/* num_instances reached */
	assert_doca(DOCA_ERROR_NO_MEMORY, doca_graph_instance_create(graph, &extra));
	assert_ok(doca_graph_instance_destroy(inst2));
	assert_ok(doca_graph_instance_create(graph, &inst2));
	/* the graph cannot stop while instances exist */
	assert_doca(DOCA_ERROR_IN_USE, doca_graph_stop(graph));

	src = fx_src_buf(&g.fx, 0, 256);
	dst = fx_dst_buf(&g.fx, 0, 256);
	dst2 = fx_dst_buf(&g.fx, 256, 256);
	dst3 = fx_dst_buf(&g.fx, 512, 256);
	t = dma_task(&g, g.fx.dma, src, dst);
	t2 = dma_task(&g, g.fx.dma, src, dst2);
	t_other = dma_task(&g, g.dma2, src, dst3);

	/* user data */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_instance_set_user_data(NULL, ud));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_instance_get_user_data(NULL, &out));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_instance_get_user_data(inst, NULL));
	assert_ok(doca_graph_instance_get_user_data(inst, &out));
	assert_int_equal(out.u64, 0);
	assert_ok(doca_graph_instance_set_user_data(inst, ud));
	assert_ok(doca_graph_instance_get_user_data(inst, &out));
	assert_int_equal(out.u64, 7);

	/* ctx node data */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_instance_set_ctx_node_data(NULL, d, t));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_instance_set_ctx_node_data(inst, NULL, t));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_instance_set_ctx_node_data(inst, d, NULL));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_graph_instance_set_ctx_node_data(inst, u, t));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_graph_instance_set_ctx_node_data(inst, ux, t));
	assert_doca(DOCA_ERROR_NOT_PERMITTED,
	            doca_graph_instance_set_ctx_node_data(inst, d, t_other));
	/* user node data */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_instance_set_user_node_data(NULL, u, &un));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_graph_instance_set_user_node_data(inst, NULL, &un));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_graph_instance_set_user_node_data(inst, d, &un));
	assert_doca(DOCA_ERROR_NOT_PERMITTED,
	            doca_graph_instance_set_user_node_data(inst, ux, &un));
	assert_ok(doca_graph_instance_set_user_node_data(inst, u, &un));
	/* sub-graph data on the wrong nodes */
	assert_doca(DOCA_ERROR_NOT_PERMITTED,
	            doca_graph_instance_set_sub_graph_node_data(inst, d, inst2));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_graph_instance_set_sub_graph_node_data(inst, d, NULL));

	/* a node without data */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_instance_submit(inst));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_instance_submit(NULL));
	assert_ok(doca_graph_instance_set_ctx_node_data(inst, d, t));
	/* an in-flight task cannot become node data */
	assert_ok(doca_task_submit(t2));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_instance_set_ctx_node_data(inst2, d, t2));
	assert_true(fx_progress_until(&g.fx, 1, LOOPS));
	assert_int_equal(g.fx.ok, 1); /* outside a graph the task's own callback runs */

	/* submitted: no changes, no second submit, no destroy */
	assert_ok(doca_graph_instance_submit(inst));
	assert_doca(DOCA_ERROR_IN_USE, doca_graph_instance_submit(inst));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_graph_instance_set_ctx_node_data(inst, d, t));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_graph_instance_set_user_node_data(inst, u, &un));
	assert_doca(DOCA_ERROR_IN_USE, doca_graph_instance_set_user_data(inst, ud));
	assert_doca(DOCA_ERROR_IN_USE, doca_graph_instance_destroy(inst));
	assert_ok(doca_graph_instance_get_user_data(inst, &out));
	assert_true(gx_progress_until(&g, 1));
	assert_int_equal(g.ok, 1);
	assert_int_equal(g.err, 0);
	assert_ptr_equal(g.last, inst);
	assert_int_equal(un.runs, 1);
	assert_int_equal(g.fx.ok, 1); /* the graph's task got no task callback */
	assert_int_equal(data_len(dst), 256);
	assert_memory_equal(g.fx.dst, g.fx.src, 256);
	assert_ok(doca_task_get_status(t));

	/* after completion the task is the program's: its own callback applies again */
	assert_ok(doca_buf_reset_data_len(dst));
	assert_ok(doca_task_submit(t));
	assert_true(fx_progress_until(&g.fx, 2, LOOPS));
	assert_int_equal(g.fx.ok, 2);
	assert_int_equal(g.ok, 1);

	/* a freed task: set refused; one freed after being set: submit refused, nothing runs */
	free_task(t2);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_instance_set_ctx_node_data(inst2, d, t2));
	t2 = dma_task(&g, g.fx.dma, src, dst2);
	assert_ok(doca_graph_instance_set_ctx_node_data(inst2, d, t2));
	free_task(t2);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_instance_submit(inst2));
	assert_ok(doca_graph_instance_destroy(inst2));

	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_instance_destroy(NULL));
	assert_ok(doca_graph_instance_destroy(inst));
	free_task(t);
	free_task(t_other);
	put_buf(src);
	put_buf(dst);
	put_buf(dst2);
	put_buf(dst3);
	assert_ok(doca_graph_destroy(other));
	gx_fini(&g);
}

/* ---- execution ---------------------------------------------------------------------------- */

/*
 * NVIDIA's sample shape: two DMA nodes (one per context) then a user node that checks both
 * copies, NUM instances submitted at once.
 */
#define NUM 10
#define SZ 1024

static void test_two_dma_then_user(void **state)
{
	struct doca_graph_instance *inst[NUM];
	struct doca_graph_node *d1, *d2, *u;
	struct doca_buf *src[NUM], *dst1[NUM], *dst2[NUM];
	struct doca_task *t1[NUM], *t2[NUM];
	struct unode un[NUM][2];
	struct doca_graph *graph;
	struct gx g;

	(void)state;
	gx_init(&g, NUM * 2 * SZ, NUM);
	graph = gx_graph(&g, NUM);
	assert_ok(doca_graph_node_create_from_user(graph, unode_cb, &u));
	assert_ok(doca_graph_node_create_from_ctx(graph, g.fx.ctx, &d1));
	assert_ok(doca_graph_add_dependency(graph, d1, u));
	assert_ok(doca_graph_node_create_from_ctx(graph, g.ctx2, &d2));
	assert_ok(doca_graph_add_dependency(graph, d2, u));
	assert_ok(doca_graph_start(graph));
	for (int i = 0; i < NUM; i++) {
		fx_pattern(g.fx.src + (size_t)i * SZ, SZ, (unsigned int)i + 10);
		src[i] = fx_src_buf(&g.fx, (size_t)i * SZ, SZ);
		dst1[i] = fx_dst_buf(&g.fx, (size_t)i * 2 * SZ, SZ);
		dst2[i] = fx_dst_buf(&g.fx, (size_t)i * 2 * SZ + SZ, SZ);
		t1[i] = dma_task(&g, g.fx.dma, src[i], dst1[i]);
		t2[i] = dma_task(&g, g.dma2, src[i], dst2[i]);
		/* the user node checks the first copy; un[i][1] is unused room for the second */
		un[i][0] = (struct unode){ .g = &g,
			                   .id = i,
			                   .src = g.fx.src + (size_t)i * SZ,
			                   .dst = g.fx.dst + (size_t)i * 2 * SZ,
			                   .n = SZ };
		un[i][1] = un[i][0];
		assert_ok(doca_graph_instance_create(graph, &inst[i]));
		assert_ok(doca_graph_instance_set_ctx_node_data(inst[i], d1, t1[i]));
		assert_ok(doca_graph_instance_set_ctx_node_data(inst[i], d2, t2[i]));
		assert_ok(doca_graph_instance_set_user_node_data(inst[i], u, &un[i][0]));
	}
	for (int i = 0; i < NUM; i++)
		assert_ok(doca_graph_instance_submit(inst[i]));
	assert_true(gx_progress_until(&g, NUM));
	assert_int_equal(g.ok, NUM);
	assert_int_equal(g.err, 0);
	assert_int_equal(g.fx.ok + g.fx.err, 0); /* no task callback for graph tasks */
	for (int i = 0; i < NUM; i++) {
		assert_int_equal(un[i][0].runs, 1);
		assert_int_equal(data_len(dst1[i]), SZ);
		assert_int_equal(data_len(dst2[i]), SZ);
		assert_memory_equal(g.fx.dst + (size_t)i * 2 * SZ + SZ, g.fx.src + (size_t)i * SZ,
		                    SZ);
	}
	for (int i = 0; i < NUM; i++) {
		assert_ok(doca_graph_instance_destroy(inst[i]));
		free_task(t1[i]);
		free_task(t2[i]);
		put_buf(src[i]);
		put_buf(dst1[i]);
		put_buf(dst2[i]);
	}
	gx_fini(&g);
}

/*
 * A chain: user(0) -> DMA src->mid -> user(1, checks mid) -> DMA mid->dst (context 2)
 * -> user(2, checks dst). The second copy reads what the first wrote, so it must run after.
 */
static void test_chain(void **state)
{
	struct doca_graph_node *u0, *c1, *u1, *c2, *u2;
	struct doca_buf *src, *mid_dst, *mid_src, *dst;
	struct doca_graph_instance *inst;
	struct doca_task *t1, *t2;
	struct unode un[3];
	struct doca_graph *graph;
	struct gx g;

	(void)state;
	gx_init(&g, 2 * SZ, 4);
	graph = gx_graph(&g, 1);
	assert_ok(doca_graph_node_create_from_user(graph, unode_cb, &u0));
	assert_ok(doca_graph_node_create_from_ctx(graph, g.fx.ctx, &c1));
	assert_ok(doca_graph_node_create_from_user(graph, unode_cb, &u1));
	assert_ok(doca_graph_node_create_from_ctx(graph, g.ctx2, &c2));
	assert_ok(doca_graph_node_create_from_user(graph, unode_cb, &u2));
	/* added out of order on purpose */
	assert_ok(doca_graph_add_dependency(graph, c2, u2));
	assert_ok(doca_graph_add_dependency(graph, u1, c2));
	assert_ok(doca_graph_add_dependency(graph, u0, c1));
	assert_ok(doca_graph_add_dependency(graph, c1, u1));
	assert_ok(doca_graph_start(graph));

	src = fx_src_buf(&g.fx, 0, SZ);
	mid_dst = fx_dst_buf(&g.fx, 0, SZ);
	assert_ok(doca_buf_inventory_buf_get_by_data(g.fx.inv, g.fx.dst_mmap, g.fx.dst, SZ,
	                                             &mid_src));
	dst = fx_dst_buf(&g.fx, SZ, SZ);
	t1 = dma_task(&g, g.fx.dma, src, mid_dst);
	t2 = dma_task(&g, g.dma2, mid_src, dst);
	un[0] = (struct unode){ .g = &g, .id = 0 };
	un[1] = (struct unode){ .g = &g, .id = 1, .src = g.fx.src, .dst = g.fx.dst, .n = SZ };
	un[2] = (struct unode){ .g = &g, .id = 2, .src = g.fx.src, .dst = g.fx.dst + SZ, .n = SZ };
	assert_ok(doca_graph_instance_create(graph, &inst));
	assert_ok(doca_graph_instance_set_ctx_node_data(inst, c1, t1));
	assert_ok(doca_graph_instance_set_ctx_node_data(inst, c2, t2));
	assert_ok(doca_graph_instance_set_user_node_data(inst, u0, &un[0]));
	assert_ok(doca_graph_instance_set_user_node_data(inst, u1, &un[1]));
	assert_ok(doca_graph_instance_set_user_node_data(inst, u2, &un[2]));
	assert_ok(doca_graph_instance_submit(inst));
	/* a root user node runs from progress, never inside submit */
	assert_int_equal(un[0].runs, 0);
	assert_true(gx_progress_until(&g, 1));
	assert_int_equal(g.ok, 1);
	assert_int_equal(g.norder, 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(g.order[i], i);
	assert_memory_equal(g.fx.dst + SZ, g.fx.src, SZ);

	assert_ok(doca_graph_instance_destroy(inst));
	free_task(t1);
	free_task(t2);
	put_buf(src);
	put_buf(mid_dst);
	put_buf(mid_src);
	put_buf(dst);
	gx_fini(&g);
}

/* A node task freed while its instance runs: refused, and the instance still completes. */
static void test_free_node_task_in_flight(void **state)
{
	struct doca_graph_node *c1;
	struct doca_graph_instance *inst;
	struct doca_buf *src, *dst;
	struct doca_graph *graph;
	struct doca_task *t1;
	struct gx g;

	(void)state;
	gx_init(&g, SZ, 4);
	graph = gx_graph(&g, 1);
	assert_ok(doca_graph_node_create_from_ctx(graph, g.fx.ctx, &c1));
	assert_ok(doca_graph_start(graph));
	src = fx_src_buf(&g.fx, 0, SZ);
	dst = fx_dst_buf(&g.fx, 0, SZ);
	t1 = dma_task(&g, g.fx.dma, src, dst);
	assert_ok(doca_graph_instance_create(graph, &inst));
	assert_ok(doca_graph_instance_set_ctx_node_data(inst, c1, t1));
	assert_ok(doca_graph_instance_submit(inst)); /* a root context node is submitted now */
	doca_task_free(t1);                          /* refused: one ERROR line */
	for (int i = 0; i < 1000000 && g.ok + g.err == 0; i++)
		doca_pe_progress(g.fx.pe);
	assert_int_equal(g.ok, 1);
	assert_memory_equal(g.fx.dst, g.fx.src, SZ);
	assert_ok(doca_graph_instance_destroy(inst));
	free_task(t1); /* now it is the program's again */
	put_buf(src);
	put_buf(dst);
	gx_fini(&g);
}

/* Progresses until @ctx is IDLE; returns whether it is. */
static bool ctx_idle(struct gx *g, struct doca_ctx *ctx)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_RUNNING;

	for (unsigned long i = 0; i < LOOPS && st != DOCA_CTX_STATE_IDLE; i++) {
		doca_pe_progress(g->fx.pe);
		assert_ok(doca_ctx_get_state(ctx, &st));
	}
	return st == DOCA_CTX_STATE_IDLE;
}

/*
 * Frees @t (against doca_graph.h's rule), stops its context (the second one: nothing else of
 * it is allocated, so it is IDLE at once and nothing progresses) and restarts it with @n tasks.
 */
static void restart_without(struct gx *g, struct doca_task *t, uint32_t n)
{
	enum doca_ctx_states st;

	free_task(t);
	assert_ok(doca_ctx_stop(g->ctx2));
	assert_ok(doca_ctx_get_state(g->ctx2, &st));
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	assert_ok(doca_dma_task_memcpy_set_conf(g->dma2, fx_ok_cb, fx_err_cb, n));
	assert_ok(doca_ctx_start(g->ctx2)); /* another count: a new pool, the old one freed */
}

/* The graph u -> d2 beside d1 (d1 and u are roots), one instance with its node data set. */
struct freed_node {
	struct gx g;
	struct doca_graph_node *u, *d1, *d2;
	struct doca_graph_instance *inst;
	struct doca_buf *src, *dst1, *dst2;
	struct doca_task *t1, *t2;
	struct unode un;
};

static void freed_node_init(struct freed_node *f)
{
	struct doca_graph *graph;

	gx_init(&f->g, 2 * SZ, 4);
	memset(&f->un, 0, sizeof(f->un));
	f->un.g = &f->g;
	graph = gx_graph(&f->g, 1);
	assert_ok(doca_graph_node_create_from_user(graph, unode_cb, &f->u));
	assert_ok(doca_graph_node_create_from_ctx(graph, f->g.fx.ctx, &f->d1));
	assert_ok(doca_graph_node_create_from_ctx(graph, f->g.ctx2, &f->d2));
	assert_ok(doca_graph_add_dependency(graph, f->u, f->d2));
	assert_ok(doca_graph_start(graph));
	f->src = fx_src_buf(&f->g.fx, 0, SZ);
	f->dst1 = fx_dst_buf(&f->g.fx, 0, SZ);
	f->dst2 = fx_dst_buf(&f->g.fx, SZ, SZ);
	f->t1 = dma_task(&f->g, f->g.fx.dma, f->src, f->dst1);
	f->t2 = dma_task(&f->g, f->g.dma2, f->src, f->dst2);
	assert_ok(doca_graph_instance_create(graph, &f->inst));
	assert_ok(doca_graph_instance_set_ctx_node_data(f->inst, f->d1, f->t1));
	assert_ok(doca_graph_instance_set_ctx_node_data(f->inst, f->d2, f->t2));
	assert_ok(doca_graph_instance_set_user_node_data(f->inst, f->u, &f->un));
}

/* Gives node d2 a new task of the second context. */
static void freed_node_new_task(struct freed_node *f)
{
	f->t2 = dma_task(&f->g, f->g.dma2, f->src, f->dst2);
	assert_ok(doca_graph_instance_set_ctx_node_data(f->inst, f->d2, f->t2));
}

/*
 * A node's task freed while it is the node's data, its context then restarted with another
 * task count: the task's memory is gone with the old pool. The graph checks its node tasks
 * against the context's pool before it touches them: a submit is refused (INVALID_VALUE, one
 * line), a node reached during a run fails the instance; never a read of freed memory
 * (AddressSanitizer builds report one without the check).
 */
static void test_node_task_freed_and_ctx_restarted(void **state)
{
	struct freed_node f;
	unsigned int hit;

	(void)state;
	freed_node_init(&f);
	/* at submit: refused, nothing runs */
	restart_without(&f.g, f.t2, 8);
	(void)tu_log_lines("", &hit);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_instance_submit(f.inst));
	assert_int_equal(tu_log_lines("is not a task of context", &hit), 1);
	assert_int_equal(hit, 1);
	assert_int_equal(data_len(f.dst1), 0);
	/* during a run: d2 is reached after u, once the task is gone; the instance fails */
	freed_node_new_task(&f);
	assert_ok(doca_graph_instance_submit(f.inst));
	restart_without(&f.g, f.t2, 4);
	assert_true(gx_progress_until(&f.g, 1));
	assert_int_equal(f.g.err, 1);
	assert_int_equal(f.un.runs, 1);
	assert_int_equal(data_len(f.dst2), 0);
	/* a live task again: the instance runs */
	assert_ok(doca_buf_reset_data_len(f.dst1));
	freed_node_new_task(&f);
	assert_ok(doca_graph_instance_submit(f.inst));
	assert_true(gx_progress_until(&f.g, 2));
	assert_int_equal(f.g.ok, 1);
	assert_int_equal(data_len(f.dst2), SZ);
	assert_ok(doca_graph_instance_destroy(f.inst));
	free_task(f.t1);
	free_task(f.t2);
	put_buf(f.src);
	put_buf(f.dst1);
	put_buf(f.dst2);
	gx_fini(&f.g);
}

/*
 * The diamond A -> {B, C} -> D, and beside it an independent branch E -> F: D runs after
 * both B and C, each branch in its order, and the instance completes once.
 */
struct diamond {
	struct doca_graph_node *a, *b, *c, *d, *e, *f;
};

static void build_diamond(struct gx *g, struct diamond *dm, uint32_t num_instances)
{
	struct doca_graph *graph = gx_graph(g, num_instances);

	assert_ok(doca_graph_node_create_from_user(graph, unode_cb, &dm->a));
	assert_ok(doca_graph_node_create_from_ctx(graph, g->fx.ctx, &dm->b));
	assert_ok(doca_graph_node_create_from_ctx(graph, g->ctx2, &dm->c));
	assert_ok(doca_graph_node_create_from_user(graph, unode_cb, &dm->d));
	assert_ok(doca_graph_node_create_from_user(graph, unode_cb, &dm->e));
	assert_ok(doca_graph_node_create_from_user(graph, unode_cb, &dm->f));
	assert_ok(doca_graph_add_dependency(graph, dm->a, dm->b));
	assert_ok(doca_graph_add_dependency(graph, dm->a, dm->c));
	assert_ok(doca_graph_add_dependency(graph, dm->b, dm->d));
	assert_ok(doca_graph_add_dependency(graph, dm->c, dm->d));
	assert_ok(doca_graph_add_dependency(graph, dm->e, dm->f));
	assert_ok(doca_graph_start(graph));
}

/* One diamond instance's resources: region i of the buffers. */
struct dinst {
	struct doca_graph_instance *inst;
	struct doca_buf *src, *dst_b, *dst_c;
	struct doca_task *tb, *tc;
	struct unode ua, ud, ue, uf, ud2;
};

static void dinst_init(struct gx *g, struct diamond *dm, struct dinst *di, int i, size_t sz)
{
	uint8_t *s = g->fx.src + (size_t)i * sz, *d = g->fx.dst + (size_t)i * 2 * sz;

	fx_pattern(s, sz, (unsigned int)i + 100);
	di->src = fx_src_buf(&g->fx, (size_t)i * sz, sz);
	di->dst_b = fx_dst_buf(&g->fx, (size_t)i * 2 * sz, sz);
	di->dst_c = fx_dst_buf(&g->fx, (size_t)i * 2 * sz + sz, sz);
	di->tb = dma_task(g, g->fx.dma, di->src, di->dst_b);
	di->tc = dma_task(g, g->dma2, di->src, di->dst_c);
	di->ua = (struct unode){ .g = g, .id = 0 };
	di->ud = (struct unode){ .g = g, .id = 3, .src = s, .dst = d, .n = sz };
	di->ud2 = (struct unode){ .g = g, .id = 3, .src = s, .dst = d + sz, .n = sz };
	di->ue = (struct unode){ .g = g, .id = 4 };
	di->uf = (struct unode){ .g = g, .id = 5 };
	assert_ok(doca_graph_instance_create(g->graph, &di->inst));
	assert_ok(doca_graph_instance_set_ctx_node_data(di->inst, dm->b, di->tb));
	assert_ok(doca_graph_instance_set_ctx_node_data(di->inst, dm->c, di->tc));
	assert_ok(doca_graph_instance_set_user_node_data(di->inst, dm->a, &di->ua));
	assert_ok(doca_graph_instance_set_user_node_data(di->inst, dm->d, &di->ud));
	assert_ok(doca_graph_instance_set_user_node_data(di->inst, dm->e, &di->ue));
	assert_ok(doca_graph_instance_set_user_node_data(di->inst, dm->f, &di->uf));
}

static void dinst_fini(struct dinst *di)
{
	assert_ok(doca_graph_instance_destroy(di->inst));
	free_task(di->tb);
	free_task(di->tc);
	put_buf(di->src);
	put_buf(di->dst_b);
	put_buf(di->dst_c);
}

static void dinst_reset(struct dinst *di)
{
	assert_ok(doca_buf_reset_data_len(di->dst_b));
	assert_ok(doca_buf_reset_data_len(di->dst_c));
}

static void test_diamond_and_branch(void **state)
{
	struct diamond dm;
	struct dinst di;
	int pos[6] = { -1, -1, -1, -1, -1, -1 };
	struct gx g;

	(void)state;
	gx_init(&g, 2 * SZ, 4);
	build_diamond(&g, &dm, 1);
	dinst_init(&g, &dm, &di, 0, SZ);
	assert_ok(doca_graph_instance_submit(di.inst));
	assert_true(gx_progress_until(&g, 1));
	assert_int_equal(g.ok, 1);
	assert_int_equal(g.norder, 4);
	for (unsigned int i = 0; i < g.norder; i++)
		pos[g.order[i]] = (int)i;
	assert_true(pos[0] >= 0 &&
	            pos[3] > pos[0]); /* A before D (B and C in between, checked by D) */
	assert_true(pos[4] >= 0 && pos[5] > pos[4]); /* E before F */
	assert_int_equal(di.ud.runs, 1);
	assert_memory_equal(g.fx.dst + SZ, g.fx.src, SZ);
	/* D checked B's copy; check C's too */
	assert_int_equal(data_len(di.dst_c), SZ);
	dinst_fini(&di);
	gx_fini(&g);
}

/*
 * Many instances in flight at once, several rounds, each instance resubmitted. With copies
 * above the thread engine's inline limit (64 KiB) the DMA nodes run on its workers, in
 * parallel with each other and with the PE thread.
 */
static void many_instances(int many, size_t sz)
{
	struct dinst *di = calloc((size_t)many, sizeof(*di));
	struct diamond dm;
	struct gx g;

	assert_non_null(di);
	gx_init(&g, (size_t)many * 2 * sz, (uint32_t)many);
	build_diamond(&g, &dm, (uint32_t)many);
	for (int i = 0; i < many; i++)
		dinst_init(&g, &dm, &di[i], i, sz);
	for (unsigned int round = 0; round < 3; round++) {
		g.ok = g.err = 0;
		for (int i = 0; i < many; i++) {
			dinst_reset(&di[i]);
			memset(g.fx.dst + (size_t)i * 2 * sz, 0, 2 * sz);
			assert_ok(doca_graph_instance_submit(di[i].inst));
		}
		assert_true(gx_progress_until(&g, (unsigned int)many));
		assert_int_equal(g.ok, many);
		assert_int_equal(g.err, 0);
		for (int i = 0; i < many; i++) {
			assert_int_equal(di[i].ud.runs, round + 1);
			assert_int_equal(di[i].uf.runs, round + 1);
			assert_memory_equal(g.fx.dst + (size_t)i * 2 * sz + sz,
			                    g.fx.src + (size_t)i * sz, sz);
		}
	}
	for (int i = 0; i < many; i++)
		dinst_fini(&di[i]);
	free(di);
	gx_fini(&g);
}

static void test_many_instances(void **state)
{
	(void)state;
	many_instances(32, 512);
}

static void test_many_instances_large(void **state)
{
	(void)state;
	many_instances(8, 160 << 10);
}

/* Reuse: the completion callback submits the same instance again, many times. */
static void test_resubmit_from_callback(void **state)
{
	struct diamond dm;
	struct dinst di;
	struct gx g;

	(void)state;
	gx_init(&g, 2 * SZ, 4);
	build_diamond(&g, &dm, 1);
	dinst_init(&g, &dm, &di, 0, SZ);
	g.resubmit = 99;
	g.reset[0] = di.dst_b;
	g.reset[1] = di.dst_c;
	assert_ok(doca_graph_instance_submit(di.inst));
	assert_true(gx_progress_until(&g, 100));
	assert_int_equal(g.ok, 100);
	assert_int_equal(g.err, 0);
	assert_int_equal(di.ua.runs, 100);
	assert_int_equal(di.ud.runs, 100);
	assert_int_equal(di.uf.runs, 100);
	dinst_fini(&di);
	gx_fini(&g);
}

/* ---- failure rule ------------------------------------------------------------------------- */

/*
 * A user node fails: its dependents never run, the other branch's nodes that already started
 * finish, the error callback runs once, and the instance runs again successfully afterwards.
 */
static void test_user_node_failure(void **state)
{
	struct diamond dm;
	struct dinst di;
	struct gx g;

	(void)state;
	gx_init(&g, 2 * SZ, 4);
	build_diamond(&g, &dm, 1);
	dinst_init(&g, &dm, &di, 0, SZ);
	di.ua.ret = DOCA_ERROR_NOT_PERMITTED; /* A fails: B, C, D never run */
	assert_ok(doca_graph_instance_submit(di.inst));
	assert_true(gx_progress_until(&g, 1));
	for (int i = 0; i < 1000; i++)
		doca_pe_progress(g.fx.pe); /* nothing more comes */
	assert_int_equal(g.err, 1);
	assert_int_equal(g.ok, 0);
	assert_int_equal(di.ua.runs, 1);
	assert_int_equal(di.ud.runs, 0);
	assert_int_equal(data_len(di.dst_b), 0); /* B was never submitted */
	assert_int_equal(data_len(di.dst_c), 0);
	assert_int_equal(g.fx.ok + g.fx.err, 0);

	/* D fails (after B and C ran): the error callback, once */
	di.ua.ret = DOCA_SUCCESS;
	di.ud.ret = DOCA_ERROR_BAD_STATE;
	assert_ok(doca_graph_instance_submit(di.inst));
	assert_true(gx_progress_until(&g, 2));
	assert_int_equal(g.err, 2);
	assert_int_equal(di.ud.runs, 1);
	assert_int_equal(data_len(di.dst_b), SZ);

	/* fixed: the same instance completes */
	di.ud.ret = DOCA_SUCCESS;
	dinst_reset(&di);
	assert_ok(doca_graph_instance_submit(di.inst));
	assert_true(gx_progress_until(&g, 3));
	assert_int_equal(g.ok, 1);
	assert_int_equal(g.err, 2);
	dinst_fini(&di);
	gx_fini(&g);
}

/*
 * A DMA node fails (its destination is too small, found when the engine runs it): nodes
 * after it never run, the error callback runs once with the task's status kept, and (as
 * for any failed DMA task in odma) its context stops; once restarted the instance runs.
 */
static void test_ctx_node_failure(void **state)
{
	struct doca_graph_node *b, *u, *c;
	struct doca_buf *src, *small, *dst, *dst_c;
	struct doca_graph_instance *inst;
	struct doca_dma_task_memcpy *mb;
	struct doca_task *tb, *tc;
	struct unode un;
	struct doca_graph *graph;
	enum doca_ctx_states st;
	struct gx g;

	(void)state;
	gx_init(&g, 4 * SZ, 4);
	graph = gx_graph(&g, 1);
	/* B (context 1) -> U; C (context 2) independent */
	assert_ok(doca_graph_node_create_from_ctx(graph, g.fx.ctx, &b));
	assert_ok(doca_graph_node_create_from_user(graph, unode_cb, &u));
	assert_ok(doca_graph_node_create_from_ctx(graph, g.ctx2, &c));
	assert_ok(doca_graph_add_dependency(graph, b, u));
	assert_ok(doca_graph_start(graph));
	src = fx_src_buf(&g.fx, 0, SZ);
	small = fx_dst_buf(&g.fx, 0, SZ / 2);
	dst = fx_dst_buf(&g.fx, SZ, SZ);
	dst_c = fx_dst_buf(&g.fx, 2 * SZ, SZ);
	assert_ok(doca_dma_task_memcpy_alloc_init(g.fx.dma, src, small,
	                                          (union doca_data){ .u64 = 0 }, &mb));
	tb = doca_dma_task_memcpy_as_task(mb);
	tc = dma_task(&g, g.dma2, src, dst_c);
	un = (struct unode){ .g = &g, .id = 1 };
	assert_ok(doca_graph_instance_create(graph, &inst));
	assert_ok(doca_graph_instance_set_ctx_node_data(inst, b, tb));
	assert_ok(doca_graph_instance_set_ctx_node_data(inst, c, tc));
	assert_ok(doca_graph_instance_set_user_node_data(inst, u, &un));
	assert_ok(doca_graph_instance_submit(inst));
	assert_true(gx_progress_until(&g, 1));
	assert_int_equal(g.err, 1);
	assert_int_equal(un.runs, 0);
	assert_int_not_equal(doca_task_get_status(tb), DOCA_SUCCESS);
	assert_ok(doca_task_get_status(tc)); /* the independent node that ran finished */
	assert_int_equal(data_len(dst_c), SZ);
	assert_int_equal(g.fx.ok + g.fx.err, 0);
	/* the failed DMA context stops: resubmitting now, its root is refused and nothing runs */
	assert_ok(doca_ctx_get_state(g.fx.ctx, &st));
	assert_int_equal(st, DOCA_CTX_STATE_STOPPING);
	assert_ok(doca_buf_reset_data_len(dst_c));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_graph_instance_submit(inst));
	assert_int_equal(data_len(dst_c), 0); /* C never ran */
	/* the program frees the context's tasks, restarts it and gives the node a new task */
	free_task(tb);
	assert_true(fx_progress_until_idle(&g.fx, LOOPS));
	assert_ok(doca_ctx_start(g.fx.ctx));
	tb = dma_task(&g, g.fx.dma, src, dst);
	assert_ok(doca_graph_instance_set_ctx_node_data(inst, b, tb));
	assert_ok(doca_graph_instance_submit(inst));
	assert_true(gx_progress_until(&g, 2));
	assert_int_equal(g.ok, 1);
	assert_int_equal(un.runs, 1);
	assert_int_equal(data_len(dst), SZ);

	assert_ok(doca_graph_instance_destroy(inst));
	free_task(tb);
	free_task(tc);
	put_buf(src);
	put_buf(small);
	put_buf(dst);
	put_buf(dst_c);
	gx_fini(&g);
}

/*
 * A root refused after another root already runs: the submit succeeds and the instance fails
 * (error callback) once the running root finishes.
 */
static void test_root_refused_after_running(void **state)
{
	struct doca_graph_node *c1, *c2, *u;
	struct doca_buf *src, *d1, *d2;
	struct doca_graph_instance *inst;
	struct doca_task *t1, *t2;
	struct unode un;
	struct doca_graph *graph;
	struct gx g;

	(void)state;
	gx_init(&g, 4 * SZ, 4);
	graph = gx_graph(&g, 1);
	assert_ok(doca_graph_node_create_from_ctx(graph, g.fx.ctx, &c1));
	assert_ok(doca_graph_node_create_from_ctx(graph, g.ctx2, &c2));
	assert_ok(doca_graph_node_create_from_user(graph, unode_cb, &u));
	assert_ok(doca_graph_add_dependency(graph, c1, u));
	assert_ok(doca_graph_add_dependency(graph, c2, u));
	assert_ok(doca_graph_start(graph));
	src = fx_src_buf(&g.fx, 0, SZ);
	d1 = fx_dst_buf(&g.fx, 0, SZ);
	d2 = fx_dst_buf(&g.fx, SZ, SZ);
	t1 = dma_task(&g, g.fx.dma, src, d1);
	t2 = dma_task(&g, g.dma2, src, d2);
	un = (struct unode){ .g = &g, .id = 1 };
	assert_ok(doca_graph_instance_create(graph, &inst));
	assert_ok(doca_graph_instance_set_ctx_node_data(inst, c1, t1));
	assert_ok(doca_graph_instance_set_ctx_node_data(inst, c2, t2));
	assert_ok(doca_graph_instance_set_user_node_data(inst, u, &un));
	/* context 2 stops (STOPPING while t2 is allocated): t2 will be refused */
	assert_doca(DOCA_ERROR_IN_PROGRESS, doca_ctx_stop(g.ctx2));
	assert_ok(doca_graph_instance_submit(inst));
	assert_true(gx_progress_until(&g, 1));
	assert_int_equal(g.err, 1);
	assert_int_equal(un.runs, 0);
	assert_int_equal(data_len(d1), SZ); /* the root that ran finished */
	assert_ok(doca_graph_instance_destroy(inst));
	free_task(t1);
	free_task(t2);
	put_buf(src);
	put_buf(d1);
	put_buf(d2);
	gx_fini(&g);
}

/* ---- sub-graphs --------------------------------------------------------------------------- */

/*
 * Parent: U0 -> S -> U2, where S runs an instance of the sub-graph DMA -> U1. The sub-graph's
 * own callbacks are not called; a failure inside it fails the parent.
 */
static void test_sub_graph(void **state)
{
	struct doca_graph_instance *pi, *pi2, *si, *si2, *extra;
	struct doca_graph_node *sd, *su, *u0, *s, *u2, *bad;
	struct doca_graph *sub, *graph, *third, *far;
	struct doca_buf *src, *dst;
	struct doca_pe *pe2;
	struct unode un[3];
	struct doca_task *t;
	union doca_data ud;
	struct gx g;

	(void)state;
	gx_init(&g, 2 * SZ, 4);
	/* the sub-graph: its callbacks count into g too, but must not run */
	ud.ptr = &g;
	assert_ok(doca_graph_create(g.fx.pe, &sub));
	assert_ok(doca_graph_set_conf(sub, graph_ok_cb, graph_err_cb, 2));
	assert_ok(doca_graph_set_user_data(sub, ud));
	assert_ok(doca_graph_node_create_from_ctx(sub, g.fx.ctx, &sd));
	assert_ok(doca_graph_node_create_from_user(sub, unode_cb, &su));
	assert_ok(doca_graph_add_dependency(sub, sd, su));

	graph = gx_graph(&g, 2);
	assert_ok(doca_graph_node_create_from_user(graph, unode_cb, &u0));
	/* rules */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_node_create_from_graph(NULL, sub, &s));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_node_create_from_graph(graph, NULL, &s));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_node_create_from_graph(graph, sub, NULL));
	assert_doca(DOCA_ERROR_BAD_STATE,
	            doca_graph_node_create_from_graph(graph, sub, &s)); /* not started */
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_graph_node_create_from_graph(sub, sub, &s));
	assert_ok(doca_graph_start(sub));
	/* a graph of another progress engine cannot have a node of it */
	assert_ok(doca_pe_create(&pe2));
	assert_ok(doca_graph_create(pe2, &far));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_graph_node_create_from_graph(far, sub, &s));
	assert_ok(doca_graph_destroy(far));
	assert_ok(doca_pe_destroy(pe2));
	assert_ok(doca_graph_node_create_from_graph(graph, sub, &s));
	assert_ok(doca_graph_node_create_from_user(graph, unode_cb, &u2));
	assert_ok(doca_graph_add_dependency(graph, u0, s));
	assert_ok(doca_graph_add_dependency(graph, s, u2));
	/* the sub-graph cannot be destroyed while a graph has a node of it */
	assert_doca(DOCA_ERROR_BAD_STATE, doca_graph_destroy(sub));
	assert_ok(doca_graph_start(graph));
	/* nor stopped while a started graph uses it */
	assert_doca(DOCA_ERROR_IN_USE, doca_graph_stop(sub));
	/* a graph containing graph cannot become its node: third contains graph */
	assert_ok(doca_graph_create(g.fx.pe, &third));
	assert_ok(doca_graph_node_create_from_graph(third, graph, &bad));
	assert_ok(doca_graph_destroy(third));

	src = fx_src_buf(&g.fx, 0, SZ);
	dst = fx_dst_buf(&g.fx, 0, SZ);
	t = dma_task(&g, g.fx.dma, src, dst);
	un[0] = (struct unode){ .g = &g, .id = 0 };
	un[1] = (struct unode){ .g = &g, .id = 1, .src = g.fx.src, .dst = g.fx.dst, .n = SZ };
	un[2] = (struct unode){ .g = &g, .id = 2, .src = g.fx.src, .dst = g.fx.dst, .n = SZ };
	assert_ok(doca_graph_instance_create(sub, &si));
	assert_ok(doca_graph_instance_create(sub, &si2));
	assert_doca(DOCA_ERROR_NO_MEMORY, doca_graph_instance_create(sub, &extra));
	assert_ok(doca_graph_instance_set_ctx_node_data(si, sd, t));
	assert_ok(doca_graph_instance_set_user_node_data(si, su, &un[1]));
	assert_ok(doca_graph_instance_create(graph, &pi));
	assert_ok(doca_graph_instance_set_user_node_data(pi, u0, &un[0]));
	assert_ok(doca_graph_instance_set_user_node_data(pi, u2, &un[2]));
	assert_ok(doca_graph_instance_create(graph, &pi2));
	/* sub-graph node data rules */
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_graph_instance_set_sub_graph_node_data(NULL, s, si));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_graph_instance_set_sub_graph_node_data(pi, NULL, si));
	assert_doca(DOCA_ERROR_NOT_PERMITTED,
	            doca_graph_instance_set_sub_graph_node_data(pi, u0, si));
	assert_doca(DOCA_ERROR_NOT_PERMITTED,
	            doca_graph_instance_set_sub_graph_node_data(pi, s, pi));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_instance_submit(pi)); /* no sub instance */
	assert_ok(doca_graph_instance_set_sub_graph_node_data(pi, s, si2));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_graph_instance_submit(pi)); /* si2 lacks data */
	assert_ok(doca_graph_instance_set_sub_graph_node_data(pi, s, si));     /* replaces si2 */
	assert_ok(doca_graph_instance_destroy(si2));                           /* released */
	assert_ok(doca_graph_instance_set_sub_graph_node_data(pi, s, si)); /* same again: fine */
	/* one sub-graph instance is the data of one node of one instance */
	assert_doca(DOCA_ERROR_NOT_PERMITTED,
	            doca_graph_instance_set_sub_graph_node_data(pi2, s, si));
	/* the held instance is the node's */
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_graph_instance_submit(si));
	assert_doca(DOCA_ERROR_IN_USE, doca_graph_instance_destroy(si));

	assert_ok(doca_graph_instance_submit(pi));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_graph_instance_set_sub_graph_node_data(pi, s, si));
	assert_doca(DOCA_ERROR_BAD_STATE,
	            doca_graph_instance_set_sub_graph_node_data(pi2, s, si)); /* si runs */
	/* the held instance is in the run too: its data cannot change */
	assert_doca(DOCA_ERROR_BAD_STATE, doca_graph_instance_set_ctx_node_data(si, sd, t));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_graph_instance_set_user_node_data(si, su, &un[1]));
	assert_doca(DOCA_ERROR_IN_USE, doca_graph_instance_set_user_data(si, ud));
	assert_true(gx_progress_until(&g, 1));
	assert_int_equal(g.ok, 1);
	assert_ptr_equal(g.last, pi); /* only the parent's callback ran */
	assert_int_equal(g.norder, 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(g.order[i], i);

	/* a failure inside the sub-graph fails the parent; U2 does not run */
	un[1].ret = DOCA_ERROR_IO_FAILED;
	assert_ok(doca_buf_reset_data_len(dst));
	assert_ok(doca_graph_instance_submit(pi));
	assert_true(gx_progress_until(&g, 2));
	assert_int_equal(g.err, 1);
	assert_ptr_equal(g.last, pi);
	assert_int_equal(un[2].runs, 1);
	/* and it runs again */
	un[1].ret = DOCA_SUCCESS;
	assert_ok(doca_buf_reset_data_len(dst));
	assert_ok(doca_graph_instance_submit(pi));
	assert_true(gx_progress_until(&g, 3));
	assert_int_equal(g.ok, 2);
	assert_int_equal(un[2].runs, 2);

	/* teardown order: parent instance, then the sub instance is free again */
	assert_ok(doca_graph_instance_destroy(pi));
	assert_ok(doca_graph_instance_destroy(pi2));
	assert_ok(doca_graph_instance_destroy(si));
	assert_ok(doca_graph_stop(graph));
	assert_ok(doca_graph_stop(sub)); /* no started user left */
	/* a graph does not start while a sub-graph of its nodes is stopped */
	assert_doca(DOCA_ERROR_BAD_STATE, doca_graph_start(graph));
	assert_doca(DOCA_ERROR_IN_USE, doca_graph_destroy(sub));
	/* both stopped: the sub-graph still cannot contain the graph that contains it */
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_graph_node_create_from_graph(sub, graph, &bad));
	assert_ok(doca_graph_destroy(graph));
	g.graph = NULL;
	assert_ok(doca_graph_destroy(sub));
	free_task(t);
	put_buf(src);
	put_buf(dst);
	gx_fini(&g);
}

/* ---- event mode and teardown from callbacks ----------------------------------------------- */

static bool readable(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, timeout_ms) == 1;
}

/* Driven only by the notification handle: a pending root user node wakes an armed PE. */
static void test_event_mode(void **state)
{
	doca_notification_handle_t fd;
	struct diamond dm;
	struct dinst di;
	struct gx g;

	(void)state;
	gx_init(&g, 2 * SZ, 4);
	build_diamond(&g, &dm, 1);
	dinst_init(&g, &dm, &di, 0, SZ);
	assert_ok(doca_pe_get_notification_handle(g.fx.pe, &fd));
	while (doca_pe_progress(g.fx.pe))
		;
	assert_ok(doca_pe_request_notification(g.fx.pe));
	assert_ok(doca_graph_instance_submit(di.inst));
	for (int i = 0; i < 100000 && g.ok + g.err == 0; i++) {
		assert_true(readable(fd, 10000)); /* never a lost wake-up */
		assert_ok(doca_pe_clear_notification(g.fx.pe, fd));
		while (doca_pe_progress(g.fx.pe))
			;
		assert_ok(doca_pe_request_notification(g.fx.pe));
	}
	assert_int_equal(g.ok, 1);
	dinst_fini(&di);
	gx_fini(&g);
}

/* The completion callback destroys its instance, stops and destroys the graph. */
static void test_teardown_in_callback(void **state)
{
	struct diamond dm;
	struct dinst di;
	struct gx g;

	(void)state;
	gx_init(&g, 2 * SZ, 4);
	build_diamond(&g, &dm, 1);
	dinst_init(&g, &dm, &di, 0, SZ);
	g.destroy_in_cb = true;
	assert_ok(doca_graph_instance_submit(di.inst));
	assert_true(gx_progress_until(&g, 1));
	assert_null(g.graph);
	for (int i = 0; i < 100; i++)
		doca_pe_progress(g.fx.pe);
	free_task(di.tb);
	free_task(di.tc);
	put_buf(di.src);
	put_buf(di.dst_b);
	put_buf(di.dst_c);
	gx_fini(&g);
}

static void se_set_cb(struct doca_sync_event_task_notify_set *t, union doca_data tud,
                      union doca_data cud)
{
	(void)t;
	(void)tud;
	(void)cud;
}

/*
 * A context that is a node of a graph cannot be destroyed (issue #19 item 13): the graph's
 * nodes and instances point at it and at its tasks, so the next submit or start would use
 * freed memory. Refused with IN_USE while the graph is started and while it is stopped, for
 * a DMA and a sync event context; accepted once the graph is destroyed.
 */
static void test_ctx_destroy_while_node(void **state)
{
	struct doca_sync_event_task_notify_set *st;
	struct doca_graph_node *d1, *d2, *sn;
	struct doca_graph_instance *inst;
	struct doca_buf *src, *dst1, *dst2;
	struct doca_task *t1, *t2;
	struct doca_sync_event *se;
	struct doca_graph *graph;
	struct gx g;

	(void)state;
	gx_init(&g, 2 * SZ, 4);
	assert_ok(doca_sync_event_create(&se));
	assert_ok(doca_sync_event_add_publisher_location_cpu(se, g.fx.dev));
	assert_ok(doca_sync_event_add_subscriber_location_cpu(se, g.fx.dev));
	assert_ok(doca_sync_event_task_notify_set_set_conf(se, se_set_cb, se_set_cb, 1));
	assert_ok(doca_pe_connect_ctx(g.fx.pe, doca_sync_event_as_ctx(se)));
	assert_ok(doca_ctx_start(doca_sync_event_as_ctx(se)));
	graph = gx_graph(&g, 1);
	assert_ok(doca_graph_node_create_from_ctx(graph, g.fx.ctx, &d1));
	assert_ok(doca_graph_node_create_from_ctx(graph, g.ctx2, &d2));
	assert_ok(doca_graph_node_create_from_ctx(graph, doca_sync_event_as_ctx(se), &sn));
	assert_ok(doca_graph_add_dependency(graph, d1, d2));
	assert_ok(doca_graph_add_dependency(graph, d2, sn));
	assert_ok(doca_graph_start(graph));
	fx_pattern(g.fx.src, SZ, 7);
	src = fx_src_buf(&g.fx, 0, SZ);
	dst1 = fx_dst_buf(&g.fx, 0, SZ);
	dst2 = fx_dst_buf(&g.fx, SZ, SZ);
	t1 = dma_task(&g, g.fx.dma, src, dst1);
	t2 = dma_task(&g, g.dma2, src, dst2);
	assert_ok(doca_sync_event_task_notify_set_alloc_init(se, 5, (union doca_data){ .u64 = 0 },
	                                                     &st));
	assert_ok(doca_graph_instance_create(graph, &inst));
	assert_ok(doca_graph_instance_set_ctx_node_data(inst, d1, t1));
	assert_ok(doca_graph_instance_set_ctx_node_data(inst, d2, t2));
	assert_ok(doca_graph_instance_set_ctx_node_data(
	        inst, sn, doca_sync_event_task_notify_set_as_doca_task(st)));
	assert_ok(doca_graph_instance_submit(inst));
	assert_true(gx_progress_until(&g, 1));
	assert_int_equal(g.ok, 1);

	/* the second DMA context and the event stop (their tasks freed) and are IDLE ... */
	free_task(t2);
	doca_task_free(doca_sync_event_task_notify_set_as_doca_task(st));
	(void)doca_ctx_stop(g.ctx2);
	assert_true(ctx_idle(&g, g.ctx2));
	(void)doca_ctx_stop(doca_sync_event_as_ctx(se));
	assert_true(ctx_idle(&g, doca_sync_event_as_ctx(se)));
	/* ... but the started graph still names them: no destroy */
	assert_doca(DOCA_ERROR_IN_USE, doca_dma_destroy(g.dma2));
	assert_doca(DOCA_ERROR_IN_USE, doca_sync_event_destroy(se));
	/* a stopped graph still names them too (its start would read them) */
	assert_ok(doca_graph_instance_destroy(inst));
	assert_ok(doca_graph_stop(graph));
	assert_doca(DOCA_ERROR_IN_USE, doca_dma_destroy(g.dma2));
	assert_doca(DOCA_ERROR_IN_USE, doca_sync_event_destroy(se));
	/* once the graph is gone, they go */
	assert_ok(doca_graph_destroy(graph));
	g.graph = NULL;
	assert_ok(doca_sync_event_destroy(se));
	free_task(t1);
	put_buf(src);
	put_buf(dst1);
	put_buf(dst2);
	gx_fini(&g); /* destroys the second DMA context */
}

/* The same rule for an mmap-advise context (every type goes through one destroy path). */
static void test_advise_destroy_while_node(void **state)
{
	struct doca_dev *dpu = tu_open_pci_or_null("03:00.0");
	struct doca_mmap_advise *ma = NULL;
	struct doca_graph_node *n;
	struct doca_graph *graph;
	struct doca_pe *pe;

	(void)state;
	if (dpu == NULL || doca_mmap_advise_create(dpu, &ma) != DOCA_SUCCESS) {
		if (dpu != NULL)
			assert_ok(doca_dev_close(dpu));
		skip(); /* no device of this system profile invalidates caches */
	}
	assert_ok(doca_pe_create(&pe));
	assert_ok(doca_graph_create(pe, &graph));
	assert_ok(doca_graph_node_create_from_ctx(graph, doca_mmap_advise_as_ctx(ma), &n));
	assert_doca(DOCA_ERROR_IN_USE, doca_mmap_advise_destroy(ma));
	assert_ok(doca_graph_destroy(graph));
	assert_ok(doca_mmap_advise_destroy(ma));
	assert_ok(doca_pe_destroy(pe));
	assert_ok(doca_dev_close(dpu));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_destroy),
		cmocka_unit_test(test_conf_and_start_rules),
		cmocka_unit_test(test_node_rules),
		cmocka_unit_test(test_ctx_destroy_while_node),
		cmocka_unit_test(test_advise_destroy_while_node),
		cmocka_unit_test(test_start_ctx_other_pe),
		cmocka_unit_test(test_instance_rules),
		cmocka_unit_test(test_two_dma_then_user),
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_free_node_task_in_flight),
		cmocka_unit_test(test_node_task_freed_and_ctx_restarted),
		cmocka_unit_test(test_diamond_and_branch),
		cmocka_unit_test(test_many_instances),
		cmocka_unit_test(test_many_instances_large),
		cmocka_unit_test(test_resubmit_from_callback),
		cmocka_unit_test(test_user_node_failure),
		cmocka_unit_test(test_ctx_node_failure),
		cmocka_unit_test(test_root_refused_after_running),
		cmocka_unit_test(test_sub_graph),
		cmocka_unit_test(test_event_mode),
		cmocka_unit_test(test_teardown_in_callback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
