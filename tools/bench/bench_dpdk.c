/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The peer: DPDK's dmadev API driving the software dma_skeleton driver, in this process,
 * on the very buffers odma used. The skeleton's copy thread runs on lcore 0 (CPU 0) and
 * this thread submits from CPU 1 while the peer is measured; the thread's own CPU set is
 * restored afterwards so that odma's engine is never confined by EAL's pinning.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <rte_dmadev.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include "bench.h"

#define PEER_NAME "dma_skeleton"

static char *eal_default[] = { "odma-bench",
	                       "--no-huge",
	                       "-m",
	                       "1024",
	                       "--no-pci",
	                       "--vdev=" PEER_NAME ",lcore=0",
	                       "-l",
	                       "0,1",
	                       "--main-lcore",
	                       "1",
	                       "--log-level=error",
	                       "--no-shconf",
	                       "--no-telemetry" };
static struct {
	int argc;
	char **argv;
	int16_t dev;
	bool up;
} peer = { .argc = (int)(sizeof(eal_default) / sizeof(eal_default[0])),
	   .argv = eal_default,
	   .dev = -1 };

bool bench_dpdk_available(void)
{
	return true;
}

/* Arguments after "--" replace the default EAL arguments. doca_argp hands them over in
 * a temporary array (argv[0] is the program), so keep a copy. */
void bench_dpdk_set_eal_args(int argc, char **argv)
{
	static char *copy[64];

	if (argc <= 1)
		return;
	if (argc > 63)
		argc = 63;
	copy[0] = "odma-bench";
	for (int i = 1; i < argc; i++)
		copy[i] = strdup(argv[i]);
	peer.argc = argc;
	peer.argv = copy;
}

int bench_dpdk_init(char *err, size_t errlen)
{
	cpu_set_t saved;
	char *argv[64];
	int argc = peer.argc < 64 ? peer.argc : 64;

	if (peer.up)
		return 0;
	memcpy(argv, peer.argv, (size_t)argc * sizeof(char *));
	pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved);
	if (rte_eal_init(argc, argv) < 0) {
		snprintf(err, errlen, "rte_eal_init failed (%s)", rte_strerror(rte_errno));
		return -1;
	}
	pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
	peer.up = true;
	if (rte_eal_iova_mode() != RTE_IOVA_VA) {
		snprintf(
		        err, errlen,
		        "EAL chose IOVA as PA; the skeleton needs IOVA as VA (add --iova-mode=va)");
		return -1;
	}
	peer.dev = (int16_t)rte_dma_get_dev_id_by_name(PEER_NAME);
	if (peer.dev < 0) {
		snprintf(err, errlen, "no dmadev named %s (is librte_dma_skeleton installed?)",
		         PEER_NAME);
		return -1;
	}
	return 0;
}

void bench_dpdk_fini(void)
{
	if (peer.up)
		rte_eal_cleanup();
	peer.up = false;
}

static int peer_start(uint32_t depth, char *err, size_t errlen)
{
	struct rte_dma_conf conf = { .nb_vchans = 1 };
	struct rte_dma_vchan_conf vc = { .direction = RTE_DMA_DIR_MEM_TO_MEM, .nb_desc = 1024 };
	struct rte_dma_info info;

	if (rte_dma_info_get(peer.dev, &info) != 0) {
		snprintf(err, errlen, "rte_dma_info_get failed");
		return -1;
	}
	while (vc.nb_desc < depth && vc.nb_desc < info.max_desc)
		vc.nb_desc *= 2;
	if (vc.nb_desc < depth || vc.nb_desc > info.max_desc) {
		snprintf(err, errlen, "depth %u is above the skeleton's ring limit %u", depth,
		         info.max_desc);
		return -1;
	}
	if (rte_dma_configure(peer.dev, &conf) != 0 || rte_dma_vchan_setup(peer.dev, 0, &vc) != 0 ||
	    rte_dma_start(peer.dev) != 0) {
		snprintf(err, errlen, "cannot configure/start the skeleton (ring %u)", vc.nb_desc);
		return -1;
	}
	return 0;
}

