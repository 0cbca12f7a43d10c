/* Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause */
/* Black-box tests of doca_argp.h: types, mandatory, unknown flags, JSON files, callbacks, usage. */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doca_argp.h>

#include "test_util.h"

struct cfg {
	char pci[64];
	int count;
	int counts;
	bool verbose;
	int extra_k;
	int extra_null; /* calls of extra_cb with no json_object */
	int validated;
	int dpdk_argc;
	char dpdk_last[32];
	char dpdk_all[512]; /* dpdk_all_cb: argv joined by spaces */
};

static struct cfg cfg;

static doca_error_t pci_cb(void *p, void *c)
{
	snprintf(((struct cfg *)c)->pci, sizeof(cfg.pci), "%s", (char *)p);
	return DOCA_SUCCESS;
}
static doca_error_t count_cb(void *p, void *c)
{
	((struct cfg *)c)->count = *(int *)p;
	((struct cfg *)c)->counts++;
	return DOCA_SUCCESS;
}
static doca_error_t verbose_cb(void *p, void *c)
{
	((struct cfg *)c)->verbose = *(bool *)p;
	return DOCA_SUCCESS;
}
static doca_error_t extra_cb(void *p, void *c)
{
	/* The value is a json_object*; counting calls keeps this test free of a json-c link. */
	((struct cfg *)c)->extra_k += p != NULL ? 1 : 0;
	((struct cfg *)c)->extra_null += p == NULL ? 1 : 0;
	return DOCA_SUCCESS;
}
static doca_error_t validate_ok(void *c)
{
	((struct cfg *)c)->validated++;
	return DOCA_SUCCESS;
}
static doca_error_t validate_fail(void *c)
{
	(void)c;
	return DOCA_ERROR_BAD_CONFIG;
}
static doca_error_t version_cb(void *p, void *c)
{
	(void)p;
	(void)c;
	printf("prog's own version 1.2\n");
	fflush(stdout);
	return DOCA_SUCCESS;
}
static doca_error_t dpdk_cb(int argc, char **argv)
{
	cfg.dpdk_argc = argc;
	snprintf(cfg.dpdk_last, sizeof(cfg.dpdk_last), "%s", argv[argc - 1]);
	return DOCA_SUCCESS;
}

static doca_error_t dpdk_all_cb(int argc, char **argv)
{
	size_t used = 0;

	cfg.dpdk_argc = argc;
	for (int i = 0; i < argc && used < sizeof(cfg.dpdk_all); i++)
		used += (size_t)snprintf(cfg.dpdk_all + used, sizeof(cfg.dpdk_all) - used, "%s%s",
		                         i > 0 ? " " : "", argv[i]);
	return argv[argc] == NULL ? DOCA_SUCCESS : DOCA_ERROR_UNEXPECTED; /* NULL-terminated */
}

static void add(const char *s, const char *l, enum doca_argp_type t, doca_argp_param_cb_t cb,
                int flags)
{
	struct doca_argp_param *p;

	assert_ok(doca_argp_param_create(&p));
	if (s)
		doca_argp_param_set_short_name(p, s);
	if (l)
		doca_argp_param_set_long_name(p, l);
	doca_argp_param_set_description(p, "desc of flag");
	doca_argp_param_set_arguments(p, "<val>");
	doca_argp_param_set_type(p, t);
	doca_argp_param_set_callback(p, cb);
	if (flags & 1)
		doca_argp_param_set_mandatory(p);
	if (flags & 2)
		doca_argp_param_set_multiplicity(p);
	if (flags & 4)
		doca_argp_param_set_cli_only(p);
	if (flags & 8)
		doca_argp_param_set_hidden(p);
	if (flags & 16) { /* meaningful for sub-commands only: a plain program parses it as usual */
		doca_argp_param_set_singular(p);
		doca_argp_param_set_inherited(p);
	}
	assert_ok(doca_argp_register_param(p));
}

static int setup(void **state)
{
	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	assert_ok(doca_argp_init("prog", &cfg));
	add("p", "pci-addr", DOCA_ARGP_TYPE_STRING, pci_cb, 1);
	add("c", "count", DOCA_ARGP_TYPE_INT, count_cb, 2);
	add(NULL, "verbose", DOCA_ARGP_TYPE_BOOLEAN, verbose_cb, 16);
	add("x", "extra", DOCA_ARGP_TYPE_JSON_OBJ, extra_cb, 0);
	add("s", "secret", DOCA_ARGP_TYPE_STRING, pci_cb, 4 | 8);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	assert_ok(doca_argp_destroy());
	return 0;
}

