/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * odma compat --shake N [OPTIONS] -- HOST_CMD [ARGS...] [--- DPU_CMD [ARGS...]]
 *
 * Runs a user's own DOCA program, or host/DPU pair, first under odma's defaults (the baseline),
 * then under N schedules drawn from the seeds S..S+N-1 (compat_schedule_from_seed: engine,
 * inline limit, workers, copy and Comch message delays). Each schedule changes only timing; a
 * program that passes the baseline and fails under a seed depends on a timing one machine
 * happens to give it. The report names the seed, its environment line and the command that
 * replays exactly that schedule.
 *
 * A pair: the DPU command (after ---) starts first with ODMA_SIDE=dpu, the host command
 * (after --) follows with ODMA_SIDE=host after --pair-delay seconds, or as soon as the DPU
 * side prints the --ready text. A run passes when every process exits 0 within --timeout (one
 * deadline for the whole run; the process groups still running then are killed) and prints
 * every --expect text.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "compat.h"

#define SHAKE_MAX 100000
#define SHAKE_MAX_EXPECT 8

struct shake {
	unsigned long long count, seed;
	double timeout, pair_delay;
	const char *ready;
	const char *expect[SHAKE_MAX_EXPECT];
	unsigned nexpect;
	const char *json, *workdir;
	bool keep, stop, verbose;
	bool pair_delay_given; /* --pair-delay: only with a DPU side */
	char **host, **dpu;    /* NULL-terminated commands; dpu NULL for a single program */
	char work[PATH_MAX];
	const struct compat_launcher *launcher;
};

/* One process of a shake run. */
struct shake_side {
	const char *side; /* "host", "dpu", or NULL: a program that runs alone */
	char **argv;
	struct compat_proc proc;
	char log[PATH_MAX];
	char cmd[2048];
};

struct shake_result {
	struct compat_schedule sched;
	unsigned long long seed;
	bool ok;
	double seconds;
	char reason[1024];
	char repro[4200];
	char logs[2][PATH_MAX];
};

static const char *const shake_usage_text[] = {
	"usage: odma compat --shake N [OPTIONS] -- HOST_CMD [ARGS...] [--- DPU_CMD [ARGS...]]",
	"",
	"Runs your own DOCA program (or a host/DPU pair) under odma's defaults, then under N",
	"schedules drawn from seeds S, S+1, ... Each schedule changes only timing: the copy",
	"engine (ODMA_ENGINE), whether copies run on the submitting thread or a worker",
	"(ODMA_INLINE_MAX, ODMA_WORKERS), and seeded delays of copies and of received Comch",
	"messages (ODMA_FAULTS delay_us, comch_delay_us). Nothing is made to fail; a program that",
	"fails under a seed has a race that one hardware timing hides. The report names the seed,",
	"the environment line that reproduces it, and the command that replays it.",
	"",
	"With --- the command before it is the host side (ODMA_SIDE=host), the one after it the",
	"DPU side (ODMA_SIDE=dpu, started first: the Comch server). Commands run in the current",
	"directory with its environment.",
	"",
	"options:",
	"  --shake N          how many seeded schedules (1 to 100000)",
	"  --seed S           the first seed (default 1); seed S+k is schedule k",
	"  --timeout SEC      time limit of each run, all its processes together (default 30)",
	"  --pair-delay SEC   head start of the DPU side (default 1; 0: both start at once)",
	"  --ready TEXT       start the host side as soon as the DPU side printed TEXT",
	"  --expect TEXT      every process must print TEXT (up to 8 times)",
	"  --stop             stop at the first schedule that fails",
	"  --json FILE        also write the results as JSON to FILE ('-': stdout)",
	"  --workdir DIR      keep the logs in DIR (default: a temporary directory, kept only",
	"                     when a schedule failed)",
	"  --keep             keep the temporary directory",
	"  -v, --verbose      say what runs",
	"  -h, --help         this text",
	"",
	"Exit status: 0 when every schedule passed, 1 when one failed (or the baseline did),",
	"2 on a usage error.",
};

