/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/**
 * @file doca_dev.h
 * @brief Devices and representors.
 *
 * Objects:
 * @code
 *   doca_devinfo_create_list() -> doca_devinfo*[]   (what exists; valid for the process)
 *        doca_dev_open(devinfo) -> doca_dev          (refcounted; same handle each open)
 *            doca_devinfo_rep_create_list(dev) -> doca_devinfo_rep*[]   (DPU-side devices only)
 *                 doca_dev_rep_open(rep) -> doca_dev_rep              (refcounted)
 * @endcode
 * Legal order: create_list -> pick a devinfo (PCI address, names, capabilities) -> open
 * -> destroy_list (the open device stays valid) -> use -> close. A device is closed
 * for real by the last doca_dev_close(); that close fails with DOCA_ERROR_IN_USE while
 * memory maps or contexts still use the device.
 *
 * In odma the devices are emulated: the system profile chosen by ODMA_SYSTEM (built-in
 * bf3, bf2, nic, or a profile file) defines them, and ODMA_SIDE (host or dpu) restricts
 * a process to one side's devices. See docs/profiles.md.
 */
#ifndef DOCA_DEV_H_
#define DOCA_DEV_H_

#include <stdint.h>
#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Description of a device present in the system (no handle is open). */
struct doca_devinfo;
/** Description of a representor, as listed by a DPU-side device. */
struct doca_devinfo_rep;
/** An open device. */
struct doca_dev;
/** An open representor. */
struct doca_dev_rep;

#define DOCA_DEVINFO_VUID_SIZE 128        /**< bytes of a VUID buffer, NUL included */
#define DOCA_DEVINFO_IPV4_ADDR_SIZE 4     /**< bytes of an IPv4 address */
#define DOCA_DEVINFO_IPV6_ADDR_SIZE 16    /**< bytes of an IPv6 address */
#define DOCA_DEVINFO_MAC_ADDR_SIZE 6      /**< bytes of a MAC address */
#define DOCA_DEVINFO_IFACE_NAME_SIZE 256  /**< bytes of an interface name buffer, NUL included */
#define DOCA_DEVINFO_IBDEV_NAME_SIZE 64   /**< bytes of an IB device name buffer, NUL included */
#define DOCA_DEVINFO_PCI_ADDR_SIZE 13     /**< bytes of "DDDD:BB:DD.F" plus NUL */
#define DOCA_DEVINFO_PCI_BDF_SIZE 8       /**< bytes of "BB:DD.F" plus NUL */
#define DOCA_DEVINFO_REP_VUID_SIZE 128    /**< bytes of a representor VUID buffer, NUL included */
#define DOCA_DEVINFO_REP_PCI_ADDR_SIZE 13 /**< bytes of a representor's "DDDD:BB:DD.F" plus NUL */
#define DOCA_DEVINFO_REP_PCI_BDF_SIZE 8   /**< bytes of a representor's "BB:DD.F" plus NUL */

/** Which representors doca_devinfo_rep_create_list() returns; NET and EMULATED may be OR-ed. */
enum doca_devinfo_rep_filter {
	DOCA_DEVINFO_REP_FILTER_ALL = 0,           /**< every representor */
	DOCA_DEVINFO_REP_FILTER_NET = 1 << 1,      /**< network function representors */
	DOCA_DEVINFO_REP_FILTER_EMULATED = 1 << 2, /**< representors of emulated PCI functions */
};

/**
 * Lists the devices this process can see.
 * @param [out] dev_list NULL-terminated array of devinfo pointers; free with doca_devinfo_destroy_list().
 * @param [out] nb_devs number of devices in the list (may be 0, e.g. ODMA_SIDE=dpu with the nic profile).
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if an argument is NULL;
 *         DOCA_ERROR_NO_MEMORY if the list cannot be allocated;
 *         DOCA_ERROR_NOT_FOUND if no system could be loaded (bad ODMA_SYSTEM, unreadable or
 *         malformed profile file, bad ODMA_SIDE; the log line says which).
 */
DOCA_STABLE doca_error_t doca_devinfo_create_list(struct doca_devinfo ***dev_list, uint32_t *nb_devs);

/**
 * Frees a list from doca_devinfo_create_list(). The devinfo objects themselves stay valid
 * for devices opened from them.
 * @param [in] dev_list the list.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if NULL or not a live list (e.g. freed twice).
 */
