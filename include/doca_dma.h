/* Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause */
#ifndef DOCA_DMA_H_
#define DOCA_DMA_H_
#endif
