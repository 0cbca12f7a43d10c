/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 *
 * doca_caps / odma-caps: the devices this process can see and what each can do, read only
 * through the public API (so it prints the same for odma's emulated devices as a program
 * would find by asking). Output is text, or JSON with --json. See docs/man/doca_caps.1.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include <doca_argp.h>
#include <doca_clock.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_mmap_advise.h>
#include <doca_compress.h>
#include <doca_rdma.h>
#include <doca_erasure_coding.h>
#include <doca_sync_event.h>
#include <doca_version.h>

#include "argp/argp_priv.h"
#include "caps_doc.h"
#include "odma_help.h"
#include "odma_pci.h"
#include "odma_libraries.h"

DOCA_LOG_REGISTER(ODMA_CAPS);

struct caps_cfg {
	bool list_devs, list_reps, list_libs, json;
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE]; /* empty: every device */
	char lib[32];                         /* empty: every library */
};

/* The libraries odma builds: the library table of src/meson.build (odma_libraries.h). */
#define CAPS_LIB_ROW(name, module, summary) { name, summary },
static const char *const caps_libs[][2] = { ODMA_LIBRARIES(CAPS_LIB_ROW) };
#undef CAPS_LIB_ROW
#define NB_LIBS (sizeof(caps_libs) / sizeof(caps_libs[0]))

static doca_error_t flag_cb(void *param, void *config, size_t offset)
{
	*(bool *)((char *)config + offset) = *(bool *)param;
	return DOCA_SUCCESS;
}

static doca_error_t list_devs_cb(void *p, void *c)
{
	return flag_cb(p, c, offsetof(struct caps_cfg, list_devs));
}
static doca_error_t list_reps_cb(void *p, void *c)
{
	return flag_cb(p, c, offsetof(struct caps_cfg, list_reps));
}
static doca_error_t list_libs_cb(void *p, void *c)
{
	return flag_cb(p, c, offsetof(struct caps_cfg, list_libs));
}
static doca_error_t json_cb(void *p, void *c)
{
	return flag_cb(p, c, offsetof(struct caps_cfg, json));
}

static doca_error_t pci_cb(void *param, void *config)
{
	struct caps_cfg *cfg = config;

	if (strlen(param) >= sizeof(cfg->pci) || !odma_pci_text_ok(param)) {
		fprintf(stderr,
		        "doca_caps: --pci-addr '%s' is not a PCI address (" ODMA_PCI_SHAPES ")\n",
		        (char *)param);
		return DOCA_ERROR_INVALID_VALUE;
	}
	strcpy(cfg->pci, param);
	return DOCA_SUCCESS;
}

/* Whether @a and @b are the same name, a '-' of @a standing for a '_' of @b. */
static bool lib_name_is(const char *a, const char *b)
{
	for (; *a != '\0' && (*a == *b || (*a == '-' && *b == '_')); a++, b++)
		;
	return *a == '\0' && *b == '\0';
}

/*
 * Accepts "dma", "doca_dma", "doca-dma" (and the same for every library of the table: the
 * pkg-config name doca-erasure-coding too).
 */
static doca_error_t lib_cb(void *param, void *config)
{
	struct caps_cfg *cfg = config;
	const char *name = param;
	size_t i;

	if (strncmp(name, "doca_", 5) == 0 || strncmp(name, "doca-", 5) == 0)
		name += 5;
	for (i = 0; i < NB_LIBS; i++)
		if (lib_name_is(name, caps_libs[i][0] + 5)) {
			strcpy(cfg->lib, caps_libs[i][0]);
			return DOCA_SUCCESS;
		}
	fprintf(stderr, "doca_caps: --lib '%s' is not a library (", (char *)param);
	for (i = 0; i < NB_LIBS; i++)
		fprintf(stderr, "%s%s", i ? ", " : "", caps_libs[i][0]);
	fprintf(stderr, ")\n");
	return DOCA_ERROR_INVALID_VALUE;
}

static doca_error_t version_cb(void *param, void *config)
{
	(void)param;
	(void)config;
	printf("doca_caps (odma) %s, built against DOCA API %s\n", doca_version_runtime(),
	       doca_version());
	doca_argp_destroy();
	exit(EXIT_SUCCESS);
}

static doca_error_t add_param(const char *s, const char *l, const char *args, const char *descr,
                              enum doca_argp_type type, doca_argp_param_cb_t cb)
{
	struct doca_argp_param *p = NULL;
	doca_error_t err = doca_argp_param_create(&p);

