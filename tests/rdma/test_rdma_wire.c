/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The wire layer's transport-thread handler (white box: src/rdma/wire.c over the UCX
 * transport on loopback): a frame is handed to the handler as it arrives only while nothing
 * of the channel is queued and its reader is inside no frame, so frames stay in order; a
 * frame the handler declines is queued for the reader; a handler's -1 ends the channel; a
 * shutdown waits for an answer window open (an effect applied, its answer not yet written); a
 * long answer goes at the pace the peer takes it.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "rdma/rdma.h"

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static atomic_uint served;     /* frames the handler served */
static atomic_ullong last_tag; /* the last one's tag */

/* Serves RW_READ (checking its payload), declines others, ends the channel on RW_DISCONNECT. */
static int handler(void *arg, const struct rw_hdr *h, const uint8_t *p)
{
	assert_ptr_equal(arg, &served);
	if (h->type == RW_DISCONNECT)
		return -1;
	if (h->type != RW_READ)
		return 0;
	if (h->len != 3 || memcmp(p, "abc", 3) != 0)
		return -1;
	atomic_store(&last_tag, h->tag);
	atomic_fetch_add(&served, 1);
	return 1;
}

static void put(struct rw_chan *c, uint16_t type, uint64_t tag)
{
	struct rw_hdr h = { .magic = RW_MAGIC, .type = type, .tag = tag };

	assert_true(rw_write(c, &h, "abc", 3, NULL, 0));
}

/* Waits up to 5 s for the handler to have served @n frames. */
static void wait_served(unsigned int n)
{
	for (int i = 0; i < 5000 && atomic_load(&served) < n; i++)
		usleep(1000);
	assert_int_equal(atomic_load(&served), n);
}

static void test_fast_in_order(void **state)
{
	struct rw_lsn *l;
	struct rw_chan *cli, *srv;
	struct rw_hdr h;
	uint16_t port;

	(void)state;
	assert_int_equal(rw_listen("127.0.0.1", 0, &l, &port), DOCA_SUCCESS);
	cli = rw_dial("127.0.0.1", port);
	assert_non_null(cli);
	put(cli, RW_HELLO, 1); /* the peer is accepted once its first frame arrives */
	srv = rw_accept(l);
	assert_non_null(srv);
	assert_int_equal(rw_next(srv, &h, 5000), 1); /* no handler yet: queued */
	assert_int_equal(h.type, RW_HELLO);
	rw_open(srv);                              /* admitted: more frames may come */
	assert_int_equal(rw_next(srv, &h, 50), 0); /* the reader is inside no frame now */
	rw_set_fast(srv, handler, &served);

	/* served on the transport thread: nothing reaches the reader */
	put(cli, RW_READ, 2);
	wait_served(1);
	assert_int_equal(atomic_load(&last_tag), 2);
	assert_int_equal(rw_next(srv, &h, 100), 0);

	/* declined: queued, payload intact */
	put(cli, RW_SEND, 3);
	assert_int_equal(rw_next(srv, &h, 5000), 1);
	assert_int_equal(h.type, RW_SEND);
	assert_int_equal(h.tag, 3);
	assert_memory_equal(rw_payload(srv), "abc", 3);

	/* the reader is inside a frame: the next one waits for it, even one the handler takes */
	put(cli, RW_READ, 4);
	usleep(200000);
	assert_int_equal(atomic_load(&served), 1);
	assert_int_equal(rw_next(srv, &h, 5000), 1);
	assert_int_equal(h.type, RW_READ);
	assert_int_equal(h.tag, 4);
	assert_int_equal(rw_next(srv, &h, 50), 0);

	/* the reader is idle again: served here */
	put(cli, RW_READ, 5);
	wait_served(2);
	assert_int_equal(atomic_load(&last_tag), 5);

	/* -1: the channel ends, the reader sees the end */
	put(cli, RW_DISCONNECT, 6);
	assert_int_equal(rw_next(srv, &h, 5000), -1);

	rw_close(cli);
	rw_close(srv);
	rw_listen_free(l);
}

/* A listener on a port the kernel picks, a client dialed to it, the server side admitted. */
static void pair_open(struct rw_lsn **l, struct rw_chan **cli, struct rw_chan **srv)
{
	uint16_t port;

	assert_int_equal(rw_listen("127.0.0.1", 0, l, &port), DOCA_SUCCESS);
	*cli = rw_dial("127.0.0.1", port);
	assert_non_null(*cli);
	put(*cli, RW_HELLO, 1); /* the peer is accepted once its first frame arrives */
	*srv = rw_accept(*l);
	assert_non_null(*srv);
	rw_open(*srv);
}

/*
 * A peer that sends while the reader reads nothing (it waits for a posted receive, say) waits
 * itself once the carrier's credit is spent (core/transport: the reader holds at most
 * ODMA_TP_EP_WINDOW of it); every frame arrives, in order, as the reader takes them, each
 * giving its credit back (without that the stream would stall at the window, and the reader
 * time out).
 */
