/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * Runs a command-line tool of this build and captures its stdout and exit status.
 */
#ifndef TOOL_RUN_H_
#define TOOL_RUN_H_

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <json-c/json.h>

#include "test_exec.h"

struct tool_out {
	char text[1 << 17];
	int status; /* exit status, or -1 if it did not exit normally */
};

/* Runs "$TOOL ARGS" (stderr discarded unless keep_stderr) with env_prefix prepended. */
static inline void tool_run(struct tool_out *out, const char *env_prefix, const char *tool,
                            const char *args, int keep_stderr)
{
	char cmd[4096], wrap[256];
	size_t len = 0, n;
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "%s %s'%s' %s %s", env_prefix ? env_prefix : "",
	         tu_exe_wrapper_prefix(wrap, sizeof(wrap)), tool, args,
	         keep_stderr ? "2>&1" : "2>/dev/null");
	out->text[0] = '\0';
	out->status = -1;
	p = popen(cmd, "r");
	if (p == NULL)
		return;
	while ((n = fread(out->text + len, 1, sizeof(out->text) - 1 - len, p)) > 0)
		len += n;
	out->text[len] = '\0';
	st = pclose(p);
	out->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Path of a tool from an environment variable the meson test sets. */
static inline const char *tool_path(const char *var)
{
	const char *p = getenv(var);

	if (p == NULL) {
		printf("%s is not set: run this test through meson test\n", var);
		exit(77);
	}
	return p;
}

#endif
