/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * odma bench --xproc: cross-process copies as two processes, beside the raw system call.
 * A forked exporter (host side, b1:00.0 of the default profile) maps and exports a region;
 * this process, the importer (DPU side, 03:00.0), imports it and reads from it with DOCA
 * DMA tasks (DEPTH in flight, each resubmitted from its completion callback, slot i of the
 * exported region into slot i of a local region), and, in the same run, with one raw
 * process_vm_readv per copy on the same slots: the rate a program that calls the syscall
 * itself gets. Sizes 1 KiB, 64 KiB and 2 MiB (or --size); medians of --reps. With
 * --transport ucx the import goes over odma's UCX transport and the baseline is raw UCX
 * ucp_get_nbx on the same slots over the same device (bench_ucx.c); sizes 4 KiB and 1 MiB,
 * and each also as writes (DMA into the export, which is then read-write, beside raw
 * ucp_put_nbx), and beside both a raw TCP stream over the same link to a sink in the exporter
 * (bench_tcp.c: messages of the size, depth unacknowledged; from one buffer, and from slot i into
 * slot i): the link's limit. With --netns the two sides are in two network namespaces
 * (bench_netns.c).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "bench.h"

#define XB_HOST_PCI "b1:00.0"
#define XB_DPU_PCI "03:00.0"

struct xb {
	struct bench_ucx *ucx; /* --transport ucx: the raw UCX baseline */
	uint16_t tcp_port;     /* --transport ucx: the exporter's raw TCP sink */
	const char *tcp_addr;  /* and its address (loopback, or its end of the veth pair) */
	pid_t child;
	int fd;
	uint8_t *remote; /* the exporter's region (its address) */
	uint8_t *local;
	size_t len;
	struct doca_dev *dev;
	struct doca_mmap *rmap, *lmap;
};

struct xb_run {
	struct doca_pe *pe;
	uint64_t done;
	bool stop, failed;
};

/*
 * The exporter: maps and exports @len bytes, sends {desc len, addr} and the descriptor (and,
 * with @ucx, what the raw UCX baseline needs), waits.
 */
static void xb_exporter(int fd, size_t len, bool ucx)
{
	struct doca_dev *dev = bench_open_pci(XB_HOST_PCI);
	uint8_t *buf = aligned_alloc(4096, len);
	struct doca_mmap *m;
	uint64_t hdr[2];
	const void *d;
	size_t dlen;
	char c;

	if (dev == NULL || buf == NULL)
		_exit(2);
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	if (doca_mmap_create(&m) || doca_mmap_set_memrange(m, buf, len) ||
	    doca_mmap_set_permissions(m, ucx ? DOCA_ACCESS_FLAG_PCI_READ_WRITE
	                                     : DOCA_ACCESS_FLAG_PCI_READ_ONLY) ||
	    doca_mmap_add_dev(m, dev) || doca_mmap_start(m) ||
	    doca_mmap_export_pci(m, dev, &d, &dlen))
		_exit(3);
	hdr[0] = dlen;
	hdr[1] = (uint64_t)(uintptr_t)buf;
	if (!bench_full_io(fd, hdr, sizeof(hdr), true) || !bench_full_io(fd, (void *)d, dlen, true))
		_exit(4);
	if (ucx && bench_ucx_export(fd, buf, len) != 0)
		_exit(5);
	if (ucx) { /* the raw TCP sink, on every address of this side's namespace */
		uint16_t port = 0;

		if (bench_tcp_sink_start("0.0.0.0", &port) != 0 ||
		    !bench_full_io(fd, &port, sizeof(port), true))
			_exit(6);
	}
	(void)bench_full_io(fd, &c, 1, false); /* until the importer is done */
	_exit(0);
}

