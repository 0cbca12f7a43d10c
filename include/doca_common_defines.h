/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */

/**
 * @file doca_common_defines.h
 * @brief Small compiler helpers shared by every DOCA header.
 */
#ifndef DOCA_COMMON_DEFINES_H_
#define DOCA_COMMON_DEFINES_H_

#if defined(__GNUC__) || defined(__clang__)
/** Branch hint: @p x is expected to be true. */
#define doca_likely(x) __builtin_expect(!!(x), 1)
/** Branch hint: @p x is expected to be false. */
#define doca_unlikely(x) __builtin_expect(!!(x), 0)
#else
#define doca_likely(x) (x)
#define doca_unlikely(x) (x)
#endif

#endif /* DOCA_COMMON_DEFINES_H_ */
