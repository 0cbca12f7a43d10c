/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The runtime directory: where Comch's server sockets and the fabric secret's cookie live
 * (ODMA_RUNDIR, else $XDG_RUNTIME_DIR/odma, else /tmp/odma-UID), made 0700 when missing and
 * refused when other users could replace what is in it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/config/config.h"

/* mkdir -p of @path with mode 0700 for the directories it creates. */
static bool rundir_mkdirs(char *path)
{
	for (char *p = path + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0700) != 0 && errno != EEXIST) {
			*p = '/';
			return false;
		}
		*p = '/';
	}
	return mkdir(path, 0700) == 0 || errno == EEXIST;
}

/*
 * Whether a runtime directory keeps other users away from the sockets in it: owned by this
 * user (or root), and not writable by others unless sticky (nobody can then replace another's
 * socket). In a world-writable /tmp, only a directory of our own with mode 0700 is used.
 */
static bool rundir_safe(const struct stat *st, bool shared_tmp, const char **why)
{
	if (st->st_uid != geteuid() && st->st_uid != 0) {
		*why = "it is owned by another user, who could replace the sockets in it; use a "
		       "directory of your own (ODMA_RUNDIR)";
		return false;
	}
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st->st_mode & S_ISVTX) == 0) {
		*why = "it is writable by other users without the sticky bit, so they could "
		       "replace the sockets in it; chmod go-w (or +t) it, or use a private "
		       "directory (ODMA_RUNDIR)";
		return false;
	}
	if (shared_tmp && (st->st_uid != geteuid() || (st->st_mode & 0077) != 0)) {
		*why = "it is not owned by this user with mode 0700";
		return false;
	}
	return true;
}

bool doca_priv_rundir(char *out, size_t n, const char **why)
{
	const char *env = doca_priv_config_string("ODMA_RUNDIR");
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	bool shared_tmp = false;
	int len;

	if (env != NULL)
		len = snprintf(out, n, "%s", env);
	else if (xdg != NULL && xdg[0] == '/' && stat(xdg, &st) == 0 && S_ISDIR(st.st_mode))
		len = snprintf(out, n, "%s/odma", xdg);
	else {
		len = snprintf(out, n, "/tmp/odma-%u", (unsigned int)geteuid());
		shared_tmp = true;
	}
	if (len < 0 || (size_t)len >= n) {
		*why = "the runtime directory path is too long";
		return false;
	}
	while (len > 1 && out[len - 1] == '/')
		out[--len] = '\0';
	if (!rundir_mkdirs(out)) {
		*why = strerror(errno);
		return false;
	}
	if (lstat(out, &st) != 0 || !S_ISDIR(st.st_mode)) {
		*why = "it is not a directory";
		return false;
	}
	return rundir_safe(&st, shared_tmp, why);
}
