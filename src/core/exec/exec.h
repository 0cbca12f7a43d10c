/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The exec module's face: contexts, progress engines and tasks, as the context types
 * (DMA, and libraries with their own task types) see them. A context type embeds struct
 * doca_ctx as its first member and describes itself with a const struct odma_ctx_ops; its
 * task type embeds struct doca_task first. Engines do not include this header: they see
 * tasks and PEs as opaque pointers through engines/engine.h.
 */
#ifndef ODMA_CORE_EXEC_H_
#define ODMA_CORE_EXEC_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_ctx.h>
#include <doca_pe.h>

#include "core/copy/copy.h"
#include "util/queue.h"

struct doca_buf;
struct doca_dev;
struct odma_dev_caps;
struct odma_engine_ops;
struct odma_job;
struct odma_task_stage;

enum odma_task_state {
	ODMA_TASK_FREE = 0,  /* in the context's pool */
	ODMA_TASK_ALLOCATED, /* the program's */
	ODMA_TASK_HELD,      /* submitted without FLUSH, not yet handed to the engine */
	ODMA_TASK_SUBMITTED, /* the library's until its callback runs */
};

/*
 * A task. A copy task (DMA memcpy) describes its copy in @copy (core/copy/copy.h); the
 * other task types leave it empty and keep their own fields after this struct.
 */
struct doca_task {
	struct doca_ctx *ctx;
	struct doca_task *next; /* pool free list, held list, completion list */
	struct odma_copy copy;  /* src and dst set by the type; the rest at submit */
	union doca_data user_data;
	uint64_t seq; /* submission number within the context (ordered completions) */
	/*
	 * DOCA_SUCCESS at submit; a failing part of the copy stores its error (atomically: the
	 * two parts of a split copy may fail at once). Read by the PE thread after hand-back.
	 */
	doca_error_t status;
	doca_error_t preset;  /* a failure decided at submit (moved through the engine anyway) */
	uint8_t state;        /* enum odma_task_state */
	uint8_t submit_flags; /* DOCA_TASK_SUBMIT_FLAG_* */
	/*
	 * doca_task_free was called while the task was in flight: it goes back to the pool
	 * when its completion or flush is reported, and its callback is not run.
	 */
	bool free_pending;
	/*
	 * Optional completion hook (e.g. a graph instance owning the task): when set, the PE
	 * calls it instead of the context type's complete op. Cleared by task allocation.
	 */
	void (*hook)(struct doca_task *task, bool success);
	void *hook_arg;
	/*
	 * ODMA_TRACE (trace.c): the hook the task had before its trace hook, its number (0:
	 * not traced; set before the task's context type or transport sees it) and when its
	 * copy over the network started (async.c)
	 */
	void (*trace_prev)(struct doca_task *task, bool success);
	uint64_t trace_id;
	uint64_t trace_t0;
	/* the task type whose share the task holds (doca_priv_task_conf_alloc), or NULL */
	struct odma_task_conf *tconf;
};

/* A singly linked FIFO of tasks. */
struct odma_task_list {
	struct doca_task *head;
	struct doca_task *tail;
};

static inline void odma_task_list_push(struct odma_task_list *l, struct doca_task *t)
{
	ODMA_QUEUE_PUSH(l->head, l->tail, t, next);
}

/* What a context type provides; called on the PE thread. */
struct odma_ctx_ops {
	const char *name; /* "DMA" */
	size_t task_size; /* size of the type's task struct (embeds struct doca_task first) */
	/* Optional: extra checks at start (e.g. the task type was configured). */
	doca_error_t (*start)(struct doca_ctx *ctx);
	/* Required: runs the program's callback for a finished task. */
	void (*complete)(struct doca_task *task, bool success);

