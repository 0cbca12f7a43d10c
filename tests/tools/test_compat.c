/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * odma-compat (`odma compat DIR`) on a fake doca-samples tree written for this test
 * (tests/tools/compat-fake, README.md there lists what each fake program does), against this
 * build installed into a temporary directory: every verdict, the table, the JSON report, the
 * exit status, --only with host/DPU partners, the schedules every program runs under (a
 * program that fails under only one of them fails, and the schedule is named), --schedules,
 * --shake on a fake racy pair (tests/tools/shake_fake.c) with a replay of the seed that broke
 * it, --split-netns (host and DPU sides in two network + PID namespaces; root), and usage
 * errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tool_run.h"

static char tmp[] = "/tmp/odma-test-compat.XXXXXX";
static char pcdir[256], fake[256], tool[256], shake_fake[256];
static struct tool_out out, full_run; /* the last run; the run of the whole tree */
static json_object *report;

static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Runs odma-compat with @args on the fake tree against the temporary installation, after the
 * shell words @prefix (NULL: none). */
static void compat_after(const char *prefix, const char *args)
{
	char full[1200];

	snprintf(full, sizeof(full), "--pkg-config-path '%s' %s '%s'", pcdir, args, fake);
	tool_run(&out, prefix, tool, full, 0);
}

static void compat(const char *args)
{
	compat_after(NULL, args);
}

/* Installs this build under tmp (as consumer_samples.sh does) and runs the whole fake tree. */
static int setup(void **state)
{
	const char *build = tool_path("ODMA_TEST_BUILD_ROOT");
	const char *src = tool_path("ODMA_TEST_SOURCE_ROOT");
	char path[480], *text;

	const char *san = getenv("ODMA_TEST_SANITIZE");
	char flags[128];

	(void)state;
	snprintf(tool, sizeof(tool), "%s", tool_path("ODMA_TEST_COMPAT"));
	snprintf(shake_fake, sizeof(shake_fake), "%s", tool_path("ODMA_TEST_SHAKE_FAKE"));
	if (san != NULL && san[0] != '\0' && strcmp(san, "none") != 0) {
		/*
		 * meson takes CFLAGS/LDFLAGS from the environment when it sets up the fake builds
		 */
		snprintf(flags, sizeof(flags), "-fsanitize=%s", san);
		setenv("CFLAGS", flags, 1);
		setenv("LDFLAGS", flags, 1);
	}
	if (mkdtemp(tmp) == NULL)
		return -1;
	setenv("TMPDIR", tmp,
	       1); /* the work directories of runs without --workdir: removed with it */
	if (sh("meson install -C '%s' --destdir '%s/dest' --no-rebuild --quiet >'%s/install.log' "
	       "2>&1",
	       build, tmp, tmp) != 0) {
		sh("cat '%s/install.log'", tmp);
		return -1;
	}
	/* The .pc files name the configured prefix: point copies of them at the temporary tree. */
	snprintf(pcdir, sizeof(pcdir), "%s/pc", tmp);
	if (sh("mkdir -p '%s' && pc=$(dirname \"$(find '%s/dest' -name doca-common.pc | head -n "
	       "1)\") && for f in \"$pc\"/doca-*.pc; do sed \"s|^prefix=|prefix=%s/dest|\" \"$f\" "
	       ">'%s'/$(basename \"$f\"); done",
	       pcdir, tmp, tmp, pcdir) != 0)
		return -1;
	snprintf(fake, sizeof(fake), "%s/tests/tools/compat-fake", src);
	/* every program under the three default schedules; a hang costs one time limit each */
	snprintf(path, sizeof(path),
	         "--timeout 3 --pair-delay 0.3 --workdir '%s/work' --json '%s/report.json'", tmp,
	         tmp);
	compat(path);
	full_run = out;
	snprintf(path, sizeof(path), "%s/report.json", tmp);
	text = NULL;
	{
		FILE *f = fopen(path, "r");
		static char buf[1 << 18];
		size_t n;

		if (f == NULL)
			return -1;
		n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		fclose(f);
		text = buf;
	}
	report = json_tokener_parse(text);
	return report != NULL ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	json_object_put(report);
	sh("rm -rf '%s'", tmp);
	return 0;
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no \"%s\" in %s", key, json_object_to_json_string(o));
	return v;
}

static const char *str(json_object *o, const char *key)
{
	return json_object_get_string(get(o, key));
}

static json_object *row(const char *name)
{
	json_object *progs = get(report, "programs");
	size_t i;

	for (i = 0; i < json_object_array_length(progs); i++) {
		json_object *p = json_object_array_get_idx(progs, i);

		if (strcmp(str(p, "name"), name) == 0)
			return p;
	}
	fail_msg("no program %s in the report", name);
	return NULL;
}

static bool list_has(json_object *o, const char *key, const char *value)
{
	json_object *a = get(o, key);
	size_t i;

	for (i = 0; i < json_object_array_length(a); i++)
		if (strcmp(json_object_get_string(json_object_array_get_idx(a, i)), value) == 0)
			return true;
	return false;
}

static void assert_row(const char *name, const char *status, const char *builds, const char *runs,
                       const char *reason_part)
{
	json_object *p = row(name);

	if (strcmp(str(p, "status"), status) != 0 || strcmp(str(p, "builds"), builds) != 0 ||
	    strcmp(str(p, "runs"), runs) != 0 || strstr(str(p, "reason"), reason_part) == NULL)
		fail_msg("%s: expected %s/%s/%s with \"%s\", got %s", name, status, builds, runs,
		         reason_part, json_object_to_json_string(p));
}

static void summary_and_exit_status(void **state)
{
	json_object *s = get(report, "summary");

	(void)state;
	assert_int_equal(full_run.status, 1); /* something failed */
	assert_string_equal(str(get(report, "doca_samples"), "release"), "9.9.9-fake");
	assert_int_equal(json_object_get_int(get(s, "total")), 21);
	assert_int_equal(json_object_get_int(get(s, "pass")), 9);
	assert_int_equal(json_object_get_int(get(s, "fail")), 7);
	assert_int_equal(json_object_get_int(get(s, "needs")), 4);
	assert_int_equal(json_object_get_int(get(s, "not-run")), 1);
}

