/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Streaming copies: a big local copy whose destination is not in the cache is written with
 * non-temporal stores, as a DMA engine writes memory, instead of through the cache. A
 * cached store to a line that is not in the cache first reads the line (the read for
 * ownership) and later writes it back, so a cold memcpy costs three memory transfers per
 * byte; a streaming store costs two. On the 2-vCPU guest of docs/performance.md that moves
 * about 1.7 times the bytes of memcpy on one thread and, on two threads, about 1.4 times
 * what two threads of memcpy move.
 *
 * A copy whose destination is in the cache loses by it (the stores go to memory, and what
 * was cached is dropped), so the choice is made where the bytes move, per run (a whole copy,
 * a chunk of a split copy, a piece of a list), from its reuse distance: a table of the start
 * addresses of recent big runs' sources and destinations (1024 sets of 4, the oldest
 * replaced), each with a clock, the bytes of new data big runs had brought into the cache,
 * when it was last used. A run streams unless its destination was used recently enough for
 * the new data since, and its own bytes, to fit in ODMA_STREAM_CACHE (default 1.5 x the
 * last-level cache one CPU sees: the measured crossover). The runs of copies under
 * ODMA_STREAM_MIN bytes, and runs under 4 KiB, never stream and never touch the table; the
 * submit path pays nothing.
 *
 * x86-64 only (util/stream_copy.h); elsewhere nothing streams.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/config/config.h"
#include "core/copy/mover.h"
#include "core/log/log.h"
#include "util/stream_copy.h"

ODMA_LOG_REGISTER(ODMA_STREAM)

#define STREAM_DEFAULT_MIN (64u << 10)   /* measured: docs/performance.md */
#define STREAM_FALLBACK_CACHE (8u << 20) /* when the system does not say */
#define STREAM_RUN_MIN 4096u             /* a shorter run (a list's piece) is a memmove */
#define STREAM_SETS 1024u                /* the table: sets (a power of two) ... */
#define STREAM_WAYS 4u                   /* ... of this many entries, the oldest replaced */

/* No streaming until odma_copy_init has read the settings. */
uint64_t odma_copy_stream_min = UINT64_MAX;
_Atomic uint64_t odma_copy_streamed;

static uint64_t stream_cache;
static pthread_once_t stream_once = PTHREAD_ONCE_INIT;
static doca_error_t stream_status;

struct stream_seen {
	_Atomic uintptr_t addr; /* a run's source or destination start */
	_Atomic uint64_t at;    /* stream_clock just after that run */
};

/*
 * One table for the process: a buffer one thread filled may be the next copy's source on
 * another, and the chunks of one split copy run on any thread. No lock: every field is a
 * relaxed atomic, and a race between two runs (an entry taken over, an older clock) only
 * misjudges one run's cache state, never its bytes.
 */
static struct stream_seen stream_table[STREAM_SETS][STREAM_WAYS];
static _Atomic uint64_t stream_clock; /* bytes of new data big runs brought in (source + dest) */

/* A cache size from sysfs ("32768K"), 0 when the file is not there. */
static uint64_t stream_sysfs_kib(const char *path)
{
	unsigned long long kib = 0;
	FILE *f = fopen(path, "r");

	if (f != NULL) {
		if (fscanf(f, "%lluK", &kib) != 1)
			kib = 0;
		fclose(f);
	}
	return (uint64_t)kib << 10;
}

/*
 * The last-level cache one CPU sees, in bytes; 0 when the system does not say. sysfs first:
 * it gives one instance's size, where glibc's sysconf may give the sum over the package (256
 * MiB on the EPYC guest of docs/performance.md, whose vCPUs each see 32 MiB).
 */
static uint64_t stream_llc_bytes(void)
{
	uint64_t b = stream_sysfs_kib("/sys/devices/system/cpu/cpu0/cache/index3/size");
	long v = -1;

	if (b != 0)
		return b;
#ifdef _SC_LEVEL3_CACHE_SIZE
	v = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
	if (v > 0)
		return (uint64_t)v;
	return stream_sysfs_kib("/sys/devices/system/cpu/cpu0/cache/index2/size");
}

