/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The task timeline (trace.h). Each thread that records gets a ring of its own, found through
 * a thread-local pointer and listed once in trace_rings; a ring is written by its thread only.
 * Each time the last PE is destroyed, and at exit, what the rings gained since the last write
 * is added to FILE, which is then whole Chrome trace-event JSON again (a program that destroys
 * its PEs and makes new ones, as odma bench does between a run's phases, is traced throughout;
 * events after the exit's write are not written):
 *   - a task: an async slice ("b" at its submit, "e" at its completion callback), id = the
 *     task's trace number, name = its context type, args bytes (a copy's at its submit, the
 *     bytes a task of another type moved at its end: its type's trace_bytes op) and status;
 *   - a part of a copy run on an engine thread: a complete slice ("X", cat "engine");
 *   - a transport request that carried a task's bytes (a piece of a copy over the network,
 *     an RDMA io or request), from its start to its answer: a complete slice ("X", cat
 *     "transport") on the thread that took the answer;
 *   - otherData: events dropped (a full ring, or more than TRACE_RINGS threads).
 * A process that finds FILE taken by another live process of the run (its lock), or that was
 * forked after the first doca_pe_create, writes its own timeline to FILE.PID.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/config/config.h"
#include "core/exec/exec.h"
#include "core/exec/trace.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(ODMA_TRACE)

#define TRACE_RING 65536u /* events per thread */
#define TRACE_RINGS 64u   /* threads that may record */

enum { EV_SUBMIT = 1, EV_RUN, EV_DONE, EV_WIRE };

struct trace_ev {
	uint64_t ts, dur; /* CLOCK_MONOTONIC ns */
	uint64_t id;      /* the task's trace number */
	uint64_t bytes;
	const char *kind; /* its context type ("DMA", "RDMA", ...) */
	int32_t status;
	uint8_t type;
};

struct trace_ring {
	uint32_t tid;
	uint32_t n;
	uint32_t flushed; /* events already in the file */
	bool named;       /* its thread's name is in the file */
	struct trace_ring *next;
	struct trace_ev ev[];
};

bool odma_exec_slow;
bool odma_trace_enabled;

static pthread_once_t trace_once = PTHREAD_ONCE_INIT;
static doca_error_t trace_status = DOCA_SUCCESS;
static FILE *trace_file;
static char trace_path[PATH_MAX + 16]; /* room for .PID after it (trace_child) */
static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
static struct trace_ring *trace_rings;
static unsigned int trace_nrings;
static _Atomic uint64_t trace_dropped, trace_next_id;
static _Thread_local struct trace_ring *my_ring;
static _Thread_local bool my_ring_refused;
static bool trace_written;   /* the last write (at exit) is done */
static long trace_tail = -1; /* where the file's closing part starts; -1: nothing written yet */
static bool trace_objects;   /* an object is in traceEvents (the next needs a comma) */

static void trace_write(bool final);
static int trace_open(const char *path, const char **why);

static void trace_exit(void)
{
	trace_write(true);
}

/* Appends this process' ".PID" to trace_path and opens that file as trace_open does. */
static int trace_open_pid(const char **why)
{
	size_t n = strlen(trace_path);

	if (n + 16 > sizeof(trace_path))
		n = sizeof(trace_path) - 16;
	snprintf(trace_path + n, 16, ".%d", (int)getpid());
	return trace_open(trace_path, why);
}

/*
 * A forked child keeps its own timeline, in FILE.PID: the parent's file and rings stay the
 * parent's (the child's copy of the rings is forgotten, not written). FILE.PID is opened as
 * FILE is (trace_open): a FIFO there would block the child in fork() for ever.
 */
static void trace_child(void)
{
	const char *why;
	int fd;

	if (!odma_trace_enabled || trace_written)
		return;
	if (trace_file != NULL)
		fclose(trace_file); /* empty after each write: closes the child's fd only */
	trace_file = NULL;
	fd = trace_open_pid(&why);
	if (fd >= 0 && (ftruncate(fd, 0) != 0 || (trace_file = fdopen(fd, "w")) == NULL))
		close(fd);
	trace_rings = NULL;
	trace_nrings = 0;
	trace_tail = -1;
	trace_objects = false;
	my_ring = NULL;
	my_ring_refused = false;
	if (trace_file == NULL)
		trace_written = true; /* nothing to write to: record nothing of it */
}

/*
 * Opens @path to write the timeline, which is rewritten in place: a regular file only. With
 * O_NONBLOCK, a FIFO no process reads is refused at once, not waited on for ever in
 * doca_pe_create. -1 and the reason in @why when it cannot be.
 */
