#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build.sh [OUTDIR]: build the TCG PMU model's QEMU into OUTDIR (default
# build/pmu-qemu): Debian's qemu source package ("apt-get source qemu")
# with patches/ applied in the order of patches/series, configured for
# qemu-system-x86_64 alone with no optional features, built with ninja at
# low CPU priority.  Result: OUTDIR/qemu-system-x86_64.
# PMU_QEMU_TARGET=aarch64: qemu-system-aarch64 (virt board, device trees)
# with patches/series.aarch64, for the arm64 boots (default OUTDIR
# build/pmu-qemu-aarch64).
#
# Cached: nothing is done (no lock taken) while OUTDIR/.stamp matches the
# patches and this script; a build runs under build/.qbuild.lock (its own,
# not the kernels': at nice 19 it runs beside a kernel build, in the CPU
# time that leaves). A changed patch re-extracts the source beside the
# old one and copies over only the files that differ, so ninja rebuilds
# incrementally.
# Environment: PMU_QEMU_JOBS (ninja -j, default 2), PMU_QEMU_VERSION (a
# source version for apt-get, default the newest).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
TARGET=${PMU_QEMU_TARGET:-x86_64}
case $TARGET in
x86_64)	SERIES=$HERE/patches/series; DEFOUT=$ROOT/build/pmu-qemu ;;
aarch64) SERIES=$HERE/patches/series.aarch64
	DEFOUT=$ROOT/build/pmu-qemu-aarch64 ;;
*)	echo "build.sh: PMU_QEMU_TARGET is x86_64 or aarch64" >&2; exit 2 ;;
esac
OUT=$(readlink -m "${1:-$DEFOUT}")
JOBS=${PMU_QEMU_JOBS:-2}
CONFIGURE=(--target-list=$TARGET-softmmu --without-default-features
	   --without-default-devices --disable-docs --disable-tools
	   --disable-guest-agent --disable-user --disable-werror)
# the virt board's device tree
[ "$TARGET" = x86_64 ] || CONFIGURE+=(--enable-fdt=system)

series=$(grep -v -e '^#' -e '^[[:space:]]*$' "$SERIES")
key=$( { for p in $series; do sha256sum "$HERE/patches/$p"; done
	 sha256sum "$HERE/build.sh"; echo "${PMU_QEMU_VERSION:-}"; } |
       sha256sum | cut -d' ' -f1)
bin=$OUT/qemu-system-$TARGET
if [ -x "$bin" ] && [ "$(cat "$OUT/.stamp" 2>/dev/null)" = "$key" ]; then
	exit 0
fi
# A build: under build/.qbuild.lock
[ "${HARNESS_QBUILD_LOCKED:-}" = 1 ] ||
	exec "$ROOT/scripts/host/locked.sh" qbuild "$0" "$@"

start=$(date +%s)
"$HERE/qemu-deps.sh"
mkdir -p "$OUT/dl"

# Debian's source package (downloaded once)
dsc=$(ls "$OUT"/dl/qemu_*.dsc 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$dsc" ] || { [ -n "${PMU_QEMU_VERSION:-}" ] &&
		      [ "$dsc" != "$OUT/dl/qemu_${PMU_QEMU_VERSION#*:}.dsc" ]; }; then
	echo "  QEMU    apt-get source qemu${PMU_QEMU_VERSION:+=$PMU_QEMU_VERSION}"
	(cd "$OUT/dl" && apt-get source -qq --download-only \
		"qemu${PMU_QEMU_VERSION:+=$PMU_QEMU_VERSION}" 2>&1 |
		grep -v 'Download is performed unsandboxed' || true)
	dsc=$(ls "$OUT"/dl/qemu_*.dsc 2>/dev/null | sort -V | tail -n 1 || true)
	[ -n "$dsc" ] || { echo "build.sh: apt-get source qemu failed" >&2; exit 1; }
fi

# Unpack (with Debian's own patches) and apply ours
rm -rf "$OUT/src.new"
echo "  QEMU    unpack ${dsc##*/} + $(wc -w <<<"$series") patches"
dpkg-source --no-check -x "$dsc" "$OUT/src.new" >/dev/null
for p in $series; do
	patch -d "$OUT/src.new" -p1 -s -N --no-backup-if-mismatch \
		< "$HERE/patches/$p" || { echo "build.sh: $p does not apply" >&2; exit 1; }
done
if [ -d "$OUT/src" ]; then
	# no -t: files that did not change keep their time stamps
	rsync -r -l -p --checksum --delete "$OUT/src.new/" "$OUT/src/"
	rm -rf "$OUT/src.new"
else
	mv "$OUT/src.new" "$OUT/src"
fi

if [ ! -f "$OUT/obj/build.ninja" ]; then
	echo "  QEMU    configure ${CONFIGURE[*]}"
	rm -rf "$OUT/obj"
	mkdir -p "$OUT/obj"
	cc=()
	# through ccache when there is one: a CI run on a fresh clone builds
	# QEMU from scratch (paths made relative, as for the kernels)
	command -v ccache >/dev/null && cc=(--cc="ccache gcc")
	(cd "$OUT/obj" && "$OUT/src/configure" "${CONFIGURE[@]}" "${cc[@]}" \
		> configure.log 2>&1) ||
		{ tail -n 30 "$OUT/obj/configure.log"; exit 1; }
fi
export CCACHE_BASEDIR=$ROOT CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-12G}
echo "  QEMU    ninja -j$JOBS qemu-system-$TARGET (nice 19)"
(cd "$OUT/obj" && nice -n 19 ninja -j"$JOBS" qemu-system-$TARGET > ninja.log 2>&1) ||
	{ grep -A20 -m3 '^FAILED' "$OUT/obj/ninja.log" || tail -n 30 "$OUT/obj/ninja.log"; exit 1; }
cp "$OUT/obj/qemu-system-$TARGET" "$bin.tmp"
mv "$bin.tmp" "$bin"
echo "$key" > "$OUT/.stamp"
echo "  QEMU    ${bin#"$ROOT"/}: built in $(( $(date +%s) - start ))s"