#define ARGV(...)                                                                                  \
	(char *[])                                                                                 \
	{                                                                                          \
		"prog", __VA_ARGS__, NULL                                                          \
	}
#define ARGC(...) ((int)(sizeof((char *[]){ "prog", __VA_ARGS__ }) / sizeof(char *)))
#define START(...) doca_argp_start(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))

static void test_all_types(void **state)
{
	(void)state;
	assert_ok(doca_argp_register_validation_callback(validate_ok));
	assert_ok(
	        START("-p", "03:00.0", "--count=5", "--verbose", "-x", "{\"k\": 9}", "-c", "0x10"));
	assert_string_equal(cfg.pci, "03:00.0");
	assert_int_equal(cfg.count, 16);
	assert_int_equal(cfg.counts, 2);
	assert_true(cfg.verbose);
	assert_int_equal(cfg.extra_k, 1);
	assert_int_equal(cfg.validated, 1);
	assert_doca(DOCA_ERROR_BAD_STATE, START("-p", "a"));
}

static void test_errors(void **state)
{
	(void)state;
	assert_doca(DOCA_ERROR_INVALID_VALUE, START("-c", "1"));            /* mandatory missing */
	assert_doca(DOCA_ERROR_NOT_SUPPORTED, START("-p", "a", "--bogus")); /* unknown flag */
	assert_doca(DOCA_ERROR_INVALID_VALUE, START("-p", "a", "-c", "12z")); /* bad int */
	assert_doca(DOCA_ERROR_INVALID_VALUE, START("-p", "a", "-c"));        /* missing value */
	assert_doca(DOCA_ERROR_INVALID_VALUE, START("-p", "a", "-p", "b"));   /* no multiplicity */
	assert_doca(DOCA_ERROR_INVALID_VALUE, START("-p", "a", "-x", "{bad"));
	assert_doca(DOCA_ERROR_INVALID_VALUE, START("-p", "a", "stray"));
	assert_doca(DOCA_ERROR_INVALID_VALUE, START("-p", "a", "-l", "55"));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED, START("-p", "a", "--", "extra"));
	assert_ok(doca_argp_register_validation_callback(validate_fail));
	assert_doca(DOCA_ERROR_BAD_CONFIG, START("-p", "a"));
}

static void test_state_errors(void **state)
{
	struct doca_argp_param *p;

	(void)state;
	assert_doca(DOCA_ERROR_BAD_STATE, doca_argp_init("again", NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_argp_register_param(NULL));
	assert_ok(doca_argp_param_create(&p));
	assert_doca(DOCA_ERROR_INITIALIZATION, doca_argp_register_param(p)); /* no name: freed */
	assert_ok(doca_argp_param_create(&p));
	doca_argp_param_set_long_name(p, "help");
	doca_argp_param_set_type(p, DOCA_ARGP_TYPE_INT);
	doca_argp_param_set_callback(p, count_cb);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_argp_register_param(p)); /* built-in name */
	assert_ok(doca_argp_param_create(&p));
	assert_ok(doca_argp_param_destroy(p));
	doca_argp_param_set_long_name(NULL, "x");
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_argp_param_create(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_argp_register_validation_callback(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_argp_get_log_level(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_argp_start(0, NULL));
}

/*
 * A param registered twice is refused the second time, and a registered one is not destroyed by
 * the program: it stays the parser's, usable.
 */
static void test_register_twice(void **state)
{
	struct doca_argp_param *p;

	(void)state;
	assert_ok(doca_argp_param_create(&p));
	doca_argp_param_set_long_name(p, "twice");
	doca_argp_param_set_type(p, DOCA_ARGP_TYPE_INT);
	doca_argp_param_set_callback(p, count_cb);
	assert_ok(doca_argp_register_param(p));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_argp_register_param(p));
	/* nor may the program destroy it: the parser frees it at doca_argp_destroy */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_argp_param_destroy(p));
	assert_ok(START("-p", "a", "--twice", "6"));
	assert_int_equal(cfg.count, 6);
}

/*
 * A flag name is matched whole, however long: a registered name of 150 characters is found, and
 * a name that only begins with a registered one of 127 is unknown (names were cut at 127).
 */
