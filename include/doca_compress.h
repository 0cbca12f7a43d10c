/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */

/**
 * @file doca_compress.h
 * @brief DOCA Compress: a context whose tasks compress (deflate) and decompress (deflate,
 * LZ4 stream, LZ4 block) the data of one doca_buf into another.
 *
 * @code
 *   doca_compress_cap_task_decompress_deflate_is_supported(devinfo)   // pick a device
 *   doca_compress_create(dev, &c); ctx = doca_compress_as_ctx(c);
 *   doca_compress_task_decompress_deflate_set_conf(c, ok_cb, err_cb, num_tasks);
 *   doca_pe_connect_ctx(pe, ctx); doca_ctx_start(ctx);
 *   doca_compress_task_decompress_deflate_alloc_init(c, src, dst, user_data, &task);
 *   doca_task_submit(doca_compress_task_decompress_deflate_as_task(task));
 *   ... doca_pe_progress(pe) runs ok_cb or err_cb; the callback frees or resubmits ...
 *   doca_ctx_stop(ctx); doca_compress_destroy(c);
 * @endcode
 *
 * Formats: deflate is raw deflate (RFC 1951: no zlib or gzip header or trailer; a program
 * that wants a zlib stream adds the 2-byte header and the Adler-32 trailer itself). An LZ4
 * stream is the block sequence of an LZ4 frame: each block a 4-byte little-endian size word
 * (top bit set: the block is stored uncompressed), its bytes, and a 4-byte xxHash-32 of those
 * bytes when the frame has block checksums; without the frame header, the end mark and the
 * content checksum (an end mark, a zero size word, ends the stream early). An LZ4 block is
 * one raw LZ4 block, without a size word.
 *
 * Buffers: the source is the data segment of one doca_buf (data, data_len); the output is
 * written after the destination's data (data + data_len) and the destination's data_len grows
 * by the bytes written. Both buffers are single buffers (lists of one), at most the device's
 * max buf size of the task type, in memory of this process or of another process reached
 * through a PCI export (doca_mmap_create_from_export: the DPU side working on host memory), on
 * this machine or over the network.
 *
 * Checksums, valid after a successful completion: CRC-32 (the zlib / IEEE 802.3 CRC) and
 * Adler-32 of the uncompressed bytes (the source of a compress task, the output of a
 * decompress task); for the LZ4 tasks, the xxHash-32 (seed 0) of the output, byte-swapped:
 * the four bytes of an LZ4 frame's content checksum read as a big-endian number.
 *
 * Task outcomes: problems with the task's arguments are refused by doca_task_submit (the task
 * stays with the program): DOCA_ERROR_INVALID_VALUE (a NULL, released, empty or list buffer,
 * a source above the max buf size, a destination without write access, a source that
 * overlaps the destination's free space, where the output goes),
 * DOCA_ERROR_NOT_PERMITTED (a buffer's mmap was never given the context's device with
 * doca_mmap_add_dev), DOCA_ERROR_BAD_STATE (a buffer's thread-safe mmap was stopped under
 * it) or DOCA_ERROR_NOT_SUPPORTED (an mmap from an RDMA export).
 * Problems found while the data is processed complete the task through its error callback,
 * doca_task_get_status telling which: DOCA_ERROR_TOO_BIG (the output does not fit in the
 * destination's free space), DOCA_ERROR_IO_FAILED (the source is not valid compressed data:
 * corrupt, truncated, or a block checksum does not match; or the exporter of the memory is
 * gone, revoked its export or, over the network, did not answer within
 * ODMA_TRANSPORT_TIMEOUT_MS) or DOCA_ERROR_NO_MEMORY (no memory for the engine). A failed
 * task does not stop the context; the destination's data_len is unchanged and the bytes after
 * its data are undefined.
 */
#ifndef DOCA_COMPRESS_H_
#define DOCA_COMPRESS_H_

#include <inttypes.h>
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

/** A DOCA Compress context. */
struct doca_compress;

