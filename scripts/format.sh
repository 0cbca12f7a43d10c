#!/bin/sh
# Formats odma's C sources with clang-format (.clang-format): `sh scripts/format.sh` rewrites
# them, `sh scripts/format.sh --check` lists the files whose formatting differs and exits 1
# (the CI lint stage). Public headers (include/) are left alone: reformatting them would
# change the installed headers. CLANG_FORMAT picks the binary (default: clang-format-14 if
# present, else clang-format); other major versions may format some lines differently.
set -eu
cd "$(dirname "$0")/.."
cf=${CLANG_FORMAT:-}
if [ -z "$cf" ]; then
	if command -v clang-format-14 >/dev/null 2>&1; then cf=clang-format-14; else cf=clang-format; fi
fi
if ! command -v "$cf" >/dev/null 2>&1; then
	echo "format: $cf not found (install clang-format-14)" >&2
	exit 2
fi
files=$(git ls-files 'src/*.[ch]' 'tests/*.[ch]' 'tools/*.[ch]' 'apps/*.[ch]' 'samples/*.[ch]' \
	'fuzz/*.[ch]' | grep -v '^tests/data/')
if [ "${1:-}" = "--check" ]; then
	# batches of 40 files, one batch per CPU at a time: one process per file spent 35 s of
	# the lint stage starting clang-format (2 s this way)
	out=$(echo "$files" | xargs -P "$(nproc)" -n 40 "$cf" --dry-run --Werror 2>&1) && rc=0 || rc=$?
	bad=$(printf '%s\n' "$out" | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
	for f in $bad; do
		echo "format: $f differs from $cf's formatting (run sh scripts/format.sh)"
	done
	if [ -n "$bad" ]; then
		echo "format: $(echo "$bad" | wc -l) file(s) to format"
		exit 1
	fi
	if [ "$rc" -ne 0 ]; then
		printf '%s\n' "$out" | head -n 5
		echo "format: $cf failed (exit $rc) with no file to format named"
		exit 1
	fi
	echo "format: $(echo "$files" | wc -l) files formatted as $cf wants"
	exit 0
fi
# shellcheck disable=SC2086
"$cf" -i $files
