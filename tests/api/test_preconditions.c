/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The preconditions DOCA documents for Core objects and DMA tasks (docs/preconditions.md),
 * row by row: each broken rule gives its documented code and exactly one log line that names
 * the rule, and the object stays usable afterwards. Rows checked elsewhere name their test in
 * the table (api_perms, api_graph, xproc_rules, comch_*, rdma_*).
 */
#include <string.h>

#include <doca_buf_pool.h>
#include <doca_clock.h>
#include <doca_log.h>

#include "fixture.h"
#include "test_util.h"

/* Starts the SDK log's capture (tu_log_lines) before the first test. */
static int capture_log(void **state)
{
	unsigned int hit;

	(void)state;
	(void)tu_log_lines("", &hit);
	return 0;
}

/* A broken rule: @got is @want and exactly one line was logged, containing @what. */
#define expect_rule(want, what, call)                                                              \
	do {                                                                                       \
		unsigned int _hit, _n;                                                             \
		(void)tu_log_lines("", &_hit);                                                     \
		assert_doca(want, call);                                                           \
		_n = tu_log_lines(what, &_hit);                                                    \
		if (_n != 1 || _hit != 1)                                                          \
			fail_msg("%s: %u log lines, %u with \"%s\" (want 1 and 1)", #call, _n,     \
			         _hit, what);                                                      \
	} while (0)

static uint8_t mem[16384];

/* A local mmap over [mem + off, +len) on @dev (NULL: none), not started. */
static struct doca_mmap *new_mmap(struct doca_dev *dev, size_t off, size_t len)
{
	struct doca_mmap *m;

	assert_ok(doca_mmap_create(&m));
	if (dev != NULL)
		assert_ok(doca_mmap_add_dev(m, dev));
	assert_ok(doca_mmap_set_memrange(m, mem + off, len));
	return m;
}

static void noop_free(void *addr, size_t len, void *cookie)
{
	(void)addr;
	(void)len;
	(void)cookie;
}

/*
 * Core Memory: an mmap is configured before doca_mmap_start and not after (rows M1-M8, M13, M14).
 */
