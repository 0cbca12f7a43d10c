/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * DOCA Sync Event, black box, one process: every function's rules and codes, the blocking
 * waits (woken without spinning), the context form and its tasks (pools, masks, pending
 * waits, stop, the PE notification handle), and export/import between the two sides of
 * the built-in bf3 system inside one process, and what devices of another profile refuse (this
 * program exec'd with tests/data/profiles/good.profile). Two processes:
 * tests/xproc/test_xproc_se.c.
 */
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_sync_event.h>

#include "test_exec.h"
#include "test_util.h"

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct doca_sync_event *started_event(void)
{
	struct doca_sync_event *se;

	assert_ok(doca_sync_event_create(&se));
	assert_ok(doca_sync_event_start(se));
	return se;
}

/* --------------------------------------------------------------------------------------- */

static void test_create_destroy_rules(void **state)
{
	struct doca_sync_event *se;
	uint64_t v;

	(void)state;
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_sync_event_create(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_sync_event_destroy(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_sync_event_start(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_sync_event_stop(NULL));
	assert_null(doca_sync_event_as_ctx(NULL));
	assert_ok(doca_sync_event_create(&se));
	assert_non_null(doca_sync_event_as_ctx(se));
	/* data path before start */
	assert_doca(DOCA_ERROR_BAD_STATE, doca_sync_event_get(se, &v));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_sync_event_update_set(se, 1));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_sync_event_update_add(se, 1, &v));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_sync_event_wait_eq(se, 0, UINT64_MAX));
	assert_ok(doca_sync_event_stop(se)); /* not started: nothing to do */
	assert_ok(doca_sync_event_start(se));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_sync_event_start(se));
	assert_ok(doca_sync_event_get(se, &v));
	assert_int_equal(v, 0);
	assert_ok(doca_sync_event_update_set(se, 7));
	assert_ok(doca_sync_event_stop(se));
	/* a restart begins at 0 again */
	assert_ok(doca_sync_event_start(se));
	assert_ok(doca_sync_event_get(se, &v));
	assert_int_equal(v, 0);
	/* destroy of a started stand-alone event stops it */
	assert_ok(doca_sync_event_destroy(se));
}

static void test_locations(void **state)
{
	struct doca_dev *dev = tu_open_dev("b1:00.0");
	struct doca_sync_event *se;
	int dummy;

	(void)state;
	assert_ok(doca_sync_event_create(&se));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_add_publisher_location_cpu(NULL, dev));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_sync_event_add_publisher_location_cpu(se, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_add_subscriber_location_cpu(se, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_add_subscriber_location_cpu(se, (struct doca_dev *)&dummy));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_add_publisher_location_remote_pci(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_add_subscriber_location_remote_pci(NULL));
	assert_ok(doca_sync_event_add_publisher_location_remote_pci(se));
	assert_ok(doca_sync_event_add_subscriber_location_cpu(se, dev));
	assert_ok(doca_sync_event_add_publisher_location_cpu(se, dev));
	assert_ok(doca_sync_event_add_subscriber_location_remote_pci(se));
	/* no DPA or GPU peers in odma */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_sync_event_add_publisher_location_dpa(se, NULL));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED,
	            doca_sync_event_add_publisher_location_dpa(se, (struct doca_dpa *)&dummy));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED,
	            doca_sync_event_add_publisher_location_gpu(se, (struct doca_gpu *)&dummy));
	assert_ok(doca_sync_event_add_publisher_location_remote_net(se)); /* DOCA RDMA peers */
	assert_doca(DOCA_ERROR_NOT_SUPPORTED,
	            doca_sync_event_add_subscriber_location_dpa(se, (struct doca_dpa *)&dummy));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED,
	            doca_sync_event_add_subscriber_location_gpu(se, (struct doca_gpu *)&dummy));
	/* the event holds its devices */
	assert_doca(DOCA_ERROR_IN_USE, doca_dev_close(dev));
	assert_ok(doca_sync_event_start(se));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_sync_event_add_subscriber_location_cpu(se, dev));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_sync_event_add_publisher_location_remote_pci(se));
	assert_ok(doca_sync_event_stop(se));
	assert_ok(doca_sync_event_destroy(se));
	assert_ok(doca_dev_close(dev));
}

static void test_values(void **state)
{
	struct doca_sync_event *se = started_event();
	uint64_t v, f;

	(void)state;
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_sync_event_get(se, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_sync_event_get(NULL, &v));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_sync_event_update_set(NULL, 1));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_sync_event_update_add(se, 1, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_sync_event_update_add(NULL, 1, &f));
	assert_ok(doca_sync_event_update_set(se, 40));
	assert_ok(doca_sync_event_update_add(se, 2, &f));
	assert_int_equal(f, 40);
	assert_ok(doca_sync_event_get(se, &v));
	assert_int_equal(v, 42);
	/* full 64 bits, and the addition wraps */
	assert_ok(doca_sync_event_update_set(se, UINT64_MAX - 1));
	assert_ok(doca_sync_event_update_add(se, 3, &f));
	assert_true(f == UINT64_MAX - 1);
	assert_ok(doca_sync_event_get(se, &v));
	assert_int_equal(v, 1);
	/* conditions that already hold return at once */
	assert_ok(doca_sync_event_wait_eq(se, 1, UINT64_MAX));
	assert_ok(doca_sync_event_wait_eq_yield(se, 1, 0xff));
	assert_ok(doca_sync_event_wait_neq(se, 0, UINT64_MAX));
	assert_ok(doca_sync_event_wait_neq_yield(se, 0, 1));
	assert_ok(doca_sync_event_wait_gt(se, 0, UINT64_MAX));
	assert_ok(doca_sync_event_wait_gt_yield(se, 0, 0xf));
	assert_ok(doca_sync_event_update_set(se, 0x1234ff00));
	assert_ok(doca_sync_event_wait_eq(se, 0xff00, 0xffff));
	assert_ok(doca_sync_event_wait_eq(se, 0, 0)); /* mask 0: (v & 0) == 0 */
	/* conditions that can never hold are refused instead of blocking forever */
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_sync_event_wait_eq(se, 0x100, 0xff));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_sync_event_wait_gt(se, 0xff, 0xff));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_wait_gt_yield(se, UINT64_MAX, UINT64_MAX));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_sync_event_wait_neq(se, 0, 0));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_sync_event_wait_eq(NULL, 0, 0));
	assert_ok(doca_sync_event_destroy(se));
}

struct waiter {
	struct doca_sync_event *se;
	int kind; /* 0 eq, 1 eq_yield, 2 gt, 3 neq_yield */
	uint64_t val, mask;
	doca_error_t r;
	uint64_t cpu_ns, wall_ns;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	uint64_t c0 = now_ns(CLOCK_THREAD_CPUTIME_ID), t0 = now_ns(CLOCK_MONOTONIC);

	switch (w->kind) {
	case 0:
		w->r = doca_sync_event_wait_eq(w->se, w->val, w->mask);
		break;
	case 1:
		w->r = doca_sync_event_wait_eq_yield(w->se, w->val, w->mask);
		break;
	case 2:
		w->r = doca_sync_event_wait_gt(w->se, w->val, w->mask);
		break;
	default:
		w->r = doca_sync_event_wait_neq_yield(w->se, w->val, w->mask);
		break;
	}
	w->cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	w->wall_ns = now_ns(CLOCK_MONOTONIC) - t0;
	return NULL;
}

