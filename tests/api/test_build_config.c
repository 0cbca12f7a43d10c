/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* The build role: a host build unless compiled with -DDOCA_ARCH_DPU (meson builds both). */
#include <doca_compat.h>

#include "test_util.h"

#if defined(ODMA_TEST_EXPECT_DPU)
#if !defined(DOCA_ARCH_DPU) || defined(DOCA_ARCH_HOST)
#error "-DDOCA_ARCH_DPU must select a DPU build and no host build"
#endif
#else
#if !defined(DOCA_ARCH_HOST) || defined(DOCA_ARCH_DPU)
#error "a plain build must be a host build"
#endif
#endif

static void role(void **state)
{
	(void)state;
#ifdef DOCA_ARCH_DPU
	printf("DPU build\n");
#else
	printf("host build\n");
#endif
#if defined(DOCA_ARCH_X86) == defined(DOCA_ARCH_ARM)
	fail_msg("exactly one of DOCA_ARCH_X86 / DOCA_ARCH_ARM must be defined");
#endif
	assert_int_equal(DOCA_ARCH_DPU_BF2, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(role),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
