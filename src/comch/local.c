/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The local carrier (comch.h): a server listens on a SOCK_SEQPACKET Unix socket of the runtime
 * directory, a client connects there and hands over its HELLO with a link page shared with the
 * server (the credits), and the fast path's bytes are written straight into the peer's
 * buffers with process_vm_writev. For peers on one kernel (and one PID namespace).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "comch/comch.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(DOCA_COMCH)

/* ---- a channel: one Unix socket and the link page the client shared ---------------------- */

/* A channel on the Unix socket @fd (no link page yet); NULL without memory (@fd stays). */
static struct comch_chan *local_chan(int fd)
{
	struct comch_chan *ch = calloc(1, sizeof(*ch));

	if (ch == NULL)
		return NULL;
	ch->car = &comch_local_carrier;
	ch->fd = fd;
	ch->peer_pidfd = -1;
	return ch;
}

static int local_send(struct comch_chan *ch, uint32_t type, uint32_t arg, const void *payload,
                      size_t len, int pass_fd)
{
	return comch_wire_send(ch->fd, type, arg, payload, len, pass_fd);
}

static ssize_t local_recv(struct comch_chan *ch, void *buf, size_t cap, int *pfd)
{
	return comch_wire_recv(ch->fd, buf, cap, pfd);
}

/* The descriptor stays open until the channel is freed: other threads may still poll it. */
static void local_shut(struct comch_chan *ch)
{
	(void)shutdown(ch->fd, SHUT_RDWR);
}

static void local_free(struct comch_chan *ch)
{
	if (ch->fd >= 0)
		close(ch->fd);
	if (ch->link != NULL)
		munmap(ch->link, COMCH_LINK_BYTES);
	if (ch->peer_pidfd >= 0)
		close(ch->peer_pidfd);
	free(ch);
}

/* The client's link page came with its HELLO: only a sealed page of the right size is used. */
static bool local_admit(struct comch_chan *ch, const struct comch_ep *ep, int link_fd,
                        const char **why)
{
	struct comch_link *link;

	(void)ep;
	if (link_fd < 0) {
		*why = "no link page came with the HELLO";
		return false;
	}
	link = comch_shm_map(link_fd, COMCH_LINK_BYTES, why);
	if (link != NULL && link->magic != COMCH_LINK_MAGIC) {
		munmap(link, COMCH_LINK_BYTES);
		*why = "bad magic";
		return false;
	}
	ch->link = link;
	return link != NULL;
}

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77 /* Linux 6.5 */
#endif

/*
 * A pidfd of the process at the other end of the socket @fd, whose pid is @pid: the kernel's
 * (SO_PEERPIDFD, taken at connect time), else pidfd_open of @pid; -1 when neither is had.
 */
static int local_peer_pidfd(int fd, pid_t pid)
{
	int pfd = -1;
	socklen_t len = sizeof(pfd);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pfd, &len) == 0 && pfd >= 0)
		return pfd;
	return pid > 0 ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
}

/*
 * The peer's pid and uid, when the kernel reports them (0 otherwise: another namespace), and
 * a pidfd of it: the fast path writes into that pid only while the pidfd says it still runs
 * (once the peer exits, its pid may name an unrelated process).
 */
static void local_bind(struct comch_chan *ch, struct doca_comch_connection *conn)
{
	if (conn == NULL || !comch_peer_cred(ch->fd, &conn->peer_pid, &conn->peer_uid))
		return;
	if (ch->peer_pidfd < 0)
		ch->peer_pidfd = local_peer_pidfd(ch->fd, conn->peer_pid);
}

/*
 * How long a look at the pidfd stands: its pid can name another process only after the kernel
 * has handed out every other pid (pid_max of them, at least 32768); no machine forks that many
 * in 1 ms, and a send of a small message costs far less than the poll() it saves.
 */
#define LOCAL_PEER_SEEN_NS 1000000u

