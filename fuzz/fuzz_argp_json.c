/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Fuzzes the argp JSON configuration (the file given with -j/--json). Every input runs a full
 * parser life: doca_argp_init, params of every type registered (string, int, boolean, JSON
 * object, a multi-value string, a command-line-only flag), the JSON file loaded through the
 * same entry doca_argp_start uses (odma_argp_load_json, white box: no usage text printed on
 * each rejection), doca_argp_destroy. It must never crash, exit or leak.
 */
#include <sys/mman.h>
#include <unistd.h>

#include <json-c/json.h>

#include <doca_argp.h>
#include <doca_log.h>

#include "argp/argp_int.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_cfg {
	unsigned int calls;
};

static doca_error_t any_cb(void *param, void *config)
{
	struct fuzz_cfg *cfg = config;

	FUZZ_CHECK(param != NULL && cfg != NULL);
	cfg->calls++;
	return DOCA_SUCCESS;
}

static doca_error_t string_cb(void *param, void *config)
{
	FUZZ_CHECK(strlen(param) < (1u << 30)); /* readable, terminated */
	return any_cb(param, config);
}

static doca_error_t json_cb(void *param, void *config)
{
	/* serialising walks the whole object */
	FUZZ_CHECK(json_object_to_json_string(param) != NULL);
	return any_cb(param, config);
}

/* An int param refuses odd values, so the error path after a callback runs too. */
static doca_error_t int_cb(void *param, void *config)
{
	if (*(int *)param % 2 != 0)
		return DOCA_ERROR_INVALID_VALUE;
	return any_cb(param, config);
}

static void add(const char *name, enum doca_argp_type type, doca_argp_param_cb_t cb, int flags)
{
	struct doca_argp_param *p;

	FUZZ_CHECK(doca_argp_param_create(&p) == DOCA_SUCCESS);
	doca_argp_param_set_long_name(p, name);
	doca_argp_param_set_description(p, "fuzzed");
	doca_argp_param_set_callback(p, cb);
	doca_argp_param_set_type(p, type);
	if (flags & 1)
		doca_argp_param_set_multiplicity(p);
	if (flags & 2)
		doca_argp_param_set_cli_only(p);
	FUZZ_CHECK(doca_argp_register_param(p) == DOCA_SUCCESS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet_logs();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_cfg cfg = { 0 };
	char path[64];
	doca_error_t rc;
	int fd = memfd_create("fuzz-json", 0);

	if (fd < 0)
		return 0;
	if (size > 0 && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	FUZZ_CHECK(doca_argp_init("fuzz", &cfg) == DOCA_SUCCESS);
	add("name", DOCA_ARGP_TYPE_STRING, string_cb, 0);
	add("count", DOCA_ARGP_TYPE_INT, int_cb, 0);
	add("verbose", DOCA_ARGP_TYPE_BOOLEAN, any_cb, 0);
	add("extra", DOCA_ARGP_TYPE_JSON_OBJ, json_cb, 0);
	add("tag", DOCA_ARGP_TYPE_STRING, string_cb, 1);
	add("secret", DOCA_ARGP_TYPE_STRING, string_cb, 2);
	rc = odma_argp_load_json(path);
	FUZZ_CHECK(rc == DOCA_SUCCESS || rc == DOCA_ERROR_INVALID_VALUE ||
	           rc == DOCA_ERROR_NOT_SUPPORTED || rc == DOCA_ERROR_IO_FAILED ||
	           rc == DOCA_ERROR_NO_MEMORY);
	FUZZ_CHECK(doca_argp_destroy() == DOCA_SUCCESS);
	close(fd);
	/* the file may set log levels; put them back so the next input starts the same */
	doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_DISABLE);
	doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_DISABLE);
	return 0;
}
