/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */

/**
 * @file doca_comch.h
 * @brief DOCA Comch: a message channel between a host process (client) and a DPU process
 *        (server), and the connections that carry fast-path producers and consumers.
 *
 * @code
 *   // DPU side (server): a DPU device plus the representor of the host function served
 *   doca_comch_server_create(dev, rep, "my server", &server);
 *   doca_comch_server_task_send_set_conf(server, sent_cb, send_err_cb, 64);
 *   doca_comch_server_event_msg_recv_register(server, recv_cb);
 *   doca_comch_server_event_connection_status_changed_register(server, conn_cb, disconn_cb);
 *   doca_pe_connect_ctx(pe, doca_comch_server_as_ctx(server));
 *   doca_ctx_start(doca_comch_server_as_ctx(server));             // DOCA_SUCCESS: RUNNING
 *
 *   // host side (client): a host device and the server's name
 *   doca_comch_client_create(dev, "my server", &client);
 *   ... same configuration calls with the client_ prefix ...
 *   doca_ctx_start(doca_comch_client_as_ctx(client));             // DOCA_ERROR_IN_PROGRESS
 *   ... doca_pe_progress(pe) until the state callback reports RUNNING ...
 *   doca_comch_client_get_connection(client, &conn);
 *   doca_comch_client_task_send_alloc_init(client, conn, msg, len, &task);
 *   doca_task_submit(doca_comch_task_send_as_task(task));
 * @endcode
 *
 * Emulation (odma): the two sides are two processes of one emulated system (same
 * ODMA_SYSTEM). A server listens on a SOCK_SEQPACKET Unix socket in the runtime directory
 * (ODMA_RUNDIR); its name is derived from the system, the representor's PCI address and the
 * server name, so a client on host device B reaches the server started on the representor of
 * B. Events and completions are delivered only from doca_pe_progress() of the context's
 * progress engine; Comch contexts do not wake a progress engine's notification handle, so
 * poll them. Messages keep their boundaries and their order on a connection; a send task
 * copies the message when it is allocated, so the caller's buffer may be reused at once.
 * See docs/comch.md.
 */
#ifndef DOCA_COMCH_H_
#define DOCA_COMCH_H_

#include <stddef.h>
#include <stdint.h>
#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_ctx;
struct doca_dev;
struct doca_dev_rep;
struct doca_devinfo;
struct doca_task;

/** A DPU-side endpoint that accepts connections from clients (a context). */
struct doca_comch_server;
/** A host-side endpoint that connects to one server (a context). */
struct doca_comch_client;
/** One client-server connection, as seen from either side. */
struct doca_comch_connection;
/** A task that sends one control-path message on a connection. */
struct doca_comch_task_send;
/** Opaque token passed to a message-received callback. */
struct doca_comch_event_msg_recv;
/** Opaque token passed to a connect / disconnect callback. */
struct doca_comch_event_connection_status_changed;
/** Opaque token passed to a new-consumer / expired-consumer callback. */
struct doca_comch_event_consumer;

/** Counters kept per connection (read with doca_comch_connection_get_counter). */
enum doca_comch_counter {
	DOCA_COMCH_COUNTER_SENT_MESSAGES = 1, /**< messages this side sent */
	DOCA_COMCH_COUNTER_SENT_BYTES = 2,    /**< payload bytes this side sent */
	DOCA_COMCH_COUNTER_RECV_MESSAGES = 3, /**< messages this side received */
	DOCA_COMCH_COUNTER_RECV_BYTES = 4,    /**< payload bytes this side received */
};

/** Completion (or error) callback of a send task. */
typedef void (*doca_comch_task_send_completion_cb_t)(struct doca_comch_task_send *task,
                                                     union doca_data task_user_data,
                                                     union doca_data ctx_user_data);

/**
 * Message-received callback. @p recv_buffer holds exactly one message of @p msg_len bytes
 * and is valid only until the callback returns (copy what you keep). The callback may
 * allocate and submit send tasks; it must not call doca_pe_progress.
 */
typedef void (*doca_comch_event_msg_recv_cb_t)(struct doca_comch_event_msg_recv *event,
                                               uint8_t *recv_buffer, uint32_t msg_len,
                                               struct doca_comch_connection *comch_connection);

