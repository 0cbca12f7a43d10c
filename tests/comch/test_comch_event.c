/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Event-driven Comch (issue #18, item 1): two real processes whose only wake-up is the
 * notification handle of their PEs, slept on with epoll_wait(-1): no polling, no timeout.
 * A lost wake-up hangs a side, which its alarm (cu_fork's deadline) then kills, failing the
 * test. Covered: a control-path pair with echoes large enough to fill the socket (send
 * completions that wait for room), a fast-path consumer/producer pair (the consumer on a PE
 * of its own), a DMA pair over Comch (an exported mmap's descriptor sent as a message, the
 * copy, the result message), each kind of Comch event on an armed PE (connect, RUNNING,
 * message, send completion, consumer RUNNING, post-recv completion, disconnect, IDLE), the
 * connect timeout, and post-recv tasks freed while posted (the deferred free: the consumer
 * still reaches IDLE, no callback for them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <doca_dma.h>

#include "comch_util.h"
#include "test_util.h"

#define NAME cu_name
#define DEADLINE 60 /* seconds a side may take before its alarm kills it */

/* ---- the event loop ------------------------------------------------------------------- */

/* An epoll set over the notification handles of up to four PEs. */
struct ev {
	int ep;
	struct doca_pe *pe[4];
	unsigned int n;
	unsigned long sleeps; /* epoll_wait calls (each one returned an event) */
};

static void ev_init(struct ev *v)
{
	memset(v, 0, sizeof(*v));
	v->ep = epoll_create1(EPOLL_CLOEXEC);
	CU_CHECK(v->ep >= 0);
}

static void ev_add(struct ev *v, struct doca_pe *pe)
{
	struct epoll_event e = { .events = EPOLLIN, .data.u32 = v->n };
	doca_notification_handle_t h;

	CU_CHECK(v->n < 4);
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_pe_get_notification_handle(pe, &h));
	CU_CHECK(epoll_ctl(v->ep, EPOLL_CTL_ADD, h, &e) == 0);
	v->pe[v->n++] = pe;
}

/*
 * Runs every PE until @done(@arg): progress each until it has nothing to do, arm it, sleep
 * on the handles without a timeout, clear (with handle 0, as NVIDIA's pe_event sample does).
 */
static void ev_until(struct ev *v, bool (*done)(void *), void *arg)
{
	struct epoll_event out[4];

	for (;;) {
		bool any;

		do {
			any = false;
			for (unsigned int i = 0; i < v->n; i++)
				any |= doca_pe_progress(v->pe[i]) != 0;
		} while (any);
		if (done(arg))
			return;
		for (unsigned int i = 0; i < v->n; i++)
			CU_CHECK_DOCA(DOCA_SUCCESS, doca_pe_request_notification(v->pe[i]));
		CU_CHECK(epoll_wait(v->ep, out, 4, -1) >= 1);
		v->sleeps++;
		for (unsigned int i = 0; i < v->n; i++)
			CU_CHECK_DOCA(DOCA_SUCCESS, doca_pe_clear_notification(v->pe[i], 0));
	}
}

static enum doca_ctx_states state_of(struct doca_ctx *ctx)
{
	enum doca_ctx_states s;

	CU_CHECK_DOCA(DOCA_SUCCESS, doca_ctx_get_state(ctx, &s));
	return s;
}

static bool ep_running(void *a)
{
	return state_of(((struct cu_ep *)a)->ctx) == DOCA_CTX_STATE_RUNNING;
}

static bool ep_idle(void *a)
{
	return state_of(((struct cu_ep *)a)->ctx) == DOCA_CTX_STATE_IDLE;
}

static bool ep_connected(void *a)
{
	return ((struct cu_ep *)a)->connects >= 1;
}

static bool ep_disconnected(void *a)
{
	return ((struct cu_ep *)a)->disconnects >= 1;
}

static bool ep_new_cons(void *a)
{
	return ((struct cu_ep *)a)->new_cons >= 1;
}

static bool ep_two_cons(void *a)
{
	return ((struct cu_ep *)a)->new_cons >= 2;
}

/* ep->nrx reaches the count in the global below. */
static uint32_t want_rx;
static bool ep_has_rx(void *a)
{
	return ((struct cu_ep *)a)->nrx >= want_rx;
}

static unsigned int want_sent;
static bool ep_has_sent(void *a)
{
	return ((struct cu_ep *)a)->sent_ok >= want_sent;
}

/* Stops a server or client and sleeps until it is IDLE, then destroys everything. */
static void ev_close(struct ev *v, struct cu_ep *e)
{
	doca_error_t r = doca_ctx_stop(e->ctx);

	CU_CHECK(r == DOCA_SUCCESS || r == DOCA_ERROR_IN_PROGRESS);
	ev_until(v, ep_idle, e);
	CU_CHECK(cu_close(e));
	close(v->ep);
}

/* ---- a control-path pair ---------------------------------------------------------------- */

#define CTRL_MSGS 100
#define CTRL_LEN 4000 /* 100 of them are more than a Unix socket buffers */

static int ctrl_server(void *arg)
{
	struct cu_ep s;
	struct ev v;

	(void)arg;
	cu_open(&s, true);
	s.echo = true;
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_server_start(&s, NAME, 0, CTRL_MSGS));
	ev_init(&v);
	ev_add(&v, s.pe);
	ev_until(&v, ep_connected, &s);
	want_rx = CTRL_MSGS;
	ev_until(&v, ep_has_rx, &s);
	want_sent = CTRL_MSGS;
	ev_until(&v, ep_has_sent, &s); /* echoes wait for room in the socket, then complete */
	ev_until(&v, ep_disconnected, &s);
	CU_CHECK(s.sent_err == 0);
	printf("server: %lu sleeps\n", v.sleeps);
	ev_close(&v, &s);
	return 0;
}

static int ctrl_client(void *arg)
{
	uint8_t msg[CTRL_LEN];
	struct cu_ep c;
	struct ev v;

	(void)arg;
	cu_open(&c, false);
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&c, NAME, 0, CTRL_MSGS));
	ev_init(&v);
	ev_add(&v, c.pe);
	ev_until(&v, ep_running, &c);
	for (uint32_t i = 0; i < CTRL_MSGS; i++) {
		memset(msg, (int)(i & 0xff), sizeof(msg));
		CU_CHECK_DOCA(DOCA_SUCCESS, cu_send(&c, msg, sizeof(msg)));
	}
	want_sent = CTRL_MSGS;
	ev_until(&v, ep_has_sent, &c);
	want_rx = CTRL_MSGS;
	ev_until(&v, ep_has_rx, &c);
	for (uint32_t i = 0; i < CTRL_MSGS; i++) {
		CU_CHECK(c.rx_len[i] == CTRL_LEN);
		CU_CHECK(c.rx[i][0] == (uint8_t)i && c.rx[i][CTRL_LEN - 1] == (uint8_t)i);
	}
	printf("client: %lu sleeps\n", v.sleeps);
	ev_close(&v, &c);
	return 0;
}

