/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * A program's own crash is its own: linking odma (and through it UCX, whose library installs
 * handlers for SIGSEGV, SIGBUS, SIGILL and SIGFPE as it loads) must not turn a NULL
 * dereference into UCX's backtrace. A child that used odma dereferences NULL; it dies of
 * SIGSEGV and prints nothing of UCX's. Not under a sanitizer (which reports the crash itself).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <doca_dev.h>

#include "test_util.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ODMA_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define ODMA_TEST_SANITIZED 1
#endif
#endif

static const char *self;

/* The crashing program (exec'd: cmocka's own signal handlers are not in it). */
static int crash(void)
{
	struct doca_devinfo **list;
	uint32_t num;

	(void)doca_devinfo_create_list(&list, &num); /* odma (and UCX) loaded and used */
	*(volatile int *)(uintptr_t)0 = 1;
	return 0;
}

static void test_null_dereference(void **state)
{
	char out[4096] = { 0 };
	int fd[2], st = 0;
	ssize_t n, got = 0;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(fd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fd[1], 2);
		close(fd[0]);
		execl(self, self, "--crash", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	while ((n = read(fd[0], out + got, sizeof(out) - 1 - (size_t)got)) > 0)
		got += n;
	close(fd[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSEGV);
	if (strstr(out, "Caught signal") != NULL || strstr(out, "backtrace") != NULL)
		fail_msg("the program's own crash printed UCX's report:\n%s", out);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_dereference),
	};

	self = argv[0];
#ifdef ODMA_TEST_SANITIZED
	(void)tests;
	(void)argc;
	(void)crash;
	printf("own_crash: a sanitizer reports the crash itself; skipped\n");
	return ODMA_TEST_SKIP;
#else
	if (argc == 2 && strcmp(argv[1], "--crash") == 0)
		return crash();
	tu_skip_under_qemu("a crash under qemu-user is qemu's to report, and the test execs itself "
	                   "(no binfmt_misc here)");
	return cmocka_run_group_tests(tests, NULL, NULL);
#endif
}
