/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * DOCA RDMA in one process: capabilities (a device without RDMA says NOT_SUPPORTED),
 * properties and their refusals, the context states the samples rely on (start RUNNING at
 * once, stop with nothing in flight IDLE at once), export limits, blob and address checks,
 * and a whole connection to itself (export + connect on one context).
 * With ODMA_TEST_FABRIC_UNREACHABLE: ODMA_FABRIC on a network this machine is not on.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include <doca_log.h>

#include "rdma_tu.h"

/*
 * The listening TCP sockets of @port (IPv4, /proc/net/tcp): how many bind 127.0.0.1 and how
 * many bind another address (0.0.0.0 among them).
 */
static void listeners_of(unsigned int port, int *loopback, int *other)
{
	char line[512];
	FILE *f = fopen("/proc/net/tcp", "r");

	*loopback = *other = 0;
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned int addr, p, state;

		if (sscanf(line, " %*u: %8X:%4X %*8X:%*4X %2X", &addr, &p, &state) != 3 ||
		    p != port || state != 0x0a)
			continue;
		if (addr == 0x0100007fu) /* 127.0.0.1, as the kernel prints it */
			(*loopback)++;
		else
			(*other)++;
	}
	fclose(f);
}

static void test_caps(void **state)
{
	struct doca_devinfo **list;
	uint32_t n, v;
	struct doca_rdma_gid gid[2];

	(void)state;
	assert_ok(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n; i++) {
		assert_ok(doca_rdma_cap_task_read_is_supported(list[i]));
		assert_ok(doca_rdma_cap_task_receive_is_supported(list[i]));
		assert_ok(doca_rdma_cap_task_write_is_supported(list[i]));
		assert_ok(doca_rdma_cap_task_write_imm_is_supported(list[i]));
		assert_ok(doca_rdma_cap_task_send_imm_is_supported(list[i]));
		assert_ok(doca_rdma_cap_task_remote_net_sync_event_get_is_supported(list[i]));
		assert_ok(doca_rdma_cap_task_atomic_cmp_swp_is_supported(list[i]));
		assert_ok(doca_rdma_cap_task_atomic_fetch_add_is_supported(list[i]));
		assert_ok(
		        doca_rdma_cap_task_remote_net_sync_event_notify_add_is_supported(list[i]));
		assert_ok(doca_rdma_cap_get_max_send_queue_size(list[i], &v));
		assert_true(v >= 1);
		assert_ok(doca_rdma_cap_get_max_recv_queue_size(list[i], &v));
		assert_true(v >= 1);
		assert_doca(DOCA_ERROR_INVALID_VALUE,
		            doca_rdma_cap_get_max_send_queue_size(list[i], NULL));
		assert_ok(
		        doca_rdma_cap_task_remote_net_sync_event_notify_set_is_supported(list[i]));
		assert_ok(doca_rdma_cap_transport_type_is_supported(list[i],
		                                                    DOCA_RDMA_TRANSPORT_TYPE_DC));
		assert_ok(doca_rdma_cap_get_max_message_size(list[i], &v));
		assert_int_equal(v, 1u << 30);
		assert_ok(doca_rdma_cap_get_gid_table_size(list[i], &v));
		assert_ok(doca_rdma_cap_get_gid(list[i], 0, 2, gid));
		assert_int_equal(gid[0].raw[10], 0xff); /* IPv4-mapped */
		assert_doca(DOCA_ERROR_INVALID_VALUE, doca_rdma_cap_get_gid(list[i], v, 1, gid));
		assert_doca(DOCA_ERROR_INVALID_VALUE,
		            doca_rdma_cap_transport_type_is_supported(list[i], 9));
	}
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_rdma_cap_task_send_is_supported(NULL));
	assert_ok(doca_devinfo_destroy_list(list));
}

