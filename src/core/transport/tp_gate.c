/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The gates of the region records: one in-flight word per record, in a memfd the exporter
 * shares with the importers of its kernel (docs/design.md, "Revocation and moves in flight").
 * A process-transport importer adds one to the word before it checks the record and moves
 * bytes (process_vm_readv/writev), and takes it back once the move returned. A revocation
 * marks the record revoked, then waits for the word to drain: once it returns, no importer
 * that saw the record alive is still moving, and every later one sees it revoked. This is
 * what a device does when memory is deregistered: it waits for the DMA in flight.
 *
 * The word is the importers' to write: a hostile or dead importer can leave it raised, so the
 * wait is bounded (ODMA_TRANSPORT_TIMEOUT_MS, then it logs and proceeds) and a word that did
 * not drain is retired with its record's generation (the record takes a fresh slot when it is
 * reused). The exporter never trusts anything else in the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/log/log.h"
#include "core/transport/tp_int.h"

ODMA_LOG_REGISTER(ODMA_TRANSPORT)

#define GATE_NAME "odma-export-gates"
#define GATE_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) /* its size is for good */

/*
 * The file has its final size from the start (sparse: a page costs memory once a word on it
 * is used) and is sealed at it: no mapping of it ever loses a page, and an importer, which
 * may write the file, cannot make it hold more (a file it could grow was memory without
 * bound, kept by the exporter). Each chunk is mapped on its own when its first word is handed
 * out: the exporter maps only what it uses (a reader of every mapped page, such as a leak
 * checker scanning memory, touches no more).
 */
#define GATE_CHUNK_SLOTS 1024u
#define GATE_CHUNK ((size_t)GATE_CHUNK_SLOTS * ODMA_TP_GATE_SLOT)
#define GATE_CHUNKS (ODMA_TP_GATE_MAX / GATE_CHUNK_SLOTS)
#define GATE_FILE ((size_t)ODMA_TP_GATE_MAX * ODMA_TP_GATE_SLOT) /* 16 MiB */

/* The exporter's gate file, the mappings of its chunks, its words used and held; reg_lock. */
static int gate_fd = -1;
static uint8_t *gate_chunk[GATE_CHUNKS];
static uint32_t gate_used, gate_cap;

/*
 * A forked child has its own records: it forgets its parent's file (sharing it, the two would
 * hand out the same words); the registry makes its records forget their words.
 */
void odma_tp_gate_forget(void)
{
	for (uint32_t i = 0; i < GATE_CHUNKS && gate_chunk[i] != NULL; i++) {
		munmap(gate_chunk[i], GATE_CHUNK);
		gate_chunk[i] = NULL;
	}
	if (gate_fd >= 0)
		close(gate_fd);
	gate_fd = -1;
	gate_used = gate_cap = 0;
}

/*
 * The file's size: GATE_FILE, or the whole chunks RLIMIT_FSIZE allows (past it, ftruncate
 * raises SIGXFSZ, which kills); 0 when it allows none (logged).
 */
static size_t gate_file_size(void)
{
	struct rlimit rl;
	size_t n;

	if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= GATE_FILE)
		return GATE_FILE;
	n = (size_t)rl.rlim_cur / GATE_CHUNK * GATE_CHUNK;
	if (n == 0)
		ODMA_ERR("exporting needs a file of in-flight words of %zu bytes at least "
		         "(docs/host-dpu.md) and RLIMIT_FSIZE is %llu bytes; raise it (ulimit -f)",
		         GATE_CHUNK, (unsigned long long)rl.rlim_cur);
	return n;
}