static void test_ctrl_pair(void **state)
{
	int gs, gc;
	pid_t s, c;

	(void)state;
	s = cu_fork_gated(ctrl_server, NULL, DEADLINE, &gs);
	c = cu_fork_gated(ctrl_client, NULL, DEADLINE, &gc);
	cu_release(gs);
	cu_release(gc);
	assert_int_equal(cu_join(c, DEADLINE + 5), 0);
	assert_int_equal(cu_join(s, DEADLINE + 5), 0);
}

/* ---- the fast path: consumer (DPU side, its own PE) and producer (host side) ----------- */

#define FP_MSGS 32
#define FP_LEN 8192

struct fp {
	struct doca_pe *pe;
	struct doca_ctx *ctx;
	struct doca_comch_consumer *cons;
	struct doca_comch_producer *prod;
	struct cu_mem mem;
	unsigned int ok, err;
	bool free_posted; /* the post-recv error callback must not run (tasks were freed) */
};

static void recv_ok(struct doca_comch_consumer_task_post_recv *t, union doca_data tud,
                    union doca_data cud)
{
	struct fp *f = cud.ptr;
	struct doca_buf *b = doca_comch_consumer_task_post_recv_get_buf(t);
	size_t len;
	void *data;

	CU_CHECK_DOCA(DOCA_SUCCESS, doca_buf_get_data_len(b, &len));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_buf_get_data(b, &data));
	CU_CHECK(len == FP_LEN && ((uint8_t *)data)[FP_LEN - 1] == (uint8_t)tud.u64);
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_buf_dec_refcount(b, NULL));
	f->ok++;
}