	if (err != DOCA_SUCCESS)
		return err;
	if (s != NULL)
		doca_argp_param_set_short_name(p, s);
	doca_argp_param_set_long_name(p, l);
	if (args != NULL)
		doca_argp_param_set_arguments(p, args);
	doca_argp_param_set_description(p, descr);
	doca_argp_param_set_callback(p, cb);
	doca_argp_param_set_type(p, type);
	return doca_argp_register_param(p);
}

static doca_error_t register_params(void)
{
	static char lib_descr[256];
	size_t used, i;
	doca_error_t err;

	/* --json prints JSON (DOCA's -j/--json FILE is not offered); the list of --lib comes
	 * from the library table */
	doca_priv_argp_own_json();
	err = doca_priv_argp_set_doc(caps_synopsis, caps_description, caps_epilogue);
	used = (size_t)snprintf(lib_descr, sizeof(lib_descr), "Only this library's capabilities (");
	for (i = 0; i < NB_LIBS && used < sizeof(lib_descr); i++)
		used += (size_t)snprintf(lib_descr + used, sizeof(lib_descr) - used, "%s%s",
		                         i ? ", " : "", caps_libs[i][0] + 5);
	if (used < sizeof(lib_descr))
		snprintf(lib_descr + used, sizeof(lib_descr) - used,
		         "; argp has none); with --list-libs, only that library");
	if (err == DOCA_SUCCESS)
		err = add_param(NULL, "list-devs", NULL, "List the devices (identity only)",
		                DOCA_ARGP_TYPE_BOOLEAN, list_devs_cb);
	if (err == DOCA_SUCCESS)
		err = add_param(NULL, "list-rep-devs", NULL,
		                "List the representors of each device that has them",
		                DOCA_ARGP_TYPE_BOOLEAN, list_reps_cb);
	if (err == DOCA_SUCCESS)
		err = add_param(NULL, "list-libs", NULL, "List the DOCA libraries odma provides",
		                DOCA_ARGP_TYPE_BOOLEAN, list_libs_cb);
	if (err == DOCA_SUCCESS)
		err = add_param("p", "pci-addr", "<PCI-ADDRESS>", "Only the device at this address",
		                DOCA_ARGP_TYPE_STRING, pci_cb);
	if (err == DOCA_SUCCESS)
		err = add_param(NULL, "lib", "<NAME>", lib_descr, DOCA_ARGP_TYPE_STRING, lib_cb);
	if (err == DOCA_SUCCESS)
		err = add_param(NULL, "json", NULL, "Print one JSON object instead of text",
		                DOCA_ARGP_TYPE_BOOLEAN, json_cb);
	if (err == DOCA_SUCCESS)
		err = doca_argp_register_version_callback(version_cb);
	return err;
}

/* ------------------------------------------------------------------ queries */

static const char *func_name(enum doca_pci_func_type t)
{
	return t == DOCA_PCI_FUNC_TYPE_PF ? "pf" : t == DOCA_PCI_FUNC_TYPE_VF ? "vf" : "sf";
}

/* DOCA has no "side" query; representors are listed only on the DPU side, so use that. */
static bool is_dpu_side(const struct doca_devinfo *info)
{
	uint8_t ok = 0;

	return doca_devinfo_rep_cap_is_filter_all_supported(info, &ok) == DOCA_SUCCESS && ok;
}

static json_object *dev_identity(struct doca_devinfo *info)
{
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE] = "", ib[DOCA_DEVINFO_IBDEV_NAME_SIZE] = "";
	char iface[DOCA_DEVINFO_IFACE_NAME_SIZE] = "";
	enum doca_pci_func_type ft = DOCA_PCI_FUNC_TYPE_PF;
	json_object *o = json_object_new_object();

	doca_devinfo_get_pci_addr_str(info, pci);
	doca_devinfo_get_ibdev_name(info, ib, sizeof(ib));
	doca_devinfo_get_iface_name(info, iface, sizeof(iface));
	doca_devinfo_get_pci_func_type(info, &ft);
	json_object_object_add(o, "pci_addr", json_object_new_string(pci));
	json_object_object_add(o, "ibdev_name", json_object_new_string(ib));
	json_object_object_add(o, "iface_name", json_object_new_string(iface));
	json_object_object_add(o, "side",
	                       json_object_new_string(is_dpu_side(info) ? "dpu" : "host"));
	json_object_object_add(o, "pci_func_type", json_object_new_string(func_name(ft)));
	return o;
}

