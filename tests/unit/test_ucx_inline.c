/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Inline progress of the UCX transport (odma_tp_poll, transport.h): a thread waiting for its
 * ios that polls does the transport's work itself, so their completions run on it (what
 * spares the service thread a wake-up per request); odma_tp_poll_end hands the work back.
 * Endpoints' and listeners' callbacks may run on the polling thread too. An endpoint's queued
 * messages travel in bundles; the doorbells its callbacks ring are written after what they
 * queued. This process is the exporter and the importer (loopback, UCX forced).
 */
#include <inttypes.h>
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <doca_log.h>

#include "core/exec/exec.h"
#include "core/transport/transport.h"
#include "core/transport/ucx_int.h"
#include "test_util.h"
#include "util/codec.h"

static uint8_t region[65536], mine[4096];
static struct odma_tp_region *reg;
static struct odma_tp_remote rm;

struct iowait {
	atomic_bool done;
	doca_error_t st;
	pthread_t on; /* the thread its completion ran on */
};

static void io_done(struct odma_tp_io *io, doca_error_t st)
{
	struct iowait *w = io->arg;

	w->st = st;
	w->on = pthread_self();
	atomic_store(&w->done, true);
}

/* One 4 KiB read, polled for by this thread; whether its completion ran here. */
static bool read_polled(uint64_t off)
{
	struct iowait w = { .st = DOCA_ERROR_UNKNOWN };
	struct odma_tp_io io = { .remote = &rm,
		                 .local = mine,
		                 .remote_addr = (uint64_t)(uintptr_t)region + off,
		                 .len = sizeof(mine),
		                 .done = io_done,
		                 .arg = &w };
	uint64_t end = odma_now_ns() + 5000000000ull;

	assert_int_equal(odma_tp_io_start(&io), DOCA_SUCCESS);
	while (!atomic_load(&w.done) && odma_now_ns() < end)
		odma_tp_poll();
	assert_true(atomic_load(&w.done));
	assert_int_equal(w.st, DOCA_SUCCESS);
	assert_memory_equal(mine, region + off, sizeof(mine));
	return pthread_equal(w.on, pthread_self());
}

/* Exports @len bytes at @at with @perms and attaches @rm to them over UCX; the region. */
static struct odma_tp_region *export_attach(void *at, size_t len, uint32_t perms,
                                            struct odma_tp_remote *rm2)
{
	struct odma_tp_reach r = { 0 };
	uint8_t issued[ODMA_TP_ISSUED_MAX];
	size_t issued_len = 0;
	struct odma_tp_region *g = odma_tp_region_add((uint64_t)(uintptr_t)at, len, perms);

	assert_non_null(g);
	odma_tp_region_publish(g, "probe", 5);
	assert_int_equal(odma_tp_reach_self(&r), DOCA_SUCCESS);
	assert_true(r.net_len > 0);
	r.addr = g->addr;
	r.len = g->len;
	r.perms = g->perms;
	r.region_id = g->id;
	r.generation = g->hdr.generation;
	memcpy(r.key, g->hdr.key, 16);
	assert_int_equal(odma_tp_attach(odma_tp_find("ucx"), &r, rm2, issued, &issued_len),
	                 DOCA_SUCCESS);
	return g;
}

static FILE *log_file; /* the warnings of the whole run, from before the transport starts */

static int setup(void **state)
{
	struct doca_log_backend *be;

	(void)state;
	log_file = tmpfile();
	if (log_file == NULL ||
	    doca_log_backend_create_with_file_sdk(log_file, &be) != DOCA_SUCCESS ||
	    doca_log_backend_set_sdk_level(be, DOCA_LOG_LEVEL_WARNING) != DOCA_SUCCESS)
		return -1;
	setenv("ODMA_TRANSPORT", "ucx", 1);
	/*
	 * Deadlines long enough for 70,000 reads under qemu-user (more_requests_than_slots: they
	 * are set at the submit, and the last ones wait for slots); set before any thread reads it
	 */
	setenv("ODMA_TRANSPORT_TIMEOUT_MS", "60000", 0);
	for (size_t i = 0; i < sizeof(region); i++)
		region[i] = (uint8_t)(i * 29 + 3);
	reg = export_attach(region, sizeof(region), ODMA_TP_READ, &rm);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	odma_tp_detach(&rm);
	odma_tp_region_revoke(reg);
	return 0;
}

/*
 * A polling thread takes its completions itself. (The parked service thread still does a
 * round every millisecond, so on a loaded machine it may take any number of them: the test
 * asks only that this thread takes one, within up to 20,000 reads, whatever the machine does.)
 */
static void test_polled_here(void **state)
{
	unsigned int here = 0;

	(void)state;
	for (int i = 0; i < 20000 && here == 0; i++)
		here += read_polled((uint64_t)(i % 16) * sizeof(mine));
	assert_true(here >= 1);
	assert_true(atomic_load(&odma_ux.inline_ns) != 0);
	odma_tp_poll_end(); /* this thread sleeps now: the service thread takes over */
	assert_true(atomic_load(&odma_ux.inline_ns) == 0);
}

/* The server side of test_with_endpoints: what its accepted endpoint received, and where. */
struct msgwait {
	atomic_uint got;
	atomic_bool here; /* a message's callback ran on the polling thread */
	pthread_t poller;
	uint8_t last[64];
	atomic_bool closed;
};

static bool srv_recv(struct odma_tp_ep *ep, const void *bytes, size_t len, uint32_t imm, void *arg)
{
	struct msgwait *w = arg;

	(void)ep;
	if (len <= sizeof(w->last) && imm == 77)
		memcpy(w->last, bytes, len);
	if (pthread_equal(pthread_self(), w->poller))
		atomic_store(&w->here, true);
	atomic_fetch_add(&w->got, 1);
	return false;
}

static void srv_close(struct odma_tp_ep *ep, doca_error_t why, void *arg)
{
	(void)ep;
	(void)why;
	atomic_store(&((struct msgwait *)arg)->closed, true);
}

static struct odma_tp_ep *accepted;

static void srv_accept(struct odma_tp_ep *ep, void *arg)
{
	struct odma_tp_ep_cbs cbs = { .on_recv = srv_recv, .on_close = srv_close, .arg = arg };

	odma_tp_ep_set_cbs(ep, &cbs);
	accepted = ep;
}

/*
 * With a listener and endpoints open, a polling thread still does the transport's work: its
 * reads complete on it, and so may an endpoint's callbacks (they take only their own locks
 * and never wait for the worker). Every message still arrives, once, in order.
 */
static void test_with_endpoints(void **state)
{
	struct msgwait w = { .poller = pthread_self() };
	struct odma_tp_ep_cbs none = { 0 };
	struct odma_tp_ep *cl = NULL;
	uint16_t port = 0; /* the kernel's pick */
	unsigned int here = 0, sent = 0;
	void *listener;
	uint64_t end;

	(void)state;
	assert_int_equal(odma_tp_listen("127.0.0.1", &port, srv_accept, NULL, &w, &listener),
	                 DOCA_SUCCESS);
	assert_int_equal(odma_tp_connect("127.0.0.1", port, &none, &cl), DOCA_SUCCESS);
	for (int i = 0; i < 20000 && here == 0; i++)
		here += read_polled((uint64_t)(i % 16) * sizeof(mine));
	assert_true(here >= 1);
	/* messages sent and polled for here: each arrives once, the last one last */
	end = odma_now_ns() + 10000000000ull;
	for (uint8_t k = 1; odma_now_ns() < end && (sent < 200 || !atomic_load(&w.here)); k++) {
		uint8_t msg[16];

		memset(msg, k, sizeof(msg));
		assert_int_equal(odma_tp_ep_send(cl, msg, sizeof(msg), 77, NULL, NULL),
		                 DOCA_SUCCESS);
		sent++;
		while (atomic_load(&w.got) < sent && odma_now_ns() < end)
			odma_tp_poll();
		assert_int_equal(atomic_load(&w.got), sent);
		assert_int_equal(w.last[0], k);
	}
	assert_true(atomic_load(&w.here));
	odma_tp_poll_end();
	odma_tp_ep_close(cl);
	end = odma_now_ns() + 10000000000ull;
	while (!atomic_load(&w.closed) && odma_now_ns() < end)
		usleep(1000);
	assert_true(atomic_load(&w.closed));
	odma_tp_ep_close(accepted);
	odma_tp_listen_close(listener);
}