/**
 * Connect or disconnect callback of a server. @p change_successful is 1 when the change
 * happened. A server-side connection handle stays valid until its disconnect callback
 * returns (or until doca_comch_server_disconnect when the server drops it).
 */
typedef void (*doca_comch_event_connection_status_changed_cb_t)(
        struct doca_comch_event_connection_status_changed *event,
        struct doca_comch_connection *comch_connection, uint8_t change_successful);

/**
 * New-consumer or expired-consumer callback: a consumer with id @p id was created (or went
 * away) on the peer side of @p comch_connection. Producers address it by that id.
 */
typedef void (*doca_comch_event_consumer_cb_t)(struct doca_comch_event_consumer *event,
                                               struct doca_comch_connection *comch_connection,
                                               uint32_t id);

/* ---------------------------------------------------------------------------------------- */
/* Connections                                                                               */
/* ---------------------------------------------------------------------------------------- */

/**
 * @brief Attaches a value of the program's choice to a connection.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL connection).
 */
DOCA_STABLE
doca_error_t doca_comch_connection_set_user_data(struct doca_comch_connection *connection,
                                                 union doca_data user_data);

/** @brief The value set with doca_comch_connection_set_user_data (zero if none or NULL). */
DOCA_STABLE
union doca_data doca_comch_connection_get_user_data(const struct doca_comch_connection *connection);

/** @brief The server a server-side connection belongs to; NULL for a client-side one or NULL. */
DOCA_STABLE
struct doca_comch_server *
doca_comch_server_get_server_ctx(const struct doca_comch_connection *connection);

/** @brief The client a client-side connection belongs to; NULL for a server-side one or NULL. */
DOCA_STABLE
struct doca_comch_client *
doca_comch_client_get_client_ctx(const struct doca_comch_connection *connection);

/**
 * @brief Takes a snapshot of the connection's counters (read them with get_counter).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL);
 *         DOCA_ERROR_CONNECTION_INPROGRESS (the client is still connecting);
 *         DOCA_ERROR_CONNECTION_ABORTED (the connection is closed; the snapshot still holds
 *         the final values).
 */
DOCA_STABLE
doca_error_t doca_comch_connection_update_info(struct doca_comch_connection *comch_connection);

/**
 * @brief One counter as of the last doca_comch_connection_update_info (0 before the first).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument or unknown counter).
 */
DOCA_STABLE
doca_error_t doca_comch_connection_get_counter(const struct doca_comch_connection *comch_connection,
                                               enum doca_comch_counter counter_type,
                                               uint64_t *counter_value);

/* ---------------------------------------------------------------------------------------- */
/* Capabilities (of a device; the emulated values come from the system profile)            */
/* ---------------------------------------------------------------------------------------- */

/**
 * @brief Longest server name the device accepts, counting the terminating NUL.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_NOT_SUPPORTED (no Comch).
 */
DOCA_STABLE
doca_error_t doca_comch_cap_get_max_name_len(const struct doca_devinfo *devinfo,
                                             uint32_t *max_name_len);

/**
 * @brief Largest control-path message, in bytes (the limit set_max_msg_size accepts).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_NOT_SUPPORTED (no Comch).
 */
DOCA_STABLE
doca_error_t doca_comch_cap_get_max_msg_size(const struct doca_devinfo *devinfo, uint32_t *size);

/**
 * @brief Largest receive queue (messages waiting to be delivered) an endpoint may ask for.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_NOT_SUPPORTED (no Comch).
 */
DOCA_STABLE
doca_error_t doca_comch_cap_get_max_recv_queue_size(const struct doca_devinfo *devinfo,
                                                    uint32_t *size);

/**
 * @brief How many clients one server accepts at the same time.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_NOT_SUPPORTED (no Comch).
 */
DOCA_STABLE
doca_error_t doca_comch_cap_get_max_clients(const struct doca_devinfo *devinfo,
                                            uint32_t *num_clients);

/**
 * @brief Largest send-task pool of a server or client.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_NOT_SUPPORTED (no Comch).
 */
DOCA_STABLE
doca_error_t doca_comch_cap_get_max_send_tasks(const struct doca_devinfo *devinfo,
                                               uint32_t *max_send_tasks);

