/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <doca_error.h>
#include <doca_log.h>

#include "comch_util.h"
#include "test_dev.h"
#include "test_exec.h"

static char cu_dir[256];
static int cu_pipes[2][2] = { { -1, -1 }, { -1, -1 } }; /* [0]: parent->child, [1]: child->parent */
static int cu_rd = -1, cu_wr = -1;
static FILE *cu_log;
static pid_t cu_owner;

uint64_t cu_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void cu_rm_dir(void)
{
	char cmd[300];

	if (cu_dir[0] == '\0' || getpid() != cu_owner)
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", cu_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", cu_dir);
}

void cu_private_rundir(void)
{
	snprintf(cu_dir, sizeof(cu_dir), "/tmp/odma-comch-test-XXXXXX");
	if (mkdtemp(cu_dir) == NULL) {
		perror("mkdtemp");
		exit(1);
	}
	setenv("ODMA_RUNDIR", cu_dir, 1);
	cu_owner = getpid();
	atexit(cu_rm_dir);
}

void cu_open(struct cu_ep *e, bool server)
{
	memset(e, 0, sizeof(*e));
	e->server = server;
	e->dev = tu_open_pci_or_null(server ? CU_DPU_PCI : CU_HOST_PCI);
	CU_CHECK(e->dev != NULL);
	if (server) {
		struct doca_devinfo_rep **reps;
		uint32_t n;
		uint8_t is;

		CU_CHECK_DOCA(DOCA_SUCCESS,
		              doca_devinfo_rep_create_list(e->dev, DOCA_DEVINFO_REP_FILTER_NET,
		                                           &reps, &n));
		for (uint32_t i = 0; i < n && e->rep == NULL; i++)
			if (doca_devinfo_rep_is_equal_pci_addr(reps[i], CU_HOST_PCI, &is) ==
			            DOCA_SUCCESS &&
			    is)
				CU_CHECK_DOCA(DOCA_SUCCESS, doca_dev_rep_open(reps[i], &e->rep));
		doca_devinfo_rep_destroy_list(reps);
		CU_CHECK(e->rep != NULL);
	}
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_pe_create(&e->pe));
}

static struct cu_ep *ep_of_conn(struct doca_comch_connection *conn)
{
	struct doca_comch_server *s = doca_comch_server_get_server_ctx(conn);
	struct doca_comch_client *c = doca_comch_client_get_client_ctx(conn);
	union doca_data ud;

	CU_CHECK((s == NULL) != (c == NULL));
	CU_CHECK_DOCA(DOCA_SUCCESS,
	              doca_ctx_get_user_data(
	                      s ? doca_comch_server_as_ctx(s) : doca_comch_client_as_ctx(c), &ud));
	return ud.ptr;
}

static void cb_sent(struct doca_comch_task_send *task, union doca_data tud, union doca_data cud)
{
	struct cu_ep *e = cud.ptr;

	(void)tud;
	e->sent_ok++;
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void cb_send_err(struct doca_comch_task_send *task, union doca_data tud, union doca_data cud)
{
	struct cu_ep *e = cud.ptr;

	(void)tud;
	e->sent_err++;
	e->last_send_status = doca_task_get_status(doca_comch_task_send_as_task(task));
	doca_task_free(doca_comch_task_send_as_task(task));
}

/* Echoes what arrived and was not echoed yet; stops at a full peer queue (AGAIN). */
static void cu_flush_echo(struct cu_ep *e, struct doca_comch_connection *conn)
{
	while (e->echo && conn != NULL && e->echoed < e->nrx) {
		struct doca_comch_task_send *t;
		doca_error_t r = doca_comch_server_task_send_alloc_init(
		        e->srv, conn, e->rx[e->echoed], e->rx_len[e->echoed], &t);

		if (r == DOCA_ERROR_NO_MEMORY)
			return;
		CU_CHECK_DOCA(DOCA_SUCCESS, r);
		r = doca_task_submit(doca_comch_task_send_as_task(t));
		if (r == DOCA_ERROR_AGAIN) {
			doca_task_free(doca_comch_task_send_as_task(t));
			return;
		}
		CU_CHECK_DOCA(DOCA_SUCCESS, r);
		e->echoed++;
	}
}

static void cb_recv(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len,
                    struct doca_comch_connection *conn)
{
	struct cu_ep *e = ep_of_conn(conn);

	CU_CHECK(ev != NULL && buf != NULL && len > 0);
	if (e->stop_then_copy)
		(void)doca_ctx_stop(
		        e->ctx); /* the message stays valid until the callback returns */
	if (e->nrx < CU_MAX_RX) {
		e->rx[e->nrx] = malloc(len);
		CU_CHECK(e->rx[e->nrx] != NULL);
		memcpy(e->rx[e->nrx], buf, len);
		e->rx_len[e->nrx] = len;
		e->nrx++;
	}
	if (e->echo)
		cu_flush_echo(e, conn);
	if (e->stop_on_recv)
		(void)doca_ctx_stop(e->ctx);
}

static void cb_connect(struct doca_comch_event_connection_status_changed *ev,
                       struct doca_comch_connection *conn, uint8_t ok)
{
	struct cu_ep *e;
	union doca_data ud;

	CU_CHECK(ev != NULL && ok == 1);
	e = ep_of_conn(conn);
	ud.ptr = e;
	e->connects++;
	if (e->hear_on_connect) /* without progressing: the peer goes on meanwhile */
		CU_CHECK(cu_hear(NULL, 5000) != 0);
	if (e->drop_second && e->conn != NULL) {
		CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_server_disconnect(e->srv, conn));
		e->dropped++;
		return;
	}
	e->conn = conn;
	if (e->nconns < CU_MAX_CONNS)
		e->conns[e->nconns++] = conn;
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_comch_connection_set_user_data(conn, ud));
}

