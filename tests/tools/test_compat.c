/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * odma-compat (`odma compat DIR`) on a fake doca-samples tree written for this test
 * (tests/tools/compat-fake, README.md there lists what each fake program does), against this
 * build installed into a temporary directory: every verdict, the table, the JSON report, the
 * exit status, --only with host/DPU partners, and usage errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

#include "tool_run.h"

static char tmp[] = "/tmp/odma-test-compat.XXXXXX";
static char pcdir[256], fake[256], tool[256];
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

/* Runs odma-compat with @args on the fake tree against the temporary installation. */
static void compat(const char *args)
{
	char full[1200];

	snprintf(full, sizeof(full), "--pkg-config-path '%s' %s '%s'", pcdir, args, fake);
	tool_run(&out, NULL, tool, full, 0);
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
	if (san != NULL && san[0] != '\0' && strcmp(san, "none") != 0) {
		/* meson takes CFLAGS/LDFLAGS from the environment when it sets up the fake builds
		 */
		snprintf(flags, sizeof(flags), "-fsanitize=%s", san);
		setenv("CFLAGS", flags, 1);
		setenv("LDFLAGS", flags, 1);
	}
	if (mkdtemp(tmp) == NULL)
		return -1;
	if (sh("meson install -C '%s' --destdir '%s/dest' --no-rebuild --quiet >'%s/install.log' "
	       "2>&1",
	       build, tmp, tmp) != 0) {
		sh("cat '%s/install.log'", tmp);
		return -1;
	}
	/* The .pc files name the configured prefix: point copies of them at the temporary tree. */
	snprintf(pcdir, sizeof(pcdir), "%s/pc", tmp);
	if (sh("mkdir -p '%s' && pc=$(dirname \"$(find '%s/dest' -name doca-common.pc | head -n "
	       "1)\")"
	       " && for f in \"$pc\"/doca-*.pc; do sed \"s|^prefix=|prefix=%s/dest|\" \"$f\" "
	       ">'%s'/$(basename \"$f\"); done",
	       pcdir, tmp, tmp, pcdir) != 0)
		return -1;
	snprintf(fake, sizeof(fake), "%s/tests/tools/compat-fake", src);
	snprintf(path, sizeof(path), "--timeout 5 --workdir '%s/work' --json '%s/report.json'", tmp,
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
	assert_int_equal(json_object_get_int(get(s, "total")), 14);
	assert_int_equal(json_object_get_int(get(s, "pass")), 4);
	assert_int_equal(json_object_get_int(get(s, "fail")), 5);
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
}

static void failing_programs(void **state)
{
	json_object *b;

	(void)state;
	assert_row("pe_polling", "fail", "yes", "FAIL", "exited 1: [ERROR] fake failure");
	assert_row("pe_event", "fail", "yes", "FAIL", "did not finish within 5 s");
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
	assert_non_null(strstr(full_run.text, "14 programs: 4 pass, 5 fail, 4 need"));
}

static void only_runs_the_named_programs_and_partners(void **state)
{
	(void)state;
	compat("--only dma_local_copy");
	assert_int_equal(out.status, 0);
	assert_non_null(strstr(out.text, "1 programs: 1 pass"));
	compat("--only dma_copy_dpu --json -");
	assert_int_equal(out.status, 0);
	json_object *r = json_tokener_parse(out.text);

	assert_non_null(r);
	assert_int_equal(json_object_get_int(get(get(r, "summary"), "pass")), 2);
	json_object_put(r);
	/* both halves of a pair named (this once recursed without end) */
	compat("--only dma_copy_dpu,dma_copy_host --json -");
	assert_int_equal(out.status, 0);
	r = json_tokener_parse(out.text);
	assert_non_null(r);
	assert_int_equal(json_object_get_int(get(get(r, "summary"), "pass")), 2);
	json_object_put(r);
}

/* A DMA Copy case that goes wrong fails the row, naming the case and what went wrong. */
static void dma_copy_names_the_failing_case(void **state)
{
	json_object *r, *p = NULL, *v;
	size_t i;

	(void)state;
	setenv("ODMA_FAKE_DMA_COPY_FLIP", "1", 1); /* the fake's host side corrupts what it gets */
	compat("--only dma_copy --json -");
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(summary_and_exit_status),
		cmocka_unit_test(passing_programs),
		cmocka_unit_test(failing_programs),
		cmocka_unit_test(programs_needing_a_library),
		cmocka_unit_test(unknown_program_is_built_not_run),
		cmocka_unit_test(table_on_stdout),
		cmocka_unit_test(only_runs_the_named_programs_and_partners),
		cmocka_unit_test(dma_copy_names_the_failing_case),
		cmocka_unit_test(usage_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
