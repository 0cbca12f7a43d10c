/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Teardown decisions (docs/differences-from-hardware.md, "Teardown: NULL and released
 * handles"): what each destroy/close/stop call answers for NULL and for a handle that was
 * already released, and what it logs. doca_dev_close(NULL) is a harmless no-op because DOCA's
 * own samples depend on it; every other NULL, and every released or foreign handle, is
 * refused with one ERROR line.
 */
#include <stdlib.h>
#include <string.h>

#include <doca_argp.h>
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "test_util.h"

#define MAX_LINES 32
static char sdk_buf[1024];
static char sdk_lines[MAX_LINES][1024];
static int sdk_count;
static struct doca_log_backend *sdk_be;

static void sdk_flush(char *buf)
{
	if (sdk_count < MAX_LINES)
		snprintf(sdk_lines[sdk_count], sizeof(sdk_lines[0]), "%s", buf);
	sdk_count++;
}

/* Number of captured SDK lines at @level ("ERROR", "DEBUG") that contain @text. */
static int lines_with(const char *level, const char *text)
{
	char tag[32];
	int i, n = 0;

	snprintf(tag, sizeof(tag), "[%s]", level);
	for (i = 0; i < sdk_count && i < MAX_LINES; i++)
		if (strstr(sdk_lines[i], tag) != NULL &&
		    (text == NULL || strstr(sdk_lines[i], text) != NULL))
			n++;
	return n;
}

static int setup(void **state)
{
	(void)state;
	assert_ok(
	        doca_log_backend_create_with_buf_sdk(sdk_buf, sizeof(sdk_buf), sdk_flush, &sdk_be));
	assert_ok(doca_log_backend_set_sdk_level(sdk_be, DOCA_LOG_LEVEL_DEBUG));
	assert_ok(doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_DEBUG));
	return 0;
}

static int reset(void **state)
{
	(void)state;
	sdk_count = 0;
	return 0;
}

static struct doca_devinfo *find_dev(struct doca_devinfo ***list, const char *pci)
{
	uint32_t n, i;
	uint8_t eq;

	assert_ok(doca_devinfo_create_list(list, &n));
	for (i = 0; i < n; i++) {
		assert_ok(doca_devinfo_is_equal_pci_addr((*list)[i], pci, &eq));
		if (eq)
			return (*list)[i];
	}
	fail_msg("no device %s in the default profile", pci);
	return NULL;
}

/* doca_dev_close(NULL): success, one DEBUG line, no ERROR line. */
static void dev_close_null_is_a_noop(void **state)
{
	(void)state;
	assert_ok(doca_dev_close(NULL));
	assert_int_equal(lines_with("DEBUG", "doca_dev_close(NULL)"), 1);
	assert_int_equal(lines_with("ERROR", NULL), 0);
}

/*
 * The shape of DOCA's DMA sample teardown, written here from scratch: a helper closes the
 * device and clears the caller's pointer, then the outer teardown closes "the device" again.
 * The whole teardown must report success.
 */
struct core_objs {
	struct doca_dev *dev;
	struct doca_mmap *mmap;
};

static doca_error_t release_core(struct core_objs *c)
{
	doca_error_t r = DOCA_SUCCESS, t;

	if (c->mmap != NULL) {
		t = doca_mmap_destroy(c->mmap);
		DOCA_ERROR_PROPAGATE(r, t);
		c->mmap = NULL;
	}
	if (c->dev != NULL) {
		t = doca_dev_close(c->dev);
		DOCA_ERROR_PROPAGATE(r, t);
		c->dev = NULL;
	}
	return r;
}

static void double_close_teardown_succeeds(void **state)
{
	struct doca_devinfo **list;
	struct core_objs c = { 0 };
	doca_error_t r, t;

	(void)state;
	assert_ok(doca_dev_open(find_dev(&list, "03:00.0"), &c.dev));
	assert_ok(doca_devinfo_destroy_list(list));
	assert_ok(doca_mmap_create(&c.mmap));
	assert_ok(doca_mmap_add_dev(c.mmap, c.dev));
	r = release_core(&c);
	t = doca_dev_close(c.dev); /* c.dev is NULL by now */
	DOCA_ERROR_PROPAGATE(r, t);
	assert_ok(r);
	assert_int_equal(lines_with("ERROR", NULL), 0);
}

