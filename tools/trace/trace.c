/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * odma-trace (`odma trace FILE`): what a task timeline written by ODMA_TRACE says. It reads
 * the trace-event JSON (json-c) and prints tasks/s and bytes/s over time, the tasks in flight,
 * the time per stage (submit to the start of the run on an engine thread, the run, the end of
 * the run to the completion callback; for a task whose bytes went over a transport, submit to
 * its first request, the requests, the last answer to the callback), the stage that
 * dominates, and the slowest tasks.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "odma_help.h"
#include "util/fopen_nowait.h"

struct task {
	uint64_t id;
	double submit, run0, run1, done; /* µs; run0 < 0: no run slice (a typed or remote task) */
	double wire0, wire1;             /* µs; wire0 < 0: no transport request slice */
	uint64_t bytes, done_bytes;      /* at its submit (a copy's), at its end (other types) */
	const char *kind;
	const char *status;
};

struct trace {
	struct task *t; /* open addressing on the task's id; id 0: an empty slot */
	size_t n, cap;  /* tasks, slots (a power of two) */
	uint64_t dropped;
};

/* The stages of a task's life the summary times (its mean per task, the dominant one). */
enum { N_STAGES = 7 };
static const char *const stage_name[N_STAGES] = {
	"queue (submit to the copy's start)",
	"copy (on the engine)",
	"delivery (the copy's end to the callback)",
	"to the wire (submit to the first request's start)",
	"wire (the transport requests, to the last answer)",
	"from the wire (the last answer to the callback)",
	"remote (submit to callback, no engine or wire slice)",
};
static const char *const stage_key[N_STAGES] = { "queue", "copy",      "delivery", "to_wire",
	                                         "wire",  "from_wire", "remote" };

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: odma trace [OPTIONS] FILE\n"
	        "\n"
	        "Summarises a task timeline that a program run with ODMA_TRACE=FILE wrote (or\n"
	        "odma bench --trace FILE): tasks per second and bytes per second over the run, "
	        "the\n"
	        "tasks in flight, the time each stage took (submit to the start of the copy on an\n"
	        "engine thread, the copy, its end to the completion callback; for a task whose\n"
	        "bytes crossed a transport, a copy over the network or an RDMA task, submit to "
	        "its\n"
	        "first request, the requests until the last answer, that answer to the callback;\n"
	        "for any other, submit to callback), the stage that dominates, and the slowest\n"
	        "tasks. The same FILE opens in Perfetto (ui.perfetto.dev) or chrome://tracing as\n"
	        "a picture.\n"
	        "\n"
	        "options:\n"
	        "  --buckets N  intervals of the over-time table (default 10, 1 to 100)\n"
	        "  --top N      how many of the slowest tasks to list (default 5, 0 to 100)\n"
	        "  --json       print the summary as one JSON object\n"
	        "  -h, --help   this text\n"
	        "\n"
	        "EXIT STATUS\n"
	        "  0 on success; 1 when FILE cannot be read or is not a trace of odma's; 2 for a\n"
	        "  bad command line.\n"
	        "\n"
	        "EXAMPLES\n"
	        "  ODMA_TRACE=/tmp/t.json ./my_dma_program && odma trace /tmp/t.json\n"
	        "  odma bench --size 4096 --trace /tmp/b.json && odma trace --top 3 /tmp/b.json\n"
	        "\n"
	        "SEE ALSO\n"
	        "  odma(1), odma-bench(1), docs/performance.md\n");
}

static void usage_stdout(void *arg)
{
	(void)arg;
	usage(stdout);
}

/* The slot of @id in @t of @cap slots: its own, or the empty one where it goes. */
static size_t task_slot(const struct task *t, size_t cap, uint64_t id)
{
	size_t i = (size_t)((id * 0x9e3779b97f4a7c15ull) >> 24) & (cap - 1);

	while (t[i].id != 0 && t[i].id != id)
		i = (i + 1) & (cap - 1);
	return i;
}

