/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Helpers shared by the libFuzzer targets. */
#ifndef ODMA_FUZZ_COMMON_H_
#define ODMA_FUZZ_COMMON_H_

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_dev.h>
#include <doca_log.h>

#define FUZZ_CHECK(c)                                                                              \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "fuzz: %s:%d: invariant broken: %s\n", __FILE__, __LINE__, \
			        #c);                                                               \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* The device at PCI address @pci (aborts when there is none or it fails to open). */
static inline struct doca_dev *fuzz_open_pci(const char *pci)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;
	uint8_t is;

	FUZZ_CHECK(doca_devinfo_create_list(&list, &n) == DOCA_SUCCESS);
	for (uint32_t i = 0; i < n && dev == NULL; i++)
		if (doca_devinfo_is_equal_pci_addr(list[i], pci, &is) == DOCA_SUCCESS && is)
			FUZZ_CHECK(doca_dev_open(list[i], &dev) == DOCA_SUCCESS);
	FUZZ_CHECK(doca_devinfo_destroy_list(list) == DOCA_SUCCESS);
	FUZZ_CHECK(dev != NULL);
	return dev;
}

/* A NUL-terminated heap copy of the input (ASan catches reads past it). */
static inline char *fuzz_strdup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s != NULL) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

/* Keeps the SDK quiet: the fuzzers feed garbage on purpose and every rejection logs a line. */
static inline void fuzz_quiet_logs(void)
{
	setenv("DOCA_LOG_LEVEL", "10", 1);
	doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_DISABLE);
	doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_DISABLE);
}

#endif
