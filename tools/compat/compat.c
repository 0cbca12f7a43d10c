/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * odma compat DIR: checks a checkout of NVIDIA's doca-samples (any release) against an installed
 * odma. Every DMA, DOCA Core (samples/doca_common) and Comch sample and the DMA Copy application
 * is built with its own meson file and run; the result is a table (and, with --json, a JSON
 * report). A program that needs a DOCA library odma does not provide is reported as such, not
 * as a failure. Exit status: 0 when nothing failed, 1 when something did, 2 on a usage or setup
 * error.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "compat.h"
#include "compat_minrel.h"
#include "odma_help.h"
#include "odma_pci.h"

#ifndef ODMA_PKGCONFIGDIR
#define ODMA_PKGCONFIGDIR "/usr/local/lib/pkgconfig"
#endif

static const char *const compat_groups[] = { "doca_dma", "doca_common", "doca_comch", "doca_rdma" };

void compat_list_add(struct compat_list *l, const char *s)
{
	char **nv;

	if (compat_list_has(l, s))
		return;
	if (l->n == l->cap) {
		nv = realloc(l->v, (l->cap ? l->cap * 2 : 8) * sizeof(*nv));
		if (nv == NULL)
			return;
		l->v = nv;
		l->cap = l->cap ? l->cap * 2 : 8;
	}
	l->v[l->n] = strdup(s);
	if (l->v[l->n] != NULL)
		l->n++;
}

bool compat_list_has(const struct compat_list *l, const char *s)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return true;
	return false;
}

void compat_list_merge(struct compat_list *dst, const struct compat_list *src)
{
	size_t i;

	for (i = 0; i < src->n; i++)
		compat_list_add(dst, src->v[i]);
}

void compat_list_join(const struct compat_list *l, size_t max, char *out, size_t size)
{
	size_t i, used = 0;

	out[0] = '\0';
	for (i = 0; i < l->n && i < max && used < size; i++)
		used += (size_t)snprintf(out + used, size - used, "%s%s", i ? ", " : "", l->v[i]);
	if (l->n > max && used < size)
		snprintf(out + used, size - used, " and %zu more", l->n - max);
}

void compat_list_free(struct compat_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

const char *compat_arch_name(unsigned arch)
{
	switch (arch) {
	case COMPAT_HOST:
		return "host";
	case COMPAT_DPU:
		return "dpu";
	case COMPAT_HOST | COMPAT_DPU:
		return "host+dpu";
	default:
		return "-";
	}
}

const char *compat_status_name(enum compat_status s)
{
	static const char *const names[] = { "pass", "not-run", "needs", "fail" };

	return names[s];
}

static const char *const usage_text[] = {
	"usage: odma compat [OPTIONS] DIR",
	"",
	"Builds NVIDIA's DOCA samples in DIR (a checkout of NVIDIA-DOCA/doca-samples, any",
	"release) with their own meson files against an installed odma, runs them, and prints",
	"a table: program, builds, runs, reason. DMA, DOCA Core, Comch and RDMA samples (RDMA",
	"pairs with descriptor files over RC and DC, and with RDMA CM) and the DMA Copy and",
	"Secure Channel applications are checked; DIR is only read. Every program runs",
	"under several schedules (timings: see --schedules) and passes only if it passes under",
	"all of them.",
	"",
	"   or: odma compat --shake N [--seed S] [OPTIONS] -- HOST_CMD [ARGS...]",
	"                   [--- DPU_CMD [ARGS...]]",
	"",
	"Runs your own program (or host/DPU pair) under N seeded schedules and reports the seed",
	"that broke it, with the environment line that reproduces it; odma compat --shake --help.",
	"",
	"   or: odma compat --min-release [--json] FILE... | DIR...",
	"",
	"Tells the oldest DOCA release your C sources need, and the functions that set it;",
	"odma compat --min-release --help.",
	"",
	"options:",
	"  --prefix DIR           the odma installation to check (default: this odma's)",
	"  --pkg-config-path DIR  where odma's doca-*.pc files are (instead of --prefix)",
	"  --json FILE            also write the report as JSON to FILE ('-': stdout)",
	"  --schedules LIST       the schedules every program runs under (default",
	"                         default,inline0,delay; also inline-engine, or all):",
	"                         default: odma's defaults; inline0: ODMA_INLINE_MAX=0 (every",
	"                         copy on a worker thread); delay: ODMA_FAULTS completion and",
	"                         Comch message delays; inline-engine: ODMA_ENGINE=inline",
	"  --timeout SEC          time limit of each program run (default 30)",
	"  --build-timeout SEC    time limit of each meson/ninja step (default 600)",
	"  --pair-delay SEC       head start of a DPU-side server before its host client (1;",
	"                         0: both start at once)",
	"  --only NAME[,NAME...]  check only these programs (and their host/DPU partners)",
	"  --workdir DIR          build and run there, and keep it (default: a temporary",
	"                         directory, removed at the end; its logs are kept when a",
	"                         program failed)",
	"  --keep                 keep the temporary directory (builds and logs)",
	"  --host-pci ADDR        host-side device (default b1:00.0)",
	"  --dpu-pci ADDR         DPU-side device (default 03:00.0)",
	"  --rep-pci ADDR         representor of the host function on the DPU (default b1:00.0)",
	"  --split-netns          run each host/DPU pair's sides in two network + PID namespaces",
	"                         joined by a veth pair (as two machines; root only)",
	"  --dpu-arch arm64       build the DPU sides for aarch64 and run them under qemu-user",
	"                         (with --split-netns; the host sides stay native)",
	"  --dpu-pkg-config-path DIR  the aarch64 odma's doca-*.pc (with --dpu-arch)",
	"  -j, --jobs N           build N programs at a time (default: two per CPU); the",
	"                         programs still run one at a time",
	"  -v, --verbose          say what is being built and run",
	"  -h, --help             this text",
	"",
	"Exit status: 0 when no program failed (a program that needs a DOCA library odma does",
	"not provide yet is not a failure), 1 when one did, 2 on a usage or setup error.",
};

static void usage(FILE *out);

static void usage_stdout(void *arg)
{
	(void)arg;
	usage(stdout);
}

/* `odma compat --man`: the man page of the help texts of both modes (the build installs it). */
static int compat_man(void)
{
	char *text = odma_help_capture(usage_stdout, NULL);
	char *shake = compat_shake_help_text();
	char *more = NULL;

	if (text != NULL && shake != NULL &&
	    asprintf(&more, "%s\n\n%s", compat_man_details, shake) >= 0)
		odma_help_man(stdout, "odma-compat", 1,
		              "build and run NVIDIA's DOCA samples against an installed odma, or "
		              "shake your own program's timing",
		              text, more);
	free(text);
	free(shake);
	if (more == NULL)
		return 1;
	free(more);
	return 0;
}

/* One line for a getopt refusal (opterr is off; ':' leads the option string). */
int compat_bad_option(int opt, char **argv)
{
	const char *arg = argv[optind - 1];

	if (opt == ':') {
		fprintf(stderr, "odma compat: option '%s' needs a value (see odma compat --help)\n",
		        arg);
		return 2;
	}
	return odma_help_bad_option("odma compat", arg);
}

static void usage(FILE *out)
{
	size_t i;

	for (i = 0; i < sizeof(usage_text) / sizeof(usage_text[0]); i++)
		fprintf(out, "%s\n", usage_text[i]);
	fprintf(out, "\nThis odma's pkg-config modules: %s\n", ODMA_PKGCONFIGDIR);
}

/* The pkgconfig directory of an installation prefix (lib/<multiarch>, lib64, lib, share). */
static bool pc_dir_of_prefix(const char *prefix, char *out, size_t size)
{
	static const char *const pats[] = { "%s/lib/*/pkgconfig/doca-common.pc",
		                            "%s/lib64/pkgconfig/doca-common.pc",
		                            "%s/lib/pkgconfig/doca-common.pc",
		                            "%s/share/pkgconfig/doca-common.pc" };
	char pat[PATH_MAX];
	glob_t g;
	size_t i;

	for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
		snprintf(pat, sizeof(pat), pats[i], prefix);
		if (glob(pat, 0, NULL, &g) == 0 && g.gl_pathc > 0) {
			snprintf(out, size, "%s", g.gl_pathv[0]);
			globfree(&g);
			*strrchr(out, '/') = '\0';
			return true;
		}
		globfree(&g);
	}
	return false;
}

