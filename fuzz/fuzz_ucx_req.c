/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The UCX exporter's request decoder and server (src/core/transport/ucx_wire.c), driven
 * with whatever an importer could send. Two regions are registered once: a read-write one
 * and a read-only one, each with guard bytes around it, and a third is revoked. Input:
 * byte 0 picks how the header is built (bit 0: start from a valid request of region 0/1
 * (bit 1) and overwrite bytes; else raw bytes), then the header (64 bytes), then the
 * payload. Invariants: a request served with DOCA_SUCCESS lies inside a live region with
 * its key and generation, a put needs a writable region, an atomic (AREAD, FADD, SWAP, CAS, WATCH)
 * one aligned u64 of a region with the atomic right (region 0 has it); no byte outside the regions
 * ever changes; a read-only region never changes. The same input is also checked as a bundle of
 * endpoint messages (check_bundle), a batch of requests and a batch of replies (check_batches).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/transport/tp_int.h"
#include "core/transport/ucx_wire.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RSIZE 4096
#define GUARD 64

static uint8_t mem[2][GUARD + RSIZE + GUARD], ref[2][GUARD + RSIZE + GUARD];
static struct odma_tp_region *reg[3];
static uint8_t out[ODMA_UCX_CHUNK_MAX];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static uint8_t gone[RSIZE];

	(void)argc;
	(void)argv;
	fuzz_quiet_logs();
	for (int i = 0; i < 2; i++) {
		memset(mem[i], 0xa5 + i, sizeof(mem[i]));
		reg[i] = odma_tp_region_add((uint64_t)(uintptr_t)(mem[i] + GUARD), RSIZE,
		                            i == 0 ? ODMA_TP_READ | ODMA_TP_WRITE | ODMA_TP_ATOMIC
		                                   : ODMA_TP_READ);
		FUZZ_CHECK(reg[i] != NULL);
		odma_tp_region_publish(reg[i], "issued", 6);
	}
	memcpy(ref, mem, sizeof(mem));
	reg[2] = odma_tp_region_add((uint64_t)(uintptr_t)gone, RSIZE, ODMA_TP_READ | ODMA_TP_WRITE);
	FUZZ_CHECK(reg[2] != NULL);
	odma_tp_region_publish(reg[2], "issued", 6);
	odma_tp_region_revoke(reg[2]); /* its id and old key stay known to the fuzzer's seeds */
	return 0;
}

static void base_request(int r, uint8_t *hdr)
{
	struct odma_ucx_req q = { .op = ODMA_UCX_OP_GET, .id = 1, .len = 64 };

	q.region_id = reg[r]->id;
	q.generation = reg[r]->hdr.generation;
	memcpy(q.key, reg[r]->hdr.key, 16);
	q.addr = reg[r]->addr;
	odma_ucx_req_encode(&q, hdr);
}

/* Whether a request the server accepted was entitled to it. */
static void check_served(const struct odma_ucx_req *q)
{
	const struct odma_tp_region *r = NULL;

	for (int i = 0; i < 2; i++)
		if (reg[i]->id == q->region_id)
			r = reg[i];
	FUZZ_CHECK(r != NULL); /* never the revoked one, never an unknown id */
	FUZZ_CHECK(memcmp(r->hdr.key, q->key, 16) == 0 && r->hdr.generation == q->generation);
	if (q->op == ODMA_UCX_OP_ATTACH)
		return;
	FUZZ_CHECK(q->addr >= r->addr && q->addr + q->len <= r->addr + r->len);
	FUZZ_CHECK(q->op != ODMA_UCX_OP_PUT || (r->perms & ODMA_TP_WRITE) != 0);
	/* an atomic, the read too, names one aligned u64 of a region with the atomic right */
	FUZZ_CHECK(!odma_ucx_op_atomic(q->op) || (q->len == 8 && (q->addr & 7) == 0));
	FUZZ_CHECK(!odma_ucx_op_atomic(q->op) || (r->perms & ODMA_TP_ATOMIC) != 0);
}

/*
 * The same bytes as a bundle of endpoint messages (its endpoint header, then its payload): one
 * the check accepts yields exactly its count of messages, each inside the payload, the last
 * ending where the payload does, and its header's credit is what the header says.
 */
