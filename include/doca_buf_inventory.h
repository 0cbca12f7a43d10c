/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/**
 * @file doca_buf_inventory.h
 * @brief Buffer inventories: fixed pools of doca_buf objects.
 *
 * An inventory owns a fixed number of buf objects, allocated when it is created
 * (and grown only by doca_buf_inventory_expand). Taking a buf binds it to a
 * window of a started mmap; releasing its last reference returns it.
 *
 * @code
 *   doca_buf_inventory ──(buf_get_by_*)──► doca_buf ──► window of a doca_mmap
 *          ▲                                   │
 *          └────────(dec_refcount to 0)────────┘
 * @endcode
 *
 * Legal call order:
 *
 *   doca_buf_inventory_create(n) → set_user_data → doca_buf_inventory_start
 *   → buf_get_by_args / _by_addr / _by_data / buf_dup, expand ... (mmap started)
 *   → doca_buf_dec_refcount on every buf
 *   → doca_buf_inventory_stop (optional) → doca_buf_inventory_destroy.
 *
 * Getting a buf never allocates memory. An inventory is not thread-safe: use one
 * per thread, unless it serves an mmap made thread-safe with
 * doca_mmap_enable_thread_safety() (then threads may share it).
 */
#ifndef DOCA_BUF_INVENTORY_H_
#define DOCA_BUF_INVENTORY_H_

#include <stddef.h>
#include <stdint.h>
#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_buf_inventory;
struct doca_mmap;

/**
 * Creates an unstarted inventory holding @p num_elements bufs.
 *
 * @param [in]  num_elements number of bufs, 1 to UINT32_MAX.
 * @param [out] inventory    the new inventory; untouched on failure.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if @p inventory is NULL or @p num_elements is 0
 *         or above UINT32_MAX;
 *         DOCA_ERROR_NO_MEMORY if the bufs cannot be allocated.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_create(size_t num_elements,
                                                   struct doca_buf_inventory **inventory);

/**
 * Destroys an inventory, stopping it first if it is started.
 *
 * @param [in] inventory the inventory.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if @p inventory is NULL;
 *         DOCA_ERROR_IN_USE if some of its bufs are still held (release them with
 *         doca_buf_dec_refcount first); the inventory is left as it was.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_destroy(struct doca_buf_inventory *inventory);

/**
 * Starts an inventory: bufs may be taken from it.
 *
 * @param [in] inventory the inventory.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if @p inventory is NULL;
 *         DOCA_ERROR_BAD_STATE if it is already started.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_start(struct doca_buf_inventory *inventory);

/**
 * Stops an inventory. It may be started again.
 *
 * @param [in] inventory the inventory.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if @p inventory is NULL;
 *         DOCA_ERROR_BAD_STATE if it is not started;
 *         DOCA_ERROR_IN_USE if some of its bufs are still held.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_stop(struct doca_buf_inventory *inventory);

/**
 * Takes a buf whose window is [addr, addr + len) and whose data segment is
 * [data, data + data_len). The buf starts with reference count 1 and counts
 * against @p mmap until released.
 *
 * odma requires the data segment to lie inside the window (hardware leaves a
 * segment outside it undefined) and the window to be non-empty.
 *
 * @param [in]  inventory a started inventory.
 * @param [in]  mmap      a started mmap (or one created from an export).
 * @param [in]  addr      start of the window, inside the mmap's range.
 * @param [in]  len       window length, above 0.
 * @param [in]  data      start of the data segment.
 * @param [in]  data_len  length of the data segment.
 * @param [out] buf       the buf; untouched on failure.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if a pointer argument is NULL, @p len is 0, the
 *         window is not inside the mmap's range, or the data segment is not inside
 *         the window;
 *         DOCA_ERROR_BAD_STATE if the inventory or the mmap is not started;
 *         DOCA_ERROR_NO_MEMORY if the inventory has no free buf.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_buf_get_by_args(struct doca_buf_inventory *inventory,
                                                            struct doca_mmap *mmap, void *addr,
                                                            size_t len, void *data, size_t data_len,
                                                            struct doca_buf **buf);

/**
 * Takes an empty buf (data = addr, data_len = 0) over [addr, addr + len): the
 * usual DMA destination. Same rules and return codes as
 * doca_buf_inventory_buf_get_by_args().
 *
 * @param [in]  inventory a started inventory.
 * @param [in]  mmap      a started mmap.
 * @param [in]  addr      start of the window.
 * @param [in]  len       window length.
 * @param [out] buf       the buf.
 * @return see doca_buf_inventory_buf_get_by_args().
 */
