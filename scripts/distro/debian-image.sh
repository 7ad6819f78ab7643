#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debian-image.sh [FLAVOUR|base]: a Debian 12 system with our kernel and the
# stock one installed as packages, as a user's machine would have them.
#
#  1. build/debian/base: debootstrap of bookworm from the Debian archive
#     (the host's apt source), with systemd, initramfs-tools, Debian's
#     perf, bpftrace, the bcc tools, gdb, trinity and a compiler (for the
#     external-module build the guest checks run). Kept, and rebuilt only
#     when the package list below changes.
#  2. build/debian/<flavour>: a copy of it into which dpkg installs the
#     linux-image and linux-headers packages of make deb and make
#     deb-stock (build/deb/<flavour>-ours and -stock; FLAVOUR is "distro",
#     Debian's config, or "lean", DISTRO_CONFIG=lean). Their maintainer
#     scripts run as on any Debian system: depmod, and initramfs-tools'
#     hook writing /boot/initrd.img-<release>. Then the guest side of the
#     checks (scripts/distro/guest/), the project's selftests under
#     /opt/perf-selftests, a root without password on the serial console.
#  3. build/debian/<flavour>.ext4: that tree as an ext4 disk, booted by
#     debian-boot.sh from the kernel and initrd it installed.
#
# Runs as root (debootstrap, chroot, mkfs.ext4 -d keeping owners), in a
# private mount namespace so that nothing stays mounted.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$ROOT/build
D=$B/debian
flavour=${1:-distro}
SUITE=bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
PKGS=(systemd systemd-sysv udev dbus initramfs-tools zstd kmod procps
      iproute2 util-linux less linux-perf bpftrace bpfcc-tools
      python3-bpfcc gdb trinity gcc make libc6-dev bc flex bison
      libelf-dev libssl-dev)

[ "$(id -u)" = 0 ] || { echo "debian-image.sh: run as root" >&2; exit 1; }
if [ -z "${DEBIAN_IMAGE_NS:-}" ]; then
	exec env DEBIAN_IMAGE_NS=1 unshare -m --propagation private "$0" "$@"
fi
for t in debootstrap mkfs.ext4; do
	command -v $t >/dev/null || {
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap e2fsprogs >/dev/null
		break
	}
done
mkdir -p "$D" "$B/logs"

in_root() {	# in_root DIR CMD...: CMD chrooted in DIR, with /proc, /sys, /dev
	local dir=$1; shift
	mount -t proc proc "$dir/proc"
	mount -t sysfs sys "$dir/sys"
	mount --rbind /dev "$dir/dev"
	local rc=0
	chroot "$dir" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 "$@" || rc=$?
	umount -R "$dir/dev" "$dir/sys" "$dir/proc"
	return $rc
}

# ---- 1. the base system --------------------------------------------------
base=$D/base
want=$(printf '%s\n' "$SUITE" "$MIRROR" "${PKGS[@]}" | sha256sum | cut -c1-16)
if [ "$(cat "$base/.harness-base" 2>/dev/null)" != "$want" ]; then
	echo "  DEBOOT  build/debian/base: $SUITE from $MIRROR (${#PKGS[@]} packages and their dependencies)"
	start=$(date +%s)
	rm -rf "$base"
	debootstrap --variant=minbase "$SUITE" "$base" "$MIRROR" \
		> "$B/logs/debootstrap.log" 2>&1 ||
		{ tail -20 "$B/logs/debootstrap.log" >&2; exit 1; }
	# the packages' own configuration steps must not start services
	printf '#!/bin/sh\nexit 101\n' > "$base/usr/sbin/policy-rc.d"
	chmod 755 "$base/usr/sbin/policy-rc.d"
	in_root "$base" apt-get update -qq >> "$B/logs/debootstrap.log" 2>&1
	in_root "$base" apt-get install -y -q --no-install-recommends "${PKGS[@]}" \
		>> "$B/logs/debootstrap.log" 2>&1 ||
		{ tail -20 "$B/logs/debootstrap.log" >&2; exit 1; }
	in_root "$base" apt-get clean
	rm -f "$base/usr/sbin/policy-rc.d"
	echo "$want" > "$base/.harness-base"
	echo "  DEBOOT  build/debian/base: $(du -sm "$base" | cut -f1) MB in $(( $(date +%s) - start ))s"