static void passing_programs(void **state)
{
	(void)state;
	/* built with -DDOCA_ARCH_DPU and run with ODMA_SIDE=dpu, or it would have failed */
	assert_row("dma_local_copy", "pass", "yes", "pass", "Sample finished successfully");
	assert_string_equal(str(row("dma_local_copy"), "arch"), "dpu");
	/* a host/DPU pair from a 3.3-style meson.build.public; the text must arrive intact */
	assert_row("dma_copy_host", "pass", "yes", "pass", "the text arrived intact");
	assert_row("dma_copy_dpu", "pass", "yes", "pass", "the text arrived intact");
	/*
	 * the application, once per case: both directions near and under the DMA limit (2 MiB,
	 * from the installation's doca_caps), and a file over it refused by the DPU side
	 */
	assert_row("dma_copy", "pass", "yes", "pass",
	           "5/5 cases: 64 KiB h->d, 64 KiB d->h, 2 MiB-7 h->d, 2 MiB-7 d->h, "
	           "2 MiB+1 refused");
	assert_string_equal(str(row("dma_copy"), "group"), "applications");
	/* an RDMA pair (compat_rdma.c): descriptors through files (RC, DC), then RDMA CM */
	assert_row("rdma_read_responder", "pass", "yes", "pass",
	           "with rdma_read_requester: OOB ok DC ok CM ok");
	assert_row("rdma_read_requester", "pass", "yes", "pass",
	           "with rdma_read_responder: OOB ok DC ok CM ok");
	/* the write pair's CM client names its server by GID (-sat gid, ::ffff:127.0.0.1) */
	assert_row("rdma_write_responder", "pass", "yes", "pass",
	           "with rdma_write_requester: OOB ok DC ok CM (by GID) ok");
	assert_row("rdma_write_requester", "pass", "yes", "pass",
	           "with rdma_write_responder: OOB ok DC ok CM (by GID) ok");
}

/* An RDMA pair whose CM run fails: both rows fail, naming the mode and the side's error. */
static void rdma_pair_names_the_failing_mode(void **state)
{
	json_object *r;
	char args[1200];

	(void)state;
	setenv("ODMA_FAKE_RDMA_FAIL", "1", 1);
	/* a malformed ODMA_COMPAT_RDMA_NETNS: the pair is not run, the row says why */
	snprintf(args, sizeof(args),
	         "--pkg-config-path '%s' --only rdma_read_requester --schedules default '%s'",
	         pcdir, fake);
	tool_run(&out, "ODMA_COMPAT_RDMA_NETNS=bogus", tool, args, 0);
	assert_int_equal(out.status, 1);
	assert_non_null(strstr(out.text, "ODMA_COMPAT_RDMA_NETNS=\"bogus\" is not \"NS_A NS_B "
	                                 "ADDR_A\""));
	/* the active side alone named: its passive partner runs too */
	compat("--only rdma_read_requester --schedules default --json -");
	unsetenv("ODMA_FAKE_RDMA_FAIL");
	assert_int_equal(out.status, 1);
	r = json_tokener_parse(out.text);
	assert_non_null(r);
	assert_int_equal(json_object_get_int(get(get(r, "summary"), "total")), 2);
	assert_int_equal(json_object_get_int(get(get(r, "summary"), "fail")), 2);
	json_object_put(r);
	assert_non_null(strstr(out.text, "OOB ok DC ok CM FAIL (rdma_read_requester failed: "
	                                 "[ERROR] fake: told to fail)"));
}

/*
 * The CM listener's port is the kernel's pick, released before the sample listens on it: when
 * another process took it meanwhile, the pair runs again on a new pick instead of failing.
 */
static void rdma_pair_retries_a_taken_port(void **state)
{
	char marker[] = "/tmp/odma-compat-port-XXXXXX";
	int fd = mkstemp(marker);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	unlink(marker); /* absent: the first CM run of the passive side fails, then makes it */
	setenv("ODMA_FAKE_RDMA_PORT_TAKEN", marker, 1);
	compat("--only rdma_read_requester --schedules default");
	unsetenv("ODMA_FAKE_RDMA_PORT_TAKEN");
	assert_int_equal(access(marker, F_OK), 0); /* the taken port was met */
	unlink(marker);
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.text, "OOB ok DC ok CM ok"));
}

static void failing_programs(void **state)
{
	json_object *b;

	(void)state;
	assert_row("pe_polling", "fail", "yes", "FAIL", "exited 1: [ERROR] fake failure");
	/* a hang under every schedule: killed at the time limit each time */
	assert_row("pe_event", "fail", "yes", "FAIL",
	           "fails under every schedule (default, inline0, delay): pe_event (host) did not "
	           "finish within 3 s (killed)");
	assert_row("pe_multi_context", "fail", "yes", "FAIL", "without \"Sample finished");
	assert_row("pe_task_error", "fail", "no", "-",
	           "implicit declaration of odma_fake_undeclared");
	b = json_object_array_get_idx(get(row("pe_task_error"), "build_details"), 0);
	assert_true(list_has(b, "implicit_declarations", "odma_fake_undeclared"));
	/* a missing function of a library odma has is odma's failure, not a missing library */
	assert_row("pe_reactive", "fail", "no", "-",
	           "odma's doca_common lacks doca_devinfo_get_odma_fake_thing");
	assert_int_equal(json_object_array_length(get(row("pe_reactive"), "needs")), 0);
}

