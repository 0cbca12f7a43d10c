#!/bin/sh
# NVIDIA's zero-copy storage applications (applications/storage of doca-samples 2.10 and 3.3:
# the initiator on the host, the DPU's Comch-to-RDMA zero-copy program, and the RDMA storage
# target), each built unmodified with its own meson build against this build of odma (3.3's
# build needs DOCA Compress and Erasure Coding too), then run with its write validation: in
# one kernel, and (as root) each of the three in its own network, PID and mount namespaces on
# one bridge (tests/netns.sh). The DPU imports the host's PCI export and re-exports it over
# RDMA; the target reads and writes host memory through it.
# Then 3.3's other DPU program, comch_to_rdma_gga_offload (when its build found liblz4):
# three targets hold each block's LZ4-compressed halves and their EC parity (made by NVIDIA's
# gga_offload_sbc_generator with odma's DOCA EC); the DPU reads both halves, or, every third
# read (--trigger-recovery-read-every-n), one half and the parity and recovers the other with
# DOCA EC, and decompresses with DOCA Compress into host memory; its writes compress, make the
# parity with DOCA EC and write all three. The initiator checks every block it reads against
# the plain file, then, in a second run, against what it wrote. In one kernel, and (as root)
# with the targets, the DPU program and the initiator in three namespaces, where the host's
# memory is reached over ODMA_FABRIC.
# Usage: storage_zero_copy.sh BUILD_ROOT
# The sources come from a doca-samples git mirror (ODMA_DOCA_SAMPLES_GIT, default the
# workplace's); without one, or without C++, it exits 77 and says why.
#
# Two things of NVIDIA's own, not odma's, that the test works around and says so:
#  - 3.3's workers set their thread's CPU affinity through the std::thread object that is
#    still being constructed (a race with the thread that creates them: handle 0, a SIGSEGV
#    in pthread_setaffinity_np whenever the new thread runs first, as on a busy 2-core
#    machine); a preloaded shim of ours resolves handle 0 to the calling thread;
#  - 3.3's target logs "Failed to destroy ..." when a destroy SUCCEEDS (its checks are
#    inverted): those lines of its destructor are not counted as errors.
# And one it avoids: gga_offload's recover tasks take the 2+1 coding matrix itself instead of
# one from doca_ec_matrix_create_recover, which recovers a half only when the parity is a
# plain XOR (the default Vandermonde matrix; with --matrix-type cauchy the product it asks for
# is not the lost half and its recovered halves do not decompress), so the runs keep the
# default.
set -u
# python3: the interpreter the test runner names (PYTHON3, tests/meson.build), else PATH's
python3() { command "${PYTHON3:-python3}" "$@"; }
B=$1
git_dir=${ODMA_DOCA_SAMPLES_GIT:-/work/.mirror/NVIDIA-DOCA+doca-samples/repo}
skip() { echo "skip: $*"; exit 77; }
[ -d "$git_dir" ] && git -C "$git_dir" cat-file -e 6dc892d 2>/dev/null &&
	git -C "$git_dir" cat-file -e fd03ddf 2>/dev/null ||
	skip "no doca-samples mirror with 2.10 (6dc892d) and 3.3 (fd03ddf) at $git_dir"
command -v c++ >/dev/null 2>&1 || skip "no C++ compiler (the applications are C++17)"
command -v cc >/dev/null 2>&1 || skip "no C compiler"
# NVIDIA's C++ under a sanitizer's leak checker is not ours to judge; the stage 'slow' runs
# this test on the plain build, and rdma_pair (test_reexport_host_region) covers the DPU's
# forwarding under ASan
[ "${ODMA_TEST_SANITIZE:-none}" = none ] ||
	skip "a sanitized build ($ODMA_TEST_SANITIZE): NVIDIA's applications run on the plain one"
. "$(dirname "$0")/../netns.sh"
netns_private_loopback "$0" "$@"
T=$(mktemp -d /tmp/odma-storage.XXXXXX)
fail=0
# At exit (netns.sh's trap, which also removes the namespaces; a trap of this script's own
# replaced it, and every run left its three namespaces behind): the programs' logs stay when
# something failed, so a rare failure under load can be read.
cleanup() {
	for p in $(jobs -p); do kill -9 "$p" 2>/dev/null; done
	if [ "$fail" = 0 ]; then
		rm -rf "$T"
	else
		find "$T" -mindepth 1 -maxdepth 1 ! -name '*.log' -exec rm -rf {} +
		echo "the logs are kept in $T"
	fi
}
netns_at_exit cleanup
bad() { echo "FAIL: $*"; fail=1; }

# odma installed into $T/dest, its .pc files pointing there
meson install -C "$B" --destdir "$T/dest" --no-rebuild --quiet >"$T/install.log" 2>&1 ||
	{ cat "$T/install.log"; echo "FAIL: meson install"; exit 1; }
