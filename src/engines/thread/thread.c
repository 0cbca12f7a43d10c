/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The thread engine (the default). Worker threads shared by the whole process move
 * the bytes. Each (PE, worker) pair has a channel: a single-producer/single-consumer
 * submission ring (PE thread -> worker) and a completion ring (worker -> PE thread).
 * The PE thread publishes submissions with one release store per doorbell; a worker
 * publishes completions per batch and wakes an armed PE through its eventfd only
 * when asked to (odma_pe_signal), libuv thread-pool style. No lock, allocation or
 * syscall per task while the worker is awake; an idle worker spins briefly, then
 * sleeps on a futex, so an idle process uses no CPU.
 *
 * Copies up to ODMA_INLINE_MAX bytes run on the submitting thread (a hand-off costs
 * more than a small memcpy) and still complete through doca_pe_progress.
 *
 * Invariant that keeps completions from ever blocking: a channel never has more
 * than TE_RING_CAP tasks outstanding (submitted and not yet polled back), so the
 * completion ring always has room for a worker's push.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/config/config.h"
#include "core/log/log.h"
#include "engines/engine.h"
#include "engines/thread/thread.h"
#include "util/now.h"
#include "util/spsc_ring.h"

ODMA_LOG_REGISTER(ODMA_ENGINE_THREAD)

#define TE_RING_CAP 4096u
#define TE_MAX_WORKERS 64u
#define TE_BATCH 32u
#define TE_SPIN_NS 50000ll                /* busy-wait this long before sleeping */
#define TE_FIRST_DIBS_NS 500000ll         /* a whole split copy waits this long for a worker */
#define TE_PUBLISH_EACH_BYTES 65536u      /* big copies publish their completion at once */
#define TE_DEFAULT_INLINE_MAX (64u << 10) /* measured: docs/performance.md */
#define TE_DEFAULT_SPLIT_MIN (64u << 10)  /* copies above this size are cut into chunks */
#define TE_SPLITS 64u                     /* split copies in flight per PE */
#define TE_CHUNK_MIN (64u << 10)          /* the smallest chunk of a split copy */
#define TE_CHUNK_ALIGN 4096u
#define TE_DEFAULT_HELP_BACKLOG 4u        /* worker backlog at which the submitter copies too */
#define TE_DEFAULT_ARM_SPIN_NS 0u         /* a PE about to sleep waits this long for workers */
#define TE_DEFAULT_ARMED_SPIN_NS 1000000u /* a worker stays awake this long after an arm */
#define TE_DEFAULT_SHARE_MIN (256u << 10) /* a held batch of this many bytes is shared */
#define TE_SHARE_MIN_TASKS 8u             /* and of at least this many tasks */

struct te_channel {
	struct odma_spsc_ring sub;  /* PE thread -> worker */
	struct odma_spsc_ring done; /* worker -> PE thread */
	struct doca_pe *pe;
	/*
	 * When the PE was last armed (te_arm; CLOCK_MONOTONIC ns): its worker stays awake for
	 * ODMA_ARMED_SPIN_NS after it, since the program submits again once it is woken.
	 */
	_Atomic int64_t armed_ns;
	uint32_t outstanding; /* PE thread only */
	/* room for TE_RING_CAP tasks and the entries of TE_SPLITS split copies */
	void *sub_slots[2 * TE_RING_CAP];
	void *done_slots[TE_RING_CAP];
};

/* The channels one worker serves; replaced, never edited, while the worker may read it. */
struct te_chanset {
	uint32_t n;
	uint32_t cap;
	struct te_channel *ch[];
};

/*
 * The channel-set hand-off (docs/design.md, "Channel sets"): the pool lock holder writes
 * the spare set, publishes it in 'set' and waits for one 'epoch' step of the worker; the
 * old set then becomes the spare. Both sets have the same capacity, so removing a channel
 * never allocates and cannot fail.
 */
struct te_worker {
	_Alignas(ODMA_CACHE_LINE) atomic_uint sleeping;
	atomic_uint wake_seq; /* futex word */
	_Alignas(ODMA_CACHE_LINE) _Atomic(struct te_chanset *) set;
	atomic_uint_fast64_t epoch; /* bumped after every pass over the channel set */
	atomic_bool stop;
	struct te_chanset *spare; /* pool lock; not read by the worker */
	pthread_t thread;
	unsigned int index;
};

/*
 * A split copy: its bytes cut into chunks that whoever is free claims from one cursor (the
 * PE thread when it submits the copy and at each poll, and every worker, each of which gets
 * one ring entry pointing here). The thread that finishes the last chunk signals the PE;
 * the PE thread hands the task back from poll. The slot is reused only when every worker
 * dropped its entry (refs 0), so a worker never reads a slot that was filled again.
 */
struct te_split {
	_Alignas(ODMA_CACHE_LINE) atomic_uint next;       /* the next chunk to claim */
	_Alignas(ODMA_CACHE_LINE) atomic_uint done;       /* chunks finished */
	atomic_uint refs;                                 /* worker entries not dropped yet */
	_Alignas(ODMA_CACHE_LINE) struct doca_task *task; /* written before the entries */
	struct doca_pe *pe;
	uint64_t bytes, chunk;
	uint32_t nchunks;
	bool returned;     /* PE thread only: handed back */
	int64_t submitted; /* PE thread only: when a copy of one chunk was submitted */
};

struct te_pe {
	struct doca_pe *pe;
	struct te_split *split; /* TE_SPLITS slots */
	uint64_t split_busy;    /* slots in use (PE thread only) */
	uint32_t generation;    /* pool generation it was made in (fork() starts a new one) */
	uint32_t nch;
	uint32_t rr;
	bool staged; /* some channel has entries staged and not published (doorbell) */
	struct odma_task_stage stage; /* small job->batch tasks, run at the next poll */
	/*
	 * Small local tasks copied on the PE thread: held until the next poll (or until
	 * ODMA_TASK_STAGE_MAX wait) and moved there as one batch under one fault guard, then handed
	 * back straight from poll (no trip through the PE's completion list).
	 */
	struct odma_task_stage local;
	struct te_channel *ch[];
};

