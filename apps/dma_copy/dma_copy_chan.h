/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * doca_dma_copy's control channel: whole messages (dma_copy_proto.h) between the DPU side
 * (a DOCA Comch server) and one host side (a Comch client), as NVIDIA's DMA Copy
 * application uses them. What the rest of the application relies on:
 *
 *  - messages arrive whole and in order, or the call fails (CONNECTION_RESET when the peer
 *    is gone, INVALID_VALUE for a malformed message);
 *  - every wait is bounded: dc_chan_recv gives up after the timeout (TIME_OUT);
 *  - a vanished peer never kills this process and is reported by the next call, after the
 *    messages it sent before it left;
 *  - the server serves one client: a client that connects and stays silent past the
 *    timeout is dropped before it counts, and extra clients are answered X_BUSY and dropped;
 *  - the server never takes over a server name another server is using on the same
 *    representor (Comch refuses it).
 */
#ifndef DMA_COPY_CHAN_H_
#define DMA_COPY_CHAN_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_error.h>

struct dc_chan;
struct doca_dev;

/*
 * Server: a Comch server named @name on DPU device @dev, for the host function whose
 * representor has PCI address @rep_pci (NULL: the device's first network representor).
 * Errors are logged.
 */
doca_error_t dc_chan_listen(struct doca_dev *dev, const char *rep_pci, const char *name,
                            struct dc_chan **srv);

/*
 * Server: waits (without limit) for a client that sends its first message within
 * @timeout_ms (<= 0: no limit). Clients that leave without a word are dropped quietly,
 * silent ones after the timeout with a warning; then it waits for the next.
 */
doca_error_t dc_chan_accept(struct dc_chan *srv, int timeout_ms);

/*
 * Client: connects to the server @name through host device @dev, waiting at most
 * @timeout_ms (<= 0: Comch's own limit). NOT_CONNECTED (logged) when no server answers.
 */
doca_error_t dc_chan_connect(struct doca_dev *dev, const char *name, int timeout_ms,
                             struct dc_chan **cli);

/* Sends one message (its first 4 bytes are the type). CONNECTION_RESET when the peer is
 * gone (not logged: the caller knows what was lost). */
doca_error_t dc_chan_send(struct dc_chan *c, const void *msg, uint32_t len);

/*
 * Receives one message into @msg (at most @max bytes); *@len gets its length. Waits at most
 * @timeout_ms (<= 0: no limit). A server meanwhile answers extra clients X_BUSY. Returns
 * SUCCESS; TIME_OUT; CONNECTION_RESET (peer gone); IN_USE (client only: the server answered
 * X_BUSY); INVALID_VALUE (a message too long or too short, logged).
 */
doca_error_t dc_chan_recv(struct dc_chan *c, void *msg, uint32_t max, uint32_t *len,
                          int timeout_ms);

/* Whether the peer speaks only NVIDIA's protocol (set once the DIRECTIONs are known). */
void dc_chan_set_nvidia(struct dc_chan *c, bool nvidia);
bool dc_chan_nvidia(const struct dc_chan *c);

/*
 * Closes. A server first waits up to @linger_ms for its client to disconnect (NVIDIA's
 * host closes after the last STATUS); both then stop their Comch context.
 */
void dc_chan_close(struct dc_chan *c, int linger_ms);

#endif
