/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* A ready DMA set-up for tests: device, two local mmaps, inventory, PE, started DMA context. */
#ifndef ODMA_TEST_FIXTURE_H_
#define ODMA_TEST_FIXTURE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

struct fx {
	struct doca_dev *dev;
	struct doca_mmap *src_mmap, *dst_mmap;
	struct doca_buf_inventory *inv;
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_ctx *ctx;
	uint8_t *src, *dst;
	size_t len;
	uint64_t max_buf_size;
	uint32_t max_list_len;
	/* counters filled by the default callbacks */
	unsigned int ok, err, states;
	enum doca_ctx_states last_state;
	doca_error_t last_status;
	bool free_in_cb;
};

/* Opens the first device that supports memcpy, maps two @len buffers, creates everything;
 * starts the context when @start. @num_tasks is the pool size. Asserts on failure. */
void fx_init(struct fx *fx, size_t len, uint32_t num_tasks, bool start);
/* Stops (progressing to IDLE) and destroys everything. */
void fx_fini(struct fx *fx);
/* Progresses until the context is IDLE or @max_loops passes; returns whether IDLE. */
bool fx_progress_until_idle(struct fx *fx, unsigned long max_loops);
/* Progresses until ok+err reaches @n; returns whether it did. */
bool fx_progress_until(struct fx *fx, unsigned int n, unsigned long max_loops);
/* Default callbacks: count and (when free_in_cb) free the task. */
void fx_ok_cb(struct doca_dma_task_memcpy *task, union doca_data task_ud, union doca_data ctx_ud);
void fx_err_cb(struct doca_dma_task_memcpy *task, union doca_data task_ud, union doca_data ctx_ud);
/* Fills @p with a pattern derived from @seed. */
void fx_pattern(uint8_t *p, size_t n, unsigned int seed);
/* A source buf with data [off, off+n) of fx->src and a destination buf (empty) at dst+off. */
struct doca_buf *fx_src_buf(struct fx *fx, size_t off, size_t n);
struct doca_buf *fx_dst_buf(struct fx *fx, size_t off, size_t n);
/* Allocates a task for src/dst with user data @ud. */
struct doca_task *fx_task(struct fx *fx, struct doca_buf *src, struct doca_buf *dst, uint64_t ud);

#endif
