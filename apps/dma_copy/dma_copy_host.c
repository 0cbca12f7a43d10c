/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * doca_dma_copy, host side (the Comch client): says which side has the file, exports one
 * window-sized buffer (read-only when sending, read-write when receiving) and streams the
 * file through it window by window; the DPU moves the bytes. Memory stays bounded by the
 * window whatever the file size. Succeeds only once the receiver has the whole, verified
 * file in place. With NVIDIA's DPU side it follows NVIDIA's protocol instead: one buffer
 * holding the whole file, one STATUS at the end.
 */
#include <string.h>

#include <doca_dev.h>
#include <doca_log.h>
#include <doca_mmap.h>

#include "dma_copy.h"

DOCA_LOG_REGISTER(DMA_COPY_HOST);

#define PEER "DPU"

struct host {
	struct dma_copy_cfg *cfg;
	struct doca_dev *dev;
	struct doca_mmap *mmap;
	struct dc_chan *chan;
	struct dc_source src;
	struct dc_sink sink;
	uint8_t *buf;
	uint64_t size, window, sum;
	int tmo; /* ms */
	struct dc_progress progress;
	bool nvidia; /* the DPU side is NVIDIA's application */
};

static bool marked(const struct dc_direction *d)
{
	return d->mark[0] == DC_MARK_0 && d->mark[1] == DC_MARK_1 && d->mark[2] == DC_MARK_VERSION;
}

/* Exchanges DIRECTION: the file's size whichever side holds it, the DPU's window, and
 * whether the DPU side is odma's (extended protocol) or NVIDIA's. */
