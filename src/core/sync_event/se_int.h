/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Sync event internals, shared by the files of src/core/sync_event/ only.
 *
 * Every started event owns (or, imported on the local row, maps) one shared page: the value,
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
	uint8_t type;          /* enum se_task_type; SE_T_NONE until first allocated */
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
	/* the version-1 encoding of the same export: equal for a repeated export (se_export_same)
	 */
	uint8_t base[ODMA_SE_BLOB_LEN];
};

/*
 * Where a handle's value is and how it is reached: one row per kind, chosen once (create:
 * se_local_ops; create_from_export: the first row of se_import_rows whose import takes the
 * export). sync_event.c and se_tasks.c own every state and argument check and call only
 * these. Every op is required. access and wait run on any thread while the event is active
 * (stand-alone started or RUNNING); the context ops on its PE's thread.
 */
struct se_ops {
	const char *name; /* for the logs */
	/*
	 * Importer: attaches @se to the parsed export @b (bytes @data, @sz) and sets *@taken,
	 * or leaves *@taken false for the next row. A failure: *@why set or already logged.
	 */
	doca_error_t (*import)(struct doca_sync_event *se, const struct odma_se_blob *b,
	                       const uint8_t *data, size_t sz, bool *taken, const char **why);
	void (*release)(struct doca_sync_event *se); /* destroy of an import: undoes import */
	/* Importer: whether the exporter is gone for good (@now: check its liveness now). */
	bool (*gone)(struct doca_sync_event *se, bool now);
	/*
	 * One access to the value: a read, a swap (a set) or a fetch-add, *@old the value
	 * before; an update wakes its waiters. CONNECTION_ABORTED once the exporter is gone. May
	 * block one round trip.
	 */
	doca_error_t (*access)(struct doca_sync_event *se, enum odma_tp_atomic_op op,
	                       uint64_t operand, uint64_t *old);
	/* A blocking wait for a condition that can hold. */
	doca_error_t (*wait)(struct doca_sync_event *se, enum se_task_type type, uint64_t val,
	                     uint64_t mask, bool yield);
	/* The context: takes a checked task (completes, starts or parks it), else fails submit. */
	doca_error_t (*submit)(struct doca_sync_event *se, struct se_task *t);
	bool (*progress)(struct doca_sync_event *se); /* whether it completed anything */
	uint64_t (*arm)(struct doca_sync_event *se);  /* the context's arm op */
	void (*stop)(struct doca_sync_event *se);     /* the pending waits are flushed */
};

struct doca_sync_event {
	struct doca_ctx ctx; /* first: doca_sync_event_as_ctx */
	const struct se_ops *ops;
	bool started; /* stand-alone start */
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
	uint64_t *value;    /* &page->value or user_addr (NULL over the network) */
	struct se_export *exports;
	/* remote-net blobs handed out, newest (the live one) first; kept until destroy */
	struct se_export *rn_exports;
	bool net_exported; /* an export offers the value over the network (atomic) */
	/* importer */
	pid_t peer_pid;
	uint64_t peer_start;
	uint32_t peer_fd; /* the page's descriptor in the exporter (local row) */
	dev_t page_dev;   /* and the page's file: an exec closes it in the exporter */
	ino_t page_ino;
	bool peer_gone; /* for good: set once seen (atomic) */
	uint64_t next_live_check_ns;
	int peer_pidfd;     /* a pidfd of the exporter (readable once it exits), -1 none */
	bool pidfd_watched; /* the PE's notification handle watches it (se_arm) */
	struct se_net *net; /* the network row's state (se_net.c), else NULL */
	uint32_t inflight;  /* context: requests started, not taken back (PE thread) */
	/* context mode */
	struct odma_task_conf conf[SE_T_COUNT];
	struct se_task *pending; /* waits in flight, oldest first */
	struct se_task *pending_tail;
	int slot;     /* claimed slot index, -1 none */
	int slot_efd; /* the eventfd registered with that slot */
};

/* The rows: the value in this kernel (se_local.c), over the network transport (se_net.c). */
extern const struct se_ops se_local_ops;
extern const struct se_ops se_net_ops;

/* se_shared.c: the page, futex, slots and liveness. */
doca_error_t se_page_create(struct doca_sync_event *se);
void se_page_revoke(struct doca_sync_event *se); /* exporter: revoke, unmap, close */
/* The local row's import: the page of an exporter of this kernel (takes every export). */
doca_error_t se_page_import(struct doca_sync_event *se, const struct odma_se_blob *b,
                            const uint8_t *data, size_t sz, bool *taken, const char **why);
void se_page_unmap(struct doca_sync_event *se);          /* importer */
void se_notify(struct doca_sync_event *se);              /* after an update */
bool se_page_gone(struct doca_sync_event *se, bool now); /* importer: exporter stopped/exited */
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

/* se_net.c, exporter: gives export @e a network region and encodes a version-2 blob (or 1). */
doca_error_t se_net_export(struct doca_sync_event *se, struct odma_se_blob *b, struct se_export *e);
void se_net_revoke(struct doca_sync_event *se); /* before the page is unmapped */
/* After an update: the watches importers hold on the value are checked (se_notify). */
void se_net_changed(struct doca_sync_event *se);

/* sync_event.c: the accesses of the calls and tasks (an update fails once the exporter is gone). */
doca_error_t se_do(struct doca_sync_event *se, enum odma_tp_atomic_op op, uint64_t operand,
                   uint64_t *old);
doca_error_t se_do_set(struct doca_sync_event *se, uint64_t v);
doca_error_t se_do_add(struct doca_sync_event *se, uint64_t v, uint64_t *fetched);
/* Whether the exporter of an imported event is gone for good (the row's check). */
bool se_peer_gone(struct doca_sync_event *se, bool now);
void se_mark_gone(struct doca_sync_event *se, const char *what); /* for good: said once */

/* sync_event.c: what doca_ctx_start and the start of a stop do besides the tasks. */
doca_error_t se_ctx_activate(struct doca_sync_event *se);
void se_ctx_deactivate(struct doca_sync_event *se);
/* se_remote_net.c: the event's network exports end (stop, destroy). */
void se_rn_revoke(struct doca_sync_event *se);
/* A remote-net publisher location (sync_event.c's location rules). */
doca_error_t se_add_location_net(struct doca_sync_event *se, const char *fn);
/*
 * sync_event.c: the rule every export of an event follows, whatever it goes through: the
 * event is its own (not created from an export) and started. Logs a refusal under @fn.
 */
doca_error_t se_export_allowed(const struct doca_sync_event *se, const char *fn);

/* se_tasks.c: the context type, and the pending waits for the rows (PE thread). */
extern const struct odma_ctx_ops se_ctx_ops;
void se_pending_push(struct doca_sync_event *se, struct se_task *t);
/* Completes the pending waits that value @v meets (all of them when @fail is an error). */
unsigned int se_pending_scan(struct doca_sync_event *se, doca_error_t fail, uint64_t v);
/* A get, notify-set or notify-add task: its access, and its end (@v: the value it read). */
static inline enum odma_tp_atomic_op se_task_op(const struct se_task *t)
{
	return t->type == SE_T_GET          ? ODMA_TP_AT_READ
	       : t->type == SE_T_NOTIFY_SET ? ODMA_TP_AT_SWAP
	                                    : ODMA_TP_AT_FADD;
}
void se_task_done(struct se_task *t, doca_error_t status, uint64_t v);

#endif /* ODMA_SE_INT_H_ */
