/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Fault injection for testing applications' error paths (ODMA_FAULTS). Every
 * decision is drawn on the submitting thread from one seeded generator, so a
 * deterministic program sees the same faults on every run with the same seed.
 */
#ifndef ODMA_CORE_EXEC_FAULTS_H_
#define ODMA_CORE_EXEC_FAULTS_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_error.h>

struct odma_fault_config {
	uint64_t seed;
	double submit_again;     /* probability that a submit says AGAIN */
	double complete_error;   /* probability that a task fails */
	doca_error_t error_code; /* status of an injected failure (default IO_FAILED) */
	uint32_t delay_min_us;   /* extra time before a task's copy runs */
	uint32_t delay_max_us;
	bool remote_die;           /* remote_die_after was given */
	uint64_t remote_die_after; /* tasks on remote memory before the peer "dies" (0: at once) */
	uint64_t comch_drop_after; /* Comch messages a connection carries before it is cut (0:
	                              never) */
	uint32_t comch_delay_min_us; /* extra time before a received Comch message is delivered */
	uint32_t comch_delay_max_us;
};

/* True when ODMA_FAULTS enabled injection (read once). */
extern bool odma_faults_enabled;

/* Parses ODMA_FAULTS once; INVALID_VALUE (and one log line naming the bad item) if malformed. */
doca_error_t odma_faults_init(void);

/* Pure parser (fuzzed and unit tested). */
doca_error_t odma_faults_parse(const char *spec, struct odma_fault_config *out, char *err,
                               size_t errlen);

/*
 * At submit, after validation (PE thread): returns AGAIN (an injected full queue), or
 * DOCA_SUCCESS with *@preset set to the injected failure of the task, if any. @remote: the
 * task reaches another process (remote_die_after counts these).
 */
doca_error_t odma_faults_on_submit(doca_error_t *preset, bool remote);

/*
 * The engine refused a task that odma_faults_on_submit let through (its queue was full, the
 * task is the program's again): the task no longer counts toward remote_die_after.
 */
void odma_faults_on_refused(bool remote);

/*
 * Before any part of a task's copy runs (any thread): waits out the injected delay of the
 * task numbered @seq in its context. The delay is a function of the seed and @seq, so it
 * needs no storage in the task and a deterministic program sees the same delays each run.
 */
void odma_faults_delay(uint64_t seq);

#endif
