/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Shared by the cmocka tests. */
#ifndef ODMA_TEST_UTIL_H_
#define ODMA_TEST_UTIL_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <cmocka.h>

#include <doca_error.h>

#include "test_dev.h"

/* Asserts a DOCA call's result and prints both names when it differs. */
#define assert_doca(expected, call)                                                                \
	do {                                                                                       \
		doca_error_t _got = (call);                                                        \
		if (_got != (expected))                                                            \
			fail_msg("%s returned %s, expected %s", #call, doca_error_get_name(_got),  \
			         doca_error_get_name(expected));                                   \
	} while (0)

#define assert_ok(call) assert_doca(DOCA_SUCCESS, call)

/* Opens the device at PCI address @pci (the first device when NULL); fails the test if none. */
static inline struct doca_dev *tu_open_dev(const char *pci)
{
	struct doca_dev *dev = NULL;

	assert_ok(tu_try_open_dev(pci, &dev));
	assert_non_null(dev);
	return dev;
}

/*
 * A TCP port of 127.0.0.1 that the kernel picked (bound to port 0, read back, released), for
 * the APIs that take a port from their caller (RDMA CM, ODMA_FABRIC): never a guessed one.
 * 0 when no socket can be had.
 */
static inline uint16_t tu_free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	uint16_t port = 0;

	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &al) == 0)
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* Exit code that meson/CI report as "skipped". */
#define ODMA_TEST_SKIP 77

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
 * Under qemu-user only: prints why the test cannot run there (what qemu-user does not emulate)
 * and exits 77, which meson and CI count as a skip. Natively it returns and the test runs.
 */
static inline void tu_skip_under_qemu(const char *why)
{
	if (!tu_under_qemu())
		return;
	printf("skipping under qemu-user: %s\n", why);
	fflush(stdout);
	exit(ODMA_TEST_SKIP);
}

/*
 * execv() of a program of this build. In a cross build meson runs tests through its exe wrapper
 * (MESON_EXE_WRAPPER, e.g. qemu-aarch64); a child program of the test needs it too, since the
 * kernel cannot run a foreign binary by itself (no binfmt_misc entry is assumed). Returns only
 * when the exec failed, like execv().
 */
static inline int tu_execv(const char *path, char *const argv[])
{
	const char *w = getenv("MESON_EXE_WRAPPER");
	char *words[8 + 64], wrap[256], *save = NULL;
	int n = 0;

	if (w == NULL || *w == '\0' || strlen(w) >= sizeof(wrap))
		return execv(path, argv);
	snprintf(wrap, sizeof(wrap), "%s", w);
	for (char *t = strtok_r(wrap, " ", &save); t != NULL && n < 8;
	     t = strtok_r(NULL, " ", &save))
		words[n++] = t;
	words[n++] = (char *)path;
	for (int i = 1; argv[0] != NULL && argv[i] != NULL && n < 8 + 63; i++)
		words[n++] = argv[i];
	words[n] = NULL;
	return execvp(words[0], words);
}

#endif
