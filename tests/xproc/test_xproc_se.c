/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Sync events between two real processes, as a DPU (exporter, 03:00.0) and a host
 * (importer, b1:00.0): each side's updates wake the other's blocked threads and sleeping
 * progress engines, and nobody spins while it waits (CPU time is measured); an exporter that
 * stops the event or dies ends the importer's waits with CONNECTION_ABORTED; an importer that
 * dies does not disturb the exporter. Children report failures through their exit code (the
 * number of the step that failed), never through cmocka.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
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

#define DPU_PCI "03:00.0"
#define HOST_PCI "b1:00.0"
#define MS 1000000ull

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The blob travels as {u64 length, bytes}. */
static bool send_blob(int fd, const uint8_t *blob, size_t sz)
{
	uint64_t n = sz;

	return xu_full_io(fd, &n, sizeof(n), true) && xu_full_io(fd, (void *)blob, sz, true);
}

static bool recv_blob(int fd, uint8_t *blob, size_t *sz)
{
	uint64_t n;

	if (!xu_full_io(fd, &n, sizeof(n), false) || n == 0 || n > 1024)
		return false;
	*sz = n;
	return xu_full_io(fd, blob, n, false);
}

static bool send_byte(int fd, char c)
{
	return xu_full_io(fd, &c, 1, true);
}

static char recv_byte(int fd)
{
	char c = 0;

	return xu_full_io(fd, &c, 1, false) ? c : 0;
}

/* A forked child running @fn(fd, arg); returns its pid. */
static pid_t spawn(int (*fn)(int fd, void *arg), void *arg, int *fd)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		_exit(fn(sv[1], arg));
	}
	close(sv[1]);
	*fd = sv[0];
	return pid;
}

/* An event exported through the DPU device (the sample's "local" side). */
struct exporter {
	struct doca_dev *dev;
	struct doca_sync_event *se;
	const uint8_t *blob;
	size_t sz;
};

static bool exporter_open(struct exporter *e, bool start)
{
	e->dev = tu_open_pci_or_null(DPU_PCI);
	if (e->dev == NULL || doca_sync_event_create(&e->se) != DOCA_SUCCESS ||
	    doca_sync_event_add_publisher_location_remote_pci(e->se) != DOCA_SUCCESS ||
	    doca_sync_event_add_subscriber_location_cpu(e->se, e->dev) != DOCA_SUCCESS)
		return false;
	return !start || doca_sync_event_start(e->se) == DOCA_SUCCESS;
}

static void exporter_close(struct exporter *e)
{
	(void)doca_sync_event_stop(e->se);
	(void)doca_sync_event_destroy(e->se);
	(void)doca_dev_close(e->dev);
}

/* --------------------------------------------------------------------------------------- */
/* Context helpers (both sides)                                                              */

struct ctxw {
	struct doca_pe *pe;
	unsigned int ok, err;
	doca_error_t last;
};

static void wait_ok(struct doca_sync_event_task_wait_eq *t, union doca_data tud,
                    union doca_data cud)
{
	struct ctxw *w = cud.ptr;

	(void)tud;
	w->ok++;
	w->last = DOCA_SUCCESS;
	doca_task_free(doca_sync_event_task_wait_eq_as_doca_task(t));
}

static void wait_err(struct doca_sync_event_task_wait_eq *t, union doca_data tud,
                     union doca_data cud)
{
	struct ctxw *w = cud.ptr;

	(void)tud;
	w->err++;
	w->last = doca_task_get_status(doca_sync_event_task_wait_eq_as_doca_task(t));
	doca_task_free(doca_sync_event_task_wait_eq_as_doca_task(t));
}

static void set_ok(struct doca_sync_event_task_notify_set *t, union doca_data tud,
                   union doca_data cud)
{
	struct ctxw *w = cud.ptr;

	(void)tud;
	w->ok++;
	doca_task_free(doca_sync_event_task_notify_set_as_doca_task(t));
}

