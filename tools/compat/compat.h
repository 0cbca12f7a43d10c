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
 *   compat_sched.c  schedules (timing variations every program must pass under), launchers
 *   compat_shake.c  `odma compat --shake N`: a user's own program (pair) under seeded schedules
 *   compat_proc.c   child processes with logs, stdin pipes and time limits
 *   compat_netns.c  --split-netns: host and DPU sides in two network + PID namespaces
 *   compat_minrel.c `odma compat --min-release`: a program's oldest DOCA release (the
 *                   version overlay, compat_versions_table.c from data/doca-versions.tsv)
 */
#ifndef ODMA_COMPAT_H_
#define ODMA_COMPAT_H_

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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

#define COMPAT_NSTATUS 4

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

/* Most schedules one check runs, and most environment changes one schedule makes. */
#define COMPAT_MAX_SCHEDULES 8
#define COMPAT_SCHED_ENV 4

/*
 * A schedule: one way of timing a run, as environment settings odma reads (engine, inline
 * limit, fault-injection delays). The same program must pass under every schedule; one that
 * fails under some only depends on a timing hardware happens to give it.
 */
struct compat_schedule {
	char name[32];
	char what[128]; /* what it changes, in words */
	unsigned nenv;
	struct {
		char name[32];
		char value[160];
	} env[COMPAT_SCHED_ENV];
};

/* The result of one program (or pair) under one schedule. */
struct compat_sched_result {
	bool tried;
	bool ok;
	double seconds; /* wall time of the run */
	char reason[1024];
	char repro[1536]; /* the failing process's command line with its environment */
};

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
	struct compat_sched_result sched[COMPAT_MAX_SCHEDULES]; /* per ctx->schedules[] */
	enum compat_status status;
	char reason[1024];
	struct compat_list needs;
	struct compat_list symbols;
	struct compat_list logs; /* run logs */
};

struct compat_launcher;

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
	char rundir[PATH_MAX]; /* ODMA_RUNDIR of the runs: their Comch sockets, no one else's */
	struct compat_schedule schedules[COMPAT_MAX_SCHEDULES];
	size_t nschedules;
	const struct compat_launcher *launcher; /* how processes (and host/DPU halves) start */
	bool split_netns; /* --split-netns: host and DPU sides in two namespaces (compat_netns.c) */
	struct compat_prog *progs;
	size_t nprogs;
	/* called by compat_run_all with each program's final row, in table order, as soon as
	 * the runs that decide it are over (the table streams while the check runs) */
	void (*row_done)(const struct compat_ctx *c, const struct compat_prog *p);
};

/* One line for a getopt refusal ('?' or ':'); returns 2. */
int compat_bad_option(int opt, char **argv);
/*
 * A time flag's seconds (more than 0, or 0 too when @zero_ok; at most a day) into *@out: 0, or
 * 2 after one line naming @flag and the range.
 */
int compat_seconds_arg(const char *flag, const char *s, bool zero_ok, double *out);
/* The man page's own section: how odma compat builds and runs (compat_doc.c). */
extern const char compat_man_details[];
/* The --shake mode's help as a section of odma compat's man page (malloc'd). */
char *compat_shake_help_text(void);

/* --- compat_progress.c: one line of progress on stderr, only when it is a terminal --- */

