/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Coding, recover and update matrices over GF(2^8) (ISA-L's field arithmetic, polynomial
 * 0x11d). The coding matrices follow the constructions DOCA documents for its matrix types
 * (docs/erasure-coding.md): Cauchy 1 / (i XOR (k + j)), Vandermonde (i + 1)^j, for data
 * block i and redundancy block j. Every matrix is kept as the out x in coefficients a task
 * applies, with ISA-L's expanded tables for ec_encode_data.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <isa-l/erasure_code.h>

#include "core/log/log.h"
#include "erasure_coding/ec.h"

ODMA_LOG_REGISTER(ODMA_EC_MATRIX)

/*
 * Every live matrix of the process, whatever its context: doca_ec_matrix_destroy finds its
 * argument here before reading it, so a matrix destroyed twice (or a pointer that never was
 * one) is refused instead of read after free. Contexts may live on different threads.
 */
static pthread_mutex_t ec_live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct doca_ec_matrix *ec_live;

bool odma_ec_matrix_alive(const struct doca_ec *ec, const struct doca_ec_matrix *m)
{
	for (const struct doca_ec_matrix *p = ec->matrices; p != NULL; p = p->next)
		if (p == m)
			return true;
	return false;
}

uint32_t odma_ec_matrix_count(const struct doca_ec *ec)
{
	uint32_t n = 0;

	for (const struct doca_ec_matrix *p = ec->matrices; p != NULL; p = p->next)
		n++;
	return n;
}

static void ec_matrix_free(struct doca_ec_matrix *m)
{
	free(m->coef);
	free(m->gftbls);
	free(m->code);
	free(m);
}

/* A matrix of @in x @out coefficients (zeroed), not yet linked. */
static struct doca_ec_matrix *ec_matrix_new(struct doca_ec *ec, enum ec_matrix_kind kind,
                                            uint32_t in, uint32_t out)
{
	struct doca_ec_matrix *m = calloc(1, sizeof(*m));

	if (m == NULL)
		return NULL;
	m->ec = ec;
	m->kind = kind;
	m->in = in;
	m->out = out;
	m->coef = calloc((size_t)in * out, 1);
	m->gftbls = malloc((size_t)32 * in * out);
	if (m->coef == NULL || m->gftbls == NULL) {
		ec_matrix_free(m);
		return NULL;
	}
	return m;
}

/* Expands the tables and links the matrix into its context. */
static doca_error_t ec_matrix_commit(struct doca_ec_matrix *m, struct doca_ec_matrix **out)
{
	ec_init_tables((int)m->in, (int)m->out, m->coef, m->gftbls);
	m->next = m->ec->matrices;
	m->ec->matrices = m;
	pthread_mutex_lock(&ec_live_lock);
	m->next_live = ec_live;
	ec_live = m;
	pthread_mutex_unlock(&ec_live_lock);
	*out = m;
	return DOCA_SUCCESS;
}

static doca_error_t ec_matrix_oom(struct doca_ec_matrix *m, const char *fn)
{
	if (m != NULL)
		ec_matrix_free(m);
	ODMA_ERR_AT(fn, "out of memory building a matrix");
	return DOCA_ERROR_NO_MEMORY;
}

static bool ec_counts_ok(size_t k, size_t m, const char *fn)
{
	if (k >= 1 && k <= EC_MAX_DATA_BLOCKS && m >= 1 && m <= EC_MAX_RDNC_BLOCKS)
		return true;
	ODMA_ERR_AT(fn,
	            "%zu data and %zu redundancy blocks: the data block count must be 1..%u and "
	            "the redundancy block count 1..%u",
	            k, m, EC_MAX_DATA_BLOCKS, EC_MAX_RDNC_BLOCKS);
	return false;
}

static uint8_t gf_pow(uint8_t base, uint32_t e)
{
	uint8_t r = 1;

	while (e-- > 0)
		r = gf_mul(r, base);
	return r;
}

/* A coding matrix from its k x m code (data i, redundancy j at i * m + j). */
static doca_error_t ec_coding_from_code(struct doca_ec *ec, uint8_t *code, uint32_t k, uint32_t m,
                                        struct doca_ec_matrix **matrix, const char *fn)
{
	struct doca_ec_matrix *mx = ec_matrix_new(ec, EC_M_CODING, k, m);

	if (mx == NULL) {
		free(code);
		return ec_matrix_oom(NULL, fn);
	}
	mx->k = k;
	mx->m = m;
	mx->code = code;
	for (uint32_t j = 0; j < m; j++)
		for (uint32_t i = 0; i < k; i++)
			mx->coef[j * k + i] = code[i * m + j];
	return ec_matrix_commit(mx, matrix);
}

doca_error_t doca_ec_matrix_create(struct doca_ec *ec, enum doca_ec_matrix_type type,
                                   size_t data_block_count, size_t rdnc_block_count,
                                   struct doca_ec_matrix **matrix)
{
	uint32_t k = (uint32_t)data_block_count, m = (uint32_t)rdnc_block_count;
	uint8_t *code;