/* max_num_tasks is a property of a DMA instance: ask a temporary one. */
static doca_error_t max_num_tasks(struct doca_devinfo *info, uint32_t *max)
{
	struct doca_dev *dev = NULL;
	struct doca_dma *dma = NULL;
	doca_error_t err = doca_dev_open(info, &dev);

	if (err != DOCA_SUCCESS)
		return err;
	err = doca_dma_create(dev, &dma);
	if (err == DOCA_SUCCESS) {
		err = doca_dma_cap_get_max_num_tasks(dma, max);
		doca_dma_destroy(dma);
	}
	doca_dev_close(dev);
	return err;
}

/* The task queue depth (libdoca_common, core/device): DOCA has no query for it. */
doca_error_t doca_priv_devinfo_get_queue_depth(const struct doca_devinfo *info, uint32_t *depth);

static json_object *dma_caps(struct doca_devinfo *info)
{
	json_object *o = json_object_new_object();
	bool memcpy_ok = doca_dma_cap_task_memcpy_is_supported(info) == DOCA_SUCCESS;
	uint64_t max_size = 0;
	uint32_t list_len = 0, tasks = 0;

	json_object_object_add(o, "task_memcpy_supported", json_object_new_boolean(memcpy_ok));
	if (!memcpy_ok)
		return o;
	if (doca_dma_cap_task_memcpy_get_max_buf_size(info, &max_size) == DOCA_SUCCESS)
		json_object_object_add(o, "max_buf_size", json_object_new_int64((int64_t)max_size));
	if (doca_dma_cap_task_memcpy_get_max_buf_list_len(info, &list_len) == DOCA_SUCCESS)
		json_object_object_add(o, "max_buf_list_len", json_object_new_int64(list_len));
	if (max_num_tasks(info, &tasks) == DOCA_SUCCESS)
		json_object_object_add(o, "max_num_tasks", json_object_new_int64(tasks));
	/* tasks in flight per context before submit returns DOCA_ERROR_AGAIN */
	if (doca_priv_devinfo_get_queue_depth(info, &tasks) == DOCA_SUCCESS)
		json_object_object_add(o, "queue_depth", json_object_new_int64(tasks));
	return o;
}

static void add_u32(json_object *o, const char *key,
                    doca_error_t (*q)(const struct doca_devinfo *, uint32_t *),
                    const struct doca_devinfo *info)
{
	uint32_t v = 0;

	if (q(info, &v) == DOCA_SUCCESS)
		json_object_object_add(o, key, json_object_new_int64(v));
}

static json_object *comch_caps(struct doca_devinfo *info)
{
	json_object *o = json_object_new_object();
	bool server = doca_comch_cap_server_is_supported(info) == DOCA_SUCCESS;
	bool client = doca_comch_cap_client_is_supported(info) == DOCA_SUCCESS;

	json_object_object_add(o, "server_supported", json_object_new_boolean(server));
	json_object_object_add(o, "client_supported", json_object_new_boolean(client));
	if (!server && !client)
		return o;
	add_u32(o, "max_msg_size", doca_comch_cap_get_max_msg_size, info);
	add_u32(o, "max_recv_queue_size", doca_comch_cap_get_max_recv_queue_size, info);
	add_u32(o, "max_send_tasks", doca_comch_cap_get_max_send_tasks, info);
	add_u32(o, "max_name_len", doca_comch_cap_get_max_name_len, info);
	if (server)
		add_u32(o, "max_clients", doca_comch_cap_get_max_clients, info);
	json_object_object_add(o, "consumer_supported",
	                       json_object_new_boolean(doca_comch_consumer_cap_is_supported(info) ==
	                                               DOCA_SUCCESS));
	add_u32(o, "consumer_max_num_tasks", doca_comch_consumer_cap_get_max_num_tasks, info);
	add_u32(o, "consumer_max_buf_size", doca_comch_consumer_cap_get_max_buf_size, info);
	add_u32(o, "consumer_max_buf_list_len", doca_comch_consumer_cap_get_max_buf_list_len, info);
	add_u32(o, "consumer_max_consumers", doca_comch_consumer_cap_get_max_consumers, info);
	add_u32(o, "consumer_max_imm_data_len", doca_comch_consumer_cap_get_max_imm_data_len, info);
	json_object_object_add(o, "producer_supported",
	                       json_object_new_boolean(doca_comch_producer_cap_is_supported(info) ==
	                                               DOCA_SUCCESS));
	add_u32(o, "producer_max_num_tasks", doca_comch_producer_cap_get_max_num_tasks, info);
	add_u32(o, "producer_max_buf_size", doca_comch_producer_cap_get_max_buf_size, info);
	add_u32(o, "producer_max_buf_list_len", doca_comch_producer_cap_get_max_buf_list_len, info);
	add_u32(o, "producer_max_producers", doca_comch_producer_cap_get_max_producers, info);
	return o;
}