static void test_long_names(void **state)
{
	char name[151], flag[160], longer[160];

	(void)state;
	memset(name, 'n', 150);
	name[150] = '\0';
	add(NULL, name, DOCA_ARGP_TYPE_INT, count_cb, 0);
	name[127] = '\0';
	add(NULL, name, DOCA_ARGP_TYPE_STRING, pci_cb, 0);
	name[127] = 'n';
	snprintf(flag, sizeof(flag), "--%s", name);
	assert_ok(START("-p", "a", flag, "8"));
	assert_int_equal(cfg.count, 8);
	teardown(state);
	setup(state);
	add(NULL, name + 23, DOCA_ARGP_TYPE_STRING, pci_cb, 0); /* 127 characters */
	snprintf(longer, sizeof(longer), "--%sjunk", name + 23);
	assert_doca(DOCA_ERROR_NOT_SUPPORTED, START("-p", "a", longer, "x"));
	assert_string_equal(cfg.pci, "");
}

static char *fixture(const char *name)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/tests/data/argp/%s", getenv("ODMA_TEST_SOURCE_ROOT"),
	         name);
	return path;
}

static void test_json(void **state)
{
	int lvl;

	(void)state;
	assert_ok(START("-j", fixture("good.json"), "-c", "3"));
	assert_string_equal(cfg.pci, "03:00.0");
	assert_int_equal(cfg.count, 3); /* the command line overrides the file */
	assert_true(cfg.verbose);
	assert_int_equal(cfg.extra_k, 1);
	assert_ok(doca_argp_get_log_level(&lvl));
	assert_int_equal(lvl, 60);
	assert_ok(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_INFO));
}

static void test_json_errors(void **state)
{
	(void)state;
	assert_doca(DOCA_ERROR_IO_FAILED, START("--json", fixture("missing.json")));
	assert_doca(DOCA_ERROR_INVALID_VALUE, START("--json", fixture("bad_syntax.json")));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED, START("--json", fixture("unknown_key.json")));
	assert_doca(DOCA_ERROR_INVALID_VALUE, START("--json", fixture("cli_only.json")));
	/* a file without end is refused at the bound, not read until memory runs out */
	assert_doca(DOCA_ERROR_INVALID_VALUE, START("--json", "/dev/zero"));
	assert_doca(DOCA_ERROR_IO_FAILED, START("--json", "/"));
	/* 2^31 is refused, as on the command line, not clamped to INT_MAX */
	assert_doca(DOCA_ERROR_INVALID_VALUE, START("--json", fixture("int_range.json")));
	assert_int_equal(cfg.counts, 0);
	assert_doca(DOCA_ERROR_INVALID_VALUE, START("-p", "a", "-c", "2147483648"));
	assert_int_equal(cfg.counts, 0);
}

/* Text after the JSON value (a second object, a stray brace) is refused, not ignored. */
static void test_json_trailing(void **state)
{
	(void)state;
	assert_doca(DOCA_ERROR_INVALID_VALUE, START("--json", fixture("trailing.json")));
	assert_int_equal(cfg.counts, 0);
	assert_doca(DOCA_ERROR_INVALID_VALUE, START("-p", "a", "-x", "{\"k\": 9} }"));
	assert_doca(DOCA_ERROR_INVALID_VALUE, START("-p", "a", "-x", "{} {\"k\": 9}"));
	assert_int_equal(cfg.extra_k, 0);
	assert_ok(START("-p", "a", "-x", " {\"k\": 9}\n\t "));
	assert_int_equal(cfg.extra_k, 1);
	assert_ok(doca_argp_destroy()); /* a value that is not an object, as before */
	assert_ok(doca_argp_init("prog", &cfg));
	add("x", "extra", DOCA_ARGP_TYPE_JSON_OBJ, extra_cb, 0);
	assert_ok(START("-x", "5"));
	assert_int_equal(cfg.extra_k, 2);
}

static void test_levels_and_dpdk(void **state)
{
	int lvl;

	(void)state;
	doca_argp_set_dpdk_program(dpdk_cb);
	/* DOCA's order for a DPDK program: EAL flags, "--", DOCA and program flags */
	assert_ok(START("-a", "last", "--", "-p", "a", "-l", "30", "--sdk-log-level", "20"));
	assert_ok(doca_argp_get_log_level(&lvl));
	assert_int_equal(lvl, 30);
	assert_int_equal(doca_log_level_get_global_lower_limit(), 30);
	assert_ok(doca_argp_get_sdk_log_level(&lvl));
	assert_int_equal(lvl, 20);
	assert_int_equal(cfg.dpdk_argc, 3);
	assert_string_equal(cfg.dpdk_last, "last");
	assert_ok(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_INFO));
	assert_ok(doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_INFO));
}

