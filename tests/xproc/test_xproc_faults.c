/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * ODMA_FAULTS on tasks that touch imported memory (two processes). ODMA_FAULTS is read once
 * per process, at the first doca_pe_create, so every case runs in a forked importer that sets
 * it first; the importer forks its own exporter (host side, b1:00.0), which hands over its
 * descriptor on a socketpair and answers 'R' (send the buffer back) and 'X' (exit).
 * The importer reports failures by its exit status (cmocka asserts do not cross a fork).
 * Runs under whatever ODMA_ENGINE meson sets.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "test_util.h"
#include "xproc_util.h"

#define XLEN 65536
#define NT 32      /* tasks of a batch */
#define PIECE 1024 /* bytes per task */
#define SPINS 20000000L

static uint8_t xbuf[XLEN];

struct imp {
	pid_t child;
	int fd;
	struct doca_dev *dev;
	struct doca_mmap *remote, *local;
	struct doca_buf_inventory *inv;
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_ctx *ctx;
	uint8_t *raddr;
	unsigned int calls[NT + 1]; /* callbacks per task index */
	doca_error_t status[NT + 1];
	unsigned int done, ok, err;
	bool saw_stopping;
	enum doca_ctx_states state;
	uint8_t local_mem[XLEN];
};

static struct imp im;

static void task_cb(struct doca_dma_task_memcpy *t, union doca_data tud, union doca_data cud)
{
	doca_error_t st = doca_task_get_status(doca_dma_task_memcpy_as_task(t));

	(void)cud;
	im.calls[tud.u64]++;
	im.status[tud.u64] = st;
	im.done++;
	if (st == DOCA_SUCCESS)
		im.ok++;
	else
		im.err++;
	doca_task_free(doca_dma_task_memcpy_as_task(t));
}

static void state_cb(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
                     enum doca_ctx_states next)
{
	(void)ud;
	(void)ctx;
	(void)prev;
	if (next == DOCA_CTX_STATE_STOPPING)
		im.saw_stopping = true;
	im.state = next;
}

/* Sets ODMA_FAULTS, forks the exporter, imports its buffer and starts a DMA context. */
static void imp_start(const char *faults)
{
	uint8_t desc[256];
	uint64_t hdr[2];

	setenv("ODMA_FAULTS", faults, 1); /* before the first doca_pe_create of this process */
	im.child = xu_spawn_exporter(xbuf, XLEN, DOCA_ACCESS_FLAG_PCI_READ_WRITE, &im.fd);
	TU_CHECK(im.child >= 0);
	TU_CHECK(xu_full_io(im.fd, hdr, sizeof(hdr), false) && hdr[0] <= sizeof(desc));
	TU_CHECK(xu_full_io(im.fd, desc, hdr[0], false));
	im.raddr = (uint8_t *)(uintptr_t)hdr[1];
	TU_CHECK((im.dev = tu_open_pci_or_null("03:00.0")) != NULL);
	TU_CHECK(doca_mmap_create_from_export(NULL, desc, hdr[0], im.dev, &im.remote) ==
	         DOCA_SUCCESS);
	TU_CHECK(doca_mmap_create(&im.local) == DOCA_SUCCESS);
	TU_CHECK(doca_mmap_set_memrange(im.local, im.local_mem, XLEN) == DOCA_SUCCESS);
	TU_CHECK(doca_mmap_add_dev(im.local, im.dev) == DOCA_SUCCESS);
	TU_CHECK(doca_mmap_start(im.local) == DOCA_SUCCESS);
	TU_CHECK(doca_buf_inventory_create(4 * NT, &im.inv) == DOCA_SUCCESS);
	TU_CHECK(doca_buf_inventory_start(im.inv) == DOCA_SUCCESS);
	TU_CHECK(doca_pe_create(&im.pe) == DOCA_SUCCESS);
	TU_CHECK(doca_dma_create(im.dev, &im.dma) == DOCA_SUCCESS);
	im.ctx = doca_dma_as_ctx(im.dma);
	TU_CHECK(doca_ctx_set_state_changed_cb(im.ctx, state_cb) == DOCA_SUCCESS);
	TU_CHECK(doca_dma_task_memcpy_set_conf(im.dma, task_cb, task_cb, NT) == DOCA_SUCCESS);
	TU_CHECK(doca_pe_connect_ctx(im.pe, im.ctx) == DOCA_SUCCESS);
	TU_CHECK(doca_ctx_start(im.ctx) == DOCA_SUCCESS);
}

