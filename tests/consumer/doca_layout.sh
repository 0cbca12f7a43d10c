#!/bin/sh
# Usage: doca_layout.sh BUILD_ROOT SOURCE_ROOT SANITIZE CC [CC ARGS...]
#
# `make install LAYOUT=doca` as a program written for DOCA sees it: install odma with
# scripts/install-doca-layout.sh into a temporary PREFIX/opt/mellanox/doca (never the real
# /opt), then build tests/consumer/layout_consumer.c twice the way such trees do, with the
# hard-coded flat include directory and lib/<multiarch>, and with
# PKG_CONFIG_PATH=PREFIX/lib/<multiarch>/pkgconfig; run both, run tools/doca_caps through its
# own runpath, and read applications/VERSION.
set -u
# A cross build runs its programs through the emulator meson names (qemu-user); empty natively.
# shellcheck disable=SC2086
W=${MESON_EXE_WRAPPER:-}
build=$1
srcroot=$2
sanitize=$3
shift 3

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}

P=$tmp/opt/mellanox/doca
sh "$srcroot/scripts/install-doca-layout.sh" "$build" "$P" || fail "install-doca-layout.sh failed"
multi=$("$1" -print-multiarch 2>/dev/null)
[ -n "$multi" ] || multi=x86_64-linux-gnu
L=$P/lib/$multi

for f in include/doca_dma.h include/doca_buf_pool.h include/doca_comch.h include/doca_argp.h \
	"lib/$multi/libdoca_common.so" "lib/$multi/libdoca_dma.so" \
	"lib/$multi/pkgconfig/doca-common.pc" "lib/$multi/pkgconfig/doca-dma.pc" \
	tools/doca_caps applications/VERSION; do
	[ -e "$P/$f" ] || fail "$f is missing from the DOCA layout"
done
[ ! -d "$P/include/doca" ] || fail "the headers are not flat (include/doca/ exists)"
[ "$(cat "$P/applications/VERSION")" = "3.3.0" ] ||
	fail "applications/VERSION is '$(cat "$P/applications/VERSION")', not 3.3.0"

extra=""
[ "$sanitize" = none ] || extra="-fsanitize=$sanitize"
unset ODMA_FAULTS

# 1. The hard-coded paths of a Makefile written for DOCA.
# shellcheck disable=SC2086
"$@" $extra -I"$P/include" "$srcroot/tests/consumer/layout_consumer.c" -o "$tmp/c1" \
	-L"$L" -ldoca_dma -ldoca_common >"$tmp/cc1.log" 2>&1 ||
	{ cat "$tmp/cc1.log"; fail "the consumer does not build with -I$P/include -L$L"; }
LD_LIBRARY_PATH=$L $W "$tmp/c1" || fail "the consumer built with hard-coded paths failed"

# 2. pkg-config from lib/<multiarch>/pkgconfig, as DOCA's instructions say.
flags=$(PKG_CONFIG_PATH=$L/pkgconfig pkg-config --cflags --libs doca-dma) ||
	fail "pkg-config doca-dma failed"
echo "pkg-config --cflags --libs doca-dma: $flags"
case " $flags " in
*" -I$P/include "*) ;;
*) fail "pkg-config's include flag is not the flat $P/include" ;;
esac
case " $flags " in
*" -L$L "*) ;;
*) fail "pkg-config's library flag is not -L$L" ;;
esac
# shellcheck disable=SC2086
"$@" $extra "$srcroot/tests/consumer/layout_consumer.c" -o "$tmp/c2" $flags >"$tmp/cc2.log" 2>&1 ||
	{ cat "$tmp/cc2.log"; fail "the consumer does not build with pkg-config's flags"; }
LD_LIBRARY_PATH=$L $W "$tmp/c2" || fail "the consumer built with pkg-config failed"

# 3. tools/doca_caps finds its libraries through its runpath alone.
out=$(env -u LD_LIBRARY_PATH $W "$P/tools/doca_caps" --version 2>&1) ||
	{ echo "$out"; fail "tools/doca_caps --version failed without LD_LIBRARY_PATH"; }
case $out in
*3.3.0*) ;;
*) fail "tools/doca_caps --version printed '$out'" ;;
esac
echo "DOCA layout under $P: ok"
