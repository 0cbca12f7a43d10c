/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The Comch wire format: the packets a client and a server exchange, on a SOCK_SEQPACKET
 * Unix socket in the runtime directory (one packet per message, fds by SCM_RIGHTS) or, across
 * machines, as messages of a transport endpoint (core/transport, UCX; the packet type is the
 * message's immediate value, the payload starts with the 32-bit argument). Everything here
 * arrives from another process and is validated before use (docs/reliability.md).
 * Part of the Comch module: included through comch/comch.h.
 */
#ifndef ODMA_COMCH_WIRE_H_
#define ODMA_COMCH_WIRE_H_

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <doca_dev.h>

#define COMCH_WIRE_MAGIC 0x314843414d444f4full /* "ODMACHC1" little endian */
#define COMCH_WIRE_VERSION 1u

enum comch_wire_type {
	COMCH_W_HELLO = 1, /* client -> server: struct comch_hello + name; fd: link page */
	COMCH_W_WELCOME,   /* server -> client: struct comch_welcome */
	COMCH_W_REJECT,    /* server -> client: arg = doca_error_t, payload = reason text */
	COMCH_W_MSG,       /* a program message */
	COMCH_W_BYE,       /* orderly disconnect */
	COMCH_W_CONS_NEW,  /* arg = consumer id, struct comch_cons_new; fd: the ring */
	COMCH_W_CONS_ACK,  /* arg = consumer id, payload: uint32_t accepted */
	COMCH_W_CONS_GONE, /* arg = consumer id */
	/* across machines only (comch/net.c): a Unix socket needs none of these */
	COMCH_W_PING,    /* "are you there": answered by the peer's transport thread */
	COMCH_W_PONG,    /* the answer */
	COMCH_W_CREDIT,  /* payload: uint64_t messages this side delivered (never goes back) */
	COMCH_W_FP_POST, /* consumer side -> producer side: arg = consumer id, comch_fp_post */
	COMCH_W_FP_DATA, /* producer side -> consumer side: arg = consumer id, comch_fp_data +
	                  * imm_len immediate bytes + len data bytes */
	COMCH_W_AUTH,    /* the fabric secret's challenge (fabric_auth.c): arg = step 1, 2 or 3 */
};

struct comch_wire_hdr {
	uint32_t type;
	uint32_t arg;
};

struct comch_hello {
	uint64_t magic;
	uint32_t version;
	uint32_t max_msg;
	uint32_t recv_queue;
	uint32_t name_len; /* bytes of name after the struct, no NUL */
	uint64_t system_id;
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE]; /* the client's device */
};

struct comch_welcome {
	uint64_t magic;
	uint32_t version;
	uint32_t max_msg;
	uint32_t recv_queue;
	uint32_t pad;
};

struct comch_cons_new {
	uint32_t nslots;
	uint32_t slot_size;
	uint32_t imm_len;
	uint32_t pad;
	uint64_t ring_size;
};

/*
 * The fast path across machines: the consumer's side announces each posted buffer (its post
 * sequence number and free bytes; never its address) and the producer's side keeps a shadow
 * ring of them, so producers claim exactly as on one kernel; the bytes then travel in an
 * FP_DATA for the claimed sequence number and land in the consumer's buffer there.
 */
struct comch_fp_post {
	uint64_t seq;
	uint64_t room;
};

struct comch_fp_data {
	uint64_t seq;
	uint64_t len;
	uint32_t producer_id;
	uint32_t imm_len;
};

/*
 * These structs are the wire format as they are (comch/net.c sends them between machines, an
 * x86-64 host and an aarch64 DPU among them): fixed-width fields in the byte order and natural
 * alignment that every little-endian LP64 ABI shares. A target where that does not hold fails
 * here, at build time, instead of speaking a different wire.
 */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "the Comch wire is little-endian: encode it explicitly for this target");
_Static_assert(sizeof(struct comch_wire_hdr) == 8, "Comch wire: header layout");
_Static_assert(offsetof(struct comch_hello, system_id) == 24 &&
                       offsetof(struct comch_hello, pci) == 32,
               "Comch wire: HELLO layout");
_Static_assert(sizeof(struct comch_welcome) == 24, "Comch wire: WELCOME layout");
_Static_assert(sizeof(struct comch_cons_new) == 24, "Comch wire: CONS_NEW layout");
_Static_assert(sizeof(struct comch_fp_post) == 16, "Comch wire: FP_POST layout");
_Static_assert(sizeof(struct comch_fp_data) == 24, "Comch wire: FP_DATA layout");

/* The page shared by both sides of a connection (created by the client). */
#define COMCH_LINK_BYTES 4096u
#define COMCH_LINK_MAGIC 0x4b4e494c48434d4full /* "OMCHLINK" */
enum { COMCH_SIDE_CLIENT = 0, COMCH_SIDE_SERVER = 1 };
struct comch_link {
	uint64_t magic;
	uint64_t pad[7];
	_Alignas(64) _Atomic uint64_t delivered[2]; /* messages side i handed to its program */
};

/* ---- one packet on a Unix socket (transport.c) ---- */

/*
 * Sends one packet (header + payload, optional fd) without blocking. Returns 0, or the
 * errno (EAGAIN: the socket is full; anything else: the connection is broken).
 */
int comch_wire_send(int fd, uint32_t type, uint32_t arg, const void *payload, size_t len,
                    int pass_fd);

/*
 * Receives one packet into @buf (@cap bytes) without blocking. Returns the packet length
 * (>= 8 with a valid header), 0 at end of stream (or for a packet of no bytes), -EAGAIN when
 * nothing waits, -EMSGSIZE for a packet longer than @cap, -EPROTO for a runt, or -errno.
 * *@fd_out gets a fd passed with a packet it returns (or -1; extra fds, and those of a packet
 * it does not return, are closed).
 */
ssize_t comch_wire_recv(int fd, void *buf, size_t cap, int *fd_out);

#endif /* ODMA_COMCH_WIRE_H_ */
