/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */

/**
 * @file doca_log.h
 * @brief Logging: levels, sources, backends, limits and rate-limited messages.
 *
 * Objects and flow:
 *
 *     source (DOCA_LOG_REGISTER) --DOCA_LOG_xxx()--> filter --> backend(s) --> FILE* / fd / buffer / syslog
 *
 * - A *source* names where a message comes from; every .c file that logs declares one with
 *   DOCA_LOG_REGISTER(NAME) at file scope and then uses DOCA_LOG_ERR/WARN/INFO/DBG/CRIT.
 * - A *backend* is a destination. Application backends (`doca_log_backend_create_with_*`)
 *   receive application messages; SDK backends (`..._sdk`) receive the libraries' own
 *   messages. Backends live until the process ends (there is no destroy call).
 * - A message with level L reaches an application backend when
 *   `upper_limit <= L <= lower_limit` (levels are numbers: CRIT=20 is the most severe,
 *   TRACE=70 the most verbose). It reaches an SDK backend when `L <= sdk_level`.
 *
 * Legal call order: any time, from any thread, also in the child of a fork() made while
 * another thread was logging. Typical program start:
 *     doca_log_backend_create_standard();
 *     doca_log_backend_create_with_file_sdk(stderr, &sdk);
 *     doca_log_backend_set_sdk_level(sdk, DOCA_LOG_LEVEL_WARNING);
 *
 * Defaults (odma's decision, so that nothing is lost before a program sets logging up):
 * - Until the program creates its first SDK backend, SDK messages at WARNING and more
 *   severe go to stderr (when the global SDK limit was set explicitly, through
 *   doca_log_level_set_global_sdk_limit() or the `DOCA_LOG_LEVEL` environment variable,
 *   that limit is used instead of WARNING), so a rejected call is never silent.
 * - Until the program creates its first application backend, application messages go to
 *   the standard backend (stdout up to the global lower limit, INFO by default; stderr
 *   for WARNING and more severe).
 * - `DOCA_LOG_LEVEL` in the environment (a name such as "debug"/"DEBUG" or a number such
 *   as 60) sets the global SDK limit when the logging core first starts.
 * - Global lower limit INFO, global upper limit CRIT, global SDK limit INFO.
 *
 * Message format (one line): `[HH:MM:SS:uuuuuu][pid][LEVEL][SOURCE][func:line] text`.
 *
 * Messages that are filtered out cost one atomic load: the core keeps the most verbose
 * level any backend accepts and returns before taking a lock or formatting anything.
 */
#ifndef DOCA_LOG_H_
#define DOCA_LOG_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Log levels; a smaller number is more severe. */
enum doca_log_level {
	DOCA_LOG_LEVEL_DISABLE = 10, /**< nothing is logged */
	DOCA_LOG_LEVEL_CRIT = 20,    /**< the program cannot go on */
	DOCA_LOG_LEVEL_ERROR = 30,   /**< a call failed */
	DOCA_LOG_LEVEL_WARNING = 40, /**< something is probably wrong */
	DOCA_LOG_LEVEL_INFO = 50,    /**< normal, noteworthy events */
	DOCA_LOG_LEVEL_DEBUG = 60,   /**< detail for debugging */
	DOCA_LOG_LEVEL_TRACE = 70,   /**< per-operation detail (needs DOCA_LOGGING_ALLOW_TRACE) */
};

/** An output destination for log messages (owned by the logging core). */
struct doca_log_backend;

/**
 * @brief Called by a buffer backend after each message was written into its buffer.
 * @param [in] buf  the buffer given at creation, holding one NUL-terminated line.
 */
typedef void (*log_flush_callback)(char *buf);

/* ---------------------------------------------------------------- global limits */

/**
 * @brief Sets the most verbose level shown by every application backend whose lower limit is
 *        not strict (and by backends created later).
 * @param [in] level  a value of enum doca_log_level.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE when @p level is not a log level.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_log_level_set_global_lower_limit(uint32_t level);

/**
 * @brief Sets the most severe level shown by every application backend whose upper limit is
 *        not strict (and by backends created later).
 * @param [in] level  a value of enum doca_log_level.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE when @p level is not a log level.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_log_level_set_global_upper_limit(uint32_t level);

/**
 * @brief Returns the global lower limit (INFO unless changed).
 * @return the level.
 */
DOCA_EXPERIMENTAL
uint32_t doca_log_level_get_global_lower_limit(void);

/**
 * @brief Returns the global upper limit (CRIT unless changed).
 * @return the level.
 */
DOCA_EXPERIMENTAL
uint32_t doca_log_level_get_global_upper_limit(void);

