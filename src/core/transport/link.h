/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Inside the UCX module only: the link, what carries the module's messages between
 * processes. ucx_req.c, ucx_serve.c and ucx_ep.c speak odma's protocol (requests, replies,
 * endpoint messages, credit: ucx_wire.h) over it and never ask which link runs.
 *
 * A link moves active messages: an id (ucx_wire.h's ODMA_UCX_AM_*), a header and a payload,
 * whole, in order per connection, to the handler the receiver registered for the id. A
 * connection is made to a peer's link address (what a descriptor carries) or to a socket
 * address a listener of the peer's accepted; a message arrives with the connection it came
 * on (its reply endpoint), which the receiver may send on. Every connection the module makes
 * has a peer error callback. Two links (link_tcp.c, the default; link_ucp.c), one picked per
 * process by ODMA_LINK (ucx.c, ucx_pick_link).
 *
 * Everything here runs on the thread that holds the worker (odma_ux.wlock), but for the
 * table's pick.
 */
#ifndef ODMA_CORE_TRANSPORT_LINK_H_
#define ODMA_CORE_TRANSPORT_LINK_H_

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

struct odma_lk_ep;       /* a connection to one peer */
struct odma_lk_listener; /* a listener on a socket address */
struct odma_lk_conn;     /* a connection a listener was asked for: accepted or rejected */

/* What a link operation returns: done, handed over (a callback follows), or failed (< 0). */
#define ODMA_LK_OK 0
#define ODMA_LK_INFLIGHT 1
/* A connection's failure: the peer did not prove the fabric secret (no UCX status is this). */
#define ODMA_LK_ERR_SECRET (-0x5ec)

/*
 * What a send carries after its header: @n pieces, @len bytes in all. The link reads it until
 * the send completes, so it lives in the sender's object (a reply, a request, a message).
 */
struct odma_ucx_out {
	const struct iovec *iov;
	size_t n, len;
	struct iovec one; /* the piece of a contiguous payload (odma_ucx_out_bytes) */
	/*
	 * When set, the payload is made as it leaves: @pack writes its bytes [@offset, @offset +
	 * @max) into @dest (only when the link packs, odma_lk_ops.packs; iov and n unused).
	 */
	void (*pack)(struct odma_ucx_out *o, size_t offset, void *dest, size_t max);
};

/* Sets @o to the @len bytes at @data. */
static inline void odma_ucx_out_bytes(struct odma_ucx_out *o, const void *data, size_t len)
{
	o->pack = NULL;
	o->one = (struct iovec){ (void *)data, len };
	o->iov = &o->one;
	o->n = len != 0;
	o->len = len;
}

/* Sets @o to the @n pieces at @iov. */
static inline void odma_ucx_out_iov(struct odma_ucx_out *o, const struct iovec *iov, size_t n)
{
	o->pack = NULL;
	o->iov = iov;
	o->n = n;
	o->len = 0;
	for (size_t i = 0; i < n; i++)
		o->len += iov[i].iov_len;
}

/* How a message arrived. */
struct odma_lk_rx {
	struct odma_lk_ep *reply_ep; /* the connection it came on; NULL: none given */
	/*
	 * the payload is still at the sender: @data is a descriptor for recv_data (UCP only); a
	 * handler that returns without calling recv_data drops it (the link releases it)
	 */
	bool rndv;
};

/* A message with id @id arrived; @data lives until the handler returns. */
typedef void odma_lk_am_fn(const void *hdr, size_t hlen, void *data, size_t len,
                           const struct odma_lk_rx *rx);
/* The connection made with @arg failed: @status says why (odma_lk_ops.strerror). */
typedef void odma_lk_err_fn(void *arg, int status);
/* A send handed over (ODMA_LK_INFLIGHT) ended: ODMA_LK_OK, or why not. */
typedef void odma_lk_sent_fn(void *arg, int status);
/* A rendezvous payload arrived (@len bytes), or failed. */
typedef void odma_lk_recv_fn(void *arg, int status, size_t len);
/* A connection nobody made (a peer's, accepted on the process's own address) is gone (@status). */
typedef void odma_lk_gone_fn(struct odma_lk_ep *ep, int status);
/* Listener @arg was asked for connection @c: accept it (ep_accept) or reject it, at once. */
typedef void odma_lk_conn_fn(struct odma_lk_conn *c, void *arg);

/*
 * Whether a message with header @hdr whose payload will be @len bytes may be read: asked once
 * the header and the payload's first @plen bytes (@head; ODMA_LK_ADMIT_HEAD, or the whole
 * payload when shorter) are in, before the link takes memory for the rest. False closes the
 * connection.
 */
typedef bool odma_lk_admit_fn(const void *hdr, size_t hlen, const void *head, size_t plen,
                              size_t len, const struct odma_lk_rx *rx);
#define ODMA_LK_ADMIT_HEAD 64u

/*
 * A message id's handler, and what the link lets in for it: a payload of at most @max_len
 * bytes (0: the link's own limit), and one larger than a connection's receive buffer only
 * once @admit (optional) said yes. The TCP link applies both before it keeps the payload; the
 * UCP link has UCX assemble it first, so there the handler's own checks are all there is.
 */
struct odma_lk_handler {
	unsigned int id;
	odma_lk_am_fn *fn;
	size_t max_len;
	odma_lk_admit_fn *admit;
};

/* The send asks for a reply endpoint at the receiver (requests, endpoint messages). */
#define ODMA_LK_SEND_REPLY 1u

struct odma_lk_ops {
	const char *name;
	/*
	 * Opens the link with the handlers @h[0..@n), @err (what the failure of a connection the
	 * module made calls, with the argument it was made with) and @gone (the end of one
	 * the module did not make, a reply endpoint): NULL, or why it cannot. Sets the address
	 * others reach this process at (at most ODMA_TP_ADDR_MAX bytes), the fd that is readable
	 * when there is work (the service thread sleeps on it), whether payloads are packed into
	 * the link's buffers as they leave (odma_ucx_out.pack may be used), and the bytes a GET or
	 * PUT request moves at most (*@cut, at most ODMA_UCX_CHUNK_MAX).
	 */
	const char *(*open)(const struct odma_lk_handler *h, unsigned int n, odma_lk_err_fn *err,
	                    odma_lk_gone_fn *gone, uint8_t *addr, uint16_t *alen, int *wake_fd,
	                    bool *packs, size_t *cut);
	/* After every connection and listener closed: frees the rest. */
	void (*close)(void);
	/* Does what arrived or may leave; how many events it handled. */
	unsigned int (*progress)(void);
	/* Before a sleep on the wake fd: false when there is work already (progress again). */
	bool (*arm)(void);
	/* A connection to the process at link address @addr. ODMA_LK_OK, or < 0. */
	int (*ep_to_addr)(const uint8_t *addr, size_t alen, void *arg, struct odma_lk_ep **ep);
	/* A connection to the listener at @sa. */
	int (*ep_to_sock)(const struct sockaddr_in *sa, void *arg, struct odma_lk_ep **ep);
	/* Accepts @c (inside the listener's callback only). */
	int (*ep_accept)(struct odma_lk_conn *c, void *arg, struct odma_lk_ep **ep);
	void (*reject)(struct odma_lk_listener *l, struct odma_lk_conn *c);
	/* Listens at @sa (port 0: the kernel's pick, returned in *@port). */
	int (*listen)(const struct sockaddr_in *sa, odma_lk_conn_fn *cb, void *arg,
	              struct odma_lk_listener **l, uint16_t *port);
	void (*listen_close)(struct odma_lk_listener *l);
	/*
	 * Sends message @am: @hdr (@hlen bytes; copied before it returns) and @o (read until the
	 * send ends). ODMA_LK_OK: sent; ODMA_LK_INFLIGHT: @done(@arg, status) follows; < 0:
	 * failed at once.
	 */
	int (*send)(struct odma_lk_ep *ep, unsigned int am, const void *hdr, size_t hlen,
	            const struct odma_ucx_out *o, unsigned int flags, odma_lk_sent_fn *done,
	            void *arg);
	/* Closes @ep, dropping what did not leave; @wait: until it is gone (at exit). */
	void (*ep_close)(struct odma_lk_ep *ep, bool wait);
	/* Starts a flush of @ep: a handle while what was sent still leaves, else NULL. */
	void *(*flush)(struct odma_lk_ep *ep);
	bool (*flush_busy)(void *f);
	void (*flush_free)(void *f);
	/* A rendezvous payload (@data of a handler whose rx.rndv is set) into @dest. */
	int (*recv_data)(void *data, void *dest, size_t len, odma_lk_recv_fn *done, void *arg);
	const char *(*strerror)(int status);
	/* One line for the transport's status (odma_tp_status). */
	const char *(*describe)(void);
};

extern const struct odma_lk_ops odma_lk_ucp; /* link_ucp.c: UCX's UCP */
extern const struct odma_lk_ops odma_lk_tcp; /* link_tcp.c: odma's own TCP */

#endif /* ODMA_CORE_TRANSPORT_LINK_H_ */
