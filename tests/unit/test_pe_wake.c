/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * White-box checks of the wake-up contract every context type follows (issue #18, item 1;
 * docs/design.md, "Waking a sleeping PE"), with a fake type that has the three kinds of
 * source: a watched descriptor (a pipe), a deadline from its arm op, and a doorbell rung by
 * another thread. An armed PE's notification handle becomes readable for each, and stays
 * quiet once progress consumed them.
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "core/exec/exec.h"
#include "core/transport/transport.h"
#include "test_util.h"

struct fake {
	struct doca_ctx ctx;
	int pipe[2];
	uint64_t due_ns; /* a deadline its arm op reports (ODMA_WAKE_NEVER: none) */
	unsigned int timeouts, reads, rings;
	_Atomic uint32_t bell;
	int bell_fd;
	_Atomic unsigned int rung; /* work a ringer published */
	unsigned int arms;
};

static struct fake *fake_of(const struct doca_ctx *ctx)
{
	return (struct fake *)(uintptr_t)ctx;
}

static void fake_complete(struct doca_task *task, bool ok)
{
	(void)task;
	(void)ok;
}

static doca_error_t fake_submit(struct doca_task *task)
{
	(void)task;
	return DOCA_ERROR_NOT_SUPPORTED;
}

static bool fake_progress(struct doca_ctx *ctx)
{
	struct fake *f = fake_of(ctx);
	bool any = false;
	char c;

	doca_priv_bell_drain(&f->bell, f->bell_fd);
	if (atomic_exchange(&f->rung, 0) != 0) {
		f->rings++;
		any = true;
	}
	while (read(f->pipe[0], &c, 1) == 1) {
		f->reads++;
		any = true;
	}
	if (f->due_ns != ODMA_WAKE_NEVER && doca_priv_now_ns() >= f->due_ns) {
		f->due_ns = ODMA_WAKE_NEVER;
		f->timeouts++;
		any = true;
	}
	return any;
}

static uint64_t fake_arm(struct doca_ctx *ctx)
{
	struct fake *f = fake_of(ctx);

	f->arms++;
	doca_priv_bell_arm(&f->bell);
	if (atomic_load(&f->rung) != 0)
		return 0;
	return f->due_ns;
}

static const struct odma_ctx_ops fake_ops = {
	.name = "FAKE",
	.task_size = sizeof(struct doca_task),
	.complete = fake_complete,
	.submit = fake_submit,
	.progress = fake_progress,
	.no_task_conf = true,
	.arm = fake_arm,
};

static struct doca_pe *pe;
static struct fake f;
static int handle;

static int setup(void **state)
{
	(void)state;
	assert_ok(doca_pe_create(&pe));
	assert_ok(doca_priv_ctx_init(&f.ctx, &fake_ops, NULL));
	f.ctx.num_tasks = 1;
	assert_ok(doca_pe_connect_ctx(pe, &f.ctx));
	assert_ok(doca_ctx_start(&f.ctx));
	assert_int_equal(pipe2(f.pipe, O_NONBLOCK | O_CLOEXEC), 0);
	f.bell_fd = doca_priv_bell_open();
	assert_true(f.bell_fd >= 0);
	f.due_ns = ODMA_WAKE_NEVER;
	assert_ok(doca_priv_pe_watch(pe, f.pipe[0], EPOLLIN));
	assert_ok(doca_priv_pe_watch(pe, f.bell_fd, EPOLLIN));
	assert_ok(doca_pe_get_notification_handle(pe, &handle));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	assert_ok(doca_priv_pe_watch(pe, f.pipe[0], 0));
	assert_ok(doca_priv_pe_watch(pe, f.bell_fd, 0));
	close(f.pipe[0]);
	close(f.pipe[1]);
	close(f.bell_fd);
	assert_ok(doca_ctx_stop(&f.ctx));
	assert_ok(doca_priv_ctx_destroy(&f.ctx));
	assert_ok(doca_pe_destroy(pe));
	return 0;
}

