/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Model-based stress: one thread per PE, several DMA contexts per PE, random task sizes and
 * lists, random stops/restarts, fatal tasks, AGAIN and injected faults, checked against a
 * model of what must happen (BEHAVIOR §1):
 *  - every accepted task gets exactly one callback, from doca_pe_progress on the PE's thread;
 *    a rejected task gets none;
 *  - a successful task's destination holds exactly the source bytes and data_len grew by them;
 *  - no byte outside the destination bufs changes (canary guards around and between every
 *    destination element, and slack after the last), the sources never change;
 *  - contexts always get back to IDLE after a stop (ours, fatal or injected).
 * Checks abort the child with a message; the parent sees a failed exit status.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
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
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "stress.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "stress: %s:%d: check failed: %s\n", __FILE__, __LINE__,   \
			        #c);                                                               \
			abort();                                                                   \
		}                                                                                  \
	} while (0)
#define CHECK_OK(e)                                                                                \
	do {                                                                                       \
		doca_error_t r_ = (e);                                                             \
		if (r_ != DOCA_SUCCESS) {                                                          \
			fprintf(stderr, "stress: %s:%d: %s -> %s\n", __FILE__, __LINE__, #e,       \
			        doca_error_get_name(r_));                                          \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#define NSLOT 24        /* tasks in flight per context (its task pool) */
#define SMALL_MAX 65536 /* the largest task in a small slot */
#define GUARD 64        /* canary bytes around every destination element */
#define SLACK_MAX 32    /* spare room after the last destination element */
#define MAX_SEGS 4      /* source/destination list elements at most */
#define CANARY 0xA5
#define SLOT_OVERHEAD (GUARD * (MAX_SEGS + 1) + SLACK_MAX)
#define IDLE_LOOPS 200000000UL

struct ctx_state;

struct rec {
	struct ctx_state *cs;
	bool inflight, expect_fail, big;
	unsigned int completions;
	uint8_t *slot; /* base of the destination area (guards included) */
	size_t used;   /* bytes of the area the task may see: guards, elements, slack */
	size_t len;    /* total source bytes */
	unsigned int ns, nd;
	struct doca_buf *sb[MAX_SEGS], *db[MAX_SEGS];
	const uint8_t *sp[MAX_SEGS];
	size_t sl[MAX_SEGS];
	uint8_t *dp[MAX_SEGS];
	size_t dl[MAX_SEGS]; /* capacity of each destination element */
	size_t slack;
};

struct worker;

/* Memory exported by another process: its descriptor and a local copy of its bytes. */
struct remote {
	pid_t pid;
	int fd;
	uint8_t desc[512];
	size_t desc_len;
	uint64_t addr, len;
	uint8_t *expect;
};

struct ctx_state {
	struct worker *w;
	struct doca_dma *dma;
	struct doca_ctx *ctx;
	uint8_t *slots;
	struct rec recs[NSLOT];
	unsigned int inflight;
};

struct worker {
	pthread_t tid;  /* written by pthread_create, read by join */
	pthread_t self; /* written by the worker itself */
	unsigned int id;
	const struct stress_config *cfg;
	const struct stress_params *p;
	struct doca_dev *dev;
	uint64_t max_buf, quota;
	uint32_t max_list;
	uint64_t rng;
	uint8_t *src, *dst, *big_slot;
	size_t src_len, dst_len;
	bool big_busy;
	struct doca_mmap *src_mmap, *dst_mmap;
	struct doca_mmap *rmm; /* this thread's import of the exporter's region, or NULL */
	const struct remote *rem;
	struct doca_buf_inventory *inv;
	struct doca_pe *pe;
	struct ctx_state *cs;
	struct stress_counts n;
	bool in_progress;
	struct timespec t0;
};

static uint64_t rnd(struct worker *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return w->rng;
}

/* Uniform in [lo, hi]. */
static uint64_t rnd_in(struct worker *w, uint64_t lo, uint64_t hi)
{
	return lo + rnd(w) % (hi - lo + 1);
}

static void fill_pattern(uint8_t *p, size_t n, uint64_t seed)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (uint8_t)(x >> 24);
	}
}

