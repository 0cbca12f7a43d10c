/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Two processes: a forked exporter (host side, b1:00.0) hands its descriptor over a
 * socketpair; this process imports it through the DPU (03:00.0) and copies with DOCA DMA.
 * The exporter obeys one-byte commands: 'S' destroy the mmap (revoke), 'R' send the
 * buffer back, 'X' exit. Runs under whatever ODMA_ENGINE meson sets.
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

#include "test_exec.h"
#include "test_util.h"
#include "xproc_util.h"

#define XLEN 65536

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
	uint8_t desc[256];
	uint64_t raddr;
	unsigned int done;
	doca_error_t last;
	enum doca_ctx_states state;
	uint8_t local_mem[XLEN];
};

static void task_cb(struct doca_dma_task_memcpy *t, union doca_data tud, union doca_data cud)
{
	struct imp *im = cud.ptr;

	(void)tud;
	im->last = doca_task_get_status(doca_dma_task_memcpy_as_task(t));
	im->done++;
	doca_task_free(doca_dma_task_memcpy_as_task(t));
}

static void state_cb(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
                     enum doca_ctx_states next)
{
	(void)ctx;
	(void)prev;
	((struct imp *)ud.ptr)->state = next;
}

/* Takes the exporter's next {descriptor length, buffer address} and descriptor; imports it. */
static void imp_import(struct imp *im)
{
	uint64_t hdr[2];

	assert_true(xu_full_io(im->fd, hdr, sizeof(hdr), false));
	assert_true(hdr[0] <= sizeof(im->desc));
	assert_true(xu_full_io(im->fd, im->desc, hdr[0], false));
	im->raddr = hdr[1];
	assert_ok(doca_mmap_create_from_export(NULL, im->desc, hdr[0], im->dev, &im->remote));
}

/* Imports from the exporter @child (socket @fd) and starts a DMA context to copy with. */
static struct imp *imp_open(pid_t child, int fd)
{
	struct imp *im = calloc(1, sizeof(*im));

	assert_non_null(im);
	assert_true(child >= 0);
	im->child = child;
	im->fd = fd;
	im->dev = tu_open_pci_or_null("03:00.0");
	assert_non_null(im->dev);
	imp_import(im);
	assert_ok(doca_mmap_create(&im->local));
	assert_ok(doca_mmap_set_memrange(im->local, im->local_mem, XLEN));
	assert_ok(doca_mmap_add_dev(im->local, im->dev));
	assert_ok(doca_mmap_start(im->local));
	assert_ok(doca_buf_inventory_create(64, &im->inv));
	assert_ok(doca_buf_inventory_start(im->inv));
	assert_ok(doca_pe_create(&im->pe));
	assert_ok(doca_dma_create(im->dev, &im->dma));
	im->ctx = doca_dma_as_ctx(im->dma);
	assert_ok(doca_ctx_set_state_changed_cb(im->ctx, state_cb));
	assert_ok(doca_ctx_set_user_data(im->ctx, (union doca_data){ .ptr = im }));
	assert_ok(doca_dma_task_memcpy_set_conf(im->dma, task_cb, task_cb, 32));
	assert_ok(doca_pe_connect_ctx(im->pe, im->ctx));
	assert_ok(doca_ctx_start(im->ctx));
	return im;
}

static struct imp *imp_start(uint32_t perms)
{
	int fd = -1;
	pid_t child = xu_spawn_exporter(xbuf, XLEN, perms, &fd);

	return imp_open(child, fd);
}

static char cmd(struct imp *im, char c)
{
	char r = 0;

	if (!xu_full_io(im->fd, &c, 1, true) || (c != 'X' && !xu_full_io(im->fd, &r, 1, false)))
		return 0;
	return r;
}

static void imp_progress_idle(struct imp *im)
{
	for (long i = 0; i < 10000000 && im->state != DOCA_CTX_STATE_IDLE; i++)
		doca_pe_progress(im->pe);
	assert_int_equal(im->state, DOCA_CTX_STATE_IDLE);
}

