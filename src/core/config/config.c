/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The table of every environment variable odma reads (ODMA_*, DOCA_LOG_LEVEL), one parser
 * per kind, and one wording for bad values. docs/user-guide.md §3 lists the same rows in the
 * same order (tests/unit/test_config.c checks both ways), and a test greps src/, tools/ and
 * apps/ for variables that are read but not listed here.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config/config.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(ODMA_CONFIG)

#define PE_FAILS "doca_pe_create fails with DOCA_ERROR_INVALID_VALUE"
#define POOL_READ "engines/thread, when the worker pool starts (the first thread-engine PE)"
#define TP_FAILS                                                                                   \
	"the export or import that reads it fails with DOCA_ERROR_INVALID_VALUE "                  \
	"(doca_mmap_export_*, doca_mmap_create_from_export, sync event export/import)"
#define COMCH_FAILS                                                                                \
	"the Comch server's or client's doca_ctx_start fails with DOCA_ERROR_INVALID_VALUE"

static const char *const engine_choices[] = { "thread", "inline", NULL }; /* engines/registry.c */
static const char *const transport_choices[] = { "auto", "process", "ucx", NULL };
static const char *const link_choices[] = { "auto", "tcp", "ucp", NULL }; /* transport/link.h */

#define NUM(n, lo, hi, acc, d, rd, bad)                                                            \
	{                                                                                          \
		.name = n, .kind = ODMA_CFG_NUMBER, .min = lo, .max = hi, .accepted = acc,         \
		.dflt = d, .reader = rd, .on_bad = bad                                             \
	}
#define TEXT(n, acc, d, rd, bad)                                                                   \
	{                                                                                          \
		.name = n, .kind = ODMA_CFG_TEXT, .accepted = acc, .dflt = d, .reader = rd,        \
		.on_bad = bad                                                                      \
	}
#define CHOICE(n, ch, acc, d, rd, bad)                                                             \
	{                                                                                          \
		.name = n, .kind = ODMA_CFG_CHOICE, .choices = ch, .accepted = acc, .dflt = d,     \
		.reader = rd, .on_bad = bad                                                        \
	}

