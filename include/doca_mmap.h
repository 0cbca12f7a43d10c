/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/**
 * @file doca_mmap.h
 * @brief Memory maps: a registered range of memory that bufs and DMA may use.
 *
 * A memory map (mmap) names one contiguous range of memory, the devices that may
 * touch it and what they may do (read, write). Bufs (doca_buf.h) are windows into
 * a started mmap, handed out by an inventory (doca_buf_inventory.h).
 *
 * @code
 *   doca_dev ──┐ (add_dev, up to max_num_devices)
 *              ▼
 *   memory ─► doca_mmap ◄── doca_buf ◄── doca_buf_inventory
 *   (set_memrange, once)     (window + data segment)
 * @endcode
 *
 * Legal call order for a local mmap:
 *
 *   doca_mmap_create
 *   → set_memrange (exactly once) / set_dmabuf_memrange, set_permissions,
 *     set_max_num_devices, set_free_cb, set_user_data, add_dev / rm_dev   (any order)
 *   → doca_mmap_start
 *   → doca_buf_inventory_buf_get_by_* ... doca_buf_dec_refcount   (bufs)
 *   → doca_mmap_stop (optional; needs every buf released)
 *   → doca_mmap_destroy (stops implicitly; needs every buf released).
 *
 * Host/DPU split (two processes): the exporter starts a local mmap with a PCI
 * permission and calls doca_mmap_export_pci; the importer, through a device of the
 * other side, calls doca_mmap_create_from_export and takes bufs on the result. Stop
 * or destroy on the exporter revokes the import.
 *
 * Every setter is refused with DOCA_ERROR_BAD_STATE while the mmap is started.
 * An mmap created from an export descriptor (the cross-process side) accepts no
 * setter and no device change; it is usable for bufs as soon as it exists.
 *
 * Default permissions (set_permissions never called) are
 * DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, so a local DMA may write into the mmap.
 *
 * An mmap is not thread-safe for configuration; bufs on one mmap may be taken and
 * released from several threads (through separate inventories, or through shared ones
 * once doca_mmap_enable_thread_safety() was called).
 */
#ifndef DOCA_MMAP_H_
#define DOCA_MMAP_H_

#include <stddef.h>
#include <stdint.h>
#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_mmap;
struct doca_dev;
struct doca_devinfo;

/**
 * Called when the memory range of an mmap may be given back.
 *
 * Note that this is a function type, not a pointer type.
 *
 * @param addr   start of the range given to set_memrange.
 * @param len    length of that range.
 * @param cookie the opaque value given to doca_mmap_set_free_cb().
 */
typedef void(doca_mmap_memrange_free_cb_t)(void *addr, size_t len, void *cookie);

/**
 * Creates an empty, unstarted mmap with default settings (no range, no devices,
 * LOCAL_READ_WRITE, at most 64 devices).
 *
 * @param [out] mmap the new mmap; untouched on failure.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if @p mmap is NULL;
 *         DOCA_ERROR_NO_MEMORY if the object cannot be allocated.
 */
DOCA_STABLE doca_error_t doca_mmap_create(struct doca_mmap **mmap);

/**
 * Destroys an mmap, stopping it first if it is started. Devices added to it are
 * released. The free callback (doca_mmap_set_free_cb) runs here, once, if the
 * mmap was ever started and the callback was set exactly once.
 *
 * @param [in] mmap the mmap.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if @p mmap is NULL;
 *         DOCA_ERROR_NOT_PERMITTED if bufs still point into the mmap (release
 *         them with doca_buf_dec_refcount first); the mmap is left as it was;
 *         DOCA_ERROR_IN_USE if a buf pool built on the mmap was not destroyed
 *         (doca_buf_pool_destroy first); the mmap is left as it was.
 */
DOCA_STABLE doca_error_t doca_mmap_destroy(struct doca_mmap *mmap);