static struct {
	pthread_mutex_t lock;
	struct te_worker *workers;
	uint32_t nworkers;
	uint32_t npe;
	size_t inline_max;
	uint32_t generation;
	uint32_t help_backlog;
	size_t split_min;
	uint64_t arm_spin_ns;
	int64_t armed_spin_ns;
	size_t split_chunk; /* 0: from the copy's size and the threads */
	uint64_t share_min; /* bytes of a held batch from which workers take part (0: never) */
	bool atfork_done;
	/* bytes of split copies moved by each worker, and by PE threads (the last entry) */
	_Atomic uint64_t split_bytes[TE_MAX_WORKERS + 1];
	_Atomic uint64_t split_chunks; /* chunks of split copies run, by anyone */
	_Atomic uint64_t shared_tasks; /* tasks of held batches handed to workers */
} te = { .lock = PTHREAD_MUTEX_INITIALIZER };

static long te_futex(atomic_uint *addr, int op, unsigned int val)
{
	return syscall(SYS_futex, (unsigned int *)addr, op | FUTEX_PRIVATE_FLAG, val, NULL, NULL,
	               0);
}

/* Signed: the engine's deadlines subtract and take 0 for "not read yet". */
static int64_t te_now_ns(void)
{
	return (int64_t)odma_now_ns();
}

static inline void te_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

static void te_wake(struct te_worker *w)
{
	/* Pairs with the sleeping store + fence in te_sleep: no lost wake-up. */
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&w->sleeping, memory_order_relaxed) &&
	    atomic_exchange(&w->sleeping, 0)) {
		atomic_fetch_add(&w->wake_seq, 1);
		te_futex(&w->wake_seq, FUTEX_WAKE, 1);
	}
}

/*
 * A submission ring entry: the task pointer with flags in its low bits (tasks are at least
 * 8-byte aligned). TE_TAIL: the worker runs the tail part, the submitter ran the head.
 * TE_BIG: a big copy, whose completion is published at once.
 */
#define TE_TAIL 1u
#define TE_BIG 2u
#define TE_SPLIT 3u /* not a task: a struct te_split whose chunks the worker helps with */
#define TE_FLAGS 3u

static inline void *te_entry(struct doca_task *t, uintptr_t flags)
{
	return (void *)((uintptr_t)t | flags);
}

static inline struct doca_task *te_entry_task(void *e)
{
	return (struct doca_task *)((uintptr_t)e & ~(uintptr_t)TE_FLAGS);
}

/*
 * Claims and runs chunks of @sp until none is left; @who is the counter of the calling thread
 * (a worker's index, or TE_MAX_WORKERS for a PE thread). Returns whether this thread finished
 * the last chunk.
 */
static bool te_split_work(struct te_split *sp, uint32_t who)
{
	uint64_t moved = 0;
	bool last = false;
	unsigned int k;

	while ((k = atomic_fetch_add_explicit(&sp->next, 1, memory_order_relaxed)) < sp->nchunks) {
		uint64_t off = (uint64_t)k * sp->chunk;
		uint64_t len = sp->bytes - off < sp->chunk ? sp->bytes - off : sp->chunk;

		odma_task_run_range(sp->task, off, len);
		moved += len;
		atomic_fetch_add_explicit(&te.split_chunks, 1, memory_order_relaxed);
		/* release: the bytes and a failed status are visible to whoever sees the count */
		if (atomic_fetch_add_explicit(&sp->done, 1, memory_order_acq_rel) + 1 ==
		    sp->nchunks)
			last = true;
	}
	if (moved != 0)
		atomic_fetch_add_explicit(&te.split_bytes[who], moved, memory_order_relaxed);
	return last;
}

/* A worker's entry of a split copy: help, signal the PE if it finished, drop the entry. */
static void te_split_help(struct te_split *sp, uint32_t who)
{
	struct doca_pe *pe = sp->pe;

	if (te_split_work(sp, who))
		odma_pe_signal(pe);
	/* the last access of the slot: it may be filled again once every entry is dropped */
	atomic_fetch_sub_explicit(&sp->refs, 1, memory_order_release);
}

/* Executes up to TE_BATCH submissions of one channel; returns how many. */
static uint32_t te_drain(struct te_channel *ch, uint32_t who)
{
	uint32_t n = odma_spsc_available(&ch->sub);
	uint32_t split = 0;

	if (n == 0)
		return 0;
	n = n < TE_BATCH ? n : TE_BATCH;
	for (uint32_t i = 0; i < n; i++) {
		void *e = odma_spsc_peek(&ch->sub, i);
		struct doca_task *t = te_entry_task(e);

		if (((uintptr_t)e & TE_FLAGS) == TE_SPLIT) {
			if (odma_spsc_unpublished(&ch->done)) { /* report what is done first */
				odma_spsc_publish(&ch->done);
				odma_pe_signal(ch->pe);
			}
			te_split_help((struct te_split *)(void *)t, who);
			split++;
			continue;
		}
		odma_task_run(t, ((uintptr_t)e & TE_TAIL) ? ODMA_PART_TAIL : ODMA_PART_ALL);
		odma_spsc_stage(&ch->done, t); /* never full: see the invariant above */
		/* a big copy is reported at once rather than with the rest of the batch */
		if (((uintptr_t)e & TE_BIG) && i + 1 < n) {
			odma_spsc_publish(&ch->done);
			odma_pe_signal(ch->pe);
		}
	}
	odma_spsc_consume(&ch->sub, n);
	if (split == n)
		return n; /* nothing for the completion ring */
	odma_spsc_publish(&ch->done);
	odma_pe_signal(ch->pe);
	return n;
}