static void programs_needing_a_library(void **state)
{
	(void)state;
	/* the fake tree uses DOCA libraries odma does not provide (Ethernet, Flow) */
	assert_row("graph", "needs", "needs", "needs", "needs doca_eth (no doca_eth_rxq.h");
	assert_row("sync_event_local_pci", "needs", "needs", "needs", "needs doca_flow");
	assert_true(list_has(row("sync_event_local_pci"), "missing_symbols", "doca_flow_init"));
	assert_string_equal(str(row("sync_event_local_pci"), "arch"), "host+dpu");
	assert_row("comch_ctrl_path_server", "needs", "needs", "needs",
	           "pkg-config module doca-flow not found");
	assert_true(list_has(row("comch_ctrl_path_server"), "needs", "doca_flow"));
	/* the client builds, but cannot run without its server */
	assert_row("comch_ctrl_path_client", "needs", "yes", "needs",
	           "its partner comch_ctrl_path_server needs doca_flow");
}

static void unknown_program_is_built_not_run(void **state)
{
	(void)state;
	assert_row("brand_new_sample", "not-run", "yes", "not-run", "does not know how to run it");
}

static void table_on_stdout(void **state)
{
	(void)state;
	assert_non_null(strstr(full_run.text, "PROGRAM"));
	assert_non_null(strstr(full_run.text, "doca_dma/dma_local_copy"));
	assert_non_null(strstr(full_run.text, "21 programs: 9 pass, 7 fail, 4 need"));
	/* the schedules and their settings head the table */
	assert_non_null(strstr(full_run.text, "schedules: default (no change), inline0 "
	                                      "(ODMA_INLINE_MAX=0), delay (ODMA_FAULTS=seed=1,"));
}

/*
 * On a terminal (a pty made by script(1)): a progress line on stderr, rewritten in place,
 * and each row as soon as it is final, before the next program runs; in a pipe, none of it.
 */
static void progress_and_rows_stream_on_a_tty_only(void **state)
{
	static struct tool_out tty;
	const char *row, *next_run;
	char args[1200];

	(void)state;
	if (sh("command -v script >/dev/null 2>&1") != 0)
		skip();
	snprintf(args, sizeof(args),
	         "-qfec \"'%s' --pkg-config-path '%s' --timeout 3 --only dma_local_copy,pe_polling "
	         "'%s'\" /dev/null",
	         tool, pcdir, fake);
	tool_run(&tty, NULL, "script", args, 1);
	assert_non_null(strstr(tty.text, "\r[1/2] building doca_dma/dma_local_copy...\033[K"));
	assert_non_null(strstr(tty.text, "\r[2/2] building doca_common/pe_polling...\033[K"));
	row = strstr(tty.text, "doca_dma/dma_local_copy  ");
	next_run = strstr(tty.text, "\r[2/2] running pe_polling...");
	assert_non_null(row);
	assert_non_null(next_run);
	assert_true(row < next_run); /* the first row came out before the second program ran */
	assert_non_null(strstr(tty.text, "2 programs: 1 pass, 1 fail"));
	/* not a terminal: the same table, no progress line */
	snprintf(args, sizeof(args),
	         "--pkg-config-path '%s' --timeout 3 --only dma_local_copy '%s'", pcdir, fake);
	tool_run(&out, NULL, tool, args, 1);
	assert_non_null(strstr(out.text, "doca_dma/dma_local_copy  "));
	assert_null(strchr(out.text, '\r'));
	assert_null(strstr(out.text, "[1/1]"));
}

static void only_runs_the_named_programs_and_partners(void **state)
{
	(void)state;
	compat("--only dma_local_copy --schedules default");
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.text, "1 programs: 1 pass"));
	compat("--only dma_copy_dpu --schedules default --pair-delay 0.3 --json -");
	assert_int_equal(out.status, 0);
	json_object *r = json_tokener_parse(out.text);

	assert_non_null(r);
	assert_int_equal(json_object_get_int(get(get(r, "summary"), "pass")), 2);
	json_object_put(r);
	/* both halves of a pair named (this once recursed without end) */
	compat("--only dma_copy_dpu,dma_copy_host --schedules default --json -");
	assert_int_equal(out.status, 0);
	r = json_tokener_parse(out.text);
	assert_non_null(r);
	assert_int_equal(json_object_get_int(get(get(r, "summary"), "pass")), 2);
	json_object_put(r);
}

/*
 * A run without --keep or --workdir removes its temporary directory, except, when a program
 * failed, the logs the table's reasons and the report's run_logs name (they were removed with
 * the rest, so the paths the report gave led nowhere).
 */
static void failed_run_keeps_its_logs(void **state)
{
	const char *at;
	char dir[512], args[1200];

	(void)state;
	assert_int_equal(sh("rm -rf '%s'/odma-compat.*", tmp), 0);
	compat("--only dma_local_copy --schedules default");
	assert_int_equal(out.status, 0);
	assert_int_not_equal(sh("ls -d '%s'/odma-compat.* >/dev/null 2>&1", tmp), 0);
	snprintf(args, sizeof(args),
	         "--pkg-config-path '%s' --only pe_polling --schedules default '%s'", pcdir, fake);
	tool_run(&out, NULL, tool, args, 1); /* with its stderr */
	assert_int_equal(out.status, 1);
	at = strstr(out.text, "are kept in ");
	assert_non_null(at);
	assert_int_equal(sscanf(at + strlen("are kept in "), "%511[^;]", dir), 1);
	assert_int_equal(sh("test -d '%s/run' && test -d '%s/logs' && ! test -e '%s/build' && "
	                    "! test -e '%s/src'",
	                    dir, dir, dir, dir),
	                 0);
	assert_int_equal(sh("rm -rf '%s'", dir), 0);
}

