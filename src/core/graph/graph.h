/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * DOCA Graph: the layout of graphs, nodes and instances (graph.c builds graphs, instance.c
 * runs them). A graph is not a context: it runs from its PE's progress through a PE poller
 * (root user nodes, nodes waiting for room in a full context) and through the per-task
 * completion hook of the tasks it submits (struct doca_task.hook, core/exec/exec.h).
 * Everything here runs on the thread of the graph's PE; there are no locks.
 */
#ifndef ODMA_GRAPH_H_
#define ODMA_GRAPH_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_graph.h>

#include "core/exec/exec.h"

enum odma_graph_node_kind {
	ODMA_GRAPH_NODE_CTX,
	ODMA_GRAPH_NODE_USER,
	ODMA_GRAPH_NODE_SUB,
};

struct doca_graph_node {
	struct doca_graph *graph;
	uint32_t index;               /* in graph->nodes and in each instance's slots */
	uint8_t kind;                 /* enum odma_graph_node_kind */
	struct doca_ctx *ctx;         /* CTX */
	doca_graph_user_node_cb_t cb; /* USER */
	struct doca_graph *sub;       /* SUB */
	uint32_t num_deps;            /* nodes this one waits for */
	uint32_t num_succ;            /* nodes that wait for this one */
	uint32_t cap_succ;
	uint32_t *succ; /* their indices */
};

struct doca_graph {
	struct odma_pe_poller poller; /* runs pending instances from doca_pe_progress */
	struct doca_pe *pe;
	bool started;
	bool in_poll; /* the poller is running: a destroy from a callback frees at its end */
	bool doomed;  /* destroyed during the poll */
	doca_graph_completion_cb_t ok_cb;
	doca_graph_completion_cb_t err_cb;
	uint32_t max_instances; /* 0 until doca_graph_set_conf */
	uint32_t num_instances;
	union doca_data user_data;
	struct doca_graph_node **nodes;
	uint32_t num_nodes;
	uint32_t cap_nodes;
	uint32_t sub_refs;      /* sub-graph nodes of other graphs naming this one */
	uint32_t started_users; /* started graphs with a sub-graph node naming this one */
	/* instances with work for the poller (FIFO through instance->pending_next) */
	struct doca_graph_instance *pending_head;
	struct doca_graph_instance *pending_tail;
};

/* One node of one instance. */
struct odma_graph_slot {
	struct doca_graph_instance *inst;
	uint32_t node;
	uint32_t deps_left; /* dependencies not completed yet in the current run */
	bool has_data;
	union {
		struct doca_task *task;          /* CTX */
		void *cookie;                    /* USER */
		struct doca_graph_instance *sub; /* SUB */
	} data;
	struct odma_graph_slot *next; /* ready or waiting list */
};

struct odma_graph_slot_list {
	struct odma_graph_slot *head;
	struct odma_graph_slot *tail;
};

struct doca_graph_instance {
	struct doca_graph *graph;
	union doca_data user_data;
	bool submitted;
	bool failed;                    /* a node failed in the current run: start nothing more */
	bool pending;                   /* on graph->pending */
	doca_error_t status;            /* of the first node that failed */
	uint32_t running;               /* context tasks and sub-graph instances in flight */
	struct odma_graph_slot *parent; /* the sub-graph node slot holding this instance */
	struct odma_graph_slot_list ready;   /* nodes whose dependencies completed */
	struct odma_graph_slot_list waiting; /* context nodes whose context was full (AGAIN) */
	struct doca_graph_instance *pending_next;
	struct odma_graph_slot slots[]; /* one per node */
};

/* graph.c: "context", "user" or "sub-graph". */
const char *odma_graph_kind_name(const struct doca_graph_node *node);

/* instance.c: runs the instances on the graph's pending list (the poller's op). */
bool odma_graph_poll(struct odma_pe_poller *p);

#endif /* ODMA_GRAPH_H_ */
