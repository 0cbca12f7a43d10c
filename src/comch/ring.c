/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The fast-path ring as both sides use it (ring.h): geometry checks, posting and harvesting
 * (consumer), claiming and filling (producer). Everything read from the ring is read once,
 * into a local, and checked before use; the geometry is only ever read from the private copy.
 */
#include <string.h>

#include "comch/ring.h"

/* One read of a field the peer may change at any time (never re-read by the compiler). */
static inline uint64_t shm_load64(const uint64_t *p)
{
	return *(const volatile uint64_t *)p;
}

static inline uint32_t shm_load32(const uint32_t *p)
{
	return *(const volatile uint32_t *)p;
}

size_t comch_ring_bytes(uint32_t nslots, uint32_t slot_size)
{
	return sizeof(struct comch_ring) + (size_t)nslots * slot_size;
}

void comch_ring_geom_make(struct comch_ring_geom *g, uint32_t nslots, uint32_t imm_len,
                          uint32_t consumer_id)
{
	g->nslots = nslots;
	g->slot_size = (uint32_t)((sizeof(struct comch_slot) + imm_len + 63) & ~(size_t)63);
	g->imm_len = imm_len;
	g->consumer_id = consumer_id;
	g->ring_size = (comch_ring_bytes(nslots, g->slot_size) + 4095) & ~(uint64_t)4095;
}

bool comch_ring_geom_valid(const struct comch_ring_geom *g, const char **why)
{
	if (g->nslots == 0 || g->nslots > COMCH_RING_MAX_SLOTS ||
	    (g->nslots & (g->nslots - 1)) != 0) {
		*why = "the slot count is not a power of two in 1..65536";
		return false;
	}
	if (g->imm_len > COMCH_RING_MAX_IMM) {
		*why = "the immediate length is above 256 bytes";
		return false;
	}
	if (g->slot_size < sizeof(struct comch_slot) + g->imm_len ||
	    g->slot_size > COMCH_RING_MAX_SLOT_SIZE ||
	    g->slot_size % _Alignof(struct comch_slot) != 0) {
		*why = "the slot size cannot hold a slot header and its immediate data (or is "
		       "misaligned, or above 4096 bytes)";
		return false;
	}
	if (g->ring_size < comch_ring_bytes(g->nslots, g->slot_size) ||
	    g->ring_size > COMCH_RING_MAX_BYTES) {
		*why = "the ring size does not fit its slots (or is above 64 MiB)";
		return false;
	}
	return true;
}

void comch_ring_init(struct comch_ring *r, const struct comch_ring_geom *g)
{
	r->magic = COMCH_RING_MAGIC;
	r->nslots = g->nslots;
	r->slot_size = g->slot_size;
	r->imm_len = g->imm_len;
	r->consumer_id = g->consumer_id;
	atomic_store_explicit(&r->post_seq, 0, memory_order_relaxed);
	atomic_store_explicit(&r->claim_seq, 0, memory_order_relaxed);
}

bool comch_ring_header_matches(const struct comch_ring *r, const struct comch_ring_geom *g)
{
	return shm_load64(&r->magic) == COMCH_RING_MAGIC && shm_load32(&r->nslots) == g->nslots &&
	       shm_load32(&r->slot_size) == g->slot_size && shm_load32(&r->imm_len) == g->imm_len &&
	       shm_load32(&r->consumer_id) == g->consumer_id;
}

/* ---- consumer side -------------------------------------------------------------------- */

void comch_ring_post(struct comch_ring *r, const struct comch_ring_geom *g, uint64_t seq,
                     uint64_t addr, uint64_t room)
{
	struct comch_slot *s = comch_ring_slot(r, g, seq);

	s->seq = seq;
	s->addr = addr;
	s->room = room;
	s->written = 0;
	s->status = DOCA_SUCCESS;
	s->imm_len = 0;
	s->producer_id = 0;
	atomic_store_explicit(&s->state, COMCH_SLOT_POSTED, memory_order_relaxed);
	atomic_store_explicit(&r->post_seq, seq + 1, memory_order_release);
}

static void harvest_refuse(struct comch_harvest *out, const char *what, uint64_t value)
{
	out->status = DOCA_ERROR_IO_FAILED;
	out->written = 0;
	out->imm_len = 0;
	out->bad = what;
	out->bad_value = value;
}

