/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Inside core/transport only: the transports of the table and shared helpers. */
#ifndef ODMA_CORE_TRANSPORT_TP_INT_H_
#define ODMA_CORE_TRANSPORT_TP_INT_H_

#include "core/transport/transport.h"

extern const struct odma_tp_ops odma_tp_process; /* process.c */
#ifdef ODMA_HAVE_UCX
extern const struct odma_tp_ops odma_tp_ucx; /* ucx.c */
/* "built in (UCX x.y.z: ...)", without starting the transport */
const char *odma_tp_ucx_version(void);
#endif

/* Whether the exporter of @r shares our kernel and PID namespace. */
bool odma_tp_same_kernel(const struct odma_tp_reach *r);

/* ODMA_TRANSPORT: -1 auto, else the forced enum odma_tp_kind. */
int odma_tp_forced(void);

/*
 * The issued descriptor of region @id when @key and @generation match a live record
 * (copied into @out, ODMA_TP_ISSUED_MAX bytes); 0 otherwise.
 */
size_t odma_tp_region_issued(uint64_t id, const uint8_t key[16], uint32_t generation, uint8_t *out);

#endif /* ODMA_CORE_TRANSPORT_TP_INT_H_ */