/*
 * odma_tp_poll_end while the service thread sleeps unparked (poll(-1) or its 20 ms wait) must
 * leave it counted as asleep, so the next job's enqueue still kicks it: an io started after,
 * with nobody polling, completes (it once waited for unrelated traffic).
 */
static void test_poll_end_keeps_kick(void **state)
{
	struct iowait w = { .st = DOCA_ERROR_UNKNOWN };
	struct odma_tp_io io = { .remote = &rm,
		                 .local = mine,
		                 .remote_addr = (uint64_t)(uintptr_t)region,
		                 .len = sizeof(mine),
		                 .done = io_done,
		                 .arg = &w };
	bool sleeping = false, parked = true;

	(void)state;
	/* a read this thread polled for inline (the service thread may win a few races) */
	for (int i = 0; i < 200 && atomic_load(&odma_ux.inline_ns) == 0; i++)
		(void)read_polled(0);
	assert_true(atomic_load(&odma_ux.inline_ns) != 0);
	for (int i = 0; i < 5000 && !(sleeping && !parked); i++) { /* 5 s: a loaded machine */
		usleep(1000);
		pthread_mutex_lock(&odma_ux.lock);
		sleeping = odma_ux.sleeping;
		parked = odma_ux.parked;
		pthread_mutex_unlock(&odma_ux.lock);
	}
	assert_true(sleeping && !parked);
	assert_true(atomic_load(&odma_ux.inline_ns) != 0);
	odma_tp_poll_end();
	assert_int_equal(odma_tp_io_start(&io), DOCA_SUCCESS);
	for (int i = 0; i < 3000 && !atomic_load(&w.done); i++)
		usleep(1000); /* not polling: the service thread must do it */
	assert_true(atomic_load(&w.done));
	assert_int_equal(w.st, DOCA_SUCCESS);
}

/*
 * An atomic read of a region without the atomic right (an mmap export: the program's memory,
 * here protected after the export) is refused, never a plain load that would crash the
 * exporter.
 */
static void test_atomic_read_needs_atomic_right(void **state)
{
	uint8_t *page =
	        mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct odma_tp_region *g;
	struct odma_tp_remote rm2;
	struct iowait w = { .st = DOCA_ERROR_UNKNOWN };
	uint64_t v = 0;
	struct odma_tp_io io = { .remote = &rm2,
		                 .local = &v,
		                 .len = 8,
		                 .atomic = ODMA_TP_AT_READ,
		                 .done = io_done,
		                 .arg = &w };

	(void)state;
	assert_true(page != MAP_FAILED);
	g = export_attach(page, 4096, ODMA_TP_READ, &rm2);
	assert_int_equal(mprotect(page, 4096, PROT_NONE), 0);
	io.remote_addr = (uint64_t)(uintptr_t)page;
	assert_int_equal(odma_tp_io_start(&io), DOCA_SUCCESS);
	for (int i = 0; i < 3000 && !atomic_load(&w.done); i++) {
		odma_tp_poll();
		usleep(1000);
	}
	assert_true(atomic_load(&w.done));
	assert_int_not_equal(w.st, DOCA_SUCCESS);
	odma_tp_poll_end();
	odma_tp_detach(&rm2);
	odma_tp_region_revoke(g);
	munmap(page, 4096);
}

/*
 * Starts @n ios on @rm2 while the worker is held, so one round posts them all, and waits for
 * those that started (@started[i], when not NULL, tells which did; else each must): each
 * completes once, within 5 s.
 */
static void ios_run(struct odma_tp_remote *rm2, struct odma_tp_io *io, struct iowait *w,
                    unsigned int n, bool *started)
{
	pthread_mutex_lock(&odma_ux.wlock);
	for (unsigned int i = 0; i < n; i++) {
		doca_error_t r;

		w[i] = (struct iowait){ .st = DOCA_ERROR_UNKNOWN };
		io[i].remote = rm2;
		io[i].done = io_done;
		io[i].arg = &w[i];
		r = odma_tp_io_start(&io[i]);
		if (started != NULL)
			started[i] = r == DOCA_SUCCESS;
		else
			assert_int_equal(r, DOCA_SUCCESS);
	}
	pthread_mutex_unlock(&odma_ux.wlock);
	for (unsigned int i = 0; i < n; i++) {
		if (started != NULL && !started[i])
			continue;
		for (int t = 0; t < 5000 && !atomic_load(&w[i].done); t++) {
			odma_tp_poll();
			usleep(1000);
		}
		assert_true(atomic_load(&w[i].done));
	}
	odma_tp_poll_end();
}

/* ios_run, each io started and completed with success. */
static void ios_together(struct odma_tp_remote *rm2, struct odma_tp_io *io, struct iowait *w,
                         unsigned int n)
{
	ios_run(rm2, io, w, n, NULL);
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(w[i].st, DOCA_SUCCESS);
}

/*
 * Requests queued together for one exporter travel as one batch (one active message, one
 * system call on TCP), and the exporter's answers to them as one batch too: small ones packed, a
 * batch of 4 KiB writes (past ODMA_UCX_BUNDLE_PACK) from the writes' own bytes in place. Every io
 * completes once, with its own bytes.
 */
static void test_batches(void **state)
{
	static uint8_t rw[8 * 4096], src[8][4096], dst[4][512];
	struct odma_tp_remote rm2;
	struct odma_tp_region *g;
	struct odma_tp_io io[8] = { 0 };
	struct iowait w[8];
	uint64_t rq0 = atomic_load(&odma_ucx_req_batches);
	uint64_t rp0 = atomic_load(&odma_ucx_reply_batches);
	uint64_t rn0 = atomic_load(&odma_ucx_replies_batched);

	(void)state;
	for (size_t i = 0; i < sizeof(rw); i++)
		rw[i] = (uint8_t)(i * 7 + 1);
	for (size_t i = 0; i < sizeof(src); i++)
		((uint8_t *)src)[i] = (uint8_t)(i * 13 + 5);
	g = export_attach(rw, sizeof(rw), ODMA_TP_READ | ODMA_TP_WRITE, &rm2);
	/* four reads of 512 bytes, then four writes of 512 bytes elsewhere: packed */
	for (unsigned int i = 0; i < 8; i++) {
		io[i].len = 512;
		io[i].write = i >= 4;
		io[i].local = i < 4 ? (void *)dst[i] : (void *)src[i];
		io[i].remote_addr = (uint64_t)(uintptr_t)(rw + (size_t)i * 4096);
	}
	ios_together(&rm2, io, w, 8);
	for (unsigned int i = 0; i < 4; i++)
		assert_memory_equal(dst[i], rw + (size_t)i * 4096, 512);
	for (unsigned int i = 4; i < 8; i++)
		assert_memory_equal(rw + (size_t)i * 4096, src[i], 512);
	assert_int_equal(atomic_load(&odma_ucx_req_batches) - rq0, 1);
	assert_int_equal(atomic_load(&odma_ucx_reply_batches) - rp0, 1);
	assert_int_equal(atomic_load(&odma_ucx_replies_batched) - rn0, 8);
	/* four writes of 4 KiB: one batch of requests sent in place, one batch of answers */
	for (unsigned int i = 0; i < 4; i++) {
		io[i] = (struct odma_tp_io){ .len = 4096, .write = true, .local = src[i] };
		io[i].remote_addr = (uint64_t)(uintptr_t)(rw + (size_t)i * 4096);
	}
	ios_together(&rm2, io, w, 4);
	assert_memory_equal(rw, src, 4 * 4096);
	assert_int_equal(atomic_load(&odma_ucx_req_batches) - rq0, 2);
	assert_int_equal(atomic_load(&odma_ucx_reply_batches) - rp0, 2);
	assert_int_equal(atomic_load(&odma_ucx_replies_batched) - rn0, 12);
	odma_tp_detach(&rm2);
	odma_tp_region_revoke(g);
}