static bool all_canary(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != CANARY)
			return false;
	return true;
}

/* Guards before, between and after the destination elements, and the slack, are untouched. */
static void check_guards(const struct rec *r)
{
	const uint8_t *end = r->slot + r->used;

	CHECK(all_canary(r->slot, GUARD));
	for (unsigned int j = 0; j < r->nd; j++) {
		const uint8_t *after = r->dp[j] + r->dl[j];
		size_t n = j + 1 < r->nd ? (size_t)(r->dp[j + 1] - after) : (size_t)(end - after);

		CHECK(all_canary(after, n));
	}
}

/* The destination elements hold the source elements' bytes, in list order. */
static void check_bytes(const struct rec *r)
{
	unsigned int si = 0;
	size_t so = 0;

	for (unsigned int j = 0; j < r->nd; j++) {
		size_t done = 0, data_len = 0;

		CHECK_OK(doca_buf_get_data_len(r->db[j], &data_len));
		CHECK(data_len == r->dl[j]);
		while (done < r->dl[j]) {
			size_t n = r->sl[si] - so;

			if (n > r->dl[j] - done)
				n = r->dl[j] - done;
			CHECK(memcmp(r->dp[j] + done, r->sp[si] + so, n) == 0);
			done += n;
			so += n;
			if (so == r->sl[si]) {
				si++;
				so = 0;
			}
		}
	}
}

static void rec_release(struct rec *r)
{
	CHECK_OK(doca_buf_dec_refcount(r->sb[0], NULL));
	CHECK_OK(doca_buf_dec_refcount(r->db[0], NULL));
	if (r->big)
		r->cs->w->big_busy = false;
	r->slot = NULL;
}

static void on_completion(struct doca_dma_task_memcpy *t, union doca_data task_ud, bool ok)
{
	struct rec *r = task_ud.ptr;
	struct worker *w = r->cs->w;
	struct doca_task *task = doca_dma_task_memcpy_as_task(t);
	doca_error_t st = doca_task_get_status(task);
	enum doca_ctx_states cst;

	CHECK(w->in_progress && pthread_equal(pthread_self(), w->self)); /* only from progress */
	CHECK(r->inflight && r->slot != NULL); /* accepted, not yet reported */
	CHECK(++r->completions == 1);
	CHECK(ok == (st == DOCA_SUCCESS));
	check_guards(r);
	if (ok) {
		CHECK(!r->expect_fail);
		check_bytes(r);
		w->n.completed_ok++;
		w->n.bytes += r->len;
	} else {
		w->n.completed_err++;
		CHECK_OK(doca_ctx_get_state(r->cs->ctx, &cst));
		if (w->cfg->injected_errors && st == DOCA_ERROR_DRIVER)
			w->n.injected_err++;
		else
			/*
			 * fatal task or flushed by a stop: IO_FAILED, and the context is stopping
			 */
			CHECK(st == DOCA_ERROR_IO_FAILED &&
			      (r->expect_fail || cst == DOCA_CTX_STATE_STOPPING));
	}
	r->inflight = false;
	r->cs->inflight--;
	doca_task_free(task);
	rec_release(r);
}

static void ok_cb(struct doca_dma_task_memcpy *t, union doca_data tud, union doca_data cud)
{
	(void)cud;
	on_completion(t, tud, true);
}

static void err_cb(struct doca_dma_task_memcpy *t, union doca_data tud, union doca_data cud)
{
	(void)cud;
	on_completion(t, tud, false);
}

static uint8_t progress(struct worker *w)
{
	uint8_t r;

	w->in_progress = true;
	r = doca_pe_progress(w->pe);
	w->in_progress = false;
	return r;
}

