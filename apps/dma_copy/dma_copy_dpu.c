/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * doca_dma_copy, DPU side (the Comch server): serves one host, imports its window buffer
 * and moves the file through it window by window with DOCA DMA, each window a pipeline of
 * max_buf_size tasks, several in flight. Memory stays bounded by the window (window_tasks
 * x max_buf_size) whatever the file size. Succeeds only once the receiver has the whole,
 * verified file in place. With NVIDIA's host side it follows NVIDIA's protocol: the file
 * (at most max_buf_size) in one buffer, one STATUS at the end.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "dma_copy.h"

DOCA_LOG_REGISTER(DMA_COPY_DPU);

#define PEER "host"
#define INFLIGHT 16

struct dpu {
	struct dma_copy_cfg *cfg;
	struct doca_dev *dev;
	struct doca_mmap *local, *remote;
	struct doca_buf_inventory *inv;
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_ctx *ctx;
	enum doca_ctx_states state;
	struct dc_chan *srv;
	struct dc_source src;
	struct dc_sink sink;
	uint8_t *buf;         /* the local window */
	uint8_t *host_window; /* the host's window (an address in the host process) */
	uint64_t size, window, done, max_buf, sum;
	double dma_s; /* time spent in DMA pipelines */
	uint32_t inflight;
	doca_error_t err;
	int tmo; /* ms */
	struct dc_progress progress;
	bool nvidia; /* the host side is NVIDIA's application */
};

static void task_done(struct doca_dma_task_memcpy *t, union doca_data tud, union doca_data cud)
{
	struct dpu *d = cud.ptr;
	struct doca_task *task = doca_dma_task_memcpy_as_task(t);
	doca_error_t st = doca_task_get_status(task);

	doca_buf_dec_refcount((struct doca_buf *)doca_dma_task_memcpy_get_src(t), NULL);
	doca_buf_dec_refcount(doca_dma_task_memcpy_get_dst(t), NULL);
	doca_task_free(task);
	d->inflight--;
	if (st != DOCA_SUCCESS && d->err == DOCA_SUCCESS) {
		d->err = st;
		DC_ERR("a DMA task failed: %s (did the host side exit?)", doca_error_get_descr(st));
	}
	if (st == DOCA_SUCCESS) {
		d->done += tud.u64;
		dc_progress_update(&d->progress, d->done);
	}
}

static void state_changed(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
                          enum doca_ctx_states next)
{
	(void)ctx;
	(void)prev;
	((struct dpu *)ud.ptr)->state = next;
}

static doca_error_t dpu_setup_dma(struct dpu *d)
{
	doca_error_t r;

	if ((r = doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(d->dev),
	                                                   &d->max_buf)) ||
	    (r = doca_buf_inventory_create(2 * INFLIGHT, &d->inv)) ||
	    (r = doca_buf_inventory_start(d->inv)) || (r = doca_pe_create(&d->pe)) ||
	    (r = doca_dma_create(d->dev, &d->dma)))
		goto fail;
	d->ctx = doca_dma_as_ctx(d->dma);
	if ((r = doca_ctx_set_state_changed_cb(d->ctx, state_changed)) ||
	    (r = doca_ctx_set_user_data(d->ctx, (union doca_data){ .ptr = d })) ||
	    (r = doca_dma_task_memcpy_set_conf(d->dma, task_done, task_done, INFLIGHT)) ||
	    (r = doca_pe_connect_ctx(d->pe, d->ctx)) || (r = doca_ctx_start(d->ctx)))
		goto fail;
	return DOCA_SUCCESS;
fail:
	DC_ERR("cannot set up DMA: %s", doca_error_get_descr(r));
	return r;
}

