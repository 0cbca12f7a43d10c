/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The endpoint functions of the transport (transport.h), exported to odma's other libraries
 * under the doca_priv_ prefix (libdoca_rdma carries DOCA RDMA on them,
 * libdoca_comch its connections across machines). Thin wrappers: the
 * rules are odma_tp_*'s.
 */
#include <errno.h>
#include <sys/uio.h>

#include "core/transport/transport.h"

doca_error_t doca_priv_tp_listen(const char *addr, uint16_t *port, odma_tp_accept_fn *on_accept,
                                 odma_tp_admit_fn *admit, void *arg, void **listener)
{
	return odma_tp_listen(addr, port, on_accept, admit, arg, listener);
}

void doca_priv_tp_listen_close(void *listener)
{
	odma_tp_listen_close(listener);
}

doca_error_t doca_priv_tp_connect(const char *addr, uint16_t port, const struct odma_tp_ep_cbs *cbs,
                                  struct odma_tp_ep **ep)
{
	return odma_tp_connect(addr, port, cbs, ep);
}

void doca_priv_tp_ep_set_cbs(struct odma_tp_ep *ep, const struct odma_tp_ep_cbs *cbs)
{
	odma_tp_ep_set_cbs(ep, cbs);
}

doca_error_t doca_priv_tp_ep_send(struct odma_tp_ep *ep, const void *bytes, size_t len,
                                  uint32_t imm, odma_tp_send_done_fn *done, void *arg)
{
	return odma_tp_ep_send(ep, bytes, len, imm, done, arg);
}

doca_error_t doca_priv_tp_ep_sendv(struct odma_tp_ep *ep, const struct iovec *iov,
                                   unsigned int niov, uint32_t imm, odma_tp_send_done_fn *done,
                                   void *arg)
{
	return odma_tp_ep_sendv(ep, iov, niov, imm, done, arg);
}

void doca_priv_tp_ep_release(struct odma_tp_ep *ep, size_t len)
{
	odma_tp_ep_release(ep, len);
}

bool doca_priv_tp_ep_room(struct odma_tp_ep *ep, size_t len)
{
	return odma_tp_ep_room(ep, len);
}

void doca_priv_tp_ep_close(struct odma_tp_ep *ep)
{
	odma_tp_ep_close(ep);
}

const char *doca_priv_tp_net_absent(void)
{
	return odma_tp_net_absent();
}

uint32_t doca_priv_tp_timeout_ms(void)
{
	return odma_tp_timeout_ms();
}

void doca_priv_tp_identity(struct odma_tp_ident *id)
{
	odma_tp_identity(id);
}

bool doca_priv_tp_bind_addr(char *out, size_t cap)
{
	return odma_tp_bind_addr(out, cap);
}

int doca_priv_tp_cma_write(pid_t pid, struct iovec *iov, int niov, uint64_t addr, uint64_t len,
                           const char **fix)
{
	struct iovec r = { (void *)(uintptr_t)addr, (size_t)len };
	int err = odma_cma_xfer(pid, true, iov, niov, &r, 1);

	*fix = err == EPERM || err == EACCES ? odma_cma_eperm_fix()
	       : err == ENOSYS               ? odma_cma_enosys_fix()
	                                     : NULL;
	return err;
}