static void recv_err(struct doca_comch_consumer_task_post_recv *t, union doca_data tud,
                     union doca_data cud)
{
	struct fp *f = cud.ptr;

	(void)tud;
	CU_CHECK(!f->free_posted);
	f->err++;
	CU_CHECK_DOCA(DOCA_SUCCESS,
	              doca_buf_dec_refcount(doca_comch_consumer_task_post_recv_get_buf(t), NULL));
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static void send_ok(struct doca_comch_producer_task_send *t, union doca_data tud,
                    union doca_data cud)
{
	struct fp *f = cud.ptr;

	(void)tud;
	f->ok++;
	CU_CHECK_DOCA(DOCA_SUCCESS,
	              doca_buf_dec_refcount(
	                      (struct doca_buf *)doca_comch_producer_task_send_get_buf(t), NULL));
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

static void send_err(struct doca_comch_producer_task_send *t, union doca_data tud,
                     union doca_data cud)
{
	struct fp *f = cud.ptr;

	(void)t;
	(void)tud;
	f->err++;
	CU_CHECK(0);
}

static bool fp_running(void *a)
{
	return state_of(((struct fp *)a)->ctx) == DOCA_CTX_STATE_RUNNING;
}

static bool fp_idle(void *a)
{
	return state_of(((struct fp *)a)->ctx) == DOCA_CTX_STATE_IDLE;
}

static unsigned int want_ok;
static bool fp_has_ok(void *a)
{
	return ((struct fp *)a)->ok >= want_ok;
}

static void fp_consumer(struct fp *f, struct cu_ep *e, uint32_t tasks)
{
	union doca_data ud = { .ptr = f };

	memset(f, 0, sizeof(*f));
	cu_mem_init(&f->mem, e->dev, (size_t)tasks * FP_LEN, tasks + 2);
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_pe_create(&f->pe));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_consumer_create(e->conn, f->mem.mmap, &f->cons));
	f->ctx = doca_comch_consumer_as_ctx(f->cons);
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_pe_connect_ctx(f->pe, f->ctx));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_ctx_set_user_data(f->ctx, ud));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_consumer_task_post_recv_set_conf(f->cons, recv_ok,
	                                                                        recv_err, tasks));
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, doca_ctx_start(f->ctx));
}

static struct doca_comch_consumer_task_post_recv *fp_post(struct fp *f, uint32_t i)
{
	struct doca_comch_consumer_task_post_recv *t;
	struct doca_buf *b;

	CU_CHECK_DOCA(DOCA_SUCCESS, doca_buf_inventory_buf_get_by_addr(
	                                    f->mem.inv, f->mem.mmap,
	                                    f->mem.base + (size_t)i * FP_LEN, FP_LEN, &b));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_consumer_task_post_recv_alloc_init(f->cons, b, &t));
	doca_task_set_user_data(doca_comch_consumer_task_post_recv_as_task(t),
	                        (union doca_data){ .u64 = i });
	CU_CHECK_DOCA(DOCA_SUCCESS,
	              doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)));
	return t;
}

static void fp_producer(struct fp *f, struct cu_ep *e, uint32_t tasks)
{
	union doca_data ud = { .ptr = f };

	memset(f, 0, sizeof(*f));
	cu_mem_init(&f->mem, e->dev, (size_t)tasks * FP_LEN, tasks + 2);
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_pe_create(&f->pe));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_producer_create(e->conn, &f->prod));
	f->ctx = doca_comch_producer_as_ctx(f->prod);
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_pe_connect_ctx(f->pe, f->ctx));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_ctx_set_user_data(f->ctx, ud));
	CU_CHECK_DOCA(DOCA_SUCCESS,
	              doca_comch_producer_task_send_set_conf(f->prod, send_ok, send_err, tasks));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_ctx_start(f->ctx));
}

