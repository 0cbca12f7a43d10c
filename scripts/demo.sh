#!/bin/sh
# Usage: scripts/demo.sh BUILD_DIR   (the body of `make demo`)
#
# Shows odma working on this machine, in three steps, each run only if it has been built;
# the copies first, then the long listing of capabilities:
#   1. a 64 KiB local DMA copy                         (samples/dma_local_copy)
#   2. a host -> DPU -> host copy between two processes (apps/dma_copy demo script)
#   3. the emulated devices and their capabilities   (tools/caps/doca_caps)
# A step that is not built is reported and skipped; a step that fails stops the demo with a
# non-zero exit status.
set -u
build=${1:-build}
srcdir=$(cd "$(dirname "$0")/.." && pwd)
ran=0

say() {
	printf '\n=== %s\n' "$*"
}

# run_step TITLE CMD...: runs one demo step; exits if it fails.
run_step() {
	title=$1
	shift
	say "$title"
	echo "\$ $*"
	"$@"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "odma demo: step failed: $title (exit status $rc)" >&2
		exit 1
	fi
	ran=$((ran + 1))
}

not_built() {
	say "$1"
	echo "(not built yet: $2 does not exist; skipped)"
}

step_devices() {
	t="Emulated devices and their capabilities"
	if [ -x "$build/tools/caps/doca_caps" ]; then
		run_step "$t" "$build/tools/caps/doca_caps"
	else
		not_built "$t" "$build/tools/caps/doca_caps"
	fi
}

step_local_copy() {
	t="Local DMA copy of 64 KiB (DOCA DMA sample)"
	if [ -x "$build/samples/dma_local_copy" ]; then
		run_step "$t" "$build/samples/dma_local_copy"
	else
		not_built "$t" "$build/samples/dma_local_copy"
	fi
}

# HOOK (DMA Copy application): the host and DPU processes of apps/dma_copy exchange an
# export descriptor and copy a file host -> DPU -> host. The app provides the driver script;
# either location below is picked up, first the one in the build tree.
step_dma_copy() {
	t="Host -> DPU -> host copy (DMA Copy application, two processes)"
	if [ -f "$build/apps/dma_copy/odma_dma_copy_demo.sh" ]; then
		run_step "$t" sh "$build/apps/dma_copy/odma_dma_copy_demo.sh" "$build"
	elif [ -f "$srcdir/apps/dma_copy/demo.sh" ]; then
		run_step "$t" sh "$srcdir/apps/dma_copy/demo.sh" "$build"
	else
		not_built "$t" "$build/apps/dma_copy/odma_dma_copy_demo.sh"
	fi
}

if [ ! -d "$build" ]; then
	echo "odma demo: build directory '$build' not found; run 'make demo' (it builds first)" >&2
	exit 1
fi
echo "odma demo (build directory: $build)"
step_local_copy
step_dma_copy
step_devices
echo
if [ "$ran" -eq 0 ]; then
	echo "odma demo: none of the demo programs is built yet; the libraries built, and"
	echo "'make check' runs the test suite."
else
	echo "odma demo: $ran step(s) ran successfully."
fi
