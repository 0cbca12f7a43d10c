/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Black-box tests of doca_log.h: backends, limits, SDK filtering, rate limiting, defaults. */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doca_log.h>

#include "test_util.h"

DOCA_LOG_REGISTER(TEST_LOG);

/* Exported by libdoca_common for the odma libraries; declared here to act as one. */
doca_error_t doca_priv_log_register_sdk_source(const char *name, int *source);

#define MAX_LINES 64
static char app_buf[512], sdk_buf[512];
static char app_lines[MAX_LINES][512], sdk_lines[MAX_LINES][512];
static int app_count, sdk_count;
static struct doca_log_backend *app_be, *sdk_be;
static int sdk_source = -1;

static void app_flush(char *buf)
{
	if (app_count < MAX_LINES)
		snprintf(app_lines[app_count], sizeof(app_lines[0]), "%s", buf);
	app_count++;
}

static void sdk_flush(char *buf)
{
	if (sdk_count < MAX_LINES)
		snprintf(sdk_lines[sdk_count], sizeof(sdk_lines[0]), "%s", buf);
	sdk_count++;
}

static int reset(void **state)
{
	(void)state;
	app_count = sdk_count = 0;
	assert_ok(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_INFO));
	assert_ok(doca_log_level_set_global_upper_limit(DOCA_LOG_LEVEL_CRIT));
	assert_ok(doca_log_backend_set_level_lower_limit(app_be, DOCA_LOG_LEVEL_INFO));
	assert_ok(doca_log_backend_set_level_upper_limit(app_be, DOCA_LOG_LEVEL_CRIT));
	return 0;
}

static int side_effects;
static __attribute__((unused)) int bump(void)
{
	return ++side_effects;
}

static void test_buffer_backend_format(void **state)
{
	(void)state;
	DOCA_LOG_INFO("hello %d", 42);
	assert_int_equal(app_count, 1);
	assert_non_null(strstr(app_lines[0], "][INFO][TEST_LOG][test_buffer_backend_format:"));
	assert_non_null(strstr(app_lines[0], "] hello 42\n"));
	assert_int_equal(app_lines[0][0], '[');
	assert_int_equal(strchr(app_lines[0], '\n') - app_lines[0], strlen(app_lines[0]) - 1);
}

static void test_levels_and_backend_limits(void **state)
{
	(void)state;
	DOCA_LOG_DBG("filtered");
	assert_int_equal(app_count, 0);
	assert_ok(doca_log_backend_set_level_lower_limit(app_be, DOCA_LOG_LEVEL_DEBUG));
	DOCA_LOG_DBG("shown");
	assert_int_equal(app_count, 1);
	/* Upper limit ERROR: CRIT is too severe for this backend. */
	assert_ok(doca_log_backend_set_level_upper_limit(app_be, DOCA_LOG_LEVEL_ERROR));
	DOCA_LOG_CRIT("too severe");
	DOCA_LOG_ERR("in range");
	assert_int_equal(app_count, 2);
	assert_non_null(strstr(app_lines[1], "[ERROR]"));
}

static void test_global_vs_strict(void **state)
{
	static char buf[256];
	struct doca_log_backend *strict;
	int before;

	(void)state;
	assert_ok(doca_log_backend_create_with_buf(buf, sizeof(buf), app_flush, &strict));
	assert_ok(doca_log_backend_set_level_lower_limit_strict(strict, DOCA_LOG_LEVEL_ERROR));
	assert_ok(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_DEBUG));
	assert_int_equal(doca_log_level_get_global_lower_limit(), DOCA_LOG_LEVEL_DEBUG);
	before = app_count;
	DOCA_LOG_DBG("debug"); /* app_be follows the global limit, the strict one does not */
	assert_int_equal(app_count, before + 1);
	DOCA_LOG_ERR("error"); /* both */
	assert_int_equal(app_count, before + 3);
	assert_ok(doca_log_backend_set_level_upper_limit_strict(strict, DOCA_LOG_LEVEL_DISABLE));
	assert_ok(doca_log_level_set_global_upper_limit(DOCA_LOG_LEVEL_ERROR));
	assert_int_equal(doca_log_level_get_global_upper_limit(), DOCA_LOG_LEVEL_ERROR);
	DOCA_LOG_CRIT("crit"); /* only the strict backend (upper DISABLE) shows it */
	assert_int_equal(app_count, before + 4);
	/* Leave the strict backend silent for the other tests. */
	assert_ok(doca_log_backend_set_level_lower_limit_strict(strict, DOCA_LOG_LEVEL_DISABLE));
}

