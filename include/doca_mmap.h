/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/**
 * @file doca_mmap.h
 * @brief Memory maps. (Declarations; documentation being written.)
 */
#ifndef DOCA_MMAP_H_
#define DOCA_MMAP_H_

#include <stddef.h>
#include <stdint.h>
#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_mmap;
struct doca_dev;
struct doca_devinfo;

typedef void(doca_mmap_memrange_free_cb_t)(void *addr, size_t len, void *cookie);

DOCA_STABLE doca_error_t doca_mmap_create(struct doca_mmap **mmap);
DOCA_STABLE doca_error_t doca_mmap_destroy(struct doca_mmap *mmap);
DOCA_STABLE doca_error_t doca_mmap_start(struct doca_mmap *mmap);
DOCA_STABLE doca_error_t doca_mmap_stop(struct doca_mmap *mmap);
DOCA_STABLE doca_error_t doca_mmap_add_dev(struct doca_mmap *mmap, struct doca_dev *dev);
DOCA_STABLE doca_error_t doca_mmap_set_memrange(struct doca_mmap *mmap, void *addr, size_t len);
DOCA_STABLE doca_error_t doca_mmap_set_permissions(struct doca_mmap *mmap, uint32_t access_mask);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_MMAP_H_ */
