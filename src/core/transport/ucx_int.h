/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Inside core/transport only: the UCX transport's shared state and the helpers its files
 * share. ucx.c owns the worker and the service thread (configuration, start, exit),
 * ucx_req.c the importer's requests (chunks, peers, deadlines, replies), ucx_serve.c the
 * exporter's answers, ucx_ep.c the endpoints. Everything marked "service thread" is touched
 * only by the holder of odma_ux.wlock, the worker lock: the service thread while it is
 * awake, or a thread polling inline (odma_tp_poll); the rest under odma_ux.lock. Lock
 * order: wlock, then lock.
 */
#ifndef ODMA_CORE_TRANSPORT_UCX_INT_H_
#define ODMA_CORE_TRANSPORT_UCX_INT_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/transport/link.h"
#include "core/transport/tp_int.h"
#include "core/transport/ucx_wire.h"
#include "util/now.h"

#define UCX_SLOTS 65536u   /* outstanding requests at most (ids map to slots) */
#define UCX_OP_DETACH 0xff /* a queued command, not a request: drop an attachment's peer */
#define UCX_OP_CALL 0xfe   /* a queued command: run fn(fnarg) on the service thread */
#define UCX_OP_SEND 0xfd   /* an endpoint's message (fnarg); the chunk is the message's */
#define UCX_OP_WAIT 0xfc   /* UCX_OP_CALL in a waiting caller's memory: fn ends its wait */

struct ucx_deferred;

struct ucx_peer {
	struct ucx_peer *next; /* the live peers, by address (or the exporter's clients) */
	struct odma_lk_ep *ep;
	bool dead;
	bool timed_out_logged;
	size_t stale;      /* what the link holds of its requests past their deadline (ucx_req.c) */
	unsigned int refs; /* attachments + requests + replies in flight (lock) */
	struct odma_tp_ep *owner; /* the endpoint it is (listen/connect), NULL for imports */
	/*
	 * Exporter side (ucx_serve.c, service thread): an importer answered on an endpoint of
	 * ours. @from is the endpoint UCX made for its requests (never sent on: it has no peer
	 * error handling unless the importer asked for it); what is in flight to it is bounded.
	 */
	struct odma_lk_ep *from;
	struct odma_lk_ep *indexed; /* its key in the endpoint index (NULL: not in it) */
	unsigned int replies;       /* replies handed to UCX and not completed */
	size_t reply_bytes;         /* their payload */
	unsigned int ndeferred;     /* GETs waiting for room under the bound */
	unsigned int nwatch;        /* its watches held (ucx_serve.c) */
	struct ucx_deferred *def_head, *def_tail;
	uint16_t alen;
	uint8_t addr[ODMA_TP_ADDR_MAX];
	/* the answers to its lone requests of this progress call (ucx_serve.c), and the list */
	struct ucx_reply *round;
	struct ucx_peer *round_next;
	bool round_listed;
};

struct ucx_io;

/* What an ATTACH request waits on (the attaching thread sleeps on cond). */
struct ucx_waiter {
	pthread_cond_t cond;
	bool done;
	doca_error_t status;
	struct ucx_peer *peer;
	uint8_t *issued;
	size_t issued_len;
};

struct ucx_chunk {
	struct ucx_chunk *next, *prev; /* queue, then the outstanding list */
	uint64_t id;
	uint8_t op;
	uint8_t refs; /* the outstanding entry and the send in flight */
	bool outstanding;
	struct ucx_io *io;                 /* GET/PUT */
	struct ucx_waiter *wait;           /* ATTACH */
	struct ucx_peer *peer;             /* PUT/GET: the io's; ATTACH: resolved by the thread */
	const struct odma_tp_reach *reach; /* ATTACH */
	void (*fn)(void *arg);             /* UCX_OP_CALL */
	void *fnarg;
	uint8_t *local;
	uint8_t *bounce;         /* PUT: the bytes being sent (ours until the send completes) */
	struct odma_ucx_out out; /* the payload of the send in flight */
	doca_error_t read_st;    /* a PUT read as it leaves (ucx_req.c): its bytes so far */
	size_t held;             /* what its send holds in the link until it ends (ucx_req.c) */
	bool stale;              /* its deadline passed first: @held counts in its peer's stale */
	uint64_t raddr, len;
	uint64_t deadline_ns;
	uint8_t hdr[ODMA_UCX_REQ_LEN];
};

