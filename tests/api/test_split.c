/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Split copies of the thread engine (issue 22): a copy above ODMA_SPLIT_MIN is cut into
 * chunks that the submitting thread and every worker claim from one cursor. Checked through
 * the public API only: the bytes arrive, each task completes exactly once, a fault in one
 * chunk fails its task alone, and the engine's own account (the debug line it logs when its
 * pool stops: bytes of split copies moved by each worker and by PE threads) adds up to the
 * bytes submitted, with both kinds of thread taking part.
 *
 * Runs with ODMA_ENGINE=thread, ODMA_WORKERS=1 (set here before the first PE).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dma.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "fixture.h"
#include "test_util.h"

#define MIB (1024u * 1024u)
#define COPY (2 * MIB)
#define DEPTH 4

static FILE *log_file;

/* How many chunks the split copies ran in, by the account of the last pool stop. */
static unsigned long long last_chunks;

/* The split account of the last pool stop: bytes of worker 0 and of PE threads. */
static bool split_account(unsigned long long *worker, unsigned long long *pe)
{
	char line[1024];
	bool found = false;

	fflush(log_file);
	rewind(log_file);
	while (fgets(line, sizeof(line), log_file) != NULL) {
		const char *p = strstr(line, "worker 0 moved "), *c = strstr(line, "ran in ");

		if (p != NULL &&
		    sscanf(p, "worker 0 moved %llu bytes of split copies (PE threads: %llu)",
		           worker, pe) == 2)
			found = true;
		if (c != NULL && sscanf(c, "ran in %llu chunks", &last_chunks) != 1)
			last_chunks = 0;
	}
	/* start the next account afresh */
	assert_int_equal(ftruncate(fileno(log_file), 0), 0);
	rewind(log_file);
	return found;
}

/* One PE's life: @n copies of COPY bytes at DEPTH in flight; every byte checked. */
static void run_copies(unsigned int n)
{
	struct fx fx;
	struct doca_task *t[DEPTH];
	struct doca_buf *src[DEPTH], *dst[DEPTH];
	unsigned int submitted = 0;

	fx_init(&fx, (size_t)DEPTH * COPY, DEPTH, true);
	fx.free_in_cb = false;
	for (unsigned int i = 0; i < DEPTH; i++) {
		src[i] = fx_src_buf(&fx, (size_t)i * COPY, COPY);
		dst[i] = fx_dst_buf(&fx, (size_t)i * COPY, COPY);
		t[i] = fx_task(&fx, src[i], dst[i], i);
	}
	/*
	 * DEPTH copies at a time, all of them finished before the slots are used again: split
	 * copies complete in any order, so a count of completions does not say which slot is free
	 */
	while (submitted < n) {
		unsigned int batch = n - submitted < DEPTH ? n - submitted : DEPTH;

		for (unsigned int k = 0; k < batch; k++)
			assert_ok(doca_task_submit(t[k]));
		submitted += batch;
		assert_true(fx_progress_until(&fx, submitted, 1000000000ul));
		if (submitted == n)
			break;
		for (unsigned int k = 0; k < batch; k++) {
			assert_memory_equal(fx.dst + (size_t)k * COPY, fx.src + (size_t)k * COPY,
			                    COPY);
			memset(fx.dst + (size_t)k * COPY, 0, COPY);
			assert_ok(doca_buf_reset_data_len(dst[k]));
		}
	}
	/* exactly once: no more callbacks come */
	for (int i = 0; i < 1000; i++)
		doca_pe_progress(fx.pe);
	assert_int_equal(fx.ok, n);
	assert_int_equal(fx.err, 0);
	for (unsigned int i = 0; i < DEPTH && i < n; i++)
		assert_memory_equal(fx.dst + (size_t)i * COPY, fx.src + (size_t)i * COPY, COPY);
	for (unsigned int i = 0; i < DEPTH; i++) {
		doca_task_free(t[i]);
		assert_ok(doca_buf_dec_refcount(src[i], NULL));
		assert_ok(doca_buf_dec_refcount(dst[i], NULL));
	}
	fx_fini(&fx); /* the last PE: the pool stops and logs its account */
}

