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
 *   comch_net_peer client-hold NAME      connects, one round trip, prints "ready", then
 *                                        progresses until its connection ends (exit 0 when it
 *                                        ended within ODMA_TRANSPORT_TIMEOUT_MS + 3 s of the
 *                                        next line on stdin, "go")
 *   comch_net_peer server-lose NAME      serves one client, prints "ready" once it echoed one
 *                                        message, then expects the disconnect event within
 *                                        ODMA_TRANSPORT_TIMEOUT_MS + 3 s of "go" on stdin
 *   comch_net_peer client-fp NAME        a consumer on a connection across machines is refused
 *                                        (NOT_SUPPORTED)
 *   comch_net_peer hostile               speaks the transport by hand at ODMA_FABRIC:
 *                                        malformed, oversized, unknown packets
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "comch_util.h"

static uint32_t msg_len(uint32_t i)
{
	return 1 + (i * 997u) % 4000u;
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

static int run_client_fp(const char *name)
{
	struct cu_ep e;
	struct cu_mem m;
	struct doca_comch_consumer *c = NULL;
	struct doca_comch_producer *p = NULL;

	cu_open(&e, false);
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&e, name, 64, 64));
	CU_CHECK(cu_progress_until(&e, cu_is_running, 20000));
	cu_mem_init(&m, e.dev, 4096, 4);
	CU_CHECK_DOCA(DOCA_ERROR_NOT_SUPPORTED, doca_comch_consumer_create(e.conn, m.mmap, &c));
	CU_CHECK_DOCA(DOCA_ERROR_NOT_SUPPORTED, doca_comch_producer_create(e.conn, &p));
	cu_mem_fini(&m);
	CU_CHECK(cu_close(&e));
	printf("client: the fast path is refused across machines (NOT_SUPPORTED)\n");
	return 0;
}

int comch_net_hostile(void);

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && strcmp(argv[1], "server") == 0)
		return run_server(argv[2], (unsigned int)atoi(argv[3]));
	if (argc == 4 && strcmp(argv[1], "client") == 0)
		return run_client(argv[2], (uint32_t)atoi(argv[3]));
	if (argc == 3 && strcmp(argv[1], "client-hold") == 0)
		return run_client_hold(argv[2]);
	if (argc == 3 && strcmp(argv[1], "server-lose") == 0)
		return run_server_lose(argv[2]);
	if (argc == 3 && strcmp(argv[1], "client-fp") == 0)
		return run_client_fp(argv[2]);
	if (argc == 2 && strcmp(argv[1], "hostile") == 0)
		return comch_net_hostile();
	fprintf(stderr, "usage: see the top of comch_net_peer.c\n");
	return 2;
}