struct ucx_io {
	struct odma_tp_io *io;
	unsigned int live; /* chunks still referenced (service thread) */
	atomic_uint left;
	atomic_bool failed;
	unsigned int n;
	struct ucx_chunk chunk[];
};

struct odma_ucx_state {
	pthread_mutex_t lock;
	pthread_once_t once;
	bool up;
	bool stopping; /* the process exits: the service thread leaves (lock) */
	bool sleeping; /* the service thread sleeps, or is about to: a new job kicks it (lock) */
	bool parked;   /* it sleeps a short while only: a thread polls inline (lock) */
	pthread_mutex_t wlock;        /* the worker and everything marked service thread */
	_Atomic uint64_t inline_ns;   /* when a thread last polled inline; 0: none does */
	atomic_bool inline_wait;      /* an inline poll found the service thread in a round */
	atomic_bool inline_ok;        /* the service thread runs: inline polls may take over */
	unsigned int listeners;       /* open listeners (service thread) */
	const char *why;              /* why the transport is not up */
	const struct odma_lk_ops *lk; /* the link (link.h) */
	bool copy_out; /* the link packs payloads as they leave (odma_ucx_out.pack) */
	size_t cut;    /* the bytes a GET or PUT request moves at most (the link's) */
	int wfd, evfd;
	pthread_t thread;
	struct ucx_chunk *q_head, *q_tail; /* to post (lock) */
	struct ucx_peer *peers;            /* live peers (service thread) */
	struct ucx_peer *clients;          /* importers we answer (service thread, ucx_serve.c) */
	unsigned int nclients;
	size_t reply_bytes;     /* what all clients' replies in flight hold (ucx_serve.c) */
	unsigned int ndeferred; /* all clients' GETs waiting for room (ucx_serve.c) */
	/* service thread only */
	struct ucx_chunk *slot[UCX_SLOTS];
	unsigned int nout; /* requests outstanding (in a slot) */
	/* jobs taken from the queue that wait, in order, for slots to free up (ucx_req.c) */
	struct ucx_chunk *held_head, *held_tail;
	struct ucx_chunk *out_head, *out_tail;
	uint64_t next_id;
	uint64_t id_rng; /* splitmix64 state (seeded by getrandom): the random part of ids */
	uint16_t self_len;
	uint8_t self_addr[ODMA_TP_ADDR_MAX];
};
extern struct odma_ucx_state odma_ux;

struct ucx_msg;

struct odma_tp_ep {
	struct odma_tp_ep_head head; /* first: the ops (odma_ucx_ops) */
	struct odma_tp_ep *next;     /* every open endpoint (service thread) */
	struct ucx_peer *peer;
	struct odma_tp_ep_cbs cbs;
	bool gone;            /* on_close ran (or close was asked): no callback after it */
	bool bad_logged;      /* the peer sent a malformed message or bundle (logged once) */
	struct ucx_msg *msgs; /* sends handed to UCX and not completed (service thread) */
	/*
	 * The carrier's credit (transport.h): the costs of the messages each way. Service thread,
	 * but for the atomics (rx_freed grows on any thread, odma_tp_ep_release).
	 */
	uint64_t tx_sent;                      /* ours handed to UCX */
	uint64_t tx_granted;                   /* ours the peer reported given back */
	struct ucx_msg *pend_head, *pend_tail; /* ours waiting for credit, in order */
	bool asked;                            /* a CREDIT WANT went since the last grant */
	bool warm;       /* UCX reported one of ours sent: after the first, the rest may go */
	uint64_t rx_got; /* the peer's arrived */
	_Atomic uint64_t rx_freed; /* the peer's given back */
	_Atomic uint64_t rx_told;  /* the most given back we reported */
	atomic_bool peer_wants;    /* the peer waits for a report */
	atomic_bool credit_queued; /* a report job is queued */
	/* sends bounded (cbs.on_room given): what they hold until reported, ODMA_TP_SEND_COST each
	 */
	atomic_bool bounded;
	_Atomic uint64_t held;
	atomic_bool room_wanted; /* a send was refused: the next report runs on_room */
};

