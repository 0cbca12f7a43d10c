/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * odma compat --min-release [--json] FILES|DIR...
 *
 * Reads C sources, finds the DOCA functions they call (an identifier doca_... followed by '(',
 * outside comments, strings and character constants) and tells, from the version overlay, the
 * oldest DOCA release that has all of them, with the functions that set that floor.
 *
 * The overlay knows some introductions exactly and others only as "present in release R" (the
 * function may be older: doca-samples' history starts at 2.9). So a program's answer is a
 * range: it needs at most the newest "first" of its functions (every one of them is known to
 * be there) and at least the newest release one of them cannot be older than. When both meet,
 * the answer is exact.
 *
 * A DIR holding meson projects (directories with a meson.build and C files, as NVIDIA's
 * doca-samples tree) is reported per project: each project's files, plus the shared files its
 * build uses by DOCA's layout (C files directly in the directories above it, and the `common`
 * directories beside those). Any other DIR, or a list of FILES, is one program.
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <search.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "compat.h"
#include "compat_minrel.h"

/* DOCA's public releases of this period, oldest first; a release's rank is its index. */
static const char *const minrel_releases[] = { "1.5", "2.0",  "2.2", "2.5", "2.6", "2.7", "2.8",
	                                       "2.9", "2.10", "3.0", "3.1", "3.2", "3.3" };
#define MINREL_NRELEASES (int)(sizeof(minrel_releases) / sizeof(minrel_releases[0]))
#define MINREL_SHOWN 3 /* functions shown with their evidence per reason line */
/* The largest source file read (NVIDIA's largest sample source is under 100 KiB). */
#define MINREL_MAX_FILE (16 << 20)
#define MINREL_MAX_FILE_TEXT "16 MiB"

static int minrel_rank(const char *release)
{
	for (int i = 0; i < MINREL_NRELEASES; i++)
		if (strcmp(release, minrel_releases[i]) == 0)
			return i;
	return -1;
}

