/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * A bad flag value of odma bench or odma advise is a usage error: exit 2 and exactly one
 * line, the tool's own (doca_argp adds none of its own when a callback refuses), before
 * anything is measured.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tool_run.h"

static struct tool_out out;

static int line_count(const char *text)
{
	int n = 0;

	for (; *text != '\0'; text++)
		n += *text == '\n';
	return n;
}

/* @tool @args exits 2 with one line (stdout and stderr together) holding @want. */
static void refused_in_one_line(const char *var, const char *args, const char *want)
{
	tool_run(&out, NULL, tool_path(var), args, 1);
	if (out.status != 2 || line_count(out.text) != 1 || strstr(out.text, want) == NULL)
		fail_msg("%s %s: exit %d, want 2 and one line holding \"%s\"; got:\n%s", var, args,
		         out.status, want, out.text);
}

static void test_bench_bad_values(void **s)
{
	(void)s;
	refused_in_one_line("ODMA_TEST_BENCH", "--size abc", "--size \"abc\" is not a size");
	refused_in_one_line("ODMA_TEST_BENCH", "--depth 0", "--depth 0 is out of range");
	refused_in_one_line("ODMA_TEST_BENCH", "--mode x", "--mode \"x\"");
	refused_in_one_line("ODMA_TEST_BENCH", "--seconds -1", "--seconds \"-1\"");
	refused_in_one_line("ODMA_TEST_BENCH", "--engine none", "--engine \"none\"");
	/* doca_argp's own refusals stay one line too */
	refused_in_one_line("ODMA_TEST_BENCH", "--depth x", "\"x\" is not an integer");
	/* a number past int says so: "is not an integer" alone read as a typo */
	refused_in_one_line("ODMA_TEST_BENCH", "--depth 99999999999",
	                    "\"99999999999\" is not an integer from -2147483648 to 2147483647");
	refused_in_one_line("ODMA_TEST_BENCH", "--no-such-flag", "unknown option");
	/* sizes the flags together cannot lay out: said as such, before anything is measured
	 * (they failed after the ping-pong, exit 1, as "does not fit 1 list elements / 32 slots")
	 */
	refused_in_one_line(
	        "ODMA_TEST_BENCH", "--cold --footprint 8K",
	        "each side's 4096 bytes hold 1 task of 4096 bytes, fewer than --depth 32");
	refused_in_one_line("ODMA_TEST_BENCH", "--list-len 8 --size 4",
	                    "4-byte copies cannot be cut into 8 list elements");
	/* past the device's max_buf_list_len (64): it passed the flag's own 1..1024, then every
	 * task failed at alloc, exit 1, after the ping-pong */
	refused_in_one_line("ODMA_TEST_BENCH", "--list-len 65 --size 4096",
	                    "--list-len 65 is longer than the device's max_buf_list_len 64");
	/* past the flag's own bound: the line names the device's limit too, not 1..1024 alone,
	 * which read as if 65..1024 were taken */
	refused_in_one_line("ODMA_TEST_BENCH", "--list-len 2000",
	                    "--list-len 2000 is out of range 1..1024 (and at most the device's "
	                    "max_buf_list_len, 64 on the built-in profiles)");
	/* a timeline file that cannot be created: refused before anything runs, not at the first
	 * doca_pe_create as "doca_pe_create: Invalid input", exit 1 */
	refused_in_one_line("ODMA_TEST_BENCH", "--trace /proc/no-such-dir/t.json",
	                    "--trace: cannot create /proc/no-such-dir/t.json");
	refused_in_one_line("ODMA_TEST_BENCH", "--trace /tmp", "--trace: cannot create /tmp");
	/* the DMA task path's buffer shapes with a mode that lays out its own: they were
	 * silently ignored, and the figures read as those of lists or of a cold cache */
	refused_in_one_line("ODMA_TEST_BENCH", "--xproc --list-len 4",
	                    "--list-len, --cold and --footprint shape the DMA task path's buffers");
	refused_in_one_line("ODMA_TEST_BENCH", "--rdma --cold", "--xproc, --comch, --rdma");
	refused_in_one_line("ODMA_TEST_BENCH", "--crossover --footprint 64M", "drop them");
	/* CSV is the DMA task path's alone: the other modes printed their text instead */
	refused_in_one_line("ODMA_TEST_BENCH", "--comch --csv",
	                    "--csv prints the DMA task path's rows");
	refused_in_one_line("ODMA_TEST_BENCH", "--xproc --csv", "give --json or neither");
	/* --transport is --xproc's and --peer dpdk the DMA task path's: the DMA path ran as if
	 * --transport were not given, and --xproc as if --peer were not */
	refused_in_one_line("ODMA_TEST_BENCH", "--transport ucx", "--transport is for --xproc");
	refused_in_one_line("ODMA_TEST_BENCH", "--xproc --peer dpdk",
	                    "--peer dpdk compares the DMA task path");
	/* two output formats: it printed JSON alone, as if --csv were not given */
	refused_in_one_line("ODMA_TEST_BENCH", "--json --csv", "--json and --csv");
}

static void test_advise_bad_values(void **s)
{
	(void)s;
	refused_in_one_line("ODMA_TEST_ADVISE", "--size abc", "--size \"abc\" is not a size");
	refused_in_one_line("ODMA_TEST_ADVISE", "--size 64 --count 0", "--count must be");
	refused_in_one_line("ODMA_TEST_ADVISE", "--size 64 --between moon", "--between \"moon\"");
}

/*
 * odma-task-cost's N, SIZE and DEPTH are whole numbers in range, or exit 2 and one line: "abc"
 * ran 0 tasks and "-1" 2^64 - 1 of them (strtoull, unchecked), and a SIZE past the device's
 * max_buf_size hung for ever (every submit refused, the loop waiting for completions).
 */
static void test_task_cost_bad_values(void **s)
{
	(void)s;
	refused_in_one_line("ODMA_TEST_TASK_COST", "abc", "N \"abc\" is not a whole number");
	refused_in_one_line("ODMA_TEST_TASK_COST", "-1", "N \"-1\" is not a whole number");
	refused_in_one_line("ODMA_TEST_TASK_COST", "10 64x", "SIZE \"64x\" is not");
	refused_in_one_line("ODMA_TEST_TASK_COST", "10 64 0", "DEPTH \"0\" is not");
	refused_in_one_line("ODMA_TEST_TASK_COST", "10 64 4294967297", "DEPTH \"4294967297\"");
	tool_run(&out, "timeout 20", tool_path("ODMA_TEST_TASK_COST"), "4 3000000 1", 1);
	if (out.status != 2 || strstr(out.text, "more than the device's max_buf_size") == NULL)
		fail_msg("odma-task-cost 4 3000000 1: exit %d, want 2 (SIZE past max_buf_size); "
		         "got:\n%s",
		         out.status, out.text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bench_bad_values),
		cmocka_unit_test(test_advise_bad_values),
		cmocka_unit_test(test_task_cost_bad_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