/* A blocked waiter sleeps (no spinning) and wakes on the update that satisfies it. */
static void test_blocking_waits_sleep(void **state)
{
	struct doca_sync_event *se = started_event();
	struct waiter w[4] = {
		{ se, 0, 5, UINT64_MAX, DOCA_ERROR_UNKNOWN, 0, 0 },
		{ se, 1, 0x500, 0xff00, DOCA_ERROR_UNKNOWN, 0, 0 },
		{ se, 2, 4, 0xff, DOCA_ERROR_UNKNOWN, 0, 0 },
		{ se, 3, 0, 0xffff0000, DOCA_ERROR_UNKNOWN, 0, 0 },
	};
	pthread_t th[4];
	uint64_t f;

	(void)state;
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&th[i], NULL, waiter_main, &w[i]), 0);
	usleep(300 * 1000);
	for (int i = 0; i < 4; i++)
		assert_int_equal(w[i].r, DOCA_ERROR_UNKNOWN); /* all still blocked */
	assert_ok(doca_sync_event_update_set(se, 3));         /* satisfies nobody */
	usleep(50 * 1000);
	assert_int_equal(w[0].r, DOCA_ERROR_UNKNOWN);
	assert_ok(doca_sync_event_update_add(se, 2, &f)); /* 5: eq 5, gt 4 */
	assert_int_equal(pthread_join(th[0], NULL), 0);
	assert_int_equal(pthread_join(th[2], NULL), 0);
	assert_ok(w[0].r);
	assert_ok(w[2].r);
	assert_ok(doca_sync_event_update_set(se, 0x10500)); /* eq (v & 0xff00) == 0x500; neq */
	assert_int_equal(pthread_join(th[1], NULL), 0);
	assert_int_equal(pthread_join(th[3], NULL), 0);
	for (int i = 0; i < 4; i++) {
		assert_ok(w[i].r);
		/*
		 * Each waiter was blocked for at least the 300 ms above (checked: no result yet),
		 * however late its thread started; asleep, not spinning, it used a small fraction
		 * of that on the CPU.
		 */
		if (w[i].cpu_ns > 60 * 1000 * 1000ull)
			fail_msg("waiter %d used %llu ms of CPU in %llu ms", i,
			         (unsigned long long)(w[i].cpu_ns / 1000000),
			         (unsigned long long)(w[i].wall_ns / 1000000));
	}
	assert_ok(doca_sync_event_destroy(se));
}

static void test_set_addr(void **state)
{
	static uint64_t word __attribute__((aligned(8)));
	struct doca_sync_event *se;
	struct waiter w = { NULL, 0, 9, UINT64_MAX, DOCA_ERROR_UNKNOWN, 0, 0 };
	uint64_t v;
	pthread_t th;

	(void)state;
	assert_ok(doca_sync_event_create(&se));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_sync_event_set_addr(se, NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_sync_event_set_addr(NULL, &word));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_set_addr(se, (uint64_t *)((char *)&word + 4)));
	word = 77;
	assert_ok(doca_sync_event_set_addr(se, &word));
	assert_ok(doca_sync_event_start(se));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_sync_event_set_addr(se, &word));
	/* the program's memory is the value: not reset by start, direct writes are seen */
	assert_ok(doca_sync_event_get(se, &v));
	assert_int_equal(v, 77);
	assert_ok(doca_sync_event_update_set(se, 8));
	assert_int_equal(__atomic_load_n(&word, __ATOMIC_SEQ_CST), 8);
	w.se = se;
	assert_int_equal(pthread_create(&th, NULL, waiter_main, &w), 0);
	usleep(20 * 1000);
	__atomic_store_n(&word, 9,
	                 __ATOMIC_SEQ_CST); /* no library call: found by the 1 ms re-check */
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_ok(w.r);
	assert_ok(doca_sync_event_destroy(se));
}

static void test_set_doca_buf(void **state)
{
	static uint64_t words[4] __attribute__((aligned(64)));
	struct doca_dev *dev = tu_open_dev("b1:00.0");
	struct doca_mmap *mm, *weak;
	struct doca_buf_inventory *inv;
	struct doca_buf *b8, *b16, *bmis, *bweak;
	struct doca_sync_event *se;
	uint64_t v;

	(void)state;
	assert_ok(doca_buf_inventory_create(8, &inv));
	assert_ok(doca_buf_inventory_start(inv));
	assert_ok(doca_mmap_create(&mm));
	assert_ok(doca_mmap_set_memrange(mm, words, sizeof(words)));
	assert_ok(doca_mmap_add_dev(mm, dev));
	assert_ok(doca_mmap_set_permissions(
	        mm, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ |
	                    DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC));
	assert_ok(doca_mmap_start(mm));
	assert_ok(doca_mmap_create(&weak));
	assert_ok(doca_mmap_set_memrange(weak, &words[2], 16));
	assert_ok(doca_mmap_add_dev(weak, dev));
	assert_ok(doca_mmap_start(weak));
	assert_ok(doca_buf_inventory_buf_get_by_data(inv, mm, &words[0], 8, &b8));
	assert_ok(doca_buf_inventory_buf_get_by_data(inv, mm, &words[0], 16, &b16));
	assert_ok(doca_buf_inventory_buf_get_by_data(inv, mm, (char *)&words[0] + 4, 8, &bmis));
	assert_ok(doca_buf_inventory_buf_get_by_data(inv, weak, &words[2], 8, &bweak));
	assert_ok(doca_sync_event_create(&se));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_sync_event_set_doca_buf(se, NULL));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_sync_event_set_doca_buf(se, b16));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_sync_event_set_doca_buf(se, bmis));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_sync_event_set_doca_buf(se, bweak));
	words[0] = 5;
	assert_ok(doca_sync_event_set_doca_buf(se, b8));
	assert_ok(doca_sync_event_start(se));
	assert_ok(doca_sync_event_get(se, &v));
	assert_int_equal(v, 5);
	assert_ok(doca_sync_event_update_set(se, 6));
	assert_int_equal(words[0], 6);
	/* program memory cannot be exported */
	{
		const uint8_t *blob;
		size_t sz;

		assert_doca(DOCA_ERROR_NOT_SUPPORTED,
		            doca_sync_event_export_to_remote_pci(se, dev, &blob, &sz));
	}
	assert_ok(doca_sync_event_destroy(se));
	for (struct doca_buf **b = (struct doca_buf *[]){ b8, b16, bmis, bweak, NULL }; *b; b++)
		assert_ok(doca_buf_dec_refcount(*b, NULL));
	assert_ok(doca_mmap_destroy(mm));
	assert_ok(doca_mmap_destroy(weak));
	assert_ok(doca_buf_inventory_destroy(inv));
	assert_ok(doca_dev_close(dev));
}

/*
 * A buf already released to its inventory (refcount 0) is refused like every other use of a
 * released buf (BAD_STATE, one line), not dereferenced: its mmap pointer is gone, and a
 * released buf that kept an 8-byte aligned data segment crashed here.
 */
static void test_set_doca_buf_released(void **state)
{
	static uint64_t word __attribute__((aligned(64)));
	struct doca_dev *dev = tu_open_dev("b1:00.0");
	struct doca_buf_inventory *inv;
	struct doca_sync_event *se;
	struct doca_mmap *mm;
	struct doca_buf *b;

	(void)state;
	assert_ok(doca_buf_inventory_create(1, &inv));
	assert_ok(doca_buf_inventory_start(inv));
	assert_ok(doca_mmap_create(&mm));
	assert_ok(doca_mmap_set_memrange(mm, &word, sizeof(word)));
	assert_ok(doca_mmap_add_dev(mm, dev));
	assert_ok(doca_mmap_set_permissions(
	        mm, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ |
	                    DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC));
	assert_ok(doca_mmap_start(mm));
	assert_ok(doca_buf_inventory_buf_get_by_data(inv, mm, &word, sizeof(word), &b));
	assert_ok(doca_buf_dec_refcount(b, NULL));
	assert_ok(doca_sync_event_create(&se));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_sync_event_set_doca_buf(se, b));
	/* nothing was kept: the event still starts with its own value */
	assert_ok(doca_sync_event_start(se));
	assert_ok(doca_sync_event_update_set(se, 9));
	assert_int_equal(word, 0);
	assert_ok(doca_sync_event_destroy(se));
	assert_ok(doca_mmap_destroy(mm));
	assert_ok(doca_buf_inventory_destroy(inv));
	assert_ok(doca_dev_close(dev));
}

