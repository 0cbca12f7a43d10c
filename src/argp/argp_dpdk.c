/* Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause */
/*
 * Argument parser: a JSON file's "doca_dpdk_flags" section, turned into the DPDK (EAL) flags
 * that doca_argp_start hands to the program set with doca_argp_set_dpdk_program. The keys are
 * those of DOCA's Arg Parser guide and NVIDIA's *_params.json files: "devices" (-a each),
 * "core-mask" (-c), "core-list" (-l) and "flags" (more EAL flags, split at white space).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "argp/argp_int.h"

/* Logs "JSON section "doca_dpdk_flags": " and the rule @fmt makes; returns @rc. */
static doca_error_t dpdk_refuse(doca_error_t rc, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
static doca_error_t dpdk_refuse(doca_error_t rc, const char *fmt, ...)
{
	char rule[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rule, sizeof(rule), fmt, ap);
	va_end(ap);
	odma_argp_msg(DOCA_LOG_LEVEL_ERROR, "JSON section \"doca_dpdk_flags\": %s", rule);
	return rc;
}

void odma_argp_dpdk_clear(void)
{
	for (int i = 0; i < odma_argp.dpdk_json_n; i++)
		free(odma_argp.dpdk_json[i]);
	free(odma_argp.dpdk_json);
	odma_argp.dpdk_json = NULL;
	odma_argp.dpdk_json_n = 0;
}

/*
 * The most EAL flags a file may give: far above a real allow-list (DOCA 1 took 20), and a
 * 16 MiB "flags" of one-letter words no longer makes millions of strings.
 */
#define ARGP_DPDK_MAX 1024

/* Appends the first @len characters of @arg to the EAL flags (the list stays NULL-terminated). */
static doca_error_t dpdk_push(const char *arg, size_t len)
{
	char **grown;

	if (odma_argp.dpdk_json_n >= ARGP_DPDK_MAX)
		return dpdk_refuse(DOCA_ERROR_INVALID_VALUE,
		                   "more than %d EAL flags; give the rest before \"--\"",
		                   ARGP_DPDK_MAX);
	grown = realloc(odma_argp.dpdk_json, sizeof(*grown) * (size_t)(odma_argp.dpdk_json_n + 2));
	if (grown == NULL)
		return DOCA_ERROR_NO_MEMORY;
	odma_argp.dpdk_json = grown;
	grown[odma_argp.dpdk_json_n] = strndup(arg, len);
	if (grown[odma_argp.dpdk_json_n] == NULL)
		return DOCA_ERROR_NO_MEMORY;
	grown[++odma_argp.dpdk_json_n] = NULL;
	return DOCA_SUCCESS;
}

/* Appends @flag and its value, the text @fmt makes. */
static doca_error_t dpdk_push_pair(const char *flag, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
static doca_error_t dpdk_push_pair(const char *flag, const char *fmt, ...)
{
	doca_error_t rc = dpdk_push(flag, strlen(flag));
	char *value = NULL;
	va_list ap;
	int n;

	if (rc != DOCA_SUCCESS)
		return rc;
	va_start(ap, fmt);
	n = vasprintf(&value, fmt, ap);
	va_end(ap);
	if (n < 0)
		return DOCA_ERROR_NO_MEMORY;
	rc = dpdk_push(value, (size_t)n);
	free(value);
	return rc;
}

/* The string member @key of device @i (NULL when @key is absent; refused when not a string). */
static doca_error_t dpdk_device_text(struct json_object *dev, size_t i, const char *key,
                                     const char **text)
{
	struct json_object *val;

	*text = NULL;
	if (!json_object_object_get_ex(dev, key, &val))
		return DOCA_SUCCESS;
	if (!json_object_is_type(val, json_type_string))
		return dpdk_refuse(DOCA_ERROR_INVALID_VALUE, "device %zu: \"%s\" needs a string", i,
		                   key);
	*text = json_object_get_string(val);
	return DOCA_SUCCESS;
}

/* Checks device @i's keys: device and id (strings, checked by the caller), hws and sft. */
static doca_error_t dpdk_device_keys(struct json_object *dev, size_t i)
{
	json_object_object_foreach(dev, key, val)
	{
		bool flag = strcmp(key, "hws") == 0 || strcmp(key, "sft") == 0;

		if (!flag && strcmp(key, "device") != 0 && strcmp(key, "id") != 0)
			return dpdk_refuse(
			        DOCA_ERROR_NOT_SUPPORTED,
			        "device %zu: key \"%s\" is unknown; use device, id, hws, sft", i,
			        key);
		if (flag && !json_object_is_type(val, json_type_boolean))
			return dpdk_refuse(DOCA_ERROR_INVALID_VALUE,
			                   "device %zu: \"%s\" needs true or false", i, key);
	}
	return DOCA_SUCCESS;
}

/*
 * Device @i as "-a" and its EAL name: a pf or vf by its id (a PCI address), an sf by its
 * auxiliary device name. "hws": true asks mlx5 for hardware steering (dv_flow_en=2); "sft",
 * DOCA 1's stateful flow table, has no EAL flag left and is accepted without effect.
 */
static doca_error_t dpdk_device(struct json_object *dev, size_t i)
{
	const char *type = NULL, *id = NULL, *prefix;
	struct json_object *hws;
	doca_error_t rc;

	if (!json_object_is_type(dev, json_type_object))
		return dpdk_refuse(DOCA_ERROR_INVALID_VALUE,
		                   "device %zu is not an object; give device and id", i);
	rc = dpdk_device_keys(dev, i);
	if (rc == DOCA_SUCCESS)
		rc = dpdk_device_text(dev, i, "device", &type);
	if (rc == DOCA_SUCCESS)
		rc = dpdk_device_text(dev, i, "id", &id);
	if (rc != DOCA_SUCCESS)
		return rc;
	if (type == NULL || id == NULL ||
	    (strcmp(type, "pf") != 0 && strcmp(type, "vf") != 0 && strcmp(type, "sf") != 0))
		return dpdk_refuse(DOCA_ERROR_INVALID_VALUE,
		                   "device %zu needs device pf, vf or sf and an id; "
		                   "give other devices in \"flags\"",
		                   i);
	prefix = strcmp(type, "sf") == 0 ? "auxiliary:mlx5_core.sf." : "";
	if (json_object_object_get_ex(dev, "hws", &hws) && json_object_get_boolean(hws))
		return dpdk_push_pair("-a", "%s%s,dv_flow_en=2", prefix, id);
	return dpdk_push_pair("-a", "%s%s", prefix, id);
}

static doca_error_t dpdk_devices(struct json_object *val)
{
	doca_error_t rc = DOCA_SUCCESS;

	if (!json_object_is_type(val, json_type_array))
		return dpdk_refuse(DOCA_ERROR_INVALID_VALUE, "\"devices\" needs a list");
	for (size_t i = 0; i < json_object_array_length(val) && rc == DOCA_SUCCESS; i++)
		rc = dpdk_device(json_object_array_get_idx(val, i), i);
	return rc;
}

/* -c: the core mask, a non-negative integer, given to EAL in hexadecimal as it reads it. */
static doca_error_t dpdk_core_mask(struct json_object *val)
{
	if (!json_object_is_type(val, json_type_int) || json_object_get_int64(val) < 0)
		return dpdk_refuse(DOCA_ERROR_INVALID_VALUE,
		                   "\"core-mask\" needs a non-negative integer, e.g. 3");
	return dpdk_push_pair("-c", "0x%" PRIx64, (uint64_t)json_object_get_int64(val));
}

#define DPDK_SPACE " \t\r\n"

/* -l (core-list) or the words of "flags": both are strings. */
static doca_error_t dpdk_text(const char *key, struct json_object *val)
{
	doca_error_t rc = DOCA_SUCCESS;
	const char *s, *end;

	if (!json_object_is_type(val, json_type_string))
		return dpdk_refuse(DOCA_ERROR_INVALID_VALUE, "\"%s\" needs a string", key);
	s = json_object_get_string(val);
	if (strcmp(key, "core-list") == 0)
		return dpdk_push_pair("-l", "%s", s);
	for (s += strspn(s, DPDK_SPACE); *s != '\0' && rc == DOCA_SUCCESS;
	     s = end + strspn(end, DPDK_SPACE)) {
		end = s + strcspn(s, DPDK_SPACE);
		rc = dpdk_push(s, (size_t)(end - s));
	}
	return rc;
}

doca_error_t odma_argp_json_dpdk(struct json_object *section)
{
	static const char *const order[] = { "devices", "core-mask", "core-list", "flags" };
	struct json_object *val;
	doca_error_t rc = DOCA_SUCCESS;

	json_object_object_foreach(section, key, unused)
	{
		(void)unused;
		if (strcmp(key, "devices") != 0 && strcmp(key, "core-mask") != 0 &&
		    strcmp(key, "core-list") != 0 && strcmp(key, "flags") != 0)
			return dpdk_refuse(DOCA_ERROR_NOT_SUPPORTED,
			                   "key \"%s\" is unknown; "
			                   "use devices, core-mask, core-list and flags",
			                   key);
	}
	/* in DOCA's order, whatever the file's: devices, -c, -l, then the other flags */
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]) && rc == DOCA_SUCCESS; i++) {
		if (!json_object_object_get_ex(section, order[i], &val))
			continue;
		if (i == 0)
			rc = dpdk_devices(val);
		else if (i == 1)
			rc = dpdk_core_mask(val);
		else
			rc = dpdk_text(order[i], val);
	}
	return rc;
}