/**
 * Starts an mmap: its configuration becomes fixed and bufs may be taken from it.
 * A memory range must have been set. The range is registered: every page of it must be
 * mapped memory of this process that it may read, and write too when the permissions
 * let a device write into it (LOCAL_READ_WRITE, the default, PCI_READ_WRITE,
 * RDMA_WRITE, RDMA_ATOMIC). Keep the range mapped so until the mmap is stopped: a copy
 * over memory unmapped or protected later fails its task with DOCA_ERROR_IO_FAILED.
 *
 * @param [in] mmap the mmap.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if @p mmap is NULL, or a page of the range is not
 *         mapped or not readable (PROT_NONE);
 *         DOCA_ERROR_BAD_STATE if the mmap is already started, or no memory range
 *         was set (call doca_mmap_set_memrange first);
 *         DOCA_ERROR_NOT_PERMITTED if the mmap was created from an export or has
 *         been exported, or a page of the range is read-only while the permissions
 *         let a device write into it;
 *         DOCA_ERROR_OPERATING_SYSTEM if the range cannot be checked at all (neither
 *         /proc/self/maps nor the pages can be read).
 */
DOCA_STABLE doca_error_t doca_mmap_start(struct doca_mmap *mmap);

/**
 * Stops a started mmap. Export descriptors handed out for it are freed, and mmaps
 * that other processes created from them stop working (their DMA fails with
 * DOCA_ERROR_IO_FAILED). The range, permissions and devices are kept, so the mmap
 * may be started again. On an mmap created from an export it only revokes what that mmap
 * re-exported (doca_mmap_export_rdma of a PCI import); the import stays usable until
 * doca_mmap_destroy (NVIDIA's storage applications stop it before destroying it).
 *
 * @param [in] mmap the mmap.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if @p mmap is NULL;
 *         DOCA_ERROR_BAD_STATE if the mmap is not started;
 *         DOCA_ERROR_NOT_PERMITTED if bufs still point into it.
 */
DOCA_STABLE doca_error_t doca_mmap_stop(struct doca_mmap *mmap);

/**
 * Adds a device that may access the mmap's memory. The device is held (it cannot
 * be closed) until it is removed or the mmap is destroyed.
 *
 * @param [in] mmap the unstarted mmap.
 * @param [in] dev  an open device.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if an argument is NULL;
 *         DOCA_ERROR_NOT_PERMITTED if the mmap is started, exported or created
 *         from an export;
 *         DOCA_ERROR_ALREADY_EXIST if @p dev was already added;
 *         DOCA_ERROR_NO_MEMORY if the mmap already holds max_num_devices devices
 *         or memory runs out.
 */
DOCA_STABLE doca_error_t doca_mmap_add_dev(struct doca_mmap *mmap, struct doca_dev *dev);

/**
 * Removes a device added with doca_mmap_add_dev() and releases the hold on it.
 *
 * @param [in] mmap the unstarted mmap.
 * @param [in] dev  the device.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if an argument is NULL;
 *         DOCA_ERROR_NOT_PERMITTED if the mmap is started, exported or created
 *         from an export;
 *         DOCA_ERROR_NOT_FOUND if @p dev was never added.
 */
DOCA_STABLE doca_error_t doca_mmap_rm_dev(struct doca_mmap *mmap, struct doca_dev *dev);

/**
 * Sets the memory range of the mmap. It can be set only once per mmap. The memory
 * stays owned by the caller and must outlive the mmap (see doca_mmap_set_free_cb).
 *
 * @param [in] mmap the unstarted mmap.
 * @param [in] addr start of the range (not NULL).
 * @param [in] len  length in bytes (not 0).
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if @p mmap or @p addr is NULL, @p len is 0, or
 *         addr + len wraps around the address space;
 *         DOCA_ERROR_BAD_STATE if the mmap is started;
 *         DOCA_ERROR_NOT_PERMITTED if a range was already set, or the mmap was
 *         created from an export.
 */
DOCA_STABLE doca_error_t doca_mmap_set_memrange(struct doca_mmap *mmap, void *addr, size_t len);

/**
 * Sets the memory range from a dma-buf.
 *
 * odma has no device memory: @p addr must be the CPU mapping of the dma-buf
 * (e.g. what mmap(2) of @p dmabuf_fd returned). odma checks that @p dmabuf_fd is
 * an open descriptor, then behaves exactly like doca_mmap_set_memrange() over
 * [addr + dmabuf_offset, addr + dmabuf_offset + len). The descriptor is not kept.
 *
 * @param [in] mmap          the unstarted mmap.
 * @param [in] dmabuf_fd     an open dma-buf file descriptor.
 * @param [in] addr          CPU mapping of the dma-buf (not NULL).
 * @param [in] dmabuf_offset offset of the range inside the dma-buf.
 * @param [in] len           length in bytes (not 0).
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if @p mmap or @p addr is NULL, @p dmabuf_fd is
 *         not an open descriptor, @p len is 0, or the range wraps around;
 *         DOCA_ERROR_BAD_STATE if the mmap is started;
 *         DOCA_ERROR_NOT_PERMITTED if a range was already set, or the mmap was
 *         created from an export.
 */
