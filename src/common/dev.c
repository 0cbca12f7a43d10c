/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* First cut: a fixed BlueField-3-like system. Profiles and representors replace it. */
#include <stdlib.h>
#include <string.h>

#include "dev_priv.h"
#include "log_priv.h"

ODMA_LOG_REGISTER(ODMA_DEV)

static struct doca_devinfo odma_devs[] = {
	{ .index = 0, .side = ODMA_SIDE_HOST, .pci_addr = "0000:b1:00.0", .ibdev_name = "mlx5_0",
	  .iface_name = "ens1f0np0",
	  .caps = { true, 2 * 1024 * 1024, 64, 65536, 1024, true, false, true, true } },
	{ .index = 1, .side = ODMA_SIDE_DPU, .pci_addr = "0000:03:00.0", .ibdev_name = "mlx5_0",
	  .iface_name = "p0",
	  .caps = { true, 2 * 1024 * 1024, 64, 65536, 1024, true, true, true, true } },
};

static struct odma_system odma_sys = { "bf3", 1, odma_devs, 2 };

const struct odma_system *odma_system_get(void)
{
	return &odma_sys;
}

bool odma_side_visible(enum odma_side side)
{
	(void)side;
	return true;
}

doca_error_t doca_devinfo_create_list(struct doca_devinfo ***dev_list, uint32_t *nb_devs)
{
	struct doca_devinfo **list;

	ODMA_CHECK_ARG(dev_list != NULL && nb_devs != NULL, "dev_list and nb_devs must not be NULL");
	list = calloc(odma_sys.num_devs + 1, sizeof(*list));
	if (list == NULL)
		return DOCA_ERROR_NO_MEMORY;
	for (uint32_t i = 0; i < odma_sys.num_devs; i++)
		list[i] = &odma_sys.devs[i];
	*dev_list = list;
	*nb_devs = odma_sys.num_devs;
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_destroy_list(struct doca_devinfo **dev_list)
{
	ODMA_CHECK_ARG(dev_list != NULL, "dev_list must not be NULL");
	free(dev_list);
	return DOCA_SUCCESS;
}

doca_error_t doca_dev_open(struct doca_devinfo *devinfo, struct doca_dev **dev)
{
	ODMA_CHECK_ARG(devinfo != NULL && dev != NULL, "devinfo and dev must not be NULL");
	if (devinfo->dev == NULL) {
		devinfo->dev = calloc(1, sizeof(*devinfo->dev));
		if (devinfo->dev == NULL)
			return DOCA_ERROR_NO_MEMORY;
		devinfo->dev->info = devinfo;
	}
	devinfo->dev->refcount++;
	*dev = devinfo->dev;
	return DOCA_SUCCESS;
}

doca_error_t doca_dev_close(struct doca_dev *dev)
{
	ODMA_CHECK_ARG(dev != NULL, "dev must not be NULL");
	if (--dev->refcount == 0) {
		dev->info->dev = NULL;
		free(dev);
	}
	return DOCA_SUCCESS;
}

struct doca_devinfo *doca_dev_as_devinfo(const struct doca_dev *dev)
{
	return dev ? dev->info : NULL;
}

void odma_dev_hold(struct doca_dev *dev)
{
	dev->users++;
}

void odma_dev_release(struct doca_dev *dev)
{
	dev->users--;
}
