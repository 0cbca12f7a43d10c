/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The callers of the transport against a transport that misbehaves (tp_fault.c, a row of the
 * table put first): DMA memcpy tasks on an mmap imported through it, in both directions, once
 * with the row saying it is a network row (the asynchronous mover: one io per piece) and once
 * a process row (the batching mover: its iov_move). Each fault ends the same way for the
 * program: delayed and reordered ios complete with the right bytes; dropped ios fail with
 * DOCA_ERROR_IO_FAILED (an asynchronous one at the transport's deadline,
 * ODMA_TRANSPORT_TIMEOUT_MS), the ios of a killed peer at once; never a hang, and every io the
 * row took completes exactly once (none left in flight).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "test_util.h"
#include "tp_fault.h"

#define NTASKS 16
#define PIECE 4096

static uint8_t remote_mem[NTASKS * PIECE] __attribute__((aligned(4096)));
static uint8_t local_mem[NTASKS * PIECE] __attribute__((aligned(4096)));

static struct {
	struct doca_dev *host, *dpu;
	struct doca_mmap *exp, *imp, *local;
	struct doca_buf_inventory *inv;
	const struct odma_tp_ops *row;
	enum odma_tp_kind kind; /* what the fault row says it is */
} G;

struct run {
	unsigned int ok, err;
	doca_error_t last_err;
	unsigned int order[NTASKS]; /* task indexes in completion order */
};

static void done_cb(struct doca_dma_task_memcpy *t, union doca_data ud, union doca_data ctx_ud)
{
	struct run *r = ctx_ud.ptr;
	doca_error_t st = doca_task_get_status(doca_dma_task_memcpy_as_task(t));

	if (st == DOCA_SUCCESS)
		r->ok++;
	else {
		r->err++;
		r->last_err = st;
	}
	r->order[(r->ok + r->err - 1) % NTASKS] = (unsigned int)ud.u64;
	doca_task_free(doca_dma_task_memcpy_as_task(t));
}

/*
 * NTASKS copies of PIECE bytes, remote -> local (@write: local -> remote), under @mode; the
 * context is stopped once they completed, or at once after the submits (@stop_first).
 */
static void run_copies_stop(enum tp_fault_mode mode, unsigned int arg, bool write, struct run *r,
                            bool stop_first)
{
	struct doca_dma *dma;
	struct doca_pe *pe;
	struct doca_ctx *ctx;
	struct doca_buf *src[NTASKS], *dst[NTASKS];
	union doca_data ud = { .ptr = r };
	enum doca_ctx_states st;
	uint64_t t0;

	memset(r, 0, sizeof(*r));
	tp_fault_set(mode, arg);
	assert_ok(doca_pe_create(&pe));
	assert_ok(doca_dma_create(G.dpu, &dma));
	ctx = doca_dma_as_ctx(dma);
	assert_ok(doca_ctx_set_user_data(ctx, ud));
	assert_ok(doca_dma_task_memcpy_set_conf(dma, done_cb, done_cb, NTASKS));
	assert_ok(doca_pe_connect_ctx(pe, ctx));
	assert_ok(doca_ctx_start(ctx));
	for (unsigned int i = 0; i < NTASKS; i++) {
		struct doca_mmap *sm = write ? G.local : G.imp, *dm = write ? G.imp : G.local;
		uint8_t *sp = (write ? local_mem : remote_mem) + i * PIECE;
		uint8_t *dp = (write ? remote_mem : local_mem) + i * PIECE;
		struct doca_dma_task_memcpy *t;

		assert_ok(doca_buf_inventory_buf_get_by_data(G.inv, sm, sp, PIECE, &src[i]));
		assert_ok(doca_buf_inventory_buf_get_by_addr(G.inv, dm, dp, PIECE, &dst[i]));
		assert_ok(doca_dma_task_memcpy_alloc_init(dma, src[i], dst[i],
		                                          (union doca_data){ .u64 = i }, &t));
		assert_ok(doca_task_submit(doca_dma_task_memcpy_as_task(t)));
	}
	t0 = tu_now_ms();
	if (stop_first)
		assert_int_equal(doca_ctx_stop(ctx), DOCA_ERROR_IN_PROGRESS);
	while (r->ok + r->err < NTASKS && tu_now_ms() - t0 < 20000)
		doca_pe_progress(pe);
	assert_int_equal(r->ok + r->err, NTASKS); /* no hang: every task completed */
	(void)doca_ctx_stop(ctx);
	do {
		doca_pe_progress(pe);
		assert_ok(doca_ctx_get_state(ctx, &st));
	} while (st != DOCA_CTX_STATE_IDLE && tu_now_ms() - t0 < 30000);
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	for (unsigned int i = 0; i < NTASKS; i++) {
		assert_ok(doca_buf_dec_refcount(src[i], NULL));
		assert_ok(doca_buf_dec_refcount(dst[i], NULL));
	}
	assert_ok(doca_dma_destroy(dma));
	assert_ok(doca_pe_destroy(pe));
	assert_int_equal(tp_fault_in_flight(), 0); /* every io completed exactly once */
}

