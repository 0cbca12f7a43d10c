/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * An outside program built with nothing but `pkg-config --cflags --libs doca-dma`
 * against an installed odma. It does a 64 KiB local copy and checks the documented
 * failures: a task above max_buf_size (INVALID_VALUE), a read-only destination
 * (NOT_PERMITTED), a pool past its size (NO_MEMORY), a start without a progress engine
 * (NOT_CONNECTED), and exactly one completion per task across an asynchronous stop.
 * Plain C, no test framework: it prints what failed and exits non-zero.
 */
#define DOCA_ALLOW_EXPERIMENTAL_API
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#define LEN (64 * 1024)
#define NTASKS 16

static int failures;
static unsigned int completions[NTASKS];

#define EXPECT(cond, ...)                                                                          \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "FAILED: " __VA_ARGS__);                                   \
			fputc('\n', stderr);                                                       \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

static void done_cb(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	(void)cud;
	completions[tud.u64]++;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

static struct doca_mmap *map(struct doca_dev *dev, void *p, size_t len, uint32_t perms)
{
	struct doca_mmap *m = NULL;

	if (doca_mmap_create(&m) || doca_mmap_add_dev(m, dev) ||
	    doca_mmap_set_memrange(m, p, len) || doca_mmap_set_permissions(m, perms) ||
	    doca_mmap_start(m)) {
		fprintf(stderr, "mmap set-up failed\n");
		exit(2);
	}
	return m;
}

static struct doca_dev *open_dma_dev(void)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;

	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
		exit(2);
	for (uint32_t i = 0; i < n && dev == NULL; i++)
		if (doca_dma_cap_task_memcpy_is_supported(list[i]) == DOCA_SUCCESS)
			doca_dev_open(list[i], &dev);
	doca_devinfo_destroy_list(list);
	if (dev == NULL)
		exit(2);
	return dev;
}

