/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Log backends: creation, per-backend limits, and writing one formatted line to a sink. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "core/log/log_int.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(ODMA_LOG_BACKEND)

/*
 * Fallbacks used until the program creates its own backends (see doca_log.h): the two halves
 * of the standard backend for application messages, and stderr for SDK messages.
 */
static struct doca_log_backend backend_fallback_out, backend_fallback_err, backend_fallback_sdk;

static void backend_standard_halves(struct doca_log_backend *out, struct doca_log_backend *err)
{
	*out = (struct doca_log_backend){ .sink = ODMA_LOG_SINK_FILE,
		                          .fp = stdout,
		                          .fd = -1,
		                          .lower = odma_log_g.lower,
		                          .upper = odma_log_g.upper,
		                          .lower_cap = DOCA_LOG_LEVEL_TRACE,
		                          .upper_floor = DOCA_LOG_LEVEL_INFO };
	*err = (struct doca_log_backend){ .sink = ODMA_LOG_SINK_FILE,
		                          .fp = stderr,
		                          .fd = -1,
		                          .lower = odma_log_g.lower,
		                          .upper = odma_log_g.upper,
		                          .lower_cap = DOCA_LOG_LEVEL_WARNING,
		                          .upper_floor = DOCA_LOG_LEVEL_DISABLE };
}

void odma_log_backends_init_fallbacks(void)
{
	backend_standard_halves(&backend_fallback_out, &backend_fallback_err);
	backend_fallback_sdk = (struct doca_log_backend){
		.sink = ODMA_LOG_SINK_FILE, .fp = stderr, .fd = -1, .sdk = true
	};
}

static uint32_t backend_fallback_sdk_level(void)
{
	return odma_log_g.sdk_explicit ? odma_log_g.sdk : DOCA_LOG_LEVEL_WARNING;
}

static bool odma_log_backend_accepts(const struct doca_log_backend *b, uint32_t level, bool sdk)
{
	uint32_t lo, hi;

	if (b->sdk != sdk)
		return false;
	if (sdk)
		return level <= b->sdk_level;
	lo = b->lower < b->lower_cap ? b->lower : b->lower_cap;
	hi = b->upper > b->upper_floor ? b->upper : b->upper_floor;
	return level >= hi && level <= lo;
}

static int backend_syslog_priority(uint32_t level)
{
	if (level <= DOCA_LOG_LEVEL_CRIT)
		return LOG_CRIT;
	if (level <= DOCA_LOG_LEVEL_ERROR)
		return LOG_ERR;
	if (level <= DOCA_LOG_LEVEL_WARNING)
		return LOG_WARNING;
	return level <= DOCA_LOG_LEVEL_INFO ? LOG_INFO : LOG_DEBUG;
}

static void backend_write_fd(int fd, const char *text, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = write(fd, text, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return; /* a broken sink must not break the caller */
		text += n;
		len -= (size_t)n;
	}
}

static void odma_log_backend_write(struct doca_log_backend *b, uint32_t level, const char *text,
                                   size_t len)
{
	size_t n;

	switch (b->sink) {
	case ODMA_LOG_SINK_FILE:
		fwrite(text, 1, len, b->fp);
		fflush(b->fp);
		break;
	case ODMA_LOG_SINK_FD:
		backend_write_fd(b->fd, text, len);
		break;
	case ODMA_LOG_SINK_BUF:
		n = len < b->cap - 1 ? len : b->cap - 1;
		memcpy(b->buf, text, n);
		b->buf[n] = '\0';
		b->flush(b->buf);
		break;
	case ODMA_LOG_SINK_SYSLOG:
		/*
		 * openlog's identity is the process's, not a backend's: set it before each
		 * message (under odma_log_lock, as every write) so that each syslog backend's
		 * lines carry its own name, not that of the syslog backend created last.
		 */
		openlog(b->ident, LOG_PID, LOG_USER);
		syslog(backend_syslog_priority(level), "%.*s", (int)(len > 0 ? len - 1 : 0), text);
		break;
	}
}

void odma_log_dispatch_locked(uint32_t level, bool sdk, const char *text, size_t len)
{
	int i;

	if (!sdk && !odma_log_g.have_app_backend) {
		backend_fallback_out.lower = backend_fallback_err.lower = odma_log_g.lower;
		backend_fallback_out.upper = backend_fallback_err.upper = odma_log_g.upper;
		if (odma_log_backend_accepts(&backend_fallback_out, level, false))
			odma_log_backend_write(&backend_fallback_out, level, text, len);
		if (odma_log_backend_accepts(&backend_fallback_err, level, false))
			odma_log_backend_write(&backend_fallback_err, level, text, len);
	}
	if (sdk && !odma_log_g.have_sdk_backend) {
		backend_fallback_sdk.sdk_level = backend_fallback_sdk_level();
		if (odma_log_backend_accepts(&backend_fallback_sdk, level, true))
			odma_log_backend_write(&backend_fallback_sdk, level, text, len);
	}
	for (i = 0; i < odma_log_g.nb_backends; i++)
		if (odma_log_backend_accepts(odma_log_g.backends[i], level, sdk))
			odma_log_backend_write(odma_log_g.backends[i], level, text, len);
}

