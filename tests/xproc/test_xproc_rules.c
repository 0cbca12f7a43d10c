/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Export/import rules of spec 5.1 and descriptor validation, in one process (it sees both
 * sides). Runs with ODMA_SYSTEM=tests/data/profiles/good.profile: host 5e:00.0 exports
 * over PCI only, DPU 03:00.0 imports both kinds, DPU 03:00.1 has no export capability.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <doca_dev.h>
#include <doca_mmap.h>

#include "test_util.h"

static uint8_t mem[4096];

/* A started mmap on mem with @perms and @dev added. */
static struct doca_mmap *local_mmap(struct doca_dev *dev, uint32_t perms, bool start)
{
	struct doca_mmap *m;

	assert_ok(doca_mmap_create(&m));
	assert_ok(doca_mmap_set_memrange(m, mem, sizeof(mem)));
	assert_ok(doca_mmap_set_permissions(m, perms));
	if (dev != NULL)
		assert_ok(doca_mmap_add_dev(m, dev));
	if (start)
		assert_ok(doca_mmap_start(m));
	return m;
}

static struct doca_dev *host, *dpu, *dpu_nocap;

static int setup(void **state)
{
	(void)state;
	host = tu_open_dev("5e:00.0");
	dpu = tu_open_dev("03:00.0");
	dpu_nocap = tu_open_dev("03:00.1");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	assert_ok(doca_dev_close(host));
	assert_ok(doca_dev_close(dpu));
	assert_ok(doca_dev_close(dpu_nocap));
	return 0;
}

static void test_export_rules(void **state)
{
	const void *d = NULL;
	size_t len = 0;
	struct doca_mmap *m;

	(void)state;
	m = local_mmap(host, DOCA_ACCESS_FLAG_PCI_READ_ONLY, false);
	assert_doca(doca_mmap_export_pci(m, host, &d, &len),
	            DOCA_ERROR_NOT_PERMITTED); /* unstarted */
	assert_ok(doca_mmap_start(m));
	assert_doca(doca_mmap_export_pci(NULL, host, &d, &len), DOCA_ERROR_INVALID_VALUE);
	assert_doca(doca_mmap_export_pci(m, host, NULL, &len), DOCA_ERROR_INVALID_VALUE);
	assert_doca(doca_mmap_export_pci(m, dpu, &d, &len), DOCA_ERROR_NOT_FOUND);
	assert_doca(doca_mmap_export_rdma(m, host, &d, &len),
	            DOCA_ERROR_NOT_PERMITTED); /* no RDMA flag */
	assert_ok(doca_mmap_destroy(m));

	m = local_mmap(host, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, true);
	assert_doca(doca_mmap_export_pci(m, host, &d, &len),
	            DOCA_ERROR_NOT_PERMITTED); /* no PCI flag */
	assert_ok(doca_mmap_destroy(m));

	m = local_mmap(dpu_nocap, DOCA_ACCESS_FLAG_PCI_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ,
	               true);
	assert_doca(doca_mmap_export_pci(m, dpu_nocap, &d, &len), DOCA_ERROR_NOT_SUPPORTED);
	assert_ok(doca_mmap_destroy(m));
	m = local_mmap(host, DOCA_ACCESS_FLAG_RDMA_READ, true);
	assert_doca(doca_mmap_export_rdma(m, host, &d, &len), DOCA_ERROR_NOT_SUPPORTED);
	assert_ok(doca_mmap_destroy(m));
	assert_null(d);
}

static void test_export_twice_and_flags(void **state)
{
	const void *d1, *d2;
	size_t l1, l2;
	uint8_t flag = 9;
	struct doca_mmap *m = local_mmap(host, DOCA_ACCESS_FLAG_PCI_READ_WRITE, true);

	(void)state;
	assert_ok(doca_mmap_get_exported(m, &flag));
	assert_int_equal(flag, 0);
	assert_ok(doca_mmap_export_pci(m, host, &d1, &l1));
	assert_ok(doca_mmap_export_pci(m, host, &d2, &l2));
	assert_int_equal(l1, 104);
	assert_ptr_not_equal(d1, d2);
	assert_memory_not_equal(d1, d2, l1); /* different keys */
	assert_ok(doca_mmap_get_exported(m, &flag));
	assert_int_equal(flag, 1);
	assert_doca(doca_mmap_add_dev(m, dpu), DOCA_ERROR_NOT_PERMITTED);
	assert_ok(doca_mmap_stop(m)); /* frees both descriptors */
	assert_ok(doca_mmap_get_exported(m, &flag));
	assert_int_equal(flag, 0);
	assert_ok(doca_mmap_destroy(m));
}

