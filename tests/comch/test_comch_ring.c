/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The Comch fast-path ring (src/comch/ring.c) under threads: a consumer posting and harvesting,
 * producers claiming and filling, as two processes sharing the ring do (here in one, on plain
 * memory, so that the claims can be checked against the ring's counters).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "comch/ring.h"

#define RING_SLOTS 2u
#define RING_BIG_PRODUCERS 4 /* more threads than CPUs: one is preempted mid-claim */
#define RUN_NS (5000ull * 1000 * 1000)
#define ROOM_SMALL 16ull      /* + seq: the room of a slot of an odd round of the ring */
#define ROOM_BIG (1ull << 40) /* + seq: of an even round */
#define NEED_BIG (1ull << 39) /* what the big producer sends: only big slots take it */

struct ring_run {
	struct comch_ring *ring;
	struct comch_ring_geom g;
	_Atomic int stop;
	_Atomic uint64_t big_sent, small_sent, false_room;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Unique per post: the slot whose room a producer was told can be named from the room. */
static uint64_t room_of(uint64_t seq)
{
	return ((seq / RING_SLOTS) & 1) ? ROOM_SMALL + seq : ROOM_BIG + seq;
}

static void *consumer_main(void *arg)
{
	struct ring_run *run = arg;
	uint64_t posted = 0, done = 0;
	struct comch_harvest h;

	while (!atomic_load(&run->stop)) {
		if (posted - done < RING_SLOTS) {
			comch_ring_post(run->ring, &run->g, posted, 0, room_of(posted));
			posted++;
		}
		if (done < posted &&
		    comch_ring_harvest(run->ring, &run->g, done, room_of(done), &h))
			done++;
	}
	(void)comch_ring_close(run->ring, done, posted);
	return NULL;
}

/* A producer of @need bytes; @big: checks every ROOM answer against the ring's counter. */
static void produce(struct ring_run *run, uint64_t need, bool big)
{
	while (!atomic_load(&run->stop)) {
		struct comch_claimed cl;
		enum comch_claim_result r = comch_ring_claim(run->ring, &run->g, need, 0, &cl);
		uint64_t after, seq;

		if (r == COMCH_CLAIM_OK) {
			comch_ring_fill(cl.slot, &run->g, 1, 0, NULL, 0, DOCA_SUCCESS);
			atomic_fetch_add(big ? &run->big_sent : &run->small_sent, 1);
		} else if (r == COMCH_CLAIM_ROOM && big) {
			/*
			 * The room is of the slot the claim looked at (room_of names it): the next
			 * to claim, so never past the counter as it is now. Past it, the answer
			 * came from a later post of the slot, while a big buffer was next.
			 */
			after = atomic_load(&run->ring->claim_seq) & ~COMCH_RING_CLOSED;
			seq = cl.room - ROOM_SMALL;
			if (cl.room < ROOM_BIG && seq > after)
				atomic_fetch_add(&run->false_room, 1);
		} else if (r == COMCH_CLAIM_CLOSED) {
			return;
		}
	}
}

static void *small_main(void *arg)
{
	produce(arg, 1, false);
	return NULL;
}

static void *big_main(void *arg)
{
	produce(arg, NEED_BIG, true);
	return NULL;
}

/*
 * A producer that is told a posted buffer is too small (DOCA_ERROR_TOO_BIG) must have been
 * told the room of the buffer next in line: not of a later post of the same slot, read
 * after another producer claimed the one it looked at and the consumer posted the slot again.
 */
static void test_claim_room_is_current(void **state)
{
	struct ring_run run = { 0 };
	pthread_t t[2 + RING_BIG_PRODUCERS];
	uint64_t end;

	(void)state;
	comch_ring_geom_make(&run.g, RING_SLOTS, 0, 2);
	run.ring = aligned_alloc(4096, (size_t)run.g.ring_size);
	assert_non_null(run.ring);
	memset(run.ring, 0, (size_t)run.g.ring_size);
	comch_ring_init(run.ring, &run.g);
	assert_int_equal(pthread_create(&t[0], NULL, consumer_main, &run), 0);
	assert_int_equal(pthread_create(&t[1], NULL, small_main, &run), 0);
	for (int i = 2; i < 2 + RING_BIG_PRODUCERS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, big_main, &run), 0);
	end = now_ns() + RUN_NS;
	while (now_ns() < end && atomic_load(&run.false_room) == 0) {
		struct timespec ms = { 0, 1000000 };

		nanosleep(&ms, NULL);
	}
	atomic_store(&run.stop, 1);
	for (int i = 0; i < 2 + RING_BIG_PRODUCERS; i++)
		pthread_join(t[i], NULL);
	print_message("sent: %llu big, %llu small; stale ROOM answers: %llu\n",
	              (unsigned long long)atomic_load(&run.big_sent),
	              (unsigned long long)atomic_load(&run.small_sent),
	              (unsigned long long)atomic_load(&run.false_room));
	assert_true(atomic_load(&run.small_sent) > 0);
	assert_int_equal(atomic_load(&run.false_room), 0);
	free(run.ring);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_claim_room_is_current),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
