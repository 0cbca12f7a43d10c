/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Comch servers and clients: creation, configuration, capabilities, the handshake and the
 * context ops (start, progress, stop, idle_ready). The server listens on its socket and
 * accepts clients from its progress; the client connects from its progress (retrying until
 * ODMA_COMCH_CONNECT_TIMEOUT_MS) and becomes RUNNING when the server welcomes it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "comch/comch.h"
#include "core/error/error.h"
#include "core/log/log.h"
#include "util/container_of.h"

ODMA_LOG_REGISTER(DOCA_COMCH)

/* An accepted socket whose HELLO has not arrived yet. */
struct comch_hs {
	struct comch_hs *next;
	int fd;
	uint64_t deadline_ns;
};

static struct comch_ep *ep_of(const struct doca_ctx *ctx)
{
	return odma_container_of(ctx, struct comch_ep, ctx);
}

/* ---- capabilities --------------------------------------------------------------------- */

static doca_error_t cap_check(const struct doca_devinfo *devinfo, const void *out, const char *func)
{
	if (devinfo == NULL || out == NULL) {
		ODMA_ERR("%s: devinfo and the output pointer must not be NULL", func);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!devinfo->caps.comch) {
		ODMA_ERR("%s: device %s has no Comch (comch=no in its system profile)", func,
		         devinfo->pci_addr);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	return DOCA_SUCCESS;
}

#define COMCH_CAP_GETTER(fn, type, expr)                                                           \
	doca_error_t fn(const struct doca_devinfo *devinfo, type *out)                             \
	{                                                                                          \
		doca_error_t r = cap_check(devinfo, out, __func__);                                \
		if (r != DOCA_SUCCESS)                                                             \
			return r;                                                                  \
		*out = (expr);                                                                     \
		return DOCA_SUCCESS;                                                               \
	}

COMCH_CAP_GETTER(doca_comch_cap_get_max_name_len, uint32_t, COMCH_NAME_MAX)
COMCH_CAP_GETTER(doca_comch_cap_get_max_msg_size, uint32_t, devinfo->caps.comch_max_msg_size)
COMCH_CAP_GETTER(doca_comch_cap_get_max_recv_queue_size, uint32_t,
                 devinfo->caps.comch_max_recv_queue)
COMCH_CAP_GETTER(doca_comch_cap_get_max_clients, uint32_t, devinfo->caps.comch_max_clients)
COMCH_CAP_GETTER(doca_comch_cap_get_max_send_tasks, uint32_t, devinfo->caps.comch_max_send_tasks)

static doca_error_t cap_side(const struct doca_devinfo *devinfo, enum odma_side side,
                             const char *func)
{
	if (devinfo == NULL) {
		ODMA_ERR("%s: devinfo must not be NULL", func);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return devinfo->caps.comch && devinfo->side == side ? DOCA_SUCCESS
	                                                    : DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_comch_cap_server_is_supported(const struct doca_devinfo *devinfo)
{
	return cap_side(devinfo, ODMA_SIDE_DPU, __func__);
}

doca_error_t doca_comch_cap_client_is_supported(const struct doca_devinfo *devinfo)
{
	return cap_side(devinfo, ODMA_SIDE_HOST, __func__);
}

/* ---- send-task message copies ---------------------------------------------------------- */

uint8_t *comch_task_msg(struct comch_ep *ep, const struct doca_comch_task_send *task)
{
	size_t idx =
	        (size_t)((const char *)task - (const char *)ep->ctx.pool) / ep->ctx.ops->task_size;

	return ep->arena + idx * ep->arena_slot;
}

/* One message slot per task of the pool (calloc: pages are touched only when used). */
static doca_error_t ep_arena_prepare(struct comch_ep *ep)
{
	uint32_t n = ep->ctx.num_tasks;

	if (ep->arena != NULL && ep->arena_n == n && ep->arena_slot == ep->max_msg)
		return DOCA_SUCCESS;
	free(ep->arena);
	ep->arena = NULL;
	ep->arena_n = 0;
	if (n == 0)
		return DOCA_SUCCESS;
	ep->arena = calloc(n, ep->max_msg);
	if (ep->arena == NULL) {
		ODMA_ERR("comch %s %p: no memory for %u messages of %u bytes", comch_ep_kind(ep),
		         (void *)ep, n, ep->max_msg);
		return DOCA_ERROR_NO_MEMORY;
	}
	ep->arena_n = n;
	ep->arena_slot = ep->max_msg;
	return DOCA_SUCCESS;
}

static doca_error_t ep_rx_prepare(struct comch_ep *ep)
{
	size_t need = sizeof(struct comch_wire_hdr) +
	              (ep->max_msg > sizeof(struct comch_hello) + COMCH_NAME_MAX
	                       ? ep->max_msg
	                       : sizeof(struct comch_hello) + COMCH_NAME_MAX) +
	              64;

	if (ep->rx != NULL && ep->rx_cap >= need)
		return DOCA_SUCCESS;
	free(ep->rx);
	ep->rx = malloc(need);
	if (ep->rx == NULL)
		return DOCA_ERROR_NO_MEMORY;
	ep->rx_cap = need;
	return DOCA_SUCCESS;
}

/* ---- common ------------------------------------------------------------------------------ */

static doca_error_t ep_init(struct comch_ep *ep, struct doca_dev *dev, const char *name,
                            bool server, const struct odma_ctx_ops *ops)
{
	const struct odma_system *sys = doca_priv_system();
	doca_error_t r;

	if (sys == NULL) {
		ODMA_ERR("comch %s: no emulated system is loaded (check ODMA_SYSTEM / ODMA_SIDE)",
		         server ? "server" : "client");
		return DOCA_ERROR_INITIALIZATION;
	}
	r = doca_priv_ctx_init(&ep->ctx, ops, dev);
	if (r != DOCA_SUCCESS)
		return r;
	/* send tasks queue behind the peer's receive queue, not the device's DMA queue */
	ep->ctx.queue_depth = UINT32_MAX;
	ep->is_server = server;
	snprintf(ep->name, sizeof(ep->name), "%s", name);
	ep->max_msg = dev->info->caps.comch_max_msg_size;
	ep->recv_queue = COMCH_DEFAULT_RECV_QUEUE < dev->info->caps.comch_max_recv_queue
	                         ? COMCH_DEFAULT_RECV_QUEUE
	                         : dev->info->caps.comch_max_recv_queue;
	ep->system_id = sys->id;
	ep->system_name = sys->name;
	ep->lfd = -1;
	ep->cfd = -1;
	ep->link_fd = -1;
	return DOCA_SUCCESS;
}

static doca_error_t check_name(const char *name, const char *func)
{
	size_t len = strnlen(name, COMCH_NAME_MAX);

	if (len == 0 || len >= COMCH_NAME_MAX) {
		ODMA_ERR("%s: the server name must be 1..%u bytes (doca_comch_cap_get_max_name_len "
		         "counts the NUL)",
		         func, COMCH_NAME_MAX - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t ep_check_idle(const struct comch_ep *ep, const char *what)
{
	if (ep->ctx.state == DOCA_CTX_STATE_IDLE)
		return DOCA_SUCCESS;
	ODMA_ERR("comch %s %p is not IDLE; %s can only be set before doca_ctx_start (or after a "
	         "full stop)",
	         comch_ep_kind(ep), (const void *)ep, what);
	return DOCA_ERROR_BAD_STATE;
}

static doca_error_t ep_set_max_msg(struct comch_ep *ep, uint32_t size)
{
	uint32_t cap = ep->ctx.caps->comch_max_msg_size;

	if (ep_check_idle(ep, "the max message size") != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	ODMA_CHECK_ARG(
	        size >= 1 && size <= cap,
	        "comch %s: max message size %u is outside 1..%u (doca_comch_cap_get_max_msg_size)",
	        comch_ep_kind(ep), size, cap);
	ep->max_msg = size;
	return DOCA_SUCCESS;
}

static doca_error_t ep_set_recv_queue(struct comch_ep *ep, uint32_t size)
{
	uint32_t cap = ep->ctx.caps->comch_max_recv_queue;

	if (ep_check_idle(ep, "the receive queue size") != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	ODMA_CHECK_ARG(size >= 1 && size <= cap,
	               "comch %s: receive queue size %u is outside 1..%u "
	               "(doca_comch_cap_get_max_recv_queue_size)",
	               comch_ep_kind(ep), size, cap);
	ep->recv_queue = size;
	return DOCA_SUCCESS;
}

static doca_error_t ep_set_send_conf(struct comch_ep *ep, doca_comch_task_send_completion_cb_t ok,
                                     doca_comch_task_send_completion_cb_t err, uint32_t num)
{
	uint32_t cap = ep->ctx.caps->comch_max_send_tasks;

	ODMA_CHECK_ARG(ok != NULL && err != NULL, "comch %s: both send callbacks are required",
	               comch_ep_kind(ep));
	if (ep_check_idle(ep, "the send task configuration") != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	ODMA_CHECK_ARG(
	        num >= 1 && num <= cap,
	        "comch %s: %u send tasks is outside 1..%u (doca_comch_cap_get_max_send_tasks)",
	        comch_ep_kind(ep), num, cap);
	ep->send_ok = ok;
	ep->send_err = err;
	ep->ctx.num_tasks = num;
	ep->ctx.configured = true;
	return DOCA_SUCCESS;
}

static doca_error_t ep_send_alloc(struct comch_ep *ep, struct doca_comch_connection *peer,
                                  const void *msg, uint32_t len, struct doca_comch_task_send **task,
                                  const char *func)
{
	struct doca_task *t;
	struct doca_comch_task_send *st;
	doca_error_t r;

	if (ep->ctx.state != DOCA_CTX_STATE_RUNNING) {
		ODMA_ERR("%s: comch %s %p is not RUNNING; send only on a running context", func,
		         comch_ep_kind(ep), (void *)ep);
		return DOCA_ERROR_BAD_STATE;
	}
	if (!comch_ep_owns(ep, peer)) {
		ODMA_ERR("%s: connection %p is not a connection of %s %p (or it was dropped)", func,
		         (void *)peer, comch_ep_kind(ep), (void *)ep);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (atomic_load_explicit(&peer->dead, memory_order_acquire)) {
		ODMA_ERR("%s: connection %p is closed; the peer went away", func, (void *)peer);
		return DOCA_ERROR_NOT_CONNECTED;
	}
	if (len == 0 || len > peer->max_msg) {
		ODMA_ERR("%s: message of %u bytes; a connection carries 1..%u bytes per message "
		         "(the smaller of both sides' max message size)",
		         func, len, peer->max_msg);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ep->send_ok == NULL) {
		ODMA_ERR("%s: send tasks are not configured; call the task_send_set_conf function "
		         "before start",
		         func);
		return DOCA_ERROR_BAD_STATE;
	}
	r = doca_priv_task_alloc(&ep->ctx, &t);
	if (r != DOCA_SUCCESS)
		return r;
	st = (struct doca_comch_task_send *)t;
	st->conn = peer;
	st->len = len;
	memcpy(comch_task_msg(ep, st), msg, len);
	*task = st;
	return DOCA_SUCCESS;
}

/* Frees what a started endpoint owns once it is IDLE (not its connections: see destroy). */
static void ep_release_io(struct comch_ep *ep)
{
	while (ep->hs != NULL) {
		struct comch_hs *h = ep->hs;

		ep->hs = h->next;
		close(h->fd);
		free(h);
	}
	if (ep->lfd >= 0) {
		struct stat st;

		close(ep->lfd);
		ep->lfd = -1;
		/* remove the socket only if it is still ours (a restarted server may own it) */
		if (stat(ep->path, &st) == 0 && st.st_dev == ep->path_dev &&
		    st.st_ino == ep->path_ino)
			unlink(ep->path);
	}
	if (ep->cfd >= 0) {
		close(ep->cfd);
		ep->cfd = -1;
	}
	if (ep->link_fd >= 0) {
		close(ep->link_fd);
		ep->link_fd = -1;
	}
	if (ep->link != NULL)
		munmap(ep->link, COMCH_LINK_BYTES); /* not handed to a connection yet */
	ep->link = NULL;
}

/* Connections whose end was handled and that nothing else holds. */
static void ep_reap(struct comch_ep *ep, bool all)
{
	struct doca_comch_connection **pp = &ep->conns;

	while (*pp != NULL) {
		struct doca_comch_connection *c = *pp;

		if (all || (c->notified && atomic_load(&c->refs) == 1)) {
			*pp = c->next;
			comch_conn_put(c);
			continue;
		}
		pp = &c->next;
	}
}

static bool ep_fastpath_busy(struct comch_ep *ep)
{
	if (ep->is_server) {
		for (struct doca_comch_connection *c = ep->conns; c != NULL; c = c->next)
			if (atomic_load(&c->refs) > 1)
				return true;
		return false;
	}
	return ep->conn != NULL && atomic_load(&ep->conn->refs) > 1;
}

static doca_error_t ep_destroy(struct comch_ep *ep, const char *func)
{
	doca_error_t r;

	if (ep->ctx.state == DOCA_CTX_STATE_IDLE && ep_fastpath_busy(ep)) {
		ODMA_ERR("%s: producers or consumers still exist on a connection of %s %p; destroy "
		         "them first",
		         func, comch_ep_kind(ep), (void *)ep);
		return DOCA_ERROR_IN_USE;
	}
	r = doca_priv_ctx_destroy(&ep->ctx);
	if (r != DOCA_SUCCESS)
		return r;
	ep_release_io(ep);
	ep_reap(ep, true);
	if (ep->conn != NULL)
		comch_conn_put(ep->conn);
	free(ep->arena);
	free(ep->rx);
	free(ep);
	return DOCA_SUCCESS;
}

bool comch_ep_owns(const struct comch_ep *ep, const struct doca_comch_connection *conn)
{
	if (conn == NULL)
		return false;
	if (!ep->is_server)
		return conn == ep->conn;
	for (const struct doca_comch_connection *c = ep->conns; c != NULL; c = c->next)
		if (c == conn)
			return !c->dropped;
	return false;
}

/* ---- server ---------------------------------------------------------------------------- */

/*
 * Binds fd to sa; a stale socket file (no listener) is replaced. Returns DOCA_SUCCESS with errno
 * set to 0 on success or to the bind failure; DOCA_ERROR_ALREADY_EXIST if a live server listens.
 */
static doca_error_t server_bind(struct comch_ep *ep, int fd, const struct sockaddr_un *sa)
{
	if (bind(fd, (const struct sockaddr *)sa, sizeof(*sa)) != 0 && errno == EADDRINUSE) {
		int probe = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		bool live =
		        probe >= 0 && connect(probe, (const struct sockaddr *)sa, sizeof(*sa)) == 0;

		if (probe >= 0)
			close(probe);
		if (live) {
			ODMA_ERR("comch server \"%s\": another server of that name already listens "
			         "on representor %s of system %s (socket %s); stop it or pick "
			         "another name",
			         ep->name, ep->rep->info->pci_addr, ep->system_name, ep->path);
			return DOCA_ERROR_ALREADY_EXIST;
		}
		unlink(ep->path); /* left behind by a process that ended without stopping */
		if (bind(fd, (const struct sockaddr *)sa, sizeof(*sa)) != 0)
			errno = errno ? errno : EADDRINUSE;
		else
			errno = 0;
	} else {
		errno = 0;
	}
	return DOCA_SUCCESS;
}

/* Binds the listening socket; a stale socket file (no listener) is replaced. */
static doca_error_t server_listen(struct comch_ep *ep)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char lockpath[sizeof(ep->path) + 8];
	doca_error_t r = DOCA_SUCCESS;
	struct stat st;
	int fd, lk;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", ep->path);
	snprintf(lockpath, sizeof(lockpath), "%s.lock", ep->path);
	lk = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lk >= 0)
		(void)flock(lk, LOCK_EX);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ODMA_ERR("comch server \"%s\": socket() failed: %s", ep->name, strerror(errno));
		r = DOCA_ERROR_OPERATING_SYSTEM;
		goto out;
	}
	r = server_bind(ep, fd, &sa);
	if (r != DOCA_SUCCESS)
		goto out;
	if (errno != 0 || listen(fd, 128) != 0 || stat(ep->path, &st) != 0) {
		ODMA_ERR("comch server \"%s\": cannot listen on %s: %s", ep->name, ep->path,
		         strerror(errno));
		r = DOCA_ERROR_INITIALIZATION;
		goto out;
	}
	ep->path_dev = st.st_dev;
	ep->path_ino = st.st_ino;
	ep->lfd = fd;
	fd = -1;
out:
	if (fd >= 0)
		close(fd);
	if (lk >= 0)
		close(lk); /* releases the lock */
	return r;
}

static doca_error_t ep_start_common(struct comch_ep *ep)
{
	const char *rep_pci = ep->is_server ? ep->rep->info->pci_addr : ep->ctx.dev->info->pci_addr;
	const char *why = "";
	doca_error_t r;

	if (doca_priv_faults_comch(&ep->faults) != DOCA_SUCCESS)
		return DOCA_ERROR_INVALID_VALUE;
	ep->rng = ep->faults.seed ^ (uint64_t)(uintptr_t)ep;
	r = ep_arena_prepare(ep);
	if (r == DOCA_SUCCESS)
		r = ep_rx_prepare(ep);
	if (r != DOCA_SUCCESS)
		return r;
	if (!comch_server_path(ep->path, sizeof(ep->path), ep->system_id, rep_pci, ep->name,
	                       &why)) {
		ODMA_ERR("comch %s \"%s\": no usable runtime directory (ODMA_RUNDIR, else "
		         "$XDG_RUNTIME_DIR/odma, else /tmp/odma-UID): %s",
		         comch_ep_kind(ep), ep->name, why);
		return DOCA_ERROR_INITIALIZATION;
	}
	return DOCA_SUCCESS;
}

static doca_error_t server_start(struct doca_ctx *ctx)
{
	struct comch_ep *ep = ep_of(ctx);
	doca_error_t r = ep_start_common(ep);

	if (r != DOCA_SUCCESS)
		return r;
	ep_reap(ep, true);
	r = server_listen(ep);
	if (r != DOCA_SUCCESS)
		return r;
	ep->num_live = 0;
	ODMA_DBG("comch server \"%s\" listens on representor %s of system %s (%s)", ep->name,
	         ep->rep->info->pci_addr, ep->system_name, ep->path);
	return DOCA_SUCCESS;
}

static bool server_accept(struct comch_ep *ep)
{
	bool any = false;

	for (;;) {
		int fd = accept4(ep->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct comch_hs *h;

		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
			    errno != ECONNABORTED)
				ODMA_RATELIMITED_WARN("comch server \"%s\": accept failed: %s",
				                      ep->name, strerror(errno));
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return any;
		}
		h = calloc(1, sizeof(*h));
		if (h == NULL) {
			close(fd);
			return any;
		}
		h->fd = fd;
		h->deadline_ns = comch_now_ns() + (uint64_t)COMCH_HANDSHAKE_TIMEOUT_MS * 1000000ull;
		h->next = ep->hs;
		ep->hs = h;
		any = true;
	}
}

/* Records the peer's pid on conn when the kernel reports it. */
static void ep_peer_pid(struct doca_comch_connection *conn, int fd)
{
	struct ucred cred;
	socklen_t cl = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) == 0)
		conn->peer_pid = cred.pid;
}

static void server_reject(struct comch_ep *ep, int fd, doca_error_t code, const char *why)
{
	ODMA_WARN("comch server \"%s\": refused a client: %s", ep->name, why);
	(void)comch_wire_send(fd, COMCH_W_REJECT, (uint32_t)code, why, strlen(why), -1);
}

/*
 * Checks a HELLO already copied into *hello (plen: its payload length) against this server;
 * on a mismatch the client is told why and false is returned.
 */
static bool server_hello_ok(struct comch_ep *ep, int fd, const struct comch_hello *hello,
                            size_t plen)
{
	const struct comch_wire_hdr *hdr = (const void *)ep->rx;

	if (hello->magic != COMCH_WIRE_MAGIC || hello->version != COMCH_WIRE_VERSION) {
		server_reject(ep, fd, DOCA_ERROR_UNSUPPORTED_VERSION,
		              "protocol version mismatch (odma versions differ?)");
		return false;
	}
	if (hello->name_len != plen - sizeof(*hello) || hello->name_len != strlen(ep->name) ||
	    memcmp(ep->rx + sizeof(*hdr) + sizeof(*hello), ep->name, hello->name_len) != 0 ||
	    hello->system_id != ep->system_id) {
		server_reject(ep, fd, DOCA_ERROR_NOT_FOUND,
		              "server name or emulated system differs");
		return false;
	}
	if (hello->max_msg == 0 || hello->recv_queue == 0) {
		server_reject(ep, fd, DOCA_ERROR_INVALID_VALUE, "bad HELLO parameters");
		return false;
	}
	if (ep->num_live >= ep->ctx.caps->comch_max_clients) {
		server_reject(ep, fd, DOCA_ERROR_FULL,
		              "the server already serves its maximum number of clients "
		              "(doca_comch_cap_get_max_clients)");
		return false;
	}
	return true;
}

/* Handles a HELLO; returns the new connection (fd now owned by it) or NULL (fd to close). */
static struct doca_comch_connection *server_hello(struct comch_ep *ep, int fd, ssize_t n,
                                                  int link_fd)
{
	const struct comch_wire_hdr *hdr = (const void *)ep->rx;
	struct comch_hello hello;
	struct comch_welcome w = { .magic = COMCH_WIRE_MAGIC, .version = COMCH_WIRE_VERSION };
	struct doca_comch_connection *conn;
	struct comch_link *link;
	const char *why = "";
	size_t plen = (size_t)n - sizeof(*hdr);

	if (hdr->type != COMCH_W_HELLO || plen < sizeof(hello) || link_fd < 0) {
		ODMA_WARN("comch server \"%s\": a connection did not start with a valid HELLO; "
		          "closed",
		          ep->name);
		return NULL;
	}
	memcpy(&hello, ep->rx + sizeof(*hdr), sizeof(hello));
	if (!server_hello_ok(ep, fd, &hello, plen))
		return NULL;
	link = comch_shm_map(link_fd, COMCH_LINK_BYTES, &why);
	if (link == NULL || link->magic != COMCH_LINK_MAGIC) {
		if (link != NULL)
			munmap(link, COMCH_LINK_BYTES);
		server_reject(ep, fd, DOCA_ERROR_INVALID_VALUE,
		              "the client's link page is unusable");
		return NULL;
	}
	w.max_msg = ep->max_msg;
	w.recv_queue = ep->recv_queue;
	if (comch_wire_send(fd, COMCH_W_WELCOME, 0, &w, sizeof(w), -1) != 0) {
		munmap(link, COMCH_LINK_BYTES);
		return NULL;
	}
	conn = comch_conn_new(ep, fd, COMCH_SIDE_SERVER, link,
	                      ep->max_msg < hello.max_msg ? ep->max_msg : hello.max_msg,
	                      hello.recv_queue);
	if (conn == NULL) {
		munmap(link, COMCH_LINK_BYTES);
		return NULL;
	}
	ep_peer_pid(conn, fd);
	hello.pci[sizeof(hello.pci) - 1] = '\0';
	ODMA_DBG("comch server \"%s\": client pid %d (device %s) connected; max message %u bytes",
	         ep->name, (int)conn->peer_pid, hello.pci, conn->max_msg);
	return conn;
}

static bool server_handshakes(struct comch_ep *ep)
{
	struct comch_hs **pp = &ep->hs;
	uint64_t now = comch_now_ns();
	bool any = false;

	while (*pp != NULL && ep->ctx.state == DOCA_CTX_STATE_RUNNING) {
		struct comch_hs *h = *pp;
		struct doca_comch_connection *conn = NULL;
		int link_fd = -1;
		ssize_t n = comch_wire_recv(h->fd, ep->rx, ep->rx_cap, &link_fd);

		if (n == -EAGAIN && now < h->deadline_ns) {
			pp = &h->next;
			continue;
		}
		*pp = h->next;
		any = true;
		if (n > 0)
			conn = server_hello(ep, h->fd, n, link_fd);
		else if (n == -EAGAIN)
			ODMA_WARN("comch server \"%s\": a connection sent no HELLO within %u ms; "
			          "closed",
			          ep->name, COMCH_HANDSHAKE_TIMEOUT_MS);
		if (link_fd >= 0)
			close(link_fd);
		if (conn == NULL)
			close(h->fd);
		free(h);
		if (conn == NULL)
			continue;
		conn->next = ep->conns;
		ep->conns = conn;
		ep->num_live++;
		if (ep->connect_cb != NULL)
			ep->connect_cb(&ep->ev_conn, conn, 1);
		/* the callback may have stopped the server: the list head may have changed */
		pp = &ep->hs;
	}
	return any;
}

/* ---- client ---------------------------------------------------------------------------- */

static doca_error_t client_start(struct doca_ctx *ctx)
{
	struct comch_ep *ep = ep_of(ctx);
	uint32_t timeout_ms;
	doca_error_t r;

	if (comch_connect_timeout_ms(&timeout_ms) != DOCA_SUCCESS)
		return DOCA_ERROR_INVALID_VALUE; /* logged by the config module */
	if (ep->conn != NULL) {
		if (atomic_load(&ep->conn->refs) > 1) {
			ODMA_ERR("comch client %p: producers or consumers of the previous "
			         "connection still exist; destroy them before restarting",
			         (void *)ep);
			return DOCA_ERROR_IN_USE;
		}
		comch_conn_put(ep->conn);
		ep->conn = NULL;
	}
	r = ep_start_common(ep);
	if (r != DOCA_SUCCESS)
		return r;
	ep->link = comch_shm_create(COMCH_LINK_BYTES, &ep->link_fd, "odma-comch-link");
	if (ep->link == NULL) {
		ODMA_ERR("comch client \"%s\": cannot create the shared link page: %s", ep->name,
		         strerror(errno));
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	ep->link->magic = COMCH_LINK_MAGIC;
	ep->timeout_ms = timeout_ms;
	ep->deadline_ns = comch_now_ns() + (uint64_t)ep->timeout_ms * 1000000ull;
	ep->next_try_ns = 0;
	ep->hello_sent = false;
	ep->last_errno = 0;
	ODMA_DBG("comch client \"%s\": connecting through %s (device %s, system %s)", ep->name,
	         ep->path, ctx->dev->info->pci_addr, ep->system_name);
	return DOCA_ERROR_IN_PROGRESS;
}

static void client_fail_start(struct comch_ep *ep)
{
	ep_release_io(ep);
	doca_priv_ctx_set_state(&ep->ctx, DOCA_CTX_STATE_IDLE);
}

static bool client_try_connect(struct comch_ep *ep, uint64_t now)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct comch_hello *h;
	uint8_t buf[sizeof(struct comch_hello) + COMCH_NAME_MAX];
	size_t nlen = strlen(ep->name);
	int fd, e;

	ep->next_try_ns = now + 2000000ull; /* at most one attempt every 2 ms */
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ep->last_errno = errno;
		return false;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", ep->path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		ep->last_errno = errno;
		close(fd);
		return false;
	}
	h = (struct comch_hello *)buf;
	memset(h, 0, sizeof(*h));
	h->magic = COMCH_WIRE_MAGIC;
	h->version = COMCH_WIRE_VERSION;
	h->max_msg = ep->max_msg;
	h->recv_queue = ep->recv_queue;
	h->name_len = (uint32_t)nlen;
	h->system_id = ep->system_id;
	snprintf(h->pci, sizeof(h->pci), "%s", ep->ctx.dev->info->pci_addr);
	memcpy(buf + sizeof(*h), ep->name, nlen);
	e = comch_wire_send(fd, COMCH_W_HELLO, 0, buf, sizeof(*h) + nlen, ep->link_fd);
	if (e != 0) {
		ep->last_errno = e;
		close(fd);
		return false;
	}
	ep->cfd = fd;
	ep->hello_sent = true;
	return true;
}

/* The server's answer: RUNNING on WELCOME, IDLE on REJECT. */
static bool client_answer(struct comch_ep *ep)
{
	const struct comch_wire_hdr *hdr = (const void *)ep->rx;
	int pfd = -1;
	ssize_t n = comch_wire_recv(ep->cfd, ep->rx, ep->rx_cap, &pfd);
	struct comch_welcome w;
	struct doca_comch_connection *conn;

	if (pfd >= 0)
		close(pfd);
	if (n == -EAGAIN)
		return false;
	if (n > 0 && hdr->type == COMCH_W_REJECT) {
		ODMA_ERR("comch client \"%s\": server on system %s refused the connection: %.*s "
		         "(%s)",
		         ep->name, ep->system_name, (int)(n - (ssize_t)sizeof(*hdr)),
		         (const char *)(ep->rx + sizeof(*hdr)),
		         doca_error_get_name((doca_error_t)hdr->arg));
		client_fail_start(ep);
		return true;
	}
	if (n < (ssize_t)(sizeof(*hdr) + sizeof(w)) || hdr->type != COMCH_W_WELCOME) {
		/* the server went away during the handshake: try again until the deadline */
		ep->last_errno = n == 0 ? ECONNRESET : EPROTO;
		close(ep->cfd);
		ep->cfd = -1;
		ep->hello_sent = false;
		return true;
	}
	memcpy(&w, ep->rx + sizeof(*hdr), sizeof(w));
	if (w.magic != COMCH_WIRE_MAGIC || w.max_msg == 0 || w.recv_queue == 0) {
		ODMA_ERR("comch client \"%s\": the server's WELCOME is malformed", ep->name);
		client_fail_start(ep);
		return true;
	}
	conn = comch_conn_new(ep, ep->cfd, COMCH_SIDE_CLIENT, ep->link,
	                      ep->max_msg < w.max_msg ? ep->max_msg : w.max_msg, w.recv_queue);
	if (conn == NULL) {
		client_fail_start(ep);
		return true;
	}
	ep_peer_pid(conn, ep->cfd);
	ep->cfd = -1;    /* owned by the connection */
	ep->link = NULL; /* likewise */
	close(ep->link_fd);
	ep->link_fd = -1;
	ep->conn = conn;
	ODMA_DBG("comch client \"%s\": connected to server pid %d; max message %u bytes", ep->name,
	         (int)conn->peer_pid, conn->max_msg);
	doca_priv_ctx_set_state(&ep->ctx, DOCA_CTX_STATE_RUNNING);
	return true;
}

static bool client_connecting(struct comch_ep *ep)
{
	uint64_t now = comch_now_ns();

	if (ep->cfd < 0 && now >= ep->next_try_ns)
		(void)client_try_connect(ep, now);
	if (ep->cfd >= 0 && client_answer(ep))
		return true;
	if (ep->ctx.state == DOCA_CTX_STATE_STARTING && now >= ep->deadline_ns) {
		ODMA_ERR("comch client: no server named \"%s\" answered within %u ms on emulated "
		         "system %s for host device %s (socket %s: %s). Start the DPU side first "
		         "(a doca_comch_server on the representor of %s, ODMA_SIDE=dpu) with the "
		         "same ODMA_SYSTEM and ODMA_RUNDIR, or raise ODMA_COMCH_CONNECT_TIMEOUT_MS",
		         ep->name, ep->timeout_ms, ep->system_name, ep->ctx.dev->info->pci_addr,
		         ep->path, ep->last_errno ? strerror(ep->last_errno) : "no answer",
		         ep->ctx.dev->info->pci_addr);
		client_fail_start(ep);
		return true;
	}
	return false;
}

/* ---- context ops ----------------------------------------------------------------------- */

static bool ep_progress(struct doca_ctx *ctx)
{
	struct comch_ep *ep = ep_of(ctx);
	bool any = false;

	ep->dispatch++;
	if (ep->is_server) {
		if (ctx->state == DOCA_CTX_STATE_RUNNING) {
			any |= server_accept(ep);
			any |= server_handshakes(ep);
		}
		for (struct doca_comch_connection *c = ep->conns; c != NULL; c = c->next) {
			if (!c->rx_done)
				any |= comch_conn_pump(c);
			if (c->rx_done && !c->notified)
				any |= comch_conn_finish(c);
		}
	} else if (ctx->state == DOCA_CTX_STATE_STARTING) {
		any |= client_connecting(ep);
	} else if (ep->conn != NULL) {
		if (!ep->conn->rx_done)
			any |= comch_conn_pump(ep->conn);
		if (ep->conn->rx_done && !ep->conn->notified)
			any |= comch_conn_finish(ep->conn);
	}
	ep->dispatch--;
	if (ep->is_server)
		ep_reap(ep, false);
	return any;
}

static void ep_stop(struct doca_ctx *ctx)
{
	struct comch_ep *ep = ep_of(ctx);

	if (ep->is_server) {
		/* no new clients; every connection still open is closed (disconnect events follow)
		 */
		ep_release_io(ep);
		for (struct doca_comch_connection *c = ep->conns; c != NULL; c = c->next)
			comch_conn_close(c, DOCA_ERROR_IO_FAILED);
		return;
	}
	if (ctx->state == DOCA_CTX_STATE_STARTING) {
		ep_release_io(ep);
		return;
	}
	if (ep->conn != NULL)
		comch_conn_close(ep->conn, DOCA_ERROR_IO_FAILED);
}

static bool ep_idle_ready(const struct doca_ctx *ctx)
{
	const struct comch_ep *ep = ep_of(ctx);

	if (ep->dispatch > 0)
		return false; /* a callback of ours is running: IDLE comes from the next progress */
	if (ep->is_server) {
		for (const struct doca_comch_connection *c = ep->conns; c != NULL; c = c->next)
			if (!c->notified)
				return false;
		return true;
	}
	return ep->conn == NULL || ep->conn->notified;
}

static const struct odma_ctx_ops server_ops = {
	.name = "COMCH_SERVER",
	.task_size = sizeof(struct doca_comch_task_send),
	.start = server_start,
	.complete = comch_send_complete,
	.submit = comch_send_submit,
	.progress = ep_progress,
	.stop = ep_stop,
	.idle_ready = ep_idle_ready,
	.no_task_conf = true,
};

static const struct odma_ctx_ops client_ops = {
	.name = "COMCH_CLIENT",
	.task_size = sizeof(struct doca_comch_task_send),
	.start = client_start,
	.complete = comch_send_complete,
	.submit = comch_send_submit,
	.progress = ep_progress,
	.stop = ep_stop,
	.idle_ready = ep_idle_ready,
	.no_task_conf = true,
};

/* ---- server API ------------------------------------------------------------------------ */

doca_error_t doca_comch_server_create(struct doca_dev *dev, struct doca_dev_rep *repr,
                                      const char *name, struct doca_comch_server **comch_server)
{
	struct doca_comch_server *s;
	doca_error_t r;

	ODMA_CHECK_ARG(
	        dev != NULL && repr != NULL && name != NULL && comch_server != NULL,
	        "doca_comch_server_create: dev, repr, name and comch_server must not be NULL");
	r = check_name(name, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	if (doca_comch_cap_server_is_supported(dev->info) != DOCA_SUCCESS) {
		ODMA_ERR("doca_comch_server_create: device %s cannot host a Comch server (a server "
		         "runs on a DPU-side device with Comch; clients run on the host)",
		         dev->info->pci_addr);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (repr->info == NULL || repr->info->parent != dev->info) {
		ODMA_ERR("doca_comch_server_create: the representor is not one of device %s (open "
		         "it from that device's representor list)",
		         dev->info->pci_addr);
		return DOCA_ERROR_INVALID_VALUE;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return DOCA_ERROR_NO_MEMORY;
	r = ep_init(&s->ep, dev, name, true, &server_ops);
	if (r != DOCA_SUCCESS) {
		free(s);
		return r;
	}
	s->ep.rep = repr;
	*comch_server = s;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_server_destroy(struct doca_comch_server *comch_server)
{
	ODMA_CHECK_ARG(comch_server != NULL,
	               "doca_comch_server_destroy: comch_server must not be NULL");
	return ep_destroy(&comch_server->ep, __func__);
}

doca_error_t doca_comch_server_set_max_msg_size(struct doca_comch_server *comch_server,
                                                uint32_t size)
{
	ODMA_CHECK_ARG(comch_server != NULL,
	               "doca_comch_server_set_max_msg_size: comch_server must not be NULL");
	return ep_set_max_msg(&comch_server->ep, size);
}

doca_error_t doca_comch_server_get_max_msg_size(const struct doca_comch_server *comch_server,
                                                uint32_t *size)
{
	ODMA_CHECK_ARG(comch_server != NULL && size != NULL,
	               "doca_comch_server_get_max_msg_size: NULL argument");
	*size = comch_server->ep.max_msg;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_server_set_recv_queue_size(struct doca_comch_server *comch_server,
                                                   uint32_t size)
{
	ODMA_CHECK_ARG(comch_server != NULL,
	               "doca_comch_server_set_recv_queue_size: comch_server must not be NULL");
	return ep_set_recv_queue(&comch_server->ep, size);
}

doca_error_t doca_comch_server_get_recv_queue_size(const struct doca_comch_server *comch_server,
                                                   uint32_t *size)
{
	ODMA_CHECK_ARG(comch_server != NULL && size != NULL,
	               "doca_comch_server_get_recv_queue_size: NULL argument");
	*size = comch_server->ep.recv_queue;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_server_get_device(const struct doca_comch_server *comch_server,
                                          struct doca_dev **dev)
{
	ODMA_CHECK_ARG(comch_server != NULL && dev != NULL,
	               "doca_comch_server_get_device: NULL argument");
	*dev = comch_server->ep.ctx.dev;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_server_get_device_rep(const struct doca_comch_server *comch_server,
                                              struct doca_dev_rep **rep)
{
	ODMA_CHECK_ARG(comch_server != NULL && rep != NULL,
	               "doca_comch_server_get_device_rep: NULL argument");
	*rep = comch_server->ep.rep;
	return DOCA_SUCCESS;
}

struct doca_ctx *doca_comch_server_as_ctx(struct doca_comch_server *comch_server)
{
	return comch_server != NULL ? &comch_server->ep.ctx : NULL;
}

doca_error_t doca_comch_server_disconnect(struct doca_comch_server *comch_server,
                                          struct doca_comch_connection *connection)
{
	struct comch_ep *ep;
	bool busy;

	ODMA_CHECK_ARG(comch_server != NULL && connection != NULL,
	               "doca_comch_server_disconnect: NULL argument");
	ep = &comch_server->ep;
	if (!comch_ep_owns(ep, connection)) {
		ODMA_ERR("doca_comch_server_disconnect: connection %p is not a live connection of "
		         "server \"%s\"",
		         (void *)connection, ep->name);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ep->ctx.state != DOCA_CTX_STATE_RUNNING) {
		ODMA_ERR("doca_comch_server_disconnect: server \"%s\" is not RUNNING", ep->name);
		return DOCA_ERROR_BAD_STATE;
	}
	pthread_mutex_lock(&connection->lock);
	busy = connection->num_cons != 0 || connection->num_prod != 0;
	pthread_mutex_unlock(&connection->lock);
	if (busy) {
		ODMA_ERR("doca_comch_server_disconnect: producers or consumers still exist on "
		         "connection %p; stop and destroy them first",
		         (void *)connection);
		return DOCA_ERROR_IN_USE;
	}
	connection->dropped = true;
	comch_conn_close(connection, DOCA_ERROR_IO_FAILED);
	return DOCA_SUCCESS;
}

doca_error_t
doca_comch_server_task_send_set_conf(struct doca_comch_server *comch_server,
                                     doca_comch_task_send_completion_cb_t task_completion_cb,
                                     doca_comch_task_send_completion_cb_t task_error_cb,
                                     uint32_t num_send_tasks)
{
	ODMA_CHECK_ARG(comch_server != NULL,
	               "doca_comch_server_task_send_set_conf: comch_server must not be NULL");
	return ep_set_send_conf(&comch_server->ep, task_completion_cb, task_error_cb,
	                        num_send_tasks);
}

doca_error_t doca_comch_server_task_send_alloc_init(struct doca_comch_server *comch_server,
                                                    struct doca_comch_connection *peer,
                                                    const void *msg, uint32_t len,
                                                    struct doca_comch_task_send **task)
{
	ODMA_CHECK_ARG(comch_server != NULL && peer != NULL && msg != NULL && task != NULL,
	               "doca_comch_server_task_send_alloc_init: NULL argument");
	return ep_send_alloc(&comch_server->ep, peer, msg, len, task, __func__);
}

doca_error_t doca_comch_server_event_msg_recv_register(struct doca_comch_server *comch_server,
                                                       doca_comch_event_msg_recv_cb_t recv_event_cb)
{
	ODMA_CHECK_ARG(comch_server != NULL && recv_event_cb != NULL,
	               "doca_comch_server_event_msg_recv_register: NULL argument");
	if (ep_check_idle(&comch_server->ep, "the receive callback") != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	comch_server->ep.recv_cb = recv_event_cb;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_server_event_connection_status_changed_register(
        struct doca_comch_server *comch_server,
        doca_comch_event_connection_status_changed_cb_t connect_event_cb,
        doca_comch_event_connection_status_changed_cb_t disconnect_event_cb)
{
	ODMA_CHECK_ARG(comch_server != NULL && connect_event_cb != NULL &&
	                       disconnect_event_cb != NULL,
	               "doca_comch_server_event_connection_status_changed_register: both callbacks "
	               "are required");
	if (ep_check_idle(&comch_server->ep, "the connection callbacks") != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	comch_server->ep.connect_cb = connect_event_cb;
	comch_server->ep.disconnect_cb = disconnect_event_cb;
	return DOCA_SUCCESS;
}

static doca_error_t ep_consumer_register(struct comch_ep *ep, doca_comch_event_consumer_cb_t new_cb,
                                         doca_comch_event_consumer_cb_t gone_cb)
{
	if (ep_check_idle(ep, "the consumer callbacks") != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	ep->cons_new_cb = new_cb;
	ep->cons_gone_cb = gone_cb;
	return DOCA_SUCCESS;
}

doca_error_t
doca_comch_server_event_consumer_register(struct doca_comch_server *comch_server,
                                          doca_comch_event_consumer_cb_t new_consumer_event_cb,
                                          doca_comch_event_consumer_cb_t expired_consumer_event_cb)
{
	ODMA_CHECK_ARG(comch_server != NULL && new_consumer_event_cb != NULL &&
	                       expired_consumer_event_cb != NULL,
	               "doca_comch_server_event_consumer_register: both callbacks are required");
	return ep_consumer_register(&comch_server->ep, new_consumer_event_cb,
	                            expired_consumer_event_cb);
}

/* ---- client API ------------------------------------------------------------------------ */

doca_error_t doca_comch_client_create(struct doca_dev *dev, const char *name,
                                      struct doca_comch_client **comch_client)
{
	struct doca_comch_client *c;
	doca_error_t r;

	ODMA_CHECK_ARG(dev != NULL && name != NULL && comch_client != NULL,
	               "doca_comch_client_create: dev, name and comch_client must not be NULL");
	r = check_name(name, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	if (doca_comch_cap_client_is_supported(dev->info) != DOCA_SUCCESS) {
		ODMA_ERR("doca_comch_client_create: device %s cannot host a Comch client (a client "
		         "runs on a host-side device with Comch; servers run on the DPU)",
		         dev->info->pci_addr);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return DOCA_ERROR_NO_MEMORY;
	r = ep_init(&c->ep, dev, name, false, &client_ops);
	if (r != DOCA_SUCCESS) {
		free(c);
		return r;
	}
	*comch_client = c;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_client_destroy(struct doca_comch_client *comch_client)
{
	ODMA_CHECK_ARG(comch_client != NULL,
	               "doca_comch_client_destroy: comch_client must not be NULL");
	return ep_destroy(&comch_client->ep, __func__);
}

doca_error_t doca_comch_client_set_max_msg_size(struct doca_comch_client *comch_client,
                                                uint32_t size)
{
	ODMA_CHECK_ARG(comch_client != NULL,
	               "doca_comch_client_set_max_msg_size: comch_client must not be NULL");
	return ep_set_max_msg(&comch_client->ep, size);
}

doca_error_t doca_comch_client_get_max_msg_size(const struct doca_comch_client *comch_client,
                                                uint32_t *size)
{
	ODMA_CHECK_ARG(comch_client != NULL && size != NULL,
	               "doca_comch_client_get_max_msg_size: NULL argument");
	*size = comch_client->ep.max_msg;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_client_set_recv_queue_size(struct doca_comch_client *comch_client,
                                                   uint32_t size)
{
	ODMA_CHECK_ARG(comch_client != NULL,
	               "doca_comch_client_set_recv_queue_size: comch_client must not be NULL");
	return ep_set_recv_queue(&comch_client->ep, size);
}

doca_error_t doca_comch_client_get_recv_queue_size(const struct doca_comch_client *comch_client,
                                                   uint32_t *size)
{
	ODMA_CHECK_ARG(comch_client != NULL && size != NULL,
	               "doca_comch_client_get_recv_queue_size: NULL argument");
	*size = comch_client->ep.recv_queue;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_client_get_device(const struct doca_comch_client *comch_client,
                                          struct doca_dev **dev)
{
	ODMA_CHECK_ARG(comch_client != NULL && dev != NULL,
	               "doca_comch_client_get_device: NULL argument");
	*dev = comch_client->ep.ctx.dev;
	return DOCA_SUCCESS;
}

struct doca_ctx *doca_comch_client_as_ctx(struct doca_comch_client *comch_client)
{
	return comch_client != NULL ? &comch_client->ep.ctx : NULL;
}

doca_error_t doca_comch_client_get_connection(const struct doca_comch_client *comch_client,
                                              struct doca_comch_connection **connection)
{
	ODMA_CHECK_ARG(comch_client != NULL && connection != NULL,
	               "doca_comch_client_get_connection: NULL argument");
	if (comch_client->ep.ctx.state != DOCA_CTX_STATE_RUNNING || comch_client->ep.conn == NULL) {
		ODMA_ERR("doca_comch_client_get_connection: client \"%s\" is not connected (not "
		         "RUNNING); progress its PE until the state callback reports RUNNING",
		         comch_client->ep.name);
		return DOCA_ERROR_BAD_STATE;
	}
	*connection = comch_client->ep.conn;
	return DOCA_SUCCESS;
}

doca_error_t
doca_comch_client_task_send_set_conf(struct doca_comch_client *comch_client,
                                     doca_comch_task_send_completion_cb_t task_completion_cb,
                                     doca_comch_task_send_completion_cb_t task_error_cb,
                                     uint32_t num_send_tasks)
{
	ODMA_CHECK_ARG(comch_client != NULL,
	               "doca_comch_client_task_send_set_conf: comch_client must not be NULL");
	return ep_set_send_conf(&comch_client->ep, task_completion_cb, task_error_cb,
	                        num_send_tasks);
}

doca_error_t doca_comch_client_task_send_alloc_init(struct doca_comch_client *comch_client,
                                                    struct doca_comch_connection *peer,
                                                    const void *msg, uint32_t len,
                                                    struct doca_comch_task_send **task)
{
	ODMA_CHECK_ARG(comch_client != NULL && peer != NULL && msg != NULL && task != NULL,
	               "doca_comch_client_task_send_alloc_init: NULL argument");
	return ep_send_alloc(&comch_client->ep, peer, msg, len, task, __func__);
}

doca_error_t doca_comch_client_event_msg_recv_register(struct doca_comch_client *comch_client,
                                                       doca_comch_event_msg_recv_cb_t recv_event_cb)
{
	ODMA_CHECK_ARG(comch_client != NULL && recv_event_cb != NULL,
	               "doca_comch_client_event_msg_recv_register: NULL argument");
	if (ep_check_idle(&comch_client->ep, "the receive callback") != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	comch_client->ep.recv_cb = recv_event_cb;
	return DOCA_SUCCESS;
}

doca_error_t
doca_comch_client_event_consumer_register(struct doca_comch_client *comch_client,
                                          doca_comch_event_consumer_cb_t new_consumer_event_cb,
                                          doca_comch_event_consumer_cb_t expired_consumer_event_cb)
{
	ODMA_CHECK_ARG(comch_client != NULL && new_consumer_event_cb != NULL &&
	                       expired_consumer_event_cb != NULL,
	               "doca_comch_client_event_consumer_register: both callbacks are required");
	return ep_consumer_register(&comch_client->ep, new_consumer_event_cb,
	                            expired_consumer_event_cb);
}

struct doca_task *doca_comch_task_send_as_task(struct doca_comch_task_send *task)
{
	return task != NULL ? &task->base : NULL;
}
