/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * One side of a Comch pair across two network namespaces (comch_netns.sh runs it; both sides
 * have ODMA_FABRIC set and their own ODMA_RUNDIR, so only the network joins them).
 *
 *   comch_net_peer server NAME CLIENTS   echo server: serves CLIENTS clients one after the
 *                                        other, exits 0 when each connected and left
 *   comch_net_peer client NAME N         sends N messages (1..4000 bytes, patterned), checks
 *                                        every echo byte for byte and the counters, stops
 *   comch_net_peer client-big NAME N     the same with N messages of 4000 bytes (past the
 *                                        transport's credit window: each side gives it back)
 *   comch_net_peer client-hold NAME      connects, one round trip, prints "ready", then
 *                                        progresses until its connection ends (exit 0 when it
 *                                        ended within ODMA_TRANSPORT_TIMEOUT_MS + 3 s of the
 *                                        next line on stdin, "go")
 *   comch_net_peer server-lose NAME      serves one client, prints "ready" once it echoed one
 *                                        message, then expects the disconnect event within
 *                                        ODMA_TRANSPORT_TIMEOUT_MS + 3 s of "go" on stdin
 *   comch_net_peer server-stop NAME N FILE  echo server: once N clients had a message
 *                                        echoed, prints "ready"; once FILE exists, stops and
 *                                        exits 0 when doca_ctx_stop returned within 1.5 s (the
 *                                        script stops the clients first: a stop must not wait
 *                                        for them, 2 s each before 2026-12-06)
 *   comch_net_peer server-flood NAME N FILE [stop]  once N clients said a word and FILE
 *                                        exists (the clients frozen), sends each 240 messages
 *                                        of 64 KiB and disconnects it at once (stop: 340 each,
 *                                        more than the transport takes, and stops instead);
 *                                        prints "closed: S sent F failed", stops, and exits 0
 *                                        once IDLE
 *   comch_net_peer client-count NAME     (its client) says a word, prints "ready", reads until
 *                                        the server ends the connection, checks the bytes and
 *                                        prints "received R"
 *   comch_net_peer server-fp NAME        the fast path both ways (with client-fp NAME on the
 *   comch_net_peer client-fp NAME        other side): the server's producer fills the client's
 *                                        consumer (immediate data, 1 B, 1000 B, 1 MiB - 1),
 *                                        then the client's producer the server's consumer;
 *                                        bytes, producer ids, new and expired consumer events
 *   comch_net_peer server-idle NAME FILE  a server that does not progress until FILE exists;
 *                                        then it must hold no more than COMCH_HS_MAX (128)
 *                                        descriptors beyond those it had when it started
 *   comch_net_peer hs-churn N            N connections that prove the secret and go away
 *                                        (against server-idle)
 *   comch_net_peer hostile               speaks the transport by hand at ODMA_FABRIC:
 *                                        malformed, oversized, unknown packets
 *   comch_net_peer hostile-connected NAME  the same after a valid handshake with NAME
 *   comch_net_peer hostile-unread NAME N   a client that never gives the transport's credit
 *                                        back while it makes NAME answer (up to N refused
 *                                        registrations): the server must close it
 *   comch_net_peer client-refused NAME   a client start that ends in IDLE (refused)
 *   comch_net_peer server-bad-fabric NAME  a server start refused (INVALID_VALUE)
 *   comch_net_peer server-port-busy NAME   a server start refused (IO_FAILED)
 *   comch_net_peer free-port               prints a port of 127.0.0.1 the kernel picked
 *   comch_net_peer relay PORT              a relay with no secret on a port of loopback the
 *                                        kernel picks ("relaying at P"), passing every
 *                                        connection on to PORT byte for byte (60 s)
 *   comch_net_peer lifetime NAME N [RUNDIR]  a server that stays bounded while N clients (this
 *                                        program, "lifetime-client", with ODMA_RUNDIR=RUNDIR
 *                                        when given, else a private one shared with them) come
 *                                        one after the other: each connects, starts a consumer,
 *                                        has one message echoed, then every other one
 *                                        disconnects and the rest die by SIGKILL. Every client
 *                                        and consumer must come and go, and after them the
 *                                        server holds no more descriptors or threads than after
 *                                        the first ten (at most 20 clients under qemu-user)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "comch_fp_util.h"
#include "comch_util.h"
#include "core/exec/exec.h"
#include "test_util.h"

static bool all_big; /* client-big: every message 4000 bytes */

static uint32_t msg_len(uint32_t i)
{
	return all_big ? 4000u : 1 + (i * 997u) % 4000u;
}

static void fill(uint8_t *b, uint32_t len, uint32_t i)
{
	for (uint32_t k = 0; k < len; k++)
		b[k] = (uint8_t)(i * 31u + k * 7u + 1u);
}

static uint64_t timeout_ms(void)
{
	const char *v = getenv("ODMA_TRANSPORT_TIMEOUT_MS");

	return v != NULL ? strtoull(v, NULL, 10) : 5000;
}

static unsigned int want_disc;
static bool got_disconnects(struct cu_ep *e)
{
	return e->disconnects >= want_disc;
}

static uint32_t want_rx;
static bool got_rx(struct cu_ep *e)
{
	return e->nrx >= want_rx;
}

/* Waits for "go" on stdin while progressing. */
static void wait_go(struct cu_ep *e)
{
	char line[16];
	struct pollfd p = { .fd = 0, .events = POLLIN };

	for (;;) {
		(void)doca_pe_progress(e->pe);
		if (poll(&p, 1, 1) == 1) {
			CU_CHECK(fgets(line, sizeof(line), stdin) != NULL);
			return;
		}
	}
}

/*
 * How many of @pe's network ios (and Comch connections across machines) make its progress do
 * the transport's work itself (core/exec: async_inflight): one per live connection.
 */
static unsigned int pe_polls(const struct doca_pe *pe)
{
	return atomic_load(&pe->async_inflight);
}

/*
 * Stops and closes @f: its PE did the transport's work while it ran, as the connection's own
 * PE does (a producer's sends, a consumer's posts go out from its progress), and no more once
 * the context is IDLE.
 */
static bool fp_close_polled(struct cu_ep *e, struct fp *f)
{
	doca_error_t r;

	CU_CHECK(pe_polls(f->pe) == 1);
	r = doca_ctx_stop(f->ctx);
	CU_CHECK(r == DOCA_SUCCESS || r == DOCA_ERROR_IN_PROGRESS);
	CU_CHECK(fp_until_state(e, f, DOCA_CTX_STATE_IDLE, 5000));
	CU_CHECK(pe_polls(f->pe) == 0);
	return fp_close(e, f);
}

static int run_server(const char *name, unsigned int clients)
{
	struct cu_ep e;

	cu_open(&e, true);
	e.echo = true;
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_server_start(&e, name, 64, 64));
	printf("listening\n");
	fflush(stdout);
	want_disc = clients;
	CU_CHECK(cu_progress_until(&e, got_disconnects, 60000));
	CU_CHECK(e.connects == clients);
	CU_CHECK(pe_polls(e.pe) == 0); /* every connection ended */
	CU_CHECK(cu_close(&e));
	printf("server: %u clients served, %u messages echoed\n", clients, e.nrx);
	return 0;
}

