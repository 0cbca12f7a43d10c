/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * White-box checks of how this process reaches its own memory and identity where the system
 * lacks what odma usually uses (qemu-user, seccomp): the fault-safe copy through a pipe that
 * stands in for process_vm_readv within one process, and the start time of this process, which
 * must be the one other processes read in /proc/<pid>/stat.
 */
#include <errno.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "core/memory/memory.h"
#include "core/transport/transport.h"
#include "test_util.h"

/* Bytes across several pieces, both directions, with the pieces split unevenly on each side. */
static void test_pipe_copy_moves(void **state)
{
	static uint8_t src[3 * 4096 + 77], dst[sizeof(src)];
	struct iovec l[2] = { { dst, 5000 }, { dst + 5000, sizeof(dst) - 5000 } };
	struct iovec r[3] = { { src, 1 }, { src + 1, 9000 }, { src + 9001, sizeof(src) - 9001 } };

	(void)state;
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7 + 3);
	assert_int_equal(odma_cma_pipe_xfer(false, l, 2, r, 3), 0);
	assert_memory_equal(dst, src, sizeof(src));
	memset(src, 0, sizeof(src));
	l[0] = (struct iovec){ dst, sizeof(dst) };
	r[0] = (struct iovec){ src, sizeof(src) };
	assert_int_equal(odma_cma_pipe_xfer(true, l, 1, r, 1), 0); /* write: local -> remote */
	assert_memory_equal(src, dst, sizeof(src));
}

/* A side that is not mapped (or not writable) fails the copy with EFAULT, not the process. */
static void test_pipe_copy_faults(void **state)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *m = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
	                  -1, 0);
	uint8_t buf[64];
	struct iovec l = { buf, sizeof(buf) }, r;

	(void)state;
	assert_true(m != MAP_FAILED);
	assert_int_equal(munmap(m + pg, (size_t)pg), 0);
	r = (struct iovec){ m + pg, sizeof(buf) }; /* unmapped source */
	assert_int_equal(odma_cma_pipe_xfer(false, &l, 1, &r, 1), EFAULT);
	r = (struct iovec){ m + pg - 32, sizeof(buf) }; /* runs off its end */
	assert_int_equal(odma_cma_pipe_xfer(false, &l, 1, &r, 1), EFAULT);
	assert_int_equal(mprotect(m, (size_t)pg, PROT_READ), 0);
	r = (struct iovec){ m, sizeof(buf) }; /* read-only destination */
	assert_int_equal(odma_cma_pipe_xfer(true, &l, 1, &r, 1), EFAULT);
	munmap(m, (size_t)pg);
}

/* The fault-safe copy of the transports (no fault guard in this process) moves bytes. */
static void test_safe_copy(void **state)
{
	uint8_t a[300], b[300];

	(void)state;
	for (size_t i = 0; i < sizeof(a); i++)
		a[i] = (uint8_t)i;
	memset(b, 0, sizeof(b));
	assert_int_equal(odma_tp_safe_copy(b, a, sizeof(a)), 0);
	assert_memory_equal(a, b, sizeof(a));
}

/* This process' start time as it records it equals what a child reads for it. */
static void test_start_time_as_others_see_it(void **state)
{
	uint64_t mine = 0;
	pid_t pid;
	int st;

	(void)state;
	assert_true(odma_proc_start_time(getpid(), &mine));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		uint64_t theirs = 0;

		_exit(odma_proc_start_time(getppid(), &theirs) && theirs == mine ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pipe_copy_moves),
		cmocka_unit_test(test_pipe_copy_faults),
		cmocka_unit_test(test_safe_copy),
		cmocka_unit_test(test_start_time_as_others_see_it),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
