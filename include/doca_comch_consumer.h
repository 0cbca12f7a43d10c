/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */

/**
 * @file doca_comch_consumer.h
 * @brief DOCA Comch fast path, receiving side: a consumer posts buffers of its mmap, and a
 *        producer on the other side of the connection fills them.
 *
 * @code
 *   doca_comch_consumer_create(connection, mmap, &consumer);
 *   doca_comch_consumer_task_post_recv_set_conf(consumer, done_cb, err_cb, n);
 *   doca_pe_connect_ctx(pe, doca_comch_consumer_as_ctx(consumer));
 *   doca_ctx_start(doca_comch_consumer_as_ctx(consumer));  // DOCA_ERROR_IN_PROGRESS
 *   ... progress this PE and the connection's PE until RUNNING; the peer's new-consumer
 *       callback reports this consumer's id ...
 *   doca_comch_consumer_task_post_recv_alloc_init(consumer, buf, &task);
 *   doca_task_submit(doca_comch_consumer_task_post_recv_as_task(task));
 *   ... done_cb: doca_buf_get_data / doca_buf_get_data_len on the posted buf ...
 * @endcode
 *
 * Emulation (odma): a posted buffer is published in a ring shared with the peer process, so
 * the peer's producer sees it without either process progressing; the producer writes the
 * bytes straight into this process's buffer (process_vm_writev, no intermediate copy).
 * The bytes land at data + data_len of the posted buffer (its free tail), whose data_len
 * grows by the bytes written. A posted buffer is a single doca_buf (no lists). The
 * functions for the DPA and GPU data paths answer DOCA_ERROR_NOT_SUPPORTED: the emulated
 * devices have neither.
 */
#ifndef DOCA_COMCH_CONSUMER_H_
#define DOCA_COMCH_CONSUMER_H_

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
struct doca_mmap;
struct doca_task;
struct doca_dpa_thread;
struct doca_comch_connection;

/** A fast-path receiving endpoint on a connection (a context). */
struct doca_comch_consumer;
/** A task that posts one receive buffer. */
struct doca_comch_consumer_task_post_recv;
/** A DPA completion context for consumers (not available on the emulated devices). */
struct doca_comch_consumer_completion;
/** A consumer's GPU handle (not available on the emulated devices). */
struct doca_comch_gpu_consumer;

/** DPA handle of a consumer completion context. */
typedef uint64_t doca_dpa_dev_comch_consumer_completion_t;
/** DPA handle of a consumer. */
typedef uint64_t doca_dpa_dev_comch_consumer_t;

/** Completion (or error) callback of a post-recv task. */
typedef void (*doca_comch_consumer_task_post_recv_completion_cb_t)(
        struct doca_comch_consumer_task_post_recv *task, union doca_data task_user_data,
        union doca_data ctx_user_data);

/**
 * @brief Creates a consumer on an established connection; buffers it posts must lie in
 *        @p buf_mmap (a started mmap of this process).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, an unstarted or imported mmap, not a
 *         live connection); DOCA_ERROR_BAD_STATE (the connection is not established);
 *         DOCA_ERROR_NO_MEMORY (allocation, or doca_comch_consumer_cap_get_max_consumers
 *         consumers already exist on the connection).
 */
DOCA_STABLE
doca_error_t doca_comch_consumer_create(struct doca_comch_connection *comch_connection,
                                        struct doca_mmap *buf_mmap,
                                        struct doca_comch_consumer **consumer);

/**
 * @brief Destroys an IDLE consumer.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_BAD_STATE (not IDLE:
 *         stop it and progress until IDLE first); DOCA_ERROR_IN_USE (STOPPING, or a context
 *         node of a graph: destroy the graph first).
 */
DOCA_STABLE
doca_error_t doca_comch_consumer_destroy(struct doca_comch_consumer *consumer);