static void fp_send(struct fp *f, uint32_t consumer, uint32_t i)
{
	struct doca_comch_producer_task_send *t;
	struct doca_buf *b;
	uint8_t *p = f->mem.base + (size_t)i * FP_LEN;

	memset(p, (int)(i & 0xff), FP_LEN);
	CU_CHECK_DOCA(DOCA_SUCCESS,
	              doca_buf_inventory_buf_get_by_data(f->mem.inv, f->mem.mmap, p, FP_LEN, &b));
	CU_CHECK_DOCA(DOCA_SUCCESS,
	              doca_comch_producer_task_send_alloc_init(f->prod, b, NULL, 0, consumer, &t));
	/* every buffer was posted before the peer said "posted": no AGAIN */
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_task_submit(doca_comch_producer_task_send_as_task(t)));
}

static void fp_close(struct fp *f)
{
	doca_error_t r = doca_ctx_stop(f->ctx);

	CU_CHECK(r == DOCA_SUCCESS || r == DOCA_ERROR_IN_PROGRESS);
	CU_CHECK(state_of(f->ctx) == DOCA_CTX_STATE_IDLE);
	if (f->cons != NULL)
		CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_consumer_destroy(f->cons));
	else
		CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_producer_destroy(f->prod));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_pe_destroy(f->pe));
	cu_mem_fini(&f->mem);
}

static int fp_server(void *arg)
{
	struct doca_buf *freed_bufs[4];
	struct cu_ep s;
	struct fp f;
	struct ev v;

	(void)arg;
	cu_open(&s, true);
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_server_start(&s, NAME, 0, 16));
	ev_init(&v);
	ev_add(&v, s.pe);
	ev_until(&v, ep_connected, &s);
	fp_consumer(&f, &s, FP_MSGS);
	ev_add(&v, f.pe);
	ev_until(&v, fp_running, &f); /* the ACK is read on the server's PE: a doorbell */
	for (uint32_t i = 0; i < FP_MSGS; i++)
		(void)fp_post(&f, i);
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_send(&s, "posted", 7));
	want_ok = FP_MSGS;
	ev_until(&v, fp_has_ok, &f); /* the peer's producer rings the consumer's doorbell */
	CU_CHECK(f.err == 0);
	/* more posted buffers, freed while posted: deferred, no callback, IDLE after the stop */
	f.free_posted = true;
	for (uint32_t i = 0; i < 4; i++) {
		struct doca_comch_consumer_task_post_recv *t = fp_post(&f, i);

		freed_bufs[i] = doca_comch_consumer_task_post_recv_get_buf(t);
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
	}
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_send(&s, "done", 5));
	(void)doca_ctx_stop(f.ctx);
	ev_until(&v, fp_idle, &f);
	CU_CHECK(f.ok == FP_MSGS && f.err == 0);
	for (uint32_t i = 0; i < 4; i++)
		CU_CHECK_DOCA(DOCA_SUCCESS, doca_buf_dec_refcount(freed_bufs[i], NULL));
	ev_until(&v, ep_disconnected, &s);
	fp_close(&f);
	v.n = 1;
	ev_close(&v, &s);
	return 0;
}

static int fp_client(void *arg)
{
	struct cu_ep c;
	struct fp f;
	struct ev v;

	(void)arg;
	cu_open(&c, false);
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&c, NAME, 0, 16));
	ev_init(&v);
	ev_add(&v, c.pe);
	ev_until(&v, ep_running, &c);
	ev_until(&v, ep_new_cons, &c);
	fp_producer(&f, &c, FP_MSGS);
	ev_add(&v, f.pe);
	want_rx = 1;
	ev_until(&v, ep_has_rx, &c); /* "posted" */
	for (uint32_t i = 0; i < FP_MSGS; i++)
		fp_send(&f, c.last_cons_id, i);
	want_ok = FP_MSGS;
	ev_until(&v, fp_has_ok, &f);
	want_rx = 2;
	ev_until(&v, ep_has_rx, &c); /* "done" */
	fp_close(&f);
	v.n = 1;
	ev_close(&v, &c);
	return 0;
}

static void test_fastpath_pair(void **state)
{
	int gs, gc;
	pid_t s, c;

	(void)state;
	tu_skip_test_under_qemu(TU_QEMU_NO_CMA);
	s = cu_fork_gated(fp_server, NULL, DEADLINE, &gs);
	c = cu_fork_gated(fp_client, NULL, DEADLINE, &gc);
	cu_release(gs);
	cu_release(gc);
	assert_int_equal(cu_join(c, DEADLINE + 5), 0);
	assert_int_equal(cu_join(s, DEADLINE + 5), 0);
}

