/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Memory a process cannot use (issue #11, item 5). doca_mmap_start refuses a range with a
 * hole, a PROT_NONE page, or a read-only page when the permissions let devices write into
 * it; and memory unmapped or protected after the start fails the task that touches it,
 * never the process: locally (both engines, every size class, lists) and across processes
 * (the exporter's range unmapped or made read-only, the importer's own range read-only or,
 * as a source, unmapped), over CMA and (meson test bad_memory_ucx) over UCX.
 *
 * Every case runs in a forked child with SIGSEGV/SIGBUS at their default action, so a copy
 * that faults kills the child with the signal and the parent reports it. The parent never
 * calls odma. This test stays out of the valgrind stage: memcheck reports the invalid
 * accesses the guard recovers from. Runs under the ODMA_ENGINE and ODMA_SYSTEM meson sets.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "test_util.h"
#include "xproc_util.h"

#define PAGE 4096u
#define AREA (4u << 20) /* bytes of each test area */
#define SPINS 100000000L

static void run_in_child(void (*fn)(void))
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL); /* not cmocka's handler: a fault must kill the child */
		signal(SIGBUS, SIG_DFL);
		fn();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (WIFSIGNALED(st))
		fail_msg("the child died of signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static uint8_t *area(void)
{
	uint8_t *p = mmap(NULL, AREA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	TU_CHECK(p != MAP_FAILED);
	for (size_t i = 0; i < AREA; i++)
		p[i] = xu_pattern(i);
	return p;
}

static struct doca_dev *open_dev(void)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;

	TU_CHECK_OK(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n && dev == NULL; i++)
		if (doca_dma_cap_task_memcpy_is_supported(list[i]) == DOCA_SUCCESS)
			TU_CHECK_OK(doca_dev_open(list[i], &dev));
	TU_CHECK_OK(doca_devinfo_destroy_list(list));
	TU_CHECK(dev != NULL);
	return dev;
}

/* doca_mmap_start on [p, p + len) with @perms; returns its result and destroys the mmap. */
static doca_error_t try_start(struct doca_dev *dev, void *p, size_t len, uint32_t perms)
{
	struct doca_mmap *m;
	doca_error_t r;

	TU_CHECK_OK(doca_mmap_create(&m));
	TU_CHECK_OK(doca_mmap_add_dev(m, dev));
	TU_CHECK_OK(doca_mmap_set_memrange(m, p, len));
	TU_CHECK_OK(doca_mmap_set_permissions(m, perms));
	r = doca_mmap_start(m);
	TU_CHECK_OK(doca_mmap_destroy(m));
	return r;
}

static void child_start_checks(void)
{
	struct doca_dev *dev = open_dev();
	uint8_t *a = area();
	const uint32_t rw = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE;
	const uint32_t ro = DOCA_ACCESS_FLAG_LOCAL_READ_ONLY;

	TU_CHECK_OK(try_start(dev, a, AREA, rw));
	/* a hole in the middle, then a range wholly unmapped */
	TU_CHECK(munmap(a + 4 * PAGE, PAGE) == 0);
	TU_CHECK_IS(DOCA_ERROR_INVALID_VALUE, try_start(dev, a, 8 * PAGE, rw));
	TU_CHECK_IS(DOCA_ERROR_INVALID_VALUE, try_start(dev, a, 8 * PAGE, ro));
	TU_CHECK_IS(DOCA_ERROR_INVALID_VALUE, try_start(dev, a + 4 * PAGE, PAGE, ro));
	TU_CHECK_IS(DOCA_ERROR_INVALID_VALUE, try_start(dev, a + 4 * PAGE + 100, 8, ro));
	TU_CHECK_OK(try_start(dev, a, 4 * PAGE, rw)); /* up to the hole */
	TU_CHECK_OK(try_start(dev, a + 5 * PAGE, 3 * PAGE, rw));
	/* PROT_NONE: refused whatever the permissions */
	TU_CHECK(mprotect(a + 8 * PAGE, PAGE, PROT_NONE) == 0);
	TU_CHECK_IS(DOCA_ERROR_INVALID_VALUE, try_start(dev, a + 6 * PAGE, 4 * PAGE, ro));
	/* PROT_READ: a source-only mmap may start, one devices may write into may not */
	TU_CHECK(mprotect(a + 10 * PAGE, 2 * PAGE, PROT_READ) == 0);
	TU_CHECK_OK(try_start(dev, a + 10 * PAGE, 2 * PAGE, ro));
	TU_CHECK_OK(try_start(dev, a + 10 * PAGE, 2 * PAGE, DOCA_ACCESS_FLAG_PCI_READ_ONLY));
	TU_CHECK_IS(DOCA_ERROR_NOT_PERMITTED, try_start(dev, a + 9 * PAGE, 2 * PAGE, rw));
	TU_CHECK_IS(DOCA_ERROR_NOT_PERMITTED,
	            try_start(dev, a + 10 * PAGE, PAGE, DOCA_ACCESS_FLAG_PCI_READ_WRITE));
	TU_CHECK_IS(DOCA_ERROR_NOT_PERMITTED,
	            try_start(dev, a + 11 * PAGE, PAGE, DOCA_ACCESS_FLAG_RDMA_WRITE));
	/* a read-only string literal as the source of a local copy */
	TU_CHECK_OK(try_start(dev, (void *)"read-only source", 16, ro));
	TU_CHECK_OK(doca_dev_close(dev));
}

static void start_checks(void **state)
{
	(void)state;
	run_in_child(child_start_checks);
}

/* A started DMA set-up over two areas; one task at a time. */
struct rig {
	struct doca_dev *dev;
	struct doca_mmap *ms, *md;
	struct doca_buf_inventory *inv;
	struct doca_pe *pe;
	struct doca_dma *dma;
	uint8_t *src, *dst;
	unsigned int done;
	doca_error_t status;
	enum doca_ctx_states state;
};

static struct rig rig;

static void rig_cb(struct doca_dma_task_memcpy *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	rig.status = doca_task_get_status(doca_dma_task_memcpy_as_task(t));
	rig.done++;
	doca_task_free(doca_dma_task_memcpy_as_task(t));
}

static void rig_state_cb(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
                         enum doca_ctx_states next)
{
	(void)ud;
	(void)ctx;
	(void)prev;
	rig.state = next;
}

static struct doca_mmap *rig_mmap(struct doca_dev *dev, void *p)
{
	struct doca_mmap *m;

	TU_CHECK_OK(doca_mmap_create(&m));
	TU_CHECK_OK(doca_mmap_add_dev(m, dev));
	TU_CHECK_OK(doca_mmap_set_memrange(m, p, AREA));
	TU_CHECK_OK(doca_mmap_start(m));
	return m;
}

static void rig_init(struct doca_dev *dev, struct doca_mmap *src_mmap, uint8_t *src)
{
	memset(&rig, 0, sizeof(rig));
	rig.dev = dev != NULL ? dev : open_dev();
	rig.src = src != NULL ? src : area();
	rig.dst = area();
	memset(rig.dst, 0, AREA);
	rig.ms = src_mmap != NULL ? src_mmap : rig_mmap(rig.dev, rig.src);
	rig.md = rig_mmap(rig.dev, rig.dst);
	TU_CHECK_OK(doca_buf_inventory_create(64, &rig.inv));
	TU_CHECK_OK(doca_buf_inventory_start(rig.inv));
	TU_CHECK_OK(doca_pe_create(&rig.pe));
	TU_CHECK_OK(doca_dma_create(rig.dev, &rig.dma));
	TU_CHECK_OK(doca_ctx_set_state_changed_cb(doca_dma_as_ctx(rig.dma), rig_state_cb));
	TU_CHECK_OK(doca_dma_task_memcpy_set_conf(rig.dma, rig_cb, rig_cb, 8));
	TU_CHECK_OK(doca_pe_connect_ctx(rig.pe, doca_dma_as_ctx(rig.dma)));
	TU_CHECK_OK(doca_ctx_start(doca_dma_as_ctx(rig.dma)));
}

/*
 * Copies [off, off + len) of the source into the same range of the destination, as one
 * buf each or (@pieces > 1) as lists of @pieces elements; returns the task's status. A
 * failed task stops the context: it is started again.
 */
static doca_error_t rig_copy(size_t off, size_t len, unsigned int pieces)
{
	struct doca_buf *s = NULL, *d = NULL, *b;
	struct doca_dma_task_memcpy *t;
	union doca_data ud = { .u64 = 0 };
	size_t step = len / pieces;
	unsigned int done = rig.done;

	for (unsigned int i = 0; i < pieces; i++) {
		size_t n = i + 1 < pieces ? step : len - step * i;

		TU_CHECK_OK(doca_buf_inventory_buf_get_by_data(rig.inv, rig.ms,
		                                               rig.src + off + step * i, n, &b));
		if (s == NULL)
			s = b;
		else
			TU_CHECK_OK(doca_buf_chain_list(s, b));
		TU_CHECK_OK(doca_buf_inventory_buf_get_by_addr(rig.inv, rig.md,
		                                               rig.dst + off + step * i, n, &b));
		if (d == NULL)
			d = b;
		else
			TU_CHECK_OK(doca_buf_chain_list(d, b));
	}
	TU_CHECK_OK(doca_dma_task_memcpy_alloc_init(rig.dma, s, d, ud, &t));
	TU_CHECK_OK(doca_task_submit(doca_dma_task_memcpy_as_task(t)));
	for (long i = 0; i < SPINS && rig.done == done; i++)
		doca_pe_progress(rig.pe);
	TU_CHECK(rig.done == done + 1);
	for (long i = 0;
	     i < SPINS && rig.state != DOCA_CTX_STATE_IDLE && rig.state != DOCA_CTX_STATE_RUNNING;
	     i++)
		doca_pe_progress(rig.pe);
	if (rig.state == DOCA_CTX_STATE_IDLE)
		TU_CHECK_OK(doca_ctx_start(doca_dma_as_ctx(rig.dma)));
	TU_CHECK_OK(doca_buf_dec_refcount(s, NULL));
	TU_CHECK_OK(doca_buf_dec_refcount(d, NULL));
	return rig.status;
}

/* Sizes for every path of both engines: inline, whole to a worker, split; and lists. */
static const size_t sizes[] = { 64, PAGE, 96 << 10, 1 << 20 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* Breaks [off, off + len) of @p with @how: 'U' munmap, 'R' PROT_READ, 'N' PROT_NONE. */
static void spoil(uint8_t *p, size_t off, size_t len, char how)
{
	if (how == 'U')
		TU_CHECK(munmap(p + off, len) == 0);
	else
		TU_CHECK(mprotect(p + off, len, how == 'R' ? PROT_READ : PROT_NONE) == 0);
}

static void spoil_and_copy(bool in_dst, char how)
{
	size_t off = 0;

	rig_init(NULL, NULL, NULL);
	for (unsigned int k = 0; k < NSIZES; k++) {
		size_t len = sizes[k] < PAGE ? PAGE : sizes[k];

		/* a good copy first, then the same range spoiled; pieces: one and three */
		for (unsigned int pieces = 1; pieces <= 3; pieces += 2) {
			TU_CHECK_OK(rig_copy(off, sizes[k], pieces));
			TU_CHECK(memcmp(rig.dst + off, rig.src + off, sizes[k]) == 0);
			/* spoil the last page of the range: the tail of a split, a list's end */
			spoil(in_dst ? rig.dst : rig.src, off + len - PAGE, PAGE, how);
			TU_CHECK_IS(DOCA_ERROR_IO_FAILED, rig_copy(off, sizes[k], pieces));
			off += len;
		}
	}
}

static void child_dst_unmapped(void)
{
	spoil_and_copy(true, 'U');
}

static void child_dst_read_only(void)
{
	spoil_and_copy(true, 'R');
}

static void child_src_prot_none(void)
{
	spoil_and_copy(false, 'N');
}

static void child_src_unmapped(void)
{
	spoil_and_copy(false, 'U');
}

static void local_dst_unmapped(void **state)
{
	(void)state;
	run_in_child(child_dst_unmapped);
}

static void local_dst_read_only(void **state)
{
	(void)state;
	run_in_child(child_dst_read_only);
}

static void local_src_prot_none(void **state)
{
	(void)state;
	run_in_child(child_src_prot_none);
}

static void local_src_unmapped(void **state)
{
	(void)state;
	run_in_child(child_src_unmapped);
}

/* The rig's source and destination trade places (a remote read becomes a remote write). */
static void rig_swap(void)
{
	struct doca_mmap *m = rig.ms;
	uint8_t *p = rig.src;

	rig.ms = rig.md;
	rig.src = rig.dst;
	rig.md = m;
	rig.dst = p;
}

/*
 * Across processes: the importer (this child, DPU side) copies from and into the exporter's
 * range while the exporter spoils it ('U' munmap, 'P' read-only), and with its own
 * destination made read-only, and its own source unmapped.
 */
static void child_remote(void)
{
	uint8_t *xbuf =
	        mmap(NULL, AREA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t desc[256], cmd;
	uint64_t hdr[2];
	struct doca_mmap *remote;
	struct doca_dev *dev;
	int fd;
	pid_t child;

	TU_CHECK(xbuf != MAP_FAILED);
	child = xu_spawn_exporter(xbuf, AREA, DOCA_ACCESS_FLAG_PCI_READ_WRITE, &fd);
	TU_CHECK(child > 0);
	TU_CHECK(xu_full_io(fd, hdr, sizeof(hdr), false) && hdr[0] <= sizeof(desc));
	TU_CHECK(xu_full_io(fd, desc, hdr[0], false));
	TU_CHECK((dev = tu_open_pci_or_null("03:00.0")) != NULL);
	TU_CHECK_OK(doca_mmap_create_from_export(NULL, desc, hdr[0], dev, &remote));
	rig_init(dev, remote, (uint8_t *)(uintptr_t)hdr[1]);
	/* remote source into local destination, then the exporter's range read-only */
	TU_CHECK_OK(rig_copy(0, 64 << 10, 1));
	TU_CHECK(rig.dst[100] == xu_pattern(100));
	/* 1 MiB: a split copy (issue 22), its chunks read by several threads; one and three
	 * pieces */
	for (unsigned int pieces = 1; pieces <= 3; pieces += 2) {
		memset(rig.dst, 0, 1 << 20);
		TU_CHECK_OK(rig_copy(0, 1 << 20, pieces));
		for (size_t i = 0; i < (1u << 20); i += 4093)
			TU_CHECK(rig.dst[i] == xu_pattern(i));
		TU_CHECK(rig.dst[(1u << 20) - 1] == xu_pattern((1u << 20) - 1));
	}
	/* this process' destination read-only: the read into it fails */
	spoil(rig.dst, 0, PAGE, 'R');
	TU_CHECK_IS(DOCA_ERROR_IO_FAILED, rig_copy(0, 64 << 10, 1));
	TU_CHECK_IS(DOCA_ERROR_IO_FAILED, rig_copy(0, 64 << 10, 3));
	/*
	 * this process' source unmapped in the middle of a 256 KiB write: it fails, and what it
	 * left in the exporter's range, on either side of the hole, is the source's bytes or the
	 * exporter's own, never bytes no one wrote (over UCX the bytes are read as they leave: the
	 * first pieces go before the hole is found, so the request's trailer must stop the
	 * exporter from writing the zeros that stand in for the rest)
	 */
	memset(rig.dst + (1u << 20), 0xee, 256u << 10);
	spoil(rig.dst, (1u << 20) + (128u << 10), PAGE, 'U');
	rig_swap();
	TU_CHECK_IS(DOCA_ERROR_IO_FAILED, rig_copy(1u << 20, 256u << 10, 1));
	rig_swap();
	TU_CHECK_OK(rig_copy(1u << 20, 128u << 10, 1));
	TU_CHECK_OK(rig_copy((1u << 20) + (132u << 10), 124u << 10, 1));
	for (size_t i = 1u << 20; i < (1u << 20) + (256u << 10); i++)
		TU_CHECK((i >> 12) == ((1u << 20) + (128u << 10)) >> 12 || rig.dst[i] == 0xee ||
		         rig.dst[i] == xu_pattern(i));
	/* the exporter's range read-only: a write into it fails */
	cmd = 'P';
	TU_CHECK(xu_full_io(fd, &cmd, 1, true) && xu_full_io(fd, &cmd, 1, false) && cmd == 'P');
	rig_swap();
	TU_CHECK_IS(DOCA_ERROR_IO_FAILED, rig_copy(PAGE, 8 << 10, 1));
	rig_swap();
	/* the exporter's range unmapped: a read from it fails */
	cmd = 'U';
	TU_CHECK(xu_full_io(fd, &cmd, 1, true) && xu_full_io(fd, &cmd, 1, false) && cmd == 'U');
	TU_CHECK_IS(DOCA_ERROR_IO_FAILED, rig_copy(PAGE, 64 << 10, 1));
	TU_CHECK_IS(DOCA_ERROR_IO_FAILED,
	            rig_copy(PAGE, 1 << 20, 1)); /* split: every chunk fails */
	cmd = 'X';
	TU_CHECK(xu_full_io(fd, &cmd, 1, true));
	TU_CHECK(waitpid(child, NULL, 0) == child);
}

static void remote(void **state)
{
	(void)state;
	if (!xu_kernel_allows()) {
		skip();
		return;
	}
	run_in_child(child_remote);
}

/* ODMA_COPY_GUARD=0: no guard, so a copy into read-only memory kills the process. */
static void child_guard_off(void)
{
	setenv("ODMA_COPY_GUARD", "0", 1);
	rig_init(NULL, NULL, NULL);
	spoil(rig.dst, 0, PAGE, 'R');
	rig_copy(0, 64, 1);
	_exit(3); /* not reached */
}

static void child_guard_bad_value(void)
{
	struct doca_pe *pe = NULL;

	setenv("ODMA_COPY_GUARD", "yes", 1);
	TU_CHECK_IS(DOCA_ERROR_INVALID_VALUE, doca_pe_create(&pe));
	TU_CHECK(pe == NULL);
}

static void guard_switch(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	run_in_child(child_guard_bad_value);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL);
		child_guard_off();
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSEGV);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(start_checks),        cmocka_unit_test(local_dst_unmapped),
		cmocka_unit_test(local_dst_read_only), cmocka_unit_test(local_src_prot_none),
		cmocka_unit_test(local_src_unmapped),  cmocka_unit_test(remote),
		cmocka_unit_test(guard_switch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
