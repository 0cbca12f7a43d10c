/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * System profile parser (format: docs/profiles.md) and the built-in profiles.
 *
 * odma_profile_parse is a pure function of its input bytes: no environment, no I/O, no
 * logging, so it can be fuzzed directly. Every rejection names the line and the rule.
 * Key handling is table driven: each key names a field by offset and a value kind.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device/device.h"

enum odma_kind {
	ODMA_K_STR,  /* char[size], non-empty */
	ODMA_K_PCI,  /* canonical "DDDD:BB:DD.F" */
	ODMA_K_MAC,  /* aa:bb:cc:dd:ee:ff */
	ODMA_K_IPV4, /* dotted quad */
	ODMA_K_IPV6, /* inet_pton form */
	ODMA_K_U16,
	ODMA_K_U32,
	ODMA_K_SIZE, /* uint64, optional K/M/G suffix (binary) */
	ODMA_K_BOOL, /* yes/no */
	ODMA_K_SIDE, /* host/dpu */
	ODMA_K_FUNC, /* pf/vf/sf */
	ODMA_K_FLAG, /* yes/no sets/clears bit `size` of an int */
};

struct odma_key {
	const char *name;
	enum odma_kind kind;
	size_t off;
	size_t size; /* buffer size for STR, bit for FLAG */
	bool required;
};

/* A rep line is parsed into this, then attached to its parent. */
struct odma_rep_line {
	char parent[DOCA_DEVINFO_PCI_ADDR_SIZE];
	struct doca_devinfo_rep rep;
};

#define DEVKEY(n, k, f, req)                                                                       \
	{                                                                                          \
		n, k, offsetof(struct doca_devinfo, f), sizeof(((struct doca_devinfo *)0)->f), req \
	}
#define REPKEY(n, k, f, req)                                                                       \
	{                                                                                          \
		n, k, offsetof(struct odma_rep_line, f), sizeof(((struct odma_rep_line *)0)->f),   \
		        req                                                                        \
	}

