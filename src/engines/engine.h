/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The engine contract: the only odma header an engine includes (besides core/log/log.h and
 * src/util/). An engine decides where and when the copy of a task runs; the core has
 * validated every task it sees, owns every state, and runs every byte of it through the
 * same checks (odma_task_run). Tasks and PEs are opaque here: what an engine needs to
 * know about a task comes with it at submit, in struct odma_job.
 *
 * Threading: pe_init/pe_fini run on the application thread that creates/destroys the PE;
 * submit, doorbell, poll and pending on the PE's thread (the one that calls
 * doca_pe_progress and submits); odma_task_run on any thread the engine chooses.
 * Every op is set; an engine without a use for doorbell, poll or pending points them at
 * odma_engine_nop_doorbell / _nop_poll / _nop_pending, so the core never tests for NULL.
 */
#ifndef ODMA_ENGINES_ENGINE_H_
#define ODMA_ENGINES_ENGINE_H_

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <doca_error.h>

struct doca_pe;
struct doca_task;

/* What the core tells an engine about one task at submit. */
struct odma_job {
	uint64_t bytes; /* bytes the task moves: its size class */
	/*
	 * 0, or an offset where the copy may be cut in two parts that run on two threads at
	 * once: ODMA_PART_HEAD is [0, split_at), ODMA_PART_TAIL [split_at, bytes). A local
	 * copy (batch false) with split_at 0 is never cut, by parts or by ranges: it is small,
	 * a list, or its source and destination overlap (one memmove keeps their bytes right).
	 */
	uint64_t split_at;
	/* 0: completions in any order; else tasks with one key complete in submission order */
	uintptr_t order_key;
	/*
	 * The task must not complete before tasks submitted earlier that share its queue
	 * (ordered contexts, and a task that will fail: it flushes those submitted after it).
	 */
	bool in_order;
	/*
	 * Each run of this task costs a system call (it reaches another process' memory):
	 * tasks with this flag are cheaper handed to odma_task_run_batch together (one call
	 * moves many), e.g. the ones submitted between two progress calls.
	 */
	bool batch;
	/*
	 * A batch task's slot: its destination address divided by its size rounded down to a
	 * power of two (0 for other tasks). An engine that runs such copies whole may give the
	 * copies of one slot to one thread, so that each thread's slots stay in its own cache.
	 */
	uint64_t home;
};

/*
 * The most tasks a stage holds (struct odma_task_stage): more than a program usually keeps in
 * flight on one PE, so that a whole round of tasks resubmitted from their callbacks waits in
 * the stage for the next poll and comes back from it, without a trip through the PE's list.
 */
#define ODMA_TASK_STAGE_MAX 256

/* Which bytes of a task odma_task_run moves. */
enum odma_part {
	ODMA_PART_ALL = 0,
	ODMA_PART_HEAD, /* [0, split_at) */
	ODMA_PART_TAIL, /* [split_at, bytes) */
};

struct odma_engine_ops {
	/* Engine name for ODMA_ENGINE. */
	const char *name;

	/* Per-PE set-up at doca_pe_create. May allocate; NO_MEMORY etc. fail the creation. */
	doca_error_t (*pe_init)(struct doca_pe *pe, void **engine_pe);

	/* Per-PE tear-down at doca_pe_destroy, with nothing in flight; may block briefly. */
	void (*pe_fini)(void *engine_pe);

	/*
	 * Takes one validated task; must not block, allocate or run a callback. @doorbell
	 * false: more tasks follow, the engine may wait for the next doorbell before starting
	 * them. Returns DOCA_SUCCESS, or DOCA_ERROR_AGAIN when it has no room (the task stays
	 * unsubmitted). Every accepted task is handed back exactly once, after odma_task_run
	 * has run on all of its bytes (ALL, or HEAD and TAIL): through odma_pe_complete_local
	 * on the PE thread, or from poll.
	 */
	doca_error_t (*submit)(void *engine_pe, struct doca_task *task, const struct odma_job *job,
	                       bool doorbell);

	/* Makes every earlier submit visible to the engine. */
	void (*doorbell)(void *engine_pe);

	/* Stores up to @max finished tasks in @done (from doca_pe_progress); returns how many. */
	unsigned int (*poll)(void *engine_pe, struct doca_task **done, unsigned int max);

	/* Whether finished tasks wait for poll. */
	bool (*pending)(void *engine_pe);

	/*
	 * Called by doca_pe_request_notification before it arms the PE (PE thread): the
	 * program is about to sleep on the notification handle and will most likely submit
	 * again as soon as it is woken. An engine with threads of its own may keep them
	 * ready for that (within a bounded budget), and may wait a bounded time for tasks
	 * in flight to finish so that a short task completes without the program sleeping.
	 * Returns within its budget whatever happens. odma_engine_nop_arm does nothing.
	 */
	void (*arm)(void *engine_pe);

	/*
	 * Optional fast path (NULL: none), asked once when a context connects to the PE: a
	 * stage of the engine's into which the core appends, on the PE thread and without
	 * calling submit, every task that is accepted, unordered (in_order false), not batch
	 * and of at most *@max_bytes bytes, with odma_task_stage_add. The engine runs the stage
	 * (odma_task_stage_run, or odma_task_run_batch and poll) at the latest at its next poll,
	 * before a task with in_order set, and counts it in pending. The engine may change the
	 * stage's contents (n, task[]) from its own ops only.
	 */
	struct odma_task_stage *(*hold)(void *engine_pe, uint64_t *max_bytes);
};

