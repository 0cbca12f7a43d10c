/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The UCX row of the transport table: what needs no UCX (its name, which exporters it
 * reaches, its status line) and the loading of the UCX transport itself, a module of its own
 * (libodma_ucx.so: ucx*.c, tp_module.h), on first need: an export or import that wants a
 * network reach, an endpoint (DOCA RDMA, Comch across machines), doca_caps. A program that
 * only moves bytes in its own kernel never loads it, nor UCX.
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <doca_version.h>

#include "core/config/config.h"
#include "core/log/log.h"
#include "core/transport/tp_int.h"
#include "core/transport/tp_module.h"

#ifdef ODMA_HAVE_UCX
ODMA_LOG_REGISTER(ODMA_TRANSPORT)

#ifndef ODMA_LIBDIR
#define ODMA_LIBDIR "/usr/local/lib"
#endif

static const struct odma_tp_host ucx_host = {
	.size = sizeof(struct odma_tp_host),
	.version = DOCA_VERSION_STRING,
	.log_register = doca_priv_log_register_sdk_source,
	.log = doca_log,
	.log_bucket = doca_log_rate_bucket_register,
	.log_rate = doca_log_rate_limit,
	.error_name = doca_error_get_name,
	.config_string = odma_config_string,
	.region_check = odma_tp_region_check,
	.region_atomic = odma_tp_region_atomic,
	.region_issued = odma_tp_region_issued,
	.safe_copy = odma_tp_safe_copy,
	.timeout_ms = odma_tp_timeout_ms,
	.fabric_ip = odma_tp_fabric_ip,
	.iface_for = odma_tp_iface_for,
	.wake_hold = odma_tp_wake_hold,
	.wake_flush = odma_tp_wake_flush,
	.fabric_key = doca_priv_fabric_key,
	.fabric_proof = doca_priv_fabric_proof,
	.thread_start = doca_priv_thread_start,
};

static struct {
	pthread_once_t once;
	const struct odma_tp_ops *ops;
	char why[512];
} ucx_mod = { .once = PTHREAD_ONCE_INIT };

/*
 * The UCX transport linked into the program itself (a white-box test of its internals, which
 * builds ucx*.c in): used instead of the module. NULL in odma's libraries.
 */
extern const struct odma_tp_ops odma_ucx_ops __attribute__((weak));

/*
 * The module through the search list of the object this code is in (its runpath, $ORIGIN
 * expanded: beside libdoca_common, wherever the tree was installed or copied; then
 * LD_LIBRARY_PATH and the system's directories), each directory tried by name. dlopen of a
 * bare name does the same only when it sees its true caller: under a sanitizer, the
 * interceptor's library calls it, and its runpath is not ours.
 */
static void *ucx_module_search(void)
{
	Dl_info di;
	struct link_map *self = NULL;
	Dl_serinfo size, *si;
	void *h = NULL;

	if (dladdr1((void *)ucx_module_search, &di, (void **)&self, RTLD_DL_LINKMAP) == 0 ||
	    self == NULL || dlinfo(self, RTLD_DI_SERINFOSIZE, &size) != 0)
		return NULL;
	si = malloc(size.dls_size);
	if (si == NULL)
		return NULL;
	*si = size;
	if (dlinfo(self, RTLD_DI_SERINFO, si) == 0)
		for (unsigned int i = 0; i < si->dls_cnt && h == NULL; i++) {
			char path[4096];

			if (snprintf(path, sizeof(path), "%s/%s", si->dls_serpath[i].dls_name,
			             ODMA_UCX_MODULE) < (int)sizeof(path))
				h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		}
	free(si);
	return h;
}

/* As the dynamic loader would find it for libdoca_common, then in the configured libdir. */
static void *ucx_module_open(void)
{
	void *h = dlopen(ODMA_UCX_MODULE, RTLD_NOW | RTLD_LOCAL);
	char err[200];

	if (h != NULL)
		return h;
	snprintf(err, sizeof(err), "%.199s", dlerror());
	h = ucx_module_search();
	if (h == NULL)
		h = dlopen(ODMA_LIBDIR "/" ODMA_UCX_MODULE, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL)
		snprintf(
		        ucx_mod.why, sizeof(ucx_mod.why),
		        "not installed: the UCX module %s cannot be loaded (%s); hosts and DPUs in "
		        "different namespaces or machines cannot reach each other (install odma's "
		        "%s beside libdoca_common, and UCX)",
		        ODMA_UCX_MODULE, err, ODMA_UCX_MODULE);
	return h;
}

static void ucx_module_load(void)
{
	void *h;
	odma_tp_module_init_fn *init;
	const char *why = NULL;

	if (&odma_ucx_ops != NULL) {
		ucx_mod.ops = &odma_ucx_ops;
		return;
	}
	h = ucx_module_open();
	if (h == NULL)
		return;
	*(void **)&init = dlsym(h, ODMA_TP_MODULE_ENTRY);
	ucx_mod.ops = init != NULL ? init(&ucx_host, &why) : NULL;
	if (ucx_mod.ops == NULL) {
		snprintf(ucx_mod.why, sizeof(ucx_mod.why), "not installed: %.400s",
		         why != NULL ? why : "the UCX module has no entry point");
		dlclose(h);
		return;
	}
	ODMA_DBG("UCX transport module %s loaded", ODMA_UCX_MODULE);
}
#endif

static const struct odma_tp_ops *ucx_row_load(const char **why)
{
#ifdef ODMA_HAVE_UCX
	pthread_once(&ucx_mod.once, ucx_module_load);
	if (ucx_mod.ops == NULL)
		*why = ucx_mod.why;
	return ucx_mod.ops;
#else
	*why = "not built: odma was built without UCX (libucx-dev); hosts and DPUs in different "
	       "namespaces or machines cannot reach each other (install libucx-dev and rebuild)";
	return NULL;
#endif
}

static bool ucx_row_reachable(const struct odma_tp_reach *r, const char **why)
{
	if (r->net_len == 0) {
		*why = "its descriptor carries no network address (run the exporter with "
		       "ODMA_FABRIC set, the same on both sides)";
		return false;
	}
	return ucx_row_load(why) != NULL;
}

static const char *ucx_row_status(void)
{
	const char *why = NULL;
	const struct odma_tp_ops *ops = ucx_row_load(&why);

	return ops != NULL ? ops->status() : why;
}

const struct odma_tp_ops odma_tp_row_ucx = {
	.name = "ucx",
	.kind = ODMA_TP_UCX,
	.network = true,
	.reachable = ucx_row_reachable,
	.status = ucx_row_status,
	.load = ucx_row_load,
};
