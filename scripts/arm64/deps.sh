#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh: what the arm64 boots need (make arm64-test), installed from
# Debian's archive: the cross toolchain and libc (gcc-aarch64-linux-gnu,
# libc6-dev-arm64-cross) for the kernels and the static selftests,
# qemu-system-arm for qemu-system-aarch64, and Debian's arm64
# busybox-static, fetched through dpkg multiarch (dpkg --add-architecture
# arm64) and unpacked into build/arm64/root without being installed.
# A fast no-op when all of it is there.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
A=$ROOT/build/arm64
PKGS="gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm"
DEBS="busybox-static"

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive

# shellcheck disable=SC2086
missing=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' $PKGS 2>/dev/null |
	  awk '$2 != "installed" { print $1 }' || true)
for p in $PKGS; do
	dpkg-query -W "$p" >/dev/null 2>&1 || missing="$missing $p"
done
updated=
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	echo "  DEPS    dpkg --add-architecture arm64"
	$SUDO dpkg --add-architecture arm64
	$SUDO apt-get update -qq
	updated=1
fi
if [ -n "${missing// /}" ]; then
	echo "  DEPS    installing:$missing"
	[ -n "$updated" ] || $SUDO apt-get update -qq
	updated=1
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -qq --no-install-recommends $missing
fi

mkdir -p "$A/debs" "$A/root"
for d in $DEBS; do
	[ -f "$A/debs/$d.stamp" ] && continue
	echo "  DEPS    $d:arm64 -> build/arm64/root"
	rm -f "$A/debs/${d}_"*.deb
	if ! (cd "$A/debs" && apt-get download -qq "$d:arm64" 2>/dev/null); then
		[ -n "$updated" ] || $SUDO apt-get update -qq
		(cd "$A/debs" && apt-get download -qq "$d:arm64")
	fi
	dpkg -x "$A/debs/${d}_"*_arm64.deb "$A/root"
	touch "$A/debs/$d.stamp"
done
