/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The Comch fast-path ring (inside the comch module; comch.h includes it). A consumer creates
 * the ring in a sealed memfd and shares it with the peer; both processes write into it, so
 * every byte of it is untrusted for the side reading it (docs/reliability.md, threat model):
 *
 *  - the geometry (slot count, slot size, immediate length, size of the mapping) is checked
 *    once, copied into a private struct comch_ring_geom and never read from the ring again;
 *  - a slot is located from the private geometry and a sequence number masked by it, so no
 *    value in the ring can move a pointer outside the mapping;
 *  - every field a peer writes into a slot is read once, into a local, and checked against
 *    what this side gave (the room of the posted buffer, the immediate length).
 *
 * Pure functions of the memory they get: no log, no lock, no system call (fuzz/fuzz_comch_ring.c
 * runs them against arbitrary peer writes).
 */
#ifndef ODMA_COMCH_RING_H_
#define ODMA_COMCH_RING_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#define COMCH_RING_MAGIC 0x474e495248434d4full /* "OMCHRING" */
#define COMCH_RING_CLOSED (1ull << 63)         /* in claim_seq: the consumer stopped */
#define COMCH_RING_MAX_SLOTS 65536u
#define COMCH_RING_MAX_SLOT_SIZE 4096u
#define COMCH_RING_MAX_BYTES (64ull << 20)
#define COMCH_RING_MAX_IMM                                                                         \
	256u /* immediate bytes a slot may carry (= ODMA_COMCH_IMM_DATA_LIMIT)                     \
	      */

enum comch_slot_state {
	COMCH_SLOT_FREE = 0,
	COMCH_SLOT_POSTED = 1, /* the consumer posted a buffer; claimable */
	COMCH_SLOT_DONE = 2,   /* a producer wrote it (status says how) */
};

struct comch_slot {
	_Atomic uint32_t state;
	uint32_t producer_id;
	uint64_t seq;     /* post sequence number */
	uint64_t addr;    /* consumer address of the buffer's free tail */
	uint64_t room;    /* bytes it can take */
	uint64_t written; /* bytes the producer wrote */
	int32_t status;   /* doca_error_t of the write */
	uint32_t imm_len; /* immediate bytes in imm[] */
	uint8_t imm[];    /* geometry's imm_len bytes */
};

struct comch_ring {
	uint64_t magic;
	uint32_t nslots; /* a power of two */
	uint32_t slot_size;
	uint32_t imm_len;
	uint32_t consumer_id;
	/*
	 * The consumer's doorbell (exec.h odma_bell): the state word, the consumer's eventfd
	 * (a descriptor number in its process, which the peer takes once with pidfd_getfd and
	 * uses only if it is an eventfd) and whether the peer holds it (else the consumer's
	 * sleeping PE wakes on a short timer). Peer-writable like the rest: a wrong value costs
	 * the consumer a wake-up, never memory safety.
	 */
	_Atomic uint32_t bell;
	int32_t bell_fd;
	_Atomic uint32_t bell_peer;
	uint32_t pad0;
	uint64_t pad[3];
	_Alignas(64) _Atomic uint64_t post_seq; /* written by the consumer */
	_Alignas(64) _Atomic uint64_t
	        claim_seq; /* CAS by producers; COMCH_RING_CLOSED when stopped */
	_Alignas(64) uint8_t slots[];
};

/* The geometry of a ring as this side validated it; the only copy its code reads. */
struct comch_ring_geom {
	uint32_t nslots;    /* a power of two, 1..COMCH_RING_MAX_SLOTS */
	uint32_t slot_size; /* a multiple of 8, room for the slot header and imm_len bytes */
	uint32_t imm_len;   /* immediate bytes a slot carries, <= COMCH_RING_MAX_IMM */
	uint32_t consumer_id;
	uint64_t ring_size; /* bytes of the mapping (the memfd's sealed size) */
};

/* Bytes a ring of @nslots slots of @slot_size bytes needs. */
size_t comch_ring_bytes(uint32_t nslots, uint32_t slot_size);

