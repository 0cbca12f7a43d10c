/* Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause */
