/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Fake sample whose pass depends on timing: it passes under odma's defaults and fails when
 * every copy goes to a worker thread (ODMA_INLINE_MAX=0), like a program that assumes its
 * small copies complete before it waits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	const char *im = getenv("ODMA_INLINE_MAX");

	if (im != NULL && strcmp(im, "0") == 0) {
		puts("[ERROR] fake race: the copy had not completed when the sample looked");
		return 1;
	}
	puts("Sample finished successfully");
	return 0;
}
