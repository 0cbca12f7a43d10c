#!/bin/sh
# Usage: rdma_private_net.sh COMMAND [ARGS...]
# Runs COMMAND (DOCA RDMA CM cases, whose servers listen on ports the kernel picked and
# released) on a loopback of its own as root (tests/netns.sh, netns_private_loopback), so no
# other process can take such a port before the server binds it; without root, on the host's
# loopback (the cases then pick again when a port was taken).
. "$(dirname "$0")/../netns.sh"
netns_private_loopback "$0" "$@"
# A cross build runs its programs through the emulator meson names (qemu-user); empty natively.
# shellcheck disable=SC2086
exec ${MESON_EXE_WRAPPER:-} "$@"
