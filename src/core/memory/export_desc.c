/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The export descriptor codec (layout in docs/host-dpu.md). The parser is pure and
 * log-free so the fuzzer can drive it directly; callers log its explanation once.
 * Fields are little-endian at fixed offsets, whatever the host's byte order.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <doca_types.h>

#include "core/memory/memory.h"
#include "util/codec.h"

enum desc_off {
	OFF_MAGIC = 0,
	OFF_VERSION = 8,
	OFF_TOTAL = 10,
	OFF_KIND = 12,
	OFF_SIDE = 13,
	OFF_RSVD0 = 14,
	OFF_PID = 16,
	OFF_PERMS = 20,
	OFF_START = 24,
	OFF_SYSTEM = 32,
	OFF_ADDR = 40,
	OFF_LEN = 48,
	OFF_RECORD = 56,
	OFF_KEY = 64,
	OFF_PCI = 80,
	OFF_GEN = 96,
	OFF_CRC = 100, /* version 2 */
	/* version 3: the reach of the exporter, then the CRC */
	OFF_PIDNS = 100,
	OFF_BOOT = 108,
	OFF_RID = 124,
	OFF_ALEN = 128,
	OFF_RSVD1 = 130,
	OFF_NADDR = 132,
};

_Static_assert(OFF_VERSION == 8 && OFF_TOTAL == 10, "the head odma_rec_open writes");

static size_t desc_total(uint16_t version, uint16_t net_len)
{
	return version == ODMA_EXPORT_DESC_VERSION_NET ? ODMA_EXPORT_DESC_NET_MIN + net_len
	                                               : ODMA_EXPORT_DESC_LEN;
}

static void desc_encode_net(const struct odma_export_desc *d, uint8_t *out)
{
	uint16_t alen = d->net_len <= ODMA_TP_ADDR_MAX ? d->net_len : 0;

	odma_put_le(out + OFF_PIDNS, d->pidns, 8);
	memcpy(out + OFF_BOOT, d->boot_id, 16);
	odma_put_le(out + OFF_RID, d->region_id, 4);
	odma_put_le(out + OFF_ALEN, alen, 2);
	memcpy(out + OFF_NADDR, d->net_addr, alen);
}

size_t odma_export_desc_encode(const struct odma_export_desc *d, uint8_t *out)
{
	uint16_t version = d->version == ODMA_EXPORT_DESC_VERSION_NET ? ODMA_EXPORT_DESC_VERSION_NET
	                                                              : ODMA_EXPORT_DESC_VERSION;
	size_t total = desc_total(version, d->net_len <= ODMA_TP_ADDR_MAX ? d->net_len : 0);

	odma_rec_open(out, ODMA_EXPORT_DESC_MAGIC, version, total);
	out[OFF_KIND] = d->kind;
	out[OFF_SIDE] = d->side;
	odma_put_le(out + OFF_PID, d->pid, 4);
	odma_put_le(out + OFF_PERMS, d->perms, 4);
	odma_put_le(out + OFF_START, d->start_time, 8);
	odma_put_le(out + OFF_SYSTEM, d->system_id, 8);
	odma_put_le(out + OFF_ADDR, d->addr, 8);
	odma_put_le(out + OFF_LEN, d->len, 8);
	odma_put_le(out + OFF_RECORD, d->record_addr, 8);
	memcpy(out + OFF_KEY, d->key, 16);
	memcpy(out + OFF_PCI, d->pci, strnlen(d->pci, ODMA_EXPORT_PCI_LEN - 1));
	odma_put_le(out + OFF_GEN, d->generation, 4);
	if (version == ODMA_EXPORT_DESC_VERSION_NET)
		desc_encode_net(d, out);
	odma_rec_seal(out, total);
	return total;
}

