/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Comch transport primitives: the runtime directory and the server socket names, one
 * SOCK_SEQPACKET packet in or out (with an fd passed by SCM_RIGHTS), shared-memory files.
 * Nothing here blocks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <linux/magic.h>

#include "comch/comch.h"
#include "core/log/log.h"
#include "util/fnv.h"

ODMA_LOG_REGISTER(DOCA_COMCH_TRANSPORT)

bool comch_lograte_take(struct comch_lograte *l, unsigned int *dropped)
{
	uint64_t now = doca_priv_now_ns() / 1000000000ull;
	uint64_t was = atomic_load_explicit(&l->second, memory_order_relaxed);

	if (now != was &&
	    atomic_compare_exchange_strong_explicit(&l->second, &was, now, memory_order_relaxed,
	                                            memory_order_relaxed))
		atomic_store_explicit(&l->lines, 0, memory_order_relaxed);
	if (atomic_fetch_add_explicit(&l->lines, 1, memory_order_relaxed) >= COMCH_PEER_LOG_PER_S) {
		atomic_fetch_add_explicit(&l->dropped, 1, memory_order_relaxed);
		return false;
	}
	*dropped = atomic_exchange_explicit(&l->dropped, 0, memory_order_relaxed);
	return true;
}

bool comch_server_path(char *out, size_t n, uint64_t system_id, const char *rep_pci,
                       const char *name, const char **why)
{
	char dir[256];
	uint8_t key[8 + DOCA_DEVINFO_PCI_ADDR_SIZE + COMCH_NAME_MAX];
	size_t klen = 0;
	uint64_t h;
	int len;

	if (!doca_priv_rundir(dir, sizeof(dir), why))
		return false;
	for (int i = 0; i < 8; i++)
		key[klen++] = (uint8_t)(system_id >> (8 * i));
	memcpy(key + klen, rep_pci, strlen(rep_pci) + 1);
	klen += strlen(rep_pci) + 1;
	memcpy(key + klen, name, strlen(name));
	klen += strlen(name);
	h = odma_fnv1a64(key, klen);
	len = snprintf(out, n, "%s/comch-%016llx.sock", dir, (unsigned long long)h);
	if (len < 0 || (size_t)len >= n) {
		*why = "the runtime directory path is too long for a socket name (108 bytes at "
		       "most); set ODMA_RUNDIR to a shorter directory";
		return false;
	}
	return true;
}

int comch_wire_send(int fd, uint32_t type, uint32_t arg, const void *payload, size_t len,
                    int pass_fd)
{
	struct comch_wire_hdr hdr = { .type = type, .arg = arg };
	struct iovec iov[2] = { { .iov_base = &hdr, .iov_len = sizeof(hdr) },
		                { .iov_base = (void *)(uintptr_t)payload, .iov_len = len } };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };
	ssize_t r;

	if (pass_fd >= 0) {
		struct cmsghdr *c;

		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof(ctl.buf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
	}
	do
		r = sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return errno == EWOULDBLOCK ? EAGAIN : errno;
	return 0;
}

ssize_t comch_wire_recv(int fd, void *buf, size_t cap, int *fd_out)
{
	struct iovec iov = { .iov_base = buf, .iov_len = cap };
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct msghdr mh = { .msg_iov = &iov,
		             .msg_iovlen = 1,
		             .msg_control = ctl.buf,
		             .msg_controllen = sizeof(ctl.buf) };
	ssize_t r;

	*fd_out = -1;
	do
		r = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
		size_t nfd;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < nfd; i++) {
			int f;

			memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*fd_out < 0)
				*fd_out = f;
			else
				close(f);
		}
	}
	/* 0: the end of the stream, or a packet of no bytes, which ends it too */
	if (r != 0 && (mh.msg_flags & MSG_TRUNC))
		r = -EMSGSIZE;
	else if (r != 0 && (size_t)r < sizeof(struct comch_wire_hdr))
		r = -EPROTO;
	if (r <= 0 && *fd_out >= 0) { /* a descriptor that came with no packet to use it */
		close(*fd_out);
		*fd_out = -1;
	}
	return r;
}

/* The seals every shared page carries: its size can never change once it is shared. */
#define COMCH_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)