/*
 * Whether the peer process has exited (its pidfd is readable); false when it has no pidfd,
 * and within LOCAL_PEER_SEEN_NS of a look that saw it run.
 */
static bool local_peer_exited(struct comch_chan *ch)
{
	struct pollfd pfd = { .fd = ch->peer_pidfd, .events = POLLIN };
	uint64_t now;

	if (ch->peer_pidfd < 0)
		return false;
	now = doca_priv_now_ns();
	if (now - atomic_load_explicit(&ch->peer_seen_ns, memory_order_relaxed) <
	    LOCAL_PEER_SEEN_NS)
		return false;
	if (poll(&pfd, 1, 0) == 1)
		return true;
	atomic_store_explicit(&ch->peer_seen_ns, now, memory_order_relaxed);
	return false;
}

/*
 * A copy of the peer consumer's doorbell eventfd (pidfd_getfd: the rights process_vm_writev
 * needs too); -1 when the kernel or the peer does not allow it (its PE then wakes on a timer).
 */
static int local_take_bell(struct doca_comch_connection *conn, const struct comch_ring *ring)
{
	/* the peer may rewrite its ring at any time: the number is read once */
	int peer_fd = *(const volatile int32_t *)&ring->bell_fd;
	int pfd, fd = -1;

	if (conn->peer_pid <= 0 || peer_fd < 0)
		return -1;
	pfd = (int)syscall(SYS_pidfd_open, conn->peer_pid, 0);
	if (pfd >= 0) {
		fd = (int)syscall(SYS_pidfd_getfd, pfd, peer_fd, 0);
		close(pfd);
	}
	if (fd < 0) {
		ODMA_RATELIMITED_WARN("comch: cannot take the doorbell of the peer's consumer "
		                      "(pidfd_getfd: %s); its notification handle wakes on a "
		                      "1 ms timer instead",
		                      strerror(errno));
		return -1;
	}
	if (!doca_priv_fd_is_eventfd(0, fd)) {
		close(fd); /* never write into anything but an eventfd */
		return -1;
	}
	return fd; /* pidfd_getfd sets close-on-exec */
}

/*
 * The peer's ring, mapped only from a sealed memfd of exactly the announced size
 * (comch_shm_map) whose header repeats the announcement.
 */
static struct comch_ring *local_rcons_map(struct doca_comch_connection *conn, int fd,
                                          const struct comch_ring_geom *g, int *bell_fd,
                                          const char **why)
{
	struct comch_ring *ring;

	if (fd < 0) {
		*why = "malformed registration (no ring descriptor, a short payload or id 0)";
		return NULL;
	}
	ring = comch_shm_map(fd, (size_t)g->ring_size, why);
	if (ring != NULL && !comch_ring_header_matches(ring, g)) {
		munmap(ring, (size_t)g->ring_size);
		*why = "the ring does not match its announcement";
		return NULL;
	}
	if (ring != NULL)
		*bell_fd = local_take_bell(conn, ring);
	return ring;
}

/* Writes @total bytes of @iov into the consumer's buffer at @addr in the peer process. */
static doca_error_t local_write(struct doca_comch_producer *p, const struct iovec *iov,
                                unsigned int niov, uint64_t addr, uint64_t total)
{
	struct iovec local[COMCH_MAX_IOV];
	const char *fix = NULL;
	int e;

	memcpy(local, iov, niov * sizeof(*iov));
	if (local_peer_exited(p->fp.conn->ch)) {
		e = ESRCH; /* its pid may name another process by now: nothing is written there */
		fix = "the peer process has exited (nothing was written)";
	} else {
		e = doca_priv_tp_cma_write(p->fp.conn->peer_pid, local, (int)niov, addr, total,
		                           &fix);
	}
	if (e == 0)
		return DOCA_SUCCESS;
	COMCH_PEER_LOG(
	        ERROR, p->fp.conn,
	        "comch producer %u: writing %llu bytes into the peer (pid %d) failed: %s%s%s",
	        p->fp.id, (unsigned long long)total, (int)p->fp.conn->peer_pid, strerror(e),
	        fix != NULL ? ". " : "", fix != NULL ? fix : "");
	return DOCA_ERROR_IO_FAILED;
}

