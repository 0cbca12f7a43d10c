/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * odma's TCP link (core/transport/link_tcp.c) on its own, white box: this process opens it,
 * connects to itself and to listeners of its own, and progresses both ends. Messages arrive
 * whole, in order, with their bytes, on the connection they came on; a frame larger than the
 * socket takes is queued and its completion reported once; a payload made as it leaves is
 * made once, whole, also when the socket takes part of it; out of memory, a send fails or a
 * connection ends, and nothing else; a closed connection reports what
 * it had not sent, its peer hears of the end (the module's error callback for a connection it
 * made, `gone` for one it did not); a listener's callback accepts or rejects; an address of
 * another link, or of no listener, fails. The handshake with the fabric secret (the runtime
 * directory's cookie, or ODMA_FABRIC_SECRET) runs on every connection.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/transport/ucx_int.h"
#include "test_util.h"

#define MAXMSG 64

static struct {
	unsigned int n;     /* messages arrived */
	size_t len[MAXMSG]; /* their lengths */
	uint8_t first[MAXMSG];
	bool intact[MAXMSG]; /* every byte as sent (byte i: seed + i) */
	struct odma_lk_ep *on[MAXMSG];
	uint8_t *copy[MAXMSG]; /* the echoes' bytes */
	bool echo;             /* send each back on the connection it came on (but the dialer's) */
	struct odma_lk_ep *dialer;
	unsigned int sent_ok, sent_failed, errors, gone;
	int last_err, gone_status;
	struct odma_lk_ep *gone_ep;
	struct odma_lk_conn *conn;
	bool reject;
	struct odma_lk_ep *accepted;
	size_t refuse_above;  /* on_admit: frames longer than this are refused (0: none) */
	unsigned int admits;  /* on_admit's calls */
	size_t admit_len;     /* the length the last one asked about */
	bool admit_head_seen; /* its first bytes as sent, ODMA_LK_ADMIT_HEAD of them */
	bool gone_eproto;     /* a connection was gone for a protocol error */
	uint64_t slow_ns;     /* on_msg takes this long (a busy handler) */
} t;

static const struct odma_lk_ops *lk = &odma_lk_tcp;
static uint8_t self[ODMA_TP_ADDR_MAX];
static uint16_t self_len;

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i);
}

static void on_sent(void *arg, int status)
{
	(void)arg;
	if (status == ODMA_LK_OK)
		t.sent_ok++;
	else
		t.sent_failed++;
}

static void on_msg(const void *hdr, size_t hlen, void *data, size_t len,
                   const struct odma_lk_rx *rx)
{
	const uint8_t *d = data;
	unsigned int i = t.n++;
	bool ok = true;

	assert_true(i < MAXMSG);
	assert_int_equal(hlen, 16);
	assert_false(rx->rndv);
	t.len[i] = len;
	t.first[i] = ((const uint8_t *)hdr)[0];
	for (size_t k = 0; k < len && ok; k++)
		ok = d[k] == (uint8_t)(t.first[i] + k);
	t.intact[i] = ok;
	t.on[i] = rx->reply_ep;
	for (uint64_t end = odma_now_ns() + t.slow_ns; odma_now_ns() < end;)
		;
	/* a copy: what arrived lives only until the handler returns */
	if (t.echo && rx->reply_ep != t.dialer) {
		static struct odma_ucx_out o[MAXMSG];
		int r;

		t.copy[i] = malloc(len + 1);
		assert_non_null(t.copy[i]);
		memcpy(t.copy[i], data, len);
		odma_ucx_out_bytes(&o[i], t.copy[i], len);
		r = lk->send(rx->reply_ep, ODMA_UCX_AM_MSG, hdr, hlen, &o[i], 0, on_sent, NULL);
		assert_true(r == ODMA_LK_OK || r == ODMA_LK_INFLIGHT);
	}
}

