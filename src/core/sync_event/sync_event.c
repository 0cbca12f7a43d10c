/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * DOCA Sync Event: creation, locations, backing memory, stand-alone start/stop, export and
 * import, the synchronous data path (get, set, add, blocking waits) and the capability
 * queries. The context form and the tasks are in se_tasks.c. What depends on where the value
 * is goes through the event's row (se_ops): se_local.c with the shared page of se_shared.c,
 * or se_net.c. Rules odma decided where DOCA leaves them open: docs/user-guide.md.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_dev.h>
#include <doca_mmap.h>

#include "core/device/device.h"
#include "core/error/error.h"
#include "core/log/log.h"
#include "core/memory/memory.h"
#include "core/sync_event/se_int.h"
#include "core/transport/transport.h"

ODMA_LOG_REGISTER(DOCA_SYNC_EVENT)

/* ------------------------------------------------------------------------------------ */
/* Creation and configuration                                                             */
/* ------------------------------------------------------------------------------------ */

doca_error_t doca_sync_event_create(struct doca_sync_event **event)
{
	struct doca_sync_event *se;

	ODMA_CHECK_ARG(event != NULL, "event must not be NULL");
	se = calloc(1, sizeof(*se));
	if (se == NULL)
		return DOCA_ERROR_NO_MEMORY;
	doca_priv_ctx_init(&se->ctx, &se_ctx_ops, NULL);
	se->ops = &se_local_ops; /* an import may choose another row */
	se->memfd = -1;
	se->slot = -1;
	se->slot_efd = -1;
	se->peer_pidfd = -1;
	*event = se;
	ODMA_DBG("sync event %p created", (void *)se);
	return DOCA_SUCCESS;
}

/* The description of @dev if it is open; else NULL, logged for @fn (the caller). */
static const struct doca_devinfo *se_open_dev(const struct doca_dev *dev, const char *fn)
{
	const struct doca_devinfo *info = odma_dev_lookup_open(dev);

	if (info == NULL)
		ODMA_ERR("%s: dev %p is not an open device handle from doca_dev_open "
		         "(a closed one included)",
		         fn, (void *)dev);
	return info;
}