/* ---- DMA over Comch: the host exports, the DPU copies, the result comes back ----------- */

#define DMA_LEN (1u << 20)

struct dma_state {
	struct doca_dma *dma;
	unsigned int done;
	doca_error_t status;
};

static void dma_done(struct doca_dma_task_memcpy *t, union doca_data tud, union doca_data cud)
{
	struct dma_state *d = cud.ptr;

	(void)tud;
	d->status = doca_task_get_status(doca_dma_task_memcpy_as_task(t));
	d->done++;
	doca_task_free(doca_dma_task_memcpy_as_task(t));
}

static bool dma_finished(void *a)
{
	return ((struct dma_state *)a)->done >= 1;
}

static uint32_t sum32(const uint8_t *p, size_t n)
{
	uint32_t s = 2166136261u;

	for (size_t i = 0; i < n; i++)
		s = (s ^ p[i]) * 16777619u;
	return s;
}

static int dma_dpu(void *arg)
{
	struct doca_mmap *remote, *local;
	struct doca_buf_inventory *inv;
	struct doca_buf *src, *dst;
	struct doca_dma_task_memcpy *t;
	struct dma_state d = { 0 };
	uint8_t *buf = calloc(1, DMA_LEN);
	char reply[64];
	uint64_t host_addr;
	struct cu_ep s;
	struct ev v;

	(void)arg;
	CU_CHECK(buf != NULL);
	cu_open(&s, true);
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_server_start(&s, NAME, 0, 4));
	ev_init(&v);
	ev_add(&v, s.pe);
	/* the DMA context shares the server's PE: one handle wakes for both */
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_dma_create(s.dev, &d.dma));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_dma_task_memcpy_set_conf(d.dma, dma_done, dma_done, 1));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_pe_connect_ctx(s.pe, doca_dma_as_ctx(d.dma)));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_ctx_set_user_data(doca_dma_as_ctx(d.dma),
	                                                   (union doca_data){ .ptr = &d }));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_ctx_start(doca_dma_as_ctx(d.dma)));
	want_rx = 1;
	ev_until(&v, ep_has_rx, &s); /* host address, then the export descriptor */
	CU_CHECK(s.rx_len[0] > sizeof(host_addr));
	memcpy(&host_addr, s.rx[0], sizeof(host_addr));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_mmap_create_from_export(NULL, s.rx[0] + sizeof(host_addr),
	                                                         s.rx_len[0] - sizeof(host_addr),
	                                                         s.dev, &remote));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_mmap_create(&local));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_mmap_set_memrange(local, buf, DMA_LEN));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_mmap_add_dev(local, s.dev));
	CU_CHECK_DOCA(DOCA_SUCCESS,
	              doca_mmap_set_permissions(local, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_mmap_start(local));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_buf_inventory_create(2, &inv));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_buf_inventory_start(inv));
	CU_CHECK_DOCA(DOCA_SUCCESS,
	              doca_buf_inventory_buf_get_by_data(inv, remote, (void *)(uintptr_t)host_addr,
	                                                 DMA_LEN, &src));
	CU_CHECK_DOCA(DOCA_SUCCESS,
	              doca_buf_inventory_buf_get_by_addr(inv, local, buf, DMA_LEN, &dst));
	CU_CHECK_DOCA(DOCA_SUCCESS,
	              doca_dma_task_memcpy_alloc_init(d.dma, src, dst, (union doca_data){ 0 }, &t));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_task_submit(doca_dma_task_memcpy_as_task(t)));
	ev_until(&v, dma_finished, &d);
	CU_CHECK_DOCA(DOCA_SUCCESS, d.status);
	snprintf(reply, sizeof(reply), "copied %u %08x", DMA_LEN, sum32(buf, DMA_LEN));
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_send(&s, reply, (uint32_t)strlen(reply) + 1));
	ev_until(&v, ep_disconnected, &s);
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_buf_dec_refcount(src, NULL));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_buf_dec_refcount(dst, NULL));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_ctx_stop(doca_dma_as_ctx(d.dma)));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_dma_destroy(d.dma));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_buf_inventory_destroy(inv));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_mmap_destroy(remote));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_mmap_destroy(local));
	ev_close(&v, &s);
	free(buf);
	return 0;
}