static void test_sdk_vs_app(void **state)
{
	(void)state;
	assert_ok(doca_log(DOCA_LOG_LEVEL_WARNING, sdk_source, __FILE__, __LINE__, __func__,
	                   "sdk warn"));
	DOCA_LOG_WARN("app warn");
	assert_int_equal(sdk_count, 1);
	assert_int_equal(app_count, 1);
	assert_non_null(strstr(sdk_lines[0], "[TEST_SDK]"));
	assert_non_null(strstr(app_lines[0], "app warn"));
	/* The SDK level filters library messages independently of the application limits. */
	assert_ok(doca_log_backend_set_sdk_level(sdk_be, DOCA_LOG_LEVEL_ERROR));
	assert_ok(doca_log(DOCA_LOG_LEVEL_WARNING, sdk_source, NULL, 1, NULL, "hidden"));
	assert_int_equal(sdk_count, 1);
	assert_ok(doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_DEBUG));
	assert_int_equal(doca_log_level_get_global_sdk_limit(), DOCA_LOG_LEVEL_DEBUG);
	assert_ok(doca_log(DOCA_LOG_LEVEL_DEBUG, sdk_source, NULL, 1, NULL, "sdk debug"));
	assert_int_equal(sdk_count, 2);
	assert_int_equal(app_count, 1);
	assert_ok(doca_log_backend_set_sdk_level(sdk_be, DOCA_LOG_LEVEL_INFO));
}

static void test_file_backend(void **state)
{
	char *mem = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);
	struct doca_log_backend *be;

	(void)state;
	assert_non_null(f);
	assert_ok(doca_log_backend_create_with_file(f, &be));
	DOCA_LOG_INFO("to file %s", "x");
	assert_non_null(strstr(mem, "to file x\n"));
	assert_ok(doca_log_backend_set_level_lower_limit_strict(be, DOCA_LOG_LEVEL_DISABLE));
	DOCA_LOG_ERR("not in file");
	assert_null(strstr(mem, "not in file"));
	/* The stream stays registered for the process lifetime, so it is not closed here. */
}

static void test_fd_backend_and_sdk_variants(void **state)
{
	int fds[2], sfds[2];
	char out[512] = { 0 };
	struct doca_log_backend *be, *sbe;
	ssize_t n;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(pipe(sfds), 0);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	fcntl(sfds[0], F_SETFL, O_NONBLOCK);
	assert_ok(doca_log_backend_create_with_fd(fds[1], &be));
	assert_ok(doca_log_backend_create_with_fd_sdk(sfds[1], &sbe));
	DOCA_LOG_WARN("via fd");
	assert_ok(doca_log(DOCA_LOG_LEVEL_ERROR, sdk_source, NULL, 7, "f", "sdk via fd"));
	n = read(fds[0], out, sizeof(out) - 1);
	assert_true(n > 0);
	assert_non_null(strstr(out, "via fd\n"));
	assert_null(strstr(out, "sdk via fd"));
	memset(out, 0, sizeof(out));
	n = read(sfds[0], out, sizeof(out) - 1);
	assert_true(n > 0);
	assert_non_null(strstr(out, "[ERROR][TEST_SDK][f:7] sdk via fd\n"));
	assert_ok(doca_log_backend_set_level_lower_limit_strict(be, DOCA_LOG_LEVEL_DISABLE));
	assert_ok(doca_log_backend_set_sdk_level(sbe, DOCA_LOG_LEVEL_DISABLE));
}