	/*
	 * Optional hooks for context types whose tasks are not copies (Comch, Sync Event,
	 * mmap advise). All run on the PE thread.
	 *
	 * submit: takes a task after the generic checks (task allocated, context RUNNING,
	 * queue depth). Returns DOCA_SUCCESS when the type owns the task until it hands it
	 * back with odma_task_complete() (doca_priv_task_complete from another library), or
	 * an error, the task staying with the program. Tasks of such a type never reach an
	 * engine, so it validates its own tasks in submit.
	 *
	 * progress: called by every doca_pe_progress of the context's PE while the context
	 * is not IDLE; drains the type's own sources (sockets, shared memory) without
	 * blocking, completes tasks and raises events. Returns whether anything happened.
	 *
	 * stop: called when a stop begins (doca_ctx_stop), before the generic stop; the
	 * type fails or completes what it holds, starts closing what it owns.
	 *
	 * idle_ready: with tasks all completed and freed, whether the type is done too
	 * (e.g. a connection torn down); a STOPPING context becomes IDLE only then.
	 *
	 * A start op may return DOCA_ERROR_IN_PROGRESS: the context becomes STARTING and
	 * doca_ctx_start returns IN_PROGRESS; the type moves it on with odma_ctx_set_state
	 * (RUNNING, or IDLE when the start failed) from its progress op.
	 */
	doca_error_t (*submit)(struct doca_task *task);
	bool (*progress)(struct doca_ctx *ctx);
	void (*stop)(struct doca_ctx *ctx);
	bool (*idle_ready)(const struct doca_ctx *ctx);
	/* Optional: a context type that needs no task type configured before start. */
	bool no_task_conf;
	/*
	 * Optional: told when the program frees a task (doca_task_free), before the task goes
	 * back to the pool; a type with several task types keeps its per-type counts here
	 * unless struct odma_task_conf keeps them (doca_task_free updates those itself).
	 */
	void (*task_free)(struct doca_task *task);
	/*
	 * Optional, the wake-up contract (docs/design.md, "Waking a sleeping PE"): called by
	 * doca_pe_request_notification for every connected context, IDLE ones included, on
	 * the PE thread. The type drains a doorbell rung since its last progress, arms its
	 * doorbells (while IDLE too: a ring landing after the drain is then read by the next
	 * arm's drain, as progress does not run) and updates its watched descriptors
	 * (doca_priv_pe_watch), then returns the time (doca_priv_now_ns) by which its progress
	 * op must run even if nothing it watches fires: 0 when progress has work now,
	 * ODMA_WAKE_NEVER when only a watched descriptor or a doorbell can bring work.
	 */
	uint64_t (*arm)(struct doca_ctx *ctx);
	/*
	 * Optional, for the task timeline (ODMA_TRACE): the bytes a task of this type moved,
	 * asked on the PE thread as a successful one completes. Without it a copy's bytes are
	 * its total, and other tasks count none.
	 */
	uint64_t (*trace_bytes)(const struct doca_task *task);
};

/* The deadline of an arm op: nothing but a watched source brings work. */
#define ODMA_WAKE_NEVER UINT64_MAX

/*
 * Work a progress engine runs for an object that is not a context (a graph): the owner
 * embeds a poller, adds it to the PE, and wakes it when it has work. The next
 * doca_pe_progress runs its poll op once per wake-up (after the completions it delivers),
 * and a PE armed for notification is signalled. Everything here runs on the PE thread.
 * While any poller is added, doca_pe_destroy refuses with IN_USE.
 */
struct odma_pe_poller {
	/* Required: does the pending work; returns whether anything happened. */
	bool (*poll)(struct odma_pe_poller *p);
	const char *name;            /* for log lines: "graph" */
	struct odma_pe_poller *next; /* the PE's list */
	bool woken;
};

void odma_pe_poller_add(struct doca_pe *pe, struct odma_pe_poller *p);
void odma_pe_poller_remove(struct doca_pe *pe, struct odma_pe_poller *p);
/* Asks for one run of @p's poll op from the next doca_pe_progress of @pe. */
void odma_pe_poller_wake(struct doca_pe *pe, struct odma_pe_poller *p);

/*
 * What submit needs from the engine, copied when the context connects to its PE so the
 * submit path follows one pointer (the context) instead of context -> PE -> engine.
 */
