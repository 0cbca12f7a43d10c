/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Helpers for fixed-layout binary records (the export descriptor, the sync event export
 * blob, the RDMA connection blob): little-endian fields whatever the host's byte order, the
 * head every record starts with (an 8-byte magic, a 2-byte version, a 2-byte total length)
 * and the CRC32C of the rest that ends it.
 */
#ifndef ODMA_UTIL_CODEC_H_
#define ODMA_UTIL_CODEC_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* Whether the @n bytes at @p are all zero (a record's reserved bytes, a key never set). */
static inline bool odma_all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != 0)
			return false;
	return true;
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

/* Opens the @total-byte record at @out: zeroed, then its head (@magic, @version, @total). */
static inline void odma_rec_open(uint8_t *out, const char magic[8], uint16_t version, size_t total)
{
	memset(out, 0, total);
	memcpy(out, magic, 8);
	odma_put_le(out + 8, version, 2);
	odma_put_le(out + 10, total, 2);
}

/* Seals the @total-byte record at @out: the CRC32C of its other bytes in its last 4. */
static inline void odma_rec_seal(uint8_t *out, size_t total)
{
	odma_put_le(out + total - 4, odma_crc32c(out, total - 4), 4);
}

/* Whether the @total-byte record at @p holds the CRC32C of its other bytes in its last 4. */
static inline bool odma_rec_sealed(const uint8_t *p, size_t total)
{
	return odma_get_le(p + total - 4, 4) == odma_crc32c(p, total - 4);
}

#endif
