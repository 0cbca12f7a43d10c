/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Running a task: the submit op checks its buffers (errors returned to doca_task_submit),
 * then its sizes against its matrix (a mismatch completes the task with INVALID_VALUE, as a
 * hardware queue would take it and fail it), applies the matrix with ISA-L and completes
 * the task through the PE: its callback runs from doca_pe_progress, never inside submit.
 *
 * Blocks are used in place when each lies inside one list element; a block that straddles
 * two elements is staged in the context's scratch buffer (gathered before, scattered after).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <isa-l/erasure_code.h>

#include "core/copy/copy.h"
#include "core/device/device.h"
#include "core/error/error.h"
#include "core/log/log.h"
#include "core/memory/memory.h"
#include "erasure_coding/ec.h"

ODMA_LOG_REGISTER(ODMA_EC_RUN)

/* The largest run ec_encode_data takes at once (its length is an int). */
#define EC_CHUNK (1u << 30)

static uint32_t ec_max_list(const struct doca_ec *ec)
{
	uint32_t v = ec->ctx.dev->info->caps.ec_max_buf_list_len;

	return v ? v : EC_DEFAULT_MAX_BUF_LIST_LEN;
}

static uint64_t ec_max_block(const struct doca_ec *ec)
{
	uint64_t v = ec->ctx.dev->info->caps.ec_max_block_size;

	return v ? v : EC_DEFAULT_MAX_BLOCK_SIZE;
}

/*
 * The memory of one element: local, registered (its mmap started; a thread-safe mmap may be
 * stopped under its bufs), reached by the context's device, writable for a destination.
 */