DOCA_STABLE doca_error_t doca_mmap_set_dmabuf_memrange(struct doca_mmap *mmap, int dmabuf_fd,
                                                       void *addr, size_t dmabuf_offset,
                                                       size_t len);

/**
 * Reads the memory range of the mmap. For an mmap created from an export this is
 * the range in the exporter's address space (not dereferenceable here).
 *
 * @param [in]  mmap the mmap.
 * @param [out] addr start of the range.
 * @param [out] len  length of the range.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if an argument is NULL;
 *         DOCA_ERROR_BAD_STATE if no range was ever set.
 */
DOCA_STABLE doca_error_t doca_mmap_get_memrange(const struct doca_mmap *mmap, void **addr,
                                                size_t *len);

/**
 * Registers a callback that gives the memory range back when the mmap is
 * destroyed. The callback runs on destroy only if the mmap was started at least
 * once and this function was called exactly once (calling it again disables the
 * callback, so a caller that changes its mind never frees memory twice).
 *
 * @param [in] mmap    the unstarted mmap.
 * @param [in] free_cb the callback (not NULL).
 * @param [in] opaque  passed to the callback as its cookie.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if @p mmap or @p free_cb is NULL;
 *         DOCA_ERROR_BAD_STATE if the mmap is started;
 *         DOCA_ERROR_NOT_PERMITTED if the mmap was created from an export.
 */
DOCA_STABLE doca_error_t doca_mmap_set_free_cb(struct doca_mmap *mmap,
                                               doca_mmap_memrange_free_cb_t *free_cb, void *opaque);

/**
 * Attaches a user value to the mmap.
 *
 * @param [in] mmap      the unstarted mmap.
 * @param [in] user_data the value.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if @p mmap is NULL;
 *         DOCA_ERROR_BAD_STATE if the mmap is started;
 *         DOCA_ERROR_NOT_PERMITTED if the mmap was created from an export.
 */
DOCA_STABLE doca_error_t doca_mmap_set_user_data(struct doca_mmap *mmap, union doca_data user_data);

/**
 * Reads the user value of the mmap (zero if never set).
 *
 * @param [in]  mmap      the mmap.
 * @param [out] user_data the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL.
 */
DOCA_STABLE doca_error_t doca_mmap_get_user_data(const struct doca_mmap *mmap,
                                                 union doca_data *user_data);

/**
 * Sets how many devices the mmap may hold (default 64).
 *
 * @param [in] mmap            an mmap that was never started.
 * @param [in] max_num_devices the limit, at least 1 and at least the number of
 *                             devices already added.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if @p mmap is NULL or the limit is 0 or below
 *         the number of devices already added;
 *         DOCA_ERROR_BAD_STATE if the mmap is started;
 *         DOCA_ERROR_NOT_PERMITTED if the mmap was ever started or was created
 *         from an export.
 */
DOCA_STABLE doca_error_t doca_mmap_set_max_num_devices(struct doca_mmap *mmap,
                                                       uint32_t max_num_devices);

/**
 * Reads the device limit of the mmap.
 *
 * @param [in]  mmap            the mmap.
 * @param [out] max_num_devices the limit.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL.
 */
DOCA_STABLE doca_error_t doca_mmap_get_max_num_devices(const struct doca_mmap *mmap,
                                                       uint32_t *max_num_devices);

