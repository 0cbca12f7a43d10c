/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Export and import of mmaps between the two sides of the emulated system
 * (docs/host-dpu.md). The exporter hands out a descriptor and keeps, per export, a
 * record in its own memory holding the exact descriptor bytes it issued. The importer
 * treats the descriptor as untrusted: it reads that record (process_vm_readv) and imports
 * only a descriptor identical to one the exporter issued and has not revoked. The bytes of
 * a from-export mmap are then reached by the process mover (core/copy/mover_process.c), which
 * checks the record again before each move.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/device/device.h"
#include "core/memory/memory.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(ODMA_EXPORT)

#define PERMS_PCI (DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE)
#define PERMS_RDMA                                                                                 \
	(DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC)

/*
 * Records (struct odma_export_slot) are never returned to malloc: an importer may read a
 * record's address at any time, so a revoked record stays mapped (alive 0, key and copy
 * of the descriptor wiped) and is reused later with a fresh key and the next generation.
 * A reader racing the reuse sees another key or generation and treats it as revoked.
 */
#define SLOT_SIZE ((sizeof(struct odma_export_slot) + 63) & ~(size_t)63)

static pthread_mutex_t record_lock = PTHREAD_MUTEX_INITIALIZER;
static struct odma_export_record *record_free; /* linked through the first 8 bytes of key */

static struct odma_export_slot *slot_of(struct odma_export_record *r)
{
	return (struct odma_export_slot *)r; /* the record is the slot's first member */
}

static struct odma_export_record *record_get(void)
{
	struct odma_export_record *r;
	uint32_t generation = 0;

	pthread_mutex_lock(&record_lock);
	r = record_free;
	if (r != NULL) {
		memcpy(&record_free, r->key, sizeof(record_free));
		generation = r->generation;
	}
	pthread_mutex_unlock(&record_lock);
	if (r == NULL)
		r = aligned_alloc(64, SLOT_SIZE);
	if (r != NULL) {
		memset(slot_of(r), 0, sizeof(struct odma_export_slot));
		r->generation = generation + 1 != 0 ? generation + 1 : 1;
	}
	return r;
}

static void record_revoke(struct odma_export_record *r)
{
	__atomic_store_n(&r->alive, 0, __ATOMIC_SEQ_CST);
	memset(r->key, 0, sizeof(r->key));
	memset(slot_of(r)->desc, 0, sizeof(slot_of(r)->desc));
	pthread_mutex_lock(&record_lock);
	memcpy(r->key, &record_free, sizeof(record_free));
	record_free = r;
	pthread_mutex_unlock(&record_lock);
}

static void rdma_unregister(const struct odma_export_record *r);

void odma_export_revoke_all(struct doca_mmap *mmap)
{
	for (struct odma_export *e = mmap->exports; e != NULL; e = e->next) {
		if (e->record != NULL && e->kind == ODMA_EXPORT_RDMA)
			rdma_unregister(e->record);
		if (e->record != NULL)
			record_revoke(e->record);
		e->record = NULL;
	}
}

static void export_set_ptracer(void)
{
	/* Best effort: without Yama the call fails with EINVAL and nothing is needed. */
	(void)prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
}

/*
 * Under Yama ptrace_scope=1 only an ancestor may read our memory; an importer of the
 * other side is usually not one. Letting any same-user process attach is the software
 * equivalent of exposing the range over PCI (docs/host-dpu.md).
 */
static void export_allow_importers(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, export_set_ptracer);
}

