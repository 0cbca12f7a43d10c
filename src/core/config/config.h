/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The config module's face: every ODMA_* and DOCA_* environment variable odma reads is a row
 * of one table (config.c): its name, its parser, what it accepts, its default, who reads it
 * and what a bad value does. Every variable is read and refused through here, so a bad
 * value always gets the same one line: NAME="VALUE" is not WHAT IT ACCEPTS; CONSEQUENCE.
 * docs/user-guide.md §3 lists the same rows (tests/unit/test_config.c checks it).
 */
#ifndef ODMA_CORE_CONFIG_H_
#define ODMA_CORE_CONFIG_H_

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>

enum odma_config_kind {
	ODMA_CFG_NUMBER, /* odma_config_size: decimal or 0x hex, k/M/G suffix, in [min, max] */
	ODMA_CFG_CHOICE, /* odma_config_choice: one of choices[] */
	ODMA_CFG_FABRIC, /* odma_config_fabric: IPv4ADDRESS:PORT */
	ODMA_CFG_TEXT,   /* read with odma_config_string; its reader parses and refuses it */
};

struct odma_config_var {
	const char *name;
	enum odma_config_kind kind;
	uint64_t min, max;          /* ODMA_CFG_NUMBER */
	const char *const *choices; /* ODMA_CFG_CHOICE, NULL-terminated */
	const char *accepted;       /* "is not ..." of the bad-value line */
	const char *dflt;           /* the default when unset or empty, in words */
	const char *reader;         /* who reads it, and when */
	const char *on_bad;         /* what a bad value does (the end of the bad-value line) */
};

/* The table, in the order docs/user-guide.md lists it. */
const struct odma_config_var *odma_config_vars(size_t *count);

/* The row of @name; NULL when odma does not read such a variable. */
const struct odma_config_var *odma_config_var(const char *name);

/*
 * The one bad-value line of @var into @buf: NAME="VALUE" is not ACCEPTED[ (DETAIL)];
 * CONSEQUENCE. @detail may be NULL. Returns @buf.
 */
const char *odma_config_bad_line(char *buf, size_t size, const char *var, const char *value,
                                 const char *detail);

/* Logs that line (ERROR). */
void odma_config_refuse(const char *var, const char *value, const char *detail);

/* The value of @var, or NULL when it is unset or empty. */
const char *odma_config_string(const char *var);

/*
 * A number variable (ODMA_CFG_NUMBER row): unset or empty: *@out = @dflt. Returns
 * DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE after the bad-value line when the value is not
 * a number within the row's bounds.
 */
doca_error_t odma_config_size(const char *var, uint64_t dflt, uint64_t *out);

/* The parser of odma_config_size alone (unit tests, fuzzing): false when @text is bad. */
bool odma_config_parse_size(const char *text, uint64_t *out);

/*
 * A choice variable (ODMA_CFG_CHOICE row): *@out = the index of the value in the row's
 * choices; unset or empty: @dflt. DOCA_ERROR_INVALID_VALUE after the bad-value line.
 */
doca_error_t odma_config_choice(const char *var, int dflt, int *out);

/*
 * ODMA_FABRIC: unset or empty: DOCA_SUCCESS with *@port = 0. A value that is not an IPv4
 * address, a colon and a port 1..65535: DOCA_ERROR_INVALID_VALUE after the bad-value line
 * (once per process: connecting clients ask every 100 ms). @addr gets the address.
 */
doca_error_t odma_config_fabric(char *addr, size_t size, uint16_t *port);

/*
 * The same for the DOCA libraries outside libdoca_common (libdoca_comch reads ODMA_RUNDIR,
 * ODMA_FABRIC, ODMA_COMCH_* through these) and odma's tools: one table, one wording.
 */
DOCA_STABLE const char *doca_priv_config_string(const char *var);
DOCA_STABLE doca_error_t doca_priv_config_size(const char *var, uint64_t dflt, uint64_t *out);
DOCA_STABLE doca_error_t doca_priv_config_fabric(char *addr, size_t size, uint16_t *port);
DOCA_STABLE void doca_priv_config_refuse(const char *var, const char *value, const char *detail);
/* The runtime directory (rundir.c; created 0700 if missing); false with *@why set when unusable. */
DOCA_STABLE bool doca_priv_rundir(char *out, size_t n, const char **why);

/*
 * Starts a thread of odma's own (threads.c) named @name (15 characters at most; NULL: not
 * named) that may run on every CPU the process could when odma loaded, whatever CPU its
 * caller is pinned to; pthread_create's result.
 */
DOCA_STABLE int doca_priv_thread_start(pthread_t *thr, const char *name, void *(*fn)(void *),
                                       void *arg);
/* How many CPUs the process could run on when odma loaded; 0 when unknown. */
DOCA_STABLE long doca_priv_process_cpus(void);

#endif /* ODMA_CORE_CONFIG_H_ */
