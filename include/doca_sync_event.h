/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */

/**
 * @file doca_sync_event.h
 * @brief DOCA Sync Event: a 64-bit counter that one side updates and another waits on.
 *
 * A sync event holds one unsigned 64-bit value. Programs set it, add to it atomically, read
 * it and wait until `(value & mask)` compares to a threshold. The usual use is a "buffer
 * ready" signal between a host and its DPU around DMA: one side exports the event with
 * doca_sync_event_export_to_remote_pci(), the other rebuilds it with
 * doca_sync_event_create_from_export(), and both update and wait on the same value.
 *
 * @code
 *   doca_sync_event_create(&se);
 *   doca_sync_event_add_publisher_location_remote_pci(se);
 *   doca_sync_event_add_subscriber_location_cpu(se, dev);
 *   doca_sync_event_start(se);                        // or: as a context, see below
 *   doca_sync_event_export_to_remote_pci(se, dev, &blob, &len);  // send blob to the peer
 *   doca_sync_event_update_set(se, 1);
 *   doca_sync_event_wait_eq(se, 2, UINT64_MAX);
 *   doca_sync_event_stop(se); doca_sync_event_destroy(se);
 * @endcode
 *
 * Two exclusive ways to start an event: doca_sync_event_start() (the synchronous calls
 * only), or as a context: doca_sync_event_as_ctx(), doca_pe_connect_ctx(), the task
 * `*_set_conf` calls, doca_ctx_start(); the get, notify-set, notify-add, wait-eq and
 * wait-neq tasks then complete through doca_pe_progress(). The context has no device.
 *
 * odma runs every event on the CPU: the value lives in a shared memory page that both
 * processes of a host/DPU pair map, waits sleep on a futex beside it, and a waiting task
 * wakes its progress engine's notification handle. Locations on a DPA, a GPU or a remote
 * network peer are not emulated and answer DOCA_ERROR_NOT_SUPPORTED. The configuration and
 * lifecycle calls are not thread-safe; get, update and the blocking waits may run on
 * several threads at once. See docs/user-guide.md for the rules odma decided where DOCA
 * leaves them open (masks, overflow, an exporter that goes away).
 */
#ifndef DOCA_SYNC_EVENT_H_
#define DOCA_SYNC_EVENT_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_ctx;
struct doca_dev;
struct doca_devinfo;
struct doca_dpa;
struct doca_gpu;
struct doca_task;

/** A sync event (CPU handle). */
struct doca_sync_event;
/** A sync event of a remote network peer (not emulated by odma). */
struct doca_sync_event_remote_net;
/** A sync event as seen from a DPA (forward declaration only). */
struct doca_dpa_sync_event;
/** A sync event as seen from a GPU (forward declaration only). */
struct doca_gpu_sync_event;

/** DPA handle of a sync event. */
typedef uint64_t doca_dpa_dev_sync_event_t;
/** DPA handle of a remote-network sync event. */
typedef uint64_t doca_dpa_dev_sync_event_remote_net_t;
/** GPU handle of a sync event. */
typedef uint64_t doca_gpu_dev_sync_event_t;
/** GPU handle of a remote-network sync event. */
typedef uint64_t doca_gpu_dev_sync_event_remote_net_t;

/** Task that reads the value. */
struct doca_sync_event_task_get;
/** Task that sets the value. */
struct doca_sync_event_task_notify_set;
/** Task that adds to the value atomically. */
struct doca_sync_event_task_notify_add;
/** Task that completes once (value & mask) == threshold. */
struct doca_sync_event_task_wait_eq;
/** Task that completes once (value & mask) != threshold. */
struct doca_sync_event_task_wait_neq;

/** Completion (and error) callback of a get task. */
typedef void (*doca_sync_event_task_get_completion_cb_t)(struct doca_sync_event_task_get *task,
                                                         union doca_data task_user_data,
                                                         union doca_data ctx_user_data);
/** Completion (and error) callback of a notify-set task. */
typedef void (*doca_sync_event_task_notify_set_completion_cb_t)(
        struct doca_sync_event_task_notify_set *task, union doca_data task_user_data,
        union doca_data ctx_user_data);
/** Completion (and error) callback of a notify-add task. */
typedef void (*doca_sync_event_task_notify_add_completion_cb_t)(
        struct doca_sync_event_task_notify_add *task, union doca_data task_user_data,
        union doca_data ctx_user_data);
/** Completion (and error) callback of a wait-eq task. */
typedef void (*doca_sync_event_task_wait_eq_completion_cb_t)(
        struct doca_sync_event_task_wait_eq *task, union doca_data task_user_data,
        union doca_data ctx_user_data);
