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

/**
 * doca_compat.h provides its helpers (and the standard headers they need). Code built for the
 * DPA (DOCA_DPA_DEVICE) goes without them.
 */
#define DOCA_COMPAT_HELPERS
#ifdef DOCA_DPA_DEVICE
#undef DOCA_COMPAT_HELPERS
#endif

#endif /* DOCA_CONFIG_H_ */
