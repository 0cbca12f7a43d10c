/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Waking a sleeping PE (docs/design.md, "Waking a sleeping PE"): the notification handle is
 * an epoll set of the PE's eventfd, a timerfd and the descriptors contexts watch; doorbells
 * let other threads and processes wake a PE without a system call while it is busy.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "core/exec/exec_int.h"
#include "core/log/log.h"
#include "core/transport/transport.h"
#include "util/now.h"

ODMA_LOG_REGISTER(ODMA_PE)

uint64_t doca_priv_now_ns(void)
{
	return odma_now_ns();
}

doca_error_t odma_pe_wake_init(struct doca_pe *pe)
{
	struct epoll_event ev = { .events = EPOLLIN };

	pe->nfd = epoll_create1(EPOLL_CLOEXEC);
	pe->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	pe->timer_ns = 0;
	if (pe->nfd < 0 || pe->tfd < 0 || epoll_ctl(pe->nfd, EPOLL_CTL_ADD, pe->efd, &ev) != 0 ||
	    epoll_ctl(pe->nfd, EPOLL_CTL_ADD, pe->tfd, &ev) != 0) {
		ODMA_ERR("doca_pe_create: the notification handle (epoll, timerfd) "
		         "could not be made: %s",
		         strerror(errno));
		odma_pe_wake_fini(pe);
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	return DOCA_SUCCESS;
}

void odma_pe_wake_fini(struct doca_pe *pe)
{
	if (pe->nfd >= 0)
		close(pe->nfd);
	if (pe->tfd >= 0)
		close(pe->tfd);
	pe->nfd = pe->tfd = -1;
}

doca_error_t doca_priv_pe_watch(struct doca_pe *pe, int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };

	if (pe == NULL || fd < 0)
		return DOCA_SUCCESS;
	if (events == 0) {
		if (epoll_ctl(pe->nfd, EPOLL_CTL_DEL, fd, NULL) == 0 || errno == ENOENT ||
		    errno == EBADF)
			return DOCA_SUCCESS;
	} else if (epoll_ctl(pe->nfd, EPOLL_CTL_MOD, fd, &ev) == 0 ||
	           (errno == ENOENT && epoll_ctl(pe->nfd, EPOLL_CTL_ADD, fd, &ev) == 0)) {
		return DOCA_SUCCESS;
	}
	ODMA_ERR("progress engine %p: cannot %s descriptor %d in its notification handle: %s",
	         (void *)pe, events ? "watch" : "stop watching", fd, strerror(errno));
	return DOCA_ERROR_OPERATING_SYSTEM;
}

/* Sets the timer to @at (ODMA_WAKE_NEVER: off); a system call only when it changes. */
static void wake_set_timer(struct doca_pe *pe, uint64_t at)
{
	struct itimerspec its = { 0 };

	if (at == ODMA_WAKE_NEVER)
		at = 0;
	if (at == pe->timer_ns)
		return;
	its.it_value.tv_sec = (time_t)(at / 1000000000ull);
	its.it_value.tv_nsec = (long)(at % 1000000000ull);
	if (timerfd_settime(pe->tfd, TFD_TIMER_ABSTIME, &its, NULL) != 0) {
		ODMA_ERR("progress engine %p: timerfd_settime failed: %s", (void *)pe,
		         strerror(errno));
		return;
	}
	pe->timer_ns = at;
}

/*
 * The arm ops of the PE's contexts: the earliest time one of them needs progress (0: now).
 * Programs the timer for a later time.
 */
uint64_t odma_pe_wake_arm(struct doca_pe *pe)
{
	uint64_t at = ODMA_WAKE_NEVER;

	for (struct doca_ctx *c = pe->ctxs; c != NULL; c = c->pe_next) {
		uint64_t t;

		if (c->ops->arm == NULL)
			continue;
		t = c->ops->arm(c);
		if (t < at)
			at = t;
	}
	if (at != 0 && at != ODMA_WAKE_NEVER && at <= doca_priv_now_ns())
		at = 0;
	wake_set_timer(pe, at == 0 ? ODMA_WAKE_NEVER : at);
	return at;
}

/* From progress: a timer that fired is consumed (it is level-triggered in the handle). */
void odma_pe_wake_progress(struct doca_pe *pe)
{
	uint64_t v;

	if (doca_priv_now_ns() < pe->timer_ns)
		return;
	if (read(pe->tfd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		ODMA_DBG("progress engine %p: timerfd read failed: %s", (void *)pe,
		         strerror(errno));
	pe->timer_ns = 0;
}

bool doca_priv_fd_is_eventfd(int pid, int fd)
{
	char path[64], link[64];
	ssize_t n;

	if (fd < 0)
		return false;
	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
	else
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return false;
	link[n] = '\0';
	return strcmp(link, "anon_inode:[eventfd]") == 0;
}

int doca_priv_bell_open(void)
{
	int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

	if (fd < 0)
		ODMA_ERR("a doorbell eventfd could not be made: %s", strerror(errno));
	return fd;
}

/*
 * The doorbell protocol. The word may be written by a peer that does not follow it (it lives
 * in shared memory, and the peer holds a copy of the eventfd), so the owner never trusts it to
 * say whether the eventfd holds a count: after each arm, the first drain reads the eventfd,
 * whatever the word says (the word is not IDLE then, unless a peer rewrote it: see below).
 * A busy owner that does not arm leaves the word IDLE and makes no system call.
 *   - A ringer's write that lands after the owner drained (ring: CAS, drain, write) leaves a
 *     count with the word IDLE; the next arm makes the word ARMED, the handle wakes at once
 *     (one spurious wake-up) and that progress's drain reads it.
 *   - A peer that writes the eventfd and sets the word ARMED or RUNG: the same, one wake-up.
 *     A peer that sets it IDLE after each of our arms keeps waking us only as long as it
 *     keeps writing, which is what any peer holding the eventfd can do anyway.
 *   - A peer that sets the word to RUNG or IDLE so that honest ringers skip their write:
 *     ringers that share the word with such a peer use doca_priv_bell_force.
 */
void doca_priv_bell_arm(_Atomic uint32_t *word)
{
	atomic_store(word, ODMA_BELL_ARMED);
	atomic_thread_fence(memory_order_seq_cst); /* pairs with the fence in ring */
}

void doca_priv_bell_ring(_Atomic uint32_t *word, int fd)
{
	uint32_t armed = ODMA_BELL_ARMED;

	atomic_thread_fence(memory_order_seq_cst); /* the work is published before the look */
	if (fd < 0 || atomic_load_explicit(word, memory_order_relaxed) != ODMA_BELL_ARMED ||
	    !atomic_compare_exchange_strong(word, &armed, ODMA_BELL_RUNG))
		return;
	/* inside a transport round: written when its answers have left (odma_tp_wake_hold) */
	if (!odma_tp_wake_later(fd))
		doca_priv_bell_force(fd);
}

void doca_priv_bell_force(int fd)
{
	uint64_t one = 1;

	if (fd >= 0 && write(fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		ODMA_DBG("doorbell write failed: %s", strerror(errno));
}

void doca_priv_bell_drain(_Atomic uint32_t *word, int fd)
{
	uint64_t v;

	if (atomic_load_explicit(word, memory_order_acquire) == ODMA_BELL_IDLE)
		return; /* not armed since the last drain: epoll did not report the eventfd */
	atomic_store_explicit(word, ODMA_BELL_IDLE, memory_order_relaxed);
	if (read(fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		ODMA_DBG("doorbell read failed: %s", strerror(errno));
}
