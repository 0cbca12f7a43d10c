/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * NVIDIA's DOCA RDMA sample pairs (samples/doca_rdma): the table of pairs and how one pair
 * runs. Kept apart from compat_run.c's recipes: RDMA pairs run three times (descriptors
 * through files with RC, the same with DC, RDMA CM), are gated by Enter presses, and read the
 * peer's descriptor files, which a courier here copies as a person copies them between two
 * machines (each side reads its own copy, so neither deletes the other's file).
 *
 * The passive side (responder / receiver) runs on the DPU side, the active side on the host
 * side; both open the IB device mlx5_0 of the profile. Under --split-netns both sides start
 * through the check's launcher (compat_netns.c: the passive side in the DPU namespace, the
 * active side in the host namespace, each in a PID namespace of its own) and a CM client dials
 * the DPU side's veth address. Without it, ODMA_COMPAT_RDMA_NETNS="NS_A NS_B ADDR" runs the
 * passive side in network namespace NS_A and the active side in NS_B (namespaces the caller
 * made, joined so that NS_B reaches ADDR, NS_A's address: the CM server address). Enter
 * goes to the passive side every 2 s from 1 s (from 4 s with DC, whose passive side presses Enter
 * once, after the peer is done), and to the active side every 2 s from 1.6 s.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "compat.h"

#define RDMA_SUCCESS_LINE "Sample finished successfully"
#define RDMA_ENTERS 8

/*
 * The pairs: passive program, active program, extra arguments of both, whether DC applies,
 * and whether the CM client names its server by GID (-sat gid: the IPv4-mapped GID a RoCE v2
 * port has for the server's IPv4 address) rather than by its IPv4 address.
 */
static const struct rdma_pair {
	const char *passive, *active;
	const char *extra[3];
	bool dc, cm_gid;
} rdma_pairs[] = {
	{ "rdma_read_responder", "rdma_read_requester", .dc = true },
	{ "rdma_write_responder", "rdma_write_requester", .dc = true, .cm_gid = true },
	{ "rdma_write_immediate_responder", "rdma_write_immediate_requester", .dc = true },
	{ "rdma_receive", "rdma_send", .dc = true },
	{ "rdma_receive_immediate", "rdma_send_immediate", .dc = true },
	{ "rdma_sync_event_responder", "rdma_sync_event_requester", .dc = true },
	/* the samples refuse DC here, and a CM client with more than one connection: -nc 2 OOB */
	{ "rdma_multi_conn_receive", "rdma_multi_conn_send", .extra = { "-nc", "2", NULL } },
};

enum rdma_mode { MODE_OOB, MODE_DC, MODE_CM, MODES };
static const char *const mode_names[MODES] = { "OOB", "DC", "CM" };

static const struct rdma_pair *pair_of(const char *name, bool *passive)
{
	for (size_t i = 0; i < sizeof(rdma_pairs) / sizeof(rdma_pairs[0]); i++) {
		if (strcmp(rdma_pairs[i].passive, name) == 0 ||
		    strcmp(rdma_pairs[i].active, name) == 0) {
			*passive = strcmp(rdma_pairs[i].passive, name) == 0;
			return &rdma_pairs[i];
		}
	}
	return NULL;
}

bool compat_rdma_is_pair(const char *name)
{
	bool passive;

	return pair_of(name, &passive) != NULL;
}

bool compat_rdma_is_passive(const char *name)
{
	bool passive = false;

	return pair_of(name, &passive) != NULL && passive;
}

const char *compat_rdma_partner(const char *name)
{
	bool passive;
	const struct rdma_pair *pr = pair_of(name, &passive);

	return pr == NULL ? NULL : passive ? pr->active : pr->passive;
}

static struct compat_prog *prog_named(struct compat_ctx *c, const char *name)
{
	for (size_t i = 0; i < c->nprogs; i++)
		if (strcmp(c->progs[i].name, name) == 0)
			return &c->progs[i];
	return NULL;
}

static bool built(const struct compat_prog *p)
{
	return p != NULL && p->nbuilds > 0 && p->builds[0].result == COMPAT_BUILD_OK;
}

/* One side's argument vector for @mode (files under @dir). */
static char netns[3][128]; /* ODMA_COMPAT_RDMA_NETNS: passive ns, active ns, passive address */

static const char *cm_server; /* the CM server address: loopback, NS_A's, or the DPU side's */

/* The namespaces of ODMA_COMPAT_RDMA_NETNS; false, with its one line in @why, when malformed. */
static bool netns_load(const struct compat_ctx *c, char *why, size_t n)
{
	const char *v = getenv("ODMA_COMPAT_RDMA_NETNS");

	netns[0][0] = netns[1][0] = netns[2][0] = '\0';
	cm_server = "127.0.0.1";
	if (c->split_netns) { /* the launcher places the sides: no ip netns exec here */
		cm_server = compat_netns_dpu_addr();
		return true;
	}
	if (v != NULL && *v != '\0' &&
	    sscanf(v, "%127s %127s %127s", netns[0], netns[1], netns[2]) != 3) {
		netns[0][0] = '\0';
		snprintf(why, n,
		         "ODMA_COMPAT_RDMA_NETNS=\"%.100s\" is not \"NS_A NS_B ADDR_A\": two "
		         "network namespaces and NS_A's address; the RDMA pairs fail, not run",
		         v);
		return false;
	}
	if (netns[0][0] != '\0')
		cm_server = netns[2];
	return true;
}

static int side_args(const struct rdma_pair *pr, bool passive, enum rdma_mode mode, const char *dir,
                     unsigned port, char store[8][PATH_MAX], char **argv, const char *exe)
{
	int n = 0;

	if (netns[0][0] != '\0') {
		argv[n++] = "ip";
		argv[n++] = "netns";
		argv[n++] = "exec";
		argv[n++] = netns[passive ? 0 : 1];
	}
	argv[n++] = (char *)exe;
	argv[n++] = "-d";
	argv[n++] = "mlx5_0";
	if (mode == MODE_CM) {
		argv[n++] = "-cm";
		argv[n++] = "-lp";
		snprintf(store[0], PATH_MAX, "%u", port);
		argv[n++] = store[0];
		if (!passive && pr->cm_gid) {
			snprintf(store[4], PATH_MAX, "::ffff:%s", cm_server);
			argv[n++] = "-sa";
			argv[n++] = store[4];
			argv[n++] = "-sat";
			argv[n++] = "gid";
		} else if (!passive) {
			argv[n++] = "-sa";
			argv[n++] = (char *)cm_server;
		}
	} else {
		snprintf(store[1], PATH_MAX, "%s/%s-local", dir, passive ? "p" : "a");
		snprintf(store[2], PATH_MAX, "%s/%s-remote", dir, passive ? "p" : "a");
		snprintf(store[3], PATH_MAX, "%s/%s-resource", dir, passive ? "p" : "a");
		argv[n++] = "-ld";
		argv[n++] = store[1];
		argv[n++] = "-re";
		argv[n++] = store[2];
		argv[n++] = "-m";
		argv[n++] = store[3];
		if (mode == MODE_DC) {
			argv[n++] = "-tt";
			argv[n++] = "DC";
		}
	}
	/* a CM client with several connections is refused by the samples: extras are OOB only */
	for (int i = 0; mode != MODE_CM && i < 3 && pr->extra[i] != NULL; i++)
		argv[n++] = (char *)pr->extra[i];
	argv[n] = NULL;
	return n;
}

/* Copies @from (and its "-%04u" siblings) to @to once it is complete and @to is absent. */
static void courier_one(const char *from, const char *to)
{
	char f[PATH_MAX + 8], t[PATH_MAX + 8], tmp[PATH_MAX + 16];

	for (int i = -1; i < 8; i++) {
		struct stat st;
		size_t len;
		char *data;
		FILE *o;

		snprintf(f, sizeof(f), i < 0 ? "%s" : "%s-%04d", from, i);
		snprintf(t, sizeof(t), i < 0 ? "%s" : "%s-%04d", to, i);
		if (stat(f, &st) != 0 || st.st_size == 0 || access(t, F_OK) == 0)
			continue;
		data = compat_read_file(f, &len);
		if (data == NULL)
			continue;
		snprintf(tmp, sizeof(tmp), "%s.part", t);
		o = fopen(tmp, "wb");
		if (o != NULL && fwrite(data, 1, len, o) == len && fclose(o) == 0)
			(void)rename(tmp, t);
		else if (o != NULL)
			fclose(o);
		free(data);
	}
}

static void courier(const char *dir)
{
	char a[PATH_MAX], b[PATH_MAX];

	snprintf(a, sizeof(a), "%s/p-local", dir);
	snprintf(b, sizeof(b), "%s/a-remote", dir);
	courier_one(a, b);
	snprintf(a, sizeof(a), "%s/a-local", dir);
	snprintf(b, sizeof(b), "%s/p-remote", dir);
	courier_one(a, b);
	snprintf(a, sizeof(a), "%s/p-resource", dir);
	snprintf(b, sizeof(b), "%s/a-resource", dir);
	courier_one(a, b);
}

struct rdma_side {
	struct compat_proc proc;
	char log[PATH_MAX];
	double next_enter;
	int enters;
};

/*
 * Whether the side's last "Please copy FILE from the ... and then press enter" names a file
 * still missing: a person copies it before pressing Enter, and a side pressed early fails to
 * read it (its peer, slow to start under load, has not written it yet).
 */
static bool awaits_file(const struct rdma_side *s)
{
	char line[PATH_MAX + 512], path[PATH_MAX];
	const char *at;

	if (!compat_last_line(s->log, "Please copy ", line, sizeof(line)))
		return false;
	at = strstr(line, "Please copy ") + strlen("Please copy ");
	if (sscanf(at, "%4095s", path) != 1 || strstr(at, " from ") == NULL)
		return false; /* "You can now copy ..." is this side's own file */
	return access(path, F_OK) != 0;
}

static void press(struct rdma_side *s, double now)
{
	if (s->proc.stdin_fd < 0 || s->enters >= RDMA_ENTERS || now < s->next_enter ||
	    awaits_file(s))
		return;
	if (write(s->proc.stdin_fd, "\n", 1) != 1)
		(void)0;
	s->enters++;
	if (now > s->next_enter + 0.5) /* held back for a file: the next one 2 s from now */
		s->next_enter = now;
	s->next_enter += 2.0;
}

static bool side_ok(const struct rdma_side *s, char *why, size_t size, const char *name)
{
	char last[300] = "";

	if (!s->proc.timed_out && s->proc.status == 0 &&
	    compat_file_contains(s->log, RDMA_SUCCESS_LINE))
		return true;
	if (!compat_last_line(s->log, "[ERROR]", last, sizeof(last)))
		compat_last_line(s->log, NULL, last, sizeof(last));
	snprintf(why, size, "%s %s: %.200s", name, s->proc.timed_out ? "did not finish" : "failed",
	         last);
	return false;
}

/*
 * Starts one side: through the check's launcher under --split-netns (the passive side is the
 * DPU side), else here (ODMA_COMPAT_RDMA_NETNS, if set, is already in argv).
 */
static int side_start(struct compat_ctx *c, bool passive, char **argv, const char *dir,
                      const char *log, const struct compat_env env[2], struct compat_proc *proc)
{
	struct compat_launch w = { .side = passive ? "dpu" : "host",
		                   .argv = argv,
		                   .cwd = dir,
		                   .log = log,
		                   .env = env,
		                   .nenv = 2,
		                   .pipe_stdin = true };

	if (c->split_netns && c->launcher != NULL)
		return c->launcher->start(c->launcher, &w, proc);
	return compat_proc_start(proc, argv, dir, log, env, 2, true);
}

/*
 * A port the kernel picked (bound to 0 on 127.0.0.1, read back, released) for the samples'
 * CM listener, which takes a port from its command line; never a guessed one (0 when no
 * socket can be had). In a split run the listener is in a namespace of its own, where any
 * port is free.
 */
static unsigned free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	unsigned port = 0; /* no socket to be had: the run fails, saying so */

	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &al) == 0)
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* Whether the file at @path holds a line containing @needle. */
static bool log_says(const char *path, const char *needle)
{
	char line[1024];
	bool found = false;
	FILE *f = fopen(path, "r");

	while (f != NULL && !found && fgets(line, sizeof(line), f) != NULL)
		found = strstr(line, needle) != NULL;
	if (f != NULL)
		fclose(f);
	return found;
}

