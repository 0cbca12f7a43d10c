/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Sync event internals, shared by the files of src/core/sync_event/ only.
 *
 * Every started event owns (or, from an export, maps) one shared page: the 64-bit value,
 * a 32-bit futex word bumped by every update, a count of sleeping threads, a revoked flag,
 * and a table of slots through which a progress engine with waiting tasks asks to be woken
 * (an eventfd write into the waiting process). The page is a memfd; the exporter keeps its
 * descriptor open and the importer opens /proc/<pid>/fd/<n> of the exporter.
 *
 * Every byte of the page can be rewritten at any time by the other process (or by anyone
 * who can open it). So: the page is sealed against resizing (no SIGBUS from a truncation)
 * and the importer refuses one that is not; the exporter's identity (key, start time) is
 * kept in private copies; and a slot is only a request: a wake-up for this process goes to
 * a descriptor only if this process registered it as a sync event wake-up eventfd (same
 * number, device and inode), one for another process only to an eventfd
 * (docs/reliability.md, "Sync events, DMA Copy and graphs against a hostile peer").
 */
#ifndef ODMA_SE_INT_H_
#define ODMA_SE_INT_H_

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <doca_sync_event.h>

#include "core/exec/exec.h"
#include "core/sync_event/sync_event.h"
#include "core/transport/transport.h"

#define SE_PAGE_MAGIC 0x47505345414d444fULL /* "ODMASEPG" little-endian */
#define SE_PAGE_SIZE 4096
#define SE_SLOTS 32
#define SE_MAX_TASKS 65536u

/* A progress engine that waits for a change (one per waiting context). */
struct se_slot {
	uint32_t pid;        /* 0: free (written last when claimed) */
	int32_t fd;          /* its eventfd, a descriptor number in that process */
	uint64_t start_time; /* of that process (a reused pid is not signalled) */
};

struct se_page {
	uint64_t magic;
	uint8_t key[16];
	uint64_t owner_start;
	uint32_t owner_pid;
	uint32_t revoked;  /* the owner stopped or destroyed the event */
	uint64_t value;    /* the event value (unless the owner backs it with its own memory) */
	uint32_t seq;      /* futex word: bumped after every update */
	uint32_t sleepers; /* threads asleep on seq */
	uint32_t claimed;  /* bitmap of slots in use */
	uint32_t armed;    /* bitmap of slots that want a wake-up at the next update */
	struct se_slot slots[SE_SLOTS];
};

_Static_assert(sizeof(struct se_page) <= SE_PAGE_SIZE, "the shared page holds the table");

enum se_task_type {
	SE_T_NONE = 0,
	SE_T_GET,
	SE_T_NOTIFY_SET,
	SE_T_NOTIFY_ADD,
	SE_T_WAIT_EQ,
	SE_T_WAIT_NEQ,
	SE_T_COUNT,
};
#define SE_T_WAIT_GT SE_T_COUNT /* the blocking wait_gt (no task type) */

/* Every sync event task type is this struct (the public types are casts of it). */
struct se_task {
	struct doca_task base; /* first */
	uint8_t type;          /* enum se_task_type; SE_T_NONE while in the pool */
	uint64_t val;          /* get: -, notify_set: value, notify_add: increment, waits: value */
	uint64_t mask;         /* waits */
	uint64_t *ptr;         /* get: ret_val_ptr, notify_add: fetched_val_ptr */
	struct se_task *pend_next; /* pending waits */
};

/* One export handed out (owned by the event until destroy). */
struct se_export {
	struct se_export *next;
	struct odma_tp_region *region; /* version 2: the value's network region, until revoked */
	size_t len;
	uint8_t blob[ODMA_SE_BLOB_MAX];
};

struct se_conf {
	void (*ok)(void); /* the type's callbacks, stored untyped, called through their type */
	void (*err)(void);
	uint32_t num; /* pool size of this type (0: not configured) */
	uint32_t allocated;
};

struct doca_sync_event {
	struct doca_ctx ctx; /* first: doca_sync_event_as_ctx */
	bool started;        /* stand-alone start */
	bool from_export;
	/* configuration (exporter/local only) */
	uint64_t *user_addr;    /* set_addr / set_doca_buf */
	struct doca_dev **devs; /* devices held (locations, import) */
	uint32_t num_devs;
	uint32_t pub_locations, sub_locations;
	/* runtime */
	struct se_page *page; /* mapped while started (exporter), from import on (importer) */
	int memfd;            /* exporter: the page's descriptor while started, else -1 */
	uint8_t key[16];      /* exporter: private copies of what the page says about us */
	uint64_t owner_start;
	bool forged_warned; /* a forged wake-up slot was logged (once per event) */
	uint64_t *value;    /* &page->value or user_addr */
	struct se_export *exports;
	/* importer */
	pid_t peer_pid;
	uint64_t peer_start;
	bool peer_gone; /* cached once seen */
	uint64_t next_live_check_ns;
	int peer_pidfd; /* a pidfd of the exporter (readable once it exits), -1 none */
	/* importer over the network transport (se_net.c): no page, the value is remote */
	struct odma_tp_remote *net;
	uint64_t net_addr;           /* the value's address in the exporter */
	uint64_t net_poll_ns;        /* pending waits: the next poll of the value */
	uint64_t net_step_ns;        /* the current backoff between polls */
	pthread_mutex_t net_lock;    /* net_done (the transport thread appends) */
	struct se_net_req *net_done; /* completed requests, oldest first (net_lock) */
	struct se_net_req *net_done_tail;
	uint32_t net_ndone;    /* entries of net_done (atomic: the arm op peeks) */
	uint32_t net_inflight; /* task requests and polls started, not taken back (PE) */
	bool net_polling;      /* a poll of the value is in flight (PE thread) */
	bool pidfd_watched;    /* the PE's notification handle watches it (se_arm) */
	/* context mode */
	struct se_conf conf[SE_T_COUNT];
	struct se_task *pending; /* waits in flight, oldest first */
	struct se_task *pending_tail;
	int slot;     /* claimed slot index, -1 none */
	int slot_efd; /* the eventfd registered with that slot */
};

