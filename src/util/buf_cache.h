/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Buffers of one size kept for reuse, up to a bound, as UCX keeps its send buffers. A buffer
 * malloc'd for each message and freed once sent costs a page fault per 4 KiB whenever a queue
 * had grown and shrunk again, because glibc gives the top of its heap back to the kernel
 * (M_TRIM_THRESHOLD) and the next buffers fault it in again. Not thread-safe: one owner, or
 * its lock, serializes every call.
 */
#ifndef ODMA_UTIL_BUF_CACHE_H_
#define ODMA_UTIL_BUF_CACHE_H_

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct odma_buf_cache {
	void *head;       /* the first kept buffer; each holds the next's address first */
	unsigned int n;   /* buffers kept */
	unsigned int max; /* kept at most; past it, put frees */
	size_t size;      /* bytes per buffer (at least a pointer's) */
};

#define ODMA_BUF_CACHE_INIT(sz, mx)                                                                \
	{                                                                                          \
		.head = NULL, .n = 0, .max = (mx), .size = (sz)                                    \
	}

/* A buffer of c->size bytes: a kept one, else a new one; NULL when out of memory. */
static inline void *odma_buf_cache_get(struct odma_buf_cache *c)
{
	void *b = c->head;

	if (b == NULL)
		return malloc(c->size);
	memcpy(&c->head, b, sizeof(void *));
	c->n--;
	return b;
}

/* Gives back @b, a buffer of odma_buf_cache_get(@c) (NULL: nothing): kept, or freed. */
static inline void odma_buf_cache_put(struct odma_buf_cache *c, void *b)
{
	if (b == NULL)
		return;
	if (c->n >= c->max) {
		free(b);
		return;
	}
	memcpy(b, &c->head, sizeof(void *));
	c->head = b;
	c->n++;
}

/*
 * A buffer of @len bytes: a kept one when @len is above @small (what glibc's own caches serve
 * without faults) and fits c->size, else malloc'd; *@kept says which, for odma_buf_cache_free.
 * NULL when out of memory.
 */
static inline void *odma_buf_cache_alloc(struct odma_buf_cache *c, size_t len, size_t small,
                                         bool *kept)
{
	*kept = len > small && len <= c->size;
	return *kept ? odma_buf_cache_get(c) : malloc(len);
}

/* Gives back @b, a buffer of odma_buf_cache_alloc(@c) that said @kept. */
static inline void odma_buf_cache_free(struct odma_buf_cache *c, void *b, bool kept)
{
	if (kept)
		odma_buf_cache_put(c, b);
	else
		free(b);
}

/* Frees every kept buffer. */
static inline void odma_buf_cache_drain(struct odma_buf_cache *c)
{
	while (c->head != NULL) {
		void *b = c->head;

		memcpy(&c->head, b, sizeof(void *));
		free(b);
	}
	c->n = 0;
}

#endif /* ODMA_UTIL_BUF_CACHE_H_ */