extern struct odma_tp_ep *odma_ucx_eps; /* every open endpoint (service thread) */
/*
 * Closed endpoints whose last messages still leave (ucx_ep.c, service thread): closes those
 * whose flush completed or met its deadline. Whether it closed any (the worker then has work:
 * the closes).
 */
bool odma_ucx_linger_run(void);
/* Whether a closed endpoint still flushes (service thread): the rounds must go on. */
bool odma_ucx_lingering(void);
/* At exit, on the thread that owns the worker: waits for them, each within its deadline. */
void odma_ucx_linger_drain(void);
/* At exit, after the service thread left: destroys the listeners still open. */
void odma_ucx_listeners_destroy(void);
/* At exit: frees the message buffers kept for reuse (ucx_ep.c). */
void odma_ucx_msg_cache_drop(void);
/* At exit, once the link is closed: frees the reply buffers kept for reuse (ucx_serve.c). */
void odma_ucx_reply_cache_drop(void);

/*
 * The endpoint index (ucx.c, service thread): the peer whose messages arrive on UCX endpoint
 * @h, found in constant time (a hash of the handle; UCX's khash) whatever the number of
 * endpoints and clients: an endpoint of ours (its own ep) or an exporter's client (its @from).
 * add: false when out of memory (the peer is then not reachable by its messages).
 */
bool odma_ucx_index_add(struct odma_lk_ep *h, struct ucx_peer *p);
void odma_ucx_index_del(struct ucx_peer *p);
struct ucx_peer *odma_ucx_index_get(struct odma_lk_ep *h);

/*
 * The largest batch (endpoint bundle, batch of requests) packed into one buffer before it is
 * sent; a larger one is sent from its parts in place (an IOV datatype). See ucx_ep.c.
 */
#define ODMA_UCX_BUNDLE_PACK 8192u

/* ucx_serve.c: peers with answers gathered in this progress call, and sending them */
extern struct ucx_peer *odma_ucx_round_peers;
void odma_ucx_round_send(void);
/* ucx_serve.c: drops @p's GETs waiting for room (service thread) */
void odma_ucx_deferred_free(struct ucx_peer *p);

/* ucx.c */
extern const struct odma_tp_ops odma_ucx_ops;      /* the transport (ucx_row.c hands it out) */
extern __thread bool odma_ucx_in_worker;           /* this thread holds odma_ux.wlock */
extern __thread unsigned int odma_ucx_progressing; /* inside the link's progress */

/*
 * One progress of the link by the thread that holds the worker, counted: a callback it runs
 * must not progress the worker again (UCX asserts), and ep_flush asks.
 */
static inline unsigned int odma_ucx_progress(void)
{
	unsigned int n;

	odma_ucx_progressing++;
	n = odma_ux.lk->progress();
	odma_ucx_progressing--;
	if (odma_ucx_round_peers != NULL)
		odma_ucx_round_send();
	return n;
}
/* Bytes [@offset, @offset + @max) of @o's payload into @dest: how many there were. */
size_t odma_ucx_out_read(struct odma_ucx_out *o, size_t offset, void *dest, size_t max);
/*
 * This side's address on ODMA_FABRIC's network (127.0.0.1 without it) and its interface;
 * false (logged) when no interface is on it.
 */
bool odma_ucx_fabric_dev(char *ip, size_t ipcap, char *dev, size_t devcap);
/*
 * Whether UCX may use its TCP transport: odma picks it unless UCX_TLS is the user's, and a
 * user's list may name it, or be "all" or a list of exclusions (^...). Where it may, UCX's
 * TCP transport carries out a stranger's write (docs/reliability.md), so ODMA_LINK=auto takes
 * odma's TCP link; where it may not (an RDMA NIC: UCX_TLS=rc, ud, dc ...), UCX's link.
 */
