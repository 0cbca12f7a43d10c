/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * odma bench --xproc --transport ucx --netns: the two sides in two network namespaces joined
 * only by a veth pair, the exporter also in a PID namespace of its own (what two containers
 * give). This process (the importer) moves into a new network namespace of its own, makes
 * the veth pair there and gives one end to the forked exporter, which has moved into a new
 * network namespace and, for its child (the exporter proper, PID 1 there), a new PID
 * namespace; each side also gets a mount namespace with its own /sys. All namespaces are
 * anonymous (unshare, no `ip netns` name): they, and the veth pair, vanish with the
 * processes; xb_close also deletes the pair. The addresses exist
 * only inside the two namespaces. odma's import then goes over UCX on the veth (ODMA_FABRIC,
 * the importer's address), and the raw UCX baseline uses the same device
 * (ODMA_BENCH_UCX_DEV).
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define NN_IMPORTER_ADDR "10.77.0.1"
#define NN_EXPORTER_ADDR "10.77.0.2"

static char nn_va[16], nn_vb[16]; /* the importer's end, the exporter's end */

/* Runs `ip` with @argv; its errors go to our stderr unless @quiet. 0 when it succeeded. */
static int nn_run(char **argv, bool quiet)
{
	int st = 0;
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			if (quiet)
				dup2(fd, STDERR_FILENO);
		}
		execvp("ip", argv);
		_exit(127);
	}
	if (pid < 0)
		return -1;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* Runs `ip ARGS` (NULL-terminated); its errors go to our stderr. 0 when it succeeded. */
static int nn_ip(const char *a0, ...)
{
	char *argv[12] = { "ip", (char *)a0 };
	va_list ap;
	int n = 2;

	va_start(ap, a0);
	while (n < 11 && (argv[n] = va_arg(ap, char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	return nn_run(argv, false);
}

/*
 * Waits (at most 10 s) until DEV, in this namespace, is operationally up and has no IPv6
 * address still in duplicate address detection: before that UCX does not list it (both
 * settle asynchronously, later on a loaded machine). tests/netns.sh waits the same way.
 */
static int nn_wait_ready(const char *dev)
{
	char path[96], line[160], state[16];
	int k;

	snprintf(path, sizeof(path), "/sys/class/net/%s/operstate", dev);
	for (k = 0; k < 1000; k++) {
		bool up = false, tentative = false;
		FILE *f = fopen(path, "r");

		if (f != NULL) {
			up = fgets(state, sizeof(state), f) != NULL && strncmp(state, "up", 2) == 0;
			fclose(f);
		}
		f = fopen("/proc/net/if_inet6", "r");
		/* address, index, prefix length, scope, flags (hex; 0x40 tentative), name */
		while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
			char name[32];
			unsigned int flags;

			if (sscanf(line, "%*s %*x %*x %*x %x %31s", &flags, name) == 2 &&
			    strcmp(name, dev) == 0 && (flags & 0x40) != 0)
				tentative = true;
		}
		if (f != NULL)
			fclose(f);
		if (up && !tentative)
			return 0;
		usleep(10000);
	}
	return -1;
}

/*
 * Enters a new network namespace with a /sys of its own (as `ip netns exec` does): UCX
 * lists network devices in /sys/class/net, which shows the namespace that mounted it.
 */
static int nn_unshare_net(void)
{
	if (unshare(CLONE_NEWNET | CLONE_NEWNS) != 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) != 0)
		return -1;
	(void)umount2("/sys", MNT_DETACH);
	return mount("sysfs", "/sys", "sysfs", 0, NULL);
}

int bench_netns_enter(char *err, size_t errlen)
{
	static char fabric[64];

	if (geteuid() != 0) {
		snprintf(err, errlen,
		         "--netns needs root: it makes a network namespace for each side, "
		         "a PID namespace for the exporter and a veth pair between them "
		         "(run as root, or drop --netns)");
		return -1;
	}
	if (nn_unshare_net() != 0) {
		snprintf(err, errlen,
		         "--netns: cannot make a network namespace with its own /sys: %s",
		         strerror(errno));
		return -1;
	}
	snprintf(nn_va, sizeof(nn_va), "obn%da", (int)getpid() % 10000000);
	snprintf(nn_vb, sizeof(nn_vb), "obn%db", (int)getpid() % 10000000);
	if (nn_ip("link", "set", "lo", "up", NULL) != 0 ||
	    nn_ip("link", "add", nn_va, "type", "veth", "peer", "name", nn_vb, NULL) != 0 ||
	    nn_ip("addr", "add", NN_IMPORTER_ADDR "/24", "dev", nn_va, NULL) != 0 ||
	    nn_ip("link", "set", nn_va, "up", NULL) != 0) {
		snprintf(err, errlen,
		         "--netns: cannot make the veth pair %s/%s (is iproute2's ip installed?)",
		         nn_va, nn_vb);
		return -1;
	}
	/* the DPU side's address (the importer here); both sides pick the veth from it */
	snprintf(fabric, sizeof(fabric), "%s:18515", NN_IMPORTER_ADDR);
	setenv("ODMA_FABRIC", fabric, 1);
	setenv("ODMA_BENCH_UCX_DEV", nn_va, 1);
	return 0;
}

/*
 * The forked exporter: new network and PID namespaces, the veth end from the importer, an
 * address on it; then a child, PID 1 of the new PID namespace, returns to be the exporter
 * while this process waits for it and exits with its status.
 */
void bench_netns_child(int fd)
{
	char c = 'R';
	pid_t pid;
	int st = 0;

	if (nn_unshare_net() != 0 || write(fd, &c, 1) != 1 || read(fd, &c, 1) != 1 || c != 'G')
		_exit(6);
	if (nn_ip("link", "set", "lo", "up", NULL) != 0 ||
	    nn_ip("addr", "add", NN_EXPORTER_ADDR "/24", "dev", nn_vb, NULL) != 0 ||
	    nn_ip("link", "set", nn_vb, "up", NULL) != 0 || nn_wait_ready(nn_vb) != 0)
		_exit(7);
	/* last: the first child after it is PID 1 of the namespace, whose exit ends it */
	if (unshare(CLONE_NEWPID) != 0)
		_exit(8);
	setenv("ODMA_BENCH_UCX_DEV", nn_vb, 1);
	pid = fork();
	if (pid == 0)
		return;
	close(fd); /* the importer sees the exporter's end of the socket only */
	if (pid < 0)
		_exit(8);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 9);
}