static void test_caps_and_unsupported(void **state)
{
	struct doca_devinfo **list;
	struct doca_sync_event *se = started_event();
	struct doca_sync_event_remote_net *rn = NULL;
	struct doca_dev *dev = tu_open_dev("b1:00.0");
	const uint8_t *blob;
	doca_dpa_dev_sync_event_t dh;
	doca_gpu_dev_sync_event_t *gh;
	doca_dpa_dev_sync_event_remote_net_t rdh;
	doca_gpu_dev_sync_event_remote_net_t rgh;
	uint8_t bytes[8] = { 0 };
	int dummy;
	size_t sz;
	uint32_t n;

	(void)state;
	assert_ok(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n; i++) {
		assert_ok(doca_sync_event_cap_is_export_to_remote_pci_supported(list[i]));
		assert_ok(doca_sync_event_cap_is_create_from_export_supported(list[i]));
		assert_ok(doca_sync_event_cap_task_get_is_supported(list[i]));
		assert_ok(doca_sync_event_cap_task_notify_set_is_supported(list[i]));
		assert_ok(doca_sync_event_cap_task_notify_add_is_supported(list[i]));
		assert_ok(doca_sync_event_cap_task_wait_eq_is_supported(list[i]));
		assert_ok(doca_sync_event_cap_task_wait_neq_is_supported(list[i]));
		/* every built-in device does RDMA: network peers reach events over it */
		assert_ok(doca_sync_event_cap_is_export_to_remote_net_supported(list[i]));
		assert_doca(DOCA_ERROR_NOT_SUPPORTED,
		            doca_sync_event_cap_is_export_to_dpa_supported(list[i]));
		assert_doca(DOCA_ERROR_NOT_SUPPORTED,
		            doca_sync_event_cap_is_export_to_gpu_supported(list[i]));
		assert_ok(doca_sync_event_cap_remote_net_is_create_from_export_supported(list[i]));
		assert_doca(DOCA_ERROR_NOT_SUPPORTED,
		            doca_sync_event_cap_remote_net_is_export_to_dpa_supported(list[i]));
		assert_doca(DOCA_ERROR_NOT_SUPPORTED,
		            doca_sync_event_cap_remote_net_is_export_to_gpu_supported(list[i]));
	}
	assert_ok(doca_devinfo_destroy_list(list));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_cap_is_export_to_remote_pci_supported(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_cap_is_create_from_export_supported(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_sync_event_cap_task_wait_eq_is_supported(NULL));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_sync_event_cap_is_export_to_dpa_supported(NULL));
	assert_ok(doca_sync_event_export_to_remote_net(se, &blob, &sz));
	assert_int_equal(sz, 40);
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_sync_event_export_to_remote_net(se, NULL, &sz));
	/* a handle from the blob, and the blob's checks */
	assert_ok(doca_sync_event_remote_net_create_from_export(dev, blob, sz, &rn));
	assert_ok(doca_sync_event_remote_net_destroy(rn));
	memcpy(bytes, blob, sizeof(bytes));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED,
	            doca_sync_event_get_dpa_handle(se, (struct doca_dpa *)&dummy, &dh));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED,
	            doca_sync_event_get_gpu_handle(se, (struct doca_gpu *)&dummy, &gh));
	assert_doca(DOCA_ERROR_INVALID_VALUE, /* truncated */
	            doca_sync_event_remote_net_create_from_export(dev, bytes, sizeof(bytes), &rn));
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_sync_event_remote_net_destroy(NULL));
	rn = (struct doca_sync_event_remote_net *)&dummy;
	assert_doca(DOCA_ERROR_INVALID_VALUE, doca_sync_event_remote_net_destroy(rn));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED,
	            doca_sync_event_remote_net_get_dpa_handle(rn, (struct doca_dpa *)&dummy, &rdh));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED,
	            doca_sync_event_remote_net_get_gpu_handle(rn, (struct doca_gpu *)&dummy, &rgh));
	assert_ok(doca_sync_event_destroy(se));
	assert_ok(doca_dev_close(dev));
}

/*
 * A remote-net export's bytes belong to the event until it is destroyed, as a remote-PCI
 * export's do. Before the fix the blob pointer was the transport record's own copy: a stop
 * wiped it, and the next event exported to the network reused the record, so the first
 * event's blob then held the second event's id and key (a program sending it gave a peer the
 * wrong event).
 */
static void test_export_remote_net_blob_kept(void **state)
{
	struct doca_sync_event *se1 = started_event(), *se2 = started_event();
	const uint8_t *b1, *b2, *b3;
	uint8_t copy[64];
	size_t sz1, sz2, sz3;

	(void)state;
	assert_ok(doca_sync_event_export_to_remote_net(se1, &b1, &sz1));
	assert_true(sz1 <= sizeof(copy));
	memcpy(copy, b1, sz1);
	assert_ok(doca_sync_event_stop(se1));
	assert_memory_equal(b1, copy, sz1); /* a stop leaves the bytes */
	assert_ok(doca_sync_event_export_to_remote_net(se2, &b2, &sz2));
	assert_memory_equal(b1, copy, sz1); /* another event's export does not change them */
	assert_memory_not_equal(b2, copy, sz2);
	/* started again, the event gets a new export; the old bytes stay */
	assert_ok(doca_sync_event_start(se1));
	assert_ok(doca_sync_event_export_to_remote_net(se1, &b3, &sz3));
	assert_memory_not_equal(b3, copy, sz3);
	assert_memory_equal(b1, copy, sz1);
	assert_ok(doca_sync_event_destroy(se2));
	assert_ok(doca_sync_event_destroy(se1));
}

/* One of the threads exporting the same event at once: through @dev, else to the network. */
struct net_exporter {
	struct doca_sync_event *se;
	struct doca_dev *dev;
	pthread_barrier_t *go;
	const uint8_t *blob;
	size_t sz;
	doca_error_t r;
};

static void *net_export_main(void *arg)
{
	struct net_exporter *x = arg;

	pthread_barrier_wait(x->go);
	if (x->dev != NULL)
		x->r = doca_sync_event_export_to_remote_pci(x->se, x->dev, &x->blob, &x->sz);
	else
		x->r = doca_sync_event_export_to_remote_net(x->se, &x->blob, &x->sz);
	return NULL;
}

/*
 * Threads exporting one event to the network at once all get the same blob: the event is
 * registered once. Before the fix both could register it, and the second region outlived
 * the event's destroy (its revocation finds one), leaving a peer a grant to freed memory.
 */
static void test_export_remote_net_race(void **state)
{
	enum { EXPORTERS = 4 };
	pthread_barrier_t go;

	(void)state;
	assert_int_equal(pthread_barrier_init(&go, NULL, EXPORTERS), 0);
	for (int round = 0; round < 500; round++) {
		struct net_exporter x[EXPORTERS];
		pthread_t th[EXPORTERS];

		x[0] = (struct net_exporter){ .se = started_event(), .go = &go };
		for (int i = 0; i < EXPORTERS; i++) {
			x[i] = x[0];
			assert_int_equal(pthread_create(&th[i], NULL, net_export_main, &x[i]), 0);
		}
		for (int i = 0; i < EXPORTERS; i++) {
			assert_int_equal(pthread_join(th[i], NULL), 0);
			assert_ok(x[i].r);
			assert_int_equal(x[i].sz, x[0].sz);
			assert_memory_equal(x[i].blob, x[0].blob, x[0].sz);
		}
		assert_ok(doca_sync_event_destroy(x[0].se));
	}
	pthread_barrier_destroy(&go);
}

