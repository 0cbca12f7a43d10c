/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <nettle/hmac.h>

#include <doca_mmap.h>

#include "lk_peer.h"
#include "test_util.h"
#include "util/codec.h"
#include "xproc_util.h"

void lk_exporter_start(struct lk_exporter *e, uint32_t perms)
{
	uint8_t desc[1024];
	uint64_t hdr[2];
	uint16_t alen;

	e->buf = mmap(NULL, LK_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(e->buf != MAP_FAILED);
	e->pid = xu_spawn_exporter(e->buf, LK_LEN, perms, &e->fd);
	assert_true(e->pid > 0);
	assert_true(xu_full_io(e->fd, hdr, sizeof(hdr), false));
	assert_true(hdr[0] <= sizeof(desc) && xu_full_io(e->fd, desc, hdr[0], false));
	e->base = hdr[1];
	alen = (uint16_t)odma_get_le(desc + 128, 2);
	assert_true(hdr[0] == 136u + alen);
	if (alen != 20 || memcmp(desc + 132, "OTL1", 4) != 0) {
		printf("SKIP: the exporter does not run odma's TCP link (ODMA_LINK)\n");
		exit(ODMA_TEST_SKIP);
	}
	memset(&e->sa, 0, sizeof(e->sa));
	e->sa.sin_family = AF_INET;
	memcpy(&e->sa.sin_addr, desc + 136, 4);
	memcpy(&e->sa.sin_port, desc + 140, 2);
	e->instance = odma_get_le(desc + 144, 8);
	memcpy(e->key, desc + 64, 16);
	e->gen = (uint32_t)odma_get_le(desc + 96, 4);
	e->region = (uint32_t)odma_get_le(desc + 124, 4);
}

void lk_exporter_check(struct lk_exporter *e)
{
	static uint8_t back[LK_LEN];
	uint8_t cmd = 'R';
	int st;

	assert_int_equal(waitpid(e->pid, &st, WNOHANG), 0);
	assert_true(xu_full_io(e->fd, &cmd, 1, true) && xu_full_io(e->fd, back, LK_LEN, false));
	for (size_t i = 0; i < LK_LEN; i += 4093)
		assert_int_equal(back[i], xu_pattern(i));
	close(e->fd);
	xu_assert_child_ok(e->pid);
	munmap(e->buf, LK_LEN);
}

static void lk_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = 3 };
	int one = 1;

	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

int lk_connect(const struct lk_exporter *e)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (const struct sockaddr *)&e->sa, sizeof(e->sa)), 0);
	lk_timeouts(fd);
	return fd;
}

void lk_frame(int fd, unsigned int id, size_t hlen, uint32_t len, const void *body, size_t n)
{
	uint8_t h[8];

	h[0] = (uint8_t)id;
	h[1] = 0;
	odma_put_le(h + 2, hlen, 2);
	odma_put_le(h + 4, len, 4);
	(void)!send(fd, h, sizeof(h), MSG_NOSIGNAL);
	if (n != 0)
		(void)!send(fd, body, n, MSG_NOSIGNAL);
}

bool lk_closed(int fd)
{
	uint8_t b[256];
	ssize_t r;

	while ((r = recv(fd, b, sizeof(b), 0)) > 0)
		;
	close(fd);
	return r == 0 || (r < 0 && errno == ECONNRESET);
}

/* Reads exactly @n bytes; false on an end or a timeout. */
static bool lk_read(int fd, void *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = recv(fd, (uint8_t *)p + got, n - got, 0);

		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return true;
}

/*
 * What the link's proofs bind (link_tcp.c): its magic, the address and port the dialer dialled
 * (@fd's peer for a dialer, its own end for an acceptor) and the instance asked for.
 */
static void lk_bind(int fd, bool dialer, uint64_t instance, uint8_t out[22])
{
	struct sockaddr_in sa;
	socklen_t l = sizeof(sa);

	assert_int_equal(dialer ? getpeername(fd, (struct sockaddr *)&sa, &l)
	                        : getsockname(fd, (struct sockaddr *)&sa, &l),
	                 0);
	memcpy(out, "ODMALNK1", 8);
	memcpy(out + 8, &sa.sin_addr, 4);
	memcpy(out + 12, &sa.sin_port, 2);
	odma_put_le(out + 14, instance, 8);
}

/*
 * HMAC-SHA256 of @role, the binding @bind (its length first) and both nonces under the fabric
 * secret's key (fabric_auth.c).
 */
