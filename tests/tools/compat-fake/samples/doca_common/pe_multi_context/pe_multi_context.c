/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Fake sample that exits 0 without saying it finished successfully. */
#include <stdio.h>

int main(void)
{
	puts("done, but not the expected last line");
	return 0;
}
