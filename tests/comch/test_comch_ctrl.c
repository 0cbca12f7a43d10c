/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Comch control path across two processes: the parent is the DPU-side server, a forked
 * child the host-side client (or the other way round). Every event, task, limit and
 * failure of the control path: connect / disconnect events, message boundaries and order,
 * the copy at alloc_init, max message size (cap and negotiation), the receive queue
 * (DOCA_ERROR_AGAIN when full), a missing server (bounded timeout, one log line), a peer
 * that dies, a server that stops first or drops a client, duplicate and stale servers,
 * isolation between runtime directories and systems, connection counters.
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "comch_util.h"
#include "test_util.h"

#define NAME cu_name

static char **g_argv;

static bool has_disconnect(struct cu_ep *e)
{
	return e->disconnects > 0;
}

static bool has_msgs(struct cu_ep *e, uint32_t n)
{
	return e->nrx >= n;
}

static uint32_t g_want;
static bool want_msgs(struct cu_ep *e)
{
	return has_msgs(e, g_want);
}

static unsigned int g_want_sent;
static bool want_sent(struct cu_ep *e)
{
	return e->sent_ok + e->sent_err >= g_want_sent;
}

static uint8_t pattern(uint32_t i, uint32_t k)
{
	return (uint8_t)(i * 31u + k * 7u + 1u);
}

/* Message i of the ping-pong: sizes cycle through 1, 17, 1000, max. */
static uint32_t msg_len(uint32_t i, uint32_t max)
{
	static const uint32_t sizes[] = { 1, 17, 1000, 0 };
	uint32_t s = sizes[i % 4];

	return s ? s : max;
}

static void fill(uint8_t *b, uint32_t i, uint32_t len)
{
	for (uint32_t k = 0; k < len; k++)
		b[k] = pattern(i, k);
}

/* ---- ping-pong: boundaries, order, echo, counters, user data, disconnect event ------------ */

#define PINGS 200

static int client_pingpong(void *arg)
{
	struct cu_ep e;
	uint8_t buf[4080];
	uint32_t max = 0;
	uint64_t v;

	(void)arg;
	cu_open(&e, false);
	CU_CHECK_DOCA(DOCA_SUCCESS,
	              doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(e.dev), &max));
	CU_CHECK(max == 4080);
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&e, NAME, 0, 64));
	CU_CHECK(cu_progress_until(&e, cu_is_running, 5000));
	CU_CHECK(e.conn != NULL);
	CU_CHECK(doca_comch_client_get_client_ctx(e.conn) == e.cli);
	CU_CHECK(doca_comch_server_get_server_ctx(e.conn) == NULL);
	for (uint32_t i = 0; i < PINGS; i++) {
		uint32_t len = msg_len(i, max);
		doca_error_t r;

		fill(buf, i, len);
		while ((r = cu_send(&e, buf, len)) == DOCA_ERROR_AGAIN || r == DOCA_ERROR_NO_MEMORY)
			doca_pe_progress(e.pe);
		CU_CHECK_DOCA(DOCA_SUCCESS, r);
	}
	g_want = PINGS;
	CU_CHECK(cu_progress_until(&e, want_msgs, 10000));
	for (uint32_t i = 0; i < PINGS; i++) {
		CU_CHECK(e.rx_len[i] == msg_len(i, max));
		fill(buf, i, e.rx_len[i]);
		CU_CHECK(memcmp(e.rx[i], buf, e.rx_len[i]) == 0);
	}
	CU_CHECK(e.sent_ok == PINGS && e.sent_err == 0);
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_connection_update_info(e.conn));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_connection_get_counter(
	                                    e.conn, DOCA_COMCH_COUNTER_SENT_MESSAGES, &v));
	CU_CHECK(v == PINGS);
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_connection_get_counter(
	                                    e.conn, DOCA_COMCH_COUNTER_RECV_MESSAGES, &v));
	CU_CHECK(v == PINGS);
	CU_CHECK_DOCA(DOCA_SUCCESS,
	              doca_comch_connection_get_counter(e.conn, DOCA_COMCH_COUNTER_RECV_BYTES, &v));
	CU_CHECK(v == (PINGS / 4) * (1 + 17 + 1000 + max));
	CU_CHECK_DOCA(DOCA_ERROR_INVALID_VALUE,
	              doca_comch_connection_get_counter(e.conn, (enum doca_comch_counter)9, &v));
	CU_CHECK(cu_close(&e));
	return 0;
}