static bool readable(int ms)
{
	struct pollfd p = { .fd = handle, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

/* Progress until nothing is left, arm; then the handle is quiet. */
static void settle(void)
{
	while (doca_pe_progress(pe))
		;
	assert_ok(doca_pe_request_notification(pe));
	assert_false(readable(0));
}

static void test_watched_descriptor(void **state)
{
	(void)state;
	settle();
	assert_int_equal(write(f.pipe[1], "x", 1), 1);
	assert_true(readable(10000));
	assert_ok(doca_pe_clear_notification(pe, 0));
	assert_true(doca_pe_progress(pe));
	assert_int_equal(f.reads, 1);
	settle(); /* consumed: level-triggered, so quiet again */
	/* not watched any more: a write leaves the handle quiet */
	assert_ok(doca_priv_pe_watch(pe, f.pipe[0], 0));
	assert_int_equal(write(f.pipe[1], "y", 1), 1);
	assert_false(readable(0));
	assert_ok(doca_priv_pe_watch(pe, f.pipe[0], EPOLLIN));
	assert_true(readable(10000));
	while (doca_pe_progress(pe))
		;
	assert_int_equal(f.reads, 2);
}

static void test_deadline(void **state)
{
	unsigned int arms = f.arms;

	(void)state;
	settle();
	f.due_ns = doca_priv_now_ns() + 20 * 1000000ull;
	assert_ok(doca_pe_request_notification(pe)); /* the arm op reports the deadline */
	assert_int_equal(f.arms, arms + 2);
	assert_true(readable(10000));
	assert_ok(doca_pe_clear_notification(pe, 0));
	assert_true(doca_pe_progress(pe));
	assert_int_equal(f.timeouts, 1);
	settle(); /* the timer that fired was consumed */
	/* a deadline already past: readable at once */
	f.due_ns = 1;
	assert_ok(doca_pe_request_notification(pe));
	assert_true(readable(0));
	assert_true(doca_pe_progress(pe));
	assert_int_equal(f.timeouts, 2);
	settle();
}

static void *ringer(void *arg)
{
	(void)arg;
	usleep(20000);
	atomic_store(&f.rung, 1);
	doca_priv_bell_ring(&f.bell, f.bell_fd);
	return NULL;
}

static void test_doorbell(void **state)
{
	pthread_t th;

	(void)state;
	settle();
	assert_int_equal(pthread_create(&th, NULL, ringer, NULL), 0);
	assert_true(readable(10000));
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_ok(doca_pe_clear_notification(pe, 0));
	assert_true(doca_pe_progress(pe));
	assert_int_equal(f.rings, 1);
	assert_int_equal(atomic_load(&f.bell), ODMA_BELL_IDLE); /* drained */
	/* not armed (drained, never re-armed): a ring writes nothing */
	atomic_store(&f.bell, ODMA_BELL_IDLE);
	doca_priv_bell_ring(&f.bell, f.bell_fd);
	assert_int_equal(atomic_load(&f.bell), ODMA_BELL_IDLE);
	assert_false(readable(0));
	/* work published without a ring before the arm: the arm op sees it, nothing is lost */
	atomic_store(&f.rung, 1);
	assert_ok(doca_pe_request_notification(pe));
	assert_true(readable(0));
	assert_true(doca_pe_progress(pe));
	assert_int_equal(f.rings, 2);
	settle();
}

/*
 * Arm-wait-progress cycles until the armed handle is quiet (-1: still readable after 4),
 * the loop of an event-driven program with nothing to do.
 */
static int cycles_to_quiet(void)
{
	for (int i = 0; i < 4; i++) {
		while (doca_pe_progress(pe))
			;
		assert_ok(doca_pe_request_notification(pe));
		if (!readable(0))
			return i;
		assert_ok(doca_pe_clear_notification(pe, 0));
	}
	return -1;
}

/*
 * A ring racing the owner's drain (review of main, finding 2): the ringer's CAS to RUNG, the
 * owner's drain (its read finds nothing yet), then the ringer's write. The count must not
 * outlive the next arm, or an event loop spins with nothing to do.
 */
static void test_doorbell_ring_races_drain(void **state)
{
	(void)state;
	settle();
	atomic_store(&f.rung, 1);              /* the ringer publishes its work */
	atomic_store(&f.bell, ODMA_BELL_RUNG); /* its CAS ARMED -> RUNG */
	assert_true(doca_pe_progress(pe));     /* the owner drains: nothing to read yet */
	assert_int_equal(f.rings, 3);
	doca_priv_bell_force(f.bell_fd);     /* the ringer's write lands now */
	assert_true(cycles_to_quiet() >= 0); /* at most spurious wake-ups, then quiet */
	assert_int_equal(cycles_to_quiet(), 0);
}

/*
 * A peer that holds the eventfd and writes the word at will: whatever it leaves, the handle
 * is quiet again after one spurious wake-up, and a forced ring of this process still wakes.
 */
static void test_doorbell_hostile_word(void **state)
{
	const uint32_t words[] = { ODMA_BELL_IDLE, ODMA_BELL_ARMED, ODMA_BELL_RUNG, 77u };

	(void)state;
	settle();
	for (unsigned int i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		doca_priv_bell_force(f.bell_fd);
		atomic_store(&f.bell, words[i]);
		assert_true(readable(0));
		assert_ok(doca_pe_clear_notification(pe, 0));
		assert_in_range(cycles_to_quiet(), 0, 1);
	}
	/* a word set to RUNG or IDLE with no write: an honest ring after the next arm wakes */
	for (unsigned int i = 0; i < 2; i++) {
		atomic_store(&f.bell, i == 0 ? ODMA_BELL_RUNG : ODMA_BELL_IDLE);
		assert_int_equal(cycles_to_quiet(), 0);
		atomic_store(&f.rung, 1);
		doca_priv_bell_ring(&f.bell, f.bell_fd);
		assert_true(readable(0));
		assert_ok(doca_pe_clear_notification(pe, 0));
		assert_true(doca_pe_progress(pe));
		assert_int_equal(cycles_to_quiet(), 0);
	}
	/* rewritten after our arm: an honest ring skips its write, a forced one does not */
	atomic_store(&f.bell, ODMA_BELL_IDLE);
	atomic_store(&f.rung, 1);
	doca_priv_bell_force(f.bell_fd);
	assert_true(readable(0));
	assert_ok(doca_pe_clear_notification(pe, 0));
	assert_in_range(cycles_to_quiet(), 0, 1);
	assert_int_equal(cycles_to_quiet(), 0);
}

/*
 * A ring inside a transport round is written when the round ends (odma_tp_wake_hold). The
 * owner may close its doorbell before that (a Comch consumer destroyed on its PE thread just
 * after the peer's last FP_DATA rang it) and the number go to another file: the held write
 * must reach the doorbell it was for, never 8 bytes into that file.
 */
static void test_held_ring_outlives_close(void **state)
{
	_Atomic uint32_t word = ODMA_BELL_IDLE;
	int fd = doca_priv_bell_open(), p[2];
	uint64_t v;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(pipe2(p, O_NONBLOCK | O_CLOEXEC), 0);
	doca_priv_bell_arm(&word);
	odma_tp_wake_hold(true); /* the transport thread's round */
	doca_priv_bell_ring(&word, fd);
	assert_int_equal(atomic_load(&word), ODMA_BELL_RUNG);
	close(fd);                                       /* the owner's destroy */
	assert_int_equal(dup2(p[1], fd), fd);            /* its number reused by another file */
	odma_tp_wake_hold(false);                        /* the round ends */
	assert_int_equal(read(p[0], &v, sizeof(v)), -1); /* nothing landed in the pipe */
	close(fd);
	close(p[0]);
	close(p[1]);
}

/* The handle is one descriptor that a program's own epoll set can hold. */
static void test_nested_epoll(void **state)
{
	struct epoll_event ev = { .events = EPOLLIN }, out;
	int ep = epoll_create1(EPOLL_CLOEXEC);

	(void)state;
	assert_true(ep >= 0);
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, handle, &ev), 0);
	settle();
	assert_int_equal(epoll_wait(ep, &out, 1, 0), 0);
	assert_int_equal(write(f.pipe[1], "z", 1), 1);
	assert_int_equal(epoll_wait(ep, &out, 1, 10000), 1);
	while (doca_pe_progress(pe))
		;
	assert_ok(doca_pe_request_notification(pe));
	assert_int_equal(epoll_wait(ep, &out, 1, 0), 0);
	close(ep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_watched_descriptor),
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_doorbell),
		cmocka_unit_test(test_doorbell_ring_races_drain),
		cmocka_unit_test(test_doorbell_hostile_word),
		cmocka_unit_test(test_nested_epoll),
		cmocka_unit_test(test_held_ring_outlives_close),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