static int run_client(const char *name, uint32_t n)
{
	struct cu_ep e;
	uint8_t buf[4000];
	uint64_t v = 0;

	cu_open(&e, false);
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&e, name, 64, 64));
	CU_CHECK(cu_progress_until(&e, cu_is_running, 20000));
	CU_CHECK(cu_has_conn(&e));
	CU_CHECK(pe_polls(e.pe) == 1);
	for (uint32_t i = 0; i < n; i++) {
		doca_error_t r;

		fill(buf, msg_len(i), i);
		while ((r = cu_send(&e, buf, msg_len(i))) == DOCA_ERROR_AGAIN)
			cu_progress_for(&e, 1);
		CU_CHECK_DOCA(DOCA_SUCCESS, r);
		(void)doca_pe_progress(e.pe);
	}
	want_rx = n;
	CU_CHECK(cu_progress_until(&e, got_rx, 30000));
	for (uint32_t i = 0; i < n; i++) {
		fill(buf, msg_len(i), i);
		CU_CHECK(e.rx_len[i] == msg_len(i));
		CU_CHECK(memcmp(e.rx[i], buf, msg_len(i)) == 0);
	}
	CU_CHECK(e.sent_ok == n && e.sent_err == 0);
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_connection_update_info(e.conn));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_connection_get_counter(
	                                    e.conn, DOCA_COMCH_COUNTER_SENT_MESSAGES, &v));
	CU_CHECK(v == n);
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_connection_get_counter(
	                                    e.conn, DOCA_COMCH_COUNTER_RECV_MESSAGES, &v));
	CU_CHECK(v == n);
	CU_CHECK(pe_polls(e.pe) == 1);
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, doca_ctx_stop(e.ctx));
	CU_CHECK(cu_progress_until(&e, cu_is_idle, 5000));
	CU_CHECK(pe_polls(e.pe) == 0);
	CU_CHECK(cu_close(&e));
	printf("client: %u messages round trip, bytes verified\n", n);
	return 0;
}

