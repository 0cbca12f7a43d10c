/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The process's emulated system: chosen by ODMA_SYSTEM (a built-in name or a profile
 * file), filtered by ODMA_SIDE, loaded exactly once (pthread_once) and never freed, so
 * every devinfo pointer handed out stays valid for the life of the process.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/config/config.h"
#include "core/device/device.h"
#include "core/log/log.h"
#include "util/fopen_nowait.h"

ODMA_LOG_REGISTER(ODMA_SYSTEM)

#define ODMA_SIDE_BIT(s) (1u << (s))

static pthread_once_t sys_once = PTHREAD_ONCE_INIT;
static struct odma_system sys_profile;
static bool sys_ok;
static unsigned int sys_sides = ODMA_SIDE_BIT(ODMA_SIDE_HOST) | ODMA_SIDE_BIT(ODMA_SIDE_DPU);
static char sys_err[512];

static bool sys_load_side(void)
{
	const char *side = odma_config_string("ODMA_SIDE");

	if (side == NULL)
		return true;
	if (strcmp(side, "host") == 0)
		sys_sides = ODMA_SIDE_BIT(ODMA_SIDE_HOST);
	else if (strcmp(side, "dpu") == 0)
		sys_sides = ODMA_SIDE_BIT(ODMA_SIDE_DPU);
	else {
		odma_config_bad_line(sys_err, sizeof(sys_err), "ODMA_SIDE", side, NULL);
		return false;
	}
	return true;
}

/* Reads at most ODMA_PROFILE_MAX_TEXT + 1 bytes (one more lets the parser report "too large"). */
static char *sys_read_file(const char *path, size_t *len)
{
	FILE *f = odma_fopen_nowait(path, "rb");
	struct stat st;
	char *buf;

	if (f == NULL) {
		char names[128], detail[256];

		odma_profile_names(names, sizeof(names));
		snprintf(detail, sizeof(detail), "built-in: %s; as a file: %s", names,
		         strerror(errno));
		(void)odma_config_bad_line(sys_err, sizeof(sys_err), "ODMA_SYSTEM", path, detail);
		return NULL;
	}
	buf = malloc(ODMA_PROFILE_MAX_TEXT + 1);
	if (buf != NULL)
		*len = fread(buf, 1, ODMA_PROFILE_MAX_TEXT + 1, f);
	if (buf != NULL && ferror(f)) {
		snprintf(sys_err, sizeof(sys_err), "profile file %.200s: cannot read it: %s", path,
		         strerror(errno));
		free(buf);
		buf = NULL;
	} else if (buf != NULL && *len == 0 &&
	           (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode))) {
		snprintf(sys_err, sizeof(sys_err),
		         "profile file %.200s: nothing to read (a FIFO without a writer?)", path);
		free(buf);
		buf = NULL;
	} else if (buf == NULL) {
		snprintf(sys_err, sizeof(sys_err), "profile file %.200s: out of memory", path);
	}
	fclose(f);
	return buf;
}

static bool sys_load_file(const char *path)
{
	char perr[256];
	size_t len = 0;
	char *text;

	if (strlen(path) >= sizeof(sys_profile.name)) {
		snprintf(sys_err, sizeof(sys_err), "ODMA_SYSTEM path is longer than %zu bytes",
		         sizeof(sys_profile.name) - 1);
		return false;
	}
	text = sys_read_file(path, &len);
	if (text == NULL)
		return false;
	if (odma_profile_parse(text, len, &sys_profile, perr, sizeof(perr)) != DOCA_SUCCESS) {
		snprintf(sys_err, sizeof(sys_err), "profile file %.200s: %s", path, perr);
		free(text);
		return false;
	}
	free(text);
	snprintf(sys_profile.name, sizeof(sys_profile.name), "%s", path);
	return true;
}

static bool sys_load_builtin(const char *name, const char *text)
{
	const struct odma_profile_info *info = odma_profile_info(name);
	const char *canonical = info != NULL && info->alias_of != NULL ? info->alias_of : name;
	char perr[256];

	if (odma_profile_parse(text, strlen(text), &sys_profile, perr, sizeof(perr)) !=
	    DOCA_SUCCESS) {
		snprintf(sys_err, sizeof(sys_err), "built-in profile %s: %s", name, perr);
		return false;
	}
	/*
	 * Two processes naming the same built-in agree on the id whatever the library version;
	 * an alias is the same system as its canonical name (nic and cx6dx interoperate).
	 */
	sys_profile.id = odma_fnv1a64(canonical, strlen(canonical));
	snprintf(sys_profile.name, sizeof(sys_profile.name), "%s", name);
	return true;
}

static void sys_load(void)
{
	const char *name = odma_config_string("ODMA_SYSTEM");
	const char *text;

	if (name == NULL)
		name = "bf3";
	if (!sys_load_side())
		goto fail;
	text = odma_profile_builtin(name);
	if (text != NULL ? !sys_load_builtin(name, text) : !sys_load_file(name))
		goto fail;
	sys_ok = true;
	ODMA_DBG("system %s (%s) loaded: %u devices, id 0x%016llx", sys_profile.name,
	         sys_profile.label, sys_profile.num_devs, (unsigned long long)sys_profile.id);
	return;
fail:
	/* Not logged here: each rejected public call logs this reason in its own one line. */
	ODMA_DBG("system not loaded: %s", sys_err);
}

const struct odma_system *odma_system_get(void)
{
	pthread_once(&sys_once, sys_load);
	return sys_ok ? &sys_profile : NULL;
}

const struct odma_system *doca_priv_system(void)
{
	return odma_system_get();
}

bool doca_priv_system_describe(const char **name, const char **label, const char **device,
                               const char **alias_of, const char **error)
{
	const char *want = odma_config_string("ODMA_SYSTEM");
	const struct odma_profile_info *info;

	pthread_once(&sys_once, sys_load);
	if (want == NULL || want[0] == '\0')
		want = "bf3";
	info = odma_profile_info(want);
	if (name != NULL)
		*name = sys_ok ? sys_profile.name : want;
	if (label != NULL)
		*label = sys_ok ? sys_profile.label : NULL;
	if (device != NULL)
		*device = info != NULL ? info->device : NULL;
	if (alias_of != NULL)
		*alias_of = info != NULL ? info->alias_of : NULL;
	if (error != NULL)
		*error = sys_ok ? NULL : sys_err;
	return sys_ok;
}

const char *odma_system_error(void)
{
	pthread_once(&sys_once, sys_load);
	return sys_err;
}

bool odma_side_visible(enum odma_side side)
{
	pthread_once(&sys_once, sys_load);
	return sys_ok && (sys_sides & ODMA_SIDE_BIT(side)) != 0;
}