/* A DMA Copy case that goes wrong fails the row, naming the case and what went wrong. */
static void dma_copy_names_the_failing_case(void **state)
{
	json_object *r, *p = NULL, *v;
	size_t i;

	(void)state;
	setenv("ODMA_FAKE_DMA_COPY_FLIP", "1", 1); /* the fake's host side corrupts what it gets */
	compat("--only dma_copy --schedules default --pair-delay 0.3 --json -");
	unsetenv("ODMA_FAKE_DMA_COPY_FLIP");
	assert_int_equal(out.status, 1);
	r = json_tokener_parse(out.text);
	assert_non_null(r);
	assert_true(json_object_object_get_ex(r, "programs", &v));
	for (i = 0; i < json_object_array_length(v); i++)
		if (strcmp(str(json_object_array_get_idx(v, i), "name"), "dma_copy") == 0)
			p = json_object_array_get_idx(v, i);
	assert_non_null(p);
	assert_string_equal(str(p, "status"), "fail");
	assert_non_null(strstr(str(p, "reason"),
	                       "1/5 cases passed; 64 KiB d->h failed: the file the host side "
	                       "wrote differs from the one the DPU side sent"));
	json_object_put(r);
}

/* The result of @prog under schedule @name in the full run's report. */
static json_object *sched_result(const char *prog, const char *name)
{
	json_object *a = get(row(prog), "schedule_results");
	size_t i;

	for (i = 0; i < json_object_array_length(a); i++)
		if (strcmp(str(json_object_array_get_idx(a, i), "schedule"), name) == 0)
			return json_object_array_get_idx(a, i);
	fail_msg("%s has no result under %s", prog, name);
	return NULL;
}

/* A program that passes under odma's defaults and fails under one other schedule fails, and
 * its row names that schedule with its settings; the JSON has each schedule's result. */
static void fails_under_one_schedule(void **state)
{
	json_object *r;

	(void)state;
	assert_row("pe_task_resubmit", "fail", "yes", "FAIL",
	           "fails under inline0 (ODMA_INLINE_MAX=0): pe_task_resubmit (host) exited 1: "
	           "[ERROR] fake race");
	assert_string_equal(str(sched_result("pe_task_resubmit", "default"), "status"), "pass");
	assert_string_equal(str(sched_result("pe_task_resubmit", "delay"), "status"), "pass");
	r = sched_result("pe_task_resubmit", "inline0");
	assert_string_equal(str(r, "status"), "fail");
	assert_string_equal(str(r, "env"), "ODMA_INLINE_MAX=0");
	assert_non_null(strstr(str(r, "reproduce"), "ODMA_SIDE=host"));
	assert_non_null(strstr(str(r, "reproduce"), "ODMA_INLINE_MAX=0"));
	assert_non_null(strstr(str(r, "reproduce"), "doca_pe_task_resubmit"));
	/* a hang only with delays: a time-limit failure under "delay", its process group gone */
	assert_row("pe_single_task_comp_cb", "fail", "yes", "FAIL",
	           "fails under delay (ODMA_FAULTS=seed=1,delay_us=0-500,comch_delay_us=0-2000): "
	           "pe_single_task_comp_cb (host) did not finish within 3 s (killed)");
	/* the row quotes the last line the hung program printed */
	assert_non_null(strstr(str(row("pe_single_task_comp_cb"), "reason"),
	                       "; its last line: fake: waiting for a completion"));
	assert_string_equal(str(sched_result("pe_single_task_comp_cb", "default"), "status"),
	                    "pass");
	assert_string_equal(str(sched_result("pe_single_task_comp_cb", "inline0"), "status"),
	                    "pass");
	/* (the brackets keep pgrep from finding the shell that runs it) */
	assert_int_not_equal(
	        sh("pgrep -f '%s/work/build/.*[p]e_single_task_comp_cb' >/dev/null", tmp), 0);
	/* the JSON lists the schedules with their settings */
	assert_int_equal(json_object_array_length(get(report, "schedules")), 3);
	assert_string_equal(str(json_object_array_get_idx(get(report, "schedules"), 1), "env"),
	                    "ODMA_INLINE_MAX=0");
	/* a program that passes passes under all three */
	assert_int_equal(json_object_array_length(get(row("dma_local_copy"), "schedule_results")),
	                 3);
}

/* The Secure Channel application: three cases, each side's sent and received counts. */
static void secure_channel_counts(void **state)
{
	json_object *r;

	(void)state;
	assert_row("secure_channel", "pass", "yes", "pass", "3/3 cases");
	assert_string_equal(str(row("secure_channel"), "arch"), "host+dpu");
	assert_string_equal(str(row("secure_channel"), "group"), "applications");
	setenv("ODMA_FAKE_SC_SHORT", "1", 1); /* the fake host side receives one message fewer */
	compat("--only secure_channel --schedules default --pair-delay 0.3 --json -");
	unsetenv("ODMA_FAKE_SC_SHORT");
	assert_int_equal(out.status, 1);
	r = json_tokener_parse(out.text);
	assert_non_null(r);
	assert_non_null(
	        strstr(str(json_object_array_get_idx(get(r, "programs"), 0), "reason"),
	               "fails under default: 0/3 cases passed; 1 B x1 h->d + 1 B x1 d->h "
	               "failed: the host side did not log \"Consumer received 1 messages\""));
	json_object_put(r);
}

/* --schedules picks the schedules; an unknown one is a usage error. */
static void schedules_option(void **state)
{
	json_object *r;

	(void)state;
	compat("--only pe_task_resubmit --schedules default,delay");
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.text, "schedules: default (no change), delay (ODMA_FAULTS="));
	compat("--only pe_task_resubmit --schedules all --json -");
	assert_int_equal(out.status, 1);
	r = json_tokener_parse(out.text);
	assert_non_null(r);
	assert_int_equal(
	        json_object_array_length(
	                get(json_object_array_get_idx(get(r, "programs"), 0), "schedule_results")),
	        4);
	json_object_put(r);
	compat("--schedules default,nonesuch");
	assert_int_equal(out.status, 2);
}

/* Runs odma compat --shake with @args (options, then -- and the commands). */
static void shake(const char *args)
{
	char full[1600];

	snprintf(full, sizeof(full), "--workdir '%s/shake' %s", tmp, args);
	tool_run(&out, NULL, tool, full, 0);
}