static const struct odma_key profile_device_keys[] = {
	DEVKEY("side", ODMA_K_SIDE, side, true),
	DEVKEY("pci", ODMA_K_PCI, pci_addr, true),
	DEVKEY("ibdev", ODMA_K_STR, ibdev_name, true),
	DEVKEY("iface", ODMA_K_STR, iface_name, true),
	DEVKEY("mac", ODMA_K_MAC, mac, false),
	DEVKEY("ipv4", ODMA_K_IPV4, ipv4, false),
	DEVKEY("ipv6", ODMA_K_IPV6, ipv6, false),
	DEVKEY("lid", ODMA_K_U16, lid, false),
	DEVKEY("func", ODMA_K_FUNC, func_type, false),
	DEVKEY("sf_index", ODMA_K_U32, sf_index, false),
	DEVKEY("active_rate", ODMA_K_SIZE, active_rate, false),
	DEVKEY("vhca_id", ODMA_K_U16, vhca_id, false),
	DEVKEY("memcpy", ODMA_K_BOOL, caps.dma_memcpy, false),
	DEVKEY("max_buf_size", ODMA_K_SIZE, caps.max_buf_size, false),
	DEVKEY("max_buf_list_len", ODMA_K_U32, caps.max_buf_list_len, false),
	DEVKEY("max_num_tasks", ODMA_K_U32, caps.max_num_tasks, false),
	DEVKEY("queue_depth", ODMA_K_U32, caps.queue_depth, false),
	DEVKEY("export_pci", ODMA_K_BOOL, caps.export_pci, false),
	DEVKEY("from_export_pci", ODMA_K_BOOL, caps.from_export_pci, false),
	DEVKEY("export_rdma", ODMA_K_BOOL, caps.export_rdma, false),
	DEVKEY("from_export_rdma", ODMA_K_BOOL, caps.from_export_rdma, false),
	DEVKEY("cache_invalidate", ODMA_K_BOOL, caps.cache_invalidate, false),
	DEVKEY("clock_free_running", ODMA_K_BOOL, caps.clock_free_running, false),
	DEVKEY("clock_real_time", ODMA_K_BOOL, caps.clock_real_time, false),
	DEVKEY("clock_dpa_timer", ODMA_K_BOOL, caps.clock_dpa_timer, false),
	DEVKEY("compress_deflate", ODMA_K_BOOL, caps.compress_deflate, false),
	DEVKEY("decompress_deflate", ODMA_K_BOOL, caps.decompress_deflate, false),
	DEVKEY("decompress_lz4", ODMA_K_BOOL, caps.decompress_lz4, false),
	DEVKEY("compress_max_buf_size", ODMA_K_SIZE, caps.compress_max_buf_size, false),
	DEVKEY("comch", ODMA_K_BOOL, caps.comch, false),
	DEVKEY("comch_max_msg_size", ODMA_K_U32, caps.comch_max_msg_size, false),
	DEVKEY("comch_recv_queue", ODMA_K_U32, caps.comch_max_recv_queue, false),
	DEVKEY("comch_max_clients", ODMA_K_U32, caps.comch_max_clients, false),
	DEVKEY("comch_send_tasks", ODMA_K_U32, caps.comch_max_send_tasks, false),
	DEVKEY("comch_fp_tasks", ODMA_K_U32, caps.comch_fp_max_tasks, false),
	DEVKEY("comch_fp_buf_size", ODMA_K_U32, caps.comch_fp_max_buf_size, false),
	DEVKEY("comch_fp_endpoints", ODMA_K_U32, caps.comch_fp_max_endpoints, false),
	DEVKEY("comch_imm_data", ODMA_K_U32, caps.comch_max_imm_data, false),
	DEVKEY("rdma", ODMA_K_BOOL, caps.rdma, false),
	DEVKEY("rdma_dc", ODMA_K_BOOL, caps.rdma_dc, false),
	DEVKEY("rdma_max_msg_size", ODMA_K_U32, caps.rdma_max_msg_size, false),
	DEVKEY("rdma_queue", ODMA_K_U32, caps.rdma_max_queue, false),
	DEVKEY("rdma_buf_list", ODMA_K_U32, caps.rdma_max_buf_list, false),
	DEVKEY("rdma_gid_table", ODMA_K_U32, caps.rdma_gid_table, false),
	DEVKEY("ec", ODMA_K_BOOL, caps.ec, false),
	DEVKEY("ec_max_block_size", ODMA_K_SIZE, caps.ec_max_block_size, false),
	DEVKEY("ec_max_buf_list_len", ODMA_K_U32, caps.ec_max_buf_list_len, false),
};

static const struct odma_key profile_rep_keys[] = {
	REPKEY("parent", ODMA_K_PCI, parent, true),
	REPKEY("pci", ODMA_K_PCI, rep.pci_addr, true),
	REPKEY("vuid", ODMA_K_STR, rep.vuid, true),
	REPKEY("func", ODMA_K_FUNC, rep.func_type, false),
	{ "net", ODMA_K_FLAG, offsetof(struct odma_rep_line, rep.filter_bits),
	  DOCA_DEVINFO_REP_FILTER_NET, false },
	{ "emulated", ODMA_K_FLAG, offsetof(struct odma_rep_line, rep.filter_bits),
	  DOCA_DEVINFO_REP_FILTER_EMULATED, false },
	REPKEY("hotplug", ODMA_K_BOOL, rep.hotplug, false),
	REPKEY("iface", ODMA_K_STR, rep.iface_name, false),
	REPKEY("vhca_id", ODMA_K_U16, rep.vhca_id, false),
};

#define ODMA_NKEYS(t) (sizeof(t) / sizeof((t)[0]))

struct odma_parse {
	struct odma_system *sys;
	unsigned long line;
	bool have_system;
	unsigned long dev_line[ODMA_PROFILE_MAX_DEVICES];
	char *err;
	size_t errlen;
	doca_error_t code;
};

