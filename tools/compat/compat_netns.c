/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * `odma compat --split-netns`: the launcher that puts the host side and the DPU side of a pair
 * each into a network namespace of its own, joined only by a veth pair made here, and each
 * into a PID (and mount, for its own /proc) namespace of its own: what two containers or two
 * machines give. Both sides get ODMA_FABRIC (the DPU side's address) and a runtime directory
 * of their own (nothing meets through ODMA_RUNDIR); they share only the run's working
 * directory, where programs like dma_copy_host/dma_copy_dpu exchange their files.
 *
 * The namespaces live as long as the check: made once by compat_netns_setup, removed by
 * compat_netns_cleanup (which first kills whatever still runs in them), also at exit and on
 * SIGINT, SIGTERM and SIGHUP. A process is started as `ip netns exec NS unshare --pid --fork
 * --kill-child --mount-proc -- ARGV`, in one process group: when its time is up, killing the group
 * kills unshare, whose child (PID 1 of the new PID namespace) gets SIGKILL, and the kernel then
 * kills everything in that namespace. Programs that run alone (no side) run here, as with the local
 * launcher.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat.h"

/* Addresses exist only inside the two namespaces, so every check may use the same ones. */
#define NET_HOST_ADDR "10.203.0.1"
#define NET_DPU_ADDR "10.203.0.2"
#define NET_PORT "18515"

/* The namespaces and links of this process (one check at a time per process). */
static struct {
	bool up;
	char ns_host[32], ns_dpu[32];
	char veth_host[16], veth_dpu[16];
	char fabric[64];
	char secret[65]; /* ODMA_FABRIC_SECRET of both sides: fresh for each run */
	char rundir_host[PATH_MAX], rundir_dpu[PATH_MAX];
	char log[PATH_MAX];
} nn;

/* Runs `ip ARGS...` (argv without "ip"), output appended to the setup log; 0 on success. */
static int ip(const char *a0, const char *a1, const char *a2, const char *a3, const char *a4,
              const char *a5, const char *a6, const char *a7, const char *a8)
{
	char *argv[] = { "ip",       (char *)a0, (char *)a1, (char *)a2, (char *)a3, (char *)a4,
		         (char *)a5, (char *)a6, (char *)a7, (char *)a8, NULL };

	return compat_proc_run(argv, NULL, nn.log, NULL, 0, 30.0, NULL) == 0 ? 0 : -1;
}

/* Fork and exec only: safe from a signal handler too. */
static void ip_quiet(char *const argv[])
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execvp("ip", argv);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
}

/* Kills every process in network namespace @ns (`ip netns pids`); signal-safe calls only. */
static void kill_ns_pids(char *ns)
{
	char *argv[] = { "ip", "netns", "pids", ns, NULL };
	char buf[4096];
	size_t used = 0, i;
	ssize_t got;
	long pid = 0;
	int fds[2], st;
	pid_t child;

	if (pipe(fds) != 0)
		return;
	child = fork();
	if (child == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fds[1], STDOUT_FILENO);
		if (fd >= 0)
			dup2(fd, STDERR_FILENO);
		close(fds[0]);
		execvp("ip", argv);
		_exit(127);
	}
	close(fds[1]);
	while (child > 0 && used < sizeof(buf) - 1 &&
	       ((got = read(fds[0], buf + used, sizeof(buf) - 1 - used)) > 0 ||
	        (got < 0 && errno == EINTR)))
		used += got > 0 ? (size_t)got : 0;
	close(fds[0]);
	if (child > 0)
		while (waitpid(child, &st, 0) < 0 && errno == EINTR)
			;
	for (i = 0; i <= used; i++) {
		if (i < used && buf[i] >= '0' && buf[i] <= '9') {
			pid = pid * 10 + (buf[i] - '0');
			continue;
		}
		if (pid > 1)
			kill((pid_t)pid, SIGKILL);
		pid = 0;
	}
}

void compat_netns_cleanup(void)
{
	char *del_h[] = { "ip", "netns", "del", nn.ns_host, NULL };
	char *del_d[] = { "ip", "netns", "del", nn.ns_dpu, NULL };

	if (!nn.up)
		return;
	nn.up = false;
	/* what a side left behind (after a signal: everything still running there) */
	kill_ns_pids(nn.ns_host);
	kill_ns_pids(nn.ns_dpu);
	/* the veth pair goes with the namespaces */
	ip_quiet(del_h);
	ip_quiet(del_d);
}