/** Completion (and error) callback of a wait-neq task. */
typedef void (*doca_sync_event_task_wait_neq_completion_cb_t)(
        struct doca_sync_event_task_wait_neq *task, union doca_data task_user_data,
        union doca_data ctx_user_data);

/* ---------------------------------------------------------------------------------------- */
/* Creation, locations, backing memory, start and stop                                       */
/* ---------------------------------------------------------------------------------------- */

/**
 * @brief Creates a sync event (value 0 once started).
 * @param [out] event  the new event.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_create(struct doca_sync_event **event);

/**
 * @brief Builds a handle on an event exported by the other side of the system.
 *
 * The handle cannot be configured (locations, backing memory) but must be started
 * (stand-alone or as a context) before use. It shares the exporter's value.
 * @param [in] dev   an open device of the other side than the exporting device.
 * @param [in] data  the bytes doca_sync_event_export_to_remote_pci() returned.
 * @param [in] sz    their length.
 * @param [out] event  the new handle.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, a closed or unknown device,
 *         malformed, truncated or corrupted bytes, an exporter that is gone or stopped the
 *         event, an export that cannot be reached); DOCA_ERROR_NOT_SUPPORTED (the device
 *         cannot create from an export, is on the exporter's side, or runs another system
 *         profile); DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_create_from_export(struct doca_dev *dev, const uint8_t *data,
                                                size_t sz, struct doca_sync_event **event);

/**
 * @brief Whether a device can build a sync event from a remote PCI export.
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS (supported); DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_sync_event_cap_is_create_from_export_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Builds a handle on an event exported to the network, for DOCA RDMA remote-net tasks.
 * @param [in] dev    an open device with RDMA.
 * @param [in] data   the bytes of doca_sync_event_export_to_remote_net().
 * @param [in] sz     their length (40).
 * @param [out] event  the handle.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, not an open device, malformed
 *         bytes); DOCA_ERROR_NOT_SUPPORTED (device without RDMA); DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_sync_event_remote_net_create_from_export(struct doca_dev *dev, const uint8_t *data, size_t sz,
                                              struct doca_sync_event_remote_net **event);

/**
 * @brief Whether a device can build a remote-network sync event (devices with RDMA).
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS (supported); DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_sync_event_cap_remote_net_is_create_from_export_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Destroys an event. A stand-alone event that is still started is stopped first.
 *
 * An exporter's destroy revokes its exports: the importers' waits and updates then fail
 * (see doca_sync_event_create_from_export()). The export bytes are freed.
 * @param [in] event  the event.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_BAD_STATE (its context
 *         is not IDLE: stop it and progress first); DOCA_ERROR_IN_USE (its context is
 *         STOPPING, or a context node of a graph: destroy the graph first).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_destroy(struct doca_sync_event *event);

/**
 * @brief Destroys a remote-network event handle.
 * @param [in] event  a handle from doca_sync_event_remote_net_create_from_export().
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, or not such a handle).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_remote_net_destroy(struct doca_sync_event_remote_net *event);

/**
 * @brief Declares that a CPU updates the event through a device.
 * @param [in] event  an event that is not started and not from an export.
 * @param [in] dev    an open device (held until the event is destroyed).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, unknown device);
 *         DOCA_ERROR_BAD_STATE (started); DOCA_ERROR_NOT_PERMITTED (created from an export).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_publisher_location_cpu(struct doca_sync_event *event,
                                                        struct doca_dev *dev);

/**
 * @brief Declares a DPA publisher (not emulated).
 * @param [in] event  the event.
 * @param [in] dpa    the DPA.
 * @return DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_NOT_SUPPORTED otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_publisher_location_dpa(struct doca_sync_event *event,
                                                        struct doca_dpa *dpa);

/**
 * @brief Declares a GPU publisher (not emulated).
 * @param [in] event  the event.
 * @param [in] gpu    the GPU.
 * @return DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_NOT_SUPPORTED otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_publisher_location_gpu(struct doca_sync_event *event,
                                                        struct doca_gpu *gpu);

/**
 * @brief Declares that the peer across PCIe (host or DPU) updates the event.
 * @param [in] event  an event that is not started and not from an export.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_BAD_STATE (started);
 *         DOCA_ERROR_NOT_PERMITTED (created from an export).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_publisher_location_remote_pci(struct doca_sync_event *event);

/**
 * @brief Declares that remote network peers (DOCA RDMA remote-net tasks) update the event.
 * @param [in] event  an event that is not started and not from an export.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_BAD_STATE (started);
 *         DOCA_ERROR_NOT_PERMITTED (created from an export).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_publisher_location_remote_net(struct doca_sync_event *event);

/**
 * @brief Declares that a CPU waits on the event through a device.
 * @param [in] event  an event that is not started and not from an export.
 * @param [in] dev    an open device (held until the event is destroyed).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, unknown device);
 *         DOCA_ERROR_BAD_STATE (started); DOCA_ERROR_NOT_PERMITTED (created from an export).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_subscriber_location_cpu(struct doca_sync_event *event,
                                                         struct doca_dev *dev);

/**
 * @brief Declares a DPA subscriber (not emulated).
 * @param [in] event  the event.
 * @param [in] dpa    the DPA.
 * @return DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_NOT_SUPPORTED otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_subscriber_location_dpa(struct doca_sync_event *event,
                                                         struct doca_dpa *dpa);

/**
 * @brief Declares a GPU subscriber (not emulated).
 * @param [in] event  the event.
 * @param [in] gpu    the GPU.
 * @return DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_NOT_SUPPORTED otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_subscriber_location_gpu(struct doca_sync_event *event,
                                                         struct doca_gpu *gpu);

/**
 * @brief Declares that the peer across PCIe (host or DPU) waits on the event.
 * @param [in] event  an event that is not started and not from an export.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_BAD_STATE (started);
 *         DOCA_ERROR_NOT_PERMITTED (created from an export).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_subscriber_location_remote_pci(struct doca_sync_event *event);

/**
 * @brief Keeps the value in 8 bytes of the program's memory instead of the library's.
 *
 * The value is then the program's: it is not reset by start, and the program may write it
 * directly (waits notice such writes within a millisecond; a waiting task notices them at
 * its next progress). An event backed this way cannot be exported.
 * @param [in] event  an event that is not started and not from an export.
 * @param [in] addr   8-byte aligned CPU memory that outlives the event.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, not 8-byte aligned);
 *         DOCA_ERROR_BAD_STATE (started); DOCA_ERROR_NOT_PERMITTED (created from an export).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_set_addr(struct doca_sync_event *event, uint64_t *addr);

/**
 * @brief Keeps the value in the data of a doca_buf (as doca_sync_event_set_addr()).
 * @param [in] event  an event that is not started and not from an export.
 * @param [in] buf    a single buf (no list) whose data is exactly 8 bytes, 8-byte aligned, in
 *                    a local mmap with LOCAL_READ_WRITE and RDMA read, write and atomic access.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_BAD_STATE (started, or
 *         @p buf already released to its inventory);
 *         DOCA_ERROR_NOT_PERMITTED (created from an export, a list, data length other than
 *         8, misaligned, missing permission, an mmap from an export).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_set_doca_buf(struct doca_sync_event *event, struct doca_buf *buf);

/**
 * @brief Starts a stand-alone event: the synchronous calls become usable.
 *
 * An event that is not backed by program memory starts at value 0 (each start). An event
 * whose context is connected to a progress engine starts with doca_ctx_start() instead.
 * @param [in] event  the event.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_BAD_STATE (already
 *         started, or used as a context); DOCA_ERROR_NO_MEMORY; DOCA_ERROR_OPERATING_SYSTEM
 *         (the shared page could not be made).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_start(struct doca_sync_event *event);

/**
 * @brief Stops a stand-alone event. An exporter's stop revokes its exports.
 * @param [in] event  the event.
 * @return DOCA_SUCCESS (also when not started); DOCA_ERROR_INVALID_VALUE (NULL);
 *         DOCA_ERROR_BAD_STATE (the event runs as a context: use doca_ctx_stop()).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_stop(struct doca_sync_event *event);

/**
 * @brief The event as a context, for the task API. Not valid for doca_ctx_get_dev-style
 *        device queries: the context has no device.
 * @param [in] event  the event.
 * @return the context; NULL if @p event is NULL.
 */
