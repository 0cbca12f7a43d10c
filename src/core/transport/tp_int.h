/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Inside core/transport only: the rows of the transport table and shared helpers. */
#ifndef ODMA_CORE_TRANSPORT_TP_INT_H_
#define ODMA_CORE_TRANSPORT_TP_INT_H_

#include "core/transport/transport.h"

/*
 * THE list of transports, in the order odma_tp_choose prefers them: one line per row, each
 * row a `const struct odma_tp_ops odma_tp_row_NAME` defined by its own file. Adding a
 * transport is its file and one line here.
 */
#define ODMA_TP_ROWS(X)                                                                            \
	X(process) /* process.c: CMA, one kernel and PID namespace */                              \
	X(ucx)     /* ucx_row.c: UCX, TCP between namespaces or machines */

#define ODMA_TP_ROW_DECLARE(name) extern const struct odma_tp_ops odma_tp_row_##name;
ODMA_TP_ROWS(ODMA_TP_ROW_DECLARE)
#undef ODMA_TP_ROW_DECLARE

/* Whether the exporter of @r shares our kernel and PID namespace. */
bool odma_tp_same_kernel(const struct odma_tp_reach *r);

/*
 * The issued descriptor of region @id when @key and @generation match a live record
 * (copied into @out, ODMA_TP_ISSUED_MAX bytes); 0 otherwise.
 */
size_t odma_tp_region_issued(uint64_t id, const uint8_t key[16], uint32_t generation, uint8_t *out);

/*
 * The gates (tp_gate.c). Exporter: gives @reg an in-flight word if it has none (under the
 * registry lock; false when the gate file cannot be made or is full); waits for the word of
 * @reg, marked revoked, to drain: false when it did not by @deadline_ms (logged; the word is
 * then retired).
 */
bool odma_tp_gate_slot_locked(struct odma_tp_region *reg);
bool odma_tp_gate_drain(const struct odma_tp_region *reg, uint64_t deadline_ms);
/* In a forked child, under the registry lock: the gate file of the parent is forgotten. */
void odma_tp_gate_forget(void);
/*
 * Importer: maps the word @slot of the gate file that is descriptor @fd_no of exporter @pid
 * (NULL with errno: EACCES/EPERM refused, EINVAL no gate of ours); raises and lowers it.
 */
uint32_t *odma_tp_gate_map(uint32_t pid, int32_t fd_no, uint32_t slot);
void odma_tp_gate_unmap(uint32_t *word);
void odma_tp_gate_enter(uint32_t *word);
void odma_tp_gate_leave(uint32_t *word);

#endif /* ODMA_CORE_TRANSPORT_TP_INT_H_ */
