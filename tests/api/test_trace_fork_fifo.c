/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * ODMA_TRACE in a process that forks: the child's timeline goes to FILE.PID, opened in the fork
 * handler. A FIFO at that path must be refused there, not waited on (the child hung in fork()
 * before). The child's pid is known in advance in a PID namespace of the test's own, where
 * nothing else forks (/proc/sys/kernel/ns_last_pid); without the right to make one, a skip.
 * The namespace is made by a child of the test's process, never by the process itself.
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <doca_pe.h>

static char dir[] = "/tmp/odma-trace-fork.XXXXXX";

/* The next pid of this process' PID namespace, when nothing else forks meanwhile. */
static long next_pid(void)
{
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "r");
	long last = -1;

	if (f != NULL) {
		if (fscanf(f, "%ld", &last) != 1)
			last = -1;
		fclose(f);
	}
	return last < 0 ? -1 : last + 1;
}

/* In the namespace: a traced process forks a child whose FILE.PID is a FIFO; 0 if it ran. */
static int traced(void)
{
	char path[sizeof(dir) + 16], fifo[sizeof(dir) + 48];
	struct doca_pe *pe;
	long want;
	pid_t pid;
	int st;

	snprintf(path, sizeof(path), "%s/t.json", dir);
	setenv("ODMA_TRACE", path, 1);
	if (doca_pe_create(&pe) != DOCA_SUCCESS)
		return 10;
	want = next_pid();
	snprintf(fifo, sizeof(fifo), "%s.%ld", path, want);
	if (want < 0 || mkfifo(fifo, 0600) != 0)
		return 11;
	pid = fork();
	if (pid == 0)
		_exit(0); /* its fork handler returned */
	if (pid != want || waitpid(pid, &st, 0) != pid)
		return 12; /* not the pid foreseen: the test would prove nothing */
	doca_pe_destroy(pe);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 13;
}

/*
 * A process of the test's own makes the namespace and waits for its init, for at most 20 s: a
 * namespace whose init has exited takes no new process, so the test's own process (its leak
 * checker forks at exit) stays out of it. Exits with traced()'s status, or 99 on a hang.
 */
static void in_namespace(void)
{
	pid_t init, w = 0;
	int st = 0;

	if (unshare(CLONE_NEWPID) != 0)
		_exit(77);
	init = fork(); /* pid 1 of the namespace */
	if (init < 0)
		_exit(98);
	if (init == 0)
		_exit(traced());
	for (int i = 0; i < 400 && (w = waitpid(init, &st, WNOHANG)) == 0; i++)
		usleep(50000); /* 20 s: a hang, not a slow run */
	if (w == 0) {
		kill(init, SIGKILL); /* the namespace's init: the child goes with it */
		waitpid(init, &st, 0);
		_exit(99);
	}
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 97);
}

static void test_fifo_refused_in_child(void **state)
{
	pid_t p = fork();
	int st = 0;

	(void)state;
	assert_true(p >= 0);
	if (p == 0)
		in_namespace();
	assert_int_equal(waitpid(p, &st, 0), p);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 99)
		fail_msg("the forked child hung opening its FILE.PID, a FIFO with no reader");
	assert_int_equal(WEXITSTATUS(st), 0);
}

static int cleanup(void **state)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[sizeof(dir) + 300];

	(void)state;
	while (d != NULL && (e = readdir(d)) != NULL) {
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (e->d_name[0] != '.')
			unlink(path);
	}
	if (d != NULL)
		closedir(d);
	rmdir(dir);
	return 0;
}

/* Whether this process may make a PID namespace (asked in a child: it would stay in it). */
static bool may_unshare_pid(void)
{
	pid_t p = fork();
	int st = 0;

	if (p == 0)
		_exit(unshare(CLONE_NEWPID) == 0 ? 0 : 1);
	return p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fifo_refused_in_child),
	};

	if (!may_unshare_pid()) {
		printf("SKIP: no PID namespace of our own: the child's pid is unknown\n");
		return 77;
	}
	if (mkdtemp(dir) == NULL)
		return 1;
	return cmocka_run_group_tests(tests, NULL, cleanup);
}
