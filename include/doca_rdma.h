/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */

/**
 * @file doca_rdma.h
 * @brief DOCA RDMA: a context whose tasks move data between two processes, usually on
 * two machines, over connections (send / receive, one-sided read and write, write with
 * immediate, atomics, remote sync events).
 *
 * @code
 *   doca_rdma_cap_task_read_is_supported(devinfo)            // pick a device
 *   doca_rdma_create(dev, &rdma); ctx = doca_rdma_as_ctx(rdma);
 *   doca_rdma_set_permissions(rdma, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
 *   doca_rdma_task_read_set_conf(rdma, ok_cb, err_cb, num_tasks);
 *   doca_pe_connect_ctx(pe, ctx); doca_ctx_start(ctx);       // RUNNING at once
 *   // out of band: blobs exchanged by the program (files, sockets, ...)
 *   doca_rdma_export(rdma, &blob, &blob_len, &conn);  ...  doca_rdma_connect(rdma, peer, n, conn);
 *   // or RDMA CM: doca_rdma_start_listen_to_port (server) / doca_rdma_connect_to_addr (client)
 *   doca_rdma_task_read_allocate_init(rdma, conn, remote_src, local_dst, user_data, &task);
 *   doca_task_submit(doca_rdma_task_read_as_task(task));
 *   ... doca_pe_progress(pe) runs ok_cb or err_cb ...
 *   doca_ctx_stop(ctx); doca_rdma_destroy(rdma);
 * @endcode
 *
 * odma emulates RDMA in software (docs/rdma.md): a connection is a byte stream between the
 * two processes, and each context runs a service thread that serves the peer's one-sided
 * operations and incoming sends while the program is blocked (in getchar(), in a sync event
 * wait, in a callback); only the program's own completions and connection events wait for
 * doca_pe_progress. The target checks every remote access against its own export records
 * (range, RDMA permissions, revocation); the initiator's checks are only a convenience.
 * DC is emulated like RC. Results and errors of tasks:
 *  - remote access refused by the target (outside the exported range, no RDMA_READ /
 *    RDMA_WRITE / RDMA_ATOMIC permission, export revoked, unknown sync event):
 *    DOCA_ERROR_IO_FAILED;
 *  - the connection is cut (peer process gone, disconnected) before the task completes:
 *    DOCA_ERROR_CONNECTION_ABORTED;
 *  - a send that finds no receive posted at the peer is held and retried for up to
 *    (rnr_retry_count + 1) seconds (receiver-not-ready retry), then fails with
 *    DOCA_ERROR_TIME_OUT;
 *  - a message longer than the receive buffer's free room: the receive fails with
 *    DOCA_ERROR_INVALID_VALUE and the send with DOCA_ERROR_IO_FAILED;
 *  - tasks flushed by doca_ctx_stop: DOCA_ERROR_IO_FAILED.
 * Every submitted task completes exactly once.
 */
#ifndef DOCA_RDMA_H_
#define DOCA_RDMA_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

/*
 * Like DOCA's, this header brings the RDMA CM and verbs declarations where the system has
 * them (librdmacm-dev, libibverbs-dev; the kernel's RDMA headers otherwise), so programs that
 * use their names through it (IB_DEVICE_NAME_MAX, struct ibv_pd) build unchanged.
 */
#if defined(__has_include)
#if __has_include(<rdma/rdma_cma.h>)
#include <rdma/rdma_cma.h>
#else
#if __has_include(<infiniband/verbs.h>)
#include <infiniband/verbs.h>
#endif
#if __has_include(<rdma/ib_user_verbs.h>)
#include <rdma/ib_user_verbs.h>
#endif
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_ctx;
struct doca_dev;
struct doca_devinfo;
struct doca_task;
struct doca_sync_event_remote_net;
struct doca_dpa_completion;
/** An rdma_cm identifier of librdmacm (only named by the bridge calls, never defined here). */
struct rdma_cm_id;

/** An RDMA context. */
struct doca_rdma;
/** An address of a peer for the RDMA CM flow. */
struct doca_rdma_addr;
/** One connection of an RDMA context (owned by the library). */
struct doca_rdma_connection;
/** The context's handle on a DPA (not emulated). */
typedef uint64_t doca_dpa_dev_rdma_t;
/** The context's handle on a GPU (not emulated). */
struct doca_gpu_dev_rdma;

/** Transport service of the context's connections. */
enum doca_rdma_transport_type {
	DOCA_RDMA_TRANSPORT_TYPE_RC, /**< reliable connected */
	DOCA_RDMA_TRANSPORT_TYPE_DC, /**< dynamically connected (odma: emulated like RC) */
};

/** A GID table entry. */
struct doca_rdma_gid {
	uint8_t raw[DOCA_GID_BYTE_LENGTH]; /**< the 16 GID bytes */
};

/** Kind of address given to doca_rdma_addr_create(). */
enum doca_rdma_addr_type {
	DOCA_RDMA_ADDR_TYPE_IPv4, /**< dotted IPv4 address */
	DOCA_RDMA_ADDR_TYPE_IPv6, /**< IPv6 address */
	DOCA_RDMA_ADDR_TYPE_GID,  /**< GID (odma: written as an IPv6 address) */
};

/** What completed a receive task. */
enum doca_rdma_opcode {
	DOCA_RDMA_OPCODE_RECV_SEND = 0,      /**< a send */
	DOCA_RDMA_OPCODE_RECV_SEND_WITH_IMM, /**< a send with immediate */
	DOCA_RDMA_OPCODE_RECV_WRITE_WITH_IMM, /**< a write with immediate */
};

/** A receive task. */
struct doca_rdma_task_receive;
/** A send task. */
struct doca_rdma_task_send;
/** A send imm task. */
struct doca_rdma_task_send_imm;
/** A read task. */
struct doca_rdma_task_read;
/** A write task. */
struct doca_rdma_task_write;
/** A write imm task. */
struct doca_rdma_task_write_imm;
/** A atomic cmp swp task. */
struct doca_rdma_task_atomic_cmp_swp;
/** A atomic fetch add task. */
struct doca_rdma_task_atomic_fetch_add;
/** A remote net sync event get task. */
struct doca_rdma_task_remote_net_sync_event_get;
/** A remote net sync event notify set task. */
struct doca_rdma_task_remote_net_sync_event_notify_set;
/** A remote net sync event notify add task. */
struct doca_rdma_task_remote_net_sync_event_notify_add;

/**
 * Raised on the server when a client asks for a connection (RDMA CM flow); the callback
 * accepts or rejects it (doca_rdma_connection_accept / _reject), now or later.
 */
typedef void (*doca_rdma_connection_request_cb_t)(struct doca_rdma_connection *rdma_connection,
						  union doca_data ctx_user_data);
/** Raised when a connection of the RDMA CM flow is established (both sides). */
typedef void (*doca_rdma_connection_established_cb_t)(struct doca_rdma_connection *rdma_connection,
						      union doca_data connection_user_data,
						      union doca_data ctx_user_data);
/**
 * Raised when a connection attempt fails (refused, rejected, no server listening). The failed
 * connection no longer counts against max_num_connections: the callback may connect again.
 */
typedef void (*doca_rdma_connection_failure_cb_t)(struct doca_rdma_connection *rdma_connection,
						  union doca_data connection_user_data,
						  union doca_data ctx_user_data);
/** Raised when the peer ends an established connection (or its process ends). */
typedef void (*doca_rdma_connection_disconnection_cb_t)(struct doca_rdma_connection *rdma_connection,
							union doca_data connection_user_data,
							union doca_data ctx_user_data);

/** Completion callback of a receive task (used for both success and error). */
typedef void (*doca_rdma_task_receive_completion_cb_t)(struct doca_rdma_task_receive *task,
		union doca_data task_user_data, union doca_data ctx_user_data);
/** Completion callback of a send task (used for both success and error). */
typedef void (*doca_rdma_task_send_completion_cb_t)(struct doca_rdma_task_send *task,
		union doca_data task_user_data, union doca_data ctx_user_data);
/** Completion callback of a send with immediate task (used for both success and error). */
typedef void (*doca_rdma_task_send_imm_completion_cb_t)(struct doca_rdma_task_send_imm *task,
		union doca_data task_user_data, union doca_data ctx_user_data);
/** Completion callback of a read task (used for both success and error). */
typedef void (*doca_rdma_task_read_completion_cb_t)(struct doca_rdma_task_read *task,
		union doca_data task_user_data, union doca_data ctx_user_data);
/** Completion callback of a write task (used for both success and error). */
typedef void (*doca_rdma_task_write_completion_cb_t)(struct doca_rdma_task_write *task,
		union doca_data task_user_data, union doca_data ctx_user_data);
/** Completion callback of a write with immediate task (used for both success and error). */
typedef void (*doca_rdma_task_write_imm_completion_cb_t)(struct doca_rdma_task_write_imm *task,
		union doca_data task_user_data, union doca_data ctx_user_data);
/** Completion callback of a atomic compare-and-swap task (used for both success and error). */
typedef void (*doca_rdma_task_atomic_cmp_swp_completion_cb_t)(struct doca_rdma_task_atomic_cmp_swp *task,
		union doca_data task_user_data, union doca_data ctx_user_data);
/** Completion callback of a atomic fetch-and-add task (used for both success and error). */
typedef void (*doca_rdma_task_atomic_fetch_add_completion_cb_t)(struct doca_rdma_task_atomic_fetch_add *task,
		union doca_data task_user_data, union doca_data ctx_user_data);
