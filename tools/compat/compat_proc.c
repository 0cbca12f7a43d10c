/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Child processes for odma-compat. Every child runs in its own process group, so a sample that
 * forks helpers (or a hung meson) is killed as a whole when its time is up, and the helpers it
 * leaves behind go when it ends; nothing is waited for without a limit.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"

double compat_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void compat_sleep(double seconds)
{
	struct timespec ts;

	if (seconds <= 0)
		return;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/*
 * The children alive now (0: a free slot), for a signal that ends odma compat: each runs in a
 * process group of its own, which the terminal's Ctrl-C or hang-up does not reach, so it ran on
 * without its parent (a build, or the program under test holding what it holds).
 */
#define PROC_LIVE_MAX 256
static volatile pid_t proc_live[PROC_LIVE_MAX];
static struct sigaction proc_prev[3];
static const int proc_signals[3] = { SIGINT, SIGTERM, SIGHUP };

static void proc_on_signal(int sig)
{
	for (size_t i = 0; i < PROC_LIVE_MAX; i++)
		if (proc_live[i] > 0)
			kill(-proc_live[i], SIGKILL);
	for (size_t i = 0; i < 3; i++)
		if (proc_signals[i] == sig)
			sigaction(sig, &proc_prev[i], NULL); /* --split-netns cleans up its own */
	raise(sig);
}

/* Catches the signals that end odma compat, once; one the caller ignores (nohup) stays so. */
static void proc_catch_signals(void)
{
	static bool done;
	struct sigaction sa;

	if (done)
		return;
	done = true;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = proc_on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < 3; i++)
		if (sigaction(proc_signals[i], NULL, &proc_prev[i]) == 0 &&
		    proc_prev[i].sa_handler != SIG_IGN)
			sigaction(proc_signals[i], &sa, NULL);
}

/* Records @pid as alive (@add) or forgets it. */
static void proc_track(pid_t pid, bool add)
{
	for (size_t i = 0; i < PROC_LIVE_MAX; i++)
		if (proc_live[i] == (add ? 0 : pid)) {
			proc_live[i] = add ? pid : 0;
			return;
		}
}

static void child_setup(const char *cwd, int out_fd, int in_fd, const struct compat_env *env,
                        size_t n)
{
	size_t i;

	setpgid(0, 0);
	if (in_fd >= 0 && dup2(in_fd, STDIN_FILENO) < 0)
		_exit(126);
	if (dup2(out_fd, STDOUT_FILENO) < 0 || dup2(out_fd, STDERR_FILENO) < 0)
		_exit(126);
	if (cwd != NULL && chdir(cwd) != 0) {
		fprintf(stderr, "odma compat: cannot enter %s: %s\n", cwd, strerror(errno));
		_exit(126);
	}
	for (i = 0; i < n; i++) {
		if (env[i].value != NULL)
			setenv(env[i].name, env[i].value, 1);
		else
			unsetenv(env[i].name);
	}
}

