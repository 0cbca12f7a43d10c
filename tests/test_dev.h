/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Opening a device, shared by the tests and by their helper processes (no cmocka here;
 * test_util.h adds the asserting form).
 */
#ifndef ODMA_TEST_DEV_H_
#define ODMA_TEST_DEV_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_dev.h>
#include <doca_error.h>

/*
 * Opens the device whose PCI address is @pci, or the first device when @pci is NULL, into
 * *@dev (NULL on failure). Returns DOCA_SUCCESS, DOCA_ERROR_NOT_FOUND when no device
 * matches, or the error of the first DOCA call that failed.
 */
static inline doca_error_t tu_try_open_dev(const char *pci, struct doca_dev **dev)
{
	struct doca_devinfo **list;
	doca_error_t err, derr;
	uint32_t n;
	uint8_t is;

	*dev = NULL;
	err = doca_devinfo_create_list(&list, &n);
	if (err != DOCA_SUCCESS)
		return err;
	err = DOCA_ERROR_NOT_FOUND;
	for (uint32_t i = 0; i < n && *dev == NULL; i++)
		if (pci == NULL ||
		    (doca_devinfo_is_equal_pci_addr(list[i], pci, &is) == DOCA_SUCCESS && is))
			err = doca_dev_open(list[i], dev);
	derr = doca_devinfo_destroy_list(list);
	if (err == DOCA_SUCCESS && derr != DOCA_SUCCESS) {
		(void)doca_dev_close(*dev);
		err = derr;
	}
	if (err != DOCA_SUCCESS)
		*dev = NULL;
	return err;
}

/* The device whose PCI address is @pci; NULL when there is none or it fails to open. */
static inline struct doca_dev *tu_open_pci_or_null(const char *pci)
{
	struct doca_dev *dev;

	(void)tu_try_open_dev(pci, &dev);
	return dev;
}

#endif