/*
 * The passive side's head start: 0.4 s, and with RDMA CM until it says it listens (a client
 * that dials first is refused, as by RDMA CM: under load a side can take that long to start),
 * 10 s at most.
 */
static void wait_listening(struct rdma_side *p, enum rdma_mode mode)
{
	double end = compat_now() + 10.0;

	compat_sleep(0.4);
	while (mode == MODE_CM && compat_now() < end && !compat_proc_poll(&p->proc) &&
	       !log_says(p->log, "[Server] started connection successfully"))
		compat_sleep(0.05);
}

/*
 * Starts both sides, feeds them Enter and files, waits; true when both succeeded. *@port_taken:
 * the passive side could not listen on the port (another process took it after the kernel
 * picked it: the run says nothing of the samples and is worth another try).
 */
static bool run_mode(struct compat_ctx *c, struct compat_prog *pp, struct compat_prog *ap,
                     const struct rdma_pair *pr, enum rdma_mode mode, char *why, size_t size,
                     bool *port_taken)
{
	char dir[PATH_MAX], st_p[8][PATH_MAX], st_a[8][PATH_MAX];
	char *argv_p[24], *argv_a[24];
	struct rdma_side p = { 0 }, a = { 0 };
	unsigned port = free_port();
	const struct compat_env env_p[] = { { "ODMA_SIDE", "dpu" },
		                            { "LD_LIBRARY_PATH", c->libdir } };
	const struct compat_env env_a[] = { { "ODMA_SIDE", "host" },
		                            { "LD_LIBRARY_PATH", c->libdir } };
	double t0, end;

	if (port == 0) {
		snprintf(why, size, "cannot get a free TCP port from the kernel: %s",
		         strerror(errno));
		return false;
	}
	snprintf(dir, sizeof(dir), "%s/run/%s/%s", c->work, pp->name, mode_names[mode]);
	compat_rm_rf(dir);
	if (compat_mkdir_p(dir) != 0) {
		snprintf(why, size, "cannot create %s: %s", dir, strerror(errno));
		return false;
	}
	side_args(pr, true, mode, dir, port, st_p, argv_p, pp->builds[0].exe);
	side_args(pr, false, mode, dir, port, st_a, argv_a, ap->builds[0].exe);
	snprintf(p.log, sizeof(p.log), "%s/run-%s.log", dir, pp->name);
	snprintf(a.log, sizeof(a.log), "%s/run-%s.log", dir, ap->name);
	compat_list_add(&pp->logs, p.log);
	compat_list_add(&pp->logs, a.log);
	if (side_start(c, true, argv_p, dir, p.log, env_p, &p.proc) != 0) {
		snprintf(why, size, "cannot start %s: %s", pp->name, strerror(errno));
		return false;
	}
	wait_listening(&p, mode);
	if (side_start(c, false, argv_a, dir, a.log, env_a, &a.proc) != 0) {
		compat_proc_kill(&p.proc);
		snprintf(why, size, "cannot start %s: %s", ap->name, strerror(errno));
		return false;
	}
	t0 = compat_now();
	p.next_enter = t0 + (mode == MODE_DC ? 3.6 : 0.6);
	a.next_enter = t0 + 1.2;
	end = t0 + c->run_timeout;
	while (compat_now() < end) {
		bool p_done = compat_proc_poll(&p.proc),
		     a_done = compat_proc_poll(&a.proc); /* both */

		if (p_done && a_done)
			break;
		if (mode != MODE_CM)
			courier(dir);
		press(&p, compat_now());
		press(&a, compat_now());
		compat_sleep(0.05);
	}
	compat_proc_wait(&a.proc, 0.1);
	compat_proc_wait(&p.proc, 0.1);
	if (side_ok(&p, why, size, pp->name) && side_ok(&a, why, size, ap->name))
		return true;
	*port_taken = mode == MODE_CM && log_says(p.log, "cannot listen on port");
	return false;
}

