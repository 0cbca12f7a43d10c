/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Fake sample that links against a DOCA library odma does not have. */
#include <stddef.h>

#include <doca_error.h>

/* DOCA Flow: a library odma does not provide (declared here, as its header is absent). */
struct doca_flow_cfg;
doca_error_t doca_flow_init(const struct doca_flow_cfg *cfg);

int main(void)
{
	return doca_flow_init(NULL) == DOCA_SUCCESS ? 0 : 1;
}