static int xb_open_pair(struct xb *x, size_t len, bool ucx, bool netns, char *err, size_t errlen)
{
	int sv[2];
	uint64_t hdr[2];
	uint8_t desc[1024];

	memset(x, 0, sizeof(*x));
	x->len = len;
	if (ucx) /* both sides: the export carries a UCX address, the import takes it */
		setenv("ODMA_TRANSPORT", "ucx", 1);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0 || (x->child = fork()) < 0)
		return snprintf(err, errlen, "socketpair/fork: %s", strerror(errno)), -1;
	if (x->child == 0) {
		close(sv[0]);
		if (netns)
			bench_netns_child(sv[1]); /* returns in the exporter proper */
		xb_exporter(sv[1], len, ucx);
	}
	close(sv[1]);
	x->fd = sv[0];
	if (netns && bench_netns_give(x->child, x->fd, err, errlen) != 0)
		return -1;
	if (!bench_full_io(x->fd, hdr, sizeof(hdr), false) || hdr[0] > sizeof(desc) ||
	    !bench_full_io(x->fd, desc, hdr[0], false))
		return snprintf(err, errlen, "the exporter (device %s) failed", XB_HOST_PCI), -1;
	if (ucx && (x->ucx = bench_ucx_import(x->fd)) == NULL)
		return snprintf(err, errlen,
		                "the raw UCX baseline could not connect (odma built without "
		                "UCX, or no UCX device: ODMA_BENCH_UCX_DEV)"),
		       -1;
	if (ucx && !bench_full_io(x->fd, &x->tcp_port, sizeof(x->tcp_port), false))
		return snprintf(err, errlen, "the exporter's raw TCP sink did not start"), -1;
	x->tcp_addr = netns ? bench_netns_peer() : "127.0.0.1";
	x->remote = (uint8_t *)(uintptr_t)hdr[1];
	x->local = aligned_alloc(4096, len);
	x->dev = bench_open_pci(XB_DPU_PCI);
	if (x->local == NULL || x->dev == NULL)
		return snprintf(err, errlen, "no DPU-side device %s (default profile bf3)",
		                XB_DPU_PCI),
		       -1;
	memset(x->local, 0, len);
	if (doca_mmap_create_from_export(NULL, desc, hdr[0], x->dev, &x->rmap) != DOCA_SUCCESS ||
	    doca_mmap_create(&x->lmap) || doca_mmap_set_memrange(x->lmap, x->local, len) ||
	    doca_mmap_add_dev(x->lmap, x->dev) || doca_mmap_start(x->lmap))
		return snprintf(err, errlen,
		                "import or local mmap failed (ptrace rights? docs/host-dpu.md)"),
		       -1;
	return 0;
}

static void xb_close(struct xb *x)
{
	bench_ucx_close(x->ucx);
	if (x->rmap != NULL)
		doca_mmap_destroy(x->rmap);
	if (x->lmap != NULL)
		doca_mmap_destroy(x->lmap);
	if (x->dev != NULL)
		doca_dev_close(x->dev);
	if (x->child > 0) {
		(void)bench_full_io(x->fd, "X", 1, true);
		close(x->fd);
		waitpid(x->child, NULL, 0);
	}
	bench_netns_close();
	free(x->local);
}

/* One raw process_vm_readv per copy of @size bytes, slots 0..depth-1 in turn. */
static void xb_raw_rep(const struct xb *x, size_t size, uint32_t depth, double seconds,
                       struct bench_rep *r)
{
	uint64_t t0 = bench_now_ns(), end = t0 + (uint64_t)(seconds * 1e9), n = 0;
	uint32_t slot = 0;

	do {
		for (int k = 0; k < 32; k++) {
			struct iovec l = { x->local + (size_t)slot * size, size };
			struct iovec rv = { x->remote + (size_t)slot * size, size };

			if (process_vm_readv(x->child, &l, 1, &rv, 1, 0) != (ssize_t)size)
				break;
			n++;
			if (++slot == depth)
				slot = 0;
		}
	} while (bench_now_ns() < end);
	r->tasks = n;
	r->seconds = (double)(bench_now_ns() - t0) / 1e9;
}

struct xb_raw_thread {
	const struct xb *x;
	size_t size;
	uint32_t depth, first, step;
	pthread_barrier_t *go;
	uint64_t end_ns, tasks;
};

