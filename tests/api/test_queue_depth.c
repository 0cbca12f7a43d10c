/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The task queue depth a user can see (issue 29, item 6): the accessor the tools read gives
 * the profile's queue_depth, exactly that many tasks are accepted before submit says AGAIN,
 * and the AGAIN log line names the depth and the device. Runs with ODMA_SYSTEM set to
 * tests/data/profiles/good.profile (host 5e:00.0: queue_depth=128; 03:00.1: no memcpy).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <doca_log.h>

#include "fixture.h"
#include "test_util.h"

/* libdoca_common, core/device (what doca_caps and odma errors call) */
doca_error_t doca_priv_devinfo_get_queue_depth(const struct doca_devinfo *info, uint32_t *depth);

static FILE *log_file;

static int capture_log(void **state)
{
	struct doca_log_backend *be;

	(void)state;
	log_file = tmpfile();
	if (log_file == NULL ||
	    doca_log_backend_create_with_file_sdk(log_file, &be) != DOCA_SUCCESS ||
	    doca_log_backend_set_sdk_level(be, DOCA_LOG_LEVEL_WARNING) != DOCA_SUCCESS)
		return -1;
	return 0;
}

static unsigned int log_count(const char *a)
{
	char line[4096];
	unsigned int n = 0;

	fflush(log_file);
	rewind(log_file);
	while (fgets(line, sizeof(line), log_file) != NULL)
		n += strstr(line, a) != NULL;
	return n;
}

static bool good_profile(void)
{
	const char *sys = getenv("ODMA_SYSTEM");

	return sys != NULL && strstr(sys, "good.profile") != NULL;
}

/* The accessor: the profile's value per device; refusals for the rest. */
static void accessor(void **state)
{
	struct doca_devinfo **list = NULL;
	uint32_t n = 0, depth = 0, seen = 0;
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];

	(void)state;
	if (!good_profile())
		skip();
	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
	for (uint32_t i = 0; i < n; i++) {
		assert_int_equal(doca_devinfo_get_pci_addr_str(list[i], pci), DOCA_SUCCESS);
		if (strcmp(pci, "0000:5e:00.0") == 0) {
			assert_int_equal(doca_priv_devinfo_get_queue_depth(list[i], &depth),
			                 DOCA_SUCCESS);
			assert_int_equal(depth, 128);
			seen++;
		} else if (strcmp(pci, "0000:03:00.0") == 0) {
			assert_int_equal(doca_priv_devinfo_get_queue_depth(list[i], &depth),
			                 DOCA_SUCCESS);
			assert_int_equal(depth, 256);
			seen++;
		} else if (strcmp(pci, "0000:03:00.1") == 0) { /* no DMA memcpy: no queue */
			assert_int_equal(doca_priv_devinfo_get_queue_depth(list[i], &depth),
			                 DOCA_ERROR_NOT_SUPPORTED);
			seen++;
		}
	}
	assert_int_equal(seen, 3);
	assert_int_equal(doca_priv_devinfo_get_queue_depth(list[0], NULL),
	                 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_priv_devinfo_get_queue_depth(NULL, &depth), DOCA_ERROR_INVALID_VALUE);
	doca_devinfo_destroy_list(list);
}

/* Exactly the depth is accepted; the next submit is AGAIN and its log line names the depth. */
static void again_at_depth(void **state)
{
	struct doca_buf *s, *d;
	struct doca_task *t = NULL;
	struct fx fx;
	uint32_t depth = 0, accepted = 0;
	doca_error_t r = DOCA_SUCCESS;
	char want[128];

	(void)state;
	if (!good_profile())
		skip();
	fx_init(&fx, 1 << 20, 1024, true);
	assert_int_equal(doca_priv_devinfo_get_queue_depth(doca_dev_as_devinfo(fx.dev), &depth),
	                 DOCA_SUCCESS);
	s = fx_src_buf(&fx, 0, 1);
	d = fx_dst_buf(&fx, 0, 4096);
	while (r == DOCA_SUCCESS && accepted <= depth) {
		t = fx_task(&fx, s, d, accepted);
		r = doca_task_submit(t);
		accepted += r == DOCA_SUCCESS;
	}
	assert_int_equal(r, DOCA_ERROR_AGAIN);
	assert_int_equal(accepted, depth);
	snprintf(want, sizeof(want), "the task queue depth of device 0000:5e:00.0 is %u", depth);
	assert_int_equal(log_count(want), 1);
	assert_true(fx_progress_until(&fx, accepted, 1000000));
	assert_int_equal(doca_task_submit(t), DOCA_SUCCESS);
	assert_true(fx_progress_until(&fx, accepted + 1, 1000000));
	assert_int_equal(doca_buf_dec_refcount(s, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_dec_refcount(d, NULL), DOCA_SUCCESS);
	fx_fini(&fx);
}

/*
 * A program that keeps allocating from an exhausted task pool or inventory (a busy server
 * does, at every message) gets NO_MEMORY each time, and its log a few lines a second that
 * count those dropped, not one line per call.
 */
static void exhausted_pool_lines_rate_limited(void **state)
{
	struct doca_dma_task_memcpy *t[2], *extra;
	struct doca_buf_inventory *inv;
	struct doca_buf *b[2], *more;
	unsigned int tasks, bufs;
	struct fx fx;

	(void)state;
	fx_init(&fx, 4096, 2, true);
	for (int i = 0; i < 2; i++)
		assert_ok(doca_dma_task_memcpy_alloc_init(fx.dma, NULL, NULL,
		                                          (union doca_data){ 0 }, &t[i]));
	for (int i = 0; i < 1000; i++)
		assert_doca(DOCA_ERROR_NO_MEMORY,
		            doca_dma_task_memcpy_alloc_init(fx.dma, NULL, NULL,
		                                            (union doca_data){ 0 }, &extra));
	assert_ok(doca_buf_inventory_create(2, &inv));
	assert_ok(doca_buf_inventory_start(inv));
	for (int i = 0; i < 2; i++)
		assert_ok(doca_buf_inventory_buf_get_by_addr(inv, fx.src_mmap, fx.src, 64, &b[i]));
	for (int i = 0; i < 1000; i++)
		assert_doca(DOCA_ERROR_NO_MEMORY, doca_buf_inventory_buf_get_by_addr(
		                                          inv, fx.src_mmap, fx.src, 64, &more));
	tasks = log_count("tasks of the pool are allocated");
	bufs = log_count("has no free buf (all 2 in use)");
	print_message("lines for 1000 refusals each: %u (tasks), %u (bufs)\n", tasks, bufs);
	/* 10 a second per call site: far fewer than 1000 however slow the machine */
	assert_in_range(tasks, 1, 100);
	assert_in_range(bufs, 1, 100);
	for (int i = 0; i < 2; i++) {
		assert_ok(doca_buf_dec_refcount(b[i], NULL));
		doca_task_free(doca_dma_task_memcpy_as_task(t[i]));
	}
	assert_ok(doca_buf_inventory_destroy(inv));
	fx_fini(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(accessor),
		cmocka_unit_test(again_at_depth),
		cmocka_unit_test(exhausted_pool_lines_rate_limited),
	};

	return cmocka_run_group_tests(tests, capture_log, NULL);
}
