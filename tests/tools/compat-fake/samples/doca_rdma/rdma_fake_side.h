/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Both fake RDMA sides (odma's test of odma compat; nothing here comes from NVIDIA). They take
 * the arguments odma compat gives an RDMA sample pair and act out its connection without DOCA
 * RDMA: out of band, each writes its -ld file and waits for the partner's, copied by odma
 * compat's courier, under -re (the active side also waits for the -m file the passive side
 * wrote); with -cm the passive side listens on TCP port -lp and the active side connects to
 * -sa (with -sat gid, an IPv4-mapped GID, ::ffff:a.b.c.d, that the fake reads as a.b.c.d).
 * Each prints its network namespace, its -sa and its transport type, then the success line.
 * ODMA_FAKE_RDMA_FAIL=1 makes the active side fail in CM mode; with
 * ODMA_FAKE_RDMA_PORT_TAKEN=FILE, the passive side's first CM run (FILE absent: it makes it)
 * fails as a listener whose port was taken.
 */
#ifndef RDMA_FAKE_SIDE_H_
#define RDMA_FAKE_SIDE_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <doca_rdma.h>

static const char *fake_arg(int argc, char **argv, const char *name)
{
	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return argv[i + 1];
	return NULL;
}

static bool fake_flag(int argc, char **argv, const char *name)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return true;
	return false;
}

static void fake_nap(void)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

static bool fake_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	return f != NULL && fputs(text, f) >= 0 && fclose(f) == 0;
}

/* Waits up to 20 s for @path to hold @want. */
static bool fake_wait_file(const char *path, const char *want)
{
	for (int i = 0; i < 400; i++) {
		char got[128] = "";
		FILE *f = fopen(path, "r");

		if (f != NULL) {
			size_t n = fread(got, 1, sizeof(got) - 1, f);

			fclose(f);
			got[n] = '\0';
			if (strcmp(got, want) == 0)
				return true;
		}
		fake_nap();
	}
	fprintf(stderr, "[ERROR] fake: %s never held \"%s\"\n", path, want);
	return false;
}

static bool fake_cm(bool passive, const char *addr, const char *type, const char *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port)) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1, c;
	char b[6] = "";

	if (fd < 0)
		return false;
	if (passive) {
		sa.sin_addr.s_addr = htonl(INADDR_ANY);
		if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
		    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 1) != 0)
			return false;
		/* as NVIDIA's rdma_common, once it listens: odma compat starts the client */
		printf("[INFO] [Server] started connection successfully\n");
		fflush(stdout);
		if ((c = accept(fd, NULL, NULL)) < 0)
			return false;
		return read(c, b, 5) == 5 && strcmp(b, "hello") == 0 && write(c, "ok", 2) == 2;
	}
	if (addr != NULL && type != NULL && strcmp(type, "gid") == 0) {
		if (strncmp(addr, "::ffff:", 7) != 0) {
			fprintf(stderr, "[ERROR] fake: -sa %s is not an IPv4-mapped GID\n", addr);
			return false;
		}
		addr += 7;
	}
	if (addr == NULL || inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
		return false;
	for (int i = 0; i < 200; i++) {
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			return write(fd, "hello", 5) == 5 && read(fd, b, 2) == 2 &&
			       memcmp(b, "ok", 2) == 0;
		close(fd);
		fd = socket(AF_INET, SOCK_STREAM, 0);
		fake_nap();
	}
	fprintf(stderr, "[ERROR] fake: cannot connect to %s:%s\n", addr, port);
	return false;
}

static int fake_side(bool passive, int argc, char **argv)
{
	struct stat st;
	const char *me = passive ? "passive" : "active", *peer = passive ? "active" : "passive";
	const char *tt = fake_arg(argc, argv, "-tt");
	char text[64];
	bool ok;

	if (stat("/proc/self/ns/net", &st) != 0)
		st.st_ino = 0;
	printf("fake %s: netns %lu, -sa %s, transport %s\n", me, (unsigned long)st.st_ino,
	       fake_arg(argc, argv, "-sa") ? fake_arg(argc, argv, "-sa") : "-", tt ? tt : "RC");
	fflush(stdout);
	if (fake_arg(argc, argv, "-d") == NULL)
		return 1;
	if (fake_flag(argc, argv, "-cm") && passive && getenv("ODMA_FAKE_RDMA_PORT_TAKEN") &&
	    access(getenv("ODMA_FAKE_RDMA_PORT_TAKEN"), F_OK) != 0) {
		/* the first time: as odma logs a listener whose port another process took */
		fake_write(getenv("ODMA_FAKE_RDMA_PORT_TAKEN"), "taken");
		fprintf(stderr,
		        "[ERROR] doca_rdma_start_listen_to_port: cannot listen on port %s "
		        "(address in use)\n",
		        fake_arg(argc, argv, "-lp"));
		return 1;
	}
	if (fake_flag(argc, argv, "-cm")) {
		ok = fake_cm(passive, fake_arg(argc, argv, "-sa"), fake_arg(argc, argv, "-sat"),
		             fake_arg(argc, argv, "-lp"));
		if (!passive && getenv("ODMA_FAKE_RDMA_FAIL") != NULL) {
			fprintf(stderr, "[ERROR] fake: told to fail\n");
			ok = false;
		}
	} else {
		const char *ld = fake_arg(argc, argv, "-ld"), *re = fake_arg(argc, argv, "-re");
		const char *m = fake_arg(argc, argv, "-m");

		snprintf(text, sizeof(text), "fake-%s-descriptor", me);
		ok = ld != NULL && re != NULL && m != NULL && fake_write(ld, text);
		if (ok && passive)
			ok = fake_write(m, "fake-resource");
		snprintf(text, sizeof(text), "fake-%s-descriptor", peer);
		ok = ok && fake_wait_file(re, text);
		if (ok && !passive)
			ok = fake_wait_file(m, "fake-resource");
	}
	if (!ok)
		return 1;
	printf("[INFO] Sample finished successfully\n");
	return 0;
}

#endif /* RDMA_FAKE_SIDE_H_ */
