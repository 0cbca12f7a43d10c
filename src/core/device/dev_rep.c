/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Representors: the DPU-side handles of host functions (PFs, VFs, SFs, emulated
 * functions). Only DPU-side devices list them. Like devinfos they live for the process,
 * are recognised by address, and each has one doca_dev_rep storage reused by every open.
 */
#include <pthread.h>
#include <string.h>

#include "core/device/device.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(ODMA_DEV_REP)

#define ODMA_REP_FILTER_MASK (DOCA_DEVINFO_REP_FILTER_NET | DOCA_DEVINFO_REP_FILTER_EMULATED)

static pthread_mutex_t rep_lock = PTHREAD_MUTEX_INITIALIZER;

/* Whether @r is a representor of the loaded system (address comparison only). */
static bool rep_valid(const struct doca_devinfo_rep *r)
{
	const struct odma_system *sys = odma_system_get();

	for (uint32_t i = 0; r != NULL && sys != NULL && i < sys->num_devs; i++)
		if (odma_is_element(r, sys->devs[i].reps, sys->devs[i].num_reps, sizeof(*r)))
			return true;
	return false;
}

static struct doca_devinfo_rep *rep_dev_lookup(const struct doca_dev_rep *dev)
{
	const struct odma_system *sys = odma_system_get();

	for (uint32_t i = 0; dev != NULL && sys != NULL && i < sys->num_devs; i++)
		for (uint32_t r = 0; r < sys->devs[i].num_reps; r++)
			if (sys->devs[i].reps[r].rep_store == dev)
				return &sys->devs[i].reps[r];
	return NULL;
}

#define ODMA_CHECK_REP(r)                                                                          \
	ODMA_CHECK_ARG(rep_valid(r),                                                               \
	               "devinfo_rep %p is not a representor of this system; pass "                 \
	               "one from doca_devinfo_rep_create_list",                                    \
	               (const void *)(r))

static bool rep_matches(const struct doca_devinfo_rep *r, int filter)
{
	return filter == DOCA_DEVINFO_REP_FILTER_ALL || (r->filter_bits & filter) != 0;
}