/** Completion callback of a remote sync event get task (used for both success and error). */
typedef void (*doca_rdma_task_remote_net_sync_event_get_completion_cb_t)(struct doca_rdma_task_remote_net_sync_event_get *task,
		union doca_data task_user_data, union doca_data ctx_user_data);
/** Completion callback of a remote sync event notify-set task (used for both success and error). */
typedef void (*doca_rdma_task_remote_net_sync_event_notify_set_completion_cb_t)(struct doca_rdma_task_remote_net_sync_event_notify_set *task,
		union doca_data task_user_data, union doca_data ctx_user_data);
/** Completion callback of a remote sync event notify-add task (used for both success and error). */
typedef void (*doca_rdma_task_remote_net_sync_event_notify_add_completion_cb_t)(struct doca_rdma_task_remote_net_sync_event_notify_add *task,
		union doca_data task_user_data, union doca_data ctx_user_data);

/* ------------------------------------------------------------------ context */

/**
 * @brief Creates an RDMA context on a device.
 * Defaults: permissions LOCAL_READ_WRITE, transport RC, GID index 0, 16 connections,
 * send queue 256, receive buffer lists of 1, rnr retry count 7, request timeout
 * 5000 ms, MTU 1024, GRH enabled. doca_ctx_start() moves it to RUNNING at once.
 * @param [in] dev  an open device with the RDMA capability.
 * @param [out] rdma  the new context (untouched on failure).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument);
 *         DOCA_ERROR_NOT_SUPPORTED (the device has no RDMA: see doca_rdma_cap_task_send_is_supported());
 *         DOCA_ERROR_NO_MEMORY; DOCA_ERROR_INITIALIZATION (the service thread could not start).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_create(struct doca_dev *dev, struct doca_rdma **rdma);

/**
 * @brief Destroys an RDMA context that is IDLE; its connections end and the peers see a disconnection.
 * @param [in] rdma  the context.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument);
 *         DOCA_ERROR_BAD_STATE (not IDLE: stop it and progress until IDLE first).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_destroy(struct doca_rdma *rdma);

/**
 * @brief The generic context of an RDMA context.
 * @param [in] rdma  the context.
 * @return the context, NULL for NULL.
 */
DOCA_EXPERIMENTAL
struct doca_ctx *doca_rdma_as_ctx(struct doca_rdma *rdma);

/* --------------------------------------------------------- out-of-band connections */

/**
 * @brief Creates a connection and the blob a peer needs to connect to it.
 * The blob is self-contained bytes (addresses at which this process accepts the peer,
 * a random key, the connection id): write it to a file or send it anywhere.
 * A peer holding it may connect (doca_rdma_connect) whether or not this side connects
 * back; with RC both sides normally connect, with DC only the initiator does.
 * @param [in] rdma  a started (RUNNING) context.
 * @param [out] local_rdma_conn_details  the blob (owned by the context, valid while it lives).
 * @param [out] local_rdma_conn_details_size  its length in bytes.
 * @param [out] rdma_connection  the new connection.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument);
 *         DOCA_ERROR_BAD_STATE (the context is not started);
 *         DOCA_ERROR_FULL (the program holds max_num_connections connections;
 *         those it disconnected do not count);
 *         DOCA_ERROR_CONNECTION_ABORTED (the service endpoint failed); DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_export(struct doca_rdma *rdma, const void **local_rdma_conn_details,
			      size_t *local_rdma_conn_details_size,
			      struct doca_rdma_connection **rdma_connection);

/**
 * @brief Connects a connection made by doca_rdma_export() to the peer's blob.
 * @param [in] rdma  the context (STARTING or RUNNING).
 * @param [in] remote_rdma_conn_details  the blob the peer's doca_rdma_export() returned.
 * @param [in] remote_rdma_conn_details_size  its length.
 * @param [in] rdma_connection  a connection of @p rdma from doca_rdma_export().
 * @return DOCA_SUCCESS (tasks may be submitted on the connection at once); DOCA_ERROR_INVALID_VALUE (NULL argument);
 *         DOCA_ERROR_BAD_STATE (not started, or the connection is already connected);
 *         DOCA_ERROR_CONNECTION_ABORTED (malformed or corrupted blob, a blob of the other
 *         transport (RC, DC), or no peer answers at its addresses within the connection request
 *         timeout).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_connect(struct doca_rdma *rdma, const void *remote_rdma_conn_details,
			       size_t remote_rdma_conn_details_size,
			       struct doca_rdma_connection *rdma_connection);

/* ------------------------------------------------------------ RDMA CM addresses */

/**
 * @brief Creates a peer address for doca_rdma_connect_to_addr().
 * @param [in] addr_type  IPv4, IPv6 or GID (a GID is written as an IPv6 address).
 * @param [in] address  the address text (at most 127 characters).
 * @param [in] port  the server's port.
 * @param [out] addr  the new address.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, unknown type, or text that is not an
 *         address of that type); DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_addr_create(enum doca_rdma_addr_type addr_type, const char *address,
				   uint16_t port, struct doca_rdma_addr **addr);

/**
 * @brief Destroys an address.
 *
 * A connection attempt keeps its own copy of the address: it may be destroyed as soon as
 * doca_rdma_connect_to_addr() has returned.
 * @param [in] addr  the address.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_addr_destroy(struct doca_rdma_addr *addr);

/**
 * @brief The parts of an address.
 * @param [in] addr  the address.
 * @param [out] addr_type  its type.
 * @param [out] address  its text (owned by @p addr).
 * @param [out] port  its port.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_addr_get_params(struct doca_rdma_addr *addr, enum doca_rdma_addr_type *addr_type,
				       const char **address, uint16_t *port);

/* ----------------------------------------------------------------- RDMA CM flow */

/**
 * @brief Starts accepting connection requests on a TCP port (all local addresses).
 * @param [in] rdma  a RUNNING context with connection callbacks set.
 * @param [in] port  the port.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument);
 *         DOCA_ERROR_BAD_STATE (not RUNNING, or already listening);
 *         DOCA_ERROR_NOT_SUPPORTED (DC transport: RDMA CM needs RC);
 *         DOCA_ERROR_CONNECTION_ABORTED (the port cannot be bound: in use, or no permission).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_start_listen_to_port(struct doca_rdma *rdma, uint16_t port);

/**
 * @brief Stops accepting requests on a port; established connections stay.
 * @param [in] rdma  the context.
 * @param [in] port  the port passed to doca_rdma_start_listen_to_port().
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument);
 *         DOCA_ERROR_NOT_SUPPORTED (DC transport);
 *         DOCA_ERROR_CONNECTION_ABORTED (the context does not listen on @p port).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_stop_listen_to_port(struct doca_rdma *rdma, uint16_t port);

/**
 * @brief Accepts a connection request (from the request callback or later).
 * @param [in] rdma_connection  the connection the request callback named.
 * @param [in] private_data  bytes for the client (NULL for none; odma does not deliver them).
 * @param [in] private_data_len  their length (0 with NULL; at most 196, a CM reply's room).
 * @return DOCA_SUCCESS (both sides then get the established callback); DOCA_ERROR_INVALID_VALUE
 *         (NULL connection, data without length, or more than 196 bytes of it);
 *         DOCA_ERROR_CONNECTION_ABORTED (not a pending request, or the client is gone);
 *         DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_connection_accept(struct doca_rdma_connection *rdma_connection, void *private_data,
					 uint8_t private_data_len);

/**
 * @brief Rejects a connection request; the client gets its failure callback.
 * @param [in] rdma_connection  the connection the request callback named.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_CONNECTION_ABORTED (not a pending request).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_connection_reject(struct doca_rdma_connection *rdma_connection);

/**
 * @brief Asks a server for a connection; the result comes as the established or failure callback.
 * @param [in] rdma  a RUNNING context with connection callbacks set.
 * @param [in] addr  the server's address and port (may be destroyed once this returns).
 * @param [in] connection_user_data  the new connection's user data.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_BAD_STATE (not RUNNING);
 *         DOCA_ERROR_NOT_SUPPORTED (DC transport); DOCA_ERROR_FULL (max_num_connections reached);
 *         DOCA_ERROR_CONNECTION_ABORTED (the connection could not be set up); DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_connect_to_addr(struct doca_rdma *rdma, struct doca_rdma_addr *addr,
				       union doca_data connection_user_data);

/**
 * @brief Ends a connection; its tasks in flight fail, the peer gets its disconnection callback.
 * The local side gets no callback of it from then on (not even one a progress had not raised
 * yet); the connection no longer counts against max_num_connections once this returns.
 * @param [in] rdma_connection  the connection.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_CONNECTION_ABORTED (already disconnected).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_connection_disconnect(struct doca_rdma_connection *rdma_connection);

/**
 * @brief Sets a connection's user data (passed to its callbacks).
 * @param [in] rdma_connection  the connection.
 * @param [in] connection_user_data  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_connection_set_user_data(struct doca_rdma_connection *rdma_connection,
						union doca_data connection_user_data);

/**
 * @brief A connection's user data.
 * @param [in] rdma_connection  the connection.
 * @param [out] connection_user_data  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_connection_get_user_data(const struct doca_rdma_connection *rdma_connection,
						union doca_data *connection_user_data);

/**
 * @brief A connection's id (unique within its context).
 * @param [in] rdma_connection  the connection.
 * @param [out] connection_id  the id.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_connection_get_id(const struct doca_rdma_connection *rdma_connection,
					 uint32_t *connection_id);

/**
 * @brief The peer address of a connection of the RDMA CM flow.
 * @param [in] rdma_connection  the connection.
 * @param [out] addr  the peer's address (owned by the connection).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_NOT_FOUND (an out-of-band connection has no address).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_connection_get_addr(const struct doca_rdma_connection *rdma_connection,
					   struct doca_rdma_addr **addr);

/**
 * @brief Sets the connection callbacks (before doca_ctx_start()).
 * @param [in] rdma  the context.
 * @param [in] doca_rdma_connect_request_cb  request callback (NULL for a context that never listens).
 * @param [in] doca_rdma_connect_established_cb  established callback.
 * @param [in] doca_rdma_connect_failure_cb  failure callback.
 * @param [in] doca_rdma_disconnect_cb  disconnection callback.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL context or a NULL callback other than
 *         the request callback); DOCA_ERROR_BAD_STATE (the context is not IDLE).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_set_connection_state_callbacks(struct doca_rdma *rdma,
		doca_rdma_connection_request_cb_t doca_rdma_connect_request_cb,
		doca_rdma_connection_established_cb_t doca_rdma_connect_established_cb,
		doca_rdma_connection_failure_cb_t doca_rdma_connect_failure_cb,
		doca_rdma_connection_disconnection_cb_t doca_rdma_disconnect_cb);

/**
 * @brief Prepares a connection over an rdma_cm id the program owns (not emulated).
 * @param [in] rdma  the context.
 * @param [in] cm_id  the id.
 * @param [out] rdma_connection  untouched.
 * @return DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_NOT_SUPPORTED (odma has no librdmacm bridge: use the RDMA CM calls above).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_bridge_prepare_connection(struct doca_rdma *rdma, struct rdma_cm_id *cm_id,
						 struct doca_rdma_connection **rdma_connection);

/**
 * @brief Accepts a bridge connection (not emulated).
 * @param [in] rdma  the context.
 * @param [in] private_data  bytes for the peer.
 * @param [in] private_data_len  their length.
 * @param [in] rdma_connection  the connection.
 * @return DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_NOT_SUPPORTED (odma has no librdmacm bridge: use the RDMA CM calls above).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_bridge_accept(struct doca_rdma *rdma, void *private_data, uint8_t private_data_len,
				     struct doca_rdma_connection *rdma_connection);

/**
 * @brief Marks a bridge connection established (not emulated).
 * @param [in] rdma  the context.
 * @param [in] rdma_connection  the connection.
 * @return DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_NOT_SUPPORTED (odma has no librdmacm bridge: use the RDMA CM calls above).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_bridge_established(struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection);

/* ------------------------------------------------------------------ capabilities */