DOCA_EXPERIMENTAL
struct doca_ctx *doca_sync_event_as_ctx(struct doca_sync_event *event);

/* ---------------------------------------------------------------------------------------- */
/* Export and device handles                                                                  */
/* ---------------------------------------------------------------------------------------- */

/**
 * @brief Exports a started event to the other side of the system (host <-> DPU).
 *
 * The bytes (at most 1024) are owned by the event and stay valid until it is destroyed;
 * they let a process on the other side attach to the same value, so send them only over a
 * trusted channel. Exporting again through the same device (the event not restarted in
 * between) returns the same bytes, so a program may export once per peer without growing.
 * Stopping or destroying the event revokes every export of it.
 * @param [in] event  a started event, not from an export, not backed by program memory.
 * @param [in] dev    an open device with the export capability.
 * @param [out] data  the export bytes.
 * @param [out] sz    their length.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, unknown or closed device);
 *         DOCA_ERROR_BAD_STATE (not started); DOCA_ERROR_NOT_PERMITTED (created from an
 *         export); DOCA_ERROR_NOT_SUPPORTED (device without the capability, event backed by
 *         program memory); DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_export_to_remote_pci(struct doca_sync_event *event,
                                                  struct doca_dev *dev, const uint8_t **data,
                                                  size_t *sz);

/**
 * @brief Whether a device can export a sync event across PCIe.
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS (supported); DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_sync_event_cap_is_export_to_remote_pci_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Exports a started event to remote network peers (DOCA RDMA remote-net tasks).
 *
 * The 40 bytes are owned by the event and stay valid until it is destroyed; exporting again
 * while it runs returns the same bytes. Stopping or destroying the event revokes the export.
 * @param [in] event  a started event, not from an export.
 * @param [out] data  the export bytes.
 * @param [out] sz    their length.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_BAD_STATE (not started);
 *         DOCA_ERROR_NOT_PERMITTED (created from an export); DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_export_to_remote_net(struct doca_sync_event *event,
                                                  const uint8_t **data, size_t *sz);

/**
 * @brief Whether a device can export a sync event to the network (devices with RDMA).
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS (supported); DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_sync_event_cap_is_export_to_remote_net_supported(const struct doca_devinfo *devinfo);

/**
 * @brief A DPA handle of the event (not emulated).
 * @param [in] event  the event.
 * @param [in] dpa    the DPA.
 * @param [out] dpa_dev_se_handle  unchanged.
 * @return DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_NOT_SUPPORTED otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_get_dpa_handle(struct doca_sync_event *event, struct doca_dpa *dpa,
                                            doca_dpa_dev_sync_event_t *dpa_dev_se_handle);

/**
 * @brief Whether a device can hand sync events to a DPA (never, in odma).
 * @param [in] devinfo  the device.
 * @return DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_is_export_to_dpa_supported(const struct doca_devinfo *devinfo);

/**
 * @brief A GPU handle of the event (not emulated).
 * @param [in] event  the event.
 * @param [in] gpu    the GPU.
 * @param [out] gpu_dev_se  unchanged.
 * @return DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_NOT_SUPPORTED otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_get_gpu_handle(struct doca_sync_event *event, struct doca_gpu *gpu,
                                            doca_gpu_dev_sync_event_t **gpu_dev_se);

/**
 * @brief Whether a device can hand sync events to a GPU (never, in odma).
 * @param [in] devinfo  the device.
 * @return DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_is_export_to_gpu_supported(const struct doca_devinfo *devinfo);

/**
 * @brief A DPA handle of a remote-network event (not emulated).
 * @param [in] event  the handle.
 * @param [in] dpa    the DPA.
 * @param [out] dpa_remote_event  unchanged.
 * @return DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_NOT_SUPPORTED otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_sync_event_remote_net_get_dpa_handle(struct doca_sync_event_remote_net *event,
                                          struct doca_dpa *dpa,
                                          doca_dpa_dev_sync_event_remote_net_t *dpa_remote_event);

/**
 * @brief Whether remote-network events can go to a DPA (never, in odma).
 * @param [in] devinfo  the device.
 * @return DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_sync_event_cap_remote_net_is_export_to_dpa_supported(const struct doca_devinfo *devinfo);

/**
 * @brief A GPU handle of a remote-network event (not emulated).
 * @param [in] event  the handle.
 * @param [in] gpu    the GPU.
 * @param [out] gpu_remote_event  unchanged.
 * @return DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_NOT_SUPPORTED otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_sync_event_remote_net_get_gpu_handle(struct doca_sync_event_remote_net *event,
                                          struct doca_gpu *gpu,
                                          doca_gpu_dev_sync_event_remote_net_t *gpu_remote_event);

/**
 * @brief Whether remote-network events can go to a GPU (never, in odma).
 * @param [in] devinfo  the device.
 * @return DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_sync_event_cap_remote_net_is_export_to_gpu_supported(const struct doca_devinfo *devinfo);

/* ---------------------------------------------------------------------------------------- */
/* Synchronous data path                                                                      */
/* ---------------------------------------------------------------------------------------- */

