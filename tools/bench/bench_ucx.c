/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The raw UCX baseline of odma bench --xproc --transport ucx: what a program that drives UCX
 * itself gets on the same transport (UCX_TLS=tcp, the same device) and the same slots. The
 * exporter maps its region with ucp_mem_map, packs an rkey and serves from a thread that
 * sleeps on its worker's wake-up fd (as odma's exporter does: over TCP, one-sided gets are
 * emulated and need the exporter to progress); the importer keeps DEPTH ucp_get_nbx (or
 * ucp_put_nbx) in flight, each reposted from its completion; the put rate includes the flush
 * that waits for the last puts to arrive. (odma itself does not use UCX RMA over TCP:
 * it checks no remote range; see docs/host-dpu.md.)
 *
 * odma bench --rdma uses the same pair for its raw UCX rows (bench_ucx_rep_op): ucp_get_nbx,
 * ucp_put_nbx and ucp_am_send_nbx (eager, into a handler that drops the bytes) from the same
 * DEPTH slots, each phase ending with a flush of the endpoint inside the timed window, so a
 * put or a message counts only once the peer has it.
 */
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ucp/api/ucp.h>

#include "bench.h"

struct bench_ucx {
	ucp_context_h ctx;
	ucp_worker_h w;
	ucp_ep_h ep;
	ucp_rkey_h rkey;
	ucp_mem_h mem;
	pthread_t thr;
	volatile bool stop;
	int efd;
	uint64_t remote_base; /* importer: the exporter's buffer address */
};

#define BU_AM_ID 7 /* the exporter's sink for raw messages */

static bool bu_io(int fd, void *p, size_t n, bool wr)
{
	while (n) {
		ssize_t k = wr ? write(fd, p, n) : read(fd, p, n);

		if (k <= 0)
			return false;
		p = (uint8_t *)p + k;
		n -= (size_t)k;
	}
	return true;
}

static int bu_open(struct bench_ucx *u, bool wakeup)
{
	const char *dev = getenv("ODMA_BENCH_UCX_DEV");
	ucp_params_t p = { .field_mask = UCP_PARAM_FIELD_FEATURES,
		           .features = UCP_FEATURE_RMA | UCP_FEATURE_AM |
		                       (wakeup ? UCP_FEATURE_WAKEUP : 0) };
	ucp_worker_params_t wp = { 0 };
	ucp_config_t *cfg;

	if (dev != NULL && if_nametoindex(dev) == 0) { /* core/config's wording */
		fprintf(stderr,
		        "odma bench: ODMA_BENCH_UCX_DEV=\"%s\" is not a network interface UCX can "
		        "use (lo, eth0, ...); the raw UCX measurement fails, naming the device\n",
		        dev);
		return -1;
	}
	if (ucp_config_read(NULL, NULL, &cfg) != UCS_OK)
		return -1;
	(void)ucp_config_modify(cfg, "TLS", getenv("UCX_TLS") ? getenv("UCX_TLS") : "tcp");
	(void)ucp_config_modify(cfg, "NET_DEVICES", dev ? dev : "lo");
	if (ucp_init(&p, cfg, &u->ctx) != UCS_OK) {
		ucp_config_release(cfg);
		return -1;
	}
	ucp_config_release(cfg);
	return ucp_worker_create(u->ctx, &wp, &u->w) == UCS_OK ? 0 : -1;
}

static void *bu_serve(void *arg)
{
	struct bench_ucx *u = arg;
	struct pollfd pf = { .fd = u->efd, .events = POLLIN };

	while (!u->stop) {
		while (ucp_worker_progress(u->w) != 0)
			;
		if (ucp_worker_arm(u->w) == UCS_OK)
			(void)poll(&pf, 1, 100);
	}
	return NULL;
}

static ucs_status_t bu_sink(void *arg, const void *header, size_t header_length, void *data,
                            size_t length, const ucp_am_recv_param_t *param)
{
	(void)arg;
	(void)header;
	(void)header_length;
	(void)data;
	(void)length;
	(void)param;
	return UCS_OK; /* eager data: nothing kept */
}