/* Submits the @n bytes at @off of the window; DOCA_ERROR_AGAIN when the engine is full. */
static doca_error_t submit_chunk(struct dpu *d, uint64_t off, uint64_t n, bool to_host)
{
	uint8_t *remote = d->host_window + off, *local = d->buf + off;
	struct doca_buf *src = NULL, *dst = NULL;
	struct doca_dma_task_memcpy *t = NULL;
	doca_error_t r;

	r = doca_buf_inventory_buf_get_by_data(d->inv, to_host ? d->local : d->remote,
	                                       to_host ? local : remote, n, &src);
	if (r == DOCA_SUCCESS)
		r = doca_buf_inventory_buf_get_by_addr(d->inv, to_host ? d->remote : d->local,
		                                       to_host ? remote : local, n, &dst);
	if (r == DOCA_SUCCESS)
		r = doca_dma_task_memcpy_alloc_init(d->dma, src, dst, (union doca_data){ .u64 = n },
		                                    &t);
	if (r == DOCA_SUCCESS)
		r = doca_task_submit(doca_dma_task_memcpy_as_task(t));
	if (r == DOCA_SUCCESS) {
		d->inflight++;
		return r;
	}
	if (t != NULL)
		doca_task_free(doca_dma_task_memcpy_as_task(t));
	if (dst != NULL)
		doca_buf_dec_refcount(dst, NULL);
	if (src != NULL)
		doca_buf_dec_refcount(src, NULL);
	return r;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Moves the first @n bytes of the window (host -> DPU, or DPU -> host with @to_host). */
static doca_error_t dpu_pipeline(struct dpu *d, uint64_t n, bool to_host)
{
	uint64_t off = 0;
	double t0 = now_s();
	doca_error_t r;

	while (d->err == DOCA_SUCCESS && (off < n || d->inflight > 0)) {
		while (d->err == DOCA_SUCCESS && off < n && d->inflight < INFLIGHT) {
			uint64_t k = n - off < d->max_buf ? n - off : d->max_buf;

			r = submit_chunk(d, off, k, to_host);
			if (r == DOCA_ERROR_AGAIN || r == DOCA_ERROR_NO_MEMORY)
				break;
			if (r != DOCA_SUCCESS) {
				DC_ERR("cannot submit a DMA task: %s", doca_error_get_descr(r));
				d->err = r;
				break;
			}
			off += k;
		}
		if (doca_pe_progress(d->pe) == 0 && d->inflight > 0)
			nanosleep(&(struct timespec){ 0, 1000 }, NULL);
	}
	while (d->inflight > 0) /* a failure stops the context; collect what it flushes */
		doca_pe_progress(d->pe);
	d->dma_s += now_s() - t0;
	return d->err;
}

/* DIRECTION: learns the host's side of things (and whether it is odma's), checks our file,
 * proposes the window. */
static doca_error_t dpu_direction(struct dpu *d)
{
	struct dma_copy_cfg *cfg = d->cfg;
	struct dc_direction theirs, mine = { .type = DC_MSG_DIRECTION,
		                             .file_in_host = !cfg->have_file,
		                             .mark = { DC_MARK_0, DC_MARK_1, DC_MARK_VERSION } };
	uint64_t tasks = (uint64_t)cfg->window_tasks;
	doca_error_t r;

	if ((r = dc_expect(d->srv, DC_MSG_DIRECTION, &theirs, DC_DIRECTION_LEN, d->tmo, PEER)))
		return r;
	d->nvidia = !(theirs.mark[0] == DC_MARK_0 && theirs.mark[1] == DC_MARK_1 &&
	              theirs.mark[2] == DC_MARK_VERSION);
	dc_chan_set_nvidia(d->srv, d->nvidia);
	if (d->nvidia)
		DOCA_LOG_INFO(
		        "the host side is NVIDIA's DMA Copy application: its protocol, one buffer");
	if ((theirs.file_in_host != 0) == cfg->have_file) {
		DC_ERR("exactly one side must have the file (host: %s, DPU: %s)",
		       theirs.file_in_host ? "yes" : "no", cfg->have_file ? "yes" : "no");
		return DOCA_ERROR_INVALID_VALUE;
	}
	d->size = cfg->have_file ? cfg->file_size : dc_be64(theirs.size_be);
	if (d->nvidia && (d->size == 0 || d->size > d->max_buf)) {
		DC_ERR("the host side runs NVIDIA's DMA Copy application, which moves a file "
		       "in one DMA task: 1 to %llu bytes (max_buf_size); this file has %llu",
		       (unsigned long long)d->max_buf, (unsigned long long)d->size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	d->window = d->max_buf * tasks < d->size ? d->max_buf * tasks : d->size;
	if (d->window > DMA_COPY_MAX_WINDOW)
		d->window = DMA_COPY_MAX_WINDOW;
	if (d->nvidia)
		d->window = d->size;
	/* The destination is checked before any byte moves; the sender's file is opened. */
	r = cfg->have_file ? dc_source_open(&d->src, cfg->file, d->size)
	                   : dc_sink_open(&d->sink, cfg->file);
	if (r != DOCA_SUCCESS)
		return r;
	mine.size_be = dc_be64(cfg->have_file ? d->size : 0);
	mine.window = d->window;
	return dc_send(d->srv, &mine, d->nvidia ? DC_DIRECTION_LEN : DC_DIRECTION_X_LEN, PEER);
}

/* Maps the local window buffer. */
static doca_error_t dpu_map_local(struct dpu *d)
{
	doca_error_t r;

	if ((d->buf = dc_alloc(d->window)) == NULL)
		return DOCA_ERROR_NO_MEMORY;
	if ((r = doca_mmap_create(&d->local)) ||
	    (r = doca_mmap_set_memrange(d->local, d->buf, d->window)) ||
	    (r = doca_mmap_set_permissions(d->local, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE)) ||
	    (r = doca_mmap_add_dev(d->local, d->dev)) || (r = doca_mmap_start(d->local))) {
		DC_ERR("cannot map the local window: %s", doca_error_get_descr(r));
		return r;
	}
	return DOCA_SUCCESS;
}

/* Imports the host's buffer: @len bytes at @addr (NULL: where the export starts). */
static doca_error_t dpu_import_desc(struct dpu *d, const void *desc, size_t desc_len, uint64_t addr,
                                    uint64_t len)
{
	size_t rlen;
	void *raddr;
	doca_error_t r = doca_mmap_create_from_export(NULL, desc, desc_len, d->dev, &d->remote);

	if (r == DOCA_SUCCESS)
		r = doca_mmap_get_memrange(d->remote, &raddr, &rlen);
	if (r != DOCA_SUCCESS) {
		DC_ERR("cannot import the host buffer: %s", doca_error_get_descr(r));
		return r;
	}
	if (addr == 0)
		addr = (uint64_t)(uintptr_t)raddr;
	if (addr < (uint64_t)(uintptr_t)raddr || len > rlen ||
	    addr - (uint64_t)(uintptr_t)raddr > rlen - len) {
		DC_ERR("the host exported %zu bytes at %p; %llu bytes at 0x%llx do not fit in them",
		       rlen, raddr, (unsigned long long)len, (unsigned long long)addr);
		return DOCA_ERROR_INVALID_VALUE;
	}
	d->host_window = (uint8_t *)(uintptr_t)addr;
	return dpu_map_local(d);
}

/* X_EXPORT: imports the host's window buffer and sets up ours. */
static doca_error_t dpu_import(struct dpu *d)
{
	uint8_t msg[DC_MAX_MSG];
	struct dc_export *e = (struct dc_export *)msg;
	uint32_t len;
	doca_error_t r;

	if ((r = dc_expect_upto(d->srv, DC_MSG_X_EXPORT, msg, sizeof(*e), sizeof(msg), &len, d->tmo,
	                        PEER)))
		return r;
	if (e->window != d->window || e->desc_len != len - sizeof(*e) ||
	    (d->window > 0) != (e->desc_len > 0)) {
		DC_ERR("malformed export message from the host (window %llu, wanted %llu)",
		       (unsigned long long)e->window, (unsigned long long)d->window);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (d->window == 0) /* an empty file: nothing to map */
		return DOCA_SUCCESS;
	return dpu_import_desc(d, e + 1, e->desc_len, 0, d->window);
}

/*
 * NVIDIA's protocol: EXPORT_DESCRIPTOR names the host buffer holding (or receiving) the whole
 * file; one pipeline moves it; STATUS tells the host it is done.
 */
static doca_error_t dpu_nvidia(struct dpu *d)
{
	uint8_t msg[DC_MAX_MSG];
	struct dc_export_descriptor *e = (struct dc_export_descriptor *)msg;
	struct dc_nv_status st = { .type = DC_MSG_STATUS, .is_success = 1 };
	uint64_t desc_len;
	uint32_t len;
	doca_error_t r;

	if ((r = dc_expect_upto(d->srv, DC_MSG_EXPORT_DESCRIPTOR, msg, sizeof(*e), sizeof(msg),
	                        &len, d->tmo, PEER)))
		return r;
	desc_len = dc_be64(e->desc_len_be);
	if (desc_len == 0 || desc_len != len - sizeof(*e)) {
		DC_ERR("malformed export descriptor message from the host (%llu descriptor "
		       "bytes in a message of %u)",
		       (unsigned long long)desc_len, len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((r = dpu_import_desc(d, e + 1, (size_t)desc_len, dc_be64(e->host_addr_be), d->size)))
		return r;
	if (d->cfg->have_file) {
		if ((r = dc_source_read(&d->src, 0, d->buf, d->size)) ||
		    (r = dpu_pipeline(d, d->size, true)))
			return r;
		return dc_send(d->srv, &st, sizeof(st), PEER);
	}
	if ((r = dpu_pipeline(d, d->size, false)) ||
	    (r = dc_sink_write(&d->sink, 0, d->buf, d->size)) || (r = dc_sink_commit(&d->sink)))
		return r;
	dc_confirm(d->srv, &st, sizeof(st), &d->sink, "complete", PEER);
	return DOCA_SUCCESS;
}

/* Host -> DPU: for each window the host filled, DMA it here and store it. */
static doca_error_t dpu_recv_windows(struct dpu *d)
{
	for (uint64_t off = 0; off < d->size;) {
		uint64_t n = d->size - off < d->window ? d->size - off : d->window;
		struct dc_chunk c;
		doca_error_t r;

		if ((r = dc_expect(d->srv, DC_MSG_X_CHUNK, &c, sizeof(c), d->tmo, PEER)) ||
		    (r = dc_chunk_check(&c, off, n, PEER)) || (r = dpu_pipeline(d, n, false)) ||
		    (r = dc_sink_write(&d->sink, off, d->buf, n)))
			return r;
		d->sum = dc_checksum_update(d->sum, d->buf, n);
		if ((r = dc_send(d->srv, &c, sizeof(c), PEER)))
			return r;
		off += n;
	}
	return DOCA_SUCCESS;
}

/* DPU -> host: read a window of the file, DMA it into the host's, wait until it is stored. */
static doca_error_t dpu_send_windows(struct dpu *d)
{
	for (uint64_t off = 0; off < d->size;) {
		uint64_t n = d->size - off < d->window ? d->size - off : d->window;
		struct dc_chunk c = { .type = DC_MSG_X_CHUNK, .offset = off, .len = n };
		doca_error_t r;

		if ((r = dc_source_read(&d->src, off, d->buf, n)))
			return r;
		d->sum = dc_checksum_update(d->sum, d->buf, n);
		if ((r = dpu_pipeline(d, n, true)) || (r = dc_send(d->srv, &c, sizeof(c), PEER)) ||
		    (r = dc_expect(d->srv, DC_MSG_X_CHUNK, &c, sizeof(c), d->tmo, PEER)) ||
		    (r = dc_chunk_check(&c, off, n, PEER)))
			return r;
		off += n;
	}
	return DOCA_SUCCESS;
}

static doca_error_t dpu_run(struct dpu *d)
{
	struct dma_copy_cfg *cfg = d->cfg;
	doca_error_t r;

	d->dev = dc_open_dev(cfg->pci, true);
	if (d->dev == NULL)
		return DOCA_ERROR_NOT_FOUND;
	if ((r = dpu_setup_dma(d)) ||
	    (r = dc_chan_listen(d->dev, cfg->rep_pci, cfg->server_name, &d->srv)))
		return r;
	DOCA_LOG_INFO("waiting for the host side on Comch server \"%s\"", cfg->server_name);
	if ((r = dc_chan_accept(d->srv, d->tmo)) || (r = dpu_direction(d)))
		return r;
	if (d->nvidia)
		return dpu_nvidia(d);
	if ((r = dpu_import(d)))
		return r;
	dc_progress_start(&d->progress, cfg, d->size);
	r = cfg->have_file ? dpu_send_windows(d) : dpu_recv_windows(d);
	if (r == DOCA_SUCCESS)
		r = dc_finish(d->srv, &d->sink, cfg->have_file, d->sum, d->tmo, PEER);
	if (r == DOCA_SUCCESS)
		dc_progress_end(&d->progress, d->size);
	else if (d->progress.shown)
		fputc('\n', stderr); /* the error line starts a line of its own */
	return r;
}

static void dpu_teardown(struct dpu *d)
{
	if (d->ctx != NULL && d->state != DOCA_CTX_STATE_IDLE) {
		doca_ctx_stop(d->ctx);
		while (d->state != DOCA_CTX_STATE_IDLE)
			doca_pe_progress(d->pe);
	}
	if (d->dma != NULL)
		doca_dma_destroy(d->dma);
	if (d->pe != NULL)
		doca_pe_destroy(d->pe);
	if (d->inv != NULL)
		doca_buf_inventory_destroy(d->inv);
	if (d->remote != NULL)
		doca_mmap_destroy(d->remote);
	if (d->local != NULL)
		doca_mmap_destroy(d->local);
	dc_free(d->buf, d->window);
	if (d->dev != NULL)
		doca_dev_close(d->dev);
}

doca_error_t dma_copy_dpu(struct dma_copy_cfg *cfg)
{
	struct dpu d = { .cfg = cfg,
		         .src.fd = -1,
		         .sink.fd = -1,
		         .sum = DC_CHECKSUM_INIT,
		         .tmo = dc_timeout_ms(cfg) };
	double t0 = now_s(), s;
	doca_error_t r;

	r = dpu_run(&d);
	s = now_s() - t0;
	if (r != DOCA_SUCCESS)
		dc_send_failure(d.srv);
	dc_chan_close(d.srv, 2000); /* the host closes once it has the last message */
	dc_sink_abort(&d.sink);     /* nothing left once committed */
	dc_source_close(&d.src);
	if (r == DOCA_SUCCESS && d.size > 0)
		DOCA_LOG_INFO("DMA moved %llu bytes %s in %.3f ms (%.2f GB/s, tasks of up to %llu "
		              "bytes, windows of %llu bytes)",
		              (unsigned long long)d.size,
		              cfg->have_file ? "DPU -> host" : "host -> DPU", d.dma_s * 1e3,
		              d.dma_s > 0 ? (double)d.size / d.dma_s / 1e9 : 0.0,
		              (unsigned long long)d.max_buf, (unsigned long long)d.window);
	if (r == DOCA_SUCCESS)
		DOCA_LOG_INFO("%s %llu bytes %s the host in %.3f s (%.1f MiB/s, "
		              "including the wait for the host)",
		              cfg->have_file ? "sent" : "received", (unsigned long long)d.size,
		              cfg->have_file ? "to" : "from", s,
		              s > 0 ? (double)d.size / s / 1048576.0 : 0.0);
	dpu_teardown(&d);
	return r;
}
