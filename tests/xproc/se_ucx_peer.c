/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The exporter of test_xproc_se_ucx, run as its own program (possibly in another network
 * and PID namespace): a sync event on the DPU device (03:00.0), started stand-alone and
 * exported across PCIe; it sends the blob length (a uint64_t) and the blob over fd 3, then
 * serves commands, each one byte and, where said, a uint64_t argument V:
 *   'G'    reply the value (uint64_t)
 *   'U' V  doca_sync_event_update_set(V), echo
 *   'A' V  V times doca_sync_event_update_add(1) with a 20 us pause between, echo
 *   'W' V  doca_sync_event_wait_gt(V) (this side's blocking CPU wait), reply 'W' + value
 *   'D' V  echo at once, then after 200 ms update_set(V)
 *   'S'    stop the event (revocation), echo
 *   'Z'    stop answering for 6 s (xu_freeze), then echo
 *   'K'    die at once; 'X' exit
 * Exits 0 when fd 3 closes. As PID 1 of a new namespace it first forks (see ucx_peer.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doca_dev.h>
#include <doca_sync_event.h>

#include "xproc_util.h"

#define FD 3

static bool get_arg(uint64_t *v)
{
	return xu_full_io(FD, v, sizeof(*v), false);
}

static void serve(struct doca_sync_event *se)
{
	uint64_t v, got, f;
	char c;

	while (xu_full_io(FD, &c, 1, false)) {
		bool ok = true;

		switch (c) {
		case 'X':
			_exit(0);
		case 'K':
			_exit(9);
		case 'G':
			ok = doca_sync_event_get(se, &got) == DOCA_SUCCESS &&
			     xu_full_io(FD, &got, sizeof(got), true);
			break;
		case 'U':
			ok = get_arg(&v) && doca_sync_event_update_set(se, v) == DOCA_SUCCESS &&
			     xu_full_io(FD, &c, 1, true);
			break;
		case 'A':
			ok = get_arg(&v);
			for (uint64_t i = 0; ok && i < v; i++) {
				ok = doca_sync_event_update_add(se, 1, &f) == DOCA_SUCCESS;
				usleep(20);
			}
			ok = ok && xu_full_io(FD, &c, 1, true);
			break;
		case 'W':
			ok = get_arg(&v) &&
			     doca_sync_event_wait_gt(se, v, UINT64_MAX) == DOCA_SUCCESS &&
			     doca_sync_event_get(se, &got) == DOCA_SUCCESS &&
			     xu_full_io(FD, &c, 1, true) && xu_full_io(FD, &got, sizeof(got), true);
			break;
		case 'D':
			ok = get_arg(&v) && xu_full_io(FD, &c, 1, true);
			usleep(200 * 1000);
			ok = ok && doca_sync_event_update_set(se, v) == DOCA_SUCCESS;
			break;
		case 'Z':
			xu_freeze(6);
			ok = xu_full_io(FD, &c, 1, true);
			break;
		case 'S':
			ok = doca_sync_event_stop(se) == DOCA_SUCCESS &&
			     xu_full_io(FD, &c, 1, true);
			break;
		default:
			ok = false;
		}
		if (!ok)
			_exit(5);
	}
	_exit(0);
}

int main(void)
{
	struct doca_dev *dev;
	struct doca_sync_event *se;
	const uint8_t *blob;
	size_t sz;
	uint64_t len;

	if (getpid() == 1) { /* init of a new PID namespace: the work is a child's */
		pid_t c = fork();
		int st = 0;

		if (c != 0) {
			close(FD);
			while (waitpid(c, &st, 0) < 0)
				;
			return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
		}
	}
	dev = tu_open_pci_or_null("03:00.0");
	if (dev == NULL || doca_sync_event_create(&se) != DOCA_SUCCESS ||
	    doca_sync_event_add_publisher_location_remote_pci(se) != DOCA_SUCCESS ||
	    doca_sync_event_add_subscriber_location_cpu(se, dev) != DOCA_SUCCESS ||
	    doca_sync_event_start(se) != DOCA_SUCCESS ||
	    doca_sync_event_export_to_remote_pci(se, dev, &blob, &sz) != DOCA_SUCCESS)
		return 3;
	len = sz;
	if (!xu_full_io(FD, &len, sizeof(len), true) || !xu_full_io(FD, (void *)blob, sz, true))
		return 4;
	serve(se);
	return 0;
}
