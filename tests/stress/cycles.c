/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Create/destroy cycles (issue #11, item 1): each cycle creates a progress engine, a DMA
 * context, two mmaps and an inventory, runs one task, and destroys everything. With the
 * thread engine every cycle adds a channel to each worker and removes it again, so the
 * channel-set hand-off between the PE thread and the workers runs twice per cycle; when
 * the last PE goes, the worker pool stops, and the next cycle starts a fresh one.
 *
 * "Beside" mode keeps another PE busy on a second thread for the whole run, so the pool
 * never stops and the workers are mid-pass, spinning over live channels, while the cycling
 * thread swaps their sets.
 *
 * Every failure is reported on stderr and makes cycles_run() return non-zero; nothing
 * here uses cmocka, so the soak driver and background threads can use it too.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "cycles.h"

#define CY_BUF (1u << 20)

#define CY_CHECK(cond)                                                                             \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "cycles: %s:%d: check failed: %s\n", __FILE__, __LINE__,   \
			        #cond);                                                            \
			return -1;                                                                 \
		}                                                                                  \
	} while (0)

#define CY_OK(call) CY_CHECK((call) == DOCA_SUCCESS)

struct cy_env {
	struct doca_dev *dev;
	uint8_t *src, *dst;
};

struct cy_set {
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_mmap *msrc, *mdst;
	struct doca_buf_inventory *inv;
	unsigned int ok, err;
};

static void cy_cb(struct doca_dma_task_memcpy *t, union doca_data tud, union doca_data cud)
{
	struct cy_set *s = cud.ptr;

	(void)tud;
	if (doca_task_get_status(doca_dma_task_memcpy_as_task(t)) == DOCA_SUCCESS)
		s->ok++;
	else
		s->err++;
	doca_task_free(doca_dma_task_memcpy_as_task(t));
}

static int cy_open(struct cy_env *e)
{
	struct doca_devinfo **list;
	uint32_t n;

	memset(e, 0, sizeof(*e));
	CY_OK(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n && e->dev == NULL; i++)
		if (doca_dma_cap_task_memcpy_is_supported(list[i]) == DOCA_SUCCESS)
			CY_OK(doca_dev_open(list[i], &e->dev));
	CY_OK(doca_devinfo_destroy_list(list));
	CY_CHECK(e->dev != NULL);
	e->src = aligned_alloc(4096, CY_BUF);
	e->dst = aligned_alloc(4096, CY_BUF);
	CY_CHECK(e->src != NULL && e->dst != NULL);
	for (size_t i = 0; i < CY_BUF; i++)
		e->src[i] = (uint8_t)(i * 7 + 3);
	memset(e->dst, 0, CY_BUF);
	return 0;
}

static void cy_close(struct cy_env *e)
{
	doca_dev_close(e->dev);
	free(e->src);
	free(e->dst);
}

static int cy_mmap(struct cy_env *e, void *addr, struct doca_mmap **m)
{
	CY_OK(doca_mmap_create(m));
	CY_OK(doca_mmap_add_dev(*m, e->dev));
	CY_OK(doca_mmap_set_memrange(*m, addr, CY_BUF));
	CY_OK(doca_mmap_start(*m));
	return 0;
}

static int cy_set_up(struct cy_env *e, struct cy_set *s, uint32_t tasks)
{
	union doca_data ud = { .ptr = s };

	memset(s, 0, sizeof(*s));
	CY_OK(doca_pe_create(&s->pe));
	CY_OK(doca_dma_create(e->dev, &s->dma));
	CY_OK(doca_ctx_set_user_data(doca_dma_as_ctx(s->dma), ud));
	CY_OK(doca_dma_task_memcpy_set_conf(s->dma, cy_cb, cy_cb, tasks));
	CY_OK(doca_pe_connect_ctx(s->pe, doca_dma_as_ctx(s->dma)));
	CY_OK(doca_ctx_start(doca_dma_as_ctx(s->dma)));
	if (cy_mmap(e, e->src, &s->msrc) || cy_mmap(e, e->dst, &s->mdst))
		return -1;
	CY_OK(doca_buf_inventory_create(8, &s->inv));
	CY_OK(doca_buf_inventory_start(s->inv));
	return 0;
}

