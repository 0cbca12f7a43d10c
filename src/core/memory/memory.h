/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* The memory module's face: mmaps, bufs and inventories, and export/import records. */
#ifndef ODMA_CORE_MEMORY_H_
#define ODMA_CORE_MEMORY_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <doca_buf.h>
#include <doca_compat.h>
#include <doca_buf_inventory.h>
#include <doca_error.h>
#include <doca_mmap.h>

#include "core/device/device.h"
#include "core/transport/transport.h"

/*
 * Memory maps. A local mmap describes a range of this process's memory; a
 * from-export mmap describes a range in another process (the exporter) and is
 * reached through the cross-process mover.
 */

#define ODMA_MMAP_DEFAULT_MAX_DEVS 64

/*
 * Where an mmap's bytes live, fixed when the mmap is made (local) or imported (another
 * process). core/copy moves the bytes of each kind with one mover (core/copy/mover.h); a
 * copy touching several kinds is moved by the mover of the highest. A new kind (UCX, GPU
 * memory) goes here, before ODMA_MEM_KINDS.
 */
enum odma_mem_kind {
	ODMA_MEM_LOCAL = 0,   /* this process' memory */
	ODMA_MEM_PROCESS = 1, /* another process' memory, through its export record */
	ODMA_MEM_NET = 2,     /* another process' memory over a network transport (async) */
	ODMA_MEM_KINDS
};

/* One export descriptor handed out by export_pci/export_rdma (owned by the mmap). */

struct odma_export {
	struct odma_export *next;
	const struct doca_dev *dev;
	int kind;   /* enum odma_export_kind */
	void *desc; /* the descriptor bytes */
	size_t desc_len;
	struct odma_tp_region *record; /* exporter-side region record (core/transport) */
};

struct doca_mmap {
	uint8_t *addr; /* local range; for a from-export mmap: the exporter's address */
	size_t len;
	bool range_set;
	uint32_t perms; /* DOCA_ACCESS_FLAG_* mask; LOCAL_READ_WRITE unless set */
	bool started;
	bool ever_started;
	atomic_bool exported; /* export_* succeeded at least once */
	bool from_export;     /* created by doca_mmap_create_from_export (the API's view) */
	bool rdma_import; /* from an RDMA export: its bytes are reached over an RDMA connection */
	uint8_t kind;     /* enum odma_mem_kind (the movers' view) */
	struct doca_dev **devs;
	uint32_t num_devs;
	uint32_t max_devs;
	atomic_uint num_bufs;  /* bufs currently pointing into the mmap */
	atomic_uint num_pools; /* buf pools created on it and not destroyed (destroy: IN_USE) */
	doca_mmap_memrange_free_cb_t *free_cb;
	void *free_cb_opaque;
	bool free_cb_changed; /* set_free_cb called more than once */
	union doca_data user_data;
	/* descriptors handed out (freed on stop/destroy); threads of a thread-safe mmap may export
	 * at once, so a new one is pushed with a compare-and-swap */
	_Atomic(struct odma_export *) exports;
	/* from-export only: the attachment (perms are the exporter's DOCA_ACCESS_FLAG_*) */
	struct odma_tp_remote *remote;
	atomic_bool write_warned; /* the WARNING of a tolerated local write was logged */
	bool thread_safe;         /* doca_mmap_enable_thread_safety: bufs are not counted */
};

/* The DOCA_ACCESS_FLAG_* groups: PCI access, RDMA access, and every flag an mmap may hold. */
#define ODMA_PERMS_PCI (DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE)
#define ODMA_PERMS_RDMA                                                                            \
	(DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC)
#define ODMA_PERMS_ALL                                                                             \
	(DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | ODMA_PERMS_PCI | ODMA_PERMS_RDMA |                    \
	 DOCA_ACCESS_FLAG_PCI_RELAXED_ORDERING)

/*
 * The access rule: which DOCA_ACCESS_FLAG_* masks let a device write into memory
 * (docs/differences-from-hardware.md, "Access flags"). doca_mmap_start (which pages must be
 * writable) and every submit (a writable destination) ask these and nothing else.
 *
 * Local write: LOCAL_READ_WRITE allows it as documented. PCI_READ_WRITE, RDMA_WRITE and
 * RDMA_ATOMIC let a device write into the range, so hardware registers it writable for the
 * local device too and a local DMA write succeeds there; odma accepts it with one WARNING per
 * mmap (ODMA_PERM_TOLERATED). Remote write (through an export): PCI_READ_WRITE or RDMA_WRITE.
 */