/*
 * Common to the calls below: DOCA_ERROR_BAD_STATE when the event is not started (a context
 * counts as started while RUNNING); DOCA_ERROR_CONNECTION_ABORTED on a handle from an export
 * whose exporter stopped, destroyed the event or exited (get still returns the last value).
 */

/**
 * @brief Reads the value.
 * @param [in] event  a started event.
 * @param [out] value  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_BAD_STATE (not started).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_get(struct doca_sync_event *event, uint64_t *value);

/**
 * @brief Adds to the value atomically (modulo 2^64: it wraps, it does not saturate) and
 *        wakes the waiters whose condition may now hold.
 * @param [in] event  a started event.
 * @param [in] value  the increment.
 * @param [out] fetched  the value before the addition.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_BAD_STATE (not started);
 *         DOCA_ERROR_CONNECTION_ABORTED (the exporter is gone).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_update_add(struct doca_sync_event *event, uint64_t value,
                                        uint64_t *fetched);

/**
 * @brief Sets the value and wakes the waiters whose condition may now hold.
 * @param [in] event  a started event.
 * @param [in] value  the new value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_BAD_STATE (not started);
 *         DOCA_ERROR_CONNECTION_ABORTED (the exporter is gone).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_update_set(struct doca_sync_event *event, uint64_t value);

/*
 * Blocking waits. Each returns once its condition holds, with no time limit. The thread
 * spins briefly, then sleeps (a futex on the shared page) until an update; the *_yield
 * forms yield the processor instead of spinning. A condition that can never hold
 * (wait_eq: value has bits outside mask; wait_gt: value >= mask; wait_neq: mask 0 and
 * value 0) is refused with DOCA_ERROR_INVALID_VALUE rather than blocking forever.
 */

