/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * DOCA Comch between two processes, with same-run baselines (bench.h, bench_comch_run):
 * this process is the DPU side (a Comch server and a producer), a forked child the host side
 * (a client and a consumer that keeps BC_POSTS buffers posted). Measured, each for a share of
 * the time:
 *   - control path: ping-pong of 64-byte messages, and a one-way stream of them;
 *   - the same two on a raw SOCK_SEQPACKET socketpair between the same processes (--netns: on
 *     raw TCP over the same veth pair);
 *   - fast path: producer sends of SIZE bytes into the consumer's posted buffers, timed until
 *     the consumer has them all;
 *   - process_vm_writev of SIZE bytes into the child (what the fast path is built on on one
 *     kernel; --netns: a raw TCP stream of SIZE-byte messages into as many slots instead);
 *   - DMA tasks writing SIZE bytes into a buffer the child exported (the DMA way between
 *     host and DPU).
 * With --netns the child runs in network and PID namespaces of its own joined to ours by a
 * veth pair, with a runtime directory of its own, as on a second machine: Comch goes over
 * ODMA_FABRIC (the transport's link) and DMA over UCX. Everything here is emulated: odma moves
 * the bytes with the CPU, the kernel and the network stack.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "bench.h"

#define BC_NAME "odma bench comch"
#define BC_MSG 64
#define BC_POSTS 8
#define BC_WAIT_NS 10000000000ull

/* One side's objects and counters. */
static struct {
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
	struct doca_pe *pe, *fp_pe;
	struct doca_comch_server *srv;
	struct doca_comch_client *cli;
	struct doca_ctx *ctx;
	enum doca_ctx_states state;
	struct doca_comch_connection *conn;
	uint32_t peer_cons;
	uint64_t echoes, received, sent, send_errs, fp_done, fp_errs;
	uint64_t filled; /* the host side: fast-path buffers its consumer received */
	bool lost;
	struct doca_comch_consumer *cons;
	struct doca_ctx *cons_ctx;
	enum doca_ctx_states cons_state;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	uint8_t *mem;
} bc;

static void bc_state(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
                     enum doca_ctx_states next)
{
	(void)prev;
	(void)ud;
	if (ctx == bc.ctx)
		bc.state = next;
	else
		bc.cons_state = next;
}

static void bc_sent(struct doca_comch_task_send *t, union doca_data a, union doca_data b)
{
	(void)a;
	(void)b;
	bc.sent++;
	doca_task_free(doca_comch_task_send_as_task(t));
}

static void bc_send_err(struct doca_comch_task_send *t, union doca_data a, union doca_data b)
{
	(void)a;
	(void)b;
	bc.send_errs++;
	doca_task_free(doca_comch_task_send_as_task(t));
}

static doca_error_t bc_send(const void *msg, uint32_t len)
{
	struct doca_comch_task_send *t;
	doca_error_t r =
	        bc.srv ? doca_comch_server_task_send_alloc_init(bc.srv, bc.conn, msg, len, &t)
	               : doca_comch_client_task_send_alloc_init(bc.cli, bc.conn, msg, len, &t);

	if (r != DOCA_SUCCESS)
		return r;
	r = doca_task_submit(doca_comch_task_send_as_task(t));
	if (r != DOCA_SUCCESS)
		doca_task_free(doca_comch_task_send_as_task(t));
	return r;
}

static void bc_recv(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len,
                    struct doca_comch_connection *c)
{
	(void)ev;
	(void)c;
	bc.received++;
	if (buf[0] == 'P' && bc.cli != NULL) /* the host side answers pings */
		while (bc_send(buf, len) == DOCA_ERROR_AGAIN)
			;
	else if (buf[0] == 'P')
		bc.echoes++;
}

static void bc_connect(struct doca_comch_event_connection_status_changed *ev,
                       struct doca_comch_connection *c, uint8_t ok)
{
	(void)ev;
	if (ok && bc.conn == NULL)
		bc.conn = c;
}

static void bc_disconnect(struct doca_comch_event_connection_status_changed *ev,
                          struct doca_comch_connection *c, uint8_t ok)
{
	(void)ev;
	(void)ok;
	if (c == bc.conn)
		bc.lost = true;
}

static void bc_new_cons(struct doca_comch_event_consumer *ev, struct doca_comch_connection *c,
                        uint32_t id)
{
	(void)ev;
	(void)c;
	bc.peer_cons = id;
}

static void bc_gone_cons(struct doca_comch_event_consumer *ev, struct doca_comch_connection *c,
                         uint32_t id)
{
	(void)ev;
	(void)c;
	(void)id;
}

/* The consumer reposts every filled buffer at once. */
static void bc_filled(struct doca_comch_consumer_task_post_recv *t, union doca_data a,
                      union doca_data b)
{
	struct doca_buf *buf = doca_comch_consumer_task_post_recv_get_buf(t);

	(void)a;
	(void)b;
	bc.filled++;
	doca_buf_reset_data_len(buf);
	if (doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)) != DOCA_SUCCESS) {
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
		doca_buf_dec_refcount(buf, NULL);
	}
}