/* Splits @len into @n parts of at least one byte each. */
static void split(struct worker *w, size_t len, unsigned int n, size_t *parts)
{
	size_t left = len;

	for (unsigned int i = 0; i + 1 < n; i++) {
		parts[i] = rnd_in(w, 1, left - (n - 1 - i));
		left -= parts[i];
	}
	parts[n - 1] = left;
}

static size_t pick_len(struct worker *w, bool *big)
{
	uint64_t c = rnd(w) % 1000;
	uint64_t small_max = w->max_buf < SMALL_MAX ? w->max_buf : SMALL_MAX;

	*big = false;
	if (c < 900)
		return rnd_in(w, 1, small_max < 256 ? small_max : 256);
	if (c < 998 || w->big_busy)
		return rnd_in(w, 1, small_max);
	*big = true;
	return rnd_in(w, 1, w->max_buf);
}

static unsigned int pick_segs(struct worker *w, size_t len)
{
	unsigned int max = w->max_list < MAX_SEGS ? w->max_list : MAX_SEGS;

	if (max < 2 || len < 2 || rnd(w) % 5 != 0)
		return 1;
	return (unsigned int)rnd_in(w, 2, len < max ? len : max);
}

/* Lays the source elements out at random places in the source region and gets their bufs. */
static void make_src(struct worker *w, struct rec *r)
{
	bool counted = false;

	for (unsigned int i = 0; i < r->ns; i++) {
		size_t off = rnd_in(w, 0, w->src_len - r->sl[i]);

		r->sp[i] = w->src + off;
		if (w->rmm != NULL && rnd(w) % 2 == 0) { /* read across the process boundary */
			r->sp[i] = w->rem->expect + off;
			CHECK_OK(doca_buf_inventory_buf_get_by_data(
			        w->inv, w->rmm, (void *)(uintptr_t)(w->rem->addr + off), r->sl[i],
			        &r->sb[i]));
			w->n.remote += !counted;
			counted = true;
		} else {
			CHECK_OK(doca_buf_inventory_buf_get_by_data(
			        w->inv, w->src_mmap, (void *)r->sp[i], r->sl[i], &r->sb[i]));
		}
		if (i > 0)
			CHECK_OK(doca_buf_chain_list(r->sb[0], r->sb[i]));
	}
}

/* Lays the destination elements out in the slot with guards between them, canaries all round. */
static void make_dst(struct worker *w, struct rec *r)
{
	uint8_t *p = r->slot + GUARD;

	r->slack = rnd_in(w, 0, SLACK_MAX);
	for (unsigned int j = 0; j < r->nd; j++) {
		r->dp[j] = p;
		p += r->dl[j] + (j + 1 < r->nd ? GUARD : 0);
	}
	r->used = (size_t)(p - r->slot) + r->slack + GUARD;
	memset(r->slot, CANARY, r->used);
	for (unsigned int j = 0; j < r->nd; j++) {
		size_t cap = r->dl[j] + (j + 1 == r->nd ? r->slack : 0);

		CHECK_OK(doca_buf_inventory_buf_get_by_addr(w->inv, w->dst_mmap, r->dp[j], cap,
		                                            &r->db[j]));
		if (j > 0)
			CHECK_OK(doca_buf_chain_list(r->db[0], r->db[j]));
	}
}

static struct rec *free_rec(struct ctx_state *cs)
{
	for (unsigned int i = 0; i < NSLOT; i++)
		if (cs->recs[i].slot == NULL)
			return &cs->recs[i];
	return NULL;
}

/* Builds a random task (or a zero-length "fatal" one) in a free record of @cs. */
static void build(struct worker *w, struct ctx_state *cs, struct rec *r, bool zero)
{
	size_t len = pick_len(w, &r->big);

	r->cs = cs;
	r->completions = 0;
	r->inflight = false;
	r->expect_fail = zero;
	if (zero) {
		r->big = false;
		len = 16;
	}
	r->slot = r->big ? w->big_slot
	                 : cs->slots + (size_t)(r - cs->recs) * (SMALL_MAX + SLOT_OVERHEAD);
	w->big_busy |= r->big;
	r->len = len;
	r->ns = zero ? 1 : pick_segs(w, len);
	r->nd = zero ? 1 : pick_segs(w, len);
	split(w, len, r->ns, r->sl);
	split(w, len, r->nd, r->dl);
	if (r->ns > 1 || r->nd > 1)
		w->n.lists++;
	make_src(w, r);
	make_dst(w, r);
	if (zero) /* a source buf with an empty data segment */
		CHECK_OK(doca_buf_set_data_len(r->sb[0], 0));
}