static bool te_has_work(struct te_worker *w)
{
	struct te_chanset *set = atomic_load_explicit(&w->set, memory_order_seq_cst);

	for (uint32_t i = 0; set != NULL && i < set->n; i++)
		if (odma_spsc_nonempty(&set->ch[i]->sub))
			return true;
	return false;
}

static void te_sleep(struct te_worker *w)
{
	unsigned int seq = atomic_load(&w->wake_seq);

	atomic_store(&w->sleeping, 1);
	atomic_thread_fence(memory_order_seq_cst);
	if (!te_has_work(w) && !atomic_load(&w->stop))
		te_futex(&w->wake_seq, FUTEX_WAIT, seq);
	atomic_store(&w->sleeping, 0);
}

/*
 * Whether a PE served by this set was armed within the last ODMA_ARMED_SPIN_NS: its
 * program sleeps on the notification handle and submits again when woken, so the worker
 * keeps spinning (bounded by that budget after the last arm) and the next task needs no
 * futex wake-up on top of the program's own wake-up.
 */
static bool te_armed_recently(struct te_worker *w)
{
	const struct te_chanset *set;
	int64_t now;

	if (te.armed_spin_ns == 0)
		return false;
	/* a fresh seq_cst load, as te_has_work does: the hand-off's W1' (te_set_publish) */
	set = atomic_load_explicit(&w->set, memory_order_seq_cst);
	if (set == NULL)
		return false;
	now = te_now_ns();
	for (uint32_t i = 0; i < set->n; i++)
		if (now - atomic_load_explicit(&set->ch[i]->armed_ns, memory_order_relaxed) <
		    te.armed_spin_ns)
			return true;
	return false;
}

static void *te_worker_main(void *arg)
{
	struct te_worker *w = arg;
	int64_t idle_since = 0;
	unsigned int spins = 0;
	char name[16];

	snprintf(name, sizeof(name), "odma-worker-%u", w->index);
	pthread_setname_np(pthread_self(), name);
	while (!atomic_load_explicit(&w->stop, memory_order_relaxed)) {
		/* seq_cst load and step: the hand-off's ordering (te_set_publish) */
		struct te_chanset *set = atomic_load_explicit(&w->set, memory_order_seq_cst);
		uint32_t did = 0;

		for (uint32_t i = 0; set != NULL && i < set->n; i++)
			did += te_drain(set->ch[i], w->index);
		atomic_fetch_add_explicit(&w->epoch, 1, memory_order_seq_cst);
		if (did) {
			spins = 0;
			continue;
		}
		te_cpu_relax();
		if ((++spins & 255) != 0)
			continue;
		if (idle_since == 0 || spins == 256)
			idle_since = te_now_ns();
		else if (te_now_ns() - idle_since > TE_SPIN_NS && !te_armed_recently(w)) {
			te_sleep(w);
			spins = 0;
		}
	}
	return NULL;
}

/*
 * The CPUs this process may run on: its affinity mask when odma loaded (not the calling
 * thread's, which may be pinned to one), capped by a cgroup v2 CPU quota (cpu.max "QUOTA
 * PERIOD" of the process' cgroup, rounded up); sysconf as the fallback.
 */
static long te_usable_cpus(void)
{
	long n = doca_priv_process_cpus();
	char path[600], line[512];
	FILE *f;

	if (n <= 0)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	f = fopen("/proc/self/cgroup", "r");
	if (f == NULL)
		return n;
	path[0] = '\0';
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "0::", 3) == 0) { /* the cgroup v2 entry */
			line[strcspn(line, "\n")] = '\0';
			snprintf(path, sizeof(path), "/sys/fs/cgroup%s/cpu.max", line + 3);
		}
	fclose(f);
	/* the quota of the process' own cgroup, else of the root of its namespace */
	if (path[0] == '\0' || (f = fopen(path, "r")) == NULL)
		f = fopen("/sys/fs/cgroup/cpu.max", "r");
	if (f != NULL) {
		long long quota, period;

		if (fscanf(f, "%lld %lld", &quota, &period) == 2 && quota > 0 && period > 0 &&
		    (quota + period - 1) / period < n)
			n = (long)((quota + period - 1) / period);
		fclose(f); /* "max PERIOD": no quota, fscanf stops at "max" */
	}
	return n > 0 ? n : 1;
}

static uint32_t te_default_workers(void)
{
	long ncpu = te_usable_cpus();

	/* Leave one CPU to the submitting thread; see docs/performance.md. */
	if (ncpu <= 2)
		return 1;
	return ncpu - 1 < 4 ? (uint32_t)(ncpu - 1) : 4;
}

static void te_atfork_child(void)
{
	/*
	 * The workers did not survive fork(): a child starts a fresh pool. PEs inherited
	 * from the parent belong to the old generation: they copy on the calling thread
	 * and are only freed on destroy (their channels had no worker here).
	 */
	te.generation++;
	te.workers = NULL;
	te.nworkers = 0;
	te.npe = 0;
	pthread_mutex_init(&te.lock, NULL);
}

/* Reads the pool's knobs (docs/user-guide.md); INVALID_VALUE names a bad variable. */
static doca_error_t te_read_config(uint32_t *workers)
{
	uint64_t n, inline_max, split_min, backlog, arm_spin, armed_spin, chunk, share_min;

	if (odma_config_size("ODMA_WORKERS", te_default_workers(), &n) ||
	    odma_config_size("ODMA_INLINE_MAX", TE_DEFAULT_INLINE_MAX, &inline_max) ||
	    odma_config_size("ODMA_SPLIT_MIN", TE_DEFAULT_SPLIT_MIN, &split_min) ||
	    odma_config_size("ODMA_HELP_BACKLOG", TE_DEFAULT_HELP_BACKLOG, &backlog) ||
	    odma_config_size("ODMA_ARM_SPIN_NS", TE_DEFAULT_ARM_SPIN_NS, &arm_spin) ||
	    odma_config_size("ODMA_ARMED_SPIN_NS", TE_DEFAULT_ARMED_SPIN_NS, &armed_spin) ||
	    odma_config_size("ODMA_SPLIT_CHUNK", 0, &chunk) ||
	    odma_config_size("ODMA_SHARE_MIN", TE_DEFAULT_SHARE_MIN, &share_min))
		return DOCA_ERROR_INVALID_VALUE;
	te.share_min = share_min;
	te.split_chunk = (size_t)chunk;
	te.arm_spin_ns = arm_spin;
	te.armed_spin_ns = (int64_t)armed_spin;
	*workers = (uint32_t)n;
	te.inline_max = (size_t)inline_max;
	te.split_min = split_min != 0 ? (size_t)split_min : SIZE_MAX; /* 0: never split */
	te.help_backlog = (uint32_t)backlog;
	return DOCA_SUCCESS;
}

