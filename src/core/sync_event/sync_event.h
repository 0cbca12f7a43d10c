/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The sync event module's face: the export blob (what doca_sync_event_export_to_remote_pci
 * hands out and doca_sync_event_create_from_export reads back). Its parser is a pure
 * function of its input bytes, fuzzed by fuzz/fuzz_se_blob.c. Format: docs/host-dpu.md.
 */
#ifndef ODMA_CORE_SYNC_EVENT_H_
#define ODMA_CORE_SYNC_EVENT_H_

#include <stddef.h>
#include <stdint.h>

#include <stdbool.h>

#include <doca_compat.h>
#include <doca_error.h>

#define ODMA_SE_BLOB_MAGIC "ODMASEVX"
#define ODMA_SE_BLOB_VERSION 1
#define ODMA_SE_BLOB_VERSION_NET 2 /* version 1 + the exporter's network reach */
#define ODMA_SE_BLOB_LEN 88        /* version 1: fixed size, CRC32C in the last 4 bytes */
#define ODMA_SE_BLOB_NET_MIN 148   /* version 2 without its address bytes */
#define ODMA_SE_ADDR_MAX 512       /* = ODMA_TP_ADDR_MAX */
#define ODMA_SE_BLOB_MAX (ODMA_SE_BLOB_NET_MIN + ODMA_SE_ADDR_MAX)
#define ODMA_SE_BLOB_PCI_LEN 16

/* The decoded fields of an export blob (host byte order). */
struct odma_se_blob {
	uint16_t version;
	uint8_t side;                   /* enum odma_side of the exporting device */
	uint32_t pid;                   /* exporting process */
	uint32_t fd;                    /* its descriptor of the shared page (a memfd) */
	uint64_t start_time;            /* /proc/<pid>/stat field 22 */
	uint64_t system_id;             /* FNV-1a of the system profile */
	uint8_t key[16];                /* random; also written in the shared page */
	char pci[ODMA_SE_BLOB_PCI_LEN]; /* exporting device, NUL-terminated */
	/* version 2: how an importer of another kernel or PID namespace reaches the value */
	uint64_t pidns;                     /* inode of the exporter's PID namespace */
	uint8_t boot_id[16];                /* of the exporter's kernel */
	uint32_t region_id;                 /* the transport region holding the value */
	uint32_t generation;                /* of that region */
	uint8_t rkey[16];                   /* its key */
	uint64_t value_addr;                /* the value's address in the exporter */
	uint16_t net_len;                   /* 1..ODMA_SE_ADDR_MAX */
	uint8_t net_addr[ODMA_SE_ADDR_MAX]; /* the exporter's UCX worker address */
};

/*
 * Encodes @b into @out (room for ODMA_SE_BLOB_MAX bytes; computes the checksum): version 1
 * when @b->version is not 2, else version 2. Returns the length.
 */
size_t odma_se_blob_encode(const struct odma_se_blob *b, uint8_t *out);

/*
 * Pure parser: checks @len bytes at @bytes (any bytes are safe) and fills @out. Returns
 * DOCA_SUCCESS or DOCA_ERROR_INVALID_VALUE with *@why set to a static explanation.
 */
doca_error_t odma_se_blob_parse(const void *bytes, size_t len, struct odma_se_blob *out,
                                const char **why);

/*
 * Remote-net sync events (se_remote_net.c), for libdoca_rdma: the identity a peer's handle
 * presents, and the exporter applying one remote operation to its event (GET reads into
 * *@value; SET writes *@value; ADD adds *@value and returns the old value in it), waking its
 * waiters. DOCA_SUCCESS, DOCA_ERROR_NOT_FOUND (no such exported, started event).
 */
struct doca_sync_event_remote_net;
enum odma_se_net_op {
	ODMA_SE_NET_GET = 0,
	ODMA_SE_NET_SET = 1,
	ODMA_SE_NET_ADD = 2,
};
DOCA_STABLE bool doca_priv_se_remote_net_ident(const struct doca_sync_event_remote_net *h,
                                               uint32_t *id, uint8_t key[16]);
DOCA_STABLE doca_error_t doca_priv_se_remote_access(uint32_t id, const uint8_t key[16], int op,
                                                    uint64_t *value);

/*
 * White box (tests): the watches this process' waits on sync events imported over the network
 * sent, and how many of them were answered with a changed value.
 */
DOCA_STABLE void doca_priv_se_net_watches(uint64_t *sent, uint64_t *changed);

#endif /* ODMA_CORE_SYNC_EVENT_H_ */
