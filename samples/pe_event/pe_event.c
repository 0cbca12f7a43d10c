/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * pe_event: wait for completions in epoll instead of spinning. The progress engine's
 * notification handle goes into an epoll set; the loop is: progress until nothing happens,
 * request a notification, sleep in epoll_wait, clear the notification, progress again.
 */
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <doca_log.h>

#include "sample_common.h"

DOCA_LOG_REGISTER(PE_EVENT);

#define NB_TASKS 16
#define BUF_SIZE 4096
#define EPOLL_TIMEOUT_MS 5000

struct event_state {
	uint32_t ok;
	uint32_t done;
};

static void task_done(struct doca_dma_task_memcpy *task, union doca_data task_user,
                      union doca_data ctx_user)
{
	struct event_state *st = ctx_user.ptr;

	(void)task_user;
	if (doca_task_get_status(doca_dma_task_memcpy_as_task(task)) == DOCA_SUCCESS)
		st->ok++;
	st->done++;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

static doca_error_t submit_all(struct copy_bench *b, struct doca_dma *dma)
{
	struct doca_dma_task_memcpy *task;
	union doca_data none = { .u64 = 0 };
	doca_error_t err = DOCA_SUCCESS;
	uint32_t i;

	for (i = 0; i < NB_TASKS && err == DOCA_SUCCESS; i++) {
		err = doca_dma_task_memcpy_alloc_init(dma, b->src[i], b->dst[i], none, &task);
		if (err == DOCA_SUCCESS) {
			err = doca_task_submit(doca_dma_task_memcpy_as_task(task));
			if (err != DOCA_SUCCESS)
				doca_task_free(doca_dma_task_memcpy_as_task(task));
		}
	}
	return err;
}

/*
 * Sleeps in epoll until the PE has something to report, then progresses until it has
 * nothing left. A completion that was already waiting when the notification was requested
 * still wakes epoll, so arming first never loses one.
 */
static doca_error_t wait_events(struct copy_bench *b, int epfd, doca_notification_handle_t fd,
                                const struct event_state *st, uint32_t *nb_waits)
{
	struct epoll_event ev;

	while (st->done < NB_TASKS) {
		if (doca_pe_request_notification(b->pe) != DOCA_SUCCESS)
			return DOCA_ERROR_BAD_STATE;
		if (epoll_wait(epfd, &ev, 1, EPOLL_TIMEOUT_MS) != 1) {
			DOCA_LOG_ERR("No notification within %d ms", EPOLL_TIMEOUT_MS);
			return DOCA_ERROR_TIME_OUT;
		}
		(*nb_waits)++;
		doca_pe_clear_notification(b->pe, fd);
		while (doca_pe_progress(b->pe) != 0)
			;
	}
	return DOCA_SUCCESS;
}

static doca_error_t run(struct copy_bench *b, int epfd)
{
	struct event_state st = { 0 };
	struct epoll_event ev = { .events = EPOLLIN };
	doca_notification_handle_t fd;
	uint32_t nb_waits = 0, i;
	struct doca_dma *dma;
	doca_error_t err = doca_pe_get_notification_handle(b->pe, &fd);

	if (err != DOCA_SUCCESS || epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
		DOCA_LOG_ERR("Cannot put the PE's notification handle into epoll");
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	err = bench_dma_start(b, NB_TASKS, task_done, task_done, NULL, &st, &dma);
	if (err != DOCA_SUCCESS)
		return err;
	err = submit_all(b, dma);
	if (err == DOCA_SUCCESS)
		err = wait_events(b, epfd, fd, &st, &nb_waits);
	for (i = 0; err == DOCA_SUCCESS && i < NB_TASKS; i++)
		if (!bench_pair_ok(b, i))
			err = DOCA_ERROR_UNEXPECTED;
	bench_dma_destroy(b, dma);
	DOCA_LOG_INFO("%u of %d tasks completed after %u epoll wake-ups; destinations %s", st.ok,
	              NB_TASKS, nb_waits, err == DOCA_SUCCESS ? "verified" : "NOT verified");
	return st.ok == NB_TASKS ? err : DOCA_ERROR_IO_FAILED;
}

int main(int argc, char **argv)
{
	struct sample_config cfg;
	struct copy_bench b;
	int epfd;
	doca_error_t err = sample_init("pe_event", argc, argv, false, &cfg);

	if (err != DOCA_SUCCESS)
		return EXIT_FAILURE;
	epfd = epoll_create1(0);
	err = epfd < 0 ? DOCA_ERROR_OPERATING_SYSTEM : bench_open(&b, &cfg, NB_TASKS, BUF_SIZE);
	if (err == DOCA_SUCCESS) {
		err = run(&b, epfd);
		bench_close(&b);
	}
	if (epfd >= 0)
		close(epfd);
	sample_fini();
	return err == DOCA_SUCCESS ? EXIT_SUCCESS : EXIT_FAILURE;
}