/**
 * @brief Creates a compress context on a device.
 * @param [in] dev  an open device.
 * @param [out] compress  the new context (untouched on failure).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, or not a device handle);
 *         DOCA_ERROR_NOT_SUPPORTED (the device runs no compress task type);
 *         DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_compress_create(struct doca_dev *dev, struct doca_compress **compress);

/**
 * @brief Destroys an IDLE compress context (and disconnects it from its PE).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL);
 *         DOCA_ERROR_BAD_STATE (RUNNING: stop it first);
 *         DOCA_ERROR_IN_USE (STOPPING: progress until IDLE first; or a context node of a
 *         graph: destroy the graph first).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_compress_destroy(struct doca_compress *compress);

/** @brief The generic context of a compress context (NULL for NULL). */
DOCA_EXPERIMENTAL
struct doca_ctx *doca_compress_as_ctx(struct doca_compress *compress);

/**
 * @brief The most tasks the context's task pools may hold together (the sum of the
 *        num_tasks of every set_conf).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_compress_cap_get_max_num_tasks(struct doca_compress *compress,
                                                 uint32_t *max_num_tasks);

/* ---------------------------------------------------------------- compress deflate task */

/** A compress deflate task: compresses its source into raw deflate. */
struct doca_compress_task_compress_deflate;

/** Completion callback of a compress deflate task (used for both success and error). */
typedef void (*doca_compress_task_compress_deflate_completion_cb_t)(
        struct doca_compress_task_compress_deflate *task, union doca_data task_user_data,
        union doca_data ctx_user_data);

/**
 * @brief Whether the device runs compress deflate tasks.
 * @return DOCA_SUCCESS (it does); DOCA_ERROR_NOT_SUPPORTED (it does not);
 *         DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_compress_cap_task_compress_deflate_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief The largest source or destination buffer of a compress deflate task, in bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL);
 *         DOCA_ERROR_NOT_SUPPORTED (the device does not run the task type).
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_compress_cap_task_compress_deflate_get_max_buf_size(const struct doca_devinfo *devinfo,
                                                         uint64_t *max_buffer_size);

/**
 * @brief The longest buf list a compress deflate task takes (1: single buffers only).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL);
 *         DOCA_ERROR_NOT_SUPPORTED (the device does not run the task type).
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_compress_cap_task_compress_deflate_get_max_buf_list_len(const struct doca_devinfo *devinfo,
                                                             uint32_t *max_buf_list_len);

/**
 * @brief Configures the compress deflate tasks of an IDLE context: its two callbacks and how many
 *        tasks of the type may be allocated at once.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL context or callback, num_tasks 0, or
 *         the pools together above doca_compress_cap_get_max_num_tasks);
 *         DOCA_ERROR_BAD_STATE (the context is not IDLE);
 *         DOCA_ERROR_NOT_SUPPORTED (the context's device does not run the task type).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_compress_task_compress_deflate_set_conf(
        struct doca_compress *compress,
        doca_compress_task_compress_deflate_completion_cb_t task_completion_cb,
        doca_compress_task_compress_deflate_completion_cb_t task_error_cb, uint32_t num_tasks);

/**
 * @brief Allocates a compress deflate task of a RUNNING context and sets its fields.
 * @param [in] src_buff  the source (may be NULL: set it before submitting).
 * @param [in] dst_buff  where the output goes (may be NULL: set it before submitting).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL context or task);
 *         DOCA_ERROR_BAD_STATE (the context is not RUNNING);
 *         DOCA_ERROR_NO_MEMORY (every task of the type is allocated, or the type was not
 *         configured).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_compress_task_compress_deflate_alloc_init(
        struct doca_compress *compress, struct doca_buf const *src_buff, struct doca_buf *dst_buff,
        union doca_data user_data, struct doca_compress_task_compress_deflate **task);

/** @brief The generic task of a compress deflate task (NULL for NULL). */
DOCA_EXPERIMENTAL
struct doca_task *
doca_compress_task_compress_deflate_as_task(struct doca_compress_task_compress_deflate *task);

/** @brief Sets the source (ignored, with one error line, while the task is in flight). */
DOCA_EXPERIMENTAL
void doca_compress_task_compress_deflate_set_src(struct doca_compress_task_compress_deflate *task,
                                                 struct doca_buf const *src_buff);

/** @brief The source (NULL for NULL). */
DOCA_EXPERIMENTAL
struct doca_buf const *
doca_compress_task_compress_deflate_get_src(const struct doca_compress_task_compress_deflate *task);

