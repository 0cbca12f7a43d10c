/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The shared page of a sync event: creation by the owner, import by the other side,
 * revocation, futex wake-ups for blocked threads, and eventfd wake-ups for progress
 * engines with waiting tasks (in this process or, through pidfd_getfd, in another).
 * No thread polls anything: a waiter sleeps in the kernel until an update wakes it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>

#include "core/log/log.h"
#include "core/memory/memory.h"
#include "core/sync_event/se_int.h"
#include "util/codec.h"

ODMA_LOG_REGISTER(DOCA_SYNC_EVENT)

#define LIVE_CHECK_NS (10 * 1000 * 1000ull) /* importer: exporter liveness at most every 10 ms */
#define SE_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) /* every page carries them */

/*
 * The other side opens our page through /proc/<pid>/fd and, to wake a waiting progress
 * engine, takes a copy of its eventfd with pidfd_getfd: both need ptrace rights, which
 * Yama ptrace_scope=1 grants only to ancestors. Same policy as mmap exports.
 */
void se_allow_peers(void)
{
	odma_cma_allow_peers(); /* core/transport owns the ptrace policy */
}

/* Whether @pid runs (not a zombie) and started at @start. */
static bool se_proc_alive(pid_t pid, uint64_t start)
{
	uint64_t st;
	char state;

	if (!odma_proc_stat(pid, &state, &st))
		return false;
	return state != '\0' && state != 'Z' && state != 'X' && state != 'x' && st == start;
}

