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
	FLOW_PARTNER,       /* runs as the second program of another program's recipe */
};

#define MAX_ARGS 10

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
 * @DPUFILE@ @HOSTFILE@ (the DMA Copy application's -f on each side).
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

/* One process of a run: which program's build, on which side, with which arguments. */
struct run_side {
	struct compat_prog *prog;
	const struct compat_build *build;
	const char *const *args;
	const char *side; /* "host" or "dpu" */
	struct compat_proc proc;
	char log[PATH_MAX];
};

struct run {
	struct compat_ctx *c;
	char dir[PATH_MAX];
	char desc[PATH_MAX], buf[PATH_MAX], send[PATH_MAX], recv[PATH_MAX];
	const char *dpu_file, *host_file; /* send or recv, as the DMA Copy case says */
	char tag[16];                     /* the case number in log names; empty: none */
	char reason[1024];
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
	return a;
}

static int side_start(struct run *r, struct run_side *s, bool pipe_stdin)
{
	char *argv[MAX_ARGS + 2];
	int n = 0, i;
	const struct compat_env env[] = {
		{ "ODMA_SIDE", s->side },
		{ "LD_LIBRARY_PATH", r->c->libdir },
	};

	argv[n++] = (char *)s->build->exe;
	for (i = 0; i < MAX_ARGS && s->args[i] != NULL; i++)
		argv[n++] = (char *)subst(r, s->args[i]);
	argv[n] = NULL;
	snprintf(s->log, sizeof(s->log), "%s/run-%s%s-%s.log", r->dir, s->prog->name, r->tag,
	         s->side);
	unlink(s->log);
	compat_list_add(&s->prog->logs, s->log);
	return compat_proc_start(&s->proc, argv, r->dir, s->log, env, 2, pipe_stdin);
}

/* Why a finished process does not count as a success; empty string if it does. */
static void side_verdict(const struct run *r, const struct run_side *s, bool success_line,
                         char *why, size_t size)
{
	char last[300];

	why[0] = '\0';
	if (s->proc.timed_out) {
		snprintf(why, size, "%s (%s) did not finish within %.0f s", s->prog->name, s->side,
		         r->c->run_timeout);
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
	double end = compat_now() + (flow == FLOW_FILES ? r->c->run_timeout : r->c->pair_delay);

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

	if (side_start(r, &s[0], rc->flow == FLOW_FILES) != 0) {
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
		if (side_start(r, &s[1], false) != 0) {
			compat_proc_kill(&s[0].proc);
			snprintf(r->reason, sizeof(r->reason), "cannot start %s: %s",
			         s[1].build->exe, strerror(errno));
			return false;
		}
		compat_proc_wait(&s[1].proc, r->c->run_timeout);
		if (rc->flow == FLOW_FILES && s[0].proc.stdin_fd >= 0) {
			/* "press Enter once the DPU is done" */
			if (write(s[0].proc.stdin_fd, "\n", 1) != 1)
				(void)0;
			close(s[0].proc.stdin_fd);
			s[0].proc.stdin_fd = -1;
		}
	}
	compat_proc_wait(&s[0].proc, r->c->run_timeout);
	return true;
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

/* "0000:03:00.0" and "03:00.0" name the same function. */
static bool same_pci(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la < lb)
		return same_pci(b, a);
	return strcmp(a + la - lb, b) == 0 && (la == lb || a[la - lb - 1] == ':');
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
			    !same_pci(json_object_get_string(v), c->dpu_pci))
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

/* Runs one or two processes as the recipe says; fills r->reason (on success too, for DMA Copy). */
static bool run_sides(struct run *r, const struct compat_recipe *rc, struct run_side *s, int n)
{
	if (rc->flow == FLOW_APP_COPY)
		return run_app_copy(r, rc, s);
	if (!run_procs(r, rc, s, n) || !sides_ok(r, rc, s, n))
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

static void set_result(struct compat_prog *p, bool ok, const char *reason)
{
	p->run_tried = true;
	p->run_ok = ok;
	p->status = ok ? COMPAT_PASS : COMPAT_FAIL;
	snprintf(p->reason, sizeof(p->reason), "%s", reason);
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

static void run_recipe(struct compat_ctx *c, struct compat_prog *p)
{
	const struct compat_recipe *rc = p->recipe;
	struct compat_prog *other = rc->partner != NULL ? find_prog(c, rc->partner) : NULL;
	struct run_side s[2];
	struct run r;
	char msg[1100];
	int n = 1;
	bool ok;

	memset(s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	r.c = c;
	if (rc->partner != NULL && (other == NULL || !prog_built(other))) {
		/* the pair cannot run: the partner's own row says why */
		p->status =
		        other != NULL && other->status == COMPAT_NEEDS ? COMPAT_NEEDS : COMPAT_FAIL;
		if (other != NULL)
			compat_list_merge(&p->needs, &other->needs);
		partner_reason(p, rc->partner, other);
		return;
	}
	snprintf(r.dir, sizeof(r.dir), "%s/run/%s", c->work, p->name);
	compat_rm_rf(r.dir);
	if (compat_mkdir_p(r.dir) != 0) {
		snprintf(msg, sizeof(msg), "cannot create %s: %s", r.dir, strerror(errno));
		set_result(p, false, msg);
		return;
	}
	snprintf(r.desc, sizeof(r.desc), "%s/export_desc.txt", r.dir);
	snprintf(r.buf, sizeof(r.buf), "%s/buffer_info.txt", r.dir);
	snprintf(r.send, sizeof(r.send), "%s/sent.bin", r.dir);
	snprintf(r.recv, sizeof(r.recv), "%s/received.bin", r.dir);

	s[0].prog = p;
	s[0].args = rc->first;
	switch (rc->flow) {
	case FLOW_SINGLE:
		s[0].build = &p->builds[0];
		s[0].side = p->builds[0].arch == COMPAT_DPU ? "dpu" : "host";
		break;
	case FLOW_FILES:
		s[0].build = build_for(p, COMPAT_HOST);
		s[0].side = "host";
		s[1] = (struct run_side){ .prog = other,
			                  .build = build_for(other, COMPAT_DPU),
			                  .args = rc->second,
			                  .side = "dpu" };
		n = 2;
		break;
	default: /* the DPU side serves, the host side connects */
		s[0].build = build_for(p, COMPAT_DPU);
		s[0].side = "dpu";
		s[1] = (struct run_side){ .prog = other != NULL ? other : p,
			                  .build =
			                          build_for(other != NULL ? other : p, COMPAT_HOST),
			                  .args = rc->second,
			                  .side = "host" };
		n = 2;
		break;
	}
	if (c->verbose)
		fprintf(stderr, "odma compat: running %s\n", p->name);
	ok = run_sides(&r, rc, s, n);
	if (ok && rc->flow == FLOW_FILES)
		snprintf(msg, sizeof(msg), "with %s: the text arrived intact", other->name);
	else if (ok && rc->flow == FLOW_APP_COPY)
		snprintf(msg, sizeof(msg), "%s", r.reason);
	else if (ok && other != NULL)
		snprintf(msg, sizeof(msg), "with %s", other->name);
	else if (ok && n == 2)
		snprintf(msg, sizeof(msg), "DPU and host processes");
	else if (ok)
		snprintf(msg, sizeof(msg), "%s", rc->success_line ? SUCCESS_LINE : "exit 0");
	else
		snprintf(msg, sizeof(msg), "%s", r.reason);
	/* in pairs that run both ways, a failure of either run stays on both rows */
	if (!(p->run_tried && !p->run_ok))
		set_result(p, ok, msg);
	if (other != NULL) {
		if (!(other->run_tried && !other->run_ok)) {
			if (ok)
				snprintf(msg, sizeof(msg), "with %s%s", p->name,
				         rc->flow == FLOW_FILES ? ": the text arrived intact" : "");
			set_result(other, ok, msg);
		}
		compat_list_merge(&other->logs, &p->logs);
	}
}

void compat_run_all(struct compat_ctx *c)
{
	size_t i;

	for (i = 0; i < c->nprogs; i++) {
		struct compat_prog *p = &c->progs[i];

		if (compat_rdma_run_prog(c, p)) /* DOCA RDMA pairs: compat_rdma.c */
			continue;
		if (p->recipe == NULL || p->recipe->flow == FLOW_PARTNER || !prog_built(p))
			continue;
		run_recipe(c, p);
	}
	/* partners whose leader could not run */
	for (i = 0; i < c->nprogs; i++) {
		struct compat_prog *p = &c->progs[i];
		struct compat_prog *lead;

		if (p->recipe == NULL || p->recipe->flow != FLOW_PARTNER || p->run_tried ||
		    !prog_built(p))
			continue;
		lead = find_prog(c, p->recipe->partner);
		p->status =
		        lead != NULL && lead->status == COMPAT_NEEDS ? COMPAT_NEEDS : COMPAT_FAIL;
		if (lead != NULL)
			compat_list_merge(&p->needs, &lead->needs);
		partner_reason(p, p->recipe->partner, lead);
	}
}
