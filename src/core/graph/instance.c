/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * DOCA Graph instances: node data, submission and execution.
 *
 * A run: submit resets every node's count of dependencies left, submits the root context
 * tasks (with the completion hook pointing at the node's slot) and the root sub-graph
 * instances, and queues the root user nodes for the graph's poller. When a node completes,
 * each node that depended on it and has no dependency left becomes ready: a context or
 * sub-graph node is submitted at once, a user node runs at once (we are inside
 * doca_pe_progress then). A context without room (AGAIN) parks the node on the waiting
 * list, retried by the poller. The first failure stops all starting; when nothing of the
 * instance is running any more it finishes: the graph's callback runs, or, for an instance
 * inside a sub-graph node, the parent's node completes.
 *
 * Re-entrancy: the last thing a finish does is call the program (or complete the parent's
 * node, which may finish the parent): nothing touches the instance or its graph after that,
 * because the callback may resubmit or destroy them.
 */
#include <stdlib.h>

#include "core/graph/graph.h"
#include "core/log/log.h"
#include "util/queue.h"

ODMA_LOG_REGISTER(ODMA_GRAPH_INSTANCE)

static void slots_push(struct odma_graph_slot_list *l, struct odma_graph_slot *s)
{
	ODMA_QUEUE_PUSH(l->head, l->tail, s, next);
}

static struct odma_graph_slot *slots_pop(struct odma_graph_slot_list *l)
{
	struct odma_graph_slot *s = NULL;

	if (l->head != NULL)
		ODMA_QUEUE_POP(l->head, l->tail, s, next);
	return s;
}

static const struct doca_graph_node *slot_node(const struct odma_graph_slot *s)
{
	return s->inst->graph->nodes[s->node];
}

/* Puts the instance on its graph's pending list and wakes the poller. */
static void inst_set_pending(struct doca_graph_instance *inst)
{
	struct doca_graph *g = inst->graph;

	if (!inst->pending) {
		inst->pending = true;
		ODMA_QUEUE_PUSH(g->pending_head, g->pending_tail, inst, pending_next);
	}
	odma_pe_poller_wake(g->pe, &g->poller);
}

static void inst_clear_pending(struct doca_graph_instance *inst)
{
	struct doca_graph *g = inst->graph;
	struct doca_graph_instance *prev = NULL;

	if (!inst->pending)
		return;
	for (struct doca_graph_instance *i = g->pending_head; i != NULL;
	     prev = i, i = i->pending_next) {
		if (i != inst)
			continue;
		if (prev != NULL)
			prev->pending_next = i->pending_next;
		else
			g->pending_head = i->pending_next;
		if (g->pending_tail == i)
			g->pending_tail = prev;
		break;
	}
	inst->pending = false;
}

static void inst_fail(struct doca_graph_instance *inst, const struct odma_graph_slot *slot,
                      doca_error_t status)
{
	if (!inst->failed) {
		inst->failed = true;
		inst->status = status;
		ODMA_RATELIMITED_WARN("graph instance %p: %s node %u failed (%s); nodes that "
		                      "depend on it will not run",
		                      (void *)inst, odma_graph_kind_name(slot_node(slot)),
		                      slot->node, doca_error_get_name(status));
	}
	/* No further node starts; what is running finishes. */
	inst->ready.head = inst->ready.tail = NULL;
	inst->waiting.head = inst->waiting.tail = NULL;
}

/* A node completed successfully: the nodes waiting only for it become ready. */
static void slot_succeeded(struct doca_graph_instance *inst, const struct odma_graph_slot *slot)
{
	const struct doca_graph_node *n = slot_node(slot);

	if (inst->failed)
		return;
	for (uint32_t i = 0; i < n->num_succ; i++) {
		struct odma_graph_slot *s = &inst->slots[n->succ[i]];

		if (--s->deps_left == 0)
			slots_push(&inst->ready, s);
	}
}

static doca_error_t inst_launch(struct doca_graph_instance *inst);
static bool inst_advance(struct doca_graph_instance *inst);

/*
 * Whether the task of context node @slot is still an allocated task of the node's context.
 * doca_graph.h says a node's task is not freed while the instance uses it; one that was, and
 * whose context then restarted with another task count, lies in a freed pool, so it is checked
 * before anything reads it. One line under @fn when it is gone.
 */
static bool slot_task_live(const struct odma_graph_slot *slot, const char *fn)
{
	const struct doca_ctx *ctx = slot_node(slot)->ctx;

	if (doca_likely(odma_ctx_task_live(ctx, slot->data.task)))
		return true;
	ODMA_ERR_AT(fn,
	            "graph instance %p: task %p of context node %u is not a task of context %p "
	            "any more (it was freed while it was the node's data); fix: give the node a "
	            "task you hold with doca_graph_instance_set_ctx_node_data",
	            (void *)slot->inst, (void *)slot->data.task, slot->node, (const void *)ctx);
	return false;
}

/* The completion hook of a context node's task (PE thread, inside doca_pe_progress). */
static void graph_task_done(struct doca_task *task, bool success)
{
	struct odma_graph_slot *slot = task->hook_arg;
	struct doca_graph_instance *inst = slot->inst;
	doca_error_t st = task->status;

	task->hook = NULL; /* the task is the program's again: its own callbacks apply */
	task->hook_arg = NULL;
	inst->running--;
	if (success)
		slot_succeeded(inst, slot);
	else
		inst_fail(inst, slot, st != DOCA_SUCCESS ? st : DOCA_ERROR_UNKNOWN);
	inst_advance(inst);
}

/*
 * Submits a context or sub-graph node: DOCA_SUCCESS when it runs; DOCA_ERROR_AGAIN when its
 * context is full and it waits (retried from progress); otherwise the refusal, and the node
 * stays as it was.
 */
static doca_error_t slot_launch(struct odma_graph_slot *slot)
{
	struct doca_graph_instance *inst = slot->inst;
	void (*prev_hook)(struct doca_task * task, bool success);
	struct doca_task *task;
	void *prev_arg;
	doca_error_t r;

	if (slot_node(slot)->kind == ODMA_GRAPH_NODE_SUB) {
		r = inst_launch(slot->data.sub);
		if (r == DOCA_SUCCESS)
			inst->running++;
		return r;
	}
	if (!slot_task_live(slot, "doca_pe_progress"))
		return DOCA_ERROR_INVALID_VALUE; /* reached in a run, after the submit's check */
	task = slot->data.task;
	prev_hook = task->hook;
	prev_arg = task->hook_arg;
	task->hook = graph_task_done;
	task->hook_arg = slot;
	r = doca_task_submit(task);
	if (r == DOCA_SUCCESS) {
		inst->running++;
		return DOCA_SUCCESS;
	}
	/* Refused: the task is as it was (possibly in flight for someone else). */
	task->hook = prev_hook;
	task->hook_arg = prev_arg;
	if (r == DOCA_ERROR_AGAIN)
		slots_push(&inst->waiting, slot); /* not a failure: the node waits for room */
	return r;
}

/*
 * Finishes a run: hands the result to the program (or to the parent's node). Must be the
 * last thing done with @inst.
 */
static void inst_finish(struct doca_graph_instance *inst)
{
	struct doca_graph *g = inst->graph;
	struct odma_graph_slot *parent = inst->parent;
	doca_error_t st = inst->failed ? inst->status : DOCA_SUCCESS;

	inst->submitted = false;
	inst_clear_pending(inst);
	if (parent != NULL) {
		parent->inst->running--;
		if (st == DOCA_SUCCESS)
			slot_succeeded(parent->inst, parent);
		else
			inst_fail(parent->inst, parent, st);
		inst_advance(parent->inst);
		return;
	}
	if (st == DOCA_SUCCESS)
		g->ok_cb(inst, inst->user_data, g->user_data);
	else
		g->err_cb(inst, inst->user_data, g->user_data);
}

/*
 * Starts every ready node; finishes the instance when nothing is left. Returns whether
 * anything happened (a node started or failed, the instance finished), not counting nodes
 * that still wait for room.
 */
static bool inst_advance(struct doca_graph_instance *inst)
{
	struct odma_graph_slot *slot;
	bool did = false;
	doca_error_t r;

	while (!inst->failed && (slot = slots_pop(&inst->ready)) != NULL) {
		const struct doca_graph_node *n = slot_node(slot);

		if (n->kind == ODMA_GRAPH_NODE_USER) {
			r = n->cb(slot->data.cookie);
			if (r == DOCA_SUCCESS)
				slot_succeeded(inst, slot);
		} else {
			r = slot_launch(slot);
			if (r == DOCA_ERROR_AGAIN)
				continue;
		}
		did = true;
		if (r != DOCA_SUCCESS)
			inst_fail(inst, slot, r);
	}
	if (inst->running == 0 && inst->ready.head == NULL && inst->waiting.head == NULL) {
		inst_finish(inst);
		return true;
	}
	if (inst->waiting.head != NULL)
		inst_set_pending(inst);
	return did;
}

/* Resets the run state and starts the roots; see doca_graph_instance_submit for refusals. */
static doca_error_t inst_launch(struct doca_graph_instance *inst)
{
	const struct doca_graph *g = inst->graph;
	struct odma_graph_slot *refused = NULL;
	doca_error_t r = DOCA_SUCCESS;

	inst->failed = false;
	inst->status = DOCA_SUCCESS;
	inst->running = 0;
	inst->ready.head = inst->ready.tail = NULL;
	inst->waiting.head = inst->waiting.tail = NULL;
	for (uint32_t i = 0; i < g->num_nodes; i++)
		inst->slots[i].deps_left = g->nodes[i]->num_deps;
	inst->submitted = true;
	for (uint32_t i = 0; i < g->num_nodes && refused == NULL; i++) {
		struct odma_graph_slot *slot = &inst->slots[i];

		if (slot->deps_left != 0)
			continue;
		if (g->nodes[i]->kind == ODMA_GRAPH_NODE_USER) {
			/* runs from progress, never inside submit */
			slots_push(&inst->ready, slot);
			continue;
		}
		r = slot_launch(slot);
		if (r != DOCA_SUCCESS && r != DOCA_ERROR_AGAIN)
			refused = slot;
	}
	if (refused != NULL && inst->running == 0) {
		/* Nothing runs: undo; the caller gets the refusal. */
		inst->submitted = false;
		inst->ready.head = inst->ready.tail = NULL;
		inst->waiting.head = inst->waiting.tail = NULL;
		return r;
	}
	if (refused != NULL)
		inst_fail(inst, refused, r); /* roots already running cannot be recalled */
	else if (inst->ready.head != NULL || inst->waiting.head != NULL)
		inst_set_pending(inst);
	return DOCA_SUCCESS;
}

bool odma_graph_poll(struct odma_pe_poller *p)
{
	struct doca_graph *g = (struct doca_graph *)p; /* the poller is the first member */
	struct doca_graph_instance *inst;
	uint32_t budget = g->num_instances; /* each pending instance once per poll */
	bool any = false;

	g->in_poll = true;
	while (budget-- > 0 && g->pending_head != NULL) {
		ODMA_QUEUE_POP(g->pending_head, g->pending_tail, inst, pending_next);
		inst->pending = false;
		/* the nodes waiting for room go first, in the order they were refused */
		if (inst->waiting.head != NULL) {
			inst->waiting.tail->next = inst->ready.head;
			if (inst->ready.head == NULL)
				inst->ready.tail = inst->waiting.tail;
			inst->ready.head = inst->waiting.head;
			inst->waiting.head = inst->waiting.tail = NULL;
		}
		any |= inst_advance(inst);
		if (g->doomed) {
			free(g); /* destroyed by a callback just now; nothing of it is pending */
			return true;
		}
	}
	g->in_poll = false;
	return any;
}

/* Whether @inst is submitted, or held by a sub-graph node of an instance in a run. */
static bool inst_in_run(const struct doca_graph_instance *inst)
{
	for (; inst != NULL; inst = inst->parent != NULL ? inst->parent->inst : NULL)
		if (inst->submitted)
			return true;
	return false;
}

doca_error_t doca_graph_instance_create(const struct doca_graph *graph,
                                        struct doca_graph_instance **graph_instance)
{
	struct doca_graph *g = (struct doca_graph *)(uintptr_t)graph;
	struct doca_graph_instance *inst;

	ODMA_CHECK_ARG(graph != NULL && graph_instance != NULL,
	               "doca_graph_instance_create: graph and graph_instance must not be NULL");
	if (!g->started) {
		ODMA_ERR("graph %p is not started; call doca_graph_start before creating instances",
		         (void *)g);
		return DOCA_ERROR_BAD_STATE;
	}
	if (g->num_instances >= g->max_instances) {
		ODMA_ERR("graph %p already has %u instances, the num_instances of "
		         "doca_graph_set_conf; destroy one or configure more",
		         (void *)g, g->num_instances);
		return DOCA_ERROR_NO_MEMORY;
	}
	inst = calloc(1, sizeof(*inst) + g->num_nodes * sizeof(inst->slots[0]));
	if (inst == NULL)
		return DOCA_ERROR_NO_MEMORY;
	inst->graph = g;
	for (uint32_t i = 0; i < g->num_nodes; i++) {
		inst->slots[i].inst = inst;
		inst->slots[i].node = i;
	}
	g->num_instances++;
	*graph_instance = inst;
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance_destroy(struct doca_graph_instance *graph_instance)
{
	struct doca_graph_instance *inst = graph_instance;
	struct doca_graph *g;

	ODMA_CHECK_ARG(inst != NULL,
	               "doca_graph_instance_destroy: graph_instance must not be NULL");
	if (inst->submitted) {
		ODMA_ERR("graph instance %p is submitted; "
		         "destroy it after its completion or error callback",
		         (void *)inst);
		return DOCA_ERROR_IN_USE;
	}
	if (inst->parent != NULL) {
		ODMA_ERR("graph instance %p is the sub-graph node data of instance %p; destroy "
		         "that instance first",
		         (void *)inst, (void *)inst->parent->inst);
		return DOCA_ERROR_IN_USE;
	}
	g = inst->graph;
	for (uint32_t i = 0; i < g->num_nodes; i++)
		if (g->nodes[i]->kind == ODMA_GRAPH_NODE_SUB && inst->slots[i].has_data)
			inst->slots[i].data.sub->parent = NULL;
	g->num_instances--;
	free(inst);
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance_set_user_data(struct doca_graph_instance *graph_instance,
                                               union doca_data user_data)
{
	ODMA_CHECK_ARG(graph_instance != NULL,
	               "doca_graph_instance_set_user_data: graph_instance must not be NULL");
	if (inst_in_run(graph_instance)) {
		ODMA_ERR("graph instance %p is in a run; set its user data before submitting it",
		         (void *)graph_instance);
		return DOCA_ERROR_IN_USE;
	}
	graph_instance->user_data = user_data;
	return DOCA_SUCCESS;
}

ODMA_GETTER(doca_graph_instance_get_user_data, const struct doca_graph_instance, graph_instance,
            union doca_data, user_data, graph_instance->user_data)

/* Common checks of the set_*_node_data calls; returns the node's slot through @slot. */
static doca_error_t inst_node_slot(struct doca_graph_instance *inst,
                                   const struct doca_graph_node *node,
                                   enum odma_graph_node_kind kind, const char *func,
                                   struct odma_graph_slot **slot)
{
	if (inst_in_run(inst)) {
		ODMA_ERR("%s: graph instance %p is in a run; set node data before submitting it",
		         func, (void *)inst);
		return DOCA_ERROR_BAD_STATE;
	}
	if (node->graph != inst->graph) {
		ODMA_ERR("%s: node %p belongs to graph %p, the instance %p to graph %p", func,
		         (const void *)node, (void *)node->graph, (void *)inst,
		         (void *)inst->graph);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (node->kind != kind) {
		ODMA_ERR("%s: node %u of graph %p is a %s node", func, node->index,
		         (void *)node->graph, odma_graph_kind_name(node));
		return DOCA_ERROR_NOT_PERMITTED;
	}
	*slot = &inst->slots[node->index];
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance_set_ctx_node_data(struct doca_graph_instance *graph_instance,
                                                   struct doca_graph_node *node,
                                                   struct doca_task *task)
{
	struct odma_graph_slot *slot;
	doca_error_t r;

	ODMA_CHECK_ARG(graph_instance != NULL && node != NULL && task != NULL,
	               "doca_graph_instance_set_ctx_node_data: graph_instance, "
	               "node and task must not be NULL");
	r = inst_node_slot(graph_instance, node, ODMA_GRAPH_NODE_CTX, __func__, &slot);
	if (r != DOCA_SUCCESS)
		return r;
	if (task->ctx != node->ctx) {
		ODMA_ERR("doca_graph_instance_set_ctx_node_data: task %p is of %s context %p, node "
		         "%u runs tasks of %s context %p",
		         (void *)task, task->ctx->ops->name, (void *)task->ctx, node->index,
		         node->ctx->ops->name, (void *)node->ctx);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (task->state != ODMA_TASK_ALLOCATED) {
		ODMA_ERR("doca_graph_instance_set_ctx_node_data: task %p is %s; give the node an "
		         "allocated task that is not in flight",
		         (void *)task, task->state == ODMA_TASK_FREE ? "freed" : "in flight");
		return DOCA_ERROR_INVALID_VALUE;
	}
	slot->data.task = task;
	slot->has_data = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance_set_user_node_data(struct doca_graph_instance *graph_instance,
                                                    struct doca_graph_node *node, void *cookie)
{
	struct odma_graph_slot *slot;
	doca_error_t r;

	ODMA_CHECK_ARG(
	        graph_instance != NULL && node != NULL,
	        "doca_graph_instance_set_user_node_data: graph_instance and node must not be NULL");
	r = inst_node_slot(graph_instance, node, ODMA_GRAPH_NODE_USER, __func__, &slot);
	if (r != DOCA_SUCCESS)
		return r;
	slot->data.cookie = cookie;
	slot->has_data = true;
	return DOCA_SUCCESS;
}

doca_error_t
doca_graph_instance_set_sub_graph_node_data(struct doca_graph_instance *graph_instance,
                                            struct doca_graph_node *node,
                                            struct doca_graph_instance *sub_graph_instance)
{
	struct doca_graph_instance *sub = sub_graph_instance;
	struct odma_graph_slot *slot;
	doca_error_t r;

	ODMA_CHECK_ARG(graph_instance != NULL && node != NULL && sub != NULL,
	               "doca_graph_instance_set_sub_graph_node_data: graph_instance, node and "
	               "sub_graph_instance must not be NULL");
	r = inst_node_slot(graph_instance, node, ODMA_GRAPH_NODE_SUB, __func__, &slot);
	if (r != DOCA_SUCCESS)
		return r;
	if (sub->graph != node->sub) {
		ODMA_ERR("doca_graph_instance_set_sub_graph_node_data: instance %p is of graph %p, "
		         "node %u runs graph %p",
		         (void *)sub, (void *)sub->graph, node->index, (void *)node->sub);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (inst_in_run(sub)) {
		ODMA_ERR("doca_graph_instance_set_sub_graph_node_data: instance %p is in a run",
		         (void *)sub);
		return DOCA_ERROR_BAD_STATE;
	}
	if (sub->parent != NULL && sub->parent != slot) {
		ODMA_ERR("doca_graph_instance_set_sub_graph_node_data: instance %p is already the "
		         "data of a node of instance %p",
		         (void *)sub, (void *)sub->parent->inst);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (slot->has_data)
		slot->data.sub->parent = NULL;
	sub->parent = slot;
	slot->data.sub = sub;
	slot->has_data = true;
	return DOCA_SUCCESS;
}

/* Whether every context and sub-graph node has its data, in sub-graph instances too. */
static bool inst_complete(const struct doca_graph_instance *inst)
{
	const struct doca_graph *g = inst->graph;

	for (uint32_t i = 0; i < g->num_nodes; i++) {
		const struct odma_graph_slot *s = &inst->slots[i];

		if (g->nodes[i]->kind == ODMA_GRAPH_NODE_USER)
			continue;
		if (!s->has_data) {
			ODMA_ERR("graph instance %p: %s node %u has no data; "
			         "set it before submitting",
			         (const void *)inst, odma_graph_kind_name(g->nodes[i]), i);
			return false;
		}
		if (g->nodes[i]->kind == ODMA_GRAPH_NODE_CTX &&
		    !slot_task_live(s, "doca_graph_instance_submit"))
			return false;
		if (g->nodes[i]->kind == ODMA_GRAPH_NODE_SUB && !inst_complete(s->data.sub))
			return false;
	}
	return true;
}

doca_error_t doca_graph_instance_submit(struct doca_graph_instance *graph_instance)
{
	struct doca_graph_instance *inst = graph_instance;

	ODMA_CHECK_ARG(inst != NULL, "doca_graph_instance_submit: graph_instance must not be NULL");
	if (inst->parent != NULL) {
		ODMA_ERR("graph instance %p is the sub-graph node data of instance %p; "
		         "submit that instance",
		         (void *)inst, (void *)inst->parent->inst);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (inst->submitted) {
		ODMA_ERR("graph instance %p is already submitted; "
		         "submit it again after its callback",
		         (void *)inst);
		return DOCA_ERROR_IN_USE;
	}
	if (!inst_complete(inst))
		return DOCA_ERROR_INVALID_VALUE;
	return inst_launch(inst);
}
