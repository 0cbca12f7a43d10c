/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * API-sequence fuzzer: the input is a program. Each step reads an opcode and operand bytes
 * and makes one call on a small world of objects (a device, 2 mmaps, an inventory, 16 bufs,
 * 2 PEs, 3 DMA contexts, 16 tasks; 2 sync events, the second imported from the first's
 * export, with 8 sync event tasks) — valid and invalid: NULLs, wrong states, double frees,
 * zero-length and oversized ranges, foreign PEs, bad masks, a revoked export. It runs on
 * the inline engine (deterministic).
 *
 * Invariants (BEHAVIOR §1), checked after every step and at the end of each input:
 *  - a task accepted by a submit call gets exactly one callback, and only from
 *    doca_pe_progress; a rejected one gets none and stays ours;
 *  - create calls leave the out-parameter untouched on failure;
 *  - after stop + progress + free, every context is IDLE; everything can then be destroyed
 *    (no leaks across inputs: LeakSanitizer runs at exit and libFuzzer's -detect_leaks).
 * The model refuses only what the API leaves undefined: releasing a buf a live task still
 * uses, and using a handle after the call that destroyed its object succeeded.
 */
#include <stdbool.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_sync_event.h>

#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NMEM 2
#define MEMSZ 8192
#define NBUF 16
#define NPE 2
#define NCTX 3
#define NTASK 16
#define MAX_STEPS 512
#define IDLE_LOOPS 100000
#define NSE 2
#define NSETASK 8

enum tstate { T_NONE, T_ALLOC, T_INFLIGHT };

struct ftask {
	struct doca_task *t;
	enum tstate st;
	int ctx;
	int src, dst; /* pinned buf slots (roots) */
	unsigned int cbs, gen;
};

/* A sync event task slot: type 1 get, 2 notify_set, 3 notify_add, 4 wait_eq, 5 wait_neq. */
struct fsetask {
	struct doca_task *t;
	enum tstate st;
	int se, type;
	unsigned int cbs, gen;
	uint64_t out;
};

struct world {
	const uint8_t *in;
	size_t len, pos;
	bool free_in_cb;
	struct doca_dev *dev;
	uint8_t *mem[NMEM];
	struct doca_mmap *mm[NMEM];
	struct doca_buf_inventory *inv;
	struct doca_buf *buf[NBUF];
	int root[NBUF];     /* slot of the list head this buf belongs to (itself when a head) */
	unsigned int pin[NBUF]; /* live tasks using the list rooted here */
	struct doca_pe *pe[NPE];
	struct doca_dma *dma[NCTX];
	int ctx_pe[NCTX];
	struct ftask task[NTASK];
	bool in_progress;
	unsigned int gen;
	/* sync events: se[0] local, se[1] created from se[0]'s export (through dpu) */
	struct doca_dev *dpu;
	struct doca_sync_event *se[NSE];
	int se_pe[NSE];      /* 1 + PE index once connected */
	bool se_started[NSE]; /* doca_sync_event_start succeeded (and no stop since) */
	struct fsetask setask[NSETASK];
};

static struct world W;

static uint8_t next(void)
{
	return W.pos < W.len ? W.in[W.pos++] : 0;
}

static struct doca_ctx *ctx_of(int c)
{
	return W.dma[c] != NULL ? doca_dma_as_ctx(W.dma[c]) : NULL;
}

/* Unpins the bufs of task slot @i and forgets it. */
static void task_forget(int i)
{
	struct ftask *f = &W.task[i];

	if (f->src >= 0)
		W.pin[f->src]--;
	if (f->dst >= 0)
		W.pin[f->dst]--;
	memset(f, 0, sizeof(*f));
	f->src = f->dst = -1;
}

static void on_cb(struct doca_dma_task_memcpy *t, union doca_data tud, bool ok)
{
	int i = (int)(tud.u64 & 0xff);
	struct ftask *f;

	FUZZ_CHECK(W.in_progress); /* never from inside submit */
	FUZZ_CHECK(i < NTASK);
	f = &W.task[i];
	FUZZ_CHECK(f->gen == (unsigned int)(tud.u64 >> 8)); /* a task we own and submitted */
	FUZZ_CHECK(f->st == T_INFLIGHT && f->t == doca_dma_task_memcpy_as_task(t));
	FUZZ_CHECK(++f->cbs == 1);
	FUZZ_CHECK(ok == (doca_task_get_status(f->t) == DOCA_SUCCESS));
	f->st = T_ALLOC;
	if (W.free_in_cb) {
		doca_task_free(f->t);
		task_forget(i);
	}
}

static void ok_cb(struct doca_dma_task_memcpy *t, union doca_data tud, union doca_data cud)
{
	(void)cud;
	on_cb(t, tud, true);
}

static void err_cb(struct doca_dma_task_memcpy *t, union doca_data tud, union doca_data cud)
{
	(void)cud;
	on_cb(t, tud, false);
}

static void progress(int p, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		W.in_progress = true;
		doca_pe_progress(W.pe[p]);
		W.in_progress = false;
	}
}