static bool conn_ended(struct cu_ep *e)
{
	return cu_is_idle(e);
}

static int run_client_hold(const char *name)
{
	struct cu_ep e;
	uint64_t t0;

	cu_open(&e, false);
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&e, name, 64, 64));
	CU_CHECK(cu_progress_until(&e, cu_is_running, 20000));
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_send(&e, "hold", 4));
	want_rx = 1;
	CU_CHECK(cu_progress_until(&e, got_rx, 10000));
	printf("ready\n");
	fflush(stdout);
	wait_go(&e);
	t0 = cu_now_ms();
	/* the connection ends by itself: the client context goes to IDLE */
	CU_CHECK(cu_progress_until(&e, conn_ended, (unsigned int)(timeout_ms() + 3000)));
	printf("client: the connection ended after %llu ms; IDLE\n",
	       (unsigned long long)(cu_now_ms() - t0));
	/* the context is IDLE already: a stop is refused, the rest is released */
	(void)cu_close(&e);
	return 0;
}

static int run_server_lose(const char *name)
{
	struct cu_ep e;
	uint64_t t0;

	cu_open(&e, true);
	e.echo = true;
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_server_start(&e, name, 64, 64));
	printf("listening\n");
	fflush(stdout);
	want_rx = 1;
	CU_CHECK(cu_progress_until(&e, got_rx, 30000));
	printf("ready\n");
	fflush(stdout);
	wait_go(&e);
	t0 = cu_now_ms();
	want_disc = 1;
	CU_CHECK(cu_progress_until(&e, got_disconnects, (unsigned int)(timeout_ms() + 3000)));
	printf("server: disconnect event after %llu ms\n", (unsigned long long)(cu_now_ms() - t0));
	CU_CHECK(cu_close(&e));
	return 0;
}

static int run_server_stop(const char *name, uint32_t n, const char *file)
{
	struct cu_ep e;
	uint64_t t0, ms;
	doca_error_t r;

	cu_open(&e, true);
	e.echo = true;
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_server_start(&e, name, 64, 64));
	printf("listening\n");
	want_rx = n;
	CU_CHECK(cu_progress_until(&e, got_rx, 30000));
	printf("ready\n");
	while (access(file, F_OK) != 0)
		(void)doca_pe_progress(e.pe);
	t0 = cu_now_ms();
	r = doca_ctx_stop(e.ctx);
	ms = cu_now_ms() - t0;
	printf("server: doca_ctx_stop returned %s in %llu ms\n", doca_error_get_name(r),
	       (unsigned long long)ms);
	CU_CHECK(r == DOCA_SUCCESS || r == DOCA_ERROR_IN_PROGRESS);
	CU_CHECK(ms < 1500);
	CU_CHECK(cu_close(&e));
	return 0;
}

/* server-flood: messages of FLOOD_LEN bytes, FLOOD_N to each client (past the socket's room). */
#define FLOOD_LEN 65536u
#define FLOOD_N 240u
#define FLOOD_STOP_N 340u /* past what the transport holds for a peer (16 MiB): some wait */

