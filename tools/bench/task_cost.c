/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * odma-task-cost: runs exactly N DMA memcpy tasks of SIZE bytes at DEPTH in flight, each
 * resubmitted from its callback after pointing its bufs at its next slot (the loop of
 * odma-bench), and nothing else. Run under `valgrind --tool=callgrind` for N = 0 and N = 200000:
 * the difference of the instruction counts divided by N is the fixed cost of one task
 * (scripts/task-cost.sh). No clock, no spinning threads of its own: the count is deterministic.
 *   odma-task-cost N [SIZE [DEPTH]]      (defaults: 64 128)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#define TC_MAX_TASKS 1000000000000ULL /* 10^12: hours, even inline */
#define TC_MAX_DEPTH 65536            /* the DMA context's max_num_tasks */

struct tc_task {
	struct doca_dma_task_memcpy *task;
	struct doca_buf *src, *dst;
	size_t slot;
};

struct tc {
	uint8_t *src, *dst;
	size_t size, stride, n_slots;
	uint32_t depth;
	uint64_t left; /* tasks still to submit */
	uint64_t done, failed;
	struct tc_task *t;
};

static void tc_submit(struct tc *c, uint32_t i)
{
	struct tc_task *t = &c->t[i];

	doca_buf_set_data(t->src, c->src + t->slot * c->stride, c->size);
	doca_buf_set_data(t->dst, c->dst + t->slot * c->stride, 0);
	t->slot += c->depth;
	if (t->slot >= c->n_slots)
		t->slot -= c->n_slots;
	c->left--;
	/* a refused task completes nothing: done too, or the loop would wait for it for ever */
	if (doca_task_submit(doca_dma_task_memcpy_as_task(t->task)) != DOCA_SUCCESS) {
		c->failed++;
		c->done++;
	}
}

static void tc_done(struct doca_dma_task_memcpy *task, union doca_data task_ud,
                    union doca_data ctx_ud)
{
	struct tc *c = ctx_ud.ptr;

	(void)task;
	c->done++;
	if (c->left > 0)
		tc_submit(c, (uint32_t)task_ud.u64);
}

static void tc_error(struct doca_dma_task_memcpy *task, union doca_data task_ud,
                     union doca_data ctx_ud)
{
	struct tc *c = ctx_ud.ptr;

	(void)task;
	(void)task_ud;
	c->done++;
	c->failed++;
}

static struct doca_mmap *tc_map(struct doca_dev *dev, void *addr, size_t len)
{
	struct doca_mmap *m = NULL;

	if (doca_mmap_create(&m) != DOCA_SUCCESS || doca_mmap_add_dev(m, dev) != DOCA_SUCCESS ||
	    doca_mmap_set_memrange(m, addr, len) != DOCA_SUCCESS ||
	    doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE) != DOCA_SUCCESS ||
	    doca_mmap_start(m) != DOCA_SUCCESS)
		return NULL;
	return m;
}

static struct doca_dev *tc_dev(void)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;

	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
		return NULL;
	for (uint32_t i = 0; i < n && dev == NULL; i++)
		if (doca_dma_cap_task_memcpy_is_supported(list[i]) == DOCA_SUCCESS &&
		    doca_dev_open(list[i], &dev) != DOCA_SUCCESS)
			dev = NULL;
	doca_devinfo_destroy_list(list);
	return dev;
}

/*
 * @text, a whole decimal number from @min to @max, into *@out; false after one line naming
 * @name and the range (strtoull alone read "abc" as 0 and "-1" as 2^64 - 1).
 */
static bool tc_number(const char *name, const char *text, unsigned long long min,
                      unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(text, &end, 10);
	if (text[0] < '0' || text[0] > '9' || errno != 0 || *end != '\0' || v < min || v > max) {
		fprintf(stderr,
		        "odma-task-cost: %s \"%s\" is not a whole number from %llu to %llu\n", name,
		        text, min, max);
		return false;
	}
	*out = v;
	return true;
}

/* N, SIZE and DEPTH into @n and @c: 0, or 2 after one line. */
static int tc_args(int argc, char **argv, struct tc *c, uint64_t *n)
{
	unsigned long long tasks, size = 64, depth = 128;

	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: odma-task-cost N [SIZE [DEPTH]]\n");
		return 2;
	}
	if (!tc_number("N", argv[1], 0, TC_MAX_TASKS, &tasks) ||
	    (argc > 2 && !tc_number("SIZE", argv[2], 1, UINT32_MAX, &size)) ||
	    (argc > 3 && !tc_number("DEPTH", argv[3], 1, TC_MAX_DEPTH, &depth)))
		return 2;
	*n = tasks;
	c->size = size;
	c->depth = (uint32_t)depth;
	return 0;
}