/* Claims a slot of the shared ring, writes straight into the peer's buffer, marks it done. */
static doca_error_t local_produce(struct doca_comch_producer *p, struct comch_rcons *r,
                                  struct doca_comch_producer_task_send *t, const struct iovec *iov,
                                  unsigned int niov, uint64_t total)
{
	struct comch_claimed cl;
	doca_error_t res = comch_fp_claim(p, r, total, t->imm_len, &cl), status;

	if (res != DOCA_SUCCESS)
		return res;
	status = total ? local_write(p, iov, niov, cl.addr, total) : DOCA_SUCCESS;
	comch_ring_fill(cl.slot, &r->geom, p->fp.id, total, t->imm, t->imm_len, status);
	doca_priv_bell_ring(&r->ring->bell, r->bell_fd); /* the consumer's PE may sleep */
	doca_priv_task_complete(&t->base, status);
	return DOCA_SUCCESS;
}

/* ---- a server's listener: the socket, and the accepted sockets awaiting HELLO ----------- */

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
			         "on representor %s of system %s (socket %s%s); "
			         "stop it or pick another name",
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
static doca_error_t local_listen(struct comch_ep *ep)
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

static void local_unlisten(struct comch_ep *ep)
{
	struct stat st;

	while (ep->hs != NULL) {
		struct comch_hs *h = ep->hs;

		ep->hs = h->next;
		comch_ep_free_chan(ep, h->ch);
		free(h);
	}
	ep->num_hs = 0;
	if (ep->lfd < 0)
		return;
	comch_ep_unwatch(ep, ep->lfd, &ep->lfd_watched);
	close(ep->lfd);
	ep->lfd = -1;
	/* remove the socket only if it is still ours (a restarted server may own it) */
	if (stat(ep->path, &st) == 0 && st.st_dev == ep->path_dev && st.st_ino == ep->path_ino)
		unlink(ep->path);
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
	local_free((*pp)->ch);
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
		comch_chan_reject(ch, DOCA_ERROR_NOT_PERMITTED,
		                  "the server does not accept clients of this user");
		/* its HELLO, unread, would reset the socket: the client would lose the REJECT */
		(void)comch_chan_drain(ch, 4);
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

/* Accepts the clients waiting at the socket: each may wait a while for its HELLO. */
static bool local_accept(struct comch_ep *ep)
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
		ch = local_chan(fd);
		if (ch == NULL) {
			close(fd);
			continue;
		}
		if (server_admit(ep, ch, &pid, &uid))
			h = calloc(1, sizeof(*h));
		if (h == NULL) {
			local_free(ch);
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

/* The next accepted socket whose first packet arrived (in ep->rx); the others wait. */
static struct comch_chan *local_hs_next(struct comch_ep *ep, ssize_t *n, int *pfd, bool *any)
{
	uint64_t now = doca_priv_now_ns();

	for (struct comch_hs **pp = &ep->hs; *pp != NULL;) {
		struct comch_hs *h = *pp;
		struct comch_chan *ch = h->ch;

		*n = local_recv(ch, ep->rx, ep->rx_cap, pfd);
		if (*n == -EAGAIN && now < h->deadline_ns) {
			pp = &h->next;
			continue;
		}
		*pp = h->next;
		ep->num_hs--;
		*any = true;
		if (*n > 0 && ((const struct comch_wire_hdr *)ep->rx)->type != COMCH_W_BYE) {
			free(h);
			return ch; /* its watch goes with it */
		}
		if (*n > 0)
			server_hs_detour(ep, h);
		else
			server_hs_refused(ep, h, *n);
		if (*pfd >= 0)
			close(*pfd);
		comch_ep_free_chan(ep, ch);
		free(h);
	}
	return NULL;
}

/*
 * A server's progress: the next socket whose HELLO (or other first packet) arrived. When none
 * waits, the clients at the listening socket are accepted first; the handshakes that ended
 * before have freed their room by then.
 */
static struct comch_chan *local_take(struct comch_ep *ep, ssize_t *n, int *pfd, bool *any)
{
	struct comch_chan *ch = local_hs_next(ep, n, pfd, any);

	if (ch == NULL && local_accept(ep)) {
		*any = true;
		ch = local_hs_next(ep, n, pfd, any);
	}
	return ch;
}

static uint64_t local_listen_arm(struct comch_ep *ep)
{
	uint64_t at = ODMA_WAKE_NEVER;

	comch_ep_watch(ep, ep->lfd, &ep->lfd_watched);
	for (struct comch_hs *h = ep->hs; h != NULL; h = h->next) {
		comch_ep_watch(ep, h->ch->fd, &h->ch->watched);
		at = comch_min_ns(at, h->deadline_ns);
	}
	return at;
}

/* ---- a client's connect ------------------------------------------------------------------ */

/*
 * Whether the process listening on the socket may be our server: this user, root, or a user
 * of ODMA_COMCH_ALLOW_UIDS (anyone else could have taken the name in a shared directory).
 * The link page is never handed to a server that fails this. *@pid: the server's pid, 0 when
 * it runs in another PID namespace.
 */
static bool client_server_trusted(struct comch_ep *ep, int fd, pid_t *pid)
{
	uid_t uid = 0;

	*pid = 0;
	if (comch_peer_cred(fd, pid, &uid) && comch_peer_uid_ok(&ep->peers, uid))
		return true;
	ODMA_ERR(
	        "comch client \"%s\": the process listening on %s (pid %d, uid %u) runs as another "
	        "user than this client (uid %u); not connecting. Use a private ODMA_RUNDIR, or "
	        "allow that user with ODMA_COMCH_ALLOW_UIDS=%u",
	        ep->name, ep->path, (int)*pid, (unsigned int)uid, (unsigned int)geteuid(),
	        (unsigned int)uid);
	return false;
}

/*
 * Connects to the server's socket and hands over the HELLO with the client's link page. A
 * server in another PID namespace (its memory is out of reach) is left for the network
 * carrier when ODMA_FABRIC is set: a BYE in place of the HELLO tells it this socket closes in
 * order.
 */
static struct comch_chan *local_connect(struct comch_ep *ep, const void *hello, size_t len,
                                        int *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct comch_chan *ch = NULL;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	pid_t pid;

	if (fd < 0) {
		*err = errno;
		return NULL;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", ep->path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		*err = errno;
	} else if (!client_server_trusted(ep, fd, &pid)) {
		*err = COMCH_UNTRUSTED;
	} else if (comch_net_wanted() && pid <= 0) { /* in another PID namespace */
		(void)comch_wire_send(fd, COMCH_W_BYE, 0, NULL, 0, -1);
	} else {
		*err = comch_wire_send(fd, COMCH_W_HELLO, 0, hello, len, ep->link_fd);
		if (*err == 0 && (ch = local_chan(fd)) == NULL)
			*err = ENOMEM;
	}
	if (ch == NULL)
		close(fd);
	return ch;
}

/* The credits are in the shared link page, and so are the posts of the fast-path ring. */
const struct comch_carrier comch_local_carrier = {
	.where = "",
	.lost_errno = ECONNRESET,
	.retry_ms = 2,
	.listen = local_listen,
	.unlisten = local_unlisten,
	.take = local_take,
	.listen_arm = local_listen_arm,
	.connect = local_connect,
	.send = local_send,
	.recv = local_recv,
	.shut = local_shut,
	.hangup = local_shut,
	.free = local_free,
	.admit = local_admit,
	.bind = local_bind,
	.rcons_map = local_rcons_map,
	.produce = local_produce,
};
