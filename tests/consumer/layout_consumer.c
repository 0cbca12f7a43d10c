/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * An outside program as trees written for DOCA build it: flat includes from
 * /opt/mellanox/doca/include, libraries from lib/<multiarch> (tests/consumer/doca_layout.sh).
 * One local DMA copy into a buf of a buf pool; prints what failed and exits non-zero.
 */
#define DOCA_ALLOW_EXPERIMENTAL_API
#include <stdio.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_buf_pool.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_version.h>

#define LEN 4096
#define CHECK(call)                                                                                \
	do {                                                                                       \
		doca_error_t r_ = (call);                                                          \
		if (r_ != DOCA_SUCCESS) {                                                          \
			fprintf(stderr, "%s: %s\n", #call, doca_error_get_name(r_));               \
			return 1;                                                                  \
		}                                                                                  \
	} while (0)

static unsigned int done;

static void cb(struct doca_dma_task_memcpy *t, union doca_data tu, union doca_data cu)
{
	(void)tu;
	(void)cu;
	if (doca_task_get_status(doca_dma_task_memcpy_as_task(t)) == DOCA_SUCCESS)
		done++;
	doca_task_free(doca_dma_task_memcpy_as_task(t));
}

int main(void)
{
	static char src[LEN], dst[LEN];
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	struct doca_mmap *m;
	struct doca_buf_inventory *inv;
	struct doca_buf_pool *pool;
	struct doca_buf *s, *d;
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_dma_task_memcpy *t;
	union doca_data ud = { .u64 = 0 };
	uint32_t n;

	CHECK(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n && dev == NULL; i++)
		if (doca_dma_cap_task_memcpy_is_supported(list[i]) == DOCA_SUCCESS)
			CHECK(doca_dev_open(list[i], &dev));
	CHECK(doca_devinfo_destroy_list(list));
	if (dev == NULL) {
		fprintf(stderr, "no DMA device\n");
		return 1;
	}
	memset(src, 'z', sizeof(src));
	CHECK(doca_mmap_create(&m));
	CHECK(doca_mmap_add_dev(m, dev));
	CHECK(doca_mmap_set_memrange(m, dst, sizeof(dst)));
	CHECK(doca_mmap_start(m));
	CHECK(doca_buf_pool_create(4, 1024, m, &pool));
	CHECK(doca_buf_pool_start(pool));
	CHECK(doca_buf_pool_buf_alloc(pool, &d));
	{
		struct doca_mmap *sm;

		CHECK(doca_mmap_create(&sm));
		CHECK(doca_mmap_add_dev(sm, dev));
		CHECK(doca_mmap_set_memrange(sm, src, sizeof(src)));
		CHECK(doca_mmap_start(sm));
		CHECK(doca_buf_inventory_create(1, &inv));
		CHECK(doca_buf_inventory_start(inv));
		CHECK(doca_buf_inventory_buf_get_by_data(inv, sm, src, 1024, &s));
		CHECK(doca_pe_create(&pe));
		CHECK(doca_dma_create(dev, &dma));
		CHECK(doca_pe_connect_ctx(pe, doca_dma_as_ctx(dma)));
		CHECK(doca_dma_task_memcpy_set_conf(dma, cb, cb, 4));
		CHECK(doca_ctx_start(doca_dma_as_ctx(dma)));
		CHECK(doca_dma_task_memcpy_alloc_init(dma, s, d, ud, &t));
		CHECK(doca_task_submit(doca_dma_task_memcpy_as_task(t)));
		for (long i = 0; i < 100000000 && done == 0; i++)
			doca_pe_progress(pe);
		if (done != 1 || dst[0] != 'z' || dst[1023] != 'z') {
			fprintf(stderr, "the copy did not complete\n");
			return 1;
		}
		CHECK(doca_ctx_stop(doca_dma_as_ctx(dma)));
		CHECK(doca_dma_destroy(dma));
		CHECK(doca_pe_destroy(pe));
		CHECK(doca_buf_dec_refcount(s, NULL));
		CHECK(doca_buf_dec_refcount(d, NULL));
		CHECK(doca_buf_pool_destroy(pool));
		CHECK(doca_buf_inventory_destroy(inv));
		CHECK(doca_mmap_destroy(sm));
	}
	CHECK(doca_mmap_destroy(m));
	CHECK(doca_dev_close(dev));
	printf("layout consumer: copied 1024 bytes into a pool buf with odma %s\n",
	       doca_version_runtime());
	return 0;
}
