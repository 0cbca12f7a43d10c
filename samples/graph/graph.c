/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * graph: a DOCA task graph that runs, per instance,
 *
 *        prepare (user)            empties the two destinations
 *         /          \
 *    copy A (DMA 1)  copy B (DMA 2) the two copies run at the same time
 *         \          /
 *         verify (user)            checks both destinations against their sources
 *
 * NB_INSTANCES instances are submitted at once; each completion callback submits its
 * instance again until it has run NB_ROUNDS times (the same tasks every round: "prepare"
 * makes the destinations reusable). Everything runs from doca_pe_progress.
 */

#include <doca_graph.h>
#include <doca_log.h>

#include "sample_common.h"

DOCA_LOG_REGISTER(GRAPH);

#define NB_INSTANCES 8
#define NB_ROUNDS 4
#define BUF_SIZE 8192

/* One instance: its buffer pairs (A = pair i, B = pair NB_INSTANCES + i) and tasks. */
struct pipeline {
	struct copy_bench *bench;
	uint32_t pair_a, pair_b;
	struct doca_graph_instance *inst;
	struct doca_dma_task_memcpy *copy_a, *copy_b;
	uint32_t rounds;
};

struct graph_state {
	struct pipeline pipe[NB_INSTANCES];
	uint32_t finished; /* instances that ran all their rounds (or failed) */
	uint32_t failed;
};

static doca_error_t prepare_cb(void *cookie)
{
	struct pipeline *p = cookie;
	doca_error_t err = bench_reset_dst(p->bench, p->pair_a);

	return err == DOCA_SUCCESS ? bench_reset_dst(p->bench, p->pair_b) : err;
}

static doca_error_t verify_cb(void *cookie)
{
	struct pipeline *p = cookie;

	if (!bench_pair_ok(p->bench, p->pair_a) || !bench_pair_ok(p->bench, p->pair_b)) {
		DOCA_LOG_ERR("Instance %u: a destination differs from its source", p->pair_a);
		return DOCA_ERROR_UNEXPECTED;
	}
	return DOCA_SUCCESS;
}

static void instance_done(struct doca_graph_instance *inst, union doca_data inst_user,
                          union doca_data graph_user)
{
	struct pipeline *p = inst_user.ptr;
	struct graph_state *st = graph_user.ptr;

	if (++p->rounds < NB_ROUNDS && doca_graph_instance_submit(inst) == DOCA_SUCCESS)
		return; /* the next round */
	if (p->rounds < NB_ROUNDS)
		st->failed++;
	st->finished++;
}

static void instance_failed(struct doca_graph_instance *inst, union doca_data inst_user,
                            union doca_data graph_user)
{
	struct pipeline *p = inst_user.ptr;
	struct graph_state *st = graph_user.ptr;

	(void)inst;
	DOCA_LOG_ERR("Instance %u failed in round %u", p->pair_a, p->rounds + 1);
	st->failed++;
	st->finished++;
}

struct graph_nodes {
	struct doca_graph_node *prepare, *copy_a, *copy_b, *verify;
};

static doca_error_t build_graph(struct copy_bench *b, struct doca_dma *dma_a,
                                struct doca_dma *dma_b, struct graph_state *st,
                                struct doca_graph **graph, struct graph_nodes *n)
{
	union doca_data user = { .ptr = st };
	doca_error_t err;

	err = doca_graph_create(b->pe, graph);
	if (err != DOCA_SUCCESS)
		return err;
	if ((err = doca_graph_node_create_from_user(*graph, prepare_cb, &n->prepare)) !=
	            DOCA_SUCCESS ||
	    (err = doca_graph_node_create_from_ctx(*graph, doca_dma_as_ctx(dma_a), &n->copy_a)) !=
	            DOCA_SUCCESS ||
	    (err = doca_graph_node_create_from_ctx(*graph, doca_dma_as_ctx(dma_b), &n->copy_b)) !=
	            DOCA_SUCCESS ||
	    (err = doca_graph_node_create_from_user(*graph, verify_cb, &n->verify)) !=
	            DOCA_SUCCESS ||
	    (err = doca_graph_add_dependency(*graph, n->prepare, n->copy_a)) != DOCA_SUCCESS ||
	    (err = doca_graph_add_dependency(*graph, n->prepare, n->copy_b)) != DOCA_SUCCESS ||
	    (err = doca_graph_add_dependency(*graph, n->copy_a, n->verify)) != DOCA_SUCCESS ||
	    (err = doca_graph_add_dependency(*graph, n->copy_b, n->verify)) != DOCA_SUCCESS ||
	    (err = doca_graph_set_conf(*graph, instance_done, instance_failed, NB_INSTANCES)) !=
	            DOCA_SUCCESS ||
	    (err = doca_graph_set_user_data(*graph, user)) != DOCA_SUCCESS ||
	    (err = doca_graph_start(*graph)) != DOCA_SUCCESS)
		DOCA_LOG_ERR("Building the graph failed: %s", doca_error_get_descr(err));
	return err;
}