/**
 * @brief Waits until (event value & mask) > value.
 * @param [in] event  a started event.
 * @param [in] value  the threshold.
 * @param [in] mask   bits of the event value compared.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, impossible condition);
 *         DOCA_ERROR_BAD_STATE (not started); DOCA_ERROR_CONNECTION_ABORTED (the exporter
 *         went away before the condition held).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_wait_gt(struct doca_sync_event *event, uint64_t value, uint64_t mask);

/**
 * @brief As doca_sync_event_wait_gt(), yielding the processor while waiting.
 * @param [in] event  a started event.
 * @param [in] value  the threshold.
 * @param [in] mask   bits of the event value compared.
 * @return as doca_sync_event_wait_gt().
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_wait_gt_yield(struct doca_sync_event *event, uint64_t value,
                                           uint64_t mask);

/**
 * @brief Waits until (event value & mask) == value.
 * @param [in] event  a started event.
 * @param [in] value  the expected value.
 * @param [in] mask   bits of the event value compared.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, impossible condition);
 *         DOCA_ERROR_BAD_STATE (not started); DOCA_ERROR_CONNECTION_ABORTED (the exporter
 *         went away before the condition held).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_wait_eq(struct doca_sync_event *event, uint64_t value, uint64_t mask);

/**
 * @brief As doca_sync_event_wait_eq(), yielding the processor while waiting.
 * @param [in] event  a started event.
 * @param [in] value  the expected value.
 * @param [in] mask   bits of the event value compared.
 * @return as doca_sync_event_wait_eq().
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_wait_eq_yield(struct doca_sync_event *event, uint64_t value,
                                           uint64_t mask);

/**
 * @brief Waits until (event value & mask) != value.
 * @param [in] event  a started event.
 * @param [in] value  the value to leave.
 * @param [in] mask   bits of the event value compared.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, impossible condition);
 *         DOCA_ERROR_BAD_STATE (not started); DOCA_ERROR_CONNECTION_ABORTED (the exporter
 *         went away before the condition held).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_wait_neq(struct doca_sync_event *event, uint64_t value, uint64_t mask);

/**
 * @brief As doca_sync_event_wait_neq(), yielding the processor while waiting.
 * @param [in] event  a started event.
 * @param [in] value  the value to leave.
 * @param [in] mask   bits of the event value compared.
 * @return as doca_sync_event_wait_neq().
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_wait_neq_yield(struct doca_sync_event *event, uint64_t value,
                                            uint64_t mask);

/* ---------------------------------------------------------------------------------------- */
/* Tasks (the event as a context)                                                             */
/* ---------------------------------------------------------------------------------------- */

/*
 * Common rules of the tasks. set_conf: only while the context is IDLE (else
 * DOCA_ERROR_NOT_PERMITTED); both callbacks are required; num_tasks 1..65536; each task type
 * has its own pool, and alloc_init answers DOCA_ERROR_NO_MEMORY once num_tasks of that type
 * are allocated and not freed, DOCA_ERROR_BAD_STATE when the context is not RUNNING,
 * DOCA_ERROR_INVALID_VALUE for a NULL event/task pointer (or an argument the type rejects).
 * Submit (doca_task_submit) answers DOCA_ERROR_INVALID_VALUE for arguments the type rejects,
 * the task staying with the program. Get, notify-set and notify-add act at submit and
 * complete at the next doca_pe_progress(); a wait task stays in flight until its condition
 * holds. doca_ctx_stop() completes the waits still in flight with DOCA_ERROR_IO_FAILED
 * (error callback); on a handle from an export whose exporter is gone, tasks complete with
 * DOCA_ERROR_CONNECTION_ABORTED. Wait masks must be 0, or 1, 2, 4 or 8 consecutive 0xff
 * bytes at a position that is a multiple of their length (a naturally aligned byte, 16-,
 * 32- or 64-bit field); the wait value must fit inside the mask.
 */

