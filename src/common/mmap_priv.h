/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Memory maps. A local mmap describes a range of this process's memory; a
 * from-export mmap describes a range in another process (the exporter) and is
 * reached through the cross-process mover.
 */
#ifndef ODMA_MMAP_PRIV_H_
#define ODMA_MMAP_PRIV_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <doca_mmap.h>

#define ODMA_MMAP_DEFAULT_MAX_DEVS 64

/* One export descriptor handed out by export_pci/export_rdma (owned by the mmap). */
struct odma_export_record;

struct odma_export {
	struct odma_export *next;
	const struct doca_dev *dev;
	int kind;   /* ODMA_EXPORT_PCI / ODMA_EXPORT_RDMA (export_priv.h) */
	void *desc; /* the descriptor bytes */
	size_t desc_len;
	struct odma_export_record *record; /* exporter-side liveness record (export_priv.h) */
};

/* The remote side of a from-export mmap: who exported it and how to check it is still alive. */
struct odma_remote {
	pid_t pid;               /* exporter process */
	uint64_t pid_start_time; /* its start time (detects a reused pid) */
	uint64_t remote_addr;    /* exported range in the exporter's address space */
	uint64_t remote_len;
	uint32_t perms;  /* exporter's permissions (PCI_READ_ONLY / PCI_READ_WRITE / RDMA_*) */
	uint8_t key[16]; /* random key of the export */
	uint64_t record_addr; /* exporter's struct odma_export_record, checked before each move */
	atomic_bool failed;   /* a move failed and was logged: later failures stay quiet */
};

struct doca_mmap {
	uint8_t *addr; /* local range; for a from-export mmap: the exporter's address */
	size_t len;
	bool range_set;
	uint32_t perms; /* DOCA_ACCESS_FLAG_* mask; LOCAL_READ_WRITE unless set */
	bool started;
	bool ever_started;
	bool exported;    /* export_* succeeded at least once */
	bool from_export; /* created by doca_mmap_create_from_export */
	struct doca_dev **devs;
	uint32_t num_devs;
	uint32_t max_devs;
	atomic_uint num_bufs; /* bufs currently pointing into the mmap */
	doca_mmap_memrange_free_cb_t *free_cb;
	void *free_cb_opaque;
	bool free_cb_changed; /* set_free_cb called more than once */
	union doca_data user_data;
	struct odma_export *exports; /* descriptors handed out (freed on stop/destroy) */
	struct odma_remote *remote;  /* from-export only */
	void *export_state;          /* exporter-side liveness bookkeeping (export.c) */
};

/* Buf accounting, called by the inventory. */
static inline void odma_mmap_buf_get(struct doca_mmap *mmap)
{
	atomic_fetch_add_explicit(&mmap->num_bufs, 1, memory_order_relaxed);
}

static inline void odma_mmap_buf_put(struct doca_mmap *mmap)
{
	atomic_fetch_sub_explicit(&mmap->num_bufs, 1, memory_order_relaxed);
}

/* Whether [addr, addr+len) lies inside the mmap's range (no overflow). */
static inline bool odma_mmap_contains(const struct doca_mmap *mmap, const void *addr, size_t len)
{
	uintptr_t a = (uintptr_t)addr, b = (uintptr_t)mmap->addr;

	return a >= b && len <= mmap->len && a - b <= mmap->len - len;
}

/* Whether a DMA may write into memory of this mmap (local or remote). */
bool odma_mmap_writable(const struct doca_mmap *mmap);

#endif /* ODMA_MMAP_PRIV_H_ */