static bool profile_fail(struct odma_parse *p, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

/* Records the first error as "line N: ..."; always returns false so callers can `return
 * profile_fail()`. */
static bool profile_fail(struct odma_parse *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->err == NULL || p->errlen == 0)
		return false;
	n = snprintf(p->err, p->errlen, "line %lu: ", p->line);
	if (n >= 0 && (size_t)n < p->errlen) {
		va_start(ap, fmt);
		vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return false;
}

static int profile_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Reads exactly @n hex digits of @s into *v. */
static bool profile_hexn(const char *s, int n, unsigned int *v)
{
	*v = 0;
	for (int i = 0; i < n; i++) {
		int d = profile_hex(s[i]);

		if (d < 0)
			return false;
		*v = (*v << 4) | (unsigned int)d;
	}
	return true;
}

bool odma_pci_addr_parse(const char *in, char out[DOCA_DEVINFO_PCI_ADDR_SIZE])
{
	unsigned int dom = 0, bus, dev, fn;
	size_t len;

	if (in == NULL)
		return false;
	len = strnlen(in, DOCA_DEVINFO_PCI_ADDR_SIZE);
	if (len == 12) {
		if (!profile_hexn(in, 4, &dom) || in[4] != ':')
			return false;
		in += 5;
	} else if (len != 7) {
		return false;
	}
	if (!profile_hexn(in, 2, &bus) || in[2] != ':' || !profile_hexn(in + 3, 2, &dev) ||
	    in[5] != '.' || !profile_hexn(in + 6, 1, &fn))
		return false;
	if (dev > 0x1f || fn > 7)
		return false;
	snprintf(out, DOCA_DEVINFO_PCI_ADDR_SIZE, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return true;
}

/* Decimal or 0x-hex, no sign, no spaces, no overflow past @max; SIZE kinds may end in K/M/G. */
static bool profile_parse_num(const char *s, uint64_t max, bool suffix, uint64_t *out)
{
	uint64_t v = 0, base = 10, mult = 1;
	size_t len = strlen(s);

	if (suffix && len > 1) {
		char c = s[len - 1];

		mult = (c == 'K' || c == 'k')   ? 1ull << 10
		       : (c == 'M' || c == 'm') ? 1ull << 20
		       : (c == 'G' || c == 'g') ? 1ull << 30
		                                : 1;
		if (mult != 1)
			len--;
	}
	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		len -= 2;
	}
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		int d = profile_hex(s[i]);

		if (d < 0 || (uint64_t)d >= base || v > (UINT64_MAX - (uint64_t)d) / base)
			return false;
		v = v * base + (uint64_t)d;
	}
	if (v > max / mult)
		return false;
	*out = v * mult;
	return *out <= max;
}

static bool profile_parse_mac(const char *s, uint8_t mac[DOCA_DEVINFO_MAC_ADDR_SIZE])
{
	unsigned int b;

	if (strlen(s) != 17)
		return false;
	for (int i = 0; i < DOCA_DEVINFO_MAC_ADDR_SIZE; i++) {
		if (!profile_hexn(s + 3 * i, 2, &b) || (i < 5 && s[3 * i + 2] != ':'))
			return false;
		mac[i] = (uint8_t)b;
	}
	return true;
}

static bool profile_parse_choice(const char *v, const char *const *names, int n, int *out)
{
	for (int i = 0; i < n; i++) {
		if (strcmp(v, names[i]) == 0) {
			*out = i;
			return true;
		}
	}
	return false;
}

/* Stores an integer-like value of @k at @field. */
static bool profile_store_num(const struct odma_key *k, void *field, const char *v)
{
	uint64_t n;

	switch (k->kind) {
	case ODMA_K_U16:
		if (!profile_parse_num(v, UINT16_MAX, false, &n))
			return false;
		*(uint16_t *)field = (uint16_t)n;
		return true;
	case ODMA_K_U32:
		if (!profile_parse_num(v, UINT32_MAX, false, &n))
			return false;
		*(uint32_t *)field = (uint32_t)n;
		return true;
	default:
		return profile_parse_num(v, UINT64_MAX, true, (uint64_t *)field);
	}
}

