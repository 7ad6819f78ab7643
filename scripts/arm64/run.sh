#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh OURS STOCK INITRD "SMPS" RESULT-FILE
# run.sh --interactive KERNEL INITRD
#
# Boot the arm64 kernels (make arm64-test) on qemu-system-aarch64: the
# virt machine with a GICv3, -cpu max (PMUv3 with its cycle counter and
# six event counters under TCG), pseudo-NMI on so that the PMU interrupt
# arrives as an NMI, as on Debian's arm64 kernels. Each kernel runs the
# initramfs's tests once per CPU count of SMPS; results are named
# <test>@arm64-smpN (ours) and <test>@arm64-stock-smpN (stock).
# RESULT-FILE gets the PASS/FAIL lines in parse-results.py --result form
# (make test adds them to its own); the last line printed is
# "N passed, N failed". A64_CPU overrides the CPU model.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export QEMU=qemu-system-aarch64 CPU=${A64_CPU:-max} CONSOLE=ttyAMA0
export QEMU_EXTRA="-M virt,gic-version=3 ${QEMU_EXTRA:-}"
export APPEND="irqchip.gicv3_pseudo_nmi=1 ${APPEND:-}"

if [ "${1:-}" = --interactive ]; then
	exec "$ROOT/scripts/guest/boot.sh" "$2" "$3" cmd
fi

ours=$1 stock=$2 initrd=$3 smps=$4 result=$5
list=${initrd%.cpio.gz}.list
logs=$ROOT/build/logs
mkdir -p "$logs"
args=()
for kind in ours stock; do
	kernel=$ours suffix=arm64
	[ $kind = stock ] && kernel=$stock suffix=arm64-stock
	for n in $smps; do
		log=$logs/$suffix-smp$n.log
		rm -f "$log"
		if [ -f "$kernel" ]; then
			SMP=$n "$ROOT/scripts/guest/boot.sh" "$kernel" "$initrd" run "$log"
		else
			echo "  NOTE    no $kernel: it did not build"
		fi
		args+=(--boot "$suffix-smp$n:$n:$list:$log")
	done
done

status=0
python3 "$ROOT/scripts/test/parse-results.py" "${args[@]}" \
	--summary "$logs/arm64.summary" > "$logs/arm64.out" || status=$?
cat "$logs/arm64.out"
grep -E '^(PASS|FAIL) |^---- |^  [|] ' "$logs/arm64.out" |
	sed -E 's/^PASS ([^ ]+) \(skipped\)$/PASS \1: skip/' > "$result" || true
exit $status