int bench_ucx_export(int fd, void *buf, size_t len)
{
	static struct bench_ucx u;
	ucp_mem_map_params_t mp = { .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS |
		                                  UCP_MEM_MAP_PARAM_FIELD_LENGTH,
		                    .address = buf,
		                    .length = len };
	ucp_address_t *addr;
	void *rk;
	size_t alen, rklen;
	uint64_t hdr[3];

	ucp_am_handler_param_t ah = { .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID |
		                                    UCP_AM_HANDLER_PARAM_FIELD_CB,
		                      .id = BU_AM_ID,
		                      .cb = bu_sink };

	if (bu_open(&u, true) != 0 || ucp_worker_set_am_recv_handler(u.w, &ah) != UCS_OK ||
	    ucp_mem_map(u.ctx, &mp, &u.mem) != UCS_OK ||
	    ucp_rkey_pack(u.ctx, u.mem, &rk, &rklen) != UCS_OK ||
	    ucp_worker_get_address(u.w, &addr, &alen) != UCS_OK ||
	    ucp_worker_get_efd(u.w, &u.efd) != UCS_OK)
		return -1;
	hdr[0] = alen;
	hdr[1] = rklen;
	hdr[2] = (uint64_t)(uintptr_t)buf;
	if (!bu_io(fd, hdr, sizeof(hdr), true) || !bu_io(fd, addr, alen, true) ||
	    !bu_io(fd, rk, rklen, true))
		return -1;
	ucp_worker_release_address(u.w, addr);
	ucp_rkey_buffer_release(rk);
	return pthread_create(&u.thr, NULL, bu_serve, &u) == 0 ? 0 : -1;
}

/* Waits for @req (what a UCX _nbx call returned) by progressing the worker: whether it worked. */
static bool bu_wait(struct bench_ucx *u, void *req)
{
	ucs_status_t st = UCS_OK;

	if (UCS_PTR_IS_ERR(req))
		return false;
	if (UCS_PTR_IS_PTR(req)) {
		while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS)
			ucp_worker_progress(u->w);
		ucp_request_free(req);
	}
	return st == UCS_OK;
}

static bool bu_flush(struct bench_ucx *u)
{
	ucp_request_param_t prm = { 0 };

	return bu_wait(u, ucp_ep_flush_nbx(u->ep, &prm));
}

/*
 * One 8-byte get, waited for: UCX connects an endpoint on its first operation, which the
 * timed phases should not pay (on a loaded machine it took longer than a short phase).
 */
static bool bu_warm_up(struct bench_ucx *u)
{
	ucp_request_param_t prm = { 0 };
	uint64_t word;

	return bu_wait(u, ucp_get_nbx(u->ep, &word, sizeof(word), u->remote_base, u->rkey, &prm)) &&
	       bu_flush(u);
}

struct bench_ucx *bench_ucx_import(int fd)
{
	struct bench_ucx *u = calloc(1, sizeof(*u));
	ucp_ep_params_t ep = { .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS };
	uint64_t hdr[3];
	uint8_t *blob = NULL;

	if (u == NULL || !bu_io(fd, hdr, sizeof(hdr), false) || hdr[0] + hdr[1] > 65536 ||
	    (blob = malloc(hdr[0] + hdr[1])) == NULL || !bu_io(fd, blob, hdr[0] + hdr[1], false) ||
	    bu_open(u, false) != 0)
		goto fail;
	ep.address = (const ucp_address_t *)blob;
	if (ucp_ep_create(u->w, &ep, &u->ep) != UCS_OK ||
	    ucp_ep_rkey_unpack(u->ep, blob + hdr[0], &u->rkey) != UCS_OK)
		goto fail;
	u->remote_base = hdr[2];
	free(blob);
	if (!bu_warm_up(u)) {
		bench_ucx_close(u);
		return NULL;
	}
	return u;
fail:
	free(blob);
	free(u);
	return NULL;
}

struct bu_slot {
	struct bench_ucx *u;
	enum bench_ucx_op op;
	uint8_t *local;
	uint64_t remote;
	size_t size;
	uint64_t *done;
	bool *stop, *failed;
	int *inflight;
	bool idle; /* completed at once: the measuring loop posts it again */
};

static void bu_post(struct bu_slot *s);

static void bu_done(void *request, ucs_status_t status, void *user_data)
{
	struct bu_slot *s = user_data;

	ucp_request_free(request);
	(*s->inflight)--;
	if (status != UCS_OK) {
		*s->failed = *s->stop = true;
		return;
	}
	(*s->done)++;
	if (!*s->stop)
		bu_post(s);
}

