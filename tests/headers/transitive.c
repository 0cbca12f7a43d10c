/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Includes one public header (ODMA_TEST_HEADER) and nothing else, then uses what that header
 * must bring in on its own because DOCA's header of the same name does (the PROBE_* macros,
 * chosen per header in meson.build, defined by the unit generated from transitive_tu.c.in).
 * Built with -Werror=implicit-function-declaration: a missing standard header is a build
 * failure, as it is for a DOCA program under GCC 14.
 */
#include ODMA_TEST_HEADER

/* Only doca_rdma.h brings in <stdbool.h> (DOCA's does: PROBE_STDBOOL). */
#ifdef PROBE_STDBOOL
static bool probe_bool = true;
#elif defined(bool) || defined(true) || defined(false) || defined(__bool_true_false_are_defined)
#error "no DOCA header brings in <stdbool.h>; a program may define its own bool"
#endif

#ifdef PROBE_STDARG
static int probe_sum(int n, ...)
{
	va_list ap;
	int s = 0;

	va_start(ap, n);
	while (n-- > 0)
		s += va_arg(ap, int);
	va_end(ap);
	return s;
}
#endif

int main(void)
{
	int bad = 0;
#ifdef PROBE_STDDEF
	struct probe {
		char c;
		size_t z;
	};
	char two[2];
	ptrdiff_t d = &two[1] - &two[0];
	void *none = NULL;

	bad |= offsetof(struct probe, c) != 0 || d != 1 || none != NULL;
#endif
#ifdef PROBE_STDINT
	uint64_t u = UINT64_MAX;
	int32_t i = INT32_MIN;

	bad |= u == 0 || i == 0;
#endif
#ifdef PROBE_STRING
	char s[8];

	memset(s, 'x', sizeof(s));
	memcpy(s, "ok", 3);
	bad |= strlen(s) != 2 || strcmp(s, "ok") != 0;
#endif
#ifdef PROBE_STDLIB
	char *p = malloc(16);

	bad |= p == NULL || atoi("7") != 7;
	free(p);
#endif
#ifdef PROBE_ASSERT
	assert(bad == 0);
#endif
#ifdef PROBE_STDIO
	char line[32];

	bad |= snprintf(line, sizeof(line), "%d", 42) != 2;
	fflush(stdout);
#endif
#ifdef PROBE_INTTYPES
	static const char fmt[] = "%" PRIu64 " %" PRIx32;

	bad |= sizeof(fmt) < 6 || strtoumax("12", NULL, 10) != 12 || imaxabs(-3) != 3;
#endif
#ifdef PROBE_STDARG
	bad |= probe_sum(3, 1, 2, 3) != 6;
#endif
#ifdef PROBE_TIME
	struct timespec ts = { 0, 0 };

	bad |= ts.tv_nsec != 0 || time(NULL) == (time_t)-1;
#endif
#ifdef PROBE_STDBOOL
	bad |= !probe_bool;
#endif
#ifdef PROBE_VERSION
	/* compiled, not run (tests/headers/meson.build): what is checked is checked here */
	_Static_assert(sizeof(DOCA_VERSION_STRING) > 1, "DOCA_VERSION_STRING is not empty");
	_Static_assert(DOCA_VERSION_MAJOR >= 3, "DOCA_VERSION_MAJOR is 3 or later");
#endif
#ifdef PROBE_RDMA_CM
	/* doca_rdma.h brings the RDMA headers the system has (2.10 storage needs one) */
#if __has_include(<rdma/rdma_cma.h>) || __has_include(<rdma/ib_user_verbs.h>)
	_Static_assert(IB_DEVICE_NAME_MAX >= 16, "IB_DEVICE_NAME_MAX from the RDMA headers");
#endif
#endif
	return bad;
}
