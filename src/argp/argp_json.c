/* Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause */
/* Argument parser: flags from a JSON file ("doca_general_flags" / "doca_program_flags"). */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "argp/argp_int.h"
#include "util/fopen_nowait.h"

#if JSON_C_VERSION_NUM < ((0 << 16) | (15 << 8))
#define json_tokener_get_parse_end(tok) ((size_t)(tok)->char_offset)
#endif

struct json_object *odma_argp_json_parse(const char *text, size_t len, const char **why)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *obj;
	size_t end;

	*why = "out of memory";
	if (tok == NULL)
		return NULL;
	/* with its NUL, as json_tokener_parse: a number or literal at the end is complete */
	obj = json_tokener_parse_ex(tok, text, (int)len + 1);
	end = obj != NULL ? json_tokener_get_parse_end(tok) : len;
	if (obj == NULL && json_tokener_get_error(tok) == json_tokener_success)
		*why = "it is JSON null, which gives no value"; /* json-c makes it NULL */
	else if (obj == NULL)
		*why = json_tokener_get_error(tok) == json_tokener_continue
		               ? "it ends before its JSON does"
		               : json_tokener_error_desc(json_tokener_get_error(tok));
	json_tokener_free(tok);
	while (end < len && (text[end] == ' ' || text[end] == '\t' || text[end] == '\r' ||
	                     text[end] == '\n')) /* JSON's white space */
		end++;
	if (obj != NULL && end < len) {
		*why = "text follows its JSON value";
		json_object_put(obj);
		obj = NULL;
	}
	return obj;
}

/* Hands one JSON value to a param, checking that its JSON type matches the param type. */
static doca_error_t json_value(struct doca_argp_param *p, struct json_object *val, const char *key)
{
	enum json_type jt = json_object_get_type(val);
	int64_t v;
	bool b;
	int i;

	p->json_seen = true; /* a value was given (what follows may still refuse it) */
	/* null (NULL in json-c) is no value: refused below, as on the command line */
	if (p->type == DOCA_ARGP_TYPE_JSON_OBJ && val != NULL)
		return odma_argp_call(p, val);
	if (p->type == DOCA_ARGP_TYPE_STRING && jt == json_type_string)
		return odma_argp_apply(p, json_object_get_string(val));
	if (p->type == DOCA_ARGP_TYPE_INT && jt == json_type_int) {
		/* json-c would clamp it to an int: refused instead, as on the command line */
		v = json_object_get_int64(val);
		if (v < INT_MIN || v > INT_MAX) {
			odma_argp_msg(DOCA_LOG_LEVEL_ERROR,
			              "JSON key \"%s\": %s is not an integer from %d to %d", key,
			              json_object_to_json_string(val), INT_MIN, INT_MAX);
			return DOCA_ERROR_INVALID_VALUE;
		}
		i = (int)v;
		return odma_argp_call(p, &i);
	}
	if (p->type == DOCA_ARGP_TYPE_BOOLEAN && jt == json_type_boolean) {
		b = json_object_get_boolean(val);
		return odma_argp_call(p, &b);
	}
	odma_argp_msg(DOCA_LOG_LEVEL_ERROR, "JSON key \"%s\" has a value of the wrong type (%s)",
	              key, json_type_to_name(jt));
	return DOCA_ERROR_INVALID_VALUE;
}

static doca_error_t json_program(struct json_object *obj)
{
	struct doca_argp_param *p;
	doca_error_t rc = DOCA_SUCCESS;
	size_t i;

	json_object_object_foreach(obj, key, val)
	{
		p = odma_argp_find(key, true);
		if (p == NULL) {
			odma_argp_msg(DOCA_LOG_LEVEL_ERROR, "JSON key \"%s\" is not a program flag",
			              key);
			return DOCA_ERROR_NOT_SUPPORTED;
		}
		if (p->cli_only) {
			odma_argp_msg(DOCA_LOG_LEVEL_ERROR,
			              "flag \"%s\" is accepted on the command line only", key);
			return DOCA_ERROR_INVALID_VALUE;
		}
		/* A multi-value flag may list its values in an array (an empty one gives none). */
		if (p->multi && p->type != DOCA_ARGP_TYPE_JSON_OBJ &&
		    json_object_is_type(val, json_type_array)) {
			for (i = 0; i < json_object_array_length(val) && rc == DOCA_SUCCESS; i++)
				rc = json_value(p, json_object_array_get_idx(val, i), key);
		} else {
			rc = json_value(p, val, key);
		}
		if (rc != DOCA_SUCCESS)
			return rc;
	}
	return DOCA_SUCCESS;
}

static doca_error_t json_general(struct json_object *obj)
{
	doca_error_t rc;
	bool sdk;

	json_object_object_foreach(obj, key, val)
	{
		sdk = strcmp(key, "sdk-log-level") == 0;
		if (!sdk && strcmp(key, "log-level") != 0) {
			odma_argp_msg(DOCA_LOG_LEVEL_ERROR,
			              "JSON key \"%s\" is not a general flag "
			              "(log-level, sdk-log-level)",
			              key);
			return DOCA_ERROR_NOT_SUPPORTED;
		}
		if (!json_object_is_type(val, json_type_int)) {
			odma_argp_msg(DOCA_LOG_LEVEL_ERROR, "JSON key \"%s\" needs an integer",
			              key);
			return DOCA_ERROR_INVALID_VALUE;
		}
		rc = odma_argp_set_level(sdk, (long)json_object_get_int64(val), key);
		if (rc != DOCA_SUCCESS)
			return rc;
	}
	return DOCA_SUCCESS;
}

