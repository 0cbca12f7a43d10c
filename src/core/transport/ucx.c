/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The UCX transport: the memory of a process in another PID namespace or on another
 * machine, over UCX (TCP between namespaces or machines; docs/host-dpu.md).
 *
 * One service thread per process owns the UCX worker (thread mode SINGLE: no other thread
 * calls UCX). It sleeps on the worker's wake-up fd and an eventfd of ours when idle, so an
 * exporter serves its importers without the application calling anything (over TCP,
 * nothing moves unless the exporter progresses its worker). Other threads hand it work
 * through a locked queue and the eventfd.
 *
 * No one-sided RMA: over TCP UCX emulates it in software without checking remote ranges,
 * so an importer sends requests (active messages, ucx_wire.h) and the exporter checks each
 * against its region records (range, permission, revocation) before a byte moves. A GET or
 * PUT is cut into chunks, one request each: 60 KiB over TCP (one UCX fragment, ucx_req.c),
 * else ODMA_UCX_CHUNK_MAX. Small requests queued together for one exporter leave as one batch
 * (ucx_req.c), and their answers as one batch too (ucx_serve.c): over TCP every message costs
 * a system call on each side.
 *
 * Failures: every request has a deadline (ODMA_TRANSPORT_TIMEOUT_MS); the outstanding list
 * is in issue order, so the service thread looks only at its head. A peer whose endpoint
 * fails (it died, the connection broke) fails all its outstanding requests at once. A late
 * reply finds no request (its slot was freed or reused with another id) and is dropped, so
 * a failed io never changes afterwards.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <ucs/datastruct/khash.h>

#include "core/config/config.h"
#include "core/log/log.h"
#include "core/transport/ucx_int.h"

ODMA_LOG_REGISTER(ODMA_UCX)

struct odma_tp_ep *odma_ucx_eps;
struct odma_ucx_state odma_ux = { .lock = PTHREAD_MUTEX_INITIALIZER,
	                          .wlock = PTHREAD_MUTEX_INITIALIZER,
	                          .once = PTHREAD_ONCE_INIT,
	                          .wfd = -1,
	                          .evfd = -1 };
__thread bool odma_ucx_in_worker;
__thread unsigned int odma_ucx_progressing;

/* A thread that polled inline within this long keeps the service thread parked. */
#define UCX_INLINE_NS 1000000ull