static void bc_fill_err(struct doca_comch_consumer_task_post_recv *t, union doca_data a,
                        union doca_data b)
{
	(void)a;
	(void)b;
	doca_buf_dec_refcount(doca_comch_consumer_task_post_recv_get_buf(t), NULL);
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static doca_error_t bc_mem(size_t len, uint32_t perms, uint32_t nbufs)
{
	doca_error_t r;

	bc.mem = aligned_alloc(64, (len + 63) & ~(size_t)63);
	if (bc.mem == NULL)
		return DOCA_ERROR_NO_MEMORY;
	memset(bc.mem, 0x5a, len);
	if ((r = doca_mmap_create(&bc.mmap)) ||
	    (r = doca_mmap_set_memrange(bc.mmap, bc.mem, len)) ||
	    (r = doca_mmap_set_permissions(bc.mmap, perms)) ||
	    (r = doca_mmap_add_dev(bc.mmap, bc.dev)) || (r = doca_mmap_start(bc.mmap)) ||
	    (r = doca_buf_inventory_create(nbufs, &bc.inv)) ||
	    (r = doca_buf_inventory_start(bc.inv)))
		return r;
	return DOCA_SUCCESS;
}

/* ---- the host side (child) ------------------------------------------------------------------- */

struct bc_ready {
	uint64_t cons_addr; /* the consumer's buffers (for the process_vm_writev baseline) */
	uint64_t exp_addr;  /* the exported buffer */
	uint64_t desc_len;
	uint8_t desc[512];
};

/* Raw SOCK_SEQPACKET phase: echo pings, swallow stream messages, until 'x'. */
static void child_raw(int raw)
{
	char m[BC_MSG];

	for (;;) {
		ssize_t k = recv(raw, m, sizeof(m), 0);

		if (k <= 0 || m[0] == 'x')
			return;
		if (m[0] == 'P' && send(raw, m, (size_t)k, 0) != k)
			return;
	}
}

static int child_main(int ctl, int raw, size_t size)
{
	struct doca_mmap *exp_mmap = NULL;
	struct bc_ready rd = { 0 };
	uint8_t *exp_buf;
	union doca_data ud = { .ptr = NULL };
	const void *desc;
	size_t dlen;
	char cmd;

	bc.dev = bench_open_pci("b1:00.0");
	if (bc.dev == NULL || doca_pe_create(&bc.pe) || doca_pe_create(&bc.fp_pe) ||
	    doca_comch_client_create(bc.dev, BC_NAME, &bc.cli))
		return 10;
	bc.ctx = doca_comch_client_as_ctx(bc.cli);
	if (doca_comch_client_task_send_set_conf(bc.cli, bc_sent, bc_send_err, 64) ||
	    doca_comch_client_event_msg_recv_register(bc.cli, bc_recv) ||
	    doca_comch_client_event_consumer_register(bc.cli, bc_new_cons, bc_gone_cons) ||
	    doca_ctx_set_state_changed_cb(bc.ctx, bc_state) || doca_ctx_set_user_data(bc.ctx, ud) ||
	    doca_pe_connect_ctx(bc.pe, bc.ctx) || doca_ctx_start(bc.ctx) != DOCA_ERROR_IN_PROGRESS)
		return 11;
	for (uint64_t end = bench_now_ns() + BC_WAIT_NS; bc.state != DOCA_CTX_STATE_RUNNING;
	     doca_pe_progress(bc.pe))
		if (bc.state == DOCA_CTX_STATE_IDLE || bench_now_ns() > end)
			return 12;
	doca_comch_client_get_connection(bc.cli, &bc.conn);
	/* the consumer, BC_POSTS buffers of SIZE posted */
	if (bc_mem(size * BC_POSTS, DOCA_ACCESS_FLAG_PCI_READ_WRITE, BC_POSTS) ||
	    doca_comch_consumer_create(bc.conn, bc.mmap, &bc.cons))
		return 13;
	bc.cons_ctx = doca_comch_consumer_as_ctx(bc.cons);
	if (doca_comch_consumer_task_post_recv_set_conf(bc.cons, bc_filled, bc_fill_err,
	                                                BC_POSTS) ||
	    doca_ctx_set_state_changed_cb(bc.cons_ctx, bc_state) ||
	    doca_pe_connect_ctx(bc.fp_pe, bc.cons_ctx) ||
	    doca_ctx_start(bc.cons_ctx) != DOCA_ERROR_IN_PROGRESS)
		return 14;
	for (uint64_t end = bench_now_ns() + BC_WAIT_NS; bc.cons_state != DOCA_CTX_STATE_RUNNING;) {
		if (bc.cons_state == DOCA_CTX_STATE_IDLE || bench_now_ns() > end)
			return 15;
		doca_pe_progress(bc.pe);
		doca_pe_progress(bc.fp_pe);
	}
	for (uint32_t i = 0; i < BC_POSTS; i++) {
		struct doca_comch_consumer_task_post_recv *t;
		struct doca_buf *b;

		if (doca_buf_inventory_buf_get_by_addr(bc.inv, bc.mmap, bc.mem + i * size, size,
		                                       &b) ||
		    doca_comch_consumer_task_post_recv_alloc_init(bc.cons, b, &t) ||
		    doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)))
			return 16;
	}
	/* the buffer the DMA measurement writes into */
	exp_buf = aligned_alloc(64, (size + 63) & ~(size_t)63);
	if (exp_buf == NULL || doca_mmap_create(&exp_mmap) ||
	    doca_mmap_set_memrange(exp_mmap, exp_buf, size) ||
	    doca_mmap_set_permissions(exp_mmap, DOCA_ACCESS_FLAG_PCI_READ_WRITE) ||
	    doca_mmap_add_dev(exp_mmap, bc.dev) || doca_mmap_start(exp_mmap) ||
	    doca_mmap_export_pci(exp_mmap, bc.dev, &desc, &dlen) || dlen > sizeof(rd.desc))
		return 17;
	rd.cons_addr = (uint64_t)(uintptr_t)bc.mem;
	rd.exp_addr = (uint64_t)(uintptr_t)exp_buf;
	rd.desc_len = dlen;
	memcpy(rd.desc, desc, dlen);
	if (!bench_full_io(ctl, &rd, sizeof(rd), true))
		return 18;
	for (;;) {
		struct pollfd p = { .fd = ctl, .events = POLLIN };

		if (poll(&p, 1, 0) == 1) {
			if (!bench_full_io(ctl, &cmd, 1, false) || cmd == 'Q')
				break;
			if (cmd == 'R')
				child_raw(raw);
			if (cmd == 'C' && !bench_full_io(ctl, &bc.filled, sizeof(bc.filled), true))
				break;
			continue;
		}
		if (doca_pe_progress(bc.pe) + doca_pe_progress(bc.fp_pe) == 0)
			sched_yield(); /* leave the CPU to the measuring process when idle */
	}
	_exit(0); /* the parent is done measuring: no orderly teardown needed */
}