/* The export rules (docs/host-dpu.md), checked in this order. */
static doca_error_t export_check(const struct doca_mmap *mmap, const struct doca_devinfo *info,
                                 const struct doca_dev *dev, int kind, const char *fn)
{
	bool pci = kind == ODMA_EXPORT_PCI;

	if (mmap->from_export) {
		ODMA_ERR_AT(fn,
		            "mmap %p was created from an export; only local mmaps can be exported",
		            (const void *)mmap);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (!mmap->started) {
		ODMA_ERR_AT(fn, "mmap %p is not started; call doca_mmap_start before exporting",
		            (const void *)mmap);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if ((mmap->perms & (pci ? PERMS_PCI : PERMS_RDMA)) == 0) {
		char names[ODMA_PERM_NAMES_LEN];

		ODMA_ERR_AT(fn,
		            "mmap %p permissions %s have no %s flag; fix: add one with "
		            "doca_mmap_set_permissions before start",
		            (const void *)mmap, odma_perm_names(mmap->perms, names, sizeof(names)),
		            pci ? "PCI_READ_ONLY/PCI_READ_WRITE" : "RDMA_*");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	for (uint32_t i = 0; i < mmap->num_devs; i++)
		if (mmap->devs[i] == dev)
			goto added;
	ODMA_ERR_AT(fn, "dev %p was never added to mmap %p; call doca_mmap_add_dev before start",
	            (const void *)dev, (const void *)mmap);
	return DOCA_ERROR_NOT_FOUND;
added:
	if (!(pci ? info->caps.export_pci : info->caps.export_rdma)) {
		ODMA_ERR_AT(fn,
		            "device %s cannot export an mmap over %s (see doca_mmap_cap_is_export_"
		            "pci_supported); use a device with the capability",
		            info->pci_addr, pci ? "PCI" : "RDMA");
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	return DOCA_SUCCESS;
}

/* Fills the descriptor fields that describe this process and the mmap. */
static bool export_fill(const struct doca_mmap *mmap, const struct doca_devinfo *info, int kind,
                        const struct odma_export_record *rec, struct odma_export_desc *d)
{
	const struct odma_system *sys = odma_system_get();

	memset(d, 0, sizeof(*d));
	d->kind = (uint8_t)kind;
	d->side = (uint8_t)info->side;
	d->pid = (uint32_t)getpid();
	if (sys == NULL || !odma_proc_start_time(getpid(), &d->start_time))
		return false;
	d->perms = mmap->perms;
	d->system_id = sys->id;
	d->addr = (uint64_t)(uintptr_t)mmap->addr;
	d->len = mmap->len;
	d->record_addr = (uint64_t)(uintptr_t)rec;
	d->generation = rec->generation;
	memcpy(d->key, rec->key, sizeof(d->key));
	memcpy(d->pci, info->pci_addr, strnlen(info->pci_addr, ODMA_EXPORT_PCI_LEN - 1));
	return true;
}

static struct odma_export *export_new(const struct doca_mmap *mmap, const struct doca_devinfo *info,
                                      const struct doca_dev *dev, int kind)
{
	struct odma_export *e = calloc(1, sizeof(*e));
	struct odma_export_desc d;

	if (e == NULL)
		return NULL;
	e->desc = malloc(ODMA_EXPORT_DESC_LEN);
	e->record = record_get();
	if (e->desc == NULL || e->record == NULL ||
	    getrandom(e->record->key, sizeof(e->record->key), 0) != sizeof(e->record->key) ||
	    !export_fill(mmap, info, kind, e->record, &d)) {
		if (e->record != NULL)
			record_revoke(e->record);
		free(e->desc);
		free(e);
		return NULL;
	}
	odma_export_desc_encode(&d, e->desc);
	e->desc_len = ODMA_EXPORT_DESC_LEN;
	e->dev = dev;
	e->kind = kind;
	/* The record keeps what was issued: the importer accepts nothing else. */
	memcpy(slot_of(e->record)->desc, e->desc, ODMA_EXPORT_DESC_LEN);
	e->record->magic = ODMA_EXPORT_RECORD_MAGIC;
	__atomic_store_n(&e->record->alive, 1, __ATOMIC_SEQ_CST);
	return e;
}

static bool rdma_register(struct odma_export_record *r, const struct doca_mmap *mmap);

static doca_error_t mmap_export(struct doca_mmap *mmap, const struct doca_dev *dev, int kind,
                                const void **desc, size_t *len, const char *fn)
{
	const struct doca_devinfo *info;
	struct odma_export *e;
	doca_error_t ret;

	if (mmap == NULL || dev == NULL || desc == NULL || len == NULL) {
		ODMA_ERR_AT(fn, "mmap, dev, export_desc and export_desc_len must not be NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	info = odma_dev_lookup(dev);
	if (info == NULL) {
		ODMA_ERR_AT(fn, "dev %p is not a device handle from doca_dev_open",
		            (const void *)dev);
		return DOCA_ERROR_INVALID_VALUE;
	}
	ret = export_check(mmap, info, dev, kind, fn);
	if (ret != DOCA_SUCCESS)
		return ret;
	e = export_new(mmap, info, dev, kind);
	if (e == NULL) {
		ODMA_ERR_AT(fn,
		            "mmap %p: cannot build the export descriptor (out of memory, or "
		            "getrandom//proc/self/stat failed)",
		            (void *)mmap);
		return DOCA_ERROR_NO_MEMORY;
	}
	export_allow_importers();
	if (kind == ODMA_EXPORT_RDMA && !rdma_register(e->record, mmap)) {
		record_revoke(e->record);
		free(e->desc);
		free(e);
		ODMA_ERR_AT(fn, "mmap %p: no memory to register the RDMA export", (void *)mmap);
		return DOCA_ERROR_NO_MEMORY;
	}
	e->next = mmap->exports;
	mmap->exports = e;
	mmap->exported = true;
	*desc = e->desc;
	*len = e->desc_len;
	ODMA_DBG("mmap %p exported (%s) through %s: %zu-byte descriptor", (void *)mmap,
	         kind == ODMA_EXPORT_PCI ? "pci" : "rdma", info->pci_addr, e->desc_len);
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_export_pci(struct doca_mmap *mmap, const struct doca_dev *dev,
                                  const void **export_desc, size_t *export_desc_len)
{
	return mmap_export(mmap, dev, ODMA_EXPORT_PCI, export_desc, export_desc_len,
	                   "doca_mmap_export_pci");
}

doca_error_t doca_mmap_export_rdma(struct doca_mmap *mmap, const struct doca_dev *dev,
                                   const void **export_desc, size_t *export_desc_len)
{
	return mmap_export(mmap, dev, ODMA_EXPORT_RDMA, export_desc, export_desc_len,
	                   "doca_mmap_export_rdma");
}

/* Whether the importing device may reach the exporter's memory (other side, same system). */
static doca_error_t import_check_dev(const struct odma_export_desc *d,
                                     const struct doca_devinfo *info)
{
	static const char fn[] = "doca_mmap_create_from_export";
	const struct odma_system *sys = odma_system_get();
	bool pci = d->kind == ODMA_EXPORT_PCI;

	if (sys == NULL || sys->id != d->system_id) {
		ODMA_ERR_AT(fn,
		            "descriptor comes from another system profile (id 0x%016llx, ours "
		            "0x%016llx); run both sides with the same ODMA_SYSTEM",
		            (unsigned long long)d->system_id,
		            sys ? (unsigned long long)sys->id : 0ULL);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if ((uint8_t)info->side == d->side) {
		ODMA_ERR_AT(fn,
		            "device %s is on the same side as the exporting device %s; import "
		            "through a device of the other side (host <-> DPU)",
		            info->pci_addr, d->pci);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (!(pci ? info->caps.from_export_pci : info->caps.from_export_rdma)) {
		ODMA_ERR_AT(fn,
		            "device %s cannot create an mmap from a%s export; use a device with "
		            "the from-export capability",
		            info->pci_addr, pci ? " PCI" : "n RDMA");
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	return DOCA_SUCCESS;
}

/*
 * Verifies @bytes against the exporter's authoritative record: the descriptor imports only
 * if it is byte for byte one the exporter issued and still holds (same generation, alive).
 */
/* Reads the exporter's record named by d into *s; fails when it cannot be read or is none. */
static doca_error_t import_read_record(const struct odma_export_desc *d, struct odma_export_slot *s)
{
	static const char fn[] = "doca_mmap_create_from_export";
	struct iovec l = { s, sizeof(*s) };
	struct iovec r = { (void *)(uintptr_t)d->record_addr, sizeof(*s) };
	ssize_t k;

	memset(s, 0, sizeof(*s));
	do
		k = process_vm_readv((pid_t)d->pid, &l, 1, &r, 1, 0);
	while (k < 0 && errno == EINTR);
	if (k < 0 && (errno == EPERM || errno == EACCES)) {
		ODMA_ERR_AT(fn,
		            "the kernel refused reading the export record of pid %u (%s): "
		            "importing needs ptrace rights over the exporter. Causes: the two "
		            "processes run as different users, or Yama "
		            "/proc/sys/kernel/yama/ptrace_scope is 2 or 3. Fixes: run both as the "
		            "same user, lower ptrace_scope, or give the importer CAP_SYS_PTRACE",
		            d->pid, strerror(errno));
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (k < 0 && errno == ESRCH) {
		ODMA_ERR_AT(fn,
		            "rejected descriptor of pid %u: the exporting process no longer "
		            "runs (stale descriptor); export again",
		            d->pid);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (k != (ssize_t)sizeof(*s) || s->rec.magic != ODMA_EXPORT_RECORD_MAGIC) {
		ODMA_ERR_AT(fn,
		            "rejected descriptor of pid %u: no export record at 0x%llx in the "
		            "exporter (forged or corrupted descriptor)",
		            d->pid, (unsigned long long)d->record_addr);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t import_verify(const struct odma_export_desc *d, const uint8_t *bytes)
{
	static const char fn[] = "doca_mmap_create_from_export";
	struct odma_export_slot s;
	const char *field;
	doca_error_t err = import_read_record(d, &s);

	if (err != DOCA_SUCCESS)
		return err;
	if (s.rec.generation > d->generation ||
	    (s.rec.generation == d->generation && s.rec.alive != 1)) {
		ODMA_ERR_AT(fn,
		            "rejected descriptor of pid %u: the export was revoked (the exporter "
		            "stopped or destroyed its mmap); export again",
		            d->pid);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (s.rec.generation < d->generation) {
		ODMA_ERR_AT(fn,
		            "rejected descriptor of pid %u: it names export generation %u, which "
		            "its exporter never issued (forged descriptor)",
		            d->pid, d->generation);
		return DOCA_ERROR_INVALID_VALUE;
	}
	field = odma_export_desc_diff(bytes, s.desc);
	if (field != NULL) {
		ODMA_ERR_AT(
		        fn,
		        "rejected descriptor of pid %u: its %s differs from what the exporter "
		        "exported (forged or altered descriptor); import the descriptor exactly as "
		        "doca_mmap_export_* returned it",
		        d->pid, field);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t import_check(const void *bytes, size_t len, const struct doca_devinfo *info,
                                 struct odma_export_desc *d)
{
	static const char fn[] = "doca_mmap_create_from_export";
	const char *why = NULL;
	doca_error_t ret;

	if (odma_export_desc_parse(bytes, len, d, &why) != DOCA_SUCCESS) {
		ODMA_ERR_AT(fn, "rejected %zu-byte descriptor: %s", len, why);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (d->kind == ODMA_EXPORT_RDMA)
		return DOCA_ERROR_AGAIN; /* checked by import_check_rdma */
	ret = import_check_dev(d, info);
	if (ret != DOCA_SUCCESS)
		return ret;
	if (!odma_export_desc_live(d, &why)) {
		ODMA_ERR_AT(fn, "rejected descriptor of pid %u: %s; export again", d->pid, why);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return import_verify(d, bytes);
}

/*
 * An RDMA export is imported by a peer anywhere on the network (another machine, another
 * profile, the same side): only the device's capability is checked here. The exporter checks
 * every access itself (doca_priv_rdma_mem_access), so a forged descriptor reaches nothing.
 */
static doca_error_t import_check_rdma(const struct odma_export_desc *d,
                                      const struct doca_devinfo *info)
{
	(void)d;
	if (!info->caps.from_export_rdma) {
		ODMA_ERR_AT(
		        "doca_mmap_create_from_export",
		        "device %s cannot create an mmap from an RDMA export; use a device with "
		        "the from_export_rdma capability",
		        info->pci_addr);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	return DOCA_SUCCESS;
}

static struct doca_mmap *import_build(const struct odma_export_desc *d, struct doca_dev *dev,
                                      const union doca_data *user_data)
{
	struct doca_mmap *m = calloc(1, sizeof(*m));
	struct odma_remote *r = calloc(1, sizeof(*r));
	struct doca_dev **devs = calloc(1, sizeof(*devs));

	if (m == NULL || r == NULL || devs == NULL) {
		free(m);
		free(r);
		free(devs);
		return NULL;
	}
	r->pid = (pid_t)d->pid;
	r->perms = d->perms;
	r->record_addr = d->record_addr;
	memcpy(r->key, d->key, sizeof(r->key));
	m->addr = (uint8_t *)(uintptr_t)d->addr;
	m->len = (size_t)d->len;
	m->range_set = true;
	m->perms = d->perms;
	m->from_export = true;
	m->kind = ODMA_MEM_PROCESS;
	m->rdma_import = d->kind == ODMA_EXPORT_RDMA;
	m->remote = r;
	m->devs = devs;
	devs[0] = dev;
	m->num_devs = 1;
	m->max_devs = 1;
	atomic_init(&m->num_bufs, 0);
	if (user_data != NULL)
		m->user_data = *user_data;
	odma_dev_hold(dev);
	return m;
}

doca_error_t doca_mmap_create_from_export(const union doca_data *user_data, const void *export_desc,
                                          size_t export_desc_len, struct doca_dev *dev,
                                          struct doca_mmap **mmap)
{
	struct odma_export_desc d;
	struct doca_devinfo *info;
	struct doca_mmap *m;
	doca_error_t ret;

	ODMA_CHECK_ARG(export_desc != NULL && dev != NULL && mmap != NULL,
	               "export_desc, dev and mmap must not be NULL");
	info = odma_dev_lookup(dev);
	ODMA_CHECK_ARG(info != NULL, "dev %p is not a device handle from doca_dev_open",
	               (void *)dev);
	ret = import_check(export_desc, export_desc_len, info, &d);
	if (ret == DOCA_ERROR_AGAIN)
		ret = import_check_rdma(&d, info);
	if (ret != DOCA_SUCCESS)
		return ret;
	if (sizeof(size_t) < 8 && d.len > SIZE_MAX) {
		ODMA_ERR("descriptor range of %llu bytes does not fit this process",
		         (unsigned long long)d.len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	m = import_build(&d, dev, user_data);
	if (m == NULL) {
		ODMA_ERR("out of memory creating an mmap from an export");
		return DOCA_ERROR_NO_MEMORY;
	}
	*mmap = m;
	ODMA_DBG("mmap %p created from the export of pid %u [0x%llx, +%llu) through %s", (void *)m,
	         d.pid, (unsigned long long)d.addr, (unsigned long long)d.len, info->pci_addr);
	return DOCA_SUCCESS;
}

/* ------------------------------------------------------------------------------------ */
/* RDMA target side: the live RDMA exports, served to peers by libdoca_rdma               */
/* ------------------------------------------------------------------------------------ */

struct rdma_reg {
	const struct odma_export_record *rec;
	uint64_t addr, len;
	uint32_t perms;
};

static pthread_rwlock_t rdma_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct rdma_reg *rdma_regs;
static size_t rdma_nregs, rdma_capregs;

static bool rdma_register(struct odma_export_record *r, const struct doca_mmap *mmap)
{
	bool ok = true;

	pthread_rwlock_wrlock(&rdma_lock);
	if (rdma_nregs == rdma_capregs) {
		size_t cap = rdma_capregs ? 2 * rdma_capregs : 16;
		struct rdma_reg *n = realloc(rdma_regs, cap * sizeof(*n));

		if (n == NULL)
			ok = false;
		else {
			rdma_regs = n;
			rdma_capregs = cap;
		}
	}
	if (ok)
		rdma_regs[rdma_nregs++] = (struct rdma_reg){ r, (uint64_t)(uintptr_t)mmap->addr,
			                                     mmap->len, mmap->perms };
	pthread_rwlock_unlock(&rdma_lock);
	return ok;
}

/* Waits for every access in progress: after it, nothing touches the revoked range. */
static void rdma_unregister(const struct odma_export_record *r)
{
	pthread_rwlock_wrlock(&rdma_lock);
	for (size_t i = 0; i < rdma_nregs; i++)
		if (rdma_regs[i].rec == r) {
			rdma_regs[i] = rdma_regs[--rdma_nregs];
			break;
		}
	pthread_rwlock_unlock(&rdma_lock);
}

static const struct rdma_reg *rdma_find(uint64_t record_addr, const uint8_t key[16])
{
	for (size_t i = 0; i < rdma_nregs; i++)
		if ((uint64_t)(uintptr_t)rdma_regs[i].rec == record_addr)
			return rdma_regs[i].rec->alive == 1 &&
			                       memcmp(rdma_regs[i].rec->key, key, 16) == 0
			               ? &rdma_regs[i]
			               : NULL;
	return NULL;
}

static uint32_t rdma_op_perm(int op)
{
	switch (op) {
	case ODMA_RDMA_OP_READ:
		return DOCA_ACCESS_FLAG_RDMA_READ;
	case ODMA_RDMA_OP_WRITE:
		return DOCA_ACCESS_FLAG_RDMA_WRITE;
	default:
		return DOCA_ACCESS_FLAG_RDMA_ATOMIC;
	}
}

static void rdma_do(int op, uint8_t *p, uint64_t len, void *buf)
{
	uint64_t *v = buf;

	switch (op) {
	case ODMA_RDMA_OP_READ:
		memcpy(buf, p, len);
		break;
	case ODMA_RDMA_OP_WRITE:
		memcpy(p, buf, len);
		break;
	case ODMA_RDMA_OP_CMP_SWP:
		__atomic_compare_exchange_n((uint64_t *)(void *)p, &v[0], v[1], false,
		                            __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
		break; /* v[0] holds the old value either way */
	default:
		v[0] = __atomic_fetch_add((uint64_t *)(void *)p, v[0], __ATOMIC_SEQ_CST);
		break;
	}
}

doca_error_t doca_priv_rdma_mem_access(uint64_t record_addr, const uint8_t key[16], uint64_t addr,
                                       uint64_t len, int op, void *buf)
{
	const struct rdma_reg *g;
	doca_error_t r = DOCA_SUCCESS;

	if (op >= ODMA_RDMA_OP_CMP_SWP)
		len = 8;
	pthread_rwlock_rdlock(&rdma_lock);
	g = rdma_find(record_addr, key);
	if (g == NULL)
		r = DOCA_ERROR_NOT_FOUND;
	else if ((g->perms & rdma_op_perm(op)) == 0)
		r = DOCA_ERROR_NOT_PERMITTED;
	else if (addr < g->addr || len > g->len || addr - g->addr > g->len - len ||
	         (op >= ODMA_RDMA_OP_CMP_SWP && (addr & 7) != 0))
		r = DOCA_ERROR_INVALID_VALUE;
	else if (len != 0)
		rdma_do(op, (uint8_t *)(uintptr_t)addr, len, buf);
	pthread_rwlock_unlock(&rdma_lock);
	return r;
}

bool doca_priv_rdma_mem_remote(const struct doca_mmap *mmap, uint64_t *record_addr, uint8_t key[16],
                               uint32_t *perms)
{
	if (mmap == NULL || !mmap->rdma_import || mmap->remote == NULL)
		return false;
	*record_addr = mmap->remote->record_addr;
	memcpy(key, mmap->remote->key, 16);
	*perms = mmap->remote->perms;
	return true;
}
