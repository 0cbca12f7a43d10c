/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */

/**
 * @file doca_comch_producer.h
 * @brief DOCA Comch fast path, sending side: a producer writes a doca_buf into a buffer
 *        posted by a consumer of the peer, addressed by the consumer's id.
 *
 * @code
 *   doca_comch_producer_create(connection, &producer);
 *   doca_comch_producer_task_send_set_conf(producer, done_cb, err_cb, n);
 *   doca_pe_connect_ctx(pe, doca_comch_producer_as_ctx(producer));
 *   doca_ctx_start(doca_comch_producer_as_ctx(producer));   // DOCA_SUCCESS: RUNNING
 *   doca_comch_producer_task_send_alloc_init(producer, buf, NULL, 0, consumer_id, &task);
 *   while (doca_task_submit(doca_comch_producer_task_send_as_task(task)) == DOCA_ERROR_AGAIN)
 *           ;  // the consumer has no buffer posted yet
 * @endcode
 *
 * Emulation (odma): the bytes are written into the consumer's posted buffer during
 * doca_task_submit (process_vm_writev into the peer process, no intermediate copy); the
 * completion callback follows from doca_pe_progress. A buffer the consumer posts becomes
 * visible to the producer without either process progressing, so a submit loop on
 * DOCA_ERROR_AGAIN ends as soon as the peer posts.
 *
 * doca_task_submit of a producer send task returns:
 * - DOCA_SUCCESS: the bytes (and immediate data) are in the consumer's buffer;
 * - DOCA_ERROR_AGAIN: the consumer has no buffer posted; retry (progress is not needed);
 * - DOCA_ERROR_NOT_FOUND: no consumer with that id on the peer, or it expired;
 * - DOCA_ERROR_TOO_BIG: the data is larger than the posted buffer's free space, or the
 *   immediate data longer than the consumer accepts (the posted buffer stays posted);
 * - DOCA_ERROR_NOT_CONNECTED: the connection is closed;
 * - DOCA_ERROR_INVALID_VALUE: no data and no immediate data, or above the producer caps;
 * - DOCA_ERROR_BAD_STATE: the producer is not RUNNING.
 * A task whose write fails in the kernel (the peer process ended meanwhile) completes with
 * DOCA_ERROR_IO_FAILED through the error callback.
 */
#ifndef DOCA_COMCH_PRODUCER_H_
#define DOCA_COMCH_PRODUCER_H_

#include <stddef.h>
#include <stdint.h>
#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_ctx;
struct doca_devinfo;
struct doca_task;
struct doca_comch_connection;
/** A DPA completion context (not available on the emulated devices). */
struct doca_dpa_completion;

/** A fast-path sending endpoint on a connection (a context). */
struct doca_comch_producer;
/** A task that sends one buffer to a consumer of the peer. */
struct doca_comch_producer_task_send;
/** A producer's GPU handle (not available on the emulated devices). */
struct doca_comch_gpu_producer;

/** DPA handle of a producer. */
typedef uint64_t doca_dpa_dev_comch_producer_t;

/** Completion (or error) callback of a producer send task. */
typedef void (*doca_comch_producer_task_send_completion_cb_t)(
        struct doca_comch_producer_task_send *task, union doca_data task_user_data,
        union doca_data ctx_user_data);

/**
 * @brief Creates a producer on an established connection.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, not a live connection);
 *         DOCA_ERROR_BAD_STATE (the connection is not established); DOCA_ERROR_NO_MEMORY
 *         (allocation, or doca_comch_producer_cap_get_max_producers producers already exist
 *         on the connection).
 */
DOCA_STABLE
doca_error_t doca_comch_producer_create(struct doca_comch_connection *comch_connection,
                                        struct doca_comch_producer **producer);

/**
 * @brief Destroys an IDLE producer.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_BAD_STATE (not IDLE);
 *         DOCA_ERROR_IN_USE (STOPPING, or a context node of a graph: destroy the graph first).
 */
DOCA_STABLE
doca_error_t doca_comch_producer_destroy(struct doca_comch_producer *producer);

/**
 * @brief Whether the device supports producers.
 * @return DOCA_SUCCESS (yes); DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE
doca_error_t doca_comch_producer_cap_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief The producer's id, unique on its connection and never 0 (a consumer's completed
 *        task reports it).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE
doca_error_t doca_comch_producer_get_id(const struct doca_comch_producer *producer, uint32_t *id);

/**
 * @brief Largest send task pool.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_NOT_SUPPORTED (no Comch).
 */
DOCA_STABLE
doca_error_t doca_comch_producer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo,
                                                       uint32_t *max_num_tasks);

/**
 * @brief Largest buffer (list total) one send moves.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_NOT_SUPPORTED (no Comch).
 */