static doca_error_t submit(struct worker *w, struct doca_task *t, bool zero)
{
	uint64_t c = rnd(w) % 10;

	if (zero || c < 6)
		return doca_task_submit(t);
	if (c < 8)
		return doca_task_try_submit(t);
	return doca_task_submit_ex(t, DOCA_TASK_SUBMIT_FLAG_FLUSH);
}

/* Submits, retrying AGAIN a few times; returns the final answer. */
static doca_error_t submit_retry(struct worker *w, struct doca_task *t, bool zero)
{
	doca_error_t rc;

	for (unsigned int tries = 0;; tries++) {
		rc = submit(w, t, zero);
		if (rc != DOCA_ERROR_AGAIN)
			return rc;
		w->n.again++;
		if (tries == 64)
			return rc;
		if (progress(w) == 0)
			sched_yield(); /* the queue drains on an engine thread; let it run */
	}
}

static void issue(struct worker *w, struct ctx_state *cs, struct rec *r)
{
	bool zero = rnd(w) % 5000 == 0;
	union doca_data ud = { .ptr = r };
	struct doca_dma_task_memcpy *t;
	doca_error_t rc;

	build(w, cs, r, zero);
	rc = doca_dma_task_memcpy_alloc_init(cs->dma, r->sb[0], r->db[0], ud, &t);
	if (rc != DOCA_SUCCESS) { /* the context left RUNNING during the progress in step() */
		CHECK(rc == DOCA_ERROR_BAD_STATE);
		w->n.rejected++;
		rec_release(r);
		return;
	}
	r->inflight = true; /* before submit: a callback may not run inside it, but be safe */
	rc = submit_retry(w, doca_dma_task_memcpy_as_task(t), zero);
	if (rc == DOCA_SUCCESS) {
		cs->inflight++;
		w->n.accepted++;
		w->n.fatal += zero;
		return;
	}
	/* rejected: stays ours, never reported */
	CHECK(rc == DOCA_ERROR_AGAIN || rc == DOCA_ERROR_BAD_STATE);
	CHECK(r->completions == 0);
	r->inflight = false;
	w->n.rejected++;
	doca_task_free(doca_dma_task_memcpy_as_task(t));
	rec_release(r);
}

/* Synchronous rejections that must leave no trace: try_submit of an empty source, oversize. */
static void reject_probe(struct worker *w, struct ctx_state *cs)
{
	struct doca_buf *s, *d;
	struct doca_dma_task_memcpy *t = (void *)&t; /* sentinel: must stay untouched */
	union doca_data ud = { .u64 = 0 };
	void *before = t;

	if (w->src_len <= w->max_buf || w->big_busy)
		return;
	CHECK_OK(doca_buf_inventory_buf_get_by_data(w->inv, w->src_mmap, w->src, w->max_buf + 1,
	                                            &s));
	CHECK_OK(doca_buf_inventory_buf_get_by_addr(w->inv, w->dst_mmap, w->big_slot, 64, &d));
	CHECK(doca_dma_task_memcpy_alloc_init(cs->dma, s, d, ud, &t) == DOCA_ERROR_INVALID_VALUE);
	CHECK(t == before);
	CHECK_OK(doca_buf_set_data_len(s, 0));
	CHECK_OK(doca_dma_task_memcpy_alloc_init(cs->dma, s, d, ud, &t));
	CHECK(doca_task_try_submit(doca_dma_task_memcpy_as_task(t)) != DOCA_SUCCESS);
	doca_task_free(doca_dma_task_memcpy_as_task(t));
	CHECK_OK(doca_buf_dec_refcount(s, NULL));
	CHECK_OK(doca_buf_dec_refcount(d, NULL));
	w->n.rejected += 2;
}

