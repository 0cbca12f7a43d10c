/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * API-sequence fuzzer: the input is a program. Each step reads an opcode and operand bytes
 * and makes one call on a small world of objects (a device, 2 mmaps, an inventory, 16 bufs,
 * 2 PEs, 3 DMA contexts, 16 tasks, 2 graphs of up to 6 nodes, 4 graph instances; 2 sync
 * events, the second imported from the first's export, with 8 sync event tasks) — valid and
 * invalid: NULLs, wrong states, double frees, zero-length and oversized ranges, foreign PEs,
 * cycles, nodes of other graphs, bad masks, a revoked export. It runs on the inline engine
 * (deterministic).
 *
 * Invariants (BEHAVIOR §1), checked after every step and at the end of each input:
 *  - a task accepted by a submit call gets exactly one callback, and only from
 *    doca_pe_progress; a rejected one gets none and stays ours;
 *  - create calls leave the out-parameter untouched on failure;
 *  - after stop + progress + free, every context is IDLE; everything can then be destroyed
 *    (no leaks across inputs: LeakSanitizer runs at exit and libFuzzer's -detect_leaks);
 *  - graphs: a dependency that would close a cycle is refused; a submitted instance gets
 *    exactly one graph callback, only from doca_pe_progress, never for an instance held by a
 *    sub-graph node, and the error callback when one of its user nodes failed; a user node
 *    runs only from progress, at most once per run, after its user-node dependencies, and
 *    never after a node of its instance failed; a task run by a graph never gets its own
 *    callback; every submitted instance finishes.
 * The model refuses only what the API leaves undefined: releasing a buf a live task still
 * uses, using a handle after the call that destroyed its object succeeded, freeing a task an
 * instance still names, and destroying a context a graph still names.
 */
#include <stdbool.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_graph.h>
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
#define NGRAPH 2
#define NNODE 6
#define NINST 4
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

enum nkind { N_CTX, N_USER, N_SUB };

struct fgraph {
	struct doca_graph *g;
	int pe;
	bool started;
	int nnodes;
	struct {
		struct doca_graph_node *n;
		int kind, ctx, sub;
	} node[NNODE];
	bool edge[NNODE][NNODE]; /* edge[a][b]: b runs after a */
	unsigned int sub_users;  /* nodes of other graphs naming this one */
};

/* The argument of one user node of one instance. */
struct cookie {
	int inst, node;
	doca_error_t ret;
};

struct finst {
	struct doca_graph_instance *h;
	int graph;
	bool submitted;  /* by the program (top level) */
	bool running;    /* in a run: submitted, or held by a running instance */
	int held_by;     /* instance slot + 1 of the holder, 0 if none */
	int task[NNODE]; /* task slot set as context-node data, -1 */
	int sub[NNODE];  /* instance slot set as sub-graph node data, -1 */
	bool ran[NNODE];
	bool failed; /* a user node of this run failed */
	struct cookie ck[NNODE];
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
	int root[NBUF];         /* slot of the list head this buf belongs to (itself when a head) */
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
	int se_pe[NSE];       /* 1 + PE index once connected */
	bool se_started[NSE]; /* doca_sync_event_start succeeded (and no stop since) */
	struct fsetask setask[NSETASK];
	struct fgraph gr[NGRAPH];
	struct finst gi[NINST];
	unsigned int resubmit; /* graph callbacks that submit their instance again */
};

static struct world W;

static uint8_t next(void)
{
	return W.pos < W.len ? W.in[W.pos++] : 0;
}

static bool ctx_named(int c);

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

static bool task_named(int t);

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
	if (W.free_in_cb && !task_named(i)) {
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
		doca_mmap_set_memrange(W.mm[i], W.mem[i] + a % 64,
		                       b == 255 ? (size_t)-1 : (size_t)b * 32);
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
		rc = doca_buf_inventory_buf_get_by_addr(W.inv, W.mm[i], W.mem[i] + off * 16, len,
		                                        &b);
	else
		rc = doca_buf_inventory_buf_get_by_data(W.inv, W.mm[i], W.mem[i] + off * 16, len,
		                                        &b);
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
			FUZZ_CHECK(b1 != NULL && b2 != NULL && W.root[k2] == k2 &&
			           W.root[k1] != k2);
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
		for (int g = 0; g < NGRAPH; g++)
			FUZZ_CHECK(W.gr[g].g == NULL || W.gr[g].pe != p); /* and one with graphs */
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
		if (ctx_named(c))
			break; /* a graph still names it */
		if (doca_dma_destroy(W.dma[c]) == DOCA_SUCCESS) {
			for (int i = 0; i < NTASK; i++)
				FUZZ_CHECK(W.task[i].st == T_NONE ||
				           W.task[i].ctx != c); /* none left */
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
	struct doca_buf *src = pick_buf(next() % (NBUF + 2), &s),
	                *dst = pick_buf(next() % (NBUF + 2), &d);
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
	W.task[i] = (struct ftask){ .t = doca_dma_task_memcpy_as_task(t),
		                    .st = T_ALLOC,
		                    .ctx = c,
		                    .src = s >= 0 ? W.root[s] : -1,
		                    .dst = d >= 0 ? W.root[d] : -1,
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
	if (task_named(i))
		return; /* a graph instance still names it */
	/*
	 * Not while in flight: that is a deferred free (issue #18, tests/api/test_task_free.c),
	 * after which the task's bufs stay in use until a completion the model never sees.
	 */
	if (f->st != T_ALLOC)
		return;
	doca_task_free(f->t);
	doca_task_free(f->t); /* double free: refused, the pool stays consistent */
	task_forget(i);
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
	static const uint64_t masks[] = { UINT64_MAX,    0xff, 0xff00, 0xffff,
		                          0xffff0000ull, 0,    0xf0,   0xff00ff };

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
		           doca_sync_event_export_to_remote_pci(W.se[0], (a & 1) ? W.dpu : W.dev,
		                                                &blob, &sz) == DOCA_SUCCESS) {
			FUZZ_CHECK(blob != NULL && sz > 0 && sz <= 1024);
			if (doca_sync_event_create_from_export((a & 2) ? W.dev : W.dpu, blob,
			                                       sz - (a & 4 ? 1 : 0),
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
			doca_sync_event_task_notify_set_set_conf(W.se[e], notify_set_cb_ok,
			                                         notify_set_cb_err, n);
			break;
		case 2:
			doca_sync_event_task_notify_add_set_conf(W.se[e], notify_add_cb_ok,
			                                         notify_add_cb_err, n);
			break;
		case 3:
			doca_sync_event_task_wait_eq_set_conf(W.se[e], wait_eq_cb_ok,
			                                      (a & 4) ? NULL : wait_eq_cb_err, n);
			break;
		default:
			doca_sync_event_task_wait_neq_set_conf(W.se[e], wait_neq_cb_ok,
			                                       wait_neq_cb_err, n);
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
		if (doca_sync_event_update_add(W.se[e], (a & 0x80) ? UINT64_MAX : a, &f) ==
		    DOCA_SUCCESS)
			FUZZ_CHECK(doca_sync_event_get(W.se[e], &v) == DOCA_SUCCESS);
		break;
	case 2: /* holds now: returns at once */
		if (doca_sync_event_get(W.se[e], &v) == DOCA_SUCCESS) {
			FUZZ_CHECK(doca_sync_event_wait_eq(W.se[e], v & se_mask(a), se_mask(a)) ==
			           DOCA_SUCCESS);
			FUZZ_CHECK(doca_sync_event_wait_neq_yield(W.se[e], ~v & 0xff, 0xff) ==
			           DOCA_SUCCESS);
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
			rc = doca_sync_event_task_get_alloc_init(
			        W.se[e], (b & 1) ? &f->out : NULL, ud,
			        (struct doca_sync_event_task_get **)&t);
			break;
		case 1:
			rc = doca_sync_event_task_notify_set_alloc_init(
			        W.se[e], b, ud, (struct doca_sync_event_task_notify_set **)&t);
			break;
		case 2:
			rc = doca_sync_event_task_notify_add_alloc_init(
			        W.se[e], b, (b & 1) ? &f->out : NULL, ud,
			        (struct doca_sync_event_task_notify_add **)&t);
			break;
		case 3:
			rc = doca_sync_event_task_wait_eq_alloc_init(
			        W.se[e], b & se_mask(b >> 3), se_mask(b >> 3), ud,
			        (struct doca_sync_event_task_wait_eq **)&t);
			break;
		default:
			rc = doca_sync_event_task_wait_neq_alloc_init(
			        W.se[e], b & 0xff, se_mask(b >> 3), ud,
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
			doca_sync_event_task_wait_eq_set_mask(
			        (struct doca_sync_event_task_wait_eq *)(void *)f->t, se_mask(a));
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
	if (f->st != T_ALLOC)
		return; /* in flight: a deferred free the model would not see complete */
	doca_task_free(f->t);
	memset(f, 0, sizeof(*f));
}

/* ---- graphs ----------------------------------------------------------------------------- */

static bool task_named(int t)
{
	for (int k = 0; k < NINST; k++)
		for (int n = 0; W.gi[k].h != NULL && n < NNODE; n++)
			if (W.gi[k].task[n] == t)
				return true;
	return false;
}

static bool ctx_named(int c)
{
	for (int g = 0; g < NGRAPH; g++)
		for (int n = 0; W.gr[g].g != NULL && n < W.gr[g].nnodes; n++)
			if (W.gr[g].node[n].kind == N_CTX && W.gr[g].node[n].ctx == c)
				return true;
	return false;
}

static bool model_reaches(const struct fgraph *fg, int from, int to)
{
	bool seen[NNODE] = { false };
	int stack[NNODE], top = 0;

	stack[top++] = from;
	seen[from] = true;
	while (top > 0) {
		int a = stack[--top];

		if (a == to)
			return true;
		for (int b = 0; b < fg->nnodes; b++)
			if (fg->edge[a][b] && !seen[b]) {
				seen[b] = true;
				stack[top++] = b;
			}
	}
	return false;
}

/* Starts (or ends) the model's run of instance @k and of the instances its nodes hold. */
static void inst_mark_run(int k, bool on)
{
	struct finst *fi = &W.gi[k];
	const struct fgraph *fg = &W.gr[fi->graph];

	fi->running = on;
	if (on) {
		memset(fi->ran, 0, sizeof(fi->ran));
		fi->failed = false;
	}
	for (int n = 0; n < fg->nnodes; n++)
		if (fg->node[n].kind == N_SUB && fi->sub[n] >= 0)
			inst_mark_run(fi->sub[n], on);
}

/* Whether a user node of @k's run (or of an instance it holds) failed / all user nodes ran. */
static bool inst_failed(int k)
{
	const struct finst *fi = &W.gi[k];
	const struct fgraph *fg = &W.gr[fi->graph];

	if (fi->failed)
		return true;
	for (int n = 0; n < fg->nnodes; n++)
		if (fg->node[n].kind == N_SUB && fi->sub[n] >= 0 && inst_failed(fi->sub[n]))
			return true;
	return false;
}

static bool inst_all_ran(int k)
{
	const struct finst *fi = &W.gi[k];
	const struct fgraph *fg = &W.gr[fi->graph];

	for (int n = 0; n < fg->nnodes; n++) {
		if (fg->node[n].kind == N_USER && !fi->ran[n])
			return false;
		if (fg->node[n].kind == N_SUB && fi->sub[n] >= 0 && !inst_all_ran(fi->sub[n]))
			return false;
	}
	return true;
}

static doca_error_t user_cb(void *cookie)
{
	const struct cookie *ck = cookie;
	struct finst *fi;
	const struct fgraph *fg;

	FUZZ_CHECK(W.in_progress); /* never from inside a submit */
	FUZZ_CHECK(ck != NULL);
	FUZZ_CHECK(ck->inst >= 0 && ck->inst < NINST && ck->node >= 0 && ck->node < NNODE);
	fi = &W.gi[ck->inst];
	fg = &W.gr[fi->graph];
	FUZZ_CHECK(fi->h != NULL && fi->running);
	FUZZ_CHECK(!fi->ran[ck->node]); /* once per run */
	FUZZ_CHECK(!fi->failed);        /* nothing starts after a failure */
	for (int a = 0; a < fg->nnodes; a++) {
		if (!fg->edge[a][ck->node])
			continue;
		if (fg->node[a].kind == N_USER)
			FUZZ_CHECK(fi->ran[a]);
		else if (fg->node[a].kind == N_CTX)
			FUZZ_CHECK(doca_task_get_status(W.task[fi->task[a]].t) == DOCA_SUCCESS);
		else
			FUZZ_CHECK(inst_all_ran(fi->sub[a]) && !inst_failed(fi->sub[a]));
	}
	fi->ran[ck->node] = true;
	if (ck->ret != DOCA_SUCCESS)
		fi->failed = true;
	return ck->ret;
}

static void ginst_submit(int k)
{
	struct finst *fi = &W.gi[k];
	doca_error_t rc = doca_graph_instance_submit(fi->h);

	if (rc != DOCA_SUCCESS) {
		FUZZ_CHECK(fi->h == NULL || fi->held_by != 0 || !fi->submitted ||
		           rc == DOCA_ERROR_IN_USE);
		FUZZ_CHECK(fi->h == NULL || fi->held_by == 0 || rc == DOCA_ERROR_NOT_PERMITTED);
		return;
	}
	FUZZ_CHECK(!fi->submitted && !fi->running && fi->held_by == 0);
	fi->submitted = true;
	inst_mark_run(k, true);
}

static void graph_cb(struct doca_graph_instance *inst, union doca_data iud, union doca_data gud,
                     bool ok)
{
	int k = (int)iud.u64;
	struct finst *fi;

	FUZZ_CHECK(W.in_progress);
	FUZZ_CHECK(k >= 0 && k < NINST);
	fi = &W.gi[k];
	FUZZ_CHECK(fi->h == inst && gud.u64 == (uint64_t)fi->graph);
	FUZZ_CHECK(fi->submitted && fi->running && fi->held_by == 0); /* once, top level only */
	if (inst_failed(k))
		FUZZ_CHECK(!ok);
	if (ok)
		FUZZ_CHECK(inst_all_ran(k));
	fi->submitted = false;
	inst_mark_run(k, false);
	if (W.resubmit > 0) {
		W.resubmit--;
		ginst_submit(k);
	}
}

static void graph_ok_cb(struct doca_graph_instance *inst, union doca_data iud, union doca_data gud)
{
	graph_cb(inst, iud, gud, true);
}

static void graph_err_cb(struct doca_graph_instance *inst, union doca_data iud, union doca_data gud)
{
	graph_cb(inst, iud, gud, false);
}

static void op_graph_new(void)
{
	int g = next() % NGRAPH, p = next() % NPE;
	struct doca_graph *h = (void *)&h;
	union doca_data ud = { .u64 = (uint64_t)g };

	if (W.gr[g].g != NULL)
		return;
	if (doca_graph_create(W.pe[p], &h) != DOCA_SUCCESS) {
		FUZZ_CHECK(h == (void *)&h && W.pe[p] == NULL);
		return;
	}
	memset(&W.gr[g], 0, sizeof(W.gr[g]));
	W.gr[g].g = h;
	W.gr[g].pe = p;
	FUZZ_CHECK(doca_graph_set_user_data(h, ud) == DOCA_SUCCESS);
}

static void op_graph_node(void)
{
	int g = next() % NGRAPH, what = next() % 3, arg = next();
	struct fgraph *fg = &W.gr[g];
	struct doca_graph_node *n = (void *)&n;
	doca_error_t rc;
	int o = arg % NGRAPH;

	if (fg->nnodes == NNODE)
		return;
	if (what == N_CTX)
		rc = doca_graph_node_create_from_ctx(fg->g, ctx_of(arg % NCTX), &n);
	else if (what == N_USER)
		rc = doca_graph_node_create_from_user(fg->g, (arg & 1) ? user_cb : NULL, &n);
	else
		rc = doca_graph_node_create_from_graph(fg->g, W.gr[o].g, &n);
	if (rc != DOCA_SUCCESS) {
		FUZZ_CHECK(n == (void *)&n);
		return;
	}
	FUZZ_CHECK(fg->g != NULL && !fg->started);
	fg->node[fg->nnodes].n = n;
	fg->node[fg->nnodes].kind = what;
	fg->node[fg->nnodes].ctx = arg % NCTX;
	fg->node[fg->nnodes].sub = o;
	if (what == N_SUB) {
		FUZZ_CHECK(o != g && W.gr[o].started && W.gr[o].pe == fg->pe);
		W.gr[o].sub_users++;
	}
	fg->nnodes++;
}

static void op_graph_dep(void)
{
	int g = next() % NGRAPH, a = next(), b = next();
	struct fgraph *fg = &W.gr[g];
	/* a node index past this graph's picks a node of the other graph */
	const struct fgraph *fa = a % (2 * NNODE) < NNODE ? fg : &W.gr[(g + 1) % NGRAPH];
	const struct fgraph *fb = b % (2 * NNODE) < NNODE ? fg : &W.gr[(g + 1) % NGRAPH];
	int ia = a % NNODE, ib = b % NNODE;
	struct doca_graph_node *na = ia < fa->nnodes ? fa->node[ia].n : NULL;
	struct doca_graph_node *nb = ib < fb->nnodes ? fb->node[ib].n : NULL;
	doca_error_t rc = doca_graph_add_dependency(fg->g, na, nb);

	if (fa == fg && fb == fg && na != NULL && nb != NULL && fg->g != NULL && !fg->started &&
	    model_reaches(fg, ib, ia))
		FUZZ_CHECK(rc == DOCA_ERROR_NOT_PERMITTED); /* a cycle, or itself */
	if (rc != DOCA_SUCCESS)
		return;
	FUZZ_CHECK(fa == fg && fb == fg && ia != ib && !fg->started);
	fg->edge[ia][ib] = true;
}

static void op_graph_state(void)
{
	int g = next() % NGRAPH, what = next() % 4, arg = next();
	struct fgraph *fg = &W.gr[g];
	doca_error_t rc;

	switch (what) {
	case 0:
		rc = doca_graph_set_conf(fg->g, (arg & 1) ? graph_ok_cb : NULL,
		                         (arg & 2) ? graph_err_cb : NULL, (uint32_t)(arg >> 2) % 5);
		FUZZ_CHECK(rc != DOCA_SUCCESS || !fg->started);
		break;
	case 1:
		if (doca_graph_start(fg->g) == DOCA_SUCCESS) {
			bool any = false;

			FUZZ_CHECK(!fg->started);
			for (int n = 0; n < fg->nnodes; n++)
				any |= fg->node[n].kind != N_USER;
			FUZZ_CHECK(any); /* at least one context (or sub-graph) node */
			fg->started = true;
		}
		break;
	case 2:
		rc = doca_graph_stop(fg->g);
		for (int k = 0; rc == DOCA_SUCCESS && k < NINST; k++)
			FUZZ_CHECK(W.gi[k].h == NULL || W.gi[k].graph != g);
		for (int o = 0; rc == DOCA_SUCCESS && o < NGRAPH; o++)
			for (int n = 0; W.gr[o].started && n < W.gr[o].nnodes; n++)
				FUZZ_CHECK(W.gr[o].node[n].kind != N_SUB ||
				           W.gr[o].node[n].sub != g);
		if (rc == DOCA_SUCCESS && fg->g != NULL)
			fg->started = false;
		break;
	default:
		if (doca_graph_destroy(fg->g) == DOCA_SUCCESS) {
			FUZZ_CHECK(!fg->started && fg->sub_users == 0);
			for (int n = 0; n < fg->nnodes; n++)
				if (fg->node[n].kind == N_SUB)
					W.gr[fg->node[n].sub].sub_users--;
			memset(fg, 0, sizeof(*fg));
		}
	}
}

static void op_ginst(void)
{
	int k = next() % NINST, what = next() % 5, a = next(), b = next();
	struct finst *fi = &W.gi[k];
	const struct fgraph *fg = fi->h != NULL ? &W.gr[fi->graph] : NULL;
	int n = a % NNODE;
	struct doca_graph_node *node = fg != NULL && n < fg->nnodes ? fg->node[n].n : NULL;
	struct doca_graph_instance *h = (void *)&h;
	union doca_data ud = { .u64 = (uint64_t)k };
	doca_error_t rc;

	switch (what) {
	case 0: /* create, of graph a */
		if (fi->h != NULL)
			return;
		if (doca_graph_instance_create(W.gr[a % NGRAPH].g, &h) != DOCA_SUCCESS) {
			FUZZ_CHECK(h == (void *)&h);
			return;
		}
		FUZZ_CHECK(W.gr[a % NGRAPH].started);
		memset(fi, 0, sizeof(*fi));
		fi->h = h;
		fi->graph = a % NGRAPH;
		for (int i = 0; i < NNODE; i++) {
			fi->task[i] = fi->sub[i] = -1;
			fi->ck[i] = (struct cookie){ .inst = k, .node = i };
		}
		FUZZ_CHECK(doca_graph_instance_set_user_data(h, ud) == DOCA_SUCCESS);
		/* every user node gets its argument now (the model needs to know who runs) */
		for (int i = 0; i < W.gr[fi->graph].nnodes; i++)
			if (W.gr[fi->graph].node[i].kind == N_USER)
				FUZZ_CHECK(doca_graph_instance_set_user_node_data(
				                   h, W.gr[fi->graph].node[i].n, &fi->ck[i]) ==
				           DOCA_SUCCESS);
		break;
	case 1: /* node data: task b, user cookie (failing or not), or instance b */
		if (node == NULL)
			return;
		if (fg->node[n].kind == N_CTX) {
			int t = b % NTASK;

			rc = doca_graph_instance_set_ctx_node_data(fi->h, node, W.task[t].t);
			if (rc == DOCA_SUCCESS) {
				FUZZ_CHECK(!fi->running && W.task[t].st == T_ALLOC &&
				           W.task[t].ctx == fg->node[n].ctx);
				fi->task[n] = t;
			}
		} else if (fg->node[n].kind == N_USER) {
			fi->ck[n].ret = (b & 3) == 0 ? DOCA_ERROR_IO_FAILED : DOCA_SUCCESS;
			rc = doca_graph_instance_set_user_node_data(fi->h, node, &fi->ck[n]);
			FUZZ_CHECK(rc != DOCA_SUCCESS || !fi->running);
		} else {
			struct finst *si = &W.gi[b % NINST];

			rc = doca_graph_instance_set_sub_graph_node_data(fi->h, node, si->h);
			if (rc == DOCA_SUCCESS) {
				FUZZ_CHECK(!fi->running && !si->running &&
				           si->graph == fg->node[n].sub);
				FUZZ_CHECK(si->held_by == 0 || si->held_by == k + 1);
				if (fi->sub[n] >= 0)
					W.gi[fi->sub[n]].held_by = 0;
				fi->sub[n] = b % NINST;
				si->held_by = k + 1;
			}
		}
		break;
	case 2:
		ginst_submit(k);
		break;
	case 3: { /* a node of another graph's instance: refused */
		const struct finst *oi = &W.gi[b % NINST];

		if (node == NULL || oi->h == NULL || oi->graph == fi->graph)
			return;
		rc = doca_graph_instance_set_user_node_data(oi->h, node, NULL);
		FUZZ_CHECK(rc == DOCA_ERROR_NOT_PERMITTED ||
		           (oi->running && rc == DOCA_ERROR_BAD_STATE));
		break;
	}
	default:
		if (doca_graph_instance_destroy(fi->h) == DOCA_SUCCESS) {
			FUZZ_CHECK(!fi->submitted && !fi->running && fi->held_by == 0);
			for (int i = 0; i < NNODE; i++)
				if (fi->sub[i] >= 0)
					W.gi[fi->sub[i]].held_by = 0;
			memset(fi, 0, sizeof(*fi));
		}
	}
}

/* Every submitted instance finishes; then instances and graphs can be torn down. */
static void graph_cleanup(void)
{
	bool again = true;

	W.resubmit = 0;
	for (unsigned int n = 0;; n++) {
		bool any = false;

		for (int k = 0; k < NINST; k++)
			any |= W.gi[k].h != NULL && W.gi[k].submitted;
		if (!any)
			break;
		FUZZ_CHECK(n < IDLE_LOOPS);
		for (int p = 0; p < NPE; p++)
			if (W.pe[p] != NULL)
				progress(p, 1);
	}
	while (again) { /* holders before held instances, users before their sub-graphs */
		again = false;
		for (int k = 0; k < NINST; k++)
			if (W.gi[k].h != NULL && W.gi[k].held_by == 0) {
				FUZZ_CHECK(doca_graph_instance_destroy(W.gi[k].h) == DOCA_SUCCESS);
				for (int i = 0; i < NNODE; i++)
					if (W.gi[k].sub[i] >= 0)
						W.gi[W.gi[k].sub[i]].held_by = 0;
				memset(&W.gi[k], 0, sizeof(W.gi[k]));
				again = true;
			}
		for (int g = 0; g < NGRAPH; g++)
			if (W.gr[g].g != NULL && W.gr[g].started &&
			    doca_graph_stop(W.gr[g].g) == DOCA_SUCCESS) {
				W.gr[g].started = false;
				again = true;
			}
		for (int g = 0; g < NGRAPH; g++)
			if (W.gr[g].g != NULL && !W.gr[g].started && W.gr[g].sub_users == 0) {
				FUZZ_CHECK(doca_graph_destroy(W.gr[g].g) == DOCA_SUCCESS);
				for (int n = 0; n < W.gr[g].nnodes; n++)
					if (W.gr[g].node[n].kind == N_SUB)
						W.gr[W.gr[g].node[n].sub].sub_users--;
				memset(&W.gr[g], 0, sizeof(W.gr[g]));
				again = true;
			}
	}
	for (int g = 0; g < NGRAPH; g++)
		FUZZ_CHECK(W.gr[g].g == NULL);
	for (int k = 0; k < NINST; k++)
		FUZZ_CHECK(W.gi[k].h == NULL);
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
static const op_fn ops[] = { op_mmap,        op_inv,         op_buf_get,   op_buf_release,
	                     op_buf_misc,    op_pe,          op_ctx,       op_task_alloc,
	                     op_task_submit, op_task_submit, op_task_free, op_nulls };
/* Opcodes from SE_OPS up to GRAPH_OPS drive sync events, from GRAPH_OPS up graphs (so the older
 * seeds keep their meaning). */
#define SE_OPS 0xc0
#define GRAPH_OPS 0xe0
static const op_fn se_ops[] = { op_se_obj, op_se_data, op_se_task, op_se_task };
static const op_fn graph_ops[] = { op_graph_new, op_graph_node, op_graph_node,
	                           op_graph_dep, op_graph_dep,  op_graph_state,
	                           op_ginst,     op_ginst,      op_ginst };

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
			FUZZ_CHECK(W.ctx_pe[c] != 0 &&
			           ++n < IDLE_LOOPS); /* contexts always reach IDLE */
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
	graph_cleanup();
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
	uint8_t first;

	memset(&W, 0, sizeof(W));
	W.in = data;
	W.len = size;
	first = next();
	W.free_in_cb = first & 1;
	W.resubmit = (first >> 1) & 7;
	for (int i = 0; i < NTASK; i++)
		W.task[i].src = W.task[i].dst = -1;
	for (int i = 0; i < NMEM; i++) {
		W.mem[i] = malloc(MEMSZ);
		FUZZ_CHECK(W.mem[i] != NULL);
		memset(W.mem[i], i, MEMSZ);
	}
	W.dev = open_dev();
	W.dpu = fuzz_open_pci("03:00.0"); /* the DPU side, for sync event exports */
	for (int s = 0; s < MAX_STEPS && W.pos < W.len; s++) {
		uint8_t op = next();

		if (op >= GRAPH_OPS)
			graph_ops[(op - GRAPH_OPS) % (sizeof(graph_ops) / sizeof(graph_ops[0]))]();
		else if (op >= SE_OPS)
			se_ops[(op - SE_OPS) % (sizeof(se_ops) / sizeof(se_ops[0]))]();
		else
			ops[op % (sizeof(ops) / sizeof(ops[0]))]();
	}
	cleanup();
	return 0;
}