DOCA_STABLE
doca_error_t doca_comch_producer_cap_get_max_buf_size(const struct doca_devinfo *devinfo,
                                                      uint32_t *max_buf_size);

/**
 * @brief Longest source buffer list (its elements are gathered into one consumer buffer).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_NOT_SUPPORTED (no Comch).
 */
DOCA_STABLE
doca_error_t doca_comch_producer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
                                                          uint32_t *max_buf_list_len);

/**
 * @brief How many producers one side may have on one connection.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_NOT_SUPPORTED (no Comch).
 */
DOCA_STABLE
doca_error_t doca_comch_producer_cap_get_max_producers(const struct doca_devinfo *devinfo,
                                                       uint32_t *max_producers);

/** @brief The generic context of a producer (NULL for NULL). */
DOCA_STABLE
struct doca_ctx *doca_comch_producer_as_ctx(struct doca_comch_producer *producer);

/**
 * @brief Configures the send tasks (both callbacks are required).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, 0 tasks or above the cap);
 *         DOCA_ERROR_BAD_STATE (not IDLE).
 */
DOCA_STABLE
doca_error_t doca_comch_producer_task_send_set_conf(
        struct doca_comch_producer *producer,
        doca_comch_producer_task_send_completion_cb_t task_completion_cb,
        doca_comch_producer_task_send_completion_cb_t task_error_cb, uint32_t num_send_tasks);

/**
 * @brief Allocates a send task: @p buf (its data segment, or every element's for a list;
 *        may be NULL when only immediate data is sent) goes to consumer @p consumer_id of
 *        the peer. The immediate data is copied into the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL producer or task, immediate data
 *         longer than doca_comch_consumer_cap_get_max_imm_data_len, a buffer above the caps);
 *         DOCA_ERROR_BAD_STATE (not RUNNING); DOCA_ERROR_NO_MEMORY (every task is allocated).
 */
DOCA_STABLE
doca_error_t doca_comch_producer_task_send_alloc_init(struct doca_comch_producer *producer,
                                                      const struct doca_buf *buf, uint8_t *imm_data,
                                                      uint32_t imm_data_len, uint32_t consumer_id,
                                                      struct doca_comch_producer_task_send **task);

/** @brief The source buffer of a send task (NULL for NULL). */
DOCA_STABLE
const struct doca_buf *
doca_comch_producer_task_send_get_buf(const struct doca_comch_producer_task_send *task);

/** @brief Replaces the source buffer of a task that is not in flight (no-op for NULL). */
DOCA_STABLE
void doca_comch_producer_task_send_set_buf(struct doca_comch_producer_task_send *task,
                                           const struct doca_buf *buf);

/** @brief The target consumer id of a send task (0 for NULL). */
DOCA_STABLE
uint32_t
doca_comch_producer_task_send_get_consumer_id(const struct doca_comch_producer_task_send *task);

/** @brief Replaces the target consumer id of a task that is not in flight (no-op for NULL). */
DOCA_STABLE
void doca_comch_producer_task_send_set_consumer_id(struct doca_comch_producer_task_send *task,
                                                   const uint32_t consumer_id);

/** @brief The task's copy of the immediate data; NULL when it has none, or for NULL. */
DOCA_STABLE
uint8_t *
doca_comch_producer_task_send_get_imm_data(const struct doca_comch_producer_task_send *task);

/** @brief Length of the task's immediate data (0 for NULL). */
DOCA_STABLE
uint32_t
doca_comch_producer_task_send_get_imm_data_len(const struct doca_comch_producer_task_send *task);

/**
 * @brief Copies new immediate data into a task that is not in flight. Data longer than
 *        doca_comch_consumer_cap_get_max_imm_data_len is refused with one log line and the
 *        task keeps its old data (no-op for a NULL task).
 */
DOCA_STABLE
void doca_comch_producer_task_send_set_imm_data(struct doca_comch_producer_task_send *task,
                                                uint8_t *imm_data, uint32_t imm_data_len);

/** @brief The generic task of a producer send task (NULL for NULL). */
DOCA_STABLE
struct doca_task *doca_comch_producer_task_send_as_task(struct doca_comch_producer_task_send *task);

/* DPA and GPU data paths: the emulated devices have neither; each returns NOT_SUPPORTED. */

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_set_dev_max_num_send(struct doca_comch_producer *producer,
                                                      uint32_t dev_num_send);

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_dpa_completion_attach(struct doca_comch_producer *producer,
                                                       struct doca_dpa_completion *dpa_comp);

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_get_dpa_handle(struct doca_comch_producer *producer,
                                                doca_dpa_dev_comch_producer_t *dpa_producer);

/** @brief GPU only. @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_get_gpu_handle(struct doca_comch_producer *producer,
                                                struct doca_comch_gpu_producer **gpu_producer);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_PRODUCER_H_ */
