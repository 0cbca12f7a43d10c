/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * doca_dma_copy, host side (the client): says which side has the file, exports one buffer
 * holding the whole file (read-only when sending, read-write when receiving) and waits for
 * the DPU's status. The DPU moves the bytes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <doca_dev.h>
#include <doca_log.h>
#include <doca_mmap.h>

#include "dma_copy.h"

DOCA_LOG_REGISTER(DMA_COPY_HOST);

struct host {
	struct doca_dev *dev;
	struct doca_mmap *mmap;
	uint8_t *buf;
	uint64_t size;
	int fd;
};

static int connect_dpu(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		DOCA_LOG_ERR("cannot reach the DPU side at %s: %s; start `ODMA_SIDE=dpu doca_dma_copy` "
			     "first (the DPU is the server)", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Exchanges DIRECTION; returns the size of the file whichever side holds it. */
static doca_error_t host_direction(struct host *h, struct dma_copy_cfg *cfg)
{
	struct dc_direction mine = { .file_here = cfg->have_file, .file_size = cfg->file_size };
	struct dc_direction theirs;
	uint32_t len;
	doca_error_t r;

	r = dc_send(h->fd, DC_MSG_DIRECTION, &mine, sizeof(mine));
	if (r == DOCA_SUCCESS)
		r = dc_recv(h->fd, DC_MSG_DIRECTION, &theirs, sizeof(theirs), &len);
	if (r != DOCA_SUCCESS)
		return r;
	if (len != sizeof(theirs) || theirs.file_here == cfg->have_file) {
		DOCA_LOG_ERR("exactly one side must have the file (host: %s, DPU: %s)",
			     cfg->have_file ? "yes" : "no", theirs.file_here ? "yes" : "no");
		return DOCA_ERROR_INVALID_VALUE;
	}
	h->size = cfg->have_file ? cfg->file_size : theirs.file_size;
	return DOCA_SUCCESS;
}

static doca_error_t host_export(struct host *h, bool sending, uint64_t checksum)
{
	uint8_t msg[DC_MAX_PAYLOAD];
	struct dc_export *e = (struct dc_export *)msg;
	const void *desc;
	size_t dlen;
	doca_error_t r;

	if ((r = doca_mmap_create(&h->mmap)) != DOCA_SUCCESS ||
	    (r = doca_mmap_set_memrange(h->mmap, h->buf, h->size)) != DOCA_SUCCESS ||
	    (r = doca_mmap_set_permissions(h->mmap, sending ? DOCA_ACCESS_FLAG_PCI_READ_ONLY
							    : DOCA_ACCESS_FLAG_PCI_READ_WRITE)) ||
	    (r = doca_mmap_add_dev(h->mmap, h->dev)) != DOCA_SUCCESS ||
	    (r = doca_mmap_start(h->mmap)) != DOCA_SUCCESS ||
	    (r = doca_mmap_export_pci(h->mmap, h->dev, &desc, &dlen)) != DOCA_SUCCESS) {
		DOCA_LOG_ERR("cannot export the host buffer: %s", doca_error_get_descr(r));
		return r;
	}
	if (dlen > sizeof(msg) - sizeof(*e))
		return DOCA_ERROR_TOO_BIG;
	*e = (struct dc_export){ .host_addr = (uintptr_t)h->buf, .len = h->size,
				 .checksum = checksum, .desc_len = (uint32_t)dlen };
	memcpy(e + 1, desc, dlen);
	return dc_send(h->fd, DC_MSG_EXPORT, msg, (uint32_t)(sizeof(*e) + dlen));
}

static doca_error_t host_finish(struct host *h, struct dma_copy_cfg *cfg)
{
	struct dc_status st;
	uint32_t len;
	doca_error_t r = dc_recv(h->fd, DC_MSG_STATUS, &st, sizeof(st), &len);

	if (r != DOCA_SUCCESS)
		return r;
	if (len != sizeof(st) || !st.ok) {
		DOCA_LOG_ERR("the DPU side reported a failed copy; see its log");
		return DOCA_ERROR_IO_FAILED;
	}
	if (cfg->have_file)
		return DOCA_SUCCESS;
	if (dc_checksum(h->buf, h->size) != st.checksum) {
		DOCA_LOG_ERR("checksum mismatch: the received data differs from the DPU's file");
		return DOCA_ERROR_IO_FAILED;
	}
	return dc_write_file_atomic(cfg->file, h->buf, h->size);
}

static doca_error_t host_run(struct host *h, struct dma_copy_cfg *cfg)
{
	uint64_t sum = 0;
	doca_error_t r;

	h->dev = dc_open_dev(cfg->pci, false);
	if (h->dev == NULL)
		return DOCA_ERROR_NOT_FOUND;
	h->fd = connect_dpu(cfg->socket);
	if (h->fd < 0)
		return DOCA_ERROR_NOT_CONNECTED;
	if ((r = host_direction(h, cfg)) != DOCA_SUCCESS)
		return r;
	h->buf = dc_alloc(h->size);
	if (h->buf == NULL)
		return DOCA_ERROR_NO_MEMORY;
	if (cfg->have_file) {
		if ((r = dc_read_file(cfg->file, h->buf, h->size)) != DOCA_SUCCESS)
			return r;
		sum = dc_checksum(h->buf, h->size);
	}
	if ((r = host_export(h, cfg->have_file, sum)) != DOCA_SUCCESS)
		return r;
	return host_finish(h, cfg);
}

doca_error_t dma_copy_host(struct dma_copy_cfg *cfg)
{
	struct host h = { .fd = -1 };
	doca_error_t r = host_run(&h, cfg);

	if (r != DOCA_SUCCESS && h.fd >= 0) {
		struct dc_status st = { .ok = 0 };

		(void)dc_send(h.fd, DC_MSG_STATUS, &st, sizeof(st));
	}
	if (h.fd >= 0)
		close(h.fd);
	if (h.mmap != NULL)
		doca_mmap_destroy(h.mmap);
	dc_free(h.buf, h.size);
	if (h.dev != NULL)
		doca_dev_close(h.dev);
	if (r == DOCA_SUCCESS)
		DOCA_LOG_INFO("%s %llu bytes %s the DPU", cfg->have_file ? "sent" : "received",
			      (unsigned long long)h.size, cfg->have_file ? "to" : "from");
	return r;
}
