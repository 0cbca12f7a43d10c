/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* DOCA Graph: building a graph (nodes, dependencies), configuring, starting and stopping it. */
#include <stdlib.h>

#include "core/graph/graph.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(ODMA_GRAPH)

static const char *const graph_kind_names[] = { "context", "user", "sub-graph" };

doca_error_t doca_graph_create(struct doca_pe *pe, struct doca_graph **graph)
{
	struct doca_graph *g;

	ODMA_CHECK_ARG(pe != NULL && graph != NULL,
	               "doca_graph_create: pe and graph must not be NULL");
	g = calloc(1, sizeof(*g));
	if (g == NULL)
		return DOCA_ERROR_NO_MEMORY;
	g->pe = pe;
	g->poller.poll = odma_graph_poll;
	g->poller.name = "graph";
	odma_pe_poller_add(pe, &g->poller);
	ODMA_DBG("graph %p created on progress engine %p", (void *)g, (void *)pe);
	*graph = g;
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_destroy(struct doca_graph *graph)
{
	ODMA_CHECK_ARG(graph != NULL, "doca_graph_destroy: graph must not be NULL");
	if (graph->started) {
		ODMA_ERR("graph %p is started; destroy its instances, "
		         "call doca_graph_stop, then destroy it",
		         (void *)graph);
		return DOCA_ERROR_BAD_STATE;
	}
	if (graph->sub_refs != 0) {
		ODMA_ERR("graph %p is the sub-graph of %u nodes of other graphs; "
		         "destroy those graphs first",
		         (void *)graph, graph->sub_refs);
		return DOCA_ERROR_IN_USE;
	}
	odma_pe_poller_remove(graph->pe, &graph->poller);
	for (uint32_t i = 0; i < graph->num_nodes; i++) {
		struct doca_graph_node *n = graph->nodes[i];

		if (n->kind == ODMA_GRAPH_NODE_SUB)
			n->sub->sub_refs--;
		if (n->kind == ODMA_GRAPH_NODE_CTX)
			__atomic_sub_fetch(&n->ctx->graph_nodes, 1, __ATOMIC_RELEASE);
		free(n->succ);
		free(n);
	}
	free(graph->nodes);
	graph->nodes = NULL;
	graph->num_nodes = 0;
	ODMA_DBG("graph %p destroyed", (void *)graph);
	if (graph->in_poll)
		graph->doomed = true; /* a callback of its own poll: the poll frees it */
	else
		free(graph);
	return DOCA_SUCCESS;
}

static doca_error_t graph_check_stopped(const struct doca_graph *graph, const char *func)
{
	if (!graph->started)
		return DOCA_SUCCESS;
	ODMA_ERR("%s: graph %p is started; change it only while it is stopped (doca_graph_stop)",
	         func, (void *)graph);
	return DOCA_ERROR_BAD_STATE;
}

doca_error_t doca_graph_set_conf(struct doca_graph *graph,
                                 doca_graph_completion_cb_t graph_completion_cb,
                                 doca_graph_completion_cb_t graph_error_cb, uint32_t num_instances)
{
	doca_error_t r;

	ODMA_CHECK_ARG(graph != NULL && graph_completion_cb != NULL && graph_error_cb != NULL,
	               "doca_graph_set_conf: graph and both callbacks must not be NULL");
	ODMA_CHECK_ARG(num_instances > 0, "doca_graph_set_conf: num_instances must be at least 1");
	r = graph_check_stopped(graph, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	graph->ok_cb = graph_completion_cb;
	graph->err_cb = graph_error_cb;
	graph->max_instances = num_instances;
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_set_user_data(struct doca_graph *graph, union doca_data user_data)
{
	doca_error_t r;

	ODMA_CHECK_ARG(graph != NULL, "doca_graph_set_user_data: graph must not be NULL");
	r = graph_check_stopped(graph, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	graph->user_data = user_data;
	return DOCA_SUCCESS;
}

ODMA_GETTER(doca_graph_get_user_data, const struct doca_graph, graph, union doca_data, user_data,
            graph->user_data)

/* Appends a new node of @kind; NULL when out of memory. */
static struct doca_graph_node *graph_node_new(struct doca_graph *graph,
                                              enum odma_graph_node_kind kind)
{
	struct doca_graph_node *n;

	if (graph->num_nodes == graph->cap_nodes) {
		uint32_t cap = graph->cap_nodes ? graph->cap_nodes * 2 : 8;
		struct doca_graph_node **nodes = realloc(graph->nodes, cap * sizeof(*nodes));

		if (nodes == NULL)
			return NULL;
		graph->nodes = nodes;
		graph->cap_nodes = cap;
	}
	n = calloc(1, sizeof(*n));
	if (n == NULL)
		return NULL;
	n->graph = graph;
	n->kind = (uint8_t)kind;
	n->index = graph->num_nodes;
	graph->nodes[graph->num_nodes++] = n;
	return n;
}

doca_error_t doca_graph_node_create_from_ctx(struct doca_graph *graph, const struct doca_ctx *ctx,
                                             struct doca_graph_node **node)
{
	struct doca_graph_node *n;
	doca_error_t r;

	ODMA_CHECK_ARG(graph != NULL && ctx != NULL && node != NULL,
	               "doca_graph_node_create_from_ctx: graph, ctx and node must not be NULL");
	r = graph_check_stopped(graph, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	if (ctx->pe != NULL && ctx->pe != graph->pe) {
		ODMA_ERR("%s context %p is connected to progress engine %p, graph %p runs on %p; a "
		         "graph's contexts share its PE",
		         ctx->ops->name, (const void *)ctx, (void *)ctx->pe, (void *)graph,
		         (void *)graph->pe);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	n = graph_node_new(graph, ODMA_GRAPH_NODE_CTX);
	if (n == NULL)
		return DOCA_ERROR_NO_MEMORY;
	n->ctx = (struct doca_ctx *)(uintptr_t)ctx;
	/* the context cannot be destroyed while this node exists (doca_priv_ctx_destroy) */
	__atomic_add_fetch(&n->ctx->graph_nodes, 1, __ATOMIC_RELEASE);
	*node = n;
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_node_create_from_user(struct doca_graph *graph,
                                              doca_graph_user_node_cb_t cb,
                                              struct doca_graph_node **node)
{
	struct doca_graph_node *n;
	doca_error_t r;

	ODMA_CHECK_ARG(graph != NULL && cb != NULL && node != NULL,
	               "doca_graph_node_create_from_user: graph, cb and node must not be NULL");
	r = graph_check_stopped(graph, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	n = graph_node_new(graph, ODMA_GRAPH_NODE_USER);
	if (n == NULL)
		return DOCA_ERROR_NO_MEMORY;
	n->cb = cb;
	*node = n;
	return DOCA_SUCCESS;
}

/* Whether @target is @g or a sub-graph of it, at any depth. */
static bool graph_contains(const struct doca_graph *g, const struct doca_graph *target)
{
	if (g == target)
		return true;
	for (uint32_t i = 0; i < g->num_nodes; i++)
		if (g->nodes[i]->kind == ODMA_GRAPH_NODE_SUB &&
		    graph_contains(g->nodes[i]->sub, target))
			return true;
	return false;
}

doca_error_t doca_graph_node_create_from_graph(struct doca_graph *graph,
                                               struct doca_graph *sub_graph,
                                               struct doca_graph_node **node)
{
	struct doca_graph_node *n;
	doca_error_t r;

	ODMA_CHECK_ARG(
	        graph != NULL && sub_graph != NULL && node != NULL,
	        "doca_graph_node_create_from_graph: graph, sub_graph and node must not be NULL");
	r = graph_check_stopped(graph, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	if (graph_contains(sub_graph, graph)) {
		ODMA_ERR(
		        "graph %p: graph %p is it or contains it; a graph cannot run inside itself",
		        (void *)graph, (void *)sub_graph);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (sub_graph->pe != graph->pe) {
		ODMA_ERR("graph %p runs on progress engine %p, sub-graph %p on %p; "
		         "they must share a PE",
		         (void *)graph, (void *)graph->pe, (void *)sub_graph,
		         (void *)sub_graph->pe);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (!sub_graph->started) {
		ODMA_ERR("graph %p: sub-graph %p is not started; "
		         "start it before making a node of it",
		         (void *)graph, (void *)sub_graph);
		return DOCA_ERROR_BAD_STATE;
	}
	n = graph_node_new(graph, ODMA_GRAPH_NODE_SUB);
	if (n == NULL)
		return DOCA_ERROR_NO_MEMORY;
	n->sub = sub_graph;
	sub_graph->sub_refs++;
	*node = n;
	return DOCA_SUCCESS;
}

/* Whether @to is reachable from @from along dependencies (iterative depth-first search). */
static doca_error_t graph_reaches(const struct doca_graph *g, uint32_t from, uint32_t to,
                                  bool *found)
{
	uint32_t *stack = malloc(g->num_nodes * sizeof(*stack));
	uint8_t *seen = calloc(g->num_nodes, 1);
	uint32_t top = 0;

	if (stack == NULL || seen == NULL) {
		free(stack);
		free(seen);
		return DOCA_ERROR_NO_MEMORY;
	}
	*found = false;
	stack[top++] = from;
	seen[from] = 1;
	while (top > 0 && !*found) {
		const struct doca_graph_node *n = g->nodes[stack[--top]];

		for (uint32_t i = 0; i < n->num_succ; i++) {
			uint32_t s = n->succ[i];

			if (s == to)
				*found = true;
			if (!seen[s]) {
				seen[s] = 1;
				stack[top++] = s;
			}
		}
	}
	free(stack);
	free(seen);
	return DOCA_SUCCESS;
}

static bool graph_has_edge(const struct doca_graph_node *from, const struct doca_graph_node *to)
{
	for (uint32_t i = 0; i < from->num_succ; i++)
		if (from->succ[i] == to->index)
			return true;
	return false;
}

doca_error_t doca_graph_add_dependency(struct doca_graph *graph, struct doca_graph_node *from,
                                       struct doca_graph_node *to)
{
	doca_error_t r;
	bool cycle;

	ODMA_CHECK_ARG(graph != NULL && from != NULL && to != NULL,
	               "doca_graph_add_dependency: graph, from and to must not be NULL");
	r = graph_check_stopped(graph, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	if (from->graph != graph || to->graph != graph) {
		ODMA_ERR("doca_graph_add_dependency: node %p belongs to graph %p, not %p",
		         (void *)(from->graph != graph ? from : to),
		         (void *)(from->graph != graph ? from->graph : to->graph), (void *)graph);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (from == to) {
		ODMA_ERR("graph %p: node %u cannot depend on itself", (void *)graph, from->index);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (graph_has_edge(from, to))
		return DOCA_SUCCESS;
	r = graph_reaches(graph, to->index, from->index, &cycle);
	if (r != DOCA_SUCCESS)
		return r;
	if (cycle) {
		ODMA_ERR("graph %p: node %u already runs after node %u; "
		         "this dependency would make a cycle",
		         (void *)graph, from->index, to->index);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (from->num_succ == from->cap_succ) {
		uint32_t cap = from->cap_succ ? from->cap_succ * 2 : 4;
		uint32_t *succ = realloc(from->succ, cap * sizeof(*succ));

		if (succ == NULL)
			return DOCA_ERROR_NO_MEMORY;
		from->succ = succ;
		from->cap_succ = cap;
	}
	from->succ[from->num_succ++] = to->index;
	to->num_deps++;
	return DOCA_SUCCESS;
}

/*
 * Kahn's algorithm: whether every node can be ordered after its dependencies. The public
 * API refuses cycles when they are added; this keeps start honest whatever built the graph.
 */
static doca_error_t graph_check_acyclic(const struct doca_graph *g)
{
	uint32_t *left = malloc(g->num_nodes * sizeof(*left));
	uint32_t *queue = malloc(g->num_nodes * sizeof(*queue));
	uint32_t head = 0, tail = 0;

	if (left == NULL || queue == NULL) {
		free(left);
		free(queue);
		return DOCA_ERROR_NO_MEMORY;
	}
	for (uint32_t i = 0; i < g->num_nodes; i++) {
		left[i] = g->nodes[i]->num_deps;
		if (left[i] == 0)
			queue[tail++] = i;
	}
	while (head < tail) {
		const struct doca_graph_node *n = g->nodes[queue[head++]];

		for (uint32_t i = 0; i < n->num_succ; i++)
			if (--left[n->succ[i]] == 0)
				queue[tail++] = n->succ[i];
	}
	free(left);
	free(queue);
	if (tail == g->num_nodes)
		return DOCA_SUCCESS;
	ODMA_ERR("graph %p: %u of its %u nodes depend on each other in a cycle; "
	         "a graph must be acyclic",
	         (void *)g, g->num_nodes - tail, g->num_nodes);
	return DOCA_ERROR_NOT_PERMITTED;
}

/* Checks one node for start; counts context nodes (a sub-graph has at least one). */
static doca_error_t graph_check_node(const struct doca_graph *g, const struct doca_graph_node *n,
                                     uint32_t *num_ctx)
{
	if (n->kind == ODMA_GRAPH_NODE_CTX) {
		const struct doca_ctx *ctx = n->ctx;

		(*num_ctx)++;
		if (ctx->pe != g->pe) {
			ODMA_ERR("graph %p: the %s context %p of node %u is not connected to the "
			         "graph's progress engine %p",
			         (const void *)g, ctx->ops->name, (const void *)ctx, n->index,
			         (void *)g->pe);
			return DOCA_ERROR_BAD_STATE;
		}
		if (ctx->state != DOCA_CTX_STATE_RUNNING) {
			ODMA_ERR("graph %p: the %s context %p of node %u is not RUNNING; start the "
			         "contexts before the graph",
			         (const void *)g, ctx->ops->name, (const void *)ctx, n->index);
			return DOCA_ERROR_BAD_STATE;
		}
	} else if (n->kind == ODMA_GRAPH_NODE_SUB) {
		(*num_ctx)++;
		if (!n->sub->started) {
			ODMA_ERR("graph %p: sub-graph %p of node %u is not started; start it first",
			         (const void *)g, (void *)n->sub, n->index);
			return DOCA_ERROR_BAD_STATE;
		}
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_start(struct doca_graph *graph)
{
	uint32_t num_ctx = 0;
	doca_error_t r;

	ODMA_CHECK_ARG(graph != NULL, "doca_graph_start: graph must not be NULL");
	if (graph->started) {
		ODMA_ERR("graph %p is already started", (void *)graph);
		return DOCA_ERROR_BAD_STATE;
	}
	if (graph->max_instances == 0) {
		ODMA_ERR("graph %p: call doca_graph_set_conf before doca_graph_start",
		         (void *)graph);
		return DOCA_ERROR_BAD_STATE;
	}
	for (uint32_t i = 0; i < graph->num_nodes; i++) {
		r = graph_check_node(graph, graph->nodes[i], &num_ctx);
		if (r != DOCA_SUCCESS)
			return r;
	}
	if (num_ctx == 0) {
		ODMA_ERR("graph %p has no context node (%u nodes); a graph needs at least one",
		         (void *)graph, graph->num_nodes);
		return DOCA_ERROR_BAD_STATE;
	}
	r = graph_check_acyclic(graph);
	if (r != DOCA_SUCCESS)
		return r;
	for (uint32_t i = 0; i < graph->num_nodes; i++)
		if (graph->nodes[i]->kind == ODMA_GRAPH_NODE_SUB)
			graph->nodes[i]->sub->started_users++;
	graph->started = true;
	ODMA_DBG("graph %p started: %u nodes", (void *)graph, graph->num_nodes);
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_stop(struct doca_graph *graph)
{
	ODMA_CHECK_ARG(graph != NULL, "doca_graph_stop: graph must not be NULL");
	if (!graph->started)
		return DOCA_SUCCESS;
	if (graph->num_instances != 0) {
		ODMA_ERR("graph %p still has %u instances; destroy them before stopping the graph",
		         (void *)graph, graph->num_instances);
		return DOCA_ERROR_IN_USE;
	}
	if (graph->started_users != 0) {
		ODMA_ERR("graph %p is a sub-graph of %u started graphs; stop them first",
		         (void *)graph, graph->started_users);
		return DOCA_ERROR_IN_USE;
	}
	for (uint32_t i = 0; i < graph->num_nodes; i++)
		if (graph->nodes[i]->kind == ODMA_GRAPH_NODE_SUB)
			graph->nodes[i]->sub->started_users--;
	graph->started = false;
	ODMA_DBG("graph %p stopped", (void *)graph);
	return DOCA_SUCCESS;
}

const char *odma_graph_kind_name(const struct doca_graph_node *node)
{
	return graph_kind_names[node->kind];
}
