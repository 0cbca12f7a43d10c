/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* The ODMA_* parser (core/config): numbers with suffixes and bounds, choices, unset values. */
#include <stdlib.h>

#include "core/config/config.h"
#include "test_util.h"

static void parse_size(void **state)
{
	static const struct {
		const char *text;
		bool ok;
		uint64_t v;
	} cases[] = {
		{ "0", true, 0 },
		{ "42", true, 42 },
		{ "0x10", true, 16 },
		{ "4k", true, 4096 },
		{ "4K", true, 4096 },
		{ "2m", true, 2 << 20 },
		{ "1G", true, 1u << 30 },
		{ "", false, 0 },
		{ "-1", false, 0 },
		{ " 1", false, 0 },
		{ "1 ", false, 0 },
		{ "k", false, 0 },
		{ "1kb", false, 0 },
		{ "1.5", false, 0 },
		{ "+3", false, 0 },
		{ "18446744073709551615", true, UINT64_MAX },
		{ "18446744073709551616", false, 0 },
		{ "17179869184G", false, 0 },
		{ "0x", false, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 12345;
		bool ok = odma_config_parse_size(cases[i].text, &v);

		if (ok != cases[i].ok || (ok && v != cases[i].v))
			fail_msg("\"%s\": got %d/%llu", cases[i].text, ok, (unsigned long long)v);
	}
	assert_false(odma_config_parse_size(NULL, &(uint64_t){ 0 }));
}

static void size_bounds_and_default(void **state)
{
	uint64_t v;

	(void)state;
	unsetenv("ODMA_TEST_KNOB");
	assert_ok(odma_config_size("ODMA_TEST_KNOB", 7, 1, 10, &v));
	assert_int_equal(v, 7);
	setenv("ODMA_TEST_KNOB", "", 1);
	assert_null(odma_config_string("ODMA_TEST_KNOB"));
	assert_ok(odma_config_size("ODMA_TEST_KNOB", 7, 1, 10, &v));
	assert_int_equal(v, 7);
	setenv("ODMA_TEST_KNOB", "10", 1);
	assert_ok(odma_config_size("ODMA_TEST_KNOB", 7, 1, 10, &v));
	assert_int_equal(v, 10);
	setenv("ODMA_TEST_KNOB", "11", 1);
	assert_doca(DOCA_ERROR_INVALID_VALUE, odma_config_size("ODMA_TEST_KNOB", 7, 1, 10, &v));
	setenv("ODMA_TEST_KNOB", "0", 1);
	assert_doca(DOCA_ERROR_INVALID_VALUE, odma_config_size("ODMA_TEST_KNOB", 7, 1, 10, &v));
	unsetenv("ODMA_TEST_KNOB");
}

static void choice(void **state)
{
	static const char *const names[] = { "red", "green", NULL };
	int i = -1;

	(void)state;
	unsetenv("ODMA_TEST_KNOB");
	assert_ok(odma_config_choice("ODMA_TEST_KNOB", names, 1, &i));
	assert_int_equal(i, 1);
	setenv("ODMA_TEST_KNOB", "red", 1);
	assert_ok(odma_config_choice("ODMA_TEST_KNOB", names, 1, &i));
	assert_int_equal(i, 0);
	setenv("ODMA_TEST_KNOB", "Red", 1);
	assert_doca(DOCA_ERROR_INVALID_VALUE, odma_config_choice("ODMA_TEST_KNOB", names, 1, &i));
	unsetenv("ODMA_TEST_KNOB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_size),
		cmocka_unit_test(size_bounds_and_default),
		cmocka_unit_test(choice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
