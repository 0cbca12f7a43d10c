/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The dma_copy_host / dma_copy_dpu samples end to end, as two processes: the host runs
 * with a pipe on stdin and temporary -d/-b files; once both files exist the DPU sample
 * runs and must print the text; then the host gets Enter (or EOF, or SIGTERM) and both
 * must exit 0. This process also imports the host's export itself to check that the DPU
 * side cannot write into a PCI_READ_ONLY buffer.
 *
 *   test_xproc_samples HOST_EXE DPU_EXE
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
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

#define TEXT "odma host buffer, read by the DPU sample"

static const char *host_exe, *dpu_exe;

struct host_run {
	pid_t pid;
	int stdin_fd; /* write end of the host's stdin */
	char dir[64], desc[128], info[128];
};

static void host_start(struct host_run *h, const char *text)
{
	int in[2];

	snprintf(h->dir, sizeof(h->dir), "/tmp/odma_samples.XXXXXX");
	assert_non_null(mkdtemp(h->dir));
	snprintf(h->desc, sizeof(h->desc), "%s/export_desc.txt", h->dir);
	snprintf(h->info, sizeof(h->info), "%s/buffer_info.txt", h->dir);
	assert_int_equal(pipe(in), 0);
	h->pid = fork();
	assert_true(h->pid >= 0);
	if (h->pid == 0) {
		dup2(in[0], STDIN_FILENO);
		close(in[0]);
		close(in[1]);
		execl(host_exe, host_exe, "-d", h->desc, "-b", h->info, "-t", text, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	h->stdin_fd = in[1];
}

/* Waits until the host wrote its buffer file (written last, by rename) or exited. */
static bool host_ready(struct host_run *h)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 10 * 1000 * 1000 };
	struct stat st;

	for (int i = 0; i < 6000; i++) { /* 60 s: a limit for a broken build, not a timing */
		if (stat(h->info, &st) == 0)
			return true;
		if (waitpid(h->pid, NULL, WNOHANG) == h->pid) {
			h->pid = -1;
			return false;
		}
		nanosleep(&ts, NULL);
	}
	return false;
}

