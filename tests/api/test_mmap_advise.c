/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * DOCA mmap advise, black box: capabilities per side, the context rules, the exact buffer
 * checks of the invalidate-cache task, completion through the PE, and NVIDIA's sample flow
 * (a DMA copy whose completion submits an invalidation of its source).
 */
#include <stdbool.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_mmap_advise.h>
#include <doca_pe.h>

#include "test_util.h"

struct counts {
	unsigned int ok, err, dma;
	doca_error_t last;
	struct doca_mmap_advise_task_invalidate_cache *inv_task; /* the sample flow */
};

static void inv_ok(struct doca_mmap_advise_task_invalidate_cache *t, union doca_data tud,
                   union doca_data cud)
{
	struct counts *c = cud.ptr;

	(void)t;
	(void)tud;
	c->ok++;
}

static void inv_err(struct doca_mmap_advise_task_invalidate_cache *t, union doca_data tud,
                    union doca_data cud)
{
	struct counts *c = cud.ptr;

	(void)tud;
	c->err++;
	c->last = doca_task_get_status(doca_mmap_advise_task_invalidate_cache_as_doca_task(t));
}

static void test_caps(void **state)
{
	struct doca_devinfo **list;
	struct doca_mmap_advise *ma;
	struct doca_dev *host = tu_open_dev("b1:00.0");
	uint64_t sz;
	uint32_t n;

	(void)state;
	assert_ok(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n; i++) {
		char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];
		bool dpu;

		assert_ok(doca_devinfo_get_pci_addr_str(list[i], pci));
		dpu = strncmp(pci, "0000:03:", 8) == 0;
		assert_doca(dpu ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED,
		            doca_mmap_advise_cap_task_cache_invalidate_is_supported(list[i]));
		assert_doca(dpu ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED,
		            doca_mmap_advise_task_cache_invalidate_get_max_buf_size(list[i], &sz));
		if (dpu)
			assert_int_equal(sz, 2 * 1024 * 1024);
	}
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_mmap_advise_task_cache_invalidate_get_max_buf_size(list[0], NULL));
	assert_ok(doca_devinfo_destroy_list(list));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_mmap_advise_cap_task_cache_invalidate_is_supported(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_mmap_advise_task_cache_invalidate_get_max_buf_size(NULL, &sz));
	/* the host side cannot invalidate Arm caches */
	assert_doca(DOCA_ERROR_NOT_SUPPORTED, doca_mmap_advise_create(host, &ma));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_advise_create(NULL, &ma));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_advise_create(host, NULL));
	assert_ok(doca_dev_close(host));
}

struct setup {
	struct doca_dev *dev;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	struct doca_pe *pe;
	struct doca_mmap_advise *ma;
	struct doca_ctx *ctx;
	uint8_t mem[8192];
};

