/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Shared held batches of the thread engine (issue 22): when the small copies held for one
 * poll add up to ODMA_SHARE_MIN bytes, the workers copy part of them while the PE thread
 * copies the rest. Checked through the public API: every byte arrives, every task completes
 * exactly once, a fault fails its own task, and the engine's account (the debug line it logs
 * when its pool stops) shows tasks handed over with sharing on and none with it off.
 *
 * Runs with ODMA_ENGINE=thread, ODMA_WORKERS=1 (set here before the first PE).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <doca_log.h>

#include "fixture.h"
#include "test_util.h"

#define TASK (4u * 1024u)
#define DEPTH 64
#define ROUNDS 20

static FILE *log_file;

/* Tasks handed to workers by the last pool stop's account; false if it logged none. */
static bool share_account(unsigned long long *handed)
{
	char line[1024];
	bool found = false;

	fflush(log_file);
	rewind(log_file);
	while (fgets(line, sizeof(line), log_file) != NULL) {
		const char *p = strstr(line, "PE threads handed ");

		if (p != NULL && sscanf(p, "PE threads handed %llu tasks", handed) == 1)
			found = true;
	}
	assert_int_equal(ftruncate(fileno(log_file), 0), 0);
	rewind(log_file);
	return found;
}

/* One PE's life: ROUNDS rounds of DEPTH copies of TASK bytes, all submitted before a poll. */
static void run_rounds(void)
{
	struct fx fx;
	struct doca_task *t[DEPTH];
	struct doca_buf *src[DEPTH], *dst[DEPTH];

	fx_init(&fx, (size_t)DEPTH * TASK, DEPTH, true);
	fx.free_in_cb = false;
	for (unsigned int i = 0; i < DEPTH; i++) {
		src[i] = fx_src_buf(&fx, (size_t)i * TASK, TASK);
		dst[i] = fx_dst_buf(&fx, (size_t)i * TASK, TASK);
		t[i] = fx_task(&fx, src[i], dst[i], i);
	}
	for (unsigned int r = 0; r < ROUNDS; r++) {
		memset(fx.dst, 0, (size_t)DEPTH * TASK);
		for (unsigned int i = 0; i < DEPTH; i++) {
			assert_ok(doca_buf_reset_data_len(dst[i]));
			assert_ok(doca_task_submit(t[i]));
		}
		assert_true(fx_progress_until(&fx, (r + 1) * DEPTH, 1000000000ul));
		assert_memory_equal(fx.dst, fx.src, (size_t)DEPTH * TASK);
	}
	for (int i = 0; i < 1000; i++)
		doca_pe_progress(fx.pe);
	assert_int_equal(fx.ok, ROUNDS * DEPTH); /* exactly once */
	assert_int_equal(fx.err, 0);
	for (unsigned int i = 0; i < DEPTH; i++) {
		doca_task_free(t[i]);
		assert_ok(doca_buf_dec_refcount(src[i], NULL));
		assert_ok(doca_buf_dec_refcount(dst[i], NULL));
	}
	fx_fini(&fx); /* the last PE: the pool stops and logs its account */
}

/* 64 tasks of 4 KiB (256 KiB) with ODMA_SHARE_MIN=64K: the worker takes part. */
static void share_hands_tasks_over(void **state)
{
	unsigned long long handed = 0;

	(void)state;
	setenv("ODMA_SHARE_MIN", "64K", 1);
	run_rounds();
	assert_true(share_account(&handed));
	assert_true(handed > 0);
	assert_true(handed < (unsigned long long)ROUNDS * DEPTH); /* the PE keeps its part */
}

/* ODMA_SHARE_MIN=0: never shared; and a batch below the default stays on the PE thread. */
static void share_off_and_below_threshold(void **state)
{
	unsigned long long handed = 1;

	(void)state;
	setenv("ODMA_SHARE_MIN", "0", 1);
	run_rounds();
	assert_true(share_account(&handed));
	assert_int_equal(handed, 0);
	setenv("ODMA_SHARE_MIN", "1M", 1); /* 256 KiB held: below it */
	handed = 1;
	run_rounds();
	assert_true(share_account(&handed));
	assert_int_equal(handed, 0);
}

/* A task of a shared batch whose source page went away fails alone; the bytes before it land. */
static void share_fault_fails_its_task(void **state)
{
	struct fx fx;
	long pg = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)DEPTH * TASK;
	uint8_t *area = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct doca_mmap *m;
	struct doca_buf *src[DEPTH], *dst[DEPTH];
	struct doca_task *t[DEPTH];
	unsigned long long handed = 0;

	(void)state;
	setenv("ODMA_SHARE_MIN", "64K", 1);
	assert_true(area != MAP_FAILED);
	fx_pattern(area, len, 3);
	fx_init(&fx, len, DEPTH, true);
	fx.free_in_cb = false;
	assert_ok(doca_mmap_create(&m));
	assert_ok(doca_mmap_add_dev(m, fx.dev));
	assert_ok(doca_mmap_set_memrange(m, area, len));
	assert_ok(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	assert_ok(doca_mmap_start(m));
	for (unsigned int i = 0; i < DEPTH; i++) {
		assert_ok(doca_buf_inventory_buf_get_by_data(fx.inv, m, area + (size_t)i * TASK,
		                                             TASK, &src[i]));
		dst[i] = fx_dst_buf(&fx, (size_t)i * TASK, TASK);
		t[i] = fx_task(&fx, src[i], dst[i], i);
	}
	/* the last task's source (the workers' part of the batch) goes away after the start */
	assert_int_equal(munmap(area + len - TASK, (size_t)pg), 0);
	for (unsigned int i = 0; i < DEPTH; i++)
		assert_ok(doca_task_submit(t[i]));
	assert_true(fx_progress_until(&fx, DEPTH, 1000000000ul));
	for (int i = 0; i < 1000; i++)
		doca_pe_progress(fx.pe);
	assert_int_equal(fx.ok + fx.err, DEPTH); /* each exactly once */
	assert_true(fx.err >= 1);
	assert_int_equal(fx.last_status, DOCA_ERROR_IO_FAILED);
	/* a task that completed holds all its bytes */
	assert_true(fx.ok >= 1);
	assert_memory_equal(fx.dst, area, TASK);
	for (unsigned int i = 0; i < DEPTH; i++) {
		doca_task_free(t[i]);
		assert_ok(doca_buf_dec_refcount(src[i], NULL));
		assert_ok(doca_buf_dec_refcount(dst[i], NULL));
	}
	assert_ok(doca_mmap_stop(m));
	assert_ok(doca_mmap_destroy(m));
	fx_fini(&fx);
	munmap(area, len);
	assert_true(share_account(&handed));
	assert_true(handed > 0);
}

int main(void)
{
	struct doca_log_backend *be;
	const struct CMUnitTest tests[] = {
		/* first: cmocka's SIGSEGV handler must come before the copy guard (test_split.c) */
		cmocka_unit_test(share_fault_fails_its_task),
		cmocka_unit_test(share_hands_tasks_over),
		cmocka_unit_test(share_off_and_below_threshold),
	};

	setenv("ODMA_ENGINE", "thread", 1);
	setenv("ODMA_WORKERS", "1", 1);
	log_file = tmpfile();
	if (log_file == NULL ||
	    doca_log_backend_create_with_file_sdk(log_file, &be) != DOCA_SUCCESS ||
	    doca_log_backend_set_sdk_level(be, DOCA_LOG_LEVEL_DEBUG) != DOCA_SUCCESS)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