/*
 * Reply buffers are kept for the next replies: four reads of 32 KiB, one after the other, are
 * answered in one buffer (the first allocated, or kept from an earlier test, the rest reused),
 * each with its bytes.
 */
static void test_reply_buffers_kept(void **state)
{
	static uint8_t dst[32768];
	uint64_t r0 = atomic_load(&odma_ucx_reply_reuses);
	struct odma_tp_io io = { 0 };
	struct iowait w;

	(void)state;
	for (size_t i = 0; i < sizeof(region); i++)
		region[i] = (uint8_t)(i * 3 + 11);
	for (unsigned int k = 0; k < 4; k++) {
		memset(dst, 0, sizeof(dst));
		io = (struct odma_tp_io){ .len = sizeof(dst), .local = dst };
		io.remote_addr = (uint64_t)(uintptr_t)(region + (k % 2) * sizeof(dst));
		ios_run(&rm, &io, &w, 1, NULL);
		assert_int_equal(w.st, DOCA_SUCCESS);
		assert_memory_equal(dst, region + (k % 2) * sizeof(dst), sizeof(dst));
	}
	assert_true(atomic_load(&odma_ucx_reply_reuses) - r0 >= 3);
}

/*
 * Allocation failures on demand: the test is linked with -Wl,--wrap=malloc and --wrap=calloc,
 * so every allocation of odma's code in it (the UCX transport's files, the static archive; not
 * UCX's own) comes here. OOM_RECORD notes the sizes asked for; OOM_FAIL fails every one of size
 * oom.size.
 */
enum { OOM_OFF, OOM_RECORD, OOM_FAIL };
#define OOM_SIZES 64
static struct {
	atomic_int mode;
	size_t size;
	atomic_uint failed, nseen;
	atomic_size_t seen[OOM_SIZES]; /* written by any thread of the round */
} oom;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t sz);

static bool oom_fails(size_t n)
{
	int mode = atomic_load(&oom.mode);

	if (mode == OOM_RECORD) {
		unsigned int i = atomic_fetch_add(&oom.nseen, 1);

		if (i < OOM_SIZES)
			atomic_store(&oom.seen[i], n);
	}
	if (mode != OOM_FAIL || n != oom.size)
		return false;
	atomic_fetch_add(&oom.failed, 1);
	return true;
}

void *__wrap_malloc(size_t n);
void *__wrap_malloc(size_t n)
{
	return oom_fails(n) ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t sz);
void *__wrap_calloc(size_t n, size_t sz)
{
	return oom_fails(n * sz) ? NULL : __real_calloc(n, sz);
}

/* One round of test_batches_out_of_memory: four packed reads and four packed writes. */
struct oom_round {
	bool all_ok;             /* every io started and succeeded, with the right bytes */
	uint64_t req_b, reply_b; /* batches of requests, of replies, the round sent */
};

/* The exporter's kept reply buffers go (a round's batch of answers then needs a new one). */
static void reply_cache_empty(void)
{
	pthread_mutex_lock(&odma_ux.wlock);
	odma_ucx_reply_cache_drop();
	pthread_mutex_unlock(&odma_ux.wlock);
}

static struct oom_round oom_round(struct odma_tp_remote *rm2, uint8_t *rw, unsigned int salt)
{
	static uint8_t src[8][512], dst[4][512];
	struct odma_tp_io io[8] = { 0 };
	struct iowait w[8];
	bool started[8];
	uint64_t rq0 = atomic_load(&odma_ucx_req_batches);
	uint64_t rp0 = atomic_load(&odma_ucx_reply_batches);
	struct oom_round o = { .all_ok = true };

	for (size_t i = 0; i < sizeof(src); i++)
		((uint8_t *)src)[i] = (uint8_t)(i * 13 + salt);
	memset(dst, 0, sizeof(dst));
	for (unsigned int i = 0; i < 8; i++) {
		io[i].len = 512;
		io[i].write = i >= 4;
		io[i].local = i < 4 ? (void *)dst[i] : (void *)src[i];
		io[i].remote_addr = (uint64_t)(uintptr_t)(rw + (size_t)i * 4096);
	}
	ios_run(rm2, io, w, 8, started);
	for (unsigned int i = 0; i < 8; i++) {
		bool ok = started[i] && w[i].st == DOCA_SUCCESS;

		if (ok && i < 4)
			assert_memory_equal(dst[i], rw + (size_t)i * 4096, 512);
		if (ok && i >= 4)
			assert_memory_equal(rw + (size_t)i * 4096, src[i], 512);
		o.all_ok = o.all_ok && ok;
	}
	o.req_b = atomic_load(&odma_ucx_req_batches) - rq0;
	o.reply_b = atomic_load(&odma_ucx_reply_batches) - rp0;
	return o;
}

/*
 * test_batches' packed round with each allocation odma makes on its way failing in turn (every
 * allocation of that size, on both sides: this process is the importer and the exporter). Each
 * io that starts completes once, with its bytes when it succeeds. A batch the importer cannot
 * allocate goes as single requests; one the exporter cannot, as single answers: rounds with no
 * batch on one side and every io a success show both. Each round starts with no reply buffer
 * kept, so that its batch of answers is allocated.
 */
static void test_batches_out_of_memory(void **state)
{
	static uint8_t rw[8 * 4096];
	struct odma_tp_remote rm2;
	struct odma_tp_region *g;
	size_t sizes[OOM_SIZES];
	unsigned int n = 0;
	bool req_alone = false, reply_alone = false;

	(void)state;
	g = export_attach(rw, sizeof(rw), ODMA_TP_READ | ODMA_TP_WRITE, &rm2);
	atomic_store(&oom.nseen, 0);
	reply_cache_empty();
	atomic_store(&oom.mode, OOM_RECORD);
	struct oom_round o = oom_round(&rm2, rw, 1);
	atomic_store(&oom.mode, OOM_OFF);
	assert_true(o.all_ok);
	assert_int_equal(o.req_b, 1);
	assert_int_equal(o.reply_b, 1);
	for (unsigned int i = 0; i < atomic_load(&oom.nseen) && i < OOM_SIZES; i++) {
		unsigned int j = 0;

		size_t sz = atomic_load(&oom.seen[i]);

		while (j < n && sizes[j] != sz)
			j++;
		if (j == n)
			sizes[n++] = sz;
	}
	assert_true(n >= 3);
	for (unsigned int i = 0; i < n; i++) {
		atomic_store(&oom.failed, 0);
		oom.size = sizes[i];
		reply_cache_empty();
		atomic_store(&oom.mode, OOM_FAIL);
		o = oom_round(&rm2, rw, 2 + i);
		atomic_store(&oom.mode, OOM_OFF);
		print_message("allocations of %zu bytes failing: %u failed, all ios %s, %" PRIu64
		              " / %" PRIu64 " batches\n",
		              sizes[i], atomic_load(&oom.failed), o.all_ok ? "succeeded" : "done",
		              o.req_b, o.reply_b);
		req_alone = req_alone || (o.all_ok && o.req_b == 0 && atomic_load(&oom.failed) > 0);
		reply_alone = reply_alone || (o.all_ok && o.req_b == 1 && o.reply_b == 0 &&
		                              atomic_load(&oom.failed) > 0);
	}
	assert_true(req_alone);
	assert_true(reply_alone);
	/* and all is well after */
	o = oom_round(&rm2, rw, 99);
	assert_true(o.all_ok);
	odma_tp_detach(&rm2);
	odma_tp_region_revoke(g);
}