/* The fallbacks take part in the filter only while no real backend of their kind exists. */
static void backend_fallback_max_locked(void)
{
	uint32_t app = atomic_load(&odma_log_g.max_app), sdk = atomic_load(&odma_log_g.max_sdk);
	uint32_t lvl;

	if (!odma_log_g.have_app_backend && odma_log_g.lower > app)
		atomic_store(&odma_log_g.max_app, odma_log_g.lower);
	lvl = backend_fallback_sdk_level();
	if (!odma_log_g.have_sdk_backend && lvl > sdk)
		atomic_store(&odma_log_g.max_sdk, lvl);
}

void odma_log_recompute_fallbacks_locked(void)
{
	backend_fallback_max_locked();
}

/* ------------------------------------------------------------------ creation */

/* Puts @b, filled in, into the table; odma_log_lock held and a free slot checked. */
static void backend_commit_locked(struct doca_log_backend *b)
{
	if (b->sdk) {
		b->sdk_level = odma_log_g.sdk;
		odma_log_g.have_sdk_backend = true;
	} else {
		b->lower = odma_log_g.lower;
		b->upper = odma_log_g.upper;
		odma_log_g.have_app_backend = true;
	}
	odma_log_g.backends[odma_log_g.nb_backends++] = b;
}

static doca_error_t backend_add(struct doca_log_backend *tmpl, struct doca_log_backend **out)
{
	struct doca_log_backend *b;

	odma_log_lock_enter();
	if (odma_log_g.nb_backends == ODMA_LOG_MAX_BACKENDS || (b = malloc(sizeof(*b))) == NULL) {
		odma_log_lock_leave();
		ODMA_ERR("doca_log_backend_create: no room for another backend "
		         "(at most %d); reuse one",
		         ODMA_LOG_MAX_BACKENDS);
		free(tmpl->ident);
		return DOCA_ERROR_NO_MEMORY;
	}
	*b = *tmpl;
	backend_commit_locked(b);
	odma_log_recompute_locked();
	odma_log_lock_leave();
	if (out != NULL)
		*out = b;
	return DOCA_SUCCESS;
}

static struct doca_log_backend backend_template(enum odma_log_sink sink, bool sdk)
{
	return (struct doca_log_backend){ .sink = sink,
		                          .sdk = sdk,
		                          .fd = -1,
		                          .lower_cap = DOCA_LOG_LEVEL_TRACE,
		                          .upper_floor = DOCA_LOG_LEVEL_DISABLE };
}

/*
 * Both halves or neither: the standard backend counts as created only once both are in the
 * table, so a refusal at the table's end leaves nothing behind and a later call tries again.
 */
doca_error_t doca_log_backend_create_standard(void)
{
	struct doca_log_backend *out = malloc(sizeof(*out)), *err = malloc(sizeof(*err));
	bool had, room;

	odma_log_init();
	odma_log_lock_enter();
	had = odma_log_g.have_standard;
	room = out != NULL && err != NULL && odma_log_g.nb_backends + 2 <= ODMA_LOG_MAX_BACKENDS;
	if (!had && room) {
		backend_standard_halves(out, err);
		backend_commit_locked(out);
		backend_commit_locked(err);
		odma_log_g.have_standard = true;
		odma_log_recompute_locked();
	}
	odma_log_lock_leave();
	if (had || !room) {
		free(out);
		free(err);
	}
	if (!had && !room) {
		ODMA_ERR("doca_log_backend_create_standard: no room for its two backends "
		         "(at most %d in all); reuse one",
		         ODMA_LOG_MAX_BACKENDS);
		return DOCA_ERROR_NO_MEMORY;
	}
	return DOCA_SUCCESS;
}

static doca_error_t backend_create_file(FILE *fptr, bool sdk, struct doca_log_backend **backend,
                                        const char *fn)
{
	struct doca_log_backend t = backend_template(ODMA_LOG_SINK_FILE, sdk);

	odma_log_init();
	if (fptr == NULL || backend == NULL) {
		ODMA_ERR("%s: %s is NULL; pass an open FILE* and a backend pointer", fn,
		         fptr == NULL ? "fptr" : "backend");
		return DOCA_ERROR_INVALID_VALUE;
	}
	t.fp = fptr;
	return backend_add(&t, backend);
}

