/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
#include <stddef.h>

#include <doca_error.h>

#include "core/error/error.h"

static const struct odma_error_info error_table[] = {
#define E(code, descr) [code] = { #code, descr }
	E(DOCA_SUCCESS, "Success"),
	E(DOCA_ERROR_UNKNOWN, "Unknown error"),
	E(DOCA_ERROR_NOT_PERMITTED, "Operation not permitted"),
	E(DOCA_ERROR_IN_USE, "Resource already in use"),
	E(DOCA_ERROR_NOT_SUPPORTED, "Operation not supported"),
	E(DOCA_ERROR_AGAIN, "Resource temporarily unavailable, try again"),
	E(DOCA_ERROR_INVALID_VALUE, "Invalid input"),
	E(DOCA_ERROR_NO_MEMORY, "Memory allocation failure"),
	E(DOCA_ERROR_INITIALIZATION, "Resource initialization failure"),
	E(DOCA_ERROR_TIME_OUT, "Timer expired while waiting for resource"),
	E(DOCA_ERROR_SHUTDOWN, "Shut down in process or completed"),
	E(DOCA_ERROR_CONNECTION_RESET, "Connection reset by peer"),
	E(DOCA_ERROR_CONNECTION_ABORTED, "Connection aborted"),
	E(DOCA_ERROR_CONNECTION_INPROGRESS, "Connection in progress"),
	E(DOCA_ERROR_NOT_CONNECTED, "Not connected"),
	E(DOCA_ERROR_NO_LOCK, "Unable to acquire required lock"),
	E(DOCA_ERROR_NOT_FOUND, "Resource not found"),
	E(DOCA_ERROR_IO_FAILED, "Input/output operation failed"),
	E(DOCA_ERROR_BAD_STATE, "Bad state"),
	E(DOCA_ERROR_UNSUPPORTED_VERSION, "Unsupported version"),
	E(DOCA_ERROR_OPERATING_SYSTEM, "Operating system call failure"),
	E(DOCA_ERROR_DRIVER, "DOCA driver call failure"),
	E(DOCA_ERROR_UNEXPECTED, "Unexpected situation detected"),
	E(DOCA_ERROR_ALREADY_EXIST, "Resource already exists"),
	E(DOCA_ERROR_FULL, "No more space in resource"),
	E(DOCA_ERROR_EMPTY, "No entry is available in resource"),
	E(DOCA_ERROR_IN_PROGRESS, "Operation is in progress"),
	E(DOCA_ERROR_TOO_BIG, "Requested operation too big to be contained"),
	E(DOCA_ERROR_AUTHENTICATION, "Authentication failure"),
	E(DOCA_ERROR_BAD_CONFIG, "Configuration is not valid"),
	E(DOCA_ERROR_SKIPPED, "Result is valid, but some previous output data was dropped"),
#undef E
};

static const char error_unrecognized[] = "unrecognized error code";

const struct odma_error_info *odma_error_info(doca_error_t error)
{
	unsigned int i = (unsigned int)error;

	if (i >= sizeof(error_table) / sizeof(error_table[0]))
		return NULL;
	return &error_table[i];
}

unsigned int odma_error_count(void)
{
	return sizeof(error_table) / sizeof(error_table[0]);
}

const char *doca_error_get_name(doca_error_t error)
{
	const struct odma_error_info *e = odma_error_info(error);

	return e ? e->name : error_unrecognized;
}

const char *doca_error_get_descr(doca_error_t error)
{
	const struct odma_error_info *e = odma_error_info(error);

	return e ? e->descr : error_unrecognized;
}
