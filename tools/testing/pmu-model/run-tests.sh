#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-tests.sh KERNEL [RESULT-FILE]: boot KERNEL on the TCG PMU model and
# run the guest tests of tests/tests.list.
#
# Builds the guest programs (build/pmu-tests) and their initramfs
# (build/initramfs-pmu.cpio), boots once per CPU model of PMU_CPUS
# (default "EPYC-PMU Skylake-PMU Icelake-PMU
# Icelake-PMU,arch-lbr=on,model=143,intel-pt=on Skylake-PMU,hypervisor=off":
# AMD, Intel, Intel without CPUID's hypervisor bit, where 6.12 registers
# what it hides under a hypervisor (that boot, named intel-metal, runs
# only the tests of PMU_METAL_TESTS, default "pmu-cstate"), and the Ice
# Lake server model with topdown slots and PERF_METRICS (named icx, runs
# only the tests of PMU_ICX_TESTS, default "pmu-topdown pmu-icx-cache
# pmu-topdown-perf.sh pmu-stat.sh pmu-rdpmc pmu-sched pmu-record.sh
# pmu-adaptive-pebs pmu-pebs-shared pmu-perf-test-all.sh"), and
# the Ice Lake model with architectural LBRs (0018) and Sapphire Rapids'
# model number, where 6.12 uses them (named alr, runs only the tests of
# PMU_ALR_TESTS, default "pmu-arch-lbr pmu-lbr.sh pmu-lbr-type
# pmu-lbr-stack pmu-lbr-task pmu-spr-cache pmu-pt.sh pmu-pt-filter"), with Intel PT (0022)),
# and the hybrid Alder Lake model (0023: CPU 0 a Core, CPU 1 an Atom;
# named adl, runs only the tests of PMU_ADL_TESTS, default "pmu-hybrid
# pmu-hybrid.sh"); PMU_EXTRA_CPUS adds CPU models (make test's run of
# ours: AlderLake-PMU,pmu-atom-lbr-depth=16, named adl-lbr, running
# pmu-hybrid: an Atom whose branch stack is shallower), and CPU count of
# PMU_SMPS (default "2") with build/pmu-qemu/qemu-system-x86_64 under
# -icount shift=0,sleep=off -seed 1, checks the boot log on the host (the
# kernel's Intel/AMD PMU driver line, no "broken PMU", no "unchecked MSR
# access"), and, with
# PMU_REPEAT=1 (default), boots each model with its first CPU count a
# second time and requires the two serial logs to be identical, byte for
# byte, up to the end of the tests (@@DONE).
# Results are named <test>@pmu-<intel|amd>-smp<N>, or with PMU_TAG=T
# <test>@pmu-T-<intel|amd>-smp<N> (to run two kernels' results side by side).
# PMU_SKIP="test ...": tests not run on this kernel (reported as skipped).
# PMU_ONLY="test ...": only those tests (a developer's loop, not make test).
# The guests boot with nmi_watchdog=0; the initramfs also carries the
# kernel's KVM modules and the model's test modules (modules/, built
# against the kernel under test) in /tests/modules, and pmu-kvm.
# PMU_QEMU overrides the QEMU binary.  Prints PASS/FAIL per test and "N passed, N failed" (build/logs/pmu[-TAG].summary);
# RESULT-FILE gets the PASS/FAIL lines in parse-results.py --result form.
# Exit status 1 if anything failed.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
B=$ROOT/build
kernel=$1 result=${2:-}
SMPS=${PMU_SMPS:-2}
# longest first: the boots share the host's CPUs (PMU_JOBS at a time, and
# BOOT_SLOTS with make test's other boots), and a long one started last
# would run alone at the end
CPUS=${PMU_CPUS:-EPYC-PMU Skylake-PMU Icelake-PMU Icelake-PMU,arch-lbr=on,model=143,intel-pt=on Skylake-PMU,hypervisor=off AlderLake-PMU}
CPUS="$CPUS ${PMU_EXTRA_CPUS:-}"
METAL_TESTS=${PMU_METAL_TESTS:-pmu-cstate}
ICX_TESTS=${PMU_ICX_TESTS:-pmu-topdown pmu-icx-cache pmu-topdown-perf.sh pmu-stat.sh pmu-rdpmc pmu-sched pmu-record.sh pmu-adaptive-pebs pmu-pebs-shared pmu-perf-test-all.sh}
ALR_TESTS=${PMU_ALR_TESTS:-pmu-arch-lbr pmu-lbr.sh pmu-lbr-type pmu-lbr-stack pmu-lbr-task pmu-spr-cache pmu-pt.sh pmu-pt-filter}
ADL_TESTS=${PMU_ADL_TESTS:-pmu-hybrid pmu-hybrid.sh}
REPEAT=${PMU_REPEAT:-1}
QEMU_BIN=${PMU_QEMU:-$B/pmu-qemu/qemu-system-x86_64}
initrd=$B/initramfs-pmu${PMU_TAG:+-$PMU_TAG}.cpio
list=${initrd%.cpio}.list
logs=$B/logs
mkdir -p "$logs"