/* se_shared.c: the page, futex, slots and liveness. */
doca_error_t se_page_create(struct doca_sync_event *se);
void se_page_revoke(struct doca_sync_event *se); /* exporter: revoke, unmap, close */
doca_error_t se_page_import(struct doca_sync_event *se, const struct odma_se_blob *b,
                            const char **why);
void se_page_unmap(struct doca_sync_event *se);          /* importer */
void se_notify(struct doca_sync_event *se);              /* after an update */
bool se_peer_gone(struct doca_sync_event *se, bool now); /* importer: exporter stopped/exited */
bool se_slot_claim(struct doca_sync_event *se, int efd);
void se_slot_arm(struct doca_sync_event *se);
void se_slot_disarm(struct doca_sync_event *se);
bool se_slot_fired(const struct doca_sync_event *se);
void se_slot_release(struct doca_sync_event *se);
void se_futex_wait(uint32_t *word, uint32_t old, uint64_t timeout_ns);
void se_allow_peers(void);

/* Whether (v & mask) meets the condition of a wait type against @val. */
static inline bool se_cond(enum se_task_type type, uint64_t v, uint64_t val, uint64_t mask)
{
	v &= mask;
	return type == SE_T_WAIT_EQ ? v == val : type == SE_T_WAIT_NEQ ? v != val : v > val;
}

/* Whether the event's data path is usable (stand-alone started or context RUNNING). */
static inline bool se_active(const struct doca_sync_event *se)
{
	return se->started || se->ctx.state == DOCA_CTX_STATE_RUNNING;
}

static inline uint64_t se_load(const struct doca_sync_event *se)
{
	return __atomic_load_n(se->value, __ATOMIC_SEQ_CST);
}

/* se_net.c: sync events over the network transport (another kernel or PID namespace). */
/* Exporter: gives export @e a network region and encodes a version-2 blob (or version 1). */
doca_error_t se_net_export(struct doca_sync_event *se, struct odma_se_blob *b, struct se_export *e);
void se_net_revoke(struct doca_sync_event *se); /* before the page is unmapped */
/*
 * Importer: whether the blob @b (bytes @data, @sz) is reached over the network from here
 * (DOCA_SUCCESS with *@use_net set, having attached), or through the shared page (*@use_net
 * false). An error: *@why set or already logged.
 */
doca_error_t se_net_import(struct doca_sync_event *se, const struct odma_se_blob *b,
                           const uint8_t *data, size_t sz, bool *use_net, const char **why);
void se_net_detach(struct doca_sync_event *se);
/* One blocking remote operation (bounded by ODMA_TRANSPORT_TIMEOUT_MS); CONNECTION_ABORTED. */
doca_error_t se_net_op(struct doca_sync_event *se, int op, uint64_t operand, uint64_t *old);
/* The value, wherever it is: DOCA_SUCCESS or CONNECTION_ABORTED (remote exporter gone). */
doca_error_t se_read(struct doca_sync_event *se, uint64_t *v);
/* Pending waits of a network importer: whether a poll is due now (and schedules the next). */
bool se_net_poll_due(struct doca_sync_event *se, bool reset);

/*
 * An asynchronous remote operation of a context (se_tasks.c): a task's get / notify-set /
 * notify-add, or (@task NULL) a poll of the value for the pending waits. Its completion,
 * on the transport thread, queues it on net_done and signals the PE.
 */
struct se_net_req {
	struct odma_tp_io io;
	struct se_net_req *next;
	struct doca_sync_event *se;
	struct se_task *task;
	doca_error_t status; /* DOCA_SUCCESS, or the transport's failure */
	uint64_t val;        /* the value read, or the value before a swap or add */
};
/* Starts one (PE thread); CONNECTION_ABORTED when it cannot (the handle is then failed). */
doca_error_t se_net_start(struct doca_sync_event *se, struct se_task *task, int op,
                          uint64_t operand);
/* The completed requests, oldest first (PE thread); the caller frees them. */
struct se_net_req *se_net_take(struct doca_sync_event *se);
/* A failed remote access fails the handle for good (one warning). */
void se_net_gone(struct doca_sync_event *se);

/* sync_event.c: updates shared by the synchronous calls and the tasks. */
doca_error_t se_do_set(struct doca_sync_event *se, uint64_t v);
doca_error_t se_do_add(struct doca_sync_event *se, uint64_t v, uint64_t *fetched);

/* sync_event.c: what doca_ctx_start and the start of a stop do besides the tasks. */
doca_error_t se_ctx_activate(struct doca_sync_event *se);
void se_ctx_deactivate(struct doca_sync_event *se);
/* se_remote_net.c: the event's network exports end (stop, destroy). */
void se_rn_revoke(struct doca_sync_event *se);
/* A remote-net publisher location (sync_event.c's location rules). */
doca_error_t se_add_location_net(struct doca_sync_event *se, const char *fn);

/* se_tasks.c: the context type. */
extern const struct odma_ctx_ops se_ctx_ops;

#endif /* ODMA_SE_INT_H_ */
