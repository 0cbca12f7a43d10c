/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * A singly linked queue kept as two pointers, its head and its tail, linked through a member
 * of its elements (pushed at the tail, popped at the head); and the unlinking of an element from a
 * doubly linked list kept the same way. (glibc's <sys/queue.h> STAILQ and TAILQ want a head
 * structure and a link structure of their own in every element; the lists here are plain pointers.)
 */
#ifndef ODMA_UTIL_QUEUE_H_
#define ODMA_UTIL_QUEUE_H_

#include <stddef.h>

/* Appends element @e to the queue whose ends are the lvalues @head and @tail (via @e->@link). */
#define ODMA_QUEUE_PUSH(head, tail, e, link)                                                       \
	do {                                                                                       \
		(e)->link = NULL;                                                                  \
		if ((tail) != NULL)                                                                \
			(tail)->link = (e);                                                        \
		else                                                                               \
			(head) = (e);                                                              \
		(tail) = (e);                                                                      \
	} while (0)

/* Takes the head of the queue @head/@tail, which is not empty, into the lvalue @e. */
#define ODMA_QUEUE_POP(head, tail, e, link)                                                        \
	do {                                                                                       \
		(e) = (head);                                                                      \
		(head) = (e)->link;                                                                \
		if ((head) == NULL)                                                                \
			(tail) = NULL;                                                             \
	} while (0)

/*
 * Unlinks element @e from the doubly linked list that starts at the lvalue @head, linked
 * through @e->@prev and @e->@next (which keep their values).
 */
#define ODMA_LIST_UNLINK(head, e, prev, next)                                                      \
	do {                                                                                       \
		if ((e)->prev != NULL)                                                             \
			(e)->prev->next = (e)->next;                                               \
		else                                                                               \
			(head) = (e)->next;                                                        \
		if ((e)->next != NULL)                                                             \
			(e)->next->prev = (e)->prev;                                               \
	} while (0)

/* The same, for a list that also keeps its last element in the lvalue @tail. */
#define ODMA_LIST_UNLINK_TAIL(head, tail, e, prev, next)                                           \
	do {                                                                                       \
		ODMA_LIST_UNLINK(head, e, prev, next);                                             \
		if ((e)->next == NULL)                                                             \
			(tail) = (e)->prev;                                                        \
	} while (0)

#endif /* ODMA_UTIL_QUEUE_H_ */
