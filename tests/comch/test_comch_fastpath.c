/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Comch fast path across two processes (parent: DPU-side server, forked child: host-side
 * client): consumers and producers in both directions, new/expired consumer events,
 * immediate data and producer ids, byte-exact delivery into the posted buffer, DOCA_ERROR_AGAIN
 * that clears without the producer's process progressing, every refusal (unknown consumer,
 * buffer too small, immediate data too long, a source list too long, too large or imported,
 * stopped consumer, producers blocking a disconnect, a running consumer's immediate data
 * length), a posted buffer the producer cannot write, a peer that dies (consumers and producers
 * expire, posted buffers fail), a consumer whose registration never completes, and a consumer
 * served on its own thread.
 */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "comch_fp_util.h"
#include "comch_util.h"
#include "test_util.h"

#define NAME cu_name
#define BIG (1u << 20)

/* The child's start: a client of the parent's server, RUNNING. */
static void client_up(struct cu_ep *e)
{
	cu_sync_side(true);
	cu_open(e, false);
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(e, NAME, 0, 8));
	CU_CHECK(cu_progress_until(e, cu_is_running, 5000));
}

/* The child's start with a consumer of @len bytes: client_up, then the consumer RUNNING. */
static void client_consumer_up(struct cu_ep *e, struct fp *c, size_t len, uint32_t tasks,
                               uint32_t imm)
{
	client_up(e);
	fp_consumer(c, e, len, tasks, imm);
	CU_CHECK(fp_until_state(e, c, DOCA_CTX_STATE_RUNNING, 5000));
}

/* The parent's start: @client forked (@secs to live), this side's server started. */
static pid_t server_up(struct cu_ep *s, int (*client)(void *), unsigned int secs, bool capture_log)
{
	pid_t child;

	cu_sync_init();
	child = cu_fork(client, NULL, secs);
	cu_sync_side(false);
	cu_open(s, true);
	if (capture_log)
		cu_log_capture();
	assert_ok(cu_server_start(s, NAME, 0, 8));
	return child;
}

/* ---- both directions, events, immediate data, producer ids ----------------------------------- */

static int client_both_ways(void *arg)
{
	struct cu_ep e;
	struct fp c, p;
	uint32_t cid, pid_;

	(void)arg;
	client_up(&e);
	/* 1. a consumer here: the server's producer fills it */
	fp_consumer(&c, &e, 3 * BIG, 4, 8);
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_consumer_get_imm_data_len(c.cons, &cid));
	CU_CHECK(cid == 8); /* as set */
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_consumer_get_id(c.cons, &cid));
	CU_CHECK(cid != 0 && (cid & 1) == 1); /* client-side ids are odd */
	CU_CHECK(fp_until_state(&e, &c, DOCA_CTX_STATE_RUNNING, 5000));
	fp_post(&c, 0, BIG);
	fp_post(&c, BIG, BIG);
	fp_post(&c, 2 * BIG, BIG);
	CU_CHECK(fp_until_count(&e, &c, 3, 10000));
	CU_CHECK(c.err == 0 && c.got_len[0] == 1 && c.got_imm_len[0] == 8 &&
	         memcmp(c.got_imm[0], "immdata!", 8) == 0);
	CU_CHECK(c.mem.base[0] == (uint8_t)(0 * 13u + 5));
	CU_CHECK(c.got_len[1] == 1000 && c.got_imm_len[1] == 0);
	CU_CHECK(c.got_len[2] == BIG - 1 && c.got_imm_len[2] == 0 && c.got_producer[2] != 0);
	CU_CHECK(c.got_producer[0] == c.got_producer[2] && (c.got_producer[0] & 1) == 0);
	for (size_t i = 0; i < 1000; i++)
		CU_CHECK(c.mem.base[BIG + i] == (uint8_t)(i * 13u + 5));
	for (size_t i = 0; i < BIG - 1; i++)
		CU_CHECK(c.mem.base[2 * BIG + i] == (uint8_t)(i * 13u + 5));
	cu_tell('c');               /* consumer done */
	CU_CHECK(fp_close(&e, &c)); /* the server sees it expire */
	/* 2. a producer here: the server's consumer */
	CU_CHECK(cu_progress_until(&e, got_new_cons, 5000));
	CU_CHECK((e.last_cons_id & 1) == 0); /* server-side ids are even */
	fp_producer(&p, &e, 4096, 4);
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_producer_get_id(p.prod, &pid_));
	fp_fill(&p, 9);
	CU_CHECK_DOCA(DOCA_SUCCESS, fp_send(&p, 0, 4096, e.last_cons_id, NULL, true, NULL));
	CU_CHECK(fp_until_count(&e, &p, 1, 5000));
	CU_CHECK(p.ok == 1 && pid_ != 0 && (pid_ & 1) == 1);
	CU_CHECK(fp_close(&e, &p));
	CU_CHECK(cu_hear(&e, 5000) == 'd');
	CU_CHECK(cu_close(&e));
	return 0;
}