/**
 * @brief Largest receive queue of a device.
 * @param [in] devinfo  the device.
 * @param [out] max_recv_queue_size  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument);
 *         DOCA_ERROR_NOT_SUPPORTED (the device has no RDMA).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_get_max_recv_queue_size(const struct doca_devinfo *devinfo, uint32_t *max_recv_queue_size);

/**
 * @brief Largest send queue of a device.
 * @param [in] devinfo  the device.
 * @param [out] max_send_queue_size  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument);
 *         DOCA_ERROR_NOT_SUPPORTED (the device has no RDMA).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_get_max_send_queue_size(const struct doca_devinfo *devinfo, uint32_t *max_send_queue_size);

/**
 * @brief Longest source buf list of a send or write of a device.
 * @param [in] devinfo  the device.
 * @param [out] max_send_buf_list_len  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument);
 *         DOCA_ERROR_NOT_SUPPORTED (the device has no RDMA).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_get_max_send_buf_list_len(const struct doca_devinfo *devinfo, uint32_t *max_send_buf_list_len);

/**
 * @brief Largest message (bytes) a task may move of a device.
 * @param [in] devinfo  the device.
 * @param [out] max_message_size  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument);
 *         DOCA_ERROR_NOT_SUPPORTED (the device has no RDMA).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_get_max_message_size(const struct doca_devinfo *devinfo, uint32_t *max_message_size);

/**
 * @brief Entries of the device's GID table of a device.
 * @param [in] devinfo  the device.
 * @param [out] gid_table_size  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument);
 *         DOCA_ERROR_NOT_SUPPORTED (the device has no RDMA).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_get_gid_table_size(const struct doca_devinfo *devinfo, uint32_t *gid_table_size);

/**
 * @brief Entries of a device's GID table (odma: IPv4-mapped GIDs of the device's address).
 * @param [in] devinfo  the device.
 * @param [in] start_index  first entry.
 * @param [in] num_entries  entries to copy.
 * @param [out] gid_array  room for @p num_entries entries.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, or a range past the table);
 *         DOCA_ERROR_NOT_SUPPORTED (the device has no RDMA).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_get_gid(const struct doca_devinfo *devinfo, uint32_t start_index,
				   uint32_t num_entries, struct doca_rdma_gid *gid_array);

/**
 * @brief Whether a device supports a transport type.
 * @param [in] devinfo  the device.
 * @param [in] transport_type  RC or DC.
 * @return DOCA_SUCCESS (supported); DOCA_ERROR_INVALID_VALUE (NULL, unknown type);
 *         DOCA_ERROR_NOT_SUPPORTED.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_transport_type_is_supported(const struct doca_devinfo *devinfo,
						       enum doca_rdma_transport_type transport_type);

/* ------------------------------------------------------ properties (before start) */