static bool gate_open_locked(void)
{
	size_t size = gate_file_size();
	int fd;

	if (size == 0)
		return false;
	fd = memfd_create(GATE_NAME, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return false;
	if (ftruncate(fd, (off_t)size) != 0 || fcntl(fd, F_ADD_SEALS, GATE_SEALS) != 0) {
		close(fd);
		return false;
	}
	gate_fd = fd;
	gate_cap = (uint32_t)(size / ODMA_TP_GATE_SLOT);
	return true;
}

/* Maps chunk @c (the file holds every chunk). */
static bool gate_chunk_locked(uint32_t c)
{
	void *p = mmap(NULL, GATE_CHUNK, PROT_READ | PROT_WRITE, MAP_SHARED, gate_fd,
	               (off_t)((size_t)c * GATE_CHUNK));

	if (p == MAP_FAILED)
		return false;
	gate_chunk[c] = p;
	return true;
}

bool odma_tp_gate_slot_locked(struct odma_tp_region *reg)
{
	if (reg->gate_slot != ODMA_TP_GATE_NONE)
		return true; /* a reused record keeps a word that drained */
	if (gate_fd < 0 && !gate_open_locked())
		return false;
	if (gate_used == gate_cap || (gate_chunk[gate_used / GATE_CHUNK_SLOTS] == NULL &&
	                              !gate_chunk_locked(gate_used / GATE_CHUNK_SLOTS)))
		return false;
	reg->gate_slot = gate_used++;
	reg->gate_fd = gate_fd;
	return true;
}

/* The exporter's word @slot (its chunk is mapped). */
static const uint32_t *gate_word(uint32_t slot)
{
	size_t off = (size_t)(slot % GATE_CHUNK_SLOTS) * ODMA_TP_GATE_SLOT;

	return (const uint32_t *)(const void *)(gate_chunk[slot / GATE_CHUNK_SLOTS] + off);
}

static uint64_t gate_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* A word that did not drain in time: the revocation goes on (the ERROR names the export). */
static void gate_log_stuck(const struct odma_tp_region *reg)
{
	ODMA_ERR("revoking the export of [0x%llx, +%llu): an importer of this kernel was still "
	         "moving bytes after %u ms (it stopped or died in the middle of a copy); the "
	         "revocation proceeds without it. Raise ODMA_TRANSPORT_TIMEOUT_MS if copies "
	         "that large are expected",
	         (unsigned long long)reg->addr, (unsigned long long)reg->len, odma_tp_timeout_ms());
}

uint64_t odma_tp_revoke_deadline(void)
{
	return gate_now_ms() + odma_tp_timeout_ms();
}

bool odma_tp_gate_drain(const struct odma_tp_region *reg, uint64_t deadline_ms)
{
	const uint32_t *w;

	if (reg->gate_slot == ODMA_TP_GATE_NONE)
		return true;
	w = gate_word(reg->gate_slot);
	/* the record was marked revoked before: an importer raising the word now sees it */
	atomic_thread_fence(memory_order_seq_cst);
	if (__atomic_load_n(w, __ATOMIC_SEQ_CST) == 0)
		return true;
	for (unsigned int spin = 0; __atomic_load_n(w, __ATOMIC_SEQ_CST) != 0; spin++) {
		if (gate_now_ms() > deadline_ms) {
			gate_log_stuck(reg);
			return false;
		}
		if (spin < 64)
			sched_yield(); /* a move of one batch: microseconds */
		else
			nanosleep(&(struct timespec){ 0, 20000 }, NULL);
	}
	return true;
}

/* ---- importer side -------------------------------------------------------------------- */

/* Whether @path, a /proc/<pid>/fd/<n> link, names the exporter's gate file. */
static bool gate_is_ours(const char *path)
{
	static const char want[] = "/memfd:" GATE_NAME;
	char link[64];
	ssize_t n;

	errno = 0;
	n = readlink(path, link, sizeof(link));

	return n >= (ssize_t)sizeof(want) - 1 && memcmp(link, want, sizeof(want) - 1) == 0;
}

/*
 * The exporter's gate file, checked (a sealed memfd that holds @slot; its status in @st), or
 * -1 with errno.
 */
static int gate_open_peer(uint32_t pid, int32_t fd_no, uint32_t slot, struct stat *st)
{
	char path[64];
	int fd, seals;

	snprintf(path, sizeof(path), "/proc/%u/fd/%d", pid, fd_no);
	/* only a memfd is opened: a forged record could name a FIFO or a device */
	if (slot >= ODMA_TP_GATE_MAX || fd_no < 0 || !gate_is_ours(path)) {
		errno = errno == EACCES || errno == EPERM ? errno : EINVAL;
		return -1; /* EINVAL: no gate of ours there (a forged or stale record) */
	}
	fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || (seals & F_SEAL_SHRINK) == 0 || fstat(fd, st) != 0 ||
	    (uint64_t)st->st_size < ((uint64_t)slot + 1) * ODMA_TP_GATE_SLOT) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/*
 * The importer's mappings of the gate files, one per page of a file (64 words), shared by
 * every import whose word is on it: a mapping per import would spend the process' mappings
 * (vm.max_map_count, 65530 by default), after which no mmap of any kind succeeds. A page is
 * named by the exporter's pid, the file's identity (a memfd's inode number may repeat after
 * a wrap; one exporter never has two gate files) and its offset.
 */
struct gate_key {
	uint32_t pid;
	dev_t dev;
	ino_t ino;
	off_t off;
};

struct gate_page {
	struct gate_page *next;
	uint8_t *addr;
	struct gate_key key;
	unsigned long refs;
};

static pthread_mutex_t gate_pages_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gate_page *gate_pages;

static bool gate_key_eq(const struct gate_key *a, const struct gate_key *b)
{
	return a->pid == b->pid && a->dev == b->dev && a->ino == b->ino && a->off == b->off;
}

/* A new mapping of the page @k of the file @fd, or NULL with errno; locked. */
static struct gate_page *gate_page_new_locked(int fd, const struct gate_key *k, size_t page)
{
	struct gate_page *g = malloc(sizeof(*g));
	int err;

	if (g == NULL)
		return NULL;
	g->addr = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, k->off);
	if (g->addr == MAP_FAILED) {
		err = errno;
		free(g);
		errno = err;
		return NULL;
	}
	g->key = *k;
	g->refs = 0;
	g->next = gate_pages;
	gate_pages = g;
	return g;
}

