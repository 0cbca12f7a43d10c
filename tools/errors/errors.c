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
#include "argp/argp_priv.h"
#include "core/error/error.h"
#include "odma_help.h"

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

/* The help text (doca_argp prints it with the flags between); `odma errors --man` makes the
 * man page of the same text. */
static const char errors_description[] =
        "Without an argument, prints every doca_error_t code: its name, its number, the\n"
        "description doca_error_get_descr() returns, and, for each code the DMA stack\n"
        "returns, every rule that produces it: the calls that report it, what the program\n"
        "did, and how to fix it.\n"
        "\n"
        "With NAME or NUMBER, only that code. NAME may be written DOCA_ERROR_AGAIN,\n"
        "ERROR_AGAIN or AGAIN, in any case; NUMBER is decimal (e.g. 5).\n"
        "\n"
        "The rules are the same table the odma libraries quote in their log lines: when a\n"
        "call is refused, the log line ends with the fix printed here. The main ones: a\n"
        "lifecycle call in the wrong state: BAD_STATE; a copy above max_buf_size or a list\n"
        "above max_buf_list_len: INVALID_VALUE; more tasks in flight than the queue depth:\n"
        "AGAIN; writing memory without write permission: NOT_PERMITTED; a device without the\n"
        "memcpy task: NOT_SUPPORTED; the engine failing: DRIVER; a failed or flushed copy:\n"
        "IO_FAILED; an exhausted task pool or inventory: NO_MEMORY; starting without a\n"
        "progress engine: NOT_CONNECTED; starting without doca_dma_task_memcpy_set_conf:\n"
        "BAD_CONFIG.";

static const char errors_epilogue[] =
        "JSON OUTPUT\n"
        "  --json prints {\"errors\": [...]}, each entry with name, number, description and\n"
        "  dma_causes (an array of rule, calls, cause and fix; the queue-full rule of\n"
        "  DOCA_ERROR_AGAIN also has queue_depths, the task queue depth of each device of the\n"
        "  loaded profile, which the text output prints as its here: line).\n"
        "\n"
        "EXIT STATUS\n"
        "  0 on success; 1 when NAME|NUMBER is not a DOCA error code; 2 for a bad command\n"
        "  line.\n"
        "\n"
        "EXAMPLES\n"
        "  odma errors AGAIN\n"
        "  odma errors 18\n"
        "  odma errors --json not_permitted\n"
        "\n"
        "SEE ALSO\n"
        "  doca_caps(1), odma(1)";

static doca_error_t json_cb(void *param, void *config)
{
	*(bool *)config = *(bool *)param;
	return DOCA_SUCCESS;
}

/* --json: this tool's own flag (JSON output), not DOCA's flags-from-a-file. */
static doca_error_t register_params(void)
{
	struct doca_argp_param *p = NULL;
	doca_error_t err;

	doca_priv_argp_own_json();
	err = doca_priv_argp_set_doc("[--json] [NAME|NUMBER]", errors_description, errors_epilogue);
	if (err == DOCA_SUCCESS)
		err = doca_argp_param_create(&p);
	if (err != DOCA_SUCCESS)
		return err;
	doca_argp_param_set_long_name(p, "json");
	doca_argp_param_set_description(p, "Print one JSON document instead of text");
	doca_argp_param_set_callback(p, json_cb);
	doca_argp_param_set_type(p, DOCA_ARGP_TYPE_BOOLEAN);
	err = doca_argp_register_param(p);
	if (err == DOCA_SUCCESS)
		err = doca_argp_register_version_callback(version_cb);
	return err;
}

static void usage_stdout(void *arg)
{
	(void)arg;
	doca_argp_usage();
}

/* doca_argp has no positional arguments: take NAME|NUMBER out of argv before it parses. */
static int split_args(int argc, char **argv, const char **query)
{
	static const char *const with_value[] = { "-l", "--log-level", "--sdk-log-level" };
	int i, out = 1;
	size_t k;

	for (i = 1; i < argc; i++) {
		for (k = 0; k < sizeof(with_value) / sizeof(with_value[0]); k++)
			if (strcmp(argv[i], with_value[k]) == 0 && i + 1 < argc)
				break;
		if (k < sizeof(with_value) / sizeof(with_value[0])) {
			argv[out++] = argv[i++];
			argv[out++] = argv[i];
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

	bool man = odma_help_man_wanted(argc, argv);

	argc = split_args(argc, argv, &query);
	doca_log_backend_create_standard();
	err = doca_argp_init("odma errors", &json);
	if (err == DOCA_SUCCESS)
		err = register_params();
	if (err == DOCA_SUCCESS && man) {
		char *text = odma_help_capture(usage_stdout, NULL);

		if (text != NULL)
			odma_help_man(stdout, "odma-errors", 1,
			              "explain DOCA error codes "
			              "and what makes the DMA stack return them",
			              text, NULL);
		free(text);
		doca_argp_destroy();
		return text != NULL ? 0 : 1;
	}
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
