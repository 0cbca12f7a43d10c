/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The UCX transport, exporter side: each request an importer sends is decoded and checked
 * against the region records (ucx_wire.c) before a byte moves, and answered on the endpoint
 * it came from. A request without a reply endpoint, or malformed beyond its id, is dropped
 * (the importer's deadline fails it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config/config.h"
#include "core/log/log.h"
#include "core/transport/ucx_int.h"

ODMA_LOG_REGISTER(ODMA_UCX)

struct ucx_reply {
	uint8_t hdr[ODMA_UCX_REPLY_LEN];
	size_t len;
	uint8_t data[];
};

static void reply_cb(void *request, ucs_status_t status, void *user_data)
{
	(void)status;
	free(user_data);
	ucp_request_free(request);
}

static void ucx_reply(ucp_ep_h ep, struct ucx_reply *rp)
{
	ucp_request_param_t prm = { 0 };
	void *r;

	prm.op_attr_mask =
	        UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
	prm.cb.send = reply_cb;
	prm.user_data = rp;
	prm.flags = UCP_AM_SEND_FLAG_EAGER;
	r = ucp_am_send_nbx(ep, ODMA_UCX_AM_REPLY, rp->hdr, sizeof(rp->hdr),
	                    rp->len ? rp->data : NULL, rp->len, &prm);
	if (!UCS_PTR_IS_PTR(r))
		free(rp);
}

ucs_status_t odma_ucx_req_am(void *arg, const void *header, size_t header_length, void *data,
                             size_t length, const ucp_am_recv_param_t *param)
{
	struct odma_ucx_req q;
	struct odma_ucx_reply rh = { 0 };
	struct ucx_reply *rp;
	const char *why = NULL;
	size_t room;

	(void)arg;
	if (!(param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP))
		return UCS_OK; /* no one to answer: a hostile or broken peer */
	if ((param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) ||
	    odma_ucx_req_decode(header, header_length, length, &q, &why) != DOCA_SUCCESS) {
		ODMA_RATELIMITED_WARN("UCX transport: refused a malformed request from a peer: %s",
		                      why ? why : "rendezvous payload");
		if (header_length < 16)
			return UCS_OK;
		memset(&q, 0, sizeof(q));
		memcpy(&q.id, (const uint8_t *)header + 8, 8);
		q.op = 0;
		rh.status = DOCA_ERROR_INVALID_VALUE;
		room = 0;
	} else {
		room = q.op == ODMA_UCX_OP_GET      ? q.len
		       : q.op == ODMA_UCX_OP_ATTACH ? ODMA_TP_ISSUED_MAX
		       : odma_ucx_op_atomic(q.op)   ? 8
		                                    : 0;
	}
	rp = malloc(sizeof(*rp) + room);
	if (rp == NULL)
		return UCS_OK; /* the importer times out */
	rp->len = 0;
	if (q.op != 0)
		rh.status = odma_ucx_req_serve(&q, data, rp->data, &rp->len);
	if (rh.status != DOCA_SUCCESS)
		rp->len = 0;
	rh.op = q.op;
	rh.id = q.id;
	rh.len = (uint32_t)rp->len;
	odma_ucx_reply_encode(&rh, rp->hdr);
	ucx_reply(param->reply_ep, rp);
	return UCS_OK;
}
