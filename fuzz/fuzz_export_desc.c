/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* libFuzzer target: the export descriptor parser must survive any byte string. */
#include <stddef.h>
#include <stdint.h>

#include "core/memory/memory.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct odma_export_desc d;
	const char *why = NULL;
	uint8_t again[ODMA_EXPORT_DESC_LEN];

	if (odma_export_desc_parse(data, size, &d, &why) == DOCA_SUCCESS) {
		/* What parses re-encodes to the same bytes. */
		odma_export_desc_encode(&d, again);
		for (size_t i = 0; i < sizeof(again); i++)
			if (again[i] != data[i])
				__builtin_trap();
	} else if (why == NULL) {
		__builtin_trap();
	}
	return 0;
}
