/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Strangers against the network transport's ports (issue #28), each a peer of our own that
 * speaks by hand; a forked exporter of a read-only export must live, keep its bytes and its
 * thread count, and answer its owner afterwards.
 *
 * test_stranger_put: no odma request, no key, no fabric secret, only UCX's own TCP transport,
 * driven through UCX's UCT layer, at every port the exporter listens on. UCX's TCP transport
 * (1.13, and UCX's master of 2026) carries out a PUT packet from any peer connected to it at
 * the address the packet names (tcp_ep.c, uct_tcp_ep_handle_put_req): no key, no range, no
 * registration. On odma's TCP link (the default) the stranger never gets past the handshake;
 * on UCX's link (ODMA_LINK=ucp, with --put-only) the bytes land, and meson expects that run
 * to fail (docs/reliability.md, "Known limits").
 *
 * The rest speak odma's TCP link by hand (link_tcp.c): a handshake without the secret, a
 * frame before the handshake, a first frame of a gigabyte, a HELLO for another instance, and,
 * with the secret (ODMA_FABRIC_SECRET, as an authenticated but hostile peer), frames of an
 * unknown id, an overlong header or an overlong length; 80 connections that never speak. Each
 * connection must be closed, nothing served. Setups it cannot probe exit 77, saying why.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <doca_mmap.h>
#include <uct/api/uct.h>

#include "lk_peer.h"
#include "test_util.h"
#include "xproc_util.h"

#define AT 8192 /* the offset in the export the stranger writes */

static _Noreturn void skip_because(const char *why)
{
	printf("SKIP: %s\n", why);
	exit(ODMA_TEST_SKIP);
}

/* The TCP ports process @pid listens on (its own sockets in its network namespace). */
static unsigned int listening_ports(pid_t pid, uint16_t *ports, unsigned int max)
{
	unsigned long inode[128];
	unsigned int ni = 0, n = 0;
	char path[64], link[64], line[256];
	struct dirent *e;
	DIR *d;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	while (d != NULL && (e = readdir(d)) != NULL && ni < 128) {
		char fd[320];
		ssize_t k;

		snprintf(fd, sizeof(fd), "%s/%s", path, e->d_name);
		k = readlink(fd, link, sizeof(link) - 1);
		if (k <= 0)
			continue;
		link[k] = '\0';
		if (sscanf(link, "socket:[%lu]", &inode[ni]) == 1)
			ni++;
	}
	if (d != NULL)
		closedir(d);
	snprintf(path, sizeof(path), "/proc/%d/net/tcp", (int)pid);
	f = fopen(path, "r");
	while (f != NULL && fgets(line, sizeof(line), f) != NULL && n < max) {
		unsigned int port, state;
		unsigned long ino;

		if (sscanf(line, " %*d: %*x:%x %*x:%*x %x %*x:%*x %*x:%*x %*x %*d %*d %lu", &port,
		           &state, &ino) != 3 ||
		    state != 0x0a) /* TCP_LISTEN */
			continue;
		for (unsigned int i = 0; i < ni; i++)
			if (inode[i] == ino)
				ports[n++] = (uint16_t)port;
	}
	if (f != NULL)
		fclose(f);
	return n;
}

struct stranger {
	ucs_async_context_t *async;
	uct_worker_h worker;
	uct_md_h md;
	uct_iface_h iface;
	uint8_t dev[64], addr[64];
};

/* UCX's TCP transport on loopback, as a UCT interface of the stranger's own. */
static void stranger_open(struct stranger *s)
{
	uct_iface_params_t ip = { 0 };
	uct_component_h *comps, tcp = NULL;
	uct_md_config_t *mc;
	uct_iface_config_t *ic;
	uct_iface_attr_t ia;
	unsigned int nc;

	if (ucs_async_context_create(UCS_ASYNC_MODE_THREAD_SPINLOCK, &s->async) != UCS_OK ||
	    uct_worker_create(s->async, UCS_THREAD_MODE_SINGLE, &s->worker) != UCS_OK ||
	    uct_query_components(&comps, &nc) != UCS_OK)
		skip_because("UCX's UCT layer does not start here");
	for (unsigned int i = 0; i < nc; i++) {
		uct_component_attr_t a = { .field_mask = UCT_COMPONENT_ATTR_FIELD_NAME };

		if (uct_component_query(comps[i], &a) == UCS_OK && strcmp(a.name, "tcp") == 0)
			tcp = comps[i];
	}
	if (tcp == NULL || uct_md_config_read(tcp, NULL, NULL, &mc) != UCS_OK ||
	    uct_md_open(tcp, "tcp", mc, &s->md) != UCS_OK ||
	    uct_md_iface_config_read(s->md, "tcp", NULL, NULL, &ic) != UCS_OK)
		skip_because("UCX has no TCP transport here");
	uct_config_release(mc);
	uct_release_component_list(comps);
	ip.field_mask = UCT_IFACE_PARAM_FIELD_OPEN_MODE | UCT_IFACE_PARAM_FIELD_DEVICE;
	ip.open_mode = UCT_IFACE_OPEN_MODE_DEVICE;
	ip.mode.device.tl_name = "tcp";
	ip.mode.device.dev_name = "lo";
	if (uct_iface_open(s->md, s->worker, &ip, ic, &s->iface) != UCS_OK)
		skip_because("UCX's TCP transport does not open on lo");
	uct_config_release(ic);
	uct_iface_progress_enable(s->iface, UCT_PROGRESS_SEND | UCT_PROGRESS_RECV);
	assert_int_equal(uct_iface_query(s->iface, &ia), UCS_OK);
	assert_true(ia.device_addr_len <= sizeof(s->dev) && ia.iface_addr_len == 2);
	assert_int_equal(uct_iface_get_device_address(s->iface, (uct_device_addr_t *)s->dev),
	                 UCS_OK);
	assert_int_equal(uct_iface_get_address(s->iface, (uct_iface_addr_t *)s->addr), UCS_OK);
}

/*
 * Connects to UCX's TCP transport at 127.0.0.1:@port (the stranger's device address is
 * loopback's too; a TCP interface address is its port) and sends one PUT of @len bytes at
 * @src to address @to; waits up to 2 s for it to go and be acknowledged.
 */
static void stranger_put(struct stranger *s, uint16_t port, const void *src, size_t len,
                         uint64_t to)
{
	uint16_t net = htons(port);
	uct_ep_params_t ep = { 0 };
	uct_iov_t iov = { .buffer = (void *)src, .length = len, .count = 1 };
	uint64_t t0 = tu_now_ms();
	ucs_status_t st;
	uct_ep_h e;

	memcpy(s->addr, &net, 2);
	ep.field_mask = UCT_EP_PARAM_FIELD_IFACE | UCT_EP_PARAM_FIELD_DEV_ADDR |
	                UCT_EP_PARAM_FIELD_IFACE_ADDR;
	ep.iface = s->iface;
	ep.dev_addr = (const uct_device_addr_t *)s->dev;
	ep.iface_addr = (const uct_iface_addr_t *)s->addr;
	if (uct_ep_create(&ep, &e) != UCS_OK)
		return;
	do {
		uct_worker_progress(s->worker);
		st = uct_ep_put_zcopy(e, &iov, 1, to, 0, NULL);
	} while (st == UCS_ERR_NO_RESOURCE && tu_now_ms() - t0 < 2000);
	do {
		uct_worker_progress(s->worker);
		st = uct_ep_flush(e, 0, NULL);
	} while (st == UCS_INPROGRESS && tu_now_ms() - t0 < 2000);
	uct_ep_destroy(e);
}

static void stranger_close(struct stranger *s)
{
	uct_iface_close(s->iface);
	uct_md_close(s->md);
	uct_worker_destroy(s->worker);
	ucs_async_context_destroy(s->async);
}

/*
 * A read-only export of a forked exporter over UCX; a stranger PUTs 64 bytes into it through
 * every TCP port the exporter listens on. The exporter must live and its bytes stay.
 */
static void test_stranger_put(void **state)
{
	uint8_t *buf =
	        mmap(NULL, LK_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	static uint8_t back[LK_LEN];
	uint8_t desc[1024], src[64], cmd = 'R';
	struct stranger s = { 0 };
	uint16_t ports[16];
	unsigned int np;
	uint64_t hdr[2];
	int fd = -1, st;
	pid_t pid;

	(void)state;
	assert_true(buf != MAP_FAILED);
	pid = xu_spawn_exporter(buf, LK_LEN, DOCA_ACCESS_FLAG_PCI_READ_ONLY, &fd);
	assert_true(pid > 0);
	assert_true(xu_full_io(fd, hdr, sizeof(hdr), false));
	assert_true(hdr[0] <= sizeof(desc) && xu_full_io(fd, desc, hdr[0], false));
	np = listening_ports(pid, ports, 16);
	if (np == 0)
		skip_because("the exporter listens on no TCP port (is its UCX transport on?)");
	stranger_open(&s);
	memset(src, 0xee, sizeof(src));
	for (unsigned int i = 0; i < np; i++)
		stranger_put(&s, ports[i], src, sizeof(src), hdr[1] + AT);
	stranger_close(&s);
	assert_int_equal(waitpid(pid, &st, WNOHANG), 0); /* alive */
	assert_true(xu_full_io(fd, &cmd, 1, true) && xu_full_io(fd, back, LK_LEN, false));
	for (size_t i = AT; i < AT + sizeof(src); i++)
		assert_int_equal(back[i], xu_pattern(i));
	close(fd);
	xu_assert_child_ok(pid);
	munmap(buf, LK_LEN);
}

/* ---- odma's TCP link by hand (lk_peer.h) ---- */

/* A stranger without the fabric secret, or out of the handshake's order, gets nothing. */
static void test_tcp_link_strangers(void **state)
{
	struct lk_exporter e;
	uint8_t req[64] = { 0 };
	unsigned int threads;
	int fd;

	(void)state;
	lk_exporter_start(&e, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	threads = tu_count_threads(e.pid);
	/* a PROOF without the secret */
	fd = lk_connect(&e);
	assert_true(lk_handshake(fd, e.instance, false));
	lk_frame(fd, 11, sizeof(req), 0, req, sizeof(req)); /* a request after it: not served */
	assert_true(lk_closed(fd));
	/* a request before any handshake */
	fd = lk_connect(&e);
	lk_frame(fd, 11, sizeof(req), 0, req, sizeof(req));
	assert_true(lk_closed(fd));
	/* a first frame of a gigabyte (refused by its head: nothing of it is kept) */
	fd = lk_connect(&e);
	lk_frame(fd, 11, 0, 1u << 30, NULL, 0);
	assert_true(lk_closed(fd));
	/* a HELLO for another process (an address that outlived its owner) */
	fd = lk_connect(&e);
	assert_false(lk_handshake(fd, e.instance ^ 2, false));
	assert_true(lk_closed(fd));
	/* a HELLO of the wrong length */
	fd = lk_connect(&e);
	lk_frame(fd, 0xf1, 0, 8, "ODMALNK1", 8);
	assert_true(lk_closed(fd));
	assert_int_equal(tu_count_threads(e.pid), threads);
	lk_exporter_check(&e);
}

/* A peer with the secret that breaks the framing: closed at the first bad frame. */
static void test_tcp_link_bad_frames(void **state)
{
	struct lk_exporter e;
	uint8_t junk[300] = { 0 };
	int fd;

	(void)state;
	lk_exporter_start(&e, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	fd = lk_connect(&e);
	assert_true(lk_handshake(fd, e.instance, true));
	lk_frame(fd, 99, 0, 0, NULL, 0); /* an id no handler has */
	assert_true(lk_closed(fd));
	fd = lk_connect(&e);
	assert_true(lk_handshake(fd, e.instance, true));
	lk_frame(fd, 11, sizeof(junk), 0, junk, sizeof(junk)); /* a header over 256 bytes */
	assert_true(lk_closed(fd));
	fd = lk_connect(&e);
	assert_true(lk_handshake(fd, e.instance, true));
	lk_frame(fd, 11, 64, 0xffffffffu, junk, 64); /* a payload past the largest frame */
	assert_true(lk_closed(fd));
	fd = lk_connect(&e);
	assert_true(lk_handshake(fd, e.instance, true));
	lk_frame(fd, 0xf1, 0, 32, junk, 32); /* a second handshake */
	assert_true(lk_closed(fd));
	lk_exporter_check(&e);
}

/*
 * 80 connections that never speak: no thread each, at most 64 wait (the oldest closed at
 * once), and the rest closed at the handshake's deadline (ODMA_TRANSPORT_TIMEOUT_MS).
 */
static void test_tcp_link_silent(void **state)
{
	struct lk_exporter e;
	int fds[80];
	unsigned int threads, closed = 0;
	uint64_t t0;

	(void)state;
	lk_exporter_start(&e, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	threads = tu_count_threads(e.pid);
	for (unsigned int i = 0; i < 80; i++)
		fds[i] = lk_connect(&e);
	usleep(300 * 1000);
	assert_int_equal(tu_count_threads(e.pid), threads);
	for (unsigned int i = 0; i < 16; i++) { /* the oldest ones went at once */
		uint8_t b;
		struct timeval tv = { .tv_usec = 100000 };

		(void)setsockopt(fds[i], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		closed += recv(fds[i], &b, 1, 0) == 0;
	}
	assert_int_equal(closed, 16);
	t0 = tu_now_ms();
	for (unsigned int i = 0; i < 80; i++)
		assert_true(lk_closed(fds[i]));
	assert_true(tu_now_ms() - t0 < 2900); /* the deadline, not the test's 3 s timeout */
	lk_exporter_check(&e);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stranger_put),
		cmocka_unit_test(test_tcp_link_strangers),
		cmocka_unit_test(test_tcp_link_bad_frames),
		cmocka_unit_test(test_tcp_link_silent),
	};
	/* UCX's link (meson: should_fail): the stranger's PUT alone, so nothing else fails */
	const struct CMUnitTest put_only[] = {
		cmocka_unit_test(test_stranger_put),
	};

	tu_skip_under_qemu("the probe is for native builds: the hole is UCX's, not the CPU's");
	setenv("ODMA_TRANSPORT", "ucx", 1);
	if (argc == 2 && strcmp(argv[1], "--put-only") == 0)
		return cmocka_run_group_tests(put_only, NULL, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
