/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Logging core: global state, DOCA_LOG_LEVEL, sources, filtering and dispatch. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "core/log/log_int.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(ODMA_LOG)

struct odma_log_source {
	char name[64]; /* written and read under odma_log_lock: a freed slot is reused */
	_Atomic bool sdk;
	_Atomic bool active;
};

pthread_mutex_t odma_log_lock = PTHREAD_MUTEX_INITIALIZER;
struct odma_log_globals odma_log_g = {
	.lower = DOCA_LOG_LEVEL_INFO,
	.upper = DOCA_LOG_LEVEL_CRIT,
	.sdk = DOCA_LOG_LEVEL_INFO,
};

/*
 * One slot past the table: the source UNREGISTERED, opened when a registration first finds
 * the table full. DOCA_LOG_REGISTER's constructor ignores that refusal and leaves the file's
 * source at -1; that file's lines print under this name instead of being rejected.
 */
#define LOG_OVERFLOW ODMA_LOG_MAX_SOURCES
#define LOG_OVERFLOW_NAME "UNREGISTERED"

static struct odma_log_source log_sources[ODMA_LOG_MAX_SOURCES + 1];
static _Atomic int log_num_sources;
static pthread_once_t log_once = PTHREAD_ONCE_INIT;
/* Set while this thread writes to backends: a flush callback that logs again is dropped. */
static __thread bool log_in_dispatch;

static const struct {
	const char *name;
	uint32_t level;
} odma_level_names[] = {
	{ "disable", DOCA_LOG_LEVEL_DISABLE }, { "crit", DOCA_LOG_LEVEL_CRIT },
	{ "critical", DOCA_LOG_LEVEL_CRIT },   { "error", DOCA_LOG_LEVEL_ERROR },
	{ "err", DOCA_LOG_LEVEL_ERROR },       { "warning", DOCA_LOG_LEVEL_WARNING },
	{ "warn", DOCA_LOG_LEVEL_WARNING },    { "info", DOCA_LOG_LEVEL_INFO },
	{ "debug", DOCA_LOG_LEVEL_DEBUG },     { "dbg", DOCA_LOG_LEVEL_DEBUG },
	{ "trace", DOCA_LOG_LEVEL_TRACE },     { "trc", DOCA_LOG_LEVEL_TRACE },
};

bool odma_log_level_valid(uint32_t level)
{
	return level >= DOCA_LOG_LEVEL_DISABLE && level <= DOCA_LOG_LEVEL_TRACE && level % 10 == 0;
}

static const char *odma_log_level_name(uint32_t level)
{
	static const char *const names[] = { "DISABLE", "CRIT",  "ERROR", "WARNING",
		                             "INFO",    "DEBUG", "TRACE" };

	if (level < DOCA_LOG_LEVEL_DISABLE || level > DOCA_LOG_LEVEL_TRACE)
		return "?";
	return names[(level - DOCA_LOG_LEVEL_DISABLE) / 10];
}

doca_error_t odma_log_level_parse(const char *text, uint32_t *level)
{
	char *end;
	long v;
	size_t i;

	if (text == NULL || level == NULL || *text == '\0')
		return DOCA_ERROR_INVALID_VALUE;
	if (isdigit((unsigned char)text[0])) {
		v = strtol(text, &end, 10);
		/* bounded before the cast: 2^32 + 10 must not pass as 10 */
		if (*end != '\0' || v < 0 || v > DOCA_LOG_LEVEL_TRACE ||
		    !odma_log_level_valid((uint32_t)v))
			return DOCA_ERROR_INVALID_VALUE;
		*level = (uint32_t)v;
		return DOCA_SUCCESS;
	}
	for (i = 0; i < sizeof(odma_level_names) / sizeof(odma_level_names[0]); i++) {
		if (strcasecmp(text, odma_level_names[i].name) == 0) {
			*level = odma_level_names[i].level;
			return DOCA_SUCCESS;
		}
	}
	return DOCA_ERROR_INVALID_VALUE;
}

/*
 * Seconds east of UTC, refreshed from localtime_r at most once a minute. localtime_r takes a
 * glibc lock that fork() leaves held if another thread had it, so a forked child never calls
 * it again (nor does a child it forks in turn): it keeps the offset refreshed just before the
 * fork.
 */
static _Atomic long log_utc_offset;
static _Atomic time_t log_utc_offset_at;
static atomic_bool log_utc_offset_frozen;

static void log_utc_offset_refresh(time_t now)
{
	struct tm tm;

	localtime_r(&now, &tm);
	atomic_store_explicit(&log_utc_offset, tm.tm_gmtoff, memory_order_relaxed);
	atomic_store_explicit(&log_utc_offset_at, now, memory_order_relaxed);
}

