/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Buffer inventories. Every buf is allocated at create (or expand) and kept on an
 * intrusive free list, so taking and returning a buf on the data path is a couple
 * of pointer moves and never calls the allocator. Not thread-safe, like DOCA's, until it
 * serves a thread-safe mmap (memory.h).
 */
#include <sched.h>
#include <stdlib.h>

#include "core/memory/memory.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(ODMA_BUF_INVENTORY)

void odma_inv_add_free(struct doca_buf_inventory *inv, struct doca_buf *bufs, uint32_t n)
{
	/* Push in reverse so bufs[0] is handed out first: friendlier to caches and to debugging. */
	for (uint32_t i = n; i-- > 0;) {
		struct doca_buf *b = &bufs[i];

		b->inv = inv;
		b->list_head = b;
		b->last = b;
		b->list_len = 1;
		b->free_next = inv->free_list;
		inv->free_list = b;
	}
	inv->num_free += n;
}

doca_error_t doca_buf_inventory_create(size_t num_elements, struct doca_buf_inventory **inventory)
{
	struct doca_buf_inventory *inv;

	ODMA_CHECK_ARG(inventory != NULL, "inventory out-pointer is NULL");
	if (num_elements == 0 || num_elements > UINT32_MAX) {
		ODMA_ERR("num_elements %zu is out of range; use 1 to %u", num_elements, UINT32_MAX);
		return DOCA_ERROR_INVALID_VALUE;
	}
	inv = calloc(1, sizeof(*inv));
	if (inv != NULL)
		inv->bufs = calloc(num_elements, sizeof(*inv->bufs));
	if (inv == NULL || inv->bufs == NULL) {
		ODMA_ERR("out of memory allocating %zu bufs", num_elements);
		free(inv);
		return DOCA_ERROR_NO_MEMORY;
	}
	inv->num_elements = (uint32_t)num_elements;
	atomic_init(&inv->shared, false);
	atomic_flag_clear(&inv->lock);
	odma_inv_add_free(inv, inv->bufs, inv->num_elements);
	*inventory = inv;
	ODMA_DBG("inventory %p created with %zu bufs", (void *)inv, num_elements);
	return DOCA_SUCCESS;
}

doca_error_t odma_check_no_bufs_held(const char *fn, const char *what, const void *obj,
                                     uint32_t held, const char *how, doca_error_t code)
{
	if (held != 0) {
		ODMA_ERR_AT(fn,
		            "%s %p still has %u buf(s) %s; fix: release them with "
		            "doca_buf_dec_refcount first",
		            what, obj, held, how);
		return code;
	}
	return DOCA_SUCCESS;
}

static doca_error_t inv_check_idle(const struct doca_buf_inventory *inv, const char *fn)
{
	return odma_check_no_bufs_held(fn, "inventory", inv, inv->num_elements - inv->num_free,
	                               "in use", DOCA_ERROR_IN_USE);
}

