/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */

/**
 * @file doca_compat.h
 * @brief API stability markers: stable, experimental and deprecated symbols.
 *
 * Every public function carries one marker:
 * - `DOCA_STABLE`: exported, no warning.
 * - `DOCA_EXPERIMENTAL`: exported; a program that uses it gets a deprecation
 *   warning ("Symbol is defined as experimental") unless it defines
 *   `DOCA_ALLOW_EXPERIMENTAL_API` before including any DOCA header (DOCA's own
 *   samples build with `-DDOCA_ALLOW_EXPERIMENTAL_API`).
 * - `DOCA_DEPRECATED`: the same, gated by `DOCA_ALLOW_DEPRECATED_API`.
 */
#ifndef DOCA_COMPAT_H_
#define DOCA_COMPAT_H_

#include <doca_config.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__linux__) || defined(__unix__)

/** Marks a stable public symbol. */
#define DOCA_STABLE __attribute__((visibility("default"))) __attribute__((used))

#ifndef DOCA_ALLOW_EXPERIMENTAL_API
/** Marks an experimental symbol: using it warns unless DOCA_ALLOW_EXPERIMENTAL_API is defined. */
#define DOCA_EXPERIMENTAL                                                                          \
	__attribute__((deprecated("Symbol is defined as experimental"), section(".text.experimental"))) \
	DOCA_STABLE
#else
#define DOCA_EXPERIMENTAL __attribute__((section(".text.experimental"))) DOCA_STABLE
#endif

#ifndef DOCA_ALLOW_DEPRECATED_API
/** Marks a deprecated symbol: using it warns unless DOCA_ALLOW_DEPRECATED_API is defined. */
#define DOCA_DEPRECATED __attribute__((deprecated("Symbol is defined as deprecated"))) DOCA_STABLE
#else
#define DOCA_DEPRECATED DOCA_STABLE
#endif

#else /* not a GNU-style toolchain */

#define DOCA_STABLE
#define DOCA_EXPERIMENTAL
#define DOCA_DEPRECATED

#endif

#ifdef __cplusplus
}
#endif

/*
 * With the compatibility helpers on (doca_config.h turns them on for every build except DPA
 * device code), this header also brings in the standard headers below and doca_version.h, as
 * DOCA's does: programs written against DOCA use memset, malloc or assert with only DOCA
 * headers included, and must compile unchanged (GCC 14 rejects implicit declarations).
 */
#ifdef DOCA_COMPAT_HELPERS
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <doca_version.h>

/** Opens the definition of a versioned structure (kept for source compatibility). */
#define DOCA_STRUCT_START uint32_t __doca_api_version
/** Initialises the version field of a versioned structure. */
#define DOCA_STRUCT_CTOR(_X_) (_X_).__doca_api_version = 0
#endif

#endif /* DOCA_COMPAT_H_ */