DOCA_STABLE doca_error_t doca_devinfo_destroy_list(struct doca_devinfo **dev_list);

/**
 * Opens a device. Opening the same devinfo again returns the same handle and adds a reference.
 * @param [in] devinfo a device from a list or from doca_dev_as_devinfo().
 * @param [out] dev the open device (untouched on failure).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL or devinfo is not a
 *         device of this system; DOCA_ERROR_INITIALIZATION if the reference count is exhausted.
 */
DOCA_STABLE doca_error_t doca_dev_open(struct doca_devinfo *devinfo, struct doca_dev **dev);

/**
 * Drops one reference of an open device; the last one closes it. NULL is accepted and does
 * nothing (DOCA's samples close a device a second time as NULL during their teardown).
 * @param [in] dev the device, or NULL.
 * @return DOCA_SUCCESS (also for NULL); DOCA_ERROR_INVALID_VALUE if dev is unknown or no
 *         longer open (closed once too often);
 *         DOCA_ERROR_IN_USE if this is the last reference and memory maps or contexts still
 *         use the device (the reference is kept).
 */
DOCA_STABLE doca_error_t doca_dev_close(struct doca_dev *dev);

/**
 * The devinfo of an open device; it stays valid after its list was destroyed.
 * @param [in] dev the device.
 * @return the devinfo; NULL if dev is NULL, unknown or not open.
 */
DOCA_STABLE struct doca_devinfo *doca_dev_as_devinfo(const struct doca_dev *dev);

/**
 * Writes the device's PCI address as "DDDD:BB:DD.F" (lower-case hex).
 * @param [in] devinfo the device.
 * @param [out] pci_addr_str buffer of at least DOCA_DEVINFO_PCI_ADDR_SIZE bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL or devinfo is unknown.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_pci_addr_str(const struct doca_devinfo *devinfo, char *pci_addr_str);

/**
 * Compares the device's PCI address with a string in "DDDD:BB:DD.F" or "BB:DD.F" form
 * (hex, any case; the short form means domain 0000).
 * @param [in] devinfo the device.
 * @param [in] pci_addr_str the address to compare.
 * @param [out] is_equal 1 when equal, else 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL, devinfo is unknown
 *         or the string is not a PCI address.
 */
DOCA_STABLE doca_error_t doca_devinfo_is_equal_pci_addr(const struct doca_devinfo *devinfo,
							const char *pci_addr_str, uint8_t *is_equal);

/**
 * Writes the IB device name (e.g. "mlx5_0"), NUL-terminated.
 * @param [in] devinfo the device.
 * @param [out] ibdev_name the buffer.
 * @param [in] size its size; at least DOCA_DEVINFO_IBDEV_NAME_SIZE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL, devinfo is unknown
 *         or size is too small.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_ibdev_name(const struct doca_devinfo *devinfo, char *ibdev_name,
						     uint32_t size);

/**
 * Writes the network interface name (e.g. "p0"), NUL-terminated.
 * @param [in] devinfo the device.
 * @param [out] iface_name the buffer.
 * @param [in] size its size; at least DOCA_DEVINFO_IFACE_NAME_SIZE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL, devinfo is unknown
 *         or size is too small.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_iface_name(const struct doca_devinfo *devinfo, char *iface_name,
						     uint32_t size);

/**
 * Writes the device's IPv4 address (network byte order).
 * @param [in] devinfo the device.
 * @param [out] ipv4_addr the buffer.
 * @param [in] size its size; at least DOCA_DEVINFO_IPV4_ADDR_SIZE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL, devinfo is unknown
 *         or size is too small.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_ipv4_addr(const struct doca_devinfo *devinfo, uint8_t *ipv4_addr,
						    uint32_t size);

/**
 * Writes the device's IPv6 address (network byte order).
 * @param [in] devinfo the device.
 * @param [out] ipv6_addr the buffer.
 * @param [in] size its size; at least DOCA_DEVINFO_IPV6_ADDR_SIZE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL, devinfo is unknown
 *         or size is too small.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_ipv6_addr(const struct doca_devinfo *devinfo, uint8_t *ipv6_addr,
						    uint32_t size);

/**
 * Writes the device's MAC address.
 * @param [in] devinfo the device.
 * @param [out] mac_addr the buffer.
 * @param [in] size its size; at least DOCA_DEVINFO_MAC_ADDR_SIZE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL, devinfo is unknown
 *         or size is too small.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_mac_addr(const struct doca_devinfo *devinfo, uint8_t *mac_addr,
						   uint32_t size);

/**
 * Reads the port's InfiniBand LID (0 for the Ethernet ports of the built-in profiles).
 * @param [in] devinfo the device.
 * @param [out] lid the LID.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL or devinfo is unknown.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_lid(const struct doca_devinfo *devinfo, uint16_t *lid);

/**
 * Reads the kind of PCI function the device is.
 * @param [in] devinfo the device.
 * @param [out] pci_func_type PF, VF or SF.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL or devinfo is unknown.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_pci_func_type(const struct doca_devinfo *devinfo,
							enum doca_pci_func_type *pci_func_type);

/**
 * Reads the index of a scalable function.
 * @param [in] devinfo the device.
 * @param [out] sf_index the SF index.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL or devinfo is unknown;
 *         DOCA_ERROR_NOT_SUPPORTED if the device is not an SF.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_sf_index(const struct doca_devinfo *devinfo, uint32_t *sf_index);

/**
 * Reads the port's active rate in bits per second.
 * @param [in] devinfo the device.
 * @param [out] active_rate the rate.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL or devinfo is unknown.
 */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_active_rate(const struct doca_devinfo *devinfo,
							    uint64_t *active_rate);

