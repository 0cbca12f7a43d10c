/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The process transport: another process of this kernel and PID namespace, reached with
 * process_vm_readv / process_vm_writev (CMA). The exporter's region record is read
 * remotely (its address is in the descriptor) at attach and, by core/copy's batching
 * mover, before every move. The only place that knows the system calls, their ptrace
 * rule and how to explain an EPERM.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/log/log.h"
#include "core/transport/tp_int.h"
#include "util/codec.h"

ODMA_LOG_REGISTER(ODMA_XPROC)

#define CMA_PIPE_CHUNK 4096u

/* One system call of process_vm_readv/writev; as the kernel returns it. */
static ssize_t cma_call(pid_t pid, bool write, const struct iovec *l, unsigned long nl,
                        const struct iovec *r, unsigned long nr)
{
	return write ? process_vm_writev(pid, l, nl, r, nr, 0)
	             : process_vm_readv(pid, l, nl, r, nr, 0);
}

/* Drops @k bytes from the front of an iovec array. */
static void iov_advance(struct iovec **v, int *n, size_t k)
{
	while (*n > 0 && k >= (*v)->iov_len) {
		k -= (*v)->iov_len;
		(*v)++;
		(*n)--;
	}
	if (*n > 0) {
		(*v)->iov_base = (uint8_t *)(*v)->iov_base + k;
		(*v)->iov_len -= k;
	}
}

/* Moves @n bytes from @src to @dst through pipe @p: a side that is not mapped gives EFAULT. */
static int pipe_move(const int p[2], void *dst, const void *src, size_t n)
{
	ssize_t w = write(p[1], src, n), k;
	size_t got = 0;

	if (w <= 0)
		return w < 0 && errno != EINTR ? errno : EFAULT;
	while (got < (size_t)w) {
		k = read(p[0], (uint8_t *)dst + got, (size_t)w - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? errno : EFAULT;
		got += (size_t)k;
	}
	return got == n ? 0 : EFAULT;
}

int odma_cma_pipe_xfer(bool write, struct iovec *l, int nl, struct iovec *r, int nr)
{
	int p[2], err = 0;

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0)
		return errno;
	iov_advance(&l, &nl, 0);
	iov_advance(&r, &nr, 0);
	while (err == 0 && nl > 0 && nr > 0) {
		size_t n = l->iov_len < r->iov_len ? l->iov_len : r->iov_len;

		n = n < CMA_PIPE_CHUNK ? n : CMA_PIPE_CHUNK; /* a pipe always takes one page */
		err = write ? pipe_move(p, r->iov_base, l->iov_base, n)
		            : pipe_move(p, l->iov_base, r->iov_base, n);
		iov_advance(&l, &nl, n);
		iov_advance(&r, &nr, n);
	}
	close(p[0]);
	close(p[1]);
	return err;
}

int odma_cma_xfer(pid_t pid, bool write, struct iovec *l, int nl, struct iovec *r, int nr)
{
	iov_advance(&l, &nl, 0);
	iov_advance(&r, &nr, 0);
	while (nl > 0 && nr > 0) {
		ssize_t k = cma_call(pid, write, l, (unsigned long)nl, r, (unsigned long)nr);

		if (k < 0 && errno == EINTR)
			continue;
		/* No CMA (qemu-user, seccomp, a kernel without it): this process' own memory
		 * still moves fault-safe, through a pipe. */
		if (k < 0 && errno == ENOSYS && pid == getpid())
			return odma_cma_pipe_xfer(write, l, nl, r, nr);
		if (k <= 0)
			return k < 0 ? errno : EFAULT;
		iov_advance(&l, &nl, (size_t)k);
		iov_advance(&r, &nr, (size_t)k);
	}
	return 0;
}

const char *odma_cma_enosys_fix(void)
{
	return "process_vm_readv/writev are not implemented here (ENOSYS: an emulator such as "
	       "qemu-user, a seccomp filter, or a kernel built without "
	       "CONFIG_CROSS_MEMORY_ATTACH), and reaching another process' memory needs them. "
	       "Fix: the UCX transport (ODMA_TRANSPORT=ucx, docs/host-dpu.md) moves the bytes "
	       "through its exporter instead";
}

const char *odma_cma_eperm_fix(void)
{
	return "process_vm_readv/writev need ptrace rights over the other process. "
	       "Causes: Yama /proc/sys/kernel/yama/ptrace_scope above 0, "
	       "or the two processes run as different users. "
	       "Fixes: run both as the same user (an exporter calls prctl(PR_SET_PTRACER_ANY)), "
	       "set ptrace_scope to 0, or give the importer CAP_SYS_PTRACE";
}