/* ---- the DPU side (this process) ------------------------------------------------------------- */

static void prog(void)
{
	if (doca_pe_progress(bc.pe) == 0)
		sched_yield();
}

/* Sends one control message, keeping fewer sends in flight than the task pool holds. */
static doca_error_t bc_send_paced(const void *msg, uint32_t len, uint64_t *issued)
{
	doca_error_t r;

	while (*issued - (bc.sent + bc.send_errs) >= 60 && !bc.lost)
		prog();
	r = bc_send(msg, len);
	if (r == DOCA_SUCCESS)
		(*issued)++;
	return r;
}

static double comch_pingpong(double seconds)
{
	uint8_t m[BC_MSG] = { 'P' };
	uint64_t end = bench_now_ns() + (uint64_t)(seconds * 1e9), t0 = bench_now_ns(), n = 0;
	uint64_t issued = bc.sent + bc.send_errs;

	while (bench_now_ns() < end && !bc.lost) {
		uint64_t want = bc.echoes + 1;

		while (bc_send_paced(m, sizeof(m), &issued) == DOCA_ERROR_AGAIN)
			prog();
		while (bc.echoes < want && !bc.lost)
			prog();
		n++;
	}
	return n ? (double)(bench_now_ns() - t0) / (double)n : 0;
}

