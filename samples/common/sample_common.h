/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * Shared helpers of the odma samples: the usual sample flags through doca_argp, opening a
 * DMA-capable device, and one "copy bench" (device, mmap, inventory, PE and N source /
 * destination buffer pairs) that the progress-engine samples build on.
 *
 * Everything here uses the public DOCA API only, so each sample builds unchanged against
 * odma or against NVIDIA DOCA.
 */
#ifndef SAMPLE_COMMON_H_
#define SAMPLE_COMMON_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_argp.h>
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#define SAMPLE_MAX_TEXT 4096 /* longest -t/--text, as in DOCA's samples */

/* What the command line (or a -j JSON file) asked for. */
struct sample_config {
	char pci_addr[DOCA_DEVINFO_PCI_ADDR_SIZE]; /* -p; empty: first memcpy-capable device */
	char text[SAMPLE_MAX_TEXT + 1];            /* -t; empty when not given */
	uint64_t size;                             /* --size; 0 when not given */
};

/*
 * Sets up logging (standard backend, SDK messages at WARNING on stderr) and parses the
 * sample flags: -p/--pci-addr, -t/--text, --size (only if with_size), plus argp's own
 * -h, -v, -l, --sdk-log-level and -j. Fills cfg (defaults first).
 */
doca_error_t sample_init(const char *name, int argc, char **argv, bool with_size,
                         struct sample_config *cfg);

/* Logging as sample_init sets it up: standard backend, SDK messages at WARNING on stderr. */
doca_error_t sample_setup_logging(void);

/* Registers one string flag with doca_argp (short_name may be NULL). */
doca_error_t sample_add_string_param(const char *short_name, const char *long_name,
                                     const char *args, const char *descr, doca_argp_param_cb_t cb);

#define SAMPLE_MAX_PATH 4096

/* The flags of the host/DPU pair (dma_copy_host, dma_copy_dpu; the DPU side has no text). */
struct sample_xfer_config {
	char pci_addr[DOCA_DEVINFO_PCI_ADDR_SIZE]; /* -p */
	char text[SAMPLE_MAX_TEXT + 1];            /* -t */
	char desc_path[SAMPLE_MAX_PATH];           /* -d: the export descriptor file */
	char buf_path[SAMPLE_MAX_PATH];            /* -b: the "addr\nlen\n" file */
};

/*
 * doca_argp callbacks for -p, -t, -d and -b that fill a struct sample_xfer_config; each
 * refuses (DOCA_ERROR_INVALID_VALUE, logged) an empty value or one too long for its field.
 */
doca_error_t sample_xfer_pci_cb(void *param, void *config);
doca_error_t sample_xfer_text_cb(void *param, void *config);
doca_error_t sample_xfer_desc_cb(void *param, void *config);
doca_error_t sample_xfer_buf_cb(void *param, void *config);

/* Releases the argument parser; call once before exiting. */
void sample_fini(void);

/* Opens the device at pci_addr (or, when empty, the first one with the memcpy task). */
doca_error_t sample_open_dma_dev(const char *pci_addr, struct doca_dev **dev);

/*
 * A copy bench: nb_pairs source buffers of buf_size bytes each (data segment = whole buffer)
 * and as many empty destination buffers, in one mmap, on the device -p names. Each source
 * holds the -t text when one was given (buf_size is then its length), else a pattern.
 */
struct copy_bench {
	struct doca_dev *dev;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	struct doca_pe *pe;
	uint8_t *region;
	const char *text; /* source contents (repeated), or NULL for a generated pattern */
	size_t buf_size;
	uint32_t nb_pairs;
	struct doca_buf **src;
	struct doca_buf **dst;
};

doca_error_t bench_open(struct copy_bench *b, const struct sample_config *cfg, uint32_t nb_pairs,
                        size_t buf_size);
void bench_close(struct copy_bench *b);
uint8_t *bench_src_bytes(const struct copy_bench *b, uint32_t i);
uint8_t *bench_dst_bytes(const struct copy_bench *b, uint32_t i);
/* True when destination i holds exactly the bytes of source i (data_len included). */
bool bench_pair_ok(const struct copy_bench *b, uint32_t i);
/* Empties destination i so the pair can be copied again. */
doca_error_t bench_reset_dst(struct copy_bench *b, uint32_t i);

/*
 * Creates a DMA context on b's device with a pool of num_tasks memcpy tasks and the given
 * callbacks (state_cb may be NULL), sets ctx_user as its user data, connects it to b's PE and
 * starts it.
 */
doca_error_t bench_dma_start(struct copy_bench *b, uint32_t num_tasks,
                             doca_dma_task_memcpy_completion_cb_t done_cb,
                             doca_dma_task_memcpy_completion_cb_t err_cb,
                             doca_ctx_state_changed_callback_t state_cb, void *ctx_user,
                             struct doca_dma **dma);

/* Stops (progressing until IDLE) and destroys a DMA context. */
doca_error_t bench_dma_destroy(struct copy_bench *b, struct doca_dma *dma);

/* Progresses b's PE until ctx reaches IDLE (or max_spins progress calls did nothing). */
doca_error_t bench_wait_idle(struct copy_bench *b, struct doca_ctx *ctx);

/* Progresses b's PE until *done >= want. */
doca_error_t bench_wait_count(struct copy_bench *b, const uint32_t *done, uint32_t want);
/*
 * One progress call; after an idle one, sleeps 10 us (as DOCA's samples do). Returns false
 * once about 10 s have passed without any progress (1000000 idle calls).
 */
bool bench_progress_once(struct doca_pe *pe, uint32_t *idle_spins);

/*
 * The whole main() of a progress-engine sample: parses the sample flags (as sample_init with
 * no --size), opens a bench of nb_pairs buffer pairs of buf_size bytes, calls run on it, then
 * closes the bench and the parser. Returns EXIT_SUCCESS when run returned DOCA_SUCCESS.
 */
int sample_bench_main(const char *name, int argc, char **argv, uint32_t nb_pairs, size_t buf_size,
                      doca_error_t (*run)(struct copy_bench *b));

#endif /* SAMPLE_COMMON_H_ */
