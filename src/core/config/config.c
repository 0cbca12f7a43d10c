/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * ODMA_* environment variables: one parser, one wording for bad values. The variables and
 * when they are read:
 *
 *   ODMA_SYSTEM        core/device   once per process, at the first device query
 *   ODMA_SIDE          core/device   with ODMA_SYSTEM
 *   ODMA_FAULTS        core/exec     once per process, at the first doca_pe_create
 *   ODMA_COPY_GUARD    core/copy     once per process, at the first doca_pe_create
 *   ODMA_ENGINE        engines       at each doca_pe_create (a PE keeps its engine)
 *   ODMA_WORKERS       engines/thread  when the worker pool starts (first PE of the pool)
 *   ODMA_INLINE_MAX    engines/thread  with ODMA_WORKERS
 *   ODMA_SPLIT_MIN     engines/thread  with ODMA_WORKERS
 *   ODMA_SHARE_MIN     engines/thread  with ODMA_WORKERS
 *   ODMA_HELP_BACKLOG  engines/thread  with ODMA_WORKERS
 *   ODMA_ARMED_SPIN_NS engines/thread  with ODMA_WORKERS
 *   ODMA_ARM_SPIN_NS   engines/thread  with ODMA_WORKERS
 *   ODMA_RUNDIR        comch         at each Comch server or client doca_ctx_start
 *   ODMA_COMCH_CONNECT_TIMEOUT_MS  comch  at each Comch client doca_ctx_start
 *   ODMA_COMCH_ALLOW_UIDS  comch     at each Comch server or client doca_ctx_start
 *   ODMA_FABRIC        core/transport  at each export (descriptor version) and when UCX starts
 *   ODMA_FABRIC_SECRET comch         at each Comch server start and client connection at ODMA_FABRIC
 *   ODMA_TRANSPORT     core/transport  at each export and import
 *   ODMA_TRANSPORT_TIMEOUT_MS  core/transport  once, at the first remote request
 *
 * A bad value fails the call that reads it (doca_pe_create, the device query, or a Comch
 * context's doca_ctx_start) with DOCA_ERROR_INVALID_VALUE and one log line; no variable is
 * silently ignored.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config/config.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(ODMA_CONFIG)

const char *odma_config_string(const char *var)
{
	const char *v = getenv(var);

	return v != NULL && *v != '\0' ? v : NULL;
}

bool odma_config_parse_size(const char *text, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (text == NULL || *text < '0' || *text > '9')
		return false; /* no sign, no space */
	errno = 0;
	v = strtoull(text, &end, 0);
	if (errno != 0 || end == text)
		return false;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	default:
		break;
	}
	if (shift != 0)
		end++;
	if (*end != '\0' || (shift != 0 && v > (UINT64_MAX >> shift)))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

doca_error_t odma_config_size(const char *var, uint64_t dflt, uint64_t min, uint64_t max,
                              uint64_t *out)
{
	const char *text = odma_config_string(var);
	uint64_t v;

	if (text == NULL) {
		*out = dflt;
		return DOCA_SUCCESS;
	}
	if (!odma_config_parse_size(text, &v) || v < min || v > max) {
		ODMA_ERR("%s=\"%s\" is not a number from %llu to %llu (decimal or 0x hex, optional "
		         "k/M/G suffix); fix or unset it",
		         var, text, (unsigned long long)min, (unsigned long long)max);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*out = v;
	return DOCA_SUCCESS;
}

doca_error_t odma_config_choice(const char *var, const char *const *choices, int dflt, int *out)
{
	const char *text = odma_config_string(var);
	char list[256] = "";
	size_t used = 0;

	if (text == NULL) {
		*out = dflt;
		return DOCA_SUCCESS;
	}
	for (int i = 0; choices[i] != NULL; i++) {
		if (strcmp(text, choices[i]) == 0) {
			*out = i;
			return DOCA_SUCCESS;
		}
		if (used < sizeof(list))
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s\"%s\"",
			                         i ? ", " : "", choices[i]);
	}
	ODMA_ERR("%s=\"%s\" is not one of %s; fix or unset it", var, text, list);
	return DOCA_ERROR_INVALID_VALUE;
}

const char *doca_priv_config_string(const char *var)
{
	return odma_config_string(var);
}

doca_error_t doca_priv_config_size(const char *var, uint64_t dflt, uint64_t min, uint64_t max,
                                   uint64_t *out)
{
	return odma_config_size(var, dflt, min, max, out);
}
