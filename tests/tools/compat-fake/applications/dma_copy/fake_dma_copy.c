/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * A stand-in for the DMA Copy application, for odma compat's test: the side whose -f file
 * exists sends it, the other side writes it (the DPU side is the one given -r). The two
 * processes share their working directory and pass the file through xfer.bin and the outcome
 * through status; the DPU side refuses a file over 2 MiB the way the application does. With
 * ODMA_FAKE_DMA_COPY_FLIP set, the host side writes a received file with its last byte changed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_BUF (2UL * 1024 * 1024)

static int copy(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = NULL;
	char buf[65536];
	size_t n;
	int rc = -1;

	if (in != NULL)
		out = fopen(to, "wb");
	if (out != NULL) {
		rc = 0;
		while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
			if (fwrite(buf, 1, n, out) != n)
				rc = -1;
		if (fclose(out) != 0)
			rc = -1;
	}
	if (in != NULL)
		fclose(in);
	return rc;
}

static int flip_last(const char *path)
{
	FILE *f = fopen(path, "r+b");
	int c;

	if (f == NULL)
		return -1;
	if (fseek(f, -1, SEEK_END) != 0 || (c = fgetc(f)) == EOF || fseek(f, -1, SEEK_END) != 0 ||
	    fputc(c ^ 1, f) == EOF) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

/* Waits up to 20 s for @path to appear. */
static int wait_for(const char *path)
{
	int i;

	for (i = 0; i < 2000; i++) {
		if (access(path, F_OK) == 0)
			return 0;
		usleep(10000);
	}
	fprintf(stderr, "[ERROR] fake dma_copy: no %s\n", path);
	return -1;
}

static int send_file(const char *file)
{
	if (copy(file, "xfer.tmp") != 0 || rename("xfer.tmp", "xfer.bin") != 0)
		return -1;
	return 0;
}

static void set_status(const char *s)
{
	FILE *f = fopen("status.tmp", "w");

	if (f != NULL) {
		fputs(s, f);
		fclose(f);
		rename("status.tmp", "status");
	}
}

/* Waits for the peer's outcome and cleans up; 0 when it was "ok". */
static int get_status(void)
{
	char s[8] = "";
	FILE *f;

	if (wait_for("status") != 0 || (f = fopen("status", "r")) == NULL)
		return -1;
	if (fgets(s, sizeof(s), f) == NULL)
		s[0] = '\0';
	fclose(f);
	unlink("status");
	unlink("xfer.bin");
	return strcmp(s, "ok") == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	const char *file = NULL;
	int dpu = 0, i;
	struct stat st;

	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "-f") == 0)
			file = argv[i + 1];
		else if (strcmp(argv[i], "-r") == 0)
			dpu = 1;
	}
	if (file == NULL)
		return 1;
	if (access(file, R_OK) == 0) /* this side sends */
		return send_file(file) != 0 || get_status() != 0 ? 1 : 0;
	if (wait_for("xfer.bin") != 0 || stat("xfer.bin", &st) != 0)
		return 1;
	if (dpu && (unsigned long)st.st_size > MAX_BUF) {
		printf("[ERROR] DMA device maximum allowed file size in bytes is %lu, received "
		       "file size is %lu bytes\n",
		       MAX_BUF, (unsigned long)st.st_size);
		set_status("fail");
		return 1;
	}
	if (copy("xfer.bin", file) != 0 ||
	    (!dpu && getenv("ODMA_FAKE_DMA_COPY_FLIP") != NULL && flip_last(file) != 0)) {
		set_status("fail");
		return 1;
	}
	set_status("ok");
	return 0;
}