static void imp_stop(struct imp *im)
{
	int st;

	if (im->state != DOCA_CTX_STATE_IDLE) {
		doca_error_t r = doca_ctx_stop(im->ctx);

		assert_true(r == DOCA_SUCCESS || r == DOCA_ERROR_IN_PROGRESS);
		imp_progress_idle(im);
	}
	assert_ok(doca_dma_destroy(im->dma));
	assert_ok(doca_pe_destroy(im->pe));
	assert_ok(doca_buf_inventory_destroy(im->inv));
	assert_ok(doca_mmap_destroy(im->remote));
	assert_ok(doca_mmap_destroy(im->local));
	assert_ok(doca_dev_close(im->dev));
	(void)cmd(im, 'X');
	close(im->fd);
	assert_int_equal(waitpid(im->child, &st, 0), im->child);
	free(im);
}

/* A list of @n bufs cut evenly from [base, base+len) of @m; data set when @full. */
static struct doca_buf *list_of(struct imp *im, struct doca_mmap *m, uint8_t *base, size_t len,
                                int n, bool full)
{
	struct doca_buf *head = NULL, *b;
	size_t piece = len / (size_t)n;

	for (int i = 0; i < n; i++) {
		size_t l = i == n - 1 ? len - piece * (size_t)(n - 1) : piece;

		if (full)
			assert_ok(doca_buf_inventory_buf_get_by_data(im->inv, m, base + piece * i,
			                                             l, &b));
		else
			assert_ok(doca_buf_inventory_buf_get_by_addr(im->inv, m, base + piece * i,
			                                             l, &b));
		if (head == NULL)
			head = b;
		else
			assert_ok(doca_buf_chain_list(head, b));
	}
	return head;
}

/* Submits one copy and progresses until it completes; returns its status. */
static doca_error_t copy(struct imp *im, struct doca_buf *src, struct doca_buf *dst)
{
	struct doca_dma_task_memcpy *t;
	unsigned int before = im->done;
	doca_error_t r;

	assert_ok(doca_dma_task_memcpy_alloc_init(im->dma, src, dst, (union doca_data){ 0 }, &t));
	r = doca_task_submit(doca_dma_task_memcpy_as_task(t));
	if (r != DOCA_SUCCESS) {
		doca_task_free(doca_dma_task_memcpy_as_task(t));
		return r;
	}
	for (long i = 0; i < 10000000 && im->done == before; i++)
		doca_pe_progress(im->pe);
	assert_int_equal(im->done, before + 1);
	return im->last;
}

static void test_read_lists(void **state)
{
	struct imp *im = imp_start(DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	uint8_t *r = (uint8_t *)(uintptr_t)im->raddr;
	struct doca_buf *src = list_of(im, im->remote, r + 100, XLEN - 300, 5, true);
	struct doca_buf *dst = list_of(im, im->local, im->local_mem, XLEN, 3, false);

	(void)state;
	assert_ok(copy(im, src, dst));
	for (size_t i = 0; i < XLEN - 300; i++)
		if (im->local_mem[i] != (uint8_t)((i + 100) * 7 + 3))
			fail_msg("byte %zu differs", i);
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);
	imp_stop(im);
}

static void test_write_lists(void **state)
{
	struct imp *im = imp_start(DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	uint8_t *r = (uint8_t *)(uintptr_t)im->raddr;
	static uint8_t back[XLEN];
	struct doca_buf *src, *dst;

	(void)state;
	for (size_t i = 0; i < XLEN; i++)
		im->local_mem[i] = (uint8_t)(i ^ 0xa5);
	src = list_of(im, im->local, im->local_mem, 4096 * 3 + 11, 4, true);
	dst = list_of(im, im->remote, r + 1000, 4096 * 3 + 11, 7, false);
	assert_ok(copy(im, src, dst));
	assert_true(xu_full_io(im->fd, "R", 1, true));
	assert_true(xu_full_io(im->fd, back, XLEN, false));
	assert_memory_equal(back + 1000, im->local_mem, 4096 * 3 + 11);
	assert_int_equal(back[999], (uint8_t)(999 * 7 + 3));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);
	imp_stop(im);
}