/*
 * Threads exporting one event through a device at once all get the same export (the same
 * bytes; threads that race may each keep a copy), and the destroy ends every one. Before the
 * fix two could push onto the event's list of exports at once (a data race: ThreadSanitizer
 * reports it) and one export was lost: never freed, nor, with a network reach, revoked (its
 * peer kept a grant to the freed value).
 */
static void test_export_remote_pci_race(void **state)
{
	enum { EXPORTERS = 4 };
	struct doca_dev *dev = tu_open_dev("b1:00.0");
	pthread_barrier_t go;

	(void)state;
	assert_int_equal(pthread_barrier_init(&go, NULL, EXPORTERS), 0);
	for (int round = 0; round < 50; round++) {
		struct net_exporter x[EXPORTERS];
		pthread_t th[EXPORTERS];

		x[0] = (struct net_exporter){ .se = started_event(), .dev = dev, .go = &go };
		for (int i = 0; i < EXPORTERS; i++) {
			x[i] = x[0];
			assert_int_equal(pthread_create(&th[i], NULL, net_export_main, &x[i]), 0);
		}
		for (int i = 0; i < EXPORTERS; i++) {
			assert_int_equal(pthread_join(th[i], NULL), 0);
			assert_ok(x[i].r);
			assert_int_equal(x[i].sz, x[0].sz);
			assert_memory_equal(x[i].blob, x[0].blob, x[0].sz);
		}
		assert_ok(doca_sync_event_destroy(x[0].se));
	}
	pthread_barrier_destroy(&go);
	assert_ok(doca_dev_close(dev));
}

/*
 * Exporting an event again through the same device hands out the same bytes, so a program
 * that exports in a loop (once per connecting peer) does not grow. Before the fix each call
 * allocated a new blob kept until the destroy. Another device, or the event started again,
 * gets an export of its own.
 */
static void test_export_remote_pci_repeat_bounded(void **state)
{
	struct doca_dev *host = tu_open_dev("b1:00.0"), *dpu = tu_open_dev("03:00.0");
	struct doca_sync_event *se = started_event();
	const uint8_t *first, *blob;
	size_t sz0, sz;

	(void)state;
	assert_ok(doca_sync_event_export_to_remote_pci(se, host, &first, &sz0));
	for (int i = 0; i < 10000; i++) {
		assert_ok(doca_sync_event_export_to_remote_pci(se, host, &blob, &sz));
		assert_ptr_equal(blob, first);
		assert_int_equal(sz, sz0);
	}
	assert_ok(doca_sync_event_export_to_remote_pci(se, dpu, &blob, &sz));
	assert_ptr_not_equal(blob, first);
	assert_ok(doca_sync_event_stop(se));
	assert_ok(doca_sync_event_start(se));
	assert_ok(doca_sync_event_export_to_remote_pci(se, host, &blob, &sz));
	assert_ptr_not_equal(blob, first);
	assert_true(sz != sz0 || memcmp(blob, first, sz) != 0); /* a new page, a new key */
	assert_ok(doca_sync_event_destroy(se));
	assert_ok(doca_dev_close(dpu));
	assert_ok(doca_dev_close(host));
}

/* --------------------------------------------------------------------------------------- */
/* The context form                                                                          */

struct cbs {
	unsigned int ok[6], err[6];
	doca_error_t last;
	bool free_in_cb;
};

#define CB(tname, idx)                                                                             \
	static void tname##_ok(struct doca_sync_event_task_##tname *t, union doca_data tud,        \
	                       union doca_data cud)                                                \
	{                                                                                          \
		struct cbs *c = cud.ptr;                                                           \
		(void)tud;                                                                         \
		c->ok[idx]++;                                                                      \
		c->last = doca_task_get_status(doca_sync_event_task_##tname##_as_doca_task(t));    \
		if (c->free_in_cb)                                                                 \
			doca_task_free(doca_sync_event_task_##tname##_as_doca_task(t));            \
	}                                                                                          \
	static void tname##_err(struct doca_sync_event_task_##tname *t, union doca_data tud,       \
	                        union doca_data cud)                                               \
	{                                                                                          \
		struct cbs *c = cud.ptr;                                                           \
		(void)tud;                                                                         \
		c->err[idx]++;                                                                     \
		c->last = doca_task_get_status(doca_sync_event_task_##tname##_as_doca_task(t));    \
		if (c->free_in_cb)                                                                 \
			doca_task_free(doca_sync_event_task_##tname##_as_doca_task(t));            \
	}

CB(get, 1)
CB(notify_set, 2)
CB(notify_add, 3)
CB(wait_eq, 4)
CB(wait_neq, 5)

static void conf_all(struct doca_sync_event *se, uint32_t n)
{
	assert_ok(doca_sync_event_task_get_set_conf(se, get_ok, get_err, n));
	assert_ok(doca_sync_event_task_notify_set_set_conf(se, notify_set_ok, notify_set_err, n));
	assert_ok(doca_sync_event_task_notify_add_set_conf(se, notify_add_ok, notify_add_err, n));
	assert_ok(doca_sync_event_task_wait_eq_set_conf(se, wait_eq_ok, wait_eq_err, n));
	assert_ok(doca_sync_event_task_wait_neq_set_conf(se, wait_neq_ok, wait_neq_err, n));
}

static struct doca_sync_event *ctx_event(struct doca_pe *pe, struct cbs *c, uint32_t n)
{
	struct doca_sync_event *se;
	union doca_data ud = { .ptr = c };

	assert_ok(doca_sync_event_create(&se));
	assert_ok(doca_pe_connect_ctx(pe, doca_sync_event_as_ctx(se)));
	assert_ok(doca_ctx_set_user_data(doca_sync_event_as_ctx(se), ud));
	conf_all(se, n);
	assert_ok(doca_ctx_start(doca_sync_event_as_ctx(se)));
	return se;
}

static void test_ctx_conf_rules(void **state)
{
	struct doca_sync_event *se;
	struct doca_pe *pe;
	struct cbs c = { 0 };
	union doca_data ud = { .u64 = 0 };
	struct doca_sync_event_task_get *gt;
	enum doca_ctx_states st;
	uint64_t v;

	(void)state;
	assert_ok(doca_pe_create(&pe));
	assert_ok(doca_sync_event_create(&se));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_task_get_set_conf(NULL, get_ok, get_err, 1));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_task_get_set_conf(se, NULL, get_err, 1));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_task_get_set_conf(se, get_ok, NULL, 1));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_task_get_set_conf(se, get_ok, get_err, 0));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_task_get_set_conf(se, get_ok, get_err, 65537));
	/* start needs a PE, and a task type configured */
	assert_doca(DOCA_ERROR_NOT_CONNECTED, doca_ctx_start(doca_sync_event_as_ctx(se)));
	assert_ok(doca_pe_connect_ctx(pe, doca_sync_event_as_ctx(se)));
	assert_doca(DOCA_ERROR_BAD_CONFIG, doca_ctx_start(doca_sync_event_as_ctx(se)));
	/* connected to a PE: stand-alone start is refused */
	assert_doca(DOCA_ERROR_BAD_STATE, doca_sync_event_start(se));
	assert_ok(doca_sync_event_task_get_set_conf(se, get_ok, get_err, 1));
	assert_ok(
	        doca_ctx_set_user_data(doca_sync_event_as_ctx(se), (union doca_data){ .ptr = &c }));
	assert_ok(doca_ctx_start(doca_sync_event_as_ctx(se))); /* synchronous */
	assert_ok(doca_ctx_get_state(doca_sync_event_as_ctx(se), &st));
	assert_int_equal(st, DOCA_CTX_STATE_RUNNING);
	assert_doca(DOCA_ERROR_NOT_PERMITTED,
	            doca_sync_event_task_get_set_conf(se, get_ok, get_err, 1));
	assert_doca(DOCA_ERROR_NOT_PERMITTED,
	            doca_sync_event_task_wait_eq_set_conf(se, wait_eq_ok, wait_eq_err, 1));
	assert_doca(DOCA_ERROR_BAD_STATE,
	            doca_sync_event_stop(se)); /* a context stops with doca_ctx_stop */
	assert_doca(DOCA_ERROR_BAD_STATE, doca_sync_event_destroy(se));
	/* the data path works in the context form too */
	assert_ok(doca_sync_event_update_set(se, 3));
	assert_ok(doca_sync_event_get(se, &v));
	assert_int_equal(v, 3);
	/* pools: per type; unconfigured types have none */
	assert_ok(doca_sync_event_task_get_alloc_init(se, &v, ud, &gt));
	{
		struct doca_sync_event_task_get *g2;
		struct doca_sync_event_task_notify_set *ns;

		assert_doca(DOCA_ERROR_NO_MEMORY,
		            doca_sync_event_task_get_alloc_init(se, &v, ud, &g2));
		assert_doca(DOCA_ERROR_NO_MEMORY,
		            doca_sync_event_task_notify_set_alloc_init(se, 1, ud, &ns));
		doca_task_free(doca_sync_event_task_get_as_doca_task(gt));
		assert_ok(doca_sync_event_task_get_alloc_init(se, &v, ud, &g2));
		assert_doca(DOCA_ERROR_INVALID_VALUE,
		            doca_sync_event_task_get_alloc_init(NULL, &v, ud, &g2));
		assert_doca(DOCA_ERROR_INVALID_VALUE,
		            doca_sync_event_task_get_alloc_init(se, &v, ud, NULL));
		doca_task_free(doca_sync_event_task_get_as_doca_task(g2));
	}
	assert_ok(doca_ctx_stop(doca_sync_event_as_ctx(se)));
	/* stopped: alloc is refused, the data path too */
	assert_doca(DOCA_ERROR_BAD_STATE, doca_sync_event_task_get_alloc_init(se, &v, ud, &gt));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_sync_event_get(se, &v));
	assert_ok(doca_sync_event_destroy(se));
	/* stand-alone started: no task configuration */
	se = started_event();
	assert_doca(DOCA_ERROR_NOT_PERMITTED,
	            doca_sync_event_task_get_set_conf(se, get_ok, get_err, 1));
	assert_ok(doca_sync_event_destroy(se));
	assert_ok(doca_pe_destroy(pe));
}

