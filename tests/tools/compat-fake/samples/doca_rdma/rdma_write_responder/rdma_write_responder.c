/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Fake RDMA write responder (rdma_fake_side.h). */
#include "../rdma_fake_side.h"

int main(int argc, char **argv)
{
	return fake_side(true, argc, argv);
}
