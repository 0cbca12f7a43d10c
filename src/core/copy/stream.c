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
 * addresses of recent big runs' sources and destinations (256 sets of 4, the oldest
 * replaced), each with the count of bytes big runs had brought through the cache when it was
 * last used. A run streams unless its destination was used recently enough for everything
 * touched since, and its own bytes, to fit in the last-level cache (ODMA_STREAM_CACHE). The
 * runs of copies under ODMA_STREAM_MIN bytes, and runs under 4 KiB, never stream and never
 * touch the table; the submit path pays nothing.
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

#define STREAM_DEFAULT_MIN (64u << 10) /* measured: docs/performance.md */
#define STREAM_FALLBACK_CACHE (8u << 20) /* when the system does not say */
#define STREAM_RUN_MIN 4096u             /* a shorter run (a list's piece) is a memmove */
#define STREAM_SETS 256u                 /* the table: sets (a power of two) ... */
#define STREAM_WAYS 4u                   /* ... of this many entries, the oldest replaced */

/* No streaming until odma_copy_init has read the settings. */
uint64_t odma_copy_stream_min = UINT64_MAX;
_Atomic uint64_t odma_copy_streamed;

static uint64_t stream_cache;
static pthread_once_t stream_once = PTHREAD_ONCE_INIT;
static doca_error_t stream_status;

struct stream_seen {
	uintptr_t addr; /* a copy's source or destination start */
	uint64_t at;    /* stream_clock just after that copy */
};

/* One table for the process: a buffer one thread filled may be the next copy's source on
 * another. Only copies of ODMA_STREAM_MIN or more take the lock (tens of microseconds each). */
static pthread_mutex_t stream_lock = PTHREAD_MUTEX_INITIALIZER;
static struct stream_seen stream_table[STREAM_SETS][STREAM_WAYS];
static uint64_t stream_clock; /* bytes big copies brought through the cache (source + dest) */

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
 * MiB on the EPYC guest of docs/performance.md, whose vCPUs each see 32 MiB; the measured
 * crossover there is between 32 and 64 MiB in flight).
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
	stream_status =
	        odma_config_size("ODMA_STREAM_MIN", STREAM_DEFAULT_MIN, 0, UINT64_MAX, &min);
	if (stream_status == DOCA_SUCCESS)
		stream_status = odma_config_size("ODMA_STREAM_CACHE", llc, 0, UINT64_MAX, &cache);
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

/* The entry of @addr, or the oldest of its set (which the caller then takes over). */
static struct stream_seen *stream_find(uintptr_t addr)
{
	struct stream_seen *set = stream_table[((addr >> 6) * 0x9E3779B97F4A7C15ull) >> (64 - 8)];
	struct stream_seen *old = &set[0];

	_Static_assert(STREAM_SETS == 1u << 8, "stream_find's shift");
	for (unsigned int w = 0; w < STREAM_WAYS; w++) {
		if (set[w].addr == addr)
			return &set[w];
		if (set[w].at < old->at)
			old = &set[w];
	}
	return old;
}

bool odma_copy_stream_decide(const void *src, const void *dst, uint64_t len)
{
	uintptr_t s = (uintptr_t)src, d = (uintptr_t)dst;
	struct stream_seen *e;
	uint64_t now;
	bool hot;

	if (s < d + len && d < s + len)
		return false; /* overlapping: one memmove */
	pthread_mutex_lock(&stream_lock);
	e = stream_find(d);
	/* since the destination was last used, what moved through the cache, and this copy */
	hot = e->addr == d && stream_clock - e->at + 2 * len <= stream_cache;
	now = stream_clock += 2 * len;
	e->addr = d;
	e->at = now;
	e = stream_find(s);
	e->addr = s;
	e->at = now;
	pthread_mutex_unlock(&stream_lock);
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