/* Runs "pkg-config FLAG doca-common" against odma's modules; its first output line in @out. */
static int pkg_config(const struct compat_ctx *c, const char *flag, char *out, size_t size)
{
	const struct compat_env env[] = { { "PKG_CONFIG_PATH", c->pkg_config_path } };
	char *argv[] = { "pkg-config", (char *)flag, "doca-common", NULL };

	return compat_capture(argv, env, 1, out, size);
}

/* Finds odma through pkg-config: version, library and header directories. */
static int locate_odma(struct compat_ctx *c)
{
	char out[PATH_MAX * 2], *tok, *save = NULL, *pc;

	if (pkg_config(c, "--modversion", c->odma_version, sizeof(c->odma_version)) != 0) {
		fprintf(stderr,
		        "odma compat: no odma installation at %s (pkg-config doca-common failed);\n"
		        "install odma (make install PREFIX=...) and pass --prefix\n",
		        c->pkg_config_path);
		return -1;
	}
	pkg_config(c, "--variable=libdir", c->libdir, sizeof(c->libdir));
	pkg_config(c, "--variable=prefix", c->prefix, sizeof(c->prefix));
	pkg_config(c, "--cflags-only-I", out, sizeof(out));
	for (tok = strtok_r(out, " ", &save); tok != NULL; tok = strtok_r(NULL, " ", &save))
		if (strncmp(tok, "-I", 2) == 0)
			compat_list_add(&c->include_dirs, tok + 2);
	/* Say so when the modules found are not odma's (NVIDIA's DOCA, for instance). */
	if (pkg_config(c, "--path", out, sizeof(out)) == 0 &&
	    (pc = compat_read_file(out, NULL)) != NULL) {
		if (strstr(pc, "Description: odma") == NULL)
			fprintf(stderr, "odma compat: warning: %s is not odma's\n", out);
		free(pc);
	}
	return 0;
}

static void read_release(struct compat_ctx *c)
{
	char path[PATH_MAX], *text;
	const char *base;

	snprintf(path, sizeof(path), "%s/VERSION", c->samples_dir);
	text = compat_read_file(path, NULL);
	if (text != NULL) {
		text[strcspn(text, "\r\n")] = '\0';
		snprintf(c->release, sizeof(c->release), "%s", text);
		free(text);
		return;
	}
	base = strrchr(c->samples_dir, '/');
	snprintf(c->release, sizeof(c->release), "%s", base != NULL ? base + 1 : c->samples_dir);
}

