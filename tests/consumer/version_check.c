/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * Prints doca_version_runtime() (the library's version) and doca_version() (the headers'),
 * for comparison with `pkg-config --modversion doca-dma`.
 */
#include <stdio.h>

#include <doca_version.h>

int main(void)
{
	printf("%s %s\n", doca_version_runtime(), doca_version());
	return 0;
}
