/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * A hostile Comch peer (issue #19): speaks odma's Comch wire protocol by hand — raw
 * SOCK_SEQPACKET sockets, memfds, the shared ring written directly — and links no odma
 * library. Its victim is tests/comch/hostile_victim.c, a real odma server (consumer and
 * producer included) run as a separate process.
 *
 *   hostile_peer all VICTIM   every case as this user
 *   hostile_peer uid VICTIM   the other-user cases: runs the hostile side as "nobody" (root
 *                             only; exit 77 otherwise)
 *
 * After each case the victim must still be alive, an honest client (hostile_victim client)
 * must still be served, and the victim's log must hold the line of that case (and not a flood
 * of lines). At the end the victim stops on SIGTERM and must exit 0 (under ASan/UBSan: no
 * report, no leak).
 *
 * The wire format below is written from docs/comch.md and the protocol as it is on the wire,
 * on purpose not from odma's headers: a change of it breaks this test, which is the point.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/falloc.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../test_exec.h"

/* ---- the wire (docs/comch.md, "How it is emulated") ----------------------------------------- */

enum { W_HELLO = 1, W_WELCOME, W_REJECT, W_MSG, W_BYE, W_CONS_NEW, W_CONS_ACK, W_CONS_GONE };
#define WIRE_MAGIC 0x314843414d444f4full
#define LINK_MAGIC 0x4b4e494c48434d4full
#define RING_MAGIC 0x474e495248434d4full
#define LINK_BYTES 4096u

struct w_hdr {
	uint32_t type, arg;
};
struct w_hello {
	uint64_t magic;
	uint32_t version, max_msg, recv_queue, name_len;
	uint64_t system_id;
	char pci[13];
};
struct w_cons_new {
	uint32_t nslots, slot_size, imm_len, pad;
	uint64_t ring_size;
};
/* ring: header of 192 bytes (post_seq at 64, claim_seq at 128), then slots */
#define R_NSLOTS 8
#define R_SLOT_SIZE 12
#define R_IMM_LEN 16
#define R_ID 20
#define R_POST 64
#define R_CLAIM 128
#define R_SLOTS 192
/* slot: state 0, producer_id 4, seq 8, addr 16, room 24, written 32, status 40, imm_len 44 */
#define S_STATE 0
#define S_SEQ 8
#define S_ADDR 16
#define S_ROOM 24
#define S_WRITTEN 32
#define S_STATUS 40
#define S_IMM_LEN 44

#define DOCA_ERROR_NOT_PERMITTED 2

static const char *victim_exe;
static char rundir[128], vlog[192], name[64];
static pid_t victim = -1;
static int failures;

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "FAIL %s:%d: ", __func__, __LINE__);                               \
		fprintf(stderr, __VA_ARGS__);                                                      \
		fprintf(stderr, "\n");                                                             \
		failures++;                                                                        \
	} while (0)