static double comch_stream(double seconds)
{
	uint8_t m[BC_MSG] = { 'S' };
	uint64_t end = bench_now_ns() + (uint64_t)(seconds * 1e9), t0 = bench_now_ns(), n = 0;
	uint64_t issued = bc.sent + bc.send_errs;

	while (bench_now_ns() < end && !bc.lost) {
		doca_error_t r = bc_send_paced(m, sizeof(m), &issued);

		if (r == DOCA_SUCCESS)
			n++;
		else
			prog();
	}
	return (double)n / ((double)(bench_now_ns() - t0) / 1e9);
}

static void raw_phase(int ctl, int raw, double seconds, double *rtt_ns, double *per_sec)
{
	char m[BC_MSG] = { 'P' }, cmd = 'R';
	uint64_t end, t0, n = 0;

	*rtt_ns = *per_sec = 0;
	if (!bench_full_io(ctl, &cmd, 1, true))
		return;
	t0 = bench_now_ns();
	end = t0 + (uint64_t)(seconds / 2 * 1e9);
	while (bench_now_ns() < end && send(raw, m, sizeof(m), 0) == sizeof(m) &&
	       recv(raw, m, sizeof(m), 0) > 0)
		n++;
	*rtt_ns = n ? (double)(bench_now_ns() - t0) / (double)n : 0;
	m[0] = 'S';
	n = 0;
	t0 = bench_now_ns();
	end = t0 + (uint64_t)(seconds / 2 * 1e9);
	while (bench_now_ns() < end && send(raw, m, sizeof(m), 0) == sizeof(m))
		n++;
	*per_sec = (double)n / ((double)(bench_now_ns() - t0) / 1e9);
	m[0] = 'x';
	(void)!send(raw, m, 1, 0);
}