/**
 * @brief Sets the send queue size (tasks in flight per connection; rounded up to a power of 2).
 * @param [in] rdma  the context.
 * @param [in] send_queue_size  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_BAD_STATE (the context is not IDLE);
 *         DOCA_ERROR_NOT_SUPPORTED (0, or above doca_rdma_cap_get_max_send_queue_size()).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_set_send_queue_size(struct doca_rdma *rdma, uint32_t send_queue_size);

/**
 * @brief Sets the receive queue size (GPU/DPA datapaths only).
 * @param [in] rdma  the context.
 * @param [in] recv_queue_size  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_BAD_STATE (the context is not IDLE);
 *         DOCA_ERROR_NOT_SUPPORTED (always: the CPU datapath has no separate receive queue).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_set_recv_queue_size(struct doca_rdma *rdma, uint32_t recv_queue_size);

/**
 * @brief Sets the longest source buf list of a send or write.
 * @param [in] rdma  the context.
 * @param [in] max_send_buf_list_len  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_BAD_STATE (the context is not IDLE);
 *         DOCA_ERROR_NOT_SUPPORTED (0, or above doca_rdma_cap_get_max_send_buf_list_len()).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_set_max_send_buf_list_len(struct doca_rdma *rdma, uint32_t max_send_buf_list_len);

/**
 * @brief Sets the transport type (RC or DC).
 * @param [in] rdma  the context.
 * @param [in] transport_type  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_BAD_STATE (the context is not IDLE);
 *         DOCA_ERROR_NOT_SUPPORTED (unknown type, or the device does not support it).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_set_transport_type(struct doca_rdma *rdma, enum doca_rdma_transport_type transport_type);

/**
 * @brief Sets the path MTU (recorded; the emulation does not fragment by it).
 * @param [in] rdma  the context.
 * @param [in] mtu  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_BAD_STATE (the context is not IDLE);
 *         DOCA_ERROR_NOT_SUPPORTED (not one of DOCA_MTU_SIZE_*).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_set_mtu(struct doca_rdma *rdma, enum doca_mtu_size mtu);

/**
 * @brief Sets what peers may do with this context's memory (DOCA_ACCESS_FLAG_* bits).
 * LOCAL_READ_WRITE alone, any RDMA bit and their unions are accepted. Each remote access
 * is checked against the permissions of the exported mmap it targets.
 * @param [in] rdma  the context.
 * @param [in] permissions  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_BAD_STATE (the context is not IDLE);
 *         DOCA_ERROR_INVALID_VALUE (a bit other than LOCAL_READ_WRITE, RDMA_READ, RDMA_WRITE, RDMA_ATOMIC).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_set_permissions(struct doca_rdma *rdma, uint32_t permissions);

/**
 * @brief Sets whether packets carry a GRH (recorded; RoCE needs 1).
 * @param [in] rdma  the context.
 * @param [in] grh_enabled  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_BAD_STATE (the context is not IDLE).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_set_grh_enabled(struct doca_rdma *rdma, uint8_t grh_enabled);

/**
 * @brief Sets the GID index the connections use.
 * @param [in] rdma  the context.
 * @param [in] gid_index  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_BAD_STATE (the context is not IDLE);
 *         DOCA_ERROR_INVALID_VALUE (past doca_rdma_cap_get_gid_table_size()).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_set_gid_index(struct doca_rdma *rdma, uint32_t gid_index);

/**
 * @brief Sets the service level (0..15; recorded).
 * @param [in] rdma  the context.
 * @param [in] sl  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_BAD_STATE (the context is not IDLE);
 *         DOCA_ERROR_INVALID_VALUE (above 15).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_set_sl(struct doca_rdma *rdma, uint32_t sl);

/**
 * @brief Sets how long (ms) a connection attempt may take.
 * @param [in] rdma  the context.
 * @param [in] connection_request_timeout  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_BAD_STATE (the context is not IDLE);
 *         DOCA_ERROR_INVALID_VALUE (0).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_set_connection_request_timeout(struct doca_rdma *rdma, uint16_t connection_request_timeout);

/**
 * @brief Sets how many connections the context may hold.
 * @param [in] rdma  the context.
 * @param [in] max_num_connections  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_BAD_STATE (the context is not IDLE);
 *         DOCA_ERROR_NOT_SUPPORTED (0, or above 1024).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_set_max_num_connections(struct doca_rdma *rdma, uint16_t max_num_connections);

/**
 * @brief Sets the receiver-not-ready retry count (0..7): a send finding no receive is retried for (count + 1) seconds.
 * @param [in] rdma  the context.
 * @param [in] rnr_retry_count  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_BAD_STATE (the context is not IDLE);
 *         DOCA_ERROR_INVALID_VALUE (above 7).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_set_rnr_retry_count(struct doca_rdma *rdma, uint8_t rnr_retry_count);

/**
 * @brief The send queue size (after rounding).
 * @param [in] rdma  the context.
 * @param [out] send_queue_size  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_get_send_queue_size(const struct doca_rdma *rdma, uint32_t *send_queue_size);

/**
 * @brief The receive queue size (GPU/DPA datapaths only).
 * @param [in] rdma  the context.
 * @param [out] recv_queue_size  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument);
 *         DOCA_ERROR_NOT_SUPPORTED (always, on the CPU datapath).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_get_recv_queue_size(const struct doca_rdma *rdma, uint32_t *recv_queue_size);

/**
 * @brief The longest source buf list of a send or write.
 * @param [in] rdma  the context.
 * @param [out] max_send_buf_list_len  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_get_max_send_buf_list_len(const struct doca_rdma *rdma, uint32_t *max_send_buf_list_len);

/**
 * @brief The transport type.
 * @param [in] rdma  the context.
 * @param [out] transport_type  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_get_transport_type(const struct doca_rdma *rdma, enum doca_rdma_transport_type *transport_type);

/**
 * @brief The path MTU.
 * @param [in] rdma  the context.
 * @param [out] mtu  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_get_mtu(const struct doca_rdma *rdma, enum doca_mtu_size *mtu);

/**
 * @brief The permissions.
 * @param [in] rdma  the context.
 * @param [out] permissions  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_get_permissions(struct doca_rdma *rdma, uint32_t *permissions);

/**
 * @brief Whether packets carry a GRH.
 * @param [in] rdma  the context.
 * @param [out] grh_enabled  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_get_grh_enabled(const struct doca_rdma *rdma, uint8_t *grh_enabled);

/**
 * @brief The GID index.
 * @param [in] rdma  the context.
 * @param [out] gid_index  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_get_gid_index(const struct doca_rdma *rdma, uint32_t *gid_index);

/**
 * @brief The service level.
 * @param [in] rdma  the context.
 * @param [out] sl  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_get_sl(const struct doca_rdma *rdma, uint32_t *sl);

/**
 * @brief The connection request timeout (ms).
 * @param [in] rdma  the context.
 * @param [out] connection_request_timeout  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_get_connection_request_timeout(const struct doca_rdma *rdma, uint16_t *connection_request_timeout);

/**
 * @brief How many connections the context may hold.
 * @param [in] rdma  the context.
 * @param [out] max_num_connections  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_get_max_num_connections(struct doca_rdma *rdma, uint16_t *max_num_connections);

/**
 * @brief The receiver-not-ready retry count.
 * @param [in] rdma  the context.
 * @param [out] rnr_retry_count  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_get_rnr_retry_count(const struct doca_rdma *rdma, uint8_t *rnr_retry_count);

/**
 * @brief The context's DPA handle (not emulated).
 * @param [in] rdma  the context.
 * @param [out] dpa_rdma  untouched.
 * @return DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_NOT_SUPPORTED (odma has no DPA or GPU datapath).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_get_dpa_handle(struct doca_rdma *rdma, doca_dpa_dev_rdma_t *dpa_rdma);

/**
 * @brief The context's GPU handle (not emulated).
 * @param [in] rdma  the context.
 * @param [out] gpu_rdma  untouched.
 * @return DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_NOT_SUPPORTED (odma has no DPA or GPU datapath).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_get_gpu_handle(struct doca_rdma *rdma, struct doca_gpu_dev_rdma **gpu_rdma);

/**
 * @brief Attaches a DPA completion context (not emulated).
 * @param [in] rdma  the context.
 * @param [in] dpa_comp  the completion.
 * @return DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_NOT_SUPPORTED (odma has no DPA or GPU datapath).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_dpa_completion_attach(struct doca_rdma *rdma, struct doca_dpa_completion *dpa_comp);

/* ------------------------------------------------------------------------ tasks */

/**
 * @brief Whether a device can run receive tasks.
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS (supported); DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_NOT_SUPPORTED.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_task_receive_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Configures the receive task type (before doca_ctx_start()).
 * @param [in] rdma  the context.
 * @param [in] successful_task_completion_cb  success callback.
 * @param [in] error_task_completion_cb  error callback.
 * @param [in] num_tasks  tasks in the pool.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument, 0 tasks, or all task types
 *         together past the device's max_num_tasks, 65536 on the built-in devices);
 *         DOCA_ERROR_BAD_STATE (the context is not IDLE); DOCA_ERROR_NOT_SUPPORTED (the device
 *         cannot run the task).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_task_receive_set_conf(struct doca_rdma *rdma,
		doca_rdma_task_receive_completion_cb_t successful_task_completion_cb,
		doca_rdma_task_receive_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/**
 * @brief The generic task of a receive task.
 * @param [in] task  the task.
 * @return the task, NULL for NULL.
 */
DOCA_EXPERIMENTAL
struct doca_task *doca_rdma_task_receive_as_task(struct doca_rdma_task_receive *task);

/**
 * @brief Longest destination buf list a receive task may have, for a transport type.
 * @param [in] devinfo  the device.
 * @param [in] transport_type  RC or DC.
 * @param [out] max_buf_list_len  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, unknown type); DOCA_ERROR_NOT_SUPPORTED.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_task_receive_get_max_dst_buf_list_len(const struct doca_devinfo *devinfo,
		enum doca_rdma_transport_type transport_type, uint32_t *max_buf_list_len);

/**
 * @brief Sets the longest destination buf list of receive tasks (before start).
 * @param [in] rdma  the context.
 * @param [in] buf_list_len  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_BAD_STATE (the context is not IDLE)
 *         DOCA_ERROR_NOT_SUPPORTED (0, or above the device's maximum); DOCA_ERROR_BAD_STATE (not IDLE).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_task_receive_set_dst_buf_list_len(struct doca_rdma *rdma, uint32_t buf_list_len);

/**
 * @brief The longest destination buf list of receive tasks.
 * @param [in] rdma  the context.
 * @param [out] buf_list_len  the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_task_receive_get_dst_buf_list_len(const struct doca_rdma *rdma, uint32_t *buf_list_len);

/**
 * @brief Allocates a receive task. Receives belong to the context: the oldest posted one takes the next message of any connection.
 * @param [in] rdma  the context.
 * @param [in] dst_buf  where the message is appended (data + data_len; may be NULL for empty messages and writes with immediate).
 * @param [in] user_data  the task's user data.
 * @param [out] task  the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL context or output, or a connection
 *         of another context); DOCA_ERROR_NO_MEMORY (every task of the pool is allocated).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_task_receive_allocate_init(struct doca_rdma *rdma, struct doca_buf *dst_buf,
		union doca_data user_data, struct doca_rdma_task_receive **task);

/**
 * @brief Sets the destination buf of a receive task.
 * @param [in] task  the task.
 * @param [in] dst_buf  the value.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_receive_set_dst_buf(struct doca_rdma_task_receive *task, struct doca_buf *dst_buf);

/**
 * @brief The destination buf of a receive task.
 * @param [in] task  the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
struct doca_buf *doca_rdma_task_receive_get_dst_buf(const struct doca_rdma_task_receive *task);

/**
 * @brief What completed a receive task (valid after its completion).
 * @param [in] task  the task.
 * @return the opcode.
 */
DOCA_EXPERIMENTAL
enum doca_rdma_opcode doca_rdma_task_receive_get_result_opcode(const struct doca_rdma_task_receive *task);

/**
 * @brief Bytes a receive task received (valid after a successful completion).
 * @param [in] task  the task.
 * @return the length.
 */
DOCA_EXPERIMENTAL
uint32_t doca_rdma_task_receive_get_result_len(const struct doca_rdma_task_receive *task);

/**
 * @brief The immediate data a receive task received (the two WITH_IMM opcodes), bytes as sent.
 * @param [in] task  the task.
 * @return the immediate.
 */
DOCA_EXPERIMENTAL
doca_be32_t doca_rdma_task_receive_get_result_immediate_data(const struct doca_rdma_task_receive *task);

/**
 * @brief The local connection a receive task's message came on (valid in the success callback).
 * @param [in] task  the task.
 * @return the connection.
 */
DOCA_EXPERIMENTAL
const struct doca_rdma_connection *doca_rdma_task_receive_get_result_rdma_connection(const struct doca_rdma_task_receive *task);

/**
 * @brief Whether a device can run send tasks.
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS (supported); DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_NOT_SUPPORTED.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_task_send_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Configures the send task type (before doca_ctx_start()).
 * @param [in] rdma  the context.
 * @param [in] successful_task_completion_cb  success callback.
 * @param [in] error_task_completion_cb  error callback.
 * @param [in] num_tasks  tasks in the pool.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument, 0 tasks, or all task types
 *         together past the device's max_num_tasks, 65536 on the built-in devices);
 *         DOCA_ERROR_BAD_STATE (the context is not IDLE); DOCA_ERROR_NOT_SUPPORTED (the device
 *         cannot run the task).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_task_send_set_conf(struct doca_rdma *rdma,
		doca_rdma_task_send_completion_cb_t successful_task_completion_cb,
		doca_rdma_task_send_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/**
 * @brief The generic task of a send task.
 * @param [in] task  the task.
 * @return the task, NULL for NULL.
 */
