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
	OFF_CRC = 84,   /* version 1 */
	/* version 2: the network reach, then the CRC */
	OFF_PIDNS = 84,
	OFF_BOOT = 92,
	OFF_RID = 108,
	OFF_GEN = 112,
	OFF_RKEY = 116,
	OFF_VADDR = 132,
	OFF_ALEN = 140,
	OFF_RSVD2 = 142, /* 2 bytes */
	OFF_NADDR = 144,
};

_Static_assert(OFF_CRC + 4 == ODMA_SE_BLOB_LEN, "blob layout");
_Static_assert(OFF_VERSION == 8 && OFF_TOTAL == 10, "the head odma_rec_open writes");
_Static_assert(OFF_NADDR + 4 == ODMA_SE_BLOB_NET_MIN, "blob layout (version 2)");
_Static_assert(ODMA_SE_ADDR_MAX == ODMA_TP_ADDR_MAX, "a blob carries a transport address");

size_t odma_se_blob_encode(const struct odma_se_blob *b, uint8_t *out)
{
	bool net = b->version == ODMA_SE_BLOB_VERSION_NET && b->net_len >= 1 &&
	           b->net_len <= ODMA_SE_ADDR_MAX;
	size_t total = net ? ODMA_SE_BLOB_NET_MIN + b->net_len : ODMA_SE_BLOB_LEN;

	odma_rec_open(out, ODMA_SE_BLOB_MAGIC,
	              net ? ODMA_SE_BLOB_VERSION_NET : ODMA_SE_BLOB_VERSION, total);
	out[OFF_SIDE] = b->side;
	odma_put_le(out + OFF_PID, b->pid, 4);
	odma_put_le(out + OFF_FD, b->fd, 4);
	odma_put_le(out + OFF_START, b->start_time, 8);
	odma_put_le(out + OFF_SYSTEM, b->system_id, 8);
	memcpy(out + OFF_KEY, b->key, 16);
	memcpy(out + OFF_PCI, b->pci, strnlen(b->pci, ODMA_SE_BLOB_PCI_LEN - 1));
	if (net) {
		odma_put_le(out + OFF_PIDNS, b->pidns, 8);
		memcpy(out + OFF_BOOT, b->boot_id, 16);
		odma_put_le(out + OFF_RID, b->region_id, 4);
		odma_put_le(out + OFF_GEN, b->generation, 4);
		memcpy(out + OFF_RKEY, b->rkey, 16);
		odma_put_le(out + OFF_VADDR, b->value_addr, 8);
		odma_put_le(out + OFF_ALEN, b->net_len, 2);
		memcpy(out + OFF_NADDR, b->net_addr, b->net_len);
	}
	odma_rec_seal(out, total);
	return total;
}

/*
 * Checks a blob's header, lengths, checksum and every field, in that order, taking its
 * version and (version 2) its network address length. NULL when it passes, or what is wrong.
 */
