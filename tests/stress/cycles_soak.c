/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * `cycles_soak [CYCLES [beside]]`: one run of the create/destroy loop (cycles.c) outside
 * cmocka, for scripts/soak-cycles.sh. Exits 0 when every cycle passed.
 */
#include <stdlib.h>
#include <string.h>

#include "cycles.h"

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 100000;
	bool beside = argc > 2 && strcmp(argv[2], "beside") == 0;

	return cycles_run(n, beside) == 0 ? 0 : 1;
}