int bench_netns_give(pid_t child, int fd, char *err, size_t errlen)
{
	char pid[16], c = 0;

	snprintf(pid, sizeof(pid), "%d", (int)child);
	if (read(fd, &c, 1) != 1 || c != 'R') {
		snprintf(err, errlen, "--netns: the exporter could not make its namespaces");
		return -1;
	}
	if (nn_ip("link", "set", nn_vb, "netns", pid, NULL) != 0) {
		snprintf(err, errlen, "--netns: cannot move %s into the exporter's namespace",
		         nn_vb);
		return -1;
	}
	c = 'G';
	if (write(fd, &c, 1) != 1) {
		snprintf(err, errlen, "--netns: the exporter is gone");
		return -1;
	}
	if (nn_wait_ready(nn_va) != 0) {
		snprintf(err, errlen, "--netns: %s did not come up within 10 s", nn_va);
		return -1;
	}
	return 0;
}

void bench_netns_close(void)
{
	/* deleting one end deletes both; the pair is usually gone already with the exporter's
	 * namespace (or goes with it while we ask: then `ip` has nothing to say that matters),
	 * and ours goes with this process */
	char *del[] = { "ip", "link", "del", nn_va, NULL };

	if (nn_va[0] != '\0' && if_nametoindex(nn_va) != 0)
		(void)nn_run(del, true);
	nn_va[0] = '\0';
}

const char *bench_netns_peer(void)
{
	return NN_EXPORTER_ADDR;
}

pid_t bench_responder_fork(bool netns, unsigned int alarm_s, int (*child)(int ctl, void *arg),
                           void *arg, int *ctl, char *err, size_t errlen)
{
	int sv[2];
	pid_t pid;

	if (netns && bench_netns_enter(err, errlen) != 0)
		return -1;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
		snprintf(err, errlen, "socketpair: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork(); /* before any UCX state, PE or context exists here */
	if (pid == 0) {
		close(sv[0]);
		if (netns)
			bench_netns_child(sv[1]); /* returns in the responder proper */
		alarm(alarm_s);
		_exit(child(sv[1], arg));
	}
	close(sv[1]);
	*ctl = sv[0];
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(sv[0]);
		return -1;
	}
	if (netns && bench_netns_give(pid, sv[0], err, errlen) != 0) {
		close(sv[0]);
		(void)kill(pid, SIGKILL);
		(void)waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}
