/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
#include <stdlib.h>
#include <string.h>

#include "core/config/config.h"
#include "core/log/log.h"
#include "engines/engine.h"

ODMA_LOG_REGISTER(ODMA_ENGINE)

/* The first entry is the default. */
static const struct odma_engine_ops *const registry_engines[] = {
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

void odma_engine_nop_arm(void *engine_pe)
{
	(void)engine_pe;
}

const struct odma_engine_ops *odma_engine_find(const char *name)
{
	for (size_t i = 0; i < sizeof(registry_engines) / sizeof(registry_engines[0]); i++)
		if (strcmp(registry_engines[i]->name, name) == 0)
			return registry_engines[i];
	return NULL;
}

const struct odma_engine_ops *odma_engine_select(void)
{
	int i; /* core/config's choices for ODMA_ENGINE are in the order of registry_engines[] */

	if (odma_config_choice("ODMA_ENGINE", 0, &i) != DOCA_SUCCESS)
		return NULL;
	return registry_engines[i];
}
