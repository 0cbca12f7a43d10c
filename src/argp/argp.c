/* Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause */
/* Argument parser: process-wide state, params and their registration, getters. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "argp/argp_int.h"
#include "argp/argp_priv.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(ODMA_ARGP)

struct odma_argp odma_argp;
static doca_argp_logger_cb_t argp_logger;

/* The built-in flags; program params may not reuse these names. */
static const char *const argp_reserved[] = { "h",         "help",          "v", "version", "l",
	                                     "log-level", "sdk-log-level", "j", "json" };

void odma_argp_msg(enum doca_log_level level, const char *format, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, format);
	if (argp_logger != NULL) {
		argp_logger(level, format, ap);
	} else {
		vsnprintf(text, sizeof(text), format, ap);
		doca_log(level, odma_log_source, __FILE__, __LINE__, "doca_argp", "%s", text);
	}
	va_end(ap);
}

void odma_argp_plain(const char *format, ...)
{
	va_list ap;

	va_start(ap, format);
	if (argp_logger != NULL) {
		argp_logger(DOCA_LOG_LEVEL_ERROR, format, ap);
	} else {
		vfprintf(stderr, format, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}

static void argp_param_free(struct doca_argp_param *p)
{
	if (p == NULL)
		return;
	free(p->short_name);
	free(p->long_name);
	free(p->arguments);
	free(p->description);
	free(p);
}

doca_error_t doca_argp_init(const char *program_name, void *program_config)
{
	if (odma_argp.initialized) {
		odma_argp_msg(DOCA_LOG_LEVEL_ERROR,
		              "doca_argp_init: the parser is already initialised; "
		              "call doca_argp_destroy first");
		return DOCA_ERROR_BAD_STATE;
	}
	memset(&odma_argp, 0, sizeof(odma_argp));
	if (program_name != NULL && (odma_argp.program = strdup(program_name)) == NULL)
		return DOCA_ERROR_NO_MEMORY;
	odma_argp.config = program_config;
	odma_argp.initialized = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_destroy(void)
{
	int i;

	if (!odma_argp.initialized) {
		odma_argp_msg(DOCA_LOG_LEVEL_ERROR,
		              "doca_argp_destroy: the parser is not initialised; "
		              "call doca_argp_init first");
		return DOCA_ERROR_BAD_STATE;
	}
	for (i = 0; i < odma_argp.nb_params; i++)
		argp_param_free(odma_argp.params[i]);
	free(odma_argp.params);
	free(odma_argp.program);
	free(odma_argp.synopsis);
	free(odma_argp.description);
	free(odma_argp.epilogue);
	odma_argp_dpdk_clear(); /* --help or --version exits during doca_argp_start */
	memset(&odma_argp, 0, sizeof(odma_argp));
	return DOCA_SUCCESS;
}

/*
 * Whether @p is registered (logged, naming @fn and @fix): the parser owns it and frees it at
 * doca_argp_destroy, so neither a second registration nor the program may free it.
 */
static bool argp_registered(const struct doca_argp_param *p, const char *fn, const char *fix)
{
	for (int i = 0; i < odma_argp.nb_params; i++)
		if (odma_argp.params[i] == p) {
			odma_argp_msg(DOCA_LOG_LEVEL_ERROR, "%s: param %p is registered; %s", fn,
			              (const void *)p, fix);
			return true;
		}
	return false;
}

doca_error_t doca_argp_param_create(struct doca_argp_param **param)
{
	struct doca_argp_param *p;

	if (param == NULL) {
		odma_argp_msg(DOCA_LOG_LEVEL_ERROR,
		              "doca_argp_param_create: param is NULL; pass a pointer "
		              "to receive the new param");
		return DOCA_ERROR_INVALID_VALUE;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return DOCA_ERROR_NO_MEMORY;
	*param = p;
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_param_destroy(struct doca_argp_param *param)
{
	if (param == NULL) {
		odma_argp_msg(DOCA_LOG_LEVEL_ERROR, "doca_argp_param_destroy: param is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (argp_registered(param, __func__, "doca_argp_destroy frees it"))
		return DOCA_ERROR_INVALID_VALUE;
	argp_param_free(param);
	return DOCA_SUCCESS;
}

/* Replaces *field with a copy of text; the setters return void, so a failure is only logged. */
static void argp_set_text(struct doca_argp_param *p, char **field, const char *text, const char *fn)
{
	char *copy;

	if (p == NULL || text == NULL) {
		odma_argp_msg(DOCA_LOG_LEVEL_ERROR, "%s: %s is NULL; pass a param and a string", fn,
		              p == NULL ? "param" : "value");
		return;
	}
	copy = strdup(text);
	if (copy == NULL) {
		odma_argp_msg(DOCA_LOG_LEVEL_ERROR, "%s: out of memory copying \"%s\"", fn, text);
		return;
	}
	free(*field);
	*field = copy;
}

void doca_argp_param_set_short_name(struct doca_argp_param *param, const char *name)
{
	argp_set_text(param, param ? &param->short_name : NULL, name, __func__);
}

void doca_argp_param_set_long_name(struct doca_argp_param *param, const char *name)
{
	argp_set_text(param, param ? &param->long_name : NULL, name, __func__);
}

void doca_argp_param_set_arguments(struct doca_argp_param *param, const char *arguments)
{
	argp_set_text(param, param ? &param->arguments : NULL, arguments, __func__);
}

void doca_argp_param_set_description(struct doca_argp_param *param, const char *description)
{
	argp_set_text(param, param ? &param->description : NULL, description, __func__);
}

/* Returns false (after logging) when a void setter got a NULL param. */
static bool argp_param_ok(const struct doca_argp_param *p, const char *fn)
{
	if (p == NULL)
		odma_argp_msg(DOCA_LOG_LEVEL_ERROR,
		              "%s: param is NULL; pass a param from doca_argp_param_create", fn);
	return p != NULL;
}

void doca_argp_param_set_callback(struct doca_argp_param *param, doca_argp_param_cb_t callback)
{
	if (argp_param_ok(param, __func__))
		param->callback = callback;
}

void doca_argp_param_set_type(struct doca_argp_param *param, enum doca_argp_type type)
{
	if (argp_param_ok(param, __func__))
		param->type = type;
}

#define ODMA_ARGP_FLAG_SETTER(fn, field)                                                           \
	void fn(struct doca_argp_param *param)                                                     \
	{                                                                                          \
		if (argp_param_ok(param, #fn))                                                     \
			param->field = true;                                                       \
	}

ODMA_ARGP_FLAG_SETTER(doca_argp_param_set_mandatory, mandatory)
doca_error_t doca_priv_argp_set_doc(const char *synopsis, const char *description,
                                    const char *epilogue)
{
	char *s = synopsis != NULL ? strdup(synopsis) : NULL;
	char *d = description != NULL ? strdup(description) : NULL;
	char *e = epilogue != NULL ? strdup(epilogue) : NULL;

	if (!odma_argp.initialized || (synopsis != NULL && s == NULL) ||
	    (description != NULL && d == NULL) || (epilogue != NULL && e == NULL)) {
		free(s);
		free(d);
		free(e);
		return odma_argp.initialized ? DOCA_ERROR_NO_MEMORY : DOCA_ERROR_BAD_STATE;
	}
	free(odma_argp.synopsis);
	free(odma_argp.description);
	free(odma_argp.epilogue);
	odma_argp.synopsis = s;
	odma_argp.description = d;
	odma_argp.epilogue = e;
	return DOCA_SUCCESS;
}

void doca_priv_argp_own_json(void)
{
	odma_argp.own_json = true;
}

void doca_priv_argp_callbacks_explain(void)
{
	odma_argp.cb_explain = true;
}

ODMA_ARGP_FLAG_SETTER(doca_argp_param_set_cli_only, cli_only)
ODMA_ARGP_FLAG_SETTER(doca_argp_param_set_multiplicity, multi)
ODMA_ARGP_FLAG_SETTER(doca_argp_param_set_singular, singular)
ODMA_ARGP_FLAG_SETTER(doca_argp_param_set_inherited, inherited)
ODMA_ARGP_FLAG_SETTER(doca_argp_param_set_hidden, hidden)

bool odma_argp_name_is(const char *n, const char *name, size_t len)
{
	return n != NULL && strncmp(n, name, len) == 0 && n[len] == '\0';
}

struct doca_argp_param *odma_argp_find_n(const char *name, size_t len, bool is_long)
{
	struct doca_argp_param *p;
	int i;

	for (i = 0; i < odma_argp.nb_params; i++) {
		p = odma_argp.params[i];
		if (odma_argp_name_is(is_long ? p->long_name : p->short_name, name, len))
			return p;
	}
	return NULL;
}

struct doca_argp_param *odma_argp_find(const char *name, bool is_long)
{
	return odma_argp_find_n(name, strlen(name), is_long);
}

static bool argp_name_taken(const char *name)
{
	size_t i;

	if (name == NULL)
		return false;
	for (i = 0; i < sizeof(argp_reserved) / sizeof(argp_reserved[0]); i++)
		if (strcmp(argp_reserved[i], name) == 0 &&
		    !(odma_argp.own_json && (strcmp(name, "j") == 0 || strcmp(name, "json") == 0)))
			return true;
	return odma_argp_find(name, true) != NULL || odma_argp_find(name, false) != NULL;
}

doca_error_t odma_argp_check_open(const char *fn, const char *fix)
{
	if (odma_argp.initialized && !odma_argp.started)
		return DOCA_SUCCESS;
	odma_argp_msg(DOCA_LOG_LEVEL_ERROR, "%s: the parser is %s; %s", fn,
	              odma_argp.started ? "already started" : "not initialised", fix);
	return DOCA_ERROR_BAD_STATE;
}

static doca_error_t argp_register_check(const struct doca_argp_param *p)
{
	const char *name = p->long_name != NULL ? p->long_name : p->short_name;
	doca_error_t rc;

	rc = odma_argp_check_open("doca_argp_register_param",
	                          "register params between doca_argp_init and doca_argp_start");
	if (rc != DOCA_SUCCESS)
		return rc;
	if (name == NULL || p->callback == NULL || p->type == DOCA_ARGP_TYPE_UNKNOWN ||
	    p->type > DOCA_ARGP_TYPE_JSON_OBJ) {
		odma_argp_msg(DOCA_LOG_LEVEL_ERROR,
		              "doca_argp_register_param: param \"%s\" lacks %s; set a "
		              "short or long name, a callback and a type",
		              name ? name : "(unnamed)",
		              name == NULL ? "a name"
		                           : (p->callback == NULL ? "a callback" : "a valid type"));
		return DOCA_ERROR_INITIALIZATION;
	}
	if (argp_name_taken(p->short_name) || argp_name_taken(p->long_name)) {
		odma_argp_msg(DOCA_LOG_LEVEL_ERROR,
		              "doca_argp_register_param: param \"%s\" reuses a name "
		              "already registered or built in; choose another name",
		              name);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_register_param(struct doca_argp_param *param)
{
	struct doca_argp_param **grown;
	doca_error_t rc;

	if (param == NULL) {
		odma_argp_msg(DOCA_LOG_LEVEL_ERROR, "doca_argp_register_param: param is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (argp_registered(param, __func__, "register a param once"))
		return DOCA_ERROR_INVALID_VALUE;
	rc = argp_register_check(param);
	if (rc == DOCA_SUCCESS && odma_argp.nb_params == odma_argp.cap_params) {
		grown = realloc(odma_argp.params,
		                sizeof(*grown) * (size_t)(odma_argp.cap_params * 2 + 8));
		if (grown == NULL)
			rc = DOCA_ERROR_NO_MEMORY;
		else {
			odma_argp.params = grown;
			odma_argp.cap_params = odma_argp.cap_params * 2 + 8;
		}
	}
	if (rc != DOCA_SUCCESS) {
		argp_param_free(param); /* the parser owns the param in every flow */
		return rc;
	}
	odma_argp.params[odma_argp.nb_params++] = param;
	return DOCA_SUCCESS;
}

static doca_error_t argp_cb_check(const void *cb, const char *fn)
{
	if (!odma_argp.initialized) {
		odma_argp_msg(DOCA_LOG_LEVEL_ERROR,
		              "%s: the parser is not initialised; call doca_argp_init first", fn);
		return DOCA_ERROR_BAD_STATE;
	}
	if (cb == NULL) {
		odma_argp_msg(DOCA_LOG_LEVEL_ERROR, "%s: callback is NULL; pass a function", fn);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_register_validation_callback(doca_argp_validation_cb_t callback)
{
	doca_error_t rc = argp_cb_check((const void *)callback, __func__);

	if (rc == DOCA_SUCCESS)
		odma_argp.validation = callback;
	return rc;
}

doca_error_t doca_argp_register_version_callback(doca_argp_param_cb_t callback)
{
	doca_error_t rc = argp_cb_check((const void *)callback, __func__);

	if (rc == DOCA_SUCCESS)
		odma_argp.version = callback;
	return rc;
}

void doca_argp_set_dpdk_program(doca_argp_dpdk_cb_t callback)
{
	odma_argp.dpdk = callback;
}

doca_error_t doca_argp_get_log_level(int *log_level)
{
	if (log_level == NULL) {
		odma_argp_msg(DOCA_LOG_LEVEL_ERROR, "doca_argp_get_log_level: log_level is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	*log_level = odma_argp.log_set ? odma_argp.log_level
	                               : (int)doca_log_level_get_global_lower_limit();
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_get_sdk_log_level(int *log_level)
{
	if (log_level == NULL) {
		odma_argp_msg(DOCA_LOG_LEVEL_ERROR,
		              "doca_argp_get_sdk_log_level: log_level is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	*log_level = odma_argp.sdk_set ? odma_argp.sdk_level
	                               : (int)doca_log_level_get_global_sdk_limit();
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_register_logger_callback(doca_argp_logger_cb_t callback)
{
	if (callback == NULL) {
		odma_argp_msg(DOCA_LOG_LEVEL_ERROR,
		              "doca_argp_register_logger_callback: callback is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	argp_logger = callback;
	return DOCA_SUCCESS;
}

void doca_argp_disable_logger_callback(void)
{
	argp_logger = NULL;
}