/* Whether the fake racy pair must fail under these settings (its own rule). */
static bool fake_breaks(const char *env)
{
	return strstr(env, "ODMA_INLINE_MAX=0") != NULL && strstr(env, "comch_delay_us=") != NULL;
}

/*
 * --shake on a racy pair: every seed the fake's rule breaks is reported failing, no other; the
 * first is named with its settings and a replay command; replaying that seed fails the same
 * way again, replaying a good seed passes.
 */
static void shake_finds_and_replays_the_seed(void **state)
{
	char args[1200], pair[600];
	json_object *r, *runs, *run;
	const char *bad_env = NULL;
	long long first_bad = -1, good = -1, seed;
	size_t i, nfail = 0;
	char env[300];

	(void)state;
	snprintf(pair, sizeof(pair),
	         "--ready 'fake server ready' --expect 'fake pair done' -- '%s' --- '%s'",
	         shake_fake, shake_fake);
	snprintf(args, sizeof(args), "--shake 10 --seed 1 --json - %s", pair);
	shake(args);
	assert_int_equal(out.status, 1);
	r = json_tokener_parse(out.text);
	assert_non_null(r);
	runs = get(r, "runs");
	assert_int_equal(json_object_array_length(runs), 11); /* the baseline and 10 seeds */
	assert_string_equal(str(json_object_array_get_idx(runs, 0), "schedule"), "baseline");
	assert_string_equal(str(json_object_array_get_idx(runs, 0), "status"), "pass");
	for (i = 1; i < json_object_array_length(runs); i++) {
		run = json_object_array_get_idx(runs, i);
		seed = (long long)i;
		snprintf(env, sizeof(env), "seed %lld", seed);
		assert_string_equal(str(run, "schedule"), env);
		if (fake_breaks(str(run, "env"))) {
			assert_string_equal(str(run, "status"), "fail");
			assert_non_null(strstr(str(run, "reason"),
			                       "host side exited 1: [ERROR] fake race"));
			nfail++;
			if (first_bad < 0) {
				first_bad = seed;
				bad_env = str(run, "env");
			}
		} else {
			assert_string_equal(str(run, "status"), "pass");
			good = seed;
		}
	}
	/* seeds 1..10 hold both kinds; otherwise the draw changed and this test must pick others */
	assert_true(nfail > 0 && good > 0);
	assert_int_equal(json_object_get_int(get(r, "failed")), (int)nfail);
	assert_int_equal(json_object_get_int64(get(r, "first_failure_seed")), first_bad);
	assert_string_equal(str(r, "first_failure_env"), bad_env);
	snprintf(args, sizeof(args), "--shake 1 --seed %lld", first_bad);
	assert_non_null(strstr(str(r, "replay"), args));
	snprintf(env, sizeof(env), "%s", bad_env);
	json_object_put(r);

	/* the replay of the breaking seed: the same settings, the same failure */
	snprintf(args, sizeof(args), "--shake 1 --seed %lld --json - %s", first_bad, pair);
	shake(args);
	assert_int_equal(out.status, 1);
	r = json_tokener_parse(out.text);
	assert_non_null(r);
	run = json_object_array_get_idx(get(r, "runs"), 1);
	assert_string_equal(str(run, "env"), env);
	assert_string_equal(str(run, "status"), "fail");
	assert_int_equal(json_object_get_int64(get(r, "first_failure_seed")), first_bad);
	json_object_put(r);
	/* the text names the seed, its settings and the replay */
	snprintf(args, sizeof(args), "--shake 1 --seed %lld %s", first_bad, pair);
	shake(args);
	snprintf(args, sizeof(args), "the first: seed %lld", first_bad);
	assert_non_null(strstr(out.text, args));
	assert_non_null(strstr(out.text, "settings:  ODMA_ENGINE=thread"));
	assert_non_null(strstr(out.text, "replay:    odma compat --shake 1 --seed"));
	/* a seed that did not break it still does not */
	snprintf(args, sizeof(args), "--shake 1 --seed %lld %s", good, pair);
	shake(args);
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.text, "all 1 schedules passed"));
}

/* --shake on one program; a baseline that fails; a hang; usage errors. */
static void shake_single_baseline_hang_usage(void **state)
{
	(void)state;
	shake("--shake 3 -- true");
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.text, "all 3 schedules passed (seeds 1..3)"));
	shake("--shake 3 -- false");
	assert_int_equal(out.status, 1);
	assert_non_null(strstr(out.text, "fails under odma's defaults already"));
	shake("--shake 1 --timeout 0.5 -- sleep 30");
	assert_int_equal(out.status, 1);
	assert_non_null(strstr(out.text, "the program did not finish within 0.5 s (killed)"));
	/* a DPU side that never prints the --ready text */
	shake("--shake 1 --timeout 0.5 --ready nope -- true --- sleep 30");
	assert_int_equal(out.status, 1);
	assert_non_null(
	        strstr(out.text, "the dpu side did not print \"nope\" (--ready) within 0.5 s"));
	shake("--shake 0 -- true");
	assert_int_equal(out.status, 2);
	shake("--shake 2");
	assert_int_equal(out.status, 2);
	shake("--shake 2 -- true ---");
	assert_int_equal(out.status, 2);
	shake("--shake 2 --seed x -- true");
	assert_int_equal(out.status, 2);
	tool_run(&out, NULL, tool, "--shake 1 --help", 0);
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.text, "usage: odma compat --shake N"));
}

/* "fake SIDE: netns N, pid P, ODMA_FABRIC F" from a fake dma_copy side's log; false if none. */
static bool where(const char *log, unsigned long *netns, long *pid, char *fabric, size_t size)
{
	char line[512], fmt[64];
	bool found = false;
	FILE *f = fopen(log, "r");

	if (f == NULL)
		return false;
	snprintf(fmt, sizeof(fmt), "fake %%*s netns %%lu, pid %%ld, ODMA_FABRIC %%%zus", size - 1);
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, fmt, netns, pid, fabric) == 3)
			found = true;
	fclose(f);
	return found;
}

