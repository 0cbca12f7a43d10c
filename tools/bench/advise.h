/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * odma-advise internals: the question (where the two ends of the copy are, how big, how
 * many, messages or bulk), the rule that answers it (advise_rule.c) and the measurements
 * that may inform the answer (advise.c).
 */
#ifndef ODMA_ADVISE_H_
#define ODMA_ADVISE_H_

#include <stdbool.h>
#include <stddef.h>

/* Where the two ends of the copy are. */
enum advise_between {
	ADVISE_SAME_PROCESS, /* source and destination in one process (one host) */
	ADVISE_HOST_DPU,     /* a host process and a process on that host's DPU */
	ADVISE_NETWORK,      /* two machines */
};

struct advise_question {
	enum advise_between between;
	size_t size; /* bytes per copy */
	int count;   /* how many such copies */
	bool messages;
};

/* The DMA/memcpy crossover the rule uses, and where it came from. */
struct advise_crossover {
	size_t bytes;    /* the median of the runs, or the compiled-in default */
	size_t min, max; /* the runs' spread (both == bytes for the default) */
	int runs;        /* 0: the compiled-in default */
};

/* One answer: a path ("dma", "rdma", "comch", "memcpy"; NULL: no row matches) and why. */
struct advise_answer {
	const char *path;
	bool uses_crossover; /* the answer depends on the crossover (same process, bulk) */
	bool near_crossover; /* the size lies inside the measured crossover's spread */
	char why[1024];
};

const char *advise_between_name(enum advise_between b);
/* "same-process" etc. into @out; -1 for any other word. */
int advise_between_parse(const char *s, enum advise_between *out);
/* The rule of odma advise (docs/user-guide.md, "Which path: odma advise"). */
void advise_rule(const struct advise_question *q, const struct advise_crossover *x,
                 struct advise_answer *a);

#endif
