/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * A hostile peer of a sync event, for tests/xproc/test_se_hostile.c. It links no odma
 * library: it reads the export blob and edits the exporter's shared page by hand, with
 * nothing but the access any importer has (it opens /proc/<pid>/fd/<n>, as the importer
 * does). Layouts (docs/host-dpu.md; src/core/sync_event/se_int.h):
 *   blob: magic[8] ver u16 total u16 side u8 rsvd[3] pid u32 @16, fd u32 @20, start u64 @24,
 *         system u64 @32, key[16] @40, pci[16] @56, rsvd[12] @72, crc32c u32 @84 (of 0..83)
 *   page: magic u64 @0, key[16] @8, owner_start u64 @24, owner_pid u32 @32, revoked u32 @36,
 *         value u64 @40, seq u32 @48, sleepers u32 @52, claimed u32 @56, armed u32 @60,
 *         slots @64: {pid u32, fd i32, start u64} x 32
 *
 *   se_hostile forge BLOBHEX VICTIM_FD ROUNDS
 *     for each round: forges slot 31 naming the exporter itself with VICTIM_FD (the page's
 *     own descriptor every other round), slot 30 naming this process with a regular file,
 *     arms both, writes 'a' on stdout and waits for 'k' on stdin (the exporter updated).
 *     Then tries to shrink and to grow the page and writes 's' (both refused) or 'S'. Exits
 *     once stdin closes: 0 when its own file is intact, 1 otherwise.
 *   se_hostile fill BLOBHEX
 *     marks every wake-up slot of the exporter's page claimed (with no process in any), writes
 *     'a' on stdout and exits once stdin closes.
 *   se_hostile mute BLOBHEX
 *     keeps the words that decide whether an update wakes anyone at zero (the sleeper count
 *     and the armed bitmap, every millisecond), writes 'a' on stdout once it first did, and
 *     exits once stdin closes.
 *   se_hostile revoke BLOBHEX
 *     sets the page's revoked flag as only its exporter should, writes 'a' on stdout and exits
 *     once stdin closes.
 *   se_hostile exporter BLOBHEX
 *     plays an exporter: a page of its own in an unsealed memfd, and on stdout (one line of
 *     hex) a blob naming it, made from BLOBHEX (a real export) with its pid, descriptor,
 *     start time and key. Exits once stdin closes.
 *   se_hostile fifo-exporter BLOBHEX
 *     a blob (one line of hex) naming a FIFO of its own instead of a page; once it reads 'k'
 *     on stdin (the importer tried), writes 'o' if anyone opened the FIFO meanwhile, 'n' if
 *     not (inotify), and exits once stdin closes.
 *   se_hostile sealed-exporter BLOBHEX VICTIM_FD ROUNDS
 *     the same with a page sealed as odma's, then, as forge does, ROUNDS times a slot naming
 *     its parent (the importer) with VICTIM_FD, armed, 'a' on stdout, 'k' awaited on stdin.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOB_LEN 88
#define PAGE 4096
#define SLOT(i) (64 + 16 * (i))

static uint64_t get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t crc32c(const uint8_t *p, size_t len)
{
	uint32_t crc = 0xffffffffu;

	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1u)));
	}
	return ~crc;
}

static bool unhex(const char *s, uint8_t *out, size_t n)
{
	if (strlen(s) != 2 * n)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned int b;

		if (sscanf(s + 2 * i, "%2x", &b) != 1)
			return false;
		out[i] = (uint8_t)b;
	}
	return true;
}

/* Field 22 of /proc/@pid/stat (our own through the task entry, as odma reads it: qemu-user). */
static uint64_t start_time_of(pid_t pid)
{
	char path[64], buf[1024];
	unsigned long long st = 0;
	const char *p;
	FILE *f;
	size_t n;

	if (pid == getpid())
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	for (int field = 2; p != NULL && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p == NULL || sscanf(p + 1, "%llu", &st) != 1)
		return 0;
	return st;
}

static void store32(uint8_t *pg, size_t off, uint32_t v)
{
	__atomic_store_n((uint32_t *)(void *)(pg + off), v, __ATOMIC_SEQ_CST);
}