static void test_file_sdk_and_syslog(void **state)
{
	char *mem = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);
	struct doca_log_backend *be, *sl, *sls;
	static char small[8];

	(void)state;
	assert_ok(doca_log_backend_create_with_file_sdk(f, &be));
	assert_ok(doca_log(DOCA_LOG_LEVEL_ERROR, sdk_source, NULL, 1, "g", "sdk to file"));
	assert_non_null(strstr(mem, "sdk to file"));
	assert_ok(doca_log_backend_set_sdk_level(be, DOCA_LOG_LEVEL_DISABLE));
	/* syslog output cannot be read back portably; creation and a message must work. */
	assert_ok(doca_log_backend_create_with_syslog("odma-test", &sl));
	assert_ok(doca_log_backend_create_with_syslog_sdk("odma-test", &sls));
	assert_ok(doca_log_backend_set_level_lower_limit_strict(sl, DOCA_LOG_LEVEL_DISABLE));
	assert_ok(doca_log_backend_set_sdk_level(sls, DOCA_LOG_LEVEL_DISABLE));
	/* A buffer smaller than the line truncates it and still NUL-terminates. */
	assert_ok(doca_log_backend_create_with_buf_sdk(small, sizeof(small), sdk_flush, &be));
	sdk_count = 0;
	assert_ok(doca_log(DOCA_LOG_LEVEL_ERROR, sdk_source, NULL, 1, "g", "long message"));
	assert_int_equal(sdk_count, 2);
	assert_int_equal(strlen(sdk_lines[1]), sizeof(small) - 1);
	assert_ok(doca_log_backend_set_sdk_level(be, DOCA_LOG_LEVEL_DISABLE));
}

static void test_bad_arguments(void **state)
{
	struct doca_log_backend *be = (struct doca_log_backend *)0x1;
	char buf[16];
	int id = 12345;

	(void)state;
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_log_register_source(NULL, &id));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_log_register_source("X", NULL));
	assert_int_equal(id, 12345);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_log_unregister_source(-1));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_log(DOCA_LOG_LEVEL_INFO, 99999, NULL, 0, NULL, "x"));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_log(5, log_source, NULL, 0, NULL, "x"));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_log(71, log_source, NULL, 0, NULL, "x"));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_log_backend_create_with_file(NULL, &be));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_log_backend_create_with_file(stderr, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_log_backend_create_with_fd(-1, &be));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_log_backend_create_with_buf(buf, 1, app_flush, &be));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_log_backend_create_with_buf(buf, 16, NULL, &be));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_log_backend_create_with_syslog(NULL, &be));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_log_backend_create_with_fd_sdk(-3, &be));
	assert_ptr_equal(be, (struct doca_log_backend *)0x1);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_log_backend_set_level_lower_limit(NULL, 50));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_log_backend_set_level_lower_limit(app_be, 55));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_log_backend_set_level_upper_limit_strict(sdk_be, 50));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_log_backend_set_sdk_level(app_be, 50));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_log_level_set_global_lower_limit(0));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_log_level_set_global_upper_limit(80));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_log_level_set_global_sdk_limit(1000));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_log_rate_bucket_register(log_source, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_log_rate_limit(DOCA_LOG_LEVEL_ERROR, log_source,
	                                                          NULL, 0, NULL, 99999, "x"));
}

static struct doca_log_backend *reenter_be;
static uint32_t reenter_level;
static doca_error_t reenter_rc = DOCA_ERROR_UNKNOWN;

/* A flush callback that asks the log for its limits and changes its own backend. */
static void reenter_flush(char *buf)
{
	(void)buf;
	reenter_level = doca_log_level_get_global_lower_limit();
	reenter_rc = doca_log_backend_set_level_lower_limit(reenter_be, DOCA_LOG_LEVEL_DEBUG);
}

