/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Export descriptors (docs/host-dpu.md): the bytes doca_mmap_export_pci/_rdma hand out
 * and doca_mmap_create_from_export reads back, plus the exporter-side export record that
 * is the authority on them: the importer reads it to verify a descriptor at import and
 * checks it again before every cross-process move. A descriptor is untrusted input.
 */
#ifndef ODMA_EXPORT_PRIV_H_
#define ODMA_EXPORT_PRIV_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <doca_error.h>

struct doca_mmap;
struct doca_devinfo;
struct odma_system;

enum odma_export_kind {
	ODMA_EXPORT_PCI = 1,
	ODMA_EXPORT_RDMA = 2,
};

#define ODMA_EXPORT_DESC_MAGIC "ODMAXDSC"
#define ODMA_EXPORT_DESC_VERSION 2
#define ODMA_EXPORT_DESC_LEN 104 /* version 2: fixed size, CRC32C in the last 4 bytes */
#define ODMA_EXPORT_PCI_LEN 16

/* The decoded fields of a descriptor (host byte order). */
struct odma_export_desc {
	uint16_t version;
	uint8_t kind; /* enum odma_export_kind */
	uint8_t side; /* enum odma_side of the exporting device */
	uint32_t pid;
	uint32_t perms;
	uint64_t start_time; /* /proc/<pid>/stat field 22 (clock ticks since boot) */
	uint64_t system_id;
	uint64_t addr;
	uint64_t len;
	uint64_t record_addr; /* exporter-side struct odma_export_record */
	uint8_t key[16];
	char pci[ODMA_EXPORT_PCI_LEN]; /* exporting device, NUL-terminated */
	uint32_t generation;           /* of the export record when this export was made */
};

/*
 * The exporter keeps one per export in its own memory; importers read it remotely. The
 * cross-process mover reads this header before each move; the import reads the whole
 * struct odma_export_slot.
 */
#define ODMA_EXPORT_RECORD_MAGIC 0x4f444d415245434fULL /* "ODMARECO" */
struct odma_export_record {
	uint64_t magic;
	uint8_t key[16];
	uint32_t alive;      /* 1 while the export stands; 0 once revoked */
	uint32_t generation; /* 1 for a new record, +1 each time the record is reused */
};

/* The record followed by the exact descriptor bytes the export handed out. */
struct odma_export_slot {
	struct odma_export_record rec;
	uint8_t desc[ODMA_EXPORT_DESC_LEN];
};

/* CRC32C (Castagnoli) of @len bytes. */
uint32_t odma_crc32c(const void *data, size_t len);

/* Encodes @d into @out[ODMA_EXPORT_DESC_LEN] (computes the checksum). */
void odma_export_desc_encode(const struct odma_export_desc *d, uint8_t *out);

/*
 * Pure parser: checks @len bytes at @bytes (any bytes are safe) and fills @out. Returns
 * DOCA_SUCCESS or DOCA_ERROR_INVALID_VALUE with *@why set to a static explanation.
 */
doca_error_t odma_export_desc_parse(const void *bytes, size_t len, struct odma_export_desc *out,
				    const char **why);

/*
 * Whether @pid runs and started at @start_time (detects a dead exporter or a reused pid);
 * reads /proc. false with *@why set when stale.
 */
bool odma_export_desc_live(const struct odma_export_desc *d, const char **why);

/*
 * Compares a presented descriptor @bytes with the exporter's own copy @issued (both
 * ODMA_EXPORT_DESC_LEN bytes). NULL when identical; otherwise the name of the first field
 * that differs (for the log line of a refused import).
 */
const char *odma_export_desc_diff(const uint8_t *bytes, const uint8_t *issued);

/* Start time of @pid (field 22 of /proc/<pid>/stat); false if it cannot be read. */
bool odma_proc_start_time(pid_t pid, uint64_t *start_time);

/* Revokes every export record of @mmap (stop/destroy); the records go back to a pool. */
void odma_export_revoke_all(struct doca_mmap *mmap);

#endif /* ODMA_EXPORT_PRIV_H_ */
