/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The environment variable table (core/config): numbers with suffixes and bounds, choices,
 * ODMA_FABRIC, the one bad-value line, and the table against the docs and the sources.
 */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/config/config.h"
#include "core/exec/faults.h"
#include "core/log/log_int.h"
#include "test_exec.h"
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
		/* decimal, as documented: a leading zero does not make it octal */
		{ "010", true, 10 },
		{ "08", true, 8 },
		{ "0100k", true, 100 << 10 },
		{ "0X1f", true, 31 },
		{ "0x-1", false, 0 },
		{ "0x 1", false, 0 },
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

	(void)state; /* ODMA_HELP_BACKLOG: 0 to 4096 in the table */
	unsetenv("ODMA_HELP_BACKLOG");
	assert_ok(odma_config_size("ODMA_HELP_BACKLOG", 7, &v));
	assert_int_equal(v, 7);
	setenv("ODMA_HELP_BACKLOG", "", 1);
	assert_null(odma_config_string("ODMA_HELP_BACKLOG"));
	assert_ok(odma_config_size("ODMA_HELP_BACKLOG", 7, &v));
	assert_int_equal(v, 7);
	setenv("ODMA_HELP_BACKLOG", "4k", 1);
	assert_ok(odma_config_size("ODMA_HELP_BACKLOG", 7, &v));
	assert_int_equal(v, 4096);
	setenv("ODMA_HELP_BACKLOG", "4097", 1);
	assert_doca(DOCA_ERROR_INVALID_VALUE, odma_config_size("ODMA_HELP_BACKLOG", 7, &v));
	unsetenv("ODMA_HELP_BACKLOG");
	/* a variable that is not in the table is a programming error, refused */
	assert_doca(DOCA_ERROR_INVALID_VALUE, odma_config_size("ODMA_NO_SUCH_KNOB", 7, &v));
	assert_doca(DOCA_ERROR_INVALID_VALUE, odma_config_size("ODMA_TRANSPORT", 7, &v));
}

static void choice(void **state)
{
	int i = -1;

	(void)state; /* ODMA_TRANSPORT: auto, process, ucx */
	unsetenv("ODMA_TRANSPORT");
	assert_ok(odma_config_choice("ODMA_TRANSPORT", 1, &i));
	assert_int_equal(i, 1);
	setenv("ODMA_TRANSPORT", "ucx", 1);
	assert_ok(odma_config_choice("ODMA_TRANSPORT", 1, &i));
	assert_int_equal(i, 2);
	setenv("ODMA_TRANSPORT", "UCX", 1);
	assert_doca(DOCA_ERROR_INVALID_VALUE, odma_config_choice("ODMA_TRANSPORT", 1, &i));
	unsetenv("ODMA_TRANSPORT");
}

/* ODMA_FABRIC: one parser for the DMA export path, the UCX device choice and Comch. */
static void fabric(void **state)
{
	static const char *const bad[] = { "127.0.0.1:99999", "127.0.0.1:0", "nonsense:18515",
		                           "10.0.0.2",        ":18515",      "10.0.0.2:",
		                           "10.0.0.2:+5",     "10.0.0.2:5x", "10.0.0.256:5" };
	char addr[64];
	uint16_t port = 1;

	(void)state;
	unsetenv("ODMA_FABRIC");
	assert_ok(odma_config_fabric(addr, sizeof(addr), &port));
	assert_int_equal(port, 0);
	setenv("ODMA_FABRIC", "10.0.0.2:18515", 1);
	assert_ok(odma_config_fabric(addr, sizeof(addr), &port));
	assert_string_equal(addr, "10.0.0.2");
	assert_int_equal(port, 18515);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("ODMA_FABRIC", bad[i], 1);
		if (odma_config_fabric(addr, sizeof(addr), &port) != DOCA_ERROR_INVALID_VALUE)
			fail_msg("ODMA_FABRIC=\"%s\" was accepted", bad[i]);
	}
	unsetenv("ODMA_FABRIC");
}