static inline doca_error_t doca_buf_inventory_buf_get_by_addr(struct doca_buf_inventory *inventory,
                                                              struct doca_mmap *mmap, void *addr,
                                                              size_t len, struct doca_buf **buf)
{
	return doca_buf_inventory_buf_get_by_args(inventory, mmap, addr, len, addr, 0, buf);
}

/**
 * Takes a full buf (data_len = len) over [data, data + data_len): the usual DMA
 * source. Same rules and return codes as doca_buf_inventory_buf_get_by_args().
 *
 * @param [in]  inventory a started inventory.
 * @param [in]  mmap      a started mmap.
 * @param [in]  data      start of the window and of the data.
 * @param [in]  data_len  length of both.
 * @param [out] buf       the buf.
 * @return see doca_buf_inventory_buf_get_by_args().
 */
static inline doca_error_t doca_buf_inventory_buf_get_by_data(struct doca_buf_inventory *inventory,
                                                              struct doca_mmap *mmap, void *data,
                                                              size_t data_len,
                                                              struct doca_buf **buf)
{
	return doca_buf_inventory_buf_get_by_args(inventory, mmap, data, data_len, data, data_len,
	                                          buf);
}

/**
 * Re-points a buf that the caller holds at another window of the same mmap, without
 * taking a new buf: the window becomes [addr, addr + len) and the data segment
 * [data, data + data_len). The buf keeps its inventory, its mmap and its reference
 * count. Meant for bufs that a task owns between two submits (set before resubmitting
 * the task; never while the task is in flight).
 *
 * @param [in] buf      a buf you hold; a list's head or element is re-pointed in place
 *                      (the list stays as it is).
 * @param [in] addr     start of the new window, inside the buf's mmap.
 * @param [in] len      window length, above 0.
 * @param [in] data     start of the data segment.
 * @param [in] data_len length of the data segment.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if a pointer argument is NULL, @p len is 0, the
 *         window is not inside the buf's mmap, or the data segment is not inside the
 *         window;
 *         DOCA_ERROR_BAD_STATE if @p buf was already released to its inventory.
 */
DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_buf_reuse_by_args(struct doca_buf *buf,
                                                                    void *addr, size_t len,
                                                                    void *data, size_t data_len);

/**
 * Re-points a buf as an empty buf (data = addr, data_len = 0) over [addr, addr + len):
 * the usual DMA destination. Same rules and return codes as
 * doca_buf_inventory_buf_reuse_by_args().
 *
 * @param [in] buf  a buf you hold that is not part of a list.
 * @param [in] addr start of the new window, inside the buf's mmap.
 * @param [in] len  window length.
 * @return see doca_buf_inventory_buf_reuse_by_args().
 */
/*
 * The two wrappers below call an experimental function; they warn where a program calls
 * them (unless DOCA_ALLOW_EXPERIMENTAL_API is defined), never where the header is read.
 */
#if !defined(DOCA_ALLOW_EXPERIMENTAL_API) && (defined(__GNUC__) || defined(__clang__))
#define ODMA_EXPERIMENTAL_INLINE __attribute__((deprecated("Symbol is defined as experimental")))
#else
#define ODMA_EXPERIMENTAL_INLINE
#endif
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

