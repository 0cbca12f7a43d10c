/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Buffers: reference counts, data segment and lists. List invariants kept by every
 * operation here: each element's list_head points at the head; the head has
 * last = final element and list_len = element count; every other element has
 * last = NULL, list_len = 0 and refcount = 1.
 */
#include "core/memory/memory.h"
#include "core/error/error.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(ODMA_BUF)

/* Rejects a buf already returned to its inventory; such a buf has refcount 0. */
static doca_error_t buf_check_live(const struct doca_buf *buf, const char *fn)
{
	if (!buf->in_use) {
		ODMA_ERR_AT(fn, "buf %p was already released to its inventory (refcount 0)",
		            (const void *)buf);
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t buf_check_head(const struct doca_buf *buf, const char *fn)
{
	if (!odma_buf_is_head(buf)) {
		ODMA_ERR_AT(fn, "buf %p is inside a list; use the list head %p", (const void *)buf,
		            (void *)buf->list_head);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	return DOCA_SUCCESS;
}

static doca_error_t buf_check_live_head(const struct doca_buf *buf, const char *fn)
{
	doca_error_t ret = buf_check_live(buf, fn);

	return ret != DOCA_SUCCESS ? ret : buf_check_head(buf, fn);
}

doca_error_t doca_buf_inc_refcount(struct doca_buf *buf, uint16_t *refcount)
{
	doca_error_t ret;

	ODMA_CHECK_ARG(buf != NULL, "buf is NULL");
	ret = buf_check_live_head(buf, "doca_buf_inc_refcount");
	if (ret != DOCA_SUCCESS)
		return ret;
	if (buf->refcount == UINT16_MAX) {
		ODMA_ERR("buf %p already holds the maximum of %u references", (void *)buf,
		         UINT16_MAX);
		return DOCA_ERROR_TOO_BIG;
	}
	if (refcount != NULL)
		*refcount = buf->refcount;
	buf->refcount++;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_dec_refcount(struct doca_buf *buf, uint16_t *refcount)
{
	struct doca_buf *e;
	doca_error_t ret;
	uint16_t left;

	ODMA_CHECK_ARG(buf != NULL, "buf is NULL");
	ret = buf_check_live_head(buf, "doca_buf_dec_refcount");
	if (ret != DOCA_SUCCESS)
		return ret;
	/* read before the release: a returned buf may be taken again at once by another thread */
	left = --buf->refcount;
	if (left == 0) {
		/*
		 * The head stands for the list: every element goes back, each to its own inventory.
		 */
		e = buf;
		while (e != NULL) {
			struct doca_buf *next = e->next;

			odma_buf_inventory_put(e);
			e = next;
		}
	}
	if (refcount != NULL)
		*refcount = left;
	return DOCA_SUCCESS;
}

ODMA_GETTER(doca_buf_get_refcount, const struct doca_buf, buf, uint16_t, refcount, buf->refcount)

/*
 * Defines the public getter @fn(buf, @type *@field) of buf->@field: INVALID_VALUE when either
 * is NULL, BAD_STATE for a buf already returned to its inventory.
 */
#define BUF_LIVE_GETTER(fn, type, field)                                                           \
	doca_error_t fn(const struct doca_buf *buf, type *field)                                   \
	{                                                                                          \
		ODMA_CHECK_ARG(buf != NULL && field != NULL,                                       \
		               "buf and " #field " must not be NULL");                             \
		if (buf_check_live(buf, #fn) != DOCA_SUCCESS)                                      \
			return DOCA_ERROR_BAD_STATE;                                               \
		*field = buf->field;                                                               \
		return DOCA_SUCCESS;                                                               \
	}

BUF_LIVE_GETTER(doca_buf_get_len, size_t, len)
BUF_LIVE_GETTER(doca_buf_get_head, void *, head)
BUF_LIVE_GETTER(doca_buf_get_data_len, size_t, data_len)
BUF_LIVE_GETTER(doca_buf_get_data, void *, data)

/* The refusals of doca_buf_set_data, each with its log line (kept off the per-task path). */
static doca_error_t __attribute__((noinline, cold))
buf_set_data_refuse(struct doca_buf *buf, void *data, size_t data_len)
{
	ODMA_CHECK_ARG(buf != NULL, "buf is NULL");
	if (buf_check_live(buf, "doca_buf_set_data") != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	ODMA_ERR("buf %p: data [%p, +%zu) is outside the window [%p, +%zu); "
	         "keep data inside the buf",
	         (void *)buf, data, data_len, (void *)buf->head, buf->len);
	return DOCA_ERROR_INVALID_VALUE;
}

/* Called per task by programs that reuse bufs: the checks in one branch, the logs apart. */
doca_error_t doca_buf_set_data(struct doca_buf *buf, void *data, size_t data_len)
{
	if (doca_unlikely(buf == NULL || !buf->in_use ||
	                  !odma_range_inside(data, data_len, buf->head, buf->len)))
		return buf_set_data_refuse(buf, data, data_len);
	buf->data = data;
	buf->data_len = data_len;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_set_data_len(struct doca_buf *buf, size_t data_len)
{
	ODMA_CHECK_ARG(buf != NULL, "buf is NULL");
	if (buf_check_live(buf, "doca_buf_set_data_len") != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	if (!odma_range_inside(buf->data, data_len, buf->head, buf->len)) {
		ODMA_ERR("buf %p: data_len %zu from %p passes the window end %p; at most %zu fits",
		         (void *)buf, data_len, (void *)buf->data, (void *)(buf->head + buf->len),
		         buf->len - (size_t)(buf->data - buf->head));
		return DOCA_ERROR_INVALID_VALUE;
	}
	buf->data_len = data_len;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_reset_data_len(struct doca_buf *buf)
{
	ODMA_CHECK_ARG(buf != NULL, "buf is NULL");
	if (buf_check_live(buf, "doca_buf_reset_data_len") != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	buf->data_len = 0;
	return DOCA_SUCCESS;
}

ODMA_GETTER(doca_buf_get_next_in_list, struct doca_buf, buf, struct doca_buf *, next_buf, buf->next)

ODMA_GETTER(doca_buf_get_last_in_list, struct doca_buf, buf, struct doca_buf *, last_buf,
            buf->list_head->last)

ODMA_GETTER(doca_buf_is_last_in_list, const struct doca_buf, buf, uint8_t, is_last,
            buf->next == NULL ? 1 : 0)

ODMA_GETTER(doca_buf_is_first_in_list, const struct doca_buf, buf, uint8_t, is_first,
            odma_buf_is_head(buf) ? 1 : 0)

ODMA_GETTER(doca_buf_is_in_list, const struct doca_buf, buf, uint8_t, is_in_list,
            buf->list_head->list_len > 1 ? 1 : 0)

doca_error_t doca_buf_get_list_len(const struct doca_buf *buf, uint32_t *num_elements)
{
	doca_error_t ret;

	ODMA_CHECK_ARG(buf != NULL && num_elements != NULL,
	               "buf and num_elements must not be NULL");
	ret = buf_check_head(buf, "doca_buf_get_list_len");
	if (ret != DOCA_SUCCESS)
		return ret;
	*num_elements = buf->list_len;
	return DOCA_SUCCESS;
}

/* Checks shared by chain_list and chain_list_tail. */
static doca_error_t buf_check_chain(const struct doca_buf *list1, const struct doca_buf *list2,
                                    const char *fn)
{
	doca_error_t ret;

	if (list1 == list2 || list1->list_head == list2->list_head) {
		ODMA_ERR_AT(fn,
		            "buf %p and buf %p belong to the same list; "
		            "a list cannot be chained to itself",
		            (const void *)list1, (const void *)list2);
		return DOCA_ERROR_INVALID_VALUE;
	}
	ret = buf_check_live_head(list1, fn);
	if (ret == DOCA_SUCCESS)
		ret = buf_check_live_head(list2, fn);
	if (ret != DOCA_SUCCESS)
		return ret;
	if (list2->refcount != 1) {
		ODMA_ERR_AT(fn,
		            "list %p has refcount %u; only a list with refcount 1 can be appended",
		            (const void *)list2, list2->refcount);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	return DOCA_SUCCESS;
}

/* Appends list2 after list1's last element; both were checked. */
static void buf_do_chain(struct doca_buf *list1, struct doca_buf *list2)
{
	for (struct doca_buf *e = list2; e != NULL; e = e->next)
		e->list_head = list1;
	list1->last->next = list2;
	odma_buf_fast_update(list1->last);
	list1->last = list2->last;
	list1->list_len += list2->list_len;
	list2->last = NULL;
	list2->list_len = 0;
}

doca_error_t doca_buf_chain_list(struct doca_buf *list1, struct doca_buf *list2)
{
	doca_error_t ret;

	ODMA_CHECK_ARG(list1 != NULL && list2 != NULL, "list1 and list2 must not be NULL");
	ret = buf_check_chain(list1, list2, "doca_buf_chain_list");
	if (ret != DOCA_SUCCESS)
		return ret;
	buf_do_chain(list1, list2);
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_chain_list_tail(struct doca_buf *list1_head, struct doca_buf *list1_tail,
                                      struct doca_buf *list2)
{
	static const char fn[] = "doca_buf_chain_list_tail";
	doca_error_t ret;

	ODMA_CHECK_ARG(list1_head != NULL && list1_tail != NULL && list2 != NULL,
	               "list1_head, list1_tail and list2 must not be NULL");
	ret = buf_check_chain(list1_head, list2, fn);
	if (ret != DOCA_SUCCESS)
		return ret;
	if (list1_head->last != list1_tail) {
		ODMA_ERR_AT(fn, "buf %p is not the last element of list %p (its last is %p)",
		            (void *)list1_tail, (void *)list1_head, (void *)list1_head->last);
		return DOCA_ERROR_INVALID_VALUE;
	}
	buf_do_chain(list1_head, list2);
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_unchain_list(struct doca_buf *list1, struct doca_buf *list2)
{
	static const char fn[] = "doca_buf_unchain_list";
	struct doca_buf *prev;
	uint32_t kept = 1;
	doca_error_t ret;

	ODMA_CHECK_ARG(list1 != NULL && list2 != NULL, "list1 and list2 must not be NULL");
	ret = buf_check_live_head(list1, fn);
	if (ret != DOCA_SUCCESS)
		return ret;
	for (prev = list1; prev->next != NULL && prev->next != list2; prev = prev->next)
		kept++;
	if (list2 == list1 || prev->next != list2) {
		ODMA_ERR_AT(fn, "buf %p is not an element of list %p after its head", (void *)list2,
		            (void *)list1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	prev->next = NULL;
	odma_buf_fast_update(prev);
	for (struct doca_buf *e = list2; e != NULL; e = e->next)
		e->list_head = list2;
	list2->last = list1->last;
	list2->list_len = list1->list_len - kept;
	list2->refcount = 1;
	list1->last = prev;
	list1->list_len = kept;
	return DOCA_SUCCESS;
}

static bool buf_ranges_meet(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

bool doca_priv_buf_writes_overlap(const struct doca_buf *src, const struct doca_buf *dst,
                                  uint64_t len)
{
	for (const struct doca_buf *d = dst; d != NULL && len > 0; d = d->next) {
		size_t w = odma_buf_room(d) < len ? odma_buf_room(d) : (size_t)len;

		for (const struct doca_buf *s = src; s != NULL; s = s->next)
			if ((s->mmap == d->mmap || (s->mmap->kind == ODMA_MEM_LOCAL &&
			                            d->mmap->kind == ODMA_MEM_LOCAL)) &&
			    buf_ranges_meet(s->data, s->data_len, d->data + d->data_len, w))
				return true;
		len -= w;
	}
	return false;
}

doca_error_t doca_priv_buf_refuse_stopped(const char *lib, const char *kind, const void *task,
                                          const struct doca_buf *b)
{
	ODMA_ERR_AT("doca_task_submit",
	            "%s %s task %p: buf %p is in mmap %p, which is stopped: its memory is "
	            "registered with no device (on hardware the task fails); fix: %s",
	            lib, kind, task, (const void *)b, (const void *)b->mmap,
	            odma_cause_fix(ODMA_CAUSE_MMAP_STOPPED));
	return DOCA_ERROR_BAD_STATE;
}