static void table_rows(void **state)
{
	size_t n;
	const struct odma_config_var *v = odma_config_vars(&n);
	char line[768];

	(void)state;
	assert_true(n >= 20);
	for (size_t i = 0; i < n; i++) {
		if (strncmp(v[i].name, "ODMA_", 5) != 0 && strncmp(v[i].name, "DOCA_", 5) != 0)
			fail_msg("row %zu: %s is neither ODMA_* nor DOCA_*", i, v[i].name);
		if (!v[i].accepted || !*v[i].accepted || !v[i].dflt || !*v[i].dflt ||
		    !v[i].reader || !*v[i].reader || !v[i].on_bad || !*v[i].on_bad)
			fail_msg("row %s: a field is empty", v[i].name);
		assert_ptr_equal(odma_config_var(v[i].name), &v[i]); /* names are unique */
		if (v[i].kind == ODMA_CFG_CHOICE)
			assert_non_null(v[i].choices);
	}
	assert_string_equal(odma_config_bad_line(line, sizeof(line), "ODMA_WORKERS", "0", NULL),
	                    "ODMA_WORKERS=\"0\" is not a number from 1 to 64; doca_pe_create "
	                    "fails with DOCA_ERROR_INVALID_VALUE");
}

/*
 * The example a refusal of ODMA_FAULTS quotes names only keys the parser takes: each KEY=
 * after the row's colon parses with a value (the row said agains=P, and no key is that).
 */
static void faults_row_keys(void **state)
{
	const struct odma_config_var *v = odma_config_var("ODMA_FAULTS");
	struct odma_fault_config c;
	char item[64], err[256];
	const char *p;
	size_t n;

	(void)state;
	assert_non_null(v);
	p = strchr(v->accepted, ':');
	assert_non_null(p);
	for (p++; (p = strchr(p, '=')) != NULL; p++) {
		const char *k = p;

		while (k > v->accepted && (k[-1] == '_' || (k[-1] >= 'a' && k[-1] <= 'z')))
			k--;
		n = (size_t)(p - k);
		snprintf(item, sizeof(item), "%.*s=%s", (int)n, k,
		         n == 5 && strncmp(k, "error", 5) == 0 ? "DRIVER" : "1");
		if (odma_faults_parse(item, &c, err, sizeof(err)) != DOCA_SUCCESS)
			fail_msg("ODMA_FAULTS's row quotes \"%.*s=\", which the parser refuses: %s",
			         (int)n, k, err);
	}
}

/*
 * ODMA_FAULTS: a delay over its cap (1 s) is refused by a line that says the cap; an empty
 * item is refused wherever it is, last ("seed=1,") as first (",seed=1"); a count with a sign.
 */