pc=$(dirname "$(find "$T/dest" -name doca-common.pc | head -1)")
lib=$(dirname "$(find "$T/dest" -name 'libdoca_common.so' | head -1)")
prefix=$(sed -n 's/^prefix=//p' "$pc/doca-common.pc")
mkdir -p "$T/pc"
for f in "$pc"/doca-*.pc; do sed "s|^prefix=.*|prefix=$T/dest$prefix|" "$f" >"$T/pc/${f##*/}"; done
export LD_LIBRARY_PATH="$lib" ODMA_SYSTEM=bf3

# the affinity shim for 3.3 (see above)
cat >"$T/shim.c" <<'SHIM'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
typedef int set_fn(pthread_t, size_t, const cpu_set_t *);
typedef int get_fn(pthread_t, size_t, cpu_set_t *);
int pthread_setaffinity_np(pthread_t t, size_t n, const cpu_set_t *s)
{
	return ((set_fn *)dlsym(RTLD_NEXT, "pthread_setaffinity_np"))(t ? t : pthread_self(), n, s);
}
int pthread_getaffinity_np(pthread_t t, size_t n, cpu_set_t *s)
{
	return ((get_fn *)dlsym(RTLD_NEXT, "pthread_getaffinity_np"))(t ? t : pthread_self(), n, s);
}
SHIM
cc -shared -fPIC -o "$T/shim.so" "$T/shim.c" -ldl || { echo "FAIL: the affinity shim"; exit 1; }

# The three programs and the initiator's arguments, per release (sets INI TGT DPU IARGS PRE;
# for 3.3 also GGA, the gga offload DPU program, and GEN, its content generator).
release() {
	if [ "$1" = 2.10 ]; then
		INI=$T/b-2.10-host/storage/doca_storage_zero_copy_initiator_comch
		TGT=$T/b-2.10-host/storage/doca_storage_zero_copy_target_rdma
		DPU=$T/b-2.10-dpu/storage/doca_storage_zero_copy_comch_to_rdma
		IARGS="--operation write --run-limit-operation-count 2000 --validate-writes"
		PRE=""
		GGA="" GEN=""
	else
		INI=$T/b-3.3-host/storage/doca_storage_initiator_comch
		TGT=$T/b-3.3-host/storage/doca_storage_target_rdma
		DPU=$T/b-3.3-dpu/storage/doca_storage_comch_to_rdma_zero_copy
		IARGS="--execution-strategy read_write_data_validity_test --run-limit-operation-count 1000"
		PRE="LD_PRELOAD=$T/shim.so"
		GGA=$T/b-3.3-dpu/storage/doca_storage_comch_to_rdma_gga_offload
		GEN=$T/b-3.3-host/storage/doca_storage_gga_offload_sbc_generator
	fi
}

