/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The stress model, longer (scripts/soak.sh): every configuration for ODMA_SOAK_SECONDS / n
 * seconds and at least ODMA_SOAK_TASKS / n tasks, on ODMA_SOAK_THREADS PEs. Prints the counts;
 * exits non-zero if an invariant broke.
 */
#include <stdio.h>
#include <stdlib.h>

#include "stress.h"

static double env_num(const char *name, double def)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' ? strtod(v, NULL) : def;
}

int main(void)
{
	struct stress_params p = {
		.tasks = (uint64_t)env_num("ODMA_SOAK_TASKS", 1000000),
		.threads = (unsigned int)env_num("ODMA_SOAK_THREADS", 4),
		.ctxs = (unsigned int)env_num("ODMA_SOAK_CTXS", 3),
		.seed = (uint64_t)env_num("ODMA_SOAK_SEED", 1),
		.seconds = env_num("ODMA_SOAK_SECONDS", 60),
	};
	struct stress_counts sum = { 0 }, c;
	unsigned int n = 0;
	int bad = 0;

	while (stress_configs[n].name != NULL)
		n++;
	p.tasks /= n;
	p.seconds /= n;
	printf("soak: %u configurations, %u threads x %u contexts, >= %llu tasks and >= %.0f s "
	       "each\n",
	       n, p.threads, p.ctxs, (unsigned long long)p.tasks, p.seconds);
	for (unsigned int i = 0; i < n; i++) {
		if (stress_run_config(&stress_configs[i], &p, &c) != 0) {
			printf("%s: FAILED (an invariant broke; see the message above)\n",
			       stress_configs[i].name);
			bad = 1;
		}
		stress_print(stress_configs[i].name, &c);
		stress_add(&sum, &c);
	}
	stress_print("total", &sum);
	return bad;
}