/* Calls into the log from a flush callback return (SIGALRM ends a hang on the log lock). */
static void test_flush_callback_calls_log(void **state)
{
	static char line[256];

	(void)state;
	assert_ok(doca_log_backend_create_with_buf(line, sizeof(line), reenter_flush, &reenter_be));
	alarm(5);
	DOCA_LOG_WARN("into a flush callback that calls back");
	alarm(0);
	assert_int_equal(reenter_level, DOCA_LOG_LEVEL_INFO);
	assert_ok(reenter_rc);
	DOCA_LOG_DBG("now shown by that backend");
	assert_non_null(strstr(line, "now shown by that backend"));
	assert_ok(
	        doca_log_backend_set_level_lower_limit_strict(reenter_be, DOCA_LOG_LEVEL_DISABLE));
}

static void test_unregister_source(void **state)
{
	int id, i;

	(void)state;
	assert_ok(doca_log_register_source("TEMP", &id));
	assert_ok(doca_log(DOCA_LOG_LEVEL_INFO, id, NULL, 0, NULL, "temp"));
	assert_int_equal(app_count, 1);
	assert_non_null(strstr(app_lines[0], "[TEMP]"));
	assert_ok(doca_log_unregister_source(id));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_log(DOCA_LOG_LEVEL_INFO, id, NULL, 0, NULL, "x"));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_log_unregister_source(id));
	/* An SDK source stays: its library goes on logging. */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_log_unregister_source(sdk_source));
	assert_ok(doca_log(DOCA_LOG_LEVEL_ERROR, sdk_source, NULL, 0, NULL, "sdk still here"));
	/* Unregistering frees the slot: a source added and removed 2048 times never runs out. */
	for (i = 0; i < 2048; i++) {
		assert_ok(doca_log_register_source("CYCLE", &id));
		assert_ok(doca_log_unregister_source(id));
	}
	assert_ok(doca_log_register_source("AGAIN", &id));
	assert_ok(doca_log(DOCA_LOG_LEVEL_INFO, id, NULL, 0, NULL, "again"));
	assert_non_null(strstr(app_lines[1], "[AGAIN]"));
	assert_ok(doca_log_unregister_source(id));
}

static void test_rate_limit(void **state)
{
	int i;

	(void)state;
	assert_int_equal(doca_log_get_quantity(), 10);
	assert_int_equal(doca_log_get_bucket_time(), 1);
	/* One hour per refill: within the test no token comes back. */
	doca_log_set_bucket_time(3600);
	doca_log_set_quantity(3);
	assert_int_equal(doca_log_get_quantity(), 3);
	assert_int_equal(doca_log_get_bucket_time(), 3600);
	for (i = 0; i < 20; i++)
		DOCA_LOG_RATE_LIMIT_ERR("burst %d", i);
	assert_int_equal(app_count, 3);
	assert_non_null(strstr(app_lines[2], "burst 2\n"));
	/* Filtered messages take no token from their own bucket. */
	for (i = 0; i < 5; i++)
		DOCA_LOG_RATE_LIMIT_DBG("filtered %d", i);
	assert_int_equal(app_count, 3);
	assert_ok(doca_log_backend_set_level_lower_limit(app_be, DOCA_LOG_LEVEL_DEBUG));
	for (i = 0; i < 5; i++)
		DOCA_LOG_RATE_LIMIT_DBG("debug %d", i);
	assert_int_equal(app_count, 6);
	DOCA_LOG_RATE_LIMIT_TRC("never %d", bump());
	doca_log_set_quantity(10);
	doca_log_set_bucket_time(0);
	assert_int_equal(doca_log_get_bucket_time(), 1);
}

/* A line longer than the line limit is cut in its message, never in the count of drops. */
static char long_buf[4096];
static char long_last[4096];
static int long_count;

static void long_flush(char *buf)
{
	snprintf(long_last, sizeof(long_last), "%s", buf);
	long_count++;
}