#define ODMA_PERMS_REMOTE_WRITE (DOCA_ACCESS_FLAG_PCI_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE)
#define ODMA_PERMS_DEVICE_WRITE (ODMA_PERMS_REMOTE_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC)

enum odma_perm_verdict {
	ODMA_PERM_NO = 0,        /* refused */
	ODMA_PERM_YES = 1,       /* documented */
	ODMA_PERM_TOLERATED = 2, /* undocumented, allowed by hardware: accepted, one WARNING */
};

static inline enum odma_perm_verdict odma_perm_local_write(uint32_t perms)
{
	if (doca_likely((perms & DOCA_ACCESS_FLAG_LOCAL_READ_WRITE) != 0))
		return ODMA_PERM_YES;
	return (perms & ODMA_PERMS_DEVICE_WRITE) != 0 ? ODMA_PERM_TOLERATED : ODMA_PERM_NO;
}

static inline bool odma_perm_remote_write(uint32_t perms)
{
	return (perms & ODMA_PERMS_REMOTE_WRITE) != 0;
}

/* Whether any device may write into a range with @perms (what doca_mmap_start checks). */
static inline bool odma_perm_any_write(uint32_t perms)
{
	return odma_perm_local_write(perms) != ODMA_PERM_NO || odma_perm_remote_write(perms);
}

/*
 * Writes the flags of @perms into @out as "LOCAL_READ_ONLY|PCI_READ_ONLY" (LOCAL_READ_ONLY,
 * the value 0, is named when LOCAL_READ_WRITE is not set). Returns @out.
 */
const char *odma_perm_names(uint32_t perms, char *out, size_t n);
#define ODMA_PERM_NAMES_LEN 128

/*
 * Whether an import's grant lets a device write: PCI_READ_WRITE for a PCI export, RDMA_WRITE for
 * an RDMA one (the other family's flag is the exporter's other exports' business).
 */
static inline bool odma_mmap_import_writable(const struct doca_mmap *mmap)
{
	uint32_t want =
	        mmap->rdma_import ? DOCA_ACCESS_FLAG_RDMA_WRITE : DOCA_ACCESS_FLAG_PCI_READ_WRITE;

	return mmap->remote != NULL && (mmap->perms & want) != 0;
}

/*
 * Whether a DMA may write into memory of this mmap (local or remote) without a word: the
 * per-task fast path. A tolerated local write passes here once its WARNING was logged.
 */
static inline bool odma_mmap_writable_quiet(const struct doca_mmap *mmap)
{
	if (doca_unlikely(mmap->from_export))
		return odma_mmap_import_writable(mmap);
	return odma_perm_local_write(mmap->perms) == ODMA_PERM_YES ||
	       atomic_load_explicit(&mmap->write_warned, memory_order_relaxed);
}

/*
 * The destination check of a submit: DOCA_SUCCESS (a tolerated write logs its WARNING once per
 * mmap) or DOCA_ERROR_NOT_PERMITTED with one line naming the mmap's flags and the fix.
 */
doca_error_t odma_mmap_check_dst(struct doca_mmap *mmap, const void *buf);

/* Buf accounting, called by the inventory; a thread-safe mmap does not count its bufs. */
static inline bool odma_mmap_buf_get(struct doca_mmap *mmap)
{
	if (mmap->thread_safe)
		return false;
	atomic_fetch_add_explicit(&mmap->num_bufs, 1, memory_order_relaxed);
	return true;
}

static inline void odma_mmap_buf_put(struct doca_mmap *mmap)
{
	atomic_fetch_sub_explicit(&mmap->num_bufs, 1, memory_order_relaxed);
}

/* Whether [p, p + n) lies inside [base, base + len); written so that nothing overflows. */
static inline bool odma_range_inside(const void *p, size_t n, const void *base, size_t len)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)base;

	return a >= b && n <= len && a - b <= len - n;
}

/* Whether [addr, addr+len) lies inside the mmap's range. */
static inline bool odma_mmap_contains(const struct doca_mmap *mmap, const void *addr, size_t len)
{
	return odma_range_inside(addr, len, mmap->addr, mmap->len);
}

enum odma_range_verdict {
	ODMA_RANGE_OK = 0,
	ODMA_RANGE_UNMAPPED,  /* a page of the range is not mapped */
	ODMA_RANGE_NO_READ,   /* a page is mapped without read access (PROT_NONE) */
	ODMA_RANGE_NO_WRITE,  /* a page is read-only and @write was asked */
	ODMA_RANGE_UNKNOWN,   /* /proc/self/maps could not be read, nor the pages probed */
	ODMA_RANGE_UNCHECKED, /* /proc/self/maps could not be read; every page is mapped (mincore),
	                         the permissions are not known */
};

