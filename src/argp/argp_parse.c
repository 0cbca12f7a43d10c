/* Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause */
/* Argument parser: doca_argp_start (command line, JSON file, "--" hand-off) and usage text. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <json-c/json.h>

#include <doca_version.h>

#include "argp/argp_int.h"

enum odma_general { ODMA_G_NONE, ODMA_G_HELP, ODMA_G_VERSION, ODMA_G_LOG, ODMA_G_SDK, ODMA_G_JSON };

static const struct {
	const char *short_name;
	const char *long_name;
	const char *arguments;
	const char *description;
	enum odma_general id;
} odma_general_flags[] = {
	{ "h", "help", NULL, "Show this help text and exit", ODMA_G_HELP },
	{ "v", "version", NULL, "Show version information and exit", ODMA_G_VERSION },
	{ "l", "log-level", "<num>",
	  "Program log level: 10 disable, 20 crit, 30 error, 40 warning, "
	  "50 info, 60 debug, 70 trace",
	  ODMA_G_LOG },
	{ NULL, "sdk-log-level", "<num>", "SDK (library) log level, same numbers as --log-level",
	  ODMA_G_SDK },
	{ "j", "json", "<path>", "Read the flags from a JSON file", ODMA_G_JSON },
};

#define ODMA_N_GENERAL (sizeof(odma_general_flags) / sizeof(odma_general_flags[0]))

/* One flag: its names and placeholder padded to 40 columns (never cut), then its description. */
static void parse_usage_line(FILE *out, const char *s, const char *l, const char *args,
                             const char *desc, bool mandatory)
{
	int n = fprintf(out, "  %s%s%s%s%s%s%s", s ? "-" : "", s ? s : "", s && l ? ", " : "",
	                l ? "--" : "", l ? l : "", args ? " " : "", args ? args : "");

	fprintf(out, "%*s %s%s\n", n >= 0 && n < 40 ? 40 - n : 0, "", desc ? desc : "",
	        mandatory ? " (mandatory)" : "");
}

static void odma_argp_print_usage(FILE *out)
{
	struct doca_argp_param *p;
	size_t i;
	int k;

	fprintf(out, "Usage: %s %s\n\n", odma_argp.program ? odma_argp.program : "program",
	        odma_argp.synopsis ? odma_argp.synopsis
	        : odma_argp.dpdk   ? "[DPDK flags] -- [DOCA flags] [program flags]"
	                           : "[DOCA flags] [program flags]");
	if (odma_argp.description != NULL)
		fprintf(out, "%s\n\n", odma_argp.description);
	fprintf(out, "DOCA flags:\n");
	for (i = 0; i < ODMA_N_GENERAL; i++)
		if (!(odma_argp.own_json && odma_general_flags[i].id == ODMA_G_JSON))
			parse_usage_line(out, odma_general_flags[i].short_name,
			                 odma_general_flags[i].long_name,
			                 odma_general_flags[i].arguments,
			                 odma_general_flags[i].description, false);
	fprintf(out, "\nProgram flags:\n");
	for (k = 0; k < odma_argp.nb_params; k++) {
		p = odma_argp.params[k];
		if (!p->hidden)
			parse_usage_line(out, p->short_name, p->long_name, p->arguments,
			                 p->description, p->mandatory);
	}
	if (odma_argp.epilogue != NULL)
		fprintf(out, "\n%s\n", odma_argp.epilogue);
}

void doca_argp_usage(void)
{
	odma_argp_print_usage(stdout);
}

static const char *parse_param_name(const struct doca_argp_param *p)
{
	return p->long_name != NULL ? p->long_name : p->short_name;
}

/*
 * Decimal, or hexadecimal after 0x, with a sign: a leading zero does not make it octal, so 010
 * is ten, as a user (and DOCA's samples, which give decimal values) mean it.
 */