void odma_ucx_kick(void)
{
	uint64_t one = 1;

	if (write(odma_ux.evfd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		ODMA_RATELIMITED_WARN("UCX transport: eventfd write failed: %s", strerror(errno));
}

/* ---- the endpoint index ---- */

KHASH_MAP_INIT_INT64(ucx_index, struct ucx_peer *)
static khash_t(ucx_index) ucx_index_map;

bool odma_ucx_index_add(struct odma_lk_ep *h, struct ucx_peer *p)
{
	int ret;
	khiter_t k = kh_put(ucx_index, &ucx_index_map, (uint64_t)(uintptr_t)h, &ret);

	if (ret < 0)
		return false;
	kh_value(&ucx_index_map, k) = p;
	p->indexed = h;
	return true;
}

void odma_ucx_index_del(struct ucx_peer *p)
{
	khiter_t k;

	if (p->indexed == NULL)
		return;
	k = kh_get(ucx_index, &ucx_index_map, (uint64_t)(uintptr_t)p->indexed);
	if (k != kh_end(&ucx_index_map) && kh_value(&ucx_index_map, k) == p)
		kh_del(ucx_index, &ucx_index_map, k);
	p->indexed = NULL;
}

struct ucx_peer *odma_ucx_index_get(struct odma_lk_ep *h)
{
	khiter_t k = kh_get(ucx_index, &ucx_index_map, (uint64_t)(uintptr_t)h);

	return k != kh_end(&ucx_index_map) ? kh_value(&ucx_index_map, k) : NULL;
}

/* ---- the network a link uses ---- */

bool odma_ucx_fabric_dev(char *ip, size_t ipcap, char *dev, size_t devcap)
{
	char mine[64];
	const char *fabric = odma_tp_fabric_ip(ip, ipcap);

	if (fabric == NULL) {
		snprintf(ip, ipcap, "127.0.0.1");
		snprintf(dev, devcap, "lo");
		return true;
	}
	if (!odma_tp_iface_for(ip, dev, devcap, mine, sizeof(mine))) {
		ODMA_ERR("ODMA_FABRIC=%s: no local interface is on the network of %s, so the other "
		         "side cannot be reached; give this side an address on that network (ip "
		         "addr add ...), or fix ODMA_FABRIC",
		         fabric, ip);
		return false;
	}
	snprintf(ip, ipcap, "%s", mine);
	return true;
}

/* ---- the service thread, and inline polls ---- */

/*
 * The longest a round progresses the link at a stretch: then what was queued meanwhile runs,
 * deadlines and watches are checked, the doorbells held go, and the next round starts at once.
 * A round progressed until the link ran dry, which under a stream of arrivals (a busy importer,
 * or a peer that never stops sending) it never did: nothing queued ran meanwhile.
 */
#define UCX_ROUND_NS 1000000ull

/*
 * Progresses the link while it has work, for UCX_ROUND_NS at most; @yield: until asked to.
 * Whether it ran dry (else it still has work: nothing may sleep on its wake-up fd, which UCX
 * arms only once a progress found nothing).
 */
static bool round_progress(bool yield)
{
	uint64_t end = odma_now_ns() + UCX_ROUND_NS;

	while (odma_ucx_progress() != 0)
		if (odma_now_ns() >= end ||
		    (yield && atomic_load_explicit(&odma_ux.inline_wait, memory_order_relaxed)))
			return false;
	return true;
}

/*
 * One round of the worker's work (holding wlock): whether requests are outstanding or closed
 * endpoints still flush; *@dry: whether the link ran out of work. The callbacks of endpoints and
 * listeners (Comch, RDMA) may run here on a thread polling inline as well as on the service thread:
 * they take only their own connection's locks, never wait for the worker, and the PE thread polls
 * holding no lock of a context (doca_pe_progress).
 */
static bool ucx_round(bool *dry)
{
	bool watched, closed;

	odma_ucx_take_queue();
	/* the PEs the callbacks wake are woken once what the callbacks queued has left */
	odma_tp_wake_hold(true);
	/*
	 * A thread that polls inline and found this round under way takes over as soon as it
	 * ends: the round ends there, rather than when the worker runs dry (under a stream it
	 * never did, and the poller spun beside it, a third busy thread on two cores).
	 */
	*dry = round_progress(true);
	/*
	 * What the callbacks queued leaves now, and is progressed in this round: a job taken
	 * here (an endpoint's close) must not wait for a round that an idle worker never starts;
	 * so do the answers to the watches a change or a deadline ended.
	 */
	watched = odma_ucx_watch_run();
	/* so are the closes of endpoints whose last messages left (or met their deadline) */
	closed = odma_ucx_linger_run();
	if (odma_ucx_take_queue() || watched || closed)
		*dry = round_progress(false);
	odma_tp_wake_hold(false);
	odma_ucx_expire();
	/* closed endpoints still flushing (one may have closed just now): like deadlines */
	return odma_ucx_lingering() || odma_ux.out_head != NULL;
}

/*
 * The service thread sleeps (the decision taken under odma_ux.lock: a job queued after it
 * kicks, odma_ucx_enqueue) on our eventfd and, unless @parked, the worker's wake-up fd, for at
 * most @timeout ms; not at all when a job is queued (unless parked) or the transport stops.
 */
static void ucx_sleep(struct pollfd *fds, bool parked, int timeout)
{
	uint64_t v;
	bool busy;

	pthread_mutex_lock(&odma_ux.lock);
	/* parked, the queue is the inline poller's to take */
	busy = (!parked && odma_ux.q_head != NULL) || odma_ux.stopping;
	odma_ux.sleeping = !busy;
	odma_ux.parked = parked;
	pthread_mutex_unlock(&odma_ux.lock);
	if (busy)
		return;
	if (poll(fds, parked ? 1 : 2, timeout) > 0 && (fds[0].revents & POLLIN))
		(void)!read(odma_ux.evfd, &v, sizeof(v));
	pthread_mutex_lock(&odma_ux.lock);
	odma_ux.sleeping = false;
	pthread_mutex_unlock(&odma_ux.lock);
}

/*
 * Sleeps on the worker's wake-up fd and our eventfd; while a thread polls inline (it did
 * within UCX_INLINE_NS), parked instead: on the eventfd only, for at most a millisecond,
 * so the replies that thread takes do not wake this one too. Parked, it takes the worker only
 * when that thread is not in a round (trylock), never waiting for it: waiting cost the
 * poller a futex wake-up per millisecond and left its next round nothing to do.
 */
static void *ucx_thread(void *arg)
{
	struct pollfd fds[2] = { { .fd = odma_ux.evfd, .events = POLLIN },
		                 { .fd = odma_ux.wfd, .events = POLLIN } };
	uint64_t last;
	bool busy, outstanding, dry, parked = false;
	int timeout;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&odma_ux.lock);
		busy = odma_ux.stopping;
		pthread_mutex_unlock(&odma_ux.lock);
		if (busy)
			break;
		if (parked && pthread_mutex_trylock(&odma_ux.wlock) != 0) {
			ucx_sleep(fds, true, 1);
			continue;
		}
		if (!parked)
			pthread_mutex_lock(&odma_ux.wlock);
		odma_ucx_in_worker = true;
		outstanding = ucx_round(&dry);
		/* handed over, if asked: the poller asks again if it still polls */
		atomic_store_explicit(&odma_ux.inline_wait, false, memory_order_relaxed);
		timeout = odma_ucx_watch_timeout_ms(); /* the watches are the worker lock's */
		last = atomic_load(&odma_ux.inline_ns);
		parked = last != 0 && odma_now_ns() - last < UCX_INLINE_NS;
		busy = !parked && (!dry || !odma_ux.lk->arm());
		odma_ucx_in_worker = false;
		pthread_mutex_unlock(&odma_ux.wlock);
		if (busy)
			continue;
		/* with requests outstanding, wake up to check their deadlines; watches at theirs */
		if (outstanding && (timeout < 0 || timeout > 20))
			timeout = 20;
		ucx_sleep(fds, parked, parked ? 1 : timeout);
	}
	return NULL;
}