static bool ctx_setup(struct doca_sync_event *se, struct ctxw *w)
{
	union doca_data ud = { .ptr = w };

	return doca_pe_create(&w->pe) == DOCA_SUCCESS &&
	       doca_pe_connect_ctx(w->pe, doca_sync_event_as_ctx(se)) == DOCA_SUCCESS &&
	       doca_ctx_set_user_data(doca_sync_event_as_ctx(se), ud) == DOCA_SUCCESS &&
	       doca_sync_event_task_wait_eq_set_conf(se, wait_ok, wait_err, 2) == DOCA_SUCCESS &&
	       doca_sync_event_task_notify_set_set_conf(se, set_ok, set_ok, 2) == DOCA_SUCCESS &&
	       doca_ctx_start(doca_sync_event_as_ctx(se)) == DOCA_SUCCESS;
}

static bool submit_wait(struct doca_sync_event *se, uint64_t v)
{
	struct doca_sync_event_task_wait_eq *t;
	union doca_data ud = { .u64 = 0 };

	return doca_sync_event_task_wait_eq_alloc_init(se, v, UINT64_MAX, ud, &t) == DOCA_SUCCESS &&
	       doca_task_submit(doca_sync_event_task_wait_eq_as_doca_task(t)) == DOCA_SUCCESS;
}

/* Sleeps on the PE's notification handle until a callback ran (at most @ms). */
static bool sleep_until_done(struct ctxw *w, unsigned int want, int ms)
{
	doca_notification_handle_t h;
	uint64_t end = now_ns(CLOCK_MONOTONIC) + (uint64_t)ms * MS;

	if (doca_pe_get_notification_handle(w->pe, &h) != DOCA_SUCCESS)
		return false;
	while (w->ok + w->err < want) {
		struct pollfd p = { .fd = h, .events = POLLIN };
		int64_t left = (int64_t)(end - now_ns(CLOCK_MONOTONIC));

		if (left <= 0)
			return false;
		(void)doca_pe_progress(w->pe);
		if (w->ok + w->err >= want)
			break;
		(void)doca_pe_request_notification(w->pe);
		if (poll(&p, 1, (int)(left / (int64_t)MS) + 1) < 0 && errno != EINTR)
			return false;
		(void)doca_pe_clear_notification(w->pe, h);
	}
	return true;
}

static bool ctx_teardown(struct doca_sync_event *se, struct ctxw *w)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_RUNNING;
	doca_error_t r = doca_ctx_stop(doca_sync_event_as_ctx(se));

	for (int i = 0; i < 1000 && r == DOCA_ERROR_IN_PROGRESS && st != DOCA_CTX_STATE_IDLE; i++) {
		(void)doca_pe_progress(w->pe);
		(void)doca_ctx_get_state(doca_sync_event_as_ctx(se), &st);
	}
	return doca_sync_event_destroy(se) == DOCA_SUCCESS &&
	       doca_pe_destroy(w->pe) == DOCA_SUCCESS;
}

/* --------------------------------------------------------------------------------------- */
/* 1. Blocking waits on both sides: the NVIDIA sample's protocol (1 then 2)                  */

