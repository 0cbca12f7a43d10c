/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * dma_copy_dpu: the DPU half of the file-based host/DPU split.
 *
 *   dma_copy_dpu [-p PCI] [-d DESCRIPTOR_FILE] [-b BUFFER_FILE]
 *
 * It reads the export descriptor and the "addr\nlen\n" file that dma_copy_host wrote,
 * imports the host's buffer with doca_mmap_create_from_export, copies it into a local
 * buffer with one DMA memcpy task and prints the text. The host must still be running
 * (waiting for Enter) while this runs: its buffer lives in its process.
 */
#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L /* sigaction, nanosleep when built outside odma */
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_argp.h>
#include <doca_log.h>

#include "sample_common.h"

DOCA_LOG_REGISTER(DMA_COPY_DPU);

#define DEFAULT_PCI "03:00.0"
#define DEFAULT_DESC_PATH "/tmp/export_desc.txt"
#define DEFAULT_BUF_PATH "/tmp/buffer_info.txt"
#define MAX_DESC_LEN 1024 /* far above any descriptor; a bigger file is not one */

/* Everything the copy holds; released by dpu_close whatever was reached. */
struct dpu_copy {
	struct doca_dev *dev;
	struct doca_mmap *remote, *local;
	struct doca_buf_inventory *inv;
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_buf *src, *dst;
	char *local_buf;
	uint8_t desc[MAX_DESC_LEN];
	size_t desc_len;
	uint64_t host_addr, len;
	uint32_t done;
	doca_error_t status;
};

static doca_error_t parse_args(int argc, char **argv, struct sample_xfer_config *cfg)
{
	doca_error_t err = doca_argp_init("dma_copy_dpu", cfg);

	if (err != DOCA_SUCCESS)
		return err;
	if ((err = sample_add_string_param("p", "pci-addr", "<PCI-ADDRESS>",
	                                   "DMA device PCI address (default " DEFAULT_PCI ")",
	                                   sample_xfer_pci_cb)) ||
	    (err = sample_add_string_param(
	             "d", "descriptor-path", "<PATH>",
	             "Export descriptor written by dma_copy_host (default " DEFAULT_DESC_PATH ")",
	             sample_xfer_desc_cb)) ||
	    (err = sample_add_string_param("b", "buffer-path", "<PATH>",
	                                   "Buffer address and length written by dma_copy_host "
	                                   "(default " DEFAULT_BUF_PATH ")",
	                                   sample_xfer_buf_cb)))
		return err;
	return doca_argp_start(argc, argv);
}