/* "fake ROLE: netns N, -sa A, ..." from a fake RDMA side's log; false if none. */
static bool rdma_where(const char *log, unsigned long *netns, char *sa, size_t size)
{
	char line[512], fmt[64];
	bool found = false;
	FILE *f = fopen(log, "r");

	if (f == NULL)
		return false;
	snprintf(fmt, sizeof(fmt), "fake %%*s netns %%lu, -sa %%%zu[^,]", size - 1);
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, fmt, netns, sa) == 2)
			found = true;
	fclose(f);
	return found;
}

/*
 * --split-netns: the fake dma_copy pair (export, descriptor through a file, DMA copy) runs
 * with its host side and its DPU side in two network namespaces (neither ours), each PID 1 of
 * a PID namespace of its own, both given the DPU side's ODMA_FABRIC, and passes; a hanging
 * side is killed at the time limit, nothing of it left; a pair
 * that meets over Comch (the fake Secure Channel application) runs split and passes; an
 * RDMA pair runs split in all three modes, its CM client given the DPU side's veth address; the
 * namespaces are gone afterwards. Without root: a usage error saying so.
 */
static void split_netns_pair(void **state)
{
	char args[700], log[600], fab_h[64], fab_d[64];
	unsigned long ns_h = 0, ns_d = 0;
	long pid_h = 0, pid_d = 0;
	struct stat own;
	json_object *r, *p = NULL, *v;
	size_t i;

	(void)state;
	if (geteuid() != 0) {
		compat("--split-netns --only dma_copy_host");
		assert_int_equal(out.status, 2);
		printf("skip: --split-netns needs root to create namespaces (checked the refusal "
		       "only)\n");
		return;
	}
	/* not root: refused before anything is built, with the reason */
	snprintf(args, sizeof(args), "--split-netns --only dma_copy_host '%s'", fake);
	tool_run(&out, "setpriv --reuid=65534 --regid=65534 --clear-groups", tool, args, 1);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.text, "--split-netns needs root"));
	/*
	 * namespaces that cannot be made (here: an ip that refuses): a setup error with ip's words
	 */
	assert_int_equal(sh("mkdir -p '%s/noip' && printf '#!/bin/sh\\necho \"RTNETLINK answers: "
	                    "Operation not permitted\" >&2\\nexit 2\\n' >'%s/noip/ip' && chmod +x "
	                    "'%s/noip/ip'",
	                    tmp, tmp, tmp),
	                 0);
	snprintf(args, sizeof(args), "PATH='%s/noip':\"$PATH\"", tmp);
	snprintf(log, sizeof(log), "--pkg-config-path '%s' --split-netns --only dma_copy_host '%s'",
	         pcdir, fake);
	tool_run(&out, args, tool, log, 1);
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.text, "--split-netns cannot create network namespace"));
	assert_non_null(strstr(out.text, "RTNETLINK answers: Operation not permitted"));

	snprintf(args, sizeof(args),
	         "--split-netns --only dma_copy_host,secure_channel --schedules default "
	         "--pair-delay 0.3 --timeout 10 --workdir '%s/split' --json -",
	         tmp);
	compat(args);
	assert_int_equal(out.status, 0);
	r = json_tokener_parse(out.text);
	assert_non_null(r);
	assert_true(json_object_get_boolean(get(r, "split_netns")));
	assert_true(json_object_object_get_ex(r, "programs", &v));
	for (i = 0; i < json_object_array_length(v); i++) {
		json_object *o = json_object_array_get_idx(v, i);
		const char *name = str(o, "name");

		if (strcmp(name, "dma_copy_host") == 0 || strcmp(name, "dma_copy_dpu") == 0) {
			if (strcmp(str(o, "status"), "pass") != 0)
				fail_msg("%s under --split-netns: %s", name,
				         json_object_to_json_string(o));
		} else if (strcmp(name, "secure_channel") == 0) {
			p = o;
		}
	}
	/* a Comch pair runs split too (Comch crosses machines over ODMA_FABRIC) */
	assert_non_null(p);
	assert_string_equal(str(p, "status"), "pass");
	json_object_put(r);

	snprintf(log, sizeof(log), "%s/split/run/dma_copy_host/default/run-dma_copy_host-host.log",
	         tmp);
	assert_true(where(log, &ns_h, &pid_h, fab_h, sizeof(fab_h)));
	snprintf(log, sizeof(log), "%s/split/run/dma_copy_host/default/run-dma_copy_dpu-dpu.log",
	         tmp);
	assert_true(where(log, &ns_d, &pid_d, fab_d, sizeof(fab_d)));
	assert_int_equal(stat("/proc/self/ns/net", &own), 0);
	assert_true(ns_h != 0 && ns_d != 0);
	assert_true(ns_h != ns_d);
	assert_true(ns_h != own.st_ino && ns_d != own.st_ino);
	assert_int_equal(pid_h, 1); /* each the first process of its own PID namespace */
	assert_int_equal(pid_d, 1);
	assert_string_equal(fab_h, "10.203.0.2:18515");
	assert_string_equal(fab_d, fab_h);
	/* an RDMA pair split too: the CM client dials the DPU side's veth address */
	snprintf(args, sizeof(args),
	         "--split-netns --only rdma_read_responder --schedules default "
	         "--workdir '%s/split-rdma' --json -",
	         tmp);
	compat(args);
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.text, "with rdma_read_requester: OOB ok DC ok CM ok"));
	snprintf(log, sizeof(log),
	         "%s/split-rdma/run/rdma_read_responder/CM/run-rdma_read_requester.log", tmp);
	assert_true(rdma_where(log, &ns_h, fab_h, sizeof(fab_h)));
	snprintf(log, sizeof(log),
	         "%s/split-rdma/run/rdma_read_responder/CM/run-rdma_read_responder.log", tmp);
	assert_true(rdma_where(log, &ns_d, fab_d, sizeof(fab_d)));
	assert_true(ns_h != 0 && ns_d != 0 && ns_h != ns_d);
	assert_true(ns_h != own.st_ino && ns_d != own.st_ino);
	assert_string_equal(fab_h, "10.203.0.2");
	assert_string_equal(fab_d, "-");
	/* a side that hangs is killed at the time limit with everything in its PID namespace */
	setenv("ODMA_FAKE_DMA_COPY_HANG", "1", 1);
	snprintf(args, sizeof(args),
	         "--split-netns --only dma_copy_host --schedules default --timeout 2 "
	         "--workdir '%s/split-hang' --json -",
	         tmp);
	compat(args);
	unsetenv("ODMA_FAKE_DMA_COPY_HANG");
	assert_int_equal(out.status, 1);
	assert_non_null(strstr(out.text, "dma_copy_dpu (dpu) did not finish within 2 s (killed)"));
	assert_int_not_equal(sh("pgrep -f '%s/split-hang/build/.*[d]oca_dma_copy' >/dev/null", tmp),
	                     0);
	/* the table says how the pairs ran */
	snprintf(args, sizeof(args),
	         "--split-netns --only dma_copy_host --schedules default --pair-delay 0.3");
	compat(args);
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.text, "split-netns: each host/DPU pair's sides in two network"));
	/* no namespace of a check that has ended is left behind */
	assert_int_equal(
	        sh("for n in $(ip netns list | sed -n 's/^odma-cx-[hd]\\([0-9]*\\).*/\\1/p');"
	           " do [ -d /proc/$n ] || exit 1; done"),
	        0);
}