/*
 * Both ends in the exporter (host memory to host memory, as the DMA engine moves it for a
 * DPU): the bytes pass through this process (a bounce buffer), in order, within their ranges.
 */
static void test_remote_to_remote(void **state)
{
	struct imp *im = imp_start(DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	uint8_t *r = (uint8_t *)(uintptr_t)im->raddr;
	static uint8_t back[XLEN];
	struct doca_buf *src, *dst;

	(void)state;
	src = list_of(im, im->remote, r + 100, 20000, 1, true);
	dst = list_of(im, im->remote, r + 30000, 20000, 3, false);
	assert_ok(copy(im, src, dst));
	assert_true(xu_full_io(im->fd, "R", 1, true));
	assert_true(xu_full_io(im->fd, back, XLEN, false));
	for (size_t i = 0; i < 20000; i++)
		if (back[30000 + i] != xu_pattern(100 + i))
			fail_msg("byte %zu of the destination differs", i);
	assert_int_equal(back[29999], xu_pattern(29999));
	assert_int_equal(back[50000], xu_pattern(50000));
	assert_int_equal(back[100], xu_pattern(100)); /* the source is untouched */
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);
	imp_stop(im);
}

/*
 * Source and destination that overlap inside the exporter's memory (one import) are refused
 * as overlapping local ones are: doca_task_try_submit says INVALID_VALUE, nothing moves.
 */
static void test_remote_overlap(void **state)
{
	struct imp *im = imp_start(DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	uint8_t *r = (uint8_t *)(uintptr_t)im->raddr;
	static uint8_t back[XLEN];
	struct doca_dma_task_memcpy *t;
	struct doca_buf *src, *dst;

	(void)state;
	src = list_of(im, im->remote, r + 100, 20000, 1, true);
	dst = list_of(im, im->remote, r + 10000, 20000, 1, false);
	assert_ok(doca_dma_task_memcpy_alloc_init(im->dma, src, dst, (union doca_data){ 0 }, &t));
	assert_int_equal(doca_task_try_submit(doca_dma_task_memcpy_as_task(t)),
	                 DOCA_ERROR_INVALID_VALUE);
	doca_task_free(doca_dma_task_memcpy_as_task(t));
	assert_true(xu_full_io(im->fd, "R", 1, true));
	assert_true(xu_full_io(im->fd, back, XLEN, false));
	for (size_t i = 0; i < XLEN; i++)
		if (back[i] != xu_pattern(i))
			fail_msg("byte %zu of the exporter changed", i);
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);
	imp_stop(im);
}

/* A source list of a remote element, then a local one: each piece moves the way it must. */
static void test_mixed_list(void **state)
{
	struct imp *im = imp_start(DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	uint8_t *r = (uint8_t *)(uintptr_t)im->raddr;
	struct doca_buf *src, *tail, *dst;

	(void)state;
	for (size_t i = 0; i < 4096; i++)
		im->local_mem[i] = (uint8_t)(i ^ 0x5a);
	src = list_of(im, im->remote, r + 64, 4096, 1, true);
	tail = list_of(im, im->local, im->local_mem, 4096, 1, true);
	assert_ok(doca_buf_chain_list(src, tail));
	dst = list_of(im, im->local, im->local_mem + 16384, 8192, 2, false);
	assert_ok(copy(im, src, dst));
	for (size_t i = 0; i < 4096; i++) {
		if (im->local_mem[16384 + i] != xu_pattern(64 + i))
			fail_msg("byte %zu (from the exporter) differs", i);
		if (im->local_mem[16384 + 4096 + i] != (uint8_t)(i ^ 0x5a))
			fail_msg("byte %zu (from this process) differs", i);
	}
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);
	imp_stop(im);
}