struct odma_ctx_fp {
	doca_error_t (*submit)(void *engine_pe, struct doca_task *task, const struct odma_job *job,
	                       bool doorbell);
	void (*doorbell)(void *engine_pe);
	void *engine_pe;
	/* the engine's hold stage (engine.h, hold) for small unordered local copies, or NULL */
	struct odma_task_stage *hold;
	uint64_t hold_max; /* bytes; 0 with no stage */
	/*
	 * The stage doca_task_submit appends to: hold while the context is RUNNING, its tasks
	 * are copies, its completions unordered and no fault injection is on; NULL otherwise
	 * (odma_ctx_set_state keeps it). With it, hold_bytes: the most bytes of a task that
	 * goes there (hold_max, at most the device's max_buf_size).
	 */
	struct odma_task_stage *hold_now;
	uint64_t hold_bytes;
	uint16_t fast_want; /* odma_buf_fast_want of the context's device (its fast word) */
};

struct doca_ctx {
	const struct odma_ctx_ops *ops;
	struct odma_ctx_fp fp; /* set by doca_pe_connect_ctx */
	struct doca_dev *dev;  /* NULL for a context on no device (Sync Event) */
	const struct odma_dev_caps *caps;
	struct doca_pe *pe;
	struct doca_ctx *pe_next; /* the PE's list of contexts */
	enum doca_ctx_states state;
	union doca_data user_data;
	doca_ctx_state_changed_callback_t state_cb;
	/*
	 * Tasks numbered (seq) from here on fail with IO_FAILED instead of running: UINT64_MAX
	 * while nothing failed, a failed task's seq + 1 (the ones after it are flushed), 0 once
	 * a stop was requested (every task not executed yet is flushed). Only ever lowered
	 * while the context runs; one load per task before its bytes move.
	 */
	atomic_uint_fast64_t flush_from;
	/* this start's number, unique in the process: the owner of its network ios */
	uint64_t run;
	bool ordered;         /* deliver completions in submission order */
	bool configured;      /* a task type was configured (set_conf) */
	uint32_t graph_nodes; /* context nodes of graphs naming it (core/graph): no destroy */
	bool warned_free;     /* a task in flight was freed since the start (logged) */
	/* ops->complete for a type whose tasks are copies (no submit op), else NULL */
	void (*copy_complete)(struct doca_task *task, bool success);
	/* task pool */
	void *pool;
	uint32_t pool_size;
	uint32_t num_tasks; /* configured pool size */
	struct doca_task *free_tasks;
	uint32_t allocated;   /* tasks out of the pool */
	size_t inflight;      /* submitted, callback not run yet */
	uint32_t queue_depth; /* AGAIN beyond this many in flight */
	uint64_t next_seq;
	uint64_t reported_upto;     /* 1 + seq of the newest reported task delivered since start */
	bool track_reports;         /* an OPTIMIZE_REPORTS task was submitted since start: every
	                             * delivery then takes pe_deliver_slow, which keeps reported_upto */
	struct odma_task_list held; /* submitted without FLUSH */
	struct odma_task_list deferred; /* completed OPTIMIZE_REPORTS tasks awaiting a report */
};

struct doca_pe {
	const struct odma_engine_ops *engine;
	void *engine_pe;       /* the engine's per-PE state */
	int efd;               /* the PE's eventfd (odma_pe_signal writes it) */
	int nfd;               /* the notification handle: an epoll set of efd, tfd, watched fds */
	int tfd;               /* timerfd for the earliest deadline an arm op asked for */
	uint64_t timer_ns;     /* when tfd is set to fire (0: not set) */
	atomic_int armed;      /* request_notification was called and nothing signalled yet */
	atomic_bool signalled; /* efd was written and not consumed yet */
	enum doca_pe_event_mode event_mode;
	struct odma_task_list done; /* finished tasks waiting for callbacks (PE thread only) */
	struct doca_ctx *ctxs;
	uint32_t num_ctxs;
	uint32_t num_stopping;
	bool maybe_held;                /* some context may hold tasks submitted without FLUSH */
	uint32_t num_hooked;            /* connected contexts whose type has a progress op */
	uint32_t ctx_gen;               /* bumped when a context connects or disconnects */
	bool in_progress;               /* doca_pe_progress is running (no recursion) */
	struct odma_pe_poller *pollers; /* objects other than contexts that run from progress */
	uint32_t num_pollers;
	uint32_t num_woken;  /* pollers woken and not run yet */
	uint32_t poller_gen; /* bumped when a poller is added or removed */
	/* copy tasks a network transport finished (any thread pushes; progress takes) */
	_Atomic(struct doca_task *) async_done;
	atomic_uint async_busy; /* transport threads between pushing a task and signalling */
	/* network copies started and not yet taken from async_done (changed by the PE thread):
	 * while it is 0, async_done is NULL */
	atomic_uint async_inflight;
};