/*
 * A DPDK program's command line is DOCA's: EAL flags, "--", then DOCA and program flags, as in
 * NVIDIA's samples ("./build/doca_flow_aging -a auxiliary:mlx5_core.sf.2,dv_flow_en=2 -- -l 60").
 * odma read the flags before "--" as its own (-a unknown: NOT_SUPPORTED) and gave the DPDK
 * program what follows. Without "--" the whole line is EAL's, as DOCA 1 handed it to
 * rte_eal_init (NVIDIA's lines keep "--" even with no EAL flag before it).
 */
static void test_dpdk_eal_before_dashdash(void **state)
{
	int lvl;

	teardown(state);
	assert_ok(doca_argp_init("prog", &cfg));
	add("c", "count", DOCA_ARGP_TYPE_INT, count_cb, 0); /* EAL's -c before "--" is not this */
	doca_argp_set_dpdk_program(dpdk_all_cb);
	assert_ok(START("-a", "X,dv_flow_en=2", "-c", "0x1", "--", "-l", "60"));
	assert_string_equal(cfg.dpdk_all, "prog -a X,dv_flow_en=2 -c 0x1");
	assert_int_equal(cfg.dpdk_argc, 5);
	assert_int_equal(cfg.counts, 0);
	assert_ok(doca_argp_get_log_level(&lvl));
	assert_int_equal(lvl, 60);
	assert_int_equal(doca_log_level_get_global_lower_limit(), 60);
	assert_ok(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_INFO));
	teardown(state);
	assert_ok(doca_argp_init("prog", &cfg));
	add("c", "count", DOCA_ARGP_TYPE_INT, count_cb, 0);
	doca_argp_set_dpdk_program(dpdk_all_cb);
	assert_ok(START("-c", "0x3", "-l", "0-1")); /* no "--": all EAL */
	assert_string_equal(cfg.dpdk_all, "prog -c 0x3 -l 0-1");
	assert_int_equal(cfg.counts, 0);
	assert_int_equal(doca_log_level_get_global_lower_limit(), DOCA_LOG_LEVEL_INFO);
}

/* The child's side of in_child: what it runs (with stdout on the pipe). */
static void child_help(void)
{
	START("--help");
}

static void child_version(void)
{
	if (doca_argp_register_version_callback(version_cb) == DOCA_SUCCESS)
		START("--version");
}

static void child_usage(void)
{
	doca_argp_usage();
	fflush(stdout);
	_exit(0); /* the program goes on after it: here, done */
}