/* What test_bundles' server received, in order. */
#define NB 40
static struct {
	pthread_mutex_t lock;
	unsigned int got, sent;
	uint32_t imm[NB + 4];
	size_t len[NB + 4];
	bool bytes_ok[NB + 4];
	int sent_order[NB];
} bw = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Message i: 9000 bytes (too long for a bundle) when i % 7 == 3, else empty when i % 5 == 0. */
static size_t nb_len(unsigned int i)
{
	return i % 7 == 3 ? 9000 : i % 5 == 0 ? 0 : 100 + 50 * (size_t)i;
}

static bool nb_recv(struct odma_tp_ep *ep, const void *bytes, size_t len, uint32_t imm, void *arg)
{
	const uint8_t *b = bytes;
	bool ok = true;

	(void)ep;
	(void)arg;
	for (size_t k = 0; k < len; k++)
		ok = ok && b[k] == (uint8_t)(imm + 1);
	pthread_mutex_lock(&bw.lock);
	if (bw.got < NB + 4) {
		bw.imm[bw.got] = imm;
		bw.len[bw.got] = len;
		bw.bytes_ok[bw.got] = ok;
	}
	bw.got++;
	pthread_mutex_unlock(&bw.lock);
	return false;
}

static void nb_close(struct odma_tp_ep *ep, doca_error_t why, void *arg)
{
	(void)ep;
	(void)why;
	(void)arg;
}

static void nb_accept(struct odma_tp_ep *ep, void *arg)
{
	struct odma_tp_ep_cbs cbs = { .on_recv = nb_recv, .on_close = nb_close };

	(void)arg;
	odma_tp_ep_set_cbs(ep, &cbs);
	accepted = ep;
}

static void nb_sent(void *arg, doca_error_t st)
{
	pthread_mutex_lock(&bw.lock);
	if (bw.sent < NB)
		bw.sent_order[bw.sent] = st == DOCA_SUCCESS ? (int)(uintptr_t)arg : -1;
	bw.sent++;
	pthread_mutex_unlock(&bw.lock);
}

static unsigned int nb_reported(void)
{
	unsigned int n;

	pthread_mutex_lock(&bw.lock);
	n = bw.sent;
	pthread_mutex_unlock(&bw.lock);
	return n;
}

static unsigned int nb_wait(unsigned int want)
{
	unsigned int got = 0;

	for (int i = 0; i < 10000; i++) {
		pthread_mutex_lock(&bw.lock);
		got = bw.got;
		pthread_mutex_unlock(&bw.lock);
		if (got >= want)
			break;
		usleep(1000);
	}
	return got;
}

/*
 * Hands a forged active message @id (an endpoint header @hdr, then @len bytes of @data) to UCX
 * on the client's connection, past the client's own bookkeeping; whether it was sent whole (a
 * receiver may close the connection before it has read it all).
 */
static void forge_sent(void *arg, int status)
{
	*(int *)arg = status;
}

static bool forge_try(struct odma_tp_ep *cl, unsigned int id, const uint8_t hdr[16],
                      const void *data, size_t len)
{
	struct odma_ucx_out o;
	int r, sent = 1; /* not yet */

	odma_ucx_out_bytes(&o, data, len);
	pthread_mutex_lock(&odma_ux.wlock);
	r = odma_ux.lk->send(cl->peer->ep, id, hdr, 16, &o, ODMA_LK_SEND_REPLY, forge_sent, &sent);
	while (r == ODMA_LK_INFLIGHT && sent == 1)
		(void)odma_ux.lk->progress();
	pthread_mutex_unlock(&odma_ux.wlock);
	return r == ODMA_LK_OK || (r == ODMA_LK_INFLIGHT && sent == ODMA_LK_OK);
}

static void forge_am(struct odma_tp_ep *cl, unsigned int id, const uint8_t hdr[16],
                     const void *data, size_t len)
{
	assert_true(forge_try(cl, id, hdr, data, len));
}

/*
 * The messages an endpoint queued together travel as bundles (one active message, one system
 * call on TCP): a message too long for a bundle goes alone, and every message arrives once, in
 * order, with its immediate and bytes; each send is reported once, in order. A malformed
 * bundle from the peer (counts, lengths, trailing bytes) is dropped whole, and the connection
 * still carries the next message.
 */
static void test_bundles(void **state)
{
	static uint8_t buf[9000];
	struct odma_tp_ep_cbs none = { 0 };
	struct odma_tp_ep *cl = NULL;
	uint64_t b0 = atomic_load(&odma_ucx_bundles);
	uint16_t port = 0;
	void *listener;
	uint8_t h[16] = { 2 }, body[40]; /* count 2, credit 0 (the server sent nothing) */

	(void)state;
	assert_int_equal(odma_tp_listen("127.0.0.1", &port, nb_accept, NULL, NULL, &listener),
	                 DOCA_SUCCESS);
	assert_int_equal(odma_tp_connect("127.0.0.1", port, &none, &cl), DOCA_SUCCESS);
	/* the worker held: every send waits in the queue, so one round takes them all */
	pthread_mutex_lock(&odma_ux.wlock);
	for (unsigned int i = 0; i < NB; i++) {
		memset(buf, (int)(i + 1), sizeof(buf));
		assert_int_equal(
		        odma_tp_ep_send(cl, buf, nb_len(i), i, nb_sent, (void *)(uintptr_t)i),
		        DOCA_SUCCESS);
	}
	pthread_mutex_unlock(&odma_ux.wlock);
	assert_int_equal(nb_wait(NB), NB);
	for (int i = 0; i < 5000 && nb_reported() < NB; i++)
		usleep(1000); /* a send's report may follow its arrival */
	pthread_mutex_lock(&bw.lock);
	for (unsigned int i = 0; i < NB; i++) {
		assert_int_equal(bw.imm[i], i);
		assert_int_equal(bw.len[i], nb_len(i));
		assert_true(bw.bytes_ok[i]);
		assert_int_equal(bw.sent_order[i], (int)i);
	}
	assert_int_equal(bw.sent, NB);
	pthread_mutex_unlock(&bw.lock);
	/*
	 * runs between the six long ones (i % 7 == 3): 0-2, 4-9, 11-16, 18-23, 25-30, 32-37; the
	 * first five are packed into one buffer, the last (9,100 bytes) is sent from the messages
	 */
	assert_int_equal(atomic_load(&odma_ucx_bundles) - b0, 6);

	/*
	 * forged: a count of 2 with one message; trailing bytes; a length past the end; count 1;
	 * a lone message with a bad header
	 */
	memset(body, 0, sizeof(body));
	body[4] = 4; /* message 0: 4 bytes */
	forge_am(cl, ODMA_UCX_AM_MSGS, h, body, 12);
	forge_am(cl, ODMA_UCX_AM_MSGS, h, body, 40);
	body[16] = 200;
	forge_am(cl, ODMA_UCX_AM_MSGS, h, body, 24);
	h[0] = 1;
	forge_am(cl, ODMA_UCX_AM_MSGS, h, body, 12);
	h[4] = 1; /* a message whose header's zero word is not: another build's, dropped */
	forge_am(cl, ODMA_UCX_AM_MSG, h, body, 4);
	h[4] = 0;
	h[0] = 2;
	body[16] = 0; /* well formed: 4 bytes, then an empty message (imm 0x77) */
	body[12] = 0x77;
	forge_am(cl, ODMA_UCX_AM_MSGS, h, body, 20);
	assert_int_equal(nb_wait(NB + 2), NB + 2);
	usleep(50000); /* room for a stray delivery of a forged one */
	pthread_mutex_lock(&bw.lock);
	assert_int_equal(bw.got, NB + 2);
	assert_int_equal(bw.len[NB], 4);
	assert_int_equal(bw.imm[NB + 1], 0x77);
	assert_int_equal(bw.len[NB + 1], 0);
	pthread_mutex_unlock(&bw.lock);
	odma_tp_ep_close(cl);
	odma_tp_ep_close(accepted);
	odma_tp_listen_close(listener);
}

