/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The four task types' allocation and accessors. They share one task struct (ec.h): the
 * type, the matrix, a source and a destination; the names differ per type as in DOCA.
 */
#include <doca_erasure_coding.h>

#include "core/log/log.h"
#include "erasure_coding/ec.h"

ODMA_LOG_REGISTER(ODMA_EC_TASK)

static doca_error_t ec_alloc(struct doca_ec *ec, enum ec_task_type type,
                             const struct doca_ec_matrix *matrix, const struct doca_buf *src,
                             struct doca_buf *dst, union doca_data ud, void **task, const char *fn)
{
	struct doca_task *base;
	struct ec_task *t;
	doca_error_t r;

	ODMA_CHECK_ARG(ec != NULL && task != NULL, "%s: ec and task must not be NULL", fn);
	ODMA_CHECK_ARG(matrix != NULL, "%s: the matrix must not be NULL", fn);
	ODMA_CHECK_ARG(odma_ec_matrix_alive(ec, matrix),
	               "%s: matrix %p is not a live matrix of context %p "
	               "(destroyed, or made by another context)",
	               fn, (const void *)matrix, (void *)ec);
	r = doca_priv_task_conf_alloc(&ec->ctx, &ec->conf[type], odma_ec_type_names[type], &base,
	                              fn);
	if (r != DOCA_SUCCESS)
		return r;
	t = (struct ec_task *)base;
	t->type = type;
	t->matrix = matrix;
	t->src = src;
	t->dst = dst;
	base->user_data = ud;
	*task = t;
	return DOCA_SUCCESS;
}

/* Buffers and matrix of a task in flight belong to the library until its callback. */
static struct ec_task *ec_settable(void *task, const char *fn)
{
	return doca_priv_task_settable(task, fn) ? task : NULL;
}

static void ec_set_matrix(void *task, const struct doca_ec_matrix *m, const char *fn)
{
	struct ec_task *t = ec_settable(task, fn);

	if (t != NULL)
		t->matrix = m;
}

static void ec_set_src(void *task, const struct doca_buf *b, const char *fn)
{
	struct ec_task *t = ec_settable(task, fn);

	if (t != NULL)
		t->src = b;
}

static void ec_set_dst(void *task, struct doca_buf *b, const char *fn)
{
	struct ec_task *t = ec_settable(task, fn);

	if (t != NULL)
		t->dst = b;
}

/*
 * One task type's public surface: set_conf, allocate_init, as_task and the three
 * setter/getter pairs (matrix, source, destination) under DOCA's names for that type.
 */
#define EC_TASK_API(T, TYPE, MAT, SRC, DST, DSTGET)                                                \
	doca_error_t doca_ec_task_##T##_set_conf(                                                  \
	        struct doca_ec *ec, doca_ec_task_##T##_completion_cb_t ok,                         \
	        doca_ec_task_##T##_completion_cb_t err, uint32_t num_tasks)                        \
	{                                                                                          \
		return odma_ec_set_conf(ec, TYPE, (void (*)(void))ok, (void (*)(void))err,         \
		                        num_tasks, __func__);                                      \
	}                                                                                          \
	doca_error_t doca_ec_task_##T##_allocate_init(                                             \
	        struct doca_ec *ec, const struct doca_ec_matrix *matrix,                           \
	        const struct doca_buf *src, struct doca_buf *dst, union doca_data user_data,       \
	        struct doca_ec_task_##T **task)                                                    \
	{                                                                                          \
		return ec_alloc(ec, TYPE, matrix, src, dst, user_data, (void **)task, __func__);   \
	}                                                                                          \
	struct doca_task *doca_ec_task_##T##_as_task(struct doca_ec_task_##T *task)                \
	{                                                                                          \
		return task != NULL ? &((struct ec_task *)(void *)task)->base : NULL;              \
	}                                                                                          \
	void doca_ec_task_##T##_set_##MAT(struct doca_ec_task_##T *task,                           \
	                                  const struct doca_ec_matrix *m)                          \
	{                                                                                          \
		ec_set_matrix(task, m, __func__);                                                  \
	}                                                                                          \
	const struct doca_ec_matrix *doca_ec_task_##T##_get_##MAT(                                 \
	        const struct doca_ec_task_##T *task)                                               \
	{                                                                                          \
		return task != NULL ? ((const struct ec_task *)(const void *)task)->matrix : NULL; \
	}                                                                                          \
	void doca_ec_task_##T##_set_##SRC(struct doca_ec_task_##T *task, const struct doca_buf *b) \
	{                                                                                          \
		ec_set_src(task, b, __func__);                                                     \
	}                                                                                          \
	const struct doca_buf *doca_ec_task_##T##_get_##SRC(const struct doca_ec_task_##T *task)   \
	{                                                                                          \
		return task != NULL ? ((const struct ec_task *)(const void *)task)->src : NULL;    \
	}                                                                                          \
	void doca_ec_task_##T##_set_##DST(struct doca_ec_task_##T *task, struct doca_buf *b)       \
	{                                                                                          \
		ec_set_dst(task, b, __func__);                                                     \
	}                                                                                          \
	struct doca_buf *doca_ec_task_##T##_get_##DSTGET(const struct doca_ec_task_##T *task)      \
	{                                                                                          \
		return task != NULL ? ((const struct ec_task *)(const void *)task)->dst : NULL;    \
	}

EC_TASK_API(create, EC_T_CREATE, coding_matrix, original_data_blocks, rdnc_blocks, rdnc_blocks)
EC_TASK_API(recover, EC_T_RECOVER, recover_matrix, available_blocks, recovered_data_blocks,
            recovered_data)
EC_TASK_API(update, EC_T_UPDATE, update_matrix, original_updated_and_rdnc_blocks,
            updated_rdnc_blocks, updated_rdnc_blocks)
EC_TASK_API(galois_mul, EC_T_GALOIS_MUL, coding_matrix, src_buf, dst_buf, dst_buf)