/* Progresses @cs until IDLE (bounded): contexts always get there, and only once every
 * task was reported. */
static void drain(struct worker *w, struct ctx_state *cs)
{
	enum doca_ctx_states st;
	unsigned long i;

	for (i = 0; i < IDLE_LOOPS; i++) {
		CHECK_OK(doca_ctx_get_state(cs->ctx, &st));
		if (st == DOCA_CTX_STATE_IDLE)
			break;
		progress(w);
	}
	CHECK(i < IDLE_LOOPS);
	CHECK(cs->inflight == 0);
}

/* A context that is not RUNNING (our stop, a fatal task, an injected failure): restart it. */
static void recover(struct worker *w, struct ctx_state *cs)
{
	drain(w, cs);
	CHECK_OK(doca_ctx_start(cs->ctx));
	w->n.restarts++;
}

static void stop_ctx(struct worker *w, struct ctx_state *cs)
{
	doca_error_t rc = doca_ctx_stop(cs->ctx);

	CHECK(rc == DOCA_SUCCESS || rc == DOCA_ERROR_IN_PROGRESS);
	w->n.stops++;
}

static bool want_more(struct worker *w)
{
	struct timespec now;

	if (w->n.accepted < w->quota)
		return true;
	if (w->p->seconds <= 0)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - w->t0.tv_sec) + (now.tv_nsec - w->t0.tv_nsec) / 1e9 <
	       w->p->seconds;
}

static void step(struct worker *w)
{
	struct ctx_state *cs = &w->cs[rnd(w) % w->p->ctxs];
	enum doca_ctx_states st;
	struct rec *r;

	CHECK_OK(doca_ctx_get_state(cs->ctx, &st));
	if (st != DOCA_CTX_STATE_RUNNING) {
		recover(w, cs);
		return;
	}
	if (rnd(w) % 20000 == 0) {
		stop_ctx(w, cs);
		return;
	}
	if (rnd(w) % 50000 == 0)
		reject_probe(w, cs);
	r = free_rec(cs);
	if (r == NULL || rnd(w) % 4 == 0)
		progress(w);
	if (r != NULL)
		issue(w, cs, r);
}

static struct doca_mmap *map(struct worker *w, void *addr, size_t len)
{
	struct doca_mmap *m;