/*
 * The bytes of every split copy are counted once, by whoever moved them; with a worker
 * awake, both it and the submitting thread move chunks. Tried on fresh PEs for up to 30 s:
 * a busy machine may leave the worker unscheduled through many short runs (50 rounds were
 * not always enough beside two busy loops), and the test asks only that it happens at all.
 */
static void split_shares_add_up(void **state)
{
	unsigned long long w = 0, p = 0;
	bool both = false;
	time_t end = time(NULL) + 30;

	(void)state;
	for (int round = 0; !both && (round < 50 || time(NULL) < end); round++) {
		run_copies(16);
		assert_true(split_account(&w, &p));
		assert_int_equal(w + p, 16ull * COPY);
		/* a local copy: about four chunks per thread (one worker and this thread) */
		assert_int_equal(last_chunks, 16ull * 8);
		both = w > 0 && p > 0;
	}
	assert_true(both);
}

/* A chunk that faults fails its own task, exactly once; the copies after it still complete. */
static void split_fault_fails_its_task(void **state)
{
	struct fx fx;
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *area =
	        mmap(NULL, COPY, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct doca_mmap *m;
	struct doca_buf *src, *dst;
	struct doca_task *bad;

	(void)state;
	assert_true(area != MAP_FAILED);
	memset(area, 7, COPY);
	fx_init(&fx, 2 * (size_t)COPY, 4, true);
	assert_ok(doca_mmap_create(&m));
	assert_ok(doca_mmap_add_dev(m, fx.dev));
	assert_ok(doca_mmap_set_memrange(m, area, COPY));
	assert_ok(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	assert_ok(doca_mmap_start(m));
	assert_ok(doca_buf_inventory_buf_get_by_data(fx.inv, m, area, COPY, &src));
	dst = fx_dst_buf(&fx, 0, COPY);
	/* a page in the last quarter of the copy goes away after the mmap started */
	assert_int_equal(munmap(area + COPY - 8 * pg, (size_t)pg), 0);
	bad = fx_task(&fx, src, dst, 1);
	assert_ok(doca_task_submit(bad));
	assert_true(fx_progress_until(&fx, 1, 1000000000ul));
	for (int i = 0; i < 1000; i++)
		doca_pe_progress(fx.pe);
	assert_int_equal(fx.err, 1);
	assert_int_equal(fx.ok, 0);
	assert_int_equal(fx.last_status, DOCA_ERROR_IO_FAILED);
	/* the context failed (as hardware stops a queue): a later copy needs it restarted */
	assert_ok(doca_buf_dec_refcount(src, NULL));
	assert_ok(doca_buf_dec_refcount(dst, NULL));
	assert_ok(doca_mmap_stop(m));
	assert_ok(doca_mmap_destroy(m));
	fx_fini(&fx);
	munmap(area, COPY);
	split_account(&(unsigned long long){ 0 }, &(unsigned long long){ 0 });
}

/*
 * An overlapping copy (doca_task_submit accepts it and promises memmove's bytes) is not cut:
 * chunks run in any order on several threads would read bytes another chunk already wrote.
 */
static void split_refuses_overlap(void **state)
{
	const size_t shift = 4096;
	struct fx fx;
	uint8_t *area = malloc(COPY + shift), *want = malloc(COPY);
	struct doca_mmap *m;
	struct doca_buf *src, *dst;

	(void)state;
	assert_non_null(area);
	assert_non_null(want);
	for (size_t i = 0; i < COPY + shift; i++)
		area[i] = (uint8_t)(i * 7 + i / 4099);
	memcpy(want, area, COPY);
	fx_init(&fx, 2 * (size_t)COPY, 4, true);
	assert_ok(doca_mmap_create(&m));
	assert_ok(doca_mmap_add_dev(m, fx.dev));
	assert_ok(doca_mmap_set_memrange(m, area, COPY + shift));
	assert_ok(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	assert_ok(doca_mmap_start(m));
	for (int dir = 0; dir < 2; dir++) {
		uint8_t *s = dir == 0 ? area : area + shift, *d = dir == 0 ? area + shift : area;

		assert_ok(doca_buf_inventory_buf_get_by_data(fx.inv, m, s, COPY, &src));
		assert_ok(doca_buf_inventory_buf_get_by_addr(fx.inv, m, d, COPY, &dst));
		assert_ok(doca_task_submit(fx_task(&fx, src, dst, 1)));
		assert_true(fx_progress_until(&fx, (unsigned int)dir + 1, 1000000000ul));
		assert_int_equal(fx.ok, dir + 1);
		assert_memory_equal(d, want, COPY); /* memmove's bytes, in both directions */
		memcpy(want, d, COPY);
		assert_ok(doca_buf_dec_refcount(src, NULL));
		assert_ok(doca_buf_dec_refcount(dst, NULL));
	}
	assert_ok(doca_mmap_stop(m));
	assert_ok(doca_mmap_destroy(m));
	fx_fini(&fx);
	free(area);
	free(want);
	split_account(&(unsigned long long){ 0 }, &(unsigned long long){ 0 });
}

static void count_cb(struct doca_dma_task_memcpy *task, union doca_data task_ud,
                     union doca_data ctx_ud)
{
	(void)task;
	(void)task_ud;
	(*(unsigned int *)ctx_ud.ptr)++;
}

/*
 * Progress until @want tasks counted in @done: polling, or (@event) as an event-driven program
 * does, sleeping on the PE's notification handle before each progress call (each sleep at
 * most 5 s: a task that only a poll would run and that no wake-up announces fails the count).
 */
static void xp_wait(struct doca_pe *pe, const unsigned int *done, unsigned int want, bool event)
{
	doca_notification_handle_t h;
	struct pollfd pfd;

	if (!event) {
		for (long i = 0; i < 1000000000L && *done < want; i++)
			doca_pe_progress(pe);
		return;
	}
	assert_ok(doca_pe_get_notification_handle(pe, &h));
	pfd = (struct pollfd){ .fd = h, .events = POLLIN };
	/* as such a program may do right after submitting: arm, sleep, one progress call */
	for (int round = 0; round < 100000 && *done < want; round++) {
		assert_ok(doca_pe_request_notification(pe));
		assert_int_equal(poll(&pfd, 1, 5000), 1);
		assert_ok(doca_pe_clear_notification(pe, h));
		(void)doca_pe_progress(pe);
	}
}

/*
 * Copies from another process' memory (an import of this process' own PCI export: each chunk
 * is one process_vm_readv), DEPTH of them submitted at once: the first two are cut into one
 * chunk per thread, not four (every chunk costs a system call that pins its pages); once two
 * per worker are in flight, the next ones are whole, each run by the home thread of its
 * destination slot (this one at a poll, or the worker), so that two threads do not pin pages
 * under one page-table lock and each keeps its own slots in its cache. @event: the program
 * sleeps on the notification handle, so a whole copy homed on this thread must wake it;
 * @own_homes: every slot is homed on this thread (slots 4 MiB apart, at odd 2 MiB indexes).
 */
static void xp_copies(bool event, bool own_homes)
{
	struct doca_dev *host = tu_open_dev("b1:00.0"), *dpu = tu_open_dev("03:00.0");
	const size_t area = (2 * DEPTH + 2) * (size_t)COPY, stride = own_homes ? 2 * COPY : COPY;
	uint8_t *src = aligned_alloc(4096, COPY), *buf = aligned_alloc(COPY, area), *dst;
	struct doca_mmap *exp, *imp, *local;
	struct doca_buf_inventory *inv;
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_dma_task_memcpy *t[DEPTH];
	unsigned int done = 0;
	union doca_data ud = { .ptr = &done };
	unsigned long long worker = 0, pe_bytes = 0;
	enum doca_ctx_states st;
	const void *desc;
	size_t len;

	assert_non_null(src);
	assert_non_null(buf);
	/* slot i at dst + i * stride; @own_homes: every slot's home (its 2 MiB index) is odd */
	dst = buf + ((((uintptr_t)buf / COPY) & 1) ? 0 : COPY);
	for (size_t i = 0; i < COPY; i++)
		src[i] = (uint8_t)(i * 13 + i / 4093);
	memset(buf, 0, area);
	assert_ok(doca_mmap_create(&exp));
	assert_ok(doca_mmap_add_dev(exp, host));
	assert_ok(doca_mmap_set_memrange(exp, src, COPY));
	assert_ok(doca_mmap_set_permissions(exp, DOCA_ACCESS_FLAG_PCI_READ_WRITE));
	assert_ok(doca_mmap_start(exp));
	assert_ok(doca_mmap_export_pci(exp, host, &desc, &len));
	assert_ok(doca_mmap_create_from_export(NULL, desc, len, dpu, &imp));
	assert_ok(doca_mmap_create(&local));
	assert_ok(doca_mmap_add_dev(local, dpu));
	assert_ok(doca_mmap_set_memrange(local, buf, area));
	assert_ok(doca_mmap_set_permissions(local, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	assert_ok(doca_mmap_start(local));
	assert_ok(doca_buf_inventory_create(2 * DEPTH, &inv));
	assert_ok(doca_buf_inventory_start(inv));
	assert_ok(doca_pe_create(&pe));
	assert_ok(doca_dma_create(dpu, &dma));
	assert_ok(doca_ctx_set_user_data(doca_dma_as_ctx(dma), ud));
	assert_ok(doca_dma_task_memcpy_set_conf(dma, count_cb, count_cb, DEPTH));
	assert_ok(doca_pe_connect_ctx(pe, doca_dma_as_ctx(dma)));
	assert_ok(doca_ctx_start(doca_dma_as_ctx(dma)));
	for (unsigned int i = 0; i < DEPTH; i++) {
		struct doca_buf *s, *d;

		assert_ok(doca_buf_inventory_buf_get_by_data(inv, imp, src, COPY, &s));
		assert_ok(
		        doca_buf_inventory_buf_get_by_addr(inv, local, dst + i * stride, COPY, &d));
		assert_ok(doca_dma_task_memcpy_alloc_init(dma, s, d, ud, &t[i]));
		assert_ok(doca_task_submit(doca_dma_task_memcpy_as_task(t[i])));
	}
	xp_wait(pe, &done, DEPTH, event);
	assert_int_equal(done, DEPTH);
	for (unsigned int i = 0; i < DEPTH; i++) {
		const struct doca_buf *s = doca_dma_task_memcpy_get_src(t[i]);
		struct doca_buf *d = doca_dma_task_memcpy_get_dst(t[i]);

		assert_int_equal(doca_task_get_status(doca_dma_task_memcpy_as_task(t[i])),
		                 DOCA_SUCCESS);
		assert_memory_equal(dst + i * stride, src, COPY);
		assert_ok(doca_buf_dec_refcount((struct doca_buf *)(uintptr_t)s, NULL));
		assert_ok(doca_buf_dec_refcount(d, NULL));
		doca_task_free(doca_dma_task_memcpy_as_task(t[i]));
	}
	(void)doca_ctx_stop(doca_dma_as_ctx(dma));
	for (long i = 0; i < 100000000L; i++) {
		assert_ok(doca_ctx_get_state(doca_dma_as_ctx(dma), &st));
		if (st == DOCA_CTX_STATE_IDLE)
			break;
		doca_pe_progress(pe);
	}
	assert_ok(doca_dma_destroy(dma));
	assert_ok(doca_pe_destroy(pe)); /* the last PE: the pool stops and logs its account */
	assert_true(split_account(&worker, &pe_bytes));
	/* the first two in two chunks each (one worker and this thread), the others whole */
	assert_int_equal(last_chunks, 2ull * 2 + (DEPTH - 2));
	assert_int_equal(worker + pe_bytes, (unsigned long long)DEPTH * COPY);
	assert_ok(doca_buf_inventory_destroy(inv));
	assert_ok(doca_mmap_destroy(imp));
	assert_ok(doca_mmap_stop(local));
	assert_ok(doca_mmap_destroy(local));
	assert_ok(doca_mmap_stop(exp));
	assert_ok(doca_mmap_destroy(exp));
	assert_ok(doca_dev_close(host));
	assert_ok(doca_dev_close(dpu));
	free(src);
	free(buf);
}

static void split_cross_process_whole_copies_by_home(void **state)
{
	(void)state;
	xp_copies(false, false); /* the slots' homes alternate: this thread, the worker */
}

/*
 * Every whole copy is homed on the PE thread, and the program sleeps on the notification
 * handle after each progress call: only the engine's pending report wakes it for them.
 */
static void split_cross_process_event_driven(void **state)
{
	(void)state;
	xp_copies(true, true);
}

/* Another process' memory seen from here (an import of this process' own PCI export). */
struct xp {
	struct doca_dev *host, *dpu;
	struct doca_mmap *exp, *imp, *local;
	struct doca_buf_inventory *inv;
	struct doca_pe *pe;
	struct doca_dma *dma;
};

/* A started mmap of @dev over [@addr, @addr + @len) with @perms. */
static struct doca_mmap *xp_mmap(struct doca_dev *dev, void *addr, size_t len, uint32_t perms)
{
	struct doca_mmap *m;

	assert_ok(doca_mmap_create(&m));
	assert_ok(doca_mmap_add_dev(m, dev));
	assert_ok(doca_mmap_set_memrange(m, addr, len));
	assert_ok(doca_mmap_set_permissions(m, perms));
	assert_ok(doca_mmap_start(m));
	return m;
}

/* @src (exported by host, imported by dpu), @local (dpu's), a started DMA context of 1 task. */
static void xp_open(struct xp *x, void *src, size_t src_len, void *local, size_t local_len,
                    unsigned int *done)
{
	union doca_data ud = { .ptr = done };
	const void *desc;
	size_t len;

	x->host = tu_open_dev("b1:00.0");
	x->dpu = tu_open_dev("03:00.0");
	x->exp = xp_mmap(x->host, src, src_len, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	assert_ok(doca_mmap_export_pci(x->exp, x->host, &desc, &len));
	assert_ok(doca_mmap_create_from_export(NULL, desc, len, x->dpu, &x->imp));
	x->local = xp_mmap(x->dpu, local, local_len, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	assert_ok(doca_buf_inventory_create(2, &x->inv));
	assert_ok(doca_buf_inventory_start(x->inv));
	assert_ok(doca_pe_create(&x->pe));
	assert_ok(doca_dma_create(x->dpu, &x->dma));
	assert_ok(doca_ctx_set_user_data(doca_dma_as_ctx(x->dma), ud));
	assert_ok(doca_dma_task_memcpy_set_conf(x->dma, count_cb, count_cb, 1));
	assert_ok(doca_pe_connect_ctx(x->pe, doca_dma_as_ctx(x->dma)));
	assert_ok(doca_ctx_start(doca_dma_as_ctx(x->dma)));
}

/* Stops the context (progressing to IDLE) and destroys everything (the last PE: the pool stops). */
static void xp_close(struct xp *x)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_RUNNING;

	(void)doca_ctx_stop(doca_dma_as_ctx(x->dma));
	for (long i = 0; i < 100000000L && st != DOCA_CTX_STATE_IDLE; i++) {
		assert_ok(doca_ctx_get_state(doca_dma_as_ctx(x->dma), &st));
		doca_pe_progress(x->pe);
	}
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	assert_ok(doca_dma_destroy(x->dma));
	assert_ok(doca_pe_destroy(x->pe));
	assert_ok(doca_buf_inventory_destroy(x->inv));
	assert_ok(doca_mmap_destroy(x->imp));
	assert_ok(doca_mmap_stop(x->local));
	assert_ok(doca_mmap_destroy(x->local));
	assert_ok(doca_mmap_stop(x->exp));
	assert_ok(doca_mmap_destroy(x->exp));
	assert_ok(doca_dev_close(x->host));
	assert_ok(doca_dev_close(x->dpu));
}

/*
 * Arm first, then submit (as conformance's arm_then_submit does for local copies): a copy from
 * another process' memory that runs whole on this thread (ODMA_SPLIT_CHUNK above its size: one
 * chunk, homed by its destination slot at an odd 2 MiB index) is work only a poll runs, so the
 * armed handle must become readable for it, with no progress between the arm and the wait.
 */
static void split_cross_process_arm_then_submit(void **state)
{
	uint8_t *src = aligned_alloc(4096, COPY), *buf = aligned_alloc(COPY, 2 * COPY), *dst;
	struct pollfd pfd = { .events = POLLIN };
	struct doca_dma_task_memcpy *t;
	struct doca_buf *s, *d;
	unsigned int done = 0;
	union doca_data ud = { .ptr = &done };
	struct xp x;

	(void)state;
	assert_non_null(src);
	assert_non_null(buf);
	dst = buf + ((((uintptr_t)buf / COPY) & 1) ? 0 : COPY); /* an odd slot: this thread's */
	fx_pattern(src, COPY, 5);
	memset(buf, 0, 2 * COPY);
	setenv("ODMA_SPLIT_CHUNK", "4M", 1); /* read when the pool starts: the PE of xp_open */
	xp_open(&x, src, COPY, buf, 2 * COPY, &done);
	assert_ok(doca_pe_get_notification_handle(x.pe, &pfd.fd));
	assert_ok(doca_buf_inventory_buf_get_by_data(x.inv, x.imp, src, COPY, &s));
	assert_ok(doca_buf_inventory_buf_get_by_addr(x.inv, x.local, dst, COPY, &d));
	assert_ok(doca_dma_task_memcpy_alloc_init(x.dma, s, d, ud, &t));
	assert_ok(doca_pe_request_notification(x.pe));
	assert_ok(doca_task_submit(doca_dma_task_memcpy_as_task(t)));
	assert_int_equal(poll(&pfd, 1, 5000), 1); /* bounded: a lost wake-up fails, not hangs */
	assert_ok(doca_pe_clear_notification(x.pe, pfd.fd));
	for (long i = 0; i < 100000000L && done == 0; i++)
		doca_pe_progress(x.pe);
	assert_int_equal(done, 1);
	assert_int_equal(doca_task_get_status(doca_dma_task_memcpy_as_task(t)), DOCA_SUCCESS);
	assert_memory_equal(dst, src, COPY);
	doca_task_free(doca_dma_task_memcpy_as_task(t));
	assert_ok(doca_buf_dec_refcount(s, NULL));
	assert_ok(doca_buf_dec_refcount(d, NULL));
	xp_close(&x);
	unsetenv("ODMA_SPLIT_CHUNK");
	free(src);
	free(buf);
}

/*
 * Two tasks held (submitted without FLUSH) and launched together at the next progress: a local
 * copy that goes to a worker's channel (ODMA_SPLIT_MIN=0: not cut), launched without a doorbell
 * since another task follows, then a small copy from another process' memory, which the engine
 * stages for its next poll. The doorbell of the last launch must publish the first one too, or
 * it never reaches its worker and never completes.
 */
static void split_held_channel_then_staged(void **state)
{
	uint8_t *src = aligned_alloc(4096, COPY), *buf = aligned_alloc(4096, COPY);
	struct doca_buf *ls, *ld, *rs, *rd;
	struct doca_dma_task_memcpy *l, *r;
	struct doca_buf_inventory *inv;
	struct doca_ctx *ctx;
	unsigned int done = 0;
	union doca_data ud = { .ptr = &done };
	enum doca_ctx_states st = DOCA_CTX_STATE_RUNNING;
	struct xp x;

	(void)state;
	assert_non_null(src);
	assert_non_null(buf);
	fx_pattern(src, COPY, 7);
	fx_pattern(buf, MIB, 8);
	memset(buf + MIB, 0, MIB);
	setenv("ODMA_SPLIT_MIN", "0", 1); /* read when the pool starts: the PE of xp_open */
	xp_open(&x, src, COPY, buf, COPY, &done);
	ctx = doca_dma_as_ctx(x.dma);
	(void)doca_ctx_stop(ctx);
	for (long i = 0; i < 100000000L && st != DOCA_CTX_STATE_IDLE; i++)
		assert_ok(doca_ctx_get_state(ctx, &st));
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	assert_ok(doca_dma_task_memcpy_set_conf(x.dma, count_cb, count_cb, 2));
	assert_ok(doca_ctx_start(ctx));
	assert_ok(doca_buf_inventory_create(4, &inv));
	assert_ok(doca_buf_inventory_start(inv));
	assert_ok(doca_buf_inventory_buf_get_by_data(inv, x.local, buf, 256 * 1024, &ls));
	assert_ok(doca_buf_inventory_buf_get_by_addr(inv, x.local, buf + MIB, 256 * 1024, &ld));
	assert_ok(doca_buf_inventory_buf_get_by_data(inv, x.imp, src, 4096, &rs));
	assert_ok(doca_buf_inventory_buf_get_by_addr(inv, x.local, buf + MIB + 512 * 1024, 4096,
	                                             &rd));
	assert_ok(doca_dma_task_memcpy_alloc_init(x.dma, ls, ld, ud, &l));
	assert_ok(doca_dma_task_memcpy_alloc_init(x.dma, rs, rd, ud, &r));
	assert_ok(doca_task_submit_ex(doca_dma_task_memcpy_as_task(l), DOCA_TASK_SUBMIT_FLAG_NONE));
	assert_ok(doca_task_submit_ex(doca_dma_task_memcpy_as_task(r), DOCA_TASK_SUBMIT_FLAG_NONE));
	for (time_t end = time(NULL) + 5; done < 2 && time(NULL) < end;)
		doca_pe_progress(x.pe);
	assert_int_equal(done, 2); /* bounded: a task never published fails, not hangs */
	assert_memory_equal(buf + MIB, buf, 256 * 1024);
	assert_memory_equal(buf + MIB + 512 * 1024, src, 4096);
	doca_task_free(doca_dma_task_memcpy_as_task(l));
	doca_task_free(doca_dma_task_memcpy_as_task(r));
	assert_ok(doca_buf_dec_refcount(ls, NULL));
	assert_ok(doca_buf_dec_refcount(ld, NULL));
	assert_ok(doca_buf_dec_refcount(rs, NULL));
	assert_ok(doca_buf_dec_refcount(rd, NULL));
	assert_ok(doca_buf_inventory_stop(inv));
	assert_ok(doca_buf_inventory_destroy(inv));
	xp_close(&x);
	unsetenv("ODMA_SPLIT_MIN");
	free(src);
	free(buf);
}

int main(void)
{
	struct doca_log_backend *be;
	const struct CMUnitTest tests[] = {
		/* first: cmocka installs its own SIGSEGV handler before each test, and the copy
		 * guard, installed by the process' first doca_pe_create, must come after it */
		cmocka_unit_test(split_fault_fails_its_task),
		cmocka_unit_test(split_shares_add_up),
		cmocka_unit_test(split_refuses_overlap),
		cmocka_unit_test(split_cross_process_whole_copies_by_home),
		cmocka_unit_test(split_cross_process_event_driven),
		cmocka_unit_test(split_cross_process_arm_then_submit),
		cmocka_unit_test(split_held_channel_then_staged),
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
