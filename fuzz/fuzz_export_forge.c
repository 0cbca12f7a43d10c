/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Forged export descriptors: field edits WITH a valid checksum. This process exports
 * (host side, b1:00.0) and imports (DPU side, 03:00.0) at once, as the emulation allows.
 * Three real descriptors are made once: a live one, a revoked one, and the live one that
 * reused the revoked one's record (next generation). Each input picks a base descriptor,
 * edits bytes of its signed part, recomputes the CRC32C (unless the input says not to) and
 * imports it. Invariant: the import succeeds if and only if the bytes are exactly a live
 * descriptor; everything else (the revoked one included) is refused with a documented code.
 *
 * Input: byte 0 = base (bits 0-1: 0 live, 1 revoked, 2 reused record, 3 live) and bit 2
 * "keep the old checksum"; then pairs (offset mod 100, value) written into the copy.
 */
#include <stdbool.h>
#include <string.h>

#include <doca_dev.h>
#include <doca_mmap.h>

#include "core/memory/memory.h"
#include "fuzz_common.h"
#include "util/codec.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
/* Whether @b parses as a well-formed RDMA-kind descriptor. */
static bool fuzz_is_rdma(const uint8_t *b, size_t len)
{
	struct odma_export_desc d;
	const char *why = NULL;

	return odma_export_desc_parse(b, len, &d, &why) == DOCA_SUCCESS &&
	       d.kind == ODMA_EXPORT_RDMA;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct doca_dev *host, *dpu;
static struct doca_mmap *m1, *m2; /* kept for the fuzzer's life: their exports stay valid */
static uint8_t live[ODMA_EXPORT_DESC_LEN], revoked[ODMA_EXPORT_DESC_LEN],
        reused[ODMA_EXPORT_DESC_LEN];
static uint8_t mem1[8192], mem2[8192];

static void export_into(struct doca_mmap *m, uint8_t *out)
{
	const void *d;
	size_t len;

	FUZZ_CHECK(doca_mmap_export_pci(m, host, &d, &len) == DOCA_SUCCESS);
	FUZZ_CHECK(len == ODMA_EXPORT_DESC_LEN);
	memcpy(out, d, len);
}

static struct doca_mmap *mmap_on(uint8_t *mem, size_t len, uint32_t perms)
{
	struct doca_mmap *m;

	FUZZ_CHECK(doca_mmap_create(&m) == DOCA_SUCCESS);
	FUZZ_CHECK(doca_mmap_set_memrange(m, mem, len) == DOCA_SUCCESS);
	FUZZ_CHECK(doca_mmap_set_permissions(m, perms) == DOCA_SUCCESS);
	FUZZ_CHECK(doca_mmap_add_dev(m, host) == DOCA_SUCCESS);
	FUZZ_CHECK(doca_mmap_start(m) == DOCA_SUCCESS);
	return m;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("ODMA_SYSTEM", "bf3", 1);
	unsetenv("ODMA_SIDE");
	fuzz_quiet_logs();
	host = fuzz_open_pci("b1:00.0");
	dpu = fuzz_open_pci("03:00.0");
	m1 = mmap_on(mem1, sizeof(mem1), DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	export_into(m1, live);
	m2 = mmap_on(mem2, sizeof(mem2), DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	export_into(m2, revoked);
	FUZZ_CHECK(doca_mmap_stop(m2) == DOCA_SUCCESS); /* revokes; the record goes to the pool */
	FUZZ_CHECK(doca_mmap_start(m2) == DOCA_SUCCESS);
	export_into(m2, reused); /* takes the pooled record back, next generation */
	FUZZ_CHECK(memcmp(revoked + 56, reused + 56, 8) == 0);
	return 0;
}

static void reseal(uint8_t *b)
{
	uint32_t c = odma_crc32c(b, 100);

	for (int i = 0; i < 4; i++)
		b[100 + i] = (uint8_t)(c >> (8 * i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t *const bases[] = { live, revoked, reused, live };
	uint8_t b[ODMA_EXPORT_DESC_LEN];
	struct doca_mmap *m = NULL;
	bool is_live;
	doca_error_t r;

	if (size == 0)
		return 0;
	memcpy(b, bases[data[0] & 3], sizeof(b));
	for (size_t i = 1; i + 1 < size; i += 2)
		b[data[i] % 100] = data[i + 1];
	if (!(data[0] & 4))
		reseal(b);
	r = doca_mmap_create_from_export(NULL, b, sizeof(b), dpu, &m);
	is_live = memcmp(b, live, sizeof(b)) == 0 || memcmp(b, reused, sizeof(b)) == 0;
	if (r == DOCA_SUCCESS && fuzz_is_rdma(b, sizeof(b))) {
		/*
		 * An RDMA descriptor is imported without asking the exporter (a peer anywhere on
		 * the network): libdoca_rdma's exporter checks every access against its record.
		 */
		FUZZ_CHECK(m != NULL && doca_mmap_destroy(m) == DOCA_SUCCESS);
		return 0;
	}
	if (r == DOCA_SUCCESS) {
		if (!is_live)
			fprintf(stderr, "fuzz: an edited or revoked descriptor imported\n");
		FUZZ_CHECK(is_live);
		FUZZ_CHECK(m != NULL && doca_mmap_destroy(m) == DOCA_SUCCESS);
	} else {
		FUZZ_CHECK(!is_live);
		FUZZ_CHECK(m == NULL);
		FUZZ_CHECK(r == DOCA_ERROR_INVALID_VALUE || r == DOCA_ERROR_NOT_SUPPORTED ||
		           r == DOCA_ERROR_NOT_PERMITTED);
	}
	return 0;
}
