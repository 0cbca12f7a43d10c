/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Builds NVIDIA's programs exactly as their own meson files do, against the odma found through
 * pkg-config, and reads the build log for the reason when a build fails.
 *
 * The samples checkout is never written to: it is mirrored as a tree of symbolic links, where
 * each meson.build.public (the standalone build file DOCA 3.3 installs as meson.build) takes the
 * place of the in-tree meson.build. Every build adds GCC 14's stricter defaults (implicit
 * function declarations and int/pointer mix-ups are errors) so that the result does not depend
 * on the compiler version, and -DDOCA_ARCH_DPU for a DPU build, which DOCA's installed
 * build configuration header provides on a BlueField.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat.h"

/* Flags every build gets, as GCC 14 has them by default. */
#define COMPAT_STRICT_CFLAGS                                                                       \
	"-Werror=implicit-function-declaration -Werror=implicit-int -Werror=int-conversion "       \
	"-Werror=incompatible-pointer-types"

int compat_mkdir_p(const char *path)
{
	char tmp[PATH_MAX];
	struct stat st;
	char *p;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (p = tmp + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
		return -1;
	if (stat(tmp, &st) != 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) { /* EEXIST from a file or a FIFO: nothing goes in there */
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

/* A directory being mirrored, and the one it is in: the chain back to the checkout's top. */
struct mirror_up {
	dev_t dev;
	ino_t ino;
	const struct mirror_up *up;
};

/*
 * Whether @st is a directory on the chain @a: a symbolic link back up there would be mirrored
 * again and again (two such links: without end), so it is mirrored as a link instead.
 */
static bool mirror_on_chain(const struct mirror_up *a, const struct stat *st)
{
	for (; a != NULL; a = a->up)
		if (a->dev == st->st_dev && a->ino == st->st_ino)
			return true;
	return false;
}

static int mirror_dir(const char *src, const char *dst, const struct mirror_up *up)
{
	char s[PATH_MAX], d[PATH_MAX];
	struct mirror_up here = { .up = up };
	struct dirent *e;
	struct stat st;
	DIR *dir;
	int rc = 0;

	if (compat_mkdir_p(dst) != 0 || stat(src, &st) != 0)
		return -1;
	here.dev = st.st_dev;
	here.ino = st.st_ino;
	dir = opendir(src);
	if (dir == NULL)
		return -1;
	while (rc == 0 && (e = readdir(dir)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    strcmp(e->d_name, ".git") == 0)
			continue;
		if (snprintf(s, sizeof(s), "%s/%s", src, e->d_name) >= (int)sizeof(s) ||
		    snprintf(d, sizeof(d), "%s/%s", dst, e->d_name) >= (int)sizeof(d) ||
		    stat(s, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode) && !mirror_on_chain(&here, &st))
			rc = mirror_dir(s, d, &here);
		else if (symlink(s, d) != 0 && errno != EEXIST)
			rc = -1;
	}
	closedir(dir);
	if (rc == 0 && snprintf(s, sizeof(s), "%s/meson.build.public", dst) < (int)sizeof(s) &&
	    lstat(s, &st) == 0) {
		char target[PATH_MAX];
		ssize_t n = readlink(s, target, sizeof(target) - 1);

		snprintf(d, sizeof(d), "%s/meson.build", dst);
		if (n > 0) {
			target[n] = '\0';
			unlink(d);
			rc = symlink(target, d);
		}
	}
	return rc;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

void compat_rm_rf(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0)
		nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int compat_mirror(const char *src, const char *dst)
{
	char abs[PATH_MAX];

	if (realpath(src, abs) == NULL)
		return -1;
	return mirror_dir(abs, dst, NULL);
}

/* Which DOCA library a function or header belongs to, by name (DOCA names start with the
 * library's name); the fallback is DOCA Core (doca_common). */
static const struct {
	const char *prefix;
	const char *lib;
	const char *header; /* the library's main header: odma provides the library if present */
} compat_libs[] = {
	{ "doca_comch", "doca_comch", "doca_comch.h" },
	{ "doca_sync_event", "doca_sync_event", "doca_sync_event.h" },
	{ "doca_graph", "doca_graph", "doca_graph.h" },
	{ "doca_mmap_advise", "doca_mmap_advise", "doca_mmap_advise.h" },
	{ "doca_clock", "doca_clock", "doca_clock.h" },
	{ "doca_dma", "doca_dma", "doca_dma.h" },
	{ "doca_argp", "doca_argp", "doca_argp.h" },
	{ "doca_compress", "doca_compress", "doca_compress.h" },
	/*
	 * DOCA libraries odma does not provide (yet): named so that their functions count as needs
	 */
	{ "doca_flow", "doca_flow", "doca_flow.h" },
	{ "doca_rdma", "doca_rdma", "doca_rdma.h" },
	{ "doca_eth", "doca_eth", "doca_eth_rxq.h" },
	{ "doca_dpa", "doca_dpa", "doca_dpa.h" },
	{ "doca_gpunetio", "doca_gpunetio", "doca_gpunetio.h" },
	{ "doca_", "doca_common", "doca_dev.h" },
};

static bool header_installed(const struct compat_ctx *c, const char *header)
{
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < c->include_dirs.n; i++) {
		snprintf(path, sizeof(path), "%s/%s", c->include_dirs.v[i], header);
		if (access(path, R_OK) == 0)
			return true;
	}
	return false;
}

bool compat_lib_of(const struct compat_ctx *c, const char *name, char *lib, size_t size)
{
	char hdr[256];
	size_t i, len;

	for (i = 0; i < sizeof(compat_libs) / sizeof(compat_libs[0]); i++) {
		if (strncmp(name, compat_libs[i].prefix, strlen(compat_libs[i].prefix)) != 0)
			continue;
		if (strcmp(compat_libs[i].prefix, "doca_") == 0 && strstr(name, ".h") != NULL) {
			/* a header of a library not in the table: the library is named after it */
			len = strcspn(name, ".");
			snprintf(lib, size, "%.*s", (int)len, name);
			snprintf(hdr, sizeof(hdr), "%s", name);
			return header_installed(c, hdr);
		}
		snprintf(lib, size, "%s", compat_libs[i].lib);
		return header_installed(c, compat_libs[i].header);
	}
	snprintf(lib, size, "%s", name);
	return false;
}

static void scan_includes(const struct compat_ctx *c, const char *file, struct compat_list *seen,
                          struct compat_list *missing, int depth);

/* Follows #include "x.h": next to the file, then up to two folders up, then the applications'
 * common folder (where NVIDIA's samples and applications find their shared headers). */
static void follow_local(const struct compat_ctx *c, const char *file, const char *name,
                         struct compat_list *seen, struct compat_list *missing, int depth)
{
	char dir[PATH_MAX], path[PATH_MAX], *slash;
	int up;

	snprintf(dir, sizeof(dir), "%s", file);
	for (up = 0; up < 3; up++) {
		slash = strrchr(dir, '/');
		if (slash == NULL)
			break;
		*slash = '\0';
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		if (access(path, R_OK) == 0) {
			scan_includes(c, path, seen, missing, depth + 1);
			return;
		}
	}
	snprintf(path, sizeof(path), "%s/applications/common/%s", c->mirror, name);
	if (access(path, R_OK) == 0)
		scan_includes(c, path, seen, missing, depth + 1);
}

static void scan_includes(const struct compat_ctx *c, const char *file, struct compat_list *seen,
                          struct compat_list *missing, int depth)
{
	char *text, *line, *save = NULL, name[256];

	if (depth > 4 || compat_list_has(seen, file))
		return;
	compat_list_add(seen, file);
	text = compat_read_file(file, NULL);
	if (text == NULL)
		return;
	for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		while (*line == ' ' || *line == '\t')
			line++;
		if (sscanf(line, "#include <%255[^>]>", name) == 1) {
			if (strncmp(name, "doca_", 5) == 0 && !header_installed(c, name))
				compat_list_add(missing, name);
		} else if (sscanf(line, "#include \"%255[^\"]\"", name) == 1) {
			follow_local(c, file, name, seen, missing, depth);
		}
	}
	free(text);
}

void compat_missing_headers(const struct compat_ctx *c, const struct compat_prog *p,
                            struct compat_list *headers)
{
	struct compat_list seen = { 0 };
	char dir[PATH_MAX], path[PATH_MAX];
	struct dirent *e;
	DIR *d;

	if (p->application)
		snprintf(dir, sizeof(dir), "%s/%s", p->src, p->name);
	else
		snprintf(dir, sizeof(dir), "%s", p->src);
	d = opendir(dir);
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (len < 3 || (strcmp(e->d_name + len - 2, ".c") != 0 &&
		                strcmp(e->d_name + len - 2, ".h") != 0))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		scan_includes(c, path, &seen, headers, 0);
	}
	closedir(d);
	compat_list_free(&seen);
}

/* Copies the identifier that starts at @p (after an opening quote) into @out. */
static void copy_ident(const char *p, char *out, size_t size)
{
	size_t n = 0;

	while (n + 1 < size && (p[n] == '_' || (p[n] >= 'a' && p[n] <= 'z') ||
	                        (p[n] >= 'A' && p[n] <= 'Z') || (p[n] >= '0' && p[n] <= '9')))
		n++;
	memcpy(out, p, n);
	out[n] = '\0';
}

/* The text after @marker in @line, past one quote character (ASCII or UTF-8 ‘ or `). */
static const char *after_quote(const char *line, const char *marker)
{
	const char *p = strstr(line, marker);

	if (p == NULL)
		return NULL;
	p += strlen(marker);
	if (*p == '\'' || *p == '`' || *p == '"')
		return p + 1;
	if ((unsigned char)p[0] == 0xe2 && (unsigned char)p[1] == 0x80)
		return p + 3;
	return p;
}

static void note_needs(const struct compat_ctx *c, struct compat_build *b, const char *name,
                       const char *why)
{
	char lib[128];

	if (compat_lib_of(c, name, lib, sizeof(lib))) {
		/* odma has the library but not this part of it: a gap in odma, not a missing lib */
		if (b->reason[0] == '\0')
			snprintf(b->reason, sizeof(b->reason), "odma's %s lacks %s", lib, name);
		b->result = COMPAT_BUILD_FAILED;
		return;
	}
	compat_list_add(&b->needs, lib);
	if (b->reason[0] == '\0')
		snprintf(b->reason, sizeof(b->reason), "%s", why);
}

/* Reads one build log line; sets the build's result and reason from the first cause found. */
static void scan_line(const struct compat_ctx *c, struct compat_build *b, const char *line)
{
	char name[256], why[512];
	const char *p;

	if (strstr(line, ": warning:") != NULL)
		b->warnings++;
	if ((p = after_quote(line, "implicit declaration of function ")) != NULL ||
	    (p = after_quote(line, "implicitly declaring library function ")) != NULL ||
	    (p = after_quote(line, "call to undeclared function ")) != NULL ||
	    (p = after_quote(line, "call to undeclared library function ")) != NULL) {
		copy_ident(p, name, sizeof(name));
		compat_list_add(&b->implicit, name);
		return;
	}
	if ((p = after_quote(line, "undefined reference to ")) != NULL ||
	    (p = after_quote(line, "undefined symbol: ")) != NULL) {
		copy_ident(p, name, sizeof(name));
		compat_list_add(&b->symbols, name);
		snprintf(why, sizeof(why), "undefined symbol %s", name);
		note_needs(c, b, name, why);
		return;
	}
	if ((p = after_quote(line, "fatal error: ")) != NULL &&
	    (strstr(line, "No such file") != NULL || strstr(line, "file not found") != NULL)) {
		copy_ident(p, name, sizeof(name));
		snprintf(name + strlen(name), sizeof(name) - strlen(name), ".h");
		if (strncmp(name, "doca_", 5) == 0) {
			snprintf(why, sizeof(why), "no %s in odma", name);
			note_needs(c, b, name, why);
		} else if (b->reason[0] == '\0') {
			snprintf(b->reason, sizeof(b->reason),
			         "missing header %s (not a DOCA header)", name);
		}
		return;
	}
	if ((p = strstr(line, "Dependency \"doca-")) != NULL && strstr(line, "not found") != NULL) {
		sscanf(p + strlen("Dependency \""), "%255[a-z0-9_-]", name);
		snprintf(why, sizeof(why), "pkg-config module %s not found", name);
		for (char *q = name; *q != '\0'; q++)
			if (*q == '-')
				*q = '_';
		note_needs(c, b, name, why);
		return;
	}
	if ((p = strstr(line, "Missing DOCA library ")) != NULL) {
		sscanf(p + strlen("Missing DOCA library "), "%255[a-z0-9_]", name);
		snprintf(why, sizeof(why), "the applications build skipped it: no %s", name);
		note_needs(c, b, name, why);
		return;
	}
	if (b->reason[0] == '\0' &&
	    (strstr(line, "error:") != NULL || strstr(line, "ERROR:") != NULL)) {
		/* compiler paths are relative to the build folder: show them from the checkout */
		while (strncmp(line, "../", 3) == 0)
			line += 3;
		if (strncmp(line, "src/", 4) == 0)
			line += 4;
		snprintf(b->reason, sizeof(b->reason), "%.400s", line);
	}
}

static void scan_log(const struct compat_ctx *c, struct compat_build *b)
{
	char *text = compat_read_file(b->log, NULL), *line, *save = NULL;

	if (text == NULL)
		return;
	for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
		scan_line(c, b, line);
	free(text);
}

/* The first executable named @name under @dir (meson puts it at the top or in a subdir). */
static bool find_exe(const char *dir, const char *name, char *out, size_t size, int depth)
{
	char path[PATH_MAX];
	struct dirent *e;
	struct stat st;
	bool found = false;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0) {
		snprintf(out, size, "%s", path);
		return true;
	}
	if (depth == 0 || (d = opendir(dir)) == NULL)
		return false;
	while (!found && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || strstr(e->d_name, "meson-") == e->d_name ||
		    strstr(e->d_name, ".p") != NULL)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			found = find_exe(path, name, out, size, depth - 1);
	}
	closedir(d);
	return found;
}