static int importer_blocking(int fd, void *arg)
{
	struct doca_dev *dev = tu_open_pci_or_null(HOST_PCI);
	struct doca_sync_event *se;
	uint8_t blob[1024];
	uint64_t c0, t0, cpu, wall;
	size_t sz;

	(void)arg;
	if (dev == NULL || !recv_blob(fd, blob, &sz))
		return 10;
	if (doca_sync_event_create_from_export(dev, blob, sz, &se) != DOCA_SUCCESS)
		return 11;
	if (doca_sync_event_start(se) != DOCA_SUCCESS || !send_byte(fd, 'r'))
		return 12;
	c0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	t0 = now_ns(CLOCK_MONOTONIC);
	if (doca_sync_event_wait_eq(se, 1, UINT64_MAX) != DOCA_SUCCESS)
		return 13;
	cpu = now_ns(CLOCK_PROCESS_CPUTIME_ID) - c0;
	wall = now_ns(CLOCK_MONOTONIC) - t0;
	if (wall < 200 * MS)
		return 14; /* woke before the exporter's update */
	if (cpu > 80 * MS) {
		fprintf(stderr, "importer: %llu ms CPU in %llu ms of waiting\n",
		        (unsigned long long)(cpu / MS), (unsigned long long)(wall / MS));
		return 15; /* it spun */
	}
	if (doca_sync_event_update_set(se, 2) != DOCA_SUCCESS)
		return 16;
	if (doca_sync_event_stop(se) != DOCA_SUCCESS ||
	    doca_sync_event_destroy(se) != DOCA_SUCCESS || doca_dev_close(dev) != DOCA_SUCCESS)
		return 17;
	return 0;
}

static void test_blocking_both_sides(void **state)
{
	struct exporter e;
	uint64_t c0, t0;
	int fd;
	pid_t child = spawn(importer_blocking, NULL, &fd);

	(void)state;
	assert_true(child > 0);
	assert_true(exporter_open(&e, true));
	assert_ok(doca_sync_event_export_to_remote_pci(e.se, e.dev, &e.blob, &e.sz));
	assert_true(send_blob(fd, e.blob, e.sz));
	assert_int_equal(recv_byte(fd), 'r');
	usleep(300 * 1000);
	assert_ok(doca_sync_event_update_set(e.se, 1));
	c0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	t0 = now_ns(CLOCK_MONOTONIC);
	assert_ok(doca_sync_event_wait_eq_yield(e.se, 2, UINT64_MAX));
	/* the wait lasted as long as the importer took, asleep */
	assert_true(now_ns(CLOCK_PROCESS_CPUTIME_ID) - c0 <
	            80 * MS + (now_ns(CLOCK_MONOTONIC) - t0) / 4);
	xu_assert_child_ok(child);
	close(fd);
	exporter_close(&e);
}

/* --------------------------------------------------------------------------------------- */
/* 2. Tasks on both sides, each PE asleep on its notification handle                          */

static int importer_tasks(int fd, void *arg)
{
	struct doca_dev *dev = tu_open_pci_or_null(HOST_PCI);
	struct doca_sync_event *se;
	struct doca_sync_event_task_notify_set *ns;
	union doca_data ud = { .u64 = 0 };
	struct ctxw w = { 0 };
	uint8_t blob[1024];
	uint64_t c0, t0;
	size_t sz;

	(void)arg;
	if (dev == NULL || !recv_blob(fd, blob, &sz))
		return 20;
	if (doca_sync_event_create_from_export(dev, blob, sz, &se) != DOCA_SUCCESS)
		return 21;
	if (!ctx_setup(se, &w) || !submit_wait(se, 1) || !send_byte(fd, 'r'))
		return 22;
	c0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	t0 = now_ns(CLOCK_MONOTONIC);
	if (!sleep_until_done(&w, 1, 10000) || w.ok != 1)
		return 23;
	if (now_ns(CLOCK_MONOTONIC) - t0 < 200 * MS)
		return 24;
	if (now_ns(CLOCK_PROCESS_CPUTIME_ID) - c0 > 80 * MS)
		return 25;
	if (doca_sync_event_task_notify_set_alloc_init(se, 2, ud, &ns) != DOCA_SUCCESS ||
	    doca_task_submit(doca_sync_event_task_notify_set_as_doca_task(ns)) != DOCA_SUCCESS)
		return 26;
	if (!sleep_until_done(&w, 2, 5000))
		return 27;
	if (!ctx_teardown(se, &w) || doca_dev_close(dev) != DOCA_SUCCESS)
		return 28;
	return 0;
}

