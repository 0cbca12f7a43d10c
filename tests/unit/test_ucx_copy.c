/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The UCX transport's fault-safe local copy (odma_tp_safe_copy, transport.h): the exporter
 * copies out of and into exported memory with it, the importer into and out of its own. It
 * takes core/copy's fault guard (no system call; the first copy installs the guard, also in
 * a process without a PE), and falls back to process_vm_readv when the guard is off. Either
 * way a page the application unmapped or made read-only fails the copy with EFAULT instead
 * of killing the process.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/copy/copy.h"
#include "core/transport/ucx_wire.h"
#include "test_util.h"

static bool segv_handled(void)
{
	struct sigaction sa;

	return sigaction(SIGSEGV, NULL, &sa) == 0 && (sa.sa_flags & SA_SIGINFO) &&
	       sa.sa_sigaction != NULL;
}

/* Copies good bytes, then fails on an unmapped source and a read-only destination. */
static int copies_are_fault_safe(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *m = mmap(NULL, (size_t)pg * 3, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
	                  -1, 0);
	uint8_t local[256];

	if (m == MAP_FAILED)
		return 1;
	memset(m, 0x5a, (size_t)pg);
	memset(local, 0, sizeof(local));
	if (odma_tp_safe_copy(local, m, sizeof(local)) != 0 || local[0] != 0x5a ||
	    local[255] != 0x5a)
		return 2;
	munmap(m + pg, (size_t)pg);                  /* the middle page: gone */
	mprotect(m + 2 * pg, (size_t)pg, PROT_READ); /* the last: read-only */
	if (odma_tp_safe_copy(local, m + pg, sizeof(local)) != EFAULT)
		return 3;
	if (odma_tp_safe_copy(m + 2 * pg, local, sizeof(local)) != EFAULT)
		return 4;
	if (odma_tp_safe_copy(local, m + pg - 16, 64) != EFAULT) /* straddles the hole */
		return 5;
	munmap(m, (size_t)pg);
	munmap(m + 2 * pg, (size_t)pg);
	return 0;
}

/* ODMA_COPY_GUARD=0 (a child, before any copy of this process): process_vm_readv. */
static void test_without_guard(void **state)
{
	pid_t pid;
	int st = -1;

	(void)state;
	assert_false(segv_handled());
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("ODMA_COPY_GUARD", "0", 1);
		int rc = copies_are_fault_safe();

		_exit(rc != 0 ? rc : segv_handled() ? 10 : 0); /* no handler was installed */
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* The default: the first copy installs the guard (no PE in this process) and uses it. */
static void test_with_guard(void **state)
{
	(void)state;
	assert_false(segv_handled());
	assert_int_equal(copies_are_fault_safe(), 0);
	assert_true(segv_handled());
	assert_int_equal(odma_copy_init(), DOCA_SUCCESS); /* the same guard, installed once */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_without_guard),
		cmocka_unit_test(test_with_guard),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
