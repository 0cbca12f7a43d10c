/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The sync event export blob codec (layout in docs/host-dpu.md). Pure and log-free, like
 * the mmap descriptor codec: the fuzzer drives it directly and callers log its reason.
 * Little-endian fields at fixed offsets.
 */
#include <string.h>

#include "core/memory/memory.h"
#include "core/sync_event/sync_event.h"
#include "util/codec.h"

enum blob_off {
	OFF_MAGIC = 0,
	OFF_VERSION = 8,
	OFF_TOTAL = 10,
	OFF_SIDE = 12,
	OFF_RSVD0 = 13, /* 3 bytes */
	OFF_PID = 16,
	OFF_FD = 20,
	OFF_START = 24,
	OFF_SYSTEM = 32,
	OFF_KEY = 40,
	OFF_PCI = 56,
	OFF_RSVD1 = 72, /* 12 bytes */
	OFF_CRC = 84,
};

_Static_assert(OFF_CRC + 4 == ODMA_SE_BLOB_LEN, "blob layout");

void odma_se_blob_encode(const struct odma_se_blob *b, uint8_t *out)
{
	memset(out, 0, ODMA_SE_BLOB_LEN);
	memcpy(out + OFF_MAGIC, ODMA_SE_BLOB_MAGIC, 8);
	odma_put_le(out + OFF_VERSION, ODMA_SE_BLOB_VERSION, 2);
	odma_put_le(out + OFF_TOTAL, ODMA_SE_BLOB_LEN, 2);
	out[OFF_SIDE] = b->side;
	odma_put_le(out + OFF_PID, b->pid, 4);
	odma_put_le(out + OFF_FD, b->fd, 4);
	odma_put_le(out + OFF_START, b->start_time, 8);
	odma_put_le(out + OFF_SYSTEM, b->system_id, 8);
	memcpy(out + OFF_KEY, b->key, 16);
	memcpy(out + OFF_PCI, b->pci, strnlen(b->pci, ODMA_SE_BLOB_PCI_LEN - 1));
	odma_put_le(out + OFF_CRC, odma_crc32c(out, OFF_CRC), 4);
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != 0)
			return false;
	return true;
}

static bool pci_ok(const uint8_t *p)
{
	size_t n = strnlen((const char *)p, ODMA_SE_BLOB_PCI_LEN);

	if (n == 0 || n == ODMA_SE_BLOB_PCI_LEN || !all_zero(p + n, ODMA_SE_BLOB_PCI_LEN - n))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f') || p[i] == ':' ||
		      p[i] == '.'))
			return false;
	return true;
}

doca_error_t odma_se_blob_parse(const void *bytes, size_t len, struct odma_se_blob *out,
                                const char **why)
{
	const uint8_t *b = bytes;
	const char *bad = NULL;

	if (b == NULL || len < OFF_VERSION + 2)
		bad = "export blob is truncated (shorter than its header)";
	else if (memcmp(b + OFF_MAGIC, ODMA_SE_BLOB_MAGIC, 8) != 0)
		bad = "not an odma sync event export (bad magic)";
	else if (odma_get_le(b + OFF_VERSION, 2) != ODMA_SE_BLOB_VERSION)
		bad = "sync event export format version is not 1, the only one this library reads; "
		      "export and import with the same odma version";
	else if (len < ODMA_SE_BLOB_LEN)
		bad = "export blob is truncated; pass all the bytes export_to_remote_pci returned";
	else if (odma_get_le(b + OFF_TOTAL, 2) != ODMA_SE_BLOB_LEN || len != ODMA_SE_BLOB_LEN)
		bad = "export blob length does not match its format (extra or missing bytes)";
	else if (odma_get_le(b + OFF_CRC, 4) != odma_crc32c(b, OFF_CRC))
		bad = "export blob checksum mismatch (corrupted in transit)";
	else if (b[OFF_SIDE] > 1)
		bad = "export blob names an unknown side";
	else if (!all_zero(b + OFF_RSVD0, 3) || !all_zero(b + OFF_RSVD1, OFF_CRC - OFF_RSVD1))
		bad = "export blob has non-zero reserved bytes";
	else if (odma_get_le(b + OFF_PID, 4) == 0 || odma_get_le(b + OFF_PID, 4) > 0x400000)
		bad = "export blob names an impossible process id";
	else if (odma_get_le(b + OFF_FD, 4) > 0x7fffffff)
		bad = "export blob names an impossible descriptor";
	else if (all_zero(b + OFF_KEY, 16))
		bad = "export blob has an empty key";
	else if (!pci_ok(b + OFF_PCI))
		bad = "export blob names a malformed exporting device";
	if (bad != NULL) {
		if (why != NULL)
			*why = bad;
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (out != NULL) {
		memset(out, 0, sizeof(*out));
		out->version = ODMA_SE_BLOB_VERSION;
		out->side = b[OFF_SIDE];
		out->pid = (uint32_t)odma_get_le(b + OFF_PID, 4);
		out->fd = (uint32_t)odma_get_le(b + OFF_FD, 4);
		out->start_time = odma_get_le(b + OFF_START, 8);
		out->system_id = odma_get_le(b + OFF_SYSTEM, 8);
		memcpy(out->key, b + OFF_KEY, 16);
		memcpy(out->pci, b + OFF_PCI, ODMA_SE_BLOB_PCI_LEN);
	}
	return DOCA_SUCCESS;
}
