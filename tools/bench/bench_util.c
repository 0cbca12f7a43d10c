/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Clocks, statistics, size parsing, cache facts, and the two baselines every run prints
 * beside the engine: a single-thread memcpy over the same slots, and cross-core ping-pongs.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <doca_dev.h>

#include "bench.h"
#include "odma_help.h"
#include "util/stream_copy.h"

#define MIB (1024UL * 1024UL)

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The transports' status lines (libdoca_common, as doca_caps prints them). */
const char *doca_priv_transport_info(unsigned int i, const char **status);

const char *bench_link(void)
{
	const char *name, *status = NULL;

	for (unsigned int i = 0; (name = doca_priv_transport_info(i, &status)) != NULL; i++)
		if (strcmp(name, "ucx") == 0)
			return strstr(status, "odma's TCP link") != NULL ? "tcp" : "ucp";
	return "none";
}

double bench_median(double *v, int n)
{
	if (n <= 0)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Sorts @v in place; nearest-rank percentile. */
double bench_percentile_u64(uint64_t *v, size_t n, double pct)
{
	size_t k;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	k = (size_t)(pct / 100.0 * (double)n);
	return (double)v[k >= n ? n - 1 : k];
}

/* "4096", "4K", "64k", "16M", "1G" (binary multiples); a size past SIZE_MAX is refused. */
int bench_parse_size(const char *s, size_t *out)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	if (s == NULL || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0)
		return -1;
	switch (toupper((unsigned char)*end)) {
	case 'K':
		shift = 10;
		break;
	case 'M':
		shift = 20;
		break;
	case 'G':
		shift = 30;
		break;
	default:
		break;
	}
	end += shift != 0;
	if (v > (SIZE_MAX >> shift)) /* 17179869185G would wrap to 1G */
		return -1;
	v <<= shift;
	if (*end == 'i' || *end == 'B')
		end += (*end == 'i' && end[1] == 'B') ? 2 : 1;
	if (*end != '\0' || v == 0)
		return -1;
	*out = (size_t)v;
	return 0;
}

void bench_fmt_size(size_t n, char *buf, size_t len)
{
	if (n >= MIB && n % MIB == 0)
		snprintf(buf, len, "%zuM", n / MIB);
	else if (n >= 1024 && n % 1024 == 0)
		snprintf(buf, len, "%zuK", n / 1024);
	else
		snprintf(buf, len, "%zu", n);
}

size_t bench_llc_size(void)
{
	long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
	unsigned long kib;
	FILE *f;

	if (v > 0)
		return (size_t)v;
	f = fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
	if (f == NULL)
		return 0;
	if (fscanf(f, "%luK", &kib) != 1)
		kib = 0;
	fclose(f);
	return kib * 1024;
}

/* Four times the LLC (256 MiB when unknown), but never more than a quarter of RAM. */
size_t bench_cold_footprint(void)
{
	size_t llc = bench_llc_size(), fp = llc ? 4 * llc : 256 * MIB;
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

	if (pages > 0 && psz > 0 && fp > (size_t)pages * (size_t)psz / 4)
		fp = (size_t)pages * (size_t)psz / 4;
	return fp < 256 * MIB ? 256 * MIB : fp;
}

int bench_pin_self(int cpu)
{
	cpu_set_t set;

	if (cpu >= CPU_SETSIZE)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0 ? 0 : -1;
}

/* ---------------------------------------------------------------- ping-pongs */

#define PP_ROUNDS 5000
#define PP_BATCHES 5

struct pp {
	_Atomic uint64_t flag;
	int cpu;
	int efd[2];
	uint64_t *samples;
	size_t n;
};

static void *pp_spin_echo(void *arg)
{
	struct pp *p = arg;

	bench_pin_self(p->cpu);
	for (uint64_t i = 0; i < (uint64_t)PP_ROUNDS * PP_BATCHES; i++) {
		while (atomic_load_explicit(&p->flag, memory_order_acquire) != 2 * i + 1)
			;
		atomic_store_explicit(&p->flag, 2 * i + 2, memory_order_release);
	}
	return NULL;
}