static int task_grow(struct trace *tr)
{
	size_t cap = tr->cap ? tr->cap * 2 : 1024;
	struct task *n = calloc(cap, sizeof(*n));

	if (n == NULL)
		return -1;
	for (size_t i = 0; i < tr->cap; i++)
		if (tr->t[i].id != 0)
			n[task_slot(n, cap, tr->t[i].id)] = tr->t[i];
	free(tr->t);
	tr->t = n;
	tr->cap = cap;
	return 0;
}

/*
 * The task of trace number @id, made when first seen; NULL for id 0 or without memory. A
 * table, not an array indexed by id: the memory follows the tasks in the file, so one
 * event with id 99999999 does not cost 11 GB.
 */
static struct task *task_of(struct trace *tr, uint64_t id)
{
	size_t i;

	if (id == 0 || ((tr->n + 1) * 2 > tr->cap && task_grow(tr) != 0))
		return NULL;
	i = task_slot(tr->t, tr->cap, id);
	if (tr->t[i].id == 0) {
		tr->t[i].id = id;
		tr->t[i].run0 = tr->t[i].wire0 = tr->t[i].submit = tr->t[i].done = -1;
		tr->n++;
	}
	return &tr->t[i];
}

static double num(json_object *o, const char *key, double dflt)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_double(v) : dflt;
}

/*
 * A time of @o in µs: -1 when missing or not one a clock gives (NaN, negative, past
 * TS_MAX), so a hand-made file cannot put a task outside the over-time table or an
 * Infinity in the JSON summary.
 */
#define TS_MAX 1e15 /* µs: 31 years of CLOCK_MONOTONIC */
static double stamp(json_object *o, const char *key)
{
	double v = num(o, key, -1);

	return v >= 0 && v <= TS_MAX ? v : -1;
}

/* A count of @o (an id, bytes): 0 when missing or not a whole number a double holds. */
static uint64_t count(json_object *o, const char *key)
{
	double v = num(o, key, 0);

	return v >= 0 && v <= 9007199254740992.0 ? (uint64_t)v : 0;
}

static const char *str(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

/*
 * Parses @f a chunk at a time, so what is not JSON (a binary file, /dev/zero) stops the read
 * at once instead of being read whole first. Prints why and returns NULL when it cannot.
 */
static json_object *parse(FILE *f, const char *path)
{
	enum json_tokener_error err = json_tokener_continue;
	struct json_tokener *tok = json_tokener_new();
	json_object *root = NULL;
	size_t n, total = 0;
	char buf[65536];
	struct stat st;

	while (tok != NULL && err == json_tokener_continue &&
	       (n = fread(buf, 1, sizeof(buf), f)) > 0) {
		total += n;
		root = json_tokener_parse_ex(tok, buf, (int)n);
		err = json_tokener_get_error(tok);
	}
	json_tokener_free(tok);
	if (root != NULL)
		return root;
	if (ferror(f))
		fprintf(stderr, "odma trace: %s: %s\n", path, strerror(errno));
	else if (total == 0 && (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)))
		fprintf(stderr, "odma trace: %s: nothing to read (a FIFO without a writer?)\n",
		        path);
	else if (total == 0)
		fprintf(stderr,
		        "odma trace: %s is empty: its process ended without exit() (_exit, a "
		        "signal) and without destroying its PEs, so its timeline was never "
		        "written\n",
		        path);
	else
		fprintf(stderr,
		        "odma trace: %s is not a trace-event JSON file with traceEvents (%s)\n",
		        path,
		        err == json_tokener_continue ? "it ends before its JSON does"
		                                     : json_tokener_error_desc(err));
	return NULL;
}

