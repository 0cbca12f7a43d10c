/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Export and import of mmaps between the two sides of the emulated system
 * (docs/host-dpu.md). The exporter hands out a descriptor and keeps, per export, a
 * record in its own memory holding the exact descriptor bytes it issued. The importer
 * treats the descriptor as untrusted: it asks the exporter, through the transport that
 * reaches it (core/transport: CMA in one kernel, UCX across), for that record and imports
 * only a descriptor identical to one the exporter issued and has not revoked. The bytes of
 * a from-export mmap are then moved by core/copy's movers over that transport, which
 * check the record again on every move (the UCX exporter on every request).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/device/device.h"
#include "core/memory/memory.h"
#include "core/log/log.h"
#include "util/codec.h"

ODMA_LOG_REGISTER(ODMA_EXPORT)

/*
 * Every export is revoked first and then waited for, all against one deadline: an importer
 * that holds several of them delays the stop once by the transport's timeout, not once per
 * export. (@head: the list as it was at the start; an export added since is not closed.)
 */
void odma_export_revoke_all(struct doca_mmap *mmap)
{
	struct odma_export *head = atomic_load(&mmap->exports);
	uint64_t deadline;

	for (struct odma_export *e = head; e != NULL; e = e->next)
		if (e->record != NULL)
			odma_tp_region_close(e->record);
	deadline = odma_tp_revoke_deadline();
	for (struct odma_export *e = head; e != NULL; e = e->next) {
		if (e->record != NULL)
			odma_tp_region_release(e->record, deadline);
		e->record = NULL;
	}
}

/*
 * The rights of one export: those of the grant it was issued for and no other. A PCI export
 * is read under either PCI flag and written under PCI_READ_WRITE; an RDMA export is read
 * under RDMA_READ, written under RDMA_WRITE and updated under RDMA_ATOMIC (never READ by
 * default: a write-only RDMA window stays unreadable through the transport too). A
 * re-export (@import: the attachment of an imported PCI export) grants at most what the
 * import does, and no atomics.
 */
static uint32_t export_tp_perms(int kind, uint32_t perms, const struct odma_tp_remote *import)
{
	uint32_t p;

	if (kind == ODMA_EXPORT_PCI)
		return ODMA_TP_READ |
		       ((perms & DOCA_ACCESS_FLAG_PCI_READ_WRITE) != 0 ? ODMA_TP_WRITE : 0);
	p = ((perms & DOCA_ACCESS_FLAG_RDMA_READ) != 0 ? ODMA_TP_READ : 0) |
	    ((perms & DOCA_ACCESS_FLAG_RDMA_WRITE) != 0 ? ODMA_TP_WRITE : 0) |
	    ((perms & DOCA_ACCESS_FLAG_RDMA_ATOMIC) != 0 ? ODMA_TP_ATOMIC : 0);
	return import == NULL ? p : p & import->perms & (ODMA_TP_READ | ODMA_TP_WRITE);
}

