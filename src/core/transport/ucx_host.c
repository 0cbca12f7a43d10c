/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The UCX module's side of tp_module.h: its entry point, and the functions of libdoca_common
 * the UCX files call (logging, configuration, the region registry), each passed on to the host
 * table. The module's log sources register when the host arrives: their constructors ran at
 * dlopen, before it.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <doca_version.h>

#include "core/config/config.h"
#include "core/log/log.h"
#include "core/transport/tp_module.h"
#include "core/transport/ucx_int.h"

static const struct odma_tp_host *host;

#define HOST_SOURCES 8
static struct {
	const char *name;
	int *source;
} pending[HOST_SOURCES];
static unsigned int npending;

doca_error_t doca_priv_log_register_sdk_source(const char *name, int *source)
{
	if (host != NULL)
		return host->log_register(name, source);
	if (npending == HOST_SOURCES)
		return DOCA_ERROR_NO_MEMORY;
	pending[npending].name = name;
	pending[npending++].source = source;
	return DOCA_SUCCESS;
}

/* Formats a line of the module's for the host's log, rate-limited by @bucket when @rated. */
static doca_error_t host_vlog(uint32_t level, int source, const char *fname, int line,
                              const char *func, bool rated, int bucket, const char *format,
                              va_list ap)
{
	char text[1024];

	if (host == NULL || source < 0)
		return DOCA_ERROR_BAD_STATE;
	vsnprintf(text, sizeof(text), format, ap);
	if (rated)
		return host->log_rate(level, source, fname, line, func, bucket, "%s", text);
	return host->log(level, source, fname, line, func, "%s", text);
}

doca_error_t doca_log(uint32_t level, int source, const char *fname, int line, const char *func,
                      const char *format, ...)
{
	va_list ap;
	doca_error_t r;

	va_start(ap, format);
	r = host_vlog(level, source, fname, line, func, false, 0, format, ap);
	va_end(ap);
	return r;
}

doca_error_t doca_log_rate_bucket_register(int source, int *bucket)
{
	return host != NULL ? host->log_bucket(source, bucket) : DOCA_ERROR_BAD_STATE;
}

doca_error_t doca_log_rate_limit(uint32_t level, int source, const char *fname, int line,
                                 const char *func, int bucket, const char *format, ...)
{
	va_list ap;
	doca_error_t r;

	va_start(ap, format);
	r = host_vlog(level, source, fname, line, func, true, bucket, format, ap);
	va_end(ap);
	return r;
}

const char *doca_error_get_name(doca_error_t error)
{
	return host->error_name(error);
}

const char *odma_config_string(const char *name)
{
	return host->config_string(name);
}

doca_error_t odma_tp_region_check(uint64_t id, const uint8_t key[16], uint32_t generation,
                                  uint64_t addr, uint64_t len, uint32_t perm, void **local)
{
	return host->region_check(id, key, generation, addr, len, perm, local);
}

doca_error_t odma_tp_region_atomic(uint64_t id, const uint8_t key[16], uint32_t generation,
                                   uint64_t addr, int op, uint64_t operand, uint64_t compare,
                                   uint64_t *old)
{
	return host->region_atomic(id, key, generation, addr, op, operand, compare, old);
}

size_t odma_tp_region_issued(uint64_t id, const uint8_t key[16], uint32_t generation, uint8_t *out)
{
	return host->region_issued(id, key, generation, out);
}

int odma_tp_safe_copy(void *dst, const void *src, size_t len)
{
	return host->safe_copy(dst, src, len);
}

uint32_t odma_tp_timeout_ms(void)
{
	/* read once (every request asks): its value was checked at the first export or import */
	static _Atomic uint32_t ms;
	uint32_t v = atomic_load_explicit(&ms, memory_order_relaxed);

	if (v == 0) {
		v = host->timeout_ms();
		atomic_store_explicit(&ms, v, memory_order_relaxed);
	}
	return v;
}

void odma_tp_wake_hold(bool on)
{
	host->wake_hold(on);
}

void odma_tp_wake_flush(void)
{
	host->wake_flush();
}

const char *odma_tp_fabric_ip(char *ip, size_t cap)
{
	return host->fabric_ip(ip, cap);
}

bool doca_priv_fabric_key(uint8_t key[ODMA_FABRIC_KEY_LEN], char *why, size_t why_len)
{
	return host->fabric_key(key, why, why_len);
}

void doca_priv_fabric_proof(const uint8_t key[ODMA_FABRIC_KEY_LEN], uint8_t role, const void *bind,
                            size_t bind_len, const uint8_t first[ODMA_FABRIC_NONCE_LEN],
                            const uint8_t second[ODMA_FABRIC_NONCE_LEN],
                            uint8_t out[ODMA_FABRIC_PROOF_LEN])
{
	host->fabric_proof(key, role, bind, bind_len, first, second, out);
}

int doca_priv_thread_start(pthread_t *thr, const char *name, void *(*fn)(void *), void *arg)
{
	return host->thread_start(thr, name, fn, arg);
}

bool odma_tp_iface_for(const char *ip, char *name, size_t cap, char *addr, size_t acap)
{
	return host->iface_for(ip, name, cap, addr, acap);
}

__attribute__((visibility("default"))) const struct odma_tp_ops *
odma_tp_module_init(const struct odma_tp_host *h, const char **why)
{
	if (h->size != sizeof(*h) || strcmp(h->version, DOCA_VERSION_STRING) != 0) {
		*why = "the UCX module (" ODMA_UCX_MODULE ") belongs to another odma build than "
		       "libdoca_common; install both from the same build";
		return NULL;
	}
	host = h;
	for (unsigned int i = 0; i < npending; i++)
		h->log_register(pending[i].name, pending[i].source);
	npending = 0;
	return &odma_ucx_ops;
}