/* compat() keeping stderr: the one line a refusal prints. */
static void compat_err(const char *args)
{
	char full[1200];

	snprintf(full, sizeof(full), "--pkg-config-path '%s' %s '%s'", pcdir, args, fake);
	tool_run(&out, NULL, tool, full, 1);
}

/* Two programs built with @jobs ("-j 1", "--jobs 2"): whether the second build started before
 * the first ended, from the -v lines. */
static bool second_build_started_before_first_ended(const char *jobs)
{
	char args[200];
	const char *first_built, *second;

	snprintf(args, sizeof(args), "-v %s --only dma_local_copy,pe_polling --schedules default",
	         jobs);
	compat_err(args);
	assert_int_equal(out.status, 1); /* pe_polling builds, then fails its run */
	assert_non_null(strstr(out.text, "2 programs: 1 pass, 1 fail"));
	assert_non_null(strstr(out.text, "odma compat: built doca_dma/dma_local_copy (dpu): yes"));
	assert_non_null(strstr(out.text, "odma compat: built doca_common/pe_polling (host): yes"));
	first_built = strstr(out.text, "odma compat: built ");
	second = strstr(out.text, "odma compat: building doca_common/pe_polling (host)");
	assert_non_null(second);
	return second < first_built;
}

/*
 * --jobs N: up to N builds at a time, each with its own verdict, the runs after them as
 * before. (The whole tree of setup() builds with the default, two per CPU, so every verdict
 * above comes from builds made side by side.) Two programs: with two at a time both builds
 * start before either ends; with one at a time the first ends before the second starts.
 */
static void builds_run_side_by_side(void **state)
{
	(void)state;
	assert_true(second_build_started_before_first_ended("--jobs 2"));
	assert_false(second_build_started_before_first_ended("-j 1"));
}

/*
 * odma compat started from inside a ninja build directory leaves it alone: meson 1.0 runs
 * `ninja -t restat` and `ninja -t cleandead` in the directory it is started from, which
 * rewrote that directory's .ninja_log (odma's own build directory, under meson test), and two
 * builds side by side lost it (without the fix this test finds no .ninja_log left); so the
 * builds start in the work directory.
 */
static void builds_leave_the_calling_directory_alone(void **state)
{
	char dir[300], cd[400], log[320];
	struct stat before, after;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/ninja-dir", tmp);
	/* a rule with a depfile, so that ninja keeps a .ninja_deps there (meson's condition) */
	assert_int_equal(sh("mkdir -p '%s' && printf 'rule touch\n  command = touch $out && "
	                    "echo $out: >$out.d\n  depfile = $out.d\n  deps = gcc\n"
	                    "build made: touch\n' >'%s/build.ninja' && ninja -C '%s' >/dev/null && "
	                    "test -f '%s/.ninja_deps'",
	                    dir, dir, dir, dir),
	                 0);
	snprintf(log, sizeof(log), "%s/.ninja_log", dir);
	assert_int_equal(stat(log, &before), 0);
	snprintf(cd, sizeof(cd), "cd '%s' &&", dir);
	compat_after(cd, "-j 2 --only dma_local_copy,pe_polling --schedules default");
	assert_int_equal(out.status, 1); /* pe_polling fails its run */
	assert_int_equal(stat(log, &after), 0);
	/* the same file, untouched (meson's restat wrote a new one, or lost it) */
	assert_true(before.st_ino == after.st_ino);
	assert_int_equal(before.st_size, after.st_size);
	assert_true(before.st_mtim.tv_sec == after.st_mtim.tv_sec &&
	            before.st_mtim.tv_nsec == after.st_mtim.tv_nsec);
}

static void usage_errors(void **state)
{
	char args[600];

	(void)state;
	tool_run(&out, NULL, tool, "", 0);
	assert_int_equal(out.status, 2);
	tool_run(&out, NULL, tool, "--help", 0);
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.text, "usage: odma compat"));
	compat("--timeout 0");
	assert_int_equal(out.status, 2);
	compat("--workdir /dev/null/none"); /* an unusable work directory */
	assert_int_equal(out.status, 2);
	compat_err("--jobs 0");
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.text, "odma compat: bad --jobs '0' (1 to 64 builds at once)"));
	compat_err("-j 65");
	assert_int_equal(out.status, 2);
	tool_run(&out, NULL, tool, "--pkg-config-path /nonexistent /nonexistent", 0);
	assert_int_equal(out.status, 2);
	/* a folder without samples/ is not a doca-samples checkout */
	snprintf(args, sizeof(args), "--pkg-config-path '%s' '%s/samples'", pcdir, fake);
	tool_run(&out, NULL, tool, args, 0);
	assert_int_equal(out.status, 2);
	/* no odma where it is told to look */
	snprintf(args, sizeof(args), "--pkg-config-path '%s' '%s'", tmp, fake);
	tool_run(&out, "PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR=/nonexistent", tool, args, 0);
	assert_int_equal(out.status, 2);
}

