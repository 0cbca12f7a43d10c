/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * doca_dma_copy's control channel over a Unix stream socket (contract in dma_copy_chan.h).
 * Sends use MSG_NOSIGNAL; every wait is a poll() with a deadline; the server probes a
 * socket path before it replaces it and removes only the socket it bound itself.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <doca_log.h>

#include "dma_copy.h"

DOCA_LOG_REGISTER(DMA_COPY_CHAN);

struct dc_chan {
	int fd;    /* the connection (-1 while a server has none) */
	int lfd;   /* server: the listening socket; client: -1 */
	dev_t dev; /* server: the socket file it bound */
	ino_t ino;
	char name[DMA_COPY_SOCKET_MAX];
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool make_addr(const char *name, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	/* An empty name would bind Linux's abstract namespace: never what the user meant. */
	if (name[0] == '\0' || strlen(name) >= sizeof(sa->sun_path))
		return false;
	memcpy(sa->sun_path, name, strlen(name) + 1);
	return true;
}

static struct dc_chan *chan_new(const char *name)
{
	struct dc_chan *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->fd = -1;
	c->lfd = -1;
	snprintf(c->name, sizeof(c->name), "%s", name);
	return c;
}

/*
 * Whether a server listens on the socket file @sa names: 1 yes, 0 no (stale), or -errno
 * when it cannot be told. The probe connects and closes without a word; a server waiting
 * for its client drops such a connection quietly (dc_chan_accept).
 */
static int probe_live(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), r;

	if (fd < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0)
		r = 1;
	else if (errno == EAGAIN || errno == EINPROGRESS) /* backlog full: alive and busy */
		r = 1;
	else if (errno == ECONNREFUSED)
		r = 0;
	else
		r = -errno;
	close(fd);
	return r;
}

/* Frees the path for bind: refuses anything but a stale socket. */
static doca_error_t claim_path(const char *name, const struct sockaddr_un *sa)
{
	struct stat st;
	int live;

	if (lstat(name, &st) != 0)
		return errno == ENOENT ? DOCA_SUCCESS : DOCA_ERROR_IO_FAILED;
	if (!S_ISSOCK(st.st_mode)) {
		DC_ERR("%s exists and is not a socket; refusing to replace it (choose another "
		       "--socket path)",
		       name);
		return DOCA_ERROR_ALREADY_EXIST;
	}
	live = probe_live(sa);
	if (live != 0) {
		if (live > 0)
			DC_ERR("another DPU side is already listening on %s; refusing to take it "
			       "over "
			       "(stop it, or choose another --socket path)",
			       name);
		else
			DC_ERR("cannot tell whether a server still listens on %s (%s); not "
			       "replacing "
			       "it",
			       name, strerror(-live));
		return DOCA_ERROR_IN_USE;
	}
	/* A socket nobody listens on: left by a server that died. */
	if (unlink(name) != 0 && errno != ENOENT) {
		DC_ERR("cannot remove the stale socket %s: %s", name, strerror(errno));
		return DOCA_ERROR_IO_FAILED;
	}
	DOCA_LOG_INFO("replaced the stale socket %s (no server listened on it)", name);
	return DOCA_SUCCESS;
}