static void test_properties_and_states(void **state)
{
	struct tside s;
	uint32_t v;
	uint16_t v16;
	uint8_t v8;
	enum doca_rdma_transport_type tt;
	enum doca_ctx_states st;
	struct doca_rdma *rd;

	(void)state;
	s.dev = tu_open_dev("b1:00.0");
	assert_ok(doca_rdma_create(s.dev, &rd));
	/* the samples' permissions, and a refused bit */
	assert_ok(doca_rdma_set_permissions(rd, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	assert_ok(doca_rdma_set_permissions(rd, DOCA_ACCESS_FLAG_RDMA_READ |
	                                                DOCA_ACCESS_FLAG_RDMA_WRITE));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_rdma_set_permissions(rd, DOCA_ACCESS_FLAG_PCI_READ_WRITE));
	assert_ok(doca_rdma_get_permissions(rd, &v));
	assert_int_equal(v, DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE);
	assert_ok(doca_rdma_set_transport_type(rd, DOCA_RDMA_TRANSPORT_TYPE_DC));
	assert_ok(doca_rdma_get_transport_type(rd, &tt));
	assert_int_equal(tt, DOCA_RDMA_TRANSPORT_TYPE_DC);
	assert_ok(doca_rdma_set_transport_type(rd, DOCA_RDMA_TRANSPORT_TYPE_RC));
	assert_ok(doca_rdma_set_gid_index(rd, 3));
	assert_ok(doca_rdma_get_gid_index(rd, &v));
	assert_int_equal(v, 3);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_rdma_set_gid_index(rd, 100000));
	assert_ok(doca_rdma_set_send_queue_size(rd, 100));
	assert_ok(doca_rdma_get_send_queue_size(rd, &v));
	assert_int_equal(v, 128); /* rounded up to a power of 2 */
	assert_doca(DOCA_ERROR_NOT_SUPPORTED, doca_rdma_set_recv_queue_size(rd, 8));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED, doca_rdma_get_recv_queue_size(rd, &v));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED, doca_rdma_set_max_num_connections(rd, 0));
	assert_ok(doca_rdma_set_max_num_connections(rd, 2));
	assert_ok(doca_rdma_get_max_num_connections(rd, &v16));
	assert_int_equal(v16, 2);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_rdma_set_rnr_retry_count(rd, 8));
	/*
	 * the task types share one pool of at most the device's max_num_tasks (65536 on the
	 * built-in devices): one type past it, or types whose sum passes it, are refused
	 */
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_rdma_task_send_set_conf(rd, ts_ok_send, ts_err_send, UINT32_MAX));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_rdma_task_send_set_conf(rd, ts_ok_send, ts_err_send, 65537));
	assert_ok(doca_rdma_task_send_set_conf(rd, ts_ok_send, ts_err_send, 65536));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_rdma_task_write_set_conf(rd, ts_ok_write, ts_err_write, 1));
	assert_ok(doca_rdma_task_send_set_conf(rd, ts_ok_send, ts_err_send, 4));
	assert_ok(doca_rdma_task_write_set_conf(rd, ts_ok_write, ts_err_write, 1));
	assert_ok(doca_rdma_get_rnr_retry_count(rd, &v8));
	assert_int_equal(v8, 7);
	assert_doca(DOCA_ERROR_NOT_SUPPORTED, doca_rdma_set_mtu(rd, (enum doca_mtu_size)99));
	assert_ok(doca_rdma_set_mtu(rd, DOCA_MTU_SIZE_4K_BYTES));
	{
		enum doca_mtu_size mtu;

		assert_ok(doca_rdma_get_mtu(rd, &mtu));
		assert_int_equal(mtu, DOCA_MTU_SIZE_4K_BYTES);
	}
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_rdma_set_sl(rd, 16));
	assert_ok(doca_rdma_set_sl(rd, 5));
	assert_ok(doca_rdma_get_sl(rd, &v));
	assert_int_equal(v, 5);
	assert_ok(doca_rdma_set_grh_enabled(rd, 1));
	assert_ok(doca_rdma_get_grh_enabled(rd, &v8));
	assert_int_equal(v8, 1);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_rdma_set_connection_request_timeout(rd, 0));
	assert_ok(doca_rdma_set_connection_request_timeout(rd, 1500));
	assert_ok(doca_rdma_get_connection_request_timeout(rd, &v16));
	assert_int_equal(v16, 1500);
	{
		/* list lengths: up to the device's caps, each read back as set */
		struct doca_devinfo *di = doca_dev_as_devinfo(s.dev);
		uint32_t max_send = 0, max_recv = 0;

		assert_ok(doca_rdma_cap_get_max_send_buf_list_len(di, &max_send));
		assert_true(max_send >= 1);
		assert_ok(doca_rdma_set_max_send_buf_list_len(rd, max_send));
		assert_ok(doca_rdma_get_max_send_buf_list_len(rd, &v));
		assert_int_equal(v, max_send);
		assert_doca(DOCA_ERROR_NOT_SUPPORTED,
		            doca_rdma_set_max_send_buf_list_len(rd, max_send + 1));
		assert_doca(DOCA_ERROR_NOT_SUPPORTED, doca_rdma_set_max_send_buf_list_len(rd, 0));
		assert_ok(doca_rdma_cap_task_receive_get_max_dst_buf_list_len(
		        di, DOCA_RDMA_TRANSPORT_TYPE_RC, &max_recv));
		assert_true(max_recv >= 1);
		assert_ok(doca_rdma_task_receive_set_dst_buf_list_len(rd, max_recv));
		assert_ok(doca_rdma_task_receive_get_dst_buf_list_len(rd, &v));
		assert_int_equal(v, max_recv);
		assert_doca(DOCA_ERROR_NOT_SUPPORTED,
		            doca_rdma_task_receive_set_dst_buf_list_len(rd, max_recv + 1));
		assert_doca(DOCA_ERROR_NOT_SUPPORTED,
		            doca_rdma_task_receive_set_dst_buf_list_len(rd, 0));
		assert_doca(DOCA_ERROR_INVALID_VALUE,
		            doca_rdma_cap_task_receive_get_max_dst_buf_list_len(di, 9, &max_recv));
	}
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_rdma_create(NULL, &rd));
	{
		const void *blob;
		size_t n;
		struct doca_rdma_connection *c;

		/* not started: no export */
		assert_doca(DOCA_ERROR_BAD_STATE, doca_rdma_export(rd, &blob, &n, &c));
	}
	assert_ok(doca_pe_create(&s.pe));
	assert_ok(doca_pe_connect_ctx(s.pe, doca_rdma_as_ctx(rd)));
#ifndef ODMA_HAVE_UCX
	/* built without UCX, the transport DOCA RDMA runs on: the start says so and fails */
	assert_doca(DOCA_ERROR_NOT_SUPPORTED, doca_ctx_start(doca_rdma_as_ctx(rd)));
	assert_ok(doca_ctx_get_state(doca_rdma_as_ctx(rd), &st));
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	assert_ok(doca_rdma_destroy(rd));
	assert_ok(doca_pe_destroy(s.pe));
	assert_ok(doca_dev_close(s.dev));
	return;
#endif
	assert_ok(doca_ctx_start(doca_rdma_as_ctx(rd))); /* SUCCESS, RUNNING at once */
	assert_ok(doca_ctx_get_state(doca_rdma_as_ctx(rd), &st));
	assert_int_equal(st, DOCA_CTX_STATE_RUNNING);
	assert_doca(DOCA_ERROR_BAD_STATE, doca_rdma_set_gid_index(rd, 1));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_rdma_destroy(rd));
	{
		const void *blob;
		size_t n;
		struct doca_rdma_connection *c1, *c2, *c3;
		uint8_t bad[256];
		uint32_t id1, id2;

		int lo, other;

		assert_ok(doca_rdma_export(rd, &blob, &n, &c1));
		assert_true(n <= 1024); /* fits the samples' negotiation buffers */
		/*
		 * without ODMA_FABRIC the out-of-band listener binds loopback only, and the blob
		 * offers no other address (docs/rdma.md: the blob's port at byte 14, count at 13)
		 */
		assert_int_equal(((const uint8_t *)blob)[13], 0);
		listeners_of((unsigned int)((const uint8_t *)blob)[14] |
		                     (unsigned int)((const uint8_t *)blob)[15] << 8,
		             &lo, &other);
		assert_int_equal(lo, 1);
		assert_int_equal(other, 0);
		memcpy(bad, blob, n);
		assert_ok(doca_rdma_export(rd, &blob, &n, &c2));
		assert_doca(DOCA_ERROR_FULL, doca_rdma_export(rd, &blob, &n, &c3));
		assert_ok(doca_rdma_connection_get_id(c1, &id1));
		assert_ok(doca_rdma_connection_get_id(c2, &id2));
		assert_int_not_equal(id1, id2);
		bad[30] ^= 1; /* a corrupted blob */
		assert_doca(DOCA_ERROR_CONNECTION_ABORTED, doca_rdma_connect(rd, bad, n, c1));
		/* a context connected to itself: c1 -> c2's blob */
		assert_ok(doca_rdma_connect(rd, blob, n, c1));
		assert_doca(DOCA_ERROR_BAD_STATE, doca_rdma_connect(rd, blob, n, c1));
		assert_doca(DOCA_ERROR_NOT_FOUND,
		            doca_rdma_connection_get_addr(c1, &(struct doca_rdma_addr *){ NULL }));
	}
	/* nothing in flight: IDLE at once, and a second stop is SUCCESS */
	assert_ok(doca_ctx_stop(doca_rdma_as_ctx(rd)));
	assert_ok(doca_ctx_get_state(doca_rdma_as_ctx(rd), &st));
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	assert_ok(doca_ctx_stop(doca_rdma_as_ctx(rd)));
	assert_ok(doca_rdma_destroy(rd));
	assert_ok(doca_pe_destroy(s.pe));
	assert_ok(doca_dev_close(s.dev));
}

