/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Linked into hostile_victim only: plays a peer that wins the race against the victim's check
 * of a shared-memory file (issue #19 item 1, review of main finding 3). When the victim asks
 * for the seals of a memfd named "hostile-race", the file is first shrunk to 0 and then
 * sealed, as a peer does between the victim's two system calls. A check that reads the size
 * before the seals then maps a file with no pages (SIGBUS at the first touch); one that reads
 * the seals first sees the new size and refuses it. Every other fcntl is the real one.
 *
 * <fcntl.h> is not included: with _FILE_OFFSET_BITS=64 it renames fcntl to fcntl64.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SR_F_ADD_SEALS 1033
#define SR_F_GET_SEALS 1034
#define SR_SEALS (0x0001 | 0x0002 | 0x0004) /* F_SEAL_SEAL, F_SEAL_SHRINK, F_SEAL_GROW */

int fcntl(int fd, int cmd, ...);
int fcntl64(int fd, int cmd, ...);

static int sr_fcntl(int fd, int cmd, unsigned long arg)
{
	char path[64], link[64];
	ssize_t n;

	if (cmd == SR_F_GET_SEALS) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0 && (link[n] = '\0', strncmp(link, "/memfd:hostile-race", 19) == 0) &&
		    ftruncate(fd, 0) == 0)
			(void)syscall(SYS_fcntl, fd, SR_F_ADD_SEALS, SR_SEALS);
	}
	return (int)syscall(SYS_fcntl, fd, cmd, arg);
}

int fcntl(int fd, int cmd, ...)
{
	unsigned long arg;
	va_list ap;

	va_start(ap, cmd);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	return sr_fcntl(fd, cmd, arg);
}

int fcntl64(int fd, int cmd, ...)
{
	unsigned long arg;
	va_list ap;

	va_start(ap, cmd);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	return sr_fcntl(fd, cmd, arg);
}
