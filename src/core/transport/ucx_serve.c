/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The UCX transport, exporter side: each request an importer sends is decoded and checked
 * against the region records (ucx_wire.c) before a byte moves, and answered only on an
 * endpoint this process made, with peer error handling: an endpoint of ours (listen or
 * connect), or the client endpoint an importer's ATTACH had us make to its worker address.
 * UCX's own endpoint a request arrives on is never sent on (without error handling, a peer
 * that died with replies in flight made UCX abort the exporter). A request from a peer that
 * never attached, or malformed beyond its id, is dropped (the importer's deadline fails it).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config/config.h"
#include "core/log/log.h"
#include "core/transport/ucx_int.h"
#include "util/buf_cache.h"
#include "util/codec.h"
#include "util/container_of.h"
#include "util/queue.h"

ODMA_LOG_REGISTER(ODMA_UCX)

/*
 * What one importer may cost us. A client is made only for an ATTACH that passed the region
 * check (it presented a live export's id, generation and key); before that a peer gets no
 * endpoint and no reply. Replies in flight to a client (handed to UCX, not yet taken by the
 * peer) are bounded in number and in the memory they hold (reply_charge: the buffer, not only
 * the bytes it carries); a GET past the byte bound waits, as a 64-byte record, until replies
 * complete; past UCX_DEFER_MAX waiting GETs, UCX_REPLIES_MAX replies or UCX_REPLY_BYTES_MAX and
 * UCX_REPLY_BYTES_SLACK held, requests are dropped (the importer's deadline fails them: a
 * peer that reads nothing). All clients together hold UCX_REPLY_BYTES_ALL (and the slack):
 * past it, a client holding more than its share (UCX_REPLY_BYTES_FAIR) waits or is dropped
 * the same way (256 importers that read nothing held 48 MiB each, 12 GiB), while one within
 * its share is still served, so one that reads is not starved. At most UCX_REPLY_BYTES_ALL,
 * the slack and a share per client are held in all (400 MiB for UCX_CLIENTS_MAX). The GETs
 * waiting are bounded the same way: UCX_DEFER_ALL for all clients, past which a client with
 * more than UCX_DEFER_FAIR waiting has the next ones dropped (65,536 records of 80 bytes for
 * each of 256 importers were 1.3 GiB; now at most 30 MiB).
 */
#define UCX_CLIENTS_MAX 256
#define UCX_WATCH_MAX 64          /* watches held per importer: past it, one is answered at once */
#define UCX_REPLIES_MAX UCX_SLOTS /* an importer's outstanding requests at most */
#define UCX_REPLY_BYTES_MAX (32u << 20) /* 128 GETs of 256 KiB */
/* past the bound, answers to what is not a GET (small: a PUT's, an atomic's, a refusal) */
#define UCX_REPLY_BYTES_SLACK (16u << 20)
/* what a reply in flight costs beyond its buffer: the link's record of the message */
#define UCX_REPLY_OVERHEAD 256u
#define UCX_DEFER_MAX 65536u
#define UCX_DEFER_ALL 131072u /* GETs waiting, all clients together: about 10 MiB */
#define UCX_DEFER_FAIR 1024u  /* a client's share of them, always kept */
#define UCX_REPLY_BYTES_ALL (256u << 20)
#define UCX_REPLY_BYTES_FAIR (512u << 10) /* a client's share, always answered */

#define UCX_BATCH_BYTES ODMA_UCX_REPLIES_BYTES

/*
 * A reply in flight, or a batch of them (ODMA_UCX_AM_REPLIES: @n replies, each header and
 * payload in @data, @hdr the batch's header). The answers to a batch of requests (ucx_req.c)
 * are gathered while it is served, as many as fit (UCX_BATCH_BYTES), and leave as one
 * message: one system call on each side over TCP where each answer cost one. A GET's reply is
 * served straight into the batch: no copy more than alone. The answers to requests that came
 * alone are gathered the same way while one progress call of the worker runs, and leave when
 * it returns (odma_ucx_round_send): over TCP one call reads a connection once (UCX's receive
 * buffer, 256 KiB: about four 60 KiB writes), so an answer waits at most for the rest of that
 * read. 1 MiB writes, depth 8, loopback: 0.66 -> 0.87 x the TCP stream (performance.md).
 */
struct ucx_reply {
	struct ucx_peer *to;
	struct odma_ucx_out out; /* the payload UCX reads while the reply is in flight */
	struct odma_ucx_req q;   /* a GET read as it leaves (reply_lazy): the request */
	doca_error_t st;         /* and whether its bytes so far were read */
	uint8_t hdr[ODMA_UCX_REPLY_LEN];
	size_t len;
	size_t room;   /* the bytes of @data allocated */
	size_t charge; /* what it counts in its client's reply_bytes while in flight */
	unsigned int n;
	bool cached; /* a buffer of reply_cache */
	uint8_t data[];
};

/*
 * Reply buffers with room for a batch, kept for reuse (util/buf_cache.h), at most
 * UCX_REPLY_CACHE_MAX (16 MiB). Every 60 KiB GET's answer is one: a buffer of each reply's own
 * faulted its pages in again whenever the replies in flight had grown and shrunk, and DMA reads
 * of 1 MiB across a veth pair ran at a third of their speed in about one run of five (the
 * exporter took 20,000-35,000 page faults in 0.8 s; docs/performance.md). The thread holding
 * the worker uses it (odma_ux.wlock).
 */
#define UCX_REPLY_CACHE_MAX 256u
static struct odma_buf_cache reply_cache =
        ODMA_BUF_CACHE_INIT(sizeof(struct ucx_reply) + UCX_BATCH_BYTES, UCX_REPLY_CACHE_MAX);

/* A reply with room for @room bytes of data; NULL when out of memory. */
static struct ucx_reply *reply_alloc(size_t room)
{
	bool had = reply_cache.head != NULL, cached;
	struct ucx_reply *rp = odma_buf_cache_alloc(&reply_cache, sizeof(*rp) + room,
	                                            sizeof(*rp) + ODMA_UCX_BUNDLE_PACK, &cached);

	if (rp == NULL)
		return NULL;
	if (cached && had) /* a kept one: no allocation */
		atomic_fetch_add_explicit(&odma_ucx_reply_reuses, 1, memory_order_relaxed);
	rp->cached = cached;
	rp->room = room;
	return rp;
}

static void reply_free(struct ucx_reply *rp)
{
	if (rp != NULL)
		odma_buf_cache_free(&reply_cache, rp, rp->cached);
}

struct ucx_deferred {
	struct ucx_deferred *next;
	struct odma_ucx_req q;
};

/*
 * A watch held (service thread): answered once its value differs from @seen, at @due_ns, or
 * when its importer is gone (dropped).
 */
struct ucx_watch {
	struct ucx_watch *next;
	struct ucx_peer *p; /* referenced */
	struct odma_ucx_req q;
	uint64_t seen, due_ns;
};

static struct ucx_watch *watches; /* service thread */
static uint64_t watch_next_ns;    /* the soonest due_ns (service thread) */
static atomic_uint nwatches;      /* held, or about to be (read by any thread) */
static atomic_bool watch_kicked;  /* a watched value changed since the last check */

atomic_uint_fast64_t odma_ucx_reply_batches, odma_ucx_replies_batched, odma_ucx_reply_reuses;

static void serve_deferred(struct ucx_peer *p);

static void reply_cb(void *arg, int status)
{
	struct ucx_reply *rp = arg;
	struct ucx_peer *p = rp->to;

	(void)status;
	p->replies--;
	p->reply_bytes -= rp->charge;
	odma_ux.reply_bytes -= rp->charge;
	reply_free(rp);
	serve_deferred(p);
	odma_ucx_peer_unref(p);
}

/*
 * Sends active message @am (header @hdr of @hlen bytes, inside @rp, then rp->out) on @p's
 * endpoint (ours, with peer error handling): whether UCX holds @rp until its callback (else
 * the send ended, or failed, at once, and @rp is the caller's again).
 */
static bool ucx_reply_send(struct ucx_peer *p, struct ucx_reply *rp, unsigned int am,
                           const void *hdr, size_t hlen)
{
	if (odma_ux.lk->send(p->ep, am, hdr, hlen, &rp->out, 0, reply_cb, rp) != ODMA_LK_INFLIGHT)
		return false;
	rp->to = p;
	/* a batch's buffer is held whole, however little it carries; a lazy reply's bytes are
	 * made as it leaves, into the link's buffers */
	rp->charge = sizeof(*rp) + (rp->len > rp->room ? rp->len : rp->room) + UCX_REPLY_OVERHEAD;
	p->replies++;
	p->reply_bytes += rp->charge;
	odma_ux.reply_bytes += rp->charge;
	odma_ucx_peer_ref(p); /* the reply's */
	return true;
}

/* Answers on @p's endpoint; takes @rp. */
static void ucx_reply(struct ucx_peer *p, struct ucx_reply *rp)
{
	if (!ucx_reply_send(p, rp, ODMA_UCX_AM_REPLY, rp->hdr, sizeof(rp->hdr)))
		reply_free(rp);
}

/*
 * Serves @q (its payload @data; @status: refuse it with that code unless DOCA_SUCCESS): its
 * reply header into @hdr, its payload into @out (room for the request's); the payload's length.
 */
static size_t reply_fill(const struct odma_ucx_req *q, const void *data, doca_error_t status,
                         uint8_t *hdr, uint8_t *out)
{
	struct odma_ucx_reply rh = { .op = q->op, .id = q->id, .status = status };
	size_t len = 0;

	if (status == DOCA_SUCCESS)
		rh.status = odma_ucx_req_serve(q, data, out, &len);
	if (rh.status != DOCA_SUCCESS)
		len = 0;
	rh.len = (uint32_t)len;
	odma_ucx_reply_encode(&rh, hdr);
	return len;
}

/* The payload room @q's reply needs when served (@status DOCA_SUCCESS). */
static size_t reply_room(const struct odma_ucx_req *q, doca_error_t status)
{
	if (status != DOCA_SUCCESS)
		return 0;
	return q->op == ODMA_UCX_OP_GET      ? q->len
	       : q->op == ODMA_UCX_OP_ATTACH ? ODMA_TP_ISSUED_MAX
	       : odma_ucx_op_atomic(q->op)   ? 8
	                                     : 0;
}

/* Reads @k bytes at @offset of GET @arg's range, the region checked again first. */
static doca_error_t lazy_read(void *arg, uint64_t offset, void *dest, size_t k)
{
	const struct odma_ucx_req *q = arg;
	void *local = NULL;
	doca_error_t st = odma_tp_region_check(q->region_id, q->key, q->generation,
	                                       q->addr + offset, k, ODMA_TP_READ, &local);

	if (st == DOCA_SUCCESS && odma_tp_safe_copy(dest, local, k) != 0)
		st = DOCA_ERROR_IO_FAILED;
	return st;
}

/*
 * Packs bytes [@offset, @offset + @max) of a lazy reply (reply_lazy): its GET's bytes, each
 * piece read from the region after the region is checked again (a revoke or an unmapped page
 * meanwhile fails the rest: zeros), then its trailer, which says how the read went.
 */
static void lazy_pack(struct odma_ucx_out *o, size_t offset, void *dest, size_t max)
{
	struct ucx_reply *rp = odma_container_of(o, struct ucx_reply, out);

	odma_ucx_pack_trailed(dest, offset, max, rp->q.len, &rp->st, lazy_read, &rp->q);
}

/*
 * GET @q answered as its reply leaves (UCX's TCP transport packs it into its send buffer,
 * odma_ucx_am_send): its bytes are read from the region there, not copied into the reply
 * first, so the exporter copies each once. The region is checked now (a refusal is answered
 * as reply_new would) and again for each piece as it is read. NULL when out of memory.
 */
static struct ucx_reply *reply_lazy(const struct odma_ucx_req *q)
{
	struct odma_ucx_reply rh = { .op = q->op, .id = q->id, .status = DOCA_SUCCESS };
	struct ucx_reply *rp = reply_alloc(0);
	void *local;

	if (rp == NULL)
		return NULL;
	rp->n = 1;
	rp->q = *q;
	rp->st = odma_tp_region_check(q->region_id, q->key, q->generation, q->addr, q->len,
	                              ODMA_TP_READ, &local);
	rh.status = rp->st;
	if (rp->st == DOCA_SUCCESS) {
		rh.flags = ODMA_UCX_REPLY_TRAILER;
		rh.len = (uint32_t)(q->len + ODMA_UCX_TRAILER_LEN);
	}
	rp->len = rh.len;
	odma_ucx_reply_encode(&rh, rp->hdr);
	odma_ucx_out_bytes(&rp->out, NULL, rp->len);
	if (rp->len != 0)
		rp->out.pack = lazy_pack;
	return rp;
}

/*
 * Whether GET @q is answered as it leaves (reply_lazy): a reply larger than a batch's pack
 * buffer, when UCX packs payloads (odma_ux.copy_out).
 */
static bool reply_is_lazy(const struct odma_ucx_req *q, doca_error_t status)
{
	return status == DOCA_SUCCESS && q->op == ODMA_UCX_OP_GET && odma_ux.copy_out &&
	       q->len > ODMA_UCX_BUNDLE_PACK;
}

/* Serves @q (its payload @data) into a new reply; NULL when out of memory. */
static struct ucx_reply *reply_new(const struct odma_ucx_req *q, const void *data,
                                   doca_error_t status)
{
	struct ucx_reply *rp;

	if (reply_is_lazy(q, status))
		return reply_lazy(q);
	rp = reply_alloc(reply_room(q, status));
	if (rp == NULL)
		return NULL;
	rp->n = 1;
	rp->len = reply_fill(q, data, status, rp->hdr, rp->data);
	odma_ucx_out_bytes(&rp->out, rp->data, rp->len);
	return rp;
}

/*
 * Sends batch @b to @p: one reply as itself, several as ODMA_UCX_AM_REPLIES; empty, it stays.
 * Whether @b is still the caller's (else UCX holds it until its callback frees it).
 */
static bool batch_send(struct ucx_peer *p, struct ucx_reply *b)
{
	struct ucx_reply *c;
	bool held;

	if (b->n == 0)
		return true;
	/*
	 * A client that lags (half its bound held): a batch that fills little of its buffer
	 * leaves in a copy of its own size, so that the buffer does not count whole (a peer
	 * sending batches of two refused GETs held 64 KiB per 48 bytes of answers).
	 */
	if (!p->dead && p->reply_bytes >= UCX_REPLY_BYTES_MAX / 2 &&
	    b->room > ODMA_UCX_BUNDLE_PACK && b->len <= ODMA_UCX_BUNDLE_PACK &&
	    (c = reply_alloc(b->len)) != NULL) {
		memcpy(c->data, b->data, b->len);
		c->len = b->len;
		c->n = b->n;
		if (batch_send(p, c))
			reply_free(c);
		b->n = 0;
		b->len = 0;
		return true;
	}
	if (p->dead) {
		held = false;
	} else if (b->n == 1) { /* a reply of its own: its header is the first bytes */
		odma_ucx_out_bytes(&b->out, b->data + ODMA_UCX_REPLY_LEN,
		                   b->len - ODMA_UCX_REPLY_LEN);
		held = ucx_reply_send(p, b, ODMA_UCX_AM_REPLY, b->data, ODMA_UCX_REPLY_LEN);
	} else {
		odma_put_le(b->hdr, b->n, 4);
		odma_put_le(b->hdr + 4, 0, 4);
		odma_ucx_out_bytes(&b->out, b->data, b->len);
		held = ucx_reply_send(p, b, ODMA_UCX_AM_REPLIES, b->hdr, ODMA_UCX_REPLIES_HDR);
		atomic_fetch_add_explicit(&odma_ucx_reply_batches, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&odma_ucx_replies_batched, b->n, memory_order_relaxed);
	}
	if (held)
		return false;
	b->n = 0;
	b->len = 0;
	return true;
}

/*
 * Serves @q into batch *@bp (made on first use; sent first, and a new one made, when it is
 * too full for this reply); false when the reply does not fit a batch, or out of memory (the
 * caller answers it alone).
 */
static bool batch_add(struct ucx_peer *p, struct ucx_reply **bp, const struct odma_ucx_req *q,
                      const void *data, doca_error_t st)
{
	size_t need = ODMA_UCX_REPLY_LEN + reply_room(q, st);
	struct ucx_reply *b = *bp;

	if (need > UCX_BATCH_BYTES)
		return false;
	if (b != NULL && (b->len + need > UCX_BATCH_BYTES || b->n == ODMA_UCX_REPLIES_MAX) &&
	    !batch_send(p, b))
		b = NULL;
	if (b == NULL && (b = reply_alloc(UCX_BATCH_BYTES)) != NULL) {
		b->n = 0;
		b->len = 0;
	}
	*bp = b;
	if (b == NULL)
		return false;
	b->len += ODMA_UCX_REPLY_LEN +
	          reply_fill(q, data, st, b->data + b->len, b->data + b->len + ODMA_UCX_REPLY_LEN);
	b->n++;
	return true;
}

/*
 * Whether @p may hold @len bytes more of replies: within its bound, and within the budget of
 * all clients or else within its share of it.
 */
static bool bytes_fit(const struct ucx_peer *p, size_t len)
{
	return p->reply_bytes + len <= UCX_REPLY_BYTES_MAX &&
	       (p->reply_bytes + len <= UCX_REPLY_BYTES_FAIR ||
	        odma_ux.reply_bytes + len <= UCX_REPLY_BYTES_ALL);
}

/*
 * Whether @q may be answered now. Only a GET's reply is large: it waits behind the GETs
 * already waiting, or while the bound is reached. The rest (a PUT carries its bytes in the
 * request) is answered at once: replies complete in any order, matched by id.
 */
static bool room_for(const struct ucx_peer *p, const struct odma_ucx_req *q)
{
	return q->op != ODMA_UCX_OP_GET || (p->def_head == NULL && bytes_fit(p, q->len));
}

/* The GETs that waited for room, in order, while there is room (service thread). */
static void serve_deferred(struct ucx_peer *p)
{
	while (p->def_head != NULL && !p->dead && bytes_fit(p, p->def_head->q.len)) {
		struct ucx_deferred *d;
		struct ucx_reply *rp;

		ODMA_QUEUE_POP(p->def_head, p->def_tail, d, next);
		p->ndeferred--;
		odma_ux.ndeferred--;
		rp = reply_new(&d->q, NULL, DOCA_SUCCESS);
		free(d);
		if (rp != NULL)
			ucx_reply(p, rp);
	}
}

void odma_ucx_deferred_free(struct ucx_peer *p)
{
	if (p->def_head == NULL)
		return; /* a peer that never served a GET: any thread may free it */
	while (p->def_head != NULL) {
		struct ucx_deferred *d = p->def_head;

		p->def_head = d->next;
		free(d);
	}
	p->def_tail = NULL;
	odma_ux.ndeferred -= p->ndeferred;
	p->ndeferred = 0;
}

/*
 * Dead clients leave the list (service thread), and their endpoints close: the replies still
 * queued there fail and let go of the client. Left open, the replies to a peer that reads
 * nothing never completed, and held the client, its connection and its replies for good.
 */
static void clients_reap(void)
{
	struct ucx_peer **pp = &odma_ux.clients, *p;

	while ((p = *pp) != NULL) {
		if (!p->dead) {
			pp = &p->next;
			continue;
		}
		*pp = p->next;
		odma_ux.nclients--;
		odma_ucx_index_del(p);
		odma_ucx_deferred_free(p);
		if (p->ep != NULL)
			odma_ux.lk->ep_close(p->ep, false);
		p->ep = NULL;
		odma_ucx_peer_unref(p);
	}
}

/*
 * The peer whose requests arrive on @from (the endpoint index: constant time): an endpoint of
 * ours (listen/connect), or a client made by its ATTACH; NULL for a dead one (a dead client
 * leaves the list here, the others when the next client is made).
 */
static struct ucx_peer *client_of(struct odma_lk_ep *from)
{
	struct ucx_peer *p = odma_ucx_index_get(from);

	if (p == NULL || !p->dead)
		return p;
	if (p->owner == NULL)
		clients_reap();
	return NULL;
}

void odma_ucx_conn_gone(struct odma_lk_ep *ep, int status)
{
	struct ucx_peer *p = odma_ucx_index_get(ep);

	if (p == NULL || p->from != ep)
		return;
	odma_ucx_index_del(p);
	p->from = NULL;
	odma_ucx_peer_err_cb(p, status);
	clients_reap(); /* its requests no longer arrive: nothing more is answered */
}

/* A client for the importer at worker address @addr, whose requests arrive on @from. */
static struct ucx_peer *client_new(struct odma_lk_ep *from, const uint8_t *addr, size_t alen)
{
	struct ucx_peer *p;

	clients_reap();
	if (odma_ux.nclients >= UCX_CLIENTS_MAX) {
		ODMA_RATELIMITED_WARN("UCX transport: %u importers attached already; an attach "
		                      "is refused until one leaves",
		                      odma_ux.nclients);
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return NULL;
	p->from = from;
	p->alen = (uint16_t)alen;
	memcpy(p->addr, addr, alen);
	if (odma_ucx_peer_connect(p) != ODMA_LK_OK) {
		ODMA_RATELIMITED_WARN("UCX transport: cannot reach an importer that attached "
		                      "(its worker address is unusable); its attach is dropped");
		free(p);
		return NULL;
	}
	p->refs = 1; /* the list's */
	if (!odma_ucx_index_add(from, p)) {
		odma_ucx_peer_unref(p); /* its endpoint goes with it */
		return NULL;
	}
	p->next = odma_ux.clients;
	odma_ux.clients = p;
	odma_ux.nclients++;
	return p;
}

/*
 * An ATTACH from @from carrying the importer's worker address: served first, and a client
 * made (or remade, when the address changed) only when it passed. NULL: no answer.
 */
static struct ucx_peer *attach_client(struct odma_lk_ep *from, struct ucx_peer *p,
                                      const struct odma_ucx_req *q, const uint8_t *addr,
                                      size_t alen, struct ucx_reply *rp)
{
	struct odma_ucx_reply rh = { 0 };

	if (p != NULL && (p->owner != NULL || alen == 0 ||
	                  (p->alen == alen && memcmp(p->addr, addr, alen) == 0)))
		return p;
	(void)odma_ucx_reply_decode(rp->hdr, sizeof(rp->hdr), rp->len, &rh);
	if (rh.status != DOCA_SUCCESS || alen == 0) {
		ODMA_RATELIMITED_WARN("UCX transport: dropped an attach (region %u) from a peer "
		                      "that is not attached: %s",
		                      q->region_id,
		                      alen == 0 ? "it gave no address to answer"
		                                : doca_error_get_name(rh.status));
		return NULL;
	}
	if (p != NULL) /* the same endpoint, another importer: the old one is gone */
		p->dead = true;
	return client_new(from, addr, alen);
}

/*
 * An ATTACH from @from (@p, the peer it arrives from, if any): served, and answered on the
 * client attach_client keeps or makes for it, unless that client has UCX_REPLIES_MAX
 * replies in flight. Out of memory, or refused, it gets no answer (the importer times out).
 */
static void serve_attach(struct odma_lk_ep *from, struct ucx_peer *p, const struct odma_ucx_req *q,
                         const uint8_t *addr, size_t alen)
{
	struct ucx_reply *rp = reply_new(q, NULL, DOCA_SUCCESS);

	if (rp == NULL)
		return;
	p = attach_client(from, p, q, addr, alen, rp);
	if (p == NULL) {
		reply_free(rp);
		return;
	}
	if (p->replies >= UCX_REPLIES_MAX)
		reply_free(rp);
	else
		ucx_reply(p, rp);
}

/*
 * Puts a GET with no room for its reply yet (room_for) at the tail of @p's waiting ones;
 * past UCX_DEFER_MAX, past its share when all clients have UCX_DEFER_ALL waiting, or out of
 * memory, it is dropped (the importer's deadline fails it).
 */
static void defer_get(struct ucx_peer *p, const struct odma_ucx_req *q)
{
	struct ucx_deferred *d;

	if (p->ndeferred >= UCX_DEFER_MAX ||
	    (p->ndeferred >= UCX_DEFER_FAIR && odma_ux.ndeferred >= UCX_DEFER_ALL) ||
	    (d = malloc(sizeof(*d))) == NULL)
		return;
	d->q = *q;
	ODMA_QUEUE_PUSH(p->def_head, p->def_tail, d, next);
	p->ndeferred++;
	odma_ux.ndeferred++;
}

/* The value of watch request @q now: DOCA_SUCCESS, or why it cannot be read. */
static doca_error_t watch_value(const struct odma_ucx_req *q, uint64_t *v)
{
	return odma_tp_region_atomic(q->region_id, q->key, q->generation, q->addr, ODMA_TP_AT_READ,
	                             0, 0, v);
}

/*
 * Holds watch @q of @p (its payload @data: the longest wait, the value seen) while its value
 * is the one seen, up to UCX_WATCH_MAX per importer: true, or false to answer it now (it
 * changed, it cannot be read, or out of memory).
 */
static bool watch_hold(struct ucx_peer *p, const struct odma_ucx_req *q, const void *data)
{
	uint64_t wait_ms = odma_get_le(data, 8), seen = odma_get_le((const uint8_t *)data + 8, 8);
	struct ucx_watch *w;
	uint64_t v;

	if (p->nwatch >= UCX_WATCH_MAX || wait_ms == 0)
		return false;
	/* counted before the read: a change after it kicks (odma_ucx_watch_kick sees it) */
	atomic_fetch_add(&nwatches, 1);
	if (watch_value(q, &v) != DOCA_SUCCESS || v != seen || (w = malloc(sizeof(*w))) == NULL) {
		atomic_fetch_sub(&nwatches, 1);
		return false;
	}
	if (wait_ms > ODMA_TP_WATCH_MAX_MS)
		wait_ms = ODMA_TP_WATCH_MAX_MS;
	w->p = p;
	w->q = *q;
	w->seen = seen;
	w->due_ns = odma_now_ns() + wait_ms * 1000000ull;
	if (watches == NULL || w->due_ns < watch_next_ns)
		watch_next_ns = w->due_ns;
	w->next = watches;
	watches = w;
	p->nwatch++;
	odma_ucx_peer_ref(p); /* the watch's */
	/* held by a thread polling inline: the service thread sets its sleep by the new due */
	if (!pthread_equal(pthread_self(), odma_ux.thread))
		odma_ucx_kick();
	return true;
}

/*
 * Ends watch @w (off the list): answered when @answer, unless its importer is gone or reads
 * nothing.
 */
static void watch_end(struct ucx_watch *w, bool answer)
{
	struct ucx_peer *p = w->p;
	struct ucx_reply *rp;

	if (answer && !p->dead && p->replies < UCX_REPLIES_MAX &&
	    (rp = reply_new(&w->q, NULL, DOCA_SUCCESS)) != NULL)
		ucx_reply(p, rp);
	p->nwatch--;
	odma_ucx_peer_unref(p);
	free(w);
	atomic_fetch_sub(&nwatches, 1);
}

bool odma_ucx_watch_run(void)
{
	bool kicked, any = false;
	uint64_t now;

	if (watches == NULL)
		return false; /* a kick with nothing held is for a watch about to be (it reads) */
	kicked = atomic_exchange(&watch_kicked, false);
	now = odma_now_ns();
	if (!kicked && now < watch_next_ns)
		return false;
	watch_next_ns = UINT64_MAX;
	for (struct ucx_watch **pp = &watches, *w; (w = *pp) != NULL;) {
		uint64_t v = 0;

		if (!w->p->dead && now < w->due_ns && watch_value(&w->q, &v) == DOCA_SUCCESS &&
		    v == w->seen) {
			if (w->due_ns < watch_next_ns)
				watch_next_ns = w->due_ns;
			pp = &w->next;
			continue;
		}
		*pp = w->next;
		watch_end(w, true);
		any = true;
	}
	return any;
}

int odma_ucx_watch_timeout_ms(void)
{
	uint64_t now;

	if (watches == NULL)
		return -1;
	now = odma_now_ns();
	return watch_next_ns <= now ? 0 : (int)((watch_next_ns - now + 999999) / 1000000);
}

void odma_ucx_watch_kick(void)
{
	if (atomic_load(&nwatches) == 0)
		return;
	atomic_store(&watch_kicked, true);
	if (!odma_ucx_in_worker) /* else the round that runs this checks them at its end */
		odma_ucx_kick();
}

/*
 * One request from @from (its header @header, its payload @data of @length bytes; @rndv: the
 * payload comes by rendezvous, which no request may use), from client @p (NULL: none yet);
 * answered into batch *@bp when @bp is not NULL (batch_add), else alone. false after an
 * ATTACH: one naming another address ends @p (freed), so the caller leaves it alone.
 */
static bool serve_one(struct odma_lk_ep *from, struct ucx_peer *p, const void *header,
                      size_t header_length, void *data, size_t length, bool rndv,
                      struct ucx_reply **bp)
{
	struct odma_ucx_req q;
	struct ucx_reply *rp;
	const char *why = NULL;
	doca_error_t st = DOCA_SUCCESS;

	if (rndv || odma_ucx_req_decode(header, header_length, length, &q, &why) != DOCA_SUCCESS) {
		ODMA_RATELIMITED_WARN("UCX transport: refused a malformed request from a peer: %s",
		                      why ? why : "rendezvous payload");
		if (header_length < 16 || p == NULL)
			return true;
		memset(&q, 0, sizeof(q));
		memcpy(&q.id, (const uint8_t *)header + 8, 8);
		st = DOCA_ERROR_INVALID_VALUE;
	} else if (q.op == ODMA_UCX_OP_ATTACH) {
		serve_attach(from, p, &q, data, length);
		return false;
	}
	if (p == NULL) {
		ODMA_RATELIMITED_WARN("UCX transport: dropped a request from a peer that never "
		                      "attached (region %u)",
		                      q.region_id);
		return true;
	}
	if (p->replies >= UCX_REPLIES_MAX ||
	    p->reply_bytes >= UCX_REPLY_BYTES_MAX + UCX_REPLY_BYTES_SLACK ||
	    (p->reply_bytes > UCX_REPLY_BYTES_FAIR &&
	     odma_ux.reply_bytes >= UCX_REPLY_BYTES_ALL + UCX_REPLY_BYTES_SLACK))
		return true; /* it reads nothing: its deadline fails the rest */
	if (st == DOCA_SUCCESS && !room_for(p, &q)) {
		defer_get(p, &q);
		return true;
	}
	if (st == DOCA_SUCCESS && q.op == ODMA_UCX_OP_WATCH && watch_hold(p, &q, data))
		return true;
	if (bp != NULL && batch_add(p, bp, &q, data, st))
		return true;
	rp = reply_new(&q, data, st);
	if (rp != NULL)
		ucx_reply(p, rp);
	return true;
}

struct ucx_peer *odma_ucx_round_peers;

void odma_ucx_round_send(void)
{
	struct ucx_peer *p;

	while ((p = odma_ucx_round_peers) != NULL) {
		struct ucx_reply *b = p->round;

		odma_ucx_round_peers = p->round_next;
		p->round = NULL;
		p->round_next = NULL;
		p->round_listed = false;
		if (b != NULL && batch_send(p, b))
			reply_free(b);
		odma_ucx_peer_unref(p); /* the list's */
	}
}

void odma_ucx_req_am(const void *header, size_t header_length, void *data, size_t length,
                     const struct odma_lk_rx *rx)
{
	struct ucx_peer *p;

	if (rx->reply_ep == NULL)
		return; /* no one to answer: a hostile or broken peer */
	p = client_of(rx->reply_ep);
	if (!serve_one(rx->reply_ep, p, header, header_length, data, length, rx->rndv,
	               p ? &p->round : NULL))
		return; /* an ATTACH: @p may be gone (it answers alone, not in the round) */
	if (p != NULL && p->round != NULL && !p->round_listed) { /* the list holds it till sent */
		odma_ucx_peer_ref(p);
		p->round_next = odma_ucx_round_peers;
		p->round_listed = true;
		odma_ucx_round_peers = p;
	}
}

void odma_ucx_reqs_am(const void *header, size_t header_length, void *data, size_t length,
                      const struct odma_lk_rx *rx)
{
	const char *why = "a rendezvous payload";
	struct ucx_reply *b = NULL; /* their answers */
	struct ucx_peer *p;
	unsigned int n = 0;
	size_t off = 0;

	if (rx->reply_ep == NULL)
		return;
	p = client_of(rx->reply_ep);
	if (!rx->rndv)
		n = odma_ucx_reqs_check(header, header_length, data, length, &why);
	if (n == 0)
		ODMA_RATELIMITED_WARN("UCX transport: dropped a malformed batch of requests: %s",
		                      why);
	for (unsigned int i = 0; i < n; i++) {
		const uint8_t *payload;
		size_t plen;
		const uint8_t *h = odma_ucx_reqs_next(data, &off, &payload, &plen);

		/* true: no ATTACH in a batch (odma_ucx_reqs_check), so @p stays */
		(void)serve_one(rx->reply_ep, p, h, ODMA_UCX_REQ_LEN, (void *)payload, plen, false,
		                &b);
	}
	if (b != NULL && batch_send(p, b))
		reply_free(b);
}

void odma_ucx_reply_cache_drop(void)
{
	odma_buf_cache_drain(&reply_cache);
}

void odma_ucx_clients_forget(void)
{
	for (struct ucx_peer *p = odma_ux.clients; p != NULL; p = p->next)
		odma_ucx_deferred_free(p);
	while (watches != NULL) {
		struct ucx_watch *w = watches;

		watches = w->next;
		watch_end(w, false); /* the endpoints are closing */
	}
}