static doca_error_t se_hold_dev(struct doca_sync_event *se, struct doca_dev *dev, const char *fn)
{
	struct doca_dev **devs;

	if (se_open_dev(dev, fn) == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	devs = realloc(se->devs, (se->num_devs + 1) * sizeof(*devs));
	if (devs == NULL)
		return DOCA_ERROR_NO_MEMORY;
	se->devs = devs;
	se->devs[se->num_devs++] = dev;
	odma_dev_hold(dev);
	return DOCA_SUCCESS;
}

/* Whether a configuration call may change the event now. */
static doca_error_t se_check_configurable(const struct doca_sync_event *se, const char *fn)
{
	if (se->from_export) {
		ODMA_ERR("%s: sync event %p was created from an export; only its exporter "
		         "configures the event",
		         fn, (const void *)se);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (se->started || se->ctx.state != DOCA_CTX_STATE_IDLE) {
		ODMA_ERR("%s: sync event %p is started; configure it before "
		         "doca_sync_event_start / doca_ctx_start",
		         fn, (const void *)se);
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t se_add_location(struct doca_sync_event *se, struct doca_dev *dev, bool pub,
                                    const char *fn)
{
	doca_error_t r;

	ODMA_CHECK_ARG(se != NULL, "%s: event must not be NULL", fn);
	r = se_check_configurable(se, fn);
	if (r != DOCA_SUCCESS)
		return r;
	if (dev != NULL && (r = se_hold_dev(se, dev, fn)) != DOCA_SUCCESS)
		return r;
	if (pub)
		se->pub_locations++;
	else
		se->sub_locations++;
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_add_publisher_location_cpu(struct doca_sync_event *event,
                                                        struct doca_dev *dev)
{
	ODMA_CHECK_ARG(dev != NULL, "%s: dev must not be NULL", __func__);
	return se_add_location(event, dev, true, __func__);
}

doca_error_t doca_sync_event_add_subscriber_location_cpu(struct doca_sync_event *event,
                                                         struct doca_dev *dev)
{
	ODMA_CHECK_ARG(dev != NULL, "%s: dev must not be NULL", __func__);
	return se_add_location(event, dev, false, __func__);
}

doca_error_t se_add_location_net(struct doca_sync_event *se, const char *fn)
{
	return se_add_location(se, NULL, true, fn);
}

doca_error_t doca_sync_event_add_publisher_location_remote_pci(struct doca_sync_event *event)
{
	return se_add_location(event, NULL, true, __func__);
}

doca_error_t doca_sync_event_add_subscriber_location_remote_pci(struct doca_sync_event *event)
{
	return se_add_location(event, NULL, false, __func__);
}

/* The locations and handles odma does not emulate (@args_ok: no argument is NULL). */
static doca_error_t se_unsupported(const char *fn, const char *what, bool args_ok)
{
	ODMA_CHECK_ARG(args_ok, "%s: arguments must not be NULL", fn);
	ODMA_ERR("%s: odma emulates no %s; odma runs sync events on the CPU only (host and DPU "
	         "Arm, across PCIe): use CPU or remote-PCI locations",
	         fn, what);
	return DOCA_ERROR_NOT_SUPPORTED;
}

/* Defines the stub @fn(event, where) of a DPA or GPU location, or @fn(event, where, handle). */
#define SE_UNSUPPORTED(fn, what, t, u)                                                             \
	doca_error_t fn(t event, u where)                                                          \
	{                                                                                          \
		return se_unsupported(__func__, what, event != NULL && where != NULL);             \
	}
#define SE_UNSUPPORTED_OUT(fn, what, t, u, v)                                                      \
	doca_error_t fn(t event, u where, v handle)                                                \
	{                                                                                          \
		return se_unsupported(__func__, what,                                              \
		                      event != NULL && where != NULL && handle != NULL);           \
	}

SE_UNSUPPORTED(doca_sync_event_add_publisher_location_dpa, "DPA", struct doca_sync_event *,
               struct doca_dpa *)
SE_UNSUPPORTED(doca_sync_event_add_publisher_location_gpu, "GPU", struct doca_sync_event *,
               struct doca_gpu *)
SE_UNSUPPORTED(doca_sync_event_add_subscriber_location_dpa, "DPA", struct doca_sync_event *,
               struct doca_dpa *)
SE_UNSUPPORTED(doca_sync_event_add_subscriber_location_gpu, "GPU", struct doca_sync_event *,
               struct doca_gpu *)
SE_UNSUPPORTED_OUT(doca_sync_event_get_dpa_handle, "DPA", struct doca_sync_event *,
                   struct doca_dpa *, doca_dpa_dev_sync_event_t *)
SE_UNSUPPORTED_OUT(doca_sync_event_get_gpu_handle, "GPU", struct doca_sync_event *,
                   struct doca_gpu *, doca_gpu_dev_sync_event_t **)
SE_UNSUPPORTED_OUT(doca_sync_event_remote_net_get_dpa_handle, "DPA",
                   struct doca_sync_event_remote_net *, struct doca_dpa *,
                   doca_dpa_dev_sync_event_remote_net_t *)
SE_UNSUPPORTED_OUT(doca_sync_event_remote_net_get_gpu_handle, "GPU",
                   struct doca_sync_event_remote_net *, struct doca_gpu *,
                   doca_gpu_dev_sync_event_remote_net_t *)

doca_error_t doca_sync_event_set_addr(struct doca_sync_event *event, uint64_t *addr)
{
	doca_error_t r;

	ODMA_CHECK_ARG(event != NULL && addr != NULL, "%s: event and addr must not be NULL",
	               __func__);
	ODMA_CHECK_ARG(((uintptr_t)addr & 7) == 0, "%s: addr %p is not 8-byte aligned", __func__,
	               (void *)addr);
	r = se_check_configurable(event, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	event->user_addr = addr;
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_set_doca_buf(struct doca_sync_event *event, struct doca_buf *buf)
{
	const uint32_t need = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ |
	                      DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC;
	const char *why = NULL;
	doca_error_t r;

	ODMA_CHECK_ARG(event != NULL && buf != NULL, "%s: event and buf must not be NULL",
	               __func__);
	r = se_check_configurable(event, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	if (!buf->in_use) { /* its mmap is gone: nothing below may look at it */
		ODMA_ERR("%s: buf %p was already released to its inventory (refcount 0); fix: "
		         "pass a buf you hold",
		         __func__, (void *)buf);
		return DOCA_ERROR_BAD_STATE;
	}
	if (buf->next != NULL || buf->list_head != buf)
		why = "is (part of) a buf list";
	else if (buf->data_len != sizeof(uint64_t))
		why = "does not hold exactly 8 bytes of data (doca_buf_set_data)";
	else if (((uintptr_t)buf->data & 7) != 0)
		why = "has data that is not 8-byte aligned";
	else if (buf->mmap->from_export)
		why = "lies in an mmap created from an export (the value must be local memory)";
	else if ((buf->mmap->perms & need) != need)
		why = "lies in an mmap without LOCAL_READ_WRITE, RDMA_READ, RDMA_WRITE and "
		      "RDMA_ATOMIC access (doca_mmap_set_permissions)";
	if (why != NULL) {
		char names[ODMA_PERM_NAMES_LEN];

		ODMA_ERR("%s: buf %p %s (mmap %p permissions %s)", __func__, (void *)buf, why,
		         (void *)buf->mmap,
		         odma_perm_names(buf->mmap->perms, names, sizeof(names)));
		return DOCA_ERROR_NOT_PERMITTED;
	}
	event->user_addr = (uint64_t *)(void *)buf->data;
	return DOCA_SUCCESS;
}

ODMA_CTX_AS_CTX(sync_event, ctx)

/* ------------------------------------------------------------------------------------ */
/* Start, stop, destroy                                                                    */
/* ------------------------------------------------------------------------------------ */

/* What starting does in either form: a page of our own (exporter/local), a zero value. */
static doca_error_t se_activate(struct doca_sync_event *se)
{
	doca_error_t r;

	if (se->from_export)
		return DOCA_SUCCESS; /* the mapping exists from create_from_export on */
	r = se_page_create(se);
	if (r != DOCA_SUCCESS)
		return r;
	if (se->user_addr == NULL)
		__atomic_store_n(se->value, 0, __ATOMIC_SEQ_CST);
	if (se->pub_locations == 0 || se->sub_locations == 0)
		ODMA_DBG("sync event %p starts without a publisher or subscriber location; odma "
		         "treats the missing ones as CPU",
		         (void *)se);
	return DOCA_SUCCESS;
}

static void se_deactivate(struct doca_sync_event *se)
{
	if (!se->from_export) {
		se_rn_revoke(se);
		se_page_revoke(se);
	}
}

doca_error_t doca_sync_event_start(struct doca_sync_event *event)
{
	doca_error_t r;

	ODMA_CHECK_ARG(event != NULL, "event must not be NULL");
	if (event->started) {
		ODMA_ERR("sync event %p is already started", (void *)event);
		return DOCA_ERROR_BAD_STATE;
	}
	if (event->ctx.pe != NULL || event->ctx.state != DOCA_CTX_STATE_IDLE) {
		ODMA_ERR("sync event %p is used as a context (connected to PE %p); start it with "
		         "doca_ctx_start, not doca_sync_event_start",
		         (void *)event, (void *)event->ctx.pe);
		return DOCA_ERROR_BAD_STATE;
	}
	r = se_activate(event);
	if (r != DOCA_SUCCESS)
		return r;
	event->started = true;
	ODMA_DBG("sync event %p started (stand-alone)", (void *)event);
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_stop(struct doca_sync_event *event)
{
	ODMA_CHECK_ARG(event != NULL, "event must not be NULL");
	if (event->ctx.state != DOCA_CTX_STATE_IDLE) {
		ODMA_ERR("sync event %p runs as a context; stop it with doca_ctx_stop",
		         (void *)event);
		return DOCA_ERROR_BAD_STATE;
	}
	if (!event->started)
		return DOCA_SUCCESS;
	se_deactivate(event);
	event->started = false;
	ODMA_DBG("sync event %p stopped", (void *)event);
	return DOCA_SUCCESS;
}

/* Frees a list of the export blobs an event handed out (at its destroy). */
static void se_exports_free(struct se_export *e)
{
	while (e != NULL) {
		struct se_export *next = e->next;

		free(e);
		e = next;
	}
}

doca_error_t doca_sync_event_destroy(struct doca_sync_event *event)
{
	doca_error_t r;

	ODMA_CHECK_ARG(event != NULL, "event must not be NULL");
	r = doca_priv_ctx_destroy(&event->ctx); /* refuses a context that is not IDLE */
	if (r != DOCA_SUCCESS)
		return r;
	if (event->started)
		se_deactivate(event);
	if (event->from_export)
		event->ops->release(event);
	for (uint32_t i = 0; i < event->num_devs; i++)
		odma_dev_release(event->devs[i]);
	free(event->devs);
	se_exports_free(event->exports);
	se_exports_free(event->rn_exports);
	ODMA_DBG("sync event %p destroyed", (void *)event);
	free(event);
	return DOCA_SUCCESS;
}

doca_error_t se_ctx_activate(struct doca_sync_event *se)
{
	if (se->started) {
		ODMA_ERR("sync event %p was started with doca_sync_event_start; "
		         "it cannot also run as a context",
		         (void *)se);
		return DOCA_ERROR_BAD_STATE;
	}
	return se_activate(se);
}

void se_ctx_deactivate(struct doca_sync_event *se)
{
	se_deactivate(se);
}

/* ------------------------------------------------------------------------------------ */
/* Export and import                                                                       */
/* ------------------------------------------------------------------------------------ */

doca_error_t se_export_allowed(const struct doca_sync_event *se, const char *fn)
{
	if (se->from_export) {
		ODMA_ERR("%s: sync event %p was created from an export; only its exporter "
		         "exports the event",
		         fn, (void *)se);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (!se_active(se)) {
		ODMA_ERR("%s: sync event %p is not started; start it (doca_sync_event_start or "
		         "doca_ctx_start) before exporting",
		         fn, (void *)se);
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

/* Whether event may be exported through the device described by info (fn: the caller). */
static doca_error_t se_export_check(const struct doca_sync_event *event,
                                    const struct doca_devinfo *info, const char *fn)
{
	doca_error_t r = se_export_allowed(event, fn);

	if (r != DOCA_SUCCESS)
		return r;
	if (!info->caps.export_pci) {
		ODMA_ERR("%s: device %s cannot export across PCIe (see "
		         "doca_sync_event_cap_is_export_to_remote_pci_supported)",
		         fn, info->pci_addr);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (event->user_addr != NULL) {
		ODMA_ERR("%s: sync event %p keeps its value in program memory "
		         "(set_addr/set_doca_buf), which the other side cannot map; odma exports "
		         "only library-held values",
		         fn, (void *)event);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	return DOCA_SUCCESS;
}

/* Fills @b with what a version-1 export of @event through the device @info says. */
static void se_export_describe(const struct doca_sync_event *event, const struct doca_devinfo *info,
                               const struct odma_system *sys, struct odma_se_blob *b)
{
	memset(b, 0, sizeof(*b));
	b->side = (uint8_t)info->side;
	/* our private copies: the page itself is writable by every importer */
	b->pid = (uint32_t)getpid();
	b->fd = (uint32_t)event->memfd;
	b->start_time = event->owner_start;
	b->system_id = sys->id;
	memcpy(b->key, event->key, sizeof(b->key));
	memcpy(b->pci, info->pci_addr, strnlen(info->pci_addr, ODMA_SE_BLOB_PCI_LEN - 1));
}

/*
 * An export of @event that @n repeats (the same page and device): a plain one, or with @net a
 * network one whose region is still live. A program exporting in a loop gets the bytes it was
 * handed before, not a new blob (and network region) kept until the destroy each time.
 */
static struct se_export *se_export_same(struct doca_sync_event *event, const struct se_export *n,
                                        bool net)
{
	struct se_export *e = __atomic_load_n(&event->exports, __ATOMIC_SEQ_CST);

	for (; e != NULL; e = e->next)
		if (memcmp(e->base, n->base, sizeof(n->base)) == 0 &&
		    (net ? e->region != NULL : e->len == ODMA_SE_BLOB_LEN))
			return e;
	return NULL;
}

/* Into *@ep: a new export of @event (described by @b), kept until the destroy, or an equal one. */
static doca_error_t se_export_make(struct doca_sync_event *event, struct odma_se_blob *b,
                                   struct se_export **ep)
{
	struct se_export *e = calloc(1, sizeof(*e)), *old;
	doca_error_t r;

	if (e == NULL)
		return DOCA_ERROR_NO_MEMORY;
	odma_se_blob_encode(b, e->base);
	old = se_export_same(event, e, odma_tp_net_wanted());
	if (old == NULL) {
		r = se_net_export(event, b, e); /* version 2 with a network reach, or version 1 */
		if (r != DOCA_SUCCESS) {
			free(e);
			return r;
		}
		if (e->region == NULL) /* a network export without a reach is a plain one */
			old = se_export_same(event, e, false);
	}
	if (old != NULL) {
		free(e);
		*ep = old;
		return DOCA_SUCCESS;
	}
	se_allow_peers();
	/* threads exporting the event at once each push their export whole: none is lost */
	e->next = __atomic_load_n(&event->exports, __ATOMIC_SEQ_CST);
	while (!__atomic_compare_exchange_n(&event->exports, &e->next, e, false, __ATOMIC_SEQ_CST,
	                                    __ATOMIC_SEQ_CST))
		;
	/*
	 * Whoever sleeps on a wait since before (a thread, a PE with waiting tasks) looks again:
	 * the page is shared now, so from here on it does not count on being woken.
	 */
	se_notify(event);
	*ep = e;
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_export_to_remote_pci(struct doca_sync_event *event,
                                                  struct doca_dev *dev, const uint8_t **data,
                                                  size_t *sz)
{
	const struct odma_system *sys = odma_system_get();
	const struct doca_devinfo *info;
	struct odma_se_blob b;
	struct se_export *e;
	doca_error_t r;

	ODMA_CHECK_ARG(event != NULL && dev != NULL && data != NULL && sz != NULL,
	               "%s: event, dev, data and sz must not be NULL", __func__);
	info = se_open_dev(dev, __func__);
	if (info == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	r = se_export_check(event, info, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	if (sys == NULL) { /* as create_from_export: no system profile to name in the blob */
		ODMA_ERR("%s: no emulated system: %s", __func__, odma_system_error());
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	se_export_describe(event, info, sys, &b);
	r = se_export_make(event, &b, &e);
	if (r != DOCA_SUCCESS)
		return r;
	*data = e->blob;
	*sz = e->len;
	ODMA_DBG("sync event %p exported through %s (%zu bytes)", (void *)event, info->pci_addr,
	         e->len);
	return DOCA_SUCCESS;
}

/* Whether the parsed export b may be imported through the device described by info. */
static doca_error_t se_import_check(const struct odma_system *sys, const struct doca_devinfo *info,
                                    const struct odma_se_blob *b, const char *fn)
{
	if (sys == NULL || sys->id != b->system_id) {
		ODMA_ERR("%s: the export comes from another system profile; run both sides "
		         "with the same ODMA_SYSTEM",
		         fn);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if ((uint8_t)info->side == b->side) {
		ODMA_ERR("%s: device %s is on the same side as the exporting device %s; "
		         "import through a device of the other side (host <-> DPU)",
		         fn, info->pci_addr, b->pci);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (!info->caps.from_export_pci) {
		ODMA_ERR("%s: device %s cannot create a sync event from an export (see "
		         "doca_sync_event_cap_is_create_from_export_supported)",
		         fn, info->pci_addr);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	return DOCA_SUCCESS;
}

/* The rows an import may run on, the first that takes the export wins (the last takes all). */
static const struct se_ops *const se_import_rows[] = { &se_net_ops, &se_local_ops };
#define SE_IMPORT_ROWS (sizeof(se_import_rows) / sizeof(se_import_rows[0]))

doca_error_t doca_sync_event_create_from_export(struct doca_dev *dev, const uint8_t *data,
                                                size_t sz, struct doca_sync_event **event)
{
	const struct odma_system *sys = odma_system_get();
	const struct doca_devinfo *info;
	struct doca_sync_event *se;
	struct odma_se_blob b;
	const char *why = NULL;
	bool taken = false;
	doca_error_t r;

	ODMA_CHECK_ARG(dev != NULL && data != NULL && event != NULL,
	               "%s: dev, data and event must not be NULL", __func__);
	info = se_open_dev(dev, __func__);
	if (info == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (odma_se_blob_parse(data, sz, &b, &why) != DOCA_SUCCESS) {
		ODMA_ERR("%s: %s", __func__, why);
		return DOCA_ERROR_INVALID_VALUE;
	}
	r = se_import_check(sys, info, &b, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	r = doca_sync_event_create(&se);
	if (r != DOCA_SUCCESS)
		return r;
	se->from_export = true;
	for (size_t i = 0; r == DOCA_SUCCESS && !taken && i < SE_IMPORT_ROWS; i++) {
		r = se_import_rows[i]->import(se, &b, data, sz, &taken, &why);
		if (taken)
			se->ops = se_import_rows[i];
	}
	if (r == DOCA_SUCCESS)
		r = se_hold_dev(se, dev, __func__);
	if (r != DOCA_SUCCESS) {
		if (why != NULL)
			ODMA_ERR("%s: %s", __func__, why);
		doca_sync_event_destroy(se);
		return r;
	}
	*event = se;
	ODMA_DBG("sync event %p created from the export of pid %u (%s, %s)", (void *)se, b.pid,
	         b.pci, se->ops->name);
	return DOCA_SUCCESS;
}

/* ------------------------------------------------------------------------------------ */
/* Capabilities                                                                            */
/* ------------------------------------------------------------------------------------ */

ODMA_CAP_SUPPORTED(doca_sync_event_cap_is_export_to_remote_pci_supported, export_pci)

ODMA_CAP_SUPPORTED(doca_sync_event_cap_is_create_from_export_supported, from_export_pci)

/* The capabilities that no emulated device has. */
#define SE_CAP_NEVER(name)                                                                         \
	doca_error_t name(const struct doca_devinfo *devinfo)                                      \
	{                                                                                          \
		ODMA_CHECK_ARG(devinfo != NULL, "devinfo must not be NULL");                       \
		return DOCA_ERROR_NOT_SUPPORTED;                                                   \
	}

SE_CAP_NEVER(doca_sync_event_cap_is_export_to_dpa_supported)
SE_CAP_NEVER(doca_sync_event_cap_is_export_to_gpu_supported)
SE_CAP_NEVER(doca_sync_event_cap_remote_net_is_export_to_dpa_supported)
SE_CAP_NEVER(doca_sync_event_cap_remote_net_is_export_to_gpu_supported)

/* ------------------------------------------------------------------------------------ */
/* Synchronous data path                                                                   */
/* ------------------------------------------------------------------------------------ */

static doca_error_t se_check_active(const struct doca_sync_event *se, const char *fn)
{
	if (se_active(se))
		return DOCA_SUCCESS;
	ODMA_ERR("%s: sync event %p is not started (doca_sync_event_start, or "
	         "doca_ctx_start and RUNNING)",
	         fn, (const void *)se);
	return DOCA_ERROR_BAD_STATE;
}

doca_error_t doca_sync_event_get(struct doca_sync_event *event, uint64_t *value)
{
	doca_error_t r;

	ODMA_CHECK_ARG(event != NULL && value != NULL, "%s: event and value must not be NULL",
	               __func__);
	r = se_check_active(event, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	return se_do(event, ODMA_TP_AT_READ, 0, value);
}

bool se_peer_gone(struct doca_sync_event *se, bool now)
{
	return se->from_export && se->ops->gone(se, now);
}

void se_mark_gone(struct doca_sync_event *se, const char *what)
{
	if (__atomic_exchange_n(&se->peer_gone, true, __ATOMIC_SEQ_CST))
		return;
	ODMA_WARN("sync event %p: the exporter (pid %d) %s; updates and waits on this handle now "
	          "fail with CONNECTION_ABORTED",
	          (void *)se, (int)se->peer_pid, what);
}

doca_error_t se_do(struct doca_sync_event *se, enum odma_tp_atomic_op op, uint64_t operand,
                   uint64_t *old)
{
	if (op != ODMA_TP_AT_READ && se_peer_gone(se, false))
		return DOCA_ERROR_CONNECTION_ABORTED;
	return se->ops->access(se, op, operand, old);
}

doca_error_t se_do_set(struct doca_sync_event *se, uint64_t v)
{
	uint64_t old;

	return se_do(se, ODMA_TP_AT_SWAP, v, &old);
}

doca_error_t se_do_add(struct doca_sync_event *se, uint64_t v, uint64_t *fetched)
{
	return se_do(se, ODMA_TP_AT_FADD, v, fetched);
}

doca_error_t doca_sync_event_update_set(struct doca_sync_event *event, uint64_t value)
{
	doca_error_t r;

	ODMA_CHECK_ARG(event != NULL, "%s: event must not be NULL", __func__);
	r = se_check_active(event, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	return se_do_set(event, value);
}

doca_error_t doca_sync_event_update_add(struct doca_sync_event *event, uint64_t value,
                                        uint64_t *fetched)
{
	doca_error_t r;

	ODMA_CHECK_ARG(event != NULL && fetched != NULL, "%s: event and fetched must not be NULL",
	               __func__);
	r = se_check_active(event, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	return se_do_add(event, value, fetched);
}

/* Whether some value of the event could ever meet the condition. */
static bool se_cond_possible(enum se_task_type type, uint64_t val, uint64_t mask)
{
	switch (type) {
	case SE_T_WAIT_EQ:
		return (val & ~mask) == 0;
	case SE_T_WAIT_NEQ:
		return mask != 0 || val != 0;
	default: /* greater than */
		return val < mask;
	}
}

static const char *se_cond_name(enum se_task_type type)
{
	return type == SE_T_WAIT_EQ ? "==" : type == SE_T_WAIT_NEQ ? "!=" : ">";
}

/* A blocking wait (how it waits is the row's). */
static doca_error_t se_wait(struct doca_sync_event *se, enum se_task_type type, uint64_t val,
                            uint64_t mask, bool yield, const char *fn)
{
	doca_error_t r;

	ODMA_CHECK_ARG(se != NULL, "%s: event must not be NULL", fn);
	r = se_check_active(se, fn);
	if (r != DOCA_SUCCESS)
		return r;
	if (!se_cond_possible(type, val, mask)) {
		ODMA_ERR("%s: (value & 0x%016llx) %s 0x%016llx can never hold; "
		         "it would block forever",
		         fn, (unsigned long long)mask, se_cond_name(type), (unsigned long long)val);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return se->ops->wait(se, type, val, mask, yield);
}

doca_error_t doca_sync_event_wait_gt(struct doca_sync_event *event, uint64_t value, uint64_t mask)
{
	return se_wait(event, SE_T_WAIT_GT, value, mask, false, __func__);
}

doca_error_t doca_sync_event_wait_gt_yield(struct doca_sync_event *event, uint64_t value,
                                           uint64_t mask)
{
	return se_wait(event, SE_T_WAIT_GT, value, mask, true, __func__);
}

doca_error_t doca_sync_event_wait_eq(struct doca_sync_event *event, uint64_t value, uint64_t mask)
{
	return se_wait(event, SE_T_WAIT_EQ, value, mask, false, __func__);
}

doca_error_t doca_sync_event_wait_eq_yield(struct doca_sync_event *event, uint64_t value,
                                           uint64_t mask)
{
	return se_wait(event, SE_T_WAIT_EQ, value, mask, true, __func__);
}

doca_error_t doca_sync_event_wait_neq(struct doca_sync_event *event, uint64_t value, uint64_t mask)
{
	return se_wait(event, SE_T_WAIT_NEQ, value, mask, false, __func__);
}

doca_error_t doca_sync_event_wait_neq_yield(struct doca_sync_event *event, uint64_t value,
                                            uint64_t mask)
{
	return se_wait(event, SE_T_WAIT_NEQ, value, mask, true, __func__);
}