static void te_pool_stop(void);

/* Starts the shared workers (pool lock held). */
static doca_error_t te_pool_start(void)
{
	uint32_t n;

	if (te_read_config(&n) != DOCA_SUCCESS)
		return DOCA_ERROR_INVALID_VALUE;
	if (!te.atfork_done) {
		pthread_atfork(NULL, NULL, te_atfork_child);
		te.atfork_done = true;
	}
	te.workers = calloc(n, sizeof(*te.workers));
	if (te.workers == NULL)
		return DOCA_ERROR_NO_MEMORY;
	for (uint32_t i = 0; i < n; i++) {
		struct te_worker *w = &te.workers[i];

		w->index = i;
		if (doca_priv_thread_start(&w->thread, NULL, te_worker_main, w) != 0) {
			ODMA_ERR("thread engine: cannot start worker %u of %u", i, n);
			te.nworkers = i;
			te_pool_stop(); /* joins those started, frees the array */
			return DOCA_ERROR_INITIALIZATION;
		}
		te.nworkers = i + 1;
	}
	for (uint32_t i = 0; i <= TE_MAX_WORKERS; i++)
		atomic_store_explicit(&te.split_bytes[i], 0, memory_order_relaxed);
	atomic_store_explicit(&te.shared_tasks, 0, memory_order_relaxed);
	atomic_store_explicit(&te.split_chunks, 0, memory_order_relaxed);
	ODMA_DBG("thread engine: %u workers (of %ld usable CPUs), inline copies up to %zu bytes, "
	         "split above %zu, held batches shared from %llu bytes",
	         n, te_usable_cpus(), te.inline_max, te.split_min,
	         (unsigned long long)te.share_min);
	return DOCA_SUCCESS;
}

static void te_pool_stop(void)
{
	uint64_t pe_bytes = atomic_load(&te.split_bytes[TE_MAX_WORKERS]);

	ODMA_DBG("thread engine: PE threads handed %llu tasks of held batches to workers",
	         (unsigned long long)atomic_load(&te.shared_tasks));
	ODMA_DBG("thread engine: split copies ran in %llu chunks",
	         (unsigned long long)atomic_load(&te.split_chunks));

	for (uint32_t i = 0; i < te.nworkers; i++)
		ODMA_DBG("thread engine: worker %u moved %llu bytes of split copies "
		         "(PE threads: %llu)",
		         i, (unsigned long long)atomic_load(&te.split_bytes[i]),
		         (unsigned long long)pe_bytes);
	for (uint32_t i = 0; i < te.nworkers; i++) {
		atomic_store(&te.workers[i].stop, true);
		atomic_store(&te.workers[i].sleeping, 1);
		te_wake(&te.workers[i]);
		pthread_join(te.workers[i].thread, NULL);
		free(atomic_load(&te.workers[i].set));
		free(te.workers[i].spare);
	}
	free(te.workers);
	te.workers = NULL;
	te.nworkers = 0;
}

/*
 * Publishes @next as @w's channel set and returns once the worker no longer reads the set
 * it replaced (pool lock held). The store of the set and the load of the epoch are seq_cst,
 * as are the worker's load of the set and its epoch step: in their single total order the
 * store comes before the load that reads e0, which comes before the step to e0 + 1, which
 * comes before every later load of the set by the worker. So every pass that ends after
 * that step sees @next, and the pass that ends with it (the only one that may hold the old
 * set) is over once the epoch is seen above e0. Without the store->load ordering the load
 * of the epoch could be served before the store reached the worker (x86 store buffer), and
 * the wait could end while the worker still walks the old set.
 */
static void te_set_publish(struct te_worker *w, struct te_chanset *next)
{
	uint_fast64_t e0;
	bool had_set = atomic_load_explicit(&w->set, memory_order_relaxed) != NULL;

	atomic_store_explicit(&w->set, next, memory_order_seq_cst);
	if (!had_set)
		return; /* nothing to retire */
	e0 = atomic_load_explicit(&w->epoch, memory_order_seq_cst);
	while (atomic_load_explicit(&w->epoch, memory_order_seq_cst) == e0) {
		atomic_store(&w->sleeping, 1); /* wake it even if it is about to sleep */
		te_wake(w);
		sched_yield();
	}
}

/* A set of @cap slots holding @cur's channels except @del, then @add. */
static void te_set_fill(struct te_chanset *set, const struct te_chanset *cur,
                        struct te_channel *add, struct te_channel *del)
{
	uint32_t k = 0;

	for (uint32_t i = 0; cur != NULL && i < cur->n; i++)
		if (cur->ch[i] != del)
			set->ch[k++] = cur->ch[i];
	if (add != NULL)
		set->ch[k++] = add;
	set->n = k;
}

static struct te_chanset *te_set_alloc(uint32_t cap)
{
	struct te_chanset *set = malloc(sizeof(*set) + cap * sizeof(set->ch[0]));

	if (set != NULL) {
		set->n = 0;
		set->cap = cap;
	}
	return set;
}