/* Seconds since local midnight at @now. */
static long log_local_seconds(time_t now)
{
	long s;

	if (!atomic_load_explicit(&log_utc_offset_frozen, memory_order_relaxed) &&
	    now - atomic_load_explicit(&log_utc_offset_at, memory_order_relaxed) >= 60)
		log_utc_offset_refresh(now);
	s = (long)((now + atomic_load_explicit(&log_utc_offset, memory_order_relaxed)) % 86400);
	return s < 0 ? s + 86400 : s;
}

/*
 * A fork() while another thread holds a log lock would leave the child's copy held for good,
 * and the child's first line would hang: hold both across fork so the child starts with them
 * free. The order is odma_log_lock then odma_log_rate_lock, as in a flush callback that logs
 * with a rate limit. A thread that forks from a flush callback already holds odma_log_lock.
 */
static void log_atfork_prepare(void)
{
	if (!atomic_load(&log_utc_offset_frozen))
		log_utc_offset_refresh(time(NULL));
	if (!log_in_dispatch)
		pthread_mutex_lock(&odma_log_lock);
	pthread_mutex_lock(&odma_log_rate_lock);
}

static void log_atfork_release(void)
{
	pthread_mutex_unlock(&odma_log_rate_lock);
	if (!log_in_dispatch)
		pthread_mutex_unlock(&odma_log_lock);
}

static void log_atfork_child(void)
{
	atomic_store(&log_utc_offset_frozen, true);
	log_atfork_release();
}

static void log_do_init(void)
{
	const char *env = getenv("DOCA_LOG_LEVEL");
	uint32_t level;

	pthread_mutex_lock(&odma_log_lock);
	if (env != NULL && odma_log_level_parse(env, &level) == DOCA_SUCCESS) {
		odma_log_g.sdk = level;
		odma_log_g.sdk_explicit = true;
	} else if (env != NULL) {
		/* The source table may be empty this early, so say it directly, once. */
		fprintf(stderr, "odma: DOCA_LOG_LEVEL=\"%s\" is not %s; %s\n", env,
		        ODMA_LOG_LEVEL_ACCEPTED, ODMA_LOG_LEVEL_ON_BAD);
	}
	odma_log_backends_init_fallbacks();
	odma_log_recompute_locked();
	pthread_mutex_unlock(&odma_log_lock);
	pthread_atfork(log_atfork_prepare, log_atfork_release, log_atfork_child);
}

void odma_log_init(void)
{
	pthread_once(&log_once, log_do_init);
}

/*
 * A flush callback runs with odma_log_lock held; a logging call it makes (a getter, a level
 * change, a new backend) must not wait for a lock its own thread holds.
 */
void odma_log_lock_enter(void)
{
	if (!log_in_dispatch)
		pthread_mutex_lock(&odma_log_lock);
}

void odma_log_lock_leave(void)
{
	if (!log_in_dispatch)
		pthread_mutex_unlock(&odma_log_lock);
}

/* ------------------------------------------------------------------ sources */

/* The first slot an unregistered source left, else the next unused one; -1 when all are taken. */
static int log_free_slot_locked(void)
{
	int i, n = atomic_load_explicit(&log_num_sources, memory_order_relaxed);

	for (i = 0; i < n; i++)
		if (!atomic_load_explicit(&log_sources[i].active, memory_order_relaxed))
			return i;
	return n < ODMA_LOG_MAX_SOURCES ? n : -1;
}

static void log_open_overflow_locked(void)
{
	struct odma_log_source *o = &log_sources[LOG_OVERFLOW];

	if (atomic_load_explicit(&o->active, memory_order_relaxed))
		return;
	snprintf(o->name, sizeof(o->name), "%s", LOG_OVERFLOW_NAME);
	atomic_store_explicit(&o->sdk, false, memory_order_relaxed);
	atomic_store_explicit(&o->active, true, memory_order_release);
}

static bool log_overflow_open(void)
{
	return atomic_load_explicit(&log_sources[LOG_OVERFLOW].active, memory_order_acquire);
}

