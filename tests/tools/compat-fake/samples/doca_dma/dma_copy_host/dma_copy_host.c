/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Fake host side: writes its -t text to the -d file, "1 2" to the -b file, waits for Enter. */
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
	const char *text = NULL, *desc = NULL, *buf = NULL;
	FILE *f;
	int i;

	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "-t") == 0)
			text = argv[i + 1];
		else if (strcmp(argv[i], "-d") == 0)
			desc = argv[i + 1];
		else if (strcmp(argv[i], "-b") == 0)
			buf = argv[i + 1];
	}
	if (text == NULL || desc == NULL || buf == NULL)
		return 2;
	print_where("host");
	f = fopen(desc, "w");
	if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0)
		return 3;
	f = fopen(buf, "w");
	if (f == NULL || fputs("1\n2", f) < 0 || fclose(f) != 0)
		return 4;
	puts("Wait till the DPU has finished and press enter");
	fflush(stdout);
	if (getchar() != '\n')
		return 5;
	puts("Sample finished successfully");
	return 0;
}
