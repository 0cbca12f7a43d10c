/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The fault-injecting test transport (tp_fault.h). Each io the caller starts is copied into an
 * inner io the wrapped row moves; what the caller sees of it is decided here: passed on at
 * once, held and completed later by this row's thread (delay, reorder), never started and
 * failed at the deadline (drop), or failed (kill). The thread completes held ios as a network
 * transport's thread would: on its own thread, each exactly once.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <time.h>

#include "tp_fault.h"

struct tpf_io {
	struct odma_tp_io inner; /* what the wrapped row moves */
	struct odma_tp_io *outer;
	doca_error_t status;
	uint64_t due_ns;
	struct tpf_io *next;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool running, stop;
	const struct odma_tp_ops *inner;
	enum tp_fault_mode mode;
	unsigned int arg;
	struct tpf_io *held; /* newest first */
	unsigned int nheld, in_flight, completed, failed;
} F = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static struct odma_tp_ops tpf_ops;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void tpf_complete(struct tpf_io *f)
{
	struct odma_tp_io *outer = f->outer;
	doca_error_t st = f->status;

	outer->refused = f->inner.refused; /* an answered failure, as the inner row said */
	free(f);
	pthread_mutex_lock(&F.lock);
	F.in_flight--;
	F.completed++;
	F.failed += st != DOCA_SUCCESS;
	pthread_mutex_unlock(&F.lock);
	outer->done(outer, st);
}

/* Holds @f until @due (lock held); a reorder window that filled is due now, newest first. */
static void tpf_hold_locked(struct tpf_io *f, uint64_t due)
{
	f->due_ns = due;
	f->next = F.held;
	F.held = f;
	F.nheld++;
	if (F.mode == TPF_REORDER && F.nheld >= F.arg)
		for (struct tpf_io *h = F.held; h != NULL; h = h->next)
			h->due_ns = 0;
	pthread_cond_signal(&F.cond);
}

/* The wrapped row finished the inner io. */
static void tpf_inner_done(struct odma_tp_io *io, doca_error_t st)
{
	struct tpf_io *f = io->arg;
	uint64_t due;

	f->status = st;
	pthread_mutex_lock(&F.lock);
	if (F.mode == TPF_PASS) {
		pthread_mutex_unlock(&F.lock);
		tpf_complete(f);
		return;
	}
	if (F.mode == TPF_KILL) {
		f->status = DOCA_ERROR_IO_FAILED; /* the reply never came back */
		f->inner.refused = false;
	}
	/* a reorder window that never fills still completes (in 50 ms) */
	due = now_ns() + (F.mode == TPF_DELAY ? F.arg * 1000000ull : 50000000ull);
	tpf_hold_locked(f, F.mode == TPF_KILL ? 0 : due);
	pthread_mutex_unlock(&F.lock);
}

static doca_error_t tpf_io_start(struct odma_tp_io *io)
{
	struct tpf_io *f = calloc(1, sizeof(*f));
	enum tp_fault_mode mode;
	doca_error_t err;

	if (f == NULL)
		return DOCA_ERROR_NO_MEMORY;
	f->outer = io;
	f->inner = *io;
	f->inner.done = tpf_inner_done;
	f->inner.arg = f;
	pthread_mutex_lock(&F.lock);
	F.in_flight++;
	mode = F.mode;
	if (mode == TPF_DROP || mode == TPF_KILL) {
		f->status = DOCA_ERROR_IO_FAILED;
		tpf_hold_locked(f, mode == TPF_KILL ? 0
		                                    : now_ns() + odma_tp_timeout_ms() * 1000000ull);
		pthread_mutex_unlock(&F.lock);
		return DOCA_SUCCESS;
	}
	pthread_mutex_unlock(&F.lock);
	err = F.inner->io_start(&f->inner);
	if (err != DOCA_SUCCESS) {
		pthread_mutex_lock(&F.lock);
		F.in_flight--;
		pthread_mutex_unlock(&F.lock);
		free(f);
	}
	return err;
}

/* Takes the first held io that is due (lock held); the time of the next one in *@next. */
static struct tpf_io *tpf_take_due_locked(uint64_t now, uint64_t *next)
{
	*next = UINT64_MAX;
	for (struct tpf_io **p = &F.held; *p != NULL; p = &(*p)->next) {
		struct tpf_io *f = *p;

		if (f->due_ns <= now || F.stop) {
			*p = f->next;
			F.nheld--;
			return f;
		}
		if (f->due_ns < *next)
			*next = f->due_ns;
	}
	return NULL;
}

static void *tpf_thread(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&F.lock);
	while (!F.stop || F.held != NULL) {
		uint64_t next;
		struct tpf_io *f = tpf_take_due_locked(now_ns(), &next);

		if (f != NULL) {
			pthread_mutex_unlock(&F.lock);
			tpf_complete(f);
			pthread_mutex_lock(&F.lock);
			continue;
		}
		if (next == UINT64_MAX) {
			if (F.stop)
				break;
			pthread_cond_wait(&F.cond, &F.lock);
		} else {
			struct timespec ts;
			uint64_t now = now_ns();

			if (next <= now)
				continue; /* came due since the look */
			clock_gettime(CLOCK_REALTIME, &ts);
			next -= now;
			ts.tv_sec += (time_t)(next / 1000000000ull);
			ts.tv_nsec += (long)(next % 1000000000ull);
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&F.cond, &F.lock, &ts);
		}
	}
	pthread_mutex_unlock(&F.lock);
	return NULL;
}