/** @brief Sets the destination (ignored, with one error line, while the task is in flight). */
DOCA_EXPERIMENTAL
void doca_compress_task_compress_deflate_set_dst(struct doca_compress_task_compress_deflate *task,
                                                 struct doca_buf *dst_buff);

/** @brief The destination (NULL for NULL). */
DOCA_EXPERIMENTAL
struct doca_buf *
doca_compress_task_compress_deflate_get_dst(const struct doca_compress_task_compress_deflate *task);

/**
 * @brief CRC-32 of the uncompressed bytes of the last successful run (0 before one, or for
 *        NULL).
 */
DOCA_EXPERIMENTAL
uint32_t doca_compress_task_compress_deflate_get_crc_cs(
        const struct doca_compress_task_compress_deflate *task);

/**
 * @brief Adler-32 of the uncompressed bytes of the last successful run (the value a zlib
 *        trailer carries; 0 before one, or for NULL).
 */
DOCA_EXPERIMENTAL
uint32_t doca_compress_task_compress_deflate_get_adler_cs(
        const struct doca_compress_task_compress_deflate *task);

/* ---------------------------------------------------------------- decompress deflate task */

/** A decompress deflate task: inflates a raw deflate source. */
struct doca_compress_task_decompress_deflate;

/** Completion callback of a decompress deflate task (used for both success and error). */
typedef void (*doca_compress_task_decompress_deflate_completion_cb_t)(
        struct doca_compress_task_decompress_deflate *task, union doca_data task_user_data,
        union doca_data ctx_user_data);

/**
 * @brief Whether the device runs decompress deflate tasks.
 * @return DOCA_SUCCESS (it does); DOCA_ERROR_NOT_SUPPORTED (it does not);
 *         DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_compress_cap_task_decompress_deflate_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief The largest source or destination buffer of a decompress deflate task, in bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL);
 *         DOCA_ERROR_NOT_SUPPORTED (the device does not run the task type).
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_compress_cap_task_decompress_deflate_get_max_buf_size(const struct doca_devinfo *devinfo,
                                                           uint64_t *max_buffer_size);

/**
 * @brief The longest buf list a decompress deflate task takes (1: single buffers only).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL);
 *         DOCA_ERROR_NOT_SUPPORTED (the device does not run the task type).
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_compress_cap_task_decompress_deflate_get_max_buf_list_len(const struct doca_devinfo *devinfo,
                                                               uint32_t *max_buf_list_len);

/**
 * @brief Configures the decompress deflate tasks of an IDLE context: its two callbacks and how many
 *        tasks of the type may be allocated at once.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL context or callback, num_tasks 0, or
 *         the pools together above doca_compress_cap_get_max_num_tasks);
 *         DOCA_ERROR_BAD_STATE (the context is not IDLE);
 *         DOCA_ERROR_NOT_SUPPORTED (the context's device does not run the task type).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_compress_task_decompress_deflate_set_conf(
        struct doca_compress *compress,
        doca_compress_task_decompress_deflate_completion_cb_t task_completion_cb,
        doca_compress_task_decompress_deflate_completion_cb_t task_error_cb, uint32_t num_tasks);

/**
 * @brief Allocates a decompress deflate task of a RUNNING context and sets its fields.
 * @param [in] src_buff  the source (may be NULL: set it before submitting).
 * @param [in] dst_buff  where the output goes (may be NULL: set it before submitting).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL context or task);
 *         DOCA_ERROR_BAD_STATE (the context is not RUNNING);
 *         DOCA_ERROR_NO_MEMORY (every task of the type is allocated, or the type was not
 *         configured).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_compress_task_decompress_deflate_alloc_init(
        struct doca_compress *compress, struct doca_buf const *src_buff, struct doca_buf *dst_buff,
        union doca_data user_data, struct doca_compress_task_decompress_deflate **task);

/** @brief The generic task of a decompress deflate task (NULL for NULL). */
DOCA_EXPERIMENTAL
struct doca_task *
doca_compress_task_decompress_deflate_as_task(struct doca_compress_task_decompress_deflate *task);

/** @brief Sets the source (ignored, with one error line, while the task is in flight). */
DOCA_EXPERIMENTAL
void doca_compress_task_decompress_deflate_set_src(
        struct doca_compress_task_decompress_deflate *task, struct doca_buf const *src_buff);

