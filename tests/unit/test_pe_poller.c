/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * White-box checks of the PE pollers (work a PE runs for objects that are not contexts,
 * e.g. graphs): one run per wake-up, from progress only, re-waking from inside a poll,
 * notification of an armed PE, removal while woken, and doca_pe_destroy refusing while
 * a poller is added.
 */
#include <poll.h>

#include "core/exec/exec.h"
#include "test_util.h"

struct counter {
	struct odma_pe_poller poller;
	struct doca_pe *pe;
	unsigned int runs;
	unsigned int rewake;          /* wake itself again this many times */
	struct counter *remove_other; /* removes this poller from inside its poll */
};

static bool counter_poll(struct odma_pe_poller *p)
{
	struct counter *c = (struct counter *)p;

	c->runs++;
	if (c->rewake > 0) {
		c->rewake--;
		odma_pe_poller_wake(c->pe, p);
	}
	if (c->remove_other != NULL) {
		odma_pe_poller_remove(c->pe, &c->remove_other->poller);
		c->remove_other = NULL;
	}
	return true;
}

static void counter_init(struct counter *c, struct doca_pe *pe)
{
	*c = (struct counter){ .poller = { .poll = counter_poll, .name = "test" }, .pe = pe };
	odma_pe_poller_add(pe, &c->poller);
}

static bool fd_readable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1;
}

static void test_runs_once_per_wake(void **state)
{
	struct doca_pe *pe;
	struct counter c;

	(void)state;
	assert_ok(doca_pe_create(&pe));
	counter_init(&c, pe);
	assert_false(doca_pe_progress(pe)); /* not woken: not run */
	assert_int_equal(c.runs, 0);
	odma_pe_poller_wake(pe, &c.poller);
	odma_pe_poller_wake(pe, &c.poller); /* coalesced */
	assert_int_equal(c.runs, 0);        /* never from inside the wake */
	assert_true(doca_pe_progress(pe));
	assert_int_equal(c.runs, 1);
	doca_pe_progress(pe);
	assert_int_equal(c.runs, 1);
	/* a poll that wakes itself runs again at the next progress, not in a loop */
	c.rewake = 2;
	odma_pe_poller_wake(pe, &c.poller);
	doca_pe_progress(pe);
	assert_int_equal(c.runs, 2);
	doca_pe_progress(pe);
	doca_pe_progress(pe);
	doca_pe_progress(pe);
	assert_int_equal(c.runs, 4);
	/* the PE is in use while a poller is added */
	assert_doca(DOCA_ERROR_IN_USE, doca_pe_destroy(pe));
	odma_pe_poller_remove(pe, &c.poller);
	assert_ok(doca_pe_destroy(pe));
}

static void test_notification(void **state)
{
	doca_notification_handle_t fd;
	struct doca_pe *pe;
	struct counter c;

	(void)state;
	assert_ok(doca_pe_create(&pe));
	assert_ok(doca_pe_get_notification_handle(pe, &fd));
	counter_init(&c, pe);
	/* armed, then woken: the handle becomes readable */
	assert_ok(doca_pe_request_notification(pe));
	assert_false(fd_readable(fd));
	odma_pe_poller_wake(pe, &c.poller);
	assert_true(fd_readable(fd));
	doca_pe_progress(pe);
	assert_int_equal(c.runs, 1);
	assert_false(fd_readable(fd));
	/* woken, then armed: readable at once (no lost wake-up) */
	odma_pe_poller_wake(pe, &c.poller);
	assert_ok(doca_pe_request_notification(pe));
	assert_true(fd_readable(fd));
	doca_pe_progress(pe);
	assert_int_equal(c.runs, 2);
	odma_pe_poller_remove(pe, &c.poller);
	assert_ok(doca_pe_destroy(pe));
}

static void test_remove(void **state)
{
	struct doca_pe *pe;
	struct counter a, b;

	(void)state;
	assert_ok(doca_pe_create(&pe));
	counter_init(&a, pe);
	counter_init(&b, pe);
	/* removed while woken: never runs, and the PE has no work left */
	odma_pe_poller_wake(pe, &a.poller);
	odma_pe_poller_remove(pe, &a.poller);
	assert_false(doca_pe_progress(pe));
	assert_int_equal(a.runs, 0);
	/* a poll that removes another poller: the walk stops, nothing dangles */
	odma_pe_poller_add(pe, &a.poller);
	odma_pe_poller_remove(pe, &b.poller);
	odma_pe_poller_add(pe, &b.poller); /* the list is b, a: b runs first */
	b.remove_other = &a;
	odma_pe_poller_wake(pe, &a.poller);
	odma_pe_poller_wake(pe, &b.poller);
	doca_pe_progress(pe);
	doca_pe_progress(pe);
	assert_int_equal(b.runs, 1);
	assert_int_equal(a.runs, 0);
	assert_int_equal(pe->num_pollers, 1);
	assert_int_equal(pe->num_woken, 0);
	odma_pe_poller_remove(pe, &b.poller);
	assert_ok(doca_pe_destroy(pe));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs_once_per_wake),
		cmocka_unit_test(test_notification),
		cmocka_unit_test(test_remove),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
