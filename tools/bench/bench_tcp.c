/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The raw TCP baseline: what a plain TCP stream moves over the same link as odma's network
 * rows (loopback for --rdma; loopback or the run's veth pair for --xproc --transport ucx). A
 * sink thread, started where the far side runs (in its network namespace), accepts streams;
 * each stream begins with its message size (8 bytes, little-endian), then carries messages of
 * that size, and the sink acknowledges each with one byte. The source keeps @depth messages
 * unacknowledged, as odma keeps that many tasks in flight, and counts what was acknowledged.
 *
 * Where the bytes sit matters as much as the link: a stream that sends one buffer again and
 * again copies from memory the cache already holds, while odma's rows walk DEPTH slots of SIZE
 * bytes each. So each stream names its slots: the source sends message n from slot n % src of
 * its buffer, and the sink (told dst in the stream's header, after the size) receives it into
 * slot n % dst of its own. One slot on each side is the hot stream.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench.h"

#define BT_SIZE_MAX (64u << 20)   /* the largest message a sink takes */
#define BT_BYTES_MAX (256u << 20) /* and the most bytes of slots it allocates */

/* The little-endian 8-byte value at @p. */
static uint64_t bt_get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* One stream: messages of the announced size into the announced slots, one byte of ack each. */
static void *bt_serve(void *arg)
{
	int fd = (int)(intptr_t)arg;
	uint8_t hdr[16], *buf = NULL;
	uint64_t size = 0, slots = 0, n = 0;
	char ack = 'a';

	if (bench_full_io(fd, hdr, sizeof(hdr), false)) {
		size = bt_get64(hdr);
		slots = bt_get64(hdr + 8);
		if (size > 0 && size <= BT_SIZE_MAX && slots > 0 && slots <= BT_BYTES_MAX / size)
			buf = malloc((size_t)(size * slots));
	}
	while (buf != NULL && bench_full_io(fd, buf + (n++ % slots) * size, (size_t)size, false) &&
	       send(fd, &ack, 1, MSG_NOSIGNAL) == 1)
		;
	free(buf);
	close(fd);
	return NULL;
}

/* The sink's listener: each stream on a thread of its own, until the process ends. */
static void *bt_listen(void *arg)
{
	int l = (int)(intptr_t)arg;

	for (;;) {
		int fd = accept(l, NULL, NULL), one = 1;
		pthread_t th;

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			break;
		}
		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (pthread_create(&th, NULL, bt_serve, (void *)(intptr_t)fd) != 0)
			close(fd);
		else
			pthread_detach(th);
	}
	close(l);
	return NULL;
}

int bench_tcp_sink_start(const char *addr, uint16_t *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0);
	pthread_t th;

	if (l < 0)
		return -1;
	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1 || bind(l, (struct sockaddr *)&a, al) != 0 ||
	    listen(l, 4) != 0 || getsockname(l, (struct sockaddr *)&a, &al) != 0 ||
	    pthread_create(&th, NULL, bt_listen, (void *)(intptr_t)l) != 0) {
		close(l);
		return -1;
	}
	pthread_detach(th);
	*port = ntohs(a.sin_port);
	return 0;
}

double bench_tcp_stream(const char *addr, uint16_t port, size_t size, unsigned int depth,
                        unsigned int src_slots, unsigned int dst_slots, double seconds)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int c = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	bool fits = size > 0 && size <= BT_SIZE_MAX && src_slots > 0 && dst_slots > 0;
	uint8_t *buf;
	uint64_t n = 0, acked = 0;
	double t0 = 0, t1 = 0;
	char ack[64];

	/* at most BT_BYTES_MAX of slots a side: past it they wrap sooner */
	if (fits && src_slots > BT_BYTES_MAX / size)
		src_slots = (unsigned int)(BT_BYTES_MAX / size);
	if (fits && dst_slots > BT_BYTES_MAX / size)
		dst_slots = (unsigned int)(BT_BYTES_MAX / size);
	buf = fits ? calloc(src_slots, size > 16 ? size : 16) : NULL;

	if (c < 0 || buf == NULL || depth == 0 || inet_pton(AF_INET, addr, &a.sin_addr) != 1 ||
	    connect(c, (struct sockaddr *)&a, sizeof(a)) != 0)
		goto out;
	(void)setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	for (int i = 0; i < 8; i++) {
		buf[i] = (uint8_t)((uint64_t)size >> (8 * i));
		buf[8 + i] = (uint8_t)((uint64_t)dst_slots >> (8 * i));
	}
	if (!bench_full_io(c, buf, 16, true))
		goto out;
	t0 = bench_now_ns() / 1e9;
	while ((t1 = bench_now_ns() / 1e9) - t0 < seconds) {
		ssize_t k;

		for (; n - acked < depth; n++)
			if (!bench_full_io(c, buf + (n % src_slots) * size, size, true))
				goto out;
		k = recv(c, ack, sizeof(ack), 0);
		if (k <= 0)
			break;
		acked += (uint64_t)k;
	}
out:
	if (c >= 0)
		close(c);
	free(buf);
	return t1 > t0 ? (double)acked * (double)size / (t1 - t0) : -1;
}
