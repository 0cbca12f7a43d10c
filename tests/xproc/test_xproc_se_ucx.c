/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Sync events over the UCX transport between two processes that share no shared memory:
 * the exporter is tests/xproc/se_ucx_peer (DPU device), this process imports through the
 * host device. Two modes, as test_xproc_ucx: one kernel with ODMA_TRANSPORT=ucx
 * (xproc_se_ucx_local, no root) and two network + PID + mount namespaces joined only by a
 * veth pair (ucx_netns.sh, root; ODMA_TP_TEST_PEER_NETNS names the peer's namespace and
 * ODMA_TP_TEST_VETH our end of the link). Covered: the importer's tasks (get, notify_set,
 * notify_add, wait_eq, wait_neq) and CPU calls against the exporter's CPU updates and waits
 * in both directions, a PE asleep on its notification handle woken for a remote update,
 * adds of both sides at once summing exactly, exporter killed / link down / event stopped:
 * bounded CONNECTION_ABORTED, each task once, the context IDLE; and a hostile importer's
 * forged atomic requests.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_pe.h>
#include <doca_sync_event.h>

#include "test_util.h"
#include "xproc_util.h"

#define NA 1000 /* adds of each side in the atomicity test */

struct imp {
	pid_t child;
	int fd;
	struct doca_dev *dev;
	struct doca_sync_event *se;
	struct doca_ctx *ctx;
	struct doca_pe *pe;
	uint8_t blob[1024];
	size_t sz;
	unsigned int ok, err, calls[8];
	doca_error_t last;
	uint64_t got, fetched;
	enum doca_ctx_states state;
};

static uint64_t bound(void)
{
	const char *t = getenv("ODMA_TRANSPORT_TIMEOUT_MS");

	return (t ? strtoull(t, NULL, 10) : 5000) + 4000; /* + slack for a loaded machine */
}

static void count(struct imp *im, struct doca_task *t, union doca_data tud)
{
	doca_error_t st = doca_task_get_status(t);

	if (st == DOCA_SUCCESS)
		im->ok++;
	else
		im->err++;
	im->last = st;
	im->calls[tud.u64 < 8 ? tud.u64 : 7]++;
	doca_task_free(t);
}

static void get_cb(struct doca_sync_event_task_get *t, union doca_data tud, union doca_data cud)
{
	count(cud.ptr, doca_sync_event_task_get_as_doca_task(t), tud);
}

static void set_cb(struct doca_sync_event_task_notify_set *t, union doca_data tud,
                   union doca_data cud)
{
	count(cud.ptr, doca_sync_event_task_notify_set_as_doca_task(t), tud);
}

static void add_cb(struct doca_sync_event_task_notify_add *t, union doca_data tud,
                   union doca_data cud)
{
	count(cud.ptr, doca_sync_event_task_notify_add_as_doca_task(t), tud);
}

static void eq_cb(struct doca_sync_event_task_wait_eq *t, union doca_data tud, union doca_data cud)
{
	count(cud.ptr, doca_sync_event_task_wait_eq_as_doca_task(t), tud);
}

static void neq_cb(struct doca_sync_event_task_wait_neq *t, union doca_data tud,
                   union doca_data cud)
{
	count(cud.ptr, doca_sync_event_task_wait_neq_as_doca_task(t), tud);
}

static void state_cb(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
                     enum doca_ctx_states next)
{
	(void)ctx;
	(void)prev;
	((struct imp *)ud.ptr)->state = next;
}

static pid_t spawn_peer(int *fd)
{
	const char *peer = getenv("ODMA_SE_TEST_PEER"), *ns = getenv("ODMA_TP_TEST_PEER_NETNS");
	int sv[2];
	pid_t pid;

	assert_non_null(peer);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(sv[1], 3);
		/* ip netns exec also mounts that namespace's /sys, which UCX reads */
		if (ns != NULL)
			tu_execv_prefixed((const char *const[]){ "ip", "netns", "exec", ns,
			                                         "unshare", "--pid", "--fork",
			                                         "--mount-proc", NULL },
			                  peer, (char *const[]){ (char *)peer, NULL });
		tu_execv(peer, (char *const[]){ (char *)peer, NULL });
		_exit(127);
	}
	close(sv[1]);
	*fd = sv[0];
	return pid;
}

static struct imp *imp_start(void)
{
	struct imp *im = calloc(1, sizeof(*im));
	uint64_t len;

	assert_non_null(im);
	im->child = spawn_peer(&im->fd);
	assert_true(xu_full_io(im->fd, &len, sizeof(len), false));
	assert_true(len <= sizeof(im->blob));
	assert_true(xu_full_io(im->fd, im->blob, len, false));
	im->sz = len;
	assert_true(im->sz > 88); /* a version-2 blob: it carries the exporter's UCX address */
	im->dev = tu_open_pci_or_null("b1:00.0");
	assert_non_null(im->dev);
	assert_ok(doca_sync_event_create_from_export(im->dev, im->blob, im->sz, &im->se));
	im->ctx = doca_sync_event_as_ctx(im->se);
	assert_ok(doca_pe_create(&im->pe));
	assert_ok(doca_ctx_set_state_changed_cb(im->ctx, state_cb));
	assert_ok(doca_ctx_set_user_data(im->ctx, (union doca_data){ .ptr = im }));
	assert_ok(doca_sync_event_task_get_set_conf(im->se, get_cb, get_cb, 8));
	assert_ok(doca_sync_event_task_notify_set_set_conf(im->se, set_cb, set_cb, 8));
	assert_ok(doca_sync_event_task_notify_add_set_conf(im->se, add_cb, add_cb, 8));
	assert_ok(doca_sync_event_task_wait_eq_set_conf(im->se, eq_cb, eq_cb, 8));
	assert_ok(doca_sync_event_task_wait_neq_set_conf(im->se, neq_cb, neq_cb, 8));
	assert_ok(doca_pe_connect_ctx(im->pe, im->ctx));
	assert_ok(doca_ctx_start(im->ctx));
	return im;
}

