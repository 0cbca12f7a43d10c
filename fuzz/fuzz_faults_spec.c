/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Fuzzes the ODMA_FAULTS parser (odma_faults_parse). The variable is user input: any string
 * must give SUCCESS with a sane configuration, or INVALID_VALUE with a message and the output
 * untouched.
 */
#include <string.h>

#include "core/exec/faults.h"
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
	char *spec = fuzz_strdup(data, size);
	struct odma_fault_config c, before;
	char err[128] = "";
	doca_error_t rc;

	if (spec == NULL)
		return 0;
	memset(&c, 0x5a, sizeof(c));
	before = c;
	rc = odma_faults_parse(spec, &c, err, sizeof(err));
	FUZZ_CHECK(rc == DOCA_SUCCESS || rc == DOCA_ERROR_INVALID_VALUE);
	FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL);
	if (rc == DOCA_SUCCESS) {
		FUZZ_CHECK(c.submit_again >= 0.0 && c.submit_again <= 1.0);
		FUZZ_CHECK(c.complete_error >= 0.0 && c.complete_error <= 1.0);
		FUZZ_CHECK(c.delay_min_us <= c.delay_max_us && c.delay_max_us <= 1000000);
		FUZZ_CHECK(c.comch_delay_min_us <= c.comch_delay_max_us &&
		           c.comch_delay_max_us <= 1000000);
		FUZZ_CHECK(c.error_code != DOCA_SUCCESS);
	} else {
		FUZZ_CHECK(err[0] != '\0');
		FUZZ_CHECK(memcmp(&c, &before, sizeof(c)) == 0); /* out untouched on failure */
	}
	free(spec);
	return 0;
}
