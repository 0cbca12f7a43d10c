#!/bin/sh
# NVIDIA's DOCA Erasure Coding sample (samples/doca_erasure_coding/erasure_coding_recover of
# doca-samples 3.3) built unmodified with its own meson file against odma installed into a
# temporary directory, then run on the bf3 profile: encode a file, lose blocks, recover it,
# compare (Cauchy and Vandermonde, buffer lists, a lost redundancy block, decode-only from a
# directory of blocks); on bf2 it must refuse the device. Also compiles the EC users of
# applications/storage (storage_common/doca_utils.cpp); storage_zero_copy.sh builds and runs
# the whole storage application.
# Usage: ec_samples.sh BUILD_ROOT
# The sources come from a doca-samples git mirror (ODMA_DOCA_SAMPLES_GIT, default the
# workplace's); without one, or without meson, it exits 77 and says why.
set -u
B=$1
git_dir=${ODMA_DOCA_SAMPLES_GIT:-/work/.mirror/NVIDIA-DOCA+doca-samples/repo}
rel=fd03ddf # 3.3
skip() { echo "skip: $*"; exit 77; }
[ -d "$git_dir" ] && git -C "$git_dir" cat-file -e "$rel" 2>/dev/null ||
	skip "no doca-samples mirror with 3.3 ($rel) at $git_dir"