	CHECK_OK(doca_mmap_create(&m));
	CHECK_OK(doca_mmap_add_dev(m, w->dev));
	CHECK_OK(doca_mmap_set_memrange(m, addr, len));
	CHECK_OK(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	CHECK_OK(doca_mmap_start(m));
	return m;
}

static void worker_setup(struct worker *w)
{
	size_t slot_bytes = (size_t)NSLOT * (SMALL_MAX + SLOT_OVERHEAD);

	w->src_len = w->max_buf + SMALL_MAX;
	w->dst_len = slot_bytes * w->p->ctxs + w->max_buf + SLOT_OVERHEAD;
	w->src = malloc(w->src_len);
	w->dst = malloc(w->dst_len);
	CHECK(w->src != NULL && w->dst != NULL);
	fill_pattern(w->src, w->src_len, w->id + 1);
	w->big_slot = w->dst + slot_bytes * w->p->ctxs;
	w->src_mmap = map(w, w->src, w->src_len);
	if (w->rem != NULL) {
		CHECK(w->rem->len == w->src_len);
		CHECK_OK(doca_mmap_create_from_export(NULL, w->rem->desc, w->rem->desc_len, w->dev,
		                                      &w->rmm));
	}
	w->dst_mmap = map(w, w->dst, w->dst_len);
	CHECK_OK(doca_buf_inventory_create(NSLOT * MAX_SEGS * 2 * w->p->ctxs + 8, &w->inv));
	CHECK_OK(doca_buf_inventory_start(w->inv));
	CHECK_OK(doca_pe_create(&w->pe));
	w->cs = calloc(w->p->ctxs, sizeof(*w->cs));
	CHECK(w->cs != NULL);
	for (unsigned int c = 0; c < w->p->ctxs; c++) {
		struct ctx_state *cs = &w->cs[c];

		cs->w = w;
		cs->slots = w->dst + slot_bytes * c;
		CHECK_OK(doca_dma_create(w->dev, &cs->dma));
		cs->ctx = doca_dma_as_ctx(cs->dma);
		CHECK_OK(doca_dma_task_memcpy_set_conf(cs->dma, ok_cb, err_cb, NSLOT + 1));
		CHECK_OK(doca_pe_connect_ctx(w->pe, cs->ctx));
		CHECK_OK(doca_ctx_start(cs->ctx));
	}
}

static void worker_teardown(struct worker *w)
{
	uint8_t *ref = malloc(w->src_len);

	for (unsigned int c = 0; c < w->p->ctxs; c++) {
		struct ctx_state *cs = &w->cs[c];
		doca_error_t rc = doca_ctx_stop(cs->ctx);

		CHECK(rc == DOCA_SUCCESS || rc == DOCA_ERROR_IN_PROGRESS);
		drain(w, cs);
		CHECK_OK(doca_dma_destroy(cs->dma));
		for (unsigned int i = 0; i < NSLOT; i++)
			CHECK(!cs->recs[i].inflight && cs->recs[i].slot == NULL);
	}
	CHECK_OK(doca_pe_destroy(w->pe));
	CHECK_OK(doca_buf_inventory_stop(w->inv));
	CHECK_OK(doca_buf_inventory_destroy(w->inv));
	CHECK_OK(doca_mmap_destroy(w->src_mmap));
	if (w->rmm != NULL)
		CHECK_OK(doca_mmap_destroy(w->rmm));
	CHECK_OK(doca_mmap_destroy(w->dst_mmap));
	/* the library only reads sources */
	CHECK(ref != NULL);
	fill_pattern(ref, w->src_len, w->id + 1);
	CHECK(memcmp(ref, w->src, w->src_len) == 0);
	free(ref);
	free(w->cs);
	free(w->src);
	free(w->dst);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	w->self = pthread_self();
	clock_gettime(CLOCK_MONOTONIC, &w->t0);
	worker_setup(w);
	while (want_more(w))
		step(w);
	worker_teardown(w);
	/* every accepted task was reported exactly once */
	CHECK(w->n.accepted == w->n.completed_ok + w->n.completed_err);
	return NULL;
}

/* The first memcpy-capable device, or the one at @pci. */
static struct doca_dev *open_dev(const char *pci)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint8_t is = 1;
	uint32_t n;

	CHECK_OK(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n && dev == NULL; i++) {
		if (pci != NULL)
			CHECK_OK(doca_devinfo_is_equal_pci_addr(list[i], pci, &is));
		if (is && doca_dma_cap_task_memcpy_is_supported(list[i]) == DOCA_SUCCESS)
			CHECK_OK(doca_dev_open(list[i], &dev));
	}
	CHECK_OK(doca_devinfo_destroy_list(list));
	CHECK(dev != NULL);
	return dev;
}

static bool full_io(int fd, void *p, size_t n, bool wr)
{
	while (n > 0) {
		ssize_t k = wr ? write(fd, p, n) : read(fd, p, n);

		if (k <= 0)
			return false;
		p = (uint8_t *)p + k;
		n -= (size_t)k;
	}
	return true;
}

/* The exporter process (host side): maps a pattern-filled region for PCI reads, sends the
 * descriptor and the address, and keeps the export alive until the importer closes the socket. */