# build REL COMMIT: NVIDIA's tree at COMMIT as DOCA installs it (meson.build.public is the
# standalone build file), and the three programs the release runs built with it, for the host
# (initiator, target) and the DPU (DOCA_ARCH_DPU): only those, as each of NVIDIA's storage
# executables compiles the common sources again. For 3.3 the gga offload programs too when
# NVIDIA's meson file made the generator, which it does only when it finds liblz4 (gga=yes).
gga=no
build_failed() {
	tail -n 30 "$T/setup-$1-$2.log" "$T/build-$1-$2.log" 2>&1
	echo "FAIL: the $1 $2 build"
	exit 1
}
build() {
	release "$1"
	mkdir -p "$T/src-$1"
	git -C "$git_dir" archive "$2" applications VERSION | tar -x -C "$T/src-$1" ||
		{ echo "FAIL: git archive $2"; exit 1; }
	find "$T/src-$1" -name meson.build.public | while read -r f; do mv "$f" "${f%.public}"; done
	for side in host dpu; do
		args="" d=$T/b-$1-$side
		[ $side = dpu ] && args="-Dc_args=-DDOCA_ARCH_DPU -Dcpp_args=-DDOCA_ARCH_DPU"
		# from $T: meson 1.0 runs `ninja -t restat` and `-t cleandead` where it
		# starts (odma's build directory here); two at once corrupt its .ninja_log
		# shellcheck disable=SC2086
		(cd "$T" && PKG_CONFIG_PATH="$T/pc" meson setup "$d" \
			"$T/src-$1/applications" -Denable_all_applications=false -Denable_storage=true \
			$args) >"$T/setup-$1-$side.log" 2>&1 || build_failed "$1" $side
		if [ $side = host ]; then
			targets="${INI#"$d/"} ${TGT#"$d/"}"
			[ -n "$GEN" ] && ninja -C "$d" -t query "${GEN#"$d/"}" >/dev/null 2>&1 &&
				gga=yes && targets="$targets ${GEN#"$d/"}"
		else
			targets=${DPU#"$d/"}
			[ -n "$GGA" ] && [ $gga = yes ] && targets="$targets ${GGA#"$d/"}"
		fi
		# shellcheck disable=SC2086
		ninja -C "$d" $targets >"$T/build-$1-$side.log" 2>&1 || build_failed "$1" $side
	done
	for x in "$INI" "$TGT" "$DPU"; do [ -x "$x" ] || { echo "FAIL: not built: $x"; exit 1; }; done
}
build 2.10 6dc892d
build 3.3 fd03ddf

# check NAME REL: the logs $T/NAME-*.log; the initiator verified every write it read back
check_run() {
	if [ "$2" = 2.10 ]; then
		grep -q "All data transfers verified successfully" "$T/$1-ini.log" ||
			bad "$1: the initiator did not verify its writes: $(tail -5 "$T/$1-ini.log")"
	elif grep -q "does not match" "$T/$1-ini.log"; then
		bad "$1: data read back differs: $(grep "does not match" "$T/$1-ini.log" | head -2)"
	fi
	for f in "$T/$1"-*.log; do
		r=${f##*-} && r=${r%.log}
		e=$(grep "\[ERROR\]" "$f" | grep -v "\[~target_rdma_worker:.*Failed to destroy")
		[ -z "$e" ] || bad "$1: ERROR lines from $r: $(echo "$e" | head -3)"
	done
}

# start_target LOG [ARG...]: the target, with ARG..., listening on a port the kernel picked for
# us a moment ago ($port). As root the script runs in a network namespace of its own
# (netns_private_loopback, above), where no other process can take that port first; without
# root, a target that finds it taken ("cannot listen on port") is started again on a new pick,
# twice at most.
start_target() {
	log=$1
	shift
	for _ in 1 2 3; do
		port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
		# shellcheck disable=SC2086
		timeout 120 env $PRE "$TGT" -d b1:00.0 --listen-port "$port" --cpu 0 "$@" >"$log" 2>&1 &
		sleep 1
		grep -q "cannot listen on port" "$log" || return 0
		wait $!
	done
}

# 1. one kernel: the target on a port the kernel picked (start_target)
for rel in 2.10 3.3; do
	release $rel
	mkdir -p "$T/rd1-$rel" && chmod 700 "$T/rd1-$rel"
	export ODMA_RUNDIR="$T/rd1-$rel"
	start_target "$T/one$rel-tgt.log"
	# shellcheck disable=SC2086
	timeout 120 env $PRE "$DPU" -d 03:00.0 -r b1:00.0 --cpu 1 --storage-server "127.0.0.1:$port" \
		>"$T/one$rel-dpu.log" 2>&1 &
	sleep 1
	# shellcheck disable=SC2086
	timeout 100 env $PRE "$INI" -d b1:00.0 --cpu 0 $IARGS >"$T/one$rel-ini.log" 2>&1 ||
		bad "$rel, one kernel: the initiator exited $?: $(tail -3 "$T/one$rel-ini.log")"
	wait
	check_run "one$rel" $rel
	[ $fail = 0 ] && echo "ok: $rel in one kernel, every write read back and checked"
	unset ODMA_RUNDIR
done

# gga_run NAME WHERE IARGS: 3.3's gga offload flow, each of the three targets holding one of
# the generator's files; the DPU recovers a half block from the other half and the parity every
# third read. WHERE: one (one kernel, each target on a port the kernel picked) or split (the
# targets in namespace g, the DPU program in d, the initiator in h). Logs $T/NAME-*.log.
gga_run() {
	dargs="" G="" D="" H="" p=5555
	if [ "$2" = split ]; then
		for r in h d g; do mkdir -p "$T/rd-$1-$r" && chmod 700 "$T/rd-$1-$r"; done
		G="in_ns g $T/rd-$1-g" D="in_ns d $T/rd-$1-d" H="in_ns h $T/rd-$1-h"
	fi
	for s in 1 2 p; do
		if [ "$2" = split ]; then
			# shellcheck disable=SC2086
			$G timeout 120 env $PRE "$TGT" -d b1:00.0 --listen-port $p --cpu 0 \
				--binary-content "$T/data-$s.sbc" >"$T/$1-tgt$s.log" 2>&1 &
			dargs="$dargs --data-$s-storage $ADDR_g:$p" p=$((p + 1))
		else
			start_target "$T/$1-tgt$s.log" --binary-content "$T/data-$s.sbc"
			dargs="$dargs --data-$s-storage 127.0.0.1:$port"
		fi
	done
	sleep 1
	# shellcheck disable=SC2086
	$D timeout 120 env $PRE "$GGA" -d 03:00.0 -r b1:00.0 --cpu 1 $dargs \
		--trigger-recovery-read-every-n 3 >"$T/$1-dpu.log" 2>&1 &
	sleep 1
	# shellcheck disable=SC2086
	$H timeout 100 env $PRE "$INI" -d b1:00.0 --cpu 0 --run-limit-operation-count 1000 $3 \
		>"$T/$1-ini.log" 2>&1 || bad "$1: the initiator exited $?: $(tail -3 "$T/$1-ini.log")"
	wait
	check_run "$1" 3.3
	grep -q "Recovery count: [1-9]" "$T/$1-dpu.log" ||
		bad "$1: the DPU recovered no block: $(grep -A3 "Core: 1" "$T/$1-dpu.log")"
}

# 1b. 3.3's gga offload in one kernel: the plain content (64 blocks of 4096 bytes that LZ4 compresses to
# less than half, as the stored format needs), the generator's three files from it, then the
# initiator reads every block and checks it against the plain file, and in a second run
# writes its own pattern and checks it read back
if [ $gga = yes ]; then
	release 3.3
	mkdir -p "$T/rd-gga" && chmod 700 "$T/rd-gga"
	export ODMA_RUNDIR="$T/rd-gga"
	python3 -c 'import sys
sys.stdout.write("".join("block %d line %d of the gga offload content\n" % (i // 90, i)
                         for i in range(6000))[:64 * 4096])' >"$T/plain.bin"
	"$GEN" -d b1:00.0 --original-input-data "$T/plain.bin" --data-1 "$T/data-1.sbc" \
		--data-2 "$T/data-2.sbc" --data-p "$T/data-p.sbc" >"$T/gga-gen.log" 2>&1 ||
		bad "the sbc generator exited $?: $(tail -3 "$T/gga-gen.log")"
	gga_run gga-read one "--execution-strategy read_only_data_validity_test
		--storage-plain-content $T/plain.bin"
	[ $fail = 0 ] && echo "ok: 3.3 gga offload in one kernel, every block read checked, recoveries among them"
	gga_run gga-write one "--execution-strategy read_write_data_validity_test"
	[ $fail = 0 ] && echo "ok: 3.3 gga offload in one kernel, every write read back and checked"
	unset ODMA_RUNDIR
else
	echo "note: 3.3's build found no liblz4: the gga offload runs are skipped"
fi

# 2. three namespaces on one bridge (tests/netns.sh: the tests' one namespace launcher), root only
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null 2>&1; then
	echo "note: not root (or no ip): the three-namespace runs are skipped"
	exit $fail
fi
netns_make st 79 d h g
export ODMA_FABRIC="$ADDR_d:18515" ODMA_FABRIC_SECRET="storage-test-$$-$(date +%s%N)"
in_ns() { n=$1 rd=$2; shift 2; ODMA_RUNDIR=$rd netns_run "$n" "$@"; }
for rel in 2.10 3.3; do
	release $rel
	for r in h d g; do mkdir -p "$T/rd-$rel-$r" && chmod 700 "$T/rd-$rel-$r"; done
	# shellcheck disable=SC2086
	in_ns g "$T/rd-$rel-g" timeout 120 env $PRE "$TGT" -d b1:00.0 --listen-port 5555 --cpu 0 \
		>"$T/split$rel-tgt.log" 2>&1 &
	sleep 1
	# shellcheck disable=SC2086
	in_ns d "$T/rd-$rel-d" timeout 120 env $PRE "$DPU" -d 03:00.0 -r b1:00.0 --cpu 1 \
		--storage-server "$ADDR_g:5555" >"$T/split$rel-dpu.log" 2>&1 &
	sleep 1
	# shellcheck disable=SC2086
	in_ns h "$T/rd-$rel-h" timeout 100 env $PRE "$INI" -d b1:00.0 --cpu 0 $IARGS \
		>"$T/split$rel-ini.log" 2>&1 ||
		bad "$rel, three namespaces: the initiator exited $?: $(tail -3 "$T/split$rel-ini.log")"
	wait
	check_run "split$rel" $rel
	[ $fail = 0 ] && echo "ok: $rel with initiator, DPU and target in three namespaces, every write checked"
done

# 2b. 3.3's gga offload split the same way (gga_run, above): every block read and checked
# against the plain file, then every write read back and checked
if [ $gga = yes ]; then
	release 3.3
	gga_run splitgga-read split "--execution-strategy read_only_data_validity_test
		--storage-plain-content $T/plain.bin"
	[ $fail = 0 ] && echo "ok: 3.3 gga offload with initiator, DPU and targets in three namespaces, every block read checked"
	gga_run splitgga-write split "--execution-strategy read_write_data_validity_test"
	[ $fail = 0 ] && echo "ok: 3.3 gga offload with initiator, DPU and targets in three namespaces, every write checked"
fi
exit $fail
