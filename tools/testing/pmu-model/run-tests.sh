#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-tests.sh KERNEL [RESULT-FILE]: boot KERNEL on the TCG PMU model and
# run the guest tests of tests/tests.list.
#
# Builds the guest programs (build/pmu-tests) and their initramfs
# (build/initramfs-pmu.cpio.gz), boots once per CPU count of PMU_SMPS
# (default "2") with build/pmu-qemu/qemu-system-x86_64 -cpu $PMU_CPU
# (default Skylake-PMU) under -icount shift=0,sleep=off -seed 1, checks
# the boot log on the host (the kernel's PMU driver line, no "broken PMU"),
# and, with PMU_REPEAT=1 (default), boots the first CPU count a second time
# and requires the two serial logs to be identical, byte for byte.
# PMU_QEMU overrides the QEMU binary.  Prints PASS/FAIL per test and "N passed, N failed" (build/logs/pmu.summary);
# RESULT-FILE gets the PASS/FAIL lines in parse-results.py --result form.
# Exit status 1 if anything failed.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
B=$ROOT/build
kernel=$1 result=${2:-}
SMPS=${PMU_SMPS:-2}
CPU_MODEL=${PMU_CPU:-Skylake-PMU}
REPEAT=${PMU_REPEAT:-1}
QEMU_BIN=${PMU_QEMU:-$B/pmu-qemu/qemu-system-x86_64}
initrd=$B/initramfs-pmu.cpio.gz
list=${initrd%.cpio.gz}.list
logs=$B/logs
mkdir -p "$logs"

[ -x "$QEMU_BIN" ] || { echo "run-tests.sh: no $QEMU_BIN (make pmu-qemu)" >&2; exit 1; }
[ -f "$kernel" ] || { echo "run-tests.sh: no kernel $kernel" >&2; exit 1; }

make -s -C "$HERE/tests" OUTPUT="$B/pmu-tests"
"$ROOT/scripts/mkinitramfs.sh" -o "$initrd" -t "$HERE/tests/tests.list:$B/pmu-tests"

boot() { # SMP LOG
	SMP=$1 QEMU=$QEMU_BIN CPU=$CPU_MODEL ICOUNT=shift=0,sleep=off \
		QEMU_NODEFAULTS=1 QEMU_EXTRA="-L /usr/share/seabios -L /usr/share/qemu" \
		"$ROOT/scripts/boot.sh" "$kernel" "$initrd" run "$2" 2>&1 |
		grep -v "warning: TCG doesn't support requested feature" || true
}

checks=$logs/pmu-boot.result
: > "$checks"
args=()
for n in $SMPS; do
	log=$logs/pmu-smp$n.log
	rm -f "$log"
	boot "$n" "$log"
	args+=(--boot "pmu-smp$n:$n:$list:$log")
	# The stock kernel's driver took the model, without complaint
	name=pmu-model:driver@pmu-smp$n
	if ! grep -q 'Performance Events: .*Intel PMU driver' "$log"; then
		echo "FAIL $name: no \"Performance Events: ... Intel PMU driver\" line" >> "$checks"
	elif grep -qi 'broken PMU\|PMU not available\|software events only' "$log"; then
		echo "FAIL $name: $(grep -i -m1 'broken PMU\|not available\|software events only' "$log" | cut -c1-100)" >> "$checks"
	else
		echo "PASS $name" >> "$checks"
	fi
done
if [ "$REPEAT" = 1 ]; then
	n=${SMPS%% *}
	log=$logs/pmu-smp$n-repeat.log
	rm -f "$log"
	boot "$n" "$log"
	name=pmu-model:repeatable@pmu-smp$n
	if cmp -s "$logs/pmu-smp$n.log" "$log"; then
		echo "PASS $name" >> "$checks"
	else
		echo "FAIL $name: serial logs of two boots differ: $(diff "$logs/pmu-smp$n.log" "$log" | sed -n 2p | cut -c1-80)" >> "$checks"
	fi
fi

status=0
python3 "$ROOT/scripts/parse-results.py" "${args[@]}" --result "$checks" \
	--summary "$logs/pmu.summary" > "$logs/pmu.out" || status=$?
cat "$logs/pmu.out"
if [ -n "$result" ]; then
	grep -E '^(PASS|FAIL) ' "$logs/pmu.out" > "$result" || true
fi
exit $status