const struct compat_version_row *compat_version_find(const char *fn)
{
	size_t lo = 0, hi = compat_nversions;

	while (lo < hi) { /* the table is sorted by name */
		size_t mid = (lo + hi) / 2;
		int c = strcmp(fn, compat_versions[mid].fn);

		if (c == 0)
			return &compat_versions[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* A DOCA function a program calls, and where it first does. */
struct minrel_call {
	char fn[128];
	char where[PATH_MAX + 16];
};

/*
 * Distinct doca_ functions one program may call: NVIDIA's whole doca-samples tree calls about
 * 1,700. A file of made-up names past it is not a DOCA program; it is refused, not read on.
 */
#define MINREL_MAX_CALLS 16384

struct minrel_prog {
	char name[PATH_MAX];
	size_t nfiles;
	bool unreadable; /* a source file of it could not be read: no answer for it */
	struct minrel_call *calls;
	size_t ncalls, cap;
	void *seen; /* tsearch tree of the names in calls (copies), for one look-up per call */
};

static int minrel_name_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Whether @fn is new to @p, then remembered; exits 2 when memory runs out. */
static bool minrel_first_call(struct minrel_prog *p, const char *fn)
{
	char *copy;
	void *slot;

	if (tfind(fn, &p->seen, minrel_name_cmp) != NULL)
		return false;
	copy = strdup(fn);
	slot = copy != NULL ? tsearch(copy, &p->seen, minrel_name_cmp) : NULL;
	if (slot == NULL) {
		fprintf(stderr, "odma compat: out of memory\n");
		exit(2);
	}
	return true;
}

static void minrel_add_call(struct minrel_prog *p, const char *fn, const char *file, unsigned line)
{
	struct minrel_call *grown;

	if (p->unreadable || !minrel_first_call(p, fn))
		return;
	if (p->ncalls == MINREL_MAX_CALLS) {
		fprintf(stderr,
		        "odma compat: --min-release: %s calls more than %d distinct doca_ "
		        "functions (at %s:%u); not a DOCA program, not read on\n",
		        p->name, MINREL_MAX_CALLS, file, line);
		p->unreadable = true;
		return;
	}
	if (p->ncalls == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 64;
		grown = realloc(p->calls, p->cap * sizeof(*grown));
		if (grown == NULL) {
			fprintf(stderr, "odma compat: out of memory\n");
			exit(2);
		}
		p->calls = grown;
	}
	snprintf(p->calls[p->ncalls].fn, sizeof(p->calls[0].fn), "%s", fn);
	snprintf(p->calls[p->ncalls].where, sizeof(p->calls[0].where), "%s:%u", file, line);
	p->ncalls++;
}

/* Skips a comment, string or character constant starting at s[i]; returns the next index. */
static size_t minrel_skip(const char *s, size_t len, size_t i, unsigned *line)
{
	char q;

	if (s[i] == '/' && i + 1 < len && s[i + 1] == '/') {
		while (i < len && s[i] != '\n')
			i++;
		return i;
	}
	if (s[i] == '/' && i + 1 < len && s[i + 1] == '*') {
		for (i += 2; i + 1 < len && !(s[i] == '*' && s[i + 1] == '/'); i++)
			*line += s[i] == '\n';
		return i + 2 < len ? i + 2 : len;
	}
	q = s[i];
	for (i++; i < len && s[i] != q && s[i] != '\n'; i++)
		if (s[i] == '\\' && i + 1 < len)
			i++;
	return i + 1;
}

static bool minrel_ident_char(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

/* Adds every doca_...( of @text to @p. */
static void minrel_scan_text(struct minrel_prog *p, const char *path, const char *s, size_t len)
{
	unsigned line = 1;
	size_t i = 0;

	while (i < len) {
		size_t start = i, j;

		if ((s[i] == '/' && i + 1 < len && (s[i + 1] == '/' || s[i + 1] == '*')) ||
		    s[i] == '"' || s[i] == '\'') {
			i = minrel_skip(s, len, i, &line);
			continue;
		}
		if (!minrel_ident_char(s[i])) {
			line += s[i++] == '\n';
			continue;
		}
		while (i < len && minrel_ident_char(s[i]))
			i++;
		if (i - start < 6 || i - start >= sizeof(p->calls[0].fn) ||
		    strncmp(s + start, "doca_", 5) != 0)
			continue;
		for (j = i; j < len && (s[j] == ' ' || s[j] == '\t'); j++)
			;
		if (j < len && s[j] == '(') {
			char fn[128];

			memcpy(fn, s + start, i - start);
			fn[i - start] = '\0';
			minrel_add_call(p, fn, path, line);
		}
	}
}

static bool minrel_is_source(const char *name)
{
	static const char *const exts[] = { ".c", ".h", ".cpp", ".hpp", ".cc" };
	size_t n = strlen(name);

	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		size_t e = strlen(exts[i]);

		if (n > e && strcmp(name + n - e, exts[i]) == 0)
			return true;
	}
	return false;
}

static bool minrel_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * A directory below one being read, and not a symbolic link to one: a walk does not follow
 * links (as find does not), so a link back up cannot make it go round (two such links made it
 * run without end).
 */
static bool minrel_is_subdir(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool minrel_has(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) == 0;
}

/*
 * A C source, read whole: a regular file of at most MINREL_MAX_FILE bytes. Anything else
 * (a FIFO, /dev/zero, a huge file) is refused in one line, not read without end.
 */
static const char *minrel_read_fd(int fd, char **text, size_t *len)
{
	struct stat st;
	size_t size;
	ssize_t got;

	if (fstat(fd, &st) != 0)
		return strerror(errno);
	if (!S_ISREG(st.st_mode))
		return "not a regular file";
	if (st.st_size > MINREL_MAX_FILE)
		return "over " MINREL_MAX_FILE_TEXT ", too big for a C source";
	size = (size_t)st.st_size;
	*text = malloc(size + 1);
	if (*text == NULL)
		return strerror(ENOMEM);
	got = read(fd, *text, size); /* a file that grows meanwhile: its size at fstat */
	if (got < 0)
		return strerror(errno);
	(*text)[got] = '\0';
	*len = (size_t)got;
	return NULL;
}

static char *minrel_read(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	const char *why = fd < 0 ? strerror(errno) : NULL;
	char *text = NULL;

	if (fd >= 0) {
		why = minrel_read_fd(fd, &text, len);
		close(fd);
	}
	if (why != NULL) {
		fprintf(stderr, "odma compat: --min-release: cannot read %s: %s\n", path, why);
		free(text);
		return NULL;
	}
	return text;
}

static int minrel_scan_file(struct minrel_prog *p, const char *path)
{
	size_t len = 0;
	char *text = minrel_read(path, &len);

	if (text == NULL) {
		p->unreadable = true;
		return -1;
	}
	minrel_scan_text(p, path, text, len);
	free(text);
	p->nfiles++;
	return 0;
}

/* Whether @dir directly holds a C source file. */
static bool minrel_has_sources(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;

	if (d == NULL)
		return false;
	while (!found && (e = readdir(d)) != NULL)
		found = e->d_name[0] != '.' && minrel_is_source(e->d_name);
	closedir(d);
	return found;
}

/* A meson project of its own: a meson.build beside C sources. */
static bool minrel_is_project(const char *dir)
{
	return minrel_has(dir, "meson.build") && minrel_has_sources(dir);
}

/*
 * The sorted entries of @dir into *@ents; -1 after one "cannot read" line when it cannot be
 * read: a directory left out in silence would leave its calls out of the answer.
 */
static int minrel_list_dir(const char *dir, struct dirent ***ents)
{
	int n = scandir(dir, ents, NULL, alphasort);

	if (n < 0)
		fprintf(stderr, "odma compat: --min-release: cannot read %s: %s\n", dir,
		        strerror(errno));
	return n;
}

/*
 * Scans @dir: its source files, and with @deep its subdirectories too (except other projects
 * when @skip_projects).
 */
static void minrel_scan_dir(struct minrel_prog *p, const char *dir, bool deep, bool skip_projects)
{
	struct dirent **ents = NULL;
	int n = minrel_list_dir(dir, &ents);

	p->unreadable |= n < 0;
	for (int i = 0; i < n; i++) {
		char path[PATH_MAX];
		const char *name = ents[i]->d_name;

		if (name[0] != '.' &&
		    snprintf(path, sizeof(path), "%s/%s", dir, name) < (int)sizeof(path)) {
			if (minrel_is_dir(path)) {
				if (deep && minrel_is_subdir(path) &&
				    !(skip_projects && minrel_is_project(path)))
					minrel_scan_dir(p, path, true, skip_projects);
			} else if (minrel_is_source(name)) {
				minrel_scan_file(p, path);
			}
		}
		free(ents[i]);
	}
	free(ents);
}

/* The shared files of a project at @dir under @root: see the comment at the top. */
static void minrel_scan_shared(struct minrel_prog *p, const char *root, const char *dir)
{
	char up[PATH_MAX], common[PATH_MAX];
	char *slash;

	snprintf(up, sizeof(up), "%s", dir);
	while (strcmp(up, root) != 0 && (slash = strrchr(up, '/')) != NULL) {
		*slash = '\0';
		minrel_scan_dir(p, up, false, false);
		if (snprintf(common, sizeof(common), "%s/common", up) < (int)sizeof(common) &&
		    minrel_is_dir(common) && strncmp(dir, common, strlen(common)) != 0)
			minrel_scan_dir(p, common, true, false);
	}
}

struct minrel_set {
	struct minrel_prog *v;
	size_t n, cap;
	bool unreadable; /* a directory of the walk could not be read: no answer */
};

static struct minrel_prog *minrel_new_prog(struct minrel_set *s, const char *name)
{
	if (s->n == s->cap) {
		struct minrel_prog *grown;

		s->cap = s->cap ? s->cap * 2 : 16;
		grown = realloc(s->v, s->cap * sizeof(*grown));
		if (grown == NULL) {
			fprintf(stderr, "odma compat: out of memory\n");
			exit(2);
		}
		s->v = grown;
	}
	memset(&s->v[s->n], 0, sizeof(s->v[0]));
	snprintf(s->v[s->n].name, sizeof(s->v[0].name), "%s", name);
	return &s->v[s->n++];
}

/* Whether a directory below @dir is a project (then @dir only holds their shared code). */
static bool minrel_has_subproject(const char *dir)
{
	struct dirent **ents = NULL;
	int n = scandir(dir, &ents, NULL, alphasort);
	bool found = false;

	for (int i = 0; i < n; i++) {
		char path[PATH_MAX];

		if (!found && ents[i]->d_name[0] != '.' &&
		    snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name) <
		            (int)sizeof(path) &&
		    minrel_is_subdir(path))
			found = minrel_is_project(path) || minrel_has_subproject(path);
		free(ents[i]);
	}
	free(ents);
	return found;
}

/* Every project under @dir (depth first, sorted), each with its shared files. */
static void minrel_find_projects(struct minrel_set *s, const char *root, const char *dir)
{
	struct dirent **ents = NULL;
	int n;

	if (minrel_is_project(dir) && !minrel_has_subproject(dir)) {
		struct minrel_prog *p = minrel_new_prog(s, dir);

		minrel_scan_dir(p, dir, true, true);
		minrel_scan_shared(p, root, dir);
		return; /* no project below it; its walk named what it could not read */
	}
	n = minrel_list_dir(dir, &ents);
	s->unreadable |= n < 0;
	for (int i = 0; i < n; i++) {
		char path[PATH_MAX];

		if (ents[i]->d_name[0] != '.' &&
		    snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name) <
		            (int)sizeof(path) &&
		    minrel_is_subdir(path))
			minrel_find_projects(s, root, path);
		free(ents[i]);
	}
	free(ents);
}

/* What the overlay says of one program. */
struct minrel_verdict {
	int at_most, at_least; /* ranks; -1 when nothing known */
	size_t nknown;
};

static struct minrel_verdict minrel_judge(const struct minrel_prog *p)
{
	struct minrel_verdict v = { -1, -1, 0 };

	for (size_t i = 0; i < p->ncalls; i++) {
		const struct compat_version_row *r = compat_version_find(p->calls[i].fn);
		int first = r != NULL ? minrel_rank(r->first) : -1;
		int low;

		if (first < 0)
			continue;
		low = r->exact ? first : minrel_rank(r->not_before);
		v.nknown++;
		if (first > v.at_most)
			v.at_most = first;
		if (low > v.at_least)
			v.at_least = low;
	}
	return v;
}

/* Which calls a reason line lists: 'M' at_most's setters, 'L' at_least's, 'U', 'N'. */
static bool minrel_in(const struct minrel_call *c, char kind, const struct minrel_verdict *v)
{
	const struct compat_version_row *r = compat_version_find(c->fn);
	int first = r != NULL ? minrel_rank(r->first) : -1;

	switch (kind) {
	case 'M':
		return first >= 0 && first == v->at_most;
	case 'L':
		return first >= 0 && v->at_least >= 0 &&
		       (r->exact ? first : minrel_rank(r->not_before)) == v->at_least;
	case 'U':
		return r != NULL && first < 0;
	default:
		return r == NULL;
	}
}

static void minrel_print_reason(const struct minrel_prog *p, char kind,
                                const struct minrel_verdict *v, const char *head)
{
	size_t shown = 0, more = 0;

	for (size_t i = 0; i < p->ncalls; i++) {
		const struct minrel_call *c = &p->calls[i];
		const struct compat_version_row *r = compat_version_find(c->fn);

		if (!minrel_in(c, kind, v))
			continue;
		if (shown == 0 && more == 0)
			printf("  %s:\n", head);
		if (shown < MINREL_SHOWN || kind == 'N' || kind == 'U') {
			printf("    %s (%s)", c->fn, c->where);
			if (r != NULL && kind != 'N')
				printf(" -- %s", r->source);
			printf("\n");
			shown++;
		} else {
			more++;
		}
	}
	if (more > 0)
		printf("    and %zu more functions of the same release (--json lists them)\n",
		       more);
}

static void minrel_print_text(const struct minrel_prog *p)
{
	struct minrel_verdict v = minrel_judge(p);
	char head[128];

	if (v.nknown == 0) {
		printf("%s: no DOCA function of odma's public API called (%zu files read)\n",
		       p->name, p->nfiles);
	} else if (v.at_least == v.at_most) {
		printf("%s: needs DOCA %s\n", p->name, minrel_releases[v.at_most]);
	} else if (v.at_least >= 0) {
		printf("%s: needs DOCA %s at most, %s at least\n", p->name,
		       minrel_releases[v.at_most], minrel_releases[v.at_least]);
	} else {
		printf("%s: needs DOCA %s at most (whether older releases have every function it "
		       "calls is not established)\n",
		       p->name, minrel_releases[v.at_most]);
	}
	if (v.nknown > 0) {
		snprintf(head, sizeof(head), "%s %s, set by",
		         v.at_least == v.at_most ? "needs" : "at most", minrel_releases[v.at_most]);
		minrel_print_reason(p, 'M', &v, head);
	}
	if (v.at_least >= 0 && v.at_least != v.at_most) {
		snprintf(head, sizeof(head), "at least %s, set by", minrel_releases[v.at_least]);
		minrel_print_reason(p, 'L', &v, head);
	}
	minrel_print_reason(p, 'U', &v, "first release unknown (left out of the floor)");
	minrel_print_reason(p, 'N', &v, "not odma's public API (left out)");
}

static json_object *minrel_json_calls(const struct minrel_prog *p, char kind,
                                      const struct minrel_verdict *v)
{
	json_object *arr = json_object_new_array();

	for (size_t i = 0; i < p->ncalls; i++) {
		const struct minrel_call *c = &p->calls[i];
		const struct compat_version_row *r = compat_version_find(c->fn);
		json_object *o;

		if (!minrel_in(c, kind, v))
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "function", json_object_new_string(c->fn));
		json_object_object_add(o, "where", json_object_new_string(c->where));
		if (r != NULL) {
			json_object_object_add(o, "first", json_object_new_string(r->first));
			json_object_object_add(o, "exact", json_object_new_boolean(r->exact));
			json_object_object_add(o, "not_before",
			                       strcmp(r->not_before, "-") == 0
			                               ? NULL
			                               : json_object_new_string(r->not_before));
			json_object_object_add(o, "source", json_object_new_string(r->source));
		}
		json_object_array_add(arr, o);
	}
	return arr;
}