/* A send to @conn of the server's message @i (its pattern): the submit's answer. */
static doca_error_t flood_send(struct cu_ep *e, struct doca_comch_connection *conn, uint32_t i)
{
	static uint8_t buf[FLOOD_LEN];
	struct doca_comch_task_send *t;
	doca_error_t r;

	fill(buf, FLOOD_LEN, i);
	r = doca_comch_server_task_send_alloc_init(e->srv, conn, buf, FLOOD_LEN, &t);
	if (r != DOCA_SUCCESS)
		return r;
	r = doca_task_submit(doca_comch_task_send_as_task(t));
	if (r != DOCA_SUCCESS)
		doca_task_free(doca_comch_task_send_as_task(t));
	return r;
}

/*
 * server-flood NAME N FILE: once N clients said a word ("ready") and FILE exists (the script
 * froze the clients), sends FLOOD_N messages to each, more than their sockets take, then
 * disconnects each of them: the disconnects return with the sends in flight, which still
 * reach the clients once they run again. Prints how many sends were reported sent, then waits
 * for the stop to end (IDLE once the clients took everything).
 */
static int run_server_flood(const char *name, unsigned int n, const char *file, bool stop)
{
	struct cu_ep e;
	unsigned int submitted = 0, per = stop ? FLOOD_STOP_N : FLOOD_N;
	doca_error_t r;

	cu_open(&e, true);
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_server_start(&e, name, 64, 1024));
	printf("listening\n");
	want_rx = n;
	CU_CHECK(cu_progress_until(&e, got_rx, 30000) && e.nconns == n);
	printf("ready\n");
	while (access(file, F_OK) != 0)
		(void)doca_pe_progress(e.pe);
	for (unsigned int c = 0; c < n; c++)
		for (uint32_t i = 0; i < per; i++, submitted++)
			CU_CHECK_DOCA(DOCA_SUCCESS, flood_send(&e, e.conns[c], i));
	for (unsigned int c = 0; c < n && !stop; c++) {
		while ((r = doca_comch_server_disconnect(e.srv, e.conns[c])) == DOCA_ERROR_AGAIN)
			(void)doca_pe_progress(e.pe);
		CU_CHECK_DOCA(DOCA_SUCCESS, r);
		(void)doca_pe_progress(e.pe);
	}
	if (stop) { /* the sends the transport did not take yet fail (IO_FAILED) */
		CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, doca_ctx_stop(e.ctx));
		(void)doca_pe_progress(e.pe);
	}
	/* every send accepted is reported once: sent, or failed (none without the stop) */
	CU_CHECK(e.sent_ok + e.sent_err == submitted && (stop || e.sent_err == 0));
	printf("closed: %u sent %u failed\n", e.sent_ok, e.sent_err);
	r = doca_ctx_stop(e.ctx);
	CU_CHECK(r == DOCA_SUCCESS || r == DOCA_ERROR_IN_PROGRESS);
	CU_CHECK(cu_progress_until(&e, cu_is_idle, 60000));
	printf("server: IDLE\n");
	CU_CHECK(cu_close(&e));
	return 0;
}

/*
 * client-count NAME: connects, says a word, prints "ready", then reads until the server ends the
 * connection; checks every message byte for byte and prints how many arrived.
 */
static int run_client_count(const char *name)
{
	static uint8_t buf[FLOOD_LEN];
	struct cu_ep e;

	cu_open(&e, false);
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&e, name, 1024, 8));
	CU_CHECK(cu_progress_until(&e, cu_is_running, 20000));
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_send(&e, "w", 1));
	printf("ready\n");
	CU_CHECK(cu_progress_until(&e, cu_is_idle, 60000));
	for (uint32_t i = 0; i < e.nrx; i++) {
		fill(buf, FLOOD_LEN, i);
		CU_CHECK(e.rx_len[i] == FLOOD_LEN && memcmp(e.rx[i], buf, FLOOD_LEN) == 0);
	}
	printf("received %u\n", e.nrx);
	(void)cu_close(&e);
	return 0;
}

