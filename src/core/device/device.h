/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Emulated devices. A system profile (built-in or from a file, see profile.c and
 * docs/profiles.md) describes the devices of a host side and a DPU side. The profile is
 * loaded once per process; devinfo objects live as long as the process (lists only hold
 * pointers), so a devinfo reached through an open device stays valid.
 */
#ifndef ODMA_CORE_DEVICE_H_
#define ODMA_CORE_DEVICE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_types.h>

#include "util/fnv.h"

enum odma_side {
	ODMA_SIDE_HOST = 0,
	ODMA_SIDE_DPU = 1,
};

/* Parser limits: a profile past them is rejected (keeps a fuzzed profile's cost bounded). */
#define ODMA_PROFILE_MAX_DEVICES 64
#define ODMA_PROFILE_MAX_REPS 256  /* per DPU device */
#define ODMA_PROFILE_MAX_LINE 4096 /* bytes per line, newline excluded */
#define ODMA_PROFILE_MAX_TEXT (1u << 20)

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
	bool cache_invalidate;     /* doca_mmap_advise_cap_task_cache_invalidate_is_supported */
	bool clock_free_running;   /* doca_clock_cap_nic_free_running_is_supported */
	bool clock_real_time;      /* doca_clock_cap_nic_real_time_is_supported */
	bool clock_dpa_timer;      /* doca_clock_cap_nic_dpa_timer_is_supported */
	/*
	 * DOCA Compress (doca_compress_cap_*): which task types the device runs, and the largest
	 * buffer one task takes (0 in a profile: ODMA_COMPRESS_DEFAULT_MAX_BUF_SIZE).
	 */
	bool compress_deflate;          /* the compress deflate task */
	bool decompress_deflate;        /* the decompress deflate task */
	bool decompress_lz4;            /* the decompress LZ4 stream and LZ4 block tasks */
	uint64_t compress_max_buf_size; /* bytes of a source or destination buffer */
	/*
	 * Comch (doca_comch_cap_*): a device with comch=yes hosts a server on the DPU side and
	 * a client on the host side. Values left 0 in a profile take the BlueField-like defaults
	 * below (ODMA_COMCH_DEFAULT_*).
	 */
	bool comch;
	uint32_t comch_max_msg_size;     /* control-path message, bytes */
	uint32_t comch_max_recv_queue;   /* messages waiting for delivery per endpoint */
	uint32_t comch_max_clients;      /* per server */
	uint32_t comch_max_send_tasks;   /* send task pool */
	uint32_t comch_fp_max_tasks;     /* consumer post-recv / producer send task pool */
	uint32_t comch_fp_max_buf_size;  /* fast-path buffer, bytes */
	uint32_t comch_fp_max_endpoints; /* consumers (and producers) per side of a connection */
	uint32_t comch_max_imm_data;     /* fast-path immediate data, bytes */
	/*
	 * RDMA (doca_rdma_cap_*): a device with rdma=yes runs every RDMA task type over RC (and
	 * DC with rdma_dc=yes). Values left 0 take the ConnectX-like defaults below.
	 */
	bool rdma;
	bool rdma_dc;
	uint32_t rdma_max_msg_size; /* bytes one task may move */
	uint32_t rdma_max_queue;    /* send / receive queue entries */
	uint32_t rdma_max_buf_list; /* buf list elements of a send, write or receive */
	uint32_t rdma_gid_table;    /* GID table entries */
	/*
	 * Erasure coding (doca_ec_cap_*): every task type (create, recover, update, Galois
	 * multiplication). Limits left 0 take odma's defaults (src/erasure_coding/ec.h).
	 */
	bool ec;
	uint64_t ec_max_block_size;   /* doca_ec_cap_get_max_block_size, bytes */
	uint32_t ec_max_buf_list_len; /* doca_ec_cap_get_max_buf_list_len */
};

#define ODMA_COMPRESS_DEFAULT_MAX_BUF_SIZE (128ull << 20)

#define ODMA_RDMA_DEFAULT_MAX_MSG_SIZE (1u << 30)
#define ODMA_RDMA_DEFAULT_MAX_QUEUE 32768u
#define ODMA_RDMA_DEFAULT_MAX_BUF_LIST 16u
#define ODMA_RDMA_DEFAULT_GID_TABLE 256u