static void test_import_rules(void **state)
{
	const void *d;
	size_t len;
	uint8_t flag = 0;
	union doca_data ud = { .u64 = 42 }, got;
	struct doca_mmap *m = local_mmap(host, DOCA_ACCESS_FLAG_PCI_READ_ONLY, true), *im = NULL;
	const void *d2;
	size_t l2;
	void *addr;
	size_t rlen;

	(void)state;
	assert_ok(doca_mmap_export_pci(m, host, &d, &len));
	assert_doca(doca_mmap_create_from_export(NULL, d, len, host, &im),
	            DOCA_ERROR_NOT_SUPPORTED);
	assert_doca(doca_mmap_create_from_export(NULL, d, len, dpu_nocap, &im),
	            DOCA_ERROR_NOT_SUPPORTED);
	assert_doca(doca_mmap_create_from_export(NULL, NULL, len, dpu, &im),
	            DOCA_ERROR_INVALID_VALUE);
	assert_null(im);
	assert_ok(doca_mmap_create_from_export(&ud, d, len, dpu, &im));
	assert_ok(doca_mmap_get_from_export(im, &flag));
	assert_int_equal(flag, 1);
	assert_ok(doca_mmap_get_user_data(im, &got));
	assert_int_equal(got.u64, 42);
	assert_ok(doca_mmap_get_memrange(im, &addr, &rlen));
	assert_ptr_equal(addr, mem);
	assert_int_equal(rlen, sizeof(mem));
	/* Forbidden on a from-export mmap. */
	assert_doca(doca_mmap_set_permissions(im, 0), DOCA_ERROR_NOT_PERMITTED);
	assert_doca(doca_mmap_set_memrange(im, mem, 1), DOCA_ERROR_NOT_PERMITTED);
	assert_doca(doca_mmap_add_dev(im, host), DOCA_ERROR_NOT_PERMITTED);
	assert_doca(doca_mmap_start(im), DOCA_ERROR_NOT_PERMITTED);
	assert_ok(doca_mmap_stop(im)); /* NVIDIA's storage applications do: it revokes re-exports */
	assert_doca(doca_mmap_export_pci(im, dpu, &d2, &l2), DOCA_ERROR_NOT_PERMITTED);
	assert_doca(doca_dev_close(dpu), DOCA_ERROR_IN_USE); /* the import holds its device */
	assert_ok(doca_mmap_destroy(im));
	assert_ok(doca_mmap_destroy(m));
}

/* CRC32C as docs/host-dpu.md specifies it, to forge descriptors with a valid checksum. */
static uint32_t crc32c(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;

	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1u)));
	}
	return ~c;
}

static void reseal(uint8_t *b)
{
	uint32_t c = crc32c(b, 100);

	for (int i = 0; i < 4; i++)
		b[100 + i] = (uint8_t)(c >> (8 * i));
}

static doca_error_t import(const uint8_t *b, size_t len)
{
	struct doca_mmap *im = NULL;
	doca_error_t r = doca_mmap_create_from_export(NULL, b, len, dpu, &im);

	if (r == DOCA_SUCCESS)
		assert_ok(doca_mmap_destroy(im));
	else
		assert_null(im);
	return r;
}