static void test_both_ways(void **state)
{
	struct cu_ep s;
	struct fp p, c;
	uint32_t pid_;
	pid_t child;

	(void)state;
	child = server_up(&s, client_both_ways, 60, false);
	assert_true(cu_progress_until(&s, got_new_cons, 5000));
	assert_int_equal(s.last_cons_id & 1, 1);
	fp_producer(&p, &s, BIG, 8);
	assert_ok(doca_comch_producer_get_id(p.prod, &pid_));
	assert_true(pid_ != 0 && (pid_ & 1) == 0);
	fp_fill(&p, 5);
	assert_ok(fp_send(&p, 0, 1, s.last_cons_id, "immdata!", true, NULL));
	assert_ok(fp_send(&p, 0, 1000, s.last_cons_id, NULL, true, NULL));
	assert_ok(fp_send(&p, 0, BIG - 1, s.last_cons_id, NULL, true, NULL));
	assert_true(fp_until_count(&s, &p, 3, 5000));
	assert_int_equal(p.ok, 3);
	assert_int_equal(cu_hear(&s, 10000), 'c');
	assert_true(cu_progress_until(&s, got_gone_cons, 5000));
	assert_int_equal(s.gone_cons_id, s.last_cons_id);
	/* a send to the expired consumer */
	assert_int_equal(fp_send(&p, 0, 8, s.last_cons_id, NULL, false, NULL),
	                 DOCA_ERROR_NOT_FOUND);
	assert_true(fp_close(&s, &p));
	/* the other way round */
	fp_consumer(&c, &s, 8192, 2, 0);
	assert_true(fp_until_state(&s, &c, DOCA_CTX_STATE_RUNNING, 5000));
	fp_post(&c, 0, 8192);
	assert_true(fp_until_count(&s, &c, 1, 10000));
	assert_int_equal(c.err, 0);
	assert_int_equal(c.got_len[0], 4096);
	assert_true(c.got_producer[0] != 0 && (c.got_producer[0] & 1) == 1);
	for (size_t i = 0; i < 4096; i++)
		assert_int_equal(c.mem.base[i], (uint8_t)(i * 13u + 9));
	assert_true(fp_close(&s, &c));
	cu_tell('d');
	assert_true(cu_progress_until(&s, has_disconnect, 10000));
	assert_int_equal(cu_join(child, 10), 0);
	assert_true(cu_close(&s));
}

/* ---- a buffer the peer posts becomes visible without the producer's process progressing ------ */

static int client_posts_late(void *arg)
{
	struct cu_ep e;
	struct fp c;

	(void)arg;
	client_consumer_up(&e, &c, 4096, 2, 0);
	CU_CHECK(cu_hear(&e, 5000) == 'p'); /* the producer is spinning on AGAIN */
	usleep(100 * 1000);
	fp_post(&c, 0, 4096);
	CU_CHECK(fp_until_count(&e, &c, 1, 5000));
	CU_CHECK(c.err == 0 && c.got_len[0] == 100);
	CU_CHECK(fp_close(&e, &c));
	CU_CHECK(cu_close(&e));
	return 0;
}

static void test_again_without_progress(void **state)
{
	struct cu_ep s;
	struct fp p;
	unsigned int agains = 0;
	pid_t child;

	(void)state;
	child = server_up(&s, client_posts_late, 30, false);
	assert_true(cu_progress_until(&s, got_new_cons, 5000));
	fp_producer(&p, &s, 4096, 2);
	cu_tell('p');
	/* no doca_pe_progress of any PE in this process until the send is accepted */
	assert_ok(fp_send(&p, 0, 100, s.last_cons_id, NULL, true, &agains));
	assert_true(agains > 0);
	assert_true(fp_until_count(&s, &p, 1, 5000));
	assert_true(fp_close(&s, &p));
	assert_true(cu_progress_until(&s, has_disconnect, 10000));
	assert_int_equal(cu_join(child, 10), 0);
	assert_true(cu_close(&s));
}

/* ---- refusals: documented codes, one log line each, nothing corrupted ------------------------ */