	ODMA_CHECK_ARG(ec != NULL && matrix != NULL, "ec and matrix must not be NULL");
	ODMA_CHECK_ARG(type == DOCA_EC_MATRIX_TYPE_CAUCHY ||
	                       type == DOCA_EC_MATRIX_TYPE_VANDERMONDE,
	               "matrix type %d is unknown; use DOCA_EC_MATRIX_TYPE_CAUCHY (1) or "
	               "DOCA_EC_MATRIX_TYPE_VANDERMONDE (2)",
	               (int)type);
	if (!ec_counts_ok(data_block_count, rdnc_block_count, __func__))
		return DOCA_ERROR_INVALID_VALUE;
	code = malloc((size_t)k * m);
	if (code == NULL)
		return ec_matrix_oom(NULL, __func__);
	for (uint32_t i = 0; i < k; i++)
		for (uint32_t j = 0; j < m; j++)
			code[i * m + j] = type == DOCA_EC_MATRIX_TYPE_CAUCHY
			                          ? gf_inv((uint8_t)(i ^ (k + j)))
			                          : gf_pow((uint8_t)(i + 1), j);
	return ec_coding_from_code(ec, code, k, m, matrix, __func__);
}

doca_error_t doca_ec_matrix_create_from_raw(struct doca_ec *ec, uint8_t *data,
                                            size_t data_block_count, size_t rdnc_block_count,
                                            struct doca_ec_matrix **matrix)
{
	uint8_t *code;

	ODMA_CHECK_ARG(ec != NULL && data != NULL && matrix != NULL,
	               "ec, data and matrix must not be NULL");
	if (!ec_counts_ok(data_block_count, rdnc_block_count, __func__))
		return DOCA_ERROR_INVALID_VALUE;
	code = malloc(data_block_count * rdnc_block_count);
	if (code == NULL)
		return ec_matrix_oom(NULL, __func__);
	memcpy(code, data, data_block_count * rdnc_block_count);
	return ec_coding_from_code(ec, code, (uint32_t)data_block_count, (uint32_t)rdnc_block_count,
	                           matrix, __func__);
}

/* The index list of a derived matrix: @n in 1..@max_n, each below @limit, ascending. */
static bool ec_indices_ok(const uint32_t *idx, size_t n, size_t max_n, uint32_t limit,
                          const char *what, const char *fn)
{
	if (idx == NULL || n < 1 || n > max_n) {
		ODMA_ERR_AT(fn, "%zu %s indices given (array %p); between 1 and %zu are accepted",
		            n, what, (const void *)idx, max_n);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		if (idx[i] >= limit || (i > 0 && idx[i] <= idx[i - 1])) {
			ODMA_ERR_AT(fn,
			            "%s index %u (position %zu) is %s; indices must be strictly "
			            "ascending and below %u",
			            what, idx[i], i,
			            idx[i] >= limit ? "out of range" : "out of order", limit);
			return false;
		}
	}
	return true;
}

static bool ec_base_ok(const struct doca_ec *ec, const struct doca_ec_matrix *cm, const char *fn)
{
	if (cm != NULL && odma_ec_matrix_alive(ec, cm) && cm->kind == EC_M_CODING)
		return true;
	ODMA_ERR_AT(fn,
	            "coding_matrix %p is not a live coding matrix of context %p (one from "
	            "doca_ec_matrix_create or doca_ec_matrix_create_from_raw)",
	            (const void *)cm, (const void *)ec);
	return false;
}

doca_error_t doca_ec_matrix_create_update(struct doca_ec *ec,
                                          const struct doca_ec_matrix *coding_matrix,
                                          uint32_t update_indices[], size_t n_updates,
                                          struct doca_ec_matrix **matrix)
{
	const struct doca_ec_matrix *cm = coding_matrix;
	struct doca_ec_matrix *mx;
	uint32_t n = (uint32_t)n_updates, in;

	ODMA_CHECK_ARG(ec != NULL && matrix != NULL, "ec and matrix must not be NULL");
	if (!ec_base_ok(ec, cm, __func__) ||
	    !ec_indices_ok(update_indices, n_updates, cm->k, cm->k, "update", __func__))
		return DOCA_ERROR_INVALID_VALUE;
	/* in: old_0, new_0, ..., old_n-1, new_n-1, rdnc_0 .. rdnc_m-1 */
	in = 2 * n + cm->m;
	mx = ec_matrix_new(ec, EC_M_UPDATE, in, cm->m);
	if (mx == NULL)
		return ec_matrix_oom(NULL, __func__);
	mx->k = cm->k;
	mx->m = cm->m;
	for (uint32_t j = 0; j < cm->m; j++) {
		uint8_t *row = mx->coef + (size_t)j * in;

		for (uint32_t u = 0; u < n; u++)
			row[2 * u] = row[2 * u + 1] = cm->code[update_indices[u] * cm->m + j];
		row[2 * n + j] = 1;
	}
	return ec_matrix_commit(mx, matrix);
}

