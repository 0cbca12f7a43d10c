/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */

/**
 * @file doca_erasure_coding.h
 * @brief DOCA Erasure Coding: Reed-Solomon codes over GF(2^8) as context tasks.
 *
 * Objects: a context (struct doca_ec, on one device) and coding matrices (struct
 * doca_ec_matrix, made by the context). A matrix with k inputs and r outputs turns k blocks
 * of equal size into r blocks; the four task types apply one:
 *
 *   - create:     k data blocks -> m redundancy blocks (the coding matrix);
 *   - recover:    k available blocks -> the missing ones (a recover matrix);
 *   - update:     (old, new) pairs of changed data blocks and the m old redundancy blocks ->
 *                 the m new redundancy blocks (an update matrix);
 *   - galois_mul: k blocks -> m blocks (any coding matrix).
 *
 * Legal call order:
 * @code
 *   doca_ec_cap_task_create_is_supported(devinfo)        // pick a device
 *   doca_ec_create(dev, &ec); ctx = doca_ec_as_ctx(ec);
 *   doca_ec_task_create_set_conf(ec, ok_cb, err_cb, n);  // and/or recover, update, galois_mul
 *   doca_pe_connect_ctx(pe, ctx); doca_ctx_start(ctx);
 *   doca_ec_matrix_create(ec, DOCA_EC_MATRIX_TYPE_CAUCHY, k, m, &coding);
 *   doca_ec_task_create_allocate_init(ec, coding, data, rdnc, user_data, &task);
 *   doca_task_submit(doca_ec_task_create_as_task(task));
 *   ... doca_pe_progress(pe) runs ok_cb or err_cb; the callback frees or resubmits ...
 *   doca_ec_matrix_destroy(coding); doca_ctx_stop(ctx); doca_ec_destroy(ec);
 * @endcode
 *
 * Buffers: a task's source is a doca_buf (or list) whose data segments, in order, hold its
 * input blocks back to back; the block size is the source's data length divided by the
 * matrix's input count. It must be a multiple of 64 bytes, at least 64 and at most
 * doca_ec_cap_get_max_block_size(). The output blocks are written after the destination's
 * data (at data + data_len, element by element for a list), whose data length grows by what
 * was written; its free space must hold them all.
 *
 * doca_task_submit() of an erasure coding task returns, besides the generic errors:
 * DOCA_ERROR_INVALID_VALUE (no matrix or a destroyed one, a matrix of another context, no
 * source or destination, a buf released to its inventory, a list longer than
 * doca_ec_cap_get_max_buf_list_len()); DOCA_ERROR_NOT_PERMITTED (a buf whose mmap the
 * context's device was not added to, or a destination without local write access);
 * DOCA_ERROR_BAD_STATE (a buf whose thread-safe mmap was stopped under it);
 * DOCA_ERROR_NOT_SUPPORTED (memory of an mmap created from an export). A task whose sizes do
 * not fit its matrix (source length not k whole blocks, a block size not a multiple of 64,
 * below 64 or above the maximum, a destination with too little room, output blocks that would
 * overlap the source) is accepted and
 * completes through its error callback with status DOCA_ERROR_INVALID_VALUE
 * (doca_task_get_status()); nothing is written then. The error callback also reports
 * DOCA_ERROR_IO_FAILED (a block's memory unmapped or protected by the program after
 * doca_mmap_start; the destination's data_len is unchanged) and DOCA_ERROR_NO_MEMORY (no
 * memory to stage blocks that straddle two elements of a buffer list).
 */
#ifndef DOCA_ERASURE_CODING_H_
#define DOCA_ERASURE_CODING_H_

#include <inttypes.h>
#include <stddef.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_ctx;
struct doca_dev;
struct doca_devinfo;
struct doca_task;

/** An erasure coding context. */
struct doca_ec;
/** A coding, recover or update matrix, made by one context. */
struct doca_ec_matrix;
/** A Galois multiplication task: dst blocks = matrix x src blocks. */
struct doca_ec_task_galois_mul;
/** An encode task: redundancy blocks from data blocks. */
struct doca_ec_task_create;
/** A task that refreshes redundancy blocks after some data blocks changed. */
struct doca_ec_task_update;
/** A decode task: lost blocks from the available ones. */
struct doca_ec_task_recover;