/*
 * A started context of 2 connections with sends and receives (4 each), its user data @s, on
 * a PE of its own (rnr_retry_count 7: a send waits up to 8 s for a receive).
 */
static void open_of_two(struct tside *s)
{
	memset(s, 0, sizeof(*s));
	s->dev = tu_open_dev("b1:00.0");
	assert_ok(doca_rdma_create(s->dev, &s->rd));
	s->ctx = doca_rdma_as_ctx(s->rd);
	assert_ok(doca_rdma_set_max_num_connections(s->rd, 2));
	assert_ok(doca_rdma_set_rnr_retry_count(s->rd, 7));
	assert_ok(doca_rdma_task_send_set_conf(s->rd, ts_ok_send, ts_err_send, 4));
	assert_ok(doca_rdma_task_receive_set_conf(s->rd, ts_recv_ok, ts_recv_err, 4));
	assert_ok(doca_ctx_set_user_data(s->ctx, (union doca_data){ .ptr = s }));
	assert_ok(doca_pe_create(&s->pe));
	assert_ok(doca_pe_connect_ctx(s->pe, s->ctx));
	assert_ok(doca_ctx_start(s->ctx));
}

static void close_of_two(struct tside *s)
{
	assert_ok(doca_ctx_stop(s->ctx));
	assert_ok(doca_rdma_destroy(s->rd));
	assert_ok(doca_pe_destroy(s->pe));
	assert_ok(doca_dev_close(s->dev));
}

/* Exports (of copied blobs) until @n succeed or @ms pass, progressing between tries. */
static int exports_within(struct tside *s, int n, int ms)
{
	struct doca_rdma_connection *c;
	const void *blob;
	size_t len;
	int got = 0;

	for (int i = 0; i < ms && got < n; i++) {
		if (doca_rdma_export(s->rd, &blob, &len, &c) == DOCA_SUCCESS)
			got++;
		else
			usleep(1000);
		(void)doca_pe_progress(s->pe);
	}
	return got;
}

/* Two connections of @s's context exported and connected to each other. */
static void connect_self(struct tside *s, struct doca_rdma_connection **c1,
                         struct doca_rdma_connection **c2)
{
	uint8_t b1[256], b2[256];
	const void *blob;
	size_t n1, n2;

	assert_ok(doca_rdma_export(s->rd, &blob, &n1, c1));
	assert_true(n1 <= sizeof(b1));
	memcpy(b1, blob, n1);
	assert_ok(doca_rdma_export(s->rd, &blob, &n2, c2));
	assert_true(n2 <= sizeof(b2));
	memcpy(b2, blob, n2);
	assert_ok(doca_rdma_connect(s->rd, b2, n2, *c1));
	assert_ok(doca_rdma_connect(s->rd, b1, n1, *c2));
}

/*
 * A connection disconnected while its peer's send waits for a receive (receiver not ready)
 * gives its slot back at once: its reader stops waiting at the disconnect, not after the
 * sender's RNR time (8 s at rnr_retry_count 7), during which every export of a context of
 * max_num_connections said FULL. Both slots serve again as each disconnect returns, before any
 * progress. The send fails (once).
 */
static void test_disconnect_ends_rnr_wait(void **state)
{
	struct tside s;
	struct doca_rdma_task_send *t;
	struct doca_rdma_connection *c1, *c2;
	const void *blob;
	size_t n1, n2;

	(void)state;
	open_of_two(&s);
	connect_self(&s, &c1, &c2);
	/* an empty message to c2, which has no receive posted: its reader waits for one */
	assert_ok(doca_rdma_task_send_allocate_init(s.rd, c1, NULL, (union doca_data){ 0 }, &t));
	assert_ok(doca_task_submit(doca_rdma_task_send_as_task(t)));
	for (int i = 0; i < 100; i++) {
		(void)doca_pe_progress(s.pe);
		usleep(1000);
	}
	assert_ok(doca_rdma_connection_disconnect(c2));
	assert_ok(doca_rdma_connection_disconnect(c1));
	/*
	 * both slots are free once the disconnects return, with no progress or wait between (a
	 * program that disconnects and exports again at once, as on hardware); the limit holds
	 */
	assert_ok(doca_rdma_export(s.rd, &blob, &n1, &c1));
	assert_ok(doca_rdma_export(s.rd, &blob, &n2, &c2));
	assert_doca(DOCA_ERROR_FULL, doca_rdma_export(s.rd, &blob, &n2, &c2));
	assert_ok(doca_rdma_connection_disconnect(c2));
	assert_ok(doca_rdma_connection_disconnect(c1));
	assert_int_equal(exports_within(&s, 2, 3000), 2);
	assert_true(ts_wait(&s, &s.err, 1, 3000));
	assert_int_equal(s.ok + s.err, 1);
	assert_int_equal(s.nrecv, 0);
	close_of_two(&s);
}

/*
 * Connections made and let go in a tight loop on a context of 2: each round's two exports
 * come right after the previous round's disconnects (no progress between), while what is left
 * of the rounds before may still be ending; each round's send and receive complete once.
 */
static void test_reconnect_churn(void **state)
{
	struct tside s;
	struct doca_rdma_task_receive *rt;
	struct doca_rdma_task_send *st;
	struct doca_rdma_connection *a, *b;

	(void)state;
#ifndef ODMA_HAVE_UCX
	skip(); /* no started context without the transport DOCA RDMA runs on */
#endif
	open_of_two(&s);
	for (int round = 0; round < 40; round++) {
		connect_self(&s, &a, &b);
		assert_ok(doca_rdma_task_receive_allocate_init(s.rd, NULL, (union doca_data){ 0 },
		                                               &rt));
		assert_ok(doca_task_submit(doca_rdma_task_receive_as_task(rt)));
		assert_ok(doca_rdma_task_send_allocate_init(s.rd, a, NULL, (union doca_data){ 0 },
		                                            &st));
		assert_ok(doca_task_submit(doca_rdma_task_send_as_task(st)));
		assert_true(ts_wait(&s, &s.ok, 2 * (round + 1), 5000));
		assert_ok(doca_rdma_connection_disconnect(a));
		assert_ok(doca_rdma_connection_disconnect(b));
	}
	assert_int_equal(s.err, 0);
	assert_int_equal(s.nrecv, 40);
	close_of_two(&s);
}

