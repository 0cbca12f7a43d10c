/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Batched cross-process copies (issue #15, item 3), two processes: a forked exporter (host
 * side) and this importer (DPU side). Tasks submitted between two progress calls are moved
 * by one process_vm_readv (this file interposes the call to count it), and a batch in which
 * one task's bytes cannot be moved fails that task alone (and, as one by one, the later
 * tasks of its context), while the tasks of another context in the same call complete.
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
#include <sys/mman.h>
#include <sys/syscall.h>
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
#define NTASK 32
#define TSIZE 1024
#define PAGE 4096

static uint8_t xbuf[XLEN];
static long n_readv; /* process_vm_readv calls made by the library */

/* Interposed: the library's calls land here (the executable's symbol comes first). */
ssize_t process_vm_readv(pid_t pid, const struct iovec *l, unsigned long nl, const struct iovec *r,
                         unsigned long nr, unsigned long flags)
{
	__atomic_fetch_add(&n_readv, 1, __ATOMIC_RELAXED);
	return syscall(SYS_process_vm_readv, pid, l, nl, r, nr, flags);
}

struct bt {
	pid_t child;
	int fd;
	struct doca_dev *dev;
	struct doca_mmap *remote, *local;
	struct doca_buf_inventory *inv;
	struct doca_pe *pe;
	struct doca_dma *dma[2];
	uint8_t desc[256];
	uint8_t *raddr;
	uint8_t *mem; /* NTASK pages, mapped with mmap() */
	doca_error_t st[NTASK];
	unsigned int done;
};

static void task_cb(struct doca_dma_task_memcpy *t, union doca_data tud, union doca_data cud)
{
	struct bt *b = cud.ptr;

	b->st[tud.u64] = doca_task_get_status(doca_dma_task_memcpy_as_task(t));
	b->done++;
	doca_buf_dec_refcount((struct doca_buf *)doca_dma_task_memcpy_get_src(t), NULL);
	doca_buf_dec_refcount(doca_dma_task_memcpy_get_dst(t), NULL);
	doca_task_free(doca_dma_task_memcpy_as_task(t));
}

static struct doca_dma *bt_dma(struct bt *b)
{
	struct doca_dma *dma;

	assert_ok(doca_dma_create(b->dev, &dma));
	assert_ok(doca_ctx_set_user_data(doca_dma_as_ctx(dma), (union doca_data){ .ptr = b }));
	assert_ok(doca_dma_task_memcpy_set_conf(dma, task_cb, task_cb, NTASK));
	assert_ok(doca_pe_connect_ctx(b->pe, doca_dma_as_ctx(dma)));
	assert_ok(doca_ctx_start(doca_dma_as_ctx(dma)));
	return dma;
}

static struct bt *bt_start(void)
{
	struct bt *b = calloc(1, sizeof(*b));
	uint64_t hdr[2];

	assert_non_null(b);
	b->child = xu_spawn_exporter(xbuf, XLEN, DOCA_ACCESS_FLAG_PCI_READ_ONLY, &b->fd);
	assert_true(b->child >= 0);
	assert_true(xu_full_io(b->fd, hdr, sizeof(hdr), false));
	assert_true(hdr[0] <= sizeof(b->desc));
	assert_true(xu_full_io(b->fd, b->desc, hdr[0], false));
	b->raddr = (uint8_t *)(uintptr_t)hdr[1];
	b->dev = tu_open_dev("03:00.0");
	assert_ok(doca_mmap_create_from_export(NULL, b->desc, hdr[0], b->dev, &b->remote));
	b->mem = mmap(NULL, NTASK * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
	              0);
	assert_true(b->mem != MAP_FAILED);
	assert_ok(doca_mmap_create(&b->local));
	assert_ok(doca_mmap_set_memrange(b->local, b->mem, NTASK * PAGE));
	assert_ok(doca_mmap_add_dev(b->local, b->dev));
	assert_ok(doca_mmap_start(b->local));
	assert_ok(doca_buf_inventory_create(4 * NTASK, &b->inv));
	assert_ok(doca_buf_inventory_start(b->inv));
	assert_ok(doca_pe_create(&b->pe));
	b->dma[0] = bt_dma(b);
	b->dma[1] = bt_dma(b);
	return b;
}