static void op_mmap(void)
{
	int i = next() % NMEM;
	uint8_t what = next(), a = next(), b = next();
	struct doca_mmap *m = (void *)&m; /* sentinel: create must not touch it on failure */

	switch (what % 6) {
	case 0:
		if (W.mm[i] == NULL && doca_mmap_create(&m) == DOCA_SUCCESS)
			W.mm[i] = m;
		break;
	case 1:
		doca_mmap_add_dev(W.mm[i], (a & 1) ? W.dev : NULL);
		break;
	case 2: /* offset and length within, past, or far past the region; or zero */
		doca_mmap_set_memrange(W.mm[i], W.mem[i] + a % 64, b == 255 ? (size_t)-1 : (size_t)b * 32);
		break;
	case 3:
		doca_mmap_set_permissions(W.mm[i], (uint32_t)a << (b % 4));
		break;
	case 4:
		doca_mmap_start(W.mm[i]);
		break;
	default:
		if (doca_mmap_destroy(W.mm[i]) == DOCA_SUCCESS)
			W.mm[i] = NULL;
	}
}

static void op_inv(void)
{
	uint8_t what = next(), a = next();
	struct doca_buf_inventory *inv = (void *)&inv;

	switch (what % 4) {
	case 0:
		if (W.inv == NULL && doca_buf_inventory_create(a % 20, &inv) == DOCA_SUCCESS)
			W.inv = inv;
		else
			FUZZ_CHECK(W.inv != NULL || inv == (void *)&inv);
		break;
	case 1:
		doca_buf_inventory_start(W.inv);
		break;
	case 2:
		doca_buf_inventory_stop(W.inv);
		break;
	default:
		if (doca_buf_inventory_destroy(W.inv) == DOCA_SUCCESS)
			W.inv = NULL;
	}
}

static void op_buf_get(void)
{
	int k = next() % NBUF, i = next() % NMEM;
	uint8_t how = next(), off = next(), ln = next();
	size_t len = ln == 255 ? (size_t)1 << 40 : (size_t)ln * 17;
	struct doca_buf *b = (void *)&b;
	doca_error_t rc;

	if (W.buf[k] != NULL)
		return;
	if (how & 1)
		rc = doca_buf_inventory_buf_get_by_addr(W.inv, W.mm[i], W.mem[i] + off * 16, len, &b);
	else
		rc = doca_buf_inventory_buf_get_by_data(W.inv, W.mm[i], W.mem[i] + off * 16, len, &b);
	if (rc == DOCA_SUCCESS) {
		W.buf[k] = b;
		W.root[k] = k;
	} else {
		FUZZ_CHECK(b == (void *)&b);
	}
}

/* Releases list head @k (every element with it) unless a live task still uses it. */
static void op_buf_release(void)
{
	int k = next() % NBUF;
	doca_error_t rc;
	uint16_t rcnt = 1;

	if (W.buf[k] == NULL || W.pin[W.root[k]] > 0)
		return;
	rc = doca_buf_dec_refcount(W.buf[k], &rcnt);
	if (W.root[k] != k) {
		FUZZ_CHECK(rc == DOCA_ERROR_NOT_PERMITTED); /* not the head of its list */
		return;
	}
	FUZZ_CHECK(rc == DOCA_SUCCESS);
	if (rcnt > 0)
		return;
	/* a double release is refused while the buf is still free */
	FUZZ_CHECK(doca_buf_dec_refcount(W.buf[k], NULL) == DOCA_ERROR_BAD_STATE);
	for (int j = 0; j < NBUF; j++)
		if (W.buf[j] != NULL && W.root[j] == k && j != k)
			W.buf[j] = NULL;
	W.buf[k] = NULL;
}