#define EXPECT(cond)                                                                               \
	do {                                                                                       \
		if (!(cond))                                                                       \
			FAIL("%s", #cond);                                                         \
	} while (0)

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void nap_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static uint64_t fnv1a(const uint8_t *b, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* The socket of server @nm of system bf3 on representor 0000:b1:00.0 in directory @dir. */
static void sock_path(const char *dir, const char *nm, char *out, size_t n)
{
	uint8_t key[256];
	size_t k = 0;
	uint64_t sys = fnv1a((const uint8_t *)"bf3", 3);

	for (int i = 0; i < 8; i++)
		key[k++] = (uint8_t)(sys >> (8 * i));
	memcpy(key + k, "0000:b1:00.0", 13); /* the representor's full PCI address, NUL included */
	k += 13;
	memcpy(key + k, nm, strlen(nm));
	k += strlen(nm);
	snprintf(out, n, "%s/comch-%016llx.sock", dir, (unsigned long long)fnv1a(key, k));
}

/* ---- victim processes ---------------------------------------------------------------------- */

static pid_t spawn(const char *mode, const char *nm, const char *log, const char *dir)
{
	pid_t p = fork();

	if (p == 0) {
		if (log != NULL) {
			int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);

			if (fd >= 0)
				dup2(fd, 2);
		}
		if (dir != NULL)
			setenv("ODMA_RUNDIR", dir, 1);
		tu_execv(victim_exe,
		         (char *const[]){ (char *)victim_exe, (char *)mode, (char *)nm, NULL });
		_exit(127);
	}
	return p;
}

/* Exit status of @p within @ms (-1: still running, killed; -2 - signal: died of a signal). */
static int reap(pid_t p, unsigned int ms)
{
	uint64_t end = now_ms() + ms;
	int st;

	while (now_ms() < end) {
		pid_t r = waitpid(p, &st, WNOHANG);

		if (r == p)
			return WIFEXITED(st) ? WEXITSTATUS(st) : -2 - WTERMSIG(st);
		nap_ms(5);
	}
	kill(p, SIGKILL);
	waitpid(p, &st, 0);
	return -1;
}

/*
 * Whether a socket bound at @path listens (/proc/net/unix: flag __SO_ACCEPTCON, 0x10000). The
 * server binds, sets the mode, then listens: the file alone may still carry the umask's mode.
 */
static bool path_listens(const char *path)
{
	char line[512], sock[256];
	unsigned long flags;
	bool found = false;
	FILE *f = fopen("/proc/net/unix", "r");

	if (f == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%*s %*s %*s %lx %*s %*s %*s %255s", &flags, sock) == 2)
			found = (flags & 0x10000) != 0 && strcmp(sock, path) == 0;
	fclose(f);
	return found;
}

/* Waits until a server listens at @path (the socket exists with its final mode). */
static bool wait_path(const char *path, unsigned int ms)
{
	for (uint64_t end = now_ms() + ms; now_ms() < end; nap_ms(5))
		if (path_listens(path))
			return true;
	return false;
}

static bool victim_alive(void)
{
	int st;

	return victim > 0 && waitpid(victim, &st, WNOHANG) == 0;
}

/* An honest odma client still gets its echo. */
static bool honest_served(void)
{
	int r = reap(spawn("client", name, NULL, NULL), 15000);

	if (r != 0)
		FAIL("the honest client was not served (exit %d)", r);
	return r == 0;
}

static int log_lines(void)
{
	FILE *f = fopen(vlog, "r");
	int n = 0, c;

	if (f == NULL)
		return 0;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/* Lines of the victim's log after line @from that contain @needle. */
static int log_count(int from, const char *needle)
{
	FILE *f = fopen(vlog, "r");
	char line[2048];
	int n = 0, i = 0;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (i++ >= from && strstr(line, needle) != NULL)
			n++;
	fclose(f);
	return n;
}

/* The case's line is there (eventually), and not a flood of lines. */
static void expect_logged(int from, const char *needle, int max_lines)
{
	int n = 0;

	for (uint64_t end = now_ms() + 3000; now_ms() < end && (n = log_count(from, needle)) == 0;)
		nap_ms(10);
	if (n == 0)
		FAIL("the victim logged no line with \"%s\"", needle);
	if (log_lines() - from > max_lines)
		FAIL("the victim logged %d lines (at most %d expected)", log_lines() - from,
		     max_lines);
}

/* ---- a hostile connection ------------------------------------------------------------------ */

struct hp {
	int fd;
	int link_fd;
	uint8_t *link;
	int vring_fd; /* the victim consumer's ring */
	uint8_t *vring;
	size_t vring_size;
	uint32_t vring_id, vnslots, vslot;
	int welcome, reject;
	uint32_t reject_code;
	bool eof;
	int acks_ok, acks_refused;
	char msg[64];
	uint32_t msg_len;
};

static int shm_named(const char *nm, size_t size, bool sealed, bool sealable)
{
	int fd = memfd_create(nm, MFD_CLOEXEC | (sealed || sealable ? MFD_ALLOW_SEALING : 0));

	if (fd < 0 || ftruncate(fd, (off_t)size) != 0)
		abort();
	if (sealed && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
		abort();
	return fd;
}

static int shm(size_t size, bool sealed)
{
	return shm_named("hostile", size, sealed, false);
}

static int dial(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%.100s", path);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Room for one descriptor of a packet. */
union fd_ctl {
	char b[CMSG_SPACE(sizeof(int))];
	struct cmsghdr a;
};

/* Makes @mh carry @pass_fd (SCM_RIGHTS), its control bytes in @ctl. */
static void attach_fd(struct msghdr *mh, union fd_ctl *ctl, int pass_fd)
{
	struct cmsghdr *c;

	memset(ctl, 0, sizeof(*ctl));
	mh->msg_control = ctl->b;
	mh->msg_controllen = sizeof(ctl->b);
	c = CMSG_FIRSTHDR(mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
}

static int wsend(int fd, uint32_t type, uint32_t arg, const void *p, size_t len, int pass_fd,
                 int flags)
{
	struct w_hdr h = { type, arg };
	struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)(uintptr_t)p, len } };
	union fd_ctl ctl;
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };

	if (pass_fd >= 0)
		attach_fd(&mh, &ctl, pass_fd);
	return sendmsg(fd, &mh, MSG_NOSIGNAL | flags) < 0 ? -errno : 0;
}

static void hp_packet(struct hp *h, const uint8_t *buf, ssize_t n, int fd)
{
	struct w_hdr hdr;

	memcpy(&hdr, buf, sizeof(hdr));
	if (hdr.type == W_WELCOME)
		h->welcome = 1;
	else if (hdr.type == W_REJECT) {
		h->reject = 1;
		h->reject_code = hdr.arg;
	} else if (hdr.type == W_CONS_ACK && n >= 12) {
		uint32_t ok;

		memcpy(&ok, buf + 8, 4);
		if (ok)
			h->acks_ok++;
		else
			h->acks_refused++;
	} else if (hdr.type == W_MSG) {
		h->msg_len = (uint32_t)(n - 8) < sizeof(h->msg) - 1 ? (uint32_t)(n - 8) : 0;
		memcpy(h->msg, buf + 8, h->msg_len);
		h->msg[h->msg_len] = '\0';
	} else if (hdr.type == W_CONS_NEW && fd >= 0 &&
	           n >= 8 + (ssize_t)sizeof(struct w_cons_new)) {
		struct w_cons_new m;
		uint32_t one = 1;

		memcpy(&m, buf + 8, sizeof(m));
		if (h->vring == NULL) {
			void *p =
			        mmap(NULL, m.ring_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

			if (p != MAP_FAILED) {
				h->vring = p;
				h->vring_size = m.ring_size;
				h->vring_id = hdr.arg;
				h->vnslots = m.nslots;
				h->vslot = m.slot_size;
				h->vring_fd = fd;
				fd = -1;
			}
		}
		wsend(h->fd, W_CONS_ACK, hdr.arg, &one, 4, -1, MSG_DONTWAIT);
	}
	if (fd >= 0)
		close(fd);
}

/* Reads what the victim sends for @ms (until EOF). */
static void hp_pump(struct hp *h, unsigned int ms)
{
	static uint8_t buf[16384];
	uint64_t end = now_ms() + ms;

	while (!h->eof) {
		struct pollfd pfd = { h->fd, POLLIN, 0 };
		uint64_t now = now_ms();
		union {
			char b[CMSG_SPACE(4 * sizeof(int))];
			struct cmsghdr a;
		} ctl;
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr mh = { .msg_iov = &iov,
			             .msg_iovlen = 1,
			             .msg_control = ctl.b,
			             .msg_controllen = sizeof(ctl.b) };
		ssize_t n;
		int fd = -1;

		if (now >= end || poll(&pfd, 1, (int)(end - now)) <= 0)
			return;
		n = recvmsg(h->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EAGAIN)
			continue;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); n >= 0 && c; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_type == SCM_RIGHTS)
				memcpy(&fd, CMSG_DATA(c), sizeof(int));
		if (n <= 0) {
			h->eof = true;
			if (fd >= 0)
				close(fd);
			return;
		}
		if (n >= 8)
			hp_packet(h, buf, n, fd);
		else if (fd >= 0)
			close(fd);
	}
}

/* Connects and says HELLO with a link page (sealed or not); waits for the answer. */
/* The largest message this side says it takes in its HELLO. */
static uint32_t hp_max_msg = 4080;

static bool hp_open(struct hp *h, bool sealed_link)
{
	char path[256];
	uint8_t hello[sizeof(struct w_hello) + 64];
	struct w_hello w = { .magic = WIRE_MAGIC,
		             .version = 1,
		             .max_msg = hp_max_msg,
		             .recv_queue = 64,
		             .name_len = (uint32_t)strlen(name),
		             .system_id = fnv1a((const uint8_t *)"bf3", 3) };

	memset(h, 0, sizeof(*h));
	h->vring_fd = -1;
	snprintf(w.pci, sizeof(w.pci), "b1:00.0");
	sock_path(rundir, name, path, sizeof(path));
	h->fd = dial(path);
	if (h->fd < 0)
		return false;
	h->link_fd = shm(LINK_BYTES, sealed_link);
	h->link = mmap(NULL, LINK_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, h->link_fd, 0);
	memcpy(h->link, &(uint64_t){ LINK_MAGIC }, 8);
	memcpy(hello, &w, sizeof(w));
	memcpy(hello + sizeof(w), name, w.name_len);
	wsend(h->fd, W_HELLO, 0, hello, sizeof(w) + w.name_len, h->link_fd, 0);
	for (uint64_t end = now_ms() + 3000;
	     !h->welcome && !h->reject && !h->eof && now_ms() < end;)
		hp_pump(h, 50);
	if (!h->welcome)
		fprintf(stderr, "hp_open: no WELCOME (reject %d code %u, eof %d)\n", h->reject,
		        h->reject_code, (int)h->eof);
	return h->welcome;
}

static void hp_close(struct hp *h)
{
	if (h->fd >= 0)
		close(h->fd);
	if (h->link != NULL)
		munmap(h->link, LINK_BYTES);
	if (h->link_fd >= 0)
		close(h->link_fd);
	if (h->vring != NULL)
		munmap(h->vring, h->vring_size);
	if (h->vring_fd >= 0)
		close(h->vring_fd);
	memset(h, 0, sizeof(*h));
	h->fd = h->link_fd = h->vring_fd = -1;
}

/* Waits until the victim's consumer posted @n buffers into its ring. */
static bool hp_wait_posts(struct hp *h, uint64_t n)
{
	for (uint64_t end = now_ms() + 3000; now_ms() < end; hp_pump(h, 10))
		if (h->vring != NULL &&
		    __atomic_load_n((uint64_t *)(h->vring + R_POST), __ATOMIC_ACQUIRE) >= n)
			return true;
	return false;
}

static uint8_t *vslot(struct hp *h, uint64_t seq)
{
	return h->vring + R_SLOTS + (seq & (h->vnslots - 1)) * h->vslot;
}

/* A ring of ours (as a consumer would make it), announced with CONS_NEW @id. */
static uint8_t *ring_new(int *fd, struct w_cons_new *m, uint32_t id, bool sealed)
{
	uint8_t *r;

	*fd = shm(m->ring_size, sealed);
	r = mmap(NULL, m->ring_size, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	memcpy(r, &(uint64_t){ RING_MAGIC }, 8);
	memcpy(r + R_NSLOTS, &m->nslots, 4);
	memcpy(r + R_SLOT_SIZE, &m->slot_size, 4);
	memcpy(r + R_IMM_LEN, &m->imm_len, 4);
	memcpy(r + R_ID, &id, 4);
	return r;
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* ---- the cases ----------------------------------------------------------------------------- */

/* Item 1: pages shrunk under the victim. */
static void case_shrink(void)
{
	struct w_cons_new m = { .nslots = 4, .slot_size = 128, .imm_len = 32, .ring_size = 4096 };
	int from = log_lines(), rfd;
	struct hp h;
	uint8_t *r;

	/* an unsealed link page: refused at HELLO (it used to be mapped, then SIGBUS) */
	EXPECT(!hp_open(&h, false));
	EXPECT(h.reject);
	EXPECT(ftruncate(h.link_fd, 0) == 0); /* what killed the server before */
	hp_close(&h);
	expect_logged(from, "not sealed", 20);
	/* a sealed one cannot be shrunk, nor can the victim's ring */
	from = log_lines();
	EXPECT(hp_open(&h, true));
	EXPECT(ftruncate(h.link_fd, 0) != 0 && errno == EPERM);
	EXPECT(hp_wait_posts(&h, 1));
	EXPECT(h.vring_fd >= 0 && ftruncate(h.vring_fd, 0) != 0 && errno == EPERM);
	/* an unsealed ring of ours: refused at CONS_NEW */
	r = ring_new(&rfd, &m, 1001, false);
	wsend(h.fd, W_CONS_NEW, 1001, &m, sizeof(m), rfd, 0);
	for (uint64_t end = now_ms() + 2000; h.acks_refused == 0 && now_ms() < end;)
		hp_pump(&h, 20);
	EXPECT(h.acks_refused == 1);
	EXPECT(ftruncate(rfd, 0) == 0);
	munmap(r, m.ring_size);
	close(rfd);
	hp_pump(&h, 100);
	expect_logged(from, "not sealed", 20);
	/*
	 * unsealed at the victim's fstat, shrunk and sealed before its F_GET_SEALS (the victim's
	 * fcntl does it: seal_race.c): the size is read after the seals, so it is refused
	 */
	from = log_lines();
	rfd = shm_named("hostile-race", m.ring_size, false, true);
	r = mmap(NULL, m.ring_size, PROT_READ | PROT_WRITE, MAP_SHARED, rfd, 0);
	EXPECT(r != MAP_FAILED);
	memcpy(r, &(uint64_t){ RING_MAGIC }, 8);
	memcpy(r + R_NSLOTS, &m.nslots, 4);
	memcpy(r + R_SLOT_SIZE, &m.slot_size, 4);
	memcpy(r + R_IMM_LEN, &m.imm_len, 4);
	memcpy(r + R_ID, &(uint32_t){ 1002 }, 4);
	munmap(r, m.ring_size);
	wsend(h.fd, W_CONS_NEW, 1002, &m, sizeof(m), rfd, 0);
	for (uint64_t end = now_ms() + 2000; h.acks_refused < 2 && now_ms() < end;)
		hp_pump(&h, 20);
	EXPECT(h.acks_refused == 2);
	close(rfd);
	hp_pump(&h, 100);
	hp_close(&h);
	EXPECT(victim_alive());
	expect_logged(from, "size differs", 20);
}

/* Item 2: the ring geometry rewritten after the victim checked it (its producer sends to us). */
static void case_geometry(void)
{
	struct w_cons_new m = { .nslots = 4, .slot_size = 128, .imm_len = 32, .ring_size = 4096 };
	static uint8_t target[4][4096];
	int from = log_lines(), rfd, got = 0;
	uint64_t posted = 0;
	struct hp h;
	uint8_t *r;

	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	EXPECT(hp_open(&h, true));
	r = ring_new(&rfd, &m, 1003, true);
	wsend(h.fd, W_CONS_NEW, 1003, &m, sizeof(m), rfd, 0);
	for (uint64_t end = now_ms() + 2000; h.acks_ok == 0 && now_ms() < end;)
		hp_pump(&h, 20);
	EXPECT(h.acks_ok == 1);
	/* lie about everything the victim read at registration, then keep posting */
	put64(r + R_NSLOTS, 0xfffffff0ffffffffull); /* nslots and slot_size */
	memcpy(r + R_IMM_LEN, &(uint32_t){ 0xffffffffu }, 4);
	for (uint64_t end = now_ms() + 600; now_ms() < end; hp_pump(&h, 2)) {
		uint64_t claimed = __atomic_load_n((uint64_t *)(r + R_CLAIM), __ATOMIC_ACQUIRE);

		while (posted < claimed + 4) {
			uint8_t *s = r + R_SLOTS + (posted & 3) * 128;

			if (posted >= 4 && __atomic_load_n((uint32_t *)s, __ATOMIC_ACQUIRE) != 2u)
				break; /* claimed, not written yet */
			got += posted >= 4 && target[posted & 3][0] == 0xab;
			memset(target[posted & 3], 0, 16);
			put64(s + S_SEQ, posted);
			put64(s + S_ADDR, (uint64_t)(uintptr_t)target[posted & 3]);
			put64(s + S_ROOM, 4096);
			__atomic_store_n((uint32_t *)s, 1u, __ATOMIC_RELEASE);
			posted++;
			__atomic_store_n((uint64_t *)(r + R_POST), posted, __ATOMIC_RELEASE);
		}
	}
	/* at last, counters that make no sense (a claim far past the posts, a closed bit) */
	__atomic_store_n((uint64_t *)(r + R_CLAIM), 1ull << 62, __ATOMIC_RELEASE);
	__atomic_store_n((uint64_t *)(r + R_POST), ~0ull, __ATOMIC_RELEASE);
	hp_pump(&h, 50);
	__atomic_store_n((uint64_t *)(r + R_CLAIM), 1ull << 63, __ATOMIC_RELEASE);
	hp_pump(&h, 50);
	if (got == 0)
		fprintf(stderr, "geometry: posted %llu, claimed %llu\n", (unsigned long long)posted,
		        (unsigned long long)__atomic_load_n((uint64_t *)(r + R_CLAIM),
		                                            __ATOMIC_ACQUIRE));
	EXPECT(got > 0); /* the victim's producer still wrote, from its own geometry */
	munmap(r, m.ring_size);
	close(rfd);
	hp_close(&h);
	EXPECT(victim_alive());
	EXPECT(log_lines() - from <= 40);
}

/* Items 3 and (consumer side) 4: a producer that lies about what it wrote. */
static void case_byte_count(void)
{
	int from = log_lines();
	struct hp h;

	EXPECT(hp_open(&h, true));
	EXPECT(hp_wait_posts(&h, 2));
	if (h.vring != NULL) {
		uint8_t *s0 = vslot(&h, 0), *s1 = vslot(&h, 1);

		__atomic_store_n((uint64_t *)(h.vring + R_CLAIM), 2, __ATOMIC_RELEASE);
		put64(s0 + S_WRITTEN, 1ull << 40); /* a 4 KiB buffer "got" 1 TiB */
		memcpy(s0 + S_STATUS, &(int32_t){ 0 }, 4);
		memcpy(s0 + S_IMM_LEN, &(uint32_t){ 0 }, 4);
		__atomic_store_n((uint32_t *)s0, 2u, __ATOMIC_RELEASE);
		put64(s1 + S_WRITTEN, 8);
		memcpy(s1 + S_STATUS, &(int32_t){ 0 }, 4);
		memcpy(s1 + S_IMM_LEN, &(uint32_t){ 1u << 20 }, 4); /* 1 MiB of immediate data */
		__atomic_store_n((uint32_t *)s1, 2u, __ATOMIC_RELEASE);
	}
	hp_pump(&h, 300);
	hp_close(&h);
	expect_logged(from, "a byte count above the posted buffer's room", 30);
	expect_logged(from, "more immediate bytes than the consumer takes", 30);
}

/* Item 4: a ring whose slots cannot hold the immediate data the victim's producer sends. */
static void case_imm_overflow(void)
{
	struct w_cons_new bad[2] = {
		{ .nslots = 64, .slot_size = 61, .imm_len = 32, .ring_size = 4096 },
		{ .nslots = 64, .slot_size = 48, .imm_len = 32, .ring_size = 4096 },
	};
	int from = log_lines(), rfd;
	struct hp h;

	EXPECT(hp_open(&h, true));
	for (int i = 0; i < 2; i++) {
		uint8_t *r = ring_new(&rfd, &bad[i], 1005 + 2 * (uint32_t)i, true);

		wsend(h.fd, W_CONS_NEW, 1005 + 2 * (uint32_t)i, &bad[i], sizeof(bad[i]), rfd, 0);
		munmap(r, 4096);
		close(rfd);
	}
	for (uint64_t end = now_ms() + 2000; h.acks_refused < 2 && now_ms() < end;)
		hp_pump(&h, 20);
	EXPECT(h.acks_refused == 2 && h.acks_ok == 0);
	hp_close(&h);
	expect_logged(from, "slot size cannot hold", 20);
}

/* Huge pages free in the system's pool (/proc/meminfo), 0 when it says none. */
static long huge_free(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long n = 0;

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "HugePages_Free: %ld", &n) == 1)
			break;
	if (f != NULL)
		fclose(f);
	return n;
}

/*
 * A ring in a sealed hugetlbfs memfd: sealed against resizing, yet its owner can punch its
 * pages out (fallocate) and take the pool's last page, and the victim's next touch of the ring
 * is a SIGBUS. Refused at CONS_NEW. With no huge page free, the victim's mapping of it fails
 * anyway; the refusal must still say why.
 */
/* The ring's pages are punched out and the pool's free huge pages taken for @ms. */
static void huge_take_back(struct hp *h, int rfd, size_t huge, unsigned int ms)
{
	int mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, eat;
	uint8_t *pool = MAP_FAILED;
	long spare;

	EXPECT(fallocate(rfd, mode, 0, (off_t)huge) == 0);
	spare = huge_free();
	eat = memfd_create("hostile-eat", MFD_CLOEXEC | MFD_HUGETLB);
	if (spare > 0 && eat >= 0 && ftruncate(eat, (off_t)(spare * (long)huge)) == 0)
		pool = mmap(NULL, (size_t)spare * huge, PROT_READ | PROT_WRITE, MAP_SHARED, eat, 0);
	for (long i = 0; pool != MAP_FAILED && i < spare; i++)
		pool[(size_t)i * huge] = 1;
	hp_pump(h, ms); /* the victim's next touch of the ring has no page to fault in */
	if (pool != MAP_FAILED)
		munmap(pool, (size_t)spare * huge);
	if (eat >= 0)
		close(eat);
}

static void case_hugetlb(void)
{
	const size_t huge = 2u << 20;
	struct w_cons_new m = { .nslots = 4, .slot_size = 128, .imm_len = 32, .ring_size = huge };
	int from = log_lines(), rfd;
	uint8_t *r = MAP_FAILED;
	struct hp h;

	rfd = memfd_create("hostile-huge", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_HUGETLB);
	if (rfd < 0 || ftruncate(rfd, (off_t)huge) != 0 ||
	    fcntl(rfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
		printf("skip: this kernel makes no sealed hugetlbfs memfd (%s)\n", strerror(errno));
		if (rfd >= 0)
			close(rfd);
		return;
	}
	r = mmap(NULL, huge, PROT_READ | PROT_WRITE, MAP_SHARED, rfd, 0);
	if (r != MAP_FAILED) { /* else no huge page is free: the victim cannot map it either */
		memcpy(r, &(uint64_t){ RING_MAGIC }, 8);
		memcpy(r + R_NSLOTS, &m.nslots, 4);
		memcpy(r + R_SLOT_SIZE, &m.slot_size, 4);
		memcpy(r + R_IMM_LEN, &m.imm_len, 4);
		memcpy(r + R_ID, &(uint32_t){ 1011 }, 4);
	}
	EXPECT(hp_open(&h, true));
	wsend(h.fd, W_CONS_NEW, 1011, &m, sizeof(m), rfd, 0);
	for (uint64_t end = now_ms() + 2000; h.acks_ok + h.acks_refused == 0 && now_ms() < end;)
		hp_pump(&h, 20);
	if (h.acks_ok > 0 && r != MAP_FAILED)
		huge_take_back(&h, rfd, huge, 300);
	EXPECT(h.acks_refused == 1 && h.acks_ok == 0);
	if (r != MAP_FAILED)
		munmap(r, huge);
	close(rfd);
	hp_close(&h);
	EXPECT(victim_alive());
	expect_logged(from, "hugetlbfs", 20);
}

/* Item 6: one client registers far more consumers than a connection takes. */
static void case_flood_consumers(void)
{
	struct w_cons_new m = { .nslots = 1, .slot_size = 128, .imm_len = 32, .ring_size = 4096 };
	int from = log_lines();
	struct hp h;

	EXPECT(hp_open(&h, true));
	for (uint32_t i = 0; i < 200; i++) {
		int rfd;
		uint8_t *r = ring_new(&rfd, &m, 2001 + 2 * i, true);

		wsend(h.fd, W_CONS_NEW, 2001 + 2 * i, &m, sizeof(m), rfd, 0);
		munmap(r, 4096);
		close(rfd);
		hp_pump(&h, 0);
	}
	for (uint64_t end = now_ms() + 5000; h.acks_ok + h.acks_refused < 200 && now_ms() < end;)
		hp_pump(&h, 20);
	EXPECT(h.acks_ok == 64);
	EXPECT(h.acks_refused == 136);
	hp_close(&h);
	expect_logged(from, "the most consumers a connection takes", 40);
}

/* Item 7: a flood of packets that each make the victim answer, never reading the answers. */
static void case_flood_packets(void)
{
	struct w_cons_new m = { 0 };
	int from = log_lines();
	uint64_t sent = 0;
	struct hp h;

	EXPECT(hp_open(&h, true));
	for (uint64_t end = now_ms() + 8000; sent < 400000 && now_ms() < end;) {
		int e = wsend(h.fd, W_CONS_NEW, 7, &m, sizeof(m), -1, MSG_DONTWAIT);

		if (e == -EAGAIN) {
			struct pollfd pfd = { h.fd, POLLOUT, 0 };

			poll(&pfd, 1, 20);
			continue;
		}
		if (e != 0)
			break; /* the victim cut us */
		sent++;
	}
	hp_close(&h);
	expect_logged(from, "does not read its socket", 40);
}

/* Item 8: connections that never say HELLO, from one process and from many. */
static void case_flood_handshakes(void)
{
	char path[256];
	int fds[100], n = 0, from = log_lines();
	pid_t kids[6];

	sock_path(rundir, name, path, sizeof(path));
	for (int k = 0; k < 6; k++) {
		kids[k] = fork();
		if (kids[k] == 0) {
			int mine[40], m = 0;

			for (int i = 0; i < 40; i++)
				if ((mine[m] = dial(path)) >= 0)
					m++;
			pause(); /* held open until killed */
			_exit(0);
		}
	}
	for (int i = 0; i < 100; i++)
		if ((fds[n] = dial(path)) >= 0)
			n++;
	nap_ms(300);
	EXPECT(honest_served());
	for (int k = 0; k < 6; k++) {
		kill(kids[k], SIGKILL);
		waitpid(kids[k], NULL, 0);
	}
	while (n > 0)
		close(fds[--n]);
	nap_ms(200);
	expect_logged(from, "connections that sent no HELLO", 60);
}

/* Item 11: slots claimed and never completed while the victim stops its consumer. */
static void case_claimed_hold(void)
{
	int from = log_lines();
	unsigned long ms = 999999;
	struct hp h;

	EXPECT(hp_open(&h, true));
	EXPECT(hp_wait_posts(&h, 8));
	if (h.vring != NULL)
		__atomic_store_n((uint64_t *)(h.vring + R_CLAIM), 8, __ATOMIC_RELEASE);
	wsend(h.fd, W_MSG, 0, "stop-consumer", 13, -1, 0);
	for (uint64_t end = now_ms() + 6000; h.msg_len == 0 && !h.eof && now_ms() < end;)
		hp_pump(&h, 20);
	EXPECT(sscanf(h.msg, "stopped %lu", &ms) == 1 && ms < 3000);
	hp_close(&h);
	expect_logged(from, "never completed within", 30);
}

/* Item 15: refused connections each log one line. */
static void case_refused_logs(void)
{
	static uint8_t big[9000];
	char path[256];
	int fd, from;

	sock_path(rundir, name, path, sizeof(path));
	nap_ms(1100); /* a fresh second for the rate limit */
	from = log_lines();
	fd = dial(path);
	send(fd, "", 0, MSG_NOSIGNAL); /* an empty packet */
	expect_logged(from, "before its HELLO", 20);
	close(fd);
	from = log_lines();
	fd = dial(path);
	send(fd, "abcd", 4, MSG_NOSIGNAL); /* a runt */
	expect_logged(from, "runt", 20);
	close(fd);
	from = log_lines();
	fd = dial(path);
	memcpy(big + 8, &(uint64_t){ WIRE_MAGIC }, 8);
	big[0] = W_HELLO;
	send(fd, big, sizeof(big), MSG_NOSIGNAL); /* an oversized HELLO */
	expect_logged(from, "longer than any valid one", 20);
	close(fd);
	from = log_lines();
	fd = dial(path);
	close(fd); /* end of stream before HELLO */
	expect_logged(from, "before its HELLO", 20);
}

/*
 * After the handshake, @len raw bytes no peer may send: the victim closes this connection only,
 * with the line holding @needle.
 */
static void bad_packet(const void *bytes, size_t len, const char *needle)
{
	int from = log_lines();
	struct hp h;

	EXPECT(hp_open(&h, true));
	EXPECT(send(h.fd, bytes, len, MSG_NOSIGNAL) == (ssize_t)len);
	for (uint64_t end = now_ms() + 3000; !h.eof && now_ms() < end;)
		hp_pump(&h, 20);
	EXPECT(h.eof);
	hp_close(&h);
	expect_logged(from, needle, 20);
}

/* Connected, then a message above the limit it announced, an unknown type, a runt, a giant. */
static void case_bad_packets(void)
{
	static uint8_t pkt[9000];
	struct w_hdr hdr = { .type = W_MSG };

	memcpy(pkt, &hdr, sizeof(hdr));
	hp_max_msg = 100;
	bad_packet(pkt, sizeof(hdr) + 101, "the peer sent a message of 101 bytes");
	hp_max_msg = 4080;
	hdr.type = 99;
	memcpy(pkt, &hdr, sizeof(hdr));
	bad_packet(pkt, sizeof(hdr) + 8, "unknown packet type 99");
	bad_packet(pkt, 4, "a malformed packet"); /* shorter than a header */
	hdr.type = W_MSG;
	memcpy(pkt, &hdr, sizeof(hdr));
	bad_packet(pkt, sizeof(pkt), "a malformed packet"); /* longer than any */
}

/* How many descriptors the victim holds now (-1 when /proc cannot tell). */
static int victim_fds(void)
{
	char path[64];
	struct dirent *d;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)victim);
	dir = opendir(path);
	if (dir == NULL)
		return -1;
	while ((d = readdir(dir)) != NULL)
		n += d->d_name[0] != '.';
	closedir(dir);
	return n;
}

