/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * DOCA RDMA against a hostile peer of ours that speaks the wire by hand (src/rdma/wire.c,
 * white box), with the target in its own process (rdma_hostile_target: a CM listener that
 * answers no request, one receive posted). What a peer that the program has not admitted
 * gets: no data delivered (a send after a CM request, before any accept), no thread and no
 * buffer (silent connections, an oversized or a wrong first frame), a deadline for its first
 * frame, a cap on how many wait, no connection beyond the context's; and the target stays up
 * and serves the next client.
 */
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "rdma/rdma.h"
#include "test_exec.h"
#include "test_util.h"

/* A sanitizer's allocator keeps freed memory a while: the target's size says nothing there. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RSS_BOUND_KB LONG_MAX
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define RSS_BOUND_KB LONG_MAX
#endif
#endif
#ifndef RSS_BOUND_KB
#define RSS_BOUND_KB (48L * 1024)
#endif

static pid_t target;
static FILE *to_target, *from_target;
static uint16_t cm_port, oob_port;
static struct rw_blob oob_blob;
static struct rw_lsn *cm_lsn; /* our hand-made CM server, that the target dials */
static uint16_t cm_lsn_port;

struct tstat {
	int requests, received, threads;
	long rss_kb;
	int established, failed, disconnected, sends_ok, sends_failed;
};

static struct tstat stat_of_target(void)
{
	struct tstat s = { 0 };
	char line[256];

	fputs("s\n", to_target);
	fflush(to_target);
	assert_non_null(fgets(line, sizeof(line), from_target));
	assert_int_equal(sscanf(line,
	                        "requests %d received %d threads %d rss_kb %ld established %d "
	                        "failed %d disconnected %d sends_ok %d sends_failed %d",
	                        &s.requests, &s.received, &s.threads, &s.rss_kb, &s.established,
	                        &s.failed, &s.disconnected, &s.sends_ok, &s.sends_failed),
	                 9);
	return s;
}

/* Waits up to 8 s for the target's count at @off (in struct tstat) to reach @want. */
static void count_reaches(size_t off, int want)
{
	struct tstat s = stat_of_target();

	for (int i = 0; i < 800 && *(int *)((char *)&s + off) != want; i++) {
		usleep(10000);
		s = stat_of_target();
	}
	assert_int_equal(*(int *)((char *)&s + off), want);
}

#define COUNT_REACHES(field, want) count_reaches(offsetof(struct tstat, field), (want))