/* The export rules (docs/host-dpu.md), checked in this order. */
static doca_error_t export_check(const struct doca_mmap *mmap, const struct doca_devinfo *info,
                                 const struct doca_dev *dev, int kind, const char *fn)
{
	bool pci = kind == ODMA_EXPORT_PCI;

	if (mmap->from_export && (pci || mmap->rdma_import || mmap->remote == NULL)) {
		ODMA_ERR_AT(fn,
		            "mmap %p was created from %s export; an imported mmap can be exported "
		            "again only over RDMA, and only when it came from a PCI export (the "
		            "DPU re-exporting its host's memory)",
		            (const void *)mmap, mmap->rdma_import ? "an RDMA" : "an");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (!odma_mmap_live(mmap)) {
		ODMA_ERR_AT(fn, "mmap %p is not started; call doca_mmap_start before exporting",
		            (const void *)mmap);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if ((mmap->perms & (pci ? ODMA_PERMS_PCI : ODMA_PERMS_RDMA)) == 0) {
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
		            "device %s cannot export an mmap over %s "
		            "(see doca_mmap_cap_is_export_pci_supported); "
		            "use a device with the capability",
		            info->pci_addr, pci ? "PCI" : "RDMA");
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	return DOCA_SUCCESS;
}

/* The version-3 fields: how an importer of another kernel reaches us. */
static bool export_fill_net(const struct odma_tp_region *rec, struct odma_export_desc *d)
{
	static __thread struct odma_tp_reach r;

	memset(&r, 0, sizeof(r));
	if (odma_tp_reach_self(&r) != DOCA_SUCCESS)
		return false;
	d->version = ODMA_EXPORT_DESC_VERSION_NET;
	d->pidns = r.pidns;
	memcpy(d->boot_id, r.boot_id, 16);
	d->region_id = rec->id;
	d->net_len = r.net_len;
	memcpy(d->net_addr, r.net_addr, r.net_len);
	return true;
}

/* Fills the descriptor fields that describe this process and the mmap. */
static bool export_fill(const struct doca_mmap *mmap, const struct doca_devinfo *info, int kind,
                        const struct odma_tp_region *rec, struct odma_export_desc *d)
{
	const struct odma_system *sys = odma_system_get();

	memset(d, 0, sizeof(*d));
	d->version = ODMA_EXPORT_DESC_VERSION;
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
	d->generation = rec->hdr.generation;
	memcpy(d->key, rec->hdr.key, sizeof(d->key));
	memcpy(d->pci, info->pci_addr, strnlen(info->pci_addr, ODMA_EXPORT_PCI_LEN - 1));
	/*
	 * An RDMA export always names its region (version 3): the importer's RDMA connection
	 * attaches it by id over its own endpoint. A re-export names none: only its requests,
	 * forwarded, reach it.
	 */
	if (kind != ODMA_EXPORT_RDMA && !odma_tp_net_wanted())
		return true;
	if (!export_fill_net(rec, d))
		return false;
	if (mmap->from_export)
		d->region_id = 0;
	return true;
}

static struct odma_export *export_new(struct doca_mmap *mmap, const struct doca_devinfo *info,
                                      const struct doca_dev *dev, int kind)
{
	struct odma_export *e = calloc(1, sizeof(*e));
	struct odma_export_desc *d = malloc(sizeof(*d));

	if (e == NULL || d == NULL)
		goto fail;
	e->desc = malloc(ODMA_EXPORT_DESC_MAX);
	e->record = odma_tp_region_add((uint64_t)(uintptr_t)mmap->addr, mmap->len,
	                               export_tp_perms(kind, mmap->perms, mmap->remote));
	if (e->desc == NULL || e->record == NULL)
		goto fail;
	e->record->grant = kind == ODMA_EXPORT_PCI ? ODMA_TP_GRANT_PCI : ODMA_TP_GRANT_RDMA;
	e->record->owner = mmap;
	/*
	 * A re-export's addresses are the original exporter's, not ours: the transports serve
	 * nothing of it; DOCA RDMA's service forwards its requests (the RDMA target side below).
	 */
	e->record->forward = mmap->remote;
	if (!export_fill(mmap, info, kind, e->record, d))
		goto fail;
	e->desc_len = odma_export_desc_encode(d, e->desc);
	e->dev = dev;
	e->kind = kind;
	free(d);
	/* The record keeps what was issued: the importer accepts nothing else. */
	odma_tp_region_publish(e->record, e->desc, e->desc_len);
	return e;
fail:
	if (e != NULL && e->record != NULL)
		odma_tp_region_revoke(e->record);
	if (e != NULL)
		free(e->desc);
	free(e);
	free(d);
	return NULL;
}

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
	if (ret == DOCA_SUCCESS)
		ret = odma_tp_config_check();
	if (ret != DOCA_SUCCESS)
		return ret;
	e = export_new(mmap, info, dev, kind);
	if (e == NULL) {
		ODMA_ERR_AT(fn,
		            "mmap %p: cannot build the export descriptor (out of memory, or "
		            "getrandom, /proc/self/stat or the export gates' memfd failed)",
		            (void *)mmap);
		return DOCA_ERROR_NO_MEMORY;
	}
	e->next = atomic_load(&mmap->exports);
	while (!atomic_compare_exchange_weak(&mmap->exports, &e->next, e))
		;
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

/* What the transport needs to reach the exporter of @d. */
static void import_reach(const struct odma_export_desc *d, struct odma_tp_reach *r)
{
	struct odma_tp_ident me;

	memset(r, 0, sizeof(*r));
	if (d->version == ODMA_EXPORT_DESC_VERSION_NET) {
		r->pidns = d->pidns;
		memcpy(r->boot_id, d->boot_id, 16);
		r->net_len = d->net_len;
		memcpy(r->net_addr, d->net_addr, d->net_len);
	} else { /* version 2: an exporter of this kernel and PID namespace */
		odma_tp_identity(&me);
		r->pidns = me.pidns;
		memcpy(r->boot_id, me.boot_id, 16);
	}
	r->pid = d->pid;
	r->start_time = d->start_time;
	r->addr = d->addr;
	r->len = d->len;
	r->perms = export_tp_perms(d->kind, d->perms, NULL);
	r->record_addr = d->record_addr;
	r->region_id = d->region_id;
	memcpy(r->key, d->key, 16);
	r->generation = d->generation;
}

/*
 * Attaches through the transport that reaches the exporter and verifies @bytes against its
 * authoritative record: the descriptor imports only if it is byte for byte one the
 * exporter issued and still holds (same generation, alive).
 */
static doca_error_t import_attach(const struct odma_export_desc *d, const uint8_t *bytes,
                                  size_t len, struct odma_tp_remote *rm)
{
	static const char fn[] = "doca_mmap_create_from_export";
	static __thread struct odma_tp_reach r;
	static __thread uint8_t issued[ODMA_TP_ISSUED_MAX];
	const struct odma_tp_ops *tp;
	const char *why = NULL, *field;
	size_t issued_len = 0;
	doca_error_t err;

	import_reach(d, &r);
	tp = odma_tp_choose(&r, &why);
	if (tp == NULL) {
		ODMA_ERR_AT(fn, "cannot reach the exporter (pid %u): %s", d->pid, why);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (tp->same_kernel && !odma_export_desc_live(d, &why)) {
		ODMA_ERR_AT(fn, "rejected descriptor of pid %u: %s; export again", d->pid, why);
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = odma_tp_attach(tp, &r, rm, issued, &issued_len);
	if (err != DOCA_SUCCESS)
		return err;
	field = odma_export_desc_diff(bytes, len, issued, issued_len);
	if (field != NULL) {
		odma_tp_detach(rm);
		ODMA_ERR_AT(
		        fn,
		        "rejected descriptor of pid %u: its field \"%s\" differs from what the "
		        "exporter exported (forged or altered descriptor); import the descriptor "
		        "exactly as doca_mmap_export_* returned it",
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

	if (odma_export_desc_parse(bytes, len, d, &why) != DOCA_SUCCESS) {
		ODMA_ERR_AT(fn, "rejected %zu-byte descriptor: %s", len, why);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (d->kind == ODMA_EXPORT_RDMA)
		return DOCA_ERROR_AGAIN; /* checked by import_check_rdma */
	return import_check_dev(d, info);
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
                                      const union doca_data *user_data, struct odma_tp_remote *r)
{
	struct doca_mmap *m = calloc(1, sizeof(*m));
	struct doca_dev **devs = calloc(1, sizeof(*devs));

	if (m == NULL || devs == NULL) {
		free(m);
		free(devs);
		return NULL;
	}
	m->addr = (uint8_t *)(uintptr_t)d->addr;
	m->len = (size_t)d->len;
	m->range_set = true;
	m->perms = d->perms;
	m->from_export = true;
	/* a synchronous row's imports move on the engine's threads, the others' as ios */
	m->kind = r->ops == NULL || r->ops->iov_move != NULL ? ODMA_MEM_PROCESS : ODMA_MEM_NET;
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

/*
 * doca_mmap_create_from_export's checks past its arguments, in order: the transport
 * configuration, the descriptor @bytes (parsed into @d) against @info, its range against
 * this process. DOCA_SUCCESS with *rdma telling an RDMA export, or the (logged) error.
 */
static doca_error_t import_validate(const void *bytes, size_t len, const struct doca_devinfo *info,
                                    struct odma_export_desc *d, bool *rdma)
{
	doca_error_t ret = odma_tp_config_check();

	if (ret == DOCA_SUCCESS)
		ret = import_check(bytes, len, info, d);
	*rdma = ret == DOCA_ERROR_AGAIN;
	if (*rdma)
		ret = import_check_rdma(d, info);
	if (ret != DOCA_SUCCESS)
		return ret;
	if (sizeof(size_t) < 8 && d->len > SIZE_MAX) {
		ODMA_ERR_AT("doca_mmap_create_from_export",
		            "descriptor range of %llu bytes does not fit this process",
		            (unsigned long long)d->len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

/*
 * An RDMA export is reached through libdoca_rdma's connections, not attached: the importer
 * keeps in @rm what its requests present (record, key); the exporter checks each.
 */
static void import_remote_rdma(const struct odma_export_desc *d, struct odma_tp_remote *rm)
{
	rm->record_addr = d->record_addr;
	memcpy(rm->key, d->key, sizeof(rm->key));
	rm->addr = d->addr;
	rm->len = d->len;
	rm->region_id = d->region_id; /* doca_priv_rdma_mem_attach */
	rm->generation = d->generation;
	rm->perms = export_tp_perms(d->kind, d->perms, NULL);
}

doca_error_t doca_mmap_create_from_export(const union doca_data *user_data, const void *export_desc,
                                          size_t export_desc_len, struct doca_dev *dev,
                                          struct doca_mmap **mmap)
{
	static __thread struct odma_export_desc d;
	struct odma_tp_remote *rm;
	struct doca_devinfo *info;
	struct doca_mmap *m;
	doca_error_t ret;
	bool rdma;

	ODMA_CHECK_ARG(export_desc != NULL && dev != NULL && mmap != NULL,
	               "export_desc, dev and mmap must not be NULL");
	info = odma_dev_lookup_open(dev);
	ODMA_CHECK_ARG(info != NULL,
	               "dev %p is not an open device handle from doca_dev_open "
	               "(a closed one included)",
	               (void *)dev);
	ret = import_validate(export_desc, export_desc_len, info, &d, &rdma);
	if (ret != DOCA_SUCCESS)
		return ret;
	rm = calloc(1, sizeof(*rm));
	if (rm == NULL) {
		ODMA_ERR("out of memory creating an mmap from an export");
		return DOCA_ERROR_NO_MEMORY;
	}
	if (rdma)
		import_remote_rdma(&d, rm);
	else
		ret = import_attach(&d, export_desc, export_desc_len, rm);
	if (ret != DOCA_SUCCESS) {
		free(rm);
		return ret;
	}
	m = import_build(&d, dev, user_data, rm);
	if (m == NULL) {
		odma_tp_detach(rm);
		free(rm);
		ODMA_ERR("out of memory creating an mmap from an export");
		return DOCA_ERROR_NO_MEMORY;
	}
	*mmap = m;
	ODMA_DBG("mmap %p created from the export of pid %u [0x%llx, +%llu) through %s (%s)",
	         (void *)m, d.pid, (unsigned long long)d.addr, (unsigned long long)d.len,
	         info->pci_addr, rdma ? "RDMA" : rm->ops->name);
	return DOCA_SUCCESS;
}

/* ------------------------------------------------------------------------------------ */
/* RDMA target side: the RDMA grants of the one registry, served by libdoca_rdma        */
/* ------------------------------------------------------------------------------------ */

static uint32_t rdma_op_perm(int op)
{
	switch (op) {
	case ODMA_RDMA_OP_READ:
		return ODMA_TP_READ;
	case ODMA_RDMA_OP_WRITE:
		return ODMA_TP_WRITE;
	default:
		return ODMA_TP_ATOMIC; /* of an RDMA grant: program memory, fault-guarded here */
	}
}

/*
 * Serves one access to the program's memory, fault-safe (the transport's guard): a page the
 * program unmapped or protected after the export fails the access (IO_FAILED), not the
 * process, the atomics' too.
 */
static doca_error_t rdma_do(int op, uint8_t *p, uint64_t len, void *buf)
{
	uint64_t *v = buf;
	int err;

	switch (op) {
	case ODMA_RDMA_OP_READ:
		err = odma_tp_safe_copy(buf, p, len);
		break;
	case ODMA_RDMA_OP_WRITE:
		err = odma_tp_safe_copy(p, buf, len);
		break;
	case ODMA_RDMA_OP_CMP_SWP: /* v[0] the expected value, then the old one either way */
		err = odma_tp_safe_atomic((uint64_t *)(void *)p, ODMA_TP_AT_CAS, v[1], v[0], &v[0]);
		break;
	default:
		err = odma_tp_safe_atomic((uint64_t *)(void *)p, ODMA_TP_AT_FADD, v[0], 0, &v[0]);
		break;
	}
	return err == 0 ? DOCA_SUCCESS : DOCA_ERROR_IO_FAILED;
}

/*
 * A re-export's access: the same bytes read from or written to the original exporter through
 * the import's transport, waiting for them (the caller is a reader thread of libdoca_rdma,
 * never the transport's). Bounded: each window of the transfer waits for the transport's
 * timeout at most (odma_tp_xfer).
 */
static doca_error_t rdma_forward(struct odma_tp_remote *rm, int op, uint64_t addr, uint64_t len,
                                 uint8_t *buf)
{
	return odma_tp_xfer(rm, op == ODMA_RDMA_OP_WRITE, buf, addr, len);
}

/*
 * A re-export's access, forwarded; when it fails because the original export is gone for
 * good (its exporter exited or revoked it), the re-export ends with it: its importers' later
 * requests fail at once, as for any revoked export, and none is forwarded again.
 */
static doca_error_t rdma_forward_or_lapse(struct odma_tp_region *g, int op, uint64_t addr,
                                          uint64_t len, uint8_t *buf)
{
	doca_error_t r = rdma_forward(g->forward, op, addr, len, buf);

	if (r != DOCA_SUCCESS && atomic_load(&g->forward->gone) && odma_tp_region_lapse(g))
		ODMA_ERR("doca_mmap_export_rdma: the re-export of the region of pid %u is revoked: "
		         "its original export is gone (the exporter exited, revoked it or cannot "
		         "be reached again); its importers' accesses fail from now on. Import the "
		         "new export and re-export it",
		         g->forward->pid);
	return r;
}

bool doca_priv_rdma_mem_forwarded(uint64_t record_addr)
{
	return odma_tp_region_forwarded(record_addr);
}

doca_error_t doca_priv_rdma_mem_access(uint64_t record_addr, const uint8_t key[16], uint64_t addr,
                                       uint64_t len, int op, void *buf)
{
	struct odma_tp_region *g;
	doca_error_t r;

	if (op >= ODMA_RDMA_OP_CMP_SWP)
		len = 8;
	r = odma_tp_region_enter(record_addr, true, ODMA_TP_GRANT_RDMA, key, rdma_op_perm(op), &g);
	if (r != DOCA_SUCCESS)
		return r;
	if (!odma_tp_region_covers(g, addr, len) || (op >= ODMA_RDMA_OP_CMP_SWP && (addr & 7) != 0))
		r = DOCA_ERROR_INVALID_VALUE;
	else if (len != 0 && g->forward != NULL)
		r = rdma_forward_or_lapse(g, op, addr, len, buf);
	else if (len != 0)
		r = rdma_do(op, (uint8_t *)(uintptr_t)addr, len, buf);
	odma_tp_region_leave(g); /* a revocation waiting for it proceeds */
	return r;
}

bool doca_priv_rdma_mem_remote(const struct doca_mmap *mmap, uint64_t *record_addr, uint8_t key[16],
                               uint32_t *perms)
{
	if (mmap == NULL || !mmap->rdma_import || mmap->remote == NULL)
		return false;
	*record_addr = mmap->remote->record_addr;
	memcpy(key, mmap->remote->key, 16);
	*perms = mmap->perms; /* the exporter's DOCA_ACCESS_FLAG_* */
	return true;
}
