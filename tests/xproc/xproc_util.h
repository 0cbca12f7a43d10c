/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Helpers shared by the two-process tests (test_xproc, test_xproc_faults, test_xproc_samples):
 * whole-buffer socket I/O, the forked exporter, and the checks around child processes
 * (test_dev.h opens the devices).
 */
#ifndef XPROC_UTIL_H_
#define XPROC_UTIL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <doca_dev.h>

#include "test_dev.h"

/* Reads (@wr false) or writes exactly @n bytes, retrying after EINTR; false on EOF or error. */
bool xu_full_io(int fd, void *p, size_t n, bool wr);

/*
 * A peer stops answering for @seconds as a hung process does (SIGSTOP); a child it forks first
 * sends SIGCONT then. Returns once it runs again.
 */
void xu_freeze(unsigned int seconds);

/*
 * A hand-made UCX importer's view of a batch of answers (the transport's ODMA_UCX_AM_REPLIES,
 * src/core/transport/ucx_wire.h): header count u32 LE | zero u32, then each answer's 24-byte
 * header and its payload. Calls @fn(@arg, header, payload, payload length) for each; asserts
 * the batch is well formed (the exporter is ours).
 */
typedef void xu_reply_fn(void *arg, const uint8_t *hdr, const uint8_t *payload, size_t len);
void xu_each_reply(const void *hdr, size_t hlen, const void *data, size_t len, xu_reply_fn *fn,
                   void *arg);

/* The bytes the exporter puts in its buffer: byte @i is (i * 7 + 3) mod 256. */
uint8_t xu_pattern(size_t i);

/*
 * Forks the exporter (host side, b1:00.0) over a socketpair; *fd gets this side's end.
 * The exporter fills @buf (@len bytes) with xu_pattern, maps it with @perms, exports it and
 * sends {descriptor length, buffer address} (two uint64_t) and the descriptor. Then it obeys
 * one-byte commands: 'R' send the buffer back; 'X' exit; 'S' destroy the mmap (revoke) and
 * echo 'S'; 'U' munmap the buffer, 'P' make it read-only (both leave the export standing;
 * the buffer must be a page-aligned mmap of whole pages) and echo; anything else is echoed. It
 * exits 0 when the socket closes. Returns the child's pid, or -1 when the socketpair or the fork
 * failed.
 */
pid_t xu_spawn_exporter(uint8_t *buf, size_t len, uint32_t perms, int *fd);

/* Whether the kernel lets this process process_vm_readv a child (no import works without). */
bool xu_kernel_allows(void);

/* Waits for child @pid and asserts (cmocka) that it exited with status 0. */
void xu_assert_child_ok(pid_t pid);

#endif /* XPROC_UTIL_H_ */