static void lk_proof(uint8_t role, const uint8_t bind[22], const uint8_t *first,
                     const uint8_t *second, uint8_t *out)
{
	const char *v = getenv("ODMA_FABRIC_SECRET");
	const uint8_t blen[2] = { 22, 0 };
	struct hmac_sha256_ctx h;
	struct sha256_ctx k;
	uint8_t key[32];

	assert_non_null(v);
	sha256_init(&k);
	sha256_update(&k, strlen(v), (const uint8_t *)v);
	sha256_digest(&k, 32, key);
	hmac_sha256_set_key(&h, 32, key);
	hmac_sha256_update(&h, 1, &role);
	hmac_sha256_update(&h, sizeof(blen), blen);
	hmac_sha256_update(&h, 22, bind);
	hmac_sha256_update(&h, 16, first);
	hmac_sha256_update(&h, 16, second);
	hmac_sha256_digest(&h, 32, out);
}

bool lk_handshake(int fd, uint64_t instance, bool secret)
{
	uint8_t hello[32] = { 'O', 'D', 'M', 'A', 'L', 'N', 'K', '1' }, ch[56], proof[32] = { 0 };
	uint8_t bind[22];

	lk_bind(fd, true, instance, bind);
	odma_put_le(hello + 8, instance, 8);
	memset(hello + 16, 0x33, 16);
	lk_frame(fd, 0xf1, 0, sizeof(hello), hello, sizeof(hello));
	if (!lk_read(fd, ch, sizeof(ch)) || ch[0] != 0xf2 || odma_get_le(ch + 4, 4) != 48)
		return false;
	if (secret)
		lk_proof('C', bind, ch + 8, hello + 16, proof);
	lk_frame(fd, 0xf3, 0, 32, proof, 32);
	return true;
}

int lk_listener(uint8_t addr[20], uint64_t instance)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t l = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0); /* port 0 */
	assert_int_equal(listen(fd, 16), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &l), 0);
	memcpy(addr, "OTL1", 4);
	memcpy(addr + 4, &sa.sin_addr, 4);
	memcpy(addr + 8, &sa.sin_port, 2);
	addr[10] = addr[11] = 0;
	odma_put_le(addr + 12, instance, 8);
	return fd;
}

int lk_accept(int l)
{
	uint8_t hello[40], ch[48], proof[40], bind[22];
	int fd = accept(l, NULL, NULL);

	assert_true(fd >= 0);
	lk_timeouts(fd);
	assert_true(lk_read(fd, hello, sizeof(hello)) && hello[0] == 0xf1);
	memset(ch, 0x44, 16);
	lk_bind(fd, false, odma_get_le(hello + 8 + 8, 8), bind);
	lk_proof('S', bind, hello + 8 + 16, ch, ch + 16);
	lk_frame(fd, 0xf2, 0, sizeof(ch), ch, sizeof(ch));
	assert_true(lk_read(fd, proof, sizeof(proof)) && proof[0] == 0xf3);
	return fd;
}

void lk_req(const struct lk_exporter *e, uint8_t out[64], uint8_t op, uint64_t id, uint64_t addr,
            uint64_t len)
{
	memset(out, 0, 64);
	odma_put_le(out, 0x514d444fu, 4); /* magic "ODMQ" */
	odma_put_le(out + 4, 1, 2);
	out[6] = op;
	odma_put_le(out + 8, id, 8);
	odma_put_le(out + 16, e->region, 4);
	odma_put_le(out + 20, e->gen, 4);
	memcpy(out + 24, e->key, 16);
	odma_put_le(out + 40, addr, 8);
	odma_put_le(out + 48, len, 8);
}

int lk_attach(const struct lk_exporter *e, int fd, int l, const uint8_t addr[20], uint64_t id)
{
	uint8_t q[64 + 20], rh[8 + 24];
	int back;

	lk_req(e, q, 1, id, 0, 0);
	memcpy(q + 64, addr, 20);
	lk_frame(fd, 11, 64, 20, q, sizeof(q));
	back = lk_accept(l);
	assert_true(lk_read(back, rh, sizeof(rh)));
	assert_int_equal(rh[0], 12); /* a reply */
	assert_int_equal(odma_get_le(rh + 8 + 8, 8), id);
	assert_int_equal((int32_t)odma_get_le(rh + 8 + 16, 4), 0);
	for (size_t left = odma_get_le(rh + 4, 4); left > 0;) { /* its payload: not ours to read */
		uint8_t b[256];
		size_t k = left < sizeof(b) ? left : sizeof(b);

		assert_true(lk_read(back, b, k));
		left -= k;
	}
	return back;
}
