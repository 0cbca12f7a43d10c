/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Edges of the thread engine found in review: a full engine channel (AGAIN from the
 * engine, not the device queue), tasks held without FLUSH meeting a full channel, and
 * progress engines inherited across fork(). Each case runs in a forked child with its
 * own environment (the worker pool and the system profile are per process). To fill an
 * engine channel cheaply, in-flight tasks here share one destination, which a correct
 * program never does (only completions are counted); so this file stays out of the TSan
 * run, where that sharing is reported as the data race it is.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"
#include "test_util.h"

#define LOOPS 100000000UL

/* Child-side check: report failures through the exit status (cmocka stays in the parent). */
#define CHILD_CHECK(cond)                                                                          \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "child check failed at line %d: %s\n", __LINE__, #cond);   \
			_exit(1);                                                                  \
		}                                                                                  \
	} while (0)

static void run_in_child(void (*fn)(void), const char *const *env)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		for (; env != NULL && env[0] != NULL; env += 2)
			setenv(env[0], env[1], 1);
		fn();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static unsigned int n_ok, n_err;

static void count_cb(struct doca_dma_task_memcpy *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	if (doca_task_get_status(doca_dma_task_memcpy_as_task(t)) == DOCA_SUCCESS)
		n_ok++;
	else
		n_err++;
	doca_task_free(doca_dma_task_memcpy_as_task(t));
}

static struct fx *g_fx;

static struct doca_dma *ordered_dma(struct fx *fx, uint32_t tasks)
{
	struct doca_dma *dma;

	CHILD_CHECK(doca_dma_create(fx->dev, &dma) == DOCA_SUCCESS);
	CHILD_CHECK(doca_dma_set_ordered_completions(dma, 1) == DOCA_SUCCESS);
	CHILD_CHECK(doca_dma_task_memcpy_set_conf(dma, count_cb, count_cb, tasks) == DOCA_SUCCESS);
	CHILD_CHECK(doca_pe_connect_ctx(fx->pe, doca_dma_as_ctx(dma)) == DOCA_SUCCESS);
	CHILD_CHECK(doca_ctx_start(doca_dma_as_ctx(dma)) == DOCA_SUCCESS);
	return dma;
}

/*
 * A task that would fail, refused by a full engine with AGAIN, must leave no trace:
 * the valid tasks submitted afterwards complete normally.
 */
static void child_refused_failing_task(void)
{
	struct fx fx;
	struct doca_dma *dma;
	struct doca_dma_task_memcpy *t, *z;
	struct doca_buf *src, *dst, *empty, *dst2;
	union doca_data ud = { 0 };
	doca_error_t r = DOCA_SUCCESS;
	unsigned int accepted = 0;
	enum doca_ctx_states st;

	fx_init(&fx, 8 << 20, 4, false);
	g_fx = &fx;
	dma = ordered_dma(&fx, 8192);
	src = fx_src_buf(&fx, 0, 128 * 1024);
	dst = fx_dst_buf(&fx, 1 << 20, 128 * 1024); /* shared: only completions are counted */
	while (r == DOCA_SUCCESS) {
		CHILD_CHECK(doca_dma_task_memcpy_alloc_init(dma, src, dst, ud, &t) == DOCA_SUCCESS);
		r = doca_task_submit(doca_dma_task_memcpy_as_task(t));
		accepted += (r == DOCA_SUCCESS);
	}
	CHILD_CHECK(r == DOCA_ERROR_AGAIN && accepted >= 4096);
	empty = fx_src_buf(&fx, 0, 16);
	CHILD_CHECK(doca_buf_reset_data_len(empty) == DOCA_SUCCESS);
	CHILD_CHECK(doca_dma_task_memcpy_alloc_init(dma, empty, dst, ud, &z) == DOCA_SUCCESS);
	CHILD_CHECK(doca_task_submit(doca_dma_task_memcpy_as_task(z)) == DOCA_ERROR_AGAIN);
	doca_task_free(doca_dma_task_memcpy_as_task(z));
	while (n_ok + n_err < accepted)
		doca_pe_progress(fx.pe);
	/* the refused valid task again, then one more: both complete */
	dst2 = fx_dst_buf(&fx, 4 << 20, 128 * 1024);
	doca_dma_task_memcpy_set_dst(t, dst2);
	CHILD_CHECK(doca_task_submit(doca_dma_task_memcpy_as_task(t)) == DOCA_SUCCESS);
	CHILD_CHECK(doca_dma_task_memcpy_alloc_init(dma, src, fx_dst_buf(&fx, 6 << 20, 128 * 1024),
	                                            ud, &t) == DOCA_SUCCESS);
	CHILD_CHECK(doca_task_submit(doca_dma_task_memcpy_as_task(t)) == DOCA_SUCCESS);
	while (n_ok + n_err < accepted + 2)
		doca_pe_progress(fx.pe);
	CHILD_CHECK(n_err == 0 && n_ok == accepted + 2);
	CHILD_CHECK(doca_ctx_get_state(doca_dma_as_ctx(dma), &st) == DOCA_SUCCESS &&
	            st == DOCA_CTX_STATE_RUNNING);
	CHILD_CHECK(memcmp(fx.dst + (4 << 20), fx.src, 128 * 1024) == 0);
	CHILD_CHECK(doca_ctx_stop(doca_dma_as_ctx(dma)) == DOCA_SUCCESS);
	CHILD_CHECK(doca_dma_destroy(dma) == DOCA_SUCCESS);
}