/**
 * @brief Sets the most verbose SDK level shown by every SDK backend (and by the stderr
 *        fallback used before any SDK backend exists).
 * @param [in] level  a value of enum doca_log_level.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE when @p level is not a log level.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_log_level_set_global_sdk_limit(uint32_t level);

/**
 * @brief Returns the global SDK limit (INFO unless changed or set by DOCA_LOG_LEVEL).
 * @return the level.
 */
DOCA_EXPERIMENTAL
uint32_t doca_log_level_get_global_sdk_limit(void);

/* ---------------------------------------------------------------- sources */

/**
 * @brief Registers an application log source by name.
 * @param [in] source_name  name shown in every message of the source (copied; at most 63
 *                          characters are kept).
 * @param [out] source  the source id (untouched on failure).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE on NULL; DOCA_ERROR_NO_MEMORY when the
 *         source table (1024 registered sources, the SDK's own included) is full. From then
 *         on, a file whose DOCA_LOG_REGISTER was refused (its source stays -1) still logs,
 *         under the source name UNREGISTERED (odma's decision: its lines are not lost).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_log_register_source(const char *source_name, int *source);

/**
 * @brief Unregisters a log source and frees its slot: messages logged through it afterwards
 *        are rejected, until a later doca_log_register_source() is given the same id.
 * @param [in] source  an id from doca_log_register_source().
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for an unknown or already unregistered id,
 *         or the id of one of the SDK libraries' own sources.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_log_unregister_source(int source);

/* ---------------------------------------------------------------- backends */

/**
 * @brief Adds the standard backend: stdout for levels from INFO down to the global lower limit,
 *        stderr for WARNING up to the global upper limit. A second call changes nothing.
 * @return DOCA_SUCCESS; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_create_standard(void);

/**
 * @brief Adds an application backend writing to a stdio stream (flushed after every line).
 * @param [in] fptr  an open stream, which must stay open while logging goes on.
 * @param [out] backend  the new backend (untouched on failure).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE on NULL; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_create_with_file(FILE *fptr, struct doca_log_backend **backend);

/**
 * @brief Adds an application backend writing to a file descriptor (file, pipe, socket...).
 * @param [in] fd  an open descriptor (>= 0).
 * @param [out] backend  the new backend (untouched on failure).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE on a negative fd or NULL; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_create_with_fd(int fd, struct doca_log_backend **backend);

/**
 * @brief Adds an application backend that writes each line into a caller buffer and then calls
 *        @p handler. Lines longer than @p capacity - 1 are truncated.
 * @param [in] buf  the caller's buffer.
 * @param [in] capacity  its size in bytes (at least 2).
 * @param [in] handler  called once per line, on the logging thread. It may call the other
 *        doca_log functions; a line it logs itself is dropped.
 * @param [out] backend  the new backend (untouched on failure).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE on NULL or capacity < 2; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_create_with_buf(char *buf, size_t capacity, log_flush_callback handler,
					      struct doca_log_backend **backend);

/**
 * @brief Adds an application backend that sends messages to syslog(3).
 * @param [in] name  the identity shown by syslog (copied).
 * @param [out] backend  the new backend (untouched on failure).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE on NULL; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_create_with_syslog(const char *name, struct doca_log_backend **backend);

/**
 * @brief SDK variant of doca_log_backend_create_with_file(): receives the libraries' messages.
 * @param [in] fptr  an open stream.
 * @param [out] backend  the new backend (untouched on failure).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE on NULL; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_create_with_file_sdk(FILE *fptr, struct doca_log_backend **backend);

/**
 * @brief SDK variant of doca_log_backend_create_with_fd().
 * @param [in] fd  an open descriptor (>= 0).
 * @param [out] backend  the new backend (untouched on failure).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE on a negative fd or NULL; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_create_with_fd_sdk(int fd, struct doca_log_backend **backend);

/**
 * @brief SDK variant of doca_log_backend_create_with_buf().
 * @param [in] buf  the caller's buffer.
 * @param [in] capacity  its size in bytes (at least 2).
 * @param [in] handler  called once per line.
 * @param [out] backend  the new backend (untouched on failure).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE on NULL or capacity < 2; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_create_with_buf_sdk(char *buf, size_t capacity, log_flush_callback handler,
						  struct doca_log_backend **backend);

/**
 * @brief SDK variant of doca_log_backend_create_with_syslog().
 * @param [in] name  the identity shown by syslog (copied).
 * @param [out] backend  the new backend (untouched on failure).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE on NULL; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_create_with_syslog_sdk(const char *name, struct doca_log_backend **backend);

/**
 * @brief Sets the most verbose level an application backend shows; a later global change
 *        overrides it.
 * @param [in] backend  an application backend.
 * @param [in] level  a value of enum doca_log_level.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE on NULL, an SDK backend or a bad level.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_set_level_lower_limit(struct doca_log_backend *backend, uint32_t level);

/**
 * @brief Sets the most severe level an application backend shows; a later global change
 *        overrides it.
 * @param [in] backend  an application backend.
 * @param [in] level  a value of enum doca_log_level.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE on NULL, an SDK backend or a bad level.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_set_level_upper_limit(struct doca_log_backend *backend, uint32_t level);

/**
 * @brief Like doca_log_backend_set_level_lower_limit(), but later global changes leave it alone.
 * @param [in] backend  an application backend.
 * @param [in] level  a value of enum doca_log_level.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE on NULL, an SDK backend or a bad level.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_set_level_lower_limit_strict(struct doca_log_backend *backend, uint32_t level);

/**
 * @brief Like doca_log_backend_set_level_upper_limit(), but later global changes leave it alone.
 * @param [in] backend  an application backend.
 * @param [in] level  a value of enum doca_log_level.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE on NULL, an SDK backend or a bad level.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_set_level_upper_limit_strict(struct doca_log_backend *backend, uint32_t level);

/**
 * @brief Sets the most verbose SDK level an SDK backend shows (the global SDK limit applies to
 *        it again when that limit is changed later).
 * @param [in] backend  an SDK backend.
 * @param [in] level  a value of enum doca_log_level.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE on NULL, an application backend or a bad level.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_set_sdk_level(struct doca_log_backend *backend, uint32_t level);

/* ---------------------------------------------------------------- messages */

