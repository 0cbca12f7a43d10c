/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Emulated devices. A system profile (built-in or from a file, see profile.c)
 * describes the devices of a host side and a DPU side. The profile is loaded once
 * per process; devinfo objects live as long as the process (lists only hold
 * pointers), so a devinfo reached through an open device stays valid.
 */
#ifndef ODMA_DEV_PRIV_H_
#define ODMA_DEV_PRIV_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_dev.h>
#include <doca_types.h>

enum odma_side {
	ODMA_SIDE_HOST = 0,
	ODMA_SIDE_DPU = 1,
};

/* What a device can do; every value is queryable through a doca_*_cap_* call. */
struct odma_dev_caps {
	bool dma_memcpy;           /* doca_dma_cap_task_memcpy_is_supported */
	uint64_t max_buf_size;     /* doca_dma_cap_task_memcpy_get_max_buf_size */
	uint32_t max_buf_list_len; /* doca_dma_cap_task_memcpy_get_max_buf_list_len */
	uint32_t max_num_tasks;    /* doca_dma_cap_get_max_num_tasks: largest task pool */
	uint32_t queue_depth;      /* tasks in flight per context before submit says AGAIN */
	bool export_pci;           /* doca_mmap_cap_is_export_pci_supported */
	bool from_export_pci;      /* doca_mmap_cap_is_create_from_export_pci_supported */
	bool export_rdma;          /* export_rdma allowed */
	bool from_export_rdma;     /* create_from_export of an RDMA descriptor allowed */
};

struct doca_devinfo_rep {
	struct doca_devinfo *parent; /* the DPU device this representor belongs to */
	char pci_addr[DOCA_DEVINFO_REP_PCI_ADDR_SIZE];
	char vuid[DOCA_DEVINFO_REP_VUID_SIZE];
	enum doca_pci_func_type func_type;
	int filter_bits;                  /* DOCA_DEVINFO_REP_FILTER_NET / _EMULATED */
	bool hotplug;
	struct doca_dev_rep *rep_dev;     /* opened representor, refcounted */
};

struct doca_dev_rep {
	struct doca_devinfo_rep *info;
	uint32_t refcount;
};

struct doca_devinfo {
	uint32_t index;      /* position in the system profile */
	enum odma_side side; /* which side of the emulated system it belongs to */
	char pci_addr[DOCA_DEVINFO_PCI_ADDR_SIZE]; /* "DDDD:BB:DD.F" */
	char ibdev_name[DOCA_DEVINFO_IBDEV_NAME_SIZE];
	char iface_name[DOCA_DEVINFO_IFACE_NAME_SIZE];
	uint8_t mac[DOCA_DEVINFO_MAC_ADDR_SIZE];
	uint8_t ipv4[DOCA_DEVINFO_IPV4_ADDR_SIZE];
	uint8_t ipv6[DOCA_DEVINFO_IPV6_ADDR_SIZE];
	uint16_t lid;
	enum doca_pci_func_type func_type;
	uint32_t sf_index;
	struct odma_dev_caps caps;
	struct doca_devinfo_rep *reps; /* array, DPU side only */
	uint32_t num_reps;
	struct doca_dev *dev; /* the open device (refcounted), NULL when closed */
};

struct doca_dev {
	struct doca_devinfo *info;
	uint32_t refcount; /* doca_dev_open count */
	uint32_t users;    /* mmaps/contexts holding the device; close with users => IN_USE */
};

/*
 * The loaded system: name (a built-in profile name or the file path), a 64-bit id
 * derived from the name (put into export descriptors so both sides agree), all devices.
 */
struct odma_system {
	char name[256];
	uint64_t id;
	struct doca_devinfo *devs; /* array of num_devs */
	uint32_t num_devs;
};

/* Loads the system (ODMA_SYSTEM) on first use; NULL (and one log line) if it cannot. */
const struct odma_system *odma_system_get(void);

/* Whether this process sees devices of @side (ODMA_SIDE). */
bool odma_side_visible(enum odma_side side);

/* Device holds: an mmap or a context that uses @dev takes one; close fails while any remain. */
void odma_dev_hold(struct doca_dev *dev);
void odma_dev_release(struct doca_dev *dev);

/* Parses "DDDD:BB:DD.F" or "BB:DD.F" into a canonical "DDDD:BB:DD.F"; false if malformed. */
bool odma_pci_addr_parse(const char *in, char out[DOCA_DEVINFO_PCI_ADDR_SIZE]);

#endif /* ODMA_DEV_PRIV_H_ */