static void test_pingpong(void **state)
{
	struct cu_ep s;
	pid_t child, child2;
	int gate;

	(void)state;
	child = cu_fork(client_pingpong, NULL, 30);
	child2 = cu_fork_gated(client_pingpong, NULL, 60, &gate);
	cu_open(&s, true);
	s.echo = true;
	assert_ok(cu_server_start(&s, NAME, 0, 256));
	assert_true(cu_is_running(&s)); /* a server starts synchronously */
	assert_true(cu_progress_until(&s, has_disconnect, 20000));
	assert_int_equal(s.connects, 1);
	assert_int_equal(s.disconnects, 1);
	assert_int_equal(s.nrx, PINGS);
	assert_int_equal(s.sent_ok, PINGS);
	assert_null(s.conn);
	assert_int_equal(cu_join(child, 10), 0);
	/* a second client after the first left */
	cu_release(gate);
	s.disconnects = 0;
	assert_true(cu_progress_until(&s, has_disconnect, 20000));
	assert_int_equal(s.connects, 2);
	assert_int_equal(cu_join(child2, 10), 0);
	assert_true(cu_close(&s));
}

/* ---- the send copies the caller's bytes at alloc_init -------------------------------------- */

static int client_copy(void *arg)
{
	struct cu_ep e;
	struct doca_comch_task_send *t;
	char buf[32];

	(void)arg;
	cu_open(&e, false);
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&e, NAME, 0, 4));
	CU_CHECK(cu_progress_until(&e, cu_is_running, 5000));
	strcpy(buf, "original bytes");
	CU_CHECK_DOCA(DOCA_SUCCESS,
	              doca_comch_client_task_send_alloc_init(e.cli, e.conn, buf, 15, &t));
	memset(buf, 'X', sizeof(buf)); /* the program reuses its buffer at once */
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_task_submit(doca_comch_task_send_as_task(t)));
	g_want_sent = 1;
	CU_CHECK(cu_progress_until(&e, want_sent, 5000));
	CU_CHECK(e.sent_ok == 1);
	CU_CHECK(cu_close(&e));
	return 0;
}

static void test_copy_at_alloc(void **state)
{
	struct cu_ep s;
	pid_t child;

	(void)state;
	child = cu_fork(client_copy, NULL, 30);
	cu_open(&s, true);
	assert_ok(cu_server_start(&s, NAME, 0, 4));
	assert_true(cu_progress_until(&s, has_disconnect, 20000));
	assert_int_equal(s.nrx, 1);
	assert_int_equal(s.rx_len[0], 15);
	assert_memory_equal(s.rx[0], "original bytes", 15);
	assert_int_equal(cu_join(child, 10), 0);
	assert_true(cu_close(&s));
}

/* ---- max message size: caps, setters, negotiation ------------------------------------------ */

static int client_limits(void *arg)
{
	struct cu_ep e;
	uint8_t buf[4081] = { 0 };
	uint32_t v;

	(void)arg;
	cu_open(&e, false);
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_client_create(e.dev, NAME, &e.cli));
	e.ctx = doca_comch_client_as_ctx(e.cli);
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_client_get_max_msg_size(e.cli, &v));
	CU_CHECK(v == 4080); /* default: the device cap */
	CU_CHECK_DOCA(DOCA_ERROR_INVALID_VALUE, doca_comch_client_set_max_msg_size(e.cli, 4081));
	CU_CHECK_DOCA(DOCA_ERROR_INVALID_VALUE, doca_comch_client_set_max_msg_size(e.cli, 0));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_client_set_max_msg_size(e.cli, 2000));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_client_get_recv_queue_size(e.cli, &v));
	CU_CHECK(v == 128);
	CU_CHECK_DOCA(DOCA_ERROR_INVALID_VALUE, doca_comch_client_set_recv_queue_size(e.cli, 1025));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_client_destroy(e.cli));
	e.cli = NULL;
	e.ctx = NULL;

	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&e, NAME, 0, 4));
	CU_CHECK_DOCA(DOCA_ERROR_BAD_STATE, doca_comch_client_set_max_msg_size(e.cli, 100));
	CU_CHECK_DOCA(DOCA_ERROR_BAD_STATE, doca_comch_client_set_recv_queue_size(e.cli, 10));
	CU_CHECK(cu_progress_until(&e, cu_is_running, 5000));
	CU_CHECK_DOCA(DOCA_ERROR_BAD_STATE, doca_comch_client_set_max_msg_size(e.cli, 100));
	/* the server set 1000: the connection carries at most 1000 */
	CU_CHECK_DOCA(DOCA_ERROR_INVALID_VALUE, cu_send(&e, buf, 1001));
	CU_CHECK_DOCA(DOCA_ERROR_INVALID_VALUE, cu_send(&e, buf, 0));
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_send(&e, buf, 1000));
	g_want_sent = 1;
	CU_CHECK(cu_progress_until(&e, want_sent, 5000));
	CU_CHECK(cu_close(&e));
	return 0;
}