/*
 * Cross-library entry points for context types (libdoca_dma); exported as doca_priv_*.
 * doca_priv_ctx_init accepts a NULL @dev for a context type that runs on no device
 * (Sync Event): it then has no capabilities, and the type sets queue_depth itself.
 */
DOCA_STABLE doca_error_t doca_priv_ctx_init(struct doca_ctx *ctx, const struct odma_ctx_ops *ops,
                                            struct doca_dev *dev);
DOCA_STABLE doca_error_t doca_priv_ctx_destroy(struct doca_ctx *ctx);
/*
 * A context type's create and destroy for a struct that begins with its struct doca_ctx:
 * doca_priv_ctx_new allocates @size zeroed bytes and initialises them (doca_priv_ctx_init)
 * into *@ctx, leaving nothing allocated on failure (NO_MEMORY is logged);
 * doca_priv_ctx_free destroys the context (doca_priv_ctx_destroy) and frees it when that
 * succeeded, returning its result.
 */
DOCA_STABLE doca_error_t doca_priv_ctx_new(size_t size, const struct odma_ctx_ops *ops,
                                           struct doca_dev *dev, struct doca_ctx **ctx);
DOCA_STABLE doca_error_t doca_priv_ctx_free(struct doca_ctx *ctx);

/* Defines the public doca_@name_as_ctx: the context at @member of a struct doca_@name, or NULL. */
#define ODMA_CTX_AS_CTX(name, member)                                                              \
	struct doca_ctx *doca_##name##_as_ctx(struct doca_##name *name)                            \
	{                                                                                          \
		return name != NULL ? &name->member : NULL;                                        \
	}

/*
 * Defines the public doca_@name_destroy and doca_@name_as_ctx of a context type made with
 * doca_priv_ctx_new (struct doca_@name holds its context as member ctx): destroy refuses NULL
 * with one line, else returns what doca_priv_ctx_free does.
 */