static json_object *minrel_release_json(int rank)
{
	return rank >= 0 ? json_object_new_string(minrel_releases[rank]) : NULL;
}

static json_object *minrel_json(const struct minrel_prog *p)
{
	struct minrel_verdict v = minrel_judge(p);
	json_object *o = json_object_new_object();

	json_object_object_add(o, "program", json_object_new_string(p->name));
	json_object_object_add(o, "files", json_object_new_int64((int64_t)p->nfiles));
	json_object_object_add(o, "doca_calls", json_object_new_int64((int64_t)p->ncalls));
	json_object_object_add(o, "min_release", minrel_release_json(v.at_most));
	json_object_object_add(o, "at_least", minrel_release_json(v.at_least));
	json_object_object_add(o, "exact",
	                       json_object_new_boolean(v.nknown > 0 && v.at_least == v.at_most));
	json_object_object_add(o, "set_by", minrel_json_calls(p, 'M', &v));
	json_object_object_add(o, "at_least_set_by", minrel_json_calls(p, 'L', &v));
	json_object_object_add(o, "release_unknown", minrel_json_calls(p, 'U', &v));
	json_object_object_add(o, "not_in_overlay", minrel_json_calls(p, 'N', &v));
	return o;
}

static const char *const minrel_usage_text[] = {
	"usage: odma compat --min-release [--json] FILE... | DIR...",
	"",
	"The oldest DOCA release that has every DOCA function the C sources call, and the",
	"functions that set it, from odma's version overlay (data/doca-versions.tsv: for each of",
	"odma's public functions the first release known to have it, and the evidence).",
	"A DIR holding meson projects (as doca-samples) gets one line per project (its files and",
	"the shared files above it); any other DIR, or a list of FILEs, is one program.",
	"",
	"  --json      print JSON instead of text",
	"  -h, --help  this text",
	"",
	"Exit status: 0, or 2 on a usage error or when a FILE, a DIR or a source file found in",
	"it cannot be read, or a program calls more than 16384 distinct doca_ functions (then",
	"no answer is printed).",
};

