/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * A stand-in for the Secure Channel application, for odma compat's test: each side (the DPU
 * build is the server) takes -s SIZE and -n COUNT, tells the other side its count through a
 * file in the shared working directory, and logs the two end lines the application logs: how
 * many messages it sent (its own -n) and how many it received (the other side's -n). With
 * ODMA_FAKE_SC_SHORT set, the host side logs one message fewer received.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef DOCA_ARCH_DPU
#define ME "dpu"
#define PEER "host"
#else
#define ME "host"
#define PEER "dpu"
#endif

/* Waits up to 10 s for the peer's count. */
static long peer_count(void)
{
	long n = -1;
	int i;

	for (i = 0; i < 1000 && n < 0; i++) {
		FILE *f = fopen("sc-" PEER ".count", "r");

		if (f != NULL) {
			if (fscanf(f, "%ld", &n) != 1)
				n = -1;
			fclose(f);
		}
		if (n < 0)
			usleep(10000);
	}
	return n;
}

int main(int argc, char **argv)
{
	long size = 0, count = 0, got;
	FILE *f;
	int i;

	for (i = 1; i + 1 < argc; i++) {
		if (strcmp(argv[i], "-s") == 0)
			size = atol(argv[++i]);
		else if (strcmp(argv[i], "-n") == 0)
			count = atol(argv[++i]);
	}
	if (size < 1 || size > 65535 || count < 1) {
		fprintf(stderr, "[ERROR] fake secure_channel: bad -s or -n\n");
		return 1;
	}
#ifdef DOCA_ARCH_DPU
	/* the server starts first: nothing of an earlier run counts */
	unlink("sc-host.count");
	unlink("sc-dpu.count");
#endif
	f = fopen("sc-" ME ".tmp", "w");
	if (f == NULL || fprintf(f, "%ld\n", count) < 0 || fclose(f) != 0 ||
	    rename("sc-" ME ".tmp", "sc-" ME ".count") != 0)
		return 1;
	got = peer_count();
	if (got < 0) {
		fprintf(stderr, "[ERROR] fake secure_channel: the " PEER " side never came\n");
		return 1;
	}
	if (strcmp(ME, "host") == 0 && getenv("ODMA_FAKE_SC_SHORT") != NULL)
		got--;
	printf("[INFO] Producer sent %ld messages in approximately 0.1000 milliseconds\n", count);
	printf("[INFO] Consumer received %ld messages in approximately 0.1000 milliseconds\n", got);
	return 0;
}
