/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * doca_mmap_enable_thread_safety with real threads: several threads take bufs on one
 * thread-safe mmap from one shared inventory (and one shared pool) and return them, at once.
 * Every buf handed out must be distinct while held and every one must come back; run under
 * ThreadSanitizer (suite tsan) no access may race.
 */
#include <pthread.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_buf_pool.h>
#include <doca_dev.h>
#include <doca_mmap.h>

#include "test_util.h"

#define THREADS 4
#define ROUNDS 20000
#define HELD 8
/* the race of release_count is lost 4 runs in 5 at this count; ThreadSanitizer reports it */
#if TU_TSAN
#define RACE_ROUNDS 100000
#else
#define RACE_ROUNDS 10000000
#endif
/* and for at most this long: a sanitizer or an emulator (qemu-user) runs far fewer rounds */
#define RACE_MS 2000u
#define EXPORTS 200
#define DESC_MAX 1024 /* above any descriptor's size */

static _Alignas(64) uint8_t mem[THREADS * HELD * 64];

struct shared {
	struct doca_buf_inventory *inv;
	struct doca_buf_pool *pool;
	struct doca_mmap *mmap;
	struct doca_dev *dev;
	uint8_t desc[THREADS][EXPORTS][DESC_MAX]; /* copies: the stop frees the originals */
	size_t desc_len[THREADS][EXPORTS];
	pthread_barrier_t go;
};

struct worker {
	struct shared *sh;
	unsigned int id;
	unsigned int failures;
};

/* Takes HELD bufs, writes a mark through each, checks the marks, returns them; ROUNDS times. */
static void *inventory_worker(void *arg)
{
	struct worker *w = arg;
	uint8_t *mine = mem + (size_t)w->id * HELD * 64;
	struct doca_buf *b[HELD];

	pthread_barrier_wait(&w->sh->go);
	for (unsigned int r = 0; r < ROUNDS; r++) {
		uint32_t nfree;

		/* the counter may be read while other threads take and return */
		if (doca_buf_inventory_get_num_free_elements(w->sh->inv, &nfree) != DOCA_SUCCESS ||
		    nfree > THREADS * HELD)
			w->failures++;
		for (unsigned int i = 0; i < HELD; i++) {
			if (doca_buf_inventory_buf_get_by_addr(w->sh->inv, w->sh->mmap,
			                                       mine + 64 * i, 64,
			                                       &b[i]) != DOCA_SUCCESS) {
				w->failures++;
				b[i] = NULL;
			}
		}
		for (unsigned int i = 0; i < HELD; i++) {
			void *head = NULL;

			if (b[i] == NULL)
				continue;
			if (doca_buf_get_head(b[i], &head) != DOCA_SUCCESS || head != mine + 64 * i)
				w->failures++; /* another thread re-bound our buf */
			if (doca_buf_dec_refcount(b[i], NULL) != DOCA_SUCCESS)
				w->failures++;
		}
	}
	return NULL;
}

/*
 * Takes one buf and releases it, RACE_ROUNDS times, beside another thread doing the same on a
 * two-buf inventory: the count the release reports is 0 even when the other thread takes the
 * buf back at once (it was read from the buf after its return, and could say 1).
 */
static void *release_worker(void *arg)
{
	struct worker *w = arg;
	uint8_t *mine = mem + (size_t)w->id * 64;
	uint64_t end = tu_now_ms() + RACE_MS;

	pthread_barrier_wait(&w->sh->go);
	for (unsigned int r = 0; r < RACE_ROUNDS && ((r & 4095) != 0 || tu_now_ms() < end); r++) {
		struct doca_buf *b;
		uint16_t rc = 7;

		if (doca_buf_inventory_buf_get_by_addr(w->sh->inv, w->sh->mmap, mine, 64, &b) !=
		    DOCA_SUCCESS) {
			w->failures++;
			continue;
		}
		if (doca_buf_dec_refcount(b, &rc) != DOCA_SUCCESS || rc != 0)
			w->failures++;
	}
	return NULL;
}

static void *pool_worker(void *arg)
{
	struct worker *w = arg;
	struct doca_buf *b[HELD];

	pthread_barrier_wait(&w->sh->go);
	for (unsigned int r = 0; r < ROUNDS; r++) {
		uint32_t nfree;

		if (doca_buf_pool_get_num_free_elements(w->sh->pool, &nfree) != DOCA_SUCCESS ||
		    nfree > THREADS * HELD)
			w->failures++;
		for (unsigned int i = 0; i < HELD; i++) {
			void *data;

			if (doca_buf_pool_buf_alloc(w->sh->pool, &b[i]) != DOCA_SUCCESS) {
				w->failures++;
				b[i] = NULL;
				continue;
			}
			/* the slot is ours alone while we hold it */
			if (doca_buf_get_data(b[i], &data) != DOCA_SUCCESS)
				w->failures++;
			else
				memset(data, (int)w->id, 64);
		}
		for (unsigned int i = 0; i < HELD; i++) {
			uint8_t *data;

			if (b[i] == NULL)
				continue;
			if (doca_buf_get_data(b[i], (void **)&data) != DOCA_SUCCESS ||
			    data[0] != w->id || data[63] != w->id)
				w->failures++;
			if (doca_buf_dec_refcount(b[i], NULL) != DOCA_SUCCESS)
				w->failures++;
		}
	}
	return NULL;
}

