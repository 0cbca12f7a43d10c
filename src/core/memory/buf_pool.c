/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Buffer pools: one mmap's range cut into fixed slots, one buf per slot. The pool embeds an
 * inventory that owns the bufs, so a buf goes back through the inventory's return path
 * (doca_buf_dec_refcount) and the lock rules of a shared inventory apply unchanged. The
 * slot of a buf is its index in the array; alloc binds it to that slot again.
 */
#include <stdlib.h>

#include <doca_buf_pool.h>

#include "core/memory/memory.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(ODMA_BUF_POOL)

struct doca_buf_pool {
	struct doca_buf_inventory inv; /* owns the bufs; inv.num_free is the free count */
	struct doca_mmap *mmap;
	size_t num;
	size_t elem_size;
	size_t align;
	size_t stride;  /* set at start */
	uint8_t *first; /* first slot, set at start */
	bool started;
	union doca_data user_data;
};

doca_error_t doca_buf_pool_create(size_t num_elements, size_t element_size,
                                  const struct doca_mmap *mmap, struct doca_buf_pool **buf_pool)
{
	struct doca_buf_pool *pool;

	ODMA_CHECK_ARG(mmap != NULL && buf_pool != NULL, "mmap and buf_pool must not be NULL");
	if (num_elements == 0 || num_elements > UINT32_MAX || element_size == 0) {
		ODMA_ERR("num_elements %zu or element_size %zu is out of range; fix: use 1 to %u "
		         "elements of at least 1 byte",
		         num_elements, element_size, UINT32_MAX);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!mmap->range_set) {
		ODMA_ERR("mmap %p has no memory range; fix: call doca_mmap_set_memrange before "
		         "doca_buf_pool_create",
		         (const void *)mmap);
		return DOCA_ERROR_INVALID_VALUE;
	}
	pool = calloc(1, sizeof(*pool));
	if (pool == NULL) {
		ODMA_ERR("out of memory allocating a pool of %zu bufs", num_elements);
		return DOCA_ERROR_NO_MEMORY;
	}
	pool->inv.num_elements = (uint32_t)num_elements;
	atomic_init(&pool->inv.shared, false);
	atomic_flag_clear(&pool->inv.lock);
	pool->inv.started = true; /* the embedded inventory is never seen by the API */
	pool->mmap = (struct doca_mmap *)mmap;
	atomic_fetch_add_explicit(&pool->mmap->num_pools, 1, memory_order_relaxed);
	pool->num = num_elements;
	pool->elem_size = element_size;
	pool->align = 1;
	*buf_pool = pool;
	ODMA_DBG("pool %p created: %zu x %zu bytes on mmap %p", (void *)pool, num_elements,
	         element_size, (const void *)mmap);
	return DOCA_SUCCESS;
}

/* Free slots: all of them until the first start made the bufs. */
static uint32_t pool_num_free(const struct doca_buf_pool *pool)
{
	return pool->inv.bufs == NULL ? (uint32_t)pool->num : odma_inv_num_free(&pool->inv);
}

static doca_error_t pool_check_idle(const struct doca_buf_pool *pool, const char *fn)
{
	uint32_t held = pool->inv.bufs == NULL ? 0 : (uint32_t)pool->num - pool->inv.num_free;

	return odma_check_no_bufs_held(fn, "pool", pool, held, "handed out", DOCA_ERROR_IN_USE);
}

doca_error_t doca_buf_pool_destroy(struct doca_buf_pool *buf_pool)
{
	doca_error_t ret;

	ODMA_CHECK_ARG(buf_pool != NULL, "buf_pool is NULL");
	ret = pool_check_idle(buf_pool, "doca_buf_pool_destroy");
	if (ret != DOCA_SUCCESS)
		return ret;
	ODMA_DBG("pool %p destroyed", (void *)buf_pool);
	atomic_fetch_sub_explicit(&buf_pool->mmap->num_pools, 1, memory_order_relaxed);
	free(buf_pool->inv.bufs);
	free(buf_pool);
	return DOCA_SUCCESS;
}

