/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */

/**
 * @file doca_config.h
 * @brief Library-wide configuration switches (pulls in the build configuration).
 */
#ifndef DOCA_CONFIG_H_
#define DOCA_CONFIG_H_

#include <doca_build_config.h>

/** Versioned-structure helpers of doca_compat.h are available. */
#define DOCA_COMPAT_HELPERS

#endif /* DOCA_CONFIG_H_ */
