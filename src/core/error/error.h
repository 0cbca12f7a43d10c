/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* The error module's face: error names and descriptions, and the cause/fix table. */
#ifndef ODMA_CORE_ERROR_H_
#define ODMA_CORE_ERROR_H_

#include <stddef.h>

#include <doca_compat.h>
#include <doca_error.h>

/* Rules whose log lines share the table's text (index into the table). */
enum odma_cause {
	ODMA_CAUSE_CTX_NOT_IDLE,     /* configure / start a context that is not IDLE */
	ODMA_CAUSE_CTX_NOT_RUNNING,  /* allocate / submit while the context is not RUNNING */
	ODMA_CAUSE_OBJ_STARTED,      /* setter on a started mmap or inventory */
	ODMA_CAUSE_SIZE_CAP,         /* above max_buf_size / max_buf_list_len */
	ODMA_CAUSE_TRY_SUBMIT_DATA,  /* empty source, short destination, overlap (try_submit) */
	ODMA_CAUSE_RANGE,            /* buffer range outside its mmap */
	ODMA_CAUSE_NULL_ARG,         /* NULL or out-of-range argument */
	ODMA_CAUSE_QUEUE_FULL,       /* more tasks in flight than the queue depth */
	ODMA_CAUSE_COMCH_PEER_FULL,  /* Comch send: the peer's receive queue is full */
	ODMA_CAUSE_COMCH_NO_BUFFER,  /* Comch producer: no buffer posted by the consumer yet */
	ODMA_CAUSE_INJECTED_AGAIN,   /* ODMA_FAULTS submit_again */
	ODMA_CAUSE_DST_READ_ONLY,    /* DMA into memory without write permission */
	ODMA_CAUSE_NO_ADD_DEV,       /* DMA through an mmap the context's device was not added to */
	ODMA_CAUSE_MMAP_STOPPED,     /* DMA through a buf of a stopped (thread-safe) mmap */
	ODMA_CAUSE_EXPORT_PERM,      /* export of an unstarted / non-PCI / from-export mmap */
	ODMA_CAUSE_ONCE_ONLY,        /* set_memrange twice, connect twice */
	ODMA_CAUSE_MMAP_FIXED,       /* devices / mode of a started, exported or imported mmap */
	ODMA_CAUSE_BUFS_OUTSTANDING, /* mmap stop/destroy with bufs on it */
	ODMA_CAUSE_NO_MEMCPY,        /* device without the memcpy task */
	ODMA_CAUSE_RDMA_IMPORT,      /* DMA through an mmap created from an RDMA export */
	ODMA_CAUSE_DRIVER,           /* the layer below (engine / driver) failed */
	ODMA_CAUSE_TASK_FAILED,      /* a task failed or was flushed */
	ODMA_CAUSE_POOL_EXHAUSTED,   /* task pool or inventory used up */
	ODMA_CAUSE_NO_PE,            /* start without a progress engine */
	ODMA_CAUSE_NO_CONF,          /* start without set_conf */
	ODMA_CAUSE_IN_USE,           /* destroy of something still used */
	ODMA_CAUSE_STOP_IN_PROGRESS, /* stop with tasks in flight */
	ODMA_CAUSE_NOT_FOUND,        /* device not added / no system / no device */
	ODMA_CAUSE_DEV_ADDED_TWICE,  /* the same device added to an mmap twice */
	ODMA_CAUSE_POOL_EMPTY,       /* every buf of a buf pool handed out */
	ODMA_CAUSE_NO_START,         /* no engine for a PE, a buf pool that does not fit its mmap */
	ODMA_CAUSE_COUNT
};

/** One rule: the code it returns, a short key, the calls, the cause and the fix. */
struct doca_priv_error_cause {
	doca_error_t code;
	const char *key;   /* short stable name, e.g. "queue-full" */
	const char *calls; /* the calls that return it */
	const char *cause; /* what the program did */
	const char *fix;   /* what to change */
};

/*
 * The whole table (count entries, indexed by enum odma_cause). Exported (doca_priv_ prefix)
 * for the odma tools and for libdoca_dma, which reaches the table across the library boundary.
 */
DOCA_STABLE const struct doca_priv_error_cause *doca_priv_error_causes(size_t *count);

/* The fix text of one rule, for appending to a log line ("" for an unknown rule). */
static inline const char *odma_cause_fix(enum odma_cause cause)
{
	size_t count = 0;
	const struct doca_priv_error_cause *table = doca_priv_error_causes(&count);

	return (size_t)cause < count ? table[cause].fix : "";
}

struct odma_error_info {
	const char *name;
	const char *descr;
};

/* Entry for a known code, NULL otherwise. */
const struct odma_error_info *odma_error_info(doca_error_t error);
/* Number of known codes (they are numbered 0..count-1). */
unsigned int odma_error_count(void);

#endif /* ODMA_CORE_ERROR_H_ */