static bool profile_store_enum(const struct odma_key *k, void *field, const char *v)
{
	static const char *const yesno[] = { "no", "yes" };
	static const char *const sides[] = { "host", "dpu" };
	static const char *const funcs[] = { "pf", "vf", "sf" };
	int i;

	switch (k->kind) {
	case ODMA_K_BOOL:
		if (!profile_parse_choice(v, yesno, 2, &i))
			return false;
		*(bool *)field = i == 1;
		return true;
	case ODMA_K_FLAG:
		if (!profile_parse_choice(v, yesno, 2, &i))
			return false;
		*(int *)field =
		        i ? (*(int *)field | (int)k->size) : (*(int *)field & ~(int)k->size);
		return true;
	case ODMA_K_SIDE:
		if (!profile_parse_choice(v, sides, 2, &i))
			return false;
		*(enum odma_side *)field = (enum odma_side)i;
		return true;
	default:
		if (!profile_parse_choice(v, funcs, 3, &i))
			return false;
		*(enum doca_pci_func_type *)field = (enum doca_pci_func_type)i;
		return true;
	}
}

static const char *profile_kind_hint(enum odma_kind kind)
{
	static const char *const hints[] = {
		"a non-empty name",
		"a PCI address DDDD:BB:DD.F or BB:DD.F",
		"a MAC aa:bb:cc:dd:ee:ff",
		"an IPv4 address",
		"an IPv6 address",
		"an integer 0..65535",
		"an integer 0..4294967295",
		"an integer with optional K/M/G suffix",
		"yes or no",
		"host or dpu",
		"pf, vf or sf",
		"yes or no",
	};
	return hints[kind];
}

/* Parses value @v of key @k into the record at @base. */
static bool profile_store(struct odma_parse *p, const struct odma_key *k, void *base, const char *v)
{
	void *field = (char *)base + k->off;
	bool ok;

	switch (k->kind) {
	case ODMA_K_STR:
		if (strlen(v) >= k->size)
			return profile_fail(p, "value of %s is %zu bytes; the limit is %zu",
			                    k->name, strlen(v), k->size - 1);
		memcpy(field, v, strlen(v) + 1);
		return true;
	case ODMA_K_PCI:
		ok = odma_pci_addr_parse(v, field);
		break;
	case ODMA_K_MAC:
		ok = profile_parse_mac(v, field);
		break;
	case ODMA_K_IPV4:
		ok = inet_pton(AF_INET, v, field) == 1;
		break;
	case ODMA_K_IPV6:
		ok = inet_pton(AF_INET6, v, field) == 1;
		break;
	case ODMA_K_U16:
	case ODMA_K_U32:
	case ODMA_K_SIZE:
		ok = profile_store_num(k, field, v);
		break;
	default:
		ok = profile_store_enum(k, field, v);
		break;
	}
	if (!ok)
		return profile_fail(p, "bad value '%.64s' for %s: expected %s", v, k->name,
		                    profile_kind_hint(k->kind));
	return true;
}

/* Applies every key=value token of a line to @base; checks unknown, duplicate and missing keys. */
static bool profile_apply_keys(struct odma_parse *p, const char *what, const struct odma_key *keys,
                               size_t nkeys, void *base, char *save)
{
	uint64_t seen = 0;
	char *tok, *eq;
	size_t i;

	while ((tok = strtok_r(NULL, " \t", &save)) != NULL) {
		eq = strchr(tok, '=');
		if (eq == NULL || eq == tok)
			return profile_fail(p, "'%.64s' is not key=value", tok);
		*eq = '\0';
		for (i = 0; i < nkeys && strcmp(keys[i].name, tok) != 0; i++)
			;
		if (i == nkeys)
			return profile_fail(p, "unknown %s key '%.64s'", what, tok);
		if (seen & (1ull << i))
			return profile_fail(p, "key %s given twice", tok);
		if (eq[1] == '\0')
			return profile_fail(p, "key %s has an empty value", tok);
		seen |= 1ull << i;
		if (!profile_store(p, &keys[i], base, eq + 1))
			return false;
	}
	for (i = 0; i < nkeys; i++)
		if (keys[i].required && !(seen & (1ull << i)))
			return profile_fail(p, "%s line lacks the required key %s", what,
			                    keys[i].name);
	return true;
}

