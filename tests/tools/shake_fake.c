/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * A fake "racy" program pair for the test of `odma compat --shake`: one binary, both sides.
 * The DPU side (ODMA_SIDE=dpu) prints that it is ready and ends well. The host side, or the
 * program run alone, acts out a race that only some timings show: it fails when every copy
 * goes to a worker (ODMA_INLINE_MAX=0) while Comch messages are delayed (comch_delay_us in
 * ODMA_FAULTS), and passes otherwise. The rule is a function of the environment only, so a
 * seed that breaks it breaks it again on replay.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	const char *side = getenv("ODMA_SIDE");
	const char *im = getenv("ODMA_INLINE_MAX");
	const char *faults = getenv("ODMA_FAULTS");

	if (side != NULL && strcmp(side, "dpu") == 0) {
		puts("fake server ready");
		puts("fake pair done");
		return 0;
	}
	if (im != NULL && strcmp(im, "0") == 0 && faults != NULL &&
	    strstr(faults, "comch_delay_us=") != NULL) {
		puts("[ERROR] fake race: the reply came before the receive was posted");
		return 1;
	}
	puts("fake pair done");
	return 0;
}