static bool on_admit(const void *hdr, size_t hlen, const void *head, size_t plen, size_t len,
                     const struct odma_lk_rx *rx)
{
	const uint8_t *h = head;
	bool ok = plen == ODMA_LK_ADMIT_HEAD && hlen == 16 && rx->reply_ep != NULL;

	for (size_t k = 0; k < plen && ok; k++)
		ok = h[k] == (uint8_t)(((const uint8_t *)hdr)[0] + k);
	t.admits++;
	t.admit_len = len;
	t.admit_head_seen = ok;
	return t.refuse_above == 0 || len <= t.refuse_above;
}

static void on_err(void *arg, int status)
{
	(void)arg;
	t.errors++;
	t.last_err = status;
}

static void on_gone(struct odma_lk_ep *ep, int status)
{
	assert_true(status < 0);
	t.gone++;
	t.gone_ep = ep;
	t.gone_status = status;
	t.gone_eproto |= status == -EPROTO;
}

static void on_conn(struct odma_lk_conn *c, void *arg)
{
	(void)arg;
	t.conn = c;
	if (t.reject)
		lk->reject(NULL, c);
	else
		assert_int_equal(lk->ep_accept(c, &t, &t.accepted), ODMA_LK_OK);
}

/* Progresses until @cond holds or 5 s pass. */
#define RUN_UNTIL(cond)                                                                            \
	do {                                                                                       \
		uint64_t end_ = odma_now_ns() + 5000000000ull;                                     \
		while (!(cond) && odma_now_ns() < end_)                                            \
			(void)lk->progress();                                                      \
		assert_true(cond);                                                                 \
	} while (0)

static int setup(void **state)
{
	static const struct odma_lk_handler h[] = { { ODMA_UCX_AM_MSG, on_msg, 0, on_admit },
		                                    { ODMA_UCX_AM_CREDIT, on_msg, 100, NULL } };
	int wfd = -1;
	bool packs = false;
	size_t cut = 0;

	(void)state;
	assert_null(lk->open(h, 2, on_err, on_gone, self, &self_len, &wfd, &packs, &cut));
	assert_true(wfd >= 0 && packs && self_len == 20 && cut != 0 && cut <= ODMA_UCX_CHUNK_MAX);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	lk->close();
	return 0;
}

/* Sends @len bytes (seed @seed) on @ep, split in three pieces; what send returned. */
static int send_msg(struct odma_lk_ep *ep, uint8_t *buf, size_t len, uint8_t seed)
{
	uint8_t hdr[16] = { seed };
	struct iovec v[3] = { { buf, len / 3 },
		              { buf + len / 3, len / 3 },
		              { buf + 2 * (len / 3), len - 2 * (len / 3) } };
	static struct odma_ucx_out o[MAXMSG];
	static unsigned int k;
	struct odma_ucx_out *po = &o[k++ % MAXMSG];

	fill(buf, len, seed);
	odma_ucx_out_iov(po, v, 3);
	return lk->send(ep, ODMA_UCX_AM_MSG, hdr, sizeof(hdr), po, 0, on_sent, NULL);
}