static void op_buf_misc(void)
{
	int k1 = next() % NBUF, k2 = next() % NBUF;
	uint8_t what = next();
	struct doca_buf *b1 = W.buf[k1], *b2 = W.buf[k2];

	if (what % 3 == 0) {
		if (b1 != NULL && b2 != NULL && (W.pin[W.root[k1]] || W.pin[W.root[k2]]))
			return;
		if (doca_buf_chain_list(b1, b2) == DOCA_SUCCESS) {
			FUZZ_CHECK(b1 != NULL && b2 != NULL && W.root[k2] == k2 && W.root[k1] != k2);
			for (int j = 0; j < NBUF; j++)
				if (W.buf[j] != NULL && W.root[j] == k2)
					W.root[j] = W.root[k1];
		}
	} else if (what % 3 == 1) {
		doca_buf_set_data_len(b1, (size_t)next() * 8);
	} else {
		size_t n;

		doca_buf_get_data_len(b1, &n);
		doca_buf_get_len(b1, &n);
	}
}

static void op_pe(void)
{
	int p = next() % NPE;
	struct doca_pe *pe = (void *)&pe;

	if (W.pe[p] == NULL) {
		if (doca_pe_create(&pe) == DOCA_SUCCESS)
			W.pe[p] = pe;
		return;
	}
	if (next() & 1) {
		progress(p, 1 + next() % 8);
		return;
	}
	if (doca_pe_destroy(W.pe[p]) == DOCA_SUCCESS) {
		for (int c = 0; c < NCTX; c++)
			FUZZ_CHECK(W.ctx_pe[c] != p + 1); /* a PE with contexts must refuse */
		for (int e = 0; e < NSE; e++)
			FUZZ_CHECK(W.se_pe[e] != p + 1);
		W.pe[p] = NULL;
	}
}

static void op_ctx(void)
{
	int c = next() % NCTX;
	uint8_t what = next(), a = next();
	struct doca_dma *d = (void *)&d;
	struct doca_ctx *ctx = ctx_of(c);

	switch (what % 6) {
	case 0:
		if (W.dma[c] == NULL && doca_dma_create((a & 7) ? W.dev : NULL, &d) == DOCA_SUCCESS)
			W.dma[c] = d;
		else if (W.dma[c] == NULL)
			FUZZ_CHECK(d == (void *)&d);
		break;
	case 1:
		doca_dma_task_memcpy_set_conf(W.dma[c], (a & 1) ? ok_cb : NULL, err_cb, a % 9);
		break;
	case 2:
		if (doca_pe_connect_ctx(W.pe[a % NPE], ctx) == DOCA_SUCCESS) {
			FUZZ_CHECK(W.ctx_pe[c] == 0);
			W.ctx_pe[c] = a % NPE + 1;
		}
		break;
	case 3:
		doca_ctx_start(ctx);
		break;
	case 4:
		doca_ctx_stop(ctx);
		break;
	default:
		if (doca_dma_destroy(W.dma[c]) == DOCA_SUCCESS) {
			for (int i = 0; i < NTASK; i++)
				FUZZ_CHECK(W.task[i].st == T_NONE || W.task[i].ctx != c); /* none left */
			W.dma[c] = NULL;
			W.ctx_pe[c] = 0;
		}
	}
}

static struct doca_buf *pick_buf(uint8_t k, int *slot)
{
	*slot = -1;
	if (k >= NBUF || W.buf[k] == NULL)
		return NULL; /* a NULL buf, on purpose */
	*slot = k;
	return W.buf[k];
}