/**
 * @brief Whether a server can be created on the device (DPU-side devices with Comch).
 * @return DOCA_SUCCESS (yes); DOCA_ERROR_NOT_SUPPORTED (no); DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE
doca_error_t doca_comch_cap_server_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Whether a client can be created on the device (host-side devices with Comch).
 * @return DOCA_SUCCESS (yes); DOCA_ERROR_NOT_SUPPORTED (no); DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE
doca_error_t doca_comch_cap_client_is_supported(const struct doca_devinfo *devinfo);

/* ---------------------------------------------------------------------------------------- */
/* Server (DPU side)                                                                         */
/* ---------------------------------------------------------------------------------------- */

/**
 * @brief Creates a server on a DPU device for the host function behind @p repr.
 * @param [in] dev  an open DPU-side device that supports the server.
 * @param [in] repr  an open representor of @p dev (the host function clients connect from).
 * @param [in] name  NUL-terminated, non-empty, shorter than doca_comch_cap_get_max_name_len.
 * @param [out] comch_server  the new server (IDLE).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument, empty or too long name, a
 *         representor of another device); DOCA_ERROR_NOT_SUPPORTED (the device cannot host a
 *         server); DOCA_ERROR_NO_MEMORY; DOCA_ERROR_INITIALIZATION (no emulated system).
 */
DOCA_STABLE
doca_error_t doca_comch_server_create(struct doca_dev *dev, struct doca_dev_rep *repr,
                                      const char *name, struct doca_comch_server **comch_server);

/**
 * @brief Destroys an IDLE server.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_BAD_STATE (RUNNING: stop
 *         it first); DOCA_ERROR_IN_USE (STOPPING, producers/consumers still exist on one
 *         of its connections, or a context node of a graph: destroy the graph first).
 */
DOCA_STABLE
doca_error_t doca_comch_server_destroy(struct doca_comch_server *comch_server);

/**
 * @brief Sets the largest message this server sends or receives (default: the device cap).
 *        A connection uses the smaller of the two sides' values.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, 0, or above the cap);
 *         DOCA_ERROR_BAD_STATE (not IDLE).
 */
DOCA_STABLE
doca_error_t doca_comch_server_set_max_msg_size(struct doca_comch_server *comch_server,
                                                uint32_t size);

/**
 * @brief The configured largest message.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE
doca_error_t doca_comch_server_get_max_msg_size(const struct doca_comch_server *comch_server,
                                                uint32_t *size);

/**
 * @brief Sets how many received messages may wait for delivery per connection (default 128,
 *        capped by the device). A peer whose messages would overflow it gets DOCA_ERROR_AGAIN
 *        from doca_task_submit until this side progresses.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, 0, or above the cap);
 *         DOCA_ERROR_BAD_STATE (not IDLE).
 */
DOCA_STABLE
doca_error_t doca_comch_server_set_recv_queue_size(struct doca_comch_server *comch_server,
                                                   uint32_t size);

/**
 * @brief The configured receive queue size.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE
doca_error_t doca_comch_server_get_recv_queue_size(const struct doca_comch_server *comch_server,
                                                   uint32_t *size);

/**
 * @brief The device the server was created on.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE
doca_error_t doca_comch_server_get_device(const struct doca_comch_server *comch_server,
                                          struct doca_dev **dev);

/**
 * @brief The representor the server was created with.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE
doca_error_t doca_comch_server_get_device_rep(const struct doca_comch_server *comch_server,
                                              struct doca_dev_rep **rep);

/** @brief The generic context of a server (NULL for NULL). */
DOCA_STABLE
struct doca_ctx *doca_comch_server_as_ctx(struct doca_comch_server *comch_server);

/**
 * @brief Drops one client connection: the client sees the server go away (its context
 *        stops by itself). No disconnect callback runs on the server for a connection it
 *        dropped itself; the handle is invalid once this returns. Callable from inside the
 *        connect callback (to refuse a client).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, or not a live connection of this
 *         server); DOCA_ERROR_IN_USE (producers or consumers still exist on the connection);
 *         DOCA_ERROR_BAD_STATE (the server is not RUNNING); DOCA_ERROR_AGAIN (the
 *         connection's socket is full, the peer reading slowly: what the server sent and
 *         the disconnect message cannot all be queued now; nothing changed, call again
 *         later; a peer that never reads is cut by doca_ctx_stop).
 */