/* A device closed once too often, or a pointer that never was a device, still fails loudly. */
static void dev_close_released_or_foreign_fails(void **state)
{
	struct doca_devinfo **list;
	struct doca_dev *dev;
	char not_a_dev[64] = { 0 };

	(void)state;
	assert_ok(doca_dev_open(find_dev(&list, "b1:00.0"), &dev));
	assert_ok(doca_devinfo_destroy_list(list));
	assert_ok(doca_dev_close(dev));
	sdk_count = 0;
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_dev_close(dev));
	assert_int_equal(lines_with("ERROR", "not open"), 1);
	sdk_count = 0;
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_dev_close((struct doca_dev *)not_a_dev));
	assert_int_equal(lines_with("ERROR", NULL), 1);
}

/* Every other teardown call keeps refusing NULL, with one ERROR line each: no DOCA program
 * passes NULL to them (the samples guard each call with a NULL check). */
static void other_teardown_calls_refuse_null(void **state)
{
	(void)state;
#define REFUSES_NULL(call)                                                                         \
	do {                                                                                       \
		sdk_count = 0;                                                                     \
		assert_doca(DOCA_ERROR_INVALID_VALUE, call);                                       \
		if (lines_with("ERROR", NULL) != 1)                                                \
			fail_msg("%s: expected one ERROR line, got %d", #call,                     \
			         lines_with("ERROR", NULL));                                       \
	} while (0)
	REFUSES_NULL(doca_dev_rep_close(NULL));
	REFUSES_NULL(doca_devinfo_destroy_list(NULL));
	REFUSES_NULL(doca_devinfo_rep_destroy_list(NULL));
	REFUSES_NULL(doca_mmap_stop(NULL));
	REFUSES_NULL(doca_mmap_destroy(NULL));
	REFUSES_NULL(doca_buf_inventory_stop(NULL));
	REFUSES_NULL(doca_buf_inventory_destroy(NULL));
	REFUSES_NULL(doca_buf_dec_refcount(NULL, NULL));
	REFUSES_NULL(doca_ctx_stop(NULL));
	REFUSES_NULL(doca_dma_destroy(NULL));
	REFUSES_NULL(doca_pe_destroy(NULL));
#undef REFUSES_NULL
	sdk_count = 0;
	doca_task_free(NULL);
	assert_int_equal(lines_with("ERROR", NULL), 1);
}

/* Released handles that odma can recognise are refused, never touched. */
static void released_handles_fail_loudly(void **state)
{
	struct doca_devinfo **list;
	struct doca_devinfo_rep **reps;
	struct doca_dev *dpu;
	struct doca_dev_rep *rep;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	struct doca_buf *buf;
	uint32_t n;
	char mem[64];

	(void)state;
	assert_ok(doca_dev_open(find_dev(&list, "03:00.0"), &dpu));
	/* a device list destroyed twice */
	assert_ok(doca_devinfo_destroy_list(list));
	sdk_count = 0;
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_destroy_list(list));
	assert_int_equal(lines_with("ERROR", NULL), 1);

	/* a representor closed twice, a representor list destroyed twice */
	assert_ok(doca_devinfo_rep_create_list(dpu, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n));
	assert_true(n > 0);
	assert_ok(doca_dev_rep_open(reps[0], &rep));
	assert_ok(doca_devinfo_rep_destroy_list(reps));
	sdk_count = 0;
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_devinfo_rep_destroy_list(reps));
	assert_int_equal(lines_with("ERROR", NULL), 1);
	assert_ok(doca_dev_rep_close(rep));
	sdk_count = 0;
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_dev_rep_close(rep));
	assert_int_equal(lines_with("ERROR", NULL), 1);

	/* a buffer released twice */
	assert_ok(doca_mmap_create(&mmap));
	assert_ok(doca_mmap_set_memrange(mmap, mem, sizeof(mem)));
	assert_ok(doca_mmap_add_dev(mmap, dpu));
	assert_ok(doca_mmap_start(mmap));
	assert_ok(doca_buf_inventory_create(4, &inv));
	assert_ok(doca_buf_inventory_start(inv));
	assert_ok(doca_buf_inventory_buf_get_by_addr(inv, mmap, mem, sizeof(mem), &buf));
	assert_ok(doca_buf_dec_refcount(buf, NULL));
	sdk_count = 0;
	assert_doca(DOCA_ERROR_BAD_STATE, doca_buf_dec_refcount(buf, NULL));
	assert_int_equal(lines_with("ERROR", NULL), 1);

	/* stopping what is already stopped */
	assert_ok(doca_buf_inventory_stop(inv));
	sdk_count = 0;
	assert_doca(DOCA_ERROR_BAD_STATE, doca_buf_inventory_stop(inv));
	assert_int_equal(lines_with("ERROR", NULL), 1);
	assert_ok(doca_buf_inventory_destroy(inv));
	assert_ok(doca_mmap_stop(mmap));
	sdk_count = 0;
	assert_doca(DOCA_ERROR_BAD_STATE, doca_mmap_stop(mmap));
	assert_int_equal(lines_with("ERROR", NULL), 1);
	assert_ok(doca_mmap_destroy(mmap));
	assert_ok(doca_dev_close(dpu));
}

