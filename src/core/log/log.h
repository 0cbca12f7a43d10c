/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* SDK-side logging used by every odma library: one line per rejected call, naming the rule. */
#ifndef ODMA_CORE_LOG_H_
#define ODMA_CORE_LOG_H_

#include <stdatomic.h>

#include <doca_log.h>

/*
 * Registers a log source whose messages count as SDK messages (filtered by the
 * SDK level, DOCA_LOG_LEVEL). Exported with a doca_priv_ prefix because
 * libdoca_dma and libdoca_argp call it across the library boundary.
 */
DOCA_STABLE doca_error_t doca_priv_log_register_sdk_source(const char *name, int *source);

/*
 * DOCA_LOG_LEVEL, read by the log module at its start (before any other module): what it
 * accepts and what a bad value does. The same words are its row in core/config's table.
 */
#define ODMA_LOG_LEVEL_ACCEPTED                                                                    \
	"a level name (disable, crit, error, warning, info, debug, trace; any case) or a number "  \
	"10, 20, ... 70"
#define ODMA_LOG_LEVEL_ON_BAD "the SDK log level stays at its default (one line on stderr)"

/* Declares the SDK log source of one .c file. */
#define ODMA_LOG_REGISTER(SOURCE)                                                                  \
	static int odma_log_source = -1;                                                           \
	__attribute__((constructor(101))) static void odma_log_register_##SOURCE(void)             \
	{                                                                                          \
		doca_priv_log_register_sdk_source(#SOURCE, &odma_log_source);                      \
	}

#define ODMA_LOG(level, ...)                                                                       \
	doca_log(DOCA_LOG_LEVEL_##level, odma_log_source, __FILE__, __LINE__, __func__, __VA_ARGS__)
#define ODMA_ERR(...) ODMA_LOG(ERROR, __VA_ARGS__)
/*
 * An ERROR logged under the name of the public call @fn (a string), for a rejection found
 * by a helper that several public calls share: the line names the call the program made.
 */
#define ODMA_ERR_AT(fn, ...)                                                                       \
	doca_log(DOCA_LOG_LEVEL_ERROR, odma_log_source, __FILE__, __LINE__, fn, __VA_ARGS__)
#define ODMA_WARN(...) ODMA_LOG(WARNING, __VA_ARGS__)
#define ODMA_INFO(...) ODMA_LOG(INFO, __VA_ARGS__)
#define ODMA_DBG(...) ODMA_LOG(DEBUG, __VA_ARGS__)
#ifdef ODMA_ENABLE_TRACE
#define ODMA_TRC(...) ODMA_LOG(TRACE, __VA_ARGS__)
#else
#define ODMA_TRC(...) ((void)0)
#endif

/*
 * A line at @level, under the name of the call @fn (a string), for rejections that a busy
 * program may hit at a high rate (a full queue, an exhausted pool): rate-limited per call site
 * like DOCA_LOG_RATE_LIMIT_*, the next line let through counting those dropped; safe from any
 * thread.
 */
#define ODMA_RATELIMITED_AT(level, fn, ...)                                                        \
	do {                                                                                       \
		static atomic_int odma_rl_bucket = -1;                                             \
		int odma_rl_b = atomic_load_explicit(&odma_rl_bucket, memory_order_acquire);       \
		if (odma_rl_b < 0) {                                                               \
			int odma_rl_new = -1, odma_rl_exp = -1;                                    \
			doca_log_rate_bucket_register(odma_log_source, &odma_rl_new);              \
			odma_rl_b = atomic_compare_exchange_strong(&odma_rl_bucket, &odma_rl_exp,  \
			                                           odma_rl_new)                    \
			                    ? odma_rl_new                                          \
			                    : odma_rl_exp;                                         \
		}                                                                                  \
		doca_log_rate_limit(DOCA_LOG_LEVEL_##level, odma_log_source, __FILE__, __LINE__,   \
		                    fn, odma_rl_b, __VA_ARGS__);                                   \
	} while (0)
#define ODMA_RATELIMITED_WARN(...) ODMA_RATELIMITED_AT(WARNING, __func__, __VA_ARGS__)
#define ODMA_RATELIMITED_ERR_AT(fn, ...) ODMA_RATELIMITED_AT(ERROR, fn, __VA_ARGS__)

/* Rejects a NULL argument at a public entry point with one log line. */
#define ODMA_CHECK_ARG(cond, ...)                                                                  \
	do {                                                                                       \
		if (doca_unlikely(!(cond))) {                                                      \
			ODMA_ERR(__VA_ARGS__);                                                     \
			return DOCA_ERROR_INVALID_VALUE;                                           \
		}                                                                                  \
	} while (0)

/*
 * Defines the public getter @fn(@t1 *@n1, @t2 *@n2): DOCA_ERROR_INVALID_VALUE with one line
 * naming both arguments when either is NULL; else *@n2 = the expression that follows them,
 * and DOCA_SUCCESS.
 */
#define ODMA_GETTER(fn, t1, n1, t2, n2, ...)                                                       \
	doca_error_t fn(t1 *n1, t2 *n2)                                                            \
	{                                                                                          \
		ODMA_CHECK_ARG(n1 != NULL && n2 != NULL, #n1 " and " #n2 " must not be NULL");     \
		*n2 = (__VA_ARGS__);                                                               \
		return DOCA_SUCCESS;                                                               \
	}

/*
 * Defines the public setter @fn(@t1 *@n1, @t2 @n2) that forwards to shared code:
 * DOCA_ERROR_INVALID_VALUE with one line "@fn: @n1 must not be NULL" when @n1 is NULL; else
 * what the expression that follows returns (the shared setter, which checks @n2).
 */
#define ODMA_SETTER(fn, t1, n1, t2, n2, ...)                                                       \
	doca_error_t fn(t1 *n1, t2 n2)                                                             \
	{                                                                                          \
		ODMA_CHECK_ARG(n1 != NULL, #fn ": " #n1 " must not be NULL");                      \
		return (__VA_ARGS__);                                                              \
	}

#endif /* ODMA_CORE_LOG_H_ */
