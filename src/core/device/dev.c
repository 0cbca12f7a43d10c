/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Device information and open devices of the emulated system (system.c loads it).
 * A devinfo is identified by its address inside the system's device array, so a garbage
 * pointer is rejected without being dereferenced. Each device has one doca_dev storage
 * allocated at load time and reused by every open: open/close only move counters.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device/device.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(ODMA_DEV)

struct odma_list {
	struct odma_list *next;
	void *items[];
};

/* Guards open/close counts, holds and the list registry. Never held across a callback. */
static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct odma_list *dev_lists;

void **odma_list_new(uint32_t n)
{
	struct odma_list *l = calloc(1, sizeof(*l) + sizeof(void *) * ((size_t)n + 1));

	if (l == NULL)
		return NULL;
	pthread_mutex_lock(&dev_lock);
	l->next = dev_lists;
	dev_lists = l;
	pthread_mutex_unlock(&dev_lock);
	return l->items;
}

bool odma_list_release(void **items)
{
	struct odma_list **pp, *found = NULL;

	pthread_mutex_lock(&dev_lock);
	for (pp = &dev_lists; *pp != NULL; pp = &(*pp)->next) {
		if ((*pp)->items == items) {
			found = *pp;
			*pp = found->next;
			break;
		}
	}
	pthread_mutex_unlock(&dev_lock);
	free(found);
	return found != NULL;
}

bool odma_devinfo_known(const struct doca_devinfo *d)
{
	const struct odma_system *sys = odma_system_get();

	return sys != NULL && d != NULL && odma_is_element(d, sys->devs, sys->num_devs, sizeof(*d));
}

struct doca_devinfo *odma_dev_lookup(const struct doca_dev *dev)
{
	const struct odma_system *sys = odma_system_get();

	for (uint32_t i = 0; dev != NULL && sys != NULL && i < sys->num_devs; i++)
		if (sys->devs[i].dev_store == dev)
			return &sys->devs[i];
	return NULL;
}

struct doca_devinfo *odma_dev_lookup_open(const struct doca_dev *dev)
{
	struct doca_devinfo *info = odma_dev_lookup(dev);
	bool open;

	if (info == NULL)
		return NULL;
	pthread_mutex_lock(&dev_lock);
	open = dev->refcount > 0;
	pthread_mutex_unlock(&dev_lock);
	return open ? info : NULL;
}

struct doca_devinfo *doca_priv_dev_lookup(const struct doca_dev *dev)
{
	return odma_dev_lookup(dev);
}

#define ODMA_CHECK_DEVINFO(d)                                                                      \
	ODMA_CHECK_ARG(odma_devinfo_known(d),                                                      \
	               "devinfo %p is not a device of this system; pass one "                      \
	               "from doca_devinfo_create_list or doca_dev_as_devinfo",                     \
	               (const void *)(d))

/* Defines the public getter @fn(devinfo, @t *@n): *@n = the expression that follows. */
#define DEVINFO_GETTER(fn, t, n, ...)                                                              \
	ODMA_DEV_GETTER(fn, struct doca_devinfo, devinfo, ODMA_CHECK_DEVINFO, t, n, __VA_ARGS__)

/*
 * Defines the public getter @fn(devinfo, @t *@n, size) that copies @len bytes of @src into
 * the caller's buffer of at least @min bytes.
 */