static void progress_n(struct doca_pe *pe, int n)
{
	for (int i = 0; i < n; i++)
		(void)doca_pe_progress(pe);
}

static void test_ctx_tasks(void **state)
{
	struct doca_pe *pe;
	struct cbs c = { 0 };
	struct doca_sync_event *se;
	union doca_data ud = { .u64 = 5 };
	struct doca_sync_event_task_get *gt;
	struct doca_sync_event_task_notify_set *ns;
	struct doca_sync_event_task_notify_add *na;
	struct doca_sync_event_task_wait_eq *we;
	struct doca_sync_event_task_wait_neq *wn;
	uint64_t got = 0, fetched = 0, v;
	size_t inflight;

	(void)state;
	assert_ok(doca_pe_create(&pe));
	se = ctx_event(pe, &c, 2);
	/* get */
	assert_ok(doca_sync_event_task_get_alloc_init(se, NULL, ud, &gt));
	assert_null(doca_sync_event_task_get_get_ret_val_ptr(gt));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_task_submit(doca_sync_event_task_get_as_doca_task(gt)));
	doca_sync_event_task_get_set_ret_val_ptr(gt, &got);
	assert_ptr_equal(doca_sync_event_task_get_get_ret_val_ptr(gt), &got);
	assert_ok(doca_sync_event_update_set(se, 11));
	assert_ok(doca_task_submit(doca_sync_event_task_get_as_doca_task(gt)));
	assert_int_equal(c.ok[1], 0); /* callbacks only from progress */
	assert_true(doca_pe_progress(pe));
	assert_int_equal(c.ok[1], 1);
	assert_int_equal(got, 11);
	assert_int_equal(doca_task_get_user_data(doca_sync_event_task_get_as_doca_task(gt)).u64, 5);
	doca_task_free(doca_sync_event_task_get_as_doca_task(gt));
	/* notify_set */
	assert_ok(doca_sync_event_task_notify_set_alloc_init(se, 100, ud, &ns));
	assert_int_equal(doca_sync_event_task_notify_set_get_set_val(ns), 100);
	doca_sync_event_task_notify_set_set_set_val(ns, 200);
	assert_int_equal(doca_sync_event_task_notify_set_get_set_val(ns), 200);
	assert_ok(doca_task_submit(doca_sync_event_task_notify_set_as_doca_task(ns)));
	doca_sync_event_task_notify_set_set_set_val(ns, 300); /* in flight: ignored */
	assert_int_equal(doca_sync_event_task_notify_set_get_set_val(ns), 200);
	assert_true(doca_pe_progress(pe));
	assert_int_equal(c.ok[2], 1);
	assert_ok(doca_sync_event_get(se, &v));
	assert_int_equal(v, 200);
	doca_task_free(doca_sync_event_task_notify_set_as_doca_task(ns));
	/* notify_add */
	assert_ok(doca_sync_event_task_notify_add_alloc_init(se, 5, NULL, ud, &na));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_task_submit(doca_sync_event_task_notify_add_as_doca_task(na)));
	doca_sync_event_task_notify_add_set_fetched_val_ptr(na, &fetched);
	assert_ptr_equal(doca_sync_event_task_notify_add_get_fetched_val_ptr(na), &fetched);
	doca_sync_event_task_notify_add_set_inc_val(na, 7);
	assert_int_equal(doca_sync_event_task_notify_add_get_inc_val(na), 7);
	assert_ok(doca_task_submit(doca_sync_event_task_notify_add_as_doca_task(na)));
	assert_true(doca_pe_progress(pe));
	assert_int_equal(c.ok[3], 1);
	assert_int_equal(fetched, 200);
	assert_ok(doca_sync_event_get(se, &v));
	assert_int_equal(v, 207);
	doca_task_free(doca_sync_event_task_notify_add_as_doca_task(na));
	/* wait_eq: masks, pending until the value matches */
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_task_wait_eq_alloc_init(se, 1, 0xf0, ud, &we));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_task_wait_eq_alloc_init(se, 1, 0xff00ff, ud, &we));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_task_wait_eq_alloc_init(se, 1, 0xffff00, ud, &we));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_task_wait_eq_alloc_init(se, 0x100, 0xff, ud, &we));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_task_wait_eq_alloc_init(se, 0x3, 0xff00, ud, &we));
	assert_ok(doca_sync_event_task_wait_eq_alloc_init(se, 0x300, 0xff00, ud, &we));
	assert_int_equal(doca_sync_event_task_wait_eq_get_wait_val(we), 0x300);
	assert_int_equal(doca_sync_event_task_wait_eq_get_mask(we), 0xff00);
	doca_sync_event_task_wait_eq_set_mask(we, 0xff0);
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_task_submit(doca_sync_event_task_wait_eq_as_doca_task(we)));
	doca_sync_event_task_wait_eq_set_mask(we, 0xffff0000ull);
	doca_sync_event_task_wait_eq_set_wait_val(we, 0x20000);
	assert_ok(doca_task_submit(doca_sync_event_task_wait_eq_as_doca_task(we)));
	progress_n(pe, 5);
	assert_int_equal(c.ok[4], 0);
	assert_int_equal(doca_pe_progress(pe), 0); /* nothing happened: a pending wait is silent */
	assert_ok(doca_ctx_get_num_inflight_tasks(doca_sync_event_as_ctx(se), &inflight));
	assert_int_equal(inflight, 1);
	assert_ok(doca_sync_event_update_set(se, 0x12345)); /* (v & 0xffff0000) = 0x10000 */
	progress_n(pe, 3);
	assert_int_equal(c.ok[4], 0);
	assert_ok(doca_sync_event_update_set(se, 0x2abcd));
	assert_true(doca_pe_progress(pe));
	assert_int_equal(c.ok[4], 1);
	doca_task_free(doca_sync_event_task_wait_eq_as_doca_task(we));
	/* wait_neq: mask 0 never completes, so it is refused */
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_task_wait_neq_alloc_init(se, 0, 0, ud, &wn));
	assert_ok(doca_sync_event_task_wait_neq_alloc_init(se, 0x2abcd, UINT64_MAX, ud, &wn));
	doca_sync_event_task_wait_neq_set_wait_val(wn, 0xcd);
	doca_sync_event_task_wait_neq_set_mask(wn, 0xff);
	assert_int_equal(doca_sync_event_task_wait_neq_get_wait_val(wn), 0xcd);
	assert_int_equal(doca_sync_event_task_wait_neq_get_mask(wn), 0xff);
	assert_ok(doca_task_submit(doca_sync_event_task_wait_neq_as_doca_task(wn)));
	progress_n(pe, 3);
	assert_int_equal(c.ok[5], 0);
	assert_ok(doca_sync_event_update_add(se, 0x100, &fetched)); /* low byte unchanged */
	progress_n(pe, 3);
	assert_int_equal(c.ok[5], 0);
	assert_ok(doca_sync_event_update_add(se, 1, &fetched));
	progress_n(pe, 1);
	assert_int_equal(c.ok[5], 1);
	doca_task_free(doca_sync_event_task_wait_neq_as_doca_task(wn));
	/* accessors on NULL */
	assert_null(doca_sync_event_task_get_as_doca_task(NULL));
	assert_null(doca_sync_event_task_wait_eq_as_doca_task(NULL));
	assert_int_equal(doca_sync_event_task_wait_eq_get_mask(NULL), 0);
	assert_ok(doca_ctx_stop(doca_sync_event_as_ctx(se)));
	assert_ok(doca_sync_event_destroy(se));
	assert_int_equal(c.err[1] + c.err[2] + c.err[3] + c.err[4] + c.err[5], 0);
	assert_ok(doca_pe_destroy(pe));
}

