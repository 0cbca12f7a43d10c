/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The config module's face: every ODMA_* environment variable is read through here, with
 * one parser and one wording for bad values (the log line names the variable, the value
 * and what is allowed). Which module reads which variable, and when, is the table in
 * config.c (and docs/user-guide.md).
 */
#ifndef ODMA_CORE_CONFIG_H_
#define ODMA_CORE_CONFIG_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>

/* The value of @var, or NULL when it is unset or empty. */
const char *odma_config_string(const char *var);

/*
 * A number variable: decimal or 0x hex, optionally followed by k, M or G (binary units).
 * Unset or empty: *@out = @dflt. Returns DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE after
 * one log line naming @var when the value is not such a number in [@min, @max].
 */
doca_error_t odma_config_size(const char *var, uint64_t dflt, uint64_t min, uint64_t max,
                              uint64_t *out);

/* The parser of odma_config_size alone (unit tests, fuzzing): false when @text is bad. */
bool odma_config_parse_size(const char *text, uint64_t *out);

/*
 * A variable naming one of @choices (a NULL-terminated list). Unset or empty: *@out =
 * @dflt. DOCA_ERROR_INVALID_VALUE after one log line listing the choices otherwise.
 */
doca_error_t odma_config_choice(const char *var, const char *const *choices, int dflt, int *out);

/*
 * odma_config_string and odma_config_size for the DOCA libraries outside libdoca_common
 * (libdoca_comch reads ODMA_RUNDIR and ODMA_COMCH_CONNECT_TIMEOUT_MS through these), so
 * every ODMA_* variable has the same parser and the same wording for bad values.
 */
DOCA_STABLE const char *doca_priv_config_string(const char *var);
DOCA_STABLE doca_error_t doca_priv_config_size(const char *var, uint64_t dflt, uint64_t min,
                                               uint64_t max, uint64_t *out);

#endif /* ODMA_CORE_CONFIG_H_ */
