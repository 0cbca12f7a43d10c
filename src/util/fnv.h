/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * 64-bit FNV-1a, the hash of the ids odma derives from names. Header-only: libdoca_comch uses
 * it too, and libdoca_common exports none of its internal functions.
 */
#ifndef ODMA_UTIL_FNV_H_
#define ODMA_UTIL_FNV_H_

#include <stddef.h>
#include <stdint.h>

static inline uint64_t odma_fnv1a64(const void *data, size_t len)
{
	const unsigned char *b = data;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

#endif /* ODMA_UTIL_FNV_H_ */