static void *pp_spin_lead(void *arg)
{
	struct pp *p = arg;
	double batch[PP_BATCHES];
	uint64_t i = 0, t0;

	bench_pin_self(0);
	for (int b = 0; b < PP_BATCHES; b++) {
		t0 = bench_now_ns();
		for (int r = 0; r < PP_ROUNDS; r++, i++) {
			atomic_store_explicit(&p->flag, 2 * i + 1, memory_order_release);
			while (atomic_load_explicit(&p->flag, memory_order_acquire) != 2 * i + 2)
				;
		}
		batch[b] = (double)(bench_now_ns() - t0) / PP_ROUNDS;
	}
	p->samples[0] = (uint64_t)(bench_median(batch, PP_BATCHES) + 0.5);
	return NULL;
}

struct doca_dev *bench_open_pci(const char *pci)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;
	uint8_t is;

	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
		return NULL;
	for (uint32_t i = 0; i < n && dev == NULL; i++)
		if (doca_devinfo_is_equal_pci_addr(list[i], pci, &is) == DOCA_SUCCESS && is)
			(void)doca_dev_open(list[i], &dev);
	doca_devinfo_destroy_list(list);
	return dev;
}

bool bench_full_io(int fd, void *p, size_t n, bool wr)
{
	while (n > 0) {
		ssize_t k = wr ? send(fd, p, n, MSG_NOSIGNAL) : recv(fd, p, n, 0);

		if (k < 0 && errno == ENOTSOCK)
			k = wr ? write(fd, p, n) : read(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		p = (uint8_t *)p + k;
		n -= (size_t)k;
	}
	return true;
}

bool bench_busy_check(double pingpong_ns, double threshold_ns)
{
	if (!(pingpong_ns > threshold_ns))
		return false;
	fprintf(stderr,
	        "odma-bench: warning: the machine looks busy: the same-run ping-pong took %.0f ns, "
	        "above the --busy-threshold of %.0f ns (about 100 ns when idle); the figures of "
	        "this run are lower and noisier than on an idle machine\n",
	        pingpong_ns, threshold_ns);
	return true;
}

/* Round trip of two threads (CPUs 0 and 1 when allowed) spinning on one atomic. */
double bench_pingpong_ns(void)
{
	uint64_t result = 0;
	struct pp p = { .cpu = 1, .samples = &result };
	pthread_t a, b;

	if (pthread_create(&b, NULL, pp_spin_echo, &p) != 0)
		return 0;
	if (pthread_create(&a, NULL, pp_spin_lead, &p) != 0) {
		pthread_cancel(b);
		pthread_join(b, NULL);
		return 0;
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return (double)result;
}

#define EFD_ROUNDS 2000

static void *efd_echo(void *arg)
{
	struct pp *p = arg;
	uint64_t v;

	bench_pin_self(1);
	for (int i = 0; i < EFD_ROUNDS; i++)
		if (read(p->efd[1], &v, sizeof(v)) != sizeof(v) ||
		    write(p->efd[0], &v, sizeof(v)) != sizeof(v))
			break;
	return NULL;
}

/* Round trip of two threads that sleep in read() on an eventfd each: p50 in ns. */
double bench_eventfd_pingpong_ns(void)
{
	struct pp p = { .efd = { eventfd(0, EFD_CLOEXEC), eventfd(0, EFD_CLOEXEC) } };
	uint64_t s[EFD_ROUNDS], v = 1, t0;
	double res = 0;
	pthread_t b;
	int i = 0;

	if (p.efd[0] >= 0 && p.efd[1] >= 0 && pthread_create(&b, NULL, efd_echo, &p) == 0) {
		for (i = 0; i < EFD_ROUNDS; i++) {
			t0 = bench_now_ns();
			if (write(p.efd[1], &v, sizeof(v)) != sizeof(v) ||
			    read(p.efd[0], &v, sizeof(v)) != sizeof(v))
				break;
			s[i] = bench_now_ns() - t0;
		}
		pthread_join(b, NULL);
		res = i == EFD_ROUNDS ? bench_percentile_u64(s, EFD_ROUNDS, 50) : 0;
	}
	close(p.efd[0]);
	close(p.efd[1]);
	return res;
}

/* ---------------------------------------------------------------- memory and memcpy */

int bench_mem_prepare(struct bench_mem *m, const struct bench_cfg *c, size_t max_task_size)
{
	size_t stride = (max_task_size + 63) & ~(size_t)63;

	memset(m, 0, sizeof(*m));
	m->len = c->cold ? (c->footprint ? c->footprint : bench_cold_footprint()) / 2
	                 : (size_t)c->depth * stride;
	m->len = (m->len + 4095) & ~(size_t)4095;
	m->src = aligned_alloc(4096, m->len);
	m->dst = aligned_alloc(4096, m->len);
	if (m->src == NULL || m->dst == NULL) {
		bench_mem_free(m);
		return -1;
	}
	/* Touch every page now so that no run pays for page faults; a varied pattern lets
	 * the spot-check tell a real copy from stale bytes. */
	for (size_t i = 0; i < m->len / 8; i++)
		((uint64_t *)m->src)[i] = i * 0x9E3779B97F4A7C15ULL + 1;
	memset(m->dst, 0, m->len);
	return 0;
}

/* Cuts the regions for one size: each task moves min(size, max_buf_size) bytes. */
void bench_mem_layout(struct bench_mem *m, const struct bench_cfg *c, size_t size,
                      size_t max_buf_size)
{
	size_t ts = size < max_buf_size ? size : max_buf_size;

	if (c->list_len > 1)
		ts -= ts % c->list_len;
	m->task_size = ts;
	m->stride = (ts + 63) & ~(size_t)63;
	m->n_slots = c->cold ? m->len / m->stride : c->depth;
	m->n_slots -= m->n_slots % c->depth;
}

void bench_mem_free(struct bench_mem *m)
{
	free(m->src);
	free(m->dst);
	m->src = m->dst = NULL;
}

/* Slot 0 is the first one written in every repetition: clear it before, compare after. */
void bench_slot_clear(const struct bench_mem *m)
{
	memset(m->dst, 0, m->task_size);
}

bool bench_slot_check(const struct bench_mem *m)
{
	return memcmp(m->dst, m->src, m->task_size) == 0;
}

void bench_memcpy_rep(const struct bench_mem *m, double seconds, struct bench_rep *r)
{
	uint64_t t0 = bench_now_ns(), end = t0 + (uint64_t)(seconds * 1e9), n = 0, now;
	size_t slot = 0;

	bench_slot_clear(m);
	do {
		for (int k = 0; k < 16; k++, n++) {
			memcpy(m->dst + slot * m->stride, m->src + slot * m->stride, m->task_size);
			slot = slot + 1 == m->n_slots ? 0 : slot + 1;
		}
		now = bench_now_ns();
	} while (now < end);
	r->tasks = n;
	r->seconds = (double)(now - t0) / 1e9;
	r->verified = bench_slot_check(m);
}

/*
 * The CPUs this process may run on (affinity mask, capped by a cgroup v2 cpu.max quota), as
 * the thread engine counts them for its default worker count.
 */
static long bench_usable_cpus(void)
{
	cpu_set_t set;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	char path[600], line[512];
	long long quota, period;
	FILE *f;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		n = CPU_COUNT(&set);
	path[0] = '\0';
	if ((f = fopen("/proc/self/cgroup", "r")) != NULL) {
		while (fgets(line, sizeof(line), f) != NULL)
			if (strncmp(line, "0::", 3) == 0) {
				line[strcspn(line, "\n")] = '\0';
				snprintf(path, sizeof(path), "/sys/fs/cgroup%s/cpu.max", line + 3);
			}
		fclose(f);
	}
	if (path[0] == '\0' || (f = fopen(path, "r")) == NULL)
		f = fopen("/sys/fs/cgroup/cpu.max", "r");
	if (f != NULL) {
		if (fscanf(f, "%lld %lld", &quota, &period) == 2 && quota > 0 && period > 0 &&
		    (quota + period - 1) / period < n)
			n = (long)((quota + period - 1) / period);
		fclose(f);
	}
	return n > 0 ? n : 1;
}

/*
 * Threads the odma engine moves bytes on: 1 for the inline engine; for the thread engine its
 * workers (ODMA_WORKERS, or the default: the usable CPUs minus one, 1 to 4) plus the
 * submitting thread, which copies its share of every split copy.
 */
int bench_engine_threads(void)
{
	const char *e = getenv("ODMA_ENGINE"), *w = getenv("ODMA_WORKERS");
	long cpus, workers;

	if (e != NULL && strcmp(e, "inline") == 0)
		return 1;
	if (w != NULL && *w != '\0' && atol(w) > 0)
		return (int)atol(w) + 1;
	cpus = bench_usable_cpus();
	workers = cpus <= 2 ? 1 : (cpus - 1 < 4 ? cpus - 1 : 4);
	return (int)workers + 1;
}

struct mc_thread {
	const struct bench_mem *m;
	void (*copy)(void *dst, const void *src, size_t n);
	pthread_barrier_t *go;
	uint64_t end_ns, tasks;
	unsigned int first, step;
};

static void *mc_thread_main(void *arg)
{
	struct mc_thread *t = arg;
	const struct bench_mem *m = t->m;
	size_t slot = t->first % m->n_slots;
	uint64_t n = 0;

	pthread_barrier_wait(t->go);
	do {
		for (int k = 0; k < 16; k++, n++) {
			t->copy(m->dst + slot * m->stride, m->src + slot * m->stride, m->task_size);
			/* (fewer slots than threads: the step may wrap more than once) */
			slot += t->step;
			while (slot >= m->n_slots)
				slot -= m->n_slots;
		}
	} while (bench_now_ns() < t->end_ns);
	t->tasks = n;
	return NULL;
}

static void mc_memcpy(void *dst, const void *src, size_t n)
{
	memcpy(dst, src, n);
}

/* @copy on @threads threads at once over the same slots (bench_memcpy_mt_rep). */
static void mc_mt_rep(const struct bench_mem *m, double seconds, int threads,
                      void (*copy)(void *, const void *, size_t), struct bench_rep *r)
{
	struct mc_thread t[64];
	pthread_t tid[64];
	pthread_barrier_t go;
	uint64_t t0;
	int n = threads < 1 ? 1 : threads > 64 ? 64 : threads, started = 1;

	memset(r, 0, sizeof(*r));
	bench_slot_clear(m);
	pthread_barrier_init(&go, NULL, (unsigned int)n);
	t0 = bench_now_ns();
	for (int j = 0; j < n; j++)
		t[j] = (struct mc_thread){ .m = m,
			                   .copy = copy,
			                   .go = &go,
			                   .first = (unsigned int)j,
			                   .step = (unsigned int)n,
			                   .end_ns = t0 + (uint64_t)(seconds * 1e9) + 1000000 };
	for (int j = 1; j < n; j++) {
		if (pthread_create(&tid[j], NULL, mc_thread_main, &t[j]) != 0)
			break;
		started++;
	}
	if (started < n) { /* cannot start them all: no figure */
		pthread_barrier_destroy(&go);
		return;
	}
	t0 = bench_now_ns();
	for (int j = 0; j < n; j++)
		t[j].end_ns = t0 + (uint64_t)(seconds * 1e9);
	mc_thread_main(&t[0]);
	for (int j = 1; j < n; j++)
		pthread_join(tid[j], NULL);
	r->seconds = (double)(bench_now_ns() - t0) / 1e9;
	for (int j = 0; j < n; j++)
		r->tasks += t[j].tasks;
	r->verified = bench_slot_check(m);
	pthread_barrier_destroy(&go);
}

/*
 * memcpy on @threads threads at once over the same slots: thread j copies slots j, j+N, ...
 * (same size, same footprint); tasks are the slots copied by all of them together.
 */
void bench_memcpy_mt_rep(const struct bench_mem *m, double seconds, int threads,
                         struct bench_rep *r)
{
	mc_mt_rep(m, seconds, threads, mc_memcpy, r);
}

/*
 * The same with streaming stores (util/stream_copy.h, what odma's engine uses for big copies
 * into memory out of the cache): the machine's limit for copies that miss the cache.
 */
void bench_stream_mt_rep(const struct bench_mem *m, double seconds, int threads,
                         struct bench_rep *r)
{
	mc_mt_rep(m, seconds, threads, odma_stream_copy_bytes, r);
}

/* p50 of one memcpy of @size bytes on cache-hot buffers, timed like a one-shot task. */
double bench_memcpy_oneshot_ns(const struct bench_mem *m, size_t size)
{
	enum { N = 2001 };
	static uint64_t s[N];
	uint64_t t0;

	for (int i = 0; i < N; i++) {
		t0 = bench_now_ns();
		memcpy(m->dst, m->src, size);
		__asm__ volatile("" ::: "memory");
		s[i] = bench_now_ns() - t0;
	}
	return bench_percentile_u64(s, N, 50);
}

int bench_add_param(const char *short_name, const char *long_name, const char *args,
                    const char *desc, enum doca_argp_type type, doca_argp_param_cb_t cb,
                    bool mandatory)
{
	struct doca_argp_param *p;

	if (doca_argp_param_create(&p) != DOCA_SUCCESS)
		return -1;
	if (short_name != NULL)
		doca_argp_param_set_short_name(p, short_name);
	doca_argp_param_set_long_name(p, long_name);
	if (args != NULL)
		doca_argp_param_set_arguments(p, args);
	doca_argp_param_set_description(p, desc);
	doca_argp_param_set_type(p, type);
	doca_argp_param_set_callback(p, cb);
	if (mandatory)
		doca_argp_param_set_mandatory(p);
	return doca_argp_register_param(p) == DOCA_SUCCESS ? 0 : -1;
}

static void call_help(void *fn)
{
	(*(void (**)(void))fn)();
}

/* `odma bench --man`: the man page of the --help text (the build installs it). */
static void bench_man(const char *argv0, void (*print_help)(void))
{
	const char *base = strrchr(argv0, '/') != NULL ? strrchr(argv0, '/') + 1 : argv0;
	char *text = odma_help_capture(call_help, &print_help);

	if (text == NULL)
		exit(1);
	odma_help_man(stdout, base, 1, NULL, text, NULL); /* the text has its NAME section */
	free(text);
	exit(0);
}

int bench_prefilter(int argc, char **argv, void (*print_help)(void), bool *json)
{
	char cmd[64];
	int n = 1;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			while (i < argc)
				argv[n++] = argv[i++];
			break;
		}
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			print_help();
			exit(0);
		}
		if (strcmp(argv[i], "--man") == 0)
			bench_man(argv[0], print_help);
		/* --json prints JSON, as the help says; DOCA's -j/--json FILE is not offered */
		if (strcmp(argv[i], "--json") == 0) {
			*json = true;
			continue;
		}
		if (strcmp(argv[i], "-j") == 0 || strncmp(argv[i], "--json=", 7) == 0)
			exit(odma_help_bad_option(odma_help_cmd_name(argv[0], cmd, sizeof(cmd)),
			                          argv[i]));
		argv[n++] = argv[i];
	}
	argv[n] = NULL;
	return n;
}