#define ODMA_COMCH_DEFAULT_MAX_MSG_SIZE 4080u
#define ODMA_COMCH_DEFAULT_MAX_RECV_QUEUE 1024u
#define ODMA_COMCH_DEFAULT_MAX_CLIENTS 512u
#define ODMA_COMCH_DEFAULT_MAX_SEND_TASKS 8192u
#define ODMA_COMCH_DEFAULT_FP_MAX_TASKS 1024u
#define ODMA_COMCH_DEFAULT_FP_MAX_BUF_SIZE (1u << 30)
#define ODMA_COMCH_DEFAULT_FP_MAX_ENDPOINTS 64u
#define ODMA_COMCH_DEFAULT_MAX_IMM_DATA 32u
#define ODMA_COMCH_IMM_DATA_LIMIT 256u /* largest comch_imm_data a profile may give */
/*
 * largest comch_max_msg_size a profile may give: a message is one packet of a Unix socket,
 * which its send buffer must hold whole (net.core.wmem_default, some 100 to 200 KiB)
 */
#define ODMA_COMCH_MSG_SIZE_LIMIT (64u << 10)
/* largest comch_fp_tasks a profile may give: a consumer's ring has a slot for each task */
#define ODMA_COMCH_FP_TASKS_LIMIT 65536u

struct doca_devinfo_rep {
	struct doca_devinfo *parent; /* the DPU device this representor belongs to */
	char pci_addr[DOCA_DEVINFO_REP_PCI_ADDR_SIZE];
	char vuid[DOCA_DEVINFO_REP_VUID_SIZE];
	char iface_name[DOCA_DEVINFO_IFACE_NAME_SIZE]; /* netdev name; "" without a netdev */
	uint16_t vhca_id;
	enum doca_pci_func_type func_type;
	int filter_bits; /* DOCA_DEVINFO_REP_FILTER_NET / _EMULATED */
	bool hotplug;
	struct doca_dev_rep *rep_store; /* storage reused by every open (never freed) */
};

struct doca_dev_rep {
	struct doca_devinfo_rep *info;
	uint32_t refcount;
	uint32_t users; /* Comch servers holding it; the last close with users => IN_USE */
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
	uint64_t active_rate; /* bits per second (doca_devinfo_get_active_rate) */
	uint16_t vhca_id;     /* doca_devinfo_get_vhca_id */
	struct odma_dev_caps caps;
	struct doca_devinfo_rep *reps; /* array, DPU side only */
	uint32_t num_reps;
	struct doca_dev *dev; /* the open device (refcounted), NULL when closed */
	struct doca_dev
	        *dev_store; /* storage reused by every open: a stale handle stays readable */
};

struct doca_dev {
	struct doca_devinfo *info;
	uint32_t refcount; /* doca_dev_open count */
	uint32_t users;    /* mmaps/contexts holding the device; close with users => IN_USE */
};

/*
 * The loaded system: name (a built-in profile name or the file path), a 64-bit id
 * (FNV-1a of the built-in name, or of the file's bytes; put into export descriptors so
 * both sides agree), all devices.
 */
struct odma_system {
	char name[256];
	uint64_t id;
	struct doca_devinfo *devs; /* array of num_devs */
	uint32_t num_devs;
	char label[64]; /* the profile's own `system NAME` line */
};

/*
 * Loads the system (ODMA_SYSTEM, ODMA_SIDE) on first use; NULL if it cannot, and then
 * odma_system_error() says why (a caller puts that into its one rejection log line).
 */
const struct odma_system *odma_system_get(void);

/* odma_system_get for libraries outside libdoca_common (libdoca_comch names its sockets by id). */
DOCA_STABLE const struct odma_system *doca_priv_system(void);

/*
 * The active system, for doca_caps' first line: @name is ODMA_SYSTEM's value (a built-in name,
 * "bf3" when unset, or a file path), @label the profile's `system` line, @device what a built-in
 * profile emulates and @alias_of its canonical name (both NULL for a file). Returns false, and
 * sets @error to why, when no system could be loaded. Any pointer may be NULL.
 */
DOCA_STABLE bool doca_priv_system_describe(const char **name, const char **label,
                                           const char **device, const char **alias_of,
                                           const char **error);

