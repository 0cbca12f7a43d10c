/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * compat_last_line (odma compat's quote of a failing program's log), white box: the line it
 * picks, and memory bounded whatever the log's size. Every allocation of compat_proc.c goes
 * through the wrappers below (-Wl,--wrap), which keep the largest one asked for.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "compat.h"

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);

static size_t largest; /* the largest allocation asked for */

static void seen(size_t size)
{
	if (size > largest)
		largest = size;
}

void *__wrap_malloc(size_t size)
{
	seen(size);
	return __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
	seen(n * size);
	return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
	seen(size);
	return __real_realloc(p, size);
}

static char path[64];

static int setup(void **state)
{
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/odma-last-line-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static void write_log(const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void test_picks_the_line(void **state)
{
	char out[64];

	(void)state;
	write_log("first\n\t [ERROR] one\n  second\n   \n\n");
	assert_true(compat_last_line(path, NULL, out, sizeof(out)));
	assert_string_equal(out, "second");
	assert_true(compat_last_line(path, "[ERROR]", out, sizeof(out)));
	assert_string_equal(out, "[ERROR] one");
	assert_false(compat_last_line(path, "nowhere", out, sizeof(out)));
	assert_string_equal(out, "");
	write_log("no newline at the end");
	assert_true(compat_last_line(path, NULL, out, 8));
	assert_string_equal(out, "no newl");
	assert_false(compat_last_line("/nonexistent/log", NULL, out, sizeof(out)));
}

/* A line longer than the line buffer counts by its first part; the next line is whole. */
static void test_long_line(void **state)
{
	size_t n = 10000;
	char *text = malloc(n + 64), out[64];

	(void)state;
	assert_non_null(text);
	memset(text, 'x', n);
	strcpy(text + n, "[ERROR] far\nlast\n");
	write_log(text);
	free(text);
	assert_false(compat_last_line(path, "[ERROR]", out, sizeof(out)));
	assert_true(compat_last_line(path, "xxx", out, sizeof(out)));
	assert_int_equal(strlen(out), sizeof(out) - 1);
	assert_true(compat_last_line(path, NULL, out, sizeof(out)));
	assert_string_equal(out, "last");
}

/* A 64 MiB log (a hole, then a line): found, with no allocation near its size. */
static void test_huge_log_bounded(void **state)
{
	const off_t big = (off_t)64 << 20;
	char out[64];
	bool found;
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, big), 0);
	assert_int_equal(pwrite(fd, "\n  the end\n", 11, big), 11);
	close(fd);
	largest = 0;
	found = compat_last_line(path, NULL, out, sizeof(out));
	assert_in_range(largest, 0, 1 << 20);
	assert_true(found);
	assert_string_equal(out, "the end");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_picks_the_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_huge_log_bounded, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
