/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The UCX transport, importer side: requests (attach, get, put) cut into chunks, posted by
 * the service thread to the exporter's worker; their ids, deadlines and replies; peers (one
 * endpoint per exporter address) and their failure. See ucx.c for the whole design.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "core/config/config.h"
#include "core/log/log.h"
#include "core/transport/ucx_int.h"
#include "util/codec.h"
#include "util/container_of.h"
#include "util/queue.h"

ODMA_LOG_REGISTER(ODMA_UCX)

atomic_uint_fast64_t odma_ucx_req_batches;

/*
 * What the link may still hold of a peer's requests that met their deadline before its new
 * ones fail at once: a peer that takes nothing (stopped, or hung) kept every request tried
 * since in the link, with its bytes, for as long as it did. A send costs its header and
 * payload and the link's record of it.
 */
#define UCX_STALE_MAX (16u << 20)
#define UCX_SEND_OVERHEAD 512u

static void io_chunk_done(struct ucx_chunk *c, doca_error_t st)
{
	struct ucx_io *u = c->io;

	if (st != DOCA_SUCCESS)
		atomic_store(&u->failed, true);
	if (atomic_fetch_sub(&u->left, 1) == 1) {
		struct odma_tp_io *io = u->io;
		bool failed = atomic_load(&u->failed);

		/* the chunks are freed with u once their sends completed (odma_ucx_chunk_put) */
		io->done(io, failed ? DOCA_ERROR_IO_FAILED : DOCA_SUCCESS);
	}
}

void odma_ucx_waiter_wait(struct ucx_waiter *w)
{
	pthread_mutex_lock(&odma_ux.lock);
	while (!w->done)
		pthread_cond_wait(&w->cond, &odma_ux.lock);
	pthread_mutex_unlock(&odma_ux.lock);
	pthread_cond_destroy(&w->cond);
}

void odma_ucx_waiter_done(struct ucx_waiter *w, doca_error_t st)
{
	pthread_mutex_lock(&odma_ux.lock);
	w->status = st;
	w->done = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&odma_ux.lock);
}

/* A request is over (reply, failure, timeout): remove it and tell its owner, once. */
void odma_ucx_chunk_finish(struct ucx_chunk *c, doca_error_t st)
{
	if (!c->outstanding)
		return;
	c->outstanding = false;
	odma_ux.slot[c->id % UCX_SLOTS] = NULL;
	odma_ux.nout--;
	ODMA_LIST_UNLINK_TAIL(odma_ux.out_head, odma_ux.out_tail, c, prev, next);
	if (c->op == ODMA_UCX_OP_ATTACH) {
		if (st != DOCA_SUCCESS && c->peer != NULL) {
			odma_ucx_peer_unref(c->peer);
			c->wait->peer = NULL;
		}
		odma_ucx_waiter_done(c->wait, st);
	} else {
		io_chunk_done(c, st);
	}
	odma_ucx_chunk_put(c);
}

/* Chunks of an io live in its allocation: it is freed when the last one is released. */
void odma_ucx_chunk_put(struct ucx_chunk *c)
{
	if (--c->refs != 0)
		return;
	if (c->op == ODMA_UCX_OP_ATTACH) {
		free(c);
		return;
	}
	if (c->peer != NULL)
		odma_ucx_peer_unref(c->peer);
	c->peer = NULL;
	if (--c->io->live == 0)
		free(c->io);
}

static void peer_fail(struct ucx_peer *p, int why)
{
	struct ucx_chunk *c = odma_ux.out_head, *next;
	bool busy = false;

	for (struct ucx_chunk *k = odma_ux.out_head; k != NULL && !busy; k = k->next)
		busy = k->peer == p;
	if (!p->dead && !busy) /* an idle peer that went away (it exited): nothing lost */
		ODMA_DBG("UCX transport: the connection to an idle peer closed (%s)",
		         odma_ux.lk->strerror(why));
	else if (!p->dead)
		ODMA_ERR("UCX transport: the connection to a peer failed (%s); its requests "
		         "complete with DOCA_ERROR_IO_FAILED (the peer died or the link is down)",
		         odma_ux.lk->strerror(why));
	p->dead = true;
	for (; c != NULL; c = next) {
		next = c->next;
		if (c->peer != p)
			continue;
		if (c->op != ODMA_UCX_OP_ATTACH)
			atomic_store(&c->io->io->remote->gone, true);
		odma_ucx_chunk_finish(c, DOCA_ERROR_IO_FAILED);
	}
	if (p->owner != NULL) /* an endpoint refused for the fabric secret says so */
		odma_ucx_ep_gone(p->owner, why == ODMA_LK_ERR_SECRET ? DOCA_ERROR_NOT_PERMITTED
		                                                     : DOCA_ERROR_IO_FAILED);
}

void odma_ucx_peer_err_cb(void *arg, int status)
{
	peer_fail(arg, status);
}

void odma_ucx_peer_ref(struct ucx_peer *p)
{
	pthread_mutex_lock(&odma_ux.lock);
	p->refs++;
	pthread_mutex_unlock(&odma_ux.lock);
}

