/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Running a program of this build from a test (no cmocka, no odma: the standalone test peers
 * include it too). In a cross build meson runs each test through its exe wrapper and names it in
 * MESON_EXE_WRAPPER (e.g. /usr/bin/qemu-aarch64); a child program needs it as well, since the
 * kernel cannot run a foreign binary by itself (no binfmt_misc entry is assumed).
 */
#ifndef ODMA_TEST_EXEC_H_
#define ODMA_TEST_EXEC_H_

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Whether this test runs under qemu-user: a cross build's meson test environment says so
 * (ODMA_UNDER_QEMU=1, tests/meson.build), and meson names the emulator in MESON_EXE_WRAPPER for
 * every test of a cross build (a test defined with an environment of its own too).
 */
static inline bool tu_under_qemu(void)
{
	const char *u = getenv("ODMA_UNDER_QEMU"), *w = getenv("MESON_EXE_WRAPPER");

	return (u != NULL && strcmp(u, "1") == 0) || (w != NULL && strstr(w, "qemu") != NULL);
}

/*
 * execvp() of @prefix (a NULL-terminated command that runs the rest, e.g. "ip netns exec NS";
 * NULL: none), then the exe wrapper if any, then @path with @argv's arguments. Returns only
 * when the exec failed. Called in a child just forked: the program it becomes is killed when
 * the test that forked it ends, even by a failed assertion (no peer outlives its test and keeps
 * the test's output open).
 */
static inline int tu_execv_prefixed(const char *const *prefix, const char *path, char *const argv[])
{
	const char *w = getenv("MESON_EXE_WRAPPER");
	char *words[16 + 8 + 64], wrap[256], *save = NULL;
	int n = 0;

	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);

	for (; prefix != NULL && *prefix != NULL && n < 16; prefix++)
		words[n++] = (char *)*prefix;
	if (w != NULL && *w != '\0' && strlen(w) < sizeof(wrap)) {
		snprintf(wrap, sizeof(wrap), "%s", w);
		for (char *t = strtok_r(wrap, " ", &save); t != NULL && n < 16 + 8;
		     t = strtok_r(NULL, " ", &save))
			words[n++] = t;
	}
	if (n == 0)
		return execv(path, argv);
	words[n++] = (char *)path;
	for (int i = 1; argv[0] != NULL && argv[i] != NULL && n < 16 + 8 + 63; i++)
		words[n++] = argv[i];
	words[n] = NULL;
	return execvp(words[0], words);
}

/*
 * Whether this process may fork a child that goes on working (odma, malloc) rather than only
 * exec: it has one thread. A child of a process with threads may find a lock one of them held
 * at fork() held for ever, and the ASan runtimes of CI take no allocator lock around fork()
 * (docs/reliability.md, "ASan and fork()"). A helper that forks such a child calls this first
 * and refuses, with a line naming the rule, instead of hanging now and then. Not asked where
 * the count includes a runtime's own threads: under qemu-user (the emulator's) and ThreadSanitizer
 * (its background thread; it takes its own locks around fork()).
 */
#if defined(__SANITIZE_THREAD__)
#define TU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TU_TSAN 1
#endif
#endif
#ifndef TU_TSAN
#define TU_TSAN 0
#endif

/* This process' threads as /proc counts them (0 when it cannot be read). */
static inline int tu_thread_count(void)
{
	char line[128];
	int threads = 0;
	FILE *f = fopen("/proc/self/status", "r");

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Threads: %d", &threads) == 1)
			break;
	if (f != NULL)
		fclose(f);
	return threads;
}

/*
 * A thread pthread_join has returned for still counts in /proc until the kernel has released
 * it, a moment later (longer on a loaded machine), so a count above one is looked at again for
 * up to 200 ms before the fork is refused.
 */
static inline bool tu_fork_safe(const char *who)
{
	int threads = 0;

	if (TU_TSAN || tu_under_qemu())
		return true;
	for (int i = 0; i < 200 && (threads = tu_thread_count()) > 1; i++)
		usleep(1000);
	if (threads <= 1)
		return true;
	fprintf(stderr,
	        "%s: this process has %d threads (a PE or transport of an earlier case?); a forked "
	        "child that goes on working could hang: fork it first, or exec in it\n",
	        who, threads);
	return false;
}

/* execv() of @path through the exe wrapper, if any; returns only when the exec failed. */
static inline int tu_execv(const char *path, char *const argv[])
{
	return tu_execv_prefixed(NULL, path, argv);
}

/* The exe wrapper and a space ("" natively), to put before a program in a shell command. */
static inline const char *tu_exe_wrapper_prefix(char *buf, size_t size)
{
	const char *w = getenv("MESON_EXE_WRAPPER");

	if (w == NULL || *w == '\0' || strlen(w) + 2 > size)
		return "";
	snprintf(buf, size, "%s ", w);
	return buf;
}

/*
 * Runs @self (this test program, argv[0]) again with the one argument @arg, through the exe
 * wrapper, and returns its wait status (-1 when it could not start): for a case that must run
 * in a fresh process, e.g. outside cmocka's per-test SIGSEGV handler.
 */
static inline int tu_run_self(const char *self, const char *arg)
{
	char *argv[] = { (char *)self, (char *)arg, NULL };
	int st = 0;
	pid_t pid = fork();

	if (pid == 0) {
		(void)tu_execv(self, argv);
		_exit(127);
	}
	if (pid < 0)
		return -1;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return st;
}

#endif