static void profile_default_u32(uint32_t *field, uint32_t value)
{
	if (*field == 0)
		*field = value;
}

/* comch=yes: a Comch value the line leaves out takes its BlueField-like default. */
static void profile_comch_defaults(struct odma_dev_caps *c)
{
	if (!c->comch)
		return;
	profile_default_u32(&c->comch_max_msg_size, ODMA_COMCH_DEFAULT_MAX_MSG_SIZE);
	profile_default_u32(&c->comch_max_recv_queue, ODMA_COMCH_DEFAULT_MAX_RECV_QUEUE);
	profile_default_u32(&c->comch_max_clients, ODMA_COMCH_DEFAULT_MAX_CLIENTS);
	profile_default_u32(&c->comch_max_send_tasks, ODMA_COMCH_DEFAULT_MAX_SEND_TASKS);
	profile_default_u32(&c->comch_fp_max_tasks, ODMA_COMCH_DEFAULT_FP_MAX_TASKS);
	profile_default_u32(&c->comch_fp_max_buf_size, ODMA_COMCH_DEFAULT_FP_MAX_BUF_SIZE);
	profile_default_u32(&c->comch_fp_max_endpoints, ODMA_COMCH_DEFAULT_FP_MAX_ENDPOINTS);
	profile_default_u32(&c->comch_max_imm_data, ODMA_COMCH_DEFAULT_MAX_IMM_DATA);
}

/* A device with a compress task type and no compress_max_buf_size takes odma's default. */
static void profile_compress_defaults(struct odma_dev_caps *c)
{
	if ((c->compress_deflate || c->decompress_deflate || c->decompress_lz4) &&
	    c->compress_max_buf_size == 0)
		c->compress_max_buf_size = ODMA_COMPRESS_DEFAULT_MAX_BUF_SIZE;
}

/* rdma=yes: an RDMA value the line leaves out takes its ConnectX-like default. */
static void profile_rdma_defaults(struct odma_dev_caps *c)
{
	if (!c->rdma)
		return;
	profile_default_u32(&c->rdma_max_msg_size, ODMA_RDMA_DEFAULT_MAX_MSG_SIZE);
	profile_default_u32(&c->rdma_max_queue, ODMA_RDMA_DEFAULT_MAX_QUEUE);
	profile_default_u32(&c->rdma_max_buf_list, ODMA_RDMA_DEFAULT_MAX_BUF_LIST);
	profile_default_u32(&c->rdma_gid_table, ODMA_RDMA_DEFAULT_GID_TABLE);
}

static bool profile_check_device(struct odma_parse *p, const struct doca_devinfo *d)
{
	const struct odma_system *sys = p->sys;

	if (d->caps.dma_memcpy && (d->caps.max_buf_size == 0 || d->caps.max_buf_list_len == 0 ||
	                           d->caps.max_num_tasks == 0 || d->caps.queue_depth == 0))
		return profile_fail(p, "memcpy=yes needs non-zero max_buf_size, max_buf_list_len, "
		                       "max_num_tasks and queue_depth");
	if (d->caps.comch && d->caps.comch_max_msg_size > ODMA_COMCH_MSG_SIZE_LIMIT)
		return profile_fail(p,
		                    "comch_max_msg_size above 64K: a control message is one packet "
		                    "of a Unix socket (the fast path carries large buffers)");
	if (d->caps.comch && d->caps.comch_max_imm_data > ODMA_COMCH_IMM_DATA_LIMIT)
		return profile_fail(p, "comch_imm_data above %u", ODMA_COMCH_IMM_DATA_LIMIT);
	if (d->caps.comch && d->caps.comch_fp_max_tasks > ODMA_COMCH_FP_TASKS_LIMIT)
		return profile_fail(p, "comch_fp_tasks above %u", ODMA_COMCH_FP_TASKS_LIMIT);
	for (uint32_t i = 0; i < sys->num_devs; i++)
		if (strcmp(sys->devs[i].pci_addr, d->pci_addr) == 0)
			return profile_fail(p,
			                    "duplicate device pci %s (first declared on line %lu)",
			                    d->pci_addr, p->dev_line[i]);
	return true;
}