/* Framing: size, magic, version, declared length, checksum. */
static const char *desc_check_frame(const uint8_t *b, size_t len)
{
	if (len < OFF_VERSION + 2)
		return "descriptor is truncated (shorter than its header)";
	if (memcmp(b + OFF_MAGIC, ODMA_EXPORT_DESC_MAGIC, 8) != 0)
		return "not an odma export descriptor (bad magic)";
	uint64_t version = odma_get_le(b + OFF_VERSION, 2), total;

	if (version != ODMA_EXPORT_DESC_VERSION && version != ODMA_EXPORT_DESC_VERSION_NET)
		return "descriptor format version is neither 2 nor 3, the ones this library reads; "
		       "export and import with the same odma version";
	if (len < OFF_TOTAL + 2)
		return "descriptor is truncated; pass all export_desc_len bytes";
	total = odma_get_le(b + OFF_TOTAL, 2);
	if (version == ODMA_EXPORT_DESC_VERSION
	            ? total != ODMA_EXPORT_DESC_LEN
	            : total < ODMA_EXPORT_DESC_NET_MIN || total > ODMA_EXPORT_DESC_MAX)
		return "descriptor length does not match its format (extra or missing bytes)";
	if (len < total)
		return "descriptor is truncated; pass all export_desc_len bytes";
	if (len != total)
		return "descriptor length does not match its format (extra or missing bytes)";
	if (version == ODMA_EXPORT_DESC_VERSION_NET &&
	    odma_get_le(b + OFF_ALEN, 2) != total - ODMA_EXPORT_DESC_NET_MIN)
		return "descriptor transport address length does not match its length";
	if (!odma_rec_sealed(b, total))
		return "descriptor checksum mismatch (corrupted in transit)";
	return NULL;
}

bool odma_pci_field_ok(const uint8_t *p, size_t len)
{
	size_t n = strnlen((const char *)p, len);

	if (n == 0 || n == len)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f') ||
		      (p[i] >= 'A' && p[i] <= 'F') || p[i] == ':' || p[i] == '.'))
			return false;
	return odma_all_zero(p + n, len - n);
}

static const char *desc_check_perms(uint8_t kind, uint32_t perms)
{
	if ((perms & ~(uint32_t)ODMA_PERMS_ALL) != 0)
		return "descriptor permissions hold undefined bits";
	if (kind == ODMA_EXPORT_PCI && (perms & ODMA_PERMS_PCI) == 0)
		return "PCI descriptor without a PCI permission";
	if (kind == ODMA_EXPORT_RDMA && (perms & ODMA_PERMS_RDMA) == 0)
		return "RDMA descriptor without an RDMA permission";
	return NULL;
}

/* Field values: kinds, sides, reserved bytes, a real range. */
static const char *desc_check_fields(const uint8_t *b, const struct odma_export_desc *d)
{
	if (d->kind != ODMA_EXPORT_PCI && d->kind != ODMA_EXPORT_RDMA)
		return "descriptor kind is neither PCI nor RDMA";
	if (d->side > 1)
		return "descriptor names an unknown side";
	if (odma_get_le(b + OFF_RSVD0, 2) != 0)
		return "descriptor reserved bytes are not zero";
	if (d->generation == 0)
		return "descriptor export generation is 0 (never issued)";
	if (d->pid == 0 || d->pid > 0x3fffffffu)
		return "descriptor exporter pid is out of range";
	if (d->addr == 0 || d->len == 0 || d->addr + d->len < d->addr)
		return "descriptor range is empty, NULL or wraps around";
	if (d->record_addr == 0 || (d->record_addr & 7) != 0)
		return "descriptor export record address is invalid";
	if (!odma_pci_field_ok(b + OFF_PCI, ODMA_EXPORT_PCI_LEN))
		return "descriptor device PCI address is malformed";
	/* region id 0: an RDMA re-export, which only its (forwarded) requests reach */
	if (d->version == ODMA_EXPORT_DESC_VERSION_NET &&
	    (odma_get_le(b + OFF_RSVD1, 2) != 0 ||
	     (d->region_id == 0 && d->kind != ODMA_EXPORT_RDMA)))
		return "descriptor reserved bytes are not zero, or its region id is 0";
	return desc_check_perms(d->kind, d->perms);
}

static void desc_decode(const uint8_t *b, struct odma_export_desc *d)
{
	memset(d, 0, sizeof(*d));
	d->version = (uint16_t)odma_get_le(b + OFF_VERSION, 2);
	d->kind = b[OFF_KIND];
	d->side = b[OFF_SIDE];
	d->pid = (uint32_t)odma_get_le(b + OFF_PID, 4);
	d->perms = (uint32_t)odma_get_le(b + OFF_PERMS, 4);
	d->start_time = odma_get_le(b + OFF_START, 8);
	d->system_id = odma_get_le(b + OFF_SYSTEM, 8);
	d->addr = odma_get_le(b + OFF_ADDR, 8);
	d->len = odma_get_le(b + OFF_LEN, 8);
	d->record_addr = odma_get_le(b + OFF_RECORD, 8);
	memcpy(d->key, b + OFF_KEY, 16);
	memcpy(d->pci, b + OFF_PCI, ODMA_EXPORT_PCI_LEN - 1);
	d->generation = (uint32_t)odma_get_le(b + OFF_GEN, 4);
	if (d->version != ODMA_EXPORT_DESC_VERSION_NET)
		return;
	d->pidns = odma_get_le(b + OFF_PIDNS, 8);
	memcpy(d->boot_id, b + OFF_BOOT, 16);
	d->region_id = (uint32_t)odma_get_le(b + OFF_RID, 4);
	d->net_len = (uint16_t)odma_get_le(b + OFF_ALEN, 2);
	memcpy(d->net_addr, b + OFF_NADDR, d->net_len);
}

