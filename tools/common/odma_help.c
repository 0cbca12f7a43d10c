/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* A help text to a roff man page (see odma_help.h for the layout it reads). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "odma_help.h"

#ifndef ODMA_HELP_VERSION
#define ODMA_HELP_VERSION "odma"
#endif

/* Writes @n bytes of @s escaped for roff (a line of its own when @line_start). */
static void roff_text(FILE *out, const char *s, size_t n, bool line_start)
{
	for (size_t i = 0; i < n; i++) {
		if (i == 0 && line_start && (s[i] == '.' || s[i] == '\''))
			fputs("\\&", out);
		if (s[i] == '\\')
			fputs("\\e", out);
		else if (s[i] == '-')
			fputs("\\-", out);
		else
			fputc(s[i], out);
	}
}

static size_t indent_of(const char *l, size_t n)
{
	size_t i = 0;

	while (i < n && l[i] == ' ')
		i++;
	return i;
}

/* A heading's length (up to and without its ':'), or 0 when @l is no heading. */
static size_t heading_len(const char *l, size_t n)
{
	size_t i, words = 1;
	bool caps = n > 1;

	if (n == 0 || !isalpha((unsigned char)l[0]))
		return 0;
	for (i = 0; i < n && caps; i++)
		caps = isupper((unsigned char)l[i]) || l[i] == ' ';
	if (caps)
		return n;
	for (i = 0; i < n && l[i] != ':'; i++) {
		if (l[i] == ' ')
			words++;
		else if (!isalpha((unsigned char)l[i]))
			return 0;
	}
	return i < n && words <= 4 && (i + 1 == n || l[i + 1] == ' ') ? i : 0;
}

enum sec_kind { SEC_TEXT, SEC_VERBATIM, SEC_ITEMS, SEC_NAME };

struct man {
	FILE *out;
	enum sec_kind kind;
	size_t base;     /* the section's own indentation (-1: not known yet) */
	size_t item_ind; /* the current item's indentation */
	bool in_item;    /* the last line was an item or its continuation */
	bool verbatim;   /* inside .nf */
	bool name_done;  /* a NAME section was written */
	bool pending_pp; /* a blank line before more text */
	bool synopsis;   /* in SYNOPSIS: a paragraph at column 0 after it is the DESCRIPTION */
};

static void man_nf(struct man *m, bool on)
{
	if (on != m->verbatim)
		fputs(on ? ".nf\n" : ".fi\n", m->out);
	m->verbatim = on;
}

static void man_heading(struct man *m, const char *l, size_t hl, size_t n)
{
	char name[64];
	size_t i;

	man_nf(m, false);
	snprintf(name, sizeof(name), "%.*s", (int)hl, l);
	for (i = 0; name[i]; i++)
		name[i] = (char)toupper((unsigned char)name[i]);
	if (strcmp(name, "USAGE") == 0)
		snprintf(name, sizeof(name), "SYNOPSIS");
	m->kind = strcmp(name, "NAME") == 0                                        ? SEC_NAME
	          : strcmp(name, "SYNOPSIS") == 0 || strcmp(name, "EXAMPLES") == 0 ? SEC_VERBATIM
	          : strstr(name, "OPTION") || strstr(name, "FLAG") || strstr(name, "COMMAND")
	                  ? SEC_ITEMS
	                  : SEC_TEXT;
	if (m->kind == SEC_NAME)
		m->name_done = true;
	m->synopsis = strcmp(name, "SYNOPSIS") == 0;
	fprintf(m->out, ".SH %s\n", name);
	m->base = (size_t)-1;
	m->in_item = false;
	m->pending_pp = false;
	(void)n;
}

/* An item line "  -f, --flag ARG   meaning": .TP, the flags in bold, the meaning. */
static bool man_item(struct man *m, const char *l, size_t n, size_t ind)
{
	const char *gap;
	size_t term;

	if (m->kind != SEC_ITEMS || ind == 0 || ind >= n)
		return false;
	gap = strstr(l + ind, "  ");
	term = gap != NULL && (size_t)(gap - l) < n ? (size_t)(gap - l) - ind : n - ind;
	if (l[ind] != '-' && memchr(l + ind, ' ', term) != NULL)
		return false; /* a command item is one word */
	man_nf(m, false);
	fputs(".TP\n\\fB", m->out);
	roff_text(m->out, l + ind, term, false);
	fputs("\\fR\n", m->out);
	if (ind + term < n) {
		size_t d = ind + term + indent_of(l + ind + term, n - ind - term);

		roff_text(m->out, l + d, n - d, true);
		fputc('\n', m->out);
	}
	m->in_item = true;
	m->item_ind = ind;
	return true;
}

