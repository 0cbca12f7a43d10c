/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * dma_copy_host: the host half of the file-based host/DPU split.
 *
 *   dma_copy_host [-p PCI] [-t TEXT] [-d DESCRIPTOR_FILE] [-b BUFFER_FILE]
 *
 * It maps a buffer holding TEXT for reading by the DPU only (PCI_READ_ONLY), exports it with
 * doca_mmap_export_pci, writes the raw export descriptor to DESCRIPTOR_FILE and the buffer's
 * address and length ("addr\nlen\n", decimal) to BUFFER_FILE, then keeps the buffer alive
 * until Enter is pressed (or stdin closes, or SIGINT/SIGTERM arrives), so dma_copy_dpu can
 * read it. Each file is written under a temporary name and renamed, so a reader that sees
 * it sees all of it.
 */
#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L /* sigaction, nanosleep when built outside odma */
#endif
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_argp.h>
#include <doca_log.h>

#include "sample_common.h"

DOCA_LOG_REGISTER(DMA_COPY_HOST);

#define DEFAULT_PCI "b1:00.0"
#define DEFAULT_TEXT "This is a sample piece of text"
#define DEFAULT_DESC_PATH "/tmp/export_desc.txt"
#define DEFAULT_BUF_PATH "/tmp/buffer_info.txt"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static doca_error_t parse_args(int argc, char **argv, struct sample_xfer_config *cfg)
{
	doca_error_t err = doca_argp_init("dma_copy_host", cfg);

	if (err != DOCA_SUCCESS)
		return err;
	if ((err = sample_add_string_param("p", "pci-addr", "<PCI-ADDRESS>",
	                                   "DMA device PCI address (default " DEFAULT_PCI ")",
	                                   sample_xfer_pci_cb)) ||
	    (err = sample_add_string_param("t", "text", "<TEXT>",
	                                   "Text the DPU will copy (at most 4096 characters)",
	                                   sample_xfer_text_cb)) ||
	    (err = sample_add_string_param(
	             "d", "descriptor-path", "<PATH>",
	             "Where to write the export descriptor (default " DEFAULT_DESC_PATH ")",
	             sample_xfer_desc_cb)) ||
	    (err = sample_add_string_param(
	             "b", "buffer-path", "<PATH>",
	             "Where to write the buffer address and length (default " DEFAULT_BUF_PATH ")",
	             sample_xfer_buf_cb)))
		return err;
	return doca_argp_start(argc, argv);
}

/* Writes len bytes to path through path.tmp and a rename: readers never see half a file. */
static doca_error_t write_whole_file(const char *path, const void *data, size_t len)
{
	char tmp[SAMPLE_MAX_PATH + 8];
	FILE *f;
	bool ok;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "wb");
	if (f == NULL) {
		DOCA_LOG_ERR("Cannot create %s: %s", tmp, strerror(errno));
		return DOCA_ERROR_IO_FAILED;
	}
	ok = fwrite(data, 1, len, f) == len;
	ok = fclose(f) == 0 && ok;
	if (!ok || rename(tmp, path) != 0) {
		DOCA_LOG_ERR("Cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		return DOCA_ERROR_IO_FAILED;
	}
	return DOCA_SUCCESS;
}

static doca_error_t write_exchange_files(const struct sample_xfer_config *cfg, const void *desc,
                                         size_t desc_len, const char *buf, size_t len)
{
	char info[64];
	int n = snprintf(info, sizeof(info), "%" PRIu64 "\n%" PRIu64 "\n", (uint64_t)(uintptr_t)buf,
	                 (uint64_t)len);
	doca_error_t err = write_whole_file(cfg->desc_path, desc, desc_len);

	if (err == DOCA_SUCCESS)
		err = write_whole_file(cfg->buf_path, info, (size_t)n);
	return err;
}

/*
 * Installed before the files are written, so a signal sent as soon as they appear still
 * ends the sample through its teardown instead of killing it.
 */
