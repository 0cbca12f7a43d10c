#!/bin/sh
# odma compat --min-release on NVIDIA's doca-samples 2.10 and 3.3, read from a local git
# mirror of NVIDIA-DOCA/doca-samples (ODMA_DOCA_SAMPLES_GIT, default the workplace mirror);
# skipped (77) when there is none. Every DMA, Core and Comch sample gets a release; the 3.3
# samples need 3.1 through samples/common.c, the 2.10 ones are bounded by 2.9.
# Usage: test_minrel_samples.sh ODMA_COMPAT
set -u
compat=$1
git_dir=${ODMA_DOCA_SAMPLES_GIT:-/work/.mirror/NVIDIA-DOCA+doca-samples/repo}
if ! git --git-dir "$git_dir" cat-file -e fd03ddf 2>/dev/null ||
	! git --git-dir "$git_dir" cat-file -e 6dc892d 2>/dev/null; then
	echo "skip: no doca-samples mirror with 2.10 (6dc892d) and 3.3 (fd03ddf) at $git_dir"
	exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
for rel in 6dc892d:210 fd03ddf:33; do
	mkdir "$tmp/${rel#*:}"
	git --git-dir "$git_dir" archive "${rel%:*}" samples applications |
		tar -x -C "$tmp/${rel#*:}" || exit 1
	"$compat" --min-release "$tmp/${rel#*:}" >"$tmp/${rel#*:}.txt" 2>&1 || {
		echo "FAIL: exit status $? on ${rel%:*}"
		fail=1
	}
done
for rel in 210 33; do
	for d in "$tmp/$rel"/samples/doca_dma/*/ "$tmp/$rel"/samples/doca_comch/*/ \
		"$tmp/$rel"/samples/doca_common/*/; do
		[ -f "$d/meson.build" ] || continue
		name=${d%/}
		grep -q "^$name: needs DOCA " "$tmp/$rel.txt" || {
			echo "FAIL: no release for $name"
			fail=1
		}
	done
done
grep -q "^$tmp/33/samples/doca_dma/dma_local_copy: needs DOCA 3\.1$" "$tmp/33.txt" || {
	echo "FAIL: 3.3 dma_local_copy is not 3.1"
	fail=1
}
grep -q "doca_devinfo_get_pci_func_type ($tmp/33/samples/common\.c:" "$tmp/33.txt" || {
	echo "FAIL: 3.3: the 3.1 floor is not traced to samples/common.c"
	fail=1
}
grep -q "^$tmp/210/samples/doca_dma/dma_local_copy: needs DOCA 2\.9 at most, 2\.5 at least$" \
	"$tmp/210.txt" || {
	echo "FAIL: 2.10 dma_local_copy is not '2.9 at most, 2.5 at least'"
	fail=1
}
[ $fail -eq 0 ] && echo "ok: every 2.10 and 3.3 DMA, Core and Comch sample has a release"
exit $fail
