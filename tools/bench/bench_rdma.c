/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * odma bench --rdma: DOCA RDMA read, write and send between two processes (this one the
 * requester, a forked child the responder, which only progresses to repost its receives),
 * each with 8 tasks in flight, and beside them in the same run and between the same two
 * processes raw UCX over UCX_TLS=tcp (bench_ucx.c: ucp_get_nbx, ucp_put_nbx, eager
 * ucp_am_send_nbx from the same 8 slots into the same responder buffer; puts and messages
 * count once flushed), and raw TCP over loopback (a stream of messages of the same size with 8
 * unacked: from one hot buffer, and from the same 8 slots into one sink buffer). The figures
 * are measured in --reps interleaved repetitions, so that all of them see the same machine,
 * and their medians reported. Emulated figures: odma moves RDMA bytes over TCP, not an RDMA NIC.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_rdma.h>

#include "bench.h"

#define BR_DEPTH_MAX BENCH_RDMA_DEPTH_MAX

/* Tasks (and raw UCX operations, raw TCP messages) in flight: --depth, 8 by default. */
static unsigned int br_depth = 8;

struct br_side {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_rdma *rd;
	struct doca_mmap *mm;
	struct doca_buf_inventory *inv;
	uint8_t *mem;
	size_t len;
	struct doca_rdma_connection *conn;
	uint64_t done, failed;
	bool running;
};

static double br_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static struct doca_dev *br_open(void)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;

	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
		return NULL;
	for (uint32_t i = 0; i < n && dev == NULL; i++)
		if (doca_rdma_cap_task_read_is_supported(list[i]) == DOCA_SUCCESS)
			(void)doca_dev_open(list[i], &dev);
	doca_devinfo_destroy_list(list);
	return dev;
}

/*
 * The completion callbacks: count, and resubmit while the phase runs; else free the task and
 * give back its buffers @a and @b (NULL: none), so that the next phase or repetition finds the
 * inventory as the first did.
 */
static void br_again(struct doca_task *t, union doca_data cud, bool ok, const struct doca_buf *a,
                     const struct doca_buf *b)
{
	struct br_side *s = cud.ptr;

	if (ok)
		s->done++;
	else
		s->failed++;
	if (ok && s->running && doca_task_submit(t) == DOCA_SUCCESS)
		return;
	doca_task_free(t);
	if (a != NULL)
		(void)doca_buf_dec_refcount((struct doca_buf *)(uintptr_t)a, NULL);
	if (b != NULL)
		(void)doca_buf_dec_refcount((struct doca_buf *)(uintptr_t)b, NULL);
}

static void br_read_done(struct doca_rdma_task_read *t, union doca_data cud, bool ok)
{
	if (ok)
		doca_buf_reset_data_len(doca_rdma_task_read_get_dst_buf(t));
	br_again(doca_rdma_task_read_as_task(t), cud, ok, doca_rdma_task_read_get_src_buf(t),
	         doca_rdma_task_read_get_dst_buf(t));
}

static void br_read_cb(struct doca_rdma_task_read *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	br_read_done(t, cud, true);
}

static void br_read_err(struct doca_rdma_task_read *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	br_read_done(t, cud, false);
}

static void br_write_done(struct doca_rdma_task_write *t, union doca_data cud, bool ok)
{
	if (ok)
		doca_buf_reset_data_len(doca_rdma_task_write_get_dst_buf(t));
	br_again(doca_rdma_task_write_as_task(t), cud, ok, doca_rdma_task_write_get_src_buf(t),
	         doca_rdma_task_write_get_dst_buf(t));
}

static void br_write_cb(struct doca_rdma_task_write *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	br_write_done(t, cud, true);
}

static void br_write_err(struct doca_rdma_task_write *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	br_write_done(t, cud, false);
}

static void br_send_cb(struct doca_rdma_task_send *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	br_again(doca_rdma_task_send_as_task(t), cud, true, doca_rdma_task_send_get_src_buf(t),
	         NULL);
}

