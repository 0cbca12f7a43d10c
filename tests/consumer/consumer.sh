#!/bin/sh
# Usage: consumer.sh BUILD_ROOT SOURCE.c SANITIZE CC [CC ARGS...]
#
# Builds SOURCE.c the way a user outside this tree would: install odma into a temporary
# directory, point pkg-config at the installed .pc files, compile with nothing but
# `cc SOURCE.c $(pkg-config --cflags --libs doca-common)`, and run the result against the
# installed shared libraries. SANITIZE is meson's b_sanitize value: a sanitized library can
# only be linked into a program built with the same -fsanitize flags, so those are added.
set -u
build=$1
src=$2
sanitize=$3
shift 3

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest

fail() {
	echo "FAIL: $*"
	exit 1
}

lib=$(find "$build/src" -maxdepth 1 -name 'libdoca_common.so' | head -n 1)
[ -n "$lib" ] || fail "no libdoca_common.so in $build/src"
# Name a missing export plainly rather than leaving it to a link error.
for sym in doca_mmap_create doca_buf_inventory_buf_get_by_args doca_buf_dec_refcount; do
	nm -D --defined-only "$lib" | grep -qw "$sym" || fail "$lib does not export $sym"
done

meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; fail "meson install --destdir failed"; }

pc=$(find "$dest" -name doca-common.pc | head -n 1)
[ -n "$pc" ] || fail "doca-common.pc was not installed"
for mod in doca-dma doca-argp; do
	[ -f "$(dirname "$pc")/$mod.pc" ] || fail "$mod.pc was not installed beside doca-common.pc"
done
installed_lib=$(find "$dest" -name 'libdoca_common.so' | head -n 1)
[ -n "$installed_lib" ] || fail "libdoca_common.so was not installed"

# The .pc files name the real prefix; the sysroot maps it into the temporary tree.
PKG_CONFIG_PATH=$(dirname "$pc")
PKG_CONFIG_SYSROOT_DIR=$dest
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
# CONSUMER_MODULES names the pkg-config modules the program uses (default doca-common).
mods=${CONSUMER_MODULES:-doca-common}
# shellcheck disable=SC2086
flags=$(pkg-config --cflags --libs $mods) || fail "pkg-config $mods failed"
echo "pkg-config --cflags --libs $mods: $flags"
ver=$(pkg-config --modversion doca-dma) || fail "pkg-config doca-dma failed"
echo "pkg-config --modversion doca-dma: $ver"

extra=""
if [ "$sanitize" != none ]; then
	extra="-fsanitize=$sanitize"
fi
# shellcheck disable=SC2086 # word splitting of the flags is intended
"$@" $extra "$src" -o "$tmp/consumer" $flags >"$tmp/cc.log" 2>&1 ||
	{ cat "$tmp/cc.log"; fail "the outside program does not build against the installed odma"; }

# Only the installed copy: meson test puts the build tree on the path, which would hide a
# broken install.
LD_LIBRARY_PATH=$(dirname "$installed_lib")
export LD_LIBRARY_PATH
# A cross build runs its programs through the emulator meson names (qemu-user); empty natively.
# shellcheck disable=SC2086
W=${MESON_EXE_WRAPPER:-}
unset ODMA_FAULTS
$W "$tmp/consumer" || fail "the outside program failed (exit $?)"
