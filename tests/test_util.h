/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Shared by the cmocka tests. */
#ifndef ODMA_TEST_UTIL_H_
#define ODMA_TEST_UTIL_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include <doca_error.h>

#include "test_dev.h"

/* Asserts a DOCA call's result and prints both names when it differs. */
#define assert_doca(expected, call)                                                                \
	do {                                                                                       \
		doca_error_t _got = (call);                                                        \
		if (_got != (expected))                                                            \
			fail_msg("%s returned %s, expected %s", #call, doca_error_get_name(_got),  \
			         doca_error_get_name(expected));                                   \
	} while (0)

#define assert_ok(call) assert_doca(DOCA_SUCCESS, call)

/* Opens the device at PCI address @pci (the first device when NULL); fails the test if none. */
static inline struct doca_dev *tu_open_dev(const char *pci)
{
	struct doca_dev *dev = NULL;

	assert_ok(tu_try_open_dev(pci, &dev));
	assert_non_null(dev);
	return dev;
}

/* Exit code that meson/CI report as "skipped". */
#define ODMA_TEST_SKIP 77

#endif