static void test_addresses_and_unemulated(void **state)
{
	struct doca_rdma_addr *a;
	doca_dpa_dev_rdma_t h;

	(void)state;
	assert_ok(doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_IPv6, "::1", 1, &a));
	assert_ok(doca_rdma_addr_destroy(a));
	assert_ok(doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_GID, "fe80::1", 1, &a));
	assert_ok(doca_rdma_addr_destroy(a));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_IPv4, "300.1.1.1", 1, &a));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_IPv4, NULL, 1, &a));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_rdma_addr_destroy(NULL));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED, doca_rdma_get_dpa_handle((struct doca_rdma *)&h, &h));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED,
	            doca_rdma_get_gpu_handle((struct doca_rdma *)&h,
	                                     &(struct doca_gpu_dev_rdma *){ NULL }));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED,
	            doca_rdma_dpa_completion_attach((struct doca_rdma *)&h,
	                                            (struct doca_dpa_completion *)&h));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED,
	            doca_rdma_bridge_prepare_connection((struct doca_rdma *)&h,
	                                                (struct rdma_cm_id *)&h,
	                                                &(struct doca_rdma_connection *){ NULL }));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED,
	            doca_rdma_bridge_accept((struct doca_rdma *)&h, NULL, 0,
	                                    (struct doca_rdma_connection *)&h));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED,
	            doca_rdma_bridge_established((struct doca_rdma *)&h,
	                                         (struct doca_rdma_connection *)&h));
}

/* @get(task) is @first; after @set(task, @then) it is @then. */
#define ACC(get, set, task, first, then)                                                           \
	do {                                                                                       \
		assert_true(get(task) == (first));                                                 \
		set(task, then);                                                                   \
		assert_true(get(task) == (then));                                                  \
	} while (0)

/*
 * Every task's accessors: the values allocate_init took read back, and each setter's value
 * replaces them (a program may allocate once and re-aim the task before each submit).
 */