static void test_max_msg_size(void **state)
{
	struct cu_ep s;
	pid_t child;

	(void)state;
	child = cu_fork(client_limits, NULL, 30);
	cu_open(&s, true);
	assert_ok(doca_comch_server_create(s.dev, s.rep, NAME, &s.srv));
	assert_ok(doca_comch_server_set_max_msg_size(s.srv, 1000));
	assert_int_equal(doca_comch_server_set_max_msg_size(s.srv, 4081), DOCA_ERROR_INVALID_VALUE);
	s.ctx = doca_comch_server_as_ctx(s.srv);
	{
		union doca_data ud = { .ptr = &s };

		assert_ok(doca_pe_connect_ctx(s.pe, s.ctx));
		assert_ok(doca_ctx_set_user_data(s.ctx, ud));
	}
	assert_ok(doca_ctx_start(s.ctx));
	assert_int_equal(doca_comch_server_set_max_msg_size(s.srv, 100), DOCA_ERROR_BAD_STATE);
	cu_progress_for(&s, 300);
	assert_int_equal(cu_join(child, 20), 0);
	assert_true(cu_close(&s));
}

/* ---- the receive queue: AGAIN while the peer does not progress ------------------------------ */

static int client_queue(void *arg)
{
	struct cu_ep e;
	char m[8] = "msg";

	(void)arg;
	cu_sync_side(true);
	cu_open(&e, false);
	cu_log_capture();
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&e, NAME, 0, 16));
	CU_CHECK(cu_progress_until(&e, cu_is_running, 5000));
	CU_CHECK(cu_hear(&e, 5000) == 'c'); /* the server stopped progressing */
	for (int i = 0; i < 4; i++)
		CU_CHECK_DOCA(DOCA_SUCCESS, cu_send(&e, m, sizeof(m)));
	CU_CHECK_DOCA(DOCA_ERROR_AGAIN, cu_send(&e, m, sizeof(m)));
	CU_CHECK(cu_log_has("receive queue (4 messages) is full"));
	cu_progress_for(&e, 50);
	CU_CHECK_DOCA(DOCA_ERROR_AGAIN, cu_send(&e, m, sizeof(m))); /* our progress does not help */
	cu_tell('f');
	CU_CHECK(cu_hear(&e, 5000) == 'd'); /* the server delivered the four */
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_send(&e, m, sizeof(m)));
	g_want_sent = 5;
	CU_CHECK(cu_progress_until(&e, want_sent, 5000));
	CU_CHECK(e.sent_ok == 5);
	CU_CHECK(cu_close(&e));
	return 0;
}

static void test_recv_queue_full(void **state)
{
	struct cu_ep s;
	pid_t child;

	(void)state;
	cu_sync_init();
	child = cu_fork(client_queue, NULL, 30);
	cu_sync_side(false);
	cu_open(&s, true);
	assert_ok(cu_server_start(&s, NAME, 4, 4));
	assert_true(cu_progress_until(&s, cu_has_conn, 5000));
	cu_tell('c');
	assert_int_equal(cu_hear(NULL, 5000), 'f'); /* without progressing */
	g_want = 4;
	assert_true(cu_progress_until(&s, want_msgs, 5000));
	cu_progress_for(&s, 20);
	assert_int_equal(s.nrx, 4);
	cu_tell('d');
	assert_true(cu_progress_until(&s, has_disconnect, 10000));
	assert_int_equal(s.nrx, 5);
	assert_int_equal(cu_join(child, 10), 0);
	assert_true(cu_close(&s));
}

