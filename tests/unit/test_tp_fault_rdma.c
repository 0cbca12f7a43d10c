/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * DOCA RDMA over a transport that misbehaves: the fault-injecting test row (tp_fault.c) as the
 * network row, around UCX, with libdoca_rdma's files built in beside the archive. One context
 * connected to itself (its streams, its exported region, its posted receives all cross the
 * row). Delayed messages and ios: a write, a read of the same bytes, a fetch-add and a send
 * complete, in submission order, with the right bytes. A killed link: the tasks in flight and
 * those submitted after fail with DOCA_ERROR_CONNECTION_ABORTED, exactly once each, never a
 * hang, and the context stops.
 */
#include "rdma/rdma_tu.h"
#include "tp_fault.h"

struct pair {
	struct tside s;
	struct doca_mmap *rm; /* the context's own region, imported back over RDMA */
	uint8_t *rmem;
};

/* A context connected to itself (connection 0 dialed connection 1), its region imported. */
static void pair_open(struct pair *p)
{
	const void *blob;
	size_t n = 0, len = 0;

	assert_ok(ts_open(&p->s,
	                  DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ |
	                          DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC,
	                  DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE, 7));
	assert_ok(doca_rdma_export(p->s.rd, &blob, &n, &p->s.conns[0]));
	assert_ok(doca_rdma_export(p->s.rd, &blob, &n, &p->s.conns[1]));
	assert_ok(doca_rdma_connect(p->s.rd, blob, n, p->s.conns[0]));
	p->s.nconns = 2;
	assert_ok(doca_mmap_export_rdma(p->s.mm, p->s.dev, &blob, &n));
	assert_ok(doca_mmap_create_from_export(NULL, blob, n, p->s.dev, &p->rm));
	assert_ok(doca_mmap_get_memrange(p->rm, (void **)&p->rmem, &len));
	assert_int_equal(len, TS_MEM);
}

static void pair_close(struct pair *p)
{
	ts_close(&p->s);
	(void)doca_mmap_destroy(p->rm);
}

/* Submits a write of "fault!" to offset 2048, its read back into 3072, a fetch-add, a send. */
static void submit_four(struct pair *p)
{
	union doca_data ud = { 0 };
	struct doca_rdma_task_write *tw;
	struct doca_rdma_task_read *tr;
	struct doca_rdma_task_atomic_fetch_add *tf;
	struct doca_rdma_task_send *ts;

	memcpy(p->s.mem, "fault!", 6);
	assert_ok(doca_rdma_task_write_allocate_init(
	        p->s.rd, p->s.conns[0], ts_buf(&p->s, p->s.mm, p->s.mem, 0, 6, 6),
	        ts_buf(&p->s, p->rm, p->rmem, 2048, 64, 0), ud, &tw));
	assert_ok(doca_task_submit(doca_rdma_task_write_as_task(tw)));
	assert_ok(doca_rdma_task_read_allocate_init(
	        p->s.rd, p->s.conns[0], ts_buf(&p->s, p->rm, p->rmem, 2048, 6, 6),
	        ts_buf(&p->s, p->s.mm, p->s.mem, 3072, 64, 0), ud, &tr));
	assert_ok(doca_task_submit(doca_rdma_task_read_as_task(tr)));
	assert_ok(doca_rdma_task_atomic_fetch_add_allocate_init(
	        p->s.rd, p->s.conns[0], ts_buf(&p->s, p->rm, p->rmem, 1024, 8, 0),
	        ts_buf(&p->s, p->s.mm, p->s.mem, 1032, 8, 0), 3, ud, &tf));
	assert_ok(doca_task_submit(doca_rdma_task_atomic_fetch_add_as_task(tf)));
	assert_ok(doca_rdma_task_send_allocate_init(
	        p->s.rd, p->s.conns[0], ts_buf(&p->s, p->s.mm, p->s.mem, 0, 6, 6), ud, &ts));
	assert_ok(doca_task_submit(doca_rdma_task_send_as_task(ts)));
}

static void post_receive(struct pair *p)
{
	union doca_data ud = { 0 };
	struct doca_rdma_task_receive *r;

	assert_ok(doca_rdma_task_receive_allocate_init(
	        p->s.rd, ts_buf(&p->s, p->s.mm, p->s.mem, 512, 64, 0), ud, &r));
	assert_ok(doca_task_submit(doca_rdma_task_receive_as_task(r)));
}

