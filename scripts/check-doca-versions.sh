#!/bin/sh
# Checks the version overlay (data/doca-versions.tsv): one row for every function the public
# headers declare and no other, every row with a release (or "unknown") and a source, and the
# C table odma compat carries (tools/compat/compat_versions_table.c) generated from it.
# Usage: scripts/check-doca-versions.sh SOURCE_ROOT
set -u
# python3: the interpreter the test runner names (PYTHON3, tests/meson.build), else PATH's
python3() { command "${PYTHON3:-python3}" "$@"; }
src=$1
tsv=$src/data/doca-versions.tsv
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
for h in "$src"/include/*.h; do
	echo "#include \"$h\""
done >"$tmp/all.c"
gcc -std=c11 -DDOCA_ALLOW_EXPERIMENTAL_API -DDOCA_ALLOW_DEPRECATED_API -I"$src/include" \
	-fsyntax-only -aux-info "$tmp/aux.txt" "$tmp/all.c" || exit 1
grep -E 'include/doca_[a-z_]*\.h:[0-9]+:N[CF] \*/' "$tmp/aux.txt" |
	sed -e 's/ *(.*//' -e 's/.*[ *]//' | grep '^doca_' | sort -u >"$tmp/declared"
grep -v '^#' "$tsv" | cut -f1 | sort >"$tmp/rows"
if ! diff "$tmp/declared" "$tmp/rows" >"$tmp/diff"; then
	echo "FAIL: data/doca-versions.tsv and include/ disagree (< declared only, > in the TSV only):"
	grep '^[<>]' "$tmp/diff"
	echo "(regenerate: scripts/gen-doca-versions.py > data/doca-versions.tsv)"
	fail=1
fi
[ -z "$(sort "$tmp/rows" | uniq -d)" ] || { echo "FAIL: duplicate rows"; fail=1; }
# one awk over the rows (a shell loop's read costs a system call a byte)
awk -F '\t' -v releases=" 1.5 2.0 2.2 2.5 2.6 2.7 2.8 2.9 2.10 3.0 3.1 3.2 3.3 unknown " '
/^#/ { next }
{
	if (index(releases, " " $2 " ") == 0) print "FAIL: " $1 ": release \047" $2 "\047"
	if ($3 != "exact" && $3 != "at-most" && $3 != "unknown") print "FAIL: " $1 ": bound \047" $3 "\047"
	if ($5 == "") print "FAIL: " $1 ": no source"
	if ($3 == "exact" && $2 != $4) print "FAIL: " $1 ": exact, yet " $2 " != " $4
}' "$tsv" >"$tmp/rowcheck"
[ -s "$tmp/rowcheck" ] && { cat "$tmp/rowcheck"; fail=1; }
python3 "$src/scripts/doca-versions-c.py" "$tsv" >"$tmp/table.c" || exit 1
if ! cmp -s "$tmp/table.c" "$src/tools/compat/compat_versions_table.c"; then
	echo "FAIL: tools/compat/compat_versions_table.c is older than data/doca-versions.tsv"
	echo "(regenerate: scripts/doca-versions-c.py data/doca-versions.tsv > tools/compat/compat_versions_table.c)"
	fail=1
fi
[ $fail -eq 0 ] && echo "ok: $(wc -l <"$tmp/rows") functions, each with a release and a source"
exit $fail