/*
 * A large message's buffer is kept when its send is done and carries a later message that fits
 * it: messages of 40 KiB, 20 KiB and 40 KiB, one at a time, arrive whole and in order, and the
 * second and third went out in the first's buffer (or another kept one).
 */
static void test_large_buffers_kept(void **state)
{
	static uint8_t buf[40960];
	static const size_t lens[3] = { 40960, 20480, 40960 };
	struct odma_tp_ep_cbs none = { 0 };
	struct odma_tp_ep *cl = NULL;
	uint64_t r0;
	uint16_t port = 0;
	void *listener;

	(void)state;
	pthread_mutex_lock(&bw.lock);
	bw.got = bw.sent = 0;
	pthread_mutex_unlock(&bw.lock);
	assert_int_equal(odma_tp_listen("127.0.0.1", &port, nb_accept, NULL, NULL, &listener),
	                 DOCA_SUCCESS);
	assert_int_equal(odma_tp_connect("127.0.0.1", port, &none, &cl), DOCA_SUCCESS);
	r0 = atomic_load(&odma_ucx_msg_reuses);
	for (unsigned int i = 0; i < 3; i++) {
		memset(buf, (int)(i + 1), sizeof(buf));
		assert_int_equal(
		        odma_tp_ep_send(cl, buf, lens[i], i, nb_sent, (void *)(uintptr_t)i),
		        DOCA_SUCCESS);
		assert_int_equal(nb_wait(i + 1), i + 1);
		for (int t = 0; t < 5000 && nb_reported() < i + 1; t++)
			usleep(1000); /* kept once its send is reported */
	}
	pthread_mutex_lock(&bw.lock);
	for (unsigned int i = 0; i < 3; i++) {
		assert_int_equal(bw.imm[i], i);
		assert_int_equal(bw.len[i], lens[i]);
		assert_true(bw.bytes_ok[i]);
	}
	pthread_mutex_unlock(&bw.lock);
	assert_true(atomic_load(&odma_ucx_msg_reuses) - r0 >= 2);
	odma_tp_ep_close(cl);
	odma_tp_ep_close(accepted);
	odma_tp_listen_close(listener);
}

/* test_wake_after_answers: a PE's doorbell, rung by the server's callback. */
static struct {
	int efd;
	_Atomic uint32_t word;
	atomic_int answered; /* the last answer handed to UCX (its immediate), -1: none */
	atomic_int job_saw;  /* the job queued by the callback: 1 rung, 0 not yet, -1 not run */
} wk = { .efd = -1 };

static bool efd_readable(int timeout_ms)
{
	struct pollfd p = { .fd = wk.efd, .events = POLLIN };

	return poll(&p, 1, timeout_ms) == 1;
}

static void wk_answered(void *arg, doca_error_t st)
{
	if (st == DOCA_SUCCESS)
		atomic_store(&wk.answered, (int)(uintptr_t)arg);
}

static void wk_job(void *arg)
{
	(void)arg;
	atomic_store(&wk.job_saw, efd_readable(0) ? 1 : 0);
}

/* Answers, rings the PE, and (imm 2) queues a job behind the answer; then dawdles. */
static bool wk_recv(struct odma_tp_ep *ep, const void *bytes, size_t len, uint32_t imm, void *arg)
{
	(void)bytes;
	(void)len;
	(void)arg;
	assert_int_equal(odma_tp_ep_send(ep, "ans", 3, imm, wk_answered, (void *)(uintptr_t)imm),
	                 DOCA_SUCCESS);
	doca_priv_bell_ring(&wk.word, wk.efd);
	if (imm == 2) {
		struct ucx_chunk *c = calloc(1, sizeof(*c));

		assert_non_null(c);
		c->op = UCX_OP_CALL;
		c->fn = wk_job;
		odma_ucx_enqueue(c, c);
	}
	usleep(30000); /* a PE woken now would see no answer sent yet */
	return false;
}

static void wk_accept(struct odma_tp_ep *ep, void *arg)
{
	struct odma_tp_ep_cbs cbs = { .on_recv = wk_recv, .on_close = nb_close };

	(void)arg;
	odma_tp_ep_set_cbs(ep, &cbs);
	accepted = ep;
}

/*
 * A doorbell rung by a peer's callback is written once the round has sent what the callbacks
 * queued: the woken PE finds the answer gone (it once woke first and took the CPU the answer
 * needed). And before the round runs a job (it may close what the doorbell belongs to), the
 * held write is made: the job sees the doorbell rung.
 */
static void test_wake_after_answers(void **state)
{
	struct odma_tp_ep_cbs none = { 0 };
	struct odma_tp_ep *cl = NULL;
	uint16_t port = 0;
	void *listener;
	uint64_t v;

	(void)state;
	wk.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	assert_true(wk.efd >= 0);
	atomic_store(&wk.job_saw, -1);
	assert_int_equal(odma_tp_listen("127.0.0.1", &port, wk_accept, NULL, NULL, &listener),
	                 DOCA_SUCCESS);
	assert_int_equal(odma_tp_connect("127.0.0.1", port, &none, &cl), DOCA_SUCCESS);
	/* imm 0: the first answer on the connection (its send may wait for UCX's wire-up) */
	for (uint32_t imm = 0; imm <= 2; imm++) {
		uint64_t posted = atomic_load(&odma_ucx_msgs_posted);

		atomic_store(&wk.answered, -1);
		atomic_store(&wk.word, ODMA_BELL_ARMED);
		assert_int_equal(odma_tp_ep_send(cl, "ask", 3, imm, NULL, NULL), DOCA_SUCCESS);
		assert_true(efd_readable(10000));
		/*
		 * Rung once this answer was handed to UCX: the ask and the answer are posted (the
		 * callback dawdles 30 ms after ringing, so a doorbell written at once would be seen
		 * with the ask alone). UCX may report the answer's send later on a busy machine.
		 */
		assert_true(imm == 0 || atomic_load(&odma_ucx_msgs_posted) >= posted + 2);
		for (int i = 0; i < 5000 && atomic_load(&wk.answered) != (int)imm; i++)
			usleep(1000);
		assert_int_equal(atomic_load(&wk.answered), (int)imm);
		for (int i = 0; imm == 2 && i < 5000 && atomic_load(&wk.job_saw) < 0; i++)
			usleep(1000); /* the doorbell is read only once the job looked */
		assert_int_equal(read(wk.efd, &v, sizeof(v)), (ssize_t)sizeof(v));
	}
	assert_int_equal(atomic_load(&wk.job_saw), 1); /* the held write came before the job */
	odma_tp_ep_close(cl);
	odma_tp_ep_close(accepted);
	odma_tp_listen_close(listener);
	close(wk.efd);
}