/**
 * @brief Whether the get task is supported (every odma device: it runs on the CPU).
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_task_get_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Configures the get task.
 * @param [in] event  the event.
 * @param [in] completion_cb  success callback.
 * @param [in] error_cb  failure callback.
 * @param [in] num_tasks  pool size, 1..65536.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, size out of range);
 *         DOCA_ERROR_NOT_PERMITTED (context not IDLE, or the event was started stand-alone).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_get_set_conf(
        struct doca_sync_event *event, doca_sync_event_task_get_completion_cb_t completion_cb,
        doca_sync_event_task_get_completion_cb_t error_cb, uint32_t num_tasks);

/**
 * @brief Allocates a get task.
 * @param [in] event  the event (its context RUNNING).
 * @param [in] ret_val_ptr  where the value is written before the callback (non-NULL at submit).
 * @param [in] user_data  the task's user data.
 * @param [out] task  the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL event or task);
 *         DOCA_ERROR_BAD_STATE (context not RUNNING); DOCA_ERROR_NO_MEMORY (pool used up).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_get_alloc_init(struct doca_sync_event *event,
                                                 uint64_t *ret_val_ptr, union doca_data user_data,
                                                 struct doca_sync_event_task_get **task);

/**
 * @brief The task as a generic task.
 * @param [in] task  the task.
 * @return the generic task; NULL if @p task is NULL.
 */
DOCA_EXPERIMENTAL
struct doca_task *doca_sync_event_task_get_as_doca_task(struct doca_sync_event_task_get *task);

/**
 * @brief Changes where a get task writes the value (ignored while the task is in flight).
 * @param [in] task  the task.
 * @param [in] ret_val_ptr  the destination.
 */
DOCA_EXPERIMENTAL
void doca_sync_event_task_get_set_ret_val_ptr(struct doca_sync_event_task_get *task,
                                              uint64_t *ret_val_ptr);

/**
 * @brief Where a get task writes the value.
 * @param [in] task  the task.
 * @return the destination; NULL if @p task is NULL.
 */
DOCA_EXPERIMENTAL
uint64_t *doca_sync_event_task_get_get_ret_val_ptr(const struct doca_sync_event_task_get *task);

/**
 * @brief Whether the notify-set task is supported (every odma device).
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_task_notify_set_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Configures the notify-set task.
 * @param [in] event  the event.
 * @param [in] completion_cb  success callback.
 * @param [in] error_cb  failure callback.
 * @param [in] num_tasks  pool size, 1..65536.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, size out of range);
 *         DOCA_ERROR_NOT_PERMITTED (context not IDLE, or the event was started stand-alone).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_notify_set_set_conf(
        struct doca_sync_event *event,
        doca_sync_event_task_notify_set_completion_cb_t completion_cb,
        doca_sync_event_task_notify_set_completion_cb_t error_cb, uint32_t num_tasks);

/**
 * @brief Allocates a notify-set task.
 * @param [in] event  the event (its context RUNNING).
 * @param [in] set_val  the value to set.
 * @param [in] user_data  the task's user data.
 * @param [out] task  the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_BAD_STATE (context not
 *         RUNNING); DOCA_ERROR_NO_MEMORY (pool used up).
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_sync_event_task_notify_set_alloc_init(struct doca_sync_event *event, uint64_t set_val,
                                           union doca_data user_data,
                                           struct doca_sync_event_task_notify_set **task);

/**
 * @brief The task as a generic task.
 * @param [in] task  the task.
 * @return the generic task; NULL if @p task is NULL.
 */
DOCA_EXPERIMENTAL
struct doca_task *
doca_sync_event_task_notify_set_as_doca_task(struct doca_sync_event_task_notify_set *task);

/**
 * @brief Changes the value a notify-set task sets (ignored while the task is in flight).
 * @param [in] task  the task.
 * @param [in] set_val  the value.
 */
DOCA_EXPERIMENTAL
void doca_sync_event_task_notify_set_set_set_val(struct doca_sync_event_task_notify_set *task,
                                                 uint64_t set_val);

/**
 * @brief The value a notify-set task sets.
 * @param [in] task  the task.
 * @return the value; 0 if @p task is NULL.
 */