static int client_for_errors(void *arg)
{
	struct cu_ep e;
	struct fp c, other;
	struct doca_comch_consumer_task_post_recv *t;
	struct doca_buf *b;

	(void)arg;
	client_consumer_up(&e, &c, 8192, 4, 4);
	/* a running consumer's immediate data length is fixed */
	CU_CHECK_DOCA(DOCA_ERROR_BAD_STATE, doca_comch_consumer_set_imm_data_len(c.cons, 2));
	/* post-recv refusals */
	memset(&other, 0, sizeof(other));
	cu_mem_init(&other.mem, e.dev, 64, 2);
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_buf_inventory_buf_get_by_addr(
	                                    other.mem.inv, other.mem.mmap, other.mem.base, 64, &b));
	CU_CHECK_DOCA(DOCA_ERROR_INVALID_VALUE,
	              doca_comch_consumer_task_post_recv_alloc_init(c.cons, b, &t));
	doca_buf_dec_refcount(b, NULL);
	CU_CHECK_DOCA(DOCA_SUCCESS,
	              doca_comch_consumer_task_post_recv_alloc_init(c.cons, NULL, &t));
	CU_CHECK_DOCA(DOCA_ERROR_INVALID_VALUE,
	              doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_buf_inventory_buf_get_by_data(c.mem.inv, c.mem.mmap,
	                                                               c.mem.base, 64, &b));
	doca_comch_consumer_task_post_recv_set_buf(t, b); /* full: no free space */
	CU_CHECK(doca_comch_consumer_task_post_recv_get_buf(t) == b);
	CU_CHECK_DOCA(DOCA_ERROR_INVALID_VALUE,
	              doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)));
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
	doca_buf_dec_refcount(b, NULL);
	cu_mem_fini(&other.mem);
	CU_CHECK(doca_comch_consumer_task_post_recv_get_producer_id(NULL) == 0);
	CU_CHECK(doca_comch_consumer_task_post_recv_get_imm_data(NULL) == NULL);
	/* a 100-byte buffer: the server tries 101 bytes, then 5 immediate bytes, then 100 + 4 */
	fp_post(&c, 0, 100);
	cu_tell('1');
	CU_CHECK(fp_until_count(&e, &c, 1, 10000));
	CU_CHECK(c.err == 0 && c.got_len[0] == 100 && c.got_imm_len[0] == 4 &&
	         memcmp(c.got_imm[0], "four", 4) == 0);
	CU_CHECK(cu_hear(&e, 5000) == '2');
	CU_CHECK(fp_close(&e, &c)); /* the server's next send finds it stopped */
	cu_tell('3');
	CU_CHECK(cu_hear(&e, 10000) == '4');
	CU_CHECK(cu_close(&e));
	return 0;
}