command -v meson >/dev/null 2>&1 || skip "no meson"
T=$(mktemp -d /tmp/odma-ec.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM
fail=0
bad() { echo "FAIL: $*"; fail=1; }

meson install -C "$B" --destdir "$T/dest" --no-rebuild --quiet >"$T/install.log" 2>&1 ||
	{ cat "$T/install.log"; echo "FAIL: meson install"; exit 1; }
pc=$(dirname "$(find "$T/dest" -name doca-erasure-coding.pc | head -1)")
lib=$(dirname "$(find "$T/dest" -name 'libdoca_erasure_coding.so' | head -1)")
[ -f "$pc/doca-erasure-coding.pc" ] || { echo "FAIL: doca-erasure-coding.pc not installed"; exit 1; }
prefix=$(sed -n 's/^prefix=//p' "$pc/doca-common.pc")
mkdir -p "$T/pc"
for f in "$pc"/doca-*.pc; do sed "s|^prefix=.*|prefix=$T/dest$prefix|" "$f" >"$T/pc/${f##*/}"; done
export PKG_CONFIG_PATH="$T/pc"
unset ODMA_FAULTS ODMA_SIDE ODMA_ENGINE

mkdir -p "$T/src"
git -C "$git_dir" archive "$rel" samples applications VERSION | tar -x -C "$T/src" ||
	{ echo "FAIL: git archive"; exit 1; }
S=$T/src/samples/doca_erasure_coding/erasure_coding_recover
mv "$S/meson.build.public" "$S/meson.build"
san=""
[ "${ODMA_TEST_SANITIZE:-none}" != none ] && san="-Db_sanitize=$ODMA_TEST_SANITIZE -Db_lundef=false"
# from $T: meson 1.0 runs `ninja -t restat` and `-t cleandead` where it
# starts (odma's build directory here); two at once corrupt its .ninja_log
# shellcheck disable=SC2086
(cd "$T" && meson setup "$T/b" "$S" $san) >"$T/setup.log" 2>&1 && ninja -C "$T/b" >"$T/build.log" 2>&1 ||
	{ tail -n 30 "$T/setup.log" "$T/build.log"; echo "FAIL: building the sample"; exit 1; }
X=$T/b/doca_erasure_coding_recover
[ -x "$X" ] || { echo "FAIL: not built: $X"; exit 1; }
echo "ok: NVIDIA's erasure_coding_recover built against the installed odma"
export LD_LIBRARY_PATH="$lib" ODMA_SYSTEM=bf3

# A file whose size is not a multiple of anything in particular.
head -c 100003 /dev/urandom >"$T/in.bin"

# run NAME ARGS...: the sample's log in $T/NAME.log; it must succeed without ERROR lines
run() {
	name=$1
	shift
	timeout 60 "$X" "$@" >"$T/$name.log" 2>&1 || { bad "$name: exit $?: $(tail -3 "$T/$name.log")"; return 1; }
	if grep -q "\[ERROR\]" "$T/$name.log"; then
		bad "$name: ERROR lines: $(grep "\[ERROR\]" "$T/$name.log" | head -3)"
		return 1
	fi
}

# 1. encode, delete, decode in one run (Cauchy 5+3, two data blocks lost)
mkdir -p "$T/o1"
run cauchy -p 03:00.0 -i "$T/in.bin" -o "$T/o1" -b -x cauchy -t 5 -r 3 -d 1,3 &&
	{ cmp -s "$T/in.bin" "$T/in.bin_recovered" && echo "ok: Cauchy 5+3, blocks 1 and 3 lost, file recovered" ||
		bad "cauchy: the recovered file differs"; }
rm -f "$T/in.bin_recovered"

# 2. Vandermonde 4+2 on the host side, sources and destinations as buffer lists
mkdir -p "$T/o2"
run vandermonde -p b1:00.0 -i "$T/in.bin" -o "$T/o2" -b -x vandermonde -t 4 -r 2 -d 0,2 \
	-ns 3 -nd 2 &&
	{ cmp -s "$T/in.bin" "$T/in.bin_recovered" && echo "ok: Vandermonde 4+2 with buffer lists, blocks 0 and 2 lost, file recovered" ||
		bad "vandermonde: the recovered file differs"; }

# 3. encode only; lose a data block and a redundancy block; decode from the directory
mkdir -p "$T/o3"
if run encode -p 03:00.0 -i "$T/in.bin" -o "$T/o3" -x cauchy -t 3 -r 2; then
	cp "$T/o3/rdnc_block_0" "$T/rdnc0.orig"
	rm -f "$T/o3/data_block_0" "$T/o3/rdnc_block_0"
	run decode -p 03:00.0 -i "$T/o3" -o "$T/out3.bin" -x cauchy -t 3 -r 2 &&
		{ cmp -s "$T/in.bin" "$T/out3.bin" && echo "ok: decode-only from blocks, a data and a redundancy block lost" ||
			bad "decode: the recovered file differs"; }
	# the sample writes the recovered redundancy block under its index (3) as a data block
	cmp -s "$T/rdnc0.orig" "$T/o3/data_block_3" || bad "decode: the lost redundancy block was not recovered"
fi

# 4. a device without erasure coding (bf2) is refused
mkdir -p "$T/o4"
if ODMA_SYSTEM=bf2 timeout 60 "$X" -p 03:00.0 -i "$T/in.bin" -o "$T/o4" -b -t 2 -r 1 -d 0 >"$T/bf2.log" 2>&1; then
	bad "bf2: the sample ran on a device without erasure coding"
else
	echo "ok: on bf2 the sample finds no device that can encode"
fi

# 5. applications/storage: doca_utils.cpp (the EC matrix names) compiles. The whole
# application (its gga_offload programs included) is built for both sides, and run, by
# storage_zero_copy.sh.
if command -v c++ >/dev/null 2>&1; then
	A=$T/src/applications
	# shellcheck disable=SC2046
	c++ -std=c++17 -fsyntax-only -DDOCA_ALLOW_EXPERIMENTAL_API -I"$A/storage" -I"$A/common" \
		$(pkg-config --cflags doca-common doca-argp doca-comch doca-rdma doca-erasure-coding) \
		"$A/storage/storage_common/doca_utils.cpp" >"$T/utils.log" 2>&1 &&
		echo "ok: applications/storage/storage_common/doca_utils.cpp compiles" ||
		bad "storage_common/doca_utils.cpp: $(head -5 "$T/utils.log")"
fi
exit $fail
