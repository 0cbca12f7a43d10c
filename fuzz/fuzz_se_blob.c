/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* libFuzzer target: the sync event export blob parser must survive any byte string. */
#include <stddef.h>
#include <stdint.h>

#include "core/sync_event/sync_event.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct odma_se_blob b;
	const char *why = NULL;
	uint8_t again[ODMA_SE_BLOB_MAX];

	if (odma_se_blob_parse(data, size, &b, &why) == DOCA_SUCCESS) {
		/* What parses (version 1 or 2) re-encodes to the same bytes. */
		size_t n = odma_se_blob_encode(&b, again);

		if (n != size)
			__builtin_trap();
		for (size_t i = 0; i < n; i++)
			if (again[i] != data[i])
				__builtin_trap();
	} else if (why == NULL) {
		__builtin_trap();
	}
	return 0;
}
