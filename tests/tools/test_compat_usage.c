/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * odma compat's usage errors that must come before any work: exit 2 and exactly one line,
 * nothing built, run or read without bound (fast: no samples tree is built here;
 * tools_compat, in the suite slow, runs the real thing).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tool_run.h"

static struct tool_out out;
static char tmp[256];

static const char *compat(void)
{
	return tool_path("ODMA_TEST_COMPAT");
}

static int line_count(const char *text)
{
	int n = 0;

	for (; *text != '\0'; text++)
		n += *text == '\n';
	return n;
}

/* odma compat @args exits 2 with one line (stdout and stderr together) holding @want. */
static void refused_in_one_line(const char *args, const char *want)
{
	tool_run(&out, NULL, compat(), args, 1);
	if (out.status != 2 || line_count(out.text) != 1 || strstr(out.text, want) == NULL)
		fail_msg("odma compat %s: exit %d, want 2 and one line holding \"%s\"; got:\n%s",
		         args, out.status, want, out.text);
}

static int setup(void **s)
{
	(void)s;
	snprintf(tmp, sizeof(tmp), "%s/compat-usage.XXXXXX",
	         getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(tmp) == NULL ? -1 : 0;
}

static int teardown(void **s)
{
	char cmd[512];

	(void)s;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : -1;
}

/* --json into a directory that does not exist: refused before any schedule or build runs. */
static void test_json_path_first(void **s)
{
	char args[1024], marker[300];
	struct stat st;

	(void)s;
	snprintf(marker, sizeof(marker), "%s/ran", tmp);
	snprintf(args, sizeof(args),
	         "--shake 2 --json '%s/no/such/dir/x.json' -- sh -c 'echo >> \"%s\"'", tmp, marker);
	refused_in_one_line(args, "no/such/dir/x.json");
	assert_int_not_equal(stat(marker, &st), 0); /* the program never ran */
	/* the build mode: the JSON path is refused before the samples tree is looked at */
	snprintf(args, sizeof(args), "--json '%s/no/such/dir/x.json' '%s/nothing-here'", tmp, tmp);
	refused_in_one_line(args, "no/such/dir/x.json");
	/* a writable path is not left behind by the check */
	snprintf(args, sizeof(args), "--json '%s/x.json' '%s/nothing-here'", tmp, tmp);
	refused_in_one_line(args, "is not a directory");
	snprintf(marker, sizeof(marker), "%s/x.json", tmp);
	assert_int_not_equal(stat(marker, &st), 0);
}

/*
 * --json to a file that takes no bytes (/dev/full passes the check: it opens): the failed
 * write is said in one line, not only in the exit status.
 */
static void test_json_write_fails(void **s)
{
	(void)s;
	if (access("/dev/full", W_OK) != 0)
		skip();
	tool_run(&out, "timeout 20", compat(), "--shake 1 --json /dev/full -- true", 1);
	if (out.status != 2 ||
	    strstr(out.text, "--json /dev/full: cannot write it: No space left on device\n") ==
	            NULL)
		fail_msg("odma compat --shake 1 --json /dev/full: exit %d, want 2 and a line "
		         "saying the write failed; got:\n%s",
		         out.status, out.text);
}

/*
 * --shake with more failed seeds than its summary line lists: every seed listed is whole (a
 * seed cut short named another: "100024, 10" for 100024, 100025), then " and N more" counts
 * the rest. Every seeded schedule sets ODMA_ENGINE and the baseline does not, so all fail.
 */
static void test_shake_seed_list(void **s)
{
	const char *sum, *p, *end;
	unsigned long long seed, listed = 0, more = 0;
	char *next;

	(void)s;
	tool_run(&out, "timeout 60 env -u ODMA_ENGINE", compat(),
	         "--shake 40 --seed 100000 -- sh -c 'test -z \"$ODMA_ENGINE\"'", 1);
	sum = strstr(out.text, "40 of 40 schedules failed (seeds ");
	end = sum != NULL ? strchr(sum, ')') : NULL;
	if (out.status != 1 || end == NULL)
		fail_msg("exit %d, want 1 and a summary of 40 failed seeds; got:\n%s", out.status,
		         out.text);
	for (p = strchr(sum, '(') + 7; p < end; p = next) {
		seed = strtoull(p, &next, 10);
		if (next == p || seed != 100000 + listed)
			break;
		listed++;
		if (strncmp(next, ", ", 2) == 0)
			next += 2;
	}
	if (p < end && sscanf(p, " and %llu more)", &more) != 1)
		fail_msg("a seed cut short or out of order at \"%.*s\"", (int)(end - p + 1), p);
	if (listed == 0 || listed + more != 40)
		fail_msg("%llu seeds listed and %llu more, not 40: %.*s", listed, more,
		         (int)(end - sum + 1), sum);
}

/*
 * --workdir naming a file: a usage error in one line. It was taken as the work directory,
 * and each run then failed as "cannot start true: No such file or directory", exit 1.
 */
static void test_workdir_not_a_dir(void **s)
{
	char path[300], args[700];
	FILE *f;

	(void)s;
	snprintf(path, sizeof(path), "%s/a-file", tmp);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(args, sizeof(args), "--shake 1 --workdir '%s' -- true", path);
	refused_in_one_line(args, "a-file: Not a directory");
	snprintf(args, sizeof(args), "--shake 1 --workdir '%s/fifo' -- true", tmp);
	snprintf(path, sizeof(path), "%s/fifo", tmp);
	assert_int_equal(mkfifo(path, 0600), 0);
	refused_in_one_line(args, "fifo: Not a directory");
}

/*
 * A PCI address that is no address: a usage error before any work. It was handed to every
 * sample's -p, so the whole tree was built and then every sample failed to find its device
 * (exit 1, read as odma's failures).
 */
static void test_pci_addr_refused(void **s)
{
	static const char *const bad[][2] = {
		{ "--host-pci", "b1:00:0" },
		{ "--dpu-pci", "03:00.8" },
		{ "--rep-pci", "mlx5_0" },
	};
	char args[700], want[64];

	(void)s;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(args, sizeof(args), "%s %s '%s/nothing-here'", bad[i][0], bad[i][1], tmp);
		snprintf(want, sizeof(want), "%s '%s' is not a PCI address", bad[i][0], bad[i][1]);
		refused_in_one_line(args, want);
	}
}

