/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "test_util.h"

void fx_pattern(uint8_t *p, size_t n, unsigned int seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)x;
	}
}

static void fx_state_cb(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
                        enum doca_ctx_states next)
{
	struct fx *fx = ud.ptr;

	(void)ctx;
	(void)prev;
	fx->states++;
	fx->last_state = next;
}

void fx_ok_cb(struct doca_dma_task_memcpy *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct fx *fx = ctx_ud.ptr;

	(void)task_ud;
	fx->ok++;
	fx->last_status = doca_task_get_status(doca_dma_task_memcpy_as_task(task));
	if (fx->free_in_cb)
		doca_task_free(doca_dma_task_memcpy_as_task(task));
}

void fx_err_cb(struct doca_dma_task_memcpy *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct fx *fx = ctx_ud.ptr;

	(void)task_ud;
	fx->err++;
	fx->last_status = doca_task_get_status(doca_dma_task_memcpy_as_task(task));
	if (fx->free_in_cb)
		doca_task_free(doca_dma_task_memcpy_as_task(task));
}

static struct doca_dev *fx_open_memcpy_dev(void)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;

	assert_ok(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n && dev == NULL; i++)
		if (doca_dma_cap_task_memcpy_is_supported(list[i]) == DOCA_SUCCESS)
			assert_ok(doca_dev_open(list[i], &dev));
	assert_ok(doca_devinfo_destroy_list(list));
	assert_non_null(dev);
	return dev;
}

static struct doca_mmap *fx_mmap(struct fx *fx, void *addr, size_t len)
{
	struct doca_mmap *m;

	assert_ok(doca_mmap_create(&m));
	assert_ok(doca_mmap_add_dev(m, fx->dev));
	assert_ok(doca_mmap_set_memrange(m, addr, len));
	assert_ok(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	assert_ok(doca_mmap_start(m));
	return m;
}

void fx_init(struct fx *fx, size_t len, uint32_t num_tasks, bool start)
{
	union doca_data ud = { .ptr = fx };

	memset(fx, 0, sizeof(*fx));
	fx->free_in_cb = true;
	fx->len = len;
	fx->src = aligned_alloc(64, len);
	fx->dst = aligned_alloc(64, len);
	assert_non_null(fx->src);
	assert_non_null(fx->dst);
	fx_pattern(fx->src, len, 1);
	memset(fx->dst, 0, len);
	fx->dev = fx_open_memcpy_dev();
	assert_ok(doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(fx->dev),
	                                                    &fx->max_buf_size));
	assert_ok(doca_dma_cap_task_memcpy_get_max_buf_list_len(doca_dev_as_devinfo(fx->dev),
	                                                        &fx->max_list_len));
	fx->src_mmap = fx_mmap(fx, fx->src, len);
	fx->dst_mmap = fx_mmap(fx, fx->dst, len);
	assert_ok(doca_buf_inventory_create(1024, &fx->inv));
	assert_ok(doca_buf_inventory_start(fx->inv));
	assert_ok(doca_pe_create(&fx->pe));
	assert_ok(doca_dma_create(fx->dev, &fx->dma));
	fx->ctx = doca_dma_as_ctx(fx->dma);
	assert_ok(doca_ctx_set_state_changed_cb(fx->ctx, fx_state_cb));
	assert_ok(doca_ctx_set_user_data(fx->ctx, ud));
	assert_ok(doca_dma_task_memcpy_set_conf(fx->dma, fx_ok_cb, fx_err_cb, num_tasks));
	assert_ok(doca_pe_connect_ctx(fx->pe, fx->ctx));
	if (start)
		assert_ok(doca_ctx_start(fx->ctx));
}

bool fx_progress_until_idle(struct fx *fx, unsigned long max_loops)
{
	enum doca_ctx_states st;

	for (unsigned long i = 0; i < max_loops; i++) {
		assert_ok(doca_ctx_get_state(fx->ctx, &st));
		if (st == DOCA_CTX_STATE_IDLE)
			return true;
		doca_pe_progress(fx->pe);
	}
	return false;
}

bool fx_progress_until(struct fx *fx, unsigned int n, unsigned long max_loops)
{
	for (unsigned long i = 0; i < max_loops && fx->ok + fx->err < n; i++)
		doca_pe_progress(fx->pe);
	return fx->ok + fx->err >= n;
}

void fx_fini(struct fx *fx)
{
	doca_error_t r = doca_ctx_stop(fx->ctx);

	assert_true(r == DOCA_SUCCESS || r == DOCA_ERROR_IN_PROGRESS);
	assert_true(fx_progress_until_idle(fx, 100000000));
	assert_ok(doca_dma_destroy(fx->dma));
	assert_ok(doca_pe_destroy(fx->pe));
	assert_ok(doca_buf_inventory_stop(fx->inv));
	assert_ok(doca_buf_inventory_destroy(fx->inv));
	assert_ok(doca_mmap_destroy(fx->src_mmap));
	assert_ok(doca_mmap_destroy(fx->dst_mmap));
	assert_ok(doca_dev_close(fx->dev));
	free(fx->src);
	free(fx->dst);
}

struct doca_buf *fx_src_buf(struct fx *fx, size_t off, size_t n)
{
	struct doca_buf *b;

	assert_ok(doca_buf_inventory_buf_get_by_data(fx->inv, fx->src_mmap, fx->src + off, n, &b));
	return b;
}

struct doca_buf *fx_dst_buf(struct fx *fx, size_t off, size_t n)
{
	struct doca_buf *b;

	assert_ok(doca_buf_inventory_buf_get_by_addr(fx->inv, fx->dst_mmap, fx->dst + off, n, &b));
	return b;
}

struct doca_task *fx_task(struct fx *fx, struct doca_buf *src, struct doca_buf *dst, uint64_t ud)
{
	struct doca_dma_task_memcpy *t;
	union doca_data d = { .u64 = ud };

	assert_ok(doca_dma_task_memcpy_alloc_init(fx->dma, src, dst, d, &t));
	return doca_dma_task_memcpy_as_task(t);
}
