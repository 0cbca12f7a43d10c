/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */

/**
 * @file doca_comch_msgq.h
 * @brief DOCA Comch message queues: a transport for producers and consumers that run on the
 *        DPA. The emulated devices have no DPA, so every function here logs one line and
 *        returns DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for a NULL argument);
 *        nothing is created.
 */
#ifndef DOCA_COMCH_MSGQ_H_
#define DOCA_COMCH_MSGQ_H_

#include <stddef.h>
#include <stdint.h>
#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_dev;
struct doca_dpa;
struct doca_comch_consumer;
struct doca_comch_producer;

/** A DPA message queue. */
struct doca_comch_msgq;

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_msgq_create(struct doca_dev *dev, struct doca_comch_msgq **msgq);

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_msgq_destroy(struct doca_comch_msgq *msgq);

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_msgq_set_dpa_consumer(struct doca_comch_msgq *msgq, struct doca_dpa *dpa);

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_msgq_set_max_num_consumers(struct doca_comch_msgq *msgq,
                                                   uint32_t max_num_consumers);

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_msgq_set_dpa_producer(struct doca_comch_msgq *msgq, struct doca_dpa *dpa);

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_msgq_set_max_num_producers(struct doca_comch_msgq *msgq,
                                                   uint32_t max_num_producers);

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_msgq_start(struct doca_comch_msgq *msgq);

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_msgq_stop(struct doca_comch_msgq *msgq);

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_msgq_consumer_create(struct doca_comch_msgq *msgq,
                                             struct doca_comch_consumer **consumer);

/** @brief DPA only. @return DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE (NULL). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_msgq_producer_create(struct doca_comch_msgq *msgq,
                                             struct doca_comch_producer **producer);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_MSGQ_H_ */