/* Sends command @c (with @v when @with_arg) and reads its one-byte echo. */
static void cmd(struct imp *im, char c, bool with_arg, uint64_t v)
{
	char r = 0;

	assert_true(xu_full_io(im->fd, &c, 1, true));
	if (with_arg)
		assert_true(xu_full_io(im->fd, &v, sizeof(v), true));
	assert_true(xu_full_io(im->fd, &r, 1, false));
	assert_int_equal(r, c);
}

static uint64_t peer_get(struct imp *im)
{
	uint64_t v;

	assert_true(xu_full_io(im->fd, "G", 1, true));
	assert_true(xu_full_io(im->fd, &v, sizeof(v), false));
	return v;
}

static void run_until(struct imp *im, unsigned int n)
{
	uint64_t t0 = tu_now_ms();

	while (im->ok + im->err < n) {
		(void)doca_pe_progress(im->pe);
		assert_true(tu_now_ms() - t0 < bound());
	}
}

static void submit(struct doca_task *t)
{
	assert_ok(doca_task_submit(t));
}

static struct doca_task *t_get(struct imp *im, uint64_t idx)
{
	struct doca_sync_event_task_get *t;

	assert_ok(doca_sync_event_task_get_alloc_init(im->se, &im->got,
	                                              (union doca_data){ .u64 = idx }, &t));
	return doca_sync_event_task_get_as_doca_task(t);
}

static struct doca_task *t_set(struct imp *im, uint64_t v, uint64_t idx)
{
	struct doca_sync_event_task_notify_set *t;

	assert_ok(doca_sync_event_task_notify_set_alloc_init(im->se, v,
	                                                     (union doca_data){ .u64 = idx }, &t));
	return doca_sync_event_task_notify_set_as_doca_task(t);
}

static struct doca_task *t_add(struct imp *im, uint64_t v, uint64_t idx)
{
	struct doca_sync_event_task_notify_add *t;

	assert_ok(doca_sync_event_task_notify_add_alloc_init(im->se, v, &im->fetched,
	                                                     (union doca_data){ .u64 = idx }, &t));
	return doca_sync_event_task_notify_add_as_doca_task(t);
}

static struct doca_task *t_eq(struct imp *im, uint64_t v, uint64_t idx)
{
	struct doca_sync_event_task_wait_eq *t;

	assert_ok(doca_sync_event_task_wait_eq_alloc_init(im->se, v, UINT64_MAX,
	                                                  (union doca_data){ .u64 = idx }, &t));
	return doca_sync_event_task_wait_eq_as_doca_task(t);
}

static void imp_stop(struct imp *im, bool peer_alive)
{
	int st;

	if (im->state != DOCA_CTX_STATE_IDLE) {
		doca_error_t r = doca_ctx_stop(im->ctx);
		uint64_t t0 = tu_now_ms();

		assert_true(r == DOCA_SUCCESS || r == DOCA_ERROR_IN_PROGRESS);
		while (im->state != DOCA_CTX_STATE_IDLE) {
			(void)doca_pe_progress(im->pe);
			assert_true(tu_now_ms() - t0 < bound());
		}
	}
	assert_ok(doca_sync_event_destroy(im->se));
	assert_ok(doca_pe_destroy(im->pe));
	assert_ok(doca_dev_close(im->dev));
	if (peer_alive) {
		assert_true(xu_full_io(im->fd, "X", 1, true));
		assert_int_equal(waitpid(im->child, &st, 0), im->child);
	}
	close(im->fd);
	free(im);
}

