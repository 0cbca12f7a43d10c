/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * dma_local_copy: one DMA memcpy task between two buffers of the same process.
 *
 *   dma_local_copy [-p PCI] [-t TEXT | --size BYTES]
 *
 * With -t, the text is copied and the destination printed; otherwise BYTES (default 64 KiB)
 * of generated data are copied. Either way the destination is compared with the source and
 * the program exits 0 only if they match.
 */
#include <stdio.h>
#include <stdlib.h>

#include <doca_log.h>

#include "sample_common.h"

DOCA_LOG_REGISTER(DMA_LOCAL_COPY);

#define DEFAULT_SIZE (64 * 1024)

struct copy_result {
	uint32_t done;
	doca_error_t status;
};

static void copy_done(struct doca_dma_task_memcpy *task, union doca_data task_user,
                      union doca_data ctx_user)
{
	struct copy_result *res = ctx_user.ptr;

	(void)task_user;
	res->status = doca_task_get_status(doca_dma_task_memcpy_as_task(task));
	res->done++;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

/* FNV-1a, to print a short fingerprint of the copied bytes. */
static uint32_t checksum(const uint8_t *p, size_t len)
{
	uint32_t h = 2166136261u;

	while (len-- > 0)
		h = (h ^ *p++) * 16777619u;
	return h;
}

static void report(const struct copy_bench *b)
{
	if (b->text != NULL)
		DOCA_LOG_INFO("Destination now holds: \"%.*s\"", (int)b->buf_size,
		              (const char *)bench_dst_bytes(b, 0));
	DOCA_LOG_INFO("Copied %zu bytes with one DMA memcpy task; "
	              "destination matches the source (FNV-1a 0x%08x)",
	              b->buf_size, checksum(bench_dst_bytes(b, 0), b->buf_size));
}

static doca_error_t copy_once(struct copy_bench *b)
{
	struct copy_result res = { .done = 0, .status = DOCA_ERROR_UNKNOWN };
	struct doca_dma_task_memcpy *task = NULL;
	union doca_data none = { .u64 = 0 };
	struct doca_dma *dma = NULL;
	doca_error_t err = bench_dma_start(b, 1, copy_done, copy_done, NULL, &res, &dma);

	if (err != DOCA_SUCCESS)
		return err;
	err = doca_dma_task_memcpy_alloc_init(dma, b->src[0], b->dst[0], none, &task);
	if (err == DOCA_SUCCESS) {
		err = doca_task_submit(doca_dma_task_memcpy_as_task(task));
		if (err != DOCA_SUCCESS)
			doca_task_free(doca_dma_task_memcpy_as_task(task));
	}
	if (err == DOCA_SUCCESS)
		err = bench_wait_count(b, &res.done, 1);
	if (err == DOCA_SUCCESS)
		err = res.status;
	if (err != DOCA_SUCCESS)
		DOCA_LOG_ERR("The DMA copy failed: %s", doca_error_get_descr(err));
	bench_dma_destroy(b, dma);
	return err;
}

int main(int argc, char **argv)
{
	struct sample_config cfg;
	struct copy_bench b;
	doca_error_t err = sample_init("dma_local_copy", argc, argv, true, &cfg);

	if (err != DOCA_SUCCESS)
		return EXIT_FAILURE;
	if (cfg.size != 0 && cfg.text[0] != '\0') {
		DOCA_LOG_ERR("Give either -t/--text or --size, not both");
		sample_fini();
		return EXIT_FAILURE;
	}
	err = bench_open(&b, &cfg, 1, cfg.size != 0 ? cfg.size : DEFAULT_SIZE);
	if (err == DOCA_SUCCESS) {
		err = copy_once(&b);
		if (err == DOCA_SUCCESS && !bench_pair_ok(&b, 0)) {
			DOCA_LOG_ERR("The destination does not match the source");
			err = DOCA_ERROR_UNEXPECTED;
		}
		if (err == DOCA_SUCCESS)
			report(&b);
		bench_close(&b);
	}
	sample_fini();
	return err == DOCA_SUCCESS ? EXIT_SUCCESS : EXIT_FAILURE;
}
