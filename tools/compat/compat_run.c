/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * How each of NVIDIA's programs is run, and what counts as success.
 *
 * A program passes when every process of its run exits 0 within the time limit and, for a
 * sample, prints "Sample finished successfully" (the line NVIDIA's samples end with). Host and
 * DPU sides run as two processes with ODMA_SIDE=host / ODMA_SIDE=dpu, each seeing only its
 * side's devices, at the PCI addresses of odma's default (BlueField-3-like) profile, which are
 * the addresses NVIDIA's samples default to. The arguments are the ones each sample documents
 * in its README and flag descriptions.
 *
 * Every recipe runs once per schedule (compat_sched.c); a program passes only if it passes under
 * every one. All processes of one run share one deadline: a hang costs one time limit, and the
 * whole process group of every process still running then is killed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "compat.h"
#include "odma_pci.h"

#define SUCCESS_LINE "Sample finished successfully"
/* What dma_copy_host sends: every printable ASCII character kind, to catch a mangled copy. */
#define COMPAT_TEXT                                                                                \
	"odma compat: host to DPU, intact? 0123456789 ABCXYZ abcxyz ~!@#$%^&*()_+{}|:<>?"
/* The DMA limit BlueField-3 reports (and odma's default profile): used when doca_caps says none */
#define APP_DEFAULT_MAX_BUF (2u * 1024 * 1024)
/* How the DMA Copy application's DPU side refuses a file over the device's limit */
#define APP_TOO_BIG                                                                                \
	"DMA device maximum allowed file size in bytes is %" PRIu64                                \
	", received file size is %" PRIu64 " bytes"

enum compat_flow {
	FLOW_SINGLE,        /* one process */
	FLOW_FILES,         /* dma_copy_host/dpu: export through two files, host waits for Enter */
	FLOW_SERVER_CLIENT, /* DPU side (Comch server) first, then the host side (client) */
	FLOW_APP_COPY,      /* DMA Copy application: as server/client, then compare the files */
	FLOW_SECURE_CHAN,   /* Secure Channel application: messages both ways, counts checked */
	FLOW_PARTNER,       /* runs as the second program of another program's recipe */
};

#define MAX_ARGS 12

struct compat_recipe {
	const char *name;
	unsigned arch; /* builds wanted */
	enum compat_flow flow;
	const char *partner; /* second program of a two-program pair (NULL: this one's builds) */
	bool success_line;   /* expects SUCCESS_LINE from every process */
	const char *first[MAX_ARGS];  /* arguments of the first process */
	const char *second[MAX_ARGS]; /* arguments of the second process */
};

/*
 * Placeholders: @HOST@ @DPU@ @REP@ (PCI addresses), @TEXT@, @DESC@ @BUF@ (dma_copy files),
 * @DPUFILE@ @HOSTFILE@ (the DMA Copy application's -f on each side), @HOSTSIZE@ @HOSTCOUNT@
 * @DPUSIZE@ @DPUCOUNT@ (the Secure Channel application's -s and -n on each side).
 */
static const struct compat_recipe recipes[] = {
	{ "dma_local_copy", COMPAT_DPU, FLOW_SINGLE, NULL, true, { "-p", "@DPU@" }, { NULL } },
	{ "dma_copy_host",
	  COMPAT_HOST,
	  FLOW_FILES,
	  "dma_copy_dpu",
	  true,
	  { "-p", "@HOST@", "-t", "@TEXT@", "-d", "@DESC@", "-b", "@BUF@" },
	  { "-p", "@DPU@", "-d", "@DESC@", "-b", "@BUF@" } },
	{ "dma_copy_dpu", COMPAT_DPU, FLOW_PARTNER, "dma_copy_host", true, { NULL }, { NULL } },
	{ "pe_polling", COMPAT_HOST, FLOW_SINGLE, NULL, true, { NULL }, { NULL } },
	{ "pe_async_stop", COMPAT_HOST, FLOW_SINGLE, NULL, true, { NULL }, { NULL } },
	{ "pe_event", COMPAT_HOST, FLOW_SINGLE, NULL, true, { NULL }, { NULL } },
	{ "pe_multi_context", COMPAT_HOST, FLOW_SINGLE, NULL, true, { NULL }, { NULL } },
	{ "pe_reactive", COMPAT_HOST, FLOW_SINGLE, NULL, true, { NULL }, { NULL } },
	{ "pe_single_task_comp_cb", COMPAT_HOST, FLOW_SINGLE, NULL, true, { NULL }, { NULL } },
	{ "pe_task_error", COMPAT_HOST, FLOW_SINGLE, NULL, true, { NULL }, { NULL } },
	{ "pe_task_resubmit", COMPAT_HOST, FLOW_SINGLE, NULL, true, { NULL }, { NULL } },
	{ "pe_task_try_submit", COMPAT_HOST, FLOW_SINGLE, NULL, true, { NULL }, { NULL } },
	{ "graph", COMPAT_HOST, FLOW_SINGLE, NULL, true, { NULL }, { NULL } },
	/* cache invalidation is a BlueField Arm (DPU mode) operation: only DPU devices have it */
	{ "cache_invalidate", COMPAT_DPU, FLOW_SINGLE, NULL, true, { NULL }, { NULL } },
	/* -c is mandatory; a cross timestamp of the host and NIC real-time clocks */
	{ "clock_cross_timestamp",
	  COMPAT_HOST,
	  FLOW_SINGLE,
	  NULL,
	  true,
	  { "-p", "@HOST@", "-c", "host_rt", "-n", "nic_rt" },
	  { NULL } },
	/*
	 * One side exports (local_pci), the other imports (remote_pci); both directions: the DPU
	 * build serves (Comch server), the host build connects.
	 */
	{ "sync_event_local_pci",
	  COMPAT_HOST | COMPAT_DPU,
	  FLOW_SERVER_CLIENT,
	  "sync_event_remote_pci",
	  true,
	  { "-d", "@DPU@", "-r", "@REP@" },
	  { "-d", "@HOST@" } },
	{ "sync_event_remote_pci",
	  COMPAT_HOST | COMPAT_DPU,
	  FLOW_SERVER_CLIENT,
	  "sync_event_local_pci",
	  true,
	  { "-d", "@DPU@", "-r", "@REP@" },
	  { "-d", "@HOST@" } },
	{ "comch_ctrl_path_server",
	  COMPAT_DPU,
	  FLOW_SERVER_CLIENT,
	  "comch_ctrl_path_client",
	  true,
	  { "-p", "@DPU@", "-r", "@REP@" },
	  { "-p", "@HOST@" } },
	{ "comch_ctrl_path_client",
	  COMPAT_HOST,
	  FLOW_PARTNER,
	  "comch_ctrl_path_server",
	  true,
	  { NULL },
	  { NULL } },
	{ "comch_data_path_high_speed_server",
	  COMPAT_DPU,
	  FLOW_SERVER_CLIENT,
	  "comch_data_path_high_speed_client",
	  true,
	  { "-p", "@DPU@", "-r", "@REP@" },
	  { "-p", "@HOST@" } },
	{ "comch_data_path_high_speed_client",
	  COMPAT_HOST,
	  FLOW_PARTNER,
	  "comch_data_path_high_speed_server",
	  true,
	  { NULL },
	  { NULL } },
	/*
	 * The application: the side whose -f file exists sends it, the other side writes it;
	 * run once per case of app_cases (both directions, and a file over the DMA limit).
	 */
	{ "dma_copy",
	  COMPAT_HOST | COMPAT_DPU,
	  FLOW_APP_COPY,
	  NULL,
	  false,
	  { "-p", "@DPU@", "-r", "@REP@", "-f", "@DPUFILE@" },
	  { "-p", "@HOST@", "-f", "@HOSTFILE@" } },
	/*
	 * The application: the DPU side serves (Comch server), the host side connects; each sends
	 * its own -n messages of its own -s bytes over a Comch producer, and receives the other's
	 * on a consumer; run once per case of sc_cases.
	 */
	{ "secure_channel",
	  COMPAT_HOST | COMPAT_DPU,
	  FLOW_SECURE_CHAN,
	  NULL,
	  false,
	  { "-p", "@DPU@", "-r", "@REP@", "-s", "@DPUSIZE@", "-n", "@DPUCOUNT@" },
	  { "-p", "@HOST@", "-s", "@HOSTSIZE@", "-n", "@HOSTCOUNT@" } },
};

const struct compat_recipe *compat_recipe_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(recipes) / sizeof(recipes[0]); i++)
		if (strcmp(recipes[i].name, name) == 0)
			return &recipes[i];
	return NULL;
}

