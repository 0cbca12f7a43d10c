/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The local mover: both ends in this process' memory; memmove under the fault guard, so
 * memory unmapped or write-protected after its mmap started fails the copy instead of
 * killing the process. memmove rather than memcpy keeps even an overlapping submit (not
 * refused by doca_task_submit) memory-safe. A big copy into memory out of the cache is
 * written with streaming stores instead (stream.c).
 */
#include <string.h>

#include "core/copy/mover.h"

/* A list on either side: piece by piece. */
static void __attribute__((noinline))
local_copy_pieces(const struct odma_copy *c, uint64_t off, uint64_t len)
{
	struct odma_copy_cursor cur;
	struct odma_piece p;

	odma_copy_cursor_init(&cur, c, off, len);
	while (odma_copy_cursor_next(&cur, &p))
		odma_local_run(p.dst, p.src, p.len, c->total);
}

static inline void local_copy(const struct odma_copy *c, uint64_t off, uint64_t len)
{
	const struct doca_buf *s = c->src, *d = c->dst;

	if (doca_likely(s->next == NULL && d->next == NULL)) {
		if (odma_copy_one_holds(c))
			odma_local_run(d->data + d->data_len + off, s->data + off, len, c->total);
	} else {
		local_copy_pieces(c, off, len);
	}
}

static doca_error_t local_move(const struct odma_copy *c, uint64_t off, uint64_t len)
{
	struct odma_guard g;

	if (doca_unlikely(!odma_guard_on)) {
		local_copy(c, off, len);
		return DOCA_SUCCESS;
	}
	if (sigsetjmp(g.env, 0) != 0)
		return odma_guard_fault(&g);
	odma_guard_enter(&g);
	local_copy(c, off, len);
	odma_guard_leave();
	return DOCA_SUCCESS;
}

/*
 * Whole copies, in order, under one fault guard: one sigsetjmp for the batch rather than one
 * per copy. Every st[i] is written; a fault fails the copy it hit and the walk resumes after
 * it, so a fault still fails only its own copy. The index of the copy under way is stored in
 * the guard (volatile: the jump back reads it from there, not from a register). Returns
 * whether any copy failed.
 */
bool odma_local_move_batch(const struct odma_copy *const *c, unsigned int n, doca_error_t *st)
{
	struct odma_guard g;
	unsigned int i;

	if (doca_unlikely(!odma_guard_on)) {
		for (i = 0; i < n; i++) {
			local_copy(c[i], 0, c[i]->total);
			st[i] = DOCA_SUCCESS;
		}
		return false;
	}
	g.failed = false;
	i = 0;
	if (sigsetjmp(g.env, 0) != 0) {
		i = g.at; /* the copy that faulted: it fails, the batch goes on after it */
		st[i++] = odma_guard_fault(&g);
		g.failed = true;
	}
	odma_guard_enter(&g);
	for (; i < n; i++) {
		g.at = i;
		local_copy(c[i], 0, c[i]->total);
		st[i] = DOCA_SUCCESS;
	}
	odma_guard_leave();
	return g.failed;
}

static void local_move_batch(const struct odma_copy *const *c, unsigned int n, doca_error_t *st)
{
	(void)odma_local_move_batch(c, n, st);
}

const struct odma_mover odma_mover_local = {
	.name = "local",
	.kind = ODMA_MEM_LOCAL,
	.move = local_move,
	.move_batch = local_move_batch,
};
