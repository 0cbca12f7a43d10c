/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Opening a file a user names for reading without waiting on it: O_NONBLOCK for the open only,
 * so a FIFO that no process writes reads as empty at once instead of blocking the open for
 * ever, while a pipe with a writer (<(zcat f.gz)) and a regular file read as usual. Shared by
 * the device profile (core/device/system.c), odma trace and doca_argp's -j/--json file.
 */
#ifndef ODMA_UTIL_FOPEN_NOWAIT_H_
#define ODMA_UTIL_FOPEN_NOWAIT_H_

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

/* @path opened for reading (stdio mode @mode, "r" or "rb"), or NULL with errno set. */
static inline FILE *odma_fopen_nowait(const char *path, const char *mode)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), flags, e;
	FILE *f = NULL;

	if (fd < 0)
		return NULL;
	flags = fcntl(fd, F_GETFL);
	if (flags >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0)
		f = fdopen(fd, mode);
	if (f == NULL) {
		e = errno;
		close(fd);
		errno = e;
	}
	return f;
}

#endif /* ODMA_UTIL_FOPEN_NOWAIT_H_ */
