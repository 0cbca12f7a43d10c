/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The inline engine: a task's bytes move on the PE's thread, and the completion is handed
 * back by the next doca_pe_progress(). Simple and deterministic: the reference the thread
 * engine is checked against. Tasks are held until the next progress (or until
 * ODMA_TASK_BATCH_MAX wait) and moved there together, still on the PE thread: local copies
 * as one batch under one fault guard, and tasks that cost a system call each (job->batch:
 * another process' memory) with shared system calls. A task that must keep its order
 * (job->in_order) runs at once, after everything held before it.
 */
#include <stdlib.h>
#include <string.h>

#include "engines/engine.h"

struct ie_pe {
	struct doca_pe *pe;
	struct odma_task_stage stage; /* job->batch tasks */
	struct odma_task_stage local; /* the others, handed back straight from poll */
};

static doca_error_t inline_pe_init(struct doca_pe *pe, void **engine_pe)
{
	struct ie_pe *ip = calloc(1, sizeof(*ip));

	if (ip == NULL)
		return DOCA_ERROR_NO_MEMORY;
	ip->pe = pe;
	*engine_pe = ip;
	return DOCA_SUCCESS;
}

static void inline_pe_fini(void *engine_pe)
{
	free(engine_pe);
}

static doca_error_t inline_submit(void *engine_pe, struct doca_task *task,
                                  const struct odma_job *job, bool doorbell)
{
	struct ie_pe *ip = engine_pe;

	(void)doorbell;
	if (doca_likely(!job->in_order)) {
		odma_task_stage_add(job->batch ? &ip->stage : &ip->local, ip->pe, task);
		return DOCA_SUCCESS;
	}
	/* nothing overtakes a held task */
	odma_task_stage_run(&ip->local, ip->pe);
	odma_task_stage_run(&ip->stage, ip->pe);
	odma_task_run(task, ODMA_PART_ALL);
	odma_pe_complete_local(ip->pe, task);
	return DOCA_SUCCESS;
}

static unsigned int inline_poll(void *engine_pe, struct doca_task **done, unsigned int max)
{
	struct ie_pe *ip = engine_pe;
	unsigned int n = ip->local.n;

	if (doca_likely(n != 0 && n <= max)) {
		ip->local.n = 0;
		odma_task_run_batch(ip->local.task, n);
		memcpy(done, ip->local.task, n * sizeof(done[0]));
	} else {
		n = 0;
		odma_task_stage_run(&ip->local, ip->pe);
	}
	odma_task_stage_run(&ip->stage, ip->pe); /* hands them back through the PE's list */
	return n;
}

static bool inline_pending(void *engine_pe)
{
	const struct ie_pe *ip = engine_pe;

	return ip->stage.n != 0 || ip->local.n != 0;
}

/* Every unordered local task is held: the core appends them itself (engine.h, hold). */
static struct odma_task_stage *inline_hold(void *engine_pe, uint64_t *max_bytes)
{
	*max_bytes = UINT64_MAX;
	return &((struct ie_pe *)engine_pe)->local;
}

const struct odma_engine_ops odma_engine_inline = {
	.name = "inline",
	.pe_init = inline_pe_init,
	.pe_fini = inline_pe_fini,
	.submit = inline_submit,
	.doorbell = odma_engine_nop_doorbell,
	.poll = inline_poll,
	.pending = inline_pending,
	.arm = odma_engine_nop_arm,
	.hold = inline_hold,
};