/* The page @k of the file @fd mapped, one more holder counted; NULL with errno. */
static uint8_t *gate_page_hold(int fd, const struct gate_key *k, size_t page)
{
	struct gate_page *g;
	uint8_t *p = NULL;

	pthread_mutex_lock(&gate_pages_lock);
	for (g = gate_pages; g != NULL && !gate_key_eq(&g->key, k); g = g->next)
		;
	if (g == NULL)
		g = gate_page_new_locked(fd, k, page);
	if (g != NULL) {
		g->refs++;
		p = g->addr;
	}
	pthread_mutex_unlock(&gate_pages_lock);
	return p;
}

uint32_t *odma_tp_gate_map(uint32_t pid, int32_t fd_no, uint32_t slot)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), off = (size_t)slot * ODMA_TP_GATE_SLOT;
	struct stat st;
	int fd = gate_open_peer(pid, fd_no, slot, &st);
	struct gate_key k;
	uint8_t *p;

	if (fd < 0)
		return NULL;
	k = (struct gate_key){ pid, st.st_dev, st.st_ino, (off_t)(off / page * page) };
	p = gate_page_hold(fd, &k, page);
	close(fd);
	return p == NULL ? NULL : (uint32_t *)(void *)(p + off % page);
}

void odma_tp_gate_unmap(uint32_t *word)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint8_t *addr = (uint8_t *)((uintptr_t)word / page * page);
	struct gate_page **pg, *g;

	if (word == NULL)
		return;
	pthread_mutex_lock(&gate_pages_lock);
	for (pg = &gate_pages; *pg != NULL && (*pg)->addr != addr; pg = &(*pg)->next)
		;
	g = *pg;
	if (g != NULL && --g->refs == 0) {
		*pg = g->next;
		munmap(g->addr, page);
		free(g);
	}
	pthread_mutex_unlock(&gate_pages_lock);
}

void odma_tp_gate_enter(uint32_t *word)
{
	__atomic_fetch_add(word, 1, __ATOMIC_SEQ_CST);
	/* before the record is read: a revocation either sees the word or we see it revoked */
	atomic_thread_fence(memory_order_seq_cst);
}

void odma_tp_gate_leave(uint32_t *word)
{
	__atomic_fetch_sub(word, 1, __ATOMIC_SEQ_CST);
}