static void bu_post(struct bu_slot *s)
{
	ucp_request_param_t prm = { .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
		                                    UCP_OP_ATTR_FIELD_USER_DATA,
		                    .cb.send = bu_done,
		                    .user_data = s };
	void *r;

	s->idle = false;
	if (s->op == BENCH_UCX_AM) {
		prm.op_attr_mask |= UCP_OP_ATTR_FIELD_FLAGS;
		prm.flags = UCP_AM_SEND_FLAG_EAGER;
	}
	if (s->op == BENCH_UCX_PUT)
		r = ucp_put_nbx(s->u->ep, s->local, s->size, s->remote, s->u->rkey, &prm);
	else if (s->op == BENCH_UCX_AM)
		r = ucp_am_send_nbx(s->u->ep, BU_AM_ID, NULL, 0, s->local, s->size, &prm);
	else
		r = ucp_get_nbx(s->u->ep, s->local, s->size, s->remote, s->u->rkey, &prm);
	if (UCS_PTR_IS_PTR(r)) {
		(*s->inflight)++;
		return;
	}
	if (UCS_PTR_IS_ERR(r)) {
		*s->failed = *s->stop = true;
		return;
	}
	(*s->done)++; /* completed at once (a put whose bytes UCX buffered) */
	s->idle = true;
}

/*
 * Flushes the endpoint: every put and message before it has reached the peer. A put completes
 * when UCX may reuse its buffer (over TCP: once buffered), while a DOCA DMA write completes
 * when the exporter has the bytes; the put rate counts this wait.
 */
int bench_ucx_rep_op(struct bench_ucx *u, enum bench_ucx_op op, uint8_t *local, uint64_t remote,
                     uint64_t remote_stride, size_t size, uint32_t depth, double seconds,
                     struct bench_rep *r)
{
	struct bu_slot *s = calloc(depth, sizeof(*s));
	uint64_t t0 = bench_now_ns(), end = t0 + (uint64_t)(seconds * 1e9), done = 0, t1;
	bool stop = false, failed = false;
	int inflight = 0;

	if (s == NULL)
		return -1;
	for (uint32_t i = 0; i < depth; i++) {
		s[i] = (struct bu_slot){ u,
			                 op,
			                 local + (size_t)i * size,
			                 remote + (uint64_t)i * remote_stride,
			                 size,
			                 &done,
			                 &stop,
			                 &failed,
			                 &inflight,
			                 false };
		bu_post(&s[i]);
	}
	/* past the window only while nothing completed yet (a loaded machine), for 10 s at most */
	while ((bench_now_ns() < end || (done == 0 && bench_now_ns() < end + 10000000000ull)) &&
	       !stop) {
		ucp_worker_progress(u->w);
		for (uint32_t i = 0; i < depth && !stop; i++)
			if (s[i].idle)
				bu_post(&s[i]);
	}
	/* a get is done when its bytes are here; puts and messages once flushed to the peer */
	r->tasks = done;
	stop = true;
	t1 = bench_now_ns();
	while (inflight > 0)
		ucp_worker_progress(u->w);
	if (op != BENCH_UCX_GET) {
		if (!bu_flush(u))
			failed = true;
		t1 = bench_now_ns();
		r->tasks = done;
	}
	r->seconds = (double)(t1 - t0) / 1e9;
	free(s);
	return failed ? -1 : 0;
}

int bench_ucx_rep(struct bench_ucx *u, uint8_t *local, uint64_t remote, size_t size, uint32_t depth,
                  double seconds, bool write, struct bench_rep *r)
{
	return bench_ucx_rep_op(u, write ? BENCH_UCX_PUT : BENCH_UCX_GET, local, remote, size, size,
	                        depth, seconds, r);
}

uint64_t bench_ucx_remote_base(const struct bench_ucx *u)
{
	return u->remote_base;
}

/* Closes the importer's endpoint (flushing it; forced after 2 s if the peer is gone). */
static void bu_close_ep(struct bench_ucx *u)
{
	ucp_request_param_t prm = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
		                    .flags = UCP_EP_CLOSE_FLAG_FORCE };
	void *req = ucp_ep_close_nbx(u->ep, &prm);
	uint64_t end = bench_now_ns() + 2000000000ull;

	if (UCS_PTR_IS_PTR(req)) {
		while (ucp_request_check_status(req) == UCS_INPROGRESS && bench_now_ns() < end)
			ucp_worker_progress(u->w);
		ucp_request_free(req);
	}
}

void bench_ucx_close(struct bench_ucx *u)
{
	if (u == NULL)
		return;
	ucp_rkey_destroy(u->rkey);
	bu_close_ep(u);
	ucp_worker_destroy(u->w);
	ucp_cleanup(u->ctx);
	free(u);
}
