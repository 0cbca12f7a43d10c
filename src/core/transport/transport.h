/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The transport module's face: everything that crosses from one process to another.
 *
 * A *transport* reaches the memory, and carries the messages, of another process: the
 * process transport (CMA, process_vm_readv/writev: both sides share a kernel and a PID
 * namespace) and the UCX transport (TCP between namespaces or machines; RDMA where a NIC
 * exists). The module owns:
 *
 *  - what an export descriptor carries for an importer (struct odma_tp_reach), and how an
 *    importer decides which transport reaches the exporter (odma_tp_choose);
 *  - exporter-side records of what was exported (struct odma_tp_region): the authority that
 *    every remote access is checked against (range, permission, revocation), whatever the
 *    importer sends;
 *  - importer-side attachments of a remote region (struct odma_tp_remote): liveness, and
 *    ASYNCHRONOUS get/put of byte ranges (struct odma_tp_io) whose completion is a callback
 *    on a transport thread (a network transfer cannot be a synchronous copy);
 *  - connection-oriented endpoints to a peer address (listen/connect, as RDMA CM gives),
 *    messages with an immediate value, and get/put against a peer's registered regions
 *    over such an endpoint (what DOCA RDMA and Comch across machines need).
 *
 * Layering: core/transport sits below core/memory (memory.h includes this face) and above
 * core/config and core/log. It knows nothing of mmaps, bufs, tasks or engines.
 *
 * Adding a transport: one file in this folder defining a `const struct odma_tp_ops` (its
 * reachable() says which exporters it reaches), and one line in ODMA_TP_ROWS (tp_int.h).
 *
 * Object diagram and call order
 *
 *   exporter                                  importer
 *   --------                                  --------
 *   odma_tp_region_add(addr,len,perms)  ->    (descriptor bytes travel out of band)
 *     region id, key, generation              odma_tp_choose(reach) -> transport
 *   odma_tp_reach_self(&reach)                odma_tp_attach(transport, reach, region)
 *     (packed into the descriptor)              -> struct odma_tp_remote
 *                                             odma_tp_io_start(remote, io)  (any thread)
 *   served by the transport's own thread        ... io->done(io, status) later
 *   (the application calls nothing)           odma_tp_detach(remote)
 *   odma_tp_region_revoke(region)
 *     -> later accesses fail at the exporter
 *
 *   endpoints (RDMA, Comch across machines):
 *   odma_tp_listen(addr:port, on_accept) | odma_tp_connect(addr:port) -> struct odma_tp_ep
 *   odma_tp_ep_send[v](ep, bytes, imm, done); on_recv(ep, bytes, imm) on the transport thread
 *     (ordered; bounded by the receiver's credit: odma_tp_ep_release, ODMA_TP_EP_WINDOW)
 *   odma_tp_ep_attach(ep, region id, key) -> struct odma_tp_remote, then odma_tp_io_start
 *   odma_tp_ep_close(ep): every io and send in flight completes with IO_FAILED first
 *
 * Threading: every function here may be called from any thread unless it says otherwise;
 * completion callbacks (io->done, send done, on_recv, on_accept, on_close) run on a transport
 * thread (UCX: its service thread; process: the calling thread, before io_start returns),
 * must not block and must not call odma_tp_* functions that wait (detach, close, revoke).
 *
 * Failures: every io started completes exactly once. A peer that died, a link that went
 * down or a peer that stopped answering completes every io in flight with
 * DOCA_ERROR_IO_FAILED within odma_tp_timeout_ms() (ODMA_TRANSPORT_TIMEOUT_MS), never
 * later; a put that did not fully land is never reported done.
 */
#ifndef ODMA_CORE_TRANSPORT_H_
#define ODMA_CORE_TRANSPORT_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <doca_compat.h>
#include <doca_error.h>

/*
 * Row ids (struct odma_tp_ops.kind): the values of ODMA_TRANSPORT after "auto", and what
 * core/memory picks a mover by. The table's order, not this, is the order of preference.
 */
enum odma_tp_kind {
	ODMA_TP_PROCESS = 0, /* CMA: one kernel, one PID namespace */
	ODMA_TP_UCX = 1,     /* UCX: TCP between namespaces or machines; RDMA where it exists */
};

/* Access rights of a region, checked by the exporter on every request. */
enum odma_tp_perm {
	ODMA_TP_READ = 1u << 0,  /* a peer may get bytes */
	ODMA_TP_WRITE = 1u << 1, /* a peer may put bytes */
	/*
	 * A peer may apply an atomic to an aligned u64 (odma_tp_region_atomic). Granted to
	 * library-owned memory that stays mapped until the region is revoked (sync events), and
	 * to the program's memory of an RDMA grant with RDMA_ATOMIC, on which the exporter applies
	 * it under the fault guard (a word unmapped or read-only fails the atomic).
	 */
	ODMA_TP_ATOMIC = 1u << 2,
};

/* What an io does (struct odma_tp_io.atomic): bytes, or one atomic on an aligned u64. */
enum odma_tp_atomic_op {
	ODMA_TP_IO_BYTES = 0, /* get/put of len bytes (io->write picks the direction) */
	ODMA_TP_AT_READ = 1,  /* *local = the u64 (needs ODMA_TP_ATOMIC, as the others) */
	ODMA_TP_AT_FADD = 2,  /* *local = old; u64 += operand (needs ODMA_TP_ATOMIC) */
	ODMA_TP_AT_SWAP = 3,  /* *local = old; u64 = operand (needs ODMA_TP_ATOMIC) */
	ODMA_TP_AT_CAS = 4,   /* *local = old; u64 = operand if it was compare (ODMA_TP_ATOMIC) */
	/*
	 * *local = the u64 once it differs from @operand (the value the importer saw last), or
	 * after at most @compare milliseconds (at most ODMA_TP_WATCH_MAX_MS), whichever comes
	 * first: the exporter holds the request meanwhile and answers it at once on a change it
	 * makes or applies (odma_tp_watch_kick). Needs ODMA_TP_ATOMIC, as a read.
	 */
	ODMA_TP_AT_WATCH = 5,
};

/* The longest an exporter holds a watch (ODMA_TP_AT_WATCH) before it answers it anyway. */
#define ODMA_TP_WATCH_MAX_MS 60000u

/* Largest transport address a descriptor carries (a UCX TCP worker address is ~121 bytes). */
#define ODMA_TP_ADDR_MAX 512

/*
 * What an importer needs to reach an exporter, packed into the export descriptor by
 * core/memory (export_desc.c) and decoded from it. Untrusted on the importer side: the
 * exporter validates every request against its region records.
 */
struct odma_tp_reach {
	uint64_t pidns;       /* inode of the exporter's PID namespace (/proc/self/ns/pid) */
	uint8_t boot_id[16];  /* /proc/sys/kernel/random/boot_id of the exporter's kernel */
	uint32_t pid;         /* exporter pid, in its own PID namespace */
	uint64_t start_time;  /* /proc/<pid>/stat field 22: a reused pid is detected */
	uint64_t addr, len;   /* the exported range, in the exporter's address space */
	uint32_t perms;       /* enum odma_tp_perm */
	uint64_t record_addr; /* the region record's address in the exporter (process) */
	uint32_t region_id;   /* the region record's id in the exporter (UCX server) */
	uint8_t key[16];      /* random key of the region; a request must present it */
	uint32_t generation;  /* of the region record when it was exported */
	uint16_t net_len;     /* bytes of addr used; 0: the exporter offers no network reach */
	uint8_t net_addr[ODMA_TP_ADDR_MAX]; /* UCX worker address of the exporter */
};

/*
 * The grant a region record was issued for: each record carries the rights of exactly one
 * grant, and each server serves only the grants it names (the check refuses the others).
 */
enum odma_tp_grant {
	/* a PCI export, or a sync event's value exported to another process: the transports */
	ODMA_TP_GRANT_PCI = 0,
	/*
	 * An RDMA export: READ and WRITE (RDMA_READ, RDMA_WRITE) are served by the transports
	 * and by DOCA RDMA's service; ATOMIC (RDMA_ATOMIC, on program memory) by DOCA RDMA's
	 * fault-guarded path only. A re-export (@forward set) by DOCA RDMA only.
	 */
	ODMA_TP_GRANT_RDMA = 1,
	/* a sync event exported to the network: READ gets, WRITE sets, ATOMIC adds (its own) */
	ODMA_TP_GRANT_SE_NET = 2,
};

/* The part of a region record the process transport reads before every move. */
struct odma_tp_region_hdr {
	uint64_t magic; /* ODMA_TP_REGION_MAGIC while the record is in use */
	uint8_t key[16];
	uint32_t alive;      /* 1 while the export stands; 0 once revoked (seq_cst) */
	uint32_t generation; /* 1 for a new record, +1 each time it is reused */
};
#define ODMA_TP_REGION_MAGIC 0x4f444d415245434fULL /* "ODMARECO" */

/* The in-flight words of the records (tp_gate.c): one cache line each, at most this many. */
#define ODMA_TP_GATE_SLOT 64u
#define ODMA_TP_GATE_MAX (1u << 18)
#define ODMA_TP_GATE_NONE UINT32_MAX

/* Largest descriptor a region keeps a copy of (the importer must present exactly it). */
#define ODMA_TP_ISSUED_MAX 768

/*
 * The exporter-side record of one exported region, in the exporter's own memory: the
 * authority for every remote access, whichever library issued it (PCI and RDMA exports,
 * re-exports, sync events). The process transport's importers read it with
 * process_vm_readv (its address is the descriptor's record address); the UCX server
 * looks it up by @id, DOCA RDMA's service by its address (odma_tp_region_enter).
 */
struct odma_tp_region {
	struct odma_tp_region_hdr hdr;
	uint64_t addr; /* exported range */
	uint64_t len;
	uint32_t perms;      /* enum odma_tp_perm, as the grant gives them */
	uint32_t id;         /* index + 1 in the exporter's registry (never reused for another) */
	uint32_t issued_len; /* bytes of issued */
	uint32_t grant;      /* enum odma_tp_grant; set between _add and _publish (default PCI) */
	uint8_t issued[ODMA_TP_ISSUED_MAX]; /* the descriptor handed out for this region */
	/* Optional (set between _add and _publish): the object that exported it. */
	void *owner;
	/*
	 * Optional (set between _add and _publish): a re-export of an imported region, whose
	 * addresses are the original exporter's: its requests are forwarded through this
	 * attachment (by the owner's server, never on a transport thread). It lives until the
	 * record is revoked; @perms are at most the attachment's.
	 */
	struct odma_tp_remote *forward;
	uint32_t users; /* holders (odma_tp_region_enter); a revocation waits for none (lock) */
	/*
	 * The record's in-flight word (tp_gate.c): slot @gate_slot of the memfd that is
	 * descriptor @gate_fd of the exporter, which process-transport importers map and raise
	 * around each move; a revocation waits for it to drain. ODMA_TP_GATE_NONE: none yet.
	 */
	int32_t gate_fd;
	uint32_t gate_slot;
	/*
	 * Optional (set between odma_tp_region_add and _publish): called after a remote atomic
	 * changed the region (FADD, SWAP), on the serving thread, under the registry lock (it
	 * must not call odma_tp_region_*): sync events wake their local waiters with it.
	 */
	void (*on_update)(void *arg);
	void *update_arg;
};

/*
 * The importer's attachment to one remote region. The generic part is filled by
 * odma_tp_attach; a transport keeps its own state behind @priv.
 */
struct odma_tp_remote {
	const struct odma_tp_ops *ops;
	uint32_t pid;         /* exporter (process transport) */
	uint32_t perms;       /* enum odma_tp_perm granted by the export */
	uint64_t addr, len;   /* the exporter's range */
	uint64_t record_addr; /* exporter's region record (process transport) */
	uint32_t region_id;   /* exporter's region id (UCX) */
	uint8_t key[16];
	uint32_t generation;
	atomic_bool failed; /* a failure was logged: later ones stay quiet */
	/*
	 * Set by the transport once it knows that no io through this attachment can succeed
	 * again: the exporter exited or its connection failed, or it revoked the region (a
	 * refusal that names no range or right). A timeout never sets it. Never cleared.
	 */
	atomic_bool gone;
	void *priv; /* the transport's */
};

struct iovec;
struct odma_tp_io;
/* Completion of one io: any transport thread, exactly once per started io. */
typedef void odma_tp_io_done_fn(struct odma_tp_io *io, doca_error_t status);

/*
 * One asynchronous transfer: @len bytes between local memory @local and the exporter's
 * address @remote_addr (inside the attached region). Owned by the caller until done runs.
 */
struct odma_tp_io {
	struct odma_tp_remote *remote;
	bool write; /* put (local -> remote) when true, get otherwise */
	void *local;
	uint64_t remote_addr;
	uint64_t len;
	/*
	 * enum odma_tp_atomic_op: 0 for bytes; else one atomic on the aligned u64 at
	 * @remote_addr (@len 8, @local a uint64_t that receives the value read or the old
	 * value, @operand the addend or the new value, @compare what CAS expects; a watch's: the
	 * value seen, the longest wait in ms). A transport
	 * that cannot apply it atomically at the exporter refuses it (io_start:
	 * DOCA_ERROR_NOT_SUPPORTED).
	 */
	uint8_t atomic;
	uint64_t operand;
	uint64_t compare;
	/*
	 * Set by the transport before done reports the failure of an atomic io that the
	 * exporter answered (it refused it, or its word was not mapped): it was not applied. A
	 * failed atomic without it may have been (the answer was lost): it must not be sent
	 * again.
	 */
	bool refused;
	/* Set by the transport before done reports an io that odma_tp_io_cancel ended. */
	bool cancelled;
	/*
	 * Who started it, for odma_tp_io_cancel (a context's run, unique in the process), or 0:
	 * no one cancels it.
	 */
	uint64_t owner;
	odma_tp_io_done_fn *done;
	void *arg;               /* the caller's */
	struct odma_tp_io *next; /* the transport's queue, while in flight */
};

/* A connection to one peer (RDMA, Comch across machines). */
struct odma_tp_ep;

/*
 * The carrier's credit: what one peer may have sent over an endpoint that the receiver has not
 * given back (each message costs its length plus ODMA_TP_MSG_COST). A sender never goes past
 * it: a send that does not fit waits, in order behind the earlier ones, for the receiver's
 * report (sends never block and never fail for it). One message larger than the window goes
 * when the receiver has given back everything before it. A peer that sends past it has its
 * endpoint closed (on_close: DOCA_ERROR_NOT_PERMITTED) with one log line: what a peer makes
 * the receiver hold is bounded by the window and the largest message the receiver takes
 * (each library refuses, on arrival, a message longer than its own limit).
 */
#define ODMA_TP_EP_WINDOW (16u << 20)
#define ODMA_TP_MSG_COST 64u

/* Endpoint callbacks, on a transport thread. */
struct odma_tp_ep_cbs {
	/*
	 * A message arrived: @bytes valid only during the call; @imm its immediate value.
	 * Returns false when the receiver is done with it (its credit goes back at once), true
	 * when the receiver keeps it (a copy queued for a reader): the receiver then gives its
	 * credit back with odma_tp_ep_release(ep, len) once it has taken it, before it closes
	 * the endpoint.
	 */
	bool (*on_recv)(struct odma_tp_ep *ep, const void *bytes, size_t len, uint32_t imm,
	                void *arg);
	/* The connection is gone (peer closed, died, link down, timeout); no call after it. */
	void (*on_close)(struct odma_tp_ep *ep, doca_error_t why, void *arg);
	void *arg;
	/*
	 * Optional: given, the endpoint's sends are bounded (ODMA_TP_EP_SEND_MAX), and this runs
	 * (on a transport thread, at most once per refusal) when a send completed after one was
	 * refused with DOCA_ERROR_AGAIN or odma_tp_ep_room said no: room may be back. Without it
	 * sends queue behind the credit without bound (DOCA RDMA paces its own: rw_pace).
	 */
	void (*on_room)(struct odma_tp_ep *ep, void *arg);
	/*
	 * Optional: whether a message of @len bytes with immediate @imm may be received, asked
	 * (on a transport thread, TCP link) before the transport keeps its bytes when it is longer
	 * than a connection's receive buffer (256 KiB); @head holds its first @plen bytes (64, or
	 * all when shorter). False closes the endpoint. Without it such a message is taken up to
	 * the link's own limit (1 GiB, and 2 GiB for all connections together).
	 */
	bool (*admit)(struct odma_tp_ep *ep, uint32_t imm, const void *head, size_t plen,
	              size_t len, void *arg);
};

/*
 * What the sends of an endpoint with on_room may hold, not yet reported sent: the credit
 * window and 256 KiB behind it, each send counted as its length plus ODMA_TP_SEND_COST (the
 * transport's record of it and the allocator's share, rounded up). The first send always fits.
 * (A peer that never gives credit back otherwise makes its sender queue without bound what the
 * sender's own peer-driven answers produce: 316 MB in 233,000 Comch answers.)
 */
#define ODMA_TP_EP_SEND_MAX ((uint64_t)ODMA_TP_EP_WINDOW + (256u << 10))
#define ODMA_TP_SEND_COST 512u

/* Completion of one send (exactly once: DOCA_SUCCESS or DOCA_ERROR_IO_FAILED). */
typedef void odma_tp_send_done_fn(void *arg, doca_error_t status);

/* A listener's accept callback: keep @ep (set its callbacks) or close it. */
typedef void odma_tp_accept_fn(struct odma_tp_ep *ep, void *arg);

/*
 * A listener's admission check, before any endpoint exists (optional): false refuses the peer
 * at the transport's own level (UCX: ucp_listener_reject), which costs nothing and needs no
 * close. On the transport thread, with the accept callback's @arg.
 */
typedef bool odma_tp_admit_fn(void *arg);

/*
 * One transport: one row of the transport table (tp_int.h, ODMA_TP_ROWS). Required members are
 * marked; an optional member left NULL means the transport lacks the feature (the wrappers
 * below return DOCA_ERROR_NOT_SUPPORTED). Generic code asks a row; it never names one.
 *
 * A row may live in a module loaded on first need (@load): the row in the table then holds
 * what needs no module (name, kind, network, status, reachable, load) and @load returns the
 * full ops, whose other members serve every attachment and endpoint made through them.
 */
struct odma_tp_ops {
	const char *name;       /* "process", "ucx": what ODMA_TRANSPORT and doca_caps name it */
	enum odma_tp_kind kind; /* its id (ODMA_TRANSPORT's choice), named in core/transport only */
	/*
	 * Reaches other kernels: its reach_self puts a network address in a descriptor (only
	 * when odma_tp_net_wanted) and it carries endpoints (listen/connect).
	 */
	bool network;
	/*
	 * This process reaches the exporter's memory itself, in one kernel (CMA): no code of the
	 * exporter checks its accesses, so an importer checks that a descriptor is live before it
	 * attaches, and a sync event is served on the exporter's shared page, not by requests.
	 */
	bool same_kernel;

	/*
	 * Required: whether this row reaches the exporter that @r describes from this process
	 * (asked in table order by odma_tp_choose). false with *@why set to a sentence saying
	 * why not and what would fix it. May load the row's module; never starts a transport.
	 */
	bool (*reachable)(const struct odma_tp_reach *r, const char **why);

	/* Optional: one line for doca_caps, without starting anything ("built in (...)"). */
	const char *(*status)(void);

	/*
	 * Optional: the row's module is loaded on first need. Returns the full ops (their own
	 * load NULL), the same every call, or NULL with *@why set when the module is missing.
	 * Called from any thread; loads once.
	 */
	const struct odma_tp_ops *(*load)(const char **why);

	/*
	 * Optional: whether the transport can run in this process (library present, worker
	 * created). false with *@why set otherwise (doca_caps reports it).
	 */
	bool (*available)(const char **why);

	/* Required: fills the parts of @r this transport provides for an importer. */
	doca_error_t (*reach_self)(struct odma_tp_reach *r);

	/* Optional: the exporter added a region (a transport serving it remotely). */
	void (*region_added)(struct odma_tp_region *reg);
	/*
	 * Optional, with watches (ODMA_TP_AT_WATCH) to serve: a value an importer may watch
	 * changed in this process; the watches held are checked again (any thread, never
	 * blocks, may run under the registry lock).
	 */
	void (*watch_kick)(void);

	/*
	 * Required: attaches to a remote region described by @r: checks the exporter knows it
	 * (alive, same key and generation), fills @rm, and copies the descriptor the exporter
	 * issued for it into @issued (ODMA_TP_ISSUED_MAX bytes; *@issued_len its length) so the
	 * caller can insist on byte equality. NOT_PERMITTED (the kernel or the
	 * peer refused), INVALID_VALUE (no such region, revoked, stale), IO_FAILED
	 * (unreachable: one log line naming the address, error and fix).
	 */
	doca_error_t (*attach)(const struct odma_tp_reach *r, struct odma_tp_remote *rm,
	                       uint8_t *issued, size_t *issued_len);
	/* Required: drops the attachment; ios in flight complete first (may wait). */
	void (*detach)(struct odma_tp_remote *rm);

	/*
	 * Required: starts @io (its remote range lies in the attached region: the caller
	 * checked; the exporter checks again). Never blocks. DOCA_SUCCESS: io->done runs
	 * exactly once later (or before the return, on the calling thread, for a synchronous
	 * transport). An error: the io was not started and done will not run.
	 */
	doca_error_t (*io_start)(struct odma_tp_io *io);
	/*
	 * Optional, an asynchronous row's: ends every io of @owner (odma_tp_io.owner, never 0)
	 * still in flight, soon and without waiting for its peer: each one's done runs exactly
	 * once as usual, with DOCA_ERROR_IO_FAILED and io->cancelled set, and a reply that comes
	 * later is dropped. A write's bytes may have landed already, and an atomic may have been
	 * applied. Any thread; never blocks.
	 */
	void (*io_cancel)(uint64_t owner);

	/*
	 * Optional, a synchronous row's (core/memory moves the imports of a row that has it with
	 * core/copy's batching mover, which uses it, not io_start, for every byte it moves; those
	 * of a row without it with the asynchronous network mover, on io_start): one move
	 * between local memory and the exporter of @rm, @nl local iovecs and @nr remote ones
	 * (@write: local -> remote), in the calling thread, as one system call would do it. The
	 * remote iovecs lie in the attached region or are the exporter's region record
	 * (rm->record_addr: its header read first checks the export in the same call). Returns the
	 * bytes moved, which may stop short of all of them at a range that cannot be reached, or -1
	 * with errno set (EINTR: call again).
	 */
	ssize_t (*iov_move)(const struct odma_tp_remote *rm, bool write, const struct iovec *l,
	                    unsigned long nl, const struct iovec *r, unsigned long nr);
	/*
	 * Optional with iov_move: the moves between iov_enter and iov_leave (the record's check
	 * first) are waited for by the exporter's revocation, as a device's DMA in flight is at
	 * deregistration. Never block; a hold is short (one batch of moves).
	 */
	void (*iov_enter)(const struct odma_tp_remote *rm);
	void (*iov_leave)(const struct odma_tp_remote *rm);
	/*
	 * Required with iov_move: logs why a move with @rm failed (@err: the errno, 0 for a
	 * revoked export), once per attachment, naming the cause and the fix. Returns
	 * DOCA_ERROR_IO_FAILED.
	 */
	doca_error_t (*io_fail)(const struct odma_tp_remote *rm, int err);

	/*
	 * Optional (odma_tp_poll): the calling thread does the transport's pending work now,
	 * unless another thread does; poll_end: that thread stops (it goes to sleep).
	 */
	void (*poll)(void);
	void (*poll_end)(void);

	/*
	 * Optional endpoints (see the diagram), on a network row. Every endpoint a row makes
	 * begins with a struct odma_tp_ep_head naming the ops that serve it.
	 */
	doca_error_t (*listen)(const char *addr, uint16_t *port, odma_tp_accept_fn *on_accept,
	                       odma_tp_admit_fn *admit, void *arg, void **listener);
	void (*listen_close)(void *listener);
	doca_error_t (*connect)(const char *addr, uint16_t port, const struct odma_tp_ep_cbs *cbs,
	                        struct odma_tp_ep **ep);
	void (*ep_set_cbs)(struct odma_tp_ep *ep, const struct odma_tp_ep_cbs *cbs);
	/* one message of the @niov (1 to ODMA_TP_SENDV_MAX) pieces at @iov, in order */
	doca_error_t (*ep_send)(struct odma_tp_ep *ep, const struct iovec *iov, unsigned int niov,
	                        uint32_t imm, odma_tp_send_done_fn *done, void *arg);
	doca_error_t (*ep_attach)(struct odma_tp_ep *ep, const struct odma_tp_reach *r,
	                          struct odma_tp_remote *rm);
	void (*ep_close)(struct odma_tp_ep *ep);
	/* Required with endpoints: gives back the credit of a kept message (any thread). */
	void (*ep_release)(struct odma_tp_ep *ep, size_t len);
	/*
	 * odma_tp_ep_room (any thread); a row without it (a test row) bounds no endpoint's sends.
	 */
	bool (*ep_room)(struct odma_tp_ep *ep, size_t len);
};

/* The first member of every transport's struct odma_tp_ep: the ops of the row that made it. */
struct odma_tp_ep_head {
	const struct odma_tp_ops *ops;
};

/*
 * Inline progress of the asynchronous transports: a thread that waits for ios of its own
 * (a PE's, inside doca_pe_progress, while network copies or DOCA RDMA tasks of it are in
 * flight) does their work itself: posts the queued requests, takes the replies, serves
 * requests to this process' exports, runs endpoint and listener callbacks, fails expired
 * requests. A thread polling this way spares the service thread a wake-up per request (on a
 * busy or small machine, the wake-ups and the hand-off between threads are what a small
 * transfer costs). The caller holds no lock a callback may take. Never blocks: returns at
 * once when another thread does the work. odma_tp_poll_end: the polling thread is going to
 * sleep (the PE was armed): the service thread takes over at once.
 */
void odma_tp_poll(void);
void odma_tp_poll_end(void);

/*
 * The exporter changed a value that importers may watch (a sync event's, exported over the
 * network): the loaded rows answer the watches it ends (ODMA_TP_AT_WATCH). Any thread; never
 * blocks; cheap when nothing is watched.
 */
void odma_tp_watch_kick(void);

/*
 * Doorbell writes held for the end of a transport round. The thread that drives a transport
 * holds them while its peers' callbacks run (odma_tp_wake_hold(true)), sends what those
 * callbacks queued (the answers to a window of RDMA sends), then writes them
 * (odma_tp_wake_hold(false)): the PE a completion wakes finds its peer already answered and
 * takes no CPU from the thread that still had to answer (on 2 vCPUs it did: RDMA 4 KiB sends
 * 0.5 -> 0.7 x raw UCX messages). odma_tp_wake_flush writes the held ones at once: before the
 * transport's thread runs a job that may end a life (a close, a detach), so no held write
 * outlives its descriptor. odma_tp_wake_later(fd), for a ringer (core/exec's doorbells):
 * whether this thread holds writes (a copy of @fd is then written at the flush, so a number
 * its owner closes meanwhile is safe; 16 at most are held, a 17th is the caller's to write
 * at once).
 */
void odma_tp_wake_hold(bool on);
void odma_tp_wake_flush(void);
bool odma_tp_wake_later(int fd);

/* ---- selection and configuration ---- */

/*
 * The row named @name ("process", "ucx"), with its module loaded; NULL when no row has the
 * name or its module is missing.
 */
const struct odma_tp_ops *odma_tp_find(const char *name);

/*
 * Which transport reaches the exporter described by @r from this process: the first row of
 * the table, in its order of preference, whose reachable() says yes (the process transport
 * when both share a kernel and a PID namespace, else UCX when the descriptor carries a
 * network address); ODMA_TRANSPORT=NAME asks only the row of that name. NULL with *@why set
 * when none can (the caller logs it, with the fix). The answer is the row's loaded ops.
 */
const struct odma_tp_ops *odma_tp_choose(const struct odma_tp_reach *r, const char **why);

/*
 * Whether exports of this process offer a network reach: ODMA_FABRIC is set, or
 * ODMA_TRANSPORT names a network row. Unset both: the one-kernel behaviour (version-2
 * descriptors).
 */
bool odma_tp_net_wanted(void);

/*
 * NULL when a network transport (UCX) is built in and usable here; otherwise why not
 * (doca_caps prints it).
 */
const char *odma_tp_net_absent(void);

/*
 * For doca_caps (exported to the tools as doca_priv_*): the name of row @i of the table and
 * a one-line status without starting anything: "built in (UCX 1.13.1)", or why it is
 * absent. NULL past the last row.
 */
DOCA_STABLE const char *doca_priv_transport_info(unsigned int i, const char **status);

/*
 * For tests only (a fault-injecting row wrapping another): puts @row first in the table, so
 * odma_tp_choose asks it before the others; odma_tp_row_remove takes it out again. Not
 * thread-safe: call while no transport is in use.
 */
void odma_tp_row_insert(const struct odma_tp_ops *row);
void odma_tp_row_remove(const struct odma_tp_ops *row);

/*
 * Checks ODMA_TRANSPORT (auto, process, ucx) and ODMA_TRANSPORT_TIMEOUT_MS (1 to 3600000):
 * DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE after one log line naming the variable (the
 * export or import that reads them then fails).
 */
doca_error_t odma_tp_config_check(void);

/* ODMA_TRANSPORT_TIMEOUT_MS (default 5000): the bound on every remote operation. */
uint32_t odma_tp_timeout_ms(void);

/* This process' kernel and PID namespace (what decides whether CMA reaches a peer). */
struct odma_tp_ident {
	uint64_t pidns;      /* inode of /proc/self/ns/pid */
	uint8_t boot_id[16]; /* /proc/sys/kernel/random/boot_id */
};
void odma_tp_identity(struct odma_tp_ident *id);
DOCA_STABLE void doca_priv_tp_identity(struct odma_tp_ident *id);

/* ---- exporter side ---- */

/*
 * Fills @r with this process' identity (pidns, boot id, pid, start time) and what every
 * available transport needs to reach it (UCX: its worker address, starting the UCX service
 * thread on first use). DOCA_SUCCESS, or DOCA_ERROR_NO_MEMORY / DOCA_ERROR_IO_FAILED.
 * A missing network transport is not an error: net_len stays 0 and is logged once.
 */
doca_error_t odma_tp_reach_self(struct odma_tp_reach *r);

/*
 * A record for the range [addr, addr + len) with @perms, a fresh random key and the next
 * generation, registered with every transport that serves remote requests. Records are
 * never returned to malloc (a reader may look at one any time): they are reused.
 * NULL when out of memory, when getrandom failed or when its in-flight word (tp_gate.c)
 * cannot be had.
 */
struct odma_tp_region *odma_tp_region_add(uint64_t addr, uint64_t len, uint32_t perms);

/*
 * The live record of @owner for @grant (set before it was published), or NULL. For the
 * owner itself: the record stays valid until the owner revokes it.
 */
struct odma_tp_region *odma_tp_region_find(const void *owner, enum odma_tp_grant grant);

/* Publishes @reg (alive 1) with the descriptor issued for it (copied, <= ISSUED_MAX). */
void odma_tp_region_publish(struct odma_tp_region *reg, const void *issued, size_t len);

/*
 * Revokes @reg: alive 0, key wiped; later requests of every importer fail at the exporter.
 * Requests already being served finish; it returns once no holder of odma_tp_region_enter
 * remains and the record's in-flight word drained (the process transport's importers between
 * their record check and the end of their move; bounded by odma_tp_timeout_ms(), logged):
 * nothing it let in touches the region afterwards. The record goes back to the pool.
 */
void odma_tp_region_revoke(struct odma_tp_region *reg);

/*
 * odma_tp_region_revoke in two halves, for revoking several records with one bound on the
 * wait: close marks @reg revoked and waits for the holders of odma_tp_region_enter; release
 * waits for its in-flight word until @deadline_ms (odma_tp_revoke_deadline of a moment after
 * every close: each word then drains in parallel) and returns the record to the pool.
 */
void odma_tp_region_close(struct odma_tp_region *reg);
void odma_tp_region_release(struct odma_tp_region *reg, uint64_t deadline_ms);
/* Now plus odma_tp_timeout_ms(), in ms of CLOCK_MONOTONIC. */
uint64_t odma_tp_revoke_deadline(void);

/* Whether [addr, addr + len) lies inside @reg's range. */
static inline bool odma_tp_region_covers(const struct odma_tp_region *reg, uint64_t addr,
                                         uint64_t len)
{
	return addr >= reg->addr && len <= reg->len && addr - reg->addr <= reg->len - len;
}

/*
 * The exporter's check of one request, the rule every transport's server applies: the
 * region @id exists, is alive, has @key and @generation, is a PCI or RDMA grant served
 * here (not a re-export), and [addr, addr + len) lies inside it with @perm granted.
 * DOCA_SUCCESS, DOCA_ERROR_NOT_PERMITTED (permission, a grant not served here) or
 * DOCA_ERROR_INVALID_VALUE (unknown region, revoked, bad key, out of range). Sets
 * *@local to the address to serve when it succeeds.
 */
doca_error_t odma_tp_region_check(uint64_t id, const uint8_t key[16], uint32_t generation,
                                  uint64_t addr, uint64_t len, uint32_t perm, void **local);

/*
 * The exporter's side of one remote atomic (@op: enum odma_tp_atomic_op, not BYTES; @operand
 * and @compare as in struct odma_tp_io) on the u64 at @addr of region @id: the checks of
 * odma_tp_region_check for 8 bytes with ATOMIC (a PCI grant: a sync event's value; an RDMA
 * grant: program memory, the atomic under the fault guard: odma_tp_safe_atomic), @addr 8-byte
 * aligned, then the atomic itself under the registry lock (a revocation waits for it), and the
 * region's on_update after a change. *@old receives the value before the operation.
 * DOCA_SUCCESS, DOCA_ERROR_NOT_PERMITTED, DOCA_ERROR_INVALID_VALUE (as region_check;
 * misaligned), DOCA_ERROR_IO_FAILED (the program's word is not mapped, or not writable).
 */
doca_error_t odma_tp_region_atomic(uint64_t id, const uint8_t key[16], uint32_t generation,
                                   uint64_t addr, int op, uint64_t operand, uint64_t compare,
                                   uint64_t *old);

/*
 * The registry's check for a server outside the transports (DOCA RDMA's service for
 * @grant RDMA, remote-net sync events for SE_NET): the live record of @grant named by @ref
 * (@by_addr: the record's address, as an RDMA descriptor carries it; else its id) has
 * @key (constant-time compare) and @perm. On DOCA_SUCCESS *@out is held: its revocation
 * waits until odma_tp_region_leave; the caller checks the range (odma_tp_region_covers)
 * and serves @out's range, @owner or @forward. DOCA_ERROR_NOT_FOUND (unknown, revoked,
 * another grant, bad key) or DOCA_ERROR_NOT_PERMITTED.
 */
doca_error_t odma_tp_region_enter(uint64_t ref, bool by_addr, enum odma_tp_grant grant,
                                  const uint8_t key[16], uint32_t perm,
                                  struct odma_tp_region **out);
void odma_tp_region_leave(struct odma_tp_region *reg);
/*
 * Ends a record its holder (odma_tp_region_enter) found dead at the source: a re-export whose
 * original export is gone. Later lookups fail as for a revoked record; the owner still calls
 * odma_tp_region_revoke, which frees it. Returns true for the call that ended it.
 */
bool odma_tp_region_lapse(struct odma_tp_region *reg);

/* Whether the record at address @record_addr is a live re-export (its requests wait). */
bool odma_tp_region_forwarded(uint64_t record_addr);

/* ---- importer side ---- */

/* Attaches through @ops (odma_tp_choose's answer); see odma_tp_ops.attach. */
doca_error_t odma_tp_attach(const struct odma_tp_ops *ops, const struct odma_tp_reach *r,
                            struct odma_tp_remote *rm, uint8_t *issued, size_t *issued_len);

/* Detaches (ios in flight complete first). */
void odma_tp_detach(struct odma_tp_remote *rm);

/*
 * Ends the ios of @owner in flight on every loaded row that has them (odma_tp_ops.io_cancel):
 * a context stop that flushes its tasks does not wait for a peer that stopped answering.
 */
void odma_tp_io_cancel(uint64_t owner);

/* Starts one io; see odma_tp_ops.io_start. */
static inline doca_error_t odma_tp_io_start(struct odma_tp_io *io)
{
	return io->remote->ops->io_start(io);
}

/*
 * Moves @len bytes between @local and the exporter's address @remote (inside @rm's region;
 * @write: local -> remote) and waits for them: transport ios of 256 KiB, 8 at a time, each
 * window waited for odma_tp_timeout_ms() at most, after which its ios are cancelled (one
 * rate-limited line) and waited for: none touches @local once this returns. Blocks: not on a
 * transport thread. DOCA_SUCCESS or DOCA_ERROR_IO_FAILED (an io failed: the transport logged
 * why; or no answer in time).
 */
doca_error_t odma_tp_xfer(struct odma_tp_remote *rm, bool write, void *local, uint64_t remote,
                          uint64_t len);

/* ---- endpoints ---- */

/*
 * Listens on @addr:*@port (UCX); each connecting peer is handed to @on_accept. *@port 0 takes
 * a port the kernel picks and returns it in *@port (never a guessed one).
 * NOT_SUPPORTED (no UCX), IO_FAILED (address in use or not local: logged with the fix).
 */
doca_error_t odma_tp_listen(const char *addr, uint16_t *port, odma_tp_accept_fn *on_accept,
                            odma_tp_admit_fn *admit, void *arg, void **listener);
void odma_tp_listen_close(void *listener);

/*
 * Connects to @addr:@port (the peer's listener). The endpoint is usable at once; sends
 * queue until it is up. NOT_SUPPORTED, IO_FAILED (one log line naming address, error, fix).
 */
doca_error_t odma_tp_connect(const char *addr, uint16_t port, const struct odma_tp_ep_cbs *cbs,
                             struct odma_tp_ep **ep);
void odma_tp_ep_set_cbs(struct odma_tp_ep *ep, const struct odma_tp_ep_cbs *cbs);

/*
 * Sends @len bytes with immediate @imm; the bytes are copied before the return. done runs
 * exactly once. IO_FAILED when the endpoint is closed; NO_MEMORY; AGAIN when the endpoint has
 * on_room and the send would take what its sends hold past ODMA_TP_EP_SEND_MAX (on_room then
 * runs after the next completion).
 */
doca_error_t odma_tp_ep_send(struct odma_tp_ep *ep, const void *bytes, size_t len, uint32_t imm,
                             odma_tp_send_done_fn *done, void *arg);

/*
 * Sends one message made of the @niov pieces at @iov, in order (a header and a payload where
 * they lie, copied once, into the transport's own buffer); as odma_tp_ep_send, and
 * INVALID_VALUE when @niov is 0 or above ODMA_TP_SENDV_MAX.
 */
#define ODMA_TP_SENDV_MAX 4
doca_error_t odma_tp_ep_sendv(struct odma_tp_ep *ep, const struct iovec *iov, unsigned int niov,
                              uint32_t imm, odma_tp_send_done_fn *done, void *arg);

/*
 * Whether a send of @len bytes (all its pieces) would be taken now by an endpoint with on_room
 * (always true without it); false also asks for on_room, as a refused send does. A send from
 * another thread may take the room in between.
 */
bool odma_tp_ep_room(struct odma_tp_ep *ep, size_t len);

/*
 * Gives back the credit of a message on_recv kept (@len: its length), from any thread, once
 * the receiver has taken it; never after odma_tp_ep_close(@ep). Never blocks.
 */
void odma_tp_ep_release(struct odma_tp_ep *ep, size_t len);

/* Attaches a region the peer registered (odma_tp_region_add), reached over @ep. */
doca_error_t odma_tp_ep_attach(struct odma_tp_ep *ep, const struct odma_tp_reach *r,
                               struct odma_tp_remote *rm);

/*
 * Closes @ep: its ios and sends in flight complete with IO_FAILED, then on_close runs. From a
 * callback on the transport thread too, without flushing what was queued; but not to refuse
 * a peer just accepted: closing a connection UCX 1.13 is still setting up can abort inside
 * UCX (refuse with odma_tp_admit_fn, or close it later from another thread).
 */
void odma_tp_ep_close(struct odma_tp_ep *ep);

/*
 * The endpoint functions above, exported to odma's other libraries (libdoca_rdma,
 * libdoca_comch) as doca_priv_* (tp_export.c); same contracts.
 */
DOCA_STABLE doca_error_t doca_priv_tp_listen(const char *addr, uint16_t *port,
                                             odma_tp_accept_fn *on_accept, odma_tp_admit_fn *admit,
                                             void *arg, void **listener);
DOCA_STABLE void doca_priv_tp_listen_close(void *listener);
DOCA_STABLE doca_error_t doca_priv_tp_connect(const char *addr, uint16_t port,
                                              const struct odma_tp_ep_cbs *cbs,
                                              struct odma_tp_ep **ep);
DOCA_STABLE void doca_priv_tp_ep_set_cbs(struct odma_tp_ep *ep, const struct odma_tp_ep_cbs *cbs);
DOCA_STABLE doca_error_t doca_priv_tp_ep_send(struct odma_tp_ep *ep, const void *bytes, size_t len,
                                              uint32_t imm, odma_tp_send_done_fn *done, void *arg);
DOCA_STABLE doca_error_t doca_priv_tp_ep_sendv(struct odma_tp_ep *ep, const struct iovec *iov,
                                               unsigned int niov, uint32_t imm,
                                               odma_tp_send_done_fn *done, void *arg);
DOCA_STABLE void doca_priv_tp_ep_release(struct odma_tp_ep *ep, size_t len);
DOCA_STABLE bool doca_priv_tp_ep_room(struct odma_tp_ep *ep, size_t len);
DOCA_STABLE void doca_priv_tp_ep_close(struct odma_tp_ep *ep);
DOCA_STABLE const char *doca_priv_tp_net_absent(void);
DOCA_STABLE uint32_t doca_priv_tp_timeout_ms(void);
/*
 * odma_cma_xfer for libdoca_comch's fast path in one kernel: writes @len bytes of @niov local
 * iovecs (which it may change) into process @pid at @addr. 0, or the errno that stopped it;
 * *@fix then says what would fix it when that is known (ptrace rights, no CMA), else NULL.
 */
DOCA_STABLE int doca_priv_tp_cma_write(pid_t pid, struct iovec *iov, int niov, uint64_t addr,
                                       uint64_t len, const char **fix);

/*
 * Whether the region record header @rec read from the exporter still grants @rm (in use,
 * alive, the attachment's key).
 */
bool odma_tp_record_ok(const struct odma_tp_remote *rm, const struct odma_tp_region_hdr *rec);

/* ---- the process transport's helpers (its row, and the process' own fault-safe copies) ---- */

/*
 * Moves every byte the iovec arrays describe to (@write) or from process @pid, resuming
 * after partial transfers. 0, or the errno that stopped it (EFAULT for a short transfer).
 */
int odma_cma_xfer(pid_t pid, bool write, struct iovec *l, int nl, struct iovec *r, int nr);

/*
 * odma_cma_xfer within this process without process_vm_readv/writev (which qemu-user, some
 * seccomp filters and some kernels lack): each piece goes through a pipe, so a side that is not
 * mapped fails it with EFAULT instead of faulting. odma_cma_xfer falls back to it by itself.
 */
int odma_cma_pipe_xfer(bool write, struct iovec *l, int nl, struct iovec *r, int nr);

/*
 * Lets any same-user process read this process' memory under Yama ptrace_scope=1 (once per
 * process; best effort): the software equivalent of exposing a range over PCI.
 */
void odma_cma_allow_peers(void);

/*
 * The line explaining an EPERM/EACCES from process_vm_* or ptrace-guarded access to @pid,
 * with its fixes, for callers that log it in their own words (Comch, sync events).
 */
const char *odma_cma_eperm_fix(void);

/* The same for ENOSYS (no process_vm_readv/writev at all): the causes and the fix. */
const char *odma_cma_enosys_fix(void);

/*
 * Runs @fn(@arg) under core/copy's fault guard, which costs no system call: a fault inside it
 * ends @fn and fails the call instead of killing the process. It returns 0, EFAULT when @fn
 * faulted, or ENOSYS when the guard is off (ODMA_COPY_GUARD=0, or it could not be installed;
 * @fn did not run). core/copy gives it at load time; NULL until.
 */
typedef int odma_tp_guard_fn(void (*fn)(void *arg), void *arg);
void odma_tp_set_guard(odma_tp_guard_fn *guard);

/*
 * Copies @len bytes within this process, fault-safe: under core/copy's fault guard when it is
 * on (odma_tp_set_guard), else with process_vm_readv. What serves a peer's access to program
 * memory uses it: an unmapped page fails that access, never the process. 0 or an errno
 * (EFAULT: a side is not mapped, or not writable for @dst).
 */
int odma_tp_safe_copy(void *dst, const void *src, size_t len);

/*
 * Atomic @op (ODMA_TP_AT_READ, _FADD, _SWAP, _CAS) on the aligned word at @p of this process,
 * the old value into *@old, fault-safe as odma_tp_safe_copy: a page unmapped or write-protected
 * fails it (EFAULT), never the process. Without the guard the word is checked first, read with
 * process_vm_readv and, for an atomic that writes, made writable or not by the kernel adding 0
 * to it (a page protected in the instant between would still fault). 0 or an errno.
 */
int odma_tp_safe_atomic(uint64_t *p, int op, uint64_t operand, uint64_t compare, uint64_t *old);

/*
 * The local interface whose IPv4 network holds @ip (or that has it): its name in @name and,
 * when @addr is not NULL, its address in @addr. false if none.
 */
bool odma_tp_iface_for(const char *ip, char *name, size_t cap, char *addr, size_t acap);

/* ODMA_FABRIC's address part into @ip (@cap bytes); the whole value, or NULL when unset. */
const char *odma_tp_fabric_ip(char *ip, size_t cap);

/*
 * The IPv4 address this side's own listeners bind (never every interface): its address on
 * ODMA_FABRIC's network, or 127.0.0.1 without ODMA_FABRIC. false, logged with the fix, when
 * ODMA_FABRIC names a network no local interface is on.
 */
bool odma_tp_bind_addr(char *out, size_t cap);
DOCA_STABLE bool doca_priv_tp_bind_addr(char *out, size_t cap);

/*
 * The fabric secret (fabric_auth.c): ODMA_FABRIC_SECRET, else the runtime directory's cookie
 * (made when missing). The key both sides of a connection across namespaces or machines prove
 * (Comch, the UCX module's TCP link); false with the reason in @why.
 */
#define ODMA_FABRIC_KEY_LEN 32u
#define ODMA_FABRIC_NONCE_LEN 16u
#define ODMA_FABRIC_PROOF_LEN 32u
DOCA_STABLE bool doca_priv_fabric_key(uint8_t key[ODMA_FABRIC_KEY_LEN], char *why, size_t why_len);
/*
 * HMAC-SHA256 under @key of @role, the @bind_len bytes at @bind, @first and @second: what a
 * side sends to prove the key. @bind names the protocol and the listener the client dialled
 * (as both sides know it), so a relay cannot hand a client's handshake to another listener,
 * nor one protocol's proof to the other.
 */
DOCA_STABLE void doca_priv_fabric_proof(const uint8_t key[ODMA_FABRIC_KEY_LEN], uint8_t role,
                                        const void *bind, size_t bind_len,
                                        const uint8_t first[ODMA_FABRIC_NONCE_LEN],
                                        const uint8_t second[ODMA_FABRIC_NONCE_LEN],
                                        uint8_t out[ODMA_FABRIC_PROOF_LEN]);

#endif /* ODMA_CORE_TRANSPORT_H_ */
