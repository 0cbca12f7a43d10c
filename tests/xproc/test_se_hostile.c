/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * A sync event against a hostile peer (issue #19 item 5): tests/xproc/se_hostile.c, a program
 * with no odma library, edits the event's shared page by hand. This process is the victim:
 *  - as the exporter, with slots forged to name descriptors of its own (a data file, the
 *    page's memfd) and of the hostile process: 20 updates write nothing into any of them, and
 *    one line is logged; the page cannot be shrunk or grown (sealed), so no SIGBUS;
 *  - as an importer of a hostile exporter's page, with slots forged to name a file of its
 *    own: 20 updates write nothing into it, one line is logged;
 *  - as an importer, of a page that is not sealed: refused, with one line naming the rule;
 *  - as the exporter, with every wake-up slot marked claimed: its waiting task gets no slot
 *    (one line) and still completes at a progress call.
 *  - as the exporter, with the sleeper count kept at zero: its thread asleep in wait_gt still
 *    returns after its own update (within 100 ms, not never);
 *  - as the exporter, with its armed bit kept at zero: its PE asleep on the notification
 *    handle still wakes for its waiting task (within a second, not never);
 *  - as the exporter, with the revoked flag set by the peer: its thread blocked in wait_gt
 *    sleeps (it spun on a CPU), and its own update still ends the wait.
 * argv[1]: the se_hostile program.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <doca_dev.h>
#include <doca_ctx.h>
#include <doca_log.h>
#include <doca_pe.h>
#include <doca_sync_event.h>

#include "test_util.h"

#define DPU_PCI "03:00.0"
#define HOST_PCI "b1:00.0"
#define ROUNDS 20

static const char *hostile_exe;
static FILE *log_file;

static void log_capture(void)
{
	struct doca_log_backend *be;

	log_file = tmpfile();
	assert_non_null(log_file);
	assert_ok(doca_log_backend_create_with_file_sdk(log_file, &be));
	assert_ok(doca_log_backend_set_sdk_level(be, DOCA_LOG_LEVEL_WARNING));
}

/* Lines of the captured log containing @needle. */
static int log_count(const char *needle)
{
	char line[4096];
	int n = 0;

	fflush(log_file);
	rewind(log_file);
	while (fgets(line, sizeof(line), log_file) != NULL)
		n += strstr(line, needle) != NULL;
	fseek(log_file, 0, SEEK_END);
	return n;
}

struct hostile {
	pid_t pid;
	int to, from; /* its stdin, its stdout */
};

/* Starts se_hostile with @args (NULL-terminated after argv[0]) on two pipes. */
static void hostile_start(struct hostile *h, char *const *args)
{
	int in[2], out[2];

	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	h->pid = fork();
	assert_true(h->pid >= 0);
	if (h->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		tu_execv(hostile_exe, args);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	h->to = in[1];
	h->from = out[0];
}

static int hostile_end(struct hostile *h)
{
	int st;

	close(h->to);
	assert_int_equal(waitpid(h->pid, &st, 0), h->pid);
	close(h->from);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static char get_byte(int fd)
{
	char c = 0;

	return read(fd, &c, 1) == 1 ? c : 0;
}

static void to_hex(const uint8_t *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

static struct doca_sync_event *exported_event(struct doca_dev *dev, const uint8_t **blob,
                                              size_t *sz)
{
	struct doca_sync_event *se;

	assert_ok(doca_sync_event_create(&se));
	assert_ok(doca_sync_event_add_publisher_location_remote_pci(se));
	assert_ok(doca_sync_event_add_subscriber_location_cpu(se, dev));
	assert_ok(doca_sync_event_start(se));
	assert_ok(doca_sync_event_export_to_remote_pci(se, dev, blob, sz));
	return se;
}

/* Forged wake-up slots and a resize of the page: the exporter writes nowhere, survives. */
static void test_forged_slots_and_resize(void **state)
{
	static const char data[] = "the exporter's own data file: must stay as it is";
	char tmpl[] = "/tmp/odma-sec-misc-se.XXXXXX", back[sizeof(data)], hex[256], fdarg[16];
	struct doca_dev *dpu = tu_open_dev(DPU_PCI), *host = tu_open_dev(HOST_PCI);
	struct doca_sync_event *se, *imp;
	struct hostile h;
	const uint8_t *blob;
	uint64_t v, fetched;
	size_t sz;
	int dfd;

	(void)state;
	se = exported_event(dpu, &blob, &sz);
	assert_int_equal(sz, 88);
	dfd = mkostemp(tmpl, O_CLOEXEC);
	assert_true(dfd >= 0);
	unlink(tmpl);
	assert_int_equal(write(dfd, data, sizeof(data)), sizeof(data));
	to_hex(blob, sz, hex);
	snprintf(fdarg, sizeof(fdarg), "%d", dfd);
	hostile_start(&h, (char *const[]){ "se_hostile", "forge", hex, fdarg, "20", NULL });
	for (int r = 0; r < ROUNDS; r++) {
		assert_int_equal(get_byte(h.from), 'a'); /* slots forged and armed */
		assert_ok(doca_sync_event_update_add(se, 1, &fetched));
		assert_int_equal(fetched, (uint64_t)r);
		assert_int_equal(write(h.to, "k", 1), 1);
	}
	/* the page is sealed: neither shrinking nor growing it works */
	assert_int_equal(get_byte(h.from), 's');
	assert_ok(doca_sync_event_update_add(se, 1, &fetched)); /* the page is still there */
	assert_ok(doca_sync_event_get(se, &v));
	assert_int_equal(v, ROUNDS + 1);
	/* the hostile process's own file was not written into either */
	assert_int_equal(hostile_end(&h), 0);

	/* nothing landed in our file, and the page (its magic and key) is intact */
	assert_int_equal(lseek(dfd, 0, SEEK_END), sizeof(data));
	assert_int_equal(pread(dfd, back, sizeof(back), 0), sizeof(back));
	assert_memory_equal(back, data, sizeof(data));
	close(dfd);
	assert_ok(doca_sync_event_create_from_export(host, blob, sz, &imp));
	assert_ok(doca_sync_event_start(imp));
	assert_ok(doca_sync_event_get(imp, &v));
	assert_int_equal(v, ROUNDS + 1);
	assert_ok(doca_sync_event_stop(imp));
	assert_ok(doca_sync_event_destroy(imp));
	/* one line for the forged slots, whatever their number */
	assert_int_equal(log_count("forged it"), 1);

	assert_ok(doca_sync_event_stop(se));
	assert_ok(doca_sync_event_destroy(se));
	assert_ok(doca_dev_close(dpu));
	assert_ok(doca_dev_close(host));
}

/* Reads se_hostile's blob line (hex) into @out. */
static void read_blob_line(struct hostile *h, uint8_t *out, size_t n)
{
	char line[256];
	FILE *f = fdopen(dup(h->from), "r");

	assert_non_null(f);
	setvbuf(f, NULL, _IONBF, 0); /* read no further than the line: bytes follow */
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	assert_int_equal(strlen(line), 2 * n + 1);
	for (size_t i = 0; i < n; i++) {
		unsigned int b;

		assert_int_equal(sscanf(line + 2 * i, "%2x", &b), 1);
		out[i] = (uint8_t)b;
	}
}

/* A hostile exporter forges slots naming the importer's own file: nothing is written. */
static void test_importer_forged_slots(void **state)
{
	static const char data[] = "the importer's own data file: must stay as it is";
	char tmpl[] = "/tmp/odma-sec-misc-si.XXXXXX", back[sizeof(data)], hex[256], fdarg[16];
	struct doca_dev *dpu = tu_open_dev(DPU_PCI), *host = tu_open_dev(HOST_PCI);
	struct doca_sync_event *se, *imp;
	int before = log_count("forged it"), dfd;
	uint8_t forged[88];
	struct hostile h;
	const uint8_t *blob;
	uint64_t fetched;
	size_t sz;

	(void)state;
	se = exported_event(dpu, &blob, &sz); /* the template of the hostile's blob */
	to_hex(blob, sz, hex);
	dfd = mkostemp(tmpl, O_CLOEXEC);
	assert_true(dfd >= 0);
	unlink(tmpl);
	assert_int_equal(write(dfd, data, sizeof(data)), sizeof(data));
	snprintf(fdarg, sizeof(fdarg), "%d", dfd);
	hostile_start(&h,
	              (char *const[]){ "se_hostile", "sealed-exporter", hex, fdarg, "20", NULL });
	read_blob_line(&h, forged, sizeof(forged));
	/* sealed like odma's: imported */
	assert_ok(doca_sync_event_create_from_export(host, forged, sizeof(forged), &imp));
	assert_ok(doca_sync_event_start(imp));
	for (int r = 0; r < ROUNDS; r++) {
		assert_int_equal(get_byte(h.from), 'a');
		assert_ok(doca_sync_event_update_add(imp, 1, &fetched));
		assert_int_equal(fetched, (uint64_t)r);
		assert_int_equal(write(h.to, "k", 1), 1);
	}
	assert_int_equal(lseek(dfd, 0, SEEK_END), sizeof(data));
	assert_int_equal(pread(dfd, back, sizeof(back), 0), sizeof(back));
	assert_memory_equal(back, data, sizeof(data));
	close(dfd);
	assert_int_equal(log_count("forged it") - before, 1);
	assert_ok(doca_sync_event_stop(imp));
	assert_ok(doca_sync_event_destroy(imp));
	assert_int_equal(hostile_end(&h), 0);
	assert_ok(doca_sync_event_stop(se));
	assert_ok(doca_sync_event_destroy(se));
	assert_ok(doca_dev_close(dpu));
	assert_ok(doca_dev_close(host));
}

static unsigned int waits_done;

static void wait_done(struct doca_sync_event_task_wait_eq *t, union doca_data tud,
                      union doca_data cud)
{
	(void)tud;
	(void)cud;
	if (doca_task_get_status(doca_sync_event_task_wait_eq_as_doca_task(t)) == DOCA_SUCCESS)
		waits_done++;
	doca_task_free(doca_sync_event_task_wait_eq_as_doca_task(t));
}

#define SLOT_WAITS 40
/* An importer marks every wake-up slot of the page claimed: the exporter's waiting task gets
 * no slot (one line says so) and still completes at a progress call once the value holds. */
static void test_slots_all_taken(void **state)
{
	struct doca_dev *dpu = tu_open_dev(DPU_PCI);
	int before = log_count("wake-up slots of its page are taken");
	struct doca_sync_event_task_wait_eq *t;
	union doca_data ud = { .u64 = 0 };
	struct doca_sync_event *se;
	struct doca_pe *pe;
	const uint8_t *blob;
	struct hostile h;
	char hex[256];
	size_t sz;

	(void)state;
	waits_done = 0;
	assert_ok(doca_sync_event_create(&se));
	assert_ok(doca_sync_event_add_publisher_location_remote_pci(se));
	assert_ok(doca_sync_event_add_subscriber_location_cpu(se, dpu));
	assert_ok(doca_pe_create(&pe));
	assert_ok(doca_pe_connect_ctx(pe, doca_sync_event_as_ctx(se)));
	assert_ok(doca_sync_event_task_wait_eq_set_conf(se, wait_done, wait_done, SLOT_WAITS));
	assert_ok(doca_ctx_start(doca_sync_event_as_ctx(se)));
	assert_ok(doca_sync_event_export_to_remote_pci(se, dpu, &blob, &sz));
	to_hex(blob, sz, hex);
	hostile_start(&h, (char *const[]){ "se_hostile", "fill", hex, NULL });
	assert_int_equal(get_byte(h.from), 'a'); /* every slot marked claimed */

	assert_ok(doca_sync_event_task_wait_eq_alloc_init(se, 1, UINT64_MAX, ud, &t));
	assert_ok(doca_task_submit(doca_sync_event_task_wait_eq_as_doca_task(t)));
	assert_int_equal(log_count("wake-up slots of its page are taken") - before, 1);
	/* every further waiting task asks again: the peer's fill costs a burst of lines, no more */
	for (int i = 1; i < SLOT_WAITS; i++) {
		assert_ok(doca_sync_event_task_wait_eq_alloc_init(se, 1, UINT64_MAX, ud, &t));
		assert_ok(doca_task_submit(doca_sync_event_task_wait_eq_as_doca_task(t)));
	}
	assert_in_range(log_count("wake-up slots of its page are taken") - before, 1, 11);
	(void)doca_pe_progress(pe);
	assert_int_equal(waits_done, 0); /* the value is 0 */
	assert_ok(doca_sync_event_update_set(se, 1));
	for (int i = 0; i < 2000 && waits_done < SLOT_WAITS; i++) {
		(void)doca_pe_progress(pe);
		usleep(1000);
	}
	assert_int_equal(waits_done, SLOT_WAITS);

	assert_int_equal(hostile_end(&h), 0);
	assert_ok(doca_ctx_stop(doca_sync_event_as_ctx(se)));
	assert_ok(doca_sync_event_destroy(se));
	assert_ok(doca_pe_destroy(pe));
	assert_ok(doca_dev_close(dpu));
}

struct blocked_wait {
	struct doca_sync_event *se;
	doca_error_t r;
	uint64_t cpu_ns; /* the waiting thread's CPU time in the wait */
	bool done;       /* atomic */
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *blocked_wait_run(void *arg)
{
	struct blocked_wait *w = arg;
	uint64_t t0 = thread_cpu_ns();

	w->r = doca_sync_event_wait_gt(w->se, 0, UINT64_MAX);
	w->cpu_ns = thread_cpu_ns() - t0;
	__atomic_store_n(&w->done, true, __ATOMIC_SEQ_CST);
	return NULL;
}

/* Whether *@flag is set within @ms milliseconds. */
static bool set_within(const bool *flag, int ms)
{
	for (int i = 0; i < ms && !__atomic_load_n(flag, __ATOMIC_SEQ_CST); i++)
		usleep(1000);
	return __atomic_load_n(flag, __ATOMIC_SEQ_CST);
}

/*
 * An event of @dpu exported to a hostile importer (se_hostile @mode, which has mapped its
 * page), and a thread of ours blocked in its wait_gt (*@th).
 */
static void waiter_beside_hostile(struct doca_dev *dpu, const char *mode, struct blocked_wait *w,
                                  struct hostile *h, pthread_t *th)
{
	const uint8_t *blob;
	char hex[256];
	size_t sz;

	w->se = exported_event(dpu, &blob, &sz);
	to_hex(blob, sz, hex);
	hostile_start(h, (char *const[]){ "se_hostile", (char *)mode, hex, NULL });
	assert_int_equal(get_byte(h->from), 'a');
	assert_int_equal(pthread_create(th, NULL, blocked_wait_run, w), 0);
}

/*
 * After @ms with the peer at work, the waiter still waits; the exporter's own update (1) then
 * ends its wait within 3 s.
 */
static void waiter_woken_by_update(struct blocked_wait *w, pthread_t th, unsigned int ms)
{
	usleep(ms * 1000);
	assert_false(__atomic_load_n(&w->done, __ATOMIC_SEQ_CST));
	assert_ok(doca_sync_event_update_set(w->se, 1)); /* the exporter's own handle works on */
	assert_true(set_within(&w->done, 3000));
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_ok(w->r);
}

/* The end of waiter_beside_hostile: the peer gone, the event and device closed. */
static void waiter_beside_hostile_end(struct doca_dev *dpu, struct blocked_wait *w,
                                      struct hostile *h)
{
	assert_int_equal(hostile_end(h), 0);
	assert_ok(doca_sync_event_stop(w->se));
	assert_ok(doca_sync_event_destroy(w->se));
	assert_ok(doca_dev_close(dpu));
}

/*
 * An importer keeps the sleeper count of the page at zero: the exporter's own update then
 * skips the futex wake-up, and its thread asleep in wait_gt must still see the value.
 */
static void test_sleepers_zeroed(void **state)
{
	struct doca_dev *dpu = tu_open_dev(DPU_PCI);
	struct blocked_wait w = { 0 };
	struct hostile h;
	pthread_t th;

	(void)state;
	waiter_beside_hostile(dpu, "mute", &w, &h, &th);
	/* asleep on the futex by then, the count zeroed under it */
	waiter_woken_by_update(&w, th, 200);
	waiter_beside_hostile_end(dpu, &w, &h);
}

/*
 * The same peer, with our thread asleep in wait_gt since before the event was exported: that
 * thread must not count on being woken either.
 */
static void test_sleepers_zeroed_waiting_before_export(void **state)
{
	struct doca_dev *dpu = tu_open_dev(DPU_PCI);
	struct blocked_wait w = { 0 };
	const uint8_t *blob;
	struct hostile h;
	char hex[256];
	pthread_t th;
	size_t sz;

	(void)state;
	assert_ok(doca_sync_event_create(&w.se));
	assert_ok(doca_sync_event_add_publisher_location_remote_pci(w.se));
	assert_ok(doca_sync_event_add_subscriber_location_cpu(w.se, dpu));
	assert_ok(doca_sync_event_start(w.se));
	assert_int_equal(pthread_create(&th, NULL, blocked_wait_run, &w), 0);
	usleep(50 * 1000); /* asleep on the futex by then, the event not exported */
	assert_ok(doca_sync_event_export_to_remote_pci(w.se, dpu, &blob, &sz));
	to_hex(blob, sz, hex);
	hostile_start(&h, (char *const[]){ "se_hostile", "mute", hex, NULL });
	assert_int_equal(get_byte(h.from), 'a');
	waiter_woken_by_update(&w, th, 200);
	waiter_beside_hostile_end(dpu, &w, &h);
}

/* A wait task for 1 submitted to context @se, its PE @pe then about to sleep. */
static void wait_asleep(struct doca_sync_event *se, struct doca_pe *pe)
{
	struct doca_sync_event_task_wait_eq *t;
	union doca_data ud = { .u64 = 0 };

	assert_ok(doca_sync_event_task_wait_eq_alloc_init(se, 1, UINT64_MAX, ud, &t));
	assert_ok(doca_task_submit(doca_sync_event_task_wait_eq_as_doca_task(t)));
	(void)doca_pe_progress(pe);
	assert_ok(doca_pe_request_notification(pe));
}

/*
 * The same peer keeps the armed bitmap at zero: the exporter's update writes no wake-up into
 * its PE's eventfd, and a program asleep on the PE's notification handle must still wake.
 * @wait_first: the wait is submitted and the PE asleep before the event is exported.
 */
static void armed_zeroed(bool wait_first)
{
	struct doca_dev *dpu = tu_open_dev(DPU_PCI);
	doca_notification_handle_t nh;
	struct doca_sync_event *se;
	struct doca_pe *pe;
	const uint8_t *blob;
	struct hostile h;
	struct pollfd p;
	char hex[256];
	size_t sz;

	waits_done = 0;
	assert_ok(doca_sync_event_create(&se));
	assert_ok(doca_sync_event_add_publisher_location_remote_pci(se));
	assert_ok(doca_sync_event_add_subscriber_location_cpu(se, dpu));
	assert_ok(doca_pe_create(&pe));
	assert_ok(doca_pe_get_notification_handle(pe, &nh));
	assert_ok(doca_pe_connect_ctx(pe, doca_sync_event_as_ctx(se)));
	assert_ok(doca_sync_event_task_wait_eq_set_conf(se, wait_done, wait_done, 2));
	assert_ok(doca_ctx_start(doca_sync_event_as_ctx(se)));
	if (wait_first)
		wait_asleep(se, pe);
	assert_ok(doca_sync_event_export_to_remote_pci(se, dpu, &blob, &sz));
	to_hex(blob, sz, hex);
	hostile_start(&h, (char *const[]){ "se_hostile", "mute", hex, NULL });
	assert_int_equal(get_byte(h.from), 'a');
	if (!wait_first)
		wait_asleep(se, pe);
	usleep(50 * 1000); /* the peer cleared our armed bit meanwhile */
	assert_ok(doca_sync_event_update_set(se, 1));
	p = (struct pollfd){ .fd = nh, .events = POLLIN };
	assert_int_equal(poll(&p, 1, 3000), 1);
	assert_ok(doca_pe_clear_notification(pe, nh));
	for (int i = 0; i < 100 && waits_done == 0; i++)
		(void)doca_pe_progress(pe);
	assert_int_equal(waits_done, 1);

	assert_int_equal(hostile_end(&h), 0);
	assert_ok(doca_ctx_stop(doca_sync_event_as_ctx(se)));
	assert_ok(doca_sync_event_destroy(se));
	assert_ok(doca_pe_destroy(pe));
	assert_ok(doca_dev_close(dpu));
}

static void test_armed_zeroed(void **state)
{
	(void)state;
	armed_zeroed(false);
}

/* The same with the PE asleep on its wait since before the export. */
static void test_armed_zeroed_waiting_before_export(void **state)
{
	(void)state;
	armed_zeroed(true);
}

/*
 * An importer sets the page's revoked flag: the exporter's thread blocked in wait_gt must keep
 * sleeping (the flag is its own to set), not spin on the CPU until the value moves.
 */
static void test_revoked_forged(void **state)
{
	struct doca_dev *dpu = tu_open_dev(DPU_PCI);
	struct blocked_wait w = { 0 };
	struct hostile h;
	pthread_t th;
	uint64_t v;

	(void)state;
	waiter_beside_hostile(dpu, "revoke", &w, &h, &th);
	waiter_woken_by_update(&w, th, 300);
	if (w.cpu_ns > 60 * 1000 * 1000ull)
		fail_msg("the waiter used %llu ms of CPU in 300 ms",
		         (unsigned long long)(w.cpu_ns / 1000000));
	assert_ok(doca_sync_event_get(w.se, &v));
	assert_int_equal(v, 1);
	waiter_beside_hostile_end(dpu, &w, &h);
}

/*
 * A hostile exporter (se_hostile MODE) hands out a blob that the import refuses with
 * INVALID_VALUE and one line holding @line; @then (or NULL) talks to the peer before it ends.
 */
static void import_refused(const char *mode, const char *line, void (*then)(struct hostile *h))
{
	struct doca_dev *dpu = tu_open_dev(DPU_PCI), *host = tu_open_dev(HOST_PCI);
	struct doca_sync_event *se, *imp = NULL;
	int before = log_count(line);
	uint8_t forged[88];
	struct hostile h;
	const uint8_t *blob;
	char hex[256];
	size_t sz;

	se = exported_event(dpu, &blob, &sz); /* a real blob: the template of the forged one */
	to_hex(blob, sz, hex);
	hostile_start(&h, (char *const[]){ "se_hostile", (char *)mode, hex, NULL });
	read_blob_line(&h, forged, sizeof(forged));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_create_from_export(host, forged, sizeof(forged), &imp));
	assert_null(imp);
	assert_int_equal(log_count(line) - before, 1);
	if (then != NULL)
		then(&h);
	assert_int_equal(hostile_end(&h), 0);
	assert_ok(doca_sync_event_stop(se));
	assert_ok(doca_sync_event_destroy(se));
	assert_ok(doca_dev_close(dpu));
	assert_ok(doca_dev_close(host));
}

/* A page that is not sealed (it could shrink under our mapping) is not imported. */
static void test_unsealed_page_refused(void **state)
{
	(void)state;
	import_refused("exporter", "not sealed against resizing", NULL);
}

static void fifo_never_opened(struct hostile *h)
{
	assert_int_equal(write(h->to, "k", 1), 1);
	assert_int_equal(get_byte(h->from), 'n'); /* no open of the FIFO was seen */
}

/*
 * A blob that names a descriptor other than an event page (here a FIFO of the hostile
 * exporter's) is refused before the importer opens it: opening a device, a FIFO or a FUSE file
 * has effects of its own, or waits on the file's server.
 */
static void test_non_memfd_not_opened(void **state)
{
	(void)state;
	import_refused("fifo-exporter", "does not name a sync event page", fifo_never_opened);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forged_slots_and_resize),
		cmocka_unit_test(test_importer_forged_slots),
		cmocka_unit_test(test_unsealed_page_refused),
		cmocka_unit_test(test_non_memfd_not_opened),
		cmocka_unit_test(test_slots_all_taken),
		cmocka_unit_test(test_sleepers_zeroed),
		cmocka_unit_test(test_sleepers_zeroed_waiting_before_export),
		cmocka_unit_test(test_armed_zeroed),
		cmocka_unit_test(test_armed_zeroed_waiting_before_export),
		cmocka_unit_test(test_revoked_forged),
	};

	if (argc < 2) {
		fprintf(stderr, "usage: test_se_hostile SE_HOSTILE\n");
		return 2;
	}
	hostile_exe = argv[1];
	signal(SIGPIPE, SIG_IGN);
	log_capture();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