static void test_tasks_both_sides(void **state)
{
	struct exporter e;
	struct ctxw w = { 0 };
	uint64_t c0, t0;
	int fd;
	pid_t child = spawn(importer_tasks, NULL, &fd);

	(void)state;
	assert_true(child > 0);
	assert_true(exporter_open(&e, false));
	assert_true(ctx_setup(e.se, &w));
	assert_ok(doca_sync_event_export_to_remote_pci(e.se, e.dev, &e.blob, &e.sz));
	assert_true(submit_wait(e.se, 2));
	assert_true(send_blob(fd, e.blob, e.sz));
	assert_int_equal(recv_byte(fd), 'r');
	usleep(300 * 1000);
	assert_ok(doca_sync_event_update_set(e.se, 1));
	/* the importer's notify-set task wakes this PE through its eventfd */
	c0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	t0 = now_ns(CLOCK_MONOTONIC);
	assert_true(sleep_until_done(&w, 1, 10000));
	assert_int_equal(w.ok, 1);
	assert_true(now_ns(CLOCK_PROCESS_CPUTIME_ID) - c0 <
	            80 * MS + (now_ns(CLOCK_MONOTONIC) - t0) / 4);
	xu_assert_child_ok(child);
	close(fd);
	assert_true(ctx_teardown(e.se, &w));
	(void)doca_dev_close(e.dev);
}

/* --------------------------------------------------------------------------------------- */
/* 3. The exporter goes away: stop (revocation) or death                                     */

/* Child exporter: exports, sends the blob, then on 's' stops the event, on 'k' dies. */
static int exporter_child(int fd, void *arg)
{
	struct exporter e;
	char c;

	(void)arg;
	if (!exporter_open(&e, true) ||
	    doca_sync_event_export_to_remote_pci(e.se, e.dev, &e.blob, &e.sz) != DOCA_SUCCESS ||
	    !send_blob(fd, e.blob, e.sz))
		return 30;
	c = recv_byte(fd);
	if (c == 'x' && (dup2(fd, 0) != 0 || dup2(fd, 1) != 1))
		return 32;
	if (c == 'x') /* another program: the event and its page go (close on exec) */
		execl("/bin/sh", "sh", "-c", "echo x; read y", (char *)NULL);
	usleep(200 * 1000);
	if (c == 'k')
		raise(SIGKILL);
	if (c == 's' && doca_sync_event_stop(e.se) != DOCA_SUCCESS)
		return 31;
	(void)recv_byte(fd); /* until the parent closes */
	exporter_close(&e);
	return 0;
}

static struct doca_sync_event *import_from(int fd, struct doca_dev **dev, bool start)
{
	struct doca_sync_event *se;
	uint8_t blob[1024];
	size_t sz;

	*dev = tu_open_pci_or_null(HOST_PCI);
	assert_non_null(*dev);
	assert_true(recv_blob(fd, blob, &sz));
	assert_ok(doca_sync_event_create_from_export(*dev, blob, sz, &se));
	if (start)
		assert_ok(doca_sync_event_start(se));
	return se;
}

static void test_exporter_stops(void **state)
{
	struct doca_dev *dev;
	struct doca_sync_event *se;
	uint64_t t0, v, f;
	int fd, status;
	pid_t child = spawn(exporter_child, NULL, &fd);

	(void)state;
	assert_true(child > 0);
	se = import_from(fd, &dev, true);
	assert_true(send_byte(fd, 's'));
	t0 = now_ns(CLOCK_MONOTONIC);
	assert_doca(DOCA_ERROR_CONNECTION_ABORTED, doca_sync_event_wait_eq(se, 5, UINT64_MAX));
	/* woken by the revocation itself, not by a periodic check */
	assert_true(now_ns(CLOCK_MONOTONIC) - t0 < 1000 * MS);
	assert_ok(doca_sync_event_get(se, &v));
	assert_doca(DOCA_ERROR_CONNECTION_ABORTED, doca_sync_event_update_add(se, 1, &f));
	close(fd);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_ok(doca_sync_event_stop(se));
	assert_ok(doca_sync_event_destroy(se));
	assert_ok(doca_dev_close(dev));
}

