/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Memory maps: configuration, lifecycle and device holds. Export and import of
 * descriptors live in export.c; this file only owns what they leave behind
 * (the descriptor list, the remote description) so stop/destroy can drop it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device/device.h"
#include "core/memory/memory.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(ODMA_MMAP)

static uint32_t mmap_num_bufs(const struct doca_mmap *mmap)
{
	return atomic_load_explicit(&((struct doca_mmap *)mmap)->num_bufs, memory_order_relaxed);
}

/* The common gate of every setter: refuse a started or imported mmap. */
static doca_error_t mmap_check_configurable(const struct doca_mmap *mmap, const char *fn)
{
	if (mmap->started) {
		ODMA_ERR_AT(fn,
		            "mmap %p is started; "
		            "configure it before doca_mmap_start or after doca_mmap_stop",
		            (const void *)mmap);
		return DOCA_ERROR_BAD_STATE;
	}
	if (mmap->from_export) {
		ODMA_ERR_AT(fn,
		            "mmap %p was created from an export; "
		            "its configuration belongs to the exporter",
		            (const void *)mmap);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	return DOCA_SUCCESS;
}

/* Device changes have one more rule: an exported mmap keeps the devices it was exported through. */
static doca_error_t mmap_check_dev_change(const struct doca_mmap *mmap, const char *fn)
{
	if (mmap->started || mmap->from_export || mmap->exported) {
		ODMA_ERR_AT(fn, "mmap %p is %s; devices can change only on an unstarted local mmap",
		            (const void *)mmap,
		            mmap->from_export ? "created from an export"
		            : mmap->started   ? "started"
		                              : "exported");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_create(struct doca_mmap **mmap)
{
	struct doca_mmap *m;

	ODMA_CHECK_ARG(mmap != NULL, "mmap out-pointer is NULL; pass the address of a pointer");
	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		ODMA_ERR("out of memory allocating an mmap");
		return DOCA_ERROR_NO_MEMORY;
	}
	m->perms = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE;
	atomic_init(&m->write_warned, false);
	m->max_devs = ODMA_MMAP_DEFAULT_MAX_DEVS;
	atomic_init(&m->num_bufs, 0);
	*mmap = m;
	ODMA_DBG("mmap %p created", (void *)m);
	return DOCA_SUCCESS;
}

/* Revokes and frees the export descriptors of this mmap; importers notice through the export
 * records. */
static void mmap_release_exports(struct doca_mmap *mmap)
{
	struct odma_export *e;

	odma_export_revoke_all(mmap);
	e = atomic_exchange(&mmap->exports, NULL);
	while (e != NULL) {
		struct odma_export *next = e->next;

		free(e->desc);
		free(e);
		e = next;
	}
}

static void mmap_release_remote(struct doca_mmap *mmap)
{
	struct odma_tp_remote *r = mmap->remote;

	if (r == NULL)
		return;
	odma_tp_detach(r);
	free(r);
	mmap->remote = NULL;
}

/* The registration check: the range must be memory this process can use as asked (range.c). */
static doca_error_t mmap_check_range(const struct doca_mmap *mmap)
{
	bool write = odma_perm_any_write(mmap->perms);
	char names[ODMA_PERM_NAMES_LEN];
	uintptr_t bad = 0;

	switch (odma_range_check(mmap->addr, mmap->len, write, &bad)) {
	case ODMA_RANGE_OK:
		return DOCA_SUCCESS;
	case ODMA_RANGE_UNMAPPED:
		ODMA_ERR("mmap %p: range [%p, +%zu) is not mapped memory of this process at "
		         "0x%" PRIxPTR "; register memory the process owns",
		         (void *)mmap, (void *)mmap->addr, mmap->len, bad);
		return DOCA_ERROR_INVALID_VALUE;
	case ODMA_RANGE_NO_READ:
		ODMA_ERR("mmap %p: range [%p, +%zu) is not readable at 0x%" PRIxPTR " (PROT_NONE)",
		         (void *)mmap, (void *)mmap->addr, mmap->len, bad);
		return DOCA_ERROR_INVALID_VALUE;
	case ODMA_RANGE_NO_WRITE:
		ODMA_ERR("mmap %p: range [%p, +%zu) is read-only at 0x%" PRIxPTR
		         " but the permissions %s let devices write into it; fix: map it writable, "
		         "or give a source-only mmap DOCA_ACCESS_FLAG_LOCAL_READ_ONLY (or "
		         "PCI_READ_ONLY) alone with doca_mmap_set_permissions",
		         (void *)mmap, (void *)mmap->addr, mmap->len, bad,
		         odma_perm_names(mmap->perms, names, sizeof(names)));
		return DOCA_ERROR_NOT_PERMITTED;
	case ODMA_RANGE_UNCHECKED:
		ODMA_WARN(
		        "mmap %p: /proc/self/maps cannot be opened (%s); every page of [%p, +%zu) "
		        "is mapped (mincore), its permissions are not checked",
		        (void *)mmap, strerror(errno), (void *)mmap->addr, mmap->len);
		return DOCA_SUCCESS;
	default:
		ODMA_ERR(
		        "mmap %p: neither /proc/self/maps nor the pages of [%p, +%zu) can be read "
		        "(%s); the range cannot be checked, so it is refused (close descriptors or "
		        "raise RLIMIT_NOFILE if it is EMFILE)",
		        (void *)mmap, (void *)mmap->addr, mmap->len, strerror(errno));
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
}

const char *odma_perm_names(uint32_t perms, char *out, size_t n)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} flags[] = {
		{ DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, "LOCAL_READ_WRITE" },
		{ DOCA_ACCESS_FLAG_RDMA_READ, "RDMA_READ" },
		{ DOCA_ACCESS_FLAG_RDMA_WRITE, "RDMA_WRITE" },
		{ DOCA_ACCESS_FLAG_RDMA_ATOMIC, "RDMA_ATOMIC" },
		{ DOCA_ACCESS_FLAG_PCI_READ_ONLY, "PCI_READ_ONLY" },
		{ DOCA_ACCESS_FLAG_PCI_READ_WRITE, "PCI_READ_WRITE" },
		{ DOCA_ACCESS_FLAG_PCI_RELAXED_ORDERING, "PCI_RELAXED_ORDERING" },
	};
	uint32_t rest = perms & ~(uint32_t)ODMA_PERMS_ALL;
	size_t used = 0;

	if (n == 0)
		return out;
	out[0] = '\0';
	if ((perms & DOCA_ACCESS_FLAG_LOCAL_READ_WRITE) == 0)
		used += (size_t)snprintf(out, n, "LOCAL_READ_ONLY");
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]) && used < n; i++)
		if (perms & flags[i].bit)
			used += (size_t)snprintf(out + used, n - used, "%s%s", used ? "|" : "",
			                         flags[i].name);
	if (rest != 0 && used < n)
		snprintf(out + used, n - used, "|0x%x", rest);
	return out;
}