/**
 * Reads the device's VHCA id.
 * @param [in] devinfo the device.
 * @param [out] vhca_id the id.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL or devinfo is unknown.
 */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_vhca_id(const struct doca_devinfo *devinfo, uint16_t *vhca_id);

/**
 * Asks the device to release resources of destroyed objects sooner. Emulated devices hold
 * none, so this only validates its argument.
 * @param [in] dev an open device.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if dev is NULL, unknown or not open.
 */
DOCA_EXPERIMENTAL doca_error_t doca_dev_accelerate_resource_reclaim(struct doca_dev *dev);

/**
 * Lists the representors of a DPU-side device.
 * @param [in] dev an open DPU-side device.
 * @param [in] filter DOCA_DEVINFO_REP_FILTER_ALL, or NET and/or EMULATED OR-ed.
 * @param [out] devinfo_rep_list NULL-terminated array; free with doca_devinfo_rep_destroy_list().
 * @param [out] nb_devinfo_reps number of representors in the list.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL, dev is not open or
 *         the filter has unknown bits; DOCA_ERROR_NOT_SUPPORTED if dev is a host-side device;
 *         DOCA_ERROR_NO_MEMORY if the list cannot be allocated.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_create_list(struct doca_dev *dev, int filter,
						      struct doca_devinfo_rep ***devinfo_rep_list,
						      uint32_t *nb_devinfo_reps);

/**
 * Frees a list from doca_devinfo_rep_create_list(); opened representors stay valid.
 * @param [in] devinfo_rep_list the list.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if NULL or not a live list.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_destroy_list(struct doca_devinfo_rep **devinfo_rep_list);

/**
 * Opens a representor; opening it again returns the same handle and adds a reference.
 * @param [in] devinfo_rep the representor.
 * @param [out] dev_rep the open representor (untouched on failure).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL or unknown;
 *         DOCA_ERROR_INITIALIZATION if the reference count is exhausted.
 */
DOCA_STABLE doca_error_t doca_dev_rep_open(struct doca_devinfo_rep *devinfo_rep, struct doca_dev_rep **dev_rep);

/**
 * Drops one reference of an open representor.
 * @param [in] dev the representor.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if dev is NULL, unknown or not open;
 *         DOCA_ERROR_IN_USE for the last reference while a Comch server uses the
 *         representor (destroy the server first; the representor stays open).
 */
DOCA_STABLE doca_error_t doca_dev_rep_close(struct doca_dev_rep *dev);

/**
 * The description of an open representor.
 * @param [in] dev_rep the representor.
 * @return the devinfo_rep; NULL if dev_rep is NULL, unknown or not open.
 */
DOCA_STABLE struct doca_devinfo_rep *doca_dev_rep_as_devinfo(struct doca_dev_rep *dev_rep);

