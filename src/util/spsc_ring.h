/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * A bounded single-producer / single-consumer ring of pointers. The producer may
 * stage several entries and publish them with one release store (a batched
 * doorbell); each side caches the other's index so the common case touches only
 * its own cache line.
 */
#ifndef ODMA_UTIL_SPSC_RING_H_
#define ODMA_UTIL_SPSC_RING_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define ODMA_CACHE_LINE 64

struct odma_spsc_ring {
	/* producer side */
	_Alignas(ODMA_CACHE_LINE) atomic_uint_fast32_t tail; /* published entries */
	uint32_t staged;                                     /* written, not yet published */
	uint32_t head_cache;                                 /* last head seen by the producer */
	/* consumer side */
	_Alignas(ODMA_CACHE_LINE) atomic_uint_fast32_t head;
	uint32_t tail_cache; /* last tail seen by the consumer */
	/* shared, read-only after init */
	_Alignas(ODMA_CACHE_LINE) uint32_t mask;
	void **slots;
};

static inline void odma_spsc_init(struct odma_spsc_ring *r, void **slots, uint32_t capacity_pow2)
{
	atomic_init(&r->tail, 0);
	atomic_init(&r->head, 0);
	r->staged = r->head_cache = r->tail_cache = 0;
	r->mask = capacity_pow2 - 1;
	r->slots = slots;
}

/* Producer: stages one entry; false when full. Publish with odma_spsc_publish. */
static inline bool odma_spsc_stage(struct odma_spsc_ring *r, void *p)
{
	if (r->staged - r->head_cache > r->mask) {
		r->head_cache = (uint32_t)atomic_load_explicit(&r->head, memory_order_acquire);
		if (r->staged - r->head_cache > r->mask)
			return false;
	}
	r->slots[r->staged & r->mask] = p;
	r->staged++;
	return true;
}

/* Producer: makes every staged entry visible to the consumer. */
static inline void odma_spsc_publish(struct odma_spsc_ring *r)
{
	atomic_store_explicit(&r->tail, r->staged, memory_order_release);
}

/* Producer: whether staged entries wait for publish. */
static inline bool odma_spsc_unpublished(const struct odma_spsc_ring *r)
{
	return r->staged != (uint32_t)atomic_load_explicit(&r->tail, memory_order_relaxed);
}

/* Consumer: number of published entries available. */
static inline uint32_t odma_spsc_available(struct odma_spsc_ring *r)
{
	uint32_t head = (uint32_t)atomic_load_explicit(&r->head, memory_order_relaxed);

	if (r->tail_cache == head)
		r->tail_cache = (uint32_t)atomic_load_explicit(&r->tail, memory_order_acquire);
	return r->tail_cache - head;
}

/* Consumer: the entry @i positions after the head (i < available). */
static inline void *odma_spsc_peek(const struct odma_spsc_ring *r, uint32_t i)
{
	uint32_t head = (uint32_t)atomic_load_explicit(&r->head, memory_order_relaxed);

	return r->slots[(head + i) & r->mask];
}

/* Consumer: releases @n entries back to the producer. */
static inline void odma_spsc_consume(struct odma_spsc_ring *r, uint32_t n)
{
	uint32_t head = (uint32_t)atomic_load_explicit(&r->head, memory_order_relaxed);

	atomic_store_explicit(&r->head, head + n, memory_order_release);
}

/* Any thread: whether published entries wait (approximate, for wake-up decisions). */
static inline bool odma_spsc_nonempty(struct odma_spsc_ring *r)
{
	return atomic_load_explicit(&r->tail, memory_order_acquire) !=
	       atomic_load_explicit(&r->head, memory_order_acquire);
}

#endif