static void fp_done(struct doca_comch_producer_task_send *t, union doca_data a, union doca_data b)
{
	(void)a;
	(void)b;
	bc.fp_done++;
	doca_buf_dec_refcount((struct doca_buf *)doca_comch_producer_task_send_get_buf(t), NULL);
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

static void fp_err(struct doca_comch_producer_task_send *t, union doca_data a, union doca_data b)
{
	bc.fp_errs++;
	fp_done(t, a, b);
}

/*
 * Whether the host side's consumer has received @n buffers, asked over @ctl until it has (at
 * most 10 s, progressing @pe): a send completes once its bytes left, not once they landed.
 */
static bool bc_delivered(int ctl, struct doca_pe *pe, uint64_t n)
{
	uint64_t got = 0, end = bench_now_ns() + BC_WAIT_NS;
	char cmd = 'C';

	while (got < n && bench_now_ns() < end && !bc.lost) {
		if (!bench_full_io(ctl, &cmd, 1, true) ||
		    !bench_full_io(ctl, &got, sizeof(got), false))
			return false;
		if (got < n)
			doca_pe_progress(pe);
	}
	return got >= n;
}

static int fastpath(int ctl, size_t size, double seconds, double *bytes_per_sec)
{
	struct doca_comch_producer *p;
	struct doca_pe *pe;
	uint64_t t0, end, sent = 0;
	int rc = -1;

	if (doca_pe_create(&pe) || doca_comch_producer_create(bc.conn, &p))
		return -1;
	if (doca_comch_producer_task_send_set_conf(p, fp_done, fp_err, BC_POSTS) ||
	    doca_pe_connect_ctx(pe, doca_comch_producer_as_ctx(p)) ||
	    doca_ctx_start(doca_comch_producer_as_ctx(p)))
		goto out;
	t0 = bench_now_ns();
	end = t0 + (uint64_t)(seconds * 1e9);
	while (bench_now_ns() < end && !bc.lost) {
		struct doca_comch_producer_task_send *t;
		struct doca_buf *b;
		doca_error_t r;

		while (sent - bc.fp_done >= 3) /* the inventory holds 4 bufs */
			doca_pe_progress(pe);
		if (doca_buf_inventory_buf_get_by_data(bc.inv, bc.mmap, bc.mem, size, &b) !=
		    DOCA_SUCCESS) {
			doca_pe_progress(pe);
			continue;
		}
		r = doca_comch_producer_task_send_alloc_init(p, b, NULL, 0, bc.peer_cons, &t);
		if (r != DOCA_SUCCESS) {
			doca_buf_dec_refcount(b, NULL);
			doca_pe_progress(pe);
			continue;
		}
		while ((r = doca_task_submit(doca_comch_producer_task_send_as_task(t))) ==
		               DOCA_ERROR_AGAIN &&
		       bench_now_ns() < end)
			if (doca_pe_progress(pe) == 0)
				sched_yield(); /* the consumer reposts on its own */
		if (r != DOCA_SUCCESS) {
			doca_buf_dec_refcount(b, NULL);
			doca_task_free(doca_comch_producer_task_send_as_task(t));
			continue;
		}
		sent++;
	}
	while (bc.fp_done < sent)
		doca_pe_progress(pe);
	if (bc.fp_errs == 0 && bc_delivered(ctl, pe, sent)) {
		*bytes_per_sec =
		        (double)sent * (double)size / ((double)(bench_now_ns() - t0) / 1e9);
		rc = 0;
	}
	(void)doca_ctx_stop(doca_comch_producer_as_ctx(p));
out:
	doca_comch_producer_destroy(p);
	doca_pe_destroy(pe);
	return rc;
}

static double vm_writev_rate(pid_t pid, uint64_t addr, size_t size, double seconds)
{
	struct iovec l = { .iov_base = bc.mem, .iov_len = size },
	             r = { .iov_base = (void *)(uintptr_t)addr, .iov_len = size };
	uint64_t t0 = bench_now_ns(), end = t0 + (uint64_t)(seconds * 1e9), n = 0;

	while (bench_now_ns() < end && process_vm_writev(pid, &l, 1, &r, 1, 0) == (ssize_t)size)
		n++;
	return (double)n * (double)size / ((double)(bench_now_ns() - t0) / 1e9);
}

static uint64_t dma_done;
static void dma_cb(struct doca_dma_task_memcpy *t, union doca_data a, union doca_data b)
{
	(void)a;
	(void)b;
	dma_done++;
	doca_task_free(doca_dma_task_memcpy_as_task(t));
}

/* DMA tasks writing SIZE bytes of local memory into the child's exported buffer. */
static double dma_rate(const struct bc_ready *rd, size_t size, double seconds)
{
	struct doca_mmap *remote = NULL;
	struct doca_dma *dma = NULL;
	struct doca_pe *pe = NULL;
	struct doca_buf *src = NULL, *dst = NULL;
	uint64_t t0, end, sent = 0, maxbuf = 0;
	double rate = 0;

	if (doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(bc.dev), &maxbuf) ||
	    size > maxbuf ||
	    doca_mmap_create_from_export(NULL, rd->desc, rd->desc_len, bc.dev, &remote) ||
	    doca_pe_create(&pe) || doca_dma_create(bc.dev, &dma) ||
	    doca_dma_task_memcpy_set_conf(dma, dma_cb, dma_cb, 4) ||
	    doca_pe_connect_ctx(pe, doca_dma_as_ctx(dma)) || doca_ctx_start(doca_dma_as_ctx(dma)) ||
	    doca_buf_inventory_buf_get_by_data(bc.inv, bc.mmap, bc.mem, size, &src) ||
	    doca_buf_inventory_buf_get_by_addr(bc.inv, remote, (void *)(uintptr_t)rd->exp_addr,
	                                       size, &dst))
		goto out;
	dma_done = 0;
	t0 = bench_now_ns();
	end = t0 + (uint64_t)(seconds * 1e9);
	while (bench_now_ns() < end) {
		struct doca_dma_task_memcpy *t;

		doca_buf_reset_data_len(dst);
		if (doca_dma_task_memcpy_alloc_init(dma, src, dst, (union doca_data){ .u64 = 0 },
		                                    &t) != DOCA_SUCCESS) {
			doca_pe_progress(pe);
			continue;
		}
		if (doca_task_submit(doca_dma_task_memcpy_as_task(t)) != DOCA_SUCCESS) {
			doca_task_free(doca_dma_task_memcpy_as_task(t));
			doca_pe_progress(pe);
			continue;
		}
		sent++;
		while (dma_done < sent) /* depth 1 per buffer pair: the destination is rewritten */
			doca_pe_progress(pe);
	}
	rate = (double)sent * (double)size / ((double)(bench_now_ns() - t0) / 1e9);
out:
	if (dma != NULL) {
		(void)doca_ctx_stop(doca_dma_as_ctx(dma));
		doca_dma_destroy(dma);
	}
	if (src)
		doca_buf_dec_refcount(src, NULL);
	if (dst)
		doca_buf_dec_refcount(dst, NULL);
	if (pe)
		doca_pe_destroy(pe);
	if (remote)
		doca_mmap_destroy(remote);
	return rate;
}

