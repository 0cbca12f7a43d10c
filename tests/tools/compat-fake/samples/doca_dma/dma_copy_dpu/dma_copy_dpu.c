/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Fake DPU side: prints the text the host side left in the -d file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Which network namespace this runs in, and the fabric it was given (odma compat --split-netns
 * puts the two sides into two namespaces; its test compares these lines). */
static void print_where(const char *side)
{
	struct stat st;
	const char *fabric = getenv("ODMA_FABRIC");

	if (stat("/proc/self/ns/net", &st) != 0)
		st.st_ino = 0;
	printf("fake %s: netns %lu, pid %ld, ODMA_FABRIC %s\n", side, (unsigned long)st.st_ino,
	       (long)getpid(), fabric != NULL ? fabric : "-");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	char text[4200];
	const char *side = getenv("ODMA_SIDE");
	size_t n;
	FILE *f;

	if (argc < 5 || strcmp(argv[3], "-d") != 0 || side == NULL || strcmp(side, "dpu") != 0)
		return 2;
	print_where("dpu");
	f = fopen(argv[4], "r");
	if (f == NULL)
		return 3;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	printf("Memory content: %s\nSample finished successfully\n", text);
	return 0;
}
