/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The wire layer of DOCA RDMA: TCP streams, frames and the connection blob. This is the
 * one file that knows sockets; it is to be replaced by the endpoints of src/core/transport
 * (issue 20: odma_tp_listen, odma_tp_connect, odma_tp_ep_send over UCX) once that module
 * is on main, leaving the rest of src/rdma unchanged.
 *
 * Blob (RW_BLOB_LEN = 104 bytes, little-endian; offsets in enum below): magic "ODMARDMA",
 * u16 version 1, u16 length, u8 transport, u8 address count, u16 listener port, u32
 * connection id, key[16], u64 context nonce, u64 network namespace inode, boot id[16],
 * 8 IPv4 addresses, CRC32C. Nothing in it is an address in this process: valid anywhere.
 */
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rdma/rdma.h"
#include "util/codec.h"

/* Layout offsets of the blob. */
enum {
	BO_MAGIC = 0,
	BO_VERSION = 8,
	BO_LEN = 10,
	BO_TRANSPORT = 12,
	BO_NADDRS = 13,
	BO_PORT = 14,
	BO_CONN = 16,
	BO_KEY = 20,
	BO_NONCE = 36,
	BO_NETNS = 44,
	BO_BOOT = 52,
	BO_ADDRS = 68,
	BO_CRC = 68 + 4 * RW_BLOB_MAX_ADDRS,
};
#define BLOB_LEN (BO_CRC + 4)
_Static_assert(BLOB_LEN == RW_BLOB_LEN, "blob layout");

int rw_listen(uint16_t port, uint16_t *bound)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(port) };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct sockaddr_storage got;
	socklen_t gl = sizeof(got);
	int one = 1, zero = 0;
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);

	/* dual stack where IPv6 exists, else IPv4 only */
	if (fd >= 0 && (setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) != 0 ||
	                setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	                bind(fd, (struct sockaddr *)&a6, sizeof(a6)) != 0)) {
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -1;
		if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
		    bind(fd, (struct sockaddr *)&a4, sizeof(a4)) != 0) {
			int e = errno;

			close(fd);
			errno = e;
			return -1;
		}
	}
	if (listen(fd, 64) != 0 || getsockname(fd, (struct sockaddr *)&got, &gl) != 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	*bound = ntohs(got.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&got)->sin6_port
	                                         : ((struct sockaddr_in *)&got)->sin_port);
	return fd;
}

static void rw_tune(int fd)
{
	int one = 1;

	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int rw_dial(const struct rw_addr *a, uint32_t timeout_ms)
{
	struct pollfd p;
	int err = 0, fd, fl;
	socklen_t el = sizeof(err);

	fd = socket(a->ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (const struct sockaddr *)&a->ss, a->len) != 0) {
		if (errno != EINPROGRESS)
			goto fail;
		p = (struct pollfd){ .fd = fd, .events = POLLOUT };
		if (poll(&p, 1, (int)timeout_ms) != 1) {
			errno = ETIMEDOUT;
			goto fail;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0 || err != 0) {
			errno = err ? err : EIO;
			goto fail;
		}
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0)
		goto fail;
	rw_tune(fd);
	return fd;
fail:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

int rw_accept(int lfd)
{
	int fd;

	do
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	while (fd < 0 && (errno == EINTR || errno == ECONNABORTED));
	if (fd >= 0)
		rw_tune(fd);
	return fd;
}

bool rw_read_all(int fd, void *buf, size_t n)
{
	uint8_t *p = buf;

	while (n > 0) {
		ssize_t k = recv(fd, p, n, 0);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		p += k;
		n -= (size_t)k;
	}
	return true;
}

bool rw_read_hdr(int fd, struct rw_hdr *h)
{
	return rw_read_all(fd, h, sizeof(*h)) && h->magic == RW_MAGIC;
}

bool rw_skip(int fd, uint64_t n)
{
	uint8_t tmp[4096];

	while (n > 0) {
		size_t k = n < sizeof(tmp) ? (size_t)n : sizeof(tmp);

		if (!rw_read_all(fd, tmp, k))
			return false;
		n -= k;
	}
	return true;
}

bool rw_write(int fd, const struct rw_hdr *h, const void *p1, size_t n1, const void *p2, size_t n2)
{
	struct iovec v[3] = { { (void *)h, sizeof(*h) }, { (void *)p1, n1 }, { (void *)p2, n2 } };
	struct msghdr m = { .msg_iov = v, .msg_iovlen = 3 };

	while (m.msg_iovlen > 0) {
		ssize_t k = sendmsg(fd, &m, MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return false;
		while (m.msg_iovlen > 0 && (size_t)k >= m.msg_iov[0].iov_len) {
			k -= (ssize_t)m.msg_iov[0].iov_len;
			m.msg_iov++;
			m.msg_iovlen--;
		}
		if (m.msg_iovlen > 0) {
			m.msg_iov[0].iov_base = (uint8_t *)m.msg_iov[0].iov_base + k;
			m.msg_iov[0].iov_len -= (size_t)k;
		}
	}
	return true;
}

void rw_shutdown(int fd)
{
	if (fd >= 0)
		(void)shutdown(fd, SHUT_RDWR);
}

void rw_close(int fd)
{
	if (fd >= 0)
		close(fd);
}

/* ---------------------------------------------------------------- blob */

static void rw_self_ident(uint64_t *netns, uint8_t boot_id[16])
{
	struct stat st;
	char text[64] = { 0 };
	FILE *f;
	unsigned int j = 0;

	*netns = stat("/proc/self/ns/net", &st) == 0 ? (uint64_t)st.st_ino : 0;
	memset(boot_id, 0, 16);
	f = fopen("/proc/sys/kernel/random/boot_id", "re");
	if (f == NULL)
		return;
	if (fgets(text, sizeof(text), f) != NULL)
		for (unsigned int i = 0; text[i] != '\0' && j < 32; i++) {
			char c = text[i];
			int v = c >= '0' && c <= '9'   ? c - '0'
			        : c >= 'a' && c <= 'f' ? c - 'a' + 10
			                               : -1;

			if (v < 0)
				continue;
			boot_id[j / 2] = (uint8_t)(boot_id[j / 2] << 4 | (uint8_t)v);
			j++;
		}
	fclose(f);
}

void rw_blob_self(struct rw_blob *b)
{
	struct ifaddrs *ifa = NULL;

	rw_self_ident(&b->netns, b->boot_id);
	b->naddrs = 0;
	if (getifaddrs(&ifa) != 0)
		return;
	for (struct ifaddrs *i = ifa; i != NULL && b->naddrs < RW_BLOB_MAX_ADDRS; i = i->ifa_next) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)(void *)i->ifa_addr;

		if (sin == NULL || sin->sin_family != AF_INET || (i->ifa_flags & IFF_LOOPBACK) ||
		    !(i->ifa_flags & IFF_UP))
			continue;
		memcpy(b->addrs[b->naddrs++], &sin->sin_addr, 4);
	}
	freeifaddrs(ifa);
}

