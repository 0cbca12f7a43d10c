/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* doca_caps' help text around its flags (caps_doc.c). */
#ifndef ODMA_CAPS_DOC_H_
#define ODMA_CAPS_DOC_H_

extern const char caps_synopsis[];
extern const char caps_description[];
extern const char caps_epilogue[];

#endif /* ODMA_CAPS_DOC_H_ */
