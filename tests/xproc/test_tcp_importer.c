/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Importers that proved the fabric secret but then misbehave, on odma's TCP link, each a peer
 * of our own that speaks the link and the request format by hand (lk_peer.h), against a forked
 * exporter that must live, keep its bytes and serve its owner afterwards:
 *  - a second ATTACH on one connection naming another worker address (the first client ends
 *    while the request that ends it is served: freed memory was read, under ASan a crash);
 *  - batches of two refused GETs whose answers it never reads (each batch's 64 KiB buffer was
 *    held for 48 bytes of answers: 150,000 batches grew the exporter by 300 MB): the exporter
 *    grows by under 64 MiB;
 *  - 520 connections at once: past 512, one is closed at once, and a place that frees up is
 *    taken again;
 *  - connections until the exporter has no descriptor left, one more waiting in the listen
 *    backlog: the listener pauses instead of failing accept() in a loop (it spun at 80 % of a
 *    CPU);
 *  - frames that say 1 GiB on three connections: the exporter takes a buffer of the whole
 *    frame when its head arrives, and holds two such at most (it took one for every
 *    connection: 1 GiB each, resident as the peer filled them, up to 512 connections);
 *  - three importers that leave 64 MiB of answers unread, then go: the exporter closes its
 *    connections to them (it kept each, and the answers queued there, for good);
 *  - twelve importers that leave 64 MiB of answers unread, and 65,536 GETs more waiting, and
 *    stay: the exporter holds at most its process-wide budgets of answers and of waiting GETs
 *    (it held 32 MiB and 5 MiB for each, 9.3 GiB for 256), and still serves an importer that
 *    reads.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <doca_mmap.h>

#include "lk_peer.h"
#include "test_util.h"
#include "util/codec.h"
#include "xproc_util.h"

/* Sends a GET of @len at @addr on @fd and reads its answer on @back; the answer's status. */
static int32_t get_on(const struct lk_exporter *e, int fd, int back, uint64_t id, uint64_t addr,
                      uint32_t len, uint8_t *out)
{
	uint8_t q[64], rh[8 + 24];
	size_t plen;

	lk_req(e, q, 2, id, addr, len);
	lk_frame(fd, 11, 64, 0, q, sizeof(q));
	assert_int_equal(recv(back, rh, sizeof(rh), MSG_WAITALL), (ssize_t)sizeof(rh));
	assert_int_equal(rh[0], 12);
	assert_int_equal(odma_get_le(rh + 8 + 8, 8), id);
	plen = odma_get_le(rh + 4, 4);
	assert_true(plen <= len);
	if (plen != 0)
		assert_int_equal(recv(back, out, plen, MSG_WAITALL), (ssize_t)plen);
	return (int32_t)odma_get_le(rh + 8 + 16, 4);
}