static json_object *ec_caps(struct doca_devinfo *info)
{
	static const struct {
		const char *key;
		doca_error_t (*fn)(const struct doca_devinfo *);
	} tasks[] = {
		{ "task_create_supported", doca_ec_cap_task_create_is_supported },
		{ "task_recover_supported", doca_ec_cap_task_recover_is_supported },
		{ "task_update_supported", doca_ec_cap_task_update_is_supported },
		{ "task_galois_mul_supported", doca_ec_cap_task_galois_mul_is_supported },
	};
	json_object *o = json_object_new_object();
	uint64_t bs;
	uint32_t ll;

	for (size_t i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++)
		json_object_object_add(o, tasks[i].key,
		                       json_object_new_boolean(tasks[i].fn(info) == DOCA_SUCCESS));
	if (doca_ec_cap_get_max_block_size(info, &bs) == DOCA_SUCCESS)
		json_object_object_add(o, "max_block_size", json_object_new_int64((int64_t)bs));
	if (doca_ec_cap_get_max_buf_list_len(info, &ll) == DOCA_SUCCESS)
		json_object_object_add(o, "max_buf_list_len", json_object_new_int64(ll));
	return o;
}

static json_object *rdma_caps(struct doca_devinfo *info)
{
	static const struct {
		const char *key;
		doca_error_t (*q)(const struct doca_devinfo *);
	} tasks[] = {
		{ "task_send_supported", doca_rdma_cap_task_send_is_supported },
		{ "task_send_imm_supported", doca_rdma_cap_task_send_imm_is_supported },
		{ "task_receive_supported", doca_rdma_cap_task_receive_is_supported },
		{ "task_read_supported", doca_rdma_cap_task_read_is_supported },
		{ "task_write_supported", doca_rdma_cap_task_write_is_supported },
		{ "task_write_imm_supported", doca_rdma_cap_task_write_imm_is_supported },
		{ "task_atomic_cmp_swp_supported", doca_rdma_cap_task_atomic_cmp_swp_is_supported },
		{ "task_atomic_fetch_add_supported",
		  doca_rdma_cap_task_atomic_fetch_add_is_supported },
		{ "task_remote_net_sync_event_get_supported",
		  doca_rdma_cap_task_remote_net_sync_event_get_is_supported },
		{ "task_remote_net_sync_event_notify_set_supported",
		  doca_rdma_cap_task_remote_net_sync_event_notify_set_is_supported },
	};
	json_object *o = json_object_new_object();
	bool rc = doca_rdma_cap_transport_type_is_supported(info, DOCA_RDMA_TRANSPORT_TYPE_RC) ==
	          DOCA_SUCCESS;

	json_object_object_add(o, "transport_rc_supported", json_object_new_boolean(rc));
	json_object_object_add(o, "transport_dc_supported",
	                       json_object_new_boolean(doca_rdma_cap_transport_type_is_supported(
	                                                       info, DOCA_RDMA_TRANSPORT_TYPE_DC) ==
	                                               DOCA_SUCCESS));
	if (!rc)
		return o;
	for (size_t i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++)
		json_object_object_add(o, tasks[i].key,
		                       json_object_new_boolean(tasks[i].q(info) == DOCA_SUCCESS));
	add_u32(o, "max_message_size", doca_rdma_cap_get_max_message_size, info);
	add_u32(o, "max_send_queue_size", doca_rdma_cap_get_max_send_queue_size, info);
	add_u32(o, "max_recv_queue_size", doca_rdma_cap_get_max_recv_queue_size, info);
	add_u32(o, "max_send_buf_list_len", doca_rdma_cap_get_max_send_buf_list_len, info);
	add_u32(o, "gid_table_size", doca_rdma_cap_get_gid_table_size, info);
	return o;
}

static json_object *mmap_caps(struct doca_devinfo *info)
{
	json_object *o = json_object_new_object();
	uint8_t exp = 0, from = 0;

	doca_mmap_cap_is_export_pci_supported(info, &exp);
	doca_mmap_cap_is_create_from_export_pci_supported(info, &from);
	json_object_object_add(o, "export_pci_supported", json_object_new_boolean(exp));
	json_object_object_add(o, "create_from_export_pci_supported",
	                       json_object_new_boolean(from));
	return o;
}