/*
 * DPDK (EAL) flags for the program set with doca_argp_set_dpdk_program; a program without one
 * initialises no DPDK, so the section is not its concern and is skipped, as DOCA 1's parser
 * did.
 */
static doca_error_t json_dpdk(struct json_object *section)
{
	if (odma_argp.dpdk == NULL) {
		odma_argp_msg(DOCA_LOG_LEVEL_DEBUG, "JSON section \"doca_dpdk_flags\" skipped: "
		                                    "the program set no DPDK program");
		return DOCA_SUCCESS;
	}
	return odma_argp_json_dpdk(section);
}

/* Reads the top-level member @key: one of the three sections, each an object. */
static doca_error_t json_section(const char *key, struct json_object *val)
{
	static const struct {
		const char *name;
		doca_error_t (*read)(struct json_object *section);
	} sections[] = { { "doca_general_flags", json_general },
		         { "doca_program_flags", json_program },
		         { "doca_dpdk_flags", json_dpdk } };

	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		if (strcmp(key, sections[i].name) != 0)
			continue;
		if (json_object_is_type(val, json_type_object))
			return sections[i].read(val);
		odma_argp_msg(DOCA_LOG_LEVEL_ERROR,
		              "JSON section \"%s\" is %s; it needs an object of flags", key,
		              json_type_to_name(json_object_get_type(val)));
		return DOCA_ERROR_INVALID_VALUE;
	}
	odma_argp_msg(DOCA_LOG_LEVEL_ERROR,
	              "JSON section \"%s\" is unknown; use objects \"doca_general_flags\", "
	              "\"doca_program_flags\" and \"doca_dpdk_flags\"",
	              key);
	return DOCA_ERROR_NOT_SUPPORTED;
}

/* A flags file above this is refused unread: -j /dev/zero must not take all memory. */
#define ARGP_JSON_MAX (16u << 20)

static doca_error_t json_unreadable(const char *path, int err)
{
	odma_argp_msg(DOCA_LOG_LEVEL_ERROR, "cannot read JSON file \"%s\": %s", path,
	              strerror(err));
	return DOCA_ERROR_IO_FAILED;
}

/* Reads @path, at most ARGP_JSON_MAX bytes, into a NUL-terminated @text. */
static doca_error_t json_read(const char *path, char **text, size_t *len)
{
	FILE *f = odma_fopen_nowait(path, "r"); /* a FIFO without a writer reads as empty */
	char *buf;
	int err;

	if (f == NULL)
		return json_unreadable(path, errno);
	buf = malloc(ARGP_JSON_MAX + 2);
	if (buf == NULL) {
		fclose(f);
		return DOCA_ERROR_NO_MEMORY;
	}
	errno = 0;
	*len = fread(buf, 1, ARGP_JSON_MAX + 1, f);
	err = ferror(f) ? (errno != 0 ? errno : EIO) : 0;
	fclose(f);
	if (err == 0 && *len <= ARGP_JSON_MAX) {
		buf[*len] = '\0';
		*text = buf;
		return DOCA_SUCCESS;
	}
	free(buf);
	if (err != 0)
		return json_unreadable(path, err);
	odma_argp_msg(DOCA_LOG_LEVEL_ERROR,
	              "JSON file \"%s\" is larger than %u MiB, the most a flags file may hold",
	              path, ARGP_JSON_MAX >> 20);
	return DOCA_ERROR_INVALID_VALUE;
}

/* The top-level object of the JSON file @path, or a logged refusal. */
static doca_error_t json_load_root(const char *path, struct json_object **root)
{
	const char *why;
	doca_error_t rc;
	size_t len;
	char *text;

	rc = json_read(path, &text, &len);
	if (rc != DOCA_SUCCESS)
		return rc;
	*root = odma_argp_json_parse(text, len, &why);
	free(text);
	if (*root != NULL && json_object_is_type(*root, json_type_object))
		return DOCA_SUCCESS;
	odma_argp_msg(DOCA_LOG_LEVEL_ERROR, "JSON file \"%s\" is not a valid JSON object: %s", path,
	              *root != NULL ? "top level is not an object" : why);
	json_object_put(*root);
	*root = NULL;
	return DOCA_ERROR_INVALID_VALUE;
}

doca_error_t odma_argp_load_json(const char *path)
{
	struct json_object *root;
	doca_error_t rc = json_load_root(path, &root);

	if (rc != DOCA_SUCCESS)
		return rc;
	json_object_object_foreach(root, key, val)
	{
		rc = json_section(key, val);
		if (rc != DOCA_SUCCESS)
			break;
	}
	json_object_put(root);
	return rc;
}