const char *compat_recipe_partner(const char *name)
{
	const struct compat_recipe *r = compat_recipe_find(name);

	return r != NULL ? r->partner : NULL;
}

unsigned compat_recipe_arch(const struct compat_recipe *r)
{
	return r != NULL ? r->arch : COMPAT_HOST;
}

/* NVIDIA's applications are built through applications/meson.build, one enabled at a time. */
static bool is_application(const struct compat_recipe *r)
{
	return r->flow == FLOW_APP_COPY || r->flow == FLOW_SECURE_CHAN;
}

bool compat_recipe_application(const char *name)
{
	const struct compat_recipe *r = compat_recipe_find(name);

	return r != NULL && is_application(r);
}

const char *compat_application_name(size_t i)
{
	size_t k, n = 0;

	for (k = 0; k < sizeof(recipes) / sizeof(recipes[0]); k++)
		if (is_application(&recipes[k]) && n++ == i)
			return recipes[k].name;
	return NULL;
}

/* One process of a run: which program's build, on which side, with which arguments. */
struct run_side {
	struct compat_prog *prog;
	const struct compat_build *build;
	const char *const *args;
	const char *side; /* "host" or "dpu" */
	struct compat_proc proc;
	char log[PATH_MAX];
	char cmd[1536]; /* how it was started, as a shell line */
};

struct run {
	struct compat_ctx *c;
	char dir[PATH_MAX];
	char desc[PATH_MAX], buf[PATH_MAX], send[PATH_MAX], recv[PATH_MAX];
	const char *dpu_file, *host_file; /* send or recv, as the DMA Copy case says */
	char host_size[16], host_count[16], dpu_size[16], dpu_count[16]; /* Secure Channel */
	char tag[16]; /* the case number in log names; empty: none */
	const struct compat_schedule *sched;
	double deadline; /* compat_now() by which every process of the current run must end */
	char reason[1024];
	char repro[1536];
};

static const char *subst(const struct run *r, const char *a)
{
	if (strcmp(a, "@HOST@") == 0)
		return r->c->host_pci;
	if (strcmp(a, "@DPU@") == 0)
		return r->c->dpu_pci;
	if (strcmp(a, "@REP@") == 0)
		return r->c->rep_pci;
	if (strcmp(a, "@TEXT@") == 0)
		return COMPAT_TEXT;
	if (strcmp(a, "@DESC@") == 0)
		return r->desc;
	if (strcmp(a, "@BUF@") == 0)
		return r->buf;
	if (strcmp(a, "@DPUFILE@") == 0)
		return r->dpu_file;
	if (strcmp(a, "@HOSTFILE@") == 0)
		return r->host_file;
	if (strcmp(a, "@HOSTSIZE@") == 0)
		return r->host_size;
	if (strcmp(a, "@HOSTCOUNT@") == 0)
		return r->host_count;
	if (strcmp(a, "@DPUSIZE@") == 0)
		return r->dpu_size;
	if (strcmp(a, "@DPUCOUNT@") == 0)
		return r->dpu_count;
	return a;
}