DOCA_STABLE
doca_error_t doca_comch_server_disconnect(struct doca_comch_server *comch_server,
                                          struct doca_comch_connection *connection);

/**
 * @brief Configures the server's send tasks (both callbacks are required).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, 0 tasks or above
 *         doca_comch_cap_get_max_send_tasks); DOCA_ERROR_BAD_STATE (not IDLE).
 */
DOCA_STABLE
doca_error_t
doca_comch_server_task_send_set_conf(struct doca_comch_server *comch_server,
                                     doca_comch_task_send_completion_cb_t task_completion_cb,
                                     doca_comch_task_send_completion_cb_t task_error_cb,
                                     uint32_t num_send_tasks);

/**
 * @brief Allocates a send task and copies the message into it (the caller's bytes may be
 *        reused as soon as this returns).
 * @param [in] peer  a live connection of this server.
 * @param [in] msg  the message (need not be in a registered mmap); 1..max message bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, empty message, a message above the
 *         connection's max size, a connection of another endpoint);
 *         DOCA_ERROR_NOT_CONNECTED (the connection is closed); DOCA_ERROR_BAD_STATE (the
 *         server is not RUNNING); DOCA_ERROR_NO_MEMORY (every task is allocated).
 */
DOCA_STABLE
doca_error_t doca_comch_server_task_send_alloc_init(struct doca_comch_server *comch_server,
                                                    struct doca_comch_connection *peer,
                                                    const void *msg, uint32_t len,
                                                    struct doca_comch_task_send **task);

/**
 * @brief Registers the server's message-received callback (required before start).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_BAD_STATE (not IDLE).
 */
DOCA_STABLE
doca_error_t
doca_comch_server_event_msg_recv_register(struct doca_comch_server *comch_server,
                                          doca_comch_event_msg_recv_cb_t recv_event_cb);

/**
 * @brief Registers the connect and disconnect callbacks (both required). A disconnect
 *        callback runs when a client stops, is destroyed or its process ends, and for each
 *        connection still open when the server stops.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_BAD_STATE (not IDLE).
 */
DOCA_STABLE
doca_error_t doca_comch_server_event_connection_status_changed_register(
        struct doca_comch_server *comch_server,
        doca_comch_event_connection_status_changed_cb_t connect_event_cb,
        doca_comch_event_connection_status_changed_cb_t disconnect_event_cb);

/**
 * @brief Registers the callbacks for consumers created or destroyed by clients (both
 *        required).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_BAD_STATE (not IDLE).
 */
DOCA_STABLE
doca_error_t
doca_comch_server_event_consumer_register(struct doca_comch_server *comch_server,
                                          doca_comch_event_consumer_cb_t new_consumer_event_cb,
                                          doca_comch_event_consumer_cb_t expired_consumer_event_cb);

/* ---------------------------------------------------------------------------------------- */
/* Client (host side)                                                                        */
/* ---------------------------------------------------------------------------------------- */

/**
 * @brief Creates a client on a host device for the server named @p name.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL argument, empty or too long name);
 *         DOCA_ERROR_NOT_SUPPORTED (the device cannot host a client); DOCA_ERROR_NO_MEMORY;
 *         DOCA_ERROR_INITIALIZATION (no emulated system).
 */
DOCA_STABLE
doca_error_t doca_comch_client_create(struct doca_dev *dev, const char *name,
                                      struct doca_comch_client **comch_client);

/**
 * @brief Destroys an IDLE client.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_BAD_STATE (RUNNING or
 *         STARTING: stop it first); DOCA_ERROR_IN_USE (STOPPING, producers/consumers still
 *         exist on its connection, or a context node of a graph: destroy the graph first).
 */
DOCA_STABLE
doca_error_t doca_comch_client_destroy(struct doca_comch_client *comch_client);

/**
 * @brief Sets the largest message this client sends or receives (default: the device cap).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, 0, or above the cap);
 *         DOCA_ERROR_BAD_STATE (not IDLE).
 */
DOCA_STABLE
doca_error_t doca_comch_client_set_max_msg_size(struct doca_comch_client *comch_client,
                                                uint32_t size);

