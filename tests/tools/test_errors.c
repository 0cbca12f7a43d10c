/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * odma-errors: the full list, a code by name (several spellings) and by number, JSON parsed,
 * unknown names and numbers; and that its causes are the library's own table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <doca_buf.h>
#include <doca_buf_pool.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "core/error/error.h"
#include "tool_run.h"

static struct tool_out out;

static const char *errors(void)
{
	return tool_path("ODMA_TEST_ERRORS");
}

static json_object *run_json(const char *args)
{
	char full[256];
	json_object *root, *arr = NULL;

	snprintf(full, sizeof(full), "--json %s", args);
	tool_run(&out, NULL, errors(), full, 0);
	assert_int_equal(out.status, 0);
	root = json_tokener_parse(out.text);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "errors", &arr));
	return root;
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	assert_true(json_object_object_get_ex(o, key, &v));
	return v;
}

static json_object *entries(json_object *root)
{
	return json_object_object_get(root, "errors");
}

static void test_all_codes_json(void **state)
{
	json_object *root = run_json(""), *arr = entries(root);
	size_t i;

	(void)state;
	assert_int_equal(json_object_array_length(arr),
	                 31); /* DOCA_SUCCESS .. DOCA_ERROR_SKIPPED */
	for (i = 0; i < 31; i++) {
		json_object *e = json_object_array_get_idx(arr, i);

		assert_int_equal(json_object_get_int(json_object_object_get(e, "number")), (int)i);
		assert_string_equal(json_object_get_string(json_object_object_get(e, "name")),
		                    doca_error_get_name((doca_error_t)i));
		assert_string_equal(
		        json_object_get_string(json_object_object_get(e, "description")),
		        doca_error_get_descr((doca_error_t)i));
	}
	json_object_put(root);
}

/* The code has at least one DMA cause whose rule is `rule`. */
static void expect_rule(const char *query, int number, const char *rule)
{
	json_object *root = run_json(query), *e, *causes;
	size_t i;
	int found = 0;

	assert_int_equal(json_object_array_length(entries(root)), 1);
	e = json_object_array_get_idx(entries(root), 0);
	assert_int_equal(json_object_get_int(json_object_object_get(e, "number")), number);
	causes = json_object_object_get(e, "dma_causes");
	for (i = 0; i < json_object_array_length(causes); i++) {
		json_object *c = json_object_array_get_idx(causes, i);

		found |= strcmp(json_object_get_string(json_object_object_get(c, "rule")), rule) ==
		         0;
		assert_true(strlen(json_object_get_string(json_object_object_get(c, "fix"))) > 10);
		assert_true(strlen(json_object_get_string(json_object_object_get(c, "cause"))) >
		            10);
	}
	assert_true(found);
	json_object_put(root);
}

static void test_dma_causes(void **state)
{
	(void)state;
	expect_rule("DOCA_ERROR_BAD_STATE", 18, "ctx-not-idle");
	expect_rule("invalid_value", 6, "size-cap");
	expect_rule("AGAIN", 5, "queue-full");
	expect_rule("AGAIN", 5, "comch-peer-queue-full");
	expect_rule("AGAIN", 5, "comch-no-consumer-buffer");
	expect_rule("AGAIN", 5, "injected-again");
	expect_rule("ERROR_NOT_PERMITTED", 2, "dst-read-only");
	expect_rule("NOT_PERMITTED", 2, "mmap-not-on-device");
	expect_rule("BAD_STATE", 18, "mmap-stopped");
	expect_rule("NOT_PERMITTED", 2, "mmap-fixed");
	expect_rule("not_supported", 4, "no-memcpy");
	/* what a memcpy from an RDMA import returns (it had only the device rule to offer) */
	expect_rule("NOT_SUPPORTED", 4, "mmap-from-rdma-export");
	expect_rule("21", 21, "driver-layer");
	expect_rule("IO_FAILED", 17, "task-failed");
	expect_rule("7", 7, "pool-exhausted");
	expect_rule("NOT_CONNECTED", 14, "no-pe");
	expect_rule("bad_config", 29, "no-set-conf");
	expect_rule("ALREADY_EXIST", 23, "dev-added-twice");
	expect_rule("25", 25, "buf-pool-empty");
	expect_rule("initialization", 8, "cannot-initialize");
}

