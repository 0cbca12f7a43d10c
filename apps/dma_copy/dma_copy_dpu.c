/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * doca_dma_copy, DPU side (the server): accepts one host, imports its buffer and moves
 * the file with DOCA DMA as a pipeline of max_buf_size tasks, several in flight. It
 * verifies (when receiving) or announces (when sending) the checksum of the data.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
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

#define INFLIGHT 16

struct dpu {
	struct doca_dev *dev;
	struct doca_mmap *local, *remote;
	struct doca_buf_inventory *inv;
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_ctx *ctx;
	enum doca_ctx_states state;
	uint8_t *buf;
	uint64_t size, done, host_addr, host_sum;
	uint32_t inflight;
	doca_error_t err;
	int lfd, fd;
	bool tty;
};

static void progress_bar(struct dpu *d)
{
	int pct = d->size ? (int)(d->done * 100 / d->size) : 100;
	char bar[41];

	if (!d->tty)
		return;
	memset(bar, '#', (size_t)(pct * 40 / 100));
	memset(bar + pct * 40 / 100, '.', (size_t)(40 - pct * 40 / 100));
	bar[40] = '\0';
	fprintf(stderr, "\r[%s] %3d%% %llu/%llu bytes", bar, pct, (unsigned long long)d->done,
		(unsigned long long)d->size);
	if (d->done == d->size)
		fputc('\n', stderr);
}

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
		DOCA_LOG_ERR("a DMA task failed: %s", doca_error_get_descr(st));
	}
	if (st == DOCA_SUCCESS) {
		d->done += tud.u64;
		progress_bar(d);
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

	if ((r = doca_buf_inventory_create(2 * INFLIGHT, &d->inv)) ||
	    (r = doca_buf_inventory_start(d->inv)) || (r = doca_pe_create(&d->pe)) ||
	    (r = doca_dma_create(d->dev, &d->dma)))
		return r;
	d->ctx = doca_dma_as_ctx(d->dma);
	if ((r = doca_ctx_set_state_changed_cb(d->ctx, state_changed)) ||
	    (r = doca_ctx_set_user_data(d->ctx, (union doca_data){ .ptr = d })) ||
	    (r = doca_dma_task_memcpy_set_conf(d->dma, task_done, task_done, INFLIGHT)) ||
	    (r = doca_pe_connect_ctx(d->pe, d->ctx)) || (r = doca_ctx_start(d->ctx)))
		return r;
	return DOCA_SUCCESS;
}

/* Submits the chunk at @off; DOCA_ERROR_AGAIN when the engine is full. */
static doca_error_t submit_chunk(struct dpu *d, uint64_t off, uint64_t n, bool to_host)
{
	uint8_t *remote = (uint8_t *)(uintptr_t)d->host_addr + off, *local = d->buf + off;
	struct doca_buf *src = NULL, *dst = NULL;
	struct doca_dma_task_memcpy *t = NULL;
	doca_error_t r;

	r = doca_buf_inventory_buf_get_by_data(d->inv, to_host ? d->local : d->remote,
					       to_host ? local : remote, n, &src);
	if (r == DOCA_SUCCESS)
		r = doca_buf_inventory_buf_get_by_addr(d->inv, to_host ? d->remote : d->local,
						       to_host ? remote : local, n, &dst);
	if (r == DOCA_SUCCESS)
		r = doca_dma_task_memcpy_alloc_init(d->dma, src, dst, (union doca_data){ .u64 = n }, &t);
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

static doca_error_t dpu_pipeline(struct dpu *d, bool to_host)
{
	uint64_t max, off = 0;
	double t0 = now_s();
	doca_error_t r;

	if ((r = doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(d->dev), &max)))
		return r;
	while (d->err == DOCA_SUCCESS && (off < d->size || d->inflight > 0)) {
		while (d->err == DOCA_SUCCESS && off < d->size && d->inflight < INFLIGHT) {
			uint64_t n = d->size - off < max ? d->size - off : max;

			r = submit_chunk(d, off, n, to_host);
			if (r == DOCA_ERROR_AGAIN || r == DOCA_ERROR_NO_MEMORY)
				break;
			if (r != DOCA_SUCCESS)
				return r;
			off += n;
		}
		if (doca_pe_progress(d->pe) == 0 && d->inflight > 0)
			nanosleep(&(struct timespec){ 0, 1000 }, NULL);
	}
	while (d->inflight > 0) /* a failure stops the context; collect what it flushes */
		doca_pe_progress(d->pe);
	if (d->err == DOCA_SUCCESS)
		DOCA_LOG_INFO("DMA moved %llu bytes %s in %.3f ms (%.2f GB/s, tasks of up to %llu bytes)",
			      (unsigned long long)d->size, to_host ? "DPU -> host" : "host -> DPU",
			      (now_s() - t0) * 1e3, (double)d->size / (now_s() - t0) / 1e9,
			      (unsigned long long)max);
	return d->err;
}