static void *xb_raw_thread_main(void *arg)
{
	struct xb_raw_thread *t = arg;
	uint32_t slot = t->first % t->depth;
	uint64_t n = 0;

	pthread_barrier_wait(t->go);
	do {
		for (int k = 0; k < 32; k++) {
			struct iovec l = { t->x->local + (size_t)slot * t->size, t->size };
			struct iovec rv = { t->x->remote + (size_t)slot * t->size, t->size };

			if (process_vm_readv(t->x->child, &l, 1, &rv, 1, 0) != (ssize_t)t->size)
				break;
			n++;
			slot += t->step;
			if (slot >= t->depth)
				slot -= t->depth;
		}
	} while (bench_now_ns() < t->end_ns);
	t->tasks = n;
	return NULL;
}

/* The raw call on @threads threads at once: thread j reads slots j, j+N, ... */
static void xb_raw_mt_rep(const struct xb *x, size_t size, uint32_t depth, double seconds,
                          int threads, struct bench_rep *r)
{
	struct xb_raw_thread t[64];
	pthread_t tid[64];
	pthread_barrier_t go;
	int n = threads < 1 ? 1 : threads > 64 ? 64 : threads, started = 1;
	uint64_t t0;

	memset(r, 0, sizeof(*r));
	pthread_barrier_init(&go, NULL, (unsigned int)n);
	for (int j = 0; j < n; j++)
		t[j] = (struct xb_raw_thread){ .x = x,
			                       .size = size,
			                       .depth = depth,
			                       .first = (uint32_t)j,
			                       .step = (uint32_t)n,
			                       .go = &go };
	for (int j = 1; j < n && pthread_create(&tid[j], NULL, xb_raw_thread_main, &t[j]) == 0; j++)
		started++;
	if (started < n) {
		pthread_barrier_destroy(&go);
		return;
	}
	t0 = bench_now_ns();
	for (int j = 0; j < n; j++)
		t[j].end_ns = t0 + (uint64_t)(seconds * 1e9);
	xb_raw_thread_main(&t[0]);
	for (int j = 1; j < n; j++)
		pthread_join(tid[j], NULL);
	r->seconds = (double)(bench_now_ns() - t0) / 1e9;
	for (int j = 0; j < n; j++)
		r->tasks += t[j].tasks;
	pthread_barrier_destroy(&go);
}

static void xb_done(struct doca_dma_task_memcpy *t, union doca_data tud, union doca_data cud)
{
	struct xb_run *run = cud.ptr;
	struct doca_buf *dst = doca_dma_task_memcpy_get_dst(t);

	(void)tud;
	run->done++;
	if (doca_task_get_status(doca_dma_task_memcpy_as_task(t)) != DOCA_SUCCESS) {
		run->failed = run->stop = true;
		return;
	}
	if (!run->stop && doca_buf_reset_data_len(dst) == DOCA_SUCCESS &&
	    doca_task_submit(doca_dma_task_memcpy_as_task(t)) != DOCA_SUCCESS)
		run->failed = run->stop = true;
}

static int xb_odma_loop(struct xb_run *run, struct doca_dma_task_memcpy **t, uint32_t depth,
                        double seconds, struct bench_rep *r)
{
	uint64_t t0 = bench_now_ns(), end = t0 + (uint64_t)(seconds * 1e9), t1, done;

	for (uint32_t i = 0; i < depth; i++)
		if (doca_task_submit(doca_dma_task_memcpy_as_task(t[i])) != DOCA_SUCCESS)
			return -1;
	do {
		for (int k = 0; k < 32; k++)
			doca_pe_progress(run->pe);
	} while (bench_now_ns() < end && !run->stop);
	t1 = bench_now_ns();
	done = run->done;
	run->stop = true;
	for (uint64_t k = 0; run->done < done + depth && k < 100000000ULL && !run->failed; k++)
		doca_pe_progress(run->pe);
	r->tasks = done;
	r->seconds = (double)(t1 - t0) / 1e9;
	return run->failed ? -1 : 0;
}

/*
 * DOCA DMA reads of @size bytes at @depth, slot i of the export into slot i locally (with
 * @write: writes, slot i locally into slot i of the export).
 */