/*
 * The shell line that starts @argv as the launcher will: an aarch64 DPU program (--dpu-arch)
 * under its emulator with the aarch64 odma's libraries, so the reproduce line runs as is.
 */
static void side_command_line(const struct run *r, const struct compat_env *env, size_t nenv,
                              char **argv, char *out, size_t size)
{
	char *shown[MAX_ARGS + 4];
	struct compat_env shown_env[10];
	size_t n = 0, ne = nenv;

	memcpy(shown_env, env, nenv * sizeof(env[0]));
	(void)compat_dpu_wrap(argv[0], shown, &n, shown_env, &ne);
	for (size_t i = 0; argv[i] != NULL && n < MAX_ARGS + 3; i++)
		shown[n++] = argv[i];
	shown[n] = NULL;
	compat_command_line(r->dir, shown_env, ne, shown, out, size);
}

/* Starts one process through the check's launcher, in the run's schedule. */
static int side_start(struct run *r, struct run_side *s, bool pipe_stdin, bool pair)
{
	char *argv[MAX_ARGS + 2];
	int n = 0, i;
	const struct compat_env base[] = {
		{ "ODMA_SIDE", s->side },
		{ "LD_LIBRARY_PATH", r->c->libdir },
		{ "ODMA_RUNDIR", r->c->rundir[0] != '\0' ? r->c->rundir : NULL },
	};
	struct compat_env env[8];
	struct compat_launch w = { 0 };
	size_t nenv = compat_schedule_env(r->sched, base, r->c->rundir[0] != '\0' ? 3 : 2, env, 8);

	argv[n++] = (char *)s->build->exe;
	for (i = 0; i < MAX_ARGS && s->args[i] != NULL; i++)
		argv[n++] = (char *)subst(r, s->args[i]);
	argv[n] = NULL;
	snprintf(s->log, sizeof(s->log), "%s/run-%s%s-%s.log", r->dir, s->prog->name, r->tag,
	         s->side);
	unlink(s->log);
	compat_list_add(&s->prog->logs, s->log);
	side_command_line(r, env, nenv, argv, s->cmd, sizeof(s->cmd));
	w = (struct compat_launch){ .side = pair ? s->side : NULL,
		                    .argv = argv,
		                    .cwd = r->dir,
		                    .log = s->log,
		                    .env = env,
		                    .nenv = nenv,
		                    .pipe_stdin = pipe_stdin };
	return r->c->launcher->start(r->c->launcher, &w, &s->proc);
}

/* Waits for a process until the run's deadline (then kills its process group). */
static void side_wait(struct run *r, struct run_side *s)
{
	double left = r->deadline - compat_now();

	compat_proc_wait(&s->proc, left > 0 ? left : 0.001);
}

/* Why a finished process does not count as a success; empty string if it does. */
static void side_verdict(const struct run *r, const struct run_side *s, bool success_line,
                         char *why, size_t size)
{
	char last[300];

	why[0] = '\0';
	if (s->proc.timed_out) {
		compat_last_line(s->log, NULL, last, sizeof(last));
		snprintf(why, size, "%s (%s) did not finish within %g s (killed)%s%.200s",
		         s->prog->name, s->side, r->c->run_timeout,
		         last[0] ? "; its last line: " : "", last);
		return;
	}
	if (s->proc.status == 0 && (!success_line || compat_file_contains(s->log, SUCCESS_LINE)))
		return;
	if (!compat_last_line(s->log, "[ERROR]", last, sizeof(last)))
		compat_last_line(s->log, NULL, last, sizeof(last));
	if (s->proc.status == 0)
		snprintf(why, size, "%s (%s) exited 0 without \"" SUCCESS_LINE "\"", s->prog->name,
		         s->side);
	else if (s->proc.status < 0)
		snprintf(why, size, "%s (%s) was killed: %.200s", s->prog->name, s->side, last);
	else
		snprintf(why, size, "%s (%s) exited %d: %.200s", s->prog->name, s->side,
		         s->proc.status, last);
}

static bool files_ready(const struct run *r)
{
	struct stat a, b;

	return stat(r->desc, &a) == 0 && a.st_size > 0 && stat(r->buf, &b) == 0 && b.st_size > 0;
}

/* Waits until the first process is ready for the second (or has ended). */
static bool wait_ready(struct run *r, struct run_side *first, enum compat_flow flow)
{
	double end = flow == FLOW_FILES ? r->deadline : compat_now() + r->c->pair_delay;

	while (compat_now() < end) {
		if (compat_proc_poll(&first->proc))
			return false;
		if (flow == FLOW_FILES && files_ready(r)) {
			compat_sleep(0.1);
			return true;
		}
		compat_sleep(0.02);
	}
	return flow != FLOW_FILES;
}

static int write_pattern(const char *path, size_t len)
{
	FILE *f = fopen(path, "wb");
	size_t i;

	if (f == NULL)
		return -1;
	for (i = 0; i < len; i++)
		fputc((int)((i * 131u + (i >> 9)) & 0xff), f);
	return fclose(f);
}

