/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Helpers of the DOCA RDMA tests: one "side" (device, PE, RDMA context, a 4 KiB mmap and an
 * inventory) per process, typed completion callbacks that count and record, blobs moved
 * over a socketpair, and a child process runner (the child reports by exit status).
 */
#ifndef ODMA_TEST_RDMA_TU_H_
#define ODMA_TEST_RDMA_TU_H_

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_rdma.h>
#include <doca_sync_event.h>

#include "test_util.h"

#define TS_MEM 4096
#define TS_MAX 16

struct tside {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_rdma *rd;
	struct doca_ctx *ctx;
	struct doca_mmap *mm;
	struct doca_buf_inventory *inv;
	uint8_t *mem;
	struct doca_rdma_connection *conns[TS_MAX];
	int nconns;
	struct doca_buf *bufs[128]; /* every buf ts_buf handed out, released by ts_close */
	int nbufs;
	struct doca_mmap *adopted[4]; /* imported mmaps ts_close destroys (ts_adopt) */
	int nadopted;
	/* completions */
	int ok, err;
	doca_error_t last_err;
	uint32_t read_len; /* the last read's result length */
	/* receives, in completion order */
	int nrecv;
	uint32_t rlen[TS_MAX], rimm[TS_MAX];
	int ropc[TS_MAX];
	const struct doca_rdma_connection *rconn[TS_MAX];
	/* connection events */
	int requests, established, failures, disconnects;
	bool accept_next; /* request callback: accept (else reject) */
	struct doca_rdma_connection *last_cm;
};

/* Fails the child (exit status 10 + line % 100 keeps the line findable) with a message. */
#define CHK(cond)                                                                                  \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "child check failed at %s:%d: %s\n", __FILE__, __LINE__,   \
			        #cond);                                                            \
			_exit(10);                                                                 \
		}                                                                                  \
	} while (0)
#define CHK_OK(call)                                                                               \
	do {                                                                                       \
		doca_error_t _e = (call);                                                          \
		if (_e != DOCA_SUCCESS) {                                                          \
			fprintf(stderr, "child: %s returned %s at line %d\n", #call,               \
			        doca_error_get_name(_e), __LINE__);                                \
			_exit(11);                                                                 \
		}                                                                                  \
	} while (0)

static inline struct tside *ts_of(union doca_data d)
{
	return (struct tside *)d.ptr;
}

static inline void ts_record(struct doca_task *t, union doca_data cud, bool ok)
{
	struct tside *s = ts_of(cud);

	if (ok)
		s->ok++;
	else {
		s->err++;
		s->last_err = doca_task_get_status(t);
	}
	doca_task_free(t);
}

