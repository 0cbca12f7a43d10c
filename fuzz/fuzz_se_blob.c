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
	uint8_t again[ODMA_SE_BLOB_LEN];

	if (odma_se_blob_parse(data, size, &b, &why) == DOCA_SUCCESS) {
		/* What parses re-encodes to the same bytes. */
		odma_se_blob_encode(&b, again);
		for (size_t i = 0; i < sizeof(again); i++)
			if (again[i] != data[i])
				__builtin_trap();
	} else if (why == NULL) {
		__builtin_trap();
	}
	return 0;
}