#define BIG (1u << 20)

/* Waits for the peer's one-byte step message @c (cu_ep records what arrived). */
static bool hear(struct cu_ep *e, uint32_t nth, char c)
{
	want_rx = nth;
	return cu_progress_until(e, got_rx, 20000) && e->rx_len[nth - 1] == 1 &&
	       e->rx[nth - 1][0] == (uint8_t)c;
}

static int run_server_fp(const char *name)
{
	struct cu_ep s;
	struct fp p, c;
	uint32_t pid_;
	unsigned int agains = 0;

	cu_open(&s, true);
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_server_start(&s, name, 0, 8));
	printf("listening\n");
	CU_CHECK(cu_progress_until(&s, got_new_cons, 20000));
	CU_CHECK((s.last_cons_id & 1) == 1);
	fp_producer(&p, &s, BIG, 8);
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_producer_get_id(p.prod, &pid_));
	fp_fill(&p, 5);
	/* AGAIN until the client posts: the shadow ring fills without this process progressing */
	CU_CHECK_DOCA(DOCA_SUCCESS, fp_send(&p, 0, 1, s.last_cons_id, "immdata!", true, &agains));
	CU_CHECK_DOCA(DOCA_SUCCESS, fp_send(&p, 0, 1000, s.last_cons_id, NULL, true, NULL));
	CU_CHECK_DOCA(DOCA_SUCCESS, fp_send(&p, 0, BIG - 1, s.last_cons_id, NULL, true, NULL));
	/* buf lists: more pieces than one transport message takes (gathered), and two pieces */
	CU_CHECK_DOCA(DOCA_SUCCESS, fp_send_list(&p, 2000, 100, 3, s.last_cons_id, "listimm!"));
	CU_CHECK_DOCA(DOCA_SUCCESS, fp_send_list(&p, 3000, 50, 2, s.last_cons_id, NULL));
	CU_CHECK(fp_until_count(&s, &p, 5, 10000));
	CU_CHECK(p.ok == 5 && p.err == 0);
	CU_CHECK(hear(&s, 1, 'c'));
	CU_CHECK(cu_progress_until(&s, got_gone_cons, 10000));
	CU_CHECK(s.gone_cons_id == s.last_cons_id);
	CU_CHECK_DOCA(DOCA_ERROR_NOT_FOUND, fp_send(&p, 0, 8, s.last_cons_id, NULL, false, NULL));
	CU_CHECK(fp_close_polled(&s, &p));
	fp_consumer(&c, &s, 8192, 2, 0);
	CU_CHECK(fp_until_state(&s, &c, DOCA_CTX_STATE_RUNNING, 10000));
	fp_post(&c, 0, 8192);
	CU_CHECK(fp_until_count(&s, &c, 1, 10000));
	CU_CHECK(c.err == 0 && c.got_len[0] == 4096);
	CU_CHECK(c.got_producer[0] != 0 && (c.got_producer[0] & 1) == 1);
	for (size_t i = 0; i < 4096; i++)
		CU_CHECK(c.mem.base[i] == (uint8_t)(i * 13u + 9));
	CU_CHECK(fp_close_polled(&s, &c));
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_send(&s, "d", 1));
	CU_CHECK(cu_progress_until(&s, has_disconnect, 10000));
	CU_CHECK(cu_close(&s));
	printf("server: fast path both ways, bytes verified (%u AGAIN before the first post)\n",
	       agains);
	return 0;
}

