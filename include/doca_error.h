/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */

/**
 * @file doca_error.h
 * @brief The error codes every DOCA call returns, and their names and descriptions.
 *
 * Almost every DOCA function returns a ::doca_error_t. ::DOCA_SUCCESS (0) means the
 * call did what it says; any other value names the class of failure, and odma logs
 * one line (through the SDK log sources) saying which rule was broken and how to fix it.
 * `odma errors NAME` prints the DMA-specific causes of each code.
 */
#ifndef DOCA_ERROR_H_
#define DOCA_ERROR_H_

#include <doca_compat.h>
#include <doca_common_defines.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Result of a DOCA call. The numeric values are part of the ABI. */
typedef enum doca_error {
	DOCA_SUCCESS = 0,                     /**< The call succeeded. */
	DOCA_ERROR_UNKNOWN = 1,               /**< A failure that fits no other code. */
	DOCA_ERROR_NOT_PERMITTED = 2,         /**< The object's state or permissions forbid this. */
	DOCA_ERROR_IN_USE = 3,                /**< The resource is still used by something else. */
	DOCA_ERROR_NOT_SUPPORTED = 4,         /**< The device or library cannot do this. */
	DOCA_ERROR_AGAIN = 5,                 /**< Temporarily unavailable: progress, then retry. */
	DOCA_ERROR_INVALID_VALUE = 6,         /**< An argument is wrong. */
	DOCA_ERROR_NO_MEMORY = 7,             /**< Out of memory, or a fixed pool is exhausted. */
	DOCA_ERROR_INITIALIZATION = 8,        /**< A resource could not be initialised. */
	DOCA_ERROR_TIME_OUT = 9,              /**< A wait ran past its deadline. */
	DOCA_ERROR_SHUTDOWN = 10,             /**< The object is shutting down or has shut down. */
	DOCA_ERROR_CONNECTION_RESET = 11,     /**< The peer reset the connection. */
	DOCA_ERROR_CONNECTION_ABORTED = 12,   /**< The connection was aborted. */
	DOCA_ERROR_CONNECTION_INPROGRESS = 13,/**< The connection is still being set up. */
	DOCA_ERROR_NOT_CONNECTED = 14,        /**< Not connected (e.g. a context without a progress engine). */
	DOCA_ERROR_NO_LOCK = 15,              /**< A needed lock could not be taken. */
	DOCA_ERROR_NOT_FOUND = 16,            /**< The thing looked for does not exist. */
	DOCA_ERROR_IO_FAILED = 17,            /**< An input/output operation (a copy) failed. */
	DOCA_ERROR_BAD_STATE = 18,            /**< The call is not allowed in the object's current state. */
	DOCA_ERROR_UNSUPPORTED_VERSION = 19,  /**< A versioned input has a version this build does not know. */
	DOCA_ERROR_OPERATING_SYSTEM = 20,     /**< An operating-system call failed. */
	DOCA_ERROR_DRIVER = 21,               /**< The driver layer failed. */
	DOCA_ERROR_UNEXPECTED = 22,           /**< An internal consistency check failed. */
	DOCA_ERROR_ALREADY_EXIST = 23,        /**< The resource exists already. */
	DOCA_ERROR_FULL = 24,                 /**< No room left in the resource. */
	DOCA_ERROR_EMPTY = 25,                /**< Nothing available in the resource. */
	DOCA_ERROR_IN_PROGRESS = 26,          /**< Started; it finishes later (e.g. an asynchronous stop). */
	DOCA_ERROR_TOO_BIG = 27,              /**< The request is larger than the resource can hold. */
	DOCA_ERROR_AUTHENTICATION = 28,       /**< Authentication failed. */
	DOCA_ERROR_BAD_CONFIG = 29,           /**< The configuration is incomplete or inconsistent. */
	DOCA_ERROR_SKIPPED = 30,              /**< The result is valid but earlier output was dropped. */
} doca_error_t;

/** Evaluates to true when @p _r is not ::DOCA_SUCCESS (marked unlikely). */
#define DOCA_IS_ERROR(_r) doca_unlikely((_r) != DOCA_SUCCESS)

/** Stores @p _t into @p _r unless @p _r already holds an error (the first error wins). */
#define DOCA_ERROR_PROPAGATE(_r, _t)                                                               \
	do {                                                                                       \
		if ((_r) == DOCA_SUCCESS)                                                          \
			(_r) = (_t);                                                               \
	} while (0)

/**
 * @brief The identifier of an error code as a string, e.g. "DOCA_ERROR_AGAIN".
 *
 * @param [in] error  any value.
 * @return a static string; "unrecognized error code" for a value outside the enum.
 */
DOCA_STABLE
const char *doca_error_get_name(doca_error_t error);

/**
 * @brief A one-line description of an error code.
 *
 * @param [in] error  any value.
 * @return a static string; "unrecognized error code" for a value outside the enum.
 */
DOCA_STABLE
const char *doca_error_get_descr(doca_error_t error);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_ERROR_H_ */