/** How doca_ec_matrix_create() builds a coding matrix (GF(2^8), polynomial 0x11d). */
enum doca_ec_matrix_type {
	/**
	 * Cauchy: the coefficient of data block i in redundancy block j is 1 / (i XOR (k + j)).
	 * Every square submatrix is invertible: any m lost blocks can be recovered.
	 */
	DOCA_EC_MATRIX_TYPE_CAUCHY = 1,
	/**
	 * Vandermonde: the coefficient of data block i in redundancy block j is (i + 1)^j.
	 * Some sets of lost blocks give a singular system (doca_ec_matrix_create_recover() then
	 * refuses them); prefer Cauchy.
	 */
	DOCA_EC_MATRIX_TYPE_VANDERMONDE = 2,
};

/** Completion callback of a Galois multiplication task (success and error alike). */
typedef void (*doca_ec_task_galois_mul_completion_cb_t)(struct doca_ec_task_galois_mul *task,
                                                        union doca_data task_user_data,
                                                        union doca_data ctx_user_data);
/** Completion callback of a create task (success and error alike). */
typedef void (*doca_ec_task_create_completion_cb_t)(struct doca_ec_task_create *task,
                                                    union doca_data task_user_data,
                                                    union doca_data ctx_user_data);
/** Completion callback of an update task (success and error alike). */
typedef void (*doca_ec_task_update_completion_cb_t)(struct doca_ec_task_update *task,
                                                    union doca_data task_user_data,
                                                    union doca_data ctx_user_data);
/** Completion callback of a recover task (success and error alike). */
typedef void (*doca_ec_task_recover_completion_cb_t)(struct doca_ec_task_recover *task,
                                                     union doca_data task_user_data,
                                                     union doca_data ctx_user_data);

/* ------------------------------------------------------------------------ context */

/**
 * @brief Creates an erasure coding context on a device.
 * @param [in] dev  an open device.
 * @param [out] ec  the new context (untouched on failure).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, or dev is not an open device);
 *         DOCA_ERROR_NOT_SUPPORTED (the device has no erasure coding: ec=no in its profile);
 *         DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_ec_create(struct doca_dev *dev, struct doca_ec **ec);

/**
 * @brief Destroys an IDLE context. Its matrices must be destroyed first.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL);
 *         DOCA_ERROR_BAD_STATE (RUNNING: stop it first);
 *         DOCA_ERROR_IN_USE (STOPPING: progress until IDLE first; matrices of this context
 *         are alive; or a context node of a graph names it).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_ec_destroy(struct doca_ec *ec);

/** @brief The generic context of an erasure coding context (NULL for NULL). */
DOCA_EXPERIMENTAL
struct doca_ctx *doca_ec_as_ctx(struct doca_ec *ec);

/**
 * @brief The largest block size (bytes) of any erasure coding task on the device.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL);
 *         DOCA_ERROR_NOT_SUPPORTED (the device has no erasure coding).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_ec_cap_get_max_block_size(const struct doca_devinfo *devinfo,
                                            uint64_t *max_block_size);

/**
 * @brief The longest buffer list (source or destination) of one task; 1 = no lists.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL);
 *         DOCA_ERROR_NOT_SUPPORTED (the device has no erasure coding).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_ec_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
                                              uint32_t *max_buf_list_len);

/* ------------------------------------------------------------------------ matrices */