/* Checks the device and filter of a list request; logs and returns the code on rejection. */
static doca_error_t rep_list_check(const struct doca_dev *dev, struct doca_devinfo *info,
                                   int filter)
{
	ODMA_CHECK_ARG(info != NULL && dev->refcount > 0, "dev %p is not an open device",
	               (const void *)dev);
	ODMA_CHECK_ARG((filter & ~ODMA_REP_FILTER_MASK) == 0,
	               "filter 0x%x has unknown bits; use DOCA_DEVINFO_REP_FILTER_ALL, "
	               "_NET and/or _EMULATED",
	               (unsigned int)filter);
	if (info->side != ODMA_SIDE_DPU) {
		ODMA_ERR("device %s is a host-side device; "
		         "representors are listed only by DPU-side devices",
		         info->pci_addr);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_rep_create_list(struct doca_dev *dev, int filter,
                                          struct doca_devinfo_rep ***devinfo_rep_list,
                                          uint32_t *nb_devinfo_reps)
{
	struct doca_devinfo *info = odma_dev_lookup(dev);
	struct doca_devinfo_rep **list;
	doca_error_t rc;
	uint32_t n = 0;

	ODMA_CHECK_ARG(devinfo_rep_list != NULL && nb_devinfo_reps != NULL,
	               "devinfo_rep_list and nb_devinfo_reps must not be NULL");
	rc = rep_list_check(dev, info, filter);
	if (rc != DOCA_SUCCESS)
		return rc;
	list = (struct doca_devinfo_rep **)odma_list_new(info->num_reps);
	if (list == NULL) {
		ODMA_ERR("out of memory for a list of %u representors", info->num_reps);
		return DOCA_ERROR_NO_MEMORY;
	}
	for (uint32_t i = 0; i < info->num_reps; i++)
		if (rep_matches(&info->reps[i], filter))
			list[n++] = &info->reps[i];
	*devinfo_rep_list = list;
	*nb_devinfo_reps = n;
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_rep_destroy_list(struct doca_devinfo_rep **devinfo_rep_list)
{
	ODMA_CHECK_ARG(devinfo_rep_list != NULL, "devinfo_rep_list must not be NULL");
	ODMA_CHECK_ARG(odma_list_release((void **)devinfo_rep_list),
	               "list %p is not a live representor list (destroyed twice, or not from "
	               "doca_devinfo_rep_create_list)",
	               (void *)devinfo_rep_list);
	return DOCA_SUCCESS;
}

doca_error_t doca_dev_rep_open(struct doca_devinfo_rep *devinfo_rep, struct doca_dev_rep **dev_rep)
{
	ODMA_CHECK_REP(devinfo_rep);
	ODMA_CHECK_ARG(dev_rep != NULL, "dev_rep must not be NULL");
	pthread_mutex_lock(&rep_lock);
	if (devinfo_rep->rep_store->refcount == UINT32_MAX) {
		pthread_mutex_unlock(&rep_lock);
		ODMA_ERR("representor %s opened 2^32-1 times; close some references",
		         devinfo_rep->vuid);
		return DOCA_ERROR_INITIALIZATION;
	}
	devinfo_rep->rep_store->refcount++;
	pthread_mutex_unlock(&rep_lock);
	*dev_rep = devinfo_rep->rep_store;
	return DOCA_SUCCESS;
}

doca_error_t doca_dev_rep_close(struct doca_dev_rep *dev)
{
	struct doca_devinfo_rep *info = rep_dev_lookup(dev);
	doca_error_t rc;
	uint32_t users;

	ODMA_CHECK_ARG(info != NULL, "dev_rep %p is not a handle from doca_dev_rep_open",
	               (void *)dev);
	pthread_mutex_lock(&rep_lock);
	rc = odma_open_count_drop(&dev->refcount, dev->users);
	users = dev->users;
	pthread_mutex_unlock(&rep_lock);
	ODMA_CHECK_ARG(rc != DOCA_ERROR_INVALID_VALUE,
	               "representor %s is not open; close it once per doca_dev_rep_open",
	               info->vuid);
	if (rc == DOCA_ERROR_IN_USE) {
		ODMA_ERR("representor %s still used by %u Comch servers; "
		         "destroy them before the last close",
		         info->vuid, users);
		return DOCA_ERROR_IN_USE;
	}
	return DOCA_SUCCESS;
}

bool doca_priv_dev_rep_hold(struct doca_dev_rep *rep)
{
	bool open = rep_dev_lookup(rep) != NULL;

	pthread_mutex_lock(&rep_lock);
	open = open && rep->refcount > 0;
	if (open)
		rep->users++;
	pthread_mutex_unlock(&rep_lock);
	return open;
}

void doca_priv_dev_rep_release(struct doca_dev_rep *rep)
{
	pthread_mutex_lock(&rep_lock);
	if (rep->users > 0)
		rep->users--;
	pthread_mutex_unlock(&rep_lock);
}

struct doca_devinfo_rep *doca_dev_rep_as_devinfo(struct doca_dev_rep *dev_rep)
{
	struct doca_devinfo_rep *info = rep_dev_lookup(dev_rep);

	return info != NULL && dev_rep->refcount > 0 ? info : NULL;
}

/* Defines the public getter @fn(devinfo_rep, @t *@n): *@n = the expression that follows. */
#define REP_GETTER(fn, t, n, ...)                                                                  \
	ODMA_DEV_GETTER(fn, struct doca_devinfo_rep, devinfo_rep, ODMA_CHECK_REP, t, n, __VA_ARGS__)

doca_error_t doca_devinfo_rep_get_vuid(const struct doca_devinfo_rep *devinfo_rep, char *rep_vuid,
                                       uint32_t size)
{
	ODMA_CHECK_REP(devinfo_rep);
	ODMA_CHECK_BUF("rep_vuid", rep_vuid, size, DOCA_DEVINFO_REP_VUID_SIZE);
	memcpy(rep_vuid, devinfo_rep->vuid, DOCA_DEVINFO_REP_VUID_SIZE);
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_rep_get_iface_name(const struct doca_devinfo_rep *devinfo_rep,
                                             char *iface_name, uint32_t size)
{
	ODMA_CHECK_REP(devinfo_rep);
	ODMA_CHECK_BUF("iface_name", iface_name, size, DOCA_DEVINFO_IFACE_NAME_SIZE);
	if (devinfo_rep->iface_name[0] == '\0') {
		ODMA_ERR("representor %s has no network interface (it is not listed with "
		         "DOCA_DEVINFO_REP_FILTER_NET); fix: ask only net representors for a name",
		         devinfo_rep->vuid);
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	memcpy(iface_name, devinfo_rep->iface_name, DOCA_DEVINFO_IFACE_NAME_SIZE);
	return DOCA_SUCCESS;
}

REP_GETTER(doca_devinfo_rep_get_vhca_id, uint16_t, vhca_id, devinfo_rep->vhca_id)

doca_error_t doca_devinfo_rep_get_pci_addr_str(const struct doca_devinfo_rep *devinfo_rep,
                                               char *pci_addr_str)
{
	ODMA_CHECK_REP(devinfo_rep);
	ODMA_CHECK_ARG(pci_addr_str != NULL, "pci_addr_str must not be NULL");
	memcpy(pci_addr_str, devinfo_rep->pci_addr, DOCA_DEVINFO_REP_PCI_ADDR_SIZE);
	return DOCA_SUCCESS;
}

REP_GETTER(doca_devinfo_rep_get_pci_func_type, enum doca_pci_func_type, pci_func_type,
           devinfo_rep->func_type)

REP_GETTER(doca_devinfo_rep_get_is_hotplug, uint8_t, is_hotplug, devinfo_rep->hotplug)

doca_error_t doca_devinfo_rep_is_equal_pci_addr(const struct doca_devinfo_rep *devinfo_rep,
                                                const char *pci_addr_str, uint8_t *is_equal)
{
	char canon[DOCA_DEVINFO_PCI_ADDR_SIZE];

	ODMA_CHECK_REP(devinfo_rep);
	ODMA_CHECK_ARG(pci_addr_str != NULL && is_equal != NULL,
	               "pci_addr_str and is_equal must not be NULL");
	ODMA_CHECK_ARG(odma_pci_addr_parse(pci_addr_str, canon),
	               "'%.16s' is not a PCI address; use DDDD:BB:DD.F or BB:DD.F (hex)",
	               pci_addr_str);
	*is_equal = strcmp(canon, devinfo_rep->pci_addr) == 0;
	return DOCA_SUCCESS;
}

/*
 * Every filter is supported exactly by DPU-side devices (the ones that list representors).
 * A macro so the rejection is logged under the public function's name.
 */
#define ODMA_REP_CAP(devinfo, supported)                                                           \
	do {                                                                                       \
		ODMA_CHECK_ARG(odma_devinfo_known(devinfo),                                        \
		               "devinfo %p is not a device of this "                               \
		               "system",                                                           \
		               (const void *)(devinfo));                                           \
		ODMA_CHECK_ARG((supported) != NULL, "output pointer must not be NULL");            \
		*(supported) = (devinfo)->side == ODMA_SIDE_DPU;                                   \
		return DOCA_SUCCESS;                                                               \
	} while (0)

doca_error_t doca_devinfo_rep_cap_is_filter_all_supported(const struct doca_devinfo *devinfo,
                                                          uint8_t *filter_all_supported)
{
	ODMA_REP_CAP(devinfo, filter_all_supported);
}

doca_error_t doca_devinfo_rep_cap_is_filter_net_supported(const struct doca_devinfo *devinfo,
                                                          uint8_t *filter_net_supported)
{
	ODMA_REP_CAP(devinfo, filter_net_supported);
}

doca_error_t doca_devinfo_rep_cap_is_filter_emulated_supported(const struct doca_devinfo *devinfo,
                                                               uint8_t *filter_emulated_supported)
{
	ODMA_REP_CAP(devinfo, filter_emulated_supported);
}