/* Messages of 0 B to 24 MiB arrive whole and in order; each is echoed on its connection. */
static void test_round_trip(void **state)
{
	static const size_t sizes[] = { 0, 1, 4096, 65536, 1u << 20, 24u << 20, 7 };
	uint8_t *bufs[7];
	struct odma_lk_ep *ep = NULL;
	unsigned int inflight = 0;

	(void)state;
	memset(&t, 0, sizeof(t));
	t.echo = true;
	assert_int_equal(lk->ep_to_addr(self, self_len, &t, &ep), ODMA_LK_OK);
	t.dialer = ep;
	for (unsigned int i = 0; i < 7; i++) {
		int r;

		bufs[i] = malloc(sizes[i] + 1);
		assert_non_null(bufs[i]);
		r = send_msg(ep, bufs[i], sizes[i], (uint8_t)(10 + i));
		assert_true(r == ODMA_LK_OK || r == ODMA_LK_INFLIGHT);
		inflight += r == ODMA_LK_INFLIGHT;
	}
	/* 7 arrive at the acceptor, 7 come back on the connection we made: each in order */
	RUN_UNTIL(t.n == 14);
	for (unsigned int i = 0, there = 0, back = 0; i < 14; i++) {
		unsigned int k = t.on[i] == ep ? back++ : there++;

		assert_int_equal(t.len[i], sizes[k]);
		assert_int_equal(t.first[i], 10 + k);
		assert_true(t.intact[i]);
		if (t.on[i] != ep)
			t.gone_ep = t.on[i]; /* the acceptor's end */
	}
	/* the 24 MiB one did not fit the socket: queued, and reported once */
	assert_true(inflight >= 1);
	RUN_UNTIL(t.sent_ok >= inflight);
	assert_int_equal(t.sent_failed, 0);
	lk->ep_close(ep, false);
	/* the acceptor's end, a connection nobody made, is gone: reported to `gone` */
	{
		struct odma_lk_ep *acceptor = t.gone_ep;

		RUN_UNTIL(t.gone == 1);
		assert_ptr_equal(t.gone_ep, acceptor);
	}
	assert_int_equal(t.errors, 0); /* a close of ours is not a failure to report */
	for (unsigned int i = 0; i < 7; i++)
		free(bufs[i]);
	for (unsigned int i = 0; i < MAXMSG; i++)
		free(t.copy[i]);
}

/* A payload made as it leaves (odma_ucx_out.pack): byte k is (seed + k); bytes made counted. */
struct packed_out {
	struct odma_ucx_out o; /* first: the link hands pack this */
	uint8_t seed;
	size_t made;
};

static void pack_fill(struct odma_ucx_out *o, size_t offset, void *dest, size_t max)
{
	struct packed_out *p = (struct packed_out *)o;

	for (size_t i = 0; i < max; i++)
		((uint8_t *)dest)[i] = (uint8_t)(p->seed + offset + i);
	p->made += max;
}

/*
 * Payloads made as they leave, sent back to back until the socket is full: each is made once
 * (in the link's own buffer when the connection has nothing queued; a frame the socket took
 * only part of keeps the rest without being made again), and all arrive whole and in order,
 * also one larger than the link's buffer.
 */
static void test_payload_made_as_it_leaves(void **state)
{
	static const size_t sizes[] = { 100, 61440, 1u << 20, 61440, 3u << 20, 1u << 20, 61440 };
	enum { N = sizeof(sizes) / sizeof(sizes[0]), ROUNDS = 8 };
	static struct packed_out po[N * ROUNDS];
	struct odma_lk_ep *ep = NULL;
	uint8_t hello[1];
	unsigned int inflight = 0;

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_int_equal(lk->ep_to_addr(self, self_len, &t, &ep), ODMA_LK_OK);
	inflight = send_msg(ep, hello, 0, 0) == ODMA_LK_INFLIGHT; /* the connection goes live */
	RUN_UNTIL(t.n == 1 && t.sent_ok == inflight);
	for (unsigned int i = 0; i < N * ROUNDS; i++) {
		uint8_t hdr[16] = { (uint8_t)(1 + i) };
		int r;

		po[i] = (struct packed_out){ .seed = hdr[0] };
		po[i].o.pack = pack_fill;
		po[i].o.len = sizes[i % N];
		r = lk->send(ep, ODMA_UCX_AM_MSG, hdr, sizeof(hdr), &po[i].o, 0, on_sent, NULL);
		assert_true(r == ODMA_LK_OK || r == ODMA_LK_INFLIGHT);
		/* the first, on an idle connection: made and written at once, nothing allocated */
		if (i == 0)
			assert_int_equal(r, ODMA_LK_OK);
		inflight += r == ODMA_LK_INFLIGHT;
	}
	/* nobody reads the other end yet: the socket filled, the rest queued */
	assert_true(inflight >= 2);
	RUN_UNTIL(t.n == 1 + N * ROUNDS);
	RUN_UNTIL(t.sent_ok == inflight);
	for (unsigned int i = 0; i < N * ROUNDS; i++) {
		assert_int_equal(t.len[1 + i], sizes[i % N]);
		assert_int_equal(t.first[1 + i], 1 + i);
		assert_true(t.intact[1 + i]);
		assert_int_equal(po[i].made, sizes[i % N]);
	}
	assert_int_equal(t.sent_failed, 0);
	lk->ep_close(ep, false);
	RUN_UNTIL(t.gone == 1);
}

