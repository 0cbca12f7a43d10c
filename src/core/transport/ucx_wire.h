/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Inside core/transport: the requests the UCX transport's importers send to an exporter,
 * and the exporter's side of them. Over TCP, UCX's own RMA is emulated in software and
 * checks no remote range, so odma never lets a peer name raw memory: every access is a
 * request (a UCX active message) that the exporter decodes (odma_ucx_req_decode, pure and
 * log-free: the fuzzer drives it) and checks against its region records
 * (odma_ucx_req_serve) before one byte moves.
 *
 * Request header (little-endian, fixed 64 bytes):
 *   0 magic "ODMQ" | 4 version u16 (1) | 6 op u8 | 7 flags u8 | 8 request id u64
 *   16 region id u32 | 20 generation u32 | 24 key [16] | 40 address u64 | 48 length u64
 *   56 zero [8]
 * The payload is the bytes of a PUT (exactly length bytes; with flag ODMA_UCX_REQ_TRAILER, a
 * PUT sent alone whose bytes were read from the importer's memory as they left, then a
 * trailer as a reply's below: the exporter writes them only when it says DOCA_SUCCESS; every
 * other request has flags zero), the u64 operand (LE) of a FADD
 * or SWAP, the importer's UCX worker address with an ATTACH (at most ODMA_UCX_ATTACH_ADDR_MAX
 * bytes: the exporter answers on an endpoint of its own to it; none when the attach goes
 * over an endpoint the exporter made); empty otherwise. AREAD, FADD, SWAP, CAS and WATCH
 * name one 8-byte aligned u64 (length 8) and are applied atomically by the exporter
 * (odma_tp_region_atomic). CAS carries the expected value, then the new one; WATCH the
 * longest wait in ms, then the value the importer saw (its answer is held until the value
 * differs or the wait ends, then given as an AREAD's).
 *
 * Reply header (fixed 24 bytes): 0 magic "ODMR" | 4 version u16 | 6 op u8 | 7 flags u8 |
 *   8 request id u64 | 16 status i32 (a doca_error_t) | 20 length u32; payload: the bytes
 *   of a GET, the issued descriptor of an ATTACH, the u64 (LE) read or replaced by an AREAD,
 *   FADD or SWAP. Flags: zero, or ODMA_UCX_REPLY_TRAILER on a GET's reply of status
 *   DOCA_SUCCESS whose bytes were read from the region as they left (ucx_serve.c): its
 *   payload is the bytes, then a trailer of ODMA_UCX_TRAILER_LEN bytes, magic "ODMT" u32 |
 *   status i32, which says whether every byte was read (a region revoked or unmapped meanwhile
 *   fails the read, and its bytes are zeros); the length counts both.
 *
 * Replies to one importer made in one progress call of the exporter's worker may travel
 * together (ODMA_UCX_AM_REPLIES, one system call on TCP where each reply cost one): header 8
 * bytes, count u32 (2 to ODMA_UCX_REPLIES_MAX) | zero u32; payload: count times (a reply
 * header | its payload), at most ODMA_UCX_REPLIES_BYTES in all, nothing after the last.
 *
 * Likewise the requests an importer queued together for one exporter (ODMA_UCX_AM_REQS):
 * header count u32 (2 to ODMA_UCX_REQS_MAX) | zero u32; payload: count times (a request
 * header | its payload), each a GET, PUT, AREAD, FADD, SWAP or CAS (never an ATTACH or a
 * WATCH) of at most ODMA_UCX_REQS_ENTRY_MAX bytes with its header, at most
 * ODMA_UCX_REQS_BYTES in all, nothing after the last. A request's payload length follows
 * from its header (a PUT's length, an atomic's operands, none for a GET).
 */
#ifndef ODMA_CORE_TRANSPORT_UCX_WIRE_H_
#define ODMA_CORE_TRANSPORT_UCX_WIRE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#define ODMA_UCX_AM_REQ 11     /* importer -> exporter */
#define ODMA_UCX_AM_REPLY 12   /* exporter -> importer */
#define ODMA_UCX_AM_MSG 13     /* endpoint messages (send/receive with immediate) */
#define ODMA_UCX_AM_MSGS 14    /* a bundle of one endpoint's messages (below) */
#define ODMA_UCX_AM_CREDIT 15  /* an endpoint's credit report, or its request for one */
#define ODMA_UCX_AM_REPLIES 16 /* exporter -> importer: several replies (below) */
#define ODMA_UCX_AM_REQS 17    /* importer -> exporter: several requests (below) */
#define ODMA_UCX_AM_LAST ODMA_UCX_AM_REQS

#define ODMA_UCX_REQ_LEN 64
#define ODMA_UCX_REPLY_LEN 24
#define ODMA_UCX_REQ_TRAILER 0x01   /* request flag: the payload ends with a trailer */
#define ODMA_UCX_REPLY_TRAILER 0x01 /* reply flag: the payload ends with a trailer */
#define ODMA_UCX_TRAILER_LEN 8
#define ODMA_UCX_CHUNK_MAX (256u * 1024) /* largest GET/PUT one request carries */
#define ODMA_UCX_ATTACH_ADDR_MAX 512     /* an ATTACH's worker address (ODMA_TP_ADDR_MAX) */

enum odma_ucx_op {
	ODMA_UCX_OP_ATTACH = 1, /* check the region, reply with the issued descriptor */
	ODMA_UCX_OP_GET = 2,
	ODMA_UCX_OP_PUT = 3,
	ODMA_UCX_OP_AREAD = 4, /* atomic read of a u64 (READ) */
	ODMA_UCX_OP_FADD = 5,  /* fetch-add on a u64 (ATOMIC) */
	ODMA_UCX_OP_SWAP = 6,  /* swap of a u64 (ATOMIC) */
	ODMA_UCX_OP_CAS = 7,   /* compare-and-swap of a u64 (ATOMIC): compare, then swap value */
	ODMA_UCX_OP_WATCH = 8, /* the u64 once it differs from the one seen (READ, as AREAD) */
};

/* Whether @op is one of the atomic u64 requests. */
static inline bool odma_ucx_op_atomic(uint8_t op)
{
	return op >= ODMA_UCX_OP_AREAD && op <= ODMA_UCX_OP_WATCH;
}

/* The payload of atomic request @op: AREAD none, FADD and SWAP their operand, CAS and WATCH two. */
static inline size_t odma_ucx_atomic_payload(uint8_t op)
{
	return op == ODMA_UCX_OP_AREAD                            ? 0u
	       : op == ODMA_UCX_OP_CAS || op == ODMA_UCX_OP_WATCH ? 16u
	                                                          : 8u;
}

struct odma_ucx_req {
	uint8_t op; /* enum odma_ucx_op */
	uint8_t flags;
	uint64_t id;
	uint32_t region_id;
	uint32_t generation;
	uint8_t key[16];
	uint64_t addr;
	uint64_t len;
};

struct odma_ucx_reply {
	uint8_t op;
	uint64_t id;
	int32_t status;
	uint32_t len;
	uint8_t flags;
};

void odma_ucx_req_encode(const struct odma_ucx_req *q, uint8_t out[ODMA_UCX_REQ_LEN]);
void odma_ucx_reply_encode(const struct odma_ucx_reply *r, uint8_t out[ODMA_UCX_REPLY_LEN]);

/*
 * Pure decoder of a request header of @hdr_len bytes with a payload of @data_len bytes
 * (any bytes are safe). DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE with *@why set.
 */
doca_error_t odma_ucx_req_decode(const void *hdr, size_t hdr_len, size_t data_len,
                                 struct odma_ucx_req *q, const char **why);

/* A trailer saying @st into @out. */
void odma_ucx_trailer_encode(doca_error_t st, uint8_t out[ODMA_UCX_TRAILER_LEN]);
/* What trailer @p says (any bytes are safe): its status, DOCA_ERROR_IO_FAILED when malformed. */
doca_error_t odma_ucx_trailer_decode(const uint8_t p[ODMA_UCX_TRAILER_LEN]);

/* Pure decoder of a reply header; DOCA_SUCCESS or DOCA_ERROR_INVALID_VALUE. */
doca_error_t odma_ucx_reply_decode(const void *hdr, size_t hdr_len, size_t data_len,
                                   struct odma_ucx_reply *r);

/*
 * The header of every endpoint active message (ODMA_UCX_AM_MSG, _MSGS, _CREDIT), 16 bytes,
 * little-endian: 0 word u32 (MSG: the immediate; MSGS: the count; CREDIT: flags) | 4 zero u32
 * | 8 credit u64: the cost (transport.h, ODMA_TP_MSG_COST) of the messages of the receiver
 * that the sender has given back so far. A CREDIT carries no payload; its flag
 * ODMA_UCX_CREDIT_WANT says the sender waits for credit (report once some is given back).
 */
#define ODMA_UCX_EP_HDR 16
#define ODMA_UCX_CREDIT_WANT 1u

/* Writes an endpoint header into @h (ODMA_UCX_EP_HDR bytes). */
void odma_ucx_ep_hdr_put(uint8_t *h, uint32_t word, uint64_t credit);
/* Pure decoder of an endpoint header (any bytes are safe): false unless it is one. */
bool odma_ucx_ep_hdr_get(const void *h, size_t len, uint32_t *word, uint64_t *credit);

/*
 * A bundle (ODMA_UCX_AM_MSGS): messages one endpoint queued together, in their order, in one
 * active message (one system call on TCP where each message cost one). Header: the endpoint
 * header, its word the count (2 to ODMA_UCX_BUNDLE_MAX). Payload: count times (immediate u32 |
 * length u32 | the message's bytes), each message at most ODMA_UCX_BUNDLE_MSG_MAX bytes, the
 * whole at most ODMA_UCX_BUNDLE_BYTES, nothing after the last message. Little-endian.
 */
#define ODMA_UCX_BUNDLE_MAX 32
#define ODMA_UCX_BUNDLE_MSG_MAX 8192u
#define ODMA_UCX_BUNDLE_BYTES (64u * 1024)
#define ODMA_UCX_BUNDLE_SUB 8 /* a message's immediate and length */

/*
 * Pure check of a bundle (any bytes are safe): its count of messages (and *@credit, the
 * header's), or 0 with *@why set when it breaks a rule above (the receiver drops it whole: no
 * message of it is delivered).
 */
unsigned int odma_ucx_bundle_check(const void *hdr, size_t hdr_len, const void *data, size_t len,
                                   uint64_t *credit, const char **why);
/* The message at *@off of a checked bundle (its bytes; *@len, *@imm); advances *@off. */
const uint8_t *odma_ucx_bundle_next(const void *data, size_t *off, size_t *len, uint32_t *imm);

/*
 * A batch of replies fits one 64 KiB piece of UCX's TCP send buffer with its headers (UCX
 * packs every payload, ucx.c: none goes zero-copy). Until 2026-12-06 it stayed under 8,000
 * bytes, UCX's largest eager short send, to stay out of zero-copy sends.
 */
#define ODMA_UCX_REPLIES_HDR 8
#define ODMA_UCX_REPLIES_MAX 64
#define ODMA_UCX_REPLIES_BYTES (64u * 1024 - 64)

#define ODMA_UCX_REQS_HDR 8
#define ODMA_UCX_REQS_MAX 64
#define ODMA_UCX_REQS_ENTRY_MAX 8192u
#define ODMA_UCX_REQS_BYTES (64u * 1024)

/*
 * Pure check of a batch of requests (any bytes are safe): its count, or 0 with *@why set when
 * it breaks a rule above (the exporter drops it whole). Each request is still decoded and
 * checked on its own (odma_ucx_req_decode, odma_ucx_req_serve).
 */
unsigned int odma_ucx_reqs_check(const void *hdr, size_t hdr_len, const void *data, size_t len,
                                 const char **why);
/* The request at *@off of a checked batch: its header; its payload at *@payload, *@plen bytes. */
const uint8_t *odma_ucx_reqs_next(const void *data, size_t *off, const uint8_t **payload,
                                  size_t *plen);

/*
 * Pure check of a batch of replies (any bytes are safe): its count, or 0 with *@why set when
 * it breaks a rule above or a reply header is not one (the importer drops it whole).
 */
unsigned int odma_ucx_replies_check(const void *hdr, size_t hdr_len, const void *data, size_t len,
                                    const char **why);
/* The reply at *@off of a checked batch: decodes it into *@r, returns its payload, advances. */
const uint8_t *odma_ucx_replies_next(const void *data, size_t *off, struct odma_ucx_reply *r);

/*
 * The exporter's side of one decoded request, against its region records: checks range,
 * permission, liveness (odma_tp_region_check) and moves the bytes with fault-safe copies
 * (a range the application unmapped gives IO_FAILED, never a crash). GET: copies into
 * @out (room for q->len bytes); PUT: writes @data (q->len bytes) into the region; ATTACH:
 * copies the issued descriptor into @out (ODMA_TP_ISSUED_MAX bytes) and sets *@out_len;
 * AREAD/FADD/SWAP: applies the atomic (@data: the LE operand) and writes the old value (LE,
 * 8 bytes) into @out.
 * Returns the status the reply carries.
 */
doca_error_t odma_ucx_req_serve(const struct odma_ucx_req *q, const void *data, void *out,
                                size_t *out_len);

#endif /* ODMA_CORE_TRANSPORT_UCX_WIRE_H_ */
