/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Fake sample odma compat has no recipe for. */
#include <stdio.h>

int main(void)
{
	puts("Sample finished successfully");
	return 0;
}