DOCA_EXPERIMENTAL
struct doca_task *doca_rdma_task_send_as_task(struct doca_rdma_task_send *task);

/**
 * @brief Sets the connection a send task runs on.
 * @param [in] task  the task.
 * @param [in] rdma_connection  a connection of the task's context.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_send_set_rdma_connection(struct doca_rdma_task_send *task,
		struct doca_rdma_connection *rdma_connection);

/**
 * @brief The connection a send task runs on.
 * @param [in] task  the task.
 * @return the connection.
 */
DOCA_EXPERIMENTAL
const struct doca_rdma_connection *doca_rdma_task_send_get_rdma_connection(const struct doca_rdma_task_send *task);

/**
 * @brief Allocates a send task: the source's data segment(s) go to the peer's oldest posted receive.
 * @param [in] rdma  the context.
 * @param [in] rdma_connection  the connection.
 * @param [in] src_buf  the message (NULL: an empty message).
 * @param [in] user_data  the task's user data.
 * @param [out] task  the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL context or output, or a connection
 *         of another context); DOCA_ERROR_NO_MEMORY (every task of the pool is allocated).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_task_send_allocate_init(struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
		const struct doca_buf *src_buf, union doca_data user_data, struct doca_rdma_task_send **task);

/**
 * @brief Sets the source buf of a send task.
 * @param [in] task  the task.
 * @param [in] src_buf  the value.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_send_set_src_buf(struct doca_rdma_task_send *task, const struct doca_buf *src_buf);

/**
 * @brief The source buf of a send task.
 * @param [in] task  the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
const struct doca_buf *doca_rdma_task_send_get_src_buf(const struct doca_rdma_task_send *task);

/**
 * @brief Whether a device can run send with immediate tasks.
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS (supported); DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_NOT_SUPPORTED.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_task_send_imm_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Configures the send with immediate task type (before doca_ctx_start()).
 * @param [in] rdma  the context.
 * @param [in] successful_task_completion_cb  success callback.
 * @param [in] error_task_completion_cb  error callback.
 * @param [in] num_tasks  tasks in the pool.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument, 0 tasks, or all task types
 *         together past the device's max_num_tasks, 65536 on the built-in devices);
 *         DOCA_ERROR_BAD_STATE (the context is not IDLE); DOCA_ERROR_NOT_SUPPORTED (the device
 *         cannot run the task).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_task_send_imm_set_conf(struct doca_rdma *rdma,
		doca_rdma_task_send_imm_completion_cb_t successful_task_completion_cb,
		doca_rdma_task_send_imm_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/**
 * @brief The generic task of a send with immediate task.
 * @param [in] task  the task.
 * @return the task, NULL for NULL.
 */
DOCA_EXPERIMENTAL
struct doca_task *doca_rdma_task_send_imm_as_task(struct doca_rdma_task_send_imm *task);

/**
 * @brief Sets the connection a send with immediate task runs on.
 * @param [in] task  the task.
 * @param [in] rdma_connection  a connection of the task's context.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_send_imm_set_rdma_connection(struct doca_rdma_task_send_imm *task,
		struct doca_rdma_connection *rdma_connection);

/**
 * @brief The connection a send with immediate task runs on.
 * @param [in] task  the task.
 * @return the connection.
 */
DOCA_EXPERIMENTAL
const struct doca_rdma_connection *doca_rdma_task_send_imm_get_rdma_connection(const struct doca_rdma_task_send_imm *task);

/**
 * @brief Allocates a send-with-immediate task (the immediate travels unchanged).
 * @param [in] rdma  the context.
 * @param [in] rdma_connection  the connection.
 * @param [in] src_buf  the message (may be NULL).
 * @param [in] immediate_data  the immediate.
 * @param [in] user_data  the task's user data.
 * @param [out] task  the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL context or output, or a connection
 *         of another context); DOCA_ERROR_NO_MEMORY (every task of the pool is allocated).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_task_send_imm_allocate_init(struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
		const struct doca_buf *src_buf, doca_be32_t immediate_data, union doca_data user_data,
		struct doca_rdma_task_send_imm **task);

/**
 * @brief Sets the source buf of a send imm task.
 * @param [in] task  the task.
 * @param [in] src_buf  the value.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_send_imm_set_src_buf(struct doca_rdma_task_send_imm *task, const struct doca_buf *src_buf);

/**
 * @brief The source buf of a send imm task.
 * @param [in] task  the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
const struct doca_buf *doca_rdma_task_send_imm_get_src_buf(const struct doca_rdma_task_send_imm *task);

/**
 * @brief Sets the immediate of a send imm task.
 * @param [in] task  the task.
 * @param [in] immediate_data  the value.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_send_imm_set_immediate_data(struct doca_rdma_task_send_imm *task, doca_be32_t immediate_data);

/**
 * @brief The immediate of a send imm task.
 * @param [in] task  the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
doca_be32_t doca_rdma_task_send_imm_get_immediate_data(const struct doca_rdma_task_send_imm *task);

/**
 * @brief Whether a device can run read tasks.
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS (supported); DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_NOT_SUPPORTED.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_task_read_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Configures the read task type (before doca_ctx_start()).
 * @param [in] rdma  the context.
 * @param [in] successful_task_completion_cb  success callback.
 * @param [in] error_task_completion_cb  error callback.
 * @param [in] num_tasks  tasks in the pool.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument, 0 tasks, or all task types
 *         together past the device's max_num_tasks, 65536 on the built-in devices);
 *         DOCA_ERROR_BAD_STATE (the context is not IDLE); DOCA_ERROR_NOT_SUPPORTED (the device
 *         cannot run the task).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_task_read_set_conf(struct doca_rdma *rdma,
		doca_rdma_task_read_completion_cb_t successful_task_completion_cb,
		doca_rdma_task_read_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/**
 * @brief The generic task of a read task.
 * @param [in] task  the task.
 * @return the task, NULL for NULL.
 */
DOCA_EXPERIMENTAL
struct doca_task *doca_rdma_task_read_as_task(struct doca_rdma_task_read *task);

/**
 * @brief Sets the connection a read task runs on.
 * @param [in] task  the task.
 * @param [in] rdma_connection  a connection of the task's context.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_read_set_rdma_connection(struct doca_rdma_task_read *task,
		struct doca_rdma_connection *rdma_connection);

/**
 * @brief The connection a read task runs on.
 * @param [in] task  the task.
 * @return the connection.
 */
DOCA_EXPERIMENTAL
const struct doca_rdma_connection *doca_rdma_task_read_get_rdma_connection(const struct doca_rdma_task_read *task);

/**
 * @brief Allocates a read task: the remote source's data segment is appended to the local destination.
 * @param [in] rdma  the context.
 * @param [in] rdma_connection  the connection.
 * @param [in] src_buf  remote: a buf of an mmap made from the peer's doca_mmap_export_rdma().
 * @param [in] dst_buf  local destination.
 * @param [in] user_data  the task's user data.
 * @param [out] task  the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL context or output, or a connection
 *         of another context); DOCA_ERROR_NO_MEMORY (every task of the pool is allocated).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_task_read_allocate_init(struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
		const struct doca_buf *src_buf, struct doca_buf *dst_buf, union doca_data user_data,
		struct doca_rdma_task_read **task);

/**
 * @brief Sets the remote source buf of a read task.
 * @param [in] task  the task.
 * @param [in] src_buf  the value.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_read_set_src_buf(struct doca_rdma_task_read *task, const struct doca_buf *src_buf);

/**
 * @brief The remote source buf of a read task.
 * @param [in] task  the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
const struct doca_buf *doca_rdma_task_read_get_src_buf(const struct doca_rdma_task_read *task);

/**
 * @brief Sets the local destination buf of a read task.
 * @param [in] task  the task.
 * @param [in] dst_buf  the value.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_read_set_dst_buf(struct doca_rdma_task_read *task, struct doca_buf *dst_buf);

/**
 * @brief The local destination buf of a read task.
 * @param [in] task  the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
struct doca_buf *doca_rdma_task_read_get_dst_buf(const struct doca_rdma_task_read *task);

/**
 * @brief Bytes a read task read (valid after a successful completion).
 * @param [in] task  the task.
 * @return the length.
 */
DOCA_EXPERIMENTAL
uint32_t doca_rdma_task_read_get_result_len(const struct doca_rdma_task_read *task);

/**
 * @brief Whether a device can run write tasks.
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS (supported); DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_NOT_SUPPORTED.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_task_write_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Configures the write task type (before doca_ctx_start()).
 * @param [in] rdma  the context.
 * @param [in] successful_task_completion_cb  success callback.
 * @param [in] error_task_completion_cb  error callback.
 * @param [in] num_tasks  tasks in the pool.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument, 0 tasks, or all task types
 *         together past the device's max_num_tasks, 65536 on the built-in devices);
 *         DOCA_ERROR_BAD_STATE (the context is not IDLE); DOCA_ERROR_NOT_SUPPORTED (the device
 *         cannot run the task).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_task_write_set_conf(struct doca_rdma *rdma,
		doca_rdma_task_write_completion_cb_t successful_task_completion_cb,
		doca_rdma_task_write_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/**
 * @brief The generic task of a write task.
 * @param [in] task  the task.
 * @return the task, NULL for NULL.
 */