/* ---- a run ------------------------------------------------------------------------------------
 */

/* What the host side is started with. */
struct bc_args {
	const char *dir; /* the run's directory */
	size_t size;
	int raw; /* one kernel: the raw socketpair's end */
};

/* One kernel: the host side shares our runtime directory and has a raw socketpair. */
static int bc_local_child(int ctl, void *arg)
{
	const struct bc_args *a = arg;

	return child_main(ctl, a->raw, a->size);
}

/*
 * --netns: the host side, as on a second machine: a runtime directory of its own, Comch over
 * ODMA_FABRIC, and the raw TCP sink on its end of the veth pair (its port first over @ctl).
 */
static int bc_netns_child(int ctl, void *arg)
{
	const struct bc_args *a = arg;
	char dir[256];
	uint16_t port = 0;

	snprintf(dir, sizeof(dir), "%s/host", a->dir);
	if (mkdir(dir, 0700) != 0 || setenv("ODMA_RUNDIR", dir, 1) != 0 ||
	    bench_tcp_sink_start(bench_netns_peer(), &port) != 0 ||
	    !bench_full_io(ctl, &port, sizeof(port), true))
		return 20;
	return child_main(ctl, -1, a->size);
}

/* Both sides prove the same fabric secret: ours, unless the user gave one. */
static void bc_secret(void)
{
	uint8_t r[16];
	char hex[sizeof(r) * 2 + 1];

	if (getenv("ODMA_FABRIC_SECRET") != NULL || getrandom(r, sizeof(r), 0) != sizeof(r))
		return;
	for (size_t i = 0; i < sizeof(r); i++)
		snprintf(hex + 2 * i, 3, "%02x", r[i]);
	setenv("ODMA_FABRIC_SECRET", hex, 1);
}

