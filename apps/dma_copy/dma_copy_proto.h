/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * doca_dma_copy: the messages the two sides exchange (docs/host-dpu.md). They travel over
 * the control channel (dma_copy_chan.h) as {struct dc_hdr, payload}; native byte order,
 * both ends share a machine. The tests' misbehaving peer (tests/xproc/dc_peer.c) speaks
 * them too.
 *
 *   host                                  DPU
 *   DIRECTION {file_here, size}      ->
 *                                    <-   DIRECTION {file_here, size, window}
 *   EXPORT {window, desc}            ->   (no descriptor for an empty file)
 *   per window of the file, the side that sends the file:
 *     CHUNK {offset, len}            ->   (the window holds these bytes; the DPU moves them)
 *                                    <-   CHUNK {offset, len} (done: the window is free)
 *   the sender, after the last window:  STATUS {ok 1, checksum of the whole file}
 *   the receiver, once the file is in place under its name:  STATUS {ok 1}
 *   either side, at any time, instead of the expected message:  STATUS {ok 0, why}
 *   the DPU to an extra host while it serves one:  BUSY
 */
#ifndef DMA_COPY_PROTO_H_
#define DMA_COPY_PROTO_H_

#include <stdint.h>

enum dc_msg_type {
	DC_MSG_DIRECTION = 1,
	DC_MSG_EXPORT = 2,
	DC_MSG_STATUS = 3,
	DC_MSG_CHUNK = 4,
	DC_MSG_BUSY = 5,
};

#define DC_MSG_MAGIC 0x5043444fu /* "ODCP" */
#define DC_MAX_PAYLOAD 4096
#define DC_WHY_LEN 256

struct dc_hdr {
	uint32_t magic;
	uint16_t type;
	uint16_t reserved;
	uint32_t len; /* payload bytes that follow */
};

struct dc_direction {
	uint8_t file_here; /* the sender of this message has the file */
	uint8_t pad[7];
	uint64_t file_size;
	uint64_t window; /* DPU only: bytes per window (0 for an empty file) */
};

struct dc_export {
	uint64_t window; /* bytes of the exported host buffer */
	uint32_t desc_len;
	uint32_t pad;
	/* desc_len descriptor bytes follow */
};

struct dc_chunk {
	uint64_t offset; /* in the file */
	uint64_t len;    /* bytes in the window, from its start */
};

struct dc_status {
	uint8_t ok;
	uint8_t pad[7];
	uint64_t checksum;    /* the sender's end of copy: of the whole file */
	char why[DC_WHY_LEN]; /* ok 0: what failed, NUL-terminated */
};

#endif