/* odma_tp_poll: this thread does the worker's work if no one else does. */
static void ucx_poll(void)
{
	bool dry;

	if (!atomic_load_explicit(&odma_ux.inline_ok, memory_order_relaxed) || odma_ucx_in_worker)
		return;
	if (pthread_mutex_trylock(&odma_ux.wlock) != 0) {
		/* the service thread is in a round: it hands over at its end (ucx_round); asked
		 * once */
		if (!atomic_load_explicit(&odma_ux.inline_wait, memory_order_relaxed)) {
			atomic_store(&odma_ux.inline_ns, odma_now_ns());
			atomic_store_explicit(&odma_ux.inline_wait, true, memory_order_relaxed);
		}
		return;
	}
	if (atomic_load(&odma_ux.inline_ok)) {
		odma_ucx_in_worker = true;
		atomic_store_explicit(&odma_ux.inline_wait, false, memory_order_relaxed);
		atomic_store(&odma_ux.inline_ns, odma_now_ns());
		(void)ucx_round(&dry);
		odma_ucx_in_worker = false;
	}
	pthread_mutex_unlock(&odma_ux.wlock);
}

/* odma_tp_poll_end: the polling thread sleeps; a parked service thread resumes at once. */
static void ucx_poll_end(void)
{
	bool kick;

	if (!atomic_load_explicit(&odma_ux.inline_ok, memory_order_relaxed) ||
	    atomic_exchange(&odma_ux.inline_ns, 0) == 0)
		return;
	pthread_mutex_lock(&odma_ux.lock);
	kick = odma_ux.sleeping && odma_ux.parked;
	/* only a thread that is woken stops counting as asleep: enqueue kicks the others */
	if (kick)
		odma_ux.sleeping = false;
	pthread_mutex_unlock(&odma_ux.lock);
	if (kick)
		odma_ucx_kick();
}