static const struct odma_config_var config_vars[] = {
	TEXT("ODMA_SYSTEM", "a built-in profile name or a readable profile file", "bf3",
	     "core/device, once per process, at the first device query",
	     "every device query (doca_devinfo_create_list, ...) fails with DOCA_ERROR_NOT_FOUND"),
	TEXT("ODMA_SIDE", "host or dpu", "unset: both sides", "core/device, with ODMA_SYSTEM",
	     "every device query (doca_devinfo_create_list, ...) fails with DOCA_ERROR_NOT_FOUND"),
	CHOICE("ODMA_ENGINE", engine_choices, "thread or inline", "thread",
	       "engines, at each doca_pe_create (a PE keeps its engine)",
	       "doca_pe_create fails with DOCA_ERROR_INITIALIZATION"),
	NUM("ODMA_WORKERS", 1, 64, "a number from 1 to 64", "usable CPUs - 1, at most 4", POOL_READ,
	    PE_FAILS),
	NUM("ODMA_INLINE_MAX", 0, 1u << 30, "a byte count from 0 to 1G", "64K", POOL_READ,
	    PE_FAILS),
	NUM("ODMA_SPLIT_MIN", 0, SIZE_MAX, "a byte count (0: never split)", "64K", POOL_READ,
	    PE_FAILS),
	NUM("ODMA_SPLIT_CHUNK", 0, 1u << 30, "a byte count from 0 (auto) to 1G", "0 (auto)",
	    POOL_READ, PE_FAILS),
	NUM("ODMA_SHARE_MIN", 0, SIZE_MAX, "a byte count (0: never share)", "256K", POOL_READ,
	    PE_FAILS),
	NUM("ODMA_STREAM_MIN", 0, UINT64_MAX, "a byte count (0: never stream)", "64K",
	    "core/copy, once per process, at the first doca_pe_create", PE_FAILS),
	NUM("ODMA_STREAM_CACHE", 0, UINT64_MAX, "a byte count",
	    "1.5 x the last-level cache one CPU sees", "core/copy, with ODMA_STREAM_MIN", PE_FAILS),
	NUM("ODMA_HELP_BACKLOG", 0, 4096, "a number from 0 to 4096", "4", POOL_READ, PE_FAILS),
	NUM("ODMA_ARMED_SPIN_NS", 0, 1000000000u, "nanoseconds from 0 to 1000000000",
	    "1000000 (1 ms)", POOL_READ, PE_FAILS),
	NUM("ODMA_ARM_SPIN_NS", 0, 1000000000u, "nanoseconds from 0 to 1000000000", "0 (off)",
	    POOL_READ, PE_FAILS),
	NUM("ODMA_COPY_GUARD", 0, 1, "0 or 1", "1",
	    "core/copy, once per process, at the first doca_pe_create", PE_FAILS),
	TEXT("ODMA_FAULTS", "a fault list (docs/fault-injection.md: seed=N,submit_again=P,...)",
	     "off", "core/exec, once per process, at the first doca_pe_create", PE_FAILS),
	TEXT("ODMA_TRACE", "a file path this process can create (the task timeline, JSON)", "off",
	     "core/exec, once per process, at the first doca_pe_create", PE_FAILS),
	TEXT("ODMA_RUNDIR", "a directory path this user may create and own",
	     "$XDG_RUNTIME_DIR/odma, else /tmp/odma-UID",
	     "comch, at each Comch server or client doca_ctx_start",
	     "the Comch server's or client's doca_ctx_start fails with DOCA_ERROR_INITIALIZATION"),
	NUM("ODMA_COMCH_CONNECT_TIMEOUT_MS", 1, 3600000, "milliseconds from 1 to 3600000", "10000",
	    "comch, at each Comch client doca_ctx_start", COMCH_FAILS),
	TEXT("ODMA_COMCH_ALLOW_UIDS", "any, or up to 16 user ids separated by commas (e.g. 0,1000)",
	     "unset: this user and root", "comch, at each Comch server or client doca_ctx_start",
	     COMCH_FAILS),
	{ .name = "ODMA_FABRIC",
	  .kind = ODMA_CFG_FABRIC,
	  .accepted = "ADDRESS:PORT (the DPU side's IPv4 address and a port from 1 to 65535, "
	              "e.g. 10.0.0.2:18515; the same value on both sides)",
	  .dflt = "unset: one kernel",
	  .reader = "core/transport at each export and import and when UCX starts; comch at each "
	            "Comch server or client doca_ctx_start",
	  .on_bad = TP_FAILS ", and so does a Comch server's or client's doca_ctx_start" },
	TEXT("ODMA_FABRIC_SECRET", "a secret of 16 characters or more, the same on both sides",
	     "the cookie fabric-secret in the runtime directory",
	     "comch, at each Comch server start and client connection at ODMA_FABRIC",
	     "the Comch server's start or the client's connection at ODMA_FABRIC fails"),
	CHOICE("ODMA_TRANSPORT", transport_choices, "auto, process or ucx", "auto",
	       "core/transport, at each export and import", TP_FAILS),
	CHOICE("ODMA_LINK", link_choices, "auto, tcp or ucp",
	       "auto: tcp (odma's TCP link); ucp when UCX_TLS leaves TCP out (an RDMA NIC)",
	       "core/transport, once per process, when the network transport starts",
	       "the network transport does not start: exports offer no network address, "
	       "imports and endpoints across namespaces or machines fail"),
	NUM("ODMA_TRANSPORT_TIMEOUT_MS", 1, 3600000, "milliseconds from 1 to 3600000", "5000",
	    "core/transport, at each export and import", TP_FAILS),
	NUM("ODMA_SE_WATCH_MS", 1, 60000, "milliseconds from 1 to 60000", "5",
	    "core/sync_event, at each import of a sync event over the network",
	    "that import fails with DOCA_ERROR_INVALID_VALUE"),
	TEXT("DOCA_LOG_LEVEL", ODMA_LOG_LEVEL_ACCEPTED, "info",
	     "core/log, once per process, when logging starts", ODMA_LOG_LEVEL_ON_BAD),
	TEXT("ODMA_DMA_COPY_NO_TMPFILE", "1, or unset", "unset: an unnamed O_TMPFILE file",
	     "doca_dma_copy, when it opens the file it receives (tests)",
	     "doca_dma_copy stops with exit status 1"),
	TEXT("ODMA_BENCH_UCX_DEV", "a network interface UCX can use (lo, eth0, ...)", "lo",
	     "odma bench --xproc --transport ucx, for its raw UCX figures",
	     "the raw UCX measurement fails, naming the device"),
	TEXT("ODMA_COMPAT_RDMA_NETNS",
	     "\"NS_A NS_B ADDR_A\": two network namespaces and NS_A's address",
	     "unset: both RDMA sides in this namespace", "odma compat, when it runs the RDMA pairs",
	     "the RDMA pairs fail, not run"),
};

#undef NUM
#undef CHOICE
#undef TEXT

const struct odma_config_var *odma_config_vars(size_t *count)
{
	*count = sizeof(config_vars) / sizeof(config_vars[0]);
	return config_vars;
}

const struct odma_config_var *odma_config_var(const char *name)
{
	for (size_t i = 0; name != NULL && i < sizeof(config_vars) / sizeof(config_vars[0]); i++)
		if (strcmp(config_vars[i].name, name) == 0)
			return &config_vars[i];
	return NULL;
}

const char *odma_config_bad_line(char *buf, size_t size, const char *var, const char *value,
                                 const char *detail)
{
	const struct odma_config_var *v = odma_config_var(var);

	snprintf(buf, size, "%s=\"%s\" is not %s%s%s%s; %s", var, value ? value : "",
	         v ? v->accepted : "a value odma knows", detail ? " (" : "", detail ? detail : "",
	         detail ? ")" : "", v ? v->on_bad : "fix or unset it");
	return buf;
}

