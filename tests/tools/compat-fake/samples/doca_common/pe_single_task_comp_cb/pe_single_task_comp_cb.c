/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Fake sample that hangs only when completions are delayed (ODMA_FAULTS with delay_us), like a
 * program that waits for a completion it assumed had already arrived.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	const char *faults = getenv("ODMA_FAULTS");

	if (faults != NULL &&
	    (strncmp(faults, "delay_us=", 9) == 0 || strstr(faults, ",delay_us=") != NULL)) {
		puts("fake: waiting for a completion that already went by");
		fflush(stdout);
		for (;;)
			pause();
	}
	puts("Sample finished successfully");
	return 0;
}