static void verdict(struct compat_prog *p, bool ok, const char *reason)
{
	p->run_tried = true;
	p->run_ok = ok;
	p->status = ok ? COMPAT_PASS : COMPAT_FAIL;
	snprintf(p->reason, sizeof(p->reason), "%s", reason);
}

bool compat_rdma_run_prog(struct compat_ctx *c, struct compat_prog *prog)
{
	bool passive;
	const struct rdma_pair *pr = pair_of(prog->name, &passive);
	struct compat_prog *pp, *ap;
	char msg[1024], why[700] = "";
	bool all = true;
	size_t k = 0;

	if (pr == NULL)
		return false;
	if (!passive)
		return true; /* its passive partner runs the pair */
	if (!netns_load(c, why, sizeof(why))) {
		verdict(prog, false, why);
		return false;
	}
	pp = prog;
	ap = prog_named(c, pr->active);
	if (!built(pp) || !built(ap)) {
		if (ap != NULL && built(ap) != built(pp))
			verdict(built(pp) ? pp : ap, false,
			        built(pp) ? "not run: its partner does not build"
			                  : "not run: its partner does not build");
		return true;
	}
	k = (size_t)snprintf(msg, sizeof(msg), "with %s:", pp->name);
	for (int m = 0; m < MODES; m++) {
		bool ok;

		if (m == MODE_DC && !pr->dc)
			continue;
		if (c->verbose)
			fprintf(stderr, "odma compat: running %s/%s (%s)\n", pp->name, ap->name,
			        mode_names[m]);
		/* a port taken between the kernel's pick and the listen: another pick, twice */
		for (int t = 0; t < 3; t++) {
			bool taken = false;

			ok = run_mode(c, pp, ap, pr, (enum rdma_mode)m, why, sizeof(why), &taken);
			if (ok || !taken)
				break;
			if (c->verbose)
				fprintf(stderr, "odma compat: %s could not listen; another port\n",
				        pp->name);
		}
		all &= ok;
		if (k < sizeof(msg))
			k += (size_t)snprintf(msg + k, sizeof(msg) - k, " %s%s %s%s%s",
			                      mode_names[m],
			                      m == MODE_CM && pr->cm_gid ? " (by GID)" : "",
			                      ok ? "ok" : "FAIL (", ok ? "" : why, ok ? "" : ")");
	}
	verdict(ap, all, msg);
	/* the same modes on the passive row, naming the active program */
	snprintf(why, sizeof(why), "%s", msg + 5 + strlen(pp->name));
	snprintf(msg, sizeof(msg), "with %s%s", ap->name, why);
	verdict(pp, all, msg);
	compat_list_merge(&ap->logs, &pp->logs);
	return true;
}
