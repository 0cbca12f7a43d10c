/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * ODMA_FAULTS="seed=42,submit_again=0.01,complete_error=0.001,delay_us=0-200,remote_die_after=1000"
 * Optional: error=NAME (the status of injected failures, default DOCA_ERROR_IO_FAILED).
 * Comch points (read by libdoca_comch through doca_priv_faults_comch): comch_drop_after=N
 * (a connection is cut after carrying N messages), comch_delay_us=A-B (each received
 * message is delivered A..B microseconds late).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/config/config.h"
#include "core/error/error.h"
#include "core/exec/exec.h"
#include "core/exec/faults.h"
#include "core/exec/trace.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(ODMA_FAULTS)

bool odma_faults_enabled;

static struct odma_fault_config faults_cfg;
static pthread_mutex_t faults_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t faults_rng;          /* xorshift64* state, under the lock */
static uint64_t faults_remote_tasks; /* under the lock */
static pthread_once_t faults_once = PTHREAD_ONCE_INIT;
static doca_error_t faults_status = DOCA_SUCCESS;

static bool parse_prob(const char *v, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(v, &end);
	return errno == 0 && end != v && *end == '\0' && *out >= 0.0 && *out <= 1.0;
}

static bool parse_u64(const char *v, uint64_t *out)
{
	char *end;

	if (*v < '0' || *v > '9') /* digits only: strtoull skips spaces and takes a sign */
		return false;
	errno = 0;
	*out = strtoull(v, &end, 10);
	return errno == 0 && *end == '\0';
}

#define FAULTS_DELAY_MAX_US 1000000u /* a delay is a shake, not a hang: 1 s at most */

static bool parse_delay(const char *v, uint32_t *lo, uint32_t *hi)
{
	char buf[64], *dash;
	uint64_t a, b;

	if (strlen(v) >= sizeof(buf))
		return false;
	strcpy(buf, v);
	dash = strchr(buf, '-');
	if (dash != NULL)
		*dash = '\0';
	if (!parse_u64(buf, &a) || (dash != NULL && !parse_u64(dash + 1, &b)))
		return false;
	b = dash != NULL ? b : a;
	if (a > b || b > FAULTS_DELAY_MAX_US)
		return false;
	*lo = (uint32_t)a;
	*hi = (uint32_t)b;
	return true;
}

static bool parse_error_name(const char *v, doca_error_t *out)
{
	for (unsigned int i = 1; i < odma_error_count(); i++) {
		const char *n = odma_error_info((doca_error_t)i)->name;

		if (strcmp(v, n) == 0 ||
		    (strncmp(n, "DOCA_ERROR_", 11) == 0 && strcmp(v, n + 11) == 0)) {
			*out = (doca_error_t)i;
			return true;
		}
	}
	return false;
}

static bool parse_item(const char *key, const char *val, struct odma_fault_config *c)
{
	if (strcmp(key, "seed") == 0)
		return parse_u64(val, &c->seed);
	if (strcmp(key, "submit_again") == 0)
		return parse_prob(val, &c->submit_again);
	if (strcmp(key, "complete_error") == 0)
		return parse_prob(val, &c->complete_error);
	if (strcmp(key, "delay_us") == 0)
		return parse_delay(val, &c->delay_min_us, &c->delay_max_us);
	if (strcmp(key, "remote_die_after") == 0)
		return (c->remote_die = parse_u64(val, &c->remote_die_after));
	if (strcmp(key, "error") == 0)
		return parse_error_name(val, &c->error_code);
	if (strcmp(key, "comch_drop_after") == 0) /* 0 would cut nothing: refused, not off */
		return parse_u64(val, &c->comch_drop_after) && c->comch_drop_after > 0;
	if (strcmp(key, "comch_delay_us") == 0)
		return parse_delay(val, &c->comch_delay_min_us, &c->comch_delay_max_us);
	return false;
}

/* The refusal of the item @p (@n bytes) whose key is @key: the delays' bounds, or the keys. */
static void faults_refuse(const char *key, const char *p, size_t n, char *err, size_t errlen)
{
	if (strcmp(key, "delay_us") == 0 || strcmp(key, "comch_delay_us") == 0)
		snprintf(err, errlen,
		         "bad item \"%.*s\" (%s=A or A-B microseconds, A <= B <= %u: 1 s)", (int)n,
		         p, key, FAULTS_DELAY_MAX_US);
	else
		snprintf(err, errlen,
		         "bad item \"%.*s\" (keys: seed, submit_again, complete_error, "
		         "delay_us=A-B, remote_die_after, error, comch_drop_after, "
		         "comch_delay_us=A-B)",
		         (int)n, p);
}

