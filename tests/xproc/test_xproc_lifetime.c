/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * A long-lived exporter stays bounded however many importers come and go (#28: no peer costs
 * unbounded memory, threads or descriptors). One forked exporter exports a buffer (host side,
 * b1:00.0) and a sync event (DPU side, 03:00.0) for the whole run; then:
 *  - this process imports the buffer, copies 4 KiB out of it with DOCA DMA and lets everything
 *    go (mmaps, inventory, context, PE), 200 times (40 under qemu-user);
 *  - 40 importer processes (this program again, "--die"; 16 under qemu-user, where each is
 *    an emulator) import it, submit a copy and are killed with it in flight;
 *  - this process imports the sync event, adds 1 and lets it go, as often.
 * After each phase neither process holds more descriptors or threads than after its first
 * rounds (give or take two descriptors for a peer's socket still closing), each copy brought
 * the exporter's bytes, and each add saw the value of the one before. Written once and run per
 * transport row (meson: the process transport, and ODMA_TRANSPORT=ucx).
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
#include <doca_sync_event.h>

#include "test_exec.h"
#include "test_util.h"
#include "xproc_util.h"

#define XLEN (256u * 1024)
#define PIECE 4096u
#define ROUNDS 200
#define ROUNDS_QEMU 40 /* under qemu-user each round is emulated: fewer, still 30 past WARM */
#define WARM 10        /* rounds before the counts are taken */
#define DYING 40
#define SLACK_FDS 2

static uint8_t xbuf[XLEN];
static const char *self_exe;

/* What the exporter handed over, once. */
static struct {
	pid_t pid;
	int fd;
	uint64_t addr;
	uint8_t desc[512], blob[1024];
	uint64_t desc_len, blob_len;
} ex = { .pid = -1, .fd = -1 };

/* ---- the exporter -------------------------------------------------------------------- */

/* The exporter's life: exports, hands both over, waits until the socket closes. */
static void exporter_main(int fd)
{
	struct doca_dev *dev = tu_open_pci_or_null("b1:00.0"),
	                *dpu = tu_open_pci_or_null("03:00.0");
	struct doca_sync_event *se;
	struct doca_mmap *m;
	const void *desc;
	const uint8_t *blob;
	size_t dlen, blen;
	uint64_t hdr[3];
	char c;

	for (size_t i = 0; i < XLEN; i++)
		xbuf[i] = xu_pattern(i);
	if (dev == NULL || doca_mmap_create(&m) || doca_mmap_set_memrange(m, xbuf, XLEN) ||
	    doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_WRITE) ||
	    doca_mmap_add_dev(m, dev) || doca_mmap_start(m) ||
	    doca_mmap_export_pci(m, dev, &desc, &dlen))
		_exit(2);
	/* a sync event the DPU side exports to the host */
	if (dpu == NULL || doca_sync_event_create(&se) ||
	    doca_sync_event_add_publisher_location_remote_pci(se) ||
	    doca_sync_event_add_subscriber_location_cpu(se, dpu) || doca_sync_event_start(se) ||
	    doca_sync_event_export_to_remote_pci(se, dpu, &blob, &blen))
		_exit(3);
	hdr[0] = dlen;
	hdr[1] = blen;
	hdr[2] = (uint64_t)(uintptr_t)xbuf;
	if (!xu_full_io(fd, hdr, sizeof(hdr), true) || !xu_full_io(fd, (void *)desc, dlen, true) ||
	    !xu_full_io(fd, (void *)blob, blen, true))
		_exit(4);
	while (read(fd, &c, 1) > 0)
		;
	_exit(doca_sync_event_stop(se) == DOCA_SUCCESS && doca_sync_event_destroy(se) == 0 &&
	                      doca_mmap_destroy(m) == DOCA_SUCCESS
	              ? 0
	              : 5);
}

