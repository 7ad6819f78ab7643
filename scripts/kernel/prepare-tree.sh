#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# prepare-tree.sh ours|stock
#
# Unpack the Debian linux-source-6.12 tarball into build/linux-stock
# (unmodified) or build/linux (upstream perf_event subsystem removed, our
# repository's files symlinked in).  Idempotent and cheap when up to date;
# the tree is re-unpacked when the tarball changes.
#
# Concurrency: unpacking happens under build/.kbuild.lock (the lock kernel
# builds hold), unless the caller already holds it (HARNESS_KBUILD_LOCKED=1).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$ROOT/build
TARBALL=${TARBALL:-/usr/src/linux-source-6.12.tar.xz}

# Paths of the subsystem that we own; upstream's copies are removed.
OWNED_BUILTIN="kernel/events arch/x86/events include/linux/perf_event.h include/uapi/linux/perf_event.h"

kind=${1:?usage: prepare-tree.sh ours|stock}
case $kind in
ours)	dst=$B/linux;       objs="obj-test obj-bench headers obj-arm64 headers-arm64" ;;
stock)	dst=$B/linux-stock; objs="obj-stock obj-stock-bench obj-stock-arm64" ;;
*)	echo "prepare-tree.sh: unknown tree '$kind'" >&2; exit 2 ;;
esac

[ -r "$TARBALL" ] || { echo "prepare-tree.sh: $TARBALL missing (make deps)" >&2; exit 1; }
mkdir -p "$B"

owned_list() {
	{
		for p in $OWNED_BUILTIN; do echo "$p"; done
		if [ -f "$ROOT/config/owned-files" ]; then
			sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e 's/^[[:space:]]*//' \
			    -e 's|^/*||' -e 's|/*$||' "$ROOT/config/owned-files"
		fi
	} | sed '/^$/d' | sort -u
}

tar_id="$(readlink -f "$TARBALL") $(stat -L -c '%s %Y' "$TARBALL")"
stamp=$dst/.harness-unpacked
owned_stamp=$dst/.harness-owned

up_to_date() {
	[ -f "$stamp" ] && [ "$(cat "$stamp")" = "$tar_id" ] || return 1
	[ "$kind" = stock ] && return 0
	# A path dropped from config/owned-files needs upstream's copy back:
	# only a fresh unpack restores it.
	[ -f "$owned_stamp" ] || return 1
	[ -z "$(comm -23 "$owned_stamp" <(owned_list))" ]
}

link_owned() {
	local p
	owned_list > "$owned_stamp.new"
	while read -r p; do
		case $p in *..*) echo "prepare-tree.sh: bad owned path '$p'" >&2; exit 1 ;; esac
		if [ -L "$dst/$p" ] && [ "$(readlink "$dst/$p")" = "$ROOT/$p" ]; then
			continue
		fi
		rm -rf "${dst:?}/$p"
		mkdir -p "$(dirname "$dst/$p")"
		ln -s "$ROOT/$p" "$dst/$p"
	done < "$owned_stamp.new"
	mv "$owned_stamp.new" "$owned_stamp"
}

unpack() {
	local tmp=$dst.tmp.$$ top o
	echo "  UNPACK  $TARBALL -> ${dst#"$ROOT"/}"
	rm -rf "$dst" "$dst".tmp.*
	# Objects built from an older tree are stale (tar keeps old mtimes).
	for o in $objs; do rm -rf "${B:?}/$o"; done
	mkdir "$tmp"
	tar -xf "$TARBALL" -C "$tmp"
	top=$(ls "$tmp")
	[ "$(echo "$top" | wc -l)" = 1 ] && [ -d "$tmp/$top" ] ||
		{ echo "prepare-tree.sh: unexpected tarball layout" >&2; exit 1; }
	mv "$tmp/$top" "$dst"
	rmdir "$tmp"
	if [ "$kind" = ours ]; then
		rm -f "$owned_stamp"
		link_owned
	fi
	echo "$tar_id" > "$stamp"
}

needs_link() {
	[ "$kind" = ours ] && ! cmp -s "$owned_stamp" <(owned_list)
}

if ! up_to_date || needs_link; then
	if [ "${HARNESS_KBUILD_LOCKED:-}" != 1 ]; then
		exec 9>"$B/.kbuild.lock"
		flock 9
	fi
	up_to_date || unpack
	# New entries in config/owned-files only need (re)linking.
	if needs_link; then link_owned; fi
fi
exit 0