static void br_send_err(struct doca_rdma_task_send *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	br_again(doca_rdma_task_send_as_task(t), cud, false, doca_rdma_task_send_get_src_buf(t),
	         NULL);
}

static void br_recv_cb(struct doca_rdma_task_receive *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	doca_buf_reset_data_len(doca_rdma_task_receive_get_dst_buf(t));
	br_again(doca_rdma_task_receive_as_task(t), cud, true,
	         doca_rdma_task_receive_get_dst_buf(t), NULL);
}

static void br_recv_err(struct doca_rdma_task_receive *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	br_again(doca_rdma_task_receive_as_task(t), cud, false,
	         doca_rdma_task_receive_get_dst_buf(t), NULL);
}

static int br_setup(struct br_side *s, size_t len, uint32_t perms)
{
	union doca_data ud = { .ptr = s };

	memset(s, 0, sizeof(*s));
	s->len = len;
	s->mem = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);
	s->dev = br_open();
	if (s->mem == NULL || s->dev == NULL)
		return -1;
	memset(s->mem, 0x3c, len);
	return doca_pe_create(&s->pe) != DOCA_SUCCESS || doca_rdma_create(s->dev, &s->rd) != 0 ||
	                       doca_rdma_set_permissions(s->rd, perms) != DOCA_SUCCESS ||
	                       doca_rdma_task_read_set_conf(s->rd, br_read_cb, br_read_err,
	                                                    br_depth) != DOCA_SUCCESS ||
	                       doca_rdma_task_write_set_conf(s->rd, br_write_cb, br_write_err,
	                                                     br_depth) != DOCA_SUCCESS ||
	                       doca_rdma_task_send_set_conf(s->rd, br_send_cb, br_send_err,
	                                                    br_depth) != DOCA_SUCCESS ||
	                       doca_rdma_task_receive_set_conf(s->rd, br_recv_cb, br_recv_err,
	                                                       4 * br_depth) != DOCA_SUCCESS ||
	                       doca_ctx_set_user_data(doca_rdma_as_ctx(s->rd), ud) !=
	                               DOCA_SUCCESS ||
	                       doca_pe_connect_ctx(s->pe, doca_rdma_as_ctx(s->rd)) !=
	                               DOCA_SUCCESS ||
	                       doca_mmap_create(&s->mm) != DOCA_SUCCESS ||
	                       doca_mmap_set_memrange(s->mm, s->mem, len) != DOCA_SUCCESS ||
	                       doca_mmap_set_permissions(s->mm, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE |
	                                                                perms) != DOCA_SUCCESS ||
	                       doca_mmap_add_dev(s->mm, s->dev) != DOCA_SUCCESS ||
	                       doca_mmap_start(s->mm) != DOCA_SUCCESS ||
	                       doca_buf_inventory_create(8 * br_depth, &s->inv) != DOCA_SUCCESS ||
	                       doca_buf_inventory_start(s->inv) != DOCA_SUCCESS ||
	                       doca_ctx_start(doca_rdma_as_ctx(s->rd)) != DOCA_SUCCESS
	               ? -1
	               : 0;
}

/*
 * Undoes br_setup (and @remote, an import of the peer's memory, when not NULL): the context
 * stopped first (its flushed tasks are freed by br_again), for at most 5 s.
 */
static void br_teardown(struct br_side *s, struct doca_mmap *remote)
{
	if (s->rd != NULL) {
		struct doca_ctx *c = doca_rdma_as_ctx(s->rd);
		enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;
		double end = br_now() + 5;

		s->running = false;
		if (doca_ctx_stop(c) == DOCA_ERROR_IN_PROGRESS)
			while (doca_ctx_get_state(c, &st) == DOCA_SUCCESS &&
			       st != DOCA_CTX_STATE_IDLE && br_now() < end)
				(void)doca_pe_progress(s->pe);
		if (doca_rdma_destroy(s->rd) != DOCA_SUCCESS)
			return; /* still running: the process ends with it */
	}
	if (s->inv != NULL) {
		(void)doca_buf_inventory_stop(s->inv);
		(void)doca_buf_inventory_destroy(s->inv);
	}
	if (remote != NULL)
		(void)doca_mmap_destroy(remote);
	if (s->mm != NULL) {
		(void)doca_mmap_stop(s->mm);
		(void)doca_mmap_destroy(s->mm);
	}
	if (s->pe != NULL)
		(void)doca_pe_destroy(s->pe);
	if (s->dev != NULL)
		(void)doca_dev_close(s->dev);
	free(s->mem);
	memset(s, 0, sizeof(*s));
}

