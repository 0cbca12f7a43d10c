/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * odma-compat (`odma compat DIR`): builds NVIDIA's DOCA samples found in DIR with their own
 * meson files against an installed odma, runs them, and reports per program whether it builds,
 * whether it runs, and why not.
 *
 *   compat.c        command line, discovery, the report (table and JSON)
 *   compat_build.c  the mirrored source tree, meson/ninja builds, reading the build logs
 *   compat_run.c    the run recipes of NVIDIA's programs, host/DPU pairs, verdicts
 *   compat_proc.c   child processes with logs, stdin pipes and time limits
 */
#ifndef ODMA_COMPAT_H_
#define ODMA_COMPAT_H_

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Longest samples or work directory name accepted: every path derived from them fits PATH_MAX. */
#define COMPAT_MAX_DIR 1024

/* A growable list of distinct strings. */
struct compat_list {
	char **v;
	size_t n, cap;
};

void compat_list_add(struct compat_list *l, const char *s);
bool compat_list_has(const struct compat_list *l, const char *s);
void compat_list_merge(struct compat_list *dst, const struct compat_list *src);
/* Joins at most @max entries with ", " into @out, adding "and N more" when cut. */
void compat_list_join(const struct compat_list *l, size_t max, char *out, size_t size);
void compat_list_free(struct compat_list *l);

/* What a program is built for: the two values DOCA's build configuration knows. */
enum compat_arch {
	COMPAT_HOST = 1u << 0,
	COMPAT_DPU = 1u << 1,
};

const char *compat_arch_name(unsigned arch);

enum compat_build_result {
	COMPAT_BUILD_NOT_TRIED,
	COMPAT_BUILD_OK,
	COMPAT_BUILD_FAILED,
	COMPAT_BUILD_NEEDS, /* needs a DOCA library this odma does not provide */
};

/* Final verdict of a program, from best to worst. */
enum compat_status {
	COMPAT_PASS,
	COMPAT_NOT_RUN, /* built, but there is nothing (known) to run it with */
	COMPAT_NEEDS,
	COMPAT_FAIL,
};

const char *compat_status_name(enum compat_status s);

struct compat_build {
	unsigned arch;
	enum compat_build_result result;
	char dir[PATH_MAX];
	char log[PATH_MAX];
	char exe[PATH_MAX];
	unsigned warnings;
	char reason[512];
	struct compat_list needs;    /* DOCA libraries odma lacks */
	struct compat_list symbols;  /* undefined symbols at link time */
	struct compat_list implicit; /* functions used without a declaration */
};

struct compat_recipe;

struct compat_prog {
	char name[128];
	char group[64];     /* doca_dma, doca_common, doca_comch or applications */
	char src[PATH_MAX]; /* the meson project to build (in the mirrored tree) */
	bool application;   /* built through applications/meson.build */
	const struct compat_recipe *recipe;
	unsigned nbuilds;
	struct compat_build builds[2];
	bool run_tried;
	bool run_ok;
	enum compat_status status;
	char reason[1024];
	struct compat_list needs;
	struct compat_list symbols;
	struct compat_list logs; /* run logs */
};

/* Settings and state of one check. */
struct compat_ctx {
	const char *samples_dir;
	char release[64];
	char work[PATH_MAX];
	char mirror[PATH_MAX];
	char pkg_config_path[PATH_MAX];
	char libdir[PATH_MAX];
	char prefix[PATH_MAX]; /* the installation's prefix (its bin/ holds doca_caps) */
	char odma_version[64];
	char compiler[256];
	struct compat_list include_dirs; /* where odma's DOCA headers are */
	const char *host_pci, *dpu_pci, *rep_pci;
	double run_timeout;
	double build_timeout;
	double pair_delay;
	bool verbose;
	struct compat_prog *progs;
	size_t nprogs;
};

/* --- compat_proc.c --- */

