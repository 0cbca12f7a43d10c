/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */

/**
 * @file doca_version.h
 * @brief The DOCA API version odma implements, at compile time and at run time.
 *
 * odma reports itself as DOCA 3.3.0, the newest release whose NVIDIA DMA samples and
 * progress-engine samples all build unmodified and pass against odma (`odma compat`, see the
 * user guide), so version checks in existing programs take the same branches.
 * `pkg-config --modversion doca-dma` prints the same string as doca_version_runtime().
 */
#ifndef DOCA_VERSION_H_
#define DOCA_VERSION_H_

#include <stddef.h>
#include <doca_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DOCA_VERSION_MAJOR 3          /**< major version of the API */
#define DOCA_VERSION_MINOR 3          /**< minor version of the API */
#define DOCA_VERSION_PATCH 0          /**< patch (build) number */
#define DOCA_VERSION_STRING "3.3.0"   /**< the version as printed */

/** Packs an exact version: major, minor and patch in one number. */
#define DOCA_VERSION_CALC_EXACT(major, minor, patch)                                               \
	((size_t)((major) << 24 | (minor) << 16 | (patch)))

/** The exact version of these headers. */
#define DOCA_VERSION_EXACT                                                                         \
	DOCA_VERSION_CALC_EXACT(DOCA_VERSION_MAJOR, DOCA_VERSION_MINOR, DOCA_VERSION_PATCH)

/** Packs an official release version (the patch is counted in thousands). */
#define DOCA_VERSION_CALC(major, minor, patch)                                                     \
	((size_t)((major) << 24 | (minor) << 16 | (patch) * 1000))

/** The official release these headers belong to. */
#define DOCA_VERSION_OFFICIAL DOCA_VERSION_CALC(DOCA_VERSION_MAJOR, DOCA_VERSION_MINOR, 0)

/** True when the given official version is the one of these headers. */
#define DOCA_VERSION_EQ_CURRENT(major, minor, patch)                                               \
	(DOCA_VERSION_CALC(major, minor, patch) == DOCA_VERSION_OFFICIAL)

/** True when the given official version is not newer than these headers. */
#define DOCA_VERSION_LTE_CURRENT(major, minor, patch)                                              \
	(DOCA_VERSION_CALC(major, minor, patch) <= DOCA_VERSION_OFFICIAL)

/**
 * @brief The version of the headers the program was compiled with.
 * @return DOCA_VERSION_STRING (never NULL).
 */
static inline const char *doca_version(void)
{
	return DOCA_VERSION_STRING;
}

/**
 * @brief The version of the library the program runs against.
 * @return a static string such as "3.3.0" (never NULL).
 */
DOCA_EXPERIMENTAL
const char *doca_version_runtime(void);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_VERSION_H_ */