static bool profile_line_device(struct odma_parse *p, char *save)
{
	struct odma_system *sys = p->sys;
	struct doca_devinfo d;

	if (!p->have_system)
		return profile_fail(p, "device before the 'system NAME' line");
	if (sys->num_devs == ODMA_PROFILE_MAX_DEVICES)
		return profile_fail(p, "more than %d devices", ODMA_PROFILE_MAX_DEVICES);
	memset(&d, 0, sizeof(d));
	if (!profile_apply_keys(p, "device", profile_device_keys, ODMA_NKEYS(profile_device_keys),
	                        &d, save))
		return false;
	profile_comch_defaults(&d.caps);
	profile_rdma_defaults(&d.caps);
	profile_compress_defaults(&d.caps);
	if (!profile_check_device(p, &d))
		return false;
	d.dev_store = calloc(1, sizeof(*d.dev_store));
	if (d.dev_store == NULL) {
		p->code = DOCA_ERROR_NO_MEMORY;
		return profile_fail(p, "out of memory");
	}
	d.dev_store->info = &sys->devs[sys->num_devs];
	d.index = sys->num_devs;
	p->dev_line[sys->num_devs] = p->line;
	sys->devs[sys->num_devs++] = d;
	return true;
}

static struct doca_devinfo *profile_find_dev(struct odma_system *sys, const char *pci)
{
	for (uint32_t i = 0; i < sys->num_devs; i++)
		if (strcmp(sys->devs[i].pci_addr, pci) == 0)
			return &sys->devs[i];
	return NULL;
}

/* A representor must be unique in its parent: by vuid, and by PCI address unless it is an SF. */
static bool profile_check_rep(struct odma_parse *p, const struct doca_devinfo *parent,
                              const struct doca_devinfo_rep *r)
{
	for (uint32_t i = 0; i < parent->num_reps; i++) {
		const struct doca_devinfo_rep *o = &parent->reps[i];

		if (strcmp(o->vuid, r->vuid) == 0)
			return profile_fail(p, "duplicate rep vuid %s under %s", r->vuid,
			                    parent->pci_addr);
		if (r->func_type != DOCA_PCI_FUNC_TYPE_SF &&
		    o->func_type != DOCA_PCI_FUNC_TYPE_SF && strcmp(o->pci_addr, r->pci_addr) == 0)
			return profile_fail(p, "duplicate rep pci %s under %s", r->pci_addr,
			                    parent->pci_addr);
	}
	if (parent->num_reps == ODMA_PROFILE_MAX_REPS)
		return profile_fail(p, "more than %d reps under %s", ODMA_PROFILE_MAX_REPS,
		                    parent->pci_addr);
	return true;
}

/*
 * The representor's netdev name and VHCA id when the profile gives none: BlueField's names
 * (pf<port>hpf, pf<port>vf<n>, en3f<port>pf<port>sf<n>; a representor without the net
 * filter has no netdev) and 0x100 x (parent's VHCA id + 1) plus its position, so the ids of
 * the representors do not meet the devices' own small ids.
 */
