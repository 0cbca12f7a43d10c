/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */

/**
 * @file doca_log.h
 * @brief Logging: levels, sources, backends. (First cut: the full API follows.)
 */
#ifndef DOCA_LOG_H_
#define DOCA_LOG_H_

#include <stdint.h>
#include <stdio.h>
#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Log levels; a message is shown when its level is at or below a backend's limit. */
enum doca_log_level {
	DOCA_LOG_LEVEL_DISABLE = 10, /**< nothing is logged */
	DOCA_LOG_LEVEL_CRIT = 20,    /**< the program cannot go on */
	DOCA_LOG_LEVEL_ERROR = 30,   /**< a call failed */
	DOCA_LOG_LEVEL_WARNING = 40, /**< something is probably wrong */
	DOCA_LOG_LEVEL_INFO = 50,    /**< normal, noteworthy events */
	DOCA_LOG_LEVEL_DEBUG = 60,   /**< detail for debugging */
	DOCA_LOG_LEVEL_TRACE = 70,   /**< per-operation detail (needs DOCA_LOGGING_ALLOW_TRACE) */
};

/** An output destination for log messages. */
struct doca_log_backend;

/**
 * @brief Registers a log source by name.
 * @param [in] source_name  name shown in every message of the source.
 * @param [out] source  the source id.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE on NULL; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_log_register_source(const char *source_name, int *source);

/**
 * @brief Logs one message.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for an unknown source or NULL format.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_log(uint32_t level, int source, const char *fname, int line, const char *func,
		      const char *format, ...) __attribute__((format(printf, 6, 7)));

/**
 * @brief Adds the standard backend (stdout up to INFO, stderr from WARNING).
 * @return DOCA_SUCCESS; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_create_standard(void);

/** Declares this file's log source, registered before main() runs. */
#define DOCA_LOG_REGISTER(SOURCE)                                                                  \
	static int log_source;                                                                     \
	__attribute__((constructor(101), unused)) static void doca_log_register_##SOURCE(void)     \
	{                                                                                          \
		doca_log_register_source(#SOURCE, &log_source);                                    \
	}

/** Logs at @p level from this file's source. */
#define DOCA_LOG(level, format, ...)                                                               \
	doca_log(DOCA_LOG_LEVEL_##level, log_source, __FILE__, __LINE__, __func__, format,           \
		 ##__VA_ARGS__)

#define DOCA_LOG_CRIT(format, ...) DOCA_LOG(CRIT, format, ##__VA_ARGS__) /**< critical */
#define DOCA_LOG_ERR(format, ...) DOCA_LOG(ERROR, format, ##__VA_ARGS__) /**< error */
#define DOCA_LOG_WARN(format, ...) DOCA_LOG(WARNING, format, ##__VA_ARGS__) /**< warning */
#define DOCA_LOG_INFO(format, ...) DOCA_LOG(INFO, format, ##__VA_ARGS__) /**< info */
#define DOCA_LOG_DBG(format, ...) DOCA_LOG(DEBUG, format, ##__VA_ARGS__) /**< debug */
#ifdef DOCA_LOGGING_ALLOW_TRACE
#define DOCA_LOG_TRC(format, ...) DOCA_LOG(TRACE, format, ##__VA_ARGS__) /**< trace */
#else
#define DOCA_LOG_TRC(format, ...) do { } while (0)
#endif

#ifdef __cplusplus
}
#endif

#endif /* DOCA_LOG_H_ */
