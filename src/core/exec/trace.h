/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The task timeline (ODMA_TRACE=FILE): every task's submit, each part run on an engine thread
 * or carried by a transport request, and its completion, in the Chrome trace-event format that
 * Perfetto and chrome://tracing open (docs/performance.md). Unset it costs nothing: the submit and
 * run paths already take one predictable branch for fault injection (odma_exec_slow), which tracing
 * shares. Set, each thread writes into a ring of its own (TRACE_RING events; past it events are
 * dropped and counted); what they gained is added to the file each time the last PE is destroyed,
 * and at exit.
 */
#ifndef ODMA_CORE_EXEC_TRACE_H_
#define ODMA_CORE_EXEC_TRACE_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_error.h>

struct doca_task;

/* Set once at the first doca_pe_create when fault injection or tracing is on. */
extern bool odma_exec_slow;
/* True when ODMA_TRACE names a file (read once). */
extern bool odma_trace_enabled;

/* Reads ODMA_TRACE once; INVALID_VALUE (one line) when the file cannot be created. */
doca_error_t odma_trace_init(void);
/*
 * A task is being submitted (the PE thread, before its context type or the engine sees it):
 * its trace number, so a transport request it starts at once can already name it.
 */
void odma_trace_begin(struct doca_task *t);
/*
 * The submit of @t ended with @r (from @t0_ns): accepted, its begin event and the hook that
 * records its end before its callback runs; refused, it is not traced (its number unused).
 */
void odma_trace_submit(struct doca_task *t, uint64_t t0_ns, doca_error_t r);
/*
 * The completion hook @t carries besides the timeline's (a graph instance's), or NULL: a traced
 * task in flight has the timeline's hook in front of it.
 */
void (*odma_trace_owner_hook(const struct doca_task *t))(struct doca_task *, bool);
/* One part of a task's bytes ran on this thread from @t0_ns to now (engine thread). */
void odma_trace_run(const struct doca_task *t, uint64_t t0_ns, uint64_t len);
/* A PE was created / destroyed: the last one destroyed writes (a program may _exit). */
void odma_trace_pe_born(void);
void odma_trace_pe_gone(void);

#endif /* ODMA_CORE_EXEC_TRACE_H_ */
