/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Fake sample that fails. */
#include <stdio.h>

int main(void)
{
	puts("[ERROR] fake failure of pe_polling");
	return 1;
}