/*
 * Core services for engines (core/exec implements them).
 *
 * odma_task_run: moves @part of the task's bytes after the checks every part passes (an
 * injected delay, a failure decided at submit, a flush of its context); a failure is
 * stored in the task's status. Any thread; the two parts of a split task may run at once.
 *
 * odma_pe_complete_local: hands a finished task back on the PE thread.
 *
 * odma_pe_signal: wakes an armed PE (any thread) after finished tasks became visible to
 * its poll.
 */
void odma_task_run(struct doca_task *task, enum odma_part part);
/*
 * odma_task_run_range: the same checks, then bytes [@off, @off + @len) of the task's copy
 * (any copy: a list is walked to @off). Any thread; several threads may run disjoint ranges
 * of one task at once. A task whose ranges cover [0, bytes) exactly once, and that is
 * handed back once after the last of them finished, is a split task (a task with in_order
 * set is never cut: its completion must keep its place on one queue; nor is a local one
 * with split_at 0, see struct odma_job).
 */
void odma_task_run_range(struct doca_task *task, uint64_t off, uint64_t len);
/*
 * odma_task_run_batch: odma_task_run(tasks[i], ODMA_PART_ALL) for each of @n tasks
 * (any n, none split), with the bytes of consecutive tasks moved by
 * shared system calls. Each task ends with the status it would have had run alone, in
 * order: a task whose bytes could not be moved fails (and flushes the later tasks of its
 * context), the others complete. Any one thread; the engine hands each task back after.
 */
void odma_task_run_batch(struct doca_task *const *tasks, unsigned int n);
/* odma_task_bytes: the bytes a (staged, unsplit) task moves: its job's bytes. */
uint64_t odma_task_bytes(const struct doca_task *task);
void odma_pe_complete_local(struct doca_pe *pe, struct doca_task *task);
void odma_pe_signal(struct doca_pe *pe);
/*
 * odma_pe_held: the PE thread keeps work that only the next progress finishes (a staged task,
 * a split copy whose last chunk it ran itself): wakes the PE if it is armed. PE thread only;
 * one relaxed load when the PE is not armed.
 */
void odma_pe_held(struct doca_pe *pe);

/*
 * Tasks with job->batch that an engine holds back on the PE thread to run as one batch,
 * e.g. until the next poll: a program that submits from its callbacks hands over a whole
 * round of tasks between two progress calls, and they move with one system call.
 */
struct odma_task_stage {
	unsigned int n;
	struct doca_task *task[ODMA_TASK_STAGE_MAX];
};

/* Runs the staged tasks as one batch and hands each back (PE thread); empties the stage. */
static inline void odma_task_stage_run(struct odma_task_stage *s, struct doca_pe *pe)
{
	unsigned int n = s->n;

	if (n == 0)
		return;
	s->n = 0;
	odma_task_run_batch(s->task, n);
	for (unsigned int i = 0; i < n; i++)
		odma_pe_complete_local(pe, s->task[i]);
}

/* Runs the stage when it is full (kept out of the callers: no saved registers for it). */
void odma_task_stage_full(struct odma_task_stage *s, struct doca_pe *pe);

/*
 * Stages @task; runs the stage when it is full. A staged task is work that only progress
 * runs, so the first task of an empty stage wakes an armed PE (odma_pe_held). Later ones need
 * not: a PE armed while the stage holds tasks sees them at arming (the engine's pending op).
 */
static inline void odma_task_stage_add(struct odma_task_stage *s, struct doca_pe *pe,
                                       struct doca_task *task)
{
	unsigned int n = s->n;

	if (doca_unlikely(n == 0))
		odma_pe_held(pe);
	s->task[n++] = task;
	s->n = n;
	if (doca_unlikely(n == ODMA_TASK_STAGE_MAX))
		odma_task_stage_full(s, pe);
}

/*
 * The staged tasks for poll: runs them as one batch and stores them in @done (up to @max;
 * a stage with more is run and handed back through the PE's list instead). Returns how many
 * are in @done.
 */
static inline unsigned int odma_task_stage_poll(struct odma_task_stage *s, struct doca_pe *pe,
                                                struct doca_task **done, unsigned int max)
{
	unsigned int n = s->n;

	if (doca_unlikely(n == 0))
		return 0;
	if (doca_unlikely(n > max)) {
		odma_task_stage_run(s, pe);
		return 0;
	}
	s->n = 0;
	odma_task_run_batch(s->task, n);
	memcpy(done, s->task, n * sizeof(done[0]));
	return n;
}

/* Do-nothing ops for engines that need none. */
void odma_engine_nop_doorbell(void *engine_pe);
void odma_engine_nop_arm(void *engine_pe);

/* The engine selected by ODMA_ENGINE (default "thread"); NULL and a log line if unknown. */
const struct odma_engine_ops *odma_engine_select(void);

extern const struct odma_engine_ops odma_engine_inline;
extern const struct odma_engine_ops odma_engine_thread;

#endif /* ODMA_ENGINES_ENGINE_H_ */
