/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Internals of the logging core, shared by log.c, log_backend.c and log_rate.c only. */
#ifndef ODMA_CORE_LOG_INT_H_
#define ODMA_CORE_LOG_INT_H_

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <doca_log.h>

#define ODMA_LOG_MAX_SOURCES 1024
#define ODMA_LOG_MAX_BACKENDS 64
#define ODMA_LOG_LINE_MAX 2048

enum odma_log_sink {
	ODMA_LOG_SINK_FILE,
	ODMA_LOG_SINK_FD,
	ODMA_LOG_SINK_BUF,
	ODMA_LOG_SINK_SYSLOG
};

struct doca_log_backend {
	enum odma_log_sink sink;
	bool sdk;             /* receives SDK messages only (else application messages only) */
	uint32_t lower;       /* most verbose level shown (application backends) */
	uint32_t upper;       /* most severe level shown (application backends) */
	uint32_t lower_cap;   /* fixed bound on lower: the standard stderr half stops at WARNING */
	uint32_t upper_floor; /* fixed bound on upper: the standard stdout half starts at INFO */
	bool lower_strict;
	bool upper_strict;
	uint32_t sdk_level; /* most verbose level shown (SDK backends) */
	FILE *fp;
	int fd;
	char *buf;
	size_t cap;
	log_flush_callback flush;
	char *ident;
};

/* Global settings; written under odma_log_lock, read by the filter through the atomics. */
struct odma_log_globals {
	uint32_t lower;
	uint32_t upper;
	uint32_t sdk;
	bool sdk_explicit; /* the SDK limit came from the user (setter or DOCA_LOG_LEVEL) */
	bool have_app_backend;
	bool have_sdk_backend;
	bool have_standard;
	struct doca_log_backend *backends[ODMA_LOG_MAX_BACKENDS];
	int nb_backends;
	_Atomic uint32_t max_app; /* most verbose level any application backend shows */
	_Atomic uint32_t max_sdk; /* most verbose level any SDK backend shows */
};

extern pthread_mutex_t odma_log_lock;
/* Guards the rate-limit buckets and settings; never held while taking odma_log_lock. */
extern pthread_mutex_t odma_log_rate_lock;
extern struct odma_log_globals odma_log_g;

/* Which limit a setter changes: the global ones (log.c) and a backend's (log_backend.c). */
enum odma_limit { ODMA_LIMIT_LOWER, ODMA_LIMIT_UPPER, ODMA_LIMIT_SDK };

void odma_log_init(void);
/* Take and release odma_log_lock, unless this thread holds it already (in a flush callback). */
void odma_log_lock_enter(void);
void odma_log_lock_leave(void);
bool odma_log_level_valid(uint32_t level);
doca_error_t odma_log_level_parse(const char *text, uint32_t *level);
void odma_log_recompute_locked(void);
doca_error_t odma_log_check_source(int source, bool *sdk);
/*
 * odma_log_check_source for a source that logs: once the source table has filled, -1 (what
 * DOCA_LOG_REGISTER leaves when it found no slot) becomes the source UNREGISTERED. On
 * success @source is the slot to log from.
 */
doca_error_t odma_log_check_logging_source(int *source, bool *sdk);
bool odma_log_filtered(uint32_t level, bool sdk);
void odma_log_emit(uint32_t level, int source, const char *func, int line, const char *suffix,
                   const char *format, va_list ap);
void odma_log_backends_init_fallbacks(void);
void odma_log_recompute_fallbacks_locked(void);
void odma_log_dispatch_locked(uint32_t level, bool sdk, const char *text, size_t len);

/* Token bucket, exposed for white-box tests: time is passed in so tests need no clock. */
struct odma_log_bucket {
	int source;
	bool used;
	double tokens;
	uint64_t last_ns;
	uint32_t dropped;
};
bool odma_log_bucket_take(struct odma_log_bucket *b, uint64_t now_ns, uint32_t quantity,
                          uint32_t period_s, uint32_t *dropped);

#endif /* ODMA_CORE_LOG_INT_H_ */
