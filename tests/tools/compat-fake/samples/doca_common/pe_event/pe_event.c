/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Fake sample that never finishes. */
#include <unistd.h>

int main(void)
{
	for (;;)
		pause();
}