void odma_config_refuse(const char *var, const char *value, const char *detail)
{
	char line[768];

	ODMA_ERR("%s", odma_config_bad_line(line, sizeof(line), var, value, detail));
}

const char *odma_config_string(const char *var)
{
	const char *v = getenv(var);

	return v != NULL && *v != '\0' ? v : NULL;
}

bool odma_config_parse_size(const char *text, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	bool hex;
	char *end;

	if (text == NULL || *text < '0' || *text > '9')
		return false; /* no sign, no space */
	/* decimal or 0x hex; not strtoull's base 0, which reads a leading 0 as octal */
	hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
	if (hex && !isxdigit((unsigned char)text[2]))
		return false; /* no sign, no space after 0x either */
	errno = 0;
	v = strtoull(text, &end, hex ? 16 : 10);
	if (errno != 0 || end == text)
		return false;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	default:
		break;
	}
	if (shift != 0)
		end++;
	if (*end != '\0' || (shift != 0 && v > (UINT64_MAX >> shift)))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

/* The row of @var, which must be of @kind: a programming error otherwise (logged). */
static const struct odma_config_var *config_row(const char *var, enum odma_config_kind kind)
{
	const struct odma_config_var *v = odma_config_var(var);

	if (v == NULL || v->kind != kind)
		ODMA_ERR("%s is not a %s variable of odma's table (core/config); add its row",
		         var != NULL ? var : "(null)",
		         kind == ODMA_CFG_NUMBER ? "number" : "choice");
	return v != NULL && v->kind == kind ? v : NULL;
}

doca_error_t odma_config_size(const char *var, uint64_t dflt, uint64_t *out)
{
	const struct odma_config_var *row = config_row(var, ODMA_CFG_NUMBER);
	const char *text = odma_config_string(var);
	uint64_t v;

	if (row == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (text == NULL) {
		*out = dflt;
		return DOCA_SUCCESS;
	}
	if (!odma_config_parse_size(text, &v) || v < row->min || v > row->max) {
		odma_config_refuse(var, text, "decimal or 0x hex, optional k/M/G suffix");
		return DOCA_ERROR_INVALID_VALUE;
	}
	*out = v;
	return DOCA_SUCCESS;
}

doca_error_t odma_config_choice(const char *var, int dflt, int *out)
{
	const struct odma_config_var *row = config_row(var, ODMA_CFG_CHOICE);
	const char *text = odma_config_string(var);

	if (row == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (text == NULL) {
		*out = dflt;
		return DOCA_SUCCESS;
	}
	for (int i = 0; row->choices[i] != NULL; i++) {
		if (strcmp(text, row->choices[i]) == 0) {
			*out = i;
			return DOCA_SUCCESS;
		}
	}
	odma_config_refuse(var, text, NULL);
	return DOCA_ERROR_INVALID_VALUE;
}

static atomic_bool fabric_refused;

doca_error_t odma_config_fabric(char *addr, size_t size, uint16_t *port)
{
	const char *v = odma_config_string("ODMA_FABRIC");
	const char *colon = v != NULL ? strrchr(v, ':') : NULL;
	struct in_addr in;
	char ip[INET_ADDRSTRLEN + 1];
	unsigned long p;
	char *end;

	*port = 0;
	if (v == NULL)
		return DOCA_SUCCESS;
	if (colon == NULL || colon == v || (size_t)(colon - v) >= sizeof(ip))
		goto bad;
	snprintf(ip, sizeof(ip), "%.*s", (int)(colon - v), v);
	errno = 0;
	p = strtoul(colon + 1, &end, 10);
	if (inet_pton(AF_INET, ip, &in) != 1 || colon[1] < '0' || colon[1] > '9' || errno != 0 ||
	    *end != '\0' || p == 0 || p > 65535 || strlen(ip) >= size)
		goto bad;
	snprintf(addr, size, "%s", ip);
	*port = (uint16_t)p;
	return DOCA_SUCCESS;
bad:
	if (!atomic_exchange(&fabric_refused, true)) /* a connecting client asks every 100 ms */
		odma_config_refuse("ODMA_FABRIC", v, NULL);
	return DOCA_ERROR_INVALID_VALUE;
}

const char *doca_priv_config_string(const char *var)
{
	return odma_config_string(var);
}

doca_error_t doca_priv_config_size(const char *var, uint64_t dflt, uint64_t *out)
{
	return odma_config_size(var, dflt, out);
}

doca_error_t doca_priv_config_fabric(char *addr, size_t size, uint16_t *port)
{
	return odma_config_fabric(addr, size, port);
}

void doca_priv_config_refuse(const char *var, const char *value, const char *detail)
{
	odma_config_refuse(var, value, detail);
}
