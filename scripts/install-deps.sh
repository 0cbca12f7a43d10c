#!/bin/sh
# Installs what odma needs to build and test on Debian 12, when run as root.
# Without root it only reports what is missing.
set -e
missing=""
need() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed" || missing="$missing $1"; }
for p in gcc meson ninja-build pkg-config libcmocka-dev libjson-c-dev libucx-dev nettle-dev libisal-dev; do need "$p"; done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "odma: installing build dependencies:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
else
	echo "odma: missing build dependencies:$missing" >&2
	echo "odma: install them with: sudo apt-get install$missing" >&2
	exit 1
fi