static int run_client_fp(const char *name)
{
	struct cu_ep e;
	struct fp c, p;
	uint32_t cid, pid_;

	cu_open(&e, false);
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&e, name, 0, 8));
	CU_CHECK(cu_progress_until(&e, cu_is_running, 20000));
	fp_consumer(&c, &e, 4 * BIG, 8, 8);
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_consumer_get_id(c.cons, &cid));
	CU_CHECK(cid != 0 && (cid & 1) == 1);
	CU_CHECK(fp_until_state(&e, &c, DOCA_CTX_STATE_RUNNING, 10000));
	cu_progress_for(&e, 200); /* the server's producer meets an empty ring first */
	fp_post(&c, 0, BIG);
	fp_post(&c, BIG, BIG);
	fp_post(&c, 2 * BIG, BIG);
	fp_post(&c, 3 * BIG, 4096);
	fp_post(&c, 3 * BIG + 4096, 4096);
	CU_CHECK(fp_until_count(&e, &c, 5, 10000));
	CU_CHECK(c.err == 0 && c.got_len[0] == 1 && c.got_imm_len[0] == 8 &&
	         memcmp(c.got_imm[0], "immdata!", 8) == 0);
	CU_CHECK(c.mem.base[0] == (uint8_t)(0 * 13u + 5));
	CU_CHECK(c.got_len[1] == 1000 && c.got_imm_len[1] == 0);
	CU_CHECK(c.got_len[2] == BIG - 1 && c.got_imm_len[2] == 0 && c.got_producer[2] != 0);
	CU_CHECK(c.got_producer[0] == c.got_producer[2] && (c.got_producer[0] & 1) == 0);
	for (size_t i = 0; i < 1000; i++)
		CU_CHECK(c.mem.base[BIG + i] == (uint8_t)(i * 13u + 5));
	for (size_t i = 0; i < BIG - 1; i++)
		CU_CHECK(c.mem.base[2 * BIG + i] == (uint8_t)(i * 13u + 5));
	CU_CHECK(c.got_len[3] == 300 && c.got_imm_len[3] == 8 &&
	         memcmp(c.got_imm[3], "listimm!", 8) == 0);
	CU_CHECK(c.got_len[4] == 100 && c.got_imm_len[4] == 0);
	for (size_t i = 0; i < 300; i++)
		CU_CHECK(c.mem.base[3 * BIG + i] == (uint8_t)((2000 + i) * 13u + 5));
	for (size_t i = 0; i < 100; i++)
		CU_CHECK(c.mem.base[3 * BIG + 4096 + i] == (uint8_t)((3000 + i) * 13u + 5));
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_send(&e, "c", 1));
	CU_CHECK(fp_close_polled(&e, &c)); /* the server sees it expire */
	CU_CHECK(cu_progress_until(&e, got_new_cons, 10000));
	CU_CHECK((e.last_cons_id & 1) == 0);
	fp_producer(&p, &e, 4096, 4);
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_producer_get_id(p.prod, &pid_));
	fp_fill(&p, 9);
	CU_CHECK_DOCA(DOCA_SUCCESS, fp_send(&p, 0, 4096, e.last_cons_id, NULL, true, NULL));
	CU_CHECK(fp_until_count(&e, &p, 1, 10000));
	CU_CHECK(p.ok == 1 && pid_ != 0 && (pid_ & 1) == 1);
	CU_CHECK(fp_close_polled(&e, &p));
	CU_CHECK(hear(&e, 1, 'd'));
	CU_CHECK(cu_close(&e));
	printf("client: fast path both ways, bytes verified\n");
	return 0;
}

int comch_net_hostile(void);
int comch_net_hostile_connected(const char *name);
int comch_net_hostile_unread(const char *name, long n);

/* A server whose start must fail with @want (a malformed ODMA_FABRIC, a port in use). */
static int run_server_refused(const char *name, doca_error_t want)
{
	struct cu_ep e;

	cu_open(&e, true);
	CU_CHECK_DOCA(want, cu_server_start(&e, name, 64, 64));
	printf("server: start refused with %s\n", doca_error_get_name(want));
	return 0;
}

/* A client whose start the server (or its own check of the server) refuses: back to IDLE. */
static int run_client_refused(const char *name)
{
	struct cu_ep e;

	cu_open(&e, false);
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&e, name, 64, 64));
	CU_CHECK(cu_progress_until(&e, cu_is_idle, 20000));
	CU_CHECK(!cu_has_conn(&e));
	printf("client: start refused\n");
	return 0;
}

