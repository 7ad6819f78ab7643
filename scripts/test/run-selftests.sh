#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-selftests.sh LABEL KERNEL INITRD "SMPS" [RESULT-FILE...]
#
# Boot KERNEL+INITRD once per CPU count in SMPS (e.g. "2 1") in ptest=run
# mode, logging the serial console to build/logs/LABEL-smpN.log, then parse
# all logs (plus the RESULT-FILEs) into per-test PASS/FAIL lines and the
# final "N passed, N failed" line (also saved in build/logs/LABEL.summary).
# Exit status 1 if anything failed.
# RUN_TESTS_BOOT_ONLY=1: only boot (make test boots smp1 beside the PMU
# model's boots); RUN_TESTS_BOOTED="N...": those CPU counts were booted
# so, and their logs are only parsed.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
label=$1 kernel=$2 initrd=$3 smps=$4; shift 4
list=${initrd%.cpio}.list
# Boot the model's QEMU where it is built (make test builds it first): its
# patch 0020 mends an MTTCG race of Debian's QEMU 7.2, a translation of
# code that a store had just changed, kept for good (fuzzing.rst). A
# uprobe test's hitter then ran a removed breakpoint's int3 until the
# test timed out: the kernel found no probe and no int3 in memory and
# restarted the instruction, as it should. "max,pmu=off" is the CPU that
# Debian's QEMU gives under TCG.
q=$ROOT/build/pmu-qemu/qemu-system-x86_64
if [ -z "${QEMU:-}" ] && [ -x "$q" ]; then
	export QEMU=$q CPU=${CPU:-max,pmu=off} QEMU_NODEFAULTS=1
	export QEMU_EXTRA="${QEMU_EXTRA:-} -L /usr/share/seabios -L /usr/share/qemu"
elif [ -z "${QEMU:-}" ]; then
	echo "  NOTE    Debian's QEMU (no build/pmu-qemu): its MTTCG race can hang a uprobe test"
fi
args=()
for n in $smps; do
	log=$ROOT/build/logs/$label-smp$n.log
	case " ${RUN_TESTS_BOOTED:-} " in
	*" $n "*) [ -f "$log" ] || echo "  NOTE    no $log: smp$n did not boot" ;;
	*)	rm -f "$log"
		SMP=$n "$ROOT/scripts/guest/boot.sh" "$kernel" "$initrd" run "$log" ;;
	esac
	args+=(--boot "smp$n:$n:$list:$log")
done
[ "${RUN_TESTS_BOOT_ONLY:-}" != 1 ] || exit 0
# The tests of RUN_TESTS_PLAIN_QEMU (default uprobe) boot once more, at 2
# CPUs, on Debian's own QEMU, which lacks patch 0020: outside suites may
# run there. Stock 6.12's uprobes never meet that race (a new page for
# each write); ours write in place and must cope (stop 59, uprobes'
# install.c), which only this boot shows on x86 (make test's arm64 QEMU
# lacks 0020 too).
plain=${RUN_TESTS_PLAIN_QEMU-uprobe}
if [ -n "$plain" ] && command -v qemu-system-x86_64 > /dev/null; then
	log=$ROOT/build/logs/$label-plain-qemu-smp2.log
	plist=$ROOT/build/logs/$label-plain-qemu.list
	awk -v only=" $plain " '/^#/ || !NF || index(only, " " $1 " ")' \
		"$list" > "$plist"
	rm -f "$log"
	env -u QEMU -u CPU -u QEMU_NODEFAULTS -u QEMU_EXTRA SMP=2 \
		APPEND="${APPEND:-} ptest_only=$(echo $plain | tr ' ' ,)" \
		"$ROOT/scripts/guest/boot.sh" "$kernel" "$initrd" run "$log"
	args+=(--boot "plain-qemu-smp2:2:$plist:$log")
fi
for r in "$@"; do args+=(--result "$r"); done
echo "  RESULTS serial logs: build/logs/$label-smp*.log"
exec python3 "$ROOT/scripts/test/parse-results.py" "${args[@]}" \
	--summary "$ROOT/build/logs/$label.summary"