/* test_credit_refused: a server that keeps what arrives, and sees its connection end. */
static struct {
	atomic_uint got;
	atomic_int why; /* the close's, or -1 */
	struct odma_tp_ep *ep;
} kr;

static bool kr_recv(struct odma_tp_ep *ep, const void *bytes, size_t len, uint32_t imm, void *arg)
{
	(void)ep;
	(void)bytes;
	(void)len;
	(void)imm;
	(void)arg;
	atomic_fetch_add(&kr.got, 1);
	return true; /* kept, never given back */
}

static void kr_close(struct odma_tp_ep *ep, doca_error_t why, void *arg)
{
	(void)ep;
	(void)arg;
	atomic_store(&kr.why, (int)why);
}

static void kr_accept(struct odma_tp_ep *ep, void *arg)
{
	struct odma_tp_ep_cbs cbs = { .on_recv = kr_recv, .on_close = kr_close };

	(void)arg;
	odma_tp_ep_set_cbs(ep, &cbs);
	kr.ep = ep;
}

/* Sends one real message on @cl and waits for the server to have it (and the connection). */
static bool kr_first(struct odma_tp_ep *cl)
{
	assert_int_equal(odma_tp_ep_send(cl, "x", 1, 1, NULL, NULL), DOCA_SUCCESS);
	for (int i = 0; i < 500 && atomic_load(&kr.got) == 0; i++)
		usleep(10000);
	return atomic_load(&kr.got) == 1;
}

static bool kr_closed(void)
{
	for (int i = 0; i < 500 && atomic_load(&kr.why) == -1; i++)
		usleep(10000);
	return atomic_load(&kr.why) == (int)DOCA_ERROR_NOT_PERMITTED;
}

/*
 * A peer that ignores the carrier's credit (messages forged past the window the receiver
 * reported, or a report of more credit than the receiver's side sent) has its connection
 * closed with NOT_PERMITTED, having had the receiver hold no more than the window.
 */
static void test_credit_refused(void **state)
{
	const size_t mib = 1u << 20;
	uint8_t *big = calloc(1, mib), h[16] = { 0 };
	struct odma_tp_ep_cbs none = { 0 };
	struct odma_tp_ep *cl = NULL;
	uint16_t port = 0;
	void *listener;

	(void)state;
	assert_non_null(big);
	assert_int_equal(odma_tp_listen("127.0.0.1", &port, kr_accept, NULL, NULL, &listener),
	                 DOCA_SUCCESS);
	/*
	 * a real message (the connection is up, accepted), then 20 of 1 MiB forged: 15 fit, and
	 * the next is refused at its head, unread (its send, or a later one, fails)
	 */
	atomic_store(&kr.why, -1);
	assert_int_equal(odma_tp_connect("127.0.0.1", port, &none, &cl), DOCA_SUCCESS);
	assert_true(kr_first(cl));
	for (unsigned int i = 0; i < 20 && forge_try(cl, ODMA_UCX_AM_MSG, h, big, mib); i++)
		;
	assert_true(kr_closed());
	assert_int_equal(atomic_load(&kr.got), 1 + ODMA_TP_EP_WINDOW / (mib + ODMA_TP_MSG_COST));
	odma_tp_ep_close(kr.ep);
	odma_tp_ep_close(cl);

	/* a credit report of 5000 from a peer the server sent nothing */
	atomic_store(&kr.why, -1);
	atomic_store(&kr.got, 0);
	assert_int_equal(odma_tp_connect("127.0.0.1", port, &none, &cl), DOCA_SUCCESS);
	assert_true(kr_first(cl));
	h[8] = 0x88;
	h[9] = 0x13;
	forge_am(cl, ODMA_UCX_AM_CREDIT, h, NULL, 0);
	assert_true(kr_closed());
	odma_tp_ep_close(kr.ep);
	odma_tp_ep_close(cl);
	odma_tp_listen_close(listener);
	free(big);
}

/* ---- refusing peers at a listener -------------------------------------------------------- */

static atomic_int ra_accepts, ra_admits, ra_client_closed;

static void ra_close_at_once(struct odma_tp_ep *ep, void *arg)
{
	(void)arg;
	atomic_fetch_add(&ra_accepts, 1);
	odma_tp_ep_close(ep); /* from inside the worker's callback: no flush, no re-entry */
}

static bool ra_refuse(void *arg)
{
	(void)arg;
	atomic_fetch_add(&ra_admits, 1);
	return false;
}

static void ra_on_close(struct odma_tp_ep *ep, doca_error_t why, void *arg)
{
	(void)ep;
	(void)why;
	(void)arg;
	atomic_store(&ra_client_closed, 1);
}

/* Connects one client to @port and waits for its endpoint to end (false: it did not). */
static bool ra_client_ends(uint16_t port)
{
	struct odma_tp_ep_cbs cbs = { .on_close = ra_on_close };
	struct odma_tp_ep *cl = NULL;
	bool ended;

	atomic_store(&ra_client_closed, 0);
	if (odma_tp_connect("127.0.0.1", port, &cbs, &cl) != DOCA_SUCCESS)
		return true; /* refused before it existed */
	(void)odma_tp_ep_send(cl, "x", 1, 1, NULL, NULL);
	for (int i = 0; i < 500 && atomic_load(&ra_client_closed) == 0; i++)
		usleep(10000);
	ended = atomic_load(&ra_client_closed) == 1;
	odma_tp_ep_close(cl);
	return ended;
}

/*
 * A listener may refuse a peer two ways: its admission check says no (the transport rejects
 * the request, no endpoint, no accept callback), or its accept callback closes the endpoint it
 * was handed (inside the worker's callback: the close must not progress the worker again, which
 * UCX aborts on). Either way the client's endpoint ends and this process goes on.
 */
static void test_listener_refusals(void **state)
{
	uint16_t port = 0;
	void *listener;

	(void)state;
	assert_int_equal(
	        odma_tp_listen("127.0.0.1", &port, ra_close_at_once, NULL, NULL, &listener),
	        DOCA_SUCCESS);
	assert_true(ra_client_ends(port));
	assert_int_equal(atomic_load(&ra_accepts), 1);
	odma_tp_listen_close(listener);

	port = 0;
	assert_int_equal(
	        odma_tp_listen("127.0.0.1", &port, ra_close_at_once, ra_refuse, NULL, &listener),
	        DOCA_SUCCESS);
	assert_true(ra_client_ends(port));
	assert_int_equal(atomic_load(&ra_admits), 1);
	assert_int_equal(atomic_load(&ra_accepts), 1); /* no second accept */
	odma_tp_listen_close(listener);
}

/*
 * UCX's link over TCP says once, when it starts, that a stranger can write this process's
 * memory through it; odma's TCP link has nothing to say. (The run of unit_ucx_inline_ucp.)
 */
