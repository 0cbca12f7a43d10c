/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * A peer for doca_dma_copy's tests (dma_copy_hostile.sh, dma_copy_interop.sh), over DOCA Comch
 * (host device b1:00.0; DPU device 03:00.0 with the representor of b1:00.0):
 *
 *   dc_peer client NAME silent       connect, say nothing, wait until the server hangs up
 *   dc_peer client NAME hangup SIZE  announce a file of SIZE bytes (odma's DIRECTION), vanish
 *   dc_peer client NAME stall SIZE   announce a file of SIZE bytes, read the answer, then say
 *                                    nothing more until the server hangs up
 *   dc_peer client NAME small-export SIZE  announce a file of SIZE bytes, then export only
 *                                    half the window the DPU proposed (X_EXPORT still names the
 *                                    whole window); wait until the server hangs up
 *   dc_peer client NAME ro-export    ask for the DPU's file, then export the window the DPU
 *                                    writes into read-only (PCI_READ_ONLY); wait until the
 *                                    server hangs up; print "window untouched" when no byte of
 *                                    it changed
 *   dc_peer client NAME busy         send X_BUSY (what only a DPU side sends) as its first
 *                                    message; wait until the server hangs up
 *   dc_peer client NAME fail-why     send X_STATUS {ok 0} whose reason holds a newline, a
 *                                    forged log line and a terminal escape; wait until the
 *                                    server hangs up
 *   dc_peer server NAME hangup       accept a host, read its first message, then vanish
 *   dc_peer server NAME stall SIZE   accept a host, announce a file of SIZE bytes (one window),
 *                                    read its next message, then say nothing more until the
 *                                    host hangs up
 *   dc_peer server NAME nv-announce SIZE  answer as NVIDIA's DPU side holding a file of SIZE
 *                                    bytes (no odma mark), then report the host's next message
 *                                    (or its hang-up)
 *   dc_peer nv-host NAME FILE        NVIDIA's DMA Copy flow, host side: sends FILE if it exists,
 *                                    else receives into FILE (one buffer, one STATUS); with
 *                                    DC_PEER_HANGUP_MS set, it disconnects once its
 *                                    EXPORT_DESCRIPTOR is sent, keeps its buffer exported
 *                                    that long, and exits 1
 *   dc_peer nv-dpu NAME FILE         NVIDIA's DMA Copy flow, DPU side: one host, one DMA task of
 *                                    at most max_buf_size, STATUS at the end
 *   dc_peer rss OUT CMD ARGS...      run CMD, write its peak RSS in KiB to OUT, exit with
 *                                    its status (128 + signal if killed)
 *
 * The nv-* roles are our own implementation of the message flow of NVIDIA's application
 * (doca-api-reference.md §9.3): they send NVIDIA's layouts without odma's mark and accept only
 * what NVIDIA's application accepts (a DIRECTION of exactly 16 bytes). Every wait is bounded
 * (60 s). Prints what it saw on stdout; exits 0 when its role succeeded.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "../../apps/dma_copy/dma_copy_proto.h"
#include "test_dev.h"

#define WAIT_MS 60000

static struct {
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
	struct doca_pe *pe;
	struct doca_comch_server *srv;
	struct doca_comch_client *cli;
	struct doca_ctx *ctx;
	enum doca_ctx_states state;
	struct doca_comch_connection *conn;
	bool gone; /* the other side left */
	uint32_t nmsg;
	uint32_t nsent; /* send tasks completed */
	uint32_t len[8];
	uint8_t msg[8][DC_MAX_MSG];
	bool dma_done;
	doca_error_t dma_status;
} p;

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int fail(const char *what, doca_error_t r)
{
	printf("dc_peer: %s: %s\n", what, doca_error_get_name(r));
	fflush(stdout);
	return 1;
}

static void progress(void)
{
	if (doca_pe_progress(p.pe) == 0)
		usleep(50);
}

static void on_state(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
                     enum doca_ctx_states next)
{
	(void)ud;
	(void)ctx;
	(void)prev;
	p.state = next;
	if (p.cli != NULL && next != DOCA_CTX_STATE_RUNNING && p.conn != NULL)
		p.gone = true;
}

static void on_sent(struct doca_comch_task_send *t, union doca_data a, union doca_data b)
{
	(void)a;
	(void)b;
	p.nsent++;
	doca_task_free(doca_comch_task_send_as_task(t));
}

static void on_recv(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len,
                    struct doca_comch_connection *conn)
{
	(void)ev;
	(void)conn;
	if (p.nmsg < 8 && len <= DC_MAX_MSG) {
		memcpy(p.msg[p.nmsg], buf, len);
		p.len[p.nmsg++] = len;
	}
	printf("got message type %u (%u bytes)\n", dc_msg_type(buf), len);
	fflush(stdout);
}

static void on_connect(struct doca_comch_event_connection_status_changed *ev,
                       struct doca_comch_connection *conn, uint8_t ok)
{
	(void)ev;
	if (ok && p.conn == NULL)
		p.conn = conn;
}

static void on_disconnect(struct doca_comch_event_connection_status_changed *ev,
                          struct doca_comch_connection *conn, uint8_t ok)
{
	(void)ev;
	(void)ok;
	if (conn == p.conn)
		p.gone = true;
}

static doca_error_t endpoint(bool server, const char *name)
{
	struct doca_devinfo_rep **reps;
	uint32_t n;
	doca_error_t r;

	p.dev = tu_open_pci_or_null(server ? "03:00.0" : "b1:00.0");
	if (p.dev == NULL)
		return DOCA_ERROR_NOT_FOUND;
	if (server) {
		r = doca_devinfo_rep_create_list(p.dev, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n);
		if (r != DOCA_SUCCESS || n == 0)
			return DOCA_ERROR_NOT_FOUND;
		r = doca_dev_rep_open(reps[0], &p.rep);
		doca_devinfo_rep_destroy_list(reps);
		if (r == DOCA_SUCCESS)
			r = doca_comch_server_create(p.dev, p.rep, name, &p.srv);
		if (r != DOCA_SUCCESS)
			return r;
		p.ctx = doca_comch_server_as_ctx(p.srv);
		if ((r = doca_comch_server_task_send_set_conf(p.srv, on_sent, on_sent, 16)) ||
		    (r = doca_comch_server_event_msg_recv_register(p.srv, on_recv)) ||
		    (r = doca_comch_server_event_connection_status_changed_register(
		             p.srv, on_connect, on_disconnect)))
			return r;
	} else {
		if ((r = doca_comch_client_create(p.dev, name, &p.cli)))
			return r;
		p.ctx = doca_comch_client_as_ctx(p.cli);
		if ((r = doca_comch_client_task_send_set_conf(p.cli, on_sent, on_sent, 16)) ||
		    (r = doca_comch_client_event_msg_recv_register(p.cli, on_recv)))
			return r;
	}
	if ((r = doca_pe_create(&p.pe)) || (r = doca_pe_connect_ctx(p.pe, p.ctx)) ||
	    (r = doca_ctx_set_state_changed_cb(p.ctx, on_state)))
		return r;
	r = doca_ctx_start(p.ctx);
	if (r != DOCA_SUCCESS && r != DOCA_ERROR_IN_PROGRESS)
		return r;
	if (server) {
		printf("listening\n");
		fflush(stdout);
		for (int64_t end = now_ms() + WAIT_MS; p.conn == NULL && now_ms() < end;)
			progress();
		return p.conn != NULL ? DOCA_SUCCESS : DOCA_ERROR_TIME_OUT;
	}
	for (int64_t end = now_ms() + WAIT_MS;
	     p.state != DOCA_CTX_STATE_RUNNING && now_ms() < end;) {
		if (p.state == DOCA_CTX_STATE_IDLE)
			return DOCA_ERROR_NOT_CONNECTED;
		progress();
	}
	if ((r = doca_comch_client_get_connection(p.cli, &p.conn)))
		return r;
	printf("connected\n");
	fflush(stdout);
	return DOCA_SUCCESS;
}

static doca_error_t send_msg(const void *msg, uint32_t len)
{
	struct doca_comch_task_send *t;
	doca_error_t r =
	        p.srv ? doca_comch_server_task_send_alloc_init(p.srv, p.conn, msg, len, &t)
	              : doca_comch_client_task_send_alloc_init(p.cli, p.conn, msg, len, &t);

	if (r != DOCA_SUCCESS)
		return r;
	r = doca_task_submit(doca_comch_task_send_as_task(t));
	if (r != DOCA_SUCCESS)
		doca_task_free(doca_comch_task_send_as_task(t));
	return r;
}

/* Waits for message number @i (0-based); its length, or -1 when the peer left / timed out. */
static int wait_msg(uint32_t i)
{
	for (int64_t end = now_ms() + WAIT_MS; p.nmsg <= i; progress())
		if (p.gone || now_ms() > end)
			return -1;
	return (int)p.len[i];
}

/* Waits (at most 60 s) until the other end hangs up, ignoring what it sends. */
static void wait_hangup(void)
{
	for (int64_t end = now_ms() + WAIT_MS; !p.gone && now_ms() < end;)
		progress();
	printf(p.gone ? "peer hung up\n" : "peer still there after 60 s\n");
	fflush(stdout);
}

static void close_endpoint(void)
{
	if (p.ctx != NULL) {
		(void)doca_ctx_stop(p.ctx);
		for (int64_t end = now_ms() + 5000;
		     p.state != DOCA_CTX_STATE_IDLE && now_ms() < end;)
			progress();
	}
	if (p.srv)
		doca_comch_server_destroy(p.srv);
	if (p.cli)
		doca_comch_client_destroy(p.cli);
	if (p.pe)
		doca_pe_destroy(p.pe);
	if (p.rep)
		doca_dev_rep_close(p.rep);
	if (p.dev)
		doca_dev_close(p.dev);
}

static struct dc_direction odma_direction(bool in_host, uint64_t size, uint64_t window)
{
	return (struct dc_direction){ .type = DC_MSG_DIRECTION,
		                      .file_in_host = in_host,
		                      .mark = { DC_MARK_0, DC_MARK_1, DC_MARK_VERSION },
		                      .size_be = dc_be64(size),
		                      .window = window };
}

/*
 * An export that lies (small-export, ro-export): the DIRECTION of a host that has a file of
 * @size bytes (@size 0: a host that wants the DPU's file), then X_EXPORT naming the DPU's whole
 * window over a buffer of half of it (@half) or exported read-only.
 */
static int client_export(bool half, uint64_t size)
{
	struct dc_direction d = odma_direction(size > 0, size, 0);
	uint8_t msg[DC_MAX_MSG];
	struct dc_export *e = (struct dc_export *)msg;
	struct doca_mmap *mm = NULL;
	const void *desc;
	size_t dlen;
	uint64_t window, mapped;
	uint8_t *buf;
	doca_error_t r;
	bool same = true;

	if ((r = send_msg(&d, DC_DIRECTION_LEN)))
		return fail("send", r);
	if (wait_msg(0) != DC_DIRECTION_X_LEN)
		return fail("the DPU's DIRECTION", DOCA_ERROR_UNEXPECTED);
	memcpy(&d, p.msg[0], sizeof(d));
	window = d.window;
	mapped = half ? window / 2 : window;
	if (window < 2 || (buf = malloc(window)) == NULL)
		return fail("window", DOCA_ERROR_NO_MEMORY);
	memset(buf, 0x5c, window);
	if ((r = doca_mmap_create(&mm)) || (r = doca_mmap_set_memrange(mm, buf, mapped)) ||
	    (r = doca_mmap_set_permissions(mm, half ? DOCA_ACCESS_FLAG_PCI_READ_WRITE
	                                            : DOCA_ACCESS_FLAG_PCI_READ_ONLY)) ||
	    (r = doca_mmap_add_dev(mm, p.dev)) || (r = doca_mmap_start(mm)) ||
	    (r = doca_mmap_export_pci(mm, p.dev, &desc, &dlen)))
		return fail("export", r);
	*e = (struct dc_export){ .type = DC_MSG_X_EXPORT,
		                 .desc_len = (uint32_t)dlen,
		                 .window = window };
	memcpy(e + 1, desc, dlen);
	if ((r = send_msg(msg, (uint32_t)(sizeof(*e) + dlen))))
		return fail("send", r);
	wait_hangup();
	for (uint64_t i = 0; i < window; i++)
		same = same && buf[i] == 0x5c;
	if (same)
		printf("window untouched\n");
	fflush(stdout);
	(void)doca_mmap_destroy(mm);
	free(buf);
	return 0;
}

/* A message the DPU side must not take at its word (busy, fail-why). */
static doca_error_t send_forged(bool busy)
{
	uint32_t type = DC_MSG_X_BUSY;
	struct dc_status st = { .type = DC_MSG_X_STATUS, .ok = 0 };

	if (busy)
		return send_msg(&type, sizeof(type));
	snprintf(st.why, sizeof(st.why), "disk full\nFORGED [INFO] copy complete\033[2J");
	return send_msg(&st, sizeof(st));
}

static int client(const char *name, const char *mode, uint64_t size)
{
	struct dc_direction d = odma_direction(true, size, 0);
	doca_error_t r = endpoint(false, name);

	if (r != DOCA_SUCCESS)
		return fail("connect", r);
	if (strcmp(mode, "silent") == 0) {
		wait_hangup();
	} else if (strcmp(mode, "hangup") == 0) {
		if ((r = send_msg(&d, DC_DIRECTION_LEN)))
			return fail("send", r);
		for (int i = 0; i < 100; i++) /* let the message go out, then vanish */
			progress();
		_exit(0);
	} else if (strcmp(mode, "stall") == 0) {
		if ((r = send_msg(&d, DC_DIRECTION_LEN)))
			return fail("send", r);
		(void)wait_msg(0);
		wait_hangup();
	} else if (strcmp(mode, "busy") == 0 || strcmp(mode, "fail-why") == 0) {
		if ((r = send_forged(mode[0] == 'b')))
			return fail("send", r);
		wait_hangup();
	} else if (strcmp(mode, "small-export") == 0 || strcmp(mode, "ro-export") == 0) {
		int st = client_export(mode[0] == 's', mode[0] == 's' ? size : 0);

		close_endpoint();
		return st;
	} else {
		return 2;
	}
	close_endpoint();
	return 0;
}

static int server(const char *name, const char *mode, uint64_t size)
{
	struct dc_direction d = odma_direction(false, size, size);
	doca_error_t r = endpoint(true, name);

	if (r != DOCA_SUCCESS)
		return fail("listen", r);
	(void)wait_msg(0);
	if (strcmp(mode, "hangup") == 0)
		_exit(0);
	if (strcmp(mode, "stall") == 0) {
		if ((r = send_msg(&d, DC_DIRECTION_X_LEN)))
			return fail("send", r);
		(void)wait_msg(1);
		wait_hangup();
	}
	if (strcmp(mode, "nv-announce") == 0) {
		d = (struct dc_direction){ .type = DC_MSG_DIRECTION, .size_be = dc_be64(size) };
		if ((r = send_msg(&d, DC_DIRECTION_LEN)))
			return fail("send", r);
		(void)wait_msg(1);
		wait_hangup();
	}
	close_endpoint();
	return 0;
}

/* ---- NVIDIA's flow ------------------------------------------------------------------------ */

static uint8_t *nv_buf; /* the file's buffer in the nv-* roles; main frees it on every path */

static uint8_t *read_file(const char *path, uint64_t *size)
{
	struct stat st;
	uint8_t *buf;
	FILE *f;

	if (stat(path, &st) != 0)
		return NULL;
	*size = (uint64_t)st.st_size;
	nv_buf = buf = malloc(*size ? *size : 1);
	f = fopen(path, "rb");
	if (buf == NULL || f == NULL || fread(buf, 1, *size, f) != *size) {
		free(buf);
		nv_buf = NULL;
		if (f)
			fclose(f);
		return NULL;
	}
	fclose(f);
	return buf;
}

static int write_file(const char *path, const uint8_t *buf, uint64_t size)
{
	FILE *f = fopen(path, "wb");
	int ok = f != NULL && fwrite(buf, 1, size, f) == size;

	if (f)
		ok &= fclose(f) == 0;
	return ok ? 0 : 1;
}

static struct doca_mmap *map(uint8_t *buf, uint64_t size, uint32_t perms)
{
	struct doca_mmap *m = NULL;

	if (doca_mmap_create(&m) || doca_mmap_set_memrange(m, buf, size) ||
	    doca_mmap_set_permissions(m, perms) || doca_mmap_add_dev(m, p.dev) ||
	    doca_mmap_start(m))
		return NULL;
	return m;
}

static void status(bool ok)
{
	struct dc_nv_status st = { .type = DC_MSG_STATUS, .is_success = ok };

	(void)send_msg(&st, sizeof(st));
	for (int i = 0; i < 100; i++)
		progress();
}

/*
 * DC_PEER_HANGUP_MS (1..10000): once its sends went out, the host disconnects (an orderly
 * stop) and keeps its buffer exported that long. Whether it did.
 */
static bool nv_hangup(void)
{
	const char *v = getenv("DC_PEER_HANGUP_MS");
	long ms = v != NULL ? strtol(v, NULL, 10) : 0;

	if (ms <= 0 || ms > 10000)
		return false;
	/* DIRECTION and EXPORT_DESCRIPTOR */
	for (int64_t end = now_ms() + 5000; p.nsent < 2 && now_ms() < end;)
		progress();
	(void)doca_ctx_stop(p.ctx);
	for (int64_t end = now_ms() + 5000; p.state != DOCA_CTX_STATE_IDLE && now_ms() < end;)
		progress();
	usleep((useconds_t)ms * 1000);
	return true;
}

static int nv_host(const char *name, const char *path)
{
	struct dc_direction d = { .type = DC_MSG_DIRECTION };
	uint8_t msg[DC_MAX_MSG];
	struct dc_export_descriptor *e = (struct dc_export_descriptor *)msg;
	struct dc_nv_status st;
	struct doca_mmap *m;
	uint64_t size = 0;
	uint8_t *buf = read_file(path, &size);
	bool sending = buf != NULL;
	const void *desc;
	size_t dlen;
	doca_error_t r = endpoint(false, name);

	if (r != DOCA_SUCCESS)
		return fail("connect", r);
	d.file_in_host = sending;
	d.size_be = dc_be64(size);
	if ((r = send_msg(&d, DC_DIRECTION_LEN)))
		return fail("send DIRECTION", r);
	if (wait_msg(0) < 0)
		return fail("no answer to DIRECTION", DOCA_ERROR_CONNECTION_RESET);
	if (dc_msg_type(p.msg[0]) == DC_MSG_STATUS) {
		close_endpoint(); /* an orderly disconnection, as NVIDIA's host side */
		return fail("the DPU refused the copy", DOCA_ERROR_CONNECTION_ABORTED);
	}
	if (dc_msg_type(p.msg[0]) != DC_MSG_DIRECTION || p.len[0] != DC_DIRECTION_LEN) {
		status(false);
		return fail("bad DIRECTION answer", DOCA_ERROR_INVALID_VALUE);
	}
	memcpy(&d, p.msg[0], DC_DIRECTION_LEN);
	if (!sending) {
		size = dc_be64(d.size_be);
		nv_buf = buf = calloc(1, size ? size : 1);
	}
	m = buf != NULL ? map(buf, size,
	                      sending ? DOCA_ACCESS_FLAG_PCI_READ_ONLY
	                              : DOCA_ACCESS_FLAG_PCI_READ_WRITE)
	                : NULL;
	if (m == NULL || doca_mmap_export_pci(m, p.dev, &desc, &dlen) != DOCA_SUCCESS) {
		status(false);
		return fail("export", DOCA_ERROR_DRIVER);
	}
	*e = (struct dc_export_descriptor){ .type = DC_MSG_EXPORT_DESCRIPTOR,
		                            .host_addr_be = dc_be64((uint64_t)(uintptr_t)buf),
		                            .desc_len_be = dc_be64(dlen) };
	memcpy(e + 1, desc, dlen);
	if ((r = send_msg(msg, (uint32_t)(sizeof(*e) + dlen))))
		return fail("send EXPORT_DESCRIPTOR", r);
	if (nv_hangup())
		return fail("hung up after EXPORT_DESCRIPTOR", DOCA_ERROR_CONNECTION_ABORTED);
	if (wait_msg(1) != (int)sizeof(st) || dc_msg_type(p.msg[1]) != DC_MSG_STATUS)
		return fail("no STATUS", DOCA_ERROR_CONNECTION_RESET);
	memcpy(&st, p.msg[1], sizeof(st));
	if (!st.is_success)
		return fail("the DPU failed the copy", DOCA_ERROR_CONNECTION_ABORTED);
	if (!sending && write_file(path, buf, size) != 0)
		return fail("write", DOCA_ERROR_IO_FAILED);
	printf("nv-host: %s %llu bytes\n", sending ? "sent" : "received", (unsigned long long)size);
	close_endpoint(); /* the DPU waits for this disconnection */
	doca_mmap_destroy(m);
	return 0;
}

static void dma_cb(struct doca_dma_task_memcpy *t, union doca_data a, union doca_data b)
{
	(void)a;
	(void)b;
	p.dma_status = doca_task_get_status(doca_dma_task_memcpy_as_task(t));
	p.dma_done = true;
}

/* One DMA task moving @size bytes between the local buffer and the host's. */
static doca_error_t one_dma(struct doca_mmap *local, uint8_t *lbuf, struct doca_mmap *remote,
                            uint8_t *raddr, uint64_t size, bool to_host)
{
	struct doca_dma *dma;
	struct doca_buf_inventory *inv;
	struct doca_buf *src, *dst;
	struct doca_dma_task_memcpy *t;
	struct doca_pe *pe;
	doca_error_t r;

	if ((r = doca_pe_create(&pe)) || (r = doca_dma_create(p.dev, &dma)) ||
	    (r = doca_dma_task_memcpy_set_conf(dma, dma_cb, dma_cb, 1)) ||
	    (r = doca_pe_connect_ctx(pe, doca_dma_as_ctx(dma))) ||
	    (r = doca_ctx_start(doca_dma_as_ctx(dma))) ||
	    (r = doca_buf_inventory_create(2, &inv)) || (r = doca_buf_inventory_start(inv)))
		return r;
	if ((r = doca_buf_inventory_buf_get_by_data(inv, to_host ? local : remote,
	                                            to_host ? lbuf : raddr, size, &src)) ||
	    (r = doca_buf_inventory_buf_get_by_addr(inv, to_host ? remote : local,
	                                            to_host ? raddr : lbuf, size, &dst)) ||
	    (r = doca_dma_task_memcpy_alloc_init(dma, src, dst, (union doca_data){ .u64 = 0 },
	                                         &t)) ||
	    (r = doca_task_submit(doca_dma_task_memcpy_as_task(t))))
		return r;
	while (!p.dma_done)
		doca_pe_progress(pe);
	doca_task_free(doca_dma_task_memcpy_as_task(t));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);
	(void)doca_ctx_stop(doca_dma_as_ctx(dma));
	doca_dma_destroy(dma);
	doca_pe_destroy(pe);
	doca_buf_inventory_destroy(inv);
	return p.dma_status;
}