static int load(const char *path, json_object **root, struct trace *tr)
{
	json_object *ev, *other, *args;
	FILE *f = odma_fopen_nowait(path, "r");
	size_t n;

	if (f == NULL) {
		fprintf(stderr, "odma trace: %s: %s\n", path, strerror(errno));
		return 1;
	}
	*root = parse(f, path);
	fclose(f);
	if (*root == NULL)
		return 1;
	if (!json_object_object_get_ex(*root, "traceEvents", &ev) ||
	    !json_object_is_type(ev, json_type_array)) {
		fprintf(stderr,
		        "odma trace: %s is not a trace-event JSON file with traceEvents (no "
		        "traceEvents array)\n",
		        path);
		json_object_put(*root);
		*root = NULL;
		return 1;
	}
	if (json_object_object_get_ex(*root, "otherData", &other))
		tr->dropped = count(other, "dropped");
	n = json_object_array_length(ev);
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(ev, i);
		const char *ph = str(e, "ph"), *cat = str(e, "cat");
		struct task *t;

		if (ph == NULL || cat == NULL)
			continue;
		if (strcmp(cat, "task") == 0 && (strcmp(ph, "b") == 0 || strcmp(ph, "e") == 0)) {
			t = task_of(tr, count(e, "id"));
			if (t == NULL)
				continue;
			if (ph[0] == 'b') {
				t->submit = stamp(e, "ts");
				t->kind = str(e, "name");
				if (json_object_object_get_ex(e, "args", &args))
					t->bytes = count(args, "bytes");
			} else {
				t->done = stamp(e, "ts");
				if (json_object_object_get_ex(e, "args", &args)) {
					t->status = str(args, "status");
					t->done_bytes = count(args, "bytes");
				}
			}
		} else if (strcmp(ph, "X") == 0 &&
		           (strcmp(cat, "engine") == 0 || strcmp(cat, "transport") == 0) &&
		           json_object_object_get_ex(e, "args", &args)) {
			double ts = stamp(e, "ts"), dur = stamp(e, "dur"), *lo, *hi;

			t = task_of(tr, count(args, "task"));
			if (t == NULL || ts < 0 || dur < 0)
				continue;
			lo = cat[0] == 'e' ? &t->run0 : &t->wire0;
			hi = cat[0] == 'e' ? &t->run1 : &t->wire1;
			if (*lo < 0 || ts < *lo)
				*lo = ts;
			if (ts + dur > *hi)
				*hi = ts + dur;
		}
	}
	return 0;
}

/* One line for a getopt refusal it reports as '?': a known flag given a value (--json=1;
 * glibc then leaves the flag in optopt, 0 for a name it does not know) or an unknown one. */
static int bad_option(const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (optopt != 0 && strncmp(arg, "--", 2) == 0 && eq != NULL) {
		fprintf(stderr,
		        "odma trace: option '%.*s' takes no value (see odma trace --help)\n",
		        (int)(eq - arg), arg);
		return 2;
	}
	return odma_help_bad_option("odma trace", arg);
}

static int cmp_latency(const void *a, const void *b)
{
	const struct task *x = *(const struct task *const *)a, *y = *(const struct task *const *)b;
	double lx = x->done - x->submit, ly = y->done - y->submit;

	if (lx != ly)
		return lx < ly ? 1 : -1;
	return x->id > y->id ? 1 : x->id < y->id ? -1 : 0; /* ties: in submit order */
}

