/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Fast-path helpers of the Comch tests (comch_fp_util.c). */
#ifndef COMCH_FP_UTIL_H_
#define COMCH_FP_UTIL_H_

#include "comch_util.h"

/* A consumer or producer with its own PE (as NVIDIA's samples do), and what its callbacks saw. */
struct fp {
	struct doca_pe *pe;
	struct doca_comch_consumer *cons;
	struct doca_comch_producer *prod;
	struct doca_ctx *ctx;
	struct cu_mem mem;
	unsigned int ok, err;
	doca_error_t last_status;
	bool passed_running;
	/* each completed post-recv task's results, in completion order */
	size_t got_len[8];
	uint32_t got_producer[8];
	uint32_t got_imm_len[8];
	uint8_t got_imm[8][64];
};

void recv_err(struct doca_comch_consumer_task_post_recv *t, union doca_data tud,
              union doca_data cud);
/* Connects @f's context to its PE, with @f as user data and a state callback. */
void fp_ctx_common(struct fp *f);
void fp_consumer(struct fp *f, struct cu_ep *e, size_t len, uint32_t tasks, uint32_t imm);
/* fp_consumer over the caller's @base (@len bytes); NULL: fresh memory. */
void fp_consumer_over(struct fp *f, struct cu_ep *e, uint8_t *base, size_t len, uint32_t tasks,
                      uint32_t imm);
void fp_producer(struct fp *f, struct cu_ep *e, size_t len, uint32_t tasks);
enum doca_ctx_states fp_state_of(struct fp *f);
bool fp_until_state(struct cu_ep *e, struct fp *f, enum doca_ctx_states want, unsigned int ms);
bool fp_until_count(struct cu_ep *e, struct fp *f, unsigned int n, unsigned int ms);
void fp_post(struct fp *f, size_t off, size_t len);
doca_error_t fp_send(struct fp *f, size_t off, size_t len, uint32_t cid, const char *imm,
                     bool again_loop, unsigned int *agains);
/* One send of @nseg bufs of @seg bytes from @off, chained; AGAIN retried. */
doca_error_t fp_send_list(struct fp *f, size_t off, size_t seg, unsigned int nseg, uint32_t cid,
                          const char *imm);
void fp_fill(struct fp *f, uint8_t seed);
bool fp_close(struct cu_ep *e, struct fp *f);
bool got_new_cons(struct cu_ep *e);
bool got_gone_cons(struct cu_ep *e);
bool has_disconnect(struct cu_ep *e);

#endif /* COMCH_FP_UTIL_H_ */
