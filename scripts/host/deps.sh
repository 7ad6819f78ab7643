#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh: install the Debian 12 packages the harness needs.  Fast no-op
# when everything is installed; "apt-get update" only when something is
# missing.
set -euo pipefail

PKGS="linux-source-6.12 qemu-system-x86 seabios busybox-static gcc libc6-dev
make bc flex bison libelf-dev libssl-dev cpio linux-perf xz-utils gzip
dwarves python3 perl kmod rsync util-linux coreutils gdb-minimal ccache
checkpolicy linux-config-6.12 bpftrace systemtap-sdt-dev papi-tools
libpfm4-dev clang libbpf-dev tcc"

# The PMU model's QEMU build (tools/testing/pmu-model) installs its own
# (and a deb-src entry): here too, so that all of apt runs up front and
# never beside a build (make test builds the kernel and QEMU at once).
"$(dirname "$0")/../../tools/testing/pmu-model/qemu-deps.sh"

# shellcheck disable=SC2086
installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' $PKGS 2>/dev/null |
	    awk '$2 == "installed" { print $1 }' || true)
missing=()
for p in $PKGS; do
	grep -qx "$p" <<<"$installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "  DEPS    installing: ${missing[*]}"
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