static int nv_dpu(const char *name, const char *path)
{
	struct dc_direction d;
	struct dc_export_descriptor e;
	struct doca_mmap *local = NULL, *remote = NULL;
	uint64_t size = 0, max = 0, desc_len;
	uint8_t *buf = read_file(path, &size);
	bool have = buf != NULL;
	doca_error_t r = endpoint(true, name);

	if (r != DOCA_SUCCESS)
		return fail("listen", r);
	if (wait_msg(0) != DC_DIRECTION_LEN || dc_msg_type(p.msg[0]) != DC_MSG_DIRECTION) {
		status(false);
		return fail("bad DIRECTION", DOCA_ERROR_INVALID_VALUE);
	}
	memcpy(&d, p.msg[0], sizeof(d) - sizeof(d.window));
	(void)doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(p.dev), &max);
	if ((d.file_in_host != 0) == have || (!have && (size = dc_be64(d.size_be)) == 0) ||
	    size > max) {
		printf("nv-dpu: refusing a file of %llu bytes (max %llu)\n",
		       (unsigned long long)size, (unsigned long long)max);
		status(false);
		close_endpoint();
		return 1;
	}
	d = (struct dc_direction){ .type = DC_MSG_DIRECTION,
		                   .file_in_host = !have,
		                   .size_be = dc_be64(have ? size : 0) };
	if (!have)
		nv_buf = buf = calloc(1, size);
	if ((r = send_msg(&d, DC_DIRECTION_LEN)))
		return fail("send DIRECTION", r);
	if (wait_msg(1) < (int)sizeof(e) || dc_msg_type(p.msg[1]) != DC_MSG_EXPORT_DESCRIPTOR)
		return fail("no EXPORT_DESCRIPTOR", DOCA_ERROR_CONNECTION_RESET);
	memcpy(&e, p.msg[1], sizeof(e));
	desc_len = dc_be64(e.desc_len_be);
	if (desc_len > p.len[1] - sizeof(e) ||
	    doca_mmap_create_from_export(NULL, p.msg[1] + sizeof(e), desc_len, p.dev, &remote) ||
	    (local = map(buf, size, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE)) == NULL) {
		status(false);
		return fail("import", DOCA_ERROR_INVALID_VALUE);
	}
	r = one_dma(local, buf, remote, (uint8_t *)(uintptr_t)dc_be64(e.host_addr_be), size, have);
	if (r != DOCA_SUCCESS || (!have && write_file(path, buf, size) != 0)) {
		status(false);
		return fail("DMA", r);
	}
	status(true);
	printf("nv-dpu: %s %llu bytes\n", have ? "sent" : "received", (unsigned long long)size);
	wait_hangup(); /* as NVIDIA's DPU side: the host disconnects first */
	doca_mmap_destroy(remote);
	doca_mmap_destroy(local);
	close_endpoint();
	return 0;
}

static int rss(const char *out, char **argv)
{
	struct rusage ru;
	pid_t pid = fork();
	int st;
	FILE *f;

	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &st, 0, &ru) != pid) {
		perror("wait4");
		return 2;
	}
	f = fopen(out, "w");
	if (f == NULL) {
		perror(out);
		return 2;
	}
	fprintf(f, "%ld\n", ru.ru_maxrss);
	fclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
	uint64_t size = argc > 4 ? strtoull(argv[4], NULL, 0) : 1048576;

	if (argc >= 4 && strcmp(argv[1], "rss") == 0)
		return rss(argv[2], argv + 3);
	if (argc < 4) {
		fprintf(stderr, "usage: see the comment at the top of dc_peer.c\n");
		return 2;
	}
	if (strcmp(argv[1], "client") == 0)
		return client(argv[2], argv[3], size);
	if (strcmp(argv[1], "server") == 0)
		return server(argv[2], argv[3], size);
	if (strcmp(argv[1], "nv-host") == 0 || strcmp(argv[1], "nv-dpu") == 0) {
		int rc = argv[1][3] == 'h' ? nv_host(argv[2], argv[3]) : nv_dpu(argv[2], argv[3]);

		free(nv_buf);
		return rc;
	}
	return 2;
}