/**
 * Lets several threads use the mmap at once, including the data path: bufs on it may be
 * taken from inventories (doca_buf_inventory_buf_get_by_*, buf_dup) and buf pools and
 * released (doca_buf_dec_refcount) from any thread. An inventory or pool that serves a
 * buf of such an mmap locks every later take and return, so threads may also share it.
 * The price DOCA documents: the mmap no longer counts the bufs that point into it, so
 * doca_mmap_get_num_bufs() reports 0 and doca_mmap_stop() / doca_mmap_destroy() no longer
 * refuse while bufs exist (using such a buf afterwards is undefined). Neither this call
 * nor doca_mmap_destroy() is itself thread-safe. It may be called on a local mmap before
 * doca_mmap_start() and on an mmap created from an export; calling it twice is harmless.
 *
 * @param [in] mmap an unstarted mmap with no buf pointing into it.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if @p mmap is NULL;
 *         DOCA_ERROR_NOT_PERMITTED if the mmap is started or bufs point into it.
 */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_enable_thread_safety(struct doca_mmap *mmap);

/**
 * Reads how many bufs currently point into the mmap (every element of a buf list
 * counts once). An mmap made thread-safe (doca_mmap_enable_thread_safety) does not
 * count its bufs: the value is then 0.
 *
 * @param [in]  mmap     the mmap.
 * @param [out] num_bufs the count.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL.
 */
DOCA_STABLE doca_error_t doca_mmap_get_num_bufs(const struct doca_mmap *mmap, uint32_t *num_bufs);

/**
 * Tells whether the mmap has been exported (to PCI or RDMA) at least once.
 *
 * @param [in]  mmap     the mmap.
 * @param [out] exported 1 if exported, else 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL.
 */
DOCA_STABLE doca_error_t doca_mmap_get_exported(const struct doca_mmap *mmap, uint8_t *exported);

/**
 * Tells whether the mmap was created from an export descriptor.
 *
 * @param [in]  mmap        the mmap.
 * @param [out] from_export 1 if created from an export, else 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL.
 */
DOCA_STABLE doca_error_t doca_mmap_get_from_export(const struct doca_mmap *mmap,
                                                   uint8_t *from_export);

/**
 * Exports a started mmap so a device of the other side (host <-> DPU) can reach it.
 * The returned descriptor (docs/host-dpu.md: versioned binary, checksummed) carries
 * this process's identity, the range, the permissions and a random key; send it over
 * a trusted channel. The library owns the descriptor: it stays valid until the mmap
 * is stopped or destroyed, which also revokes every mmap created from it. An mmap may
 * be exported several times (through several devices); it is then marked exported.
 *
 * @param [in]  mmap            a started local mmap with a PCI permission flag.
 * @param [in]  dev             a device added to @p mmap that can export over PCI.
 * @param [out] export_desc     the descriptor bytes.
 * @param [out] export_desc_len their length.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if an argument is NULL or @p dev is no open device;
 *         DOCA_ERROR_NOT_PERMITTED if the mmap is not started, has neither
 *         DOCA_ACCESS_FLAG_PCI_READ_ONLY nor DOCA_ACCESS_FLAG_PCI_READ_WRITE, or was
 *         created from an export;
 *         DOCA_ERROR_NOT_FOUND if @p dev was never added to the mmap;
 *         DOCA_ERROR_NOT_SUPPORTED if @p dev cannot export (see
 *         doca_mmap_cap_is_export_pci_supported);
 *         DOCA_ERROR_NO_MEMORY if the descriptor cannot be built.
 */
DOCA_STABLE doca_error_t doca_mmap_export_pci(struct doca_mmap *mmap, const struct doca_dev *dev,
                                              const void **export_desc, size_t *export_desc_len);

/**
 * Same as doca_mmap_export_pci, for RDMA: the mmap needs an RDMA permission flag
 * (DOCA_ACCESS_FLAG_RDMA_READ, _WRITE or _ATOMIC) and @p dev the RDMA export
 * capability. The descriptor records that it is an RDMA export.
 *
 * @param [in]  mmap            a started local mmap with an RDMA permission flag.
 * @param [in]  dev             a device added to @p mmap.
 * @param [out] export_desc     the descriptor bytes.
 * @param [out] export_desc_len their length.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if an argument is NULL or @p dev is no open device;
 *         DOCA_ERROR_NOT_PERMITTED if the mmap is not started, has no RDMA flag, or
 *         was created from an export;
 *         DOCA_ERROR_NOT_FOUND if @p dev was never added to the mmap;
 *         DOCA_ERROR_NOT_SUPPORTED if @p dev cannot export over RDMA;
 *         DOCA_ERROR_NO_MEMORY if the descriptor cannot be built.
 */