bool odma_ucx_may_use_tcp(void);
/* Reads @k bytes at @offset of a payload into @dest: DOCA_SUCCESS, or why it cannot. */
typedef doca_error_t odma_ucx_read_fn(void *arg, uint64_t offset, void *dest, size_t k);
/*
 * An odma_ucx_out pack of a payload read as it leaves (@len bytes, then a trailer, ucx_wire.h):
 * bytes [@offset, @offset + @max) into @dest. The bytes come from @read while *@st is
 * DOCA_SUCCESS (its result is kept there), zeros after a failure; the trailer says *@st.
 */
void odma_ucx_pack_trailed(void *dest, size_t offset, size_t max, uint64_t len, doca_error_t *st,
                           odma_ucx_read_fn *read, void *arg);
void odma_ucx_kick(void);                  /* wakes the service thread */
bool odma_ucx_available(const char **why); /* starts the transport once */

/* ucx_req.c */
void odma_ucx_enqueue(struct ucx_chunk *first, struct ucx_chunk *last); /* any thread */
/* Queues @fn(@arg) to run on the service thread (any thread, no wait); false: out of memory. */
bool odma_ucx_post(void (*fn)(void *), void *arg);
/* Runs the queued jobs (service thread); whether there were any. */
bool odma_ucx_take_queue(void);
/* Batches of requests sent by this process (ODMA_UCX_AM_REQS; for tests). */
extern atomic_uint_fast64_t odma_ucx_req_batches;
void odma_ucx_expire(void); /* service thread */
void odma_ucx_chunk_finish(struct ucx_chunk *c, doca_error_t st);
void odma_ucx_chunk_put(struct ucx_chunk *c);
void odma_ucx_waiter_done(struct ucx_waiter *w, doca_error_t st);
/* Sleeps until @w is done (its job ran on the service thread), then destroys its condition. */
void odma_ucx_waiter_wait(struct ucx_waiter *w);
/* Takes a reference on @p (any thread). */
void odma_ucx_peer_ref(struct ucx_peer *p);
void odma_ucx_peer_unref(struct ucx_peer *p);
/* Creates @p's connection to the link address p->addr, with peer error handling. */
int odma_ucx_peer_connect(struct ucx_peer *p);
/* A peer's connection failed (the link's error callback: @arg is the peer). */
void odma_ucx_peer_err_cb(void *arg, int status);
void odma_ucx_reply_am(const void *header, size_t header_length, void *data, size_t length,
                       const struct odma_lk_rx *rx);
/* A batch of replies (ODMA_UCX_AM_REPLIES): checked whole, then each taken as one alone. */
void odma_ucx_replies_am(const void *header, size_t header_length, void *data, size_t length,
                         const struct odma_lk_rx *rx);
/*
 * Sends an ATTACH for @r over @peer's endpoint (NULL: the service thread finds the exporter)
 * and waits for it in @w: NO_MEMORY, IO_FAILED (not reached) or INVALID_VALUE (refused).
 */
doca_error_t odma_ucx_attach_wait(const struct odma_tp_reach *r, struct ucx_peer *peer,
                                  struct ucx_waiter *w);
doca_error_t odma_ucx_attach(const struct odma_tp_reach *r, struct odma_tp_remote *rm,
                             uint8_t *issued, size_t *issued_len);
void odma_ucx_detach(struct odma_tp_remote *rm);
doca_error_t odma_ucx_io_start(struct odma_tp_io *io);
void odma_ucx_io_cancel(uint64_t owner);

/* ucx_serve.c */
void odma_ucx_req_am(const void *header, size_t header_length, void *data, size_t length,
                     const struct odma_lk_rx *rx);