static void delayed_tasks_complete_in_order(void **state)
{
	struct pair p;
	uint64_t old;
	unsigned int held = 0, dropped = 0, failed = 0;

	(void)state;
	tp_fault_set(TPF_PASS, 0);
	pair_open(&p);
	post_receive(&p);
	tp_fault_set(TPF_DELAY, 20);
	submit_four(&p);
	assert_true(ts_wait(&p.s, &p.s.ok, 4, 10000));
	assert_true(ts_wait(&p.s, &p.s.nrecv, 1, 10000));
	assert_int_equal(p.s.err, 0);
	assert_memory_equal(p.s.mem + 2048, "fault!", 6); /* written */
	assert_memory_equal(p.s.mem + 3072, "fault!", 6); /* read back after the write */
	memcpy(&old, p.s.mem + 1032, 8);
	assert_int_equal(old, 0);
	memcpy(&old, p.s.mem + 1024, 8);
	assert_int_equal(old, 3);
	assert_memory_equal(p.s.mem + 512, "fault!", 6); /* received */
	(void)tp_fault_msgs(&held, &dropped, &failed);
	assert_true(held > 0); /* the streams' frames did go through the delay */
	tp_fault_set(TPF_PASS, 0);
	pair_close(&p);
}

/*
 * Sends that never complete (the peer stopped reading): a stop waits for them once, not once
 * per stream. Three connections each with a send stuck cost the stop 2 s (RW_SHUTDOWN_MS) in
 * all, 6 s when each stream waited its own 2 s; every send fails with IO_FAILED, flushed by
 * the stop.
 */
static void stalled_sends_cost_a_stop_once(void **state)
{
	enum { N = 3 };
	struct pair p;
	union doca_data ud = { 0 };
	enum doca_ctx_states st = DOCA_CTX_STATE_RUNNING;
	const void *blob;
	size_t n = 0;
	uint64_t t0;

	(void)state;
	tp_fault_set(TPF_PASS, 0);
	pair_open(&p);
	/* more connections of the context to itself: 2 dials 3, 4 dials 5 */
	for (int i = 2; i < 2 * N; i += 2) {
		assert_ok(doca_rdma_export(p.s.rd, &blob, &n, &p.s.conns[i]));
		assert_ok(doca_rdma_export(p.s.rd, &blob, &n, &p.s.conns[i + 1]));
		assert_ok(doca_rdma_connect(p.s.rd, blob, n, p.s.conns[i]));
	}
	p.s.nconns = 2 * N;
	tp_fault_set(TPF_STALL, 0);
	for (int i = 0; i < 2 * N; i += 2) { /* on each dialing side */
		struct doca_rdma_task_send *t;

		assert_ok(doca_rdma_task_send_allocate_init(
		        p.s.rd, p.s.conns[i], ts_buf(&p.s, p.s.mm, p.s.mem, 64 * i, 6, 6), ud, &t));
		assert_ok(doca_task_submit(doca_rdma_task_send_as_task(t)));
	}
	for (int i = 0; i < 20; i++)
		(void)doca_pe_progress(p.s.pe);
	assert_int_equal(p.s.ok + p.s.err, 0); /* stuck */
	t0 = tu_now_ms();
	(void)doca_ctx_stop(p.s.ctx);
	while (st != DOCA_CTX_STATE_IDLE && tu_now_ms() - t0 < 20000) {
		(void)doca_pe_progress(p.s.pe);
		(void)doca_ctx_get_state(p.s.ctx, &st);
	}
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	/* 2 s for all three, with 2 s of room for a loaded machine: 6 s before */
	assert_in_range(tu_now_ms() - t0, 0, 4000);
	assert_int_equal(p.s.err, N);
	assert_int_equal(p.s.last_err, DOCA_ERROR_IO_FAILED);
	tp_fault_set(TPF_PASS, 0);
	pair_close(&p);
}

