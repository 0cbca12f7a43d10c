/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * odma's own threads (the thread engine's workers, DOCA RDMA's listeners and readers, the
 * transport's service thread) stand for a device's engines, which never run on the core of
 * the application thread that started a context. A thread inherits its creator's CPU mask,
 * and applications pin their workers (NVIDIA's storage applications, every DPDK lcore), so
 * these start with the CPUs the process had when odma loaded instead.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "core/config/config.h"

static cpu_set_t load_cpus;
static bool load_cpus_known;

/* Runs when the library loads: on the main thread of a program that links it, before main. */
__attribute__((constructor)) static void threads_load_cpus(void)
{
	load_cpus_known = sched_getaffinity(0, sizeof(load_cpus), &load_cpus) == 0 &&
	                  CPU_COUNT(&load_cpus) > 0;
}

long doca_priv_process_cpus(void)
{
	return load_cpus_known ? CPU_COUNT(&load_cpus) : 0;
}

int doca_priv_thread_start(pthread_t *thr, const char *name, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	int rc = EINVAL;

	if (load_cpus_known && pthread_attr_init(&attr) == 0) {
		rc = pthread_attr_setaffinity_np(&attr, sizeof(load_cpus), &load_cpus);
		if (rc == 0)
			rc = pthread_create(thr, &attr, fn, arg);
		pthread_attr_destroy(&attr);
	}
	/* no mask, or none of its CPUs is the process' any more (a cpuset narrowed since) */
	if (rc == EINVAL)
		rc = pthread_create(thr, NULL, fn, arg);
	if (rc == 0 && name != NULL)
		(void)pthread_setname_np(*thr, name);
	return rc;
}