/* A batch of requests (ODMA_UCX_AM_REQS): checked whole, then each served as one alone. */
void odma_ucx_reqs_am(const void *header, size_t header_length, void *data, size_t length,
                      const struct odma_lk_rx *rx);
/*
 * The link's connection @ep, one a peer made to this process, is gone: the client whose requests
 * came on it is no longer reached by its requests (its index entry goes) and fails.
 */
void odma_ucx_conn_gone(struct odma_lk_ep *ep, int status);
/* At exit, after the service thread left: drops the clients' waiting GETs and the watches
 * held (ucx.c closes their endpoints with the others). */
void odma_ucx_clients_forget(void);
/*
 * Batches of several replies sent by this process, the replies they carried, and reply buffers
 * reused (for tests).
 */
extern atomic_uint_fast64_t odma_ucx_reply_batches, odma_ucx_replies_batched, odma_ucx_reply_reuses;
/*
 * Watches (ODMA_TP_AT_WATCH) held for importers: run answers those whose value changed since
 * a kick, or whose wait ended (service thread, each round; whether it answered any);
 * timeout_ms: how long the service thread may sleep before one is due (-1: none held); kick:
 * a watched value changed (odma_tp_watch_kick, any thread).
 */
bool odma_ucx_watch_run(void);
int odma_ucx_watch_timeout_ms(void);
void odma_ucx_watch_kick(void);

/* ucx_ep.c */
void odma_ucx_ep_gone(struct odma_tp_ep *ep, doca_error_t why);
void odma_ucx_msg_am(const void *header, size_t header_length, void *data, size_t length,
                     const struct odma_lk_rx *rx);
/* Whether a large message may be read (odma_lk_admit_fn): its endpoint, credit and owner. */
bool odma_ucx_msg_admit(const void *header, size_t header_length, const void *head, size_t plen,
                        size_t length, const struct odma_lk_rx *rx);
/* A bundle of messages (ODMA_UCX_AM_MSGS): checked whole, then delivered one by one. */
void odma_ucx_msgs_am(const void *header, size_t header_length, void *data, size_t length,
                      const struct odma_lk_rx *rx);
/*
 * Sends the message of queued chunk @c with the messages of the same endpoint queued right
 * after it, as one bundle when there are several (service thread); the next chunk not taken.
 */
struct ucx_chunk *odma_ucx_send_run(struct ucx_chunk *c);
/*
 * Bundles sent by this process, messages sent from a kept buffer, and messages handed to UCX
 * (sent or in flight; for tests).
 */
extern atomic_uint_fast64_t odma_ucx_bundles, odma_ucx_msg_reuses, odma_ucx_msgs_posted;
doca_error_t odma_ucx_listen(const char *addr, uint16_t *port, odma_tp_accept_fn *on_accept,
                             odma_tp_admit_fn *admit, void *arg, void **listener);
void odma_ucx_listen_close(void *listener);
doca_error_t odma_ucx_connect(const char *addr, uint16_t port, const struct odma_tp_ep_cbs *cbs,
                              struct odma_tp_ep **ep);
void odma_ucx_ep_set_cbs(struct odma_tp_ep *ep, const struct odma_tp_ep_cbs *cbs);
bool odma_ucx_ep_room(struct odma_tp_ep *ep, size_t len);
doca_error_t odma_ucx_ep_send(struct odma_tp_ep *ep, const struct iovec *iov, unsigned int niov,
                              uint32_t imm, odma_tp_send_done_fn *done, void *arg);
doca_error_t odma_ucx_ep_attach(struct odma_tp_ep *ep, const struct odma_tp_reach *r,
                                struct odma_tp_remote *rm);
void odma_ucx_ep_close(struct odma_tp_ep *ep);
void odma_ucx_ep_release(struct odma_tp_ep *ep, size_t len);
/* A credit report or request of a peer (ODMA_UCX_AM_CREDIT). */
void odma_ucx_credit_am(const void *header, size_t header_length, void *data, size_t length,
                        const struct odma_lk_rx *rx);

#endif /* ODMA_CORE_TRANSPORT_UCX_INT_H_ */
