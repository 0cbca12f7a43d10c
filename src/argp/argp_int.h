/* Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause */
/* Internals of the argument parser, shared by argp.c (state, params) and argp_parse.c. */
#ifndef ODMA_ARGP_INT_H_
#define ODMA_ARGP_INT_H_

#include <stdbool.h>
#include <stdio.h>

#include <doca_argp.h>

struct json_object;

struct doca_argp_param {
	char *short_name;
	char *long_name;
	char *arguments;
	char *description;
	doca_argp_param_cb_t callback;
	enum doca_argp_type type;
	bool mandatory;
	bool cli_only;
	bool multi;
	bool singular;
	bool inherited;
	bool hidden;
	int cli_seen;   /* times given on the command line in this start */
	bool json_seen; /* given in the JSON file */
};

struct odma_argp {
	bool initialized;
	bool started;
	char *program;
	void *config;
	struct doca_argp_param **params;
	int nb_params;
	int cap_params;
	doca_argp_validation_cb_t validation;
	doca_argp_param_cb_t version;
	doca_argp_dpdk_cb_t dpdk;
	char **dpdk_json; /* EAL flags from the JSON file's "doca_dpdk_flags", NULL-terminated */
	int dpdk_json_n;
	bool own_json;     /* doca_priv_argp_own_json: -j/--json are the program's */
	bool cb_explain;   /* doca_priv_argp_callbacks_explain: a refusing callback said why */
	char *synopsis;    /* doca_priv_argp_set_doc: after "Usage: PROGRAM " */
	char *description; /* doca_priv_argp_set_doc: printed under the usage line */
	char *epilogue;    /* doca_priv_argp_set_doc: printed after the flags */
	bool log_set;
	bool sdk_set;
	int log_level;
	int sdk_level;
};

extern struct odma_argp odma_argp;

void odma_argp_msg(enum doca_log_level level, const char *format, ...)
        __attribute__((format(printf, 2, 3)));
/* A line of its own on stderr, no log prefix (the program's logger callback when set). */
void odma_argp_plain(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* BAD_STATE, with one line "@fn: the parser is ...; @fix", unless between init and start. */
doca_error_t odma_argp_check_open(const char *fn, const char *fix);
struct doca_argp_param *odma_argp_find(const char *name, bool is_long);
/* odma_argp_find of the first @len characters of @name (a flag on the command line). */
struct doca_argp_param *odma_argp_find_n(const char *name, size_t len, bool is_long);
/* Whether @n (NULL: no name) is exactly the first @len characters of @name. */
bool odma_argp_name_is(const char *n, const char *name, size_t len);
doca_error_t odma_argp_apply(struct doca_argp_param *p, const char *text);
/* Hands a parsed value to the param's callback; a refusal is logged (unless it explains itself). */
doca_error_t odma_argp_call(struct doca_argp_param *p, void *value);
doca_error_t odma_argp_set_level(bool sdk, long value, const char *origin);
doca_error_t odma_argp_load_json(const char *path);
/*
 * One JSON value in @len bytes of @text (NUL-terminated at @len), with nothing but white space
 * after it (json-c alone stops at the end of the first value and ignores the rest); NULL and
 * the reason in @why.
 */
struct json_object *odma_argp_json_parse(const char *text, size_t len, const char **why);

/* The EAL flags of a "doca_dpdk_flags" object, kept for the DPDK program; or a logged refusal. */
doca_error_t odma_argp_json_dpdk(struct json_object *section);
/* Frees the EAL flags odma_argp_json_dpdk kept. */
void odma_argp_dpdk_clear(void);

#endif /* ODMA_ARGP_INT_H_ */
