/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * ODMA_TRACE in a program that destroys its PE and makes another, as odma bench does between a
 * run's phases: each time the last PE is destroyed the file is whole trace-event JSON holding
 * every task so far, the second PE's tasks included (before, the first destroy wrote the file
 * and nothing after it was kept).
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "test_util.h"

static char tp_dir[] = "/tmp/odma-trace-pes.XXXXXX";
static char tp_path[sizeof(tp_dir) + 16];

/* One PE: @n copies of 512 bytes, each checked, then everything destroyed. */
static void one_pe(unsigned int n)
{
	struct doca_buf *bufs[2 * 8];
	struct fx fx;

	assert_true(n <= 8);
	fx_init(&fx, 4096, n, true);
	for (unsigned int i = 0; i < n; i++) {
		bufs[2 * i] = fx_src_buf(&fx, i * 512, 512);
		bufs[2 * i + 1] = fx_dst_buf(&fx, i * 512, 512);
		assert_ok(doca_task_submit(fx_task(&fx, bufs[2 * i], bufs[2 * i + 1], i)));
	}
	assert_true(fx_progress_until(&fx, n, 10000000ul));
	assert_int_equal(fx.ok, n);
	assert_memory_equal(fx.src, fx.dst, n * 512);
	for (unsigned int i = 0; i < 2 * n; i++)
		assert_ok(doca_buf_dec_refcount(bufs[i], NULL));
	fx_fini(&fx);
}

/* The file parsed (it must be JSON): its task begins and ends; the dropped count. */
static void count_tasks(unsigned int *begins, unsigned int *ends, int64_t *dropped)
{
	struct json_object *top = json_object_from_file(tp_path), *ev, *other, *d;

	assert_non_null(top);
	assert_true(json_object_object_get_ex(top, "traceEvents", &ev));
	*begins = *ends = 0;
	for (size_t i = 0; i < json_object_array_length(ev); i++) {
		struct json_object *ph;
		const char *s;

		assert_true(json_object_object_get_ex(json_object_array_get_idx(ev, i), "ph", &ph));
		s = json_object_get_string(ph);
		*begins += strcmp(s, "b") == 0;
		*ends += strcmp(s, "e") == 0;
	}
	assert_true(json_object_object_get_ex(top, "otherData", &other));
	assert_true(json_object_object_get_ex(other, "dropped", &d));
	*dropped = json_object_get_int64(d);
	json_object_put(top);
}

static void test_second_pe_is_traced(void **state)
{
	unsigned int b, e;
	int64_t dropped;

	(void)state;
	one_pe(3);
	count_tasks(&b, &e, &dropped);
	assert_int_equal(b, 3);
	assert_int_equal(e, 3);
	one_pe(5);
	count_tasks(&b, &e, &dropped);
	assert_int_equal(b, 8);
	assert_int_equal(e, 8);
	assert_int_equal(dropped, 0);
	one_pe(1); /* a third time: the file keeps growing, whole each time */
	count_tasks(&b, &e, &dropped);
	assert_int_equal(b, 9);
	assert_int_equal(e, 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_second_pe_is_traced),
	};
	int rc;

	if (mkdtemp(tp_dir) == NULL)
		return 1;
	snprintf(tp_path, sizeof(tp_path), "%s/t.json", tp_dir);
	setenv("ODMA_TRACE", tp_path, 1); /* read at the first doca_pe_create */
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(tp_path);
	rmdir(tp_dir);
	return rc;
}