/* The library returns what those three rules say (odma errors had said it never does). */
static void test_rules_hold(void **state)
{
	static char mem[4096];
	struct doca_devinfo **list = NULL;
	struct doca_buf_pool *pool = NULL;
	struct doca_mmap *mmap = NULL;
	struct doca_buf *buf = NULL, *none = NULL;
	struct doca_dev *dev = NULL;
	struct doca_pe *pe = NULL;
	uint32_t nb = 0;

	(void)state;
	assert_int_equal(doca_devinfo_create_list(&list, &nb), DOCA_SUCCESS);
	assert_int_equal(doca_dev_open(list[0], &dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_create(&mmap), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(mmap, mem, sizeof(mem)), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(mmap, dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(mmap, dev), DOCA_ERROR_ALREADY_EXIST);
	assert_int_equal(doca_mmap_start(mmap), DOCA_SUCCESS);
	assert_int_equal(doca_buf_pool_create(1, 64, mmap, &pool), DOCA_SUCCESS);
	assert_int_equal(doca_buf_pool_start(pool), DOCA_SUCCESS);
	assert_int_equal(doca_buf_pool_buf_alloc(pool, &buf), DOCA_SUCCESS);
	assert_int_equal(doca_buf_pool_buf_alloc(pool, &none), DOCA_ERROR_EMPTY);
	assert_int_equal(setenv("ODMA_ENGINE", "no-such-engine", 1), 0);
	assert_int_equal(doca_pe_create(&pe), DOCA_ERROR_INITIALIZATION);
	assert_int_equal(unsetenv("ODMA_ENGINE"), 0);
	assert_int_equal(doca_buf_dec_refcount(buf, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_pool_destroy(pool), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(mmap), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
	doca_devinfo_destroy_list(list);
}

static void test_text_by_name_and_number(void **state)
{
	(void)state;
	tool_run(&out, NULL, errors(), "AGAIN", 0);
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.text, "DOCA_ERROR_AGAIN"));
	assert_non_null(strstr(out.text, "doca_pe_progress"));
	assert_null(strstr(out.text, "DOCA_ERROR_BAD_STATE"));
	tool_run(&out, NULL, errors(), "-l 30 14", 0);
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.text, "DOCA_ERROR_NOT_CONNECTED"));
	assert_non_null(strstr(out.text, "doca_pe_connect_ctx"));
	tool_run(&out, NULL, errors(), "DOCA_SUCCESS", 0);
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.text, "DOCA_SUCCESS"));
	tool_run(&out, NULL, errors(), "", 0);
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.text, "DOCA_ERROR_SKIPPED"));
}

/* The queue-full rule names the depth of each device of the loaded profile (issue 29, item 6). */
static void test_again_names_queue_depth(void **state)
{
	char env[1024];
	json_object *root, *causes, *c = NULL, *d;

	(void)state;
	tool_run(&out, "ODMA_SYSTEM=bf3", errors(), "AGAIN", 0);
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.text, "task queue depth (tasks in flight per context) 1024 on "
	                                 "0000:b1:00.0, 0000:b1:00.1, 0000:03:00.0, 0000:03:00.1"));
	snprintf(env, sizeof(env), "ODMA_SYSTEM='%s/good.profile'",
	         tool_path("ODMA_TEST_PROFILES"));
	tool_run(&out, env, errors(), "AGAIN", 0);
	assert_non_null(strstr(out.text, "128 on 0000:5e:00.0; 256 on 0000:03:00.0 ("));
	tool_run(&out, env, errors(), "--json AGAIN", 0);
	root = json_tokener_parse(out.text);
	assert_non_null(root);
	causes = json_object_object_get(json_object_array_get_idx(get(root, "errors"), 0),
	                                "dma_causes");
	for (size_t i = 0; i < json_object_array_length(causes); i++)
		if (strcmp(json_object_get_string(json_object_object_get(
		                   json_object_array_get_idx(causes, i), "rule")),
		           "queue-full") == 0)
			c = json_object_array_get_idx(causes, i);
	assert_non_null(c);
	c = get(c, "queue_depths");
	assert_int_equal(json_object_array_length(c), 2);
	d = json_object_array_get_idx(c, 0);
	assert_string_equal(json_object_get_string(get(d, "pci_addr")), "0000:5e:00.0");
	assert_int_equal(json_object_get_int64(get(d, "queue_depth")), 128);
	json_object_put(root);
}

static void test_unknown(void **state)
{
	(void)state;
	tool_run(&out, NULL, errors(), "NO_SUCH_ERROR", 1);
	assert_int_equal(out.status, 1);
	assert_non_null(strstr(out.text, "is not a DOCA error name or number"));
	tool_run(&out, NULL, errors(), "31", 1);
	assert_int_equal(out.status, 1);
	tool_run(&out, NULL, errors(), "-5", 1);
	assert_int_not_equal(out.status, 0);
	tool_run(&out, NULL, errors(), "--version", 0);
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.text, "3.3.0"));
	tool_run(&out, NULL, errors(), "--help", 1);
	assert_int_equal(out.status, 0);
}

/* The library's rejection log line ends with the fix text of the shared table. */
static void test_log_line_quotes_table(void **state)
{
	struct doca_devinfo **list = NULL;
	struct doca_log_backend *be = NULL;
	struct doca_dev *dev = NULL;
	struct doca_dma *dma = NULL;
	char logbuf[8192] = "";
	FILE *f = tmpfile();
	uint32_t nb = 0;
	size_t n;

	(void)state;
	assert_non_null(f);
	assert_int_equal(doca_log_backend_create_with_file_sdk(f, &be), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_sdk_level(be, DOCA_LOG_LEVEL_WARNING), DOCA_SUCCESS);
	assert_int_equal(doca_devinfo_create_list(&list, &nb), DOCA_SUCCESS);
	assert_true(nb > 0);
	assert_int_equal(doca_dev_open(list[0], &dev), DOCA_SUCCESS);
	assert_int_equal(doca_dma_create(dev, &dma), DOCA_SUCCESS);
	/* never connected to a PE */
	assert_int_equal(doca_ctx_start(doca_dma_as_ctx(dma)), DOCA_ERROR_NOT_CONNECTED);
	fflush(f);
	rewind(f);
	n = fread(logbuf, 1, sizeof(logbuf) - 1, f);
	logbuf[n] = '\0';
	assert_non_null(strstr(logbuf, odma_cause_fix(ODMA_CAUSE_NO_PE)));
	assert_int_equal(doca_dma_destroy(dma), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
	doca_devinfo_destroy_list(list);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_codes_json),
		cmocka_unit_test(test_dma_causes),
		cmocka_unit_test(test_rules_hold),
		cmocka_unit_test(test_text_by_name_and_number),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_log_line_quotes_table),
		cmocka_unit_test(test_again_names_queue_depth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