static int xb_odma_rep(const struct xb *x, size_t size, uint32_t depth, double seconds, bool write,
                       struct bench_rep *r)
{
	struct xb_run run = { 0 };
	struct doca_buf_inventory *inv = NULL;
	struct doca_dma_task_memcpy **t = calloc(depth, sizeof(*t));
	struct doca_buf *s, *d;
	struct doca_dma *dma = NULL;
	struct doca_ctx *ctx;
	enum doca_ctx_states st = DOCA_CTX_STATE_RUNNING;
	int rc = -1;

	if (t == NULL || doca_buf_inventory_create(2 * depth, &inv) ||
	    doca_buf_inventory_start(inv) || doca_pe_create(&run.pe) ||
	    doca_dma_create(x->dev, &dma))
		goto out;
	ctx = doca_dma_as_ctx(dma);
	if (doca_ctx_set_user_data(ctx, (union doca_data){ .ptr = &run }) ||
	    doca_dma_task_memcpy_set_conf(dma, xb_done, xb_done, depth) ||
	    doca_pe_connect_ctx(run.pe, ctx) || doca_ctx_start(ctx))
		goto out;
	for (uint32_t i = 0; i < depth; i++)
		if (doca_buf_inventory_buf_get_by_data(
		            inv, write ? x->lmap : x->rmap,
		            (write ? x->local : x->remote) + (size_t)i * size, size, &s) ||
		    doca_buf_inventory_buf_get_by_addr(
		            inv, write ? x->rmap : x->lmap,
		            (write ? x->remote : x->local) + (size_t)i * size, size, &d) ||
		    doca_dma_task_memcpy_alloc_init(dma, s, d, (union doca_data){ .u64 = i },
		                                    &t[i]))
			goto out;
	rc = xb_odma_loop(&run, t, depth, seconds, r);
	/* a read brings the exporter's pattern; a write's bytes are checked by the reads after */
	r->verified = rc == 0 && (write || memcmp(x->local, (uint8_t[]){ 3, 10, 17, 24 }, 4) == 0);
out:
	/* every task has completed (or none was submitted): release them, then stop */
	for (uint32_t i = 0; t != NULL && i < depth && t[i] != NULL; i++) {
		doca_buf_dec_refcount((struct doca_buf *)doca_dma_task_memcpy_get_src(t[i]), NULL);
		doca_buf_dec_refcount(doca_dma_task_memcpy_get_dst(t[i]), NULL);
		doca_task_free(doca_dma_task_memcpy_as_task(t[i]));
	}
	if (dma != NULL) {
		ctx = doca_dma_as_ctx(dma);
		(void)doca_ctx_stop(ctx);
		for (long k = 0; k < 10000000 && doca_ctx_get_state(ctx, &st) == DOCA_SUCCESS &&
		                 st != DOCA_CTX_STATE_IDLE;
		     k++)
			doca_pe_progress(run.pe);
		doca_dma_destroy(dma);
	}
	if (run.pe != NULL)
		doca_pe_destroy(run.pe);
	if (inv != NULL) {
		doca_buf_inventory_stop(inv);
		doca_buf_inventory_destroy(inv);
	}
	free(t);
	return rc;
}

static double xb_rate(const struct bench_rep *r)
{
	return r->seconds > 0 ? (double)r->tasks / r->seconds : 0;
}

static double xb_pingpong; /* the same-run cross-core ping-pong (ns), the noise indicator */

/*
 * One row's medians: odma's tasks/s, the raw call's (on 1 and N threads), raw TCP bytes/s from
 * one hot buffer and from slot i into slot i as odma's tasks copy (bench_tcp.c).
 */
struct xb_row {
	double odma, raw, rawmt, tcp, tcp_slots;
};

