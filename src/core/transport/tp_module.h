/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * Inside core/transport only: the contract between libdoca_common and a transport built as a
 * module of its own (libodma_ucx.so), loaded on first need (dlopen) so that a program that
 * never reaches another kernel never loads the transport's libraries (UCX: its constructors,
 * its threads, its signal handlers).
 *
 * The module links none of odma's libraries: everything it needs of libdoca_common comes
 * through the host table it is given (a program linked with the static archive has no
 * shared libdoca_common to bind to). Its one exported symbol is ODMA_TP_MODULE_ENTRY.
 */
#ifndef ODMA_CORE_TRANSPORT_TP_MODULE_H_
#define ODMA_CORE_TRANSPORT_TP_MODULE_H_

#include "core/transport/transport.h"

/*
 * What libdoca_common gives a module: its logging, configuration, region registry and fabric
 * secret.
 */
struct odma_tp_host {
	unsigned int size;   /* sizeof(struct odma_tp_host) of the host: a module refuses others */
	const char *version; /* the host's odma version: a module refuses another */
	doca_error_t (*log_register)(const char *name, int *source);
	doca_error_t (*log)(uint32_t level, int source, const char *fname, int line,
	                    const char *func, const char *format, ...);
	doca_error_t (*log_bucket)(int source, int *bucket);
	doca_error_t (*log_rate)(uint32_t level, int source, const char *fname, int line,
	                         const char *func, int bucket, const char *format, ...);
	const char *(*error_name)(doca_error_t err);
	const char *(*config_string)(const char *name);
	doca_error_t (*region_check)(uint64_t id, const uint8_t key[16], uint32_t generation,
	                             uint64_t addr, uint64_t len, uint32_t perm, void **local);
	doca_error_t (*region_atomic)(uint64_t id, const uint8_t key[16], uint32_t generation,
	                              uint64_t addr, int op, uint64_t operand, uint64_t compare,
	                              uint64_t *old);
	size_t (*region_issued)(uint64_t id, const uint8_t key[16], uint32_t generation,
	                        uint8_t *out);
	int (*safe_copy)(void *dst, const void *src, size_t len);
	uint32_t (*timeout_ms)(void);
	const char *(*fabric_ip)(char *ip, size_t cap);
	bool (*iface_for)(const char *ip, char *name, size_t cap, char *addr, size_t acap);
	void (*wake_hold)(bool on);
	void (*wake_flush)(void);
	bool (*fabric_key)(uint8_t key[ODMA_FABRIC_KEY_LEN], char *why, size_t why_len);
	int (*thread_start)(pthread_t *thr, const char *name, void *(*fn)(void *), void *arg);
	void (*fabric_proof)(const uint8_t key[ODMA_FABRIC_KEY_LEN], uint8_t role, const void *bind,
	                     size_t bind_len, const uint8_t first[ODMA_FABRIC_NONCE_LEN],
	                     const uint8_t second[ODMA_FABRIC_NONCE_LEN],
	                     uint8_t out[ODMA_FABRIC_PROOF_LEN]);
};

/*
 * The module's entry: the transport's full ops, or NULL with *@why set (a host it does not
 * match). Called once, before any other function of the module.
 */
#define ODMA_TP_MODULE_ENTRY "odma_tp_module_init"
typedef const struct odma_tp_ops *odma_tp_module_init_fn(const struct odma_tp_host *host,
                                                         const char **why);

/* The file name of the UCX module, found beside libdoca_common (its runpath) or in libdir. */
#define ODMA_UCX_MODULE "libodma_ucx.so"

#endif /* ODMA_CORE_TRANSPORT_TP_MODULE_H_ */
