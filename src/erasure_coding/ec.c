/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The erasure coding context: creation, capabilities, task configuration and the pool
 * shares of its four task types. The core owns the state machine and the pool; a task is
 * checked and run by the submit op (ec_run.c) and completes through the PE.
 */
#include <stdlib.h>

#include <doca_erasure_coding.h>

#include "core/device/device.h"
#include "core/log/log.h"
#include "erasure_coding/ec.h"

ODMA_LOG_REGISTER(DOCA_ERASURE_CODING)

const char *const odma_ec_type_names[EC_T_COUNT] = {
	[EC_T_CREATE] = "create",
	[EC_T_RECOVER] = "recover",
	[EC_T_UPDATE] = "update",
	[EC_T_GALOIS_MUL] = "galois_mul",
};

static const struct odma_ctx_ops ec_ctx_ops = {
	.name = "EC",
	.task_size = sizeof(struct ec_task),
	.complete = doca_priv_task_conf_complete,
	.submit = odma_ec_submit,
};

/* The device of @dev, or NULL with one line naming @fn when it has no erasure coding. */
static const struct doca_devinfo *ec_dev_info(struct doca_dev *dev, const char *fn, doca_error_t *r)
{
	const struct doca_devinfo *info = doca_priv_dev_lookup(dev);

	*r = DOCA_ERROR_INVALID_VALUE;
	if (info == NULL) {
		ODMA_ERR_AT(fn, "dev %p is not a device handle from doca_dev_open", (void *)dev);
		return NULL;
	}
	if (!info->caps.ec) {
		ODMA_ERR_AT(fn,
		            "device %s has no erasure coding (ec=no in the system profile; NVIDIA "
		            "documents it for BlueField-3); pick a device for which "
		            "doca_ec_cap_task_create_is_supported succeeds",
		            info->pci_addr);
		*r = DOCA_ERROR_NOT_SUPPORTED;
		return NULL;
	}
	*r = DOCA_SUCCESS;
	return info;
}

doca_error_t doca_ec_create(struct doca_dev *dev, struct doca_ec **ec)
{
	struct doca_ctx *ctx;
	doca_error_t r;

	ODMA_CHECK_ARG(dev != NULL && ec != NULL, "dev and ec must not be NULL");
	if (ec_dev_info(dev, __func__, &r) == NULL)
		return r;
	r = doca_priv_ctx_new(sizeof(struct doca_ec), &ec_ctx_ops, dev, &ctx);
	if (r != DOCA_SUCCESS)
		return r;
	ctx->queue_depth = UINT32_MAX; /* the pool bounds what is in flight */
	*ec = (struct doca_ec *)ctx;   /* its first member */
	return DOCA_SUCCESS;
}

doca_error_t doca_ec_destroy(struct doca_ec *ec)
{
	uint32_t n;
	doca_error_t r;

	ODMA_CHECK_ARG(ec != NULL, "ec must not be NULL");
	n = odma_ec_matrix_count(ec);
	if (n != 0) {
		ODMA_ERR("doca_ec_destroy: %u matrices of context %p are alive; destroy them first "
		         "(doca_ec_matrix_destroy)",
		         n, (void *)ec);
		return DOCA_ERROR_IN_USE;
	}
	r = doca_priv_ctx_destroy(&ec->ctx);
	if (r == DOCA_SUCCESS) {
		free(ec->scratch);
		free(ec);
	}
	return r;
}

ODMA_CTX_AS_CTX(ec, ctx)

/* ------------------------------------------------------------------ capabilities */

ODMA_CAP_SUPPORTED(doca_ec_cap_task_create_is_supported, ec)
ODMA_CAP_SUPPORTED(doca_ec_cap_task_recover_is_supported, ec)
ODMA_CAP_SUPPORTED(doca_ec_cap_task_update_is_supported, ec)
ODMA_CAP_SUPPORTED(doca_ec_cap_task_galois_mul_is_supported, ec)

ODMA_CAP_GETTER(doca_ec_cap_get_max_block_size, uint64_t, max_block_size, ec,
                devinfo->caps.ec_max_block_size ? devinfo->caps.ec_max_block_size
                                                : EC_DEFAULT_MAX_BLOCK_SIZE)

ODMA_CAP_GETTER(doca_ec_cap_get_max_buf_list_len, uint32_t, max_buf_list_len, ec,
                devinfo->caps.ec_max_buf_list_len ? devinfo->caps.ec_max_buf_list_len
                                                  : EC_DEFAULT_MAX_BUF_LIST_LEN)

/* ------------------------------------------------------------------ configuration */

doca_error_t odma_ec_set_conf(struct doca_ec *ec, enum ec_task_type type, void (*ok)(void),
                              void (*err)(void), uint32_t num, const char *fn)
{
	uint32_t max;

	ODMA_CHECK_ARG(ec != NULL, "%s: ec must not be NULL", fn);
	ODMA_CHECK_ARG(ok != NULL && err != NULL,
	               "%s: both the completion and the error callback are required", fn);
	if (!doca_priv_task_conf_idle(&ec->ctx, fn))
		return DOCA_ERROR_BAD_STATE;
	if (!ec->ctx.dev->info->caps.ec) {
		ODMA_ERR("%s: device %s has no erasure coding", fn, ec->ctx.dev->info->pci_addr);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	max = doca_priv_task_conf_max(&ec->ctx);
	ODMA_CHECK_ARG(num >= 1 && num <= max, "%s: num_tasks %u is outside 1..%u", fn, num, max);
	return doca_priv_task_conf_set(&ec->ctx, ec->conf, EC_T_COUNT, type,
	                               odma_ec_type_names[type], ok, err, num, max,
	                               "the device's task limit", fn);
}
