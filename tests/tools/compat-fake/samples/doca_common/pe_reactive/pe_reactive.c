/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Fake sample calling a DOCA Core function that odma does not export. */
#include <stdio.h>

#include <doca_dev.h>

doca_error_t doca_devinfo_get_odma_fake_thing(struct doca_devinfo *devinfo);

int main(void)
{
	return doca_devinfo_get_odma_fake_thing(NULL) == DOCA_SUCCESS ? 0 : 1;
}