static bool same_file(const char *a, const char *b)
{
	size_t la, lb;
	char *x = compat_read_file(a, &la), *y = compat_read_file(b, &lb);
	bool same = x != NULL && y != NULL && la == lb && memcmp(x, y, la) == 0;

	free(x);
	free(y);
	return same;
}

/*
 * Starts the recipe's processes and waits for them to end (each within the time limit, its
 * process group killed otherwise); false, with r->reason, when they could not all start.
 */
static bool run_procs(struct run *r, const struct compat_recipe *rc, struct run_side *s, int n)
{
	char why[700];

	r->deadline = compat_now() + r->c->run_timeout;
	s[0].cmd[0] = s[1].cmd[0] = '\0';
	if (side_start(r, &s[0], rc->flow == FLOW_FILES, n == 2) != 0) {
		snprintf(r->reason, sizeof(r->reason), "cannot start %s: %s", s[0].build->exe,
		         strerror(errno));
		return false;
	}
	if (n == 2) {
		if (!wait_ready(r, &s[0], rc->flow)) {
			compat_proc_kill(&s[0].proc);
			side_verdict(r, &s[0], rc->success_line, why, sizeof(why));
			snprintf(r->reason, sizeof(r->reason), "%s before the %s side started",
			         why[0] != '\0' ? why : "the first side ended", s[1].side);
			return false;
		}
		if (side_start(r, &s[1], false, true) != 0) {
			compat_proc_kill(&s[0].proc);
			snprintf(r->reason, sizeof(r->reason), "cannot start %s: %s",
			         s[1].build->exe, strerror(errno));
			return false;
		}
		side_wait(r, &s[1]);
		if (rc->flow == FLOW_FILES && s[0].proc.stdin_fd >= 0) {
			/* "press Enter once the DPU is done" */
			if (write(s[0].proc.stdin_fd, "\n", 1) != 1)
				(void)0;
			close(s[0].proc.stdin_fd);
			s[0].proc.stdin_fd = -1;
		}
	}
	side_wait(r, &s[0]);
	return true;
}

/* How to run the failed run again by hand: the first process, then the second after the head
 * start it had. */
static void note_repro(struct run *r, const struct run_side *s, int n)
{
	if (n == 2 && s[1].cmd[0] != '\0')
		snprintf(r->repro, sizeof(r->repro), "(%s) & sleep %g; %s", s[0].cmd,
		         r->c->pair_delay, s[1].cmd);
	else
		snprintf(r->repro, sizeof(r->repro), "%s", s[0].cmd);
}

/* Whether every process succeeded; r->reason says which did not. */
static bool sides_ok(struct run *r, const struct compat_recipe *rc, struct run_side *s, int n)
{
	char why[700];
	int i;

	for (i = n - 1; i >= 0; i--) {
		side_verdict(r, &s[i], rc->success_line, why, sizeof(why));
		if (why[0] != '\0') {
			snprintf(r->reason, sizeof(r->reason), "%s", why);
			return false;
		}
	}
	return true;
}

/* The DMA Copy application's cases: a file of one of these sizes, sent from one side. */
enum app_size {
	APP_64K,       /* 64 KiB */
	APP_MAX_LESS7, /* max_buf_size - 7: near the limit, not a multiple of anything */
	APP_MAX_PLUS1, /* max_buf_size + 1: refused by the DPU side */
};

struct app_case {
	enum app_size size;
	bool from_host; /* the host has the file (host to DPU); else the DPU has it */
};

static const struct app_case app_cases[] = {
	{ APP_64K, true },        { APP_64K, false },      { APP_MAX_LESS7, true },
	{ APP_MAX_LESS7, false }, { APP_MAX_PLUS1, true },
};

#define N_APP_CASES (sizeof(app_cases) / sizeof(app_cases[0]))

static uint64_t app_case_bytes(const struct app_case *k, uint64_t max)
{
	if (k->size == APP_64K)
		return 64 * 1024;
	return k->size == APP_MAX_LESS7 ? max - 7 : max + 1;
}

/* "2 MiB", "64 KiB" or "1000 B" */
static void size_name(uint64_t n, char *out, size_t size)
{
	if (n >= 1024 * 1024 && n % (1024 * 1024) == 0)
		snprintf(out, size, "%" PRIu64 " MiB", n / (1024 * 1024));
	else if (n >= 1024 && n % 1024 == 0)
		snprintf(out, size, "%" PRIu64 " KiB", n / 1024);
	else
		snprintf(out, size, "%" PRIu64 " B", n);
}

/* "64 KiB h->d", "2 MiB-7 d->h", "2 MiB+1 refused" */
static void app_case_name(const struct app_case *k, uint64_t max, char *out, size_t size)
{
	const char *dir = k->from_host ? "h->d" : "d->h";
	char m[40];

	if (k->size == APP_64K) {
		snprintf(out, size, "64 KiB %s", dir);
		return;
	}
	size_name(max, m, sizeof(m));
	if (k->size == APP_MAX_LESS7)
		snprintf(out, size, "%s-7 %s", m, dir);
	else
		snprintf(out, size, "%s+1 refused", m);
}

/*
 * The DMA limit of the DPU device, as the installation's doca_caps reports it (what the
 * application asks through doca_dma_cap_task_memcpy_get_max_buf_size); the BlueField-3 value
 * when it cannot say.
 */
