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

/* Asserts a DOCA call's result and prints both names when it differs. */
#define assert_doca(expected, call)                                                                \
	do {                                                                                       \
		doca_error_t _got = (call);                                                        \
		if (_got != (expected))                                                            \
			fail_msg("%s returned %s, expected %s", #call, doca_error_get_name(_got),   \
				 doca_error_get_name(expected));                                   \
	} while (0)

#define assert_ok(call) assert_doca(DOCA_SUCCESS, call)

/* Exit code that meson/CI report as "skipped". */
#define ODMA_TEST_SKIP 77

#endif