doca_error_t odma_mmap_check_dst(struct doca_mmap *mmap, const void *buf)
{
	char names[ODMA_PERM_NAMES_LEN];

	if (mmap->from_export) {
		uint32_t perms = mmap->remote != NULL ? mmap->perms : 0; /* the exporter's flags */

		if (odma_mmap_import_writable(mmap))
			return DOCA_SUCCESS;
		ODMA_ERR("destination buf %p: mmap %p was exported with permissions %s, "
		         "which do not let a device write into it; "
		         "fix: the exporter sets DOCA_ACCESS_FLAG_PCI_READ_WRITE "
		         "(RDMA_WRITE for an RDMA export) before exporting",
		         buf, (void *)mmap, odma_perm_names(perms, names, sizeof(names)));
		return DOCA_ERROR_NOT_PERMITTED;
	}
	switch (odma_perm_local_write(mmap->perms)) {
	case ODMA_PERM_YES:
		return DOCA_SUCCESS;
	case ODMA_PERM_TOLERATED:
		if (!atomic_exchange(&mmap->write_warned, true))
			ODMA_WARN(
			        "destination buf %p: mmap %p permissions %s let a local DMA write "
			        "into it, as on hardware, but DOCA documents "
			        "DOCA_ACCESS_FLAG_LOCAL_READ_WRITE for that; fix: add it with "
			        "doca_mmap_set_permissions (said once per mmap)",
			        buf, (void *)mmap,
			        odma_perm_names(mmap->perms, names, sizeof(names)));
		return DOCA_SUCCESS;
	default:
		ODMA_ERR("destination buf %p: mmap %p permissions %s do not allow a local DMA "
		         "write; fix: give the destination mmap DOCA_ACCESS_FLAG_LOCAL_READ_WRITE "
		         "with doca_mmap_set_permissions before doca_mmap_start",
		         buf, (void *)mmap, odma_perm_names(mmap->perms, names, sizeof(names)));
		return DOCA_ERROR_NOT_PERMITTED;
	}
}

