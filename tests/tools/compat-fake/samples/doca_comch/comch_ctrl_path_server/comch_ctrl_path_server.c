/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Fake server: its build needs the doca-flow pkg-config module (a library odma does not provide).
 */
int main(void)
{
	return 0;
}