static void run_copies(enum tp_fault_mode mode, unsigned int arg, bool write, struct run *r)
{
	run_copies_stop(mode, arg, write, r, false);
}

static void fill(unsigned int seed)
{
	for (size_t i = 0; i < sizeof(remote_mem); i++) {
		remote_mem[i] = (uint8_t)(i * 7 + seed);
		local_mem[i] = 0;
	}
}

static void pass_moves_bytes(void **state)
{
	struct run r;

	(void)state;
	fill(1);
	run_copies(TPF_PASS, 0, false, &r);
	assert_int_equal(r.ok, NTASKS);
	assert_memory_equal(local_mem, remote_mem, sizeof(remote_mem));
}

static void delayed_ios_complete(void **state)
{
	struct run r;
	uint64_t t0 = tu_now_ms();

	(void)state;
	fill(2);
	run_copies(TPF_DELAY, 100, false, &r);
	assert_int_equal(r.ok, NTASKS);
	assert_true(tu_now_ms() - t0 >= 100); /* they were held: completed from the row's thread */
	assert_memory_equal(local_mem, remote_mem, sizeof(remote_mem));
	memset(remote_mem, 0, sizeof(remote_mem));
	for (size_t i = 0; i < sizeof(local_mem); i++)
		local_mem[i] = (uint8_t)(i * 3 + 1);
	run_copies(TPF_DELAY, 20, true, &r); /* writes too */
	assert_int_equal(r.ok, NTASKS);
	assert_memory_equal(local_mem, remote_mem, sizeof(remote_mem));
}

static void reordered_ios_complete(void **state)
{
	struct run r;
	bool reordered = false;

	(void)state;
	fill(3);
	run_copies(TPF_REORDER, 4, false, &r);
	assert_int_equal(r.ok, NTASKS);
	assert_memory_equal(local_mem, remote_mem, sizeof(remote_mem));
	if (G.kind != ODMA_TP_UCX)
		return; /* a synchronous row completes in order */
	for (unsigned int i = 1; i < NTASKS; i++)
		reordered = reordered || r.order[i] < r.order[i - 1];
	assert_true(reordered); /* the tasks did complete out of their order */
}

static void dropped_ios_fail_at_deadline(void **state)
{
	struct run r;
	uint64_t t0 = tu_now_ms();
	unsigned int failed0, failed;

	(void)state;
	fill(4);
	(void)tp_fault_completed(&failed0);
	run_copies(TPF_DROP, 0, false, &r);
	assert_int_equal(r.ok, 0);
	assert_int_equal(r.err, NTASKS);
	assert_int_equal(r.last_err, DOCA_ERROR_IO_FAILED);
	if (G.kind == ODMA_TP_UCX) /* an asynchronous io fails at its deadline, not before */
		assert_true(tu_now_ms() - t0 >= odma_tp_timeout_ms());
	(void)tp_fault_completed(&failed);
	assert_true(failed > failed0);
	run_copies(TPF_PASS, 0, false, &r); /* the import still works afterwards */
	assert_int_equal(r.ok, NTASKS);
}

/*
 * A stop does not wait for the deadline of ios a peer never answers (60 s here, past the
 * 20 s the run allows): each is flushed with IO_FAILED at once, as hardware flushes its queue,
 * and none is left in flight. Held (delayed) ios are ended the same way.
 */
