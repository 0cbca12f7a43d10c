#!/bin/sh
# Runs a test program (test_xproc_ucx) as the DPU side in its own network + PID + mount
# namespaces, its peers (the host side) in another such set, the two joined only by a veth
# pair made here (addresses inside the namespaces). Needs root; exits 77 saying why when it
# cannot build the namespaces. Everything made here is removed on exit.
# Usage: ucx_netns.sh PROGRAM [ARGS...]
if [ "$(id -u)" != 0 ]; then
	echo "skip: needs root to create network and PID namespaces (run make check as root)"
	exit 77
fi
for c in ip unshare; do
	command -v "$c" >/dev/null 2>&1 || { echo "skip: $c is not installed"; exit 77; }
done
tag=$$
H="odma-tp-h$tag"
D="odma-tp-d$tag"
VH="otph$tag"
VD="otpd$tag"
NET="10.201.$((tag % 250))"
cleanup() {
	for ns in "$H" "$D"; do
		for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
		ip netns del "$ns" 2>/dev/null
	done
	ip link del "$VH" 2>/dev/null
	true
}
trap cleanup EXIT
trap 'exit 1' INT TERM
if ! ip netns add "$H" 2>/dev/null || ! ip netns add "$D" 2>/dev/null; then
	echo "skip: cannot create network namespaces here (ip netns add failed)"
	exit 77
fi
if ! ip link add "$VH" type veth peer name "$VD" 2>/dev/null; then
	echo "skip: cannot create a veth pair here"
	exit 77
fi
set -e
ip link set "$VH" netns "$H"
ip link set "$VD" netns "$D"
ip -n "$H" addr add "$NET.1/24" dev "$VH"
ip -n "$D" addr add "$NET.2/24" dev "$VD"
for ns in "$H" "$D"; do ip -n "$ns" link set lo up; done
ip -n "$H" link set "$VH" up
ip -n "$D" link set "$VD" up
set +e
# The DPU side listens at ODMA_FABRIC; both sides get the same value and ODMA_SYSTEM.
export ODMA_FABRIC="$NET.2:18515"
export ODMA_TP_TEST_PEER_NETNS="$H"
export ODMA_TP_TEST_VETH="$VD"
unset ODMA_TRANSPORT
# shellcheck disable=SC2086
ip netns exec "$D" unshare --pid --fork --mount-proc ${MESON_EXE_WRAPPER:-} "$@"