static doca_error_t make_instance(struct copy_bench *b, struct doca_graph *graph,
                                  const struct graph_nodes *n, struct doca_dma *dma_a,
                                  struct doca_dma *dma_b, struct pipeline *p, uint32_t i)
{
	union doca_data none = { .u64 = 0 }, user = { .ptr = p };
	doca_error_t err;

	p->bench = b;
	p->pair_a = i;
	p->pair_b = NB_INSTANCES + i;
	if ((err = doca_graph_instance_create(graph, &p->inst)) != DOCA_SUCCESS ||
	    (err = doca_dma_task_memcpy_alloc_init(dma_a, b->src[p->pair_a], b->dst[p->pair_a],
	                                           none, &p->copy_a)) != DOCA_SUCCESS ||
	    (err = doca_dma_task_memcpy_alloc_init(dma_b, b->src[p->pair_b], b->dst[p->pair_b],
	                                           none, &p->copy_b)) != DOCA_SUCCESS ||
	    (err = doca_graph_instance_set_ctx_node_data(
	             p->inst, n->copy_a, doca_dma_task_memcpy_as_task(p->copy_a))) !=
	            DOCA_SUCCESS ||
	    (err = doca_graph_instance_set_ctx_node_data(
	             p->inst, n->copy_b, doca_dma_task_memcpy_as_task(p->copy_b))) !=
	            DOCA_SUCCESS ||
	    (err = doca_graph_instance_set_user_node_data(p->inst, n->prepare, p)) !=
	            DOCA_SUCCESS ||
	    (err = doca_graph_instance_set_user_node_data(p->inst, n->verify, p)) != DOCA_SUCCESS ||
	    (err = doca_graph_instance_set_user_data(p->inst, user)) != DOCA_SUCCESS)
		DOCA_LOG_ERR("Instance %u: %s", i, doca_error_get_descr(err));
	return err;
}

static void destroy_instances(struct graph_state *st)
{
	for (uint32_t i = 0; i < NB_INSTANCES; i++) {
		struct pipeline *p = &st->pipe[i];

		if (p->inst != NULL)
			doca_graph_instance_destroy(p->inst);
		if (p->copy_a != NULL)
			doca_task_free(doca_dma_task_memcpy_as_task(p->copy_a));
		if (p->copy_b != NULL)
			doca_task_free(doca_dma_task_memcpy_as_task(p->copy_b));
	}
}

static uint32_t unexpected_callbacks;

static void unused_cb(struct doca_dma_task_memcpy *task, union doca_data task_user,
                      union doca_data ctx_user)
{
	/* A task run by a graph reports to the graph, never here. */
	(void)task;
	(void)task_user;
	(void)ctx_user;
	DOCA_LOG_ERR("A DMA task callback ran for a task of the graph");
	unexpected_callbacks++;
}

static doca_error_t run(struct copy_bench *b)
{
	struct graph_state st = { 0 };
	struct doca_dma *dma_a = NULL, *dma_b = NULL;
	struct doca_graph *graph = NULL;
	struct graph_nodes nodes;
	uint32_t idle = 0, submitted = 0, i;
	doca_error_t err;

	err = bench_dma_start(b, NB_INSTANCES, unused_cb, unused_cb, NULL, NULL, &dma_a);
	if (err == DOCA_SUCCESS)
		err = bench_dma_start(b, NB_INSTANCES, unused_cb, unused_cb, NULL, NULL, &dma_b);
	if (err == DOCA_SUCCESS)
		err = build_graph(b, dma_a, dma_b, &st, &graph, &nodes);
	for (i = 0; err == DOCA_SUCCESS && i < NB_INSTANCES; i++)
		err = make_instance(b, graph, &nodes, dma_a, dma_b, &st.pipe[i], i);
	for (; err == DOCA_SUCCESS && submitted < NB_INSTANCES; submitted++)
		err = doca_graph_instance_submit(st.pipe[submitted].inst);
	if (err == DOCA_SUCCESS)
		DOCA_LOG_INFO("Submitted %d graph instances, %d rounds each", NB_INSTANCES,
		              NB_ROUNDS);
	else if (submitted > 0)
		submitted--; /* the one whose submit failed */
	/* If a submit failed, the instances already submitted still finish. */
	while (st.finished < submitted && bench_progress_once(b->pe, &idle))
		;
	if (err == DOCA_SUCCESS && st.finished < NB_INSTANCES)
		err = DOCA_ERROR_TIME_OUT;
	if (err == DOCA_SUCCESS && (st.failed != 0 || unexpected_callbacks != 0))
		err = DOCA_ERROR_IO_FAILED;
	destroy_instances(&st);
	if (graph != NULL) {
		doca_graph_stop(graph);
		doca_graph_destroy(graph);
	}
	if (dma_b != NULL)
		bench_dma_destroy(b, dma_b);
	if (dma_a != NULL)
		bench_dma_destroy(b, dma_a);
	DOCA_LOG_INFO("%u instances x %u rounds: %s", NB_INSTANCES, NB_ROUNDS,
	              err == DOCA_SUCCESS ? "every copy verified" : doca_error_get_descr(err));
	return err;
}

int main(int argc, char **argv)
{
	return sample_bench_main("graph", argc, argv, 2 * NB_INSTANCES, BUF_SIZE, run);
}