/* Runs @fn in a child with stdout into @out; returns its exit status (3 if @fn returned). */
static int in_child(void (*fn)(void), char *out, size_t size)
{
	int fds[2], status;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		fn();
		_exit(3);
	}
	close(fds[1]);
	while (got < size - 1 && (n = read(fds[0], out + got, size - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static char fifo_path[64];

/* Exits 0 once -j on a FIFO without a writer was refused; an alarm ends it if the open blocks. */
static void child_json_fifo(void)
{
	alarm(5);
	_exit(START("--json", fifo_path) == DOCA_ERROR_INVALID_VALUE ? 0 : 4);
}

/* A FIFO nobody writes reads as an empty file at once: doca_argp_start blocked in its open. */
static void test_json_fifo(void **state)
{
	char dir[] = "/tmp/odma-argp-XXXXXX", out[256];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(fifo_path, sizeof(fifo_path), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo_path, 0600), 0);
	assert_int_equal(in_child(child_json_fifo, out, sizeof(out)), 0);
	unlink(fifo_path);
	rmdir(dir);
}

/*
 * --help prints usage and exits 0, --version runs the program's version callback and exits 0,
 * and doca_argp_usage prints the same usage for a program that asks for it.
 */
static void test_help(void **state)
{
	char out[4096];

	(void)state;
	assert_int_equal(in_child(child_help, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "Usage: prog"));
	assert_non_null(strstr(out, "-p, --pci-addr <val>"));
	assert_non_null(strstr(out, "--verbose"));
	assert_non_null(strstr(out, "(mandatory)"));
	assert_non_null(strstr(out, "--log-level"));
	assert_null(strstr(out, "--secret")); /* hidden */
	assert_int_equal(in_child(child_version, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "prog's own version 1.2"));
	assert_int_equal(in_child(child_usage, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "Usage: prog"));
	assert_non_null(strstr(out, "--verbose"));
}

/* --help names a flag whole, however long (the line was cut at 127 characters). */
static void test_help_long_name(void **state)
{
	char name[151], flag[200], out[4096];

	(void)state;
	memset(name, 'n', 150);
	name[150] = '\0';
	add(NULL, name, DOCA_ARGP_TYPE_INT, count_cb, 0);
	snprintf(flag, sizeof(flag), "--%s <val> desc of flag\n", name);
	assert_int_equal(in_child(child_help, out, sizeof(out)), 0);
	assert_non_null(strstr(out, flag));
	assert_non_null(
	        strstr(out, "  -p, --pci-addr <val>                   desc of flag (mandatory)\n"));
}

/* A bad flag is one line naming it and --help, never the usage (issue 29, item 5). */
static void test_unknown_flag_one_line(void **state)
{
	int fds[2], status;
	char err[4096] = { 0 };
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 2);
		_exit(START("-p", "a", "--bogus") == DOCA_ERROR_NOT_SUPPORTED ? 0 : 3);
	}
	close(fds[1]);
	while ((n = read(fds[0], err + got, sizeof(err) - 1 - got)) > 0)
		got += (size_t)n;
	close(fds[0]);
	waitpid(pid, &status, 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_string_equal(err, "prog: unknown option '--bogus' (see prog --help)\n");
}

static int logged;
static char last_line[256];
static void logger(enum doca_log_level level, const char *format, va_list args)
{
	(void)level;
	vsnprintf(last_line, sizeof(last_line), format, args);
	logged++;
}

static void test_logger_callback(void **state)
{
	(void)state;
	assert_ok(doca_argp_register_logger_callback(logger));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED, START("-p", "a", "--nope"));
	assert_true(logged >= 1);
	/* a log level that is no number is named as given (it was "-1 is not a log level") */
	assert_doca(DOCA_ERROR_INVALID_VALUE, START("-p", "a", "--sdk-log-level", "abc"));
	assert_string_equal(last_line,
	                    "--sdk-log-level: \"abc\" is not a log level; use 10, 20, ... 70");
	doca_argp_disable_logger_callback();
}

/*
 * A boolean flag alone is true; with a value, true/yes/1 and false/no/0 (any case) say which
 * (--verbose=no was taken for true); any other value is refused in one line.
 */
static void test_boolean_values(void **state)
{
	static const struct {
		char *arg; /* START's argv holds char * */
		bool want;
	} given[] = { { "--verbose", true },     { "--verbose=true", true },
		      { "--verbose=YES", true }, { "--verbose=1", true },
		      { "--verbose=no", false }, { "--verbose=false", false },
		      { "--verbose=No", false }, { "--verbose=0", false } };
	static char *const refused[] = { "--verbose=maybe", "--verbose=", "--verbose=2" };

	for (size_t i = 0; i < sizeof(given) / sizeof(given[0]); i++) {
		teardown(state);
		setup(state);
		cfg.verbose = !given[i].want;
		assert_ok(START("-p", "a", given[i].arg));
		if (cfg.verbose != given[i].want)
			fail_msg("%s gave %d", given[i].arg, cfg.verbose);
	}
	assert_ok(doca_argp_register_logger_callback(logger));
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		teardown(state);
		setup(state);
		logged = 0;
		assert_doca(DOCA_ERROR_INVALID_VALUE, START("-p", "a", refused[i]));
		assert_int_equal(logged, 1);
		assert_non_null(strstr(last_line, "is not a boolean"));
		assert_false(cfg.verbose);
	}
	doca_argp_disable_logger_callback();
}

/*
 * An integer flag reads decimal (leading zeros are decimal, not octal: 010 was 8 and 08 was
 * refused) or 0x hexadecimal, with a sign; a value outside int is refused in one line, never
 * wrapped.
 */