static doca_error_t read_descriptor(const char *path, struct dpu_copy *c)
{
	FILE *f = fopen(path, "rb");
	int extra;

	if (f == NULL) {
		DOCA_LOG_ERR("Cannot open the descriptor file %s: %s", path, strerror(errno));
		return DOCA_ERROR_NOT_FOUND;
	}
	c->desc_len = fread(c->desc, 1, sizeof(c->desc), f);
	extra = fgetc(f);
	fclose(f);
	if (c->desc_len == 0 || extra != EOF) {
		DOCA_LOG_ERR("%s is empty or larger than %d bytes: not an export descriptor", path,
		             MAX_DESC_LEN);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static bool parse_u64(const char *line, uint64_t *out)
{
	char *end = NULL;

	errno = 0;
	*out = strtoull(line, &end, 10);
	return errno == 0 && end != line && (*end == '\n' || *end == '\0') && line[0] != '-';
}

static doca_error_t read_buffer_info(const char *path, struct dpu_copy *c)
{
	char addr[64] = "", len[64] = "";
	FILE *f = fopen(path, "r");
	bool ok;

	if (f == NULL) {
		DOCA_LOG_ERR("Cannot open the buffer file %s: %s", path, strerror(errno));
		return DOCA_ERROR_NOT_FOUND;
	}
	ok = fgets(addr, sizeof(addr), f) != NULL && fgets(len, sizeof(len), f) != NULL;
	fclose(f);
	if (!ok || !parse_u64(addr, &c->host_addr) || !parse_u64(len, &c->len)) {
		DOCA_LOG_ERR("%s must hold two decimal lines: the buffer address, then its length",
		             path);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t check_length(struct dpu_copy *c)
{
	uint64_t max = 0;
	doca_error_t err =
	        doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(c->dev), &max);

	if (err != DOCA_SUCCESS)
		return err;
	if (c->len > max) {
		DOCA_LOG_ERR("The host buffer (%" PRIu64 " bytes) is above max_buf_size (%" PRIu64
		             ")",
		             c->len, max);
		return DOCA_ERROR_TOO_BIG;
	}
	if (c->len == 0) {
		DOCA_LOG_ERR("The host buffer is empty: nothing to copy");
		return DOCA_ERROR_EMPTY;
	}
	return DOCA_SUCCESS;
}

static void copy_done(struct doca_dma_task_memcpy *task, union doca_data task_user,
                      union doca_data ctx_user)
{
	struct dpu_copy *c = ctx_user.ptr;

	(void)task_user;
	c->status = doca_task_get_status(doca_dma_task_memcpy_as_task(task));
	c->done++;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

/* The local destination and the imported source, as one buffer each. */
static doca_error_t map_buffers(struct dpu_copy *c)
{
	doca_error_t err;

	c->local_buf = calloc(1, c->len + 1); /* +1: a NUL for printing */
	if (c->local_buf == NULL)
		return DOCA_ERROR_NO_MEMORY;
	if ((err = doca_mmap_create(&c->local)) || (err = doca_mmap_add_dev(c->local, c->dev)) ||
	    (err = doca_mmap_set_memrange(c->local, c->local_buf, c->len)) ||
	    (err = doca_mmap_start(c->local)))
		return err;
	err = doca_mmap_create_from_export(NULL, c->desc, c->desc_len, c->dev, &c->remote);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR(
		        "Cannot import the host's export (is dma_copy_host still running?): %s",
		        doca_error_get_descr(err));
		return err;
	}
	if ((err = doca_buf_inventory_create(2, &c->inv)) ||
	    (err = doca_buf_inventory_start(c->inv)))
		return err;
	err = doca_buf_inventory_buf_get_by_data(c->inv, c->remote, (void *)(uintptr_t)c->host_addr,
	                                         c->len, &c->src);
	if (err == DOCA_SUCCESS)
		err = doca_buf_inventory_buf_get_by_addr(c->inv, c->local, c->local_buf, c->len,
		                                         &c->dst);
	return err;
}

static doca_error_t wait_idle(struct dpu_copy *c)
{
	struct doca_ctx *ctx = doca_dma_as_ctx(c->dma);
	enum doca_ctx_states state = DOCA_CTX_STATE_RUNNING;
	uint32_t idle = 0;
	doca_error_t err = doca_ctx_stop(ctx);

	if (err != DOCA_SUCCESS && err != DOCA_ERROR_IN_PROGRESS && err != DOCA_ERROR_BAD_STATE)
		return err;
	while (doca_ctx_get_state(ctx, &state) == DOCA_SUCCESS && state != DOCA_CTX_STATE_IDLE)
		if (!bench_progress_once(c->pe, &idle))
			return DOCA_ERROR_TIME_OUT;
	return DOCA_SUCCESS;
}

static doca_error_t run_copy(struct dpu_copy *c)
{
	struct doca_dma_task_memcpy *task = NULL;
	union doca_data none = { .u64 = 0 };
	uint32_t idle = 0;
	doca_error_t err;

	if ((err = doca_pe_create(&c->pe)) || (err = doca_dma_create(c->dev, &c->dma)) ||
	    (err = doca_dma_task_memcpy_set_conf(c->dma, copy_done, copy_done, 1)) ||
	    (err = doca_ctx_set_user_data(doca_dma_as_ctx(c->dma),
	                                  (union doca_data){ .ptr = c })) ||
	    (err = doca_pe_connect_ctx(c->pe, doca_dma_as_ctx(c->dma))) ||
	    (err = doca_ctx_start(doca_dma_as_ctx(c->dma))))
		return err;
	err = doca_dma_task_memcpy_alloc_init(c->dma, c->src, c->dst, none, &task);
	if (err == DOCA_SUCCESS && (err = doca_task_submit(doca_dma_task_memcpy_as_task(task))))
		doca_task_free(doca_dma_task_memcpy_as_task(task));
	while (err == DOCA_SUCCESS && c->done == 0)
		if (!bench_progress_once(c->pe, &idle))
			err = DOCA_ERROR_TIME_OUT;
	if (err == DOCA_SUCCESS)
		err = c->status;
	if (wait_idle(c) != DOCA_SUCCESS && err == DOCA_SUCCESS)
		err = DOCA_ERROR_BAD_STATE;
	return err;
}

static void dpu_close(struct dpu_copy *c)
{
	if (c->dma != NULL)
		doca_dma_destroy(c->dma);
	if (c->pe != NULL)
		doca_pe_destroy(c->pe);
	if (c->src != NULL)
		doca_buf_dec_refcount(c->src, NULL);
	if (c->dst != NULL)
		doca_buf_dec_refcount(c->dst, NULL);
	if (c->inv != NULL)
		doca_buf_inventory_destroy(c->inv);
	if (c->remote != NULL)
		doca_mmap_destroy(c->remote);
	if (c->local != NULL)
		doca_mmap_destroy(c->local);
	if (c->dev != NULL)
		doca_dev_close(c->dev);
	free(c->local_buf);
}

static doca_error_t dpu_run(const struct sample_xfer_config *cfg)
{
	static struct dpu_copy c;
	doca_error_t err;

	if ((err = read_descriptor(cfg->desc_path, &c)) ||
	    (err = read_buffer_info(cfg->buf_path, &c)) ||
	    (err = sample_open_dma_dev(cfg->pci_addr, &c.dev)) || (err = check_length(&c)) ||
	    (err = map_buffers(&c)))
		goto out;
	err = run_copy(&c);
	if (err == DOCA_SUCCESS) {
		DOCA_LOG_INFO("Copied %" PRIu64 " bytes from the host with one DMA task", c.len);
		printf("%s\n", c.local_buf);
		fflush(stdout);
	} else {
		DOCA_LOG_ERR("The DMA copy from the host failed: %s", doca_error_get_descr(err));
	}
out:
	dpu_close(&c);
	return err;
}

int main(int argc, char **argv)
{
	static struct sample_xfer_config cfg = {
		.pci_addr = DEFAULT_PCI,
		.desc_path = DEFAULT_DESC_PATH,
		.buf_path = DEFAULT_BUF_PATH,
	};
	doca_error_t err = sample_setup_logging();

	if (err != DOCA_SUCCESS) {
		fprintf(stderr, "dma_copy_dpu: cannot set up logging: %s\n",
		        doca_error_get_descr(err));
		return EXIT_FAILURE;
	}
	err = parse_args(argc, argv, &cfg);
	if (err == DOCA_SUCCESS)
		err = dpu_run(&cfg);
	else
		DOCA_LOG_ERR("Failed to parse the sample's arguments: %s",
		             doca_error_get_descr(err));
	doca_argp_destroy();
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("dma_copy_dpu failed: %s", doca_error_get_descr(err));
		return EXIT_FAILURE;
	}
	DOCA_LOG_INFO("dma_copy_dpu finished successfully");
	return EXIT_SUCCESS;
}
