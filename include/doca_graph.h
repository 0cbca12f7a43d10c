/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */

/**
 * @file doca_graph.h
 * @brief Task graphs: a set of nodes with dependencies, run as one unit.
 *
 * A graph describes work once; an instance of it is one run. Three kinds of node:
 * - a **context node** stands for one task of a context (any context type: DMA, ...);
 *   each instance supplies the task;
 * - a **user node** calls a function of the program; each instance supplies its argument;
 * - a **sub-graph node** runs an instance of another (started) graph; each instance
 *   supplies that instance.
 *
 * A node runs once every node it depends on has completed successfully; nodes without a
 * dependency between them may run at the same time (two DMA nodes copy in parallel). When
 * every node of an instance has completed, the graph's completion callback runs for it; when
 * a node fails, no further node of that instance starts, and once the nodes already running
 * have finished the graph's error callback runs for it. Either way the instance can then be
 * submitted again (after the program refreshes its tasks) or destroyed.
 *
 * @code
 *   doca_graph_create(pe) -> doca_graph_node_create_from_{ctx,user,graph}
 *     -> doca_graph_add_dependency(from, to) -> doca_graph_set_conf -> [doca_graph_set_user_data]
 *     -> doca_graph_start        (the contexts of context nodes RUNNING on the same PE)
 *   doca_graph_instance_create -> doca_graph_instance_set_{ctx,user,sub_graph}_node_data
 *     -> doca_graph_instance_submit -> doca_pe_progress ... -> completion or error callback
 *     -> submit again, or doca_graph_instance_destroy
 *   doca_graph_stop (no instance left) -> doca_graph_destroy
 * @endcode
 *
 * Rules (odma):
 * - Everything runs on the thread of the graph's PE; callbacks (user nodes, the graph's
 *   completion and error callbacks) run only from doca_pe_progress(), never from a submit.
 * - A task set as context-node data belongs to the instance while the instance is submitted:
 *   its context's own completion callbacks are not called for it; its status
 *   (doca_task_get_status()) tells how it ended. It must outlive the instance.
 * - A context that has no room (AGAIN) does not fail a node: the node waits and is
 *   submitted again from doca_pe_progress().
 * - An instance is "in a run" while it is submitted, or while it is held by a sub-graph node
 *   of an instance in a run; its data cannot change then.
 * - Nodes are owned by their graph and freed with it. A graph used as a sub-graph stays
 *   started while a started graph uses it, and cannot be destroyed while any graph has a
 *   node of it.
 */
#ifndef DOCA_GRAPH_H_
#define DOCA_GRAPH_H_

#include <stddef.h>
#include <stdint.h>
#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_pe;
struct doca_ctx;
struct doca_task;
struct doca_graph;
struct doca_graph_node;
struct doca_graph_instance;

/**
 * @brief Called once per finished instance, from doca_pe_progress() of the graph's PE: the
 * completion callback when every node succeeded, the error callback when one failed. The
 * instance is no longer submitted: the callback may submit it again or destroy it.
 */
typedef void (*doca_graph_completion_cb_t)(struct doca_graph_instance *instance,
                                           union doca_data instance_user_data,
                                           union doca_data graph_user_data);

/**
 * @brief The function of a user node, called with the argument the instance set
 * (doca_graph_instance_set_user_node_data()). Returning anything but DOCA_SUCCESS fails the
 * node, and so the instance.
 */
typedef doca_error_t (*doca_graph_user_node_cb_t)(void *cookie);