static void op_task_alloc(void)
{
	int i = next() % NTASK, c = next() % NCTX, s, d;
	struct doca_buf *src = pick_buf(next() % (NBUF + 2), &s), *dst = pick_buf(next() % (NBUF + 2), &d);
	struct doca_dma_task_memcpy *t = (void *)&t;
	union doca_data ud;

	if (W.task[i].st != T_NONE)
		return;
	ud.u64 = (uint64_t)i | (uint64_t)(++W.gen) << 8;
	if (doca_dma_task_memcpy_alloc_init(W.dma[c], src, dst, ud, &t) != DOCA_SUCCESS) {
		FUZZ_CHECK(t == (void *)&t);
		return;
	}
	/* the task holds the lists it names: pin their heads */
	W.task[i] = (struct ftask){ .t = doca_dma_task_memcpy_as_task(t), .st = T_ALLOC, .ctx = c,
				    .src = s >= 0 ? W.root[s] : -1, .dst = d >= 0 ? W.root[d] : -1,
				    .gen = W.gen };
	if (W.task[i].src >= 0)
		W.pin[W.task[i].src]++;
	if (W.task[i].dst >= 0)
		W.pin[W.task[i].dst]++;
}

static void op_task_submit(void)
{
	int i = next() % NTASK;
	uint8_t how = next();
	struct ftask *f = &W.task[i];
	doca_error_t rc;

	if (f->st == T_NONE) {
		FUZZ_CHECK(doca_task_submit(NULL) == DOCA_ERROR_INVALID_VALUE);
		return;
	}
	if (how % 3 == 0)
		rc = doca_task_submit(f->t);
	else if (how % 3 == 1)
		rc = doca_task_try_submit(f->t);
	else
		rc = doca_task_submit_ex(f->t, DOCA_TASK_SUBMIT_FLAG_FLUSH);
	if (f->st == T_INFLIGHT || f->cbs > 0) {
		/* resubmitting a task in flight, or one already reported, must be refused */
		FUZZ_CHECK(f->st != T_INFLIGHT || rc != DOCA_SUCCESS);
		if (f->st == T_INFLIGHT || rc != DOCA_SUCCESS)
			return;
	}
	if (rc == DOCA_SUCCESS) {
		f->st = T_INFLIGHT;
		f->cbs = 0;
	}
}

static void op_task_free(void)
{
	int i = next() % NTASK;
	struct ftask *f = &W.task[i];

	if (f->st == T_NONE) {
		doca_task_free(NULL);
		return;
	}
	doca_task_free(f->t); /* refused (logged) while in flight */
	if (f->st == T_ALLOC) {
		doca_task_free(f->t); /* double free: refused, the pool stays consistent */
		task_forget(i);
	}
}


static struct doca_ctx *se_ctx(int e)
{
	return doca_sync_event_as_ctx(W.se[e]);
}

static void se_on_cb(struct doca_task *t, union doca_data tud, bool ok)
{
	int i = (int)(tud.u64 & 0xff);
	struct fsetask *f;

	FUZZ_CHECK(W.in_progress);
	FUZZ_CHECK(i < NSETASK);
	f = &W.setask[i];
	FUZZ_CHECK(f->gen == (unsigned int)(tud.u64 >> 8));
	FUZZ_CHECK(f->st == T_INFLIGHT && f->t == t);
	FUZZ_CHECK(++f->cbs == 1);
	FUZZ_CHECK(ok == (doca_task_get_status(t) == DOCA_SUCCESS));
	f->st = T_ALLOC;
	if (W.free_in_cb) {
		doca_task_free(t);
		memset(f, 0, sizeof(*f));
	}
}

