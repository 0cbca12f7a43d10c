/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * Shared helpers of the odma samples (see sample_common.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_argp.h>
#include <doca_log.h>
#include <doca_version.h>

#include "sample_common.h"

DOCA_LOG_REGISTER(SAMPLE_COMMON);

/* A wait gives up after this many empty progress calls (about 10 s): a sample never hangs. */
#define IDLE_SPIN_LIMIT 1000000u

static doca_error_t pci_addr_cb(void *param, void *config)
{
	struct sample_config *cfg = config;
	const char *addr = param;

	if (strlen(addr) >= sizeof(cfg->pci_addr)) {
		DOCA_LOG_ERR("-p/--pci-addr: '%s' is too long (BB:DD.F or DDDD:BB:DD.F)", addr);
		return DOCA_ERROR_INVALID_VALUE;
	}
	strcpy(cfg->pci_addr, addr);
	return DOCA_SUCCESS;
}

static doca_error_t text_cb(void *param, void *config)
{
	struct sample_config *cfg = config;
	const char *text = param;

	if (strlen(text) > SAMPLE_MAX_TEXT) {
		DOCA_LOG_ERR("-t/--text: the text is longer than %d characters", SAMPLE_MAX_TEXT);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (text[0] == '\0') {
		DOCA_LOG_ERR("-t/--text: the text is empty; a DMA copy needs at least one byte");
		return DOCA_ERROR_INVALID_VALUE;
	}
	strcpy(cfg->text, text);
	return DOCA_SUCCESS;
}

static doca_error_t size_cb(void *param, void *config)
{
	struct sample_config *cfg = config;
	int size = *(int *)param;

	if (size <= 0) {
		DOCA_LOG_ERR("--size: %d is not a positive number of bytes", size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->size = (uint64_t)size;
	return DOCA_SUCCESS;
}

static doca_error_t add_param(const char *short_name, const char *long_name, const char *args,
                              const char *descr, enum doca_argp_type type, doca_argp_param_cb_t cb)
{
	struct doca_argp_param *param = NULL;
	doca_error_t err = doca_argp_param_create(&param);

	if (err != DOCA_SUCCESS)
		return err;
	if (short_name != NULL)
		doca_argp_param_set_short_name(param, short_name);
	doca_argp_param_set_long_name(param, long_name);
	doca_argp_param_set_arguments(param, args);
	doca_argp_param_set_description(param, descr);
	doca_argp_param_set_callback(param, cb);
	doca_argp_param_set_type(param, type);
	return doca_argp_register_param(param);
}

doca_error_t sample_add_string_param(const char *short_name, const char *long_name,
                                     const char *args, const char *descr, doca_argp_param_cb_t cb)
{
	return add_param(short_name, long_name, args, descr, DOCA_ARGP_TYPE_STRING, cb);
}

/* Copies a flag's value into a fixed field; an empty value or one that does not fit is refused. */
static doca_error_t copy_arg(char *dst, size_t cap, const char *src, const char *flag)
{
	if (src[0] == '\0' || strlen(src) >= cap) {
		DOCA_LOG_ERR("%s: the value is empty or longer than %zu characters", flag, cap - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	strcpy(dst, src);
	return DOCA_SUCCESS;
}

doca_error_t sample_xfer_pci_cb(void *param, void *config)
{
	struct sample_xfer_config *cfg = config;

	return copy_arg(cfg->pci_addr, sizeof(cfg->pci_addr), param, "-p/--pci-addr");
}

doca_error_t sample_xfer_text_cb(void *param, void *config)
{
	struct sample_xfer_config *cfg = config;

	return copy_arg(cfg->text, sizeof(cfg->text), param, "-t/--text");
}

doca_error_t sample_xfer_desc_cb(void *param, void *config)
{
	struct sample_xfer_config *cfg = config;

	return copy_arg(cfg->desc_path, sizeof(cfg->desc_path), param, "-d/--descriptor-path");
}

doca_error_t sample_xfer_buf_cb(void *param, void *config)
{
	struct sample_xfer_config *cfg = config;

	return copy_arg(cfg->buf_path, sizeof(cfg->buf_path), param, "-b/--buffer-path");
}

static doca_error_t register_params(bool with_size)
{
	doca_error_t err;

	err = add_param("p", "pci-addr", "<PCI-ADDRESS>",
	                "DMA device PCI address (default: the first device with the memcpy task)",
	                DOCA_ARGP_TYPE_STRING, pci_addr_cb);
	if (err == DOCA_SUCCESS)
		err = add_param("t", "text", "<TEXT>", "Text to copy (at most 4096 characters)",
		                DOCA_ARGP_TYPE_STRING, text_cb);
	if (err == DOCA_SUCCESS && with_size)
		err = add_param(NULL, "size", "<BYTES>",
		                "Copy BYTES of generated data instead of the text",
		                DOCA_ARGP_TYPE_INT, size_cb);
	return err;
}

doca_error_t sample_setup_logging(void)
{
	struct doca_log_backend *sdk_log = NULL;
	doca_error_t err = doca_log_backend_create_standard();

	if (err != DOCA_SUCCESS)
		return err;
	err = doca_log_backend_create_with_file_sdk(stderr, &sdk_log);
	if (err != DOCA_SUCCESS)
		return err;
	return doca_log_backend_set_sdk_level(sdk_log, DOCA_LOG_LEVEL_WARNING);
}

/* -v/--version: the headers' version, the library's, and whether they are the same release. */
static doca_error_t version_cb(void *param, void *config)
{
	(void)param;
	(void)config;
	printf("DOCA SDK (headers) %s, runtime %s%s\n", doca_version(), doca_version_runtime(),
	       DOCA_VERSION_EQ_CURRENT(DOCA_VERSION_MAJOR, DOCA_VERSION_MINOR, 0) ? ""
	                                                                          : " (mismatch)");
	doca_argp_destroy();
	exit(EXIT_SUCCESS);
}

doca_error_t sample_init(const char *name, int argc, char **argv, bool with_size,
                         struct sample_config *cfg)
{
	doca_error_t err;

	memset(cfg, 0, sizeof(*cfg));
	err = sample_setup_logging();
	if (err != DOCA_SUCCESS) {
		fprintf(stderr, "%s: cannot set up logging: %s\n", name, doca_error_get_descr(err));
		return err;
	}
	err = doca_argp_init(name, cfg);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("doca_argp_init failed: %s", doca_error_get_descr(err));
		return err;
	}
	err = register_params(with_size);
	if (err == DOCA_SUCCESS)
		err = doca_argp_register_version_callback(version_cb);
	if (err == DOCA_SUCCESS)
		err = doca_argp_start(argc, argv);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to parse the sample's arguments: %s",
		             doca_error_get_descr(err));
		doca_argp_destroy();
	}
	return err;
}

void sample_fini(void)
{
	doca_argp_destroy();
}

/* True when devinfo matches the requested address (or, with none, can do memcpy). */
static bool dev_matches(struct doca_devinfo *devinfo, const char *pci_addr)
{
	uint8_t equal = 0;

	if (doca_dma_cap_task_memcpy_is_supported(devinfo) != DOCA_SUCCESS)
		return false;
	if (pci_addr[0] == '\0')
		return true;
	return doca_devinfo_is_equal_pci_addr(devinfo, pci_addr, &equal) == DOCA_SUCCESS && equal;
}

doca_error_t sample_open_dma_dev(const char *pci_addr, struct doca_dev **dev)
{
	struct doca_devinfo **list = NULL;
	uint32_t nb = 0, i;
	doca_error_t err = doca_devinfo_create_list(&list, &nb);

	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot list devices: %s", doca_error_get_descr(err));
		return err;
	}
	err = DOCA_ERROR_NOT_FOUND;
	for (i = 0; i < nb && err != DOCA_SUCCESS; i++)
		if (dev_matches(list[i], pci_addr))
			err = doca_dev_open(list[i], dev);
	doca_devinfo_destroy_list(list);
	if (err != DOCA_SUCCESS)
		DOCA_LOG_ERR("No DMA-capable device %s%s: %s", pci_addr[0] ? "at " : "found",
		             pci_addr, doca_error_get_descr(err));
	return err;
}

uint8_t *bench_src_bytes(const struct copy_bench *b, uint32_t i)
{
	return b->region + (size_t)i * b->buf_size;
}

uint8_t *bench_dst_bytes(const struct copy_bench *b, uint32_t i)
{
	return b->region + ((size_t)b->nb_pairs + i) * b->buf_size;
}

static doca_error_t bench_make_bufs(struct copy_bench *b)
{
	doca_error_t err = DOCA_SUCCESS;
	uint32_t i;

	for (i = 0; i < b->nb_pairs && err == DOCA_SUCCESS; i++) {
		err = doca_buf_inventory_buf_get_by_data(b->inv, b->mmap, bench_src_bytes(b, i),
		                                         b->buf_size, &b->src[i]);
		if (err == DOCA_SUCCESS)
			err = doca_buf_inventory_buf_get_by_addr(
			        b->inv, b->mmap, bench_dst_bytes(b, i), b->buf_size, &b->dst[i]);
	}
	if (err != DOCA_SUCCESS)
		DOCA_LOG_ERR("Cannot get buffer pair %u: %s", i - 1, doca_error_get_descr(err));
	return err;
}

static doca_error_t bench_memory(struct copy_bench *b)
{
	size_t len = 2 * (size_t)b->nb_pairs * b->buf_size, i;
	doca_error_t err;

	b->region = malloc(len);
	b->src = calloc(b->nb_pairs, sizeof(*b->src));
	b->dst = calloc(b->nb_pairs, sizeof(*b->dst));
	if (b->region == NULL || b->src == NULL || b->dst == NULL)
		return DOCA_ERROR_NO_MEMORY;
	for (i = 0; i < len / 2; i++)
		b->region[i] = b->text != NULL ? (uint8_t)b->text[i % b->buf_size]
		                               : (uint8_t)(i * 7 + i / 251);
	memset(b->region + len / 2, 0, len / 2);
	err = doca_mmap_create(&b->mmap);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_add_dev(b->mmap, b->dev);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_set_permissions(b->mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_set_memrange(b->mmap, b->region, len);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_start(b->mmap);
	if (err == DOCA_SUCCESS)
		err = doca_buf_inventory_create(2 * (size_t)b->nb_pairs, &b->inv);
	if (err == DOCA_SUCCESS)
		err = doca_buf_inventory_start(b->inv);
	return err;
}

doca_error_t bench_open(struct copy_bench *b, const struct sample_config *cfg, uint32_t nb_pairs,
                        size_t buf_size)
{
	uint64_t max_size = 0;
	doca_error_t err;

	memset(b, 0, sizeof(*b));
	b->nb_pairs = nb_pairs;
	b->buf_size = buf_size;
	if (cfg->text[0] != '\0') {
		b->text = cfg->text;
		b->buf_size = strlen(cfg->text);
	}
	err = sample_open_dma_dev(cfg->pci_addr, &b->dev);
	if (err != DOCA_SUCCESS)
		return err;
	err = doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(b->dev), &max_size);
	if (err == DOCA_SUCCESS && b->buf_size > max_size) {
		DOCA_LOG_ERR("A copy of %zu bytes is above this device's max_buf_size (%llu)",
		             b->buf_size, (unsigned long long)max_size);
		err = DOCA_ERROR_INVALID_VALUE;
	}
	if (err == DOCA_SUCCESS)
		err = bench_memory(b);
	if (err == DOCA_SUCCESS)
		err = bench_make_bufs(b);
	if (err == DOCA_SUCCESS)
		err = doca_pe_create(&b->pe);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot set up the copy resources: %s", doca_error_get_descr(err));
		bench_close(b);
	}
	return err;
}

void bench_close(struct copy_bench *b)
{
	uint32_t i;

	for (i = 0; i < b->nb_pairs; i++) { /* either list may be missing (out of memory) */
		if (b->src != NULL && b->src[i] != NULL)
			doca_buf_dec_refcount(b->src[i], NULL);
		if (b->dst != NULL && b->dst[i] != NULL)
			doca_buf_dec_refcount(b->dst[i], NULL);
	}
	if (b->pe != NULL)
		doca_pe_destroy(b->pe);
	if (b->inv != NULL)
		doca_buf_inventory_destroy(b->inv);
	if (b->mmap != NULL)
		doca_mmap_destroy(b->mmap);
	if (b->dev != NULL)
		doca_dev_close(b->dev);
	free(b->src);
	free(b->dst);
	free(b->region);
	memset(b, 0, sizeof(*b));
}

bool bench_pair_ok(const struct copy_bench *b, uint32_t i)
{
	size_t src_len = 0, dst_len = 0;

	if (doca_buf_get_data_len(b->src[i], &src_len) != DOCA_SUCCESS ||
	    doca_buf_get_data_len(b->dst[i], &dst_len) != DOCA_SUCCESS || src_len != dst_len)
		return false;
	return memcmp(bench_src_bytes(b, i), bench_dst_bytes(b, i), src_len) == 0;
}

doca_error_t bench_reset_dst(struct copy_bench *b, uint32_t i)
{
	memset(bench_dst_bytes(b, i), 0, b->buf_size);
	return doca_buf_reset_data_len(b->dst[i]);
}

doca_error_t bench_dma_start(struct copy_bench *b, uint32_t num_tasks,
                             doca_dma_task_memcpy_completion_cb_t done_cb,
                             doca_dma_task_memcpy_completion_cb_t err_cb,
                             doca_ctx_state_changed_callback_t state_cb, void *ctx_user,
                             struct doca_dma **dma)
{
	union doca_data user = { .ptr = ctx_user };
	struct doca_ctx *ctx;
	doca_error_t err = doca_dma_create(b->dev, dma);

	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot create a DMA context: %s", doca_error_get_descr(err));
		return err;
	}
	ctx = doca_dma_as_ctx(*dma);
	err = doca_dma_task_memcpy_set_conf(*dma, done_cb, err_cb, num_tasks);
	if (err == DOCA_SUCCESS)
		err = doca_ctx_set_user_data(ctx, user);
	if (err == DOCA_SUCCESS && state_cb != NULL)
		err = doca_ctx_set_state_changed_cb(ctx, state_cb);
	if (err == DOCA_SUCCESS)
		err = doca_pe_connect_ctx(b->pe, ctx);
	if (err == DOCA_SUCCESS)
		err = doca_ctx_start(ctx);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot start the DMA context: %s", doca_error_get_descr(err));
		doca_dma_destroy(*dma);
		*dma = NULL;
	}
	return err;
}