/** @brief The source (NULL for NULL). */
DOCA_EXPERIMENTAL
struct doca_buf const *doca_compress_task_decompress_deflate_get_src(
        const struct doca_compress_task_decompress_deflate *task);

/** @brief Sets the destination (ignored, with one error line, while the task is in flight). */
DOCA_EXPERIMENTAL
void doca_compress_task_decompress_deflate_set_dst(
        struct doca_compress_task_decompress_deflate *task, struct doca_buf *dst_buff);

/** @brief The destination (NULL for NULL). */
DOCA_EXPERIMENTAL
struct doca_buf *doca_compress_task_decompress_deflate_get_dst(
        const struct doca_compress_task_decompress_deflate *task);

/**
 * @brief CRC-32 of the uncompressed bytes of the last successful run (0 before one, or for
 *        NULL).
 */
DOCA_EXPERIMENTAL
uint32_t doca_compress_task_decompress_deflate_get_crc_cs(
        const struct doca_compress_task_decompress_deflate *task);

/**
 * @brief Adler-32 of the uncompressed bytes of the last successful run (the value a zlib
 *        trailer carries; 0 before one, or for NULL).
 */
DOCA_EXPERIMENTAL
uint32_t doca_compress_task_decompress_deflate_get_adler_cs(
        const struct doca_compress_task_decompress_deflate *task);

/* ---------------------------------------------------------------- decompress LZ4 stream task */

/** A decompress LZ4 stream task: decompresses the blocks of an LZ4 frame. */
struct doca_compress_task_decompress_lz4_stream;

/** Completion callback of a decompress LZ4 stream task (used for both success and error). */
typedef void (*doca_compress_task_decompress_lz4_stream_completion_cb_t)(
        struct doca_compress_task_decompress_lz4_stream *task, union doca_data task_user_data,
        union doca_data ctx_user_data);

/**
 * @brief Whether the device runs decompress LZ4 stream tasks.
 * @return DOCA_SUCCESS (it does); DOCA_ERROR_NOT_SUPPORTED (it does not);
 *         DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_compress_cap_task_decompress_lz4_stream_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief The largest source or destination buffer of a decompress LZ4 stream task, in bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL);
 *         DOCA_ERROR_NOT_SUPPORTED (the device does not run the task type).
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_compress_cap_task_decompress_lz4_stream_get_max_buf_size(const struct doca_devinfo *devinfo,
                                                              uint64_t *max_buffer_size);

/**
 * @brief The longest buf list a decompress LZ4 stream task takes (1: single buffers only).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL);
 *         DOCA_ERROR_NOT_SUPPORTED (the device does not run the task type).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_compress_cap_task_decompress_lz4_stream_get_max_buf_list_len(
        const struct doca_devinfo *devinfo, uint32_t *max_buf_list_len);

/**
 * @brief Configures the decompress LZ4 stream tasks of an IDLE context: its two callbacks and how
 * many tasks of the type may be allocated at once.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL context or callback, num_tasks 0, or
 *         the pools together above doca_compress_cap_get_max_num_tasks);
 *         DOCA_ERROR_BAD_STATE (the context is not IDLE);
 *         DOCA_ERROR_NOT_SUPPORTED (the context's device does not run the task type).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_compress_task_decompress_lz4_stream_set_conf(
        struct doca_compress *compress,
        doca_compress_task_decompress_lz4_stream_completion_cb_t task_completion_cb,
        doca_compress_task_decompress_lz4_stream_completion_cb_t task_error_cb, uint32_t num_tasks);

/**
 * @brief Allocates a decompress LZ4 stream task of a RUNNING context and sets its fields.
 * @param [in] has_block_checksum  non-zero: every block is followed by its xxHash-32, which
 *        the task checks (the frame descriptor's block checksum flag).
 * @param [in] are_blocks_independent  non-zero: no block refers to an earlier one (the frame
 *        descriptor's block independence flag); zero: a block may refer to the 64 KiB of output
 *        before it.
 * @param [in] src_buff  the compressed blocks (may be NULL: set it before submitting).
 * @param [in] dst_buff  where the output goes (may be NULL: set it before submitting).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL context or task);
 *         DOCA_ERROR_BAD_STATE (the context is not RUNNING);
 *         DOCA_ERROR_NO_MEMORY (every task of the type is allocated, or the type was not
 *         configured).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_compress_task_decompress_lz4_stream_alloc_init(
        struct doca_compress *compress, uint8_t has_block_checksum, uint8_t are_blocks_independent,
        struct doca_buf const *src_buff, struct doca_buf *dst_buff, union doca_data user_data,
        struct doca_compress_task_decompress_lz4_stream **task);

/** @brief The generic task of a decompress LZ4 stream task (NULL for NULL). */
DOCA_EXPERIMENTAL
struct doca_task *doca_compress_task_decompress_lz4_stream_as_task(
        struct doca_compress_task_decompress_lz4_stream *task);

