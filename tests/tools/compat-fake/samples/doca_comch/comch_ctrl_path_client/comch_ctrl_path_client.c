/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Fake client: builds, but its server does not. */
#include <stdio.h>

int main(void)
{
	puts("Sample finished successfully");
	return 0;
}
