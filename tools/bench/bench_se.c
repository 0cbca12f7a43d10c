/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * --sync-event: a DOCA sync event between two processes over the network transport (UCX over
 * TCP: ODMA_TRANSPORT=ucx on loopback, or a veth pair with --netns), as a host and a DPU on two
 * machines use one. The responder exports the event and loops in a blocking wait_gt on it,
 * answering each value with the next one; this process imports it and, in rounds, sets an odd
 * value and waits (blocking) for the even one after it. A round is two hand-offs across the
 * link, each an update reaching a waiter on the other side. Then late rounds: the responder
 * answers 20 ms late, and the figure is how long after its update this side's wait returned
 * (a wait that polled would see it up to its poll interval later). Beside them, from the same
 * run: the round trip of a raw UCX get of 8 bytes (ucp_get_nbx, one in flight) to the same
 * responder.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doca_dev.h>
#include <doca_sync_event.h>

#include "bench.h"

#define SE_STOP UINT64_MAX   /* the responder's last value: it leaves its loop */
#define SE_LATE (1ull << 62) /* a value from here on is answered SE_LATE_MS late */
#define SE_LATE_MS 20
#define SE_LATE_ROUNDS 10

/*
 * The responder (the DPU side): exports the event, serves the raw UCX baseline on 'U', then
 * answers every value with the next one until it sees SE_STOP.
 */
static int se_child(int ctl, void *arg)
{
	static uint8_t raw[64];
	struct doca_dev *dev = bench_open_pci("03:00.0");
	struct doca_sync_event *se;
	const uint8_t *blob;
	size_t sz;
	uint64_t len, v = 0, got = 0, t;
	char cmd;

	(void)arg;
	unsetenv("ODMA_TRACE");
	if (dev == NULL || doca_sync_event_create(&se) != DOCA_SUCCESS ||
	    doca_sync_event_add_publisher_location_remote_pci(se) != DOCA_SUCCESS ||
	    doca_sync_event_add_subscriber_location_cpu(se, dev) != DOCA_SUCCESS ||
	    doca_sync_event_start(se) != DOCA_SUCCESS ||
	    doca_sync_event_export_to_remote_pci(se, dev, &blob, &sz) != DOCA_SUCCESS)
		return 1;
	len = sz;
	if (!bench_full_io(ctl, &len, sizeof(len), true) ||
	    !bench_full_io(ctl, (void *)blob, sz, true) || !bench_full_io(ctl, &cmd, 1, false) ||
	    cmd != 'U')
		return 1;
	if (bench_ucx_export(ctl, raw, sizeof(raw)) != 0) {
		uint64_t none[3] = { 0, 0, 0 }; /* the requester reads no raw UCX row */

		if (!bench_full_io(ctl, none, sizeof(none), true))
			return 1;
	}
	for (;;) {
		if (doca_sync_event_wait_gt(se, v, UINT64_MAX) != DOCA_SUCCESS ||
		    doca_sync_event_get(se, &got) != DOCA_SUCCESS)
			return 1;
		if (got == SE_STOP)
			break;
		v = got + 1;
		if (got >= SE_LATE)
			usleep(SE_LATE_MS * 1000);
		t = bench_now_ns(); /* one clock: both processes run on this machine */
		if (doca_sync_event_update_set(se, v) != DOCA_SUCCESS ||
		    (got >= SE_LATE && !bench_full_io(ctl, &t, sizeof(t), true)))
			return 1;
	}
	/* the requester closes the control socket when it is done with the event */
	while (read(ctl, &cmd, 1) > 0)
		;
	(void)doca_sync_event_stop(se);
	(void)doca_sync_event_destroy(se);
	(void)doca_dev_close(dev);
	return 0;
}

/* The raw UCX round trip: gets of 8 bytes, one in flight, for @seconds; ns, or 0. */
static double se_raw_rtt(int ctl, double seconds)
{
	static uint8_t local[64];
	struct bench_ucx *u;
	struct bench_rep r = { 0 };
	double ns = 0;

	if (write(ctl, "U", 1) != 1 || (u = bench_ucx_import(ctl)) == NULL)
		return 0;
	if (bench_ucx_rep_op(u, BENCH_UCX_GET, local, bench_ucx_remote_base(u), 0, 8, 1, seconds,
	                     &r) == 0 &&
	    r.tasks > 0)
		ns = r.seconds * 1e9 / (double)r.tasks;
	bench_ucx_close(u);
	return ns;
}