doca_error_t odma_faults_parse(const char *spec, struct odma_fault_config *out, char *err,
                               size_t errlen)
{
	struct odma_fault_config c = { .seed = 1, .error_code = DOCA_ERROR_IO_FAILED };
	char item[128];
	const char *p = spec != NULL && *spec != '\0' ? spec : NULL; /* "": no faults */

	while (p != NULL) { /* an empty item, first, last ("seed=1,") or between, is refused */
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		char *eq;

		if (n == 0 || n >= sizeof(item)) {
			snprintf(err, errlen, "item at offset %zu is empty or too long",
			         (size_t)(p - spec));
			return DOCA_ERROR_INVALID_VALUE;
		}
		memcpy(item, p, n);
		item[n] = '\0';
		eq = strchr(item, '=');
		if (eq == NULL || !parse_item((*eq = '\0', item), eq + 1, &c)) {
			faults_refuse(item, p, n, err, errlen);
			return DOCA_ERROR_INVALID_VALUE;
		}
		p = comma ? comma + 1 : NULL;
	}
	*out = c;
	return DOCA_SUCCESS;
}

static void faults_load(void)
{
	const char *spec = odma_config_string("ODMA_FAULTS");
	char err[256];

	if (spec == NULL)
		return;
	faults_status = odma_faults_parse(spec, &faults_cfg, err, sizeof(err));
	if (faults_status != DOCA_SUCCESS) {
		odma_config_refuse("ODMA_FAULTS", spec, err);
		return;
	}
	faults_rng = faults_cfg.seed ? faults_cfg.seed : 0x9e3779b97f4a7c15ull;
	odma_faults_enabled = true;
	odma_exec_slow = true; /* the submit and run paths take their slow branch */
	ODMA_WARN("fault injection on: ODMA_FAULTS=\"%s\"", spec);
}

doca_error_t odma_faults_init(void)
{
	pthread_once(&faults_once, faults_load);
	return faults_status;
}

static double faults_rand01(void)
{
	faults_rng ^= faults_rng >> 12;
	faults_rng ^= faults_rng << 25;
	faults_rng ^= faults_rng >> 27;
	return (double)((faults_rng * 0x2545f4914f6cdd1dull) >> 11) / (double)(1ull << 53);
}

doca_error_t odma_faults_on_submit(doca_error_t *preset, bool remote)
{
	doca_error_t r = DOCA_SUCCESS;

	pthread_mutex_lock(&faults_lock);
	if (faults_cfg.submit_again > 0 && faults_rand01() < faults_cfg.submit_again) {
		r = DOCA_ERROR_AGAIN;
		goto out;
	}
	/* remote_die_after=0: the peer is dead from the first task (never "off"). */
	if (remote && faults_cfg.remote_die && ++faults_remote_tasks > faults_cfg.remote_die_after)
		*preset = DOCA_ERROR_IO_FAILED;
	else if (faults_cfg.complete_error > 0 && faults_rand01() < faults_cfg.complete_error)
		*preset = faults_cfg.error_code;
out:
	pthread_mutex_unlock(&faults_lock);
	return r;
}

void odma_faults_on_refused(bool remote)
{
	if (!remote || !faults_cfg.remote_die)
		return;
	pthread_mutex_lock(&faults_lock);
	faults_remote_tasks--;
	pthread_mutex_unlock(&faults_lock);
}

/* splitmix64: a well-mixed 64-bit value of @x. */
static uint64_t faults_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

void odma_faults_delay(uint64_t seq)
{
	uint32_t span = faults_cfg.delay_max_us - faults_cfg.delay_min_us + 1;
	uint32_t us;
	struct timespec ts;

	if (faults_cfg.delay_max_us == 0)
		return;
	us = faults_cfg.delay_min_us + (uint32_t)(faults_mix64(faults_cfg.seed ^ seq) % span);
	if (us == 0)
		return;
	ts.tv_sec = us / 1000000;
	ts.tv_nsec = (long)(us % 1000000) * 1000;
	nanosleep(&ts, NULL);
}

doca_error_t doca_priv_faults_comch(struct odma_comch_faults *out)
{
	doca_error_t r = odma_faults_init();

	memset(out, 0, sizeof(*out));
	if (r != DOCA_SUCCESS || !odma_faults_enabled)
		return r;
	out->seed = faults_cfg.seed;
	out->drop_after = faults_cfg.comch_drop_after;
	out->delay_min_us = faults_cfg.comch_delay_min_us;
	out->delay_max_us = faults_cfg.comch_delay_max_us;
	return DOCA_SUCCESS;
}
