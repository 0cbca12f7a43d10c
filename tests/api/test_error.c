/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
#include <string.h>

#include "test_util.h"

static void names_and_descriptions(void **state)
{
	(void)state;
	assert_string_equal(doca_error_get_name(DOCA_SUCCESS), "DOCA_SUCCESS");
	assert_string_equal(doca_error_get_name(DOCA_ERROR_AGAIN), "DOCA_ERROR_AGAIN");
	assert_string_equal(doca_error_get_name(DOCA_ERROR_SKIPPED), "DOCA_ERROR_SKIPPED");
	assert_string_equal(doca_error_get_name(DOCA_ERROR_BAD_CONFIG), "DOCA_ERROR_BAD_CONFIG");
	for (int i = 0; i <= DOCA_ERROR_SKIPPED; i++) {
		const char *n = doca_error_get_name((doca_error_t)i);
		const char *d = doca_error_get_descr((doca_error_t)i);

		assert_non_null(n);
		assert_non_null(d);
		assert_true(strncmp(n, "DOCA_", 5) == 0);
		assert_true(strlen(d) > 3);
		assert_string_not_equal(d, "unrecognized error code");
	}
}

static void unknown_codes(void **state)
{
	(void)state;
	assert_string_equal(doca_error_get_name((doca_error_t)31), "unrecognized error code");
	assert_string_equal(doca_error_get_descr((doca_error_t)31), "unrecognized error code");
	assert_string_equal(doca_error_get_name((doca_error_t)-1), "unrecognized error code");
	assert_string_equal(doca_error_get_descr((doca_error_t)1000), "unrecognized error code");
}

static void values_are_abi(void **state)
{
	(void)state;
	assert_int_equal(DOCA_ERROR_NOT_PERMITTED, 2);
	assert_int_equal(DOCA_ERROR_INVALID_VALUE, 6);
	assert_int_equal(DOCA_ERROR_IO_FAILED, 17);
	assert_int_equal(DOCA_ERROR_BAD_STATE, 18);
	assert_int_equal(DOCA_ERROR_IN_PROGRESS, 26);
	assert_int_equal(DOCA_ERROR_SKIPPED, 30);
}

static void propagate_keeps_first(void **state)
{
	doca_error_t r = DOCA_SUCCESS;

	(void)state;
	DOCA_ERROR_PROPAGATE(r, DOCA_ERROR_AGAIN);
	DOCA_ERROR_PROPAGATE(r, DOCA_ERROR_IO_FAILED);
	assert_int_equal(r, DOCA_ERROR_AGAIN);
	assert_true(DOCA_IS_ERROR(r));
	assert_false(DOCA_IS_ERROR(DOCA_SUCCESS));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_and_descriptions),
		cmocka_unit_test(unknown_codes),
		cmocka_unit_test(values_are_abi),
		cmocka_unit_test(propagate_keeps_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
