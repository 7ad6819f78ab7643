#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kbuild.sh ours|stock <objdir> <fragment>... -- <make target>...
#
# Configure (only when a fragment or the tree changed) and build a kernel.
# Runs under build/.kbuild.lock (scripts/host/locked.sh kbuild), taking it
# itself if the caller does not hold it.
#
# Config: x86_64 tinyconfig + merge_config.sh -m <fragments> + olddefconfig,
# then scripts/kernel/check-config.sh verifies the requested options stuck.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$ROOT/build
JOBS=${JOBS:-3}

# Take build/.kbuild.lock unless the caller holds it already.
[ "${HARNESS_KBUILD_LOCKED:-}" = 1 ] || exec "$ROOT/scripts/host/locked.sh" kbuild "$0" "$@"

kind=$1 obj=$(readlink -m "$2"); shift 2
frags=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do frags+=("$(readlink -f "$1")"); shift; done
[ "${1:-}" = -- ] && shift
targets=("$@")


"$ROOT/scripts/kernel/prepare-tree.sh" "$kind"
case $kind in
ours)	src=$B/linux; "$ROOT/scripts/kernel/check-tree.sh" ;;
stock)	src=$B/linux-stock ;;
esac

. "$ROOT/scripts/kernel/kmake.sh"

mkdir -p "$obj"
sum=$( { cat "$src/.harness-unpacked" "${frags[@]}"
	 sha256sum "$ROOT/scripts/kernel/kbuild.sh"; } | sha256sum | cut -d' ' -f1)
# No fragments: a no-config target such as headers_install.
if [ ${#frags[@]} -gt 0 ] &&
   { [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.harness-config" 2>/dev/null)" != "$sum" ]; }; then
	echo "  CONFIG  ${obj#"$ROOT"/}: tinyconfig + ${frags[*]##*/}"
	rm -f "$obj/.harness-config" "$obj/.config"
	kmake tinyconfig >/dev/null
	(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
		"$obj/.config" "${frags[@]}") > "$obj/merge_config.log" 2>&1 ||
		{ cat "$obj/merge_config.log"; exit 1; }
	kmake olddefconfig
	"$ROOT/scripts/kernel/check-config.sh" "$obj/.config" "${frags[@]}"
	echo "$sum" > "$obj/.harness-config"
fi

[ ${#targets[@]} -eq 0 ] && exit 0
echo "  KBUILD  ${obj#"$ROOT"/}: ${targets[*]}"
start=$(date +%s)
kmake -j"$JOBS" "${targets[@]}"
echo "  KBUILD  ${obj#"$ROOT"/}: done in $(( $(date +%s) - start ))s"