/* Submits task @i of context @k: TSIZE bytes from remote offset i * TSIZE into page @i. */
static void bt_submit(struct bt *b, int k, int i)
{
	struct doca_buf *src, *dst;
	struct doca_dma_task_memcpy *t;

	assert_ok(doca_buf_inventory_buf_get_by_data(b->inv, b->remote, b->raddr + i * TSIZE, TSIZE,
	                                             &src));
	assert_ok(doca_buf_inventory_buf_get_by_addr(b->inv, b->local, b->mem + i * PAGE, TSIZE,
	                                             &dst));
	assert_ok(doca_dma_task_memcpy_alloc_init(b->dma[k], src, dst,
	                                          (union doca_data){ .u64 = i }, &t));
	assert_ok(doca_task_submit(doca_dma_task_memcpy_as_task(t)));
}

static void bt_wait(struct bt *b, unsigned int n)
{
	for (long i = 0; i < 10000000 && b->done < n; i++)
		doca_pe_progress(b->pe);
	assert_int_equal(b->done, n);
}

static bool bt_page_ok(const struct bt *b, int i)
{
	for (int j = 0; j < TSIZE; j++)
		if (b->mem[i * PAGE + j] != xu_pattern((size_t)(i * TSIZE + j)))
			return false;
	return true;
}

/* Stops both contexts and frees everything. */
static void bt_stop(struct bt *b)
{
	int st;

	for (int k = 0; k < 2; k++) {
		enum doca_ctx_states s = DOCA_CTX_STATE_RUNNING;

		(void)doca_ctx_stop(doca_dma_as_ctx(b->dma[k]));
		for (long i = 0; i < 10000000 && s != DOCA_CTX_STATE_IDLE; i++) {
			doca_pe_progress(b->pe);
			assert_ok(doca_ctx_get_state(doca_dma_as_ctx(b->dma[k]), &s));
		}
		assert_ok(doca_dma_destroy(b->dma[k]));
	}
	assert_ok(doca_pe_destroy(b->pe));
	assert_ok(doca_buf_inventory_stop(b->inv));
	assert_ok(doca_buf_inventory_destroy(b->inv));
	assert_ok(doca_mmap_destroy(b->remote));
	assert_ok(doca_mmap_destroy(b->local));
	assert_ok(doca_dev_close(b->dev));
	munmap(b->mem, NTASK * PAGE);
	(void)xu_full_io(b->fd, "X", 1, true);
	close(b->fd);
	assert_int_equal(waitpid(b->child, &st, 0), b->child);
	free(b);
}

/* NTASK 1 KiB reads submitted before one progress: one system call moves them all. */
static void test_one_call_per_round(void **state)
{
	struct bt *b = bt_start();
	long before;

	(void)state;
	for (int i = 0; i < NTASK; i++)
		bt_submit(b, 0, i);
	before = __atomic_load_n(&n_readv, __ATOMIC_RELAXED);
	bt_wait(b, NTASK);
	assert_int_equal(__atomic_load_n(&n_readv, __ATOMIC_RELAXED) - before, 1);
	for (int i = 0; i < NTASK; i++) {
		assert_ok(b->st[i]);
		assert_true(bt_page_ok(b, i));
	}
	bt_stop(b);
}

/*
 * One call, four tasks: a0 (page 0), a1 (page 1, unmapped after the mmap started), b2
 * (page 2, the other context), a3 (page 3). The transfer stops short at a1: a1 fails; a3,
 * submitted after it in its context, is flushed; a0 and b2 complete with their bytes.
 */
static void test_partial_failure(void **state)
{
	struct bt *b = bt_start();

	(void)state;
	assert_int_equal(munmap(b->mem + PAGE, PAGE), 0);
	bt_submit(b, 0, 0);
	bt_submit(b, 0, 1);
	bt_submit(b, 1, 2);
	bt_submit(b, 0, 3);
	bt_wait(b, 4);
	assert_ok(b->st[0]);
	assert_doca(b->st[1], DOCA_ERROR_IO_FAILED);
	assert_ok(b->st[2]);
	assert_doca(b->st[3], DOCA_ERROR_IO_FAILED);
	assert_true(bt_page_ok(b, 0));
	assert_true(bt_page_ok(b, 2));
	/* the hole is mapped again so the teardown's munmap covers whole mappings */
	assert_true(mmap(b->mem + PAGE, PAGE, PROT_READ | PROT_WRITE,
	                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED);
	bt_stop(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_call_per_round),
		cmocka_unit_test(test_partial_failure),
	};

	signal(SIGPIPE, SIG_IGN);
	for (size_t i = 0; i < XLEN; i++)
		xbuf[i] = xu_pattern(i);
	if (!xu_kernel_allows()) {
		printf("skipping: the kernel refuses process_vm_readv here (see "
		       "docs/host-dpu.md)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
