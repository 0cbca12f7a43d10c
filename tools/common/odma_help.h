/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * One source for a tool's --help and its man page: the help text itself. Each tool keeps
 * its help as it prints it (sections headed at column 0, options as indented "FLAGS  words"
 * items); a hidden --man turns that same text into a roff page, which the build installs
 * (meson custom_target: `TOOL --man > TOOL.1`). And the one line for a bad option.
 */
#ifndef ODMA_HELP_H_
#define ODMA_HELP_H_

#include <stdbool.h>
#include <stdio.h>

/*
 * The help text's layout, as odma_help_man reads it:
 *   - a section heading: a line at column 0, first or after a blank line, that is ALL CAPS
 *     ("OPTIONS"), or a label of at most four words ending in ':' ("options:", "DOCA flags:",
 *     "usage: odma X [OPTIONS]": what follows the colon is the section's first line);
 *     "usage" is the SYNOPSIS (a paragraph at column 0 after it: the DESCRIPTION); text
 *     before the first heading is the DESCRIPTION;
 *   - in a section named for options, flags or commands, an indented line starting with '-'
 *     (or, for commands, a word) then two spaces is an item: the flags, then their meaning,
 *     continued on the lines indented deeper;
 *   - elsewhere, lines at the section's own indentation are filled text, deeper ones kept
 *     as they are (lists, tables); SYNOPSIS and EXAMPLES are kept as they are.
 */

/*
 * Writes @text as the man page @page(@section); @summary is its NAME line when the text has
 * no NAME section. @more (NULL: none) is read the same way after @text: the sections only the
 * man page carries (the long description, the environment), kept beside the help text.
 */
void odma_help_man(FILE *out, const char *page, int section, const char *summary, const char *text,
                   const char *more);

/* "odma-bench" -> "odma bench" (the name a user types); other names unchanged. */
const char *odma_help_cmd_name(const char *argv0, char *buf, size_t size);

/* What @fn(@arg) writes to stdout, as a NUL-terminated string (free it); NULL on failure. */
char *odma_help_capture(void (*fn)(void *arg), void *arg);

/* Whether the command line asks for the man page (a hidden --man before any "--"). */
bool odma_help_man_wanted(int argc, char **argv);

/* "CMD: unknown option 'OPT' (see CMD --help)" on stderr; returns 2, the exit status. */
int odma_help_bad_option(const char *cmd, const char *opt);

#endif /* ODMA_HELP_H_ */
