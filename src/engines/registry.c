/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
#include <stdlib.h>
#include <string.h>

#include "engines/engine.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(ODMA_ENGINE)

/* The first entry is the default. */
static const struct odma_engine_ops *const odma_engines[] = {
	&odma_engine_thread,
	&odma_engine_inline,
};

void odma_engine_nop_doorbell(void *engine_pe)
{
	(void)engine_pe;
}

unsigned int odma_engine_nop_poll(void *engine_pe, struct doca_task **done, unsigned int max)
{
	(void)engine_pe;
	(void)done;
	(void)max;
	return 0;
}

bool odma_engine_nop_pending(void *engine_pe)
{
	(void)engine_pe;
	return false;
}

const struct odma_engine_ops *odma_engine_find(const char *name)
{
	for (size_t i = 0; i < sizeof(odma_engines) / sizeof(odma_engines[0]); i++)
		if (strcmp(odma_engines[i]->name, name) == 0)
			return odma_engines[i];
	return NULL;
}

const struct odma_engine_ops *odma_engine_select(void)
{
	const char *name = getenv("ODMA_ENGINE");
	const struct odma_engine_ops *e;

	if (name == NULL || *name == '\0')
		return odma_engines[0];
	e = odma_engine_find(name);
	if (e == NULL)
		ODMA_ERR("ODMA_ENGINE=\"%s\" names no engine; use \"thread\" or \"inline\"", name);
	return e;
}
