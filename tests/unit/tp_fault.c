/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The fault-injecting test transport (tp_fault.h). Each io the caller starts is copied into an
 * inner io the wrapped row moves; what the caller sees of it is decided here: passed on at
 * once, held and completed later by this row's thread (delay, reorder), never started and
 * failed at the deadline (drop), or failed (kill). The thread completes held ios as a network
 * transport's thread would: on its own thread, each exactly once.
 *
 * As a network row (tp_fault_net_row) it also wraps the inner row's endpoints: each endpoint
 * the caller gets is ours, around one of the inner row's, and what arrives on it is passed on at
 * once, held and delivered later in order by the thread (delay; also an on_close behind
 * messages still held), lost (drop: sends leave and never arrive, arrivals vanish), or cut
 * (kill: every endpoint reports on_close with DOCA_ERROR_IO_FAILED once, sends fail, arrivals
 * vanish). An ordered transport never reorders its messages: reorder passes them on.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

#include "tp_fault.h"

/* A send TPF_STALL keeps until its endpoint closes. */
struct tpf_send {
	struct tpf_send *next;
	struct tpf_ep *ep;
	odma_tp_send_done_fn *done;
	void *arg;
};

struct tpf_io {
	struct odma_tp_io inner; /* what the wrapped row moves */
	struct odma_tp_io *outer;
	doca_error_t status;
	bool cancelled; /* by io_cancel while held */
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
	struct tpf_ep *eps;                /* the caller's endpoints (ours) */
	struct tpf_msg *mq_head, *mq_tail; /* held arrivals, due in order (one delay for all) */
	struct tpf_send *stalled;          /* sends TPF_STALL keeps */
	unsigned int msgs_passed, msgs_held, msgs_dropped, sends_failed;
} F = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

/* One of the caller's endpoints: ours, around one of the inner row's. */
struct tpf_ep {
	struct odma_tp_ep_head head; /* first: tpf_ops */
	struct odma_tp_ep *inner;
	struct odma_tp_ep_cbs cbs; /* the caller's (F.lock) */
	unsigned int held;         /* its arrivals in F.mq (F.lock) */
	bool delivering;           /* the thread is inside one of its callbacks (F.lock) */
	bool gone;                 /* on_close was reported to the caller (F.lock) */
	bool dialed;               /* made by tpf_connect (TPF_SKEW holds its arrivals) */
	struct tpf_ep *next;
};

/* A held arrival, or (@close) the inner endpoint's on_close behind the arrivals before it. */
struct tpf_msg {
	struct tpf_msg *next;
	struct tpf_ep *ep;
	uint64_t due_ns;
	bool close;
	doca_error_t why;
	uint32_t imm;
	size_t len;
	uint8_t bytes[];
};