/* ---- a client that sends at once: the connect event has a progress call of its own -------- */

static int client_sends_at_once(void *arg)
{
	struct cu_ep e;

	(void)arg;
	cu_sync_side(true);
	cu_open(&e, false);
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&e, NAME, 0, 4));
	CU_CHECK(cu_progress_until(&e, cu_is_running, 5000));
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_send(&e, "first", 5));
	g_want_sent = 1;
	CU_CHECK(cu_progress_until(&e, want_sent, 5000));
	cu_tell('s');
	CU_CHECK(cu_hear(&e, 5000) == 'd');
	CU_CHECK(cu_close(&e));
	return 0;
}

/*
 * A client's first message can be at the server before the server's program has returned from
 * its connect callback (here the callback waits until the client has sent; on a slow DPU, or
 * under qemu-user, it is merely late). DOCA's comch_utils wait for the connect event in a
 * progress loop and set up only after it (NVIDIA's DMA Copy application reads its DMA limits
 * then), so the message must not come in the progress call that announced the connection.
 */
static void test_connect_event_before_messages(void **state)
{
	struct cu_ep s;
	pid_t child;

	(void)state;
	cu_sync_init();
	child = cu_fork(client_sends_at_once, NULL, 30);
	cu_sync_side(false);
	cu_open(&s, true);
	assert_ok(cu_server_start(&s, NAME, 0, 4));
	s.hear_on_connect = true;
	for (uint64_t end = cu_now_ms() + 10000; s.connects == 0 && cu_now_ms() < end;)
		(void)doca_pe_progress(s.pe);
	s.hear_on_connect = false;
	assert_int_equal(s.connects, 1);
	assert_int_equal(s.nrx, 0); /* not in the call that announced the connection */
	g_want = 1;
	assert_true(cu_progress_until(&s, want_msgs, 5000));
	assert_int_equal(s.rx_len[0], 5);
	assert_memory_equal(s.rx[0], "first", 5);
	cu_tell('d');
	assert_true(cu_progress_until(&s, has_disconnect, 10000));
	assert_int_equal(cu_join(child, 10), 0);
	assert_true(cu_close(&s));
}

/* ---- no server: the client's start ends in IDLE after the timeout, with one log line -------- */

static void test_no_server(void **state)
{
	struct cu_ep c;
	uint64_t t0;

	(void)state;
	setenv("ODMA_COMCH_CONNECT_TIMEOUT_MS", "300", 1);
	cu_open(&c, false);
	cu_log_capture();
	t0 = cu_now_ms();
	assert_int_equal(cu_client_start(&c, "nobody listens here", 0, 4), DOCA_ERROR_IN_PROGRESS);
	assert_true(cu_progress_until(&c, cu_is_idle, 3000));
	assert_true(cu_now_ms() - t0 >= 290);
	assert_false(c.passed_running);
	assert_int_equal(doca_comch_client_get_connection(c.cli, &c.conn), DOCA_ERROR_BAD_STATE);
	assert_true(cu_log_has("no server named \"nobody listens here\" answered within 300 ms"));
	assert_true(cu_log_has("emulated system bf3"));
	assert_true(cu_log_has("Start the DPU side first"));
	unsetenv("ODMA_COMCH_CONNECT_TIMEOUT_MS");
	assert_true(cu_close(&c));
}

/* ---- the client may start first: it retries until the server is up ------------------------- */

static int late_server(void *arg)
{
	struct cu_ep s;

	(void)arg;
	usleep(200 * 1000);
	cu_open(&s, true);
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_server_start(&s, NAME, 0, 4));
	CU_CHECK(cu_progress_until(&s, has_disconnect, 10000));
	CU_CHECK(s.connects == 1);
	CU_CHECK(cu_close(&s));
	return 0;
}