/* Stop flushes pending waits (IO_FAILED), then the context reaches IDLE. */
static void test_ctx_stop_flushes(void **state)
{
	struct doca_pe *pe;
	struct cbs c = { .free_in_cb = true };
	struct doca_sync_event *se;
	union doca_data ud = { .u64 = 0 };
	struct doca_sync_event_task_wait_eq *we[2];
	enum doca_ctx_states st;

	(void)state;
	assert_ok(doca_pe_create(&pe));
	se = ctx_event(pe, &c, 2);
	for (int i = 0; i < 2; i++) {
		assert_ok(doca_sync_event_task_wait_eq_alloc_init(se, 9, UINT64_MAX, ud, &we[i]));
		assert_ok(doca_task_submit(doca_sync_event_task_wait_eq_as_doca_task(we[i])));
	}
	progress_n(pe, 2);
	assert_doca(DOCA_ERROR_IN_PROGRESS, doca_ctx_stop(doca_sync_event_as_ctx(se)));
	assert_ok(doca_ctx_get_state(doca_sync_event_as_ctx(se), &st));
	assert_int_equal(st, DOCA_CTX_STATE_STOPPING);
	assert_doca(DOCA_ERROR_IN_USE, doca_sync_event_destroy(se));
	progress_n(pe, 2);
	assert_int_equal(c.err[4], 2);
	assert_int_equal(c.last, DOCA_ERROR_IO_FAILED);
	assert_ok(doca_ctx_get_state(doca_sync_event_as_ctx(se), &st));
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	/* restart: a fresh value */
	assert_ok(doca_ctx_start(doca_sync_event_as_ctx(se)));
	{
		uint64_t v;

		assert_ok(doca_sync_event_get(se, &v));
		assert_int_equal(v, 0);
	}
	assert_ok(doca_ctx_stop(doca_sync_event_as_ctx(se)));
	assert_ok(doca_sync_event_destroy(se));
	assert_ok(doca_pe_destroy(pe));
}

struct updater {
	struct doca_sync_event *se;
	unsigned int delay_ms;
	uint64_t value;
};

static void *updater_main(void *arg)
{
	struct updater *u = arg;

	usleep(u->delay_ms * 1000);
	assert_ok(doca_sync_event_update_set(u->se, u->value));
	return NULL;
}

/* A PE asleep on its notification handle wakes when another thread's update satisfies a wait. */
static void test_ctx_notification(void **state)
{
	struct doca_pe *pe;
	struct cbs c = { .free_in_cb = true };
	struct doca_sync_event *se;
	union doca_data ud = { .u64 = 0 };
	struct doca_sync_event_task_wait_eq *we;
	doca_notification_handle_t h;
	struct updater u;
	pthread_t th;
	struct pollfd p;
	uint64_t t0;

	(void)state;
	assert_ok(doca_pe_create(&pe));
	se = ctx_event(pe, &c, 1);
	assert_ok(doca_pe_get_notification_handle(pe, &h));
	assert_ok(doca_sync_event_task_wait_eq_alloc_init(se, 42, UINT64_MAX, ud, &we));
	assert_ok(doca_task_submit(doca_sync_event_task_wait_eq_as_doca_task(we)));
	(void)doca_pe_progress(pe);
	assert_ok(doca_pe_request_notification(pe));
	u = (struct updater){ se, 200, 42 };
	t0 = now_ns(CLOCK_MONOTONIC);
	assert_int_equal(pthread_create(&th, NULL, updater_main, &u), 0);
	p = (struct pollfd){ .fd = h, .events = POLLIN };
	assert_int_equal(poll(&p, 1, 5000), 1);
	assert_true(now_ns(CLOCK_MONOTONIC) - t0 >= 150 * 1000 * 1000ull);
	assert_ok(doca_pe_clear_notification(pe, h));
	assert_true(doca_pe_progress(pe));
	assert_int_equal(c.ok[4], 1);
	assert_int_equal(pthread_join(th, NULL), 0);
	/* nothing pending: the handle stays quiet after an update */
	assert_ok(doca_pe_clear_notification(pe, h));
	(void)doca_pe_progress(pe);
	assert_ok(doca_sync_event_update_set(se, 1));
	assert_ok(doca_pe_request_notification(pe));
	assert_int_equal(poll(&p, 1, 50), 0);
	assert_ok(doca_ctx_stop(doca_sync_event_as_ctx(se)));
	assert_ok(doca_sync_event_destroy(se));
	assert_ok(doca_pe_destroy(pe));
}

/* --------------------------------------------------------------------------------------- */
/* Export and import inside one process (the two sides of bf3)                               */

