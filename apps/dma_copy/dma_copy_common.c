/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * doca_dma_copy: what both sides share above the control channel: device lookup,
 * checksums, the reason of a failure, cleanup on signals, the files in windows, and the
 * message helpers that turn channel results into log lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_log.h>

#include "dma_copy.h"

DOCA_LOG_REGISTER(DMA_COPY_COMMON);

uint64_t dc_checksum_update(uint64_t h, const void *data, size_t len)
{
	const uint8_t *p = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

static char why_buf[DC_WHY_LEN];

void dc_why_set(const char *fmt, ...)
{
	va_list ap;

	if (why_buf[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(why_buf, sizeof(why_buf), fmt, ap);
	va_end(ap);
}

const char *dc_why(void)
{
	return why_buf[0] != '\0' ? why_buf : "unknown failure (see its log)";
}

/*
 * Cleanup on signals. The handler may run on any thread (an engine's worker too); it only
 * reads slots published with release stores, calls lstat/unlink (async-signal-safe) and
 * re-raises the signal with its default action, so the exit status still says which
 * signal ended the process.
 */
static struct {
	char path[DMA_COPY_MAX_PATH + 16];
	dev_t dev;
	ino_t ino;
	int armed;
} cleanup[DC_CLEANUP_SLOTS];

void dc_cleanup_set(enum dc_cleanup_slot slot, const char *path, dev_t dev, ino_t ino)
{
	__atomic_store_n(&cleanup[slot].armed, 0, __ATOMIC_SEQ_CST);
	if (path == NULL)
		return;
	snprintf(cleanup[slot].path, sizeof(cleanup[slot].path), "%s", path);
	cleanup[slot].dev = dev;
	cleanup[slot].ino = ino;
	__atomic_store_n(&cleanup[slot].armed, 1, __ATOMIC_RELEASE);
}

static void on_fatal_signal(int sig)
{
	int saved = errno;

	for (int i = 0; i < DC_CLEANUP_SLOTS; i++) {
		struct stat st;

		if (!__atomic_load_n(&cleanup[i].armed, __ATOMIC_ACQUIRE))
			continue;
		if (cleanup[i].ino != 0 &&
		    (lstat(cleanup[i].path, &st) != 0 || st.st_dev != cleanup[i].dev ||
		     st.st_ino != cleanup[i].ino))
			continue;
		unlink(cleanup[i].path);
	}
	signal(sig, SIG_DFL);
	errno = saved;
	raise(sig);
}

void dc_signals_install(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;

	/* A peer that vanishes must not kill us before we report and clean up. */
	signal(SIGPIPE, SIG_IGN);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal_signal;
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

struct doca_dev *dc_open_dev(const char *pci, bool need_dma)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;
	uint8_t is;

	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS) {
		DC_ERR("no device list (see the SDK log above)");
		return NULL;
	}
	for (uint32_t i = 0; i < n && dev == NULL; i++)
		if (doca_devinfo_is_equal_pci_addr(list[i], pci, &is) == DOCA_SUCCESS && is &&
		    (!need_dma || doca_dma_cap_task_memcpy_is_supported(list[i]) == DOCA_SUCCESS) &&
		    doca_dev_open(list[i], &dev) != DOCA_SUCCESS)
			dev = NULL;
	doca_devinfo_destroy_list(list);
	if (dev == NULL && need_dma)
		DC_ERR("no DMA-capable device with PCI address %s on this side", pci);
	else if (dev == NULL)
		DC_ERR("no device with PCI address %s on this side; see `doca_caps --list-devs`",
		       pci);
	return dev;
}

doca_error_t dc_source_open(struct dc_source *s, const char *path, uint64_t size)
{
	struct stat st;

	s->path = path;
	s->size = size;
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0) {
		DC_ERR("cannot open %s: %s", path, strerror(errno));
		return DOCA_ERROR_IO_FAILED;
	}
	if (fstat(s->fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != size) {
		DC_ERR("%s changed since the start (no longer a regular file of %llu bytes)", path,
		       (unsigned long long)size);
		dc_source_close(s);
		return DOCA_ERROR_IO_FAILED;
	}
	return DOCA_SUCCESS;
}

doca_error_t dc_source_read(struct dc_source *s, uint64_t off, uint8_t *buf, uint64_t n)
{
	while (n) {
		ssize_t k = pread(s->fd, buf, n, (off_t)off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			DC_ERR("cannot read %s at offset %llu: %s", s->path,
			       (unsigned long long)off,
			       k < 0 ? strerror(errno) : "the file shrank during the copy");
			return DOCA_ERROR_IO_FAILED;
		}
		buf += k;
		off += (uint64_t)k;
		n -= (uint64_t)k;
	}
	return DOCA_SUCCESS;
}

void dc_source_close(struct dc_source *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

/* The directory of @path into @dir (".", "/" or the part before the last slash). */
static bool dir_of(const char *path, char *dir, size_t size)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash == NULL ? 0 : slash == path ? 1 : (size_t)(slash - path);

	if (n == 0)
		return snprintf(dir, size, ".") < (int)size;
	if (n >= size)
		return false;
	memcpy(dir, path, n);
	dir[n] = '\0';
	return true;
}

/*
 * An unnamed file in the destination's directory (O_TMPFILE): nothing is visible under
 * any name until dc_sink_commit links it, so even SIGKILL leaves nothing behind. -1 with
 * errno EOPNOTSUPP when the file system (or the kernel) has no O_TMPFILE, or when
 * ODMA_DMA_COPY_NO_TMPFILE=1 asks for the named fallback (tests).
 */
static bool no_tmpfile(void)
{
	const char *no = getenv("ODMA_DMA_COPY_NO_TMPFILE");

	return no != NULL && strcmp(no, "1") == 0;
}

static int open_unnamed(const char *path)
{
	char dir[DMA_COPY_MAX_PATH];
	int fd;

	if (no_tmpfile()) {
		errno = EOPNOTSUPP;
		return -1;
	}
	if (!dir_of(path, dir, sizeof(dir))) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	/* kernels before 3.11 take O_TMPFILE for O_DIRECTORY: EISDIR */
	if (fd < 0 && (errno == EISDIR || errno == EINVAL || errno == ENOSYS))
		errno = EOPNOTSUPP;
	return fd;
}

/* The fallback: FILE.XXXXXX next to FILE, removed on failure and on SIGINT/SIGTERM/SIGHUP. */
static int open_named(struct dc_sink *s)
{
	struct stat st;
	sigset_t all, old;
	int fd, saved;

	/* No signal between creating the file and arming its removal. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	fd = mkostemp(s->tmp, O_CLOEXEC);
	saved = errno;
	if (fd >= 0 && fstat(fd, &st) == 0)
		dc_cleanup_set(DC_CLEANUP_TEMP, s->tmp, st.st_dev, st.st_ino);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (fd < 0)
		s->tmp[0] = '\0';
	errno = saved;
	return fd;
}

/* What the sink's file is called in messages. */
static const char *sink_name(const struct dc_sink *s)
{
	return s->tmp[0] != '\0' ? s->tmp : s->path;
}

/*
 * Whether nothing is named @path yet; logs why otherwise. The start-up found no file there
 * (this side receives), but a symbolic link to nothing (its target missing, or a loop) looks
 * absent to stat(2) and would refuse the copy only once it is complete.
 */
static bool dest_absent(const char *path)
{
	struct stat st;

	if (lstat(path, &st) != 0)
		return true;
	DC_ERR("cannot write the destination %s: %s; doca_dma_copy never replaces or writes "
	       "through it (remove it, or choose another --file)",
	       path,
	       S_ISLNK(st.st_mode) ? "it is a symbolic link to nothing (a missing target or a loop)"
	                           : "it appeared after the start");
	return false;
}

doca_error_t dc_sink_open(struct dc_sink *s, const char *path)
{
	const char *no = getenv("ODMA_DMA_COPY_NO_TMPFILE");

	s->path = path;
	s->fd = -1;
	s->tmp[0] = '\0';
	if (no != NULL && *no != '\0' && !no_tmpfile()) {
		DC_ERR("ODMA_DMA_COPY_NO_TMPFILE=\"%s\" is not 1, or unset; doca_dma_copy "
		       "stops with exit status 1",
		       no);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!dest_absent(path))
		return DOCA_ERROR_IO_FAILED;
	s->fd = open_unnamed(path);
	if (s->fd < 0 && errno == EOPNOTSUPP) {
		DOCA_LOG_WARN("the file system of %s has no unnamed files (O_TMPFILE): writing "
		              "%s.XXXXXX instead, which a SIGKILL would leave behind",
		              path, path);
		snprintf(s->tmp, sizeof(s->tmp), "%s.XXXXXX", path);
		s->fd = open_named(s);
	}
	if (s->fd < 0) {
		DC_ERR("cannot write the destination %s: "
		       "creating a temporary file next to it failed: %s",
		       path, strerror(errno));
		return DOCA_ERROR_IO_FAILED;
	}
	return DOCA_SUCCESS;
}

doca_error_t dc_sink_write(struct dc_sink *s, uint64_t off, const uint8_t *buf, uint64_t n)
{
	uint64_t start = off, len = n;

	while (n) {
		ssize_t k = pwrite(s->fd, buf, n, (off_t)off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			DC_ERR("cannot write %s: %s", sink_name(s),
			       k < 0 ? strerror(errno) : "short write");
			return DOCA_ERROR_IO_FAILED;
		}
		buf += k;
		off += (uint64_t)k;
		n -= (uint64_t)k;
	}
	/* Start the write-back now: the final fsync then stays short even for a large file. */
	(void)sync_file_range(s->fd, (off_t)start, (off_t)len, SYNC_FILE_RANGE_WRITE);
	return DOCA_SUCCESS;
}

/* Gives the unnamed file @fd the name @path, unless @path exists (linkat never replaces). */
static int link_unnamed(int fd, const char *path)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	if (errno != ENOENT)
		return -1;
	/* no /proc: AT_EMPTY_PATH (needs CAP_DAC_READ_SEARCH) */
	return linkat(fd, "", AT_FDCWD, path, AT_EMPTY_PATH);
}

/* Puts @tmp in place as @path unless @path exists (never replaces a file). */
static int place_no_replace(const char *tmp, const char *path)
{
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	/* A file system without RENAME_NOREPLACE: link() refuses an existing name too. */
	if (link(tmp, path) != 0)
		return -1;
	unlink(tmp);
	return 0;
}

doca_error_t dc_sink_commit(struct dc_sink *s)
{
	bool ok = fchmod(s->fd, 0644) == 0 && fsync(s->fd) == 0;
	bool named = s->tmp[0] != '\0';
	int saved = errno, placed = -1;

	if (ok && !named) {
		placed = link_unnamed(s->fd, s->path);
		saved = errno;
	}
	if (close(s->fd) != 0 && ok) {
		ok = false;
		saved = errno;
	}
	s->fd = -1;
	if (ok && named) {
		placed = place_no_replace(s->tmp, s->path);
		saved = errno;
	}
	if (!ok) {
		DC_ERR("cannot write %s: %s", sink_name(s), strerror(saved));
		if (placed == 0)
			unlink(s->path); /* linked, then the close failed: ours, remove it */
		dc_sink_abort(s);
		return DOCA_ERROR_IO_FAILED;
	}
	if (placed != 0) {
		DC_ERR("cannot put the copy in place as %s: %s", s->path,
		       saved == EEXIST ? "the file appeared during the copy; not replacing it"
		                       : strerror(saved));
		dc_sink_abort(s);
		return DOCA_ERROR_IO_FAILED;
	}
	dc_cleanup_set(DC_CLEANUP_TEMP, NULL, 0, 0);
	s->tmp[0] = '\0';
	return DOCA_SUCCESS;
}

void dc_sink_abort(struct dc_sink *s)
{
	if (s->fd >= 0)
		close(s->fd); /* an unnamed file vanishes with its last descriptor */
	s->fd = -1;
	dc_cleanup_set(DC_CLEANUP_TEMP, NULL, 0, 0);
	if (s->tmp[0] != '\0')
		unlink(s->tmp);
	s->tmp[0] = '\0';
}

uint8_t *dc_alloc(uint64_t size)
{
	/*
	 * Populated up front: a DMA destination page first touched inside the kernel's
	 * cross-process copy costs far more than a fault taken here.
	 */
	void *p = mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED) {
		DC_ERR("cannot allocate %llu bytes: %s", (unsigned long long)size, strerror(errno));
		return NULL;
	}
	return p;
}

void dc_free(uint8_t *p, uint64_t size)
{
	if (p != NULL)
		munmap(p, size ? size : 1);
}

/*
 * The peer's reason made one printable line for our log: a control character (a newline
 * that would start a forged log line, a terminal escape) becomes '?'.
 */
static void one_line(char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

/* Whether @m (of @got bytes) is the peer saying it failed; logs it. */
static bool peer_failed(struct dc_chan *c, const void *m, uint32_t got, const char *peer)
{
	if (got == sizeof(struct dc_status) && dc_msg_type(m) == DC_MSG_X_STATUS) {
		struct dc_status st;

		memcpy(&st, m, sizeof(st));
		if (st.ok)
			return false;
		st.why[sizeof(st.why) - 1] = '\0';
		one_line(st.why);
		DC_ERR("the %s side failed: %s", peer, st.why);
		return true;
	}
	if (got == sizeof(struct dc_nv_status) && dc_msg_type(m) == DC_MSG_STATUS &&
	    !((const struct dc_nv_status *)m)->is_success) {
		DC_ERR("the %s side failed "
		       "(NVIDIA's DMA Copy application sends no reason; see its log)",
		       peer);
		dc_chan_set_nvidia(c, true); /* it speaks only NVIDIA's messages */
		return true;
	}
	return false;
}

/*
 * Receives one message of @type with @min..@max bytes (*@len: how many). With @lost (a send
 * just failed), only looks for the reason the peer may have left before it closed: a
 * failure status or busy.
 */
static doca_error_t expect(struct dc_chan *c, uint32_t type, void *msg, uint32_t min, uint32_t max,
                           uint32_t *len, int timeout_ms, const char *peer, bool lost)
{
	union {
		struct dc_status st;
		uint8_t bytes[DC_MAX_MSG];
	} m;
	uint32_t got = 0;
	doca_error_t r = dc_chan_recv(c, &m, sizeof(m), &got, timeout_ms);

	if (r == DOCA_ERROR_TIME_OUT && !lost) {
		DC_ERR("the %s side sent nothing for %d s (--timeout); giving up", peer,
		       timeout_ms / 1000);
		return r;
	}
	if (r == DOCA_ERROR_CONNECTION_RESET || (lost && r == DOCA_ERROR_TIME_OUT)) {
		DC_ERR("the %s side closed the control channel (it exited or failed; see its log)",
		       peer);
		return DOCA_ERROR_CONNECTION_RESET;
	}
	if (r == DOCA_ERROR_IN_USE) {
		DC_ERR("the %s side is already serving another host; run one host at a time "
		       "(retry once it has finished)",
		       peer);
		return r;
	}
	if (r != DOCA_SUCCESS) {
		dc_why_set("malformed control message from the %s side", peer);
		return r;
	}
	if (peer_failed(c, &m, got, peer))
		return DOCA_ERROR_CONNECTION_ABORTED;
	if (lost) {
		DC_ERR("the %s side closed the control channel (it exited or failed; see its log)",
		       peer);
		return DOCA_ERROR_CONNECTION_RESET;
	}
	if (dc_msg_type(&m) != type || got < min || got > max) {
		DC_ERR("unexpected control message from the %s side (type 0x%x, %u bytes; wanted "
		       "type 0x%x, %u to %u bytes)",
		       peer, dc_msg_type(&m), got, type, min, max);
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(msg, &m, got);
	*len = got;
	return DOCA_SUCCESS;
}

doca_error_t dc_expect(struct dc_chan *c, uint32_t type, void *msg, uint32_t len, int timeout_ms,
                       const char *peer)
{
	uint32_t got;

	return expect(c, type, msg, len, len, &got, timeout_ms, peer, false);
}

doca_error_t dc_expect_upto(struct dc_chan *c, uint32_t type, void *msg, uint32_t min, uint32_t max,
                            uint32_t *len, int timeout_ms, const char *peer)
{
	return expect(c, type, msg, min, max, len, timeout_ms, peer, false);
}

doca_error_t dc_send(struct dc_chan *c, const void *msg, uint32_t len, const char *peer)
{
	struct dc_status st;
	uint32_t got;

	if (dc_chan_send(c, msg, len) == DOCA_SUCCESS)
		return DOCA_SUCCESS;
	/* The peer may have said why before it closed (a failure, or busy): report that. */
	return expect(c, DC_MSG_X_STATUS, &st, sizeof(st), sizeof(st), &got, 1, peer, true);
}

void dc_confirm(struct dc_chan *c, const void *msg, uint32_t len, const struct dc_sink *sink,
                const char *state, const char *peer)
{
	/* The file is in place: this side's copy is complete even if the answer is lost. */
	if (dc_chan_send(c, msg, len) != DOCA_SUCCESS)
		DOCA_LOG_WARN("%s is %s, but the %s side did not get the confirmation (the "
		              "connection was lost): it reports a failure",
		              sink->path, state, peer);
}

void dc_send_failure(struct dc_chan *c)
{
	struct dc_status st = { .type = DC_MSG_X_STATUS, .ok = 0 };
	struct dc_nv_status nv = { .type = DC_MSG_STATUS, .is_success = 0 };

	if (c == NULL)
		return;
	if (dc_chan_nvidia(c)) {
		(void)dc_chan_send(c, &nv, sizeof(nv));
		return;
	}
	snprintf(st.why, sizeof(st.why), "%s", dc_why());
	(void)dc_chan_send(c, &st, sizeof(st));
}

doca_error_t dc_chunk_check(const struct dc_chunk *c, uint64_t off, uint64_t n, const char *peer)
{
	if (c->offset != off || c->len != n) {
		DC_ERR("the %s side announced bytes %llu+%llu; expected %llu+%llu", peer,
		       (unsigned long long)c->offset, (unsigned long long)c->len,
		       (unsigned long long)off, (unsigned long long)n);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

doca_error_t dc_finish(struct dc_chan *c, struct dc_sink *sink, bool sender, uint64_t sum,
                       int timeout_ms, const char *peer)
{
	struct dc_status st = { .type = DC_MSG_X_STATUS, .ok = 1, .checksum = sum };
	doca_error_t r;

	if (sender) {
		if ((r = dc_send(c, &st, sizeof(st), peer)))
			return r;
		/* Success only once the peer has the file: it may still fail to store it. */
		return dc_expect(c, DC_MSG_X_STATUS, &st, sizeof(st), timeout_ms, peer);
	}
	if ((r = dc_expect(c, DC_MSG_X_STATUS, &st, sizeof(st), timeout_ms, peer)))
		return r;
	if (st.checksum != sum) {
		DC_ERR("checksum mismatch: the received data differs from the %s's file", peer);
		return DOCA_ERROR_IO_FAILED;
	}
	if ((r = dc_sink_commit(sink)))
		return r;
	st = (struct dc_status){ .type = DC_MSG_X_STATUS, .ok = 1, .checksum = sum };
	dc_confirm(c, &st, sizeof(st), sink, "complete and verified", peer);
	return DOCA_SUCCESS;
}

static double dc_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* @v bytes as "512 KiB", "1.2 GiB". */
static const char *dc_bytes(char *buf, size_t n, double v)
{
	static const char *const unit[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
	return buf;
}

static void dc_progress_print(struct dc_progress *p, uint64_t done, double now)
{
	char a[32], b[32], r[32];
	double s = now - p->t0;

	fprintf(stderr, "\r%s %s of %s (%d%%), %s/s\033[K", p->verb,
	        dc_bytes(a, sizeof(a), (double)done), dc_bytes(b, sizeof(b), (double)p->total),
	        p->total ? (int)(done * 100 / p->total) : 100,
	        dc_bytes(r, sizeof(r), s > 0 ? (double)done / s : 0));
	fflush(stderr);
	p->shown = true;
	p->last = now;
}

void dc_progress_start(struct dc_progress *p, const struct dma_copy_cfg *cfg, uint64_t total)
{
	memset(p, 0, sizeof(*p));
	p->on = !cfg->quiet && total >= DC_PROGRESS_MIN && isatty(STDERR_FILENO) == 1;
	p->verb = cfg->have_file ? "sent" : "received";
	p->total = total;
	p->t0 = p->last = dc_now_s();
}

void dc_progress_update(struct dc_progress *p, uint64_t done)
{
	double now;

	if (!p->on)
		return;
	now = dc_now_s();
	if (now - p->last >= 1.0)
		dc_progress_print(p, done, now);
}

void dc_progress_end(struct dc_progress *p, uint64_t done)
{
	if (!p->on)
		return;
	dc_progress_print(p, done, dc_now_s());
	fputc('\n', stderr);
	p->on = false;
}