static uint64_t thread_cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Each side sees the other's values: tasks and CPU calls here, CPU updates and waits there. */
static void test_values_both_ways(void **state)
{
	struct imp *im = imp_start();
	doca_notification_handle_t h;
	struct pollfd p;
	uint64_t v, t0, c0;
	char r;

	(void)state;
	/* importer notify_set -> exporter's value */
	submit(t_set(im, 7, 0));
	run_until(im, 1);
	assert_int_equal(im->last, DOCA_SUCCESS);
	assert_int_equal(peer_get(im), 7);
	/* exporter update_set -> importer get task and CPU get */
	cmd(im, 'U', true, 42);
	submit(t_get(im, 1));
	run_until(im, 2);
	assert_int_equal(im->got, 42);
	assert_ok(doca_sync_event_get(im->se, &v));
	assert_int_equal(v, 42);
	/* notify_add returns the old value; the exporter sees the sum */
	submit(t_add(im, 8, 2));
	run_until(im, 3);
	assert_int_equal(im->fetched, 42);
	assert_int_equal(peer_get(im), 50);
	/* the exporter's blocking CPU wait is woken by our update */
	assert_true(xu_full_io(im->fd, "W", 1, true));
	v = 99;
	assert_true(xu_full_io(im->fd, &v, sizeof(v), true));
	usleep(100 * 1000);
	submit(t_set(im, 100, 3));
	run_until(im, 4);
	assert_true(xu_full_io(im->fd, &r, 1, false));
	assert_int_equal(r, 'W');
	assert_true(xu_full_io(im->fd, &v, sizeof(v), false));
	assert_int_equal(v, 100);
	/* tasks in flight together: every add applied once at the exporter */
	for (unsigned int i = 0; i < 8; i++)
		submit(t_add(im, 1, 5));
	run_until(im, 12);
	assert_int_equal(im->calls[5], 8);
	assert_int_equal(im->err, 0);
	assert_int_equal(peer_get(im), 108);
	submit(t_set(im, 100, 3));
	run_until(im, 13);
	/* a wait task pends until the exporter's update; the PE sleeps on its handle meanwhile */
	submit(t_eq(im, 123, 4));
	(void)doca_pe_progress(im->pe);
	assert_int_equal(im->ok + im->err, 13);
	cmd(im, 'D', true, 123); /* the peer sets 123 in 200 ms */
	assert_ok(doca_pe_get_notification_handle(im->pe, &h));
	t0 = tu_now_ms();
	while (im->ok + im->err < 14) {
		p = (struct pollfd){ .fd = h, .events = POLLIN };
		(void)doca_pe_request_notification(im->pe);
		assert_true(poll(&p, 1, 3000) >= 0 || errno == EINTR);
		(void)doca_pe_clear_notification(im->pe, h);
		(void)doca_pe_progress(im->pe);
		assert_true(tu_now_ms() - t0 < bound());
	}
	assert_int_equal(im->last, DOCA_SUCCESS);
	assert_int_equal(im->calls[4], 1);
	/* our blocking CPU wait sees the exporter's later update, without spinning */
	cmd(im, 'D', true, 300);
	t0 = tu_now_ms();
	c0 = thread_cpu_ms();
	assert_ok(doca_sync_event_wait_gt(im->se, 299, UINT64_MAX));
	assert_true(tu_now_ms() - t0 >= 100);
	assert_true(thread_cpu_ms() - c0 < (tu_now_ms() - t0) / 2 + 20);
	assert_ok(doca_sync_event_wait_eq(im->se, 300, UINT64_MAX));
	assert_ok(doca_sync_event_wait_neq(im->se, 0, UINT64_MAX));
	imp_stop(im, true);
}

/* libdoca_common's count of the watches this process sent, and of those answered changed. */
void doca_priv_se_net_watches(uint64_t *sent, uint64_t *changed);

struct waiter {
	struct imp *im;
	doca_error_t st;
	uint64_t ms; /* how long the wait took */
};

static void *wait_500(void *arg)
{
	struct waiter *w = arg;
	uint64_t t0 = tu_now_ms();

	w->st = doca_sync_event_wait_gt(w->im->se, 499, UINT64_MAX);
	w->ms = tu_now_ms() - t0;
	return NULL;
}

/*
 * A blocking wait sleeps in a watch of the value, which the exporter answers at its own
 * update: with ODMA_SE_WATCH_MS=20000 at this import the exporter would hold the watch 20 s,
 * and the wait returns long before that, with the changed value, after one or two watches.
 */
static void test_watch_answered_on_change(void **state)
{
	struct waiter w = { .st = DOCA_ERROR_UNKNOWN };
	uint64_t sent0, changed0, sent, changed, t0;
	pthread_t t;

	(void)state;
	assert_int_equal(setenv("ODMA_SE_WATCH_MS", "20000", 1), 0);
	w.im = imp_start();
	assert_int_equal(unsetenv("ODMA_SE_WATCH_MS"), 0);
	cmd(w.im, 'U', true, 1);
	doca_priv_se_net_watches(&sent0, &changed0);
	assert_int_equal(pthread_create(&t, NULL, wait_500, &w), 0);
	t0 = tu_now_ms();
	do { /* the wait read the value (1) and sleeps in its watch */
		usleep(1000);
		doca_priv_se_net_watches(&sent, &changed);
		assert_true(tu_now_ms() - t0 < bound());
	} while (sent == sent0);
	cmd(w.im, 'U', true, 500); /* the exporter's own update */
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(w.st, DOCA_SUCCESS);
	assert_true(w.ms < 10000);
	doca_priv_se_net_watches(&sent, &changed);
	assert_true(sent - sent0 >= 1 && sent - sent0 <= 2);
	assert_int_equal(changed - changed0, 1);
	imp_stop(w.im, true);
}