static int unhex(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Parses a connection blob the target printed in hex: whether it is one. */
static bool blob_of(const char *hex, struct rw_blob *b)
{
	uint8_t blob[RW_BLOB_LEN];

	if (strlen(hex) < 2 * RW_BLOB_LEN)
		return false;
	for (size_t i = 0; i < RW_BLOB_LEN; i++)
		blob[i] = (uint8_t)(unhex(hex[2 * i]) << 4 | unhex(hex[2 * i + 1]));
	return rw_blob_parse(blob, sizeof(blob), b) == NULL;
}

static int start_target(void **state)
{
	int in[2], out[2];
	char line[1024], port[16];
	const char *exe = getenv("ODMA_RDMA_HOSTILE_TARGET");
	char *hex;

	(void)state;
	if (exe == NULL || pipe(in) != 0 || pipe(out) != 0)
		return -1;
	snprintf(port, sizeof(port), "0"); /* the target listens on a port the kernel picks */
	target = fork();
	if (target == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		{
			char *args[] = { (char *)exe, port, NULL };

			tu_execv(exe, args); /* through the emulator under qemu-user */
		}
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	to_target = fdopen(in[1], "w");
	from_target = fdopen(out[0], "r");
	if (fgets(line, sizeof(line), from_target) == NULL || strncmp(line, "ready ", 6) != 0)
		return -1;
	cm_port = (uint16_t)strtoul(line + 6, NULL, 10);
	hex = strchr(line + 6, ' ');
	if (hex == NULL || !blob_of(hex + 1, &oob_blob))
		return -1;
	oob_port = oob_blob.port;
	return rw_listen("127.0.0.1", 0, &cm_lsn, &cm_lsn_port) == DOCA_SUCCESS ? 0 : -1;
}

static int stop_target(void **state)
{
	int st = 0;

	(void)state;
	fputs("q\n", to_target);
	fflush(to_target);
	if (waitpid(target, &st, 0) != target || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -1;
	fclose(to_target);
	fclose(from_target);
	rw_listen_shutdown(cm_lsn);
	rw_listen_free(cm_lsn);
	return 0;
}

static void put(struct rw_chan *c, uint16_t type, const void *p, size_t n)
{
	struct rw_hdr h = { .magic = RW_MAGIC, .type = type, .arg1 = 1000 };

	assert_true(rw_write(c, &h, p, n, NULL, 0));
}

/* Whether the target closed our channel within @ms (what it sent before is skipped). */
static bool closed_within(struct rw_chan *c, uint32_t ms)
{
	uint64_t end = rw_now_ms() + ms;
	struct rw_hdr h;

	for (;;) {
		int r = rw_next(c, &h, 50);

		if (r < 0)
			return true;
		if (rw_now_ms() > end)
			return false;
	}
}

/* Our channel @c was closed by the target within 5 s; it is freed. */
static void closed_by_target(struct rw_chan *c)
{
	assert_true(closed_within(c, 5000));
	rw_close(c);
}

/*
 * A request callback is raised and left unanswered; a send before any accept is refused: not
 * delivered then, nor after the program accepts (the accept fails: the client broke the rules).
 */
static void test_data_before_accept(void **state)
{
	struct tstat before = stat_of_target(), after;
	struct rw_chan *c = rw_dial("127.0.0.1", cm_port);
	char line[64];

	(void)state;
	assert_non_null(c);
	put(c, RW_CM_REQ, NULL, 0);
	for (int i = 0; i < 500 && stat_of_target().requests == before.requests; i++)
		usleep(10000);
	assert_int_equal(stat_of_target().requests, before.requests + 1);
	put(c, RW_SEND, "stolen", 6); /* the posted receive must not see it */
	usleep(300000);
	after = stat_of_target();
	assert_int_equal(after.received, before.received);
	assert_int_equal(after.threads, before.threads);
	fputs("a\n", to_target);
	fflush(to_target);
	assert_non_null(fgets(line, sizeof(line), from_target));
	assert_string_equal(line, "accepted 1\n"); /* CONNECTION_ABORTED */
	assert_true(closed_within(c, 5000));
	usleep(200000);
	after = stat_of_target();
	assert_int_equal(after.received, before.received);
	assert_int_equal(after.threads, before.threads);
	assert_int_equal(after.failed, before.failed); /* the accept failed: no callback follows */
	rw_close(c);
}

/* A first frame longer than an opening frame is refused before it reaches the context. */
static void test_oversized_first_frame(void **state)
{
	size_t n = 8u << 20;
	uint8_t *big = calloc(1, n);
	struct tstat before = stat_of_target(), after;
	struct rw_chan *c = rw_dial("127.0.0.1", cm_port);

	(void)state;
	assert_non_null(big);
	assert_non_null(c);
	put(c, RW_CM_REQ, big, n);
	assert_true(closed_within(c, 5000));
	after = stat_of_target();
	assert_int_equal(after.requests, before.requests);
	assert_int_equal(after.threads, before.threads);
	rw_close(c);
	free(big);
}

/* A first frame that opens nothing (a send; a HELLO with a payload) closes the connection. */
static void test_wrong_first_frame(void **state)
{
	struct tstat before = stat_of_target(), after;
	struct rw_chan *c = rw_dial("127.0.0.1", cm_port), *o = rw_dial("127.0.0.1", oob_port);

	(void)state;
	assert_non_null(c);
	assert_non_null(o);
	put(c, RW_SEND, NULL, 0);
	put(o, RW_HELLO, "payload", 7);
	assert_true(closed_within(c, 5000));
	assert_true(closed_within(o, 5000));
	after = stat_of_target();
	assert_int_equal(after.requests, before.requests);
	assert_int_equal(after.received, before.received);
	assert_int_equal(after.threads, before.threads);
	rw_close(c);
	rw_close(o);
}

/*
 * 200 silent connections, 100 on each listener: none costs a thread, at most 64 wait on each
 * (the rest are closed within 200 ms), and every one is closed by the first frame's deadline
 * (5 s).
 */
static void test_silent_connections(void **state)
{
	enum { N = 200 };
	struct rw_chan *c[N];
	struct tstat before = stat_of_target(), during, after;
	int gone = 0;

	(void)state;
	for (int i = 0; i < N; i++) {
		c[i] = rw_dial("127.0.0.1", i % 2 ? cm_port : oob_port);
		assert_non_null(c[i]);
	}
	usleep(500000);
	during = stat_of_target();
	assert_int_equal(during.threads, before.threads);
	for (int i = 0; i < N; i++)
		gone += closed_within(c[i], 1);
	assert_true(gone >= N - 2 * 64); /* each of the two listeners keeps at most 64 */
	for (int i = 0; i < N; i++)
		assert_true(closed_within(c[i], 8000));
	after = stat_of_target();
	assert_int_equal(after.threads, before.threads);
	assert_int_equal(after.requests, before.requests);
	for (int i = 0; i < N; i++)
		rw_close(c[i]);
}

/* A CM connection request of ours to the target's listener at @port. */
static struct rw_chan *cm_request_to(uint16_t port)
{
	struct rw_chan *c = rw_dial("127.0.0.1", port);

	assert_non_null(c);
	put(c, RW_CM_REQ, NULL, 0);
	return c;
}

/*
 * A CM request on the out-of-band listener (a port the program never listens on for RDMA CM)
 * reaches no request callback: it is closed.
 */
static void test_cm_request_on_oob_port(void **state)
{
	struct tstat before = stat_of_target();
	struct rw_chan *c = cm_request_to(oob_port);

	(void)state;
	assert_true(closed_within(c, 5000));
	usleep(100 * 1000);
	assert_int_equal(stat_of_target().requests, before.requests);
	rw_close(c);
}

/* A HELLO with a forged key is answered NOT_FOUND and closed; no thread is left behind. */
static void test_forged_hello(void **state)
{
	struct tstat before = stat_of_target();
	struct rw_chan *c = rw_dial("127.0.0.1", oob_port);
	struct rw_hdr h = { .magic = RW_MAGIC, .type = RW_HELLO, .arg0 = oob_blob.conn_id };
	struct rw_hdr resp;

	(void)state;
	assert_non_null(c);
	memcpy(h.key, oob_blob.key, 16);
	h.key[0] ^= 1;
	assert_true(rw_write(c, &h, NULL, 0, NULL, 0));
	assert_true(rw_read_hdr(c, &resp, 5000));
	assert_int_equal(resp.type, RW_RESP);
	assert_int_equal(resp.status, DOCA_ERROR_NOT_FOUND);
	assert_true(closed_within(c, 5000));
	assert_int_equal(stat_of_target().threads, before.threads);
	rw_close(c);
}

/*
 * A channel admitted by a HELLO on a connection the target exported just now (its stream's
 * reader running; no request answered before the HELLO's).
 */
static struct rw_chan *admitted(void)
{
	char line[1024];
	struct rw_blob b;
	struct rw_hdr h = { .magic = RW_MAGIC, .type = RW_HELLO }, resp;
	struct rw_chan *c;

	fputs("e\n", to_target);
	fflush(to_target);
	assert_non_null(fgets(line, sizeof(line), from_target));
	assert_int_equal(strncmp(line, "blob ", 5), 0);
	assert_true(blob_of(line + 5, &b));
	c = rw_dial("127.0.0.1", b.port);
	assert_non_null(c);
	h.arg0 = b.conn_id;
	memcpy(h.key, b.key, 16);
	assert_true(rw_write(c, &h, NULL, 0, NULL, 0));
	assert_true(rw_read_hdr(c, &resp, 5000));
	assert_int_equal(resp.type, RW_RESP);
	assert_int_equal(resp.status, DOCA_SUCCESS);
	return c;
}

/*
 * The target's threads back to @n or fewer within 5 s (a closed stream's reader ends; one that
 * was ending when @n was counted may end too).
 */
static void threads_back_to(int n)
{
	for (int i = 0; i < 500 && stat_of_target().threads > n; i++)
		usleep(10000);
	assert_in_range(stat_of_target().threads, 0, n);
}

/*
 * An admitted peer: a frame longer than one piece (RW_FRAME_MAX) is refused by its length
 * and its connection closed, nothing of it delivered.
 */
static void test_admitted_frame_too_long(void **state)
{
	size_t n = 4u << 20;
	uint8_t *big = calloc(1, n);
	struct tstat before = stat_of_target();
	struct rw_chan *c = admitted();

	(void)state;
	assert_non_null(big);
	put(c, RW_SEND, big, n);
	assert_true(closed_within(c, 5000));
	assert_int_equal(stat_of_target().received, before.received);
	rw_close(c);
	threads_back_to(before.threads);
	free(big);
}

/*
 * Pieces that break the rules end the stream, each on its own admitted connection: a frame of
 * another request amid a send's pieces (the receive the first piece filled fails, its data
 * length as it was), a first
 * piece longer than the message it announces, a read cut into pieces. Nothing is delivered and
 * the stream's reader thread ends.
 */
static void test_cut_send_out_of_order(void **state)
{
	static const struct {
		uint16_t type;
		uint64_t total; /* arg0: a send's length */
		uint64_t tag2;  /* the second frame's tag (0: no second frame) */
	} cases[] = {
		{ RW_SEND, 3000, 8 }, /* tag 8 amid tag 7's pieces */
		{ RW_SEND, 500, 0 },  /* 1000 bytes of a 500-byte message */
		{ RW_READ, 0, 0 },    /* only sends and writes go in pieces */
	};
	uint8_t piece[1000] = { 0 };
	char line[64], status[32];
	size_t data_len;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tstat before = stat_of_target();
		struct rw_chan *c = admitted();
		struct rw_hdr h = { .magic = RW_MAGIC,
			            .type = cases[i].type,
			            .flags = RW_F_MORE,
			            .tag = 7,
			            .arg0 = cases[i].total,
			            .arg1 = 1000 };

		assert_true(rw_write(c, &h, piece, sizeof(piece), NULL, 0));
		if (cases[i].tag2 != 0) {
			h.tag = cases[i].tag2;
			h.addr = sizeof(piece);
			assert_true(rw_write(c, &h, piece, sizeof(piece), NULL, 0));
		}
		if (!closed_within(c, 5000))
			fail_msg("case %zu: the stream was not cut", i);
		assert_int_equal(stat_of_target().received, before.received);
		rw_close(c);
		threads_back_to(before.threads);
	}
	/* the first case's receive failed, its destination's data length left as it was */
	fputs("W\n", to_target);
	fflush(to_target);
	assert_non_null(fgets(line, sizeof(line), from_target));
	assert_int_equal(sscanf(line, "recv %31s %zu", status, &data_len), 2);
	assert_string_equal(status, "DOCA_ERROR_CONNECTION_ABORTED");
	assert_int_equal(data_len, 0);
}

/* After all that, an honest client's request still reaches the program. */
static void test_still_serves(void **state)
{
	struct tstat before = stat_of_target();
	struct rw_chan *c = cm_request_to(cm_port);

	(void)state;
	for (int i = 0; i < 500 && stat_of_target().requests == before.requests; i++)
		usleep(10000);
	assert_int_equal(stat_of_target().requests, before.requests + 1);
	rw_close(c);
}

/*
 * More CM requests than the context has connections (8, one of them exported): the ones
 * beyond are rejected at once (closed, no callback); the target stays up.
 */
static void test_requests_beyond_connections(void **state)
{
	enum { N = 10 };
	struct tstat before = stat_of_target(), after;
	struct rw_chan *c[N];
	char line[64];
	int closed = 0;

	(void)state;
	for (int i = 0; i < N; i++) {
		c[i] = rw_dial("127.0.0.1", cm_port);
		assert_non_null(c[i]);
		put(c[i], RW_CM_REQ, NULL, 0);
	}
	for (int i = 0; i < N; i++)
		closed += closed_within(c[i], 300);
	after = stat_of_target();
	assert_true(closed >= 3);
	assert_int_equal(after.requests - before.requests + closed, N);
	assert_int_equal(after.threads, before.threads);
	fputs("a\n", to_target); /* accept what waits: the clients never open their second stream */
	fflush(to_target);
	assert_non_null(fgets(line, sizeof(line), from_target));
	/* (the request of test_still_serves is answered too: its client is gone, accept fails) */
	for (int i = 0; i < N; i++)
		rw_close(c[i]);
	/* each accepted connection fails (its client went), as a server's does on hardware */
	COUNT_REACHES(failed, before.failed + after.requests - before.requests);
	assert_int_equal(stat_of_target().established, before.established);
}

/* ---------------------------------------------------------------- a hostile CM server */

/* Sends the target command @cmd and checks that its one-line answer is @want. */
static void command(const char *cmd, const char *want)
{
	char line[256];

	fputs(cmd, to_target);
	fflush(to_target);
	assert_non_null(fgets(line, sizeof(line), from_target));
	line[strcspn(line, "\n")] = '\0';
	assert_string_equal(line, want);
}

/* The next channel on our server and its first frame, which must be of @type (the channel open). */
static struct rw_chan *next_peer(uint16_t type, struct rw_hdr *h)
{
	struct rw_chan *c = rw_accept(cm_lsn);

	assert_non_null(c);
	assert_true(rw_read_hdr(c, h, 5000));
	assert_int_equal(h->type, type);
	rw_open(c);
	return c;
}

/* The target connects to our server: the channel that carried its connection request. */
static struct rw_chan *cm_request(void)
{
	char cmd[32];
	struct rw_hdr h;

	snprintf(cmd, sizeof(cmd), "c %u\n", cm_lsn_port);
	command(cmd, "connect DOCA_SUCCESS");
	return next_peer(RW_CM_REQ, &h);
}

static void reply(struct rw_chan *c, uint64_t tag, uint32_t status, const void *p, size_t n)
{
	struct rw_hdr r = { .magic = RW_MAGIC, .type = RW_RESP, .tag = tag, .status = status };

	assert_true(rw_write(c, &r, p, n, NULL, 0));
}

/*
 * We accept the target's request: it opens our stream to it (*@rev) and we answer its
 * opening with @status; *@req is the stream of its requests.
 */
static void cm_accept(struct rw_chan **req, struct rw_chan **rev, uint32_t status)
{
	struct rw_hdr a = { .magic = RW_MAGIC, .type = RW_CM_ACCEPT, .arg0 = 1 }, h;

	*req = cm_request();
	assert_true(rw_write(*req, &a, NULL, 0, NULL, 0));
	*rev = next_peer(RW_CM_REV, &h);
	assert_int_equal(h.arg0, 1);
	reply(*rev, h.tag, status, NULL, 0);
}

/*
 * A server that sends a request on the client's stream of requests (where only its answers
 * and CM frames come) before it accepts: nothing is delivered (the posted receive does not
 * see it: its completion would name a connection the program was never told of), the stream
 * is cut and the connection fails. Runs before test_cut_send_out_of_order, which ends that
 * receive; its first dial starts the target's transport client side, which stays.
 */
static void test_server_sends_before_accept(void **state)
{
	struct tstat before = stat_of_target();
	struct rw_chan *c = cm_request();

	(void)state;
	put(c, RW_SEND, "stolen", 6);
	COUNT_REACHES(failed, before.failed + 1);
	closed_by_target(c);
	assert_int_equal(stat_of_target().received, before.received);
	assert_int_equal(stat_of_target().established, before.established);
}

/*
 * A server that hangs up at once: the client's connection fails (the failure callback). The
 * target's first dial starts its transport's client side, which stays: the tests after this
 * one count its threads.
 */
static void test_server_hangs_up(void **state)
{
	struct tstat before = stat_of_target();
	struct rw_chan *c = cm_request();

	(void)state;
	rw_close(c);
	COUNT_REACHES(failed, before.failed + 1);
	assert_int_equal(stat_of_target().established, before.established);
}

/* A server answering the connection request with a response to nothing: the client fails it. */
static void test_server_answers_nothing_asked(void **state)
{
	struct tstat before = stat_of_target();
	struct rw_chan *c = cm_request();

	(void)state;
	reply(c, 999, DOCA_SUCCESS, "x", 1);
	COUNT_REACHES(failed, before.failed + 1);
	closed_by_target(c);
	threads_back_to(before.threads);
	assert_int_equal(stat_of_target().established, before.established);
}

/*
 * A server that answers the target's read with other than the bytes it asked for: more (still
 * within the destination's room) or fewer. The read fails with IO_FAILED instead of succeeding
 * with the server's count (more would write past what the read covers), and the stream is cut.
 */
static void test_server_answers_read_wrong_length(void **state)
{
	static const struct {
		const char *cmd;
		size_t answer;
	} cases[] = { { "R 8\n", 64 }, { "R 16\n", 8 } };
	static const uint8_t bytes[64];
	char line[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tstat before = stat_of_target();
		struct rw_chan *req, *rev;
		struct rw_hdr h;

		cm_accept(&req, &rev, DOCA_SUCCESS);
		COUNT_REACHES(established, before.established + 1);
		fputs(cases[i].cmd, to_target);
		fflush(to_target);
		assert_true(rw_read_hdr(req, &h, 5000));
		assert_int_equal(h.type, RW_READ);
		reply(req, h.tag, DOCA_SUCCESS, bytes, cases[i].answer);
		assert_non_null(fgets(line, sizeof(line), from_target));
		line[5 + strcspn(line + 5, " \n")] = '\0'; /* "read STATUS" */
		assert_string_equal(line, "read DOCA_ERROR_IO_FAILED");
		closed_by_target(req);
		rw_close(rev);
		threads_back_to(before.threads);
	}
}

/*
 * A server whose answer to the target's read fails after a first piece of its bytes: the read
 * fails, and its destination's data length is left as it was (the bytes may have landed in its
 * free space, as on hardware, but they are not data).
 */
static void test_server_fails_read_midway(void **state)
{
	struct tstat before = stat_of_target();
	struct rw_hdr h, piece = { .magic = RW_MAGIC, .type = RW_RESP, .flags = RW_F_MORE };
	static const uint8_t bytes[8];
	struct rw_chan *req, *rev;
	char line[64], status[32];
	unsigned int len;
	size_t data_len;

	(void)state;
	cm_accept(&req, &rev, DOCA_SUCCESS);
	COUNT_REACHES(established, before.established + 1);
	fputs("R 16\n", to_target);
	fflush(to_target);
	assert_true(rw_read_hdr(req, &h, 5000));
	assert_int_equal(h.type, RW_READ);
	piece.tag = h.tag;
	assert_true(rw_write(req, &piece, bytes, sizeof(bytes), NULL, 0));
	reply(req, h.tag, DOCA_ERROR_NOT_PERMITTED, NULL, 0);
	assert_non_null(fgets(line, sizeof(line), from_target));
	assert_int_equal(sscanf(line, "read %31s %u %zu", status, &len, &data_len), 3);
	assert_string_equal(status, "DOCA_ERROR_IO_FAILED");
	assert_int_equal(data_len, 0);
	rw_close(req);
	rw_close(rev);
	COUNT_REACHES(disconnected, before.disconnected + 1);
	threads_back_to(before.threads);
}

/* A server that accepts, then refuses the client's second stream: the connection fails. */
static void test_server_refuses_second_stream(void **state)
{
	struct tstat before = stat_of_target();
	struct rw_chan *req, *rev;

	(void)state;
	cm_accept(&req, &rev, DOCA_ERROR_NOT_FOUND);
	COUNT_REACHES(failed, before.failed + 1);
	closed_by_target(req);
	closed_by_target(rev);
	threads_back_to(before.threads);
	assert_int_equal(stat_of_target().established, before.established);
}

/*
 * An established connection whose server then misbehaves: a status no DOCA call returns fails
 * that send alone (the connection stays); an answer to a send that carries bytes fails the
 * send and ends the connection (disconnection callback); so does a response to nothing.
 */
static void test_server_misbehaves_after_accept(void **state)
{
	struct tstat before = stat_of_target();
	struct rw_chan *req, *rev;
	struct rw_hdr h;

	(void)state;
	cm_accept(&req, &rev, DOCA_SUCCESS);
	COUNT_REACHES(established, before.established + 1);

	command("m\n", "send DOCA_SUCCESS");
	assert_int_equal(rw_next(req, &h, 5000), 1);
	assert_int_equal(h.type, RW_SEND);
	reply(req, h.tag, 0x7fff1234u, NULL, 0);
	COUNT_REACHES(sends_failed, before.sends_failed + 1);
	command("m\n", "send DOCA_SUCCESS");
	assert_int_equal(rw_next(req, &h, 5000), 1);
	reply(req, h.tag, DOCA_SUCCESS, NULL, 0);
	COUNT_REACHES(sends_ok, before.sends_ok + 1);

	command("m\n", "send DOCA_SUCCESS");
	assert_int_equal(rw_next(req, &h, 5000), 1);
	reply(req, h.tag, DOCA_SUCCESS, "bytes", 5);
	COUNT_REACHES(sends_failed, before.sends_failed + 2);
	COUNT_REACHES(disconnected, before.disconnected + 1);
	closed_by_target(req);
	closed_by_target(rev);
	threads_back_to(before.threads);
}

/* The same, ended by a response to nothing on an idle established connection. */
static void test_server_answers_nothing_asked_later(void **state)
{
	struct tstat before = stat_of_target();
	struct rw_chan *req, *rev;

	(void)state;
	cm_accept(&req, &rev, DOCA_SUCCESS);
	COUNT_REACHES(established, before.established + 1);
	reply(req, 12345, DOCA_SUCCESS, NULL, 0);
	COUNT_REACHES(disconnected, before.disconnected + 1);
	closed_by_target(req);
	closed_by_target(rev);
	threads_back_to(before.threads);
}

/*
 * A client that never opens its second stream after the accept, its first held open: the
 * target's connection fails at its connection request timeout (2 s), which frees the slot.
 */
static void test_client_silent_after_accept(void **state)
{
	struct tstat before = stat_of_target();
	struct rw_chan *c = rw_dial("127.0.0.1", cm_port);
	char line[64];

	(void)state;
	assert_non_null(c);
	put(c, RW_CM_REQ, NULL, 0);
	COUNT_REACHES(requests, before.requests + 1);
	fputs("a\n", to_target);
	fflush(to_target);
	assert_non_null(fgets(line, sizeof(line), from_target));
	assert_string_equal(line, "accepted 0\n");
	COUNT_REACHES(failed, before.failed + 1);
	closed_by_target(c);
	threads_back_to(before.threads);
}

/*
 * A client that never opens its second stream after the accept but keeps its first one busy
 * (a request every 100 ms, each served by the target's reader thread): the connection still
 * fails at its connection request timeout (2 s).
 */
static void test_client_busy_after_accept(void **state)
{
	struct tstat before = stat_of_target();
	struct rw_hdr g = { .magic = RW_MAGIC, .type = RW_SE_GET, .rec = UINT64_MAX };
	struct rw_chan *c = rw_dial("127.0.0.1", cm_port);
	int failed = before.failed;

	(void)state;
	assert_non_null(c);
	put(c, RW_CM_REQ, NULL, 0);
	COUNT_REACHES(requests, before.requests + 1);
	command("a\n", "accepted 0");
	for (uint64_t i = 1; i <= 60 && failed == before.failed; i++) {
		g.tag = i;
		(void)rw_write(c, &g, NULL, 0, NULL, 0); /* fails once the target closed it */
		usleep(100 * 1000);
		failed = stat_of_target().failed;
	}
	assert_int_equal(failed, before.failed + 1);
	closed_by_target(c);
	threads_back_to(before.threads);
}

/*
 * A client that never opens its second stream after the accept and floods its first one with
 * requests whose answers it never takes (past the transport's 16 MiB window, the target's
 * reader waits for the answers to leave): the connection still fails at its connection
 * request timeout (2 s).
 */
static void test_client_stalls_after_accept(void **state)
{
	struct tstat before = stat_of_target();
	struct rw_hdr r = { .magic = RW_MAGIC, .type = RW_READ, .arg0 = 8 };
	struct rw_chan *c = rw_dial("127.0.0.1", cm_port);

	(void)state;
	assert_non_null(c);
	put(c, RW_CM_REQ, NULL, 0);
	COUNT_REACHES(requests, before.requests + 1);
	command("a\n", "accepted 0");
	/* 125000 answers of 80 bytes (+64 each) are more than 16 MiB */
	for (uint64_t i = 1; i <= 125000; i++) {
		r.tag = i;
		if (!rw_write(c, &r, NULL, 0, NULL, 0))
			break; /* the target closed it */
	}
	COUNT_REACHES(failed, before.failed + 1);
	rw_close(c);
	threads_back_to(before.threads);
}

/* A server that reads the connection request and never answers: the client fails it at 2 s. */
static void test_server_never_answers(void **state)
{
	struct tstat before = stat_of_target();
	struct rw_chan *c = cm_request();

	(void)state;
	COUNT_REACHES(failed, before.failed + 1);
	closed_by_target(c);
	threads_back_to(before.threads);
	assert_int_equal(stat_of_target().established, before.established);
}

/*
 * Twelve requests one after another, each rejected by the program: each reaches it (its
 * request callback), though the target has 8 connections, so each rejection gives its slot
 * back.
 */
static void test_rejected_requests_free_their_slots(void **state)
{
	(void)state;
	for (int i = 0; i < 12; i++) {
		struct tstat before = stat_of_target();
		struct rw_chan *c = rw_dial("127.0.0.1", cm_port);

		assert_non_null(c);
		put(c, RW_CM_REQ, NULL, 0);
		COUNT_REACHES(requests, before.requests + 1);
		command("r\n", "rejected 0");
		closed_by_target(c);
	}
}

/* An established CM connection made by hand: *@c1 the client's request stream, *@c2 its
 * second (the one the target's answers come on). */
static void cm_client_established(struct rw_chan **c1, struct rw_chan **c2)
{
	struct tstat before = stat_of_target();
	struct rw_hdr h, rev = { .magic = RW_MAGIC, .type = RW_CM_REV }, resp;

	*c1 = rw_dial("127.0.0.1", cm_port);
	assert_non_null(*c1);
	put(*c1, RW_CM_REQ, NULL, 0);
	COUNT_REACHES(requests, before.requests + 1);
	command("a\n", "accepted 0");
	assert_int_equal(rw_next(*c1, &h, 5000), 1);
	assert_int_equal(h.type, RW_CM_ACCEPT);
	*c2 = rw_dial("127.0.0.1", cm_port);
	assert_non_null(*c2);
	rev.arg0 = h.arg0;
	memcpy(rev.key, h.key, 16);
	assert_true(rw_write(*c2, &rev, NULL, 0, NULL, 0));
	assert_true(rw_read_hdr(*c2, &resp, 5000));
	assert_int_equal(resp.type, RW_RESP);
	assert_int_equal(resp.status, DOCA_SUCCESS);
	COUNT_REACHES(established, before.established + 1);
}

/*
 * A client that ends each established connection with a CM reject (an answer to a request
 * the target never made) instead of a disconnect, ten times on a target of 8 connections: the
 * program hears of each end (its disconnection callback), so each slot comes back. (The
 * reject closed the connection silently: after 8 the target refused every request.)
 */
static void test_client_rejects_established(void **state)
{
	(void)state;
	for (int i = 0; i < 10; i++) {
		struct tstat before = stat_of_target();
		struct rw_chan *c1, *c2;

		cm_client_established(&c1, &c2);
		put(c1, RW_CM_REJECT, NULL, 0);
		COUNT_REACHES(disconnected, before.disconnected + 1);
		closed_by_target(c1);
		closed_by_target(c2);
	}
}

/* A server that rejects a connection it accepted: the client's program hears of the end. */
static void test_server_rejects_established(void **state)
{
	struct tstat before = stat_of_target();
	struct rw_chan *req, *rev;

	(void)state;
	cm_accept(&req, &rev, DOCA_SUCCESS);
	COUNT_REACHES(established, before.established + 1);
	put(req, RW_CM_REJECT, NULL, 0);
	COUNT_REACHES(disconnected, before.disconnected + 1);
	closed_by_target(req);
	closed_by_target(rev);
	threads_back_to(before.threads);
}

/* Tells the target to connect the connection 'e' exported last to blob @b ('k HEX'). */
static void connect_oob(const struct rw_blob *b)
{
	uint8_t enc[RW_BLOB_LEN];
	char cmd[16 + 2 * RW_BLOB_LEN];

	rw_blob_encode(b, enc);
	snprintf(cmd, sizeof(cmd), "k ");
	for (size_t i = 0; i < RW_BLOB_LEN; i++)
		snprintf(cmd + 2 + 2 * i, 3, "%02x", enc[i]);
	strcat(cmd, "\n");
	fputs(cmd, to_target);
	fflush(to_target);
}

/*
 * A peer that binds the target's exported connection (its HELLO answered), hangs that stream
 * up while the target's doca_rdma_connect waits for the peer's answer, and then answers: the
 * connection closed meanwhile, so the connect fails instead of reporting a connection that is
 * CONNECTED with its peer's stream gone.
 */
static void test_oob_peer_leaves_during_connect(void **state)
{
	struct rw_lsn *l;
	uint16_t port = 0;
	struct rw_blob ours = { 0 };
	char line[64];
	struct rw_chan *hello, *in;
	struct rw_hdr h;

	(void)state;
	assert_int_equal(rw_listen("127.0.0.1", 0, &l, &port), DOCA_SUCCESS);
	rw_blob_self(&ours);
	ours.naddrs = 0; /* the target dials 127.0.0.1 */
	ours.conn_id = 1;
	ours.port = port;
	in = admitted(); /* the target's connection 'e' exported, bound to our stream */
	connect_oob(&ours);
	hello = rw_accept(l); /* the target's HELLO, not answered yet */
	assert_non_null(hello);
	assert_true(rw_read_hdr(hello, &h, 5000));
	assert_int_equal(h.type, RW_HELLO);
	rw_open(hello);
	rw_close(in); /* our stream to the target ends: its connection closes */
	usleep(300 * 1000);
	reply(hello, h.tag, DOCA_SUCCESS, NULL, 0);
	assert_non_null(fgets(line, sizeof(line), from_target));
	assert_string_equal(line, "connectoob DOCA_ERROR_CONNECTION_ABORTED\n");
	rw_close(hello);
	rw_listen_shutdown(l);
	rw_listen_free(l);
}

/*
 * A peer's blob that lists eight addresses where nothing answers the HELLO (our listener, which
 * never takes the channels): the target's doca_rdma_connect gives up after its one connection
 * timeout (2 s), not one per address (16 s), and says CONNECTION_ABORTED.
 */
static void test_oob_blob_of_silent_addresses(void **state)
{
	struct rw_lsn *l;
	uint16_t port = 0;
	struct rw_blob ours = { 0 };
	char line[256];
	uint64_t t0, took;

	(void)state;
	assert_int_equal(rw_listen("127.0.0.1", 0, &l, &port), DOCA_SUCCESS);
	rw_blob_self(&ours);
	ours.netns ^= 1; /* of another namespace: the target dials the addresses listed */
	ours.naddrs = RW_BLOB_MAX_ADDRS;
	for (unsigned int i = 0; i < RW_BLOB_MAX_ADDRS; i++)
		memcpy(ours.addrs[i], (const uint8_t[4]){ 127, 0, 0, 1 }, 4);
	ours.conn_id = 1;
	ours.port = port;
	fputs("e\n", to_target);
	fflush(to_target);
	assert_non_null(fgets(line, sizeof(line), from_target));
	assert_memory_equal(line, "blob ", 5);
	t0 = rw_now_ms();
	connect_oob(&ours);
	assert_non_null(fgets(line, sizeof(line), from_target));
	took = rw_now_ms() - t0;
	assert_string_equal(line, "connectoob DOCA_ERROR_CONNECTION_ABORTED\n");
	if (took >= RW_BLOB_MAX_ADDRS / 2 * 2000)
		fail_msg("the connect took %llu ms: a 2000 ms timeout for each address",
		         (unsigned long long)took);
	rw_listen_shutdown(l);
	rw_listen_free(l);
}

/*
 * A CM connection our server accepted, established on the target (@before: its counts
 * before), then @n refused reads of 8 bytes on the target's second stream, each answered by a
 * frame the target sends.
 */
static void established_then_refused_reads(struct rw_chan **req, struct rw_chan **rev,
                                           struct tstat before, uint32_t n)
{
	struct rw_hdr r = { .magic = RW_MAGIC, .type = RW_READ, .arg0 = 8 };

	cm_accept(req, rev, DOCA_SUCCESS);
	COUNT_REACHES(established, before.established + 1);
	for (uint32_t i = 0; i < n; i++) {
		r.tag = i + 1;
		assert_true(rw_write(*rev, &r, NULL, 0, NULL, 0));
	}
}

/*
 * A server whose requests' answers it never takes (past the transport's 16 MiB window, the
 * target's last ones wait to leave), then hangs up its other stream: the target's PE keeps
 * progressing (a status command answered within 1 s) while the ended connection's answers wait
 * to leave (up to 2 s).
 */
static void test_server_stops_taking_answers(void **state)
{
	struct tstat before = stat_of_target();
	struct rw_chan *req, *rev;
	uint64_t t0;

	(void)state;
	/* 125000 answers of 80 bytes (+64 each) are more than 16 MiB */
	established_then_refused_reads(&req, &rev, before, 125000);
	usleep(1000 * 1000); /* served: the last answers wait for our credit */
	rw_close(req);
	usleep(100 * 1000);
	t0 = rw_now_ms();
	(void)stat_of_target();
	if (rw_now_ms() - t0 > 1000)
		fail_msg("the target's PE stalled %llu ms", (unsigned long long)(rw_now_ms() - t0));
	COUNT_REACHES(disconnected, before.disconnected + 1);
	rw_close(rev);
	threads_back_to(before.threads);
}

/*
 * A server that accepts, then never answers the client's second stream: the target's stop
 * (its last command) ends that wait at once, not at the connection request timeout (2 s).
 */
static void test_stop_while_server_silent_after_accept(void **state)
{
	struct rw_hdr a = { .magic = RW_MAGIC, .type = RW_CM_ACCEPT, .arg0 = 1 }, h;
	struct rw_chan *req = cm_request(), *rev;
	char line[64];
	long ms = -1;

	(void)state;
	assert_true(rw_write(req, &a, NULL, 0, NULL, 0));
	rev = next_peer(RW_CM_REV, &h); /* and never answered */
	fputs("S\n", to_target);
	fflush(to_target);
	assert_non_null(fgets(line, sizeof(line), from_target));
	assert_int_equal(sscanf(line, "stopped %ld", &ms), 1);
	if (ms > 1000)
		fail_msg("the stop took %ld ms: it waited for the silent server", ms);
	rw_close(rev);
	rw_close(req);
}

/*
 * A server whose requests' answers it never takes, with both its streams left open: the target
 * cuts the connection once none of its answers went out for the bound it gives a peer's answer
 * (receiver-not-ready time, 8 s, and the connection timeout, 2 s), as a queue pair whose
 * retries run out; its program hears of the end (disconnection callback).
 */
static void test_server_never_takes_answers(void **state)
{
	struct tstat before = stat_of_target();
	struct rw_chan *req, *rev;
	int disconnected = before.disconnected;

	(void)state;
	established_then_refused_reads(&req, &rev, before, 125000);
	for (int i = 0; i < 200 && disconnected == before.disconnected; i++) {
		usleep(100 * 1000);
		disconnected = stat_of_target().disconnected;
	}
	assert_int_equal(disconnected, before.disconnected + 1);
	rw_close(req);
	rw_close(rev);
	threads_back_to(before.threads);
}

/*
 * A server that sends requests as fast as it can and never takes the answers: what the target
 * holds stays bounded (the requests wait within its credit once 64 answers wait to leave), not
 * one answer kept per request (300000 refused reads grew it by 86 MB).
 */
static void test_server_floods_requests(void **state)
{
	struct tstat before = stat_of_target(), after;
	struct rw_chan *req, *rev;

	(void)state;
	established_then_refused_reads(&req, &rev, before, 300000);
	usleep(1500 * 1000);
	after = stat_of_target();
	if (after.rss_kb - before.rss_kb > RSS_BOUND_KB)
		fail_msg("the target grew from %ld to %ld kB", before.rss_kb, after.rss_kb);
	rw_close(req);
	rw_close(rev);
	COUNT_REACHES(disconnected, before.disconnected + 1);
	threads_back_to(before.threads);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_data_before_accept),
		cmocka_unit_test(test_oversized_first_frame),
		cmocka_unit_test(test_wrong_first_frame),
		cmocka_unit_test(test_forged_hello),
		cmocka_unit_test(test_cm_request_on_oob_port),
		cmocka_unit_test(test_silent_connections),
		cmocka_unit_test(test_admitted_frame_too_long),
		cmocka_unit_test(test_server_sends_before_accept), /* before the receive ends */
		cmocka_unit_test(test_cut_send_out_of_order),
		cmocka_unit_test(test_still_serves),
		cmocka_unit_test(test_requests_beyond_connections),
		cmocka_unit_test(test_client_silent_after_accept),
		cmocka_unit_test(test_client_busy_after_accept),
		cmocka_unit_test(test_client_stalls_after_accept),
		cmocka_unit_test(test_rejected_requests_free_their_slots),
		cmocka_unit_test(test_client_rejects_established),
		cmocka_unit_test(test_server_hangs_up),
		cmocka_unit_test(test_server_answers_nothing_asked),
		cmocka_unit_test(test_server_answers_read_wrong_length),
		cmocka_unit_test(test_server_fails_read_midway),
		cmocka_unit_test(test_server_refuses_second_stream),
		cmocka_unit_test(test_server_misbehaves_after_accept),
		cmocka_unit_test(test_server_answers_nothing_asked_later),
		cmocka_unit_test(test_server_never_answers),
		cmocka_unit_test(test_server_rejects_established),
		cmocka_unit_test(test_server_floods_requests),
		cmocka_unit_test(test_server_stops_taking_answers),
		cmocka_unit_test(test_server_never_takes_answers),
		cmocka_unit_test(test_oob_peer_leaves_during_connect),
		cmocka_unit_test(test_oob_blob_of_silent_addresses),
		cmocka_unit_test(test_stop_while_server_silent_after_accept), /* last: stops it */
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, start_target, stop_target);
}