#define DEVINFO_COPY_GETTER(fn, t, n, min, src, len)                                               \
	doca_error_t fn(const struct doca_devinfo *devinfo, t *n, uint32_t size)                   \
	{                                                                                          \
		ODMA_CHECK_DEVINFO(devinfo);                                                       \
		ODMA_CHECK_BUF(#n, n, size, min);                                                  \
		memcpy(n, src, len);                                                               \
		return DOCA_SUCCESS;                                                               \
	}

doca_error_t doca_devinfo_create_list(struct doca_devinfo ***dev_list, uint32_t *nb_devs)
{
	const struct odma_system *sys;
	struct doca_devinfo **list;
	uint32_t n = 0;

	ODMA_CHECK_ARG(dev_list != NULL && nb_devs != NULL,
	               "dev_list and nb_devs must not be NULL");
	sys = odma_system_get();
	if (sys == NULL) {
		ODMA_ERR("no emulated system: %s", odma_system_error());
		return DOCA_ERROR_NOT_FOUND;
	}
	list = (struct doca_devinfo **)odma_list_new(sys->num_devs);
	if (list == NULL) {
		ODMA_ERR("out of memory for a list of %u devices", sys->num_devs);
		return DOCA_ERROR_NO_MEMORY;
	}
	for (uint32_t i = 0; i < sys->num_devs; i++)
		if (odma_side_visible(sys->devs[i].side))
			list[n++] = &sys->devs[i];
	*dev_list = list;
	*nb_devs = n;
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_destroy_list(struct doca_devinfo **dev_list)
{
	ODMA_CHECK_ARG(dev_list != NULL, "dev_list must not be NULL");
	ODMA_CHECK_ARG(odma_list_release((void **)dev_list),
	               "list %p is not a live device list (destroyed twice, or not from "
	               "doca_devinfo_create_list)",
	               (void *)dev_list);
	return DOCA_SUCCESS;
}

doca_error_t doca_dev_open(struct doca_devinfo *devinfo, struct doca_dev **dev)
{
	ODMA_CHECK_DEVINFO(devinfo);
	ODMA_CHECK_ARG(dev != NULL, "dev must not be NULL");
	pthread_mutex_lock(&dev_lock);
	if (devinfo->dev_store->refcount == UINT32_MAX) {
		pthread_mutex_unlock(&dev_lock);
		ODMA_ERR("device %s opened 2^32-1 times; close some references", devinfo->pci_addr);
		return DOCA_ERROR_INITIALIZATION;
	}
	devinfo->dev_store->refcount++;
	devinfo->dev = devinfo->dev_store;
	pthread_mutex_unlock(&dev_lock);
	ODMA_DBG("device %s opened", devinfo->pci_addr);
	*dev = devinfo->dev_store;
	return DOCA_SUCCESS;
}

doca_error_t doca_dev_close(struct doca_dev *dev)
{
	struct doca_devinfo *info;
	doca_error_t rc;
	uint32_t users;

	if (dev == NULL) {
		/* DOCA's DMA samples (3.0-3.3) close the device a second time, as NULL, after their
		 * core-object teardown closed it and cleared the pointer; on a BlueField that
		 * succeeds. A closed or foreign non-NULL handle still fails below. */
		ODMA_DBG("doca_dev_close(NULL): nothing to close");
		return DOCA_SUCCESS;
	}
	info = odma_dev_lookup(dev);
	ODMA_CHECK_ARG(info != NULL, "dev %p is not a device handle from doca_dev_open",
	               (void *)dev);
	pthread_mutex_lock(&dev_lock);
	rc = odma_open_count_drop(&dev->refcount, dev->users);
	if (rc == DOCA_SUCCESS && dev->refcount == 0)
		info->dev = NULL;
	users = dev->users;
	pthread_mutex_unlock(&dev_lock);
	if (rc == DOCA_ERROR_INVALID_VALUE)
		ODMA_ERR("device %s is not open; close it once per doca_dev_open", info->pci_addr);
	else if (rc == DOCA_ERROR_IN_USE)
		ODMA_ERR("device %s still used by %u mmaps/contexts; "
		         "destroy them before the last close",
		         info->pci_addr, users);
	return rc;
}

struct doca_devinfo *doca_dev_as_devinfo(const struct doca_dev *dev)
{
	struct doca_devinfo *info = odma_dev_lookup(dev);

	return info != NULL && dev->refcount > 0 ? info : NULL;
}

doca_error_t doca_dev_accelerate_resource_reclaim(struct doca_dev *dev)
{
	/* Emulated devices hold no deferred hardware resources: nothing to speed up. */
	ODMA_CHECK_ARG(odma_dev_lookup(dev) != NULL && dev->refcount > 0,
	               "dev %p is not an open device", (void *)dev);
	return DOCA_SUCCESS;
}

void odma_dev_hold(struct doca_dev *dev)
{
	pthread_mutex_lock(&dev_lock);
	dev->users++;
	pthread_mutex_unlock(&dev_lock);
}

void odma_dev_release(struct doca_dev *dev)
{
	pthread_mutex_lock(&dev_lock);
	if (dev->users > 0)
		dev->users--;
	pthread_mutex_unlock(&dev_lock);
}

doca_error_t doca_devinfo_get_pci_addr_str(const struct doca_devinfo *devinfo, char *pci_addr_str)
{
	ODMA_CHECK_DEVINFO(devinfo);
	ODMA_CHECK_ARG(pci_addr_str != NULL, "pci_addr_str must not be NULL");
	memcpy(pci_addr_str, devinfo->pci_addr, DOCA_DEVINFO_PCI_ADDR_SIZE);
	return DOCA_SUCCESS;
}

/*
 * Whether the refusal of @bad was logged just before: a program compares its one address with
 * every device of the list, and one ERROR line says all there is (the repeats go to DEBUG).
 */
static bool pci_refusal_repeats(const char *bad)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static char last[17];
	bool same;

	pthread_mutex_lock(&lock);
	same = strncmp(last, bad, sizeof(last) - 1) == 0 && last[0] != '\0';
	snprintf(last, sizeof(last), "%s", bad);
	pthread_mutex_unlock(&lock);
	return same;
}

doca_error_t doca_devinfo_is_equal_pci_addr(const struct doca_devinfo *devinfo,
                                            const char *pci_addr_str, uint8_t *is_equal)
{
	char canon[DOCA_DEVINFO_PCI_ADDR_SIZE];

	ODMA_CHECK_DEVINFO(devinfo);
	ODMA_CHECK_ARG(pci_addr_str != NULL && is_equal != NULL,
	               "pci_addr_str and is_equal must not be NULL");
	if (!odma_pci_addr_parse(pci_addr_str, canon)) {
		if (pci_refusal_repeats(pci_addr_str))
			ODMA_DBG("'%.16s' is not a PCI address (said above)", pci_addr_str);
		else
			ODMA_ERR("'%.16s' is not a PCI address; use DDDD:BB:DD.F or BB:DD.F (hex)",
			         pci_addr_str);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*is_equal = strcmp(canon, devinfo->pci_addr) == 0;
	return DOCA_SUCCESS;
}

DEVINFO_COPY_GETTER(doca_devinfo_get_ibdev_name, char, ibdev_name, DOCA_DEVINFO_IBDEV_NAME_SIZE,
                    devinfo->ibdev_name,
                    strnlen(devinfo->ibdev_name, DOCA_DEVINFO_IBDEV_NAME_SIZE - 1) + 1)

DEVINFO_COPY_GETTER(doca_devinfo_get_iface_name, char, iface_name, DOCA_DEVINFO_IFACE_NAME_SIZE,
                    devinfo->iface_name,
                    strnlen(devinfo->iface_name, DOCA_DEVINFO_IFACE_NAME_SIZE - 1) + 1)

DEVINFO_COPY_GETTER(doca_devinfo_get_ipv4_addr, uint8_t, ipv4_addr, DOCA_DEVINFO_IPV4_ADDR_SIZE,
                    devinfo->ipv4, DOCA_DEVINFO_IPV4_ADDR_SIZE)

DEVINFO_COPY_GETTER(doca_devinfo_get_ipv6_addr, uint8_t, ipv6_addr, DOCA_DEVINFO_IPV6_ADDR_SIZE,
                    devinfo->ipv6, DOCA_DEVINFO_IPV6_ADDR_SIZE)

DEVINFO_COPY_GETTER(doca_devinfo_get_mac_addr, uint8_t, mac_addr, DOCA_DEVINFO_MAC_ADDR_SIZE,
                    devinfo->mac, DOCA_DEVINFO_MAC_ADDR_SIZE)

DEVINFO_GETTER(doca_devinfo_get_lid, uint16_t, lid, devinfo->lid)

DEVINFO_GETTER(doca_devinfo_get_pci_func_type, enum doca_pci_func_type, pci_func_type,
               devinfo->func_type)

doca_error_t doca_devinfo_get_sf_index(const struct doca_devinfo *devinfo, uint32_t *sf_index)
{
	ODMA_CHECK_DEVINFO(devinfo);
	ODMA_CHECK_ARG(sf_index != NULL, "sf_index must not be NULL");
	if (devinfo->func_type != DOCA_PCI_FUNC_TYPE_SF) {
		ODMA_ERR("device %s is not a scalable function; only SF devices have an SF index",
		         devinfo->pci_addr);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	*sf_index = devinfo->sf_index;
	return DOCA_SUCCESS;
}

DEVINFO_GETTER(doca_devinfo_get_active_rate, uint64_t, active_rate, devinfo->active_rate)

doca_error_t doca_priv_devinfo_get_queue_depth(const struct doca_devinfo *info, uint32_t *depth)
{
	ODMA_CHECK_DEVINFO(info);
	ODMA_CHECK_ARG(depth != NULL, "depth must not be NULL");
	if (!info->caps.dma_memcpy)
		return DOCA_ERROR_NOT_SUPPORTED; /* no DMA context: no queue to fill */
	*depth = info->caps.queue_depth;
	return DOCA_SUCCESS;
}

DEVINFO_GETTER(doca_devinfo_get_vhca_id, uint16_t, vhca_id, devinfo->vhca_id)