/* Adds of both sides at once: applied at the exporter, every one counted, none lost. */
static void test_concurrent_adds(void **state)
{
	struct imp *im = imp_start();
	uint64_t v = NA, f, prev = 0;
	char r;

	(void)state;
	cmd(im, 'U', true, 1000);
	assert_true(xu_full_io(im->fd, "A", 1, true));
	assert_true(xu_full_io(im->fd, &v, sizeof(v), true));
	for (unsigned int i = 0; i < NA; i++) {
		assert_ok(doca_sync_event_update_add(im->se, 1, &f));
		assert_true(f >= 1000 && f < 1000 + 2 * NA);
		assert_true(i == 0 || f > prev); /* fetched values only grow */
		prev = f;
	}
	assert_true(xu_full_io(im->fd, &r, 1, false));
	assert_int_equal(r, 'A');
	assert_int_equal(peer_get(im), 1000 + 2 * NA);
	/* a set races nothing now: the value is exactly it on both sides */
	assert_ok(doca_sync_event_update_set(im->se, 5));
	assert_int_equal(peer_get(im), 5);
	imp_stop(im, true);
}

/* A fault with a wait task pending: it fails once, within the bound; later tasks fail too. */
static void fault_run(char fault)
{
	struct imp *im = imp_start();
	uint64_t t0, f;
	int st;

	submit(t_eq(im, 999, 0));
	(void)doca_pe_progress(im->pe);
	assert_int_equal(im->ok + im->err, 0);
	if (fault == 'K') {
		assert_true(xu_full_io(im->fd, "K", 1, true));
		assert_int_equal(waitpid(im->child, &st, 0), im->child);
	} else if (fault == 'S') {
		cmd(im, 'S', false, 0);
	} else {
		char c[128];

		snprintf(c, sizeof(c), "ip link set dev %s down", getenv("ODMA_TP_TEST_VETH"));
		assert_int_equal(system(c), 0);
	}
	t0 = tu_now_ms();
	submit(t_add(im, 1, 3)); /* in flight across the fault (the link down: until the timeout) */
	run_until(im, 2);
	assert_true(tu_now_ms() - t0 < bound());
	assert_int_equal(im->err, 2);
	assert_int_equal(im->last, DOCA_ERROR_CONNECTION_ABORTED);
	assert_int_equal(im->calls[0], 1);
	assert_int_equal(im->calls[3], 1);
	/* the handle stays failed: every later access says so at once */
	submit(t_set(im, 1, 1));
	submit(t_get(im, 2));
	run_until(im, 4);
	assert_int_equal(im->err, 4);
	assert_int_equal(im->calls[1], 1);
	assert_int_equal(im->calls[2], 1);
	assert_int_equal(doca_sync_event_update_add(im->se, 1, &f), DOCA_ERROR_CONNECTION_ABORTED);
	assert_int_equal(doca_sync_event_wait_gt(im->se, 0, UINT64_MAX),
	                 DOCA_ERROR_CONNECTION_ABORTED);
	if (fault == 'S') { /* a revoked export imports no more */
		struct doca_sync_event *again = NULL;

		assert_int_not_equal(
		        doca_sync_event_create_from_export(im->dev, im->blob, im->sz, &again),
		        DOCA_SUCCESS);
	}
	if (fault == 'L') {
		assert_int_equal(tu_link_up(getenv("ODMA_TP_TEST_VETH")), 0);
	}
	imp_stop(im, fault != 'K'); /* the context reaches IDLE within the bound */
}

/*
 * A stop with requests in flight to an exporter that stopped answering (SIGSTOP) flushes them
 * at once with IO_FAILED, a pending wait with them, instead of waiting for their deadline (60 s
 * in this run): the exporter runs again 6 s later and says so only then. The handle is not
 * marked failed: the exporter never failed, and after a restart every access works.
 */
static void test_stop_flushes_frozen_exporter(void **state)
{
	struct imp *im = imp_start();
	uint64_t f = 0;
	char z = 0;

	(void)state;
	cmd(im, 'U', true, 10);
	assert_true(xu_full_io(im->fd, "Z", 1, true));
	usleep(200 * 1000); /* it stops itself at once */
	submit(t_eq(im, 999, 0));
	submit(t_add(im, 1, 1));
	submit(t_get(im, 2));
	(void)doca_pe_progress(im->pe);
	assert_int_equal(doca_ctx_stop(im->ctx), DOCA_ERROR_IN_PROGRESS);
	run_until(im, 3);
	while (im->state != DOCA_CTX_STATE_IDLE)
		(void)doca_pe_progress(im->pe);
	assert_int_equal(im->err, 3);
	assert_int_equal(im->last, DOCA_ERROR_IO_FAILED);
	for (unsigned int i = 0; i < 3; i++)
		assert_int_equal(im->calls[i], 1);
	assert_true(xu_full_io(im->fd, &z, 1, false)); /* the exporter runs again */
	assert_int_equal(z, 'Z');
	im->ok = im->err = 0;
	assert_ok(doca_ctx_start(im->ctx));
	/* the add may have been applied when the exporter woke: it was in flight */
	assert_ok(doca_sync_event_update_add(im->se, 5, &f));
	assert_true(f == 10 || f == 11);
	assert_int_equal(peer_get(im), f + 5);
	submit(t_get(im, 4));
	run_until(im, 1);
	assert_int_equal(im->ok, 1);
	assert_int_equal(im->got, f + 5);
	imp_stop(im, true);
}

static void test_exporter_killed(void **state)
{
	(void)state;
	fault_run('K');
}

static void test_exporter_stops(void **state)
{
	(void)state;
	fault_run('S');
}

static void test_link_down(void **state)
{
	(void)state;
	if (getenv("ODMA_TP_TEST_VETH") == NULL)
		skip();
	fault_run('L');
}

