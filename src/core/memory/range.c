/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Registration check of a local range (doca_mmap_start). A BlueField pins the pages of an
 * mmap when it starts and refuses a range it cannot pin; odma reads /proc/self/maps instead
 * (it touches no page, so a lazily allocated buffer stays unpopulated) and refuses a range
 * with a hole, a page without read access, or, when the mmap's permissions let a device
 * write into it, a page without write access. docs/differences-from-hardware.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/memory/memory.h"

/* One line of /proc/self/maps: "start-end perms ..."; false at the end or on a bad line. */
static bool maps_next(FILE *f, uintptr_t *start, uintptr_t *end, char perms[5])
{
	char line[256];
	size_t n;

	if (fgets(line, sizeof(line), f) == NULL)
		return false;
	n = strlen(line);
	/* a long path: drop the rest of the line */
	while (n > 0 && line[n - 1] != '\n') {
		int c = fgetc(f);

		if (c == EOF || c == '\n')
			break;
	}
	return sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %4s", start, end, perms) == 3;
}

/*
 * When /proc/self/maps cannot be opened (no descriptor left: EMFILE, or no /proc): whether every
 * page of the range is mapped, from mincore (ENOMEM at a hole; no page is touched). The
 * permissions cannot be read this way: the copy fault guard still fails a task that meets a
 * page it cannot use.
 */
static enum odma_range_verdict range_probe_mapped(uintptr_t cur, uintptr_t last, uintptr_t *bad)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char vec[64];

	cur &= ~(uintptr_t)(page - 1);
	while (cur < last) {
		size_t pages = (size_t)((last - cur + page - 1) / page);
		size_t n = pages < sizeof(vec) ? pages : sizeof(vec);

		if (mincore((void *)cur, n * page, vec) != 0) {
			if (errno != ENOMEM)
				break;
			/* find the first unmapped page of this chunk */
			for (size_t i = 0; i < n; i++, cur += page)
				if (mincore((void *)cur, page, vec) != 0)
					break;
			*bad = cur;
			return ODMA_RANGE_UNMAPPED;
		}
		cur += n * page;
	}
	return cur >= last ? ODMA_RANGE_UNCHECKED : ODMA_RANGE_UNKNOWN;
}

enum odma_range_verdict odma_range_check(const void *addr, size_t len, bool write, uintptr_t *bad)
{
	uintptr_t cur = (uintptr_t)addr, last = cur + len, start, end;
	enum odma_range_verdict v = ODMA_RANGE_UNMAPPED;
	char perms[5];
	FILE *f = fopen("/proc/self/maps", "re");

	if (f == NULL) {
		int e = errno;

		*bad = cur;
		v = range_probe_mapped(cur, last, bad);
		errno = e;
		return v;
	}
	while (cur < last && maps_next(f, &start, &end, perms)) {
		if (end <= cur)
			continue;
		if (start > cur)
			break; /* a hole at cur */
		if (perms[0] != 'r' || (write && perms[1] != 'w')) {
			v = perms[0] != 'r' ? ODMA_RANGE_NO_READ : ODMA_RANGE_NO_WRITE;
			break;
		}
		cur = end;
	}
	fclose(f);
	if (cur >= last)
		return ODMA_RANGE_OK;
	*bad = cur;
	return v;
}
