/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/**
 * @file doca_buf.h
 * @brief Buffers: a window into an mmap with a data segment, chainable into lists.
 *
 * @code
 *   mmap range  [..........................................]
 *   buf window        head [...........................) head + len
 *   data segment             data [..........) data + data_len
 * @endcode
 *
 * A buf comes from an inventory (doca_buf_inventory_buf_get_by_args/_by_addr/
 * _by_data or doca_buf_inventory_buf_dup) with reference count 1, and goes back to
 * it when doca_buf_dec_refcount brings the count to 0.
 *
 * The data segment is what a DMA reads from a source buf; a DMA writes into a
 * destination buf after its data segment (from data + data_len up to the window's
 * end) and grows data_len.
 *
 * Bufs chain into lists (doca_buf_chain_list). The first element, the head, stands
 * for the whole list: only the head carries a meaningful reference count (every
 * other element reads 1) and releasing the head releases every element.
 *
 * @code
 *   head ──next──► elem ──next──► elem ──next──► NULL
 *   (refcount, list length, last element)
 * @endcode
 *
 * Bufs are not thread-safe: one thread at a time may use a given buf (and its list).
 *
 * odma is stricter than hardware in one place: a data segment that does not fit in
 * the window is refused with DOCA_ERROR_INVALID_VALUE (and one log line) where
 * hardware leaves the behaviour undefined.
 */
#ifndef DOCA_BUF_H_
#define DOCA_BUF_H_

#include <stddef.h>
#include <stdint.h>
#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;

/**
 * Takes one more reference on a buf (or, for a list head, on the whole list).
 *
 * @param [in]  buf      a buf that is the head of its list (a lone buf is a head).
 * @param [out] refcount the count before the increment; may be NULL.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if @p buf is NULL;
 *         DOCA_ERROR_BAD_STATE if @p buf was already released to its inventory;
 *         DOCA_ERROR_NOT_PERMITTED if @p buf is a list element other than the head;
 *         DOCA_ERROR_TOO_BIG if the count is already UINT16_MAX.
 */
DOCA_STABLE doca_error_t doca_buf_inc_refcount(struct doca_buf *buf, uint16_t *refcount);

/**
 * Drops one reference. At 0 the buf goes back to its inventory; for a list head,
 * every element of the list goes back to its own inventory. Each element also
 * stops counting against its mmap (doca_mmap_get_num_bufs).
 *
 * @param [in]  buf      a buf that is the head of its list.
 * @param [out] refcount the count after the decrement; may be NULL.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if @p buf is NULL;
 *         DOCA_ERROR_BAD_STATE if the count is already 0 (the buf was released);
 *         DOCA_ERROR_NOT_PERMITTED if @p buf is a list element other than the head.
 */
DOCA_STABLE doca_error_t doca_buf_dec_refcount(struct doca_buf *buf, uint16_t *refcount);

/**
 * Reads the reference count (1 for a list element other than the head; 0 for a
 * buf already released).
 *
 * @param [in]  buf      the buf.
 * @param [out] refcount the count.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL.
 */
DOCA_STABLE doca_error_t doca_buf_get_refcount(const struct doca_buf *buf, uint16_t *refcount);

/**
 * Reads the window length.
 *
 * @param [in]  buf the buf.
 * @param [out] len the length in bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL;
 *         DOCA_ERROR_BAD_STATE if @p buf was already released to its inventory
 *         (one log line names it).
 */
DOCA_STABLE doca_error_t doca_buf_get_len(const struct doca_buf *buf, size_t *len);

/**
 * Reads the start of the window. For a buf on an mmap created from an export this
 * is an address in the exporter's process.
 *
 * @param [in]  buf  the buf.
 * @param [out] head the start of the window.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL;
 *         DOCA_ERROR_BAD_STATE if @p buf was already released to its inventory
 *         (one log line names it).
 */
DOCA_STABLE doca_error_t doca_buf_get_head(const struct doca_buf *buf, void **head);

/**
 * Reads the length of the data segment.
 *
 * @param [in]  buf      the buf.
 * @param [out] data_len the length in bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL;
 *         DOCA_ERROR_BAD_STATE if @p buf was already released to its inventory
 *         (one log line names it).
 */
DOCA_STABLE doca_error_t doca_buf_get_data_len(const struct doca_buf *buf, size_t *data_len);

/**
 * Reads the start of the data segment.
 *
 * @param [in]  buf  the buf.
 * @param [out] data the start of the data segment.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL;
 *         DOCA_ERROR_BAD_STATE if @p buf was already released to its inventory
 *         (one log line names it).
 */
DOCA_STABLE doca_error_t doca_buf_get_data(const struct doca_buf *buf, void **data);

/**
 * Sets the data segment. It must lie inside the window: [data, data + data_len)
 * within [head, head + len). odma refuses a segment outside the window (hardware
 * leaves that undefined).
 *
 * @param [in] buf      the buf.
 * @param [in] data     the new start of the data segment.
 * @param [in] data_len the new length.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if @p buf is NULL or the segment does not fit
 *         in the window (the buf is left unchanged);
 *         DOCA_ERROR_BAD_STATE if @p buf was already released to its inventory
 *         (one log line names it).
 */
