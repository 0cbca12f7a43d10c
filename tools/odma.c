/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * `odma COMMAND [ARGS...]`: runs the program odma-COMMAND with ARGS, looked up beside
 * this executable (the build tree: tools/<cmd>/odma-<cmd>) or in libexecdir/odma.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_version.h>

#include "odma_help.h"

static const struct {
	const char *name;
	const char *help;
} odma_commands[] = {
	{ "caps", "list emulated devices and their capabilities (as doca_caps)" },
	{ "bench", "measure the DMA engine against memcpy and DPDK's software DMA" },
	{ "errors", "explain DOCA error codes and their DMA-specific causes" },
	{ "advise", "choose between DMA, RDMA, Comch and memcpy for a copy" },
	{ "compat", "build and run NVIDIA's DOCA samples against this odma" },
	{ "trace", "summarise a task timeline written with ODMA_TRACE=FILE" },
};

static void odma_usage(FILE *out)
{
	fprintf(out,
	        "usage: odma COMMAND [ARGS...]\n\nodma %s - an open DOCA DMA "
	        "implementation\n\ncommands:\n",
	        DOCA_VERSION_STRING);
	for (size_t i = 0; i < sizeof(odma_commands) / sizeof(odma_commands[0]); i++)
		fprintf(out, "  %-8s %s\n", odma_commands[i].name, odma_commands[i].help);
	fprintf(out, "\n'odma COMMAND --help' describes a command, 'man odma-COMMAND' in full.\n\n"
	             "options:\n"
	             "  -h, --help     this text\n"
	             "  -v, --version  the odma version\n");
}

static void odma_usage_stdout(void *arg)
{
	(void)arg;
	odma_usage(stdout);
}

/* `odma --man`: this help as a man page (the build installs it as odma.1). */
static int odma_man(void)
{
	char *text = odma_help_capture(odma_usage_stdout, NULL);

	if (text == NULL)
		return 1;
	odma_help_man(stdout, "odma", 1, "an open DOCA DMA implementation's tools", text, NULL);
	free(text);
	return 0;
}

static int odma_exec(const char *dir, const char *sub, const char *cmd, char **argv)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s%s/odma-%s", dir, sub, cmd) >= (int)sizeof(path))
		return -1;
	if (access(path, X_OK) != 0)
		return -1;
	argv[0] = path;
	execv(path, argv);
	fprintf(stderr, "odma: cannot run %s: %s\n", path, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], sub[PATH_MAX];
	ssize_t n;
	char *slash;
	const char *cmd;

	if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		odma_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (strcmp(argv[1], "-v") == 0 || strcmp(argv[1], "--version") == 0) {
		printf("odma %s\n", doca_version_runtime());
		return 0;
	}
	if (strcmp(argv[1], "--man") == 0)
		return odma_man();
	if (argv[1][0] == '-')
		return odma_help_bad_option("odma", argv[1]);
	cmd = argv[1];
	if (strchr(cmd, '/') != NULL || strlen(cmd) > 32) {
		fprintf(stderr, "odma: '%s' is not a command (see odma --help)\n", cmd);
		return 2;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash != NULL)
			*slash = '\0';
		/* build tree: tools/<cmd>/odma-<cmd> (bench also serves advise) */
		snprintf(sub, sizeof(sub), "/%s", strcmp(cmd, "advise") == 0 ? "bench" : cmd);
		if (odma_exec(self, sub, cmd, argv + 1) >= 0 ||
		    odma_exec(self, "", cmd, argv + 1) >= 0)
			return 1;
	}
	if (odma_exec(ODMA_LIBEXECDIR, "", cmd, argv + 1) >= 0)
		return 1;
	fprintf(stderr, "odma: unknown command '%s' (see odma --help)\n", cmd);
	return 2;
}