/* What a listener of ours hands to the caller's accept callback. */
struct tpf_listener {
	void *inner;
	odma_tp_accept_fn *on_accept;
	odma_tp_admit_fn *admit;
	void *arg;
};

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
	outer->cancelled = f->inner.cancelled || f->cancelled;
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
	if (F.mode == TPF_PASS || F.mode == TPF_STALL || F.mode == TPF_SKEW) {
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

/* Held ios of @owner fail now, as the cancelled; the inner row ends those it still has. */
static void tpf_io_cancel(uint64_t owner)
{
	pthread_mutex_lock(&F.lock);
	for (struct tpf_io *h = F.held; h != NULL; h = h->next)
		if (h->inner.owner == owner) {
			h->status = DOCA_ERROR_IO_FAILED;
			h->cancelled = true;
			h->due_ns = 0;
		}
	pthread_cond_signal(&F.cond);
	pthread_mutex_unlock(&F.lock);
	if (F.inner->io_cancel != NULL)
		F.inner->io_cancel(owner);
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

static bool tpf_deliver_due_locked(uint64_t now, uint64_t *next);

static void *tpf_thread(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&F.lock);
	while (!F.stop || F.held != NULL) {
		uint64_t next, mnext;
		struct tpf_io *f = tpf_take_due_locked(now_ns(), &next);

		if (f != NULL) {
			pthread_mutex_unlock(&F.lock);
			tpf_complete(f);
			pthread_mutex_lock(&F.lock);
			continue;
		}
		if (tpf_deliver_due_locked(now_ns(), &mnext))
			continue;
		if (mnext < next)
			next = mnext;
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

/* ---------------------------------------------------------------- endpoints */

/* Reports on_close to the caller once (F.lock held; dropped around the callback). */
static void tpf_report_close_locked(struct tpf_ep *e, doca_error_t why)
{
	struct odma_tp_ep_cbs cbs = e->cbs;

	if (e->gone)
		return;
	e->gone = true;
	e->delivering = true;
	pthread_mutex_unlock(&F.lock);
	if (cbs.on_close != NULL)
		cbs.on_close((struct odma_tp_ep *)(void *)e, why, cbs.arg);
	pthread_mutex_lock(&F.lock);
	e->delivering = false;
	pthread_cond_broadcast(&F.cond);
}

/*
 * Delivers the held arrival at the head of the queue if it is due (F.lock held; dropped around
 * the callback): true when one was taken. *@next: when the head comes due (UINT64_MAX: none).
 */
static bool tpf_deliver_due_locked(uint64_t now, uint64_t *next)
{
	struct tpf_msg *m = F.mq_head;
	struct tpf_ep *e;

	*next = m != NULL ? m->due_ns : UINT64_MAX;
	if (m == NULL || (m->due_ns > now && !F.stop))
		return false;
	F.mq_head = m->next;
	if (F.mq_head == NULL)
		F.mq_tail = NULL;
	e = m->ep;
	e->held--;
	if (m->close) {
		tpf_report_close_locked(e, m->why);
	} else if (!e->gone && e->cbs.on_recv != NULL) {
		struct odma_tp_ep_cbs cbs = e->cbs;
		bool kept;

		e->delivering = true;
		pthread_mutex_unlock(&F.lock);
		kept = cbs.on_recv((struct odma_tp_ep *)(void *)e, m->bytes, m->len, m->imm,
		                   cbs.arg);
		pthread_mutex_lock(&F.lock);
		e->delivering = false;
		/* kept from the inner row while held: given back now, or by the caller later */
		if (!kept && !e->gone)
			F.inner->ep_release(e->inner, m->len);
		pthread_cond_broadcast(&F.cond);
	}
	free(m);
	return true;
}

/*
 * Holds an arrival (or the close, @close) of @e behind those held before it (F.lock held).
 * Whether it is held.
 */
static bool tpf_hold_msg_locked(struct tpf_ep *e, const void *bytes, size_t len, uint32_t imm,
                                bool close, doca_error_t why)
{
	struct tpf_msg *m = malloc(sizeof(*m) + len);
	bool slow = F.mode == TPF_DELAY || (F.mode == TPF_SKEW && e->dialed);
	uint64_t due = now_ns() + (slow ? F.arg * 1000000ull : 0);

	if (slow && F.mode == TPF_SKEW && F.arg == 0)
		due = UINT64_MAX; /* until the mode changes (tp_fault_set) */

	if (m == NULL)
		return false; /* a test's allocation failing: the message is lost */
	if (F.mq_tail != NULL && due < F.mq_tail->due_ns)
		due = F.mq_tail->due_ns; /* in order, whatever the mode was when those came */
	*m = (struct tpf_msg){
		.ep = e, .due_ns = due, .close = close, .why = why, .imm = imm, .len = len
	};
	if (len != 0) /* a close marker carries no bytes (NULL) */
		memcpy(m->bytes, bytes, len);
	if (F.mq_tail != NULL)
		F.mq_tail->next = m;
	else
		F.mq_head = m;
	F.mq_tail = m;
	e->held++;
	pthread_cond_signal(&F.cond);
	return true;
}

/*
 * The inner endpoint's arrival (the inner row's thread): kept while held (the credit goes back
 * once it is delivered), else whatever the caller's callback says.
 */
static bool tpf_on_recv(struct odma_tp_ep *inner, const void *bytes, size_t len, uint32_t imm,
                        void *arg)
{
	struct tpf_ep *e = arg;
	struct odma_tp_ep_cbs cbs;
	bool kept = false;

	(void)inner;
	pthread_mutex_lock(&F.lock);
	if (e->gone || F.mode == TPF_DROP || F.mode == TPF_KILL) {
		F.msgs_dropped++;
		pthread_mutex_unlock(&F.lock);
		return false;
	}
	if (F.mode == TPF_DELAY || (F.mode == TPF_SKEW && e->dialed) ||
	    e->held != 0) { /* behind what is held: order kept */
		F.msgs_held++;
		kept = tpf_hold_msg_locked(e, bytes, len, imm, false, DOCA_SUCCESS);
		pthread_mutex_unlock(&F.lock);
		return kept;
	}
	F.msgs_passed++;
	cbs = e->cbs;
	e->delivering = true;
	pthread_mutex_unlock(&F.lock);
	if (cbs.on_recv != NULL)
		kept = cbs.on_recv((struct odma_tp_ep *)(void *)e, bytes, len, imm, cbs.arg);
	pthread_mutex_lock(&F.lock);
	e->delivering = false;
	pthread_cond_broadcast(&F.cond);
	pthread_mutex_unlock(&F.lock);
	return kept;
}

/* The caller gives back a message it kept: to the inner endpoint, unless that one is closed. */
static void tpf_ep_release(struct odma_tp_ep *ep, size_t len)
{
	struct tpf_ep *e = (struct tpf_ep *)(void *)ep;

	pthread_mutex_lock(&F.lock);
	if (!e->gone)
		F.inner->ep_release(e->inner, len);
	pthread_mutex_unlock(&F.lock);
}

/* The inner endpoint is gone: reported after the arrivals held before it. */
static void tpf_on_close(struct odma_tp_ep *inner, doca_error_t why, void *arg)
{
	struct tpf_ep *e = arg;

	(void)inner;
	pthread_mutex_lock(&F.lock);
	if (e->held != 0 || (F.mode == TPF_SKEW && e->dialed))
		tpf_hold_msg_locked(e, NULL, 0, 0, true, why);
	else
		tpf_report_close_locked(e, why);
	pthread_mutex_unlock(&F.lock);
}

/* A new endpoint of ours around @inner (not yet made: NULL), its callbacks the caller's. */
static struct tpf_ep *tpf_ep_new(const struct odma_tp_ep_cbs *cbs)
{
	struct tpf_ep *e = calloc(1, sizeof(*e));

	if (e == NULL)
		return NULL;
	e->head.ops = &tpf_ops;
	if (cbs != NULL)
		e->cbs = *cbs;
	pthread_mutex_lock(&F.lock);
	e->next = F.eps;
	F.eps = e;
	pthread_mutex_unlock(&F.lock);
	return e;
}

/* Unlinks and frees @e once no callback of it runs and none is held (its inner one closed). */
static void tpf_ep_free(struct tpf_ep *e)
{
	pthread_mutex_lock(&F.lock);
	for (struct tpf_msg **p = &F.mq_head; *p != NULL;) {
		struct tpf_msg *m = *p;

		if (m->ep != e) {
			p = &m->next;
			continue;
		}
		*p = m->next;
		free(m);
	}
	F.mq_tail = NULL;
	for (struct tpf_msg *m = F.mq_head; m != NULL; m = m->next)
		F.mq_tail = m;
	while (e->delivering)
		pthread_cond_wait(&F.cond, &F.lock);
	for (struct tpf_ep **p = &F.eps; *p != NULL; p = &(*p)->next)
		if (*p == e) {
			*p = e->next;
			break;
		}
	pthread_mutex_unlock(&F.lock);
	free(e);
}

static struct tpf_ep *tpf_of(struct odma_tp_ep *ep)
{
	return (struct tpf_ep *)(void *)ep;
}

static void tpf_accept(struct odma_tp_ep *inner, void *arg)
{
	struct tpf_listener *l = arg;
	struct tpf_ep *e = tpf_ep_new(NULL);
	const struct odma_tp_ep_cbs mine = { .on_recv = tpf_on_recv,
		                             .on_close = tpf_on_close,
		                             .arg = e };

	if (e == NULL) {
		F.inner->ep_close(inner);
		return;
	}
	e->inner = inner;
	F.inner->ep_set_cbs(inner, &mine); /* on the inner row's thread: before any arrival */
	l->on_accept((struct odma_tp_ep *)(void *)e, l->arg);
}

/* The caller's admission check, with its own argument. */
static bool tpf_admit(void *arg)
{
	struct tpf_listener *l = arg;

	return l->admit == NULL || l->admit(l->arg);
}

static doca_error_t tpf_listen(const char *addr, uint16_t *port, odma_tp_accept_fn *on_accept,
                               odma_tp_admit_fn *admit, void *arg, void **listener)
{
	struct tpf_listener *l = calloc(1, sizeof(*l));
	doca_error_t r;

	if (l == NULL)
		return DOCA_ERROR_NO_MEMORY;
	l->on_accept = on_accept;
	l->admit = admit;
	l->arg = arg;
	r = F.inner->listen(addr, port, tpf_accept, tpf_admit, l, &l->inner);
	if (r != DOCA_SUCCESS) {
		free(l);
		return r;
	}
	*listener = l;
	return DOCA_SUCCESS;
}

static void tpf_listen_close(void *listener)
{
	struct tpf_listener *l = listener;

	F.inner->listen_close(l->inner);
	free(l);
}

static doca_error_t tpf_connect(const char *addr, uint16_t port, const struct odma_tp_ep_cbs *cbs,
                                struct odma_tp_ep **ep)
{
	struct tpf_ep *e = tpf_ep_new(cbs);
	struct odma_tp_ep_cbs mine = { .on_recv = tpf_on_recv, .on_close = tpf_on_close, .arg = e };
	doca_error_t r;

	if (e == NULL)
		return DOCA_ERROR_NO_MEMORY;
	e->dialed = true; /* before any arrival: set before the inner endpoint exists */
	r = F.inner->connect(addr, port, &mine, &e->inner);
	if (r != DOCA_SUCCESS) {
		tpf_ep_free(e);
		return r;
	}
	*ep = (struct odma_tp_ep *)(void *)e;
	return DOCA_SUCCESS;
}

static void tpf_ep_set_cbs(struct odma_tp_ep *ep, const struct odma_tp_ep_cbs *cbs)
{
	pthread_mutex_lock(&F.lock);
	tpf_of(ep)->cbs = *cbs;
	pthread_mutex_unlock(&F.lock);
}

/* A send: lost when dropping (it left us: done says so), failed when killed. */
static doca_error_t tpf_ep_send(struct odma_tp_ep *ep, const struct iovec *iov, unsigned int niov,
                                uint32_t imm, odma_tp_send_done_fn *done, void *arg)
{
	enum tp_fault_mode mode;

	pthread_mutex_lock(&F.lock);
	mode = tpf_of(ep)->gone ? TPF_KILL : F.mode;
	F.sends_failed += mode == TPF_KILL;
	pthread_mutex_unlock(&F.lock);
	if (mode == TPF_KILL || mode == TPF_DROP) {
		if (done != NULL)
			done(arg, mode == TPF_KILL ? DOCA_ERROR_IO_FAILED : DOCA_SUCCESS);
		return DOCA_SUCCESS;
	}
	if (mode == TPF_STALL) {
		struct tpf_send *k = calloc(1, sizeof(*k));

		if (k == NULL)
			return DOCA_ERROR_NO_MEMORY;
		k->ep = tpf_of(ep);
		k->done = done;
		k->arg = arg;
		pthread_mutex_lock(&F.lock);
		k->next = F.stalled;
		F.stalled = k;
		pthread_mutex_unlock(&F.lock);
		return DOCA_SUCCESS;
	}
	return F.inner->ep_send(tpf_of(ep)->inner, iov, niov, imm, done, arg);
}

/* An attachment over the endpoint: its ios go through this row (rm->ops is ours). */
static doca_error_t tpf_ep_attach(struct odma_tp_ep *ep, const struct odma_tp_reach *r,
                                  struct odma_tp_remote *rm)
{
	doca_error_t st = F.inner->ep_attach(tpf_of(ep)->inner, r, rm);

	rm->ops = &tpf_ops;
	return st;
}

static void tpf_ep_close(struct odma_tp_ep *ep)
{
	struct tpf_ep *e = tpf_of(ep);
	struct tpf_send *mine = NULL;

	pthread_mutex_lock(&F.lock);
	e->gone = true; /* the caller closed it: no callback after this call */
	for (struct tpf_send **p = &F.stalled; *p != NULL;) {
		struct tpf_send *k = *p;

		if (k->ep != e) {
			p = &k->next;
			continue;
		}
		*p = k->next;
		k->next = mine;
		mine = k;
	}
	pthread_mutex_unlock(&F.lock);
	F.inner->ep_close(e->inner); /* waits for the inner row's callbacks */
	while (mine != NULL) { /* its stalled sends fail with the close, as a transport's do */
		struct tpf_send *k = mine;

		mine = k->next;
		if (k->done != NULL)
			k->done(k->arg, DOCA_ERROR_IO_FAILED);
		free(k);
	}
	tpf_ep_free(e);
}

/* KILL: every endpoint reports on_close (IO_FAILED) once, from this thread (F.lock held). */
static void tpf_kill_eps_locked(void)
{
	for (struct tpf_msg *m = F.mq_head, *n; m != NULL; m = n) {
		n = m->next;
		m->ep->held--;
		free(m);
	}
	F.mq_head = F.mq_tail = NULL;
	for (bool again = true; again;) {
		again = false;
		for (struct tpf_ep *e = F.eps; e != NULL; e = e->next)
			if (!e->gone) {
				tpf_report_close_locked(e, DOCA_ERROR_IO_FAILED);
				again = true; /* the list may have changed meanwhile */
				break;
			}
	}
}

static bool tpf_available(const char **why)
{
	return F.inner->available == NULL || F.inner->available(why);
}

static void tpf_poll(void)
{
	if (F.inner->poll != NULL)
		F.inner->poll();
}

static void tpf_poll_end(void)
{
	if (F.inner->poll_end != NULL)
		F.inner->poll_end();
}

const struct odma_tp_ops *tp_fault_net_row(const struct odma_tp_ops *inner)
{
	const struct odma_tp_ops *row = tp_fault_row(inner, ODMA_TP_UCX);

	tpf_ops.network = true;
	tpf_ops.available = tpf_available;
	tpf_ops.poll = inner->poll != NULL ? tpf_poll : NULL;
	tpf_ops.poll_end = inner->poll_end != NULL ? tpf_poll_end : NULL;
	tpf_ops.listen = tpf_listen;
	tpf_ops.listen_close = tpf_listen_close;
	tpf_ops.connect = tpf_connect;
	tpf_ops.ep_set_cbs = tpf_ep_set_cbs;
	tpf_ops.ep_send = tpf_ep_send;
	tpf_ops.ep_attach = tpf_ep_attach;
	tpf_ops.ep_close = tpf_ep_close;
	tpf_ops.ep_release = tpf_ep_release;
	return row;
}

unsigned int tp_fault_msgs(unsigned int *held, unsigned int *dropped, unsigned int *failed_sends)
{
	unsigned int n;

	pthread_mutex_lock(&F.lock);
	n = F.msgs_passed;
	*held = F.msgs_held;
	*dropped = F.msgs_dropped;
	*failed_sends = F.sends_failed;
	pthread_mutex_unlock(&F.lock);
	return n;
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
		.io_cancel = tpf_io_cancel,
		/* synchronous only as ODMA_TP_PROCESS: as ODMA_TP_UCX its ios go on io_start */
		.iov_move = kind == ODMA_TP_PROCESS && inner->iov_move ? tpf_iov_move : NULL,
		.io_fail = kind == ODMA_TP_PROCESS && inner->io_fail ? tpf_io_fail : NULL,
		.iov_enter = kind == ODMA_TP_PROCESS ? inner->iov_enter : NULL,
		.iov_leave = kind == ODMA_TP_PROCESS ? inner->iov_leave : NULL,
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
	for (struct tpf_msg *m = F.mq_head; m != NULL; m = m->next)
		if (m->due_ns == UINT64_MAX && (mode != TPF_SKEW || arg != 0))
			m->due_ns = 0; /* held by a skew until now */
	if (mode == TPF_KILL) {
		for (struct tpf_io *h = F.held; h != NULL; h = h->next) {
			h->status = DOCA_ERROR_IO_FAILED;
			h->due_ns = 0;
		}
		tpf_kill_eps_locked();
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
