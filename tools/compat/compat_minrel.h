/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * `odma compat --min-release FILES|DIR`: the oldest DOCA release a program's calls need, from
 * the version overlay (data/doca-versions.tsv, compiled into compat_versions_table.c).
 */
#ifndef ODMA_COMPAT_MINREL_H_
#define ODMA_COMPAT_MINREL_H_

#include <stdbool.h>
#include <stddef.h>

/* One row of the overlay: the first DOCA release known to have @fn. */
struct compat_version_row {
	const char *fn;
	const char *first;      /* a release ("2.9"), or "unknown" */
	const char *not_before; /* the oldest release it can be in, "-" when nothing says */
	bool exact;             /* first == not_before: the release that introduced it */
	const char *source;     /* the evidence, in words */
};

extern const struct compat_version_row compat_versions[];
extern const size_t compat_nversions;

/* The overlay row of @fn, NULL if @fn is not odma's public API. */
const struct compat_version_row *compat_version_find(const char *fn);

/* Whether argv asks for the --min-release mode (before any `--`). */
bool compat_minrel_wanted(int argc, char **argv);

/* The --min-release mode: prints each program's floor; 0, or 2 on a usage error. */
int compat_minrel_main(int argc, char **argv);

#endif /* ODMA_COMPAT_MINREL_H_ */
