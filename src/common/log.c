/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* First cut of the logging core: sources and a stderr sink. The full backend set replaces it. */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_log.h>

#include "log_priv.h"

#define ODMA_LOG_MAX_SOURCES 1024

struct odma_log_source {
	char name[64];
	bool sdk;
};

static pthread_mutex_t odma_log_lock = PTHREAD_MUTEX_INITIALIZER;
static struct odma_log_source odma_sources[ODMA_LOG_MAX_SOURCES];
static int odma_num_sources;

static doca_error_t odma_log_add_source(const char *name, bool sdk, int *source)
{
	if (name == NULL || source == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&odma_log_lock);
	if (odma_num_sources == ODMA_LOG_MAX_SOURCES) {
		pthread_mutex_unlock(&odma_log_lock);
		return DOCA_ERROR_NO_MEMORY;
	}
	snprintf(odma_sources[odma_num_sources].name, sizeof(odma_sources[0].name), "%s", name);
	odma_sources[odma_num_sources].sdk = sdk;
	*source = odma_num_sources++;
	pthread_mutex_unlock(&odma_log_lock);
	return DOCA_SUCCESS;
}

doca_error_t doca_log_register_source(const char *source_name, int *source)
{
	return odma_log_add_source(source_name, false, source);
}

doca_error_t doca_priv_log_register_sdk_source(const char *name, int *source)
{
	return odma_log_add_source(name, true, source);
}

doca_error_t doca_log_backend_create_standard(void)
{
	return DOCA_SUCCESS;
}

doca_error_t doca_log(uint32_t level, int source, const char *fname, int line, const char *func,
		      const char *format, ...)
{
	va_list ap;

	(void)fname;
	(void)line;
	if (format == NULL || source < 0 || source >= odma_num_sources)
		return DOCA_ERROR_INVALID_VALUE;
	if (level > DOCA_LOG_LEVEL_WARNING)
		return DOCA_SUCCESS;
	va_start(ap, format);
	flockfile(stderr);
	fprintf(stderr, "[%s] %s: ", odma_sources[source].name, func);
	vfprintf(stderr, format, ap);
	fputc('\n', stderr);
	funlockfile(stderr);
	va_end(ap);
	return DOCA_SUCCESS;
}