DOCA_STABLE doca_error_t doca_buf_set_data(struct doca_buf *buf, void *data, size_t data_len);

/**
 * Sets the length of the data segment, keeping its start.
 *
 * @param [in] buf      the buf.
 * @param [in] data_len the new length; data + data_len must not pass the window's end.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if @p buf is NULL or the segment would pass the
 *         end of the window (the buf is left unchanged);
 *         DOCA_ERROR_BAD_STATE if @p buf was already released to its inventory
 *         (one log line names it).
 */
DOCA_STABLE doca_error_t doca_buf_set_data_len(struct doca_buf *buf, size_t data_len);

/**
 * Empties the data segment (data_len = 0) and keeps its start, so the buf can be
 * a DMA destination again.
 *
 * @param [in] buf the buf.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if @p buf is NULL;
 *         DOCA_ERROR_BAD_STATE if @p buf was already released to its inventory
 *         (one log line names it).
 */
DOCA_STABLE doca_error_t doca_buf_reset_data_len(struct doca_buf *buf);

/**
 * Reads the element after @p buf in its list.
 *
 * @param [in]  buf      any list element.
 * @param [out] next_buf the next element, or NULL if @p buf is the last.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL.
 */
DOCA_STABLE doca_error_t doca_buf_get_next_in_list(struct doca_buf *buf,
                                                   struct doca_buf **next_buf);

/**
 * Reads the last element of the list @p buf belongs to (@p buf itself when it is
 * alone or last).
 *
 * @param [in]  buf      any list element.
 * @param [out] last_buf the last element.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL.
 */
DOCA_STABLE doca_error_t doca_buf_get_last_in_list(struct doca_buf *buf,
                                                   struct doca_buf **last_buf);

/**
 * Tells whether @p buf is the last element of its list (a lone buf is).
 *
 * @param [in]  buf     any list element.
 * @param [out] is_last 1 or 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL.
 */
DOCA_STABLE doca_error_t doca_buf_is_last_in_list(const struct doca_buf *buf, uint8_t *is_last);

/**
 * Tells whether @p buf is the head of its list (a lone buf is).
 *
 * @param [in]  buf      any list element.
 * @param [out] is_first 1 or 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL.
 */
DOCA_STABLE doca_error_t doca_buf_is_first_in_list(const struct doca_buf *buf, uint8_t *is_first);

/**
 * Tells whether @p buf is part of a list of two or more elements.
 *
 * @param [in]  buf        any list element.
 * @param [out] is_in_list 1 or 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL.
 */
DOCA_STABLE doca_error_t doca_buf_is_in_list(const struct doca_buf *buf, uint8_t *is_in_list);

/**
 * Reads the number of elements of a list.
 *
 * @param [in]  buf          the head of the list.
 * @param [out] num_elements the number of elements (1 for a lone buf).
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if an argument is NULL;
 *         DOCA_ERROR_NOT_PERMITTED if @p buf is not the head of its list.
 */
DOCA_STABLE doca_error_t doca_buf_get_list_len(const struct doca_buf *buf, uint32_t *num_elements);

/**
 * Appends list @p list2 at the end of list @p list1. Afterwards @p list1 stands
 * for the joined list and @p list2 is an ordinary element of it.
 *
 * @param [in] list1 head of the first list.
 * @param [in] list2 head of the list to append; its reference count must be 1.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if an argument is NULL, or both are the same list;
 *         DOCA_ERROR_BAD_STATE if either buf was already released;
 *         DOCA_ERROR_NOT_PERMITTED if either is not a list head, or @p list2 has a
 *         reference count other than 1.
 */
DOCA_STABLE doca_error_t doca_buf_chain_list(struct doca_buf *list1, struct doca_buf *list2);

/**
 * Appends list @p list2 after @p list1_tail, the last element of list @p list1:
 * the same as doca_buf_chain_list(), for callers that track the tail.
 *
 * @param [in] list1_head head of the first list.
 * @param [in] list1_tail last element of the first list.
 * @param [in] list2      head of the list to append; its reference count must be 1.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if an argument is NULL, both lists are the same,
 *         or @p list1_tail is not the last element of @p list1_head's list;
 *         DOCA_ERROR_BAD_STATE if a buf was already released;
 *         DOCA_ERROR_NOT_PERMITTED if @p list1_head or @p list2 is not a list head,
 *         or @p list2 has a reference count other than 1.
 */
DOCA_EXPERIMENTAL doca_error_t doca_buf_chain_list_tail(struct doca_buf *list1_head,
                                                        struct doca_buf *list1_tail,
                                                        struct doca_buf *list2);

/**
 * Splits list @p list1 before element @p list2: @p list1 keeps the elements before
 * it, and @p list2 becomes the head of a list of the remaining elements, with
 * reference count 1.
 *
 * @param [in] list1 head of the list.
 * @param [in] list2 an element of that list other than its head.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if an argument is NULL, or @p list2 is not an
 *         element of @p list1 after its head;
 *         DOCA_ERROR_BAD_STATE if @p list1 was already released;
 *         DOCA_ERROR_NOT_PERMITTED if @p list1 is not a list head.
 */
DOCA_STABLE doca_error_t doca_buf_unchain_list(struct doca_buf *list1, struct doca_buf *list2);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BUF_H_ */