/**
 * @brief Builds the coding matrix of @p type for k = @p data_block_count data blocks and
 *        m = @p rdnc_block_count redundancy blocks, in any state of the context (as every
 *        doca_ec_matrix_create* call); doca_ec_destroy refuses while it lives.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, an unknown type, k outside 1..128,
 *         m outside 1..32); DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_ec_matrix_create(struct doca_ec *ec, enum doca_ec_matrix_type type,
                                   size_t data_block_count, size_t rdnc_block_count,
                                   struct doca_ec_matrix **matrix);

/**
 * @brief Makes a coding matrix from its k x m coefficients, row by row: @p data[i * m + j]
 *        is the coefficient of data block i in redundancy block j.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, k outside 1..128, m outside
 *         1..32); DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_ec_matrix_create_from_raw(struct doca_ec *ec, uint8_t *data,
                                            size_t data_block_count, size_t rdnc_block_count,
                                            struct doca_ec_matrix **matrix);

/**
 * @brief Builds the update matrix of a coding matrix for the data blocks @p update_indices
 *        (ascending, each below k). An update task with it takes, for each of these blocks
 *        in order, its old then its new content, then the m old redundancy blocks, and
 *        writes the m new redundancy blocks.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, @p coding_matrix is not a coding
 *         matrix of this context, @p n_updates outside 1..k, an index not below k, or
 *         indices not strictly ascending); DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_ec_matrix_create_update(struct doca_ec *ec,
                                          const struct doca_ec_matrix *coding_matrix,
                                          uint32_t update_indices[], size_t n_updates,
                                          struct doca_ec_matrix **matrix);

/**
 * @brief Builds the recover matrix of a coding matrix for the lost blocks
 *        @p missing_indices (ascending; data blocks are 0..k-1, redundancy blocks k..k+m-1).
 *        A recover task with it takes the first k blocks that are not lost, in index order,
 *        and writes the lost blocks in the order of @p missing_indices.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, @p coding_matrix is not a coding
 *         matrix of this context, @p n_missing outside 1..m, an index not below k + m,
 *         indices not strictly ascending, or a singular system (possible with Vandermonde));
 *         DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_ec_matrix_create_recover(struct doca_ec *ec,
                                           const struct doca_ec_matrix *coding_matrix,
                                           uint32_t missing_indices[], size_t n_missing,
                                           struct doca_ec_matrix **matrix);

/**
 * @brief Destroys a matrix. Tasks that name it must not be submitted afterwards.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, or not a live matrix: destroyed
 *         already, or never made by a doca_ec_matrix_create* call).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_ec_matrix_destroy(struct doca_ec_matrix *matrix);

/* ------------------------------------------------------------------------ galois_mul */

/**
 * @brief Whether the device runs Galois multiplication tasks.
 * @return DOCA_SUCCESS (supported); DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_ec_cap_task_galois_mul_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Enables Galois multiplication tasks: callbacks and the number of tasks.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL ec or callback, zero tasks or more
 *         than the device's task pool); DOCA_ERROR_BAD_STATE (the context is not IDLE);
 *         DOCA_ERROR_NOT_SUPPORTED (the device has no erasure coding).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_ec_task_galois_mul_set_conf(
        struct doca_ec *ec, doca_ec_task_galois_mul_completion_cb_t successful_task_completion_cb,
        doca_ec_task_galois_mul_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/**
 * @brief Takes a Galois multiplication task from the pool: @p dst_buf receives m blocks,
 *        block j = sum over i of coefficient(i, j) x block i of @p src_buf.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL ec, task or matrix, or a matrix of
 *         another context); DOCA_ERROR_BAD_STATE (the context is not RUNNING);
 *         DOCA_ERROR_NO_MEMORY (all configured tasks of this type are allocated, or the type
 *         was not configured).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_ec_task_galois_mul_allocate_init(struct doca_ec *ec,
                                                   const struct doca_ec_matrix *coding_matrix,
                                                   const struct doca_buf *src_buf,
                                                   struct doca_buf *dst_buf,
                                                   union doca_data user_data,
                                                   struct doca_ec_task_galois_mul **task);

/** @brief The generic task of a Galois multiplication task (NULL for NULL). */
DOCA_EXPERIMENTAL
struct doca_task *doca_ec_task_galois_mul_as_task(struct doca_ec_task_galois_mul *task);
/** @brief Replaces the matrix of a task that is not in flight. */
DOCA_EXPERIMENTAL
void doca_ec_task_galois_mul_set_coding_matrix(struct doca_ec_task_galois_mul *task,
                                               const struct doca_ec_matrix *coding_matrix);
/** @brief The task's matrix (NULL for NULL). */
DOCA_EXPERIMENTAL
const struct doca_ec_matrix *
doca_ec_task_galois_mul_get_coding_matrix(const struct doca_ec_task_galois_mul *task);
/** @brief Replaces the source of a task that is not in flight. */
DOCA_EXPERIMENTAL
void doca_ec_task_galois_mul_set_src_buf(struct doca_ec_task_galois_mul *task,
                                         const struct doca_buf *src_buf);
/** @brief The task's source (NULL for NULL). */
DOCA_EXPERIMENTAL
const struct doca_buf *
doca_ec_task_galois_mul_get_src_buf(const struct doca_ec_task_galois_mul *task);
/** @brief Replaces the destination of a task that is not in flight. */
DOCA_EXPERIMENTAL
void doca_ec_task_galois_mul_set_dst_buf(struct doca_ec_task_galois_mul *task,
                                         struct doca_buf *dst_buf);
/** @brief The task's destination (NULL for NULL). */
DOCA_EXPERIMENTAL
struct doca_buf *doca_ec_task_galois_mul_get_dst_buf(const struct doca_ec_task_galois_mul *task);