int main(int argc, char **argv)
{
	static const struct option options[] = { { "buckets", required_argument, NULL, 'B' },
		                                 { "top", required_argument, NULL, 'T' },
		                                 { "json", no_argument, NULL, 'J' },
		                                 { "help", no_argument, NULL, 'h' },
		                                 { "man", no_argument, NULL, 'M' },
		                                 { NULL, 0, NULL, 0 } };
	int buckets = 10, top = 5, c;
	bool json = false;
	struct trace tr = { 0 };
	json_object *root = NULL, *out;
	double t0 = -1, t1 = -1, stage[N_STAGES] = { 0 }, busy_sum = 0;
	uint64_t done_tasks = 0, bytes = 0, failed = 0, with_run = 0, with_wire = 0;
	struct task **order;
	char *end;
	int dom = 0;

	if (odma_help_man_wanted(argc, argv)) {
		char *text = odma_help_capture(usage_stdout, NULL);

		if (text == NULL)
			return 1;
		odma_help_man(stdout, "odma-trace", 1, "summarise an ODMA_TRACE task timeline",
		              text, NULL);
		free(text);
		return 0;
	}
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		switch (c) {
		case 'B':
		case 'T': {
			long v = strtol(optarg, &end, 10);

			if (end == optarg || *end != '\0' || v < (c == 'B' ? 1 : 0) || v > 100) {
				fprintf(stderr,
				        "odma trace: --%s \"%s\" is not a number from %d to 100 "
				        "(see odma trace --help)\n",
				        c == 'B' ? "buckets" : "top", optarg, c == 'B' ? 1 : 0);
				return 2;
			}
			if (c == 'B')
				buckets = (int)v;
			else
				top = (int)v;
			break;
		}
		case 'J':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			fprintf(stderr,
			        "odma trace: option '%s' needs a value (see odma trace --help)\n",
			        argv[optind - 1]);
			return 2;
		default:
			return bad_option(argv[optind - 1]);
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "odma trace: one FILE expected (see odma trace --help)\n");
		return 2;
	}
	if (load(argv[optind], &root, &tr) != 0)
		return 1;
	order = calloc(tr.n ? tr.n : 1, sizeof(*order));
	if (order == NULL)
		return 1;
	for (size_t i = 0; i < tr.cap; i++) {
		struct task *t = &tr.t[i];

		/* an empty slot; a task without a begin, without an end or with one before it */
		if (t->id == 0 || t->submit < 0 || t->done < t->submit)
			continue;
		order[done_tasks++] = t;
		if (t->bytes == 0)
			t->bytes = t->done_bytes;
		bytes += t->bytes;
		failed += t->status != NULL && strcmp(t->status, "DOCA_SUCCESS") != 0;
		if (t0 < 0 || t->submit < t0)
			t0 = t->submit;
		if (t->done > t1)
			t1 = t->done;
		busy_sum += t->done - t->submit;
		if (t->run0 >= 0) {
			with_run++;
			stage[0] += t->run0 - t->submit;
			stage[1] += t->run1 - t->run0;
			stage[2] += t->done - t->run1;
		} else if (t->wire0 >= 0) { /* a copy over the network, an RDMA task */
			with_wire++;
			stage[3] += t->wire0 - t->submit;
			stage[4] += t->wire1 - t->wire0;
			stage[5] += t->done - t->wire1;
		} else {
			stage[6] += t->done - t->submit; /* Comch, a receive */
		}
	}
	if (done_tasks == 0) {
		fprintf(stderr,
		        "odma trace: %s holds no completed task (was ODMA_TRACE set for a "
		        "program that submitted tasks?)\n",
		        argv[optind]);
		return 1;
	}
	for (int s = 1; s < N_STAGES; s++)
		if (stage[s] > stage[dom])
			dom = s;
	qsort(order, done_tasks, sizeof(*order), cmp_latency);
	{
		/* below the nanosecond the writer resolves, a span is none */
		double span = t1 - t0 >= 1e-3 ? t1 - t0 : 1, w = span / buckets;
		double *b_tasks = calloc((size_t)buckets, sizeof(double));
		double *b_bytes = calloc((size_t)buckets, sizeof(double));
		double *b_depth = calloc((size_t)buckets, sizeof(double));

		if (b_tasks == NULL || b_bytes == NULL || b_depth == NULL)
			return 1;
		for (uint64_t i = 0; i < done_tasks; i++) {
			const struct task *t = order[i];
			int k = (int)((t->done - t0) / w);

			k = k >= buckets ? buckets - 1 : k;
			b_tasks[k] += 1;
			b_bytes[k] += (double)t->bytes;
			/*
			 * in flight: its share of each interval it spans, summed = the mean depth
			 */
			for (int j = 0; j < buckets; j++) {
				double lo = t0 + j * w, hi = lo + w;
				double a = t->submit > lo ? t->submit : lo,
				       z = t->done < hi ? t->done : hi;

				if (z > a)
					b_depth[j] += (z - a) / w;
			}
		}
		out = json_object_new_object();
		json_object_object_add(out, "file", json_object_new_string(argv[optind]));
		json_object_object_add(out, "tasks", json_object_new_int64((int64_t)done_tasks));
		json_object_object_add(out, "failed", json_object_new_int64((int64_t)failed));
		json_object_object_add(out, "bytes", json_object_new_int64((int64_t)bytes));
		json_object_object_add(out, "span_us", json_object_new_double(span));
		json_object_object_add(out, "dropped_events",
		                       json_object_new_int64((int64_t)tr.dropped));
		json_object_object_add(out, "tasks_per_s",
		                       json_object_new_double((double)done_tasks / span * 1e6));
		json_object_object_add(out, "bytes_per_s",
		                       json_object_new_double((double)bytes / span * 1e6));
		json_object_object_add(out, "mean_in_flight",
		                       json_object_new_double(busy_sum / span));
		{
			json_object *st = json_object_new_object();
			char key[32];

			for (int s = 0; s < N_STAGES; s++) {
				snprintf(key, sizeof(key), "%s_us", stage_key[s]);
				json_object_object_add(
				        st, key, json_object_new_double(stage[s] / done_tasks));
			}
			json_object_object_add(out, "mean_stage", st);
			json_object_object_add(out, "dominant_stage",
			                       json_object_new_string(stage_key[dom]));
		}
		if (json) {
			json_object *arr = json_object_new_array();

			for (int j = 0; j < buckets; j++) {
				json_object *o = json_object_new_object();

				json_object_object_add(o, "from_us", json_object_new_double(j * w));
				json_object_object_add(
				        o, "tasks_per_s",
				        json_object_new_double(b_tasks[j] / w * 1e6));
				json_object_object_add(
				        o, "bytes_per_s",
				        json_object_new_double(b_bytes[j] / w * 1e6));
				json_object_object_add(o, "in_flight",
				                       json_object_new_double(b_depth[j]));
				json_object_array_add(arr, o);
			}
			json_object_object_add(out, "over_time", arr);
			arr = json_object_new_array();
			for (int j = 0; j < top && (uint64_t)j < done_tasks; j++) {
				json_object *o = json_object_new_object();

				json_object_object_add(
				        o, "id", json_object_new_int64((int64_t)order[j]->id));
				json_object_object_add(
				        o, "latency_us",
				        json_object_new_double(order[j]->done - order[j]->submit));
				json_object_object_add(
				        o, "bytes",
				        json_object_new_int64((int64_t)order[j]->bytes));
				json_object_array_add(arr, o);
			}
			json_object_object_add(out, "slowest", arr);
			printf("%s\n",
			       json_object_to_json_string_ext(out, JSON_C_TO_STRING_PRETTY));
		} else {
			printf("%s: %llu tasks (%llu failed), %llu bytes over %.1f us; %llu events "
			       "dropped\n",
			       argv[optind], (unsigned long long)done_tasks,
			       (unsigned long long)failed, (unsigned long long)bytes, span,
			       (unsigned long long)tr.dropped);
			printf("  %.0f tasks/s, %.3f GB/s, %.1f tasks in flight on average\n",
			       (double)done_tasks / span * 1e6, (double)bytes / span / 1e3,
			       busy_sum / span);
			printf("\ntime per stage (mean per task; of %llu tasks, "
			       "%llu ran on an engine thread, %llu crossed a transport):\n",
			       (unsigned long long)done_tasks, (unsigned long long)with_run,
			       (unsigned long long)with_wire);
			for (int s = 0; s < N_STAGES; s++)
				if (stage[s] != 0 || s == dom)
					printf("  %-52s %10.2f us%s\n", stage_name[s],
					       stage[s] / done_tasks,
					       s == dom ? "   <- dominates" : "");
			printf("\nover time (%d intervals of %.1f us):\n  %10s %12s %12s %10s\n",
			       buckets, w, "from us", "tasks/s", "GB/s", "in flight");
			for (int j = 0; j < buckets; j++)
				printf("  %10.1f %12.0f %12.3f %10.1f\n", j * w,
				       b_tasks[j] / w * 1e6, b_bytes[j] / w / 1e3, b_depth[j]);
			if (top > 0)
				printf("\nslowest tasks:\n");
			for (int j = 0; j < top && (uint64_t)j < done_tasks; j++)
				printf("  task %-8llu %10.2f us  %llu bytes  %s\n",
				       (unsigned long long)order[j]->id,
				       order[j]->done - order[j]->submit,
				       (unsigned long long)order[j]->bytes,
				       order[j]->status ? order[j]->status : "");
		}
		json_object_put(out);
		free(b_tasks);
		free(b_bytes);
		free(b_depth);
	}
	free(order);
	free(tr.t);
	json_object_put(root);
	return 0;
}
