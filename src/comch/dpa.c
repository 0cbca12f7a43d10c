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

/* Defines the stub @fn(@t obj), or @fn(@t obj, @u arg): what comch_no_dpa says of obj. */
#define DPA_STUB(fn, t)                                                                            \
	doca_error_t fn(t obj)                                                                     \
	{                                                                                          \
		NO_DPA(obj);                                                                       \
	}
#define DPA_STUB_ARG(fn, t, u)                                                                     \
	doca_error_t fn(t obj, u arg)                                                              \
	{                                                                                          \
		(void)arg;                                                                         \
		NO_DPA(obj);                                                                       \
	}

DPA_STUB(doca_comch_consumer_completion_create, struct doca_comch_consumer_completion **)
DPA_STUB_ARG(doca_comch_consumer_completion_set_dpa_thread, struct doca_comch_consumer_completion *,
             struct doca_dpa_thread *)
DPA_STUB(doca_comch_consumer_completion_destroy, struct doca_comch_consumer_completion *)
DPA_STUB(doca_comch_consumer_completion_start, struct doca_comch_consumer_completion *)
DPA_STUB(doca_comch_consumer_completion_stop, struct doca_comch_consumer_completion *)
DPA_STUB_ARG(doca_comch_consumer_completion_get_dpa_handle, struct doca_comch_consumer_completion *,
             doca_dpa_dev_comch_consumer_completion_t *)
DPA_STUB_ARG(doca_comch_consumer_completion_set_max_num_consumers,
             struct doca_comch_consumer_completion *, uint32_t)
DPA_STUB_ARG(doca_comch_consumer_completion_get_max_num_consumers,
             const struct doca_comch_consumer_completion *, uint32_t *)
DPA_STUB_ARG(doca_comch_consumer_completion_set_max_num_recv,
             struct doca_comch_consumer_completion *, uint32_t)
DPA_STUB_ARG(doca_comch_consumer_completion_get_max_num_recv,
             const struct doca_comch_consumer_completion *, uint32_t *)
DPA_STUB_ARG(doca_comch_consumer_completion_set_imm_data_len,
             struct doca_comch_consumer_completion *, uint32_t)
DPA_STUB_ARG(doca_comch_consumer_completion_get_imm_data_len,
             const struct doca_comch_consumer_completion *, uint32_t *)
DPA_STUB_ARG(doca_comch_consumer_set_dev_max_num_recv, struct doca_comch_consumer *, uint32_t)

doca_error_t
doca_comch_consumer_set_completion(struct doca_comch_consumer *consumer,
                                   struct doca_comch_consumer_completion *consumer_comp,
                                   uint32_t user_data)
{
	(void)consumer_comp;
	(void)user_data;
	NO_DPA(consumer);
}

DPA_STUB_ARG(doca_comch_consumer_get_dpa_handle, struct doca_comch_consumer *,
             doca_dpa_dev_comch_consumer_t *)
DPA_STUB_ARG(doca_comch_consumer_get_gpu_handle, struct doca_comch_consumer *,
             struct doca_comch_gpu_consumer **)
DPA_STUB_ARG(doca_comch_producer_set_dev_max_num_send, struct doca_comch_producer *, uint32_t)
DPA_STUB_ARG(doca_comch_producer_dpa_completion_attach, struct doca_comch_producer *,
             struct doca_dpa_completion *)
DPA_STUB_ARG(doca_comch_producer_get_dpa_handle, struct doca_comch_producer *,
             doca_dpa_dev_comch_producer_t *)
DPA_STUB_ARG(doca_comch_producer_get_gpu_handle, struct doca_comch_producer *,
             struct doca_comch_gpu_producer **)

doca_error_t doca_comch_msgq_create(struct doca_dev *dev, struct doca_comch_msgq **msgq)
{
	if (msgq == NULL)
		NO_DPA(NULL);
	NO_DPA(dev);
}

DPA_STUB(doca_comch_msgq_destroy, struct doca_comch_msgq *)
DPA_STUB_ARG(doca_comch_msgq_set_dpa_consumer, struct doca_comch_msgq *, struct doca_dpa *)
DPA_STUB_ARG(doca_comch_msgq_set_max_num_consumers, struct doca_comch_msgq *, uint32_t)
DPA_STUB_ARG(doca_comch_msgq_set_dpa_producer, struct doca_comch_msgq *, struct doca_dpa *)
DPA_STUB_ARG(doca_comch_msgq_set_max_num_producers, struct doca_comch_msgq *, uint32_t)
DPA_STUB(doca_comch_msgq_start, struct doca_comch_msgq *)
DPA_STUB(doca_comch_msgq_stop, struct doca_comch_msgq *)
DPA_STUB_ARG(doca_comch_msgq_consumer_create, struct doca_comch_msgq *,
             struct doca_comch_consumer **)
DPA_STUB_ARG(doca_comch_msgq_producer_create, struct doca_comch_msgq *,
             struct doca_comch_producer **)
