/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Sync events exported to the network (doca_sync_event_export_to_remote_net) and the
 * handles a peer builds from them. A peer never touches the event's memory: its RDMA
 * remote-net tasks travel over an RDMA connection to the exporter, whose libdoca_rdma
 * service thread applies them here (doca_priv_se_remote_access), so a waiter blocked in
 * doca_sync_event_wait_gt() wakes as for a local update. The export is a record of the
 * transport's registry (grant SE_NET: READ gets, WRITE sets, ATOMIC adds); the blob names it
 * by its id and random key; nothing in it is an address, so it is valid on any machine.
 *
 * Blob (40 bytes, little-endian): magic "ODMASERN", u16 version 1, u16 length 40,
 * u32 reserved 0, key[16], u32 id, u32 CRC32C of the first 36 bytes.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/device/device.h"
#include "core/log/log.h"
#include "core/sync_event/se_int.h"
#include "core/sync_event/sync_event.h"
#include "util/codec.h"

ODMA_LOG_REGISTER(ODMA_SYNC_EVENT_NET)

#define RN_MAGIC "ODMASERN"
#define RN_LEN 40
#define RN_HANDLE_MAGIC 0x524e48444c45ULL

struct doca_sync_event_remote_net {
	uint64_t magic;
	uint32_t id;
	uint8_t key[16];
	struct doca_dev *dev;
	struct doca_sync_event_remote_net *next; /* rn_handles */
};

/* Live handles: a destroy of anything else is refused without reading it. */
static pthread_mutex_t rn_hlock = PTHREAD_MUTEX_INITIALIZER;
static struct doca_sync_event_remote_net *rn_handles;

static bool rn_handle_take(const struct doca_sync_event_remote_net *h, bool unlink)
{
	struct doca_sync_event_remote_net **pp;
	bool found = false;

	pthread_mutex_lock(&rn_hlock);
	for (pp = &rn_handles; *pp != NULL; pp = &(*pp)->next)
		if (*pp == h) {
			found = true;
			if (unlink)
				*pp = h->next;
			break;
		}
	pthread_mutex_unlock(&rn_hlock);
	return found;
}

static void rn_encode(uint8_t *out, const uint8_t key[16], uint32_t id)
{
	odma_rec_open(out, RN_MAGIC, 1, RN_LEN);
	memcpy(out + 16, key, 16);
	odma_put_le(out + 32, id, 4);
	odma_rec_seal(out, RN_LEN);
}

/*
 * Orders the look-up and the registration of an event's region (and its revocation): two
 * threads exporting one event at once must not both find none and register it twice (the
 * revocation would end one, leaving a peer the other, to freed memory).
 */