static int dma_host(void *arg)
{
	uint8_t *buf = malloc(DMA_LEN), msg[4080];
	const void *desc;
	struct doca_mmap *m;
	char expect[64];
	uint64_t addr;
	size_t dlen;
	struct cu_ep c;
	struct ev v;

	(void)arg;
	CU_CHECK(buf != NULL);
	for (size_t i = 0; i < DMA_LEN; i++)
		buf[i] = (uint8_t)(i * 7 + (i >> 12));
	cu_open(&c, false);
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_mmap_create(&m));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_mmap_set_memrange(m, buf, DMA_LEN));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_mmap_add_dev(m, c.dev));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_ONLY));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_mmap_start(m));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_mmap_export_pci(m, c.dev, &desc, &dlen));
	CU_CHECK(dlen + sizeof(addr) <= sizeof(msg));
	addr = (uint64_t)(uintptr_t)buf;
	memcpy(msg, &addr, sizeof(addr));
	memcpy(msg + sizeof(addr), desc, dlen);
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&c, NAME, 0, 4));
	ev_init(&v);
	ev_add(&v, c.pe);
	ev_until(&v, ep_running, &c);
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_send(&c, msg, (uint32_t)(sizeof(addr) + dlen)));
	want_rx = 1;
	ev_until(&v, ep_has_rx, &c);
	snprintf(expect, sizeof(expect), "copied %u %08x", DMA_LEN, sum32(buf, DMA_LEN));
	CU_CHECK(strcmp((const char *)c.rx[0], expect) == 0);
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_mmap_destroy(m));
	ev_close(&v, &c);
	free(buf);
	return 0;
}

static void test_dma_over_comch(void **state)
{
	int gs, gc;
	pid_t s, c;

	(void)state;
	tu_skip_test_under_qemu(TU_QEMU_NO_CMA);
	s = cu_fork_gated(dma_dpu, NULL, DEADLINE, &gs);
	c = cu_fork_gated(dma_host, NULL, DEADLINE, &gc);
	cu_release(gs);
	cu_release(gc);
	assert_int_equal(cu_join(c, DEADLINE + 5), 0);
	assert_int_equal(cu_join(s, DEADLINE + 5), 0);
}

/* ---- each kind of event wakes an armed PE ----------------------------------------------- */

/*
 * One event at a time: the side progresses until nothing is left, arms, and the handle must
 * become readable (the poll's 20 s bound only ends a test that would hang) before progress
 * shows the event.
 */
static void wake_for(struct cu_ep *e, struct doca_pe *other, bool (*done)(void *), void *arg,
                     const char *what)
{
	doca_notification_handle_t h;
	struct epoll_event ev = { .events = EPOLLIN }, out;
	int ep = epoll_create1(EPOLL_CLOEXEC);

	CU_CHECK(ep >= 0);
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_pe_get_notification_handle(e->pe, &h));
	CU_CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, h, &ev) == 0);
	if (other != NULL) {
		CU_CHECK_DOCA(DOCA_SUCCESS, doca_pe_get_notification_handle(other, &h));
		CU_CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, h, &ev) == 0);
	}
	for (;;) {
		while (doca_pe_progress(e->pe) || (other != NULL && doca_pe_progress(other)))
			;
		if (done(arg))
			break;
		CU_CHECK_DOCA(DOCA_SUCCESS, doca_pe_request_notification(e->pe));
		if (other != NULL)
			CU_CHECK_DOCA(DOCA_SUCCESS, doca_pe_request_notification(other));
		if (epoll_wait(ep, &out, 1, 20000) != 1) {
			fprintf(stderr, "%s side: no wake-up for: %s\n", e->server ? "DPU" : "host",
			        what);
			_exit(3);
		}
		CU_CHECK_DOCA(DOCA_SUCCESS, doca_pe_clear_notification(e->pe, 0));
	}
	close(ep);
}

/*
 * Nothing is pending (the peer waits for this side): after at most one spurious wake-up an
 * armed PE stays quiet. A source left readable (a socket at end of stream still watched, a
 * doorbell never drained) would make an event-driven program spin: false.
 */