static doca_error_t backend_create_fd(int fd, bool sdk, struct doca_log_backend **backend,
                                      const char *fn)
{
	struct doca_log_backend t = backend_template(ODMA_LOG_SINK_FD, sdk);

	odma_log_init();
	if (fd < 0 || backend == NULL) {
		ODMA_ERR("%s: %s; pass an open descriptor (>= 0) and a backend pointer", fn,
		         fd < 0 ? "fd is negative" : "backend is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	t.fd = fd;
	return backend_add(&t, backend);
}

static doca_error_t backend_create_buf(char *buf, size_t capacity, log_flush_callback handler,
                                       bool sdk, struct doca_log_backend **backend, const char *fn)
{
	struct doca_log_backend t = backend_template(ODMA_LOG_SINK_BUF, sdk);

	odma_log_init();
	if (buf == NULL || handler == NULL || backend == NULL || capacity < 2) {
		ODMA_ERR("%s: buf %p, capacity %zu, handler %s; pass a buffer of at least 2 bytes, "
		         "a flush callback and a backend pointer",
		         fn, (void *)buf, capacity, handler == NULL ? "NULL" : "set");
		return DOCA_ERROR_INVALID_VALUE;
	}
	t.buf = buf;
	t.cap = capacity;
	t.flush = handler;
	return backend_add(&t, backend);
}

static doca_error_t backend_create_syslog(const char *name, bool sdk,
                                          struct doca_log_backend **backend, const char *fn)
{
	struct doca_log_backend t = backend_template(ODMA_LOG_SINK_SYSLOG, sdk);

	odma_log_init();
	if (name == NULL || backend == NULL) {
		ODMA_ERR("%s: %s is NULL; pass a syslog identity and a backend pointer", fn,
		         name == NULL ? "name" : "backend");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/*
	 * openlog (at each message) keeps the pointer, so the copy lives as long as the backend
	 * (forever); no openlog here, where a refused backend frees it.
	 */
	t.ident = strdup(name);
	if (t.ident == NULL)
		return DOCA_ERROR_NO_MEMORY;
	return backend_add(&t, backend);
}

doca_error_t doca_log_backend_create_with_file(FILE *fptr, struct doca_log_backend **backend)
{
	return backend_create_file(fptr, false, backend, __func__);
}

doca_error_t doca_log_backend_create_with_file_sdk(FILE *fptr, struct doca_log_backend **backend)
{
	return backend_create_file(fptr, true, backend, __func__);
}

doca_error_t doca_log_backend_create_with_fd(int fd, struct doca_log_backend **backend)
{
	return backend_create_fd(fd, false, backend, __func__);
}

doca_error_t doca_log_backend_create_with_fd_sdk(int fd, struct doca_log_backend **backend)
{
	return backend_create_fd(fd, true, backend, __func__);
}

doca_error_t doca_log_backend_create_with_buf(char *buf, size_t capacity,
                                              log_flush_callback handler,
                                              struct doca_log_backend **backend)
{
	return backend_create_buf(buf, capacity, handler, false, backend, __func__);
}

doca_error_t doca_log_backend_create_with_buf_sdk(char *buf, size_t capacity,
                                                  log_flush_callback handler,
                                                  struct doca_log_backend **backend)
{
	return backend_create_buf(buf, capacity, handler, true, backend, __func__);
}

doca_error_t doca_log_backend_create_with_syslog(const char *name,
                                                 struct doca_log_backend **backend)
{
	return backend_create_syslog(name, false, backend, __func__);
}

doca_error_t doca_log_backend_create_with_syslog_sdk(const char *name,
                                                     struct doca_log_backend **backend)
{
	return backend_create_syslog(name, true, backend, __func__);
}

/* ------------------------------------------------------------------ per-backend limits */

static doca_error_t backend_set_limit(struct doca_log_backend *b, uint32_t level,
                                      enum odma_limit which, bool strict, const char *fn)
{
	bool want_sdk = which == ODMA_LIMIT_SDK;

	odma_log_init();
	if (b == NULL || !odma_log_level_valid(level) || b->sdk != want_sdk) {
		ODMA_ERR("%s: backend %p, level %u; pass %s backend and a level 10..70", fn,
		         (void *)b, level, want_sdk ? "an SDK (_sdk)" : "an application (non-SDK)");
		return DOCA_ERROR_INVALID_VALUE;
	}
	odma_log_lock_enter();
	if (which == ODMA_LIMIT_LOWER) {
		b->lower = level;
		b->lower_strict = strict;
	} else if (which == ODMA_LIMIT_UPPER) {
		b->upper = level;
		b->upper_strict = strict;
	} else {
		b->sdk_level = level;
	}
	odma_log_recompute_locked();
	odma_log_lock_leave();
	return DOCA_SUCCESS;
}

doca_error_t doca_log_backend_set_level_lower_limit(struct doca_log_backend *backend,
                                                    uint32_t level)
{
	return backend_set_limit(backend, level, ODMA_LIMIT_LOWER, false, __func__);
}

doca_error_t doca_log_backend_set_level_upper_limit(struct doca_log_backend *backend,
                                                    uint32_t level)
{
	return backend_set_limit(backend, level, ODMA_LIMIT_UPPER, false, __func__);
}

doca_error_t doca_log_backend_set_level_lower_limit_strict(struct doca_log_backend *backend,
                                                           uint32_t level)
{
	return backend_set_limit(backend, level, ODMA_LIMIT_LOWER, true, __func__);
}

doca_error_t doca_log_backend_set_level_upper_limit_strict(struct doca_log_backend *backend,
                                                           uint32_t level)
{
	return backend_set_limit(backend, level, ODMA_LIMIT_UPPER, true, __func__);
}

doca_error_t doca_log_backend_set_sdk_level(struct doca_log_backend *backend, uint32_t level)
{
	return backend_set_limit(backend, level, ODMA_LIMIT_SDK, false, __func__);
}
