/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* The model-based stress run, shared by the stress test (tests/stress) and the soak tool. */
#ifndef ODMA_STRESS_H_
#define ODMA_STRESS_H_

#include <stdbool.h>
#include <stdint.h>

/* One configuration, run in a forked child (ODMA_FAULTS/ODMA_ENGINE/ODMA_SYSTEM are read once). */
struct stress_config {
	const char *name;
	const char *engine; /* ODMA_ENGINE */
	const char *faults; /* ODMA_FAULTS, NULL for none */
	const char
	        *profile; /* profile text written to a file for ODMA_SYSTEM, NULL for the default */
	bool injected_errors; /* faults inject failures with status DOCA_ERROR_DRIVER */
	bool remote;          /* half the sources on memory exported by another process */
};

/* What a run observed; summed over threads and children. */
struct stress_counts {
	uint64_t accepted;      /* tasks submitted successfully */
	uint64_t completed_ok;  /* success callbacks (bytes verified) */
	uint64_t completed_err; /* error callbacks */
	uint64_t rejected;      /* synchronously rejected (no callback expected, none seen) */
	uint64_t again;         /* DOCA_ERROR_AGAIN answers (queue full or injected) */
	uint64_t injected_err;  /* failures with the injected status */
	uint64_t fatal;         /* zero-length sources under plain submit */
	uint64_t stops;         /* doca_ctx_stop issued by the model */
	uint64_t restarts;      /* IDLE contexts started again */
	uint64_t lists;         /* tasks with a source or destination list */
	uint64_t bytes;         /* bytes of successful tasks, verified */
	uint64_t remote;        /* tasks with a source element in another process */
};

struct stress_params {
	uint64_t tasks;       /* accepted tasks to reach per configuration */
	unsigned int threads; /* one PE per thread */
	unsigned int ctxs;    /* DMA contexts per PE */
	uint64_t seed;
	double seconds; /* > 0: also keep going until this much time has passed */
};

/* Runs @cfg in a child; fills @out. Returns 0 when every invariant held. */
int stress_run_config(const struct stress_config *cfg, const struct stress_params *p,
                      struct stress_counts *out);

/* The built-in configurations (NULL-terminated by name). */
extern const struct stress_config stress_configs[];

void stress_add(struct stress_counts *sum, const struct stress_counts *c);
void stress_print(const char *label, const struct stress_counts *c);

#endif