/*
 * Allocations of @oom_min bytes or more fail while it is not 0 (-Wl,--wrap, meson.build);
 * @allocs_64k counts those of 64 KiB (a queued frame's payload buffer, LT_SPARE_LEN).
 */
static size_t oom_min;
static unsigned int allocs_64k;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t sz);
void *__real_realloc(void *p, size_t n);

void *__wrap_malloc(size_t n);
void *__wrap_malloc(size_t n)
{
	allocs_64k += n == 65536;
	return oom_min != 0 && n >= oom_min ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t sz);
void *__wrap_calloc(size_t n, size_t sz)
{
	return oom_min != 0 && n * sz >= oom_min ? NULL : __real_calloc(n, sz);
}

void *__wrap_realloc(void *p, size_t n);
void *__wrap_realloc(void *p, size_t n)
{
	return oom_min != 0 && n >= oom_min ? NULL : __real_realloc(p, n);
}

/*
 * Queued frames' payload buffers are kept for the next ones: twice, a payload larger than the
 * socket takes (so everything after it queues) and then 20 of 60 KiB made as they leave, each
 * packed into a buffer of 64 KiB; the second time, every such buffer is one the first time's
 * frames gave back, and no new one is allocated. Every payload arrives whole and in order.
 */
static void test_queued_payloads_reuse_buffers(void **state)
{
	enum { SMALL = 20, PER = SMALL + 1 };
	static struct packed_out po[2 * PER];
	struct odma_lk_ep *ep = NULL;
	uint8_t hello[1];
	unsigned int inflight, allocs[2];

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_int_equal(lk->ep_to_addr(self, self_len, &t, &ep), ODMA_LK_OK);
	inflight = send_msg(ep, hello, 0, 0) == ODMA_LK_INFLIGHT; /* the connection goes live */
	RUN_UNTIL(t.n == 1 && t.sent_ok == inflight);
	for (unsigned int round = 0; round < 2; round++) {
		unsigned int a0 = allocs_64k;

		for (unsigned int k = 0; k < PER; k++) {
			unsigned int i = round * PER + k;
			uint8_t hdr[16] = { (uint8_t)(1 + i) };
			int r;

			po[i] = (struct packed_out){ .seed = hdr[0] };
			po[i].o.pack = pack_fill;
			po[i].o.len = k == 0 ? 16u << 20 : 61440;
			r = lk->send(ep, ODMA_UCX_AM_MSG, hdr, sizeof(hdr), &po[i].o, 0, on_sent,
			             NULL);
			/* nobody reads yet: the first fills the socket, the rest queue behind it */
			assert_int_equal(r, ODMA_LK_INFLIGHT);
			inflight++;
		}
		allocs[round] = allocs_64k - a0;
		RUN_UNTIL(t.n == 1 + (round + 1) * PER && t.sent_ok == inflight);
	}
	assert_int_equal(allocs[0], SMALL);
	assert_int_equal(allocs[1], 0);
	for (unsigned int i = 0; i < 2 * PER; i++) {
		assert_int_equal(t.len[1 + i], po[i].o.len);
		assert_int_equal(t.first[1 + i], 1 + i);
		assert_true(t.intact[1 + i]);
		assert_int_equal(po[i].made, po[i].o.len);
	}
	assert_int_equal(t.sent_failed, 0);
	lk->ep_close(ep, false);
	RUN_UNTIL(t.gone == 1);
}