static uint64_t app_max_buf(const struct compat_ctx *c, const char *dir)
{
	char exe[PATH_MAX], log[PATH_MAX];
	char *argv[] = { exe, "--json", NULL };
	const struct compat_env env[] = {
		{ "ODMA_SIDE", "dpu" },
		{ "LD_LIBRARY_PATH", c->libdir },
	};
	json_object *root, *devs, *d, *v;
	uint64_t max = APP_DEFAULT_MAX_BUF;
	char *text, *json;
	size_t i;

	snprintf(exe, sizeof(exe), "%s/bin/doca_caps", c->prefix);
	snprintf(log, sizeof(log), "%s/doca_caps.json", dir);
	if (c->prefix[0] == '\0' || access(exe, X_OK) != 0 ||
	    compat_proc_run(argv, dir, log, env, 2, 30.0, NULL) != 0)
		return max;
	text = compat_read_file(log, NULL);
	json = text != NULL ? strchr(text, '{') : NULL;
	root = json != NULL ? json_tokener_parse(json) : NULL;
	if (root != NULL && json_object_object_get_ex(root, "devices", &devs) &&
	    json_object_is_type(devs, json_type_array)) {
		for (i = 0; i < json_object_array_length(devs); i++) {
			d = json_object_array_get_idx(devs, i);
			if (!json_object_object_get_ex(d, "pci_addr", &v) ||
			    !odma_pci_same(json_object_get_string(v), c->dpu_pci))
				continue;
			if (json_object_object_get_ex(d, "capabilities", &v) &&
			    json_object_object_get_ex(v, "doca_dma", &v) &&
			    json_object_object_get_ex(v, "max_buf_size", &v) &&
			    json_object_get_int64(v) > 8)
				max = (uint64_t)json_object_get_int64(v);
			break;
		}
	}
	json_object_put(root);
	free(text);
	return max;
}

/* A file over the limit: both sides end on their own, the DPU side refuses it, nothing written. */
static bool app_refused_ok(struct run *r, struct run_side *s, uint64_t max, uint64_t bytes,
                           char *why, size_t size)
{
	char msg[200];
	int i;

	for (i = 1; i >= 0; i--) {
		if (s[i].proc.timed_out || s[i].proc.status < 0) {
			side_verdict(r, &s[i], false, why, size);
			return false;
		}
	}
	snprintf(msg, sizeof(msg), APP_TOO_BIG, max, bytes);
	if (!compat_file_contains(s[0].log, msg)) {
		snprintf(why, size, "the DPU side did not refuse it with \"%s\"", msg);
		return false;
	}
	if (s[1].proc.status == 0) {
		snprintf(why, size, "the host side exited 0 though the DPU side refused the file");
		return false;
	}
	if (access(r->recv, F_OK) == 0) {
		snprintf(why, size, "the refused file was written to %s", r->recv);
		return false;
	}
	return true;
}

/* One case of the DMA Copy application; @why says how it failed. */
static bool app_case_run(struct run *r, const struct compat_recipe *rc, struct run_side *s,
                         const struct app_case *k, uint64_t max, char *why, size_t size)
{
	uint64_t bytes = app_case_bytes(k, max);

	why[0] = '\0';
	unlink(r->recv);
	if (write_pattern(r->send, bytes) != 0) {
		snprintf(why, size, "cannot write %s: %s", r->send, strerror(errno));
		return false;
	}
	r->host_file = k->from_host ? r->send : r->recv;
	r->dpu_file = k->from_host ? r->recv : r->send;
	memset(&s[0].proc, 0, sizeof(s[0].proc));
	memset(&s[1].proc, 0, sizeof(s[1].proc));
	if (!run_procs(r, rc, s, 2)) {
		snprintf(why, size, "%s", r->reason);
		return false;
	}
	note_repro(r, s, 2);
	if (k->size == APP_MAX_PLUS1)
		return app_refused_ok(r, s, max, bytes, why, size);
	if (!sides_ok(r, rc, s, 2)) {
		snprintf(why, size, "%s", r->reason);
		return false;
	}
	if (!same_file(r->send, r->recv)) {
		snprintf(why, size,
		         "the file the %s side wrote differs from the one the %s side sent",
		         k->from_host ? "DPU" : "host", k->from_host ? "host" : "DPU");
		return false;
	}
	return true;
}

/* Every case of the DMA Copy application, in order, up to the first that fails. */
static bool run_app_copy(struct run *r, const struct compat_recipe *rc, struct run_side *s)
{
	uint64_t max = app_max_buf(r->c, r->dir);
	char name[64], why[800], done[512] = "";
	size_t i, len = 0;

	for (i = 0; i < N_APP_CASES; i++) {
		app_case_name(&app_cases[i], max, name, sizeof(name));
		snprintf(r->tag, sizeof(r->tag), "-%zu", i + 1);
		if (!app_case_run(r, rc, s, &app_cases[i], max, why, sizeof(why))) {
			snprintf(r->reason, sizeof(r->reason),
			         "%zu/%zu cases passed; %s failed: %.700s", i, N_APP_CASES, name,
			         why);
			return false;
		}
		len += (size_t)snprintf(done + len, sizeof(done) - len, "%s%s", i > 0 ? ", " : "",
		                        name);
		if (len >= sizeof(done))
			len = sizeof(done) - 1;
	}
	snprintf(r->reason, sizeof(r->reason), "%zu/%zu cases: %s", N_APP_CASES, N_APP_CASES, done);
	return true;
}

/*
 * The Secure Channel application's cases: each side sends its own count of messages of its own
 * size (-s, -n) and must receive the other side's. The last case sends more messages than the
 * application's 1024 receive tasks, so its post-recv tasks are resubmitted, and the largest
 * message the application accepts (65535 bytes).
 */
struct sc_case {
	unsigned host_size, host_count; /* what the host side sends */
	unsigned dpu_size, dpu_count;   /* what the DPU side sends */
};

