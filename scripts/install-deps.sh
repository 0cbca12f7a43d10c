#!/bin/sh
# Installs what odma needs to build and test on Debian 12, when run as root.
# Without root it only reports what is missing. libdpdk-dev is the benchmark's peer (odma bench
# --peer dpdk, scripts/perf-goals.sh); the library never links it.
#   sh scripts/install-deps.sh          the native build's dependencies
#   sh scripts/install-deps.sh arm64    also a cross build for ARCH (Debian's name: arm64 only,
#                                       today): its cross compiler, qemu-user to run its tests,
#                                       and the ARCH builds of the libraries (multiarch)
set -e
arch=${1:-}
missing=""
need() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed" || missing="$missing $1"; }
for p in gcc meson ninja-build pkg-config libcmocka-dev libjson-c-dev libucx-dev nettle-dev zlib1g-dev liblz4-dev libisal-dev \
	libdpdk-dev; do need "$p"; done
case "$arch" in
"") ;;
arm64)
	for p in crossbuild-essential-arm64 qemu-user libcmocka-dev:arm64 libjson-c-dev:arm64 \
		libucx-dev:arm64 nettle-dev:arm64 zlib1g-dev:arm64 liblz4-dev:arm64; do need "$p"; done ;;
*)
	echo "odma: ARCH '$arch' is not supported; ARCH=arm64 (aarch64) is" >&2
	exit 2 ;;
esac
if [ -n "$missing" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "odma: installing build dependencies:$missing"
		export DEBIAN_FRONTEND=noninteractive
		if [ -n "$arch" ] && ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
			dpkg --add-architecture "$arch"
		fi
		apt-get update -qq >/dev/null
		apt-get install -y -qq --no-install-recommends $missing >/dev/null
	else
		echo "odma: missing build dependencies:$missing" >&2
		[ -n "$arch" ] && echo "odma: (as root, first: dpkg --add-architecture $arch)" >&2
		echo "odma: install them with: sudo apt-get install$missing" >&2
		exit 1
	fi
fi

# libisal-dev (DOCA Erasure Coding's ISA-L) is not Multi-Arch in Debian 12: installing its
# arm64 package would remove the native one. The cross build gets it unpacked beside instead,
# in /opt/odma-cross/arm64 (a pkg-config file the cross file reads, and a link in the arm64
# multiarch directory where qemu-aarch64's loader looks).
if [ "$arch" = arm64 ]; then
	dir=/opt/odma-cross/arm64
	if [ ! -f "$dir/pkgconfig/libisal.pc" ] || [ ! -e /usr/lib/aarch64-linux-gnu/libisal.so.2 ]; then
		if [ "$(id -u)" != 0 ]; then
			echo "odma: the cross build needs ISA-L for arm64 in $dir; run this as root" >&2
			exit 1
		fi
		tmp=$(mktemp -d)
		(cd "$tmp" && apt-get download -qq libisal2:arm64 libisal-dev:arm64) || {
			echo "odma: cannot download libisal2:arm64 and libisal-dev:arm64" >&2
			rm -rf "$tmp"
			exit 1
		}
		mkdir -p "$dir/pkgconfig"
		for d in "$tmp"/*.deb; do dpkg -x "$d" "$dir"; done
		rm -rf "$tmp"
		sed "s|^prefix=.*|prefix=$dir/usr|" "$dir/usr/lib/aarch64-linux-gnu/pkgconfig/libisal.pc" \
			>"$dir/pkgconfig/libisal.pc"
		mkdir -p /usr/lib/aarch64-linux-gnu
		ln -sf "$dir/usr/lib/aarch64-linux-gnu/libisal.so.2" /usr/lib/aarch64-linux-gnu/libisal.so.2
	fi
fi