static doca_error_t ec_check_mem(const struct doca_ec *ec, const struct ec_task *t,
                                 const struct doca_buf *b, bool dst)
{
	const char *side = dst ? "destination" : "source";
	const struct doca_mmap *mm = b->mmap;
	doca_error_t r;

	if (mm->from_export || mm->kind != ODMA_MEM_LOCAL) {
		ODMA_ERR_AT("doca_task_submit",
		            "EC %s task %p: the %s is memory of an mmap created from an "
		            "export; odma's erasure coding runs on local memory only",
		            odma_ec_type_names[t->type], (const void *)t, side);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if ((r = odma_buf_registered("EC", odma_ec_type_names[t->type], t, b)) != DOCA_SUCCESS)
		return r;
	if (!odma_mmap_has_dev(mm, ec->ctx.dev) ||
	    (dst && odma_perm_local_write(mm->perms) == ODMA_PERM_NO)) {
		ODMA_ERR_AT("doca_task_submit", "EC %s task %p: the %s's mmap %s",
		            odma_ec_type_names[t->type], (const void *)t, side,
		            !odma_mmap_has_dev(mm, ec->ctx.dev)
		                    ? "was never given the context's device (doca_mmap_add_dev)"
		                    : "does not grant local writes "
		                      "(DOCA_ACCESS_FLAG_LOCAL_READ_WRITE)");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	return DOCA_SUCCESS;
}

/* One side's buffer rules; logs why not and returns the error for doca_task_submit. */
static doca_error_t ec_check_buf(const struct doca_ec *ec, const struct ec_task *t,
                                 const struct doca_buf *b, bool dst)
{
	const char *side = dst ? "destination" : "source";
	doca_error_t r = DOCA_SUCCESS;

	if (b == NULL) {
		ODMA_ERR_AT("doca_task_submit", "EC %s task %p has no %s buffer",
		            odma_ec_type_names[t->type], (const void *)t, side);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!b->in_use || !odma_buf_is_head(b) || b->list_len > ec_max_list(ec)) {
		ODMA_ERR_AT("doca_task_submit", "EC %s task %p: the %s buf %p %s",
		            odma_ec_type_names[t->type], (const void *)t, side, (const void *)b,
		            !b->in_use ? "was released to its inventory"
		            : !odma_buf_is_head(b)
		                    ? "is not the head of its list"
		                    : "is a list longer than doca_ec_cap_get_max_buf_list_len");
		return DOCA_ERROR_INVALID_VALUE;
	}
	for (const struct doca_buf *e = b; e != NULL && r == DOCA_SUCCESS; e = e->next)
		r = ec_check_mem(ec, t, e, dst);
	return r;
}

/* The block size of @t, or 0 with one line saying why its sizes do not fit. */
static size_t ec_block_size(const struct doca_ec *ec, const struct ec_task *t)
{
	const struct doca_ec_matrix *m = t->matrix;
	size_t total = odma_buf_list_data_len(t->src), bs = total / m->in;
	const char *why = NULL;

	if (total == 0 || total % m->in != 0)
		why = "the source's data length is not a whole number of blocks for the matrix";
	else if (bs % EC_BLOCK_ALIGN != 0)
		why = "the block size is not a multiple of 64 bytes (pad the blocks)";
	else if (bs > ec_max_block(ec))
		why = "the block size is above doca_ec_cap_get_max_block_size";
	else if (odma_buf_list_room(t->dst) / bs < m->out)
		why = "the destination's free space is smaller than the blocks the task writes";
	else if (doca_priv_buf_writes_overlap(t->src, t->dst, (uint64_t)m->out * bs))
		why = "the blocks it would write overlap its source";
	if (why == NULL)
		return bs;
	ODMA_ERR_AT("doca_task_submit",
	            "EC %s task %p fails: %s (source %zu bytes for %u input blocks, destination "
	            "room %zu bytes for %u output blocks)",
	            odma_ec_type_names[t->type], (const void *)t, why, total, m->in,
	            odma_buf_list_room(t->dst), m->out);
	return 0;
}

/* Where byte @off of a list's data (@dst false) or free space (@dst true) is, if the
 * @len bytes from there lie in one element; else NULL. */
static uint8_t *ec_locate(const struct doca_buf *b, size_t off, size_t len, bool dst)
{
	for (; b != NULL; b = b->next) {
		size_t seg = dst ? odma_buf_room(b) : b->data_len;
		uint8_t *base = dst ? b->data + b->data_len : b->data;

		if (off < seg)
			return off + len <= seg ? base + off : NULL;
		off -= seg;
	}
	return NULL;
}

/* Copies @len bytes between a list's data (or free space) at @off and @flat. */
static void ec_move(const struct doca_buf *b, size_t off, uint8_t *flat, size_t len, bool dst)
{
	for (; b != NULL && len > 0; b = b->next) {
		size_t seg = dst ? odma_buf_room(b) : b->data_len, n;
		uint8_t *base = dst ? b->data + b->data_len : b->data;

		if (off >= seg) {
			off -= seg;
			continue;
		}
		n = seg - off < len ? seg - off : len;
		if (dst)
			memcpy(base + off, flat, n);
		else
			memcpy(flat, base + off, n);
		flat += n;
		len -= n;
		off = 0;
	}
}

static bool ec_scratch(struct doca_ec *ec, size_t need)
{
	uint8_t *p;

	if (need <= ec->scratch_len)
		return true;
	p = realloc(ec->scratch, need);
	if (p == NULL)
		return false;
	ec->scratch = p;
	ec->scratch_len = need;
	return true;
}

/*
 * Block @i of the task (the matrix's inputs, then its outputs): where it lies whole, or NULL
 * when it straddles two list elements. *@d: whether it is an output; *@off: its offset.
 */
static uint8_t *ec_block(const struct ec_task *t, uint32_t i, size_t bs, bool *d, size_t *off)
{
	const struct doca_ec_matrix *m = t->matrix;

	*d = i >= m->in;
	*off = (*d ? i - m->in : i) * bs;
	return ec_locate(*d ? t->dst : t->src, *off, bs, *d);
}

/* Makes room in scratch for the blocks that straddle two list elements (false: no memory). */
static bool ec_reserve_staging(struct doca_ec *ec, const struct ec_task *t, size_t bs)
{
	const struct doca_ec_matrix *m = t->matrix;
	size_t staged = 0, off;
	bool d;

	for (uint32_t i = 0; i < m->in + m->out; i++)
		if (ec_block(t, i, bs, &d, &off) == NULL)
			staged++;
	return staged == 0 || ec_scratch(ec, staged * bs);
}

/* Points @in and @out at the blocks, gathering straddlers into scratch (reserved before). */
static void ec_map_blocks(struct doca_ec *ec, const struct ec_task *t, size_t bs, uint8_t **in,
                          uint8_t **out)
{
	const struct doca_ec_matrix *m = t->matrix;
	size_t staged = 0;

	for (uint32_t i = 0; i < m->in + m->out; i++) {
		bool d;
		size_t off;
		uint8_t *p = ec_block(t, i, bs, &d, &off);

		if (p == NULL) {
			p = ec->scratch + staged++ * bs;
			if (!d)
				ec_move(t->src, off, p, bs, false);
		}
		(d ? out : in)[d ? i - m->in : i] = p;
	}
}

/* Writes back staged output blocks and grows the destination's data by what was written. */
static void ec_finish_dst(const struct ec_task *t, size_t bs, uint8_t **out)
{
	const struct doca_ec_matrix *m = t->matrix;
	size_t left = (size_t)m->out * bs;

	for (uint32_t j = 0; j < m->out; j++)
		if (ec_locate(t->dst, j * bs, bs, true) == NULL)
			ec_move(t->dst, j * bs, out[j], bs, true);
	for (struct doca_buf *b = t->dst; b != NULL && left > 0; b = b->next) {
		size_t n = odma_buf_room(b) < left ? odma_buf_room(b) : left;

		b->data_len += n;
		left -= n;
	}
}

struct ec_apply_arg {
	struct doca_ec *ec;
	const struct ec_task *t;
	size_t bs;
};

/* Everything that touches the program's blocks, under the fault guard (no lock, no allocation). */
static void ec_apply_guarded(void *arg)
{
	const struct ec_apply_arg *a = arg;
	const struct doca_ec_matrix *m = a->t->matrix;
	uint8_t *in[2 * EC_MAX_DATA_BLOCKS + EC_MAX_RDNC_BLOCKS];
	uint8_t *out[EC_MAX_RDNC_BLOCKS];
	uint8_t *pi[2 * EC_MAX_DATA_BLOCKS + EC_MAX_RDNC_BLOCKS], *po[EC_MAX_RDNC_BLOCKS];

	ec_map_blocks(a->ec, a->t, a->bs, in, out);
	for (size_t done = 0; done < a->bs; done += EC_CHUNK) {
		int len = (int)(a->bs - done < EC_CHUNK ? a->bs - done : EC_CHUNK);

		for (uint32_t i = 0; i < m->in; i++)
			pi[i] = in[i] + done;
		for (uint32_t j = 0; j < m->out; j++)
			po[j] = out[j] + done;
		ec_encode_data(len, (int)m->in, (int)m->out, m->gftbls, pi, po);
	}
	ec_finish_dst(a->t, a->bs, out);
}

/*
 * Applies the task's matrix. Memory of a started mmap that the program unmapped or protected
 * fails the task with IO_FAILED (the copy fault guard) instead of crashing it.
 */
static doca_error_t ec_apply(struct doca_ec *ec, const struct ec_task *t, size_t bs)
{
	struct ec_apply_arg a = { ec, t, bs };

	if (!ec_reserve_staging(ec, t, bs)) {
		ODMA_ERR_AT("doca_task_submit", "out of memory staging %zu-byte blocks", bs);
		return DOCA_ERROR_NO_MEMORY;
	}
	return doca_priv_copy_guarded(ec_apply_guarded, &a);
}

doca_error_t odma_ec_submit(struct doca_task *task)
{
	struct ec_task *t = (struct ec_task *)task;
	struct doca_ec *ec = (struct doca_ec *)task->ctx;
	doca_error_t r;
	size_t bs;

	if (t->matrix == NULL || !odma_ec_matrix_alive(ec, t->matrix)) {
		ODMA_ERR_AT("doca_task_submit",
		            "EC %s task %p names matrix %p, which is not a live matrix of its "
		            "context (destroyed, or made by another context)",
		            odma_ec_type_names[t->type], (void *)t, (const void *)t->matrix);
		return DOCA_ERROR_INVALID_VALUE;
	}
	r = ec_check_buf(ec, t, t->src, false);
	if (r == DOCA_SUCCESS)
		r = ec_check_buf(ec, t, t->dst, true);
	if (r != DOCA_SUCCESS)
		return r;
	bs = ec_block_size(ec, t);
	r = bs == 0 ? DOCA_ERROR_INVALID_VALUE : ec_apply(ec, t, bs);
	doca_priv_task_complete(task, r);
	return DOCA_SUCCESS;
}
