#!/bin/sh
# Usage: scripts/symbol-parity.sh SOURCE_ROOT BUILD_ROOT LIBRARIES_TXT [CC]
#
# Symbol parity: every function the public headers declare must be exported by one of the
# libraries of the library table (src/meson.build, which writes LIBRARIES_TXT: one line per
# library, its .so name first), and every function NVIDIA's samples call (tests/data/sample-surface.txt)
# must be declared by our headers (as an exported function, or static inline where DOCA's own
# header defines it inline).
#
# And every public function is named by some test under tests/ (one no test calls is a
# behaviour no test checks).
#
# The declarations come from the compiler itself (gcc -aux-info), not from parsing text, so
# macros, attributes and line breaks cannot hide one. In that listing "NC" rows are extern
# prototypes and "NF" rows are definitions (our static inline functions); function-pointer
# typedefs do not appear at all.
#
# tests/data/symbol-parity-allow.txt may list names that are known to be missing while
# another change is in flight; each must carry a comment saying why. An allowed name that is
# in fact present is reported so the list gets cleaned up, but does not fail the check.
set -u
src=$1
build=$2
libs_txt=$3
shift 3
cc=${1:-cc}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

# All public headers in one translation unit.
for h in "$src"/include/*.h; do
	echo "#include \"$h\""
done >"$tmp/all.c"
# -aux-info is a gcc option: use gcc even when the build uses clang (Debian has both).
auxcc=gcc
command -v gcc >/dev/null 2>&1 || auxcc=$cc
$auxcc -std=c11 -DDOCA_ALLOW_EXPERIMENTAL_API -DDOCA_ALLOW_DEPRECATED_API -I"$src/include" \
	-fsyntax-only -aux-info "$tmp/aux.txt" "$tmp/all.c" || {
	echo "FAIL: the public headers do not compile together"
	exit 1
}

# Keeps only rows from our include/ directory; prints the function name of each.
names() { # KIND (NC or NF)
	grep -F "$src/include/" "$tmp/aux.txt" | grep ":$1 \*/" |
		sed -e 's/ *(.*//' -e 's/.*[ *]//' | sort -u
}
names NC >"$tmp/declared"
names NF >"$tmp/inline"
[ -s "$tmp/declared" ] || {
	echo "FAIL: no declarations found in $src/include (is -aux-info supported by $auxcc?)"
	exit 1
}

[ -s "$libs_txt" ] || {
	echo "FAIL: no library table at $libs_txt"
	exit 1
}
for lib in $(awk '{print $1}' "$libs_txt"); do
	so=$(find "$build/src" -maxdepth 1 -name "$lib" | head -n 1)
	[ -n "$so" ] || {
		echo "FAIL: $lib not found under $build/src"
		exit 1
	}
	nm -D --defined-only "$so" | awk '$2 ~ /^[TtWi]$/ {print $3}'
done | sed 's/@.*//' | sort -u >"$tmp/exported"

allow="$src/tests/data/symbol-parity-allow.txt"
if [ -f "$allow" ]; then
	sed -e 's/#.*//' -e 's/[[:space:]]//g' "$allow" | grep . | sort -u >"$tmp/allow"
else
	: >"$tmp/allow"
fi

comm -23 "$tmp/declared" "$tmp/exported" >"$tmp/missing"
comm -23 "$tmp/missing" "$tmp/allow" >"$tmp/missing_hard"
if [ -s "$tmp/missing_hard" ]; then
	echo "FAIL: declared in include/ but not exported by any library:"
	sed 's/^/  /' "$tmp/missing_hard"
	fail=1
fi
comm -12 "$tmp/allow" "$tmp/exported" >"$tmp/stale"
if [ -s "$tmp/stale" ]; then
	echo "NOTE: allowed as missing but now exported (remove from $allow):"
	sed 's/^/  /' "$tmp/stale"
fi

# Every name NVIDIA's samples call must be declared (extern or static inline).
sed -e 's/#.*//' -e 's/[[:space:]]//g' "$src/tests/data/sample-surface.txt" | grep . |
	sort -u >"$tmp/surface"
sort -u "$tmp/declared" "$tmp/inline" >"$tmp/known"
comm -23 "$tmp/surface" "$tmp/known" >"$tmp/undeclared"
comm -23 "$tmp/undeclared" "$tmp/allow" >"$tmp/undeclared_hard"
if [ -s "$tmp/undeclared_hard" ]; then
	echo "FAIL: called by NVIDIA's samples but not declared in include/:"
	sed 's/^/  /' "$tmp/undeclared_hard"
	fail=1
fi
# DOCA defines these inline in its headers; a program may take no address of them, and we
# must not force a link dependency either.
for fn in doca_buf_inventory_buf_get_by_addr doca_buf_inventory_buf_get_by_data \
	doca_buf_inventory_buf_reuse_by_addr doca_buf_inventory_buf_reuse_by_data doca_version; do
	grep -qx "$fn" "$tmp/inline" || {
		echo "FAIL: $fn must be a static inline function in include/ (as in DOCA)"
		fail=1
	}
done

# Every public function is called (or named) by some test: a call no test makes is a
# behaviour no test checks.
grep -rhoE '\bdoca_[a-z0-9_]+' "$src/tests" --include='*.c' --include='*.h' --include='*.py' \
	--include='*.sh' | sort -u >"$tmp/tested"
sort -u "$tmp/declared" "$tmp/inline" | comm -23 - "$tmp/tested" >"$tmp/untested"
if [ -s "$tmp/untested" ]; then
	echo "FAIL: public functions that no file under tests/ names (write a test that calls them):"
	sed 's/^/  /' "$tmp/untested"
	fail=1
fi

echo "symbol parity: $(wc -l <"$tmp/declared") exported functions declared," \
	"$(wc -l <"$tmp/inline") static inline, $(wc -l <"$tmp/surface") sample-surface names," \
	"$(wc -l <"$tmp/allow") allowed gaps"
exit $fail