/**
 * Writes the representor's VUID, NUL-terminated.
 * @param [in] devinfo_rep the representor.
 * @param [out] rep_vuid the buffer.
 * @param [in] size its size; at least DOCA_DEVINFO_REP_VUID_SIZE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL, unknown or size is too small.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_get_vuid(const struct doca_devinfo_rep *devinfo_rep, char *rep_vuid,
						   uint32_t size);

/**
 * Writes the PCI address of the function the representor stands for, as "DDDD:BB:DD.F".
 * @param [in] devinfo_rep the representor.
 * @param [out] pci_addr_str buffer of at least DOCA_DEVINFO_REP_PCI_ADDR_SIZE bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL or unknown.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_get_pci_addr_str(const struct doca_devinfo_rep *devinfo_rep,
							   char *pci_addr_str);

/**
 * Reads the kind of PCI function the representor stands for.
 * @param [in] devinfo_rep the representor.
 * @param [out] pci_func_type PF, VF or SF.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL or unknown.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_get_pci_func_type(const struct doca_devinfo_rep *devinfo_rep,
							    enum doca_pci_func_type *pci_func_type);

/**
 * Reads whether the representor's function was hot-plugged.
 * @param [in] devinfo_rep the representor.
 * @param [out] is_hotplug 1 if hot-plugged, else 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL or unknown.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_get_is_hotplug(const struct doca_devinfo_rep *devinfo_rep,
							 uint8_t *is_hotplug);

/**
 * Writes the name of the network interface (netdev) of the representor, NUL-terminated:
 * the name the operating system shows for it (ifconfig, ip link). On odma's emulated DPU the
 * names follow BlueField's convention (pf0hpf for the host PF of port 0, pf0vf0 for its
 * first VF, en3f0pf0sf0 for its first SF) unless the system profile gives one (`iface=`).
 * @param [in] devinfo_rep the representor.
 * @param [out] iface_name the buffer.
 * @param [in] size its size; at least DOCA_DEVINFO_IFACE_NAME_SIZE (there is no
 *             representor-specific size constant).
 * @return DOCA_SUCCESS;
 *         DOCA_ERROR_INVALID_VALUE if an argument is NULL, the representor is unknown or
 *         @p size is below DOCA_DEVINFO_IFACE_NAME_SIZE;
 *         DOCA_ERROR_OPERATING_SYSTEM if the representor has no network interface (a
 *         representor listed without DOCA_DEVINFO_REP_FILTER_NET, e.g. an emulated PF).
 */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_get_iface_name(const struct doca_devinfo_rep *devinfo_rep,
							       char *iface_name, uint32_t size);

/**
 * Reads the VHCA id of the function the representor stands for: an integer, stable for the
 * life of the system profile (the profile's `vhca_id=`, else 0x100 x (the parent device's
 * VHCA id + 1) plus the representor's position under it).
 * @param [in] devinfo_rep the representor.
 * @param [out] vhca_id the id.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL or the representor is
 *         unknown.
 */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_get_vhca_id(const struct doca_devinfo_rep *devinfo_rep,
							    uint16_t *vhca_id);

/**
 * Compares the representor's PCI address with "DDDD:BB:DD.F" or "BB:DD.F".
 * @param [in] devinfo_rep the representor.
 * @param [in] pci_addr_str the address to compare.
 * @param [out] is_equal 1 when equal, else 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL or unknown, or the
 *         string is not a PCI address.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_is_equal_pci_addr(const struct doca_devinfo_rep *devinfo_rep,
							    const char *pci_addr_str, uint8_t *is_equal);

/**
 * Whether the device can list representors with DOCA_DEVINFO_REP_FILTER_ALL (DPU side: yes).
 * @param [in] devinfo the device.
 * @param [out] filter_all_supported 1 or 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL or devinfo is unknown.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_cap_is_filter_all_supported(const struct doca_devinfo *devinfo,
								      uint8_t *filter_all_supported);

/**
 * Whether the device can list representors with DOCA_DEVINFO_REP_FILTER_NET (DPU side: yes).
 * @param [in] devinfo the device.
 * @param [out] filter_net_supported 1 or 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL or devinfo is unknown.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_cap_is_filter_net_supported(const struct doca_devinfo *devinfo,
								      uint8_t *filter_net_supported);

/**
 * Whether the device can list representors with DOCA_DEVINFO_REP_FILTER_EMULATED (DPU side: yes).
 * @param [in] devinfo the device.
 * @param [out] filter_emulated_supported 1 or 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL or devinfo is unknown.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_cap_is_filter_emulated_supported(const struct doca_devinfo *devinfo,
									   uint8_t *filter_emulated_supported);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DEV_H_ */