static void test_task_accessors(void **state)
{
	struct tside s;
	const void *blob;
	size_t n;
	struct doca_rdma_connection *c, *c2;
	struct doca_buf *a, *b, *x, *y;
	struct doca_sync_event *se;
	struct doca_sync_event_remote_net *rse, *rse2;
	union doca_data ud = { 0 };

	(void)state;
	assert_ok(ts_open(&s, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
	                  7));
	assert_ok(doca_rdma_export(s.rd, &blob, &n, &c));
	assert_ok(doca_rdma_export(s.rd, &blob, &n, &c2));
	a = ts_buf(&s, s.mm, s.mem, 0, 64, 64);
	b = ts_buf(&s, s.mm, s.mem, 64, 64, 0);
	x = ts_buf(&s, s.mm, s.mem, 128, 64, 64);
	y = ts_buf(&s, s.mm, s.mem, 192, 64, 0);
	assert_ok(doca_sync_event_create(&se));
	assert_ok(doca_sync_event_add_publisher_location_remote_net(se));
	assert_ok(doca_sync_event_add_subscriber_location_cpu(se, s.dev));
	assert_ok(doca_sync_event_start(se));
	assert_ok(doca_sync_event_export_to_remote_net(se, (const uint8_t **)&blob, &n));
	assert_ok(doca_sync_event_remote_net_create_from_export(s.dev, blob, n, &rse));
	assert_ok(doca_sync_event_remote_net_create_from_export(s.dev, blob, n, &rse2));
	{
		struct doca_rdma_task_send *t;

		assert_ok(doca_rdma_task_send_allocate_init(s.rd, c, a, ud, &t));
		ACC(doca_rdma_task_send_get_src_buf, doca_rdma_task_send_set_src_buf, t, a, x);
		ACC(doca_rdma_task_send_get_rdma_connection,
		    doca_rdma_task_send_set_rdma_connection, t, c, c2);
		doca_task_free(doca_rdma_task_send_as_task(t));
	}
	{
		struct doca_rdma_task_send_imm *t;

		assert_ok(doca_rdma_task_send_imm_allocate_init(s.rd, c, a, 7, ud, &t));
		ACC(doca_rdma_task_send_imm_get_src_buf, doca_rdma_task_send_imm_set_src_buf, t, a,
		    x);
		ACC(doca_rdma_task_send_imm_get_immediate_data,
		    doca_rdma_task_send_imm_set_immediate_data, t, 7u, 9u);
		ACC(doca_rdma_task_send_imm_get_rdma_connection,
		    doca_rdma_task_send_imm_set_rdma_connection, t, c, c2);
		doca_task_free(doca_rdma_task_send_imm_as_task(t));
	}
	{
		struct doca_rdma_task_read *t;

		assert_ok(doca_rdma_task_read_allocate_init(s.rd, c, a, b, ud, &t));
		ACC(doca_rdma_task_read_get_src_buf, doca_rdma_task_read_set_src_buf, t, a, x);
		ACC(doca_rdma_task_read_get_dst_buf, doca_rdma_task_read_set_dst_buf, t, b, y);
		ACC(doca_rdma_task_read_get_rdma_connection,
		    doca_rdma_task_read_set_rdma_connection, t, c, c2);
		assert_int_equal(doca_rdma_task_read_get_result_len(t), 0); /* not run yet */
		doca_task_free(doca_rdma_task_read_as_task(t));
	}
	{
		struct doca_rdma_task_write *t;

		assert_ok(doca_rdma_task_write_allocate_init(s.rd, c, a, b, ud, &t));
		ACC(doca_rdma_task_write_get_src_buf, doca_rdma_task_write_set_src_buf, t, a, x);
		ACC(doca_rdma_task_write_get_dst_buf, doca_rdma_task_write_set_dst_buf, t, b, y);
		ACC(doca_rdma_task_write_get_rdma_connection,
		    doca_rdma_task_write_set_rdma_connection, t, c, c2);
		doca_task_free(doca_rdma_task_write_as_task(t));
	}
	{
		struct doca_rdma_task_write_imm *t;

		assert_ok(doca_rdma_task_write_imm_allocate_init(s.rd, c, a, b, 5, ud, &t));
		ACC(doca_rdma_task_write_imm_get_src_buf, doca_rdma_task_write_imm_set_src_buf, t,
		    a, x);
		ACC(doca_rdma_task_write_imm_get_dst_buf, doca_rdma_task_write_imm_set_dst_buf, t,
		    b, y);
		ACC(doca_rdma_task_write_imm_get_immediate_data,
		    doca_rdma_task_write_imm_set_immediate_data, t, 5u, 6u);
		ACC(doca_rdma_task_write_imm_get_rdma_connection,
		    doca_rdma_task_write_imm_set_rdma_connection, t, c, c2);
		doca_task_free(doca_rdma_task_write_imm_as_task(t));
	}
	{
		struct doca_rdma_task_atomic_cmp_swp *t;

		assert_ok(doca_rdma_task_atomic_cmp_swp_allocate_init(s.rd, c, a, b, 1, 2, ud, &t));
		ACC(doca_rdma_task_atomic_cmp_swp_get_dst_buf,
		    doca_rdma_task_atomic_cmp_swp_set_dst_buf, t, a, x);
		ACC(doca_rdma_task_atomic_cmp_swp_get_result_buf,
		    doca_rdma_task_atomic_cmp_swp_set_result_buf, t, b, y);
		ACC(doca_rdma_task_atomic_cmp_swp_get_cmp_data,
		    doca_rdma_task_atomic_cmp_swp_set_cmp_data, t, 1u, 3u);
		ACC(doca_rdma_task_atomic_cmp_swp_get_swap_data,
		    doca_rdma_task_atomic_cmp_swp_set_swap_data, t, 2u, 4u);
		ACC(doca_rdma_task_atomic_cmp_swp_get_rdma_connection,
		    doca_rdma_task_atomic_cmp_swp_set_rdma_connection, t, c, c2);
		doca_task_free(doca_rdma_task_atomic_cmp_swp_as_task(t));
	}
	{
		struct doca_rdma_task_atomic_fetch_add *t;

		assert_ok(doca_rdma_task_atomic_fetch_add_allocate_init(s.rd, c, a, b, 8, ud, &t));
		ACC(doca_rdma_task_atomic_fetch_add_get_dst_buf,
		    doca_rdma_task_atomic_fetch_add_set_dst_buf, t, a, x);
		ACC(doca_rdma_task_atomic_fetch_add_get_result_buf,
		    doca_rdma_task_atomic_fetch_add_set_result_buf, t, b, y);
		ACC(doca_rdma_task_atomic_fetch_add_get_add_data,
		    doca_rdma_task_atomic_fetch_add_set_add_data, t, 8u, 16u);
		ACC(doca_rdma_task_atomic_fetch_add_get_rdma_connection,
		    doca_rdma_task_atomic_fetch_add_set_rdma_connection, t, c, c2);
		doca_task_free(doca_rdma_task_atomic_fetch_add_as_task(t));
	}
	{
		struct doca_rdma_task_remote_net_sync_event_get *t;

		assert_ok(doca_rdma_task_remote_net_sync_event_get_allocate_init(s.rd, c, rse, b,
		                                                                 ud, &t));
		ACC(doca_rdma_task_remote_net_sync_event_get_get_sync_event,
		    doca_rdma_task_remote_net_sync_event_get_set_sync_event, t, rse, rse2);
		ACC(doca_rdma_task_remote_net_sync_event_get_get_dst_buf,
		    doca_rdma_task_remote_net_sync_event_get_set_dst_buf, t, b, y);
		ACC(doca_rdma_task_remote_net_sync_event_get_get_rdma_connection,
		    doca_rdma_task_remote_net_sync_event_get_set_rdma_connection, t, c, c2);
		assert_int_equal(doca_rdma_task_remote_net_sync_event_get_get_result_len(t), 0);
		doca_task_free(doca_rdma_task_remote_net_sync_event_get_as_task(t));
	}
	{
		struct doca_rdma_task_remote_net_sync_event_notify_set *t;

		assert_ok(doca_rdma_task_remote_net_sync_event_notify_set_allocate_init(
		        s.rd, c, rse, a, ud, &t));
		ACC(doca_rdma_task_remote_net_sync_event_notify_set_get_sync_event,
		    doca_rdma_task_remote_net_sync_event_notify_set_set_sync_event, t, rse, rse2);
		ACC(doca_rdma_task_remote_net_sync_event_notify_set_get_src_buf,
		    doca_rdma_task_remote_net_sync_event_notify_set_set_src_buf, t, a, x);
		ACC(doca_rdma_task_remote_net_sync_event_notify_set_get_rdma_connection,
		    doca_rdma_task_remote_net_sync_event_notify_set_set_rdma_connection, t, c, c2);
		doca_task_free(doca_rdma_task_remote_net_sync_event_notify_set_as_task(t));
	}
	{
		struct doca_rdma_task_remote_net_sync_event_notify_add *t;

		assert_ok(doca_rdma_task_remote_net_sync_event_notify_add_allocate_init(
		        s.rd, c, rse, b, 3, ud, &t));
		ACC(doca_rdma_task_remote_net_sync_event_notify_add_get_sync_event,
		    doca_rdma_task_remote_net_sync_event_notify_add_set_sync_event, t, rse, rse2);
		ACC(doca_rdma_task_remote_net_sync_event_notify_add_get_result_buf,
		    doca_rdma_task_remote_net_sync_event_notify_add_set_result_buf, t, b, y);
		ACC(doca_rdma_task_remote_net_sync_event_notify_add_get_add_data,
		    doca_rdma_task_remote_net_sync_event_notify_add_set_add_data, t, 3u, 4u);
		ACC(doca_rdma_task_remote_net_sync_event_notify_add_get_rdma_connection,
		    doca_rdma_task_remote_net_sync_event_notify_add_set_rdma_connection, t, c, c2);
		doca_task_free(doca_rdma_task_remote_net_sync_event_notify_add_as_task(t));
	}
	{
		struct doca_rdma_task_receive *t;

		assert_ok(doca_rdma_task_receive_allocate_init(s.rd, b, ud, &t));
		ACC(doca_rdma_task_receive_get_dst_buf, doca_rdma_task_receive_set_dst_buf, t, b,
		    y);
		doca_task_free(doca_rdma_task_receive_as_task(t));
	}
	assert_ok(doca_sync_event_remote_net_destroy(rse));
	assert_ok(doca_sync_event_remote_net_destroy(rse2));
	assert_ok(doca_sync_event_stop(se));
	assert_ok(doca_sync_event_destroy(se));
	ts_close(&s);
}

/*
 * Each task type gets the number its set_conf gave, no more: once all 16 receives are out, every
 * further receive is refused, however often it is asked (a refused allocation once gave its
 * type's count back, so the next one took a task of another type's share).
 */
static void test_task_type_share(void **state)
{
	struct doca_rdma_task_receive *t[17];
	union doca_data ud = { 0 };
	struct tside s;

	(void)state;
	assert_ok(ts_open(&s, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
	                  7));
	for (int i = 0; i < 16; i++)
		assert_ok(doca_rdma_task_receive_allocate_init(s.rd, NULL, ud, &t[i]));
	for (int i = 0; i < 3; i++)
		assert_doca(DOCA_ERROR_NO_MEMORY,
		            doca_rdma_task_receive_allocate_init(s.rd, NULL, ud, &t[16]));
	doca_task_free(doca_rdma_task_receive_as_task(t[0]));
	assert_ok(doca_rdma_task_receive_allocate_init(s.rd, NULL, ud, &t[0]));
	for (int i = 0; i < 16; i++)
		doca_task_free(doca_rdma_task_receive_as_task(t[i]));
	ts_close(&s);
}

