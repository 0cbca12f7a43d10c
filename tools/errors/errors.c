/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * odma-errors: every DOCA_ERROR_* code with its name, number and description, and, for the
 * codes the DMA stack returns, the rules that produce it and how to fix them. The rules come
 * from the same table the library's log lines quote (src/core/error/error_causes.c).
 *
 *   odma errors [--json] [NAME|NUMBER]
 *
 * NAME may be given as DOCA_ERROR_AGAIN, ERROR_AGAIN or AGAIN, in any case. See
 * docs/man/odma-errors.1.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include <doca_argp.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_version.h>

#include "core/device/device.h"
#include "core/error/error.h"

#define MAX_CODE 255 /* codes are scanned from 0 up to the first unknown one */

static const char unknown[] = "unrecognized error code";

static bool code_known(int code)
{
	return strcmp(doca_error_get_name((doca_error_t)code), unknown) != 0;
}

/* "DOCA_ERROR_AGAIN", "error_again", "again", "5" -> 5; -1 when no code matches. */
static int lookup(const char *query)
{
	char *end = NULL;
	long n = strtol(query, &end, 10);
	int code;

	if (end != query && *end == '\0')
		return (n >= 0 && n <= MAX_CODE && code_known((int)n)) ? (int)n : -1;
	for (code = 0; code <= MAX_CODE && code_known(code); code++) {
		const char *name = doca_error_get_name((doca_error_t)code);

		if (strcasecmp(query, name) == 0 || strcasecmp(query, name + 5) == 0 ||
		    (strncmp(name, "DOCA_ERROR_", 11) == 0 && strcasecmp(query, name + 11) == 0))
			return code;
	}
	return -1;
}

/*
 * The limit behind the queue-full rule on this machine: the task queue depth of each device
 * of the loaded system (ODMA_SYSTEM), from the accessor the library's own check reads.
 */
static json_object *queue_depths(void)
{
	json_object *arr = json_object_new_array();
	struct doca_devinfo **list = NULL;
	uint32_t n = 0, depth;
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];

	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
		return arr;
	for (uint32_t i = 0; i < n; i++) {
		json_object *d;

		if (doca_priv_devinfo_get_queue_depth(list[i], &depth) != DOCA_SUCCESS ||
		    doca_devinfo_get_pci_addr_str(list[i], pci) != DOCA_SUCCESS)
			continue;
		d = json_object_new_object();
		json_object_object_add(d, "pci_addr", json_object_new_string(pci));
		json_object_object_add(d, "queue_depth", json_object_new_int64(depth));
		json_object_array_add(arr, d);
	}
	doca_devinfo_destroy_list(list);
	return arr;
}

static json_object *code_entry(int code)
{
	json_object *o = json_object_new_object(), *causes = json_object_new_array();
	const struct doca_priv_error_cause *table;
	size_t count = 0, i;

	json_object_object_add(o, "name", json_object_new_string(doca_error_get_name(code)));
	json_object_object_add(o, "number", json_object_new_int(code));
	json_object_object_add(o, "description",
	                       json_object_new_string(doca_error_get_descr(code)));
	table = doca_priv_error_causes(&count);
	for (i = 0; i < count; i++) {
		json_object *c;

		if ((int)table[i].code != code)
			continue;
		c = json_object_new_object();
		json_object_object_add(c, "rule", json_object_new_string(table[i].key));
		json_object_object_add(c, "calls", json_object_new_string(table[i].calls));
		json_object_object_add(c, "cause", json_object_new_string(table[i].cause));
		json_object_object_add(c, "fix", json_object_new_string(table[i].fix));
		if (i == ODMA_CAUSE_QUEUE_FULL)
			json_object_object_add(c, "queue_depths", queue_depths());
		json_object_array_add(causes, c);
	}
	json_object_object_add(o, "dma_causes", causes);
	return o;
}

static const char *field(json_object *o, const char *key)
{
	return json_object_get_string(json_object_object_get(o, key));
}

