/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Helpers for fixed-layout binary records (the export descriptor, the sync event export
 * blob): little-endian fields whatever the host's byte order, and their CRC32C.
 */
#ifndef ODMA_UTIL_CODEC_H_
#define ODMA_UTIL_CODEC_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Whether the @n bytes at @a and @b are equal, in time that does not depend on where they
 * differ: every comparison of a secret a peer sent (an export's key) uses it, so a forger
 * learns nothing from how long a refusal takes.
 */
static inline bool odma_key_eq(const uint8_t *a, const uint8_t *b, size_t n)
{
	volatile uint8_t d = 0;

	for (size_t i = 0; i < n; i++)
		d |= (uint8_t)(a[i] ^ b[i]);
	return d == 0;
}

/* Stores the low @n bytes of @v at @p, least significant first. */
static inline void odma_put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Reads an @n-byte little-endian value at @p. */
static inline uint64_t odma_get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/* CRC32C (Castagnoli) of @len bytes. */
static inline uint32_t odma_crc32c(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t crc = 0xffffffffu;

	/* Bitwise: records are ~100 bytes, a table would buy nothing measurable. */
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1u)));
	}
	return ~crc;
}

#endif