static void test_bad_descriptors(void **state)
{
	struct doca_mmap *m = local_mmap(host, DOCA_ACCESS_FLAG_PCI_READ_ONLY, true);
	uint8_t good[104], b[200];
	const void *d;
	size_t len;

	(void)state;
	assert_ok(doca_mmap_export_pci(m, host, &d, &len));
	assert_int_equal(len, sizeof(good));
	memcpy(good, d, len);
	assert_ok(import(good, len));
	for (size_t n = 0; n < len; n++) /* every truncation */
		assert_doca(import(good, n), DOCA_ERROR_INVALID_VALUE);
	memcpy(b, good, len);
	b[len] = 0;
	assert_doca(import(b, len + 1), DOCA_ERROR_INVALID_VALUE); /* trailing byte */
	for (size_t i = 0; i < len; i++)                           /* every single-bit corruption */
		for (int bit = 0; bit < 8; bit += 3) {
			memcpy(b, good, len);
			b[i] ^= (uint8_t)(1u << bit);
			assert_doca(import(b, len), DOCA_ERROR_INVALID_VALUE);
		}
	memcpy(b, good, len);
	b[8] = 1; /* version 1 (before descriptors carried a generation), resealed */
	reseal(b);
	assert_doca(import(b, len), DOCA_ERROR_INVALID_VALUE);
	memcpy(b, good, len);
	b[32] ^= 0x5a; /* another system id, resealed */
	reseal(b);
	assert_doca(import(b, len), DOCA_ERROR_NOT_SUPPORTED);
	memcpy(b, good, len);
	b[24] ^= 0x01; /* start time of another process with our pid */
	reseal(b);
	assert_doca(import(b, len), DOCA_ERROR_INVALID_VALUE);
	memcpy(b, good, len);
	b[12] = 7; /* unknown kind */
	reseal(b);
	assert_doca(import(b, len), DOCA_ERROR_INVALID_VALUE);
	memcpy(b, good, len);
	memset(b + 48, 0, 8); /* zero length */
	reseal(b);
	assert_doca(import(b, len), DOCA_ERROR_INVALID_VALUE);
	assert_ok(doca_mmap_destroy(m));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/*
 * A descriptor is untrusted input. Edited by hand with its checksum recomputed, it used to
 * import: a range grown by 8 KiB read past the export, read-only became read-write. Now
 * every field is checked against the exporter's record: only the exact original imports.
 */
static void test_forged_fields(void **state)
{
	struct doca_mmap *m = local_mmap(host, DOCA_ACCESS_FLAG_PCI_READ_ONLY, true);
	static const uint8_t values[] = { 0x00, 0x01, 0x02, 0x80, 0xff };
	uint8_t good[104], b[104];
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	unsigned int accepted = 0;
	const void *d;
	size_t len;

	(void)state;
	assert_ok(doca_mmap_export_pci(m, host, &d, &len));
	memcpy(good, d, len);
	/* The cases of the issue: a grown range, upgraded permissions, a moved range. */
	memcpy(b, good, len);
	put64(b + 48, get64(b + 48) + 8192);
	reseal(b);
	assert_doca(import(b, len), DOCA_ERROR_INVALID_VALUE);
	memcpy(b, good, len);
	b[20] = (uint8_t)DOCA_ACCESS_FLAG_PCI_READ_WRITE; /* read-only -> read-write */
	reseal(b);
	assert_doca(import(b, len), DOCA_ERROR_INVALID_VALUE);
	memcpy(b, good, len);
	put64(b + 40, get64(b + 40) + 64);
	reseal(b);
	assert_doca(import(b, len), DOCA_ERROR_INVALID_VALUE);
	/* Every byte of the signed part set to a few values, resealed. */
	for (size_t i = 0; i < 100; i++)
		for (size_t v = 0; v < sizeof(values); v++) {
			memcpy(b, good, len);
			b[i] = values[v];
			reseal(b);
			if (memcmp(b, good, len) == 0)
				assert_ok(import(b, len));
			else if (import(b, len) == DOCA_SUCCESS)
				fail_msg("byte %zu set to 0x%02x imported", i, values[v]);
		}
	/* Random edits of 1-4 bytes, resealed: only the unchanged descriptor imports. */
	for (int n = 0; n < 20000; n++) {
		int k = 1 + (int)(rng % 4);

		memcpy(b, good, len);
		while (k--) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			b[(rng >> 8) % 100] = (uint8_t)(rng >> 32);
		}
		reseal(b);
		if (import(b, len) == DOCA_SUCCESS) {
			assert_memory_equal(b, good, len);
			accepted++;
		}
	}
	assert_true(accepted < 20000);
	assert_ok(import(good, len));
	assert_ok(doca_mmap_destroy(m));
}

/* A revoked export is refused at import, also once its record was reused by a new export. */
/* ODMA_TRANSPORT, ODMA_TRANSPORT_TIMEOUT_MS, ODMA_FABRIC: a bad value fails the export and the
 * import. */