/*
 * Whether this process may read (and, with @write, write) every byte of [addr, addr+len),
 * from /proc/self/maps (range.c); touches no page. On a failure *@bad is the first address
 * that fails.
 */
enum odma_range_verdict odma_range_check(const void *addr, size_t len, bool write, uintptr_t *bad);

/*
 * Buffers and inventories. A doca_buf is a window (head, len) into an mmap with a
 * data segment (data, data_len) inside it. Bufs chain into lists; only the list
 * head carries a meaningful refcount. Inventories hold a fixed array of bufs.
 */

struct doca_buf {
	uint8_t *head;   /* start of the window (for a from-export mmap: remote address) */
	size_t len;      /* window length */
	uint8_t *data;   /* start of valid data */
	size_t data_len; /* bytes of valid data */
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	struct doca_buf *next;      /* next element in the list, NULL at the end */
	struct doca_buf *list_head; /* head of the list this buf is in (itself when head) */
	struct doca_buf *last;      /* head only: last element (NULL on other elements) */
	uint32_t list_len;          /* head only: number of elements (0 on other elements) */
	uint16_t refcount;          /* head only; 1 for non-head elements */
	bool in_use;                /* handed out by the inventory */
	bool counted;               /* counted in mmap->num_bufs (the mmap is not thread-safe) */
	/*
	 * ODMA_BUF_FAST_*: what the submit path of a plain local copy would check, decided when
	 * it changes (odma_buf_fast_update: bind, release, chain, unchain, dup), so a submit
	 * compares one word a side with its context's (odma_buf_fast_want).
	 */
	uint16_t fast;
	struct doca_buf *free_next; /* inventory free list */
};

/*
 * In use, the last element of its list (next NULL), in this process' memory (not an import)
 * of an mmap that counts its bufs (not thread-safe: it cannot be stopped or reconfigured
 * under the buf), that mmap on exactly one device, whose number (odma_dev_fast_id) is in the bits
 * from ODMA_BUF_FAST_DEV_SHIFT up: a context of that device only may copy it without a question.
 */
#define ODMA_BUF_FAST_SRC 1u
/* That, and a destination without a question: its mmap grants local writes outright. */
#define ODMA_BUF_FAST_DST 2u
#define ODMA_BUF_FAST_DEV_SHIFT 2

/* A device's number in the fast word (its place in the profile + 1; 0: none fits). */
static inline uint16_t odma_dev_fast_id(const struct doca_dev *dev)
{
	uint32_t i = dev != NULL ? dev->info->index + 1 : 0;

	return i < (1u << (16 - ODMA_BUF_FAST_DEV_SHIFT)) ? (uint16_t)i : 0;
}

/* The fast word a source and a destination must have to be copied by a context of @dev. */
static inline uint16_t odma_buf_fast_want(const struct doca_dev *dev)
{
	uint16_t id = odma_dev_fast_id(dev);

	return id != 0 ? (uint16_t)(id << ODMA_BUF_FAST_DEV_SHIFT | ODMA_BUF_FAST_SRC |
	                            ODMA_BUF_FAST_DST)
	               : 0;
}

/*
 * Whether @dev was added to @mmap (doca_mmap_add_dev, or the device a from-export mmap was
 * created through): DOCA's rule for every device that accesses the memory.
 */
static inline bool odma_mmap_has_dev(const struct doca_mmap *mmap, const struct doca_dev *dev)
{
	if (doca_likely(mmap->num_devs != 0 && mmap->devs[0] == dev))
		return true;
	for (uint32_t i = 1; i < mmap->num_devs; i++)
		if (mmap->devs[i] == dev)
			return true;
	return false;
}

/*
 * Whether the memory of @mmap is registered with its devices: a local mmap while started, an
 * imported one always (its exporter's state is checked by the movers; NVIDIA's samples take
 * bufs from an import without doca_mmap_start). Only a thread-safe mmap can be stopped while
 * bufs point into it.
 */
static inline bool odma_mmap_live(const struct doca_mmap *mmap)
{
	return mmap->started || mmap->from_export;
}

/* Bufs added by doca_buf_inventory_expand: one allocation per call, freed with the inventory. */
struct odma_buf_chunk {
	struct odma_buf_chunk *next;
	uint32_t num;
	struct doca_buf bufs[];
};