static json_object *compress_caps(struct doca_devinfo *info)
{
	static const struct {
		const char *name;
		doca_error_t (*sup)(const struct doca_devinfo *);
		doca_error_t (*size)(const struct doca_devinfo *, uint64_t *);
		doca_error_t (*list)(const struct doca_devinfo *, uint32_t *);
	} tasks[] = {
		{ "compress_deflate", doca_compress_cap_task_compress_deflate_is_supported,
		  doca_compress_cap_task_compress_deflate_get_max_buf_size,
		  doca_compress_cap_task_compress_deflate_get_max_buf_list_len },
		{ "decompress_deflate", doca_compress_cap_task_decompress_deflate_is_supported,
		  doca_compress_cap_task_decompress_deflate_get_max_buf_size,
		  doca_compress_cap_task_decompress_deflate_get_max_buf_list_len },
		{ "decompress_lz4_stream",
		  doca_compress_cap_task_decompress_lz4_stream_is_supported,
		  doca_compress_cap_task_decompress_lz4_stream_get_max_buf_size,
		  doca_compress_cap_task_decompress_lz4_stream_get_max_buf_list_len },
		{ "decompress_lz4_block", doca_compress_cap_task_decompress_lz4_block_is_supported,
		  doca_compress_cap_task_decompress_lz4_block_get_max_buf_size,
		  doca_compress_cap_task_decompress_lz4_block_get_max_buf_list_len },
	};
	json_object *o = json_object_new_object();

	for (size_t i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++) {
		char key[64];
		uint64_t size = 0;
		uint32_t len = 0;
		bool sup = tasks[i].sup(info) == DOCA_SUCCESS;

		snprintf(key, sizeof(key), "task_%s_supported", tasks[i].name);
		json_object_object_add(o, key, json_object_new_boolean(sup));
		if (sup && tasks[i].size(info, &size) == DOCA_SUCCESS) {
			snprintf(key, sizeof(key), "%s_max_buf_size", tasks[i].name);
			json_object_object_add(o, key, json_object_new_int64((int64_t)size));
		}
		if (sup && tasks[i].list(info, &len) == DOCA_SUCCESS) {
			snprintf(key, sizeof(key), "%s_max_buf_list_len", tasks[i].name);
			json_object_object_add(o, key, json_object_new_int64(len));
		}
	}
	return o;
}

/* DOCA Core beyond memory: sync events, cache invalidation, clocks. */
static json_object *core_caps(struct doca_devinfo *info, json_object *caps)
{
	json_object *se = json_object_new_object(), *ma = json_object_new_object(),
	            *ck = json_object_new_object();
	uint64_t max = 0;
	bool inv = doca_mmap_advise_cap_task_cache_invalidate_is_supported(info) == DOCA_SUCCESS;

	json_object_object_add(
	        se, "export_to_remote_pci_supported",
	        json_object_new_boolean(doca_sync_event_cap_is_export_to_remote_pci_supported(
	                                        info) == DOCA_SUCCESS));
	json_object_object_add(
	        se, "create_from_export_supported",
	        json_object_new_boolean(doca_sync_event_cap_is_create_from_export_supported(info) ==
	                                DOCA_SUCCESS));
	json_object_object_add(
	        se, "task_wait_eq_supported",
	        json_object_new_boolean(doca_sync_event_cap_task_wait_eq_is_supported(info) ==
	                                DOCA_SUCCESS));
	json_object_object_add(caps, "doca_sync_event", se);
	json_object_object_add(ma, "task_cache_invalidate_supported", json_object_new_boolean(inv));
	if (inv &&
	    doca_mmap_advise_task_cache_invalidate_get_max_buf_size(info, &max) == DOCA_SUCCESS)
		json_object_object_add(ma, "max_buf_size", json_object_new_int64((int64_t)max));
	json_object_object_add(caps, "doca_mmap_advise", ma);
	json_object_object_add(ck, "nic_free_running_supported",
	                       json_object_new_boolean(doca_clock_cap_nic_free_running_is_supported(
	                                                       info) == DOCA_SUCCESS));
	json_object_object_add(ck, "nic_real_time_supported",
	                       json_object_new_boolean(doca_clock_cap_nic_real_time_is_supported(
	                                                       info) == DOCA_SUCCESS));
	json_object_object_add(ck, "nic_dpa_timer_supported",
	                       json_object_new_boolean(doca_clock_cap_nic_dpa_timer_is_supported(
	                                                       info) == DOCA_SUCCESS));
	json_object_object_add(caps, "doca_clock", ck);
	return caps;
}

