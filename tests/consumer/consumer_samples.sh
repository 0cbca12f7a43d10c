#!/bin/sh
# Usage: consumer_samples.sh BUILD_ROOT SOURCE_ROOT SANITIZE CC [CC ARGS...]
#
# Builds odma's samples/ the three ways an outside DOCA user would, against odma installed
# into a temporary directory, and runs what they built against the installed libraries:
#   (a) a standalone meson project using dependency('doca-dma') / dependency('doca-argp')
#   (b) a plain `cc ... $(pkg-config --cflags --libs doca-dma doca-argp)` line
#   (c) a CMake project using pkg_check_modules
# It also checks that `pkg-config --modversion doca-dma` is the string doca_version_runtime()
# returns.
set -u
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
sanitize=$3
shift 3

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest

fail() {
	echo "FAIL: $*"
	exit 1
}
step() {
	echo "--- $*"
}

meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; fail "meson install --destdir failed"; }
pc=$(find "$dest" -name doca-dma.pc | head -n 1)
[ -n "$pc" ] || fail "doca-dma.pc was not installed"
lib=$(find "$dest" -name 'libdoca_dma.so' | head -n 1)
[ -n "$lib" ] || fail "libdoca_dma.so was not installed"

# The .pc files name the configured prefix; point copies of them at the temporary tree, as
# if odma had been configured with --prefix there. (A pkg-config sysroot would also move the
# system paths of json-c, which CMake then rejects as missing.)
mkdir -p "$tmp/pc"
for f in "$(dirname "$pc")"/doca-*.pc; do
	sed "s|^prefix=|prefix=$dest|" "$f" >"$tmp/pc/$(basename "$f")"
done
PKG_CONFIG_PATH=$tmp/pc
LD_LIBRARY_PATH=$(dirname "$lib")
export PKG_CONFIG_PATH LD_LIBRARY_PATH
# A cross build runs its programs through the emulator meson names (qemu-user); empty natively.
# shellcheck disable=SC2086
W=${MESON_EXE_WRAPPER:-}
unset PKG_CONFIG_SYSROOT_DIR
unset ODMA_FAULTS ODMA_SIDE ODMA_SYSTEM ODMA_ENGINE

san=""
[ "$sanitize" = none ] || san="-fsanitize=$sanitize"

# An outside project sees only what is installed: copy the samples out of the tree.
mkdir -p "$tmp/proj"
cp -r "$src/samples" "$tmp/proj/samples"
rm -f "$tmp/proj/samples/meson.build"

step "pkg-config --modversion doca-dma equals doca_version_runtime()"
flags=$(pkg-config --cflags --libs doca-dma doca-argp) || fail "pkg-config doca-dma doca-argp failed"
# shellcheck disable=SC2086 # word splitting of the flags is intended
"$@" $san -DDOCA_ALLOW_EXPERIMENTAL_API -o "$tmp/version_check" "$src/tests/consumer/version_check.c" $flags ||
	fail "version_check does not build"
modversion=$(pkg-config --modversion doca-dma)
runtime=$($W "$tmp/version_check" | cut -d' ' -f1)
headers=$($W "$tmp/version_check" | cut -d' ' -f2)
echo "modversion $modversion, doca_version_runtime() $runtime, doca_version() $headers"
[ "$modversion" = "$runtime" ] || fail "pkg-config says $modversion, the library says $runtime"
[ "$headers" = "$runtime" ] || fail "the headers say $headers, the library says $runtime"

step "(b) cc \$(pkg-config --cflags --libs doca-dma doca-argp)"
# shellcheck disable=SC2086
"$@" $san -std=c11 -D_GNU_SOURCE -DDOCA_ALLOW_EXPERIMENTAL_API -Wall -Wextra -Werror \
	-I"$tmp/proj/samples/common" -o "$tmp/cc_dma_local_copy" \
	"$tmp/proj/samples/dma_local_copy/dma_local_copy.c" "$tmp/proj/samples/common/sample_common.c" \
	$flags || fail "dma_local_copy does not build with plain cc + pkg-config"
$W "$tmp/cc_dma_local_copy" -t "built with cc and pkg-config" || fail "cc-built dma_local_copy failed"
cat >"$tmp/params.json" <<'JSON'
{
	"doca_general_flags": { "log-level": 50 },
	"doca_program_flags": { "text": "taken from a JSON configuration file" }
}
JSON
$W "$tmp/cc_dma_local_copy" -j "$tmp/params.json" >"$tmp/json.out" 2>&1 ||
	{ cat "$tmp/json.out"; fail "cc-built dma_local_copy -j failed"; }
grep -q "taken from a JSON configuration file" "$tmp/json.out" ||
	{ cat "$tmp/json.out"; fail "the JSON configuration's text was not copied"; }
$W "$tmp/cc_dma_local_copy" --version | grep -q "runtime $modversion" ||
	fail "--version does not report the runtime version $modversion"

step "(a) meson project with dependency('doca-dma')"
cp "$src/tests/consumer/meson/meson.build" "$tmp/proj/meson.build"
mopts=""
[ "$sanitize" = none ] || mopts="-Db_sanitize=$sanitize"
# a cross build's outside project is a cross build too (its programs run under the emulator)
[ -z "${ODMA_TEST_CROSS_FILE:-}" ] || mopts="$mopts --cross-file $ODMA_TEST_CROSS_FILE"
# from $tmp: meson 1.0 runs `ninja -t restat` and `-t cleandead` where it
# starts (odma's build directory here); two at once corrupt its .ninja_log
# shellcheck disable=SC2086
(cd "$tmp" && CC="$*" meson setup $mopts "$tmp/mbuild" "$tmp/proj") >"$tmp/meson.log" 2>&1 ||
	{ cat "$tmp/meson.log"; fail "meson setup of the outside project failed"; }
ninja -C "$tmp/mbuild" >"$tmp/ninja.log" 2>&1 || { cat "$tmp/ninja.log"; fail "meson build failed"; }
for s in dma_local_copy pe_event graph; do
	$W "$tmp/mbuild/$s" -l 30 || fail "meson-built $s failed"
done
echo "three samples built with meson and run"

step "(c) CMake project with pkg_check_modules"
cp "$src/tests/consumer/cmake/CMakeLists.txt" "$tmp/proj/CMakeLists.txt"
CC="$1" CFLAGS="$san" cmake -S "$tmp/proj" -B "$tmp/cbuild" >"$tmp/cmake.log" 2>&1 ||
	{ cat "$tmp/cmake.log"; fail "cmake configure of the outside project failed"; }
cmake --build "$tmp/cbuild" >"$tmp/cmake_build.log" 2>&1 ||
	{ cat "$tmp/cmake_build.log"; fail "cmake build failed"; }
$W "$tmp/cbuild/dma_local_copy" --size 1048576 || fail "cmake-built dma_local_copy failed"
$W "$tmp/cbuild/pe_event" -l 30 || fail "cmake-built pe_event failed"
$W "$tmp/cbuild/pe_task_resubmit" -l 30 || fail "cmake-built pe_task_resubmit failed"
echo "PASS: samples built with meson, cc + pkg-config and CMake against the installed odma"