static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: the signal interrupts read() */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* Blocks until a newline or EOF on stdin, or a SIGINT/SIGTERM. */
static void wait_for_enter(void)
{
	char c;

	DOCA_LOG_INFO(
	        "Export ready; copy both files to the DPU, run dma_copy_dpu, then press Enter");
	while (!stop_requested) {
		ssize_t k = read(STDIN_FILENO, &c, 1);

		if (k == 0 || (k == 1 && c == '\n'))
			return;
		if (k < 0 && errno != EINTR)
			return;
	}
	DOCA_LOG_INFO("Signal received; tearing down");
}

static doca_error_t export_text(const struct sample_xfer_config *cfg, struct doca_dev *dev,
                                char *buf, size_t len, struct doca_mmap **mmap)
{
	const void *desc = NULL;
	size_t desc_len = 0;
	doca_error_t err = doca_mmap_create(mmap);

	if (err != DOCA_SUCCESS)
		return err;
	if ((err = doca_mmap_add_dev(*mmap, dev)) ||
	    (err = doca_mmap_set_permissions(*mmap, DOCA_ACCESS_FLAG_PCI_READ_ONLY)) ||
	    (err = doca_mmap_set_memrange(*mmap, buf, len)) || (err = doca_mmap_start(*mmap)) ||
	    (err = doca_mmap_export_pci(*mmap, dev, &desc, &desc_len))) {
		DOCA_LOG_ERR("Cannot export the text buffer: %s", doca_error_get_descr(err));
		return err;
	}
	return write_exchange_files(cfg, desc, desc_len, buf, len);
}

static doca_error_t host_run(const struct sample_xfer_config *cfg)
{
	size_t len = strlen(cfg->text);
	struct doca_mmap *mmap = NULL;
	struct doca_dev *dev = NULL;
	char *buf = malloc(len);
	doca_error_t err = buf != NULL ? DOCA_SUCCESS : DOCA_ERROR_NO_MEMORY;

	if (err == DOCA_SUCCESS) {
		memcpy(buf, cfg->text, len);
		err = sample_open_dma_dev(cfg->pci_addr, &dev);
	}
	if (err == DOCA_SUCCESS)
		err = export_text(cfg, dev, buf, len, &mmap);
	if (err == DOCA_SUCCESS) {
		DOCA_LOG_INFO(
		        "Exported %zu bytes at %p: descriptor in %s, address and length in %s", len,
		        (void *)buf, cfg->desc_path, cfg->buf_path);
		wait_for_enter();
	}
	/* Destroying the mmap revokes the export: the DPU can no longer read the buffer. */
	if (mmap != NULL)
		doca_mmap_destroy(mmap);
	if (dev != NULL)
		doca_dev_close(dev);
	free(buf);
	return err;
}

int main(int argc, char **argv)
{
	static struct sample_xfer_config cfg = {
		.pci_addr = DEFAULT_PCI,
		.text = DEFAULT_TEXT,
		.desc_path = DEFAULT_DESC_PATH,
		.buf_path = DEFAULT_BUF_PATH,
	};
	doca_error_t err = sample_setup_logging();

	if (err != DOCA_SUCCESS) {
		fprintf(stderr, "dma_copy_host: cannot set up logging: %s\n",
		        doca_error_get_descr(err));
		return EXIT_FAILURE;
	}
	err = parse_args(argc, argv, &cfg);
	if (err == DOCA_SUCCESS) {
		catch_signals();
		err = host_run(&cfg);
	} else
		DOCA_LOG_ERR("Failed to parse the sample's arguments: %s",
		             doca_error_get_descr(err));
	doca_argp_destroy();
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("dma_copy_host failed: %s", doca_error_get_descr(err));
		return EXIT_FAILURE;
	}
	DOCA_LOG_INFO("dma_copy_host finished successfully");
	return EXIT_SUCCESS;
}
