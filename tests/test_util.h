/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Shared by the cmocka tests. */
#ifndef ODMA_TEST_UTIL_H_
#define ODMA_TEST_UTIL_H_

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <cmocka.h>

#include <doca_error.h>
#include <doca_log.h>

#include "test_dev.h"
#include "test_exec.h"

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
 * Whether the network transport runs on UCX's link (ODMA_LINK=ucp; with the default, auto,
 * only when UCX_TLS leaves TCP out, as odma_ucx_may_use_tcp decides): hand-made peers that
 * speak UCX reach an exporter only there.
 */
static inline bool tu_ucx_link(void)
{
	const char *v = getenv("ODMA_LINK"), *tls = getenv("UCX_TLS");

	if (v != NULL && strcmp(v, "auto") != 0)
		return strcmp(v, "ucp") == 0;
	return tls != NULL && tls[0] != '^' && strstr(tls, "tcp") == NULL &&
	       strstr(tls, "all") == NULL;
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

/*
 * Listens (@listen(@arg, port) returns whether it could) on a port the kernel picked; when
 * another process took that port between the pick and the bind (tu_free_port releases it),
 * on another pick, up to 16 times. Returns the port listened on, 0 when every try failed.
 */
static inline uint16_t tu_listen_free_port(bool (*listen)(void *arg, uint16_t port), void *arg)
{
	for (int i = 0; i < 16; i++) {
		uint16_t port = tu_free_port();

		if (port != 0 && listen(arg, port))
			return port;
	}
	return 0;
}

/*
 * In a forked child (where a cmocka assertion would not reach the runner): a failed check
 * ends it with a message and status 1.
 */
#define TU_CHECK(cond)                                                                             \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
			_exit(1);                                                                  \
		}                                                                                  \
	} while (0)
#define TU_CHECK_IS(expected, call) TU_CHECK((call) == (expected))
#define TU_CHECK_OK(call) TU_CHECK_IS(DOCA_SUCCESS, call)

/* Exit code that meson/CI report as "skipped". */
#define ODMA_TEST_SKIP 77

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

/* Monotonic milliseconds. */
static inline uint64_t tu_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Descriptors process @pid holds (this process: not the one reading the list); -1: unreadable. */
static inline int tu_count_fds(pid_t pid)
{
	char path[64];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n - (pid == getpid());
}

/* The number after "@field:" in /proc/@pid/status (Threads, VmRSS in KiB, ...); -1: none. */
static inline long tu_status_field(pid_t pid, const char *field)
{
	char path[64], line[256];
	size_t n = strlen(field);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, field, n) == 0 && line[n] == ':' &&
		    sscanf(line + n + 1, "%ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/*
 * SDK log lines (WARNING and above) logged since the last call; the first call starts the
 * capture (a file backend) and counts nothing. *@hit: how many of them contain @what.
 */
static inline unsigned int tu_log_lines(const char *what, unsigned int *hit)
{
	static FILE *file;
	static long seen;
	struct doca_log_backend *be;
	char line[4096];
	unsigned int n = 0;

	*hit = 0;
	if (file == NULL) {
		file = tmpfile();
		if (file == NULL ||
		    doca_log_backend_create_with_file_sdk(file, &be) != DOCA_SUCCESS ||
		    doca_log_backend_set_sdk_level(be, DOCA_LOG_LEVEL_WARNING) != DOCA_SUCCESS)
			fail_msg("cannot capture the SDK log");
	}
	fflush(file);
	fseek(file, seen, SEEK_SET);
	while (fgets(line, sizeof(line), file) != NULL) {
		n++;
		if (strstr(line, what) != NULL)
			(*hit)++;
	}
	seen = ftell(file);
	return n;
}

/* The words of precondition M16's line (docs/preconditions.md), the same in every library. */
#define M16_LINE "which is stopped: its memory is registered with no device"

/* Threads of process @pid; -1: unreadable. */
static inline int tu_count_threads(pid_t pid)
{
	return (int)tu_status_field(pid, "Threads");
}

/* What a process holds that a peer coming and going must give back. */
struct tu_held {
	int fds, threads;
};

static inline struct tu_held tu_held_by(pid_t pid)
{
	return (struct tu_held){ tu_count_fds(pid), tu_count_threads(pid) };
}

/*
 * Whether @pid comes back to at most @base's threads and @base's descriptors plus @slack
 * within 10 s (a peer's endpoint may close a moment after the peer went); prints what it
 * holds, as @who, either way.
 */
static inline bool tu_settles_to(const char *who, pid_t pid, struct tu_held base, int slack)
{
	struct tu_held h = tu_held_by(pid);

	for (int i = 0; i < 500 && (h.fds > base.fds + slack || h.threads > base.threads); i++) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		h = tu_held_by(pid);
	}
	printf("%s: %d descriptors and %d threads (after the first rounds: %d and %d)\n", who,
	       h.fds, h.threads, base.fds, base.threads);
	return h.fds >= 0 && h.fds <= base.fds + slack && h.threads <= base.threads;
}

/* Under qemu-user only: skips the current cmocka test (SKIPPED), after a line with the reason. */
#define tu_skip_test_under_qemu(why)                                                               \
	do {                                                                                       \
		if (tu_under_qemu()) {                                                             \
			print_message("skipped under qemu-user: %s\n", (why));                     \
			skip();                                                                    \
		}                                                                                  \
	} while (0)

/* The reasons the tests give, one wording each. */
#define TU_QEMU_NO_CMA                                                                             \
	"qemu-user does not implement process_vm_readv/writev, which reaching another process' "   \
	"memory needs"
/*
 * Brings the network interface @dev (in this process' network namespace, whose /sys is
 * mounted, as tests/netns.sh's netns_run gives) up with iproute2 and waits, at most 10 s,
 * until it is operationally up with no IPv6 address still in duplicate address detection:
 * before that UCX lists no device on it (both settle asynchronously, later on a loaded
 * machine). 0 when ready, -1 otherwise.
 */
static inline int tu_link_up(const char *dev)
{
	char cmd[128], path[96], line[160];

	snprintf(cmd, sizeof(cmd), "ip link set dev %s up", dev);
	if (system(cmd) != 0)
		return -1;
	snprintf(path, sizeof(path), "/sys/class/net/%s/operstate", dev);
	for (int k = 0; k < 1000; k++) {
		bool up = false, tentative = false;
		FILE *f = fopen(path, "r");

		if (f != NULL) {
			up = fgets(line, sizeof(line), f) != NULL && strncmp(line, "up", 2) == 0;
			fclose(f);
		}
		/* address, index, prefix length, scope, flags (hex; 0x40 tentative), name */
		f = fopen("/proc/net/if_inet6", "r");
		while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
			char name[32];
			unsigned int flags;

			if (sscanf(line, "%*s %*x %*x %*x %x %31s", &flags, name) == 2 &&
			    strcmp(name, dev) == 0 && (flags & 0x40) != 0)
				tentative = true;
		}
		if (f != NULL)
			fclose(f);
		if (up && !tentative)
			return 0;
		usleep(10000);
	}
	return -1;
}

#define TU_QEMU_FORK_THREADS                                                                       \
	"qemu-user 7.2 aborts a forked child of a multithreaded program when the child starts a "  \
	"thread (cpu_exec: assertion cpu == current_cpu)"

#endif