static void test_transport_config(void **state)
{
	struct doca_mmap *m = local_mmap(host, DOCA_ACCESS_FLAG_PCI_READ_WRITE, true), *imp;
	const void *d;
	size_t len;
	uint8_t desc[1024];

	(void)state;
	assert_ok(doca_mmap_export_pci(m, host, &d, &len));
	assert_int_equal(len, 104); /* no network wanted: version 2, unchanged */
	memcpy(desc, d, len);
	setenv("ODMA_TRANSPORT", "carrier-pigeon", 1);
	assert_int_equal(doca_mmap_export_pci(m, host, &d, &len), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_create_from_export(NULL, desc, 104, dpu, &imp),
	                 DOCA_ERROR_INVALID_VALUE);
	unsetenv("ODMA_TRANSPORT");
	setenv("ODMA_TRANSPORT_TIMEOUT_MS", "0", 1);
	assert_int_equal(doca_mmap_export_pci(m, host, &d, &len), DOCA_ERROR_INVALID_VALUE);
	unsetenv("ODMA_TRANSPORT_TIMEOUT_MS");
	/* a malformed ODMA_FABRIC fails the export and the import, as it fails a Comch start */
	setenv("ODMA_FABRIC", "127.0.0.1:99999", 1);
	assert_int_equal(doca_mmap_export_pci(m, host, &d, &len), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_create_from_export(NULL, desc, 104, dpu, &imp),
	                 DOCA_ERROR_INVALID_VALUE);
	unsetenv("ODMA_FABRIC");
	/* ODMA_TRANSPORT=process is CMA: a version-2 descriptor of this process imports */
	setenv("ODMA_TRANSPORT", "process", 1);
	assert_ok(doca_mmap_create_from_export(NULL, desc, 104, dpu, &imp));
	assert_ok(doca_mmap_destroy(imp));
	unsetenv("ODMA_TRANSPORT");
	assert_ok(doca_mmap_destroy(m));
}

static void test_revoked_at_import(void **state)
{
	struct doca_mmap *m = local_mmap(host, DOCA_ACCESS_FLAG_PCI_READ_WRITE, true), *m2;
	uint8_t first[104], second[104];
	const void *d;
	size_t len;

	(void)state;
	assert_ok(doca_mmap_export_pci(m, host, &d, &len));
	memcpy(first, d, len);
	assert_ok(import(first, len));
	assert_ok(doca_mmap_stop(m)); /* revokes */
	assert_doca(import(first, len), DOCA_ERROR_INVALID_VALUE);
	/* A new export reuses the record with the next generation and a new key. */
	m2 = local_mmap(host, DOCA_ACCESS_FLAG_PCI_READ_WRITE, true);
	assert_ok(doca_mmap_export_pci(m2, host, &d, &len));
	memcpy(second, d, len);
	assert_memory_equal(first + 56, second + 56, 8);             /* same record address */
	assert_int_not_equal(memcmp(first + 96, second + 96, 4), 0); /* generation moved on */
	assert_ok(import(second, len));
	assert_doca(import(first, len), DOCA_ERROR_INVALID_VALUE);
	/* The old descriptor dressed up with the new generation still lacks the new key. */
	memcpy(first + 96, second + 96, 4);
	reseal(first);
	assert_doca(import(first, len), DOCA_ERROR_INVALID_VALUE);
	assert_ok(doca_mmap_destroy(m2));
	assert_ok(doca_mmap_destroy(m));
}

/* This process' export gate file (the in-flight words), opened as an importer opens it. */
static int gate_file(void)
{
	char path[64], link[64];
	int g = -1;

	for (int fd = 0; fd < 1024 && g < 0; fd++) {
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, link, sizeof(link) - 1);
		if (n < 0 || (link[n] = '\0', strstr(link, "memfd:odma-export-gates") == NULL))
			continue;
		g = open(path, O_RDWR | O_CLOEXEC);
		assert_true(g >= 0);
	}
	assert_true(g >= 0);
	return g;
}