/* The environment of a build's meson and ninja: the odma it builds against (--dpu-arch: a DPU
 * build finds the aarch64 odma, never the native one); returns how many entries apply. */
static size_t build_env(const struct compat_ctx *c, const struct compat_build *b,
                        struct compat_env env[3])
{
	const bool cross = compat_dpu_cross_file(b->arch) != NULL;

	env[0] = (struct compat_env){ "PKG_CONFIG_PATH",
		                      cross ? compat_dpu_pkg_config_path() : c->pkg_config_path };
	env[1] = (struct compat_env){ "LC_ALL", "C" };
	env[2] = (struct compat_env){ "PATH", cross ? compat_dpu_build_path() : NULL };
	return cross ? 3 : 2; /* PATH only when cross */
}

/* One build in progress: its meson setup, then its ninja, with the arguments of its step. */
struct build_job {
	struct compat_prog *prog;
	struct compat_build *b;
	struct compat_proc proc;
	int step; /* 0: meson setup runs; 1: ninja runs */
	double end;
	bool timed_out;
	char cargs[512], enable[200];
	char *argv[12];
};

/* Starts @j's current step; -1 when its process could not start. */
static int job_start_step(struct compat_ctx *c, struct build_job *j)
{
	struct compat_build *b = j->b;
	struct compat_env env[3];
	const size_t nenv = build_env(c, b, env);
	int n = 0;

	if (j->step == 0) {
		const char *cross = compat_dpu_cross_file(b->arch);

		snprintf(j->cargs, sizeof(j->cargs), "-Dc_args=%s%s", COMPAT_STRICT_CFLAGS,
		         b->arch == COMPAT_DPU ? " -DDOCA_ARCH_DPU" : "");
		j->argv[n++] = "meson";
		j->argv[n++] = "setup";
		j->argv[n++] = b->dir;
		j->argv[n++] = j->prog->src;
		j->argv[n++] = j->cargs;
		if (cross != NULL) { /* --dpu-arch: the DPU side cross-built */
			j->argv[n++] = "--cross-file";
			j->argv[n++] = (char *)cross;
		}
		if (j->prog->application) {
			/* applications/meson.build builds only what is enabled */
			snprintf(j->enable, sizeof(j->enable), "-Denable_%s=true", j->prog->name);
			j->argv[n++] = "-Denable_all_applications=false";
			j->argv[n++] = j->enable;
		}
	} else {
		j->argv[n++] = "ninja";
		j->argv[n++] = "-C";
		j->argv[n++] = b->dir;
	}
	j->argv[n] = NULL;
	j->end = compat_now() + c->build_timeout;
	/* in the work directory: meson 1.0 (Debian 12's) runs `ninja -t restat` and
	 * `ninja -t cleandead` in the directory it is started from, and when that is a meson
	 * build directory (a user's, or odma's own under its tests) rewrites its .ninja_log;
	 * meson setups side by side raced there and broke it */
	return compat_proc_start(&j->proc, j->argv, c->work, b->log, env, nenv, false);
}