static int group_setup(void **state)
{
	uint64_t hdr[3];
	int sv[2];

	(void)state;
	/* forked first, while this process has no thread of odma's */
	if (!tu_fork_safe("test_xproc_lifetime") || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return -1;
	ex.pid = fork();
	if (ex.pid == 0) {
		close(sv[0]);
		exporter_main(sv[1]);
	}
	close(sv[1]);
	ex.fd = sv[0];
	if (ex.pid < 0 || !xu_full_io(ex.fd, hdr, sizeof(hdr), false) || hdr[0] > sizeof(ex.desc) ||
	    hdr[1] > sizeof(ex.blob) || !xu_full_io(ex.fd, ex.desc, hdr[0], false) ||
	    !xu_full_io(ex.fd, ex.blob, hdr[1], false))
		return -1;
	ex.desc_len = hdr[0];
	ex.blob_len = hdr[1];
	ex.addr = hdr[2];
	return 0;
}

static int group_teardown(void **state)
{
	int st = -1;

	(void)state;
	if (ex.fd >= 0)
		close(ex.fd); /* the exporter lets go and exits */
	if (ex.pid > 0 && waitpid(ex.pid, &st, 0) == ex.pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0)
		return 0;
	fprintf(stderr, "the exporter ended with status %d\n", st);
	return -1;
}

/* ---- an importer ---------------------------------------------------------------------- */

struct imp {
	struct doca_dev *dev;
	struct doca_mmap *remote, *local;
	struct doca_buf_inventory *inv;
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_buf *src, *dst;
	unsigned int done;
	doca_error_t status;
	uint8_t mem[PIECE];
};

static void copied(struct doca_dma_task_memcpy *t, union doca_data tud, union doca_data cud)
{
	struct imp *im = cud.ptr;

	(void)tud;
	im->status = doca_task_get_status(doca_dma_task_memcpy_as_task(t));
	im->done++;
	doca_task_free(doca_dma_task_memcpy_as_task(t));
}

/* Everything a copy needs, on @dev; DOCA_SUCCESS or the first failure. */
static doca_error_t imp_open(struct imp *im, struct doca_dev *dev)
{
	doca_error_t r;

	memset(im, 0, sizeof(*im));
	im->dev = dev;
	r = doca_mmap_create_from_export(NULL, ex.desc, ex.desc_len, dev, &im->remote);
	if (r == DOCA_SUCCESS)
		r = doca_mmap_create(&im->local);
	if (r == DOCA_SUCCESS)
		r = doca_mmap_set_memrange(im->local, im->mem, PIECE);
	if (r == DOCA_SUCCESS)
		r = doca_mmap_add_dev(im->local, dev);
	if (r == DOCA_SUCCESS)
		r = doca_mmap_start(im->local);
	if (r == DOCA_SUCCESS)
		r = doca_buf_inventory_create(2, &im->inv);
	if (r == DOCA_SUCCESS)
		r = doca_buf_inventory_start(im->inv);
	if (r == DOCA_SUCCESS)
		r = doca_pe_create(&im->pe);
	if (r == DOCA_SUCCESS)
		r = doca_dma_create(dev, &im->dma);
	if (r == DOCA_SUCCESS)
		r = doca_dma_task_memcpy_set_conf(im->dma, copied, copied, 1);
	if (r == DOCA_SUCCESS)
		r = doca_ctx_set_user_data(doca_dma_as_ctx(im->dma),
		                           (union doca_data){ .ptr = im });
	if (r == DOCA_SUCCESS)
		r = doca_pe_connect_ctx(im->pe, doca_dma_as_ctx(im->dma));
	if (r == DOCA_SUCCESS)
		r = doca_ctx_start(doca_dma_as_ctx(im->dma));
	return r;
}

/* Submits a copy of PIECE bytes from offset @off of the export into im->mem. */
static doca_error_t imp_submit(struct imp *im, size_t off)
{
	struct doca_dma_task_memcpy *t;
	doca_error_t r;

	r = doca_buf_inventory_buf_get_by_data(im->inv, im->remote,
	                                       (void *)(uintptr_t)(ex.addr + off), PIECE, &im->src);
	if (r != DOCA_SUCCESS)
		return r;
	r = doca_buf_inventory_buf_get_by_addr(im->inv, im->local, im->mem, PIECE, &im->dst);
	if (r == DOCA_SUCCESS)
		r = doca_dma_task_memcpy_alloc_init(im->dma, im->src, im->dst,
		                                    (union doca_data){ 0 }, &t);
	if (r == DOCA_SUCCESS)
		r = doca_task_submit(doca_dma_task_memcpy_as_task(t));
	return r;
}

static void imp_close(struct imp *im)
{
	struct doca_ctx *ctx = doca_dma_as_ctx(im->dma);
	enum doca_ctx_states s;

	assert_ok(doca_ctx_stop(ctx));
	assert_ok(doca_ctx_get_state(ctx, &s));
	assert_int_equal(s, DOCA_CTX_STATE_IDLE);
	assert_ok(doca_buf_dec_refcount(im->src, NULL));
	assert_ok(doca_buf_dec_refcount(im->dst, NULL));
	assert_ok(doca_dma_destroy(im->dma));
	assert_ok(doca_pe_destroy(im->pe));
	assert_ok(doca_buf_inventory_destroy(im->inv));
	assert_ok(doca_mmap_destroy(im->local));
	assert_ok(doca_mmap_destroy(im->remote));
}

/* One round: import, copy the piece at @off, check its bytes, let everything go. */
static void import_copy_round(struct doca_dev *dev, size_t off)
{
	struct imp im;

	assert_ok(imp_open(&im, dev));
	assert_ok(imp_submit(&im, off));
	for (uint64_t t0 = tu_now_ms(); im.done == 0 && tu_now_ms() - t0 < 20000;)
		(void)doca_pe_progress(im.pe);
	assert_int_equal(im.done, 1);
	assert_ok(im.status);
	for (size_t i = 0; i < PIECE; i++)
		if (im.mem[i] != xu_pattern(off + i))
			fail_msg("byte %zu of the piece at %zu is %u", i, off, im.mem[i]);
	imp_close(&im);
}

/* ---- the cases ------------------------------------------------------------------------ */

static unsigned int rounds(void)
{
	return tu_under_qemu() ? ROUNDS_QEMU : ROUNDS;
}

static struct doca_dev *dpu_dev(void)
{
	struct doca_dev *dev = tu_open_pci_or_null("03:00.0");

	assert_non_null(dev);
	return dev;
}

static void test_imports_come_and_go(void **state)
{
	struct doca_dev *dev = dpu_dev();
	struct tu_held mine, theirs;

	(void)state;
	for (unsigned int i = 0; i < rounds(); i++) {
		if (i == WARM) {
			mine = tu_held_by(getpid());
			theirs = tu_held_by(ex.pid);
		}
		import_copy_round(dev, (size_t)i * PIECE % XLEN);
	}
	assert_true(tu_settles_to("importer", getpid(), mine, SLACK_FDS));
	assert_true(tu_settles_to("exporter", ex.pid, theirs, SLACK_FDS));
	assert_ok(doca_dev_close(dev));
}

/* "--die": import, submit one copy, progress a little (0 to 2 rounds), then die by SIGKILL. */
static int die_with_copy_in_flight(unsigned int rounds)
{
	struct doca_dev *dev = tu_open_pci_or_null("03:00.0");
	struct imp im;

	if (dev == NULL || imp_open(&im, dev) != DOCA_SUCCESS ||
	    imp_submit(&im, (size_t)rounds * PIECE) != DOCA_SUCCESS)
		return 3;
	for (unsigned int i = 0; i < rounds; i++)
		(void)doca_pe_progress(im.pe);
	raise(SIGKILL);
	return 4;
}

static void test_importers_die_mid_copy(void **state)
{
	struct doca_dev *dev;
	struct tu_held theirs = { 0, 0 };
	char hex[2 * sizeof(ex.desc) + 1], addr[32], rounds[16];

	(void)state;
	for (uint64_t i = 0; i < ex.desc_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", ex.desc[i]);
	snprintf(addr, sizeof(addr), "%llu", (unsigned long long)ex.addr);
	for (unsigned int i = 0; i < (tu_under_qemu() ? WARM + 6 : DYING); i++) {
		char *argv[] = { (char *)self_exe, "--die", hex, addr, rounds, NULL };
		pid_t pid;
		int st;

		if (i == WARM)
			theirs = tu_held_by(ex.pid);
		snprintf(rounds, sizeof(rounds), "%u", i % 3);
		pid = fork();
		if (pid == 0) {
			(void)tu_execv(self_exe, argv);
			_exit(127);
		}
		assert_true(pid > 0);
		assert_int_equal(waitpid(pid, &st, 0), pid);
		if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL)
			fail_msg("importer %u ended with status 0x%x, not killed mid-copy", i, st);
	}
	assert_true(tu_settles_to("exporter", ex.pid, theirs, SLACK_FDS));
	/* and it still serves */
	dev = dpu_dev();
	import_copy_round(dev, 0);
	assert_ok(doca_dev_close(dev));
}

static void test_sync_event_imports_come_and_go(void **state)
{
	struct doca_dev *dev = tu_open_pci_or_null("b1:00.0");
	struct tu_held mine, theirs;
	uint64_t first = 0;

	(void)state;
	assert_non_null(dev);
	for (unsigned int i = 0; i < rounds(); i++) {
		struct doca_sync_event *se;
		uint64_t before;

		if (i == WARM) {
			mine = tu_held_by(getpid());
			theirs = tu_held_by(ex.pid);
		}
		assert_ok(doca_sync_event_create_from_export(dev, ex.blob, ex.blob_len, &se));
		assert_ok(doca_sync_event_start(se));
		assert_ok(doca_sync_event_update_add(se, 1, &before));
		if (i == 0)
			first = before;
		assert_int_equal(before, first + i);
		assert_ok(doca_sync_event_stop(se));
		assert_ok(doca_sync_event_destroy(se));
	}
	assert_true(tu_settles_to("importer", getpid(), mine, SLACK_FDS));
	assert_true(tu_settles_to("exporter", ex.pid, theirs, SLACK_FDS));
	assert_ok(doca_dev_close(dev));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_imports_come_and_go),
		cmocka_unit_test(test_importers_die_mid_copy),
		cmocka_unit_test(test_sync_event_imports_come_and_go),
	};

	if (argc == 5 && strcmp(argv[1], "--die") == 0) {
		size_t n = strlen(argv[2]) / 2;

		if (n > sizeof(ex.desc))
			return 2;
		for (size_t i = 0; i < n; i++)
			if (sscanf(argv[2] + 2 * i, "%2hhx", &ex.desc[i]) != 1)
				return 2;
		ex.desc_len = n;
		ex.addr = strtoull(argv[3], NULL, 10);
		return die_with_copy_in_flight((unsigned int)strtoul(argv[4], NULL, 10));
	}
	self_exe = argv[0];
	signal(SIGPIPE, SIG_IGN);
	if (getenv("ODMA_TRANSPORT") == NULL && !xu_kernel_allows()) {
		printf("skipping: the kernel refuses process_vm_readv here (see "
		       "docs/host-dpu.md)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