/**
 * @brief Creates an empty, stopped graph bound to a progress engine. The PE cannot be
 * destroyed while the graph exists.
 * @param [in] pe  the PE whose doca_pe_progress() runs the graph.
 * @param [out] graph  the new graph (untouched on failure).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_create(struct doca_pe *pe, struct doca_graph **graph);

/**
 * @brief Destroys a stopped graph and its nodes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL);
 *         DOCA_ERROR_BAD_STATE (the graph is started: stop it first);
 *         DOCA_ERROR_IN_USE (another graph has a sub-graph node of it: destroy that graph first).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_destroy(struct doca_graph *graph);

/**
 * @brief Sets the callbacks of finished instances and the most instances that may exist at
 * once. Required before doca_graph_start(); may be called again while stopped.
 * @param [in] graph  the graph.
 * @param [in] graph_completion_cb  called for each instance whose nodes all succeeded.
 * @param [in] graph_error_cb  called for each instance in which a node failed.
 * @param [in] num_instances  the most instances of the graph at once (at least 1).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL graph or callback, @p num_instances 0);
 *         DOCA_ERROR_BAD_STATE (the graph is started).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_set_conf(struct doca_graph *graph,
                                 doca_graph_completion_cb_t graph_completion_cb,
                                 doca_graph_completion_cb_t graph_error_cb, uint32_t num_instances);

/**
 * @brief Sets the graph's user data, passed to the completion and error callbacks.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_BAD_STATE (started).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_set_user_data(struct doca_graph *graph, union doca_data user_data);

/**
 * @brief Reads the graph's user data (zero until set).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_get_user_data(const struct doca_graph *graph, union doca_data *user_data);

/**
 * @brief Adds a context node: each instance runs one task of @p ctx there. The context may
 * be of any type; at doca_graph_start() it must be RUNNING and connected to the graph's PE.
 * The context must outlive the graph: its destroy fails with DOCA_ERROR_IN_USE while the graph
 * exists. The new node has no dependency (a root).
 * @param [in] graph  a stopped graph.
 * @param [in] ctx  the context whose tasks the node runs.
 * @param [out] node  the new node (untouched on failure).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument);
 *         DOCA_ERROR_BAD_STATE (the graph is started);
 *         DOCA_ERROR_NOT_PERMITTED (@p ctx is connected to another PE than the graph's);
 *         DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_node_create_from_ctx(struct doca_graph *graph, const struct doca_ctx *ctx,
                                             struct doca_graph_node **node);

/**
 * @brief Adds a user node: each instance calls @p cb with the argument it set for the node.
 * @param [in] graph  a stopped graph.
 * @param [in] cb  the function to call.
 * @param [out] node  the new node (untouched on failure).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument);
 *         DOCA_ERROR_BAD_STATE (the graph is started); DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_node_create_from_user(struct doca_graph *graph,
                                              doca_graph_user_node_cb_t cb,
                                              struct doca_graph_node **node);

/**
 * @brief Adds a sub-graph node: each instance runs an instance of @p sub_graph there, which
 * completes the node when all of its nodes have completed (its own graph's callbacks are not
 * called for it).
 * @param [in] graph  a stopped graph.
 * @param [in] sub_graph  a started graph on the same PE.
 * @param [out] node  the new node (untouched on failure).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument);
 *         DOCA_ERROR_BAD_STATE (@p graph is started, or @p sub_graph is not);
 *         DOCA_ERROR_NOT_PERMITTED (@p sub_graph is @p graph, contains it (a cycle), or runs
 *         on another PE); DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_node_create_from_graph(struct doca_graph *graph,
                                               struct doca_graph *sub_graph,
                                               struct doca_graph_node **node);

/**
 * @brief Makes @p to run only after @p from has completed. Adding an existing dependency
 * again changes nothing.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument);
 *         DOCA_ERROR_BAD_STATE (the graph is started);
 *         DOCA_ERROR_NOT_PERMITTED (a node of another graph, @p from equal to @p to, or a
 *         dependency that would close a cycle); DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_add_dependency(struct doca_graph *graph, struct doca_graph_node *from,
                                       struct doca_graph_node *to);

/**
 * @brief Checks the graph and starts it: instances can then be created. The graph must have
 * at least one context node (directly or in a sub-graph), the contexts of its context nodes
 * must be RUNNING on the graph's PE, its sub-graphs started, and its dependencies free of
 * cycles.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL);
 *         DOCA_ERROR_BAD_STATE (already started, doca_graph_set_conf() not called, no context
 *         node, a context not RUNNING or on another PE, a sub-graph not started);
 *         DOCA_ERROR_NOT_PERMITTED (the dependencies form a cycle); DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_start(struct doca_graph *graph);

/**
 * @brief Stops a graph whose instances are all destroyed. Stopping a stopped graph succeeds.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL);
 *         DOCA_ERROR_IN_USE (instances exist, or a started graph uses this one as a sub-graph).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_stop(struct doca_graph *graph);

/**
 * @brief Creates an instance of a started graph, with no node data set.
 * @param [in] graph  a started graph.
 * @param [out] graph_instance  the new instance (untouched on failure).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument);
 *         DOCA_ERROR_BAD_STATE (the graph is not started);
 *         DOCA_ERROR_NO_MEMORY (num_instances of doca_graph_set_conf() already exist, or out
 *         of memory).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_instance_create(const struct doca_graph *graph,
                                        struct doca_graph_instance **graph_instance);

/**
 * @brief Destroys an instance that is not submitted. Its tasks stay the program's.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL);
 *         DOCA_ERROR_IN_USE (submitted, or set as the sub-graph node data of another
 *         instance: destroy that one first).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_instance_destroy(struct doca_graph_instance *graph_instance);

/**
 * @brief Sets the instance's user data, passed to the completion and error callbacks.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_IN_USE (in a run).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_instance_set_user_data(struct doca_graph_instance *graph_instance,
                                               union doca_data user_data);

/**
 * @brief Reads the instance's user data (zero until set).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_instance_get_user_data(const struct doca_graph_instance *graph_instance,
                                               union doca_data *user_data);

/**
 * @brief Sets the task a context node runs in this instance. The task must be allocated
 * from the node's context and not in flight; it may be changed (its buffers, ...) between
 * runs of the instance, and must not be freed while the instance uses it.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument, or a task that is free or
 *         in flight); DOCA_ERROR_BAD_STATE (the instance is in a run);
 *         DOCA_ERROR_NOT_PERMITTED (a node of another graph, not a context node, or a task of
 *         another context).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_instance_set_ctx_node_data(struct doca_graph_instance *graph_instance,
                                                   struct doca_graph_node *node,
                                                   struct doca_task *task);

/**
 * @brief Sets the argument a user node's function gets in this instance (NULL until set).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL instance or node);
 *         DOCA_ERROR_BAD_STATE (the instance is in a run);
 *         DOCA_ERROR_NOT_PERMITTED (a node of another graph, or not a user node).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_instance_set_user_node_data(struct doca_graph_instance *graph_instance,
                                                    struct doca_graph_node *node, void *cookie);

/**
 * @brief Sets the instance of the sub-graph that a sub-graph node runs in this instance. The
 * sub-graph instance then belongs to this node (it cannot be submitted or destroyed on its
 * own) until another one is set or this instance is destroyed.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument);
 *         DOCA_ERROR_BAD_STATE (either instance is in a run);
 *         DOCA_ERROR_NOT_PERMITTED (a node of another graph, not a sub-graph node, an instance
 *         of another graph than the node's sub-graph, or one already set on another node).
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_graph_instance_set_sub_graph_node_data(struct doca_graph_instance *graph_instance,
                                            struct doca_graph_node *node,
                                            struct doca_graph_instance *sub_graph_instance);

/**
 * @brief Submits an instance: its root context and sub-graph nodes are submitted now, its
 * root user nodes run from the next doca_pe_progress(). If a root is refused while no other
 * root of the instance is running yet, nothing runs and that error is returned (the instance
 * is not submitted); a refusal after another root is already running fails the instance
 * instead (error callback). A context without room (AGAIN) is not a refusal: the node waits.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, or a node without data);
 *         DOCA_ERROR_IN_USE (already submitted);
 *         DOCA_ERROR_NOT_PERMITTED (the instance is a sub-graph node's data: submit the
 *         instance that holds it);
 *         any error of doca_task_submit() for a root task refused while nothing runs (e.g.
 *         DOCA_ERROR_BAD_STATE when its context is not RUNNING).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_instance_submit(struct doca_graph_instance *graph_instance);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_GRAPH_H_ */