static bool br_send_blob(int fd, const void *p, size_t n)
{
	uint32_t l = (uint32_t)n;

	return write(fd, &l, 4) == 4 && write(fd, p, n) == (ssize_t)n;
}

static bool br_recv_blob(int fd, void *p, size_t cap, size_t *n)
{
	uint32_t l;

	if (read(fd, &l, 4) != 4 || l > cap)
		return false;
	*n = l;
	for (size_t got = 0; got < l;) {
		ssize_t k = read(fd, (uint8_t *)p + got, l - got);

		if (k <= 0)
			return false;
		got += (size_t)k;
	}
	return true;
}

/*
 * The responder: starts the raw TCP sink (its port goes first), exports its memory, keeps
 * receives posted, serves until told to stop.
 */
static int br_child(int ctl, void *arg)
{
	size_t size = *(const size_t *)arg;
	struct br_side s = { 0 };
	const void *blob;
	size_t n;
	uint8_t peer[512];
	size_t msg = size < 65536 ? size : 65536;
	union doca_data ud = { 0 };
	struct pollfd p[2] = { { .fd = ctl, .events = POLLIN } };
	doca_event_handle_t h;

	uint16_t port = 0;

	/* --trace follows the requester's tasks; the responder writes no timeline of its own */
	unsetenv("ODMA_TRACE");
	if (bench_tcp_sink_start("0.0.0.0", &port) != 0 ||
	    write(ctl, &port, sizeof(port)) != (ssize_t)sizeof(port))
		return 1;

	if (br_setup(&s, size < 4 * br_depth * msg ? 4 * br_depth * msg : size,
	             DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE) != 0 ||
	    doca_rdma_export(s.rd, &blob, &n, &s.conn) != DOCA_SUCCESS ||
	    !br_send_blob(ctl, blob, n) ||
	    doca_mmap_export_rdma(s.mm, s.dev, &blob, &n) != DOCA_SUCCESS ||
	    !br_send_blob(ctl, blob, n) || !br_recv_blob(ctl, peer, sizeof(peer), &n) ||
	    doca_rdma_connect(s.rd, peer, n, s.conn) != DOCA_SUCCESS)
		return 1;
	s.running = true;
	for (unsigned int i = 0; i < 4 * br_depth; i++) {
		struct doca_buf *b;
		struct doca_rdma_task_receive *t;

		if (doca_buf_inventory_buf_get_by_addr(s.inv, s.mm, s.mem + (size_t)i * msg, msg,
		                                       &b) != DOCA_SUCCESS ||
		    doca_rdma_task_receive_allocate_init(s.rd, b, ud, &t) != DOCA_SUCCESS ||
		    doca_task_submit(doca_rdma_task_receive_as_task(t)) != DOCA_SUCCESS)
			return 1;
	}
	if (doca_pe_get_notification_handle(s.pe, &h) != DOCA_SUCCESS)
		return 1;
	p[1] = (struct pollfd){ .fd = h, .events = POLLIN };
	for (;;) {
		char cmd;

		/*
		 * Asleep on the PE's notification handle and the control pipe, as a program blocked
		 * in getchar() while its peer reads and writes its memory: the responder takes no
		 * CPU the transport's threads need (a spinning one left 2 vCPUs short of one).
		 */
		for (;;) {
			while (doca_pe_progress(s.pe) != 0)
				;
			if (doca_pe_request_notification(s.pe) != DOCA_SUCCESS)
				return 1;
			if (poll(p, 2, 100) < 0 && errno != EINTR)
				return 1;
			(void)doca_pe_clear_notification(s.pe, h);
			if (p[0].revents != 0)
				break;
		}
		/* 'U': export the same buffer to raw UCX (served from its own thread); EOF: stop */
		if (read(ctl, &cmd, 1) != 1 || cmd != 'U') {
			br_teardown(&s, NULL);
			return 0;
		}
		if (bench_ucx_export(ctl, s.mem, s.len) != 0) {
			uint64_t none[3] = { 0, 0, 0 }; /* the requester reads no raw UCX rows */

			if (write(ctl, none, sizeof(none)) != (ssize_t)sizeof(none))
				return 1;
		}
	}
}