DOCA_EXPERIMENTAL
struct doca_task *doca_rdma_task_write_as_task(struct doca_rdma_task_write *task);

/**
 * @brief Sets the connection a write task runs on.
 * @param [in] task  the task.
 * @param [in] rdma_connection  a connection of the task's context.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_write_set_rdma_connection(struct doca_rdma_task_write *task,
		struct doca_rdma_connection *rdma_connection);

/**
 * @brief The connection a write task runs on.
 * @param [in] task  the task.
 * @return the connection.
 */
DOCA_EXPERIMENTAL
const struct doca_rdma_connection *doca_rdma_task_write_get_rdma_connection(const struct doca_rdma_task_write *task);

/**
 * @brief Allocates a write task: the local source's data segment(s) go to the remote destination's data + data_len, whose data_len grows (as a DMA destination).
 * @param [in] rdma  the context.
 * @param [in] rdma_connection  the connection.
 * @param [in] src_buf  local source (may be NULL: write nothing).
 * @param [in] dst_buf  remote destination (a buf of a from-export mmap).
 * @param [in] user_data  the task's user data.
 * @param [out] task  the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL context or output, or a connection
 *         of another context); DOCA_ERROR_NO_MEMORY (every task of the pool is allocated).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_task_write_allocate_init(struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
		const struct doca_buf *src_buf, struct doca_buf *dst_buf, union doca_data user_data,
		struct doca_rdma_task_write **task);

/**
 * @brief Sets the local source buf of a write task.
 * @param [in] task  the task.
 * @param [in] src_buf  the value.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_write_set_src_buf(struct doca_rdma_task_write *task, const struct doca_buf *src_buf);

/**
 * @brief The local source buf of a write task.
 * @param [in] task  the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
const struct doca_buf *doca_rdma_task_write_get_src_buf(const struct doca_rdma_task_write *task);

/**
 * @brief Sets the remote destination buf of a write task.
 * @param [in] task  the task.
 * @param [in] dst_buf  the value.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_write_set_dst_buf(struct doca_rdma_task_write *task, struct doca_buf *dst_buf);

/**
 * @brief The remote destination buf of a write task.
 * @param [in] task  the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
struct doca_buf *doca_rdma_task_write_get_dst_buf(const struct doca_rdma_task_write *task);

/**
 * @brief Whether a device can run write with immediate tasks.
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS (supported); DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_NOT_SUPPORTED.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_task_write_imm_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Configures the write with immediate task type (before doca_ctx_start()).
 * @param [in] rdma  the context.
 * @param [in] successful_task_completion_cb  success callback.
 * @param [in] error_task_completion_cb  error callback.
 * @param [in] num_tasks  tasks in the pool.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument, 0 tasks, or all task types
 *         together past the device's max_num_tasks, 65536 on the built-in devices);
 *         DOCA_ERROR_BAD_STATE (the context is not IDLE); DOCA_ERROR_NOT_SUPPORTED (the device
 *         cannot run the task).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_task_write_imm_set_conf(struct doca_rdma *rdma,
		doca_rdma_task_write_imm_completion_cb_t successful_task_completion_cb,
		doca_rdma_task_write_imm_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/**
 * @brief The generic task of a write with immediate task.
 * @param [in] task  the task.
 * @return the task, NULL for NULL.
 */
DOCA_EXPERIMENTAL
struct doca_task *doca_rdma_task_write_imm_as_task(struct doca_rdma_task_write_imm *task);

/**
 * @brief Sets the connection a write with immediate task runs on.
 * @param [in] task  the task.
 * @param [in] rdma_connection  a connection of the task's context.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_write_imm_set_rdma_connection(struct doca_rdma_task_write_imm *task,
		struct doca_rdma_connection *rdma_connection);

/**
 * @brief The connection a write with immediate task runs on.
 * @param [in] task  the task.
 * @return the connection.
 */
DOCA_EXPERIMENTAL
const struct doca_rdma_connection *doca_rdma_task_write_imm_get_rdma_connection(const struct doca_rdma_task_write_imm *task);

/**
 * @brief Allocates a write-with-immediate task: a write, then the immediate completes the peer's oldest receive (RECV_WRITE_WITH_IMM) once the bytes are in place.
 * @param [in] rdma  the context.
 * @param [in] rdma_connection  the connection.
 * @param [in] src_buf  local source (may be NULL: write nothing).
 * @param [in] dst_buf  remote destination (a buf of a from-export mmap).
 * @param [in] immediate_data  the immediate.
 * @param [in] user_data  the task's user data.
 * @param [out] task  the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL context or output, or a connection
 *         of another context); DOCA_ERROR_NO_MEMORY (every task of the pool is allocated).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_task_write_imm_allocate_init(struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
		const struct doca_buf *src_buf, struct doca_buf *dst_buf, doca_be32_t immediate_data,
		union doca_data user_data, struct doca_rdma_task_write_imm **task);

/**
 * @brief Sets the local source buf of a write imm task.
 * @param [in] task  the task.
 * @param [in] src_buf  the value.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_write_imm_set_src_buf(struct doca_rdma_task_write_imm *task, const struct doca_buf *src_buf);

/**
 * @brief The local source buf of a write imm task.
 * @param [in] task  the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
const struct doca_buf *doca_rdma_task_write_imm_get_src_buf(const struct doca_rdma_task_write_imm *task);

/**
 * @brief Sets the remote destination buf of a write imm task.
 * @param [in] task  the task.
 * @param [in] dst_buf  the value.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_write_imm_set_dst_buf(struct doca_rdma_task_write_imm *task, struct doca_buf *dst_buf);

/**
 * @brief The remote destination buf of a write imm task.
 * @param [in] task  the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
struct doca_buf *doca_rdma_task_write_imm_get_dst_buf(const struct doca_rdma_task_write_imm *task);

/**
 * @brief Sets the immediate of a write imm task.
 * @param [in] task  the task.
 * @param [in] immediate_data  the value.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_write_imm_set_immediate_data(struct doca_rdma_task_write_imm *task, doca_be32_t immediate_data);

/**
 * @brief The immediate of a write imm task.
 * @param [in] task  the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
doca_be32_t doca_rdma_task_write_imm_get_immediate_data(const struct doca_rdma_task_write_imm *task);

/**
 * @brief Whether a device can run atomic compare-and-swap tasks.
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS (supported); DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_NOT_SUPPORTED.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_task_atomic_cmp_swp_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Configures the atomic compare-and-swap task type (before doca_ctx_start()).
 * @param [in] rdma  the context.
 * @param [in] successful_task_completion_cb  success callback.
 * @param [in] error_task_completion_cb  error callback.
 * @param [in] num_tasks  tasks in the pool.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument, 0 tasks, or all task types
 *         together past the device's max_num_tasks, 65536 on the built-in devices);
 *         DOCA_ERROR_BAD_STATE (the context is not IDLE); DOCA_ERROR_NOT_SUPPORTED (the device
 *         cannot run the task).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_task_atomic_cmp_swp_set_conf(struct doca_rdma *rdma,
		doca_rdma_task_atomic_cmp_swp_completion_cb_t successful_task_completion_cb,
		doca_rdma_task_atomic_cmp_swp_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/**
 * @brief The generic task of a atomic compare-and-swap task.
 * @param [in] task  the task.
 * @return the task, NULL for NULL.
 */
DOCA_EXPERIMENTAL
struct doca_task *doca_rdma_task_atomic_cmp_swp_as_task(struct doca_rdma_task_atomic_cmp_swp *task);

/**
 * @brief Sets the connection a atomic compare-and-swap task runs on.
 * @param [in] task  the task.
 * @param [in] rdma_connection  a connection of the task's context.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_atomic_cmp_swp_set_rdma_connection(struct doca_rdma_task_atomic_cmp_swp *task,
		struct doca_rdma_connection *rdma_connection);

/**
 * @brief The connection a atomic compare-and-swap task runs on.
 * @param [in] task  the task.
 * @return the connection.
 */
DOCA_EXPERIMENTAL
const struct doca_rdma_connection *doca_rdma_task_atomic_cmp_swp_get_rdma_connection(const struct doca_rdma_task_atomic_cmp_swp *task);