static void test_write_read_only(void **state)
{
	struct imp *im = imp_start(DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	uint8_t *r = (uint8_t *)(uintptr_t)im->raddr;
	struct doca_buf *src = list_of(im, im->local, im->local_mem, 64, 1, true);
	struct doca_buf *dst = list_of(im, im->remote, r, 64, 1, false);

	(void)state;
	assert_doca(copy(im, src, dst), DOCA_ERROR_NOT_PERMITTED);
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);
	imp_stop(im);
}

/* After the exporter revokes (@c 'S') or exits ('X'), the next task fails and the ctx stops. */
static void revoke_then_copy(char how)
{
	struct imp *im = imp_start(DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	uint8_t *r = (uint8_t *)(uintptr_t)im->raddr;
	struct doca_buf *src = list_of(im, im->remote, r, 4096, 1, true);
	struct doca_buf *dst = list_of(im, im->local, im->local_mem, XLEN, 1, false);
	int st;

	assert_ok(copy(im, src, dst));
	if (how == 'S') {
		assert_int_equal(cmd(im, 'S'), 'S');
	} else {
		(void)cmd(im, 'X');
		assert_int_equal(waitpid(im->child, &st, 0), im->child);
		im->child = fork(); /* a harmless stand-in so imp_stop has a child to reap */
		if (im->child == 0)
			_exit(0);
	}
	assert_doca(copy(im, src, dst), DOCA_ERROR_IO_FAILED);
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);
	imp_progress_idle(im);
	imp_stop(im);
}

static void test_revoke_stop(void **state)
{
	(void)state;
	revoke_then_copy('S');
}

static void test_exporter_exit(void **state)
{
	(void)state;
	revoke_then_copy('X');
}

/*
 * Writes in flight when the exporter revokes: once doca_mmap_stop returns, no byte of an
 * importer lands in the buffer any more (a device's DMA in flight is waited for at
 * deregistration). The exporter exports its buffer RACE_CYCLES times; each time this process
 * writes it in a loop and the exporter, at a varying moment after the first write, stops and
 * destroys the mmap, fills the buffer with RACE_SENTINEL at once (its own memory again) and
 * watches it for RACE_WATCH_MS (RACE_LAST_WATCH_MS the last time). It reports the first byte
 * that changed, or -1.
 */
#define RACE_CYCLES 200
#define RACE_SENTINEL 0xee
#define RACE_WATCH_MS 2
#define RACE_LAST_WATCH_MS 200

/* The first byte of xbuf that is no longer the sentinel within @ms, or -1. */
static int64_t race_watch(uint64_t ms)
{
	const volatile uint8_t *b = xbuf;

	for (uint64_t t0 = tu_now_ms(); tu_now_ms() - t0 < ms;)
		for (size_t i = 0; i < XLEN; i++)
			if (b[i] != RACE_SENTINEL)
				return (int64_t)i;
	return -1;
}

