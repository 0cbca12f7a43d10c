#!/bin/sh
# Runs a test program (test_xproc_ucx, test_xproc_se_ucx) as the DPU side in its own network
# + PID + mount namespaces, its peers (the host side) in another such set, the two joined only
# by a veth pair (tests/netns.sh, the tests' one namespace launcher). Needs root; exits 77
# saying why when it cannot build the namespaces.
# Usage: ucx_netns.sh PROGRAM [ARGS...]
. "$(dirname "$0")/../netns.sh"
netns_require
netns_make tp 201 h d
# The DPU side listens at ODMA_FABRIC; both sides get the same value and ODMA_SYSTEM.
export ODMA_FABRIC="$ADDR_d:18515"
export ODMA_TP_TEST_PEER_NETNS="$NS_h"
export ODMA_TP_TEST_VETH="$IF_d"
unset ODMA_TRANSPORT
# shellcheck disable=SC2086
netns_run d ${MESON_EXE_WRAPPER:-} "$@"
