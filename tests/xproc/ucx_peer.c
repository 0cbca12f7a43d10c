/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The exporter of test_xproc_ucx, run as its own program (possibly in another network and
 * PID namespace): `ucx_peer SIZE ro|rw`, talking to the test over fd 3. It fills a buffer
 * of SIZE bytes with xu_pattern, exports it (host side, b1:00.0) and sends {descriptor
 * length, buffer address} (two uint64_t) and the descriptor. Then one-byte commands:
 * 'R' send the buffer back; 'S' destroy the mmap (revocation) and echo; 'K' die at once
 * (_exit, as a killed process: the kernel closes its sockets); 'T' stop answering for
 * 6 seconds (xu_freeze) without echo; 'Z' the same, then
 * echo once it runs again; 'F' stop, and echo once stopped (a child of its own answers), until
 * 'C', echoed once it runs again; 'X' exit.
 * Exits 0 when fd 3 closes. As PID 1 of a new namespace (unshare --fork) it first forks,
 * since PID 1 cannot stop or kill itself.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doca_dev.h>
#include <doca_mmap.h>

#include "xproc_util.h"

#define FD 3

/*
 * 'F': a child stops this process (SIGSTOP), echoes 'F' once the kernel says it is stopped,
 * and on the next command byte ('C') lets it run again and echoes that byte.
 */
static void peer_stop_until_told(void)
{
	pid_t parent = getpid(), c;
	char path[64], stat[256], b;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)parent);
	c = fork();
	if (c != 0) {
		if (c > 0)
			waitpid(c, NULL, 0); /* it ends once it let this process run again */
		return;
	}
	kill(parent, SIGSTOP);
	for (;;) { /* only async-signal-safe calls in the child of a threaded process */
		int fd = open(path, O_RDONLY);
		ssize_t k = fd >= 0 ? read(fd, stat, sizeof(stat) - 1) : -1;
		const char *st;

		if (fd >= 0)
			close(fd);
		stat[k > 0 ? k : 0] = '\0';
		st = strrchr(stat, ')');
		if (st != NULL && st[1] == ' ' && st[2] == 'T')
			break;
		usleep(1000);
	}
	b = 'F';
	if (!xu_full_io(FD, &b, 1, true) || !xu_full_io(FD, &b, 1, false)) {
		kill(parent, SIGCONT);
		_exit(1);
	}
	kill(parent, SIGCONT);
	_exit(xu_full_io(FD, &b, 1, true) ? 0 : 1);
}

static void peer_serve(uint8_t *buf, size_t len, struct doca_mmap *m)
{
	char cmd;

	while (xu_full_io(FD, &cmd, 1, false)) {
		if (cmd == 'X')
			_exit(0);
		if (cmd == 'K')
			_exit(9);
		if (cmd == 'T' || cmd == 'Z') {
			xu_freeze(6);
			if (cmd == 'T')
				continue;
		}
		if (cmd == 'F') {
			peer_stop_until_told();
			continue;
		}
		if (cmd == 'S' && m != NULL && doca_mmap_destroy(m) == DOCA_SUCCESS)
			m = NULL;
		if (cmd == 'R' && !xu_full_io(FD, buf, len, true))
			_exit(4);
		if (cmd != 'R' && !xu_full_io(FD, &cmd, 1, true))
			_exit(5);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	size_t len = argc > 2 ? strtoull(argv[1], NULL, 0) : 0;
	uint32_t perms = argc > 2 && strcmp(argv[2], "ro") == 0 ? DOCA_ACCESS_FLAG_PCI_READ_ONLY
	                                                        : DOCA_ACCESS_FLAG_PCI_READ_WRITE;
	struct doca_dev *dev;
	struct doca_mmap *m;
	uint8_t *buf;
	const void *d;
	size_t dlen;
	uint64_t hdr[2];

	if (len == 0)
		return 2;
	if (getpid() == 1) { /* init of a new PID namespace: the work is a child's */
		pid_t c = fork();
		int st = 0;

		if (c != 0) {
			close(FD);
			while (waitpid(c, &st, 0) < 0)
				;
			return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
		}
	}
	buf = malloc(len);
	dev = tu_open_pci_or_null("b1:00.0");
	if (buf == NULL || dev == NULL)
		return 2;
	for (size_t i = 0; i < len; i++)
		buf[i] = xu_pattern(i);
	if (doca_mmap_create(&m) || doca_mmap_set_memrange(m, buf, len) ||
	    doca_mmap_set_permissions(m, perms) || doca_mmap_add_dev(m, dev) ||
	    doca_mmap_start(m) || doca_mmap_export_pci(m, dev, &d, &dlen))
		return 3;
	hdr[0] = dlen;
	hdr[1] = (uint64_t)(uintptr_t)buf;
	if (!xu_full_io(FD, hdr, sizeof(hdr), true) || !xu_full_io(FD, (void *)d, dlen, true))
		return 4;
	peer_serve(buf, len, m);
	return 0;
}