static void test_reader_gives_credit_back(void **state)
{
	enum { N = 400, LEN = 64 * 1024 }; /* 25 MiB: past the window */
	static uint8_t big[LEN];
	struct rw_lsn *l;
	struct rw_chan *cli, *srv;
	struct rw_hdr h;
	uint64_t want = 0;

	(void)state;
	assert_true((size_t)N * LEN > ODMA_TP_EP_WINDOW);
	pair_open(&l, &cli, &srv);
	for (unsigned int i = 0; i < N; i++) {
		struct rw_hdr f = { .magic = RW_MAGIC, .type = RW_SEND, .tag = 100 + i };

		memset(big, (int)(uint8_t)i, sizeof(big));
		assert_true(rw_write(cli, &f, big, sizeof(big), NULL, 0));
	}
	usleep(300000); /* the window fills; the rest waits at the sender */
	assert_int_equal(rw_next(srv, &h, 5000), 1);
	assert_int_equal(h.type, RW_HELLO);
	for (unsigned int i = 0; i < N; i++, want++) {
		uint8_t first, rest[LEN - 1];

		assert_int_equal(rw_next(srv, &h, 5000), 1);
		assert_int_equal(h.tag, 100 + i);
		assert_int_equal(h.len, LEN);
		assert_true(rw_read_all(srv, &first, 1) && rw_read_all(srv, rest, sizeof(rest)));
		assert_int_equal(first, (uint8_t)i);
		assert_int_equal(rest[LEN - 2], (uint8_t)i);
	}
	assert_int_equal(want, N);
	rw_close(cli);
	rw_close(srv);
	rw_listen_free(l);
}

/* The server side's answer: opened, then written 200 ms later, then closed. */
static void *late_answer(void *arg)
{
	struct rw_chan *srv = arg;
	struct rw_hdr h = { .magic = RW_MAGIC, .type = RW_RESP, .tag = 9 };

	usleep(200000); /* the effect is visible; the program disconnects meanwhile */
	assert_true(rw_write(srv, &h, "ok", 2, NULL, 0));
	rw_answer_end(srv);
	return NULL;
}

/*
 * An effect applied inside an answer window keeps its answer: a shutdown that comes while the
 * window is open waits for it, and the answer reaches the peer (NVIDIA's sync event responder
 * disconnects the moment it sees the requester's set); no window opens once it began.
 */
static void test_answer_window(void **state)
{
	struct rw_lsn *l;
	struct rw_chan *cli, *srv;
	struct rw_hdr h;
	pthread_t t;
	uint64_t t0;

	(void)state;
	pair_open(&l, &cli, &srv);
	assert_true(rw_answer_begin(srv));
	assert_int_equal(pthread_create(&t, NULL, late_answer, srv), 0);
	t0 = now_ms();
	rw_shutdown(srv);
	assert_true(now_ms() - t0 >= 150); /* it waited for the window */
	assert_false(rw_answer_begin(srv));
	pthread_join(t, NULL);
	assert_int_equal(rw_next(cli, &h, 5000), 1);
	assert_int_equal(h.type, RW_RESP);
	assert_int_equal(h.tag, 9);
	rw_close(cli);
	rw_close(srv);
	rw_listen_free(l);
}

enum { PACE_N = 300 };    /* 75 MiB of answer pieces */
static atomic_uint paced; /* pieces written so far */

/* A long answer (a read's) from the server side, paced as serve.c paces it. */
static void *long_answer(void *arg)
{
	static uint8_t piece[RW_PIECE_MAX];
	struct rw_chan *srv = arg;

	for (unsigned int i = 0; i < PACE_N; i++) {
		struct rw_hdr h = {
			.magic = RW_MAGIC, .type = RW_RESP, .tag = i, .flags = RW_F_MORE
		};

		memset(piece, (int)(uint8_t)i, sizeof(piece));
		if (!rw_write(srv, &h, piece, sizeof(piece), NULL, 0) || !rw_pace(srv))
			break;
		atomic_fetch_add(&paced, 1);
	}
	return NULL;
}

/*
 * A peer that stops taking a long answer holds the writer at the pace (rw_pace): what waits
 * to go out is at most RW_PACE_FRAMES pieces beyond what the peer's credit took, not the whole
 * answer; once the peer reads, the rest follows, in order.
 */
static void test_pace(void **state)
{
	struct rw_lsn *l;
	struct rw_chan *cli, *srv;
	struct rw_hdr h;
	pthread_t t;
	unsigned int held;

	(void)state;
	pair_open(&l, &cli, &srv);
	assert_int_equal(pthread_create(&t, NULL, long_answer, srv), 0);
	usleep(500000);
	held = atomic_load(&paced);
	assert_true(held <= RW_PACE_FRAMES + ODMA_TP_EP_WINDOW / RW_PIECE_MAX + 1);
	for (unsigned int i = 0; i < PACE_N; i++) {
		uint8_t b = 0;

		assert_int_equal(rw_next(cli, &h, 5000), 1);
		assert_int_equal(h.tag, i);
		assert_int_equal(h.len, RW_PIECE_MAX);
		assert_true(rw_skip(cli, RW_PIECE_MAX - 1) && rw_read_all(cli, &b, 1));
		assert_int_equal(b, (uint8_t)i);
	}
	pthread_join(t, NULL);
	assert_int_equal(atomic_load(&paced), PACE_N);
	rw_close(cli);
	rw_close(srv);
	rw_listen_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fast_in_order),
		cmocka_unit_test(test_reader_gives_credit_back),
		cmocka_unit_test(test_answer_window),
		cmocka_unit_test(test_pace),
	};

	if (rw_absent() != NULL) {
		print_message("skipped: %s\n", rw_absent());
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