/*
 * --only naming a program the tree does not have (a typo beside a real name): refused before
 * anything is built. It was left out in silence: the run checked the other names and said
 * all passed (exit 0). The build tree's uninstalled odma stands in for an installation.
 */
static void test_only_unknown_name(void **s)
{
	char args[1200];

	(void)s;
	snprintf(args, sizeof(args),
	         "--pkg-config-path '%s/meson-uninstalled' --workdir '%s' --only "
	         "pe_polling,pe_poling "
	         "'%s/tests/tools/compat-fake'",
	         tool_path("ODMA_TEST_BUILD_ROOT"), tmp, tool_path("ODMA_TEST_SOURCE_ROOT"));
	tool_run(&out, "timeout 40", compat(), args, 1);
	if (out.status != 2 ||
	    strstr(out.text, "--only pe_poling: no program of that name") == NULL)
		fail_msg("odma compat %s: exit %d, want 2 and a line naming pe_poling; got:\n%s",
		         args, out.status, out.text);
}

/*
 * A time flag out of range names the flag and the range ("bad time '0'" named neither: with
 * --timeout, --build-timeout and --pair-delay on one line, which was it, and what is allowed?).
 */
static void test_time_flags_named(void **s)
{
	(void)s;
	refused_in_one_line("--timeout 0 /nonexistent",
	                    "--timeout '0' is not a time: seconds, more than 0 and at most 86400");
	refused_in_one_line("--build-timeout 1e9 /nonexistent", "--build-timeout '1e9' is not");
	refused_in_one_line("--shake 1 --pair-delay -1 -- true", "--pair-delay '-1' is not a time");
}

/*
 * A flag that only means something beside another is refused without it: --ready and
 * --pair-delay time the host side after a DPU side (none without ---), and
 * --dpu-pkg-config-path is the aarch64 odma of --dpu-arch. All three were silently ignored.
 */
