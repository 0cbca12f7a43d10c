/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* White-box tests of the logging core: level parsing and the token bucket with a fake clock. */
#include <stdbool.h>

#include "test_util.h"
#include "core/log/log_int.h"

static void test_level_parse(void **state)
{
	uint32_t lvl = 0;

	(void)state;
	assert_ok(odma_log_level_parse("debug", &lvl));
	assert_int_equal(lvl, DOCA_LOG_LEVEL_DEBUG);
	assert_ok(odma_log_level_parse("DEBUG", &lvl));
	assert_int_equal(lvl, DOCA_LOG_LEVEL_DEBUG);
	assert_ok(odma_log_level_parse("Warning", &lvl));
	assert_int_equal(lvl, DOCA_LOG_LEVEL_WARNING);
	assert_ok(odma_log_level_parse("60", &lvl));
	assert_int_equal(lvl, 60);
	assert_ok(odma_log_level_parse("trace", &lvl));
	assert_int_equal(lvl, DOCA_LOG_LEVEL_TRACE);
	lvl = 1;
	assert_doca(DOCA_ERROR_INVALID_VALUE, odma_log_level_parse("55", &lvl));
	assert_doca(DOCA_ERROR_INVALID_VALUE, odma_log_level_parse("80", &lvl));
	/* 2^32 + 10 and + 30: not truncated to 32 bits into DISABLE and ERROR */
	assert_doca(DOCA_ERROR_INVALID_VALUE, odma_log_level_parse("4294967306", &lvl));
	assert_doca(DOCA_ERROR_INVALID_VALUE, odma_log_level_parse("4294967326", &lvl));
	assert_doca(DOCA_ERROR_INVALID_VALUE, odma_log_level_parse("6O", &lvl));
	assert_doca(DOCA_ERROR_INVALID_VALUE, odma_log_level_parse("", &lvl));
	assert_doca(DOCA_ERROR_INVALID_VALUE, odma_log_level_parse("verbose", &lvl));
	assert_doca(DOCA_ERROR_INVALID_VALUE, odma_log_level_parse(NULL, &lvl));
	assert_int_equal(lvl, 1);
}

static void test_bucket(void **state)
{
	struct odma_log_bucket b = { .used = true, .tokens = 2, .last_ns = 0 };
	const uint64_t s = 1000000000ull;
	uint32_t dropped = 99;

	(void)state;
	/* 2 per 10 s: two pass, the rest drop until a token refills after 5 s. */
	assert_true(odma_log_bucket_take(&b, 0, 2, 10, &dropped));
	assert_int_equal(dropped, 0);
	assert_true(odma_log_bucket_take(&b, 1, 2, 10, &dropped));
	assert_false(odma_log_bucket_take(&b, 2, 2, 10, &dropped));
	assert_false(odma_log_bucket_take(&b, 4 * s, 2, 10, &dropped));
	assert_true(odma_log_bucket_take(&b, 5 * s + 2, 2, 10, &dropped));
	assert_int_equal(dropped, 2);
	/* A long pause refills to the quantity, never beyond it. */
	assert_true(odma_log_bucket_take(&b, 1000 * s, 2, 10, &dropped));
	assert_int_equal(dropped, 0);
	assert_true(odma_log_bucket_take(&b, 1000 * s, 2, 10, &dropped));
	assert_false(odma_log_bucket_take(&b, 1000 * s, 2, 10, &dropped));
	/* Quantity 0 drops everything. */
	b.tokens = 0;
	assert_false(odma_log_bucket_take(&b, 2000 * s, 0, 1, &dropped));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_level_parse),
		cmocka_unit_test(test_bucket),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