/**
 * @brief Whether the device supports consumers.
 * @return DOCA_SUCCESS (yes); DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE
doca_error_t doca_comch_consumer_cap_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief The consumer's id, unique on its connection and never 0; the peer addresses it by
 *        this id (it learns it from its new-consumer callback).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE
doca_error_t doca_comch_consumer_get_id(const struct doca_comch_consumer *consumer, uint32_t *id);

/**
 * @brief Largest post-recv task pool.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_NOT_SUPPORTED (no Comch).
 */
DOCA_STABLE
doca_error_t doca_comch_consumer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo,
                                                       uint32_t *max_num_tasks);

/**
 * @brief Largest buffer a consumer may post.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_NOT_SUPPORTED (no Comch).
 */
DOCA_STABLE
doca_error_t doca_comch_consumer_cap_get_max_buf_size(const struct doca_devinfo *devinfo,
                                                      uint32_t *max_buf_size);

/**
 * @brief Longest buffer list a consumer may post (1 on the emulated devices).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_NOT_SUPPORTED (no Comch).
 */
DOCA_STABLE
doca_error_t doca_comch_consumer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
                                                          uint32_t *max_buf_list_len);

/**
 * @brief How many consumers one side may have on one connection.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_NOT_SUPPORTED (no Comch).
 */
DOCA_STABLE
doca_error_t doca_comch_consumer_cap_get_max_consumers(const struct doca_devinfo *devinfo,
                                                       uint32_t *max_consumers);

/**
 * @brief Largest immediate data a consumer may accept with each buffer.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_NOT_SUPPORTED (no Comch).
 */
DOCA_STABLE
doca_error_t doca_comch_consumer_cap_get_max_imm_data_len(const struct doca_devinfo *devinfo,
                                                          uint32_t *max_imm_data_len);

/**
 * @brief The immediate data length the consumer accepts (default 0).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE
doca_error_t doca_comch_consumer_get_imm_data_len(const struct doca_comch_consumer *consumer,
                                                  uint32_t *imm_data_len);

/**
 * @brief Sets the immediate data length the consumer accepts with each buffer.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL or above the cap);
 *         DOCA_ERROR_BAD_STATE (not IDLE).
 */
DOCA_STABLE
doca_error_t doca_comch_consumer_set_imm_data_len(struct doca_comch_consumer *consumer,
                                                  uint32_t imm_data_len);

/** @brief The generic context of a consumer (NULL for NULL). */
DOCA_STABLE
struct doca_ctx *doca_comch_consumer_as_ctx(struct doca_comch_consumer *consumer);

/**
 * @brief Configures the post-recv tasks (both callbacks are required).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, 0 tasks or above the cap);
 *         DOCA_ERROR_BAD_STATE (not IDLE).
 */
DOCA_STABLE
doca_error_t doca_comch_consumer_task_post_recv_set_conf(
        struct doca_comch_consumer *consumer,
        doca_comch_consumer_task_post_recv_completion_cb_t task_completion_cb,
        doca_comch_consumer_task_post_recv_completion_cb_t task_error_cb,
        uint32_t num_post_recv_tasks);

/**
 * @brief Allocates a post-recv task for @p buf (a buffer of the consumer's mmap; may be
 *        NULL here and set later with set_buf).
 *
 * doca_task_submit of a post-recv task publishes the buffer's free tail to the peer and
 * returns DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (no buffer, a buffer outside the consumer's
 * mmap, a list, no free space, above the max buffer size), DOCA_ERROR_BAD_STATE (not
 * RUNNING, or the mmap is stopped: a thread-safe mmap can be stopped under its bufs) or
 * DOCA_ERROR_NOT_PERMITTED (the mmap, restarted, no longer has the Comch context's device).
 * The task completes when a producer filled the buffer; it fails with
 * DOCA_ERROR_IO_FAILED when the consumer stops first and with DOCA_ERROR_CONNECTION_RESET
 * when the connection is lost.
 *
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL consumer or task, a buffer outside the
 *         consumer's mmap); DOCA_ERROR_BAD_STATE (not RUNNING); DOCA_ERROR_NO_MEMORY (every
 *         task is allocated).
 */