doca_error_t odma_export_desc_parse(const void *bytes, size_t len, struct odma_export_desc *out,
                                    const char **why)
{
	static __thread struct odma_export_desc d; /* 640 bytes: off small stacks */
	const char *bad;

	if (bytes == NULL) {
		*why = "descriptor pointer is NULL";
		return DOCA_ERROR_INVALID_VALUE;
	}
	bad = desc_check_frame(bytes, len);
	if (bad == NULL) {
		desc_decode(bytes, &d);
		bad = desc_check_fields(bytes, &d);
	}
	if (bad != NULL) {
		*why = bad;
		return DOCA_ERROR_INVALID_VALUE;
	}
	*out = d;
	return DOCA_SUCCESS;
}

const char *odma_export_desc_diff(const uint8_t *bytes, size_t len, const uint8_t *issued,
                                  size_t issued_len)
{
	static const struct {
		uint8_t end; /* first offset after the field */
		const char *name;
	} fields[] = {
		{ OFF_KIND, "header" },
		{ OFF_SIDE, "kind" },
		{ OFF_RSVD0, "side" },
		{ OFF_PID, "reserved bytes" },
		{ OFF_PERMS, "exporter pid" },
		{ OFF_START, "permissions" },
		{ OFF_SYSTEM, "exporter start time" },
		{ OFF_ADDR, "system id" },
		{ OFF_LEN, "range address" },
		{ OFF_RECORD, "range length" },
		{ OFF_KEY, "record address" },
		{ OFF_PCI, "key" },
		{ OFF_GEN, "device PCI address" },
		{ OFF_CRC, "generation" },
		{ OFF_BOOT, "PID namespace" },
		{ OFF_RID, "boot id" },
		{ OFF_ALEN, "region id" },
		{ OFF_NADDR, "transport address length" },
	};
	size_t i = 0, n = len < issued_len ? len : issued_len;

	while (i < n && bytes[i] == issued[i])
		i++;
	if (i == n && len == issued_len)
		return NULL;
	if (i >= len - 4 || i >= issued_len - 4)
		return "checksum";
	if (i >= OFF_NADDR)
		return "transport address";
	for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++)
		if (i < fields[f].end)
			return fields[f].name;
	return "checksum";
}

bool odma_proc_stat(pid_t pid, char *state, uint64_t *start_time)
{
	char path[64], buf[1024];
	unsigned long long st;
	const char *p;
	ssize_t n;
	int fd;

	/*
	 * This process' own start time through its main thread's task entry: the same number the
	 * kernel shows others in /proc/<pid>/stat, while an emulator that stands in for
	 * /proc/self/stat (qemu-user fakes field 22 from its own clock, a tick or so off) would
	 * make every importer take our descriptors for a reused pid's.
	 */
	if (pid == getpid())
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* The command name may hold spaces and parentheses: fields resume after the last ')'. */
	p = strrchr(buf, ')');
	if (p == NULL)
		return false;
	*state = p[1] == ' ' ? p[2] : '\0';
	/* Step to the space before field 22 (starttime); field 3 (state) follows ") ". */
	for (int field = 3; field <= 22; field++) {
		p = strchr(p + 1, ' ');
		if (p == NULL)
			return false;
	}
	if (sscanf(p + 1, "%llu", &st) != 1)
		return false;
	*start_time = st;
	return true;
}

bool odma_proc_start_time(pid_t pid, uint64_t *start_time)
{
	char state;

	return odma_proc_stat(pid, &state, start_time);
}

bool odma_export_desc_live(const struct odma_export_desc *d, const char **why)
{
	uint64_t st;

	if (!odma_proc_start_time((pid_t)d->pid, &st)) {
		*why = "the exporting process no longer runs (stale descriptor)";
		return false;
	}
	if (st != d->start_time) {
		*why = "the exporter's pid now belongs to another process (stale descriptor)";
		return false;
	}
	return true;
}
