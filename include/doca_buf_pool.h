/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/**
 * @file doca_buf_pool.h
 * @brief Buffer pools: fixed-size doca_bufs carved out of one mmap.
 *
 * A pool cuts the memory range of one mmap into @c num_elements slots of
 * @c element_size bytes and owns one doca_buf per slot. doca_buf_pool_buf_alloc()
 * hands a free slot's buf out as an empty buffer (head and data at the slot start,
 * len = element_size, data_len = 0) without any per-call work; the buf goes back to
 * the pool when its reference count drops to 0 (doca_buf_dec_refcount()).
 *
 * Slot layout: with an element alignment A (1 unless set), the stride between slots
 * is element_size rounded up to a multiple of A and the first slot starts at the
 * first address of the range that is a multiple of A; the range must hold that
 * offset plus num_elements strides.
 *
 * Legal call order:
 *
 *   doca_buf_pool_create(n, size, mmap) → set_element_alignment / set_user_data
 *   → doca_buf_pool_start (mmap started) → doca_buf_pool_buf_alloc ...
 *   → doca_buf_dec_refcount on every buf
 *   → doca_buf_pool_stop (optional; the setters work again) → doca_buf_pool_destroy.
 *
 * A pool is not thread-safe, like an inventory, unless its mmap was made thread-safe
 * (doca_mmap_enable_thread_safety()): then threads may take and return its bufs at once.
 */
#ifndef DOCA_BUF_POOL_H_
#define DOCA_BUF_POOL_H_

#include <stddef.h>
#include <stdint.h>
#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_buf_pool;
struct doca_mmap;

/**
 * Creates an unstarted pool of @p num_elements bufs of @p element_size bytes over the
 * memory range of @p mmap.
 *
 * @param [in]  num_elements number of slots, 1 to UINT32_MAX.
 * @param [in]  element_size bytes per slot, above 0.
 * @param [in]  mmap         an mmap whose memory range is set (it need not be started yet).
 * @param [out] buf_pool     the new pool; untouched on failure.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if a pointer is NULL, a count or size is 0 or out of
 *         range, or the mmap has no memory range;
 *         DOCA_ERROR_NO_MEMORY if the pool cannot be allocated (its bufs are made by the
 *         first doca_buf_pool_start(), once the slots fit the range).
 */
DOCA_STABLE doca_error_t doca_buf_pool_create(size_t num_elements, size_t element_size,
                                              const struct doca_mmap *mmap,
                                              struct doca_buf_pool **buf_pool);

/**
 * Destroys a pool (stopping it first when it is started).
 *
 * @param [in] buf_pool the pool; every buf it handed out must have been released.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if @p buf_pool is NULL;
 *         DOCA_ERROR_IN_USE if some of its bufs are still held (nothing changes).
 */
DOCA_STABLE doca_error_t doca_buf_pool_destroy(struct doca_buf_pool *buf_pool);

/**
 * Starts the pool: checks the layout against the mmap's range and makes every slot
 * free. The first start allocates one buf per slot, after the layout check, so a pool
 * that does not fit its range allocates nothing.
 *
 * @param [in] buf_pool an unstarted pool whose mmap is started (or created from an
 *             export).
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if @p buf_pool is NULL;
 *         DOCA_ERROR_BAD_STATE if the pool is already started or its mmap is not started;
 *         DOCA_ERROR_INITIALIZATION if the mmap's range is smaller than the slots need
 *         with the current element size, count and alignment;
 *         DOCA_ERROR_NO_MEMORY if the bufs of the slots cannot be allocated.
 */
DOCA_STABLE doca_error_t doca_buf_pool_start(struct doca_buf_pool *buf_pool);

/**
 * Stops the pool; its setters work again. Optional before doca_buf_pool_destroy().
 *
 * @param [in] buf_pool a started pool whose bufs were all released.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if @p buf_pool is NULL;
 *         DOCA_ERROR_BAD_STATE if the pool is not started;
 *         DOCA_ERROR_IN_USE if some of its bufs are still held.
 */
DOCA_STABLE doca_error_t doca_buf_pool_stop(struct doca_buf_pool *buf_pool);

/**
 * Hands out the buf of a free slot, empty: head = data = slot start, len =
 * element_size, data_len = 0, reference count 1. Release it with
 * doca_buf_dec_refcount(); there is no pool-specific free.
 *
 * @param [in]  buf_pool a started pool.
 * @param [out] buf      the buf; untouched on failure.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if an argument is NULL;
 *         DOCA_ERROR_BAD_STATE if the pool is not started, or its mmap was stopped;
 *         DOCA_ERROR_EMPTY if every slot is handed out (an inventory says NO_MEMORY
 *         in that case; a pool says EMPTY).
 */
DOCA_STABLE doca_error_t doca_buf_pool_buf_alloc(struct doca_buf_pool *buf_pool,
                                                 struct doca_buf **buf);

/**
 * Sets the pool's user data.
 *
 * @param [in] buf_pool  an unstarted pool.
 * @param [in] user_data the value doca_buf_pool_get_user_data() returns.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if @p buf_pool is NULL;
 *         DOCA_ERROR_BAD_STATE if the pool is started.
 */
DOCA_STABLE doca_error_t doca_buf_pool_set_user_data(struct doca_buf_pool *buf_pool,
                                                     union doca_data user_data);

/**
 * Sets the alignment of every slot (see the layout in the file comment).
 *
 * @param [in] buf_pool          an unstarted pool.
 * @param [in] element_alignment a power of two, 1 or more.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if @p buf_pool is NULL or the alignment is 0 or not a
 *         power of two;
 *         DOCA_ERROR_BAD_STATE if the pool is started.
 */
DOCA_STABLE doca_error_t doca_buf_pool_set_element_alignment(struct doca_buf_pool *buf_pool,
                                                             size_t element_alignment);

/**
 * Reads the number of slots given at creation.
 *
 * @param [in]  buf_pool        the pool.
 * @param [out] num_of_elements the count.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL.
 */
DOCA_STABLE doca_error_t doca_buf_pool_get_num_elements(const struct doca_buf_pool *buf_pool,
                                                        uint32_t *num_of_elements);

/**
 * Reads the number of slots not handed out (all of them while the pool is not started).
 *
 * @param [in]  buf_pool             the pool.
 * @param [out] num_of_free_elements the count.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL.
 */
DOCA_STABLE doca_error_t doca_buf_pool_get_num_free_elements(const struct doca_buf_pool *buf_pool,
                                                             uint32_t *num_of_free_elements);

/**
 * Reads the pool's user data (0 if never set).
 *
 * @param [in]  buf_pool  the pool.
 * @param [out] user_data the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL.
 */
DOCA_STABLE doca_error_t doca_buf_pool_get_user_data(const struct doca_buf_pool *buf_pool,
                                                     union doca_data *user_data);

/**
 * Reads the slot alignment (1 if never set).
 *
 * @param [in]  buf_pool          the pool.
 * @param [out] element_alignment the alignment.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL.
 */
DOCA_STABLE doca_error_t doca_buf_pool_get_element_alignment(const struct doca_buf_pool *buf_pool,
                                                             size_t *element_alignment);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BUF_POOL_H_ */