static void setup_up(struct setup *s, struct counts *c, uint32_t num)
{
	memset(s, 0, sizeof(*s));
	s->dev = tu_open_dev("03:00.0");
	assert_ok(doca_mmap_create(&s->mmap));
	assert_ok(doca_mmap_set_memrange(s->mmap, s->mem, sizeof(s->mem)));
	assert_ok(doca_mmap_add_dev(s->mmap, s->dev));
	assert_ok(doca_mmap_set_permissions(s->mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	assert_ok(doca_mmap_start(s->mmap));
	assert_ok(doca_buf_inventory_create(16, &s->inv));
	assert_ok(doca_buf_inventory_start(s->inv));
	assert_ok(doca_pe_create(&s->pe));
	assert_ok(doca_mmap_advise_create(s->dev, &s->ma));
	s->ctx = doca_mmap_advise_as_ctx(s->ma);
	assert_non_null(s->ctx);
	assert_ok(doca_pe_connect_ctx(s->pe, s->ctx));
	assert_ok(doca_ctx_set_user_data(s->ctx, (union doca_data){ .ptr = c }));
	if (num != 0) {
		assert_ok(doca_mmap_advise_task_invalidate_cache_set_conf(s->ma, inv_ok, inv_err,
		                                                          num));
		assert_ok(doca_ctx_start(s->ctx)); /* synchronous */
	}
}

static void setup_down(struct setup *s)
{
	(void)doca_ctx_stop(s->ctx);
	assert_ok(doca_mmap_advise_destroy(s->ma));
	assert_ok(doca_pe_destroy(s->pe));
	assert_ok(doca_buf_inventory_destroy(s->inv));
	assert_ok(doca_mmap_destroy(s->mmap));
	assert_ok(doca_dev_close(s->dev));
}

static void test_conf_rules(void **state)
{
	struct setup s;
	struct counts c = { 0 };
	struct doca_mmap_advise_task_invalidate_cache *t;
	union doca_data ud = { .u64 = 0 };

	(void)state;
	setup_up(&s, &c, 0);
	assert_null(doca_mmap_advise_as_ctx(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_mmap_advise_task_invalidate_cache_set_conf(NULL, inv_ok, inv_err, 1));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_mmap_advise_task_invalidate_cache_set_conf(s.ma, NULL, inv_err, 1));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_mmap_advise_task_invalidate_cache_set_conf(s.ma, inv_ok, NULL, 1));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_mmap_advise_task_invalidate_cache_set_conf(s.ma, inv_ok, inv_err, 0));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_mmap_advise_task_invalidate_cache_set_conf(s.ma, inv_ok, inv_err, 65537));
	assert_doca(DOCA_ERROR_BAD_CONFIG, doca_ctx_start(s.ctx));
	assert_doca(DOCA_ERROR_BAD_STATE,
	            doca_mmap_advise_task_invalidate_cache_alloc_init(s.ma, NULL, ud, &t));
	assert_ok(doca_mmap_advise_task_invalidate_cache_set_conf(s.ma, inv_ok, inv_err, 1));
	assert_ok(doca_ctx_start(s.ctx));
	assert_doca(DOCA_ERROR_NOT_PERMITTED,
	            doca_mmap_advise_task_invalidate_cache_set_conf(s.ma, inv_ok, inv_err, 1));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_mmap_advise_destroy(s.ma));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_mmap_advise_task_invalidate_cache_alloc_init(NULL, NULL, ud, &t));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_mmap_advise_task_invalidate_cache_alloc_init(s.ma, NULL, ud, NULL));
	assert_ok(doca_mmap_advise_task_invalidate_cache_alloc_init(s.ma, NULL, ud, &t));
	{
		struct doca_mmap_advise_task_invalidate_cache *t2;

		assert_doca(DOCA_ERROR_NO_MEMORY,
		            doca_mmap_advise_task_invalidate_cache_alloc_init(s.ma, NULL, ud, &t2));
	}
	doca_task_free(doca_mmap_advise_task_invalidate_cache_as_doca_task(t));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_mmap_advise_destroy(NULL));
	setup_down(&s);
}