/* One exporter cycle: export, revoke while the importer writes, watch (-2: a step failed). */
static int64_t race_export_cycle(int fd, struct doca_dev *dev, unsigned int cycle)
{
	struct doca_mmap *m;
	const void *d;
	size_t dlen;
	uint64_t hdr[2];
	char go;

	memset(xbuf, 0, XLEN);
	if (doca_mmap_create(&m) || doca_mmap_set_memrange(m, xbuf, XLEN) ||
	    doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_WRITE) ||
	    doca_mmap_add_dev(m, dev) || doca_mmap_start(m) ||
	    doca_mmap_export_pci(m, dev, &d, &dlen))
		return -2;
	hdr[0] = dlen;
	hdr[1] = (uint64_t)(uintptr_t)xbuf;
	if (!xu_full_io(fd, hdr, sizeof(hdr), true) || !xu_full_io(fd, (void *)d, dlen, true) ||
	    !xu_full_io(fd, &go, 1, false))
		return -2;
	/* revoke at another point of the importer's loop each cycle */
	for (volatile unsigned int i = 0; i < (cycle * 7919u) % 20000u; i++)
		;
	if (doca_mmap_stop(m) != DOCA_SUCCESS || doca_mmap_destroy(m) != DOCA_SUCCESS)
		return -2;
	memset(xbuf, RACE_SENTINEL, XLEN);
	return race_watch(cycle + 1 == RACE_CYCLES ? RACE_LAST_WATCH_MS : RACE_WATCH_MS);
}

/* The racing exporter's whole life: each cycle's verdict goes to the importer (int64_t). */
static void race_exporter(int fd)
{
	struct doca_dev *dev = tu_open_pci_or_null("b1:00.0");
	int64_t verdict;

	for (unsigned int c = 0; dev != NULL && c < RACE_CYCLES; c++) {
		verdict = race_export_cycle(fd, dev, c);
		if (!xu_full_io(fd, &verdict, sizeof(verdict), true) || verdict != -1)
			_exit(2);
	}
	_exit(dev != NULL ? 0 : 3);
}

/*
 * Writes the whole buffer again and again, other bytes each time (never the sentinel), until
 * a copy fails: the exporter revoked. The exporter is told to revoke after the first one.
 */
static void race_write_until_refused(struct imp *im, struct doca_buf *src, struct doca_buf *dst)
{
	doca_error_t r;

	for (unsigned int n = 0;; n++) {
		memset(im->local_mem, 1 + (int)(n % 0xe0), XLEN);
		assert_ok(doca_buf_reset_data_len(dst));
		r = copy(im, src, dst);
		if (n == 0) {
			assert_ok(r);
			assert_true(xu_full_io(im->fd, "G", 1, true));
		}
		if (r != DOCA_SUCCESS)
			break;
	}
	assert_doca(r, DOCA_ERROR_IO_FAILED);
}

/* One cycle of this side: import, write until the revocation fails a copy, take the verdict. */
static void race_import_cycle(struct imp *im, unsigned int cycle)
{
	struct doca_buf *src, *dst;
	int64_t verdict;

	if (cycle > 0) {
		assert_ok(doca_mmap_destroy(im->remote));
		imp_import(im);
	}
	src = list_of(im, im->local, im->local_mem, XLEN, 1, true);
	dst = list_of(im, im->remote, (uint8_t *)(uintptr_t)im->raddr, XLEN, 1, false);
	race_write_until_refused(im, src, dst);
	assert_true(xu_full_io(im->fd, &verdict, sizeof(verdict), false));
	if (verdict != -1)
		fail_msg("cycle %u: byte %lld of the exporter's buffer changed after its "
		         "doca_mmap_stop returned",
		         cycle, (long long)verdict);
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);
	for (long i = 0; i < 10000000 && im->state != DOCA_CTX_STATE_IDLE; i++)
		doca_pe_progress(im->pe);
	assert_int_equal(im->state, DOCA_CTX_STATE_IDLE);
	assert_ok(doca_ctx_start(im->ctx));
}

static void test_revoke_while_writing(void **state)
{
	struct imp *im;
	int sv[2];
	pid_t child;

	(void)state;
	assert_true(tu_fork_safe("test_revoke_while_writing"));
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	child = fork();
	if (child == 0) {
		close(sv[0]);
		race_exporter(sv[1]);
	}
	close(sv[1]);
	im = imp_open(child, sv[0]);
	for (unsigned int c = 0; c < RACE_CYCLES; c++)
		race_import_cycle(im, c);
	imp_stop(im);
}

