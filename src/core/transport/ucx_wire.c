/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The UCX transport's wire format and the exporter's checks (ucx_wire.h). No UCX here:
 * built whether or not UCX is, so the fuzzer and the unit tests drive it directly.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/transport/tp_int.h"
#include "core/transport/ucx_wire.h"
#include "util/codec.h"

#define REQ_MAGIC 0x514d444fu     /* "ODMQ" */
#define REPLY_MAGIC 0x524d444fu   /* "ODMR" */
#define TRAILER_MAGIC 0x544d444fu /* "ODMT" */
#define WIRE_VERSION 1

/* The head requests and replies share: magic, version, op, flags and id; the rest is zeroed. */
static void head_put(uint8_t *out, size_t len, uint32_t magic, uint8_t op, uint8_t flags,
                     uint64_t id)
{
	memset(out, 0, len);
	odma_put_le(out, magic, 4);
	odma_put_le(out + 4, WIRE_VERSION, 2);
	out[6] = op;
	out[7] = flags;
	odma_put_le(out + 8, id, 8);
}

/* Whether the head at @b has @magic and this wire's version. */
static bool head_ok(const uint8_t *b, uint32_t magic)
{
	return odma_get_le(b, 4) == magic && odma_get_le(b + 4, 2) == WIRE_VERSION;
}

void odma_ucx_req_encode(const struct odma_ucx_req *q, uint8_t out[ODMA_UCX_REQ_LEN])
{
	head_put(out, ODMA_UCX_REQ_LEN, REQ_MAGIC, q->op, q->flags, q->id);
	odma_put_le(out + 16, q->region_id, 4);
	odma_put_le(out + 20, q->generation, 4);
	memcpy(out + 24, q->key, 16);
	odma_put_le(out + 40, q->addr, 8);
	odma_put_le(out + 48, q->len, 8);
}

void odma_ucx_reply_encode(const struct odma_ucx_reply *r, uint8_t out[ODMA_UCX_REPLY_LEN])
{
	head_put(out, ODMA_UCX_REPLY_LEN, REPLY_MAGIC, r->op, r->flags, r->id);
	odma_put_le(out + 16, (uint32_t)r->status, 4);
	odma_put_le(out + 20, r->len, 4);
}

void odma_ucx_trailer_encode(doca_error_t st, uint8_t out[ODMA_UCX_TRAILER_LEN])
{
	odma_put_le(out, TRAILER_MAGIC, 4);
	odma_put_le(out + 4, (uint32_t)st, 4);
}

doca_error_t odma_ucx_trailer_decode(const uint8_t p[ODMA_UCX_TRAILER_LEN])
{
	if (odma_get_le(p, 4) != TRAILER_MAGIC)
		return DOCA_ERROR_IO_FAILED;
	return (doca_error_t)(int32_t)(uint32_t)odma_get_le(p + 4, 4);
}

/* The op against its lengths: only a PUT carries a payload, of exactly its length. */
static const char *req_check_op(const struct odma_ucx_req *q, size_t data_len)
{
	switch (q->op) {
	case ODMA_UCX_OP_ATTACH:
		return q->len == 0 && data_len <= ODMA_UCX_ATTACH_ADDR_MAX
		               ? NULL
		               : "an attach request carries a length, or an address too long";
	case ODMA_UCX_OP_GET:
		if (data_len != 0)
			return "a get request carries a payload";
		break;
	case ODMA_UCX_OP_PUT:
		if (q->len > ODMA_UCX_CHUNK_MAX ||
		    data_len != q->len + (q->flags ? ODMA_UCX_TRAILER_LEN : 0))
			return "a put request's payload differs from its length";
		break;
	case ODMA_UCX_OP_AREAD:
	case ODMA_UCX_OP_FADD:
	case ODMA_UCX_OP_SWAP:
	case ODMA_UCX_OP_CAS:
	case ODMA_UCX_OP_WATCH:
		if (q->len != 8 || (q->addr & 7) != 0)
			return "an atomic request names no aligned 8-byte word";
		if (data_len != odma_ucx_atomic_payload(q->op))
			return "an atomic request's payload is not its 8-byte operands";
		return NULL;
	default:
		return "unknown request op";
	}
	if (q->len == 0 || q->len > ODMA_UCX_CHUNK_MAX)
		return "request length is 0 or above the chunk limit";
	if (q->addr + q->len < q->addr)
		return "request range wraps around";
	return NULL;
}