static void or32(uint8_t *pg, size_t off, uint32_t v)
{
	__atomic_fetch_or((uint32_t *)(void *)(pg + off), v, __ATOMIC_SEQ_CST);
}

static void forge_slot(uint8_t *pg, int i, uint32_t pid, int32_t fd, uint64_t start)
{
	memcpy(pg + SLOT(i) + 4, &fd, 4);
	memcpy(pg + SLOT(i) + 8, &start, 8);
	store32(pg, SLOT(i), pid);
	or32(pg, 56, 1u << i); /* claimed */
	or32(pg, 60, 1u << i); /* armed */
}

static bool put_byte(char c)
{
	return write(1, &c, 1) == 1;
}

static bool get_byte(char want)
{
	char c;

	return read(0, &c, 1) == 1 && c == want;
}

static void wait_eof(void)
{
	char c;

	while (read(0, &c, 1) > 0)
		;
}

/* Maps the page of the exporter @blob names, as any importer can (NULL on failure). */
static uint8_t *map_page(const uint8_t *blob, int *fd)
{
	uint32_t pid = (uint32_t)get_le(blob + 16, 4), page_fd = (uint32_t)get_le(blob + 20, 4);
	char path[64];
	uint8_t *pg;

	snprintf(path, sizeof(path), "/proc/%u/fd/%u", pid, page_fd);
	*fd = open(path, O_RDWR | O_CLOEXEC);
	if (*fd < 0) {
		fprintf(stderr, "se_hostile: open %s: %s\n", path, strerror(errno));
		return NULL;
	}
	pg = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	return pg == MAP_FAILED ? NULL : pg;
}

static int fill(const uint8_t *blob)
{
	int fd;
	uint8_t *pg = map_page(blob, &fd);

	if (pg == NULL)
		return 2;
	store32(pg, 56, 0xffffffffu); /* claimed: every slot, none with a process */
	if (!put_byte('a'))
		return 3;
	wait_eof();
	return 0;
}

static int mute(const uint8_t *blob)
{
	struct pollfd in = { .fd = 0, .events = POLLIN };
	int fd;
	uint8_t *pg = map_page(blob, &fd);

	if (pg == NULL)
		return 2;
	for (bool told = false;; told = true) {
		store32(pg, 52, 0); /* sleepers */
		store32(pg, 60, 0); /* armed */
		if (!told && !put_byte('a'))
			return 3;
		if (poll(&in, 1, 1) != 0)
			break; /* stdin closed */
	}
	return 0;
}

static int set_revoked(const uint8_t *blob)
{
	int fd;
	uint8_t *pg = map_page(blob, &fd);

	if (pg == NULL)
		return 2;
	store32(pg, 36, 1); /* revoked */
	if (!put_byte('a'))
		return 3;
	wait_eof();
	return 0;
}

static int forge(const uint8_t *blob, int victim_fd, int rounds)
{
	static const char mine[] = "HOSTILE-ORIGINAL";
	uint32_t pid = (uint32_t)get_le(blob + 16, 4), page_fd = (uint32_t)get_le(blob + 20, 4);
	uint64_t start = get_le(blob + 24, 8);
	char back[sizeof(mine)] = { 0 };
	char tmpl[] = "/tmp/odma-se-hostile.XXXXXX";
	int fd, own;
	uint8_t *pg = map_page(blob, &fd);
	bool shrunk, grown;

	if (pg == NULL)
		return 2;
	own = mkstemp(tmpl);
	if (own < 0 || write(own, mine, sizeof(mine)) != sizeof(mine)) {
		fprintf(stderr, "se_hostile: mmap or tmpfile: %s\n", strerror(errno));
		return 2;
	}
	unlink(tmpl);
	for (int r = 0; r < rounds; r++) {
		forge_slot(pg, 31, pid, r % 2 ? (int32_t)page_fd : victim_fd, start);
		forge_slot(pg, 30, (uint32_t)getpid(), own, start_time_of(getpid()));
		if (!put_byte('a') || !get_byte('k'))
			return 3;
	}
	shrunk = ftruncate(fd, 0) == 0;
	grown = ftruncate(fd, 2 * PAGE) == 0;
	if (!put_byte(shrunk || grown ? 'S' : 's'))
		return 3;
	wait_eof();
	if (pread(own, back, sizeof(back), 0) != sizeof(back) || memcmp(back, mine, sizeof(mine)))
		return 1;
	return 0;
}

