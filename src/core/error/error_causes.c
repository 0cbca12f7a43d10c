/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * The table of failure rules shared by the library's log lines and `odma errors`.
 */
#include "core/error/error.h"

#define C(id, code_, key_, calls_, cause_, fix_)                                                   \
	[id] = { .code = code_, .key = key_, .calls = calls_, .cause = cause_, .fix = fix_ }

static const struct doca_priv_error_cause cause_table[ODMA_CAUSE_COUNT] = {
	C(ODMA_CAUSE_NULL_ARG, DOCA_ERROR_INVALID_VALUE, "bad-argument", "any call",
	  "a NULL object or out-parameter, or a value outside the documented range",
	  "pass valid objects; read the log line for the argument that was refused"),
	C(ODMA_CAUSE_SIZE_CAP, DOCA_ERROR_INVALID_VALUE, "size-cap",
	  "doca_dma_task_memcpy_alloc_init, doca_task_submit, doca_task_try_submit",
	  "the copy's length (the source's data, summed over a source list) is above "
	  "max_buf_size, or a buffer list is longer than max_buf_list_len",
	  "query doca_dma_cap_task_memcpy_get_max_buf_size / _get_max_buf_list_len and split the "
	  "copy into tasks within those limits"),
	C(ODMA_CAUSE_TRY_SUBMIT_DATA, DOCA_ERROR_INVALID_VALUE, "copy-data", "doca_task_try_submit",
	  "the source has no data, the destination's free tail is shorter than the source, "
	  "or the two overlap",
	  "give the source data (get_by_data or doca_buf_set_data), hand the destination over "
	  "empty (get_by_addr, or doca_buf_reset_data_len before reuse) and large enough"),
	C(ODMA_CAUSE_RANGE, DOCA_ERROR_INVALID_VALUE, "buffer-range",
	  "doca_buf_inventory_buf_get_by_addr / _by_data / _by_args",
	  "the requested range is not inside the mmap's memory range",
	  "take buffers only from inside the range given to doca_mmap_set_memrange"),
	C(ODMA_CAUSE_CTX_NOT_IDLE, DOCA_ERROR_BAD_STATE, "ctx-not-idle",
	  "doca_dma_task_memcpy_set_conf, doca_pe_connect_ctx, doca_ctx_start",
	  "the context is configured, connected or started while it is not IDLE",
	  "configure and connect a context before doca_ctx_start, "
	  "or after it has fully stopped (state IDLE)"),
	C(ODMA_CAUSE_CTX_NOT_RUNNING, DOCA_ERROR_BAD_STATE, "ctx-not-running",
	  "doca_dma_task_memcpy_alloc_init, doca_task_submit, doca_task_try_submit",
	  "tasks are allocated or submitted while the context is not RUNNING (not started, "
	  "stopping after doca_ctx_stop or after a failed task)",
	  "allocate and submit only between doca_ctx_start and doca_ctx_stop; after a task "
	  "failure, progress until IDLE and start again"),
	C(ODMA_CAUSE_OBJ_STARTED, DOCA_ERROR_BAD_STATE, "object-started",
	  "doca_mmap_set_*, doca_buf_inventory setters",
	  "an mmap or inventory is configured after doca_*_start",
	  "set permissions, ranges and devices before doca_mmap_start / doca_buf_inventory_start"),
	C(ODMA_CAUSE_QUEUE_FULL, DOCA_ERROR_AGAIN, "queue-full",
	  "doca_task_submit, doca_task_try_submit, doca_task_submit_ex",
	  "more tasks are in flight on the context than the device's queue depth",
	  "keep the task, call doca_pe_progress to collect completions, then submit it again"),
	C(ODMA_CAUSE_COMCH_PEER_FULL, DOCA_ERROR_AGAIN, "comch-peer-queue-full",
	  "doca_task_submit (doca_comch_task_send)",
	  "the peer's receive queue is full: as many messages are in flight to it as it accepts "
	  "(its recv queue size)",
	  "keep the task, progress (the peer must progress too) and submit again; or give the "
	  "peer a larger queue with doca_comch_server/client_set_recv_queue_size"),
	C(ODMA_CAUSE_COMCH_NO_BUFFER, DOCA_ERROR_AGAIN, "comch-no-consumer-buffer",
	  "doca_task_submit (doca_comch_producer_task_send)",
	  "the consumer has no receive buffer posted yet, "
	  "or is publishing the slot the producer would take",
	  "keep the task, progress and submit again; the consumer posts buffers with "
	  "doca_comch_consumer_task_post_recv"),
	C(ODMA_CAUSE_INJECTED_AGAIN, DOCA_ERROR_AGAIN, "injected-again",
	  "doca_task_submit, doca_task_try_submit, doca_task_submit_ex",
	  "fault injection returned AGAIN on purpose (ODMA_FAULTS with submit_again=RATE)",
	  "handle AGAIN as on hardware (progress and retry), or run without ODMA_FAULTS"),
	C(ODMA_CAUSE_DST_READ_ONLY, DOCA_ERROR_NOT_PERMITTED, "dst-read-only",
	  "doca_task_submit, doca_task_try_submit",
	  "the destination's mmap has no flag that lets a device write into it (none of "
	  "LOCAL_READ_WRITE, PCI_READ_WRITE, RDMA_WRITE, RDMA_ATOMIC; an export without "
	  "PCI_READ_WRITE or RDMA_WRITE); the log line names the flags it has",
	  "give the destination mmap DOCA_ACCESS_FLAG_LOCAL_READ_WRITE (exports written over PCI: "
	  "DOCA_ACCESS_FLAG_PCI_READ_WRITE)"),
	C(ODMA_CAUSE_NO_ADD_DEV, DOCA_ERROR_NOT_PERMITTED, "mmap-not-on-device",
	  "doca_task_submit, doca_task_try_submit, doca_task_submit_ex",
	  "a source or destination buf lies in an mmap that the DMA context's device was never "
	  "added to (on hardware the task has no memory key for that device); the log line names "
	  "the buf, the mmap and the device",
	  "call doca_mmap_add_dev(mmap, dev) with the context's device before doca_mmap_start, "
	  "for every device that accesses the memory"),
	C(ODMA_CAUSE_MMAP_STOPPED, DOCA_ERROR_BAD_STATE, "mmap-stopped",
	  "doca_task_submit, doca_task_try_submit, doca_task_submit_ex",
	  "a source or destination buf lies in a local mmap that is stopped: a thread-safe mmap "
	  "(doca_mmap_enable_thread_safety) may be stopped while bufs still point into it, and a "
	  "stopped mmap's memory is registered with no device (on hardware the task fails)",
	  "keep the mmap started while tasks use its bufs: start it again (doca_mmap_start) "
	  "before submitting, or stop it only after the last task on it completed"),
	C(ODMA_CAUSE_EXPORT_PERM, DOCA_ERROR_NOT_PERMITTED, "export-refused",
	  "doca_mmap_export_pci",
	  "the mmap is not started, has no PCI access flag, or was itself created from an export",
	  "set DOCA_ACCESS_FLAG_PCI_READ_ONLY or _PCI_READ_WRITE, start the mmap, "
	  "and export only local mmaps"),
	C(ODMA_CAUSE_ONCE_ONLY, DOCA_ERROR_NOT_PERMITTED, "once-only",
	  "doca_mmap_set_memrange, doca_pe_connect_ctx",
	  "a one-time setting is made twice (a second memory range, a second connect)",
	  "set the memory range once per mmap and connect a context to one PE once"),
	C(ODMA_CAUSE_MMAP_FIXED, DOCA_ERROR_NOT_PERMITTED, "mmap-fixed",
	  "doca_mmap_add_dev, doca_mmap_rm_dev, doca_mmap_start, doca_mmap_set_max_num_devices, "
	  "doca_mmap_enable_thread_safety",
	  "the devices or the mode of an mmap are changed while it is started, exported or "
	  "created from an export (the device limit: after its first start)",
	  "add and remove devices, set the device limit and enable thread safety "
	  "before the first doca_mmap_start; "
	  "reconfigure an exported mmap after doca_mmap_stop, an imported one never"),
	C(ODMA_CAUSE_BUFS_OUTSTANDING, DOCA_ERROR_NOT_PERMITTED, "bufs-outstanding",
	  "doca_mmap_stop, doca_mmap_destroy", "doca_bufs taken from the mmap are still held",
	  "doca_buf_dec_refcount every buffer before stopping or destroying its mmap"),
	C(ODMA_CAUSE_NO_MEMCPY, DOCA_ERROR_NOT_SUPPORTED, "no-memcpy",
	  "doca_dma_create, doca_dma_task_memcpy_set_conf, doca_dma_cap_*",
	  "the device does not support the DMA memcpy task "
	  "(the ConnectX profiles cx7 and cx6dx, for example)",
	  "pick a device for which doca_dma_cap_task_memcpy_is_supported succeeds"),
	C(ODMA_CAUSE_RDMA_IMPORT, DOCA_ERROR_NOT_SUPPORTED, "mmap-from-rdma-export",
	  "doca_dma_task_memcpy_alloc_init, doca_task_submit, doca_task_try_submit",
	  "a source or destination buf lies in an mmap created from an RDMA export "
	  "(doca_mmap_export_rdma): DMA does not reach it",
	  "read or write it with DOCA RDMA tasks, or import a PCI export "
	  "(doca_mmap_export_pci) for DMA"),
	C(ODMA_CAUSE_DRIVER, DOCA_ERROR_DRIVER, "driver-layer",
	  "doca_ctx_start, doca_dev_open, tasks",
	  "the layer under the API failed: on hardware the device driver, in odma the copy engine "
	  "(or an injected fault)",
	  "check the log line before this error and the device; "
	  "in odma check ODMA_ENGINE and ODMA_FAULTS"),
	C(ODMA_CAUSE_TASK_FAILED, DOCA_ERROR_IO_FAILED, "task-failed",
	  "error callback / doca_task_get_status",
	  "a task failed (empty source or short destination under plain submit, "
	  "remote memory gone) or was flushed by doca_ctx_stop or by an earlier failure; "
	  "a failure stops the context",
	  "fix the failed task's buffers, progress until the context is IDLE, start it again and "
	  "resubmit what was flushed"),
	C(ODMA_CAUSE_POOL_EXHAUSTED, DOCA_ERROR_NO_MEMORY, "pool-exhausted",
	  "doca_dma_task_memcpy_alloc_init, doca_buf_inventory_buf_get_*",
	  "every task of the pool fixed by set_conf (or every element of the inventory) is in use",
	  "free a task (doca_task_free) or dec_refcount a buffer, or raise num_tasks in set_conf / "
	  "the inventory size"),
	C(ODMA_CAUSE_NO_PE, DOCA_ERROR_NOT_CONNECTED, "no-pe", "doca_ctx_start",
	  "the context was never connected to a progress engine",
	  "call doca_pe_connect_ctx before doca_ctx_start"),
	C(ODMA_CAUSE_NO_CONF, DOCA_ERROR_BAD_CONFIG, "no-set-conf", "doca_ctx_start",
	  "no task type was configured on the context",
	  "call doca_dma_task_memcpy_set_conf before doca_ctx_start"),
	C(ODMA_CAUSE_IN_USE, DOCA_ERROR_IN_USE, "in-use",
	  "doca_dma_destroy, doca_pe_destroy, doca_buf_inventory_stop/_destroy, "
	  "doca_mmap_destroy, doca_dev_close",
	  "the object is still used: a context not IDLE, a PE with contexts, an inventory with "
	  "buffers, an mmap with buf pools, a device with mmaps or contexts",
	  "tear down in order: buffers, ctx stop (progress to IDLE), dma destroy, PE destroy, "
	  "inventory and buf pools, mmaps, device close"),
	C(ODMA_CAUSE_STOP_IN_PROGRESS, DOCA_ERROR_IN_PROGRESS, "stop-in-progress", "doca_ctx_stop",
	  "tasks were still in flight: the context is STOPPING (not an error)",
	  "keep calling doca_pe_progress; every task gets its callback and the context reaches "
	  "IDLE once all are freed"),
	C(ODMA_CAUSE_NOT_FOUND, DOCA_ERROR_NOT_FOUND, "not-found",
	  "doca_devinfo_create_list, doca_mmap_export_pci",
	  "no emulated system could be loaded (bad ODMA_SYSTEM / ODMA_SIDE), or the export device "
	  "was never added to the mmap",
	  "check ODMA_SYSTEM and ODMA_SIDE (see the log line); doca_mmap_add_dev the device before "
	  "exporting through it"),
	C(ODMA_CAUSE_DEV_ADDED_TWICE, DOCA_ERROR_ALREADY_EXIST, "dev-added-twice",
	  "doca_mmap_add_dev", "the device was already added to this mmap",
	  "add each device to an mmap once"),
	C(ODMA_CAUSE_POOL_EMPTY, DOCA_ERROR_EMPTY, "buf-pool-empty", "doca_buf_pool_buf_alloc",
	  "every buf of the pool is handed out (a normal state: no log line; an inventory says "
	  "NO_MEMORY instead)",
	  "doca_buf_dec_refcount a buf of the pool (after its task completed) and allocate again, "
	  "or create the pool with more elements"),
	C(ODMA_CAUSE_NO_START, DOCA_ERROR_INITIALIZATION, "cannot-initialize",
	  "doca_pe_create, doca_buf_pool_start",
	  "doca_pe_create: ODMA_ENGINE names no engine (the log line says which are); "
	  "doca_buf_pool_start: the pool's elements, at their alignment, "
	  "do not fit in its mmap's range",
	  "set ODMA_ENGINE to thread or inline, or unset it; give the pool's mmap a larger range, "
	  "or the pool fewer or smaller elements or a smaller alignment"),
};

const struct doca_priv_error_cause *doca_priv_error_causes(size_t *count)
{
	if (count != NULL)
		*count = ODMA_CAUSE_COUNT;
	return cause_table;
}
