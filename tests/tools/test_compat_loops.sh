#!/bin/sh
# odma compat on a tree whose symbolic links lead back up: each such link is mirrored as a
# link, not walked (two of them made the mirror grow without end and filled the disk); a link
# to a directory elsewhere is still mirrored as a directory.
# Usage: test_compat_loops.sh ODMA_COMPAT BUILD_ROOT
set -u
compat=$1
W=${MESON_EXE_WRAPPER:-} # a cross build runs the tool through the emulator
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/tree/samples/doca_dma" "$t/elsewhere/proj" || exit 1
ln -s .. "$t/tree/samples/up"
ln -s . "$t/tree/samples/doca_dma/here"
ln -s "$t/elsewhere" "$t/tree/samples/doca_common"
ln -s "$t/tree" "$t/elsewhere/back"
fail=0
timeout 60 $W "$compat" --pkg-config-path "$2/meson-uninstalled" --workdir "$t/work" \
	"$t/tree" >"$t/out" 2>&1
rc=$?
[ $rc -eq 2 ] || { echo "FAIL: exit $rc, not 2 (124: it did not end)"; cat "$t/out"; fail=1; }
grep -q "no DMA, Core or Comch program found" "$t/out" || { echo "FAIL: no refusal line"; fail=1; }
m=$t/work/src/samples
for l in up doca_dma/here doca_common/back; do
	[ -L "$m/$l" ] || { echo "FAIL: $l is not mirrored as a link"; fail=1; }
done
[ -d "$m/doca_common/proj" ] && [ ! -L "$m/doca_common" ] ||
	{ echo "FAIL: the linked directory elsewhere is not mirrored"; fail=1; }
n=$(find "$t/work/src" | wc -l)
[ "$n" -lt 20 ] || { echo "FAIL: the mirror has $n entries"; fail=1; }
exit $fail