/** @brief Sets whether blocks carry checksums (ignored, with one error line, while the task is in
 * flight). */
DOCA_EXPERIMENTAL
void doca_compress_task_decompress_lz4_stream_set_has_block_checksum(
        struct doca_compress_task_decompress_lz4_stream *task, uint8_t has_block_checksum);

/** @brief Whether blocks carry checksums (0 for NULL). */
DOCA_EXPERIMENTAL
uint8_t doca_compress_task_decompress_lz4_stream_get_has_block_checksum(
        const struct doca_compress_task_decompress_lz4_stream *task);

/** @brief Sets whether blocks are independent (ignored, with one error line, while the task is in
 * flight). */
DOCA_EXPERIMENTAL
void doca_compress_task_decompress_lz4_stream_set_are_blocks_independent(
        struct doca_compress_task_decompress_lz4_stream *task, uint8_t are_blocks_independent);

/** @brief Whether blocks are independent (0 for NULL). */
DOCA_EXPERIMENTAL
uint8_t doca_compress_task_decompress_lz4_stream_get_are_blocks_independent(
        const struct doca_compress_task_decompress_lz4_stream *task);

/** @brief Sets the source (ignored, with one error line, while the task is in flight). */
DOCA_EXPERIMENTAL
void doca_compress_task_decompress_lz4_stream_set_src(
        struct doca_compress_task_decompress_lz4_stream *task, struct doca_buf const *src_buff);

/** @brief The source (NULL for NULL). */
DOCA_EXPERIMENTAL
struct doca_buf const *doca_compress_task_decompress_lz4_stream_get_src(
        const struct doca_compress_task_decompress_lz4_stream *task);

/** @brief Sets the destination (ignored, with one error line, while the task is in flight). */
DOCA_EXPERIMENTAL
void doca_compress_task_decompress_lz4_stream_set_dst(
        struct doca_compress_task_decompress_lz4_stream *task, struct doca_buf *dst_buff);

/** @brief The destination (NULL for NULL). */
DOCA_EXPERIMENTAL
struct doca_buf *doca_compress_task_decompress_lz4_stream_get_dst(
        const struct doca_compress_task_decompress_lz4_stream *task);

/**
 * @brief CRC-32 of the uncompressed bytes of the last successful run (0 before one, or for
 *        NULL).
 */
DOCA_EXPERIMENTAL
uint32_t doca_compress_task_decompress_lz4_stream_get_crc_cs(
        const struct doca_compress_task_decompress_lz4_stream *task);

/**
 * @brief xxHash-32 of the output of the last successful run, byte-swapped (the bytes of an
 *        LZ4 frame's content checksum read big-endian; 0 before one, or for NULL).
 */
DOCA_EXPERIMENTAL
uint32_t doca_compress_task_decompress_lz4_stream_get_xxh_cs(
        const struct doca_compress_task_decompress_lz4_stream *task);

/* ---------------------------------------------------------------- decompress LZ4 block task */

/** A decompress LZ4 block task: decompresses one raw LZ4 block. */
struct doca_compress_task_decompress_lz4_block;

/** Completion callback of a decompress LZ4 block task (used for both success and error). */
typedef void (*doca_compress_task_decompress_lz4_block_completion_cb_t)(
        struct doca_compress_task_decompress_lz4_block *task, union doca_data task_user_data,
        union doca_data ctx_user_data);