/* Logs why a move with exporter @rm failed (@err: an errno, 0 for a revoked export), once. */
static doca_error_t cma_fail(const struct odma_tp_remote *rm, int err)
{
	if (err == 0 || err == ESRCH) /* revoked, or the exporter exited: for good */
		atomic_store(&((struct odma_tp_remote *)rm)->gone, true);
	/* The fatal path flushes the rest; one line per lost import is enough. */
	if (atomic_exchange(&((struct odma_tp_remote *)rm)->failed, true))
		return DOCA_ERROR_IO_FAILED;
	if (err == EPERM || err == EACCES)
		ODMA_ERR("the kernel refused access to the memory of exporter pid %d (%s): %s",
		         (int)rm->pid, strerror(err), odma_cma_eperm_fix());
	else if (err == ESRCH)
		ODMA_ERR("exporter pid %d has exited; its exported memory is gone", (int)rm->pid);
	else if (err == ENOSYS)
		ODMA_ERR("moving bytes with exporter pid %d failed: %s", (int)rm->pid,
		         odma_cma_enosys_fix());
	else if (err == 0)
		ODMA_ERR("the export of pid %d was revoked (the exporter stopped or destroyed its "
		         "mmap); export again",
		         (int)rm->pid);
	else
		ODMA_ERR("moving bytes with exporter pid %d failed: %s (its exported range, or "
		         "the local range, is no longer mapped as the copy needs)",
		         (int)rm->pid, strerror(err));
	return DOCA_ERROR_IO_FAILED;
}

static void cma_set_ptracer(void)
{
	/* Best effort: without Yama the call fails with EINVAL and nothing is needed. */
	(void)prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
}

void odma_cma_allow_peers(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, cma_set_ptracer);
}

static doca_error_t process_reach_self(struct odma_tp_reach *r)
{
	(void)r; /* pid, namespace and boot id are filled by the generic part */
	return DOCA_SUCCESS;
}

static void process_region_added(struct odma_tp_region *reg)
{
	(void)reg;
	/* Under Yama ptrace_scope=1 only an ancestor may read us; an importer rarely is one. */
	odma_cma_allow_peers();
}