void *comch_shm_create(size_t size, int *fd_out, const char *what)
{
	int fd = memfd_create(what, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	void *p;

	if (fd < 0)
		return NULL;
	if (ftruncate(fd, (off_t)size) != 0 || fcntl(fd, F_ADD_SEALS, COMCH_SEALS) != 0) {
		close(fd);
		return NULL;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		close(fd);
		return NULL;
	}
	*fd_out = fd;
	return p;
}

void comch_peer_text(const void *p, size_t n, char *out, size_t cap)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n && i + 1 < cap && b[i] != 0; i++)
		out[i] = b[i] >= 0x20 && b[i] < 0x7f ? (char)b[i] : '?';
	if (cap != 0)
		out[i] = '\0';
}

void *comch_shm_map(int fd, size_t size, const char **why)
{
	struct statfs sfs;
	struct stat st;
	int seals;
	void *p;

	/* the seals first: a size read before them may change before they are added */
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || (seals & COMCH_SEALS) != COMCH_SEALS) {
		*why = "the shared-memory file is not sealed against resizing (memfd with "
		       "F_SEAL_SHRINK, F_SEAL_GROW and F_SEAL_SEAL)";
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		*why = "the passed descriptor is not a shared-memory file";
		return NULL;
	}
	/*
	 * only ordinary shared memory: the owner of a hugetlbfs memfd, sealed or not, can punch
	 * its pages out and take the pool's last one, and the next touch here is a SIGBUS
	 */
	if (fstatfs(fd, &sfs) != 0 || sfs.f_type != TMPFS_MAGIC) {
		*why = "the shared-memory file is not a memfd of ordinary memory (hugetlbfs pages "
		       "can be taken back by their owner)";
		return NULL;
	}
	if ((uint64_t)st.st_size != size) {
		*why = "the shared-memory file's size differs from the announced size";
		return NULL;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		*why = strerror(errno);
		return NULL;
	}
	return p;
}

bool comch_peer_cred(int fd, pid_t *pid, uid_t *uid)
{
	struct ucred cred;
	socklen_t cl = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) != 0 || cl != sizeof(cred))
		return false;
	*pid = cred.pid;
	*uid = cred.uid;
	return true;
}

doca_error_t comch_peer_policy_load(struct comch_peer_policy *p)
{
	const char *v = doca_priv_config_string("ODMA_COMCH_ALLOW_UIDS");
	const char *s = v;

	memset(p, 0, sizeof(*p));
	if (v == NULL)
		return DOCA_SUCCESS;
	if (strcmp(v, "any") == 0) {
		p->any = true;
		return DOCA_SUCCESS;
	}
	while (*s != '\0') {
		char *end;
		unsigned long u;

		if (*s < '0' || *s > '9' || p->n == COMCH_ALLOW_UIDS_MAX)
			goto bad;
		errno = 0;
		u = strtoul(s, &end, 10);
		if (errno != 0 || u > UINT32_MAX - 1 || (*end != ',' && *end != '\0'))
			goto bad;
		p->uids[p->n++] = (uid_t)u;
		s = *end == ',' ? end + 1 : end;
		if (*end == ',' && *s == '\0')
			goto bad;
	}
	return DOCA_SUCCESS;
bad:
	doca_priv_config_refuse("ODMA_COMCH_ALLOW_UIDS", v,
	                        NULL); /* at most COMCH_ALLOW_UIDS_MAX */
	memset(p, 0, sizeof(*p));
	return DOCA_ERROR_INVALID_VALUE;
}

bool comch_peer_uid_ok(const struct comch_peer_policy *p, uid_t uid)
{
	if (uid == geteuid() || uid == 0 || p->any)
		return true;
	for (uint32_t i = 0; i < p->n; i++)
		if (p->uids[i] == uid)
			return true;
	return false;
}

doca_error_t comch_connect_timeout_ms(uint32_t *ms)
{
	uint64_t v;
	doca_error_t r = doca_priv_config_size("ODMA_COMCH_CONNECT_TIMEOUT_MS",
	                                       COMCH_DEFAULT_TIMEOUT_MS, &v);

	*ms = (uint32_t)v;
	return r;
}

uint32_t comch_rand_range(uint64_t *state, uint32_t lo, uint32_t hi)
{
	uint64_t x = *state ? *state : 0x9e3779b97f4a7c15ull;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	if (hi <= lo)
		return lo;
	return lo + (uint32_t)((x * 0x2545f4914f6cdd1dull) % ((uint64_t)hi - lo + 1));
}
