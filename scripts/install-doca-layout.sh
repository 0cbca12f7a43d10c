#!/bin/sh
# Usage: scripts/install-doca-layout.sh BUILD_DIR PREFIX [DESTDIR]
#
# Installs the odma build in BUILD_DIR the way DOCA lays itself out under
# /opt/mellanox/doca, so programs and build files that hard-code DOCA's paths build and run
# unchanged (`make install LAYOUT=doca PREFIX=/opt/mellanox/doca`):
#
#   PREFIX/include/doca_*.h                       flat, no doca/ subdirectory
#   PREFIX/lib/<multiarch>/libdoca_*.so*          e.g. lib/x86_64-linux-gnu (and libodma_ucx.so)
#   PREFIX/lib/<multiarch>/pkgconfig/doca-*.pc    includedir=${prefix}/include (flat)
#   PREFIX/tools/doca_caps                        as DOCA ships it
#   PREFIX/applications/VERSION, PREFIX/VERSION   the version string, as doca-samples' VERSION
#   PREFIX/bin, PREFIX/libexec, PREFIX/share      odma's own commands and man pages, as usual
#
# The libraries carry the runpath $ORIGIN and the programs $ORIGIN/../<libdir> (meson.build),
# so the tree works wherever it lands. DESTDIR stages the tree (packaging): the files go to
# DESTDIR/PREFIX, the .pc files name PREFIX. Nothing is written outside DESTDIR/PREFIX.
set -eu
# python3: the interpreter the test runner names (PYTHON3, tests/meson.build), else PATH's
python3() { command "${PYTHON3:-python3}" "$@"; }
build=$1
prefix=$2
destdir=${3:-}

case $prefix in
/*) ;;
*)
	echo "install-doca-layout: PREFIX must be an absolute path, not '$prefix'" >&2
	exit 2
	;;
esac

# What the build was configured with: its own prefix, libdir, includedir and version.
bprefix='' blibdir='' bincdir='' bbindir='' version=''
eval "$(meson introspect "$build" --buildoptions --projectinfo | python3 -c '
import json, sys
d = json.load(sys.stdin)
opts = {o["name"]: o["value"] for o in d["buildoptions"]}
print("bprefix=%s blibdir=%s bincdir=%s bbindir=%s version=%s" % (opts["prefix"],
      opts["libdir"], opts["includedir"], opts["bindir"], d["projectinfo"]["version"]))
')"
[ -n "$version" ] || {
	echo "install-doca-layout: cannot read the configuration of $build" >&2
	exit 1
}

# The libraries' own architecture (ELF e_machine) names the directory, so a cross build
# (scripts/cross) lands in its own lib/<multiarch>, whatever compiler this shell finds.
case $(od -An -tx1 -j18 -N2 "$build/src/libdoca_common.so" 2>/dev/null | tr -d ' ') in
3e00) multiarch=x86_64-linux-gnu ;;
b700) multiarch=aarch64-linux-gnu ;;
*) multiarch=$(${CC:-cc} -print-multiarch 2>/dev/null || true) ;;
esac
[ -n "$multiarch" ] || multiarch=$(${CC:-cc} -dumpmachine 2>/dev/null | sed 's/-pc-/-/;s/-unknown-/-/')
[ -n "$multiarch" ] || multiarch=x86_64-linux-gnu
libdir=lib/$multiarch

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
meson install -C "$build" --destdir "$stage" --no-rebuild --quiet >"$stage/install.log" 2>&1 || {
	cat "$stage/install.log"
	echo "install-doca-layout: meson install failed" >&2
	exit 1
}
from=$stage$bprefix
to=$destdir$prefix

mkdir -p "$to/include" "$to/$libdir/pkgconfig" "$to/tools" "$to/applications"
# Headers, flat.
cp -p "$from/$bincdir"/doca/*.h "$to/include/"
# Libraries with their version symlinks, and the UCX transport's module (when built) beside them:
# libdoca_common loads it from its own directory on first need.
cp -P -p "$from/$blibdir"/libdoca_*.so* "$to/$libdir/"
if [ -f "$from/$blibdir/libodma_ucx.so" ]; then
	cp -p "$from/$blibdir/libodma_ucx.so" "$to/$libdir/"
fi
# pkg-config files: the new prefix, the flat include directory, the multiarch libdir.
for pc in "$from/$blibdir"/pkgconfig/doca-*.pc; do
	# shellcheck disable=SC2016 # ${prefix} and ${includedir} are pkg-config's, not ours
	sed -e "s|^prefix=.*|prefix=$prefix|" \
		-e 's|^includedir=.*|includedir=${prefix}/include|' \
		-e "s|^libdir=.*|libdir=\${prefix}/$libdir|" \
		-e 's|-I${includedir}/doca|-I${includedir}|g' \
		"$pc" >"$to/$libdir/pkgconfig/$(basename "$pc")"
done
# Programs: doca_caps where DOCA has it; odma's commands, man pages as usual.
cp -p "$from/$bbindir/doca_caps" "$to/tools/doca_caps"
for d in bin libexec share; do
	if [ -d "$from/$d" ]; then
		mkdir -p "$to/$d"
		cp -R -P -p "$from/$d/." "$to/$d/"
	fi
done
# DOCA's VERSION files hold the bare version string (doca-samples 3.3.0: "3.3.0", no newline).
printf '%s' "$version" >"$to/applications/VERSION"
printf '%s' "$version" >"$to/VERSION"
echo "odma $version installed in DOCA's layout under $to (include/, $libdir/, tools/doca_caps)"
