/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The RDMA module's face (libdoca_rdma; docs/rdma.md), shared by its files: the context,
 * its connections, its tasks, and the wire layer they run on.
 *
 * Model. Each direction of a connection is one stream: a channel of frames on one endpoint of
 * core/transport (UCX; TCP between processes, namespaces or machines). The side that issues
 * operations dials the peer and owns that stream's requests; the peer answers on it. A connection
 * therefore has an "out" stream (our requests, the peer's responses) and an "in" stream (the
 * peer's requests, our responses). Every admitted stream has its own reader thread; a peer that
 * dialed a listener gets none until its first frame names a connection and its key, or until the
 * program accepts its CM request (wire.c's gate, odma_rd_admit). On an out stream the reader
 * completes our tasks from the responses; on an in stream it serves the peer (one-sided reads and
 * writes checked against the exporter's records, sends matched with our posted receives), so
 * nothing the peer does waits for doca_pe_progress. Requests on a stream are served in order and
 * answered in order, which gives RC's per-connection order (the transport delivers an endpoint's
 * messages in order). The transport thread serves an arriving frame itself when it never waits (a
 * one-sided read or write of the peer, a response to our request: odma_rd_fast) and nothing of its
 * stream is queued or being read; otherwise it queues the frame on its channel (wire.c) and the
 * stream's reader thread takes it, and may wait there (a send held for a receive) without holding
 * up the transport or other streams.
 * Reads and writes of a region the peer registered with the transport skip all of this: each is
 * one transport io on an attachment the connection keeps per region (direct.c), checked by the
 * exporter's transport, completed by the transport thread onto the context's list; no reader
 * thread on either side sees it (a re-export, which its exporter forwards, stays a request).
 * Finished tasks and connection events go to the context's queues and are delivered by
 * doca_pe_progress (the progress op) on the PE thread, each connection's tasks in submission
 * order.
 *
 * Locks: rd->lock guards the queues, the posted receives, the connection states and every
 * stream's pending list; a stream's wlock serialises its writers (the PE thread's submits,
 * the reader's responses). No lock is held across a callback or across a blocking read; a
 * channel's own lock (wire.c) is taken last and never held across a transport call that waits.
 * A connection that ends asks its streams to end (rw_end) under rd->lock; their waits for what
 * is still going out, and the endpoint closes, happen outside it (the stream's reader, or
 * whoever frees a stream without one), except in the stop, which holds rd->lock across them;
 * so the transport thread takes it only by trylock (odma_rd_fast: a busy lock queues the
 * frame).
 */
#ifndef ODMA_RDMA_RDMA_H_
#define ODMA_RDMA_RDMA_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <doca_rdma.h>

#include "core/device/device.h"
#include "core/exec/exec.h"
#include "core/memory/memory.h"
#include "util/queue.h"

/* ---------------------------------------------------------------- wire (wire.c) */

/*
 * The transport interface of this module: channels of frames on core/transport's endpoints
 * (UCX), listeners, and the connection blob. Only wire.c calls the transport.
 */
#define RW_MAGIC 0x5752444fu /* "ODRW" */

enum rw_type {
	RW_HELLO = 1,   /* dialer -> exporter of a connection blob: bind the stream */
	RW_CM_REQ,      /* CM client -> server listener: a connection request */
	RW_CM_ACCEPT,   /* server -> client: accepted (arg0 = server conn id, key) */
	RW_CM_REJECT,   /* server -> client: rejected */
	RW_CM_REV,      /* client -> server: the server's out stream (arg0 = its conn id) */
	RW_DISCONNECT,  /* either side: the connection ends */
	RW_SEND,        /* request: message (imm, flags: RW_F_IMM) */
	RW_READ,        /* request: rec, key, addr, arg0 = length */
	RW_WRITE,       /* request: rec, key, addr, payload (flags: RW_F_IMM: then a receive) */
	RW_ATOMIC_CAS,  /* request: rec, key, addr, arg0 compare, arg1 swap */
	RW_ATOMIC_FADD, /* request: rec, key, addr, arg0 add */
	RW_SE_GET,      /* request: rec = event id, key */
	RW_SE_SET,      /* request: rec = event id, key, arg0 value */
	RW_SE_ADD,      /* request: rec = event id, key, arg0 add */
	RW_RESP,        /* response to the oldest request of the stream: status, payload */
};

#define RW_F_IMM 1u
/*
 * More frames of this request or answer follow (same tag). A send, a write or a read's
 * answer longer than RW_PIECE_MAX goes as frames of at most RW_PIECE_MAX payload bytes, so
 * that what a peer makes the receiver hold is bounded by the carrier's window, never by the
 * message: a send's frames fill one receive (addr: the frame's offset in the message, arg0:
 * the message's length, on every frame), a write's are writes of their own range (addr), a
 * read's answer's are its bytes in order. A failed frame is answered at once and the rest of
 * its request dropped; a frame that breaks the order (another tag, a wrong offset, more bytes
 * than announced) ends the stream.
 */
#define RW_F_MORE 2u
#define RW_PIECE_MAX (256u * 1024u)
/* The longest frame a channel takes (header and one piece): a longer one ends it (wire.c). */
#define RW_FRAME_MAX (sizeof(struct rw_hdr) + RW_PIECE_MAX)

/* One frame header (host byte order: odma runs on little-endian hosts), then len bytes. */
struct rw_hdr {
	uint32_t magic;
	uint16_t type;
	uint16_t flags;
	uint32_t status; /* RW_RESP: doca_error_t */
	uint32_t imm;
	uint64_t tag;
	uint64_t len; /* payload bytes after the header */
	uint64_t addr;
	uint64_t arg0, arg1;
	uint64_t rec;
	uint8_t key[16];
};
/* The frame header goes on the wire as it is: the same on every little-endian LP64 ABI (x86-64
 * hosts, aarch64 DPUs); a target where it would differ fails to build. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "the RDMA wire is little-endian: encode it explicitly for this target");
_Static_assert(sizeof(struct rw_hdr) == 80 && offsetof(struct rw_hdr, tag) == 16 &&
                       offsetof(struct rw_hdr, key) == 64,
               "RDMA wire: frame header layout");

/* An IPv4 or IPv6 socket address with its length. */
struct rw_addr {
	struct sockaddr_storage ss;
	socklen_t len;
};

struct rw_chan; /* one endpoint: the peer's frames, in order */
struct rw_lsn;  /* a listener: connecting peers, as channels */

/* NULL when the network transport is built in, else why not (doca_caps says the same). */
const char *rw_absent(void);
/*
 * Listens on @addr:@port (@addr NULL: every local address; @port 0: one the kernel picks);
 * *@bound the port. DOCA_ERROR_NOT_SUPPORTED without UCX, IO_FAILED when the port is taken.
 */
doca_error_t rw_listen(const char *addr, uint16_t port, struct rw_lsn **l, uint16_t *bound);
/*
 * The next connecting peer whose first frame has come, or that closed (blocks); NULL once the
 * listener is shut down. Closes the peers that stay silent past the first frame's deadline.
 * The channel is gated: a second frame before rw_open closes it.
 */
struct rw_chan *rw_accept(struct rw_lsn *l);
/* Admits an accepted peer: its frames flow, within the queue bounds of every channel. */
void rw_open(struct rw_chan *c);
/* Stops accepting and wakes rw_accept; rw_listen_free then frees (after its thread ended). */
void rw_listen_shutdown(struct rw_lsn *l);
void rw_listen_free(struct rw_lsn *l);
/* Connects to @addr:@port (IPv4); the channel is usable at once (a failure closes it later). */
struct rw_chan *rw_dial(const char *addr, uint16_t port);
/*
 * Takes the next frame and its header (blocks; at most @timeout_ms unless 0): true, or false
 * when the channel ended, timed out or the frame is malformed.
 */
bool rw_read_hdr(struct rw_chan *c, struct rw_hdr *h, uint32_t timeout_ms);
/* The same, telling the cases apart: 1 a frame, 0 nothing within @timeout_ms, -1 ended. */
int rw_next(struct rw_chan *c, struct rw_hdr *h, uint32_t timeout_ms);
/* CLOCK_MONOTONIC in ms. */
uint64_t rw_now_ms(void);
/* @ts = now + @ms on CLOCK_MONOTONIC (the clock of the wire's and the streams' condvars). */
struct timespec;
void rw_deadline(struct timespec *ts, uint32_t ms);
/* Initialises @cond so that its timed waits run on CLOCK_MONOTONIC, rw_deadline's clock. */
void rw_cond_init(pthread_cond_t *cond);
/* Takes @n more bytes of the current frame's payload: true, or false when it has fewer. */
bool rw_read_all(struct rw_chan *c, void *buf, size_t n);
bool rw_skip(struct rw_chan *c, uint64_t n);
/* The unread payload of the current frame (its header's len bytes; NULL: no frame). */
const uint8_t *rw_payload(const struct rw_chan *c);
/*
 * Serves a frame on the transport thread: 1 served, 0 not here (it is queued for the
 * reader), -1 served and the channel must end. It must never wait for the program or for the
 * transport thread (no lock another thread holds across a transport call).
 */
typedef int rw_fast_fn(void *arg, const struct rw_hdr *h, const uint8_t *payload);
/*
 * Sets the handler that may serve an arriving frame on the transport thread while nothing
 * is queued for the reader and the reader is inside no frame (so frames stay in order).
 */
void rw_set_fast(struct rw_chan *c, rw_fast_fn *fn, void *arg);
/*
 * Attaches the region of the RDMA import @m over the channel's endpoint (its peer must be the
 * exporter): doca_priv_rdma_mem_attach, or DOCA_ERROR_CONNECTION_ABORTED when the channel has
 * ended. Blocks for one round trip (PE thread); the endpoint stays open meanwhile.
 */
doca_error_t rw_attach(struct rw_chan *c, const struct doca_mmap *m, struct odma_tp_remote *rm);
/*
 * Waits (a reader thread, never the transport's) until fewer than RW_PACE_FRAMES frames of
 * ours wait to go out on @c: a long answer goes at the pace the peer takes it, so a peer that
 * stops taking holds 16 MiB of it, not all. False when the channel ended.
 */
#define RW_PACE_FRAMES 64u
bool rw_pace(struct rw_chan *c);
/* The same, at most @timeout_ms (0: no bound): 1 room, 0 none yet, -1 the channel ended. */
int rw_pace_for(struct rw_chan *c, uint32_t timeout_ms);
/* How many frames of ours on @c went out so far (the peer takes them while it grows). */
uint64_t rw_sent_count(struct rw_chan *c);
/* Whether RW_PACE_FRAMES or more frames of ours wait to go out on @c (any thread, never waits). */
bool rw_backlog(struct rw_chan *c);
/* Sends a header and up to two payload pieces as one frame: true, or false (channel ended). */
bool rw_write(struct rw_chan *c, const struct rw_hdr *h, const void *p1, size_t n1, const void *p2,
              size_t n2);
/*
 * The window between applying a peer's request whose effect the program can see (a write, an
 * atomic, a sync event's set or add, a receive completed) and queueing its answer:
 * rw_answer_begin returns false (apply nothing, answer nothing) once our side began to shut
 * the channel down (a peer that left does not close it: what it sent before is applied);
 * rw_answer_end closes the window after the answer was written. A shutdown waits for open
 * windows (bounded), so an effect the program saw is never left without its answer (the
 * program may disconnect the moment it sees it, as NVIDIA's sync event responder does).
 * Nothing between the two may take the context lock (a disconnect holds it while it waits); a
 * window may be opened under it (a receive completes under it).
 */
bool rw_answer_begin(struct rw_chan *c);
void rw_answer_end(struct rw_chan *c);
/*
 * Closes the answer window for good and waits until @end (rw_deadline's clock) for the open
 * ones: every answer owed for an effect the program saw is queued when it returns (or the
 * deadline passed), so a frame written next goes out after them. Any thread except one holding
 * an open window; the channel stays open for writes.
 */
void rw_answers_out(struct rw_chan *c, const struct timespec *end);
/*
 * How long a shutdown waits for its open answer windows and its sends to go out (and a free for
 * their completions).
 */
#define RW_SHUTDOWN_MS 2000u
/*
 * Ends a channel (its reader returns false; its sends in flight fail): waits for open answer
 * windows, then for what was sent (both within RW_SHUTDOWN_MS). Any thread, repeatable.
 */
void rw_shutdown(struct rw_chan *c);
/*
 * The same, the waits ending at @end (rw_deadline's clock): the channels one stop or one
 * disconnect ends share one deadline, so peers that stopped reading cost it 2 s, not 2 s each.
 */
void rw_shutdown_by(struct rw_chan *c, const struct timespec *end);
/*
 * Asks a channel to end without waiting (any thread, any lock held): no frame of the peer is
 * taken after those queued (its reader then sees the end), no new answer window opens, and a
 * paced answer stops; what is written still goes out until whoever owns the channel shuts it
 * down (its reader, odma_rd_stream_discard, odma_rd_reap, the stop), which waits for the open
 * windows and the sends and closes the endpoint, outside the context lock.
 */
void rw_end(struct rw_chan *c);
/* Whether our side asked @c to end (rw_end, a shutdown): its reader stops waiting. */
bool rw_ending(struct rw_chan *c);
/* Frees a channel (shut down first when not yet); no reader may be inside. */
void rw_close(struct rw_chan *c);

/* The connection blob doca_rdma_export hands out (wire.c encodes and parses it). */
#define RW_BLOB_MAX_ADDRS 8
struct rw_blob {
	uint32_t conn_id;
	uint8_t key[16];
	uint64_t nonce;      /* the exporting context */
	uint8_t transport;   /* enum doca_rdma_transport_type */
	uint16_t port;       /* the exporting context's listener */
	uint64_t netns;      /* inode of its network namespace, and its kernel's boot id: */
	uint8_t boot_id[16]; /* the same pair means loopback reaches it */
	uint8_t naddrs;      /* its IPv4 addresses other than loopback */
	uint8_t addrs[RW_BLOB_MAX_ADDRS][4];
};
#define RW_BLOB_LEN (68 + 4 * RW_BLOB_MAX_ADDRS + 4)

/* Fills this process' part of a blob (namespace, boot id, addresses). */
void rw_blob_self(struct rw_blob *b);
void rw_blob_encode(const struct rw_blob *b, uint8_t out[RW_BLOB_LEN]);
/* NULL, or why the bytes are not a blob. */
const char *rw_blob_parse(const void *bytes, size_t len, struct rw_blob *b);
/*
 * The address to dial for the exporter of @b, try @i (0, 1, ...): loopback when it shares our
 * network namespace and kernel, else its addresses in turn; "" when there is none left.
 */
void rw_blob_target(const struct rw_blob *b, unsigned int i, char *text, size_t size);

/* ---------------------------------------------------------------- objects */

enum rd_task_type {
	RD_T_RECEIVE = 0,
	RD_T_SEND,
	RD_T_SEND_IMM,
	RD_T_READ,
	RD_T_WRITE,
	RD_T_WRITE_IMM,
	RD_T_CMP_SWP,
	RD_T_FETCH_ADD,
	RD_T_SE_GET,
	RD_T_SE_SET,
	RD_T_SE_ADD,
	RD_T_COUNT,
};

extern const char *const odma_rd_type_names[RD_T_COUNT];

struct rd_att;

struct rd_task {
	struct doca_task base; /* first */
	uint8_t type;          /* enum rd_task_type */
	struct doca_rdma_connection *conn;
	const struct doca_buf *src;
	struct doca_buf *dst;
	struct doca_buf *result;
	const struct doca_sync_event_remote_net *se;
	/* immediate / compare / swap / add; arg1 also a read's or a write's length */
	uint64_t arg0, arg1;
	/* results (set before the task is queued as done) */
	uint32_t res_len;
	uint8_t res_opcode;
	uint32_t res_imm;
	struct doca_rdma_connection *res_conn;
	doca_error_t res_status;
	uint64_t tag;          /* of its request */
	uint64_t sent_ms;      /* CLOCK_MONOTONIC ms when its request went out */
	uint64_t wire_t0;      /* a traced task's: when its request or io started (ns) */
	struct rd_task *qnext; /* a stream's pending list, the posted receives, the done queues */
	/* PE thread: its connection's tasks in submission order, and whether its result is in */
	struct rd_task *onext;
	bool finished;
	/* direct.c: its bytes move as @io, a transport io on attachment @att (else NULL) */
	struct rd_att *att;
	struct odma_tp_io io; /* owned by the transport until its done runs */
	uint64_t io_old;      /* a direct atomic's old value (io.local) */
};

/* Appends @t to the qnext-linked queue whose ends are *@head and *@tail (its lock held). */
static inline void rd_queue_push(struct rd_task **head, struct rd_task **tail, struct rd_task *t)
{
	ODMA_QUEUE_PUSH(*head, *tail, t, qnext);
}

/* Takes the task at the head of a queue that is not empty. */
static inline struct rd_task *rd_queue_pop(struct rd_task **head, struct rd_task **tail)
{
	struct rd_task *t;

	ODMA_QUEUE_POP(*head, *tail, t, qnext);
	return t;
}

/*
 * A connection's attachment of one remote region (an RDMA import), made on the first read or
 * write of it (direct.c); PE thread only. @direct false: the region is reached by requests.
 */
struct rd_att {
	bool used;
	bool direct;
	uint32_t region_id, generation; /* which region (with the key) */
	uint8_t key[16];
	uint32_t inflight; /* ios started on @rm whose tasks are not finished */
	struct odma_tp_remote rm;
};
#define RD_ATT_MAX 8

struct rd_stream {
	struct rw_chan *ch;
	pthread_t thr;
	bool thr_started;
	pthread_mutex_t wlock;
	struct doca_rdma *rd;
	struct doca_rdma_connection *conn; /* bound connection (NULL until the first frame) */
	bool out;                          /* our requests travel on it */
	bool dead;                         /* under rd->lock */
	bool serving; /* under rd->lock: a frame is being handled (its answer not yet sent) */
	atomic_bool fast_serving; /* the transport thread serves a frame of it (odma_rd_fast) */
	struct rd_task *pend_head, *pend_tail; /* requests waiting for their response */
	/*
	 * A peer's send or write cut into frames (RW_F_MORE) while they arrive; touched by the
	 * reader and by odma_rd_fast in turn (the channel's lock orders them).
	 */
	struct {
		bool active;          /* a frame with RW_F_MORE came; its last has not */
		bool skip;            /* a frame of it failed and was answered: drop the rest */
		uint16_t type;        /* RW_SEND or RW_WRITE */
		uint64_t tag;         /* its frames' */
		uint64_t off, total;  /* a send: bytes taken, and the message's length */
		struct rd_task *recv; /* a send: the receive it fills, off the queue */
	} cut;
	struct rd_stream *next; /* rd->streams */
};

enum rd_conn_state {
	RD_C_FREE = 0,
	RD_C_EXPORTED,    /* OOB: blob handed out */
	RD_C_CONNECTED,   /* OOB: doca_rdma_connect done */
	RD_C_REQUESTED,   /* CM server: request raised, not answered */
	RD_C_ACCEPTED,    /* CM server: accepted, waiting for the client's second stream */
	RD_C_CONNECTING,  /* CM client: request sent */
	RD_C_ESTABLISHED, /* CM: both streams up */
	RD_C_CLOSED,      /* disconnected, failed or rejected: tasks fail */
};

struct doca_rdma_addr {
	enum doca_rdma_addr_type type;
	char text[128];
	uint16_t port;
	struct rw_addr sa;
};

struct doca_rdma_connection {
	struct doca_rdma *rd;
	uint32_t id; /* index + 1 */
	uint8_t key[16];
	/*
	 * Written under rd->lock; `state` and `out` are also read unlocked at submit (a task on a
	 * connection another thread is closing), hence atomic.
	 */
	_Atomic enum rd_conn_state state;
	bool cm;
	bool app_closed; /* doca_rdma_connection_disconnect was called */
	/* the program let it go (disconnected, rejected, or told of its failure): once nothing
	 * of it is left, odma_rd_reap frees its slot for a new connection */
	bool released;
	/* RDMA CM, under rd->lock: when a connection not yet established fails (client: the
	 * server's answer; server: the client's second stream, after the accept); 0: none */
	uint64_t cm_due_ms;
	union doca_data user_data;
	struct rd_stream *_Atomic out;
	struct rd_stream *in;
	uint8_t blob[RW_BLOB_LEN];
	struct doca_rdma_addr peer; /* CM */
	bool has_peer;
	/*
	 * PE thread: every task submitted on it and not yet delivered, in submission order (a
	 * connection's tasks complete in order, as on an RC queue pair), and whether one was cut
	 * with the connection (those behind it are too).
	 */
	struct rd_task *ord_head, *ord_tail;
	bool aborted;
	struct rd_att *att; /* RD_ATT_MAX attachments, allocated on the first direct task */
	uint32_t att_next;  /* the next one to reuse */
};

enum rd_event_type {
	RD_E_REQUEST,
	RD_E_ESTABLISHED,
	RD_E_FAILURE,
	RD_E_DISCONNECT,
};

struct rd_event {
	enum rd_event_type type;
	struct doca_rdma_connection *conn;
	struct rd_event *next;
};

struct rd_listener {
	struct rw_lsn *lsn;
	uint16_t port;
	bool cm;
	pthread_t thr;
	bool thr_started;
	struct doca_rdma *rd;
	struct rd_listener *next;
};

struct doca_rdma {
	struct doca_ctx ctx; /* first: doca_rdma_as_ctx */
	/* properties (set while IDLE) */
	uint32_t permissions;
	enum doca_rdma_transport_type transport;
	uint32_t gid_index;
	uint16_t max_conns;
	uint32_t send_queue_size;
	uint32_t max_send_buf_list_len;
	uint32_t recv_buf_list_len;
	enum doca_mtu_size mtu;
	uint8_t grh;
	uint32_t sl;
	uint16_t conn_timeout_ms;
	uint8_t rnr_retry;
	doca_rdma_connection_request_cb_t cb_request;
	doca_rdma_connection_established_cb_t cb_established;
	doca_rdma_connection_failure_cb_t cb_failure;
	doca_rdma_connection_disconnection_cb_t cb_disconnect;
	struct odma_task_conf conf[RD_T_COUNT];
	/* runtime */
	pthread_mutex_t lock;
	pthread_cond_t recv_cond; /* a receive was posted, or the context stops */
	uint64_t nonce;
	/*
	 * nslots connections: max_conns that the program may hold, and as many again for those it
	 * let go while their threads, events and tasks end (odma_rd_reap frees them), so that a
	 * slot is free again once doca_rdma_connection_disconnect returns, as on hardware
	 */
	struct doca_rdma_connection *conns;
	uint32_t nslots;
	/*
	 * the arrays of earlier runs with another number of slots, kept until the context is
	 * destroyed: a handle the program kept past a restart is refused, never read freed
	 */
	struct doca_rdma_connection **retired;
	uint32_t nretired;
	struct rd_listener *listeners; /* [0]: the OOB listener while started */
	struct rd_stream *streams;
	struct rd_task *recv_head, *recv_tail; /* posted receives, oldest first */
	struct rd_task *done_head, *done_tail; /* finished by a reader, for progress */
	struct rd_event *ev_head, *ev_tail;
	bool stopping;         /* under lock: readers fail instead of serving */
	bool defer_idle;       /* stopped from a callback: IDLE at the end of that progress */
	atomic_uint queued;    /* done tasks + events waiting for progress */
	bool raising;          /* PE thread: progress is raising connection events */
	atomic_uint nreleased; /* connections released and not yet reaped (odma_rd_reap) */
	int bell_fd;           /* doorbell eventfd, watched by the PE (wake-up contract) */
	_Atomic uint32_t bell; /* its state word: readers ring it after queueing */
	uint64_t next_tag;
	/* direct tasks whose io finished (transport thread pushes, LIFO; progress takes) */
	_Atomic(struct rd_task *) io_done;
	atomic_uint io_busy; /* transport threads inside rd_io_done: destroy waits for them */
	/* PE thread: one-sided tasks started as transport ios, and sent as requests */
	uint64_t n_direct, n_requested;
	/* the peer's sends given to a receive as they arrived, and held for one (reader) */
	atomic_uint_fast64_t n_send_fast, n_send_held;
};

/* Whether @c is one of the connections of context @rd (not NULL). */
static inline bool rd_conn_of(const struct doca_rdma *rd, const struct doca_rdma_connection *c)
{
	return c != NULL && c->rd == rd && rd->conns != NULL && c >= rd->conns &&
	       c < rd->conns + rd->nslots;
}

static inline struct doca_rdma *rd_of(const struct doca_ctx *ctx)
{
	return (struct doca_rdma *)(void *)(uintptr_t)ctx;
}

/* Counts one more item queued for @rd's PE and rings its doorbell (wakes a PE asleep on it). */
static inline void rd_wake_pe(struct doca_rdma *rd)
{
	atomic_fetch_add(&rd->queued, 1);
	if (rd->bell_fd >= 0)
		doca_priv_bell_ring(&rd->bell, rd->bell_fd);
}

/* rdma.c */
/*
 * For tests (exported as doca_priv_*): how many one-sided tasks of @rdma started as transport
 * ios (direct) and how many travelled as requests on a stream (retries included).
 */
DOCA_STABLE void doca_priv_rdma_paths(const struct doca_rdma *rdma, uint64_t *direct,
                                      uint64_t *requested);
/*
 * For tests: how many of the peers' sends @rdma gave to a posted receive as they arrived (on
 * the transport thread), and how many its reader threads served (no receive was posted).
 */
DOCA_STABLE void doca_priv_rdma_sends(const struct doca_rdma *rdma, uint64_t *fast, uint64_t *held);
/*
 * For tests: how often a stream's reader thread in this process was woken and found neither a
 * frame nor the stream's end (a wake-up spent for nothing: two context switches).
 */
DOCA_STABLE uint64_t doca_priv_rdma_reader_wakes(void);
uint32_t odma_rd_rnr_ms(const struct doca_rdma *rd);
/*
 * Whether @rd is IDLE; when not (the call fails with BAD_STATE), one line under the public call
 * @fn says that @what comes before doca_ctx_start.
 */
bool odma_rd_idle(const struct doca_rdma *rd, const char *fn, const char *what);
/* Queues a finished task (any thread, rd->lock held). */
void odma_rd_done_locked(struct doca_rdma *rd, struct rd_task *t, doca_error_t status);
/* Queues a connection event (any thread, rd->lock held). */
void odma_rd_event_locked(struct doca_rdma *rd, struct doca_rdma_connection *c,
                          enum rd_event_type type);
/*
 * A task's result is in (PE thread): a receive is delivered at once, the others in their
 * connection's order.
 */
void odma_rd_finished(struct rd_task *t, doca_error_t status);

/* conn.c */
/*
 * The IPv4 address the transport dials for CM address @a, in @v4 or @a's own text: @a's
 * IPv4 address, or the one an IPv4-mapped IPv6 address or GID stands for (::ffff:a.b.c.d, a
 * RoCE v2 GID of an IPv4 address). NULL for any other IPv6 address: the transport reaches IPv4
 * peers only.
 */
const char *odma_rd_cm_ipv4(const struct doca_rdma_addr *a, char v4[INET_ADDRSTRLEN]);
doca_error_t odma_rd_conns_start(struct doca_rdma *rd);
/* Stops everything: listeners and streams shut down, threads joined, their tasks failed. */
void odma_rd_conns_stop(struct doca_rdma *rd);
/* Frees what the runs left (the context is destroyed): streams, connections of every run. */
void odma_rd_conns_free(struct doca_rdma *rd);
/*
 * A new stream on channel @ch (dialed when @out), with its reader thread when @reader (else
 * odma_rd_stream_start_locked starts it later); NULL on failure (@ch is closed).
 */
struct rd_stream *odma_rd_stream_new(struct doca_rdma *rd, struct rw_chan *ch, bool out,
                                     struct doca_rdma_connection *c, bool reader);
/* Starts a stream's reader thread unless it runs (rd->lock held); a failure marks it dead. */
void odma_rd_stream_start_locked(struct rd_stream *s);
/*
 * Unlinks and frees a stream that has no reader (rd->lock not held), closing its channel; one
 * with a reader is shut down instead (its reader ends it).
 */
void odma_rd_stream_discard(struct rd_stream *s);
/*
 * A connection slot (rd->lock held); NULL when the program holds max_num_connections (those it
 * let go do not count) or no slot is free.
 */
struct doca_rdma_connection *odma_rd_conn_alloc_locked(struct doca_rdma *rd);
/*
 * PE thread (rd->lock not held): frees the slot of every connection the program let go and of
 * which nothing is left (no live stream, queued event, undelivered task or io in flight), and
 * frees the streams that ended with nothing pointing at them (their readers joined, their
 * channels closed).
 */
void odma_rd_reap(struct doca_rdma *rd);
/* The program let connection @c go (rd->lock held): odma_rd_reap may free its slot. */
void odma_rd_release_locked(struct doca_rdma *rd, struct doca_rdma_connection *c);
/* A stream ended (reader thread, rd->lock held): its tasks fail, the connection closes. */
void odma_rd_stream_dead_locked(struct rd_stream *s);
/*
 * Connection @c ended without the program asking (rd->lock held, before its state becomes
 * CLOSED): an RDMA CM one not yet established raises its failure callback, an established
 * one its disconnection callback; nothing during a stop, nothing for the out-of-band flow.
 */
void odma_rd_conn_lost_event_locked(struct doca_rdma_connection *c);
/*
 * Ends a connection (rd->lock held): both streams are asked to end (rw_end: their readers, or
 * whoever frees a stream with none, close them outside the lock), tasks fail later. It never
 * waits: a peer that stopped taking our frames holds no thread that needs the lock.
 */
void odma_rd_conn_close_locked(struct doca_rdma_connection *c, bool tell_peer);

/* serve.c: the reader thread of a stream. */
void *odma_rd_reader(void *arg);
/*
 * Admits a peer that dialed a listener of @rd, from its first frame (the listener's thread):
 * a HELLO or second-stream frame with a connection's key gets a stream and its reader; a CM
 * request, on an RDMA CM listener (@cm), a stream without a reader until the program accepts
 * it; anything else is answered (when it asked) and closed.
 */
void odma_rd_admit(struct doca_rdma *rd, struct rw_chan *ch, bool cm);
/* Serves a stream's frame on the transport thread when it never waits (rw_fast_fn). */
int odma_rd_fast(void *arg, const struct rw_hdr *h, const uint8_t *payload);
/* Writes one frame on @s (its writers take turns): false when the stream ended. */
bool odma_rd_frame_out(struct rd_stream *s, const struct rw_hdr *h, const void *p, size_t n);
/* Writes control frame @type (@arg0, the connection's @key unless NULL) on @s, as above. */
bool odma_rd_ctl(struct rd_stream *s, uint16_t type, uint64_t arg0, const uint8_t *key);
/*
 * Sends a request for @t with its @n payload bytes on its connection's out stream (PE thread),
 * in frames of at most RW_PIECE_MAX bytes.
 */
doca_error_t odma_rd_request(struct rd_task *t, struct rw_hdr *h, const void *p, size_t n);

/* tasks.c */
/* Completes every posted receive with @status (PE thread, stop). */
void odma_rd_fail_receives(struct doca_rdma *rd, doca_error_t status);
/* Sends @t (a one-sided task already checked) as a request (PE thread); its result follows. */
void odma_rd_resubmit(struct rd_task *t);
/* The bytes @task moves (a read's, a write's or a send's, a receive's so far, 8 for an atomic). */
uint64_t odma_rd_task_bytes(const struct doca_task *task);
/* The task timeline: @t's request or io answered now (nothing when @t is not traced). */
void odma_rd_trace_wire(const struct rd_task *t);

/* direct.c: reads and writes as transport ios on the connection's attachments. */
/*
 * Starts @t (a read or write, checked, its request header @h filled) as a transport io: true,
 * or false when it goes as a request instead (a region with no record, a list, no room for
 * another attachment, the transport refused the io).
 */
bool odma_rd_direct_start(struct rd_task *t, const struct rw_hdr *h);
/* Progress: the direct tasks whose io finished (a failed one is retried as a request). */
bool odma_rd_direct_take(struct doca_rdma *rd);
/* Waits for the transport threads inside an io's completion (stop, destroy). */
void odma_rd_direct_quiesce(struct doca_rdma *rd);
/* Whether an io of @c is in flight (PE thread). */
bool odma_rd_direct_busy(const struct doca_rdma_connection *c);
/* Drops every attachment of @c (PE thread; none in flight). */
void odma_rd_direct_conn_free(struct doca_rdma_connection *c);
/* Drops every attachment of @rd (no io in flight: after the stop). */
void odma_rd_direct_free(struct doca_rdma *rd);

#endif /* ODMA_RDMA_RDMA_H_ */