static void test_link_warns_of_ucx_tcp(void **state)
{
	char line[4096];
	unsigned int n = 0;

	(void)state;
	fflush(log_file);
	rewind(log_file);
	while (fgets(line, sizeof(line), log_file) != NULL)
		n += strstr(line, "runs on UCX's link") != NULL &&
		     strstr(line, "can write this process's memory") != NULL;
	assert_int_equal(n, tu_ucx_link() ? 1 : 0);
}

struct iocount {
	atomic_uint done, failed;
};

static void count_done(struct odma_tp_io *io, doca_error_t st)
{
	struct iocount *n = io->arg;

	if (st != DOCA_SUCCESS)
		atomic_fetch_add(&n->failed, 1);
	atomic_fetch_add(&n->done, 1);
}

/*
 * More requests at once than an importer has slots for (UCX_SLOTS, one per outstanding
 * request: four RDMA reads of 1 GiB cut into 60 KiB requests, say): 70,000 reads of 8 bytes,
 * queued while the service thread cannot take them (the test holds the worker), then taken in
 * one round. Those past the slots wait for one to free up and every read completes; the
 * service thread looked for a free slot that nothing could free while it looked, for good.
 */
static void test_more_requests_than_slots(void **state)
{
	enum { N = 70000 };
	struct odma_tp_io *io = calloc(N, sizeof(*io));
	struct iocount n = { 0 };
	uint64_t end;

	(void)state;
	assert_non_null(io);
	pthread_mutex_lock(&odma_ux.wlock);
	for (unsigned int i = 0; i < N; i++) {
		io[i] = (struct odma_tp_io){ .remote = &rm,
			                     .local = mine + (i % 512) * 8,
			                     .remote_addr =
			                             (uint64_t)(uintptr_t)region + i % 8192 * 8,
			                     .len = 8,
			                     .done = count_done,
			                     .arg = &n };
		assert_int_equal(odma_tp_io_start(&io[i]), DOCA_SUCCESS);
	}
	pthread_mutex_unlock(&odma_ux.wlock);
	end = odma_now_ns() + 30000000000ull;
	while (atomic_load(&n.done) < N && odma_now_ns() < end)
		usleep(10000);
	print_message("%u of %u reads done, %u failed\n", atomic_load(&n.done), N,
	              atomic_load(&n.failed));
	assert_int_equal(atomic_load(&n.done), N);
	assert_int_equal(atomic_load(&n.failed), 0);
	free(io);
}

/* The head of a frame of odma's TCP link (link_tcp.c): its id and lengths, into @out. */
static void link_frame(uint8_t *out, unsigned int id, size_t hlen, size_t len)
{
	out[0] = (uint8_t)id;
	out[1] = 0;
	odma_put_le(out + 2, hlen, 2);
	odma_put_le(out + 4, len, 4);
}

/* A connection to this process's own link address that proved the fabric secret (a dialer). */
static int link_dial_proven(void)
{
	uint8_t key[ODMA_FABRIC_KEY_LEN], hello[8 + 32] = { 0 }, ch[8 + 48], proof[8 + 32];
	uint8_t bind[22]; /* the link's magic, the address and port dialled, the instance */
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char why[256];

	assert_true(fd >= 0 && odma_ux.self_len == 20);
	memcpy(&sa.sin_addr, odma_ux.self_addr + 4, 4);
	memcpy(&sa.sin_port, odma_ux.self_addr + 8, 2);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_true(doca_priv_fabric_key(key, why, sizeof(why)));
	link_frame(hello, 0xf1, 0, 32);
	memcpy(hello + 8, "ODMALNK1", 8);
	memcpy(hello + 16, odma_ux.self_addr + 12, 8); /* the instance */
	memset(hello + 24, 0x5c, ODMA_FABRIC_NONCE_LEN);
	assert_int_equal(send(fd, hello, sizeof(hello), MSG_NOSIGNAL), (ssize_t)sizeof(hello));
	assert_int_equal(recv(fd, ch, sizeof(ch), MSG_WAITALL), (ssize_t)sizeof(ch));
	assert_int_equal(ch[0], 0xf2);
	link_frame(proof, 0xf3, 0, 32);
	memcpy(bind, "ODMALNK1", 8);
	memcpy(bind + 8, odma_ux.self_addr + 4, 6);
	memcpy(bind + 14, odma_ux.self_addr + 12, 8);
	doca_priv_fabric_proof(key, 'C', bind, sizeof(bind), ch + 8, hello + 24, proof + 8);
	assert_int_equal(send(fd, proof, sizeof(proof), MSG_NOSIGNAL), (ssize_t)sizeof(proof));
	return fd;
}

struct stream {
	atomic_bool stop;
	atomic_uint over;
};

struct stream_conn {
	struct stream *s;
	int fd;
	const uint8_t *frames; /* STREAM_BYTES of them */
};

#define STREAM_BYTES (24u * 43690)

/* Sends CREDIT frames for no endpoint (each dropped by its handler) until told, or for 10 s. */
static void *stream_run(void *arg)
{
	struct stream_conn *c = arg;
	uint64_t end = odma_now_ns() + 10000000000ull;

	while (!atomic_load(&c->s->stop) && odma_now_ns() < end)
		if (send(c->fd, c->frames, STREAM_BYTES, MSG_NOSIGNAL) <= 0)
			break;
	atomic_fetch_add(&c->s->over, 1);
	return NULL;
}

/*
 * Peers that never stop sending (CREDIT frames for no endpoint, on three connections that
 * proved the secret) keep the worker busy for good; a round still ends, so what is queued
 * meanwhile runs: a read of our own completes while the streams go on. A round used to
 * progress the link until it ran dry, which under a stream it never did: nothing queued ran
 * (no request left, no close, no deadline expired) until the streams stopped.
 */
static void test_round_ends_under_a_stream(void **state)
{
	static uint8_t frames[STREAM_BYTES];
	struct stream s = { .over = 0 };
	struct stream_conn c[3];
	struct iowait w = { .st = DOCA_ERROR_UNKNOWN };
	struct odma_tp_io io = { .remote = &rm,
		                 .local = mine,
		                 .remote_addr = (uint64_t)(uintptr_t)region,
		                 .len = sizeof(mine),
		                 .done = io_done,
		                 .arg = &w };
	pthread_t t[3];
	uint64_t t0;

	(void)state;
	if (tu_ucx_link())
		skip(); /* odma's TCP link's frames */
	for (size_t at = 0; at < sizeof(frames); at += 24) {
		link_frame(frames + at, ODMA_UCX_AM_CREDIT, ODMA_UCX_EP_HDR, 0);
		odma_ucx_ep_hdr_put(frames + at + 8, 0, 0);
	}
	for (unsigned int i = 0; i < 3; i++) {
		c[i] = (struct stream_conn){ &s, link_dial_proven(), frames };
		assert_int_equal(pthread_create(&t[i], NULL, stream_run, &c[i]), 0);
	}
	usleep(300 * 1000); /* the streams run, and the worker with them */
	t0 = odma_now_ns();
	assert_int_equal(odma_tp_io_start(&io), DOCA_SUCCESS);
	while (!atomic_load(&w.done) && atomic_load(&s.over) == 0)
		usleep(1000);
	print_message("the read %s while the streams ran (%.1f ms)\n",
	              atomic_load(&w.done) ? "completed" : "did not complete",
	              (double)(odma_now_ns() - t0) / 1e6);
	assert_int_equal(atomic_load(&s.over), 0);
	atomic_store(&s.stop, true);
	for (unsigned int i = 0; i < 3; i++) {
		pthread_join(t[i], NULL);
		close(c[i].fd);
	}
	while (!atomic_load(&w.done))
		usleep(1000);
	assert_int_equal(w.st, DOCA_SUCCESS);
	assert_memory_equal(mine, region, sizeof(mine));
}

