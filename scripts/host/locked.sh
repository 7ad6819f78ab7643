#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# locked.sh kbuild|qbuild|test CMD [ARGS...]
#
# Run CMD holding build/.kbuild.lock (every kernel build: only one fits on
# the machine), build/.qbuild.lock (the model's QEMU build, which runs at
# nice 19 beside a kernel build and takes the CPU time that build leaves)
# or build/.test.lock (building the test initramfs and booting it:
# outputs shared by everyone using this checkout).  Re-entrant:
# a nested call for a lock this process tree already holds just runs CMD.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
name=$1; shift
case $name in
kbuild)	var=HARNESS_KBUILD_LOCKED ;;
qbuild)	var=HARNESS_QBUILD_LOCKED ;;
test)	var=HARNESS_TEST_LOCKED ;;
*)	echo "locked.sh: unknown lock $name" >&2; exit 2 ;;
esac
[ "${!var:-}" = 1 ] && exec "$@"

lock=$ROOT/build/.$name.lock
mkdir -p "$ROOT/build"
flock -n "$lock" true ||
	echo "  WAIT    build/.$name.lock (held by another build/test run)"
export "$var=1"
exec flock "$lock" "$@"