[ -x "$QEMU_BIN" ] || { echo "run-tests.sh: no $QEMU_BIN (make pmu-qemu)" >&2; exit 1; }
[ -f "$kernel" ] || { echo "run-tests.sh: no kernel $kernel" >&2; exit 1; }

# With BOOT_SLOTS (make test: the smp1 boot runs beside this), the build
# of the guest programs, modules and initramfs below holds a host CPU
# too, until the boots, which take their own
. "$ROOT/scripts/host/slots.sh"
slots_take 1
mkdir -p "$B/pmu-tests"
make -s -C "$HERE/tests" OUTPUT="$B/pmu-tests"
tests=$HERE/tests/tests.list
if [ -n "${PMU_SKIP:-}" ]; then
	tests=$B/pmu-tests/tests${PMU_TAG:+-$PMU_TAG}.list
	awk -v skip=" ${PMU_SKIP} " 'index(skip, " " $1 " ") == 0' \
		"$HERE/tests/tests.list" > "$tests"
fi
# PMU_ONLY="test ...": the developer's short loop, only those tests (and
# the workloads the scripts run) in the image
if [ -n "${PMU_ONLY:-}" ]; then
	only_list=$B/pmu-tests/tests-only${PMU_TAG:+-$PMU_TAG}.list
	awk -v only=" ${PMU_ONLY} pmu-loop pmu-calls pmu-sys pmu-sys2 pmu-rep " \
		'/^#/ || !NF || index(only, " " $1 " ")' "$tests" > "$only_list"
	tests=$only_list
fi
# the kernel's own modules (KVM), for pmu-kvm.sh
mods=()
objdir=$(readlink -f "${kernel%/arch/x86/boot/bzImage}")
for ko in kvm kvm-amd kvm-intel; do
	[ -f "$objdir/arch/x86/kvm/$ko.ko" ] && mods+=(-m "$objdir/arch/x86/kvm/$ko.ko")
