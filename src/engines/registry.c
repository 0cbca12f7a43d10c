/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
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

void odma_engine_nop_arm(void *engine_pe)
{
	(void)engine_pe;
}

const struct odma_engine_ops *odma_engine_select(void)
{
	int i; /* core/config's choices for ODMA_ENGINE are in the order of registry_engines[] */

	if (odma_config_choice("ODMA_ENGINE", 0, &i) != DOCA_SUCCESS)
		return NULL;
	return registry_engines[i];
}
