/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* The live progress line: only on a terminal, only for measurements longer than 2 s. */
#include <stdio.h>
#include <unistd.h>

#include "bench.h"

static struct {
	bool on;
	const char *what;
	double seconds;
	uint64_t t0, next;
} prog;

void bench_progress_start(const char *what, double seconds, double run_seconds)
{
	prog.on = run_seconds > 2.0 && isatty(STDERR_FILENO);
	prog.what = what;
	prog.seconds = seconds;
	prog.t0 = bench_now_ns();
	prog.next = prog.t0 + 250000000ULL;
}

void bench_progress_tick(uint64_t tasks)
{
	uint64_t now;
	double el;

	if (!prog.on)
		return;
	now = bench_now_ns();
	if (now < prog.next)
		return;
	prog.next = now + 250000000ULL;
	el = (double)(now - prog.t0) / 1e9;
	fprintf(stderr, "\r%-10s %5.1f / %.1f s  %10.3f M tasks/s ", prog.what, el, prog.seconds,
	        (double)tasks / el / 1e6);
	fflush(stderr);
}

void bench_progress_end(void)
{
	if (prog.on)
		fprintf(stderr, "\r%60s\r", "");
	prog.on = false;
}