int compat_proc_start(struct compat_proc *p, char *const argv[], const char *cwd, const char *log,
                      const struct compat_env *env, size_t n, bool pipe_stdin)
{
	int out_fd, in_fd, pipefd[2] = { -1, -1 };
	pid_t pid;

	memset(p, 0, sizeof(*p));
	p->stdin_fd = -1;
	p->status = -1;
	snprintf(p->log, sizeof(p->log), "%s", log);
	out_fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (out_fd < 0)
		return -1;
	if (pipe_stdin) {
		if (pipe2(pipefd, O_CLOEXEC) != 0) {
			close(out_fd);
			return -1;
		}
		in_fd = pipefd[0];
	} else {
		in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		child_setup(cwd, out_fd, in_fd, env, n);
		execvp(argv[0], argv);
		fprintf(stderr, "odma compat: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(out_fd);
	if (in_fd >= 0)
		close(in_fd);
	if (pid < 0) {
		if (pipefd[1] >= 0)
			close(pipefd[1]);
		return -1;
	}
	/* Also from here: the child may not have run setpgid yet when we first signal it. */
	setpgid(pid, pid);
	proc_catch_signals();
	proc_track(pid, true);
	p->pid = pid;
	p->stdin_fd = pipefd[1];
	return 0;
}

/*
 * Whether @pid has ended; its group's helpers then go too, while the unreaped child still
 * holds the group's number (a helper left running held what it held, a Comch name or a port,
 * into the next run, and one more lived on after every run).
 */
static bool proc_ended(pid_t pid)
{
	siginfo_t si;

	si.si_pid = 0;
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0) {
		proc_track(pid, false);
		return true; /* reaped already: its number may be another's now */
	}
	if (si.si_pid == 0)
		return false;
	kill(-pid, SIGKILL);
	proc_track(pid, false); /* before the reaping frees its number */
	return true;
}

bool compat_proc_poll(struct compat_proc *p)
{
	int st;
	pid_t r;

	if (p->exited || p->pid <= 0)
		return true;
	if (!proc_ended(p->pid))
		return false;
	r = waitpid(p->pid, &st, WNOHANG);
	if (r == p->pid || (r < 0 && errno == ECHILD)) {
		p->exited = true;
		p->status = r == p->pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
		if (p->stdin_fd >= 0) {
			close(p->stdin_fd);
			p->stdin_fd = -1;
		}
		return true;
	}
	return false;
}

void compat_proc_kill(struct compat_proc *p)
{
	double end;

	if (compat_proc_poll(p))
		return;
	kill(-p->pid, SIGTERM);
	end = compat_now() + 2.0;
	while (!compat_proc_poll(p) && compat_now() < end)
		compat_sleep(0.02);
	if (!p->exited) {
		kill(-p->pid, SIGKILL);
		while (!compat_proc_poll(p))
			compat_sleep(0.01);
	}
	/* Helpers the child left behind in its group go too. */
	kill(-p->pid, SIGKILL);
	p->status = -1;
}

bool compat_proc_wait(struct compat_proc *p, double timeout)
{
	double end = compat_now() + timeout;

	while (!compat_proc_poll(p)) {
		if (compat_now() >= end) {
			p->timed_out = true;
			compat_proc_kill(p);
			return false;
		}
		compat_sleep(0.02);
	}
	return true;
}

int compat_proc_run(char *const argv[], const char *cwd, const char *log,
                    const struct compat_env *env, size_t n, double timeout, bool *timed_out)
{
	struct compat_proc p;

	if (timed_out != NULL)
		*timed_out = false;
	if (compat_proc_start(&p, argv, cwd, log, env, n, false) != 0)
		return -1;
	if (!compat_proc_wait(&p, timeout)) {
		if (timed_out != NULL)
			*timed_out = true;
		return -1;
	}
	return p.status;
}

int compat_capture(char *const argv[], const struct compat_env *env, size_t n, char *out,
                   size_t size)
{
	char tmpl[] = "/tmp/odma-compat-capture.XXXXXX";
	int fd, rc;
	char *text, *nl;

	out[0] = '\0';
	fd = mkstemp(tmpl);
	if (fd < 0)
		return -1;
	close(fd);
	rc = compat_proc_run(argv, NULL, tmpl, env, n, 30.0, NULL);
	text = compat_read_file(tmpl, NULL);
	unlink(tmpl);
	if (text != NULL) {
		nl = strchr(text, '\n');
		if (nl != NULL)
			*nl = '\0';
		snprintf(out, size, "%s", text);
		free(text);
	}
	return rc == 0 ? 0 : -1;
}

char *compat_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, used = 0, got;

	if (f == NULL)
		return NULL;
	do {
		if (cap - used < 4096) {
			char *nb = realloc(buf, cap + 65536);

			if (nb == NULL) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
			cap += 65536;
		}
		got = fread(buf + used, 1, cap - used - 1, f);
		used += got;
	} while (got > 0);
	fclose(f);
	buf[used] = '\0';
	if (len != NULL)
		*len = used;
	return buf;
}