/* ------------------------------------------------------------------------ create */

/**
 * @brief Whether the device runs create (encode) tasks.
 * @return DOCA_SUCCESS (supported); DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_ec_cap_task_create_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Enables create tasks: callbacks and the number of tasks.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL ec or callback, zero tasks or more
 *         than the device's task pool); DOCA_ERROR_BAD_STATE (the context is not IDLE);
 *         DOCA_ERROR_NOT_SUPPORTED (the device has no erasure coding).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_ec_task_create_set_conf(
        struct doca_ec *ec, doca_ec_task_create_completion_cb_t successful_task_completion_cb,
        doca_ec_task_create_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/**
 * @brief Takes a create task from the pool: @p rdnc_blocks receives the m redundancy blocks
 *        of the k data blocks in @p original_data_blocks.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL ec, task or matrix, or a matrix of
 *         another context); DOCA_ERROR_BAD_STATE (the context is not RUNNING);
 *         DOCA_ERROR_NO_MEMORY (all configured tasks of this type are allocated, or the type
 *         was not configured).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_ec_task_create_allocate_init(struct doca_ec *ec,
                                               const struct doca_ec_matrix *coding_matrix,
                                               const struct doca_buf *original_data_blocks,
                                               struct doca_buf *rdnc_blocks,
                                               union doca_data user_data,
                                               struct doca_ec_task_create **task);

/** @brief The generic task of a create task (NULL for NULL). */
DOCA_EXPERIMENTAL
struct doca_task *doca_ec_task_create_as_task(struct doca_ec_task_create *task);
/** @brief Replaces the matrix of a task that is not in flight. */
DOCA_EXPERIMENTAL
void doca_ec_task_create_set_coding_matrix(struct doca_ec_task_create *task,
                                           const struct doca_ec_matrix *coding_matrix);
/** @brief The task's matrix (NULL for NULL). */
DOCA_EXPERIMENTAL
const struct doca_ec_matrix *
doca_ec_task_create_get_coding_matrix(const struct doca_ec_task_create *task);
/** @brief Replaces the data blocks of a task that is not in flight. */
DOCA_EXPERIMENTAL
void doca_ec_task_create_set_original_data_blocks(struct doca_ec_task_create *task,
                                                  const struct doca_buf *original_data_blocks);
/** @brief The task's data blocks (NULL for NULL). */
DOCA_EXPERIMENTAL
const struct doca_buf *
doca_ec_task_create_get_original_data_blocks(const struct doca_ec_task_create *task);
/** @brief Replaces the redundancy destination of a task that is not in flight. */
DOCA_EXPERIMENTAL
void doca_ec_task_create_set_rdnc_blocks(struct doca_ec_task_create *task,
                                         struct doca_buf *rdnc_blocks);
/** @brief The task's redundancy destination (NULL for NULL). */
DOCA_EXPERIMENTAL
struct doca_buf *doca_ec_task_create_get_rdnc_blocks(const struct doca_ec_task_create *task);

/* ------------------------------------------------------------------------ update */

/**
 * @brief Whether the device runs update tasks.
 * @return DOCA_SUCCESS (supported); DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_ec_cap_task_update_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Enables update tasks: callbacks and the number of tasks.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL ec or callback, zero tasks or more
 *         than the device's task pool); DOCA_ERROR_BAD_STATE (the context is not IDLE);
 *         DOCA_ERROR_NOT_SUPPORTED (the device has no erasure coding).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_ec_task_update_set_conf(
        struct doca_ec *ec, doca_ec_task_update_completion_cb_t successful_task_completion_cb,
        doca_ec_task_update_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/**
 * @brief Takes an update task from the pool (see doca_ec_matrix_create_update() for the
 *        order of the source blocks).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL ec, task or matrix, or a matrix of
 *         another context); DOCA_ERROR_BAD_STATE (the context is not RUNNING);
 *         DOCA_ERROR_NO_MEMORY (all configured tasks of this type are allocated, or the type
 *         was not configured).
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_ec_task_update_allocate_init(struct doca_ec *ec, const struct doca_ec_matrix *update_matrix,
                                  const struct doca_buf *original_updated_and_rdnc_blocks,
                                  struct doca_buf *updated_rdnc_blocks, union doca_data user_data,
                                  struct doca_ec_task_update **task);

/** @brief The generic task of an update task (NULL for NULL). */
DOCA_EXPERIMENTAL
struct doca_task *doca_ec_task_update_as_task(struct doca_ec_task_update *task);
/** @brief Replaces the matrix of a task that is not in flight. */
DOCA_EXPERIMENTAL
void doca_ec_task_update_set_update_matrix(struct doca_ec_task_update *task,
                                           const struct doca_ec_matrix *update_matrix);
