/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * doca_dma_copy: the messages the two sides exchange over DOCA Comch (docs/host-dpu.md).
 * Each Comch message is one struct below; every one starts with a 32-bit type.
 *
 * The first three types are those of NVIDIA's DMA Copy reference application
 * (applications/dma_copy, docs: doca-api-reference.md §9.3), with its layouts and its
 * byte order (64-bit fields big-endian), so either side of ours can work with either side
 * of NVIDIA's:
 *
 *   host                                      DPU
 *   DIRECTION {file_in_host, size}       ->
 *                                        <-   DIRECTION {file_in_host, size}
 *   EXPORT_DESCRIPTOR {addr, desc}       ->   (one buffer holding the whole file)
 *                                        <-   STATUS {success}   (the DPU moved the file in one go)
 *
 * odma's sides mark their DIRECTION (bytes 5..7, padding in NVIDIA's layout, which NVIDIA's
 * code ignores). When both DIRECTIONs carry the mark, the rest of the session is odma's
 * extended protocol, which streams files of any size through a bounded window with a
 * checksum and error reasons:
 *
 *                                        <-   DIRECTION {..., window}      (24 bytes)
 *   X_EXPORT {window, desc}              ->   (no descriptor for an empty file)
 *   per window of the file, the side that sends the file:
 *     X_CHUNK {offset, len}              ->   (the window holds these bytes; the DPU moves them)
 *                                        <-   X_CHUNK {offset, len} (done: the window is free)
 *   the sender, after the last window:  X_STATUS {ok 1, checksum of the whole file}
 *   the receiver, once the file is in place under its name:  X_STATUS {ok 1}
 *   either side, at any time, instead of the expected message:  X_STATUS {ok 0, why}
 *   the DPU to an extra host while it serves one:  X_BUSY
 *
 * With NVIDIA's side the session stays in NVIDIA's protocol: one buffer for the whole file
 * (so at most the DPU's max_buf_size), and a failure is STATUS {0} without a reason. The
 * tests' peer (tests/xproc/dc_peer.c) speaks both.
 */
#ifndef DMA_COPY_PROTO_H_
#define DMA_COPY_PROTO_H_

#include <stdint.h>

enum dc_msg_type {
	DC_MSG_DIRECTION = 1,         /* NVIDIA's COMCH_MSG_DIRECTION */
	DC_MSG_EXPORT_DESCRIPTOR = 2, /* NVIDIA's COMCH_MSG_EXPORT_DESCRIPTOR */
	DC_MSG_STATUS = 3,            /* NVIDIA's COMCH_MSG_STATUS */
	DC_MSG_X_EXPORT = 0x4f440001, /* odma extension */
	DC_MSG_X_CHUNK = 0x4f440002,
	DC_MSG_X_STATUS = 0x4f440003,
	DC_MSG_X_BUSY = 0x4f440004,
};

#define DC_MAX_MSG 4080 /* the Comch message size both sides ask for (the emulated cap) */
#define DC_WHY_LEN 256
#define DC_SERVER_NAME "dma copy server" /* NVIDIA's application's server name */

/* odma's mark in a DIRECTION. */
#define DC_MARK_0 'O'
#define DC_MARK_1 'D'
#define DC_MARK_VERSION 1

struct dc_direction {
	uint32_t type;        /* DC_MSG_DIRECTION */
	uint8_t file_in_host; /* the host side has the file (as NVIDIA's application means it) */
	uint8_t mark[3];      /* {'O', 'D', version} from odma; padding for NVIDIA */
	uint64_t size_be;     /* the file's size, big-endian, from the side that has it */
	uint64_t window;      /* odma DPU to odma host only: bytes per window (0: empty file) */
};
#define DC_DIRECTION_LEN 16   /* NVIDIA's size, and what a host sends */
#define DC_DIRECTION_X_LEN 24 /* an odma DPU's answer to an odma host */

struct dc_export_descriptor {
	uint32_t type; /* DC_MSG_EXPORT_DESCRIPTOR */
	uint32_t pad;
	uint64_t host_addr_be; /* the host buffer's address, big-endian */
	uint64_t desc_len_be;  /* descriptor bytes that follow, big-endian */
	                       /* descriptor bytes follow */
};

struct dc_nv_status {
	uint32_t type;      /* DC_MSG_STATUS */
	uint8_t is_success; /* 1: the last step worked */
	uint8_t pad[3];
};

struct dc_export {
	uint32_t type;     /* DC_MSG_X_EXPORT */
	uint32_t desc_len; /* descriptor bytes that follow */
	uint64_t window;   /* bytes of the exported host buffer */
};

struct dc_chunk {
	uint32_t type; /* DC_MSG_X_CHUNK */
	uint32_t pad;
	uint64_t offset; /* in the file */
	uint64_t len;    /* bytes in the window, from its start */
};

struct dc_status {
	uint32_t type; /* DC_MSG_X_STATUS */
	uint8_t ok;
	uint8_t pad[3];
	uint64_t checksum;    /* the sender's end of copy: of the whole file */
	char why[DC_WHY_LEN]; /* ok 0: what failed, NUL-terminated */
};

/* Big-endian 64-bit fields of NVIDIA's messages. */
static inline uint64_t dc_be64(uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap64(v);
#else
	return v;
#endif
}

static inline uint32_t dc_msg_type(const void *msg)
{
	return *(const uint32_t *)msg;
}

#endif