DOCA_STABLE doca_error_t doca_mmap_export_rdma(struct doca_mmap *mmap, const struct doca_dev *dev,
                                               const void **export_desc, size_t *export_desc_len);

/**
 * Creates an mmap that describes memory exported by another process (the other side).
 * It is not backed by local memory: its range is the exporter's, bufs from
 * doca_buf_inventory_buf_get_by_* point into it without doca_mmap_start, and DMA tasks
 * on it are moved across processes. Setters, device changes, start/stop and export
 * are refused on it; remove it with doca_mmap_destroy. Once the exporter stops or
 * destroys its mmap, or exits, tasks on this mmap fail with DOCA_ERROR_IO_FAILED.
 *
 * @param [in]  user_data       user data for the new mmap; may be NULL.
 * @param [in]  export_desc     the descriptor from doca_mmap_export_pci/_rdma.
 * @param [in]  export_desc_len its length.
 * @param [in]  dev             an open device of the other side of the same system
 *                              with the from-export capability.
 * @param [out] mmap            the new mmap; untouched on failure.
 * The descriptor is untrusted input: it is verified against the exporter's own record of
 * the export, and only a descriptor identical to one the exporter issued and has not
 * revoked is accepted (docs/host-dpu.md, "Threat model").
 *
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if an argument is NULL, @p dev is no open device, or
 *         the descriptor is malformed, truncated, corrupted, of another format
 *         version, stale (its exporter no longer runs), revoked (the exporter stopped
 *         or destroyed the mmap), or differs in any field from what the exporter
 *         exported (forged or altered);
 *         DOCA_ERROR_NOT_SUPPORTED if @p dev is on the exporter's side, belongs to
 *         another system profile, or lacks the from-export capability;
 *         DOCA_ERROR_NOT_PERMITTED if the kernel refuses this process access to the
 *         exporter's memory (no ptrace rights: another user, Yama ptrace_scope 2/3);
 *         DOCA_ERROR_NO_MEMORY on allocation failure.
 */
DOCA_STABLE doca_error_t doca_mmap_create_from_export(const union doca_data *user_data,
                                                      const void *export_desc,
                                                      size_t export_desc_len,
                                                      struct doca_dev *dev,
                                                      struct doca_mmap **mmap);

/**
 * Sets what devices may do with the memory: a mask of enum doca_access_flag
 * values. The local device may always read the memory. A local DMA may write into it
 * with DOCA_ACCESS_FLAG_LOCAL_READ_WRITE; with PCI_READ_WRITE, RDMA_WRITE or
 * RDMA_ATOMIC but without LOCAL_READ_WRITE it may too, as on hardware, and odma logs one
 * WARNING per mmap; with none of these (LOCAL_READ_ONLY, read-only PCI or RDMA flags) a
 * DMA writing into the mmap is refused at submit with DOCA_ERROR_NOT_PERMITTED.
 *
 * @param [in] mmap        the unstarted mmap.
 * @param [in] access_mask OR of DOCA_ACCESS_FLAG_* values.
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if @p mmap is NULL, the mask has a bit that is
 *         no DOCA_ACCESS_FLAG_* value, or holds both PCI_READ_ONLY and
 *         PCI_READ_WRITE;
 *         DOCA_ERROR_BAD_STATE if the mmap is started;
 *         DOCA_ERROR_NOT_PERMITTED if the mmap was created from an export.
 */
DOCA_STABLE doca_error_t doca_mmap_set_permissions(struct doca_mmap *mmap, uint32_t access_mask);

/**
 * Tells whether a device can export an mmap to the other side of the PCI link.
 *
 * @param [in]  devinfo     the device.
 * @param [out] mmap_export 1 if supported, else 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL.
 */
DOCA_STABLE doca_error_t doca_mmap_cap_is_export_pci_supported(const struct doca_devinfo *devinfo,
                                                               uint8_t *mmap_export);

/**
 * Tells whether a device can create an mmap from a PCI export descriptor.
 *
 * @param [in]  devinfo     the device.
 * @param [out] from_export 1 if supported, else 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL.
 */
DOCA_STABLE doca_error_t doca_mmap_cap_is_create_from_export_pci_supported(
        const struct doca_devinfo *devinfo, uint8_t *from_export);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_MMAP_H_ */