static int trace_open(const char *path, const char **why)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0644);
	struct stat st;

	if (fd < 0) {
		*why = errno == ENXIO ? "not a regular file (a FIFO or a socket)" : strerror(errno);
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		*why = "not a regular file: the timeline is rewritten in place";
		close(fd);
		return -1;
	}
	return fd;
}

static void trace_load(void)
{
	const char *path = odma_config_string("ODMA_TRACE"), *why = NULL;
	int fd;

	if (path == NULL)
		return;
	if (strlen(path) >= PATH_MAX) { /* never cut short: that names another file */
		odma_config_refuse("ODMA_TRACE", path, strerror(ENAMETOOLONG));
		trace_status = DOCA_ERROR_INVALID_VALUE;
		return;
	}
	/*
	 * Opened now: a path that cannot be written fails the doca_pe_create, not the exit. The
	 * process that locks FILE writes it; another process of the same run (a host and a DPU
	 * side given one ODMA_TRACE) finds it locked and writes FILE.PID.
	 */
	snprintf(trace_path, sizeof(trace_path), "%s", path);
	fd = trace_open(trace_path, &why);
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0) {
		close(fd);
		fd = trace_open_pid(&why);
	}
	if (fd >= 0 && ftruncate(fd, 0) == 0)
		trace_file = fdopen(fd, "w");
	if (trace_file == NULL) {
		odma_config_refuse("ODMA_TRACE", path, why != NULL ? why : strerror(errno));
		if (fd >= 0)
			close(fd);
		trace_status = DOCA_ERROR_INVALID_VALUE;
		return;
	}
	odma_trace_enabled = true;
	odma_exec_slow = true;
	atexit(trace_exit);
	pthread_atfork(NULL, NULL, trace_child);
	ODMA_INFO("task timeline on: written to %s when the last PE is destroyed and at exit "
	          "(ODMA_TRACE; the per-task path, no batching)",
	          trace_path);
}

doca_error_t odma_trace_init(void)
{
	pthread_once(&trace_once, trace_load);
	return trace_status;
}

static struct trace_ring *ring_of_thread(void)
{
	struct trace_ring *r = my_ring;

	if (r != NULL || my_ring_refused)
		return r;
	pthread_mutex_lock(&trace_lock);
	if (trace_nrings < TRACE_RINGS && !trace_written) {
		r = calloc(1, sizeof(*r) + TRACE_RING * sizeof(r->ev[0]));
		if (r != NULL) {
			r->tid = (uint32_t)syscall(SYS_gettid);
			r->next = trace_rings;
			trace_rings = r;
			trace_nrings++;
		}
	}
	pthread_mutex_unlock(&trace_lock);
	my_ring = r;
	my_ring_refused = r == NULL;
	return r;
}

static void record(uint8_t type, uint64_t ts, uint64_t dur, const struct doca_task *t,
                   uint64_t bytes, doca_error_t status)
{
	struct trace_ring *r = ring_of_thread();
	struct trace_ev *e;

	if (r == NULL || r->n >= TRACE_RING) {
		atomic_fetch_add_explicit(&trace_dropped, 1, memory_order_relaxed);
		return;
	}
	e = &r->ev[r->n];
	e->ts = ts;
	e->dur = dur;
	e->id = t->trace_id;
	e->bytes = bytes;
	e->kind = t->ctx->ops->name;
	e->status = (int32_t)status;
	e->type = type;
	/* published for the writer at exit (release: the fields before the count) */
	__atomic_store_n(&r->n, r->n + 1, __ATOMIC_RELEASE);
}

/* The completion hook a traced task carries: its end event, then what it had before. */
static void trace_done(struct doca_task *t, bool ok)
{
	void (*prev)(struct doca_task *, bool) = t->trace_prev;
	uint64_t (*bytes)(const struct doca_task *) = t->ctx->ops->trace_bytes;

	record(EV_DONE, doca_priv_now_ns(), 0, t,
	       bytes != NULL && t->status == DOCA_SUCCESS ? bytes(t) : 0, t->status);
	t->hook = prev;
	t->trace_prev = NULL;
	if (prev != NULL)
		prev(t, ok);
	else
		t->ctx->ops->complete(t, ok);
}

void odma_trace_begin(struct doca_task *t)
{
	t->trace_id = atomic_fetch_add_explicit(&trace_next_id, 1, memory_order_relaxed) + 1;
}

void odma_trace_submit(struct doca_task *t, uint64_t t0_ns, doca_error_t r)
{
	if (r != DOCA_SUCCESS) {
		t->trace_id = 0;
		return;
	}
	t->trace_prev = t->hook;
	t->hook = trace_done;
	record(EV_SUBMIT, t0_ns, 0, t, t->ctx->ops->submit == NULL ? t->copy.total : 0,
	       DOCA_SUCCESS);
}