static void test_client_first(void **state)
{
	struct cu_ep c;
	pid_t child;

	(void)state;
	child = cu_fork(late_server, NULL, 30);
	cu_open(&c, false);
	assert_int_equal(cu_client_start(&c, NAME, 0, 4), DOCA_ERROR_IN_PROGRESS);
	assert_true(cu_progress_until(&c, cu_is_running, 5000));
	assert_true(cu_close(&c));
	assert_int_equal(cu_join(child, 10), 0);
}

/* ---- a client that dies: disconnect event, in-flight sends fail ----------------------------- */

/*
 * The child's side of the socket-full tests: a running client (its log captured when
 * @capture) that told the parent 'r'.
 */
static void client_up(struct cu_ep *e, bool capture)
{
	cu_sync_side(true);
	cu_open(e, false);
	if (capture)
		cu_log_capture();
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(e, NAME, 1024, 4));
	CU_CHECK(cu_progress_until(e, cu_is_running, 5000));
	cu_tell('r');
}

/*
 * The parent's side: @client forked, and a running server (its log captured when @capture)
 * that heard the client's 'r'; the child's pid.
 */
static pid_t server_with_client(struct cu_ep *s, int (*client)(void *), bool capture)
{
	pid_t child;

	cu_sync_init();
	child = cu_fork(client, NULL, 30);
	cu_sync_side(false);
	cu_open(s, true);
	if (capture)
		cu_log_capture();
	assert_ok(cu_server_start(s, NAME, 0, 1024));
	assert_int_equal(cu_hear(s, 5000), 'r');
	return child;
}

static int client_dies(void *arg)
{
	struct cu_ep e;

	(void)arg;
	client_up(&e, false);
	CU_CHECK(cu_hear(NULL, 10000) == 'k'); /* without progressing: the socket fills */
	raise(SIGKILL);
	return 1;
}

static void test_client_dies(void **state)
{
	struct cu_ep s;
	uint8_t big[4080] = { 1 };
	unsigned int submitted = 0;
	pid_t child;

	(void)state;
	child = server_with_client(&s, client_dies, true);
	assert_non_null(s.conn);
	/* more than the socket holds: some sends stay queued in flight */
	for (int i = 0; i < 600; i++) {
		doca_error_t r = cu_send(&s, big, sizeof(big));

		if (r == DOCA_ERROR_AGAIN)
			break;
		assert_int_equal(r, DOCA_SUCCESS);
		submitted++;
	}
	doca_pe_progress(s.pe);
	assert_true(s.sent_ok < submitted);
	cu_tell('k');
	assert_true(cu_progress_until(&s, has_disconnect, 5000));
	g_want_sent = submitted;
	assert_true(cu_progress_until(&s, want_sent, 5000));
	assert_true(s.sent_err > 0);
	assert_int_equal(s.last_send_status, DOCA_ERROR_CONNECTION_RESET);
	assert_true(cu_log_has("without disconnecting"));
	assert_int_equal(cu_join(child, 10), -1); /* killed */
	assert_true(cu_is_running(&s));           /* the server goes on */
	assert_true(cu_close(&s));
}

/* ---- a server that stops while the client's socket is full: the BYE waits for room ---------- */

/* The count the parent tells (decimal digits, then '.'), heard without progressing. */
static unsigned int hear_count(void)
{
	unsigned int v = 0;
	char c;

	while ((c = cu_hear(NULL, 10000)) != '.') {
		CU_CHECK(c >= '0' && c <= '9');
		v = v * 10 + (unsigned int)(c - '0');
	}
	return v;
}

static void tell_count(unsigned int v)
{
	char b[16];

	snprintf(b, sizeof(b), "%u.", v);
	for (const char *p = b; *p != '\0'; p++)
		cu_tell(*p);
}

static int client_reads_late(void *arg)
{
	struct cu_ep e;
	uint8_t want[4080];

	(void)arg;
	client_up(&e, true);
	CU_CHECK(cu_hear(NULL, 10000) == 'k'); /* without progressing: the socket filled */
	CU_CHECK(cu_progress_until(&e, cu_is_idle, 10000));
	/* every message the server reported sent, in order, then its BYE: no vanished server */
	CU_CHECK(e.nrx == hear_count());
	for (uint32_t i = 0; i < e.nrx; i++) {
		fill(want, i, sizeof(want));
		CU_CHECK(e.rx_len[i] == sizeof(want) && memcmp(e.rx[i], want, sizeof(want)) == 0);
	}
	CU_CHECK(!cu_log_has("without disconnecting"));
	CU_CHECK(cu_close(&e));
	return 0;
}

