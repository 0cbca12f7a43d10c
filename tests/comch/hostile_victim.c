/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The victim of tests/comch/hostile_peer.c (issue #19): a real odma Comch program, public API
 * only, that the hostile peer attacks.
 *
 *   hostile_victim server NAME   a server that echoes every message; on each connection it
 *                                runs a consumer (8 posted buffers, reposted as they complete)
 *                                and, once the peer announces a consumer, a producer that sends
 *                                16 bytes + 32 immediate bytes to it every millisecond. The
 *                                message "stop-consumer" stops that connection's consumer and
 *                                answers "stopped MS" once it is IDLE. SIGTERM: stops and exits 0.
 *   hostile_victim client NAME   an honest client: "ping" must come back; exits 0, else 1.
 *   hostile_victim refused NAME  a client that must NOT get connected (its context goes back
 *                                to IDLE without RUNNING): exits 0 if so, 1 if it connected.
 *
 * Every fast-path completion is checked (data_len within the buffer, immediate length within
 * what was set); a broken one aborts, so the hostile test sees it.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "test_dev.h"

#define V_MAX_CONNS 64
#define V_BUFS 8
#define V_BUF_LEN 4096u
#define V_IMM 32u

#define V_CHECK(cond)                                                                              \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "victim %s:%d: check failed: %s\n", __FILE__, __LINE__,    \
			        #cond);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

struct vconn {
	struct doca_comch_connection *conn;
	struct doca_comch_consumer *cons;
	struct doca_comch_producer *prod;
	uint32_t peer_cons; /* the peer's consumer the producer sends to (0: none) */
	bool gone;          /* disconnected */
	bool stop_asked;
	uint64_t stop_ms;
	uint8_t *mem; /* V_BUFS receive buffers + one send buffer */
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	struct doca_buf *src;
	uint64_t last_send_ms;
};

static struct doca_dev *dev;
static struct doca_dev_rep *rep;
static struct doca_pe *pe;
static struct doca_comch_server *srv;
static struct doca_comch_client *cli;
static struct vconn vc[V_MAX_CONNS];
static volatile sig_atomic_t stop_flag;
static int got_echo, was_running;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static enum doca_ctx_states state_of(struct doca_ctx *ctx)
{
	enum doca_ctx_states s = DOCA_CTX_STATE_IDLE;

	V_CHECK(doca_ctx_get_state(ctx, &s) == DOCA_SUCCESS);
	return s;
}

static struct vconn *vc_of(struct doca_comch_connection *conn, bool add)
{
	for (int i = 0; i < V_MAX_CONNS; i++)
		if (vc[i].conn == conn && !vc[i].gone)
			return &vc[i];
	if (!add)
		return NULL;
	for (int i = 0; i < V_MAX_CONNS; i++)
		if (vc[i].conn == NULL) {
			memset(&vc[i], 0, sizeof(vc[i]));
			vc[i].conn = conn;
			return &vc[i];
		}
	return NULL;
}

/* ---- sending control messages ------------------------------------------------------------ */

static void send_free(struct doca_comch_task_send *t, union doca_data a, union doca_data b)
{
	(void)a;
	(void)b;
	doca_task_free(doca_comch_task_send_as_task(t));
}

static void send_msg(struct doca_comch_connection *conn, const void *msg, uint32_t len)
{
	struct doca_comch_task_send *t;
	doca_error_t r = srv ? doca_comch_server_task_send_alloc_init(srv, conn, msg, len, &t)
	                     : doca_comch_client_task_send_alloc_init(cli, conn, msg, len, &t);

	if (r != DOCA_SUCCESS)
		return;
	if (doca_task_submit(doca_comch_task_send_as_task(t)) != DOCA_SUCCESS)
		doca_task_free(doca_comch_task_send_as_task(t));
}

/* ---- fast path ------------------------------------------------------------------------------ */

static void post_one(struct vconn *v, struct doca_buf *buf);

static void recv_done(struct doca_comch_consumer_task_post_recv *t, union doca_data tud,
                      union doca_data cud)
{
	struct vconn *v = cud.ptr;
	struct doca_buf *buf = doca_comch_consumer_task_post_recv_get_buf(t);
	size_t len = 0, dlen = 0;

	(void)tud;
	V_CHECK(doca_buf_get_len(buf, &len) == DOCA_SUCCESS);
	V_CHECK(doca_buf_get_data_len(buf, &dlen) == DOCA_SUCCESS);
	V_CHECK(dlen <= len); /* a byte count the peer made up must never get through */
	V_CHECK(doca_comch_consumer_task_post_recv_get_imm_data_len(t) <= V_IMM);
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
	V_CHECK(doca_buf_reset_data_len(buf) == DOCA_SUCCESS);
	if (state_of(doca_comch_consumer_as_ctx(v->cons)) == DOCA_CTX_STATE_RUNNING)
		post_one(v, buf);
	else
		doca_buf_dec_refcount(buf, NULL);
}

static void recv_err(struct doca_comch_consumer_task_post_recv *t, union doca_data tud,
                     union doca_data cud)
{
	struct doca_buf *buf = doca_comch_consumer_task_post_recv_get_buf(t);

	(void)tud;
	(void)cud;
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
	doca_buf_dec_refcount(buf, NULL);
}

static void post_one(struct vconn *v, struct doca_buf *buf)
{
	struct doca_comch_consumer_task_post_recv *t;

	if (doca_comch_consumer_task_post_recv_alloc_init(v->cons, buf, &t) != DOCA_SUCCESS) {
		doca_buf_dec_refcount(buf, NULL);
		return;
	}
	if (doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)) != DOCA_SUCCESS) {
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
		doca_buf_dec_refcount(buf, NULL);
	}
}