/*
 * The raw UCX rows, one repetition (@u: the responder's same buffer, imported once; NULL: no
 * raw UCX rows): same slots, same depth, each for @seconds.
 */
static void br_raw_ucx(struct br_side *s, struct bench_ucx *u, size_t size, double seconds,
                       struct bench_rdma *out)
{
	struct bench_rep r[3] = { { 0 } };
	uint64_t base;

	if (u == NULL)
		return;
	base = bench_ucx_remote_base(u);
	if (bench_ucx_rep_op(u, BENCH_UCX_GET, s->mem, base, 0, size, br_depth, seconds, &r[0]) ==
	            0 &&
	    bench_ucx_rep_op(u, BENCH_UCX_PUT, s->mem, base, 0, size, br_depth, seconds, &r[1]) ==
	            0 &&
	    bench_ucx_rep_op(u, BENCH_UCX_AM, s->mem, base, 0, out->send_msg_size, br_depth,
	                     seconds, &r[2]) == 0 &&
	    r[0].seconds > 0 && r[1].seconds > 0 && r[2].seconds > 0) {
		out->raw_ucx = true;
		out->ucx_get_bytes_per_sec = (double)r[0].tasks * (double)size / r[0].seconds;
		out->ucx_put_bytes_per_sec = (double)r[1].tasks * (double)size / r[1].seconds;
		out->ucx_am_msgs_per_sec = (double)r[2].tasks / r[2].seconds;
	}
}

/* Runs one phase: @make allocates task i; br_depth in flight for @seconds. Tasks/s. */
static double br_phase(struct br_side *s, double seconds,
                       struct doca_task *(*make)(struct br_side *, int), uint64_t *failed)
{
	double t0, t1;
	uint64_t d0;

	s->running = true;
	for (unsigned int i = 0; i < br_depth; i++) {
		struct doca_task *t = make(s, i);

		if (t == NULL || doca_task_submit(t) != DOCA_SUCCESS)
			return -1;
	}
	t0 = br_now();
	d0 = s->done;
	/* past the phase only while nothing completed yet (a loaded machine), for 10 s at most */
	while ((t1 = br_now()) - t0 < seconds || (s->done == d0 && t1 - t0 < seconds + 10))
		(void)doca_pe_progress(s->pe);
	s->running = false;
	for (double end = br_now() + 5; br_now() < end;) {
		size_t inflight = 1;

		(void)doca_pe_progress(s->pe);
		(void)doca_ctx_get_num_inflight_tasks(doca_rdma_as_ctx(s->rd), &inflight);
		if (inflight == 0)
			break;
	}
	*failed += s->failed;
	return (double)(s->done - d0) / (t1 - t0);
}

static struct doca_mmap *br_remote;
static uint8_t *br_rmem;
static size_t br_size;

static struct doca_buf *br_get(struct br_side *s, struct doca_mmap *m, uint8_t *base, size_t off,
                               size_t len, bool data)
{
	struct doca_buf *b = NULL;

	if (data)
		(void)doca_buf_inventory_buf_get_by_data(s->inv, m, base + off, len, &b);
	else
		(void)doca_buf_inventory_buf_get_by_addr(s->inv, m, base + off, len, &b);
	return b;
}

static struct doca_task *br_make_read(struct br_side *s, int i)
{
	struct doca_rdma_task_read *t;
	union doca_data ud = { 0 };
	size_t off = (size_t)i * br_size;

