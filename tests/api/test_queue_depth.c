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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(accessor),
		cmocka_unit_test(again_at_depth),
	};

	return cmocka_run_group_tests(tests, capture_log, NULL);
}
