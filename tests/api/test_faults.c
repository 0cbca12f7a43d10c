/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * ODMA_FAULTS: every fault kind fires and is survived without losing a completion.
 * The variable is read once per process, so each case runs in a forked child.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"
#include "test_util.h"

#define LOOPS 100000000UL
#define NTASKS 200

typedef void (*child_fn)(void);

static void run_child(const char *faults, const char *engine, child_fn fn)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("ODMA_FAULTS", faults, 1);
		if (engine != NULL)
			setenv("ODMA_ENGINE", engine, 1);
		fn();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* Submits NTASKS copies (retrying AGAIN), progresses to IDLE; returns counts. */
static void pump(struct fx *fx, unsigned int *agains, unsigned int *accepted)
{
	static struct doca_buf *s[NTASKS], *d[NTASKS];

	*agains = *accepted = 0;
	for (unsigned int i = 0; i < NTASKS; i++) {
		struct doca_task *t;
		doca_error_t r;

		s[i] = fx_src_buf(fx, (size_t)i * 1024, 1024);
		d[i] = fx_dst_buf(fx, (size_t)i * 1024, 1024);
		t = fx_task(fx, s[i], d[i], i);
		for (unsigned int tries = 0;
		     (r = doca_task_submit(t)) == DOCA_ERROR_AGAIN && tries < 1000; tries++) {
			(*agains)++;
			doca_pe_progress(fx->pe);
		}
		if (r != DOCA_SUCCESS) {
			doca_task_free(
			        t); /* rejected (context stopped after an injected failure) */
			break;
		}
		(*accepted)++;
	}
	assert_true(fx_progress_until(fx, *accepted, LOOPS));
	for (unsigned int i = 0; i < NTASKS && s[i] != NULL; i++) {
		assert_ok(doca_buf_dec_refcount(s[i], NULL));
		assert_ok(doca_buf_dec_refcount(d[i], NULL));
		s[i] = d[i] = NULL;
	}
}

static void child_submit_again(void)
{
	struct fx fx;
	unsigned int agains, accepted;

	fx_init(&fx, 1 << 20, NTASKS, true);
	pump(&fx, &agains, &accepted);
	assert_int_equal(accepted, NTASKS);
	assert_true(agains > 10);        /* ~50% of submits */
	assert_int_equal(fx.ok, NTASKS); /* every accepted task completed once */
	assert_memory_equal(fx.dst, fx.src, NTASKS * 1024);
	fx_fini(&fx);
}

static void submit_again(void **state)
{
	(void)state;
	run_child("seed=7,submit_again=0.5", "inline", child_submit_again);
	run_child("seed=7,submit_again=0.5", "thread", child_submit_again);
}

static void child_complete_error(void)
{
	struct fx fx;
	unsigned int agains, accepted;

	fx_init(&fx, 1 << 20, NTASKS, true);
	pump(&fx, &agains, &accepted);
	/* the first injected failure stops the context; every accepted task got one callback */
	assert_true(fx.err >= 1);
	assert_int_equal(fx.ok + fx.err, accepted);
	assert_int_equal(fx.last_status == DOCA_SUCCESS || fx.last_status == DOCA_ERROR_IO_FAILED ||
	                         fx.last_status == DOCA_ERROR_DRIVER,
	                 1);
	assert_true(fx_progress_until_idle(&fx, LOOPS));
	fx_fini(&fx);
}

static void complete_error(void **state)
{
	(void)state;
	run_child("seed=3,complete_error=0.05", "inline", child_complete_error);
	run_child("seed=3,complete_error=0.05", "thread", child_complete_error);
	run_child("seed=3,complete_error=1,error=DRIVER", "thread", child_complete_error);
}

static void child_delay(void)
{
	struct fx fx;
	unsigned int agains, accepted;

	fx_init(&fx, 1 << 20, NTASKS, true);
	pump(&fx, &agains, &accepted);
	assert_int_equal(fx.ok, NTASKS);
	assert_memory_equal(fx.dst, fx.src, NTASKS * 1024);
	fx_fini(&fx);
}

static void delay(void **state)
{
	(void)state;
	run_child("delay_us=0-200", "thread", child_delay);
	run_child("delay_us=50", "inline", child_delay);
}

static void child_bad_spec(void)
{
	struct doca_pe *pe = NULL;

	assert_int_equal(doca_pe_create(&pe), DOCA_ERROR_INVALID_VALUE);
	assert_null(pe);
}

static void bad_specs(void **state)
{
	static const char *const bad[] = { "submit_again=2",
		                           "seed=-1",
		                           "delay_us=9-3",
		                           "nonsense=1",
		                           "complete_error",
		                           "error=NO_SUCH",
		                           ",",
		                           ",seed=1",
		                           "seed=1,",
		                           "delay_us=1000001",
		                           "delay_us=1-2-3",
		                           "comch_drop_after=-1",
		                           "comch_drop_after=0",
		                           "comch_delay_us=9-3",
		                           "comch_delay_us=x" };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		run_child(bad[i], NULL, child_bad_spec);
}

/* The same seed gives the same faults: the AGAIN count is identical across runs. */
static unsigned int again_count;

static void child_count_agains(void)
{
	struct fx fx;
	unsigned int agains, accepted;

	fx_init(&fx, 1 << 20, NTASKS, true);
	pump(&fx, &agains, &accepted);
	fx_fini(&fx);
	_exit((int)(agains % 200));
}

static unsigned int count_agains(const char *spec)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		setenv("ODMA_FAULTS", spec, 1);
		setenv("ODMA_ENGINE", "inline", 1);
		child_count_agains();
	}
	waitpid(pid, &st, 0);
	return (unsigned int)WEXITSTATUS(st);
}

static void deterministic(void **state)
{
	(void)state;
	again_count = count_agains("seed=11,submit_again=0.3");
	assert_int_equal(count_agains("seed=11,submit_again=0.3"), again_count);
	assert_int_equal(count_agains("seed=11,submit_again=0.3"), again_count);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(submit_again),  cmocka_unit_test(complete_error),
		cmocka_unit_test(delay),         cmocka_unit_test(bad_specs),
		cmocka_unit_test(deterministic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