/*
 * The batching mover's path (a row of kind ODMA_TP_PROCESS): synchronous, so a delay is a
 * sleep, a dropped move moves nothing (the range cannot be reached: its copy fails alone) and
 * a killed peer is gone (ESRCH: every copy of the call fails). Reordering needs no thread to
 * hold a call and is passed through.
 */
static ssize_t tpf_iov_move(const struct odma_tp_remote *rm, bool write, const struct iovec *l,
                            unsigned long nl, const struct iovec *r, unsigned long nr)
{
	enum tp_fault_mode mode;
	unsigned int arg;
	ssize_t k;

	pthread_mutex_lock(&F.lock);
	mode = F.mode;
	arg = F.arg;
	pthread_mutex_unlock(&F.lock);
	if (mode == TPF_DELAY) {
		struct timespec ts = { .tv_sec = arg / 1000,
			               .tv_nsec = (long)(arg % 1000) * 1000000L };

		nanosleep(&ts, NULL);
	}
	if (mode == TPF_DROP)
		k = 0;
	else if (mode == TPF_KILL)
		k = -1;
	else
		k = F.inner->iov_move(rm, write, l, nl, r, nr);
	pthread_mutex_lock(&F.lock);
	F.completed++;
	F.failed += k <= 0;
	pthread_mutex_unlock(&F.lock);
	if (mode == TPF_KILL)
		errno = ESRCH;
	return k;
}

static doca_error_t tpf_io_fail(const struct odma_tp_remote *rm, int err)
{
	return F.inner->io_fail(rm, err);
}

static bool tpf_reachable(const struct odma_tp_reach *r, const char **why)
{
	return F.inner->reachable(r, why);
}

static doca_error_t tpf_reach_self(struct odma_tp_reach *r)
{
	(void)r; /* the wrapped row is in the table too: it fills its part */
	return DOCA_SUCCESS;
}

static doca_error_t tpf_attach(const struct odma_tp_reach *r, struct odma_tp_remote *rm,
                               uint8_t *issued, size_t *issued_len)
{
	return F.inner->attach(r, rm, issued, issued_len);
}

static void tpf_detach(struct odma_tp_remote *rm)
{
	F.inner->detach(rm);
}

const struct odma_tp_ops *tp_fault_row(const struct odma_tp_ops *inner, enum odma_tp_kind kind)
{
	F.inner = inner;
	tpf_ops = (struct odma_tp_ops){
		.name = "fault",
		.kind = kind,
		.same_kernel = kind == ODMA_TP_PROCESS && inner->same_kernel,
		.reachable = tpf_reachable,
		.reach_self = tpf_reach_self,
		.attach = tpf_attach,
		.detach = tpf_detach,
		.io_start = tpf_io_start,
		/* synchronous only as ODMA_TP_PROCESS: as ODMA_TP_UCX its ios go on io_start */
		.iov_move = kind == ODMA_TP_PROCESS && inner->iov_move ? tpf_iov_move : NULL,
		.io_fail = kind == ODMA_TP_PROCESS && inner->io_fail ? tpf_io_fail : NULL,
	};
	pthread_mutex_lock(&F.lock);
	if (!F.running) {
		F.stop = false;
		F.running = pthread_create(&F.thread, NULL, tpf_thread, NULL) == 0;
	}
	pthread_mutex_unlock(&F.lock);
	return &tpf_ops;
}

void tp_fault_set(enum tp_fault_mode mode, unsigned int arg)
{
	pthread_mutex_lock(&F.lock);
	F.mode = mode;
	F.arg = arg;
	if (mode == TPF_KILL)
		for (struct tpf_io *h = F.held; h != NULL; h = h->next) {
			h->status = DOCA_ERROR_IO_FAILED;
			h->due_ns = 0;
		}
	pthread_cond_signal(&F.cond);
	pthread_mutex_unlock(&F.lock);
}

unsigned int tp_fault_in_flight(void)
{
	unsigned int n;

	pthread_mutex_lock(&F.lock);
	n = F.in_flight;
	pthread_mutex_unlock(&F.lock);
	return n;
}

unsigned int tp_fault_completed(unsigned int *failed)
{
	unsigned int n;

	pthread_mutex_lock(&F.lock);
	n = F.completed;
	*failed = F.failed;
	pthread_mutex_unlock(&F.lock);
	return n;
}

void tp_fault_stop(void)
{
	pthread_mutex_lock(&F.lock);
	if (!F.running) {
		pthread_mutex_unlock(&F.lock);
		return;
	}
	F.stop = true;
	pthread_cond_signal(&F.cond);
	pthread_mutex_unlock(&F.lock);
	pthread_join(F.thread, NULL);
	F.running = false;
}
