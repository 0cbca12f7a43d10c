/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * libFuzzer target: the Comch fast-path ring (src/comch/ring.c) while the peer writes arbitrary
 * bytes into it (issue #19). The input is a geometry (an honest one, or one a peer announced,
 * which must pass comch_ring_geom_valid) and then a program that interleaves the consumer
 * (post, harvest, close), the producer (claim, fill) and the peer (any bytes at any offset of
 * the shared ring, or a chosen counter). The ring is a heap block of exactly the geometry's
 * size, so ASan sees any access outside it.
 *
 * Invariants: a harvested slot never reports more bytes than the room this side posted, nor
 * more immediate bytes than the geometry's, and a failed one reports none; statuses are
 * SUCCESS or IO_FAILED; a claimed slot lies inside the ring; the claimed count at close is
 * within [done, posted]; harvests come in posting order, never past what was posted.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comch/ring.h"

#define FUZZ_CHECK(c)                                                                              \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "fuzz: %s:%d: invariant broken: %s\n", __FILE__, __LINE__, \
			        #c);                                                               \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct cursor {
	const uint8_t *p;
	size_t n;
};

static uint8_t take8(struct cursor *c)
{
	uint8_t v = 0;

	if (c->n > 0) {
		v = *c->p++;
		c->n--;
	}
	return v;
}

static uint64_t take64(struct cursor *c)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)take8(c) << (8 * i);
	return v;
}

/* The geometry: honest (even first byte) or announced by the peer (odd), validated. */
static bool fuzz_geom(struct cursor *c, struct comch_ring_geom *g)
{
	const char *why = NULL;
	uint8_t mode = take8(c);

	if ((mode & 1) == 0) {
		comch_ring_geom_make(g, 1u << (take8(c) % 7), take8(c) % (COMCH_RING_MAX_IMM + 1),
		                     7);
		g->ring_size = comch_ring_bytes(g->nslots, g->slot_size); /* no slack for ASan */
		FUZZ_CHECK(comch_ring_geom_valid(g, &why));
		return true;
	}
	g->nslots = (uint32_t)take64(c);
	g->slot_size = (uint32_t)take64(c) % 8192;
	g->imm_len = (uint32_t)take64(c) % 512;
	g->consumer_id = 9;
	g->ring_size = comch_ring_bytes(g->nslots % 128, g->slot_size) + take8(c) % 64;
	if (!comch_ring_geom_valid(g, &why)) {
		FUZZ_CHECK(why != NULL);
		return false;
	}
	FUZZ_CHECK(g->slot_size >= sizeof(struct comch_slot) + g->imm_len);
	FUZZ_CHECK((g->nslots & (g->nslots - 1)) == 0 && g->slot_size % 8 == 0);
	FUZZ_CHECK(g->ring_size >= comch_ring_bytes(g->nslots, g->slot_size));
	return true;
}

static void check_harvest(const struct comch_harvest *h, uint64_t room,
                          const struct comch_ring_geom *g)
{
	FUZZ_CHECK(h->status == DOCA_SUCCESS || h->status == DOCA_ERROR_IO_FAILED);
	FUZZ_CHECK(h->written <= room && h->imm_len <= g->imm_len);
	if (h->status != DOCA_SUCCESS)
		FUZZ_CHECK(h->written == 0 && h->imm_len == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cursor c = { data, size };
	struct comch_ring_geom g;
	uint64_t posted = 0, done = 0, room[128] = { 0 };
	uint8_t imm[COMCH_RING_MAX_IMM + 64];
	struct comch_ring *ring;
	uint8_t *mem;

	if (!fuzz_geom(&c, &g) || g.ring_size > (1u << 20))
		return 0;
	mem = calloc(1, (size_t)g.ring_size);
	if (mem == NULL)
		return 0;
	ring = (struct comch_ring *)mem;
	comch_ring_init(ring, &g);
	FUZZ_CHECK(comch_ring_header_matches(ring, &g));
	memset(imm, 0x77, sizeof(imm));
	for (int steps = 0; c.n > 0 && steps < 4096; steps++) {
		uint8_t op = take8(&c) % 7;

		switch (op) {
		case 0: /* consumer: post a buffer (the ring never holds more than nslots) */
			if (posted - done < g.nslots && g.nslots <= 128) {
				room[posted % 128] = 1 + take8(&c);
				comch_ring_post(ring, &g, posted, 0x1000 + posted,
				                room[posted % 128]);
				posted++;
			}
			break;
		case 1: /* consumer: harvest in order */
			if (done < posted) {
				struct comch_harvest h;

				if (comch_ring_harvest(ring, &g, done, room[done % 128], &h)) {
					check_harvest(&h, room[done % 128], &g);
					done++;
				}
			}
			break;
		case 2: { /* producer: claim and fill */
			struct comch_claimed cl;
			uint64_t need = take8(&c);
			uint32_t n_imm = take8(&c) % (COMCH_RING_MAX_IMM + 40);
			uint8_t st = take8(&c);

			if (comch_ring_claim(ring, &g, need, n_imm, &cl) == COMCH_CLAIM_OK) {
				uint8_t *s = (uint8_t *)cl.slot;

				FUZZ_CHECK(s >= ring->slots &&
				           s + g.slot_size <= mem + (size_t)g.ring_size);
				FUZZ_CHECK(need <= cl.room && n_imm <= g.imm_len);
				comch_ring_fill(cl.slot, &g, 3, need, imm, n_imm,
				                st & 1 ? DOCA_ERROR_IO_FAILED : DOCA_SUCCESS);
			}
			break;
		}
		case 3: { /* the peer: arbitrary bytes anywhere in the ring */
			size_t off = (size_t)((take8(&c) | (uint32_t)take8(&c) << 8) % g.ring_size);
			size_t len = take8(&c) % 24;

			for (size_t i = 0; i < len && off + i < g.ring_size; i++)
				mem[off + i] = take8(&c);
			break;
		}
		case 4: { /* the peer: a chosen 64-bit value at a counter or a slot field */
			uint8_t which = take8(&c) % 4;
			uint64_t v = take64(&c);

			if (which == 0)
				atomic_store(&ring->post_seq, v);
			else if (which == 1)
				atomic_store(&ring->claim_seq, v);
			else {
				struct comch_slot *s = comch_ring_slot(ring, &g, v & 0xffff);

				if (which == 2)
					s->written = v;
				else
					s->imm_len = (uint32_t)(v >> 7);
				atomic_store(&s->state, (uint32_t)(v & 3));
			}
			break;
		}
		case 5: { /* consumer: close; what was claimed is within what was posted */
			uint64_t lim = comch_ring_close(ring, done, posted);

			FUZZ_CHECK(lim >= done && lim <= posted);
			atomic_fetch_and(&ring->claim_seq,
			                 ~COMCH_RING_CLOSED); /* reopen to go on */
			break;
		}
		default: /* consumer: fail a posted buffer */
			if (done < posted) {
				comch_ring_release(ring, &g, done);
				done++;
			}
			break;
		}
	}
	free(mem);
	return 0;
}