/* Sets up @b's directory and log and starts its meson setup. */
static int job_start(struct compat_ctx *c, struct build_job *j, struct compat_prog *prog,
                     struct compat_build *b)
{
	char logs[PATH_MAX];

	memset(j, 0, sizeof(*j));
	j->prog = prog;
	j->b = b;
	snprintf(b->dir, sizeof(b->dir), "%s/build/%s-%s-%s", c->work, prog->group, prog->name,
	         compat_arch_name(b->arch));
	snprintf(logs, sizeof(logs), "%s/logs", c->work);
	compat_mkdir_p(logs);
	snprintf(b->log, sizeof(b->log), "%s/build-%s-%s-%s.log", logs, prog->group, prog->name,
	         compat_arch_name(b->arch));
	unlink(b->log);
	compat_rm_rf(b->dir);
	if (c->verbose)
		fprintf(stderr, "odma compat: building %s/%s (%s)\n", prog->group, prog->name,
		        compat_arch_name(b->arch));
	return job_start_step(c, j);
}

/* The verdict of a finished build: @rc is its last step's exit status (-1: killed, or not
 * started). */
static void build_result(struct compat_ctx *c, struct compat_prog *prog, struct compat_build *b,
                         int rc, bool timed_out)
{
	char exe_name[160];

	scan_log(c, b);
	snprintf(exe_name, sizeof(exe_name), "doca_%s", prog->name);
	if (rc == 0 && b->implicit.n == 0 &&
	    find_exe(b->dir, exe_name, b->exe, sizeof(b->exe), 2)) {
		b->result = COMPAT_BUILD_OK;
		b->reason[0] = '\0';
		return;
	}
	if (b->implicit.n > 0) {
		char names[256];

		compat_list_join(&b->implicit, 4, names, sizeof(names));
		b->result = COMPAT_BUILD_FAILED;
		snprintf(b->reason, sizeof(b->reason),
		         "implicit declaration of %s (an error since GCC 14)", names);
		return;
	}
	if (b->result != COMPAT_BUILD_FAILED && b->needs.n > 0) {
		b->result = COMPAT_BUILD_NEEDS;
		return;
	}
	b->result = COMPAT_BUILD_FAILED;
	if (timed_out)
		snprintf(b->reason, sizeof(b->reason), "build timed out after %.0f s",
		         c->build_timeout);
	else if (rc == 0)
		snprintf(b->reason, sizeof(b->reason), "the build made no %s", exe_name);
	else if (b->reason[0] == '\0')
		snprintf(b->reason, sizeof(b->reason), "build failed (exit %d)", rc);
}