static void test_export_import_rules(void **state)
{
	struct doca_dev *host = tu_open_dev("b1:00.0"), *dpu = tu_open_dev("03:00.0"),
	                *host2 = tu_open_dev("b1:00.1");
	struct doca_sync_event *se, *imp, *imp2;
	const uint8_t *blob, *blob2, *blob3;
	uint8_t bad[1024];
	size_t sz, sz2, sz3;
	uint64_t v, f;

	(void)state;
	assert_ok(doca_sync_event_create(&se));
	assert_ok(doca_sync_event_add_publisher_location_remote_pci(se));
	assert_ok(doca_sync_event_add_subscriber_location_cpu(se, dpu));
	assert_doca(DOCA_ERROR_BAD_STATE,
	            doca_sync_event_export_to_remote_pci(se, dpu, &blob, &sz));
	assert_ok(doca_sync_event_start(se));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_export_to_remote_pci(NULL, dpu, &blob, &sz));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_export_to_remote_pci(se, NULL, &blob, &sz));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_export_to_remote_pci(se, dpu, NULL, &sz));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_export_to_remote_pci(se, dpu, &blob, NULL));
	assert_ok(doca_sync_event_export_to_remote_pci(se, dpu, &blob, &sz));
	assert_true(sz > 0 && sz <= 1024); /* fits NVIDIA's 1024-byte Comch message */
	assert_ok(doca_sync_event_export_to_remote_pci(se, dpu, &blob2, &sz2));
	/* a network export (ODMA_FABRIC set) refuses a transport setting it cannot read */
	setenv("ODMA_FABRIC", "127.0.0.1:1", 1);
	setenv("ODMA_TRANSPORT", "bogus", 1);
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_export_to_remote_pci(se, dpu, &blob3, &sz3));
	unsetenv("ODMA_TRANSPORT");
	unsetenv("ODMA_FABRIC");
	/* import: other side only, intact bytes only */
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_create_from_export(NULL, blob, sz, &imp));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_create_from_export(host, NULL, sz, &imp));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_create_from_export(host, blob, sz, NULL));
	assert_doca(DOCA_ERROR_NOT_SUPPORTED,
	            doca_sync_event_create_from_export(dpu, blob, sz, &imp));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_create_from_export(host, blob, sz - 1, &imp));
	memcpy(bad, blob, sz);
	bad[30] ^= 1;
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_create_from_export(host, bad, sz, &imp));
	assert_ok(doca_sync_event_create_from_export(host, blob, sz, &imp));
	assert_ok(doca_sync_event_create_from_export(host2, blob2, sz2, &imp2));
	/* a handle from an export is not configurable, and must be started */
	assert_doca(DOCA_ERROR_NOT_PERMITTED,
	            doca_sync_event_add_subscriber_location_cpu(imp, host));
	assert_doca(DOCA_ERROR_NOT_PERMITTED,
	            doca_sync_event_add_publisher_location_remote_pci(imp));
	assert_doca(DOCA_ERROR_NOT_PERMITTED, doca_sync_event_set_addr(imp, &v));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_sync_event_get(imp, &v));
	assert_ok(doca_sync_event_start(imp));
	assert_ok(doca_sync_event_start(imp2));
	assert_doca(DOCA_ERROR_NOT_PERMITTED,
	            doca_sync_event_export_to_remote_pci(imp, host, &blob, &sz));
	/* one value, updated from every handle */
	assert_ok(doca_sync_event_update_set(se, 1));
	assert_ok(doca_sync_event_wait_eq(imp, 1, UINT64_MAX));
	assert_ok(doca_sync_event_update_add(imp, 1, &f));
	assert_int_equal(f, 1);
	assert_ok(doca_sync_event_wait_eq_yield(se, 2, UINT64_MAX));
	assert_ok(doca_sync_event_update_add(imp2, 1, &f));
	assert_ok(doca_sync_event_get(se, &v));
	assert_int_equal(v, 3);
	assert_ok(doca_sync_event_get(imp, &v));
	assert_int_equal(v, 3);
	/* the importer stops and restarts without touching the exporter */
	assert_ok(doca_sync_event_stop(imp2));
	assert_ok(doca_sync_event_destroy(imp2));
	assert_ok(doca_sync_event_update_set(se, 4));
	/* the exporter stops: the importer keeps the last value, updates and waits fail */
	assert_ok(doca_sync_event_stop(se));
	assert_ok(doca_sync_event_get(imp, &v));
	assert_int_equal(v, 4);
	assert_doca(DOCA_ERROR_CONNECTION_ABORTED, doca_sync_event_update_set(imp, 5));
	assert_doca(DOCA_ERROR_CONNECTION_ABORTED, doca_sync_event_update_add(imp, 1, &f));
	assert_ok(doca_sync_event_wait_eq(imp, 4, UINT64_MAX)); /* holds already */
	assert_doca(DOCA_ERROR_CONNECTION_ABORTED, doca_sync_event_wait_eq(imp, 5, UINT64_MAX));
	/* and a stale export is refused */
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_create_from_export(host, blob2, sz2, &imp2));
	assert_ok(doca_sync_event_stop(imp));
	assert_ok(doca_sync_event_destroy(imp));
	assert_ok(doca_sync_event_destroy(se));
	assert_ok(doca_dev_close(host));
	assert_ok(doca_dev_close(host2));
	assert_ok(doca_dev_close(dpu));
}

/*
 * A closed device handle is refused at once by export and import (DOCA_ERROR_INVALID_VALUE):
 * an export does not go out through it, and an import through a closed handle of the
 * exporter's own side is refused as closed, before any rule about sides.
 */
static void test_export_import_closed_dev(void **state)
{
	struct doca_dev *host = tu_open_dev("b1:00.0"), *gone = tu_open_dev("b1:00.1");
	struct doca_sync_event *se, *imp = NULL;
	const uint8_t *blob;
	size_t sz;

	(void)state;
	assert_ok(doca_dev_close(gone));
	assert_ok(doca_sync_event_create(&se));
	assert_ok(doca_sync_event_add_publisher_location_remote_pci(se));
	assert_ok(doca_sync_event_add_subscriber_location_cpu(se, host));
	assert_ok(doca_sync_event_start(se));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_export_to_remote_pci(se, gone, &blob, &sz));
	assert_ok(doca_sync_event_export_to_remote_pci(se, host, &blob, &sz));
	assert_doca(DOCA_ERROR_INVALID_VALUE,
	            doca_sync_event_create_from_export(gone, blob, sz, &imp));
	assert_null(imp);
	assert_ok(doca_sync_event_stop(se));
	assert_ok(doca_sync_event_destroy(se));
	assert_ok(doca_dev_close(host));
}

/* The exporter's ctx waits on a task; an importer's update in another thread wakes its PE. */
static void test_export_ctx_wait(void **state)
{
	struct doca_dev *host = tu_open_dev("b1:00.0"), *dpu = tu_open_dev("03:00.0");
	struct doca_pe *pe;
	struct cbs c = { .free_in_cb = true };
	struct doca_sync_event *se, *imp;
	union doca_data ud = { .u64 = 0 };
	struct doca_sync_event_task_wait_eq *we;
	doca_notification_handle_t h;
	const uint8_t *blob;
	struct updater u;
	struct pollfd p;
	pthread_t th;
	size_t sz;

	(void)state;
	assert_ok(doca_pe_create(&pe));
	se = ctx_event(pe, &c, 1);
	assert_ok(doca_sync_event_export_to_remote_pci(se, host, &blob, &sz));
	assert_ok(doca_sync_event_create_from_export(dpu, blob, sz, &imp));
	assert_ok(doca_sync_event_start(imp));
	assert_ok(doca_sync_event_task_wait_eq_alloc_init(se, 2, UINT64_MAX, ud, &we));
	assert_ok(doca_task_submit(doca_sync_event_task_wait_eq_as_doca_task(we)));
	assert_ok(doca_pe_get_notification_handle(pe, &h));
	(void)doca_pe_progress(pe);
	assert_ok(doca_pe_request_notification(pe));
	u = (struct updater){ imp, 100, 2 };
	assert_int_equal(pthread_create(&th, NULL, updater_main, &u), 0);
	p = (struct pollfd){ .fd = h, .events = POLLIN };
	assert_int_equal(poll(&p, 1, 5000), 1);
	assert_ok(doca_pe_clear_notification(pe, h));
	assert_true(doca_pe_progress(pe));
	assert_int_equal(c.ok[4], 1);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_ok(doca_ctx_stop(doca_sync_event_as_ctx(se)));
	assert_ok(doca_sync_event_stop(imp));
	assert_ok(doca_sync_event_destroy(imp));
	assert_ok(doca_sync_event_destroy(se));
	assert_ok(doca_pe_destroy(pe));
	assert_ok(doca_dev_close(host));
	assert_ok(doca_dev_close(dpu));
}