/* "here: queue depth 1024 on 0000:b1:00.0, 0000:b1:00.1; 128 on 0000:5e:00.0" */
static void print_depths(json_object *arr)
{
	size_t n = arr != NULL ? json_object_array_length(arr) : 0, i, j;

	if (n == 0)
		return;
	printf("      here:  task queue depth (tasks in flight per context) ");
	for (i = 0; i < n; i++) {
		int64_t d = json_object_get_int64(
		        json_object_object_get(json_object_array_get_idx(arr, i), "queue_depth"));
		bool first = true;

		for (j = 0; j < i; j++) /* printed with an earlier device of the same depth */
			if (json_object_get_int64(json_object_object_get(
			            json_object_array_get_idx(arr, j), "queue_depth")) == d)
				break;
		if (j < i)
			continue;
		printf("%s%lld on", i ? "; " : "", (long long)d);
		for (j = i; j < n; j++) {
			json_object *o = json_object_array_get_idx(arr, j);

			if (json_object_get_int64(json_object_object_get(o, "queue_depth")) != d)
				continue;
			printf("%s%s", first ? " " : ", ", field(o, "pci_addr"));
			first = false;
		}
	}
	printf(" (doca_caps shows it; the profile key queue_depth sets it)\n");
}

static void print_entry(json_object *e, bool verbose)
{
	json_object *causes = json_object_object_get(e, "dma_causes");
	size_t i, n = json_object_array_length(causes);

	printf("%-34s %3d  %s\n", field(e, "name"),
	       json_object_get_int(json_object_object_get(e, "number")), field(e, "description"));
	if (!verbose)
		return;
	if (n == 0)
		printf("    (no DMA-specific cause: odma does not return this code from the DMA "
		       "path)\n");
	for (i = 0; i < n; i++) {
		json_object *c = json_object_array_get_idx(causes, i);

		printf("  * %s (%s)\n      cause: %s\n      fix:   %s\n", field(c, "rule"),
		       field(c, "calls"), field(c, "cause"), field(c, "fix"));
		print_depths(json_object_object_get(c, "queue_depths"));
	}
}

/* Every code, or just `code`; prints text or one JSON document. */
static void report(int code, bool json)
{
	json_object *arr = json_object_new_array();
	size_t i;
	int c;

	for (c = 0; c <= MAX_CODE && code_known(c); c++)
		if (code < 0 || c == code)
			json_object_array_add(arr, code_entry(c));
	if (json) {
		json_object *root = json_object_new_object();

		json_object_object_add(root, "errors", arr);
		printf("%s\n",
		       json_object_to_json_string_ext(
		               root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(root);
		return;
	}
	for (i = 0; i < json_object_array_length(arr); i++) {
		print_entry(json_object_array_get_idx(arr, i), true);
		if (i + 1 < json_object_array_length(arr))
			printf("\n");
	}
	json_object_put(arr);
}

static doca_error_t version_cb(void *param, void *config)
{
	(void)param;
	(void)config;
	printf("odma-errors (odma) %s\n", doca_version_runtime());
	doca_argp_destroy();
	exit(EXIT_SUCCESS);
}

/*
 * doca_argp has no positional arguments and reserves --json for a configuration file:
 * take the NAME|NUMBER argument and a bare --json out of argv before argp sees the rest.
 */
static int split_args(int argc, char **argv, const char **query, bool *json)
{
	static const char *const with_value[] = { "-l", "--log-level", "--sdk-log-level", "-j" };
	int i, out = 1;
	size_t k;

	for (i = 1; i < argc; i++) {
		for (k = 0; k < sizeof(with_value) / sizeof(with_value[0]); k++)
			if (strcmp(argv[i], with_value[k]) == 0 && i + 1 < argc)
				break;
		if (k < sizeof(with_value) / sizeof(with_value[0])) {
			argv[out++] = argv[i++];
			argv[out++] = argv[i];
		} else if (strcmp(argv[i], "--json") == 0) {
			*json = true;
		} else if (argv[i][0] != '-' && *query == NULL) {
			*query = argv[i];
		} else {
			argv[out++] = argv[i];
		}
	}
	argv[out] = NULL;
	return out;
}

int main(int argc, char **argv)
{
	const char *query = NULL;
	bool json = false;
	int code = -1;
	doca_error_t err;

	argc = split_args(argc, argv, &query, &json);
	doca_log_backend_create_standard();
	err = doca_argp_init("odma-errors", NULL);
	if (err == DOCA_SUCCESS)
		err = doca_argp_register_version_callback(version_cb);
	if (err == DOCA_SUCCESS)
		err = doca_argp_start(argc, argv);
	doca_argp_destroy();
	if (err != DOCA_SUCCESS)
		return 2;
	if (query != NULL && (code = lookup(query)) < 0) {
		fprintf(stderr,
		        "odma-errors: '%s' is not a DOCA error name or number "
		        "(run 'odma errors' for the list)\n",
		        query);
		return 1;
	}
	report(code, json);
	return EXIT_SUCCESS;
}