fi

[ "$flavour" = base ] && exit 0

# ---- 2. our packages, installed -----------------------------------------
debs=()
for kind in ours stock; do
	dir=$B/deb/$flavour-$kind
	n=$(find "$dir" -maxdepth 1 \( -name 'linux-image-*.deb' -o -name 'linux-headers-*.deb' \) 2>/dev/null | wc -l)
	if [ "$n" -lt 2 ]; then
		echo "debian-image.sh: no packages in ${dir#"$ROOT"/} (make deb$([ "$kind" = stock ] && echo -stock)$([ "$flavour" = lean ] && echo " DISTRO_CONFIG=lean"))" >&2
		exit 1
	fi
	debs+=("$dir"/linux-image-*.deb "$dir"/linux-headers-*.deb)
done
root=$D/$flavour
echo "  IMAGE   build/debian/$flavour: base + ${#debs[@]} packages"
start=$(date +%s)
rm -rf "$root"
cp -a "$base" "$root"
mkdir -p "$root/tmp/debs"
cp "${debs[@]}" "$root/tmp/debs/"
in_root "$root" sh -c 'dpkg -i /tmp/debs/*.deb' > "$B/logs/debian-dpkg-$flavour.log" 2>&1 ||
	{ tail -30 "$B/logs/debian-dpkg-$flavour.log" >&2; exit 1; }
rm -rf "$root/tmp/debs"
for kind in ours stock; do
	rel=$(basename "$(ls -d "$root"/lib/modules/*-"$kind")")
	for f in vmlinuz initrd.img; do
		[ -s "$root/boot/$f-$rel" ] || { echo "debian-image.sh: dpkg left no /boot/$f-$rel" >&2; exit 1; }
	done
	# build is an absolute link, to be read inside the image
	[ "$(readlink "$root/lib/modules/$rel/build")" = "/usr/src/linux-headers-$rel" ] &&
	[ -f "$root/usr/src/linux-headers-$rel/Makefile" ] ||
		{ echo "debian-image.sh: linux-headers-$rel has no build tree" >&2; exit 1; }
	echo "          $rel: /boot/vmlinuz, initrd.img ($(stat -c %s "$root/boot/initrd.img-$rel") bytes), headers"
done

# the system as a person would set it up: a hostname, the disk in fstab,
# root on the serial console without a password
echo perf-debian > "$root/etc/hostname"
echo '/dev/vda / ext4 rw,errors=remount-ro 0 1' > "$root/etc/fstab"
sed -i 's|^root:[^:]*:|root::|' "$root/etc/shadow"
# the guest side of the checks, run by a unit when the kernel command
# line says perfeco (debian-boot.sh), and the marker program they watch
G=$ROOT/scripts/distro/guest
install -m 755 "$G/perf-eco.sh" "$root/usr/local/sbin/perf-eco"
install -m 644 "$G/perf-eco.service" "$root/etc/systemd/system/perf-eco.service"
ln -sf /etc/systemd/system/perf-eco.service \
	"$root/etc/systemd/system/multi-user.target.wants/perf-eco.service"
gcc -O1 -g -static -o "$root/usr/local/bin/ecomark" "$G/ecomark.c"
mkdir -p "$root/usr/local/share/ecomod"
cp "$G"/ecomod/* "$root/usr/local/share/ecomod/"
# the project's selftests, as make test builds them
if [ -d "$B/ptests" ]; then
	mkdir -p "$root/opt/perf-selftests"
	cp -a "$B/ptests/." "$root/opt/perf-selftests/"
fi

# ---- 3. the disk ---------------------------------------------------------
img=$D/$flavour.ext4
mb=$(( $(du -sm "$root" | cut -f1) + 2048 ))
rm -f "$img"
mkfs.ext4 -q -L perf-debian -d "$root" "$img" "${mb}M"
echo "  IMAGE   build/debian/$flavour.ext4: ${mb} MB in $(( $(date +%s) - start ))s"
