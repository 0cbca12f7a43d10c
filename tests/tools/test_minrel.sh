#!/bin/sh
# odma compat --min-release on fixtures of our own (tests/data/minrel): the right release and
# the function that sets it; calls inside comments and strings ignored; a meson-project tree
# reported per project with the shared code above it; bad input is one error line, exit 2.
# Usage: test_minrel.sh ODMA_COMPAT SOURCE_ROOT
set -u
compat=$1
W=${MESON_EXE_WRAPPER:-} # a cross build runs the tool through the emulator
fx=$2/tests/data/minrel
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
fail=0
check() { # DESCRIPTION, then grep -E pattern that must match $out
	if ! grep -qE -- "$2" "$out"; then
		echo "FAIL: $1 (no line matching '$2')"
		cat "$out"
		fail=1
	fi
}
refute() {
	if grep -qE -- "$2" "$out"; then
		echo "FAIL: $1 (a line matches '$2')"
		fail=1
	fi
}

$W "$compat" --min-release "$fx/exact" >"$out" 2>&1 || { echo "FAIL: exit $?"; fail=1; }
check "exact: 3.1" "^$fx/exact: needs DOCA 3\.1$"
check "exact: the function and where" "doca_devinfo_get_pci_func_type \($fx/exact/app\.c:21\) -- present in 3\.1"
refute "comments and strings are not calls" "doca_clock_"

$W "$compat" --min-release "$fx/range/server.c" >"$out" 2>&1
check "range: bounds" "server\.c: needs DOCA 2\.7 at most, 2\.6 at least$"
check "range: its function" "^    doca_comch_server_create \(.*server\.c:7\) -- present in 2\.7: .*not before 2\.6"
check "range: own doca_ function left out" "^    doca_fixture_own_helper "

$W "$compat" --min-release "$fx/tree" >"$out" 2>&1
check "tree: project a" "^$fx/tree/a: needs DOCA 3\.1$"
check "tree: project a's floor comes from the shared file" "doca_devinfo_get_sf_index \($fx/tree/common\.c:6\)"
check "tree: project b" "^$fx/tree/b: needs DOCA 3\.1$"
refute "tree: the shared directory is no project of its own" "^$fx/tree: "

$W "$compat" --min-release --json "$fx/exact" >"$out" 2>&1
check "json: min_release" '"min_release":"3\.1"'
check "json: exact" '"exact":true'
check "json: the function" '"function":"doca_devinfo_get_pci_func_type"'

$W "$compat" --min-release --bogus "$fx/exact" >"$out" 2>&1
rc=$?
[ $rc -eq 2 ] || { echo "FAIL: bad flag exit $rc"; fail=1; }
[ "$(wc -l <"$out")" -eq 1 ] || { echo "FAIL: bad flag: not one line"; cat "$out"; fail=1; }
check "bad flag named" "not '--bogus'"

$W "$compat" --min-release "$fx/no-such-dir" >"$out" 2>&1
rc=$?
[ $rc -eq 2 ] || { echo "FAIL: missing path exit $rc"; fail=1; }
check "missing path named" "cannot read $fx/no-such-dir"

# A source file the walk cannot read (a FIFO, opened without blocking): named, status 2 as
# for a named FILE, no answer printed; it did exit 0 with the answer of the other files.
fifo=$(mktemp -d) || exit 1
cp "$fx/range/server.c" "$fifo/" && mkfifo "$fifo/pipe.c"
timeout 30 $W "$compat" --min-release "$fifo" >"$out" 2>&1
rc=$?
rm -rf "$fifo"
[ $rc -eq 2 ] || { echo "FAIL: a FIFO in the walk: exit $rc (124: it did not end)"; fail=1; }
[ "$(wc -l <"$out")" -eq 1 ] || { echo "FAIL: a FIFO in the walk: not one line"; cat "$out"; fail=1; }
check "a FIFO in the walk named" "cannot read $fifo/pipe\.c"

# A directory the walk cannot read: named, status 2, no answer printed; it was skipped in
# silence, so the answer (exit 0) left out the calls of the files under it. As root, the
# tool runs as nobody (root reads any directory).
as=""
[ "$(id -u)" -eq 0 ] && as="setpriv --reuid=65534 --regid=65534 --clear-groups"
noread=$(mktemp -d) || exit 1
mkdir "$noread/sub" && cp "$fx/range/server.c" "$noread/" && cp "$fx/exact/app.c" "$noread/sub/"
chmod 755 "$noread" && chmod 000 "$noread/sub"
if [ -n "$as" ] && ! $as true 2>/dev/null; then
	echo "skip: an unreadable directory (cannot run as nobody)"
else
	timeout 30 $as $W "$compat" --min-release "$noread" >"$out" 2>&1
	rc=$?
	[ $rc -eq 2 ] || { echo "FAIL: an unreadable directory: exit $rc"; cat "$out"; fail=1; }
	check "an unreadable directory named" "cannot read $noread/sub: Permission denied"
	refute "an unreadable directory: no answer" "needs DOCA"
fi
chmod 755 "$noread/sub"
rm -rf "$noread"

# Symbolic links back up are not followed: two of them made the walk run without end.
loops=$(mktemp -d) || exit 1
cp "$fx/range/server.c" "$loops/" && ln -s . "$loops/a" && ln -s .. "$loops/b"
timeout 30 $W "$compat" --min-release "$loops" >"$out" 2>&1
rc=$?
rm -rf "$loops"
[ $rc -eq 0 ] || { echo "FAIL: links back up: exit $rc (124: it did not end)"; fail=1; }
check "links back up: the file read once, by its own path" "^    doca_comch_server_create \($loops/server\.c:7\)"
check "links back up: the answer" "^$loops: needs DOCA 2\.7 at most"
refute "links back up: not read through a link" "$loops/a/"

# Many calls of many names: each call was looked up in a list of every name seen before, so
# 16,000 names called 80 times each (two files of 8 MB) took a minute or more; now each call
# is one tree look-up. More than 16,384 distinct doca_ names is no DOCA program: refused
# (status 2), one line.
big=$(mktemp -d) || exit 1
for f in a b; do
	awk 'BEGIN { for (r = 0; r < 40; r++) for (i = 0; i < 16000; i++) printf "doca_x%d();\n", i }' >"$big/$f.c"
done
timeout 30 $W "$compat" --min-release "$big" >"$out" 2>&1
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: 16,000 names called 80 times: exit $rc (124: not done in 30 s)"; fail=1; }
check "16,000 names: each unknown name listed once" "^    doca_x15999 \($big/a\.c:16000\)"
awk 'BEGIN { for (i = 0; i < 16385; i++) printf "doca_y%d();\n", i }' >"$big/more.c"
timeout 30 $W "$compat" --min-release "$big/more.c" >"$out" 2>&1
rc=$?
rm -rf "$big"
[ $rc -eq 2 ] || { echo "FAIL: 16,385 distinct names: exit $rc"; fail=1; }
[ "$(wc -l <"$out")" -eq 1 ] || { echo "FAIL: 16,385 distinct names: not one line"; head -3 "$out"; fail=1; }
check "16,385 distinct names refused" "calls more than 16384 distinct doca_ functions \(at $big/more\.c:16385\)"

$W "$compat" --min-release >"$out" 2>&1
[ $? -eq 2 ] || { echo "FAIL: no argument: exit not 2"; fail=1; }
check "no argument" "needs C files or a directory"
[ $fail -eq 0 ] && echo "ok: odma compat --min-release on the fixtures"
exit $fail