static const struct sc_case sc_cases[] = {
	{ 1, 1, 1, 1 },
	{ 4096, 100, 256, 50 },
	{ 65535, 64, 512, 3000 },
};

#define N_SC_CASES (sizeof(sc_cases) / sizeof(sc_cases[0]))

/* What the application logs at the end of a successful run (the time after it varies). */
#define SC_SENT "Producer sent %u messages in approximately"
#define SC_RECEIVED "Consumer received %u messages in approximately"

/* Whether @s logged that it sent @sent and received @received messages; @why if not. */
static bool sc_counts_ok(const struct run_side *s, unsigned sent, unsigned received, char *why,
                         size_t size)
{
	char line[160], got[300];
	int k;

	for (k = 0; k < 2; k++) {
		snprintf(line, sizeof(line), k == 0 ? SC_SENT : SC_RECEIVED,
		         k == 0 ? sent : received);
		if (compat_file_contains(s->log, line))
			continue;
		if (!compat_last_line(s->log, k == 0 ? "Producer sent" : "Consumer received", got,
		                      sizeof(got)))
			snprintf(got, sizeof(got), "no such line");
		snprintf(why, size, "the %s side did not log \"%.*s\" (it logged: %.200s)", s->side,
		         (int)(strlen(line) - strlen(" in approximately")), line, got);
		return false;
	}
	return true;
}

static bool sc_case_run(struct run *r, const struct compat_recipe *rc, struct run_side *s,
                        const struct sc_case *k, char *why, size_t size)
{
	why[0] = '\0';
	snprintf(r->host_size, sizeof(r->host_size), "%u", k->host_size);
	snprintf(r->host_count, sizeof(r->host_count), "%u", k->host_count);
	snprintf(r->dpu_size, sizeof(r->dpu_size), "%u", k->dpu_size);
	snprintf(r->dpu_count, sizeof(r->dpu_count), "%u", k->dpu_count);
	memset(&s[0].proc, 0, sizeof(s[0].proc));
	memset(&s[1].proc, 0, sizeof(s[1].proc));
	if (!run_procs(r, rc, s, 2)) {
		snprintf(why, size, "%s", r->reason);
		return false;
	}
	note_repro(r, s, 2);
	if (!sides_ok(r, rc, s, 2)) {
		snprintf(why, size, "%s", r->reason);
		return false;
	}
	/* s[0] is the DPU side, s[1] the host side */
	return sc_counts_ok(&s[1], k->host_count, k->dpu_count, why, size) &&
	       sc_counts_ok(&s[0], k->dpu_count, k->host_count, why, size);
}

/* "4096 B x100 h->d + 256 B x50 d->h" */
static void sc_case_name(const struct sc_case *k, char *out, size_t size)
{
	snprintf(out, size, "%u B x%u h->d + %u B x%u d->h", k->host_size, k->host_count,
	         k->dpu_size, k->dpu_count);
}

/* Every case of the Secure Channel application, in order, up to the first that fails. */
static bool run_secure_channel(struct run *r, const struct compat_recipe *rc, struct run_side *s)
{
	char name[96], why[800];
	size_t i;

	for (i = 0; i < N_SC_CASES; i++) {
		sc_case_name(&sc_cases[i], name, sizeof(name));
		snprintf(r->tag, sizeof(r->tag), "-%zu", i + 1);
		if (!sc_case_run(r, rc, s, &sc_cases[i], why, sizeof(why))) {
			snprintf(r->reason, sizeof(r->reason),
			         "%zu/%zu cases passed; %s failed: %.700s", i, N_SC_CASES, name,
			         why);
			return false;
		}
	}
	snprintf(r->reason, sizeof(r->reason),
	         "%zu/%zu cases (1 B x1 each way up to 64 KiB-1 B, 3000 messages), "
	         "both sides' counts right",
	         N_SC_CASES, N_SC_CASES);
	return true;
}

/* Runs one or two processes as the recipe says; fills r->reason (on success too, for the
 * applications). */
static bool run_sides(struct run *r, const struct compat_recipe *rc, struct run_side *s, int n)
{
	if (rc->flow == FLOW_APP_COPY)
		return run_app_copy(r, rc, s);
	if (rc->flow == FLOW_SECURE_CHAN)
		return run_secure_channel(r, rc, s);
	if (!run_procs(r, rc, s, n))
		return false;
	note_repro(r, s, n);
	if (!sides_ok(r, rc, s, n))
		return false;
	if (rc->flow == FLOW_FILES && !compat_file_contains(s[1].log, COMPAT_TEXT)) {
		snprintf(r->reason, sizeof(r->reason),
		         "%s did not print the text %s sent: the copy was not intact",
		         s[1].prog->name, s[0].prog->name);
		return false;
	}
	return true;
}

static struct compat_prog *find_prog(struct compat_ctx *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nprogs; i++)
		if (strcmp(c->progs[i].name, name) == 0)
			return &c->progs[i];
	return NULL;
}

static const struct compat_build *build_for(const struct compat_prog *p, unsigned arch)
{
	unsigned i;

	for (i = 0; i < p->nbuilds; i++)
		if (p->builds[i].arch == arch)
			return &p->builds[i];
	return NULL;
}

/* A program whose builds all worked; otherwise the verdict says why it cannot run. */
static bool prog_built(struct compat_prog *p)
{
	unsigned i;

	for (i = 0; i < p->nbuilds; i++)
		if (p->builds[i].result != COMPAT_BUILD_OK)
			return false;
	return p->nbuilds > 0;
}