static void cb_disconnect(struct doca_comch_event_connection_status_changed *ev,
                          struct doca_comch_connection *conn, uint8_t ok)
{
	struct cu_ep *e;

	CU_CHECK(ev != NULL && ok == 1);
	e = ep_of_conn(conn);
	e->disconnects++;
	if (e->on_disconnect != NULL)
		e->on_disconnect(e, conn);
	if (e->conn == conn)
		e->conn = NULL;
}

static void cb_new_cons(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn,
                        uint32_t id)
{
	struct cu_ep *e = ep_of_conn(conn);

	CU_CHECK(ev != NULL && id != 0);
	e->new_cons++;
	e->last_cons_id = id;
}

static void cb_gone_cons(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn,
                         uint32_t id)
{
	struct cu_ep *e = ep_of_conn(conn);

	CU_CHECK(ev != NULL && id != 0);
	e->gone_cons++;
	e->gone_cons_id = id;
}

static void cb_state(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
                     enum doca_ctx_states next)
{
	struct cu_ep *e = ud.ptr;

	(void)ctx;
	(void)prev;
	e->states_seen++;
	if (next == DOCA_CTX_STATE_RUNNING) {
		e->passed_running = true;
		if (!e->server)
			CU_CHECK_DOCA(DOCA_SUCCESS,
			              doca_comch_client_get_connection(e->cli, &e->conn));
	}
}

static doca_error_t cu_common_conf(struct cu_ep *e, uint32_t recv_queue, uint32_t tasks)
{
	union doca_data ud = { .ptr = e };
	doca_error_t r;

	r = doca_pe_connect_ctx(e->pe, e->ctx);
	if (r == DOCA_SUCCESS)
		r = doca_ctx_set_user_data(e->ctx, ud);
	if (r == DOCA_SUCCESS)
		r = doca_ctx_set_state_changed_cb(e->ctx, cb_state);
	if (r != DOCA_SUCCESS)
		return r;
	if (e->server) {
		if (tasks != 0)
			r = doca_comch_server_task_send_set_conf(e->srv, cb_sent, cb_send_err,
			                                         tasks);
		if (r == DOCA_SUCCESS)
			r = doca_comch_server_event_msg_recv_register(e->srv, cb_recv);
		if (r == DOCA_SUCCESS)
			r = doca_comch_server_event_connection_status_changed_register(
			        e->srv, cb_connect, cb_disconnect);
		if (r == DOCA_SUCCESS)
			r = doca_comch_server_event_consumer_register(e->srv, cb_new_cons,
			                                              cb_gone_cons);
		if (r == DOCA_SUCCESS && recv_queue)
			r = doca_comch_server_set_recv_queue_size(e->srv, recv_queue);
	} else {
		if (tasks != 0)
			r = doca_comch_client_task_send_set_conf(e->cli, cb_sent, cb_send_err,
			                                         tasks);
		if (r == DOCA_SUCCESS)
			r = doca_comch_client_event_msg_recv_register(e->cli, cb_recv);
		if (r == DOCA_SUCCESS)
			r = doca_comch_client_event_consumer_register(e->cli, cb_new_cons,
			                                              cb_gone_cons);
		if (r == DOCA_SUCCESS && recv_queue)
			r = doca_comch_client_set_recv_queue_size(e->cli, recv_queue);
	}
	return r;
}

doca_error_t cu_server_start(struct cu_ep *e, const char *name, uint32_t recv_queue, uint32_t tasks)
{
	doca_error_t r = doca_comch_server_create(e->dev, e->rep, name, &e->srv);

	if (r != DOCA_SUCCESS)
		return r;
	e->ctx = doca_comch_server_as_ctx(e->srv);
	r = cu_common_conf(e, recv_queue, tasks);
	return r == DOCA_SUCCESS ? doca_ctx_start(e->ctx) : r;
}