/* One progress call; sleeps 10 us when nothing happened, as DOCA's samples do. */
bool bench_progress_once(struct doca_pe *pe, uint32_t *idle_spins)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 10000 };

	if (doca_pe_progress(pe) != 0) {
		*idle_spins = 0;
		return true;
	}
	nanosleep(&ts, NULL);
	return ++*idle_spins < IDLE_SPIN_LIMIT;
}

doca_error_t bench_wait_idle(struct copy_bench *b, struct doca_ctx *ctx)
{
	enum doca_ctx_states state = DOCA_CTX_STATE_RUNNING;
	uint32_t spins = 0;

	while (doca_ctx_get_state(ctx, &state) == DOCA_SUCCESS && state != DOCA_CTX_STATE_IDLE)
		if (!bench_progress_once(b->pe, &spins))
			return DOCA_ERROR_TIME_OUT;
	return state == DOCA_CTX_STATE_IDLE ? DOCA_SUCCESS : DOCA_ERROR_BAD_STATE;
}

doca_error_t bench_wait_count(struct copy_bench *b, const uint32_t *done, uint32_t want)
{
	uint32_t spins = 0;

	while (*done < want)
		if (!bench_progress_once(b->pe, &spins))
			return DOCA_ERROR_TIME_OUT;
	return DOCA_SUCCESS;
}

doca_error_t bench_dma_destroy(struct copy_bench *b, struct doca_dma *dma)
{
	struct doca_ctx *ctx = doca_dma_as_ctx(dma);
	doca_error_t err = doca_ctx_stop(ctx);

	if (err == DOCA_ERROR_IN_PROGRESS)
		err = bench_wait_idle(b, ctx);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot stop the DMA context: %s", doca_error_get_descr(err));
		return err;
	}
	return doca_dma_destroy(dma);
}

int sample_bench_main(const char *name, int argc, char **argv, uint32_t nb_pairs, size_t buf_size,
                      doca_error_t (*run)(struct copy_bench *b))
{
	struct sample_config cfg;
	struct copy_bench b;
	doca_error_t err = sample_init(name, argc, argv, false, &cfg);

	if (err != DOCA_SUCCESS)
		return EXIT_FAILURE;
	err = bench_open(&b, &cfg, nb_pairs, buf_size);
	if (err == DOCA_SUCCESS) {
		err = run(&b);
		bench_close(&b);
	}
	sample_fini();
	return err == DOCA_SUCCESS ? EXIT_SUCCESS : EXIT_FAILURE;
}