#define TS_CB(T)                                                                                   \
	static void ts_ok_##T(struct doca_rdma_task_##T *task, union doca_data tud,                \
	                      union doca_data cud)                                                 \
	{                                                                                          \
		(void)tud;                                                                         \
		ts_record(doca_rdma_task_##T##_as_task(task), cud, true);                          \
	}                                                                                          \
	static void ts_err_##T(struct doca_rdma_task_##T *task, union doca_data tud,               \
	                       union doca_data cud)                                                \
	{                                                                                          \
		(void)tud;                                                                         \
		ts_record(doca_rdma_task_##T##_as_task(task), cud, false);                         \
	}

TS_CB(send)
TS_CB(send_imm)
TS_CB(write)
TS_CB(write_imm)
TS_CB(atomic_cmp_swp)
TS_CB(atomic_fetch_add)
TS_CB(remote_net_sync_event_get)
TS_CB(remote_net_sync_event_notify_set)
TS_CB(remote_net_sync_event_notify_add)

/* A read also records the length its task reports (doca_rdma_task_read_get_result_len). */
static void ts_ok_read(struct doca_rdma_task_read *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	ts_of(cud)->read_len = doca_rdma_task_read_get_result_len(task);
	ts_record(doca_rdma_task_read_as_task(task), cud, true);
}

static void ts_err_read(struct doca_rdma_task_read *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	ts_record(doca_rdma_task_read_as_task(task), cud, false);
}

static void ts_recv_ok(struct doca_rdma_task_receive *task, union doca_data tud,
                       union doca_data cud)
{
	struct tside *s = ts_of(cud);
	int i = s->nrecv++;

	(void)tud;
	if (i < TS_MAX) {
		s->rlen[i] = doca_rdma_task_receive_get_result_len(task);
		s->ropc[i] = doca_rdma_task_receive_get_result_opcode(task);
		s->rimm[i] = doca_rdma_task_receive_get_result_immediate_data(task);
		s->rconn[i] = doca_rdma_task_receive_get_result_rdma_connection(task);
	}
	ts_record(doca_rdma_task_receive_as_task(task), cud, true);
}

static void ts_recv_err(struct doca_rdma_task_receive *task, union doca_data tud,
                        union doca_data cud)
{
	(void)tud;
	ts_record(doca_rdma_task_receive_as_task(task), cud, false);
}

static void ts_cm_request(struct doca_rdma_connection *c, union doca_data cud)
{
	struct tside *s = ts_of(cud);

	s->requests++;
	if (s->accept_next)
		(void)doca_rdma_connection_accept(c, NULL, 0);
	else
		(void)doca_rdma_connection_reject(c);
}

static void ts_cm_established(struct doca_rdma_connection *c, union doca_data ud,
                              union doca_data cud)
{
	struct tside *s = ts_of(cud);

	(void)ud;
	s->established++;
	s->last_cm = c;
	if (s->nconns < TS_MAX)
		s->conns[s->nconns++] = c;
}

static void ts_cm_failure(struct doca_rdma_connection *c, union doca_data ud, union doca_data cud)
{
	(void)c;
	(void)ud;
	ts_of(cud)->failures++;
}

static void ts_cm_disconnect(struct doca_rdma_connection *c, union doca_data ud,
                             union doca_data cud)
{
	(void)ud;
	ts_of(cud)->disconnects++;
	(void)doca_rdma_connection_disconnect(c);
}

/*
 * Opens a side on the device at @pci; @mmap_perms for its mmap; returns the error of the
 * first failing call.
 */
/* A side on device @pci whose mmap covers @mem_len bytes (a multiple of 4096) of s->mem. */
static inline doca_error_t ts_open_len(struct tside *s, const char *pci, size_t mem_len,
                                       uint32_t mmap_perms, uint32_t rdma_perms, uint8_t rnr_retry)
{
	union doca_data ud = { .ptr = s };
	doca_error_t e;

	memset(s, 0, sizeof(*s));
	s->accept_next = true;
	s->mem = aligned_alloc(4096, mem_len);
	if (s->mem == NULL)
		return DOCA_ERROR_NO_MEMORY;
	memset(s->mem, 0, mem_len);
#define TRY(x)                                                                                     \
	if ((e = (x)) != DOCA_SUCCESS)                                                             \
	return e
	TRY(tu_try_open_dev(pci, &s->dev));
	TRY(doca_pe_create(&s->pe));
	TRY(doca_rdma_create(s->dev, &s->rd));
	s->ctx = doca_rdma_as_ctx(s->rd);
	TRY(doca_rdma_set_permissions(s->rd, rdma_perms));
	TRY(doca_rdma_set_rnr_retry_count(s->rd, rnr_retry));
	TRY(doca_rdma_set_max_num_connections(s->rd, 8));
	TRY(doca_rdma_set_connection_state_callbacks(s->rd, ts_cm_request, ts_cm_established,
	                                             ts_cm_failure, ts_cm_disconnect));
	TRY(doca_rdma_task_receive_set_conf(s->rd, ts_recv_ok, ts_recv_err, 16));
	TRY(doca_rdma_task_send_set_conf(s->rd, ts_ok_send, ts_err_send, 16));
	TRY(doca_rdma_task_send_imm_set_conf(s->rd, ts_ok_send_imm, ts_err_send_imm, 4));
	TRY(doca_rdma_task_read_set_conf(s->rd, ts_ok_read, ts_err_read, 16));
	TRY(doca_rdma_task_write_set_conf(s->rd, ts_ok_write, ts_err_write, 16));
	TRY(doca_rdma_task_write_imm_set_conf(s->rd, ts_ok_write_imm, ts_err_write_imm, 4));
	TRY(doca_rdma_task_atomic_cmp_swp_set_conf(s->rd, ts_ok_atomic_cmp_swp,
	                                           ts_err_atomic_cmp_swp, 4));
	TRY(doca_rdma_task_atomic_fetch_add_set_conf(s->rd, ts_ok_atomic_fetch_add,
	                                             ts_err_atomic_fetch_add, 4));
	TRY(doca_rdma_task_remote_net_sync_event_get_set_conf(
	        s->rd, ts_ok_remote_net_sync_event_get, ts_err_remote_net_sync_event_get, 4));
	TRY(doca_rdma_task_remote_net_sync_event_notify_set_set_conf(
	        s->rd, ts_ok_remote_net_sync_event_notify_set,
	        ts_err_remote_net_sync_event_notify_set, 4));
	TRY(doca_rdma_task_remote_net_sync_event_notify_add_set_conf(
	        s->rd, ts_ok_remote_net_sync_event_notify_add,
	        ts_err_remote_net_sync_event_notify_add, 4));
	TRY(doca_ctx_set_user_data(s->ctx, ud));
	TRY(doca_pe_connect_ctx(s->pe, s->ctx));
	TRY(doca_mmap_create(&s->mm));
	TRY(doca_mmap_set_memrange(s->mm, s->mem, mem_len));
	TRY(doca_mmap_set_permissions(s->mm, mmap_perms));
	TRY(doca_mmap_add_dev(s->mm, s->dev));
	TRY(doca_mmap_start(s->mm));
	TRY(doca_buf_inventory_create(64, &s->inv));
	TRY(doca_buf_inventory_start(s->inv));
	TRY(doca_ctx_start(s->ctx));
#undef TRY
	return DOCA_SUCCESS;
}

static inline doca_error_t ts_open_on(struct tside *s, const char *pci, uint32_t mmap_perms,
                                      uint32_t rdma_perms, uint8_t rnr_retry)
{
	return ts_open_len(s, pci, TS_MEM, mmap_perms, rdma_perms, rnr_retry);
}

/* A side on the host's device (bf3: the host's view of port 0). */
static inline doca_error_t ts_open(struct tside *s, uint32_t mmap_perms, uint32_t rdma_perms,
                                   uint8_t rnr_retry)
{
	return ts_open_on(s, "b1:00.0", mmap_perms, rdma_perms, rnr_retry);
}

/* Progress until *@counter reaches @target or @ms pass; whether it did. */
static inline bool ts_wait(struct tside *s, const int *counter, int target, int ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (;;) {
		(void)doca_pe_progress(s->pe);
		if (*counter >= target)
			return true;
		clock_gettime(CLOCK_MONOTONIC, &b);
		if ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 > ms)
			return false;
		usleep(200);
	}
}