static void test_reattach(void **state)
{
	struct lk_exporter e;
	uint8_t a[20], b[20], q[64 + 20], data[64];
	int l, fd, back, back2;

	(void)state;
	lk_exporter_start(&e, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	l = lk_listener(a, 1);
	memcpy(b, a, sizeof(b));
	odma_put_le(b + 12, 3, 8); /* the same listener, another instance: another address */
	fd = lk_connect(&e);
	assert_true(lk_handshake(fd, e.instance, true));
	back = lk_attach(&e, fd, l, a, 1);
	assert_int_equal(get_on(&e, fd, back, 2, e.base, 64, data), 0);
	/* the second ATTACH: the exporter answers on a connection to the new address */
	lk_req(&e, q, 1, 3, 0, 0);
	memcpy(q + 64, b, sizeof(b));
	lk_frame(fd, 11, 64, 20, q, sizeof(q));
	back2 = lk_accept(l);
	assert_true(lk_closed(back)); /* the first client ended */
	{
		uint8_t rh[8 + 24], skip[4096];

		assert_int_equal(recv(back2, rh, sizeof(rh), MSG_WAITALL), (ssize_t)sizeof(rh));
		assert_int_equal(odma_get_le(rh + 8 + 8, 8), 3);
		assert_true(odma_get_le(rh + 4, 4) <= sizeof(skip));
		if (odma_get_le(rh + 4, 4) != 0)
			assert_true(recv(back2, skip, odma_get_le(rh + 4, 4), MSG_WAITALL) > 0);
	}
	/* and serves on it */
	assert_int_equal(get_on(&e, fd, back2, 4, e.base + 4096, 64, data), 0);
	for (size_t i = 0; i < 64; i++)
		assert_int_equal(data[i], xu_pattern(4096 + i));
	close(back2);
	close(fd);
	close(l);
	lk_exporter_check(&e);
}

static void test_batches_unread(void **state)
{
	struct lk_exporter e;
	uint8_t a[20], hdr[8], body[8 + 128];
	struct timeval tv = { .tv_sec = 5 };
	unsigned int n = 100000;
	long before, after;
	int l, fd, back;

	(void)state;
	lk_exporter_start(&e, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	l = lk_listener(a, 1);
	fd = lk_connect(&e);
	assert_true(lk_handshake(fd, e.instance, true));
	back = lk_attach(&e, fd, l, a, 1);
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	before = tu_status_field(e.pid, "VmRSS");
	odma_put_le(hdr, 2, 4); /* two requests */
	odma_put_le(hdr + 4, 0, 4);
	for (unsigned int i = 0; i < n; i++) { /* GETs past the export's end: refused */
		memcpy(body, hdr, 8);
		lk_req(&e, body + 8, 2, 100 + 2 * (uint64_t)i, e.base + LK_LEN, 64);
		lk_req(&e, body + 8 + 64, 2, 101 + 2 * (uint64_t)i, e.base + LK_LEN, 64);
		lk_frame(fd, 17, 8, 128, body, sizeof(body));
	}
	/* the exporter has read them once a request behind them is answered... on a connection
	 * whose answers pile up: wait until its size stops growing instead */
	for (long last = -1, now = tu_status_field(e.pid, "VmRSS"); now != last;
	     now = tu_status_field(e.pid, "VmRSS")) {
		last = now;
		usleep(300 * 1000);
	}
	after = tu_status_field(e.pid, "VmRSS");
	print_message("exporter RSS %ld KiB before %u unread batches, %ld KiB after\n", before, n,
	              after);
	assert_true(before > 0 && after > 0);
	if (after - before >= 64 * 1024)
		fail_msg("the exporter grew by %ld KiB for a client that reads nothing",
		         after - before);
	close(back);
	close(fd);
	close(l);
	lk_exporter_check(&e);
}

/* Whether a handshake on a new connection completes and the connection stays open. */
static bool admitted(const struct lk_exporter *e, int *fd)
{
	*fd = lk_connect(e);
	return lk_handshake(*fd, e->instance, true);
}

static void test_connection_cap(void **state)
{
	struct lk_exporter e;
	static int fds[520];
	unsigned int in = 0, out = 0;
	struct rlimit rl;
	int fd;

	(void)state;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur < 600) {
		rl.rlim_cur = rl.rlim_max < 1024 ? rl.rlim_max : 1024;
		if (rl.rlim_cur < 600 || setrlimit(RLIMIT_NOFILE, &rl) != 0)
			skip();
	}
	lk_exporter_start(&e, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	for (unsigned int i = 0; i < 520; i++) {
		if (admitted(&e, &fds[i])) {
			in++;
		} else {
			out++;
			close(fds[i]);
			fds[i] = -1;
		}
	}
	assert_int_equal(in, 512);
	assert_int_equal(out, 8);
	for (unsigned int i = 0; i < 10; i++) /* ten leave */
		close(fds[i]);
	/* their places are taken again, once the exporter saw them go */
	for (uint64_t t0 = tu_now_ms(); !admitted(&e, &fd); close(fd))
		assert_true(tu_now_ms() - t0 < 3000);
	close(fd);
	for (unsigned int i = 10; i < 520; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	lk_exporter_check(&e);
}

#if defined(__SANITIZE_ADDRESS__)
#define LK_QUARANTINE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LK_QUARANTINE 1
#endif
#endif
#ifndef LK_QUARANTINE
#define LK_QUARANTINE 0 /* 1: freed memory stays resident a while (ASan's quarantine) */
#endif

/* Waits until the resident size of process @pid stops changing (it read what was sent). */
static long rss_settled(pid_t pid)
{
	long last = -1, now = tu_status_field(pid, "VmRSS");

	while (now != last) {
		last = now;
		usleep(300 * 1000);
		now = tu_status_field(pid, "VmRSS");
	}
	return now;
}

/*
 * Three importers in turn attach, ask for 64 MiB of GETs on a connection the exporter made to
 * them and read none of it, then close the connection their requests came on. Each client is
 * then dead, and the exporter closes its connection to it, dropping the answers queued there.
 * Nothing closed it while answers were in flight, and they were in flight until the peer read:
 * each client kept its connection and up to 48 MiB of answers for good, so a peer that did it
 * again and again grew the exporter without bound.
 */
static void test_dead_client_released(void **state)
{
	struct lk_exporter e;
	uint8_t a[20], q[64];
	int l, fd, back[3], fds;
	long before, after;

	(void)state;
	lk_exporter_start(&e, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	l = lk_listener(a, 1);
	fds = tu_count_fds(e.pid);
	before = tu_status_field(e.pid, "VmRSS");
	for (unsigned int i = 0; i < 3; i++) {
		fd = lk_connect(&e);
		assert_true(lk_handshake(fd, e.instance, true));
		back[i] = lk_attach(&e, fd, l, a, 1);
		for (unsigned int j = 0; j < 256; j++) { /* 256 KiB each: ODMA_UCX_CHUNK_MAX */
			lk_req(&e, q, 2, 2 + j, e.base + (j % 4) * (256u << 10), 256u << 10);
			lk_frame(fd, 11, 64, 0, q, sizeof(q));
		}
		(void)rss_settled(e.pid);
		close(fd);
	}
	after = rss_settled(e.pid);
	print_message("exporter RSS %ld KiB, then %ld KiB once three clients left answers unread; "
	              "descriptors %d, then %d\n",
	              before, after, fds, tu_count_fds(e.pid));
	for (uint64_t t0 = tu_now_ms(); tu_count_fds(e.pid) > fds; usleep(50 * 1000))
		if (tu_now_ms() - t0 > 3000)
			fail_msg("the exporter kept %d connections to clients that are gone",
			         tu_count_fds(e.pid) - fds);
	if (!LK_QUARANTINE && after - before >= 32 * 1024)
		fail_msg("the exporter grew by %ld KiB for three clients that are gone",
		         after - before);
	for (unsigned int i = 0; i < 3; i++)
		close(back[i]);
	close(l);
	lk_exporter_check(&e);
}

/* Sends 65,536 GETs more on @fd, in batches of 64: they wait, for room for their answers. */
static void gets_waiting(const struct lk_exporter *e, int fd)
{
	static uint8_t body[8 + 64 * 64];

	odma_put_le(body, 64, 4);
	odma_put_le(body + 4, 0, 4);
	for (unsigned int b = 0; b < 1024; b++) {
		for (unsigned int k = 0; k < 64; k++)
			lk_req(e, body + 8 + 64 * k, 2, 1000 + 64 * (uint64_t)b + k, e->base,
			       256u << 10);
		lk_frame(fd, 17, 8, 64 * 64, body, sizeof(body));
	}
}

/*
 * Twelve importers attach, ask for 64 MiB of GETs each, then 65,536 GETs more, read none of
 * it, and stay. Each may hold 32 MiB of answers (UCX_REPLY_BYTES_MAX) and 65,536 GETs waiting
 * (UCX_DEFER_MAX, 5 MiB of records), but all of them together only the exporter's budgets
 * (UCX_REPLY_BYTES_ALL, 256 MiB; UCX_DEFER_ALL, 10 MiB): the rest waits, or is dropped. An
 * importer that reads is still served.
 */
static void test_many_clients_unread(void **state)
{
	enum { HOSTILE = 12 };
	struct lk_exporter e;
	uint8_t a[20], q[64], data[4096];
	int l, fd[HOSTILE], back[HOSTILE], good, good_back;
	long before, after;

	(void)state;
	lk_exporter_start(&e, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	l = lk_listener(a, 1);
	before = tu_status_field(e.pid, "VmRSS");
	for (unsigned int i = 0; i < HOSTILE; i++) {
		fd[i] = lk_connect(&e);
		assert_true(lk_handshake(fd[i], e.instance, true));
		back[i] = lk_attach(&e, fd[i], l, a, 1);
		for (unsigned int j = 0; j < 256; j++) { /* 256 KiB each: ODMA_UCX_CHUNK_MAX */
			lk_req(&e, q, 2, 2 + j, e.base + (j % 4) * (256u << 10), 256u << 10);
			lk_frame(fd[i], 11, 64, 0, q, sizeof(q));
		}
		gets_waiting(&e, fd[i]);
	}
	after = rss_settled(e.pid);
	print_message("exporter RSS %ld KiB, then %ld KiB with %d clients' answers unread\n",
	              before, after, HOSTILE);
	if (!LK_QUARANTINE && after - before >= (256 + 48) * 1024)
		fail_msg("the exporter grew by %ld KiB for %d clients that read nothing",
		         after - before, HOSTILE);
	good = lk_connect(&e);
	assert_true(lk_handshake(good, e.instance, true));
	good_back = lk_attach(&e, good, l, a, 1);
	assert_int_equal(get_on(&e, good, good_back, 2, e.base + 4096, sizeof(data), data), 0);
	for (size_t i = 0; i < sizeof(data); i++)
		assert_int_equal(data[i], xu_pattern(4096 + i));
	close(good_back);
	close(good);
	for (unsigned int i = 0; i < HOSTILE; i++) {
		close(back[i]);
		close(fd[i]);
	}
	close(l);
	lk_exporter_check(&e);
}

/* CPU seconds process @pid used so far. */
static double cpu_s(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	p = strrchr(buf, ')');
	assert_non_null(p);
	assert_int_equal(
	        sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st), 2);
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static void test_out_of_descriptors(void **state)
{
	struct lk_exporter e;
	struct rlimit low, old;
	int fds[6], extra[4];
	double c0, used;

	(void)state;
	lk_exporter_start(&e, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	assert_int_equal(prlimit(e.pid, RLIMIT_NOFILE, NULL, &old), 0);
	low = old;
	low.rlim_cur = (rlim_t)tu_count_fds(e.pid) + 6;
	assert_int_equal(prlimit(e.pid, RLIMIT_NOFILE, &low, NULL), 0);
	for (unsigned int i = 0; i < 6; i++) { /* its last six descriptors: live connections */
		fds[i] = lk_connect(&e);
		assert_true(lk_handshake(fds[i], e.instance, true));
	}
	for (unsigned int i = 0; i < 4; i++) /* in the backlog: accept() fails with EMFILE */
		extra[i] = lk_connect(&e);
	usleep(100 * 1000);
	c0 = cpu_s(e.pid);
	usleep(1000 * 1000);
	used = cpu_s(e.pid) - c0;
	print_message("exporter out of descriptors: %.2f s of CPU in 1 s\n", used);
	assert_true(used < 0.25); /* a listener retried at once held a CPU */
	assert_int_equal(prlimit(e.pid, RLIMIT_NOFILE, &old, NULL), 0);
	for (unsigned int i = 0; i < 6; i++)
		close(fds[i]);
	/* with descriptors again, the waiting connections are accepted: a handshake completes */
	assert_true(lk_handshake(extra[0], e.instance, true));
	for (unsigned int i = 0; i < 4; i++)
		close(extra[i]);
	lk_exporter_check(&e);
}

/*
 * Frame heads of 1 GiB from a peer that proved the secret: an endpoint message for no endpoint
 * of the exporter's, and a request past the longest a request carries, are refused once their
 * first bytes are in, before a buffer is taken for them (the link took each one whole, 1 GiB
 * of address space a frame, within 2 GiB for all connections together).
 */
static void test_big_frames(void **state)
{
	struct lk_exporter e;
	uint8_t body[16 + 64] = { 0 }; /* an endpoint message's header (ucx_wire.h), 64 bytes */
	int fds[3];
	long before, during;

	(void)state;
	lk_exporter_start(&e, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	for (unsigned int i = 0; i < 3; i++) {
		fds[i] = lk_connect(&e);
		assert_true(lk_handshake(fds[i], e.instance, true));
	}
	before = tu_status_field(e.pid, "VmSize");
	lk_frame(fds[0], 13, 16, 1u << 30, body, sizeof(body)); /* ODMA_UCX_AM_MSG */
	lk_frame(fds[1], 13, 16, 1u << 30, body, sizeof(body));
	lk_frame(fds[2], 11, 64, 1u << 30, body, sizeof(body)); /* ODMA_UCX_AM_REQ */
	for (unsigned int i = 0; i < 3; i++)
		assert_true(lk_closed(fds[i]));
	during = tu_status_field(e.pid, "VmSize");
	print_message("exporter VmSize %ld KiB, %ld KiB after three frames of 1 GiB begun\n",
	              before, during);
	assert_true(before > 0 && during > 0);
	assert_true(during - before < 64 * 1024);
	lk_exporter_check(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reattach),
		cmocka_unit_test(test_batches_unread),
		cmocka_unit_test(test_connection_cap),
		cmocka_unit_test(test_out_of_descriptors),
		cmocka_unit_test(test_big_frames),
		cmocka_unit_test(test_dead_client_released),
		cmocka_unit_test(test_many_clients_unread),
	};

	tu_skip_under_qemu("forked exporters with UCX's threads, and prlimit on them");
	setenv("ODMA_TRANSPORT", "ucx", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