/*
 * A hostile importer (any process of this kernel with ptrace rights over the exporter may map
 * its gate file; this process plays it) raises the in-flight words and never lowers them, and
 * tries to resize the file (refused: test_gate_file_bounded): the exporter's doca_mmap_stop
 * does not hang, it returns once ODMA_TRANSPORT_TIMEOUT_MS has passed (and logs it); the
 * revocation holds, and new exports (100: their words past the file's first page) import.
 */
static void test_gate_held_forever(void **state)
{
	struct doca_mmap *m = local_mmap(host, DOCA_ACCESS_FLAG_PCI_READ_WRITE, true);
	uint8_t desc[104];
	uint32_t *words;
	const void *d;
	size_t len;
	int g;

	(void)state;
	assert_ok(doca_mmap_export_pci(m, host, &d, &len));
	memcpy(desc, d, len);
	assert_ok(import(desc, len));
	g = gate_file();
	words = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, g, 0);
	assert_true(words != MAP_FAILED);
	assert_int_not_equal(ftruncate(g, 1 << 20), 0); /* its size is sealed */
	close(g);
	for (unsigned int i = 0; i < 4096 / 64; i++)
		__atomic_fetch_add(&words[i * 16], 1, __ATOMIC_SEQ_CST);
	setenv("ODMA_TRANSPORT_TIMEOUT_MS", "50", 1);
	assert_ok(doca_mmap_stop(m)); /* revokes: waits 50 ms for the words, then proceeds */
	unsetenv("ODMA_TRANSPORT_TIMEOUT_MS");
	assert_doca(import(desc, len), DOCA_ERROR_INVALID_VALUE);
	assert_ok(doca_mmap_start(m));
	for (int i = 0; i < 100; i++) {
		assert_ok(doca_mmap_export_pci(m, host, &d, &len));
		assert_ok(import(d, len));
	}
	for (unsigned int i = 0; i < 4096 / 64; i++)
		__atomic_fetch_sub(&words[i * 16], 1, __ATOMIC_SEQ_CST);
	munmap(words, 4096);
	assert_ok(doca_mmap_destroy(m));
}

/* Raises (@d 1) or lowers (@d -1) every word of this process' gate file, as it is now. */
static void gate_raise_all(int d)
{
	int g = gate_file();
	struct stat st;
	uint32_t *w;

	assert_int_equal(fstat(g, &st), 0);
	w = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, g, 0);
	assert_true(w != MAP_FAILED);
	close(g);
	for (size_t i = 0; i < (size_t)st.st_size / 64; i++)
		__atomic_fetch_add(&w[i * 16], (uint32_t)d, __ATOMIC_SEQ_CST);
	munmap(w, (size_t)st.st_size);
}

/*
 * One mmap exported many times, every word held by a hostile importer: doca_mmap_stop
 * revokes every export and returns after one ODMA_TRANSPORT_TIMEOUT_MS (the bound
 * docs/host-dpu.md gives), not after one per export (40 of them: 8 s).
 */
#define HELD_EXPORTS 40
#define HELD_TIMEOUT_MS 200

static void test_gate_held_many_exports(void **state)
{
	struct doca_mmap *m = local_mmap(host, DOCA_ACCESS_FLAG_PCI_READ_WRITE, true);
	uint8_t desc[104];
	const void *d;
	uint64_t t0, took;
	size_t len;

	(void)state;
	for (int i = 0; i < HELD_EXPORTS; i++)
		assert_ok(doca_mmap_export_pci(m, host, &d, &len));
	memcpy(desc, d, len);
	gate_raise_all(1);
	setenv("ODMA_TRANSPORT_TIMEOUT_MS", "200", 1); /* HELD_TIMEOUT_MS */
	t0 = tu_now_ms();
	assert_ok(doca_mmap_stop(m));
	took = tu_now_ms() - t0;
	unsetenv("ODMA_TRANSPORT_TIMEOUT_MS");
	gate_raise_all(-1);
	assert_doca(import(desc, len), DOCA_ERROR_INVALID_VALUE); /* revoked all the same */
	assert_ok(doca_mmap_destroy(m));
	/* half of what one timeout per export takes: room for a loaded machine */
	if (took >= HELD_EXPORTS / 2 * HELD_TIMEOUT_MS)
		fail_msg("stopping %d held exports took %llu ms: a %u ms timeout each",
		         HELD_EXPORTS, (unsigned long long)took, HELD_TIMEOUT_MS);
}