/* Stops @s's context, progressing it up to 1 s; the state it reached (IDLE when it stopped). */
static inline enum doca_ctx_states ts_stop_idle(struct tside *s)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

	(void)doca_ctx_stop(s->ctx);
	for (int i = 0; i < 10000; i++) {
		(void)doca_ctx_get_state(s->ctx, &st);
		if (st == DOCA_CTX_STATE_IDLE)
			break;
		(void)doca_pe_progress(s->pe);
		usleep(100);
	}
	return st;
}

/* Stops (progressing to IDLE) and destroys what ts_open made. */
static inline void ts_close(struct tside *s)
{
	(void)ts_stop_idle(s);
	(void)doca_rdma_destroy(s->rd);
	for (int i = 0; i < s->nbufs; i++) /* before the inventory and the mmaps they point into */
		(void)doca_buf_dec_refcount(s->bufs[i], NULL);
	s->nbufs = 0;
	for (int i = 0; i < s->nadopted; i++) /* before the device they were imported through */
		(void)doca_mmap_destroy(s->adopted[i]);
	s->nadopted = 0;
	(void)doca_buf_inventory_destroy(s->inv);
	(void)doca_mmap_destroy(s->mm);
	(void)doca_pe_destroy(s->pe);
	(void)doca_dev_close(s->dev);
	free(s->mem);
}

