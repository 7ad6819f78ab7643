# SPDX-License-Identifier: GPL-2.0
#
# kmake.sh: sourced by kbuild.sh and distro.sh, with ROOT, src and obj
# set. Defines kmake, kbuild's make in $src for $obj, through ccache when
# there is one: a CI run on a fresh clone rebuilds every kernel from
# scratch; with the cache (kept in ~/.cache/ccache across clones, paths
# made relative to the clone) that costs little more than the link.

# Never let the caller's make flags/variables leak into kbuild.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
# KARCH=arm64 cross-builds with Debian's gcc-aarch64-linux-gnu.
KARCH=${KARCH:-x86_64}
kmake_cross=
[ "$KARCH" = arm64 ] && kmake_cross=aarch64-linux-gnu-
kmake_cc=()
if command -v ccache >/dev/null; then
	export CCACHE_BASEDIR=$ROOT CCACHE_NOHASHDIR=1
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-12G}
	kmake_cc=(CC="ccache ${kmake_cross}gcc")
fi
kmake() {
	make -s -C "$src" O="$obj" ARCH="$KARCH" CROSS_COMPILE="$kmake_cross" \
		"${kmake_cc[@]}" "$@"
}
