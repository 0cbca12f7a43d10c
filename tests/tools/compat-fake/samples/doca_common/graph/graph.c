/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Fake sample that needs a DOCA header odma does not have. */
#include <doca_eth_rxq.h> /* a DOCA library odma does not provide */

int main(void)
{
	return 0;
}