static void test_exporter_dies_blocking(void **state)
{
	struct doca_dev *dev;
	struct doca_sync_event *se;
	uint64_t t0;
	int fd, status;
	pid_t child = spawn(exporter_child, NULL, &fd);

	(void)state;
	assert_true(child > 0);
	se = import_from(fd, &dev, true);
	assert_ok(doca_sync_event_update_set(se, 3)); /* alive: fine */
	assert_true(send_byte(fd, 'k'));
	t0 = now_ns(CLOCK_MONOTONIC);
	assert_doca(DOCA_ERROR_CONNECTION_ABORTED, doca_sync_event_wait_eq(se, 5, UINT64_MAX));
	assert_true(now_ns(CLOCK_MONOTONIC) - t0 < 3000 * MS);
	assert_doca(DOCA_ERROR_CONNECTION_ABORTED, doca_sync_event_update_set(se, 4));
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	close(fd);
	assert_ok(doca_sync_event_stop(se));
	assert_ok(doca_sync_event_destroy(se));
	assert_ok(doca_dev_close(dev));
}

/* An exporter that runs another program (exec) is gone as if it exited. */
static void test_exporter_execs(void **state)
{
	struct doca_dev *dev;
	struct doca_sync_event *se;
	int fd, status;
	pid_t child = spawn(exporter_child, NULL, &fd);

	(void)state;
	assert_true(child > 0);
	se = import_from(fd, &dev, true);
	assert_ok(doca_sync_event_update_set(se, 3)); /* alive: fine */
	assert_true(send_byte(fd, 'x'));
	assert_int_equal(recv_byte(fd), 'x'); /* the shell runs: the exec is done */
	usleep(20 * 1000); /* past the importer's 10 ms between liveness checks */
	assert_doca(DOCA_ERROR_CONNECTION_ABORTED, doca_sync_event_update_set(se, 4));
	assert_doca(DOCA_ERROR_CONNECTION_ABORTED, doca_sync_event_wait_eq(se, 5, UINT64_MAX));
	close(fd); /* the shell's read ends */
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	assert_ok(doca_sync_event_stop(se));
	assert_ok(doca_sync_event_destroy(se));
	assert_ok(doca_dev_close(dev));
}

static void test_exporter_dies_task(void **state)
{
	struct doca_dev *dev;
	struct doca_sync_event *se;
	struct ctxw w = { 0 };
	uint64_t end;
	int fd, status;
	pid_t child = spawn(exporter_child, NULL, &fd);

	(void)state;
	assert_true(child > 0);
	se = import_from(fd, &dev, false);
	assert_true(ctx_setup(se, &w));
	assert_true(submit_wait(se, 5));
	assert_true(send_byte(fd, 'k'));
	/* a polling program learns it at a progress call (the dead exporter cannot signal) */
	end = now_ns(CLOCK_MONOTONIC) + 5000 * MS;
	while (w.ok + w.err == 0 && now_ns(CLOCK_MONOTONIC) < end) {
		(void)doca_pe_progress(w.pe);
		usleep(1000);
	}
	assert_int_equal(w.err, 1);
	assert_int_equal(w.last, DOCA_ERROR_CONNECTION_ABORTED);
	assert_int_equal(waitpid(child, &status, 0), child);
	close(fd);
	assert_true(ctx_teardown(se, &w));
	assert_ok(doca_dev_close(dev));
}

