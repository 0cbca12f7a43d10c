#!/bin/sh
# NVIDIA's zero-copy storage applications (applications/storage of doca-samples 2.10: the
# initiator on the host, comch_to_rdma on the DPU, target_rdma as the storage target) built
# unmodified with their own meson build against this build of odma, then run with
# --validate-writes: in one kernel, and (as root) each of the three in its own network, PID
# and mount namespaces on one bridge. The DPU imports the host's PCI export and re-exports it
# over RDMA; the target reads and writes host memory through it.
# Usage: storage_zero_copy.sh BUILD_ROOT
# The sources come from a doca-samples git mirror (ODMA_DOCA_SAMPLES_GIT, default the
# workplace's); without one, or without C++ or meson, it exits 77 and says why.
set -u
B=$1
git_dir=${ODMA_DOCA_SAMPLES_GIT:-/work/.mirror/NVIDIA-DOCA+doca-samples/repo}
rel=6dc892d # 2.10.0087
skip() { echo "skip: $*"; exit 77; }
[ -d "$git_dir" ] && git -C "$git_dir" cat-file -e "$rel" 2>/dev/null ||
	skip "no doca-samples mirror with 2.10 ($rel) at $git_dir"
command -v c++ >/dev/null 2>&1 || skip "no C++ compiler (the applications are C++17)"
# NVIDIA's C++ under a sanitizer's leak checker is not ours to judge; the stage 'slow' runs
# this test on the plain build, and rdma_pair (test_reexport_host_region) covers the DPU's
# forwarding under ASan
[ "${ODMA_TEST_SANITIZE:-none}" = none ] ||
	skip "a sanitized build ($ODMA_TEST_SANITIZE): NVIDIA's applications run on the plain one"
T=$(mktemp -d /tmp/odma-storage.XXXXXX)
cleanup() {
	for p in $(jobs -p); do kill -9 "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT INT TERM
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# odma installed into $T/dest, its .pc files pointing there
meson install -C "$B" --destdir "$T/dest" --no-rebuild --quiet >"$T/install.log" 2>&1 ||
	{ cat "$T/install.log"; echo "FAIL: meson install"; exit 1; }
pc=$(dirname "$(find "$T/dest" -name doca-common.pc | head -1)")
lib=$(dirname "$(find "$T/dest" -name 'libdoca_common.so' | head -1)")
prefix=$(sed -n 's/^prefix=//p' "$pc/doca-common.pc")
mkdir -p "$T/pc"
for f in "$pc"/doca-*.pc; do sed "s|^prefix=.*|prefix=$T/dest$prefix|" "$f" >"$T/pc/${f##*/}"; done

# NVIDIA's tree at 2.10, as DOCA installs it (meson.build.public is the standalone build file)
mkdir -p "$T/src"
git -C "$git_dir" archive "$rel" applications VERSION | tar -x -C "$T/src" || { echo "FAIL: git archive"; exit 1; }
find "$T/src" -name meson.build.public | while read -r f; do mv "$f" "${f%.public}"; done
for side in host dpu; do
	args=""
	[ $side = dpu ] && args="-Dc_args=-DDOCA_ARCH_DPU -Dcpp_args=-DDOCA_ARCH_DPU"
	# shellcheck disable=SC2086
	PKG_CONFIG_PATH="$T/pc" meson setup "$T/b-$side" "$T/src/applications" \
		-Denable_all_applications=false -Denable_storage=true $args >"$T/setup-$side.log" 2>&1 &&
		ninja -C "$T/b-$side" >"$T/build-$side.log" 2>&1 ||
		{ tail -n 30 "$T/setup-$side.log" "$T/build-$side.log" 2>&1; echo "FAIL: the $side build"; exit 1; }
done
INI=$T/b-host/storage/doca_storage_zero_copy_initiator_comch
TGT=$T/b-host/storage/doca_storage_zero_copy_target_rdma
DPU=$T/b-dpu/storage/doca_storage_zero_copy_comch_to_rdma
for x in "$INI" "$TGT" "$DPU"; do [ -x "$x" ] || { echo "FAIL: not built: $x"; exit 1; }; done
export LD_LIBRARY_PATH="$lib" ODMA_SYSTEM=bf3

# run NAME: the three programs' logs in $T/NAME-*.log; the initiator must verify every write
check_run() {
	grep -q "All data transfers verified successfully" "$T/$1-ini.log" ||
		bad "$1: the initiator did not verify its writes: $(tail -5 "$T/$1-ini.log")"
	for r in ini dpu tgt; do
		if grep -q "\[ERROR\]" "$T/$1-$r.log"; then
			bad "$1: ERROR lines from $r: $(grep "\[ERROR\]" "$T/$1-$r.log" | head -3)"
		fi
	done
}

# 1. one kernel: the target listens on a port the kernel picked for us a moment ago
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$T/rd1" && chmod 700 "$T/rd1"
export ODMA_RUNDIR="$T/rd1"
timeout 120 "$TGT" -d b1:00.0 --listen-port "$port" --cpu 0 >"$T/one-tgt.log" 2>&1 &
sleep 1
timeout 120 "$DPU" -d 03:00.0 -r b1:00.0 --cpu 1 --storage-server "127.0.0.1:$port" \
	>"$T/one-dpu.log" 2>&1 &
sleep 1
timeout 100 "$INI" -d b1:00.0 --operation write --run-limit-operation-count 2000 --cpu 0 \
	--validate-writes >"$T/one-ini.log" 2>&1 || bad "one kernel: the initiator exited $?"
wait
check_run one
[ $fail = 0 ] && echo "ok: one kernel, 2000 writes validated"
unset ODMA_RUNDIR

# 2. three namespaces on one bridge (tests/netns.sh: the tests' one namespace launcher), root only
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null 2>&1; then
	echo "note: not root (or no ip): the three-namespace run is skipped"
	exit $fail
fi
. "$(dirname "$0")/../netns.sh"
netns_at_exit 'for p in $(jobs -p); do kill -9 "$p" 2>/dev/null; done; rm -rf "$T"'
netns_make st 79 d h g
export ODMA_FABRIC="$ADDR_d:18515" ODMA_FABRIC_SECRET="storage-test-$$-$(date +%s%N)"
for r in h d g; do mkdir -p "$T/rd-$r" && chmod 700 "$T/rd-$r"; done
in_ns() { n=$1 rd=$2; shift 2; ODMA_RUNDIR=$rd netns_run "$n" "$@"; }
in_ns g "$T/rd-g" timeout 120 "$TGT" -d b1:00.0 --listen-port 5555 --cpu 0 >"$T/split-tgt.log" 2>&1 &
sleep 1
in_ns d "$T/rd-d" timeout 120 "$DPU" -d 03:00.0 -r b1:00.0 --cpu 1 --storage-server "$ADDR_g:5555" \
	>"$T/split-dpu.log" 2>&1 &
sleep 1
in_ns h "$T/rd-h" timeout 100 "$INI" -d b1:00.0 --operation write --run-limit-operation-count 2000 \
	--cpu 0 --validate-writes >"$T/split-ini.log" 2>&1 || bad "three namespaces: the initiator exited $?"
wait
check_run split
[ $fail = 0 ] && echo "ok: initiator, DPU and target in three namespaces, 2000 writes validated"
exit $fail
