/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* DOCA programs name their log sources hierarchically (e.g. "PE::COMMON"); the macro must accept
 * that. */
#include <stdio.h>
#include <string.h>

#include <doca_log.h>

#include "test_util.h"

DOCA_LOG_REGISTER(ODMA_TEST::HIERARCHY);

static char captured[4096];

static void flush_cb(char *buf)
{
	strncat(captured, buf, sizeof(captured) - strlen(captured) - 1);
}

static void hierarchical_source_name(void **state)
{
	static char buf[1024];
	struct doca_log_backend *be;

	(void)state;
	assert_ok(doca_log_backend_create_with_buf(buf, sizeof(buf), flush_cb, &be));
	DOCA_LOG_ERR("hello from %s", "a hierarchical source");
	assert_non_null(strstr(captured, "ODMA_TEST::HIERARCHY"));
	assert_non_null(strstr(captured, "hello from a hierarchical source"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hierarchical_source_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