/*
 * An inventory is single-threaded, as DOCA's, until it serves a buf of a thread-safe mmap
 * (doca_mmap_enable_thread_safety): from then on (shared) every take and return holds its
 * spinlock, so threads may take bufs from it and return them at once.
 */
struct doca_buf_inventory {
	struct doca_buf *bufs; /* array of num_elements */
	uint32_t num_elements;
	uint32_t num_free;
	struct doca_buf *free_list;
	bool started;
	union doca_data user_data;
	struct odma_buf_chunk *chunks; /* extra arrays added by doca_buf_inventory_expand */
	atomic_bool shared;            /* served a thread-safe mmap: lock every take/return */
	atomic_flag lock;
};

/* Takes @inv's lock if it is shared; returns whether it did (pass it to the unlock). */
bool odma_inv_lock_slow(struct doca_buf_inventory *inv);
static inline bool odma_inv_lock(struct doca_buf_inventory *inv)
{
	if (doca_likely(!atomic_load_explicit(&inv->shared, memory_order_acquire)))
		return false;
	return odma_inv_lock_slow(inv);
}

static inline void odma_inv_unlock(struct doca_buf_inventory *inv, bool locked)
{
	if (locked)
		atomic_flag_clear_explicit(&inv->lock, memory_order_release);
}
/*
 * @inv's free bufs, read under its lock whether or not it is shared yet (a first take over a
 * thread-safe mmap may be making it shared at this moment).
 */
uint32_t odma_inv_num_free(const struct doca_buf_inventory *inv);
/* Makes @inv shared before it serves a buf of @mmap, when @mmap is thread-safe. */
void odma_inv_share_for(struct doca_buf_inventory *inv, const struct doca_mmap *mmap);
/* Puts an array of @n fresh bufs on the free list of @inv, @bufs[0] first out. */
void odma_inv_add_free(struct doca_buf_inventory *inv, struct doca_buf *bufs, uint32_t n);
/*
 * Refuses with @code, in one line under @fn, to stop or destroy @obj (an @what: "mmap",
 * "inventory", "pool") while @held of its bufs are still out (@how: "in use", ...).
 */
doca_error_t odma_check_no_bufs_held(const char *fn, const char *what, const void *obj,
                                     uint32_t held, const char *how, doca_error_t code);
/* Pops a free buf of @inv (the caller holds the lock when shared; one is free). */
struct doca_buf *odma_inv_pop(struct doca_buf_inventory *inv);
/* Binds a popped buf to a window of @mmap: a lone list head with refcount 1. */
void odma_buf_bind(struct doca_buf *b, struct doca_mmap *mmap, uint8_t *head, size_t len,
                   uint8_t *data, size_t data_len);

/* Whether @buf is the head of its list (a lone buf is). */
static inline bool odma_buf_is_head(const struct doca_buf *buf)
{
	return buf->list_head == buf;
}

/* Bytes free after the data segment of @b, up to the end of its window. */
static inline size_t odma_buf_room(const struct doca_buf *b)
{
	return (size_t)(b->head + b->len - (b->data + b->data_len));
}

/* Bytes free after the data segments of the list that starts at @b (odma_buf_room summed). */
static inline size_t odma_buf_list_room(const struct doca_buf *b)
{
	size_t n = 0;

	for (; b != NULL; b = b->next)
		n += odma_buf_room(b);
	return n;
}

/* Bytes in the data segments of the list that starts at @b. */
static inline size_t odma_buf_list_data_len(const struct doca_buf *b)
{
	size_t n = 0;

	for (; b != NULL; b = b->next)
		n += b->data_len;
	return n;
}

/* Recomputes @b->fast after its in_use, next or mmap changed. */
static inline void odma_buf_fast_update(struct doca_buf *b)
{
	const struct doca_mmap *m = b->mmap;
	uint16_t f = 0, id;

	/* counted: the mmap cannot be stopped, nor its devices or flags changed, under the buf */
	if (b->in_use && b->counted && b->next == NULL && m != NULL && m->kind == ODMA_MEM_LOCAL &&
	    !m->from_export && m->num_devs == 1 && (id = odma_dev_fast_id(m->devs[0])) != 0) {
		f = (uint16_t)(id << ODMA_BUF_FAST_DEV_SHIFT | ODMA_BUF_FAST_SRC);
		if (odma_perm_local_write(m->perms) == ODMA_PERM_YES)
			f |= ODMA_BUF_FAST_DST;
	}
	b->fast = f;
}