#define ODMA_CTX_DESTROY_AS_CTX(name)                                                              \
	doca_error_t doca_##name##_destroy(struct doca_##name *name)                               \
	{                                                                                          \
		ODMA_CHECK_ARG(name != NULL, #name " must not be NULL");                           \
		return doca_priv_ctx_free(&name->ctx);                                             \
	}                                                                                          \
	ODMA_CTX_AS_CTX(name, ctx)

DOCA_STABLE doca_error_t doca_priv_task_alloc(struct doca_ctx *ctx, struct doca_task **task);
DOCA_STABLE void doca_priv_task_complete(struct doca_task *task, doca_error_t status);
DOCA_STABLE void doca_priv_ctx_set_state(struct doca_ctx *ctx, enum doca_ctx_states next);
DOCA_STABLE doca_error_t doca_priv_task_check_limits(const struct doca_ctx *ctx,
                                                     const struct doca_buf *src,
                                                     const struct doca_buf *dst);
/*
 * Whether a task type of @ctx may be configured now (@ctx is IDLE); if not, one line under
 * @fn (the public set_conf), and the caller refuses with its error code.
 */
DOCA_STABLE bool doca_priv_task_conf_idle(const struct doca_ctx *ctx, const char *fn);
/* A pool bound for a device whose profile sets no max_num_tasks. */
#define ODMA_DEFAULT_MAX_TASKS 65536u
/* The most tasks a context of @ctx's device may have, its types' together. */
DOCA_STABLE uint32_t doca_priv_task_conf_max(const struct doca_ctx *ctx);
/*
 * One task type of a context type with several (Compress, Erasure Coding, Sync Event): its
 * callbacks and its share of the context's one pool. The type's set_conf stores it
 * (doca_priv_task_conf_set), its allocate_init takes a task against it
 * (doca_priv_task_conf_alloc), and doca_task_free gives the share back.
 */
struct odma_task_conf {
	void (*ok)(void); /* the type's callbacks, stored untyped, called through their type */
	void (*err)(void);
	uint32_t num;       /* the type's share of the pool (0: not configured) */
	uint32_t allocated; /* tasks of the type out of the pool */
};

/*
 * The end of a set_conf whose other checks passed: type @type (@name) of the @n types of
 * @conf gets @ok, @err and @num tasks, and @ctx a pool for the tasks of all its types; or
 * INVALID_VALUE, with one line under @fn naming @max_fn, when they would be more than @max
 * together (nothing changes then).
 */
DOCA_STABLE doca_error_t doca_priv_task_conf_set(struct doca_ctx *ctx, struct odma_task_conf *conf,
                                                 size_t n, size_t type, const char *name,
                                                 void (*ok)(void), void (*err)(void), uint32_t num,
                                                 uint32_t max, const char *max_fn, const char *fn);
/*
 * Takes a task from @ctx's pool for the task type of @conf (@name, e.g. "recover"; log lines
 * under @fn, the public call): BAD_STATE unless @ctx is RUNNING, NO_MEMORY when the type was
 * not configured or all its tasks are out.
 */
DOCA_STABLE doca_error_t doca_priv_task_conf_alloc(struct doca_ctx *ctx,
                                                   struct odma_task_conf *conf, const char *name,
                                                   struct doca_task **task, const char *fn);
/*
 * A complete op (struct odma_ctx_ops) for such a type: runs the program's callback of the
 * task's type, its ok or its err, with the task and the two user data.
 */
DOCA_STABLE void doca_priv_task_conf_complete(struct doca_task *task, bool success);

/*
 * Whether a task type's setter may change @task (a task of any type: its struct begins with
 * struct doca_task). Refused with one line under @fn (the public setter) when it is NULL or
 * in flight: its fields are the library's until its callback runs.
 */
DOCA_STABLE bool doca_priv_task_settable(const void *task, const char *fn);

/*
 * The Comch fault points of ODMA_FAULTS (docs/fault-injection.md), for libdoca_comch:
 * all zero when injection is off. Returns DOCA_ERROR_INVALID_VALUE when ODMA_FAULTS is
 * malformed (logged once by the parser).
 */
struct odma_comch_faults {
	uint64_t seed;
	uint64_t drop_after;   /* messages a connection carries before it is cut (0: never) */
	uint32_t delay_min_us; /* extra delay before a received message is delivered */
	uint32_t delay_max_us;
};
DOCA_STABLE doca_error_t doca_priv_faults_comch(struct odma_comch_faults *out);

/*
 * Hands a task of a type with its own submit op back to its PE (PE thread): sets its
 * status; its callback runs from doca_pe_progress.
 */
void odma_task_complete(struct doca_task *task, doca_error_t status);

/* Moves a context through its state machine, running the state-changed callback. */
void odma_ctx_set_state(struct doca_ctx *ctx, enum doca_ctx_states next);

/*
 * Whether @t is an allocated task of @ctx's current pool (not freed, nor freed in flight).
 * @t is read only once its address is known to be a task of that pool, so a task pointer left
 * behind by a free and a restart with another task count (the pool is made again) is
 * answered without touching freed memory. A graph's context node checks its task so.
 */
bool odma_ctx_task_live(const struct doca_ctx *ctx, const struct doca_task *t);

/* Wakes an armed PE: safe from any thread; one atomic load when not armed. */
void odma_pe_signal(struct doca_pe *pe);

/*
 * Wake sources (docs/design.md, "Waking a sleeping PE"). A context whose work arrives on
 * a file descriptor (a socket, an eventfd, a timerfd) has the PE's notification handle watch
 * it: @events are epoll events (EPOLLIN, EPOLLOUT; EPOLLHUP/ERR are always reported), level
 * triggered, so the owner's progress op must consume what makes it ready, or the owner stops
 * watching (@events 0). Adds, changes or removes the watch of @fd; PE thread. A NULL @pe is
 * a no-op. Returns DOCA_ERROR_OPERATING_SYSTEM (logged) when epoll refuses.
 */
DOCA_STABLE doca_error_t doca_priv_pe_watch(struct doca_pe *pe, int fd, uint32_t events);

/*
 * Network work of a context that completes outside the PE's own lists (DOCA RDMA's tasks,
 * receives included): @delta tasks started (> 0) or delivered (< 0) on @pe, PE thread. While
 * any is in flight, doca_pe_progress does the transport's work itself (odma_tp_poll), as it
 * does for network copies, and arming the PE hands that work back to the transport's thread.
 */
DOCA_STABLE void doca_priv_pe_net_ios(struct doca_pe *pe, int delta);

/*
 * A doorbell: an eventfd that other threads or processes write to wake a PE that sleeps,
 * with a state word they look at first, so a busy program pays no system call. The word
 * may live in memory shared with another process (the eventfd then reaches that process
 * with SCM_RIGHTS or pidfd_getfd). States: 0 idle, 1 armed, 2 rung.
 *   - the owner's arm op: doca_priv_bell_arm(word), then checks for work (Dekker pairing with
 *     the ringer: one of the two sees the other);
 *   - a ringer: publishes its work, then doca_priv_bell_ring(word, fd); a ringer in the
 *     owner's process whose word another process may write (a Comch consumer's ring) uses
 *     doca_priv_bell_force(fd) instead (a write whatever the word says; for rare events);
 *   - the owner's progress op and arm op: doca_priv_bell_drain(word, fd): one read when the
 *     word is not IDLE (the first drain after an arm), none while the owner is busy.
 * The word is a hint for ringers only; the owner never trusts it (wake.c, the protocol), so
 * a peer that writes it and the eventfd at will causes spurious wake-ups, never a lasting
 * readable handle nor a lost wake-up of a forced ring. The owner watches the eventfd
 * (doca_priv_pe_watch, EPOLLIN).
 */
#define ODMA_BELL_IDLE 0u
#define ODMA_BELL_ARMED 1u
#define ODMA_BELL_RUNG 2u
/*
 * Whether descriptor @fd of process @pid (0: this process) is an eventfd (its /proc link):
 * checked before writing into a descriptor a peer named or handed over.
 */
DOCA_STABLE bool doca_priv_fd_is_eventfd(int pid, int fd);
/* A non-blocking eventfd for a doorbell (-1 and one log line on failure). */
DOCA_STABLE int doca_priv_bell_open(void);
DOCA_STABLE void doca_priv_bell_arm(_Atomic uint32_t *word);
DOCA_STABLE void doca_priv_bell_ring(_Atomic uint32_t *word, int fd);
DOCA_STABLE void doca_priv_bell_force(int fd);
DOCA_STABLE void doca_priv_bell_drain(_Atomic uint32_t *word, int fd);

/* CLOCK_MONOTONIC in ns (the clock of arm-op deadlines). */
DOCA_STABLE uint64_t doca_priv_now_ns(void);

/*
 * The task timeline (ODMA_TRACE): a transport request that carried @len bytes of @task ran
 * from @t0_ns (doca_priv_now_ns) until now. Any thread; nothing when @task is not traced
 * (task->trace_id 0, set before its context type's submit op runs).
 */
DOCA_STABLE void doca_priv_trace_wire(const struct doca_task *task, uint64_t t0_ns, uint64_t len);

#endif /* ODMA_CORE_EXEC_H_ */
