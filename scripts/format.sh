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
	bad=0
	for f in $files; do
		if ! "$cf" --dry-run --Werror "$f" >/dev/null 2>&1; then
			echo "format: $f differs from $cf's formatting (run sh scripts/format.sh)"
			bad=$((bad + 1))
		fi
	done
	[ "$bad" -eq 0 ] || { echo "format: $bad file(s) to format"; exit 1; }
	echo "format: $(echo "$files" | wc -l) files formatted as $cf wants"
	exit 0
fi
# shellcheck disable=SC2086
"$cf" -i $files