/**
 * @brief Allocates a compare-and-swap task on the first 8 bytes of a remote buf (old value into result_buf).
 * @param [in] rdma  the context.
 * @param [in] rdma_connection  the connection.
 * @param [in] dst_buf  remote target (8-byte aligned data).
 * @param [in] result_buf  local buf that receives the old value.
 * @param [in] cmp_data  expected value.
 * @param [in] swap_data  new value.
 * @param [in] user_data  the task's user data.
 * @param [out] task  the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL context or output, or a connection
 *         of another context); DOCA_ERROR_NO_MEMORY (every task of the pool is allocated).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_task_atomic_cmp_swp_allocate_init(struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
		struct doca_buf *dst_buf, struct doca_buf *result_buf, uint64_t cmp_data, uint64_t swap_data,
		union doca_data user_data, struct doca_rdma_task_atomic_cmp_swp **task);

/**
 * @brief Sets the remote target buf of a atomic cmp swp task.
 * @param [in] task  the task.
 * @param [in] dst_buf  the value.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_atomic_cmp_swp_set_dst_buf(struct doca_rdma_task_atomic_cmp_swp *task, struct doca_buf *dst_buf);

/**
 * @brief The remote target buf of a atomic cmp swp task.
 * @param [in] task  the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
struct doca_buf *doca_rdma_task_atomic_cmp_swp_get_dst_buf(const struct doca_rdma_task_atomic_cmp_swp *task);

/**
 * @brief Sets the result buf of a atomic cmp swp task.
 * @param [in] task  the task.
 * @param [in] result_buf  the value.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_atomic_cmp_swp_set_result_buf(struct doca_rdma_task_atomic_cmp_swp *task, struct doca_buf *result_buf);

/**
 * @brief The result buf of a atomic cmp swp task.
 * @param [in] task  the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
struct doca_buf *doca_rdma_task_atomic_cmp_swp_get_result_buf(const struct doca_rdma_task_atomic_cmp_swp *task);

/**
 * @brief Sets the compare value of a atomic cmp swp task.
 * @param [in] task  the task.
 * @param [in] cmp_data  the value.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_atomic_cmp_swp_set_cmp_data(struct doca_rdma_task_atomic_cmp_swp *task, uint64_t cmp_data);

/**
 * @brief The compare value of a atomic cmp swp task.
 * @param [in] task  the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
uint64_t doca_rdma_task_atomic_cmp_swp_get_cmp_data(const struct doca_rdma_task_atomic_cmp_swp *task);

/**
 * @brief Sets the swap value of a atomic cmp swp task.
 * @param [in] task  the task.
 * @param [in] swap_data  the value.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_atomic_cmp_swp_set_swap_data(struct doca_rdma_task_atomic_cmp_swp *task, uint64_t swap_data);

/**
 * @brief The swap value of a atomic cmp swp task.
 * @param [in] task  the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
uint64_t doca_rdma_task_atomic_cmp_swp_get_swap_data(const struct doca_rdma_task_atomic_cmp_swp *task);

/**
 * @brief Whether a device can run atomic fetch-and-add tasks.
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS (supported); DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_NOT_SUPPORTED.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_task_atomic_fetch_add_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Configures the atomic fetch-and-add task type (before doca_ctx_start()).
 * @param [in] rdma  the context.
 * @param [in] successful_task_completion_cb  success callback.
 * @param [in] error_task_completion_cb  error callback.
 * @param [in] num_tasks  tasks in the pool.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument, 0 tasks, or all task types
 *         together past the device's max_num_tasks, 65536 on the built-in devices);
 *         DOCA_ERROR_BAD_STATE (the context is not IDLE); DOCA_ERROR_NOT_SUPPORTED (the device
 *         cannot run the task).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_task_atomic_fetch_add_set_conf(struct doca_rdma *rdma,
		doca_rdma_task_atomic_fetch_add_completion_cb_t successful_task_completion_cb,
		doca_rdma_task_atomic_fetch_add_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/**
 * @brief The generic task of a atomic fetch-and-add task.
 * @param [in] task  the task.
 * @return the task, NULL for NULL.
 */
DOCA_EXPERIMENTAL
struct doca_task *doca_rdma_task_atomic_fetch_add_as_task(struct doca_rdma_task_atomic_fetch_add *task);

/**
 * @brief Sets the connection a atomic fetch-and-add task runs on.
 * @param [in] task  the task.
 * @param [in] rdma_connection  a connection of the task's context.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_atomic_fetch_add_set_rdma_connection(struct doca_rdma_task_atomic_fetch_add *task,
		struct doca_rdma_connection *rdma_connection);

/**
 * @brief The connection a atomic fetch-and-add task runs on.
 * @param [in] task  the task.
 * @return the connection.
 */
DOCA_EXPERIMENTAL
const struct doca_rdma_connection *doca_rdma_task_atomic_fetch_add_get_rdma_connection(const struct doca_rdma_task_atomic_fetch_add *task);

/**
 * @brief Allocates a fetch-and-add task on the first 8 bytes of a remote buf (old value into result_buf).
 * @param [in] rdma  the context.
 * @param [in] rdma_connection  the connection.
 * @param [in] dst_buf  remote target.
 * @param [in] result_buf  local buf that receives the old value.
 * @param [in] add_data  value to add.
 * @param [in] user_data  the task's user data.
 * @param [out] task  the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL context or output, or a connection
 *         of another context); DOCA_ERROR_NO_MEMORY (every task of the pool is allocated).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_task_atomic_fetch_add_allocate_init(struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
		struct doca_buf *dst_buf, struct doca_buf *result_buf, uint64_t add_data, union doca_data user_data,
		struct doca_rdma_task_atomic_fetch_add **task);

/**
 * @brief Sets the remote target buf of a atomic fetch add task.
 * @param [in] task  the task.
 * @param [in] dst_buf  the value.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_atomic_fetch_add_set_dst_buf(struct doca_rdma_task_atomic_fetch_add *task, struct doca_buf *dst_buf);

/**
 * @brief The remote target buf of a atomic fetch add task.
 * @param [in] task  the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
struct doca_buf *doca_rdma_task_atomic_fetch_add_get_dst_buf(const struct doca_rdma_task_atomic_fetch_add *task);

/**
 * @brief Sets the result buf of a atomic fetch add task.
 * @param [in] task  the task.
 * @param [in] result_buf  the value.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_atomic_fetch_add_set_result_buf(struct doca_rdma_task_atomic_fetch_add *task, struct doca_buf *result_buf);

/**
 * @brief The result buf of a atomic fetch add task.
 * @param [in] task  the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
struct doca_buf *doca_rdma_task_atomic_fetch_add_get_result_buf(const struct doca_rdma_task_atomic_fetch_add *task);

/**
 * @brief Sets the add value of a atomic fetch add task.
 * @param [in] task  the task.
 * @param [in] add_data  the value.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_atomic_fetch_add_set_add_data(struct doca_rdma_task_atomic_fetch_add *task, uint64_t add_data);

/**
 * @brief The add value of a atomic fetch add task.
 * @param [in] task  the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
uint64_t doca_rdma_task_atomic_fetch_add_get_add_data(const struct doca_rdma_task_atomic_fetch_add *task);

/**
 * @brief Whether a device can run remote sync event get tasks.
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS (supported); DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_NOT_SUPPORTED.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_task_remote_net_sync_event_get_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Configures the remote sync event get task type (before doca_ctx_start()).
 * @param [in] rdma  the context.
 * @param [in] successful_task_completion_cb  success callback.
 * @param [in] error_task_completion_cb  error callback.
 * @param [in] num_tasks  tasks in the pool.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument, 0 tasks, or all task types
 *         together past the device's max_num_tasks, 65536 on the built-in devices);
 *         DOCA_ERROR_BAD_STATE (the context is not IDLE); DOCA_ERROR_NOT_SUPPORTED (the device
 *         cannot run the task).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_task_remote_net_sync_event_get_set_conf(struct doca_rdma *rdma,
		doca_rdma_task_remote_net_sync_event_get_completion_cb_t successful_task_completion_cb,
		doca_rdma_task_remote_net_sync_event_get_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/**
 * @brief The generic task of a remote sync event get task.
 * @param [in] task  the task.
 * @return the task, NULL for NULL.
 */
DOCA_EXPERIMENTAL
struct doca_task *doca_rdma_task_remote_net_sync_event_get_as_task(struct doca_rdma_task_remote_net_sync_event_get *task);

/**
 * @brief Sets the connection a remote sync event get task runs on.
 * @param [in] task  the task.
 * @param [in] rdma_connection  a connection of the task's context.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_remote_net_sync_event_get_set_rdma_connection(struct doca_rdma_task_remote_net_sync_event_get *task,
		struct doca_rdma_connection *rdma_connection);

/**
 * @brief The connection a remote sync event get task runs on.
 * @param [in] task  the task.
 * @return the connection.
 */
DOCA_EXPERIMENTAL
const struct doca_rdma_connection *doca_rdma_task_remote_net_sync_event_get_get_rdma_connection(const struct doca_rdma_task_remote_net_sync_event_get *task);

/**
 * @brief Allocates a task that reads the 8-byte value of a peer's sync event (appended to dst_buf).
 * @param [in] rdma  the context.
 * @param [in] rdma_connection  the connection to the event's exporter.
 * @param [in] event  from doca_sync_event_remote_net_create_from_export().
 * @param [in] dst_buf  local destination (8 bytes of room).
 * @param [in] user_data  the task's user data.
 * @param [out] task  the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL context or output, or a connection
 *         of another context); DOCA_ERROR_NO_MEMORY (every task of the pool is allocated).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_task_remote_net_sync_event_get_allocate_init(struct doca_rdma *rdma,
		struct doca_rdma_connection *rdma_connection, const struct doca_sync_event_remote_net *event,
		struct doca_buf *dst_buf, union doca_data user_data, struct doca_rdma_task_remote_net_sync_event_get **task);

/**
 * @brief Sets the event of a remote net sync event get task.
 * @param [in] task  the task.
 * @param [in] sync_event  the value.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_remote_net_sync_event_get_set_sync_event(struct doca_rdma_task_remote_net_sync_event_get *task, const struct doca_sync_event_remote_net *sync_event);

/**
 * @brief The event of a remote net sync event get task.
 * @param [in] task  the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
const struct doca_sync_event_remote_net *doca_rdma_task_remote_net_sync_event_get_get_sync_event(const struct doca_rdma_task_remote_net_sync_event_get *task);

/**
 * @brief Sets the destination buf of a remote net sync event get task.
 * @param [in] task  the task.
 * @param [in] dst_buf  the value.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_remote_net_sync_event_get_set_dst_buf(struct doca_rdma_task_remote_net_sync_event_get *task, struct doca_buf *dst_buf);

/**
 * @brief The destination buf of a remote net sync event get task.
 * @param [in] task  the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
struct doca_buf *doca_rdma_task_remote_net_sync_event_get_get_dst_buf(const struct doca_rdma_task_remote_net_sync_event_get *task);

/**
 * @brief Bytes a get task wrote (8, after a successful completion).
 * @param [in] task  the task.
 * @return the length.
 */