static int cy_tear_down(struct cy_set *s)
{
	struct doca_ctx *ctx = doca_dma_as_ctx(s->dma);
	enum doca_ctx_states st;
	doca_error_t r = doca_ctx_stop(ctx);

	CY_CHECK(r == DOCA_SUCCESS || r == DOCA_ERROR_IN_PROGRESS);
	for (;;) {
		CY_OK(doca_ctx_get_state(ctx, &st));
		if (st == DOCA_CTX_STATE_IDLE)
			break;
		doca_pe_progress(s->pe);
	}
	CY_OK(doca_dma_destroy(s->dma));
	CY_OK(doca_pe_destroy(s->pe));
	CY_OK(doca_buf_inventory_stop(s->inv));
	CY_OK(doca_buf_inventory_destroy(s->inv));
	CY_OK(doca_mmap_destroy(s->msrc));
	CY_OK(doca_mmap_destroy(s->mdst));
	return 0;
}

/* One task of @len bytes at @off; waits for its completion and checks the bytes. */
static int cy_copy(struct cy_env *e, struct cy_set *s, size_t off, size_t len)
{
	struct doca_buf *src, *dst;
	struct doca_dma_task_memcpy *t;
	union doca_data ud = { .u64 = 0 };
	unsigned int done = s->ok + s->err;

	CY_OK(doca_buf_inventory_buf_get_by_data(s->inv, s->msrc, e->src + off, len, &src));
	CY_OK(doca_buf_inventory_buf_get_by_addr(s->inv, s->mdst, e->dst + off, len, &dst));
	CY_OK(doca_dma_task_memcpy_alloc_init(s->dma, src, dst, ud, &t));
	CY_OK(doca_task_submit(doca_dma_task_memcpy_as_task(t)));
	while (s->ok + s->err == done)
		doca_pe_progress(s->pe);
	CY_CHECK(s->err == 0);
	CY_CHECK(memcmp(e->dst + off, e->src + off, len) == 0);
	CY_OK(doca_buf_dec_refcount(src, NULL));
	CY_OK(doca_buf_dec_refcount(dst, NULL));
	return 0;
}

/* Sizes that take every path of the thread engine: inline, whole to a worker, split. */
static const size_t cy_sizes[] = { 64, 4096, 96 << 10, 512 << 10, 1 << 20 };
#define CY_NSIZES (sizeof(cy_sizes) / sizeof(cy_sizes[0]))

static int cy_one_cycle(struct cy_env *e, unsigned long i)
{
	struct cy_set s;
	size_t len = cy_sizes[i % CY_NSIZES];

	if (cy_set_up(e, &s, 4) != 0 || cy_copy(e, &s, 0, len) != 0)
		return -1;
	return cy_tear_down(&s);
}

struct cy_bg {
	struct cy_env env;
	atomic_bool stop;
	atomic_bool ready;
	unsigned long tasks;
	int rc;
};

/* The other active PE: copies without pause until told to stop. */
static void *cy_bg_main(void *arg)
{
	struct cy_bg *bg = arg;
	struct cy_set s;
	unsigned long i = 0;

	bg->rc = cy_set_up(&bg->env, &s, 4);
	atomic_store(&bg->ready, true);
	while (bg->rc == 0 && !atomic_load(&bg->stop)) {
		size_t len = cy_sizes[i++ % CY_NSIZES];

		bg->rc = cy_copy(&bg->env, &s, CY_BUF - len, len);
		bg->tasks++;
	}
	if (bg->rc == 0)
		bg->rc = cy_tear_down(&s);
	return NULL;
}

int cycles_run(unsigned long cycles, bool beside)
{
	struct cy_env e;
	struct cy_bg *bg = NULL;
	pthread_t th;
	int rc = 0;

	if (cy_open(&e) != 0)
		return -1;
	if (beside) {
		bg = calloc(1, sizeof(*bg));
		if (bg == NULL || cy_open(&bg->env) != 0 ||
		    pthread_create(&th, NULL, cy_bg_main, bg) != 0) {
			fprintf(stderr, "cycles: cannot start the background PE\n");
			return -1;
		}
		while (!atomic_load(&bg->ready))
			;
	}
	for (unsigned long i = 0; i < cycles && rc == 0; i++)
		rc = cy_one_cycle(&e, i);
	if (bg != NULL) {
		atomic_store(&bg->stop, true);
		pthread_join(th, NULL);
		if (bg->rc != 0)
			rc = -1;
		printf("cycles: background PE ran %lu tasks\n", bg->tasks);
		cy_close(&bg->env);
		free(bg);
	}
	cy_close(&e);
	printf("cycles: %lu create/destroy cycles%s: %s\n", cycles,
	       beside ? " beside an active PE" : "", rc == 0 ? "ok" : "FAILED");
	return rc;
}