bool comch_ring_harvest(struct comch_ring *r, const struct comch_ring_geom *g, uint64_t seq,
                        uint64_t room, struct comch_harvest *out)
{
	struct comch_slot *s = comch_ring_slot(r, g, seq);
	uint64_t written;
	uint32_t imm_len;
	int32_t status;

	if (atomic_load_explicit(&s->state, memory_order_acquire) != COMCH_SLOT_DONE)
		return false;
	written = shm_load64(&s->written);
	imm_len = shm_load32(&s->imm_len);
	status = (int32_t)shm_load32((const uint32_t *)&s->status);
	out->producer_id = shm_load32(&s->producer_id);
	out->bad = NULL;
	out->bad_value = 0;
	out->status = DOCA_SUCCESS;
	out->written = written;
	out->imm_len = imm_len;
	if (status != DOCA_SUCCESS)
		harvest_refuse(out, NULL, 0); /* the producer's write failed: not the peer's lie */
	else if (written > room)
		harvest_refuse(out, "a byte count above the posted buffer's room", written);
	else if (imm_len > g->imm_len)
		harvest_refuse(out, "more immediate bytes than the consumer takes", imm_len);
	if (out->imm_len > 0)
		memcpy(out->imm, s->imm, out->imm_len);
	atomic_store_explicit(&s->state, COMCH_SLOT_FREE, memory_order_relaxed);
	return true;
}

void comch_ring_release(struct comch_ring *r, const struct comch_ring_geom *g, uint64_t seq)
{
	atomic_store_explicit(&comch_ring_slot(r, g, seq)->state, COMCH_SLOT_FREE,
	                      memory_order_relaxed);
}

uint64_t comch_ring_close(struct comch_ring *r, uint64_t done, uint64_t posted)
{
	uint64_t old =
	        atomic_fetch_or_explicit(&r->claim_seq, COMCH_RING_CLOSED, memory_order_acq_rel) &
	        ~COMCH_RING_CLOSED;

	if (old < done)
		return done;
	return old > posted ? posted : old;
}

/* ---- producer side -------------------------------------------------------------------- */

#define COMCH_CLAIM_TRIES 64 /* CAS failures before BUSY (a peer may move the counter) */

enum comch_claim_result comch_ring_claim(struct comch_ring *r, const struct comch_ring_geom *g,
                                         uint64_t need, uint32_t imm, struct comch_claimed *out)
{
	for (int tries = 0; tries < COMCH_CLAIM_TRIES; tries++) {
		uint64_t c = atomic_load_explicit(&r->claim_seq, memory_order_acquire);
		uint64_t posted, room;
		struct comch_slot *s;

		if (c & COMCH_RING_CLOSED)
			return COMCH_CLAIM_CLOSED;
		posted = atomic_load_explicit(&r->post_seq, memory_order_acquire);
		if (c >= posted)
			return COMCH_CLAIM_EMPTY;
		s = comch_ring_slot(r, g, c);
		if (shm_load64(&s->seq) != c)
			return COMCH_CLAIM_BUSY; /* the consumer is publishing it right now */
		room = shm_load64(&s->room);
		if (need > room) {
			/*
			 * Since c was read, another producer may have claimed slot c and the
			 * consumer harvested it and posted it again (c + nslots): the room may be
			 * of that later post while a bigger buffer is next. The room is the next
			 * one's only if c is still unclaimed after it was read (acquire fence:
			 * the room load is ordered before the counter's, also on Arm).
			 */
			atomic_thread_fence(memory_order_acquire);
			if (atomic_load_explicit(&r->claim_seq, memory_order_relaxed) != c)
				continue;
			out->room = room;
			return COMCH_CLAIM_ROOM;
		}
		if (imm > g->imm_len)
			return COMCH_CLAIM_IMM;
		if (atomic_compare_exchange_weak_explicit(
		            &r->claim_seq, &c, c + 1, memory_order_acq_rel, memory_order_relaxed)) {
			out->slot = s;
			out->addr = shm_load64(&s->addr);
			out->room = room;
			return COMCH_CLAIM_OK;
		}
	}
	return COMCH_CLAIM_BUSY;
}

void comch_ring_fill(struct comch_slot *s, const struct comch_ring_geom *g, uint32_t producer_id,
                     uint64_t written, const uint8_t *imm, uint32_t imm_len, doca_error_t status)
{
	if (imm_len > g->imm_len)
		imm_len = 0; /* never past the slot (callers checked it at the claim) */
	s->written = status == DOCA_SUCCESS ? written : 0;
	s->producer_id = producer_id;
	s->imm_len = status == DOCA_SUCCESS ? imm_len : 0;
	if (status == DOCA_SUCCESS && imm_len > 0)
		memcpy(s->imm, imm, imm_len);
	s->status = status;
	atomic_store_explicit(&s->state, COMCH_SLOT_DONE, memory_order_release);
}