/* SIZE within the device's max_buf_size: 0, or 2 after one line (every submit would fail). */
static int tc_check_size(const struct tc *c, struct doca_dev *dev)
{
	const struct doca_devinfo *info = doca_dev_as_devinfo(dev);
	uint64_t max = 0;

	if (doca_dma_cap_task_memcpy_get_max_buf_size(info, &max) != DOCA_SUCCESS || c->size <= max)
		return 0;
	fprintf(stderr,
	        "odma-task-cost: SIZE %zu is more than the device's max_buf_size %" PRIu64 "\n",
	        c->size, max);
	return 2;
}

int main(int argc, char **argv)
{
	struct tc c = { 0 };
	struct doca_buf_inventory *inv;
	struct doca_mmap *sm, *dm;
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_dma *dma;
	union doca_data ud = { .ptr = &c };
	enum doca_ctx_states st;
	uint64_t n;
	size_t len;

	if (tc_args(argc, argv, &c, &n) != 0)
		return 2;
	dev = tc_dev();
	if (dev == NULL) {
		fprintf(stderr, "odma-task-cost: no device supports DMA memcpy\n");
		return 1;
	}
	if (tc_check_size(&c, dev) != 0)
		return 2;
	c.stride = (c.size + 63) & ~(size_t)63;
	c.n_slots = c.depth;
	len = c.n_slots * c.stride;
	c.src = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);
	c.dst = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);
	c.t = calloc(c.depth, sizeof(*c.t));
	if (c.src == NULL || c.dst == NULL || c.t == NULL) {
		fprintf(stderr, "odma-task-cost: cannot allocate 2 x %zu bytes\n", len);
		return 1;
	}
	for (size_t i = 0; i < len; i++)
		c.src[i] = (uint8_t)i, c.dst[i] = 0;
	if ((sm = tc_map(dev, c.src, len)) == NULL || (dm = tc_map(dev, c.dst, len)) == NULL ||
	    doca_buf_inventory_create(2 * c.depth, &inv) != DOCA_SUCCESS ||
	    doca_buf_inventory_start(inv) != DOCA_SUCCESS || doca_pe_create(&pe) != DOCA_SUCCESS ||
	    doca_dma_create(dev, &dma) != DOCA_SUCCESS ||
	    doca_ctx_set_user_data(doca_dma_as_ctx(dma), ud) != DOCA_SUCCESS ||
	    doca_dma_task_memcpy_set_conf(dma, tc_done, tc_error, c.depth) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(pe, doca_dma_as_ctx(dma)) != DOCA_SUCCESS ||
	    doca_ctx_start(doca_dma_as_ctx(dma)) != DOCA_SUCCESS) {
		fprintf(stderr, "odma-task-cost: set-up failed\n");
		return 1;
	}
	for (uint32_t i = 0; i < c.depth; i++) {
		union doca_data tud = { .u64 = i };

		if (doca_buf_inventory_buf_get_by_data(inv, sm, c.src, len, &c.t[i].src) ||
		    doca_buf_inventory_buf_get_by_addr(inv, dm, c.dst, len, &c.t[i].dst) ||
		    doca_dma_task_memcpy_alloc_init(dma, c.t[i].src, c.t[i].dst, tud,
		                                    &c.t[i].task)) {
			fprintf(stderr, "odma-task-cost: task set-up failed\n");
			return 1;
		}
		c.t[i].slot = i;
	}
	c.left = n;
	for (uint32_t i = 0; i < c.depth && c.left > 0; i++)
		tc_submit(&c, i);
	while (c.done < n)
		doca_pe_progress(pe);
	for (uint32_t i = 0; i < c.depth; i++) {
		doca_task_free(doca_dma_task_memcpy_as_task(c.t[i].task));
		doca_buf_dec_refcount(c.t[i].src, NULL);
		doca_buf_dec_refcount(c.t[i].dst, NULL);
	}
	doca_ctx_stop(doca_dma_as_ctx(dma));
	while (doca_ctx_get_state(doca_dma_as_ctx(dma), &st) == DOCA_SUCCESS &&
	       st != DOCA_CTX_STATE_IDLE)
		doca_pe_progress(pe);
	doca_dma_destroy(dma);
	doca_pe_destroy(pe);
	doca_buf_inventory_stop(inv);
	doca_buf_inventory_destroy(inv);
	doca_mmap_destroy(sm);
	doca_mmap_destroy(dm);
	doca_dev_close(dev);
	printf("tasks %llu failed %llu\n", (unsigned long long)c.done,
	       (unsigned long long)c.failed);
	return c.failed != 0;
}