/* Adds @ch to @w's set (pool lock held); NO_MEMORY leaves the set as it was. */
static doca_error_t te_set_add(struct te_worker *w, struct te_channel *ch)
{
	struct te_chanset *cur = atomic_load_explicit(&w->set, memory_order_relaxed);
	struct te_chanset *next, *spare;
	uint32_t cap;

	if (cur != NULL && cur->n < cur->cap) {
		next = w->spare;
		te_set_fill(next, cur, ch, NULL);
		te_set_publish(w, next);
		w->spare = cur;
		return DOCA_SUCCESS;
	}
	/* grow: both sets at the new capacity, allocated before anything changes */
	cap = cur != NULL ? cur->cap * 2 : 4;
	next = te_set_alloc(cap);
	spare = te_set_alloc(cap);
	if (next == NULL || spare == NULL) {
		free(next);
		free(spare);
		return DOCA_ERROR_NO_MEMORY;
	}
	te_set_fill(next, cur, ch, NULL);
	te_set_publish(w, next);
	free(cur);
	free(w->spare);
	w->spare = spare;
	return DOCA_SUCCESS;
}

/* Removes @ch from @w's set (pool lock held). Never allocates, never fails. */
static void te_set_remove(struct te_worker *w, struct te_channel *ch)
{
	struct te_chanset *cur = atomic_load_explicit(&w->set, memory_order_relaxed);
	struct te_chanset *next = w->spare;

	te_set_fill(next, cur, NULL, ch);
	te_set_publish(w, next);
	w->spare = cur;
}

static struct te_channel *te_channel_new(struct doca_pe *pe)
{
	struct te_channel *ch = aligned_alloc(ODMA_CACHE_LINE, sizeof(*ch));

	if (ch == NULL)
		return NULL;
	memset(ch, 0, sizeof(*ch));
	odma_spsc_init(&ch->sub, ch->sub_slots, 2 * TE_RING_CAP);
	odma_spsc_init(&ch->done, ch->done_slots, TE_RING_CAP);
	ch->pe = pe;
	return ch;
}

/* Gives the PE a channel to every worker (pool lock held); on failure none is left. */
static doca_error_t te_pe_attach(struct te_pe *tp)
{
	doca_error_t r = DOCA_SUCCESS;

	for (uint32_t i = 0; i < te.nworkers && r == DOCA_SUCCESS; i++) {
		struct te_channel *ch = te_channel_new(tp->pe);

		r = ch != NULL ? te_set_add(&te.workers[i], ch) : DOCA_ERROR_NO_MEMORY;
		if (r == DOCA_SUCCESS)
			tp->ch[tp->nch++] = ch;
		else
			free(ch);
	}
	if (r != DOCA_SUCCESS) {
		for (uint32_t i = 0; i < tp->nch; i++) {
			te_set_remove(&te.workers[i], tp->ch[i]);
			free(tp->ch[i]);
		}
		tp->nch = 0;
	}
	return r;
}

static doca_error_t te_pe_init(struct doca_pe *pe, void **engine_pe)
{
	struct te_pe *tp = NULL;
	doca_error_t r = DOCA_SUCCESS;

	pthread_mutex_lock(&te.lock);
	if (te.nworkers == 0)
		r = te_pool_start();
	if (r == DOCA_SUCCESS)
		tp = calloc(1, sizeof(*tp) + te.nworkers * sizeof(tp->ch[0]));
	if (tp == NULL) {
		r = r != DOCA_SUCCESS ? r : DOCA_ERROR_NO_MEMORY;
		goto out;
	}
	tp->pe = pe;
	tp->generation = te.generation;
	tp->split = aligned_alloc(ODMA_CACHE_LINE, TE_SPLITS * sizeof(*tp->split));
	r = tp->split != NULL ? te_pe_attach(tp) : DOCA_ERROR_NO_MEMORY;
	if (r != DOCA_SUCCESS) {
		free(tp->split);
		free(tp);
		goto out;
	}
	memset(tp->split, 0, TE_SPLITS * sizeof(*tp->split));
	te.npe++;
	*engine_pe = tp;
out:
	if (te.npe == 0 && te.nworkers != 0 && r != DOCA_SUCCESS)
		te_pool_stop();
	pthread_mutex_unlock(&te.lock);
	return r;
}

static void te_pe_fini(void *engine_pe)
{
	struct te_pe *tp = engine_pe;
	bool stale;

	pthread_mutex_lock(&te.lock);
	stale = tp->generation != te.generation;
	/* workers may still hold entries of split copies that completed: let them drop them */
	for (uint32_t k = 0; !stale && k < TE_SPLITS; k++)
		while (atomic_load_explicit(&tp->split[k].refs, memory_order_acquire) != 0) {
			for (uint32_t i = 0; i < tp->nch; i++)
				te_wake(&te.workers[i]);
			sched_yield();
		}
	for (uint32_t i = 0; i < tp->nch; i++) {
		if (!stale)
			te_set_remove(&te.workers[i], tp->ch[i]);
		free(tp->ch[i]);
	}
	free(tp->split);
	free(tp);
	if (!stale && --te.npe == 0)
		te_pool_stop(); /* no PE left: the process holds no threads */
	pthread_mutex_unlock(&te.lock);
}

static void te_doorbell(void *engine_pe)
{
	struct te_pe *tp = engine_pe;

	if (!tp->staged)
		return; /* tasks copied on the submitting thread: nothing to publish */
	tp->staged = false;
	for (uint32_t i = 0; i < tp->nch; i++) {
		struct te_channel *ch = tp->ch[i];

		if (odma_spsc_unpublished(&ch->sub)) {
			odma_spsc_publish(&ch->sub);
			te_wake(&te.workers[i]);
		}
	}
}

/* Tasks with an order key stay on one channel; the others spread over the workers. */
static uint32_t te_pick(struct te_pe *tp, const struct odma_job *job)
{
	if (tp->nch == 1)
		return 0;
	if (job->order_key != 0)
		return (uint32_t)((job->order_key >> 6) % tp->nch);
	if (++tp->rr >= tp->nch)
		tp->rr = 0;
	return tp->rr;
}