static doca_error_t log_add_source(const char *name, bool sdk, int *source)
{
	int id;

	if (name == NULL || source == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	odma_log_init();
	odma_log_lock_enter();
	id = log_free_slot_locked();
	if (id < 0) {
		log_open_overflow_locked();
		odma_log_lock_leave();
		return DOCA_ERROR_NO_MEMORY;
	}
	snprintf(log_sources[id].name, sizeof(log_sources[0].name), "%s", name);
	atomic_store_explicit(&log_sources[id].sdk, sdk, memory_order_relaxed);
	/* Publish the filled slot before what makes it visible to lock-free readers. */
	atomic_store_explicit(&log_sources[id].active, true, memory_order_release);
	if (id == atomic_load_explicit(&log_num_sources, memory_order_relaxed))
		atomic_store_explicit(&log_num_sources, id + 1, memory_order_release);
	odma_log_lock_leave();
	*source = id;
	return DOCA_SUCCESS;
}

doca_error_t doca_log_register_source(const char *source_name, int *source)
{
	doca_error_t rc = log_add_source(source_name, false, source);

	if (rc == DOCA_ERROR_INVALID_VALUE)
		ODMA_ERR("doca_log_register_source: %s is NULL; "
		         "pass a name and an int to receive the id",
		         source_name == NULL ? "source_name" : "source");
	else if (rc == DOCA_ERROR_NO_MEMORY)
		ODMA_ERR("doca_log_register_source: all %d log sources are in use, none for %s; "
		         "unregister unused ones; "
		         "a DOCA_LOG_REGISTER source without a slot logs as " LOG_OVERFLOW_NAME,
		         ODMA_LOG_MAX_SOURCES, source_name);
	return rc;
}

doca_error_t doca_priv_log_register_sdk_source(const char *name, int *source)
{
	return log_add_source(name, true, source);
}

doca_error_t odma_log_check_source(int source, bool *sdk)
{
	if (source < 0 || source >= atomic_load_explicit(&log_num_sources, memory_order_acquire))
		return DOCA_ERROR_INVALID_VALUE;
	if (!atomic_load_explicit(&log_sources[source].active, memory_order_acquire))
		return DOCA_ERROR_INVALID_VALUE;
	*sdk = atomic_load_explicit(&log_sources[source].sdk, memory_order_relaxed);
	return DOCA_SUCCESS;
}

doca_error_t odma_log_check_logging_source(int *source, bool *sdk)
{
	if (*source == -1 && log_overflow_open()) {
		*source = LOG_OVERFLOW;
		*sdk = false;
		return DOCA_SUCCESS;
	}
	return odma_log_check_source(*source, sdk);
}

/* Frees the slot of @source for a later registration; under the lock, so it frees one only once. */
doca_error_t doca_log_unregister_source(int source)
{
	doca_error_t rc;
	bool sdk;

	odma_log_init();
	odma_log_lock_enter();
	rc = odma_log_check_source(source, &sdk);
	/* The SDK's own sources are not the program's: a stray id must not silence a library. */
	if (rc == DOCA_SUCCESS && sdk)
		rc = DOCA_ERROR_INVALID_VALUE;
	if (rc == DOCA_SUCCESS)
		atomic_store(&log_sources[source].active, false);
	odma_log_lock_leave();
	/* the destructor of a DOCA_LOG_REGISTER refused a slot: the refusal was logged then */
	if (rc != DOCA_SUCCESS && source == -1 && log_overflow_open())
		return DOCA_ERROR_INVALID_VALUE;
	if (rc != DOCA_SUCCESS) {
		ODMA_ERR("doca_log_unregister_source: source %d is not a registered application "
		         "source; pass an id from doca_log_register_source",
		         source);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

/* ------------------------------------------------------------------ global limits */

static uint32_t log_max_u32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

void odma_log_recompute_locked(void)
{
	uint32_t max_app = DOCA_LOG_LEVEL_DISABLE, max_sdk = DOCA_LOG_LEVEL_DISABLE;
	const struct doca_log_backend *b;
	int i;

	for (i = 0; i < odma_log_g.nb_backends; i++) {
		b = odma_log_g.backends[i];
		if (b->sdk)
			max_sdk = log_max_u32(max_sdk, b->sdk_level);
		else
			max_app = log_max_u32(max_app,
			                      b->lower < b->lower_cap ? b->lower : b->lower_cap);
	}
	atomic_store_explicit(&odma_log_g.max_app, max_app, memory_order_relaxed);
	atomic_store_explicit(&odma_log_g.max_sdk, max_sdk, memory_order_relaxed);
	odma_log_recompute_fallbacks_locked();
}

/* Applies a global limit to every backend that follows it, then refreshes the filter. */
static doca_error_t log_set_global(uint32_t level, enum odma_limit which, const char *fn)
{
	struct doca_log_backend *b;
	int i;

	odma_log_init();
	if (!odma_log_level_valid(level)) {
		ODMA_ERR("%s: %u is not a log level; use a value of enum doca_log_level (10..70)",
		         fn, level);
		return DOCA_ERROR_INVALID_VALUE;
	}
	odma_log_lock_enter();
	if (which == ODMA_LIMIT_LOWER)
		odma_log_g.lower = level;
	else if (which == ODMA_LIMIT_UPPER)
		odma_log_g.upper = level;
	else {
		odma_log_g.sdk = level;
		odma_log_g.sdk_explicit = true;
	}
	for (i = 0; i < odma_log_g.nb_backends; i++) {
		b = odma_log_g.backends[i];
		if (which == ODMA_LIMIT_LOWER && !b->sdk && !b->lower_strict)
			b->lower = level;
		else if (which == ODMA_LIMIT_UPPER && !b->sdk && !b->upper_strict)
			b->upper = level;
		else if (which == ODMA_LIMIT_SDK && b->sdk)
			b->sdk_level = level;
	}
	odma_log_recompute_locked();
	odma_log_lock_leave();
	return DOCA_SUCCESS;
}

doca_error_t doca_log_level_set_global_lower_limit(uint32_t level)
{
	return log_set_global(level, ODMA_LIMIT_LOWER, __func__);
}

doca_error_t doca_log_level_set_global_upper_limit(uint32_t level)
{
	return log_set_global(level, ODMA_LIMIT_UPPER, __func__);
}

doca_error_t doca_log_level_set_global_sdk_limit(uint32_t level)
{
	return log_set_global(level, ODMA_LIMIT_SDK, __func__);
}

static uint32_t log_get_global(const uint32_t *field)
{
	uint32_t v;

	odma_log_init();
	odma_log_lock_enter();
	v = *field;
	odma_log_lock_leave();
	return v;
}

uint32_t doca_log_level_get_global_lower_limit(void)
{
	return log_get_global(&odma_log_g.lower);
}

uint32_t doca_log_level_get_global_upper_limit(void)
{
	return log_get_global(&odma_log_g.upper);
}

uint32_t doca_log_level_get_global_sdk_limit(void)
{
	return log_get_global(&odma_log_g.sdk);
}

/* ------------------------------------------------------------------ messages */

bool odma_log_filtered(uint32_t level, bool sdk)
{
	_Atomic uint32_t *max = sdk ? &odma_log_g.max_sdk : &odma_log_g.max_app;

	return level == DOCA_LOG_LEVEL_DISABLE ||
	       level > atomic_load_explicit(max, memory_order_relaxed);
}

static size_t log_prefix(char *out, size_t size, uint32_t level, const char *src, const char *func,
                         int line)
{
	struct timespec ts;
	long day;
	int n;

	clock_gettime(CLOCK_REALTIME, &ts);
	day = log_local_seconds(ts.tv_sec);
	n = snprintf(out, size, "[%02ld:%02ld:%02ld:%06ld][%d][%s][%s][%s:%d] ", day / 3600,
	             day / 60 % 60, day % 60, ts.tv_nsec / 1000, (int)getpid(),
	             odma_log_level_name(level), src, func != NULL ? func : "?", line);
	return n < 0 ? 0 : ((size_t)n >= size ? size - 1 : (size_t)n);
}

void odma_log_emit(uint32_t level, int source, const char *func, int line, const char *suffix,
                   const char *format, va_list ap)
{
	char text[ODMA_LOG_LINE_MAX], name[sizeof(log_sources[0].name)];
	size_t slen = suffix != NULL ? strlen(suffix) : 0, max, len;
	int n;

	if (log_in_dispatch)
		return;
	pthread_mutex_lock(&odma_log_lock);
	memcpy(name, log_sources[source].name, sizeof(name));
	pthread_mutex_unlock(&odma_log_lock);
	/* prefix and message, cut to leave room for the suffix (a count of drops), '\n', '\0' */
	max = sizeof(text) - 2 - slen;
	len = log_prefix(text, max + 1, level, name, func, line);
	n = vsnprintf(text + len, max + 1 - len, format, ap);
	len = n < 0 ? len : (len + (size_t)n > max ? max : len + (size_t)n);
	memcpy(text + len, suffix != NULL ? suffix : "", slen);
	len += slen;
	text[len++] = '\n';
	text[len] = '\0';
	pthread_mutex_lock(&odma_log_lock);
	log_in_dispatch = true;
	odma_log_dispatch_locked(level, atomic_load(&log_sources[source].sdk), text, len);
	log_in_dispatch = false;
	pthread_mutex_unlock(&odma_log_lock);
}

doca_error_t doca_log(uint32_t level, int source, const char *fname, int line, const char *func,
                      const char *format, ...)
{
	va_list ap;
	int slot = source;
	bool sdk;

	(void)fname;
	odma_log_init();
	if (odma_log_check_logging_source(&slot, &sdk) != DOCA_SUCCESS || format == NULL ||
	    level < DOCA_LOG_LEVEL_DISABLE || level > DOCA_LOG_LEVEL_TRACE) {
		/* odma_log_source guards against recursion when this file's own source is unset. */
		if (!log_in_dispatch && source != odma_log_source)
			ODMA_ERR("doca_log: rejected a message (source %d, level %u, format %s); "
			         "use a registered source, a level 10..70 and a format",
			         source, level, format == NULL ? "NULL" : "set");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (odma_log_filtered(level, sdk))
		return DOCA_SUCCESS;
	va_start(ap, format);
	odma_log_emit(level, slot, func, line, NULL, format, ap);
	va_end(ap);
	return DOCA_SUCCESS;
}