DOCA_EXPERIMENTAL
uint32_t doca_rdma_task_remote_net_sync_event_get_get_result_len(const struct doca_rdma_task_remote_net_sync_event_get *task);

/**
 * @brief Whether a device can run remote sync event notify-set tasks.
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS (supported); DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_NOT_SUPPORTED.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_task_remote_net_sync_event_notify_set_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Configures the remote sync event notify-set task type (before doca_ctx_start()).
 * @param [in] rdma  the context.
 * @param [in] successful_task_completion_cb  success callback.
 * @param [in] error_task_completion_cb  error callback.
 * @param [in] num_tasks  tasks in the pool.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument, 0 tasks, or all task types
 *         together past the device's max_num_tasks, 65536 on the built-in devices);
 *         DOCA_ERROR_BAD_STATE (the context is not IDLE); DOCA_ERROR_NOT_SUPPORTED (the device
 *         cannot run the task).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_task_remote_net_sync_event_notify_set_set_conf(struct doca_rdma *rdma,
		doca_rdma_task_remote_net_sync_event_notify_set_completion_cb_t successful_task_completion_cb,
		doca_rdma_task_remote_net_sync_event_notify_set_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/**
 * @brief The generic task of a remote sync event notify-set task.
 * @param [in] task  the task.
 * @return the task, NULL for NULL.
 */
DOCA_EXPERIMENTAL
struct doca_task *doca_rdma_task_remote_net_sync_event_notify_set_as_task(struct doca_rdma_task_remote_net_sync_event_notify_set *task);

/**
 * @brief Sets the connection a remote sync event notify-set task runs on.
 * @param [in] task  the task.
 * @param [in] rdma_connection  a connection of the task's context.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_remote_net_sync_event_notify_set_set_rdma_connection(struct doca_rdma_task_remote_net_sync_event_notify_set *task,
		struct doca_rdma_connection *rdma_connection);

/**
 * @brief The connection a remote sync event notify-set task runs on.
 * @param [in] task  the task.
 * @return the connection.
 */
DOCA_EXPERIMENTAL
const struct doca_rdma_connection *doca_rdma_task_remote_net_sync_event_notify_set_get_rdma_connection(const struct doca_rdma_task_remote_net_sync_event_notify_set *task);

/**
 * @brief Allocates a task that sets a peer's sync event to the 8 bytes (host order) of src_buf's data and wakes its waiters.
 * @param [in] rdma  the context.
 * @param [in] rdma_connection  the connection to the event's exporter.
 * @param [in] event  the remote event.
 * @param [in] src_buf  local source holding the value (read at submit).
 * @param [in] user_data  the task's user data.
 * @param [out] task  the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL context or output, or a connection
 *         of another context); DOCA_ERROR_NO_MEMORY (every task of the pool is allocated).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_task_remote_net_sync_event_notify_set_allocate_init(struct doca_rdma *rdma,
		struct doca_rdma_connection *rdma_connection, struct doca_sync_event_remote_net *event,
		const struct doca_buf *src_buf, union doca_data user_data,
		struct doca_rdma_task_remote_net_sync_event_notify_set **task);

/**
 * @brief Sets the event of a remote net sync event notify set task.
 * @param [in] task  the task.
 * @param [in] sync_event  the value.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_remote_net_sync_event_notify_set_set_sync_event(struct doca_rdma_task_remote_net_sync_event_notify_set *task, struct doca_sync_event_remote_net *sync_event);

/**
 * @brief The event of a remote net sync event notify set task.
 * @param [in] task  the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
struct doca_sync_event_remote_net *doca_rdma_task_remote_net_sync_event_notify_set_get_sync_event(const struct doca_rdma_task_remote_net_sync_event_notify_set *task);

/**
 * @brief Sets the source buf of a remote net sync event notify set task.
 * @param [in] task  the task.
 * @param [in] src_buf  the value.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_remote_net_sync_event_notify_set_set_src_buf(struct doca_rdma_task_remote_net_sync_event_notify_set *task, const struct doca_buf *src_buf);

/**
 * @brief The source buf of a remote net sync event notify set task.
 * @param [in] task  the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
const struct doca_buf *doca_rdma_task_remote_net_sync_event_notify_set_get_src_buf(const struct doca_rdma_task_remote_net_sync_event_notify_set *task);

/**
 * @brief Whether a device can run remote sync event notify-add tasks.
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS (supported); DOCA_ERROR_INVALID_VALUE (NULL argument); DOCA_ERROR_NOT_SUPPORTED.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_task_remote_net_sync_event_notify_add_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Configures the remote sync event notify-add task type (before doca_ctx_start()).
 * @param [in] rdma  the context.
 * @param [in] successful_task_completion_cb  success callback.
 * @param [in] error_task_completion_cb  error callback.
 * @param [in] num_tasks  tasks in the pool.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument, 0 tasks, or all task types
 *         together past the device's max_num_tasks, 65536 on the built-in devices);
 *         DOCA_ERROR_BAD_STATE (the context is not IDLE); DOCA_ERROR_NOT_SUPPORTED (the device
 *         cannot run the task).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_task_remote_net_sync_event_notify_add_set_conf(struct doca_rdma *rdma,
		doca_rdma_task_remote_net_sync_event_notify_add_completion_cb_t successful_task_completion_cb,
		doca_rdma_task_remote_net_sync_event_notify_add_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/**
 * @brief The generic task of a remote sync event notify-add task.
 * @param [in] task  the task.
 * @return the task, NULL for NULL.
 */
DOCA_EXPERIMENTAL
struct doca_task *doca_rdma_task_remote_net_sync_event_notify_add_as_task(struct doca_rdma_task_remote_net_sync_event_notify_add *task);

/**
 * @brief Sets the connection a remote sync event notify-add task runs on.
 * @param [in] task  the task.
 * @param [in] rdma_connection  a connection of the task's context.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_remote_net_sync_event_notify_add_set_rdma_connection(struct doca_rdma_task_remote_net_sync_event_notify_add *task,
		struct doca_rdma_connection *rdma_connection);

/**
 * @brief The connection a remote sync event notify-add task runs on.
 * @param [in] task  the task.
 * @return the connection.
 */
DOCA_EXPERIMENTAL
const struct doca_rdma_connection *doca_rdma_task_remote_net_sync_event_notify_add_get_rdma_connection(const struct doca_rdma_task_remote_net_sync_event_notify_add *task);

/**
 * @brief Allocates a task that adds to a peer's sync event (old value into result_buf) and wakes its waiters.
 * @param [in] rdma  the context.
 * @param [in] rdma_connection  the connection to the event's exporter.
 * @param [in] event  the remote event.
 * @param [in] result_buf  local buf that receives the old value.
 * @param [in] add_data  value to add.
 * @param [in] user_data  the task's user data.
 * @param [out] task  the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL context or output, or a connection
 *         of another context); DOCA_ERROR_NO_MEMORY (every task of the pool is allocated).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_task_remote_net_sync_event_notify_add_allocate_init(struct doca_rdma *rdma,
		struct doca_rdma_connection *rdma_connection, struct doca_sync_event_remote_net *event,
		struct doca_buf *result_buf, uint64_t add_data, union doca_data user_data,
		struct doca_rdma_task_remote_net_sync_event_notify_add **task);

/**
 * @brief Sets the event of a remote net sync event notify add task.
 * @param [in] task  the task.
 * @param [in] sync_event  the value.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_remote_net_sync_event_notify_add_set_sync_event(struct doca_rdma_task_remote_net_sync_event_notify_add *task, struct doca_sync_event_remote_net *sync_event);

/**
 * @brief The event of a remote net sync event notify add task.
 * @param [in] task  the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
struct doca_sync_event_remote_net *doca_rdma_task_remote_net_sync_event_notify_add_get_sync_event(const struct doca_rdma_task_remote_net_sync_event_notify_add *task);

/**
 * @brief Sets the result buf of a remote net sync event notify add task.
 * @param [in] task  the task.
 * @param [in] result_buf  the value.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_remote_net_sync_event_notify_add_set_result_buf(struct doca_rdma_task_remote_net_sync_event_notify_add *task, struct doca_buf *result_buf);

/**
 * @brief The result buf of a remote net sync event notify add task.
 * @param [in] task  the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
struct doca_buf *doca_rdma_task_remote_net_sync_event_notify_add_get_result_buf(const struct doca_rdma_task_remote_net_sync_event_notify_add *task);

/**
 * @brief Sets the add value of a remote net sync event notify add task.
 * @param [in] task  the task.
 * @param [in] add_data  the value.
 */
DOCA_EXPERIMENTAL
void doca_rdma_task_remote_net_sync_event_notify_add_set_add_data(struct doca_rdma_task_remote_net_sync_event_notify_add *task, uint64_t add_data);

/**
 * @brief The add value of a remote net sync event notify add task.
 * @param [in] task  the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
uint64_t doca_rdma_task_remote_net_sync_event_notify_add_get_add_data(const struct doca_rdma_task_remote_net_sync_event_notify_add *task);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DOCA_RDMA_H_ */