/* doca_argp_destroy() without a parser is refused (BAD_STATE), not ignored. */
static void argp_destroy_without_init(void **state)
{
	(void)state;
	assert_doca(DOCA_ERROR_BAD_STATE, doca_argp_destroy());
}

#define REUSE_BLOCKS 256 /* one block of each size class up to 4 KiB */
static struct doca_dma *idle_cb_dma;
static int idle_cb_destroyed = -1;
static void *reuse[REUSE_BLOCKS];

static void nop_memcpy_cb(struct doca_dma_task_memcpy *task, union doca_data task_ud,
                          union doca_data ctx_ud)
{
	(void)task;
	(void)task_ud;
	(void)ctx_ud;
}

/* A program that destroys its context from the state-changed callback once it is IDLE. */
static void destroy_when_idle(const union doca_data ud, struct doca_ctx *ctx,
                              enum doca_ctx_states prev, enum doca_ctx_states next)
{
	(void)ud;
	(void)ctx;
	(void)prev;
	if (next != DOCA_CTX_STATE_IDLE)
		return;
	idle_cb_destroyed = (int)doca_dma_destroy(idle_cb_dma);
	/* the program goes on allocating: the context's memory is soon someone else's */
	for (size_t i = 0; i < REUSE_BLOCKS; i++) {
		reuse[i] = malloc(16 * (i + 1));
		assert_non_null(reuse[i]);
		memset(reuse[i], 0xff, 16 * (i + 1));
	}
}

/*
 * doca_ctx_stop of a context with nothing outstanding goes IDLE at once, from inside the call:
 * the state-changed callback may destroy the context there, so the call must not read it
 * afterwards (it answered from the freed context: ASan reports it, and once the program reused
 * that memory the answer was IN_PROGRESS).
 */
static void ctx_destroyed_by_idle_callback(void **state)
{
	struct doca_dev *dev = tu_open_dev(NULL);
	struct doca_pe *pe;
	struct doca_ctx *ctx;

	(void)state;
	assert_ok(doca_pe_create(&pe));
	assert_ok(doca_dma_create(dev, &idle_cb_dma));
	ctx = doca_dma_as_ctx(idle_cb_dma);
	assert_ok(doca_ctx_set_state_changed_cb(ctx, destroy_when_idle));
	assert_ok(doca_dma_task_memcpy_set_conf(idle_cb_dma, nop_memcpy_cb, nop_memcpy_cb, 4));
	assert_ok(doca_pe_connect_ctx(pe, ctx));
	assert_ok(doca_ctx_start(ctx));
	assert_ok(doca_ctx_stop(ctx));
	assert_int_equal(idle_cb_destroyed, DOCA_SUCCESS);
	for (size_t i = 0; i < REUSE_BLOCKS; i++)
		free(reuse[i]);
	assert_ok(doca_pe_destroy(pe));
	assert_ok(doca_dev_close(dev));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(dev_close_null_is_a_noop, reset),
		cmocka_unit_test_setup(double_close_teardown_succeeds, reset),
		cmocka_unit_test_setup(dev_close_released_or_foreign_fails, reset),
		cmocka_unit_test_setup(other_teardown_calls_refuse_null, reset),
		cmocka_unit_test_setup(released_handles_fail_loudly, reset),
		cmocka_unit_test_setup(argp_destroy_without_init, reset),
		cmocka_unit_test_setup(ctx_destroyed_by_idle_callback, reset),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