/* "lifetime-client NAME DIE RUNDIR": one client of run_lifetime. */
static int run_lifetime_client(const char *name, bool die, const char *rundir)
{
	struct cu_ep e;
	struct fp c;

	if (*rundir != '\0')
		setenv("ODMA_RUNDIR", rundir, 1);
	cu_open(&e, false);
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&e, name, 16, 4));
	CU_CHECK(cu_progress_until(&e, cu_is_running, 20000));
	fp_consumer(&c, &e, 4096, 4, 0);
	CU_CHECK(fp_until_state(&e, &c, DOCA_CTX_STATE_RUNNING, 10000));
	fp_post(&c, 0, 4096);
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_send(&e, "x", 1));
	want_rx = 1;
	CU_CHECK(cu_progress_until(&e, got_rx, 10000)); /* the server has it, and the consumer */
	if (die)
		raise(SIGKILL);
	CU_CHECK(fp_close(&e, &c));
	CU_CHECK(cu_close(&e));
	return 0;
}

/* Each client that disconnected (want_disc of them) had one consumer: all of them expired. */
static bool got_gone_all(struct cu_ep *e)
{
	return e->gone_cons >= want_disc;
}

#define LIFETIME_WARM 10

static int run_lifetime(const char *self, const char *name, unsigned int n, const char *rundir)
{
	struct tu_held base = { 0, 0 };
	struct cu_ep e;

	if (tu_under_qemu() && n > 2 * LIFETIME_WARM)
		n = 2 * LIFETIME_WARM; /* each client is an emulator there: 10 past the first 10 */
	if (*rundir == '\0')
		cu_private_rundir(); /* the clients inherit it */
	cu_open(&e, true);
	e.echo = true;
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_server_start(&e, name, 64, 64));
	printf("listening\n");
	for (unsigned int i = 0; i < n; i++) {
		bool die = i % 2 == 1;
		char *argv[] = { (char *)self,    "lifetime-client", (char *)name,
			         die ? "1" : "0", (char *)rundir,    NULL };
		uint64_t t0 = cu_now_ms();
		pid_t pid, r;
		int st = 0;

		if (i == LIFETIME_WARM)
			base = tu_held_by(getpid());
		pid = fork();
		if (pid == 0) { /* this process may have threads: nothing but exec */
			(void)tu_execv(self, argv);
			_exit(127);
		}
		CU_CHECK(pid > 0);
		while ((r = waitpid(pid, &st, WNOHANG)) == 0 && cu_now_ms() - t0 < 30000)
			if (doca_pe_progress(e.pe) == 0)
				usleep(50);
		if (r == 0) {
			kill(pid, SIGKILL);
			(void)waitpid(pid, &st, 0);
			fprintf(stderr, "server: client %u did not end within 30 s\n", i);
			return 1;
		}
		if (die ? !WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL
		        : !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "server: client %u ended with status 0x%x\n", i, st);
			return 1;
		}
		want_disc = i + 1;
		CU_CHECK(cu_progress_until(&e, got_disconnects, 20000));
	}
	CU_CHECK(cu_progress_until(&e, got_gone_all, 20000));
	CU_CHECK(e.connects == n && e.disconnects == n && e.new_cons == n && e.gone_cons == n);
	cu_progress_for(&e, 100);
	CU_CHECK(tu_settles_to("server", getpid(), base, 2));
	CU_CHECK(cu_close(&e));
	printf("server: %u clients and their consumers came and went (%u of them killed)\n", n,
	       n / 2);
	return 0;
}

/*
 * A server that starts and does not progress while peers come and go (hs-churn): what they
 * leave must stay bounded (COMCH_HS_MAX handshakes, each with its descriptor) until it does.
 */
static int run_server_idle(const char *name, const char *file)
{
	struct cu_ep e;
	int base, held;

	cu_open(&e, true);
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_server_start(&e, name, 64, 64));
	base = tu_count_fds(getpid());
	printf("listening\n");
	while (access(file, F_OK) != 0)
		usleep(10000);
	held = tu_count_fds(getpid());
	printf("server: %d descriptors, %d at the start\n", held, base);
	if (held > base + 128 + 16) {
		fprintf(stderr,
		        "server: %d descriptors held for peers that came and went while "
		        "it did not progress (at most 128 handshakes wait)\n",
		        held - base);
		return 1;
	}
	cu_progress_for(&e, 200);
	CU_CHECK(tu_count_fds(getpid()) <= base + 2);
	CU_CHECK(cu_close(&e));
	return 0;
}