doca_error_t cu_client_start(struct cu_ep *e, const char *name, uint32_t recv_queue, uint32_t tasks)
{
	doca_error_t r = doca_comch_client_create(e->dev, name, &e->cli);

	if (r != DOCA_SUCCESS)
		return r;
	e->ctx = doca_comch_client_as_ctx(e->cli);
	r = cu_common_conf(e, recv_queue, tasks);
	return r == DOCA_SUCCESS ? doca_ctx_start(e->ctx) : r;
}

static enum doca_ctx_states cu_state(struct cu_ep *e)
{
	enum doca_ctx_states s;

	CU_CHECK_DOCA(DOCA_SUCCESS, doca_ctx_get_state(e->ctx, &s));
	return s;
}

bool cu_is_running(struct cu_ep *e)
{
	return cu_state(e) == DOCA_CTX_STATE_RUNNING;
}

bool cu_is_idle(struct cu_ep *e)
{
	return cu_state(e) == DOCA_CTX_STATE_IDLE;
}

bool cu_has_conn(struct cu_ep *e)
{
	return e->conn != NULL;
}

/*
 * One round of progress; when it found nothing to do, a sleep that doubles from 20 us up to
 * 1 ms while the PE stays idle (*@idle_ns), and starts over once it finds work: a peer that
 * waits for seconds costs little CPU, one that ping-pongs keeps its pace.
 */
static void cu_progress_once(struct cu_ep *e, long *idle_ns)
{
	if (doca_pe_progress(e->pe) != 0) {
		*idle_ns = 0;
		return;
	}
	*idle_ns = *idle_ns == 0 ? 20000 : (*idle_ns >= 500000 ? 1000000 : *idle_ns * 2);
	nanosleep(&(struct timespec){ .tv_nsec = *idle_ns }, NULL);
}

bool cu_progress_until(struct cu_ep *e, bool (*done)(struct cu_ep *), unsigned int ms)
{
	uint64_t end = cu_now_ms() + ms;
	long idle_ns = 0;

	while (!done(e)) {
		if (cu_now_ms() > end)
			return done(e);
		cu_progress_once(e, &idle_ns);
		if (e->echo && e->conn != NULL && e->echoed < e->nrx)
			cu_flush_echo(e, e->conn);
	}
	return true;
}

void cu_progress_for(struct cu_ep *e, unsigned int ms)
{
	uint64_t end = cu_now_ms() + ms;
	long idle_ns = 0;

	while (cu_now_ms() < end)
		cu_progress_once(e, &idle_ns);
}

doca_error_t cu_send(struct cu_ep *e, const void *msg, uint32_t len)
{
	struct doca_comch_task_send *t;
	doca_error_t r;

	r = e->server ? doca_comch_server_task_send_alloc_init(e->srv, e->conn, msg, len, &t)
	              : doca_comch_client_task_send_alloc_init(e->cli, e->conn, msg, len, &t);
	if (r != DOCA_SUCCESS)
		return r;
	r = doca_task_submit(doca_comch_task_send_as_task(t));
	if (r != DOCA_SUCCESS)
		doca_task_free(doca_comch_task_send_as_task(t));
	return r;
}

bool cu_close(struct cu_ep *e)
{
	doca_error_t r;
	bool ok = true;

	if (e->ctx != NULL) {
		if (!cu_is_idle(e)) { /* a test may have stopped it already */
			r = doca_ctx_stop(e->ctx);
			ok &= r == DOCA_SUCCESS || r == DOCA_ERROR_IN_PROGRESS;
			ok &= cu_progress_until(e, cu_is_idle, 5000);
		}
		r = e->server ? doca_comch_server_destroy(e->srv)
		              : doca_comch_client_destroy(e->cli);
		if (r != DOCA_SUCCESS)
			fprintf(stderr, "destroy: %s\n", doca_error_get_name(r));
		ok &= r == DOCA_SUCCESS;
	}
	ok &= doca_pe_destroy(e->pe) == DOCA_SUCCESS;
	if (e->rep != NULL)
		ok &= doca_dev_rep_close(e->rep) == DOCA_SUCCESS;
	ok &= doca_dev_close(e->dev) == DOCA_SUCCESS;
	for (uint32_t i = 0; i < e->nrx; i++)
		free(e->rx[i]);
	e->nrx = 0;
	return ok;
}

pid_t cu_fork_any(int (*fn)(void *), void *arg, unsigned int secs)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		alarm(secs);
		_exit(fn(arg));
	}
	return pid;
}