static void stream_setup(void)
{
	uint64_t min, llc = stream_llc_bytes(), cache;

	if (llc == 0)
		llc = STREAM_FALLBACK_CACHE;
	/* the default: 1.5 x the cache, the crossover measured on the reference guest (2 MiB
	 * tasks: cached stores win at 32 MiB in flight, tie at 48, lose at 64) */
	stream_status = odma_config_size("ODMA_STREAM_MIN", STREAM_DEFAULT_MIN, &min);
	if (stream_status == DOCA_SUCCESS)
		stream_status = odma_config_size("ODMA_STREAM_CACHE", llc + llc / 2, &cache);
	if (stream_status != DOCA_SUCCESS)
		return;
	stream_cache = cache;
#if defined(__x86_64__)
	odma_copy_stream_min = min == 0 ? UINT64_MAX : min; /* 0: never stream */
#else
	(void)min;
#endif
	ODMA_DBG("streaming copies from %llu bytes whose destination is out of a %llu-byte cache",
	         (unsigned long long)odma_copy_stream_min, (unsigned long long)stream_cache);
}

doca_error_t odma_copy_stream_init(void)
{
	pthread_once(&stream_once, stream_setup);
	return stream_status;
}

#define RELAXED memory_order_relaxed

/* The entry of @addr, or the oldest of its set (which the caller then takes over). */
static struct stream_seen *stream_find(uintptr_t addr)
{
	struct stream_seen *set = stream_table[((addr >> 6) * 0x9E3779B97F4A7C15ull) >> (64 - 10)];
	struct stream_seen *old = &set[0];
	uint64_t old_at = UINT64_MAX;

	_Static_assert(STREAM_SETS == 1u << 10, "stream_find's shift");
	for (unsigned int w = 0; w < STREAM_WAYS; w++) {
		uint64_t at = atomic_load_explicit(&set[w].at, RELAXED);

		if (atomic_load_explicit(&set[w].addr, RELAXED) == addr)
			return &set[w];
		if (at < old_at) {
			old = &set[w];
			old_at = at;
		}
	}
	return old;
}

/* Stamps @e; stores nothing that is already there, so that a hot set's entries stay shared
 * between the threads instead of moving between their caches at every run. */
static void stream_mark(struct stream_seen *e, uintptr_t addr, uint64_t now)
{
	if (atomic_load_explicit(&e->addr, RELAXED) != addr)
		atomic_store_explicit(&e->addr, addr, RELAXED);
	if (atomic_load_explicit(&e->at, RELAXED) != now)
		atomic_store_explicit(&e->at, now, RELAXED);
}

bool odma_copy_stream_decide(const void *src, const void *dst, uint64_t len)
{
	uintptr_t s = (uintptr_t)src, d = (uintptr_t)dst;
	uint64_t now = atomic_load_explicit(&stream_clock, RELAXED), at;
	struct stream_seen *e;
	bool hot;

	if (s < d + len && d < s + len)
		return false; /* overlapping: one memmove */
	e = stream_find(d);
	at = atomic_load_explicit(&e->at, RELAXED);
	/*
	 * What came into the cache since the destination was last used, and this copy. The clock
	 * counts only runs that bring new data in (not found, or found too far back): a run that
	 * finds its destination cached re-touches lines already counted. So the distance is one
	 * of distinct bytes, as a cache's replacement sees it, and a hot set whose copies complete
	 * in another order each round (a thread engine, callbacks resubmitting) stays hot. (An
	 * entry stamped by another thread after this one read the clock counts as just used.)
	 */
	hot = atomic_load_explicit(&e->addr, RELAXED) == d &&
	      (at < now ? now - at : 0) + 2 * len <= stream_cache;
	if (!hot)
		now = atomic_fetch_add_explicit(&stream_clock, 2 * len, RELAXED) + 2 * len;
	stream_mark(e, d, now);
	stream_mark(stream_find(s), s, now);
	return !hot;
}

void odma_copy_big(void *dst, const void *src, size_t n)
{
	if (n >= STREAM_RUN_MIN && odma_copy_stream_decide(src, dst, n)) {
		odma_stream_copy_bytes(dst, src, n);
		atomic_fetch_add_explicit(&odma_copy_streamed, n, memory_order_relaxed);
	} else {
		memmove(dst, src, n);
	}
}
