/* Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause */
#ifndef DOCA_PE_H_
#define DOCA_PE_H_
#endif