void odma_ucx_peer_unref(struct ucx_peer *p)
{
	bool last;

	pthread_mutex_lock(&odma_ux.lock);
	last = --p->refs == 0;
	pthread_mutex_unlock(&odma_ux.lock);
	if (!last)
		return;
	/* only the service thread drops the last reference of a peer with an endpoint */
	odma_ucx_index_del(p);     /* an indexed peer has one: this is the service thread */
	odma_ucx_deferred_free(p); /* an endpoint of ours kept its GETs waiting */
	if (p->ep != NULL)
		odma_ux.lk->ep_close(p->ep, false);
	free(p);
}

int odma_ucx_peer_connect(struct ucx_peer *p)
{
	return odma_ux.lk->ep_to_addr(p->addr, p->alen, p, &p->ep);
}

/* The live peer at @addr, or a new endpoint to it (service thread). */
static struct ucx_peer *peer_get(const uint8_t *addr, uint16_t alen)
{
	struct ucx_peer **pp = &odma_ux.peers, *p;
	int st;

	while ((p = *pp) != NULL) {
		if (p->dead) { /* unlinked: new attachments get a fresh endpoint */
			*pp = p->next;
			odma_ucx_peer_unref(p);
			continue;
		}
		if (p->alen == alen && memcmp(p->addr, addr, alen) == 0)
			goto found;
		pp = &p->next;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return NULL;
	p->alen = alen;
	memcpy(p->addr, addr, alen);
	st = odma_ucx_peer_connect(p);
	if (st != ODMA_LK_OK) {
		ODMA_ERR("UCX transport: cannot create an endpoint to the exporter: %s; check that "
		         "both sides run with the same ODMA_FABRIC network and that it is up",
		         odma_ux.lk->strerror(st));
		free(p);
		return NULL;
	}
	p->refs = 1; /* the list's */
	p->next = odma_ux.peers;
	odma_ux.peers = p;
found:
	odma_ucx_peer_ref(p);
	return p;
}

/* @c is handed to the link, @len bytes with its header: a reference of the send's. */
static void chunk_hand(struct ucx_chunk *c, size_t len)
{
	c->refs++;
	if (c->io != NULL) /* an ATTACH's peer may go before its send ends: not counted */
		c->held = ODMA_UCX_REQ_LEN + len + UCX_SEND_OVERHEAD;
}

/* The send of @c ended (@status): its payload's copy goes, and the send's reference. */
static void chunk_sent(struct ucx_chunk *c, int status)
{
	if (status != ODMA_LK_OK)
		odma_ucx_chunk_finish(c, DOCA_ERROR_IO_FAILED);
	if (c->stale)
		c->peer->stale -= c->held;
	c->stale = false;
	c->held = 0;
	free(c->bounce);
	c->bounce = NULL;
	odma_ucx_chunk_put(c);
}

static void send_cb(void *arg, int status)
{
	chunk_sent(arg, status);
}

/* The random part of the next request id (splitmix64; worker thread only). */
static uint64_t id_random(void)
{
	uint64_t z;

	if (odma_ux.id_rng == 0 &&
	    getrandom(&odma_ux.id_rng, sizeof(odma_ux.id_rng), 0) != sizeof(odma_ux.id_rng))
		odma_ux.id_rng = (uint64_t)odma_now_ns() ^ ((uint64_t)getpid() << 32);
	z = (odma_ux.id_rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * Gives @c an id and a slot, and puts it at the tail of the outstanding list. The slot is
 * the id's low bits; the rest is random, so a peer that did not receive the request (another
 * client of this worker, at a listener) cannot forge its reply.
 */
static void chunk_track(struct ucx_chunk *c)
{
	uint64_t seq = ++odma_ux.next_id;

	while (odma_ux.slot[seq % UCX_SLOTS] != NULL)
		seq = ++odma_ux.next_id;
	c->id = (id_random() / UCX_SLOTS) * UCX_SLOTS + seq % UCX_SLOTS;
	odma_ux.slot[c->id % UCX_SLOTS] = c;
	odma_ux.nout++;
	c->outstanding = true;
	c->refs = 1;
	c->deadline_ns = odma_now_ns() + (uint64_t)odma_tp_timeout_ms() * 1000000ull;
	if (c->op == ODMA_UCX_OP_WATCH) /* the exporter may hold it that much longer */
		c->deadline_ns += c->io->io->compare * 1000000ull;
	/* in deadline order: only a watch's is later than the ones issued after it */
	c->prev = odma_ux.out_tail;
	while (c->prev != NULL && c->prev->deadline_ns > c->deadline_ns)
		c->prev = c->prev->prev;
	c->next = c->prev != NULL ? c->prev->next : odma_ux.out_head;
	if (c->next != NULL)
		c->next->prev = c;
	else
		odma_ux.out_tail = c;
	if (c->prev != NULL)
		c->prev->next = c;
	else
		odma_ux.out_head = c;
}

/*
 * A put's bytes, copied out of the application's memory before the send: UCX then never
 * reads a buffer the application got back (a put that timed out is reported failed while
 * UCX may still be sending), and memory the application unmapped fails the task instead of
 * the process. false when the copy could not be made.
 */
static bool chunk_bounce(struct ucx_chunk *c)
{
	c->bounce = malloc(c->len);
	if (c->bounce != NULL && odma_tp_safe_copy(c->bounce, c->local, c->len) == 0)
		return true;
	free(c->bounce);
	c->bounce = NULL;
	return false;
}

/*
 * Whether PUT @c is read from the application's memory as it leaves, not copied first: a PUT
 * sent alone (larger than a batch entry) when UCX packs payloads (odma_ux.copy_out). Its
 * request then carries a trailer (ucx_wire.h), and put_pack keeps chunk_bounce's promises.
 */
static bool chunk_lazy(const struct ucx_chunk *c)
{
	return c->op == ODMA_UCX_OP_PUT && odma_ux.copy_out && c->len > ODMA_UCX_BUNDLE_PACK;
}

/* Reads @k bytes at @offset of PUT @arg's source, while it is outstanding (put_pack). */
static doca_error_t put_read(void *arg, uint64_t offset, void *dest, size_t k)
{
	struct ucx_chunk *c = arg;

	if (!c->outstanding)
		return DOCA_ERROR_IO_FAILED;
	if (odma_tp_safe_copy(dest, c->local + offset, k) == 0)
		return DOCA_SUCCESS;
	ODMA_RATELIMITED_ERR_AT(__func__,
	                        "UCX transport: a write's source [%p, +%zu) cannot be read "
	                        "(unmapped or protected); the write fails, and the exporter "
	                        "writes none of its %llu bytes",
	                        (void *)(c->local + offset), k, (unsigned long long)c->len);
	odma_ucx_chunk_finish(c, DOCA_ERROR_IO_FAILED);
	return DOCA_ERROR_IO_FAILED;
}

/*
 * Packs bytes [@offset, @offset + @max) of lazy PUT @c's payload (service thread): its bytes
 * read from the application's memory while the request is outstanding (a request that ended,
 * by its deadline or a stop, reads nothing more: its task may have been given back), then its
 * trailer. A page that cannot be read fails the request here; the exporter, told so by the
 * trailer, writes none of it.
 */
static void put_pack(struct odma_ucx_out *o, size_t offset, void *dest, size_t max)
{
	struct ucx_chunk *c = odma_container_of(o, struct ucx_chunk, out);

	odma_ucx_pack_trailed(dest, offset, max, c->len, &c->read_st, put_read, c);
}

/* An atomic's operands (LE) as its payload (odma_ucx_atomic_payload): CAS compare first. */
static bool chunk_operand(struct ucx_chunk *c)
{
	const struct odma_tp_io *io = c->io->io;
	size_t n = odma_ucx_atomic_payload(c->op);

	if (n == 0)
		return true;
	c->bounce = malloc(n);
	if (c->bounce == NULL)
		return false;
	if (n == 16)
		odma_put_le(c->bounce, io->compare, 8);
	odma_put_le(c->bounce + n - 8, io->operand, 8);
	return true;
}

/*
 * @c's request header, into c->hdr: its op, id and range, and the region it names (id,
 * generation, key) from its io's remote, or for an ATTACH from the reach it attaches to.
 */
static void chunk_header(struct ucx_chunk *c)
{
	struct odma_ucx_req q = { 0 };
	const struct odma_tp_remote *rm = c->io ? c->io->io->remote : NULL;

	q.op = c->op;
	q.flags = chunk_lazy(c) ? ODMA_UCX_REQ_TRAILER : 0;
	q.id = c->id;
	q.addr = c->raddr;
	q.len = c->op == ODMA_UCX_OP_ATTACH ? 0 : c->len;
	if (rm != NULL) {
		q.region_id = rm->region_id;
		q.generation = rm->generation;
		memcpy(q.key, rm->key, 16);
	} else {
		q.region_id = c->reach->region_id;
		q.generation = c->reach->generation;
		memcpy(q.key, c->reach->key, 16);
	}
	odma_ucx_req_encode(&q, c->hdr);
}

/*
 * Whether @c's peer took none of UCX_STALE_MAX of requests that met their deadline: @c then
 * fails at once (a line each time it comes to that, rate-limited).
 */
static bool peer_stuck(const struct ucx_chunk *c)
{
	if (c->op == ODMA_UCX_OP_ATTACH || c->peer->stale < UCX_STALE_MAX)
		return false;
	ODMA_RATELIMITED_ERR_AT(__func__,
	                        "UCX transport: %zu MiB of requests to a peer met their deadline "
	                        "and it took none of them (it is stopped, or hangs); "
	                        "its new requests fail at once (DOCA_ERROR_IO_FAILED) "
	                        "until it takes them",
	                        c->peer->stale >> 20);
	return true;
}

/*
 * Readies @c to be sent (service thread): its peer, id and deadline, its payload's copy and
 * its header; false when it failed at once (finished).
 */
static bool chunk_ready(struct ucx_chunk *c)
{
	if (c->op == ODMA_UCX_OP_ATTACH && c->peer == NULL) /* else: over a given endpoint */
		c->peer = peer_get(c->reach->net_addr, c->reach->net_len);
	if (c->op == ODMA_UCX_OP_ATTACH)
		c->wait->peer = c->peer;
	chunk_track(c);
	if (c->op != ODMA_UCX_OP_ATTACH && c->peer != NULL && c->peer->dead)
		atomic_store(&c->io->io->remote->gone, true); /* its attachment's peer failed */
	if (c->peer == NULL || c->peer->dead || peer_stuck(c) ||
	    (c->op == ODMA_UCX_OP_PUT && !chunk_lazy(c) && !chunk_bounce(c)) ||
	    (odma_ucx_op_atomic(c->op) && !chunk_operand(c))) {
		odma_ucx_chunk_finish(c, DOCA_ERROR_IO_FAILED);
		return false;
	}
	chunk_header(c);
	return true;
}

/* The payload of ready request @c (*@len bytes). */
static const void *chunk_payload(const struct ucx_chunk *c, size_t *len)
{
	if (c->op == ODMA_UCX_OP_ATTACH && c->peer->owner == NULL) {
		/* our address: the exporter answers on an endpoint it makes to it */
		*len = odma_ux.self_len;
		return odma_ux.self_addr;
	}
	*len = c->op == ODMA_UCX_OP_PUT    ? c->len
	       : odma_ucx_op_atomic(c->op) ? odma_ucx_atomic_payload(c->op)
	                                   : 0;
	return c->bounce;
}

/* Sends ready request @c alone (service thread). */
static void chunk_send(struct ucx_chunk *c)
{
	const void *payload;
	size_t plen;
	int r;

	if (chunk_lazy(c)) {
		c->read_st = DOCA_SUCCESS;
		odma_ucx_out_bytes(&c->out, NULL, c->len + ODMA_UCX_TRAILER_LEN);
		c->out.pack = put_pack;
	} else {
		payload = chunk_payload(c, &plen);
		odma_ucx_out_bytes(&c->out, payload, plen);
	}
	chunk_hand(c, c->out.len);
	r = odma_ux.lk->send(c->peer->ep, ODMA_UCX_AM_REQ, c->hdr, sizeof(c->hdr), &c->out,
	                     ODMA_LK_SEND_REPLY, send_cb, c);
	if (r != ODMA_LK_INFLIGHT)
		chunk_sent(c, r);
}

/*
 * Requests queued together for one exporter travel as one batch (ODMA_UCX_AM_REQS): one
 * message, one system call on TCP where each request cost one, and the exporter answers
 * them in one batch of replies. Packed into one buffer up to ODMA_UCX_BUNDLE_PACK bytes (as
 * endpoint bundles are: faster than UCX's IOV for small ones), else sent in place (IOV).
 */
struct ucx_reqs {
	unsigned int n;
	struct ucx_chunk *c[ODMA_UCX_REQS_MAX];
	uint8_t hdr[ODMA_UCX_REQS_HDR];
	struct odma_ucx_out out;
	struct iovec iov[2 * ODMA_UCX_REQS_MAX];
	uint8_t data[]; /* packed */
};

/*
 * The bytes request @c takes in a batch, with its header; 0 when it never joins one: a command,
 * an ATTACH, a WATCH, or one that moves more than a batch entry holds either way (a large GET
 * or PUT goes alone, as it did: its answer never joins a batch of answers anyway).
 */
static size_t reqs_entry(const struct ucx_chunk *c)
{
	size_t n;

	if (c->op == ODMA_UCX_OP_GET)
		n = c->len <= ODMA_UCX_REQS_ENTRY_MAX - ODMA_UCX_REQ_LEN ? 0 : SIZE_MAX;
	else if (c->op == ODMA_UCX_OP_PUT)
		n = c->len;
	else if (odma_ucx_op_atomic(c->op) && c->op != ODMA_UCX_OP_WATCH)
		n = odma_ucx_atomic_payload(c->op);
	else
		return 0;
	return n <= ODMA_UCX_REQS_ENTRY_MAX - ODMA_UCX_REQ_LEN ? ODMA_UCX_REQ_LEN + n : 0;
}

static void reqs_sent(void *arg, int status)
{
	struct ucx_reqs *b = arg;

	for (unsigned int i = 0; i < b->n; i++)
		chunk_sent(b->c[i], status);
	free(b);
}

/*
 * Puts the requests @c[0..@n) in batch @b, each with a reference of the send's: packed into
 * its bytes (@pack) or as its iovecs, whose count it returns.
 */
static size_t reqs_fill(struct ucx_reqs *b, struct ucx_chunk **c, unsigned int n, bool pack)
{
	uint8_t *at = b->data;
	size_t niov = 0;

	b->n = n;
	for (unsigned int i = 0; i < n; i++) {
		size_t plen;
		const void *payload = chunk_payload(c[i], &plen);

		b->c[i] = c[i];
		chunk_hand(c[i], plen);
		if (pack) {
			memcpy(at, c[i]->hdr, ODMA_UCX_REQ_LEN);
			if (plen != 0)
				memcpy(at + ODMA_UCX_REQ_LEN, payload, plen);
			at += ODMA_UCX_REQ_LEN + plen;
			continue;
		}
		b->iov[niov++] = (struct iovec){ c[i]->hdr, ODMA_UCX_REQ_LEN };
		if (plen != 0)
			b->iov[niov++] = (struct iovec){ (void *)payload, plen };
	}
	return niov;
}

/* Sends the ready requests @c[0..@n) (@total bytes in a batch) as one batch, @n >= 2. */
static void reqs_send(struct ucx_chunk **c, unsigned int n, size_t total)
{
	bool pack = total <= ODMA_UCX_BUNDLE_PACK;
	struct ucx_reqs *b = malloc(sizeof(*b) + (pack ? total : 0));
	size_t niov;
	int r;

	if (b == NULL) {
		for (unsigned int i = 0; i < n; i++)
			chunk_send(c[i]);
		return;
	}
	niov = reqs_fill(b, c, n, pack);
	odma_put_le(b->hdr, n, 4);
	odma_put_le(b->hdr + 4, 0, 4);
	if (pack) {
		odma_ucx_out_bytes(&b->out, b->data, total);
	} else {
		odma_ucx_out_iov(&b->out, b->iov, niov);
	}
	atomic_fetch_add_explicit(&odma_ucx_req_batches, 1, memory_order_relaxed);
	r = odma_ux.lk->send(c[0]->peer->ep, ODMA_UCX_AM_REQS, b->hdr, sizeof(b->hdr), &b->out,
	                     ODMA_LK_SEND_REPLY, reqs_sent, b);
	if (r != ODMA_LK_INFLIGHT)
		reqs_sent(b, r);
}

/*
 * Posts @c (service thread), with the requests queued right after it to the same exporter
 * that join it in one batch; the next chunk not taken.
 */
static struct ucx_chunk *chunk_post(struct ucx_chunk *c)
{
	struct ucx_chunk *ready[ODMA_UCX_REQS_MAX], *next = c->next;
	struct ucx_peer *peer = c->peer;
	size_t total = 0, e;
	unsigned int n = 0;

	if (reqs_entry(c) == 0 || next == NULL || reqs_entry(next) == 0 || next->peer != peer) {
		if (chunk_ready(c))
			chunk_send(c);
		return next;
	}
	for (; c != NULL && n < ODMA_UCX_REQS_MAX; c = next) {
		e = reqs_entry(c);
		if (e == 0 || c->peer != peer || total + e > ODMA_UCX_REQS_BYTES)
			break;
		next = c->next;
		if (!chunk_ready(c))
			continue;
		ready[n++] = c;
		total += e;
	}
	if (n == 1)
		chunk_send(ready[0]);
	else if (n > 1)
		reqs_send(ready, n, total);
	return c;
}

/* Requests past their deadline fail (the list is in deadline order: only its head). */
void odma_ucx_expire(void)
{
	uint64_t now = odma_now_ns();

	while (odma_ux.out_head != NULL && odma_ux.out_head->deadline_ns <= now) {
		struct ucx_chunk *c = odma_ux.out_head;

		if (c->peer != NULL && !c->peer->timed_out_logged) {
			c->peer->timed_out_logged = true;
			ODMA_ERR("UCX transport: a peer did not answer within %u ms "
			         "(ODMA_TRANSPORT_TIMEOUT_MS); its requests complete with "
			         "DOCA_ERROR_IO_FAILED (the peer hangs, or the link is down)",
			         odma_tp_timeout_ms());
		}
		if (c->held != 0) { /* its send still waits for the peer: for nothing now */
			c->peer->stale += c->held;
			c->stale = true;
		}
		odma_ucx_chunk_finish(c, DOCA_ERROR_IO_FAILED);
	}
}

/*
 * A GET's reply @r with a trailer (ucx_wire.h: the decoder takes the flag on a GET's reply
 * only, and @c's op is the reply's): taken as the reply its trailer says, into @out (the
 * bytes alone, or the exporter's refusal).
 */
static const struct odma_ucx_reply *reply_trailed(const struct ucx_chunk *c,
                                                  const struct odma_ucx_reply *r,
                                                  const uint8_t *data, struct odma_ucx_reply *out)
{
	*out = *r;
	if (!(r->flags & ODMA_UCX_REPLY_TRAILER))
		return r;
	if (r->len != c->len + ODMA_UCX_TRAILER_LEN) {
		out->status = DOCA_ERROR_IO_FAILED;
		out->len = 0;
		return out;
	}
	out->len = (uint32_t)c->len;
	out->status = odma_ucx_trailer_decode(data + c->len);
	return out;
}

static void reply_got(struct ucx_chunk *c, const struct odma_ucx_reply *hr, const void *data)
{
	struct odma_ucx_reply tr;
	const struct odma_ucx_reply *r = reply_trailed(c, hr, data, &tr);
	doca_error_t st = r->status == DOCA_SUCCESS ? DOCA_SUCCESS : DOCA_ERROR_IO_FAILED;

	if (c->op == ODMA_UCX_OP_ATTACH) {
		if (r->status == DOCA_SUCCESS && r->len <= ODMA_TP_ISSUED_MAX) {
			memcpy(c->wait->issued, data, r->len);
			c->wait->issued_len = r->len;
		}
		odma_ucx_chunk_finish(c, r->status == DOCA_SUCCESS ? DOCA_SUCCESS
		                                                   : (doca_error_t)r->status);
		return;
	}
	if (r->status != DOCA_SUCCESS && odma_ucx_op_atomic(c->op))
		c->io->io->refused = true; /* answered: not applied */
	/* no such region (revoked): the caller checked the range, so it is not that */
	if (r->status == DOCA_ERROR_INVALID_VALUE)
		atomic_store(&c->io->io->remote->gone, true);
	if (r->status != DOCA_SUCCESS && !atomic_exchange(&c->io->io->remote->failed, true))
		ODMA_ERR("UCX transport: the exporter refused a %s of %llu bytes at 0x%llx: %s "
		         "(revoked export, or outside its range or permissions)",
		         c->op == ODMA_UCX_OP_GET   ? "read"
		         : c->op == ODMA_UCX_OP_PUT ? "write"
		                                    : "remote atomic",
		         (unsigned long long)c->len, (unsigned long long)c->raddr,
		         doca_error_get_name((doca_error_t)r->status));
	if (st == DOCA_SUCCESS && c->op == ODMA_UCX_OP_GET &&
	    (r->len != c->len || odma_tp_safe_copy(c->local, data, c->len) != 0))
		st = DOCA_ERROR_IO_FAILED;
	if (st == DOCA_SUCCESS && odma_ucx_op_atomic(c->op)) {
		uint64_t v = r->len == 8 ? odma_get_le(data, 8) : 0;

		if (r->len != 8)
			st = DOCA_ERROR_IO_FAILED;
		else
			memcpy(c->local, &v, 8);
	}
	odma_ucx_chunk_finish(c, st);
}

/* The outstanding request that reply @r answers; NULL for a late (timed out) or forged one. */
static struct ucx_chunk *reply_chunk(const struct odma_ucx_reply *r)
{
	struct ucx_chunk *c = odma_ux.slot[r->id % UCX_SLOTS];

	return c != NULL && c->id == r->id && c->op == r->op && c->outstanding ? c : NULL;
}

void odma_ucx_replies_am(const void *header, size_t header_length, void *data, size_t length,
                         const struct odma_lk_rx *rx)
{
	const char *why = "a rendezvous payload";
	unsigned int n = 0;
	size_t off = 0;

	if (!rx->rndv)
		n = odma_ucx_replies_check(header, header_length, data, length, &why);
	if (n == 0)
		ODMA_RATELIMITED_WARN("UCX transport: dropped a malformed batch of replies: %s",
		                      why);
	for (unsigned int i = 0; i < n; i++) {
		struct odma_ucx_reply r;
		const uint8_t *b = odma_ucx_replies_next(data, &off, &r);
		struct ucx_chunk *c = reply_chunk(&r);

		if (c != NULL)
			reply_got(c, &r, b);
	}
}

/* A reply whose payload comes by rendezvous (a large GET's): where it lands meanwhile. */
struct ucx_rndv {
	struct odma_ucx_reply r;
	uint8_t data[];
};

/* Its payload arrived (service thread): finishes the request if it still waits. */
static void rndv_done(void *arg, int status, size_t length)
{
	struct ucx_rndv *v = arg;
	struct ucx_chunk *c = reply_chunk(&v->r);

	if (c != NULL) {
		if (status != ODMA_LK_OK || length != v->r.len)
			odma_ucx_chunk_finish(c, DOCA_ERROR_IO_FAILED);
		else
			reply_got(c, &v->r, v->data);
	}
	free(v);
}

void odma_ucx_reply_am(const void *header, size_t header_length, void *data, size_t length,
                       const struct odma_lk_rx *rx)
{
	struct odma_ucx_reply r;
	struct ucx_chunk *c;
	struct ucx_rndv *v;
	uint64_t want;
	int st;

	if (odma_ucx_reply_decode(header, header_length, length, &r) != DOCA_SUCCESS)
		return;
	c = reply_chunk(&r);
	if (c == NULL)
		return;
	if (!rx->rndv) {
		reply_got(c, &r, data);
		return;
	}
	/* only a GET's reply is long: exactly its bytes (and a trailer), or the request fails */
	want = c->len + (r.flags & ODMA_UCX_REPLY_TRAILER ? ODMA_UCX_TRAILER_LEN : 0);
	v = c->op == ODMA_UCX_OP_GET && length == want ? malloc(sizeof(*v) + length) : NULL;
	if (v == NULL) { /* the link drops a payload no handler takes (link.h) */
		odma_ucx_chunk_finish(c, DOCA_ERROR_IO_FAILED);
		return;
	}
	v->r = r;
	st = odma_ux.lk->recv_data(data, v->data, length, rndv_done, v);
	if (st != ODMA_LK_INFLIGHT)
		rndv_done(v, st, st == ODMA_LK_OK ? length : 0);
}

/*
 * The jobs to run (service thread), in order: those held for want of slots first, then the
 * queue's; the last into *@tail.
 */
static struct ucx_chunk *jobs_take(struct ucx_chunk **tail)
{
	struct ucx_chunk *c = odma_ux.held_head;

	*tail = odma_ux.held_tail;
	odma_ux.held_head = odma_ux.held_tail = NULL;
	pthread_mutex_lock(&odma_ux.lock);
	if (odma_ux.q_head != NULL) {
		if (c == NULL)
			c = odma_ux.q_head;
		else
			(*tail)->next = odma_ux.q_head;
		*tail = odma_ux.q_tail;
	}
	odma_ux.q_head = odma_ux.q_tail = NULL;
	pthread_mutex_unlock(&odma_ux.lock);
	return c;
}

bool odma_ucx_take_queue(void)
{
	struct ucx_chunk *tail, *c = jobs_take(&tail);
	bool took = c != NULL;

	while (c != NULL) {
		struct ucx_chunk *next = c->next;

		/*
		 * A request (or a batch of them) with no free slot waits, and the jobs after it,
		 * until replies or deadlines free some: looking for a slot then never ended.
		 */
		if (c->op <= ODMA_UCX_OP_WATCH && odma_ux.nout + ODMA_UCX_REQS_MAX > UCX_SLOTS) {
			odma_ux.held_head = c;
			odma_ux.held_tail = tail;
			break;
		}
		if (c->op != UCX_OP_SEND)
			odma_tp_wake_flush(); /* a job may end a life: no held write outlives it */
		if (c->op == UCX_OP_DETACH) {
			odma_ucx_peer_unref(c->peer);
			free(c);
		} else if (c->op == UCX_OP_CALL) {
			c->fn(c->fnarg);
			free(c);
		} else if (c->op == UCX_OP_WAIT) {
			c->fn(c->fnarg); /* the caller's, gone once fn returns */
		} else if (c->op == UCX_OP_SEND) {
			next = odma_ucx_send_run(c); /* the chunks live in messages it may free */
		} else {
			next = chunk_post(c);
		}
		c = next;
	}
	return took;
}

/*
 * Only a sleeping service thread is kicked: an awake one takes the queue before it sleeps
 * (it decides to sleep under the lock, seeing the queue empty), so most jobs of a busy
 * transport cost no system call and no wake-up.
 */
void odma_ucx_enqueue(struct ucx_chunk *first, struct ucx_chunk *last)
{
	bool kick;

	pthread_mutex_lock(&odma_ux.lock);
	if (odma_ux.q_tail != NULL)
		odma_ux.q_tail->next = first;
	else
		odma_ux.q_head = first;
	odma_ux.q_tail = last;
	/* a parked service thread wakes within a millisecond anyway, and the thread that
	 * polls inline takes the requests of its ios and the messages it sends sooner */
	kick = odma_ux.sleeping &&
	       (!odma_ux.parked || (first->op != ODMA_UCX_OP_GET && first->op != ODMA_UCX_OP_PUT &&
	                            first->op != UCX_OP_SEND));
	if (kick)
		odma_ux.sleeping = false; /* one kick per sleep is enough */
	pthread_mutex_unlock(&odma_ux.lock);
	if (kick)
		odma_ucx_kick();
}

bool odma_ucx_post(void (*fn)(void *), void *arg)
{
	struct ucx_chunk *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return false;
	c->op = UCX_OP_CALL;
	c->fn = fn;
	c->fnarg = arg;
	odma_ucx_enqueue(c, c);
	return true;
}

/* The import an attach serves, for its log lines: only a sync event's value is atomic. */
static const char *import_fn(const struct odma_tp_reach *r)
{
	return (r->perms & ODMA_TP_ATOMIC) ? "doca_sync_event_create_from_export"
	                                   : "doca_mmap_create_from_export";
}

doca_error_t odma_ucx_attach_wait(const struct odma_tp_reach *r, struct ucx_peer *peer,
                                  struct ucx_waiter *w)
{
	struct ucx_chunk *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return DOCA_ERROR_NO_MEMORY;
	if (peer != NULL)
		odma_ucx_peer_ref(peer); /* the attachment's */
	pthread_cond_init(&w->cond, NULL);
	c->op = ODMA_UCX_OP_ATTACH;
	c->wait = w;
	c->reach = r;
	c->peer = peer;
	odma_ucx_enqueue(c, c);
	odma_ucx_waiter_wait(w); /* bounded: the request times out in the service thread */
	if (w->status == DOCA_SUCCESS)
		return DOCA_SUCCESS;
	return w->status == DOCA_ERROR_IO_FAILED ? DOCA_ERROR_IO_FAILED : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t odma_ucx_attach(const struct odma_tp_reach *r, struct odma_tp_remote *rm,
                             uint8_t *issued, size_t *issued_len)
{
	struct ucx_waiter w = { .status = DOCA_ERROR_IO_FAILED, .issued = issued };
	const char *why = NULL;
	doca_error_t st;

	if (!odma_ucx_available(&why)) {
		ODMA_ERR("%s: the exporter runs in another namespace or "
		         "machine and the UCX transport is unavailable: %s",
		         import_fn(r), why);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	st = odma_ucx_attach_wait(r, NULL, &w);
	if (st == DOCA_SUCCESS) {
		*issued_len = w.issued_len;
		rm->priv = w.peer;
	} else if (st != DOCA_ERROR_NO_MEMORY) {
		const char *fabric = odma_config_string("ODMA_FABRIC");

		ODMA_ERR("%s: the exporter (pid %u in its namespace) %s over UCX%s%s: %s",
		         import_fn(r), r->pid,
		         st == DOCA_ERROR_IO_FAILED ? "cannot be reached" : "refused the import",
		         fabric ? " (ODMA_FABRIC=" : "", fabric ? fabric : "",
		         st == DOCA_ERROR_IO_FAILED
		                 ? "check the link and that the exporter runs "
		                   "with the same ODMA_FABRIC, or raise ODMA_TRANSPORT_TIMEOUT_MS"
		                 : "the export was revoked, "
		                   "or the descriptor is forged; export again");
	}
	return st;
}

void odma_ucx_detach(struct odma_tp_remote *rm)
{
	struct ucx_peer *p = rm->priv;
	struct ucx_chunk *c;

	if (p == NULL)
		return;
	rm->priv = NULL;
	/* the service thread drops the reference: closing an endpoint is its business */
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return; /* the peer stays referenced: a leak, never a use after free */
	c->op = UCX_OP_DETACH;
	c->peer = p;
	odma_ucx_enqueue(c, c);
}

/* Service thread: every outstanding request of an io started by *@arg fails now. */
static void cancel_run(void *arg)
{
	uint64_t owner = *(uint64_t *)arg;
	struct ucx_chunk *c = odma_ux.out_head, *next;
	unsigned int n = 0;

	free(arg);
	for (; c != NULL; c = next) {
		next = c->next; /* outstanding until finished: its io lives while it is */
		if (c->op == ODMA_UCX_OP_ATTACH || c->io->io->owner != owner)
			continue;
		c->io->io->cancelled = true;
		odma_ucx_chunk_finish(c, DOCA_ERROR_IO_FAILED);
		n++;
	}
	if (n != 0)
		ODMA_DBG("UCX transport: a stop ended %u requests in flight; their replies, if any "
		         "come, are dropped",
		         n);
}

/*
 * A job, not a walk here: the outstanding list is the service thread's, and the requests of
 * the owner still queued are posted before the job runs (the queue is in order).
 */
void odma_ucx_io_cancel(uint64_t owner)
{
	uint64_t *arg = malloc(sizeof(*arg));

	if (arg == NULL)
		return; /* the requests meet their deadline instead */
	*arg = owner;
	if (!odma_ucx_post(cancel_run, arg))
		free(arg); /* as above */
}

doca_error_t odma_ucx_io_start(struct odma_tp_io *io)
{
	uint64_t cut = odma_ux.cut;
	unsigned int n = (unsigned int)((io->len + cut - 1) / cut);
	struct ucx_io *u = calloc(1, sizeof(*u) + n * sizeof(u->chunk[0]));
	struct ucx_peer *p = io->remote->priv;

	if (io->atomic != ODMA_TP_IO_BYTES &&
	    (io->len != 8 || io->atomic > ODMA_TP_AT_WATCH ||
	     (io->atomic == ODMA_TP_AT_WATCH && io->compare > ODMA_TP_WATCH_MAX_MS))) {
		free(u);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (u == NULL || p == NULL || n == 0) {
		free(u);
		return DOCA_ERROR_IO_FAILED;
	}
	u->io = io;
	u->n = n;
	u->live = n;
	atomic_init(&u->left, n);
	atomic_init(&u->failed, false);
	pthread_mutex_lock(&odma_ux.lock);
	p->refs += n;
	pthread_mutex_unlock(&odma_ux.lock);
	for (unsigned int i = 0; i < n; i++) {
		struct ucx_chunk *c = &u->chunk[i];
		uint64_t off = (uint64_t)i * cut;

		c->op = io->atomic == ODMA_TP_AT_READ    ? ODMA_UCX_OP_AREAD
		        : io->atomic == ODMA_TP_AT_FADD  ? ODMA_UCX_OP_FADD
		        : io->atomic == ODMA_TP_AT_SWAP  ? ODMA_UCX_OP_SWAP
		        : io->atomic == ODMA_TP_AT_CAS   ? ODMA_UCX_OP_CAS
		        : io->atomic == ODMA_TP_AT_WATCH ? ODMA_UCX_OP_WATCH
		        : io->write                      ? ODMA_UCX_OP_PUT
		                                         : ODMA_UCX_OP_GET;
		c->io = u;
		c->peer = p;
		c->local = (uint8_t *)io->local + off;
		c->raddr = io->remote_addr + off;
		c->len = io->len - off < cut ? io->len - off : cut;
		c->next = i + 1 < n ? &u->chunk[i + 1] : NULL;
	}
	odma_ucx_enqueue(&u->chunk[0], &u->chunk[n - 1]);
	return DOCA_SUCCESS;
}