doca_error_t doca_buf_inventory_destroy(struct doca_buf_inventory *inventory)
{
	struct odma_buf_chunk *c;
	doca_error_t ret;

	ODMA_CHECK_ARG(inventory != NULL, "inventory is NULL");
	ret = inv_check_idle(inventory, "doca_buf_inventory_destroy");
	if (ret != DOCA_SUCCESS)
		return ret;
	c = inventory->chunks;
	while (c != NULL) {
		struct odma_buf_chunk *next = c->next;

		free(c);
		c = next;
	}
	free(inventory->bufs);
	ODMA_DBG("inventory %p destroyed", (void *)inventory);
	free(inventory);
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_start(struct doca_buf_inventory *inventory)
{
	ODMA_CHECK_ARG(inventory != NULL, "inventory is NULL");
	if (inventory->started) {
		ODMA_ERR("inventory %p is already started", (void *)inventory);
		return DOCA_ERROR_BAD_STATE;
	}
	inventory->started = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_stop(struct doca_buf_inventory *inventory)
{
	doca_error_t ret;

	ODMA_CHECK_ARG(inventory != NULL, "inventory is NULL");
	if (!inventory->started) {
		ODMA_ERR("inventory %p is not started", (void *)inventory);
		return DOCA_ERROR_BAD_STATE;
	}
	ret = inv_check_idle(inventory, "doca_buf_inventory_stop");
	if (ret != DOCA_SUCCESS)
		return ret;
	inventory->started = false;
	return DOCA_SUCCESS;
}

bool odma_inv_lock_slow(struct doca_buf_inventory *inv)
{
	while (atomic_flag_test_and_set_explicit(&inv->lock, memory_order_acquire))
		sched_yield();
	return true;
}

void odma_inv_share_for(struct doca_buf_inventory *inv, const struct doca_mmap *mmap)
{
	if (doca_unlikely(mmap->thread_safe) &&
	    !atomic_load_explicit(&inv->shared, memory_order_relaxed)) {
		atomic_store_explicit(&inv->shared, true, memory_order_release);
		ODMA_DBG("inventory %p serves thread-safe mmap %p: it locks from now on",
		         (void *)inv, (const void *)mmap);
	}
}

uint32_t odma_inv_num_free(const struct doca_buf_inventory *inventory)
{
	struct doca_buf_inventory *inv = (struct doca_buf_inventory *)inventory; /* its lock */
	bool locked = odma_inv_lock_slow(inv);
	uint32_t n = inv->num_free;

	odma_inv_unlock(inv, locked);
	return n;
}

struct doca_buf *odma_inv_pop(struct doca_buf_inventory *inv)
{
	struct doca_buf *b = inv->free_list;

	inv->free_list = b->free_next;
	inv->num_free--;
	b->free_next = NULL;
	return b;
}

void odma_buf_bind(struct doca_buf *b, struct doca_mmap *mmap, uint8_t *head, size_t len,
                   uint8_t *data, size_t data_len)
{
	b->head = head;
	b->len = len;
	b->data = data;
	b->data_len = data_len;
	b->mmap = mmap;
	b->next = NULL;
	b->list_head = b;
	b->last = b;
	b->list_len = 1;
	b->refcount = 1;
	b->in_use = true;
	b->counted = odma_mmap_buf_get(mmap);
	odma_buf_fast_update(b);
}

/* Pops a free buf and binds it; the caller checked that one is free and the ranges are valid. */
static struct doca_buf *inv_take(struct doca_buf_inventory *inv, struct doca_mmap *mmap,
                                 uint8_t *head, size_t len, uint8_t *data, size_t data_len)
{
	struct doca_buf *b = odma_inv_pop(inv);

	odma_buf_bind(b, mmap, head, len, data, data_len);
	return b;
}

void odma_buf_inventory_put(struct doca_buf *buf)
{
	struct doca_buf_inventory *inv = buf->inv;
	bool locked;

	if (buf->counted) /* never touches a thread-safe mmap, which may be destroyed already */
		odma_mmap_buf_put(buf->mmap);
	buf->mmap = NULL;
	buf->next = NULL;
	buf->list_head = buf;
	buf->last = buf;
	buf->list_len = 1;
	buf->refcount = 0;
	buf->in_use = false;
	buf->counted = false;
	buf->fast = 0;
	locked = odma_inv_lock(inv);
	buf->free_next = inv->free_list;
	inv->free_list = buf;
	inv->num_free++;
	odma_inv_unlock(inv, locked);
}

/* State checks shared by get_by_args and buf_dup. */
static doca_error_t inv_check_started(const struct doca_buf_inventory *inv, const char *fn)
{
	if (!inv->started) {
		ODMA_ERR_AT(fn, "inventory %p is not started; call doca_buf_inventory_start first",
		            (const void *)inv);
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

/* Range checks of get_by_args; stricter than hardware on the data segment (see the header). */
static doca_error_t inv_check_ranges(const struct doca_mmap *mmap, uint8_t *addr, size_t len,
                                     uint8_t *data, size_t data_len)
{
	static const char fn[] = "doca_buf_inventory_buf_get_by_args";

	if (len == 0 || !odma_mmap_contains(mmap, addr, len)) {
		ODMA_ERR_AT(fn, "window [%p, +%zu) is empty or not inside mmap %p range [%p, +%zu)",
		            (void *)addr, len, (const void *)mmap, (void *)mmap->addr, mmap->len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!odma_range_inside(data, data_len, addr, len)) {
		ODMA_ERR_AT(fn,
		            "data segment [%p, +%zu) is not inside the window [%p, +%zu); keep "
		            "data within the buf",
		            (void *)data, data_len, (void *)addr, len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_buf_get_by_args(struct doca_buf_inventory *inventory,
                                                struct doca_mmap *mmap, void *addr, size_t len,
                                                void *data, size_t data_len, struct doca_buf **buf)
{
	static const char fn[] = "doca_buf_inventory_buf_get_by_args";
	struct doca_buf *b;
	doca_error_t ret;
	bool locked;

	ODMA_CHECK_ARG(inventory != NULL && mmap != NULL && addr != NULL && data != NULL &&
	                       buf != NULL,
	               "inventory, mmap, addr, data and buf must not be NULL");
	ret = inv_check_started(inventory, fn);
	if (ret != DOCA_SUCCESS)
		return ret;
	if (!odma_mmap_live(mmap)) {
		ODMA_ERR_AT(fn, "mmap %p is not started; call doca_mmap_start first", (void *)mmap);
		return DOCA_ERROR_BAD_STATE;
	}
	ret = inv_check_ranges(mmap, addr, len, data, data_len);
	if (ret != DOCA_SUCCESS)
		return ret;
	odma_inv_share_for(inventory, mmap);
	locked = odma_inv_lock(inventory);
	if (inventory->free_list == NULL) {
		odma_inv_unlock(inventory, locked);
		/* a busy program may meet it at every get: rate-limited */
		ODMA_RATELIMITED_ERR_AT(
		        fn,
		        "inventory %p has no free buf (all %u in use); release bufs or "
		        "create a bigger inventory",
		        (void *)inventory, inventory->num_elements);
		return DOCA_ERROR_NO_MEMORY;
	}
	b = odma_inv_pop(inventory);
	odma_inv_unlock(inventory, locked);
	odma_buf_bind(b, mmap, addr, len, data, data_len);
	*buf = b;
	return DOCA_SUCCESS;
}

/* Checks a whole source list for buf_dup before anything is taken, so a failure changes nothing. */
static doca_error_t inv_check_dup_src(const struct doca_buf_inventory *inv,
                                      const struct doca_buf *src)
{
	static const char fn[] = "doca_buf_inventory_buf_dup";

	if (!src->in_use) {
		ODMA_ERR_AT(fn, "src buf %p was already released to its inventory",
		            (const void *)src);
		return DOCA_ERROR_BAD_STATE;
	}
	if (!odma_buf_is_head(src)) {
		ODMA_ERR_AT(fn,
		            "src buf %p is inside a list; duplicate the list through its head %p",
		            (const void *)src, (void *)src->list_head);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	for (const struct doca_buf *e = src; e != NULL; e = e->next) {
		if (!odma_mmap_live(e->mmap)) {
			ODMA_ERR_AT(fn, "mmap %p of src element %p is not started", (void *)e->mmap,
			            (const void *)e);
			return DOCA_ERROR_BAD_STATE;
		}
	}
	if (inv->num_free < src->list_len) {
		ODMA_ERR_AT(fn,
		            "inventory %p has %u free buf(s) but the src list has %u element(s)",
		            (const void *)inv, inv->num_free, src->list_len);
		return DOCA_ERROR_NO_MEMORY;
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_buf_dup(struct doca_buf_inventory *inventory,
                                        const struct doca_buf *src_buf, struct doca_buf **dst_buf)
{
	struct doca_buf *head, *tail;
	doca_error_t ret;
	bool locked;

	ODMA_CHECK_ARG(inventory != NULL && src_buf != NULL && dst_buf != NULL,
	               "inventory, src_buf and dst_buf must not be NULL");
	ret = inv_check_started(inventory, "doca_buf_inventory_buf_dup");
	if (ret != DOCA_SUCCESS)
		return ret;
	for (const struct doca_buf *e = src_buf; e != NULL && e->in_use; e = e->next)
		odma_inv_share_for(inventory, e->mmap);
	locked = odma_inv_lock(inventory);
	ret = inv_check_dup_src(inventory, src_buf);
	if (ret != DOCA_SUCCESS) {
		odma_inv_unlock(inventory, locked);
		return ret;
	}
	head = inv_take(inventory, src_buf->mmap, src_buf->head, src_buf->len, src_buf->data,
	                src_buf->data_len);
	tail = head;
	for (const struct doca_buf *e = src_buf->next; e != NULL; e = e->next) {
		struct doca_buf *b =
		        inv_take(inventory, e->mmap, e->head, e->len, e->data, e->data_len);

		b->list_head = head;
		b->last = NULL;
		b->list_len = 0;
		tail->next = b;
		odma_buf_fast_update(tail);
		tail = b;
	}
	odma_inv_unlock(inventory, locked);
	head->last = tail;
	head->list_len = src_buf->list_len;
	*dst_buf = head;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_set_user_data(struct doca_buf_inventory *inventory,
                                              union doca_data user_data)
{
	ODMA_CHECK_ARG(inventory != NULL, "inventory is NULL");
	if (inventory->started) {
		ODMA_ERR("inventory %p is started; set user data before start", (void *)inventory);
		return DOCA_ERROR_BAD_STATE;
	}
	inventory->user_data = user_data;
	return DOCA_SUCCESS;
}

ODMA_GETTER(doca_buf_inventory_get_user_data, const struct doca_buf_inventory, inventory,
            union doca_data, user_data, inventory->user_data)

ODMA_GETTER(doca_buf_inventory_get_num_elements, const struct doca_buf_inventory, inventory,
            uint32_t, num_elements, inventory->num_elements)

ODMA_GETTER(doca_buf_inventory_get_num_free_elements, const struct doca_buf_inventory, inventory,
            uint32_t, num_free_elements, odma_inv_num_free(inventory))

doca_error_t doca_buf_inventory_expand(struct doca_buf_inventory *inventory, uint32_t num_elements)
{
	static const char fn[] = "doca_buf_inventory_expand";
	struct odma_buf_chunk *c;
	bool locked;

	ODMA_CHECK_ARG(inventory != NULL, "inventory is NULL");
	if (!inventory->started) {
		ODMA_ERR_AT(fn, "inventory %p is not started; expand a started inventory",
		            (void *)inventory);
		return DOCA_ERROR_BAD_STATE;
	}
	if (num_elements == 0 || num_elements > UINT32_MAX - inventory->num_elements) {
		ODMA_ERR_AT(fn,
		            "inventory %p: cannot add %u bufs to %u; add at least 1 and stay "
		            "within %u in total",
		            (void *)inventory, num_elements, inventory->num_elements, UINT32_MAX);
		return DOCA_ERROR_INVALID_VALUE;
	}
	c = calloc(1, sizeof(*c) + (size_t)num_elements * sizeof(struct doca_buf));
	if (c == NULL) {
		ODMA_ERR_AT(fn, "out of memory allocating %u bufs", num_elements);
		return DOCA_ERROR_NO_MEMORY;
	}
	c->num = num_elements;
	locked = odma_inv_lock(inventory);
	c->next = inventory->chunks;
	inventory->chunks = c;
	inventory->num_elements += num_elements;
	odma_inv_add_free(inventory, c->bufs, num_elements);
	odma_inv_unlock(inventory, locked);
	return DOCA_SUCCESS;
}

/*
 * The checks of a reuse. A list element may be re-pointed in place: its links stay, and a
 * list's length and data are always summed from its elements (NVIDIA's 3.3 storage
 * applications re-point the two elements of a recover task's list before each submit).
 */
static doca_error_t inv_check_reuse(const struct doca_buf *buf, uint8_t *addr, size_t len,
                                    uint8_t *data, size_t data_len)
{
	static const char fn[] = "doca_buf_inventory_buf_reuse_by_args";

	if (!buf->in_use) {
		ODMA_ERR_AT(fn,
		            "buf %p was already released to its inventory; "
		            "reuse a buf you still hold",
		            (const void *)buf);
		return DOCA_ERROR_BAD_STATE;
	}
	if (len == 0 || !odma_mmap_contains(buf->mmap, addr, len)) {
		ODMA_ERR_AT(fn,
		            "window [%p, +%zu) is empty or not inside the range [%p, +%zu) of the "
		            "buf's mmap %p; fix: reuse a buf only within its own mmap",
		            (void *)addr, len, (void *)buf->mmap->addr, buf->mmap->len,
		            (const void *)buf->mmap);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!odma_range_inside(data, data_len, addr, len)) {
		ODMA_ERR_AT(fn, "data segment [%p, +%zu) is not inside the window [%p, +%zu)",
		            (void *)data, data_len, (void *)addr, len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_buf_reuse_by_args(struct doca_buf *buf, void *addr, size_t len,
                                                  void *data, size_t data_len)
{
	doca_error_t ret;

	ODMA_CHECK_ARG(buf != NULL && addr != NULL && data != NULL,
	               "buf, addr and data must not be NULL");
	ret = inv_check_reuse(buf, addr, len, data, data_len);
	if (ret != DOCA_SUCCESS)
		return ret;
	buf->head = addr;
	buf->len = len;
	buf->data = data;
	buf->data_len = data_len;
	return DOCA_SUCCESS;
}