static const char *blob_check(const uint8_t *b, size_t len, uint16_t *version_out,
                              uint16_t *alen_out)
{
	const char *bad = NULL;
	uint16_t version = 0, alen = 0;
	size_t total = ODMA_SE_BLOB_LEN;

	if (b != NULL && len >= OFF_VERSION + 2)
		version = (uint16_t)odma_get_le(b + OFF_VERSION, 2);
	if (version == ODMA_SE_BLOB_VERSION_NET && len >= ODMA_SE_BLOB_NET_MIN) {
		alen = (uint16_t)odma_get_le(b + OFF_ALEN, 2);
		total = ODMA_SE_BLOB_NET_MIN + alen;
	}
	if (b == NULL || len < OFF_VERSION + 2)
		bad = "export blob is truncated (shorter than its header)";
	else if (memcmp(b + OFF_MAGIC, ODMA_SE_BLOB_MAGIC, 8) != 0)
		bad = "not an odma sync event export (bad magic)";
	else if (version != ODMA_SE_BLOB_VERSION && version != ODMA_SE_BLOB_VERSION_NET)
		bad = "sync event export format version is not 1 or 2, the ones this library "
		      "reads; export and import with the same odma version";
	else if (len < (version == ODMA_SE_BLOB_VERSION ? ODMA_SE_BLOB_LEN : ODMA_SE_BLOB_NET_MIN))
		bad = "export blob is truncated; pass all the bytes export_to_remote_pci returned";
	else if (version == ODMA_SE_BLOB_VERSION_NET && (alen == 0 || alen > ODMA_SE_ADDR_MAX))
		bad = "export blob names an impossible network address length";
	else if (odma_get_le(b + OFF_TOTAL, 2) != total || len != total)
		bad = "export blob length does not match its format (extra or missing bytes)";
	else if (!odma_rec_sealed(b, total))
		bad = "export blob checksum mismatch (corrupted in transit)";
	else if (b[OFF_SIDE] > 1)
		bad = "export blob names an unknown side";
	else if (!odma_all_zero(b + OFF_RSVD0, 3) ||
	         !odma_all_zero(b + OFF_RSVD1, OFF_CRC - OFF_RSVD1) ||
	         (version == ODMA_SE_BLOB_VERSION_NET && !odma_all_zero(b + OFF_RSVD2, 2)))
		bad = "export blob has non-zero reserved bytes";
	else if (version == ODMA_SE_BLOB_VERSION_NET &&
	         (odma_get_le(b + OFF_RID, 4) == 0 || odma_all_zero(b + OFF_RKEY, 16) ||
	          (odma_get_le(b + OFF_VADDR, 8) & 7) != 0))
		bad = "export blob names no valid network region (id 0, empty key or a "
		      "misaligned value)";
	else if (odma_get_le(b + OFF_PID, 4) == 0 || odma_get_le(b + OFF_PID, 4) > 0x400000)
		bad = "export blob names an impossible process id";
	else if (odma_get_le(b + OFF_FD, 4) > 0x7fffffff)
		bad = "export blob names an impossible descriptor";
	else if (odma_all_zero(b + OFF_KEY, 16))
		bad = "export blob has an empty key";
	else if (!odma_pci_field_ok(b + OFF_PCI, ODMA_SE_BLOB_PCI_LEN))
		bad = "export blob names a malformed exporting device";
	*version_out = version;
	*alen_out = alen;
	return bad;
}

/* The fields of a blob blob_check passed, into @out (version 2's network reach too). */
static void blob_decode(const uint8_t *b, uint16_t version, uint16_t alen, struct odma_se_blob *out)
{
	memset(out, 0, sizeof(*out));
	out->version = version;
	out->side = b[OFF_SIDE];
	out->pid = (uint32_t)odma_get_le(b + OFF_PID, 4);
	out->fd = (uint32_t)odma_get_le(b + OFF_FD, 4);
	out->start_time = odma_get_le(b + OFF_START, 8);
	out->system_id = odma_get_le(b + OFF_SYSTEM, 8);
	memcpy(out->key, b + OFF_KEY, 16);
	memcpy(out->pci, b + OFF_PCI, ODMA_SE_BLOB_PCI_LEN);
	if (version == ODMA_SE_BLOB_VERSION_NET) {
		out->pidns = odma_get_le(b + OFF_PIDNS, 8);
		memcpy(out->boot_id, b + OFF_BOOT, 16);
		out->region_id = (uint32_t)odma_get_le(b + OFF_RID, 4);
		out->generation = (uint32_t)odma_get_le(b + OFF_GEN, 4);
		memcpy(out->rkey, b + OFF_RKEY, 16);
		out->value_addr = odma_get_le(b + OFF_VADDR, 8);
		out->net_len = alen;
		memcpy(out->net_addr, b + OFF_NADDR, alen);
	}
}

doca_error_t odma_se_blob_parse(const void *bytes, size_t len, struct odma_se_blob *out,
                                const char **why)
{
	const uint8_t *b = bytes;
	uint16_t version, alen;
	const char *bad = blob_check(b, len, &version, &alen);

	if (bad != NULL) {
		if (why != NULL)
			*why = bad;
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (out != NULL)
		blob_decode(b, version, alen, out);
	return DOCA_SUCCESS;
}