static void test_int_values(void **state)
{
	static const struct {
		char *arg; /* START's argv holds char * */
		int want;
	} given[] = { { "010", 10 },
		      { "08", 8 },
		      { "0x10", 16 },
		      { "0X1f", 31 },
		      { "-5", -5 },
		      { "-0x10", -16 },
		      { "2147483647", INT_MAX },
		      { "-2147483648", INT_MIN },
		      { "0", 0 } };
	static char *const refused[] = {
		"2147483648", "-2147483649", "0x80000000", "99999999999999999999", "0x", "1.5",
		"",           "12z",         "0b11"
	};

	for (size_t i = 0; i < sizeof(given) / sizeof(given[0]); i++) {
		teardown(state);
		setup(state);
		assert_ok(START("-p", "a", "-c", given[i].arg));
		if (cfg.count != given[i].want)
			fail_msg("-c %s gave %d", given[i].arg, cfg.count);
	}
	assert_ok(doca_argp_register_logger_callback(logger));
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		teardown(state);
		setup(state);
		logged = 0;
		assert_doca(DOCA_ERROR_INVALID_VALUE, START("-p", "a", "-c", refused[i]));
		if (logged != 1 || strstr(last_line, "count") == NULL || cfg.counts != 0)
			fail_msg("-c \"%s\": %d lines, \"%s\"", refused[i], logged, last_line);
	}
	doca_argp_disable_logger_callback();
}

static int refuse_at, refuse_calls; /* the callback call that refuses (1, 2, ...) */
static doca_error_t refuse_nth(void *p, void *c)
{
	(void)p;
	(void)c;
	return ++refuse_calls == refuse_at ? DOCA_ERROR_BAD_CONFIG : DOCA_SUCCESS;
}

/*
 * A callback that refuses a value from the JSON file costs one line naming the flag, as on the
 * command line, whatever the flag's type (an int, a boolean or a JSON object said nothing).
 */
static void test_json_callback_refuses(void **state)
{
	static const char *const flag[] = { "count", "verbose", "extra", "pci-addr" };

	assert_ok(doca_argp_register_logger_callback(logger));
	for (int i = 0; i < 4; i++) {
		teardown(state);
		assert_ok(doca_argp_init("prog", &cfg));
		add("c", "count", DOCA_ARGP_TYPE_INT, refuse_nth, 0);
		add(NULL, "verbose", DOCA_ARGP_TYPE_BOOLEAN, refuse_nth, 0);
		add("x", "extra", DOCA_ARGP_TYPE_JSON_OBJ, refuse_nth, 0);
		add("p", "pci-addr", DOCA_ARGP_TYPE_STRING, refuse_nth, 0);
		refuse_at = i + 1;
		refuse_calls = logged = 0;
		last_line[0] = '\0';
		assert_doca(DOCA_ERROR_BAD_CONFIG, START("--json", fixture("refused.json")));
		if (logged != 1 || strstr(last_line, flag[i]) == NULL)
			fail_msg("flag %s: %d lines, the last \"%s\"", flag[i], logged, last_line);
	}
	doca_argp_disable_logger_callback();
}

/* A second -j/--json is refused: the first file was silently not read. */
static void test_json_twice(void **state)
{
	char first[512];

	(void)state;
	snprintf(first, sizeof(first), "%s", fixture("good.json"));
	assert_doca(DOCA_ERROR_INVALID_VALUE, START("-j", first, "--json", fixture("second.json")));
	assert_int_equal(cfg.counts, 0);
	assert_ok(START("--json", fixture("second.json")));
	assert_string_equal(cfg.pci, "04:00.0");
	assert_ok(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_INFO));
}

/* An empty list in the JSON file gives a multi-value flag no value: a mandatory one is missing. */
static void test_json_empty_list(void **state)
{
	teardown(state);
	assert_ok(doca_argp_init("prog", &cfg));
	add("c", "count", DOCA_ARGP_TYPE_INT, count_cb, 1 | 2);
	assert_doca(DOCA_ERROR_INVALID_VALUE, START("--json", fixture("empty_list.json")));
	assert_int_equal(cfg.counts, 0);
	assert_ok(START("--json", fixture("empty_list.json"), "-c", "4"));
	assert_int_equal(cfg.counts, 1);
}

/*
 * JSON null is no value for a JSON-object flag, on the command line and in the file alike: one
 * line that says so (it said "is not valid JSON: success"), and the callback never gets the
 * NULL that json-c makes of it (the file handed it on).
 */
static void test_json_null_object(void **state)
{
	(void)state;
	assert_ok(doca_argp_register_logger_callback(logger));
	logged = 0;
	assert_doca(DOCA_ERROR_INVALID_VALUE, START("-p", "a", "-x", "null"));
	assert_int_equal(logged, 1);
	if (strstr(last_line, "null") == NULL || strstr(last_line, "success") != NULL)
		fail_msg("the line was \"%s\"", last_line);
	logged = 0;
	assert_doca(DOCA_ERROR_INVALID_VALUE, START("--json", fixture("null_object.json")));
	assert_int_equal(logged, 1);
	assert_non_null(strstr(last_line, "extra"));
	assert_int_equal(cfg.extra_null, 0);
	doca_argp_disable_logger_callback();
}

