/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "odma_pci.h"

bool odma_pci_text_ok(const char *t)
{
	static const char *const shapes[] = { "xx:xx.x", "xxxx:xx:xx.x" };

	for (size_t k = 0; k < 2; k++) {
		const char *f = shapes[k];
		size_t i = 0;

		while (f[i] != '\0' && (f[i] == 'x' ? isxdigit((unsigned char)t[i]) : t[i] == f[i]))
			i++;
		if (f[i] == '\0' && t[i] == '\0')
			return strtoul(t + i - 4, NULL, 16) <= 0x1f && t[i - 1] <= '7';
	}
	return false;
}

bool odma_pci_same(const char *a, const char *b)
{
	size_t la, lb;

	if (a == NULL || b == NULL)
		return false;
	la = strlen(a);
	lb = strlen(b);
	if (la < lb)
		return odma_pci_same(b, a);
	return strcasecmp(a + la - lb, b) == 0 && (la == lb || a[la - lb - 1] == ':');
}