static json_object *rep_list(struct doca_devinfo *info)
{
	struct doca_devinfo_rep **reps = NULL;
	json_object *arr = json_object_new_array();
	struct doca_dev *dev = NULL;
	uint32_t nb = 0, i;

	if (!is_dpu_side(info) || doca_dev_open(info, &dev) != DOCA_SUCCESS)
		return arr;
	if (doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_ALL, &reps, &nb) ==
	    DOCA_SUCCESS) {
		for (i = 0; i < nb; i++) {
			char pci[DOCA_DEVINFO_PCI_ADDR_SIZE] = "",
			     vuid[DOCA_DEVINFO_REP_VUID_SIZE] = "";
			enum doca_pci_func_type ft = DOCA_PCI_FUNC_TYPE_PF;
			uint8_t hotplug = 0;
			json_object *r = json_object_new_object();

			doca_devinfo_rep_get_pci_addr_str(reps[i], pci);
			doca_devinfo_rep_get_vuid(reps[i], vuid, sizeof(vuid));
			doca_devinfo_rep_get_pci_func_type(reps[i], &ft);
			doca_devinfo_rep_get_is_hotplug(reps[i], &hotplug);
			json_object_object_add(r, "pci_addr", json_object_new_string(pci));
			json_object_object_add(r, "vuid", json_object_new_string(vuid));
			json_object_object_add(r, "pci_func_type",
			                       json_object_new_string(func_name(ft)));
			json_object_object_add(r, "hotplug", json_object_new_boolean(hotplug));
			json_object_array_add(arr, r);
		}
		doca_devinfo_rep_destroy_list(reps);
	}
	doca_dev_close(dev);
	return arr;
}

/* ------------------------------------------------------------------ report */

static bool show_lib(const struct caps_cfg *cfg, const char *lib)
{
	return cfg->lib[0] == '\0' || strcmp(cfg->lib, lib) == 0;
}

/* Without a --list-* flag, the full report: devices with capabilities. */
static bool full_report(const struct caps_cfg *cfg)
{
	return !cfg->list_devs && !cfg->list_reps && !cfg->list_libs;
}

static json_object *device_entry(const struct caps_cfg *cfg, struct doca_devinfo *info)
{
	json_object *o = dev_identity(info), *caps;

	if (full_report(cfg)) {
		caps = json_object_new_object();
		if (show_lib(cfg, "doca_common")) {
			json_object_object_add(caps, "doca_mmap", mmap_caps(info));
			core_caps(info, caps);
		}
		if (show_lib(cfg, "doca_dma"))
			json_object_object_add(caps, "doca_dma", dma_caps(info));
		if (show_lib(cfg, "doca_comch"))
			json_object_object_add(caps, "doca_comch", comch_caps(info));
		if (show_lib(cfg, "doca_rdma"))
			json_object_object_add(caps, "doca_rdma", rdma_caps(info));
		if (show_lib(cfg, "doca_compress"))
			json_object_object_add(caps, "doca_compress", compress_caps(info));
		if (show_lib(cfg, "doca_erasure_coding"))
			json_object_object_add(caps, "doca_erasure_coding", ec_caps(info));
		json_object_object_add(o, "capabilities", caps);
	}
	if (cfg->list_reps)
		json_object_object_add(o, "representors", rep_list(info));
	return o;
}

static bool wanted(const struct caps_cfg *cfg, struct doca_devinfo *info)
{
	uint8_t eq = 0;

	return cfg->pci[0] == '\0' ||
	       (doca_devinfo_is_equal_pci_addr(info, cfg->pci, &eq) == DOCA_SUCCESS && eq);
}

static doca_error_t collect_devices(const struct caps_cfg *cfg, json_object *root)
{
	struct doca_devinfo **list = NULL;
	json_object *arr = json_object_new_array();
	uint32_t nb = 0, i;
	doca_error_t err = doca_devinfo_create_list(&list, &nb);
	char seen[512] = "", pci[DOCA_DEVINFO_PCI_ADDR_SIZE];
	size_t used = 0;

	json_object_object_add(root, "devices", arr);
	if (err != DOCA_SUCCESS) {
		fprintf(stderr, "doca_caps: cannot list devices: %s\n", doca_error_get_descr(err));
		return err;
	}
	for (i = 0; i < nb; i++) {
		if (wanted(cfg, list[i]))
			json_object_array_add(arr, device_entry(cfg, list[i]));
		if (used < sizeof(seen) &&
		    doca_devinfo_get_pci_addr_str(list[i], pci) == DOCA_SUCCESS)
			used += (size_t)snprintf(seen + used, sizeof(seen) - used, "%s%s",
			                         used ? ", " : "", pci);
	}
	doca_devinfo_destroy_list(list);
	if (cfg->pci[0] != '\0' && json_object_array_length(arr) == 0) {
		const char *side = getenv("ODMA_SIDE");

		fprintf(stderr,
		        "doca_caps: no device at PCI address %s; this process sees %s%s%s%s\n",
		        cfg->pci, seen[0] ? seen : "no device", side ? " (ODMA_SIDE=" : "",
		        side ? side : "",
		        side ? " shows only that side's devices; unset it to see both sides)" : "");
		return DOCA_ERROR_NOT_FOUND;
	}
	return DOCA_SUCCESS;
}