static void mmap_lifecycle(void **state)
{
	struct doca_dev *dev = tu_open_dev(NULL);
	struct doca_buf_inventory *inv;
	struct doca_mmap *m;
	struct doca_buf *b;

	(void)state;
	/* M1: the memory range is mandatory */
	assert_ok(doca_mmap_create(&m));
	assert_ok(doca_mmap_add_dev(m, dev));
	expect_rule(DOCA_ERROR_BAD_STATE, "no memory range", doca_mmap_start(m));
	/* M2: set once */
	assert_ok(doca_mmap_set_memrange(m, mem, 4096));
	expect_rule(DOCA_ERROR_NOT_PERMITTED, "can be set once",
	            doca_mmap_set_memrange(m, mem, 4096));
	/* M5: each device once; only an added device is removed */
	expect_rule(DOCA_ERROR_ALREADY_EXIST, "already added", doca_mmap_add_dev(m, dev));
	assert_ok(doca_mmap_rm_dev(m, dev));
	expect_rule(DOCA_ERROR_NOT_FOUND, "", doca_mmap_rm_dev(m, dev));
	assert_ok(doca_mmap_add_dev(m, dev));
	assert_ok(doca_mmap_start(m));
	/* M3: no setter on a started mmap */
	expect_rule(DOCA_ERROR_BAD_STATE, "is started",
	            doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	expect_rule(DOCA_ERROR_BAD_STATE, "is started",
	            doca_mmap_set_user_data(m, (union doca_data){ .u64 = 1 }));
	expect_rule(DOCA_ERROR_BAD_STATE, "is started", doca_mmap_set_free_cb(m, noop_free, NULL));
	expect_rule(DOCA_ERROR_BAD_STATE, "is started", doca_mmap_set_memrange(m, mem, 4096));
	/* M4: no device change on a started mmap */
	expect_rule(DOCA_ERROR_NOT_PERMITTED, "devices can change only", doca_mmap_add_dev(m, dev));
	expect_rule(DOCA_ERROR_NOT_PERMITTED, "devices can change only", doca_mmap_rm_dev(m, dev));
	/* M7: started once */
	expect_rule(DOCA_ERROR_BAD_STATE, "already started", doca_mmap_start(m));
	/* M13: thread safety is chosen before start */
	expect_rule(DOCA_ERROR_NOT_PERMITTED, "before doca_mmap_start",
	            doca_mmap_enable_thread_safety(m));
	/* M8: no stop or destroy while bufs point into it */
	assert_ok(doca_buf_inventory_create(4, &inv));
	assert_ok(doca_buf_inventory_start(inv));
	assert_ok(doca_buf_inventory_buf_get_by_addr(inv, m, mem, 64, &b));
	expect_rule(DOCA_ERROR_NOT_PERMITTED, "buf(s) pointing into it", doca_mmap_stop(m));
	expect_rule(DOCA_ERROR_NOT_PERMITTED, "buf(s) pointing into it", doca_mmap_destroy(m));
	assert_ok(doca_buf_dec_refcount(b, NULL));
	assert_ok(doca_mmap_stop(m));
	/* M6: the device limit is fixed at the first start */
	expect_rule(DOCA_ERROR_NOT_PERMITTED, "fixed at the first start",
	            doca_mmap_set_max_num_devices(m, 8));
	/* stopped: configurable again, and startable */
	assert_ok(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	assert_ok(doca_mmap_start(m));
	assert_ok(doca_mmap_destroy(m));
	/* M14: PCI_READ_ONLY with PCI_READ_WRITE, undefined bits */
	assert_ok(doca_mmap_create(&m));
	expect_rule(DOCA_ERROR_INVALID_VALUE, "",
	            doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_ONLY |
	                                                 DOCA_ACCESS_FLAG_PCI_READ_WRITE));
	expect_rule(DOCA_ERROR_INVALID_VALUE, "", doca_mmap_set_permissions(m, 1u << 20));
	/* M13: not with bufs counted on it (none can be: it is not started) */
	assert_ok(doca_mmap_enable_thread_safety(m));
	assert_ok(doca_mmap_destroy(m));
	assert_ok(doca_buf_inventory_destroy(inv));
	assert_ok(doca_dev_close(dev));
}

/* Core Memory: export and import (rows M9-M12). */
static void mmap_export_import(void **state)
{
	struct doca_dev *host = tu_open_dev("b1:00.0");
	struct doca_dev *dpu = tu_open_dev("03:00.0");
	struct doca_mmap *m, *imp;
	const void *desc;
	size_t len;

	(void)state;
	m = new_mmap(host, 0, 4096);
	/* M10: exported only once started, with a PCI flag, through an added device */
	expect_rule(DOCA_ERROR_NOT_PERMITTED, "before exporting",
	            doca_mmap_export_pci(m, host, &desc, &len));
	assert_ok(doca_mmap_start(m));
	expect_rule(DOCA_ERROR_NOT_PERMITTED, "", doca_mmap_export_pci(m, host, &desc, &len));
	assert_ok(doca_mmap_stop(m));
	assert_ok(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_WRITE |
	                                               DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	assert_ok(doca_mmap_start(m));
	expect_rule(DOCA_ERROR_NOT_FOUND, "", doca_mmap_export_pci(m, dpu, &desc, &len));
	assert_ok(doca_mmap_export_pci(m, host, &desc, &len));
	/* M7: an exported mmap is not restarted; M4: nor its devices changed */
	expect_rule(DOCA_ERROR_NOT_PERMITTED, "is exported", doca_mmap_start(m));
	expect_rule(DOCA_ERROR_NOT_PERMITTED, "devices can change only", doca_mmap_rm_dev(m, host));
	/* M11: imported through a device of the other side (host <-> DPU) */
	expect_rule(DOCA_ERROR_NOT_SUPPORTED, "same side",
	            doca_mmap_create_from_export(NULL, desc, len, host, &imp));
	assert_ok(doca_mmap_create_from_export(NULL, desc, len, dpu, &imp));
	/* M12: an imported mmap is the exporter's: no setter, device, PCI export, start or stop */
	expect_rule(DOCA_ERROR_NOT_PERMITTED, "belongs to the exporter",
	            doca_mmap_set_permissions(imp, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	expect_rule(DOCA_ERROR_NOT_PERMITTED, "created from an export",
	            doca_mmap_add_dev(imp, dpu));
	expect_rule(DOCA_ERROR_NOT_PERMITTED, "created from an export", doca_mmap_rm_dev(imp, dpu));
	expect_rule(DOCA_ERROR_NOT_PERMITTED, "was created from",
	            doca_mmap_export_pci(imp, dpu, &desc, &len));
	expect_rule(DOCA_ERROR_NOT_PERMITTED, "created from an export", doca_mmap_start(imp));
	/*
	 * M9: a stop of an import is SUCCESS and stops only what it re-exported (an RDMA import's
	 * is a no-op): NVIDIA's RDMA samples and storage applications stop their imports
	 */
	assert_ok(doca_mmap_stop(imp));
	assert_ok(doca_mmap_destroy(imp));
	/* a stopped exported mmap is a local mmap again: its devices may change */
	assert_ok(doca_mmap_stop(m));
	assert_ok(doca_mmap_rm_dev(m, host));
	assert_ok(doca_mmap_destroy(m));
	assert_ok(doca_dev_close(dpu));
	assert_ok(doca_dev_close(host));
}

/* Core Memory: inventories hand out bufs once started, inside a started mmap (rows I1-I8). */
static void inventory_rules(void **state)
{
	struct doca_dev *dev = tu_open_dev(NULL);
	struct doca_mmap *m = new_mmap(dev, 0, 8192);
	struct doca_buf_inventory *inv, *inv2;
	struct doca_buf *b = NULL, *c = NULL, *e = NULL;
	struct doca_buf_pool *pool;

	(void)state;
	assert_ok(doca_buf_inventory_create(2, &inv));
	/* I1, I2: both started */
	expect_rule(DOCA_ERROR_BAD_STATE, "call doca_buf_inventory_start first",
	            doca_buf_inventory_buf_get_by_addr(inv, m, mem, 64, &b));
	expect_rule(DOCA_ERROR_BAD_STATE, "not started", doca_buf_inventory_expand(inv, 2));
	assert_ok(doca_buf_inventory_start(inv));
	/* I8: no setter on a started inventory */
	expect_rule(DOCA_ERROR_BAD_STATE, "is started",
	            doca_buf_inventory_set_user_data(inv, (union doca_data){ .u64 = 1 }));
	expect_rule(DOCA_ERROR_BAD_STATE, "call doca_mmap_start first",
	            doca_buf_inventory_buf_get_by_addr(inv, m, mem, 64, &b));
	assert_ok(doca_buf_pool_create(2, 64, m, &pool));
	expect_rule(DOCA_ERROR_BAD_STATE, "call doca_mmap_start first", doca_buf_pool_start(pool));
	assert_ok(doca_buf_pool_destroy(pool));
	assert_ok(doca_mmap_start(m));
	/* I3: the window lies in the mmap's range; I4: the data in the window */
	expect_rule(DOCA_ERROR_INVALID_VALUE, "not inside mmap",
	            doca_buf_inventory_buf_get_by_addr(inv, m, mem + 8000, 1000, &b));
	expect_rule(DOCA_ERROR_INVALID_VALUE, "is not inside the window",
	            doca_buf_inventory_buf_get_by_args(inv, m, mem, 64, mem + 32, 64, &b));
	/* I5: as many bufs as elements */
	assert_ok(doca_buf_inventory_buf_get_by_data(inv, m, mem, 64, &b));
	assert_ok(doca_buf_inventory_buf_get_by_addr(inv, m, mem + 64, 64, &c));
	assert_doca(DOCA_ERROR_NO_MEMORY, doca_buf_inventory_buf_get_by_addr(inv, m, mem, 64, &e));
	/* I6: dup of a list's head only */
	assert_ok(doca_buf_chain_list(b, c));
	assert_ok(doca_buf_inventory_expand(inv, 2));
	expect_rule(DOCA_ERROR_NOT_PERMITTED, "", doca_buf_inventory_buf_dup(inv, c, &e));
	/* I7: no stop or destroy with bufs out */
	expect_rule(DOCA_ERROR_IN_USE, "still has", doca_buf_inventory_stop(inv));
	expect_rule(DOCA_ERROR_IN_USE, "", doca_buf_inventory_destroy(inv));
	/* I6: dup into a started inventory only */
	assert_ok(doca_buf_inventory_create(2, &inv2));
	expect_rule(DOCA_ERROR_BAD_STATE, "", doca_buf_inventory_buf_dup(inv2, b, &e));
	assert_ok(doca_buf_inventory_destroy(inv2));
	assert_ok(doca_buf_dec_refcount(b, NULL)); /* the head frees the list */
	assert_ok(doca_buf_inventory_stop(inv));
	assert_ok(doca_buf_inventory_destroy(inv));
	assert_ok(doca_mmap_destroy(m));
	assert_ok(doca_dev_close(dev));
}

/* Core Memory: a buf's data stays inside it; refcounts and lists live on the head (B1-B4). */
static void buf_rules(void **state)
{
	struct doca_dev *dev = tu_open_dev(NULL);
	struct doca_mmap *m = new_mmap(dev, 0, 8192);
	struct doca_buf_inventory *inv;
	struct doca_buf *a, *b, *c;
	uint32_t n;

	(void)state;
	assert_ok(doca_mmap_start(m));
	assert_ok(doca_buf_inventory_create(4, &inv));
	assert_ok(doca_buf_inventory_start(inv));
	assert_ok(doca_buf_inventory_buf_get_by_addr(inv, m, mem, 64, &a));
	assert_ok(doca_buf_inventory_buf_get_by_addr(inv, m, mem + 64, 64, &b));
	assert_ok(doca_buf_inventory_buf_get_by_addr(inv, m, mem + 128, 64, &c));
	/* B1: [data, data + data_len) inside [head, head + len) */
	expect_rule(DOCA_ERROR_INVALID_VALUE, "outside the window",
	            doca_buf_set_data(a, mem + 100, 10));
	expect_rule(DOCA_ERROR_INVALID_VALUE, "passes the window end",
	            doca_buf_set_data_len(a, 65));
	assert_ok(doca_buf_set_data(a, mem + 8, 56));
	/* B3: list2 has a refcount of 1 */
	assert_ok(doca_buf_inc_refcount(b, NULL));
	expect_rule(DOCA_ERROR_NOT_PERMITTED, "", doca_buf_chain_list(a, b));
	assert_ok(doca_buf_dec_refcount(b, NULL));
	assert_ok(doca_buf_chain_list(a, b));
	/* B2, B4: refcount and length on the head only */
	expect_rule(DOCA_ERROR_NOT_PERMITTED, "", doca_buf_inc_refcount(b, NULL));
	expect_rule(DOCA_ERROR_NOT_PERMITTED, "", doca_buf_dec_refcount(b, NULL));
	expect_rule(DOCA_ERROR_NOT_PERMITTED, "", doca_buf_get_list_len(b, &n));
	assert_ok(doca_buf_get_list_len(a, &n));
	assert_int_equal(n, 2);
	/* B3: both heads */
	expect_rule(DOCA_ERROR_NOT_PERMITTED, "", doca_buf_chain_list(c, b));
	assert_ok(doca_buf_dec_refcount(a, NULL));
	/* B2: released once */
	expect_rule(DOCA_ERROR_BAD_STATE, "", doca_buf_dec_refcount(a, NULL));
	assert_ok(doca_buf_dec_refcount(c, NULL));
	assert_ok(doca_buf_inventory_destroy(inv));
	assert_ok(doca_mmap_destroy(m));
	assert_ok(doca_dev_close(dev));
}

/* Core Execution: the context's state machine and its PE (rows C1-C9, C11, C13). */
static void ctx_rules(void **state)
{
	struct fx fx;
	struct doca_pe *pe2;
	struct doca_dma *dma2;
	struct doca_dma_task_memcpy *mt;
	struct doca_buf *s, *d;
	struct doca_task *t;
	uint32_t max_tasks;

	(void)state;
	fx_init(&fx, 4096, 4, false);
	assert_ok(doca_pe_create(&pe2));
	/* C1: connected to a PE before start */
	assert_ok(doca_dma_create(fx.dev, &dma2));
	assert_ok(doca_dma_task_memcpy_set_conf(dma2, fx_ok_cb, fx_err_cb, 1));
	expect_rule(DOCA_ERROR_NOT_CONNECTED, "", doca_ctx_start(doca_dma_as_ctx(dma2)));
	/* C13: at most doca_dma_cap_get_max_num_tasks tasks */
	assert_ok(doca_dma_cap_get_max_num_tasks(dma2, &max_tasks));
	expect_rule(DOCA_ERROR_INVALID_VALUE, "",
	            doca_dma_task_memcpy_set_conf(dma2, fx_ok_cb, fx_err_cb, max_tasks + 1));
	assert_ok(doca_dma_destroy(dma2));
	/* C2: connected once */
	expect_rule(DOCA_ERROR_NOT_PERMITTED, "", doca_pe_connect_ctx(pe2, fx.ctx));
	/* C6: tasks are allocated while RUNNING */
	expect_rule(
	        DOCA_ERROR_BAD_STATE, "only be allocated while it is RUNNING",
	        doca_dma_task_memcpy_alloc_init(fx.dma, NULL, NULL, (union doca_data){ 0 }, &mt));
	assert_ok(doca_ctx_start(fx.ctx));
	/* C5: started from IDLE only */
	expect_rule(DOCA_ERROR_BAD_STATE, "only an IDLE context", doca_ctx_start(fx.ctx));
	/* C3, C4: configured while IDLE only */
	expect_rule(DOCA_ERROR_BAD_STATE, "not IDLE",
	            doca_dma_task_memcpy_set_conf(fx.dma, fx_ok_cb, fx_err_cb, 4));
	expect_rule(DOCA_ERROR_BAD_STATE, "only be set while the context is IDLE",
	            doca_ctx_set_user_data(fx.ctx, (union doca_data){ .ptr = &fx }));
	expect_rule(DOCA_ERROR_BAD_STATE, "only be set while the context is IDLE",
	            doca_ctx_set_state_changed_cb(fx.ctx, NULL));
	expect_rule(DOCA_ERROR_BAD_STATE, "while it is IDLE", doca_pe_connect_ctx(pe2, fx.ctx));
	/* C9: destroyed only when IDLE; a PE only without contexts */
	expect_rule(DOCA_ERROR_BAD_STATE, "before destroying it", doca_dma_destroy(fx.dma));
	expect_rule(DOCA_ERROR_IN_USE, "destroy the contexts first", doca_pe_destroy(fx.pe));
	/* C11: a task in flight is not submitted again */
	s = fx_src_buf(&fx, 0, 64);
	d = fx_dst_buf(&fx, 0, 64);
	fx.free_in_cb = false;
	t = fx_task(&fx, s, d, 1);
	assert_ok(doca_task_submit(t));
	expect_rule(DOCA_ERROR_INVALID_VALUE, "already submitted", doca_task_submit(t));
	assert_true(fx_progress_until(&fx, 1, 1000000));
	assert_int_equal(fx.ok, 1);
	/* C8: stop waits for every task to be freed */
	assert_doca(DOCA_ERROR_IN_PROGRESS, doca_ctx_stop(fx.ctx));
	assert_false(fx_progress_until_idle(&fx, 1000));
	doca_task_free(t);
	assert_true(fx_progress_until_idle(&fx, 1000000));
	/* C7: submitted while RUNNING only */
	assert_ok(doca_ctx_start(fx.ctx));
	t = fx_task(&fx, s, d, 2);
	assert_doca(DOCA_ERROR_IN_PROGRESS, doca_ctx_stop(fx.ctx));
	expect_rule(DOCA_ERROR_BAD_STATE, "", doca_task_submit(t));
	doca_task_free(t);
	assert_true(fx_progress_until_idle(&fx, 1000000));
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	assert_ok(doca_pe_destroy(pe2));
	(void)tu_log_lines("", &(unsigned int){ 0 });
	fx_fini(&fx);
}

/* C10: doca_pe_progress is not called from inside one of its callbacks. */
static struct fx *nested_fx;
static unsigned int nested_ret = 99;

static void nested_cb(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	nested_ret = doca_pe_progress(nested_fx->pe);
	nested_fx->ok++;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

static void progress_in_callback(void **state)
{
	struct fx fx;
	struct doca_buf *s, *d;
	unsigned int hit;

	(void)state;
	nested_fx = &fx;
	fx_init(&fx, 4096, 2, false);
	assert_ok(doca_dma_task_memcpy_set_conf(fx.dma, nested_cb, nested_cb, 2));
	assert_ok(doca_ctx_start(fx.ctx));
	s = fx_src_buf(&fx, 0, 64);
	d = fx_dst_buf(&fx, 0, 64);
	(void)tu_log_lines("", &hit);
	assert_ok(doca_task_submit(fx_task(&fx, s, d, 1)));
	assert_true(fx_progress_until(&fx, 1, 1000000));
	assert_int_equal(nested_ret, 0);
	assert_int_equal(tu_log_lines("called from inside a callback", &hit), 1);
	assert_int_equal(hit, 1);
	assert_memory_equal(fx.dst, fx.src, 64);
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	fx_fini(&fx);
}

/*
 * C10: a callback of a PE does not destroy that PE. The state callback below destroys its
 * (now IDLE) context, then tries the PE, which doca_pe_progress is still running.
 */
static struct fx *destroy_pe_fx;
static doca_error_t destroy_pe_ret = DOCA_SUCCESS;

static void destroy_pe_state_cb(const union doca_data ud, struct doca_ctx *ctx,
                                enum doca_ctx_states prev, enum doca_ctx_states next)
{
	(void)ud;
	(void)ctx;
	(void)prev;
	if (next != DOCA_CTX_STATE_IDLE)
		return;
	assert_ok(doca_dma_destroy(destroy_pe_fx->dma));
	destroy_pe_fx->dma = NULL;
	destroy_pe_ret = doca_pe_destroy(destroy_pe_fx->pe);
}

static void pe_destroy_in_callback(void **state)
{
	struct fx fx;
	struct doca_buf *s, *d;
	struct doca_task *t;
	unsigned int hit;

	(void)state;
	destroy_pe_fx = &fx;
	fx_init(&fx, 4096, 2, false);
	assert_ok(doca_ctx_set_state_changed_cb(fx.ctx, destroy_pe_state_cb));
	assert_ok(doca_ctx_start(fx.ctx));
	s = fx_src_buf(&fx, 0, 64);
	d = fx_dst_buf(&fx, 0, 64);
	t = fx_task(&fx, s, d, 1);
	assert_doca(DOCA_ERROR_IN_PROGRESS, doca_ctx_stop(fx.ctx));
	doca_task_free(t);
	(void)tu_log_lines("", &hit);
	for (int i = 0; i < 1000 && fx.dma != NULL; i++)
		doca_pe_progress(fx.pe);
	assert_null(fx.dma);
	assert_doca(DOCA_ERROR_IN_USE, destroy_pe_ret);
	assert_int_equal(tu_log_lines("from inside one of its callbacks", &hit), 1);
	assert_int_equal(hit, 1);
	assert_int_equal(doca_pe_progress(fx.pe), 0);
	assert_ok(doca_pe_destroy(fx.pe));
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	assert_ok(doca_buf_inventory_stop(fx.inv));
	assert_ok(doca_buf_inventory_destroy(fx.inv));
	assert_ok(doca_mmap_destroy(fx.src_mmap));
	assert_ok(doca_mmap_destroy(fx.dst_mmap));
	assert_ok(doca_dev_close(fx.dev));
	free(fx.src);
	free(fx.dst);
}

/* DMA: a task's buffers (rows D1, D3, D6). */
static void task_buffers(void **state)
{
	struct fx fx;
	struct doca_buf *s, *d, *empty;
	struct doca_task *t;

	(void)state;
	fx_init(&fx, 4096, 4, true);
	s = fx_src_buf(&fx, 0, 64);
	d = fx_dst_buf(&fx, 0, 64);
	/* D1: both buffers given before submit */
	t = fx_task(&fx, NULL, d, 0);
	expect_rule(DOCA_ERROR_INVALID_VALUE, "", doca_task_submit(t));
	doca_task_free(t);
	/* D3: a source with data (try_submit checks; submit fails the task as hardware does) */
	empty = fx_dst_buf(&fx, 128, 64);
	t = fx_task(&fx, empty, d, 0);
	expect_rule(DOCA_ERROR_INVALID_VALUE, "", doca_task_try_submit(t));
	doca_task_free(t);
	assert_ok(doca_buf_dec_refcount(empty, NULL));
	/* D6: bufs still held */
	t = fx_task(&fx, s, d, 0);
	assert_ok(doca_buf_inc_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(s, NULL));
	expect_rule(DOCA_ERROR_INVALID_VALUE, "was released", doca_task_submit(t));
	doca_task_free(t);
	assert_ok(doca_buf_dec_refcount(d, NULL));
	fx_fini(&fx);
}

/* A device outlives its users (C14); a task in flight is not changed (D7); flush needs a
 * context that is not IDLE (C15). */
static void in_use_rules(void **state)
{
	struct fx fx;
	struct doca_buf *s, *d, *d2;
	struct doca_dma_task_memcpy *mt;
	struct doca_task *t;
	unsigned int hit;

	(void)state;
	fx_init(&fx, 4096, 4, false);
	expect_rule(DOCA_ERROR_IN_USE, "destroy them before the last close",
	            doca_dev_close(fx.dev));
	(void)tu_log_lines("", &hit);
	doca_ctx_flush_tasks(fx.ctx);
	assert_int_equal(tu_log_lines("not IDLE", &hit), 1);
	assert_int_equal(hit, 1);
	assert_ok(doca_ctx_start(fx.ctx));
	fx.free_in_cb = false;
	s = fx_src_buf(&fx, 0, 64);
	d = fx_dst_buf(&fx, 0, 64);
	d2 = fx_dst_buf(&fx, 64, 64);
	assert_ok(doca_dma_task_memcpy_alloc_init(fx.dma, s, d, (union doca_data){ 0 }, &mt));
	t = doca_dma_task_memcpy_as_task(mt);
	assert_ok(doca_task_submit(t));
	doca_dma_task_memcpy_set_dst(mt, d2);
	assert_int_equal(tu_log_lines("is in flight", &hit), 1);
	assert_int_equal(hit, 1);
	assert_true(fx_progress_until(&fx, 1, 1000000));
	assert_ptr_equal(doca_dma_task_memcpy_get_dst(mt), d);
	assert_memory_equal(fx.dst, fx.src, 64);
	doca_task_free(t);
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	assert_ok(doca_buf_dec_refcount(d2, NULL));
	fx_fini(&fx);
}

/*
 * C19: a device is open while objects are made to use it. A handle whose last doca_dev_close
 * ran (freed on hardware) is refused by add_dev, by a context's create and by
 * doca_clock_create (which dereferenced NULL): INVALID_VALUE, one line each. Nothing was held:
 * opened again, the same handle is used, and closes.
 */
static void closed_device(void **state)
{
	struct doca_dev *dev = tu_open_dev("b1:00.0");
	struct doca_clock *clock;
	struct doca_mmap *m;
	struct doca_dma *dma;

	(void)state;
	assert_ok(doca_dev_close(dev));
	assert_ok(doca_mmap_create(&m));
	expect_rule(DOCA_ERROR_INVALID_VALUE, "not an open device", doca_mmap_add_dev(m, dev));
	expect_rule(DOCA_ERROR_INVALID_VALUE, "not an open device", doca_dma_create(dev, &dma));
	expect_rule(DOCA_ERROR_INVALID_VALUE, "not an open device", doca_clock_create(dev, &clock));
	assert_ptr_equal(tu_open_dev("b1:00.0"), dev);
	assert_ok(doca_mmap_add_dev(m, dev));
	assert_ok(doca_dma_create(dev, &dma));
	assert_ok(doca_dma_destroy(dma));
	assert_ok(doca_mmap_destroy(m));
	assert_ok(doca_dev_close(dev));
}

/* Submits @s -> @d once; returns the submit's result (after the completion on success). */
static doca_error_t copy_once(struct fx *fx, struct doca_buf *s, struct doca_buf *d, bool try)
{
	struct doca_task *t = fx_task(fx, s, d, 0);
	unsigned int done = fx->ok + fx->err;
	doca_error_t r = try ? doca_task_try_submit(t) : doca_task_submit(t);

	if (r == DOCA_SUCCESS) {
		assert_true(fx_progress_until(fx, done + 1, 1000000));
		assert_int_equal(fx->last_status, DOCA_SUCCESS);
	} else {
		doca_task_free(t);
	}
	return r;
}

/*
 * M16: a task's memory is registered: its mmap is started. A thread-safe mmap may be stopped
 * (and reconfigured, and restarted) while bufs still point into it; on hardware its memory is
 * then registered with no device and the task fails. odma refuses the submit with BAD_STATE
 * and one line naming the mmap; after a restart the bufs copy again, and a restart on another
 * device only is the add_dev rule's NOT_PERMITTED, although the buf was taken while the
 * context's device was on the mmap.
 */
static void stopped_mmap(void **state)
{
	static uint8_t tsmem[4096];
	struct fx fx;
	struct doca_dev *other;
	struct doca_mmap *ts;
	struct doca_buf *tb, *s, *d;

	(void)state;
	fx_init(&fx, 4096, 8, true);
	assert_ok(doca_mmap_create(&ts));
	assert_ok(doca_mmap_add_dev(ts, fx.dev));
	assert_ok(doca_mmap_set_memrange(ts, tsmem, sizeof(tsmem)));
	assert_ok(doca_mmap_enable_thread_safety(ts));
	assert_ok(doca_mmap_start(ts));
	fx_pattern(tsmem, 64, 3);
	assert_ok(doca_buf_inventory_buf_get_by_data(fx.inv, ts, tsmem, 64, &tb));
	d = fx_dst_buf(&fx, 0, 4096);
	assert_ok(copy_once(&fx, tb, d, false));
	assert_memory_equal(fx.dst, tsmem, 64);
	/* stopped under the buf: as the source and as the destination, submit and try_submit */
	assert_ok(doca_mmap_stop(ts));
	expect_rule(DOCA_ERROR_BAD_STATE, "which is stopped", copy_once(&fx, tb, d, false));
	expect_rule(DOCA_ERROR_BAD_STATE, "which is stopped", copy_once(&fx, tb, d, true));
	s = fx_src_buf(&fx, 0, 64);
	assert_ok(doca_buf_reset_data_len(tb));
	expect_rule(DOCA_ERROR_BAD_STATE, "doca_mmap_start", copy_once(&fx, s, tb, false));
	assert_int_equal(fx.err, 0); /* refused, not failed: the context still runs */
	/* restarted: copies again */
	assert_ok(doca_mmap_start(ts));
	assert_ok(copy_once(&fx, s, tb, false));
	/* restarted on another device only: the add_dev rule, not the buf's old device */
	assert_ok(doca_mmap_stop(ts));
	other = tu_open_dev("03:00.0");
	assert_true(other != fx.dev);
	assert_ok(doca_mmap_rm_dev(ts, fx.dev));
	assert_ok(doca_mmap_add_dev(ts, other));
	assert_ok(doca_mmap_start(ts));
	assert_ok(doca_buf_set_data(tb, tsmem, 64));
	assert_ok(doca_buf_reset_data_len(d));
	expect_rule(DOCA_ERROR_NOT_PERMITTED, "was never added to", copy_once(&fx, tb, d, false));
	assert_int_equal(fx.err, 0);
	assert_ok(doca_buf_dec_refcount(tb, NULL));
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	assert_ok(doca_mmap_destroy(ts));
	assert_ok(doca_dev_close(other));
	fx_fini(&fx);
}

/*
 * @mem (4 KiB) of @host exported over PCI with @perms, and imported on @dpu: *@exp and *@imp.
 */
static void export_import(uint8_t *mem, uint32_t perms, struct doca_dev *host, struct doca_dev *dpu,
                          struct doca_mmap **exp, struct doca_mmap **imp)
{
	const void *desc;
	size_t len;

	assert_ok(doca_mmap_create(exp));
	assert_ok(doca_mmap_add_dev(*exp, host));
	assert_ok(doca_mmap_set_memrange(*exp, mem, 4096));
	assert_ok(doca_mmap_set_permissions(*exp, perms));
	assert_ok(doca_mmap_start(*exp));
	assert_ok(doca_mmap_export_pci(*exp, host, &desc, &len));
	assert_ok(doca_mmap_create_from_export(NULL, desc, len, dpu, imp));
}

/*
 * M15 for an import: the device of doca_mmap_create_from_export is the imported mmap's device.
 * A DMA context of another device of the same side does not reach it (NOT_PERMITTED); a
 * context of the importing device copies into it.
 */
static void import_device_rule(void **state)
{
	static uint8_t host_mem[4096], dpu_mem[4096];
	struct doca_dev *host = tu_open_dev("b1:00.0");
	struct doca_dev *dpu[2] = { tu_open_dev("03:00.0"), tu_open_dev("03:00.1") };
	struct doca_mmap *exp, *imp, *local;
	struct doca_buf_inventory *inv;
	struct doca_buf *s, *d;

	(void)state;
	export_import(host_mem, DOCA_ACCESS_FLAG_PCI_READ_WRITE | DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
	              host, dpu[0], &exp, &imp);
	assert_ok(doca_buf_inventory_create(4, &inv));
	assert_ok(doca_buf_inventory_start(inv));
	for (int k = 1; k >= 0; k--) {
		struct fx fx = { 0 }; /* the callbacks' counters only */
		struct doca_pe *pe;
		struct doca_dma *dma;
		struct doca_dma_task_memcpy *t;

		/* a DMA context on dpu[k], the source in an mmap of that device */
		assert_ok(doca_mmap_create(&local));
		assert_ok(doca_mmap_add_dev(local, dpu[k]));
		assert_ok(doca_mmap_set_memrange(local, dpu_mem, sizeof(dpu_mem)));
		assert_ok(doca_mmap_start(local));
		fx_pattern(dpu_mem, 64, 11);
		memset(host_mem, 0, 64);
		assert_ok(doca_pe_create(&pe));
		assert_ok(doca_dma_create(dpu[k], &dma));
		assert_ok(doca_ctx_set_user_data(doca_dma_as_ctx(dma),
		                                 (union doca_data){ .ptr = &fx }));
		assert_ok(doca_dma_task_memcpy_set_conf(dma, fx_ok_cb, fx_err_cb, 2));
		assert_ok(doca_pe_connect_ctx(pe, doca_dma_as_ctx(dma)));
		assert_ok(doca_ctx_start(doca_dma_as_ctx(dma)));
		assert_ok(doca_buf_inventory_buf_get_by_data(inv, local, dpu_mem, 64, &s));
		assert_ok(doca_buf_inventory_buf_get_by_addr(inv, imp, host_mem, 64, &d));
		assert_ok(doca_dma_task_memcpy_alloc_init(dma, s, d, (union doca_data){ 0 }, &t));
		fx.free_in_cb = true;
		if (k == 1) {
			expect_rule(DOCA_ERROR_NOT_PERMITTED, "was never added to",
			            doca_task_submit(doca_dma_task_memcpy_as_task(t)));
			doca_task_free(doca_dma_task_memcpy_as_task(t));
			assert_int_equal(host_mem[0], 0);
		} else if (tu_under_qemu()) {
			/* the refusal above is the rule; the copy needs process_vm_writev */
			printf("under qemu-user: no copy of the import (no process_vm_writev)\n");
			doca_task_free(doca_dma_task_memcpy_as_task(t));
		} else {
			assert_ok(doca_task_submit(doca_dma_task_memcpy_as_task(t)));
			for (int i = 0; i < 1000000 && fx.ok + fx.err == 0; i++)
				doca_pe_progress(pe);
			assert_int_equal(fx.ok, 1);
			assert_memory_equal(host_mem, dpu_mem, 64);
		}
		assert_ok(doca_buf_dec_refcount(s, NULL));
		assert_ok(doca_buf_dec_refcount(d, NULL));
		assert_ok(doca_ctx_stop(doca_dma_as_ctx(dma)));
		assert_ok(doca_dma_destroy(dma));
		assert_ok(doca_pe_destroy(pe));
		assert_ok(doca_mmap_destroy(local));
	}
	assert_ok(doca_buf_inventory_destroy(inv));
	assert_ok(doca_mmap_destroy(imp));
	assert_ok(doca_mmap_destroy(exp));
	assert_ok(doca_dev_close(dpu[1]));
	assert_ok(doca_dev_close(dpu[0]));
	assert_ok(doca_dev_close(host));
}

/*
 * A PCI import is written only under the exporter's PCI_READ_WRITE: an mmap exported over PCI
 * read-only, with RDMA_WRITE for its RDMA exports, takes no DMA write through the PCI import
 * (NOT_PERMITTED at submit, as for any read-only export; it was accepted and failed later).
 */
static void import_pci_read_only(void **state)
{
	static uint8_t host_mem[4096], dpu_mem[4096];
	struct doca_dev *host = tu_open_dev("b1:00.0"), *dpu = tu_open_dev("03:00.0");
	struct doca_mmap *exp, *imp, *local;
	struct doca_buf_inventory *inv;
	struct fx fx = { 0 };
	struct doca_dma_task_memcpy *t;
	struct doca_buf *s, *d;
	struct doca_dma *dma;
	struct doca_pe *pe;

	(void)state;
	export_import(host_mem, DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_RDMA_WRITE, host,
	              dpu, &exp, &imp);
	assert_ok(doca_mmap_create(&local));
	assert_ok(doca_mmap_add_dev(local, dpu));
	assert_ok(doca_mmap_set_memrange(local, dpu_mem, sizeof(dpu_mem)));
	assert_ok(doca_mmap_start(local));
	assert_ok(doca_buf_inventory_create(2, &inv));
	assert_ok(doca_buf_inventory_start(inv));
	assert_ok(doca_pe_create(&pe));
	assert_ok(doca_dma_create(dpu, &dma));
	assert_ok(doca_ctx_set_user_data(doca_dma_as_ctx(dma), (union doca_data){ .ptr = &fx }));
	assert_ok(doca_dma_task_memcpy_set_conf(dma, fx_ok_cb, fx_err_cb, 2));
	assert_ok(doca_pe_connect_ctx(pe, doca_dma_as_ctx(dma)));
	assert_ok(doca_ctx_start(doca_dma_as_ctx(dma)));
	assert_ok(doca_buf_inventory_buf_get_by_data(inv, local, dpu_mem, 64, &s));
	assert_ok(doca_buf_inventory_buf_get_by_addr(inv, imp, host_mem, 64, &d));
	assert_ok(doca_dma_task_memcpy_alloc_init(dma, s, d, (union doca_data){ 0 }, &t));
	expect_rule(DOCA_ERROR_NOT_PERMITTED, "do not let a device write into it",
	            doca_task_submit(doca_dma_task_memcpy_as_task(t)));
	doca_task_free(doca_dma_task_memcpy_as_task(t));
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	assert_ok(doca_ctx_stop(doca_dma_as_ctx(dma)));
	assert_ok(doca_dma_destroy(dma));
	assert_ok(doca_pe_destroy(pe));
	assert_ok(doca_buf_inventory_destroy(inv));
	assert_ok(doca_mmap_destroy(local));
	assert_ok(doca_mmap_destroy(imp));
	assert_ok(doca_mmap_destroy(exp));
	assert_ok(doca_dev_close(dpu));
	assert_ok(doca_dev_close(host));
}

/*
 * Sets ODMA_ENGINE to @name for the doca_pe_create that follows; returns the value it had
 * (NULL: unset), which engine_restore puts back.
 */
static char *engine_set(const char *name)
{
	const char *old = getenv("ODMA_ENGINE");
	char *saved = old != NULL ? strdup(old) : NULL;

	setenv("ODMA_ENGINE", name, 1);
	return saved;
}

static void engine_restore(char *saved)
{
	if (saved != NULL)
		setenv("ODMA_ENGINE", saved, 1);
	else
		unsetenv("ODMA_ENGINE");
	free(saved);
}

/*
 * B5: a program that releases a task's bufs while the task is in flight (NVIDIA's teardown
 * releases the bufs before doca_ctx_stop) gets undefined bytes, as on hardware, but the
 * process lives and the task completes once. The inline engine moves the bytes at the next
 * progress, after the release; the source is an import (the process mover), whose released
 * buf no longer names its mmap (the move crashed on it).
 */
static void released_in_flight(void **state)
{
	static uint8_t host_mem[4096], dpu_mem[4096];
	struct doca_dev *host = tu_open_dev("b1:00.0"), *dpu = tu_open_dev("03:00.0");
	struct doca_mmap *exp, *imp, *local;
	struct doca_buf_inventory *inv;
	struct fx fx = { 0 }; /* the callbacks' counters only */
	struct doca_dma_task_memcpy *t;
	struct doca_buf *s, *d;
	struct doca_dma *dma;
	struct doca_pe *pe;
	char *saved;

	(void)state;
	export_import(host_mem, DOCA_ACCESS_FLAG_PCI_READ_WRITE | DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
	              host, dpu, &exp, &imp);
	assert_ok(doca_mmap_create(&local));
	assert_ok(doca_mmap_add_dev(local, dpu));
	assert_ok(doca_mmap_set_memrange(local, dpu_mem, sizeof(dpu_mem)));
	assert_ok(doca_mmap_start(local));
	assert_ok(doca_buf_inventory_create(2, &inv));
	assert_ok(doca_buf_inventory_start(inv));
	saved = engine_set("inline");
	assert_ok(doca_pe_create(&pe));
	engine_restore(saved);
	assert_ok(doca_dma_create(dpu, &dma));
	assert_ok(doca_ctx_set_user_data(doca_dma_as_ctx(dma), (union doca_data){ .ptr = &fx }));
	assert_ok(doca_dma_task_memcpy_set_conf(dma, fx_ok_cb, fx_err_cb, 2));
	assert_ok(doca_pe_connect_ctx(pe, doca_dma_as_ctx(dma)));
	assert_ok(doca_ctx_start(doca_dma_as_ctx(dma)));
	fx.free_in_cb = true;
	assert_ok(doca_buf_inventory_buf_get_by_data(inv, imp, host_mem, 4096, &s));
	assert_ok(doca_buf_inventory_buf_get_by_addr(inv, local, dpu_mem, 4096, &d));
	assert_ok(doca_dma_task_memcpy_alloc_init(dma, s, d, (union doca_data){ 0 }, &t));
	assert_ok(doca_task_submit(doca_dma_task_memcpy_as_task(t)));
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	for (int i = 0; i < 1000000 && fx.ok + fx.err == 0; i++)
		doca_pe_progress(pe);
	assert_int_equal(fx.ok + fx.err, 1);
	assert_ok(doca_ctx_stop(doca_dma_as_ctx(dma)));
	assert_ok(doca_dma_destroy(dma));
	assert_ok(doca_pe_destroy(pe));
	assert_ok(doca_buf_inventory_destroy(inv));
	assert_ok(doca_mmap_destroy(local));
	assert_ok(doca_mmap_destroy(imp));
	assert_ok(doca_mmap_destroy(exp));
	assert_ok(doca_dev_close(dpu));
	assert_ok(doca_dev_close(host));
}

/*
 * B5, a local copy: the destination buf is released while its task is in flight and taken
 * again at once (the inventory hands the same buf back) for a 16-byte window in front of other
 * data. The copy of 4096 bytes may leave undefined bytes in that window, never past it (the
 * one-element copy wrote its 4096 bytes over what followed).
 */
static void retaken_in_flight(void **state)
{
	static uint8_t area[8192];
	struct doca_mmap *small;
	struct doca_buf *s, *d, *x;
	char *saved;
	struct fx fx;

	(void)state;
	saved = engine_set("inline"); /* the bytes move at the next progress */
	fx_init(&fx, 4096, 4, true);
	engine_restore(saved);
	memset(area, 0xee, sizeof(area));
	assert_ok(doca_mmap_create(&small));
	assert_ok(doca_mmap_add_dev(small, fx.dev));
	assert_ok(doca_mmap_set_memrange(small, area, 16));
	assert_ok(doca_mmap_start(small));
	s = fx_src_buf(&fx, 0, 4096);
	d = fx_dst_buf(&fx, 0, 4096);
	assert_ok(doca_task_submit(fx_task(&fx, s, d, 0)));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	assert_ok(doca_buf_inventory_buf_get_by_addr(fx.inv, small, area, 16, &x));
	assert_ptr_equal(x, d); /* the buf of the task in flight, re-pointed */
	assert_true(fx_progress_until(&fx, 1, 1000000));
	for (size_t i = 16; i < sizeof(area); i++)
		assert_int_equal(area[i], 0xee);
	assert_ok(doca_buf_dec_refcount(x, NULL));
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_mmap_destroy(small));
	fx_fini(&fx);
}

/* C18 (run with ODMA_SYSTEM=nic): a DMA context needs a device with the memcpy task. */
static void no_memcpy_device(void **state)
{
	struct doca_dev *dev = tu_open_dev(NULL);
	struct doca_dma *dma = NULL;

	(void)state;
	assert_doca(DOCA_ERROR_NOT_SUPPORTED,
	            doca_dma_cap_task_memcpy_is_supported(doca_dev_as_devinfo(dev)));
	expect_rule(DOCA_ERROR_NOT_SUPPORTED, "does not support the DMA memcpy task",
	            doca_dma_create(dev, &dma));
	assert_null(dma);
	assert_ok(doca_dev_close(dev));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mmap_lifecycle),
		cmocka_unit_test(mmap_export_import),
		cmocka_unit_test(inventory_rules),
		cmocka_unit_test(buf_rules),
		cmocka_unit_test(ctx_rules),
		cmocka_unit_test(progress_in_callback),
		cmocka_unit_test(pe_destroy_in_callback),
		cmocka_unit_test(task_buffers),
		cmocka_unit_test(stopped_mmap),
		cmocka_unit_test(in_use_rules),
		cmocka_unit_test(import_device_rule),
		cmocka_unit_test(closed_device),
		cmocka_unit_test(import_pci_read_only),
		cmocka_unit_test(released_in_flight),
		cmocka_unit_test(retaken_in_flight),
	};

	const struct CMUnitTest nic[] = { cmocka_unit_test(no_memcpy_device) };

	if (argc > 1 && strcmp(argv[1], "--nic") == 0)
		return cmocka_run_group_tests(nic, capture_log, NULL);
	return cmocka_run_group_tests(tests, capture_log, NULL);
}