/* Reads the exporter's record named by @r; fails when it cannot be read or is none. */
static doca_error_t process_read_record(const struct odma_tp_reach *r, struct odma_tp_region *s)
{
	struct iovec l = { s, sizeof(*s) };
	struct iovec rv = { (void *)(uintptr_t)r->record_addr, sizeof(*s) };
	int err;

	memset(s, 0, sizeof(*s));
	err = odma_cma_xfer((pid_t)r->pid, false, &l, 1, &rv, 1);
	if (err == EPERM || err == EACCES) {
		ODMA_ERR("the kernel refused reading the export record of pid %u (%s): "
		         "importing needs them. %s",
		         r->pid, strerror(err), odma_cma_eperm_fix());
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (err == ESRCH) {
		ODMA_ERR("rejected descriptor of pid %u: the exporting process no longer runs "
		         "(stale descriptor); export again",
		         r->pid);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (err == ENOSYS) {
		ODMA_ERR("cannot read the export record of pid %u: %s", r->pid,
		         odma_cma_enosys_fix());
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (err != 0 || s->hdr.magic != ODMA_TP_REGION_MAGIC) {
		ODMA_ERR(
		        "rejected descriptor of pid %u: no export record at 0x%llx in the exporter "
		        "(forged or corrupted descriptor)",
		        r->pid, (unsigned long long)r->record_addr);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

/*
 * Maps the in-flight word of the exporter's record @s (read at @r's record address) into
 * rm->priv: every move raises it, so that a revocation waits for the moves in flight.
 */
static doca_error_t process_map_gate(const struct odma_tp_reach *r, const struct odma_tp_region *s,
                                     struct odma_tp_remote *rm)
{
	rm->priv = odma_tp_gate_map(r->pid, s->gate_fd, s->gate_slot);
	if (rm->priv != NULL)
		return DOCA_SUCCESS;
	if (errno == EACCES || errno == EPERM) {
		ODMA_ERR("the kernel refused opening the export gate of pid %u (%s): importing "
		         "needs it. %s",
		         r->pid, strerror(errno), odma_cma_eperm_fix());
		return DOCA_ERROR_NOT_PERMITTED;
	}
	ODMA_ERR("rejected descriptor of pid %u: the export gate its record names cannot be "
	         "mapped (%s: a forged descriptor, an exporter of another odma version, or out "
	         "of memory); export and import with the same version",
	         r->pid, strerror(errno));
	return DOCA_ERROR_INVALID_VALUE;
}

static doca_error_t process_attach(const struct odma_tp_reach *r, struct odma_tp_remote *rm,
                                   uint8_t *issued, size_t *issued_len)
{
	static struct odma_tp_region s; /* 800 bytes: not on an application's small stack */
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	doca_error_t err;

	pthread_mutex_lock(&lock);
	err = process_read_record(r, &s);
	if (err == DOCA_SUCCESS) {
		if (s.hdr.generation > r->generation ||
		    (s.hdr.generation == r->generation && s.hdr.alive != 1)) {
			ODMA_ERR("rejected descriptor of pid %u: the export was revoked (the "
			         "exporter stopped or destroyed its mmap); export again",
			         r->pid);
			err = DOCA_ERROR_INVALID_VALUE;
		} else if (s.hdr.generation < r->generation) {
			ODMA_ERR("rejected descriptor of pid %u: it names export generation %u, "
			         "which its exporter never issued (forged descriptor)",
			         r->pid, r->generation);
			err = DOCA_ERROR_INVALID_VALUE;
		} else {
			*issued_len = s.issued_len <= ODMA_TP_ISSUED_MAX ? s.issued_len : 0;
			memcpy(issued, s.issued, *issued_len);
			err = process_map_gate(r, &s, rm);
		}
	}
	pthread_mutex_unlock(&lock);
	return err;
}

static void process_detach(struct odma_tp_remote *rm)
{
	odma_tp_gate_unmap(rm->priv);
	rm->priv = NULL;
}

/* Around each move with @rm: the exporter's revocation waits for what runs in between. */
static void process_iov_enter(const struct odma_tp_remote *rm)
{
	odma_tp_gate_enter(rm->priv);
}

static void process_iov_leave(const struct odma_tp_remote *rm)
{
	odma_tp_gate_leave(rm->priv);
}

/*
 * One call of the batching mover: process_vm_readv/writev; without them (ENOSYS), this
 * process' own memory still moves fault-safe, through a pipe (on copies: the call may change
 * the iovecs it is given, the op's may not).
 */
static ssize_t process_iov_move(const struct odma_tp_remote *rm, bool write, const struct iovec *l,
                                unsigned long nl, const struct iovec *r, unsigned long nr)
{
	ssize_t k = cma_call((pid_t)rm->pid, write, l, nl, r, nr);
	struct iovec *lc, *rc;
	size_t total = 0;
	int err;

	if (k >= 0 || errno != ENOSYS || (pid_t)rm->pid != getpid())
		return k;
	lc = malloc((nl + nr) * sizeof(*lc));
	if (lc == NULL)
		return -1; /* errno ENOMEM */
	rc = lc + nl;
	memcpy(lc, l, nl * sizeof(*l));
	memcpy(rc, r, nr * sizeof(*r));
	for (unsigned long i = 0; i < nl; i++)
		total += l[i].iov_len;
	err = odma_cma_pipe_xfer(write, lc, (int)nl, rc, (int)nr);
	free(lc);
	if (err != 0) {
		errno = err;
		return -1;
	}
	return (ssize_t)total;
}

/* One io, synchronously: CMA needs no thread; done runs before the return. */
static doca_error_t process_io_start(struct odma_tp_io *io)
{
	struct odma_tp_remote *rm = io->remote;
	struct odma_tp_region_hdr rec;
	struct iovec rl = { &rec, sizeof(rec) },
	             rr = { (void *)(uintptr_t)rm->record_addr, sizeof(rec) };
	struct iovec l = { io->local, io->len },
	             r = { (void *)(uintptr_t)io->remote_addr, io->len };
	int err;

	if (io->atomic != ODMA_TP_IO_BYTES)
		return DOCA_ERROR_NOT_SUPPORTED; /* CMA copies bytes: no atomic at the exporter */
	process_iov_enter(rm);
	err = odma_cma_xfer((pid_t)rm->pid, false, &rl, 1, &rr, 1);
	if (err == 0 && odma_tp_record_ok(rm, &rec))
		err = odma_cma_xfer((pid_t)rm->pid, io->write, &l, 1, &r, 1);
	else if (err == 0)
		err = -1;
	process_iov_leave(rm);
	io->done(io, err == 0 ? DOCA_SUCCESS : cma_fail(rm, err < 0 ? 0 : err));
	return DOCA_SUCCESS;
}

static bool process_reachable(const struct odma_tp_reach *r, const char **why)
{
	*why = "it runs in another kernel or PID namespace "
	       "(process_vm_readv reaches this one only)";
	return odma_tp_same_kernel(r);
}

static const char *process_status(void)
{
	return "built in (process_vm_readv/writev: one kernel and PID namespace)";
}

const struct odma_tp_ops odma_tp_row_process = {
	.name = "process",
	.kind = ODMA_TP_PROCESS,
	.same_kernel = true,
	.reachable = process_reachable,
	.status = process_status,
	.reach_self = process_reach_self,
	.region_added = process_region_added,
	.attach = process_attach,
	.detach = process_detach,
	.io_start = process_io_start,
	.iov_move = process_iov_move,
	.iov_enter = process_iov_enter,
	.iov_leave = process_iov_leave,
	.io_fail = cma_fail,
};