static json_object *libraries(const struct caps_cfg *cfg)
{
	json_object *arr = json_object_new_array();
	size_t i;

	for (i = 0; i < NB_LIBS; i++) {
		json_object *l;

		if (!show_lib(cfg, caps_libs[i][0]))
			continue;
		l = json_object_new_object();
		json_object_object_add(l, "name", json_object_new_string(caps_libs[i][0]));
		json_object_object_add(l, "version",
		                       json_object_new_string(doca_version_runtime()));
		json_object_object_add(l, "description", json_object_new_string(caps_libs[i][1]));
		json_object_array_add(arr, l);
	}
	return arr;
}

/* ------------------------------------------------------------------ text output */

static const char *s(json_object *o, const char *key)
{
	json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : "-";
}

static void print_section(json_object *caps, const char *name)
{
	json_object *sec = NULL;

	if (!json_object_object_get_ex(caps, name, &sec))
		return;
	printf("    %s:\n", name);
	json_object_object_foreach(sec, key, val)
	{
		if (json_object_is_type(val, json_type_boolean))
			printf("      %-34s %s\n", key,
			       json_object_get_boolean(val) ? "yes" : "no");
		else
			printf("      %-34s %s\n", key, json_object_get_string(val));
	}
}

static void print_reps(json_object *dev)
{
	json_object *reps = NULL;
	size_t i;

	if (!json_object_object_get_ex(dev, "representors", &reps))
		return;
	if (json_object_array_length(reps) == 0)
		printf("    representors: none\n");
	for (i = 0; i < json_object_array_length(reps); i++) {
		json_object *r = json_object_array_get_idx(reps, i);

		printf("    representor %-12s %-3s %-8s %s\n", s(r, "pci_addr"),
		       s(r, "pci_func_type"),
		       json_object_get_boolean(json_object_object_get(r, "hotplug")) ? "hotplug"
		                                                                     : "",
		       s(r, "vuid"));
	}
}

/* odma's transports to the other side (libdoca_common, core/transport). */
const char *doca_priv_transport_info(unsigned int i, const char **status);

static json_object *transports(void)
{
	json_object *arr = json_object_new_array();
	const char *name, *status;

	for (unsigned int i = 0; (name = doca_priv_transport_info(i, &status)) != NULL; i++) {
		json_object *t = json_object_new_object();

		json_object_object_add(t, "name", json_object_new_string(name));
		json_object_object_add(
		        t, "built", json_object_new_boolean(strncmp(status, "built in", 8) == 0));
		json_object_object_add(t, "status", json_object_new_string(status));
		json_object_array_add(arr, t);
	}
	return arr;
}

/* odma's emulated system (libdoca_common, core/device/system.c). */
bool doca_priv_system_describe(const char **name, const char **label, const char **device,
                               const char **alias_of, const char **error);

/*
 * The profile odma emulates, for the first line: NULL, after one error line, when there is
 * none (an unknown ODMA_SYSTEM lists the valid names there).
 */
static json_object *profile(void)
{
	const char *name, *label, *device, *alias_of, *error;
	json_object *p;

	if (!doca_priv_system_describe(&name, &label, &device, &alias_of, &error)) {
		fprintf(stderr, "doca_caps: no emulated system: %s\n", error);
		return NULL;
	}
	p = json_object_new_object();
	json_object_object_add(p, "name", json_object_new_string(name));
	json_object_object_add(p, "system", json_object_new_string(label));
	json_object_object_add(p, "alias_of", alias_of ? json_object_new_string(alias_of) : NULL);
	json_object_object_add(p, "emulates", device ? json_object_new_string(device) : NULL);
	json_object_object_add(p, "emulated_by", json_object_new_string("odma"));
	return p;
}

static void print_profile(json_object *root)
{
	json_object *p = NULL;

	if (!json_object_object_get_ex(root, "profile", &p))
		return;
	if (json_object_object_get(p, "emulates") != NULL)
		printf("profile %s%s%s%s: %s, emulated by odma\n", s(p, "name"),
		       json_object_object_get(p, "alias_of") ? " (= " : "",
		       json_object_object_get(p, "alias_of") ? s(p, "alias_of") : "",
		       json_object_object_get(p, "alias_of") ? ")" : "", s(p, "emulates"));
	else
		printf("profile file %s: system %s, emulated by odma\n", s(p, "name"),
		       s(p, "system"));
}

