/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* doca_dma_copy: device lookup, control channel, checksums and files shared by both sides. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_log.h>

#include "dma_copy.h"

DOCA_LOG_REGISTER(DMA_COPY_COMMON);

uint64_t dc_checksum(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

struct doca_dev *dc_open_dev(const char *pci, bool need_dma)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;
	uint8_t is;

	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
		return NULL;
	for (uint32_t i = 0; i < n && dev == NULL; i++)
		if (doca_devinfo_is_equal_pci_addr(list[i], pci, &is) == DOCA_SUCCESS && is &&
		    (!need_dma || doca_dma_cap_task_memcpy_is_supported(list[i]) == DOCA_SUCCESS) &&
		    doca_dev_open(list[i], &dev) != DOCA_SUCCESS)
			dev = NULL;
	doca_devinfo_destroy_list(list);
	if (dev == NULL && need_dma)
		DOCA_LOG_ERR("no DMA-capable device with PCI address %s on this side", pci);
	else if (dev == NULL)
		DOCA_LOG_ERR("no device with PCI address %s on this side; see `doca_caps --list-devs`",
			     pci);
	return dev;
}

static bool io_all(int fd, void *p, size_t n, bool wr)
{
	while (n) {
		ssize_t k = wr ? write(fd, p, n) : read(fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		p = (uint8_t *)p + k;
		n -= (size_t)k;
	}
	return true;
}

doca_error_t dc_send(int fd, uint16_t type, const void *payload, uint32_t len)
{
	struct dc_hdr h = { .magic = DC_MSG_MAGIC, .type = type, .len = len };

	if (!io_all(fd, &h, sizeof(h), true) || !io_all(fd, (void *)payload, len, true)) {
		DOCA_LOG_ERR("the peer closed the control channel (did it exit?): %s", strerror(errno));
		return DOCA_ERROR_CONNECTION_RESET;
	}
	return DOCA_SUCCESS;
}

doca_error_t dc_recv(int fd, uint16_t type, void *payload, uint32_t max, uint32_t *len)
{
	struct dc_hdr h;

	if (!io_all(fd, &h, sizeof(h), false)) {
		DOCA_LOG_ERR("the peer closed the control channel (it exited or failed; see its log)");
		return DOCA_ERROR_CONNECTION_RESET;
	}
	if (h.magic != DC_MSG_MAGIC || h.len > max || h.len > DC_MAX_PAYLOAD) {
		DOCA_LOG_ERR("malformed control message (magic 0x%x, %u bytes)", h.magic, h.len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!io_all(fd, payload, h.len, false)) {
		DOCA_LOG_ERR("the peer closed the control channel in the middle of a message");
		return DOCA_ERROR_CONNECTION_RESET;
	}
	if (h.type != type && h.type != DC_MSG_STATUS) {
		DOCA_LOG_ERR("unexpected control message type %u (wanted %u)", h.type, type);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (h.type == DC_MSG_STATUS && type != DC_MSG_STATUS) {
		DOCA_LOG_ERR("the peer reported a failure; see its log");
		return DOCA_ERROR_CONNECTION_ABORTED;
	}
	*len = h.len;
	return DOCA_SUCCESS;
}

doca_error_t dc_read_file(const char *path, uint8_t *buf, uint64_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0) {
		DOCA_LOG_ERR("cannot open %s: %s", path, strerror(errno));
		return DOCA_ERROR_IO_FAILED;
	}
	ok = io_all(fd, buf, size, false);
	close(fd);
	if (!ok) {
		DOCA_LOG_ERR("cannot read %llu bytes of %s: %s", (unsigned long long)size, path,
			     errno ? strerror(errno) : "file shrank");
		return DOCA_ERROR_IO_FAILED;
	}
	return DOCA_SUCCESS;
}

/* Writes to PATH.XXXXXX next to the target and renames it: no partial file on failure. */
doca_error_t dc_write_file_atomic(const char *path, const uint8_t *buf, uint64_t size)
{
	char tmp[DMA_COPY_MAX_PATH + 16];
	int fd, saved;
	bool ok;

	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		DOCA_LOG_ERR("cannot create a temporary file next to %s: %s", path, strerror(errno));
		return DOCA_ERROR_IO_FAILED;
	}
	errno = 0;
	ok = io_all(fd, (void *)buf, size, true) && fchmod(fd, 0644) == 0 && fsync(fd) == 0;
	saved = errno;
	/* Closed on every path: a failed write must not leak the descriptor. */
	if (close(fd) != 0 && ok) {
		ok = false;
		saved = errno;
	}
	if (ok && rename(tmp, path) != 0) {
		ok = false;
		saved = errno;
	}
	if (!ok) {
		DOCA_LOG_ERR("cannot write %s: %s", path, saved ? strerror(saved) : "short write");
		unlink(tmp);
		return DOCA_ERROR_IO_FAILED;
	}
	return DOCA_SUCCESS;
}

uint8_t *dc_alloc(uint64_t size)
{
	/*
	 * Populated up front: a DMA destination page first touched inside the kernel's
	 * cross-process copy costs far more than a fault taken here.
	 */
	void *p = mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED) {
		DOCA_LOG_ERR("cannot allocate %llu bytes: %s", (unsigned long long)size, strerror(errno));
		return NULL;
	}
	return p;
}

void dc_free(uint8_t *p, uint64_t size)
{
	if (p != NULL)
		munmap(p, size ? size : 1);
}
