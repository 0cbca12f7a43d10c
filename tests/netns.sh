# One launcher for the tests that split odma's processes across network namespaces, sourced
# by them (tests/*/..._netns.sh, tests/xproc/storage_zero_copy.sh; netns_private_loopback
# alone by comch_net_local.sh and tests/rdma/rdma_private_net.sh): each side in its own
# network (and, through netns_run, PID and mount) namespaces, joined only by links made here
# with addresses inside those namespaces; everything made here is removed on exit.
#
#   . "$(dirname "$0")/../netns.sh"
#   netns_require [COMMAND...]       root, ip, unshare (and COMMANDs), else exit 77 saying why
#   netns_make TAG SEED NAME...      one namespace per NAME: two are joined by a veth pair,
#                                    more by a bridge in the first one's; NAME gets the address
#                                    10.SEED.X.<its position> (X from the pid). Sets NS_<NAME>,
#                                    IF_<NAME> (its interface), ADDR_<NAME>; exits 77 when the
#                                    kernel refuses a namespace or a link
#   netns_run NAME COMMAND...        COMMAND in NAME's network namespace, in PID and mount
#                                    namespaces of its own (its own /proc; killed with it)
#   netns_kill NAME                  kills every process in NAME's namespace
#   netns_link_up NAME               brings NAME's interface up again and waits until UCX can
#                                    use it (netns_wait_ready NAME... waits only)
#   netns_at_exit COMMAND            runs COMMAND (eval) when the script exits
#   netns_private_loopback SCRIPT ARGS...
#                                    as root: runs SCRIPT again (sh) in a network namespace of
#                                    its own with only its loopback up, so a port the kernel
#                                    picked and released stays free for the test (no other
#                                    process can take it); without root, or when the kernel
#                                    refuses, returns: the script runs on the host's loopback
# Everything is named after the script's pid, so two runs never meet.

NETNS_NAMES=""
NETNS_AT_EXIT=""

netns_require() {
	if [ "$(id -u)" != 0 ]; then
		echo "skip: needs root to create network and PID namespaces (run make check as root)"
		exit 77
	fi
	for _nl_c in ip unshare "$@"; do
		command -v "$_nl_c" >/dev/null 2>&1 || { echo "skip: $_nl_c is not installed"; exit 77; }
	done
}

netns_private_loopback() {
	[ -z "${ODMA_TEST_PRIVATE_NET:-}" ] && [ "$(id -u)" = 0 ] || return 0
	command -v unshare >/dev/null 2>&1 && command -v ip >/dev/null 2>&1 || return 0
	unshare -n true 2>/dev/null || return 0
	ODMA_TEST_PRIVATE_NET=1 exec unshare -n sh -c 'ip link set lo up && exec sh "$@"' sh "$@"
}

netns_cleanup() {
	for _nl_n in $NETNS_NAMES; do
		eval "_nl_ns=\$NS_$_nl_n"
		for _nl_p in $(ip netns pids "$_nl_ns" 2>/dev/null); do kill -9 "$_nl_p" 2>/dev/null; done
		ip netns del "$_nl_ns" 2>/dev/null
	done
	eval "$NETNS_AT_EXIT"
	true
}

netns_at_exit() {
	NETNS_AT_EXIT="$NETNS_AT_EXIT
$1"
}

trap netns_cleanup EXIT
trap 'exit 1' INT TERM

netns_make() {
	_nl_tag=$1
	_nl_seed=$2
	shift 2
	_nl_net="10.$_nl_seed.$(($$ % 250))"
	_nl_i=0
	for _nl_n in "$@"; do
		_nl_i=$((_nl_i + 1))
		_nl_ns="odma-$_nl_tag-$_nl_n$$"
		if ! ip netns add "$_nl_ns" 2>/dev/null; then
			echo "skip: cannot create network namespaces here (ip netns add failed)"
			exit 77
		fi
		NETNS_NAMES="$NETNS_NAMES $_nl_n"
		eval "NS_$_nl_n=\$_nl_ns; ADDR_$_nl_n=$_nl_net.$_nl_i; IF_$_nl_n=o$_nl_tag$_nl_i$(($$ % 100000))"
		ip -n "$_nl_ns" link set lo up
	done
	_nl_first=$1
	eval "_nl_fns=\$NS_$_nl_first _nl_fif=\$IF_$_nl_first"
	if [ $# = 2 ]; then
		eval "_nl_sns=\$NS_$2 _nl_sif=\$IF_$2"
		ip link add "$_nl_fif" netns "$_nl_fns" type veth peer name "$_nl_sif" netns "$_nl_sns" 2>/dev/null ||
			{ echo "skip: cannot create a veth pair here"; exit 77; }
	else
		# a bridge in the first namespace; the first side's address is the bridge's
		ip -n "$_nl_fns" link add "$_nl_fif" type bridge 2>/dev/null ||
			{ echo "skip: cannot create a bridge here"; exit 77; }
		shift
		for _nl_n in "$@"; do
			eval "_nl_ns=\$NS_$_nl_n _nl_if=\$IF_$_nl_n"
			ip link add "$_nl_if" netns "$_nl_ns" type veth peer name "${_nl_if}b" netns "$_nl_fns" \
				2>/dev/null || { echo "skip: cannot create a veth pair here"; exit 77; }
			ip -n "$_nl_fns" link set "${_nl_if}b" master "$_nl_fif"
			ip -n "$_nl_fns" link set "${_nl_if}b" up
		done
	fi
	for _nl_n in $NETNS_NAMES; do
		eval "_nl_ns=\$NS_$_nl_n _nl_if=\$IF_$_nl_n _nl_addr=\$ADDR_$_nl_n"
		ip -n "$_nl_ns" addr add "$_nl_addr/24" dev "$_nl_if" && ip -n "$_nl_ns" link set "$_nl_if" up ||
			{ echo "FAIL: cannot address $_nl_if in $_nl_ns"; exit 1; }
	done
	netns_wait_ready $NETNS_NAMES
}

# netns_wait_ready NAME...: waits (at most 10 s) until each NAME's interface is operationally
# up with no IPv6 address still in duplicate address detection: before that UCX lists no
# device on it (both settle asynchronously, later on a loaded machine).
netns_wait_ready() {
	_nl_k=0
	while [ $_nl_k -lt 100 ] && for _nl_n in "$@"; do
		eval "_nl_ns=\$NS_$_nl_n _nl_if=\$IF_$_nl_n"
		ip -n "$_nl_ns" -6 addr show tentative
		ip -n "$_nl_ns" link show "$_nl_if" | grep -qE 'state (DOWN|LOWERLAYERDOWN)' && echo down
	done | grep -q .; do
		sleep 0.1
		_nl_k=$((_nl_k + 1))
	done
}

# netns_link_up NAME: brings NAME's interface up again (after a test took it down) and waits
# until every interface is ready (the far end of the link lost its carrier too).
netns_link_up() {
	eval "_nl_ns=\$NS_$1 _nl_if=\$IF_$1"
	ip -n "$_nl_ns" link set "$_nl_if" up
	netns_wait_ready $NETNS_NAMES
}

netns_run() {
	eval "_nl_ns=\$NS_$1"
	shift
	ip netns exec "$_nl_ns" unshare --pid --fork --kill-child --mount-proc "$@"
}

netns_kill() {
	eval "_nl_ns=\$NS_$1"
	for _nl_p in $(ip netns pids "$_nl_ns" 2>/dev/null); do kill -9 "$_nl_p" 2>/dev/null; done
}