/*
 * A hostile importer: our own UCX endpoint to the exporter's worker (its address from the
 * blob), sending hand-made atomic requests (src/core/transport/ucx_wire.h). The exporter
 * must refuse anything but the one aligned u64 of the event, and everything after the
 * event stopped.
 */
#include <ucp/api/ucp.h>

#include "util/codec.h"

struct hostile {
	ucp_context_h ctx;
	ucp_worker_h w;
	ucp_ep_h ep;
	bool no_err_handling; /* an endpoint without peer error handling */
	bool got;
	unsigned int replies; /* every reply that came */
	int32_t status;
	uint32_t len;
	uint8_t data[64];
	uint32_t region, gen;
	uint8_t key[16];
	uint64_t vaddr;
};

static void hostile_ep_err(void *arg, ucp_ep_h ep, ucs_status_t status)
{
	(void)arg;
	(void)ep;
	(void)status;
}

static ucs_status_t hostile_reply(void *arg, const void *header, size_t hlen, void *data,
                                  size_t length, const ucp_am_recv_param_t *param)
{
	struct hostile *h = arg;
	const uint8_t *b = header;

	(void)param;
	h->replies++;
	if (hlen == 24) {
		h->status = (int32_t)(uint32_t)odma_get_le(b + 16, 4);
		h->len = (uint32_t)odma_get_le(b + 20, 4);
		memcpy(h->data, data, length < sizeof(h->data) ? length : sizeof(h->data));
	}
	h->got = true;
	return UCS_OK;
}

static void hostile_answer_one(void *arg, const uint8_t *hdr, const uint8_t *payload, size_t len)
{
	(void)hostile_reply(arg, hdr, 24, (void *)payload, len, NULL);
}

/* A batch of answers (id 16): each taken as one alone. */
static ucs_status_t hostile_batch(void *arg, const void *header, size_t hlen, void *data,
                                  size_t length, const ucp_am_recv_param_t *param)
{
	(void)param;
	xu_each_reply(header, hlen, data, length, hostile_answer_one, arg);
	return UCS_OK;
}

static void hostile_open(struct hostile *h, const uint8_t *blob, size_t sz)
{
	const char *veth = getenv("ODMA_TP_TEST_VETH");
	ucp_params_t p = { .field_mask = UCP_PARAM_FIELD_FEATURES, .features = UCP_FEATURE_AM };
	ucp_worker_params_t wp = { 0 };
	ucp_am_handler_param_t ah = { 0 };
	ucp_ep_params_t ep = { 0 };
	ucp_config_t *cfg;
	uint16_t alen = (uint16_t)odma_get_le(blob + 140, 2);

	assert_true(sz == 148u + alen); /* blob version 2 (docs/host-dpu.md) */
	h->region = (uint32_t)odma_get_le(blob + 108, 4);
	h->gen = (uint32_t)odma_get_le(blob + 112, 4);
	memcpy(h->key, blob + 116, 16);
	h->vaddr = odma_get_le(blob + 132, 8);
	assert_int_equal(ucp_config_read(NULL, NULL, &cfg), UCS_OK);
	assert_int_equal(ucp_config_modify(cfg, "TLS", "tcp"), UCS_OK);
	assert_int_equal(ucp_config_modify(cfg, "NET_DEVICES", veth ? veth : "lo"), UCS_OK);
	assert_int_equal(ucp_init(&p, cfg, &h->ctx), UCS_OK);
	ucp_config_release(cfg);
	assert_int_equal(ucp_worker_create(h->ctx, &wp, &h->w), UCS_OK);
	ah.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
	                UCP_AM_HANDLER_PARAM_FIELD_ARG;
	ah.id = 12;
	ah.cb = hostile_reply;
	ah.arg = h;
	assert_int_equal(ucp_worker_set_am_recv_handler(h->w, &ah), UCS_OK);
	ah.id = 16;
	ah.cb = hostile_batch;
	assert_int_equal(ucp_worker_set_am_recv_handler(h->w, &ah), UCS_OK);
	ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
	ep.address = (const ucp_address_t *)(blob + 144);
	if (!h->no_err_handling) { /* the exporter answers only such an importer */
		ep.field_mask |=
		        UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
		ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
		ep.err_handler.cb = hostile_ep_err;
	}
	assert_int_equal(ucp_ep_create(h->w, &ep, &h->ep), UCS_OK);
}

/* Sends one request (op, key, address, length, payload as given); its send, or NULL. */
static void *hostile_send(struct hostile *h, uint8_t op, const uint8_t *key, uint64_t addr,
                          uint64_t len, const void *payload, size_t plen)
{
	static uint8_t hdr[64];
	ucp_request_param_t prm = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
		                    .flags = UCP_AM_SEND_FLAG_REPLY | UCP_AM_SEND_FLAG_EAGER };
	void *r;

	memset(hdr, 0, sizeof(hdr));
	odma_put_le(hdr, 0x514d444fu, 4);
	odma_put_le(hdr + 4, 1, 2);
	hdr[6] = op;
	odma_put_le(hdr + 8, 78, 8);
	odma_put_le(hdr + 16, h->region, 4);
	odma_put_le(hdr + 20, h->gen, 4);
	memcpy(hdr + 24, key, 16);
	odma_put_le(hdr + 40, addr, 8);
	odma_put_le(hdr + 48, len, 8);
	r = ucp_am_send_nbx(h->ep, 11, hdr, sizeof(hdr), payload, plen, &prm);
	assert_false(UCS_PTR_IS_ERR(r));
	return r;
}