static void test_flag_without_partner(void **s)
{
	(void)s;
	refused_in_one_line("--shake 1 --ready up -- true",
	                    "--ready and --pair-delay time the host side after the DPU side");
	refused_in_one_line("--shake 1 --pair-delay 2 -- true",
	                    "--ready and --pair-delay time the host side after the DPU side");
	refused_in_one_line("--dpu-pkg-config-path /tmp /nonexistent",
	                    "--dpu-pkg-config-path is the aarch64 odma of --dpu-arch arm64");
}

/*
 * --pair-delay 0 is no head start (the host side starts with the DPU side), not a bad time:
 * it was refused as "not a time: seconds, more than 0".
 */
static void test_pair_delay_zero(void **s)
{
	(void)s;
	refused_in_one_line("--pair-delay 0 /proc/no-such-dir",
	                    "/proc/no-such-dir is not a directory");
	tool_run(&out, NULL, compat(), "--shake 1 --pair-delay 0 -- true --- true", 1);
	if (out.status != 0)
		fail_msg("--shake 1 --pair-delay 0: exit %d, want 0; got:\n%s", out.status,
		         out.text);
	refused_in_one_line("--shake 1 --pair-delay -0.5 -- true --- true",
	                    "--pair-delay '-0.5' is not a time: seconds, 0 or more");
}

/*
 * --only that names no program ("" or commas) or is longer than its list is read: refused
 * before the tree is mirrored. The first mirrored and built nothing, then said "no DMA, Core
 * or Comch program found"; the second dropped the names past 1023 bytes unchecked.
 */
static void test_only_unreadable(void **s)
{
	char args[1400];
	size_t n;

	(void)s;
	refused_in_one_line("--only '' /proc/no-such-dir", "--only names no program");
	refused_in_one_line("--only ,, /proc/no-such-dir", "--only names no program");
	n = (size_t)snprintf(args, sizeof(args), "--only ");
	while (n < 1200)
		n += (size_t)snprintf(args + n, sizeof(args) - n, "dma_copy,");
	snprintf(args + n, sizeof(args) - n, " /proc/no-such-dir");
	refused_in_one_line(args, "--only is longer than 1023 bytes");
}

/* --seed past its range is a number all the same: the line says which numbers it takes. */
static void test_seed_range_named(void **s)
{
	(void)s;
	refused_in_one_line("--shake 1 --seed 18446744073709551615 -- true",
	                    "--seed takes a number from 0 to 18446744073709451615");
}

/* Whether process @pid is gone (or a zombie nobody reaped yet: it runs nothing). */
static bool pid_gone(long pid)
{
	char path[64], state = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	if (f == NULL)
		return true;
	if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
		state = 0;
	fclose(f);
	return state == 'Z' || state == 'X';
}

/*
 * A program that leaves a helper running behind it (a server put in the background by a
 * script): the helper ends with its run. It lived on after every passing run, one more per
 * schedule, holding whatever it held (a Comch name, a port) into the next schedules.
 */
static void test_shake_helpers_end(void **s)
{
	char args[700], path[300];
	long pids[4];
	int n = 0;
	FILE *f;

	(void)s;
	snprintf(path, sizeof(path), "%s/helpers", tmp);
	snprintf(args, sizeof(args), "--shake 1 -- sh -c 'sleep 300 & echo $! >> \"%s\"'", path);
	tool_run(&out, "timeout 60", compat(), args, 1);
	assert_int_equal(out.status, 0);
	f = fopen(path, "r");
	assert_non_null(f);
	while (n < 4 && fscanf(f, "%ld", &pids[n]) == 1)
		n++;
	fclose(f);
	assert_int_equal(n, 2); /* the baseline and seed 1 */
	for (int i = 0; i < n; i++)
		for (int k = 0; k < 100 && !pid_gone(pids[i]); k++)
			usleep(20000);
	for (int i = 0; i < n; i++)
		if (!pid_gone(pids[i])) {
			for (int j = 0; j < n; j++)
				if (!pid_gone(pids[j]))
					kill((pid_t)pids[j], SIGKILL); /* the test's own helpers */
			fail_msg("helper %ld of run %d still runs after odma compat ended", pids[i],
			         i);
		}
}