/*
 * The "doca_dpdk_flags" section of a JSON file (NVIDIA's DPDK applications ship one, with
 * comments and trailing commas) becomes the DPDK program's argv, ahead of the EAL flags before
 * "--" (DOCA's order: EAL flags, "--", then -j FILE among the DOCA flags): devices as -a (sf
 * as its auxiliary name, hws as dv_flow_en=2), core-mask as -c in hex, core-list as -l, and
 * the words of "flags". Without a DPDK program the section is ignored. The whole file was
 * refused ("JSON section is unknown").
 */
static void test_json_dpdk_flags(void **state)
{
	(void)state;
	doca_argp_set_dpdk_program(dpdk_all_cb);
	assert_ok(START("--no-pci", "--", "-j", fixture("dpdk_flags.json")));
	assert_string_equal(cfg.dpdk_all, "prog -a 0000:08:00.0,dv_flow_en=2 "
	                                  "-a auxiliary:mlx5_core.sf.4 -a b1:00.3 "
	                                  "-c 0x1a -l 0-1 --file-prefix odma -n 4 --no-pci");
	assert_int_equal(cfg.dpdk_argc, 16);
	assert_string_equal(cfg.pci, "03:00.0");
	teardown(state);
	setup(state);
	assert_ok(START("-j", fixture("dpdk_flags.json"))); /* no DPDK program: ignored */
	assert_string_equal(cfg.pci, "03:00.0");
	assert_int_equal(cfg.dpdk_argc, 0);
	assert_ok(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_INFO));
}

/* Writes @text to a new file under /tmp; returns its path (static). */
static const char *temp_json(const char *text)
{
	static char path[64];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/tmp/odma-argp-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/*
 * The EAL flags a file may give are bounded: 1024 words pass, one more is refused in one line
 * (a 16 MiB file of "a a a ..." held 8 million strings, about 400 MB).
 */
static void test_json_dpdk_flags_bound(void **state)
{
	static char text[8192];
	const char *path;
	doca_error_t rc;
	size_t used;

	(void)state;
	assert_ok(doca_argp_register_logger_callback(logger));
	for (int words = 1024; words <= 1025; words++) {
		teardown(state);
		setup(state);
		doca_argp_set_dpdk_program(dpdk_all_cb);
		used = (size_t)snprintf(text, sizeof(text),
		                        "{ \"doca_dpdk_flags\": { \"flags\": \"");
		for (int i = 0; i < words; i++)
			used += (size_t)snprintf(text + used, sizeof(text) - used, "a ");
		snprintf(text + used, sizeof(text) - used,
		         "\" }, \"doca_program_flags\": { \"pci-addr\": \"a\" } }");
		path = temp_json(text);
		logged = 0;
		rc = doca_argp_start(3, (char *[]){ "prog", "-j", (char *)path, NULL });
		unlink(path);
		assert_doca(words == 1024 ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE, rc);
		assert_int_equal(logged, words == 1024 ? 0 : 1);
		assert_int_equal(cfg.dpdk_argc, words == 1024 ? 1025 : 0);
	}
	doca_argp_disable_logger_callback();
}

/* A "doca_dpdk_flags" section odma cannot turn into EAL flags costs one line and the code. */
static void test_json_dpdk_flags_bad(void **state)
{
	static const struct {
		const char *section;
		doca_error_t want;
	} bad[] = {
		{ "{ \"bogus\": 1 }", DOCA_ERROR_NOT_SUPPORTED },
		{ "[]", DOCA_ERROR_INVALID_VALUE },
		{ "{ \"devices\": {} }", DOCA_ERROR_INVALID_VALUE },
		{ "{ \"devices\": [ 5 ] }", DOCA_ERROR_INVALID_VALUE },
		{ "{ \"devices\": [ { \"device\": \"regex\", \"id\": \"1\" } ] }",
		  DOCA_ERROR_INVALID_VALUE },
		{ "{ \"devices\": [ { \"device\": \"pf\" } ] }", DOCA_ERROR_INVALID_VALUE },
		{ "{ \"devices\": [ { \"device\": \"pf\", \"id\": \"1\", \"hws\": 1 } ] }",
		  DOCA_ERROR_INVALID_VALUE },
		{ "{ \"devices\": [ { \"device\": \"pf\", \"id\": \"1\", \"x\": 1 } ] }",
		  DOCA_ERROR_NOT_SUPPORTED },
		{ "{ \"core-list\": 5 }", DOCA_ERROR_INVALID_VALUE },
		{ "{ \"core-mask\": -1 }", DOCA_ERROR_INVALID_VALUE },
		{ "{ \"core-mask\": \"3\" }", DOCA_ERROR_INVALID_VALUE },
		{ "{ \"flags\": [ \"-n\" ] }", DOCA_ERROR_INVALID_VALUE },
	};
	char text[256];
	const char *path;
	doca_error_t rc;

	(void)state;
	assert_ok(doca_argp_register_logger_callback(logger));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		teardown(state);
		setup(state);
		doca_argp_set_dpdk_program(dpdk_all_cb);
		snprintf(text, sizeof(text),
		         "{ \"doca_dpdk_flags\": %s, "
		         "\"doca_program_flags\": { \"pci-addr\": \"a\" } }",
		         bad[i].section);
		path = temp_json(text);
		logged = 0;
		rc = doca_argp_start(3, (char *[]){ "prog", "-j", (char *)path, NULL });
		unlink(path);
		if (rc != bad[i].want || logged != 1 || cfg.dpdk_argc != 0)
			fail_msg("%s: %d lines (\"%s\"), dpdk argc %d", bad[i].section, logged,
			         last_line, cfg.dpdk_argc);
	}
	doca_argp_disable_logger_callback();
}

