/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The fault guard: a local copy never kills the process. doca_mmap_start checks that a
 * range is mapped with the access its permissions need, but a program may unmap or
 * mprotect the memory afterwards (hardware keeps registered pages pinned; odma cannot). A
 * SIGSEGV or SIGBUS raised on a thread while it runs a guarded copy jumps back to the
 * copy, which fails with DOCA_ERROR_IO_FAILED; any other SIGSEGV/SIGBUS goes to the
 * handler that was installed before ours (or the default action, which then kills the
 * process with the original signal, as without odma).
 *
 * The handler is installed once, by the first doca_pe_create (or the transport's first
 * access to application memory, guard_tp_run), unless ODMA_COPY_GUARD=0. A
 * program that installs its own SIGSEGV/SIGBUS handler later replaces ours; its copies then
 * fault as they would without the guard. Cost on the fast path: a sigsetjmp without the signal mask
 * and two stores to a thread-local pointer per copy; the fault path unblocks the signal again.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "core/config/config.h"
#include "core/copy/mover.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(ODMA_GUARD)

__thread struct odma_guard *odma_guard_cur __attribute__((tls_model("initial-exec")));

bool odma_guard_on;

static struct sigaction guard_old_segv, guard_old_bus;
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;
static doca_error_t guard_status;

/* Not ours: hand the signal to whoever had it before. */
static void guard_chain(int sig, siginfo_t *si, void *uc)
{
	const struct sigaction *old = sig == SIGSEGV ? &guard_old_segv : &guard_old_bus;

	if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction != NULL) {
		old->sa_sigaction(sig, si, uc);
		return;
	}
	if (!(old->sa_flags & SA_SIGINFO) && old->sa_handler != SIG_DFL &&
	    old->sa_handler != SIG_IGN) {
		old->sa_handler(sig);
		return;
	}
	/* default action: a real fault repeats on return and kills; a sent signal is raised */
	signal(sig, SIG_DFL);
	if (si->si_code <= 0)
		raise(sig);
}

static void guard_handler(int sig, siginfo_t *si, void *uc)
{
	struct odma_guard *g = odma_guard_cur;

	if (g != NULL && si->si_code > 0) {
		odma_guard_cur = NULL;
		g->sig = sig;
		g->addr = si->si_addr;
		siglongjmp(g->env, 1);
	}
	guard_chain(sig, si, uc);
}

static void guard_install(void)
{
	struct sigaction sa;
	uint64_t on;

	guard_status = odma_config_size("ODMA_COPY_GUARD", 1, &on);
	if (guard_status != DOCA_SUCCESS || on == 0)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = guard_handler;
	/*
	 * The kernel blocks the signal while the handler runs; the jump out keeps it blocked
	 * (sigsetjmp saves no mask, to stay cheap), so odma_guard_fault unblocks it. (SA_NODEFER
	 * would not do: ThreadSanitizer runs the handler from its own, which defers.)
	 */
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &guard_old_segv) == 0 &&
	    sigaction(SIGBUS, &sa, &guard_old_bus) == 0)
		odma_guard_on = true;
	else
		ODMA_WARN("cannot install the copy fault guard; a copy from or into memory that "
		          "was unmapped after doca_mmap_start will crash the process");
}

doca_error_t odma_copy_init(void)
{
	doca_error_t r = odma_copy_stream_init();

	pthread_once(&guard_once, guard_install);
	return r != DOCA_SUCCESS ? r : guard_status;
}

doca_error_t odma_guard_fault(const struct odma_guard *g)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGSEGV);
	sigaddset(&set, SIGBUS);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	ODMA_RATELIMITED_WARN("a task's access to program memory hit %s at %p: the memory of a "
	                      "started mmap was unmapped or protected; the task fails with "
	                      "DOCA_ERROR_IO_FAILED. Keep an mmap's range mapped (and writable for "
	                      "a destination) until it is stopped",
	                      g->sig == SIGBUS ? "SIGBUS" : "SIGSEGV", g->addr);
	return DOCA_ERROR_IO_FAILED;
}

/*
 * The transport's fault guard (odma_tp_set_guard): what serves a peer's access to application
 * memory (copies, atomics) runs under it, also in a process that never creates a PE (an
 * exporter), so the first such access installs the guard. ENOSYS when the guard is off: the
 * transport then copies with process_vm_readv.
 */
static int guard_tp_run(void (*fn)(void *arg), void *arg)
{
	struct odma_guard g;

	pthread_once(&guard_once, guard_install);
	if (!odma_guard_on)
		return ENOSYS;
	if (sigsetjmp(g.env, 0) != 0) {
		(void)odma_guard_fault(&g);
		return EFAULT;
	}
	odma_guard_enter(&g);
	fn(arg);
	odma_guard_leave();
	return 0;
}

__attribute__((constructor)) static void guard_give_transport(void)
{
	odma_tp_set_guard(guard_tp_run);
}

doca_error_t odma_guarded_memmove(void *dst, const void *src, size_t n)
{
	struct odma_guard g;

	if (!odma_guard_on) {
		memmove(dst, src, n);
		return DOCA_SUCCESS;
	}
	if (sigsetjmp(g.env, 0) != 0)
		return odma_guard_fault(&g);
	odma_guard_enter(&g);
	memmove(dst, src, n);
	odma_guard_leave();
	return DOCA_SUCCESS;
}

doca_error_t doca_priv_copy_guarded(void (*fn)(void *arg), void *arg)
{
	int err = guard_tp_run(fn, arg);

	if (err == ENOSYS) { /* the guard is off */
		fn(arg);
		return DOCA_SUCCESS;
	}
	return err == 0 ? DOCA_SUCCESS : DOCA_ERROR_IO_FAILED;
}
