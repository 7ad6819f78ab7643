#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qemu-deps.sh: what building the PMU model's QEMU needs on Debian 12: a deb-src
# entry for the archive the system already uses (for "apt-get source
# qemu") and the build dependencies of a minimal qemu-system-x86_64.
# Fast no-op when everything is there.
set -euo pipefail

PKGS="dpkg-dev meson ninja-build pkg-config python3 gcc make patch rsync
libglib2.0-dev libpixman-1-dev libfdt-dev zlib1g-dev seabios qemu-system-data"
SRC_LIST=/etc/apt/sources.list.d/pmu-model-src.sources

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
update=

# deb-src twins of the deb entries (deb822 .sources or one-line lists)
if [ ! -f "$SRC_LIST" ] && ! grep -rqs '^\(Types:.*deb-src\|deb-src \)' \
		/etc/apt/sources.list /etc/apt/sources.list.d/; then
	echo "  DEPS    adding deb-src entries ($SRC_LIST)"
	{
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] || continue
			# only stanzas of deb.debian.org-style Debian archives
			awk 'BEGIN { RS = ""; ORS = "\n\n" }
			     /Types:[ \t]*deb/ && /debian/ {
				sub(/Types:[ \t]*deb[^\n]*/, "Types: deb-src"); print }' "$f"
		done
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -f "$f" ] || continue
			sed -n 's/^deb \(.*debian.*\)/deb-src \1/p' "$f"
		done
	} > "$SRC_LIST.tmp"
	# a one-line entry cannot live in a .sources file
	if grep -q '^deb-src ' "$SRC_LIST.tmp"; then
		$SUDO mv "$SRC_LIST.tmp" "${SRC_LIST%.sources}.list"
	else
		$SUDO mv "$SRC_LIST.tmp" "$SRC_LIST"
	fi
	update=1
fi

# shellcheck disable=SC2086
installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' $PKGS 2>/dev/null |
	    awk '$2 == "installed" { print $1 }' || true)
missing=()
for p in $PKGS; do
	grep -qx "$p" <<<"$installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ] || [ -n "$update" ]; then
	$SUDO apt-get update -qq
fi
if [ ${#missing[@]} -gt 0 ]; then
	echo "  DEPS    installing: ${missing[*]}"
	$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