static int exporter(uint8_t *blob, bool sealed, int victim_fd, int rounds)
{
	uint64_t magic = 0x47505345414d444fULL, start = start_time_of(getpid());
	uint8_t key[16];
	uint8_t *pg;
	int fd;

	/* unsealed: it could shrink under the importer's mapping */
	fd = memfd_create("odma-sync-event", sealed ? MFD_ALLOW_SEALING : 0);
	if (fd < 0 || ftruncate(fd, PAGE) != 0)
		return 2;
	if (sealed && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
		return 2;
	pg = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pg == MAP_FAILED)
		return 2;
	for (int i = 0; i < 16; i++)
		key[i] = (uint8_t)(0x5a ^ (i * 37)) | 1;
	memcpy(pg, &magic, 8);
	memcpy(pg + 8, key, 16);
	memcpy(pg + 24, &start, 8);
	store32(pg, 32, (uint32_t)getpid());
	put_le(blob + 16, (uint64_t)getpid(), 4);
	put_le(blob + 20, (uint64_t)fd, 4);
	put_le(blob + 24, start, 8);
	memcpy(blob + 40, key, 16);
	put_le(blob + 84, crc32c(blob, 84), 4);
	for (int i = 0; i < BLOB_LEN; i++)
		printf("%02x", blob[i]);
	printf("\n");
	fflush(stdout);
	for (int r = 0; r < rounds; r++) {
		forge_slot(pg, 31, (uint32_t)getppid(), victim_fd, start_time_of(getppid()));
		if (!put_byte('a') || !get_byte('k'))
			return 3;
	}
	wait_eof();
	return 0;
}

static int fifo_exporter(uint8_t *blob)
{
	char path[] = "/tmp/odma-se-fifo.XXXXXX";
	uint8_t ev[sizeof(struct inotify_event) + NAME_MAX + 1];
	int fd, in, tmp = mkstemp(path);

	if (tmp < 0)
		return 2;
	close(tmp);
	unlink(path);
	if (mkfifo(path, 0600) != 0)
		return 2;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd < 0 || in < 0 || inotify_add_watch(in, path, IN_OPEN) < 0) {
		unlink(path);
		return 2;
	}
	put_le(blob + 16, (uint64_t)getpid(), 4);
	put_le(blob + 20, (uint64_t)fd, 4);
	put_le(blob + 24, start_time_of(getpid()), 8);
	put_le(blob + 84, crc32c(blob, 84), 4);
	for (int i = 0; i < BLOB_LEN; i++)
		printf("%02x", blob[i]);
	printf("\n");
	fflush(stdout);
	if (!get_byte('k')) {
		unlink(path);
		return 3;
	}
	(void)!put_byte(read(in, ev, sizeof(ev)) > 0 ? 'o' : 'n');
	unlink(path);
	wait_eof();
	return 0;
}

int main(int argc, char **argv)
{
	uint8_t blob[BLOB_LEN];

	if (argc >= 3 && !unhex(argv[2], blob, sizeof(blob))) {
		fprintf(stderr, "se_hostile: BLOBHEX must be %d hex bytes\n", BLOB_LEN);
		return 2;
	}
	if (argc == 5 && strcmp(argv[1], "forge") == 0)
		return forge(blob, atoi(argv[3]), atoi(argv[4]));
	if (argc == 3 && strcmp(argv[1], "fill") == 0)
		return fill(blob);
	if (argc == 3 && strcmp(argv[1], "mute") == 0)
		return mute(blob);
	if (argc == 3 && strcmp(argv[1], "revoke") == 0)
		return set_revoked(blob);
	if (argc == 3 && strcmp(argv[1], "exporter") == 0)
		return exporter(blob, false, -1, 0);
	if (argc == 3 && strcmp(argv[1], "fifo-exporter") == 0)
		return fifo_exporter(blob);
	if (argc == 5 && strcmp(argv[1], "sealed-exporter") == 0)
		return exporter(blob, true, atoi(argv[3]), atoi(argv[4]));
	fprintf(stderr, "usage: see the comment at the top of se_hostile.c\n");
	return 2;
}