static void progress_until_done(unsigned int want)
{
	for (long i = 0; i < SPINS && im.done < want; i++)
		doca_pe_progress(im.pe);
	TU_CHECK(im.done == want);
}

/* Without any doca_ctx_stop: a failed task stopped the context itself. */
static void progress_until_idle(void)
{
	for (long i = 0; i < SPINS && im.state != DOCA_CTX_STATE_IDLE; i++)
		doca_pe_progress(im.pe);
	TU_CHECK(im.saw_stopping);
	TU_CHECK(im.state == DOCA_CTX_STATE_IDLE);
}

static void imp_finish(void)
{
	int st;

	if (im.state != DOCA_CTX_STATE_IDLE) {
		doca_error_t r = doca_ctx_stop(im.ctx);

		TU_CHECK(r == DOCA_SUCCESS || r == DOCA_ERROR_IN_PROGRESS);
		for (long i = 0; i < SPINS && im.state != DOCA_CTX_STATE_IDLE; i++)
			doca_pe_progress(im.pe);
	}
	TU_CHECK(doca_dma_destroy(im.dma) == DOCA_SUCCESS);
	TU_CHECK(doca_pe_destroy(im.pe) == DOCA_SUCCESS);
	TU_CHECK(doca_buf_inventory_destroy(im.inv) == DOCA_SUCCESS);
	TU_CHECK(doca_mmap_destroy(im.remote) == DOCA_SUCCESS);
	TU_CHECK(doca_mmap_destroy(im.local) == DOCA_SUCCESS);
	TU_CHECK(doca_dev_close(im.dev) == DOCA_SUCCESS);
	TU_CHECK(xu_full_io(im.fd, "X", 1, true));
	close(im.fd);
	TU_CHECK(waitpid(im.child, &st, 0) == im.child && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	_exit(0);
}

/*
 * Task @idx copies PIECE bytes: from the export into local memory (to_remote false), or
 * from local memory into the export. Returns the submit status (retrying AGAIN up to
 * @again_tries times, counting retries in *agains); on a refusal the task is freed.
 */
static doca_error_t submit_piece(unsigned int idx, bool to_remote, unsigned int again_tries,
                                 unsigned int *agains, struct doca_buf **src, struct doca_buf **dst)
{
	size_t off = (size_t)idx * PIECE;
	struct doca_mmap *sm = to_remote ? im.local : im.remote,
	                 *dm = to_remote ? im.remote : im.local;
	uint8_t *sp = (to_remote ? im.local_mem : im.raddr) + off;
	uint8_t *dp = (to_remote ? im.raddr : im.local_mem) + off;
	struct doca_dma_task_memcpy *t;
	doca_error_t r;

	TU_CHECK(doca_buf_inventory_buf_get_by_data(im.inv, sm, sp, PIECE, src) == DOCA_SUCCESS);
	TU_CHECK(doca_buf_inventory_buf_get_by_addr(im.inv, dm, dp, PIECE, dst) == DOCA_SUCCESS);
	TU_CHECK(doca_dma_task_memcpy_alloc_init(
	                 im.dma, *src, *dst, (union doca_data){ .u64 = idx }, &t) == DOCA_SUCCESS);
	for (unsigned int n = 0;
	     (r = doca_task_submit(doca_dma_task_memcpy_as_task(t))) == DOCA_ERROR_AGAIN &&
	     n < again_tries;
	     n++) {
		(*agains)++;
		doca_pe_progress(im.pe);
	}
	if (r != DOCA_SUCCESS)
		doca_task_free(doca_dma_task_memcpy_as_task(t));
	return r;
}

static void release(struct doca_buf **b, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (b[i] != NULL) {
			TU_CHECK(doca_buf_dec_refcount(b[i], NULL) == DOCA_SUCCESS);
			b[i] = NULL;
		}
}

static bool piece_read_ok(unsigned int idx)
{
	for (size_t i = 0; i < PIECE; i++)
		if (im.local_mem[(size_t)idx * PIECE + i] != xu_pattern((size_t)idx * PIECE + i))
			return false;
	return true;
}

/* remote_die_after=5, one task at a time: 5 reads succeed, the 6th fails, the ctx stops. */
static void child_die_sequential(void)
{
	struct doca_buf *s[NT] = { 0 }, *d[NT] = { 0 };
	unsigned int agains = 0;

	imp_start("remote_die_after=5");
	for (unsigned int i = 0; i < 6; i++) {
		TU_CHECK(submit_piece(i, false, 0, &agains, &s[i], &d[i]) == DOCA_SUCCESS);
		progress_until_done(i + 1);
		TU_CHECK(im.calls[i] == 1);
		TU_CHECK(im.status[i] == (i < 5 ? DOCA_SUCCESS : DOCA_ERROR_IO_FAILED));
		TU_CHECK(i == 5 || piece_read_ok(i));
	}
	progress_until_idle();
	/* Restarted, the context still cannot reach the "dead" peer; local copies still work. */
	TU_CHECK(doca_ctx_start(im.ctx) == DOCA_SUCCESS);
	im.saw_stopping = false;
	TU_CHECK(submit_piece(6, false, 0, &agains, &s[6], &d[6]) == DOCA_SUCCESS);
	progress_until_done(7);
	TU_CHECK(im.status[6] == DOCA_ERROR_IO_FAILED);
	progress_until_idle();
	TU_CHECK(im.ok == 5 && im.err == 2);
	release(s, NT);
	release(d, NT);
	imp_finish();
}

/*
 * remote_die_after=0 means a peer dead from the start (not "off"): the first remote task
 * fails and the ctx stops.
 */
static void child_die_at_once(void)
{
	struct doca_buf *s[NT] = { 0 }, *d[NT] = { 0 };
	unsigned int agains = 0;

	imp_start("remote_die_after=0");
	TU_CHECK(submit_piece(0, false, 0, &agains, &s[0], &d[0]) == DOCA_SUCCESS);
	progress_until_done(1);
	TU_CHECK(im.calls[0] == 1 && im.status[0] == DOCA_ERROR_IO_FAILED);
	progress_until_idle();
	TU_CHECK(im.saw_stopping && im.ok == 0 && im.err == 1);
	release(s, NT);
	release(d, NT);
	imp_finish();
}

/* remote_die_after=8, a batch of NT: at most 8 succeed, each accepted task gets one callback. */
static void child_die_batch(void)
{
	struct doca_buf *s[NT] = { 0 }, *d[NT] = { 0 };
	unsigned int accepted = 0, agains = 0;

	imp_start("remote_die_after=8");
	for (unsigned int i = 0; i < NT; i++) {
		doca_error_t r = submit_piece(i, false, 0, &agains, &s[i], &d[i]);

		TU_CHECK(r == DOCA_SUCCESS ||
		         r == DOCA_ERROR_BAD_STATE); /* BAD_STATE: already stopping */
		accepted += r == DOCA_SUCCESS;
	}
	TU_CHECK(accepted > 8);
	progress_until_done(accepted);
	progress_until_idle();
	TU_CHECK(im.ok <= 8 && im.ok + im.err == accepted && im.err >= accepted - 8);
	for (unsigned int i = 0; i < NT; i++) {
		TU_CHECK(im.calls[i] == (i < accepted ? 1u : 0u));
		TU_CHECK(im.status[i] == DOCA_SUCCESS || im.status[i] == DOCA_ERROR_IO_FAILED);
		TU_CHECK(im.status[i] != DOCA_SUCCESS || piece_read_ok(i));
	}
	release(s, NT);
	release(d, NT);
	imp_finish();
}

/* complete_error on remote tasks: the first injected failure stops the context. */
static void child_complete_error(const char *spec, doca_error_t want)
{
	struct doca_buf *s[NT] = { 0 }, *d[NT] = { 0 };
	unsigned int accepted = 0, agains = 0;

	imp_start(spec);
	for (unsigned int i = 0; i < NT; i++) {
		doca_error_t r = submit_piece(i, false, 0, &agains, &s[i], &d[i]);

		TU_CHECK(r == DOCA_SUCCESS || r == DOCA_ERROR_BAD_STATE);
		accepted += r == DOCA_SUCCESS;
		if (r != DOCA_SUCCESS)
			break;
	}
	progress_until_done(accepted);
	progress_until_idle();
	TU_CHECK(im.err >= 1 && im.ok + im.err == accepted);
	for (unsigned int i = 0; i < accepted; i++) {
		TU_CHECK(im.calls[i] == 1);
		TU_CHECK(im.status[i] == DOCA_SUCCESS || im.status[i] == want ||
		         im.status[i] == DOCA_ERROR_IO_FAILED); /* IO_FAILED: flushed by the stop */
		TU_CHECK(im.status[i] != DOCA_SUCCESS || piece_read_ok(i));
	}
	release(s, NT);
	release(d, NT);
	imp_finish();
}

static void child_complete_error_all(void)
{
	child_complete_error("complete_error=1,error=DRIVER", DOCA_ERROR_DRIVER);
}

static void child_complete_error_some(void)
{
	child_complete_error("seed=3,complete_error=0.2", DOCA_ERROR_IO_FAILED);
}

/* submit_again on remote writes: every task is retried until accepted, all bytes land. */
static void child_submit_again(void)
{
	struct doca_buf *s[NT] = { 0 }, *d[NT] = { 0 };
	static uint8_t back[XLEN];
	unsigned int agains = 0;

	imp_start("seed=7,submit_again=0.5");
	for (size_t i = 0; i < XLEN; i++)
		im.local_mem[i] = (uint8_t)(i ^ 0x5a);
	for (unsigned int i = 0; i < NT; i++)
		TU_CHECK(submit_piece(i, true, 1000, &agains, &s[i], &d[i]) == DOCA_SUCCESS);
	progress_until_done(NT);
	TU_CHECK(im.ok == NT && im.err == 0 && agains > 0);
	for (unsigned int i = 0; i < NT; i++)
		TU_CHECK(im.calls[i] == 1);
	TU_CHECK(xu_full_io(im.fd, "R", 1, true) && xu_full_io(im.fd, back, XLEN, false));
	TU_CHECK(memcmp(back, im.local_mem, (size_t)NT * PIECE) == 0);
	TU_CHECK(back[NT * PIECE] ==
	         xu_pattern(NT * PIECE)); /* nothing beyond the tasks was touched */
	release(s, NT);
	release(d, NT);
	imp_finish();
}

static void run_case(void (*fn)(void))
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		fn();
		_exit(0);
	}
	xu_assert_child_ok(pid);
}

static void test_remote_die_sequential(void **state)
{
	(void)state;
	run_case(child_die_sequential);
}

static void test_remote_die_at_once(void **state)
{
	(void)state;
	run_case(child_die_at_once);
}

static void test_remote_die_batch(void **state)
{
	(void)state;
	run_case(child_die_batch);
}

static void test_complete_error_remote(void **state)
{
	(void)state;
	run_case(child_complete_error_all);
	run_case(child_complete_error_some);
}

static void test_submit_again_remote(void **state)
{
	(void)state;
	run_case(child_submit_again);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_remote_die_sequential),
		cmocka_unit_test(test_remote_die_at_once),
		cmocka_unit_test(test_remote_die_batch),
		cmocka_unit_test(test_complete_error_remote),
		cmocka_unit_test(test_submit_again_remote),
	};

	signal(SIGPIPE, SIG_IGN);
	if (!xu_kernel_allows()) {
		printf("skipping: the kernel refuses process_vm_readv here (see "
		       "docs/host-dpu.md)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