static void test_buf_rules_and_completion(void **state)
{
	struct setup s;
	struct counts c = { 0 };
	struct doca_mmap_advise_task_invalidate_cache *t;
	struct doca_buf *b, *empty, *big, *b2, *released;
	union doca_data ud = { .u64 = 77 };
	struct doca_task *dt;

	(void)state;
	setup_up(&s, &c, 2);
	assert_ok(doca_buf_inventory_buf_get_by_data(s.inv, s.mmap, s.mem, 64, &b));
	assert_ok(doca_buf_inventory_buf_get_by_addr(s.inv, s.mmap, s.mem, 64, &empty));
	assert_ok(doca_buf_inventory_buf_get_by_data(s.inv, s.mmap, s.mem + 64, 64, &b2));
	assert_ok(doca_buf_inventory_buf_get_by_data(s.inv, s.mmap, s.mem + 128, 64, &released));
	assert_ok(doca_buf_dec_refcount(released, NULL));
	/* checked at alloc_init when given */
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_mmap_advise_task_invalidate_cache_alloc_init(s.ma, empty, ud, &t));
	assert_ok(doca_mmap_advise_task_invalidate_cache_alloc_init(s.ma, NULL, ud, &t));
	dt = doca_mmap_advise_task_invalidate_cache_as_doca_task(t);
	assert_non_null(dt);
	assert_null(doca_mmap_advise_task_invalidate_cache_as_doca_task(NULL));
	assert_null(doca_mmap_advise_task_invalidate_cache_get_buf(t));
	assert_null(doca_mmap_advise_task_invalidate_cache_get_buf(NULL));
	doca_mmap_advise_task_invalidate_cache_set_buf(NULL, b); /* logged, nothing else */
	/* and at submit */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_submit(dt)); /* no buf */
	doca_mmap_advise_task_invalidate_cache_set_buf(t, empty);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_submit(dt)); /* no data */
	doca_mmap_advise_task_invalidate_cache_set_buf(t, released);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_submit(dt)); /* released */
	assert_ok(doca_buf_chain_list(b, b2));
	doca_mmap_advise_task_invalidate_cache_set_buf(t, b);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_task_submit(dt)); /* a list */
	assert_ok(doca_buf_unchain_list(b, b2));
	assert_ptr_equal(doca_mmap_advise_task_invalidate_cache_get_buf(t), b);
	assert_ok(doca_task_submit(dt));
	doca_mmap_advise_task_invalidate_cache_set_buf(t, b2); /* in flight: ignored */
	assert_ptr_equal(doca_mmap_advise_task_invalidate_cache_get_buf(t), b);
	assert_int_equal(c.ok, 0); /* never inside submit */
	assert_true(doca_pe_progress(s.pe));
	assert_int_equal(c.ok, 1);
	assert_int_equal(doca_task_get_status(dt), DOCA_SUCCESS);
	assert_int_equal(doca_task_get_user_data(dt).u64, 77);
	/* the buffer is untouched (no data_len change: not a copy) */
	{
		size_t len;

		assert_ok(doca_buf_get_data_len(b, &len));
		assert_int_equal(len, 64);
	}
	/* resubmit after completion */
	assert_ok(doca_task_submit(dt));
	assert_true(doca_pe_progress(s.pe));
	assert_int_equal(c.ok, 2);
	doca_task_free(dt);
	/* above the size limit */
	{
		struct doca_mmap *bigmap;
		static uint8_t bigmem[2 * 1024 * 1024 + 4096];

		assert_ok(doca_mmap_create(&bigmap));
		assert_ok(doca_mmap_set_memrange(bigmap, bigmem, sizeof(bigmem)));
		assert_ok(doca_mmap_add_dev(bigmap, s.dev));
		assert_ok(doca_mmap_start(bigmap));
		assert_ok(doca_buf_inventory_buf_get_by_data(s.inv, bigmap, bigmem, sizeof(bigmem),
		                                             &big));
		assert_doca(DOCA_ERROR_INVALID_VALUE,
		            doca_mmap_advise_task_invalidate_cache_alloc_init(s.ma, big, ud, &t));
		assert_ok(doca_buf_dec_refcount(big, NULL));
		assert_ok(doca_mmap_destroy(bigmap));
	}
	assert_int_equal(c.err, 0);
	assert_ok(doca_buf_dec_refcount(b, NULL));
	assert_ok(doca_buf_dec_refcount(b2, NULL));
	assert_ok(doca_buf_dec_refcount(empty, NULL));
	assert_ok(doca_ctx_stop(s.ctx));
	setup_down(&s);
}

/* Submits an invalidation of the 64 bytes at @mem through @m: the code, and no callback. */
static doca_error_t submit_on(struct setup *s, struct counts *c, struct doca_mmap *m, uint8_t *mem)
{
	struct doca_mmap_advise_task_invalidate_cache *t;
	union doca_data ud = { .u64 = 0 };
	struct doca_buf *b;
	doca_error_t r;

	assert_ok(doca_buf_inventory_buf_get_by_data(s->inv, m, mem, 64, &b));
	assert_ok(doca_mmap_advise_task_invalidate_cache_alloc_init(s->ma, b, ud, &t));
	r = doca_task_submit(doca_mmap_advise_task_invalidate_cache_as_doca_task(t));
	for (int i = 0; i < 8; i++)
		(void)doca_pe_progress(s->pe);
	assert_int_equal(c->ok + c->err, r == DOCA_SUCCESS ? 1 : 0);
	doca_task_free(doca_mmap_advise_task_invalidate_cache_as_doca_task(t));
	assert_ok(doca_buf_dec_refcount(b, NULL));
	return r;
}

/*
 * The memory rules every task's buffer meets (docs/preconditions.md M15, M16): the mmap was
 * given the context's device (else the device has no memory key there: NOT_PERMITTED) and is
 * registered, started (a thread-safe mmap may be stopped under its bufs: BAD_STATE).
 */