/* Exports the shared mmap over PCI EXPORTS times, keeping a copy of every descriptor. */
static void *export_worker(void *arg)
{
	struct worker *w = arg;

	pthread_barrier_wait(&w->sh->go);
	for (unsigned int i = 0; i < EXPORTS; i++) {
		size_t *len = &w->sh->desc_len[w->id][i];
		const void *desc;

		if (doca_mmap_export_pci(w->sh->mmap, w->sh->dev, &desc, len) != DOCA_SUCCESS ||
		    *len > DESC_MAX)
			w->failures++;
		else
			memcpy(w->sh->desc[w->id][i], desc, *len);
	}
	return NULL;
}

static void run_n_threads(struct shared *sh, void *(*fn)(void *), unsigned int n)
{
	pthread_t t[THREADS];
	struct worker w[THREADS];

	assert_int_equal(pthread_barrier_init(&sh->go, NULL, n), 0);
	for (unsigned int i = 0; i < n; i++) {
		w[i] = (struct worker){ .sh = sh, .id = i, .failures = 0 };
		assert_int_equal(pthread_create(&t[i], NULL, fn, &w[i]), 0);
	}
	for (unsigned int i = 0; i < n; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(w[i].failures, 0);
	}
	pthread_barrier_destroy(&sh->go);
}

static void run_threads(struct shared *sh, void *(*fn)(void *))
{
	run_n_threads(sh, fn, THREADS);
}

static struct doca_mmap *thread_safe_mmap(void)
{
	struct doca_mmap *m;

	assert_ok(doca_mmap_create(&m));
	assert_ok(doca_mmap_set_memrange(m, mem, sizeof(mem)));
	assert_ok(doca_mmap_enable_thread_safety(m));
	assert_ok(doca_mmap_start(m));
	return m;
}

static void shared_inventory(void **state)
{
	struct shared sh = { 0 };
	uint32_t n;

	(void)state;
	sh.mmap = thread_safe_mmap();
	assert_ok(doca_buf_inventory_create(THREADS * HELD, &sh.inv));
	assert_ok(doca_buf_inventory_start(sh.inv));
	run_threads(&sh, inventory_worker);
	assert_ok(doca_buf_inventory_get_num_free_elements(sh.inv, &n));
	assert_int_equal(n, THREADS * HELD); /* every buf came back, none twice */
	assert_ok(doca_buf_inventory_stop(sh.inv));
	assert_ok(doca_buf_inventory_destroy(sh.inv));
	assert_ok(doca_mmap_destroy(sh.mmap));
}

static void release_count(void **state)
{
	struct shared sh = { 0 };

	(void)state;
	sh.mmap = thread_safe_mmap();
	assert_ok(doca_buf_inventory_create(2, &sh.inv));
	assert_ok(doca_buf_inventory_start(sh.inv));
	run_n_threads(&sh, release_worker, 2);
	assert_ok(doca_buf_inventory_stop(sh.inv));
	assert_ok(doca_buf_inventory_destroy(sh.inv));
	assert_ok(doca_mmap_destroy(sh.mmap));
}

/*
 * Threads export one thread-safe mmap at once: every export is kept, so stopping the mmap
 * revokes every descriptor handed out (a lost one stayed importable after the stop, and
 * leaked; ThreadSanitizer reported the race on the list of exports).
 */
static void concurrent_exports(void **state)
{
	struct doca_dev *dpu = tu_open_dev("03:00.0");
	struct shared *sh = calloc(1, sizeof(*sh));
	struct doca_mmap *imp;

	(void)state;
	assert_non_null(sh);
	sh->dev = tu_open_dev("b1:00.0");
	assert_ok(doca_mmap_create(&sh->mmap));
	assert_ok(doca_mmap_add_dev(sh->mmap, sh->dev));
	assert_ok(doca_mmap_set_memrange(sh->mmap, mem, sizeof(mem)));
	assert_ok(doca_mmap_set_permissions(sh->mmap, DOCA_ACCESS_FLAG_PCI_READ_WRITE));
	assert_ok(doca_mmap_enable_thread_safety(sh->mmap));
	assert_ok(doca_mmap_start(sh->mmap));
	run_threads(sh, export_worker);
	assert_ok(
	        doca_mmap_create_from_export(NULL, sh->desc[0][0], sh->desc_len[0][0], dpu, &imp));
	assert_ok(doca_mmap_destroy(imp));
	assert_ok(doca_mmap_stop(sh->mmap));
	for (unsigned int t = 0; t < THREADS; t++)
		for (unsigned int i = 0; i < EXPORTS; i++)
			assert_doca(DOCA_ERROR_INVALID_VALUE,
			            doca_mmap_create_from_export(NULL, sh->desc[t][i],
			                                         sh->desc_len[t][i], dpu, &imp));
	assert_ok(doca_mmap_destroy(sh->mmap));
	assert_ok(doca_dev_close(sh->dev));
	assert_ok(doca_dev_close(dpu));
	free(sh);
}

static void shared_pool(void **state)
{
	struct shared sh = { 0 };
	uint32_t n;

	(void)state;
	sh.mmap = thread_safe_mmap();
	assert_ok(doca_buf_pool_create(THREADS * HELD, 64, sh.mmap, &sh.pool));
	assert_ok(doca_buf_pool_start(sh.pool));
	run_threads(&sh, pool_worker);
	assert_ok(doca_buf_pool_get_num_free_elements(sh.pool, &n));
	assert_int_equal(n, THREADS * HELD);
	assert_ok(doca_buf_pool_destroy(sh.pool));
	assert_ok(doca_mmap_destroy(sh.mmap));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shared_inventory),
		cmocka_unit_test(shared_pool),
		cmocka_unit_test(release_count),
		cmocka_unit_test(concurrent_exports),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