done
[ -f "$objdir/virt/lib/irqbypass.ko" ] && mods+=(-m "$objdir/virt/lib/irqbypass.ko")
# and the model's test modules (modules/), built against it
moddir=$B/pmu-mods${PMU_TAG:+-$PMU_TAG}
rm -rf "$moddir"; mkdir -p "$moddir"
cp "$HERE"/modules/Kbuild "$HERE"/modules/*.c "$moddir"/
env -u MAKEFLAGS -u MAKELEVEL make -s -C "$objdir/source" O="$objdir" \
	ARCH=x86_64 KBUILD_MODPOST_WARN=1 M="$moddir" modules
for ko in "$moddir"/*.ko; do mods+=(-m "$ko"); done
# run by pmu-kvm.sh once KVM is loaded
mods+=(-x "$B/pmu-tests/pmu-kvm")
# PAPI's tools, for pmu-papi.sh
mods+=(-x /usr/bin/papi_avail -x /usr/bin/papi_command_line)
# libpfm4's examples and pmu-pfm (static), for pmu-pfm.sh
mods+=(-x "$B/pmu-tests/showevtinfo" -x "$B/pmu-tests/check_events" \
	-x "$B/pmu-tests/pmu-pfm")
# sourced by the scripts that lift the sample rate limit
mods+=(-x "$B/pmu-tests/pmu-rate.sh")
# stock's perf test results per CPU model, for pmu-perf-test-all.sh
for t in "$HERE"/stock-results/perf-test-*.txt; do
	[ -f "$t" ] && mods+=(-x "$t")
done
"$ROOT/scripts/guest/mkinitramfs.sh" -o "$initrd" -t "$tests:$B/pmu-tests" "${mods[@]}"

# The tests a CPU model's boot runs: all (empty) or these
only_tests() { # CPU
	case $1 in
	*hypervisor=off*) echo $METAL_TESTS ;;
	*arch-lbr=on*) echo $ALR_TESTS ;;
	Icelake-PMU*) echo $ICX_TESTS ;;
	*pmu-atom-lbr-depth=*) echo pmu-hybrid ;;
	AlderLake-PMU*) echo $ADL_TESTS ;;
	esac
}

boot() { # CPU SMP LOG
	local only=
	# the bare-metal and Ice Lake boots run only their tests
	[ -z "$(only_tests "$1")" ] ||
		only="ptest_only=$(only_tests "$1" | tr ' ' ,)"
	# the NMI watchdog off: tests count on every counter (pmu-watchdog.sh
	# turns it on)
	APPEND="nmi_watchdog=0 $only ${APPEND:-}" \
	CPU=$1 SMP=$2 QEMU=$QEMU_BIN ICOUNT=shift=0,sleep=off \
		QEMU_NODEFAULTS=1 QEMU_EXTRA="-L /usr/share/seabios -L /usr/share/qemu" \
		"$ROOT/scripts/guest/boot.sh" "$kernel" "$initrd" run "$3" 2>&1 |
		grep -v "warning: TCG doesn't support requested feature" || true
}

slots_drop
# per tag: a run with another PMU_TAG may go on beside this one
out=$logs/pmu${PMU_TAG:+-$PMU_TAG}
checks=$out-boot.result
: > "$checks"
args=()
firsts=()
runs=()
# Every boot is single-threaded (icount runs the vCPUs round-robin on one
# host thread) and its guest time comes from the instruction count alone,
# so boots of different CPU models run side by side (PMU_JOBS at a time,
# default the host's CPU count) without changing a byte of their logs.
jobs=${PMU_JOBS:-$(nproc)}
for cpu in $CPUS; do
	case $cpu in
	EPYC*|*AMD*|*amd*) vendor=amd ;;
	*arch-lbr=on*) vendor=alr ;;
	Icelake-PMU*) vendor=icx ;;
	*pmu-atom-lbr-depth=*) vendor=adl-lbr ;;
	AlderLake-PMU*) vendor=adl ;;
	*) vendor=intel ;;
	esac
	case $cpu in
	*hypervisor=off*) vendor=$vendor-metal ;;
	esac
	for n in $SMPS; do
		run=pmu${PMU_TAG:+-$PMU_TAG}-$vendor-smp$n
		log=$logs/$run.log
		rm -f "$log"
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
		boot "$cpu" "$n" "$log" > "$log.out" &
		runs+=("$cpu $n $run")
		[ "$n" != "${SMPS%% *}" ] || firsts+=("$cpu $n $run")
	done
done
wait
for r in "${runs[@]}"; do
	set -- $r
	cpu=$1 n=$2 run=$3 log=$logs/$3.log
	case $cpu in
	EPYC*|*AMD*|*amd*) driver='AMD PMU driver' ;;
	*) driver='Intel PMU driver' ;;
	esac
	cat "$log.out"; rm -f "$log.out"
	runlist=$list skips=${PMU_SKIP:-}
	only=$(only_tests "$cpu")
	if [ -n "$only" ]; then
		runlist=$list-$(case $cpu in *hypervisor=off*) echo metal ;;
			*arch-lbr=on*) echo alr ;;
			*pmu-atom-lbr-depth=*) echo adl-lbr ;;
			AlderLake*) echo adl ;;
			*) echo icx ;; esac)
		awk -v only=" $only " '/^#/ || !NF || index(only, " " $1 " ")' \
			"$list" > "$runlist"
		skips=$(for t in $skips; do
			case " $only " in *" $t "*) echo "$t" ;; esac
		done)
	fi
	args+=(--boot "$run:$n:$runlist:$log")
	for t in $skips; do
		echo "PASS $t@$run: skip (PMU_SKIP: not run on this kernel)" >> "$checks"
	done
	# The kernel's driver took the model, without complaint
	name=pmu-model:driver@$run
	# and no MSR access of the driver faulted on the model
	bad='broken PMU|PMU not available|software events only|unchecked MSR access'
	if ! grep -q "Performance Events: .*$driver" "$log"; then
		echo "FAIL $name: no \"Performance Events: ... $driver\" line" >> "$checks"
	elif grep -qiE "$bad" "$log"; then
		echo "FAIL $name: $(grep -iE -m1 "$bad" "$log" | cut -c1-100)" >> "$checks"
	else
		echo "PASS $name" >> "$checks"
	fi
done
if [ "$REPEAT" = 1 ]; then
	for first in "${firsts[@]}"; do
		set -- $first
		log=$logs/$3-repeat.log
		rm -f "$log"
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
		boot "$1" "$2" "$log" > "$log.out" &
	done
	wait
	for first in "${firsts[@]}"; do
		set -- $first
		log=$logs/$3-repeat.log
		cat "$log.out"; rm -f "$log.out"
		name=pmu-model:repeatable@$3
		# everything up to the end of the tests (not the power-off after it)
		upto_done() { sed '/^@@DONE/q' "$1"; }
		if ! grep -q '^@@DONE' "$log"; then
			echo "FAIL $name: the second boot did not finish" >> "$checks"
		elif [ "$(upto_done "$logs/$3.log")" = "$(upto_done "$log")" ]; then
			echo "PASS $name" >> "$checks"
		else
			echo "FAIL $name: serial logs of two boots differ: $(diff <(upto_done "$logs/$3.log") <(upto_done "$log") | sed -n 2p | cut -c1-80)" >> "$checks"
		fi
	done
fi

status=0
python3 "$ROOT/scripts/test/parse-results.py" "${args[@]}" --result "$checks" \
	--summary "$out.summary" > "$out.out" || status=$?
cat "$out.out"
if [ -n "$result" ]; then
	# parse-results.py --result form: "PASS name[: skip]", "FAIL name: why",
	# each failure's "---- name:" and "  | " lines of what it printed
	grep -E '^(PASS|FAIL) |^---- |^  [|] ' "$out.out" |
		sed -E 's/^PASS ([^ ]+) \(skipped\)$/PASS \1: skip/' > "$result" || true
fi
exit $status