int comch_net_hs_churn(long n);
int comch_net_relay(uint16_t port);

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && strcmp(argv[1], "free-port") == 0) { /* the kernel's pick, for scripts */
		uint16_t port = tu_free_port();

		printf("%u\n", port);
		return port != 0 ? 0 : 1;
	}
	if (argc == 3 && strcmp(argv[1], "relay") == 0)
		return comch_net_relay((uint16_t)atoi(argv[2]));
	if (argc == 4 && strcmp(argv[1], "server") == 0)
		return run_server(argv[2], (unsigned int)atoi(argv[3]));
	if (argc == 4 && strcmp(argv[1], "server-idle") == 0)
		return run_server_idle(argv[2], argv[3]);
	if (argc == 3 && strcmp(argv[1], "hs-churn") == 0) {
		struct cu_ep e;

		cu_open(&e, false);
		return comch_net_hs_churn(atol(argv[2]));
	}
	if (argc == 4 && strcmp(argv[1], "client") == 0)
		return run_client(argv[2], (uint32_t)atoi(argv[3]));
	if (argc == 4 && strcmp(argv[1], "client-big") == 0) {
		all_big = true;
		return run_client(argv[2], (uint32_t)atoi(argv[3]));
	}
	if (argc == 3 && strcmp(argv[1], "client-hold") == 0)
		return run_client_hold(argv[2]);
	if (argc == 5 && strcmp(argv[1], "server-stop") == 0)
		return run_server_stop(argv[2], (uint32_t)atoi(argv[3]), argv[4]);
	if ((argc == 5 || argc == 6) && strcmp(argv[1], "server-flood") == 0)
		return run_server_flood(argv[2], (unsigned int)atoi(argv[3]), argv[4],
		                        argc == 6 && strcmp(argv[5], "stop") == 0);
	if (argc == 3 && strcmp(argv[1], "client-count") == 0)
		return run_client_count(argv[2]);
	if (argc == 3 && strcmp(argv[1], "server-lose") == 0)
		return run_server_lose(argv[2]);
	if (argc == 3 && strcmp(argv[1], "server-fp") == 0)
		return run_server_fp(argv[2]);
	if (argc == 3 && strcmp(argv[1], "client-fp") == 0)
		return run_client_fp(argv[2]);
	if (argc == 3 && strcmp(argv[1], "client-refused") == 0)
		return run_client_refused(argv[2]);
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "lifetime") == 0)
		return run_lifetime(argv[0], argv[2], (unsigned int)atoi(argv[3]),
		                    argc == 5 ? argv[4] : "");
	if (argc == 5 && strcmp(argv[1], "lifetime-client") == 0)
		return run_lifetime_client(argv[2], strcmp(argv[3], "1") == 0, argv[4]);
	if (argc == 2 && strcmp(argv[1], "hostile") == 0)
		return comch_net_hostile();
	if (argc == 3 && strcmp(argv[1], "server-bad-fabric") == 0)
		return run_server_refused(argv[2], DOCA_ERROR_INVALID_VALUE);
	if (argc == 3 && strcmp(argv[1], "server-port-busy") == 0)
		return run_server_refused(argv[2], DOCA_ERROR_IO_FAILED);
	if (argc == 3 && strcmp(argv[1], "hostile-connected") == 0) {
		struct cu_ep e;

		cu_open(&e, false); /* loads the emulated system (its id goes into the HELLO) */
		return comch_net_hostile_connected(argv[2]);
	}
	if (argc == 4 && strcmp(argv[1], "hostile-unread") == 0) {
		struct cu_ep e;

		cu_open(&e, false); /* loads the emulated system (its id goes into the HELLO) */
		return comch_net_hostile_unread(argv[2], atol(argv[3]));
	}
	fprintf(stderr, "usage: see the top of comch_net_peer.c\n");
	return 2;
}