/* A folder holds a standalone meson project (after the mirror's meson.build.public swap). */
static bool is_project(const char *dir)
{
	char path[PATH_MAX], *text;
	bool yes;

	snprintf(path, sizeof(path), "%s/meson.build", dir);
	text = compat_read_file(path, NULL);
	yes = text != NULL && strstr(text, "project(") != NULL;
	free(text);
	return yes;
}

#define COMPAT_ONLY_MAX 1023 /* bytes of --only that listed() and only_check() read */

/* Whether @name is one of the comma-separated names of @only. */
static bool listed(const char *only, const char *name)
{
	char list[COMPAT_ONLY_MAX + 1], *tok, *save = NULL;

	snprintf(list, sizeof(list), "%s", only);
	for (tok = strtok_r(list, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save))
		if (strcmp(tok, name) == 0)
			return true;
	return false;
}

/* In the --only list, directly or as the partner of a listed program (pairs run together). */
static bool wanted(const char *only, const char *name)
{
	const char *partner = compat_recipe_partner(name);

	if (partner == NULL)
		partner = compat_rdma_partner(name);
	if (only == NULL)
		return true;
	return listed(only, name) || (partner != NULL && listed(only, partner));
}

static struct compat_prog *add_prog(struct compat_ctx *c, const char *group, const char *name,
                                    const char *src)
{
	struct compat_prog *np = realloc(c->progs, (c->nprogs + 1) * sizeof(*np)), *p;

	if (np == NULL)
		return NULL;
	c->progs = np;
	p = &c->progs[c->nprogs++];
	memset(p, 0, sizeof(*p));
	snprintf(p->group, sizeof(p->group), "%s", group);
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->src, sizeof(p->src), "%s", src);
	p->recipe = compat_recipe_find(name);
	return p;
}

static int group_rank(const char *g)
{
	size_t i;

	for (i = 0; i < sizeof(compat_groups) / sizeof(compat_groups[0]); i++)
		if (strcmp(g, compat_groups[i]) == 0)
			return (int)i;
	return 99;
}

static int prog_cmp(const void *a, const void *b)
{
	const struct compat_prog *x = a, *y = b;
	int d = group_rank(x->group) - group_rank(y->group);

	return d != 0 ? d : strcmp(x->name, y->name);
}

static void discover(struct compat_ctx *c, const char *only)
{
	char dir[PATH_MAX], src[PATH_MAX];
	struct dirent *e;
	size_t g;
	DIR *d;

	for (g = 0; g < sizeof(compat_groups) / sizeof(compat_groups[0]); g++) {
		snprintf(dir, sizeof(dir), "%s/samples/%s", c->mirror, compat_groups[g]);
		d = opendir(dir);
		if (d == NULL)
			continue;
		while ((e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.' ||
			    snprintf(src, sizeof(src), "%s/%s", dir, e->d_name) >= (int)sizeof(src))
				continue;
			if (is_project(src) && wanted(only, e->d_name))
				add_prog(c, compat_groups[g], e->d_name, src);
		}
		closedir(d);
	}
	snprintf(dir, sizeof(dir), "%s/applications", c->mirror);
	for (g = 0; compat_application_name(g) != NULL; g++) {
		const char *name = compat_application_name(g);
		struct compat_prog *p;

		snprintf(src, sizeof(src), "%s/%s", dir, name);
		if (access(src, F_OK) != 0 || !is_project(dir) || !wanted(only, name))
			continue;
		p = add_prog(c, "applications", name, dir);
		if (p != NULL)
			p->application = true;
	}
	if (c->nprogs > 0)
		qsort(c->progs, c->nprogs, sizeof(*c->progs), prog_cmp);
}

/*
 * 0 when every name of @only is a program found, else 2 after one line naming the first that is
 * not: a name left out in silence (a typo) let the run check the others and report them passed.
 */