static void test_server_stops_socket_full(void **state)
{
	struct cu_ep s;
	uint8_t big[4080];
	unsigned int submitted = 0;
	pid_t child;

	(void)state;
	child = server_with_client(&s, client_reads_late, false);
	/* more than the socket holds: some sends wait, and the socket takes not even a BYE */
	for (uint32_t i = 0; i < 600; i++, submitted++) {
		fill(big, i, sizeof(big));
		assert_int_equal(cu_send(&s, big, sizeof(big)), DOCA_SUCCESS);
	}
	doca_pe_progress(s.pe);
	assert_true(s.sent_ok < submitted);
	assert_int_equal(doca_ctx_stop(s.ctx), DOCA_ERROR_IN_PROGRESS);
	cu_tell('k');
	assert_true(cu_progress_until(&s, cu_is_idle, 10000));
	/* the sends the socket had not taken failed (the stop flushes them) */
	assert_int_equal(s.sent_ok + s.sent_err, submitted);
	assert_true(s.sent_err > 0);
	tell_count(s.sent_ok);
	assert_int_equal(cu_join(child, 10), 0);
	assert_true(cu_close(&s));
}

/* A client that never reads: the stop's BYE waits ODMA_TRANSPORT_TIMEOUT_MS, no longer. */
static int client_never_reads(void *arg)
{
	struct cu_ep e;

	(void)arg;
	client_up(&e, false);
	CU_CHECK(cu_hear(NULL, 20000) == 'k'); /* the server is IDLE: never read a byte */
	return 0;
}

static void test_server_stops_peer_never_reads(void **state)
{
	struct cu_ep s;
	uint8_t big[4080] = { 1 };
	unsigned int submitted = 0;
	pid_t child;

	(void)state;
	child = server_with_client(&s, client_never_reads, true);
	for (; submitted < 600; submitted++)
		assert_int_equal(cu_send(&s, big, sizeof(big)), DOCA_SUCCESS);
	doca_pe_progress(s.pe);
	assert_int_equal(setenv("ODMA_TRANSPORT_TIMEOUT_MS", "300", 1), 0);
	assert_int_equal(doca_ctx_stop(s.ctx), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(unsetenv("ODMA_TRANSPORT_TIMEOUT_MS"), 0);
	/* the server does not wait for the peer forever: IDLE, every send reported, one line */
	assert_true(cu_progress_until(&s, cu_is_idle, 10000));
	assert_int_equal(s.sent_ok + s.sent_err, submitted);
	assert_true(cu_log_has("it is closed without its disconnect message"));
	cu_tell('k');
	assert_int_equal(cu_join(child, 10), 0);
	assert_true(cu_close(&s));
}

/* ---- a server that dies: the client context stops by itself ---------------------------------- */

static int server_dies(void *arg)
{
	struct cu_ep s;

	(void)arg;
	cu_open(&s, true);
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_server_start(&s, NAME, 0, 4));
	CU_CHECK(cu_progress_until(&s, cu_has_conn, 10000));
	raise(SIGKILL);
	return 1;
}

static void test_server_dies(void **state)
{
	struct cu_ep c;
	pid_t child;

	(void)state;
	child = cu_fork(server_dies, NULL, 30);
	cu_open(&c, false);
	cu_log_capture();
	assert_int_equal(cu_client_start(&c, NAME, 0, 4), DOCA_ERROR_IN_PROGRESS);
	assert_true(cu_progress_until(&c, cu_is_running, 5000));
	assert_true(cu_progress_until(&c, cu_is_idle, 5000));
	assert_true(cu_log_has("without disconnecting"));
	assert_int_equal(cu_send(&c, "x", 1), DOCA_ERROR_BAD_STATE);
	assert_int_equal(cu_join(child, 10), -1);
	assert_true(cu_close(&c));
}