static void test_long_line_keeps_dropped_count(void **state)
{
	static char big[10000];
	struct doca_log_backend *be;
	size_t n;

	(void)state;
	memset(big, 'a', sizeof(big) - 1);
	assert_ok(doca_log_backend_create_with_buf(long_buf, sizeof(long_buf), long_flush, &be));
	doca_log_set_bucket_time(3600); /* no token comes back during the burst */
	doca_log_set_quantity(1);
	for (int i = 0; i < 4; i++) {
		if (i == 3) { /* a token comes back for the last one, which counts two drops */
			doca_log_set_bucket_time(1);
			usleep(1200 * 1000);
		}
		DOCA_LOG_RATE_LIMIT_ERR("long %s", big);
	}
	assert_int_equal(long_count, 2);
	n = strlen(long_last);
	assert_true(n < 2048);
	assert_non_null(strstr(long_last, "long aaaa"));
	assert_string_equal(long_last + n - strlen(" (2 similar messages dropped)\n"),
	                    " (2 similar messages dropped)\n");
	doca_log_set_quantity(10);
	doca_log_set_bucket_time(1);
}

static void test_trace_compiled_out(void **state)
{
	(void)state;
	assert_ok(doca_log_backend_set_level_lower_limit(app_be, DOCA_LOG_LEVEL_TRACE));
	DOCA_LOG_TRC("trace %d", bump());
	assert_int_equal(side_effects, 0);
	assert_int_equal(app_count, 0);
	/* The level itself works when called directly. */
	assert_ok(doca_log(DOCA_LOG_LEVEL_TRACE, log_source, NULL, 0, NULL, "direct trace"));
	assert_int_equal(app_count, 1);
	assert_non_null(strstr(app_lines[0], "[TRACE]"));
}

static void *thread_main(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 200; i++)
		DOCA_LOG_DBG("filtered in thread %d", i);
	for (i = 0; i < 10; i++)
		DOCA_LOG_ERR("thread line %d", i);
	return NULL;
}

static void test_threads(void **state)
{
	pthread_t t[4];
	int i;

	(void)state;
	for (i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, thread_main, NULL), 0);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(app_count, 40);
}

static atomic_bool spam_stop;

static void *spam_main(void *arg)
{
	(void)arg;
	while (!atomic_load(&spam_stop))
		DOCA_LOG_INFO("spam");
	return NULL;
}

/*
 * A fork while other threads log leaves the child able to log: each child writes one line
 * within 2 s (SIGALRM kills a child that hangs on a lock copied while held: the log's own, or
 * the one glibc's localtime_r takes).
 */
static void test_fork_while_logging(void **state)
{
	pthread_t t[2];
	int i, status, hung = 0;
	pid_t pid;

	(void)state;
	atomic_store(&spam_stop, false);
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, spam_main, NULL), 0);
	for (i = 0; i < 40 && hung == 0; i++) {
		pid = fork();
		if (pid == 0) {
			alarm(2);
			DOCA_LOG_INFO("child line");
			_exit(0);
		}
		assert_true(pid > 0);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		hung += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	atomic_store(&spam_stop, true);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(hung, 0);
}

/*
 * Runs this binary again with @p mode and @p env_level, returning what it wrote to stdout+stderr.
 */