static void xb_print(const struct bench_cfg *c, size_t size, bool write, const struct xb_row *w,
                     int threads, bool first, bool last)
{
	double odma = w->odma, raw = w->raw, rawmt = w->rawmt, odma_b = odma * (double)size;

	if (c->json) {
		printf("%s{\"mode\": \"xproc\", \"transport\": \"%s\", \"op\": \"%s\", \"engine\": "
		       "\"%s\", \"size\": %zu, \"depth\": %u, \"tasks_per_sec\": %.1f, "
		       "\"bytes_per_sec\": %.1f, \"raw_syscall_per_sec\": %.1f, "
		       "\"raw_bytes_per_sec\": %.1f, \"ratio\": %.3f, \"raw_threads\": %d, "
		       "\"raw_mt_syscall_per_sec\": %.1f, \"raw_mt_bytes_per_sec\": %.1f, "
		       "\"ratio_raw_mt\": %.3f, \"pingpong_ns\": %.1f, \"netns\": %s",
		       first ? "[" : ",\n ", c->ucx ? "ucx" : "process", write ? "write" : "read",
		       getenv("ODMA_ENGINE") ? getenv("ODMA_ENGINE") : "default", size, c->depth,
		       odma, odma_b, raw, raw * (double)size, raw > 0 ? odma / raw : 0, threads,
		       rawmt, rawmt * (double)size, rawmt > 0 ? odma / rawmt : 0, xb_pingpong,
		       c->netns ? "true" : "false");
		if (c->ucx)
			printf(", \"link\": \"%s\", \"raw_tcp_bytes_per_sec\": %.1f, "
			       "\"ratio_tcp\": %.3f, "
			       "\"raw_tcp_slots_bytes_per_sec\": %.1f, \"ratio_tcp_slots\": %.3f",
			       bench_link(), w->tcp, w->tcp > 0 ? odma_b / w->tcp : 0, w->tcp_slots,
			       w->tcp_slots > 0 ? odma_b / w->tcp_slots : 0);
		printf("}%s", last ? "]\n" : "");
		return;
	}
	if (first)
		printf("# cross-process %s over %s, importer (DPU side %s) %s exporter (host "
		       "side %s), depth %u, reps %d; raw xN: the call on the engine's %d "
		       "threads%s\n"
		       "%s%8s %12s %9s %14s %9s %7s %9s %7s%s\n",
		       c->ucx ? "reads and writes" : "reads",
		       c->netns ? "UCX (TCP on a veth, two network namespaces)"
		       : c->ucx ? "UCX (TCP)"
		                : "CMA",
		       XB_DPU_PCI, c->ucx ? "and" : "from", XB_HOST_PCI, c->depth, c->reps, threads,
		       c->ucx ? "; tcp: a raw TCP stream over the same link, as many messages "
		                "unacknowledged, from one hot buffer; "
		                "slots: the same from slot i into slot i"
		              : "",
		       c->ucx ? "   op " : "", "size", "odma Mt/s", "GB/s",
		       c->ucx ? "raw get/put M/s" : "raw readv M/s", "GB/s", "x raw", "raw xN",
		       "x rawN", c->ucx ? "  tcp GB/s   x tcp slots GB/s x slots" : "");
	if (c->ucx)
		printf("%5s ", write ? "write" : "read");
	printf("%8zu %12.4f %9.2f %14.4f %9.2f %7.2f %9.2f %7.2f", size, odma / 1e6, odma_b / 1e9,
	       raw / 1e6, raw * (double)size / 1e9, raw > 0 ? odma / raw : 0,
	       rawmt * (double)size / 1e9, rawmt > 0 ? odma / rawmt : 0);
	if (c->ucx)
		printf(" %10.2f %7.2f %11.2f %7.2f", w->tcp / 1e9, w->tcp > 0 ? odma_b / w->tcp : 0,
		       w->tcp_slots / 1e9, w->tcp_slots > 0 ? odma_b / w->tcp_slots : 0);
	printf("\n");
}