/*
 * One step of a copy that walks a source list (data segments) and a destination list (free
 * tails) side by side: advances both cursors by @n bytes and moves a cursor onto the next
 * element once it reaches the end of its segment.
 */
static inline void odma_buf_walk(const struct doca_buf **s, size_t *s_off, struct doca_buf **d,
                                 size_t *d_off, size_t n)
{
	*s_off += n;
	*d_off += n;
	if (*s_off == (*s)->data_len) {
		*s = (*s)->next;
		*s_off = 0;
	}
	if (*d_off == odma_buf_room(*d)) {
		*d = (*d)->next;
		*d_off = 0;
	}
}

/*
 * Whether a task that writes @len bytes into the free tails of the list @dst (element after
 * element) would write over a data byte of the list @src. Only addresses of one space are
 * compared: both elements in this process' memory, or both in one import (the exporter's
 * addresses). DMA's try_submit, erasure coding and compress refuse such a task; exported
 * (doca_priv_ prefix) for the libraries of the last two.
 */
DOCA_STABLE bool doca_priv_buf_writes_overlap(const struct doca_buf *src,
                                              const struct doca_buf *dst, uint64_t len);

/*
 * Precondition M16 (docs/preconditions.md, key mmap-stopped), one line for every library: a
 * task's buf @b whose mmap is stopped (only a thread-safe mmap can be stopped under its bufs)
 * is refused with DOCA_ERROR_BAD_STATE and one ERROR line under doca_task_submit naming the
 * task (@lib and @kind: "EC" and "create"), @task, the buf, the mmap and the fix.
 * odma_buf_registered makes the check inline and calls this only to refuse.
 */
DOCA_STABLE doca_error_t doca_priv_buf_refuse_stopped(const char *lib, const char *kind,
                                                      const void *task, const struct doca_buf *b);

/* DOCA_SUCCESS when the memory of @b is registered, else M16's refusal (above). */
static inline doca_error_t odma_buf_registered(const char *lib, const char *kind, const void *task,
                                               const struct doca_buf *b)
{
	if (doca_likely(odma_mmap_live(b->mmap)))
		return DOCA_SUCCESS;
	return doca_priv_buf_refuse_stopped(lib, kind, task, b);
}

/*
 * Returns one element (not its list) to its inventory and drops its mmap count.
 * Used by doca_buf_dec_refcount when a list's count reaches 0.
 */
void odma_buf_inventory_put(struct doca_buf *buf);

/*
 * Export descriptors (docs/host-dpu.md): the bytes doca_mmap_export_pci/_rdma hand out
 * and doca_mmap_create_from_export reads back, plus the exporter-side export record that
 * is the authority on them: the importer reads it to verify a descriptor at import and
 * checks it again before every cross-process move. A descriptor is untrusted input.
 */

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
/*
 * Version 3 (exports made with a network transport wanted, see odma_tp_net_wanted): the
 * version-2 fields, then the exporter's PID namespace, boot id, region id and transport
 * address (struct odma_tp_reach), then the CRC32C: 136 + address bytes.
 */
#define ODMA_EXPORT_DESC_VERSION_NET 3
#define ODMA_EXPORT_DESC_NET_MIN 136
#define ODMA_EXPORT_DESC_MAX (ODMA_EXPORT_DESC_NET_MIN + ODMA_TP_ADDR_MAX)
#define ODMA_EXPORT_PCI_LEN 16

/*
 * A PCI address field of @len bytes in a descriptor or export blob: 1..@len-1 characters
 * of hex digits (either case, as DOCA takes them), ':' and '.', then NUL bytes to the end.
 */
bool odma_pci_field_ok(const uint8_t *p, size_t len);

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
	uint64_t record_addr; /* exporter-side struct odma_tp_region */
	uint8_t key[16];
	char pci[ODMA_EXPORT_PCI_LEN]; /* exporting device, NUL-terminated */
	uint32_t generation;           /* of the export record when this export was made */
	/* version 3 only (0 / empty in version 2: the exporter shares our kernel) */
	uint64_t pidns;
	uint8_t boot_id[16];
	uint32_t region_id;
	uint16_t net_len;
	uint8_t net_addr[ODMA_TP_ADDR_MAX];
};

/*
 * Encodes @d into @out (ODMA_EXPORT_DESC_MAX bytes of room; computes the checksum) as
 * version d->version (2 or 3); returns the descriptor's length.
 */