/* A profile device without rdma=yes: NOT_SUPPORTED, as the samples' checks expect. */
static void test_device_without_rdma(void **state)
{
	struct doca_devinfo **list;
	struct doca_dev *dev;
	struct doca_rdma *rd;
	uint32_t n, v;
	bool found = false;

	(void)state;
	assert_ok(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n; i++) {
		if (doca_rdma_cap_task_send_is_supported(list[i]) != DOCA_ERROR_NOT_SUPPORTED)
			continue;
		found = true;
		assert_doca(DOCA_ERROR_NOT_SUPPORTED,
		            doca_rdma_cap_get_max_message_size(list[i], &v));
		assert_doca(DOCA_ERROR_NOT_SUPPORTED,
		            doca_rdma_cap_transport_type_is_supported(list[i],
		                                                      DOCA_RDMA_TRANSPORT_TYPE_RC));
		assert_ok(doca_dev_open(list[i], &dev));
		assert_doca(DOCA_ERROR_NOT_SUPPORTED, doca_rdma_create(dev, &rd));
		assert_ok(doca_dev_close(dev));
	}
	assert_ok(doca_devinfo_destroy_list(list));
	if (getenv("ODMA_TEST_NO_RDMA_DEV") != NULL)
		assert_true(found);
}

/*
 * A connection handle kept past a stop and a restart names no connection of the new run: the
 * calls refuse it with their codes (the slots were reused: CONNECTION_ABORTED, not pending;
 * their number changed: INVALID_VALUE) and never read freed memory (ASan).
 */
static void test_handle_after_restart(void **state)
{
	struct doca_rdma_connection *c;
	struct doca_rdma *rd;
	struct doca_dev *dev;
	struct doca_pe *pe;
	const void *blob;
	size_t n;

	(void)state;
#ifndef ODMA_HAVE_UCX
	skip(); /* no started context without the transport DOCA RDMA runs on */
#endif
	dev = tu_open_dev("b1:00.0");
	assert_ok(doca_pe_create(&pe));
	assert_ok(doca_rdma_create(dev, &rd));
	assert_ok(doca_pe_connect_ctx(pe, doca_rdma_as_ctx(rd)));
	assert_ok(doca_ctx_start(doca_rdma_as_ctx(rd)));
	assert_ok(doca_rdma_export(rd, &blob, &n, &c));
	assert_ok(doca_ctx_stop(doca_rdma_as_ctx(rd)));
	assert_ok(doca_ctx_start(doca_rdma_as_ctx(rd)));
	assert_doca(DOCA_ERROR_CONNECTION_ABORTED, doca_rdma_connection_accept(c, NULL, 0));
	assert_ok(doca_ctx_stop(doca_rdma_as_ctx(rd)));
	assert_ok(doca_rdma_set_max_num_connections(rd, 3));
	assert_ok(doca_ctx_start(doca_rdma_as_ctx(rd)));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_rdma_connection_accept(c, NULL, 0));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_rdma_connection_disconnect(c));
	assert_ok(doca_ctx_stop(doca_rdma_as_ctx(rd)));
	assert_ok(doca_rdma_destroy(rd));
	assert_ok(doca_pe_destroy(pe));
	assert_ok(doca_dev_close(dev));
}

/*
 * RDMA CM's refusals on a started context, no peer needed: the callbacks set after the start;
 * port 0, a port another socket holds, a port it does not listen on; accept and reject of a
 * connection that is no pending request; and no RDMA CM at all on the DC transport.
 */
static void test_cm_refusals(void **state)
{
	struct tside s;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	struct doca_rdma_connection *c;
	struct doca_rdma_addr *addr;
	struct doca_rdma *dc;
	struct doca_pe *pe;
	struct doca_dev *dev;
	const void *blob;
	size_t n;
	uint8_t priv[197] = { 0 };
	int fd;

	(void)state;
#ifndef ODMA_HAVE_UCX
	skip(); /* no started context without the transport DOCA RDMA runs on */
#endif
	assert_ok(ts_open(&s, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
	                  7));
	assert_doca(DOCA_ERROR_BAD_STATE,
	            doca_rdma_set_connection_state_callbacks(s.rd, ts_cm_request, ts_cm_established,
	                                                     ts_cm_failure, ts_cm_disconnect));
	assert_doca(DOCA_ERROR_CONNECTION_ABORTED, doca_rdma_start_listen_to_port(s.rd, 0));
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0); /* port 0: the kernel's */
	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
	assert_doca(DOCA_ERROR_CONNECTION_ABORTED,
	            doca_rdma_start_listen_to_port(s.rd, ntohs(a.sin_port)));
	assert_doca(DOCA_ERROR_CONNECTION_ABORTED,
	            doca_rdma_stop_listen_to_port(s.rd, ntohs(a.sin_port)));
	close(fd);
	assert_ok(doca_rdma_export(s.rd, &blob, &n, &c));
	assert_doca(DOCA_ERROR_CONNECTION_ABORTED, doca_rdma_connection_accept(c, NULL, 0));
	/* a CM reply carries at most 196 bytes of private data */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_rdma_connection_accept(c, priv, 197));
	assert_doca(DOCA_ERROR_CONNECTION_ABORTED, doca_rdma_connection_accept(c, priv, 196));
	assert_doca(DOCA_ERROR_CONNECTION_ABORTED, doca_rdma_connection_reject(c));
	/* a started context's tasks are configured */
	assert_doca(DOCA_ERROR_BAD_STATE,
	            doca_rdma_task_read_set_conf(s.rd, ts_ok_read, ts_err_read, 16));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_rdma_task_receive_set_dst_buf_list_len(s.rd, 1));
	/* all 8 connections in use: no CM connection starts (refused before any dial) */
	for (int i = 1; i < 8; i++)
		assert_ok(doca_rdma_export(s.rd, &blob, &n, &c));
	assert_ok(doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_IPv4, "127.0.0.1", 1, &addr));
	assert_doca(DOCA_ERROR_FULL,
	            doca_rdma_connect_to_addr(s.rd, addr, (union doca_data){ .u64 = 0 }));
	assert_ok(doca_rdma_addr_destroy(addr));
	ts_close(&s);

	dev = tu_open_dev("b1:00.0");
	assert_ok(doca_pe_create(&pe));
	assert_ok(doca_rdma_create(dev, &dc));
	assert_ok(doca_rdma_set_transport_type(dc, DOCA_RDMA_TRANSPORT_TYPE_DC));
	assert_ok(doca_pe_connect_ctx(pe, doca_rdma_as_ctx(dc)));
	assert_ok(doca_ctx_start(doca_rdma_as_ctx(dc)));
	/* refused before any socket exists: nothing listens on the port named */
	assert_doca(DOCA_ERROR_NOT_SUPPORTED, doca_rdma_start_listen_to_port(dc, 4791));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED, doca_rdma_stop_listen_to_port(dc, 4791));
	assert_ok(doca_ctx_stop(doca_rdma_as_ctx(dc)));
	assert_ok(doca_rdma_destroy(dc));
	assert_ok(doca_pe_destroy(pe));
	assert_ok(doca_dev_close(dev));
}