/* Hands a task to channel @ch's worker. */
static void te_queue(struct te_pe *tp, struct te_channel *ch, struct doca_task *task,
                     const struct odma_job *job, uintptr_t flags)
{
	if (job->bytes >= TE_PUBLISH_EACH_BYTES)
		flags |= TE_BIG;
	odma_spsc_stage(&ch->sub, te_entry(task, flags));
	ch->outstanding++;
	tp->staged = true;
}

/* The split copies of @tp not yet handed back. */
static unsigned int te_splits_live(const struct te_pe *tp)
{
	unsigned int n = 0;

	for (uint64_t busy = tp->split_busy; busy != 0; busy &= busy - 1)
		n += !tp->split[__builtin_ctzll(busy)].returned;
	return n;
}

/*
 * The chunk size of a split copy of @job: about four chunks per thread, on pages. A copy from
 * another process' memory costs a system call per chunk, which pins the peer's pages under the
 * lock of their page table (one per 2 MiB of the peer's memory): one chunk per thread then; and
 * once the PE has two such copies in flight per worker, none at all: the copy goes whole to the
 * home thread of its destination slot (te_submit_split), so that the threads seldom pin pages
 * under one lock, each keeps its slots in its own cache, and each has its next copy queued
 * (measured in docs/performance.md, "Cross-process copies at the threads' limit").
 */
static uint64_t te_chunk(const struct te_pe *tp, const struct odma_job *job)
{
	uint64_t c = te.split_chunk;

	if (c == 0 && job->batch && te_splits_live(tp) >= 2 * tp->nch)
		return job->bytes;
	if (c == 0)
		c = job->bytes / ((job->batch ? 1 : 4) * ((uint64_t)te.nworkers + 1));
	c = (c + TE_CHUNK_ALIGN - 1) & ~(uint64_t)(TE_CHUNK_ALIGN - 1);
	return c < TE_CHUNK_MIN ? TE_CHUNK_MIN : c;
}

/*
 * A big copy is split: its chunks go to whoever is free. Every worker gets an entry for it
 * and the submitting thread claims chunks at once, so all the engine's threads pull on
 * memory together and none waits for another's fixed half; the PE thread claims what is left
 * at its next polls too. Returns false (nothing done) when all TE_SPLITS slots are busy.
 */
static bool te_submit_split(struct te_pe *tp, struct doca_task *task, const struct odma_job *job)
{
	struct te_split *sp;
	uint32_t k;

	_Static_assert(TE_SPLITS <= 64 && TE_RING_CAP + TE_SPLITS <= 2 * TE_RING_CAP,
	               "a split slot per bit of split_busy; room for the entries of every one");
	if (doca_unlikely(tp->split_busy == ~(uint64_t)0))
		return false;
	k = (uint32_t)__builtin_ctzll(~tp->split_busy);
	sp = &tp->split[k];
	sp->chunk = te_chunk(tp, job); /* before the slot counts as live */
	tp->split_busy |= (uint64_t)1 << k;
	sp->task = task;
	sp->pe = tp->pe;
	sp->bytes = job->bytes;
	sp->nchunks = (uint32_t)((job->bytes + sp->chunk - 1) / sp->chunk);
	sp->returned = false;
	atomic_store_explicit(&sp->next, 0, memory_order_relaxed);
	atomic_store_explicit(&sp->done, 0, memory_order_relaxed);
	sp->submitted = 0;
	if (sp->nchunks == 1) {
		/* a whole copy has a home thread by its slot: this one, or one worker first */
		uint32_t home = (uint32_t)(job->home % (tp->nch + 1));

		if (home == tp->nch) {
			atomic_store_explicit(&sp->refs, 0, memory_order_relaxed);
			/* run at the next poll (te_split_pending says so): wakes an armed PE */
			odma_pe_held(tp->pe);
			return true;
		}
		sp->submitted = te_now_ns();
		atomic_store_explicit(&sp->refs, 1, memory_order_relaxed);
		odma_spsc_stage(&tp->ch[home]->sub,
		                te_entry((struct doca_task *)(void *)sp, TE_SPLIT));
		tp->staged = true;
		te_doorbell(tp);
		return true;
	}
	atomic_store_explicit(&sp->refs, tp->nch, memory_order_relaxed);
	for (uint32_t i = 0; i < tp->nch; i++)
		odma_spsc_stage(&tp->ch[i]->sub,
		                te_entry((struct doca_task *)(void *)sp, TE_SPLIT));
	tp->staged = true;
	te_doorbell(tp); /* release: the slot is filled before a worker sees its entry */
	if (te_split_work(sp, TE_MAX_WORKERS))
		odma_pe_held(tp->pe); /* the submitter ran the last chunk: poll hands it back */
	return true;
}

/*
 * Hands back the PE's split copies whose last chunk finished (into @done, up to @max) and frees
 * the slots no worker still holds an entry for.
 */
static unsigned int te_split_reap(struct te_pe *tp, struct doca_task **done, unsigned int max)
{
	unsigned int n = 0;

	for (uint64_t busy = tp->split_busy; busy != 0; busy &= busy - 1) {
		uint32_t k = (uint32_t)__builtin_ctzll(busy);
		struct te_split *sp = &tp->split[k];

		if (!sp->returned) {
			if (n == max ||
			    atomic_load_explicit(&sp->done, memory_order_acquire) != sp->nchunks)
				continue;
			done[n++] = sp->task;
			sp->returned = true;
		}
		if (atomic_load_explicit(&sp->refs, memory_order_acquire) == 0)
			tp->split_busy &= ~((uint64_t)1 << k);
	}
	return n;
}