static void exporter_main(int fd, size_t len)
{
	struct doca_dev *dev = open_dev("b1:00.0");
	uint8_t *mem = malloc(len);
	struct doca_mmap *m;
	const void *desc;
	uint64_t hdr[3];
	char c;

	CHECK(mem != NULL);
	fill_pattern(mem, len, 1000);
	CHECK_OK(doca_mmap_create(&m));
	CHECK_OK(doca_mmap_set_memrange(m, mem, len));
	CHECK_OK(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_ONLY));
	CHECK_OK(doca_mmap_add_dev(m, dev));
	CHECK_OK(doca_mmap_start(m));
	CHECK_OK(doca_mmap_export_pci(m, dev, &desc, (size_t *)&hdr[0]));
	hdr[1] = (uint64_t)(uintptr_t)mem;
	hdr[2] = len;
	CHECK(full_io(fd, hdr, sizeof(hdr), true) && full_io(fd, (void *)desc, hdr[0], true));
	while (read(fd, &c, 1) > 0)
		;
	CHECK_OK(doca_mmap_destroy(m));
	CHECK_OK(doca_dev_close(dev));
	free(mem);
	_exit(0);
}

static void remote_start(struct remote *rem, size_t len)
{
	uint64_t hdr[3];
	int sv[2];

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	rem->pid = fork();
	CHECK(rem->pid >= 0);
	if (rem->pid == 0) {
		close(sv[0]);
		exporter_main(sv[1], len);
	}
	close(sv[1]);
	rem->fd = sv[0];
	CHECK(full_io(rem->fd, hdr, sizeof(hdr), false) && hdr[0] <= sizeof(rem->desc));
	CHECK(full_io(rem->fd, rem->desc, hdr[0], false));
	rem->desc_len = hdr[0];
	rem->addr = hdr[1];
	rem->len = hdr[2];
	rem->expect = malloc(len);
	CHECK(rem->expect != NULL);
	fill_pattern(rem->expect, len, 1000);
}

static void remote_end(struct remote *rem)
{
	int st;

	close(rem->fd); /* the exporter's cue to stop */
	CHECK(waitpid(rem->pid, &st, 0) == rem->pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	free(rem->expect);
}

static void child(const struct stress_config *cfg, const struct stress_params *p, int fd)
{
	struct worker *ws = calloc(p->threads, sizeof(*ws));
	struct stress_counts sum = { 0 };
	struct doca_dev *dev = open_dev(cfg->remote ? "03:00.0" : NULL);
	struct remote rem;
	uint64_t max_buf;
	uint32_t max_list;

	CHECK(ws != NULL);
	CHECK_OK(doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(dev), &max_buf));
	CHECK_OK(
	        doca_dma_cap_task_memcpy_get_max_buf_list_len(doca_dev_as_devinfo(dev), &max_list));
	if (cfg->remote)
		remote_start(&rem, max_buf + SMALL_MAX);
	for (unsigned int i = 0; i < p->threads; i++) {
		ws[i] = (struct worker){ .id = i,
			                 .cfg = cfg,
			                 .p = p,
			                 .dev = dev,
			                 .max_buf = max_buf,
			                 .max_list = max_list,
			                 .rng = (p->seed + 1) * 0x9E3779B97F4A7C15ull ^ (i + 1),
			                 .quota = p->tasks / p->threads +
			                          (i < p->tasks % p->threads),
			                 .rem = cfg->remote ? &rem : NULL };
		CHECK(pthread_create(&ws[i].tid, NULL, worker_main, &ws[i]) == 0);
	}
	for (unsigned int i = 0; i < p->threads; i++) {
		CHECK(pthread_join(ws[i].tid, NULL) == 0);
		stress_add(&sum, &ws[i].n);
	}
	CHECK_OK(doca_dev_close(dev));
	if (cfg->remote)
		remote_end(&rem);
	free(ws);
	CHECK(write(fd, &sum, sizeof(sum)) == (ssize_t)sizeof(sum));
}

