/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Schedules and launchers of odma-compat.
 *
 * A schedule changes only when things happen, never what a correct program sees: which engine
 * runs the copies (ODMA_ENGINE), whether a copy runs on the submitting thread or a worker
 * (ODMA_INLINE_MAX, ODMA_WORKERS), and delays before each copy and each received Comch control
 * message (ODMA_FAULTS delay_us, comch_delay_us; docs/fault-injection.md). No schedule injects
 * an error. A program that passes under one and fails under another depends on a timing that
 * one machine happens to give it.
 *
 * A launcher starts the processes of a run; the local one forks them here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"

const char *const compat_sched_vars[] = { "ODMA_ENGINE", "ODMA_INLINE_MAX", "ODMA_WORKERS",
	                                  "ODMA_FAULTS" };
const size_t compat_sched_nvars = sizeof(compat_sched_vars) / sizeof(compat_sched_vars[0]);

struct builtin {
	const char *name;
	const char *what;
	const char *env[COMPAT_SCHED_ENV][2];
};

/* The delays of the "delay" schedule: enough to reorder completions, short enough for
 * programs of thousands of tasks. */
#define DELAY_FAULTS "seed=1,delay_us=0-500,comch_delay_us=0-2000"

static const struct builtin builtins[] = {
	{ "default", "odma's defaults", { { NULL, NULL } } },
	{ "inline0",
	  "every copy handed to a worker thread, none done on the submitting thread",
	  { { "ODMA_INLINE_MAX", "0" } } },
	{ "delay",
	  "each copy waits 0-500 us and each Comch control message arrives 0-2 ms late (seeded)",
	  { { "ODMA_FAULTS", DELAY_FAULTS } } },
	{ "inline-engine",
	  "every copy done on the submitting thread (the inline engine)",
	  { { "ODMA_ENGINE", "inline" } } },
};

#define N_BUILTINS (sizeof(builtins) / sizeof(builtins[0]))

static void set_env(struct compat_schedule *s, const char *name, const char *value)
{
	if (s->nenv >= COMPAT_SCHED_ENV)
		return;
	snprintf(s->env[s->nenv].name, sizeof(s->env[0].name), "%s", name);
	snprintf(s->env[s->nenv].value, sizeof(s->env[0].value), "%s", value);
	s->nenv++;
}

bool compat_schedule_builtin(const char *name, struct compat_schedule *out)
{
	size_t i, j;

	for (i = 0; i < N_BUILTINS; i++) {
		if (strcmp(builtins[i].name, name) != 0)
			continue;
		memset(out, 0, sizeof(*out));
		snprintf(out->name, sizeof(out->name), "%s", builtins[i].name);
		snprintf(out->what, sizeof(out->what), "%s", builtins[i].what);
		for (j = 0; j < COMPAT_SCHED_ENV && builtins[i].env[j][0] != NULL; j++)
			set_env(out, builtins[i].env[j][0], builtins[i].env[j][1]);
		return true;
	}
	return false;
}

const char *compat_schedule_names(void)
{
	return "default, inline0, delay, inline-engine (or all)";
}

const char *compat_schedule_default_set(void)
{
	return "default,inline0,delay";
}

int compat_schedules_parse(struct compat_ctx *c, const char *list)
{
	char buf[512], *tok, *save = NULL;
	size_t i;

	c->nschedules = 0;
	if (strcmp(list, "all") == 0) {
		for (i = 0; i < N_BUILTINS; i++)
			compat_schedule_builtin(builtins[i].name, &c->schedules[c->nschedules++]);
		return 0;
	}
	if (snprintf(buf, sizeof(buf), "%s", list) >= (int)sizeof(buf))
		buf[0] = '\0';
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < c->nschedules; i++)
			if (strcmp(c->schedules[i].name, tok) == 0)
				break;
		if (i < c->nschedules)
			continue; /* named twice */
		if (c->nschedules == COMPAT_MAX_SCHEDULES ||
		    !compat_schedule_builtin(tok, &c->schedules[c->nschedules])) {
			fprintf(stderr, "odma compat: unknown schedule '%s' (schedules: %s)\n", tok,
			        compat_schedule_names());
			return -1;
		}
		c->nschedules++;
	}
	if (c->nschedules == 0) {
		fprintf(stderr, "odma compat: --schedules names no schedule (schedules: %s)\n",
		        compat_schedule_names());
		return -1;
	}
	return 0;
}

