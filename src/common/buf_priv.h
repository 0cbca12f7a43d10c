/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Buffers and inventories. A doca_buf is a window (head, len) into an mmap with a
 * data segment (data, data_len) inside it. Bufs chain into lists; only the list
 * head carries a meaningful refcount. Inventories hold a fixed array of bufs.
 */
#ifndef ODMA_BUF_PRIV_H_
#define ODMA_BUF_PRIV_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>

struct doca_buf {
	uint8_t *head;   /* start of the window (for a from-export mmap: remote address) */
	size_t len;      /* window length */
	uint8_t *data;   /* start of valid data */
	size_t data_len; /* bytes of valid data */
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	struct doca_buf *next;      /* next element in the list, NULL at the end */
	struct doca_buf *list_head; /* head of the list this buf is in (itself when head) */
	struct doca_buf *last;      /* head only: last element (NULL on other elements) */
	uint32_t list_len;          /* head only: number of elements (0 on other elements) */
	uint16_t refcount;          /* head only; 1 for non-head elements */
	bool in_use;                /* handed out by the inventory */
	struct doca_buf *free_next; /* inventory free list */
};

/* Bufs added by doca_buf_inventory_expand: one allocation per call, freed with the inventory. */
struct odma_buf_chunk {
	struct odma_buf_chunk *next;
	uint32_t num;
	struct doca_buf bufs[];
};

struct doca_buf_inventory {
	struct doca_buf *bufs; /* array of num_elements */
	uint32_t num_elements;
	uint32_t num_free;
	struct doca_buf *free_list;
	bool started;
	union doca_data user_data;
	struct odma_buf_chunk *chunks; /* extra arrays added by doca_buf_inventory_expand */
};

/* Whether @buf is the head of its list (a lone buf is). */
static inline bool odma_buf_is_head(const struct doca_buf *buf)
{
	return buf->list_head == buf;
}

/* Bytes free after the data segment of @b, up to the end of its window. */
static inline size_t odma_buf_room(const struct doca_buf *b)
{
	return (size_t)(b->head + b->len - (b->data + b->data_len));
}

/*
 * One step of a copy that walks a source list (data segments) and a destination list (free
 * tails) side by side: advances both cursors by @n bytes and moves a cursor onto the next
 * element once it reaches the end of its segment.
 */
static inline void odma_buf_walk(const struct doca_buf **s, size_t *s_off, struct doca_buf **d,
				 size_t *d_off, size_t n)
{
	*s_off += n;
	*d_off += n;
	if (*s_off == (*s)->data_len) {
		*s = (*s)->next;
		*s_off = 0;
	}
	if (*d_off == odma_buf_room(*d)) {
		*d = (*d)->next;
		*d_off = 0;
	}
}

/*
 * Returns one element (not its list) to its inventory and drops its mmap count.
 * Used by doca_buf_dec_refcount when a list's count reaches 0.
 */
void odma_buf_inventory_put(struct doca_buf *buf);

#endif /* ODMA_BUF_PRIV_H_ */