#define SE_CBS(name)                                                                               \
	static void name##_cb_ok(struct doca_sync_event_task_##name *t, union doca_data tud,       \
				 union doca_data cud)                                              \
	{                                                                                          \
		(void)cud;                                                                         \
		se_on_cb(doca_sync_event_task_##name##_as_doca_task(t), tud, true);                \
	}                                                                                          \
	static void name##_cb_err(struct doca_sync_event_task_##name *t, union doca_data tud,      \
				  union doca_data cud)                                             \
	{                                                                                          \
		(void)cud;                                                                         \
		se_on_cb(doca_sync_event_task_##name##_as_doca_task(t), tud, false);               \
	}
SE_CBS(get)
SE_CBS(notify_set)
SE_CBS(notify_add)
SE_CBS(wait_eq)
SE_CBS(wait_neq)

/* Wait masks: valid ones, invalid ones, and 0. */
static uint64_t se_mask(uint8_t m)
{
	static const uint64_t masks[] = { UINT64_MAX, 0xff, 0xff00, 0xffff, 0xffff0000ull, 0, 0xf0, 0xff00ff };

	return masks[m % 8];
}

static void op_se_obj(void)
{
	int e = next() % NSE;
	uint8_t what = next(), a = next();
	struct doca_sync_event *x = (void *)&x;
	const uint8_t *blob = NULL;
	size_t sz = 0;

	switch (what % 9) {
	case 0: /* se[0] is created; se[1] comes from the export of se[0] */
		if (W.se[e] != NULL)
			break;
		if (e == 0) {
			if (doca_sync_event_create(&x) == DOCA_SUCCESS)
				W.se[0] = x;
			else
				FUZZ_CHECK(x == (void *)&x);
		} else if (W.se[0] != NULL &&
			   doca_sync_event_export_to_remote_pci(W.se[0], (a & 1) ? W.dpu : W.dev, &blob, &sz) ==
				   DOCA_SUCCESS) {
			FUZZ_CHECK(blob != NULL && sz > 0 && sz <= 1024);
			if (doca_sync_event_create_from_export((a & 2) ? W.dev : W.dpu, blob, sz - (a & 4 ? 1 : 0),
							       &x) == DOCA_SUCCESS)
				W.se[1] = x;
			else
				FUZZ_CHECK(x == (void *)&x);
		}
		break;
	case 1:
		doca_sync_event_add_publisher_location_remote_pci(W.se[e]);
		doca_sync_event_add_subscriber_location_cpu(W.se[e], (a & 1) ? W.dpu : NULL);
		break;
	case 2:
		if (doca_sync_event_start(W.se[e]) == DOCA_SUCCESS) {
			FUZZ_CHECK(W.se_pe[e] == 0 && !W.se_started[e]);
			W.se_started[e] = true;
		}
		break;
	case 3:
		if (doca_sync_event_stop(W.se[e]) == DOCA_SUCCESS)
			W.se_started[e] = false;
		break;
	case 4:
		if (doca_pe_connect_ctx(W.pe[a % NPE], se_ctx(e)) == DOCA_SUCCESS) {
			FUZZ_CHECK(W.se_pe[e] == 0);
			W.se_pe[e] = a % NPE + 1;
		}
		break;
	case 5: {
		uint32_t n = a % 4;

		switch (next() % 5) {
		case 0:
			doca_sync_event_task_get_set_conf(W.se[e], get_cb_ok, get_cb_err, n);
			break;
		case 1:
			doca_sync_event_task_notify_set_set_conf(W.se[e], notify_set_cb_ok, notify_set_cb_err, n);
			break;
		case 2:
			doca_sync_event_task_notify_add_set_conf(W.se[e], notify_add_cb_ok, notify_add_cb_err, n);
			break;
		case 3:
			doca_sync_event_task_wait_eq_set_conf(W.se[e], wait_eq_cb_ok, (a & 4) ? NULL : wait_eq_cb_err,
							      n);
			break;
		default:
			doca_sync_event_task_wait_neq_set_conf(W.se[e], wait_neq_cb_ok, wait_neq_cb_err, n);
		}
		break;
	}
	case 6:
		doca_ctx_start(se_ctx(e));
		break;
	case 7:
		doca_ctx_stop(se_ctx(e));
		break;
	default:
		if (e == 0 && W.se[1] != NULL && (a & 1))
			break; /* keep the importer's exporter alive most of the time */
		if (doca_sync_event_destroy(W.se[e]) == DOCA_SUCCESS) {
			for (int i = 0; i < NSETASK; i++)
				FUZZ_CHECK(W.setask[i].st == T_NONE || W.setask[i].se != e);
			W.se[e] = NULL;
			W.se_pe[e] = 0;
			W.se_started[e] = false;
		}
	}
}

/* The synchronous data path; a blocking wait only when it cannot block. */
static void op_se_data(void)
{
	int e = next() % NSE;
	uint8_t what = next(), a = next();
	uint64_t v = 0, f;

	switch (what % 5) {
	case 0:
		doca_sync_event_update_set(W.se[e], a);
		break;
	case 1:
		if (doca_sync_event_update_add(W.se[e], (a & 0x80) ? UINT64_MAX : a, &f) == DOCA_SUCCESS)
			FUZZ_CHECK(doca_sync_event_get(W.se[e], &v) == DOCA_SUCCESS);
		break;
	case 2: /* holds now: returns at once */
		if (doca_sync_event_get(W.se[e], &v) == DOCA_SUCCESS) {
			FUZZ_CHECK(doca_sync_event_wait_eq(W.se[e], v & se_mask(a), se_mask(a)) == DOCA_SUCCESS);
			FUZZ_CHECK(doca_sync_event_wait_neq_yield(W.se[e], ~v & 0xff, 0xff) == DOCA_SUCCESS);
		}
		break;
	case 3: /* can never hold: refused, never blocks */
		FUZZ_CHECK(doca_sync_event_wait_eq(W.se[e], 0x100, 0xff) != DOCA_SUCCESS);
		FUZZ_CHECK(doca_sync_event_wait_gt_yield(W.se[e], 0xff, 0xff) != DOCA_SUCCESS);
		break;
	default:
		doca_sync_event_get(W.se[e], (a & 1) ? &v : NULL);
	}
}

static void op_se_task(void)
{
	int i = next() % NSETASK, e = next() % NSE;
	uint8_t what = next(), a = next(), b = next();
	struct fsetask *f = &W.setask[i];
	union doca_data ud;
	void *t = (void *)&t;
	doca_error_t rc;

	if (what % 3 == 0) { /* alloc */
		if (f->st != T_NONE)
			return;
		ud.u64 = (uint64_t)i | (uint64_t)(++W.gen) << 8;
		switch (a % 5) {
		case 0:
			rc = doca_sync_event_task_get_alloc_init(W.se[e], (b & 1) ? &f->out : NULL, ud,
								 (struct doca_sync_event_task_get **)&t);
			break;
		case 1:
			rc = doca_sync_event_task_notify_set_alloc_init(W.se[e], b, ud,
									(struct doca_sync_event_task_notify_set **)&t);
			break;
		case 2:
			rc = doca_sync_event_task_notify_add_alloc_init(W.se[e], b, (b & 1) ? &f->out : NULL, ud,
									(struct doca_sync_event_task_notify_add **)&t);
			break;
		case 3:
			rc = doca_sync_event_task_wait_eq_alloc_init(W.se[e], b & se_mask(b >> 3), se_mask(b >> 3), ud,
								     (struct doca_sync_event_task_wait_eq **)&t);
			break;
		default:
			rc = doca_sync_event_task_wait_neq_alloc_init(W.se[e], b & 0xff, se_mask(b >> 3), ud,
								      (struct doca_sync_event_task_wait_neq **)&t);
		}
		if (rc != DOCA_SUCCESS) {
			FUZZ_CHECK(t == (void *)&t);
			return;
		}
		*f = (struct fsetask){ .st = T_ALLOC, .se = e, .type = a % 5 + 1, .gen = W.gen };
		switch (f->type) {
		case 1:
			f->t = doca_sync_event_task_get_as_doca_task(t);
			break;
		case 2:
			f->t = doca_sync_event_task_notify_set_as_doca_task(t);
			break;
		case 3:
			f->t = doca_sync_event_task_notify_add_as_doca_task(t);
			break;
		case 4:
			f->t = doca_sync_event_task_wait_eq_as_doca_task(t);
			break;
		default:
			f->t = doca_sync_event_task_wait_neq_as_doca_task(t);
		}
		return;
	}
	if (f->st == T_NONE)
		return;
	if (what % 3 == 1) { /* submit, after an edit */
		if (f->type == 4)
			doca_sync_event_task_wait_eq_set_mask((struct doca_sync_event_task_wait_eq *)(void *)f->t,
							      se_mask(a));
		rc = doca_task_submit(f->t);
		if (f->st == T_INFLIGHT) {
			FUZZ_CHECK(rc != DOCA_SUCCESS);
			return;
		}
		if (rc == DOCA_SUCCESS) {
			f->st = T_INFLIGHT;
			f->cbs = 0;
		}
		return;
	}
	doca_task_free(f->t); /* refused while in flight */
	if (f->st == T_ALLOC)
		memset(f, 0, sizeof(*f));
}

static void op_nulls(void)
{
	enum doca_ctx_states st;

	FUZZ_CHECK(doca_ctx_start(NULL) == DOCA_ERROR_INVALID_VALUE);
	FUZZ_CHECK(doca_ctx_stop(NULL) == DOCA_ERROR_INVALID_VALUE);
	FUZZ_CHECK(doca_ctx_get_state(NULL, &st) == DOCA_ERROR_INVALID_VALUE);
	FUZZ_CHECK(doca_pe_destroy(NULL) == DOCA_ERROR_INVALID_VALUE);
	FUZZ_CHECK(doca_mmap_start(NULL) == DOCA_ERROR_INVALID_VALUE);
	FUZZ_CHECK(doca_buf_dec_refcount(NULL, NULL) == DOCA_ERROR_INVALID_VALUE);
	FUZZ_CHECK(doca_pe_progress(NULL) == 0);
	FUZZ_CHECK(doca_dma_as_ctx(NULL) == NULL);
}

typedef void (*op_fn)(void);
static const op_fn ops[] = { op_mmap, op_inv, op_buf_get, op_buf_release, op_buf_misc, op_pe,
			     op_ctx, op_task_alloc, op_task_submit, op_task_submit, op_task_free, op_nulls,
			     op_se_obj, op_se_data, op_se_task, op_se_task };

/* Tasks in flight must be reported: progress every PE a while, then check. */
static void drain(void)
{
	for (int c = 0; c < NCTX; c++) {
		enum doca_ctx_states st;
		unsigned int n = 0;

		if (W.dma[c] == NULL)
			continue;
		doca_ctx_stop(ctx_of(c));
		for (;;) {
			FUZZ_CHECK(doca_ctx_get_state(ctx_of(c), &st) == DOCA_SUCCESS);
			if (st == DOCA_CTX_STATE_IDLE)
				break;
			FUZZ_CHECK(W.ctx_pe[c] != 0 && ++n < IDLE_LOOPS); /* contexts always reach IDLE */
			progress(W.ctx_pe[c] - 1, 1);
			for (int i = 0; i < NTASK; i++) /* the stop flushes; free what came back */
				if (W.task[i].st == T_ALLOC && W.task[i].ctx == c) {
					doca_task_free(W.task[i].t);
					task_forget(i);
				}
		}
		for (int i = 0; i < NTASK; i++)
			FUZZ_CHECK(W.task[i].st == T_NONE || W.task[i].ctx != c);
	}
}

/* Sync event contexts reach IDLE too: stop flushes pending waits, every task gets its callback. */
static void se_drain(void)
{
	for (int i = 0; i < NSETASK; i++)
		if (W.setask[i].st == T_ALLOC) {
			doca_task_free(W.setask[i].t);
			memset(&W.setask[i], 0, sizeof(W.setask[i]));
		}
	for (int e = NSE - 1; e >= 0; e--) {
		enum doca_ctx_states st;
		unsigned int n = 0;

		if (W.se[e] == NULL)
			continue;
		doca_ctx_stop(se_ctx(e));
		for (;;) {
			FUZZ_CHECK(doca_ctx_get_state(se_ctx(e), &st) == DOCA_SUCCESS);
			if (st == DOCA_CTX_STATE_IDLE)
				break;
			FUZZ_CHECK(W.se_pe[e] != 0 && ++n < IDLE_LOOPS);
			progress(W.se_pe[e] - 1, 1);
			for (int i = 0; i < NSETASK; i++)
				if (W.setask[i].st == T_ALLOC && W.setask[i].se == e) {
					doca_task_free(W.setask[i].t);
					memset(&W.setask[i], 0, sizeof(W.setask[i]));
				}
		}
		for (int i = 0; i < NSETASK; i++)
			FUZZ_CHECK(W.setask[i].st == T_NONE || W.setask[i].se != e);
		FUZZ_CHECK(doca_sync_event_destroy(W.se[e]) == DOCA_SUCCESS);
		W.se[e] = NULL;
	}
}

static void cleanup(void)
{
	se_drain();
	for (int i = 0; i < NTASK; i++)
		if (W.task[i].st == T_ALLOC) {
			doca_task_free(W.task[i].t);
			task_forget(i);
		}
	drain();
	for (int c = 0; c < NCTX; c++)
		FUZZ_CHECK(W.dma[c] == NULL || doca_dma_destroy(W.dma[c]) == DOCA_SUCCESS);
	for (int p = 0; p < NPE; p++)
		FUZZ_CHECK(W.pe[p] == NULL || doca_pe_destroy(W.pe[p]) == DOCA_SUCCESS);
	for (int k = 0; k < NBUF; k++)
		if (W.buf[k] != NULL && W.root[k] == k)
			while (doca_buf_dec_refcount(W.buf[k], NULL) == DOCA_SUCCESS) {
				uint16_t r = 0;

				if (doca_buf_get_refcount(W.buf[k], &r) != DOCA_SUCCESS || r == 0)
					break;
			}
	if (W.inv != NULL) {
		doca_buf_inventory_stop(W.inv);
		FUZZ_CHECK(doca_buf_inventory_destroy(W.inv) == DOCA_SUCCESS);
	}
	for (int i = 0; i < NMEM; i++) {
		FUZZ_CHECK(W.mm[i] == NULL || doca_mmap_destroy(W.mm[i]) == DOCA_SUCCESS);
		free(W.mem[i]);
	}
	FUZZ_CHECK(doca_dev_close(W.dev) == DOCA_SUCCESS);
	FUZZ_CHECK(doca_dev_close(W.dpu) == DOCA_SUCCESS);
}

static struct doca_dev *open_dev(void)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;

	FUZZ_CHECK(doca_devinfo_create_list(&list, &n) == DOCA_SUCCESS);
	for (uint32_t i = 0; i < n && dev == NULL; i++)
		if (doca_dma_cap_task_memcpy_is_supported(list[i]) == DOCA_SUCCESS)
			FUZZ_CHECK(doca_dev_open(list[i], &dev) == DOCA_SUCCESS);
	FUZZ_CHECK(doca_devinfo_destroy_list(list) == DOCA_SUCCESS);
	FUZZ_CHECK(dev != NULL);
	return dev;
}

