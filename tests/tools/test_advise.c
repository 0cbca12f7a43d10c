/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * odma advise on the six shapes of question of the user guide (same process, host-DPU,
 * network; 64 bytes, 1 MiB, 1 GiB), in text and in JSON: the path is the rule's and both
 * modes give the same path and reason. Nothing is measured (no --measure, no
 * --compare-fastpath), so nothing here depends on timing. Also the flags that imply a shape,
 * and the refusals.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tool_run.h"

static struct tool_out out;

static const char *advise(void)
{
	return tool_path("ODMA_TEST_ADVISE");
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("key \"%s\" missing", key);
	return v;
}

static const char *str(json_object *o, const char *key)
{
	return json_object_get_string(get(o, key));
}

/* Runs advise with @args in JSON mode and in text mode; both must agree. Returns the JSON. */
static json_object *ask(const char *args, char *first_line, size_t len)
{
	char full[512], *nl;
	json_object *o;

	snprintf(full, sizeof(full), "%s --json", args);
	tool_run(&out, NULL, advise(), full, 0);
	assert_int_equal(out.status, 0);
	o = json_tokener_parse(out.text);
	if (o == NULL)
		fail_msg("not JSON from advise %s: %s", full, out.text);
	tool_run(&out, NULL, advise(), args, 0);
	assert_int_equal(out.status, 0);
	nl = strchr(out.text, '\n');
	assert_non_null(nl);
	snprintf(first_line, len, "%.*s", (int)(nl - out.text), out.text);
	/* the text's reason is the JSON's, word for word */
	assert_non_null(strstr(out.text, str(o, "reason")));
	return o;
}

/* The rule of docs/user-guide.md, "Which path: odma advise". */
static const char *rule(const char *between, size_t size, size_t crossover)
{
	if (strcmp(between, "network") == 0)
		return "rdma";
	if (strcmp(between, "host-dpu") == 0)
		return "dma"; /* two processes cannot memcpy each other's memory */
	return size < crossover ? "memcpy" : "dma";
}

static void test_six_shapes(void **state)
{
	static const char *const between[] = { "same-process", "host-dpu", "network" };
	static const char *const sizes[] = { "64", "1M", "1G" };
	static const size_t bytes[] = { 64, 1 << 20, 1u << 30 };
	char args[128], line[64];

	(void)state;
	for (int b = 0; b < 3; b++)
		for (int s = 0; s < 3; s++) {
			json_object *o;
			size_t x;

			snprintf(args, sizeof(args), "--size %s --between %s", sizes[s],
			         between[b]);
			o = ask(args, line, sizeof(line));
			x = (size_t)json_object_get_int64(get(o, "crossover_bytes"));
			assert_string_equal(str(o, "crossover_source"), "compiled-in default");
			assert_int_equal(json_object_get_int(get(o, "crossover_runs")), 0);
			assert_true(x > 64 && x <= (1u << 30));
			assert_string_equal(str(o, "between"), between[b]);
			assert_int_equal(json_object_get_int64(get(o, "size")), bytes[s]);
			assert_string_equal(str(o, "path"), rule(between[b], bytes[s], x));
			assert_string_equal(line, str(o, "path"));
			assert_string_equal(str(o, "verdict"), "clear");
			assert_int_equal(json_object_get_boolean(get(o, "crossover_used")), b == 0);
			/* nothing measured: no emulated figure claimed */
			assert_false(json_object_object_get_ex(o, "emulated", NULL));
			if (b == 0) /* the crossover is said to be the compiled-in default */
				assert_non_null(strstr(out.text, "the compiled-in default"));
			json_object_put(o);
		}
	/* the fixed points of the rule, whatever the default crossover */
	for (int b = 0; b < 3; b++) {
		json_object *o;

		snprintf(args, sizeof(args), "--size 64 --between %s", between[b]);
		o = ask(args, line, sizeof(line));
		assert_string_equal(line, b == 0 ? "memcpy" : b == 1 ? "dma" : "rdma");
		json_object_put(o);
		snprintf(args, sizeof(args), "--size 1G --between %s", between[b]);
		o = ask(args, line, sizeof(line));
		assert_string_equal(line, b == 2 ? "rdma" : "dma");
		json_object_put(o);
	}
}

/* The flags of before --between keep their meaning, and default to the shape they imply. */
static void test_implied_shapes(void **state)
{
	char line[64];
	json_object *o;

	(void)state;
	o = ask("--size 1M --cross-network", line, sizeof(line));
	assert_string_equal(line, "rdma");
	assert_string_equal(str(o, "between"), "network");
	json_object_put(o);
	o = ask("--size 4K --messages", line, sizeof(line));
	assert_string_equal(line, "comch");
	assert_string_equal(str(o, "between"), "host-dpu");
	json_object_put(o);
	o = ask("--size 4K --messages --between network", line, sizeof(line));
	assert_string_equal(line, "rdma");
	json_object_put(o);
	o = ask("--size 64", line, sizeof(line));
	assert_string_equal(str(o, "between"), "same-process");
	json_object_put(o);
	o = ask("--size 16M --count 8", line, sizeof(line));
	assert_string_equal(line, "dma");
	assert_int_equal(json_object_get_int(get(o, "count")), 8);
	json_object_put(o);
}

static void expect_refusal(const char *args, const char *want)
{
	char *nl;

	tool_run(&out, NULL, advise(), args, 1);
	assert_int_equal(out.status, 2);
	nl = strstr(out.text, want);
	if (nl == NULL)
		fail_msg("advise %s: no \"%s\" in: %s", args, want, out.text);
}

static void test_refusals(void **state)
{
	(void)state;
	expect_refusal("--size 1M --between moon",
	               "--between \"moon\": use same-process, host-dpu or network");
	expect_refusal("--size 1M --messages --between same-process",
	               "--messages is a host-dpu question, not --between same-process");
	expect_refusal("--size 1M --cross-network --between host-dpu",
	               "--cross-network is a network question, not --between host-dpu");
	expect_refusal("--size 1M --compare-fastpath --between network",
	               "--compare-fastpath is a host-dpu question, not --between network");
	expect_refusal("--size 1G --compare-fastpath", "measures sizes of 1 to 256M bytes");
	/* 2^34 + 1 GiB: past 2^64 bytes, not wrapped round to 1 GiB */
	expect_refusal("--size 17179869185G", "--size \"17179869185G\" is not a size");
	expect_refusal("--size 0", "--size \"0\" is not a size");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_six_shapes),
		cmocka_unit_test(test_implied_shapes),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
