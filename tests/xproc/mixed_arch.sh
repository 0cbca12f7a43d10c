#!/bin/sh
# An x86-64 host half and an aarch64 DPU half agree (issue 31): in the aarch64 cross build, the
# UCX import tests (test_xproc_ucx: copies both ways, read-only, revoked, a killed, hung or
# hostile exporter; test_xproc_se_ucx: sync event values, concurrent adds, revocation) run
# under qemu-user as the importer, against the exporters of the native build (ucx_peer,
# se_ucx_peer) run natively. Descriptors, the UCX wire and the sync event wire must mean the
# same on both architectures for any of it to pass.
#   mixed_arch.sh TEST_XPROC_UCX TEST_XPROC_SE_UCX NATIVE_BUILD_DIR   (ODMA_NATIVE_BUILD wins)
set -u
native=${ODMA_NATIVE_BUILD:-$3}
peer=$native/tests/xproc/ucx_peer
se_peer=$native/tests/xproc/se_ucx_peer
if [ ! -x "$peer" ] || [ ! -x "$se_peer" ]; then
	echo "skip: no native odma build at $native (build it first: make; or set ODMA_NATIVE_BUILD)"
	exit 77
fi
case $(od -An -tx1 -j18 -N2 "$peer" | tr -d ' ') in
3e00) ;; # EM_X86_64: the host half
*)
	echo "skip: $peer is not an x86-64 program (ODMA_NATIVE_BUILD names the native build)"
	exit 77 ;;
esac
# The aarch64 tests run through the emulator; the exporters they start must not (native).
# shellcheck disable=SC2086
W=${MESON_EXE_WRAPPER:-}
unset MESON_EXE_WRAPPER
export ODMA_TRANSPORT=ucx ODMA_TRANSPORT_TIMEOUT_MS=3000 ODMA_SYSTEM=bf3
fail=0
ODMA_TP_TEST_PEER=$peer $W "$1" || { echo "FAIL: x86-64 exporter, aarch64 importer (memory)"; fail=1; }
ODMA_SE_TEST_PEER=$se_peer $W "$2" || { echo "FAIL: x86-64 exporter, aarch64 importer (sync events)"; fail=1; }
[ $fail = 0 ] && echo "ok: an x86-64 exporter and an aarch64 importer agree (memory and sync events over UCX)"
exit $fail