/* Submits a send of @head to consumer @cid: refused at submit with @why logged, no completion. */
static void send_refused(struct fp *p, struct cu_ep *s, struct doca_buf *head, uint32_t cid,
                         const char *why)
{
	struct doca_comch_producer_task_send *t;
	unsigned int done = p->ok + p->err;

	assert_ok(doca_comch_producer_task_send_alloc_init(p->prod, head, NULL, 0, cid, &t));
	assert_int_equal(doca_task_submit(doca_comch_producer_task_send_as_task(t)),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_true(cu_log_has(why));
	doca_task_free(doca_comch_producer_task_send_as_task(t));
	cu_progress_for(s, 20);
	assert_int_equal(p->ok + p->err, done);
}

/*
 * A source list longer than doca_comch_producer_cap_get_max_buf_list_len (64), and more bytes
 * than doca_comch_producer_cap_get_max_buf_size (1 GiB, in two bufs of untouched memory).
 */
static void send_list_refusals(struct fp *p, struct cu_ep *s, uint32_t cid)
{
	const size_t half = (1u << 29) + 1;
	struct cu_mem m;
	struct doca_mmap *big_mmap;
	struct doca_buf *head, *b;
	uint32_t max;
	uint8_t *big;

	assert_ok(doca_comch_producer_cap_get_max_buf_list_len(doca_dev_as_devinfo(s->dev), &max));
	cu_mem_init(&m, s->dev, max + 1, max + 1);
	assert_ok(doca_buf_inventory_buf_get_by_data(m.inv, m.mmap, m.base, 1, &head));
	for (uint32_t i = 1; i <= max; i++) {
		assert_ok(doca_buf_inventory_buf_get_by_data(m.inv, m.mmap, m.base + i, 1, &b));
		assert_ok(doca_buf_chain_list(head, b));
	}
	send_refused(p, s, head, cid, "source list is longer than");
	assert_ok(doca_buf_dec_refcount(head, NULL));

	big = mmap(NULL, 2 * half, PROT_READ | PROT_WRITE,
	           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	assert_true(big != MAP_FAILED);
	assert_ok(doca_mmap_create(&big_mmap));
	assert_ok(doca_mmap_add_dev(big_mmap, s->dev));
	assert_ok(doca_mmap_set_memrange(big_mmap, big, 2 * half));
	assert_ok(doca_mmap_start(big_mmap));
	assert_ok(doca_buf_inventory_buf_get_by_data(m.inv, big_mmap, big, half, &head));
	assert_ok(doca_buf_inventory_buf_get_by_data(m.inv, big_mmap, big + half, half, &b));
	assert_ok(doca_buf_chain_list(head, b));
	send_refused(p, s, head, cid, "(doca_comch_producer_cap_get_max_buf_size)");
	assert_ok(doca_buf_dec_refcount(head, NULL));
	assert_ok(doca_mmap_destroy(big_mmap));
	munmap(big, 2 * half);
	cu_mem_fini(&m);
}

/* A source in memory imported from the host (an mmap from an export) is not the producer's. */
static void send_imported_refused(struct fp *p, struct cu_ep *s, uint32_t cid)
{
	struct doca_dev *host = tu_open_dev("b1:00.0");
	struct doca_mmap *local, *imported;
	struct doca_buf_inventory *inv;
	static uint8_t mem[4096];
	struct doca_buf *b;
	const void *desc;
	size_t len;

	assert_ok(doca_mmap_create(&local));
	assert_ok(doca_mmap_add_dev(local, host));
	assert_ok(doca_mmap_set_permissions(local, DOCA_ACCESS_FLAG_PCI_READ_WRITE));
	assert_ok(doca_mmap_set_memrange(local, mem, sizeof(mem)));
	assert_ok(doca_mmap_start(local));
	assert_ok(doca_mmap_export_pci(local, host, &desc, &len));
	assert_ok(doca_mmap_create_from_export(NULL, desc, len, s->dev, &imported));
	assert_ok(doca_buf_inventory_create(1, &inv));
	assert_ok(doca_buf_inventory_start(inv));
	assert_ok(doca_buf_inventory_buf_get_by_data(inv, imported, mem, 16, &b));
	send_refused(p, s, b, cid, "must be in a local mmap");
	assert_ok(doca_buf_dec_refcount(b, NULL));
	assert_ok(doca_buf_inventory_destroy(inv));
	assert_ok(doca_mmap_destroy(imported));
	assert_ok(doca_mmap_destroy(local));
	assert_ok(doca_dev_close(host));
}

static void test_refusals(void **state)
{
	struct cu_ep s;
	struct fp p;
	struct doca_comch_producer_task_send *t;
	uint8_t imm[300] = { 0 };
	uint32_t cid;
	pid_t child;

	(void)state;
	child = server_up(&s, client_for_errors, 30, true);
	assert_true(cu_progress_until(&s, got_new_cons, 5000));
	cid = s.last_cons_id;
	fp_producer(&p, &s, 4096, 4);
	fp_fill(&p, 1);
	assert_int_equal(fp_send(&p, 0, 10, cid + 100, NULL, false, NULL), DOCA_ERROR_NOT_FOUND);
	assert_true(cu_log_has("has no consumer with id"));
	assert_int_equal(fp_send(&p, 0, 0, cid, NULL, false, NULL),
	                 DOCA_ERROR_INVALID_VALUE); /* nothing to send */
	assert_int_equal(doca_comch_producer_task_send_alloc_init(p.prod, NULL, imm, 33, cid, &t),
	                 DOCA_ERROR_INVALID_VALUE);
	{
		/* DOCA's add_dev rule: a source in an mmap the producer's device was never given */
		struct cu_mem other;
		struct doca_dev *dev2 = tu_open_pci_or_null("03:00.1");
		struct doca_buf *b;

		assert_non_null(dev2);
		cu_mem_init(&other, dev2, 4096, 1);
		assert_ok(doca_buf_inventory_buf_get_by_data(other.inv, other.mmap, other.base, 10,
		                                             &b));
		assert_ok(doca_comch_producer_task_send_alloc_init(p.prod, b, NULL, 0, cid, &t));
		assert_int_equal(doca_task_submit(doca_comch_producer_task_send_as_task(t)),
		                 DOCA_ERROR_NOT_PERMITTED);
		assert_true(cu_log_has("was never added to"));
		doca_task_free(doca_comch_producer_task_send_as_task(t));
		assert_ok(doca_buf_dec_refcount(b, NULL));
		cu_mem_fini(&other);
		assert_ok(doca_dev_close(dev2));
	}
	{
		/* a source in a thread-safe mmap stopped under it: registered with no device */
		static uint8_t tsmem[64];
		struct doca_mmap *ts;
		struct doca_buf *b;

		assert_ok(doca_mmap_create(&ts));
		assert_ok(doca_mmap_add_dev(ts, s.dev));
		assert_ok(doca_mmap_set_memrange(ts, tsmem, sizeof(tsmem)));
		assert_ok(doca_mmap_enable_thread_safety(ts));
		assert_ok(doca_mmap_start(ts));
		assert_ok(doca_buf_inventory_buf_get_by_data(p.mem.inv, ts, tsmem, 10, &b));
		assert_ok(doca_mmap_stop(ts));
		assert_ok(doca_comch_producer_task_send_alloc_init(p.prod, b, NULL, 0, cid, &t));
		assert_int_equal(doca_task_submit(doca_comch_producer_task_send_as_task(t)),
		                 DOCA_ERROR_BAD_STATE);
		assert_true(cu_log_has("which is stopped"));
		doca_task_free(doca_comch_producer_task_send_as_task(t));
		assert_ok(doca_buf_dec_refcount(b, NULL));
		assert_ok(doca_mmap_destroy(ts));
	}
	send_list_refusals(&p, &s, cid);
	send_imported_refused(&p, &s, cid);
	assert_int_equal(cu_hear(&s, 5000), '1'); /* a 100-byte buffer is posted */
	assert_int_equal(fp_send(&p, 0, 101, cid, NULL, true, NULL), DOCA_ERROR_TOO_BIG);
	assert_true(cu_log_has("the buffer stays posted"));
	assert_int_equal(fp_send(&p, 0, 10, cid, "fiver", true, NULL),
	                 DOCA_ERROR_TOO_BIG); /* accepts 4 */
	assert_ok(fp_send(&p, 0, 100, cid, "four", true, NULL));
	assert_true(fp_until_count(&s, &p, 1, 5000));
	/* producers on the connection block a disconnect */
	assert_int_equal(doca_comch_server_disconnect(s.srv, s.conn), DOCA_ERROR_IN_USE);
	cu_tell('2');
	assert_int_equal(cu_hear(&s, 5000), '3'); /* the consumer stopped */
	assert_int_equal(fp_send(&p, 0, 10, cid, NULL, true, NULL), DOCA_ERROR_NOT_FOUND);
	assert_true(fp_close(&s, &p));
	cu_tell('4');
	assert_true(cu_progress_until(&s, has_disconnect, 10000));
	assert_int_equal(cu_join(child, 10), 0);
	assert_true(cu_close(&s));
}

/* ---- the peer dies: the survivor's consumers and producers expire ---------------------------- */

static int client_dies_with_consumer(void *arg)
{
	struct cu_ep e;
	struct fp c;

	(void)arg;
	client_consumer_up(&e, &c, 4096, 2, 0);
	CU_CHECK(cu_progress_until(&e, got_new_cons, 5000)); /* the server's consumer */
	cu_tell('r');
	CU_CHECK(cu_hear(NULL, 10000) == 'k');
	raise(SIGKILL);
	return 1;
}

static void test_peer_dies(void **state)
{
	struct cu_ep s;
	struct fp c, p;
	uint32_t cid;
	pid_t child;

	(void)state;
	child = server_up(&s, client_dies_with_consumer, 30, true);
	assert_true(cu_progress_until(&s, got_new_cons, 5000));
	cid = s.last_cons_id;
	fp_consumer(&c, &s, 4096, 2, 0);
	assert_true(fp_until_state(&s, &c, DOCA_CTX_STATE_RUNNING, 5000));
	fp_post(&c, 0, 2048);
	fp_post(&c, 2048, 2048);
	fp_producer(&p, &s, 64, 2);
	assert_int_equal(cu_hear(&s, 5000), 'r');
	cu_tell('k');
	/* without progressing anything: the producer learns it from its submit */
	{
		uint64_t end = cu_now_ms() + 5000;
		doca_error_t r;

		while ((r = fp_send(&p, 0, 8, cid, NULL, false, NULL)) == DOCA_ERROR_AGAIN &&
		       cu_now_ms() < end)
			usleep(100);
		assert_int_equal(r, DOCA_ERROR_NOT_CONNECTED);
	}
	assert_true(cu_progress_until(&s, has_disconnect, 5000));
	assert_true(s.gone_cons > 0); /* the dead peer's consumer expired */
	assert_int_equal(s.gone_cons_id, cid);
	/* our consumer expired: its posted buffers failed, it stopped by itself */
	assert_true(fp_until_state(&s, &c, DOCA_CTX_STATE_IDLE, 5000));
	assert_int_equal(c.err, 2);
	assert_int_equal(c.last_status, DOCA_ERROR_CONNECTION_RESET);
	assert_true(c.passed_running);
	assert_true(fp_until_state(&s, &p, DOCA_CTX_STATE_IDLE, 5000));
	assert_true(cu_log_has("the consumer expires"));
	assert_true(cu_log_has("the producer expires"));
	/* the server refuses to be destroyed while they exist */
	assert_int_equal(doca_ctx_stop(s.ctx), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_destroy(s.srv), DOCA_ERROR_IN_USE);
	assert_true(fp_close(&s, &c));
	assert_true(fp_close(&s, &p));
	assert_int_equal(cu_join(child, 10), -1);
	assert_true(cu_close(&s));
}

/* ---- the peer dies and its pid names another process: nothing is written there ------------- */

/*
 * The dead client's posted buffer: a page the parent maps before it forks the client, so that
 * the stranger (forked from the parent later) has its own copy at the same address without
 * mapping over memory the parent's allocator (or a sanitizer's, or memcheck's) owns.
 */
static uint8_t *reuse_area;

static int client_posts_then_dies(void *arg)
{
	struct cu_ep e;
	struct fp c;

	(void)arg;
	client_up(&e);
	fp_consumer_over(&c, &e, reuse_area, 4096, 2, 0);
	CU_CHECK(fp_until_state(&e, &c, DOCA_CTX_STATE_RUNNING, 5000));
	fp_post(&c, 0, 4096);
	cu_tell('r');
	CU_CHECK(cu_hear(NULL, 10000) == 'k');
	raise(SIGKILL);
	return 1;
}

/*
 * The stranger: a process that took the dead client's pid and has memory (0xee) where the
 * client's posted buffer was. After the parent's send it answers 'u' when that memory is
 * untouched ('w': written), then dies by SIGKILL: it is a fork of a process with threads and
 * objects it will never free, which an exit would have memcheck or LeakSanitizer report.
 */
static void stranger(uint8_t *at, const int go[2], const int done[2])
{
	char ch = 'm';

	memset(at, 0xee, 4096);
	if (write(done[1], &ch, 1) == 1 && read(go[0], &ch, 1) == 1) {
		ch = 'u';
		for (size_t i = 0; i < 64; i++)
			if (at[i] != 0xee)
				ch = 'w';
		(void)!write(done[1], &ch, 1);
	}
	raise(SIGKILL);
}

/* A fork that gets pid @want (root: /proc/sys/kernel/ns_last_pid); 0 in the child, -1 if none. */
static pid_t fork_as(pid_t want)
{
	for (int i = 0; i < 50; i++) {
		FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");
		pid_t d;

		if (f == NULL || fprintf(f, "%d", (int)want - 1) < 0 || fclose(f) != 0)
			return -1;
		d = fork();
		if (d == 0 && getpid() != want)
			_exit(3);
		if (d == 0 || d == want)
			return d;
		(void)waitpid(d, NULL, 0); /* another process took it first: again */
	}
	return -1;
}

/* The end of test_peer_pid_reused: the disconnect seen, everything it opened closed. */
static void reuse_close(struct cu_ep *s, struct fp *p, const int go[2], const int done[2])
{
	assert_true(cu_progress_until(s, has_disconnect, 5000));
	assert_true(fp_close(s, p));
	assert_true(cu_close(s));
	for (int i = 0; i < 2; i++) {
		close(go[i]);
		close(done[i]);
	}
	assert_int_equal(munmap(reuse_area, 4096), 0);
}

/*
 * The consumer's process died with a buffer posted, and before this side noticed, its pid
 * was given to another process of the same user with memory at that address (a busy
 * machine's pids wrap: 32768 by default). The producer's send fails with DOCA_ERROR_IO_FAILED
 * and writes nothing into that process: the fast path writes into the peer's pid only while
 * the peer it connected to still runs.
 */
static void test_peer_pid_reused(void **state)
{
	struct cu_ep s;
	struct fp p;
	int go[2], done[2], st = -1;
	pid_t child, d;
	uint32_t cid;
	char ch;

	(void)state;
	if (geteuid() != 0) {
		print_message("skipped: giving a dead process' pid to another needs root\n");
		skip();
	}
	reuse_area = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(reuse_area != MAP_FAILED);
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(done), 0);
	child = server_up(&s, client_posts_then_dies, 30, true);
	assert_true(cu_progress_until(&s, got_new_cons, 5000));
	cid = s.last_cons_id;
	fp_producer(&p, &s, 64, 2);
	fp_fill(&p, 5);
	assert_int_equal(cu_hear(&s, 5000), 'r');
	cu_tell('k');
	assert_int_equal(cu_join(child, 10), -1); /* killed, and its pid free */
	d = fork_as(child);
	if (d == 0)
		stranger(reuse_area, go, done);
	if (d != child) {
		/*
		 * another process of this machine forked between our write of ns_last_pid and our
		 * fork and holds the pid now (a busy machine, tests in parallel): nothing to stage
		 */
		print_message("skipped: another process took pid %d first\n", (int)child);
		reuse_close(&s, &p, go, done);
		skip();
	}
	/* without progressing: this side has not seen the end */
	assert_int_equal(read(done[0], &ch, 1), 1);
	assert_ok(fp_send(&p, 0, 64, cid, NULL, false, NULL));
	assert_int_equal(write(go[1], "c", 1), 1);
	assert_int_equal(read(done[0], &ch, 1), 1);
	assert_int_equal(ch, 'u'); /* its memory untouched */
	assert_int_equal(waitpid(d, &st, 0), d);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	assert_true(fp_until_count(&s, &p, 1, 5000));
	assert_int_equal(p.last_status, DOCA_ERROR_IO_FAILED);
	assert_true(cu_log_has("the peer process has exited"));
	reuse_close(&s, &p, go, done);
}

/* ---- a posted buffer the producer cannot write: both tasks fail, the next post works --------- */

static int client_buffer_unwritable(void *arg)
{
	struct cu_ep e;
	struct fp c;
	uint8_t *page;
	size_t off;

	(void)arg;
	client_consumer_up(&e, &c, 4 * 4096, 2, 0);
	page = (uint8_t *)(((uintptr_t)c.mem.base + 4095) & ~(uintptr_t)4095);
	off = (size_t)(page - c.mem.base);
	fp_post(&c, off, 4096);
	CU_CHECK(mprotect(page, 4096, PROT_NONE) == 0); /* the program's own doing */
	cu_tell('r');
	CU_CHECK(fp_until_count(&e, &c, 1, 5000));
	CU_CHECK(mprotect(page, 4096, PROT_READ | PROT_WRITE) == 0);
	CU_CHECK(c.err == 1 && c.last_status == DOCA_ERROR_IO_FAILED);
	fp_post(&c, off, 4096);
	cu_tell('2');
	CU_CHECK(fp_until_count(&e, &c, 2, 5000));
	CU_CHECK(c.ok == 1 && c.got_len[0] == 64 && page[0] == 3 &&
	         page[63] == (uint8_t)(63 * 13u + 3));
	CU_CHECK(fp_close(&e, &c));
	CU_CHECK(cu_hear(&e, 5000) == 'd');
	CU_CHECK(cu_close(&e));
	return 0;
}

/*
 * A consumer's posted buffer the producer's process cannot write (here its program made the
 * page inaccessible): the producer's send fails with DOCA_ERROR_IO_FAILED and one log line
 * naming the peer and the cause, the consumer's receive fails with the same code, and the
 * connection goes on: the next buffer posted receives the next send.
 */
static void test_buffer_unwritable(void **state)
{
	struct cu_ep s;
	struct fp p;
	uint32_t cid;
	pid_t child;

	(void)state;
	child = server_up(&s, client_buffer_unwritable, 30, true);
	assert_true(cu_progress_until(&s, got_new_cons, 5000));
	cid = s.last_cons_id;
	fp_producer(&p, &s, 4096, 2);
	fp_fill(&p, 3);
	assert_int_equal(cu_hear(&s, 5000), 'r');
	assert_ok(fp_send(&p, 0, 64, cid, NULL, true, NULL));
	assert_true(fp_until_count(&s, &p, 1, 5000));
	assert_int_equal(p.err, 1);
	assert_int_equal(p.last_status, DOCA_ERROR_IO_FAILED);
	assert_true(cu_log_has("writing 64 bytes into the peer"));
	assert_int_equal(cu_hear(&s, 5000), '2');
	assert_ok(fp_send(&p, 0, 64, cid, NULL, true, NULL));
	assert_true(fp_until_count(&s, &p, 2, 5000));
	assert_int_equal(p.ok, 1);
	assert_true(fp_close(&s, &p));
	cu_tell('d');
	assert_true(cu_progress_until(&s, has_disconnect, 10000));
	assert_int_equal(cu_join(child, 10), 0);
	assert_true(cu_close(&s));
}

/* ---- a consumer whose peer never answers, then dies: IDLE without RUNNING -------------------- */

static int client_never_progresses(void *arg)
{
	struct cu_ep e;

	(void)arg;
	client_up(&e);
	cu_tell('r');
	CU_CHECK(cu_hear(NULL, 10000) == 'k');
	raise(SIGKILL);
	return 1;
}

static void test_consumer_start_fails(void **state)
{
	struct cu_ep s;
	struct fp c;
	pid_t child;

	(void)state;
	child = server_up(&s, client_never_progresses, 30, false);
	assert_int_equal(cu_hear(&s, 5000), 'r');
	fp_consumer(&c, &s, 4096, 2, 0);
	assert_false(fp_until_state(&s, &c, DOCA_CTX_STATE_RUNNING, 200)); /* no ACK: STARTING */
	cu_tell('k');
	assert_true(fp_until_state(&s, &c, DOCA_CTX_STATE_IDLE, 5000));
	assert_false(c.passed_running);
	assert_true(fp_close(&s, &c));
	assert_int_equal(cu_join(child, 10), -1);
	assert_true(cu_close(&s));
}

/* ---- a consumer served on its own thread while the main thread runs the connection ----------- */

struct thread_arg {
	struct fp *c;
	bool stop;
};

static void *consumer_thread(void *p)
{
	struct thread_arg *a = p;

	while (!__atomic_load_n(&a->stop, __ATOMIC_ACQUIRE))
		if (doca_pe_progress(a->c->pe) == 0)
			usleep(10);
	return NULL;
}

static int client_streams(void *arg)
{
	struct cu_ep e;
	struct fp p;
	uint32_t cid;

	(void)arg;
	cu_open(&e, false);
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&e, NAME, 0, 8));
	CU_CHECK(cu_progress_until(&e, cu_is_running, 5000));
	CU_CHECK(cu_progress_until(&e, got_new_cons, 5000));
	cid = e.last_cons_id;
	fp_producer(&p, &e, 64 * 1024, 8);
	fp_fill(&p, 3);
	for (int i = 0; i < 200; i++) {
		CU_CHECK_DOCA(DOCA_SUCCESS,
		              fp_send(&p, (size_t)(i % 8) * 8192, 8192, cid, NULL, true, NULL));
		doca_pe_progress(p.pe);
	}
	CU_CHECK(fp_until_count(&e, &p, 200, 10000));
	CU_CHECK(p.ok == 200);
	CU_CHECK(fp_close(&e, &p));
	CU_CHECK(cu_progress_until(&e, got_gone_cons, 10000));
	CU_CHECK(cu_close(&e));
	return 0;
}

