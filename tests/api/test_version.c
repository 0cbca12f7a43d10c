/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>

#include <doca_version.h>

#include "test_util.h"

static void runtime_matches_headers(void **state)
{
	(void)state;
	assert_string_equal(doca_version_runtime(), DOCA_VERSION_STRING);
	assert_string_equal(doca_version(), "3.3.0");
}

static void macros(void **state)
{
	(void)state;
	assert_int_equal(DOCA_VERSION_EXACT, (3u << 24) | (3u << 16));
	assert_int_equal(DOCA_VERSION_OFFICIAL, (3u << 24) | (3u << 16));
	assert_true(DOCA_VERSION_EQ_CURRENT(3, 3, 0));
	assert_true(DOCA_VERSION_LTE_CURRENT(3, 0, 58));
	assert_true(DOCA_VERSION_LTE_CURRENT(3, 2, 0));
	assert_false(DOCA_VERSION_LTE_CURRENT(3, 4, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(runtime_matches_headers),
		cmocka_unit_test(macros),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