static void stop_flushes_unanswered_ios(void **state)
{
	struct run r;

	(void)state;
	fill(6);
	setenv("ODMA_TRANSPORT_TIMEOUT_MS", "60000", 1);
	run_copies_stop(TPF_DROP, 0, false, &r, true);
	assert_int_equal(r.err, NTASKS);
	assert_int_equal(r.last_err, DOCA_ERROR_IO_FAILED);
	run_copies_stop(TPF_DELAY, 60000, true, &r, true);
	setenv("ODMA_TRANSPORT_TIMEOUT_MS", "300", 1);
	if (G.kind == ODMA_TP_UCX) /* a synchronous row moved them before the stop */
		assert_int_equal(r.err, NTASKS);
	run_copies(TPF_PASS, 0, false, &r); /* the import still works afterwards */
	assert_int_equal(r.ok, NTASKS);
	assert_memory_equal(local_mem, remote_mem, sizeof(remote_mem));
}

static void killed_peer_fails_ios(void **state)
{
	struct run r;

	(void)state;
	fill(5);
	run_copies(TPF_KILL, 0, true, &r);
	assert_int_equal(r.ok, 0);
	assert_int_equal(r.err, NTASKS);
	assert_int_equal(r.last_err, DOCA_ERROR_IO_FAILED);
	for (size_t i = 0; i < sizeof(remote_mem); i++)
		assert_int_equal(remote_mem[i], (uint8_t)(i * 7 + 5)); /* no write landed */
}

static int setup(enum odma_tp_kind kind)
{
	const void *desc;
	size_t len;

	G.kind = kind;
	G.host = tu_open_dev("b1:00.0");
	G.dpu = tu_open_dev("03:00.0");
	assert_ok(doca_mmap_create(&G.exp));
	assert_ok(doca_mmap_add_dev(G.exp, G.host));
	assert_ok(doca_mmap_set_memrange(G.exp, remote_mem, sizeof(remote_mem)));
	assert_ok(doca_mmap_set_permissions(G.exp, DOCA_ACCESS_FLAG_PCI_READ_WRITE));
	assert_ok(doca_mmap_start(G.exp));
	assert_ok(doca_mmap_export_pci(G.exp, G.host, &desc, &len));
	/* the fault row first: it reaches what the process row reaches, and says it is remote */
	G.row = tp_fault_row(odma_tp_find("process"), kind);
	odma_tp_row_insert(G.row);
	assert_ok(doca_mmap_create_from_export(NULL, desc, len, G.dpu, &G.imp));
	assert_ok(doca_mmap_create(&G.local));
	assert_ok(doca_mmap_add_dev(G.local, G.dpu));
	assert_ok(doca_mmap_set_memrange(G.local, local_mem, sizeof(local_mem)));
	assert_ok(doca_mmap_set_permissions(G.local, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	assert_ok(doca_mmap_start(G.local));
	assert_ok(doca_buf_inventory_create(4 * NTASKS, &G.inv));
	assert_ok(doca_buf_inventory_start(G.inv));
	return 0;
}

static int setup_async(void **state)
{
	(void)state;
	return setup(ODMA_TP_UCX);
}

static int setup_batching(void **state)
{
	(void)state;
	return setup(ODMA_TP_PROCESS);
}

static int teardown(void **state)
{
	(void)state;
	assert_ok(doca_buf_inventory_destroy(G.inv));
	assert_ok(doca_mmap_destroy(G.local));
	assert_ok(doca_mmap_destroy(G.imp));
	odma_tp_row_remove(G.row);
	tp_fault_stop();
	assert_ok(doca_mmap_destroy(G.exp));
	assert_ok(doca_dev_close(G.dpu));
	assert_ok(doca_dev_close(G.host));
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pass_moves_bytes),
		cmocka_unit_test(delayed_ios_complete),
		cmocka_unit_test(reordered_ios_complete),
		cmocka_unit_test(dropped_ios_fail_at_deadline),
		cmocka_unit_test(stop_flushes_unanswered_ios),
		cmocka_unit_test(killed_peer_fails_ios),
	};

	setenv("ODMA_TRANSPORT_TIMEOUT_MS", "300", 1);
	unsetenv("ODMA_TRANSPORT");
	unsetenv("ODMA_FABRIC");
	unsetenv("ODMA_SIDE");
	unsetenv("ODMA_SYSTEM");
	return cmocka_run_group_tests_name("async", tests, setup_async, teardown) +
	       cmocka_run_group_tests_name("batching", tests, setup_batching, teardown);
}
