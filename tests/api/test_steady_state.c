/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The local data path allocates nothing per task: this test interposes malloc and
 * friends (the libraries resolve them to these definitions) and counts calls made
 * while 100000 tasks are submitted, completed and resubmitted, on each engine.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "test_util.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ODMA_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||                         \
        __has_feature(memory_sanitizer)
#define ODMA_SANITIZED 1
#endif
#endif

#ifdef ODMA_SANITIZED
int main(void)
{
	printf("skipped: a sanitizer owns malloc in this build, so allocations cannot be counted "
	       "here\n");
	return ODMA_TEST_SKIP;
}
#else

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static atomic_long allocs;

void *malloc(size_t n)
{
	atomic_fetch_add(&allocs, 1);
	return __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
	atomic_fetch_add(&allocs, 1);
	return __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
	atomic_fetch_add(&allocs, 1);
	return __libc_realloc(p, n);
}

void *aligned_alloc(size_t al, size_t n)
{
	atomic_fetch_add(&allocs, 1);
	return __libc_memalign(al, n);
}

#define DEPTH 64
static struct doca_buf *ss_dst[DEPTH];
static unsigned long ss_done, ss_limit;

static void ss_cb(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	(void)cud;
	ss_done++;
	if (ss_done + DEPTH > ss_limit) {
		doca_task_free(doca_dma_task_memcpy_as_task(task));
		return;
	}
	assert_ok(doca_buf_reset_data_len(ss_dst[tud.u64]));
	assert_ok(doca_task_submit(doca_dma_task_memcpy_as_task(task)));
}

static void run_engine(const char *engine, size_t size)
{
	struct doca_buf *src[DEPTH];
	struct fx fx;
	long before;

	setenv("ODMA_ENGINE", engine, 1);
	fx_init(&fx, DEPTH * 8192, DEPTH, false);
	assert_true(atomic_load(&allocs) > 0); /* the interposition is in effect */
	assert_ok(doca_dma_task_memcpy_set_conf(fx.dma, ss_cb, ss_cb, DEPTH));
	assert_ok(doca_ctx_start(fx.ctx));
	ss_done = 0;
	ss_limit = 1000000000ul;
	for (unsigned int i = 0; i < DEPTH; i++) {
		src[i] = fx_src_buf(&fx, i * 8192, size);
		ss_dst[i] = fx_dst_buf(&fx, i * 8192, size);
		assert_ok(doca_task_submit(fx_task(&fx, src[i], ss_dst[i], i)));
	}
	while (ss_done < 5000) /* warm up */
		doca_pe_progress(fx.pe);
	before = atomic_load(&allocs);
	while (ss_done < 105000)
		doca_pe_progress(fx.pe);
	assert_int_equal(atomic_load(&allocs) - before, 0);
	ss_limit = ss_done; /* drain: callbacks free their tasks */
	while (ss_done < ss_limit + DEPTH)
		doca_pe_progress(fx.pe);
	assert_memory_equal(fx.dst, fx.src, size);
	for (unsigned int i = 0; i < DEPTH; i++) {
		assert_ok(doca_buf_dec_refcount(src[i], NULL));
		assert_ok(doca_buf_dec_refcount(ss_dst[i], NULL));
	}
	fx.free_in_cb = true;
	fx_fini(&fx);
}

static void inline_engine(void **state)
{
	(void)state;
	run_engine("inline", 64);
	run_engine("inline", 8192);
}

static void thread_engine(void **state)
{
	(void)state;
	run_engine("thread", 64);   /* copied on the submitting thread */
	run_engine("thread", 8192); /* handed to a worker */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(inline_engine),
		cmocka_unit_test(thread_engine),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
