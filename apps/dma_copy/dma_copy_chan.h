/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * doca_dma_copy's control channel: whole messages between the DPU side (server) and one
 * host side (client). Today a Unix stream socket (dma_copy_chan.c); DOCA Comch can replace
 * it behind the same calls. What the rest of the application relies on, and a replacement
 * must keep:
 *
 *  - messages arrive whole and in order, or the call fails (CONNECTION_RESET when the peer
 *    is gone, INVALID_VALUE for a malformed message);
 *  - every wait is bounded: dc_chan_recv gives up after the timeout (TIME_OUT);
 *  - a vanished peer never kills this process (no SIGPIPE) and is reported by the next call;
 *  - the server serves one client: a client that connects and stays silent past the
 *    timeout is dropped before it counts, and extra clients are answered BUSY and closed;
 *  - the server never takes over an endpoint another server is using, and never removes
 *    anything it did not create; what it created is removed at close and, through
 *    dc_cleanup_set (dma_copy.h), when the process dies of SIGINT/SIGTERM/SIGHUP.
 */
#ifndef DMA_COPY_CHAN_H_
#define DMA_COPY_CHAN_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_error.h>

struct dc_chan;

/*
 * Server: claims the endpoint @name (a socket path). Refuses an empty name, a path that
 * exists and is not a socket, and a socket some server still listens on; a socket nobody
 * listens on (left by a dead server) is replaced. Errors are logged.
 */
doca_error_t dc_chan_listen(const char *name, struct dc_chan **srv);

/*
 * Server: waits (without limit) for a client that sends its first message within
 * @timeout_ms (<= 0: no limit). Clients that close without a word are dropped quietly, silent
 * ones after the timeout with a warning; then it waits for the next. INTERRUPTED never: a
 * signal ends the process.
 */
doca_error_t dc_chan_accept(struct dc_chan *srv, int timeout_ms);

/* Client: connects to the server at @name. NOT_CONNECTED (logged) when nobody listens. */
doca_error_t dc_chan_connect(const char *name, struct dc_chan **cli);

/* Sends one message. CONNECTION_RESET when the peer is gone (not logged: the caller knows
 * what was lost). */
doca_error_t dc_chan_send(struct dc_chan *c, uint16_t type, const void *payload, uint32_t len);

/*
 * Receives one message into @payload (at most @max bytes); *@type and *@len get its type
 * and length. Waits at most @timeout_ms (<= 0: no limit). A server meanwhile answers extra
 * clients with BUSY. Returns SUCCESS; TIME_OUT; CONNECTION_RESET (peer gone); IN_USE (the
 * server answered BUSY); INVALID_VALUE (malformed message, logged); IO_FAILED (logged).
 */
doca_error_t dc_chan_recv(struct dc_chan *c, uint16_t *type, void *payload, uint32_t max,
                          uint32_t *len, int timeout_ms);

/* Closes; a server answers waiting clients BUSY and removes the endpoint it created. */
void dc_chan_close(struct dc_chan *c);

#endif
