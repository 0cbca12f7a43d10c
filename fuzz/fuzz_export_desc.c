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
	uint8_t again[ODMA_EXPORT_DESC_MAX];
	size_t n;

	if (odma_export_desc_parse(data, size, &d, &why) == DOCA_SUCCESS) {
		/* What parses (version 2 or 3) re-encodes to the same bytes. */
		n = odma_export_desc_encode(&d, again);
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