int bench_xproc_run(const struct bench_cfg *c, bool size_given)
{
	static const size_t sizes[] = { 1024, 65536, 2097152 };
	static const size_t ucx_sizes[] = { 4096, 1048576, 0 }; /* the two criteria */
	const size_t *sz = size_given ? &c->size : c->ucx ? ucx_sizes : sizes;
	int n = size_given ? 1 : c->ucx ? 2 : 3;
	int ops = c->ucx ? 2 : 1; /* UCX: reads, then writes, of each size */
	size_t biggest = 0;
	double rep_s = c->seconds / c->reps;
	struct xb x;
	char err[200];
	int rc = 0;

	for (int i = 0; i < n; i++)
		biggest = sz[i] > biggest ? sz[i] : biggest;
	if (size_given) {
		uint64_t maxbuf = bench_odma_probe_max_buf_size();

		if (maxbuf != 0 && c->size > maxbuf) {
			fprintf(stderr,
			        "odma-bench: --xproc: "
			        "--size %zu is above the device's max_buf_size (%llu bytes): "
			        "each copy is one DMA task; give a size up to that\n",
			        c->size, (unsigned long long)maxbuf);
			return 1;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	if (c->netns && bench_netns_enter(err, sizeof(err)) != 0) {
		fprintf(stderr, "odma-bench: %s\n", err);
		return 1;
	}
	xb_pingpong = c->no_pingpong ? 0 : bench_pingpong_ns();
	bench_busy_check(xb_pingpong, c->busy_ns);
	if (xb_open_pair(&x, biggest * c->depth, c->ucx, c->netns, err, sizeof(err)) != 0) {
		fprintf(stderr, "odma-bench: --xproc: %s\n", err);
		xb_close(&x);
		return 1;
	}
	for (int j = 0; j < n * ops && rc == 0; j++) {
		double ro[99], rr[99], rt[99], tcp[99] = { 0 }, tcps[99] = { 0 };
		int threads = bench_engine_threads(), i = j / ops;
		bool write = j % ops == 1;
		struct bench_rep r;

		for (int k = 0; k < c->reps && rc == 0;
		     k++) { /* interleaved: both see one machine */
			memset(&r, 0, sizeof(r));
			if (xb_odma_rep(&x, sz[i], c->depth, rep_s, write, &r) != 0) {
				fprintf(stderr,
				        "odma-bench: --xproc: a DMA %s failed at size %zu\n",
				        write ? "write" : "read", sz[i]);
				rc = 1;
			}
			ro[k] = xb_rate(&r);
			memset(&r, 0, sizeof(r));
			if (x.ucx != NULL &&
			    bench_ucx_rep(x.ucx, x.local, (uint64_t)(uintptr_t)x.remote, sz[i],
			                  c->depth, rep_s, write, &r) != 0) {
				fprintf(stderr, "odma-bench: --xproc: raw ucp_%s_nbx failed\n",
				        write ? "put" : "get");
				rc = 1;
			} else if (x.ucx == NULL) {
				xb_raw_rep(&x, sz[i], c->depth, rep_s, &r);
			}
			rr[k] = xb_rate(&r);
			rt[k] = rr[k];
			if (threads > 1 && x.ucx == NULL) { /* CMA: the call on N threads */
				xb_raw_mt_rep(&x, sz[i], c->depth, rep_s, threads, &r);
				rt[k] = xb_rate(&r);
			}
			if (x.ucx != NULL && rc == 0 &&
			    ((tcp[k] = bench_tcp_stream(x.tcp_addr, x.tcp_port, sz[i], c->depth, 1,
			                                1, rep_s)) <= 0 ||
			     (tcps[k] = bench_tcp_stream(x.tcp_addr, x.tcp_port, sz[i], c->depth,
			                                 c->depth, c->depth, rep_s)) <= 0)) {
				fprintf(stderr,
				        "odma-bench: --xproc: the raw TCP stream to %s failed\n",
				        x.tcp_addr);
				rc = 1;
			}
		}
		if (rc == 0) {
			struct xb_row w = { bench_median(ro, c->reps), bench_median(rr, c->reps),
				            bench_median(rt, c->reps), bench_median(tcp, c->reps),
				            bench_median(tcps, c->reps) };

			xb_print(c, sz[i], write, &w, threads, j == 0, j == n * ops - 1);
		}
	}
	xb_close(&x);
	return rc;
}
