/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Helpers of the Comch tests: a private runtime directory per test run, a server (DPU side)
 * or client (host side) with callbacks that record what happened, forked peers with a
 * deadline, a pipe to step both processes in lockstep, and a capture of the SDK log.
 */
#ifndef COMCH_UTIL_H_
#define COMCH_UTIL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#define CU_HOST_PCI "b1:00.0"
#define CU_DPU_PCI "03:00.0"
#define CU_MAX_RX 8192
#define CU_MAX_CONNS 8

/* A check usable in a forked child (no cmocka there): prints and exits 1. */
#define CU_CHECK(cond)                                                                             \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
			fflush(stderr);                                                            \
			_exit(1);                                                                  \
		}                                                                                  \
	} while (0)
#define CU_CHECK_DOCA(expected, call)                                                              \
	do {                                                                                       \
		doca_error_t cu_r_ = (call);                                                       \
		if (cu_r_ != (expected)) {                                                         \
			fprintf(stderr, "%s:%d: %s returned %s, expected %s\n", __FILE__,          \
			        __LINE__, #call, doca_error_get_name(cu_r_),                       \
			        doca_error_get_name(expected));                                    \
			fflush(stderr);                                                            \
			_exit(1);                                                                  \
		}                                                                                  \
	} while (0)

/* One endpoint (server or client) and what its callbacks saw. */
struct cu_ep {
	bool server;
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
	struct doca_pe *pe;
	struct doca_comch_server *srv;
	struct doca_comch_client *cli;
	struct doca_ctx *ctx;
	struct doca_comch_connection *conn; /* server: the last connected; client: its connection */
	struct doca_comch_connection *conns[CU_MAX_CONNS]; /* server: the first ones, in order */
	unsigned int nconns;
	/* callbacks */
	unsigned int connects, disconnects, sent_ok, sent_err, new_cons, gone_cons, states_seen;
	doca_error_t last_send_status;
	uint32_t last_cons_id;
	uint32_t gone_cons_id;
	bool passed_running;
	bool echo;            /* server: send every message back */
	uint32_t echoed;      /* messages echoed so far (later when the peer queue is full) */
	bool drop_second;     /* server: doca_comch_server_disconnect a second client */
	bool hear_on_connect; /* server: the connect callback waits for a word from the peer */
	bool stop_on_recv;    /* stop the context from the receive callback */
	bool stop_then_copy;  /* ... and before it copies the message */
	/* called from the disconnect callback, the connection still valid */
	void (*on_disconnect)(struct cu_ep *e, struct doca_comch_connection *conn);
	unsigned int dropped;
	/* received messages */
	uint32_t nrx;
	uint32_t rx_len[CU_MAX_RX];
	uint8_t *rx[CU_MAX_RX];
};

/* Makes a private ODMA_RUNDIR for this process and its children (removed at exit). */
void cu_private_rundir(void);

/* Opens the host device (client side) or the DPU device plus the representor of the host PF. */
void cu_open(struct cu_ep *e, bool server);

/*
 * Creates, configures and starts a server (RUNNING) or a client (STARTING); @tasks send tasks
 * (0: send tasks are not configured).
 */
doca_error_t cu_server_start(struct cu_ep *e, const char *name, uint32_t recv_queue,
                             uint32_t tasks);
doca_error_t cu_client_start(struct cu_ep *e, const char *name, uint32_t recv_queue,
                             uint32_t tasks);

/* Progresses until @done(e) or @ms pass; returns @done(e). */
bool cu_progress_until(struct cu_ep *e, bool (*done)(struct cu_ep *), unsigned int ms);
bool cu_is_running(struct cu_ep *e);
bool cu_is_idle(struct cu_ep *e);
bool cu_has_conn(struct cu_ep *e);

/* Progresses @ms milliseconds whatever happens. */
void cu_progress_for(struct cu_ep *e, unsigned int ms);

/* Sends one message on e->conn (alloc + submit); returns the first failing result. */
doca_error_t cu_send(struct cu_ep *e, const void *msg, uint32_t len);

/* Stops (progressing to IDLE), destroys and closes everything; returns whether it went cleanly. */
bool cu_close(struct cu_ep *e);

/*
 * Runs @fn(@arg) in a child process with a deadline of @secs; returns the pid, or -1 (and a
 * line saying why) when this process has threads (tu_fork_safe). cu_fork_any forks whatever
 * the threads, for a child that only execs.
 */
pid_t cu_fork(int (*fn)(void *), void *arg, unsigned int secs);
pid_t cu_fork_any(int (*fn)(void *), void *arg, unsigned int secs);

/*
 * Like cu_fork, but the child waits (before any DOCA call) until cu_release(*@gate). Tests
 * fork every peer before the parent creates a progress engine: a PE may own a thread
 * (ODMA_ENGINE=thread), and a child of a multi-threaded process must not start threads.
 */
pid_t cu_fork_gated(int (*fn)(void *), void *arg, unsigned int secs, int *gate);
void cu_release(int gate);

/* A fresh server name per test (a failed test leaves its server behind). */
extern char cu_name[64];
int cu_next_name(void **state);

/* Waits (at most @secs) for @pid; returns its exit status (-1: killed or timed out). */
int cu_join(pid_t pid, unsigned int secs);

/* cu_join while progressing @e (the child needs this process to answer); @e NULL: cu_join. */
int cu_join_progress(pid_t pid, struct cu_ep *e, unsigned int secs);

/* Lockstep over a pipe pair made before fork: cu_sync_init in the parent, then each side calls
 * cu_sync_side(child) after fork, then cu_tell/cu_hear. */
void cu_sync_init(void);
void cu_sync_side(bool child);
void cu_tell(char c);
/* Waits for one byte (returns it) while progressing @e (may be NULL); 0 after @ms. */
char cu_hear(struct cu_ep *e, unsigned int ms);

/* Starts capturing the SDK log of this process into a temporary file. */
void cu_log_capture(void);
/* Whether the captured SDK log contains @needle. */
bool cu_log_has(const char *needle);

/* A started mmap + inventory over @len bytes (allocated) registered with @dev. */
struct cu_mem {
	uint8_t *base;
	size_t len;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	bool borrowed; /* base is the caller's (cu_mem_init_over), not freed by cu_mem_fini */
};
void cu_mem_init(struct cu_mem *m, struct doca_dev *dev, size_t len, uint32_t nbufs);
/* cu_mem_init over the caller's @base (@len bytes) instead of fresh memory. */
void cu_mem_init_over(struct cu_mem *m, struct doca_dev *dev, uint8_t *base, size_t len,
                      uint32_t nbufs);
void cu_mem_fini(struct cu_mem *m);

/* Monotonic milliseconds. */
uint64_t cu_now_ms(void);

#endif /* COMCH_UTIL_H_ */