DOCA_STABLE
doca_error_t
doca_comch_consumer_task_post_recv_alloc_init(struct doca_comch_consumer *consumer,
                                              struct doca_buf *buf,
                                              struct doca_comch_consumer_task_post_recv **task);

/** @brief The buffer of a post-recv task (NULL for NULL). */
DOCA_STABLE
struct doca_buf *
doca_comch_consumer_task_post_recv_get_buf(const struct doca_comch_consumer_task_post_recv *task);

/** @brief Replaces the buffer of a post-recv task that is not in flight (no-op for NULL). */
DOCA_STABLE
void doca_comch_consumer_task_post_recv_set_buf(struct doca_comch_consumer_task_post_recv *task,
                                                struct doca_buf *buf);

/** @brief The id of the producer that filled the buffer; 0 before completion or for NULL. */
DOCA_STABLE
uint32_t doca_comch_consumer_task_post_recv_get_producer_id(
        const struct doca_comch_consumer_task_post_recv *task);

/**
 * @brief The immediate data received with the buffer (valid until the task is reused or
 *        freed); NULL when none was sent, before completion, or for NULL.
 */
DOCA_STABLE
const uint8_t *doca_comch_consumer_task_post_recv_get_imm_data(
        const struct doca_comch_consumer_task_post_recv *task);

/** @brief Length of the received immediate data (0 when none, or for NULL). */
DOCA_STABLE
uint32_t doca_comch_consumer_task_post_recv_get_imm_data_len(
        const struct doca_comch_consumer_task_post_recv *task);

/** @brief The generic task of a post-recv task (NULL for NULL). */
DOCA_STABLE
struct doca_task *
doca_comch_consumer_task_post_recv_as_task(struct doca_comch_consumer_task_post_recv *task);

/* DPA and GPU data paths: the emulated devices have neither; each returns NOT_SUPPORTED. */

/**
 * @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_comch_consumer_completion_create(struct doca_comch_consumer_completion **consumer_comp);

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL
doca_error_t
doca_comch_consumer_completion_set_dpa_thread(struct doca_comch_consumer_completion *consumer_comp,
                                              struct doca_dpa_thread *dpa_thread);

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL
doca_error_t
doca_comch_consumer_completion_destroy(struct doca_comch_consumer_completion *consumer_comp);

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL
doca_error_t
doca_comch_consumer_completion_start(struct doca_comch_consumer_completion *consumer_comp);

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL
doca_error_t
doca_comch_consumer_completion_stop(struct doca_comch_consumer_completion *consumer_comp);

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_get_dpa_handle(
        struct doca_comch_consumer_completion *consumer_comp,
        doca_dpa_dev_comch_consumer_completion_t *consumer_comp_handle);

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_set_max_num_consumers(
        struct doca_comch_consumer_completion *consumer_comp, uint32_t max_num_consumers);

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_get_max_num_consumers(
        const struct doca_comch_consumer_completion *consumer_comp, uint32_t *max_num_consumers);

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_set_max_num_recv(
        struct doca_comch_consumer_completion *consumer_comp, uint32_t max_num_recv);

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_get_max_num_recv(
        const struct doca_comch_consumer_completion *consumer_comp, uint32_t *max_num_recv);

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_set_imm_data_len(
        struct doca_comch_consumer_completion *consumer_comp, uint32_t imm_data_len);

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_get_imm_data_len(
        const struct doca_comch_consumer_completion *consumer_comp, uint32_t *imm_data_len);

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_set_dev_max_num_recv(struct doca_comch_consumer *consumer,
                                                      uint32_t dev_num_recv);

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL
doca_error_t
doca_comch_consumer_set_completion(struct doca_comch_consumer *consumer,
                                   struct doca_comch_consumer_completion *consumer_comp,
                                   uint32_t user_data);

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_get_dpa_handle(struct doca_comch_consumer *consumer,
                                                doca_dpa_dev_comch_consumer_t *dpa_consumer);

/** @brief GPU only. @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_get_gpu_handle(struct doca_comch_consumer *consumer,
                                                struct doca_comch_gpu_consumer **gpu_consumer);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_CONSUMER_H_ */