/* Rounds for @seconds from value *@v: ns per round, or 0 when an update or a wait failed. */
static double se_rounds(struct doca_sync_event *se, double seconds, uint64_t *v, uint64_t *n)
{
	uint64_t t0 = bench_now_ns(), t;

	*n = 0;
	do {
		if (doca_sync_event_update_set(se, *v + 1) != DOCA_SUCCESS ||
		    doca_sync_event_wait_gt(se, *v + 1, UINT64_MAX) != DOCA_SUCCESS)
			return 0;
		*v += 2;
		(*n)++;
		t = bench_now_ns();
	} while ((double)(t - t0) < seconds * 1e9);
	return (double)(t - t0) / (double)*n;
}

/*
 * Late answers: the responder answers each value SE_LATE_MS late and says when it set the
 * answer; how long after that this side's blocking wait returned, the median of
 * SE_LATE_ROUNDS (ns), or 0 when a round failed.
 */
static double se_late(struct doca_sync_event *se, int ctl, uint64_t *v)
{
	double lag[SE_LATE_ROUNDS];

	if (*v < SE_LATE)
		*v = SE_LATE;
	for (int i = 0; i < SE_LATE_ROUNDS; i++) {
		uint64_t set_ns, woke_ns;

		if (doca_sync_event_update_set(se, *v + 1) != DOCA_SUCCESS ||
		    doca_sync_event_wait_gt(se, *v + 1, UINT64_MAX) != DOCA_SUCCESS)
			return 0;
		woke_ns = bench_now_ns();
		if (!bench_full_io(ctl, &set_ns, sizeof(set_ns), false))
			return 0;
		lag[i] = woke_ns > set_ns ? (double)(woke_ns - set_ns) : 0;
		*v += 2;
	}
	return bench_median(lag, SE_LATE_ROUNDS);
}

int bench_se_run(double seconds, bool netns, struct bench_se *out, char *err, size_t errlen)
{
	struct doca_dev *dev = NULL;
	struct doca_sync_event *se = NULL;
	uint8_t blob[1024];
	double reps[BENCH_SE_REPS];
	uint64_t len = 0, v = 0, n = 0;
	int ctl = -1, st = 0, rc = -1;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	out->netns = netns;
	if (!netns) /* one kernel: the sync event goes over UCX all the same */
		setenv("ODMA_TRANSPORT", "ucx", 1);
	pid = bench_responder_fork(netns, (unsigned int)(seconds * 4) + 60, se_child, NULL, &ctl,
	                           err, errlen);
	if (pid < 0)
		return -1;
	if (!bench_full_io(ctl, &len, sizeof(len), false) || len > sizeof(blob) ||
	    !bench_full_io(ctl, blob, len, false) || (dev = bench_open_pci("b1:00.0")) == NULL ||
	    doca_sync_event_create_from_export(dev, blob, len, &se) != DOCA_SUCCESS ||
	    doca_sync_event_start(se) != DOCA_SUCCESS) {
		snprintf(err, errlen,
		         "cannot set up the two sides of the sync event (see the log "
		         "lines; UCX must be built in)");
		goto done;
	}
	out->ucx_rtt_ns = se_raw_rtt(ctl, seconds / 4);
	(void)se_rounds(se, seconds / 8, &v, &n); /* warm-up */
	for (int i = 0; i < BENCH_SE_REPS; i++) {
		reps[i] = se_rounds(se, seconds / 2 / BENCH_SE_REPS, &v, &n);
		out->rounds += n;
		if (reps[i] <= 0) {
			snprintf(err, errlen, "an update or a wait failed (see the log lines)");
			goto done;
		}
	}
	out->roundtrip_ns = bench_median(reps, BENCH_SE_REPS);
	out->late_wake_ns = se_late(se, ctl, &v);
	if (out->late_wake_ns <= 0) {
		snprintf(err, errlen, "a late round failed (see the log lines)");
		goto done;
	}
	out->pingpong_ns = bench_pingpong_ns();
	rc = doca_sync_event_update_set(se, SE_STOP) == DOCA_SUCCESS ? 0 : -1;
	if (rc != 0)
		snprintf(err, errlen, "the last update failed");
done:
	close(ctl); /* the responder stops */
	if (pid > 0 && rc != 0)
		(void)kill(pid, SIGKILL); /* it may wait for a value that will not come */
	if (pid > 0)
		(void)waitpid(pid, &st, 0);
	if (se != NULL) {
		(void)doca_sync_event_stop(se);
		(void)doca_sync_event_destroy(se);
	}
	if (dev != NULL)
		(void)doca_dev_close(dev);
	return rc;
}