/* Progress lines on (stderr is a terminal and not --verbose, which says it in lines). */
void compat_progress_init(bool verbose);
/* "[i/n] what" in place of the previous progress line. */
void compat_progress(size_t i, size_t n, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* Erases the progress line (before other output goes to the terminal). */
void compat_progress_clear(void);

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
/*
 * Whether --json @path ('-': stdout) can be written, asked before anything runs: opens it
 * for writing without truncating it (and removes it again when it did not exist). 0, or 2
 * after one line on stderr.
 */
int compat_json_path_check(const char *path);
/*
 * Writes @text and a newline to --json @path ('-': stdout), each byte of no UTF-8 character
 * as '?'. 0, or -1 after one line.
 */
int compat_json_write(const char *path, const char *text);
bool compat_file_contains(const char *path, const char *needle);
/*
 * The last line of @path containing @needle (NULL: the last non-empty line), trimmed; a
 * control byte, or a byte of no whole UTF-8 character (one cut at @size too), is '?'. The
 * file is read a line at a time in bounded memory: a line over 4 KiB counts by its first part.
 */
bool compat_last_line(const char *path, const char *needle, char *out, size_t size);
void compat_sleep(double seconds);
double compat_now(void);

/* --- compat_sched.c --- */

/*
 * What a launcher is asked to start: one process of a run. @side is "host" or "dpu" for a
 * half of a host/DPU pair (its environment already has ODMA_SIDE), NULL for a program that
 * runs alone.
 */
struct compat_launch {
	const char *side;
	char *const *argv;
	const char *cwd;
	const char *log;
	const struct compat_env *env;
	size_t nenv;
	bool pipe_stdin;
};

/*
 * How the processes of a run are started. The local launcher starts them as children of this
 * process on this machine; another one may, for instance, put each side of a pair into a
 * network namespace of its own (wrap argv, add environment) and still start a compat_proc,
 * so that waiting, time limits and killing stay the same.
 */
struct compat_launcher {
	const char *name;
	int (*start)(const struct compat_launcher *l, const struct compat_launch *what,
	             struct compat_proc *p);
	void *data;
};

extern const struct compat_launcher compat_launcher_local;

/* --- compat_arch.c --- */

/*
 * --dpu-arch @arch (arm64): DPU builds cross-built against the aarch64 odma whose doca-*.pc are
 * in @pc_path, run under qemu-user by --split-netns's launcher. -1 with @err when it cannot be.
 */
int compat_dpu_arch_setup(struct compat_ctx *c, const char *arch, const char *pc_path, char *err,
                          size_t size);
/* The meson cross file a build of @arch uses, or NULL (a native build). */
const char *compat_dpu_cross_file(unsigned arch);
/* The aarch64 odma's pkg-config directory (--dpu-pkg-config-path). */
const char *compat_dpu_pkg_config_path(void);
/* $PATH for a DPU cross build: the same without a CUDA toolkit (no GPU on the DPU side). */
const char *compat_dpu_build_path(void);
/*
 * When @exe is an aarch64 program (and --dpu-arch is on): appends the emulator to @argv and the
 * aarch64 odma's library directory to @env, and returns true.
 */
bool compat_dpu_wrap(const char *exe, char **argv, size_t *n, struct compat_env *env, size_t *ne);

/* --- compat_netns.c --- */

/* Starts a pair's sides in the namespaces of compat_netns_setup; programs alone run here. */
extern const struct compat_launcher compat_launcher_netns;
/*
 * Creates this check's two network namespaces (host, DPU) and the veth pair joining them, and
 * the two sides' runtime directories under @c->work; registers their removal at exit and on
 * SIGINT/SIGTERM/SIGHUP. Needs root. Returns 0, or -1 with the reason in @err.
 */
int compat_netns_setup(struct compat_ctx *c, char *err, size_t size);
/* Removes what compat_netns_setup made (idempotent). */
void compat_netns_cleanup(void);
/* The ODMA_FABRIC both sides get ("ADDRESS:PORT" of the DPU side). */
const char *compat_netns_fabric(void);
/* The DPU side's address on the veth pair (an RDMA CM server listens there). */
const char *compat_netns_dpu_addr(void);

/* Every variable a schedule may set: unset in a child unless its schedule sets it. */
extern const char *const compat_sched_vars[];
extern const size_t compat_sched_nvars;

/* Looks up a built-in schedule by name; false if there is none of that name. */
bool compat_schedule_builtin(const char *name, struct compat_schedule *out);
/* The names of the built-in schedules, comma-separated (for usage and errors). */
const char *compat_schedule_names(void);
/* The names run when --schedules is not given. */
const char *compat_schedule_default_set(void);
/* Parses "default,inline0,..." (or "all") into @c->schedules; -1 (a message on stderr) if bad. */
int compat_schedules_parse(struct compat_ctx *c, const char *list);
/* The schedule drawn from @seed for --shake (engine, inline limit, workers, delays). */
void compat_schedule_from_seed(uint64_t seed, struct compat_schedule *out);
/* "ODMA_INLINE_MAX=0 ODMA_FAULTS=..." ("" for the default schedule). */
void compat_schedule_env_line(const struct compat_schedule *s, char *out, size_t size);
/*
 * A child's environment for schedule @s: @base (n entries) plus the schedule's settings, every
 * other schedule variable unset. Returns the number of entries written to @out (at most @cap).
 */
size_t compat_schedule_env(const struct compat_schedule *s, const struct compat_env *base, size_t n,
                           struct compat_env *out, size_t cap);
/* A shell-ready line: "cd DIR && NAME=VALUE ... ARGV..." (values quoted as needed). */
void compat_command_line(const char *cwd, const struct compat_env *env, size_t n,
                         char *const argv[], char *out, size_t size);

/* --- compat_shake.c --- */

/* `odma compat --shake N ...`; argv from the first argument after the options. */
int compat_shake_main(int argc, char **argv);

/* --- compat_build.c --- */

/* Mirrors @src into @dst as a tree of symbolic links, then makes each meson.build.public the
 * meson.build of its folder (DOCA 3.3 ships the standalone build files under that name). */
int compat_mirror(const char *src, const char *dst);
/* mkdir -p @path: 0, or -1 and errno (ENOTDIR: @path exists and is not a directory). */
int compat_mkdir_p(const char *path);
/* Removes @path and everything under it (symbolic links are removed, never followed). */
void compat_rm_rf(const char *path);
/* Most builds compat_build_all runs at a time (--jobs). */
#define COMPAT_MAX_JOBS 64
/* Builds every variant (host, DPU) of every program, @jobs builds at a time (each its own meson
 * setup, then ninja, each with its verdict in its struct compat_build). */
void compat_build_all(struct compat_ctx *c, unsigned jobs);
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
/* Whether @name is one of NVIDIA's applications (built through applications/meson.build). */
bool compat_recipe_application(const char *name);
/* The i-th application odma compat knows (dma_copy, secure_channel, ...), NULL past the last. */
const char *compat_application_name(size_t i);
/* Runs every program that has a recipe and built, fills in verdicts and reasons. */
void compat_run_all(struct compat_ctx *c);

/* --- compat_rdma.c: NVIDIA's DOCA RDMA sample pairs --- */

/* Whether @name is one side of an RDMA sample pair. */
bool compat_rdma_is_pair(const char *name);
/* Whether @name is the passive side (responder / receiver) of an RDMA pair: the DPU side. */
bool compat_rdma_is_passive(const char *name);
/* The other side of RDMA sample @name (NULL when it is not one). */
const char *compat_rdma_partner(const char *name);
/* Runs @prog's pair if @prog is its passive side (both rows get the verdict); true when @prog
 * is an RDMA sample (run here or by its partner), false for any other program. */
bool compat_rdma_run_prog(struct compat_ctx *c, struct compat_prog *prog);

#endif