/*
 * A connection blob of the other transport: an RC connection given a DC context's blob, or a DC
 * connection an RC context's, is refused (CONNECTION_ABORTED, as a blob that cannot connect),
 * as an RC queue pair cannot reach a DC target on hardware; the connection stays EXPORTED, and
 * a blob of its own transport connects it then.
 */
static void test_transport_mismatch(void **state)
{
	struct tside s;
	struct doca_rdma_connection *rc1, *rc2, *dc1;
	uint8_t rc_blob[256], dc_blob[256];
	const void *blob;
	size_t nrc, ndc;
	struct doca_rdma *dc;
	struct doca_pe *pe;
	struct doca_dev *dev;

	(void)state;
#ifndef ODMA_HAVE_UCX
	skip(); /* no started context without the transport DOCA RDMA runs on */
#endif
	assert_ok(ts_open(&s, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
	                  7));
	dev = tu_open_dev("b1:00.0");
	assert_ok(doca_pe_create(&pe));
	assert_ok(doca_rdma_create(dev, &dc));
	assert_ok(doca_rdma_set_transport_type(dc, DOCA_RDMA_TRANSPORT_TYPE_DC));
	assert_ok(doca_pe_connect_ctx(pe, doca_rdma_as_ctx(dc)));
	assert_ok(doca_ctx_start(doca_rdma_as_ctx(dc)));
	assert_ok(doca_rdma_export(s.rd, &blob, &nrc, &rc1));
	memcpy(rc_blob, blob, nrc);
	assert_ok(doca_rdma_export(dc, &blob, &ndc, &dc1));
	memcpy(dc_blob, blob, ndc);
	assert_doca(DOCA_ERROR_CONNECTION_ABORTED, doca_rdma_connect(s.rd, dc_blob, ndc, rc1));
	assert_doca(DOCA_ERROR_CONNECTION_ABORTED, doca_rdma_connect(dc, rc_blob, nrc, dc1));
	/* each still connects to a blob of its own transport */
	assert_ok(doca_rdma_export(s.rd, &blob, &nrc, &rc2));
	assert_ok(doca_rdma_connect(s.rd, blob, nrc, rc1));
	assert_ok(doca_rdma_export(dc, &blob, &ndc, &(struct doca_rdma_connection *){ NULL }));
	assert_ok(doca_rdma_connect(dc, blob, ndc, dc1));
	assert_ok(doca_ctx_stop(doca_rdma_as_ctx(dc)));
	assert_ok(doca_rdma_destroy(dc));
	assert_ok(doca_pe_destroy(pe));
	assert_ok(doca_dev_close(dev));
	ts_close(&s);
}

static char g_log[8192];

static void log_line(char *line)
{
	strncat(g_log, line, sizeof(g_log) - strlen(g_log) - 1);
}

/* Whether an IPv4 address of this machine lies in 198.51.100.0/24. */
static bool have_test_net(void)
{
	struct ifaddrs *all, *a;
	bool found = false;

	if (getifaddrs(&all) != 0)
		return false;
	for (a = all; a != NULL; a = a->ifa_next)
		if (a->ifa_addr != NULL && a->ifa_addr->sa_family == AF_INET &&
		    (ntohl(((struct sockaddr_in *)(void *)a->ifa_addr)->sin_addr.s_addr) >> 8) ==
		            0xc63364)
			found = true;
	freeifaddrs(all);
	return found;
}

/*
 * ODMA_FABRIC names a network no interface here is on (198.51.100.0/24, kept for documentation):
 * an RDMA context has no address for its out-of-band listener, so it does not start
 * (INITIALIZATION), and the lines say why and what to fix.
 */
static void test_fabric_unreachable(void **state)
{
	static char buf[1024];
	struct doca_log_backend *be;
	struct doca_rdma *rd;
	struct doca_dev *dev;
	struct doca_pe *pe;

	(void)state;
#ifndef ODMA_HAVE_UCX
	skip(); /* DOCA RDMA does not start without the transport at all */
#endif
	if (have_test_net())
		skip(); /* this machine is on that network */
	assert_ok(doca_log_backend_create_with_buf_sdk(buf, sizeof(buf), log_line, &be));
	dev = tu_open_dev("b1:00.0");
	assert_ok(doca_pe_create(&pe));
	assert_ok(doca_rdma_create(dev, &rd));
	assert_ok(doca_pe_connect_ctx(pe, doca_rdma_as_ctx(rd)));
	assert_doca(DOCA_ERROR_INITIALIZATION, doca_ctx_start(doca_rdma_as_ctx(rd)));
	assert_non_null(strstr(g_log, "no local interface is on the network of 198.51.100.1"));
	assert_non_null(strstr(g_log, "cannot listen for out-of-band connections"));
	assert_ok(doca_rdma_destroy(rd));
	assert_ok(doca_pe_destroy(pe));
	assert_ok(doca_dev_close(dev));
}

/* From here on, this process' log lines go to g_log too; g_log starts empty. */
static void log_capture(void)
{
	static char buf[1024];
	static struct doca_log_backend *be;

	if (be == NULL)
		assert_ok(doca_log_backend_create_with_buf_sdk(buf, sizeof(buf), log_line, &be));
	g_log[0] = '\0';
}

/*
 * A client whose server is not up (nothing listens on the port: a socket holds it, unlistened):
 * the failure callback follows. When the transport closes the connection at once, the line
 * says so; it named a stale errno ("Success", "No such file or directory"). (When the close
 * comes later, the connection fails as one its server hung up.)
 */
static void test_cm_no_server_line(void **state)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	struct doca_rdma_addr *addr;
	struct tside s;
	char want[96];
	const char *line;
	int fd;

	(void)state;
#ifndef ODMA_HAVE_UCX
	skip(); /* no started context without the transport DOCA RDMA runs on */
#endif
	assert_ok(ts_open(&s, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
	                  7));
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0); /* port 0: the kernel's */
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
	assert_ok(doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_IPv4, "127.0.0.1", ntohs(a.sin_port),
	                                &addr));
	log_capture();
	assert_ok(doca_rdma_connect_to_addr(s.rd, addr, (union doca_data){ .u64 = 0 }));
	assert_true(ts_wait(&s, &s.failures, 1, 10000));
	snprintf(want, sizeof(want), "cannot reach an RDMA CM server at 127.0.0.1 port %u (",
	         ntohs(a.sin_port));
	line = strstr(g_log, want);
	if (line != NULL)
		assert_ptr_equal(strstr(line, "(the transport closed the connection at once)"),
		                 line + strlen(want) - 1);
	close(fd);
	assert_ok(doca_rdma_addr_destroy(addr));
	ts_close(&s);
}