void (*odma_trace_owner_hook(const struct doca_task *t))(struct doca_task *, bool)
{
	return t->hook == trace_done ? t->trace_prev : t->hook;
}

static _Atomic int trace_pes;

void odma_trace_pe_born(void)
{
	atomic_fetch_add(&trace_pes, 1);
}

void odma_trace_pe_gone(void)
{
	if (atomic_fetch_sub(&trace_pes, 1) == 1)
		trace_write(false);
}

void odma_trace_run(const struct doca_task *t, uint64_t t0_ns, uint64_t len)
{
	uint64_t now = doca_priv_now_ns();

	record(EV_RUN, t0_ns, now - t0_ns, t, len, DOCA_SUCCESS);
}

void doca_priv_trace_wire(const struct doca_task *t, uint64_t t0_ns, uint64_t len)
{
	uint64_t now = doca_priv_now_ns();

	if (t->trace_id != 0 && odma_trace_enabled)
		record(EV_WIRE, t0_ns, now > t0_ns ? now - t0_ns : 0, t, len, DOCA_SUCCESS);
}

static void write_us(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%03u", ns / 1000u, (unsigned int)(ns % 1000u));
}

/* One event of thread @tid of process @pid as a trace-event object, after a separator. */
static void write_event(FILE *f, int pid, uint32_t tid, const struct trace_ev *e)
{
	bool run = e->type == EV_RUN;

	if (run || e->type == EV_WIRE) { /* a part: a complete slice on the thread that ran it */
		fprintf(f, ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":",
		        run ? "run" : "wire", run ? "engine" : "transport");
		write_us(f, e->ts);
		fprintf(f, ",\"dur\":");
		write_us(f, e->dur);
		fprintf(f, ",\"pid\":%d,\"tid\":%u,\"args\":{\"task\":%" PRIu64 ",", pid, tid,
		        e->id);
	} else { /* submit and completion: the two ends of the task's async slice */
		fprintf(f,
		        ",\n{\"name\":\"%s task\",\"cat\":\"task\",\"ph\":\"%s\",\"id\":%" PRIu64,
		        e->kind, e->type == EV_SUBMIT ? "b" : "e", e->id);
		fprintf(f, ",\"ts\":");
		write_us(f, e->ts);
		fprintf(f, ",\"pid\":%d,\"tid\":%u,\"args\":{", pid, tid);
		if (e->type == EV_DONE)
			fprintf(f, "\"status\":\"%s\",",
			        doca_error_get_name((doca_error_t)e->status));
	}
	fprintf(f, "\"bytes\":%" PRIu64 "}}", e->bytes);
}

/*
 * Adds to the file what the rings gained since the last write, then its closing part (which
 * the next write overwrites: the file only grows), so it is whole JSON after every write.
 * @final: the exit's write; the file is closed and nothing more is recorded.
 */
static void trace_write(bool final)
{
	int pid = (int)getpid();
	bool bad;
	FILE *f;

	pthread_mutex_lock(&trace_lock);
	f = trace_written ? NULL : trace_file;
	if (f == NULL)
		goto out;
	if (trace_tail < 0)
		fprintf(f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
	else
		fseek(f, trace_tail, SEEK_SET);
	for (struct trace_ring *r = trace_rings; r != NULL; r = r->next) {
		uint32_t n = __atomic_load_n(&r->n, __ATOMIC_ACQUIRE);

		if (!r->named)
			fprintf(f,
			        "%s{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%u,"
			        "\"args\":{\"name\":\"odma thread %u\"}}",
			        trace_objects ? ",\n" : "", pid, r->tid, r->tid);
		r->named = true;
		trace_objects = true;
		for (uint32_t i = r->flushed; i < n; i++)
			write_event(f, pid, r->tid, &r->ev[i]);
		r->flushed = n;
	}
	trace_tail = ftell(f);
	fprintf(f, "\n],\"otherData\":{\"producer\":\"odma\",\"dropped\":%" PRIu64 "}}\n",
	        (uint64_t)atomic_load(&trace_dropped));
	bad = fflush(f) != 0 || trace_tail < 0;
	if (bad)
		ODMA_ERR("ODMA_TRACE: writing %s failed: %s", trace_path, strerror(errno));
	if (final || bad) { /* a file that failed once is not written again */
		fclose(f);
		trace_written = true;
	}
out:
	pthread_mutex_unlock(&trace_lock);
}