static doca_error_t parse_int(const char *text, long min, long max, long *out)
{
	const char *digits = text + (text[0] == '-' || text[0] == '+');
	int base = digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X') ? 16 : 10;
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, base);
	if (errno != 0 || end == text || *end != '\0' || v < min || v > max)
		return DOCA_ERROR_INVALID_VALUE;
	*out = v;
	return DOCA_SUCCESS;
}

doca_error_t odma_argp_call(struct doca_argp_param *p, void *value)
{
	doca_error_t rc = p->callback(value, odma_argp.config);

	if (rc != DOCA_SUCCESS && !odma_argp.cb_explain)
		odma_argp_msg(DOCA_LOG_LEVEL_ERROR, "flag \"%s\": its callback failed with %s",
		              parse_param_name(p), doca_error_get_name(rc));
	return rc;
}

/*
 * A boolean flag is given alone on the command line (DOCA's samples never give it a value;
 * their JSON files use true and false). A value, as in --flag=no, must say which: true, yes,
 * 1 or false, no, 0 (any case); anything else is refused rather than taken for true.
 */
static doca_error_t parse_apply_bool(struct doca_argp_param *p, const char *text)
{
	static const struct {
		const char *word;
		bool value;
	} words[] = { { "true", true },   { "yes", true }, { "1", true },
		      { "false", false }, { "no", false }, { "0", false } };
	size_t i;
	bool b;

	if (text == NULL) {
		b = true;
		return odma_argp_call(p, &b);
	}
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcasecmp(text, words[i].word) == 0) {
			b = words[i].value;
			return odma_argp_call(p, &b);
		}
	odma_argp_msg(DOCA_LOG_LEVEL_ERROR,
	              "flag \"%s\": \"%s\" is not a boolean; give the flag alone, or =true or "
	              "=false (yes/no, 1/0)",
	              parse_param_name(p), text);
	return DOCA_ERROR_INVALID_VALUE;
}

/* Converts a textual value by the param's type and hands it to the callback. */
doca_error_t odma_argp_apply(struct doca_argp_param *p, const char *text)
{
	struct json_object *obj;
	const char *why;
	doca_error_t rc;
	char *copy;
	long v;
	int i;

	switch (p->type) {
	case DOCA_ARGP_TYPE_INT:
		if (parse_int(text, INT_MIN, INT_MAX, &v) != DOCA_SUCCESS) {
			odma_argp_msg(DOCA_LOG_LEVEL_ERROR,
			              "flag \"%s\": \"%s\" is not an integer from %d to %d",
			              parse_param_name(p), text, INT_MIN, INT_MAX);
			return DOCA_ERROR_INVALID_VALUE;
		}
		i = (int)v;
		return odma_argp_call(p, &i);
	case DOCA_ARGP_TYPE_BOOLEAN:
		return parse_apply_bool(p, text);
	case DOCA_ARGP_TYPE_JSON_OBJ:
		obj = odma_argp_json_parse(text, strlen(text), &why);
		if (obj == NULL) {
			odma_argp_msg(DOCA_LOG_LEVEL_ERROR,
			              "flag \"%s\": \"%s\" is not usable JSON: %s",
			              parse_param_name(p), text, why);
			return DOCA_ERROR_INVALID_VALUE;
		}
		rc = odma_argp_call(p, obj);
		json_object_put(obj);
		return rc;
	default:
		copy = strdup(text);
		if (copy == NULL)
			return DOCA_ERROR_NO_MEMORY;
		rc = odma_argp_call(p, copy);
		free(copy);
		return rc;
	}
}

doca_error_t odma_argp_set_level(bool sdk, long value, const char *origin)
{
	if (value < DOCA_LOG_LEVEL_DISABLE || value > DOCA_LOG_LEVEL_TRACE || value % 10 != 0) {
		odma_argp_msg(DOCA_LOG_LEVEL_ERROR,
		              "%s: %ld is not a log level; use 10, 20, ... 70", origin, value);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sdk) {
		odma_argp.sdk_set = true;
		odma_argp.sdk_level = (int)value;
		return doca_log_level_set_global_sdk_limit((uint32_t)value);
	}
	odma_argp.log_set = true;
	odma_argp.log_level = (int)value;
	return doca_log_level_set_global_lower_limit((uint32_t)value);
}