static void shake_usage(FILE *out)
{
	size_t i;

	for (i = 0; i < sizeof(shake_usage_text) / sizeof(shake_usage_text[0]); i++)
		fprintf(out, "%s\n", shake_usage_text[i]);
}

enum {
	SO_SHAKE = 256,
	SO_SEED,
	SO_TIMEOUT,
	SO_PAIR_DELAY,
	SO_READY,
	SO_EXPECT,
	SO_STOP,
	SO_JSON,
	SO_WORKDIR,
	SO_KEEP,
};

static const struct option shake_options[] = {
	{ "shake", required_argument, NULL, SO_SHAKE },
	{ "seed", required_argument, NULL, SO_SEED },
	{ "timeout", required_argument, NULL, SO_TIMEOUT },
	{ "pair-delay", required_argument, NULL, SO_PAIR_DELAY },
	{ "ready", required_argument, NULL, SO_READY },
	{ "expect", required_argument, NULL, SO_EXPECT },
	{ "stop", no_argument, NULL, SO_STOP },
	{ "json", required_argument, NULL, SO_JSON },
	{ "workdir", required_argument, NULL, SO_WORKDIR },
	{ "keep", no_argument, NULL, SO_KEEP },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static bool parse_count(const char *s, unsigned long long min, unsigned long long max,
                        unsigned long long *out)
{
	char *end;
	unsigned long long v;

	if (s[0] < '0' || s[0] > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static int shake_option(struct shake *k, int opt, const char *arg)
{
	switch (opt) {
	case SO_SHAKE:
		if (!parse_count(arg, 1, SHAKE_MAX, &k->count)) {
			fprintf(stderr,
			        "odma compat: --shake takes a count of schedules, 1 to %d\n",
			        SHAKE_MAX);
			return 2;
		}
		return 0;
	case SO_SEED:
		if (!parse_count(arg, 0, UINT64_MAX - SHAKE_MAX, &k->seed)) {
			/* the seeds of the run, S to S + N - 1, stay numbers */
			fprintf(stderr, "odma compat: --seed takes a number from 0 to %llu\n",
			        (unsigned long long)(UINT64_MAX - SHAKE_MAX));
			return 2;
		}
		return 0;
	case SO_TIMEOUT:
		return compat_seconds_arg("--timeout", arg, false, &k->timeout);
	case SO_PAIR_DELAY:
		k->pair_delay_given = true;
		return compat_seconds_arg("--pair-delay", arg, true, &k->pair_delay);
	case SO_READY:
		k->ready = arg;
		return 0;
	case SO_EXPECT:
		if (k->nexpect == SHAKE_MAX_EXPECT) {
			fprintf(stderr, "odma compat: at most %d --expect\n", SHAKE_MAX_EXPECT);
			return 2;
		}
		k->expect[k->nexpect++] = arg;
		return 0;
	case SO_STOP:
		k->stop = true;
		return 0;
	case SO_JSON:
		k->json = arg;
		return 0;
	case SO_WORKDIR:
		k->workdir = arg;
		return 0;
	case SO_KEEP:
		k->keep = true;
		return 0;
	case 'v':
		k->verbose = true;
		return 0;
	case 'h':
		shake_usage(stdout);
		exit(0);
	default:
		return -1; /* a getopt refusal: the caller says it in one line */
	}
}

char *compat_shake_help_text(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (m == NULL)
		return NULL;
	fputs("SHAKE MODE\n", m); /* indented: its own headings are not the page's */
	for (size_t i = 0; i < sizeof(shake_usage_text) / sizeof(shake_usage_text[0]); i++)
		fprintf(m, "%s%s\n", shake_usage_text[i][0] ? "  " : "", shake_usage_text[i]);
	if (fclose(m) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* Options before "--", the host command after it, the DPU command after "---". */
static int shake_parse(int argc, char **argv, struct shake *k)
{
	int dash = 1, opt, i, rc;

	while (dash < argc && strcmp(argv[dash], "--") != 0)
		dash++;
	for (i = 1; i < dash; i++) /* before --shake's own value: `--shake --help` helps */
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			shake_usage(stdout);
			exit(0);
		}
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(dash, argv, ":vh", shake_options, NULL)) != -1)
		if ((rc = shake_option(k, opt, optarg)) != 0)
			return rc < 0 ? compat_bad_option(opt, argv) : rc;
	if (optind != dash) {
		fprintf(stderr, "odma compat: --shake: unexpected '%s' before --\n", argv[optind]);
		return 2;
	}
	if (dash >= argc - 1 || strcmp(argv[dash + 1], "---") == 0) {
		fprintf(stderr,
		        "odma compat: --shake needs a command after -- (see odma compat --shake "
		        "--help)\n");
		return 2;
	}
	k->host = &argv[dash + 1];
	for (i = dash + 1; i < argc; i++) {
		if (strcmp(argv[i], "---") != 0)
			continue;
		argv[i] = NULL; /* ends the host command */
		if (i == argc - 1) {
			fprintf(stderr, "odma compat: --shake needs a DPU command after ---\n");
			return 2;
		}
		k->dpu = &argv[i + 1];
		break;
	}
	if (k->dpu == NULL && (k->ready != NULL || k->pair_delay_given)) {
		fprintf(stderr,
		        "odma compat: --ready and --pair-delay time the host side after the "
		        "DPU side: give the DPU command after ---, or drop them\n");
		return 2;
	}
	return 0;
}

/* Why a finished process does not count; empty if it does. */
static void shake_side_verdict(const struct shake *k, const struct shake_side *s, char *why,
                               size_t size)
{
	const char *who = s->side != NULL ? s->side : "the program";
	char last[300];
	unsigned i;

	why[0] = '\0';
	if (s->proc.timed_out) {
		compat_last_line(s->log, NULL, last, sizeof(last));
		snprintf(why, size, "%s%s did not finish within %g s (killed)%s%.200s", who,
		         s->side != NULL ? " side" : "", k->timeout,
		         last[0] ? "; its last line: " : "", last);
		return;
	}
	if (s->proc.status == 0) {
		for (i = 0; i < k->nexpect; i++) {
			if (!compat_file_contains(s->log, k->expect[i])) {
				snprintf(why, size, "%s%s exited 0 without \"%.200s\"", who,
				         s->side != NULL ? " side" : "", k->expect[i]);
				return;
			}
		}
		return;
	}
	if (!compat_last_line(s->log, "[ERROR]", last, sizeof(last)))
		compat_last_line(s->log, NULL, last, sizeof(last));
	if (s->proc.status < 0)
		snprintf(why, size, "%s%s was killed by a signal: %.200s", who,
		         s->side != NULL ? " side" : "", last);
	else
		snprintf(why, size, "%s%s exited %d: %.200s", who, s->side != NULL ? " side" : "",
		         s->proc.status, last);
}

static int shake_start(const struct shake *k, const struct compat_schedule *sched,
                       struct shake_side *s, const char *dir, unsigned long long idx)
{
	const struct compat_env base[] = { { "ODMA_SIDE", s->side } };
	struct compat_env env[8];
	size_t nenv = compat_schedule_env(sched, base, s->side != NULL ? 1 : 0, env, 8);
	struct compat_launch w;
	char cwd[PATH_MAX];

	snprintf(s->log, sizeof(s->log), "%s/run-%llu-%s.log", dir, idx,
	         s->side != NULL ? s->side : "program");
	unlink(s->log);
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		cwd[0] = '\0';
	/* the line a user runs again: only the settings, in the caller's directory */
	compat_command_line(NULL, env, nenv, s->argv, s->cmd, sizeof(s->cmd));
	w = (struct compat_launch){ .side = s->side,
		                    .argv = s->argv,
		                    .cwd = cwd[0] != '\0' ? cwd : NULL,
		                    .log = s->log,
		                    .env = env,
		                    .nenv = nenv,
		                    .pipe_stdin = false };
	return k->launcher->start(k->launcher, &w, &s->proc);
}

/* Waits for the DPU side to be ready for the host side; false if it ended first. */
static bool shake_wait_ready(const struct shake *k, struct shake_side *dpu, double deadline)
{
	double end = compat_now() + k->pair_delay;

	if (k->ready != NULL)
		end = deadline;
	while (compat_now() < end) {
		bool ended = compat_proc_poll(&dpu->proc);

		/* the text counts even if the side ended right after printing it */
		if (k->ready != NULL && compat_file_contains(dpu->log, k->ready))
			return true;
		if (ended)
			return false;
		compat_sleep(0.01);
	}
	return k->ready == NULL;
}

static void shake_wait(struct shake_side *s, double deadline)
{
	double left = deadline - compat_now();

	compat_proc_wait(&s->proc, left > 0 ? left : 0.001);
}

/* One run under @sched: the program, or the DPU side then the host side. */
/* The DPU side is ready: starts the host side; false (with @res's reason) if it cannot. */
static bool shake_start_host(const struct shake *k, const struct compat_schedule *sched,
                             struct shake_side *s, unsigned long long idx, double deadline,
                             struct shake_result *res)
{
	char why[700];

	if (!shake_wait_ready(k, &s[0], deadline)) {
		bool late = compat_now() >= deadline;

		compat_proc_kill(&s[0].proc);
		if (late && k->ready != NULL) {
			snprintf(res->reason, sizeof(res->reason),
			         "the dpu side did not print \"%.200s\" (--ready) "
			         "within %g s (killed)",
			         k->ready, k->timeout);
			return false;
		}
		s[0].proc.timed_out = late;
		shake_side_verdict(k, &s[0], why, sizeof(why));
		snprintf(res->reason, sizeof(res->reason), "%s before the host side started",
		         why[0] != '\0' ? why
		         : k->ready     ? "the dpu side ended without printing the --ready text"
		                        : "the dpu side ended");
		return false;
	}
	if (shake_start(k, sched, &s[1], k->work, idx) != 0) {
		compat_proc_kill(&s[0].proc);
		snprintf(res->reason, sizeof(res->reason), "cannot start %s: %s", s[1].argv[0],
		         strerror(errno));
		return false;
	}
	return true;
}

/* One run under @sched: the program, or the DPU side then the host side. */
static void shake_run(const struct shake *k, const struct compat_schedule *sched,
                      unsigned long long idx, struct shake_result *res)
{
	struct shake_side s[2];
	int n = k->dpu != NULL ? 2 : 1, i;
	double t0 = compat_now(), deadline = t0 + k->timeout;
	char why[700];

	memset(s, 0, sizeof(s));
	memset(res, 0, sizeof(*res));
	res->sched = *sched;
	s[0] = (struct shake_side){ .side = n == 2 ? "dpu" : NULL,
		                    .argv = n == 2 ? k->dpu : k->host };
	s[1] = (struct shake_side){ .side = "host", .argv = k->host };
	if (shake_start(k, sched, &s[0], k->work, idx) != 0) {
		snprintf(res->reason, sizeof(res->reason), "cannot start %s: %s", s[0].argv[0],
		         strerror(errno));
	} else if (n == 1 || shake_start_host(k, sched, s, idx, deadline, res)) {
		if (n == 2)
			shake_wait(&s[1], deadline);
		shake_wait(&s[0], deadline);
		res->ok = true;
		for (i = n - 1; i >= 0 && res->ok; i--) {
			shake_side_verdict(k, &s[i], why, sizeof(why));
			res->ok = why[0] == '\0';
			snprintf(res->reason, sizeof(res->reason), "%s", why);
		}
	}
	res->seconds = compat_now() - t0;
	for (i = 0; i < n; i++)
		snprintf(res->logs[i], sizeof(res->logs[i]), "%s", s[i].log);
	if (n == 2 && s[1].cmd[0] != '\0')
		snprintf(res->repro, sizeof(res->repro), "%s & sleep %g; %s", s[0].cmd,
		         k->pair_delay, s[1].cmd);
	else
		snprintf(res->repro, sizeof(res->repro), "%s", s[0].cmd);
}

/* The command that replays one seed: this tool with the same options and commands. */
static void replay_line(const struct shake *k, unsigned long long seed, char *out, size_t size)
{
	char cmd[2048];
	size_t used;
	unsigned i;

	used = (size_t)snprintf(out, size, "odma compat --shake 1 --seed %llu", seed);
	if (k->timeout != 30 && used < size)
		used += (size_t)snprintf(out + used, size - used, " --timeout %g", k->timeout);
	if (k->pair_delay != 1 && used < size)
		used += (size_t)snprintf(out + used, size - used, " --pair-delay %g",
		                         k->pair_delay);
	if (k->ready != NULL && used < size) {
		char *r[] = { "--ready", (char *)k->ready, NULL };

		compat_command_line(NULL, NULL, 0, r, cmd, sizeof(cmd));
		used += (size_t)snprintf(out + used, size - used, " %s", cmd);
	}
	for (i = 0; i < k->nexpect && used < size; i++) {
		char *e[] = { "--expect", (char *)k->expect[i], NULL };

		compat_command_line(NULL, NULL, 0, e, cmd, sizeof(cmd));
		used += (size_t)snprintf(out + used, size - used, " %s", cmd);
	}
	compat_command_line(NULL, NULL, 0, k->host, cmd, sizeof(cmd));
	if (used < size)
		used += (size_t)snprintf(out + used, size - used, " -- %s", cmd);
	if (k->dpu != NULL && used < size) {
		compat_command_line(NULL, NULL, 0, k->dpu, cmd, sizeof(cmd));
		snprintf(out + used, size - used, " --- %s", cmd);
	}
}

static void print_result(FILE *out, const struct shake_result *r, bool baseline)
{
	char env[256];

	compat_schedule_env_line(&r->sched, env, sizeof(env));
	fprintf(out, "%-12s %-4s %6.1f s  %s\n", baseline ? "baseline" : r->sched.name,
	        r->ok ? "pass" : "FAIL", r->seconds, env[0] != '\0' ? env : "(odma's defaults)");
	if (!r->ok)
		fprintf(out, "%-12s %s\n", "", r->reason);
	fflush(out);
}

static json_object *json_result(const struct shake_result *r, bool baseline)
{
	json_object *o = json_object_new_object(), *logs = json_object_new_array();
	char env[256];
	int i;

	compat_schedule_env_line(&r->sched, env, sizeof(env));
	json_object_object_add(o, "schedule",
	                       json_object_new_string(baseline ? "baseline" : r->sched.name));
	json_object_object_add(o, "env", json_object_new_string(env));
	json_object_object_add(o, "status", json_object_new_string(r->ok ? "pass" : "fail"));
	json_object_object_add(o, "reason", json_object_new_string(r->reason));
	json_object_object_add(o, "seconds", json_object_new_double(r->seconds));
	json_object_object_add(o, "reproduce", json_object_new_string(r->repro));
	for (i = 0; i < 2; i++)
		if (r->logs[i][0] != '\0')
			json_object_array_add(logs, json_object_new_string(r->logs[i]));
	json_object_object_add(o, "logs", logs);
	return o;
}

static json_object *json_argv(char **argv)
{
	json_object *a = json_object_new_array();

	for (; argv != NULL && *argv != NULL; argv++)
		json_object_array_add(a, json_object_new_string(*argv));
	return a;
}

static int shake_setup_work(struct shake *k)
{
	const char *tmp = getenv("TMPDIR");

	if (k->workdir != NULL) {
		if (strlen(k->workdir) > COMPAT_MAX_DIR || compat_mkdir_p(k->workdir) != 0 ||
		    realpath(k->workdir, k->work) == NULL) {
			fprintf(stderr, "odma compat: cannot use %s: %s\n", k->workdir,
			        strerror(errno));
			return 2;
		}
		return 0;
	}
	snprintf(k->work, sizeof(k->work), "%s/odma-shake.XXXXXX",
	         tmp != NULL && tmp[0] != '\0' && strlen(tmp) < COMPAT_MAX_DIR ? tmp : "/tmp");
	if (mkdtemp(k->work) == NULL) {
		fprintf(stderr, "odma compat: cannot create a work directory: %s\n",
		        strerror(errno));
		return 2;
	}
	return 0;
}

/* The summary: which seeds failed, the first one's settings, how to replay it. */
static void print_summary(FILE *out, const struct shake *k, const struct shake_result *first,
                          unsigned long long failed, unsigned long long ran, const char *seeds)
{
	char env[256], replay[4200];
	unsigned long long seed;

	if (failed == 0) {
		fprintf(out, "\nall %llu schedules passed (seeds %llu..%llu)\n", ran, k->seed,
		        k->seed + ran - 1);
		return;
	}
	compat_schedule_env_line(&first->sched, env, sizeof(env));
	seed = first->seed;
	replay_line(k, seed, replay, sizeof(replay));
	fprintf(out, "\n%llu of %llu schedules failed (seed%s %s); the first: %s\n", failed, ran,
	        failed > 1 ? "s" : "", seeds, first->sched.name);
	fprintf(out, "  why:       %s\n", first->reason);
	fprintf(out, "  settings:  %s\n", env);
	fprintf(out, "  reproduce: %s\n", first->repro);
	fprintf(out, "  replay:    %s\n", replay);
}

static int write_shake_json(const struct shake *k, json_object *root)
{
	const char *text = json_object_to_json_string_ext(
	        root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);

	return compat_json_write(k->json, text);
}

/* What the runs so far came to. */
struct shake_tally {
	bool baseline_failed;
	unsigned long long ran, failed; /* seeded runs */
	struct shake_result first;      /* the first seeded run that failed */
	char seeds[256];                /* "3, 17", or "3, 17, ... and 40 more" */
	size_t slen;
	unsigned long long unlisted; /* failed seeds left out of seeds[] */
	json_object *runs;
};

static void print_header(FILE *out, const struct shake *k)
{
	char cmd[2048];

	fprintf(out, "odma compat --shake: %llu schedules (seeds %llu..%llu) of\n", k->count,
	        k->seed, k->seed + k->count - 1);
	if (k->dpu != NULL) {
		compat_command_line(NULL, NULL, 0, k->dpu, cmd, sizeof(cmd));
		fprintf(out, "  dpu side:  %s\n", cmd);
	}
	compat_command_line(NULL, NULL, 0, k->host, cmd, sizeof(cmd));
	fprintf(out, "  %s %s\n\n", k->dpu != NULL ? "host side:" : "program:", cmd);
}

/*
 * Adds @seed to the failed seeds' list whole, or counts it among those left out: a seed
 * cut short would name another seed. Room stays for " and N more".
 */
static void shake_list_seed(struct shake_tally *t, unsigned long long seed)
{
	char one[32];
	int n = snprintf(one, sizeof(one), "%s%llu", t->slen ? ", " : "", seed);

	if (t->unlisted == 0 && t->slen + (size_t)n + 32 < sizeof(t->seeds)) {
		memcpy(t->seeds + t->slen, one, (size_t)n + 1);
		t->slen += (size_t)n;
	} else {
		t->unlisted++;
		snprintf(t->seeds + t->slen, sizeof(t->seeds) - t->slen, " and %llu more",
		         t->unlisted);
	}
}

/* The baseline, then each seed (up to the first failure with --stop). */
static void shake_all(FILE *out, const struct shake *k, struct shake_tally *t)
{
	struct shake_result res;
	struct compat_schedule sched;
	unsigned long long i;

	compat_schedule_builtin("default", &sched);
	shake_run(k, &sched, 0, &res);
	print_result(out, &res, true);
	json_object_array_add(t->runs, json_result(&res, true));
	if (!res.ok) {
		t->baseline_failed = true;
		fprintf(out,
		        "\nthe program fails under odma's defaults already (%s): fix that first;"
		        " no schedule was tried\n",
		        res.reason);
		return;
	}
	for (i = 0; i < k->count; i++) {
		compat_schedule_from_seed(k->seed + i, &sched);
		if (k->verbose)
			fprintf(stderr, "odma compat: %s\n", sched.name);
		shake_run(k, &sched, i + 1, &res);
		res.seed = k->seed + i;
		t->ran++;
		print_result(out, &res, false);
		json_object_array_add(t->runs, json_result(&res, false));
		if (res.ok)
			continue;
		if (t->failed++ == 0)
			t->first = res;
		shake_list_seed(t, res.seed);
		if (k->stop)
			break;
	}
}

/* The JSON report of a shake. */
static json_object *shake_json(const struct shake *k, struct shake_tally *t)
{
	json_object *root = json_object_new_object();
	char replay[4200], env[256];

	json_object_object_add(root, "tool", json_object_new_string("odma compat --shake"));
	json_object_object_add(root, "first_seed", json_object_new_uint64(k->seed));
	json_object_object_add(root, "count", json_object_new_uint64(k->count));
	json_object_object_add(root, "host", json_argv(k->dpu != NULL ? k->host : NULL));
	json_object_object_add(root, "dpu", json_argv(k->dpu));
	json_object_object_add(root, "program", json_argv(k->dpu == NULL ? k->host : NULL));
	json_object_object_add(root, "runs", t->runs);
	t->runs = NULL;
	json_object_object_add(root, "baseline_failed",
	                       json_object_new_boolean(t->baseline_failed));
	json_object_object_add(root, "failed", json_object_new_uint64(t->failed));
	if (t->failed == 0)
		return root;
	compat_schedule_env_line(&t->first.sched, env, sizeof(env));
	replay_line(k, t->first.seed, replay, sizeof(replay));
	json_object_object_add(root, "first_failure_seed", json_object_new_uint64(t->first.seed));
	json_object_object_add(root, "first_failure", json_object_new_string(t->first.sched.name));
	json_object_object_add(root, "first_failure_env", json_object_new_string(env));
	json_object_object_add(root, "replay", json_object_new_string(replay));
	return root;
}

int compat_shake_main(int argc, char **argv)
{
	struct shake k = { .seed = 1, .timeout = 30, .pair_delay = 1 };
	static struct shake_tally t;
	json_object *root;
	FILE *out;
	int rc;

	rc = shake_parse(argc, argv, &k);
	if (rc == 0 && k.count == 0) {
		fprintf(stderr, "odma compat: --shake takes a count of schedules\n");
		rc = 2;
	}
	if (rc == 0 && k.json != NULL)
		rc = compat_json_path_check(k.json); /* before any schedule runs */
	if (rc == 0)
		rc = shake_setup_work(&k);
	if (rc != 0)
		return rc;
	k.launcher = &compat_launcher_local;
	t.runs = json_object_new_array();
	out = k.json != NULL && strcmp(k.json, "-") == 0 ? stderr : stdout;
	print_header(out, &k);
	shake_all(out, &k, &t);
	if (t.ran > 0)
		print_summary(out, &k, &t.first, t.failed, t.ran, t.seeds);
	root = shake_json(&k, &t);
	rc = t.failed > 0 || t.baseline_failed ? 1 : 0;
	if (k.json != NULL && write_shake_json(&k, root) != 0)
		rc = 2;
	json_object_put(root);
	fflush(stdout);
	if (k.workdir == NULL && !k.keep && rc == 0)
		compat_rm_rf(k.work);
	else
		fprintf(stderr, "odma compat: logs kept in %s\n", k.work);
	return rc;
}