/* The exporter is killed while tasks are in flight: every task completes, none hangs. */
static void test_kill_loop(void **state)
{
	(void)state;
	for (int round = 0; round < 20; round++) {
		struct imp *im = imp_start(DOCA_ACCESS_FLAG_PCI_READ_ONLY);
		uint8_t *r = (uint8_t *)(uintptr_t)im->raddr;
		struct doca_buf *src[8], *dst[8];
		unsigned int submitted = 0;
		int st;

		for (int i = 0; i < 8; i++) {
			struct doca_dma_task_memcpy *t;

			src[i] = list_of(im, im->remote, r + i * 8192, 8192, 2, true);
			dst[i] = list_of(im, im->local, im->local_mem + i * 8192, 8192, 1, false);
			assert_ok(doca_dma_task_memcpy_alloc_init(im->dma, src[i], dst[i],
			                                          (union doca_data){ 0 }, &t));
			if (i == round % 8)
				kill(im->child, SIGKILL);
			if (doca_task_submit(doca_dma_task_memcpy_as_task(t)) == DOCA_SUCCESS)
				submitted++;
			else
				doca_task_free(doca_dma_task_memcpy_as_task(t));
		}
		for (long i = 0; i < 10000000 && im->done < submitted; i++)
			doca_pe_progress(im->pe);
		assert_int_equal(im->done, submitted);
		for (int i = 0; i < 8; i++) {
			doca_buf_dec_refcount(src[i], NULL);
			doca_buf_dec_refcount(dst[i], NULL);
		}
		assert_int_equal(waitpid(im->child, &st, 0), im->child);
		im->child = fork();
		if (im->child == 0)
			_exit(0);
		imp_stop(im);
	}
}

/* EPERM: an importer running as another user may not read a root exporter. */
static void test_eperm(void **state)
{
	int logp[2];
	pid_t pid;
	char out[8192] = { 0 };
	size_t n = 0;
	ssize_t k;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(pipe(logp), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct imp *im;
		struct doca_buf *src, *dst;

		dup2(logp[1], STDERR_FILENO);
		dup2(logp[1], STDOUT_FILENO);
		im = imp_start(DOCA_ACCESS_FLAG_PCI_READ_ONLY); /* exporter forked as root */
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(10);
		src = list_of(im, im->remote, (uint8_t *)(uintptr_t)im->raddr, 64, 1, true);
		dst = list_of(im, im->local, im->local_mem, 64, 1, false);
		_exit(copy(im, src, dst) == DOCA_ERROR_IO_FAILED ? 0 : 11);
	}
	close(logp[1]);
	while (n < sizeof(out) - 1 && (k = read(logp[0], out + n, sizeof(out) - 1 - n)) > 0)
		n += (size_t)k;
	close(logp[0]);
	xu_assert_child_ok(pid);
	assert_non_null(strstr(out, "ptrace_scope"));
}

/* CRC32C of docs/host-dpu.md over bytes 0..99, stored at 100: a forger's valid checksum. */
static void reseal(uint8_t *b)
{
	uint32_t c = 0xffffffffu;

	for (int i = 0; i < 100; i++) {
		c ^= b[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1u)));
	}
	c = ~c;
	for (int i = 0; i < 4; i++)
		b[100 + i] = (uint8_t)(c >> (8 * i));
}

static doca_error_t try_import(struct doca_dev *dev, const uint8_t *b, size_t len)
{
	struct doca_mmap *m = NULL;
	doca_error_t r = doca_mmap_create_from_export(NULL, b, len, dev, &m);

	if (r == DOCA_SUCCESS)
		assert_ok(doca_mmap_destroy(m));
	else
		assert_null(m);
	return r;
}

/*
 * Across processes: a descriptor whose range was grown by 8 KiB or whose permissions were
 * raised to read-write (checksum recomputed) is refused at import, the original imports,
 * and once the exporter revokes the export the original is refused at import too.
 */