#define ODMA_REP_VHCA_UNSET UINT16_MAX /* vhca_id=65535 in a profile means "the default" */
static void profile_rep_defaults(const struct doca_devinfo *parent, struct doca_devinfo_rep *r)
{
	const char *dot = strrchr(parent->pci_addr, '.');
	int port = dot != NULL ? dot[1] - '0' : 0;
	unsigned int same = 0;

	if (r->vhca_id == ODMA_REP_VHCA_UNSET)
		r->vhca_id = (uint16_t)(0x100u * (parent->vhca_id + 1u) + parent->num_reps);
	if (r->iface_name[0] != '\0' || (r->filter_bits & DOCA_DEVINFO_REP_FILTER_NET) == 0)
		return;
	for (uint32_t i = 0; i < parent->num_reps; i++)
		if (parent->reps[i].func_type == r->func_type &&
		    (parent->reps[i].filter_bits & DOCA_DEVINFO_REP_FILTER_NET) != 0)
			same++;
	if (r->func_type == DOCA_PCI_FUNC_TYPE_PF)
		snprintf(r->iface_name, sizeof(r->iface_name), "pf%d%s", port,
		         same == 0 ? "hpf" : "hpf1");
	else if (r->func_type == DOCA_PCI_FUNC_TYPE_VF)
		snprintf(r->iface_name, sizeof(r->iface_name), "pf%dvf%u", port, same);
	else
		snprintf(r->iface_name, sizeof(r->iface_name), "en3f%dpf%dsf%u", port, port, same);
}

static bool profile_line_rep(struct odma_parse *p, char *save)
{
	struct odma_rep_line l;
	struct doca_devinfo *parent;
	struct doca_devinfo_rep *grown;

	memset(&l, 0, sizeof(l));
	l.rep.filter_bits = DOCA_DEVINFO_REP_FILTER_NET;
	l.rep.vhca_id = ODMA_REP_VHCA_UNSET;
	if (!profile_apply_keys(p, "rep", profile_rep_keys, ODMA_NKEYS(profile_rep_keys), &l, save))
		return false;
	parent = profile_find_dev(p->sys, l.parent);
	if (parent == NULL || parent->side != ODMA_SIDE_DPU)
		return profile_fail(p, "rep parent %s is not a dpu device declared above",
		                    l.parent);
	if (!profile_check_rep(p, parent, &l.rep))
		return false;
	if ((parent->num_reps & (parent->num_reps - 1)) == 0) { /* grow at powers of two */
		grown = realloc(parent->reps,
		                sizeof(*grown) * (parent->num_reps ? parent->num_reps * 2 : 4));
		if (grown == NULL) {
			p->code = DOCA_ERROR_NO_MEMORY;
			return profile_fail(p, "out of memory");
		}
		parent->reps = grown;
	}
	profile_rep_defaults(parent, &l.rep);
	l.rep.parent = parent;
	l.rep.rep_store = calloc(1, sizeof(*l.rep.rep_store));
	if (l.rep.rep_store == NULL) {
		p->code = DOCA_ERROR_NO_MEMORY;
		return profile_fail(p, "out of memory");
	}
	parent->reps[parent->num_reps] = l.rep;
	/* reps may move on a later realloc: the store is re-pointed once parsing ends */
	parent->num_reps++;
	return true;
}

