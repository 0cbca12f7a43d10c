/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The erasure coding library's private layout: the context (a generic context first), its
 * matrices and its four task types. Every task applies one matrix: @in blocks of the
 * source become @out blocks of the destination, out_j = sum_i coef[j][i] * in_i over
 * GF(2^8) (ISA-L's field, polynomial 0x11d).
 */
#ifndef ODMA_EC_H_
#define ODMA_EC_H_

#include <stdint.h>

#include <doca_erasure_coding.h>

#include "core/exec/exec.h"

/* Limits of a code (NVIDIA's recover sample sizes its arrays for 128 in, 32 out). */
#define EC_MAX_DATA_BLOCKS 128u
#define EC_MAX_RDNC_BLOCKS 32u
#define EC_BLOCK_ALIGN 64u
/* A device profile that leaves the EC limits at 0 gets these (odma's values). */
#define EC_DEFAULT_MAX_BLOCK_SIZE (128ull << 20)
#define EC_DEFAULT_MAX_BUF_LIST_LEN 128u

enum ec_task_type {
	EC_T_CREATE = 0,
	EC_T_RECOVER,
	EC_T_UPDATE,
	EC_T_GALOIS_MUL,
	EC_T_COUNT,
};

enum ec_matrix_kind {
	EC_M_CODING, /* doca_ec_matrix_create / _from_raw: k in, m out */
	EC_M_RECOVER,
	EC_M_UPDATE,
};

struct doca_ec_matrix {
	struct doca_ec *ec;
	struct doca_ec_matrix *next;      /* the context's list of live matrices */
	struct doca_ec_matrix *next_live; /* the process' list (ec_matrix.c, under its lock) */
	enum ec_matrix_kind kind;
	uint32_t k, m;   /* the code it derives from */
	uint32_t in;     /* blocks a task reads */
	uint32_t out;    /* blocks a task writes */
	uint8_t *coef;   /* out x in, row by row */
	uint8_t *gftbls; /* ISA-L's expanded tables of coef: 32 * in * out bytes */
	uint8_t *code;   /* coding matrices: k x m (data i, redundancy j at i * m + j) */
};

struct doca_ec {
	struct doca_ctx ctx; /* first: doca_ec_as_ctx is a cast */
	struct odma_task_conf conf[EC_T_COUNT];
	struct doca_ec_matrix *matrices;
	uint8_t *scratch; /* blocks that straddle list elements are staged here (PE thread) */
	size_t scratch_len;
};

struct ec_task {
	struct doca_task base;
	enum ec_task_type type;
	const struct doca_ec_matrix *matrix;
	const struct doca_buf *src;
	struct doca_buf *dst;
};

extern const char *const odma_ec_type_names[EC_T_COUNT];

/* Whether @m is a live matrix of @ec. */
bool odma_ec_matrix_alive(const struct doca_ec *ec, const struct doca_ec_matrix *m);

/* The submit op: checks the task, runs it, completes it through the PE. */
doca_error_t odma_ec_submit(struct doca_task *task);

/* How many matrices of @ec are alive (doca_ec_destroy refuses while any is). */
uint32_t odma_ec_matrix_count(const struct doca_ec *ec);
/* A task type's set_conf (@fn: the public call): its callbacks and its share of the pool. */
doca_error_t odma_ec_set_conf(struct doca_ec *ec, enum ec_task_type type, void (*ok)(void),
                              void (*err)(void), uint32_t num, const char *fn);

#endif /* ODMA_EC_H_ */