static bool quiet(struct doca_pe **pes, unsigned int n)
{
	for (int round = 0; round < 3; round++) {
		bool loud = false;

		for (unsigned int i = 0; i < n; i++)
			while (doca_pe_progress(pes[i]))
				;
		for (unsigned int i = 0; i < n; i++)
			CU_CHECK_DOCA(DOCA_SUCCESS, doca_pe_request_notification(pes[i]));
		for (unsigned int i = 0; i < n; i++) {
			doca_notification_handle_t h;
			struct pollfd p = { .events = POLLIN };

			CU_CHECK_DOCA(DOCA_SUCCESS, doca_pe_get_notification_handle(pes[i], &h));
			p.fd = h;
			loud |= poll(&p, 1, 0) != 0;
			CU_CHECK_DOCA(DOCA_SUCCESS, doca_pe_clear_notification(pes[i], 0));
		}
		if (!loud)
			return true;
	}
	return false;
}

struct wk {
	struct cu_ep *e;
	struct fp *f;
};

static bool cons_running(void *a)
{
	return fp_running(((struct wk *)a)->f);
}

static bool cons_idle(void *a)
{
	return fp_idle(((struct wk *)a)->f);
}

static bool cons_one(void *a)
{
	return ((struct wk *)a)->f->ok >= 1;
}

static int kinds_dpu(void *arg)
{
	struct cu_ep s;
	struct fp f, g;
	struct wk w = { &s, &f }, wg = { &s, &g };
	struct doca_pe *pes[3];

	(void)arg;
	cu_open(&s, true);
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_server_start(&s, NAME, 0, 4));
	wake_for(&s, NULL, ep_connected, &s, "connect");
	/* a second consumer, stopped (IDLE) but kept: the connection's end still rings it */
	fp_consumer(&g, &s, 2);
	wake_for(&s, g.pe, cons_running, &wg, "consumer RUNNING");
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_pe_request_notification(g.pe)); /* armed, then stopped */
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_ctx_stop(g.ctx));
	CU_CHECK(state_of(g.ctx) == DOCA_CTX_STATE_IDLE);
	want_rx = 1;
	wake_for(&s, NULL, ep_has_rx, &s, "message received");
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_send(&s, "reply", 6));
	want_sent = 1;
	wake_for(&s, NULL, ep_has_sent, &s, "send completion");
	fp_consumer(&f, &s, 4);
	wake_for(&s, f.pe, cons_running, &w, "consumer RUNNING");
	(void)fp_post(&f, 0);
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_send(&s, "posted", 7));
	wake_for(&s, f.pe, cons_one, &w, "post-recv completion");
	(void)fp_post(&f, 1); /* posted when the peer leaves: fails, the consumer expires */
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_send(&s, "leave", 6));
	wake_for(&s, f.pe, ep_disconnected, &s, "disconnect");
	wake_for(&s, f.pe, cons_idle, &w, "consumer IDLE after the connection ended");
	CU_CHECK(f.err == 1);
	pes[0] = s.pe;
	pes[1] = f.pe;
	pes[2] = g.pe;
	CU_CHECK(quiet(pes, 3));
	fp_close(&g);
	fp_close(&f);
	CU_CHECK(cu_close(&s));
	return 0;
}

static bool fp_one(void *a)
{
	return ((struct fp *)a)->ok >= 1;
}

static int kinds_host(void *arg)
{
	struct doca_pe *pes[2];
	struct cu_ep c;
	struct fp f;

	(void)arg;
	cu_open(&c, false);
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&c, NAME, 0, 4));
	wake_for(&c, NULL, ep_running, &c, "client RUNNING");
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_send(&c, "hello", 6));
	want_rx = 1;
	wake_for(&c, NULL, ep_has_rx, &c, "message received");
	wake_for(&c, NULL, ep_two_cons, &c, "new consumer"); /* the one kept IDLE, then f */
	fp_producer(&f, &c, 4);
	want_rx = 2;
	wake_for(&c, f.pe, ep_has_rx, &c, "message received");
	fp_send(&f, c.last_cons_id, 0);
	wake_for(&c, f.pe, fp_one, &f, "producer send completion");
	want_rx = 3;
	wake_for(&c, f.pe, ep_has_rx, &c, "message received");
	pes[0] = c.pe;
	pes[1] = f.pe;
	CU_CHECK(quiet(pes, 2)); /* the server waits for the disconnect */
	fp_close(&f);
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, doca_ctx_stop(c.ctx));
	wake_for(&c, NULL, ep_idle, &c, "client IDLE after its stop");
	CU_CHECK(cu_close(&c));
	return 0;
}

