/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * ODMA_FAULTS: every fault kind fires and is survived without losing a completion.
 * The variable is read once per process, so each case runs in a forked child.
 */
#include <stdio.h>
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

/*
 * remote_die_after counts tasks accepted on remote memory, not refused ones. A thread-engine
 * channel holds 4096 in-order tasks (thread.c TE_RING_CAP); the profile below lets a context
 * have more in flight, so task 4097 is refused by the engine (AGAIN) and must not use up the
 * last task the "peer" serves.
 */
#define RING_CAP 4096u
#define PIECE 64u
#define DIE_AFTER (RING_CAP + 1)

static const char deep_profile[] =
        "system deep\n"
        "device side=host pci=0000:5e:00.0 ibdev=mlx5_4 iface=h0 memcpy=yes max_buf_size=1M "
        "max_buf_list_len=16 max_num_tasks=8192 queue_depth=8192 export_pci=yes "
        "from_export_pci=yes\n"
        "device side=dpu pci=03:00.0 ibdev=mlx5_0 iface=p0 memcpy=yes max_buf_size=1M "
        "max_buf_list_len=16 max_num_tasks=8192 queue_depth=8192 export_pci=yes "
        "from_export_pci=yes\n";

/* Writes deep_profile to a temporary file and points ODMA_SYSTEM at it. */
static void use_deep_profile(void)
{
	static char path[] = "/tmp/odma-test-faults-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	assert_non_null(f);
	assert_int_equal(fputs(deep_profile, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	setenv("ODMA_SYSTEM", path, 1);
}

/* An ordered DMA context of the DPU reading host memory exported and imported in-process. */
static void deep_open(struct fx *fx, struct doca_mmap **exp, struct doca_dev **host)
{
	const size_t len = (DIE_AFTER + 1) * PIECE;
	union doca_data ud = { .ptr = fx };
	const void *desc;
	size_t dlen;

	memset(fx, 0, sizeof(*fx));
	fx->len = len;
	fx->src = malloc(len);
	fx->dst = calloc(1, len);
	assert_true(fx->src != NULL && fx->dst != NULL);
	fx_pattern(fx->src, len, 9);
	*host = tu_open_dev("5e:00.0");
	fx->dev = tu_open_dev("03:00.0");
	assert_ok(doca_mmap_create(exp));
	assert_ok(doca_mmap_add_dev(*exp, *host));
	assert_ok(doca_mmap_set_memrange(*exp, fx->src, len));
	assert_ok(doca_mmap_set_permissions(*exp, DOCA_ACCESS_FLAG_PCI_READ_WRITE));
	assert_ok(doca_mmap_start(*exp));
	assert_ok(doca_mmap_export_pci(*exp, *host, &desc, &dlen));
	assert_ok(doca_mmap_create_from_export(NULL, desc, dlen, fx->dev, &fx->src_mmap));
	assert_ok(doca_mmap_create(&fx->dst_mmap));
	assert_ok(doca_mmap_add_dev(fx->dst_mmap, fx->dev));
	assert_ok(doca_mmap_set_memrange(fx->dst_mmap, fx->dst, len));
	assert_ok(doca_mmap_start(fx->dst_mmap));
	assert_ok(doca_buf_inventory_create(2 * (DIE_AFTER + 1), &fx->inv));
	assert_ok(doca_buf_inventory_start(fx->inv));
	assert_ok(doca_pe_create(&fx->pe));
	assert_ok(doca_dma_create(fx->dev, &fx->dma));
	fx->ctx = doca_dma_as_ctx(fx->dma);
	fx->free_in_cb = true;
	assert_ok(doca_ctx_set_user_data(fx->ctx, ud));
	assert_ok(doca_dma_set_ordered_completions(fx->dma, 1));
	assert_ok(doca_dma_task_memcpy_set_conf(fx->dma, fx_ok_cb, fx_err_cb, DIE_AFTER + 1));
	assert_ok(doca_pe_connect_ctx(fx->pe, fx->ctx));
	assert_ok(doca_ctx_start(fx->ctx));
}

static struct doca_buf *deep_bufs[2 * (DIE_AFTER + 1)];

static doca_error_t deep_submit(struct fx *fx, unsigned int i, struct doca_task **t)
{
	struct doca_buf **b = &deep_bufs[2 * i];

	b[0] = fx_src_buf(fx, (size_t)i * PIECE, PIECE);
	b[1] = fx_dst_buf(fx, (size_t)i * PIECE, PIECE);
	*t = fx_task(fx, b[0], b[1], i);
	return doca_task_submit(*t);
}

/* Releases the bufs of deep_submit and everything deep_open made. */
static void deep_close(struct fx *fx, struct doca_mmap *exp, struct doca_dev *host)
{
	for (size_t i = 0; i < sizeof(deep_bufs) / sizeof(deep_bufs[0]); i++)
		assert_ok(doca_buf_dec_refcount(deep_bufs[i], NULL));
	fx_fini(fx);
	assert_ok(doca_mmap_stop(exp));
	assert_ok(doca_mmap_destroy(exp));
	assert_ok(doca_dev_close(host));
}

static void child_die_after_refusal(void)
{
	struct doca_mmap *exp;
	struct doca_dev *host;
	struct doca_task *t;
	struct fx fx;

	use_deep_profile();
	setenv("ODMA_WORKERS", "1", 1);
	setenv("ODMA_INLINE_MAX", "0", 1); /* every task goes to the channel */
	deep_open(&fx, &exp, &host);
	unlink(getenv("ODMA_SYSTEM")); /* read once, at the first device open */
	for (unsigned int i = 0; i < RING_CAP; i++)
		assert_ok(deep_submit(&fx, i, &t));
	/* the channel is full: the engine refuses task 4097, which stays the program's */
	assert_int_equal(deep_submit(&fx, RING_CAP, &t), DOCA_ERROR_AGAIN);
	assert_true(fx_progress_until(&fx, RING_CAP, LOOPS));
	assert_int_equal(fx.ok, RING_CAP);
	assert_ok(doca_task_submit(t)); /* the 4097th accepted: the last the peer serves */
	assert_true(fx_progress_until(&fx, RING_CAP + 1, LOOPS));
	assert_int_equal(fx.err, 0);
	assert_int_equal(fx.ok, DIE_AFTER);
	assert_memory_equal(fx.dst, fx.src, (size_t)DIE_AFTER * PIECE);
	assert_ok(deep_submit(&fx, DIE_AFTER, &t)); /* the peer is now "dead" */
	assert_true(fx_progress_until(&fx, DIE_AFTER + 1, LOOPS));
	assert_int_equal(fx.err, 1);
	assert_int_equal(fx.last_status, DOCA_ERROR_IO_FAILED);
	deep_close(&fx, exp, host);
}

static void remote_die_after_skips_refused(void **state)
{
	(void)state;
	run_child("remote_die_after=4097", "thread", child_die_after_refusal);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(submit_again),  cmocka_unit_test(complete_error),
		cmocka_unit_test(delay),         cmocka_unit_test(bad_specs),
		cmocka_unit_test(deterministic), cmocka_unit_test(remote_die_after_skips_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
