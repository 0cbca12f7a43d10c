/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Comch API surface: capabilities (built-in BlueField-like values, a system without Comch,
 * a profile with small limits), argument and state checks of every call, the DPA/GPU/MsgQ
 * functions (NOT_SUPPORTED), connection objects, and a server and client in one process.
 *
 *   test_comch_api            (ODMA_SYSTEM=bf3)
 *   test_comch_api --small    (ODMA_SYSTEM=tests/data/profiles/comch-small.profile)
 *   test_comch_api --nic      (ODMA_SYSTEM=nic, exec'd by the first)
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_comch_msgq.h>

#include "comch_util.h"
#include "test_dev.h"
#include "test_util.h"

#define NAME cu_name

static char **g_argv;

static struct doca_devinfo *info_of(struct cu_ep *e)
{
	return doca_dev_as_devinfo(e->dev);
}

/* ---- capabilities ------------------------------------------------------------------------- */

static void test_caps_bf3(void **state)
{
	struct cu_ep h, d;
	uint32_t v;

	(void)state;
	cu_open(&h, false);
	cu_open(&d, true);
	assert_ok(doca_comch_cap_server_is_supported(info_of(&d)));
	assert_int_equal(doca_comch_cap_client_is_supported(info_of(&d)), DOCA_ERROR_NOT_SUPPORTED);
	assert_ok(doca_comch_cap_client_is_supported(info_of(&h)));
	assert_int_equal(doca_comch_cap_server_is_supported(info_of(&h)), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_comch_cap_server_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_cap_client_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_ok(doca_comch_cap_get_max_msg_size(info_of(&h), &v));
	assert_int_equal(v, 4080);
	assert_ok(doca_comch_cap_get_max_name_len(info_of(&h), &v));
	assert_int_equal(v, 120);
	assert_ok(doca_comch_cap_get_max_recv_queue_size(info_of(&h), &v));
	assert_int_equal(v, 1024);
	assert_ok(doca_comch_cap_get_max_clients(info_of(&d), &v));
	assert_int_equal(v, 512);
	assert_ok(doca_comch_cap_get_max_send_tasks(info_of(&d), &v));
	assert_int_equal(v, 8192);
	assert_int_equal(doca_comch_cap_get_max_msg_size(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_cap_get_max_msg_size(info_of(&h), NULL),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_ok(doca_comch_consumer_cap_is_supported(info_of(&h)));
	assert_ok(doca_comch_producer_cap_is_supported(info_of(&d)));
	assert_ok(doca_comch_consumer_cap_get_max_num_tasks(info_of(&h), &v));
	assert_int_equal(v, 1024);
	assert_ok(doca_comch_consumer_cap_get_max_buf_size(info_of(&h), &v));
	assert_int_equal(v, 1u << 30);
	assert_ok(doca_comch_consumer_cap_get_max_buf_list_len(info_of(&h), &v));
	assert_int_equal(v, 1);
	assert_ok(doca_comch_consumer_cap_get_max_consumers(info_of(&h), &v));
	assert_int_equal(v, 64);
	assert_ok(doca_comch_consumer_cap_get_max_imm_data_len(info_of(&h), &v));
	assert_int_equal(v, 32);
	assert_ok(doca_comch_producer_cap_get_max_num_tasks(info_of(&d), &v));
	assert_int_equal(v, 1024);
	assert_ok(doca_comch_producer_cap_get_max_buf_size(info_of(&d), &v));
	assert_int_equal(v, 1u << 30);
	assert_ok(doca_comch_producer_cap_get_max_buf_list_len(info_of(&d), &v));
	assert_int_equal(v, 64);
	assert_ok(doca_comch_producer_cap_get_max_producers(info_of(&d), &v));
	assert_int_equal(v, 64);
	assert_true(cu_close(&h));
	assert_true(cu_close(&d));
}

/* exec'd with ODMA_SYSTEM=nic: no device has Comch */
static int role_nic(void)
{
	struct doca_devinfo **list;
	uint32_t n, v;
	struct doca_dev *dev;

	CU_CHECK_DOCA(DOCA_SUCCESS, doca_devinfo_create_list(&list, &n));
	CU_CHECK(n > 0);
	CU_CHECK_DOCA(DOCA_ERROR_NOT_SUPPORTED, doca_comch_cap_client_is_supported(list[0]));
	CU_CHECK_DOCA(DOCA_ERROR_NOT_SUPPORTED, doca_comch_cap_server_is_supported(list[0]));
	CU_CHECK_DOCA(DOCA_ERROR_NOT_SUPPORTED, doca_comch_cap_get_max_msg_size(list[0], &v));
	CU_CHECK_DOCA(DOCA_ERROR_NOT_SUPPORTED, doca_comch_consumer_cap_is_supported(list[0]));
	CU_CHECK_DOCA(DOCA_ERROR_NOT_SUPPORTED,
	              doca_comch_producer_cap_get_max_buf_size(list[0], &v));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_dev_open(list[0], &dev));
	{
		struct doca_comch_client *c;

		CU_CHECK_DOCA(DOCA_ERROR_NOT_SUPPORTED, doca_comch_client_create(dev, "x", &c));
	}
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_dev_close(dev));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_devinfo_destroy_list(list));
	return 0;
}

static int exec_nic(void *arg)
{
	(void)arg;
	setenv("ODMA_SYSTEM", "nic", 1);
	tu_execv(g_argv[0], (char *const[]){ g_argv[0], "--nic", NULL });
	return 99;
}

static void test_caps_nic(void **state)
{
	(void)state;
	assert_int_equal(cu_join(cu_fork(exec_nic, NULL, 30), 20), 0);
}

/* ---- argument and state checks ---------------------------------------------------------- */

static void cb_recv(struct doca_comch_event_msg_recv *ev, uint8_t *b, uint32_t l,
                    struct doca_comch_connection *c)
{
	(void)ev;
	(void)b;
	(void)l;
	(void)c;
}

static void cb_conn(struct doca_comch_event_connection_status_changed *ev,
                    struct doca_comch_connection *c, uint8_t ok)
{
	(void)ev;
	(void)c;
	(void)ok;
}

static void cb_cons(struct doca_comch_event_consumer *ev, struct doca_comch_connection *c,
                    uint32_t id)
{
	(void)ev;
	(void)c;
	(void)id;
}

static void cb_send(struct doca_comch_task_send *t, union doca_data a, union doca_data b)
{
	(void)a;
	(void)b;
	doca_task_free(doca_comch_task_send_as_task(t));
}

static void test_server_args(void **state)
{
	struct cu_ep d, h;
	struct doca_comch_server *s;
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
	struct doca_devinfo_rep **reps;
	struct doca_dev_rep *other_rep = NULL;
	struct doca_dev *other = NULL;
	char longname[200];
	uint32_t v, n;

	(void)state;
	cu_open(&d, true);
	cu_open(&h, false);
	assert_int_equal(doca_comch_server_create(NULL, d.rep, NAME, &s), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_create(d.dev, NULL, NAME, &s), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_create(d.dev, d.rep, NULL, &s),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_create(d.dev, d.rep, NAME, NULL),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_create(d.dev, d.rep, "", &s), DOCA_ERROR_INVALID_VALUE);
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(doca_comch_server_create(d.dev, d.rep, longname, &s),
	                 DOCA_ERROR_INVALID_VALUE);
	longname[119] = '\0'; /* 119 bytes + NUL = the cap */
	assert_ok(doca_comch_server_create(d.dev, d.rep, longname, &s));
	assert_ok(doca_comch_server_destroy(s));
	assert_int_equal(doca_comch_server_create(h.dev, d.rep, NAME, &s),
	                 DOCA_ERROR_NOT_SUPPORTED);
	/* a representor of the other DPU port */
	{
		struct doca_devinfo **list;

		assert_ok(doca_devinfo_create_list(&list, &n));
		for (uint32_t i = 0; i < n && other == NULL; i++) {
			uint8_t is;

			if (doca_devinfo_is_equal_pci_addr(list[i], "03:00.1", &is) ==
			            DOCA_SUCCESS &&
			    is)
				assert_ok(doca_dev_open(list[i], &other));
		}
		assert_ok(doca_devinfo_destroy_list(list));
	}
	assert_non_null(other);
	assert_ok(doca_devinfo_rep_create_list(other, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n));
	assert_true(n > 0);
	assert_ok(doca_dev_rep_open(reps[0], &other_rep));
	assert_int_equal(doca_comch_server_create(d.dev, other_rep, NAME, &s),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_ok(doca_dev_rep_close(other_rep));
	assert_ok(doca_devinfo_rep_destroy_list(reps));
	assert_ok(doca_dev_close(other));

	assert_ok(doca_comch_server_create(d.dev, d.rep, NAME, &s));
	assert_ok(doca_comch_server_get_device(s, &dev));
	assert_ptr_equal(dev, d.dev);
	assert_ok(doca_comch_server_get_device_rep(s, &rep));
	assert_ptr_equal(rep, d.rep);
	assert_int_equal(doca_comch_server_get_device(NULL, &dev), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_get_device_rep(s, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_null(doca_comch_server_as_ctx(NULL));
	assert_ok(doca_comch_server_get_max_msg_size(s, &v));
	assert_int_equal(v, 4080);
	assert_ok(doca_comch_server_get_recv_queue_size(s, &v));
	assert_int_equal(v, 128);
	assert_int_equal(doca_comch_server_set_recv_queue_size(s, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_task_send_set_conf(s, cb_send, NULL, 4),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_task_send_set_conf(s, cb_send, cb_send, 0),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_task_send_set_conf(s, cb_send, cb_send, 8193),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_event_msg_recv_register(s, NULL),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(
	        doca_comch_server_event_connection_status_changed_register(s, cb_conn, NULL),
	        DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_event_consumer_register(s, NULL, cb_cons),
	                 DOCA_ERROR_INVALID_VALUE);
	/* start without a PE */
	assert_int_equal(doca_ctx_start(doca_comch_server_as_ctx(s)), DOCA_ERROR_NOT_CONNECTED);
	assert_ok(doca_pe_connect_ctx(d.pe, doca_comch_server_as_ctx(s)));
	assert_ok(doca_comch_server_event_msg_recv_register(s, cb_recv));
	assert_ok(doca_ctx_start(doca_comch_server_as_ctx(s)));
	/* configuration is refused while RUNNING */
	assert_int_equal(doca_comch_server_event_msg_recv_register(s, cb_recv),
	                 DOCA_ERROR_BAD_STATE);
	assert_int_equal(
	        doca_comch_server_event_connection_status_changed_register(s, cb_conn, cb_conn),
	        DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_comch_server_event_consumer_register(s, cb_cons, cb_cons),
	                 DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_comch_server_task_send_set_conf(s, cb_send, cb_send, 4),
	                 DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_comch_server_set_recv_queue_size(s, 4), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_comch_server_destroy(s), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_comch_server_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_ok(doca_ctx_stop(doca_comch_server_as_ctx(s))); /* nothing open: IDLE at once */
	assert_ok(doca_ctx_stop(doca_comch_server_as_ctx(s))); /* and again */
	assert_ok(doca_comch_server_destroy(s));
	assert_true(cu_close(&d));
	assert_true(cu_close(&h));
}

/*
 * A representor whose last doca_dev_rep_close ran is not an open representor (on hardware
 * the handle is freed, as a device's is: preconditions C19): the server is refused with
 * INVALID_VALUE. Opened again, the same handle serves.
 */
static void test_server_closed_rep(void **state)
{
	struct doca_devinfo_rep **reps, *closed_info = NULL;
	struct doca_dev_rep *closed = NULL;
	struct doca_comch_server *s = NULL;
	struct cu_ep d;
	uint32_t n;

	(void)state;
	cu_open(&d, true);
	assert_ok(doca_devinfo_rep_create_list(d.dev, DOCA_DEVINFO_REP_FILTER_ALL, &reps, &n));
	for (uint32_t i = 0; i < n && closed == NULL; i++) {
		uint8_t is = 1;

		assert_ok(doca_devinfo_rep_is_equal_pci_addr(reps[i], CU_HOST_PCI, &is));
		if (!is) { /* not the one cu_open holds open */
			closed_info = reps[i];
			assert_ok(doca_dev_rep_open(closed_info, &closed));
		}
	}
	assert_non_null(closed);
	assert_ok(doca_dev_rep_close(closed));
	assert_null(doca_dev_rep_as_devinfo(closed));
	assert_int_equal(doca_comch_server_create(d.dev, closed, NAME, &s),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_null(s);
	assert_ok(doca_dev_rep_open(closed_info, &closed));
	assert_ok(doca_comch_server_create(d.dev, closed, NAME, &s));
	assert_ok(doca_comch_server_destroy(s));
	assert_ok(doca_dev_rep_close(closed));
	assert_ok(doca_devinfo_rep_destroy_list(reps));
	assert_true(cu_close(&d));
}

/*
 * The last doca_dev_rep_close of a representor a server still uses is refused with IN_USE
 * (DOCA: "failed to deallocate device resources"), as doca_dev_close of a device in use is:
 * the server keeps its representor, and the close succeeds once the server is gone. A close
 * that is not the last succeeds.
 */
static void test_server_rep_close_in_use(void **state)
{
	struct doca_comch_server *s = NULL;
	struct doca_dev_rep *again = NULL;
	struct cu_ep d;

	(void)state;
	cu_open(&d, true);
	assert_ok(doca_comch_server_create(d.dev, d.rep, NAME, &s));
	assert_int_equal(doca_dev_rep_close(d.rep), DOCA_ERROR_IN_USE);
	assert_non_null(doca_dev_rep_as_devinfo(d.rep)); /* still open */
	assert_ok(doca_dev_rep_open(doca_dev_rep_as_devinfo(d.rep), &again));
	assert_ptr_equal(again, d.rep);
	assert_ok(doca_dev_rep_close(again)); /* not the last */
	assert_int_equal(doca_dev_rep_close(d.rep), DOCA_ERROR_IN_USE);
	assert_ok(doca_comch_server_destroy(s));
	assert_ok(doca_dev_rep_close(d.rep));
	d.rep = NULL;
	assert_true(cu_close(&d));
}

static void test_client_args(void **state)
{
	struct cu_ep d, h;
	struct doca_comch_client *c;
	struct doca_comch_connection *conn;
	struct doca_dev *dev;
	struct doca_comch_task_send *t;
	uint32_t v;

	(void)state;
	cu_open(&d, true);
	cu_open(&h, false);
	assert_int_equal(doca_comch_client_create(NULL, NAME, &c), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_create(h.dev, NULL, &c), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_create(h.dev, "", &c), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_create(d.dev, NAME, &c), DOCA_ERROR_NOT_SUPPORTED);
	assert_ok(doca_comch_client_create(h.dev, NAME, &c));
	assert_ok(doca_comch_client_get_device(c, &dev));
	assert_ptr_equal(dev, h.dev);
	assert_ok(doca_comch_client_get_max_msg_size(c, &v));
	assert_int_equal(v, 4080);
	assert_int_equal(doca_comch_client_get_connection(c, &conn), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_comch_client_get_connection(NULL, &conn), DOCA_ERROR_INVALID_VALUE);
	assert_null(doca_comch_client_as_ctx(NULL));
	assert_int_equal(doca_comch_client_event_consumer_register(c, cb_cons, NULL),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_ok(doca_comch_client_task_send_set_conf(c, cb_send, cb_send, 4));
	assert_int_equal(doca_comch_client_task_send_alloc_init(c, NULL, "x", 1, &t),
	                 DOCA_ERROR_INVALID_VALUE);
	/* STARTING: not destroyable, not configurable; a stop ends the attempt */
	setenv("ODMA_COMCH_CONNECT_TIMEOUT_MS", "5000", 1);
	assert_ok(doca_pe_connect_ctx(h.pe, doca_comch_client_as_ctx(c)));
	assert_int_equal(doca_ctx_start(doca_comch_client_as_ctx(c)), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(doca_comch_client_destroy(c), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_comch_client_set_recv_queue_size(c, 4), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_comch_client_event_msg_recv_register(c, cb_recv),
	                 DOCA_ERROR_BAD_STATE);
	assert_ok(doca_ctx_stop(doca_comch_client_as_ctx(c)));
	assert_ok(doca_comch_client_destroy(c));
	unsetenv("ODMA_COMCH_CONNECT_TIMEOUT_MS");
	assert_true(cu_close(&d));
	assert_true(cu_close(&h));
}

/* A bad ODMA_COMCH_CONNECT_TIMEOUT_MS or an unusable ODMA_RUNDIR fails doca_ctx_start (one
 * log line each); the context stays IDLE and can be destroyed. */
static void test_bad_env(void **state)
{
	static const char *const bad_timeouts[] = { "0", "soon", "3600001", "-5" };
	struct cu_ep d, h;
	struct doca_comch_client *c;
	struct doca_comch_server *s;
	enum doca_ctx_states st;
	char file[] = "/tmp/odma-comch-notdir-XXXXXX";
	const char *saved = getenv("ODMA_RUNDIR");
	char *keep = saved ? strdup(saved) : NULL;
	int fd;

	(void)state;
	cu_open(&d, true);
	cu_open(&h, false);
	assert_ok(doca_comch_client_create(h.dev, NAME, &c));
	assert_ok(doca_comch_client_task_send_set_conf(c, cb_send, cb_send, 4));
	assert_ok(doca_pe_connect_ctx(h.pe, doca_comch_client_as_ctx(c)));
	for (size_t i = 0; i < sizeof(bad_timeouts) / sizeof(bad_timeouts[0]); i++) {
		setenv("ODMA_COMCH_CONNECT_TIMEOUT_MS", bad_timeouts[i], 1);
		assert_int_equal(doca_ctx_start(doca_comch_client_as_ctx(c)),
		                 DOCA_ERROR_INVALID_VALUE);
		assert_ok(doca_ctx_get_state(doca_comch_client_as_ctx(c), &st));
		assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	}
	unsetenv("ODMA_COMCH_CONNECT_TIMEOUT_MS");
	/* ODMA_RUNDIR naming a regular file: no server, no client */
	fd = mkstemp(file);
	assert_true(fd >= 0);
	close(fd);
	setenv("ODMA_RUNDIR", file, 1);
	assert_int_equal(doca_ctx_start(doca_comch_client_as_ctx(c)), DOCA_ERROR_INITIALIZATION);
	assert_ok(doca_comch_server_create(d.dev, d.rep, NAME, &s));
	assert_ok(doca_comch_server_task_send_set_conf(s, cb_send, cb_send, 4));
	assert_ok(doca_pe_connect_ctx(d.pe, doca_comch_server_as_ctx(s)));
	assert_int_equal(doca_ctx_start(doca_comch_server_as_ctx(s)), DOCA_ERROR_INITIALIZATION);
	assert_ok(doca_ctx_get_state(doca_comch_server_as_ctx(s), &st));
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	if (keep) {
		setenv("ODMA_RUNDIR", keep, 1);
		free(keep);
	} else {
		unsetenv("ODMA_RUNDIR");
	}
	unlink(file);
	assert_ok(doca_comch_server_destroy(s));
	assert_ok(doca_comch_client_destroy(c));
	assert_true(cu_close(&d));
	assert_true(cu_close(&h));
}

static void test_connection_null(void **state)
{
	union doca_data ud = { .u64 = 7 };
	uint64_t v;

	(void)state;
	assert_int_equal(doca_comch_connection_set_user_data(NULL, ud), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_connection_get_user_data(NULL).u64, 0);
	assert_null(doca_comch_server_get_server_ctx(NULL));
	assert_null(doca_comch_client_get_client_ctx(NULL));
	assert_int_equal(doca_comch_connection_update_info(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_connection_get_counter(NULL, DOCA_COMCH_COUNTER_SENT_BYTES, &v),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_null(doca_comch_task_send_as_task(NULL));
	assert_null(doca_comch_consumer_as_ctx(NULL));
	assert_null(doca_comch_producer_as_ctx(NULL));
	assert_null(doca_comch_producer_task_send_get_buf(NULL));
	assert_int_equal(doca_comch_producer_task_send_get_consumer_id(NULL), 0);
	assert_null(doca_comch_producer_task_send_get_imm_data(NULL));
	assert_int_equal(doca_comch_producer_task_send_get_imm_data_len(NULL), 0);
	doca_comch_producer_task_send_set_buf(NULL, NULL);
	doca_comch_producer_task_send_set_consumer_id(NULL, 3);
	doca_comch_producer_task_send_set_imm_data(NULL, NULL, 0);
	assert_null(doca_comch_producer_task_send_as_task(NULL));
	assert_null(doca_comch_consumer_task_post_recv_as_task(NULL));
	assert_null(doca_comch_consumer_task_post_recv_get_buf(NULL));
	doca_comch_consumer_task_post_recv_set_buf(NULL, NULL);
	assert_int_equal(doca_comch_consumer_task_post_recv_get_imm_data_len(NULL), 0);
	assert_int_equal(doca_comch_consumer_create(NULL, NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_create(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
}

/* ---- DPA, GPU and MsgQ: not on the emulated devices ---------------------------------------- */

static void test_dpa_not_supported(void **state)
{
	struct doca_comch_consumer_completion *cc = NULL;
	struct doca_comch_msgq *q = NULL;
	struct cu_ep d;
	uint32_t v;

	(void)state;
	cu_open(&d, true);
	cu_log_capture();
	assert_int_equal(doca_comch_consumer_completion_create(&cc), DOCA_ERROR_NOT_SUPPORTED);
	assert_true(cu_log_has("no DPA or GPU"));
	assert_int_equal(doca_comch_consumer_completion_create(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_completion_start(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_completion_get_max_num_recv(NULL, &v),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_set_dev_max_num_recv(NULL, 4),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_set_dev_max_num_send(NULL, 4),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_get_gpu_handle(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_msgq_create(d.dev, &q), DOCA_ERROR_NOT_SUPPORTED);
	assert_null(q);
	assert_int_equal(doca_comch_msgq_create(d.dev, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_msgq_start(NULL), DOCA_ERROR_INVALID_VALUE);
	{
		/*
		 * every other call, on an object the program could not have had from odma (the
		 * creates fail): NOT_SUPPORTED, never a crash, and INVALID_VALUE for NULL
		 */
		union {
			uint64_t word[8];
		} fake = { { 0 } };
		struct doca_comch_consumer_completion *fc = (void *)&fake;
		struct doca_comch_msgq *fq = (void *)&fake;
		struct doca_comch_consumer *fcons = (void *)&fake;
		struct doca_comch_producer *fprod = (void *)&fake;
		const doca_error_t ns = DOCA_ERROR_NOT_SUPPORTED;

		assert_int_equal(doca_comch_consumer_completion_set_dpa_thread(fc, NULL), ns);
		assert_int_equal(doca_comch_consumer_completion_destroy(fc), ns);
		assert_int_equal(doca_comch_consumer_completion_stop(fc), ns);
		assert_int_equal(doca_comch_consumer_completion_get_dpa_handle(fc, NULL), ns);
		assert_int_equal(doca_comch_consumer_completion_set_max_num_consumers(fc, 1), ns);
		assert_int_equal(doca_comch_consumer_completion_get_max_num_consumers(fc, &v), ns);
		assert_int_equal(doca_comch_consumer_completion_set_max_num_recv(fc, 1), ns);
		assert_int_equal(doca_comch_consumer_completion_set_imm_data_len(fc, 1), ns);
		assert_int_equal(doca_comch_consumer_completion_get_imm_data_len(fc, &v), ns);
		assert_int_equal(doca_comch_consumer_set_completion(fcons, fc, 0), ns);
		assert_int_equal(doca_comch_consumer_get_dpa_handle(fcons, NULL), ns);
		assert_int_equal(doca_comch_consumer_get_gpu_handle(fcons, NULL), ns);
		assert_int_equal(doca_comch_producer_dpa_completion_attach(fprod, NULL), ns);
		assert_int_equal(doca_comch_producer_get_dpa_handle(fprod, NULL), ns);
		assert_int_equal(doca_comch_msgq_destroy(fq), ns);
		assert_int_equal(doca_comch_msgq_set_dpa_consumer(fq, NULL), ns);
		assert_int_equal(doca_comch_msgq_set_dpa_producer(fq, NULL), ns);
		assert_int_equal(doca_comch_msgq_set_max_num_consumers(fq, 1), ns);
		assert_int_equal(doca_comch_msgq_set_max_num_producers(fq, 1), ns);
		assert_int_equal(doca_comch_msgq_stop(fq), ns);
		assert_int_equal(doca_comch_msgq_consumer_create(fq, NULL), ns);
		assert_int_equal(doca_comch_msgq_producer_create(fq, NULL), ns);
		assert_int_equal(doca_comch_msgq_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
		assert_int_equal(doca_comch_consumer_set_completion(NULL, fc, 0),
		                 DOCA_ERROR_INVALID_VALUE);
		assert_int_equal(fake.word[0] | fake.word[7], 0); /* nothing written through them */
	}
	assert_true(cu_close(&d));
}

/* ---- one process: a server and a client, control and fast path ------------------------------ */

static bool both_running(struct cu_ep *c)
{
	return c->passed_running;
}

static void test_one_process(void **state)
{
	struct cu_ep s, c;
	uint64_t end;

	(void)state;
	cu_open(&s, true);
	cu_open(&c, false);
	s.echo = true;
	assert_ok(cu_server_start(&s, NAME, 0, 8));
	assert_int_equal(cu_client_start(&c, NAME, 0, 8), DOCA_ERROR_IN_PROGRESS);
	end = cu_now_ms() + 5000;
	while (!both_running(&c) && cu_now_ms() < end) {
		doca_pe_progress(s.pe);
		doca_pe_progress(c.pe);
	}
	assert_true(c.passed_running);
	assert_ok(cu_send(&c, "hello", 5));
	end = cu_now_ms() + 5000;
	while (c.nrx == 0 && cu_now_ms() < end) {
		doca_pe_progress(s.pe);
		doca_pe_progress(c.pe);
	}
	assert_int_equal(c.nrx, 1);
	assert_memory_equal(c.rx[0], "hello", 5);
	assert_int_equal(doca_ctx_stop(c.ctx),
	                 DOCA_ERROR_IN_PROGRESS); /* until the connection is down */
	end = cu_now_ms() + 5000;
	while ((s.disconnects == 0 || !cu_is_idle(&c)) && cu_now_ms() < end) {
		doca_pe_progress(s.pe);
		doca_pe_progress(c.pe);
	}
	assert_int_equal(s.disconnects, 1);
	assert_true(cu_close(&c));
	assert_true(cu_close(&s));
}

/*
 * Refusals that need a live connection, in one process: a connection of another server (send
 * and disconnect), a server whose send tasks were never configured, and a disconnect from a
 * server that is stopping.
 */
static bool all_up(struct cu_ep *const *eps)
{
	return eps[0]->conn != NULL && eps[1]->conn != NULL && eps[2]->passed_running &&
	       eps[3]->passed_running;
}

static bool all_idle(struct cu_ep *const *eps)
{
	for (int i = 0; i < 4; i++)
		if (!cu_is_idle(eps[i]))
			return false;
	return true;
}

/* Progresses the @n endpoints of @eps until @done (false after 5 s). */
static bool progress_all(struct cu_ep *const *eps, int n, bool (*done)(struct cu_ep *const *))
{
	uint64_t end = cu_now_ms() + 5000;

	while (!done(eps)) {
		if (cu_now_ms() > end)
			return false;
		for (int i = 0; i < n; i++)
			doca_pe_progress(eps[i]->pe);
	}
	return true;
}

static void test_one_process_refusals(void **state)
{
	struct cu_ep s, s2, c, c2;
	struct cu_ep *const eps[4] = { &s, &s2, &c, &c2 };
	struct doca_comch_task_send *t = NULL;
	char name2[sizeof(cu_name) + 4];

	(void)state;
	snprintf(name2, sizeof(name2), "%s-2", NAME);
	for (int i = 0; i < 4; i++)
		cu_open(eps[i], i < 2);
	cu_log_capture();
	assert_ok(cu_server_start(&s, NAME, 0, 8));
	assert_ok(cu_server_start(&s2, name2, 0, 0)); /* no send tasks */
	assert_int_equal(cu_client_start(&c, NAME, 0, 8), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(cu_client_start(&c2, name2, 0, 8), DOCA_ERROR_IN_PROGRESS);
	assert_true(progress_all(eps, 4, all_up));
	/* a connection of the other server */
	assert_int_equal(doca_comch_server_task_send_alloc_init(s2.srv, s.conn, "x", 1, &t),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_true(cu_log_has("is not a connection of server"));
	assert_int_equal(doca_comch_server_disconnect(s2.srv, s.conn), DOCA_ERROR_INVALID_VALUE);
	assert_true(cu_log_has("is not a live connection of server"));
	/* send tasks never configured */
	assert_int_equal(doca_comch_server_task_send_alloc_init(s2.srv, s2.conn, "x", 1, &t),
	                 DOCA_ERROR_BAD_STATE);
	assert_true(cu_log_has("send tasks are not configured"));
	assert_null(t);
	/* a stopping server keeps its connection until the disconnect is reported */
	assert_int_equal(doca_ctx_stop(s.ctx), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(doca_comch_server_disconnect(s.srv, s.conn), DOCA_ERROR_BAD_STATE);
	assert_true(cu_log_has("is not RUNNING"));
	/* everything down: the stopped server's client stops by itself */
	assert_int_equal(doca_ctx_stop(c2.ctx), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(doca_ctx_stop(s2.ctx), DOCA_ERROR_IN_PROGRESS);
	assert_true(progress_all(eps, 4, all_idle));
	assert_int_equal(s.disconnects, 1);
	for (int i = 0; i < 4; i++)
		assert_true(cu_close(eps[i]));
}

/*
 * What a server still holds of a connection whose peer went away, used in the disconnect
 * callback (the connection is valid until it returns): a send allocated or submitted, a
 * consumer and a producer started, a started producer's send, each NOT_CONNECTED.
 */
static struct {
	struct doca_comch_task_send *send;
	struct doca_comch_consumer *cons;
	struct doca_comch_producer *prod, *live;
	struct doca_comch_producer_task_send *psend;
	doca_error_t alloc, submit, cons_start, prod_start, psubmit;
} g_gone;

static void on_gone(struct cu_ep *e, struct doca_comch_connection *conn)
{
	struct doca_comch_task_send *t = NULL;

	g_gone.alloc = doca_comch_server_task_send_alloc_init(e->srv, conn, "x", 1, &t);
	g_gone.submit = doca_task_submit(doca_comch_task_send_as_task(g_gone.send));
	g_gone.cons_start = doca_ctx_start(doca_comch_consumer_as_ctx(g_gone.cons));
	g_gone.prod_start = doca_ctx_start(doca_comch_producer_as_ctx(g_gone.prod));
	g_gone.psubmit = doca_task_submit(doca_comch_producer_task_send_as_task(g_gone.psend));
}

static void cons_cb(struct doca_comch_consumer_task_post_recv *t, union doca_data a,
                    union doca_data b)
{
	(void)t;
	(void)a;
	(void)b;
}

static void prod_cb(struct doca_comch_producer_task_send *t, union doca_data a, union doca_data b)
{
	(void)t;
	(void)a;
	(void)b;
}

static bool server_saw_gone(struct cu_ep *const *eps)
{
	return eps[0]->disconnects == 1;
}

/* Progresses the server @s and the client @c until they are connected (5 s at most). */
static void pair_connected(struct cu_ep *s, struct cu_ep *c)
{
	uint64_t end = cu_now_ms() + 5000;

	while ((s->conn == NULL || !c->passed_running) && cu_now_ms() < end) {
		doca_pe_progress(s->pe);
		doca_pe_progress(c->pe);
	}
	assert_non_null(s->conn);
}

/* Opens and starts a server @s and a client @c (receive queues of 8), connected. */
static void pair_open(struct cu_ep *s, struct cu_ep *c)
{
	cu_open(s, true);
	cu_open(c, false);
	assert_ok(cu_server_start(s, NAME, 0, 8));
	assert_int_equal(cu_client_start(c, NAME, 0, 8), DOCA_ERROR_IN_PROGRESS);
	pair_connected(s, c);
}

static bool client_stopped(struct cu_ep *const *eps)
{
	return cu_is_idle(eps[1]);
}

/*
 * A disconnect while the client reads nothing and the server's sends fill its socket: the
 * BYE cannot leave now, so the disconnect returns AGAIN (DOCA: "the disconnect message cannot
 * be queued now, call again later") and leaves the connection as it was; called again once the
 * client read, it succeeds, every message sent before it arrives, and the client hears an
 * orderly end. It returned SUCCESS and the BYE was lost: the sends still waiting failed and the
 * client saw the connection drop as if the server had crashed.
 */
static void test_disconnect_socket_full(void **state)
{
	static char msg[4000];
	struct cu_ep s, c;
	struct cu_ep *const eps[2] = { &s, &c };
	unsigned int sent = 0, last = ~0u;
	doca_error_t r;
	uint64_t end;

	(void)state;
	cu_open(&s, true);
	cu_open(&c, false);
	assert_ok(cu_server_start(&s, NAME, 0, 512));
	assert_int_equal(cu_client_start(&c, NAME, 0, 8), DOCA_ERROR_IN_PROGRESS);
	pair_connected(&s, &c);
	cu_log_capture();
	/* the server sends until its sends stop completing: the client reads nothing */
	while (s.sent_ok != last && sent < CU_MAX_RX / 2) {
		last = s.sent_ok;
		while (sent < CU_MAX_RX / 2 && cu_send(&s, msg, sizeof(msg)) == DOCA_SUCCESS)
			sent++;
		cu_progress_for(&s, 100);
	}
	print_message("%u sends submitted, %u completed, %u failed\n", sent, s.sent_ok, s.sent_err);
	if (s.sent_ok == sent) /* the client's receive queue is smaller than its socket */
		skip();
	r = doca_comch_server_disconnect(s.srv, s.conn);
	assert_int_equal(r, DOCA_ERROR_AGAIN);
	/* the client reads; the server calls again until the disconnect is taken */
	for (end = cu_now_ms() + 5000; r == DOCA_ERROR_AGAIN && cu_now_ms() < end;) {
		doca_pe_progress(c.pe);
		doca_pe_progress(s.pe);
		r = doca_comch_server_disconnect(s.srv, s.conn);
	}
	assert_int_equal(r, DOCA_SUCCESS);
	assert_true(progress_all(eps, 2, client_stopped));
	print_message("%u sends completed, %u failed; the client received %u\n", s.sent_ok,
	              s.sent_err, c.nrx);
	assert_int_equal(s.sent_err, 0);
	assert_int_equal(s.sent_ok, sent);
	assert_int_equal(c.nrx, sent);
	assert_false(cu_log_has("without disconnecting"));
	assert_true(cu_close(&c));
	assert_true(cu_close(&s));
}

static void test_peer_gone_refusals(void **state)
{
	struct cu_ep s, c;
	struct cu_ep *const eps[2] = { &s, &c };
	struct doca_pe *pe;
	struct cu_mem m;
	struct doca_buf *b;

	(void)state;
	cu_open(&s, true);
	cu_open(&c, false);
	cu_log_capture();
	assert_ok(cu_server_start(&s, NAME, 0, 8));
	assert_int_equal(cu_client_start(&c, NAME, 0, 8), DOCA_ERROR_IN_PROGRESS);
	pair_connected(&s, &c);
	/* what the server holds of the connection while it is up */
	assert_ok(doca_comch_server_task_send_alloc_init(s.srv, s.conn, "y", 1, &g_gone.send));
	assert_ok(doca_pe_create(&pe));
	cu_mem_init(&m, s.dev, 4096, 2);
	assert_ok(doca_comch_consumer_create(s.conn, m.mmap, &g_gone.cons));
	assert_ok(doca_comch_consumer_task_post_recv_set_conf(g_gone.cons, cons_cb, cons_cb, 4));
	assert_ok(doca_pe_connect_ctx(pe, doca_comch_consumer_as_ctx(g_gone.cons)));
	assert_ok(doca_comch_producer_create(s.conn, &g_gone.prod));
	assert_ok(doca_comch_producer_task_send_set_conf(g_gone.prod, prod_cb, prod_cb, 4));
	assert_ok(doca_pe_connect_ctx(pe, doca_comch_producer_as_ctx(g_gone.prod)));
	assert_ok(doca_comch_producer_create(s.conn, &g_gone.live));
	assert_ok(doca_comch_producer_task_send_set_conf(g_gone.live, prod_cb, prod_cb, 4));
	assert_ok(doca_pe_connect_ctx(pe, doca_comch_producer_as_ctx(g_gone.live)));
	assert_ok(doca_ctx_start(doca_comch_producer_as_ctx(g_gone.live)));
	assert_ok(doca_buf_inventory_buf_get_by_data(m.inv, m.mmap, m.base, 8, &b));
	assert_ok(doca_comch_producer_task_send_alloc_init(g_gone.live, b, NULL, 0, 2,
	                                                   &g_gone.psend));
	/* the client goes; the server's disconnect callback tries them all */
	s.on_disconnect = on_gone;
	assert_true(cu_close(&c));
	assert_true(progress_all(eps, 1, server_saw_gone));
	assert_int_equal(g_gone.alloc, DOCA_ERROR_NOT_CONNECTED);
	assert_int_equal(g_gone.submit, DOCA_ERROR_NOT_CONNECTED);
	assert_int_equal(g_gone.cons_start, DOCA_ERROR_NOT_CONNECTED);
	assert_int_equal(g_gone.prod_start, DOCA_ERROR_NOT_CONNECTED);
	assert_int_equal(g_gone.psubmit, DOCA_ERROR_NOT_CONNECTED);
	assert_true(cu_log_has("the peer went away"));
	assert_true(cu_log_has("the message is not sent"));
	assert_true(cu_log_has("create consumers on a live connection"));
	assert_true(cu_log_has("create producers on a live connection"));
	assert_true(cu_log_has("its connection is closed"));
	/* all of it is still the program's to free */
	doca_task_free(doca_comch_task_send_as_task(g_gone.send));
	doca_task_free(doca_comch_producer_task_send_as_task(g_gone.psend));
	assert_ok(doca_buf_dec_refcount(b, NULL));
	assert_ok(doca_ctx_stop(doca_comch_producer_as_ctx(g_gone.live)));
	assert_ok(doca_comch_producer_destroy(g_gone.live));
	assert_ok(doca_comch_producer_destroy(g_gone.prod));
	assert_ok(doca_comch_consumer_destroy(g_gone.cons));
	assert_ok(doca_pe_destroy(pe));
	cu_mem_fini(&m);
	s.on_disconnect = NULL;
	assert_true(cu_close(&s));
}

/*
 * A send task the server allocated on a connection whose client then left, submitted once a
 * second client has connected (its connection may be made where the first one was): the
 * submit fails with NOT_CONNECTED and the second client receives nothing.
 */
static bool second_up(struct cu_ep *const *eps)
{
	return eps[0]->connects == 2 && eps[1]->passed_running;
}

static void test_task_outlives_conn(void **state)
{
	struct cu_ep s, c, c2;
	struct cu_ep *const eps[2] = { &s, &c2 };
	struct doca_comch_task_send *t = NULL;
	uint64_t end;

	(void)state;
	cu_open(&s, true);
	cu_open(&c, false);
	cu_open(&c2, false);
	assert_ok(cu_server_start(&s, NAME, 0, 8));
	assert_int_equal(cu_client_start(&c, NAME, 0, 8), DOCA_ERROR_IN_PROGRESS);
	pair_connected(&s, &c);
	assert_ok(doca_comch_server_task_send_alloc_init(s.srv, s.conn, "stale", 5, &t));
	assert_true(cu_close(&c));
	assert_true(progress_all(eps, 1, server_saw_gone));
	cu_progress_for(&s, 20);
	assert_int_equal(cu_client_start(&c2, NAME, 0, 8), DOCA_ERROR_IN_PROGRESS);
	assert_true(progress_all(eps, 2, second_up));
	assert_int_equal(doca_task_submit(doca_comch_task_send_as_task(t)),
	                 DOCA_ERROR_NOT_CONNECTED);
	end = cu_now_ms() + 100;
	while (cu_now_ms() < end) {
		doca_pe_progress(s.pe);
		doca_pe_progress(c2.pe);
	}
	assert_int_equal(c2.nrx, 0);
	doca_task_free(doca_comch_task_send_as_task(t));
	assert_true(cu_close(&c2));
	assert_true(cu_close(&s));
}

/*
 * A consumer's post-recv buf in a thread-safe mmap (which can be stopped and restarted under
 * its bufs), as producer sources are checked (preconditions M15, M16): stopped, the submit
 * fails with BAD_STATE; restarted without the Comch device, with NOT_PERMITTED. Nothing is
 * posted for the peer to write into.
 */
static bool cons_running(struct cu_ep *const *eps)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

	(void)doca_ctx_get_state(doca_comch_consumer_as_ctx(g_gone.cons), &st);
	return eps[1]->passed_running && st == DOCA_CTX_STATE_RUNNING;
}

static doca_error_t post_one(struct doca_comch_consumer *cons, struct doca_buf *b)
{
	struct doca_comch_consumer_task_post_recv *t;
	doca_error_t r;

	assert_ok(doca_comch_consumer_task_post_recv_alloc_init(cons, b, &t));
	r = doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t));
	if (r != DOCA_SUCCESS)
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
	return r;
}

static void test_post_recv_mmap_rules(void **state)
{
	static uint8_t mem[4096];
	struct cu_ep s, c;
	struct cu_ep *const eps[2] = { &s, &c };
	struct doca_dev *other = tu_open_pci_or_null("03:00.1");
	struct doca_mmap *mm;
	struct doca_buf_inventory *inv;
	struct doca_buf *b;

	(void)state;
	assert_non_null(other);
	cu_open(&s, true);
	cu_open(&c, false);
	cu_log_capture();
	assert_ok(cu_server_start(&s, NAME, 0, 8));
	assert_int_equal(cu_client_start(&c, NAME, 0, 8), DOCA_ERROR_IN_PROGRESS);
	assert_ok(doca_mmap_create(&mm));
	assert_ok(doca_mmap_add_dev(mm, s.dev));
	assert_ok(doca_mmap_set_memrange(mm, mem, sizeof(mem)));
	assert_ok(doca_mmap_enable_thread_safety(mm));
	assert_ok(doca_mmap_start(mm));
	assert_ok(doca_buf_inventory_create(2, &inv));
	assert_ok(doca_buf_inventory_start(inv));
	pair_connected(&s, &c);
	assert_ok(doca_comch_consumer_create(s.conn, mm, &g_gone.cons));
	assert_ok(doca_comch_consumer_task_post_recv_set_conf(g_gone.cons, cons_cb, cons_cb, 4));
	assert_ok(doca_pe_connect_ctx(s.pe, doca_comch_consumer_as_ctx(g_gone.cons)));
	assert_int_equal(doca_ctx_start(doca_comch_consumer_as_ctx(g_gone.cons)),
	                 DOCA_ERROR_IN_PROGRESS);
	assert_true(progress_all(eps, 2, cons_running));
	assert_ok(doca_buf_inventory_buf_get_by_addr(inv, mm, mem, sizeof(mem), &b));
	assert_ok(doca_mmap_stop(mm));
	assert_int_equal(post_one(g_gone.cons, b), DOCA_ERROR_BAD_STATE);
	assert_true(cu_log_has("which is stopped"));
	assert_ok(doca_mmap_rm_dev(mm, s.dev));
	assert_ok(doca_mmap_add_dev(mm, other));
	assert_ok(doca_mmap_start(mm));
	assert_int_equal(post_one(g_gone.cons, b), DOCA_ERROR_NOT_PERMITTED);
	assert_true(cu_log_has("was never added to"));
	assert_ok(doca_buf_dec_refcount(b, NULL));
	assert_int_equal(doca_ctx_stop(doca_comch_consumer_as_ctx(g_gone.cons)), DOCA_SUCCESS);
	assert_ok(doca_comch_consumer_destroy(g_gone.cons));
	g_gone.cons = NULL;
	assert_ok(doca_buf_inventory_destroy(inv));
	assert_ok(doca_mmap_destroy(mm));
	assert_ok(doca_dev_close(other));
	assert_true(cu_close(&c));
	assert_true(cu_close(&s));
}

/*
 * A client stopped from its receive callback while the server's next message already waits
 * on its socket: the message the callback was given is still intact after the stop (DOCA: the
 * buffer is valid for the whole callback), though the stop drops what follows it.
 */
static void test_stop_in_recv_keeps_msg(void **state)
{
	struct cu_ep s, c;

	(void)state;
	pair_open(&s, &c);
	assert_ok(cu_send(&s, "first", 5));
	assert_ok(cu_send(&s, "SECOND", 6));
	c.stop_then_copy = true;
	assert_true(cu_progress_until(&c, cu_is_idle, 5000));
	assert_int_equal(c.nrx, 1);
	assert_int_equal(c.rx_len[0], 5);
	assert_memory_equal(c.rx[0], "first", 5);
	assert_true(cu_close(&c));
	assert_true(cu_close(&s));
}

/*
 * A server restarted while a consumer of a connection of its last run still exists: the
 * server's destroy is refused (IN_USE) until the consumer is destroyed, as it is before the
 * restart.
 */
static void test_restart_keeps_fastpath(void **state)
{
	struct cu_ep s, c;
	struct cu_ep *const eps[2] = { &s, &c };
	struct doca_comch_consumer *cons;
	struct cu_mem m;

	(void)state;
	pair_open(&s, &c);
	cu_mem_init(&m, s.dev, 4096, 1);
	assert_ok(doca_comch_consumer_create(s.conn, m.mmap, &cons));
	assert_true(cu_close(&c));
	assert_true(progress_all(eps, 1, server_saw_gone));
	assert_int_equal(doca_ctx_stop(s.ctx), DOCA_SUCCESS);
	assert_ok(doca_ctx_start(s.ctx));
	assert_int_equal(doca_ctx_stop(s.ctx), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_destroy(s.srv), DOCA_ERROR_IN_USE);
	assert_ok(doca_comch_consumer_destroy(cons));
	cu_mem_fini(&m);
	assert_true(cu_close(&s));
}

/* ---- a profile with the longest messages a profile may give (64 KiB) ------------------------ */

/*
 * Messages of exactly the limit, several back to back both ways (more than a socket's send
 * buffer holds at once: the rest wait for room), each delivered whole; one byte more is
 * INVALID_VALUE at alloc_init.
 */
static bool pair_up(struct cu_ep *const *eps)
{
	return eps[0]->conn != NULL && eps[1]->passed_running;
}

#define LONGEST_N 5 /* 5 x 64 KiB: more than a socket's default send buffer holds */

static bool got_all(struct cu_ep *const *eps)
{
	return eps[0]->nrx == LONGEST_N && eps[1]->nrx == LONGEST_N &&
	       eps[0]->sent_ok == LONGEST_N && eps[1]->sent_ok == LONGEST_N;
}

static void test_longest_msg(void **state)
{
	static uint8_t msg[(64u << 10) + 1];
	struct cu_ep s, c;
	struct cu_ep *const eps[2] = { &s, &c };
	struct doca_comch_task_send *t;
	uint32_t max = 0;

	(void)state;
	cu_open(&s, true);
	cu_open(&c, false);
	assert_ok(doca_comch_cap_get_max_msg_size(info_of(&c), &max));
	assert_int_equal(max, 64u << 10);
	assert_ok(cu_server_start(&s, NAME, 0, 8));
	assert_int_equal(cu_client_start(&c, NAME, 0, 8), DOCA_ERROR_IN_PROGRESS);
	assert_true(progress_all(eps, 2, pair_up));
	for (uint32_t i = 0; i < max; i++)
		msg[i] = (uint8_t)(i * 7);
	for (int i = 0; i < LONGEST_N; i++) {
		assert_ok(cu_send(&c, msg, max));
		assert_ok(cu_send(&s, msg, max));
	}
	assert_true(progress_all(eps, 2, got_all));
	for (int i = 0; i < LONGEST_N; i++) {
		assert_int_equal(s.rx_len[i], max);
		assert_memory_equal(s.rx[i], msg, max);
		assert_int_equal(c.rx_len[i], max);
		assert_memory_equal(c.rx[i], msg, max);
	}
	assert_int_equal(doca_comch_client_task_send_alloc_init(c.cli, c.conn, msg, max + 1, &t),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_true(cu_close(&c));
	assert_true(cu_close(&s));
}

/* ---- a profile with small limits ---------------------------------------------------------- */

static void test_small_caps(void **state)
{
	struct cu_ep h, d;
	uint32_t v;

	(void)state;
	cu_open(&h, false);
	cu_open(&d, true);
	assert_ok(doca_comch_cap_get_max_msg_size(info_of(&h), &v));
	assert_int_equal(v, 256);
	assert_ok(doca_comch_cap_get_max_clients(info_of(&d), &v));
	assert_int_equal(v, 1);
	assert_ok(doca_comch_consumer_cap_get_max_imm_data_len(info_of(&h), &v));
	assert_int_equal(v, 8);
	assert_ok(doca_comch_consumer_cap_get_max_buf_size(info_of(&h), &v));
	assert_int_equal(v, 65536);
	/* the default receive queue is capped by the device (8 < 128) */
	assert_ok(doca_comch_server_create(d.dev, d.rep, NAME, &d.srv));
	assert_ok(doca_comch_server_get_recv_queue_size(d.srv, &v));
	assert_int_equal(v, 8);
	assert_ok(doca_comch_server_get_max_msg_size(d.srv, &v));
	assert_int_equal(v, 256);
	assert_int_equal(doca_comch_server_set_recv_queue_size(d.srv, 9), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_task_send_set_conf(d.srv, cb_send, cb_send, 17),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_ok(doca_comch_server_destroy(d.srv));
	d.srv = NULL;
	assert_true(cu_close(&h));
	assert_true(cu_close(&d));
}

static int second_client(void *arg)
{
	struct cu_ep e;

	(void)arg;
	cu_open(&e, false);
	cu_log_capture();
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&e, NAME, 0, 4));
	CU_CHECK(cu_progress_until(&e, cu_is_idle, 5000));
	CU_CHECK(!e.passed_running);
	CU_CHECK(cu_log_has("maximum number of clients"));
	CU_CHECK(cu_close(&e));
	return 0;
}

static int first_client(void *arg)
{
	struct cu_ep e;
	struct fp {
		struct cu_mem mem;
	} m;
	struct doca_comch_consumer *cons[3];
	struct doca_comch_producer *prod[3];

	(void)arg;
	cu_sync_side(true);
	cu_open(&e, false);
	CU_CHECK_DOCA(DOCA_ERROR_IN_PROGRESS, cu_client_start(&e, NAME, 0, 4));
	CU_CHECK(cu_progress_until(&e, cu_is_running, 5000));
	/* two consumers and two producers per side at most */
	cu_mem_init(&m.mem, e.dev, 4096, 4);
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_consumer_create(e.conn, m.mem.mmap, &cons[0]));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_consumer_create(e.conn, m.mem.mmap, &cons[1]));
	CU_CHECK_DOCA(DOCA_ERROR_NO_MEMORY,
	              doca_comch_consumer_create(e.conn, m.mem.mmap, &cons[2]));
	CU_CHECK_DOCA(DOCA_ERROR_INVALID_VALUE, doca_comch_consumer_set_imm_data_len(cons[0], 9));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_consumer_set_imm_data_len(cons[0], 8));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_producer_create(e.conn, &prod[0]));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_producer_create(e.conn, &prod[1]));
	CU_CHECK_DOCA(DOCA_ERROR_NO_MEMORY, doca_comch_producer_create(e.conn, &prod[2]));
	for (int i = 0; i < 2; i++) {
		CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_consumer_destroy(cons[i]));
		CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_producer_destroy(prod[i]));
	}
	cu_mem_fini(&m.mem);
	cu_tell('r');
	CU_CHECK(cu_hear(&e, 10000) == 'q');
	CU_CHECK(cu_close(&e));
	return 0;
}

static void test_small_max_clients(void **state)
{
	struct cu_ep s;
	pid_t c1, c2;
	int gate;

	(void)state;
	cu_sync_init();
	c1 = cu_fork(first_client, NULL, 30);
	c2 = cu_fork_gated(second_client, NULL, 30, &gate);
	cu_sync_side(false);
	cu_open(&s, true);
	assert_ok(cu_server_start(&s, NAME, 0, 4));
	assert_int_equal(cu_hear(&s, 10000), 'r');
	cu_release(gate);
	assert_int_equal(cu_join_progress(c2, &s, 10), 0);
	assert_int_equal(s.connects, 1);
	cu_tell('q');
	assert_int_equal(cu_join(c1, 10), 0);
	assert_true(cu_close(&s));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_caps_bf3, cu_next_name),
		cmocka_unit_test_setup(test_caps_nic, cu_next_name),
		cmocka_unit_test_setup(test_server_args, cu_next_name),
		cmocka_unit_test_setup(test_server_closed_rep, cu_next_name),
		cmocka_unit_test_setup(test_server_rep_close_in_use, cu_next_name),
		cmocka_unit_test_setup(test_client_args, cu_next_name),
		cmocka_unit_test_setup(test_bad_env, cu_next_name),
		cmocka_unit_test_setup(test_connection_null, cu_next_name),
		cmocka_unit_test_setup(test_dpa_not_supported, cu_next_name),
		cmocka_unit_test_setup(test_one_process, cu_next_name),
		cmocka_unit_test_setup(test_one_process_refusals, cu_next_name),
		cmocka_unit_test_setup(test_peer_gone_refusals, cu_next_name),
		cmocka_unit_test_setup(test_disconnect_socket_full, cu_next_name),
		cmocka_unit_test_setup(test_task_outlives_conn, cu_next_name),
		cmocka_unit_test_setup(test_post_recv_mmap_rules, cu_next_name),
		cmocka_unit_test_setup(test_stop_in_recv_keeps_msg, cu_next_name),
		cmocka_unit_test_setup(test_restart_keeps_fastpath, cu_next_name),
	};
	const struct CMUnitTest longest[] = {
		cmocka_unit_test_setup(test_longest_msg, cu_next_name),
	};
	const struct CMUnitTest small[] = {
		cmocka_unit_test_setup(test_small_caps, cu_next_name),
		cmocka_unit_test_setup(test_small_max_clients, cu_next_name),
	};

	g_argv = argv;
	if (argc == 2 && strcmp(argv[1], "--nic") == 0)
		return role_nic();
	cu_private_rundir();
	if (argc == 2 && strcmp(argv[1], "--small") == 0)
		return cmocka_run_group_tests(small, NULL, NULL);
	if (argc == 2 && strcmp(argv[1], "--64k") == 0)
		return cmocka_run_group_tests(longest, NULL, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