int main(void)
{
	static uint8_t src[4 * 1024 * 1024], dst[4 * 1024 * 1024], ro[LEN];
	struct doca_dev *dev = open_dma_dev();
	struct doca_mmap *msrc = map(dev, src, sizeof(src), DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	struct doca_mmap *mdst = map(dev, dst, sizeof(dst), DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	struct doca_mmap *mro = map(dev, ro, sizeof(ro), DOCA_ACCESS_FLAG_LOCAL_READ_ONLY);
	struct doca_buf_inventory *inv;
	struct doca_buf *s, *d, *big, *rod, *sb[NTASKS], *db[NTASKS];
	struct doca_dma_task_memcpy *t, *extra;
	struct doca_dma *dma, *lonely;
	struct doca_pe *pe;
	enum doca_ctx_states st;
	union doca_data ud = { .u64 = 0 };
	uint64_t max_size;
	doca_error_t r;

	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 31 + 7);
	doca_buf_inventory_create(64, &inv);
	doca_buf_inventory_start(inv);
	doca_pe_create(&pe);

	/* start without a progress engine */
	doca_dma_create(dev, &lonely);
	doca_dma_task_memcpy_set_conf(lonely, done_cb, done_cb, 4);
	EXPECT(doca_ctx_start(doca_dma_as_ctx(lonely)) == DOCA_ERROR_NOT_CONNECTED,
	       "start without a PE");
	doca_dma_destroy(lonely);

	doca_dma_create(dev, &dma);
	doca_dma_task_memcpy_set_conf(dma, done_cb, done_cb, NTASKS);
	doca_pe_connect_ctx(pe, doca_dma_as_ctx(dma));
	EXPECT(doca_ctx_start(doca_dma_as_ctx(dma)) == DOCA_SUCCESS, "start");

	/* 64 KiB local copy */
	doca_buf_inventory_buf_get_by_data(inv, msrc, src, LEN, &s);
	doca_buf_inventory_buf_get_by_addr(inv, mdst, dst, LEN, &d);
	EXPECT(doca_dma_task_memcpy_alloc_init(dma, s, d, ud, &t) == DOCA_SUCCESS, "alloc_init");
	EXPECT(doca_task_submit(doca_dma_task_memcpy_as_task(t)) == DOCA_SUCCESS, "submit");
	while (completions[0] == 0)
		doca_pe_progress(pe);
	EXPECT(memcmp(src, dst, LEN) == 0, "64 KiB copy: bytes differ");

	/* above max_buf_size */
	doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(dev), &max_size);
	doca_buf_inventory_buf_get_by_data(inv, msrc, src, max_size + 1, &big);
	EXPECT(doca_dma_task_memcpy_alloc_init(dma, big, d, ud, &t) == DOCA_ERROR_INVALID_VALUE,
	       "task above max_buf_size");

	/* read-only destination */
	doca_buf_inventory_buf_get_by_addr(inv, mro, ro, LEN, &rod);
	doca_dma_task_memcpy_alloc_init(dma, s, rod, ud, &t);
	EXPECT(doca_task_submit(doca_dma_task_memcpy_as_task(t)) == DOCA_ERROR_NOT_PERMITTED,
	       "read-only destination");
	doca_task_free(doca_dma_task_memcpy_as_task(t));

	/* past the pool */
	for (int i = 0; i < NTASKS; i++) {
		union doca_data u = { .u64 = (uint64_t)i };

		doca_buf_inventory_buf_get_by_data(inv, msrc, src + i * 4096, 4096, &sb[i]);
		doca_buf_inventory_buf_get_by_addr(inv, mdst, dst + LEN + i * 4096, 4096, &db[i]);
		EXPECT(doca_dma_task_memcpy_alloc_init(dma, sb[i], db[i], u, &t) == DOCA_SUCCESS,
		       "alloc %d", i);
		EXPECT(doca_task_submit(doca_dma_task_memcpy_as_task(t)) == DOCA_SUCCESS,
		       "submit %d", i);
	}
	completions[0] = 0;
	r = doca_dma_task_memcpy_alloc_init(dma, s, d, ud, &extra);
	EXPECT(r == DOCA_ERROR_NO_MEMORY, "pool exhausted gave %s", doca_error_get_name(r));

	/* asynchronous stop: every submitted task completes exactly once */
	r = doca_ctx_stop(doca_dma_as_ctx(dma));
	EXPECT(r == DOCA_SUCCESS || r == DOCA_ERROR_IN_PROGRESS, "stop");
	do {
		doca_pe_progress(pe);
		doca_ctx_get_state(doca_dma_as_ctx(dma), &st);
	} while (st != DOCA_CTX_STATE_IDLE);
	for (int i = 0; i < NTASKS; i++)
		EXPECT(completions[i] == 1, "task %d completed %u times", i, completions[i]);

	for (int i = 0; i < NTASKS; i++) {
		doca_buf_dec_refcount(sb[i], NULL);
		doca_buf_dec_refcount(db[i], NULL);
	}
	doca_buf_dec_refcount(s, NULL);
	doca_buf_dec_refcount(d, NULL);
	doca_buf_dec_refcount(big, NULL);
	doca_buf_dec_refcount(rod, NULL);
	EXPECT(doca_dma_destroy(dma) == DOCA_SUCCESS, "dma destroy");
	EXPECT(doca_pe_destroy(pe) == DOCA_SUCCESS, "pe destroy");
	doca_buf_inventory_stop(inv);
	EXPECT(doca_buf_inventory_destroy(inv) == DOCA_SUCCESS, "inventory destroy");
	EXPECT(doca_mmap_destroy(msrc) == DOCA_SUCCESS && doca_mmap_destroy(mdst) == DOCA_SUCCESS &&
	               doca_mmap_destroy(mro) == DOCA_SUCCESS,
	       "mmap destroy");
	EXPECT(doca_dev_close(dev) == DOCA_SUCCESS, "dev close");
	printf("dma consumer: %s\n", failures ? "FAILED" : "all checks passed");
	return failures ? 1 : 0;
}