/* splitmix64: a well-mixed stream of numbers from one seed */
static uint64_t next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void compat_schedule_from_seed(uint64_t seed, struct compat_schedule *out)
{
	static const char *const inline_max[] = { "0", "0", "4096", NULL };
	static const char *const workers[] = { "1", "2", NULL };
	static const char *const delay[] = { NULL, "0-20", "0-200", "50-1000" };
	static const char *const comch_delay[] = { NULL, "0-100", "0-1000", "200-3000" };
	uint64_t st = seed;
	char faults[160];
	const char *d, *cd;
	size_t len;

	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "seed %llu", (unsigned long long)seed);
	if (next(&st) % 6 == 0) {
		set_env(out, "ODMA_ENGINE", "inline");
	} else {
		const char *im = inline_max[next(&st) % 4];
		const char *w = workers[next(&st) % 3];

		set_env(out, "ODMA_ENGINE", "thread");
		if (im != NULL)
			set_env(out, "ODMA_INLINE_MAX", im);
		if (w != NULL)
			set_env(out, "ODMA_WORKERS", w);
	}
	d = delay[next(&st) % 4];
	cd = comch_delay[next(&st) % 4];
	len = (size_t)snprintf(faults, sizeof(faults), "seed=%llu", (unsigned long long)seed);
	if (d != NULL)
		len += (size_t)snprintf(faults + len, sizeof(faults) - len, ",delay_us=%s", d);
	if (cd != NULL && len < sizeof(faults))
		snprintf(faults + len, sizeof(faults) - len, ",comch_delay_us=%s", cd);
	if (d != NULL || cd != NULL)
		set_env(out, "ODMA_FAULTS", faults);
	compat_schedule_env_line(out, out->what, sizeof(out->what));
	if (out->what[0] == '\0')
		snprintf(out->what, sizeof(out->what), "odma's defaults");
}

/* A word the shell takes as it is, or single-quoted. */
static size_t quote(const char *s, char *out, size_t size)
{
	size_t i, n = 0;
	bool plain = s[0] != '\0';

	for (i = 0; s[i] != '\0'; i++)
		if (strchr("abcdefghijklmnopqrstuvwxyz"
		           "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		           "0123456789_./=,:@%+-",
		           s[i]) == NULL)
			plain = false;
	if (plain)
		return (size_t)snprintf(out, size, "%s", s);
	if (size > 0)
		out[n++] = '\'';
	for (i = 0; s[i] != '\0' && n + 5 < size; i++) {
		if (s[i] == '\'') {
			memcpy(out + n, "'\\''", 4);
			n += 4;
		} else {
			out[n++] = s[i];
		}
	}
	if (n + 1 < size)
		out[n++] = '\'';
	if (size > 0)
		out[n < size ? n : size - 1] = '\0';
	return n;
}

void compat_schedule_env_line(const struct compat_schedule *s, char *out, size_t size)
{
	size_t used = 0;
	unsigned i;
	char q[200];

	out[0] = '\0';
	for (i = 0; i < s->nenv && used < size; i++) {
		quote(s->env[i].value, q, sizeof(q));
		used += (size_t)snprintf(out + used, size - used, "%s%s=%s", i ? " " : "",
		                         s->env[i].name, q);
	}
}

size_t compat_schedule_env(const struct compat_schedule *s, const struct compat_env *base, size_t n,
                           struct compat_env *out, size_t cap)
{
	size_t i, k = 0;
	unsigned j;

	for (i = 0; i < n && k < cap; i++)
		out[k++] = base[i];
	for (i = 0; i < compat_sched_nvars && k < cap; i++) {
		const char *value = NULL;

		for (j = 0; s != NULL && j < s->nenv; j++)
			if (strcmp(s->env[j].name, compat_sched_vars[i]) == 0)
				value = s->env[j].value;
		out[k++] = (struct compat_env){ compat_sched_vars[i], value };
	}
	return k;
}

void compat_command_line(const char *cwd, const struct compat_env *env, size_t n,
                         char *const argv[], char *out, size_t size)
{
	char q[1200];
	size_t used = 0, i;

	out[0] = '\0';
	if (cwd != NULL) {
		quote(cwd, q, sizeof(q));
		used += (size_t)snprintf(out, size, "cd %s && ", q);
	}
	for (i = 0; i < n && used < size; i++) {
		if (env[i].value == NULL)
			continue; /* an unset variable: the line runs in a clean environment */
		quote(env[i].value, q, sizeof(q));
		used += (size_t)snprintf(out + used, size - used, "%s=%s ", env[i].name, q);
	}
	for (i = 0; argv[i] != NULL && used < size; i++) {
		quote(argv[i], q, sizeof(q));
		used += (size_t)snprintf(out + used, size - used, "%s%s", i ? " " : "", q);
	}
}

static int local_start(const struct compat_launcher *l, const struct compat_launch *w,
                       struct compat_proc *p)
{
	(void)l;
	return compat_proc_start(p, w->argv, w->cwd, w->log, w->env, w->nenv, w->pipe_stdin);
}

const struct compat_launcher compat_launcher_local = { "local", local_start, NULL };
