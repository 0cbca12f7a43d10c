/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The UCX row of the transport table: what needs no UCX (its name, which exporters it
 * reaches, its status line) and how to get the UCX transport itself (ucx.c and the files it
 * names) when a peer needs it.
 */
#include "core/transport/tp_int.h"

#ifdef ODMA_HAVE_UCX
#include "core/transport/ucx_int.h"
#else
#define UCX_NOT_BUILT                                                                              \
	"not built: odma was built without UCX (libucx-dev); hosts and DPUs in different "         \
	"namespaces or machines cannot reach each other (install libucx-dev and rebuild)"
#endif

static const struct odma_tp_ops *ucx_row_load(const char **why)
{
#ifdef ODMA_HAVE_UCX
	(void)why;
	return &odma_ucx_ops;
#else
	*why = UCX_NOT_BUILT;
	return NULL;
#endif
}

static bool ucx_row_reachable(const struct odma_tp_reach *r, const char **why)
{
	if (r->net_len == 0) {
		*why = "its descriptor carries no network address (run the exporter with "
		       "ODMA_FABRIC "
		       "set, the same on both sides)";
		return false;
	}
	return ucx_row_load(why) != NULL;
}

static const char *ucx_row_status(void)
{
	const char *why = NULL;
	const struct odma_tp_ops *ops = ucx_row_load(&why);

	return ops != NULL ? ops->status() : why;
}

const struct odma_tp_ops odma_tp_row_ucx = {
	.name = "ucx",
	.kind = ODMA_TP_UCX,
	.network = true,
	.reachable = ucx_row_reachable,
	.status = ucx_row_status,
	.load = ucx_row_load,
};