/**
 * @brief Logs one message; use the DOCA_LOG_xxx macros rather than calling this directly.
 * @param [in] level  a value of enum doca_log_level (DISABLE is never shown).
 * @param [in] source  a registered source id.
 * @param [in] fname  source file name (may be NULL).
 * @param [in] line  source line.
 * @param [in] func  function name (may be NULL).
 * @param [in] format  printf(3) format.
 * @return DOCA_SUCCESS (also when the message is filtered out); DOCA_ERROR_INVALID_VALUE for an
 *         unknown source, a level outside 10..70 or a NULL format. Source -1 (DOCA_LOG_REGISTER
 *         refused a slot) logs as UNREGISTERED once the source table has filled.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_log(uint32_t level, int source, const char *fname, int line, const char *func,
		      const char *format, ...) __attribute__((format(printf, 6, 7)));

/**
 * @brief Allocates a token bucket for rate-limited messages of @p source (one per call site,
 *        done by DOCA_LOG_RATE_LIMIT).
 * @param [in] source  a registered source id.
 * @param [out] bucket  the bucket id (untouched on failure).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE on NULL or an unknown source;
 *         DOCA_ERROR_NO_MEMORY when the bucket table is full (4096 buckets; logged once):
 *         DOCA_LOG_RATE_LIMIT's call site then keeps the id -1, which doca_log_rate_limit()
 *         takes for one bucket shared by every such call site.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_log_rate_bucket_register(int source, int *bucket);

/**
 * @brief Logs one message unless its bucket is empty. Each bucket holds up to
 *        doca_log_get_quantity() tokens and refills at quantity / bucket_time tokens per
 *        second; a shown message takes one token. The first message shown after drops
 *        reports how many were dropped.
 * @param [in] level  a value of enum doca_log_level.
 * @param [in] source  a registered source id.
 * @param [in] fname  source file name (may be NULL).
 * @param [in] line  source line.
 * @param [in] func  function name (may be NULL).
 * @param [in] bucket  an id from doca_log_rate_bucket_register(); -1 once its table is full
 *        (the shared overflow bucket).
 * @param [in] format  printf(3) format.
 * @return DOCA_SUCCESS (also when filtered or dropped); DOCA_ERROR_INVALID_VALUE for an unknown
 *         source or bucket, a bad level or a NULL format.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_log_rate_limit(uint32_t level, int source, const char *fname, int line, const char *func,
				 int bucket, const char *format, ...) __attribute__((format(printf, 7, 8)));

/**
 * @brief Returns the refill period of every rate-limit bucket, in seconds (default 1).
 * @return seconds.
 */
DOCA_EXPERIMENTAL
uint16_t doca_log_get_bucket_time(void);

/**
 * @brief Sets the refill period of every rate-limit bucket; 0 is treated as 1.
 * @param [in] bucket_time  seconds.
 */
DOCA_EXPERIMENTAL
void doca_log_set_bucket_time(uint16_t bucket_time);