/** @brief The task's matrix (NULL for NULL). */
DOCA_EXPERIMENTAL
const struct doca_ec_matrix *
doca_ec_task_update_get_update_matrix(const struct doca_ec_task_update *task);
/** @brief Replaces the source of a task that is not in flight. */
DOCA_EXPERIMENTAL
void doca_ec_task_update_set_original_updated_and_rdnc_blocks(
        struct doca_ec_task_update *task, const struct doca_buf *original_updated_and_rdnc_blocks);
/** @brief The task's source (NULL for NULL). */
DOCA_EXPERIMENTAL
const struct doca_buf *
doca_ec_task_update_get_original_updated_and_rdnc_blocks(const struct doca_ec_task_update *task);
/** @brief Replaces the destination of a task that is not in flight. */
DOCA_EXPERIMENTAL
void doca_ec_task_update_set_updated_rdnc_blocks(struct doca_ec_task_update *task,
                                                 struct doca_buf *updated_rdnc_blocks);
/** @brief The task's destination (NULL for NULL). */
DOCA_EXPERIMENTAL
struct doca_buf *
doca_ec_task_update_get_updated_rdnc_blocks(const struct doca_ec_task_update *task);

/* ------------------------------------------------------------------------ recover */

/**
 * @brief Whether the device runs recover (decode) tasks.
 * @return DOCA_SUCCESS (supported); DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_ec_cap_task_recover_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Enables recover tasks: callbacks and the number of tasks.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL ec or callback, zero tasks or more
 *         than the device's task pool); DOCA_ERROR_BAD_STATE (the context is not IDLE);
 *         DOCA_ERROR_NOT_SUPPORTED (the device has no erasure coding).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_ec_task_recover_set_conf(
        struct doca_ec *ec, doca_ec_task_recover_completion_cb_t successful_task_completion_cb,
        doca_ec_task_recover_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/**
 * @brief Takes a recover task from the pool (see doca_ec_matrix_create_recover() for which
 *        blocks go in and come out).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL ec, task or matrix, or a matrix of
 *         another context); DOCA_ERROR_BAD_STATE (the context is not RUNNING);
 *         DOCA_ERROR_NO_MEMORY (all configured tasks of this type are allocated, or the type
 *         was not configured).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_ec_task_recover_allocate_init(struct doca_ec *ec,
                                                const struct doca_ec_matrix *recover_matrix,
                                                const struct doca_buf *available_blocks,
                                                struct doca_buf *recovered_data_blocks,
                                                union doca_data user_data,
                                                struct doca_ec_task_recover **task);

/** @brief The generic task of a recover task (NULL for NULL). */
DOCA_EXPERIMENTAL
struct doca_task *doca_ec_task_recover_as_task(struct doca_ec_task_recover *task);
/** @brief Replaces the matrix of a task that is not in flight. */
DOCA_EXPERIMENTAL
void doca_ec_task_recover_set_recover_matrix(struct doca_ec_task_recover *task,
                                             const struct doca_ec_matrix *recover_matrix);
/** @brief The task's matrix (NULL for NULL). */
DOCA_EXPERIMENTAL
const struct doca_ec_matrix *
doca_ec_task_recover_get_recover_matrix(const struct doca_ec_task_recover *task);
/** @brief Replaces the source of a task that is not in flight. */
DOCA_EXPERIMENTAL
void doca_ec_task_recover_set_available_blocks(struct doca_ec_task_recover *task,
                                               const struct doca_buf *available_blocks);
/** @brief The task's source (NULL for NULL). */
DOCA_EXPERIMENTAL
const struct doca_buf *
doca_ec_task_recover_get_available_blocks(const struct doca_ec_task_recover *task);
/** @brief Replaces the destination of a task that is not in flight. */
DOCA_EXPERIMENTAL
void doca_ec_task_recover_set_recovered_data_blocks(struct doca_ec_task_recover *task,
                                                    struct doca_buf *recovered_data_blocks);
/** @brief The task's destination (NULL for NULL). */
DOCA_EXPERIMENTAL
struct doca_buf *doca_ec_task_recover_get_recovered_data(const struct doca_ec_task_recover *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_ERASURE_CODING_H_ */