/* The geometry an honest consumer uses for @nslots slots and @imm_len immediate bytes. */
void comch_ring_geom_make(struct comch_ring_geom *g, uint32_t nslots, uint32_t imm_len,
                          uint32_t consumer_id);

/* Whether @g is a geometry this side can use safely; false with *@why set. */
bool comch_ring_geom_valid(const struct comch_ring_geom *g, const char **why);

/* Writes the header of a new ring (the consumer, before sharing it). */
void comch_ring_init(struct comch_ring *r, const struct comch_ring_geom *g);

/* Whether the header of a received ring announces @g (checked once, at registration). */
bool comch_ring_header_matches(const struct comch_ring *r, const struct comch_ring_geom *g);

/* The slot of sequence number @seq (in bounds for any @seq). */
static inline struct comch_slot *comch_ring_slot(struct comch_ring *r,
                                                 const struct comch_ring_geom *g, uint64_t seq)
{
	return (struct comch_slot *)(r->slots + (size_t)(seq & (g->nslots - 1)) * g->slot_size);
}

/* ---- consumer side -------------------------------------------------------------------- */

/* Publishes buffer [@addr, +@room) as slot @seq (the consumer keeps @room privately). */
void comch_ring_post(struct comch_ring *r, const struct comch_ring_geom *g, uint64_t seq,
                     uint64_t addr, uint64_t room);

/* What a producer reported for a slot, checked against the room it was given. */
struct comch_harvest {
	doca_error_t status; /* DOCA_SUCCESS, else DOCA_ERROR_IO_FAILED */
	uint64_t written;    /* <= the slot's room (0 unless status is DOCA_SUCCESS) */
	uint32_t producer_id;
	uint32_t imm_len; /* <= geometry's imm_len (0 unless status is DOCA_SUCCESS) */
	uint8_t imm[COMCH_RING_MAX_IMM];
	const char *bad; /* non-NULL: what the peer reported that was refused */
	uint64_t bad_value;
};

/*
 * Reads slot @seq once if a producer marked it done (false when it is not done yet) and frees
 * it. @room is the room this side posted; a byte count above it, an immediate length above
 * the geometry's or an unknown status becomes DOCA_ERROR_IO_FAILED with out->bad set.
 */
bool comch_ring_harvest(struct comch_ring *r, const struct comch_ring_geom *g, uint64_t seq,
                        uint64_t room, struct comch_harvest *out);

/* Frees slot @seq without reading it (a posted buffer that failed). */
void comch_ring_release(struct comch_ring *r, const struct comch_ring_geom *g, uint64_t seq);

/*
 * Closes the ring to producers; returns how many slots were claimed before it closed,
 * clamped to [@done, @posted] (the counter is the peer's to write too).
 */
uint64_t comch_ring_close(struct comch_ring *r, uint64_t done, uint64_t posted);

/* ---- producer side -------------------------------------------------------------------- */

enum comch_claim_result {
	COMCH_CLAIM_OK = 0,
	COMCH_CLAIM_CLOSED, /* the consumer stopped */
	COMCH_CLAIM_EMPTY,  /* nothing posted */
	COMCH_CLAIM_BUSY,   /* the consumer is publishing the slot, or the counter keeps moving */
	COMCH_CLAIM_ROOM,   /* the posted buffer is smaller than the data (out->room) */
	COMCH_CLAIM_IMM,    /* more immediate bytes than the consumer takes */
};

struct comch_claimed {
	struct comch_slot *slot;
	uint64_t addr; /* in the consumer's process */
	uint64_t room;
};

/* Claims the next posted slot for @need bytes and @imm immediate bytes (bounded retries). */
enum comch_claim_result comch_ring_claim(struct comch_ring *r, const struct comch_ring_geom *g,
                                         uint64_t need, uint32_t imm, struct comch_claimed *out);

/* Completes a claimed slot: the byte count, immediate data (<= geometry's) and status. */
void comch_ring_fill(struct comch_slot *s, const struct comch_ring_geom *g, uint32_t producer_id,
                     uint64_t written, const uint8_t *imm, uint32_t imm_len, doca_error_t status);

#endif /* ODMA_COMCH_RING_H_ */
