/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * PE/context create-destroy cycles (cycles.c), alone and beside another active PE, on the
 * engine ODMA_ENGINE selects. ODMA_CYCLES sets the cycles per case (default 2000); the soak
 * (scripts/soak-cycles.sh, `make soak-cycles`) runs 100000 of them 100 times.
 */
#include <stdlib.h>

#include "cycles.h"
#include "test_util.h"

static unsigned long n_cycles(void)
{
	const char *v = getenv("ODMA_CYCLES");

	return v != NULL && *v != '\0' ? strtoul(v, NULL, 0) : 2000;
}

static void test_cycles_alone(void **state)
{
	(void)state;
	assert_int_equal(cycles_run(n_cycles(), false), 0);
}

static void test_cycles_beside_active_pe(void **state)
{
	(void)state;
	assert_int_equal(cycles_run(n_cycles(), true), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cycles_alone),
		cmocka_unit_test(test_cycles_beside_active_pe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
