/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * A peer of our own that speaks odma's TCP link by hand (src/core/transport/link_tcp.c: frames,
 * the handshake; ucx_wire.h: requests), against an exporter forked by xu_spawn_exporter.
 * Used by test_ucx_stranger.c (strangers) and test_tcp_importer.c (importers that proved the
 * fabric secret). Failures are cmocka assertions.
 */
#ifndef ODMA_TESTS_LK_PEER_H
#define ODMA_TESTS_LK_PEER_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define LK_LEN (1u << 20) /* the export's length */

struct lk_exporter {
	pid_t pid;
	int fd; /* the exporter's control socket (xproc_util.h) */
	uint8_t *buf;
	uint64_t base;
	struct sockaddr_in sa; /* its link address */
	uint64_t instance;
	/* the export, from its descriptor */
	uint32_t region, gen;
	uint8_t key[16];
};

/* A forked exporter of LK_LEN bytes with @perms (DOCA_ACCESS_FLAG_*); exits 77 (a skip) when it
 * does not run odma's TCP link. */
void lk_exporter_start(struct lk_exporter *e, uint32_t perms);
/* The exporter lives, gives its owner the bytes it exported, and exits cleanly. */
void lk_exporter_check(struct lk_exporter *e);

/* A connection to the exporter's link address (3 s receive timeout). */
int lk_connect(const struct lk_exporter *e);
/* Sends a frame: its head (@id, @hlen, @len as given), then @n bytes of @body. */
void lk_frame(int fd, unsigned int id, size_t hlen, uint32_t len, const void *body, size_t n);
/* Whether the exporter closed @fd (within 3 s), whatever it sent before; closes @fd. */
bool lk_closed(int fd);
/* The dialer's handshake for @instance: a PROOF with the secret when @secret, else of zeros.
 * Whether a CHALLENGE came. */
bool lk_handshake(int fd, uint64_t instance, bool secret);

/* A listener of ours on loopback; its link address for instance @instance into @addr (20 B). */
int lk_listener(uint8_t addr[20], uint64_t instance);
/* Accepts on @l a connection the exporter makes and answers its handshake with the secret. */
int lk_accept(int l);
/* A request header (64 bytes) for the export: @op, @id, @addr, @len (ucx_wire.h). */
void lk_req(const struct lk_exporter *e, uint8_t out[64], uint8_t op, uint64_t id, uint64_t addr,
            uint64_t len);
/* ATTACH on @fd naming worker address @addr (20 B); the exporter's answer comes on a connection
 * it makes to @l, returned (its reply read: status DOCA_SUCCESS). */
int lk_attach(const struct lk_exporter *e, int fd, int l, const uint8_t addr[20], uint64_t id);

#endif