/* ---- the server stops first (from a send completion, as NVIDIA's ctrl-path server does) ------ */

static int client_sees_stop(void *arg)
{
	struct cu_ep e;

	(void)arg;
	cu_open(&e, false);
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&e, NAME, 0, 4));
	CU_CHECK(cu_progress_until(&e, cu_is_running, 5000));
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_send(&e, "ping", 4));
	CU_CHECK(cu_progress_until(&e, cu_is_idle, 5000)); /* the server left: IDLE by itself */
	CU_CHECK(e.nrx == 1 && e.rx_len[0] == 4 &&
	         memcmp(e.rx[0], "ping", 4) == 0); /* the echo arrived first */
	CU_CHECK(cu_close(&e));
	return 0;
}

static void test_server_stops_first(void **state)
{
	struct cu_ep s;
	pid_t child;

	(void)state;
	child = cu_fork(client_sees_stop, NULL, 30);
	cu_open(&s, true);
	s.echo = true;
	s.stop_on_recv = true;
	assert_ok(cu_server_start(&s, NAME, 0, 4));
	assert_true(cu_progress_until(&s, cu_is_idle, 10000));
	assert_int_equal(s.disconnects, 1); /* the connection still open at stop */
	assert_int_equal(cu_join(child, 10), 0);
	assert_true(cu_close(&s));
}

/* ---- doca_comch_server_disconnect from the connect callback (refusing a second client) ------- */

static int second_client(void *arg)
{
	struct cu_ep e;

	(void)arg;
	cu_open(&e, false);
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&e, NAME, 0, 4));
	CU_CHECK(cu_progress_until(&e, cu_is_idle, 5000)); /* dropped by the server */
	CU_CHECK(cu_close(&e));
	return 0;
}

static int first_client(void *arg)
{
	struct cu_ep e;

	(void)arg;
	cu_sync_side(true);
	cu_open(&e, false);
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&e, NAME, 0, 4));
	CU_CHECK(cu_progress_until(&e, cu_is_running, 5000));
	cu_tell('1');
	CU_CHECK(cu_hear(&e, 10000) == '2'); /* the second client was dropped */
	CU_CHECK(cu_is_running(&e));
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_send(&e, "still here", 10));
	g_want_sent = 1;
	CU_CHECK(cu_progress_until(&e, want_sent, 5000));
	CU_CHECK(cu_close(&e));
	return 0;
}

static void test_server_disconnect(void **state)
{
	struct cu_ep s;
	pid_t c1, c2;
	int gate;

	(void)state;
	cu_sync_init();
	c1 = cu_fork(first_client, NULL, 30);
	c2 = cu_fork_gated(second_client, NULL, 30, &gate);
	cu_sync_side(false);
	cu_open(&s, true);
	s.drop_second = true;
	assert_ok(cu_server_start(&s, NAME, 0, 4));
	assert_int_equal(cu_hear(&s, 5000), '1');
	cu_release(gate);
	while (s.dropped == 0)
		doca_pe_progress(s.pe);
	cu_progress_for(&s, 50);
	assert_int_equal(cu_join(c2, 10), 0);
	assert_int_equal(s.disconnects, 0); /* none for a connection the server dropped */
	cu_tell('2');
	g_want = 1;
	assert_true(cu_progress_until(&s, want_msgs, 5000));
	assert_memory_equal(s.rx[0], "still here", 10);
	assert_true(cu_progress_until(&s, has_disconnect, 5000));
	assert_int_equal(s.connects, 2);
	assert_int_equal(cu_join(c1, 10), 0);
	assert_int_equal(doca_comch_server_disconnect(s.srv, s.conn),
	                 DOCA_ERROR_INVALID_VALUE); /* NULL */
	assert_true(cu_close(&s));
}

/* ---- one server per name: a duplicate is refused; a stale socket is replaced ----------------- */

static int server_killed(void *arg)
{
	struct cu_ep s;

	(void)arg;
	cu_open(&s, true);
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_server_start(&s, "stale", 0, 4));
	raise(SIGKILL);
	return 1;
}