static int serve(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), c;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path); /* a socket left by an earlier run */
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 1) != 0) {
		DOCA_LOG_ERR("cannot listen on %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	DOCA_LOG_INFO("waiting for the host side on %s", path);
	c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	close(fd);
	unlink(path);
	if (c < 0)
		DOCA_LOG_ERR("accept on %s failed: %s", path, strerror(errno));
	return c;
}

static doca_error_t dpu_negotiate(struct dpu *d, struct dma_copy_cfg *cfg)
{
	struct dc_direction theirs, mine = { .file_here = cfg->have_file, .file_size = cfg->file_size };
	uint8_t msg[DC_MAX_PAYLOAD];
	struct dc_export *e = (struct dc_export *)msg;
	uint32_t len;
	doca_error_t r;

	if ((r = dc_recv(d->fd, DC_MSG_DIRECTION, &theirs, sizeof(theirs), &len)) ||
	    (r = dc_send(d->fd, DC_MSG_DIRECTION, &mine, sizeof(mine))))
		return r;
	if (len != sizeof(theirs) || theirs.file_here == cfg->have_file) {
		DOCA_LOG_ERR("exactly one side must have the file (host: %s, DPU: %s)",
			     theirs.file_here ? "yes" : "no", cfg->have_file ? "yes" : "no");
		return DOCA_ERROR_INVALID_VALUE;
	}
	d->size = cfg->have_file ? cfg->file_size : theirs.file_size;
	if ((r = dc_recv(d->fd, DC_MSG_EXPORT, msg, sizeof(msg), &len)))
		return r;
	if (len < sizeof(*e) || e->desc_len > len - sizeof(*e) || e->len != d->size) {
		DOCA_LOG_ERR("malformed export message from the host");
		return DOCA_ERROR_INVALID_VALUE;
	}
	d->host_addr = e->host_addr;
	d->host_sum = e->checksum;
	r = doca_mmap_create_from_export(NULL, e + 1, e->desc_len, d->dev, &d->remote);
	if (r != DOCA_SUCCESS)
		DOCA_LOG_ERR("cannot import the host buffer: %s", doca_error_get_descr(r));
	return r;
}

static doca_error_t dpu_local(struct dpu *d, struct dma_copy_cfg *cfg)
{
	doca_error_t r;

	d->buf = dc_alloc(d->size);
	if (d->buf == NULL)
		return DOCA_ERROR_NO_MEMORY;
	if (cfg->have_file && (r = dc_read_file(cfg->file, d->buf, d->size)))
		return r;
	if ((r = doca_mmap_create(&d->local)) || (r = doca_mmap_set_memrange(d->local, d->buf, d->size ? d->size : 1)) ||
	    (r = doca_mmap_set_permissions(d->local, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE)) ||
	    (r = doca_mmap_add_dev(d->local, d->dev)) || (r = doca_mmap_start(d->local)))
		return r;
	return DOCA_SUCCESS;
}

static doca_error_t dpu_run(struct dpu *d, struct dma_copy_cfg *cfg)
{
	struct dc_status st = { .ok = 0 };
	doca_error_t r;

	d->dev = dc_open_dev(cfg->pci, true);
	if (d->dev == NULL)
		return DOCA_ERROR_NOT_FOUND;
	if ((r = dpu_setup_dma(d)))
		return r;
	d->fd = serve(cfg->socket);
	if (d->fd < 0)
		return DOCA_ERROR_NOT_CONNECTED;
	if ((r = dpu_negotiate(d, cfg)) || (r = dpu_local(d, cfg)) ||
	    (r = dpu_pipeline(d, cfg->have_file)))
		return r;
	if (!cfg->have_file) {
		if (dc_checksum(d->buf, d->size) != d->host_sum) {
			DOCA_LOG_ERR("checksum mismatch: the received data differs from the host's file");
			return DOCA_ERROR_IO_FAILED;
		}
		if ((r = dc_write_file_atomic(cfg->file, d->buf, d->size)))
			return r;
	} else {
		st.checksum = dc_checksum(d->buf, d->size);
	}
	st.ok = 1;
	return dc_send(d->fd, DC_MSG_STATUS, &st, sizeof(st));
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
	dc_free(d->buf, d->size);
	if (d->dev != NULL)
		doca_dev_close(d->dev);
}

doca_error_t dma_copy_dpu(struct dma_copy_cfg *cfg)
{
	struct dpu d = { .fd = -1, .lfd = -1, .tty = isatty(STDERR_FILENO) };
	struct timespec t0, t1;
	doca_error_t r;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = dpu_run(&d, cfg);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (r != DOCA_SUCCESS && d.fd >= 0) {
		struct dc_status st = { .ok = 0 };

		(void)dc_send(d.fd, DC_MSG_STATUS, &st, sizeof(st));
	}
	if (r == DOCA_SUCCESS) {
		double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

		DOCA_LOG_INFO("%s %llu bytes %s the host in %.3f s (%.1f MiB/s, including the wait "
			      "for the host)", cfg->have_file ? "sent" : "received",
			      (unsigned long long)d.size, cfg->have_file ? "to" : "from", s,
			      s > 0 ? (double)d.size / s / 1048576.0 : 0.0);
	}
	if (d.fd >= 0)
		close(d.fd);
	dpu_teardown(&d);
	return r;
}