/*
 * A known section that is not an object is a value of the wrong type: INVALID_VALUE and one
 * line naming the section (it was NOT_SUPPORTED, "JSON section ... is unknown").
 */
static void test_json_section_not_object(void **state)
{
	static const char *const section[] = { "doca_general_flags", "doca_program_flags" };
	static const char *const value[] = { "5", "[]", "\"x\"", "null" };
	char text[128];
	const char *path;
	doca_error_t rc;

	assert_ok(doca_argp_register_logger_callback(logger));
	for (size_t i = 0; i < 2 * 4; i++) {
		teardown(state);
		setup(state);
		snprintf(text, sizeof(text), "{ \"%s\": %s }", section[i / 4], value[i % 4]);
		path = temp_json(text);
		logged = 0;
		rc = doca_argp_start(3, (char *[]){ "prog", "-j", (char *)path, NULL });
		unlink(path);
		if (rc != DOCA_ERROR_INVALID_VALUE || logged != 1 ||
		    strstr(last_line, section[i / 4]) == NULL ||
		    strstr(last_line, "unknown") != NULL)
			fail_msg("%s: %d lines, \"%s\"", text, logged, last_line);
	}
	doca_argp_disable_logger_callback();
}

static int null_config_calls;
static doca_error_t validate_null_config(void *c)
{
	null_config_calls += c == NULL ? 1 : 100;
	return DOCA_SUCCESS;
}

/*
 * doca_argp_init(NULL, NULL) is legal [decided, not a hole]: NVIDIA's flow and telemetry
 * samples (44 programs in doca-samples 3.0-3.3) call it for a program without flags, and a
 * program correct on DOCA must run unchanged. The name then comes from argv[0] and every
 * callback receives the NULL config.
 */
static void test_init_null_null(void **state)
{
	(void)state;
	null_config_calls = 0;
	assert_ok(doca_argp_init(NULL, NULL));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_argp_init(NULL, NULL));
	assert_ok(doca_argp_register_validation_callback(validate_null_config));
	assert_ok(doca_argp_start(1, (char *[]){ "prog", NULL }));
	assert_int_equal(null_config_calls, 1);
	assert_ok(doca_argp_destroy());
	assert_doca(DOCA_ERROR_BAD_STATE, doca_argp_destroy());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_all_types, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_register_twice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_trailing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_levels_and_dpdk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dpdk_eal_before_dashdash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_help, setup, teardown),
		cmocka_unit_test_setup_teardown(test_help_long_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_flag_one_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_logger_callback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_boolean_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_int_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_callback_refuses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_empty_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_twice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_null_object, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_fifo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_dpdk_flags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_dpdk_flags_bad, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_dpdk_flags_bound, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_section_not_object, setup, teardown),
		cmocka_unit_test(test_init_null_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