size_t odma_ucx_out_read(struct odma_ucx_out *o, size_t offset, void *dest, size_t max_length)
{
	size_t i = 0, done = 0;

	if (offset >= o->len)
		return 0;
	if (max_length > o->len - offset)
		max_length = o->len - offset;
	if (o->pack != NULL) {
		o->pack(o, offset, dest, max_length);
		return max_length;
	}
	while (i < o->n && offset >= o->iov[i].iov_len)
		offset -= o->iov[i++].iov_len;
	for (; i < o->n && done < max_length; i++, offset = 0) {
		size_t k = o->iov[i].iov_len - offset;

		if (k > max_length - done)
			k = max_length - done;
		memcpy((uint8_t *)dest + done, (const uint8_t *)o->iov[i].iov_base + offset, k);
		done += k;
	}
	return done;
}

void odma_ucx_pack_trailed(void *dest, size_t offset, size_t max, uint64_t len, doca_error_t *st,
                           odma_ucx_read_fn *read, void *arg)
{
	uint8_t trailer[ODMA_UCX_TRAILER_LEN], *d = dest;

	if (offset < len) {
		size_t k = max < len - offset ? max : (size_t)(len - offset);

		if (*st == DOCA_SUCCESS)
			*st = read(arg, offset, d, k);
		if (*st != DOCA_SUCCESS)
			memset(d, 0, k);
		d += k;
		offset += k;
		max -= k;
	}
	if (max == 0)
		return;
	odma_ucx_trailer_encode(*st, trailer);
	memcpy(d, trailer + (offset - len), max);
}

/*
 * The longest payload each message carries, with room to spare: a request's (an ATTACH's
 * address, or a PUT's chunk and its trailer), a reply's (a GET's chunk and its trailer), the
 * bundles'; an endpoint message is as long as its receiver admits (odma_ucx_msg_admit).
 */
#define UCX_CHUNK_ROOM (ODMA_UCX_CHUNK_MAX + 4096)
#define UCX_BUNDLE_ROOM (64u * 1024 + 4096)

static const struct odma_lk_handler ucx_handlers[] = {
	{ ODMA_UCX_AM_REQ, odma_ucx_req_am, UCX_CHUNK_ROOM, NULL },
	{ ODMA_UCX_AM_REPLY, odma_ucx_reply_am, UCX_CHUNK_ROOM, NULL },
	{ ODMA_UCX_AM_REPLIES, odma_ucx_replies_am, UCX_BUNDLE_ROOM, NULL },
	{ ODMA_UCX_AM_REQS, odma_ucx_reqs_am, UCX_BUNDLE_ROOM, NULL },
	{ ODMA_UCX_AM_MSG, odma_ucx_msg_am, 0, odma_ucx_msg_admit },
	{ ODMA_UCX_AM_MSGS, odma_ucx_msgs_am, UCX_BUNDLE_ROOM, NULL },
	{ ODMA_UCX_AM_CREDIT, odma_ucx_credit_am, 64, NULL },
};

bool odma_ucx_may_use_tcp(void)
{
	const char *tls = getenv("UCX_TLS");

	return tls == NULL || tls[0] == '^' || strstr(tls, "tcp") != NULL ||
	       strstr(tls, "all") != NULL;
}

/*
 * The link (link.h): tcp, odma's own TCP link (every connection authenticated by the fabric
 * secret, no remote memory access), or ucp, UCX's own (its active messages, on the transports
 * UCX_TLS names). auto: odma's wherever UCX may use TCP (odma_ucx_may_use_tcp), else UCX's
 * (an RDMA NIC). NULL after the bad-value line.
 */
