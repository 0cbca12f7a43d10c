/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Synchronous transfers over an asynchronous transport (odma_tp_xfer): for a thread that needs
 * the bytes before it goes on (a library computing on another process' memory), the transfer
 * is cut into transport ios, started a window at a time and waited for, each window for the
 * transport's timeout at most; then its ios are cancelled and waited for until each one's done
 * ran, so none touches the caller's memory once it returns.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log/log.h"
#include "core/transport/transport.h"

ODMA_LOG_REGISTER(ODMA_TRANSPORT)

/* Pieces of a synchronous transfer, and how many travel at once. */
#define XFER_PIECE (256u * 1024u)
#define XFER_DEPTH 8u

/* One window of ios in flight, and the thread waiting for them. */
struct xfer_wait {
	pthread_mutex_t lock;
	pthread_cond_t cond; /* on CLOCK_MONOTONIC */
	unsigned int left;   /* ios of the window not done yet */
	bool failed;
	struct odma_tp_io io[XFER_DEPTH];
};

static void xfer_wait_done(struct odma_tp_io *io, doca_error_t st)
{
	struct xfer_wait *w = io->arg;

	pthread_mutex_lock(&w->lock);
	if (st != DOCA_SUCCESS)
		w->failed = true;
	if (--w->left == 0)
		pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

/*
 * Waits for the window's ios until @end (CLOCK_MONOTONIC) or, @end NULL, for as long as they
 * take. Whether they all completed.
 */
static bool xfer_wait_until(struct xfer_wait *w, const struct timespec *end)
{
	bool all;

	pthread_mutex_lock(&w->lock);
	while (w->left != 0)
		if (end == NULL)
			pthread_cond_wait(&w->cond, &w->lock);
		else if (pthread_cond_timedwait(&w->cond, &w->lock, end) != 0 && w->left != 0)
			break;
	all = w->left == 0;
	pthread_mutex_unlock(&w->lock);
	return all;
}

/*
 * Starts the ios of one window: up to XFER_DEPTH pieces of @len bytes between @local and
 * @remote of @rm. Every io is owned by @w's address: unique while it waits, and never a
 * context's run (those count from 1), so a cancel ends these alone.
 */
static void xfer_window_start(struct xfer_wait *w, struct odma_tp_remote *rm, uint8_t *local,
                              uint64_t remote, uint64_t len, bool write)
{
	unsigned int n = (unsigned int)((len + XFER_PIECE - 1) / XFER_PIECE);

	memset(w->io, 0, sizeof(w->io));
	w->left = n;
	for (unsigned int i = 0; i < n; i++) {
		struct odma_tp_io *io = &w->io[i];
		uint64_t off = (uint64_t)i * XFER_PIECE;

		io->remote = rm;
		io->write = write;
		io->local = local + off;
		io->remote_addr = remote + off;
		io->len = len - off < XFER_PIECE ? len - off : XFER_PIECE;
		io->done = xfer_wait_done;
		io->arg = w;
		io->owner = (uint64_t)(uintptr_t)w;
		if (odma_tp_io_start(io) != DOCA_SUCCESS)
			xfer_wait_done(io, DOCA_ERROR_IO_FAILED);
	}
}

/*
 * Runs one window and waits for it, for the transport's timeout at most: then its ios are
 * cancelled, and waited for until each one's done ran (none writes into @local afterwards).
 */
static doca_error_t xfer_window(struct xfer_wait *w, struct odma_tp_remote *rm, uint8_t *local,
                                uint64_t remote, uint64_t len, bool write)
{
	uint32_t ms = odma_tp_timeout_ms();
	struct timespec end;
	uint64_t ns;

	clock_gettime(CLOCK_MONOTONIC, &end);
	ns = (uint64_t)end.tv_nsec + (uint64_t)ms * 1000000u;
	end.tv_sec += (time_t)(ns / 1000000000u);
	end.tv_nsec = (long)(ns % 1000000000u);
	w->failed = false;
	xfer_window_start(w, rm, local, remote, len, write);
	if (!xfer_wait_until(w, &end)) {
		odma_tp_io_cancel((uint64_t)(uintptr_t)w);
		(void)xfer_wait_until(w, NULL);
		ODMA_RATELIMITED_ERR_AT(
		        "odma_tp_xfer",
		        "the exporter of memory reached over the network did not answer "
		        "within %u ms (ODMA_TRANSPORT_TIMEOUT_MS): "
		        "the transfer was cancelled (the exporter hangs, or the link is down)",
		        ms);
	}
	return w->failed ? DOCA_ERROR_IO_FAILED : DOCA_SUCCESS;
}

doca_error_t odma_tp_xfer(struct odma_tp_remote *rm, bool write, void *local, uint64_t remote,
                          uint64_t len)
{
	const uint64_t span = (uint64_t)XFER_PIECE * XFER_DEPTH;
	uint8_t *l = local;
	struct xfer_wait w;
	pthread_condattr_t ca;
	doca_error_t r = DOCA_SUCCESS;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w.cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&w.lock, NULL);
	for (uint64_t off = 0; off < len && r == DOCA_SUCCESS; off += span)
		r = xfer_window(&w, rm, l + off, remote + off, len - off < span ? len - off : span,
		                write);
	pthread_mutex_destroy(&w.lock);
	pthread_cond_destroy(&w.cond);
	return r;
}