/*
 * Moves @j on if its step is over: to ninja after a meson setup that succeeded, else to its
 * verdict. A step past its time limit is killed (its process group with it). Returns true when
 * the build is over.
 */
static bool job_advance(struct compat_ctx *c, struct build_job *j)
{
	int rc;

	if (!compat_proc_poll(&j->proc)) {
		if (compat_now() < j->end)
			return false;
		j->timed_out = true;
		compat_proc_kill(&j->proc);
	}
	rc = j->proc.status;
	if (j->step == 0 && rc == 0) {
		j->step = 1;
		if (job_start_step(c, j) == 0)
			return false;
		rc = -1;
	}
	build_result(c, j->prog, j->b, rc, j->timed_out);
	if (c->verbose)
		fprintf(stderr, "odma compat: built %s/%s (%s): %s\n", j->prog->group,
		        j->prog->name, compat_arch_name(j->b->arch),
		        j->b->result == COMPAT_BUILD_OK ? "yes" : "no");
	return true;
}

/* Meson's record of the C compiler, e.g. "cc (gcc 12.2.0 ...)". */
static void note_compiler(struct compat_ctx *c, const struct compat_build *b)
{
	char line[512];
	const char *p;

	if (c->compiler[0] != '\0' ||
	    !compat_last_line(b->log, "C compiler for the host machine:", line, sizeof(line)))
		return;
	p = strstr(line, "machine: ");
	snprintf(c->compiler, sizeof(c->compiler), "%s", p != NULL ? p + 9 : line);
}