/* One request (op, key, address, length, payload as given); the reply's status. */
static int32_t hostile_req(struct hostile *h, uint8_t op, const uint8_t *key, uint64_t addr,
                           uint64_t len, const void *payload, size_t plen)
{
	uint64_t t0 = tu_now_ms();
	void *r;

	h->got = false;
	h->status = 1;
	r = hostile_send(h, op, key, addr, len, payload, plen);
	while (!h->got && tu_now_ms() - t0 < 3000)
		ucp_worker_progress(h->w);
	if (UCS_PTR_IS_PTR(r))
		ucp_request_free(r);
	return h->got ? h->status : 1; /* 1: no answer */
}

/*
 * ATTACH with the event's key and this worker's address: the exporter answers a peer only
 * once it attached (ucx_serve.c). The reply's status (1: no answer).
 */
static int32_t hostile_attach(struct hostile *h)
{
	ucp_address_t *a;
	size_t alen;
	int32_t st;

	assert_int_equal(ucp_worker_get_address(h->w, &a, &alen), UCS_OK);
	st = hostile_req(h, 1, h->key, 0, 0, a, alen);
	ucp_worker_release_address(h->w, a);
	return st;
}

static void hostile_close(struct hostile *h)
{
	ucp_request_param_t prm = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
		                    .flags = UCP_EP_CLOSE_FLAG_FORCE };
	void *r = ucp_ep_close_nbx(h->ep, &prm);

	if (UCS_PTR_IS_PTR(r)) {
		while (ucp_request_check_status(r) == UCS_INPROGRESS)
			ucp_worker_progress(h->w);
		ucp_request_free(r);
	}
	ucp_worker_destroy(h->w);
	ucp_cleanup(h->ctx);
}

enum { OP_GET = 2, OP_PUT = 3, OP_AREAD = 4, OP_FADD = 5, OP_SWAP = 6, OP_CAS = 7, OP_WATCH = 8 };

/* Progresses until @n replies came in all (bounded); how many came. */
static unsigned int hostile_replies(struct hostile *h, unsigned int n)
{
	uint64_t t0 = tu_now_ms();

	while (h->replies < n && tu_now_ms() - t0 < 5000)
		ucp_worker_progress(h->w);
	return h->replies;
}

/*
 * Watches: a changed value is answered at once, a malformed watch refused; of 100 watches of
 * the value as it is (each asking to be held a minute) the exporter holds 64 and answers the
 * rest at once, and its own update of the value answers the 64.
 */
static void hostile_watches(struct imp *im, struct hostile *h)
{
	uint8_t w[16];
	unsigned int base;

	odma_put_le(w, 60000, 8);
	odma_put_le(w + 8, 14, 8); /* seen 14: the value is 15 */
	assert_int_equal(hostile_req(h, OP_WATCH, h->key, h->vaddr, 8, w, 16), DOCA_SUCCESS);
	assert_int_equal(odma_get_le(h->data, 8), 15);
	assert_int_equal(hostile_req(h, OP_WATCH, h->key, h->vaddr, 8, w, 8),
	                 DOCA_ERROR_INVALID_VALUE);
	odma_put_le(w + 8, 15, 8);
	base = h->replies;
	for (int i = 0; i < 100; i++) {
		void *r = hostile_send(h, OP_WATCH, h->key, h->vaddr, 8, w, 16);

		while (UCS_PTR_IS_PTR(r) && ucp_request_check_status(r) == UCS_INPROGRESS)
			ucp_worker_progress(h->w);
		if (UCS_PTR_IS_PTR(r))
			ucp_request_free(r);
	}
	assert_int_equal(hostile_replies(h, base + 36), base + 36);
	for (uint64_t t0 = tu_now_ms(); tu_now_ms() - t0 < 200;)
		ucp_worker_progress(h->w);
	assert_int_equal(h->replies, base + 36); /* 64 held */
	cmd(im, 'U', true, 16);                  /* the exporter's update answers them */
	assert_int_equal(hostile_replies(h, base + 100), base + 100);
	assert_int_equal(odma_get_le(h->data, 8), 16);
	cmd(im, 'U', true, 15);
}