/* The ELF machine of @path: 62 x86-64, 183 aarch64; 0 when unreadable. */
static unsigned elf_machine(const char *path)
{
	unsigned char h[20];
	FILE *f = fopen(path, "rb");
	unsigned m = 0;

	if (f != NULL) {
		if (fread(h, 1, sizeof(h), f) == sizeof(h))
			m = h[18] | (unsigned)h[19] << 8;
		fclose(f);
	}
	return m;
}

/*
 * --dpu-arch arm64 (issue 31): its refusals, then, with the aarch64 odma of a cross build
 * (make cross ARCH=arm64: build-arm64, ODMA_TEST_DPU_PC) and as root, the DMA Copy pair with
 * the DPU side cross-built for aarch64 and run under qemu-user beside the native host side.
 */
static void dpu_arch_arm64(void **state)
{
	const char *dpu_pc = getenv("ODMA_TEST_DPU_PC"), *san = getenv("ODMA_TEST_SANITIZE");
	char args[900], exe[600];
	json_object *r, *v;
	struct stat st;
	size_t i;

	(void)state;
	compat_err("--dpu-arch sparc --split-netns --only dma_copy_host");
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.text, geteuid() == 0 ? "arm64 (aarch64) is" : "needs root"));
	compat_err("--dpu-arch arm64 --only dma_copy_host");
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.text, "--dpu-arch arm64 needs --split-netns"));
	if (geteuid() != 0) {
		printf("skip: --dpu-arch runs need root (--split-netns); checked the refusals\n");
		return;
	}
	compat_err("--dpu-arch arm64 --split-netns --only dma_copy_host");
	assert_int_equal(out.status, 2);
	assert_non_null(strstr(out.text, "--dpu-pkg-config-path"));
	if (san != NULL && san[0] != '\0' && strcmp(san, "none") != 0) {
		/* the sanitizer flags this test sets in CFLAGS/LDFLAGS reach the aarch64 build too,
		 * and the cross toolchain has no sanitizer runtime */
		printf("skip: no aarch64 sanitizer runtime for the DPU side's build (stage slow "
		       "runs it unsanitized); checked the refusals\n");
		return;
	}
	if (dpu_pc == NULL || stat(dpu_pc, &st) != 0 ||
	    system("command -v qemu-aarch64 >/dev/null && command -v aarch64-linux-gnu-gcc "
	           ">/dev/null") != 0) {
		printf("skip: no aarch64 odma at %s, or no cross toolchain / qemu-user (make cross "
		       "ARCH=arm64 makes both); checked the refusals\n",
		       dpu_pc != NULL ? dpu_pc : "(ODMA_TEST_DPU_PC unset)");
		return;
	}
	snprintf(args, sizeof(args),
	         "--split-netns --dpu-arch arm64 --dpu-pkg-config-path '%s' --only dma_copy_host "
	         "--schedules default --timeout 60 --workdir '%s/arm' --json -",
	         dpu_pc, tmp);
	compat(args);
	assert_int_equal(out.status, 0);
	r = json_tokener_parse(out.text);
	assert_non_null(r);
	assert_true(json_object_object_get_ex(r, "programs", &v));
	assert_int_equal(json_object_array_length(v), 2);
	for (i = 0; i < json_object_array_length(v); i++) {
		json_object *o = json_object_array_get_idx(v, i), *s;

		if (!json_object_object_get_ex(o, "status", &s) ||
		    strcmp(json_object_get_string(s), "pass") != 0)
			fail_msg("--dpu-arch arm64: %s", json_object_to_json_string(o));
	}
	json_object_put(r);
	/* the DPU side is an Arm program, the host side a native one */
	snprintf(exe, sizeof(exe), "%s/arm/build/doca_dma-dma_copy_dpu-dpu/doca_dma_copy_dpu", tmp);
	assert_int_equal(elf_machine(exe), 183);
	snprintf(exe, sizeof(exe), "%s/arm/build/doca_dma-dma_copy_host-host/doca_dma_copy_host",
	         tmp);
	assert_int_equal(elf_machine(exe), 62);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(summary_and_exit_status),
		cmocka_unit_test(passing_programs),
		cmocka_unit_test(failing_programs),
		cmocka_unit_test(programs_needing_a_library),
		cmocka_unit_test(unknown_program_is_built_not_run),
		cmocka_unit_test(table_on_stdout),
		cmocka_unit_test(progress_and_rows_stream_on_a_tty_only),
		cmocka_unit_test(only_runs_the_named_programs_and_partners),
		cmocka_unit_test(failed_run_keeps_its_logs),
		cmocka_unit_test(dma_copy_names_the_failing_case),
		cmocka_unit_test(rdma_pair_names_the_failing_mode),
		cmocka_unit_test(rdma_pair_retries_a_taken_port),
		cmocka_unit_test(fails_under_one_schedule),
		cmocka_unit_test(secure_channel_counts),
		cmocka_unit_test(schedules_option),
		cmocka_unit_test(shake_finds_and_replays_the_seed),
		cmocka_unit_test(shake_single_baseline_hang_usage),
		cmocka_unit_test(split_netns_pair),
		cmocka_unit_test(builds_run_side_by_side),
		cmocka_unit_test(builds_leave_the_calling_directory_alone),
		cmocka_unit_test(usage_errors),
		cmocka_unit_test(dpu_arch_arm64),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