static void test_each_event_wakes(void **state)
{
	int gs, gc;
	pid_t s, c;

	(void)state;
	tu_skip_test_under_qemu(TU_QEMU_NO_CMA);
	s = cu_fork_gated(kinds_dpu, NULL, DEADLINE, &gs);
	c = cu_fork_gated(kinds_host, NULL, DEADLINE, &gc);
	cu_release(gs);
	cu_release(gc);
	assert_int_equal(cu_join(c, DEADLINE + 5), 0);
	assert_int_equal(cu_join(s, DEADLINE + 5), 0);
}

/* The server stops first: the client's context goes STOPPING -> IDLE on its own. */
static int stop_dpu(void *arg)
{
	struct cu_ep s;

	(void)arg;
	cu_open(&s, true);
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_server_start(&s, NAME, 0, 4));
	wake_for(&s, NULL, ep_connected, &s, "connect");
	want_rx = 1;
	wake_for(&s, NULL, ep_has_rx, &s, "message received");
	CU_CHECK(cu_close(&s));
	return 0;
}

static int stop_host(void *arg)
{
	struct cu_ep c;

	(void)arg;
	cu_open(&c, false);
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&c, NAME, 0, 4));
	wake_for(&c, NULL, ep_running, &c, "client RUNNING");
	CU_CHECK_DOCA(DOCA_SUCCESS, cu_send(&c, "bye", 4));
	wake_for(&c, NULL, ep_idle, &c, "client IDLE after the server stopped");
	CU_CHECK(cu_close(&c));
	return 0;
}

static void test_server_stop_wakes_client(void **state)
{
	int gs, gc;
	pid_t s, c;

	(void)state;
	s = cu_fork_gated(stop_dpu, NULL, DEADLINE, &gs);
	c = cu_fork_gated(stop_host, NULL, DEADLINE, &gc);
	cu_release(gs);
	cu_release(gc);
	assert_int_equal(cu_join(c, DEADLINE + 5), 0);
	assert_int_equal(cu_join(s, DEADLINE + 5), 0);
}

/* No server: the connect timeout wakes the client's PE (STARTING -> IDLE). */
static int timeout_host(void *arg)
{
	struct cu_ep c;

	(void)arg;
	setenv("ODMA_COMCH_CONNECT_TIMEOUT_MS", "200", 1);
	cu_open(&c, false);
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&c, "odma nobody listens", 0, 4));
	wake_for(&c, NULL, ep_idle, &c, "connect timeout");
	CU_CHECK(!c.passed_running);
	CU_CHECK(cu_close(&c));
	return 0;
}

static void test_connect_timeout_wakes(void **state)
{
	int g;
	pid_t c;

	(void)state;
	c = cu_fork_gated(timeout_host, NULL, DEADLINE, &g);
	cu_release(g);
	assert_int_equal(cu_join(c, DEADLINE + 5), 0);
}

/* One side of a pair on its own (comch_netns.sh runs the two sides in two namespaces). */
static const struct {
	const char *name;
	int (*fn)(void *);
} sides[] = {
	{ "ctrl-server", ctrl_server }, { "ctrl-client", ctrl_client }, { "fp-server", fp_server },
	{ "fp-client", fp_client },     { "dma-dpu", dma_dpu },         { "dma-host", dma_host },
};

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_ctrl_pair, cu_next_name),
		cmocka_unit_test_setup(test_fastpath_pair, cu_next_name),
		cmocka_unit_test_setup(test_dma_over_comch, cu_next_name),
		cmocka_unit_test_setup(test_each_event_wakes, cu_next_name),
		cmocka_unit_test_setup(test_server_stop_wakes_client, cu_next_name),
		cmocka_unit_test_setup(test_connect_timeout_wakes, cu_next_name),
	};

	if (argc == 4 && strcmp(argv[1], "--side") == 0) {
		snprintf(cu_name, sizeof(cu_name), "%s", argv[3]);
		for (size_t i = 0; i < sizeof(sides) / sizeof(sides[0]); i++)
			if (strcmp(argv[2], sides[i].name) == 0)
				return sides[i].fn(NULL);
		fprintf(stderr, "test_comch_event --side: unknown side %s\n", argv[2]);
		return 2;
	}
	cu_private_rundir();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