/* A device of the other side (the DPU), to export and import sync events through. */
static struct doca_dev *open_dpu(void)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;
	uint8_t is;

	FUZZ_CHECK(doca_devinfo_create_list(&list, &n) == DOCA_SUCCESS);
	for (uint32_t i = 0; i < n && dev == NULL; i++)
		if (doca_devinfo_is_equal_pci_addr(list[i], "03:00.0", &is) == DOCA_SUCCESS && is)
			FUZZ_CHECK(doca_dev_open(list[i], &dev) == DOCA_SUCCESS);
	FUZZ_CHECK(doca_devinfo_destroy_list(list) == DOCA_SUCCESS);
	FUZZ_CHECK(dev != NULL);
	return dev;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("ODMA_ENGINE", "inline", 1);
	fuzz_quiet_logs();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	memset(&W, 0, sizeof(W));
	W.in = data;
	W.len = size;
	W.free_in_cb = next() & 1;
	for (int i = 0; i < NTASK; i++)
		W.task[i].src = W.task[i].dst = -1;
	for (int i = 0; i < NMEM; i++) {
		W.mem[i] = malloc(MEMSZ);
		FUZZ_CHECK(W.mem[i] != NULL);
		memset(W.mem[i], i, MEMSZ);
	}
	W.dev = open_dev();
	W.dpu = open_dpu();
	for (int s = 0; s < MAX_STEPS && W.pos < W.len; s++)
		ops[next() % (sizeof(ops) / sizeof(ops[0]))]();
	cleanup();
	return 0;
}