static const struct odma_lk_ops *ucx_pick_link(void)
{
	const char *v = odma_config_string("ODMA_LINK");

	if (v == NULL || strcmp(v, "auto") == 0)
		return odma_ucx_may_use_tcp() ? &odma_lk_tcp : &odma_lk_ucp;
	if (strcmp(v, "ucp") == 0)
		return &odma_lk_ucp;
	if (strcmp(v, "tcp") == 0)
		return &odma_lk_tcp;
	return NULL;
}

/* The link's open, with its handlers and the address a descriptor carries. */
static void *ucx_open_link(void *why)
{
	*(const char **)why =
	        odma_ux.lk->open(ucx_handlers, sizeof(ucx_handlers) / sizeof(ucx_handlers[0]),
	                         odma_ucx_peer_err_cb, odma_ucx_conn_gone, odma_ux.self_addr,
	                         &odma_ux.self_len, &odma_ux.wfd, &odma_ux.copy_out, &odma_ux.cut);
	return NULL;
}

/*
 * The link, opened on a thread of odma's own (the threads UCX starts there, its async
 * thread, may run on the process' CPUs, not only on those of a pinned caller); then the
 * service thread.
 */
static const char *ucx_open(void)
{
	const char *why = NULL;
	pthread_t t;

	odma_ux.lk = ucx_pick_link();
	if (odma_ux.lk == NULL)
		return "ODMA_LINK is not auto, tcp or ucp";
	if (doca_priv_thread_start(&t, NULL, ucx_open_link, &why) != 0)
		return "cannot start a thread to open the link";
	pthread_join(t, NULL);
	if (why != NULL)
		return why;
	odma_ux.evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (odma_ux.evfd < 0)
		return "eventfd failed";
	if (doca_priv_thread_start(&odma_ux.thread, "odma-ucx", ucx_thread, NULL) != 0)
		return "cannot start the UCX service thread";
	atomic_store(&odma_ux.inline_ok, true);
	return NULL;
}

/*
 * A child of fork() has no service thread, and UCX's own state (its async thread, memory
 * hooks) does not survive a fork: a UCX context made in the child hangs. So a child of a
 * process that used the transport has none (a clear error at its first network export or
 * import); the parent's objects are abandoned in the child, never freed. Fork before the
 * first network export or import, or exec.
 */
static void ucx_atfork_child(void)
{
	pthread_mutex_init(&odma_ux.lock, NULL);
	pthread_mutex_init(&odma_ux.wlock, NULL);
	atomic_store(&odma_ux.inline_ok, false);
	atomic_store(&odma_ux.inline_ns, 0);
	odma_ux.sleeping = odma_ux.parked = false;
	odma_ux.listeners = 0;
	odma_ux.up = false;
	odma_ux.why =
	        "this process is a fork() child of one that used UCX, and UCX does not survive "
	        "a fork; fork before the first export or import over the network, or exec";
	odma_ux.wfd = odma_ux.evfd = -1;
	odma_ux.q_head = odma_ux.q_tail = NULL;
	odma_ux.peers = NULL;
	memset(odma_ux.slot, 0, sizeof(odma_ux.slot));
	odma_ux.nout = 0;
	odma_ux.held_head = odma_ux.held_tail = NULL;
	odma_ux.out_head = odma_ux.out_tail = NULL;
	odma_ux.self_len = 0;
}

static void ucx_shutdown(void);

static void ucx_start_once(void)
{
	static bool atfork;

	if (!atfork) {
		atfork = true;
		pthread_atfork(NULL, NULL, ucx_atfork_child);
	}
	odma_ux.why = ucx_open();
	odma_ux.up = odma_ux.why == NULL;
	if (odma_ux.up)
		atexit(ucx_shutdown);
	if (odma_ux.up)
		ODMA_DBG("UCX transport up on the %s link: %u-byte address", odma_ux.lk->name,
		         odma_ux.self_len);
	else
		ODMA_ERR("UCX transport unavailable: %s; host and DPU sides in different "
		         "namespaces or machines cannot reach each other",
		         odma_ux.why);
}