static void faults_refusals(void **state)
{
	static const char *const empty[] = { ",seed=1", "seed=1,", "seed=1,,delay_us=1", "," };
	static const char *const signed_counts[] = { "remote_die_after= -1", "comch_drop_after= -1",
		                                     "seed=+1", "delay_us= -1-5" };
	struct odma_fault_config c;
	char err[256];

	(void)state;
	assert_int_equal(odma_faults_parse("delay_us=0-1000000", &c, err, sizeof(err)),
	                 DOCA_SUCCESS);
	assert_int_equal(odma_faults_parse("delay_us=0-1000001", &c, err, sizeof(err)),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_non_null(strstr(err, "A <= B <= 1000000: 1 s"));
	assert_int_equal(odma_faults_parse("seed=1,comch_delay_us=2000000", &c, err, sizeof(err)),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_non_null(strstr(err, "\"comch_delay_us=2000000\" (comch_delay_us=A or A-B"));
	for (size_t i = 0; i < sizeof(empty) / sizeof(empty[0]); i++)
		if (odma_faults_parse(empty[i], &c, err, sizeof(err)) != DOCA_ERROR_INVALID_VALUE ||
		    strstr(err, "is empty") == NULL)
			fail_msg("ODMA_FAULTS=\"%s\" not refused as an empty item", empty[i]);
	assert_int_equal(odma_faults_parse("", &c, err, sizeof(err)), DOCA_SUCCESS);
	/* a count is digits only: " -1" was taken as 2^64 - 1 (strtoull skips the space) */
	for (size_t i = 0; i < sizeof(signed_counts) / sizeof(signed_counts[0]); i++)
		if (odma_faults_parse(signed_counts[i], &c, err, sizeof(err)) !=
		    DOCA_ERROR_INVALID_VALUE)
			fail_msg("ODMA_FAULTS=\"%s\" not refused", signed_counts[i]);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = f ? calloc(1, 1 << 20) : NULL;

	if (buf != NULL)
		(void)!fread(buf, 1, (1 << 20) - 1, f);
	if (f != NULL)
		fclose(f);
	return buf;
}

static const char *root(void)
{
	const char *r = getenv("ODMA_TEST_SOURCE_ROOT");

	return r != NULL ? r : ".";
}

/* docs/user-guide.md §3 lists every row of the table, and no variable that is not in it. */
static void doc_lists_every_var(void **state)
{
	char path[1024], name[64];
	size_t n;
	const struct odma_config_var *v = odma_config_vars(&n);
	char *doc, *p;

	(void)state;
	snprintf(path, sizeof(path), "%s/docs/user-guide.md", root());
	doc = slurp(path);
	assert_non_null(doc);
	for (size_t i = 0; i < n; i++) {
		char row[96];

		snprintf(row, sizeof(row), "\n| `%s` |", v[i].name);
		if (strstr(doc, row) == NULL)
			fail_msg("docs/user-guide.md has no row \"| `%s` |\" in its table",
			         v[i].name);
	}
	for (p = doc; (p = strstr(p, "\n| `")) != NULL; p += 4) {
		if (sscanf(p + 4, "%63[A-Z_]", name) == 1 &&
		    (strncmp(name, "ODMA_", 5) == 0 || strncmp(name, "DOCA_", 5) == 0) &&
		    p[4 + strlen(name)] == '`' && odma_config_var(name) == NULL)
			fail_msg("docs/user-guide.md lists %s, which core/config's table has not",
			         name);
	}
	free(doc);
}

static const char *const readers[] = { "getenv(\"", "config_string(\"", "config_size(\"",
	                               "config_choice(\"", "config_refuse(\"" };
static int unlisted;

static int scan_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	size_t len = strlen(path);
	char *text, name[64];

	(void)st;
	(void)ftw;
	if (type != FTW_F || len < 2 ||
	    (strcmp(path + len - 2, ".c") != 0 && strcmp(path + len - 2, ".h") != 0))
		return 0;
	text = slurp(path);
	for (size_t k = 0; text != NULL && k < sizeof(readers) / sizeof(readers[0]); k++) {
		for (const char *p = text; (p = strstr(p, readers[k])) != NULL; p++) {
			if (sscanf(p + strlen(readers[k]), "%63[A-Z0-9_]", name) != 1 ||
			    (strncmp(name, "ODMA_", 5) != 0 && strncmp(name, "DOCA_", 5) != 0))
				continue;
			if (odma_config_var(name) == NULL) {
				print_error("%s reads %s, which core/config's table has not\n",
				            path, name);
				unlisted++;
			}
		}
	}
	free(text);
	return 0;
}

/* Every ODMA_* or DOCA_* variable that src/, tools/ or apps/ reads is a row of the table. */
static void sources_read_only_listed_vars(void **state)
{
	static const char *const dirs[] = { "src", "tools", "apps" };
	char path[1024];

	(void)state;
	unlisted = 0;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root(), dirs[i]);
		assert_int_equal(nftw(path, scan_file, 16, FTW_PHYS), 0);
	}
	assert_int_equal(unlisted, 0);
}

static const char *self; /* argv[0] */

/* DOCA_LOG_LEVEL is read by the log module before the table exists: the same line. */
static void log_level_line(void **state)
{
	char cmd[2048], out[1024] = "", want[800] = "odma: ", wrap[300];
	FILE *p;
	size_t got;

	(void)state;
	/* this program again (under qemu-user through the emulator: /proc/self/exe is qemu) */
	snprintf(cmd, sizeof(cmd), "DOCA_LOG_LEVEL=bogus %s%s --log-child 2>&1",
	         tu_exe_wrapper_prefix(wrap, sizeof(wrap)), self);
	p = popen(cmd, "r");
	assert_non_null(p);
	got = fread(out, 1, sizeof(out) - 1, p);
	out[got] = '\0';
	assert_int_equal(pclose(p), 0);
	odma_config_bad_line(want + 6, sizeof(want) - 6, "DOCA_LOG_LEVEL", "bogus", NULL);
	strcat(want, "\n");
	assert_string_equal(out, want);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_size),
		cmocka_unit_test(size_bounds_and_default),
		cmocka_unit_test(choice),
		cmocka_unit_test(fabric),
		cmocka_unit_test(table_rows),
		cmocka_unit_test(faults_row_keys),
		cmocka_unit_test(faults_refusals),
		cmocka_unit_test(doc_lists_every_var),
		cmocka_unit_test(sources_read_only_listed_vars),
		cmocka_unit_test(log_level_line),
	};

	if (argc == 2 && strcmp(argv[1], "--log-child") == 0) {
		odma_log_init(); /* the bad line, if any, and nothing else */
		return 0;
	}
	self = argv[0];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
