/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Rate-limited logging: one token bucket per call site (DOCA_LOG_RATE_LIMIT). */
#include "core/log/log_int.h"
#include "core/log/log.h"
#include "util/now.h"

ODMA_LOG_REGISTER(ODMA_LOG_RATE)

#define ODMA_LOG_MAX_BUCKETS 4096
/*
 * The shared overflow bucket, past the table's end: once every bucket is in use, a call site
 * that could not register one (DOCA_LOG_RATE_LIMIT keeps its bucket id at -1) is limited by
 * this bucket, shared with every such site, rather than losing its messages.
 */
#define RATE_OVERFLOW ODMA_LOG_MAX_BUCKETS

pthread_mutex_t odma_log_rate_lock = PTHREAD_MUTEX_INITIALIZER;
static struct odma_log_bucket rate_buckets[ODMA_LOG_MAX_BUCKETS + 1];
static int rate_nb_buckets;
static bool rate_full_said; /* the table-full line is logged once, not once per message */
static uint16_t rate_bucket_time = 1;
static uint16_t rate_bucket_quantity = 10;

/*
 * Refills the bucket for the time passed since the last call (quantity tokens per period, never
 * more than quantity held) and takes one token if there is one. On success, *dropped receives the
 * number of messages refused since the last one let through.
 */
bool odma_log_bucket_take(struct odma_log_bucket *b, uint64_t now_ns, uint32_t quantity,
                          uint32_t period_s, uint32_t *dropped)
{
	double rate = (double)quantity / (period_s == 0 ? 1.0 : (double)period_s) / 1e9;

	if (now_ns > b->last_ns)
		b->tokens += (double)(now_ns - b->last_ns) * rate;
	b->last_ns = now_ns;
	if (b->tokens > quantity)
		b->tokens = quantity;
	if (b->tokens < 1.0) {
		b->dropped++;
		return false;
	}
	b->tokens -= 1.0;
	*dropped = b->dropped;
	b->dropped = 0;
	return true;
}

doca_error_t doca_log_rate_bucket_register(int source, int *bucket)
{
	bool sdk;

	odma_log_init();
	if (bucket == NULL || odma_log_check_logging_source(&source, &sdk) != DOCA_SUCCESS) {
		ODMA_ERR("doca_log_rate_bucket_register: source %d, bucket %s; pass a registered "
		         "source and an int to receive the id",
		         source, bucket == NULL ? "NULL" : "set");
		return DOCA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&odma_log_rate_lock);
	if (rate_nb_buckets == ODMA_LOG_MAX_BUCKETS) {
		bool said = rate_full_said;

		rate_full_said = true;
		pthread_mutex_unlock(&odma_log_rate_lock);
		if (!said)
			ODMA_ERR("doca_log_rate_bucket_register: all %d buckets are in use; "
			         "call sites without one now share a single bucket",
			         ODMA_LOG_MAX_BUCKETS);
		return DOCA_ERROR_NO_MEMORY;
	}
	/* A new bucket starts full, so the first burst of a call site is shown. */
	rate_buckets[rate_nb_buckets] = (struct odma_log_bucket){ .source = source,
		                                                  .used = true,
		                                                  .tokens = rate_bucket_quantity,
		                                                  .last_ns = odma_now_ns() };
	*bucket = rate_nb_buckets++;
	pthread_mutex_unlock(&odma_log_rate_lock);
	return DOCA_SUCCESS;
}

/* Takes a token from @p bucket; false when the message must be dropped. */
static bool rate_admit(int bucket, uint32_t *dropped)
{
	bool ok;

	pthread_mutex_lock(&odma_log_rate_lock);
	ok = odma_log_bucket_take(&rate_buckets[bucket], odma_now_ns(), rate_bucket_quantity,
	                          rate_bucket_time, dropped);
	pthread_mutex_unlock(&odma_log_rate_lock);
	return ok;
}

/*
 * The bucket a message of @bucket takes its token from: @bucket itself, or the shared
 * overflow bucket for -1 (no bucket registered) once the table is full; -1 if invalid.
 */
static int rate_bucket_resolve(int bucket)
{
	struct odma_log_bucket *o = &rate_buckets[RATE_OVERFLOW];
	int b = -1;

	pthread_mutex_lock(&odma_log_rate_lock);
	if (bucket >= 0 && bucket < rate_nb_buckets && rate_buckets[bucket].used) {
		b = bucket;
	} else if (bucket == -1 && rate_nb_buckets == ODMA_LOG_MAX_BUCKETS) {
		if (!o->used) /* starts full, as any bucket */
			*o = (struct odma_log_bucket){ .used = true,
				                       .tokens = rate_bucket_quantity,
				                       .last_ns = odma_now_ns() };
		b = RATE_OVERFLOW;
	}
	pthread_mutex_unlock(&odma_log_rate_lock);
	return b;
}

doca_error_t doca_log_rate_limit(uint32_t level, int source, const char *fname, int line,
                                 const char *func, int bucket, const char *format, ...)
{
	char suffix[64];
	uint32_t dropped = 0;
	va_list ap;
	bool sdk;
	int b = -1, slot = source;

	(void)fname;
	odma_log_init();
	if (odma_log_check_logging_source(&slot, &sdk) != DOCA_SUCCESS || format == NULL ||
	    (b = rate_bucket_resolve(bucket)) < 0 || level < DOCA_LOG_LEVEL_DISABLE ||
	    level > DOCA_LOG_LEVEL_TRACE) {
		ODMA_ERR(
		        "doca_log_rate_limit: rejected a message (source %d, bucket %d, level %u); "
		        "use DOCA_LOG_RATE_LIMIT_xxx after DOCA_LOG_REGISTER",
		        source, bucket, level);
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* Filtered messages take no token: only shown messages count against the rate. */
	if (odma_log_filtered(level, sdk) || !rate_admit(b, &dropped))
		return DOCA_SUCCESS;
	if (dropped > 0)
		snprintf(suffix, sizeof(suffix), " (%u similar messages dropped)", dropped);
	va_start(ap, format);
	odma_log_emit(level, slot, func, line, dropped > 0 ? suffix : NULL, format, ap);
	va_end(ap);
	return DOCA_SUCCESS;
}

/* Reads the rate setting @setting under odma_log_rate_lock, which guards every one of them. */
static uint16_t rate_setting_get(const uint16_t *setting)
{
	uint16_t v;

	pthread_mutex_lock(&odma_log_rate_lock);
	v = *setting;
	pthread_mutex_unlock(&odma_log_rate_lock);
	return v;
}

uint16_t doca_log_get_bucket_time(void)
{
	return rate_setting_get(&rate_bucket_time);
}

void doca_log_set_bucket_time(uint16_t bucket_time)
{
	pthread_mutex_lock(&odma_log_rate_lock);
	rate_bucket_time = bucket_time == 0 ? 1 : bucket_time;
	pthread_mutex_unlock(&odma_log_rate_lock);
}

uint16_t doca_log_get_quantity(void)
{
	return rate_setting_get(&rate_bucket_quantity);
}

void doca_log_set_quantity(uint16_t quantity)
{
	int i;

	pthread_mutex_lock(&odma_log_rate_lock);
	rate_bucket_quantity = quantity;
	/* Lowering the quantity takes effect at once: no bucket keeps more than it allows. */
	for (i = 0; i <= RATE_OVERFLOW; i++)
		if (rate_buckets[i].tokens > quantity)
			rate_buckets[i].tokens = quantity;
	pthread_mutex_unlock(&odma_log_rate_lock);
}
