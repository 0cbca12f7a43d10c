/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/* Fake sample that links against a DOCA library odma does not have. */
#include <doca_error.h>

struct doca_sync_event;
doca_error_t doca_sync_event_create(struct doca_sync_event **event);

int main(void)
{
	struct doca_sync_event *e;

	return doca_sync_event_create(&e) == DOCA_SUCCESS ? 0 : 1;
}