static void killed_link_aborts_tasks(void **state)
{
	struct pair p;

	(void)state;
	tp_fault_set(TPF_PASS, 0);
	pair_open(&p);
	post_receive(&p);
	tp_fault_set(TPF_DELAY, 2000); /* in flight: nothing is answered before the cut */
	submit_four(&p);
	usleep(100000);
	tp_fault_set(TPF_KILL, 0);
	assert_true(ts_wait(&p.s, &p.s.err, 4, 15000));
	(void)ts_wait(&p.s, &p.s.ok, 1, 300); /* nothing completes well after the cut */
	assert_int_equal(p.s.ok, 0);
	assert_int_equal(p.s.err, 4);
	assert_doca(DOCA_ERROR_CONNECTION_ABORTED, p.s.last_err);
	tp_fault_set(TPF_PASS, 0);
	pair_close(&p); /* the posted receive is flushed by the stop */
}

/*
 * The receiver disconnects the moment its receive completes, while the answer to the send is
 * held on the slower path (TPF_SKEW: arrivals on the dialer's endpoints wait, so the answer
 * coming back on the sender's stream trails everything on the other stream until released):
 * the send still succeeds, as on one queue pair, where the receiver's acknowledgement
 * precedes its disconnect. Before, the disconnect (and the close of the receiver's streams)
 * reached the sender on its other stream first and failed the send with CONNECTION_ABORTED.
 */
static void disconnect_after_receive_keeps_the_send(void **state)
{
	struct tside s;
	union doca_data ud = { 0 };
	struct doca_rdma_task_send *t;
	struct doca_rdma_task_receive *r;
	const void *blob;
	uint8_t blob0[512];
	size_t n = 0, n0;

	(void)state;
	tp_fault_set(TPF_PASS, 0);
	assert_ok(ts_open(&s, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
	                  7));
	/* both directions, as two processes connect: 0 dials 1, 1 dials 0 */
	assert_ok(doca_rdma_export(s.rd, &blob, &n, &s.conns[0]));
	assert_in_range(n, 1, sizeof(blob0));
	memcpy(blob0, blob, n);
	n0 = n;
	assert_ok(doca_rdma_export(s.rd, &blob, &n, &s.conns[1]));
	assert_ok(doca_rdma_connect(s.rd, blob, n, s.conns[0]));
	assert_ok(doca_rdma_connect(s.rd, blob0, n0, s.conns[1]));
	s.nconns = 2;
	assert_ok(doca_rdma_task_receive_allocate_init(s.rd, ts_buf(&s, s.mm, s.mem, 512, 64, 0),
	                                               ud, &r));
	assert_ok(doca_task_submit(doca_rdma_task_receive_as_task(r)));
	memcpy(s.mem, "skewed", 6);
	tp_fault_set(TPF_SKEW, 0);
	assert_ok(doca_rdma_task_send_allocate_init(s.rd, s.conns[0],
	                                            ts_buf(&s, s.mm, s.mem, 0, 6, 6), ud, &t));
	assert_ok(doca_task_submit(doca_rdma_task_send_as_task(t)));
	assert_true(ts_wait(&s, &s.nrecv, 1, 10000));
	assert_ptr_equal(s.rconn[0], s.conns[1]);
	assert_int_equal(s.ok + s.err, 1); /* the receive: the answer is still on its way */
	assert_ok(doca_rdma_connection_disconnect(s.conns[1]));
	for (int i = 0; i < 20; i++) { /* what the other stream carried is served meanwhile */
		(void)doca_pe_progress(s.pe);
		usleep(10000);
	}
	tp_fault_set(TPF_PASS, 0); /* the answer arrives, then the disconnect behind it */
	assert_true(ts_wait(&s, &s.ok, 2, 10000));
	assert_int_equal(s.err, 0);
	assert_memory_equal(s.mem + 512, "skewed", 6);
	ts_close(&s);
}

static const struct odma_tp_ops *row;

static int setup(void **state)
{
	(void)state;
	row = tp_fault_net_row(odma_tp_find("ucx"));
	odma_tp_row_insert(row);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	odma_tp_row_remove(row);
	tp_fault_stop();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(delayed_tasks_complete_in_order),
		cmocka_unit_test(stalled_sends_cost_a_stop_once),
		cmocka_unit_test(killed_link_aborts_tasks),
		cmocka_unit_test(disconnect_after_receive_keeps_the_send),
	};

	if (odma_tp_net_absent() != NULL) {
		printf("skip: %s\n", odma_tp_net_absent());
		return 77;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