/*
 * A client that dials the out-of-band port of an RDMA context, which is no RDMA CM server: the
 * listener closes the connection without an answer, the failure callback follows, and a line
 * on the client's side says so (it said nothing: only the listener's side had a line).
 */
static void test_cm_server_hangs_up_line(void **state)
{
	struct doca_rdma_connection *c;
	struct doca_rdma_addr *addr;
	struct tside s;
	const uint8_t *blob;
	char want[128];
	uint16_t port;
	size_t n;

	(void)state;
#ifndef ODMA_HAVE_UCX
	skip(); /* no started context without the transport DOCA RDMA runs on */
#endif
	assert_ok(ts_open(&s, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
	                  7));
	assert_ok(doca_rdma_export(s.rd, (const void **)&blob, &n, &c));
	port = (uint16_t)(blob[14] | blob[15] << 8); /* its out-of-band port (docs/rdma.md) */
	assert_ok(doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_IPv4, "127.0.0.1", port, &addr));
	log_capture();
	assert_ok(doca_rdma_connect_to_addr(s.rd, addr, (union doca_data){ .u64 = 0 }));
	assert_true(ts_wait(&s, &s.failures, 1, 10000));
	snprintf(want, sizeof(want),
	         "the RDMA CM server at 127.0.0.1 port %u ended connection 2 before answering",
	         port);
	assert_non_null(strstr(g_log, want));
	assert_ok(doca_rdma_addr_destroy(addr));
	ts_close(&s);
}

/*
 * Whether every thread of this process but @self may run on each CPU of @want (the
 * Cpus_allowed_list of each /proc/self/task entry); the first that may not is printed.
 */
static bool others_allowed_on(pid_t self, const cpu_set_t *want, int *nthreads)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	bool ok = true;

	assert_non_null(d);
	*nthreads = 0;
	while ((e = readdir(d)) != NULL) {
		cpu_set_t set;
		pid_t tid = (pid_t)atoi(e->d_name);
		char comm[64] = "?";
		char path[64];
		FILE *f;

		if (tid <= 0 || tid == self)
			continue;
		if (sched_getaffinity(tid, sizeof(set), &set) != 0)
			continue; /* ended since readdir */
		(*nthreads)++;
		snprintf(path, sizeof(path), "/proc/self/task/%d/comm", (int)tid);
		f = fopen(path, "r");
		if (f != NULL) {
			if (fgets(comm, sizeof(comm), f) != NULL)
				comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
		if (!CPU_EQUAL(&set, want)) {
			printf("thread %d (%s) may run on %d CPUs, the process on %d\n", (int)tid,
			       comm, CPU_COUNT(&set), CPU_COUNT(want));
			ok = false;
		}
	}
	closedir(d);
	return ok;
}

struct pinned_run {
	cpu_set_t process; /* the CPUs the process may run on */
	bool ok;
	int nthreads;
};

/*
 * On an application thread pinned to one CPU (as a storage or DPDK worker is): a context
 * connected to itself, and a send and its receive over that connection.
 */
static void *pinned_app_thread(void *arg)
{
	struct pinned_run *r = arg;
	struct doca_rdma_connection *c1, *c2;
	struct doca_rdma_task_receive *rt;
	struct doca_rdma_task_send *st;
	struct doca_buf *rb, *sb;
	cpu_set_t one;
	struct tside s;
	int cpu = 0;

	while (!CPU_ISSET(cpu, &r->process))
		cpu++;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(one), &one), 0);
	assert_ok(ts_open(&s, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
	                  7));
	connect_self(&s, &c1, &c2);
	memcpy(s.mem, "pinned", 7);
	rb = ts_buf(&s, s.mm, s.mem, 2048, 64, 0);
	sb = ts_buf(&s, s.mm, s.mem, 0, 7, 7);
	assert_ok(doca_rdma_task_receive_allocate_init(s.rd, rb, (union doca_data){ 0 }, &rt));
	assert_ok(doca_task_submit(doca_rdma_task_receive_as_task(rt)));
	assert_ok(doca_rdma_task_send_allocate_init(s.rd, c1, sb, (union doca_data){ 0 }, &st));
	assert_ok(doca_task_submit(doca_rdma_task_send_as_task(st)));
	assert_true(ts_wait(&s, &s.nrecv, 1, 5000));
	assert_memory_equal(s.mem + 2048, "pinned", 7);
	r->ok = others_allowed_on((pid_t)syscall(SYS_gettid), &r->process, &r->nthreads);
	ts_close(&s);
	return NULL;
}

/*
 * The threads odma starts for a context (the thread engine's workers, the RDMA listener and
 * readers, the transport's service thread) may run on every CPU the process may: they stand
 * for the device's own engines, which never take the CPU of the application thread that
 * happened to start them. Inheriting a pinned thread's single CPU put them all on the core
 * its busy-polling loop holds.
 */
static void test_own_threads_not_pinned(void **state)
{
	struct pinned_run r = { .ok = false };
	pthread_t t;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(r.process), &r.process), 0);
	if (CPU_COUNT(&r.process) < 2)
		skip(); /* one CPU: pinned and unpinned are the same */
	assert_int_equal(pthread_create(&t, NULL, pinned_app_thread, &r), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_true(r.nthreads > 1); /* this thread and odma's */
	assert_true(r.ok);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_threads_not_pinned), /* first: no pool yet */
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_properties_and_states),
		cmocka_unit_test(test_addresses_and_unemulated),
		cmocka_unit_test(test_disconnect_ends_rnr_wait),
		cmocka_unit_test(test_task_accessors),
		cmocka_unit_test(test_task_type_share),
		cmocka_unit_test(test_cm_refusals),
		cmocka_unit_test(test_handle_after_restart),
		cmocka_unit_test(test_transport_mismatch),
		cmocka_unit_test(test_reconnect_churn),
		cmocka_unit_test(test_cm_no_server_line),
		cmocka_unit_test(test_cm_server_hangs_up_line),
	};
	const struct CMUnitTest no_rdma[] = {
		cmocka_unit_test(test_device_without_rdma),
	};
	const struct CMUnitTest fabric[] = {
		cmocka_unit_test(test_fabric_unreachable),
	};
	const struct CMUnitTest pinned[] = {
		cmocka_unit_test(test_own_threads_not_pinned),
	};

	if (getenv("ODMA_TEST_PINNED_ONLY") != NULL) /* ODMA_LINK=ucp: UCX's own threads too */
		return cmocka_run_group_tests(pinned, NULL, NULL);
	if (getenv("ODMA_TEST_NO_RDMA_DEV") != NULL)
		return cmocka_run_group_tests(no_rdma, NULL, NULL);
	if (getenv("ODMA_TEST_FABRIC_UNREACHABLE") != NULL)
		return cmocka_run_group_tests(fabric, NULL, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