/*
 * At poll: hands back what finished, then claims the chunks still unclaimed of the PE's split
 * copies, handing back those whose last chunk this thread ran. Of the copies run whole, one
 * per poll (what a worker finishes meanwhile goes back at the next poll, not after this thread
 * has run every copy left), and a worker's only after TE_FIRST_DIBS_NS: this thread, already
 * running, would otherwise win every race with a worker that has to wake up first.
 */
static unsigned int te_split_poll(struct te_pe *tp, struct doca_task **done, unsigned int max)
{
	unsigned int n = te_split_reap(tp, done, max);
	bool whole_run = false;
	int64_t now = 0;

	for (uint64_t busy = tp->split_busy; busy != 0; busy &= busy - 1) {
		struct te_split *sp = &tp->split[__builtin_ctzll(busy)];

		if (sp->returned ||
		    atomic_load_explicit(&sp->next, memory_order_relaxed) >= sp->nchunks)
			continue;
		if (sp->nchunks == 1) {
			if (whole_run || (sp->submitted != 0 &&
			                  (now != 0 ? now : (now = te_now_ns())) - sp->submitted <
			                          TE_FIRST_DIBS_NS))
				continue;
			whole_run = true;
		}
		te_split_work(sp, TE_MAX_WORKERS);
		/* finished here, or by a worker meanwhile: back before the next copy is helped */
		if (n < max &&
		    atomic_load_explicit(&sp->done, memory_order_acquire) == sp->nchunks) {
			done[n++] = sp->task;
			sp->returned = true;
		}
	}
	return n;
}

/* Whether a split copy waits to be handed back, or for this thread to run it (its home). */
static bool te_split_pending(const struct te_pe *tp)
{
	for (uint64_t busy = tp->split_busy; busy != 0; busy &= busy - 1) {
		const struct te_split *sp = &tp->split[__builtin_ctzll(busy)];

		if (sp->returned)
			continue;
		if (atomic_load_explicit(&sp->done, memory_order_acquire) == sp->nchunks ||
		    (atomic_load_explicit(&sp->refs, memory_order_relaxed) == 0 &&
		     atomic_load_explicit(&sp->next, memory_order_relaxed) < sp->nchunks))
			return true;
	}
	return false;
}

/* Runs a task on the submitting thread; it completes through the next poll. */
static inline doca_error_t te_copy_here(struct te_pe *tp, struct doca_task *task, bool doorbell)
{
	odma_task_run(task, ODMA_PART_ALL);
	odma_pe_complete_local(tp->pe, task);
	if (doorbell)
		te_doorbell(tp);
	return DOCA_SUCCESS;
}

/* Holds a small local task for the batch of the next poll; it copies on the PE thread then. */
static inline doca_error_t te_hold_local(struct te_pe *tp, struct doca_task *task, bool doorbell)
{
	odma_task_stage_add(&tp->local, tp->pe, task);
	if (doorbell)
		te_doorbell(tp);
	return DOCA_SUCCESS;
}

/* Everything but a small unordered local task: staging, channels, helping, splitting. */
static doca_error_t __attribute__((noinline))
te_submit_other(struct te_pe *tp, struct doca_task *task, const struct odma_job *job, bool doorbell)
{
	struct te_channel *ch;
	uint32_t i;

	if (doca_unlikely(job->batch) && job->bytes <= te.inline_max && !job->in_order) {
		/* a system call per task: held until the next poll, then moved together */
		odma_task_stage_add(&tp->stage, tp->pe, task);
		/* the last of a launch of held tasks: earlier ones may wait in a channel */
		if (doorbell)
			te_doorbell(tp);
		return DOCA_SUCCESS;
	}
	if (doca_unlikely(job->in_order)) { /* it must not overtake what is held */
		odma_task_stage_run(&tp->local, tp->pe);
		odma_task_stage_run(&tp->stage, tp->pe);
	}
	/* a PE inherited across fork() has no worker here and copies everything itself */
	if ((job->bytes <= te.inline_max && !job->in_order) ||
	    doca_unlikely(tp->generation != te.generation))
		return te_copy_here(tp, task, doorbell);
	/* a local copy with split_at 0 (overlapping ranges, a list) is one memmove: not cut */
	if (!job->in_order && job->bytes > te.split_min && (job->split_at != 0 || job->batch) &&
	    te_submit_split(tp, task, job)) {
		if (doorbell)
			te_doorbell(tp);
		return DOCA_SUCCESS;
	}
	i = te_pick(tp, job);
	ch = tp->ch[i];
	/*
	 * The submitting thread helps with any task while the worker is backlogged; a task
	 * that must stay in order goes inline only when nothing is queued before it.
	 */
	if ((job->bytes <= te.inline_max || ch->outstanding >= te.help_backlog) &&
	    (!job->in_order || ch->outstanding == 0))
		return te_copy_here(tp, task, doorbell);
	if (doca_unlikely(ch->outstanding >= TE_RING_CAP))
		return DOCA_ERROR_AGAIN;
	te_queue(tp, ch, task, job, 0);
	if (doorbell)
		te_doorbell(tp);
	return DOCA_SUCCESS;
}

/*
 * The common case first, in a function small enough to need no saved registers: a small
 * local task that need not keep an order is copied on the submitting thread, exactly as
 * the inline engine does (no channel, no doorbell unless something was staged).
 */
static doca_error_t te_submit(void *engine_pe, struct doca_task *task, const struct odma_job *job,
                              bool doorbell)
{
	struct te_pe *tp = engine_pe;

	if (doca_likely(job->bytes <= te.inline_max && !job->in_order && !job->batch))
		return te_hold_local(tp, task, doorbell);
	return te_submit_other(tp, task, job, doorbell);
}

/*
 * A held batch of small copies big enough to be worth a hand-off (ODMA_SHARE_MIN bytes, e.g.
 * 128 tasks of 4 KiB): its last tasks go to the workers, which copy them while this thread
 * copies the rest, and come back through the channels (often in this very poll). Each
 * thread gets an equal part (measured, 4 KiB tasks at depth 128, one worker: a third to the
 * worker gave 1.20x the unshared rate, a half 1.47-1.51x, three fifths 1.42-1.56x). The same slots
 * tend to go to the same thread round after round (completion order is submission order here), so a
 * cache-hot working set stays hot in each thread's cache.
 */