/* Records a run under schedule @si; in pairs that run both ways, a failure of either run
 * stays. */
static void set_sched_result(struct compat_prog *p, size_t si, bool ok, const char *reason,
                             const char *repro, double seconds)
{
	struct compat_sched_result *res = &p->sched[si];

	if (res->tried && !res->ok)
		return;
	res->tried = true;
	res->ok = ok;
	res->seconds = seconds;
	snprintf(res->reason, sizeof(res->reason), "%s", reason);
	snprintf(res->repro, sizeof(res->repro), "%s", ok ? "" : repro);
}

/* Why @p did not run: its partner @other (named @name) is absent or did not build. */
static void partner_reason(struct compat_prog *p, const char *name, const struct compat_prog *other)
{
	char libs[256];

	if (other == NULL) {
		snprintf(p->reason, sizeof(p->reason),
		         "not run: its partner %s is not in this release", name);
		return;
	}
	compat_list_join(&other->needs, 6, libs, sizeof(libs));
	if (other->status == COMPAT_NEEDS)
		snprintf(p->reason, sizeof(p->reason), "not run: its partner %s needs %s", name,
		         libs);
	else
		snprintf(p->reason, sizeof(p->reason), "not run: its partner %s does not build",
		         name);
}

/* The processes of @p's recipe: which builds, which sides, which arguments; returns how many. */
static int plan_sides(struct compat_prog *p, struct compat_prog *other, struct run_side *s)
{
	const struct compat_recipe *rc = p->recipe;

	memset(s, 0, 2 * sizeof(*s));
	s[0].prog = p;
	s[0].args = rc->first;
	switch (rc->flow) {
	case FLOW_SINGLE:
		s[0].build = &p->builds[0];
		s[0].side = p->builds[0].arch == COMPAT_DPU ? "dpu" : "host";
		return 1;
	case FLOW_FILES:
		s[0].build = build_for(p, COMPAT_HOST);
		s[0].side = "host";
		s[1] = (struct run_side){ .prog = other,
			                  .build = build_for(other, COMPAT_DPU),
			                  .args = rc->second,
			                  .side = "dpu" };
		return 2;
	default: /* the DPU side serves, the host side connects */
		s[0].build = build_for(p, COMPAT_DPU);
		s[0].side = "dpu";
		s[1] = (struct run_side){ .prog = other != NULL ? other : p,
			                  .build =
			                          build_for(other != NULL ? other : p, COMPAT_HOST),
			                  .args = rc->second,
			                  .side = "host" };
		return 2;
	}
}

/* One run of @p's recipe (with its partner) under schedule @si. */
static void run_recipe_sched(struct compat_ctx *c, struct compat_prog *p, struct compat_prog *other,
                             size_t si)
{
	const struct compat_recipe *rc = p->recipe;
	const struct compat_schedule *sched = &c->schedules[si];
	struct run_side s[2];
	struct run r;
	char msg[1100];
	double t0 = compat_now();
	int n;
	bool ok;

	memset(&r, 0, sizeof(r));
	r.c = c;
	r.sched = sched;
	snprintf(r.dir, sizeof(r.dir), "%s/run/%s/%s", c->work, p->name, sched->name);
	compat_rm_rf(r.dir);
	if (compat_mkdir_p(r.dir) != 0) {
		snprintf(msg, sizeof(msg), "cannot create %s: %s", r.dir, strerror(errno));
		set_sched_result(p, si, false, msg, "", 0);
		return;
	}
	snprintf(r.desc, sizeof(r.desc), "%s/export_desc.txt", r.dir);
	snprintf(r.buf, sizeof(r.buf), "%s/buffer_info.txt", r.dir);
	snprintf(r.send, sizeof(r.send), "%s/sent.bin", r.dir);
	snprintf(r.recv, sizeof(r.recv), "%s/received.bin", r.dir);
	n = plan_sides(p, other, s);
	if (c->verbose)
		fprintf(stderr, "odma compat: running %s under %s\n", p->name, sched->name);
	ok = run_sides(&r, rc, s, n);
	if (ok && rc->flow == FLOW_FILES)
		snprintf(msg, sizeof(msg), "with %s: the text arrived intact", other->name);
	else if (ok && (rc->flow == FLOW_APP_COPY || rc->flow == FLOW_SECURE_CHAN))
		snprintf(msg, sizeof(msg), "%s", r.reason);
	else if (ok && other != NULL)
		snprintf(msg, sizeof(msg), "with %s", other->name);
	else if (ok && n == 2)
		snprintf(msg, sizeof(msg), "DPU and host processes");
	else if (ok)
		snprintf(msg, sizeof(msg), "%s", rc->success_line ? SUCCESS_LINE : "exit 0");
	else
		snprintf(msg, sizeof(msg), "%s", r.reason);
	set_sched_result(p, si, ok, msg, r.repro, compat_now() - t0);
	if (other != NULL) {
		if (ok)
			snprintf(msg, sizeof(msg), "with %s%s", p->name,
			         rc->flow == FLOW_FILES ? ": the text arrived intact" : "");
		set_sched_result(other, si, ok, msg, r.repro, compat_now() - t0);
		compat_list_merge(&other->logs, &p->logs);
	}
}

