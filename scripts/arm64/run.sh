#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh OURS STOCK INITRD RESULT-FILE
# run.sh --interactive KERNEL INITRD
#
# Boot the arm64 kernels (make arm64-test) on qemu-system-aarch64's virt
# machine with a GICv3 and pseudo-NMI on, so that the PMU interrupt
# arrives as an NMI, as on Debian's arm64 kernels. Three boots per kernel:
#
#   arm64       -cpu max (PMUv3p5: six 64-bit-capable event counters and
#               the cycle counter), MTTCG on ARM64_SMPS CPUs: every test
#   arm64-a57   -cpu cortex-a57 (PMUv3 with 32-bit event counters: a
#               64-bit event chains two), -icount: arm64_pmu alone, its
#               counts exact, the kernel at EL1
#   arm64-vhe   -cpu max with virtualization=on: the kernel runs at EL2
#               (VHE), -icount: arm64_pmu, and kvm_guest (a KVM guest of
#               the test's own: exclude_host/exclude_guest)
#   arm64-nvhe  the same machine, kvm-arm.mode=nvhe: the kernel at EL1,
#               KVM's world switch at EL2, -icount: kvm_guest alone
#
# Results are named <test>@<boot>-smpN (ours) and <test>@<boot>-stock-smpN
# (stock). RESULT-FILE gets the PASS/FAIL lines in parse-results.py
# --result form (make test adds them to its own); the last line printed is
# "N passed, N failed". ARM64_KINDS="ours" leaves the stock kernel out
# (make test). Under -icount the cycle counter runs at 1 GHz of
# virtual time: shift 4 makes an instruction 16 cycles, and a cycles
# count passes 2^32 in about 270 million instructions.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# A64_QEMU: the PMU model's qemu-system-aarch64 (make arm64-qemu: Debian's
# with the CHAIN event, the virt board alone, hence -nodefaults), or
# Debian's own
export QEMU=${A64_QEMU:-qemu-system-aarch64} CONSOLE=ttyAMA0
[ -z "${A64_QEMU:-}" ] || export QEMU_NODEFAULTS=1
A64_ICOUNT=${A64_ICOUNT:-shift=4,sleep=off}
# label cpu machine-options icount smp only-tests [kernel-arguments]
#
# The boot of every test runs without the NMI watchdog: its cycles
# counter wraps every 2^31 cycles (two seconds of QEMU's clock), and
# each of those PMU interrupts takes tens of microseconds under TCG and
# KASAN, so the kernel lowers perf_event_max_sample_rate to 2000 before
# the first test and then throttles the sampling tests (rb_modes saw
# THROTTLE records, on ours and stock alike). The icount boots keep it:
# arm64_pmu's user-access tests find the cycle counter taken by it.
# perf_fuzz fuzzes for A64_FUZZ_SECONDS (60; x86's boot: 120) in the
# boot of every test: the same core, through the arm64 driver, in half
# of the time that make test's budget allows (.ci/run, 40 minutes).
BOOTS=${A64_BOOTS:-"arm64:max::-:${ARM64_SMPS:-2}:-:nmi_watchdog=0 PERF_FUZZ_SECONDS=${A64_FUZZ_SECONDS:-60}
arm64-a57:cortex-a57::$A64_ICOUNT:1:arm64_pmu
arm64-vhe:max:virtualization=on:$A64_ICOUNT:1:arm64_pmu,kvm_guest
arm64-nvhe:max:virtualization=on:$A64_ICOUNT:1:kvm_guest:kvm-arm.mode=nvhe"}

boot() {	# KERNEL INITRD MODE LOG CPU MACHINE ICOUNT SMP ONLY [ARGS]
	local machine=virt,gic-version=3 append="irqchip.gicv3_pseudo_nmi=1 ${10:-}"
	[ -z "$6" ] || machine=$machine,$6
	[ "$9" = - ] || append="$append ptest_only=$9"
	CPU=$5 SMP=$8 ICOUNT=${7#-} QEMU_EXTRA="-M $machine ${QEMU_EXTRA:-}" \
	APPEND="$append ${APPEND:-}" "$ROOT/scripts/guest/boot.sh" "$1" "$2" "$3" "$4"
}

if [ "${1:-}" = --interactive ]; then
	boot "$2" "$3" cmd /dev/null max "" - 2 -
	exit
fi

ours=$1 stock=$2 initrd=$3 result=$4
list=${initrd%.cpio}.list
logs=$ROOT/build/logs
mkdir -p "$logs"
# The -icount boots run one TCG thread each: once the MTTCG boots are
# done (one at a time, their console streamed), they go two by two
# beside each other on a host of two CPUs (BOOT_SLOTS, one slot each),
# their consoles shown whole as each ends. Virtual time makes their
# counts the same either way.
export BOOT_SLOTS=${BOOT_SLOTS:-$ROOT/build/.boot-slots-arm64}
args=()
pids=()
outs=()
for phase in mttcg icount; do
	while IFS=: read -r label cpu machine icount smp only kargs; do
		[ -n "$label" ] || continue
		want=icount
		[ "$icount" != - ] || want=mttcg
		[ $phase = $want ] || continue
		blist=$list
		if [ "$only" != - ]; then
			blist=$logs/$label.list
			awk -v only=" ${only//,/ } " 'index(only, " " $1 " ")' "$list" > "$blist"
		fi
		for kind in ${ARM64_KINDS:-ours stock}; do
			kernel=$ours suffix=$label kinitrd=$initrd
			if [ $kind = stock ]; then
				kernel=$stock suffix=$label-stock
				# its own test modules, where make arm64-test built them
				[ ! -f "${A64_INITRD_STOCK:-}" ] || kinitrd=$A64_INITRD_STOCK
			fi
			log=$logs/$suffix-smp$smp.log
			rm -f "$log"
			if [ ! -f "$kernel" ]; then
				echo "  NOTE    no $kernel: it did not build"
			elif [ $phase = mttcg ]; then
				boot "$kernel" "$kinitrd" run "$log" "$cpu" "$machine" "$icount" \
					"$smp" "$only" "$kargs"
			else
				boot "$kernel" "$kinitrd" run "$log" "$cpu" "$machine" "$icount" \
					"$smp" "$only" "$kargs" > "$log.out" 2>&1 &
				pids+=($!)
				outs+=("$log.out")
				# the next boot waits for a slot (boot.sh), not here
				sleep 1
			fi
			args+=(--boot "$suffix-smp$smp:$smp:$blist:$log")
		done
	done <<< "$BOOTS"
done
for pid in "${pids[@]}"; do
	wait "$pid" || true
done
for out in "${outs[@]}"; do
	cat "$out"
	rm -f "$out"
done

status=0
python3 "$ROOT/scripts/test/parse-results.py" "${args[@]}" \
	--summary "$logs/arm64.summary" > "$logs/arm64.out" || status=$?
cat "$logs/arm64.out"
grep -E '^(PASS|FAIL) |^---- |^  [|] ' "$logs/arm64.out" |
	sed -E 's/^PASS ([^ ]+) \(skipped\)$/PASS \1: skip/' > "$result" || true
exit $status
