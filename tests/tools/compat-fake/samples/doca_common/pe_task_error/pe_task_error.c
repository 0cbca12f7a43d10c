/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Fake sample calling a function nothing declares: an error under GCC 14's rules. */
int main(void)
{
	return odma_fake_undeclared(1);
}

int odma_fake_undeclared(int x)
{
	return x - 1;
}