doca_error_t doca_mmap_start(struct doca_mmap *mmap)
{
	doca_error_t ret;

	ODMA_CHECK_ARG(mmap != NULL, "mmap is NULL");
	if (mmap->from_export || mmap->exported) {
		ODMA_ERR("mmap %p is %s; such an mmap is already usable and cannot be restarted",
		         (void *)mmap, mmap->from_export ? "created from an export" : "exported");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (mmap->started) {
		ODMA_ERR("mmap %p is already started", (void *)mmap);
		return DOCA_ERROR_BAD_STATE;
	}
	if (!mmap->range_set) {
		ODMA_ERR("mmap %p has no memory range; call doca_mmap_set_memrange before start",
		         (void *)mmap);
		return DOCA_ERROR_BAD_STATE;
	}
	ret = mmap_check_range(mmap);
	if (ret != DOCA_SUCCESS)
		return ret;
	mmap->started = true;
	mmap->ever_started = true;
	ODMA_DBG("mmap %p started: [%p, +%zu) perms 0x%x, %u device(s)", (void *)mmap,
	         (void *)mmap->addr, mmap->len, mmap->perms, mmap->num_devs);
	return DOCA_SUCCESS;
}

/* Stop without argument checks; the caller made sure no bufs remain. */
static void mmap_do_stop(struct doca_mmap *mmap)
{
	mmap_release_exports(mmap);
	mmap->exported = false;
	mmap->started = false;
	ODMA_DBG("mmap %p stopped", (void *)mmap);
}

static doca_error_t mmap_check_no_bufs(const struct doca_mmap *mmap, const char *fn)
{
	return odma_check_no_bufs_held(fn, "mmap", mmap, mmap_num_bufs(mmap), "pointing into it",
	                               DOCA_ERROR_NOT_PERMITTED);
}

doca_error_t doca_mmap_stop(struct doca_mmap *mmap)
{
	doca_error_t ret;

	ODMA_CHECK_ARG(mmap != NULL, "mmap is NULL");
	if (mmap->rdma_import)
		return DOCA_SUCCESS; /* NVIDIA's RDMA samples stop it before destroy: a no-op */
	if (mmap->from_export) {
		/*
		 * NVIDIA's storage applications stop the PCI import they re-exported before they
		 * destroy it: what it re-exported is revoked; the import itself stays until destroy
		 */
		odma_export_revoke_all(mmap);
		return DOCA_SUCCESS;
	}
	if (!mmap->started) {
		ODMA_ERR("mmap %p is not started", (void *)mmap);
		return DOCA_ERROR_BAD_STATE;
	}
	ret = mmap_check_no_bufs(mmap, "doca_mmap_stop");
	if (ret != DOCA_SUCCESS)
		return ret;
	mmap_do_stop(mmap);
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_destroy(struct doca_mmap *mmap)
{
	doca_error_t ret;

	ODMA_CHECK_ARG(mmap != NULL, "mmap is NULL");
	ret = mmap_check_no_bufs(mmap, "doca_mmap_destroy");
	if (ret != DOCA_SUCCESS)
		return ret;
	if (atomic_load_explicit(&mmap->num_pools, memory_order_relaxed) != 0) {
		ODMA_ERR("doca_mmap_destroy: mmap %p still has %u buf pool(s) built on it; destroy "
		         "them first (doca_buf_pool_destroy)",
		         (void *)mmap,
		         atomic_load_explicit(&mmap->num_pools, memory_order_relaxed));
		return DOCA_ERROR_IN_USE;
	}
	if (mmap->started)
		mmap_do_stop(mmap);
	/* The range is handed back only if the user set the callback once and the mmap was really
	 * used. */
	if (mmap->free_cb != NULL && mmap->ever_started && !mmap->free_cb_changed)
		mmap->free_cb(mmap->addr, mmap->len, mmap->free_cb_opaque);
	for (uint32_t i = 0; i < mmap->num_devs; i++)
		odma_dev_release(mmap->devs[i]);
	free(mmap->devs);
	mmap_release_exports(mmap);
	mmap_release_remote(mmap);
	ODMA_DBG("mmap %p destroyed", (void *)mmap);
	free(mmap);
	return DOCA_SUCCESS;
}

static int mmap_find_dev(const struct doca_mmap *mmap, const struct doca_dev *dev)
{
	for (uint32_t i = 0; i < mmap->num_devs; i++)
		if (mmap->devs[i] == dev)
			return (int)i;
	return -1;
}

doca_error_t doca_mmap_add_dev(struct doca_mmap *mmap, struct doca_dev *dev)
{
	struct doca_dev **devs;
	doca_error_t ret;

	ODMA_CHECK_ARG(mmap != NULL && dev != NULL, "mmap and dev must not be NULL");
	ODMA_CHECK_ARG(odma_dev_lookup_open(dev) != NULL,
	               "dev %p is not an open device (closed by its last doca_dev_close, or not "
	               "from doca_dev_open); fix: add a device while it is open",
	               (void *)dev);
	ret = mmap_check_dev_change(mmap, "doca_mmap_add_dev");
	if (ret != DOCA_SUCCESS)
		return ret;
	if (mmap_find_dev(mmap, dev) >= 0) {
		ODMA_ERR("dev %p is already added to mmap %p; add each device once", (void *)dev,
		         (void *)mmap);
		return DOCA_ERROR_ALREADY_EXIST;
	}
	if (mmap->num_devs >= mmap->max_devs) {
		ODMA_ERR("mmap %p already holds its maximum of %u device(s); raise it with "
		         "doca_mmap_set_max_num_devices",
		         (void *)mmap, mmap->max_devs);
		return DOCA_ERROR_NO_MEMORY;
	}
	devs = realloc(mmap->devs, (mmap->num_devs + 1) * sizeof(*devs));
	if (devs == NULL) {
		ODMA_ERR("out of memory growing the device list of mmap %p", (void *)mmap);
		return DOCA_ERROR_NO_MEMORY;
	}
	devs[mmap->num_devs++] = dev;
	mmap->devs = devs;
	odma_dev_hold(dev);
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_rm_dev(struct doca_mmap *mmap, struct doca_dev *dev)
{
	doca_error_t ret;
	int i;

	ODMA_CHECK_ARG(mmap != NULL && dev != NULL, "mmap and dev must not be NULL");
	ret = mmap_check_dev_change(mmap, "doca_mmap_rm_dev");
	if (ret != DOCA_SUCCESS)
		return ret;
	i = mmap_find_dev(mmap, dev);
	if (i < 0) {
		ODMA_ERR("dev %p was never added to mmap %p", (void *)dev, (void *)mmap);
		return DOCA_ERROR_NOT_FOUND;
	}
	mmap->devs[i] = mmap->devs[--mmap->num_devs];
	odma_dev_release(dev);
	return DOCA_SUCCESS;
}

/* set_memrange and set_dmabuf_memrange share every rule; @fn names the caller in the log line. */
static doca_error_t mmap_set_range(struct doca_mmap *mmap, void *addr, size_t len, const char *fn)
{
	doca_error_t ret = mmap_check_configurable(mmap, fn);

	if (ret != DOCA_SUCCESS)
		return ret;
	if (mmap->range_set) {
		ODMA_ERR_AT(fn, "mmap %p already has a range; a memory range can be set once",
		            (void *)mmap);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (addr == NULL || len == 0) {
		ODMA_ERR_AT(fn,
		            "mmap %p: range [%p, +%zu) is empty or NULL; "
		            "pass a real buffer and a length above 0",
		            (void *)mmap, addr, len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((uintptr_t)addr + len < (uintptr_t)addr) {
		ODMA_ERR_AT(fn, "mmap %p: range [%p, +%zu) wraps around the address space",
		            (void *)mmap, addr, len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	mmap->addr = addr;
	mmap->len = len;
	mmap->range_set = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_set_memrange(struct doca_mmap *mmap, void *addr, size_t len)
{
	ODMA_CHECK_ARG(mmap != NULL, "mmap is NULL");
	return mmap_set_range(mmap, addr, len, "doca_mmap_set_memrange");
}

doca_error_t doca_mmap_set_dmabuf_memrange(struct doca_mmap *mmap, int dmabuf_fd, void *addr,
                                           size_t dmabuf_offset, size_t len)
{
	static const char fn[] = "doca_mmap_set_dmabuf_memrange";

	ODMA_CHECK_ARG(mmap != NULL, "mmap is NULL");
	/* odma has no device memory: addr is the CPU mapping, the fd only has to be real. */
	if (dmabuf_fd < 0 || fcntl(dmabuf_fd, F_GETFD) == -1) {
		ODMA_ERR_AT(fn, "mmap %p: dmabuf_fd %d is not an open file descriptor",
		            (void *)mmap, dmabuf_fd);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (addr != NULL && (uintptr_t)addr + dmabuf_offset < (uintptr_t)addr) {
		ODMA_ERR_AT(fn, "mmap %p: addr %p + offset %zu wraps around the address space",
		            (void *)mmap, addr, dmabuf_offset);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return mmap_set_range(mmap, addr == NULL ? NULL : (uint8_t *)addr + dmabuf_offset, len, fn);
}

doca_error_t doca_mmap_get_memrange(const struct doca_mmap *mmap, void **addr, size_t *len)
{
	ODMA_CHECK_ARG(mmap != NULL && addr != NULL && len != NULL,
	               "mmap, addr and len must not be NULL");
	if (!mmap->range_set) {
		ODMA_ERR("mmap %p has no memory range; set one with doca_mmap_set_memrange",
		         (const void *)mmap);
		return DOCA_ERROR_BAD_STATE;
	}
	*addr = mmap->addr;
	*len = mmap->len;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_set_free_cb(struct doca_mmap *mmap, doca_mmap_memrange_free_cb_t *free_cb,
                                   void *opaque)
{
	doca_error_t ret;

	ODMA_CHECK_ARG(mmap != NULL && free_cb != NULL, "mmap and free_cb must not be NULL");
	ret = mmap_check_configurable(mmap, "doca_mmap_set_free_cb");
	if (ret != DOCA_SUCCESS)
		return ret;
	/* A second call means the owner of the memory changed its mind; never free on its behalf
	 * then. */
	if (mmap->free_cb != NULL)
		mmap->free_cb_changed = true;
	mmap->free_cb = free_cb;
	mmap->free_cb_opaque = opaque;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_set_user_data(struct doca_mmap *mmap, union doca_data user_data)
{
	doca_error_t ret;

	ODMA_CHECK_ARG(mmap != NULL, "mmap is NULL");
	ret = mmap_check_configurable(mmap, "doca_mmap_set_user_data");
	if (ret != DOCA_SUCCESS)
		return ret;
	mmap->user_data = user_data;
	return DOCA_SUCCESS;
}

ODMA_GETTER(doca_mmap_get_user_data, const struct doca_mmap, mmap, union doca_data, user_data,
            mmap->user_data)

doca_error_t doca_mmap_set_max_num_devices(struct doca_mmap *mmap, uint32_t max_num_devices)
{
	static const char fn[] = "doca_mmap_set_max_num_devices";
	doca_error_t ret;

	ODMA_CHECK_ARG(mmap != NULL, "mmap is NULL");
	ret = mmap_check_configurable(mmap, fn);
	if (ret != DOCA_SUCCESS)
		return ret;
	if (mmap->ever_started) {
		ODMA_ERR_AT(
		        fn,
		        "mmap %p was started before; the device limit is fixed at the first start",
		        (void *)mmap);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (max_num_devices == 0 || max_num_devices < mmap->num_devs) {
		ODMA_ERR_AT(fn, "mmap %p: limit %u is 0 or below the %u device(s) already added",
		            (void *)mmap, max_num_devices, mmap->num_devs);
		return DOCA_ERROR_INVALID_VALUE;
	}
	mmap->max_devs = max_num_devices;
	return DOCA_SUCCESS;
}

ODMA_GETTER(doca_mmap_get_max_num_devices, const struct doca_mmap, mmap, uint32_t, max_num_devices,
            mmap->max_devs)

ODMA_GETTER(doca_mmap_get_num_bufs, const struct doca_mmap, mmap, uint32_t, num_bufs,
            mmap_num_bufs(mmap))

doca_error_t doca_mmap_enable_thread_safety(struct doca_mmap *mmap)
{
	static const char fn[] = "doca_mmap_enable_thread_safety";
	doca_error_t ret;

	ODMA_CHECK_ARG(mmap != NULL, "mmap is NULL");
	if (mmap->started) {
		ODMA_ERR_AT(fn,
		            "mmap %p is started; fix: enable thread safety before doca_mmap_start",
		            (void *)mmap);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	ret = mmap_check_no_bufs(mmap, fn);
	if (ret != DOCA_SUCCESS)
		return ret;
	mmap->thread_safe = true;
	ODMA_DBG("mmap %p is thread-safe: its bufs are no longer counted", (void *)mmap);
	return DOCA_SUCCESS;
}

ODMA_GETTER(doca_mmap_get_exported, const struct doca_mmap, mmap, uint8_t, exported,
            mmap->exported ? 1 : 0)

ODMA_GETTER(doca_mmap_get_from_export, const struct doca_mmap, mmap, uint8_t, from_export,
            mmap->from_export ? 1 : 0)

doca_error_t doca_mmap_set_permissions(struct doca_mmap *mmap, uint32_t access_mask)
{
	static const char fn[] = "doca_mmap_set_permissions";
	doca_error_t ret;

	ODMA_CHECK_ARG(mmap != NULL, "mmap is NULL");
	ret = mmap_check_configurable(mmap, fn);
	if (ret != DOCA_SUCCESS)
		return ret;
	if ((access_mask & ~(uint32_t)ODMA_PERMS_ALL) != 0) {
		ODMA_ERR_AT(fn,
		            "mmap %p: mask 0x%x has bits 0x%x that are no DOCA_ACCESS_FLAG_* value",
		            (void *)mmap, access_mask, access_mask & ~(uint32_t)ODMA_PERMS_ALL);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((access_mask & DOCA_ACCESS_FLAG_PCI_READ_ONLY) &&
	    (access_mask & DOCA_ACCESS_FLAG_PCI_READ_WRITE)) {
		ODMA_ERR_AT(
		        fn,
		        "mmap %p: PCI_READ_ONLY and PCI_READ_WRITE exclude each other; pick one",
		        (void *)mmap);
		return DOCA_ERROR_INVALID_VALUE;
	}
	mmap->perms = access_mask;
	atomic_store(&mmap->write_warned, false); /* new flags, a new WARNING if they need one */
	return DOCA_SUCCESS;
}

ODMA_GETTER(doca_mmap_cap_is_export_pci_supported, const struct doca_devinfo, devinfo, uint8_t,
            mmap_export, devinfo->caps.export_pci ? 1 : 0)

ODMA_GETTER(doca_mmap_cap_is_create_from_export_pci_supported, const struct doca_devinfo, devinfo,
            uint8_t, from_export, devinfo->caps.from_export_pci ? 1 : 0)