/* Why the system could not be loaded ("" when it loaded); valid once odma_system_get ran. */
const char *odma_system_error(void);

/* Whether this process sees devices of @side (ODMA_SIDE). */
bool odma_side_visible(enum odma_side side);

/*
 * One close of a device or representor handle opened *@refcount times and held by @users
 * objects (under the caller's lock): INVALID_VALUE when it is not open, IN_USE when this would
 * be the last close while @users remain, else DOCA_SUCCESS with *@refcount lowered.
 */
/*
 * Defines the public getter @fn(const @type *@obj, @t *@n) of a device or representor: @check
 * refuses an unknown @obj, INVALID_VALUE for a NULL @n, then *@n = the expression that follows.
 */
#define ODMA_DEV_GETTER(fn, type, obj, check, t, n, ...)                                           \
	doca_error_t fn(const type *obj, t *n)                                                     \
	{                                                                                          \
		check(obj);                                                                        \
		ODMA_CHECK_ARG(n != NULL, #n " must not be NULL");                                 \
		*n = (__VA_ARGS__);                                                                \
		return DOCA_SUCCESS;                                                               \
	}

static inline doca_error_t odma_open_count_drop(uint32_t *refcount, uint32_t users)
{
	if (*refcount == 0)
		return DOCA_ERROR_INVALID_VALUE;
	if (*refcount == 1 && users > 0)
		return DOCA_ERROR_IN_USE;
	--*refcount;
	return DOCA_SUCCESS;
}

/* Device holds: an mmap or a context that uses @dev takes one; close fails while any remain. */
void odma_dev_hold(struct doca_dev *dev);
void odma_dev_release(struct doca_dev *dev);

/*
 * Checks a caller's output buffer at the public entry point of a devinfo or representor
 * getter (so the log line names the public call): non-NULL and at least @min bytes.
 */
#define ODMA_CHECK_BUF(what, dst, size, min)                                                       \
	do {                                                                                       \
		ODMA_CHECK_ARG((dst) != NULL, "%s buffer must not be NULL", what);                 \
		ODMA_CHECK_ARG((size) >= (min),                                                    \
		               "%s buffer of %u bytes is too small; pass at least %u", what,       \
		               (unsigned int)(size), (unsigned int)(min));                         \
	} while (0)

/*
 * Defines the public capability query @fn(devinfo): INVALID_VALUE with one line for a NULL
 * devinfo, else DOCA_SUCCESS when the device's caps.@cap is set and NOT_SUPPORTED when not.
 */
#define ODMA_CAP_SUPPORTED(fn, cap)                                                                \
	doca_error_t fn(const struct doca_devinfo *devinfo)                                        \
	{                                                                                          \
		ODMA_CHECK_ARG(devinfo != NULL, "devinfo must not be NULL");                       \
		return devinfo->caps.cap ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;                \
	}

/*
 * Defines the public capability getter @fn(devinfo, @t *@n): INVALID_VALUE with one line
 * naming both arguments when either is NULL, NOT_SUPPORTED when the device's caps.@cap is
 * unset, else *@n = the expression that follows, and DOCA_SUCCESS.
 */
#define ODMA_CAP_GETTER(fn, t, n, cap, ...)                                                        \
	doca_error_t fn(const struct doca_devinfo *devinfo, t *n)                                  \
	{                                                                                          \
		ODMA_CHECK_ARG(devinfo != NULL && n != NULL,                                       \
		               "devinfo and " #n " must not be NULL");                             \
		if (!devinfo->caps.cap)                                                            \
			return DOCA_ERROR_NOT_SUPPORTED;                                           \
		*n = (__VA_ARGS__);                                                                \
		return DOCA_SUCCESS;                                                               \
	}

/*
 * Whether @p is the address of one of the @n elements of @size bytes at @base: how a handle
 * passed in is recognised as a device or representor of the system (addresses only).
 */
static inline bool odma_is_element(const void *p, const void *base, size_t n, size_t size)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)base;

	return a >= b && a < b + size * n && (a - b) % size == 0;
}

/* Parses "DDDD:BB:DD.F" or "BB:DD.F" into a canonical "DDDD:BB:DD.F"; false if malformed. */
bool odma_pci_addr_parse(const char *in, char out[DOCA_DEVINFO_PCI_ADDR_SIZE]);