/* @len raw bytes with a descriptor (SCM_RIGHTS), as one packet. */
static int send_with_fd(int fd, const void *bytes, size_t len, int pass_fd)
{
	struct iovec iov = { (void *)(uintptr_t)bytes, len };
	union fd_ctl ctl;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	attach_fd(&mh, &ctl, pass_fd);
	return sendmsg(fd, &mh, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -errno;
}

/*
 * Packets no peer may send (one of no bytes, a runt, one longer than any) that carry a
 * descriptor, 10 connections of each: the victim closes each connection and keeps none of the
 * descriptors (before: one per packet of no bytes, which read as the end of the stream).
 */
static void case_bad_packets_fd(void)
{
	static uint8_t pkt[9000];
	int before = victim_fds(), after = -1, mfd = shm(4096, true);

	if (before < 0) {
		printf("skip: /proc/%d/fd cannot be read\n", (int)victim);
		close(mfd);
		return;
	}
	for (int i = 0; i < 30; i++) {
		struct hp h;

		EXPECT(hp_open(&h, true));
		EXPECT(send_with_fd(h.fd, pkt, (size_t[]){ 0, 4, sizeof(pkt) }[i % 3], mfd) == 0);
		for (uint64_t end = now_ms() + 3000; !h.eof && now_ms() < end;)
			hp_pump(&h, 20);
		EXPECT(h.eof);
		hp_close(&h);
	}
	close(mfd);
	/* the victim's progress frees the closed connections (their sockets) */
	for (uint64_t end = now_ms() + 5000; now_ms() < end; nap_ms(50))
		if ((after = victim_fds()) <= before + 2)
			break;
	if (after > before + 2)
		FAIL("the victim holds %d descriptors after 30 malformed packets that carried one, "
		     "%d before",
		     after, before);
}

/* Item 10: a process holds the directory's lock forever; a server still starts. */
static void case_held_lock(void)
{
	char lock[200], path[256];
	int lk, from = log_lines(), n_lock = 0, r;
	DIR *d;
	struct dirent *e;
	pid_t second;

	snprintf(lock, sizeof(lock), "%s/.comch.lock", rundir);
	lk = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	EXPECT(lk >= 0 && flock(lk, LOCK_EX) == 0);
	second = spawn("server", "hostile-second", vlog, NULL);
	sock_path(rundir, "hostile-second", path, sizeof(path));
	EXPECT(wait_path(path, 5000));
	expect_logged(from, "for more than", 20);
	kill(second, SIGTERM);
	r = reap(second, 10000);
	EXPECT(r == 0);
	close(lk);
	/* no lock file per name accumulates: one per directory at most */
	d = opendir(rundir);
	while (d != NULL && (e = readdir(d)) != NULL) {
		EXPECT(strstr(e->d_name, ".sock.lock") == NULL);
		n_lock += strcmp(e->d_name, ".comch.lock") == 0;
	}
	if (d != NULL)
		closedir(d);
	EXPECT(n_lock <= 1);
}

/* ---- other users ----------------------------------------------------------------------------- */

static uid_t nobody_uid(void)
{
	struct passwd *pw = getpwnam("nobody");

	return pw != NULL ? pw->pw_uid : 65534;
}

static void become_nobody(void)
{
	uid_t u = nobody_uid();

	if (setgid(u) != 0 && setgid(65534) != 0)
		_exit(90);
	if (setuid(u) != 0)
		_exit(91);
}

/* Another user cannot reach the socket (0600), and is refused even when it can (SO_PEERCRED). */
static void case_uid_client(void)
{
	char path[256];
	struct stat st;
	int from, status;
	pid_t p;

	sock_path(rundir, name, path, sizeof(path));
	EXPECT(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
	EXPECT(chmod(rundir, 0755) == 0); /* let nobody reach the socket file */
	p = fork();
	if (p == 0) {
		become_nobody();
		_exit(dial(path) < 0 && errno == EACCES ? 0 : 1);
	}
	EXPECT(waitpid(p, &status, 0) == p && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* opened up by hand: the server still refuses a client of another user */
	EXPECT(chmod(path, 0666) == 0);
	from = log_lines();
	p = fork();
	if (p == 0) {
		struct hp h;

		become_nobody();
		_exit(!hp_open(&h, true) && h.reject && h.reject_code == DOCA_ERROR_NOT_PERMITTED
		              ? 0
		              : 1);
	}
	EXPECT(waitpid(p, &status, 0) == p && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	expect_logged(from, "refused a client of another user", 20);
	chmod(path, 0600);
	chmod(rundir, 0700);
	EXPECT(honest_served());
}

/* A server of another user in a shared (sticky) directory: the client refuses it. */
/*
 * In a fake server's child: listens at @path, says so on @ready, and accepts one client (-1:
 * none came within 5 s).
 */
static int fake_accept(const char *path, int ready)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct pollfd pfd;
	int l = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%.100s", path);
	if (l < 0 || bind(l, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(l, 8) != 0)
		_exit(2);
	(void)!write(ready, "r", 1);
	pfd = (struct pollfd){ l, POLLIN, 0 };
	if (poll(&pfd, 1, 5000) <= 0)
		return -1;
	return accept(l, NULL, NULL);
}

/*
 * Runs an odma client that must not connect (hostile_victim refused) with ODMA_RUNDIR @dir and
 * its log in @log: whether it exited 0 having logged a line holding @needle.
 */
/*
 * Runs a client against the server of @dir and reads its log @log: whether it failed its start
 * and wrote @needle, and no line holding @never (NULL: no such check).
 */
static bool refused_client_logs(const char *dir, const char *log, const char *needle,
                                const char *never)
{
	int r = reap(spawn("refused", name, log, dir), 15000);
	char line[1024];
	bool said = false, forged = false;
	FILE *f = fopen(log, "r");

	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		said |= strstr(line, needle) != NULL;
		forged |= never != NULL && strstr(line, never) != NULL;
	}
	if (f != NULL)
		fclose(f);
	unlink(log);
	return r == 0 && said && !forged;
}

static bool refused_client_says(const char *dir, const char *log, const char *needle)
{
	return refused_client_logs(dir, log, needle, NULL);
}

static void case_uid_server(void)
{
	char dir[] = "/tmp/odma-hostile-shared-XXXXXX", path[256], log[256];
	int status, p_pipe[2];
	char line[8];
	pid_t fake;

	if (mkdtemp(dir) == NULL || chmod(dir, 01777) != 0) {
		FAIL("cannot make a shared directory");
		return;
	}
	sock_path(dir, name, path, sizeof(path));
	if (pipe(p_pipe) != 0)
		abort();
	fake = fork();
	if (fake == 0) {
		uint8_t b[512];
		struct pollfd pfd;
		int c;

		become_nobody();
		c = fake_accept(path, p_pipe[1]);
		if (c < 0)
			_exit(3); /* the client did not even try */
		pfd = (struct pollfd){ c, POLLIN, 0 };
		/* the client must hang up without handing over its HELLO and link page */
		_exit(poll(&pfd, 1, 3000) > 0 && recv(c, b, sizeof(b), 0) > 0 ? 1 : 0);
	}
	(void)!read(p_pipe[0], line, 1);
	snprintf(log, sizeof(log), "%s.client.log", vlog);
	EXPECT(refused_client_says(dir, log, "runs as another user"));
	EXPECT(waitpid(fake, &status, 0) == fake && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	unlink(path);
	rmdir(dir);
}

/*
 * A server of this user that answers a client's HELLO with the @len bytes at @pkt; the client's
 * log (@tag) must say @needle and never @never.
 */
static void fake_server_answers(const void *pkt, size_t len, const char *tag, const char *needle,
                                const char *never)
{
	char dir[] = "/tmp/odma-hostile-answer-XXXXXX", path[256], log[256], line[8];
	int status, p_pipe[2];
	pid_t fake;

	if (mkdtemp(dir) == NULL || pipe(p_pipe) != 0) {
		FAIL("cannot make a directory or a pipe");
		return;
	}
	sock_path(dir, name, path, sizeof(path));
	fake = fork();
	if (fake == 0) {
		uint8_t b[4096];
		struct pollfd pfd;
		int c = fake_accept(path, p_pipe[1]);

		if (c < 0)
			_exit(3);
		pfd = (struct pollfd){ c, POLLIN, 0 };
		if (poll(&pfd, 1, 5000) <= 0 || recv(c, b, sizeof(b), 0) <= 0) /* its HELLO */
			_exit(4);
		if (send(c, pkt, len, MSG_NOSIGNAL) != (ssize_t)len)
			_exit(5);
		pfd = (struct pollfd){ c, POLLIN, 0 };
		(void)poll(&pfd, 1, 5000); /* until the client hangs up */
		_exit(0);
	}
	(void)!read(p_pipe[0], line, 1);
	snprintf(log, sizeof(log), "%s.%s.log", vlog, tag);
	EXPECT(refused_client_logs(dir, log, needle, never));
	EXPECT(waitpid(fake, &status, 0) == fake && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(p_pipe[0]);
	close(p_pipe[1]);
	unlink(path);
	rmdir(dir);
}

/* A WELCOME of the right type and length but no valid content: the client says why. */
static void case_bad_welcome(void)
{
	static uint8_t b[256]; /* zero magic, max_msg and receive queue */
	struct w_hdr hdr = { .type = W_WELCOME };

	memcpy(b, &hdr, sizeof(hdr));
	fake_server_answers(b, sizeof(b), "welcome", "the server's WELCOME is malformed", NULL);
}

/*
 * A REJECT whose reason holds a line break, an escape sequence and 1 KiB of text: the client's
 * one line says the server refused, with the reason cut and its control bytes shown as '?'; no
 * line of its log starts with the text after the break.
 */
static void case_forged_reject(void)
{
	static const char why[] = "go away\n[ERROR] FORGED line\x1b[31m";
	static uint8_t b[sizeof(struct w_hdr) + 1024];
	struct w_hdr hdr = { .type = W_REJECT };

	memset(b, 'x', sizeof(b));
	memcpy(b, &hdr, sizeof(hdr));
	memcpy(b + sizeof(hdr), why, sizeof(why) - 1);
	fake_server_answers(b, sizeof(b), "reject",
	                    "refused the connection: go away?[ERROR] FORGED line?[31mxxx", "\x1b");
}

/* Runtime directories another user could write into or owns are refused at start. */
static void case_uid_rundir(void)
{
	char dir[] = "/tmp/odma-hostile-open-XXXXXX", log[256];
	FILE *f;
	char line[1024];
	int r;
	bool sticky = false, owner = false;

	snprintf(log, sizeof(log), "%s.rundir.log", vlog);
	if (mkdtemp(dir) == NULL)
		abort();
	EXPECT(chmod(dir, 0777) == 0);
	r = reap(spawn("server", "hostile-open", log, dir), 10000);
	EXPECT(r == 3);
	EXPECT(chmod(dir, 0700) == 0 && chown(dir, nobody_uid(), (gid_t)-1) == 0);
	r = reap(spawn("server", "hostile-open", log, dir), 10000);
	EXPECT(r == 3);
	f = fopen(log, "r");
	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		sticky |= strstr(line, "without the sticky bit") != NULL;
		owner |= strstr(line, "owned by another user") != NULL;
	}
	if (f != NULL)
		fclose(f);
	EXPECT(sticky && owner);
	unlink(log);
	rmdir(dir);
}

/* Item 9: the socket is 0600 although the victim runs under umask 0. */
static void case_socket_mode(void)
{
	char path[256];
	struct stat st;

	sock_path(rundir, name, path, sizeof(path));
	EXPECT(stat(path, &st) == 0 && S_ISSOCK(st.st_mode) && (st.st_mode & 0777) == 0600);
}

/* ---- driver ---------------------------------------------------------------------------------- */

static void run_case(const char *label, void (*fn)(void))
{
	int before = failures;

	fn();
	if (!victim_alive()) {
		char path[256];

		FAIL("the victim died during %s", label);
		sock_path(rundir, name, path, sizeof(path));
		unlink(path);
		victim = spawn("server", name, vlog,
		               NULL); /* the next cases get a victim of their own */
		(void)wait_path(path, 10000);
	} else if (fn != case_flood_handshakes && fn != case_uid_client)
		(void)honest_served();
	printf("%s %s\n", failures == before ? "ok  " : "FAIL", label);
	fflush(stdout);
}

static void cleanup(void)
{
	char cmd[300];

	if (victim > 0 && victim_alive()) {
		kill(victim, SIGKILL);
		waitpid(victim, NULL, 0);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", rundir);
	if (rundir[0] != '\0' && system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", rundir);
}

int main(int argc, char **argv)
{
	char path[256], cmd[700];
	bool uid_mode;
	int r;

	if (argc != 3 || (strcmp(argv[1], "all") != 0 && strcmp(argv[1], "uid") != 0)) {
		fprintf(stderr, "usage: %s all|uid VICTIM\n", argv[0]);
		return 2;
	}
	uid_mode = strcmp(argv[1], "uid") == 0;
	if (uid_mode && geteuid() != 0) {
		printf("the other-user cases run the hostile side as nobody: they need root\n");
		return 77;
	}
	victim_exe = argv[2];
	signal(SIGPIPE, SIG_IGN);
	setenv("ODMA_SYSTEM", "bf3", 1);
	setenv("ODMA_COMCH_CONNECT_TIMEOUT_MS", "5000", 1);
	snprintf(rundir, sizeof(rundir), "/tmp/odma-hostile-XXXXXX");
	if (mkdtemp(rundir) == NULL)
		return 1;
	setenv("ODMA_RUNDIR", rundir, 1);
	snprintf(vlog, sizeof(vlog), "%s/victim.log", rundir);
	snprintf(name, sizeof(name), "hostile-%d", (int)getpid());
	atexit(cleanup);
	umask(0); /* the victim inherits it: its socket must still be 0600 */
	victim = spawn("server", name, vlog, NULL);
	sock_path(rundir, name, path, sizeof(path));
	if (!wait_path(path, 10000)) {
		fprintf(stderr, "the victim server did not start (no %s)\n", path);
		snprintf(cmd, sizeof(cmd), "ls -la '%s' >&2; cat '%s' >&2", rundir, vlog);
		(void)!system(cmd);
		return 1;
	}
	if (uid_mode) {
		run_case("other user: client refused by socket mode and SO_PEERCRED",
		         case_uid_client);
		run_case("other user: server refused by the client", case_uid_server);
		run_case("other user: unsafe runtime directories refused", case_uid_rundir);
	} else {
		run_case("socket mode 0600 under umask 0", case_socket_mode);
		run_case("shrink: link page and rings", case_shrink);
		if (tu_under_qemu()) /* the victim's producer writes into our memory */
			printf("skip geometry rewrite under qemu-user: qemu-user does not "
			       "implement process_vm_writev\n");
		else
			run_case("geometry rewrite", case_geometry);
		run_case("byte count 2^40, immediate length 2^20", case_byte_count);
		run_case("immediate overflow of a small slot", case_imm_overflow);
		run_case("a ring of huge pages its owner can take back", case_hugetlb);
		run_case("flood of consumers", case_flood_consumers);
		run_case("flood of packets", case_flood_packets);
		run_case("flood of handshakes", case_flood_handshakes);
		run_case("claimed slots held during a stop", case_claimed_hold);
		run_case("refused connections are logged", case_refused_logs);
		run_case("bad packets after the handshake", case_bad_packets);
		run_case("bad packets that carry a descriptor", case_bad_packets_fd);
		run_case("a malformed WELCOME", case_bad_welcome);
		run_case("a REJECT that forges a log line", case_forged_reject);
		run_case("held lock", case_held_lock);
	}
	kill(victim, SIGTERM);
	r = reap(victim, 20000);
	victim = -1;
	if (r != 0)
		FAIL("the victim did not stop cleanly (exit %d)", r);
	if (failures != 0) {
		snprintf(cmd, sizeof(cmd), "tail -n 60 '%s' >&2", vlog);
		(void)!system(cmd);
	}
	printf("%d failure(s)\n", failures);
	return failures != 0;
}