bool odma_ucx_available(const char **why)
{
	pthread_once(&odma_ux.once, ucx_start_once);
	if (!odma_ux.up && why != NULL)
		*why = odma_ux.why;
	return odma_ux.up;
}

/* ---- the transport's ops ---- */

static doca_error_t ucx_reach_self(struct odma_tp_reach *r)
{
	if (!odma_ucx_available(NULL))
		return DOCA_SUCCESS; /* logged: exports offer no network reach */
	memcpy(r->net_addr, odma_ux.self_addr, odma_ux.self_len);
	r->net_len = odma_ux.self_len;
	return DOCA_SUCCESS;
}

/*
 * At exit: the service thread leaves, then this thread closes every endpoint and frees the
 * worker and the context, so nothing of UCX is left behind (LeakSanitizer checks it). Requests
 * still outstanding are dropped with the process.
 */
static void ucx_shutdown(void)
{
	if (!odma_ux.up)
		return;
	pthread_mutex_lock(&odma_ux.lock);
	odma_ux.stopping = true;
	pthread_mutex_unlock(&odma_ux.lock);
	odma_ucx_kick();
	if (pthread_join(odma_ux.thread, NULL) != 0)
		return;
	pthread_mutex_lock(&odma_ux.wlock); /* no inline poll after this one */
	atomic_store(&odma_ux.inline_ok, false);
	pthread_mutex_unlock(&odma_ux.wlock);
	odma_ux.up = false;
	odma_ucx_linger_drain(); /* the last messages of closed endpoints, within their deadline */
	odma_ucx_listeners_destroy();
	odma_ucx_clients_forget();
	for (struct odma_tp_ep *ep = odma_ucx_eps, *next; ep != NULL; ep = next) {
		next = ep->next;
		if (ep->peer->ep != NULL)
			odma_ux.lk->ep_close(ep->peer->ep, true);
		ep->peer->ep = NULL;
	}
	for (int k = 0; k < 2; k++) /* the peers we import from, and the clients we answer */
		for (struct ucx_peer *p = k == 0 ? odma_ux.peers : odma_ux.clients; p != NULL;
		     p = p->next)
			if (p->ep != NULL) {
				odma_ux.lk->ep_close(p->ep, true);
				p->ep = NULL;
			}
	odma_ux.lk->close();
	odma_ucx_msg_cache_drop();
	odma_ucx_reply_cache_drop();
	close(odma_ux.evfd);
	kh_destroy_inplace(ucx_index, &ucx_index_map);
	memset(&ucx_index_map, 0, sizeof(ucx_index_map));
}

static const char *ucx_status(void)
{
	const struct odma_lk_ops *lk = odma_ux.lk != NULL ? odma_ux.lk : ucx_pick_link();

	return lk != NULL ? lk->describe() : "ODMA_LINK is not auto, tcp or ucp";
}

static bool ucx_reachable(const struct odma_tp_reach *r, const char **why)
{
	*why = "its descriptor carries no network address";
	return r->net_len != 0;
}

const struct odma_tp_ops odma_ucx_ops = {
	.name = "ucx",
	.kind = ODMA_TP_UCX,
	.network = true,
	.reachable = ucx_reachable,
	.status = ucx_status,
	.available = odma_ucx_available,
	.reach_self = ucx_reach_self,
	.attach = odma_ucx_attach,
	.detach = odma_ucx_detach,
	.io_start = odma_ucx_io_start,
	.io_cancel = odma_ucx_io_cancel,
	.poll = ucx_poll,
	.poll_end = ucx_poll_end,
	.watch_kick = odma_ucx_watch_kick,
	.listen = odma_ucx_listen,
	.listen_close = odma_ucx_listen_close,
	.connect = odma_ucx_connect,
	.ep_set_cbs = odma_ucx_ep_set_cbs,
	.ep_send = odma_ucx_ep_send,
	.ep_room = odma_ucx_ep_room,
	.ep_attach = odma_ucx_ep_attach,
	.ep_close = odma_ucx_ep_close,
	.ep_release = odma_ucx_ep_release,
};