ODMA_EXPERIMENTAL_INLINE static inline doca_error_t doca_buf_inventory_buf_reuse_by_addr(struct doca_buf *buf, void *addr,
                                                                size_t len)
{
	return doca_buf_inventory_buf_reuse_by_args(buf, addr, len, addr, 0);
}

/**
 * Re-points a buf as a full buf (data_len = len) over [data, data + data_len): the usual
 * DMA source. Same rules and return codes as doca_buf_inventory_buf_reuse_by_args().
 *
 * @param [in] buf      a buf you hold that is not part of a list.
 * @param [in] data     start of the new window and of the data, inside the buf's mmap.
 * @param [in] data_len length of both.
 * @return see doca_buf_inventory_buf_reuse_by_args().
 */
ODMA_EXPERIMENTAL_INLINE static inline doca_error_t doca_buf_inventory_buf_reuse_by_data(struct doca_buf *buf, void *data,
                                                                size_t data_len)
{
	return doca_buf_inventory_buf_reuse_by_args(buf, data, data_len, data, data_len);
}

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif
#undef ODMA_EXPERIMENTAL_INLINE

/**
 * Duplicates a buf, or a whole list when @p src_buf is a list head: every element
 * gets a new buf from @p inventory with the same window and data segment, chained
 * in the same order. The copy starts with reference count 1; it shares memory, not
 * bytes, with the original.
 *
 * @param [in]  inventory a started inventory with enough free bufs for the list.
 * @param [in]  src_buf   a buf that is the head of its list.
 * @param [out] dst_buf   head of the copy; untouched on failure.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if an argument is NULL;
 *         DOCA_ERROR_BAD_STATE if the inventory, or the mmap of an element of the
 *         source, is not started, or @p src_buf was already released;
 *         DOCA_ERROR_NOT_PERMITTED if @p src_buf is a list element other than the head;
 *         DOCA_ERROR_NO_MEMORY if the inventory has fewer free bufs than the list
 *         has elements.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_buf_dup(struct doca_buf_inventory *inventory,
                                                    const struct doca_buf *src_buf,
                                                    struct doca_buf **dst_buf);

/**
 * Attaches a user value to the inventory.
 *
 * @param [in] inventory the unstarted inventory.
 * @param [in] user_data the value.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if @p inventory is NULL;
 *         DOCA_ERROR_BAD_STATE if the inventory is started.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_set_user_data(struct doca_buf_inventory *inventory,
                                                          union doca_data user_data);

/**
 * Reads the user value of the inventory (zero if never set).
 *
 * @param [in]  inventory the inventory.
 * @param [out] user_data the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_get_user_data(
        const struct doca_buf_inventory *inventory, union doca_data *user_data);

/**
 * Reads the total number of bufs of the inventory (including those added by
 * doca_buf_inventory_expand).
 *
 * @param [in]  inventory    the inventory.
 * @param [out] num_elements the total.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_get_num_elements(
        const struct doca_buf_inventory *inventory, uint32_t *num_elements);

/**
 * Reads how many bufs of the inventory are free.
 *
 * @param [in]  inventory        the inventory.
 * @param [out] num_free_elements the number of free bufs.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_get_num_free_elements(
        const struct doca_buf_inventory *inventory, uint32_t *num_free_elements);

/**
 * Adds @p num_elements free bufs to a started inventory.
 *
 * @param [in] inventory    a started inventory.
 * @param [in] num_elements number of bufs to add, above 0; the total must stay
 *                          at most UINT32_MAX.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if @p inventory is NULL, @p num_elements is 0,
 *         or the total would pass UINT32_MAX;
 *         DOCA_ERROR_BAD_STATE if the inventory is not started;
 *         DOCA_ERROR_NO_MEMORY if the bufs cannot be allocated.
 */
DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_expand(struct doca_buf_inventory *inventory,
                                                         uint32_t num_elements);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BUF_INVENTORY_H_ */
