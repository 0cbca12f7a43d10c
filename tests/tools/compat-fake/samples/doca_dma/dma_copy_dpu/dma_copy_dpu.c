/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Fake DPU side: prints the text the host side left in the -d file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	char text[4200];
	const char *side = getenv("ODMA_SIDE");
	size_t n;
	FILE *f;

	if (argc < 5 || strcmp(argv[3], "-d") != 0 || side == NULL || strcmp(side, "dpu") != 0)
		return 2;
	f = fopen(argv[4], "r");
	if (f == NULL)
		return 3;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	printf("Memory content: %s\nSample finished successfully\n", text);
	return 0;
}
