/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The Comch module's face (libdoca_comch; docs/comch.md).
 *
 * The wire format (packets, HELLO/WELCOME, the link page) is in comch/wire.h.
 *
 * Control path: a server (DPU side) listens on a SOCK_SEQPACKET Unix socket in the runtime
 * directory; a client (host side) connects, sends HELLO with a shared "link" page (memfd,
 * SCM_RIGHTS) and becomes RUNNING on WELCOME. Each message is one packet. Receive queues are
 * credits: a side may have at most the peer's recv_queue_size messages that the peer has not
 * delivered yet; each side publishes how many it delivered in the link page, so a sender
 * needs no progress call to learn about room.
 *
 * Fast path: a consumer publishes its posted buffers in a ring (memfd shared with the peer
 * through the control socket); the peer's producer claims a posted slot with a CAS, writes
 * the bytes with process_vm_writev straight into the consumer's buffer and marks the slot
 * done; the consumer's progress harvests done slots in order.
 *
 * Threads: the server/client progress (its PE's thread) owns the socket's receive side and
 * the send tasks. Consumers and producers may run on other PEs (other threads); what they
 * share with the connection is behind conn->lock (remote consumer table, local consumer
 * list, control outbox) or atomic (dead, registration state).
 */
#ifndef ODMA_COMCH_H_
#define ODMA_COMCH_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>

#include "core/config/config.h"
#include "core/device/device.h"
#include "core/exec/exec.h"
#include "core/memory/memory.h"
#include "comch/ring.h"
#include "comch/wire.h"
#include "util/container_of.h"

/* ---- limits and environment ---------------------------------------------------------- */

#define COMCH_NAME_MAX 120u              /* doca_comch_cap_get_max_name_len (with the NUL) */
#define COMCH_DEFAULT_RECV_QUEUE 128u    /* set_recv_queue_size not called (capped by the device) */
#define COMCH_RECV_BUDGET 64u            /* packets one progress call takes per connection */
#define COMCH_DEFAULT_TIMEOUT_MS 10000u  /* ODMA_COMCH_CONNECT_TIMEOUT_MS not set */
#define COMCH_HANDSHAKE_TIMEOUT_MS 5000u /* server side: accepted socket without HELLO */

/*
 * What one peer may hold of this process (docs/reliability.md, threat model). Going past a
 * limit refuses that peer alone, with one rate-limited log line.
 */
#define COMCH_HS_MAX 128u                 /* accepted sockets awaiting HELLO, all peers */
#define COMCH_HS_PER_PEER 16u             /* ... from one process */
#define COMCH_ACCEPT_BUDGET 64u           /* sockets one progress call accepts */
#define COMCH_OUTBOX_MAX (256u << 10)     /* control bytes queued for a peer that does not read */
#define COMCH_PEER_LOG_PER_S 10u          /* log lines about one peer per second */
#define COMCH_LOCK_WAIT_MS 1000u          /* server start: longest wait for the directory lock */
#define COMCH_NET_CTL_SLACK 256u          /* network: packets queued beyond the receive queue */
#define COMCH_NET_INBOX_BYTES (16u << 20) /* network: bytes queued for the progress */

/* Who may be our peer besides this user and root (ODMA_COMCH_ALLOW_UIDS). */
#define COMCH_ALLOW_UIDS_MAX 16u
struct comch_peer_policy {
	bool any; /* "any" */
	uint32_t n;
	uid_t uids[COMCH_ALLOW_UIDS_MAX];
};

/* ---- fast-path ring: ring.h (consumer side creates it; shared with the peer) ---------- */

_Static_assert(COMCH_RING_MAX_IMM == ODMA_COMCH_IMM_DATA_LIMIT, "one immediate-data limit");
_Static_assert(COMCH_RING_MAX_SLOTS == ODMA_COMCH_FP_TASKS_LIMIT, "one fast-path task limit");

/* ---- objects ------------------------------------------------------------------------- */

/* Opaque event tokens handed to callbacks (the API passes them, programs ignore them). */
struct doca_comch_event_msg_recv {
	int unused;
};
struct doca_comch_event_connection_status_changed {
	int unused;
};
struct doca_comch_event_consumer {
	int unused;
};

/* A control packet that could not be written yet (socket full). */
struct comch_outbox {
	struct comch_outbox *next;
	int fd; /* passed with SCM_RIGHTS, closed after sending; -1 none */
	uint32_t len;
	uint8_t bytes[]; /* header + payload */
};

/* A consumer of the peer, known from its CONS_NEW (producers send to it). */
struct comch_rcons {
	struct comch_rcons *next;
	uint32_t id;
	struct comch_ring *ring;
	struct comch_ring_geom geom; /* validated at CONS_NEW; the ring's own header is not read */
	uint32_t users;              /* producers inside a send now (under conn->lock) */
	bool expired;                /* no more sends to it */
	bool orphan;                 /* unlinked from the table; the last user frees it */
	int bell_fd; /* our copy of its doorbell eventfd (-1: none); rung after each write */
};

struct comch_ep;
/* An accepted socket whose HELLO has not arrived yet (local.c). */
struct comch_hs {
	struct comch_hs *next;
	struct comch_chan *ch; /* of the local carrier */
	pid_t pid; /* SO_PEERCRED of the connecting process (0: another PID namespace) */
	uid_t uid;
	uint64_t deadline_ns;
};

/* Log lines about one peer: at most COMCH_PEER_LOG_PER_S a second (any thread). */
struct comch_lograte {
	_Atomic uint64_t second;
	atomic_uint lines;
	atomic_uint dropped;
};

/* Whether one more line about a peer may be logged now; *@dropped: lines refused since. */
bool comch_lograte_take(struct comch_lograte *l, unsigned int *dropped);

/* A log line about the peer of @conn, rate-limited per peer (needs one argument at least). */
#define COMCH_PEER_LOG(level, conn, fmt, ...)                                                      \
	do {                                                                                       \
		unsigned int cpl_dropped_;                                                         \
		if (comch_lograte_take(&(conn)->lograte, &cpl_dropped_)) {                         \
			if (cpl_dropped_ == 0)                                                     \
				ODMA_LOG(level, fmt, __VA_ARGS__);                                 \
			else                                                                       \
				ODMA_LOG(level, fmt " [%u more lines about this peer dropped]",    \
				         __VA_ARGS__, cpl_dropped_);                               \
		}                                                                                  \
	} while (0)

/*
 * A carrier: how the packets of comch/wire.h travel between the two sides of a connection,
 * ordered and bounded (a packet is checked by its length before it is kept; a peer holds at
 * most its credits of the other side's receive queue, counted in the link page). Two carriers
 * exist: the local one (local.c: a Unix socket of the runtime directory, a link page
 * shared with the peer, the fast path written with process_vm_writev) and the network one
 * (net.c: a transport endpoint at ODMA_FABRIC after the fabric secret's challenge, the
 * credits and the fast path as packets). Which one a connection uses is chosen once, where
 * its channel is made (a server's listener, a client's connect); the rest of Comch calls
 * only the carrier's ops.
 */
struct comch_chan {
	const struct comch_carrier *car;
	int fd;                  /* what the endpoint's PE watches: the socket, or an eventfd */
	bool watched;            /* by the endpoint's PE, before a connection owns it */
	struct comch_link *link; /* the credits; NULL until the handshake gives one */
	int peer_pidfd; /* local carrier: the peer process, for as long as it lives; -1: none */
	_Atomic uint64_t peer_seen_ns; /* local carrier: when the pidfd last said it runs */
};

struct comch_ep;
struct comch_rcons;
struct iovec;

#define COMCH_UNTRUSTED (-1) /* a connect op's *err: no other carrier is tried */

/* The ops marked "optional" may be NULL: the carrier has nothing to do there. */
struct comch_carrier {
	const char *where; /* "" or " at ODMA_FABRIC": for log lines */
	int lost_errno;    /* a client's last error when its server went away mid-handshake */
	bool self_bell;    /* fast-path bytes land from this process: it rings its consumers */
	/*
	 * The bytes move on the transport's thread unless a PE's progress does its work: a
	 * running consumer or producer has its PE do it (doca_priv_pe_net_ios), as the
	 * connection's endpoint has, so its sends and arrivals wait for no thread hand-off.
	 */
	bool pe_polls;
	uint32_t retry_ms; /* a client's pause between two attempts to connect */
	/* Optional. Whether the configuration asks for this carrier (NULL: always). */
	bool (*wanted)(void);
	/* A server starts listening (its start fails with the error), and stops (at its stop,
	 * after a failed start, and on a client: nothing to do then). */
	doca_error_t (*listen)(struct comch_ep *ep);
	void (*unlisten)(struct comch_ep *ep);
	/* A server's progress: the next channel whose first packet is in ep->rx (*@n: its length
	 * or -errno, *@pfd: a descriptor that came with it, or -1); NULL when none is waiting.
	 * *@any is set when work was done. */
	struct comch_chan *(*take)(struct comch_ep *ep, ssize_t *n, int *pfd, bool *any);
	/* A server's arm op: what its listener watches; when it is due. */
	uint64_t (*listen_arm)(struct comch_ep *ep);
	/* A client connects and sends @hello (@len bytes): the channel that awaits the answer,
	 * or NULL with *@err: the errno to report (0: none), or COMCH_UNTRUSTED (the server is
	 * not one to talk to: the start fails). */
	struct comch_chan *(*connect)(struct comch_ep *ep, const void *hello, size_t len, int *err);
	/* One packet to the peer (any thread): 0, EAGAIN (full: again later) or an errno. A
	 * descriptor (@pass_fd >= 0) goes along where the carrier can pass one. */
	int (*send)(struct comch_chan *ch, uint32_t type, uint32_t arg, const void *payload,
	            size_t len, int pass_fd);
	/* One packet from the peer, as comch_wire_recv returns it (*@pfd: a descriptor, or -1). */
	ssize_t (*recv)(struct comch_chan *ch, void *buf, size_t cap, int *pfd);
	/* Optional. Refuses the peer (any thread): nothing more is read from it. */
	void (*shut)(struct comch_chan *ch);
	/*
	 * Closes both ways without waiting (not on its thread); none of the carrier's callbacks
	 * touches the connection once settle said 0.
	 */
	void (*hangup)(struct comch_chan *ch);
	/*
	 * Optional (NULL: a hang-up is done at once). The endpoint's progress, after a hang-up:
	 * 0 once what was sent before it went out (or its time ran out) and the channel is
	 * closed, else when to look again (its descriptor is rung sooner).
	 */
	uint64_t (*settle)(struct comch_chan *ch);
	void (*free)(struct comch_chan *ch);
	/* A server admits a HELLO: sets ch->link (@link_fd: what came with the HELLO) and the
	 * limits on what the client sends; false with *@why when it cannot. */
	bool (*admit)(struct comch_chan *ch, const struct comch_ep *ep, int link_fd,
	              const char **why);
	/* The new connection @conn owns @ch from now on (comch_conn_new); NULL: it let go
	 * (comch_conn_discard). */
	void (*bind)(struct comch_chan *ch, struct doca_comch_connection *conn);
	/* Optional. A connection's progress: before reading (true when the connection ended),
	 * and after (credits to report). */
	bool (*tick)(struct doca_comch_connection *conn);
	void (*credit)(struct doca_comch_connection *conn);
	/* Optional. The arm op: narrows what the PE watches (*@want); when the carrier is due. */
	uint64_t (*due)(const struct doca_comch_connection *conn, uint32_t *want);
	/* Fast path: the ring of the peer's consumer @g.consumer_id (from @fd, if it came with
	 * its CONS_NEW) and a doorbell of it (*@bell_fd, -1 none); NULL with *@why. */
	struct comch_ring *(*rcons_map)(struct doca_comch_connection *conn, int fd,
	                                const struct comch_ring_geom *g, int *bell_fd,
	                                const char **why);
	/* Optional. Fast path: a consumer of this side posted a buffer of @room bytes as @seq. */
	void (*post)(struct doca_comch_consumer *c, uint64_t seq, uint64_t room);
	/* Fast path: one producer send into the peer's consumer @r (completes @task on success). */
	doca_error_t (*produce)(struct doca_comch_producer *p, struct comch_rcons *r,
	                        struct doca_comch_producer_task_send *task, const struct iovec *iov,
	                        unsigned int niov, uint64_t total);
};
extern const struct comch_carrier comch_local_carrier, comch_net_carrier;
/* The carriers in the order a client tries them (endpoint.c); NULL-terminated. */
extern const struct comch_carrier *const comch_carriers[];

/* Tells a refused peer why, in a REJECT over @ch (best effort, never blocks). */
void comch_chan_reject(struct comch_chan *ch, doca_error_t code, const char *why);
/* Reads and drops up to @max packets waiting on @ch; whether a BYE was among them. */
bool comch_chan_drain(struct comch_chan *ch, int max);

/*
 * What a consumer and a producer share: their context on a connection of this side, on one of
 * the connection's lists (fastpath.c). Each embeds it as its fp, reached with container_of.
 */
struct comch_fp_ctx {
	struct doca_ctx ctx;
	struct doca_comch_connection *conn;
	struct comch_fp_list *list; /* conn->lcons or conn->lprod */
	struct comch_fp_ctx *next_on_conn;
	const char *kind; /* "consumer", "producer": for log lines */
	uint32_t id;
	bool expired;            /* the connection went away */
	int bell_fd;             /* doorbell eventfd */
	struct doca_pe *polling; /* its PE while it does the carrier's work (comch_fp_poll) */
};

/* A connection's consumers or producers of this side (under its lock). */
struct comch_fp_list {
	struct comch_fp_ctx *head;
	uint32_t n;
};

struct doca_comch_connection {
	struct comch_ep *ep;
	struct comch_chan *ch;              /* how its packets travel */
	struct doca_comch_connection *next; /* the server's list */
	int fd;                             /* ch->fd */
	int side;                           /* COMCH_SIDE_* of this process */
	atomic_int refs;                    /* the endpoint, its consumers, producers, sends */
	atomic_bool dead;                   /* closed for sending: nothing more goes over it */
	bool rx_done;   /* nothing more to read (end of stream, or closed here) */
	bool notified;  /* its end was handled (events, failed sends) */
	bool dropped;   /* doca_comch_server_disconnect: no disconnect event */
	bool announced; /* server: its connect event went out in the running progress call */
	bool settled;   /* its end handled and its channel closed (carrier's settle): reapable */
	uint64_t settle_at;      /* not settled yet: when to look again */
	bool orderly;            /* the peer said BYE */
	atomic_int end;          /* enum comch_end: why it closed */
	struct comch_link *link; /* ch->link */
	pid_t peer_pid;          /* SO_PEERCRED */
	uid_t peer_uid;
	uint32_t max_msg;     /* min of both sides */
	uint32_t peer_queue;  /* the peer's receive queue size */
	uint64_t accepted;    /* send tasks accepted (credit accounting) */
	uint64_t delivered;   /* messages delivered to this side's program */
	uint64_t cut_count;   /* messages counted for ODMA_FAULTS comch_drop_after */
	uint64_t counters[5]; /* indexed by enum doca_comch_counter */
	uint64_t snapshot[5];
	struct odma_task_list pending; /* accepted sends not yet written (socket full) */
	uint32_t watch; /* epoll events the endpoint's PE watches fd for (comch_ep_arm) */
	union doca_data user_data;
	/* ODMA_FAULTS comch_delay_us: one received message held until its due time */
	uint8_t *held;
	uint32_t held_len;
	uint64_t held_due_ns;
	/* comch_conn_close found the socket full: until when its BYE may wait (0: not closing) */
	uint64_t closing_until;
	/* shared with consumers/producers (other threads) */
	pthread_mutex_t lock;
	struct comch_outbox *outbox, *outbox_tail;
	atomic_uint outbox_n; /* packets in the outbox (read without the lock) */
	size_t outbox_bytes;  /* bytes in the outbox (<= COMCH_OUTBOX_MAX) */
	struct comch_lograte lograte;
	struct comch_rcons *rcons;
	uint32_t num_rcons;         /* consumers of the peer (<= comch_fp_max_endpoints) */
	struct comch_fp_list lcons; /* consumers of this side */
	struct comch_fp_list lprod; /* producers of this side */
	uint32_t next_id;           /* ids: client side odd, server side even, never 0 */
};

struct comch_ep;

/*
 * What differs between a server and a client where code they share meets it (their context
 * ops are their own: server_ops in server.c, client_ops in client.c).
 */
struct comch_side {
	const char *kind; /* "server", "client": for log lines */
	/* Whether @conn is a live connection of @ep. */
	bool (*owns)(const struct comch_ep *ep, const struct doca_comch_connection *conn);
	/* A connection's end was handled (comch_conn_finish): events, state. */
	void (*conn_ended)(struct comch_ep *ep, struct doca_comch_connection *conn, int end);
	/* Whether a consumer or producer still holds one of its connections. */
	bool (*fastpath_busy)(const struct comch_ep *ep);
	/* The representor PCI address naming the server socket. */
	const char *(*rep_pci)(const struct comch_ep *ep);
};
extern const struct comch_side comch_server_side, comch_client_side;

/* What a server and a client share: the context and the control path. */
struct comch_ep {
	struct doca_ctx ctx; /* first */
	const struct comch_side *side;
	char name[COMCH_NAME_MAX];
	struct doca_dev_rep *rep; /* server */
	uint32_t max_msg;
	uint32_t recv_queue;
	doca_comch_task_send_completion_cb_t send_ok, send_err;
	doca_comch_event_msg_recv_cb_t recv_cb;
	doca_comch_event_connection_status_changed_cb_t connect_cb, disconnect_cb;
	doca_comch_event_consumer_cb_t cons_new_cb, cons_gone_cb;
	struct doca_comch_event_msg_recv ev_msg;
	struct doca_comch_event_connection_status_changed ev_conn;
	struct doca_comch_event_consumer ev_cons;
	char path[108]; /* the server's socket */
	uint64_t system_id;
	const char *system_name;
	uint8_t *rx; /* receive buffer: header + max_msg */
	size_t rx_cap;
	uint8_t *arena; /* message copies, one slot of arena_slot bytes per task */
	size_t arena_slot;
	uint32_t arena_n;
	int dispatch; /* > 0 while program callbacks may run from our progress */
	struct odma_comch_faults faults;
	struct comch_peer_policy peers; /* ODMA_COMCH_ALLOW_UIDS, read at start */
	uint64_t rng;
	/* server */
	int lfd;
	bool lfd_watched;
	dev_t path_dev;
	ino_t path_ino;
	struct comch_hs *hs; /* accepted sockets waiting for HELLO */
	uint32_t num_hs;
	struct doca_comch_connection *conns;
	uint32_t num_live;
	/* server across machines (net.c) */
	struct comch_net *net_bell; /* its eventfd is rung when a HELLO is handed over */
	bool net_bell_watched;
	struct comch_net *net_hs; /* handshakes handed to this server (the listener's lock) */
	struct comch_ep *net_next;
	/* client */
	struct comch_chan *cch; /* connecting: awaits the server's answer */
	int link_fd;
	struct comch_link *link;
	uint64_t deadline_ns;
	uint64_t next_try_ns;
	uint32_t timeout_ms;
	int last_errno;
	struct doca_comch_connection *conn;
};

struct doca_comch_server {
	struct comch_ep ep;
};

struct doca_comch_client {
	struct comch_ep ep;
};

/* comch_ep_create allocates a server or a client as its endpoint alone; nothing may follow it. */
_Static_assert(sizeof(struct doca_comch_server) == sizeof(struct comch_ep), "a bare endpoint");
_Static_assert(sizeof(struct doca_comch_client) == sizeof(struct comch_ep), "a bare endpoint");

struct doca_comch_task_send {
	struct doca_task base;
	struct doca_comch_connection *conn;
	uint32_t len;
};

/* Registration of a consumer with the peer. */
enum comch_reg {
	COMCH_REG_NONE = 0,
	COMCH_REG_SENT,
	COMCH_REG_ACKED,
	COMCH_REG_REFUSED,
};

struct doca_comch_consumer {
	struct comch_fp_ctx fp; /* its doorbell's word is ring->bell */
	struct doca_mmap *mmap;
	uint32_t imm_len;
	doca_comch_consumer_task_post_recv_completion_cb_t ok_cb, err_cb;
	atomic_int reg; /* enum comch_reg; set by the connection's progress on ACK */
	struct comch_ring *ring;
	struct comch_ring_geom geom; /* private: never read from the ring */
	struct doca_comch_consumer_task_post_recv **slot_task; /* per slot */
	uint64_t *slot_room;                                   /* per slot: the room posted */
	uint64_t posted;                                       /* post_seq mirror */
	uint64_t done;                                         /* next slot to harvest */
	uint64_t claim_limit;       /* when closed: slots claimed before the ring closed */
	bool closed;                /* the ring no longer takes claims */
	uint64_t drain_deadline_ns; /* closed: give up on claimed slots after this */
};

struct doca_comch_consumer_task_post_recv {
	struct doca_task base;
	struct doca_buf *buf;
	uint32_t producer_id;
	uint32_t imm_len;
	uint8_t imm[ODMA_COMCH_IMM_DATA_LIMIT]; /* the received immediate data */
};

struct doca_comch_producer {
	struct comch_fp_ctx fp; /* its doorbell rings when the connection dies */
	_Atomic uint32_t bell;  /* the doorbell's word */
	doca_comch_producer_task_send_completion_cb_t ok_cb, err_cb;
};

struct doca_comch_producer_task_send {
	struct doca_task base;
	const struct doca_buf *buf;
	uint32_t consumer_id;
	uint32_t imm_len;
	uint8_t imm[ODMA_COMCH_IMM_DATA_LIMIT]; /* the profile's cap is at most this */
};

#define COMCH_MAX_IOV 64u /* data segments of one producer send */

/* ---- transport (transport.c) ----------------------------------------------------------- */

/* The server socket path for (system, representor PCI, name); false if it does not fit. */
bool comch_server_path(char *out, size_t n, uint64_t system_id, const char *rep_pci,
                       const char *name, const char **why);

/*
 * An anonymous shared-memory file of @size bytes, sealed against any change of size
 * (F_SEAL_SHRINK, F_SEAL_GROW, F_SEAL_SEAL), mapped read-write; NULL on failure.
 */
void *comch_shm_create(size_t size, int *fd_out, const char *what);

/*
 * Maps a shared-memory fd received from the peer (the link page of HELLO, a CONS_NEW ring):
 * only a memfd of ordinary memory (never hugetlbfs, whose pages a hole punch takes back) sealed
 * as comch_shm_create seals it, of exactly @size bytes, so the peer can never pull the pages
 * away under this process. NULL with *@why set otherwise.
 */
void *comch_shm_map(int fd, size_t size, const char **why);

/*
 * Text a peer sent (@n bytes at @p: a REJECT's reason) made fit for a log line in @out (@cap
 * bytes, NUL-terminated): at most @cap - 1 bytes, each control or non-ASCII byte a '?', so a
 * peer cannot end the line and forge the next one, nor send escape sequences to a terminal.
 */
void comch_peer_text(const void *p, size_t n, char *out, size_t cap);

/* The peer's pid and effective uid on a connected Unix socket (SO_PEERCRED). */
bool comch_peer_cred(int fd, pid_t *pid, uid_t *uid);

/* Reads ODMA_COMCH_ALLOW_UIDS; DOCA_ERROR_INVALID_VALUE after one log line when it is bad. */
doca_error_t comch_peer_policy_load(struct comch_peer_policy *p);

/* Whether a peer running as @uid may talk to this process: this user, root, or allowed. */
bool comch_peer_uid_ok(const struct comch_peer_policy *p, uid_t uid);

/*
 * Connect timeout (ODMA_COMCH_CONNECT_TIMEOUT_MS, 1 to 3600000, default
 * COMCH_DEFAULT_TIMEOUT_MS). DOCA_ERROR_INVALID_VALUE after one log line when it is bad.
 */
doca_error_t comch_connect_timeout_ms(uint32_t *ms);

/* xorshift draw in [lo, hi] for the delay fault. */
uint32_t comch_rand_range(uint64_t *state, uint32_t lo, uint32_t hi);

/* ---- connections (connection.c) -------------------------------------------------------- */

/* A connection over @ch (it owns @ch from here on, unless NULL is returned). */
struct doca_comch_connection *comch_conn_new(struct comch_ep *ep, struct comch_chan *ch, int side,
                                             uint32_t max_msg, uint32_t peer_queue);
/*
 * A connection made for a handshake that failed before it was announced: lets go of its
 * channel (the caller's again, to free) and frees the rest.
 */
void comch_conn_discard(struct doca_comch_connection *conn);
void comch_conn_get(struct doca_comch_connection *conn);
void comch_conn_put(struct doca_comch_connection *conn);

/* Whether @conn is a connection this endpoint handed out and that still exists. */
bool comch_ep_owns(const struct comch_ep *ep, const struct doca_comch_connection *conn);

/* Receives and dispatches what waits on the socket; flushes queued sends. */
bool comch_conn_pump(struct doca_comch_connection *conn);

/* Why a connection closed. */
enum comch_end {
	COMCH_END_NONE = 0,
	COMCH_END_PEER,     /* end of stream or a socket error: the peer closed, ended or crashed */
	COMCH_END_LOCAL,    /* this side stopped or dropped it */
	COMCH_END_FAULT,    /* ODMA_FAULTS comch_drop_after */
	COMCH_END_PROTOCOL, /* the peer broke the protocol */
};

/*
 * Closes the connection both ways (endpoint's thread); its progress handles the rest
 * (comch_conn_finish).
 */
void comch_conn_kill(struct doca_comch_connection *conn, enum comch_end end, const char *why);

/*
 * Refuses a peer that went past one of its limits (any thread): nothing more is sent to it or
 * read from it; one log line names @why. The endpoint's progress finishes the connection.
 */
void comch_conn_refuse(struct doca_comch_connection *conn, const char *why);

/* Handles a dead connection once: fails queued sends, raises events, expires the fast path. */
bool comch_conn_finish(struct doca_comch_connection *conn);

/*
 * Orderly local close: writes what it can, fails the rest with @status, says BYE. A socket
 * that takes not even the BYE now leaves the connection closing (closing_until):
 * comch_conn_closing, from the endpoint's progress, ends it once the BYE left.
 */
void comch_conn_close(struct doca_comch_connection *conn, doca_error_t status);
/* A closing connection's share of a progress call: whether it ended. */
bool comch_conn_closing(struct doca_comch_connection *conn);

/*
 * doca_comch_server_disconnect: closes @conn like comch_conn_close, with no disconnect event,
 * once what waits to leave and the BYE were taken; DOCA_ERROR_AGAIN, the connection as it
 * was, when the socket takes no more now.
 */
doca_error_t comch_conn_disconnect(struct doca_comch_connection *conn);

/* Sends a control packet now or queues it (thread-safe). false if the connection is dead. */
bool comch_conn_send_ctl(struct doca_comch_connection *conn, uint32_t type, uint32_t arg,
                         const void *payload, size_t len, int pass_fd);

/* Writes queued control packets (thread-safe; cheap when none is queued). */
void comch_conn_flush_ctl(struct doca_comch_connection *conn);

/* The send task op of servers and clients. */
doca_error_t comch_send_submit(struct doca_task *task);
void comch_send_complete(struct doca_task *task, bool success);
/* The task_free op: a send task lets go of its connection (comch_ep_send_alloc took it). */
void comch_send_free(struct doca_task *task);

/* ---- endpoints (endpoint.c) ------------------------------------------------------------ */

/* The message copy of a send task (inside the endpoint's arena). */
uint8_t *comch_task_msg(struct comch_ep *ep, const struct doca_comch_task_send *task);

/* The endpoint of a server's or client's context. */
static inline struct comch_ep *comch_ep_of(const struct doca_ctx *ctx)
{
	return odma_container_of(ctx, struct comch_ep, ctx);
}

/*
 * A Comch capability getter's answer: stores @value in *@out when @devinfo has Comch, or logs
 * for @func and returns the error.
 */
doca_error_t comch_cap(const struct doca_devinfo *devinfo, uint32_t *out, uint32_t value,
                       const char *func);
/* Defines the public capability getter @fn: comch_cap with @expr (of devinfo) as the value. */
#define COMCH_CAP_GETTER(fn, expr)                                                                 \
	doca_error_t fn(const struct doca_devinfo *devinfo, uint32_t *out)                         \
	{                                                                                          \
		return comch_cap(devinfo, out, devinfo != NULL ? (expr) : 0, __func__);            \
	}
/*
 * The allocation and setup shared by doca_comch_server_create and doca_comch_client_create:
 * a new endpoint in *@out (freed by comch_ep_destroy), or the error with *@out untouched.
 */
doca_error_t comch_ep_create(struct doca_dev *dev, const char *name, const struct comch_side *side,
                             const struct odma_ctx_ops *ops, struct comch_ep **out);
/* DOCA_ERROR_INVALID_VALUE (logged for @func) unless @name fits COMCH_NAME_MAX. */
doca_error_t comch_check_name(const char *name, const char *func);
/* DOCA_ERROR_BAD_STATE (logged, naming @what) unless the endpoint is idle. */
doca_error_t comch_ep_check_idle(const struct comch_ep *ep, const char *what);
doca_error_t comch_ep_set_max_msg(struct comch_ep *ep, uint32_t size);
doca_error_t comch_ep_set_recv_queue(struct comch_ep *ep, uint32_t size);
doca_error_t comch_ep_set_send_conf(struct comch_ep *ep, doca_comch_task_send_completion_cb_t ok,
                                    doca_comch_task_send_completion_cb_t err, uint32_t num);
doca_error_t comch_ep_send_alloc(struct comch_ep *ep, struct doca_comch_connection *peer,
                                 const void *msg, uint32_t len, struct doca_comch_task_send **task,
                                 const char *func);
/* Sets the receive callback of an idle endpoint; DOCA_ERROR_BAD_STATE (logged) otherwise. */
doca_error_t comch_ep_recv_register(struct comch_ep *ep, doca_comch_event_msg_recv_cb_t recv_cb);
doca_error_t comch_ep_consumer_register(struct comch_ep *ep, doca_comch_event_consumer_cb_t new_cb,
                                        doca_comch_event_consumer_cb_t gone_cb);
/* Destroys an idle endpoint (the destroy call named @func). */
doca_error_t comch_ep_destroy(struct comch_ep *ep, const char *func);
/*
 * Defines the calls servers and clients share, doca_comch_@role_*(struct doca_comch_@role *):
 * the message size and receive queue settings, get_device, as_ctx, the send task's set_conf
 * and alloc_init, and the receive and consumer callbacks; each checks its arguments, then
 * forwards to its endpoint (member ep).
 */
#define COMCH_EP_API(role)                                                                         \
	ODMA_SETTER(doca_comch_##role##_set_max_msg_size, struct doca_comch_##role, comch_##role,  \
	            uint32_t, size, comch_ep_set_max_msg(&comch_##role->ep, size))                 \
	ODMA_GETTER(doca_comch_##role##_get_max_msg_size, const struct doca_comch_##role,          \
	            comch_##role, uint32_t, size, comch_##role->ep.max_msg)                        \
	ODMA_SETTER(doca_comch_##role##_set_recv_queue_size, struct doca_comch_##role,             \
	            comch_##role, uint32_t, size,                                                  \
	            comch_ep_set_recv_queue(&comch_##role->ep, size))                              \
	ODMA_GETTER(doca_comch_##role##_get_recv_queue_size, const struct doca_comch_##role,       \
	            comch_##role, uint32_t, size, comch_##role->ep.recv_queue)                     \
	ODMA_GETTER(doca_comch_##role##_get_device, const struct doca_comch_##role, comch_##role,  \
	            struct doca_dev *, dev, comch_##role->ep.ctx.dev)                              \
	ODMA_CTX_AS_CTX(comch_##role, ep.ctx)                                                      \
	doca_error_t doca_comch_##role##_task_send_set_conf(                                       \
	        struct doca_comch_##role *comch_##role, doca_comch_task_send_completion_cb_t ok,   \
	        doca_comch_task_send_completion_cb_t err, uint32_t num_send_tasks)                 \
	{                                                                                          \
		ODMA_CHECK_ARG(comch_##role != NULL, "%s: comch_" #role " must not be NULL",       \
		               __func__);                                                          \
		return comch_ep_set_send_conf(&comch_##role->ep, ok, err, num_send_tasks);         \
	}                                                                                          \
	doca_error_t doca_comch_##role##_task_send_alloc_init(                                     \
	        struct doca_comch_##role *comch_##role, struct doca_comch_connection *peer,        \
	        const void *msg, uint32_t len, struct doca_comch_task_send **task)                 \
	{                                                                                          \
		ODMA_CHECK_ARG(comch_##role != NULL && peer != NULL && msg != NULL &&              \
		                       task != NULL,                                               \
		               "%s: NULL argument", __func__);                                     \
		return comch_ep_send_alloc(&comch_##role->ep, peer, msg, len, task, __func__);     \
	}                                                                                          \
	doca_error_t doca_comch_##role##_event_msg_recv_register(                                  \
	        struct doca_comch_##role *comch_##role, doca_comch_event_msg_recv_cb_t recv_cb)    \
	{                                                                                          \
		ODMA_CHECK_ARG(comch_##role != NULL && recv_cb != NULL, "%s: NULL argument",       \
		               __func__);                                                          \
		return comch_ep_recv_register(&comch_##role->ep, recv_cb);                         \
	}                                                                                          \
	doca_error_t doca_comch_##role##_event_consumer_register(                                  \
	        struct doca_comch_##role *comch_##role, doca_comch_event_consumer_cb_t new_cb,     \
	        doca_comch_event_consumer_cb_t expired_cb)                                         \
	{                                                                                          \
		ODMA_CHECK_ARG(comch_##role != NULL && new_cb != NULL && expired_cb != NULL,       \
		               "%s: both callbacks are required", __func__);                       \
		return comch_ep_consumer_register(&comch_##role->ep, new_cb, expired_cb);          \
	}
/* Start steps shared by servers and clients (faults, arena, receive buffer, socket path). */
doca_error_t comch_ep_start_common(struct comch_ep *ep);
/* Frees what a started endpoint owns once it is IDLE (not its connections: see destroy). */
void comch_ep_release_io(struct comch_ep *ep);
/* Frees the connections whose end was handled and that nothing else holds (@all: every one). */
void comch_ep_reap(struct comch_ep *ep, bool all);
/* One connection's share of a progress call: reads and dispatches, then handles its end. */
bool comch_ep_conn_step(struct comch_ep *ep, struct doca_comch_connection *c);
/* One connection's share of the arm op: what its PE watches, and when it is due. */
uint64_t comch_ep_arm_conn(struct comch_ep *ep, struct doca_comch_connection *c);
/* Makes the endpoint's PE watch @fd for input (once); sets *@watched. */
void comch_ep_watch(struct comch_ep *ep, int fd, bool *watched);
/* Stops the endpoint's PE watching @fd (before it is closed); clears *@watched. */
void comch_ep_unwatch(struct comch_ep *ep, int fd, bool *watched);
/* Frees a channel no connection owns, which the endpoint's PE may watch (unwatched first). */
void comch_ep_free_chan(struct comch_ep *ep, struct comch_chan *ch);
static inline uint64_t comch_min_ns(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Name of a side for log lines. */
static inline const char *comch_ep_kind(const struct comch_ep *ep)
{
	return ep->side->kind;
}

/* Who the peer of a connection is, for log lines: "pid N, uid U", or "at ODMA_FABRIC". */
struct comch_who {
	char s[40];
};
struct comch_who comch_conn_who(const struct doca_comch_connection *conn);

/* ---- across machines (net.c) ---------------------------------------------------------- */

/* Whether ODMA_FABRIC asks for Comch across machines. */
bool comch_net_wanted(void);
/* ODMA_FABRIC is unset or well formed (core/config's parser; a bad value: its one line). */
bool comch_net_fabric_ok(void);
/* ---- fast path (fastpath.c, consumer.c, producer.c) ------------------------------------ */

/* The peer created a consumer (CONS_NEW with its ring fd); takes ownership of @fd. */
void comch_fp_on_cons_new(struct doca_comch_connection *conn, uint32_t id, const void *payload,
                          size_t len, int fd);
/* The peer acknowledged (or refused) one of our consumers. */
void comch_fp_on_cons_ack(struct doca_comch_connection *conn, uint32_t id, bool ok);
/* The peer's consumer went away. */
void comch_fp_on_cons_gone(struct doca_comch_connection *conn, uint32_t id);
/* The connection ended: expires one remote consumer still live (false when none is left). */
bool comch_fp_expire_remote_one(struct doca_comch_connection *conn, uint32_t *id);
/* Rings the doorbells of this side's consumers and producers on @conn (it died, or acked). */
void comch_fp_ring_local(struct doca_comch_connection *conn);
/*
 * Claims the next posted slot of the peer's consumer @r for @need bytes and @imm immediate
 * bytes (logged per peer when it cannot).
 */
doca_error_t comch_fp_claim(struct doca_comch_producer *p, struct comch_rcons *r, uint64_t need,
                            uint32_t imm, struct comch_claimed *out);
/*
 * The task configuration shared by consumers and producers (the caller then stores its
 * callbacks): checks that the context of the @kind ("consumer", "producer") @id is IDLE and
 * that @num tasks fit the device, logging for @func.
 */
doca_error_t comch_fp_set_conf(struct doca_ctx *ctx, const char *kind, uint32_t id, uint32_t num,
                               const char *func);
/*
 * DOCA_SUCCESS when the buf @b of a task of @f (@what: "producer send") is in a started mmap
 * the Comch context's device was added to; else BAD_STATE or NOT_PERMITTED, logged.
 */
doca_error_t comch_fp_buf_registered(const struct comch_fp_ctx *f, const char *what,
                                     const void *task, const struct doca_buf *b);
/* Frees the remote consumer table (connection teardown). */
void comch_fp_free_remote(struct doca_comch_connection *conn);
/* Whether a connection can carry a new consumer or producer (logged for @func). */
doca_error_t comch_fp_conn_usable(struct doca_comch_connection *conn, const char *func);
/* An id for a new consumer or producer (under conn->lock): odd on the client, even on the
 * server. */
uint32_t comch_fp_next_id(struct doca_comch_connection *conn);
/* The peer's consumer @id (under conn->lock); NULL when it has none. */
struct comch_rcons *comch_fp_rcons_find(struct doca_comch_connection *conn, uint32_t id);
/* Unmaps and frees a remote consumer. */
void comch_fp_rcons_free(struct comch_rcons *r);
/*
 * The carrier's work moves to the progress of @pe from that of *@polling, which becomes @pe
 * (either may be NULL: none).
 */
void comch_poll_by(struct doca_pe **polling, struct doca_pe *pe);
/*
 * A consumer or producer @f starts (@on) or stops doing the carrier's work in its PE's
 * progress (carriers with pe_polls); f->polling: the PE counted, or NULL. Idempotent: each
 * stop, expiry and destroy may call it.
 */
void comch_fp_poll(struct comch_fp_ctx *f, bool on);
/*
 * The setup shared by doca_comch_consumer_create and doca_comch_producer_create (@func): @f's
 * context with @ops, a doorbell, an id and a place on @list of @conn, unless @list is full.
 */
doca_error_t comch_fp_ctx_init(struct comch_fp_ctx *f, struct doca_comch_connection *conn,
                               struct comch_fp_list *list, const struct odma_ctx_ops *ops,
                               const char *kind, const char *func);
/* A destroy's first step: @f's context goes (or the error, and @f stays as it was). */
doca_error_t comch_fp_ctx_destroy(struct comch_fp_ctx *f);
/* A destroy's last step: @f leaves its connection (its memory stays). */
void comch_fp_ctx_leave(struct comch_fp_ctx *f);

#endif /* ODMA_COMCH_H_ */