/* Gives ts_close an imported mmap to destroy after the bufs into it, before the device. */
static inline void ts_adopt(struct tside *s, struct doca_mmap *m)
{
	assert_true(s->nadopted < (int)(sizeof(s->adopted) / sizeof(s->adopted[0])));
	s->adopted[s->nadopted++] = m;
}

/* A buf over [off, off + len) of @mm, with data_len @data (0: empty, ready to receive). */
static inline struct doca_buf *ts_buf(struct tside *s, struct doca_mmap *mm, uint8_t *base,
                                      size_t off, size_t len, size_t data)
{
	struct doca_buf *b = NULL;

	if (doca_buf_inventory_buf_get_by_addr(s->inv, mm, base + off, len, &b) != DOCA_SUCCESS)
		return NULL;
	if (s->nbufs < (int)(sizeof(s->bufs) / sizeof(s->bufs[0])))
		s->bufs[s->nbufs++] = b;
	if (data != 0 && doca_buf_set_data(b, base + off, data) != DOCA_SUCCESS)
		return NULL;
	return b;
}

/* Blobs over a socketpair: a u32 length, then the bytes. */
static inline bool ts_send_blob(int fd, const void *p, size_t n)
{
	uint32_t l = (uint32_t)n;

	return write(fd, &l, 4) == 4 && (n == 0 || write(fd, p, n) == (ssize_t)n);
}

static inline bool ts_recv_all(int fd, void *p, size_t n)
{
	uint8_t *q = p;

	while (n > 0) {
		ssize_t k = read(fd, q, n);

		if (k <= 0)
			return false;
		q += k;
		n -= (size_t)k;
	}
	return true;
}

static inline bool ts_recv_blob(int fd, void *p, size_t cap, size_t *n)
{
	uint32_t l;

	if (!ts_recv_all(fd, &l, 4) || l > cap)
		return false;
	*n = l;
	return ts_recv_all(fd, p, l);
}

/* Runs @child(fd) in a child process; the parent gets the other end in *@fd. */
/*
 * Set by a test program whose children may run in another network namespace: called in the
 * child after setns (and its own /sys), it execs the program again to run @child on @fd, so
 * that the libraries (UCX) start in that namespace; it does not return.
 */
static void (*ts_child_reexec)(int (*child)(int fd), int fd);

static inline pid_t ts_fork(int (*child)(int fd), int *fd)
{
	int sv[2];
	pid_t pid;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		const char *ns = getenv("ODMA_TEST_NETNS_CHILD"); /* rdma_netns.sh */

		close(sv[0]);
		if (ns != NULL) {
			char path[256];
			int nfd;

			snprintf(path, sizeof(path), "/var/run/netns/%s", ns);
			nfd = open(path, O_RDONLY | O_CLOEXEC);
			if (nfd < 0 || setns(nfd, CLONE_NEWNET) != 0) {
				fprintf(stderr, "child: cannot enter network namespace %s\n", ns);
				_exit(12);
			}
			close(nfd);
			/*
			 * its own /sys, as ip netns exec gives: UCX reads the namespace's network
			 * devices there
			 */
			if (unshare(CLONE_NEWNS) != 0 ||
			    mount("", "/", NULL, MS_SLAVE | MS_REC, NULL) != 0 ||
			    umount2("/sys", MNT_DETACH) != 0 ||
			    mount(ns, "/sys", "sysfs", 0, NULL) != 0) {
				fprintf(stderr, "child: cannot mount the /sys of namespace %s\n",
				        ns);
				_exit(12);
			}
			if (ts_child_reexec != NULL)
				ts_child_reexec(child, sv[1]);
		}
		_exit(child(sv[1]));
	}
	close(sv[1]);
	*fd = sv[0];
	return pid;
}

/* Waits for the child and asserts it exited with 0. */
static inline void ts_join(pid_t pid, int fd)
{
	int st = 0;

	close(fd);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("the child failed (status 0x%x); its stderr says where", st);
}

#endif /* ODMA_TEST_RDMA_TU_H_ */