	if (doca_rdma_task_read_allocate_init(
	            s->rd, s->conn, br_get(s, br_remote, br_rmem, 0, br_size, true),
	            br_get(s, s->mm, s->mem, off, br_size, false), ud, &t) != DOCA_SUCCESS)
		return NULL;
	return doca_rdma_task_read_as_task(t);
}

static struct doca_task *br_make_write(struct br_side *s, int i)
{
	struct doca_rdma_task_write *t;
	union doca_data ud = { 0 };
	size_t off = (size_t)i * br_size;

	if (doca_rdma_task_write_allocate_init(
	            s->rd, s->conn, br_get(s, s->mm, s->mem, off, br_size, true),
	            br_get(s, br_remote, br_rmem, 0, br_size, false), ud, &t) != DOCA_SUCCESS)
		return NULL;
	return doca_rdma_task_write_as_task(t);
}

static size_t br_msg;

static struct doca_task *br_make_send(struct br_side *s, int i)
{
	struct doca_rdma_task_send *t;
	union doca_data ud = { 0 };

	if (doca_rdma_task_send_allocate_init(
	            s->rd, s->conn, br_get(s, s->mm, s->mem, (size_t)i * br_msg, br_msg, true), ud,
	            &t) != DOCA_SUCCESS)
		return NULL;
	return doca_rdma_task_send_as_task(t);
}

#define BR_REPS_MAX 99 /* --reps' bound here */
/* The figures of a row, as br_fig numbers them. */
enum { BR_READ, BR_WRITE, BR_SEND, BR_GET, BR_PUT, BR_AM, BR_TCP, BR_TCP_SLOTS, BR_FIGS };

/* Figure @k of row @r (each repetition fills all of them; the row reports their medians). */
static double *br_fig(struct bench_rdma *r, int k)
{
	double *f[BR_FIGS] = {
		[BR_READ] = &r->read_bytes_per_sec,
		[BR_WRITE] = &r->write_bytes_per_sec,
		[BR_SEND] = &r->send_msgs_per_sec,
		[BR_GET] = &r->ucx_get_bytes_per_sec,
		[BR_PUT] = &r->ucx_put_bytes_per_sec,
		[BR_AM] = &r->ucx_am_msgs_per_sec,
		[BR_TCP] = &r->raw_tcp_bytes_per_sec,
		[BR_TCP_SLOTS] = &r->raw_tcp_slots_bytes_per_sec,
	};

	return f[k];
}

/*
 * One repetition of every figure into @out, each for @t seconds: odma's read, write and send
 * phases, raw UCX over @u, then raw TCP to the responder's sink at @addr:@port (loopback, or across
 * the veth pair; bench_tcp.c) from one hot buffer and from the br_depth slots odma's tasks use.
 */
static void br_rep(struct br_side *s, struct bench_ucx *u, const char *addr, uint16_t port,
                   double t, struct bench_rdma *out, uint64_t *failed)
{
	out->read_bytes_per_sec = br_phase(s, t, br_make_read, failed) * (double)br_size;
	out->write_bytes_per_sec = br_phase(s, t, br_make_write, failed) * (double)br_size;
	out->send_msgs_per_sec = br_phase(s, t, br_make_send, failed);
	br_raw_ucx(s, u, br_size, t, out);
	out->raw_tcp_bytes_per_sec = bench_tcp_stream(addr, port, br_size, br_depth, 1, 1, t);
	out->raw_tcp_slots_bytes_per_sec =
	        bench_tcp_stream(addr, port, br_size, br_depth, br_depth, 1, t);
}

int bench_rdma_run(size_t size, unsigned int depth, double seconds, int reps, bool netns,
                   struct bench_rdma *out, char *err, size_t errlen)
{
	const char *tcp_addr = netns ? bench_netns_peer() : "127.0.0.1";
	uint16_t tcp_port = 0;
	int ctl = -1, st = 0, rc = -1;
	struct br_side s = { 0 };
	uint8_t blob[512], mblob[512];
	size_t n, mn, rlen;
	const void *mine;
	pid_t pid;
	uint64_t failed = 0;
	double fig[BR_FIGS][BR_REPS_MAX];
	bool ucx_all = true, fig_ok = true;
	struct bench_ucx *u = NULL;