/**
 * @brief Whether the device runs decompress LZ4 block tasks.
 * @return DOCA_SUCCESS (it does); DOCA_ERROR_NOT_SUPPORTED (it does not);
 *         DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_compress_cap_task_decompress_lz4_block_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief The largest source or destination buffer of a decompress LZ4 block task, in bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL);
 *         DOCA_ERROR_NOT_SUPPORTED (the device does not run the task type).
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_compress_cap_task_decompress_lz4_block_get_max_buf_size(const struct doca_devinfo *devinfo,
                                                             uint64_t *max_buffer_size);

/**
 * @brief The longest buf list a decompress LZ4 block task takes (1: single buffers only).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL);
 *         DOCA_ERROR_NOT_SUPPORTED (the device does not run the task type).
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_compress_cap_task_decompress_lz4_block_get_max_buf_list_len(const struct doca_devinfo *devinfo,
                                                                 uint32_t *max_buf_list_len);

/**
 * @brief Configures the decompress LZ4 block tasks of an IDLE context: its two callbacks and how
 * many tasks of the type may be allocated at once.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL context or callback, num_tasks 0, or
 *         the pools together above doca_compress_cap_get_max_num_tasks);
 *         DOCA_ERROR_BAD_STATE (the context is not IDLE);
 *         DOCA_ERROR_NOT_SUPPORTED (the context's device does not run the task type).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_compress_task_decompress_lz4_block_set_conf(
        struct doca_compress *compress,
        doca_compress_task_decompress_lz4_block_completion_cb_t task_completion_cb,
        doca_compress_task_decompress_lz4_block_completion_cb_t task_error_cb, uint32_t num_tasks);

/**
 * @brief Allocates a decompress LZ4 block task of a RUNNING context and sets its fields.
 * @param [in] src_buff  the source (may be NULL: set it before submitting).
 * @param [in] dst_buff  where the output goes (may be NULL: set it before submitting).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL context or task);
 *         DOCA_ERROR_BAD_STATE (the context is not RUNNING);
 *         DOCA_ERROR_NO_MEMORY (every task of the type is allocated, or the type was not
 *         configured).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_compress_task_decompress_lz4_block_alloc_init(
        struct doca_compress *compress, struct doca_buf const *src_buff, struct doca_buf *dst_buff,
        union doca_data user_data, struct doca_compress_task_decompress_lz4_block **task);

/** @brief The generic task of a decompress LZ4 block task (NULL for NULL). */
DOCA_EXPERIMENTAL
struct doca_task *doca_compress_task_decompress_lz4_block_as_task(
        struct doca_compress_task_decompress_lz4_block *task);

/** @brief Sets the source (ignored, with one error line, while the task is in flight). */
DOCA_EXPERIMENTAL
void doca_compress_task_decompress_lz4_block_set_src(
        struct doca_compress_task_decompress_lz4_block *task, struct doca_buf const *src_buff);

/** @brief The source (NULL for NULL). */
DOCA_EXPERIMENTAL
struct doca_buf const *doca_compress_task_decompress_lz4_block_get_src(
        const struct doca_compress_task_decompress_lz4_block *task);

/** @brief Sets the destination (ignored, with one error line, while the task is in flight). */
DOCA_EXPERIMENTAL
void doca_compress_task_decompress_lz4_block_set_dst(
        struct doca_compress_task_decompress_lz4_block *task, struct doca_buf *dst_buff);

/** @brief The destination (NULL for NULL). */
DOCA_EXPERIMENTAL
struct doca_buf *doca_compress_task_decompress_lz4_block_get_dst(
        const struct doca_compress_task_decompress_lz4_block *task);

/**
 * @brief CRC-32 of the uncompressed bytes of the last successful run (0 before one, or for
 *        NULL).
 */
DOCA_EXPERIMENTAL
uint32_t doca_compress_task_decompress_lz4_block_get_crc_cs(
        const struct doca_compress_task_decompress_lz4_block *task);

/**
 * @brief xxHash-32 of the output of the last successful run, byte-swapped (the bytes of an
 *        LZ4 frame's content checksum read big-endian; 0 before one, or for NULL).
 */
DOCA_EXPERIMENTAL
uint32_t doca_compress_task_decompress_lz4_block_get_xxh_cs(
        const struct doca_compress_task_decompress_lz4_block *task);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DOCA_COMPRESS_H_ */