/*
 * Out of memory: a send that needs memory (a payload made as it leaves, before the link has
 * its buffer) fails with -ENOMEM and nothing of it arrives, while one written from the caller's
 * pieces needs none; a receiver that cannot grow its buffer for a large frame ends that
 * connection, reported on both ends, and lives. With memory back, all works.
 */
static void test_out_of_memory(void **state)
{
	static uint8_t small[100], big[1u << 20];
	struct packed_out po = { .seed = 7 };
	uint8_t hdr[16] = { 7 };
	struct odma_lk_ep *ep = NULL;
	unsigned int queued;

	(void)teardown(state); /* a fresh link: it has no pack buffer yet */
	(void)setup(state);
	memset(&t, 0, sizeof(t));
	assert_int_equal(lk->ep_to_addr(self, self_len, &t, &ep), ODMA_LK_OK);
	queued = send_msg(ep, small, 0, 0) == ODMA_LK_INFLIGHT;
	RUN_UNTIL(t.n == 1 && t.sent_ok == queued);

	oom_min = 1;
	po.o.pack = pack_fill;
	po.o.len = 61440;
	assert_int_equal(lk->send(ep, ODMA_UCX_AM_MSG, hdr, sizeof(hdr), &po.o, 0, on_sent, NULL),
	                 -ENOMEM);
	assert_int_equal(send_msg(ep, small, sizeof(small), 8), ODMA_LK_OK);
	oom_min = 0;
	po = (struct packed_out){ .seed = 9 };
	po.o.pack = pack_fill;
	po.o.len = 61440;
	hdr[0] = 9;
	assert_int_equal(lk->send(ep, ODMA_UCX_AM_MSG, hdr, sizeof(hdr), &po.o, 0, on_sent, NULL),
	                 ODMA_LK_OK);
	RUN_UNTIL(t.n == 3);
	assert_int_equal(t.first[1], 8);
	assert_int_equal(t.len[1], sizeof(small));
	assert_int_equal(t.first[2], 9);
	assert_int_equal(t.len[2], 61440);
	assert_true(t.intact[1] && t.intact[2]);

	/* the receiver cannot hold a 1 MiB frame: that connection ends, on both sides */
	oom_min = 512u << 10;
	(void)send_msg(ep, big, sizeof(big), 11);
	RUN_UNTIL(t.gone == 1 && t.errors == 1);
	oom_min = 0;
	assert_int_equal(t.n, 3);
	assert_ptr_not_equal(t.gone_ep, ep);      /* the acceptor's end, */
	assert_int_equal(t.gone_status, -ENOMEM); /* for want of memory */
	lk->ep_close(ep, false);

	/* memory back: a new connection carries the same frame whole */
	memset(&t, 0, sizeof(t));
	assert_int_equal(lk->ep_to_addr(self, self_len, &t, &ep), ODMA_LK_OK);
	(void)send_msg(ep, big, sizeof(big), 12);
	RUN_UNTIL(t.n == 1);
	assert_int_equal(t.len[0], sizeof(big));
	assert_true(t.intact[0]);
	lk->ep_close(ep, false);
	RUN_UNTIL(t.gone == 1);
}

/*
 * A frame longer than a connection's receive buffer is asked about once its header and first
 * bytes are in (odma_lk_handler.admit), before a buffer is taken for it; one refused ends its
 * connection unread. A shorter one is not asked about. A frame past its id's max_len ends the
 * connection at its head.
 */
