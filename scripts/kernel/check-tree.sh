#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-tree.sh: fail loudly if any upstream file of the perf_event
# subsystem is left in build/linux, i.e. if anything under the owned
# directories/files does not resolve into this repository.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$ROOT/build/linux
bad=0

owned=$(cat "$T/.harness-owned" 2>/dev/null) || {
	echo "check-tree.sh: $T not prepared (scripts/kernel/prepare-tree.sh ours)" >&2
	exit 1
}

for p in $owned; do
	if [ ! -L "$T/$p" ] || [ "$(readlink -f "$T/$p")" != "$ROOT/$p" ]; then
		echo "check-tree.sh: build/linux/$p is not a link to $ROOT/$p" >&2
		bad=1
		continue
	fi
	# Everything reachable below it must live in the repository.
	while IFS= read -r -d '' f; do
		r=$(readlink -f "$f")
		case $r in
		"$ROOT"/*) ;;
		*) echo "check-tree.sh: ${f#"$T"/} resolves outside the repo: $r" >&2
		   bad=1 ;;
		esac
	done < <(find -L "$T/$p" -print0 2>/dev/null)
done

for p in kernel/events arch/x86/events include/linux/perf_event.h \
	 include/uapi/linux/perf_event.h; do
	# a here-string, not a pipe: grep -q exits at the match, and under
	# pipefail echo's SIGPIPE on its last write would fail the test
	grep -qx "$p" <<<"$owned" || { echo "check-tree.sh: $p not owned" >&2; bad=1; }
done

if [ $bad != 0 ]; then
	echo "check-tree.sh: UPSTREAM perf_event FILES REMAIN IN build/linux -- refusing to build" >&2
	echo "check-tree.sh: (rm -rf build/linux and rebuild to recreate it)" >&2
	exit 1
fi
exit 0
