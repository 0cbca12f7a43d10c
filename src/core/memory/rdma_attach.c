/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * An RDMA import reached directly: libdoca_rdma attaches the exporter's region record over
 * the endpoint of its own connection to the exporter (odma_tp_ep_attach), and then moves a
 * read's or a write's bytes as transport ios on that attachment (odma_tp_io_start), checked
 * by the exporter against the record like every transport request. A re-export names no
 * record (region id 0): only requests on the connection, which its exporter forwards, reach it.
 */
#include <string.h>

#include "core/memory/memory.h"

doca_error_t doca_priv_rdma_mem_attach(const struct doca_mmap *mmap, struct odma_tp_ep *ep,
                                       struct odma_tp_remote *rm)
{
	const struct odma_tp_remote *from = mmap != NULL ? mmap->remote : NULL;
	struct odma_tp_reach r;

	if (from == NULL || !mmap->rdma_import || from->region_id == 0)
		return DOCA_ERROR_NOT_SUPPORTED;
	memset(&r, 0, sizeof(r));
	r.addr = from->addr;
	r.len = from->len;
	r.perms = from->perms;
	r.record_addr = from->record_addr;
	r.region_id = from->region_id;
	memcpy(r.key, from->key, sizeof(r.key));
	r.generation = from->generation;
	return odma_tp_ep_attach(ep, &r, rm);
}

void doca_priv_rdma_mem_detach(struct odma_tp_remote *rm)
{
	odma_tp_detach(rm);
}
