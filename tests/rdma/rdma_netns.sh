#!/bin/sh
# Usage: tests/rdma/rdma_netns.sh TEST_RDMA_PAIR
#
# The two-process DOCA RDMA tests with each process in its own network namespace, joined by
# a veth pair (10.213.N.1 and .2): connection blobs then carry the veth addresses, and RDMA
# CM dials the child's address. Root only (exit 77 otherwise); everything it creates is
# named after its pid and removed on exit.
set -u
exe=$1
[ "$(id -u)" = 0 ] || { echo "rdma_netns: needs root (network namespaces); skipped"; exit 77; }
command -v ip >/dev/null 2>&1 || { echo "rdma_netns: no ip(8); skipped"; exit 77; }
a=odma-rdma-$$-a
b=odma-rdma-$$-b
n=$(( $$ % 250 + 1 ))
cleanup() {
	ip netns del "$a" 2>/dev/null
	ip netns del "$b" 2>/dev/null
}
trap cleanup EXIT INT TERM
ip netns add "$a" && ip netns add "$b" &&
	ip link add "rdv$$a" netns "$a" type veth peer name "rdv$$b" netns "$b" &&
	ip -n "$a" addr add "10.213.$n.1/24" dev "rdv$$a" &&
	ip -n "$b" addr add "10.213.$n.2/24" dev "rdv$$b" &&
	ip -n "$a" link set "rdv$$a" up && ip -n "$b" link set "rdv$$b" up &&
	ip -n "$a" link set lo up && ip -n "$b" link set lo up || {
	echo "rdma_netns: cannot set up the namespaces; skipped"
	exit 77
}
# UCX lists an interface only once its IPv6 duplicate address detection is over (~1-2 s)
i=0
while [ -n "$(ip -n "$a" -6 addr show tentative; ip -n "$b" -6 addr show tentative)" ] &&
	[ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
# UCX (the transport under DOCA RDMA) takes TCP on the interface of ODMA_FABRIC's network
# (the last case takes this side's end of the link down, then up)
ODMA_FABRIC=10.213.$n.2:18515 ODMA_TEST_NETNS_CHILD=$b ODMA_TEST_CM_ADDR=10.213.$n.2 \
	ODMA_TEST_NETNS_LINK=rdv$$a ip netns exec "$a" "$exe"
