#!/bin/sh
# Usage: tests/rdma/rdma_netns.sh TEST_RDMA_PAIR
#
# The two-process DOCA RDMA tests with each process in its own network namespace, joined by
# a veth pair (tests/netns.sh, the tests' one namespace launcher): connection blobs then carry
# the veth addresses, and RDMA CM dials the child's address. Root only (exit 77 otherwise).
exe=$1
. "$(dirname "$0")/../netns.sh"
netns_require
netns_make rd 213 a b
# UCX (the transport under DOCA RDMA) takes TCP on the interface of ODMA_FABRIC's network
# (the last case takes this side's end of the link down, then up); the parent runs in a's
# network namespace only (the child enters b's and re-executes itself there)
ODMA_FABRIC=$ADDR_b:18515 ODMA_TEST_NETNS_CHILD=$NS_b ODMA_TEST_CM_ADDR=$ADDR_b \
	ODMA_TEST_NETNS_LINK=$IF_a ip netns exec "$NS_a" "$exe"