static bool profile_line_system(struct odma_parse *p, char *save)
{
	char *name = strtok_r(NULL, " \t", &save);

	if (p->have_system)
		return profile_fail(p, "a second 'system' line; a profile describes one system");
	if (name == NULL || strtok_r(NULL, " \t", &save) != NULL)
		return profile_fail(p, "expected 'system NAME' (one word)");
	if (strlen(name) >= sizeof(p->sys->label))
		return profile_fail(p, "system name longer than %zu bytes",
		                    sizeof(p->sys->label) - 1);
	for (const char *c = name; *c; c++)
		if (!(*c == '-' || *c == '_' || *c == '.' || (*c >= '0' && *c <= '9') ||
		      (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')))
			return profile_fail(
			        p, "system name may hold only letters, digits, '-', '_', '.'");
	snprintf(p->sys->label, sizeof(p->sys->label), "%s", name);
	p->have_system = true;
	return true;
}

/* Rejects control bytes anywhere and non-ASCII outside comments; cuts the comment off. */
static bool profile_clean_line(struct odma_parse *p, char *s, size_t len)
{
	bool comment = false;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return profile_fail(p, "control byte 0x%02x at column %zu", c, i + 1);
		if (c == '#' && !comment) {
			comment = true;
			s[i] = '\0';
		}
		if (c >= 0x80 && !comment)
			return profile_fail(p, "non-ASCII byte 0x%02x at column %zu", c, i + 1);
	}
	return true;
}

static bool profile_parse_line(struct odma_parse *p, const char *text, size_t len)
{
	char buf[ODMA_PROFILE_MAX_LINE + 1];
	char *save = NULL, *kw;

	if (len > 0 && text[len - 1] == '\r')
		len--;
	if (len > ODMA_PROFILE_MAX_LINE)
		return profile_fail(p, "line longer than %d bytes", ODMA_PROFILE_MAX_LINE);
	memcpy(buf, text, len);
	buf[len] = '\0';
	if (!profile_clean_line(p, buf, len))
		return false;
	kw = strtok_r(buf, " \t", &save);
	if (kw == NULL)
		return true;
	if (strcmp(kw, "system") == 0)
		return profile_line_system(p, save);
	if (strcmp(kw, "device") == 0)
		return profile_line_device(p, save);
	if (strcmp(kw, "rep") == 0)
		return profile_line_rep(p, save);
	return profile_fail(p, "unknown directive '%.32s'; expected system, device or rep", kw);
}

void odma_system_free(struct odma_system *sys)
{
	if (sys == NULL)
		return;
	for (uint32_t i = 0; sys->devs != NULL && i < sys->num_devs; i++) {
		for (uint32_t r = 0; r < sys->devs[i].num_reps; r++)
			free(sys->devs[i].reps[r].rep_store);
		free(sys->devs[i].reps);
		free(sys->devs[i].dev_store);
	}
	free(sys->devs);
	memset(sys, 0, sizeof(*sys));
}

static bool profile_parse_all(struct odma_parse *p, const char *text, size_t len)
{
	size_t pos = 0;

	if (len > ODMA_PROFILE_MAX_TEXT)
		return profile_fail(p, "profile larger than %u bytes", ODMA_PROFILE_MAX_TEXT);
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len;

		p->line++;
		if (!profile_parse_line(p, text + pos, end - pos))
			return false;
		pos = end + 1;
	}
	p->line++; /* errors found at the end point just past the last line */
	if (!p->have_system)
		return profile_fail(p, "end of profile: no 'system NAME' line");
	if (p->sys->num_devs == 0)
		return profile_fail(p, "end of profile: no device lines");
	return true;
}

doca_error_t odma_profile_parse(const char *text, size_t len, struct odma_system *out, char *err,
                                size_t errlen)
{
	struct odma_parse p = {
		.sys = out, .err = err, .errlen = errlen, .code = DOCA_ERROR_INVALID_VALUE
	};

	if (out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	memset(out, 0, sizeof(*out));
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (text == NULL && len > 0)
		return profile_fail(&p, "no text"), DOCA_ERROR_INVALID_VALUE;
	out->devs = calloc(ODMA_PROFILE_MAX_DEVICES, sizeof(*out->devs));
	if (out->devs == NULL)
		return DOCA_ERROR_NO_MEMORY;
	if (!profile_parse_all(&p, text, len)) {
		odma_system_free(out);
		return p.code;
	}
	for (uint32_t i = 0; i < out->num_devs; i++)
		for (uint32_t r = 0; r < out->devs[i].num_reps; r++)
			out->devs[i].reps[r].rep_store->info = &out->devs[i].reps[r];
	out->id = odma_fnv1a64(text, len);
	snprintf(out->name, sizeof(out->name), "%s", out->label);
	return DOCA_SUCCESS;
}