/* Copies slot *@slot and advances it (no division: the same bookkeeping as the odma loop). */
static inline int peer_copy(const struct bench_mem *m, size_t *slot, uint64_t flags)
{
	size_t off = *slot * m->stride;

	if (++*slot == m->n_slots)
		*slot = 0;
	return rte_dma_copy(peer.dev, 0, (rte_iova_t)(uintptr_t)(m->src + off),
	                    (rte_iova_t)(uintptr_t)(m->dst + off), (uint32_t)m->task_size, flags);
}

/* Keeps @depth copies in flight; tickets complete in order, so slot = ticket % n_slots
 * is never shared by two copies in flight. */
static int peer_throughput(const struct bench_cfg *c, const struct bench_mem *m, uint64_t end,
                           uint64_t *done)
{
	uint64_t inflight = 0, n = 0;
	size_t slot = 0;
	uint16_t last, got;
	bool error = false;
	int loops = 0;

	for (;;) {
		while (inflight < c->depth && peer_copy(m, &slot, 0) >= 0)
			inflight++;
		rte_dma_submit(peer.dev, 0);
		got = rte_dma_completed(peer.dev, 0, 64, &last, &error);
		inflight -= got;
		n += got;
		if (error)
			return -1;
		if (++loops % 64 == 0) {
			if (bench_now_ns() >= end)
				break;
			bench_progress_tick(n);
		}
	}
	*done = n;
	while (inflight > 0 && !error)
		inflight -= rte_dma_completed(peer.dev, 0, 64, &last, &error);
	return error ? -1 : 0;
}

static int peer_latency(const struct bench_mem *m, uint64_t end, uint64_t *lat, size_t cap,
                        size_t *nlat)
{
	uint64_t j = 0, t0;
	size_t slot = 0;
	uint16_t last;
	bool error = false;

	*nlat = 0;
	while (*nlat < cap) {
		t0 = bench_now_ns();
		j++;
		if (peer_copy(m, &slot, RTE_DMA_OP_FLAG_SUBMIT) < 0)
			return -1;
		while (rte_dma_completed(peer.dev, 0, 1, &last, &error) == 0 && !error)
			;
		if (error)
			return -1;
		lat[(*nlat)++] = bench_now_ns() - t0;
		if (j % 64 == 0) {
			if (bench_now_ns() >= end)
				break;
			bench_progress_tick(j);
		}
	}
	return 0;
}

int bench_dpdk_rep(const struct bench_cfg *c, const struct bench_mem *m, double seconds,
                   struct bench_rep *r, char *err, size_t errlen)
{
	static uint64_t lat[1u << 21];
	cpu_set_t saved;
	uint64_t t0, end, done = 0;
	size_t nlat = 0;
	int rc;

	if (c->mode == BENCH_EVENT) {
		snprintf(err, errlen,
		         "dmadev has no completion notification; "
		         "the peer runs in throughput and latency modes");
		return -1;
	}
	if (peer_start(c->mode == BENCH_LATENCY ? 1 : c->depth, err, errlen) != 0)
		return -1;
	pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved);
	bench_pin_self(1);
	bench_slot_clear(m);
	t0 = bench_now_ns();
	end = t0 + (uint64_t)(seconds * 1e9);
	if (c->mode == BENCH_LATENCY)
		rc = peer_latency(m, end, lat, sizeof(lat) / sizeof(lat[0]), &nlat);
	else
		rc = peer_throughput(c, m, end, &done);
	r->seconds = (double)(bench_now_ns() - t0) / 1e9;
	r->tasks = c->mode == BENCH_LATENCY ? nlat : done;
	r->p50_ns = bench_percentile_u64(lat, nlat, 50);
	r->p99_ns = bench_percentile_u64(lat, nlat, 99);
	rte_dma_stop(peer.dev);
	pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
	r->verified = rc == 0 && bench_slot_check(m);
	if (rc != 0)
		snprintf(err, errlen, "the skeleton reported a failed copy");
	return rc;
}