static const char *deep_queue_profile(void)
{
	static char path[4096];
	const char *root = getenv("ODMA_TEST_SOURCE_ROOT");

	snprintf(path, sizeof(path), "%s/tests/data/profiles/deep_queue.profile",
	         root ? root : ".");
	return path;
}

static void refused_failing_task(void **state)
{
	const char *env[] = { "ODMA_ENGINE",        "thread", "ODMA_WORKERS", "1", "ODMA_SYSTEM",
		              deep_queue_profile(), NULL };

	(void)state;
	run_in_child(child_refused_failing_task, env);
}

/* More held (no-FLUSH) tasks than an engine channel holds: all of them complete. */
static void child_held_overflow(void)
{
	struct fx fx;
	struct doca_dma *dma;
	struct doca_buf *src, *dst;
	union doca_data ud = { 0 };
	const unsigned int n = 5000;

	fx_init(&fx, 1 << 20, 4, false);
	dma = ordered_dma(&fx, n);
	src = fx_src_buf(&fx, 0, 64);
	dst = fx_dst_buf(&fx, 4096, 64); /* shared: only completions are counted */
	for (unsigned int i = 0; i < n; i++) {
		struct doca_dma_task_memcpy *t;

		CHILD_CHECK(doca_dma_task_memcpy_alloc_init(dma, src, dst, ud, &t) == DOCA_SUCCESS);
		CHILD_CHECK(doca_task_submit_ex(doca_dma_task_memcpy_as_task(t),
		                                DOCA_TASK_SUBMIT_FLAG_NONE) == DOCA_SUCCESS);
	}
	for (unsigned long k = 0; k < LOOPS && n_ok + n_err < n; k++)
		doca_pe_progress(fx.pe);
	CHILD_CHECK(n_ok == n && n_err == 0);
	CHILD_CHECK(doca_ctx_stop(doca_dma_as_ctx(dma)) == DOCA_SUCCESS);
	CHILD_CHECK(doca_dma_destroy(dma) == DOCA_SUCCESS);
}

static void held_overflow(void **state)
{
	const char *env[] = {
		"ODMA_ENGINE", "thread",      "ODMA_WORKERS",       "1", "ODMA_INLINE_MAX",
		"0",           "ODMA_SYSTEM", deep_queue_profile(), NULL
	};

	(void)state;
	run_in_child(child_held_overflow, env);
}

/* A child may use and destroy a progress engine it inherited, and make its own. */
static void child_inherited_pe(void)
{
	struct fx *fx = g_fx;
	struct doca_pe *own;
	struct doca_buf *s, *d;

	CHILD_CHECK(doca_pe_create(&own) == DOCA_SUCCESS);
	s = fx_src_buf(fx, 0, 256 * 1024);
	d = fx_dst_buf(fx, 0, 256 * 1024);
	CHILD_CHECK(doca_task_submit(fx_task(fx, s, d, 1)) == DOCA_SUCCESS);
	CHILD_CHECK(fx_progress_until(fx, 1, LOOPS) && fx->ok == 1);
	CHILD_CHECK(memcmp(fx->dst, fx->src, 256 * 1024) == 0);
	doca_buf_dec_refcount(s, NULL);
	doca_buf_dec_refcount(d, NULL);
	fx_fini(fx); /* destroys the inherited PE */
	CHILD_CHECK(doca_pe_destroy(own) == DOCA_SUCCESS);
}