static void run_recipe(struct compat_ctx *c, struct compat_prog *p)
{
	const struct compat_recipe *rc = p->recipe;
	struct compat_prog *other = rc->partner != NULL ? find_prog(c, rc->partner) : NULL;
	size_t si;

	if (rc->partner != NULL && (other == NULL || !prog_built(other))) {
		/* the pair cannot run: the partner's own row says why */
		p->status =
		        other != NULL && other->status == COMPAT_NEEDS ? COMPAT_NEEDS : COMPAT_FAIL;
		if (other != NULL)
			compat_list_merge(&p->needs, &other->needs);
		partner_reason(p, rc->partner, other);
		return;
	}
	for (si = 0; si < c->nschedules; si++)
		run_recipe_sched(c, p, other, si);
}

/*
 * A program's verdict from its runs: it passes if it passed under every schedule; otherwise
 * the reason names the schedules it failed under (with their settings) and the first failure.
 */
static void run_verdict(const struct compat_ctx *c, struct compat_prog *p)
{
	char names[256] = "", env[200];
	const struct compat_sched_result *first_fail = NULL, *first = NULL;
	const struct compat_schedule *fs = NULL;
	size_t si, len = 0, failed = 0, tried = 0;

	for (si = 0; si < c->nschedules; si++) {
		const struct compat_sched_result *res = &p->sched[si];

		if (!res->tried)
			continue;
		tried++;
		if (first == NULL)
			first = res;
		if (res->ok)
			continue;
		if (first_fail == NULL) {
			first_fail = res;
			fs = &c->schedules[si];
		}
		failed++;
		if (len < sizeof(names))
			len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s",
			                        failed > 1 ? ", " : "", c->schedules[si].name);
	}
	if (tried == 0)
		return;
	p->run_tried = true;
	p->run_ok = failed == 0;
	p->status = failed == 0 ? COMPAT_PASS : COMPAT_FAIL;
	if (failed == 0) {
		snprintf(p->reason, sizeof(p->reason), "%s", first->reason);
		return;
	}
	compat_schedule_env_line(fs, env, sizeof(env));
	if (failed == 1 && env[0] != '\0')
		snprintf(p->reason, sizeof(p->reason), "fails under %s (%s): %.800s", names, env,
		         first_fail->reason);
	else if (failed == tried && tried > 1)
		snprintf(p->reason, sizeof(p->reason), "fails under every schedule (%s): %.800s",
		         names, first_fail->reason);
	else
		snprintf(p->reason, sizeof(p->reason), "fails under %s: %.800s", names,
		         first_fail->reason);
}

/* A private ODMA_RUNDIR: the runs' Comch servers and clients meet only each other, never those
 * of another check running at the same time. Socket paths have room for about 80 bytes. */
static void make_rundir(struct compat_ctx *c)
{
	snprintf(c->rundir, sizeof(c->rundir), "%s/rundir", c->work);
	if (strlen(c->rundir) > 80) {
		snprintf(c->rundir, sizeof(c->rundir), "/tmp/odma-compat-rd.XXXXXX");
		if (mkdtemp(c->rundir) == NULL)
			c->rundir[0] = '\0';
		return;
	}
	if (compat_mkdir_p(c->rundir) != 0)
		c->rundir[0] = '\0';
}

/* The program whose runs also decide @p's row (its host/DPU or RDMA partner), or NULL. */
static size_t partner_index(struct compat_ctx *c, const struct compat_prog *p)
{
	const char *name = compat_rdma_partner(p->name);
	const struct compat_prog *o;

	if (name == NULL && p->recipe != NULL)
		name = p->recipe->partner;
	o = name != NULL ? find_prog(c, name) : NULL;
	return o != NULL ? (size_t)(o - c->progs) : SIZE_MAX;
}

/* @p's final verdict, once the runs that decide it are over. */
static void finish_prog(struct compat_ctx *c, struct compat_prog *p)
{
	struct compat_prog *lead;

	run_verdict(c, p);
	/* a partner whose leader could not run */
	if (p->recipe == NULL || p->recipe->flow != FLOW_PARTNER || p->run_tried || !prog_built(p))
		return;
	lead = find_prog(c, p->recipe->partner);
	p->status = lead != NULL && lead->status == COMPAT_NEEDS ? COMPAT_NEEDS : COMPAT_FAIL;
	if (lead != NULL)
		compat_list_merge(&p->needs, &lead->needs);
	partner_reason(p, p->recipe->partner, lead);
}

/* Finishes and hands out the rows from *@next on whose runs are over once program @done ran. */
static void emit_rows(struct compat_ctx *c, size_t *next, size_t done)
{
	while (*next < c->nprogs) {
		struct compat_prog *p = &c->progs[*next];
		size_t k = partner_index(c, p);

		if (done != SIZE_MAX && (*next > done || (k != SIZE_MAX && k > done)))
			return;
		finish_prog(c, p);
		if (c->row_done != NULL) {
			compat_progress_clear();
			c->row_done(c, p);
		}
		(*next)++;
	}
}

void compat_run_all(struct compat_ctx *c)
{
	size_t i, next = 0;
	bool own_tmp;

	if (c->launcher == NULL)
		c->launcher = &compat_launcher_local;
	make_rundir(c);
	own_tmp = strncmp(c->rundir, "/tmp/odma-compat-rd.", 20) == 0;
	for (i = 0; i < c->nprogs; i++) {
		struct compat_prog *p = &c->progs[i];

		compat_progress(i + 1, c->nprogs, "running %s...", p->name);
		if (!compat_rdma_run_prog(c, p) && /* DOCA RDMA pairs: compat_rdma.c */
		    p->recipe != NULL && p->recipe->flow != FLOW_PARTNER && prog_built(p))
			run_recipe(c, p);
		emit_rows(c, &next, i);
	}
	emit_rows(c, &next, SIZE_MAX);
	compat_progress_clear();
	if (own_tmp)
		compat_rm_rf(c->rundir);
}