static void print_text(json_object *root)
{
	json_object *devs = NULL, *libs = NULL, *caps = NULL, *tps = NULL;
	size_t i;

	print_profile(root);
	if (json_object_object_get_ex(root, "transports", &tps))
		for (i = 0; i < json_object_array_length(tps); i++) {
			json_object *t = json_object_array_get_idx(tps, i);

			printf("transport %-8s %s\n", s(t, "name"), s(t, "status"));
		}

	if (json_object_object_get_ex(root, "libraries", &libs))
		for (i = 0; i < json_object_array_length(libs); i++) {
			json_object *l = json_object_array_get_idx(libs, i);

			printf("%-12s %s  %s\n", s(l, "name"), s(l, "version"),
			       s(l, "description"));
		}
	if (!json_object_object_get_ex(root, "devices", &devs))
		return;
	if (json_object_array_length(devs) == 0)
		printf("No devices (check ODMA_SYSTEM and ODMA_SIDE)\n");
	for (i = 0; i < json_object_array_length(devs); i++) {
		json_object *d = json_object_array_get_idx(devs, i);

		printf("Device %s  ibdev %s  iface %s  side %s  func %s\n", s(d, "pci_addr"),
		       s(d, "ibdev_name"), s(d, "iface_name"), s(d, "side"), s(d, "pci_func_type"));
		if (json_object_object_get_ex(d, "capabilities", &caps)) {
			print_section(caps, "doca_dma");
			print_section(caps, "doca_mmap");
			print_section(caps, "doca_sync_event");
			print_section(caps, "doca_mmap_advise");
			print_section(caps, "doca_clock");
			print_section(caps, "doca_comch");
			print_section(caps, "doca_rdma");
			print_section(caps, "doca_compress");
			print_section(caps, "doca_erasure_coding");
		}
		print_reps(d);
	}
}

static int report(const struct caps_cfg *cfg)
{
	json_object *root = json_object_new_object();
	doca_error_t err = DOCA_SUCCESS;

	json_object_object_add(root, "odma_version",
	                       json_object_new_string(doca_version_runtime()));
	if (cfg->list_libs)
		json_object_object_add(root, "libraries", libraries(cfg));
	if (full_report(cfg))
		json_object_object_add(root, "transports", transports());
	if (full_report(cfg) || cfg->list_devs || cfg->list_reps) {
		json_object *p = profile();

		if (p != NULL)
			json_object_object_add(root, "profile", p);
		err = p != NULL ? collect_devices(cfg, root) : DOCA_ERROR_NOT_FOUND;
	}
	if (err == DOCA_SUCCESS) {
		if (cfg->json)
			printf("%s\n", json_object_to_json_string_ext(
			                       root, JSON_C_TO_STRING_PRETTY |
			                                     JSON_C_TO_STRING_NOSLASHESCAPE));
		else
			print_text(root);
	}
	json_object_put(root);
	return err == DOCA_SUCCESS ? EXIT_SUCCESS : EXIT_FAILURE;
}

static void usage_stdout(void *arg)
{
	(void)arg;
	doca_argp_usage();
}

/* `doca_caps --man`: the man page of the --help text (the build installs it). */
static int caps_man(const char *name)
{
	char *text = odma_help_capture(usage_stdout, NULL);

	if (text == NULL)
		return 1;
	odma_help_man(stdout, name, 1,
	              "list the DOCA devices this process sees and their capabilities", text, NULL);
	free(text);
	return 0;
}

int main(int argc, char **argv)
{
	struct caps_cfg cfg;
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	doca_error_t err;
	int rc;

	char cmd[64];

	memset(&cfg, 0, sizeof(cfg));
	doca_log_backend_create_standard();
	err = doca_argp_init(odma_help_cmd_name(name, cmd, sizeof(cmd)), &cfg);
	if (err == DOCA_SUCCESS) {
		doca_priv_argp_callbacks_explain(); /* pci_cb and lib_cb print their refusal */
		err = register_params();
	}
	if (err == DOCA_SUCCESS && odma_help_man_wanted(argc, argv)) {
		rc = caps_man(name);
		doca_argp_destroy();
		return rc;
	}
	if (err == DOCA_SUCCESS)
		err = doca_argp_start(argc, argv);
	if (err != DOCA_SUCCESS) {
		doca_argp_destroy();
		return 2;
	}
	rc = report(&cfg);
	doca_argp_destroy();
	return rc;
}