struct compat_proc {
	pid_t pid;
	int stdin_fd; /* write end of the child's stdin, or -1 */
	int status;   /* exit status once exited; -1 when killed or not started */
	bool exited;
	bool timed_out;
	char log[PATH_MAX];
};

/* One environment change for a child: @value NULL unsets @name. */
struct compat_env {
	const char *name;
	const char *value;
};

/*
 * Starts argv[0] (looked up in PATH) in directory @cwd (NULL: ours) with its stdout and stderr
 * appended to @log, its stdin a pipe when @pipe_stdin (else /dev/null), in its own process
 * group, with @env applied (n entries). Returns 0 or -1 (errno set).
 */
int compat_proc_start(struct compat_proc *p, char *const argv[], const char *cwd, const char *log,
                      const struct compat_env *env, size_t n, bool pipe_stdin);
/* Waits up to @timeout seconds; then kills the whole process group. True if it exited. */
bool compat_proc_wait(struct compat_proc *p, double timeout);
/* True once the child has exited (reaps it); never blocks. */
bool compat_proc_poll(struct compat_proc *p);
/* Kills the child's process group and reaps it. */
void compat_proc_kill(struct compat_proc *p);
/* Runs argv to completion (see compat_proc_start); returns the exit status, -1 if it could not
 * start or was killed at @timeout. */
int compat_proc_run(char *const argv[], const char *cwd, const char *log,
                    const struct compat_env *env, size_t n, double timeout, bool *timed_out);
/* Runs argv and returns its stdout (first line, trimmed) in @out; 0 on exit status 0. */
int compat_capture(char *const argv[], const struct compat_env *env, size_t n, char *out,
                   size_t size);
/* Reads a whole file (NUL-terminated); NULL if it cannot. */
char *compat_read_file(const char *path, size_t *len);
bool compat_file_contains(const char *path, const char *needle);
/* The last line of @path containing @needle (NULL: the last non-empty line), trimmed. */
bool compat_last_line(const char *path, const char *needle, char *out, size_t size);
void compat_sleep(double seconds);
double compat_now(void);

/* --- compat_build.c --- */

/* Mirrors @src into @dst as a tree of symbolic links, then makes each meson.build.public the
 * meson.build of its folder (DOCA 3.3 ships the standalone build files under that name). */
int compat_mirror(const char *src, const char *dst);
int compat_mkdir_p(const char *path);
/* Removes @path and everything under it (symbolic links are removed, never followed). */
void compat_rm_rf(const char *path);
/* Builds every variant of @prog. */
void compat_build_prog(struct compat_ctx *c, struct compat_prog *prog);
/* Finds the library a DOCA function or header name belongs to; true when odma provides it. */
bool compat_lib_of(const struct compat_ctx *c, const char *name, char *lib, size_t size);

/* The DOCA headers a program's sources include (directly or through its local headers) that
 * odma does not install: what it will need once the first missing piece is there. */
void compat_missing_headers(const struct compat_ctx *c, const struct compat_prog *p,
                            struct compat_list *headers);

/* --- compat_run.c --- */

const struct compat_recipe *compat_recipe_find(const char *name);
/* The program that runs together with @name (a host/DPU pair), or NULL. */
const char *compat_recipe_partner(const char *name);
/* Builds a program's variants the recipe asks for (COMPAT_HOST when there is no recipe). */
unsigned compat_recipe_arch(const struct compat_recipe *r);
/* Runs every program that has a recipe and built, fills in verdicts and reasons. */
void compat_run_all(struct compat_ctx *c);

/* --- compat_rdma.c: NVIDIA's DOCA RDMA sample pairs --- */

/* Whether @name is one side of an RDMA sample pair. */
bool compat_rdma_is_pair(const char *name);
/* Runs @prog's pair if @prog is its passive side (both rows get the verdict); true when @prog
 * is an RDMA sample (run here or by its partner), false for any other program. */
bool compat_rdma_run_prog(struct compat_ctx *c, struct compat_prog *prog);

#endif
