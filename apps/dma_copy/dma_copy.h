/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* doca_dma_copy: copies a file between the host side and the DPU side (docs/host-dpu.md). */
#ifndef DMA_COPY_H_
#define DMA_COPY_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#define DMA_COPY_DEFAULT_SOCKET "/tmp/odma_dma_copy.sock"
#define DMA_COPY_MAX_PATH 4096

struct dma_copy_cfg {
	char file[DMA_COPY_MAX_PATH];
	char pci[32];
	char rep_pci[32];
	char socket[108];
	bool is_dpu;
	bool have_file; /* the file exists on this side: this side sends */
	uint64_t file_size;
};

/* Control channel messages (our own format, native byte order: both ends share a machine). */
enum dc_msg_type { DC_MSG_DIRECTION = 1, DC_MSG_EXPORT = 2, DC_MSG_STATUS = 3 };

#define DC_MSG_MAGIC 0x5043444fu /* "ODCP" */
#define DC_MAX_PAYLOAD 4096

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
};

struct dc_export {
	uint64_t host_addr;
	uint64_t len;
	uint64_t checksum; /* of the file, when the host sends it */
	uint32_t desc_len;
	uint32_t pad;
	/* desc_len descriptor bytes follow */
};

struct dc_status {
	uint8_t ok;
	uint8_t pad[7];
	uint64_t checksum; /* of the data, when the DPU sends it */
};

/* 64-bit FNV-1a, the end-to-end checksum of a copied file. */
uint64_t dc_checksum(const void *data, size_t len);

struct doca_dev;
/*
 * Opens the device with PCI address @pci (with @need_dma: only one that can run DMA memcpy
 * tasks). Logs the reason and returns NULL when none matches.
 */
struct doca_dev *dc_open_dev(const char *pci, bool need_dma);

/* Channel: whole messages over a stream socket; errors are logged. */
doca_error_t dc_send(int fd, uint16_t type, const void *payload, uint32_t len);
doca_error_t dc_recv(int fd, uint16_t type, void *payload, uint32_t max, uint32_t *len);

/* File helpers: read all of @path; write atomically (temp file + rename). */
doca_error_t dc_read_file(const char *path, uint8_t *buf, uint64_t size);
doca_error_t dc_write_file_atomic(const char *path, const uint8_t *buf, uint64_t size);
/* Anonymous memory for a file of @size bytes (at least one page). */
uint8_t *dc_alloc(uint64_t size);
void dc_free(uint8_t *p, uint64_t size);

doca_error_t dma_copy_host(struct dma_copy_cfg *cfg);
doca_error_t dma_copy_dpu(struct dma_copy_cfg *cfg);

#endif