static void man_line(struct man *m, const char *l, size_t n)
{
	size_t ind = indent_of(l, n);

	if (ind == n) { /* blank */
		m->pending_pp = true;
		m->in_item = false;
		return;
	}
	if (m->base == (size_t)-1)
		m->base = ind;
	if (m->kind == SEC_NAME) {
		roff_text(m->out, l + ind, n - ind, true);
		fputc('\n', m->out);
		return;
	}
	if (man_item(m, l, n, ind)) {
		m->pending_pp = false;
		return;
	}
	if (m->in_item && ind > m->item_ind && !m->pending_pp) { /* the item's meaning goes on */
		roff_text(m->out, l + ind, n - ind, true);
		fputc('\n', m->out);
		return;
	}
	m->in_item = false;
	if (m->synopsis && m->pending_pp && ind == 0) {
		man_nf(m, false);
		fputs(".SH DESCRIPTION\n", m->out);
		m->synopsis = false;
		m->kind = SEC_TEXT;
		m->base = 0;
		m->pending_pp = false;
	}
	if (m->pending_pp) {
		man_nf(m, false);
		fputs(".PP\n", m->out);
		m->pending_pp = false;
	}
	if (m->kind == SEC_VERBATIM || ind > m->base) {
		size_t keep = ind - m->base;

		man_nf(m, true);
		for (size_t i = 0; i < keep; i++)
			fputc(' ', m->out);
		roff_text(m->out, l + ind, n - ind, keep == 0);
	} else {
		man_nf(m, false);
		roff_text(m->out, l + ind, n - ind, true);
	}
	fputc('\n', m->out);
}

static void man_text(struct man *m, const char *text, bool *any_heading);

void odma_help_man(FILE *out, const char *page, int section, const char *summary, const char *text,
                   const char *more)
{
	struct man m = { .out = out, .kind = SEC_TEXT, .base = (size_t)-1 };
	char upper[128];
	size_t i;
	bool any_heading = false;

	if (summary == NULL)
		summary = "";

	for (i = 0; page[i] && i + 1 < sizeof(upper); i++)
		upper[i] = (char)toupper((unsigned char)page[i]);
	upper[i] = '\0';
	fprintf(out, ".\\\" Generated by %s --man from its --help text; do not edit.\n", page);
	fputs(".TH ", out);
	roff_text(out, upper, strlen(upper), false);
	fprintf(out, " %d \"\" \"%s\" \"odma tools\"\n", section, ODMA_HELP_VERSION);
	if (strstr(text, "NAME\n") != text && strstr(text, "\nNAME\n") == NULL) {
		fputs(".SH NAME\n", out);
		roff_text(out, page, strlen(page), true);
		fputs(" \\- ", out);
		roff_text(out, summary, strlen(summary), false);
		fputc('\n', out);
		m.name_done = true;
	}
	man_text(&m, text, &any_heading);
	if (more != NULL) {
		m.pending_pp = false;
		man_text(&m, more, &any_heading);
	}
	man_nf(&m, false);
}

static void man_text(struct man *m, const char *text, bool *any_heading)
{
	bool after_blank = true; /* a heading starts the text or follows a blank line */

	for (const char *l = text; *l != '\0';) {
		const char *nl = strchr(l, '\n');
		size_t n = nl != NULL ? (size_t)(nl - l) : strlen(l);
		size_t hl = after_blank ? heading_len(l, n) : 0;

		after_blank = indent_of(l, n) == n;

		if (hl > 0) {
			man_heading(m, l, hl, n);
			*any_heading = true;
			if (hl + 1 < n) { /* "usage: odma X ...": the rest is the first line */
				size_t r = hl + 1 + indent_of(l + hl + 1, n - hl - 1);

				man_line(m, l + r, n - r);
			}
		} else {
			if (!*any_heading) {
				fputs(".SH DESCRIPTION\n", m->out);
				*any_heading = true;
			}
			man_line(m, l, n);
		}
		l += nl != NULL ? n + 1 : n;
	}
}

const char *odma_help_cmd_name(const char *argv0, char *buf, size_t size)
{
	const char *base = strrchr(argv0, '/') != NULL ? strrchr(argv0, '/') + 1 : argv0;

	if (strncmp(base, "odma-", 5) == 0)
		snprintf(buf, size, "odma %s", base + 5);
	else
		snprintf(buf, size, "%s", base);
	return buf;
}

char *odma_help_capture(void (*fn)(void *arg), void *arg)
{
	FILE *tmp = tmpfile();
	int saved;
	long len;
	char *text = NULL;

	if (tmp == NULL)
		return NULL;
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	if (saved < 0 || dup2(fileno(tmp), STDOUT_FILENO) < 0) {
		fclose(tmp);
		return NULL;
	}
	fn(arg);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	len = ftell(tmp) >= 0 ? lseek(fileno(tmp), 0, SEEK_END) : -1;
	if (len >= 0 && (text = calloc(1, (size_t)len + 1)) != NULL &&
	    (lseek(fileno(tmp), 0, SEEK_SET) != 0 || read(fileno(tmp), text, (size_t)len) != len)) {
		free(text);
		text = NULL;
	}
	fclose(tmp);
	return text;
}

bool odma_help_man_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--man") == 0)
			return true;
	return false;
}

int odma_help_bad_option(const char *cmd, const char *opt)
{
	fprintf(stderr, "%s: unknown option '%s' (see %s --help)\n", cmd, opt, cmd);
	return 2;
}