static void check_bundle(const uint8_t *data, size_t size)
{
	const size_t h = ODMA_UCX_EP_HDR;
	const char *why = NULL;
	size_t off = 0, plen = size - h;
	uint64_t credit = 0, c2 = 0;
	uint32_t word = 0;
	unsigned int n;

	if (size < h)
		return;
	n = odma_ucx_bundle_check(data, h, data + h, plen, &credit, &why);
	FUZZ_CHECK(n == 0 ? why != NULL : n >= 2 && n <= ODMA_UCX_BUNDLE_MAX);
	FUZZ_CHECK(n == 0 ||
	           (odma_ucx_ep_hdr_get(data, h, &word, &c2) && word == n && c2 == credit));
	for (unsigned int i = 0; i < n; i++) {
		size_t len;
		uint32_t imm;
		const uint8_t *m = odma_ucx_bundle_next(data + h, &off, &len, &imm);

		FUZZ_CHECK(m >= data + h && len <= ODMA_UCX_BUNDLE_MSG_MAX && off <= plen &&
		           m + len == data + h + off);
	}
	FUZZ_CHECK(off == (n == 0 ? 0 : plen));
}

/*
 * The same bytes as a batch of requests and as a batch of replies (8-byte header, then the
 * payload): one the check accepts yields exactly its count of entries, each inside the payload
 * and within the bounds, the last ending where the payload does; each reply decodes.
 */
static void check_batches(const uint8_t *data, size_t size)
{
	const size_t h = ODMA_UCX_REQS_HDR;
	const char *why = NULL;
	size_t off = 0, plen = size - h;
	unsigned int n;

	if (size < h)
		return;
	n = odma_ucx_reqs_check(data, h, data + h, plen, &why);
	FUZZ_CHECK(n == 0 ? why != NULL : n >= 2 && n <= ODMA_UCX_REQS_MAX);
	for (unsigned int i = 0; i < n; i++) {
		const uint8_t *payload;
		size_t len;
		const uint8_t *q = odma_ucx_reqs_next(data + h, &off, &payload, &len);

		FUZZ_CHECK(q >= data + h && payload == q + ODMA_UCX_REQ_LEN && off <= plen &&
		           ODMA_UCX_REQ_LEN + len <= ODMA_UCX_REQS_ENTRY_MAX &&
		           payload + len == data + h + off);
		FUZZ_CHECK(q[6] != ODMA_UCX_OP_ATTACH && q[6] != ODMA_UCX_OP_WATCH);
	}
	FUZZ_CHECK(off == (n == 0 ? 0 : plen));
	why = NULL;
	off = 0;
	n = odma_ucx_replies_check(data, h, data + h, plen, &why);
	FUZZ_CHECK(n == 0 ? why != NULL : n >= 2 && n <= ODMA_UCX_REPLIES_MAX);
	for (unsigned int i = 0; i < n; i++) {
		struct odma_ucx_reply r;
		const uint8_t *b = odma_ucx_replies_next(data + h, &off, &r);

		FUZZ_CHECK(b >= data + h && off <= plen && b + r.len == data + h + off);
		FUZZ_CHECK(odma_ucx_reply_decode(b - ODMA_UCX_REPLY_LEN, ODMA_UCX_REPLY_LEN, r.len,
		                                 &r) == DOCA_SUCCESS);
	}
	FUZZ_CHECK(off == (n == 0 ? 0 : plen));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t hdr[ODMA_UCX_REQ_LEN];
	struct odma_ucx_req q;
	const char *why = NULL;
	size_t n = 0, hl, plen;

	check_bundle(data, size);
	check_batches(data, size);
	if (size < 1)
		return 0;
	hl = size - 1 < sizeof(hdr) ? size - 1 : sizeof(hdr);
	if (data[0] & 1) { /* a valid request with some bytes overwritten (the rest of hdr) */
		base_request((data[0] >> 1) & 1, hdr);
		for (size_t i = 1; i + 1 < 1 + hl; i += 2)
			hdr[data[i] % sizeof(hdr)] = data[i + 1];
		hl = sizeof(hdr);
	} else {
		memcpy(hdr, data + 1, hl);
	}
	plen = size - 1 - (size - 1 < sizeof(hdr) ? size - 1 : sizeof(hdr));
	if (odma_ucx_req_decode(hdr, hl, plen, &q, &why) != DOCA_SUCCESS) {
		FUZZ_CHECK(why != NULL);
		return 0;
	}
	if (odma_ucx_req_serve(&q, data + size - plen, out, &n) == DOCA_SUCCESS)
		check_served(&q);
	/* nothing outside the regions, nor the read-only region, ever changes */
	FUZZ_CHECK(memcmp(mem[0], ref[0], GUARD) == 0 &&
	           memcmp(mem[0] + GUARD + RSIZE, ref[0] + GUARD + RSIZE, GUARD) == 0);
	FUZZ_CHECK(memcmp(mem[1], ref[1], sizeof(mem[1])) == 0);
	return 0;
}
