/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* This build has no libdpdk: the peer is absent and says so. */
#include <stdio.h>

#include "bench.h"

bool bench_dpdk_available(void)
{
	return false;
}

void bench_dpdk_set_eal_args(int argc, char **argv)
{
	(void)argc;
	(void)argv;
}

int bench_dpdk_init(char *err, size_t errlen)
{
	snprintf(err, errlen,
	         "this odma-bench was built without libdpdk, so it has no DPDK peer; install "
	         "libdpdk-dev and reconfigure (meson setup --reconfigure -Ddpdk=enabled)");
	return -1;
}

int bench_dpdk_rep(const struct bench_cfg *c, const struct bench_mem *m, double seconds,
                   struct bench_rep *r, char *err, size_t errlen)
{
	(void)c;
	(void)m;
	(void)seconds;
	(void)r;
	return bench_dpdk_init(err, errlen);
}

void bench_dpdk_fini(void)
{
}
