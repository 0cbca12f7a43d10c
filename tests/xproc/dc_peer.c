/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * A misbehaving peer for doca_dma_copy's hostile-input tests (dma_copy_hostile.sh). It
 * speaks the application's messages (apps/dma_copy/dma_copy_proto.h) over its Unix socket:
 *
 *   dc_peer client SOCK silent       connect, say nothing, wait until the server hangs up
 *   dc_peer client SOCK hangup SIZE  announce a file of SIZE bytes, then vanish
 *   dc_peer client SOCK stall SIZE   announce a file of SIZE bytes, read the answer, then
 *                                    say nothing more until the server hangs up
 *   dc_peer server SOCK hangup       accept a host, read its first message, then vanish
 *   dc_peer server SOCK stall SIZE   accept a host, announce a file of SIZE bytes (one
 *                                    window), read its next message, then say nothing
 *                                    more until the host hangs up
 *   dc_peer rss OUT CMD ARGS...      run CMD, write its peak RSS in KiB to OUT, exit with
 *                                    its status (128 + signal if killed)
 *
 * Every wait is bounded (60 s). Prints what it saw on stdout.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../apps/dma_copy/dma_copy_proto.h"

static int die(const char *what)
{
	fprintf(stderr, "dc_peer: %s: %s\n", what, strerror(errno));
	return 2;
}

static struct sockaddr_un addr(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	return sa;
}

static int send_msg(int fd, uint16_t type, const void *p, uint32_t len)
{
	struct dc_hdr h = { .magic = DC_MSG_MAGIC, .type = type, .len = len };

	if (send(fd, &h, sizeof(h), MSG_NOSIGNAL) != (ssize_t)sizeof(h) ||
	    (len && send(fd, p, len, MSG_NOSIGNAL) != (ssize_t)len))
		return -1;
	return 0;
}

/* Reads one message; prints its type; -1 on EOF or after 60 s. */
static int recv_msg(int fd)
{
	uint8_t buf[sizeof(struct dc_hdr) + DC_MAX_PAYLOAD];
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct dc_hdr h;
	size_t got = 0;

	while (got < sizeof(h)) {
		ssize_t k;

		if (poll(&p, 1, 60000) != 1)
			return -1;
		k = recv(fd, buf + got, sizeof(h) - got, 0);
		if (k <= 0)
			return -1;
		got += (size_t)k;
	}
	memcpy(&h, buf, sizeof(h));
	while (got < sizeof(h) + h.len && h.len <= DC_MAX_PAYLOAD) {
		ssize_t k = recv(fd, buf + got, sizeof(h) + h.len - got, 0);

		if (k <= 0)
			return -1;
		got += (size_t)k;
	}
	printf("got message type %u (%u bytes)\n", h.type, h.len);
	fflush(stdout);
	return h.type;
}

/* Waits (at most 60 s) until the other end hangs up, ignoring what it sends. */
static void wait_hangup(int fd)
{
	char b[512];

	for (int i = 0; i < 600; i++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 100) == 1 && recv(fd, b, sizeof(b), 0) <= 0) {
			printf("peer hung up\n");
			return;
		}
	}
	printf("peer still there after 60 s\n");
}

static int client(const char *path, const char *mode, uint64_t size)
{
	struct sockaddr_un sa = addr(path);
	struct dc_direction d = { .file_here = 1, .file_size = size };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		return die("connect");
	printf("connected\n");
	fflush(stdout);
	if (strcmp(mode, "silent") == 0) {
		wait_hangup(fd);
	} else if (strcmp(mode, "hangup") == 0) {
		if (send_msg(fd, DC_MSG_DIRECTION, &d, sizeof(d)) != 0)
			return die("send");
	} else if (strcmp(mode, "stall") == 0) {
		if (send_msg(fd, DC_MSG_DIRECTION, &d, sizeof(d)) != 0)
			return die("send");
		recv_msg(fd);
		wait_hangup(fd);
	} else {
		return 2;
	}
	close(fd);
	return 0;
}

static int server(const char *path, const char *mode, uint64_t size)
{
	struct sockaddr_un sa = addr(path);
	struct dc_direction d = { .file_here = 1, .file_size = size, .window = size };
	int lfd = socket(AF_UNIX, SOCK_STREAM, 0), fd;

	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(lfd, 1) != 0)
		return die("listen");
	printf("listening\n");
	fflush(stdout);
	fd = accept(lfd, NULL, NULL);
	close(lfd);
	unlink(path);
	if (fd < 0)
		return die("accept");
	recv_msg(fd);
	if (strcmp(mode, "stall") == 0) {
		if (send_msg(fd, DC_MSG_DIRECTION, &d, sizeof(d)) != 0)
			return die("send");
		recv_msg(fd);
		wait_hangup(fd);
	}
	close(fd);
	return 0;
}

static int rss(const char *out, char **argv)
{
	struct rusage ru;
	pid_t pid = fork();
	int st;
	FILE *f;

	if (pid < 0)
		return die("fork");
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &st, 0, &ru) != pid)
		return die("wait4");
	f = fopen(out, "w");
	if (f == NULL)
		return die(out);
	fprintf(f, "%ld\n", ru.ru_maxrss);
	fclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
	uint64_t size = argc > 4 ? strtoull(argv[4], NULL, 0) : 1048576;

	if (argc >= 4 && strcmp(argv[1], "rss") == 0)
		return rss(argv[2], argv + 3);
	if (argc < 4) {
		fprintf(stderr, "usage: see the comment at the top of dc_peer.c\n");
		return 2;
	}
	if (strcmp(argv[1], "client") == 0)
		return client(argv[2], argv[3], size);
	if (strcmp(argv[1], "server") == 0)
		return server(argv[2], argv[3], size);
	return 2;
}