/* Row @x of the systematic generator (identity over the code) into @row (k bytes). */
static void ec_generator_row(const struct doca_ec_matrix *cm, uint32_t x, uint8_t *row)
{
	for (uint32_t i = 0; i < cm->k; i++)
		row[i] = x < cm->k ? (uint8_t)(i == x) : cm->code[i * cm->m + (x - cm->k)];
}

/*
 * The inverse of the generator rows of the first k blocks that are not missing, into @inv
 * (k x k). Returns false when they are singular.
 */
static bool ec_survivor_inverse(const struct doca_ec_matrix *cm, const uint32_t *missing, size_t n,
                                uint8_t *b, uint8_t *inv)
{
	uint32_t k = cm->k, row = 0;
	size_t mi = 0;

	for (uint32_t x = 0; row < k && x < k + cm->m; x++) {
		if (mi < n && missing[mi] == x) {
			mi++;
			continue;
		}
		ec_generator_row(cm, x, b + (size_t)row++ * k);
	}
	/* b is scratch: gf_invert_matrix clobbers it */
	return gf_invert_matrix(b, inv, (int)k) == 0;
}

/* The rows of @mx: lost block x = G[x] * @inv * survivors (@g: k bytes of scratch). */
static void ec_recover_rows(const struct doca_ec_matrix *cm, const uint32_t *missing,
                            size_t n_missing, const uint8_t *inv, uint8_t *g,
                            struct doca_ec_matrix *mx)
{
	uint32_t k = cm->k;

	for (size_t r = 0; r < n_missing; r++) {
		ec_generator_row(cm, missing[r], g);
		for (uint32_t c = 0; c < k; c++) {
			uint8_t s = 0;

			for (uint32_t i = 0; i < k; i++)
				s ^= gf_mul(g[i], inv[(size_t)i * k + c]);
			mx->coef[r * k + c] = s;
		}
	}
}

doca_error_t doca_ec_matrix_create_recover(struct doca_ec *ec,
                                           const struct doca_ec_matrix *coding_matrix,
                                           uint32_t missing_indices[], size_t n_missing,
                                           struct doca_ec_matrix **matrix)
{
	const struct doca_ec_matrix *cm = coding_matrix;
	struct doca_ec_matrix *mx;
	uint8_t *inv, *b;
	uint32_t k;

	ODMA_CHECK_ARG(ec != NULL && matrix != NULL, "ec and matrix must not be NULL");
	if (!ec_base_ok(ec, cm, __func__) ||
	    !ec_indices_ok(missing_indices, n_missing, cm->m, cm->k + cm->m, "missing", __func__))
		return DOCA_ERROR_INVALID_VALUE;
	k = cm->k;
	mx = ec_matrix_new(ec, EC_M_RECOVER, k, (uint32_t)n_missing);
	inv = malloc((size_t)k * k * 2 + k); /* the inverse, then scratch (k * k + k) */
	if (mx == NULL || inv == NULL) {
		free(inv);
		return ec_matrix_oom(mx, __func__);
	}
	b = inv + (size_t)k * k;
	if (!ec_survivor_inverse(cm, missing_indices, n_missing, b, inv)) {
		ODMA_ERR("doca_ec_matrix_create_recover: the blocks left after losing these %zu "
		         "cannot be solved for them (a singular system; Vandermonde codes have "
		         "such sets, Cauchy codes do not)",
		         n_missing);
		free(inv);
		ec_matrix_free(mx);
		return DOCA_ERROR_INVALID_VALUE;
	}
	mx->k = k;
	mx->m = cm->m;
	ec_recover_rows(cm, missing_indices, n_missing, inv, b, mx);
	free(inv);
	return ec_matrix_commit(mx, matrix);
}

/* Takes @m out of the process' list; false when it is not there (no live matrix). */
static bool ec_live_remove(const struct doca_ec_matrix *m)
{
	struct doca_ec_matrix **pp;
	bool found;

	pthread_mutex_lock(&ec_live_lock);
	for (pp = &ec_live; *pp != NULL && *pp != m; pp = &(*pp)->next_live)
		;
	found = *pp != NULL;
	if (found)
		*pp = m->next_live;
	pthread_mutex_unlock(&ec_live_lock);
	return found;
}

doca_error_t doca_ec_matrix_destroy(struct doca_ec_matrix *matrix)
{
	struct doca_ec_matrix **pp;

	ODMA_CHECK_ARG(matrix != NULL, "matrix must not be NULL");
	ODMA_CHECK_ARG(ec_live_remove(matrix),
	               "matrix %p is not a live matrix (destroyed twice, or not from "
	               "doca_ec_matrix_create*)",
	               (void *)matrix);
	for (pp = &matrix->ec->matrices; *pp != matrix; pp = &(*pp)->next)
		;
	*pp = matrix->next;
	ec_matrix_free(matrix);
	return DOCA_SUCCESS;
}
