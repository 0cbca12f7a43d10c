/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* odma bench without UCX: --transport ucx is refused (built without libucx-dev). */
#include <stddef.h>

#include "bench.h"

int bench_ucx_export(int fd, void *buf, size_t len)
{
	(void)fd;
	(void)buf;
	(void)len;
	return -1;
}

struct bench_ucx *bench_ucx_import(int fd)
{
	(void)fd;
	return NULL;
}

int bench_ucx_rep(struct bench_ucx *u, uint8_t *local, uint64_t remote, size_t size, uint32_t depth,
                  double seconds, bool write, struct bench_rep *r)
{
	(void)write;
	(void)u;
	(void)local;
	(void)remote;
	(void)size;
	(void)depth;
	(void)seconds;
	(void)r;
	return -1;
}

void bench_ucx_close(struct bench_ucx *u)
{
	(void)u;
}

int bench_ucx_rep_op(struct bench_ucx *u, enum bench_ucx_op op, uint8_t *local, uint64_t remote,
                     uint64_t remote_stride, size_t size, uint32_t depth, double seconds,
                     struct bench_rep *r)
{
	(void)u;
	(void)op;
	(void)local;
	(void)remote;
	(void)remote_stride;
	(void)size;
	(void)depth;
	(void)seconds;
	(void)r;
	return -1;
}

uint64_t bench_ucx_remote_base(const struct bench_ucx *u)
{
	(void)u;
	return 0;
}