/* The number in @path once a process wrote it there (10 s at most); -1 without. */
static long pid_from_file(const char *path)
{
	long pid = -1;

	for (int k = 0; k < 1500 && pid < 0; k++) { /* 30 s, for a loaded machine */
		FILE *f = fopen(path, "r");

		if (f != NULL) {
			if (fscanf(f, "%ld", &pid) != 1)
				pid = -1;
			fclose(f);
		}
		if (pid < 0)
			usleep(20000);
	}
	return pid;
}

/*
 * odma compat ended by a signal (SIGTERM here; Ctrl-C or a closed terminal alike) takes the
 * program it runs with it. The program runs in a process group of its own, which the
 * terminal's signal does not reach: it ran on without its parent.
 */
static void test_signal_ends_program(void **s)
{
	char script[400], path[300];
	long pid;
	pid_t tool;
	int st;

	(void)s;
	snprintf(path, sizeof(path), "%s/program-pid", tmp);
	snprintf(script, sizeof(script), "echo $$ > '%s'; exec sleep 300", path);
	tool = fork();
	assert_true(tool >= 0);
	if (tool == 0) {
		char *argv[] = {
			(char *)compat(), "--shake", "1", "--timeout", "60", "--", "sh", "-c",
			script,           NULL
		};

		signal(SIGTERM, SIG_DFL);
		tu_execv(compat(), argv); /* through qemu-user in a cross build */
		_exit(127);
	}
	pid = pid_from_file(path);
	kill(tool, SIGTERM);
	assert_int_equal(waitpid(tool, &st, 0), tool);
	if (pid <= 0)
		fail_msg("the program did not write its pid within 30 s of odma compat's start");
	for (int k = 0; k < 100 && !pid_gone(pid); k++)
		usleep(20000);
	if (!pid_gone(pid)) {
		kill((pid_t)pid, SIGKILL); /* the test's own program */
		fail_msg("the program (%ld) still runs after odma compat got SIGTERM", pid);
	}
}

/* odma compat @args (under `timeout 20`) exits 2 with one line holding @want. */
static void bounded_refusal(const char *args, const char *want)
{
	tool_run(&out, "timeout 20", compat(), args, 1);
	if (out.status != 2 || line_count(out.text) != 1 || strstr(out.text, want) == NULL)
		fail_msg("odma compat %s: exit %d (124: still reading after 20 s), "
		         "want 2 and one line holding \"%s\"; got:\n%s",
		         args, out.status, want, out.text);
}

/*
 * --min-release FILE reads a regular file of at most 16 MiB: a FIFO is refused, not waited
 * on, a larger file refused, and /dev/zero refused rather than read until memory runs out.
 * (/dev/zero last: without the bound, the FIFO check fails first and nothing eats memory.)
 */
static void test_min_release_bounded(void **s)
{
	char path[300], args[400];
	FILE *f;

	(void)s;
	snprintf(path, sizeof(path), "%s/fifo.c", tmp);
	assert_int_equal(mkfifo(path, 0600), 0);
	snprintf(args, sizeof(args), "--min-release '%s'", path);
	bounded_refusal(args, "not a regular file");
	snprintf(path, sizeof(path), "%s/big.c", tmp);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(ftruncate(fileno(f), (16 << 20) + 1), 0); /* sparse: no disk used */
	fclose(f);
	snprintf(args, sizeof(args), "--min-release '%s'", path);
	bounded_refusal(args, "over 16 MiB");
	bounded_refusal("--min-release /dev/zero", "/dev/zero: not a regular file");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_json_path_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_min_release_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_write_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shake_seed_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_workdir_not_a_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pci_addr_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shake_helpers_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_only_unknown_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_time_flags_named, setup, teardown),
		cmocka_unit_test_setup_teardown(test_seed_range_named, setup, teardown),
		cmocka_unit_test_setup_teardown(test_only_unreadable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pair_delay_zero, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flag_without_partner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signal_ends_program, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
