#!/bin/sh
# NVIDIA's DOCA Compress samples (samples/doca_compress of doca-samples 3.3: compress_deflate,
# decompress_deflate, decompress_lz4_stream) built unmodified with their own standalone meson
# files against this build of odma (installed into a temporary directory), then run on files
# that zlib (python3) and the lz4 command made or read back:
#   - bf2: compress_deflate, raw and with a zlib frame (-wf): python's zlib inflates the output
#     to the input; the printed checksum is (Adler-32 << 32) + CRC-32 of the input;
#   - bf3: decompress_deflate of raw deflate and of a zlib stream (-wf); decompress_lz4_stream of
#     lz4 frames (-wf: independent or linked blocks, with and without block checksums; the
#     sample checks the frame's content checksum against the task's xxHash) and of a bare
#     block sequence (-bi);
#   - bf3: compress_deflate is refused (BlueField-3 does not compress).
# Usage: nvidia_samples.sh BUILD_ROOT
# The sources come from a doca-samples git mirror (ODMA_DOCA_SAMPLES_GIT, default the
# workplace's); without one, or without meson, python3 or lz4, it exits 77 and says why.
set -u
# python3: the interpreter the test runner names (PYTHON3, tests/meson.build), else PATH's
python3() { command "${PYTHON3:-python3}" "$@"; }
B=$1
git_dir=${ODMA_DOCA_SAMPLES_GIT:-/work/.mirror/NVIDIA-DOCA+doca-samples/repo}
rel=fd03ddf # 3.3
skip() { echo "skip: $*"; exit 77; }
[ -d "$git_dir" ] && git -C "$git_dir" cat-file -e "$rel" 2>/dev/null ||
	skip "no doca-samples mirror with 3.3 ($rel) at $git_dir"
command -v meson >/dev/null 2>&1 || skip "no meson"
command -v "${PYTHON3:-python3}" >/dev/null 2>&1 || skip "no python3 (it makes and checks the deflate files)"
command -v lz4 >/dev/null 2>&1 || skip "no lz4 command (it makes the LZ4 frames)"
T=$(mktemp -d /tmp/odma-compress.XXXXXX)
trap '[ -n "${ODMA_KEEP_TMP:-}" ] || rm -rf "$T"' EXIT INT TERM
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# odma installed into $T/dest, its .pc files pointing there
meson install -C "$B" --destdir "$T/dest" --no-rebuild --quiet >"$T/install.log" 2>&1 ||
	{ cat "$T/install.log"; echo "FAIL: meson install"; exit 1; }
pc=$(dirname "$(find "$T/dest" -name doca-compress.pc | head -1)")
lib=$(dirname "$(find "$T/dest" -name 'libdoca_compress.so' | head -1)")
prefix=$(sed -n 's/^prefix=//p' "$pc/doca-common.pc")
mkdir -p "$T/pc"
for f in "$pc"/doca-*.pc; do sed "s|^prefix=.*|prefix=$T/dest$prefix|" "$f" >"$T/pc/${f##*/}"; done

# NVIDIA's samples as DOCA installs them (meson.build.public: each sample's standalone build)
mkdir -p "$T/src"
git -C "$git_dir" archive "$rel" samples/common.c samples/common.h samples/common_utils.h samples/doca_compress \
	applications/common VERSION | tar -x -C "$T/src" || { echo "FAIL: git archive"; exit 1; }
for s in compress_deflate decompress_deflate decompress_lz4_stream; do
	d=$T/src/samples/doca_compress/$s
	mv "$d/meson.build.public" "$d/meson.build"
	args=""
	# NVIDIA's samples read the 4-byte checksum trailer through a misaligned uint32_t pointer
	# (compress_common.c, decompress_deflate_sample.c): their code, harmless on x86 and Arm;
	# UBSan's alignment check is left out for them, every other check stays
	[ "${ODMA_TEST_SANITIZE:-none}" != none ] &&
		args="-Db_sanitize=$ODMA_TEST_SANITIZE -Db_lundef=false -Dc_args=-fno-sanitize=alignment"
	# from $T: meson 1.0 runs `ninja -t restat` and `-t cleandead` where it
	# starts (odma's build directory here); two at once corrupt its .ninja_log
	# shellcheck disable=SC2086
	(cd "$T" && PKG_CONFIG_PATH="$T/pc" meson setup "$T/b-$s" "$d" $args) >"$T/setup-$s.log" 2>&1 &&
		ninja -C "$T/b-$s" >"$T/build-$s.log" 2>&1 ||
		{ tail -n 30 "$T/setup-$s.log" "$T/build-$s.log" 2>&1; echo "FAIL: building $s"; exit 1; }
	[ -x "$T/b-$s/doca_$s" ] || { echo "FAIL: not built: doca_$s"; exit 1; }
done
CD=$T/b-compress_deflate/doca_compress_deflate
DD=$T/b-decompress_deflate/doca_decompress_deflate
DL=$T/b-decompress_lz4_stream/doca_decompress_lz4_stream
export LD_LIBRARY_PATH="$lib"

