/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The progress line of odma compat: "[12/37] running dma_copy..." on stderr, rewritten in
 * place (carriage return, erase to the end of the line), only when stderr is a terminal: a
 * log file or a pipe gets none of it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "compat.h"

static bool progress_on;
static bool progress_shown;

void compat_progress_init(bool verbose)
{
	progress_on = !verbose && isatty(STDERR_FILENO) == 1;
}

void compat_progress(size_t i, size_t n, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	if (!progress_on)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	fprintf(stderr, "\r[%zu/%zu] %s\033[K", i, n, what);
	fflush(stderr);
	progress_shown = true;
}

void compat_progress_clear(void)
{
	if (!progress_shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	progress_shown = false;
}