doca_error_t se_page_create(struct doca_sync_event *se)
{
	struct se_page *pg;
	int fd;

	fd = memfd_create("odma-sync-event", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		ODMA_ERR("sync event %p: memfd_create failed: %s", (void *)se, strerror(errno));
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	/* sealed: no importer can shrink the page under our mapping (SIGBUS) */
	if (ftruncate(fd, SE_PAGE_SIZE) != 0 || fcntl(fd, F_ADD_SEALS, SE_SEALS) != 0) {
		ODMA_ERR("sync event %p: sizing or sealing its page failed: %s", (void *)se,
		         strerror(errno));
		close(fd);
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	pg = mmap(NULL, SE_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pg == MAP_FAILED) {
		ODMA_ERR("sync event %p: mmap of its page failed: %s", (void *)se, strerror(errno));
		close(fd);
		return DOCA_ERROR_NO_MEMORY;
	}
	if (getrandom(pg->key, sizeof(pg->key), 0) != (ssize_t)sizeof(pg->key) ||
	    !odma_proc_start_time(getpid(), &pg->owner_start)) {
		ODMA_ERR("sync event %p: getrandom or /proc/self/stat failed", (void *)se);
		munmap(pg, SE_PAGE_SIZE);
		close(fd);
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	pg->key[0] |= 1; /* never all zero */
	pg->owner_pid = (uint32_t)getpid();
	pg->magic = SE_PAGE_MAGIC;
	memcpy(se->key, pg->key, sizeof(se->key));
	se->owner_start = pg->owner_start;
	se->page = pg;
	se->memfd = fd;
	se->value = se->user_addr != NULL ? se->user_addr : &pg->value;
	return DOCA_SUCCESS;
}

void se_page_revoke(struct doca_sync_event *se)
{
	if (se->page == NULL)
		return;
	se_net_revoke(se); /* no remote atomic touches the page from here on */
	__atomic_store_n(&se->page->revoked, 1, __ATOMIC_SEQ_CST);
	se_notify(se);
	munmap(se->page, SE_PAGE_SIZE);
	close(se->memfd);
	se->page = NULL;
	se->memfd = -1;
	se->value = NULL;
}

/* Why the exporter's descriptor could not be looked at or opened (errno @err). */
static const char *se_open_why(int err)
{
	if (err == ENOENT)
		return "the exporter stopped or destroyed the event (stale export)";
	if (err == EACCES || err == EPERM)
		return "the kernel refused access to the exporter (it needs ptrace rights, see "
		       "core/transport: run both sides as the same user; Yama ptrace_scope 2/3 or "
		       "another user needs CAP_SYS_PTRACE)";
	return "the exporter's event page cannot be opened";
}

/* Whether @path, a /proc/<pid>/fd/<n> link, names a memfd: 1, 0, or -1 unread (errno). */
static int se_fd_is_memfd(const char *path)
{
	char link[64];
	ssize_t n = readlink(path, link, sizeof(link));

	if (n <= 0)
		return -1;
	return n >= 7 && memcmp(link, "/memfd:", 7) == 0;
}

/*
 * Opens the exporter's event page (a memfd only) through /proc once its process is seen alive,
 * and checks that the page is sealed against resizing and one page long: the descriptor (its
 * file in *@st), or -1 with *why.
 */
static int se_page_open(const struct odma_se_blob *b, struct stat *st, const char **why)
{
	char path[64];
	int fd, seals, memfd;

	if (!se_proc_alive((pid_t)b->pid, b->start_time)) {
		*why = "the exporting process does not run here: it exited (stale export), or it "
		       "runs in another PID namespace or machine (export with ODMA_FABRIC set, "
		       "the same on both sides)";
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%u/fd/%u", b->pid, b->fd);
	/*
	 * What the descriptor is, before it is opened: a forged blob may name any descriptor of a
	 * process we may trace, and opening a device, a FIFO or a FUSE file has effects of its own
	 * (or waits on the file's server). Only a memfd is opened, without waiting.
	 */
	memfd = se_fd_is_memfd(path);
	if (memfd == 0) {
		*why = "the export does not name a sync event page (stale or forged export)";
		return -1;
	}
	fd = memfd > 0 ? open(path, O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK) : -1;
	if (fd < 0) {
		*why = se_open_why(errno);
		return -1;
	}
	/* sealed first: then the size checked below is the size for good */
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || (seals & SE_SEALS) != SE_SEALS) {
		close(fd);
		*why = "the exporter's event page is not sealed against resizing (a forged export, "
		       "or an exporter of an older odma: export and import with the same version)";
		return -1;
	}
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode) || st->st_size != SE_PAGE_SIZE) {
		close(fd);
		*why = "the export does not name a sync event page (stale export)";
		return -1;
	}
	return fd;
}

/*
 * Gives @se the checked page @pg (file @st), and watches its exporter's exit through a pidfd.
 */
static void se_page_adopt(struct doca_sync_event *se, struct se_page *pg,
                          const struct odma_se_blob *b, const struct stat *st)
{
	se_allow_peers();
	se->page = pg;
	se->value = &pg->value;
	se->peer_pid = (pid_t)b->pid;
	se->peer_start = b->start_time;
	se->peer_fd = b->fd;
	se->page_dev = st->st_dev;
	se->page_ino = st->st_ino;
	/* its exit makes this readable (se_arm watches it); checked alive after the open */
	se->peer_pidfd = (int)syscall(SYS_pidfd_open, se->peer_pid, 0);
	if (se->peer_pidfd >= 0 && !se_proc_alive(se->peer_pid, se->peer_start)) {
		close(se->peer_pidfd);
		se->peer_pidfd = -1; /* the next liveness check says it */
	}
}

doca_error_t se_page_import(struct doca_sync_event *se, const struct odma_se_blob *b,
                            const uint8_t *data, size_t sz, bool *taken, const char **why)
{
	struct se_page *pg;
	struct stat st;
	int fd;

	(void)data; /* the page itself says whether the export is current */
	(void)sz;
	fd = se_page_open(b, &st, why);
	if (fd < 0)
		return DOCA_ERROR_INVALID_VALUE;
	pg = mmap(NULL, SE_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (pg == MAP_FAILED) {
		*why = "the exporter's event page cannot be mapped";
		return DOCA_ERROR_NO_MEMORY;
	}
	if (pg->magic != SE_PAGE_MAGIC || !odma_key_eq(pg->key, b->key, sizeof(pg->key)) ||
	    pg->owner_pid != b->pid || pg->owner_start != b->start_time) {
		munmap(pg, SE_PAGE_SIZE);
		*why = "the export does not match the exporter's event (stale or forged export)";
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (__atomic_load_n(&pg->revoked, __ATOMIC_SEQ_CST)) {
		munmap(pg, SE_PAGE_SIZE);
		*why = "the exporter stopped or destroyed the event (stale export)";
		return DOCA_ERROR_INVALID_VALUE;
	}
	se_page_adopt(se, pg, b, &st);
	*taken = true;
	return DOCA_SUCCESS;
}

void se_page_unmap(struct doca_sync_event *se)
{
	if (se->peer_pidfd >= 0)
		close(se->peer_pidfd);
	se->peer_pidfd = -1;
	if (se->page != NULL)
		munmap(se->page, SE_PAGE_SIZE);
	se->page = NULL;
	se->value = NULL;
}

/*
 * Whether the exporter still holds the page we mapped, under the descriptor its export named:
 * a process that ran another program (exec) closed it, its event is gone. Only a memfd is
 * looked at (a stat of a FUSE file would wait on its server), as at the import.
 */
static bool se_page_held(const struct doca_sync_event *se)
{
	char path[64];
	struct stat st;
	int memfd;

	snprintf(path, sizeof(path), "/proc/%d/fd/%u", (int)se->peer_pid, se->peer_fd);
	memfd = se_fd_is_memfd(path);
	/* only a descriptor that is not there says it: one we may not look at (the exporter
	 * made itself non-dumpable) is taken as held */
	if (memfd < 0 || (memfd > 0 && stat(path, &st) != 0))
		return errno != ENOENT;
	return memfd > 0 && st.st_dev == se->page_dev && st.st_ino == se->page_ino;
}

/* How the exporter is gone for good, or NULL while it runs and holds the page. */
static const char *se_exporter_lost(const struct doca_sync_event *se)
{
	if (se->peer_pidfd >= 0) {
		struct pollfd p = { .fd = se->peer_pidfd, .events = POLLIN };

		if (poll(&p, 1, 0) != 0)
			return "exited"; /* a pidfd is readable once its process exited */
	} else if (!se_proc_alive(se->peer_pid, se->peer_start)) {
		return "exited";
	}
	return se_page_held(se) ? NULL
	                        : "no longer holds the event's page (it ran another program)";
}

bool se_page_gone(struct doca_sync_event *se, bool now)
{
	const char *what;
	uint64_t t;

	if (__atomic_load_n(&se->peer_gone, __ATOMIC_SEQ_CST))
		return true;
	if (__atomic_load_n(&se->page->revoked, __ATOMIC_SEQ_CST)) {
		se_mark_gone(se, "stopped or destroyed the event");
		return true;
	}
	t = doca_priv_now_ns();
	if (!now && t < se->next_live_check_ns)
		return false;
	se->next_live_check_ns = t + LIVE_CHECK_NS;
	what = se_exporter_lost(se);
	if (what == NULL)
		return false;
	se_mark_gone(se, what);
	return true;
}

static long se_futex(uint32_t *word, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, word, op, val, ts, NULL, 0);
}

void se_futex_wait(uint32_t *word, uint32_t old, uint64_t timeout_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(timeout_ns / 1000000000ull),
		.tv_nsec = (long)(timeout_ns % 1000000000ull),
	};

	/* Shared mapping: not FUTEX_PRIVATE. EAGAIN (changed), EINTR, ETIMEDOUT: re-check. */
	(void)se_futex(word, FUTEX_WAIT, old, timeout_ns ? &ts : NULL);
}

/* After a failed @call (pidfd_open, pidfd_getfd): once per process, that the kernel lacks it. */
static void se_warn_no_pidfd(const char *call)
{
	static int warned;

	if (errno == ENOSYS && !__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
		ODMA_WARN(
		        "this kernel has no %s: a progress engine of another process waiting on a "
		        "sync event sees updates at its next doca_pe_progress, not through its "
		        "notification handle",
		        call);
}

/* Writes one to an eventfd of another process (pidfd_getfd, Linux 5.6+). */
static void se_signal_remote(const struct se_slot *s, pid_t pid, int32_t fd)
{
	uint64_t one = 1;
	int pfd, efd;

	/* the slot is the peer's to write: take no copy of anything but an eventfd */
	if (!doca_priv_fd_is_eventfd((int)pid, (int)fd))
		return;

	pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pfd < 0) {
		se_warn_no_pidfd("pidfd_open");
		return;
	}
	/* the pid could have been reused between the table read and pidfd_open */
	if (!se_proc_alive(pid, s->start_time)) {
		close(pfd);
		return;
	}
	efd = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
	close(pfd);
	if (efd < 0) {
		se_warn_no_pidfd("pidfd_getfd");
		return;
	}
	/* never write into anything but an eventfd (a closed and reused number) */
	if (doca_priv_fd_is_eventfd(0, efd) && write(efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		ODMA_DBG("eventfd write to pid %d failed: %s", (int)pid, strerror(errno));
	close(efd);
}

/*
 * The wake-up eventfds this process put in slots (one entry per descriptor, counted by the
 * slots naming it). A slot naming this process is honoured only for a descriptor listed
 * here that still is the file registered: the page is writable by the other side, and
 * an unchecked slot would make us write 8 bytes into any descriptor it names.
 */
struct se_wake_fd {
	int fd;
	uint32_t refs;
	dev_t dev;
	ino_t ino;
};

static pthread_mutex_t wake_lock = PTHREAD_MUTEX_INITIALIZER;
static struct se_wake_fd *wake_fds;
static uint32_t num_wake_fds, cap_wake_fds;

static struct se_wake_fd *se_wake_find(int fd)
{
	for (uint32_t i = 0; i < num_wake_fds; i++)
		if (wake_fds[i].fd == fd)
			return &wake_fds[i];
	return NULL;
}

static bool se_wake_register(int fd)
{
	struct se_wake_fd *w;
	struct stat st;
	bool ok = true;

	if (fstat(fd, &st) != 0)
		return false;
	pthread_mutex_lock(&wake_lock);
	w = se_wake_find(fd);
	if (w != NULL && (w->dev != st.st_dev || w->ino != st.st_ino)) {
		w->dev = st.st_dev; /* a stale entry (closed without release): the new file */
		w->ino = st.st_ino;
	}
	if (w == NULL && num_wake_fds == cap_wake_fds) {
		uint32_t cap = cap_wake_fds ? cap_wake_fds * 2 : 8;
		struct se_wake_fd *n = realloc(wake_fds, cap * sizeof(*n));

		if (n == NULL) {
			ok = false;
		} else {
			wake_fds = n;
			cap_wake_fds = cap;
		}
	}
	if (ok && w == NULL) {
		w = &wake_fds[num_wake_fds++];
		*w = (struct se_wake_fd){ .fd = fd, .dev = st.st_dev, .ino = st.st_ino };
	}
	if (ok)
		w->refs++;
	pthread_mutex_unlock(&wake_lock);
	return ok;
}

static void se_wake_unregister(int fd)
{
	struct se_wake_fd *w;

	pthread_mutex_lock(&wake_lock);
	w = se_wake_find(fd);
	if (w != NULL && --w->refs == 0)
		*w = wake_fds[--num_wake_fds];
	if (num_wake_fds == 0) {
		free(wake_fds);
		wake_fds = NULL;
		cap_wake_fds = 0;
	}
	pthread_mutex_unlock(&wake_lock);
}

/* Wakes @fd if it is a wake-up eventfd this process registered, and still that file; false
 * if not. The check and the write hold wake_lock: a context unregisters its eventfd (under the
 * lock) before it closes it, so the number cannot be reused by another file in between. */
static bool se_wake_write(int fd)
{
	struct se_wake_fd *w;
	struct stat st;
	uint64_t one = 1;
	bool ok;

	if (fd < 0)
		return false;
	pthread_mutex_lock(&wake_lock);
	w = se_wake_find(fd);
	ok = w != NULL && fstat(fd, &st) == 0 && w->dev == st.st_dev && w->ino == st.st_ino;
	/* EAGAIN: the counter is already non-zero, readable anyway */
	if (ok && write(fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		ODMA_DBG("eventfd write failed: %s", strerror(errno));
	pthread_mutex_unlock(&wake_lock);
	return ok;
}

static void se_signal(struct doca_sync_event *se, int i, const struct se_slot *s)
{
	uint32_t pid = __atomic_load_n(&s->pid, __ATOMIC_ACQUIRE);
	int32_t fd = __atomic_load_n(&s->fd, __ATOMIC_RELAXED);

	if (pid == 0)
		return;
	if ((pid_t)pid == getpid()) {
		if (!se_wake_write(fd) &&
		    !__atomic_exchange_n(&se->forged_warned, true, __ATOMIC_RELAXED))
			ODMA_WARN("sync event %p: wake-up slot %d of its shared page names "
			          "descriptor %d of this process, which is no sync event wake-up "
			          "eventfd here: a process that can write the page forged it; not "
			          "writing to it (logged once per event)",
			          (void *)se, i, (int)fd);
		return;
	}
	se_signal_remote(s, (pid_t)pid, fd);
}

void se_notify(struct doca_sync_event *se)
{
	struct se_page *pg = se->page;
	uint32_t armed;

	__atomic_add_fetch(&pg->seq, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&pg->sleepers, __ATOMIC_SEQ_CST) != 0)
		(void)se_futex(&pg->seq, FUTEX_WAKE, INT_MAX, NULL);
	armed = __atomic_load_n(&pg->armed, __ATOMIC_SEQ_CST);
	while (armed != 0) {
		uint32_t bit = armed & (0u - armed);
		int i = __builtin_ctz(armed);

		armed &= ~bit;
		if (__atomic_fetch_and(&pg->armed, ~bit, __ATOMIC_SEQ_CST) & bit)
			se_signal(se, i, &pg->slots[i]);
	}
	se_net_changed(se);
}

/* Frees slots whose process is gone (a waiter that died without stopping). */
static void se_slot_reap(struct se_page *pg)
{
	for (int i = 0; i < SE_SLOTS; i++) {
		struct se_slot *s = &pg->slots[i];
		uint32_t pid = __atomic_load_n(&s->pid, __ATOMIC_ACQUIRE);

		if (pid == 0 || se_proc_alive((pid_t)pid, s->start_time))
			continue;
		if (__atomic_compare_exchange_n(&s->pid, &pid, 0, false, __ATOMIC_SEQ_CST,
		                                __ATOMIC_RELAXED)) {
			__atomic_fetch_and(&pg->armed, ~(1u << i), __ATOMIC_SEQ_CST);
			__atomic_fetch_and(&pg->claimed, ~(1u << i), __ATOMIC_SEQ_CST);
		}
	}
}

bool se_slot_claim(struct doca_sync_event *se, int efd)
{
	struct se_page *pg = se->page;
	uint64_t my_start;

	if (se->slot >= 0)
		return true;
	if (!odma_proc_start_time(getpid(), &my_start) || !se_wake_register(efd))
		return false;
	for (int pass = 0; pass < 2; pass++) {
		/* one fetch-or per slot, at most SE_SLOTS: no compare-and-swap loop that the other
		 * side could keep failing by rewriting the word */
		for (int i = 0; i < SE_SLOTS; i++) {
			if (__atomic_fetch_or(&pg->claimed, 1u << i, __ATOMIC_SEQ_CST) & (1u << i))
				continue; /* taken */
			pg->slots[i].fd = efd;
			pg->slots[i].start_time = my_start;
			__atomic_store_n(&pg->slots[i].pid, (uint32_t)getpid(), __ATOMIC_RELEASE);
			se->slot = i;
			se->slot_efd = efd;
			se_allow_peers();
			return true;
		}
		se_slot_reap(pg);
	}
	se_wake_unregister(efd);
	/* each waiting task asks again: a peer that fills the slots gets a burst of lines */
	ODMA_RATELIMITED_WARN("sync event %p: all %d wake-up slots of its page are taken; "
	                      "its waiting tasks complete at progress calls, "
	                      "but cannot wake a sleeping notification handle",
	                      (void *)se, SE_SLOTS);
	return false;
}

void se_slot_arm(struct doca_sync_event *se)
{
	if (se->slot >= 0)
		__atomic_fetch_or(&se->page->armed, 1u << se->slot, __ATOMIC_SEQ_CST);
}

void se_slot_disarm(struct doca_sync_event *se)
{
	if (se->slot >= 0)
		__atomic_fetch_and(&se->page->armed, ~(1u << se->slot), __ATOMIC_SEQ_CST);
}

bool se_slot_fired(const struct doca_sync_event *se)
{
	return se->slot >= 0 &&
	       !(__atomic_load_n(&se->page->armed, __ATOMIC_SEQ_CST) & (1u << se->slot));
}

void se_slot_release(struct doca_sync_event *se)
{
	struct se_page *pg = se->page;
	int i = se->slot;

	if (i < 0)
		return;
	__atomic_fetch_and(&pg->armed, ~(1u << i), __ATOMIC_SEQ_CST);
	__atomic_store_n(&pg->slots[i].pid, 0, __ATOMIC_SEQ_CST);
	__atomic_fetch_and(&pg->claimed, ~(1u << i), __ATOMIC_SEQ_CST);
	se_wake_unregister(se->slot_efd);
	se->slot = -1;
	se->slot_efd = -1;
}