	memset(out, 0, sizeof(*out));
	if (depth == 0 || depth > BR_DEPTH_MAX) {
		snprintf(err, errlen, "--depth must be 1..%u for the RDMA measurements",
		         BR_DEPTH_MAX);
		return -1;
	}
	if (reps < 1 || reps > BR_REPS_MAX) {
		snprintf(err, errlen, "--reps must be 1..%d for the RDMA measurements",
		         BR_REPS_MAX);
		return -1;
	}
	br_depth = depth;
	out->size = size;
	out->depth = depth;
	out->reps = reps;
	out->netns = netns;
	br_size = size;
	br_msg = size < 65536 ? size : 65536;
	if (size == 0 || size > BENCH_RDMA_SIZE_MAX) {
		snprintf(err, errlen, "--size must be 1..64M for the RDMA measurements");
		return -1;
	}
	pid = bench_responder_fork(netns, (unsigned int)(seconds * 4) + 60, br_child, &size, &ctl,
	                           err, errlen);
	if (pid < 0)
		return -1;
	if (read(ctl, &tcp_port, sizeof(tcp_port)) != (ssize_t)sizeof(tcp_port) ||
	    br_setup(&s, br_depth * size, 0) != 0 || !br_recv_blob(ctl, blob, sizeof(blob), &n) ||
	    !br_recv_blob(ctl, mblob, sizeof(mblob), &mn) ||
	    doca_rdma_export(s.rd, &mine, &rlen, &s.conn) != DOCA_SUCCESS ||
	    !br_send_blob(ctl, mine, rlen) ||
	    doca_rdma_connect(s.rd, blob, n, s.conn) != DOCA_SUCCESS ||
	    doca_mmap_create_from_export(NULL, mblob, mn, s.dev, &br_remote) != DOCA_SUCCESS ||
	    doca_mmap_get_memrange(br_remote, (void **)&br_rmem, &rlen) != DOCA_SUCCESS) {
		snprintf(err, errlen, "cannot set up the two RDMA sides (see the log lines)");
		goto done;
	}
	usleep(100 * 1000); /* the responder posts its receives */
	out->send_msg_size = br_msg;
	/* the responder exports the same buffer to raw UCX once, served from its own thread */
	if (write(ctl, "U", 1) != 1 || (u = bench_ucx_import(ctl)) == NULL)
		ucx_all = false;
	for (int k = 0; k < reps; k++) { /* interleaved: every figure sees the same machine */
		struct bench_rdma one = { .send_msg_size = br_msg };

		br_rep(&s, u, tcp_addr, tcp_port, seconds / 4 / reps, &one, &failed);
		ucx_all = ucx_all && one.raw_ucx;
		for (int f = 0; f < BR_FIGS; f++)
			fig[f][k] = *br_fig(&one, f);
	}
	for (int f = 0; f < BR_FIGS; f++) {
		*br_fig(out, f) = bench_median(fig[f], reps);
		/* the raw UCX figures may be missing (no UCX built in), no other */
		fig_ok = fig_ok && (*br_fig(out, f) > 0 || (f >= BR_GET && f <= BR_AM));
	}
	out->raw_ucx = ucx_all;
	if (u != NULL)
		bench_ucx_close(u);
	if (failed != 0 || !fig_ok)
		snprintf(err, errlen, "a phase failed (%llu task errors)",
		         (unsigned long long)failed);
	else
		rc = 0;
done:
	br_teardown(&s, br_remote);
	br_remote = NULL;
	close(ctl); /* the responder stops */
	if (pid > 0)
		(void)waitpid(pid, &st, 0);
	/* with --netns the pair goes with this process' namespace, as the responder's did */
	return rc;
}