static int only_check(const struct compat_ctx *c, const char *only)
{
	char list[COMPAT_ONLY_MAX + 1], *tok, *save = NULL;

	if (only == NULL)
		return 0;
	snprintf(list, sizeof(list), "%s", only);
	for (tok = strtok_r(list, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		size_t i = 0;

		while (i < c->nprogs && strcmp(c->progs[i].name, tok) != 0)
			i++;
		if (i == c->nprogs) {
			fprintf(stderr,
			        "odma compat: --only %s: no program of that name in %s "
			        "(a DMA, Core, Comch or RDMA sample directory, "
			        "or a checked application)\n",
			        tok, c->samples_dir);
			return 2;
		}
	}
	return 0;
}

/* A program's verdict from its builds, before anything runs. */
static void build_verdict(const struct compat_ctx *c, struct compat_prog *p)
{
	struct compat_list all = { 0 }, headers = { 0 };
	char list[512], lib[128];
	const char *first = "";
	size_t i, len;

	p->status = COMPAT_NOT_RUN;
	for (i = 0; i < p->nbuilds; i++) {
		const struct compat_build *b = &p->builds[i];

		compat_list_merge(&p->symbols, &b->symbols);
		if (b->result == COMPAT_BUILD_FAILED && p->status != COMPAT_FAIL) {
			p->status = COMPAT_FAIL;
			snprintf(p->reason, sizeof(p->reason), "%s build: %s",
			         compat_arch_name(b->arch), b->reason);
		} else if (b->result == COMPAT_BUILD_NEEDS) {
			compat_list_merge(&p->needs, &b->needs);
			if (first[0] == '\0')
				first = b->reason;
		}
	}
	if (p->status == COMPAT_FAIL)
		return;
	if (p->needs.n == 0) {
		if (p->recipe == NULL)
			snprintf(p->reason, sizeof(p->reason),
			         "built; odma compat does not know how to run it");
		return;
	}
	/* The build stops at the first missing piece; name the others its sources include. */
	p->status = COMPAT_NEEDS;
	compat_missing_headers(c, p, &all);
	for (i = 0; i < all.n; i++) {
		if (!compat_lib_of(c, all.v[i], lib, sizeof(lib)))
			compat_list_add(&p->needs, lib);
		if (strstr(first, all.v[i]) == NULL)
			compat_list_add(&headers, all.v[i]);
	}
	compat_list_free(&all);
	compat_list_join(&p->needs, 8, list, sizeof(list));
	len = (size_t)snprintf(p->reason, sizeof(p->reason), "needs %s (%s", list, first);
	if (p->symbols.n > 1 && len < sizeof(p->reason)) {
		compat_list_join(&p->symbols, 3, list, sizeof(list));
		len += (size_t)snprintf(p->reason + len, sizeof(p->reason) - len, "; undefined: %s",
		                        list);
	}
	if (headers.n > 0 && len < sizeof(p->reason)) {
		compat_list_join(&headers, 6, list, sizeof(list));
		len += (size_t)snprintf(p->reason + len, sizeof(p->reason) - len,
		                        "; its sources include %s", list);
	}
	if (len < sizeof(p->reason))
		snprintf(p->reason + len, sizeof(p->reason) - len, ")");
	compat_list_free(&headers);
}

static const char *builds_word(const struct compat_prog *p)
{
	unsigned i;
	bool needs = false;

	for (i = 0; i < p->nbuilds; i++) {
		if (p->builds[i].result == COMPAT_BUILD_FAILED)
			return "no";
		needs |= p->builds[i].result == COMPAT_BUILD_NEEDS;
	}
	return needs ? "needs" : "yes";
}

static const char *runs_word(const struct compat_prog *p)
{
	if (p->run_tried)
		return p->run_ok ? "pass" : "FAIL";
	switch (p->status) {
	case COMPAT_NEEDS:
		return "needs";
	case COMPAT_FAIL:
		return "-";
	default:
		return "not-run";
	}
}

static unsigned prog_arch(const struct compat_prog *p)
{
	unsigned i, a = 0;

	for (i = 0; i < p->nbuilds; i++)
		a |= p->builds[i].arch;
	return a;
}

/* The table streams: its head once the builds are done, each row as soon as it is final
 * (compat_run_all's row_done), the summary at the end. */
static FILE *table_out;
static int table_w;

static void print_table_head(const struct compat_ctx *c, FILE *out)
{
	size_t i, w = 7;
	char env[256];

	for (i = 0; i < c->nprogs; i++) {
		size_t l = strlen(c->progs[i].group) + 1 + strlen(c->progs[i].name);

		if (l > w)
			w = l;
	}
	table_out = out;
	table_w = (int)w;
	fprintf(out, "odma compat: NVIDIA doca-samples %s (%s)\n", c->release, c->samples_dir);
	fprintf(out, "against odma %s (%s)%s%s\n", c->odma_version, c->pkg_config_path,
	        c->compiler[0] ? ", compiler " : "", c->compiler);
	fprintf(out, "schedules:");
	for (i = 0; i < c->nschedules; i++) {
		compat_schedule_env_line(&c->schedules[i], env, sizeof(env));
		fprintf(out, "%s %s (%s)", i ? "," : "", c->schedules[i].name,
		        env[0] ? env : "no change");
	}
	fprintf(out, "\n");
	if (c->split_netns)
		fprintf(out,
		        "split-netns: each host/DPU pair's sides in two network + PID namespaces "
		        "joined by a veth pair, ODMA_FABRIC=%s\n",
		        compat_netns_fabric());
	fprintf(out, "\n");
	fprintf(out, "%-*s  %-8s  %-6s  %-7s  %s\n", (int)w, "PROGRAM", "BUILD", "BUILDS", "RUNS",
	        "REASON");
	fflush(out);
}

static void print_table_row(const struct compat_ctx *c, const struct compat_prog *p)
{
	char label[256];

	(void)c;
	snprintf(label, sizeof(label), "%s/%s", p->group, p->name);
	fprintf(table_out, "%-*s  %-8s  %-6s  %-7s  %s\n", table_w, label,
	        compat_arch_name(prog_arch(p)), builds_word(p), runs_word(p), p->reason);
	fflush(table_out);
}

static void print_table_summary(const struct compat_ctx *c, FILE *out)
{
	size_t i, counts[COMPAT_NSTATUS] = { 0 };
	struct compat_list needs = { 0 };
	char list[512];

	for (i = 0; i < c->nprogs; i++) {
		counts[c->progs[i].status]++;
		compat_list_merge(&needs, &c->progs[i].needs);
	}
	compat_list_join(&needs, 10, list, sizeof(list));
	fprintf(out,
	        "\n%zu programs: %zu pass, %zu fail, %zu need a DOCA library odma does not "
	        "provide yet%s%s%s, %zu not run\n",
	        c->nprogs, counts[COMPAT_PASS], counts[COMPAT_FAIL], counts[COMPAT_NEEDS],
	        needs.n ? " (" : "", list, needs.n ? ")" : "", counts[COMPAT_NOT_RUN]);
	compat_list_free(&needs);
}

static json_object *json_list(const struct compat_list *l)
{
	json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < l->n; i++)
		json_object_array_add(a, json_object_new_string(l->v[i]));
	return a;
}