/* Ends the host by @how ('\n' Enter, 'E' EOF, 'T' SIGTERM); returns its exit status. */
static int host_end(struct host_run *h, char how)
{
	int st = -1;

	if (how == '\n')
		assert_int_equal(write(h->stdin_fd, "\n", 1), 1);
	if (how == 'T')
		kill(h->pid, SIGTERM);
	close(h->stdin_fd);
	assert_int_equal(waitpid(h->pid, &st, 0), h->pid);
	unlink(h->desc);
	unlink(h->info);
	rmdir(h->dir);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Runs the DPU sample on @desc/@info; its stdout and stderr go to @out. Returns its status. */
static int run_dpu(const char *desc, const char *info, char *out, size_t cap)
{
	int p[2], st = -1;
	size_t n = 0;
	ssize_t k;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		dup2(p[1], STDERR_FILENO);
		close(p[0]);
		close(p[1]);
		execl(dpu_exe, dpu_exe, "-d", desc, "-b", info, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while (n < cap - 1 &&
	       ((k = read(p[0], out + n, cap - 1 - n)) > 0 || (k < 0 && errno == EINTR)))
		n += k > 0 ? (size_t)k : 0;
	out[n] = '\0';
	close(p[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void copy_then_end(char how)
{
	struct host_run h;
	char out[16384];

	host_start(&h, TEXT);
	assert_true(host_ready(&h));
	assert_int_equal(run_dpu(h.desc, h.info, out, sizeof(out)), 0);
	if (strstr(out, TEXT) == NULL)
		fail_msg("the DPU sample did not print the text; it said:\n%s", out);
	assert_int_equal(host_end(&h, how), 0);
}

static void test_enter(void **state)
{
	(void)state;
	copy_then_end('\n');
}

static void test_eof(void **state)
{
	(void)state;
	copy_then_end('E');
}

static void test_sigterm(void **state)
{
	(void)state;
	copy_then_end('T');
}

static size_t read_file(const char *path, void *buf, size_t cap)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, cap, f);
	fclose(f);
	return n;
}

static void noop_cb(struct doca_dma_task_memcpy *t, union doca_data tud, union doca_data cud)
{
	(void)t;
	(void)tud;
	(void)cud;
}

/* The host's export is PCI_READ_ONLY: a DMA write into it is refused at submit. */
static void test_read_only(void **state)
{
	uint8_t desc[1024], local[64] = "overwrite";
	char info[128] = "";
	unsigned long long addr = 0, len = 0;
	struct doca_mmap *remote, *lm;
	struct doca_buf_inventory *inv;
	struct doca_buf *src, *dst;
	struct doca_dma_task_memcpy *t;
	struct doca_dev *dev;
	struct doca_dma *dma;
	struct doca_pe *pe;
	struct host_run h;
	size_t dlen;

	(void)state;
	host_start(&h, TEXT);
	assert_true(host_ready(&h));
	dlen = read_file(h.desc, desc, sizeof(desc));
	read_file(h.info, info, sizeof(info) - 1);
	assert_int_equal(sscanf(info, "%llu\n%llu", &addr, &len), 2);
	assert_int_equal(len, strlen(TEXT));
	dev = tu_open_pci_or_null("03:00.0");
	assert_non_null(dev);
	assert_ok(doca_mmap_create_from_export(NULL, desc, dlen, dev, &remote));
	assert_ok(doca_mmap_create(&lm));
	assert_ok(doca_mmap_set_memrange(lm, local, sizeof(local)));
	assert_ok(doca_mmap_add_dev(lm, dev));
	assert_ok(doca_mmap_start(lm));
	assert_ok(doca_buf_inventory_create(2, &inv));
	assert_ok(doca_buf_inventory_start(inv));
	assert_ok(doca_buf_inventory_buf_get_by_data(inv, lm, local, 9, &src));
	assert_ok(
	        doca_buf_inventory_buf_get_by_addr(inv, remote, (void *)(uintptr_t)addr, 9, &dst));
	assert_ok(doca_pe_create(&pe));
	assert_ok(doca_dma_create(dev, &dma));
	assert_ok(doca_dma_task_memcpy_set_conf(dma, noop_cb, noop_cb, 1));
	assert_ok(doca_pe_connect_ctx(pe, doca_dma_as_ctx(dma)));
	assert_ok(doca_ctx_start(doca_dma_as_ctx(dma)));
	assert_ok(doca_dma_task_memcpy_alloc_init(dma, src, dst, (union doca_data){ 0 }, &t));
	assert_doca(doca_task_submit(doca_dma_task_memcpy_as_task(t)), DOCA_ERROR_NOT_PERMITTED);
	doca_task_free(doca_dma_task_memcpy_as_task(t));
	assert_ok(doca_ctx_stop(doca_dma_as_ctx(dma)));
	assert_ok(doca_dma_destroy(dma));
	assert_ok(doca_pe_destroy(pe));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);
	assert_ok(doca_buf_inventory_destroy(inv));
	assert_ok(doca_mmap_destroy(remote));
	assert_ok(doca_mmap_destroy(lm));
	assert_ok(doca_dev_close(dev));
	/* The host's text is unchanged: the DPU sample still reads it. */
	{
		char out[16384];

		assert_int_equal(run_dpu(h.desc, h.info, out, sizeof(out)), 0);
		assert_non_null(strstr(out, TEXT));
	}
	assert_int_equal(host_end(&h, '\n'), 0);
}

/* Buffer files the DPU must refuse: an empty buffer and one above max_buf_size. */
static void test_bad_lengths(void **state)
{
	static const char *const infos[][2] = {
		{ "4096\n0\n", "empty" },
		{ "4096\n3145728\n", "above max_buf_size" },
		{ "garbage\n", "two decimal lines" },
	};
	struct host_run h;
	char out[16384], path[160];

	(void)state;
	host_start(&h, TEXT);
	assert_true(host_ready(&h));
	snprintf(path, sizeof(path), "%s/bad_info.txt", h.dir);
	for (size_t i = 0; i < sizeof(infos) / sizeof(infos[0]); i++) {
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fputs(infos[i][0], f);
		fclose(f);
		assert_int_not_equal(run_dpu(h.desc, path, out, sizeof(out)), 0);
		if (strstr(out, infos[i][1]) == NULL)
			fail_msg("no \"%s\" in the DPU sample's output:\n%s", infos[i][1], out);
	}
	unlink(path);
	assert_int_equal(host_end(&h, '\n'), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enter),       cmocka_unit_test(test_eof),
		cmocka_unit_test(test_sigterm),     cmocka_unit_test(test_read_only),
		cmocka_unit_test(test_bad_lengths),
	};

	if (argc != 3) {
		fprintf(stderr, "usage: %s HOST_EXE DPU_EXE\n", argv[0]);
		return 1;
	}
	host_exe = argv[1];
	dpu_exe = argv[2];
	signal(SIGPIPE, SIG_IGN);
	if (!xu_kernel_allows()) {
		printf("skipping: the kernel refuses process_vm_readv here (see "
		       "docs/host-dpu.md)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