/*
 * A hostile importer cannot make the exporter's gate file hold more memory than its words
 * need (16 MiB at most, ODMA_TP_GATE_MAX words of 64 bytes): growing it by truncation, by
 * allocation or by a write past its end fails, and the file the exporter keeps stays small.
 */
#define GATE_FILE_MAX (16u << 20)

static void test_gate_file_bounded(void **state)
{
	struct doca_mmap *m = local_mmap(host, DOCA_ACCESS_FLAG_PCI_READ_WRITE, true);
	const void *d;
	struct stat st;
	size_t len;
	int g;

	(void)state;
	assert_ok(doca_mmap_export_pci(m, host, &d, &len));
	g = gate_file();
	(void)!ftruncate(g, (off_t)1 << 30);
	(void)!fallocate(g, 0, (off_t)1 << 25, 1 << 16); /* 64 KiB past 32 MiB */
	(void)!pwrite(g, "x", 1, (off_t)1 << 31);
	assert_int_equal(fstat(g, &st), 0);
	close(g);
	assert_ok(doca_mmap_destroy(m));
	assert_true((uint64_t)st.st_size <= GATE_FILE_MAX);
}

/*
 * A forked child (it makes its own gate file at its first export) exports @m under an
 * RLIMIT_FSIZE of @limit bytes: the export must return @want, the child must not be killed.
 */