static void cl_close(struct odma_tp_ep *ep, doca_error_t why, void *arg)
{
	(void)ep;
	(void)why;
	atomic_fetch_add((atomic_uint *)arg, 1);
}

/*
 * An endpoint closed while allocations of the size of the record that hands a call to the
 * service thread (three pointers) fail: it still closes: on_close runs once, before the close
 * returns, and the peer sees its connection end. The call was dropped when that record could
 * not be allocated: the close silently never happened, and the endpoint, its connection and
 * its callbacks lived on after the caller let go of what they use.
 */
static void test_close_without_memory(void **state)
{
	struct msgwait w = { .poller = pthread_self() };
	atomic_uint closes = 0;
	struct odma_tp_ep_cbs cbs = { .on_close = cl_close, .arg = &closes };
	struct odma_tp_ep *cl = NULL;
	uint16_t port = 0;
	void *listener;
	uint64_t end;

	(void)state;
	accepted = NULL;
	assert_int_equal(odma_tp_listen("127.0.0.1", &port, srv_accept, NULL, &w, &listener),
	                 DOCA_SUCCESS);
	assert_int_equal(odma_tp_connect("127.0.0.1", port, &cbs, &cl), DOCA_SUCCESS);
	assert_int_equal(odma_tp_ep_send(cl, "x", 1, 77, NULL, NULL), DOCA_SUCCESS);
	end = odma_now_ns() + 10000000000ull;
	while (atomic_load(&w.got) == 0 && odma_now_ns() < end)
		usleep(1000);
	assert_int_equal(atomic_load(&w.got), 1);
	oom.size = 3 * sizeof(void *);
	atomic_store(&oom.mode, OOM_FAIL);
	odma_tp_ep_close(cl);
	atomic_store(&oom.mode, OOM_OFF);
	assert_int_equal(atomic_load(&closes), 1);
	end = odma_now_ns() + 10000000000ull;
	while (!atomic_load(&w.closed) && odma_now_ns() < end)
		usleep(1000);
	assert_true(atomic_load(&w.closed));
	odma_tp_ep_close(accepted);
	odma_tp_listen_close(listener);
}

/* ---- a relay between two listeners ------------------------------------------------------ */

/*
 * A man in the middle with no secret: the client dials its socket, it dials another listener
 * and passes the bytes between them unchanged.
 */
struct relay {
	int lfd;            /* where the client dials */
	uint16_t to;        /* the listener it passes the client on to */
	atomic_uint proofs; /* PROOF frames the client sent through it */
	atomic_bool stop;
};

/* Passes what @from has on to @to; false once @from ended. Counts the client's PROOF frames. */
static bool relay_pass(struct relay *r, int from, int to, bool from_client)
{
	uint8_t buf[4096];
	ssize_t n = recv(from, buf, sizeof(buf), 0);

	if (n <= 0)
		return false;
	if (from_client && buf[0] == 0xf3) /* the handshake's frames come one per read here */
		atomic_fetch_add(&r->proofs, 1);
	return send(to, buf, (size_t)n, MSG_NOSIGNAL) == n;
}

static void *relay_run(void *arg)
{
	struct relay *r = arg;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(r->to) };
	struct pollfd l = { .fd = r->lfd, .events = POLLIN };
	int cfd = poll(&l, 1, 5000) == 1 ? accept(r->lfd, NULL, NULL) : -1;
	int sfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool up;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	up = cfd >= 0 && sfd >= 0 && connect(sfd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	while (up && !atomic_load(&r->stop)) {
		struct pollfd p[2] = { { .fd = cfd, .events = POLLIN },
			               { .fd = sfd, .events = POLLIN } };

		if (poll(p, 2, 100) < 0)
			break;
		if (p[0].revents != 0 && !relay_pass(r, cfd, sfd, true))
			break;
		if (p[1].revents != 0 && !relay_pass(r, sfd, cfd, false))
			break;
	}
	if (cfd >= 0)
		close(cfd);
	if (sfd >= 0)
		close(sfd);
	return NULL;
}

static atomic_uint relay_accepts, relay_msgs;

static bool relay_recv(struct odma_tp_ep *ep, const void *bytes, size_t len, uint32_t imm,
                       void *arg)
{
	(void)ep;
	(void)bytes;
	(void)len;
	(void)imm;
	(void)arg;
	atomic_fetch_add(&relay_msgs, 1);
	return false;
}

static void relay_accept(struct odma_tp_ep *ep, void *arg)
{
	static const struct odma_tp_ep_cbs cbs = { .on_recv = relay_recv };

	(void)arg;
	odma_tp_ep_set_cbs(ep, &cbs);
	atomic_fetch_add(&relay_accepts, 1);
}

/*
 * A client dials one address and a relay there, holding no secret, passes its handshake on to
 * another listener of this process (the same secret): the client must not end up authenticated
 * to that listener, so its proof never goes out and its message never arrives there. The proofs
 * bind the address the client dialled; they were HMACs of the nonces alone, and the relayed
 * client talked to a listener it never dialled. (odma's TCP link only: UCX's has no secret.)
 */
static void test_relay_to_another_listener(void **state)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	struct relay r = { .lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0) };
	struct odma_tp_ep_cbs none = { 0 };
	struct odma_tp_ep *cl = NULL;
	void *listener;
	pthread_t t;

	(void)state;
	if (tu_ucx_link())
		skip();
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true(r.lfd >= 0);
	assert_int_equal(bind(r.lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(r.lfd, 1), 0);
	assert_int_equal(getsockname(r.lfd, (struct sockaddr *)&sa, &sl), 0);
	assert_int_equal(odma_tp_listen("127.0.0.1", &r.to, relay_accept, NULL, NULL, &listener),
	                 DOCA_SUCCESS);
	assert_int_equal(pthread_create(&t, NULL, relay_run, &r), 0);
	assert_int_equal(odma_tp_connect("127.0.0.1", ntohs(sa.sin_port), &none, &cl),
	                 DOCA_SUCCESS);
	(void)odma_tp_ep_send(cl, "x", 1, 1, NULL, NULL);
	for (int i = 0; i < 100 && atomic_load(&relay_msgs) == 0; i++)
		usleep(10000);
	atomic_store(&r.stop, true);
	pthread_join(t, NULL);
	odma_tp_ep_close(cl);
	odma_tp_listen_close(listener);
	close(r.lfd);
	assert_int_equal(atomic_load(&r.proofs), 0);
	assert_int_equal(atomic_load(&relay_accepts), 0);
	assert_int_equal(atomic_load(&relay_msgs), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_warns_of_ucx_tcp),
		cmocka_unit_test(test_polled_here),
		cmocka_unit_test(test_poll_end_keeps_kick),
		cmocka_unit_test(test_atomic_read_needs_atomic_right),
		cmocka_unit_test(test_with_endpoints),
		cmocka_unit_test(test_bundles),
		cmocka_unit_test(test_batches),
		cmocka_unit_test(test_reply_buffers_kept),
		cmocka_unit_test(test_batches_out_of_memory),
		cmocka_unit_test(test_large_buffers_kept),
		cmocka_unit_test(test_credit_refused),
		cmocka_unit_test(test_listener_refusals),
		cmocka_unit_test(test_relay_to_another_listener),
		cmocka_unit_test(test_wake_after_answers),
		cmocka_unit_test(test_more_requests_than_slots),
		cmocka_unit_test(test_round_ends_under_a_stream),
		cmocka_unit_test(test_close_without_memory),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