static void test_forged_and_revoked(void **state)
{
	struct doca_dev *dev = tu_open_pci_or_null("03:00.0");
	uint8_t desc[104], b[104];
	uint64_t hdr[2], len;
	pid_t child;
	int fd;

	(void)state;
	assert_non_null(dev);
	child = xu_spawn_exporter(xbuf, XLEN, DOCA_ACCESS_FLAG_PCI_READ_ONLY, &fd);
	assert_true(child >= 0);
	assert_true(xu_full_io(fd, hdr, sizeof(hdr), false));
	assert_int_equal(hdr[0], sizeof(desc));
	assert_true(xu_full_io(fd, desc, sizeof(desc), false));
	memcpy(b, desc, sizeof(b));
	memcpy(&len, b + 48, 8); /* little-endian machine */
	len += 8192;
	memcpy(b + 48, &len, 8);
	reseal(b);
	assert_doca(try_import(dev, b, sizeof(b)), DOCA_ERROR_INVALID_VALUE);
	memcpy(b, desc, sizeof(b));
	b[20] = (uint8_t)DOCA_ACCESS_FLAG_PCI_READ_WRITE;
	reseal(b);
	assert_doca(try_import(dev, b, sizeof(b)), DOCA_ERROR_INVALID_VALUE);
	assert_ok(try_import(dev, desc, sizeof(desc)));
	assert_true(xu_full_io(fd, "S", 1, true) && xu_full_io(fd, b, 1, false)); /* revoke */
	assert_doca(try_import(dev, desc, sizeof(desc)), DOCA_ERROR_INVALID_VALUE);
	assert_true(xu_full_io(fd, "X", 1, true));
	close(fd);
	xu_assert_child_ok(child);
	assert_ok(doca_dev_close(dev));
}

/* EPERM at import: an importer that may not read the exporter is told so at once. */
static void test_eperm_at_import(void **state)
{
	uint8_t desc[104];
	uint64_t hdr[2];
	pid_t pid, child;
	int fd;

	(void)state;
	if (geteuid() != 0)
		skip();
	child = xu_spawn_exporter(xbuf, XLEN, DOCA_ACCESS_FLAG_PCI_READ_ONLY, &fd);
	assert_true(child >= 0);
	assert_true(xu_full_io(fd, hdr, sizeof(hdr), false) && hdr[0] == sizeof(desc));
	assert_true(xu_full_io(fd, desc, sizeof(desc), false));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct doca_dev *dev = tu_open_pci_or_null("03:00.0");
		struct doca_mmap *m = NULL;

		if (dev == NULL || setgid(65534) != 0 || setuid(65534) != 0)
			_exit(10);
		_exit(doca_mmap_create_from_export(NULL, desc, sizeof(desc), dev, &m) ==
		                              DOCA_ERROR_NOT_PERMITTED &&
		                      m == NULL
		              ? 0
		              : 11);
	}
	xu_assert_child_ok(pid);
	assert_true(xu_full_io(fd, "X", 1, true));
	close(fd);
	xu_assert_child_ok(child);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_lists),
		cmocka_unit_test(test_write_lists),
		cmocka_unit_test(test_write_read_only),
		cmocka_unit_test(test_revoke_stop),
		cmocka_unit_test(test_exporter_exit),
		cmocka_unit_test(test_kill_loop),
		cmocka_unit_test(test_eperm),
		cmocka_unit_test(test_forged_and_revoked),
		cmocka_unit_test(test_eperm_at_import),
		cmocka_unit_test(test_remote_to_remote),
		cmocka_unit_test(test_remote_overlap),
		cmocka_unit_test(test_mixed_list),
		cmocka_unit_test(test_revoke_while_writing),
	};

	signal(SIGPIPE, SIG_IGN);
	if (!xu_kernel_allows()) {
		printf("skipping: the kernel refuses process_vm_readv here (see "
		       "docs/host-dpu.md)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