# 300 KB of text-like input, and python helpers
python3 - "$T/in" <<'EOF'
import random, sys
r = random.Random(7)
w = ["offload ", "deflate ", "block ", "stream ", "BlueField ", "engine ", "0123 ", "\n"]
open(sys.argv[1], "w").write("".join(r.choice(w) for _ in range(40000)))
EOF
inflate() { # inflate.py KIND IN OUT: KIND raw or zlib
	python3 -c 'import sys, zlib
d = open(sys.argv[2], "rb").read()
open(sys.argv[3], "wb").write(zlib.decompress(d, -15 if sys.argv[1] == "raw" else 15))' "$@"
}
run() { # run NAME SYSTEM PROGRAM ARGS...: its log in $T/NAME.log
	n=$1 sys=$2
	shift 2
	ODMA_SYSTEM=$sys timeout 60 "$@" >"$T/$n.log" 2>&1
}

# 1. BlueField-2 compresses: raw deflate, then with the zlib frame
if run cd-raw bf2 "$CD" -p 03:00.0 -f "$T/in" -o "$T/in.deflate" -c &&
	inflate raw "$T/in.deflate" "$T/back1" && cmp -s "$T/in" "$T/back1"; then
	want=$(python3 -c 'import sys, zlib
d = open(sys.argv[1], "rb").read()
print((zlib.adler32(d) << 32) + zlib.crc32(d))' "$T/in")
	grep -q "Checksum is $want\$" "$T/cd-raw.log" ||
		bad "compress_deflate: checksum line is not $want: $(grep -i checksum "$T/cd-raw.log")"
	echo "ok: compress_deflate (bf2): zlib inflates the raw deflate output; checksum $want"
else
	bad "compress_deflate raw: $(tail -3 "$T/cd-raw.log")"
fi
if run cd-wf bf2 "$CD" -p 03:00.0 -f "$T/in" -o "$T/in.zlib" -wf &&
	inflate zlib "$T/in.zlib" "$T/back2" && cmp -s "$T/in" "$T/back2"; then
	echo "ok: compress_deflate -wf (bf2): a zlib stream zlib reads back"
else
	bad "compress_deflate -wf: $(tail -3 "$T/cd-wf.log")"
fi

# 2. BlueField-3 decompresses deflate: odma's raw output, and a stream zlib made
if run dd-raw bf3 "$DD" -p 03:00.0 -f "$T/in.deflate" -o "$T/back3" && cmp -s "$T/in" "$T/back3"; then
	echo "ok: decompress_deflate (bf3): raw deflate back to the input"
else
	bad "decompress_deflate raw: $(tail -3 "$T/dd-raw.log")"
fi
python3 -c 'import sys, zlib
open(sys.argv[2], "wb").write(zlib.compress(open(sys.argv[1], "rb").read()))' "$T/in" "$T/py.zlib"
if run dd-wf bf3 "$DD" -p 03:00.0 -f "$T/py.zlib" -o "$T/back4" -wf && cmp -s "$T/in" "$T/back4"; then
	echo "ok: decompress_deflate -wf (bf3): python's zlib stream back to the input"
else
	bad "decompress_deflate -wf: $(tail -3 "$T/dd-wf.log")"
fi

# 3. BlueField-3 decompresses LZ4: frames of every block mode, and a bare block sequence
for mode in "-BI" "-BD" "-BI -BX" "-BD -BX"; do
	# shellcheck disable=SC2086
	lz4 -q -f -B4 $mode "$T/in" "$T/in.lz4" || { bad "lz4 $mode"; continue; }
	if run dl bf3 "$DL" -p 03:00.0 -f "$T/in.lz4" -o "$T/back5" -wf && cmp -s "$T/in" "$T/back5"; then
		echo "ok: decompress_lz4_stream -wf (bf3, lz4 $mode): back to the input, content checksum checked"
	else
		bad "decompress_lz4_stream lz4 $mode: $(tail -3 "$T/dl.log")"
	fi
done
# the blocks of an independent frame without its header (7 bytes), end mark and checksum (8)
lz4 -q -f -B4 -BI "$T/in" "$T/in.lz4"
python3 -c 'import sys
d = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(d[7:-8])' "$T/in.lz4" "$T/in.blocks"
if run dl-bare bf3 "$DL" -p 03:00.0 -f "$T/in.blocks" -o "$T/back6" -bi && cmp -s "$T/in" "$T/back6"; then
	echo "ok: decompress_lz4_stream -bi (bf3): a bare block sequence back to the input"
else
	bad "decompress_lz4_stream bare blocks: $(tail -3 "$T/dl-bare.log")"
fi

# 4. BlueField-3 does not compress: the sample finds no device for the task
if run cd-bf3 bf3 "$CD" -p 03:00.0 -f "$T/in" -o "$T/never"; then
	bad "compress_deflate on bf3 succeeded"
else
	echo "ok: compress_deflate on bf3 is refused: $(grep -m1 ERR "$T/cd-bf3.log")"
fi
exit $fail