static void test_admission(void **state)
{
	size_t big = 2u << 20;
	uint8_t *buf = malloc(big), *small = malloc(65536), hdr[16] = { 5 };
	struct odma_lk_ep *ep = NULL;
	struct odma_ucx_out o;

	(void)state;
	assert_true(buf != NULL && small != NULL);
	memset(&t, 0, sizeof(t));
	t.refuse_above = 1u << 20;
	assert_int_equal(lk->ep_to_addr(self, self_len, &t, &ep), ODMA_LK_OK);
	assert_true(send_msg(ep, small, 65536, 1) >= 0); /* pieces stay ours until sent */
	assert_true(send_msg(ep, buf, 512u << 10, 2) >= 0);
	RUN_UNTIL(t.n == 2);
	assert_int_equal(t.admits, 1); /* the 64 KiB one fits the receive buffer */
	assert_int_equal(t.admit_len, 512u << 10);
	assert_true(t.admit_head_seen);
	assert_true(t.intact[0] && t.intact[1]);
	assert_true(send_msg(ep, buf, big, 3) >= 0);
	/* refused: its connection ends on both sides (an earlier test's may be reported too) */
	RUN_UNTIL(t.gone_eproto && t.errors == 1);
	assert_int_equal(t.admits, 2);
	assert_int_equal(t.admit_len, big);
	assert_int_equal(t.n, 2); /* never delivered */
	lk->ep_close(ep, false);
	/* 200 bytes of an id that takes 100 at most */
	memset(&t, 0, sizeof(t));
	assert_int_equal(lk->ep_to_addr(self, self_len, &t, &ep), ODMA_LK_OK);
	odma_ucx_out_bytes(&o, buf, 200);
	assert_true(lk->send(ep, ODMA_UCX_AM_CREDIT, hdr, sizeof(hdr), &o, 0, on_sent, NULL) >= 0);
	RUN_UNTIL(t.gone_eproto && t.errors == 1);
	assert_int_equal(t.n, 0);
	lk->ep_close(ep, false);
	free(buf);
	free(small);
}

/* A close with a frame still queued reports it failed, once; the peer sees the end. */
static void test_close_with_queued(void **state)
{
	uint8_t *big = malloc(32u << 20);
	struct odma_lk_ep *ep = NULL;

	(void)state;
	assert_non_null(big);
	memset(&t, 0, sizeof(t));
	assert_int_equal(lk->ep_to_addr(self, self_len, &t, &ep), ODMA_LK_OK);
	assert_int_equal(send_msg(ep, big, 32u << 20, 1), ODMA_LK_INFLIGHT); /* not live yet */
	lk->ep_close(ep, false);
	RUN_UNTIL(t.sent_failed == 1);
	assert_int_equal(t.sent_ok, 0);
	assert_int_equal(t.n, 0);
	free(big);
}

/* A listener's callback accepts (messages both ways) or rejects (the dialer's error). */
static void test_listener(void **state)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
		                  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct odma_lk_listener *l = NULL;
	struct odma_lk_ep *ep = NULL;
	uint16_t port = 0;
	uint8_t buf[100];

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_int_equal(lk->listen(&sa, on_conn, NULL, &l, &port), ODMA_LK_OK);
	assert_true(port != 0);
	sa.sin_port = htons(port);
	assert_int_equal(lk->ep_to_sock(&sa, &t, &ep), ODMA_LK_OK);
	assert_true(send_msg(ep, buf, sizeof(buf), 3) >= 0);
	RUN_UNTIL(t.n == 1 && t.accepted != NULL);
	assert_ptr_equal(t.on[0], t.accepted);
	assert_true(send_msg(t.accepted, buf, sizeof(buf), 4) >= 0);
	RUN_UNTIL(t.n == 2);
	assert_ptr_equal(t.on[1], ep);
	assert_true(t.intact[0] && t.intact[1]);
	lk->ep_close(t.accepted, false);
	RUN_UNTIL(t.errors == 1); /* the dialer's end failed: the module hears of it */
	lk->ep_close(ep, false);
	/* a rejected connection fails its dialer */
	memset(&t, 0, sizeof(t));
	t.reject = true;
	assert_int_equal(lk->ep_to_sock(&sa, &t, &ep), ODMA_LK_OK);
	RUN_UNTIL(t.errors == 1);
	assert_non_null(t.conn);
	lk->ep_close(ep, false);
	lk->listen_close(l);
}

