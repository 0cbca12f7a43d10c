/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * One side of a transport endpoint in the endpoint tests (test_transport_ep.c,
 * test_tp_fault_ep.c): its callbacks count what arrives (the immediates in order, the last
 * message's text) and each close, under the side's lock; the test reads them with
 * side_count and waits with side_wait.
 */
#ifndef ODMA_TESTS_EP_SIDE_H_
#define ODMA_TESTS_EP_SIDE_H_

#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "core/transport/transport.h"

#define SIDE_IMMS 128

struct side {
	pthread_mutex_t lock;
	struct odma_tp_ep *ep;
	unsigned int msgs, closes;
	uint32_t imm;             /* the last message's immediate */
	uint32_t imms[SIDE_IMMS]; /* the first SIDE_IMMS immediates, in arrival order */
	char text[64];            /* the last message's bytes (a string) */
	doca_error_t why;         /* the close's */
};

static inline bool side_on_recv(struct odma_tp_ep *ep, const void *bytes, size_t len, uint32_t imm,
                                void *arg)
{
	struct side *s = arg;

	(void)ep;
	pthread_mutex_lock(&s->lock);
	if (s->msgs < SIDE_IMMS)
		s->imms[s->msgs] = imm;
	s->msgs++;
	s->imm = imm;
	memset(s->text, 0, sizeof(s->text));
	memcpy(s->text, bytes, len < sizeof(s->text) ? len : sizeof(s->text) - 1);
	pthread_mutex_unlock(&s->lock);
	return false;
}

static inline void side_on_close(struct odma_tp_ep *ep, doca_error_t why, void *arg);

/* The callbacks of side @s (a struct side): it counts what arrives and each close. */
#define SIDE_CBS(s)                                                                                \
	{                                                                                          \
		.on_recv = side_on_recv, .on_close = side_on_close, .arg = &(s)                    \
	}

static inline void side_on_close(struct odma_tp_ep *ep, doca_error_t why, void *arg)
{
	struct side *s = arg;

	(void)ep;
	pthread_mutex_lock(&s->lock);
	s->closes++;
	s->why = why;
	pthread_mutex_unlock(&s->lock);
}

/* *@v (a counter of @s), read under its lock. */
static inline unsigned int side_count(struct side *s, unsigned int *v)
{
	unsigned int r;

	pthread_mutex_lock(&s->lock);
	r = *v;
	pthread_mutex_unlock(&s->lock);
	return r;
}

/* Waits up to 5 s for *@v to reach @n. */
static inline bool side_wait(struct side *s, unsigned int *v, unsigned int n)
{
	for (int i = 0; i < 500; i++) {
		if (side_count(s, v) >= n)
			return true;
		usleep(10000);
	}
	return false;
}

#endif