DOCA_EXPERIMENTAL
uint64_t
doca_sync_event_task_notify_set_get_set_val(const struct doca_sync_event_task_notify_set *task);

/**
 * @brief Whether the notify-add task is supported (every odma device).
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_task_notify_add_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Configures the notify-add task.
 * @param [in] event  the event.
 * @param [in] completion_cb  success callback.
 * @param [in] error_cb  failure callback.
 * @param [in] num_tasks  pool size, 1..65536.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, size out of range);
 *         DOCA_ERROR_NOT_PERMITTED (context not IDLE, or the event was started stand-alone).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_notify_add_set_conf(
        struct doca_sync_event *event,
        doca_sync_event_task_notify_add_completion_cb_t completion_cb,
        doca_sync_event_task_notify_add_completion_cb_t error_cb, uint32_t num_tasks);

/**
 * @brief Allocates a notify-add task (the addition wraps modulo 2^64).
 * @param [in] event  the event (its context RUNNING).
 * @param [in] inc_val  the increment.
 * @param [in] fetched_val_ptr  receives the value before the addition (non-NULL at submit).
 * @param [in] user_data  the task's user data.
 * @param [out] task  the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL event or task);
 *         DOCA_ERROR_BAD_STATE (context not RUNNING); DOCA_ERROR_NO_MEMORY (pool used up).
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_sync_event_task_notify_add_alloc_init(struct doca_sync_event *event, uint64_t inc_val,
                                           uint64_t *fetched_val_ptr, union doca_data user_data,
                                           struct doca_sync_event_task_notify_add **task);

/**
 * @brief The task as a generic task.
 * @param [in] task  the task.
 * @return the generic task; NULL if @p task is NULL.
 */
DOCA_EXPERIMENTAL
struct doca_task *
doca_sync_event_task_notify_add_as_doca_task(struct doca_sync_event_task_notify_add *task);

/**
 * @brief Changes the increment (ignored while the task is in flight).
 * @param [in] task  the task.
 * @param [in] inc_val  the increment.
 */
DOCA_EXPERIMENTAL
void doca_sync_event_task_notify_add_set_inc_val(struct doca_sync_event_task_notify_add *task,
                                                 uint64_t inc_val);

/**
 * @brief The increment.
 * @param [in] task  the task.
 * @return the increment; 0 if @p task is NULL.
 */
DOCA_EXPERIMENTAL
uint64_t
doca_sync_event_task_notify_add_get_inc_val(const struct doca_sync_event_task_notify_add *task);

/**
 * @brief Changes where the previous value is written (ignored while the task is in flight).
 * @param [in] task  the task.
 * @param [in] fetched_val_ptr  the destination.
 */
DOCA_EXPERIMENTAL
void doca_sync_event_task_notify_add_set_fetched_val_ptr(
        struct doca_sync_event_task_notify_add *task, uint64_t *fetched_val_ptr);

/**
 * @brief Where the previous value is written.
 * @param [in] task  the task.
 * @return the destination; NULL if @p task is NULL.
 */
DOCA_EXPERIMENTAL
uint64_t *doca_sync_event_task_notify_add_get_fetched_val_ptr(
        const struct doca_sync_event_task_notify_add *task);

/**
 * @brief Whether the wait-eq task is supported (every odma device).
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_task_wait_eq_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Configures the wait-eq task.
 * @param [in] event  the event.
 * @param [in] completion_cb  success callback.
 * @param [in] error_cb  failure callback.
 * @param [in] num_tasks  pool size, 1..65536.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, size out of range);
 *         DOCA_ERROR_NOT_PERMITTED (context not IDLE, or the event was started stand-alone).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_wait_eq_set_conf(
        struct doca_sync_event *event, doca_sync_event_task_wait_eq_completion_cb_t completion_cb,
        doca_sync_event_task_wait_eq_completion_cb_t error_cb, uint32_t num_tasks);

/**
 * @brief Allocates a wait-eq task: it completes once (value & mask) == wait_val.
 * @param [in] event  the event (its context RUNNING).
 * @param [in] wait_val  the expected value (inside @p mask).
 * @param [in] mask  0, or 1/2/4/8 aligned consecutive 0xff bytes.
 * @param [in] user_data  the task's user data.
 * @param [out] task  the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, bad mask, value outside the mask);
 *         DOCA_ERROR_BAD_STATE (context not RUNNING); DOCA_ERROR_NO_MEMORY (pool used up).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_wait_eq_alloc_init(struct doca_sync_event *event,
                                                     uint64_t wait_val, uint64_t mask,
                                                     union doca_data user_data,
                                                     struct doca_sync_event_task_wait_eq **task);

/**
 * @brief The task as a generic task.
 * @param [in] task  the task.
 * @return the generic task; NULL if @p task is NULL.
 */
