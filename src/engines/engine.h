/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The engine contract: the only header an engine includes (with ctx_priv.h for the
 * task layout). The core has validated every task an engine sees and owns every
 * state; an engine decides where and when a task's copy runs (odma_task_execute),
 * and hands each task back to its PE exactly once, with task->status set.
 */
#ifndef ODMA_ENGINE_H_
#define ODMA_ENGINE_H_

#include <stdbool.h>

#include <doca_error.h>

#include "core/exec/exec.h"

struct odma_engine_ops {
	/* Engine name for ODMA_ENGINE. Required. */
	const char *name;

	/* Per-PE set-up at doca_pe_create (application thread). Required. May allocate. */
	doca_error_t (*pe_init)(struct doca_pe *pe, void **engine_pe);

	/*
	 * Per-PE tear-down at doca_pe_destroy. Required. Called with nothing in flight;
	 * may block briefly (joins nothing shared).
	 */
	void (*pe_fini)(void *engine_pe);

	/*
	 * Takes one validated task (PE thread). Required; must not block, allocate or
	 * call a callback. @doorbell false: more tasks follow, the engine may wait for
	 * the next doorbell before starting them. Returns DOCA_SUCCESS, or
	 * DOCA_ERROR_AGAIN when the engine has no room (the task stays unsubmitted).
	 */
	doca_error_t (*submit)(void *engine_pe, struct doca_task *task, bool doorbell);

	/* Makes every earlier submit visible to the engine (PE thread). Optional. */
	void (*doorbell)(void *engine_pe);

	/*
	 * Appends finished tasks to @done (PE thread, from doca_pe_progress). Optional:
	 * an engine that completes through odma_pe_complete_local leaves it NULL.
	 * Returns the number of tasks appended.
	 */
	unsigned int (*poll)(void *engine_pe, struct odma_task_list *done);

	/* Whether finished tasks wait for poll (any thread that owns the PE). Optional. */
	bool (*pending)(void *engine_pe);
};

/* The engine selected by ODMA_ENGINE (default "thread"); NULL and a log line if unknown. */
const struct odma_engine_ops *odma_engine_select(void);

/* Lookup by name; NULL if unknown. */
const struct odma_engine_ops *odma_engine_find(const char *name);

extern const struct odma_engine_ops odma_engine_inline;
extern const struct odma_engine_ops odma_engine_thread;

#endif /* ODMA_ENGINE_H_ */
