/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Comch servers: the listening socket, accepting clients and their HELLO handshake (from the
 * server's progress), the server's context ops and its public API.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "comch/comch.h"
#include "core/error/error.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(DOCA_COMCH)

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
		struct stat st;

		if (probe >= 0)
			close(probe);
		if (live) {
			bool other = lstat(ep->path, &st) == 0 && st.st_uid != geteuid();

			ODMA_ERR("comch server \"%s\": another server of that name already listens "
			         "on representor %s of system %s (socket %s%s); stop it or pick "
			         "another name",
			         ep->name, ep->rep->info->pci_addr, ep->system_name, ep->path,
			         other ? ", owned by another user: use a private ODMA_RUNDIR" : "");
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

/* Whether @lk is still the file at @path (a holder may have removed it as it let go). */
static bool lock_current(int lk, const char *path)
{
	struct stat a, b;

	return fstat(lk, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/*
 * The lock that keeps two servers starting at once from both replacing the same stale
 * socket: one file per runtime directory (never one per name), taken without blocking and
 * waited for at most COMCH_LOCK_WAIT_MS. Returns the locked fd, or -1 to go on without it
 * (a holder that never lets go delays a start by that long, it never blocks it). The holder
 * removes the file as it lets go (server_unlock), so a started server leaves nothing behind;
 * a lock taken on a file that was removed meanwhile is taken again on the new one.
 */
static int server_lock(struct comch_ep *ep, char *lockpath, size_t n)
{
	const char *slash = strrchr(ep->path, '/');
	uint64_t deadline = doca_priv_now_ns() + (uint64_t)COMCH_LOCK_WAIT_MS * 1000000ull;
	int lk;

	if (slash == NULL)
		return -1;
	snprintf(lockpath, n, "%.*s/.comch.lock", (int)(slash - ep->path), ep->path);
again:
	lk = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (lk < 0)
		return -1; /* not ours to lock (a shared directory): the bind checks remain */
	while (flock(lk, LOCK_EX | LOCK_NB) != 0) {
		struct timespec nap = { 0, 1000000 };

		if (errno != EWOULDBLOCK && errno != EINTR)
			break;
		if (doca_priv_now_ns() >= deadline) {
			ODMA_WARN(
			        "comch server \"%s\": another process has held %s for more than %u "
			        "ms; starting without it (find the holder with fuser %s)",
			        ep->name, lockpath, COMCH_LOCK_WAIT_MS, lockpath);
			break;
		}
		nanosleep(&nap, NULL);
	}
	if (flock(lk, LOCK_EX | LOCK_NB) == 0) {
		if (lock_current(lk, lockpath))
			return lk;
		close(lk); /* its holder removed it as it let go: lock the file there now */
		if (doca_priv_now_ns() < deadline)
			goto again;
		return -1;
	}
	close(lk);
	return -1;
}

/* Lets go of the lock and removes its file (no server start is left holding it). */
static void server_unlock(int lk, const char *lockpath)
{
	if (lk < 0)
		return;
	unlink(lockpath);
	close(lk);
}

/* Binds the listening socket (mode 0600, or 0666 with ODMA_COMCH_ALLOW_UIDS, whatever the
 * umask); a stale socket file (no listener) is replaced. */
static doca_error_t server_listen(struct comch_ep *ep)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char lockpath[sizeof(ep->path) + 16];
	mode_t mode = ep->peers.any || ep->peers.n > 0 ? 0666 : 0600;
	doca_error_t r = DOCA_SUCCESS;
	struct stat st;
	int fd, lk;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", ep->path);
	lk = server_lock(ep, lockpath, sizeof(lockpath));
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ODMA_ERR("comch server \"%s\": socket() failed: %s", ep->name, strerror(errno));
		r = DOCA_ERROR_OPERATING_SYSTEM;
		goto out;
	}
	r = server_bind(ep, fd, &sa);
	if (r != DOCA_SUCCESS)
		goto out;
	/* before listen(): no client can connect while the mode is still the umask's */
	if (errno != 0 || chmod(ep->path, mode) != 0 || listen(fd, 128) != 0 ||
	    stat(ep->path, &st) != 0) {
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
	server_unlock(lk, lockpath);
	return r;
}

static doca_error_t server_start(struct doca_ctx *ctx)
{
	struct comch_ep *ep = comch_ep_of(ctx);
	doca_error_t r = comch_ep_start_common(ep);

	if (r != DOCA_SUCCESS)
		return r;
	comch_ep_reap(ep, true);
	r = server_listen(ep);
	if (r != DOCA_SUCCESS)
		return r;
	if (comch_net_wanted()) {
		r = comch_net_server_start(ep); /* released with the socket (comch_ep_release_io) */
		if (r != DOCA_SUCCESS) {
			/* no socket left behind for local clients to hang on, nor for a retried
			 * start */
			comch_ep_release_io(ep);
			return r;
		}
	}
	ep->num_live = 0;
	ODMA_DBG("comch server \"%s\" listens on representor %s of system %s (%s)", ep->name,
	         ep->rep->info->pci_addr, ep->system_name, ep->path);
	return DOCA_SUCCESS;
}

/* Tells a refused client why (best effort, never blocks). */
static void server_tell(struct comch_chan *ch, doca_error_t code, const char *why)
{
	(void)ch->car->send(ch, COMCH_W_REJECT, (uint32_t)code, why, strlen(why), -1);
}

/*
 * Reads what a refused client already sent (its HELLO, most often): closing a socket with
 * unread packets resets it, and the client would lose the REJECT that says why.
 */
static void server_drain(struct comch_ep *ep, struct comch_chan *ch)
{
	for (int i = 0; i < 4; i++) {
		int pfd = -1;
		ssize_t n = ch->car->recv(ch, ep->rx, ep->rx_cap, &pfd);

		if (pfd >= 0)
			close(pfd);
		if (n <= 0 && n != -EMSGSIZE && n != -EPROTO)
			return;
	}
}

/* "pid 42", or who a process of another PID namespace is (the kernel reports its pid as 0). */
static const char *server_peer_name(const struct comch_hs *h, char *buf, size_t size)
{
	if (h->pid > 0)
		snprintf(buf, size, "pid %d", (int)h->pid);
	else
		snprintf(buf, size, "a process of another PID namespace (uid %u)",
		         (unsigned int)h->uid);
	return buf;
}

/* Closes and frees the oldest pending handshake (the list is newest first). */
static void server_evict_oldest(struct comch_ep *ep)
{
	struct comch_hs **pp = &ep->hs;
	char who[64];

	while (*pp != NULL && (*pp)->next != NULL)
		pp = &(*pp)->next;
	if (*pp == NULL)
		return;
	ODMA_RATELIMITED_WARN("comch server \"%s\": %u connections await their HELLO; the oldest "
	                      "(%s) is closed to make room",
	                      ep->name, ep->num_hs, server_peer_name(*pp, who, sizeof(who)));
	(*pp)->ch->car->free((*pp)->ch);
	free(*pp);
	*pp = NULL;
	ep->num_hs--;
}

/* Whether an accepted socket may wait for its HELLO (logged when it may not). */
static bool server_admit(struct comch_ep *ep, struct comch_chan *ch, pid_t *pid_out, uid_t *uid_out)
{
	uint32_t same = 0;
	pid_t pid = 0;
	uid_t uid = 0;

	if (!comch_peer_cred(ch->fd, &pid, &uid)) {
		ODMA_RATELIMITED_WARN("comch server \"%s\": refused a client whose credentials the "
		                      "kernel does not report (SO_PEERCRED: %s)",
		                      ep->name, strerror(errno));
		return false;
	}
	if (!comch_peer_uid_ok(&ep->peers, uid)) {
		ODMA_RATELIMITED_WARN(
		        "comch server \"%s\": refused a client of another user (pid %d, "
		        "uid %u; this server runs as uid %u); allow it with "
		        "ODMA_COMCH_ALLOW_UIDS=%u",
		        ep->name, (int)pid, (unsigned int)uid, (unsigned int)geteuid(),
		        (unsigned int)uid);
		server_tell(ch, DOCA_ERROR_NOT_PERMITTED,
		            "the server does not accept clients of this user");
		server_drain(ep, ch);
		return false;
	}
	for (const struct comch_hs *h = ep->hs; h != NULL; h = h->next)
		same += h->pid == pid;
	if (same >= COMCH_HS_PER_PEER) {
		ODMA_RATELIMITED_WARN(
		        "comch server \"%s\": refused a connection of pid %d: it already "
		        "has %u connections that sent no HELLO",
		        ep->name, (int)pid, same);
		return false;
	}
	if (ep->num_hs >= COMCH_HS_MAX)
		server_evict_oldest(ep);
	*pid_out = pid;
	*uid_out = uid;
	return true;
}

bool comch_server_accept(struct comch_ep *ep)
{
	bool any = false;

	for (uint32_t budget = COMCH_ACCEPT_BUDGET; budget > 0; budget--) {
		int fd = accept4(ep->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct comch_chan *ch;
		struct comch_hs *h = NULL;
		pid_t pid;
		uid_t uid;

		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
			    errno != ECONNABORTED)
				ODMA_RATELIMITED_WARN("comch server \"%s\": accept failed: %s",
				                      ep->name, strerror(errno));
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return any;
		}
		any = true;
		ch = comch_local_chan(fd);
		if (ch == NULL) {
			close(fd);
			continue;
		}
		if (server_admit(ep, ch, &pid, &uid))
			h = calloc(1, sizeof(*h));
		if (h == NULL) {
			ch->car->free(ch);
			continue;
		}
		h->ch = ch;
		h->pid = pid;
		h->uid = uid;
		h->deadline_ns =
		        doca_priv_now_ns() + (uint64_t)COMCH_HANDSHAKE_TIMEOUT_MS * 1000000ull;
		h->next = ep->hs;
		ep->hs = h;
		ep->num_hs++;
	}
	return any;
}

static void server_reject(struct comch_ep *ep, struct comch_chan *ch, doca_error_t code,
                          const char *why)
{
	ODMA_RATELIMITED_WARN("comch server \"%s\": refused a client%s: %s", ep->name,
	                      ch->car->where, why);
	server_tell(ch, code, why);
}

/*
 * Checks a HELLO already copied into *hello (plen: its payload length) against this server;
 * on a mismatch the client is told why and false is returned.
 */
static bool server_hello_ok(struct comch_ep *ep, struct comch_chan *ch,
                            const struct comch_hello *hello, size_t plen)
{
	const struct comch_wire_hdr *hdr = (const void *)ep->rx;

	if (hello->magic != COMCH_WIRE_MAGIC || hello->version != COMCH_WIRE_VERSION) {
		server_reject(ep, ch, DOCA_ERROR_UNSUPPORTED_VERSION,
		              "protocol version mismatch (odma versions differ?)");
		return false;
	}
	if (hello->name_len != plen - sizeof(*hello) || hello->name_len != strlen(ep->name) ||
	    memcmp(ep->rx + sizeof(*hdr) + sizeof(*hello), ep->name, hello->name_len) != 0 ||
	    hello->system_id != ep->system_id) {
		server_reject(ep, ch, DOCA_ERROR_NOT_FOUND,
		              "server name or emulated system differs");
		return false;
	}
	if (hello->max_msg == 0 || hello->recv_queue == 0) {
		server_reject(ep, ch, DOCA_ERROR_INVALID_VALUE, "bad HELLO parameters");
		return false;
	}
	if (ep->num_live >= ep->ctx.caps->comch_max_clients) {
		server_reject(ep, ch, DOCA_ERROR_FULL,
		              "the server already serves its maximum number of clients "
		              "(doca_comch_cap_get_max_clients)");
		return false;
	}
	return true;
}

/*
 * Handles the first packet of a channel (@n: its length or an error, @link_fd: a descriptor
 * that came with it): the HELLO's checks, the carrier's admission, then WELCOME. Returns the
 * new connection (which owns @ch now) or NULL (@ch is the caller's to free).
 */
static struct doca_comch_connection *server_hello(struct comch_ep *ep, struct comch_chan *ch,
                                                  ssize_t n, int link_fd)
{
	const struct comch_wire_hdr *hdr = (const void *)ep->rx;
	struct comch_hello hello;
	struct comch_welcome w = { .magic = COMCH_WIRE_MAGIC, .version = COMCH_WIRE_VERSION };
	struct doca_comch_connection *conn;
	const char *why = "";

	if (n < (ssize_t)(sizeof(*hdr) + sizeof(hello)) || hdr->type != COMCH_W_HELLO) {
		ODMA_RATELIMITED_WARN("comch server \"%s\": a connection%s did not start with a "
		                      "valid HELLO (packet type %u, %zd bytes); closed",
		                      ep->name, ch->car->where, hdr->type, n);
		return NULL;
	}
	memcpy(&hello, ep->rx + sizeof(*hdr), sizeof(hello));
	if (!server_hello_ok(ep, ch, &hello, (size_t)n - sizeof(*hdr)))
		return NULL;
	if (!ch->car->admit(ch, ep, link_fd, &why)) {
		ODMA_RATELIMITED_WARN("comch server \"%s\": the link page of a client is "
		                      "unusable: %s",
		                      ep->name, why);
		server_tell(ch, DOCA_ERROR_INVALID_VALUE, "the client's link page is unusable");
		return NULL;
	}
	w.max_msg = ep->max_msg;
	w.recv_queue = ep->recv_queue;
	if (ch->car->send(ch, COMCH_W_WELCOME, 0, &w, sizeof(w), -1) != 0)
		return NULL;
	conn = comch_conn_new(ep, ch, COMCH_SIDE_SERVER,
	                      ep->max_msg < hello.max_msg ? ep->max_msg : hello.max_msg,
	                      hello.recv_queue);
	if (conn == NULL)
		return NULL;
	hello.pci[sizeof(hello.pci) - 1] = '\0';
	ODMA_DBG("comch server \"%s\": client pid %d (device %s) connected%s; max message %u "
	         "bytes",
	         ep->name, (int)conn->peer_pid, hello.pci, ch->car->where, conn->max_msg);
	return conn;
}

/* A client accepted: listed, counted, announced. */
static void server_add_conn(struct comch_ep *ep, struct doca_comch_connection *conn)
{
	conn->next = ep->conns;
	ep->conns = conn;
	ep->num_live++;
	conn->announced = true;
	if (ep->connect_cb != NULL)
		ep->connect_cb(&ep->ev_conn, conn, 1);
}

/* The HELLOs that arrived at ODMA_FABRIC for this server (net.c checked their framing). */
static bool server_fabric_handshakes(struct comch_ep *ep)
{
	struct comch_chan *ch;
	bool any = false;

	while (ep->ctx.state == DOCA_CTX_STATE_RUNNING &&
	       (ch = comch_net_server_take(ep)) != NULL) {
		int pfd = -1;
		struct doca_comch_connection *conn =
		        server_hello(ep, ch, ch->car->recv(ch, ep->rx, ep->rx_cap, &pfd), pfd);

		any = true;
		if (pfd >= 0)
			close(pfd);
		if (conn == NULL) {
			ch->car->free(ch);
			continue;
		}
		server_add_conn(ep, conn);
	}
	return any;
}

/* One line for a handshake that ended without a HELLO packet. */
static void server_hs_refused(struct comch_ep *ep, const struct comch_hs *h, ssize_t n)
{
	const char *what;
	char who[64];

	switch (n) {
	case -EAGAIN:
		what = "sent no HELLO in time";
		break;
	case 0:
		what = "closed (or sent an empty packet) before its HELLO";
		break;
	case -EMSGSIZE:
		what = "sent a HELLO longer than any valid one";
		break;
	case -EPROTO:
		what = "sent a packet shorter than a header (runt)";
		break;
	default:
		what = strerror((int)-n);
		break;
	}
	ODMA_RATELIMITED_WARN("comch server \"%s\": a connection of %s %s; closed", ep->name,
	                      server_peer_name(h, who, sizeof(who)), what);
}

/*
 * A BYE in place of the HELLO: a client in another PID namespace that shares the runtime
 * directory saw that this server's memory is out of its reach and connects across
 * ODMA_FABRIC instead. An orderly close, not a premature one.
 */
static void server_hs_detour(struct comch_ep *ep, const struct comch_hs *h)
{
	char who[64];

	ODMA_DBG("comch server \"%s\": %s closed its local socket in order (BYE); it connects "
	         "across ODMA_FABRIC",
	         ep->name, server_peer_name(h, who, sizeof(who)));
}

bool comch_server_handshakes(struct comch_ep *ep)
{
	struct comch_hs **pp = &ep->hs;
	uint64_t now = doca_priv_now_ns();
	bool any = false;

	while (*pp != NULL && ep->ctx.state == DOCA_CTX_STATE_RUNNING) {
		struct comch_hs *h = *pp;
		struct doca_comch_connection *conn = NULL;
		int link_fd = -1;
		ssize_t n = h->ch->car->recv(h->ch, ep->rx, ep->rx_cap, &link_fd);

		if (n == -EAGAIN && now < h->deadline_ns) {
			pp = &h->next;
			continue;
		}
		*pp = h->next;
		ep->num_hs--;
		any = true;
		if (n > 0 && ((const struct comch_wire_hdr *)ep->rx)->type == COMCH_W_BYE)
			server_hs_detour(ep, h);
		else if (n > 0)
			conn = server_hello(ep, h->ch, n, link_fd);
		else
			server_hs_refused(ep, h, n);
		if (link_fd >= 0)
			close(link_fd);
		if (conn == NULL) {
			comch_ep_unwatch(ep, h->ch->fd, &h->watched);
			h->ch->car->free(h->ch);
		} else if (h->watched) {
			conn->watch = EPOLLIN; /* the watch goes with the descriptor */
		}
		free(h);
		if (conn == NULL)
			continue;
		server_add_conn(ep, conn);
		/* the callback may have stopped the server: the list head may have changed */
		pp = &ep->hs;
	}
	return any;
}

/* ---- the server's context ops ------------------------------------------------------------ */

static bool server_progress(struct doca_ctx *ctx)
{
	struct comch_ep *ep = comch_ep_of(ctx);
	bool any = false;

	ep->dispatch++;
	if (ctx->state == DOCA_CTX_STATE_RUNNING) {
		/* handshakes that ended free their room before new sockets are admitted */
		any |= comch_server_handshakes(ep);
		if (ctx->state == DOCA_CTX_STATE_RUNNING && comch_server_accept(ep)) {
			any = true;
			(void)comch_server_handshakes(ep);
		}
		any |= server_fabric_handshakes(ep);
	}
	/*
	 * A connection announced in this call delivers nothing else before the next one: what its
	 * client sent at once arrives after the connect event has returned to the program (DOCA's
	 * own comch_utils wait for the event in a progress loop and set up afterwards).
	 */
	for (struct doca_comch_connection *c = ep->conns; c != NULL; c = c->next) {
		if (c->announced) {
			c->announced = false;
			any = true;
			continue;
		}
		any |= comch_ep_conn_step(ep, c);
	}
	ep->dispatch--;
	comch_ep_reap(ep, false);
	return any;
}

static uint64_t server_arm(struct doca_ctx *ctx)
{
	struct comch_ep *ep = comch_ep_of(ctx);
	uint64_t at = ODMA_WAKE_NEVER;

	if (ctx->state == DOCA_CTX_STATE_IDLE)
		return ODMA_WAKE_NEVER; /* nothing is watched: released at the stop */
	comch_ep_watch(ep, ep->lfd, &ep->lfd_watched);
	at = comch_min_ns(at, comch_net_server_arm(ep));
	for (struct comch_hs *h = ep->hs; h != NULL; h = h->next) {
		comch_ep_watch(ep, h->ch->fd, &h->watched);
		at = comch_min_ns(at, h->deadline_ns);
	}
	for (struct doca_comch_connection *c = ep->conns; c != NULL; c = c->next)
		at = comch_min_ns(at, comch_ep_arm_conn(ep, c));
	return at;
}

/* No new clients; every connection still open is closed (disconnect events follow). */
static void server_stop(struct doca_ctx *ctx)
{
	struct comch_ep *ep = comch_ep_of(ctx);

	comch_ep_release_io(ep);
	for (struct doca_comch_connection *c = ep->conns; c != NULL; c = c->next)
		comch_conn_close(c, DOCA_ERROR_IO_FAILED);
}

static bool server_idle_ready(const struct doca_ctx *ctx)
{
	const struct comch_ep *ep = comch_ep_of(ctx);

	if (ep->dispatch > 0)
		return false; /* a callback of ours is running: IDLE comes from the next progress */
	for (const struct doca_comch_connection *c = ep->conns; c != NULL; c = c->next)
		if (!c->notified)
			return false;
	return true;
}

static const struct odma_ctx_ops server_ops = {
	.name = "COMCH_SERVER",
	.task_size = sizeof(struct doca_comch_task_send),
	.start = server_start,
	.complete = comch_send_complete,
	.submit = comch_send_submit,
	.progress = server_progress,
	.stop = server_stop,
	.idle_ready = server_idle_ready,
	.no_task_conf = true,
	.arm = server_arm,
};

/* ---- what shared code asks of a server --------------------------------------------------- */

static bool server_owns(const struct comch_ep *ep, const struct doca_comch_connection *conn)
{
	for (const struct doca_comch_connection *c = ep->conns; c != NULL; c = c->next)
		if (c == conn)
			return !c->dropped;
	return false;
}

static void server_conn_ended(struct comch_ep *ep, struct doca_comch_connection *conn, int end)
{
	(void)end;
	if (ep->num_live > 0)
		ep->num_live--;
	if (!conn->dropped && ep->disconnect_cb != NULL)
		ep->disconnect_cb(&ep->ev_conn, conn, 1);
}

static bool server_fastpath_busy(const struct comch_ep *ep)
{
	for (const struct doca_comch_connection *c = ep->conns; c != NULL; c = c->next)
		if (atomic_load(&c->refs) > 1)
			return true;
	return false;
}

static const char *server_rep_pci(const struct comch_ep *ep)
{
	return ep->rep->info->pci_addr;
}

const struct comch_side comch_server_side = {
	.kind = "server",
	.owns = server_owns,
	.conn_ended = server_conn_ended,
	.fastpath_busy = server_fastpath_busy,
	.rep_pci = server_rep_pci,
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
	r = comch_check_name(name, __func__);
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
	r = comch_ep_init(&s->ep, dev, name, &comch_server_side, &server_ops);
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
	return comch_ep_destroy(&comch_server->ep, __func__);
}

doca_error_t doca_comch_server_set_max_msg_size(struct doca_comch_server *comch_server,
                                                uint32_t size)
{
	ODMA_CHECK_ARG(comch_server != NULL,
	               "doca_comch_server_set_max_msg_size: comch_server must not be NULL");
	return comch_ep_set_max_msg(&comch_server->ep, size);
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
	return comch_ep_set_recv_queue(&comch_server->ep, size);
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
	return comch_ep_set_send_conf(&comch_server->ep, task_completion_cb, task_error_cb,
	                              num_send_tasks);
}

doca_error_t doca_comch_server_task_send_alloc_init(struct doca_comch_server *comch_server,
                                                    struct doca_comch_connection *peer,
                                                    const void *msg, uint32_t len,
                                                    struct doca_comch_task_send **task)
{
	ODMA_CHECK_ARG(comch_server != NULL && peer != NULL && msg != NULL && task != NULL,
	               "doca_comch_server_task_send_alloc_init: NULL argument");
	return comch_ep_send_alloc(&comch_server->ep, peer, msg, len, task, __func__);
}

doca_error_t doca_comch_server_event_msg_recv_register(struct doca_comch_server *comch_server,
                                                       doca_comch_event_msg_recv_cb_t recv_event_cb)
{
	ODMA_CHECK_ARG(comch_server != NULL && recv_event_cb != NULL,
	               "doca_comch_server_event_msg_recv_register: NULL argument");
	if (comch_ep_check_idle(&comch_server->ep, "the receive callback") != DOCA_SUCCESS)
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
	if (comch_ep_check_idle(&comch_server->ep, "the connection callbacks") != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	comch_server->ep.connect_cb = connect_event_cb;
	comch_server->ep.disconnect_cb = disconnect_event_cb;
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
	return comch_ep_consumer_register(&comch_server->ep, new_consumer_event_cb,
	                                  expired_consumer_event_cb);
}