static void on_signal(int sig)
{
	compat_netns_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

int compat_netns_setup(struct compat_ctx *c, char *err, size_t size)
{
	long pid = (long)getpid();
	char last[300];

	err[0] = '\0';
	if (geteuid() != 0) {
		snprintf(err, size,
		         "--split-netns needs root (it creates network and PID namespaces and a "
		         "veth pair); run it as root, or without --split-netns");
		return -1;
	}
	snprintf(nn.ns_host, sizeof(nn.ns_host), "odma-cx-h%ld", pid);
	snprintf(nn.ns_dpu, sizeof(nn.ns_dpu), "odma-cx-d%ld", pid);
	snprintf(nn.veth_host, sizeof(nn.veth_host), "ocxh%ld", pid % 10000000);
	snprintf(nn.veth_dpu, sizeof(nn.veth_dpu), "ocxd%ld", pid % 10000000);
	snprintf(nn.fabric, sizeof(nn.fabric), "%s:%s", NET_DPU_ADDR, NET_PORT);
	{
		uint8_t raw[32];

		if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
			snprintf(err, size, "--split-netns: no random bytes for the fabric secret");
			return -1;
		}
		for (size_t i = 0; i < sizeof(raw); i++)
			snprintf(nn.secret + 2 * i, 3, "%02x", raw[i]);
	}
	snprintf(nn.log, sizeof(nn.log), "%s/split-netns.log", c->work);
	snprintf(nn.rundir_host, sizeof(nn.rundir_host), "%s/rundir-host", c->work);
	snprintf(nn.rundir_dpu, sizeof(nn.rundir_dpu), "%s/rundir-dpu", c->work);
	if (compat_mkdir_p(nn.rundir_host) != 0 || compat_mkdir_p(nn.rundir_dpu) != 0) {
		snprintf(err, size, "cannot create %s: %s", nn.rundir_host, strerror(errno));
		return -1;
	}
	if (ip("netns", "add", nn.ns_host, NULL, NULL, NULL, NULL, NULL, NULL) != 0) {
		compat_last_line(nn.log, NULL, last, sizeof(last));
		snprintf(err, size,
		         "--split-netns cannot create network namespace %s (ip netns add: %s); "
		         "it needs iproute2's ip and the right to create namespaces "
		         "(CAP_SYS_ADMIN, CAP_NET_ADMIN)",
		         nn.ns_host, last[0] != '\0' ? last : "failed");
		return -1;
	}
	nn.up = true;
	atexit(compat_netns_cleanup);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	if (ip("netns", "add", nn.ns_dpu, NULL, NULL, NULL, NULL, NULL, NULL) != 0 ||
	    ip("link", "add", nn.veth_host, "type", "veth", "peer", "name", nn.veth_dpu, NULL) !=
	            0 ||
	    ip("link", "set", nn.veth_host, "netns", nn.ns_host, NULL, NULL, NULL, NULL) != 0 ||
	    ip("link", "set", nn.veth_dpu, "netns", nn.ns_dpu, NULL, NULL, NULL, NULL) != 0 ||
	    ip("-n", nn.ns_host, "addr", "add", NET_HOST_ADDR "/24", "dev", nn.veth_host, NULL,
	       NULL) != 0 ||
	    ip("-n", nn.ns_dpu, "addr", "add", NET_DPU_ADDR "/24", "dev", nn.veth_dpu, NULL,
	       NULL) != 0 ||
	    ip("-n", nn.ns_host, "link", "set", "lo", "up", NULL, NULL, NULL) != 0 ||
	    ip("-n", nn.ns_dpu, "link", "set", "lo", "up", NULL, NULL, NULL) != 0 ||
	    ip("-n", nn.ns_host, "link", "set", nn.veth_host, "up", NULL, NULL, NULL) != 0 ||
	    ip("-n", nn.ns_dpu, "link", "set", nn.veth_dpu, "up", NULL, NULL, NULL) != 0) {
		char *del[] = { "ip", "link", "del", nn.veth_host, NULL };

		ip_quiet(del);
		compat_netns_cleanup();
		compat_last_line(nn.log, NULL, last, sizeof(last));
		snprintf(err, size,
		         "--split-netns cannot set up the namespaces and their veth pair (ip: %s)",
		         last[0] != '\0' ? last : "failed");
		return -1;
	}
	return 0;
}

const char *compat_netns_fabric(void)
{
	return nn.fabric;
}

const char *compat_netns_dpu_addr(void)
{
	return NET_DPU_ADDR;
}

static int netns_start(const struct compat_launcher *l, const struct compat_launch *w,
                       struct compat_proc *p)
{
	static const char *const wrap[] = { "ip",           "netns", "exec",   NULL,
		                            "unshare",      "--pid", "--fork", "--kill-child",
		                            "--mount-proc", "--" };
	const size_t nwrap = sizeof(wrap) / sizeof(wrap[0]);
	bool dpu;
	char *argv[64];
	struct compat_env env[24];
	size_t i, n = 0, ne = 0;

	(void)l;
	if (w->side == NULL) { /* a program alone runs here; an Arm one under qemu-user */
		for (i = 0; i < w->nenv && ne < 20; i++)
			env[ne++] = w->env[i];
		if (!compat_dpu_wrap(w->argv[0], argv, &n, env, &ne))
			return compat_launcher_local.start(&compat_launcher_local, w, p);
		for (i = 0; w->argv[i] != NULL && n < 63; i++)
			argv[n++] = w->argv[i];
		argv[n] = NULL;
		return compat_proc_start(p, argv, w->cwd, w->log, env, ne, w->pipe_stdin);
	}
	dpu = strcmp(w->side, "dpu") == 0;
	for (i = 0; i < nwrap; i++)
		argv[n++] = i == 3 ? (dpu ? nn.ns_dpu : nn.ns_host) : (char *)wrap[i];
	for (i = 0; i < w->nenv && ne < 20; i++)
		env[ne++] = w->env[i];
	/* --dpu-arch: an Arm DPU program runs under qemu-user (its libraries win) */
	if (dpu)
		compat_dpu_wrap(w->argv[0], argv, &n, env, &ne);
	for (i = 0; w->argv[i] != NULL && n < 63; i++)
		argv[n++] = w->argv[i];
	argv[n] = NULL;
	/* after the run's own settings, so these win */
	env[ne++] = (struct compat_env){ "ODMA_FABRIC", nn.fabric };
	env[ne++] = (struct compat_env){ "ODMA_FABRIC_SECRET", nn.secret };
	env[ne++] = (struct compat_env){ "ODMA_RUNDIR", dpu ? nn.rundir_dpu : nn.rundir_host };
	env[ne++] = (struct compat_env){ "ODMA_TRANSPORT", NULL };
	return compat_proc_start(p, argv, w->cwd, w->log, env, ne, w->pipe_stdin);
}

const struct compat_launcher compat_launcher_netns = { "split-netns", netns_start, NULL };