static void test_memory_rules(void **state)
{
	static uint8_t mem[4096];
	struct doca_mmap_advise_task_invalidate_cache *t;
	struct doca_mmap *nodev, *ts;
	struct counts c = { 0 };
	struct doca_buf *b;
	struct setup s;

	(void)state;
	setup_up(&s, &c, 2);
	assert_ok(doca_mmap_create(&nodev));
	assert_ok(doca_mmap_set_memrange(nodev, mem, sizeof(mem)));
	assert_ok(doca_mmap_start(nodev));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, submit_on(&s, &c, nodev, mem));
	assert_ok(doca_mmap_create(&ts));
	assert_ok(doca_mmap_set_memrange(ts, mem, sizeof(mem)));
	assert_ok(doca_mmap_add_dev(ts, s.dev));
	assert_ok(doca_mmap_enable_thread_safety(ts));
	assert_ok(doca_mmap_start(ts));
	assert_ok(submit_on(&s, &c, ts, mem));
	c.ok = 0;
	assert_ok(doca_buf_inventory_buf_get_by_data(s.inv, ts, mem, 64, &b));
	assert_ok(doca_mmap_advise_task_invalidate_cache_alloc_init(s.ma, b, (union doca_data){ 0 },
	                                                            &t));
	assert_ok(doca_mmap_stop(ts)); /* thread-safe: it stops under its buf */
	assert_doca(DOCA_ERROR_BAD_STATE,
	            doca_task_submit(doca_mmap_advise_task_invalidate_cache_as_doca_task(t)));
	doca_task_free(doca_mmap_advise_task_invalidate_cache_as_doca_task(t));
	assert_ok(doca_buf_dec_refcount(b, NULL));
	assert_int_equal(c.ok + c.err, 0);
	assert_ok(doca_mmap_destroy(ts));
	assert_ok(doca_mmap_destroy(nodev));
	assert_ok(doca_ctx_stop(s.ctx));
	setup_down(&s);
}

/* NVIDIA's flow: DMA and mmap advise on one PE; the DMA completion submits the invalidation. */
static void dma_ok(struct doca_dma_task_memcpy *t, union doca_data tud, union doca_data cud)
{
	struct counts *c = cud.ptr;

	(void)t;
	(void)tud;
	c->dma++;
	c->last =
	        doca_task_submit(doca_mmap_advise_task_invalidate_cache_as_doca_task(c->inv_task));
}

static void dma_err(struct doca_dma_task_memcpy *t, union doca_data tud, union doca_data cud)
{
	(void)t;
	(void)tud;
	((struct counts *)cud.ptr)->err++;
}

static void test_sample_flow(void **state)
{
	struct setup s;
	struct counts c = { 0 };
	struct doca_dma *dma;
	struct doca_dma_task_memcpy *mt;
	struct doca_buf *src, *dst;
	union doca_data ud = { .u64 = 0 };

	(void)state;
	setup_up(&s, &c, 1);
	memset(s.mem, 0x5a, 4096);
	assert_ok(doca_dma_create(s.dev, &dma));
	assert_ok(doca_pe_connect_ctx(s.pe, doca_dma_as_ctx(dma)));
	assert_ok(doca_ctx_set_user_data(doca_dma_as_ctx(dma), (union doca_data){ .ptr = &c }));
	assert_ok(doca_dma_task_memcpy_set_conf(dma, dma_ok, dma_err, 1));
	assert_ok(doca_ctx_start(doca_dma_as_ctx(dma)));
	assert_ok(doca_buf_inventory_buf_get_by_data(s.inv, s.mmap, s.mem, 4096, &src));
	assert_ok(doca_buf_inventory_buf_get_by_addr(s.inv, s.mmap, s.mem + 4096, 4096, &dst));
	assert_ok(doca_dma_task_memcpy_alloc_init(dma, src, dst, ud, &mt));
	assert_ok(doca_mmap_advise_task_invalidate_cache_alloc_init(s.ma, src, ud, &c.inv_task));
	assert_ok(doca_task_submit(doca_dma_task_memcpy_as_task(mt)));
	for (int i = 0; i < 100000 && c.ok == 0; i++)
		(void)doca_pe_progress(s.pe);
	assert_int_equal(c.dma, 1);
	assert_ok(c.last);
	assert_int_equal(c.ok, 1);
	assert_memory_equal(s.mem, s.mem + 4096, 4096);
	doca_task_free(doca_dma_task_memcpy_as_task(mt));
	doca_task_free(doca_mmap_advise_task_invalidate_cache_as_doca_task(c.inv_task));
	assert_ok(doca_buf_dec_refcount(src, NULL));
	assert_ok(doca_buf_dec_refcount(dst, NULL));
	assert_ok(doca_ctx_stop(doca_dma_as_ctx(dma)));
	assert_ok(doca_dma_destroy(dma));
	assert_ok(doca_ctx_stop(s.ctx));
	setup_down(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_conf_rules),
		cmocka_unit_test(test_buf_rules_and_completion),
		cmocka_unit_test(test_memory_rules),
		cmocka_unit_test(test_sample_flow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