static const char *build_word(enum compat_build_result r)
{
	static const char *const names[] = { "not-tried", "yes", "no", "needs" };

	return names[r];
}

/* Per schedule: its settings, whether the program ran, passed, why not, how to run it again. */
static json_object *json_sched_results(const struct compat_ctx *c, const struct compat_prog *p)
{
	json_object *a = json_object_new_array(), *o;
	char env[256];
	size_t i;

	for (i = 0; i < c->nschedules; i++) {
		const struct compat_sched_result *res = &p->sched[i];

		if (!res->tried)
			continue;
		compat_schedule_env_line(&c->schedules[i], env, sizeof(env));
		o = json_object_new_object();
		json_object_object_add(o, "schedule", json_object_new_string(c->schedules[i].name));
		json_object_object_add(o, "env", json_object_new_string(env));
		json_object_object_add(o, "status",
		                       json_object_new_string(res->ok ? "pass" : "fail"));
		json_object_object_add(o, "reason", json_object_new_string(res->reason));
		json_object_object_add(o, "seconds", json_object_new_double(res->seconds));
		if (!res->ok)
			json_object_object_add(o, "reproduce", json_object_new_string(res->repro));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *json_schedules(const struct compat_ctx *c)
{
	json_object *a = json_object_new_array(), *o;
	char env[256];
	size_t i;

	for (i = 0; i < c->nschedules; i++) {
		compat_schedule_env_line(&c->schedules[i], env, sizeof(env));
		o = json_object_new_object();
		json_object_object_add(o, "name", json_object_new_string(c->schedules[i].name));
		json_object_object_add(o, "env", json_object_new_string(env));
		json_object_object_add(o, "what", json_object_new_string(c->schedules[i].what));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *json_report(const struct compat_ctx *c)
{
	json_object *root = json_object_new_object(), *progs = json_object_new_array();
	json_object *o, *summary = json_object_new_object(), *builds;
	size_t i, counts[COMPAT_NSTATUS] = { 0 };
	unsigned j;

	json_object_object_add(root, "tool", json_object_new_string("odma compat"));
	o = json_object_new_object();
	json_object_object_add(o, "dir", json_object_new_string(c->samples_dir));
	json_object_object_add(o, "release", json_object_new_string(c->release));
	json_object_object_add(root, "doca_samples", o);
	o = json_object_new_object();
	json_object_object_add(o, "version", json_object_new_string(c->odma_version));
	json_object_object_add(o, "pkg_config_path", json_object_new_string(c->pkg_config_path));
	json_object_object_add(o, "libdir", json_object_new_string(c->libdir));
	json_object_object_add(root, "odma", o);
	json_object_object_add(root, "compiler", json_object_new_string(c->compiler));
	json_object_object_add(root, "schedules", json_schedules(c));
	json_object_object_add(root, "split_netns", json_object_new_boolean(c->split_netns));
	if (c->split_netns)
		json_object_object_add(root, "fabric",
		                       json_object_new_string(compat_netns_fabric()));
	for (i = 0; i < c->nprogs; i++) {
		const struct compat_prog *p = &c->progs[i];

		o = json_object_new_object();
		json_object_object_add(o, "name", json_object_new_string(p->name));
		json_object_object_add(o, "group", json_object_new_string(p->group));
		json_object_object_add(o, "arch",
		                       json_object_new_string(compat_arch_name(prog_arch(p))));
		json_object_object_add(o, "builds", json_object_new_string(builds_word(p)));
		json_object_object_add(o, "runs", json_object_new_string(runs_word(p)));
		json_object_object_add(o, "status",
		                       json_object_new_string(compat_status_name(p->status)));
		json_object_object_add(o, "reason", json_object_new_string(p->reason));
		json_object_object_add(o, "needs", json_list(&p->needs));
		json_object_object_add(o, "missing_symbols", json_list(&p->symbols));
		builds = json_object_new_array();
		for (j = 0; j < p->nbuilds; j++) {
			const struct compat_build *b = &p->builds[j];
			json_object *bo = json_object_new_object();

			json_object_object_add(bo, "arch",
			                       json_object_new_string(compat_arch_name(b->arch)));
			json_object_object_add(bo, "result",
			                       json_object_new_string(build_word(b->result)));
			json_object_object_add(bo, "warnings",
			                       json_object_new_int((int)b->warnings));
			json_object_object_add(bo, "implicit_declarations",
			                       json_list(&b->implicit));
			json_object_object_add(bo, "reason", json_object_new_string(b->reason));
			json_object_object_add(bo, "log", json_object_new_string(b->log));
			json_object_array_add(builds, bo);
		}
		json_object_object_add(o, "build_details", builds);
		json_object_object_add(o, "run_logs", json_list(&p->logs));
		json_object_object_add(o, "schedule_results", json_sched_results(c, p));
		json_object_array_add(progs, o);
		counts[p->status]++;
	}
	json_object_object_add(root, "programs", progs);
	json_object_object_add(summary, "total", json_object_new_int((int)c->nprogs));
	for (i = 0; i < COMPAT_NSTATUS; i++)
		json_object_object_add(summary, compat_status_name((enum compat_status)i),
		                       json_object_new_int((int)counts[i]));
	json_object_object_add(root, "summary", summary);
	return root;
}

static int write_json(const struct compat_ctx *c, const char *path)
{
	json_object *root = json_report(c);
	const char *text = json_object_to_json_string_ext(
	        root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	int rc = compat_json_write(path, text);

	json_object_put(root);
	return rc;
}

enum {
	OPT_PREFIX = 256,
	OPT_PCPATH,
	OPT_JSON,
	OPT_TIMEOUT,
	OPT_BUILD_TIMEOUT,
	OPT_PAIR_DELAY,
	OPT_ONLY,
	OPT_WORKDIR,
	OPT_KEEP,
	OPT_HOST,
	OPT_DPU,
	OPT_REP,
	OPT_SCHEDULES,
	OPT_SPLIT_NETNS,
	OPT_MAN,
	OPT_DPU_ARCH,
	OPT_DPU_PCPATH,
};

static const struct option options[] = {
	{ "prefix", required_argument, NULL, OPT_PREFIX },
	{ "pkg-config-path", required_argument, NULL, OPT_PCPATH },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "build-timeout", required_argument, NULL, OPT_BUILD_TIMEOUT },
	{ "pair-delay", required_argument, NULL, OPT_PAIR_DELAY },
	{ "only", required_argument, NULL, OPT_ONLY },
	{ "workdir", required_argument, NULL, OPT_WORKDIR },
	{ "keep", no_argument, NULL, OPT_KEEP },
	{ "host-pci", required_argument, NULL, OPT_HOST },
	{ "dpu-pci", required_argument, NULL, OPT_DPU },
	{ "rep-pci", required_argument, NULL, OPT_REP },
	{ "schedules", required_argument, NULL, OPT_SCHEDULES },
	{ "split-netns", no_argument, NULL, OPT_SPLIT_NETNS },
	{ "dpu-arch", required_argument, NULL, OPT_DPU_ARCH },
	{ "dpu-pkg-config-path", required_argument, NULL, OPT_DPU_PCPATH },
	{ "jobs", required_argument, NULL, 'j' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "man", no_argument, NULL, OPT_MAN }, /* hidden: the man page of the help text */
	{ NULL, 0, NULL, 0 },
};

int compat_seconds_arg(const char *flag, const char *s, bool zero_ok, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end != '\0' || !(v > 0 || (zero_ok && v == 0)) || v > 86400) {
		fprintf(stderr,
		        "odma compat: %s '%s' is not a time: seconds, %s and at most 86400\n", flag,
		        s, zero_ok ? "0 or more" : "more than 0");
		return 2;
	}
	*out = v;
	return 0;
}

/*
 * A device flag's address into *@field; -1 after one line when it is none: every sample would
 * get it as -p, and the whole tree would be built only to find no such device.
 */
static int pci_arg(const char *flag, const char *v, const char **field)
{
	if (!odma_pci_text_ok(v)) {
		fprintf(stderr, "odma compat: %s '%s' is not a PCI address (" ODMA_PCI_SHAPES ")\n",
		        flag, v);
		return -1;
	}
	*field = v;
	return 0;
}

struct compat_opts {
	const char *prefix, *pc_path, *json, *only, *workdir, *schedules;
	const char *dpu_arch, *dpu_pc_path; /* --dpu-arch (compat_arch.c) */
	unsigned jobs;                      /* --jobs: builds at a time */
	bool keep;
};

/* --only names at least one program, in a list listed() reads whole: 0, or 2 after one line. */
static int only_arg_check(const char *only)
{
	if (only == NULL)
		return 0;
	if (strlen(only) > COMPAT_ONLY_MAX) {
		fprintf(stderr,
		        "odma compat: --only is longer than %d bytes; name fewer programs\n",
		        COMPAT_ONLY_MAX);
		return 2;
	}
	if (strspn(only, ",") == strlen(only)) {
		fprintf(stderr, "odma compat: --only names no program; give NAME[,NAME...], or "
		                "drop it to check every program\n");
		return 2;
	}
	return 0;
}

/* What the flags together must satisfy, each refusal one line and exit 2, before any work. */
static int args_settle(int argc, char **argv, struct compat_ctx *c, const struct compat_opts *o)
{
	if (optind != argc - 1) {
		fprintf(stderr,
		        "odma compat: give one samples directory (see odma compat --help)\n");
		return 2;
	}
	if (c->split_netns && geteuid() != 0) {
		fprintf(stderr, "odma compat: --split-netns needs root: it creates network and PID "
		                "namespaces and a veth pair; run it as root, or without "
		                "--split-netns\n");
		return 2;
	}
	if (compat_schedules_parse(c, o->schedules != NULL ? o->schedules
	                                                   : compat_schedule_default_set()) != 0)
		return 2;
	if (o->json != NULL && compat_json_path_check(o->json) != 0)
		return 2;
	if (only_arg_check(o->only) != 0)
		return 2;
	if (o->dpu_pc_path != NULL && o->dpu_arch == NULL) {
		fprintf(stderr, "odma compat: --dpu-pkg-config-path is the aarch64 odma of "
		                "--dpu-arch arm64: add --dpu-arch arm64, or drop it\n");
		return 2;
	}
	c->samples_dir = argv[optind];
	return 0;
}

static int parse_args(int argc, char **argv, struct compat_ctx *c, struct compat_opts *o)
{
	int opt;

	opterr = 0; /* a bad option is one line of ours, not getopt's and the usage */
	while ((opt = getopt_long(argc, argv, ":vhj:", options, NULL)) != -1) {
		switch (opt) {
		case OPT_PREFIX:
			o->prefix = optarg;
			break;
		case OPT_PCPATH:
			o->pc_path = optarg;
			break;
		case OPT_JSON:
			o->json = optarg;
			break;
		case OPT_TIMEOUT:
			if (compat_seconds_arg("--timeout", optarg, false, &c->run_timeout) != 0)
				return 2;
			break;
		case OPT_BUILD_TIMEOUT:
			if (compat_seconds_arg("--build-timeout", optarg, false,
			                       &c->build_timeout) != 0)
				return 2;
			break;
		case OPT_PAIR_DELAY:
			if (compat_seconds_arg("--pair-delay", optarg, true, &c->pair_delay) != 0)
				return 2;
			break;
		case OPT_ONLY:
			o->only = optarg;
			break;
		case OPT_WORKDIR:
			o->workdir = optarg;
			break;
		case OPT_KEEP:
			o->keep = true;
			break;
		case OPT_HOST:
			if (pci_arg("--host-pci", optarg, &c->host_pci) != 0)
				return 2;
			break;
		case OPT_DPU:
			if (pci_arg("--dpu-pci", optarg, &c->dpu_pci) != 0)
				return 2;
			break;
		case OPT_REP:
			if (pci_arg("--rep-pci", optarg, &c->rep_pci) != 0)
				return 2;
			break;
		case OPT_SCHEDULES:
			o->schedules = optarg;
			break;
		case OPT_SPLIT_NETNS:
			c->split_netns = true;
			break;
		case OPT_DPU_ARCH:
			o->dpu_arch = optarg;
			break;
		case OPT_DPU_PCPATH:
			o->dpu_pc_path = optarg;
			break;
		case 'j': {
			char *end;
			unsigned long n;

			errno = 0;
			n = strtoul(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != '\0' || optarg[0] == '-' ||
			    n < 1 || n > COMPAT_MAX_JOBS) {
				fprintf(stderr,
				        "odma compat: bad --jobs '%s' (1 to %d builds at once)\n",
				        optarg, COMPAT_MAX_JOBS);
				return 2;
			}
			o->jobs = (unsigned)n;
			break;
		}
		case 'v':
			c->verbose = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case OPT_MAN:
			exit(compat_man());
		default:
			return compat_bad_option(opt, argv);
		}
	}
	return args_settle(argc, argv, c, o);
}

static int setup_paths(struct compat_ctx *c, const struct compat_opts *o)
{
	const char *env_pc = getenv("PKG_CONFIG_PATH");
	char dir[PATH_MAX];
	struct stat st;

	if (strlen(c->samples_dir) > COMPAT_MAX_DIR ||
	    (o->workdir != NULL && strlen(o->workdir) > COMPAT_MAX_DIR)) {
		fprintf(stderr, "odma compat: directory names are limited to %d bytes\n",
		        COMPAT_MAX_DIR);
		return 2;
	}
	if (stat(c->samples_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "odma compat: %s is not a directory\n", c->samples_dir);
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s/samples", c->samples_dir);
	if (access(dir, F_OK) != 0) {
		fprintf(stderr, "odma compat: %s has no samples/: not a doca-samples checkout\n",
		        c->samples_dir);
		return 2;
	}
	if (o->pc_path != NULL) {
		snprintf(dir, sizeof(dir), "%s", o->pc_path);
	} else if (o->prefix != NULL) {
		if (!pc_dir_of_prefix(o->prefix, dir, sizeof(dir))) {
			fprintf(stderr, "odma compat: no doca-common.pc under %s\n", o->prefix);
			return 2;
		}
	} else {
		snprintf(dir, sizeof(dir), "%s", ODMA_PKGCONFIGDIR);
	}
	/* odma's modules first; the rest of the search path still finds json-c and friends */
	snprintf(c->pkg_config_path, sizeof(c->pkg_config_path), "%s%s%s", dir,
	         env_pc != NULL && env_pc[0] != '\0' ? ":" : "", env_pc != NULL ? env_pc : "");
	if (locate_odma(c) != 0)
		return 2;
	if (o->workdir != NULL) {
		if (compat_mkdir_p(o->workdir) != 0 || realpath(o->workdir, c->work) == NULL ||
		    strlen(c->work) > COMPAT_MAX_DIR) {
			fprintf(stderr, "odma compat: cannot use %s: %s\n", o->workdir,
			        strerror(errno));
			return 2;
		}
	} else {
		const char *tmp = getenv("TMPDIR");

		snprintf(c->work, sizeof(c->work), "%s/odma-compat.XXXXXX",
		         tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
		if (strlen(c->work) > COMPAT_MAX_DIR || mkdtemp(c->work) == NULL) {
			fprintf(stderr, "odma compat: cannot create a work directory: %s\n",
			        strerror(errno));
			return 2;
		}
	}
	snprintf(c->mirror, sizeof(c->mirror), "%s/src", c->work);
	compat_rm_rf(c->mirror);
	if (compat_mirror(c->samples_dir, c->mirror) != 0) {
		fprintf(stderr, "odma compat: cannot mirror %s into %s: %s\n", c->samples_dir,
		        c->mirror, strerror(errno));
		return 2;
	}
	return 0;
}

/* `--shake` before any `--`: the other mode (compat_shake.c). */
static bool wants_shake(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--shake") == 0 || strncmp(argv[i], "--shake=", 8) == 0)
			return true;
	return false;
}

/*
 * The end of a run without --keep or --workdir: its temporary directory goes, except, when
 * @failed programs failed, their logs (logs/, run/ and the namespaces' log: what the table's
 * reasons and the report's run_logs name), kept with one line saying where.
 */
static void work_done(const struct compat_ctx *c, size_t failed)
{
	static const char *const kept[] = { "logs", "run", "split-netns.log" };
	struct dirent **ents = NULL;
	int n = failed > 0 ? scandir(c->work, &ents, NULL, alphasort) : -1;

	if (n < 0) {
		compat_rm_rf(c->work);
		return;
	}
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		bool keep = strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
		char path[PATH_MAX];

		for (size_t k = 0; k < sizeof(kept) / sizeof(kept[0]); k++)
			keep |= strcmp(name, kept[k]) == 0;
		if (!keep &&
		    snprintf(path, sizeof(path), "%s/%s", c->work, name) < (int)sizeof(path))
			compat_rm_rf(path);
		free(ents[i]);
	}
	free(ents);
	fprintf(stderr,
	        "odma compat: the logs of this run (%zu failed) are kept in %s; "
	        "remove it when done\n",
	        failed, c->work);
}

/* Undoes what main set up before anything was built; returns 2, the status of the refusal. */
static int setup_undo(struct compat_ctx *c, const struct compat_opts *o)
{
	compat_netns_cleanup();
	if (o->workdir == NULL && !o->keep)
		compat_rm_rf(c->work);
	compat_list_free(&c->include_dirs);
	free(c->progs);
	return 2;
}

int main(int argc, char **argv)
{
	struct compat_ctx c = { .host_pci = "b1:00.0",
		                .dpu_pci = "03:00.0",
		                .rep_pci = "b1:00.0",
		                .run_timeout = 30,
		                .build_timeout = 600,
		                .pair_delay = 1.0 };
	struct compat_opts o = { 0 };
	size_t i, failed = 0;
	int rc;

	if (compat_minrel_wanted(argc, argv))
		return compat_minrel_main(argc, argv);
	if (wants_shake(argc, argv))
		return compat_shake_main(argc, argv);
	rc = parse_args(argc, argv, &c, &o);
	if (rc != 0)
		return rc;
	rc = setup_paths(&c, &o);
	if (rc != 0) {
		compat_list_free(&c.include_dirs);
		return rc;
	}
	if (c.split_netns) {
		char err[PATH_MAX + 200];

		if (compat_netns_setup(&c, err, sizeof(err)) != 0) {
			fprintf(stderr, "odma compat: %s\n", err);
			if (o.workdir == NULL && !o.keep)
				compat_rm_rf(c.work);
			compat_list_free(&c.include_dirs);
			return 2;
		}
		c.launcher = &compat_launcher_netns;
	}
	if (o.dpu_arch != NULL) {
		char err[PATH_MAX + 200];

		if (compat_dpu_arch_setup(&c, o.dpu_arch, o.dpu_pc_path, err, sizeof(err)) != 0) {
			fprintf(stderr, "odma compat: %s\n", err);
			return setup_undo(&c, &o);
		}
	}
	if (o.jobs == 0) {
		/* two builds per CPU: a meson setup spends part of its time waiting for the
		 * compiler runs of its checks (the fake tree of the tests: 52 s with one build at a
		 * time, 44 s with two, 39 s with four, on 2 CPUs) */
		long n = 2 * sysconf(_SC_NPROCESSORS_ONLN);

		o.jobs = n < 1 ? 1 : n > COMPAT_MAX_JOBS ? COMPAT_MAX_JOBS : (unsigned)n;
	}
	read_release(&c);
	discover(&c, o.only);
	if (only_check(&c, o.only) != 0)
		return setup_undo(&c, &o);
	if (c.nprogs == 0)
		fprintf(stderr, "odma compat: no DMA, Core or Comch program found in %s\n",
		        c.samples_dir);
	compat_progress_init(c.verbose);
	compat_build_all(&c, o.jobs);
	for (i = 0; i < c.nprogs; i++)
		build_verdict(&c, &c.progs[i]);
	compat_progress_clear();
	print_table_head(&c, o.json != NULL && strcmp(o.json, "-") == 0 ? stderr : stdout);
	c.row_done = print_table_row;
	compat_run_all(&c);
	print_table_summary(&c, table_out);
	if (o.json != NULL && write_json(&c, o.json) != 0)
		rc = 2;
	for (i = 0; i < c.nprogs; i++)
		failed += c.progs[i].status == COMPAT_FAIL;
	fflush(stdout);
	compat_netns_cleanup();
	if (o.workdir == NULL && !o.keep)
		work_done(&c, failed);
	else
		fprintf(stderr, "odma compat: builds and logs kept in %s\n", c.work);
	for (i = 0; i < c.nprogs; i++) {
		struct compat_prog *p = &c.progs[i];
		unsigned j;

		for (j = 0; j < p->nbuilds; j++) {
			compat_list_free(&p->builds[j].needs);
			compat_list_free(&p->builds[j].symbols);
			compat_list_free(&p->builds[j].implicit);
		}
		compat_list_free(&p->needs);
		compat_list_free(&p->symbols);
		compat_list_free(&p->logs);
	}
	free(c.progs);
	compat_list_free(&c.include_dirs);
	if (rc != 0)
		return rc;
	return c.nprogs == 0 ? 2 : failed > 0 ? 1 : 0;
}
