/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The DPA and GPU parts of Comch (consumer completion contexts, DPA/GPU handles, message
 * queues). The emulated devices have neither a DPA nor a GPU: every call logs one line and
 * returns DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for a NULL object).
 */
#include <doca_comch_msgq.h>

#include "comch/comch.h"
#include "core/log/log.h"

ODMA_LOG_REGISTER(DOCA_COMCH_DPA)

static doca_error_t comch_no_dpa(const void *obj, const char *func)
{
	if (obj == NULL) {
		ODMA_ERR("%s: NULL argument", func);
		return DOCA_ERROR_INVALID_VALUE;
	}
	ODMA_ERR("%s: the emulated devices have no DPA or GPU; use the CPU consumer/producer API",
	         func);
	return DOCA_ERROR_NOT_SUPPORTED;
}

#define NO_DPA(obj) return comch_no_dpa((obj), __func__)

doca_error_t
doca_comch_consumer_completion_create(struct doca_comch_consumer_completion **consumer_comp)
{
	NO_DPA(consumer_comp);
}

doca_error_t
doca_comch_consumer_completion_set_dpa_thread(struct doca_comch_consumer_completion *consumer_comp,
                                              struct doca_dpa_thread *dpa_thread)
{
	(void)dpa_thread;
	NO_DPA(consumer_comp);
}

doca_error_t
doca_comch_consumer_completion_destroy(struct doca_comch_consumer_completion *consumer_comp)
{
	NO_DPA(consumer_comp);
}

doca_error_t
doca_comch_consumer_completion_start(struct doca_comch_consumer_completion *consumer_comp)
{
	NO_DPA(consumer_comp);
}

doca_error_t
doca_comch_consumer_completion_stop(struct doca_comch_consumer_completion *consumer_comp)
{
	NO_DPA(consumer_comp);
}

doca_error_t doca_comch_consumer_completion_get_dpa_handle(
        struct doca_comch_consumer_completion *consumer_comp,
        doca_dpa_dev_comch_consumer_completion_t *consumer_comp_handle)
{
	(void)consumer_comp_handle;
	NO_DPA(consumer_comp);
}

doca_error_t doca_comch_consumer_completion_set_max_num_consumers(
        struct doca_comch_consumer_completion *consumer_comp, uint32_t max_num_consumers)
{
	(void)max_num_consumers;
	NO_DPA(consumer_comp);
}

doca_error_t doca_comch_consumer_completion_get_max_num_consumers(
        const struct doca_comch_consumer_completion *consumer_comp, uint32_t *max_num_consumers)
{
	(void)max_num_consumers;
	NO_DPA(consumer_comp);
}

doca_error_t doca_comch_consumer_completion_set_max_num_recv(
        struct doca_comch_consumer_completion *consumer_comp, uint32_t max_num_recv)
{
	(void)max_num_recv;
	NO_DPA(consumer_comp);
}

doca_error_t doca_comch_consumer_completion_get_max_num_recv(
        const struct doca_comch_consumer_completion *consumer_comp, uint32_t *max_num_recv)
{
	(void)max_num_recv;
	NO_DPA(consumer_comp);
}

doca_error_t doca_comch_consumer_completion_set_imm_data_len(
        struct doca_comch_consumer_completion *consumer_comp, uint32_t imm_data_len)
{
	(void)imm_data_len;
	NO_DPA(consumer_comp);
}

doca_error_t doca_comch_consumer_completion_get_imm_data_len(
        const struct doca_comch_consumer_completion *consumer_comp, uint32_t *imm_data_len)
{
	(void)imm_data_len;
	NO_DPA(consumer_comp);
}

doca_error_t doca_comch_consumer_set_dev_max_num_recv(struct doca_comch_consumer *consumer,
                                                      uint32_t dev_num_recv)
{
	(void)dev_num_recv;
	NO_DPA(consumer);
}

doca_error_t
doca_comch_consumer_set_completion(struct doca_comch_consumer *consumer,
                                   struct doca_comch_consumer_completion *consumer_comp,
                                   uint32_t user_data)
{
	(void)consumer_comp;
	(void)user_data;
	NO_DPA(consumer);
}

doca_error_t doca_comch_consumer_get_dpa_handle(struct doca_comch_consumer *consumer,
                                                doca_dpa_dev_comch_consumer_t *dpa_consumer)
{
	(void)dpa_consumer;
	NO_DPA(consumer);
}

doca_error_t doca_comch_consumer_get_gpu_handle(struct doca_comch_consumer *consumer,
                                                struct doca_comch_gpu_consumer **gpu_consumer)
{
	(void)gpu_consumer;
	NO_DPA(consumer);
}

doca_error_t doca_comch_producer_set_dev_max_num_send(struct doca_comch_producer *producer,
                                                      uint32_t dev_num_send)
{
	(void)dev_num_send;
	NO_DPA(producer);
}

doca_error_t doca_comch_producer_dpa_completion_attach(struct doca_comch_producer *producer,
                                                       struct doca_dpa_completion *dpa_comp)
{
	(void)dpa_comp;
	NO_DPA(producer);
}

doca_error_t doca_comch_producer_get_dpa_handle(struct doca_comch_producer *producer,
                                                doca_dpa_dev_comch_producer_t *dpa_producer)
{
	(void)dpa_producer;
	NO_DPA(producer);
}

doca_error_t doca_comch_producer_get_gpu_handle(struct doca_comch_producer *producer,
                                                struct doca_comch_gpu_producer **gpu_producer)
{
	(void)gpu_producer;
	NO_DPA(producer);
}

doca_error_t doca_comch_msgq_create(struct doca_dev *dev, struct doca_comch_msgq **msgq)
{
	if (msgq == NULL)
		NO_DPA(NULL);
	NO_DPA(dev);
}

doca_error_t doca_comch_msgq_destroy(struct doca_comch_msgq *msgq)
{
	NO_DPA(msgq);
}

doca_error_t doca_comch_msgq_set_dpa_consumer(struct doca_comch_msgq *msgq, struct doca_dpa *dpa)
{
	(void)dpa;
	NO_DPA(msgq);
}

doca_error_t doca_comch_msgq_set_max_num_consumers(struct doca_comch_msgq *msgq,
                                                   uint32_t max_num_consumers)
{
	(void)max_num_consumers;
	NO_DPA(msgq);
}

doca_error_t doca_comch_msgq_set_dpa_producer(struct doca_comch_msgq *msgq, struct doca_dpa *dpa)
{
	(void)dpa;
	NO_DPA(msgq);
}

doca_error_t doca_comch_msgq_set_max_num_producers(struct doca_comch_msgq *msgq,
                                                   uint32_t max_num_producers)
{
	(void)max_num_producers;
	NO_DPA(msgq);
}

doca_error_t doca_comch_msgq_start(struct doca_comch_msgq *msgq)
{
	NO_DPA(msgq);
}

doca_error_t doca_comch_msgq_stop(struct doca_comch_msgq *msgq)
{
	NO_DPA(msgq);
}

doca_error_t doca_comch_msgq_consumer_create(struct doca_comch_msgq *msgq,
                                             struct doca_comch_consumer **consumer)
{
	(void)consumer;
	NO_DPA(msgq);
}

doca_error_t doca_comch_msgq_producer_create(struct doca_comch_msgq *msgq,
                                             struct doca_comch_producer **producer)
{
	(void)producer;
	NO_DPA(msgq);
}