static void test_hostile(void **state)
{
	struct imp *im = imp_start();
	struct hostile h = { 0 };
	uint8_t five[8], bad_key[16], big[16] = { 0 }, cas[16];

	(void)state;
	if (!tu_ucx_link()) {
		imp_stop(im, true);
		print_message("the hand-made importer speaks UCX: UCX's link (ODMA_LINK=ucp) runs "
		              "it\n");
		skip();
	}
	odma_put_le(five, 5, 8);
	odma_put_le(cas, 15, 8); /* compare-and-swap: expects 15, then the new value 15 */
	odma_put_le(cas + 8, 15, 8);
	cmd(im, 'U', true, 10);
	hostile_open(&h, im->blob, im->sz);
	assert_int_equal(hostile_attach(&h), DOCA_SUCCESS);
	/* the control: the event's own word is served, atomically */
	assert_int_equal(hostile_req(&h, OP_FADD, h.key, h.vaddr, 8, five, 8), DOCA_SUCCESS);
	assert_int_equal(h.len, 8);
	assert_int_equal(odma_get_le(h.data, 8), 10);
	assert_int_equal(hostile_req(&h, OP_AREAD, h.key, h.vaddr, 8, NULL, 0), DOCA_SUCCESS);
	assert_int_equal(odma_get_le(h.data, 8), 15);
	assert_int_equal(peer_get(im), 15);
	/* anything but that word: past it, before it, misaligned, wider, wrapping */
	assert_int_equal(hostile_req(&h, OP_FADD, h.key, h.vaddr + 8, 8, five, 8),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(hostile_req(&h, OP_SWAP, h.key, h.vaddr - 8, 8, five, 8),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(hostile_req(&h, OP_FADD, h.key, h.vaddr + 4, 8, five, 8),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(hostile_req(&h, OP_AREAD, h.key, h.vaddr, 16, NULL, 0),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(hostile_req(&h, OP_FADD, h.key, UINT64_MAX - 7, 8, five, 8),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(hostile_req(&h, OP_GET, h.key, h.vaddr, 16, NULL, 0),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(hostile_req(&h, OP_PUT, h.key, h.vaddr, 16, big, 16),
	                 DOCA_ERROR_INVALID_VALUE);
	/* malformed: an atomic without its operand, or with a wider one */
	assert_int_equal(hostile_req(&h, OP_FADD, h.key, h.vaddr, 8, NULL, 0),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(hostile_req(&h, OP_SWAP, h.key, h.vaddr, 8, big, 16),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(hostile_req(&h, OP_CAS, h.key, h.vaddr, 8, five, 8),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(hostile_req(&h, OP_CAS, h.key, h.vaddr + 8, 8, cas, 16),
	                 DOCA_ERROR_INVALID_VALUE);
	/* a well-formed compare-and-swap of the word is served (15 stays 15) */
	assert_int_equal(hostile_req(&h, OP_CAS, h.key, h.vaddr, 8, cas, 16), DOCA_SUCCESS);
	assert_int_equal(odma_get_le(h.data, 8), 15);
	/* a forged key, another region */
	memcpy(bad_key, h.key, 16);
	bad_key[5] ^= 1;
	assert_int_equal(hostile_req(&h, OP_SWAP, bad_key, h.vaddr, 8, five, 8),
	                 DOCA_ERROR_INVALID_VALUE);
	h.region++;
	assert_int_equal(hostile_req(&h, OP_SWAP, h.key, h.vaddr, 8, five, 8),
	                 DOCA_ERROR_INVALID_VALUE);
	h.region--;
	assert_int_equal(peer_get(im), 15); /* none of them changed it */
	hostile_watches(im, &h);
	/* after the event stopped: nothing */
	cmd(im, 'S', false, 0);
	assert_int_equal(hostile_req(&h, OP_FADD, h.key, h.vaddr, 8, five, 8),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(hostile_req(&h, OP_AREAD, h.key, h.vaddr, 8, NULL, 0),
	                 DOCA_ERROR_INVALID_VALUE);
	hostile_close(&h);
	imp_stop(im, true);
}

/* Imports @blob (@sz bytes, its CRC recomputed) through the host device; the result. */
static doca_error_t import_forged(struct imp *im, uint8_t *blob, size_t sz)
{
	struct doca_sync_event *se = NULL;
	doca_error_t r;

	odma_put_le(blob + sz - 4, odma_crc32c(blob, sz - 4), 4);
	r = doca_sync_event_create_from_export(im->dev, blob, sz, &se);
	if (r == DOCA_SUCCESS)
		assert_ok(doca_sync_event_destroy(se));
	return r;
}

/*
 * What the importer does with a version-2 blob: a blob the exporter did not issue (another
 * device name, another generation) is refused by the exporter; ODMA_TRANSPORT=process
 * takes the shared page where the exporter shares our kernel (and a wait over the network
 * sees its writes), and is refused where not; a bad ODMA_SE_WATCH_MS fails the import.
 */
static void test_import_rules(void **state)
{
	struct imp *im = imp_start();
	uint8_t forged[1024];
	struct doca_sync_event *se = NULL;
	uint64_t v;

	(void)state;
	memcpy(forged, im->blob, im->sz);
	forged[57] = forged[57] == '1' ? '2' : '1'; /* the exporting device's name */
	assert_int_equal(import_forged(im, forged, im->sz), DOCA_ERROR_INVALID_VALUE);
	memcpy(forged, im->blob, im->sz);
	odma_put_le(forged + 112, odma_get_le(forged + 112, 4) + 1, 4); /* the generation */
	assert_int_equal(import_forged(im, forged, im->sz), DOCA_ERROR_INVALID_VALUE);
	/* malformed version-2 fields (checksum right): refused by the parser */
	memcpy(forged, im->blob, im->sz);
	memset(forged + 108, 0, 4); /* region id 0 */
	assert_int_equal(import_forged(im, forged, im->sz), DOCA_ERROR_INVALID_VALUE);
	memcpy(forged, im->blob, im->sz);
	forged[132] |= 4; /* a misaligned value */
	assert_int_equal(import_forged(im, forged, im->sz), DOCA_ERROR_INVALID_VALUE);
	memcpy(forged, im->blob, im->sz);
	forged[142] = 1; /* reserved */
	assert_int_equal(import_forged(im, forged, im->sz), DOCA_ERROR_INVALID_VALUE);
	memcpy(forged, im->blob, im->sz);
	odma_put_le(forged + 140, 0, 2); /* no address */
	assert_int_equal(import_forged(im, forged, im->sz), DOCA_ERROR_INVALID_VALUE);
	memcpy(forged, im->blob, im->sz);
	odma_put_le(forged + 140, odma_get_le(forged + 140, 2) - 1, 2); /* length mismatch */
	assert_int_equal(import_forged(im, forged, im->sz), DOCA_ERROR_INVALID_VALUE);
	/* a second, stand-alone handle of the same export shares the value */
	assert_ok(doca_sync_event_create_from_export(im->dev, im->blob, im->sz, &se));
	assert_ok(doca_sync_event_start(se));
	assert_ok(doca_sync_event_update_set(se, 40));
	assert_ok(doca_sync_event_update_add(se, 2, &v));
	assert_int_equal(v, 40);
	assert_ok(doca_sync_event_get(im->se, &v));
	assert_int_equal(v, 42);
	assert_ok(doca_sync_event_wait_eq_yield(se, 42, UINT64_MAX));
	assert_ok(doca_sync_event_stop(se));
	assert_ok(doca_sync_event_destroy(se));
	setenv("ODMA_TRANSPORT", "process", 1);
	if (getenv("ODMA_TP_TEST_PEER_NETNS") != NULL) {
		assert_int_equal(doca_sync_event_create_from_export(im->dev, im->blob, im->sz, &se),
		                 DOCA_ERROR_NOT_SUPPORTED);
	} else {
		unsigned int done = im->ok + im->err;

		assert_ok(doca_sync_event_create_from_export(im->dev, im->blob, im->sz, &se));
		assert_ok(doca_sync_event_start(se));
		assert_ok(doca_sync_event_update_set(se, 77)); /* through the shared page */
		assert_int_equal(peer_get(im), 77);
		assert_ok(doca_sync_event_get(im->se, &v)); /* and seen over the network */
		assert_int_equal(v, 77);
		/*
		 * a wait over the network sees a write the exporting process did not make (a third
		 * process on its page): its watch is answered at the end of ODMA_SE_WATCH_MS
		 */
		submit(t_eq(im, 88, 6));
		(void)doca_pe_progress(im->pe);
		assert_ok(doca_sync_event_update_set(se, 88));
		run_until(im, done + 1);
		assert_int_equal(im->last, DOCA_SUCCESS);
		assert_int_equal(im->calls[6], 1);
		assert_ok(doca_sync_event_stop(se));
		assert_ok(doca_sync_event_destroy(se));
	}
	setenv("ODMA_TRANSPORT", "ucx", 1);
	if (getenv("ODMA_TP_TEST_PEER_NETNS") != NULL)
		unsetenv("ODMA_TRANSPORT");
	/* a bad ODMA_SE_WATCH_MS fails the import over the network (one line naming it) */
	setenv("ODMA_SE_WATCH_MS", "0", 1);
	assert_int_equal(doca_sync_event_create_from_export(im->dev, im->blob, im->sz, &se),
	                 DOCA_ERROR_INVALID_VALUE);
	unsetenv("ODMA_SE_WATCH_MS");
	imp_stop(im, true);
}

/*
 * Exporting an event again through the same device hands out the same bytes: with a network
 * reach (version 2), one network region while it is live, not one more per call.
 */
static void test_export_repeat_network(void **state)
{
	struct doca_dev *dpu = tu_open_pci_or_null("03:00.0");
	struct doca_sync_event *se;
	const uint8_t *first, *blob;
	size_t sz0, sz;

	(void)state;
	assert_non_null(dpu);
	assert_ok(doca_sync_event_create(&se));
	assert_ok(doca_sync_event_start(se));
	assert_ok(doca_sync_event_export_to_remote_pci(se, dpu, &first, &sz0));
	if (getenv("ODMA_TRANSPORT") != NULL)
		assert_true(sz0 > 88); /* version 2 (a version-1 blob is 88 bytes) */
	for (int i = 0; i < 1000; i++) {
		assert_ok(doca_sync_event_export_to_remote_pci(se, dpu, &blob, &sz));
		assert_ptr_equal(blob, first);
		assert_int_equal(sz, sz0);
	}
	assert_ok(doca_sync_event_destroy(se));
	assert_ok(doca_dev_close(dpu));
}

int main(int argc, char **argv)
{
	/* its own run: a deadline longer than the exporter's 6 s stop (meson.build) */
	const struct CMUnitTest stop_tests[] = {
		cmocka_unit_test(test_stop_flushes_frozen_exporter),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values_both_ways),
		cmocka_unit_test(test_watch_answered_on_change),
		cmocka_unit_test(test_concurrent_adds),
		cmocka_unit_test(test_exporter_killed),
		cmocka_unit_test(test_exporter_stops),
		cmocka_unit_test(test_link_down),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_import_rules),
		cmocka_unit_test(test_export_repeat_network),
	};

	setenv("ODMA_SYSTEM", "bf3", 1);
	if (argc == 2 && strcmp(argv[1], "--stop") == 0)
		return cmocka_run_group_tests(stop_tests, NULL, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