pid_t cu_fork(int (*fn)(void *), void *arg, unsigned int secs)
{
	return tu_fork_safe("cu_fork") ? cu_fork_any(fn, arg, secs) : -1;
}

pid_t cu_fork_gated(int (*fn)(void *), void *arg, unsigned int secs, int *gate)
{
	int p[2];
	pid_t pid;
	char c;

	if (!tu_fork_safe("cu_fork_gated") || pipe(p) != 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		alarm(secs);
		if (read(p[0], &c, 1) != 1)
			_exit(98);
		close(p[0]);
		_exit(fn(arg));
	}
	close(p[0]);
	*gate = p[1];
	return pid;
}

void cu_release(int gate)
{
	char c = 'g';

	CU_CHECK(write(gate, &c, 1) == 1);
	close(gate);
}

char cu_name[64];

int cu_next_name(void **state)
{
	static unsigned int n;

	(void)state;
	snprintf(cu_name, sizeof(cu_name), "odma test server %u", ++n);
	return 0;
}

int cu_join(pid_t pid, unsigned int secs)
{
	return cu_join_progress(pid, NULL, secs);
}

int cu_join_progress(pid_t pid, struct cu_ep *e, unsigned int secs)
{
	uint64_t end = cu_now_ms() + secs * 1000ull;
	int st;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
		if (r < 0 && errno != EINTR)
			return -1;
		if (cu_now_ms() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return -1;
		}
		if (e == NULL)
			usleep(1000);
		else if (doca_pe_progress(e->pe) == 0)
			usleep(50);
	}
}

void cu_sync_init(void)
{
	for (int i = 0; i < 2; i++) {
		if (cu_pipes[i][0] >= 0) {
			close(cu_pipes[i][0]);
			close(cu_pipes[i][1]);
		}
		if (pipe(cu_pipes[i]) != 0) {
			perror("pipe");
			exit(1);
		}
	}
}

void cu_sync_side(bool child)
{
	cu_rd = child ? cu_pipes[0][0] : cu_pipes[1][0];
	cu_wr = child ? cu_pipes[1][1] : cu_pipes[0][1];
}

void cu_tell(char c)
{
	CU_CHECK(write(cu_wr, &c, 1) == 1);
}

char cu_hear(struct cu_ep *e, unsigned int ms)
{
	uint64_t end = cu_now_ms() + ms;
	char c;

	for (;;) {
		struct pollfd p = { .fd = cu_rd, .events = POLLIN };

		if (poll(&p, 1, e != NULL ? 0 : 1) == 1) {
			if (read(cu_rd, &c, 1) == 1)
				return c;
			return 0; /* the other side closed its end */
		}
		if (cu_now_ms() > end)
			return 0;
		if (e != NULL && doca_pe_progress(e->pe) == 0)
			usleep(20);
	}
}

void cu_log_capture(void)
{
	struct doca_log_backend *be;

	cu_log = tmpfile();
	CU_CHECK(cu_log != NULL);
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_log_backend_create_with_file_sdk(cu_log, &be));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_log_backend_set_sdk_level(be, DOCA_LOG_LEVEL_WARNING));
}

bool cu_log_has(const char *needle)
{
	char line[4096];
	bool found = false;

	fflush(cu_log);
	rewind(cu_log);
	while (!found && fgets(line, sizeof(line), cu_log) != NULL)
		found = strstr(line, needle) != NULL;
	fseek(cu_log, 0, SEEK_END);
	return found;
}

void cu_mem_init(struct cu_mem *m, struct doca_dev *dev, size_t len, uint32_t nbufs)
{
	uint8_t *base = calloc(1, len);

	CU_CHECK(base != NULL);
	cu_mem_init_over(m, dev, base, len, nbufs);
	m->borrowed = false;
}

void cu_mem_init_over(struct cu_mem *m, struct doca_dev *dev, uint8_t *base, size_t len,
                      uint32_t nbufs)
{
	memset(m, 0, sizeof(*m));
	m->base = base;
	m->len = len;
	m->borrowed = true;
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_mmap_create(&m->mmap));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_mmap_add_dev(m->mmap, dev));
	CU_CHECK_DOCA(DOCA_SUCCESS,
	              doca_mmap_set_permissions(m->mmap, DOCA_ACCESS_FLAG_PCI_READ_WRITE));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_mmap_set_memrange(m->mmap, m->base, len));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_mmap_start(m->mmap));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_buf_inventory_create(nbufs, &m->inv));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_buf_inventory_start(m->inv));
}

void cu_mem_fini(struct cu_mem *m)
{
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_buf_inventory_destroy(m->inv));
	CU_CHECK_DOCA(DOCA_SUCCESS, doca_mmap_destroy(m->mmap));
	if (!m->borrowed)
		free(m->base);
}