/**
 * @brief Returns the number of messages a bucket lets through per period (default 10).
 * @return messages per period.
 */
DOCA_EXPERIMENTAL
uint16_t doca_log_get_quantity(void);

/**
 * @brief Sets the number of messages a bucket lets through per period (0 drops them all).
 * @param [in] quantity  messages per period.
 */
DOCA_EXPERIMENTAL
void doca_log_set_quantity(uint16_t quantity);

/* ---------------------------------------------------------------- macros */

/** Declares this file's log source: registered before main() and unregistered at exit. */
#define DOCA_LOG_REGISTER(SOURCE)                                                                  \
	static int log_source = -1;                                                                \
	__attribute__((constructor(101), unused)) static void doca_log_source_register_ctor(void)  \
	{                                                                                          \
		doca_log_register_source(#SOURCE, &log_source);                                    \
	}                                                                                          \
	__attribute__((destructor, unused)) static void doca_log_source_unregister_dtor(void)       \
	{                                                                                          \
		doca_log_unregister_source(log_source);                                            \
	}

/** Logs at @p level (CRIT, ERROR, WARNING, INFO, DEBUG, TRACE) from this file's source. */
#define DOCA_LOG(level, format, ...)                                                               \
	doca_log(DOCA_LOG_LEVEL_##level, log_source, __FILE__, __LINE__, __func__, format,           \
		 ##__VA_ARGS__)

#define DOCA_LOG_CRIT(format, ...) DOCA_LOG(CRIT, format, ##__VA_ARGS__)   /**< critical message */
#define DOCA_LOG_ERR(format, ...) DOCA_LOG(ERROR, format, ##__VA_ARGS__)   /**< error message */
#define DOCA_LOG_WARN(format, ...) DOCA_LOG(WARNING, format, ##__VA_ARGS__) /**< warning message */
#define DOCA_LOG_INFO(format, ...) DOCA_LOG(INFO, format, ##__VA_ARGS__)   /**< info message */
#define DOCA_LOG_DBG(format, ...) DOCA_LOG(DEBUG, format, ##__VA_ARGS__)   /**< debug message */
#ifdef DOCA_LOGGING_ALLOW_TRACE
#define DOCA_LOG_TRC(format, ...) DOCA_LOG(TRACE, format, ##__VA_ARGS__) /**< trace message */
#else
/** Trace message: compiled out (arguments are not evaluated) without DOCA_LOGGING_ALLOW_TRACE. */
#define DOCA_LOG_TRC(format, ...)                                                                  \
	do {                                                                                       \
	} while (0)
#endif

/** Logs at @p level through a token bucket owned by this call site (for hot paths). */
#define DOCA_LOG_RATE_LIMIT(level, format, ...)                                                    \
	do {                                                                                       \
		static int log_bucket = -1;                                                        \
		if (log_bucket == -1)                                                              \
			doca_log_rate_bucket_register(log_source, &log_bucket);                    \
		doca_log_rate_limit(DOCA_LOG_LEVEL_##level, log_source, __FILE__, __LINE__,        \
				    __func__, log_bucket, format, ##__VA_ARGS__);                  \
	} while (0)

#define DOCA_LOG_RATE_LIMIT_CRIT(format, ...) DOCA_LOG_RATE_LIMIT(CRIT, format, ##__VA_ARGS__) /**< critical */
#define DOCA_LOG_RATE_LIMIT_ERR(format, ...) DOCA_LOG_RATE_LIMIT(ERROR, format, ##__VA_ARGS__) /**< error */
#define DOCA_LOG_RATE_LIMIT_WARN(format, ...) DOCA_LOG_RATE_LIMIT(WARNING, format, ##__VA_ARGS__) /**< warning */
#define DOCA_LOG_RATE_LIMIT_INFO(format, ...) DOCA_LOG_RATE_LIMIT(INFO, format, ##__VA_ARGS__) /**< info */
#define DOCA_LOG_RATE_LIMIT_DBG(format, ...) DOCA_LOG_RATE_LIMIT(DEBUG, format, ##__VA_ARGS__) /**< debug */
#ifdef DOCA_LOGGING_ALLOW_TRACE
#define DOCA_LOG_RATE_LIMIT_TRC(format, ...) DOCA_LOG_RATE_LIMIT(TRACE, format, ##__VA_ARGS__) /**< trace */
#else
/** Rate-limited trace message: compiled out without DOCA_LOGGING_ALLOW_TRACE. */
#define DOCA_LOG_RATE_LIMIT_TRC(format, ...)                                                       \
	do {                                                                                       \
	} while (0)
#endif

#ifdef __cplusplus
}
#endif

#endif /* DOCA_LOG_H_ */