size_t odma_export_desc_encode(const struct odma_export_desc *d, uint8_t *out);

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
 * Compares a presented descriptor @bytes (@len bytes, already parsed) with the exporter's
 * own copy @issued (@issued_len bytes). NULL when identical; otherwise the name of the
 * first field that differs (for the log line of a refused import).
 */
const char *odma_export_desc_diff(const uint8_t *bytes, size_t len, const uint8_t *issued,
                                  size_t issued_len);

/*
 * State (field 3, '\0' when the line is malformed there) and start time (field 22) of @pid,
 * from /proc/<pid>/stat; false if they cannot be read.
 */
bool odma_proc_stat(pid_t pid, char *state, uint64_t *start_time);
/* Start time of @pid (field 22 of /proc/<pid>/stat); false if it cannot be read. */
bool odma_proc_start_time(pid_t pid, uint64_t *start_time);

/* Revokes every export record of @mmap (stop/destroy); the records go back to a pool. */
void odma_export_revoke_all(struct doca_mmap *mmap);

/*
 * RDMA target side (export.c; called by libdoca_rdma's service threads): the exporter
 * serves one remote access to an mmap it exported with doca_mmap_export_rdma. The request
 * names the export by its record address and key (never dereferenced before it is found
 * among the transport registry's live RDMA grants); [addr, addr + len) must lie in the
 * exported range and @op needs its permission. The access holds the record, and revocation
 * (mmap stop/destroy) waits for it, so a revoked export is never touched afterwards.
 *   READ:  len bytes from the target into @buf;   WRITE: len bytes of @buf into the target;
 *   CMP_SWP: 8 bytes, buf[0] compare, buf[1] swap, buf[0] := old;
 *   FETCH_ADD: 8 bytes, buf[0] add, buf[0] := old.
 * DOCA_SUCCESS, DOCA_ERROR_NOT_FOUND (no such live export: unknown, revoked, wrong key),
 * DOCA_ERROR_INVALID_VALUE (outside the exported range, misaligned atomic),
 * DOCA_ERROR_NOT_PERMITTED (the export lacks RDMA_READ / RDMA_WRITE / RDMA_ATOMIC),
 * DOCA_ERROR_IO_FAILED (the program unmapped or protected the pages after the export; for a
 * re-export, the original exporter refused or did not answer).
 * A re-export (doca_mmap_export_rdma of an mmap imported from a PCI export) is served by
 * forwarding each read or write to the original exporter; it grants at most what the import
 * does, and no atomics.
 */
enum odma_rdma_op {
	ODMA_RDMA_OP_READ = 0,
	ODMA_RDMA_OP_WRITE = 1,
	ODMA_RDMA_OP_CMP_SWP = 2,
	ODMA_RDMA_OP_FETCH_ADD = 3,
};
DOCA_STABLE doca_error_t doca_priv_rdma_mem_access(uint64_t record_addr, const uint8_t key[16],
                                                   uint64_t addr, uint64_t len, int op, void *buf);

/*
 * Whether accesses to the RDMA export of @record_addr are forwarded (a re-export of an
 * imported PCI export: they wait for the original exporter, so never on a transport thread).
 */
DOCA_STABLE bool doca_priv_rdma_mem_forwarded(uint64_t record_addr);

/*
 * The export identity an RDMA initiator presents for a buf of an mmap imported from an RDMA
 * export: false when @mmap is not one.
 */
DOCA_STABLE bool doca_priv_rdma_mem_remote(const struct doca_mmap *mmap, uint64_t *record_addr,
                                           uint8_t key[16], uint32_t *perms);

/*
 * Attaches the region an RDMA import (@mmap) names, over @ep, an endpoint to its exporter
 * (rdma_attach.c): then a read or write of it is one odma_tp_io_start on @rm, checked by the
 * exporter against its record. DOCA_ERROR_NOT_SUPPORTED when @mmap names no region (a
 * re-export, reached only by requests its exporter forwards); else odma_tp_ep_attach's
 * result (INVALID_VALUE: refused, unknown or revoked; IO_FAILED: no answer). Blocks for one
 * round trip; not on a transport thread. doca_priv_rdma_mem_detach: odma_tp_detach (no io of
 * @rm may be in flight).
 */
DOCA_STABLE doca_error_t doca_priv_rdma_mem_attach(const struct doca_mmap *mmap,
                                                   struct odma_tp_ep *ep,
                                                   struct odma_tp_remote *rm);
DOCA_STABLE void doca_priv_rdma_mem_detach(struct odma_tp_remote *rm);

#endif /* ODMA_CORE_MEMORY_H_ */