static void recv_repost(struct doca_comch_consumer_task_post_recv *t, union doca_data tud,
                        union doca_data cud)
{
	struct fp *f = cud.ptr;
	struct doca_buf *b = doca_comch_consumer_task_post_recv_get_buf(t);
	size_t len;

	(void)tud;
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_buf_get_data_len(b, &len));
	CU_CHECK(len == 8192);
	if (__atomic_add_fetch(&f->ok, 1, __ATOMIC_RELEASE) + 8 <= 200) {
		CU_CHECK_DOCA(DOCA_SUCCESS, doca_buf_reset_data_len(b));
		CU_CHECK_DOCA(DOCA_SUCCESS,
		              doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)));
		return;
	}
	doca_buf_dec_refcount(b, NULL);
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static void test_consumer_thread(void **state)
{
	struct cu_ep s;
	struct fp c;
	struct thread_arg a = { 0 };
	pthread_t th;
	pid_t child;

	(void)state;
	child = cu_fork(client_streams, NULL, 60);
	cu_open(&s, true);
	assert_ok(cu_server_start(&s, NAME, 0, 8));
	memset(&c, 0, sizeof(c));
	assert_true(cu_progress_until(&s, cu_has_conn, 5000));
	/* a consumer with a reposting callback */
	cu_mem_init(&c.mem, s.dev, 8 * 8192, 16);
	assert_ok(doca_pe_create(&c.pe));
	assert_ok(doca_comch_consumer_create(s.conn, c.mem.mmap, &c.cons));
	c.ctx = doca_comch_consumer_as_ctx(c.cons);
	fp_ctx_common(&c);
	assert_ok(doca_comch_consumer_task_post_recv_set_conf(c.cons, recv_repost, recv_err, 8));
	assert_int_equal(doca_ctx_start(c.ctx), DOCA_ERROR_IN_PROGRESS);
	assert_true(fp_until_state(&s, &c, DOCA_CTX_STATE_RUNNING, 5000));
	for (int i = 0; i < 8; i++)
		fp_post(&c, (size_t)i * 8192, 8192);
	a.c = &c;
	assert_int_equal(pthread_create(&th, NULL, consumer_thread, &a), 0);
	{
		uint64_t end = cu_now_ms() + 20000;

		while (__atomic_load_n(&c.ok, __ATOMIC_ACQUIRE) < 200 && cu_now_ms() < end)
			if (doca_pe_progress(s.pe) == 0)
				usleep(20);
	}
	__atomic_store_n(&a.stop, true, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	assert_int_equal(c.ok, 200);
	assert_int_equal(c.err, 0);
	assert_true(fp_close(&s, &c));
	assert_true(cu_progress_until(&s, has_disconnect, 10000));
	assert_int_equal(cu_join(child, 10), 0);
	assert_true(cu_close(&s));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_both_ways, cu_next_name),
		cmocka_unit_test_setup(test_again_without_progress, cu_next_name),
		cmocka_unit_test_setup(test_refusals, cu_next_name),
		cmocka_unit_test_setup(test_peer_dies, cu_next_name),
		cmocka_unit_test_setup(test_peer_pid_reused, cu_next_name),
		cmocka_unit_test_setup(test_buffer_unwritable, cu_next_name),
		cmocka_unit_test_setup(test_consumer_start_fails, cu_next_name),
		cmocka_unit_test_setup(test_consumer_thread, cu_next_name),
	};

	/* the producer writes into the consumer's process (process_vm_writev) */
	tu_skip_under_qemu(TU_QEMU_NO_CMA);
	cu_private_rundir();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
