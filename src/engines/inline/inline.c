/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The inline engine: a task's bytes move on the submitting thread, inside submit, and
 * the completion waits on the PE's list for the next doca_pe_progress(). Simple and
 * deterministic: the reference the thread engine is checked against.
 */
#include "engines/engine.h"

static doca_error_t inline_pe_init(struct doca_pe *pe, void **engine_pe)
{
	*engine_pe = pe;
	return DOCA_SUCCESS;
}

static void inline_pe_fini(void *engine_pe)
{
	(void)engine_pe;
}

static doca_error_t inline_submit(void *engine_pe, struct doca_task *task,
                                  const struct odma_job *job, bool doorbell)
{
	(void)job;
	(void)doorbell;
	odma_task_run(task, ODMA_PART_ALL);
	odma_pe_complete_local(engine_pe, task);
	return DOCA_SUCCESS;
}

const struct odma_engine_ops odma_engine_inline = {
	.name = "inline",
	.pe_init = inline_pe_init,
	.pe_fini = inline_pe_fini,
	.submit = inline_submit,
	.doorbell = odma_engine_nop_doorbell,
	.poll = odma_engine_nop_poll,
	.pending = odma_engine_nop_pending,
	.arm = odma_engine_nop_arm,
};
