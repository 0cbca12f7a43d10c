/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * An outside program, built only with `cc consumer.c $(pkg-config --cflags --libs doca-common)`
 * against an installed odma: it maps a buffer, takes a destination-style and a source-style
 * doca_buf from an inventory, checks what they describe, and tears everything down in the
 * order DOCA programs use (bufs, inventory, mmap).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_error.h>
#include <doca_mmap.h>

#define REGION_LEN 4096

static int check(doca_error_t err, const char *what)
{
	if (err == DOCA_SUCCESS)
		return 0;
	fprintf(stderr, "consumer: %s failed: %s\n", what, doca_error_get_name(err));
	return 1;
}

static int check_buf(struct doca_buf *buf, void *want_data, size_t want_len, const char *name)
{
	void *data = NULL;
	size_t len = (size_t)-1;

	if (check(doca_buf_get_data(buf, &data), "doca_buf_get_data") ||
	    check(doca_buf_get_data_len(buf, &len), "doca_buf_get_data_len"))
		return 1;
	if (data != want_data || len != want_len) {
		fprintf(stderr, "consumer: %s buf has data %p len %zu, expected %p len %zu\n", name,
		        data, len, want_data, want_len);
		return 1;
	}
	return 0;
}

static int use_bufs(struct doca_buf_inventory *inv, struct doca_mmap *mmap, char *region)
{
	struct doca_buf *dst = NULL, *src = NULL;
	int rc = 0;

	if (check(doca_buf_inventory_buf_get_by_addr(inv, mmap, region, REGION_LEN / 2, &dst),
	          "doca_buf_inventory_buf_get_by_addr"))
		return 1;
	if (check(doca_buf_inventory_buf_get_by_data(inv, mmap, region + REGION_LEN / 2,
	                                             REGION_LEN / 2, &src),
	          "doca_buf_inventory_buf_get_by_data")) {
		doca_buf_dec_refcount(dst, NULL);
		return 1;
	}
	rc |= check_buf(dst, region, 0, "destination (get_by_addr)");
	rc |= check_buf(src, region + REGION_LEN / 2, REGION_LEN / 2, "source (get_by_data)");
	rc |= check(doca_buf_dec_refcount(src, NULL), "doca_buf_dec_refcount(src)");
	rc |= check(doca_buf_dec_refcount(dst, NULL), "doca_buf_dec_refcount(dst)");
	return rc;
}

int main(void)
{
	static char region[REGION_LEN];
	struct doca_mmap *mmap = NULL;
	struct doca_buf_inventory *inv = NULL;
	int rc = 1;

	memset(region, 0x5a, sizeof(region));
	if (check(doca_mmap_create(&mmap), "doca_mmap_create"))
		return 1;
	if (check(doca_mmap_set_memrange(mmap, region, sizeof(region)), "doca_mmap_set_memrange") ||
	    check(doca_mmap_start(mmap), "doca_mmap_start"))
		goto out_mmap;
	if (check(doca_buf_inventory_create(4, &inv), "doca_buf_inventory_create"))
		goto out_mmap;
	if (check(doca_buf_inventory_start(inv), "doca_buf_inventory_start"))
		goto out_inv;
	rc = use_bufs(inv, mmap, region);
	rc |= check(doca_buf_inventory_stop(inv), "doca_buf_inventory_stop");
out_inv:
	rc |= check(doca_buf_inventory_destroy(inv), "doca_buf_inventory_destroy");
out_mmap:
	rc |= check(doca_mmap_stop(mmap), "doca_mmap_stop");
	rc |= check(doca_mmap_destroy(mmap), "doca_mmap_destroy");
	if (rc == 0)
		printf("consumer: mmap, inventory and two bufs created, checked and released\n");
	return rc;
}
