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
# Debian's arm64 busybox-static, perf and gdb, and every library package
# those two depend on (the lib* and zlib* packages of their dependency closure):
# mkinitramfs.sh -a arm64 copies the binaries with the libraries their
# ELF headers name (scripts/guest/bins.sh: copy_bin_root)
PROGS="linux-perf gdb-minimal"
# and arm64's <sys/sdt.h> (systemtap-sdt-dev, headers alone: Multi-Arch
# same, in usr/include/aarch64-linux-gnu), for perf_probe_tool's SDT note
HDRS="systemtap-sdt-dev"

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
# no pipe into grep -q under pipefail (SIGPIPE to the writer)
if ! grep -qx arm64 <<<"$(dpkg --print-foreign-architectures)"; then
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
# one unpacker at a time (two make runs in one checkout)
exec 9>"$A/.deps.lock"
flock 9
stamp=$A/debs/stamp
want="busybox-static $PROGS $HDRS"
[ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && exit 0
# the lib* packages of the closure, as apt resolves it for arm64
# shellcheck disable=SC2086
libs=$(apt-cache depends --recurse --no-recommends --no-suggests \
	--no-conflicts --no-breaks --no-replaces --no-enhances \
	$(printf '%s:arm64 ' $PROGS) 2>/dev/null |
	sed -n 's/^\(z*lib[^ <>]*\):arm64$/\1/p' | sort -u)
echo "  DEPS    arm64 busybox-static $PROGS $HDRS and $(echo "$libs" | wc -w) libraries -> build/arm64/root"
rm -rf "${A:?}/debs/"*.deb "$A/root"
mkdir -p "$A/root"
# shellcheck disable=SC2046
(cd "$A/debs" && apt-get download -qq $(printf '%s:arm64 ' busybox-static $PROGS $HDRS $libs) 2>/dev/null) || {
	[ -n "$updated" ] || $SUDO apt-get update -qq
	# shellcheck disable=SC2046
	(cd "$A/debs" && apt-get download -qq $(printf '%s:arm64 ' busybox-static $PROGS $HDRS $libs))
}
for d in "$A/debs/"*.deb; do
	dpkg -x "$d" "$A/root"
done
echo "$want" > "$stamp"