static void warm_up_worker(struct fx *fx)
{
	struct doca_buf *s = fx_src_buf(fx, 0, 256 * 1024), *d = fx_dst_buf(fx, 0, 256 * 1024);

	assert_ok(doca_task_submit(fx_task(fx, s, d, 0)));
	assert_true(fx_progress_until(fx, 1, LOOPS));
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	fx->ok = fx->err = 0;
}

/* ASan runtimes whose allocator a fork() can leave locked in the child (inherited_pe). */
#if defined(__SANITIZE_ADDRESS__) && !defined(__clang__) && __GNUC__ < 13
#define EE_ASAN_FORK_UNSAFE 1
#elif defined(__clang__) && defined(__has_feature)
#if __has_feature(address_sanitizer) && __clang_major__ < 18
#define EE_ASAN_FORK_UNSAFE 1
#endif
#endif

static void inherited_pe(void **state)
{
	static struct fx fx;

	(void)state;
	tu_skip_test_under_qemu(TU_QEMU_FORK_THREADS);
#ifdef EE_ASAN_FORK_UNSAFE
	/*
	 * These AddressSanitizer runtimes do not hold their allocator's locks across fork(): a lock
	 * the parent's worker held at that instant (a free into its quarantine) stays held in the
	 * child, whose own worker then waits on it for ever (gcc 12: 2 runs in 100, four at a
	 * time; clang 14: 1 run in 4 of CI's asan stage). LLVM's runtime takes them around fork()
	 * from LLVM 18. The plain build (make check) runs this test.
	 */
	print_message("skipped under this ASan runtime: its allocator is not fork-safe\n");
	skip();
#endif
	setenv("ODMA_ENGINE", "thread", 1);
	fx_init(&fx, 1 << 20, 4, true);
	g_fx = &fx;
	/*
	 * One copy through the worker first, so that it is up and idle when fork() comes: a
	 * thread still starting (allocating) at fork time can leave a sanitizer's allocator
	 * lock held in the child.
	 */
	warm_up_worker(&fx);
	run_in_child(child_inherited_pe, NULL);
	fx_fini(&fx);
}

/*
 * A progress call whose only callback is a context's stop ending reports that it did work,
 * also when another context holds tasks (submitted without FLUSH) that the same call hands
 * to the engine: a program that arms and sleeps when progress returns 0 would otherwise sleep
 * on an event that has already happened.
 */
static void child_stop_end_reported(void)
{
	struct fx fx;
	struct doca_dma *held;
	struct doca_buf *s, *d, *bs, *bd;
	struct doca_task *t;
	struct doca_dma_task_memcpy *ht;
	size_t big = 1 << 20;
	unsigned int states;

	n_ok = n_err = 0; /* the parent's tests counted too */
	fx_init(&fx, 8 << 20, 4, true);
	big = fx.max_buf_size < big ? fx.max_buf_size : big;
	fx.free_in_cb = false;
	s = fx_src_buf(&fx, 0, 64);
	d = fx_dst_buf(&fx, 0, 64);
	t = fx_task(&fx, s, d, 1);
	CHILD_CHECK(doca_task_submit(t) == DOCA_SUCCESS);
	CHILD_CHECK(fx_progress_until(&fx, 1, LOOPS)); /* done, not freed: the stop waits */
	CHILD_CHECK(doca_ctx_stop(fx.ctx) == DOCA_ERROR_IN_PROGRESS);
	held = ordered_dma(&fx, 1);
	bs = fx_src_buf(&fx, 4096, big);
	bd = fx_dst_buf(&fx, 4096, big);
	CHILD_CHECK(doca_dma_task_memcpy_alloc_init(held, bs, bd, (union doca_data){ 0 }, &ht) ==
	            DOCA_SUCCESS);
	CHILD_CHECK(doca_task_submit_ex(doca_dma_task_memcpy_as_task(ht),
	                                DOCA_TASK_SUBMIT_FLAG_NONE) == DOCA_SUCCESS);
	doca_task_free(t);
	states = fx.states;
	/* this call ends the stop and launches the held copy, which a worker is still doing */
	CHILD_CHECK(doca_pe_progress(fx.pe) == 1);
	CHILD_CHECK(fx.states == states + 1 && fx.last_state == DOCA_CTX_STATE_IDLE);
	for (unsigned long k = 0; k < LOOPS && n_ok + n_err < 1; k++)
		doca_pe_progress(fx.pe);
	CHILD_CHECK(n_ok == 1);
	CHILD_CHECK(doca_ctx_stop(doca_dma_as_ctx(held)) == DOCA_SUCCESS);
	CHILD_CHECK(doca_dma_destroy(held) == DOCA_SUCCESS);
	doca_buf_dec_refcount(s, NULL);
	doca_buf_dec_refcount(d, NULL);
	doca_buf_dec_refcount(bs, NULL);
	doca_buf_dec_refcount(bd, NULL);
	fx_fini(&fx);
}