static void minrel_usage(FILE *out)
{
	for (size_t i = 0; i < sizeof(minrel_usage_text) / sizeof(minrel_usage_text[0]); i++)
		fprintf(out, "%s\n", minrel_usage_text[i]);
}

bool compat_minrel_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--min-release") == 0)
			return true;
	return false;
}

static int minrel_parse(int argc, char **argv, bool *json)
{
	static const struct option opts[] = { { "min-release", no_argument, NULL, 'm' },
		                              { "json", no_argument, NULL, 'j' },
		                              { "help", no_argument, NULL, 'h' },
		                              { NULL, 0, NULL, 0 } };
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (opt == 'j') {
			*json = true;
		} else if (opt == 'h') {
			minrel_usage(stdout);
			exit(0);
		} else if (opt != 'm') {
			fprintf(stderr,
			        "odma compat: --min-release takes only --json and FILE or DIR "
			        "arguments, not '%s'; see odma compat --min-release --help\n",
			        argv[optind - 1]);
			return 2;
		}
	}
	if (optind == argc) {
		fprintf(stderr, "odma compat: --min-release needs C files or a directory; see odma "
		                "compat --min-release --help\n");
		return 2;
	}
	return 0;
}

/* The programs of argv[first..]: each DIR's projects (or the DIR), then all FILEs as one. */
static int minrel_collect(int argc, char **argv, int first, struct minrel_set *s)
{
	size_t files = SIZE_MAX; /* index of the FILEs' program (s->v moves as it grows) */

	for (int i = first; i < argc; i++) {
		size_t before = s->n;
		char dir[PATH_MAX];

		if (!minrel_is_dir(argv[i])) {
			if (files == SIZE_MAX) {
				minrel_new_prog(s, argv[i]);
				files = s->n - 1;
			}
			if (minrel_scan_file(&s->v[files], argv[i]) != 0)
				return 2;
			continue;
		}
		snprintf(dir, sizeof(dir), "%s", argv[i]);
		while (strlen(dir) > 1 && dir[strlen(dir) - 1] == '/')
			dir[strlen(dir) - 1] = '\0';
		minrel_find_projects(s, dir, dir);
		if (s->unreadable)
			return 2; /* its "cannot read" line is out */
		if (s->n == before)
			minrel_scan_dir(minrel_new_prog(s, dir), dir, true, false);
	}
	return 0;
}

int compat_minrel_main(int argc, char **argv)
{
	struct minrel_set s = { 0 };
	bool json = false;
	int rc = minrel_parse(argc, argv, &json);
	json_object *arr;

	if (rc == 0)
		rc = minrel_collect(argc, argv, optind, &s);
	for (size_t i = 0; rc == 0 && i < s.n; i++)
		rc = s.v[i].unreadable ? 2 : 0; /* its "cannot read" line is out; no half answer */
	if (rc == 0 && json) {
		arr = json_object_new_array();
		for (size_t i = 0; i < s.n; i++)
			json_object_array_add(arr, minrel_json(&s.v[i]));
		printf("%s\n",
		       json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY |
		                                                   JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(arr);
	} else if (rc == 0) {
		for (size_t i = 0; i < s.n; i++)
			minrel_print_text(&s.v[i]);
	}
	for (size_t i = 0; i < s.n; i++) {
		free(s.v[i].calls);
		tdestroy(s.v[i].seen, free);
	}
	free(s.v);
	return rc;
}
