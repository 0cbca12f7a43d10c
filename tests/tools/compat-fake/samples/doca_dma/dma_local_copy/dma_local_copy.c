/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Fake sample for odma compat's test: a DPU build, run on the DPU side, that finds a device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_dev.h>

int main(void)
{
	struct doca_devinfo **list;
	uint32_t n = 0;
	const char *side = getenv("ODMA_SIDE");

#ifndef DOCA_ARCH_DPU
	puts("[ERROR] not a DPU build");
	return 3;
#endif
	if (side == NULL || strcmp(side, "dpu") != 0) {
		puts("[ERROR] ODMA_SIDE is not dpu");
		return 4;
	}
	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS || n == 0) {
		puts("[ERROR] no device");
		return 5;
	}
	doca_devinfo_destroy_list(list);
	printf("found %u devices\nSample finished successfully\n", n);
	return 0;
}