/* Forks the host side (@a->raw set up here for one kernel); its pid, or -1 with @err set. */
static pid_t bc_fork(bool netns, struct bc_args *a, double seconds, int *ctl, int *raw,
                     uint16_t *tcp_port, char *err, size_t errlen)
{
	unsigned int alarm_s = (unsigned int)(seconds * 4) + 60;
	int sv[2] = { -1, -1 };
	pid_t pid;

	if (!netns && socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0) {
		snprintf(err, errlen, "cannot set up: %s", strerror(errno));
		return -1;
	}
	if (netns)
		bc_secret();
	a->raw = sv[1];
	pid = bench_responder_fork(netns, alarm_s, netns ? bc_netns_child : bc_local_child, a, ctl,
	                           err, errlen);
	if (sv[1] >= 0)
		close(sv[1]);
	*raw = sv[0];
	if (pid < 0)
		*ctl = -1; /* closed already */
	if (pid > 0 && netns && !bench_full_io(*ctl, tcp_port, sizeof(*tcp_port), false)) {
		snprintf(err, errlen, "the host side could not start in its namespaces");
		return pid; /* bench_comch_run ends it */
	}
	return pid;
}

/* The DPU side: a Comch server on 03:00.0 for the representor of b1:00.0. */
static int bc_server_start(char *err, size_t errlen)
{
	union doca_data ud = { .ptr = NULL };
	struct doca_devinfo_rep **reps;
	uint32_t n;

	bc.dev = bench_open_pci("03:00.0");
	if (bc.dev == NULL ||
	    doca_devinfo_rep_create_list(bc.dev, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n) ||
	    n == 0) {
		snprintf(
		        err, errlen,
		        "no DPU device 03:00.0 with a representor (check ODMA_SYSTEM / ODMA_SIDE)");
		return -1;
	}
	doca_dev_rep_open(reps[0], &bc.rep);
	doca_devinfo_rep_destroy_list(reps);
	if (bc.rep == NULL || doca_pe_create(&bc.pe) ||
	    doca_comch_server_create(bc.dev, bc.rep, BC_NAME, &bc.srv)) {
		snprintf(err, errlen, "cannot create the Comch server");
		return -1;
	}
	bc.ctx = doca_comch_server_as_ctx(bc.srv);
	if (doca_comch_server_task_send_set_conf(bc.srv, bc_sent, bc_send_err, 64) ||
	    doca_comch_server_event_msg_recv_register(bc.srv, bc_recv) ||
	    doca_comch_server_event_connection_status_changed_register(bc.srv, bc_connect,
	                                                               bc_disconnect) ||
	    doca_comch_server_event_consumer_register(bc.srv, bc_new_cons, bc_gone_cons) ||
	    doca_ctx_set_state_changed_cb(bc.ctx, bc_state) || doca_ctx_set_user_data(bc.ctx, ud) ||
	    doca_pe_connect_ctx(bc.pe, bc.ctx) || doca_ctx_start(bc.ctx)) {
		snprintf(err, errlen, "cannot start the Comch server");
		return -1;
	}
	return 0;
}

/* Raw TCP to the host side's sink: 64-byte round trips and stream, and SIZE-byte messages. */
static void bc_raw_tcp(uint16_t port, size_t size, double seconds, struct bench_comch *out)
{
	const char *peer = bench_netns_peer();
	double one = bench_tcp_stream(peer, port, BC_MSG, 1, 1, 1, seconds / 2);
	double many = bench_tcp_stream(peer, port, BC_MSG, 60, 1, 1, seconds / 2);

	out->raw_rtt_ns = one > 0 ? 1e9 * BC_MSG / one : 0;
	out->raw_msg_per_sec = many > 0 ? many / BC_MSG : 0;
	out->raw_tcp_bytes_per_sec =
	        bench_tcp_stream(peer, port, size, BC_POSTS, 1, BC_POSTS, seconds / 2);
}

/* The measurements, once both sides are up. */
static int bc_measure(int ctl, int raw, pid_t pid, uint16_t tcp_port, size_t size, double seconds,
                      struct bench_comch *out, char *err, size_t errlen)
{
	struct bc_ready rd;