static void set_env(const struct stress_config *cfg, char *profile_path)
{
	if (cfg->engine != NULL)
		setenv("ODMA_ENGINE", cfg->engine, 1);
	if (cfg->faults != NULL)
		setenv("ODMA_FAULTS", cfg->faults, 1);
	else
		unsetenv("ODMA_FAULTS");
	if (cfg->profile != NULL)
		setenv("ODMA_SYSTEM", profile_path, 1);
}

static int write_profile(const char *text, char *path, size_t n)
{
	int fd;

	snprintf(path, n, "%s/odma-stress-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

int stress_run_config(const struct stress_config *cfg, const struct stress_params *p,
                      struct stress_counts *out)
{
	char path[256] = "";
	int fds[2], st;
	pid_t pid;
	ssize_t got;

	memset(out, 0, sizeof(*out));
	if (cfg->profile != NULL && write_profile(cfg->profile, path, sizeof(path)) != 0)
		return -1;
	if (pipe(fds) != 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		set_env(cfg, path);
		child(cfg, p, fds[1]);
		_exit(0);
	}
	close(fds[1]);
	got = pid > 0 ? read(fds[0], out, sizeof(*out)) : -1;
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		st = -1;
	if (path[0] != '\0')
		unlink(path);
	return got == (ssize_t)sizeof(*out) && st == 0 ? 0 : -1;
}

/* A small device: queue depth 8 makes AGAIN common, short lists and 256 KiB tasks. */
#define SMALL_PROFILE                                                                              \
	"system stress-small\n"                                                                    \
	"device side=host pci=0000:5e:00.0 ibdev=mlx5_4 iface=e0 memcpy=yes max_buf_size=256K"     \
	" max_buf_list_len=3 max_num_tasks=4096 queue_depth=8\n"

const struct stress_config stress_configs[] = {
	{ .name = "thread", .engine = "thread" },
	{ .name = "inline-smallq", .engine = "inline", .profile = SMALL_PROFILE },
	{ .name = "thread-faults",
	  .engine = "thread",
	  .injected_errors = true,
	  .faults = "seed=7,submit_again=0.02,complete_error=0.0003,delay_us=0-3,error=DRIVER" },
	{ .name = "thread-smallq-faults",
	  .engine = "thread",
	  .profile = SMALL_PROFILE,
	  .injected_errors = true,
	  .faults = "seed=11,submit_again=0.01,complete_error=0.0002,error=DRIVER" },
	{ .name = "thread-remote", .engine = "thread", .remote = true },
	{ .name = "inline-remote-faults",
	  .engine = "inline",
	  .remote = true,
	  .injected_errors = true,
	  .faults = "seed=5,submit_again=0.01,complete_error=0.0003,error=DRIVER" },
	{ .name = NULL },
};

void stress_add(struct stress_counts *s, const struct stress_counts *c)
{
	s->accepted += c->accepted;
	s->completed_ok += c->completed_ok;
	s->completed_err += c->completed_err;
	s->rejected += c->rejected;
	s->again += c->again;
	s->injected_err += c->injected_err;
	s->fatal += c->fatal;
	s->stops += c->stops;
	s->restarts += c->restarts;
	s->lists += c->lists;
	s->bytes += c->bytes;
	s->remote += c->remote;
}

void stress_print(const char *label, const struct stress_counts *c)
{
	printf("%-22s tasks %llu (ok %llu, failed %llu), rejected %llu, AGAIN %llu, injected "
	       "failures %llu, fatal %llu, stops %llu, restarts %llu, lists %llu, remote %llu, "
	       "bytes %llu\n",
	       label, (unsigned long long)c->accepted, (unsigned long long)c->completed_ok,
	       (unsigned long long)c->completed_err, (unsigned long long)c->rejected,
	       (unsigned long long)c->again, (unsigned long long)c->injected_err,
	       (unsigned long long)c->fatal, (unsigned long long)c->stops,
	       (unsigned long long)c->restarts, (unsigned long long)c->lists,
	       (unsigned long long)c->remote, (unsigned long long)c->bytes);
	fflush(stdout);
}
