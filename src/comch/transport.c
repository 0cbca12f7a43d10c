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
#include <time.h>
#include <unistd.h>

#include "comch/comch.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(DOCA_COMCH_TRANSPORT)

uint64_t comch_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

size_t comch_ring_bytes(uint32_t nslots, uint32_t slot_size)
{
	return sizeof(struct comch_ring) + (size_t)nslots * slot_size;
}

/* 64-bit FNV-1a (the core's helper is internal to libdoca_common). */
static uint64_t comch_fnv1a64(const uint8_t *b, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* mkdir -p of @path with mode 0700 for the directories it creates. */
static bool comch_mkdirs(char *path)
{
	for (char *p = path + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0700) != 0 && errno != EEXIST) {
			*p = '/';
			return false;
		}
		*p = '/';
	}
	return mkdir(path, 0700) == 0 || errno == EEXIST;
}

bool comch_rundir(char *out, size_t n, const char **why)
{
	const char *env = doca_priv_config_string("ODMA_RUNDIR");
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	bool shared_tmp = false;
	int len;

	if (env != NULL)
		len = snprintf(out, n, "%s", env);
	else if (xdg != NULL && xdg[0] == '/' && stat(xdg, &st) == 0 && S_ISDIR(st.st_mode))
		len = snprintf(out, n, "%s/odma", xdg);
	else {
		len = snprintf(out, n, "/tmp/odma-%u", (unsigned int)getuid());
		shared_tmp = true;
	}
	if (len < 0 || (size_t)len >= n) {
		*why = "the runtime directory path is too long";
		return false;
	}
	while (len > 1 && out[len - 1] == '/')
		out[--len] = '\0';
	if (!comch_mkdirs(out)) {
		*why = strerror(errno);
		return false;
	}
	if (lstat(out, &st) != 0 || !S_ISDIR(st.st_mode)) {
		*why = "it is not a directory";
		return false;
	}
	/* In a world-writable /tmp, only a directory of our own is safe to use. */
	if (shared_tmp && (st.st_uid != getuid() || (st.st_mode & 0077) != 0)) {
		*why = "it is not owned by this user with mode 0700";
		return false;
	}
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

	if (!comch_rundir(dir, sizeof(dir), why))
		return false;
	for (int i = 0; i < 8; i++)
		key[klen++] = (uint8_t)(system_id >> (8 * i));
	memcpy(key + klen, rep_pci, strlen(rep_pci) + 1);
	klen += strlen(rep_pci) + 1;
	memcpy(key + klen, name, strlen(name));
	klen += strlen(name);
	h = comch_fnv1a64(key, klen);
	len = snprintf(out, n, "%s/comch-%016llx.sock", dir, (unsigned long long)h);
	if (len < 0 || (size_t)len >= n) {
		*why = "the runtime directory path is too long for a socket name (108 bytes at "
		       "most); "
		       "set ODMA_RUNDIR to a shorter directory";
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
	if (r == 0)
		return 0;
	if (mh.msg_flags & MSG_TRUNC)
		r = -EMSGSIZE;
	else if ((size_t)r < sizeof(struct comch_wire_hdr))
		r = -EPROTO;
	if (r < 0 && *fd_out >= 0) {
		close(*fd_out);
		*fd_out = -1;
	}
	return r;
}

void *comch_shm_create(size_t size, int *fd_out, const char *what)
{
	int fd = memfd_create(what, MFD_CLOEXEC);
	void *p;

	if (fd < 0)
		return NULL;
	if (ftruncate(fd, (off_t)size) != 0) {
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

void *comch_shm_map(int fd, size_t size, const char **why)
{
	struct stat st;
	void *p;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		*why = "the passed descriptor is not a shared-memory file";
		return NULL;
	}
	if ((uint64_t)st.st_size < size) {
		*why = "the shared-memory file is shorter than announced";
		return NULL;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		*why = strerror(errno);
		return NULL;
	}
	return p;
}

doca_error_t comch_connect_timeout_ms(uint32_t *ms)
{
	uint64_t v;
	doca_error_t r = doca_priv_config_size("ODMA_COMCH_CONNECT_TIMEOUT_MS",
	                                       COMCH_DEFAULT_TIMEOUT_MS, 1, 3600000, &v);

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
