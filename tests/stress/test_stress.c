/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The model-based stress test (see stress.c): every built-in configuration in its own child,
 * ODMA_STRESS_TASKS accepted tasks in all (default one million), ODMA_STRESS_THREADS PEs
 * (default 4), 3 DMA contexts each. Prints the counts it observed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "stress.h"
#include "test_util.h"

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' ? strtoull(v, NULL, 0) : def;
}

static void test_stress_model(void **state)
{
	struct stress_params p = {
		.tasks = env_u64("ODMA_STRESS_TASKS", 1000000),
		.threads = (unsigned int)env_u64("ODMA_STRESS_THREADS", 4),
		.ctxs = 3,
		.seed = env_u64("ODMA_STRESS_SEED", 1),
	};
	struct stress_counts sum = { 0 }, c;
	unsigned int n = 0;

	(void)state;
	while (stress_configs[n].name != NULL)
		n++;
	p.tasks = (p.tasks + n - 1) / n;
	for (unsigned int i = 0; i < n; i++) {
		if (stress_configs[i].remote && tu_under_qemu()) {
			/* the other configurations still run */
			printf("%-22s not run under qemu-user: it imports another process' memory, "
			       "and qemu-user does not implement process_vm_readv\n",
			       stress_configs[i].name);
			continue;
		}
		assert_int_equal(stress_run_config(&stress_configs[i], &p, &c), 0);
		stress_print(stress_configs[i].name, &c);
		assert_true(c.accepted >= p.tasks);
		assert_true(c.accepted == c.completed_ok + c.completed_err);
		stress_add(&sum, &c);
	}
	stress_print("total", &sum);
	assert_true(sum.again > 0);        /* queue-full and injected AGAIN happened */
	assert_true(sum.injected_err > 0); /* injected failures happened */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stress_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