/* Which variants (host, DPU) of @prog are built. */
static void plan_builds(struct compat_prog *prog)
{
	unsigned arch = compat_recipe_arch(prog->recipe);

	/* --dpu-arch: an RDMA pair's passive side runs on the DPU side, so it is built for it */
	if (compat_dpu_cross_file(COMPAT_DPU) != NULL && compat_rdma_is_passive(prog->name))
		arch = COMPAT_DPU;
	prog->nbuilds = 0;
	if (arch & COMPAT_HOST)
		prog->builds[prog->nbuilds++].arch = COMPAT_HOST;
	if (arch & COMPAT_DPU)
		prog->builds[prog->nbuilds++].arch = COMPAT_DPU;
}

void compat_build_all(struct compat_ctx *c, unsigned jobs)
{
	static struct build_job job[COMPAT_MAX_JOBS]; /* one slot per build running */
	size_t total = 0, started = 0, running = 0, i, j, k, next_prog = 0, next_build = 0;

	if (jobs < 1)
		jobs = 1;
	if (jobs > COMPAT_MAX_JOBS)
		jobs = COMPAT_MAX_JOBS;
	for (i = 0; i < c->nprogs; i++) {
		plan_builds(&c->progs[i]);
		total += c->progs[i].nbuilds;
	}
	while (started < total || running > 0) {
		/* fill every free slot, in table order */
		for (k = 0; k < jobs && started < total; k++) {
			struct compat_prog *p;

			if (job[k].b != NULL)
				continue;
			while (next_build >= c->progs[next_prog].nbuilds) {
				next_prog++;
				next_build = 0;
			}
			p = &c->progs[next_prog];
			started++;
			running++;
			compat_progress(started, total, "building %s/%s...", p->group, p->name);
			/* a child that could not start is over at job_advance's first look */
			(void)job_start(c, &job[k], p, &p->builds[next_build++]);
		}
		for (k = 0; k < jobs; k++) {
			if (job[k].b == NULL || !job_advance(c, &job[k]))
				continue;
			job[k].b = NULL;
			running--;
		}
		if (running > 0)
			compat_sleep(0.02);
	}
	for (i = 0; i < c->nprogs; i++)
		for (j = 0; j < c->progs[i].nbuilds; j++)
			note_compiler(c, &c->progs[i].builds[j]);
}