static void stop_end_reported(void **state)
{
	const char *env[] = { "ODMA_ENGINE", "thread", "ODMA_INLINE_MAX", "0", NULL };

	(void)state;
	run_in_child(child_stop_end_reported, env);
}

/* A state callback may destroy another (IDLE) context of the same PE. */
static struct doca_dma *victim;

static void destroy_victim_cb(const union doca_data ud, struct doca_ctx *ctx,
                              enum doca_ctx_states prev, enum doca_ctx_states next)
{
	(void)ud;
	(void)ctx;
	(void)prev;
	if (next == DOCA_CTX_STATE_IDLE && victim != NULL) {
		assert_ok(doca_dma_destroy(victim));
		victim = NULL;
	}
}

static void destroy_from_state_callback(void **state)
{
	struct doca_dma *a;
	struct doca_buf *s, *d;
	struct doca_dma_task_memcpy *t;
	struct fx fx;
	enum doca_ctx_states st;

	(void)state;
	fx_init(&fx, 1 << 16, 4, false);
	/* connected after fx.dma, so the PE visits it before the victim */
	assert_ok(doca_dma_create(fx.dev, &victim));
	assert_ok(doca_dma_task_memcpy_set_conf(victim, count_cb, count_cb, 1));
	assert_ok(doca_pe_connect_ctx(fx.pe, doca_dma_as_ctx(victim)));
	assert_ok(doca_dma_create(fx.dev, &a));
	assert_ok(doca_dma_task_memcpy_set_conf(a, count_cb, count_cb, 1));
	assert_ok(doca_ctx_set_state_changed_cb(doca_dma_as_ctx(a), destroy_victim_cb));
	assert_ok(doca_pe_connect_ctx(fx.pe, doca_dma_as_ctx(a)));
	assert_ok(doca_ctx_start(doca_dma_as_ctx(a)));
	s = fx_src_buf(&fx, 0, 64);
	d = fx_dst_buf(&fx, 0, 64);
	assert_ok(doca_dma_task_memcpy_alloc_init(a, s, d, (union doca_data){ 0 }, &t));
	assert_ok(doca_task_submit(doca_dma_task_memcpy_as_task(t)));
	assert_int_equal(doca_ctx_stop(doca_dma_as_ctx(a)), DOCA_ERROR_IN_PROGRESS);
	for (int i = 0; i < 100000 && victim != NULL; i++)
		doca_pe_progress(fx.pe);
	assert_null(victim);
	assert_ok(doca_ctx_get_state(doca_dma_as_ctx(a), &st));
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	for (int i = 0; i < 1000; i++)
		doca_pe_progress(fx.pe);
	assert_ok(doca_dma_destroy(a));
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	fx_fini(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(refused_failing_task),
		cmocka_unit_test(held_overflow),
		cmocka_unit_test(inherited_pe),
		cmocka_unit_test(destroy_from_state_callback),
		cmocka_unit_test(stop_end_reported),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
