/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Fake DPU side: imports the host side's export from the -d file (doca_mmap_create_from_export),
 * copies the buffer the -b file names into local memory with one DMA memcpy task, and prints it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

/* Which network namespace this runs in, and the fabric it was given (odma compat --split-netns
 * puts the two sides into two namespaces; its test compares these lines). */
static void print_where(const char *side)
{
	struct stat st;
	const char *fabric = getenv("ODMA_FABRIC");

	if (stat("/proc/self/ns/net", &st) != 0)
		st.st_ino = 0;
	printf("fake %s: netns %lu, pid %ld, ODMA_FABRIC %s\n", side, (unsigned long)st.st_ino,
	       (long)getpid(), fabric != NULL ? fabric : "-");
	fflush(stdout);
}

static struct doca_dev *open_dev(const char *pci)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n = 0, i;
	uint8_t eq;

	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
		return NULL;
	for (i = 0; i < n && dev == NULL; i++)
		if (doca_devinfo_is_equal_pci_addr(list[i], pci, &eq) == DOCA_SUCCESS && eq)
			doca_dev_open(list[i], &dev);
	doca_devinfo_destroy_list(list);
	return dev;
}

static int done;
static doca_error_t result = DOCA_ERROR_UNKNOWN;

static void copy_done(struct doca_dma_task_memcpy *task, union doca_data t, union doca_data c)
{
	(void)t;
	(void)c;
	result = doca_task_get_status(doca_dma_task_memcpy_as_task(task));
	done = 1;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

/* Progresses @pe until @cond or 10 s; false on the time limit. */
static int progress_until(struct doca_pe *pe, int (*cond)(void *), void *arg)
{
	struct timespec ms = { 0, 1000000 };
	int i;

	for (i = 0; i < 10000 && !cond(arg); i++)
		if (doca_pe_progress(pe) == 0)
			nanosleep(&ms, NULL);
	return cond(arg);
}

static int is_done(void *arg)
{
	(void)arg;
	return done;
}

static int is_idle(void *arg)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_RUNNING;

	return doca_ctx_get_state(arg, &st) == DOCA_SUCCESS && st == DOCA_CTX_STATE_IDLE;
}

int main(int argc, char **argv)
{
	const char *side = getenv("ODMA_SIDE"), *desc_path = NULL, *buf_path = NULL, *pci = NULL;
	static char desc[4096], text[4200];
	unsigned long long addr = 0, len = 0;
	struct doca_dev *dev;
	struct doca_mmap *remote = NULL, *local = NULL;
	struct doca_buf_inventory *inv = NULL;
	struct doca_buf *src = NULL, *dst = NULL;
	struct doca_pe *pe = NULL;
	struct doca_dma *dma = NULL;
	struct doca_dma_task_memcpy *task = NULL;
	union doca_data none = { .u64 = 0 };
	size_t desc_len;
	FILE *f;
	int i;

	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "-d") == 0)
			desc_path = argv[i + 1];
		else if (strcmp(argv[i], "-b") == 0)
			buf_path = argv[i + 1];
		else if (strcmp(argv[i], "-p") == 0)
			pci = argv[i + 1];
	}
	if (desc_path == NULL || buf_path == NULL || pci == NULL || side == NULL ||
	    strcmp(side, "dpu") != 0)
		return 2;
	print_where("dpu");
	if (getenv("ODMA_FAKE_DMA_COPY_HANG") != NULL) { /* for the time-limit test */
		puts("fake dpu: hanging");
		fflush(stdout);
		for (;;)
			pause();
	}
	f = fopen(desc_path, "rb");
	if (f == NULL)
		return 3;
	desc_len = fread(desc, 1, sizeof(desc), f);
	fclose(f);
	f = fopen(buf_path, "r");
	if (f == NULL || fscanf(f, "%llu %llu", &addr, &len) != 2 || len >= sizeof(text))
		return 4;
	fclose(f);
	dev = open_dev(pci);
	if (dev == NULL) {
		puts("[ERROR] fake dpu: no device");
		return 5;
	}
	if (doca_mmap_create_from_export(NULL, desc, desc_len, dev, &remote) != DOCA_SUCCESS) {
		puts("[ERROR] fake dpu: cannot import the host's export");
		return 6;
	}
	if (doca_mmap_create(&local) != DOCA_SUCCESS ||
	    doca_mmap_set_memrange(local, text, len) != DOCA_SUCCESS ||
	    doca_mmap_add_dev(local, dev) != DOCA_SUCCESS ||
	    doca_mmap_start(local) != DOCA_SUCCESS ||
	    doca_buf_inventory_create(2, &inv) != DOCA_SUCCESS ||
	    doca_buf_inventory_start(inv) != DOCA_SUCCESS ||
	    doca_buf_inventory_buf_get_by_data(inv, remote, (void *)(uintptr_t)addr, len, &src) !=
	            DOCA_SUCCESS ||
	    doca_buf_inventory_buf_get_by_addr(inv, local, text, len, &dst) != DOCA_SUCCESS ||
	    doca_pe_create(&pe) != DOCA_SUCCESS || doca_dma_create(dev, &dma) != DOCA_SUCCESS ||
	    doca_dma_task_memcpy_set_conf(dma, copy_done, copy_done, 1) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(pe, doca_dma_as_ctx(dma)) != DOCA_SUCCESS ||
	    doca_ctx_start(doca_dma_as_ctx(dma)) != DOCA_SUCCESS ||
	    doca_dma_task_memcpy_alloc_init(dma, src, dst, none, &task) != DOCA_SUCCESS ||
	    doca_task_submit(doca_dma_task_memcpy_as_task(task)) != DOCA_SUCCESS) {
		puts("[ERROR] fake dpu: cannot set up the copy");
		return 7;
	}
	if (!progress_until(pe, is_done, NULL) || result != DOCA_SUCCESS) {
		printf("[ERROR] fake dpu: the DMA copy failed: %s\n", doca_error_get_name(result));
		return 8;
	}
	doca_ctx_stop(doca_dma_as_ctx(dma));
	if (!progress_until(pe, is_idle, doca_dma_as_ctx(dma)))
		return 9;
	doca_dma_destroy(dma);
	doca_pe_destroy(pe);
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);
	doca_buf_inventory_destroy(inv);
	doca_mmap_destroy(local);
	doca_mmap_destroy(remote);
	doca_dev_close(dev);
	text[len] = '\0';
	printf("Memory content: %s\nSample finished successfully\n", text);
	return 0;
}