static void __attribute__((noinline)) te_share_local(struct te_pe *tp)
{
	struct odma_task_stage *s = &tp->local;
	unsigned int n = s->n, give, i;
	uint64_t bytes = 0;

	/* one look first (tasks of one program tend to be of one size), then the real sum */
	if ((uint64_t)n * odma_task_bytes(s->task[n - 1]) < te.share_min)
		return;
	for (i = 0; i < n && bytes < te.share_min; i++)
		bytes += odma_task_bytes(s->task[i]);
	if (bytes < te.share_min)
		return;
	give = (unsigned int)((uint64_t)n * tp->nch / (tp->nch + 1)); /* an equal part each */
	for (i = n - give; i < n; i++) {
		struct te_channel *ch = tp->ch[tp->nch == 1 ? 0 : i % tp->nch];

		if (ch->outstanding >= TE_RING_CAP / 2)
			break; /* a worker with a backlog: this thread copies the rest */
		odma_spsc_stage(&ch->sub, te_entry(s->task[i], 0));
		ch->outstanding++;
		tp->staged = true;
	}
	atomic_fetch_add_explicit(&te.shared_tasks, i - (n - give), memory_order_relaxed);
	/* the tasks from n - give to i are the workers'; the ones after i stay here */
	memmove(&s->task[n - give], &s->task[i], (n - i) * sizeof(s->task[0]));
	s->n = n - give + (n - i);
	te_doorbell(tp);
}

static unsigned int te_poll(void *engine_pe, struct doca_task **done, unsigned int max)
{
	struct te_pe *tp = engine_pe;
	unsigned int total;

	if (doca_unlikely(tp->local.n >= TE_SHARE_MIN_TASKS) && te.share_min != 0 && tp->nch != 0 &&
	    tp->generation == te.generation)
		te_share_local(tp);
	/* the held small copies, one batch, handed back from here */
	total = odma_task_stage_poll(&tp->local, tp->pe, done, max);

	odma_task_stage_run(&tp->stage, tp->pe); /* hands them back through the PE's list */
	if (doca_unlikely(tp->split_busy != 0))
		total += te_split_poll(tp, done + total, max - total);
	for (uint32_t i = 0; i < tp->nch && total < max; i++) {
		struct te_channel *ch = tp->ch[i];
		uint32_t n = ch->outstanding ? odma_spsc_available(&ch->done) : 0;

		n = n < max - total ? n : max - total;
		for (uint32_t k = 0; k < n; k++)
			done[total + k] = odma_spsc_peek(&ch->done, k);
		if (n) {
			odma_spsc_consume(&ch->done, n);
			ch->outstanding -= n;
			total += n;
		}
	}
	return total;
}

static bool te_pending(void *engine_pe)
{
	struct te_pe *tp = engine_pe;

	if (tp->stage.n != 0 || tp->local.n != 0 || te_split_pending(tp))
		return true;
	for (uint32_t i = 0; i < tp->nch; i++)
		if (tp->ch[i]->outstanding && odma_spsc_nonempty(&tp->ch[i]->done))
			return true;
	return false;
}

/*
 * The program is about to sleep on the PE's notification handle, and will submit again
 * once woken. Two bounded measures keep a hand-off from costing extra wake-ups:
 *  - the PE's channels are stamped, so their workers keep spinning for ODMA_ARMED_SPIN_NS
 *    rather than sleep on their futex (te_armed_recently);
 *  - when workers hold tasks of this PE, the PE thread waits up to ODMA_ARM_SPIN_NS for
 *    them to finish (default 0: off), yielding its CPU meanwhile in case a worker waits
 *    for it; a short task then completes while the program is still awake.
 */
static void te_arm(void *engine_pe)
{
	struct te_pe *tp = engine_pe;
	bool outstanding = tp->split_busy != 0;
	int64_t now = te.armed_spin_ns != 0 || te.arm_spin_ns != 0 ? te_now_ns() : 0;

	for (uint32_t i = 0; i < tp->nch; i++) {
		outstanding |= tp->ch[i]->outstanding != 0;
		if (te.armed_spin_ns != 0)
			atomic_store_explicit(&tp->ch[i]->armed_ns, now, memory_order_relaxed);
	}
	if (!outstanding || te.arm_spin_ns == 0)
		return;
	for (int64_t end = now + (int64_t)te.arm_spin_ns; !te_pending(tp); sched_yield())
		if (te_now_ns() >= end)
			return;
}

/* The core appends small unordered local tasks to the local stage itself (engine.h, hold). */
static struct odma_task_stage *te_hold(void *engine_pe, uint64_t *max_bytes)
{
	struct te_pe *tp = engine_pe;

	*max_bytes = te.inline_max;
	return &tp->local;
}

const struct odma_engine_ops odma_engine_thread = {
	.name = "thread",
	.pe_init = te_pe_init,
	.pe_fini = te_pe_fini,
	.submit = te_submit,
	.doorbell = te_doorbell,
	.poll = te_poll,
	.pending = te_pending,
	.arm = te_arm,
	.hold = te_hold,
};

int odma_te_test_channels(uint32_t i)
{
	struct te_chanset *set;
	int n = -1;

	pthread_mutex_lock(&te.lock);
	if (i < te.nworkers) {
		set = atomic_load(&te.workers[i].set);
		n = set != NULL ? (int)set->n : 0;
	}
	pthread_mutex_unlock(&te.lock);
	return n;
}

int odma_te_test_sleeping(uint32_t i)
{
	int r = -1;

	pthread_mutex_lock(&te.lock);
	if (i < te.nworkers)
		r = (int)atomic_load(&te.workers[i].sleeping);
	pthread_mutex_unlock(&te.lock);
	return r;
}