static pthread_mutex_t rn_reg_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * Registers @se (exporter, started) once and returns its blob: a copy the event keeps until
 * it is destroyed (the record's own bytes are wiped by a stop, then reused by another event).
 */
static doca_error_t rn_register(struct doca_sync_event *se, const uint8_t **blob)
{
	struct se_export *e = calloc(1, sizeof(*e));
	struct odma_tp_region *g = NULL;

	if (e == NULL)
		return DOCA_ERROR_NO_MEMORY;
	pthread_mutex_lock(&rn_reg_lock);
	if (odma_tp_region_find(se, ODMA_TP_GRANT_SE_NET) != NULL) {
		*blob = se->rn_exports->blob; /* registered by an earlier export: its copy */
		pthread_mutex_unlock(&rn_reg_lock);
		free(e);
		return DOCA_SUCCESS;
	}
	g = odma_tp_region_add((uint64_t)(uintptr_t)se->value, sizeof(*se->value),
	                       ODMA_TP_READ | ODMA_TP_WRITE | ODMA_TP_ATOMIC);
	if (g != NULL) {
		g->grant = ODMA_TP_GRANT_SE_NET;
		g->owner = se;
		rn_encode(e->blob, g->hdr.key, g->id);
		e->len = RN_LEN;
		odma_tp_region_publish(g, e->blob, RN_LEN);
		e->next = se->rn_exports;
		se->rn_exports = e;
		*blob = e->blob;
	}
	pthread_mutex_unlock(&rn_reg_lock);
	if (g == NULL) {
		free(e);
		return DOCA_ERROR_NO_MEMORY;
	}
	return DOCA_SUCCESS;
}

/* Waits for the remote operations in progress: none touches @se afterwards. */
void se_rn_revoke(struct doca_sync_event *se)
{
	struct odma_tp_region *g;

	pthread_mutex_lock(&rn_reg_lock);
	g = odma_tp_region_find(se, ODMA_TP_GRANT_SE_NET);
	if (g != NULL)
		odma_tp_region_revoke(g);
	pthread_mutex_unlock(&rn_reg_lock);
}

doca_error_t doca_sync_event_add_publisher_location_remote_net(struct doca_sync_event *event)
{
	return se_add_location_net(event, __func__);
}

doca_error_t doca_sync_event_export_to_remote_net(struct doca_sync_event *event,
                                                  const uint8_t **data, size_t *sz)
{
	doca_error_t r;

	ODMA_CHECK_ARG(event != NULL && data != NULL && sz != NULL,
	               "%s: event, data and sz must not be NULL", __func__);
	r = se_export_allowed(event, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	r = rn_register(event, data);
	if (r != DOCA_SUCCESS) {
		ODMA_ERR("%s: no memory to register sync event %p", __func__, (void *)event);
		return r;
	}
	*sz = RN_LEN;
	ODMA_DBG("sync event %p exported to the network (%u-byte blob)", (void *)event, RN_LEN);
	return DOCA_SUCCESS;
}

static const char *rn_parse(const uint8_t *b, size_t len, uint8_t key[16], uint32_t *id)
{
	if (b == NULL || len != RN_LEN || memcmp(b, RN_MAGIC, 8) != 0)
		return "not a 40-byte odma remote-net sync event export";
	if (odma_get_le(b + 8, 2) != 1 || odma_get_le(b + 10, 2) != RN_LEN ||
	    odma_get_le(b + 12, 4) != 0)
		return "unknown format version or non-zero reserved bytes";
	if (!odma_rec_sealed(b, RN_LEN))
		return "checksum mismatch (corrupted in transit)";
	memcpy(key, b + 16, 16);
	*id = (uint32_t)odma_get_le(b + 32, 4);
	if (*id == 0)
		return "id 0 is never issued";
	return NULL;
}

doca_error_t
doca_sync_event_remote_net_create_from_export(struct doca_dev *dev, const uint8_t *data, size_t sz,
                                              struct doca_sync_event_remote_net **event)
{
	struct doca_devinfo *info;
	struct doca_sync_event_remote_net *h;
	uint8_t key[16];
	uint32_t id;
	const char *why;

	ODMA_CHECK_ARG(dev != NULL && data != NULL && event != NULL,
	               "%s: dev, data and event must not be NULL", __func__);
	info = odma_dev_lookup_open(dev);
	ODMA_CHECK_ARG(info != NULL,
	               "%s: dev %p is not an open device handle from doca_dev_open "
	               "(a closed one included)",
	               __func__, (void *)dev);
	if (!info->caps.rdma) {
		ODMA_ERR("%s: device %s has no RDMA; use an RDMA device "
		         "(doca_sync_event_cap_remote_net_is_create_from_export_supported)",
		         __func__, info->pci_addr);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	why = rn_parse(data, sz, key, &id);
	ODMA_CHECK_ARG(why == NULL, "%s: rejected %zu-byte blob: %s", __func__, sz, why);
	h = calloc(1, sizeof(*h));
	if (h == NULL) {
		ODMA_ERR("%s: out of memory", __func__);
		return DOCA_ERROR_NO_MEMORY;
	}
	h->magic = RN_HANDLE_MAGIC;
	h->id = id;
	memcpy(h->key, key, 16);
	h->dev = dev;
	odma_dev_hold(dev);
	pthread_mutex_lock(&rn_hlock);
	h->next = rn_handles;
	rn_handles = h;
	pthread_mutex_unlock(&rn_hlock);
	*event = h;
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_remote_net_destroy(struct doca_sync_event_remote_net *event)
{
	ODMA_CHECK_ARG(event != NULL && rn_handle_take(event, true),
	               "%s: event is not a handle from "
	               "doca_sync_event_remote_net_create_from_export",
	               __func__);
	event->magic = 0;
	odma_dev_release(event->dev);
	free(event);
	return DOCA_SUCCESS;
}

ODMA_CAP_SUPPORTED(doca_sync_event_cap_remote_net_is_create_from_export_supported, rdma)
ODMA_CAP_SUPPORTED(doca_sync_event_cap_is_export_to_remote_net_supported, rdma)

bool doca_priv_se_remote_net_ident(const struct doca_sync_event_remote_net *h, uint32_t *id,
                                   uint8_t key[16])
{
	if (h == NULL || !rn_handle_take(h, false))
		return false;
	*id = h->id;
	memcpy(key, h->key, 16);
	return true;
}

doca_error_t doca_priv_se_remote_access(uint32_t id, const uint8_t key[16], int op, uint64_t *value)
{
	uint32_t perm = op == ODMA_SE_NET_GET   ? ODMA_TP_READ
	                : op == ODMA_SE_NET_SET ? ODMA_TP_WRITE
	                                        : ODMA_TP_ATOMIC;
	struct odma_tp_region *g;
	struct doca_sync_event *se;
	doca_error_t r = DOCA_ERROR_NOT_FOUND;
	uint64_t old;

	if (odma_tp_region_enter(id, false, ODMA_TP_GRANT_SE_NET, key, perm, &g) != DOCA_SUCCESS)
		return DOCA_ERROR_NOT_FOUND;
	se = g->owner;
	if (se_active(se)) {
		switch (op) {
		case ODMA_SE_NET_GET:
			*value = se_load(se);
			r = DOCA_SUCCESS;
			break;
		case ODMA_SE_NET_SET:
			r = se_do_set(se, *value);
			break;
		default:
			r = se_do_add(se, *value, &old);
			if (r == DOCA_SUCCESS)
				*value = old;
			break;
		}
	}
	odma_tp_region_leave(g); /* a revocation waiting for it proceeds */
	return r;
}