static void fsize_export(struct doca_mmap *m, rlim_t limit, doca_error_t want)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) { /* no cmocka assertion here: a failure would go on in the child */
		struct rlimit rl = { limit, limit };
		const void *d;
		size_t len;

		if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
			_exit(2);
		_exit(doca_mmap_export_pci(m, host, &d, &len) == want ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		fail_msg("the exporter was killed by signal %d", WTERMSIG(status));
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/*
 * An RLIMIT_FSIZE that cannot hold one chunk of the gate file (64 KiB) refuses the first
 * export with NO_MEMORY (and a line naming the limit), not a death by SIGXFSZ; one of 1 MiB
 * holds fewer words than 16 MiB, and the export succeeds.
 */
static void test_gate_fsize_limit(void **state)
{
	struct doca_mmap *m = local_mmap(host, DOCA_ACCESS_FLAG_PCI_READ_WRITE, true);

	(void)state;
	fsize_export(m, 4096, DOCA_ERROR_NO_MEMORY);
	fsize_export(m, 1 << 20, DOCA_SUCCESS);
	assert_ok(doca_mmap_destroy(m));
}

/*
 * The child's side of test_gate_after_fork: it exports, finds the gate file it exports with
 * (by name, as gate_file does) and raises every word in it, as importers that never finish.
 */
static int child_raises_its_words(int ready, int done)
{
	struct doca_mmap *m = local_mmap(host, DOCA_ACCESS_FLAG_PCI_READ_WRITE, true);
	char path[64], link[64], c = 'r';
	const void *d;
	size_t len;
	int raised = 0;

	if (doca_mmap_export_pci(m, host, &d, &len) != DOCA_SUCCESS)
		return 1;
	for (int fd = 0; fd < 1024; fd++) {
		ssize_t n;
		struct stat st;
		uint32_t *w;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, link, sizeof(link) - 1);
		if (n < 0 || (link[n] = '\0', strstr(link, "memfd:odma-export-gates") == NULL))
			continue;
		if (fstat(fd, &st) != 0 || st.st_size == 0)
			return 2;
		w = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (w == MAP_FAILED)
			return 3;
		for (size_t i = 0; i < (size_t)st.st_size / 64; i++, raised++)
			__atomic_fetch_add(&w[i * 16], 1, __ATOMIC_SEQ_CST);
	}
	if (raised == 0 || write(ready, &c, 1) != 1 || read(done, &c, 1) != 1)
		return 4;
	return 0;
}

/*
 * A forked child has a gate file of its own: the words its importers hold raised are not its
 * parent's, whose next export is revoked without waiting (without the ERROR of a word that
 * did not drain). Sharing the parent's file, both handed out the same words.
 */
static void test_gate_after_fork(void **state)
{
	struct doca_mmap *m = local_mmap(host, DOCA_ACCESS_FLAG_PCI_READ_WRITE, true);
	int ready[2], done[2], status;
	unsigned int hit;
	const void *d;
	size_t len;
	pid_t pid;
	char c;

	(void)state;
	assert_ok(doca_mmap_export_pci(m, host, &d, &len)); /* this process has a gate file */
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(done), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* a failed assertion here: it does not linger */
		_exit(child_raises_its_words(ready[1], done[0]));
	}
	assert_int_equal(read(ready[0], &c, 1), 1);
	tu_log_lines("", &hit);
	setenv("ODMA_TRANSPORT_TIMEOUT_MS", "50", 1);
	for (int i = 0; i < 8; i++) {
		assert_ok(doca_mmap_export_pci(m, host, &d, &len));
		assert_ok(doca_mmap_stop(m));
		assert_ok(doca_mmap_start(m));
	}
	unsetenv("ODMA_TRANSPORT_TIMEOUT_MS");
	tu_log_lines("was still moving bytes", &hit);
	assert_int_equal(hit, 0);
	assert_int_equal(write(done[1], &c, 1), 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	for (int i = 0; i < 2; i++) {
		close(ready[i]);
		close(done[i]);
	}
	assert_ok(doca_mmap_destroy(m));
}

/* The kernel's bound on one process' mappings (vm.max_map_count), capped for the test's time. */
static size_t map_count_max(void)
{
	FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
	unsigned long v = 65530;

	if (f != NULL) {
		if (fscanf(f, "%lu", &v) != 1)
			v = 65530;
		fclose(f);
	}
	return v < 200000 ? (size_t)v : 200000;
}

/*
 * Imports live at once are not bounded by the process' mappings: more imports of one export
 * than vm.max_map_count all succeed (each import's in-flight word is one of its gate file's,
 * which its imports share), and the process can still map memory afterwards.
 */
static void test_many_imports(void **state)
{
	struct doca_mmap *m = local_mmap(host, DOCA_ACCESS_FLAG_PCI_READ_WRITE, true);
	size_t n = map_count_max() + 1000, ok = 0;
	struct doca_mmap **im = calloc(n, sizeof(*im));
	const void *d;
	size_t len;
	void *p;

	(void)state;
	assert_non_null(im);
	assert_ok(doca_mmap_export_pci(m, host, &d, &len));
	while (ok < n && doca_mmap_create_from_export(NULL, d, len, dpu, &im[ok]) == DOCA_SUCCESS)
		ok++;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (size_t i = 0; i < ok; i++)
		assert_ok(doca_mmap_destroy(im[i]));
	free(im);
	assert_ok(doca_mmap_destroy(m));
	assert_int_equal(ok, n);
	assert_true(p != MAP_FAILED);
	munmap(p, 4096);
}

/* A descriptor of a process that has exited is stale. */
static void test_stale_dead_pid(void **state)
{
	uint8_t b[104];
	int fds[2];
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct doca_mmap *m = local_mmap(host, DOCA_ACCESS_FLAG_PCI_READ_ONLY, true);
		const void *d;
		size_t len;

		if (doca_mmap_export_pci(m, host, &d, &len) != DOCA_SUCCESS || len != sizeof(b) ||
		    write(fds[1], d, len) != (ssize_t)len)
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], b, sizeof(b)), (ssize_t)sizeof(b));
	close(fds[0]);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_doca(import(b, sizeof(b)), DOCA_ERROR_INVALID_VALUE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_export_rules),
		cmocka_unit_test(test_export_twice_and_flags),
		cmocka_unit_test(test_import_rules),
		cmocka_unit_test(test_bad_descriptors),
		cmocka_unit_test(test_forged_fields),
		cmocka_unit_test(test_revoked_at_import),
		cmocka_unit_test(test_gate_held_forever),
		cmocka_unit_test(test_gate_held_many_exports),
		cmocka_unit_test(test_gate_file_bounded),
		cmocka_unit_test(test_gate_fsize_limit),
		cmocka_unit_test(test_gate_after_fork),
		cmocka_unit_test(test_many_imports),
		cmocka_unit_test(test_transport_config),
		cmocka_unit_test(test_stale_dead_pid),
	};

	if (getenv("ODMA_SYSTEM") == NULL) {
		printf("ODMA_SYSTEM is not set to tests/data/profiles/good.profile; run through "
		       "meson\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
