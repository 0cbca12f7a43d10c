/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * doca_dma_copy: copies a file between the host side and the DPU side (docs/host-dpu.md).
 *
 * Layers: dma_copy_chan.[ch] carries messages over DOCA Comch (the DPU side is the server);
 * dma_copy_host.c / dma_copy_dpu.c run the protocol of dma_copy_proto.h on top of it (NVIDIA's
 * DMA Copy application's messages, and odma's extension when both sides are odma's); this
 * header's helpers (files in bounded windows, checksums, error reasons, cleanup on signals)
 * are shared by both. The properties of docs/host-dpu.md ("doca_dma_copy: failure
 * behaviour") live above the channel, so they survive a change of transport.
 */
#ifndef DMA_COPY_H_
#define DMA_COPY_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <doca_error.h>
#include <doca_log.h>

#include "dma_copy_chan.h"
#include "dma_copy_proto.h"

#define DMA_COPY_MAX_PATH 4096
#define DMA_COPY_NAME_MAX 120 /* a Comch server name, with its NUL */
#define DMA_COPY_DEFAULT_TIMEOUT_S 60
#define DMA_COPY_DEFAULT_WINDOW_TASKS 16
#define DMA_COPY_MAX_WINDOW_TASKS 256
#define DMA_COPY_MAX_WINDOW (1ULL << 30) /* a host refuses a larger window from the DPU */
/* With NVIDIA's DPU side a host holds the whole file in one buffer: at most this much. */
#define DMA_COPY_MAX_NV_FILE DMA_COPY_MAX_WINDOW

struct dma_copy_cfg {
	char file[DMA_COPY_MAX_PATH];
	char pci[32];
	char rep_pci[32];
	char server_name[DMA_COPY_NAME_MAX]; /* the Comch server (default NVIDIA's name) */
	bool is_dpu;
	bool have_file; /* the file exists on this side: this side sends */
	uint64_t file_size;
	int timeout_s;    /* bound on every wait for the peer; 0: none */
	int window_tasks; /* DPU: max_buf_size tasks per window */
	bool quiet;       /* --quiet: no progress line */
};

/*
 * The progress of a transfer on stderr: "received 1.2 GiB of 4.0 GiB (30%), 1.1 GiB/s", at
 * most once a second, rewritten in place, and its final figures at the end. Only when stderr
 * is a terminal, the transfer is of DC_PROGRESS_MIN bytes or more, and --quiet is not given.
 */
#define DC_PROGRESS_MIN (16ULL << 20)
struct dc_progress {
	bool on;
	bool shown;
	const char *verb; /* "sent" or "received" */
	uint64_t total;
	double t0, last;
};
void dc_progress_start(struct dc_progress *p, const struct dma_copy_cfg *cfg, uint64_t total);
void dc_progress_update(struct dc_progress *p, uint64_t done);
void dc_progress_end(struct dc_progress *p, uint64_t done);

/* The wait bound in milliseconds (0: none). */
static inline int dc_timeout_ms(const struct dma_copy_cfg *cfg)
{
	return cfg->timeout_s > 0 ? cfg->timeout_s * 1000 : 0;
}

/* 64-bit FNV-1a, the end-to-end checksum of a copied file, fed window by window. */
#define DC_CHECKSUM_INIT 0xcbf29ce484222325ULL
uint64_t dc_checksum_update(uint64_t h, const void *data, size_t len);

/*
 * Why this side failed, in one line for the peer's log: the first DC_ERR of the run (later
 * errors are its consequences).
 */
void dc_why_set(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *dc_why(void);
#define DC_ERR(...)                                                                                \
	do {                                                                                       \
		DOCA_LOG_ERR(__VA_ARGS__);                                                         \
		dc_why_set(__VA_ARGS__);                                                           \
	} while (0)

/*
 * Files this process created and removes if it dies of SIGINT, SIGTERM or SIGHUP (the
 * handler unlinks them, then lets the signal end the process). A slot names a path, the
 * device and inode it must still have (0/0: any), or NULL to forget it.
 */
enum dc_cleanup_slot { DC_CLEANUP_TEMP, DC_CLEANUP_SLOTS };
void dc_cleanup_set(enum dc_cleanup_slot slot, const char *path, dev_t dev, ino_t ino);
/* Ignores SIGPIPE and installs the cleanup handler. */
void dc_signals_install(void);

struct doca_dev;
/*
 * Opens the device with PCI address @pci (with @need_dma: only one that can run DMA memcpy
 * tasks). Logs the reason and returns NULL when none matches.
 */
struct doca_dev *dc_open_dev(const char *pci, bool need_dma);

/* The sender's file, read window by window. */
struct dc_source {
	int fd;
	uint64_t size;
	const char *path;
};
doca_error_t dc_source_open(struct dc_source *s, const char *path, uint64_t size);
doca_error_t dc_source_read(struct dc_source *s, uint64_t off, uint8_t *buf, uint64_t n);
void dc_source_close(struct dc_source *s);

/*
 * The receiver's file: an unnamed file (O_TMPFILE) in the destination's directory, created
 * before the transfer (so an unwritable destination fails before any byte moves), written
 * window by window, and linked under the destination's name at the end without replacing
 * anything: nothing is visible before, whatever ends the process (SIGKILL included). Where
 * the file system has no O_TMPFILE (logged), a named temporary file next to the destination
 * instead, renamed at the end and removed on every failure and on SIGINT/SIGTERM/SIGHUP.
 */
struct dc_sink {
	int fd;
	const char *path;
	char tmp[DMA_COPY_MAX_PATH + 16]; /* the named fallback's path; "" for an unnamed file */
};
doca_error_t dc_sink_open(struct dc_sink *s, const char *path);
doca_error_t dc_sink_write(struct dc_sink *s, uint64_t off, const uint8_t *buf, uint64_t n);
doca_error_t dc_sink_commit(struct dc_sink *s);
void dc_sink_abort(struct dc_sink *s);

/* Anonymous memory for a window of @size bytes (at least one page). */
uint8_t *dc_alloc(uint64_t size);
void dc_free(uint8_t *p, uint64_t size);

/*
 * Session helpers over the channel, for both sides (@peer names the other side in logs).
 * dc_expect receives one message of @type with exactly @len bytes (whole messages, type
 * first); a failure from the peer (odma's X_STATUS with its reason, or NVIDIA's STATUS 0) is
 * logged and gives CONNECTION_ABORTED; a timeout, a lost peer or a busy server are logged too.
 */
doca_error_t dc_expect(struct dc_chan *c, uint32_t type, void *msg, uint32_t len, int timeout_ms,
                       const char *peer);
/* The same for a message of @min..@max bytes (*@len gets its length). */
doca_error_t dc_expect_upto(struct dc_chan *c, uint32_t type, void *msg, uint32_t min, uint32_t max,
                            uint32_t *len, int timeout_ms, const char *peer);
/* Tells the peer this side failed: X_STATUS with dc_why() to odma, STATUS 0 to NVIDIA's. */
void dc_send_failure(struct dc_chan *c);
/*
 * Sends one message. A lost peer is logged (naming @peer), with the reason it gave before
 * closing if any: CONNECTION_ABORTED (it failed), IN_USE (busy) or CONNECTION_RESET.
 */
doca_error_t dc_send(struct dc_chan *c, const void *msg, uint32_t len, const char *peer);

/*
 * A receiver's last answer @msg (@len bytes) once its file @sink is in place (@state: "complete"
 * or "complete and verified"): if it cannot be sent, a warning says the file is there anyway;
 * the copy succeeded on this side.
 */
void dc_confirm(struct dc_chan *c, const void *msg, uint32_t len, const struct dc_sink *sink,
                const char *state, const char *peer);
/* Checks that a CHUNK from @peer names the window the protocol expects next (@off, @n bytes). */
doca_error_t dc_chunk_check(const struct dc_chunk *c, uint64_t off, uint64_t n, const char *peer);
/*
 * The end of a copy: the sender (@sender) gives its checksum @sum and waits for the
 * receiver's answer; the receiver compares @sum with the sender's, puts @sink in place and
 * answers (once the file is in place it succeeds even if the answer cannot be sent).
 */
doca_error_t dc_finish(struct dc_chan *c, struct dc_sink *sink, bool sender, uint64_t sum,
                       int timeout_ms, const char *peer);

doca_error_t dma_copy_host(struct dma_copy_cfg *cfg);
doca_error_t dma_copy_dpu(struct dma_copy_cfg *cfg);

#endif