int compat_json_path_check(const char *path)
{
	bool existed;
	int fd;

	if (strcmp(path, "-") == 0)
		return 0;
	existed = access(path, F_OK) == 0;
	/* O_NONBLOCK: a FIFO with no reader is refused rather than waited on */
	fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0666);
	if (fd < 0) {
		fprintf(stderr, "odma compat: --json %s: cannot write it: %s\n", path,
		        strerror(errno));
		return 2;
	}
	close(fd);
	if (!existed)
		unlink(path);
	return 0;
}

/* The length of the well-formed UTF-8 character at @s (RFC 3629, table 3-7), 0 if none. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	n = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (s[0] == 0xe0 || s[0] == 0xf0)
		lo = s[0] == 0xe0 ? 0xa0 : 0x90; /* no overlong form */
	else if (s[0] == 0xed || s[0] == 0xf4)
		hi = s[0] == 0xed ? 0x9f : 0x8f; /* no surrogate, nothing past U+10FFFF */
	for (i = 1; i < n; i++, lo = 0x80, hi = 0xbf)
		if (s[i] < lo || s[i] > hi)
			return 0;
	return n;
}

/*
 * Each byte of @s that is part of no whole UTF-8 character, and with @controls each control
 * byte but a tab (an escape sequence a program printed), becomes '?'.
 */
static void utf8_fix(char *s, bool controls)
{
	unsigned char *p = (unsigned char *)s;
	size_t n;

	while (*p != '\0') {
		n = utf8_len(p);
		if (n == 0 || (controls && n == 1 && ((*p < 0x20 && *p != '\t') || *p == 0x7f)))
			*p++ = '?';
		else
			p += n;
	}
}

/*
 * A write error (a full disk, /dev/full) shows at the flush or close: it is said there too.
 * JSON is UTF-8: a program's line cut inside a character (by a "%.200s") or holding bytes of
 * none would make the whole report unreadable, so such bytes are written as '?'.
 */
int compat_json_write(const char *path, const char *text)
{
	bool out = strcmp(path, "-") == 0;
	char *fixed = strdup(text);
	FILE *f = fixed == NULL ? NULL : out ? stdout : fopen(path, "w");
	int rc = -1;

	if (f != NULL) {
		utf8_fix(fixed, false); /* json-c escaped the control bytes already */
		fprintf(f, "%s\n", fixed);
		rc = out ? fflush(f) : fclose(f);
		if (out && ferror(f))
			rc = -1;
	}
	if (rc != 0)
		fprintf(stderr, "odma compat: --json %s: cannot write it: %s\n", path,
		        strerror(errno));
	free(fixed);
	return rc != 0 ? -1 : 0;
}

bool compat_file_contains(const char *path, const char *needle)
{
	char *text = compat_read_file(path, NULL);
	bool found = text != NULL && strstr(text, needle) != NULL;

	free(text);
	return found;
}

/* The next line of @f into @buf: its first @size - 1 bytes, the rest read and dropped. */
static bool read_line(FILE *f, char *buf, size_t size)
{
	size_t n = 0;
	int c;

	while ((c = getc(f)) != EOF && c != '\n')
		if (n + 1 < size)
			buf[n++] = (char)c;
	buf[n] = '\0';
	return c != EOF || n > 0;
}

/* Streams the log a line at a time: a program's log has no bound on its size. */
bool compat_last_line(const char *path, const char *needle, char *out, size_t size)
{
	FILE *f = fopen(path, "rbe");
	char line[4096], *p;
	bool found = false;

	out[0] = '\0';
	if (f == NULL)
		return false;
	while (read_line(f, line, sizeof(line))) {
		p = line + strspn(line, " \t");
		if (*p != '\0' && (needle == NULL || strstr(p, needle) != NULL)) {
			snprintf(out, size, "%s", p);
			found = true;
		}
	}
	fclose(f);
	utf8_fix(out, true);
	return found;
}