void rw_blob_encode(const struct rw_blob *b, uint8_t out[RW_BLOB_LEN])
{
	memset(out, 0, RW_BLOB_LEN);
	memcpy(out + BO_MAGIC, "ODMARDMA", 8);
	odma_put_le(out + BO_VERSION, 1, 2);
	odma_put_le(out + BO_LEN, BLOB_LEN, 2);
	out[BO_TRANSPORT] = b->transport;
	out[BO_NADDRS] = b->naddrs;
	odma_put_le(out + BO_PORT, b->port, 2);
	odma_put_le(out + BO_CONN, b->conn_id, 4);
	memcpy(out + BO_KEY, b->key, 16);
	odma_put_le(out + BO_NONCE, b->nonce, 8);
	odma_put_le(out + BO_NETNS, b->netns, 8);
	memcpy(out + BO_BOOT, b->boot_id, 16);
	for (unsigned int i = 0; i < b->naddrs && i < RW_BLOB_MAX_ADDRS; i++)
		memcpy(out + BO_ADDRS + 4 * i, b->addrs[i], 4);
	odma_put_le(out + BO_CRC, odma_crc32c(out, BO_CRC), 4);
}

const char *rw_blob_parse(const void *bytes, size_t len, struct rw_blob *b)
{
	const uint8_t *p = bytes;

	if (p == NULL || len != BLOB_LEN || memcmp(p + BO_MAGIC, "ODMARDMA", 8) != 0)
		return "not an odma RDMA connection blob (wrong magic or length)";
	if (odma_get_le(p + BO_VERSION, 2) != 1 || odma_get_le(p + BO_LEN, 2) != BLOB_LEN)
		return "unknown connection blob version";
	if (odma_get_le(p + BO_CRC, 4) != odma_crc32c(p, BO_CRC))
		return "connection blob checksum mismatch (corrupted in transit)";
	if (p[BO_TRANSPORT] > DOCA_RDMA_TRANSPORT_TYPE_DC || p[BO_NADDRS] > RW_BLOB_MAX_ADDRS ||
	    odma_get_le(p + BO_PORT, 2) == 0 || odma_get_le(p + BO_CONN, 4) == 0)
		return "connection blob has an impossible transport, address count, port or id";
	memset(b, 0, sizeof(*b));
	b->transport = p[BO_TRANSPORT];
	b->naddrs = p[BO_NADDRS];
	b->port = (uint16_t)odma_get_le(p + BO_PORT, 2);
	b->conn_id = (uint32_t)odma_get_le(p + BO_CONN, 4);
	memcpy(b->key, p + BO_KEY, 16);
	b->nonce = odma_get_le(p + BO_NONCE, 8);
	b->netns = odma_get_le(p + BO_NETNS, 8);
	memcpy(b->boot_id, p + BO_BOOT, 16);
	for (unsigned int i = 0; i < b->naddrs; i++)
		memcpy(b->addrs[i], p + BO_ADDRS + 4 * i, 4);
	return NULL;
}

static uint64_t rw_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int rw_dial4(const uint8_t ip[4], uint16_t port, uint32_t timeout_ms)
{
	struct rw_addr a = { .len = sizeof(struct sockaddr_in) };
	struct sockaddr_in *s = (struct sockaddr_in *)&a.ss;

	s->sin_family = AF_INET;
	s->sin_port = htons(port);
	memcpy(&s->sin_addr, ip, 4);
	return rw_dial(&a, timeout_ms);
}

int rw_blob_dial(const struct rw_blob *b, uint32_t timeout_ms)
{
	static const uint8_t lo[4] = { 127, 0, 0, 1 };
	uint64_t netns, end = rw_now_ms() + timeout_ms;
	uint8_t boot[16];
	int fd = -1;

	rw_self_ident(&netns, boot);
	if (netns == b->netns && memcmp(boot, b->boot_id, 16) == 0)
		return rw_dial4(lo, b->port, timeout_ms);
	/* another namespace or machine: its addresses, each given a share of the time left */
	for (unsigned int i = 0; i < b->naddrs && fd < 0; i++) {
		uint64_t now = rw_now_ms();
		uint32_t left = now < end ? (uint32_t)(end - now) : 1;

		fd = rw_dial4(b->addrs[i], b->port, left / (b->naddrs - i));
	}
	if (fd < 0 && b->naddrs == 0)
		errno = EHOSTUNREACH;
	return fd;
}