static void test_duplicate_and_stale(void **state)
{
	struct cu_ep a, b;
	pid_t child;
	int gate;

	(void)state;
	child = cu_fork_gated(server_killed, NULL, 30, &gate);
	cu_open(&a, true);
	cu_open(&b, true);
	cu_log_capture();
	assert_ok(cu_server_start(&a, NAME, 0, 4));
	assert_int_equal(cu_server_start(&b, NAME, 0, 4), DOCA_ERROR_ALREADY_EXIST);
	assert_true(cu_log_has("already listens"));
	assert_true(cu_close(&a));
	assert_ok(doca_ctx_start(b.ctx)); /* the name is free again */
	assert_true(cu_close(&b));
	/* a server killed without stopping leaves its socket file behind */
	cu_release(gate);
	assert_int_equal(cu_join(child, 10), -1);
	cu_open(&a, true);
	assert_ok(cu_server_start(&a, "stale", 0, 4));
	assert_true(cu_close(&a));
}

/* ---- isolation: another runtime directory, another emulated system --------------------------- */

/*
 * exec'd role: a client that must not find the server, with @var set to @value (after the exec:
 * the parent has threads, so its child only execs); exit 3 when it ends IDLE unconnected.
 */
static int role_probe(const char *name, const char *var, const char *value)
{
	struct cu_ep e;

	setenv(var, value, 1);
	setenv("ODMA_COMCH_CONNECT_TIMEOUT_MS", "200", 1);
	cu_open(&e, false);
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&e, name, 0, 4));
	CU_CHECK(cu_progress_until(&e, cu_is_idle, 5000));
	CU_CHECK(cu_close(&e));
	return e.passed_running ? 0 : 3;
}

static int probe_in_env(void *arg)
{
	char **env = arg;

	tu_execv(g_argv[0], (char *const[]){ g_argv[0], "--probe", NAME, env[0], env[1], NULL });
	return 99;
}

static void test_isolation(void **state)
{
	struct cu_ep s;
	char dir[] = "/tmp/odma-comch-other-XXXXXX";
	char profile[256];
	char *env_dir[2] = { "ODMA_RUNDIR", dir };
	char *env_sys[2] = { "ODMA_SYSTEM", profile };
	const char *src = getenv("ODMA_TEST_SOURCE_ROOT");
	pid_t child;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_non_null(src);
	snprintf(profile, sizeof(profile), "%s/tests/data/profiles/comch-small.profile", src);
	cu_open(&s, true);
	assert_ok(cu_server_start(&s, NAME, 0, 4));
	/* the server has threads: the probe only execs */
	child = cu_fork_any(probe_in_env, env_dir, 30);
	cu_progress_for(&s, 100);
	assert_int_equal(cu_join(child, 10), 3);
	child = cu_fork_any(probe_in_env, env_sys, 30);
	cu_progress_for(&s, 100);
	assert_int_equal(cu_join(child, 10), 3);
	assert_int_equal(s.connects, 0);
	assert_true(cu_close(&s));
	rmdir(dir);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_pingpong, cu_next_name),
		cmocka_unit_test_setup(test_copy_at_alloc, cu_next_name),
		cmocka_unit_test_setup(test_max_msg_size, cu_next_name),
		cmocka_unit_test_setup(test_recv_queue_full, cu_next_name),
		cmocka_unit_test_setup(test_connect_event_before_messages, cu_next_name),
		cmocka_unit_test_setup(test_no_server, cu_next_name),
		cmocka_unit_test_setup(test_client_first, cu_next_name),
		cmocka_unit_test_setup(test_client_dies, cu_next_name),
		cmocka_unit_test_setup(test_server_dies, cu_next_name),
		cmocka_unit_test_setup(test_server_stops_socket_full, cu_next_name),
		cmocka_unit_test_setup(test_server_stops_peer_never_reads, cu_next_name),
		cmocka_unit_test_setup(test_server_stops_first, cu_next_name),
		cmocka_unit_test_setup(test_server_disconnect, cu_next_name),
		cmocka_unit_test_setup(test_duplicate_and_stale, cu_next_name),
		cmocka_unit_test_setup(test_isolation, cu_next_name),
	};

	g_argv = argv;
	if (argc == 5 && strcmp(argv[1], "--probe") == 0)
		return role_probe(argv[2], argv[3], argv[4]);
	cu_private_rundir();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
