#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# quick-test.sh [-s "SMPS"] [-k KERNEL] NAME...
#
# The developer's short loop: build our test kernel and the selftests,
# put only the tests.list lines whose binary is one of NAME... into a
# small initramfs (no bpftrace, no upstream tests), boot it at each CPU
# count of SMPS (default "2") and print the results as make test does.
# KERNEL (default build/obj-test/arch/x86/boot/bzImage) boots another
# kernel, e.g. build/obj-stock's, after "make stock"; TESTMODS=DIR takes
# the test modules from DIR (default build/testmods, built for ours):
# those of another kernel are built against its objects, e.g.
#   make -C build/linux-stock O=$PWD/build/obj-stock M=<a copy> modules
# Logs: build/logs/quick-<pid>-smp<N>.log.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$ROOT/build
smps=2 kernel=
while getopts s:k: opt; do
	case $opt in
	s) smps=$OPTARG ;;
	k) kernel=$(readlink -m "$OPTARG") ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: quick-test.sh [-s SMPS] [-k KERNEL] NAME..." >&2; exit 2; }

if [ -z "$kernel" ]; then
	make -s -C "$ROOT" --no-print-directory kernel
	kernel=$B/obj-test/arch/x86/boot/bzImage
fi
make -s -C "$ROOT" --no-print-directory ptests runas

tag=quick-$$
list=$B/$tag.tests.list
initrd=$B/initramfs-$tag.cpio
trap 'rm -f "$list" "$initrd" "${initrd%.cpio}.list"' EXIT
awk -v names=" $* " '!/^#/ && NF && index(names, " " $1 " ")' \
	"$ROOT/tools/testing/selftests/perf_events/tests.list" > "$list"
[ -s "$list" ] || { echo "quick-test.sh: no tests.list line for: $*" >&2; exit 2; }
"$ROOT/scripts/guest/mkinitramfs.sh" -o "$initrd" -t "$list:$B/ptests" \
	$(for m in "${TESTMODS:-$B/testmods}"/*.ko; do [ -f "$m" ] && echo "-m $m"; done)
mkdir -p "$B/logs"
exec "$ROOT/scripts/test/run-selftests.sh" "$tag" "$kernel" "$initrd" "$smps"
