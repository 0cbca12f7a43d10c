/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The target of test_rdma_hostile: an RDMA context that listens for RDMA CM clients (on the port
 * given as argv[1]; 0: one the kernel picks) and out of band (it prints its blob), has one receive
 * posted, a connection request timeout of 2 s, an RNR retry count of 0 (a peer that takes none of
 * its answers is cut after 1 + 2 s), and leaves every connection request unanswered. It prints
 * "ready PORT BLOBHEX" (the port it listens on), then answers commands on stdin, one letter a
 * line: 's' prints "requests R received N threads T rss_kb K established E failed F disconnected D
 * sends_ok S sends_failed X", 'a' accepts the requests not answered yet and prints how many calls
 * failed ("accepted F"), 'r' rejects them ("rejected F"), 'e' exports one more connection out of
 * band and prints "blob BLOBHEX", 'k HEX' connects the connection 'e' exported last to the peer's
 * blob HEX out of band and prints "connectoob STATUS", 'c PORT' connects as an RDMA CM client to
 * 127.0.0.1:PORT and prints "connect STATUS", 'm' submits a 64-byte send on the connection
 * established last and prints "send STATUS", 'R N' reads N bytes (at most 64) of an RDMA export of
 * its own on that connection into a list of two 64-byte bufs and prints "read STATUS LEN DATA_LEN"
 * when the read completes (its peer answers it; DATA_LEN: the list's data length then), 'W' waits
 * up to 5 s for the receive posted at the start to end and prints "recv STATUS DATA_LEN" (its
 * destination's data length then; what it printed before if it ended before), 'S' stops the
 * context and prints "stopped MS" (how long it took to reach IDLE; only 'q' may follow), 'q' stops
 * and exits 0. It exits 3 when something fails to start.
 */
#include <dirent.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_rdma.h>

#include "test_dev.h"
#include "test_util.h"

static int requests, received, established, failed, disconnected, sends_ok, sends_failed;
static struct doca_rdma_connection *pending[64], *last_established;
static int npending;

static void on_request(struct doca_rdma_connection *c, union doca_data cud)
{
	(void)cud;
	requests++; /* neither accepted nor rejected: the client waits (until 'a') */
	if (npending < 64)
		pending[npending++] = c;
}

static void on_established(struct doca_rdma_connection *c, union doca_data ud, union doca_data cud)
{
	(void)ud;
	(void)cud;
	established++;
	last_established = c;
}

static void on_failure(struct doca_rdma_connection *c, union doca_data ud, union doca_data cud)
{
	(void)c;
	(void)ud;
	(void)cud;
	failed++;
}

static void on_disconnect(struct doca_rdma_connection *c, union doca_data ud, union doca_data cud)
{
	(void)ud;
	(void)cud;
	disconnected++;
	if (c == last_established)
		last_established = NULL;
	/* as NVIDIA's samples do: the slot serves a new connection then */
	(void)doca_rdma_connection_disconnect(c);
}

static void on_send(struct doca_rdma_task_send *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	if (doca_task_get_status(doca_rdma_task_send_as_task(t)) == DOCA_SUCCESS)
		sends_ok++;
	else
		sends_failed++;
	doca_task_free(doca_rdma_task_send_as_task(t));
}

static doca_error_t read_status = DOCA_ERROR_AGAIN;
static uint32_t read_len;
static size_t read_data_len; /* the destination list's, after the read */

static void on_read(struct doca_rdma_task_read *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	read_status = doca_task_get_status(doca_rdma_task_read_as_task(t));
	read_len = doca_rdma_task_read_get_result_len(t);
	doca_task_free(doca_rdma_task_read_as_task(t));
}

/* How the last receive ended, and its destination's data length then ('W'). */
static doca_error_t recv_status = DOCA_ERROR_AGAIN;
static size_t recv_data_len;

static void on_recv(struct doca_rdma_task_receive *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	recv_status = doca_task_get_status(doca_rdma_task_receive_as_task(t));
	if (recv_status == DOCA_SUCCESS)
		received++;
	(void)doca_buf_get_data_len(doca_rdma_task_receive_get_dst_buf(t), &recv_data_len);
	doca_task_free(doca_rdma_task_receive_as_task(t));
}

static int count_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	while (d != NULL && (e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	if (d != NULL)
		closedir(d);
	return n;
}

static long rss_kb(void)
{
	long pages = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "re");

	if (f != NULL && fscanf(f, "%ld %ld", &pages, &rss) != 2)
		rss = 0;
	if (f != NULL)
		fclose(f);
	return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

#define TRY(x)                                                                                     \
	do {                                                                                       \
		doca_error_t e_ = (x);                                                             \
		if (e_ != DOCA_SUCCESS) {                                                          \
			fprintf(stderr, "target: %s: %s\n", #x, doca_error_get_name(e_));          \
			return 3;                                                                  \
		}                                                                                  \
	} while (0)

static bool listen_at(void *rd, uint16_t port)
{
	doca_error_t e = doca_rdma_start_listen_to_port(rd, port);

	if (e != DOCA_SUCCESS)
		fprintf(stderr, "target: listening on port %u: %s\n", port, doca_error_get_name(e));
	return e == DOCA_SUCCESS;
}

/* @n bytes in hex, then a line end. */
static void print_hex(const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%02x", ((const uint8_t *)p)[i]);
	printf("\n");
}

/* A step of read_once: its error returned, with one line. */
#define RTRY(x)                                                                                    \
	do {                                                                                       \
		doca_error_t e_ = (x);                                                             \
		if (e_ != DOCA_SUCCESS) {                                                          \
			fprintf(stderr, "target: %s: %s\n", #x, doca_error_get_name(e_));          \
			return e_;                                                                 \
		}                                                                                  \
	} while (0)

/*
 * 'R N': a read of @n bytes of an RDMA export of this process' own (any peer answers it: the
 * request goes to the peer of the connection established last) into a list of two 64-byte
 * bufs (a list: never the direct path, always the request the peer answers), waited for up
 * to 8 s.
 */
static doca_error_t read_once(struct doca_rdma *rd, struct doca_dev *dev, struct doca_pe *pe,
                              struct doca_buf_inventory *inv, uint32_t n)
{
	static uint8_t xmem[256];
	static struct doca_mmap *xm, *imp;
	const void *desc;
	size_t desc_len;
	struct doca_buf *src, *d1, *d2;
	struct doca_rdma_task_read *t;
	union doca_data ud = { .u64 = 0 };
	size_t n1 = 0, n2 = 0;

	if (xm == NULL) {
		RTRY(doca_mmap_create(&xm));
		RTRY(doca_mmap_set_memrange(xm, xmem, sizeof(xmem)));
		RTRY(doca_mmap_set_permissions(xm, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE |
		                                           DOCA_ACCESS_FLAG_RDMA_READ));
		RTRY(doca_mmap_add_dev(xm, dev));
		RTRY(doca_mmap_start(xm));
		RTRY(doca_mmap_export_rdma(xm, dev, &desc, &desc_len));
		RTRY(doca_mmap_create_from_export(NULL, desc, desc_len, dev, &imp));
	}
	if (last_established == NULL || n > 64)
		return DOCA_ERROR_BAD_STATE;
	RTRY(doca_buf_inventory_buf_get_by_data(inv, imp, xmem, n, &src));
	RTRY(doca_buf_inventory_buf_get_by_addr(inv, xm, xmem + 128, 64, &d1));
	RTRY(doca_buf_inventory_buf_get_by_addr(inv, xm, xmem + 192, 64, &d2));
	RTRY(doca_buf_chain_list(d1, d2));
	RTRY(doca_rdma_task_read_allocate_init(rd, last_established, src, d1, ud, &t));
	read_status = DOCA_ERROR_AGAIN;
	RTRY(doca_task_submit(doca_rdma_task_read_as_task(t)));
	for (int i = 0; i < 8000 && read_status == DOCA_ERROR_AGAIN; i++)
		if (doca_pe_progress(pe) == 0)
			usleep(1000);
	(void)doca_buf_get_data_len(d1, &n1);
	(void)doca_buf_get_data_len(d2, &n2);
	read_data_len = n1 + n2;
	(void)doca_buf_dec_refcount(src, NULL);
	(void)doca_buf_dec_refcount(d1, NULL); /* the list: d2 with it */
	return read_status;
}

int main(int argc, char **argv)
{
	static uint8_t mem[4096];
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_rdma *rd;
	struct doca_mmap *mm;
	struct doca_buf_inventory *inv;
	struct doca_buf *buf, *sbuf;
	struct doca_rdma_task_receive *rt;
	struct doca_rdma_connection *oob;
	const void *blob;
	size_t blen;
	uint16_t port;
	union doca_data ud = { .u64 = 0 };
	char line[512];
	struct doca_rdma_connection *exported = NULL; /* by 'e' */

	if (argc != 2)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	TRY(tu_try_open_dev("b1:00.0", &dev));
	TRY(doca_pe_create(&pe));
	TRY(doca_rdma_create(dev, &rd));
	TRY(doca_rdma_set_permissions(rd, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	TRY(doca_rdma_set_max_num_connections(rd, 8));
	TRY(doca_rdma_set_connection_request_timeout(rd, 2000)); /* a silent peer's deadline */
	TRY(doca_rdma_set_rnr_retry_count(rd, 0));
	TRY(doca_rdma_set_connection_state_callbacks(rd, on_request, on_established, on_failure,
	                                             on_disconnect));
	TRY(doca_rdma_task_receive_set_conf(rd, on_recv, on_recv, 4));
	TRY(doca_rdma_task_send_set_conf(rd, on_send, on_send, 4));
	TRY(doca_rdma_task_read_set_conf(rd, on_read, on_read, 4));
	TRY(doca_pe_connect_ctx(pe, doca_rdma_as_ctx(rd)));
	TRY(doca_mmap_create(&mm));
	TRY(doca_mmap_set_memrange(mm, mem, sizeof(mem)));
	TRY(doca_mmap_set_permissions(mm, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	TRY(doca_mmap_add_dev(mm, dev));
	TRY(doca_mmap_start(mm));
	TRY(doca_buf_inventory_create(8, &inv));
	TRY(doca_buf_inventory_start(inv));
	TRY(doca_ctx_start(doca_rdma_as_ctx(rd)));
	port = (uint16_t)atoi(argv[1]);
	if (port == 0) /* a port the kernel picks (another pick when it was taken meanwhile) */
		port = tu_listen_free_port(listen_at, rd);
	else if (!listen_at(rd, port))
		port = 0;
	if (port == 0)
		return 3;
	TRY(doca_rdma_export(rd, &blob, &blen, &oob));
	TRY(doca_buf_inventory_buf_get_by_addr(inv, mm, mem, sizeof(mem), &buf));
	TRY(doca_buf_inventory_buf_get_by_data(inv, mm, mem, 64, &sbuf));
	TRY(doca_rdma_task_receive_allocate_init(rd, buf, ud, &rt));
	TRY(doca_task_submit(doca_rdma_task_receive_as_task(rt)));
	printf("ready %u ", port);
	print_hex(blob, blen);
	for (;;) {
		struct pollfd p = { .fd = 0, .events = POLLIN };

		(void)doca_pe_progress(pe);
		if (poll(&p, 1, 1) != 1)
			continue;
		if (fgets(line, sizeof(line), stdin) == NULL || line[0] == 'q')
			break;
		if (line[0] == 'a') {
			int failed = 0;

			for (int i = 0; i < npending; i++)
				failed += doca_rdma_connection_accept(pending[i], NULL, 0) !=
				          DOCA_SUCCESS;
			npending = 0;
			printf("accepted %d\n", failed);
		}
		if (line[0] == 'r') {
			int failed = 0;

			for (int i = 0; i < npending; i++)
				failed += doca_rdma_connection_reject(pending[i]) != DOCA_SUCCESS;
			npending = 0;
			printf("rejected %d\n", failed);
		}
		if (line[0] == 'e') {
			struct doca_rdma_connection *c;

			if (doca_rdma_export(rd, &blob, &blen, &c) != DOCA_SUCCESS)
				blen = 0;
			else
				exported = c;
			printf("blob ");
			print_hex(blob, blen);
		}
		if (line[0] == 'c') {
			struct doca_rdma_addr *a = NULL;
			doca_error_t e =
			        doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_IPv4, "127.0.0.1",
			                              (uint16_t)atoi(line + 2), &a);

			if (e == DOCA_SUCCESS)
				e = doca_rdma_connect_to_addr(rd, a, ud);
			if (a != NULL)
				(void)doca_rdma_addr_destroy(a);
			printf("connect %s\n", doca_error_get_name(e));
		}
		if (line[0] == 'k') { /* connect the connection 'e' exported to the peer blob */
			uint8_t peer[256];
			size_t n = 0;
			doca_error_t e = DOCA_ERROR_BAD_STATE;

			for (const char *h = line + 2;
			     n < sizeof(peer) && sscanf(h, "%2hhx", &peer[n]) == 1; h += 2)
				n++;
			if (exported != NULL)
				e = doca_rdma_connect(rd, peer, n, exported);
			printf("connectoob %s\n", doca_error_get_name(e));
		}
		if (line[0] == 'm') {
			struct doca_rdma_task_send *st = NULL;
			doca_error_t e = DOCA_ERROR_NOT_CONNECTED;

			if (last_established != NULL)
				e = doca_rdma_task_send_allocate_init(rd, last_established, sbuf,
				                                      ud, &st);
			if (e == DOCA_SUCCESS) {
				e = doca_task_submit(doca_rdma_task_send_as_task(st));
				if (e != DOCA_SUCCESS)
					doca_task_free(doca_rdma_task_send_as_task(st));
			}
			printf("send %s\n", doca_error_get_name(e));
		}
		if (line[0] == 'R') {
			doca_error_t e = read_once(rd, dev, pe, inv, (uint32_t)atoi(line + 2));

			printf("read %s %u %zu\n", doca_error_get_name(e), read_len, read_data_len);
		}
		if (line[0] == 'W') { /* the posted receive's end, waited for up to 5 s */
			for (int i = 0; i < 5000 && recv_status == DOCA_ERROR_AGAIN; i++)
				if (doca_pe_progress(pe) == 0)
					usleep(1000);
			printf("recv %s %zu\n", doca_error_get_name(recv_status), recv_data_len);
		}
		if (line[0] == 'S') { /* stop: how long doca_ctx_stop took to reach IDLE */
			struct timespec t0, t1;
			enum doca_ctx_states st = DOCA_CTX_STATE_RUNNING;

			clock_gettime(CLOCK_MONOTONIC, &t0);
			(void)doca_ctx_stop(doca_rdma_as_ctx(rd));
			for (int i = 0; i < 60000 && st != DOCA_CTX_STATE_IDLE; i++) {
				(void)doca_pe_progress(pe);
				if (doca_ctx_get_state(doca_rdma_as_ctx(rd), &st) != DOCA_SUCCESS)
					break;
				if (st != DOCA_CTX_STATE_IDLE)
					usleep(1000);
			}
			clock_gettime(CLOCK_MONOTONIC, &t1);
			printf("stopped %ld\n", (long)((t1.tv_sec - t0.tv_sec) * 1000 +
			                               (t1.tv_nsec - t0.tv_nsec) / 1000000));
		}
		if (line[0] == 's')
			printf("requests %d received %d threads %d rss_kb %ld established %d "
			       "failed %d "
			       "disconnected %d sends_ok %d sends_failed %d\n",
			       requests, received, count_threads(), rss_kb(), established, failed,
			       disconnected, sends_ok, sends_failed);
	}
	(void)doca_ctx_stop(doca_rdma_as_ctx(rd));
	for (int i = 0; i < 2000; i++) {
		enum doca_ctx_states st;

		(void)doca_pe_progress(pe);
		if (doca_ctx_get_state(doca_rdma_as_ctx(rd), &st) == DOCA_SUCCESS &&
		    st == DOCA_CTX_STATE_IDLE)
			break;
		usleep(1000);
	}
	(void)doca_buf_dec_refcount(buf, NULL);
	(void)doca_buf_dec_refcount(sbuf, NULL);
	(void)doca_rdma_destroy(rd);
	(void)doca_buf_inventory_destroy(inv);
	(void)doca_mmap_destroy(mm);
	(void)doca_pe_destroy(pe);
	(void)doca_dev_close(dev);
	return 0;
}
