/* Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause */
#ifndef DOCA_CTX_H_
#define DOCA_CTX_H_
#endif
