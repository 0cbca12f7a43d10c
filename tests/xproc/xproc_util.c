/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <doca_mmap.h>

#include "test_util.h"
#include "xproc_util.h"

static uint32_t le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

void xu_each_reply(const void *hdr, size_t hlen, const void *data, size_t len, xu_reply_fn *fn,
                   void *arg)
{
	const uint8_t *b = data;
	uint32_t count;
	size_t off = 0;

	assert_int_equal(hlen, 8);
	count = le32(hdr);
	assert_true(count >= 2);
	for (uint32_t i = 0; i < count; i++) {
		uint32_t n;

		assert_true(len - off >= 24);
		n = le32(b + off + 20);
		assert_true(n <= len - off - 24);
		fn(arg, b + off, b + off + 24, n);
		off += 24 + n;
	}
	assert_int_equal(off, len);
}

bool xu_full_io(int fd, void *p, size_t n, bool wr)
{
	while (n) {
		ssize_t k = wr ? write(fd, p, n) : read(fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		p = (uint8_t *)p + k;
		n -= (size_t)k;
	}
	return true;
}

uint8_t xu_pattern(size_t i)
{
	return (uint8_t)(i * 7 + 3);
}

/* The forked exporter's whole life; it never returns (exit 2..5 name the step that failed). */
static void exporter_main(int fd, uint8_t *buf, size_t len, uint32_t perms)
{
	struct doca_dev *dev = tu_open_pci_or_null("b1:00.0");
	struct doca_mmap *m;
	const void *d;
	size_t dlen;
	uint64_t hdr[2];
	char cmd;

	for (size_t i = 0; i < len; i++)
		buf[i] = xu_pattern(i);
	if (dev == NULL || doca_mmap_create(&m) || doca_mmap_set_memrange(m, buf, len) ||
	    doca_mmap_set_permissions(m, perms) || doca_mmap_add_dev(m, dev) ||
	    doca_mmap_start(m) || doca_mmap_export_pci(m, dev, &d, &dlen))
		_exit(2);
	hdr[0] = dlen;
	hdr[1] = (uint64_t)(uintptr_t)buf;
	if (!xu_full_io(fd, hdr, sizeof(hdr), true) || !xu_full_io(fd, (void *)d, dlen, true))
		_exit(3);
	while (xu_full_io(fd, &cmd, 1, false)) {
		if (cmd == 'S' && doca_mmap_destroy(m) == DOCA_SUCCESS)
			m = NULL;
		if (cmd == 'R' && !xu_full_io(fd, buf, len, true))
			_exit(4);
		if (cmd == 'X')
			_exit(0);
		/* the buffer must then be a page-aligned mmap of whole pages */
		if (cmd == 'U' && munmap(buf, len) != 0)
			_exit(6);
		if (cmd == 'P' && mprotect(buf, len, PROT_READ) != 0)
			_exit(7);
		if (cmd != 'R' && !xu_full_io(fd, &cmd, 1, true))
			_exit(5);
	}
	_exit(0);
}

pid_t xu_spawn_exporter(uint8_t *buf, size_t len, uint32_t perms, int *fd)
{
	int sv[2];
	pid_t pid;

	if (!tu_fork_safe("xu_spawn_exporter") || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		exporter_main(sv[1], buf, len, perms);
	}
	close(sv[1]);
	if (pid < 0)
		close(sv[0]);
	else
		*fd = sv[0];
	return pid;
}

bool xu_kernel_allows(void)
{
	static volatile uint64_t probe = 0x1234;
	uint64_t got = 0;
	struct iovec l = { &got, sizeof(got) }, r = { (void *)&probe, sizeof(probe) };
	pid_t pid = fork();
	ssize_t k;

	if (pid == 0) {
		pause();
		_exit(0);
	}
	k = process_vm_readv(pid, &l, 1, &r, 1, 0);
	if (k < 0 && errno == ENOSYS) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		tu_skip_under_qemu("qemu-user does not implement process_vm_readv, which every "
		                   "import from another process of this kernel needs");
		errno = ENOSYS;
	}
	if (k < 0)
		printf("process_vm_readv on a child is refused: %s\n", strerror(errno));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return k == (ssize_t)sizeof(got) && got == 0x1234;
}

void xu_assert_child_ok(pid_t pid)
{
	int st;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

void xu_freeze(unsigned int seconds)
{
	pid_t me = getpid();

	if (fork() == 0) {
		sleep(seconds);
		kill(me, SIGCONT);
		_exit(0);
	}
	raise(SIGSTOP);
}
