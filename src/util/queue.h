/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * A singly linked queue kept as two pointers, its head and its tail, linked through a member
 * of its elements. (glibc's <sys/queue.h> STAILQ wants a head structure and a link structure
 * of its own in every element; the queues here are plain pointer pairs.)
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

#endif /* ODMA_UTIL_QUEUE_H_ */