static doca_error_t host_direction(struct host *h)
{
	struct dma_copy_cfg *cfg = h->cfg;
	struct dc_direction mine = { .type = DC_MSG_DIRECTION,
		                     .file_in_host = cfg->have_file,
		                     .mark = { DC_MARK_0, DC_MARK_1, DC_MARK_VERSION },
		                     .size_be = dc_be64(cfg->have_file ? cfg->file_size : 0) };
	struct dc_direction theirs = { 0 };
	uint32_t len;
	doca_error_t r;

	if ((r = dc_send(h->chan, &mine, DC_DIRECTION_LEN, PEER)) ||
	    (r = dc_expect_upto(h->chan, DC_MSG_DIRECTION, &theirs, DC_DIRECTION_LEN,
	                        DC_DIRECTION_X_LEN, &len, h->tmo, PEER)))
		return r;
	h->nvidia = !(len == DC_DIRECTION_X_LEN && marked(&theirs));
	dc_chan_set_nvidia(h->chan, h->nvidia);
	if (h->nvidia)
		DOCA_LOG_INFO(
		        "the DPU side is NVIDIA's DMA Copy application: its protocol, one buffer");
	if ((theirs.file_in_host != 0) != cfg->have_file) {
		DC_ERR("exactly one side must have the file (host: %s, DPU: %s)",
		       cfg->have_file ? "yes" : "no", theirs.file_in_host ? "no" : "yes");
		return DOCA_ERROR_INVALID_VALUE;
	}
	h->size = cfg->have_file ? cfg->file_size : dc_be64(theirs.size_be);
	h->window = h->nvidia ? h->size : theirs.window;
	if (h->nvidia && h->size == 0) {
		DC_ERR("NVIDIA's DMA Copy application moves a file in one DMA task; "
		       "it cannot move an empty file");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* NVIDIA's protocol: one buffer for the whole file, its size said by the peer */
	if (h->nvidia && h->size > DMA_COPY_MAX_NV_FILE) {
		DC_ERR("the file is %llu bytes; with NVIDIA's DMA Copy application on the DPU side "
		       "the host holds the whole file in one buffer, at most %llu bytes: refused "
		       "before allocating it (copy it with odma's DPU side, which streams it)",
		       (unsigned long long)h->size, (unsigned long long)DMA_COPY_MAX_NV_FILE);
		return DOCA_ERROR_TOO_BIG;
	}
	if ((h->size > 0) != (h->window > 0) || h->window > h->size ||
	    (!h->nvidia && h->window > DMA_COPY_MAX_WINDOW)) {
		DC_ERR("the DPU side proposed a window of %llu bytes for a file of %llu bytes",
		       (unsigned long long)h->window, (unsigned long long)h->size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

/* Maps and exports the window buffer; *@desc / *@dlen get the descriptor. */
static doca_error_t host_map(struct host *h, const void **desc, size_t *dlen)
{
	doca_error_t r;

	if ((h->buf = dc_alloc(h->window)) == NULL)
		return DOCA_ERROR_NO_MEMORY;
	if ((r = doca_mmap_create(&h->mmap)) ||
	    (r = doca_mmap_set_memrange(h->mmap, h->buf, h->window)) ||
	    (r = doca_mmap_set_permissions(h->mmap, h->cfg->have_file
	                                                    ? DOCA_ACCESS_FLAG_PCI_READ_ONLY
	                                                    : DOCA_ACCESS_FLAG_PCI_READ_WRITE)) ||
	    (r = doca_mmap_add_dev(h->mmap, h->dev)) || (r = doca_mmap_start(h->mmap)) ||
	    (r = doca_mmap_export_pci(h->mmap, h->dev, desc, dlen))) {
		DC_ERR("cannot export the host buffer: %s", doca_error_get_descr(r));
		return r;
	}
	return DOCA_SUCCESS;
}

/* Exports the window buffer (none for an empty file) and sends X_EXPORT. */
static doca_error_t host_export(struct host *h)
{
	uint8_t msg[DC_MAX_MSG];
	struct dc_export *e = (struct dc_export *)msg;
	const void *desc = NULL;
	size_t dlen = 0;
	doca_error_t r;

	if (h->window > 0 && (r = host_map(h, &desc, &dlen)))
		return r;
	if (dlen > sizeof(msg) - sizeof(*e)) {
		DC_ERR("export descriptor of %zu bytes does not fit a control message", dlen);
		return DOCA_ERROR_TOO_BIG;
	}
	*e = (struct dc_export){ .type = DC_MSG_X_EXPORT,
		                 .window = h->window,
		                 .desc_len = (uint32_t)dlen };
	if (dlen)
		memcpy(e + 1, desc, dlen);
	return dc_send(h->chan, msg, (uint32_t)(sizeof(*e) + dlen), PEER);
}

/*
 * NVIDIA's protocol: one buffer holding the whole file, EXPORT_DESCRIPTOR with its address,
 * then the DPU's STATUS; the receiver writes the file once the DPU says it is done.
 */
static doca_error_t host_nvidia(struct host *h)
{
	uint8_t msg[DC_MAX_MSG];
	struct dc_export_descriptor *e = (struct dc_export_descriptor *)msg;
	struct dc_nv_status st;
	const void *desc = NULL;
	size_t dlen = 0;
	doca_error_t r;

	if ((r = host_map(h, &desc, &dlen)))
		return r;
	if (h->cfg->have_file) {
		if ((r = dc_source_read(&h->src, 0, h->buf, h->size)))
			return r;
	}
	if (dlen > sizeof(msg) - sizeof(*e)) {
		DC_ERR("export descriptor of %zu bytes does not fit a control message", dlen);
		return DOCA_ERROR_TOO_BIG;
	}
	*e = (struct dc_export_descriptor){ .type = DC_MSG_EXPORT_DESCRIPTOR,
		                            .host_addr_be = dc_be64((uint64_t)(uintptr_t)h->buf),
		                            .desc_len_be = dc_be64(dlen) };
	memcpy(e + 1, desc, dlen);
	if ((r = dc_send(h->chan, msg, (uint32_t)(sizeof(*e) + dlen), PEER)) ||
	    (r = dc_expect(h->chan, DC_MSG_STATUS, &st, sizeof(st), h->tmo, PEER)))
		return r;
	if (h->cfg->have_file)
		return DOCA_SUCCESS;
	if ((r = dc_sink_write(&h->sink, 0, h->buf, h->size)))
		return r;
	return dc_sink_commit(&h->sink);
}

/* Sending: fill the window, tell the DPU, wait until it has moved it. */
static doca_error_t host_send_windows(struct host *h)
{
	for (uint64_t off = 0; off < h->size;) {
		uint64_t n = h->size - off < h->window ? h->size - off : h->window;
		struct dc_chunk c = { .type = DC_MSG_X_CHUNK, .offset = off, .len = n };
		doca_error_t r;

		if ((r = dc_source_read(&h->src, off, h->buf, n)))
			return r;
		h->sum = dc_checksum_update(h->sum, h->buf, n);
		if ((r = dc_send(h->chan, &c, sizeof(c), PEER)) ||
		    (r = dc_expect(h->chan, DC_MSG_X_CHUNK, &c, sizeof(c), h->tmo, PEER)) ||
		    (r = dc_chunk_check(&c, off, n, PEER)))
			return r;
		off += n;
		dc_progress_update(&h->progress, off);
	}
	return DOCA_SUCCESS;
}

/* Receiving: wait until the DPU has filled the window, store it, hand the window back. */
static doca_error_t host_recv_windows(struct host *h)
{
	for (uint64_t off = 0; off < h->size;) {
		uint64_t n = h->size - off < h->window ? h->size - off : h->window;
		struct dc_chunk c;
		doca_error_t r;

		if ((r = dc_expect(h->chan, DC_MSG_X_CHUNK, &c, sizeof(c), h->tmo, PEER)) ||
		    (r = dc_chunk_check(&c, off, n, PEER)) ||
		    (r = dc_sink_write(&h->sink, off, h->buf, n)))
			return r;
		h->sum = dc_checksum_update(h->sum, h->buf, n);
		if ((r = dc_send(h->chan, &c, sizeof(c), PEER)))
			return r;
		off += n;
		dc_progress_update(&h->progress, off);
	}
	return DOCA_SUCCESS;
}

static doca_error_t host_run(struct host *h)
{
	struct dma_copy_cfg *cfg = h->cfg;
	doca_error_t r;

	h->dev = dc_open_dev(cfg->pci, false);
	if (h->dev == NULL)
		return DOCA_ERROR_NOT_FOUND;
	if ((r = dc_chan_connect(h->dev, cfg->server_name, h->tmo, &h->chan)) ||
	    (r = host_direction(h)))
		return r;
	/* The destination is checked before any byte moves; the sender's file is opened. */
	r = cfg->have_file ? dc_source_open(&h->src, cfg->file, h->size)
	                   : dc_sink_open(&h->sink, cfg->file);
	if (r != DOCA_SUCCESS)
		return r;
	if (h->nvidia)
		return host_nvidia(h);
	if ((r = host_export(h)))
		return r;
	dc_progress_start(&h->progress, cfg, h->size);
	r = cfg->have_file ? host_send_windows(h) : host_recv_windows(h);
	if (r == DOCA_SUCCESS)
		r = dc_finish(h->chan, &h->sink, cfg->have_file, h->sum, h->tmo, PEER);
	if (r == DOCA_SUCCESS)
		dc_progress_end(&h->progress, h->size);
	else if (h->progress.shown)
		fputc('\n', stderr); /* the error line starts a line of its own */
	return r;
}

doca_error_t dma_copy_host(struct dma_copy_cfg *cfg)
{
	struct host h = { .cfg = cfg,
		          .src.fd = -1,
		          .sink.fd = -1,
		          .sum = DC_CHECKSUM_INIT,
		          .tmo = dc_timeout_ms(cfg) };
	doca_error_t r = host_run(&h);

	if (r != DOCA_SUCCESS)
		dc_send_failure(h.chan);
	dc_chan_close(h.chan, 0);
	dc_sink_abort(&h.sink); /* nothing left once committed */
	dc_source_close(&h.src);
	if (h.mmap != NULL)
		doca_mmap_destroy(h.mmap);
	dc_free(h.buf, h.window);
	if (h.dev != NULL)
		doca_dev_close(h.dev);
	if (r == DOCA_SUCCESS)
		DOCA_LOG_INFO("%s %llu bytes %s the DPU", cfg->have_file ? "sent" : "received",
		              (unsigned long long)h.size, cfg->have_file ? "to" : "from");
	return r;
}
