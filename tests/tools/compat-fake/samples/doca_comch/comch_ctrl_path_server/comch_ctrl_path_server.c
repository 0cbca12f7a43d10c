/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Fake server: its build needs the doca-comch pkg-config module. */
int main(void)
{
	return 0;
}