doca_error_t odma_ucx_req_decode(const void *hdr, size_t hdr_len, size_t data_len,
                                 struct odma_ucx_req *q, const char **why)
{
	const uint8_t *b = hdr;
	const char *bad = NULL;

	if (hdr == NULL || hdr_len != ODMA_UCX_REQ_LEN)
		bad = "request header has the wrong size";
	else if (!head_ok(b, REQ_MAGIC))
		bad = "not an odma request (magic or version)";
	else if ((b[7] != 0 && (b[7] != ODMA_UCX_REQ_TRAILER || b[6] != ODMA_UCX_OP_PUT)) ||
	         !odma_all_zero(b + 56, 8))
		bad = "request reserved bytes or flags are not zero";
	if (bad == NULL) {
		memset(q, 0, sizeof(*q));
		q->op = b[6];
		q->flags = b[7];
		q->id = odma_get_le(b + 8, 8);
		q->region_id = (uint32_t)odma_get_le(b + 16, 4);
		q->generation = (uint32_t)odma_get_le(b + 20, 4);
		memcpy(q->key, b + 24, 16);
		q->addr = odma_get_le(b + 40, 8);
		q->len = odma_get_le(b + 48, 8);
		bad = req_check_op(q, data_len);
	}
	if (bad != NULL) {
		*why = bad;
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

doca_error_t odma_ucx_reply_decode(const void *hdr, size_t hdr_len, size_t data_len,
                                   struct odma_ucx_reply *r)
{
	const uint8_t *b = hdr;

	if (hdr == NULL || hdr_len != ODMA_UCX_REPLY_LEN || !head_ok(b, REPLY_MAGIC))
		return DOCA_ERROR_INVALID_VALUE;
	r->op = b[6];
	r->flags = b[7];
	r->id = odma_get_le(b + 8, 8);
	r->status = (int32_t)(uint32_t)odma_get_le(b + 16, 4);
	r->len = (uint32_t)odma_get_le(b + 20, 4);
	if (r->flags != 0 && (r->flags != ODMA_UCX_REPLY_TRAILER || r->op != ODMA_UCX_OP_GET ||
	                      r->status != DOCA_SUCCESS || r->len < ODMA_UCX_TRAILER_LEN))
		return DOCA_ERROR_INVALID_VALUE;
	return r->len == data_len ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t odma_ucx_req_serve(const struct odma_ucx_req *q, const void *data, void *out,
                                size_t *out_len)
{
	uint32_t perm = q->op == ODMA_UCX_OP_PUT ? ODMA_TP_WRITE : ODMA_TP_READ;
	void *local = NULL;
	doca_error_t r;

	*out_len = 0;
	if (odma_ucx_op_atomic(q->op)) {
		/* CAS carries the expected value first, then the new one */
		bool cas = q->op == ODMA_UCX_OP_CAS;
		uint64_t old = 0, compare = cas ? odma_get_le(data, 8) : 0;
		bool read = q->op == ODMA_UCX_OP_AREAD || q->op == ODMA_UCX_OP_WATCH;
		uint64_t operand = read  ? 0
		                   : cas ? odma_get_le((const uint8_t *)data + 8, 8)
		                         : odma_get_le(data, 8);
		int op = read                        ? ODMA_TP_AT_READ
		         : q->op == ODMA_UCX_OP_FADD ? ODMA_TP_AT_FADD
		         : q->op == ODMA_UCX_OP_SWAP ? ODMA_TP_AT_SWAP
		                                     : ODMA_TP_AT_CAS;

		r = odma_tp_region_atomic(q->region_id, q->key, q->generation, q->addr, op, operand,
		                          compare, &old);
		if (r == DOCA_SUCCESS) {
			odma_put_le(out, old, 8);
			*out_len = 8;
		}
		return r;
	}
	if (q->op == ODMA_UCX_OP_ATTACH) {
		*out_len = odma_tp_region_issued(q->region_id, q->key, q->generation, out);
		return *out_len != 0 ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
	}
	r = odma_tp_region_check(q->region_id, q->key, q->generation, q->addr, q->len, perm,
	                         &local);
	if (r != DOCA_SUCCESS)
		return r;
	if (q->op == ODMA_UCX_OP_GET) {
		if (odma_tp_safe_copy(out, local, q->len) != 0)
			return DOCA_ERROR_IO_FAILED;
		*out_len = q->len;
		return DOCA_SUCCESS;
	}
	/* a trailer that does not say every byte was read: nothing is written */
	if (q->flags != 0 &&
	    (r = odma_ucx_trailer_decode((const uint8_t *)data + q->len)) != DOCA_SUCCESS)
		return r == DOCA_ERROR_INVALID_VALUE ? DOCA_ERROR_IO_FAILED : r;
	return odma_tp_safe_copy(local, data, q->len) == 0 ? DOCA_SUCCESS : DOCA_ERROR_IO_FAILED;
}

void odma_ucx_ep_hdr_put(uint8_t *h, uint32_t word, uint64_t credit)
{
	odma_put_le(h, word, 4);
	odma_put_le(h + 4, 0, 4);
	odma_put_le(h + 8, credit, 8);
}

bool odma_ucx_ep_hdr_get(const void *h, size_t len, uint32_t *word, uint64_t *credit)
{
	const uint8_t *b = h;

	if (len != ODMA_UCX_EP_HDR || odma_get_le(b + 4, 4) != 0)
		return false;
	*word = (uint32_t)odma_get_le(b, 4);
	*credit = odma_get_le(b + 8, 8);
	return true;
}

/*
 * Whether @len bytes at @b are exactly @count entries, each a header of @ehdr bytes and the
 * payload @payload(header, bytes left after it) gives (SIZE_MAX: the entry breaks a rule; it
 * never exceeds what is left); *@why says which rule broke when not.
 */
static bool batch_entries(const uint8_t *b, size_t len, uint32_t count, size_t ehdr,
                          size_t (*payload)(const uint8_t *e, size_t left), const char **why)
{
	size_t off = 0;

	for (uint32_t i = 0; i < count; i++) {
		size_t n;

		if (len - off < ehdr) {
			*why = "an entry's header past the end";
			return false;
		}
		n = payload(b + off, len - off - ehdr);
		if (n == SIZE_MAX) {
			*why = "an entry that breaks the bounds, or longer than what follows";
			return false;
		}
		off += ehdr + n;
	}
	if (off != len) {
		*why = "bytes after the last entry";
		return false;
	}
	return true;
}

/* A bundle entry's message length (imm u32 | length u32 header). */
static size_t bundle_payload(const uint8_t *e, size_t left)
{
	uint64_t n = odma_get_le(e + 4, 4);

	return n <= ODMA_UCX_BUNDLE_MSG_MAX && n <= left ? (size_t)n : SIZE_MAX;
}

unsigned int odma_ucx_bundle_check(const void *hdr, size_t hdr_len, const void *data, size_t len,
                                   uint64_t *credit, const char **why)
{
	uint32_t count;

	if (!odma_ucx_ep_hdr_get(hdr, hdr_len, &count, credit)) {
		*why = "a header other than count, zero and credit";
		return 0;
	}
	if (count < 2 || count > ODMA_UCX_BUNDLE_MAX || len > ODMA_UCX_BUNDLE_BYTES) {
		*why = "a count or a length past the bundle's bounds";
		return 0;
	}
	return batch_entries(data, len, count, ODMA_UCX_BUNDLE_SUB, bundle_payload, why) ? count
	                                                                                 : 0;
}

/* The payload length of request header @b in a batch; SIZE_MAX for an op a batch never holds. */
static size_t reqs_payload(const uint8_t *b)
{
	uint8_t op = b[6];
	uint64_t n = odma_get_le(b + 48, 8);

	if (op == ODMA_UCX_OP_GET)
		return 0;
	if (op == ODMA_UCX_OP_PUT)
		return n <= ODMA_UCX_REQS_ENTRY_MAX ? (size_t)n : SIZE_MAX;
	if (odma_ucx_op_atomic(op) && op != ODMA_UCX_OP_WATCH)
		return odma_ucx_atomic_payload(op);
	return SIZE_MAX;
}

/* A batched request's payload length, within the entry bound and what is left. */
static size_t reqs_entry_payload(const uint8_t *e, size_t left)
{
	size_t n = reqs_payload(e);

	return n <= left && ODMA_UCX_REQ_LEN + n <= ODMA_UCX_REQS_ENTRY_MAX ? n : SIZE_MAX;
}

/* A batched reply's payload length, when its header decodes and the payload is there. */
static size_t replies_entry_payload(const uint8_t *e, size_t left)
{
	struct odma_ucx_reply r;
	uint64_t n = odma_get_le(e + 20, 4);

	return n <= left && odma_ucx_reply_decode(e, ODMA_UCX_REPLY_LEN, n, &r) == DOCA_SUCCESS
	               ? (size_t)n
	               : SIZE_MAX;
}

/* The count of a batch of requests or replies: its 8-byte header, then its entries. */
static unsigned int batch_check(const void *hdr, size_t hdr_len, const void *data, size_t len,
                                uint32_t max, size_t bytes, size_t ehdr,
                                size_t (*payload)(const uint8_t *e, size_t left), const char **why)
{
	uint32_t count = 0;

	if (hdr != NULL && hdr_len == 8 && odma_get_le((const uint8_t *)hdr + 4, 4) == 0)
		count = (uint32_t)odma_get_le(hdr, 4);
	if (count < 2 || count > max || len > bytes) {
		*why = "a header, count or length past the batch's bounds";
		return 0;
	}
	return batch_entries(data, len, count, ehdr, payload, why) ? count : 0;
}

unsigned int odma_ucx_reqs_check(const void *hdr, size_t hdr_len, const void *data, size_t len,
                                 const char **why)
{
	return batch_check(hdr, hdr_len, data, len, ODMA_UCX_REQS_MAX, ODMA_UCX_REQS_BYTES,
	                   ODMA_UCX_REQ_LEN, reqs_entry_payload, why);
}

const uint8_t *odma_ucx_reqs_next(const void *data, size_t *off, const uint8_t **payload,
                                  size_t *plen)
{
	const uint8_t *b = (const uint8_t *)data + *off;

	*plen = reqs_payload(b);
	*payload = b + ODMA_UCX_REQ_LEN;
	*off += ODMA_UCX_REQ_LEN + *plen;
	return b;
}

unsigned int odma_ucx_replies_check(const void *hdr, size_t hdr_len, const void *data, size_t len,
                                    const char **why)
{
	return batch_check(hdr, hdr_len, data, len, ODMA_UCX_REPLIES_MAX, ODMA_UCX_REPLIES_BYTES,
	                   ODMA_UCX_REPLY_LEN, replies_entry_payload, why);
}

const uint8_t *odma_ucx_replies_next(const void *data, size_t *off, struct odma_ucx_reply *r)
{
	const uint8_t *b = (const uint8_t *)data + *off;

	(void)odma_ucx_reply_decode(b, ODMA_UCX_REPLY_LEN, odma_get_le(b + 20, 4), r);
	*off += ODMA_UCX_REPLY_LEN + r->len;
	return b + ODMA_UCX_REPLY_LEN;
}

const uint8_t *odma_ucx_bundle_next(const void *data, size_t *off, size_t *len, uint32_t *imm)
{
	const uint8_t *b = (const uint8_t *)data + *off;

	*imm = (uint32_t)odma_get_le(b, 4);
	*len = (size_t)odma_get_le(b + 4, 4);
	*off += ODMA_UCX_BUNDLE_SUB + *len;
	return b + ODMA_UCX_BUNDLE_SUB;
}