/**
 * @brief The configured largest message.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE
doca_error_t doca_comch_client_get_max_msg_size(const struct doca_comch_client *comch_client,
                                                uint32_t *size);

/**
 * @brief Sets how many received messages may wait for delivery (default 128, capped by the
 *        device).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, 0, or above the cap);
 *         DOCA_ERROR_BAD_STATE (not IDLE).
 */
DOCA_STABLE
doca_error_t doca_comch_client_set_recv_queue_size(struct doca_comch_client *comch_client,
                                                   uint32_t size);

/**
 * @brief The configured receive queue size.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE
doca_error_t doca_comch_client_get_recv_queue_size(const struct doca_comch_client *comch_client,
                                                   uint32_t *size);

/**
 * @brief The device the client was created on.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE
doca_error_t doca_comch_client_get_device(const struct doca_comch_client *comch_client,
                                          struct doca_dev **dev);

/** @brief The generic context of a client (NULL for NULL). */
DOCA_STABLE
struct doca_ctx *doca_comch_client_as_ctx(struct doca_comch_client *comch_client);

/**
 * @brief The client's connection to its server.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_BAD_STATE (the client is
 *         not RUNNING: not connected yet, or stopped).
 */
DOCA_STABLE
doca_error_t doca_comch_client_get_connection(const struct doca_comch_client *comch_client,
                                              struct doca_comch_connection **connection);

/**
 * @brief Configures the client's send tasks (both callbacks are required).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, 0 tasks or above
 *         doca_comch_cap_get_max_send_tasks); DOCA_ERROR_BAD_STATE (not IDLE).
 */
DOCA_STABLE
doca_error_t
doca_comch_client_task_send_set_conf(struct doca_comch_client *comch_client,
                                     doca_comch_task_send_completion_cb_t task_completion_cb,
                                     doca_comch_task_send_completion_cb_t task_error_cb,
                                     uint32_t num_send_tasks);

/**
 * @brief Allocates a send task and copies the message into it.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, empty message, a message above the
 *         connection's max size, another endpoint's connection); DOCA_ERROR_NOT_CONNECTED
 *         (the connection is closed); DOCA_ERROR_BAD_STATE (the client is not RUNNING);
 *         DOCA_ERROR_NO_MEMORY (every task is allocated).
 */
DOCA_STABLE
doca_error_t doca_comch_client_task_send_alloc_init(struct doca_comch_client *comch_client,
                                                    struct doca_comch_connection *peer,
                                                    const void *msg, uint32_t len,
                                                    struct doca_comch_task_send **task);

/**
 * @brief Registers the client's message-received callback (required before start).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_BAD_STATE (not IDLE).
 */
DOCA_STABLE
doca_error_t
doca_comch_client_event_msg_recv_register(struct doca_comch_client *comch_client,
                                          doca_comch_event_msg_recv_cb_t recv_event_cb);

/**
 * @brief Registers the callbacks for consumers created or destroyed by the server side
 *        (both required).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_BAD_STATE (not IDLE).
 */
DOCA_STABLE
doca_error_t
doca_comch_client_event_consumer_register(struct doca_comch_client *comch_client,
                                          doca_comch_event_consumer_cb_t new_consumer_event_cb,
                                          doca_comch_event_consumer_cb_t expired_consumer_event_cb);

/* ---------------------------------------------------------------------------------------- */
/* Send tasks                                                                                */
/* ---------------------------------------------------------------------------------------- */

/**
 * @brief The generic task of a send task (NULL for NULL).
 *
 * doca_task_submit of a send task returns DOCA_SUCCESS (the message is delivered to the
 * peer's receive queue, or queued behind earlier ones; the completion callback follows from
 * doca_pe_progress), DOCA_ERROR_AGAIN (the peer's receive queue is full: progress and submit
 * again), DOCA_ERROR_NOT_CONNECTED (the connection closed after the task was allocated) or
 * DOCA_ERROR_BAD_STATE (the context is not RUNNING). A submitted send fails (error callback)
 * with DOCA_ERROR_CONNECTION_RESET when the connection is lost before the message could be
 * handed over, and with DOCA_ERROR_IO_FAILED when the context is stopped first.
 */
DOCA_STABLE
struct doca_task *doca_comch_task_send_as_task(struct doca_comch_task_send *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_H_ */