/* An event started stand-alone (doca_sync_event_start) does not also start as a context. */
static void test_started_is_no_ctx(void **state)
{
	struct doca_sync_event *se;
	struct doca_sync_event_task_get *t;
	struct doca_pe *pe;
	uint64_t v;

	(void)state;
	assert_ok(doca_pe_create(&pe));
	assert_ok(doca_sync_event_create(&se));
	assert_ok(doca_sync_event_task_get_set_conf(se, get_ok, get_err, 1));
	assert_ok(doca_sync_event_start(se));
	assert_ok(doca_pe_connect_ctx(pe, doca_sync_event_as_ctx(se)));
	assert_doca(DOCA_ERROR_BAD_STATE, doca_ctx_start(doca_sync_event_as_ctx(se)));
	assert_doca(DOCA_ERROR_BAD_STATE,
	            doca_sync_event_task_get_alloc_init(se, &v, (union doca_data){ 0 }, &t));
	/* a setter of no task is logged and ignored */
	doca_sync_event_task_get_set_ret_val_ptr(NULL, &v);
	doca_sync_event_task_wait_eq_set_mask(NULL, 1);
	assert_ok(doca_sync_event_stop(se));
	assert_ok(doca_sync_event_destroy(se));
	assert_ok(doca_pe_destroy(pe));
}

/* ---- devices of another profile ------------------------------------------------------- */

static const char *g_self;
static char g_log[8192];

static void log_line(char *line)
{
	strncat(g_log, line, sizeof(g_log) - strlen(g_log) - 1);
}

/* In the child: whether @call returned @code and a line holding @why was logged. */
#define REFUSED(code, why, call) ((call) == (code) && strstr(g_log, (why)) != NULL)

/*
 * The child of test_other_profile, run with ODMA_SYSTEM=tests/data/profiles/good.profile
 * (03:00.1 neither exports nor imports across PCIe, host 5e:00.0 has no RDMA); @hex is an
 * export of the parent's bf3 system. 0 when every refusal came with its code and its line, else
 * the number of the step that did not.
 */
static int other_profile_child(const char *hex)
{
	static char buf[1024];
	struct doca_log_backend *be;
	struct doca_dev *host, *dpu, *sf;
	struct doca_sync_event *se, *se2, *imp;
	struct doca_sync_event_remote_net *rn;
	const uint8_t *blob;
	uint8_t bf3[1024];
	size_t n = strlen(hex) / 2, sz;
	unsigned int byte;

	if (n > sizeof(bf3) ||
	    doca_log_backend_create_with_buf_sdk(buf, sizeof(buf), log_line, &be) ||
	    tu_try_open_dev("5e:00.0", &host) || tu_try_open_dev("03:00.0", &dpu) ||
	    tu_try_open_dev("03:00.1", &sf))
		return 1;
	for (size_t i = 0; i < n; i++) {
		if (sscanf(hex + 2 * i, "%2x", &byte) != 1)
			return 1;
		bf3[i] = (uint8_t)byte;
	}
	if (!REFUSED(DOCA_ERROR_NOT_SUPPORTED, "comes from another system profile",
	             doca_sync_event_create_from_export(host, bf3, n, &imp)))
		return 2;
	/* 03:00.1 cannot export across PCIe */
	if (doca_sync_event_create(&se) || doca_sync_event_add_publisher_location_remote_pci(se) ||
	    doca_sync_event_add_subscriber_location_cpu(se, sf) || doca_sync_event_start(se))
		return 3;
	if (!REFUSED(DOCA_ERROR_NOT_SUPPORTED, "cannot export across PCIe",
	             doca_sync_event_export_to_remote_pci(se, sf, &blob, &sz)))
		return 4;
	/* the host exports; 03:00.1, on the other side, cannot create an event from it */
	if (doca_sync_event_create(&se2) ||
	    doca_sync_event_add_publisher_location_remote_pci(se2) ||
	    doca_sync_event_add_subscriber_location_cpu(se2, host) || doca_sync_event_start(se2) ||
	    doca_sync_event_export_to_remote_pci(se2, host, &blob, &sz))
		return 5;
	if (!REFUSED(DOCA_ERROR_NOT_SUPPORTED, "cannot create a sync event from an export",
	             doca_sync_event_create_from_export(sf, blob, sz, &imp)))
		return 6;
	/* a device without RDMA reaches no event over the network */
	if (!REFUSED(DOCA_ERROR_NOT_SUPPORTED, "has no RDMA",
	             doca_sync_event_remote_net_create_from_export(host, bf3, n, &rn)))
		return 7;
	if (doca_sync_event_destroy(se) || doca_sync_event_destroy(se2) || doca_dev_close(host) ||
	    doca_dev_close(dpu) || doca_dev_close(sf))
		return 8;
	return 0;
}

static void test_other_profile(void **state)
{
	struct doca_dev *dpu = tu_open_dev("03:00.0");
	struct doca_sync_event *se;
	const uint8_t *blob;
	char hex[2 * 1024 + 1], profile[4096];
	const char *root = getenv("ODMA_TEST_SOURCE_ROOT");
	size_t sz;
	int st = -1;
	pid_t pid;

	(void)state;
	assert_ok(doca_sync_event_create(&se));
	assert_ok(doca_sync_event_add_publisher_location_remote_pci(se));
	assert_ok(doca_sync_event_add_subscriber_location_cpu(se, dpu));
	assert_ok(doca_sync_event_start(se));
	assert_ok(doca_sync_event_export_to_remote_pci(se, dpu, &blob, &sz));
	assert_true(sz <= 1024);
	for (size_t i = 0; i < sz; i++)
		snprintf(hex + 2 * i, 3, "%02x", blob[i]);
	snprintf(profile, sizeof(profile), "%s/tests/data/profiles/good.profile",
	         root != NULL ? root : ".");
	pid = fork();
	if (pid == 0) {
		setenv("ODMA_SYSTEM", profile, 1);
		(void)tu_execv(g_self,
		               (char *const[]){ (char *)g_self, "--other-profile", hex, NULL });
		_exit(127);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0); /* else: the step that failed */
	assert_ok(doca_sync_event_destroy(se));
	assert_ok(doca_dev_close(dpu));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_destroy_rules),
		cmocka_unit_test(test_locations),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_blocking_waits_sleep),
		cmocka_unit_test(test_set_addr),
		cmocka_unit_test(test_set_doca_buf),
		cmocka_unit_test(test_set_doca_buf_released),
		cmocka_unit_test(test_caps_and_unsupported),
		cmocka_unit_test(test_export_remote_net_race),
		cmocka_unit_test(test_export_remote_net_blob_kept),
		cmocka_unit_test(test_export_remote_pci_race),
		cmocka_unit_test(test_export_remote_pci_repeat_bounded),
		cmocka_unit_test(test_ctx_conf_rules),
		cmocka_unit_test(test_ctx_tasks),
		cmocka_unit_test(test_ctx_stop_flushes),
		cmocka_unit_test(test_ctx_notification),
		cmocka_unit_test(test_export_import_rules),
		cmocka_unit_test(test_export_import_closed_dev),
		cmocka_unit_test(test_export_ctx_wait),
		cmocka_unit_test(test_started_is_no_ctx),
		cmocka_unit_test(test_other_profile),
	};

	g_self = argv[0];
	if (argc == 3 && strcmp(argv[1], "--other-profile") == 0)
		return other_profile_child(argv[2]);

	return cmocka_run_group_tests(tests, NULL, NULL);
}