doca_error_t dc_chan_listen(const char *name, struct dc_chan **srv)
{
	struct sockaddr_un sa;
	struct dc_chan *c;
	struct stat st;
	doca_error_t r;

	if (!make_addr(name, &sa)) {
		DC_ERR("socket path \"%s\" is empty or longer than %zu bytes", name,
		       sizeof(sa.sun_path) - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((c = chan_new(name)) == NULL)
		return DOCA_ERROR_NO_MEMORY;
	r = claim_path(name, &sa);
	if (r == DOCA_ERROR_IO_FAILED)
		DC_ERR("cannot inspect %s: %s", name, strerror(errno));
	if (r != DOCA_SUCCESS) {
		free(c);
		return r;
	}
	c->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (c->lfd < 0 || bind(c->lfd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		DC_ERR("cannot listen on %s: %s", name, strerror(errno));
		goto fail;
	}
	if (lstat(name, &st) == 0) {
		c->dev = st.st_dev;
		c->ino = st.st_ino;
		dc_cleanup_set(DC_CLEANUP_SOCKET, name, st.st_dev, st.st_ino);
	}
	if (listen(c->lfd, 8) != 0) {
		DC_ERR("cannot listen on %s: %s", name, strerror(errno));
		goto fail;
	}
	*srv = c;
	return DOCA_SUCCESS;
fail:
	dc_chan_close(c);
	return DOCA_ERROR_IO_FAILED;
}

/* Waits for @events on @fd until @deadline (ms, 0: none). 1 ready, 0 timeout, -1 error. */
static int wait_fd(int fd, short events, int64_t deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = events };
		int left = -1, n;

		if (deadline > 0) {
			int64_t d = deadline - now_ms();

			left = d > 0 ? (int)(d > 1000000 ? 1000000 : d) : 0;
		}
		n = poll(&p, 1, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n;
		return 1;
	}
}

doca_error_t dc_chan_accept(struct dc_chan *srv, int timeout_ms)
{
	for (;;) {
		char b;
		int fd, k;

		if (wait_fd(srv->lfd, POLLIN, 0) < 0)
			return DOCA_ERROR_IO_FAILED;
		fd = accept4(srv->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED || errno == EAGAIN)
				continue;
			DC_ERR("accept on %s failed: %s", srv->name, strerror(errno));
			return DOCA_ERROR_IO_FAILED;
		}
		k = wait_fd(fd, POLLIN, timeout_ms > 0 ? now_ms() + timeout_ms : 0);
		if (k > 0) {
			k = (int)recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
			if (k == 1) {
				srv->fd = fd;
				return DOCA_SUCCESS;
			}
			/* Closed without a word: a liveness probe (another server starting). */
			DOCA_LOG_DBG("a client of %s closed without a message", srv->name);
		} else if (k == 0) {
			DOCA_LOG_WARN(
			        "a client connected to %s but sent nothing for %d s; dropped it "
			        "and waiting for the next",
			        srv->name, timeout_ms / 1000);
		}
		close(fd);
	}
}

doca_error_t dc_chan_connect(const char *name, struct dc_chan **cli)
{
	struct sockaddr_un sa;
	struct dc_chan *c;

	if (!make_addr(name, &sa)) {
		DC_ERR("socket path \"%s\" is empty or longer than %zu bytes", name,
		       sizeof(sa.sun_path) - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((c = chan_new(name)) == NULL)
		return DOCA_ERROR_NO_MEMORY;
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		DC_ERR("cannot reach the DPU side at %s: %s; start `ODMA_SIDE=dpu doca_dma_copy` "
		       "first (the DPU is the server)",
		       name, strerror(errno));
		dc_chan_close(c);
		return DOCA_ERROR_NOT_CONNECTED;
	}
	*cli = c;
	return DOCA_SUCCESS;
}

/* Writes all of @p; false when the peer is gone. */
static bool send_all(int fd, const void *p, size_t n)
{
	while (n) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		p = (const uint8_t *)p + k;
		n -= (size_t)k;
	}
	return true;
}

doca_error_t dc_chan_send(struct dc_chan *c, uint16_t type, const void *payload, uint32_t len)
{
	struct dc_hdr h = { .magic = DC_MSG_MAGIC, .type = type, .len = len };

	if (c->fd < 0 || !send_all(c->fd, &h, sizeof(h)) || (len && !send_all(c->fd, payload, len)))
		return DOCA_ERROR_CONNECTION_RESET;
	return DOCA_SUCCESS;
}

/* A server's answer to a client beyond the one it serves. */
static void answer_busy(int fd)
{
	struct dc_hdr h = { .magic = DC_MSG_MAGIC, .type = DC_MSG_BUSY, .len = 0 };

	(void)!send(fd, &h, sizeof(h), MSG_NOSIGNAL | MSG_DONTWAIT);
	close(fd);
}

/* Answers every client waiting in the backlog. */
static void turn_away(struct dc_chan *srv)
{
	int fd;

	while ((fd = accept4(srv->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
		DOCA_LOG_WARN("another host connected to %s while this DPU side serves one; told "
		              "it to retry later",
		              srv->name);
		answer_busy(fd);
	}
}

/* Reads exactly @n bytes before @deadline. SUCCESS, TIME_OUT, CONNECTION_RESET. */
static doca_error_t recv_all(struct dc_chan *c, void *p, size_t n, int64_t deadline)
{
	while (n) {
		struct pollfd pf[2] = { { .fd = c->fd, .events = POLLIN },
			                { .fd = c->lfd, .events = POLLIN } };
		int left = -1, k;
		ssize_t got;

		if (deadline > 0) {
			int64_t d = deadline - now_ms();

			if (d <= 0)
				return DOCA_ERROR_TIME_OUT;
			left = (int)(d > 1000000 ? 1000000 : d);
		}
		k = poll(pf, c->lfd >= 0 ? 2 : 1, left);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return DOCA_ERROR_IO_FAILED;
		if (k == 0)
			return DOCA_ERROR_TIME_OUT;
		if (c->lfd >= 0 && (pf[1].revents & POLLIN))
			turn_away(c);
		if (!(pf[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		got = recv(c->fd, p, n, MSG_DONTWAIT);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got <= 0)
			return DOCA_ERROR_CONNECTION_RESET;
		p = (uint8_t *)p + got;
		n -= (size_t)got;
	}
	return DOCA_SUCCESS;
}

doca_error_t dc_chan_recv(struct dc_chan *c, uint16_t *type, void *payload, uint32_t max,
                          uint32_t *len, int timeout_ms)
{
	int64_t deadline = timeout_ms > 0 ? now_ms() + timeout_ms : 0;
	struct dc_hdr h;
	doca_error_t r;

	if (c->fd < 0)
		return DOCA_ERROR_CONNECTION_RESET;
	r = recv_all(c, &h, sizeof(h), deadline);
	if (r != DOCA_SUCCESS)
		return r;
	if (h.magic != DC_MSG_MAGIC || h.len > max || h.len > DC_MAX_PAYLOAD) {
		DOCA_LOG_ERR("malformed control message on %s (magic 0x%x, type %u, %u bytes)",
		             c->name, h.magic, h.type, h.len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	r = recv_all(c, payload, h.len, deadline);
	if (r != DOCA_SUCCESS)
		return r;
	if (h.type == DC_MSG_BUSY)
		return DOCA_ERROR_IN_USE;
	*type = h.type;
	*len = h.len;
	return DOCA_SUCCESS;
}

void dc_chan_close(struct dc_chan *c)
{
	struct stat st;

	if (c == NULL)
		return;
	if (c->fd >= 0)
		close(c->fd);
	if (c->lfd >= 0) {
		turn_away(c);
		close(c->lfd);
		/* Only the socket this server bound, if it is still there. */
		dc_cleanup_set(DC_CLEANUP_SOCKET, NULL, 0, 0);
		if (c->ino != 0 && lstat(c->name, &st) == 0 && S_ISSOCK(st.st_mode) &&
		    st.st_dev == c->dev && st.st_ino == c->ino)
			unlink(c->name);
	}
	free(c);
}