/* An event-driven importer: the exporter's SIGKILL wakes its armed PE (review finding 4). */
static void test_exporter_dies_armed(void **state)
{
	struct doca_dev *dev;
	struct doca_sync_event *se;
	struct ctxw w = { 0 };
	doca_notification_handle_t h;
	struct pollfd p = { .events = POLLIN };
	uint64_t t0;
	int fd, status;
	pid_t child = spawn(exporter_child, NULL, &fd);

	(void)state;
	assert_true(child > 0);
	se = import_from(fd, &dev, false);
	assert_true(ctx_setup(se, &w));
	assert_ok(doca_pe_get_notification_handle(w.pe, &h));
	p.fd = h;
	assert_true(submit_wait(se, 5));
	(void)doca_pe_progress(w.pe);
	assert_ok(doca_pe_request_notification(w.pe));
	assert_int_equal(poll(&p, 1, 0), 0); /* nothing yet: it sleeps */
	t0 = now_ns(CLOCK_MONOTONIC);
	assert_true(send_byte(fd, 'k')); /* dies 200 ms later */
	assert_int_equal(poll(&p, 1, 5000), 1);
	assert_true(now_ns(CLOCK_MONOTONIC) - t0 < 3000 * MS);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_ok(doca_pe_clear_notification(w.pe, h));
	assert_true(sleep_until_done(&w, 1, 3000));
	assert_int_equal(w.err, 1);
	assert_int_equal(w.last, DOCA_ERROR_CONNECTION_ABORTED);
	/* nothing pending: the dead exporter's pidfd no longer wakes the PE */
	while (doca_pe_progress(w.pe))
		;
	assert_ok(doca_pe_request_notification(w.pe));
	assert_int_equal(poll(&p, 1, 50), 0);
	close(fd);
	assert_true(ctx_teardown(se, &w));
	assert_ok(doca_dev_close(dev));
}

/* --------------------------------------------------------------------------------------- */
/* 4. An importer that dies while its PE waits: the exporter carries on                       */

static int importer_dies(int fd, void *arg)
{
	struct doca_dev *dev = tu_open_pci_or_null(HOST_PCI);
	struct doca_sync_event *se;
	struct ctxw w = { 0 };
	uint8_t blob[1024];
	size_t sz;

	(void)arg;
	if (dev == NULL || !recv_blob(fd, blob, &sz) ||
	    doca_sync_event_create_from_export(dev, blob, sz, &se) != DOCA_SUCCESS)
		return 40;
	if (!ctx_setup(se, &w) || !submit_wait(se, 99))
		return 41;
	(void)doca_pe_progress(w.pe); /* armed: its slot names this process */
	send_byte(fd, 'r');
	raise(SIGKILL);
	return 42;
}

static void test_importer_dies(void **state)
{
	struct exporter e;
	uint64_t v;
	int fd, status;
	pid_t child = spawn(importer_dies, NULL, &fd);

	(void)state;
	assert_true(child > 0);
	assert_true(exporter_open(&e, true));
	assert_ok(doca_sync_event_export_to_remote_pci(e.se, e.dev, &e.blob, &e.sz));
	assert_true(send_blob(fd, e.blob, e.sz));
	assert_int_equal(recv_byte(fd), 'r');
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFSIGNALED(status));
	/* updates try to wake the dead process's PE: skipped, nothing breaks */
	for (uint64_t i = 1; i <= 3; i++)
		assert_ok(doca_sync_event_update_set(e.se, i));
	assert_ok(doca_sync_event_get(e.se, &v));
	assert_int_equal(v, 3);
	assert_ok(doca_sync_event_wait_eq(e.se, 3, UINT64_MAX));
	close(fd);
	exporter_close(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blocking_both_sides),
		cmocka_unit_test(test_tasks_both_sides),
		cmocka_unit_test(test_exporter_stops),
		cmocka_unit_test(test_exporter_dies_blocking),
		cmocka_unit_test(test_exporter_execs),
		cmocka_unit_test(test_exporter_dies_task),
		cmocka_unit_test(test_exporter_dies_armed),
		cmocka_unit_test(test_importer_dies),
	};

	if (!xu_kernel_allows()) {
		printf("skipped: the kernel does not let this process reach a child's memory\n");
		return ODMA_TEST_SKIP;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