/* The layout of the module comment of doca_buf_pool.h; false when it does not fit. */
static bool pool_layout(struct doca_buf_pool *pool)
{
	const struct doca_mmap *m = pool->mmap;
	uintptr_t base = (uintptr_t)m->addr;
	uintptr_t first = (base + pool->align - 1) & ~(uintptr_t)(pool->align - 1);
	size_t off = first - base;

	if (first < base || pool->elem_size > SIZE_MAX - (pool->align - 1))
		return false;
	pool->stride = (pool->elem_size + pool->align - 1) & ~(pool->align - 1);
	if (off > m->len || pool->num > (m->len - off) / pool->stride)
		return false;
	pool->first = m->addr + off;
	return true;
}

/*
 * The bufs, one per slot, made at the first start once the layout fits: a pool that cannot
 * fit its mmap (50 million slots on a 4 KiB range) is refused before they are allocated.
 */
static doca_error_t pool_make_bufs(struct doca_buf_pool *pool, const char *fn)
{
	if (pool->inv.bufs != NULL)
		return DOCA_SUCCESS;
	pool->inv.bufs = calloc(pool->num, sizeof(struct doca_buf));
	if (pool->inv.bufs == NULL) {
		ODMA_ERR_AT(fn, "pool %p: out of memory allocating its %zu bufs", (void *)pool,
		            pool->num);
		return DOCA_ERROR_NO_MEMORY;
	}
	odma_inv_add_free(&pool->inv, pool->inv.bufs, (uint32_t)pool->num);
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_pool_start(struct doca_buf_pool *buf_pool)
{
	static const char fn[] = "doca_buf_pool_start";
	const struct doca_mmap *m;

	ODMA_CHECK_ARG(buf_pool != NULL, "buf_pool is NULL");
	m = buf_pool->mmap;
	if (buf_pool->started) {
		ODMA_ERR_AT(fn, "pool %p is already started", (void *)buf_pool);
		return DOCA_ERROR_BAD_STATE;
	}
	if (!odma_mmap_live(m)) {
		ODMA_ERR_AT(fn,
		            "mmap %p of pool %p is not started; fix: call doca_mmap_start first",
		            (const void *)m, (void *)buf_pool);
		return DOCA_ERROR_BAD_STATE;
	}
	if (!pool_layout(buf_pool)) {
		ODMA_ERR_AT(fn,
		            "pool %p: %zu slots of %zu bytes aligned to %zu do not fit in the %zu "
		            "bytes of mmap %p at %p; fix: a larger range, fewer or smaller "
		            "elements, or a smaller alignment",
		            (void *)buf_pool, buf_pool->num, buf_pool->elem_size, buf_pool->align,
		            m->len, (const void *)m, (void *)m->addr);
		return DOCA_ERROR_INITIALIZATION;
	}
	if (pool_make_bufs(buf_pool, fn) != DOCA_SUCCESS)
		return DOCA_ERROR_NO_MEMORY;
	/*
	 * A pool over a thread-safe mmap locks from its start: decided at the first alloc, a
	 * count read by another thread meanwhile went unlocked beside that alloc's pop (TSan).
	 */
	odma_inv_share_for(&buf_pool->inv, m);
	buf_pool->started = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_pool_stop(struct doca_buf_pool *buf_pool)
{
	doca_error_t ret;

	ODMA_CHECK_ARG(buf_pool != NULL, "buf_pool is NULL");
	if (!buf_pool->started) {
		ODMA_ERR("pool %p is not started", (void *)buf_pool);
		return DOCA_ERROR_BAD_STATE;
	}
	ret = pool_check_idle(buf_pool, "doca_buf_pool_stop");
	if (ret != DOCA_SUCCESS)
		return ret;
	buf_pool->started = false;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_pool_buf_alloc(struct doca_buf_pool *buf_pool, struct doca_buf **buf)
{
	static const char fn[] = "doca_buf_pool_buf_alloc";
	struct doca_mmap *m;
	struct doca_buf *b;
	uint8_t *slot;
	bool locked;

	ODMA_CHECK_ARG(buf_pool != NULL && buf != NULL, "buf_pool and buf must not be NULL");
	m = buf_pool->mmap;
	if (doca_unlikely(!buf_pool->started || !odma_mmap_live(m))) {
		ODMA_ERR_AT(fn, "%s %p is not started; fix: start the mmap, then the pool",
		            buf_pool->started ? "mmap" : "pool",
		            buf_pool->started ? (void *)m : (void *)buf_pool);
		return DOCA_ERROR_BAD_STATE;
	}
	odma_inv_share_for(&buf_pool->inv, m);
	locked = odma_inv_lock(&buf_pool->inv);
	if (buf_pool->inv.free_list == NULL) {
		odma_inv_unlock(&buf_pool->inv, locked);
		/* running dry is a normal state for a pool, not a mistake: no ERROR line */
		ODMA_DBG("pool %p: all %zu bufs are handed out", (void *)buf_pool, buf_pool->num);
		return DOCA_ERROR_EMPTY;
	}
	b = odma_inv_pop(&buf_pool->inv);
	odma_inv_unlock(&buf_pool->inv, locked);
	slot = buf_pool->first + (size_t)(b - buf_pool->inv.bufs) * buf_pool->stride;
	odma_buf_bind(b, m, slot, buf_pool->elem_size, slot, 0);
	*buf = b;
	return DOCA_SUCCESS;
}

static doca_error_t pool_check_configurable(const struct doca_buf_pool *pool, const char *fn)
{
	if (pool->started) {
		ODMA_ERR_AT(fn, "pool %p is started; fix: set it before doca_buf_pool_start",
		            (const void *)pool);
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_pool_set_user_data(struct doca_buf_pool *buf_pool, union doca_data user_data)
{
	doca_error_t ret;

	ODMA_CHECK_ARG(buf_pool != NULL, "buf_pool is NULL");
	ret = pool_check_configurable(buf_pool, "doca_buf_pool_set_user_data");
	if (ret != DOCA_SUCCESS)
		return ret;
	buf_pool->user_data = user_data;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_pool_set_element_alignment(struct doca_buf_pool *buf_pool,
                                                 size_t element_alignment)
{
	static const char fn[] = "doca_buf_pool_set_element_alignment";
	doca_error_t ret;

	ODMA_CHECK_ARG(buf_pool != NULL, "buf_pool is NULL");
	ret = pool_check_configurable(buf_pool, fn);
	if (ret != DOCA_SUCCESS)
		return ret;
	if (element_alignment == 0 || (element_alignment & (element_alignment - 1)) != 0) {
		ODMA_ERR_AT(fn, "alignment %zu is not a power of two; fix: pass 1, 2, 4, 8, ...",
		            element_alignment);
		return DOCA_ERROR_INVALID_VALUE;
	}
	buf_pool->align = element_alignment;
	return DOCA_SUCCESS;
}

ODMA_GETTER(doca_buf_pool_get_num_elements, const struct doca_buf_pool, buf_pool, uint32_t,
            num_of_elements, (uint32_t)buf_pool->num)

ODMA_GETTER(doca_buf_pool_get_num_free_elements, const struct doca_buf_pool, buf_pool, uint32_t,
            num_of_free_elements, pool_num_free(buf_pool))

ODMA_GETTER(doca_buf_pool_get_user_data, const struct doca_buf_pool, buf_pool, union doca_data,
            user_data, buf_pool->user_data)

ODMA_GETTER(doca_buf_pool_get_element_alignment, const struct doca_buf_pool, buf_pool, size_t,
            element_alignment, buf_pool->align)