/*
 * Lists handed to the user (devinfo and representor lists) are registered, so a destroy
 * of something that is not a live list is rejected instead of freeing a foreign pointer.
 * odma_list_new returns a NULL-terminated array of @n + 1 slots; odma_list_release frees
 * it if it is live and returns whether it was.
 */
void **odma_list_new(uint32_t n);
bool odma_list_release(void **items);

/* Whether @d is a devinfo of this process's system (checked by address, never dereferenced). */
bool odma_devinfo_known(const struct doca_devinfo *d);

/* The devinfo behind @dev if it is a device handle of this process's system, else NULL. */
struct doca_devinfo *odma_dev_lookup(const struct doca_dev *dev);

/*
 * odma_dev_lookup of a device that is open: NULL also for a handle whose last doca_dev_close
 * ran (on hardware that handle is freed). Every call that makes an object use a device (an
 * mmap's add_dev or import, a context, a clock, a sync event) asks this one.
 */
struct doca_devinfo *odma_dev_lookup_open(const struct doca_dev *dev);

/*
 * Representor holds, for libraries outside libdoca_common (a Comch server keeps its
 * representor until its destroy): true when @rep is open and now held; the last
 * doca_dev_rep_close is refused with DOCA_ERROR_IN_USE while any hold remains.
 */
DOCA_STABLE bool doca_priv_dev_rep_hold(struct doca_dev_rep *rep);
DOCA_STABLE void doca_priv_dev_rep_release(struct doca_dev_rep *rep);

/* odma_dev_lookup for libraries outside libdoca_common (libdoca_rdma). */
DOCA_STABLE struct doca_devinfo *doca_priv_dev_lookup(const struct doca_dev *dev);

/*
 * The device's task queue depth: how many tasks a context on it (DMA, and any context type
 * that keeps the device's limit) holds in flight before submit returns DOCA_ERROR_AGAIN.
 * DOCA has no query for it; the profile's queue_depth key sets it (docs/profiles.md).
 * Exported for the tools (doca_caps, odma errors): DOCA_ERROR_INVALID_VALUE when @info is
 * not a devinfo of this process or @depth is NULL; DOCA_ERROR_NOT_SUPPORTED when the device
 * has no DMA memcpy (the other context types bound what is in flight by their own queues).
 */
DOCA_STABLE doca_error_t doca_priv_devinfo_get_queue_depth(const struct doca_devinfo *info,
                                                           uint32_t *depth);

/*
 * Parses a profile (docs/profiles.md) held in @text[0..len) (need not be NUL-terminated;
 * any byte string is safe). On success fills @out (id = FNV-1a of the text, name = label)
 * and returns DOCA_SUCCESS; release it with odma_system_free(). On failure leaves @out
 * empty, writes "line N: reason" into @err and returns DOCA_ERROR_INVALID_VALUE
 * (DOCA_ERROR_NO_MEMORY when allocation failed).
 */
doca_error_t odma_profile_parse(const char *text, size_t len, struct odma_system *out, char *err,
                                size_t errlen);

/* Frees what odma_profile_parse allocated (safe on an empty or already freed system). */
void odma_system_free(struct odma_system *sys);

/* A built-in profile: its name, the device it emulates, and its text (profile_builtin.c). */
struct odma_profile_info {
	const char *name;
	const char
	        *alias_of;  /* another name kept working (nic = cx6dx), NULL for a canonical one */
	const char *device; /* what it emulates, in words ("BlueField-3 DPU (...)") */
	const char *text;
};

/* Text of built-in profile @name (following an alias), NULL if there is none. */
const char *odma_profile_builtin(const char *name);

/* The built-in profile @name, NULL if there is none. */
const struct odma_profile_info *odma_profile_info(const char *name);

/*
 * The @i-th built-in profile (0-based, in the order docs/profiles.md lists them), NULL past them.
 */
const struct odma_profile_info *odma_profile_info_at(unsigned int i);

/* The built-in names for an error line: "bf3, bf2, cx7, cx6dx, nic (= cx6dx)". */
void odma_profile_names(char *out, size_t len);

#endif /* ODMA_CORE_DEVICE_H_ */