/* An address of another link is refused at once; one nobody listens at fails its callback. */
static void test_bad_addresses(void **state)
{
	uint8_t other[20];
	struct odma_lk_ep *ep = NULL;
	struct sockaddr_in sa = { .sin_family = AF_INET,
		                  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct odma_lk_listener *l = NULL;
	uint16_t port = 0;

	(void)state;
	memset(&t, 0, sizeof(t));
	memcpy(other, self, sizeof(other));
	other[0] ^= 0xff;
	assert_int_equal(lk->ep_to_addr(other, sizeof(other), &t, &ep), -EAFNOSUPPORT);
	assert_int_equal(lk->ep_to_addr(self, 8, &t, &ep), -EAFNOSUPPORT);
	/* a port that was free a moment ago */
	assert_int_equal(lk->listen(&sa, on_conn, NULL, &l, &port), ODMA_LK_OK);
	lk->listen_close(l);
	sa.sin_port = htons(port);
	assert_int_equal(lk->ep_to_sock(&sa, &t, &ep), ODMA_LK_OK);
	RUN_UNTIL(t.errors == 1);
	assert_int_equal(t.last_err, -ECONNREFUSED);
	lk->ep_close(ep, false);
	/* an address whose process is gone (another instance at this port) */
	memset(&t, 0, sizeof(t));
	memcpy(other, self, sizeof(other));
	other[12] ^= 0x02;
	assert_int_equal(lk->ep_to_addr(other, sizeof(other), &t, &ep), ODMA_LK_OK);
	RUN_UNTIL(t.errors == 1);
	lk->ep_close(ep, false);
	RUN_UNTIL(lk->arm());
}

/*
 * A peer whose frames keep a handler busy (200 us each): one progress call hands over what
 * about a millisecond allows and returns, the rest in the calls after it, in order. One call
 * handled every frame a read brought in (4 MiB per connection, 64 connections: seconds of
 * handlers under a peer that keeps sending), and nothing else the thread had to do ran meanwhile.
 */
static void test_progress_bounded(void **state)
{
	enum { N = 60 };
	uint8_t buf[1];
	struct odma_lk_ep *ep = NULL;
	unsigned int most = 0;

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_int_equal(lk->ep_to_addr(self, self_len, &t, &ep), ODMA_LK_OK);
	for (unsigned int i = 0; i < N; i++) { /* queued until the connection is live: one write */
		int r = send_msg(ep, buf, 0, (uint8_t)i);

		assert_true(r == ODMA_LK_OK || r == ODMA_LK_INFLIGHT);
	}
	t.slow_ns = 200000;
	for (uint64_t end = odma_now_ns() + 5000000000ull; t.n < N && odma_now_ns() < end;) {
		unsigned int before = t.n;

		(void)lk->progress();
		if (t.n - before > most)
			most = t.n - before;
	}
	print_message("%u frames, at most %u in one progress call\n", t.n, most);
	assert_int_equal(t.n, N);
	for (unsigned int i = 0; i < N; i++)
		assert_int_equal(t.first[i], i);
	assert_true(most <= N / 2);
	t.slow_ns = 0;
	lk->ep_close(ep, false);
	RUN_UNTIL(t.gone == 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_payload_made_as_it_leaves),
		cmocka_unit_test(test_out_of_memory),
		cmocka_unit_test(test_queued_payloads_reuse_buffers),
		cmocka_unit_test(test_close_with_queued),
		cmocka_unit_test(test_admission),
		cmocka_unit_test(test_listener),
		cmocka_unit_test(test_bad_addresses),
		cmocka_unit_test(test_progress_bounded),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
