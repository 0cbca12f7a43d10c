/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * A fault-injecting transport for tests: a row of the transport table (transport.h) that wraps
 * another row and does to its ios what a bad network does. Built into the tests only; a test
 * puts it first in the table (odma_tp_row_insert), so every import it reaches goes through it.
 */
#ifndef ODMA_TESTS_TP_FAULT_H_
#define ODMA_TESTS_TP_FAULT_H_

#include "core/transport/transport.h"

enum tp_fault_mode {
	TPF_PASS,    /* ios go through unchanged */
	TPF_DELAY,   /* each io completes delay_ms after the wrapped row finished it */
	TPF_REORDER, /* ios are held and completed newest first, window at a time */
	TPF_DROP,    /* ios are lost: never started; they fail at the transport's deadline */
	TPF_KILL,    /* the peer died: held ios and every later io fail with IO_FAILED */
	/*
	 * The peer stopped reading: an endpoint's sends never complete; each one's done runs at the
	 * endpoint's close (IO_FAILED). Ios and arrivals pass.
	 */
	TPF_STALL,
	/*
	 * Two paths of different latency: arrivals on the endpoints this process dialed (connect)
	 * are held delay_ms (0: until the mode changes), in order, their close behind them; those
	 * on accepted endpoints, and ios, pass at once. What one endpoint carried later overtakes
	 * what a dialed one carried earlier, as nothing orders two connections on a network.
	 */
	TPF_SKEW,
};

/*
 * The row wrapping @inner, reporting @kind as its id: as ODMA_TP_UCX a row without iov_move
 * (core/memory moves its imports with the asynchronous network mover), as ODMA_TP_PROCESS
 * one with it (the batching mover) that shares @inner's kernel.
 */
const struct odma_tp_ops *tp_fault_row(const struct odma_tp_ops *inner, enum odma_tp_kind kind);

/*
 * The same row as a network row (@inner: the loaded UCX row) that also carries endpoints: each
 * endpoint made through it (listen, connect) wraps one of @inner's, and the mode applies to
 * what arrives on it (tp_fault.c says how). A test inserts it first: odma_tp_listen and
 * odma_tp_connect, DOCA RDMA's and Comch's among them, then go through it.
 */
const struct odma_tp_ops *tp_fault_net_row(const struct odma_tp_ops *inner);

/*
 * Sets the mode (KILL also fails every io held now, and reports on_close with
 * DOCA_ERROR_IO_FAILED on every endpoint, from the calling thread); @arg: delay_ms or the
 * reorder window.
 */
void tp_fault_set(enum tp_fault_mode mode, unsigned int arg);

/* ios started through the row and not completed yet (0 when nothing leaked or hangs). */
unsigned int tp_fault_in_flight(void);
/* ios completed, and how many of them failed. */
unsigned int tp_fault_completed(unsigned int *failed);

/*
 * Endpoint arrivals passed on at once (the return value), held and delivered later (*@held),
 * lost (*@dropped); sends failed because the endpoint was killed (*@failed_sends).
 */
unsigned int tp_fault_msgs(unsigned int *held, unsigned int *dropped, unsigned int *failed_sends);

/* Stops the row's thread (every held io completes first). */
void tp_fault_stop(void);

#endif