static void cons_state(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
                       enum doca_ctx_states next)
{
	struct vconn *v = ud.ptr;

	(void)ctx;
	(void)prev;
	if (next == DOCA_CTX_STATE_RUNNING) {
		for (uint32_t i = 0; i < V_BUFS; i++) {
			struct doca_buf *b;

			if (doca_buf_inventory_buf_get_by_addr(v->inv, v->mmap,
			                                       v->mem + i * V_BUF_LEN, V_BUF_LEN,
			                                       &b) == DOCA_SUCCESS)
				post_one(v, b);
		}
	}
}

static void prod_done(struct doca_comch_producer_task_send *t, union doca_data a, union doca_data b)
{
	(void)a;
	(void)b;
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

static void vconn_fastpath(struct vconn *v)
{
	union doca_data ud = { .ptr = v };
	size_t total = (V_BUFS + 1) * V_BUF_LEN;

	v->mem = calloc(1, total);
	V_CHECK(v->mem != NULL);
	memset(v->mem + V_BUFS * V_BUF_LEN, 0xab, 16); /* what the producer sends */
	V_CHECK(doca_mmap_create(&v->mmap) == DOCA_SUCCESS);
	V_CHECK(doca_mmap_set_memrange(v->mmap, v->mem, total) == DOCA_SUCCESS);
	V_CHECK(doca_mmap_add_dev(v->mmap, dev) == DOCA_SUCCESS);
	V_CHECK(doca_mmap_start(v->mmap) == DOCA_SUCCESS);
	V_CHECK(doca_buf_inventory_create(V_BUFS + 2, &v->inv) == DOCA_SUCCESS);
	V_CHECK(doca_buf_inventory_start(v->inv) == DOCA_SUCCESS);
	V_CHECK(doca_buf_inventory_buf_get_by_data(v->inv, v->mmap, v->mem + V_BUFS * V_BUF_LEN, 16,
	                                           &v->src) == DOCA_SUCCESS);
	if (doca_comch_consumer_create(v->conn, v->mmap, &v->cons) != DOCA_SUCCESS)
		return;
	V_CHECK(doca_comch_consumer_task_post_recv_set_conf(v->cons, recv_done, recv_err, V_BUFS) ==
	        DOCA_SUCCESS);
	V_CHECK(doca_comch_consumer_set_imm_data_len(v->cons, V_IMM) == DOCA_SUCCESS);
	V_CHECK(doca_ctx_set_user_data(doca_comch_consumer_as_ctx(v->cons), ud) == DOCA_SUCCESS);
	V_CHECK(doca_ctx_set_state_changed_cb(doca_comch_consumer_as_ctx(v->cons), cons_state) ==
	        DOCA_SUCCESS);
	V_CHECK(doca_pe_connect_ctx(pe, doca_comch_consumer_as_ctx(v->cons)) == DOCA_SUCCESS);
	(void)doca_ctx_start(doca_comch_consumer_as_ctx(v->cons));
}

static void vconn_produce(struct vconn *v)
{
	struct doca_comch_producer_task_send *t;
	uint8_t imm[V_IMM];
	uint64_t now = now_ms();

	if (v->prod == NULL || v->peer_cons == 0 || now == v->last_send_ms ||
	    state_of(doca_comch_producer_as_ctx(v->prod)) != DOCA_CTX_STATE_RUNNING)
		return;
	v->last_send_ms = now;
	memset(imm, 0x5a, sizeof(imm));
	if (doca_comch_producer_task_send_alloc_init(v->prod, v->src, imm, V_IMM, v->peer_cons,
	                                             &t) != DOCA_SUCCESS)
		return;
	if (doca_task_submit(doca_comch_producer_task_send_as_task(t)) != DOCA_SUCCESS)
		doca_task_free(doca_comch_producer_task_send_as_task(t));
}

/* Destroys what a gone connection leaves once it is IDLE. */
static bool vconn_reap(struct vconn *v, bool stopping)
{
	if (v->prod != NULL) {
		if (stopping || v->gone)
			(void)doca_ctx_stop(doca_comch_producer_as_ctx(v->prod));
		if (state_of(doca_comch_producer_as_ctx(v->prod)) == DOCA_CTX_STATE_IDLE) {
			V_CHECK(doca_comch_producer_destroy(v->prod) == DOCA_SUCCESS);
			v->prod = NULL;
		}
	}
	if (v->cons != NULL) {
		if (stopping || v->gone)
			(void)doca_ctx_stop(doca_comch_consumer_as_ctx(v->cons));
		if (state_of(doca_comch_consumer_as_ctx(v->cons)) == DOCA_CTX_STATE_IDLE &&
		    (v->gone || stopping)) {
			V_CHECK(doca_comch_consumer_destroy(v->cons) == DOCA_SUCCESS);
			v->cons = NULL;
		}
	}
	if (v->prod != NULL || v->cons != NULL || !(v->gone || stopping))
		return false;
	if (v->src != NULL)
		doca_buf_dec_refcount(v->src, NULL);
	if (v->inv != NULL) {
		(void)doca_buf_inventory_stop(v->inv);
		V_CHECK(doca_buf_inventory_destroy(v->inv) == DOCA_SUCCESS);
	}
	if (v->mmap != NULL) {
		V_CHECK(doca_mmap_stop(v->mmap) == DOCA_SUCCESS);
		V_CHECK(doca_mmap_destroy(v->mmap) == DOCA_SUCCESS);
	}
	free(v->mem);
	memset(v, 0, sizeof(*v));
	return true;
}

/* ---- server callbacks ------------------------------------------------------------------------ */

static void on_connect(struct doca_comch_event_connection_status_changed *ev,
                       struct doca_comch_connection *conn, uint8_t ok)
{
	struct vconn *v = vc_of(conn, true);

	(void)ev;
	if (!ok || v == NULL)
		return;
	vconn_fastpath(v);
}

static void on_disconnect(struct doca_comch_event_connection_status_changed *ev,
                          struct doca_comch_connection *conn, uint8_t ok)
{
	struct vconn *v = vc_of(conn, false);

	(void)ev;
	(void)ok;
	if (v != NULL)
		v->gone = true;
}

static void on_recv(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len,
                    struct doca_comch_connection *conn)
{
	struct vconn *v = vc_of(conn, false);

	(void)ev;
	if (srv == NULL) {
		got_echo = len == 4 && memcmp(buf, "ping", 4) == 0;
		return;
	}
	if (v != NULL && len == 13 && memcmp(buf, "stop-consumer", 13) == 0 && v->cons != NULL) {
		v->stop_asked = true;
		v->stop_ms = now_ms();
		(void)doca_ctx_stop(doca_comch_consumer_as_ctx(v->cons));
		return;
	}
	send_msg(conn, buf, len);
}

static void on_cons_new(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn,
                        uint32_t id)
{
	struct vconn *v = vc_of(conn, false);

	(void)ev;
	if (v == NULL)
		return;
	v->peer_cons = id;
	if (v->prod != NULL)
		return;
	if (doca_comch_producer_create(conn, &v->prod) != DOCA_SUCCESS)
		return;
	V_CHECK(doca_comch_producer_task_send_set_conf(v->prod, prod_done, prod_done, 16) ==
	        DOCA_SUCCESS);
	V_CHECK(doca_pe_connect_ctx(pe, doca_comch_producer_as_ctx(v->prod)) == DOCA_SUCCESS);
	(void)doca_ctx_start(doca_comch_producer_as_ctx(v->prod));
}

static void on_cons_gone(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn,
                         uint32_t id)
{
	struct vconn *v = vc_of(conn, false);

	(void)ev;
	if (v != NULL && v->peer_cons == id)
		v->peer_cons = 0;
}

/* The stop a "stop-consumer" asked for: answered once the consumer is IDLE (within 5 s). */
static void vconn_watch_stop(struct vconn *v)
{
	char msg[32];
	int n;

	if (!v->stop_asked || v->cons == NULL)
		return;
	if (state_of(doca_comch_consumer_as_ctx(v->cons)) != DOCA_CTX_STATE_IDLE) {
		V_CHECK(now_ms() - v->stop_ms <
		        5000); /* a peer holding slots must not hold our stop */
		return;
	}
	v->stop_asked = false;
	n = snprintf(msg, sizeof(msg), "stopped %llu", (unsigned long long)(now_ms() - v->stop_ms));
	send_msg(v->conn, msg, (uint32_t)n);
}

static void on_term(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void open_dpu(void)
{
	struct doca_devinfo_rep **reps;
	uint32_t n;
	uint8_t is;

	dev = tu_open_pci_or_null("03:00.0");
	V_CHECK(dev != NULL);
	V_CHECK(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n) ==
	        DOCA_SUCCESS);
	for (uint32_t i = 0; i < n && rep == NULL; i++)
		if (doca_devinfo_rep_is_equal_pci_addr(reps[i], "b1:00.0", &is) == DOCA_SUCCESS &&
		    is)
			V_CHECK(doca_dev_rep_open(reps[i], &rep) == DOCA_SUCCESS);
	doca_devinfo_rep_destroy_list(reps);
	V_CHECK(rep != NULL);
}

static int run_server(const char *name)
{
	struct doca_ctx *ctx;
	bool busy = true;

	open_dpu();
	V_CHECK(doca_pe_create(&pe) == DOCA_SUCCESS);
	V_CHECK(doca_comch_server_create(dev, rep, name, &srv) == DOCA_SUCCESS);
	ctx = doca_comch_server_as_ctx(srv);
	V_CHECK(doca_comch_server_task_send_set_conf(srv, send_free, send_free, 256) ==
	        DOCA_SUCCESS);
	V_CHECK(doca_comch_server_event_msg_recv_register(srv, on_recv) == DOCA_SUCCESS);
	V_CHECK(doca_comch_server_event_connection_status_changed_register(
	                srv, on_connect, on_disconnect) == DOCA_SUCCESS);
	V_CHECK(doca_comch_server_event_consumer_register(srv, on_cons_new, on_cons_gone) ==
	        DOCA_SUCCESS);
	V_CHECK(doca_pe_connect_ctx(pe, ctx) == DOCA_SUCCESS);
	if (doca_ctx_start(ctx) != DOCA_SUCCESS) {
		fprintf(stderr, "victim: server \"%s\" did not start\n", name);
		V_CHECK(doca_comch_server_destroy(srv) == DOCA_SUCCESS);
		V_CHECK(doca_pe_destroy(pe) == DOCA_SUCCESS);
		V_CHECK(doca_dev_rep_close(rep) == DOCA_SUCCESS);
		V_CHECK(doca_dev_close(dev) == DOCA_SUCCESS);
		return 3;
	}
	fprintf(stderr, "victim: server \"%s\" running (pid %d)\n", name, (int)getpid());
	while (!stop_flag) {
		if (doca_pe_progress(pe) == 0)
			usleep(50);
		for (int i = 0; i < V_MAX_CONNS; i++) {
			if (vc[i].conn == NULL)
				continue;
			vconn_produce(&vc[i]);
			vconn_watch_stop(&vc[i]);
			(void)vconn_reap(&vc[i], false);
		}
	}
	/* stop: the fast path first, then the server (bounded: a hostile peer must not hold it) */
	for (uint64_t deadline = now_ms() + 10000; busy; doca_pe_progress(pe)) {
		busy = false;
		for (int i = 0; i < V_MAX_CONNS; i++)
			if (vc[i].conn != NULL && !vconn_reap(&vc[i], true))
				busy = true;
		V_CHECK(now_ms() < deadline);
	}
	(void)doca_ctx_stop(ctx);
	for (uint64_t deadline = now_ms() + 10000; state_of(ctx) != DOCA_CTX_STATE_IDLE;) {
		doca_pe_progress(pe);
		V_CHECK(now_ms() < deadline);
	}
	V_CHECK(doca_comch_server_destroy(srv) == DOCA_SUCCESS);
	V_CHECK(doca_pe_destroy(pe) == DOCA_SUCCESS);
	V_CHECK(doca_dev_rep_close(rep) == DOCA_SUCCESS);
	V_CHECK(doca_dev_close(dev) == DOCA_SUCCESS);
	fprintf(stderr, "victim: server stopped cleanly\n");
	return 0;
}

static void cli_state(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
                      enum doca_ctx_states next)
{
	(void)ud;
	(void)ctx;
	(void)prev;
	if (next == DOCA_CTX_STATE_RUNNING)
		was_running = 1;
}

static int run_client(const char *name, bool expect_refusal)
{
	struct doca_comch_connection *conn = NULL;
	struct doca_ctx *ctx;
	uint64_t deadline = now_ms() + 10000;
	bool sent = false;
	doca_error_t r;

	dev = tu_open_pci_or_null("b1:00.0");
	V_CHECK(dev != NULL);
	V_CHECK(doca_pe_create(&pe) == DOCA_SUCCESS);
	V_CHECK(doca_comch_client_create(dev, name, &cli) == DOCA_SUCCESS);
	ctx = doca_comch_client_as_ctx(cli);
	V_CHECK(doca_comch_client_task_send_set_conf(cli, send_free, send_free, 8) == DOCA_SUCCESS);
	V_CHECK(doca_comch_client_event_msg_recv_register(cli, on_recv) == DOCA_SUCCESS);
	V_CHECK(doca_ctx_set_state_changed_cb(ctx, cli_state) == DOCA_SUCCESS);
	V_CHECK(doca_pe_connect_ctx(pe, ctx) == DOCA_SUCCESS);
	r = doca_ctx_start(ctx);
	V_CHECK(r == DOCA_ERROR_IN_PROGRESS || r == DOCA_SUCCESS);
	while (now_ms() < deadline && !got_echo) {
		if (doca_pe_progress(pe) == 0)
			usleep(100);
		if (state_of(ctx) == DOCA_CTX_STATE_IDLE)
			break;
		if (!sent && state_of(ctx) == DOCA_CTX_STATE_RUNNING &&
		    doca_comch_client_get_connection(cli, &conn) == DOCA_SUCCESS) {
			send_msg(conn, "ping", 4);
			sent = true;
		}
	}
	if (state_of(ctx) != DOCA_CTX_STATE_IDLE) {
		(void)doca_ctx_stop(ctx);
		while (state_of(ctx) != DOCA_CTX_STATE_IDLE)
			doca_pe_progress(pe);
	}
	V_CHECK(doca_comch_client_destroy(cli) == DOCA_SUCCESS);
	V_CHECK(doca_pe_destroy(pe) == DOCA_SUCCESS);
	V_CHECK(doca_dev_close(dev) == DOCA_SUCCESS);
	if (expect_refusal)
		return was_running ? 1 : 0;
	fprintf(stderr, "victim client: %s\n", got_echo ? "echo received" : "no echo");
	return got_echo ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_term };

	if (argc != 3) {
		fprintf(stderr, "usage: %s server|client|refused NAME\n", argv[0]);
		return 2;
	}
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (strcmp(argv[1], "server") == 0)
		return run_server(argv[2]);
	if (strcmp(argv[1], "client") == 0)
		return run_client(argv[2], false);
	if (strcmp(argv[1], "refused") == 0)
		return run_client(argv[2], true);
	return 2;
}
