/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Fuzzes the system-profile parser (odma_profile_parse): profile files and ODMA_SYSTEM come
 * from users, so any bytes must give SUCCESS or an error with a message, never a crash,
 * an over-read or a leak.
 */
#include <string.h>

#include "core/device/device.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet_logs();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* exactly @size bytes, no terminator: the parser must honour the length */
	char *text = malloc(size ? size : 1);
	struct odma_system sys;
	char err[256] = "";
	doca_error_t rc;

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	memset(&sys, 0, sizeof(sys));
	rc = odma_profile_parse(text, size, &sys, err, sizeof(err));
	FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL);
	if (rc != DOCA_SUCCESS)
		FUZZ_CHECK(err[0] != '\0'); /* a rejection says why */
	odma_system_free(&sys);
	odma_system_free(&sys); /* documented as safe on a freed system */
	free(text);
	return 0;
}