	for (uint64_t end = bench_now_ns() + BC_WAIT_NS;
	     (bc.conn == NULL || bc.peer_cons == 0) && !bc.lost;) {
		if (bench_now_ns() > end) {
			snprintf(err, errlen, "the host-side process did not connect");
			return -1;
		}
		prog();
	}
	if (!bench_full_io(ctl, &rd, sizeof(rd), false) ||
	    bc_mem(size, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 4)) {
		snprintf(err, errlen, "the host-side process failed to set up");
		return -1;
	}
	out->msg_rtt_ns = comch_pingpong(seconds / 5);
	out->msg_per_sec = comch_stream(seconds / 5);
	if (out->netns)
		bc_raw_tcp(tcp_port, size, seconds / 5, out);
	else
		raw_phase(ctl, raw, seconds / 5, &out->raw_rtt_ns, &out->raw_msg_per_sec);
	if (fastpath(ctl, size, seconds / 5, &out->fp_bytes_per_sec) != 0) {
		snprintf(err, errlen, "the fast-path measurement failed");
		return -1;
	}
	if (!out->netns) /* CMA reaches only processes of one PID namespace */
		out->vm_writev_bytes_per_sec =
		        vm_writev_rate(pid, rd.cons_addr, size, seconds / 10);
	out->dma_bytes_per_sec = dma_rate(&rd, size, seconds / 10);
	out->valid = out->msg_rtt_ns > 0 && out->fp_bytes_per_sec > 0 && !bc.lost &&
	             (!out->netns || out->raw_tcp_bytes_per_sec > 0);
	if (!out->valid)
		snprintf(err, errlen, "the connection was lost during the measurements");
	return out->valid ? 0 : -1;
}

/* Ends the host side and everything of ours. */
static void bc_teardown(pid_t pid, int ctl, int raw, bool netns, const char *dir)
{
	char q = 'Q', cmd[64];
	int st = 0;

	if (pid > 0) {
		(void)!write(ctl, &q, 1);
		for (int i = 0; i < 500 && waitpid(pid, &st, WNOHANG) == 0; i++)
			usleep(10000);
		if (waitpid(pid, &st, WNOHANG) == 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
		}
	}
	if (ctl >= 0)
		close(ctl);
	if (raw >= 0)
		close(raw);
	if (bc.ctx != NULL) {
		(void)doca_ctx_stop(bc.ctx);
		for (int i = 0; i < 100000 && bc.state != DOCA_CTX_STATE_IDLE; i++)
			prog();
		doca_comch_server_destroy(bc.srv);
	}
	if (bc.pe)
		doca_pe_destroy(bc.pe);
	if (bc.inv)
		doca_buf_inventory_destroy(bc.inv);
	if (bc.mmap)
		doca_mmap_destroy(bc.mmap);
	free(bc.mem);
	if (bc.rep)
		doca_dev_rep_close(bc.rep);
	if (bc.dev)
		doca_dev_close(bc.dev);
	if (netns)
		bench_netns_close();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	(void)!system(cmd);
	unsetenv("ODMA_RUNDIR");
}

int bench_comch_run(size_t size, double seconds, bool netns, struct bench_comch *out, char *err,
                    size_t errlen)
{
	char dir[] = "/tmp/odma-bench-comch-XXXXXX";
	struct bc_args a = { .dir = dir, .size = size };
	int ctl = -1, raw = -1, rc = -1;
	uint16_t tcp_port = 0;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	memset(&bc, 0, sizeof(bc));
	out->size = size;
	out->netns = netns;
	if (size == 0 || size > BENCH_COMCH_SIZE_MAX) {
		snprintf(err, errlen, "--size must be 1..256M for the Comch measurements");
		return -1;
	}
	if (mkdtemp(dir) == NULL) {
		snprintf(err, errlen, "cannot set up: %s", strerror(errno));
		return -1;
	}
	setenv("ODMA_RUNDIR", dir, 1); /* a private runtime directory: nobody else's server */
	/* forked before any PE exists here (a PE may own a thread) */
	pid = bc_fork(netns, &a, seconds, &ctl, &raw, &tcp_port, err, errlen);
	if (pid > 0 && (!netns || tcp_port != 0) && bc_server_start(err, errlen) == 0)
		rc = bc_measure(ctl, raw, pid, tcp_port, size, seconds, out, err, errlen);
	bc_teardown(pid, ctl, raw, netns, dir);
	return rc;
}
