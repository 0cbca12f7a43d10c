#!/bin/sh
# Usage: experimental_gate.sh INCLUDE_DIR SOURCE.c CC [CC ARGS...]
# Checks that DOCA_EXPERIMENTAL is a hard gate under -Werror: the source (which calls an
# experimental function) must fail to compile without -DDOCA_ALLOW_EXPERIMENTAL_API, for the
# "experimental" reason, and must compile with it.
set -u
inc=$1
src=$2
shift 2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
flags="-std=c11 -Wall -Wextra -Werror -I$inc -c -o $tmp/out.o"

if "$@" $flags "$src" >"$tmp/without.log" 2>&1; then
	echo "FAIL: $src compiled without -DDOCA_ALLOW_EXPERIMENTAL_API; the gate is open"
	exit 1
fi
if ! grep -q "experimental" "$tmp/without.log"; then
	echo "FAIL: compiling without the opt-in failed, but not because of the experimental marker:"
	cat "$tmp/without.log"
	exit 1
fi
echo "ok: without the opt-in the compiler refuses:"
grep "experimental" "$tmp/without.log" | head -n 2

if ! "$@" $flags -DDOCA_ALLOW_EXPERIMENTAL_API "$src" >"$tmp/with.log" 2>&1; then
	echo "FAIL: $src does not compile with -DDOCA_ALLOW_EXPERIMENTAL_API:"
	cat "$tmp/with.log"
	exit 1
fi
echo "ok: with -DDOCA_ALLOW_EXPERIMENTAL_API it compiles cleanly"