DOCA_EXPERIMENTAL
struct doca_task *
doca_sync_event_task_wait_eq_as_doca_task(struct doca_sync_event_task_wait_eq *task);

/**
 * @brief Changes the expected value (ignored while the task is in flight).
 * @param [in] task  the task.
 * @param [in] wait_val  the value.
 */
DOCA_EXPERIMENTAL
void doca_sync_event_task_wait_eq_set_wait_val(struct doca_sync_event_task_wait_eq *task,
                                               uint64_t wait_val);

/**
 * @brief The expected value.
 * @param [in] task  the task.
 * @return the value; 0 if @p task is NULL.
 */
DOCA_EXPERIMENTAL
uint64_t doca_sync_event_task_wait_eq_get_wait_val(const struct doca_sync_event_task_wait_eq *task);

/**
 * @brief Changes the mask (ignored while the task is in flight; checked at submit).
 * @param [in] task  the task.
 * @param [in] mask  the mask.
 */
DOCA_EXPERIMENTAL
void doca_sync_event_task_wait_eq_set_mask(struct doca_sync_event_task_wait_eq *task,
                                           uint64_t mask);

/**
 * @brief The mask.
 * @param [in] task  the task.
 * @return the mask; 0 if @p task is NULL.
 */
DOCA_EXPERIMENTAL
uint64_t doca_sync_event_task_wait_eq_get_mask(const struct doca_sync_event_task_wait_eq *task);

/**
 * @brief Whether the wait-neq task is supported (every odma device).
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_task_wait_neq_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Configures the wait-neq task.
 * @param [in] event  the event.
 * @param [in] completion_cb  success callback.
 * @param [in] error_cb  failure callback.
 * @param [in] num_tasks  pool size, 1..65536.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, size out of range);
 *         DOCA_ERROR_NOT_PERMITTED (context not IDLE, or the event was started stand-alone).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_wait_neq_set_conf(
        struct doca_sync_event *event, doca_sync_event_task_wait_neq_completion_cb_t completion_cb,
        doca_sync_event_task_wait_neq_completion_cb_t error_cb, uint32_t num_tasks);

/**
 * @brief Allocates a wait-neq task: it completes once (value & mask) != wait_val.
 * @param [in] event  the event (its context RUNNING).
 * @param [in] wait_val  the value to leave (inside @p mask).
 * @param [in] mask  0 is refused here (it could never complete when the value is 0);
 *                   otherwise 1/2/4/8 aligned consecutive 0xff bytes.
 * @param [in] user_data  the task's user data.
 * @param [out] task  the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, bad mask, value outside the mask);
 *         DOCA_ERROR_BAD_STATE (context not RUNNING); DOCA_ERROR_NO_MEMORY (pool used up).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_wait_neq_alloc_init(struct doca_sync_event *event,
                                                      uint64_t wait_val, uint64_t mask,
                                                      union doca_data user_data,
                                                      struct doca_sync_event_task_wait_neq **task);

/**
 * @brief The task as a generic task.
 * @param [in] task  the task.
 * @return the generic task; NULL if @p task is NULL.
 */
DOCA_EXPERIMENTAL
struct doca_task *
doca_sync_event_task_wait_neq_as_doca_task(struct doca_sync_event_task_wait_neq *task);

/**
 * @brief Changes the value to leave (ignored while the task is in flight).
 * @param [in] task  the task.
 * @param [in] wait_val  the value.
 */
DOCA_EXPERIMENTAL
void doca_sync_event_task_wait_neq_set_wait_val(struct doca_sync_event_task_wait_neq *task,
                                                uint64_t wait_val);

/**
 * @brief The value to leave.
 * @param [in] task  the task.
 * @return the value; 0 if @p task is NULL.
 */
DOCA_EXPERIMENTAL
uint64_t
doca_sync_event_task_wait_neq_get_wait_val(const struct doca_sync_event_task_wait_neq *task);

/**
 * @brief Changes the mask (ignored while the task is in flight; checked at submit).
 * @param [in] task  the task.
 * @param [in] mask  the mask.
 */
DOCA_EXPERIMENTAL
void doca_sync_event_task_wait_neq_set_mask(struct doca_sync_event_task_wait_neq *task,
                                            uint64_t mask);

/**
 * @brief The mask.
 * @param [in] task  the task.
 * @return the mask; 0 if @p task is NULL.
 */
DOCA_EXPERIMENTAL
uint64_t doca_sync_event_task_wait_neq_get_mask(const struct doca_sync_event_task_wait_neq *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_SYNC_EVENT_H_ */