static int run_child(const char *mode, const char *env_level, char *out, size_t size)
{
	char self[4096];
	int fds[2], status;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	/* the program's path, not /proc/self/exe: under qemu-user that is the emulator itself */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = '\0';
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		if (env_level != NULL)
			setenv("DOCA_LOG_LEVEL", env_level, 1);
		else
			unsetenv("DOCA_LOG_LEVEL");
		tu_execv(self, (char *const[]){ "test_log", (char *)mode, NULL });
		_exit(99);
	}
	close(fds[1]);
	while (got < size - 1 && (n = read(fds[0], out + got, size - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	close(fds[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_defaults_before_backends(void **state)
{
	char out[4096];

	(void)state;
	assert_int_equal(run_child("--child-defaults", NULL, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "app info"));
	assert_null(strstr(out, "app debug"));
	assert_non_null(strstr(out, "sdk warning"));
	assert_null(strstr(out, "sdk info"));
}

static void test_env_log_level(void **state)
{
	char out[4096];

	(void)state;
	assert_int_equal(run_child("--child-env", "debug", out, sizeof(out)), DOCA_LOG_LEVEL_DEBUG);
	assert_non_null(strstr(out, "sdk debug"));
	assert_int_equal(run_child("--child-env", "ERROR", out, sizeof(out)), DOCA_LOG_LEVEL_ERROR);
	assert_null(strstr(out, "sdk warning"));
	assert_int_equal(run_child("--child-env", "40", out, sizeof(out)), DOCA_LOG_LEVEL_WARNING);
	/* A bad value is reported and ignored: the default INFO stays. */
	assert_int_equal(run_child("--child-env", "loud", out, sizeof(out)), DOCA_LOG_LEVEL_INFO);
	assert_non_null(strstr(out, "DOCA_LOG_LEVEL"));
}

/* How many times @needle occurs in @hay. */
static int count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(hay, needle); p != NULL; p = strstr(p + 1, needle))
		n++;
	return n;
}

/*
 * The standard backend (stdout for the lower levels, stderr for warnings and above) prints
 * each line once; asking for it twice adds no second pair.
 */
static void test_standard_backend(void **state)
{
	char out[4096];

	(void)state;
	assert_int_equal(run_child("--child-standard", NULL, out, sizeof(out)), 0);
	assert_int_equal(count_of(out, "std info line"), 1);
	assert_int_equal(count_of(out, "std error line"), 1);
}

/*
 * Each of the log's tables (sources, rate buckets, backends) refuses one more entry with
 * DOCA_ERROR_NO_MEMORY and a line saying so; in a child of its own, since the tables stay full.
 */
static void test_tables_full(void **state)
{
	char out[4096];

	(void)state;
	assert_int_equal(run_child("--child-full", NULL, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "all 1024 log sources are in use"));
	assert_non_null(strstr(out, "all 4096 buckets are in use"));
	assert_non_null(strstr(out, "no room for another backend (at most 64)"));
}

static void to_stderr(char *buf)
{
	fputs(buf, stderr);
}

/*
 * At the 64-backend limit the standard backend is refused with DOCA_ERROR_NO_MEMORY and one
 * line each time, and is not marked created by a refusal (a second call returned success).
 */
static void test_standard_at_limit(void **state)
{
	char out[4096];

	(void)state;
	assert_int_equal(run_child("--child-standard-full", NULL, out, sizeof(out)), 0);
	assert_int_equal(count_of(out, "no room for its two backends"), 3);
}

/*
 * With all 4096 rate-limit buckets in use, a new DOCA_LOG_RATE_LIMIT call site still logs
 * (its messages were rejected): such sites share one bucket, so of six messages from two
 * sites under a quantity of 4, the first four show; the table-full line is said once.
 */
static void test_rate_overflow(void **state)
{
	char out[8192];

	(void)state;
	assert_int_equal(run_child("--child-overflow", NULL, out, sizeof(out)), 0);
	assert_int_equal(count_of(out, "all 4096 buckets are in use"), 1);
	assert_int_equal(count_of(out, "overflow site"), 4);
	assert_non_null(strstr(out, "overflow site one 0"));
	assert_non_null(strstr(out, "overflow site two 1"));
	assert_null(strstr(out, "rejected a message"));
}

/*
 * A file whose DOCA_LOG_REGISTER found the source table full (a program of more files than
 * the table holds) keeps logging: its lines print under the source name UNREGISTERED, plain
 * and rate-limited, not rejected; the table-full line names the size; the macro's destructor
 * (unregistering source -1) adds no line at exit.
 */
static void test_unregistered_source_logs(void **state)
{
	char out[8192];

	(void)state;
	assert_int_equal(run_child("--child-unregistered", NULL, out, sizeof(out)), 0);
	assert_int_equal(count_of(out, "all 1024 log sources are in use"), 1);
	assert_int_equal(count_of(out, "[UNREGISTERED][unregistered_source:"), 3);
	assert_int_equal(count_of(out, "unregistered line 1"), 1);
	assert_int_equal(count_of(out, "unregistered rate line"), 2);
	assert_null(strstr(out, "rejected a message"));
	assert_null(strstr(out, "not a registered application source"));
}

/* The child of test_tables_full: 0 when each table refused exactly at its end. */
static int fill_tables(void)
{
	static char sdk_line[512], app_line[512];
	struct doca_log_backend *be;
	int id = -1, next, bucket;
	doca_error_t r;

	if (doca_log_backend_create_with_buf_sdk(sdk_line, sizeof(sdk_line), to_stderr, &be) !=
	    DOCA_SUCCESS)
		return 2;
	while ((r = doca_log_register_source("FILL", &next)) == DOCA_SUCCESS)
		id = next;
	if (r != DOCA_ERROR_NO_MEMORY || id < 0)
		return 3;
	while ((r = doca_log_rate_bucket_register(id, &bucket)) == DOCA_SUCCESS)
		;
	if (r != DOCA_ERROR_NO_MEMORY)
		return 4;
	while ((r = doca_log_backend_create_with_buf(app_line, sizeof(app_line), to_stderr, &be)) ==
	       DOCA_SUCCESS)
		;
	return r == DOCA_ERROR_NO_MEMORY ? 0 : 5;
}

/*
 * The child of test_rate_overflow: fills the bucket table, then logs three messages from each
 * of two call sites that found no bucket, under a quantity of 4 that no refill adds to.
 */
static int rate_overflow(void)
{
	static char sdk_line[512], app_line[512];
	struct doca_log_backend *be;
	int bucket, n = 0;

	if (doca_log_backend_create_with_buf_sdk(sdk_line, sizeof(sdk_line), to_stderr, &be) !=
	            DOCA_SUCCESS ||
	    doca_log_backend_create_with_buf(app_line, sizeof(app_line), to_stderr, &be) !=
	            DOCA_SUCCESS)
		return 2;
	while (doca_log_rate_bucket_register(log_source, &bucket) == DOCA_SUCCESS)
		n++;
	if (n != 4096)
		return 3;
	doca_log_set_bucket_time(3600);
	doca_log_set_quantity(4);
	for (int i = 0; i < 3; i++) {
		DOCA_LOG_RATE_LIMIT_INFO("overflow site one %d", i);
		DOCA_LOG_RATE_LIMIT_INFO("overflow site two %d", i);
	}
	return 0;
}

/*
 * The child of test_standard_at_limit: with one slot left, the standard backend (two
 * halves) is refused, leaves the slot free and is refused again, not taken for created.
 */
static int standard_at_limit(void)
{
	static char line[512];
	struct doca_log_backend *be;

	for (int i = 0; i < 63; i++)
		if (doca_log_backend_create_with_buf(line, sizeof(line), to_stderr, &be) !=
		    DOCA_SUCCESS)
			return 2;
	if (doca_log_backend_create_standard() != DOCA_ERROR_NO_MEMORY)
		return 3;
	if (doca_log_backend_create_standard() != DOCA_ERROR_NO_MEMORY)
		return 4; /* it was: DOCA_SUCCESS, with only its stdout half (or none) in place */
	if (doca_log_backend_create_with_buf(line, sizeof(line), to_stderr, &be) != DOCA_SUCCESS)
		return 5; /* the refused standard backend left the last slot free */
	return doca_log_backend_create_standard() == DOCA_ERROR_NO_MEMORY ? 0 : 6;
}

/*
 * The child of test_unregistered_source_logs: fills the source table, then logs as a file
 * whose DOCA_LOG_REGISTER constructor was refused does (its log_source stays -1).
 */
static int unregistered_source(void)
{
	static char sdk_line[512], app_line[512];
	struct doca_log_backend *be;
	int next, bucket = -1;
	doca_error_t r;

	if (doca_log_backend_create_with_buf_sdk(sdk_line, sizeof(sdk_line), to_stderr, &be) !=
	            DOCA_SUCCESS ||
	    doca_log_backend_create_with_buf(app_line, sizeof(app_line), to_stderr, &be) !=
	            DOCA_SUCCESS)
		return 2;
	while ((r = doca_log_register_source("FILL", &next)) == DOCA_SUCCESS)
		;
	if (r != DOCA_ERROR_NO_MEMORY)
		return 3;
	if (doca_log(DOCA_LOG_LEVEL_ERROR, -1, __FILE__, __LINE__, __func__, "unregistered line %d",
	             1) != DOCA_SUCCESS)
		return 4;
	(void)doca_log_rate_bucket_register(-1, &bucket);
	for (int i = 0; i < 2; i++)
		if (doca_log_rate_limit(DOCA_LOG_LEVEL_ERROR, -1, __FILE__, __LINE__, __func__,
		                        bucket, "unregistered rate line") != DOCA_SUCCESS)
			return 5;
	/* what DOCA_LOG_REGISTER's destructor does at exit: refused, without a line */
	return doca_log_unregister_source(-1) == DOCA_ERROR_INVALID_VALUE ? 0 : 6;
}

static int child_main(const char *mode)
{
	int sdk;

	if (strcmp(mode, "--child-full") == 0)
		return fill_tables();
	if (strcmp(mode, "--child-overflow") == 0)
		return rate_overflow();
	if (strcmp(mode, "--child-standard-full") == 0)
		return standard_at_limit();
	if (strcmp(mode, "--child-unregistered") == 0)
		return unregistered_source();

	if (strcmp(mode, "--child-standard") == 0) {
		if (doca_log_backend_create_standard() != DOCA_SUCCESS ||
		    doca_log_backend_create_standard() != DOCA_SUCCESS)
			return 2;
		DOCA_LOG_INFO("std info line");
		DOCA_LOG_ERR("std error line");
		return 0;
	}

	doca_priv_log_register_sdk_source("CHILD_SDK", &sdk);
	DOCA_LOG_INFO("app info");
	DOCA_LOG_DBG("app debug");
	doca_log(DOCA_LOG_LEVEL_WARNING, sdk, NULL, 0, NULL, "sdk warning");
	doca_log(DOCA_LOG_LEVEL_INFO, sdk, NULL, 0, NULL, "sdk info");
	doca_log(DOCA_LOG_LEVEL_DEBUG, sdk, NULL, 0, NULL, "sdk debug");
	if (strcmp(mode, "--child-env") == 0)
		return (int)doca_log_level_get_global_sdk_limit();
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_buffer_backend_format, reset),
		cmocka_unit_test_setup(test_levels_and_backend_limits, reset),
		cmocka_unit_test_setup(test_global_vs_strict, reset),
		cmocka_unit_test_setup(test_sdk_vs_app, reset),
		cmocka_unit_test_setup(test_file_backend, reset),
		cmocka_unit_test_setup(test_fd_backend_and_sdk_variants, reset),
		cmocka_unit_test_setup(test_file_sdk_and_syslog, reset),
		cmocka_unit_test_setup(test_bad_arguments, reset),
		cmocka_unit_test_setup(test_flush_callback_calls_log, reset),
		cmocka_unit_test_setup(test_unregister_source, reset),
		cmocka_unit_test_setup(test_rate_limit, reset),
		cmocka_unit_test_setup(test_long_line_keeps_dropped_count, reset),
		cmocka_unit_test_setup(test_trace_compiled_out, reset),
		cmocka_unit_test_setup(test_threads, reset),
		cmocka_unit_test_setup(test_fork_while_logging, reset),
		cmocka_unit_test(test_defaults_before_backends),
		cmocka_unit_test(test_env_log_level),
		cmocka_unit_test(test_standard_backend),
		cmocka_unit_test(test_tables_full),
		cmocka_unit_test(test_rate_overflow),
		cmocka_unit_test(test_standard_at_limit),
		cmocka_unit_test(test_unregistered_source_logs),
	};

	if (argc > 1)
		return child_main(argv[1]);
	if (doca_priv_log_register_sdk_source("TEST_SDK", &sdk_source) != DOCA_SUCCESS ||
	    doca_log_backend_create_with_buf(app_buf, sizeof(app_buf), app_flush, &app_be) !=
	            DOCA_SUCCESS ||
	    doca_log_backend_create_with_buf_sdk(sdk_buf, sizeof(sdk_buf), sdk_flush, &sdk_be) !=
	            DOCA_SUCCESS)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
