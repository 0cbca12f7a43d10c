/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * A copy with streaming (non-temporal) stores: the destination is written to memory without
 * first being read into the cache, and what the cache holds stays there. For ranges that do
 * not overlap. x86-64 only (SSE2, in the base instruction set); elsewhere a memmove. Shared
 * by the copy module (core/copy/stream.c) and the benchmark's same-run baseline.
 */
#ifndef ODMA_UTIL_STREAM_COPY_H_
#define ODMA_UTIL_STREAM_COPY_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

static inline void odma_stream_copy_bytes(void *dst, const void *src, size_t n)
{
#if defined(__x86_64__)
	uint8_t *d = (uint8_t *)dst;
	const uint8_t *s = (const uint8_t *)src;
	size_t head = (size_t)(-(uintptr_t)d & 63u);

	if (n < head + 64) {
		memmove(dst, src, n);
		return;
	}
	/* whole destination lines, so that each leaves the write-combining buffer full */
	memcpy(d, s, head);
	d += head;
	s += head;
	n -= head;
	for (; n >= 64; n -= 64, d += 64, s += 64) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + 32));
		__m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + 48));

		_mm_stream_si128((__m128i *)(void *)d, a);
		_mm_stream_si128((__m128i *)(void *)(d + 16), b);
		_mm_stream_si128((__m128i *)(void *)(d + 32), c);
		_mm_stream_si128((__m128i *)(void *)(d + 48), e);
	}
	memcpy(d, s, n);
	/* streaming stores are weakly ordered: visible before whatever the caller stores next */
	_mm_sfence();
#else
	memmove(dst, src, n);
#endif
}

#endif