/* ------------------------------------------------------------------ command line */

struct odma_token {
	enum odma_general general;
	struct doca_argp_param *param;
	const char *value; /* NULL for a flag without value */
	int next;          /* index of the next unread argument */
};

/* Finds the flag named by @arg (after its dashes, up to '='), compared whole whatever its length.
 */
static doca_error_t parse_lookup(const char *arg, struct odma_token *t)
{
	bool is_long = strncmp(arg, "--", 2) == 0;
	const char *eq, *name;
	size_t i, len;

	if (arg[0] != '-' || arg[1] == '\0' || (is_long && arg[2] == '\0')) {
		odma_argp_msg(DOCA_LOG_LEVEL_ERROR,
		              "argument \"%s\" is not a flag; flags start with - or --", arg);
		return DOCA_ERROR_INVALID_VALUE;
	}
	name = arg + (is_long ? 2 : 1);
	eq = strchr(name, '=');
	len = eq ? (size_t)(eq - name) : strlen(name);
	t->value = eq ? eq + 1 : NULL;
	for (i = 0; i < ODMA_N_GENERAL; i++) {
		const char *n = is_long ? odma_general_flags[i].long_name
		                        : odma_general_flags[i].short_name;

		if (odma_argp_name_is(n, name, len) &&
		    !(odma_argp.own_json && odma_general_flags[i].id == ODMA_G_JSON)) {
			t->general = odma_general_flags[i].id;
			return DOCA_SUCCESS;
		}
	}
	t->param = odma_argp_find_n(name, len, is_long);
	if (t->param == NULL) {
		const char *prog = odma_argp.program ? odma_argp.program : "program";

		/* one line, and where to look; not the whole usage */
		odma_argp_plain("%s: unknown option '%s%.*s' (see %s --help)", prog,
		                is_long ? "--" : "-", (int)len, name, prog);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	return DOCA_SUCCESS;
}

/* Reads the flag at argv[i]; flags that take a value consume the next argument when needed. */
static doca_error_t odma_token(int i, int end, char **argv, struct odma_token *t)
{
	bool needs_value;
	doca_error_t rc;

	memset(t, 0, sizeof(*t));
	rc = parse_lookup(argv[i], t);
	if (rc != DOCA_SUCCESS)
		return rc;
	t->next = i + 1;
	needs_value = t->param != NULL ? t->param->type != DOCA_ARGP_TYPE_BOOLEAN
	                               : (t->general == ODMA_G_LOG || t->general == ODMA_G_SDK ||
	                                  t->general == ODMA_G_JSON);
	if (!needs_value || t->value != NULL)
		return DOCA_SUCCESS;
	if (i + 1 >= end) {
		odma_argp_msg(DOCA_LOG_LEVEL_ERROR, "flag \"%s\" needs a value", argv[i]);
		return DOCA_ERROR_INVALID_VALUE;
	}
	t->value = argv[i + 1];
	t->next = i + 2;
	return DOCA_SUCCESS;
}

static void parse_version_and_exit(void)
{
	if (odma_argp.version != NULL)
		odma_argp.version(NULL, odma_argp.config);
	else
		printf("%s version %s (odma)\n", odma_argp.program ? odma_argp.program : "program",
		       doca_version_runtime());
	doca_argp_destroy();
	exit(EXIT_SUCCESS);
}

/* First pass: help and version act at once; the JSON path is remembered. */
static doca_error_t parse_scan_general(int first, int end, char **argv, const char **json)
{
	struct odma_token t;
	doca_error_t rc;
	int i;

	for (i = first; i < end; i = t.next) {
		rc = odma_token(i, end, argv, &t);
		if (rc != DOCA_SUCCESS)
			return rc;
		if (t.general == ODMA_G_HELP) {
			doca_argp_usage();
			doca_argp_destroy();
			exit(EXIT_SUCCESS);
		}
		if (t.general == ODMA_G_VERSION)
			parse_version_and_exit();
		if (t.general == ODMA_G_JSON && *json != NULL) {
			odma_argp_msg(DOCA_LOG_LEVEL_ERROR,
			              "flag \"%s\" was given twice; it reads one file", argv[i]);
			return DOCA_ERROR_INVALID_VALUE;
		}
		if (t.general == ODMA_G_JSON)
			*json = t.value;
	}
	return DOCA_SUCCESS;
}

static doca_error_t parse_apply_cli(int first, int end, char **argv)
{
	struct odma_token t;
	doca_error_t rc;
	long v;
	int i;

	for (i = first; i < end; i = t.next) {
		rc = odma_token(i, end, argv, &t);
		if (rc != DOCA_SUCCESS)
			return rc;
		if ((t.general == ODMA_G_LOG || t.general == ODMA_G_SDK) &&
		    parse_int(t.value, LONG_MIN, LONG_MAX, &v) != DOCA_SUCCESS) {
			odma_argp_msg(DOCA_LOG_LEVEL_ERROR,
			              "%s: \"%s\" is not a log level; use 10, 20, ... 70", argv[i],
			              t.value);
			return DOCA_ERROR_INVALID_VALUE;
		}
		if (t.general == ODMA_G_LOG || t.general == ODMA_G_SDK) {
			rc = odma_argp_set_level(t.general == ODMA_G_SDK, v, argv[i]);
		} else if (t.param != NULL) {
			if (t.param->cli_seen++ > 0 && !t.param->multi) {
				odma_argp_msg(DOCA_LOG_LEVEL_ERROR,
				              "flag \"%s\" was given twice; it takes one value",
				              argv[i]);
				return DOCA_ERROR_INVALID_VALUE;
			}
			rc = odma_argp_apply(t.param, t.value);
		}
		if (rc != DOCA_SUCCESS)
			return rc;
	}
	return DOCA_SUCCESS;
}

static doca_error_t parse_check_mandatory(void)
{
	struct doca_argp_param *p;
	int i;

	for (i = 0; i < odma_argp.nb_params; i++) {
		p = odma_argp.params[i];
		if (p->mandatory && p->cli_seen == 0 && !p->json_seen) {
			odma_argp_msg(DOCA_LOG_LEVEL_ERROR, "mandatory flag \"%s\" is missing",
			              parse_param_name(p));
			return DOCA_ERROR_INVALID_VALUE;
		}
	}
	return DOCA_SUCCESS;
}

/* The parts of a command line: argv[first..end) are flags, argv[eal_first..eal_end) EAL's. */
struct odma_split {
	int first, end;
	int eal_first, eal_end;
};

/* Whether argv[1] is -j/--json: DOCA 1's JSON mode, where the file gives the EAL flags. */
static bool parse_json_first(int argc, char **argv)
{
	return argc > 1 && !odma_argp.own_json &&
	       (strcmp(argv[1], "-j") == 0 || strncmp(argv[1], "-j=", 3) == 0 ||
	        strcmp(argv[1], "--json") == 0 || strncmp(argv[1], "--json=", 7) == 0);
}

/*
 * A DPDK program's command line is DOCA's "[EAL flags] -- [DOCA flags] [program flags]", as
 * NVIDIA's samples run ("doca_flow_aging -a auxiliary:mlx5_core.sf.2,dv_flow_en=2 -- -l 60").
 * Without "--" it is all EAL flags (DOCA 1 gave the whole line to rte_eal_init; NVIDIA's lines
 * keep "--" even with no EAL flag), unless it starts with -j/--json. Any other program's flags
 * run up to "--", and what follows is refused (it is a DPDK program's).
 */
static void parse_split(int argc, char **argv, struct odma_split *s)
{
	int dashdash = 1, after;

	while (dashdash < argc && strcmp(argv[dashdash], "--") != 0)
		dashdash++;
	after = dashdash < argc ? dashdash + 1 : argc;
	if (odma_argp.dpdk == NULL || (dashdash == argc && parse_json_first(argc, argv)))
		*s = (struct odma_split){
			.first = 1, .end = dashdash, .eal_first = after, .eal_end = argc
		};
	else
		*s = (struct odma_split){
			.first = after, .end = argc, .eal_first = 1, .eal_end = dashdash
		};
}

/*
 * The DPDK program gets the program name, the EAL flags of the JSON file's "doca_dpdk_flags",
 * then those of the command line (before "--").
 */
static doca_error_t parse_run_dpdk(char **argv, const struct odma_split *s)
{
	int cli = s->eal_end - s->eal_first;
	int n = 1 + odma_argp.dpdk_json_n + cli;
	char **args;
	doca_error_t rc;

	if (odma_argp.dpdk == NULL) {
		if (cli > 0) {
			odma_argp_msg(DOCA_LOG_LEVEL_ERROR,
			              "arguments after \"--\" need a program set with "
			              "doca_argp_set_dpdk_program");
			return DOCA_ERROR_NOT_SUPPORTED;
		}
		return DOCA_SUCCESS;
	}
	args = calloc((size_t)n + 1, sizeof(*args));
	if (args == NULL)
		return DOCA_ERROR_NO_MEMORY;
	args[0] = argv[0];
	if (odma_argp.dpdk_json_n > 0)
		memcpy(&args[1], odma_argp.dpdk_json,
		       sizeof(*args) * (size_t)odma_argp.dpdk_json_n);
	if (cli > 0)
		memcpy(&args[1 + odma_argp.dpdk_json_n], &argv[s->eal_first],
		       sizeof(*args) * (size_t)cli);
	rc = odma_argp.dpdk(n, args);
	free(args);
	return rc;
}

static doca_error_t parse_start(int argc, char **argv)
{
	const char *json = NULL;
	struct odma_split s;
	doca_error_t rc;

	parse_split(argc, argv, &s);
	rc = parse_scan_general(s.first, s.end, argv, &json);
	if (rc == DOCA_SUCCESS && json != NULL)
		rc = odma_argp_load_json(json);
	if (rc == DOCA_SUCCESS)
		rc = parse_apply_cli(s.first, s.end, argv);
	if (rc == DOCA_SUCCESS)
		rc = parse_check_mandatory();
	if (rc == DOCA_SUCCESS)
		rc = parse_run_dpdk(argv, &s);
	if (rc == DOCA_SUCCESS && odma_argp.validation != NULL) {
		rc = odma_argp.validation(odma_argp.config);
		if (rc != DOCA_SUCCESS)
			odma_argp_msg(DOCA_LOG_LEVEL_ERROR,
			              "the program's validation callback failed with %s",
			              doca_error_get_name(rc));
	}
	return rc;
}

doca_error_t doca_argp_start(int argc, char **argv)
{
	const char *base;
	doca_error_t rc;
	int i;

	rc = odma_argp_check_open("doca_argp_start",
	                          "call doca_argp_init once, then doca_argp_start once");
	if (rc != DOCA_SUCCESS)
		return rc;
	if (argc < 1 || argv == NULL || argv[0] == NULL) {
		odma_argp_msg(DOCA_LOG_LEVEL_ERROR,
		              "doca_argp_start: argc %d / argv %p; pass main's argc and argv", argc,
		              (void *)argv);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (odma_argp.program == NULL) {
		base = strrchr(argv[0], '/');
		odma_argp.program = strdup(base ? base + 1 : argv[0]);
	}
	for (i = 0; i < odma_argp.nb_params; i++) {
		odma_argp.params[i]->cli_seen = 0;
		odma_argp.params[i]->json_seen = false;
	}
	rc = parse_start(argc, argv); /* a refusal is one line (logged), never the usage */
	odma_argp_dpdk_clear();
	if (rc != DOCA_SUCCESS)
		return rc;
	odma_argp.started = true;
	return DOCA_SUCCESS;
}
