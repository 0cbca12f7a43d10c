/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */

/**
 * @file doca_types.h
 * @brief Plain types shared by the DOCA headers: user data, handles, access flags.
 */
#ifndef DOCA_TYPES_H_
#define DOCA_TYPES_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque user value carried by objects and tasks: a pointer or a 64-bit number. */
union doca_data {
	void *ptr;    /**< pointer view */
	uint64_t u64; /**< integer view */
};

#ifdef __linux__
/** A waitable OS handle; on Linux a file descriptor usable with epoll/poll/select. */
typedef int doca_event_handle_t;
/** The value of a handle that refers to nothing. */
#define doca_event_invalid_handle -1
#else
typedef void *doca_event_handle_t;
#define doca_event_invalid_handle NULL
#endif

/** The handle a progress engine signals when it has work for doca_pe_progress(). */
typedef doca_event_handle_t doca_notification_handle_t;

/** One element of a caller-built gather list. */
struct doca_gather_list {
	void *addr;                    /**< start of the element */
	uint64_t len;                  /**< length in bytes */
	struct doca_gather_list *next; /**< next element or NULL */
};

/**
 * Access rights of a memory map (doca_mmap_set_permissions()).
 * The local device may always read; the other bits add rights.
 */
enum doca_access_flag {
	DOCA_ACCESS_FLAG_LOCAL_READ_ONLY = 0,              /**< local device: read only */
	DOCA_ACCESS_FLAG_LOCAL_READ_WRITE = (1 << 0),      /**< local device: read and write */
	DOCA_ACCESS_FLAG_RDMA_READ = (1 << 1),             /**< remote RDMA peers may read */
	DOCA_ACCESS_FLAG_RDMA_WRITE = (1 << 2),            /**< remote RDMA peers may write */
	DOCA_ACCESS_FLAG_RDMA_ATOMIC = (1 << 3),           /**< remote RDMA peers may run atomics */
	DOCA_ACCESS_FLAG_PCI_READ_ONLY = (1 << 4),         /**< the device across PCIe may read (exclusive with PCI_READ_WRITE) */
	DOCA_ACCESS_FLAG_PCI_READ_WRITE = (1 << 5),        /**< the device across PCIe may read and write */
	DOCA_ACCESS_FLAG_PCI_RELAXED_ORDERING = (1 << 6),  /**< accesses across PCIe may be reordered */
};

/** Kind of PCI function a device is. */
enum doca_pci_func_type {
	DOCA_PCI_FUNC_TYPE_PF = 0, /**< physical function */
	DOCA_PCI_FUNC_TYPE_VF,     /**< virtual function */
	DOCA_PCI_FUNC_TYPE_SF,     /**< scalable function */
};

/** Big-endian integer types (documentation only: stored as plain integers). */
typedef uint16_t doca_be16_t;
typedef uint32_t doca_be32_t; /**< big-endian 32-bit value */
typedef uint64_t doca_be64_t; /**< big-endian 64-bit value */

/** Length of a GID in bytes. */
#define DOCA_GID_BYTE_LENGTH 16

/** Path MTU of a network connection (doca_rdma_set_mtu). */
enum doca_mtu_size {
	DOCA_MTU_SIZE_256_BYTES = 0x0,    /**< 256 bytes */
	DOCA_MTU_SIZE_512_BYTES = 0x1,    /**< 512 bytes */
	DOCA_MTU_SIZE_1K_BYTES = 0x2,     /**< 1024 bytes */
	DOCA_MTU_SIZE_2K_BYTES = 0x3,     /**< 2048 bytes */
	DOCA_MTU_SIZE_4K_BYTES = 0x4,     /**< 4096 bytes */
	DOCA_MTU_SIZE_RAW_ETHERNET = 0x5, /**< the Ethernet MTU (raw packet QPs) */
};

/** Where GPU memory lives (kept for source compatibility; odma has no GPU datapath). */
enum doca_gpu_mem_type {
	DOCA_GPU_MEM_TYPE_GPU = 0,     /**< device memory, GPU access only */
	DOCA_GPU_MEM_TYPE_GPU_CPU = 1, /**< device memory visible to the CPU */
	DOCA_GPU_MEM_TYPE_CPU_GPU = 2, /**< host memory visible to the GPU */
};

#ifdef __cplusplus
}
#endif

#endif /* DOCA_TYPES_H_ */
